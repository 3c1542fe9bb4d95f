// compile-flags: -Cpanic=abort
// expect-exit: 134
// expect-stderr-contains: index out of bounds
// The other strategy: built with -Cpanic=abort (which links panic_abort into a
// program whose std was built to unwind, on both sides), a panic prints its message
// and ends the process without unwinding: no destructor runs after it (`never` is not
// dropped), and the status is the host's SIGABRT (134). `catch_unwind` of a closure
// that returns still returns its value.
use std::hint::black_box;

struct Noisy(&'static str);

impl Drop for Noisy {
    fn drop(&mut self) {
        println!("drop {}", self.0);
    }
}

fn main() {
    let _outer = Noisy("outer");
    {
        let _inner = Noisy("inner");
    }
    let r = std::panic::catch_unwind(|| black_box(5) * 2);
    println!("catch_unwind without a panic: {r:?}");
    let v: Vec<u32> = (0..10).collect();
    let _never = Noisy("never");
    println!("before the panic");
    println!("{}", v[black_box(12)]);
}
