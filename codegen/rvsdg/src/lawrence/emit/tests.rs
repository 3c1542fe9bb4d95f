//! The emitter on the thesis's running examples: what control flow comes out.

use vliw_ir::interpreter::{DataValue, Interpreter};
use vliw_ir::{Function, Module, Opcode, verify_module};

use super::*;
use crate::text::parse_graph;

fn emit(text: &str, options: EmitOptions) -> (Function, EmitStats) {
    let g = parse_graph(text).unwrap_or_else(|e| panic!("{e}"));
    let l = g.lambdas()[0];
    let (f, stats) = sequentialize_lambda(&g, l, options).unwrap();
    let mut m = Module::new();
    m.functions.push(f.clone());
    verify_module(&m).unwrap_or_else(|e| panic!("{e}\n{f}"));
    (f, stats)
}

fn count(f: &Function, op: Opcode) -> usize {
    (f.layout.blocks())
        .flat_map(|b| f.layout.block_insts(b))
        .filter(|&i| f.dfg.opcode(i) == op)
        .count()
}

fn run(f: &Function, args: &[DataValue]) -> Vec<DataValue> {
    let mut m = Module::new();
    m.functions.push(f.clone());
    Interpreter::new(&m).call(&f.name, args).unwrap()
}

/// Fig. 3.1, exclusive redundancy: `if P then A else if Q then B else A`, with
/// A = a2 + a3 and B = a3 * a3 (as in `build_pdg`'s tests).
const EXCLUSIVE: &str = "lambda @f(i1, i1, i32, i32) -> i32 export {
  (a0: i1, a1: i1, a2: i32, a3: i32, a4: mem, a5: io):
    n0 = iadd a2, a3 : i32
    n1 = match2 [1 -> 0, _ -> 1] a0 : ctl2
    n2 = gamma n1 [n0, a1, a2, a3] : i32 {
      (a0: i32, a1: i1, a2: i32, a3: i32):
        -> (a0)
      (a0: i32, a1: i1, a2: i32, a3: i32):
        n3 = match2 [1 -> 0, _ -> 1] a1 : ctl2
        n4 = gamma n3 [a0, a3] : i32 {
          (a0: i32, a1: i32):
            n5 = imul a1, a1 : i32
            -> (n5)
          (a0: i32, a1: i32):
            -> (a0)
        }
        -> (n4)
    }
    -> (n2, a4, a5)
}
";

fn check_exclusive(f: &Function) {
    for p in [false, true] {
        for q in [false, true] {
            let args = [
                DataValue::I1(p),
                DataValue::I1(q),
                DataValue::I32(5),
                DataValue::I32(7),
            ];
            let want = if p || !q { 12 } else { 49 };
            assert_eq!(run(f, &args), [DataValue::I32(want)], "P={p} Q={q}\n{f}");
        }
    }
}

/// §3.5: short-circuit code with one static A, computed straight into the result
/// that the return reads: the block of A jumps to the return's block with A's value,
/// and γ2 has no join of its own (its arms go straight to γ1's).
#[test]
fn exclusive_redundancy_is_short_circuit_code_with_one_static_a() {
    let (f, stats) = emit(EXCLUSIVE, EmitOptions::default());
    check_exclusive(&f);
    assert_eq!(count(&f, Opcode::Iadd), 1, "one static A:\n{f}");
    assert_eq!(
        (stats.shared, stats.copied, stats.restarts),
        (1, 0, 0),
        "{f}"
    );
    // the return's block is the one join: A's block and B's jump there
    let ret_block = (f.layout.blocks())
        .find(|&b| {
            f.layout
                .block_insts(b)
                .any(|i| f.dfg.opcode(i) == Opcode::Return)
        })
        .unwrap();
    let jumps_to_return = (f.layout.blocks())
        .filter(|&b| {
            let last = f.layout.last_inst(b).unwrap();
            f.dfg
                .branch_destinations(last)
                .iter()
                .any(|d| d.block == ret_block)
        })
        .count();
    assert_eq!(
        jumps_to_return, 2,
        "A's and B's blocks jump to the return:\n{f}"
    );
    // one join, with one parameter: nowhere else does a value cross a merge
    let with_params: Vec<_> = (f.layout.blocks())
        .filter(|&b| !f.dfg.block_params(b).is_empty())
        .collect();
    assert_eq!(with_params.len(), 2, "the entry and the join:\n{f}");
    assert_eq!(f.dfg.block_params(ret_block).len(), 1, "{f}");
}

/// Without tail registers, A is copied under each parent and every γ has its join.
#[test]
fn without_tail_registers_a_is_copied() {
    let options = EmitOptions {
        tail_registers: false,
        ..EmitOptions::default()
    };
    let (f, stats) = emit(EXCLUSIVE, options);
    check_exclusive(&f);
    assert_eq!(count(&f, Opcode::Iadd), 2, "{f}");
    assert_eq!((stats.shared, stats.copied), (0, 1), "{f}");
}

