// Unwinding (panic=unwind): a panic unwinds out of main through frames with values to
// drop; their destructors run before the process exits with status 101.
// expect-exit: 101
// expect-stderr-contains: the value is 7
struct Announce(&'static str);

impl Drop for Announce {
    fn drop(&mut self) {
        println!("drop {}", self.0);
    }
}

#[inline(never)]
fn check(v: u32) {
    let _a = Announce("in check");
    if v == 7 {
        panic!("the value is {v}");
    }
    println!("checked {v}");
}

fn main() {
    let _m = Announce("in main");
    let boxed = Box::new(Announce("boxed"));
    for v in [3, 5, 7, 9] {
        check(v);
    }
    drop(boxed);
}
