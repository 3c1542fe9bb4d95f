// BTreeMap and BTreeSet: ordered iteration, ranges, first/last, split_off, Debug.
use std::collections::{BTreeMap, BTreeSet};

fn main() {
    let mut m = BTreeMap::new();
    for (i, w) in ["pear", "apple", "fig", "kiwi", "banana", "cherry", "date"].iter().enumerate() {
        m.insert(*w, i * 10);
    }
    println!("{:?}", m);
    println!("first {:?} last {:?}", m.first_key_value(), m.last_key_value());
    let r: Vec<_> = m.range("b".."f").collect();
    println!("range b..f {:?}", r);
    if let Some(v) = m.get_mut("fig") {
        *v += 1;
    }
    m.entry("grape").or_insert(99);
    let high = m.split_off("g");
    println!("low {:?}\nhigh {:?}", m, high);
    println!("pop_first {:?} pop_last {:?}", m.pop_first(), m.pop_last());
    let mut inv: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    for n in 1..=60i64 {
        let digits = n.to_string().chars().map(|c| c as i64 - '0' as i64).sum::<i64>();
        inv.entry(digits).or_default().push(n);
    }
    for (k, v) in inv.iter().rev().take(4) {
        println!("digit sum {k}: {v:?}");
    }
    let set: BTreeSet<i32> = [5, -3, 9, 0, 5, 12, -8, 9].into_iter().collect();
    println!("{:?} len {}", set, set.len());
    println!("range ..=5 {:?}", set.range(..=5).collect::<Vec<_>>());
    println!("range 1.. {:?}", set.range(1..).rev().collect::<Vec<_>>());
    let other: BTreeSet<i32> = (-5..6).collect();
    println!("inter {:?}", set.intersection(&other).collect::<Vec<_>>());
    println!("union {:?}", set.union(&other).collect::<Vec<_>>());
    println!("diff {:?}", set.difference(&other).collect::<Vec<_>>());
    let mut big = BTreeSet::new();
    for i in 0..1000u32 {
        big.insert(i.wrapping_mul(7919) % 2003);
    }
    println!("big {} first {:?} last {:?}", big.len(), big.first(), big.last());
    big.retain(|x| x % 100 == 0);
    println!("{:?}", big);
}
