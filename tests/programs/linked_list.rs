// LinkedList: push/pop at both ends, append, split_off, iteration, contains.
use std::collections::LinkedList;

fn main() {
    let mut l: LinkedList<String> = LinkedList::new();
    l.push_back("b".into());
    l.push_back("c".into());
    l.push_front("a".into());
    println!("{:?} len {}", l, l.len());
    let mut m: LinkedList<String> = ["x", "y", "z"].iter().map(|s| s.to_string()).collect();
    l.append(&mut m);
    println!("after append {:?} m empty {}", l, m.is_empty());
    let tail = l.split_off(4);
    println!("head {:?} tail {:?}", l, tail);
    println!("contains c {} q {}", l.contains(&"c".to_string()), l.contains(&"q".to_string()));
    for s in l.iter_mut() {
        s.push('!');
    }
    println!("{:?}", l);
    println!("front {:?} back {:?}", l.front(), l.back());
    println!("pop {:?} {:?}", l.pop_front(), l.pop_back());
    let nums: LinkedList<i32> = (1..=10).collect();
    let s: i32 = nums.iter().sum();
    let rev: Vec<_> = nums.iter().rev().collect();
    println!("sum {s} rev {:?}", rev);
}
