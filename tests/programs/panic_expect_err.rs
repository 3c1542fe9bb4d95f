// Result::expect on Err: the message, then the Debug of the error.
// expect-exit: 101
// expect-stderr-contains: config value must be a number: ParseIntError
fn main() {
    let values = ["10", "20", "thirty"];
    let mut total = 0;
    for v in values {
        let n: i32 = v.parse().expect("config value must be a number");
        total += n;
        println!("running total {total}");
    }
}
