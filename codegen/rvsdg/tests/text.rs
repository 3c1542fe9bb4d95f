//! The text form: canonical texts print as written, print → parse → print is the
//! identity, parse errors have locations, and no input makes the parser panic.

mod common;

use common::texts;
use vliw_ir::{InstructionFormat, Opcode};
use vliw_rvsdg::text::MAX_DEPTH;
use vliw_rvsdg::*;

fn parse(text: &str) -> Rvsdg {
    parse_graph(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn text(name: &str) -> String {
    texts()
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no {name}"))
        .1
}

#[test]
fn canonical_texts_print_as_written() {
    for (name, text) in texts() {
        let printed = parse(&text).to_string();
        assert_eq!(printed, text, "{name}");
    }
}

/// The example of `docs/rvsdg.md` is canonical text.
#[test]
fn the_documented_example_prints_as_written() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/rvsdg.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let example = doc.split("```\n").nth(1).unwrap();
    assert!(example.starts_with("lambda @fib"), "{example}");
    assert_eq!(parse(example).to_string(), example);
}

#[test]
fn every_operation_is_in_the_texts() {
    let g = parse(&text("all-ops.rvsdg"));
    let mut ops = Vec::new();
    for r in g.regions_below(g.root()) {
        for &n in g.nodes(r) {
            if let Some(op) = g.op(n) {
                ops.push(op.clone());
            }
        }
    }
    for &opcode in Opcode::ALL {
        // control flow is structure; unwind edges are try_calls (`unwind.rs`)
        let holds = !matches!(
            opcode.format(),
            InstructionFormat::Jump
                | InstructionFormat::Brif
                | InstructionFormat::Switch
                | InstructionFormat::Return
                | InstructionFormat::Invoke
                | InstructionFormat::InvokeIndirect
        ) && !matches!(
            opcode,
            Opcode::Unreachable | Opcode::LandingPad | Opcode::CatchLandingPad | Opcode::Resume
        );
        let present = ops
            .iter()
            .any(|op| matches!(op, Op::Inst(d) if d.opcode() == opcode));
        assert_eq!(present, holds, "{opcode}");
    }
    for opcode in [Opcode::Udiv, Opcode::Sdiv, Opcode::Urem, Opcode::Srem] {
        assert!(ops.contains(&Op::SafeDiv(opcode)), "{opcode} safe");
    }
    assert!(ops.iter().any(|op| matches!(op, Op::Match { .. })));
    assert!(ops.iter().any(|op| matches!(op, Op::Ctl { .. })));
    assert!(ops.contains(&Op::MemSplit(3)) && ops.contains(&Op::MemJoin(3)));
}

/// The graph behind the text: kinds, regions, edges, locations.
#[test]
fn nested_structure_is_built() {
    let g = parse(&text("nested.rvsdg"));
    let lambda = g.lambdas()[0];
    assert_eq!(g.lambda_info(lambda).name, "nested");
    let body = g.lambda_body(lambda);
    assert_eq!(g.args(body).len(), 5);
    let order = g.topological_order(body);
    // n3: a γ of two arms on n2, with the entries a0 a1 a2 a3
    let gamma = order[3];
    let NodeKind::Gamma { arms } = g.kind(gamma) else {
        panic!("{:?}", g.kind(gamma))
    };
    assert_eq!(arms.len(), 2);
    assert_eq!(
        g.inputs(gamma),
        &[
            Origin::Out(order[2], 0),
            Origin::Arg(body, 0),
            Origin::Arg(body, 1),
            Origin::Arg(body, 2),
            Origin::Arg(body, 3)
        ]
    );
    assert_eq!(
        g.output_types(gamma)[..],
        [Ty::Val(vliw_ir::Type::I32), Ty::Mem]
    );
    assert_eq!(g.node(gamma).loc, vliw_ir::SourceLoc::new(0, 3, 5));
    // arm 1: a θ whose body holds a γ; results n6.1 n6.4
    let arm = arms[1];
    let theta = g.topological_order(arm)[1];
    assert!(matches!(g.kind(theta), NodeKind::Theta { .. }));
    assert_eq!(
        g.results(arm),
        &[Origin::Out(theta, 1), Origin::Out(theta, 4)]
    );
    let tbody = g.theta_body(theta);
    assert_eq!(g.results(tbody).len(), 6);
    assert!(matches!(g.ty(g.results(tbody)[0]), Ty::Ctl(2)));
    assert_eq!(g.results(tbody)[3], Origin::Arg(tbody, 2));
    assert_eq!(g.depth(g.theta_body(theta)), 3);
    let inner = g
        .topological_order(tbody)
        .into_iter()
        .find(|&n| matches!(g.kind(n), NodeKind::Gamma { .. }))
        .unwrap();
    assert_eq!(g.depth(g.kind(inner).subregions()[1]), 4);
    // the γ and θ without outputs are there too
    let empty = order
        .iter()
        .filter(|&&n| g.num_outputs(n) == 0 && g.kind(n).is_structural())
        .count();
    assert_eq!(empty, 2);
}

#[test]
fn several_lambdas() {
    let g = parse(&text("calls.rvsdg"));
    let names: Vec<&str> = g
        .lambdas()
        .iter()
        .map(|&l| g.lambda_info(l).name.as_str())
        .collect();
    assert_eq!(names, ["fib", "main", "odd name"]);
    let info = |i: usize| g.lambda_info(g.lambdas()[i]);
    assert_eq!(info(0).inline, vliw_ir::InlineHint::Never);
    assert!(!info(0).cold);
    assert_eq!(info(1).inline, vliw_ir::InlineHint::Default);
    assert_eq!(info(2).inline, vliw_ir::InlineHint::Hint);
    assert!(info(2).cold);
    let main = info(1);
    assert_eq!(main.linkage, vliw_ir::Linkage::Weak);
    assert!(
        main.ext_funcs[vliw_ir::FuncRef::from_u32(1)]
            .signature
            .variadic
    );
}

/// Whatever the input's numbering, order (among valid ones), spacing and comments, it
/// prints canonically.
#[test]
fn any_valid_text_prints_canonically() {
    let input = "; a comment
lambda @f(i32)->i32 export{
  (a0:i32,a1:mem,a2:io):        ; the arguments
    n7 = iconst +3 : i32
    n9 = iconst 4 : i32 ; unused
    n5=iadd a0,n7:i32
    n2 = uadd_overflow n5, n5 : i32, i1
    n40 = theta [n2.0] : i32 {
      (a0: i32):
        n1 = ctl2 0 : ctl2
        -> (n1, a0)
    }
    n3 = ishl n40.0, n7 : i32
    ->(n3,a1,a2)
}
n100 = iconst 1 : i8
";
    let expected = "lambda @f(i32) -> i32 export {
  (a0: i32, a1: mem, a2: io):
    n0 = iconst 3 : i32
    n1 = iadd a0, n0 : i32
    n2 = uadd_overflow n1, n1 : i32, i1
    n3 = theta [n2.0] : i32 {
      (a0: i32):
        n4 = ctl2 0 : ctl2
        -> (n4, a0)
    }
    n5 = ishl n3, n0 : i32
    n6 = iconst 4 : i32
    -> (n5, a1, a2)
}
n0 = iconst 1 : i8
";
    let printed = parse(input).to_string();
    assert_eq!(printed, expected);
    assert_eq!(parse(&printed).to_string(), expected);
}

