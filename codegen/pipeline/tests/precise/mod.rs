//! What the precise-output filetests share (the machine IR's, `mir_filetests.rs`, and
//! the RVSDG's, `rvsdg_filetests.rs`): a file is its input, then a `; expect:` line and
//! the expected output as comment lines; `VLIW_BLESS=1` rewrites the expectation.

use std::path::{Path, PathBuf};

pub const EXPECT: &str = "; expect:";

/// The file's input (the text before the expectation, with its last newline) and the
/// expectation without its `; ` prefixes and the blank lines that start it.
pub fn split(text: &str) -> (&str, String) {
    let (input, expected) = match text.find(&format!("\n{EXPECT}")) {
        Some(at) => (&text[..at + 1], &text[at + 1 + EXPECT.len()..]),
        None => (text, ""),
    };
    let expected = expected
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .map(|l| {
            l.strip_prefix("; ")
                .unwrap_or(l.strip_prefix(';').unwrap_or(l))
        })
        .collect::<Vec<_>>()
        .join("\n");
    (input, expected.trim_end().to_string())
}

/// `input` followed by the expectation `output`, each line commented.
pub fn blessed(input: &str, output: &str) -> String {
    let mut s = input.trim_end().to_string();
    s.push_str("\n\n");
    s.push_str(EXPECT);
    s.push('\n');
    for line in output.lines() {
        if line.is_empty() {
            s.push_str(";\n");
        } else {
            s.push_str("; ");
            s.push_str(line);
            s.push('\n');
        }
    }
    s
}

/// The files under `dir` (recursively) whose extension is one of `exts`, sorted.
pub fn collect(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, exts, out);
            } else if p.extension().is_some_and(|x| exts.iter().any(|e| x == *e)) {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, exts, &mut out);
    out.sort();
    out
}

/// The line (from 1) where `got` and `expected` first differ.
pub fn first_difference(got: &str, expected: &str) -> usize {
    got.lines()
        .zip(expected.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| got.lines().count().min(expected.lines().count()))
        + 1
}
