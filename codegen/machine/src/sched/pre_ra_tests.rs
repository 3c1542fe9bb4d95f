//! Unit tests of scheduling before allocation (`pre_ra`): the order it gives, what it
//! must keep (memory order, the last reader of a kept value, register pressure), and
//! that the code computes the same before and after, allocated and bundled.

use vliw_isa::MachineConfig;

use super::pre_ra::schedule_before_allocation;
use crate::interp::Interpreter;
use crate::mir::{MachFunction, Phase};
use crate::ssa_regalloc::{Stats, allocate_ssa};

fn run(mf: &MachFunction, args: &[u64]) -> Vec<u64> {
    Interpreter::new([mf]).call("f", args).unwrap()
}

/// Allocated, frame-lowered and bundled, as the pipeline does after `pre-sched`.
fn compile(mut mf: MachFunction) -> (MachFunction, Stats) {
    let mut stats = Stats::default();
    allocate_ssa(&mut mf, &mut stats).unwrap();
    crate::frame::lower_frame(&mut mf);
    crate::emit::remove_fallthrough_branches(&mut mf);
    super::schedule_function(&mut mf, &MachineConfig::default());
    (mf, stats)
}

fn bundles(mf: &MachFunction) -> usize {
    let b = mf.bundles.as_ref().unwrap();
    mf.layout.iter().map(|&x| b.lens(x).len()).sum()
}

/// Position of the first line of `text` that contains `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no `{needle}` in\n{text}"))
}

/// Four words clamped in place, as an unrolled loop body does it: each iteration's
/// pointer is the first plus an immediate, so the loads of the later iterations are
/// independent of the earlier stores and start first; the allocated, bundled code is
/// shorter and computes the same.
#[test]
fn unrolled_iterations_interleave() {
    let mut text = String::from(
        "machine function @f export {
    fs0 = 32 bytes, align 8 (ir ss0)
block0:
    v0 = copy r3
    v1 = copy r4
    v2 = copy r5
    v3 = copy r6
    v4 = add r1, fs0
    st.d [v4 + 0] = v0
    st.d [v4 + 8] = v1
    st.d [v4 + 16] = v0
    st.d [v4 + 24] = v1
    v5 = movi 0
    v6 = movi 10
",
    );
    for k in 0..4 {
        let b = 10 + 10 * k;
        text += &format!(
            "    v{a} = add v4, {off}
    v{x} = ld.d [v{a} + 0]
    pv{p}, p0 = cmp.lt v{x}, v5
    v{c} = copy v5
    (!pv{p}) v{m} = min v{x}, v6 keeps v{c}
    st.d [v{a} + 0] = v{m}
",
            a = b,
            off = 8 * k,
            x = b + 1,
            p = b + 2,
            c = b + 3,
            m = b + 4
        );
    }
    text += "    v50 = ld.d [v4 + 0]
    v51 = ld.d [v4 + 8]
    v52 = ld.d [v4 + 16]
    v53 = ld.d [v4 + 24]
    v54 = add v50, v51
    v55 = add v52, v53
    v56 = add v54, v55
    r3 = copy v56
    ret uses[r3]
}
";
    let before = MachFunction::parse(&text).unwrap();
    let mut after = before.clone();
    let stats = schedule_before_allocation(&mut after, &MachineConfig::default());
    after.verify(Phase::Ssa).unwrap();
    assert_eq!(stats.blocks, 1, "{after}");
    let out = after.to_string();
    // every iteration's load before the first iteration's store
    let first_store = line_of(&out, "= v14");
    for k in 0..4 {
        assert!(
            line_of(&out, &format!("v{} = ld.d", 11 + 10 * k)) < first_store,
            "{out}"
        );
    }
    // the sums read what the stores wrote: the loads after them stay after them
    assert!(
        line_of(&out, "v50 = ld.d") > line_of(&out, "= v44"),
        "{out}"
    );
    for args in [[5u64, 20, 0, 0], [(-3i64) as u64, 7, 0, 0], [11, 10, 0, 0]] {
        assert_eq!(run(&after, &args), run(&before, &args), "{args:?}\n{out}");
    }
    let (plain, _) = compile(before.clone());
    let (scheduled, s) = compile(after);
    assert_eq!(s.spill.values, 0);
    assert!(
        bundles(&scheduled) + 4 <= bundles(&plain),
        "{} bundles with pre-sched, {} without:\n{scheduled}\n{plain}",
        bundles(&scheduled),
        bundles(&plain)
    );
    for args in [[5u64, 20, 0, 0], [(-3i64) as u64, 7, 0, 0]] {
        assert_eq!(run(&scheduled, &args), run(&before, &args), "{args:?}");
    }
}

