//! Showing how actual output differs from the expected, in test failure messages.

/// Lines of context shown before the first difference, and lines shown from it on.
const BEFORE: usize = 2;
const FROM: usize = 4;

/// A diff-like excerpt around the first differing line of `expected` and `actual`:
/// common context prefixed with ` `, then expected lines with `-` and actual lines with
/// `+`. Lines are shown quoted and escaped so that whitespace and a missing final
/// newline are visible (the last element `""` after a final newline).
pub fn diff_excerpt(expected: &[u8], actual: &[u8]) -> Vec<String> {
    let e: Vec<&[u8]> = expected.split(|&b| b == b'\n').collect();
    let a: Vec<&[u8]> = actual.split(|&b| b == b'\n').collect();
    let first = e
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(e.len().min(a.len()));
    let mut out = vec![format!("first difference at line {}:", first + 1)];
    for line in &e[first.saturating_sub(BEFORE)..first] {
        out.push(format!("  {}", quote(line)));
    }
    for (sign, lines) in [('-', &e), ('+', &a)] {
        let end = lines.len().min(first + FROM);
        for line in &lines[first.min(lines.len())..end] {
            out.push(format!("{sign} {}", quote(line)));
        }
        if lines.len() > end {
            out.push(format!("{sign} ... {} more lines", lines.len() - end));
        }
    }
    out
}

/// The last `n` lines of a tool's stderr, for failure messages.
pub fn tail(text: &[u8], n: usize) -> Vec<String> {
    let text = String::from_utf8_lossy(text);
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let skipped = lines.len().saturating_sub(n);
    let mut out = Vec::new();
    if skipped > 0 {
        out.push(format!("... {skipped} lines before"));
    }
    out.extend(lines[skipped..].iter().map(|l| l.to_string()));
    out
}

pub fn quote(bytes: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_the_first_difference_with_context() {
        let d = diff_excerpt(b"a\nb\nc\nd\n", b"a\nb\nX\nd\n");
        assert_eq!(d[0], "first difference at line 3:");
        assert_eq!(
            &d[1..],
            [
                "  \"a\"", "  \"b\"", "- \"c\"", "- \"d\"", "- \"\"", "+ \"X\"", "+ \"d\"",
                "+ \"\""
            ]
        );
    }

    #[test]
    fn shows_a_missing_final_newline() {
        let d = diff_excerpt(b"hi\n", b"hi");
        assert_eq!(d, ["first difference at line 2:", "  \"hi\"", "- \"\""]);
    }

    #[test]
    fn shows_unexpected_output() {
        let d = diff_excerpt(b"", b"oops\n");
        assert_eq!(
            d,
            [
                "first difference at line 1:",
                "- \"\"",
                "+ \"oops\"",
                "+ \"\""
            ]
        );
    }

    #[test]
    fn tails() {
        assert_eq!(tail(b"1\n2\n3\n", 2), ["... 1 lines before", "2", "3"]);
        assert!(tail(b"", 2).is_empty());
    }
}
