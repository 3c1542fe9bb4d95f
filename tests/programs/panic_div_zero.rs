// Integer division by zero and i32::MIN / -1 panic at every opt level (unlike overflow
// of + and *, whose checks depend on debug assertions); checked ops make it explicit.
// expect-exit: 101
// expect-stderr-contains: attempt to divide by zero
use std::hint::black_box;

fn main() {
    println!("checked_mul {:?}", black_box(i32::MAX).checked_mul(2));
    println!("checked_div {:?}", black_box(i32::MIN).checked_div(-1));
    let divisors = [5, 3, 1, 0, 2];
    for d in divisors {
        let d = black_box(d);
        println!("100 / {d} = {}", 100 / d);
    }
}