/// A graph built through the API prints, parses back and prints the same.
#[test]
fn graphs_built_by_the_api_round_trip() {
    use vliw_ir::{Function, InstructionData, Signature, Type, Value};
    let i64t = Ty::Val(Type::I64);
    let mut g = Rvsdg::new();
    for name in ["a", "b"] {
        let sig = Signature::new(&[Type::I64], &[Type::I64]);
        let lambda = g.add_lambda(
            Function::new(name, sig, Default::default()),
            &[i64t, Ty::Mem, Ty::Io],
        );
        let body = g.lambda_body(lambda);
        let x = Origin::Arg(body, 0);
        let theta = g.add_theta(body, &[x]);
        let tb = g.theta_body(theta);
        let one = g.add_simple(
            tb,
            Op::from_inst(&InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm: u64::MAX as u128,
            }),
            &[],
            &[i64t],
        );
        let add = g.add_simple(
            tb,
            Op::from_inst(&InstructionData::Binary {
                opcode: Opcode::Iadd,
                args: [Value::from_u32(7), Value::from_u32(8)],
            }),
            &[Origin::Arg(tb, 0), Origin::Out(one, 0)],
            &[i64t],
        );
        let pred = g.add_simple(
            tb,
            Op::Match {
                cases: [(0, 0)].into(),
                default: 1,
                alts: 2,
            },
            &[Origin::Out(add, 0)],
            &[Ty::Ctl(2)],
        );
        g.set_theta_predicate(theta, Origin::Out(pred, 0));
        g.set_result(tb, 1, Origin::Out(add, 0));
        g.set_loc(add, vliw_ir::SourceLoc::new(0, 9, 2));
        for o in [
            Origin::Out(theta, 0),
            Origin::Arg(body, 1),
            Origin::Arg(body, 2),
        ] {
            g.add_result(body, o);
        }
    }
    let printed = g.to_string();
    assert!(printed.contains("    n1 = iconst -1 : i64\n"), "{printed}");
    assert!(
        printed.contains("    [0:9:2] n2 = iadd a0, n1 : i64\n"),
        "{printed}"
    );
    assert!(
        printed.contains("}\n\nlambda @b(i64) -> i64 {\n"),
        "{printed}"
    );
    let back = parse(&printed);
    assert_eq!(back.to_string(), printed);
    assert_eq!(back.count_nodes(back.root()), g.count_nodes(g.root()));
}

