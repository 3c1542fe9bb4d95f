//! Unit tests of the SSA allocator: machine SSA built by hand, allocated, and run by a
//! machine-IR interpreter (`crate::interp`) before and after allocation. Calls write
//! junk into every caller-saved register, so a value kept in one across a call is caught.

use vliw_isa::Opcode;

use super::*;
use crate::abi;
use crate::interp::{Interpreter, Stop};
use crate::mir::{MGuard, PReg, Reg, RegClass};
use crate::test_support::{addi, br, func, movi};

fn add(d: VReg, a: VReg, b: VReg) -> MInst {
    MInst::op(Opcode::Add, &[d.into()], &[a.into(), b.into()], Imm::None)
}

fn cmp_lt(p: VReg, a: VReg, b: VReg) -> MInst {
    MInst::op(
        Opcode::CmpLt,
        &[p.into(), Reg::P0],
        &[a.into(), b.into()],
        Imm::None,
    )
}

fn sel(d: VReg, p: VReg, a: VReg, b: VReg) -> MInst {
    MInst::op(
        Opcode::Sel,
        &[d.into()],
        &[p.into(), a.into(), b.into()],
        Imm::None,
    )
}

/// `r3 = copy a; call @callee; d = copy r3`: the callee returns `2 * r3 + 1`.
fn call(d: VReg, a: VReg) -> Vec<MInst> {
    let mut c = MInst::op(
        Opcode::Call,
        &[],
        &[],
        Imm::Symbol {
            name: "callee".into(),
            addend: 0,
        },
    );
    c.implicit_uses = vec![PReg::gpr(3)];
    c.implicit_defs = abi::caller_saved();
    vec![
        MInst::copy(Reg::gpr(3), a.into()),
        c,
        MInst::copy(d.into(), Reg::gpr(3)),
    ]
}

fn ret(v: VReg) -> Vec<MInst> {
    let mut r = MInst::op(Opcode::Ret, &[], &[], Imm::None);
    r.implicit_uses = vec![PReg::gpr(3)];
    vec![MInst::copy(Reg::gpr(3), v.into()), r]
}

fn gprs(mf: &mut MachFunction, n: usize) -> Vec<VReg> {
    (0..n).map(|_| mf.new_vreg(RegClass::Gpr)).collect()
}

/// Runs `mf` (before or after allocation) on the machine-IR interpreter with `r3 =
/// arg`; returns `r3` at `ret` (`None` at a trap or after too many steps). `callee`
/// returns `2 * r3 + 1`; every call writes junk into the caller-saved registers
/// other than the result.
fn run(mf: &MachFunction, arg: i64) -> Option<i64> {
    let mut it = Interpreter::new([mf]);
    it.set_step_limit(100_000);
    it.add_host("callee", |c| {
        Ok(vec![c.arg(0, 0)?.wrapping_mul(2).wrapping_add(1)])
    });
    match it.call(&mf.name, &[arg as u64]) {
        Ok(r) => Some(r[0] as i64),
        Err(Stop::Trap(_) | Stop::StepLimit) => None,
        Err(e) => panic!("{e}\n{mf}"),
    }
}

/// Allocates a copy of `mf`; checks that it uses physical registers only, never a
/// reserved one, and computes what `mf` computes for each argument.
fn allocated(mf: &MachFunction, args: &[i64]) -> (MachFunction, Stats) {
    let mut out = mf.clone();
    let mut stats = Stats::default();
    allocate_ssa(&mut out, &mut stats).unwrap_or_else(|e| panic!("{e}\n{mf}"));
    for &b in &out.layout {
        assert!(out.blocks[b].params.is_empty());
        for inst in out.block_insts(b) {
            assert!(inst.args.is_empty());
            for r in inst.all_uses().chain(inst.all_defs()) {
                assert!(r.as_physical().is_some(), "{r:?} left in\n{out}");
            }
            for r in inst.defs.iter() {
                if let Reg::Physical(PReg::Gpr(g)) = r {
                    assert!(![0, 1, 2, 62, 63].contains(&g.num()) || *r == Reg::ZERO);
                }
            }
        }
    }
    for &a in args {
        assert_eq!(run(&out, a), run(mf, a), "argument {a}:\n{mf}\n{out}");
    }
    (out, stats)
}

