//! Panics that unwind: destructors run in order while a panic unwinds through several
//! frames, `catch_unwind` stops it and returns the payload, and the program goes on.
//!
//!     ./y.sh run examples/unwind.rs

use std::panic;

struct Noisy(&'static str);

impl Drop for Noisy {
    fn drop(&mut self) {
        println!("  dropping {}", self.0);
    }
}

fn inner(depth: u32) -> u32 {
    let _guard = Noisy(if depth == 0 { "inner guard" } else { "middle guard" });
    if depth == 0 {
        panic!("the answer is {}", 6 * 7);
    }
    inner(depth - 1) + 1
}

fn main() {
    // keep the default hook's message off stderr: this program prints its own
    panic::set_hook(Box::new(|_| {}));
    let _outer = Noisy("main's guard (dropped last, at exit)");
    for depth in [0, 2] {
        println!("calling inner({depth}):");
        let result = panic::catch_unwind(|| inner(depth));
        match result {
            Ok(v) => println!("  returned {v}"),
            Err(payload) => {
                let message = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .unwrap_or_else(|| "?".into());
                println!("  caught a panic: {message}");
            }
        }
    }
    println!("still running after two panics");
}