#[test]
fn parse_errors_have_locations() {
    let f = |body: &str| {
        format!("lambda @f(i32) {{\n  (a0: i32, a1: mem, a2: io):\n{body}    -> ()\n}}\n")
    };
    let cases = [
        (
            f("    n0 = iadd a3, a0 : i32\n"),
            "3:15: a3 is not an argument of this region (it has 3)",
        ),
        (
            f("    n0 = iconst 1 : i32\n    n0 = iconst 2 : i32\n"),
            "4:5: n0 is defined twice",
        ),
        (
            f("    n0 = frob a0 : i32\n"),
            "3:10: unknown operation 'frob'",
        ),
        (
            f("    n0 = iconst.i32 1 : i32\n"),
            "3:10: unknown operation 'iconst.i32' (no type suffix: the output types say it)",
        ),
        (
            f("    jump\n"),
            "3:5: 'jump' is control flow, which gamma and theta nodes express",
        ),
        (
            f("    n0 = iadd a0, n1 : i32\n    n1 = iconst 1 : i32\n"),
            "3:19: n1 is not defined (definitions come before uses)",
        ),
        (
            f("    n0 = uadd_overflow a0, a0 : i32, i1\n    n1 = iadd n0, a0 : i32\n"),
            "4:15: n0 has 2 outputs: name one, n0.0 to n0.1",
        ),
        (
            f("    n0 = iconst 1 : i32\n    n1 = iadd n0.1, a0 : i32\n"),
            "4:15: n0 has no output 1",
        ),
        (
            f("    trap 1 a1, a2\n    n1 = iadd a0, a0 : i32\n    -> (n0)\n"),
            "5:9: n0 is not defined",
        ),
        (
            f(
                "    n0 = ctl2 0 : ctl2\n    n1 = gamma n0 [a0] : i32 {\n      (a0: i32):\n        -> (n0)\n    }\n",
            ),
            "6:13: n0 is in another region (values enter a region through its node's inputs)",
        ),
        (
            f(
                "    n0 = ctl2 0 : ctl2\n    n1 = gamma n0 [a0] {\n      (a0: i64):\n        -> ()\n    }\n",
            ),
            "5:12: the arguments are the gamma's entry variables: (a0: i32)",
        ),
        (
            f(
                "    n0 = ctl2 0 : ctl2\n    n1 = gamma n0 [a0] {\n      ():\n        -> ()\n    }\n",
            ),
            "5:8: the arguments are the gamma's entry variables: (a0: i32)",
        ),
        (
            f("    n0 = theta [a0] : i32 {\n      (a0: i32):\n        -> (a0)\n    }\n"),
            "5:9: a theta's body gives its predicate, then the next value of each loop variable: 2 results",
        ),
        (
            f("    n0 = theta [a0] : i64 {\n      (a0: i32):\n        -> (a0)\n    }\n"),
            "3:21: the outputs of a theta are its loop variables: ': i32'",
        ),
        (
            f("    n0 = iconst 256 : i8\n"),
            "3:17: integer literal out of range for i8",
        ),
        (
            f("    n0 = iconst -1 : f32\n"),
            "3:17: a negative literal needs an integer output type",
        ),
        (
            f("    n0 = call fn0 a1, a2 : mem, io\n"),
            "3:15: fn0 is not declared",
        ),
        (
            f("    n0 = stack_addr ss0 : ptr\n"),
            "3:21: ss0 is not declared",
        ),
        (
            f("    n0 = icmp sgtt a0, a0 : i1\n"),
            "3:15: unknown icmp condition 'sgtt'",
        ),
        (
            f("    n0 = iadd a0, a0 : i33\n"),
            "3:24: unknown type 'i33'",
        ),
        (
            f("    [3:1:1] n0 = iadd a0, a0 : i32\n"),
            "3:5: file3 is not declared",
        ),
        (
            f("    n0 = match2 [1 -> 0] a0 : ctl2\n"),
            "3:24: expected ',', found ']'",
        ),
        (
            f("    n0 = match2 [x -> 0, _ -> 1] a0 : ctl2\n"),
            "3:18: expected a case 'N -> K' or the default '_ -> K', found 'x'",
        ),
        (
            f("    n0 = trap 65536 a1, a2\n"),
            "3:15: trap code out of range (0..=65535)",
        ),
        (
            f("    lambda @g() {\n"),
            "3:5: a lambda is a top-level item, without a name",
        ),
        (
            f("    n0 = gamma a0 [] {\n      -> ()\n    }\n"),
            "3:23: expected an arm '(arguments):' or '}', found '->'",
        ),
        (
            f("    x0 = iconst 1 : i32\n"),
            "3:5: expected a node name 'nK', found 'x0'",
        ),
        (
            "lambda @f() {\n  (a1: i32):\n    -> ()\n}\n".into(),
            "2:4: expected argument a0 (arguments are numbered in order), found 'a1'",
        ),
        (
            "lambda @f() {\n  ():\n}\n".into(),
            "2:6: expected a node or the results '-> (...)', found '}'",
        ),
        (
            "lambda @f() {\n  ():\n    -> ()\n".into(),
            "3:10: expected '}', found the end of the input",
        ),
        (
            "lambda @f() {\n    ss1 = stack_slot 4, align 4\n  ():\n    -> ()\n}\n".into(),
            "2:5: expected ss0",
        ),
        (
            "lambda @f() {\n  ():\n    -> ()\n}\n$".into(),
            "5:1: unexpected character '$'",
        ),
    ];
    for (text, expected) in cases {
        let e = parse_graph(&text).expect_err(&text).to_string();
        assert!(
            e.contains(expected),
            "{text}\nerror '{e}' does not contain '{expected}'"
        );
    }
}

