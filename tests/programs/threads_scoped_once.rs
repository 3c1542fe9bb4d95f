// Scoped threads borrowing the parent's data, OnceLock and LazyLock raced by
// several threads, thread names and thread-local storage per thread, sleep.
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

static INITS: AtomicUsize = AtomicUsize::new(0);
static CONFIG: OnceLock<Vec<u32>> = OnceLock::new();
static TABLE: LazyLock<Vec<u64>> = LazyLock::new(|| {
    INITS.fetch_add(100, Ordering::SeqCst);
    (0..64).map(|i| i * i).collect()
});

thread_local! {
    static LOCAL: Cell<u64> = const { Cell::new(1) };
}

fn scoped() {
    let data: Vec<u64> = (1..=1000).collect();
    let mut partial = [0u64; 4];
    thread::scope(|s| {
        for (chunk, out) in data.chunks(250).zip(partial.iter_mut()) {
            s.spawn(move || *out = chunk.iter().sum());
        }
    });
    let mut words = vec![String::from("a"), String::from("bb"), String::from("ccc")];
    thread::scope(|s| {
        for w in words.iter_mut() {
            s.spawn(move || w.push('!'));
        }
        let h = s.spawn(|| data.iter().filter(|&&x| x % 7 == 0).count());
        println!("scoped: multiples of 7: {}", h.join().unwrap());
    });
    println!("scoped: partial sums {partial:?}, words {words:?}");
}

fn once() {
    let handles: Vec<_> = (0..6)
        .map(|i| {
            thread::spawn(move || {
                let v = CONFIG.get_or_init(|| {
                    INITS.fetch_add(1, Ordering::SeqCst);
                    thread::yield_now();
                    vec![1, 2, 3]
                });
                let t = TABLE[i * 10];
                (v.iter().sum::<u32>(), t)
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    println!(
        "once: {results:?}, initializations {}",
        INITS.load(Ordering::SeqCst)
    );
}

fn locals_and_names() {
    LOCAL.with(|l| l.set(10));
    let h = thread::Builder::new()
        .name("worker".into())
        .stack_size(256 << 10)
        .spawn(|| {
            let before = LOCAL.with(|l| l.get());
            LOCAL.with(|l| l.set(before + 41));
            (
                thread::current().name().map(str::to_string),
                LOCAL.with(|l| l.get()),
            )
        })
        .unwrap();
    let (name, local) = h.join().unwrap();
    println!(
        "locals: worker saw {local} named {name:?}, main still {}",
        LOCAL.with(|l| l.get())
    );
}

fn sleeping() {
    let start = Instant::now();
    let sleeper = thread::spawn(|| {
        thread::sleep(Duration::from_millis(20));
        "slept"
    });
    let mut spins = 0u64;
    for i in 0..2000u64 {
        spins = spins.wrapping_add(i * i);
    }
    let r = sleeper.join().unwrap();
    println!(
        "sleep: {r}, at least 20 ms passed: {}, spins {spins}",
        start.elapsed() >= Duration::from_millis(20)
    );
}

fn main() {
    scoped();
    once();
    locals_and_names();
    sleeping();
}
