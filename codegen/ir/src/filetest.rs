//! The directives of IR filetests (`tests/ir/**/*.ir`) that say what running a
//! function must give: `; run: @f(args) == results`, `; run: @f(args) == (r1, r2)`,
//! `; run: @f(args) trap: TEXT`, `; run: @f(args)`, and `; stdout: "TEXT"`. Shared
//! by the IR's own filetest runner (on the interpreter) and the back end's (on the
//! simulator), so both read the same files the same way.

/// One `; run:` line.
#[derive(Clone, Debug)]
pub struct Run {
    pub line: usize,
    pub func: String,
    pub args: Vec<String>,
    pub expect: Expect,
}

/// What a run must give.
#[derive(Clone, Debug)]
pub enum Expect {
    Nothing,
    Values(Vec<String>),
    Trap(String),
}

/// Split at top-level commas (not inside parentheses).
pub fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

pub fn unescape(s: &str) -> Result<Vec<u8>, String> {
    let s = s.trim();
    let inner = s
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or("expected a quoted string")?;
    let b = inner.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b'n' => out.push(b'\n'),
                b't' => out.push(b'\t'),
                b'0' => out.push(0),
                b'\\' => out.push(b'\\'),
                b'"' => out.push(b'"'),
                b'x' if i + 3 < b.len() => {
                    let h = std::str::from_utf8(&b[i + 2..i + 4]).map_err(|e| e.to_string())?;
                    out.push(u8::from_str_radix(h, 16).map_err(|e| e.to_string())?);
                    i += 2;
                }
                _ => return Err("bad escape".into()),
            }
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

pub fn parse_run(line: usize, s: &str) -> Result<Run, String> {
    let s = s.trim();
    let s = s.strip_prefix('@').ok_or("run: expected @function(...)")?;
    let open = s.find('(').ok_or("run: expected '('")?;
    let func = s[..open].to_string();
    let mut depth = 0;
    let mut close = None;
    for (i, c) in s[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close.ok_or("run: unbalanced parentheses")?;
    let args = split_top(&s[open + 1..close]);
    let rest = s[close + 1..].trim();
    let expect = if rest.is_empty() {
        Expect::Nothing
    } else if let Some(e) = rest.strip_prefix("==") {
        let e = e.trim();
        if let Some(inner) = e.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
            Expect::Values(split_top(inner))
        } else {
            Expect::Values(vec![e.to_string()])
        }
    } else if let Some(t) = rest.strip_prefix("trap:") {
        Expect::Trap(t.trim().to_string())
    } else {
        return Err(format!("run: cannot read '{rest}'"));
    };
    Ok(Run {
        line,
        func,
        args,
        expect,
    })
}

/// The run lines and the `stdout` expectation of a file.
pub fn directives(text: &str) -> Result<(Vec<Run>, Option<Vec<u8>>), String> {
    let mut runs = Vec::new();
    let mut stdout = None;
    for (i, l) in text.lines().enumerate() {
        let l = l.trim();
        if let Some(r) = l.strip_prefix("; run:") {
            runs.push(parse_run(i + 1, r).map_err(|e| format!("line {}: {e}", i + 1))?);
        } else if let Some(r) = l.strip_prefix("; stdout:") {
            stdout = Some(unescape(r).map_err(|e| format!("line {}: {e}", i + 1))?);
        }
    }
    Ok((runs, stdout))
}
