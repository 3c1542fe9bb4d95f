// Guest threads that wait for each other: the `cargo` suite runs `cargo-vliw run
// --bin threads` with small quanta and several `--seed`s (VLIW_RUN_FLAGS), so that
// the simulator switches threads in the middle of the work in a different order
// each time; the output must equal the host's every time.
use std::sync::mpsc;
use std::sync::{Arc, Barrier, Condvar, Mutex};
use std::thread;

fn main() {
    const WORKERS: u64 = 4;
    let total = Arc::new(Mutex::new(0u64));
    let barrier = Arc::new(Barrier::new(WORKERS as usize));
    let (tx, rx) = mpsc::channel();
    let handles: Vec<_> = (0..WORKERS)
        .map(|w| {
            let (total, barrier, tx) = (total.clone(), barrier.clone(), tx.clone());
            thread::spawn(move || {
                let mut local = 0u64;
                for i in 0..2_000u64 {
                    local = local.wrapping_mul(31).wrapping_add(i * (w + 1));
                    if i % 100 == 0 {
                        *total.lock().unwrap() += i;
                    }
                }
                // nobody goes on until every worker has done its part
                barrier.wait();
                tx.send((w, local)).unwrap();
                w
            })
        })
        .collect();
    drop(tx);
    let mut results: Vec<(u64, u64)> = rx.iter().collect();
    results.sort();
    let joined: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    println!("results: {results:?}");
    println!("joined: {joined}, total: {}", total.lock().unwrap());

    // a condition variable: the main thread waits until a worker says it is ready
    let pair = Arc::new((Mutex::new(false), Condvar::new()));
    let worker = {
        let pair = pair.clone();
        thread::spawn(move || {
            let (ready, cv) = &*pair;
            *ready.lock().unwrap() = true;
            cv.notify_one();
        })
    };
    let (ready, cv) = &*pair;
    let guard = cv.wait_while(ready.lock().unwrap(), |r| !*r).unwrap();
    println!("ready: {}", *guard);
    drop(guard);
    worker.join().unwrap();

    // scoped threads borrowing the main thread's data
    let data = vec![1u64, 2, 3, 4, 5, 6, 7, 8];
    let sums: Vec<u64> = thread::scope(|s| {
        let halves: Vec<_> = data.chunks(4).map(|c| s.spawn(move || c.iter().sum())).collect();
        halves.into_iter().map(|h| h.join().unwrap()).collect()
    });
    println!("scoped sums: {sums:?}");
}
