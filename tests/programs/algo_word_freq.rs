// Word frequency count over a text given on stdin: normalisation (lowercase, strip
// punctuation, keep apostrophes inside words), a HashMap count, top-N by count then
// alphabetically, length histogram, bigrams, and per-letter frequencies.
// stdin-file: algo_word_freq.txt
use std::collections::{BTreeMap, HashMap};
use std::io::Read;

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

fn main() {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).unwrap();
    let ws = words(&text);
    println!("{} lines, {} words, {} chars", text.lines().count(), ws.len(), text.chars().count());
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for w in &ws {
        *counts.entry(w.as_str()).or_default() += 1;
    }
    let mut top: Vec<(&str, usize)> = counts.iter().map(|(w, c)| (*w, *c)).collect();
    top.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    println!("{} distinct; top 12:", top.len());
    for (w, c) in top.iter().take(12) {
        println!("  {w:<10} {c:>3} {}", "#".repeat(*c));
    }
    let singles: Vec<&str> = {
        let mut v: Vec<&str> = top.iter().filter(|(_, c)| *c == 1).map(|(w, _)| *w).collect();
        v.sort();
        v.into_iter().take(10).collect()
    };
    println!("first hapax legomena {singles:?}");
    let mut by_len: BTreeMap<usize, usize> = BTreeMap::new();
    for w in &ws {
        *by_len.entry(w.chars().count()).or_default() += 1;
    }
    println!("length histogram {by_len:?}");
    let mut bigrams: HashMap<(&str, &str), usize> = HashMap::new();
    for pair in ws.windows(2) {
        *bigrams.entry((pair[0].as_str(), pair[1].as_str())).or_default() += 1;
    }
    let mut bi: Vec<_> = bigrams.into_iter().filter(|(_, c)| *c > 1).collect();
    bi.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    println!("repeated bigrams {:?}", &bi[..bi.len().min(8)]);
    let mut letters = [0usize; 26];
    for c in text.chars().filter(|c| c.is_ascii_alphabetic()) {
        letters[(c.to_ascii_lowercase() as u8 - b'a') as usize] += 1;
    }
    let total: usize = letters.iter().sum();
    let mut lf: Vec<(char, usize)> = letters.iter().enumerate().map(|(i, &n)| ((b'a' + i as u8) as char, n)).collect();
    lf.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let line: Vec<String> = lf.iter().take(8).map(|(c, n)| format!("{c}:{:.1}%", 100.0 * *n as f64 / total as f64)).collect();
    println!("letters {}", line.join(" "));
    let longest = ws.iter().max_by(|a, b| a.len().cmp(&b.len()).then(b.cmp(a))).unwrap();
    println!("longest word {longest:?}");
}