fn moves(mf: &MachFunction) -> usize {
    mf.layout
        .iter()
        .flat_map(|&b| mf.block_insts(b))
        .filter(|i| i.is(Opcode::Mov) || i.is(Opcode::Por))
        .count()
}

#[test]
fn copies_and_arguments_coalesce_away() {
    // entry: x = copy r3; y = copy x (x live on); z = y + x; r3 = copy z; ret
    let (mut mf, b) = func(1);
    let v = gprs(&mut mf, 3);
    mf.set_block(
        b[0],
        vec![
            MInst::copy(v[0].into(), Reg::gpr(3)),
            MInst::copy(v[1].into(), v[0].into()),
            add(v[2], v[1], v[0]),
        ],
    );
    mf.extend_block(b[0], ret(v[2]));
    let (out, stats) = allocated(&mf, &[0, 7, -5]);
    assert_eq!(moves(&out), 0, "{out}");
    assert_eq!((stats.copies.before, stats.copies.after), (3, 0));
}

#[test]
fn values_live_across_a_call_take_callee_saved_registers() {
    let (mut mf, b) = func(1);
    let v = gprs(&mut mf, 5);
    mf.set_block(
        b[0],
        vec![MInst::copy(v[0].into(), Reg::gpr(3)), addi(v[1], v[0], 5)],
    );
    mf.extend_block(b[0], call(v[2], v[0]));
    mf.push_inst(b[0], add(v[3], v[2], v[1]));
    mf.push_inst(b[0], add(v[4], v[3], v[0]));
    mf.extend_block(b[0], ret(v[4]));
    let (out, stats) = allocated(&mf, &[1, 100]);
    assert_eq!(stats.spill.values, 0);
    // v0 and v1 survive the call: two callee-saved registers are written
    let written_callee_saved: std::collections::BTreeSet<PReg> = out
        .layout
        .iter()
        .flat_map(|&b| out.block_insts(b))
        .flat_map(|i| i.defs.iter())
        .filter_map(|r| r.as_physical())
        .filter(|&p| abi::is_callee_saved(p))
        .collect();
    assert_eq!(written_callee_saved.len(), 2, "{out}");
}

#[test]
fn the_swap_problem_goes_through_the_temporary() {
    // block0: a = 1, b = 2, i = 0; block1(a, b, i): loop swapping a and b n times
    let (mut mf, b) = func(3);
    let v = gprs(&mut mf, 9);
    let (a0, b0, i0, n, a, bb, i, i2, r) = (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]);
    let (t, p) = (mf.new_vreg(RegClass::Gpr), mf.new_vreg(RegClass::Pred));
    mf.set_block(
        b[0],
        vec![
            MInst::copy(n.into(), Reg::gpr(3)),
            movi(a0, 1),
            movi(b0, 2),
            movi(i0, 0),
            br(b[1], &[a0.into(), b0.into(), i0.into()]),
        ],
    );
    mf.blocks[b[1]].params = vec![a, bb, i];
    mf.set_block(
        b[1],
        vec![
            addi(i2, i, 1),
            cmp_lt(p, i, n),
            br(b[2], &[]).with_guard(MGuard::new(p.into(), true)),
            br(b[1], &[bb.into(), a.into(), i2.into()]),
        ],
    );
    mf.set_block(b[2], vec![add(t, a, a), add(r, t, bb)]);
    mf.extend_block(b[2], ret(r));
    let (out, _) = allocated(&mf, &[0, 1, 2, 3, 10]);
    let temp = out
        .layout
        .iter()
        .flat_map(|&b| out.block_insts(b))
        .any(|i| i.defs.first() == Some(&Reg::gpr(regs::GPR_TEMP)));
    assert!(temp, "a swap needs the temporary:\n{out}");
}

