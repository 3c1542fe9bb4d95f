// Unwinding (panic=unwind): destructors run in order while a panic unwinds through
// several frames (a generic function inlined, a closure, a Vec of values, a frame kept
// out of line), catch_unwind returns the payload, and the panic hook sees it.
use std::panic;

struct Noisy(&'static str);

impl Drop for Noisy {
    fn drop(&mut self) {
        println!("  drop {}", self.0);
    }
}

#[inline(never)]
fn deepest(n: u32) -> u32 {
    let _a = Noisy("deepest");
    if n > 2 {
        panic!("too deep: {n}");
    }
    n * 10
}

#[inline(always)]
fn generic_middle<F: Fn(u32) -> u32>(f: F, n: u32) -> u32 {
    let _b = Noisy("generic_middle (inlined)");
    f(n) + 1
}

#[inline(never)]
fn outer(n: u32) -> u32 {
    let v = vec![Noisy("vec[0]"), Noisy("vec[1]")];
    let r = generic_middle(
        |k| {
            let _c = Noisy("closure");
            deepest(k + 1)
        },
        n,
    );
    drop(v);
    println!("  outer returns {r}");
    r
}

fn payload_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else {
        "(not a string)".to_string()
    }
}

fn main() {
    panic::set_hook(Box::new(|info| {
        println!("  hook: {}", payload_text(info.payload()));
    }));
    for n in 0..4 {
        println!("n = {n}");
        match panic::catch_unwind(|| outer(n)) {
            Ok(v) => println!("  returned {v}"),
            Err(p) => println!("  caught: {}", payload_text(&*p)),
        }
    }
    // the hook taken: the default one prints to stderr again
    let _ = panic::take_hook();
    let r = panic::catch_unwind(|| {
        let _d = Noisy("before the panic");
        let v: Vec<u32> = Vec::new();
        v[3]
    });
    println!("index panic caught: {}", r.is_err());
}
