//! Text form: print → parse → print is the identity; parse errors have locations.

use vliw_ir::*;

const EXAMPLE: &str = r#"declare function @write(i64, ptr, i64) -> i64
data @msg: rodata align 1 = "hello\n"
data @table: data align 8 export = { "\x05\0\0\0\0\0\0\0", ptr @msg+2, zero 8 }

function @add(i32, i32) -> i32 export inline {
    ss0 = stack_slot 16, align 8
    fn0 = @write(i64, ptr, i64) -> i64
block0(v0: i32, v1: i32):
    v2 = iadd v0, v1
    v3, v4 = sadd_overflow v0, v1
    brif v4, block1(v2), block2
block1(v5: i32):
    return v5
block2:
    trap 1
}
"#;

#[test]
fn example_round_trips() {
    let m = parse_module(EXAMPLE).unwrap_or_else(|e| panic!("{e}"));
    let printed = m.to_string();
    assert_eq!(printed, EXAMPLE);
}

#[test]
fn example_verifies() {
    let m = parse_module(EXAMPLE).unwrap();
    verify_module(&m).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn parse_errors_have_locations() {
    let cases = [
        (
            "function @f() {\nblock0:\n    v1 = iadd v0\n}\n",
            "3:17: expected ',', found '}'",
        ),
        (
            "function @f() {\nblock0:\n    return\n",
            "3:11: expected '}', found the end of the input",
        ),
        (
            "function @f() -> i32 {\nblock0:\n    v0 = iconst.i32 1\n    v0 = iconst.i32 2\n    return v0\n}\n",
            "4:5: v0 is defined twice",
        ),
        (
            "function @f() {\nblock0:\n    v0 = frob v1\n}\n",
            "3:10: unknown instruction 'frob'",
        ),
        (
            "function @f() {\n    ss1 = stack_slot 4, align 4\nblock0:\n    return\n}\n",
            "2:5: expected ss0",
        ),
        (
            "data @x: rodata align 1 = \"abc\n",
            "1:27: unterminated string",
        ),
        (
            "function @f(i32) {\nblock0(v0: i32):\n    v1 = iadd v2, v0\n    v2 = iadd v1, v0\n    return\n}\n",
            "3:5: cannot infer",
        ),
        (
            "function @f() {\nblock0:\n    call fn0()\n}\n",
            "3:10: fn0 is not declared",
        ),
        (
            "function @f() {\nblock0:\n    v0 = iconst.i32 1\n    v1, v2 = iadd v0, v0\n    return\n}\n",
            "4:5: iadd has 1 result, 2 written",
        ),
        ("$", "1:1: unexpected character '$'"),
        (
            "function @f() inline(always {\nblock0:\n    return\n}\n",
            "1:29: expected ')', found '{'",
        ),
        (
            "function @f() cold inline {\nblock0:\n    return\n}\n",
            "1:20: expected '{', found 'inline'",
        ),
    ];
    for (text, expected) in cases {
        let e = parse_module(text).expect_err(text).to_string();
        assert!(
            e.contains(expected),
            "{text}\nerror '{e}' does not contain '{expected}'"
        );
    }
}

/// The texts of every filetest, as seeds for mutation.
fn seeds() -> Vec<String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "ir") {
                out.push(std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    let mut out = vec![EXAMPLE.to_string()];
    walk(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ir"),
        &mut out,
    );
    out
}

const SNIPPETS: &[&str] = &[
    "v1",
    "v0",
    "v99999",
    "block0",
    "block1",
    "block4000000000",
    "(",
    ")",
    ",",
    "=",
    ":",
    "[",
    "]",
    "{",
    "}",
    "->",
    "...",
    "+",
    "-",
    "0x",
    "0xffffffffffffffffffffffffffffffffff",
    "99999999999",
    "-1",
    "1.5e400",
    "iadd",
    "iconst",
    ".i32",
    ".ptr",
    ".f64",
    "@x",
    "@\"",
    "\"",
    "\\x",
    "\n",
    " ",
    "ss0",
    "fn0",
    "sig0",
    "gv0",
    "file0",
    "align",
    "align 0",
    "volatile",
    "zero 100000000000",
    "zero 4",
    "ptr @x",
    "return",
    "jump block0",
    "brif",
    "switch",
    "trap",
    "data",
    "declare",
    "function",
    "i128",
    "i1",
    "nan",
    "inf",
    ";",
];

use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, usize),
    Replace(usize, u8),
    Duplicate(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..12).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), 0..SNIPPETS.len()).prop_map(|(a, s)| Edit::Insert(a, s)),
        (any::<usize>(), 0x20u8..0x7f).prop_map(|(a, c)| Edit::Replace(a, c)),
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Edit::Duplicate(a, n)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut b = text.as_bytes().to_vec();
    for e in edits {
        let len = b.len().max(1);
        match *e {
            Edit::Delete(a, n) => {
                let a = a % len;
                let end = (a + n).min(b.len());
                if a < end {
                    b.drain(a..end);
                }
            }
            Edit::Insert(a, s) => {
                let a = a % (b.len() + 1);
                b.splice(a..a, SNIPPETS[s].bytes());
            }
            Edit::Replace(a, c) => {
                if !b.is_empty() {
                    let a = a % b.len();
                    b[a] = c;
                }
            }
            Edit::Duplicate(a, n) => {
                let a = a % len;
                let end = (a + n).min(b.len());
                if a < end {
                    let piece: Vec<u8> = b[a..end].to_vec();
                    b.splice(end..end, piece);
                }
            }
        }
    }
    // the seeds are ASCII, and so are the edits
    String::from_utf8_lossy(&b).into_owned()
}