#[test]
fn call_without_states_is_an_error() {
    let text = "lambda @f() {\n    fn0 = @g()\n  ():\n    n0 = call fn0 : i32\n    -> ()\n}\n";
    let e = parse_graph(text).unwrap_err().to_string();
    assert_eq!(
        e,
        "4:10: 'call' takes its arguments, then the memory and I/O states"
    );
}

/// θs nested `depth` deep, each passing one value through.
fn nested_thetas(depth: usize) -> String {
    let mut s = String::from("lambda @deep(i32) {\n  (a0: i32):\n");
    for k in 0..depth {
        let pad = " ".repeat(4 + 4 * k);
        s += &format!("{pad}n{k} = theta [a0] : i32 {{\n{pad}  (a0: i32):\n");
    }
    for k in (0..depth).rev() {
        let pad = " ".repeat(4 + 4 * k);
        s += &format!(
            "{pad}    n{} = ctl2 0 : ctl2\n{pad}    -> (n{}, {})\n{pad}}}\n",
            depth + k,
            depth + k,
            if k + 1 == depth {
                "a0".to_string()
            } else {
                format!("n{}", k + 1)
            }
        );
    }
    s + "    -> ()\n}\n"
}

#[test]
fn nesting_is_bounded() {
    // the λ's body is one region: MAX_DEPTH - 1 θs fit
    let g = parse(&nested_thetas(MAX_DEPTH - 1));
    assert_eq!(parse(&g.to_string()).to_string(), g.to_string());
    let e = parse_graph(&nested_thetas(MAX_DEPTH)).unwrap_err();
    assert!(e.message.contains("nested too deeply"), "{e}");
}

