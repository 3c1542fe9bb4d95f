// Unwinding (panic=unwind): a destructor that panics while a panic unwinds aborts the
// program (SIGABRT on the host, status 134 here), after the hook saw both panics and
// the third one, rustc's "panic in a destructor during cleanup". The hook prints to
// stdout: the default hook prints a full backtrace for a second panic, with addresses.
// expect-exit: 134
// expect-stderr-contains: thread caused non-unwinding panic. aborting.
struct PanicsOnDrop;

impl Drop for PanicsOnDrop {
    fn drop(&mut self) {
        println!("dropping while panicking: {}", std::thread::panicking());
        panic!("second panic, in drop");
    }
}

fn main() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".into());
        println!("hook: {message}");
    }));
    println!("start");
    let _p = PanicsOnDrop;
    panic!("first panic");
}
