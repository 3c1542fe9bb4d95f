//! Expectation headers of the assembly test programs under `tests/asm/` (and, with
//! `//` instead of `#` through `parse_with`, of the Rust programs of the no_sysroot
//! suite, which take only `expect-exit` and `expect-stderr-contains`).
//!
//! Leading comment lines of the form `# key: value` (blank lines may separate them;
//! the first line that is not a `#` comment ends the header block):
//!
//! | key | meaning |
//! |---|---|
//! | `expect-exit: N` | the program's exit code (default 0) |
//! | `expect-stdout: TEXT` | repeatable; the lines joined with `\n` are exactly the stdout; absent means empty stdout |
//! | `expect-stderr-contains: TEXT` | repeatable; each must occur in stderr |
//! | `args: A B C` | the program's arguments, split at whitespace |
//! | `stdin: TEXT` | repeatable like `expect-stdout`; the program's stdin (default empty) |
//! | `stdin-file: NAME` | the program's stdin is this file, next to the program (not with `stdin`) |
//! | `env: KEY=VALUE` | repeatable; the program's environment, which has nothing else |
//! | `run-flags: FLAGS` | extra `vliw-run` flags, e.g. `--strict --max-cycles 1000` |
//! | `link-flags: FLAGS` | extra `vliw-ld` flags, e.g. `--gc-sections` |
//! | `extra-sources: A.s B.s` | more files to assemble and link, relative to this one |
//! | `compile-flags: FLAGS` | Rust programs only (`//`): rustc flags given to both compilers, e.g. `-Cpanic=abort` |
//! | `scratch-dir: yes` | Rust programs only (`//`): each run starts in a new empty directory, mapped at `/` for the simulator (`vliw-run --dir`) |
//! | `expect-asm-error: TEXT` | assembling this file must fail with TEXT in stderr |
//! | `expect-link-error: TEXT` | linking must fail with TEXT in stderr |
//!
//! Exactly one space after the colon is dropped, the rest of the line is the value.
//! TEXT values decode the escapes `\n \t \r \0 \\ \xHH`. A key that looks like a header
//! (lowercase words joined by `-`) but is unknown is an error, so that a misspelt
//! expectation cannot silently turn into a comment and a test that cannot fail.

#[derive(Debug, Default, PartialEq)]
pub struct Headers {
    pub expect_exit: Option<i32>,
    pub expect_stdout: Option<Vec<u8>>,
    pub expect_stderr_contains: Vec<Vec<u8>>,
    pub args: Vec<String>,
    pub stdin: Option<Vec<u8>>,
    pub stdin_file: Option<String>,
    pub env: Vec<(String, String)>,
    pub run_flags: Vec<String>,
    pub link_flags: Vec<String>,
    pub extra_sources: Vec<String>,
    pub compile_flags: Vec<String>,
    pub scratch_dir: bool,
    pub expect_asm_error: Option<Vec<u8>>,
    pub expect_link_error: Option<Vec<u8>>,
}

impl Headers {
    pub fn exit_code(&self) -> i32 {
        self.expect_exit.unwrap_or(0)
    }

    /// Whether the program is expected to build and run (no build error expected).
    pub fn expects_run(&self) -> bool {
        self.expect_asm_error.is_none() && self.expect_link_error.is_none()
    }
}

pub fn parse(source: &str) -> Result<Headers, String> {
    parse_with(source, "#")
}