// ---- robustness: random edits of the texts ----

const SNIPPETS: &[&str] = &[
    "n0",
    "n1",
    "n2.1",
    "n3.0",
    "n99999",
    "n4000000000",
    "a0",
    "a1",
    "a9",
    "a2.0",
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
    "_",
    "0x",
    "-1",
    "99999999999",
    "0xffffffffffffffffffffffffffffffffff",
    "1.5e400",
    "gamma",
    "theta",
    "lambda",
    "match2",
    "match0 [_ -> 0]",
    "ctl2",
    "ctl0",
    "ctl4294967295",
    "mem",
    "io",
    "i1",
    "i128",
    "ptr",
    "safe",
    "iconst",
    "iadd",
    "load",
    "store",
    "call fn0",
    "call_indirect sig0",
    "trap",
    "jump",
    "stack_addr ss0",
    "symbol_addr gv0",
    "[0:1:1]",
    "[9:1:1]",
    "@x",
    "@\"",
    "\"",
    "\\x",
    "\n",
    " ",
    ";",
    "align 0",
    "volatile",
    "fn0 = @g(i32) -> i32",
    "ss0 = stack_slot 4, align 4",
    "file0 = \"x\"",
    "  ():\n",
    "    -> ()\n",
    "theta [] {\n  ():\n    n0 = ctl2 0 : ctl2\n    -> (n0)\n}\n",
];

use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, usize),
    Replace(usize, u8),
    Duplicate(usize, usize),
    Truncate(usize),
    /// Line edits keep more texts valid, so that more mutants reach the printer.
    DeleteLine(usize),
    SwapLines(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..12).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), 0..SNIPPETS.len()).prop_map(|(a, s)| Edit::Insert(a, s)),
        (any::<usize>(), 0x20u8..0x7f).prop_map(|(a, c)| Edit::Replace(a, c)),
        (any::<usize>(), 1usize..80).prop_map(|(a, n)| Edit::Duplicate(a, n)),
        any::<usize>().prop_map(Edit::Truncate),
        any::<usize>().prop_map(Edit::DeleteLine),
        any::<usize>().prop_map(Edit::SwapLines),
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
            Edit::Truncate(a) => b.truncate(a % len),
            Edit::DeleteLine(a) | Edit::SwapLines(a) => {
                let mut lines: Vec<Vec<u8>> =
                    b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
                let k = a % lines.len();
                if matches!(e, Edit::DeleteLine(_)) {
                    lines.remove(k);
                } else if k + 1 < lines.len() {
                    lines.swap(k, k + 1);
                }
                b = lines.join(&b'\n');
            }
        }
    }
    // the texts are ASCII, and so are the edits
    String::from_utf8_lossy(&b).into_owned()
}

/// Whatever parses prints, parses back to the same text, and draws.
fn check_text(text: &str) -> Result<(), TestCaseError> {
    let Ok(g) = parse_graph(text) else {
        return Ok(());
    };
    let printed = g.to_string();
    let back = parse_graph(&printed)
        .map_err(|e| TestCaseError::fail(format!("{e}\n--- printed\n{printed}")))?;
    prop_assert_eq!(back.to_string(), printed);
    let mut dot = String::new();
    write_dot(&mut dot, &g, "mutant");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn mutated_text_never_panics(seed in any::<prop::sample::Index>(), edits in proptest::collection::vec(edit(), 1..6)) {
        let texts = texts();
        let text = apply(&texts[seed.index(texts.len())].1, &edits);
        check_text(&text)?;
    }

    /// Any characters, inserted into a text (comments and strings hold any).
    #[test]
    fn any_characters_never_panic(seed in any::<prop::sample::Index>(), at in any::<usize>(), junk in ".{0,12}") {
        let texts = texts();
        let text = &texts[seed.index(texts.len())].1;
        let mut at = at % (text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        check_text(&format!("{}{junk}{}", &text[..at], &text[at..]))?;
    }
}

// ---- round trips of random graphs ----

/// A small deterministic generator (xorshift), so that a failing seed reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len())]
    }
}