/// `n` values live at once, then summed: more than the registers when `n` > 58.
fn many_live(n: usize, calls: bool) -> MachFunction {
    let (mut mf, b) = func(1);
    let x = mf.new_vreg(RegClass::Gpr);
    let mut insts = vec![MInst::copy(x.into(), Reg::gpr(3))];
    let vals = gprs(&mut mf, n);
    for (k, &v) in vals.iter().enumerate() {
        insts.push(addi(v, x, k as i64 * 3 + 1));
    }
    let mut acc = x;
    for (k, &v) in vals.iter().enumerate().rev() {
        let s = mf.new_vreg(RegClass::Gpr);
        insts.push(add(s, acc, v));
        acc = s;
        if calls && k % 8 == 0 {
            let c = mf.new_vreg(RegClass::Gpr);
            insts.extend(call(c, acc));
            acc = c;
        }
    }
    insts.extend(ret(acc));
    mf.set_block(b[0], insts);
    mf
}

#[test]
fn pressure_beyond_the_registers_is_spilled() {
    let (_, stats) = allocated(&many_live(40, false), &[3]);
    assert_eq!(stats.spill.values, 0, "40 values fit in 58 registers");
    let (_, stats) = allocated(&many_live(70, false), &[3, -9]);
    assert!(stats.spill.values >= 12, "{stats:?}");
    assert_eq!(stats.spill.reloads, stats.spill.values, "one use each");
    // across calls only the 30 callee-saved registers remain: 32 values cross the
    // first call (v0..v31)
    let (_, stats) = allocated(&many_live(40, true), &[3, -9]);
    assert_eq!(stats.spill.values, 2, "{stats:?}");
}

#[test]
fn predicates_live_across_a_call_are_spilled_beyond_four() {
    let (mut mf, b) = func(1);
    let x = mf.new_vreg(RegClass::Gpr);
    let mut insts = vec![MInst::copy(x.into(), Reg::gpr(3))];
    let mut preds = Vec::new();
    for k in 0..8 {
        let (c, p) = (mf.new_vreg(RegClass::Gpr), mf.new_vreg(RegClass::Pred));
        insts.push(movi(c, k * 10));
        insts.push(cmp_lt(p, x, c));
        preds.push(p);
    }
    let r = mf.new_vreg(RegClass::Gpr);
    insts.extend(call(r, x));
    let mut acc = r;
    for (k, &p) in preds.iter().enumerate() {
        let (one, s, sum) = (
            mf.new_vreg(RegClass::Gpr),
            mf.new_vreg(RegClass::Gpr),
            mf.new_vreg(RegClass::Gpr),
        );
        insts.push(movi(one, 1 << k));
        insts.push(sel(s, p, one, x));
        insts.push(add(sum, acc, s));
        acc = sum;
    }
    insts.extend(ret(acc));
    mf.set_block(b[0], insts);
    let (_, stats) = allocated(&mf, &[-1, 5, 25, 100]);
    assert_eq!(
        stats.spill.values, 4,
        "8 predicates, 4 callee-saved: {stats:?}"
    );
}