/// The same headers in the comments of another language: lines starting with
/// `marker` (`//` for the Rust programs of the no_sysroot suite) instead of `#`.
pub fn parse_with(source: &str, marker: &str) -> Result<Headers, String> {
    let mut h = Headers::default();
    for (index, line) in source.lines().enumerate() {
        let at = |e: String| format!("line {}: {e}", index + 1);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let trimmed = line.trim_start();
        if trimmed.is_empty() {
            continue;
        }
        let Some(comment) = trimmed.strip_prefix(marker) else {
            break;
        };
        let Some((key, value)) = split_header(comment) else {
            continue;
        };
        match key {
            "expect-exit" => {
                let code: i32 = value
                    .trim()
                    .parse()
                    .ok()
                    .filter(|c| (0..=255).contains(c))
                    .ok_or_else(|| {
                        at(format!(
                            "expect-exit: `{value}` is not an exit code 0..=255"
                        ))
                    })?;
                set_once(&mut h.expect_exit, code, key).map_err(at)?;
            }
            "expect-stdout" => append_line(&mut h.expect_stdout, decode(value).map_err(at)?),
            "stdin" => append_line(&mut h.stdin, decode(value).map_err(at)?),
            "expect-stderr-contains" => {
                let text = decode(value).map_err(at)?;
                if text.is_empty() {
                    return Err(at(
                        "expect-stderr-contains: empty text always matches".into()
                    ));
                }
                h.expect_stderr_contains.push(text);
            }
            "stdin-file" => {
                let name = value.trim();
                if name.is_empty() || name.contains('/') {
                    return Err(at(format!(
                        "stdin-file: `{name}` is not a file name next to the program"
                    )));
                }
                set_once(&mut h.stdin_file, name.to_string(), key).map_err(at)?;
            }
            "env" => {
                let (k, v) = value
                    .split_once('=')
                    .filter(|(k, _)| !k.is_empty() && !k.contains(char::is_whitespace))
                    .ok_or_else(|| at(format!("env: `{value}` is not KEY=VALUE")))?;
                h.env.push((k.to_string(), v.to_string()));
            }
            "args" => h.args.extend(words(value)),
            "run-flags" => h.run_flags.extend(words(value)),
            "link-flags" => h.link_flags.extend(words(value)),
            "extra-sources" => h.extra_sources.extend(words(value)),
            "compile-flags" if marker == "//" => h.compile_flags.extend(words(value)),
            "compile-flags" => {
                return Err(at(
                    "compile-flags: an assembly program is not compiled".into()
                ));
            }
            "scratch-dir" if marker == "//" && value.trim() == "yes" => h.scratch_dir = true,
            "scratch-dir" => {
                return Err(at(
                    "scratch-dir: `yes` in a Rust program (a new directory per run)".into(),
                ));
            }
            "expect-asm-error" | "expect-link-error" => {
                let text = decode(value).map_err(at)?;
                if text.is_empty() {
                    return Err(at(format!("{key}: give the expected message")));
                }
                let slot = if key == "expect-asm-error" {
                    &mut h.expect_asm_error
                } else {
                    &mut h.expect_link_error
                };
                set_once(slot, text, key).map_err(at)?;
            }
            _ if key.contains('-') => return Err(at(format!("unknown header `{key}:`"))),
            // A one-word key is an ordinary comment ("# Note: ...").
            _ => {}
        }
    }
    check_consistency(&h)?;
    Ok(h)
}

/// `comment` is a line after its `#`: returns the key and value of `key: value`.
fn split_header(comment: &str) -> Option<(&str, &str)> {
    let (key, value) = comment.trim_start().split_once(':')?;
    let is_key = !key.is_empty()
        && key.starts_with(|c: char| c.is_ascii_lowercase())
        && key.chars().all(|c| c.is_ascii_lowercase() || c == '-');
    if !is_key {
        return None;
    }
    Some((key, value.strip_prefix(' ').unwrap_or(value)))
}

fn set_once<T>(slot: &mut Option<T>, value: T, key: &str) -> Result<(), String> {
    if slot.is_some() {
        return Err(format!("{key}: given twice"));
    }
    *slot = Some(value);
    Ok(())
}

fn append_line(slot: &mut Option<Vec<u8>>, line: Vec<u8>) {
    match slot {
        None => *slot = Some(line),
        Some(text) => {
            text.push(b'\n');
            text.extend(line);
        }
    }
}

fn words(value: &str) -> impl Iterator<Item = String> + '_ {
    value.split_whitespace().map(str::to_string)
}

/// Expectations that cannot hold together are a broken test, not a failing program.
fn check_consistency(h: &Headers) -> Result<(), String> {
    if h.expect_asm_error.is_some() && h.expect_link_error.is_some() {
        return Err("expect-asm-error and expect-link-error together".into());
    }
    if h.expect_asm_error.is_some() && (!h.extra_sources.is_empty() || !h.link_flags.is_empty()) {
        return Err("expect-asm-error: the program is never linked, extra-sources/link-flags have no effect".into());
    }
    if h.stdin.is_some() && h.stdin_file.is_some() {
        return Err("stdin and stdin-file together".into());
    }
    let runs = h.expect_exit.is_some()
        || h.expect_stdout.is_some()
        || !h.expect_stderr_contains.is_empty()
        || !h.args.is_empty()
        || h.stdin.is_some()
        || h.stdin_file.is_some()
        || !h.env.is_empty()
        || !h.run_flags.is_empty();
    if !h.expects_run() && runs {
        return Err(
            "a program expected to fail to build is never run: run expectations have no effect"
                .into(),
        );
    }
    Ok(())
}

