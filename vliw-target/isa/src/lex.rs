//! The tokens of assembly text, shared by the operation parser (`text.rs`) and the
//! assembler's directives and expressions (`vliw-asm`), so both read the same
//! numbers, names and strings.

use std::fmt;

/// Whether `c` can start a symbol or mnemonic name.
pub fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '.' || c == '$'
}

/// Whether `c` can continue a symbol or mnemonic name.
pub fn is_ident_continue(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$'
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Num(i64),
    Ident(String),
    /// A `"..."` string, contents unprocessed (escapes are interpreted by the user:
    /// strings for `.ascii`, or a quoted symbol name).
    Quoted(String),
    Punct(char),
    /// `<<` or `>>`.
    Shift(char),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Num(n) => write!(f, "`{n}`"),
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Quoted(s) => write!(f, "`\"{s}\"`"),
            Tok::Punct(c) => write!(f, "`{c}`"),
            Tok::Shift(c) => write!(f, "`{c}{c}`"),
        }
    }
}

/// A token and the column (from 1) where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub col: usize,
}

/// Tokenizes directive arguments that start at column `col`.
pub fn tokenize(text: &str, col: usize) -> Result<Vec<Token>, (usize, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let at = col + i;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let literal: String = chars[start..i].iter().collect();
            let value = crate::text::parse_number(&literal)
                .ok_or((at, format!("bad number `{literal}`")))?;
            out.push(Token {
                tok: Tok::Num(value),
                col: at,
            });
        } else if is_ident_start(c) {
            let start = i;
            while i < chars.len() && is_ident_continue(chars[i]) {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Ident(chars[start..i].iter().collect()),
                col: at,
            });
        } else if c == '"' {
            let start = i + 1;
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            if i >= chars.len() {
                return Err((at, "unterminated string".to_string()));
            }
            out.push(Token {
                tok: Tok::Quoted(chars[start..i].iter().collect()),
                col: at,
            });
            i += 1;
        } else if (c == '<' || c == '>') && chars.get(i + 1) == Some(&c) {
            out.push(Token {
                tok: Tok::Shift(c),
                col: at,
            });
            i += 2;
        } else if "+-*/%()~&|^,@=[]!".contains(c) {
            out.push(Token {
                tok: Tok::Punct(c),
                col: at,
            });
            i += 1;
        } else {
            return Err((at, format!("unexpected character `{c}`")));
        }
    }
    Ok(out)
}
