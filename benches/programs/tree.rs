// Pointer chasing and recursion: an unbalanced binary search tree with Box.
use std::hint::black_box;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

struct Node {
    key: u32,
    val: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

fn insert(slot: &mut Option<Box<Node>>, key: u32, val: u64) -> bool {
    match slot {
        None => {
            *slot = Some(Box::new(Node { key, val, left: None, right: None }));
            true
        }
        Some(n) => {
            if key < n.key {
                insert(&mut n.left, key, val)
            } else if key > n.key {
                insert(&mut n.right, key, val)
            } else {
                n.val = n.val.wrapping_add(val);
                false
            }
        }
    }
}

fn lookup(mut cur: &Option<Box<Node>>, key: u32) -> Option<u64> {
    while let Some(n) = cur {
        if key == n.key {
            return Some(n.val);
        }
        cur = if key < n.key { &n.left } else { &n.right };
    }
    None
}

fn depth(t: &Option<Box<Node>>) -> u32 {
    match t {
        None => 0,
        Some(n) => 1 + depth(&n.left).max(depth(&n.right)),
    }
}

fn sum_inorder(t: &Option<Box<Node>>, acc: &mut u64) {
    if let Some(n) = t {
        sum_inorder(&n.left, acc);
        *acc = acc.wrapping_mul(31).wrapping_add(n.key as u64 ^ n.val);
        sum_inorder(&n.right, acc);
    }
}

#[inline(never)]
fn kernel(keys: &[u32], probes: &[u32]) -> (u32, u64, u32, u64) {
    let mut root: Option<Box<Node>> = None;
    let mut inserted = 0u32;
    for (i, &k) in keys.iter().enumerate() {
        if insert(&mut root, k, i as u64) {
            inserted += 1;
        }
    }
    let mut hits = 0u64;
    for &p in probes {
        if let Some(v) = lookup(&root, p) {
            hits = hits.wrapping_add(v + 1);
        }
    }
    let mut acc = 0u64;
    sum_inorder(&root, &mut acc);
    (inserted, hits, depth(&root), acc)
}

fn main() {
    let mut rng = Rng(black_box(0x3141_5926_5358_9793));
    let keys: Vec<u32> = (0..6000).map(|_| (rng.next() % 20000) as u32).collect();
    let probes: Vec<u32> = (0..12000).map(|_| (rng.next() % 20000) as u32).collect();
    let (inserted, hits, d, acc) = kernel(black_box(&keys), black_box(&probes));
    println!("inserted: {} depth: {}", inserted, d);
    println!("hits: {} inorder: {:016x}", hits, acc);
}
