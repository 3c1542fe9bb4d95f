// std::process::exit with code 3 from a nested function; buffered stdout is flushed.
// expect-exit: 3
fn finish(code: i32) -> ! {
    print!("exiting with {code}");
    println!(" now");
    eprintln!("to stderr before exit");
    std::process::exit(code)
}

fn main() {
    let total: i32 = (1..=10).sum();
    println!("total {total}");
    if total == 55 {
        finish(3);
    }
    println!("unreachable");
}
