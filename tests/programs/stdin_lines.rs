// Reads all of stdin line by line and transforms it: numbers each line, reverses words,
// counts characters, sums the numbers found, upper-cases the last line, then a summary.
// stdin: the quick brown fox
// stdin: 12 apples and 30 pears
// stdin:
// stdin:    indented   line with   spaces
// stdin: ünïcödé lïne ✓
// stdin: -5 plus 7.5 is not 2
// stdin: last line without newline
use std::io::{self, BufRead, Read};

fn main() {
    let stdin = io::stdin();
    let mut lines = Vec::new();
    for line in stdin.lock().lines() {
        lines.push(line.expect("stdin is UTF-8"));
    }
    let mut rest = String::new();
    io::stdin().read_to_string(&mut rest).unwrap();
    let mut total: i64 = 0;
    let mut words = 0;
    for (i, line) in lines.iter().enumerate() {
        let rev: Vec<&str> = line.split_whitespace().rev().collect();
        let nums: Vec<i64> = line.split_whitespace().filter_map(|w| w.parse().ok()).collect();
        total += nums.iter().sum::<i64>();
        words += rev.len();
        println!("{:3}: [{:>2} chars, {:>2} bytes] {}", i + 1, line.chars().count(), line.len(), rev.join(" "));
    }
    if let Some(last) = lines.last() {
        println!("last upper: {}", last.to_uppercase());
    }
    println!("lines {} words {} number sum {} leftover {:?}", lines.len(), words, total, rest);
    let longest = lines.iter().max_by_key(|l| l.chars().count()).map(String::as_str);
    println!("longest {longest:?}");
}
