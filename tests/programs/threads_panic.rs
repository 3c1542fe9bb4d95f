// A panicking thread's join result and payload, a panic in a scoped thread, a
// Mutex poisoned by a panicking thread, and a thread that outlives a join of
// another.
// expect-stderr-contains: panicked at
use std::sync::{Arc, Mutex};
use std::thread;

fn main() {
    let r = thread::spawn(|| -> u32 { panic!("child failed") }).join();
    match r {
        Ok(v) => println!("unexpected {v}"),
        Err(e) => println!(
            "join: Err, payload {:?}",
            e.downcast_ref::<&str>()
        ),
    }
    let r = thread::spawn(|| std::panic::panic_any(7u8)).join();
    println!("join: payload u8 {:?}", r.unwrap_err().downcast_ref::<u8>());

    let m = Arc::new(Mutex::new(5));
    let m2 = m.clone();
    let r = thread::spawn(move || {
        let mut g = m2.lock().unwrap();
        *g += 1;
        panic!("while holding the lock");
    })
    .join();
    println!(
        "poison: join err {}, poisoned {}, value {}",
        r.is_err(),
        m.is_poisoned(),
        *m.lock().unwrap_or_else(|e| e.into_inner())
    );

    let r = std::panic::catch_unwind(|| {
        thread::scope(|s| {
            s.spawn(|| panic!("scoped child"));
            s.spawn(|| 1 + 1);
        })
    });
    println!("scope with a panicking thread: {}", r.is_err());

    let ok = thread::spawn(|| (1..=10u32).product::<u32>()).join().unwrap();
    println!("a later thread still works: {ok}");
}
