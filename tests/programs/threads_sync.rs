// Mutex and Condvar (a bounded queue between a producer and two consumers),
// Barrier with four threads, RwLock, atomics from several threads, park/unpark.
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Condvar, Mutex, RwLock};
use std::thread;

struct Queue {
    items: Mutex<(VecDeque<u32>, bool)>,
    not_empty: Condvar,
    not_full: Condvar,
}

fn producer_consumer() {
    let q = Arc::new(Queue {
        items: Mutex::new((VecDeque::new(), false)),
        not_empty: Condvar::new(),
        not_full: Condvar::new(),
    });
    let consumers: Vec<_> = (0..2)
        .map(|_| {
            let q = q.clone();
            thread::spawn(move || {
                let mut sum = 0u64;
                let mut count = 0;
                loop {
                    let mut g = q.items.lock().unwrap();
                    while g.0.is_empty() && !g.1 {
                        g = q.not_empty.wait(g).unwrap();
                    }
                    let Some(v) = g.0.pop_front() else { break };
                    drop(g);
                    q.not_full.notify_one();
                    sum += u64::from(v);
                    count += 1;
                }
                (sum, count)
            })
        })
        .collect();
    for v in 1..=200 {
        let mut g = q.items.lock().unwrap();
        while g.0.len() >= 4 {
            g = q.not_full.wait(g).unwrap();
        }
        g.0.push_back(v);
        drop(g);
        q.not_empty.notify_one();
    }
    q.items.lock().unwrap().1 = true;
    q.not_empty.notify_all();
    let (mut sum, mut count) = (0, 0);
    for c in consumers {
        let (s, n) = c.join().unwrap();
        sum += s;
        count += n;
    }
    println!("producer/consumer: {count} items, sum {sum}");
}

fn barrier() {
    let n = 4;
    let barrier = Arc::new(Barrier::new(n));
    let slots = Arc::new(Mutex::new(vec![0u64; n]));
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let barrier = barrier.clone();
            let slots = slots.clone();
            thread::spawn(move || {
                let mine: u64 = (0..1000u64).map(|k| k * (i as u64 + 1)).sum();
                slots.lock().unwrap()[i] = mine;
                let leader = barrier.wait().is_leader();
                // after the barrier every thread sees every slot
                let all: u64 = slots.lock().unwrap().iter().sum();
                let leader2 = barrier.wait().is_leader();
                (all, leader as u32 + leader2 as u32)
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let leaders: u32 = results.iter().map(|r| r.1).sum();
    println!(
        "barrier: every thread saw {:?}, {leaders} leaders in two rounds",
        results.iter().map(|r| r.0).collect::<Vec<_>>()
    );
}

fn rwlock_and_atomics() {
    let table = Arc::new(RwLock::new(Vec::new()));
    let counter = Arc::new(AtomicUsize::new(0));
    let writers: Vec<_> = (0..3)
        .map(|w| {
            let table = table.clone();
            let counter = counter.clone();
            thread::spawn(move || {
                for k in 0..50 {
                    table.write().unwrap().push(w * 100 + k);
                    counter.fetch_add(1, Ordering::SeqCst);
                    if k % 10 == 0 {
                        thread::yield_now();
                    }
                }
            })
        })
        .collect();
    let reader = {
        let table = table.clone();
        thread::spawn(move || {
            let mut max_len = 0;
            for _ in 0..20 {
                max_len = max_len.max(table.read().unwrap().len());
                thread::yield_now();
            }
            max_len <= 150
        })
    };
    for w in writers {
        w.join().unwrap();
    }
    let ok = reader.join().unwrap();
    let mut v = table.read().unwrap().clone();
    v.sort();
    println!(
        "rwlock: {} entries, first {:?}, last {:?}, counter {}, reader ok {ok}",
        v.len(),
        &v[..3],
        &v[v.len() - 3..],
        counter.load(Ordering::SeqCst)
    );
}

fn park_unpark() {
    let flag = Arc::new(AtomicUsize::new(0));
    let f = flag.clone();
    let parked = thread::spawn(move || {
        while f.load(Ordering::Acquire) == 0 {
            thread::park();
        }
        f.load(Ordering::Acquire)
    });
    flag.store(7, Ordering::Release);
    parked.thread().unpark();
    println!("park/unpark: {}", parked.join().unwrap());
}

fn main() {
    producer_consumer();
    barrier();
    rwlock_and_atomics();
    park_unpark();
}