/// `if a && b { x + y } else { x * y }` as the front end gives it: the boolean of
/// `a && b` merged by γ1 (`b` where `a`, `false` otherwise), then γ2 on it.
const AND_THEN: &str = "lambda @f(i1, i1, i32, i32) -> i32 export {
  (a0: i1, a1: i1, a2: i32, a3: i32, a4: mem, a5: io):
    n0 = match2 [1 -> 0, _ -> 1] a0 : ctl2
    n1 = gamma n0 [a1] : i1 {
      (a0: i1):
        -> (a0)
      (a0: i1):
        n2 = iconst 0 : i1
        -> (n2)
    }
    n3 = match2 [1 -> 0, _ -> 1] n1 : ctl2
    n4 = gamma n3 [a2, a3] : i32 {
      (a0: i32, a1: i32):
        n5 = iadd a0, a1 : i32
        -> (n5)
      (a0: i32, a1: i32):
        n6 = imul a0, a1 : i32
        -> (n6)
    }
    -> (n4, a4, a5)
}
";

fn check_and_then(f: &Function) {
    for a in [false, true] {
        for b in [false, true] {
            let args = [
                DataValue::I1(a),
                DataValue::I1(b),
                DataValue::I32(5),
                DataValue::I32(7),
            ];
            let want = if a && b { 12 } else { 35 };
            assert_eq!(run(f, &args), [DataValue::I32(want)], "a={a} b={b}\n{f}");
        }
    }
}

/// §3.2.3: no branch tests the boolean that γ1 merges: `a` is tested, then `b` where
/// `a` holds; where `a` does not, the path goes straight to the `else` arm.
#[test]
fn a_gamma_on_a_merged_boolean_tests_its_inputs_instead() {
    let (f, _) = emit(AND_THEN, EmitOptions::default());
    check_and_then(&f);
    let entry = f.layout.entry_block().unwrap();
    let merged_booleans = (f.layout.blocks())
        .filter(|&b| b != entry)
        .flat_map(|b| f.dfg.block_params(b))
        .filter(|&&p| f.dfg.value_type(p) == vliw_ir::Type::I1)
        .count();
    assert_eq!(merged_booleans, 0, "{f}");
    assert_eq!(count(&f, Opcode::Brif), 2, "{f}");
    // switched off, the boolean is merged and tested
    let options = EmitOptions {
        conditional_predicates: false,
        ..EmitOptions::default()
    };
    let (f, _) = emit(AND_THEN, options);
    check_and_then(&f);
    let merged_booleans = (f.layout.blocks())
        .flat_map(|b| f.dfg.block_params(b))
        .filter(|&&p| f.dfg.value_type(p) == vliw_ir::Type::I1)
        .count();
    assert_eq!(merged_booleans, 3, "the entry's two and the merge's:\n{f}");
}

/// A two-value γ-tree (§4.2): `if P { (A1, B1) } else if Q { (A1, B2) } else {
/// (A2, B2) }`. B2 is demanded on both arms of Q's γ, so it is computed before the
/// test; A1 is a tail on exclusive paths and is shared, and the second results (B1,
/// B2) are the thesis's moves `r2 = rB` before the jump to it (§3.4.2): one static
/// copy of each operation, no restart.
const TWO_VALUES: &str = "lambda @f(i1, i1, i32, i32) -> i32, i32 export {
  (a0: i1, a1: i1, a2: i32, a3: i32, a4: mem, a5: io):
    n0 = iadd a2, a3 : i32
    n1 = bxor a2, a3 : i32
    n2 = imul a2, a3 : i32
    n3 = isub a2, a3 : i32
    n4 = match2 [1 -> 0, _ -> 1] a0 : ctl2
    n5 = gamma n4 [n0, n1, n2, n3, a1] : i32, i32 {
      (a0: i32, a1: i32, a2: i32, a3: i32, a4: i1):
        -> (a0, a1)
      (a0: i32, a1: i32, a2: i32, a3: i32, a4: i1):
        n6 = match2 [1 -> 0, _ -> 1] a4 : ctl2
        n7 = gamma n6 [a0, a2, a3] : i32, i32 {
          (a0: i32, a1: i32, a2: i32):
            -> (a0, a1)
          (a0: i32, a1: i32, a2: i32):
            -> (a2, a1)
        }
        -> (n7.0, n7.1)
    }
    -> (n5.0, n5.1, a4, a5)
}
";