/// A load that heads the critical path stays after a store it may read (same base and
/// offset, or an unrelated base), and a definition that keeps a value stays the
/// value's last reader although it is ready long before the other reader.
#[test]
fn memory_order_and_kept_values_stay() {
    let text = "machine function @f export {
    fs0 = 16 bytes, align 8 (ir ss0)
block0:
    v0 = copy r3
    v1 = copy r4
    v2 = copy r5
    v3 = add r1, fs0
    st.d [v3 + 0] = v0
    st.d [v3 + 8] = v1
    v4 = add v3, 8
    st.d [v4 + 0] = v0
    v5 = ld.d [v3 + 8]
    v6 = mul v5, v5
    v7 = mul v6, v5
    v8 = copy v1
    v9 = mul v7, v8
    pv10, p0 = cmp.lt v0, v1
    (pv10) v11 = add v0, 1 keeps v8
    v12 = add v9, v11
    r3 = copy v12
    ret uses[r3]
}
";
    let before = MachFunction::parse(text).unwrap();
    let mut after = before.clone();
    schedule_before_allocation(&mut after, &MachineConfig::default());
    after.verify(Phase::Ssa).unwrap();
    let out = after.to_string();
    assert!(
        line_of(&out, "v5 = ld.d") > line_of(&out, "st.d [v4 + 0] = v0"),
        "{out}"
    );
    assert!(
        line_of(&out, "keeps v8") > line_of(&out, "v9 = mul"),
        "{out}"
    );
    let (allocated, _) = compile(after);
    for args in [[2u64, 3, 0], [9, 3, 0], [(-4i64) as u64, 6, 0]] {
        assert_eq!(run(&allocated, &args), run(&before, &args), "{args:?}");
    }
}

/// Twenty compares, each read by one `sel` of a chain: the critical path wants the
/// compares early, which would hold more predicates than the allocator has (14); the
/// scheduler runs ahead only as far as the registers allow, so nothing is spilled.
#[test]
fn predicates_stay_within_the_registers() {
    let mut text = String::from(
        "machine function @f export {
block0:
    v0 = copy r3
    v1 = copy r4
    v2 = copy r5
    v3 = mov v2
",
    );
    for k in 0..20 {
        let p = 100 + k;
        text += &format!(
            "    pv{p}, p0 = cmp.lt v0, {k}\n    v{s} = sel pv{p}, v1, v{prev}\n",
            s = 200 + k,
            prev = if k == 0 { 3 } else { 199 + k }
        );
    }
    text += "    r3 = copy v219\n    ret uses[r3]\n}\n";
    let before = MachFunction::parse(&text).unwrap();
    let mut after = before.clone();
    let stats = schedule_before_allocation(&mut after, &MachineConfig::default());
    after.verify(Phase::Ssa).unwrap();
    assert_eq!(stats.blocks, 1, "the compares move ahead:\n{after}");
    let analysis = crate::ssa_regalloc::analysis::Analysis::compute(&after).unwrap();
    assert!(analysis.violations.is_empty(), "{after}");
    for args in [[0u64, 1, 2], [7, 1, 2], [19, 5, 6], [25, 5, 6]] {
        assert_eq!(run(&after, &args), run(&before, &args), "{args:?}");
    }
    // (the allocated code saves callee-saved predicates, which the interpreter's
    // caller leaves undefined: it is not run)
    let (_, s) = compile(after);
    assert_eq!(s.spill.values, 0);
}

