// HashSet: set algebra, insert/contains results, sorted printing.
use std::collections::HashSet;

fn sorted<T: Ord + Clone>(s: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = s.into_iter().collect();
    v.sort();
    v
}

fn main() {
    let a: HashSet<u32> = (1..30).filter(|x| x % 2 == 0).collect();
    let b: HashSet<u32> = (1..30).filter(|x| x % 3 == 0).collect();
    println!("a {:?}", sorted(a.iter().copied()));
    println!("b {:?}", sorted(b.iter().copied()));
    println!("union {:?}", sorted(a.union(&b).copied()));
    println!("intersection {:?}", sorted(a.intersection(&b).copied()));
    println!("difference {:?}", sorted(a.difference(&b).copied()));
    println!("symmetric {:?}", sorted(a.symmetric_difference(&b).copied()));
    let c: HashSet<u32> = [6, 12].into_iter().collect();
    println!("c subset of a {} of b {} disjoint {}", c.is_subset(&a), c.is_subset(&b), a.is_disjoint(&c));
    let mut s = HashSet::new();
    println!("insert x {} x again {} y {}", s.insert("x"), s.insert("x"), s.insert("y"));
    println!("contains x {} z {} remove y {} len {}", s.contains("x"), s.contains("z"), s.remove("y"), s.len());
    let words = "to be or not to be that is the question";
    let uniq: HashSet<&str> = words.split(' ').collect();
    println!("{} unique: {:?}", uniq.len(), sorted(uniq));
    let mut seen = HashSet::new();
    let mut x: u64 = 7;
    let mut steps = 0;
    while seen.insert(x) {
        x = (x * x + 1) % 1009;
        steps += 1;
    }
    println!("cycle found after {steps} steps at {x}");
    let chars: HashSet<char> = "mississippi".chars().collect();
    println!("{:?}", sorted(chars));
}