/// Random operations: the parser does not check operand types, so any inputs do
/// (calls take at least their two states).
fn random_op(rng: &mut Rng) -> Op {
    use vliw_ir::{
        FuncRef, GlobalRef, InstructionData as D, IntCC, MemFlags, SigRef, StackSlot, Value,
    };
    let v0 = Value::from_u32(0);
    let flags = MemFlags::aligned(1 << rng.below(4)).with_volatile(rng.below(2) == 0);
    let offset = rng.below(40) as i32 - 20;
    match rng.below(14) {
        0 => Op::Inst(D::UnaryImm {
            opcode: Opcode::Iconst,
            imm: (rng.next() as u128) << rng.below(70),
        }),
        1 => Op::Inst(D::UnaryImm {
            opcode: rng.pick(&[Opcode::F32const, Opcode::F64const]),
            imm: (rng.next() >> (rng.below(2) * 32)) as u128,
        }),
        2 => Op::Inst(D::Binary {
            opcode: rng.pick(&[Opcode::Iadd, Opcode::Fmax, Opcode::SmulOverflow]),
            args: [v0; 2],
        }),
        3 => Op::Inst(D::IntCompare {
            opcode: Opcode::Icmp,
            cond: rng.pick(&IntCC::ALL),
            args: [v0; 2],
        }),
        4 => Op::Inst(D::Load {
            opcode: Opcode::Load,
            flags,
            arg: v0,
            offset,
        }),
        5 => Op::Inst(D::Store {
            opcode: Opcode::Store,
            flags,
            args: [v0; 2],
            offset,
        }),
        6 => Op::Inst(D::Call {
            opcode: Opcode::Call,
            func: FuncRef::from_u32(0),
            args: Vec::new(),
        }),
        7 => Op::Inst(D::CallIndirect {
            opcode: Opcode::CallIndirect,
            sig: SigRef::from_u32(0),
            args: Vec::new(),
        }),
        8 => Op::Inst(D::SymbolAddr {
            opcode: Opcode::SymbolAddr,
            global: GlobalRef::from_u32(0),
            offset: offset as i64,
        }),
        9 => Op::Inst(D::StackAddr {
            opcode: Opcode::StackAddr,
            slot: StackSlot::from_u32(0),
            offset: offset as i64,
        }),
        10 => Op::Inst(D::Trap {
            opcode: Opcode::Trap,
            code: rng.next() as u16,
        }),
        11 => Op::Match {
            cases: (0..rng.below(3))
                .map(|_| (rng.next() as u128, rng.below(3) as u32))
                .collect(),
            default: rng.below(3) as u32,
            alts: 1 + rng.below(3) as u32,
        },
        12 => Op::Ctl {
            alt: rng.below(2) as u32,
            alts: 2,
        },
        _ => Op::SafeDiv(rng.pick(&[Opcode::Udiv, Opcode::Srem])),
    }
}

fn random_type(rng: &mut Rng) -> Ty {
    use vliw_ir::Type;
    rng.pick(&[
        Ty::Val(Type::I1),
        Ty::Val(Type::I8),
        Ty::Val(Type::I64),
        Ty::Val(Type::I128),
        Ty::Val(Type::F32),
        Ty::Val(Type::Ptr),
        Ty::Mem,
        Ty::Io,
        Ty::Ctl(2),
    ])
}