/// A definition that keeps a value reads it where its guard is false: under the
/// opposite guard of the kept value's own definition, it still depends on it (the
/// allocated code's rule that a write under `p` never reaches a reader under `!p` does
/// not hold here). The `add` is ready long before the `mul`s it keeps.
#[test]
fn a_kept_value_under_the_opposite_guard_is_waited_for() {
    let text = "machine function @f export {
block0:
    v0 = copy r3
    v1 = copy r4
    pv2, p0 = cmp.lt v0, v1
    v3 = mul v0, v1
    v4 = copy v1
    (pv2) v5 = mul v3, v3 keeps v4
    (!pv2) v6 = add v0, 7 keeps v5
    r3 = copy v6
    ret uses[r3]
}
";
    let before = MachFunction::parse(text).unwrap();
    let mut after = before.clone();
    schedule_before_allocation(&mut after, &MachineConfig::default());
    after.verify(Phase::Ssa).unwrap();
    for args in [[1u64, 2], [5, 2]] {
        assert_eq!(run(&after, &args), run(&before, &args), "{args:?}");
    }
    assert_eq!(run(&before, &[1, 2]), [4]);
    assert_eq!(run(&before, &[5, 2]), [12]);
}

/// `nbody`'s shape: forty values that stay live through the block (they are read
/// after it) and twelve independent chains of long latency, each reading three of
/// them. The critical path would start every chain at once and need more registers
/// than there are; the schedule that only looks a window of the program order ahead
/// overlaps as many as fit. Nothing is spilled, the allocated code is shorter than
/// the program order's, and it computes the same.
#[test]
fn a_window_overlaps_the_chains_that_fit() {
    const LONG: usize = 40;
    const CHAINS: usize = 12;
    let mut text = String::from(
        "machine function @f export {
    fs0 = 2048 bytes, align 8 (ir ss0)
block0:
    v0 = copy r3
    v1 = add r1, fs0
",
    );
    for k in 0..LONG {
        text += &format!(
            "    v{a} = add v0, {k}\n    st.d [v1 + {o}] = v{a}\n",
            a = 100 + k,
            o = 8 * k
        );
    }
    for k in 0..LONG {
        text += &format!("    v{l} = ld.d [v1 + {o}]\n", l = 200 + k, o = 8 * k);
    }
    for j in 0..CHAINS {
        let (x, y, z) = (200 + 3 * j, 201 + 3 * j, 202 + 3 * j);
        let b = 300 + 10 * j;
        text += &format!(
            "    v{a} = fsub.d v{x}, v{y}
    v{m} = fmul.d v{a}, v{a}
    v{s} = fsqrt.d v{m}
    v{d} = fdiv.d v{z}, v{s}
    v{e} = fmul.d v{d}, v{a}
    st.d [v1 + {o}] = v{e}
",
            a = b,
            m = b + 1,
            s = b + 2,
            d = b + 3,
            e = b + 4,
            o = 800 + 8 * j
        );
    }
    text += "    br block1\nblock1:\n    v2 = movi 0\n";
    let mut acc = 2;
    for k in 0..LONG {
        text += &format!("    v{n} = xor v{acc}, v{l}\n", n = 500 + k, l = 200 + k);
        acc = 500 + k;
    }
    for j in 0..CHAINS {
        text += &format!(
            "    v{r} = ld.d [v1 + {o}]\n    v{n} = xor v{acc}, v{r}\n",
            r = 600 + 2 * j,
            n = 601 + 2 * j,
            o = 800 + 8 * j
        );
        acc = 601 + 2 * j;
    }
    text += &format!("    r3 = copy v{acc}\n    ret uses[r3]\n}}\n");
    let before = MachFunction::parse(&text).unwrap();
    let mut after = before.clone();
    let stats = schedule_before_allocation(&mut after, &MachineConfig::default());
    after.verify(Phase::Ssa).unwrap();
    assert_eq!(stats.windowed, 1, "{stats:?}\n{after}");
    let analysis = crate::ssa_regalloc::analysis::Analysis::compute(&after).unwrap();
    assert!(analysis.violations.is_empty(), "{after}");
    for args in [[0x4000_0000_0000_0000u64], [0x3ff8_0000_0000_0000]] {
        assert_eq!(run(&after, &args), run(&before, &args), "{args:?}");
    }
    let (program_order, s0) = compile(before);
    let (scheduled, s1) = compile(after);
    assert_eq!((s0.spill.values, s1.spill.values), (0, 0));
    assert!(
        bundles(&scheduled) < bundles(&program_order),
        "{} bundles, {} in the program order\n{scheduled}",
        bundles(&scheduled),
        bundles(&program_order)
    );
}
