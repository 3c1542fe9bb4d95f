// Every guest thread waits and none can wake another: main holds a lock and joins
// a thread that waits for that lock. On VLIW-64 `cargo-vliw run --bin deadlock`
// must end with the simulator's deadlock fault naming both threads (exit status
// 146); on the host it would hang, so there it only says so.
use std::sync::{Arc, Mutex};

fn main() {
    println!("joining a thread that waits for a lock main holds");
    if cfg!(target_arch = "vliw64") {
        let lock = Arc::new(Mutex::new(0u32));
        let held = lock.lock().unwrap();
        let other = {
            let lock = lock.clone();
            std::thread::spawn(move || *lock.lock().unwrap() += 1)
        };
        other.join().unwrap();
        println!("never reached: {}", *held);
    }
}