/// Whatever parses also prints, parses back to the same text, verifies or not without
/// panicking, and, when it verifies, runs without panicking.
fn check_text(text: &str) -> Result<(), TestCaseError> {
    let Ok(m) = parse_module(text) else {
        return Ok(());
    };
    let printed = m.to_string();
    let back = parse_module(&printed)
        .map_err(|e| TestCaseError::fail(format!("{e}\n--- printed\n{printed}")))?;
    prop_assert_eq!(back.to_string(), printed.clone());
    if verify_module(&m).is_ok() {
        for f in &m.functions {
            let mut it = Interpreter::new(&m);
            it.set_step_limit(5_000);
            it.set_max_depth(50);
            it.add_host("write", |_, _| Ok(vec![DataValue::I64(0)]));
            let args: Vec<DataValue> = f
                .signature
                .params
                .iter()
                .map(|&t| DataValue::from_bits(t, 0))
                .collect();
            let _ = it.call(&f.name, &args);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn mutated_text_never_panics(seed in any::<prop::sample::Index>(), edits in proptest::collection::vec(edit(), 1..6)) {
        let seeds = seeds();
        let text = apply(&seeds[seed.index(seeds.len())], &edits);
        check_text(&text)?;
    }
}

#[test]
fn every_seed_round_trips() {
    for s in seeds() {
        check_text(&s).unwrap();
    }
}

#[test]
fn data_elements_of_any_kind_parse_to_bytes() {
    // `i64 5` and `zero 8` are input syntax; the printer writes the bytes canonically.
    let text = "data @msg: rodata align 1 = \"hello\\n\"
data @table: data align 8 = { i64 5, ptr @msg+2, zero 8, f32 1.0, i16 -2 }
";
    let m = parse_module(text).unwrap();
    verify_module(&m).unwrap();
    let t = m.data_object("table").unwrap();
    let mut bytes = vec![5, 0, 0, 0, 0, 0, 0, 0];
    bytes.extend([0; 16]);
    bytes.extend(1.0f32.to_le_bytes());
    bytes.extend((-2i16).to_le_bytes());
    assert_eq!(t.bytes, bytes);
    assert_eq!(
        t.relocs,
        vec![DataReloc {
            offset: 8,
            symbol: "msg".into(),
            addend: 2,
            kind: RelocKind::Abs64
        }]
    );
    assert_eq!(
        m.to_string(),
        "data @msg: rodata align 1 = \"hello\\n\"\n\
         data @table: data align 8 = { \"\\x05\\0\\0\\0\\0\\0\\0\\0\", ptr @msg+2, zero 10, \"\\x80?\\xfe\\xff\" }\n"
    );
}

#[test]
fn alias_scopes_round_trip() {
    let text = "function @f(ptr, ptr) -> i64 {\nblock0(v0: ptr, v1: ptr):\n    v2 = load.i64 align 8 scope 3 1 v0+8\n    store volatile scope 3 2 v2, v1\n    return v2\n}\n";
    let m = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.to_string(), text);
    verify_module(&m).unwrap_or_else(|e| panic!("{e}"));
}