#[test]
fn a_value_used_after_a_loop_is_spilled_before_one_used_in_it() {
    // 55 values used in every iteration, the counter, the bound, the sum and `late`,
    // used only after the loop: one too many; `late` must be the one spilled
    let (mut mf, b) = func(3);
    let x = mf.new_vreg(RegClass::Gpr);
    let late = mf.new_vreg(RegClass::Gpr);
    let hot = gprs(&mut mf, 55);
    let (i0, i, i2, n) = (
        mf.new_vreg(RegClass::Gpr),
        mf.new_vreg(RegClass::Gpr),
        mf.new_vreg(RegClass::Gpr),
        mf.new_vreg(RegClass::Gpr),
    );
    let p = mf.new_vreg(RegClass::Pred);
    let mut entry = vec![MInst::copy(x.into(), Reg::gpr(3)), addi(late, x, 1000)];
    for (k, &h) in hot.iter().enumerate() {
        entry.push(addi(h, x, k as i64));
    }
    entry.extend([movi(i0, 0), movi(n, 4), br(b[1], &[i0.into()])]);
    mf.set_block(b[0], entry);
    mf.blocks[b[1]].params = vec![i];
    let mut body = Vec::new();
    let mut acc = i;
    for &h in &hot {
        let s = mf.new_vreg(RegClass::Gpr);
        body.push(add(s, acc, h));
        acc = s;
    }
    body.extend([
        addi(i2, i, 1),
        cmp_lt(p, i2, n),
        br(b[2], &[]).with_guard(MGuard::new(p.into(), true)),
        br(b[1], &[i2.into()]),
    ]);
    mf.set_block(b[1], body);
    let r = mf.new_vreg(RegClass::Gpr);
    mf.set_block(b[2], vec![add(r, acc, late)]);
    mf.extend_block(b[2], ret(r));
    let (out, stats) = allocated(&mf, &[2]);
    assert_eq!(stats.spill.values, 1, "{stats:?}");
    let loop_reloads = out.block_insts(b[1]).filter(|i| i.is(Opcode::LdD)).count();
    assert_eq!(loop_reloads, 0, "nothing reloaded in the loop:\n{out}");
}

#[test]
fn unsupported_forms_are_left_to_the_naive_allocator() {
    let (mut mf, b) = func(1);
    let v = gprs(&mut mf, 2);
    let p = mf.new_vreg(RegClass::Pred);
    let mut accumulate = cmp_lt(p, v[0], v[0]);
    accumulate.ctype = vliw_isa::CmpType::And;
    mf.set_block(
        b[0],
        vec![
            MInst::copy(v[0].into(), Reg::gpr(3)),
            accumulate,
            movi(v[1], 1).with_guard(MGuard::new(p.into(), false)),
        ],
    );
    mf.extend_block(b[0], ret(v[0]));
    let mut stats = Stats::default();
    let err = allocate_ssa(&mut mf.clone(), &mut stats).unwrap_err();
    assert!(err.contains("accumulating compare"), "{err}");
    let counters = std::sync::Arc::new(crate::options::Counters::default());
    let options = Options {
        counters: Some(counters.clone()),
        ..Options::default()
    };
    allocate(&mut mf, &options).unwrap();
    assert_eq!(counters.get("regalloc.ssa.fallbacks"), 1);
    assert_eq!(run(&mf, 4), Some(4));
}

#[test]
fn unreachable_blocks_become_traps() {
    let (mut mf, b) = func(2);
    let v = gprs(&mut mf, 2);
    mf.set_block(b[0], vec![MInst::copy(v[0].into(), Reg::gpr(3))]);
    mf.extend_block(b[0], ret(v[0]));
    mf.set_block(b[1], vec![addi(v[1], v[0], 1)]);
    mf.extend_block(b[1], ret(v[1]));
    let (out, _) = allocated(&mf, &[9]);
    assert_eq!(out.block_len(b[1]), 1);
    assert!(out.inst_at(b[1], 0).is(Opcode::Trap));
}

