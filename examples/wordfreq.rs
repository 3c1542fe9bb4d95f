// stdin: the quick brown fox jumps over the lazy dog\nthe dog sleeps; the fox runs\n
//! Reads text on stdin and prints its most frequent words:
//!
//!     echo "the cat and the hat" | ./y.sh run --release examples/wordfreq.rs

use std::collections::HashMap;
use std::io::Read;

fn main() {
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        eprintln!("cannot read stdin: {e}");
        std::process::exit(1);
    }
    let mut counts: HashMap<String, usize> = HashMap::new();
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        *counts.entry(word.to_lowercase()).or_default() += 1;
    }
    let mut by_count: Vec<(String, usize)> = counts.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    println!("{} distinct words", by_count.len());
    for (word, n) in by_count.iter().take(5) {
        println!("{n:4} {word}");
    }
}
