// BinaryHeap: max-heap, Reverse for min-heap, peek, into_sorted_vec, custom Ord.
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

#[derive(Debug, PartialEq, Eq)]
struct Task {
    priority: u32,
    name: String,
}

impl Ord for Task {
    fn cmp(&self, other: &Self) -> Ordering {
        self.priority.cmp(&other.priority).then_with(|| other.name.cmp(&self.name))
    }
}

impl PartialOrd for Task {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

fn main() {
    let mut h = BinaryHeap::new();
    for x in [5, 1, 8, 3, 9, 2, 8, 7] {
        h.push(x);
    }
    println!("peek {:?} len {}", h.peek(), h.len());
    let mut out = Vec::new();
    while let Some(x) = h.pop() {
        out.push(x);
    }
    println!("max order {:?}", out);
    let mut min: BinaryHeap<Reverse<i64>> = [4i64, -2, 17, 0, -9].into_iter().map(Reverse).collect();
    min.push(Reverse(3));
    print!("min order");
    while let Some(Reverse(x)) = min.pop() {
        print!(" {x}");
    }
    println!();
    let mut tasks = BinaryHeap::new();
    for (p, n) in [(2, "write"), (5, "deploy"), (2, "alpha"), (9, "fix"), (5, "build")] {
        tasks.push(Task { priority: p, name: n.to_string() });
    }
    while let Some(t) = tasks.pop() {
        println!("{} {}", t.priority, t.name);
    }
    let h2: BinaryHeap<u16> = (0..50u16).map(|i| (i * 37) % 101).collect();
    let sorted = h2.into_sorted_vec();
    println!("{:?}", &sorted[..10]);
    // k smallest via a bounded max-heap
    let mut k = BinaryHeap::new();
    for i in 0..2000u64 {
        let v = (i * 2654435761) % 100_003;
        k.push(v);
        if k.len() > 5 {
            k.pop();
        }
    }
    println!("5 smallest {:?}", k.into_sorted_vec());
}