/// Fills region `r` with random nodes on its arguments, nested `depth` more levels at
/// most, and gives it up to `results` results. Returns its values.
fn random_region(
    g: &mut Rvsdg,
    rng: &mut Rng,
    r: vliw_rvsdg::Region,
    depth: usize,
    results: usize,
) -> Vec<Origin> {
    let mut pool: Vec<Origin> = g.arg_origins(r).collect();
    // up to three values of the pool
    let some = |rng: &mut Rng, pool: &[Origin]| -> Vec<Origin> {
        if pool.is_empty() {
            return Vec::new();
        }
        (0..rng.below(4)).map(|_| rng.pick(pool)).collect()
    };
    for _ in 0..rng.below(7) {
        let kind = if depth > 0 { rng.below(6) } else { 0 };
        let n = match kind {
            4 if !pool.is_empty() => {
                let pred = rng.pick(&pool);
                let entries = some(rng, &pool);
                let gamma = g.add_gamma(r, pred, &entries, rng.below(3));
                let exits = rng.below(3);
                for arm in g.kind(gamma).subregions().to_vec() {
                    random_region(g, rng, arm, depth - 1, exits);
                }
                for _ in 0..exits {
                    g.add_output(gamma, random_type(rng));
                }
                gamma
            }
            5 => {
                let inits = some(rng, &pool);
                let theta = g.add_theta(r, &inits);
                let body = g.theta_body(theta);
                let mut inner = random_region(g, rng, body, depth - 1, 0);
                let ctl = g.add_simple(body, Op::Ctl { alt: 0, alts: 2 }, &[], &[Ty::Ctl(2)]);
                inner.push(Origin::Out(ctl, 0));
                g.set_theta_predicate(theta, rng.pick(&inner));
                for i in 0..inits.len() {
                    g.set_result(body, i + 1, rng.pick(&inner));
                }
                theta
            }
            _ => {
                let op = random_op(rng);
                let mut inputs = some(rng, &pool);
                if op.opcode().is_some_and(|o| o.is_call()) {
                    if pool.is_empty() {
                        continue;
                    }
                    while inputs.len() < 2 {
                        inputs.push(rng.pick(&pool));
                    }
                }
                let outputs: Vec<Ty> = (0..rng.below(3)).map(|_| random_type(rng)).collect();
                g.add_simple(r, op, &inputs, &outputs)
            }
        };
        if rng.below(4) == 0 {
            g.set_loc(n, vliw_ir::SourceLoc::new(0, rng.below(100) as u32, 1));
        }
        pool.extend(g.outputs(n));
    }
    for _ in 0..results {
        if let Some(&o) = pool.get(rng.below(pool.len().max(1))) {
            g.add_result(r, o);
        }
    }
    pool
}

/// A graph of a few λs (with one declaration of each kind) of random contents.
fn random_graph(seed: u64) -> Rvsdg {
    use vliw_ir::{ExtFuncData, Function, Signature, StackSlotData, Type};
    let mut rng = Rng(seed | 1);
    let mut g = Rvsdg::new();
    for k in 0..1 + rng.below(3) {
        let mut f = Function::new(
            format!("f{k}"),
            Signature::new(&[Type::I64], &[]),
            Default::default(),
        );
        f.stack_slots.push(StackSlotData { size: 8, align: 8 });
        f.signatures.push(Signature::default());
        f.ext_funcs.push(ExtFuncData {
            name: "g".into(),
            signature: Signature::default(),
            nounwind: false,
        });
        f.globals.push("x".into());
        f.files.push("x.rs".into());
        let params: Vec<Ty> = (0..rng.below(4)).map(|_| random_type(&mut rng)).collect();
        let lambda = g.add_lambda(f, &params);
        let results = rng.below(4);
        let body = g.lambda_body(lambda);
        random_region(&mut g, &mut rng, body, 3, results);
    }
    g
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Print → parse → print is the identity on graphs built through the API.
    #[test]
    fn random_graphs_round_trip(seed in any::<u64>()) {
        let g = random_graph(seed);
        let printed = g.to_string();
        let back = parse_graph(&printed)
            .map_err(|e| TestCaseError::fail(format!("{e}\n--- printed\n{printed}")))?;
        prop_assert_eq!(back.to_string(), printed);
        prop_assert_eq!(back.count_nodes(back.root()), g.count_nodes(g.root()));
    }
}
