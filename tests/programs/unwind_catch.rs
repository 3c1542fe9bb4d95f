// Unwinding (panic=unwind): resume_unwind with a payload that is no string (no hook
// runs), nested catch_unwind, a panic in a spawned thread reported by join, a panic
// unwinding through trait objects and iterator adapters, and a Result returned from
// catch_unwind after a partial side effect.
use std::panic::{self, AssertUnwindSafe};
use std::thread;

struct Guard(u32);

impl Drop for Guard {
    fn drop(&mut self) {
        println!("  guard {} dropped", self.0);
    }
}

trait Shape {
    fn area(&self) -> u32;
}

struct Square(u32);

impl Shape for Square {
    fn area(&self) -> u32 {
        let _g = Guard(self.0);
        if self.0 == 0 {
            panic!("empty square");
        }
        self.0 * self.0
    }
}

fn main() {
    let r = panic::catch_unwind(|| {
        let _g = Guard(1);
        panic::resume_unwind(Box::new(42u64))
    });
    let payload = r.err().and_then(|p| p.downcast_ref::<u64>().copied());
    println!("resume_unwind payload: {payload:?}");

    let outer = panic::catch_unwind(|| {
        let _g = Guard(2);
        let inner = panic::catch_unwind(|| {
            let _g = Guard(3);
            panic!("inner")
        });
        println!("inner caught: {}", inner.is_err());
        panic!("outer")
    });
    println!("outer caught: {}", outer.is_err());

    let h = thread::spawn(|| {
        let _g = Guard(4);
        panic!("in a thread")
    });
    match h.join() {
        Ok(()) => println!("thread returned"),
        Err(p) => println!("join: {:?}", p.downcast_ref::<&str>()),
    }

    let shapes: Vec<Box<dyn Shape>> = vec![Box::new(Square(2)), Box::new(Square(0)), Box::new(Square(3))];
    let mut total = 0;
    let r = panic::catch_unwind(AssertUnwindSafe(|| {
        for s in shapes.iter().map(|s| s.area()) {
            total += s;
            println!("  running total {total}");
        }
    }));
    println!("sum caught: {}, total so far {total}", r.is_err());

    let counts: Vec<Result<u32, String>> = (0..4)
        .map(|k| {
            panic::catch_unwind(move || {
                if k % 2 == 1 {
                    panic!("odd {k}");
                }
                k * 100
            })
            .map_err(|p| p.downcast_ref::<String>().cloned().unwrap_or_default())
        })
        .collect();
    println!("{counts:?}");
}