/// Guarded definitions (if-conversion's) are allocated like any other: the value of
/// `(p) v = ...` is only read where `p` held (here through `sel`), so whatever the
/// register holds when the guard is false does not matter.
#[test]
fn guarded_definitions_are_allocated() {
    let (mut mf, b) = func(1);
    let v = gprs(&mut mf, 4);
    let p = mf.new_vreg(RegClass::Pred);
    mf.set_block(
        b[0],
        vec![
            MInst::copy(v[0].into(), Reg::gpr(3)),
            MInst::op(
                Opcode::CmpLtI,
                &[p.into(), Reg::P0],
                &[v[0].into()],
                Imm::Const(10),
            ),
            addi(v[1], v[0], 100).with_guard(MGuard::new(p.into(), false)),
            addi(v[2], v[0], -1).with_guard(MGuard::new(p.into(), true)),
            MInst::op(
                Opcode::Sel,
                &[v[3].into()],
                &[p.into(), v[1].into(), v[2].into()],
                Imm::None,
            ),
        ],
    );
    mf.extend_block(b[0], ret(v[3]));
    mf.verify(crate::mir::Phase::Ssa).unwrap();
    let (out, stats) = allocated(&mf, &[4]);
    assert_eq!(stats.fallbacks, 0);
    assert_eq!(run(&out, 4), Some(104));
    assert_eq!(run(&out, 20), Some(19));
}

/// Predicate-aware interference: two values live together but defined under the two
/// predicates of one compare are never both defined, and share a register; under
/// guards the compares do not show disjoint they do not.
#[test]
fn values_under_disjoint_guards_share_a_register() {
    let text = |second: &str| {
        format!(
            "machine function @f {{
block0:
    v0 = copy r3
    pv1, pv2 = cmp.gt v0, 0
    pv7, pv8 = cmp.lt v0, 100
    (pv1) v3 = add v0, 10
    ({second}) v4 = add v0, 20
    v5 = sel pv1, v3, v4
    r3 = copy v5
    ret uses[r3]
}}
"
        )
    };
    for (second, shared) in [("pv2", 1), ("!pv1", 1), ("pv8", 0)] {
        let mf = MachFunction::parse(&text(second)).unwrap();
        let mut allocated = mf.clone();
        let mut stats = Stats::default();
        allocate_ssa(&mut allocated, &mut stats).unwrap();
        allocated.verify(crate::mir::Phase::Allocated).unwrap();
        assert_eq!(stats.disjoint_shared, shared, "{second}:\n{allocated}");
        let text = allocated.to_string();
        let dest = |imm: &str| {
            text.lines()
                .find(|l| l.ends_with(&format!("add r3, {imm}")))
                .and_then(|l| l.split(" = ").next())
                .and_then(|l| l.rsplit(' ').next())
                .map(str::to_string)
        };
        assert_eq!(
            dest("10") == dest("20"),
            shared == 1,
            "{second}:\n{allocated}"
        );
        if second != "pv8" {
            for arg in [5, -5, 0] {
                assert_eq!(
                    run(&allocated, arg),
                    run(&mf, arg),
                    "{second} {arg}:\n{allocated}"
                );
            }
        }
    }
}

/// Biased colouring: the accumulator parameter dies early, the value defined there
/// would take its colour (the first in the preference order), and the accumulator's
/// new value, defined while that value still lives, would then need a move on the
/// back edge. The new value wants the parameter's colour, so the other value avoids
/// it: the back edge moves nothing.
#[test]
fn a_back_edge_value_finds_its_parameters_colour_free() {
    let text = "machine function @f export {
block0:
    v0 = copy r3
    br block1(v0, r0)
block1(v1, v2):
    v3 = add v2, 1
    v4 = mul v3, v1
    v5 = add v4, 7
    v6 = add v3, v1
    v7 = add v1, -1
    pv8, p0 = cmp.gt v7, 0
    (pv8) br block2
    br block3
block2:
    br block1(v7, v5)
block3:
    v9 = add v5, v6
    r3 = copy v9
    ret uses[r3]
}
";
    let mf = MachFunction::parse(text).unwrap();
    let (out, _) = allocated(&mf, &[1, 2, 5]);
    let latch = out.layout[2];
    let latch_moves = out.block_insts(latch).filter(|i| i.is(Opcode::Mov)).count();
    assert_eq!(latch_moves, 0, "{out}");
}
