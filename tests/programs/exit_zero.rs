// std::process::exit(0) after output; code after it does not run, destructors neither.
struct Guard;
impl Drop for Guard {
    fn drop(&mut self) {
        println!("never printed");
    }
}

fn main() {
    let _g = Guard;
    println!("before exit");
    std::process::exit(0);
}
