// Option::unwrap on None panics with the standard message and the caller's location.
// expect-exit: 101
// expect-stderr-contains: called `Option::unwrap()` on a `None` value
fn find(xs: &[&str], key: &str) -> Option<usize> {
    xs.iter().position(|x| *x == key)
}

fn main() {
    let xs = ["a", "b", "c"];
    println!("b at {}", find(&xs, "b").unwrap());
    println!("z at {}", find(&xs, "z").unwrap());
}
