//! Tests of constant propagation on predicated code: the running example of 004 §4
//! (its if-converted form, Table 1, and its PSSA form, Table 2), the fallback above
//! the path cap, loops and several hyperblocks, and randomized checks against a
//! brute-force oracle of feasible paths and against the machine interpreter.

use cranelift_entity::EntityRef;

use super::*;
use crate::interp::Interpreter;
use crate::mir::{Phase, VReg, parse_machine_function};

fn parse(text: &str) -> MachFunction {
    let mf = parse_machine_function(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    mf.verify(Phase::Ssa)
        .unwrap_or_else(|e| panic!("{e}\n{mf}"));
    mf
}

fn options(mode: Mode) -> PcpOptions {
    PcpOptions {
        mode,
        ..PcpOptions::default()
    }
}

fn v(n: usize) -> VReg {
    VReg::new(n)
}

fn run(mf: &MachFunction, args: &[u64]) -> Result<Vec<u64>, String> {
    Interpreter::new([mf])
        .call(&mf.name, args)
        .map_err(|e| e.to_string())
}

/// A result the rewrite must keep: returned words or a trap (not a run that read an
/// undefined value where the machine observes it: any result refines that).
fn comparable(r: &Result<Vec<u64>, String>) -> bool {
    match r {
        Ok(_) => true,
        Err(e) => e.starts_with("trap"),
    }
}

/// The rewrite keeps SSA and the results on `inputs`.
fn rewrite_keeps_results(
    mf: &MachFunction,
    opts: &PcpOptions,
    inputs: &[Vec<u64>],
) -> MachFunction {
    let mut out = mf.clone();
    propagate_constants(&mut out, opts);
    out.verify(Phase::Ssa)
        .unwrap_or_else(|e| panic!("{e}\n{mf}\n{out}"));
    for args in inputs {
        let before = run(mf, args);
        if comparable(&before) {
            assert_eq!(run(&out, args), before, "{args:?}\n{mf}\n{out}");
        }
    }
    out
}

/// The running example (004 §1.3, Table 1) as if-conversion makes it: the
/// hyperblock of Figure 3(a) with ψs at the joins F and J.
///
/// ```text
/// z = 3; if a > 0 { x = 2; y = 3 } else if b > 0 { x = 3; y = 2 } else { z = 2; x = 4; y = 1 }
/// if odd(z) { u = 5; v = 7; w = z mod 2 } else { u = 7; v = 5; w = x }
/// z = (x + u) + (y + v)
/// ```
const RUNNING: &str = "
machine function @running export {
block0:
    v0 = copy r3
    v1 = copy r4
    v2 = movi 3
    pv3, pv4 = cmp.gt.unc v0, 0
    (pv3) v5 = movi 2
    (pv3) v6 = movi 3
    (pv4) pv7, pv8 = cmp.gt.unc v1, 0
    (pv7) v9 = movi 3
    (pv7) v10 = movi 2
    (pv8) v11 = movi 2
    (pv8) v12 = movi 4
    (pv8) v13 = movi 1
    v14 = psi p0: v2, pv8: v11
    v15 = psi pv3: v5, pv7: v9, pv8: v12
    v16 = psi pv3: v6, pv7: v10, pv8: v13
    v17 = and v14, 1
    pv18, pv19 = cmp.ne.unc v17, 0
    (pv18) v20 = movi 5
    (pv18) v21 = movi 7
    v22 = movi 2
    (pv18) v23 = rem v14, v22
    (pv19) v24 = movi 7
    (pv19) v25 = movi 5
    (pv19) v26 = copy v15
    v27 = psi pv18: v20, pv19: v24
    v28 = psi pv18: v21, pv19: v25
    v29 = psi pv18: v23, pv19: v26
    v30 = add v15, v27
    v31 = add v16, v28
    v32 = add v30, v31
    r3 = copy v32
    r4 = copy v29
    ret uses[r3-r4]
}
";

/// The inputs of the running example: each branch of each condition.
fn running_inputs() -> Vec<Vec<u64>> {
    let vals = [-3i64, -1, 0, 1, 5];
    vals.iter()
        .flat_map(|&a| vals.iter().map(move |&b| vec![a as u64, b as u64]))
        .collect()
}

#[test]
fn running_example_basic_finds_z3_but_not_w() {
    let mf = parse(RUNNING);
    let a = analyze(&mf, &options(Mode::Basic));
    // z3 = s + t = 17 on all six paths (the branching nondeterministic)
    assert_eq!(a.value(v(32)), Lat::Const(17));
    assert_eq!(a.facts[&mf.layout[0]].paths, 6);
    // none of its subterms is constant
    for (n, what) in [(30, "s"), (31, "t"), (15, "x"), (27, "u")] {
        assert_eq!(a.value(v(n)), Lat::Bottom, "{what}");
    }
    // w1 = z mod 2 is 1 on the paths through B and D, 0 on E→G (infeasible, but
    // basic CP does not know); w2 = x is 2, 3 or 4
    assert_eq!(a.value(v(23)), Lat::Bottom, "w1");
    assert_eq!(a.value(v(26)), Lat::Bottom, "w2");
    let out = rewrite_keeps_results(&mf, &options(Mode::Basic), &running_inputs());
    assert!(out.to_string().contains("v32 = movi 17"), "{out}");
}

#[test]
fn running_example_full_finds_w1_and_w2() {
    let mf = parse(RUNNING);
    let a = analyze(&mf, &options(Mode::Full));
    assert_eq!(a.value(v(32)), Lat::Const(17), "z3");
    assert_eq!(a.value(v(23)), Lat::Const(1), "w1 (block G)");
    assert_eq!(a.value(v(26)), Lat::Const(4), "w2 (block H)");
    // w itself is 1 or 4: not constant
    assert_eq!(a.value(v(29)), Lat::Bottom, "w");
    // the compare of odd(z) is decided on each path: three feasible paths
    // (JGFBA, JGFDCA, JHFECA), none split on it
    assert_eq!(a.facts[&mf.layout[0]].paths, 3);
    let mut out = mf.clone();
    let stats = propagate_constants(&mut out, &options(Mode::Full));
    out.verify(Phase::Ssa).unwrap();
    let text = out.to_string();
    for line in ["v32 = movi 17", "v23 = movi 1", "v26 = movi 4"] {
        assert!(text.contains(line), "{line}:\n{text}");
    }
    assert_eq!(stats.constants, 3, "{stats:?}");
    assert_eq!(stats.fallbacks, 0);
    rewrite_keeps_results(&mf, &options(Mode::Full), &running_inputs());
    for args in running_inputs() {
        let (a, b) = (args[0] as i64, args[1] as i64);
        let w = if a > 0 || b > 0 { 1 } else { 4 };
        assert_eq!(run(&out, &args), Ok(vec![17, w]), "{args:?}");
    }
}

mod global;
mod oracle;
mod random;
