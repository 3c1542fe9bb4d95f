// Unwinding (panic=unwind): a destructor that panics while a panic unwinds aborts the
// program (SIGABRT on the host, status 134 here), after both messages.
// expect-exit: 134
// expect-stderr-contains: panic in a destructor during cleanup
struct PanicsOnDrop;

impl Drop for PanicsOnDrop {
    fn drop(&mut self) {
        println!("dropping while panicking: {}", std::thread::panicking());
        panic!("second panic, in drop");
    }
}

fn main() {
    println!("start");
    let _p = PanicsOnDrop;
    panic!("first panic");
}
