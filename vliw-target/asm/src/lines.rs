//! The lexical structure of a source line: comments, statements separated by `;`,
//! bundle ends `;;`, labels, directives and operations.
//!
//! Everything here is quote-aware: `#`, `//` and `;` inside a `"..."` string (a
//! `.ascii` operand or a quoted symbol name) are characters of the string.

use crate::error::Pos;

/// One statement of a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    /// `name:`
    Label(String),
    /// `.name args`; `args_col` is the column where the arguments start.
    Directive {
        name: String,
        args: String,
        args_col: usize,
    },
    /// An operation, as text for `vliw_isa::parse_inst`.
    Op(String),
    /// `;;`
    EndBundle,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    pub pos: Pos,
    pub kind: StmtKind,
}

pub use vliw_isa::lex::{is_ident_continue, is_ident_start};

/// Splits one line (without its newline) into statements. Lexical errors (an
/// unterminated string) are returned with their position; the line's statements are
/// then dropped, since nothing after the error can be trusted.
pub fn split_line(line: &str, line_no: usize) -> Result<Vec<Stmt>, (Pos, String)> {
    let chars: Vec<char> = line.chars().collect();
    let end = code_end(&chars).map_err(|col| {
        (
            Pos::new(line_no, col + 1),
            "unterminated string".to_string(),
        )
    })?;
    let chars = &chars[..end];
    let mut stmts = Vec::new();
    let mut start = 0;
    let mut i = 0;
    let mut in_quote = false;
    while i < chars.len() {
        let c = chars[i];
        if in_quote {
            if c == '\\' {
                i += 1;
            } else if c == '"' {
                in_quote = false;
            }
            i += 1;
            continue;
        }
        match c {
            '"' => in_quote = true,
            ';' => {
                statement(chars, start, i, line_no, &mut stmts);
                if chars.get(i + 1) == Some(&';') {
                    stmts.push(Stmt {
                        pos: Pos::new(line_no, i + 1),
                        kind: StmtKind::EndBundle,
                    });
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    statement(chars, start, chars.len(), line_no, &mut stmts);
    Ok(stmts)
}

/// Index where the comment starts (or the line's length); `Err(col)` if a string
/// starting at `col` is not closed.
fn code_end(chars: &[char]) -> Result<usize, usize> {
    let mut i = 0;
    let mut quote_start = None;
    while i < chars.len() {
        let c = chars[i];
        if quote_start.is_some() {
            if c == '\\' {
                i += 1;
            } else if c == '"' {
                quote_start = None;
            }
        } else if c == '"' {
            quote_start = Some(i);
        } else if c == '#' || (c == '/' && chars.get(i + 1) == Some(&'/')) {
            return Ok(i);
        }
        i += 1;
    }
    match quote_start {
        Some(col) => Err(col),
        None => Ok(chars.len()),
    }
}

/// Parses `chars[start..end]`: labels, then a directive or an operation.
fn statement(chars: &[char], start: usize, end: usize, line_no: usize, out: &mut Vec<Stmt>) {
    let mut i = skip_space(chars, start, end);
    // Labels: `name:` or `"quoted name":`, any number of them.
    while let Some((name, after)) = symbol_name_at(chars, i, end) {
        let colon = skip_space(chars, after, end);
        if colon < end && chars[colon] == ':' {
            out.push(Stmt {
                pos: Pos::new(line_no, i + 1),
                kind: StmtKind::Label(name),
            });
            i = skip_space(chars, colon + 1, end);
        } else {
            break;
        }
    }
    if i >= end {
        return;
    }
    let text_end = {
        let mut e = end;
        while e > i && chars[e - 1].is_whitespace() {
            e -= 1;
        }
        e
    };
    let pos = Pos::new(line_no, i + 1);
    if chars[i] == '.'
        && chars
            .get(i + 1)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
        && i + 1 < end
    {
        let mut j = i + 1;
        while j < end && is_ident_continue(chars[j]) {
            j += 1;
        }
        let name: String = chars[i..j].iter().collect();
        let args_start = skip_space(chars, j, text_end);
        let args: String = chars[args_start..text_end.max(args_start)].iter().collect();
        out.push(Stmt {
            pos,
            kind: StmtKind::Directive {
                name,
                args,
                args_col: args_start + 1,
            },
        });
    } else {
        out.push(Stmt {
            pos,
            kind: StmtKind::Op(chars[i..text_end].iter().collect()),
        });
    }
}

fn skip_space(chars: &[char], mut i: usize, end: usize) -> usize {
    while i < end && chars[i].is_whitespace() {
        i += 1;
    }
    i
}

/// A symbol name at `i`: an identifier or a `"quoted"` name. Returns it and the index
/// after it.
fn symbol_name_at(chars: &[char], i: usize, end: usize) -> Option<(String, usize)> {
    if i >= end {
        return None;
    }
    if chars[i] == '"' {
        let close = (i + 1..end).find(|&j| chars[j] == '"')?;
        let name: String = chars[i + 1..close].iter().collect();
        return Some((name, close + 1));
    }
    if !is_ident_start(chars[i]) {
        return None;
    }
    let mut j = i;
    while j < end && is_ident_continue(chars[j]) {
        j += 1;
    }
    Some((chars[i..j].iter().collect(), j))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(line: &str) -> Vec<StmtKind> {
        split_line(line, 1)
            .unwrap()
            .into_iter()
            .map(|s| s.kind)
            .collect()
    }

    #[test]
    fn statements_bundles_labels_and_comments() {
        assert_eq!(
            kinds("loop: add r1 = r2, r3 ; (p1) br loop ;; # done"),
            vec![
                StmtKind::Label("loop".into()),
                StmtKind::Op("add r1 = r2, r3".into()),
                StmtKind::Op("(p1) br loop".into()),
                StmtKind::EndBundle,
            ]
        );
        assert_eq!(kinds("  // only a comment"), vec![]);
        assert_eq!(
            kinds("a: b: nop"),
            vec![
                StmtKind::Label("a".into()),
                StmtKind::Label("b".into()),
                StmtKind::Op("nop".into())
            ]
        );
    }

    #[test]
    fn quotes_protect_separators_and_comment_starts() {
        assert_eq!(
            kinds(r#".ascii "a;b#c//d\"e" # comment"#),
            vec![StmtKind::Directive {
                name: ".ascii".into(),
                args: r#""a;b#c//d\"e""#.into(),
                args_col: 8
            }]
        );
        assert_eq!(
            kinds(r#""odd name": nop ;;"#),
            vec![
                StmtKind::Label("odd name".into()),
                StmtKind::Op("nop".into()),
                StmtKind::EndBundle
            ]
        );
        assert!(split_line(r#".ascii "abc"#, 3).is_err());
    }

    #[test]
    fn columns_count_from_one() {
        let stmts = split_line("  nop ;   add r1 = r1, 1", 7).unwrap();
        assert_eq!(stmts[0].pos, Pos::new(7, 3));
        assert_eq!(stmts[1].pos, Pos::new(7, 11));
    }
}