#[test]
fn a_two_value_gamma_tree_shares_a_tail_with_moves_before_it() {
    let (f, stats) = emit(TWO_VALUES, EmitOptions::default());
    for p in [false, true] {
        for q in [false, true] {
            let args = [
                DataValue::I1(p),
                DataValue::I1(q),
                DataValue::I32(5),
                DataValue::I32(7),
            ];
            let (a, b) = match (p, q) {
                (true, _) => (12, 5 ^ 7),
                (false, true) => (12, 35),
                (false, false) => (-2, 35),
            };
            assert_eq!(
                run(&f, &args),
                [DataValue::I32(a), DataValue::I32(b)],
                "P={p} Q={q}\n{f}"
            );
        }
    }
    assert_eq!(
        (stats.shared, stats.copied, stats.restarts),
        (1, 0, 0),
        "{f}"
    );
    let ops = count(&f, Opcode::Iadd) + count(&f, Opcode::Imul);
    assert_eq!(ops, 2, "{f}");
}

/// `if P { (A1, B1) } else if Q { (A1, B2) } else if R { (A2, B2) } else { (A2, B1)
/// }`: the groups of P's and Q's first arms each have two tails, of which only one
/// can run last; the sharing graph B1 - A1 - B2 has the minimum cover {A1}, so A1 is
/// shared and B1, B2 are copied there, with no restart.
const TWO_TAILS: &str = "lambda @f(i1, i1, i1, i32, i32) -> i32, i32 export {
  (a0: i1, a1: i1, a2: i1, a3: i32, a4: i32, a5: mem, a6: io):
    n0 = iadd a3, a4 : i32
    n1 = bxor a3, a4 : i32
    n2 = imul a3, a4 : i32
    n3 = isub a3, a4 : i32
    n4 = match2 [1 -> 0, _ -> 1] a0 : ctl2
    n5 = gamma n4 [n0, n1, n2, n3, a1, a2] : i32, i32 {
      (a0: i32, a1: i32, a2: i32, a3: i32, a4: i1, a5: i1):
        -> (a0, a1)
      (a0: i32, a1: i32, a2: i32, a3: i32, a4: i1, a5: i1):
        n6 = match2 [1 -> 0, _ -> 1] a4 : ctl2
        n7 = gamma n6 [a0, a1, a2, a3, a5] : i32, i32 {
          (a0: i32, a1: i32, a2: i32, a3: i32, a4: i1):
            -> (a0, a2)
          (a0: i32, a1: i32, a2: i32, a3: i32, a4: i1):
            n8 = match2 [1 -> 0, _ -> 1] a4 : ctl2
            n9 = gamma n8 [a1, a2, a3] : i32, i32 {
              (a0: i32, a1: i32, a2: i32):
                -> (a2, a1)
              (a0: i32, a1: i32, a2: i32):
                -> (a2, a0)
            }
            -> (n9.0, n9.1)
        }
        -> (n7.0, n7.1)
    }
    -> (n5.0, n5.1, a5, a6)
}
";

#[test]
fn two_tails_in_one_group_share_the_covered_one() {
    let (f, stats) = emit(TWO_TAILS, EmitOptions::default());
    for bits in 0..8 {
        let (p, q, r) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
        let args = [
            DataValue::I1(p),
            DataValue::I1(q),
            DataValue::I1(r),
            DataValue::I32(5),
            DataValue::I32(7),
        ];
        let (a1, b1, b2, a2) = (12, 5 ^ 7, 35, -2);
        let want = match (p, q, r) {
            (true, _, _) => (a1, b1),
            (false, true, _) => (a1, b2),
            (false, false, true) => (a2, b2),
            (false, false, false) => (a2, b1),
        };
        assert_eq!(
            run(&f, &args),
            [DataValue::I32(want.0), DataValue::I32(want.1)],
            "P={p} Q={q} R={r}\n{f}"
        );
    }
    assert_eq!(stats.restarts, 0, "{stats:?}\n{f}");
    assert_eq!(count(&f, Opcode::Iadd), 1, "A1 shared:\n{f}");
}

/// A γ whose arms do nothing and give the same results (what is left of a loop's
/// exit selector when both exits go on alike) is no test at all.
#[test]
fn a_gamma_whose_arms_do_the_same_nothing_is_not_tested() {
    let text = "lambda @f(i1, i32) -> i32 export {
  (a0: i1, a1: i32, a2: mem, a3: io):
    n0 = match2 [1 -> 0, _ -> 1] a0 : ctl2
    n1 = gamma n0 [a1] : i32 {
      (a0: i32):
        -> (a0)
      (a0: i32):
        -> (a0)
    }
    n2 = iadd n1, a1 : i32
    -> (n2, a2, a3)
}
";
    let (f, _) = emit(text, EmitOptions::default());
    assert_eq!(count(&f, Opcode::Brif), 0, "{f}");
    for p in [false, true] {
        let out = run(&f, &[DataValue::I1(p), DataValue::I32(4)]);
        assert_eq!(out, [DataValue::I32(8)]);
    }
}
