// HashMap: entry API, counting, removal, iteration printed in sorted order.
use std::collections::HashMap;

fn main() {
    let text = "the quick brown fox jumps over the lazy dog the fox barks \
                and the dog sleeps while a quick bird sings over the river";
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for w in text.split_whitespace() {
        *counts.entry(w).or_insert(0) += 1;
    }
    let mut pairs: Vec<(&str, usize)> = counts.iter().map(|(k, v)| (*k, *v)).collect();
    pairs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    for (w, c) in &pairs {
        println!("{w:>8} {c}");
    }
    println!("distinct {} total {}", counts.len(), counts.values().sum::<usize>());
    println!("get the {:?}, get cat {:?}", counts.get("the"), counts.get("cat"));
    println!("remove fox {:?} again {:?}", counts.remove("fox"), counts.remove("fox"));
    counts.retain(|_, v| *v > 1);
    let mut keys: Vec<_> = counts.keys().copied().collect();
    keys.sort_unstable();
    println!("kept {:?}", keys);

    let mut squares: HashMap<u64, u64> = (0..500).map(|i| (i, i * i)).collect();
    for i in (0..500).step_by(3) {
        squares.remove(&i);
    }
    let sum: u64 = squares.values().sum();
    println!("squares {} sum {}", squares.len(), sum);
    let e = squares.entry(1).or_default();
    *e += 1;
    squares.entry(3).and_modify(|v| *v = 0).or_insert(33);
    let mut small: Vec<_> = squares.iter().filter(|(k, _)| **k < 10).collect();
    small.sort();
    println!("{:?}", small);
    let mut by_len: HashMap<usize, Vec<String>> = HashMap::new();
    for w in text.split(' ') {
        by_len.entry(w.len()).or_default().push(w.to_uppercase());
    }
    let mut lens: Vec<_> = by_len.into_iter().collect();
    lens.sort();
    for (len, mut words) in lens {
        words.sort();
        words.dedup();
        println!("{len}: {}", words.join(","));
    }
}
