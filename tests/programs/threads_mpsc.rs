// Threads that wait for each other through channels: a ping-pong between the
// parent and a child, a child that waits for its parent to send first, and a
// pipeline of three stages. Output does not depend on the interleaving.
use std::sync::mpsc;
use std::thread;

fn ping_pong() {
    let (to_child, from_parent) = mpsc::channel::<u64>();
    let (to_parent, from_child) = mpsc::channel::<u64>();
    let child = thread::spawn(move || {
        let mut seen = 0;
        for v in from_parent {
            seen += 1;
            to_parent.send(v * v).unwrap();
        }
        seen
    });
    let mut squares = Vec::new();
    for i in 1..=12 {
        to_child.send(i).unwrap();
        squares.push(from_child.recv().unwrap());
    }
    drop(to_child);
    let seen = child.join().unwrap();
    println!("ping-pong: {seen} round trips, squares {squares:?}");
}

fn waits_for_parent() {
    // the child blocks in recv before the parent has sent anything
    let (tx, rx) = mpsc::sync_channel::<String>(0);
    let (done_tx, done_rx) = mpsc::channel();
    let child = thread::spawn(move || {
        let first = rx.recv().unwrap();
        done_tx.send(first.len()).unwrap();
        let second = rx.recv().unwrap();
        format!("{first} {second}")
    });
    tx.send("hello".to_string()).unwrap();
    let n = done_rx.recv().unwrap();
    tx.send("world".to_string()).unwrap();
    println!("child got {:?} (first had {n} bytes)", child.join().unwrap());
}

fn pipeline() {
    let (tx1, rx1) = mpsc::channel::<u32>();
    let (tx2, rx2) = mpsc::channel::<u32>();
    let stage1 = thread::spawn(move || {
        for v in rx1 {
            tx2.send(v + 1).unwrap();
        }
    });
    let stage2 = thread::spawn(move || rx2.iter().map(|v| v * 3).sum::<u32>());
    for v in 0..100 {
        tx1.send(v).unwrap();
    }
    drop(tx1);
    stage1.join().unwrap();
    println!("pipeline sum: {}", stage2.join().unwrap());
}

fn many_senders() {
    let (tx, rx) = mpsc::channel::<(usize, u32)>();
    let handles: Vec<_> = (0..5)
        .map(|id| {
            let tx = tx.clone();
            thread::spawn(move || {
                for k in 0..20 {
                    tx.send((id, k)).unwrap();
                }
            })
        })
        .collect();
    drop(tx);
    let mut per = [0u32; 5];
    let mut total = 0;
    for (id, k) in rx {
        per[id] += 1;
        total += k;
    }
    for h in handles {
        h.join().unwrap();
    }
    println!("many senders: per thread {per:?}, total {total}");
}

fn main() {
    ping_pong();
    waits_for_parent();
    pipeline();
    many_senders();
}