/// Decodes the escapes `\n \t \r \0 \\ \xHH`; any other backslash is an error.
pub fn decode(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len());
    let mut bytes = text.bytes();
    while let Some(b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match bytes.next() {
            Some(b'n') => out.push(b'\n'),
            Some(b't') => out.push(b'\t'),
            Some(b'r') => out.push(b'\r'),
            Some(b'0') => out.push(0),
            Some(b'\\') => out.push(b'\\'),
            Some(b'x') => {
                let hex = [bytes.next(), bytes.next()];
                let value = match hex {
                    [Some(h), Some(l)] => std::str::from_utf8(&[h, l])
                        .ok()
                        .and_then(|s| u8::from_str_radix(s, 16).ok()),
                    _ => None,
                };
                out.push(value.ok_or_else(|| {
                    format!("bad escape `\\x` in `{text}`: expected two hex digits")
                })?);
            }
            Some(other) => return Err(format!("unknown escape `\\{}` in `{text}`", other as char)),
            None => return Err(format!("`{text}` ends in a lone backslash (write `\\\\`)")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_flags_only_for_rust_programs() {
        let h = parse_with(
            "// compile-flags: -Cpanic=abort -Zfoo\nfn main() {}\n",
            "//",
        )
        .unwrap();
        assert_eq!(h.compile_flags, ["-Cpanic=abort", "-Zfoo"]);
        let e = parse("# compile-flags: -Cpanic=abort\n").unwrap_err();
        assert!(e.contains("not compiled"), "{e}");
    }

    #[test]
    fn defaults_without_headers() {
        let h = parse("    .text\n_start:\n").unwrap();
        assert_eq!(h, Headers::default());
        assert_eq!(h.exit_code(), 0);
        assert!(h.expects_run());
    }

    #[test]
    fn reads_all_run_headers() {
        let src = "# A test of everything.\n# Note: one-word keys are comments\n\
                   # expect-exit: 3\n# expect-stdout: hello\n# expect-stdout: \\tworld\\n\n\n\
                   # expect-stderr-contains: warn\n# args: a  b\n# args: c\n# stdin: x\\\\y\n\
                   # run-flags: --strict --max-cycles 1000\n# extra-sources: lib.s\n\
                   # link-flags: --gc-sections\n    .text\n# expect-exit: 4\n";
        let h = parse(src).unwrap();
        assert_eq!(h.expect_exit, Some(3));
        assert_eq!(h.expect_stdout.as_deref(), Some(&b"hello\n\tworld\n"[..]));
        assert_eq!(h.expect_stderr_contains, [b"warn".to_vec()]);
        assert_eq!(h.args, ["a", "b", "c"]);
        assert_eq!(h.stdin.as_deref(), Some(&b"x\\y"[..]));
        assert_eq!(h.run_flags, ["--strict", "--max-cycles", "1000"]);
        assert_eq!(h.link_flags, ["--gc-sections"]);
        assert_eq!(h.extra_sources, ["lib.s"]);
    }

    #[test]
    fn keeps_spaces_after_the_first() {
        let h = parse("# expect-stdout:   two spaces \n# expect-stdout:\n").unwrap();
        assert_eq!(h.expect_stdout.as_deref(), Some(&b"  two spaces \n"[..]));
    }

    #[test]
    fn rejects_misspelt_and_contradictory_headers() {
        assert!(
            parse("# expect-stdot: x\n")
                .unwrap_err()
                .contains("unknown header")
        );
        assert!(parse("# expect-exit: 1\n# expect-exit: 2\n").is_err());
        assert!(parse("# expect-exit: 256\n").is_err());
        assert!(parse("# expect-exit: x\n").is_err());
        assert!(parse("# expect-asm-error: bad\n# expect-link-error: bad\n").is_err());
        assert!(parse("# expect-link-error: undefined\n# expect-stdout: x\n").is_err());
        assert!(parse("# expect-asm-error: bad\n# extra-sources: a.s\n").is_err());
        assert!(parse("# expect-asm-error:\n").is_err());
        assert!(parse("# expect-stderr-contains:\n").is_err());
        assert!(parse("# expect-stdout: \\q\n").is_err());
    }

    #[test]
    fn error_expectations() {
        let h =
            parse("# expect-link-error: undefined symbol `foo`\n# link-flags: -e main\n").unwrap();
        assert_eq!(
            h.expect_link_error.as_deref(),
            Some(&b"undefined symbol `foo`"[..])
        );
        assert!(!h.expects_run());
    }

    #[test]
    fn reads_headers_in_rust_comments() {
        let h = parse_with(
            "// A program.\n// expect-exit: 101\n// expect-stderr-contains: overflow\n#![no_core]\n// expect-exit: 3\n",
            "//",
        )
        .unwrap();
        assert_eq!(h.expect_exit, Some(101));
        assert_eq!(h.expect_stderr_contains, [b"overflow".to_vec()]);
        assert!(parse_with("// expect-exot: 1\n", "//").is_err());
    }

    #[test]
    fn reads_stdin_file_and_env() {
        let h = parse_with(
            "// stdin-file: in.txt\n// env: A=1\n// env: B=x=y z\n// env: C=\n",
            "//",
        )
        .unwrap();
        assert_eq!(h.stdin_file.as_deref(), Some("in.txt"));
        let env: Vec<(&str, &str)> = h.env.iter().map(|(k, v)| (&k[..], &v[..])).collect();
        assert_eq!(env, [("A", "1"), ("B", "x=y z"), ("C", "")]);
        assert!(parse("# env: NOVALUE\n").unwrap_err().contains("KEY=VALUE"));
        assert!(parse("# env: =1\n").is_err());
        assert!(parse("# stdin-file: ../x\n").is_err());
        assert!(parse("# stdin-file: a\n# stdin-file: b\n").is_err());
        assert!(parse("# stdin: x\n# stdin-file: a\n").is_err());
    }

    #[test]
    fn decodes_escapes() {
        assert_eq!(decode(r"a\nb\tc\\d\x41\0").unwrap(), b"a\nb\tc\\dA\0");
        assert!(decode(r"\x4").is_err());
        assert!(decode(r"end\").is_err());
    }
}
