// A RefCell borrowed mutably twice panics (already borrowed), after output to stdout
// and stderr.
// expect-exit: 101
// expect-stderr-contains: already borrowed
use std::cell::RefCell;

fn main() {
    let c = RefCell::new(vec![1]);
    let first = c.borrow_mut();
    println!("first borrow holds {:?}", *first);
    eprintln!("about to borrow again");
    let second = c.borrow_mut();
    println!("never {:?}", *second);
}
