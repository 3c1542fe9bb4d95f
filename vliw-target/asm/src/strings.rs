//! String literals of `.ascii`/`.asciz`/`.string`: C escapes to bytes, and back.

/// Interprets the contents of a `"..."` literal (without the quotes). Escapes:
/// `\n \t \r \\ \" \' \0 \a \b \f \v`, `\xNN` (one or two hex digits) and `\NNN`
/// (one to three octal digits). Other characters are copied as UTF-8.
pub fn unescape(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let Some(e) = chars.next() else {
            return Err("string ends with a lone `\\`".to_string());
        };
        match e {
            'n' => out.push(b'\n'),
            't' => out.push(b'\t'),
            'r' => out.push(b'\r'),
            'a' => out.push(7),
            'b' => out.push(8),
            'f' => out.push(12),
            'v' => out.push(11),
            '\\' => out.push(b'\\'),
            '"' => out.push(b'"'),
            '\'' => out.push(b'\''),
            'x' => {
                let mut value = 0u32;
                let mut digits = 0;
                while digits < 2 {
                    match chars.peek().and_then(|c| c.to_digit(16)) {
                        Some(d) => {
                            value = value * 16 + d;
                            digits += 1;
                            chars.next();
                        }
                        None => break,
                    }
                }
                if digits == 0 {
                    return Err("`\\x` needs hex digits".to_string());
                }
                out.push(value as u8);
            }
            '0'..='7' => {
                let mut value = e.to_digit(8).expect("octal digit");
                let mut digits = 1;
                while digits < 3 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            digits += 1;
                            chars.next();
                        }
                        None => break,
                    }
                }
                if value > 0xff {
                    return Err(format!("octal escape `\\{value:o}` is larger than a byte"));
                }
                out.push(value as u8);
            }
            other => return Err(format!("unknown escape `\\{other}`")),
        }
    }
    Ok(out)
}

/// Writes bytes as the contents of a string literal that [`unescape`] reads back.
pub fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(
            unescape(r#"a\n\t\\\"\0\x41\101\x7"#).unwrap(),
            b"a\n\t\\\"\0AA\x07"
        );
        assert_eq!(unescape("é").unwrap(), "é".as_bytes());
        assert!(unescape(r"\q").is_err());
        assert!(unescape(r"\x").is_err());
        assert!(unescape("\\").is_err());
        assert!(unescape(r"\777").is_err());
    }

    #[test]
    fn escape_round_trips_every_byte() {
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(unescape(&escape(&all)).unwrap(), all);
        // `\x4` followed by a hex digit must not swallow it.
        assert_eq!(unescape(&escape(b"\x04a")).unwrap(), b"\x04a");
    }
}
