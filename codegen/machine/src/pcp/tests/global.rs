//! The global worklist (004 §4.2, Alg. 1): constants along block parameters, around
//! loops (nested ones included), edges that no path takes, and random functions with
//! loops and if-converted regions interpreted before and after the pass.

use vliw_isa::{MachineConfig, Opcode};

use super::random::{Builder, Rng, all_inputs};
use super::*;
use crate::ifconv::{Limits, if_convert};
use crate::mir::{Imm, MBlock, MGuard, MInst, Reg, RegClass};
use crate::test_support::br;

/// Two nested loops: `k = 7` is passed around both unchanged (`k2 = add k, 0` on the
/// inner back edge), so it is constant, and so is the inner loop's `k == 0` guard of a
/// trap (false: the trap goes); the counters are not.
const NESTED: &str = "
machine function @nested export {
block0:
    v0 = copy r3
    v1 = movi 7
    br block1(r0, r0, v1)
block1(v2, v3, v4):
    pv5, p0 = cmp.lt v2, v0
    (pv5) br block2
    br block5
block2:
    br block3(r0, v3, v4)
block3(v6, v7, v8):
    pv9, p0 = cmp.lt v6, 3
    (pv9) br block4
    br block6
block4:
    pv10, p0 = cmp.eq v8, 0
    (pv10) trap 65537
    v11 = rem v6, v8
    v12 = add v7, v11
    v13 = add v6, 1
    v14 = add v8, 0
    br block3(v13, v12, v14)
block6:
    v15 = add v2, 1
    br block1(v15, v7, v8)
block5:
    r3 = copy v3
    r4 = copy v4
    ret uses[r3 r4]
}
";

#[test]
fn constants_flow_around_nested_loops() {
    let mf = parse(NESTED);
    let a = analyze(&mf, &PcpOptions::default());
    for (n, what) in [(4, "outer k"), (8, "inner k"), (14, "k + 0")] {
        assert_eq!(a.value(v(n)), Lat::Const(7), "{what}");
    }
    for (n, what) in [(2, "i"), (6, "j"), (3, "acc")] {
        assert_eq!(a.value(v(n)), Lat::Bottom, "{what}");
    }
    assert_eq!(a.value(v(10)), Lat::FALSE, "k == 0");
    let inputs: Vec<Vec<u64>> = (0..5).map(|n| vec![n]).collect();
    let out = rewrite_keeps_results(&mf, &PcpOptions::default(), &inputs);
    let text = out.to_string();
    assert!(!text.contains("trap"), "{text}");
    assert!(
        text.contains("block1(v2, v3):"),
        "k is no parameter any more:\n{text}"
    );
    assert_eq!(run(&out, &[2]), Ok(vec![6, 7]));
}

/// A parameter given different constants on two executable edges is ⊥; one whose
/// second edge no path takes keeps the first's constant (the branch decided in a
/// hyperblock of two paths, one of them infeasible).
const EDGES: &str = "
machine function @edges export {
block0:
    v0 = copy r3
    pv1, pv2 = cmp.gt.unc v0, 0
    (pv1) v3 = movi 5
    (pv2) v4 = movi 5
    v5 = psi pv1: v3, pv2: v4
    pv6, p0 = cmp.eq v5, 5
    (pv1) br block1
    (!pv6) br block2
    br block3(v5)
block1:
    br block3(v0)
block2:
    br block3(r0)
block3(v7):
    r3 = copy v7
    ret uses[r3]
}
";

#[test]
fn only_edges_some_path_takes_meet() {
    let mf = parse(EDGES);
    let a = analyze(&mf, &PcpOptions::default());
    assert_eq!(a.value(v(5)), Lat::Const(5));
    assert!(!a.reached(MBlock::new(2)), "(!pv6) br block2 never taken");
    assert!(a.reached(MBlock::new(1)));
    assert_eq!(a.value(v(7)), Lat::Bottom, "v0 from block1, 5 from block0");
    let mut out = mf.clone();
    let stats = propagate_constants(&mut out, &PcpOptions::default());
    out.verify(Phase::Ssa).unwrap();
    assert!(stats.branches_decided >= 1, "{stats:?}");
    assert!(!out.layout.contains(&MBlock::new(2)), "{out}");
    for x in [-3i64, 0, 4] {
        assert_eq!(run(&out, &[x as u64]), run(&mf, &[x as u64]));
    }
}

/// The fallback above the cap: the running example with at most two paths is
/// analysed without them, finds less, and rewrites soundly.
#[test]
fn above_the_cap_the_pass_goes_without_paths() {
    let mf = parse(RUNNING);
    let capped = PcpOptions {
        mode: Mode::Full,
        max_paths: 2,
    };
    let a = analyze(&mf, &capped);
    assert!(a.facts[&mf.layout[0]].fallback);
    assert_eq!(a.facts[&mf.layout[0]].paths, 1);
    assert_eq!(a.value(v(32)), Lat::Bottom, "z3 needs the paths");
    assert_eq!(a.value(v(2)), Lat::Const(3));
    let mut out = mf.clone();
    let stats = propagate_constants(&mut out, &capped);
    assert_eq!(stats.fallbacks, 1);
    rewrite_keeps_results(&mf, &capped, &running_inputs());
    // basic CP has six paths: a cap of five is exceeded, six is not
    for (cap, fallback) in [(5, true), (6, false)] {
        let o = PcpOptions {
            mode: Mode::Basic,
            max_paths: cap,
        };
        assert_eq!(
            analyze(&mf, &o).facts[&mf.layout[0]].fallback,
            fallback,
            "{cap}"
        );
    }
}

/// A random function with a loop: an entry, a header `H(i, acc, k)` running while
/// `i < 3`, a body of random blocks in topological order (random operations and
/// guarded traps, forward jumps and two-way branches through edge blocks that pass
/// one argument), a latch passing `i + 1`, a value and `k` or another value back, and
/// an exit returning `acc` and `k`. Only traps are guarded: a guarded definition read
/// where its guard failed in a later iteration holds the earlier iteration's value in
/// the interpreter, which hides the undefined read that any result refines (the
/// guarded definitions come from if-conversion here, which only reads them where they
/// are defined).
fn random_loop_function(rng: &mut Rng) -> MachFunction {
    let mut mf = MachFunction::new("f", vliw_ir::Linkage::Export);
    let n = 2 + rng.below(5);
    let entry = mf.new_block();
    let header = mf.new_block();
    let body: Vec<MBlock> = (0..n).map(|_| mf.new_block()).collect();
    let exit = mf.new_block();
    let mut layout = vec![entry, header];
    let a = mf.new_vreg(RegClass::Gpr);
    let b = mf.new_vreg(RegClass::Gpr);
    let c = mf.new_vreg(RegClass::Gpr);
    let (i, acc, k) = (
        mf.new_vreg(RegClass::Gpr),
        mf.new_vreg(RegClass::Gpr),
        mf.new_vreg(RegClass::Gpr),
    );
    mf.set_block(
        entry,
        vec![
            MInst::copy(a.into(), Reg::gpr(3)),
            MInst::copy(b.into(), Reg::gpr(4)),
            MInst::op(Opcode::Movi, &[c.into()], &[], Imm::Const(rng.small())),
            br(header, &[Reg::ZERO, c.into(), c.into()]),
        ],
    );
    mf.blocks[header].params = vec![i, acc, k];
    let p = mf.new_vreg(RegClass::Pred);
    mf.set_block(
        header,
        vec![
            MInst::op(
                Opcode::CmpLtI,
                &[p.into(), Reg::P0],
                &[i.into()],
                Imm::Const(3),
            ),
            br(body[0], &[]).with_guard(MGuard::new(p.into(), false)),
            br(exit, &[]),
        ],
    );
    // what every body block may read: the header's and the entry's values
    let dominating: Vec<Reg> = [a, b, c, i, acc, k].iter().map(|&v| v.into()).collect();
    let params: Vec<Option<crate::mir::VReg>> = (0..n)
        .map(|j| (j > 0).then(|| mf.new_vreg(RegClass::Gpr)))
        .collect();
    for j in 0..n {
        let blk = body[j];
        layout.push(blk);
        if let Some(pj) = params[j] {
            mf.blocks[blk].params = vec![pj];
        }
        let mut insts = Vec::new();
        let mut builder = Builder {
            mf: &mut mf,
            gprs: dominating
                .iter()
                .copied()
                .chain(params[j].map(Reg::from))
                .collect(),
            preds: vec![Reg::P0],
            conditions: 0,
            psis: false,
            guards: false,
        };
        for _ in 0..rng.below(8) {
            if let Some(inst) = builder.random_op(rng) {
                insts.push(inst);
            }
        }
        let gprs = builder.gprs.clone();
        let preds = builder.preds.clone();
        if j + 1 == n {
            // the latch
            let i1 = mf.new_vreg(RegClass::Gpr);
            insts.push(MInst::op(
                Opcode::AddI,
                &[i1.into()],
                &[i.into()],
                Imm::Const(1),
            ));
            let acc1 = rng.pick(&gprs);
            let k1 = if rng.chance(60) {
                k.into()
            } else {
                rng.pick(&gprs)
            };
            insts.push(br(header, &[i1.into(), acc1, k1]));
        } else {
            let next = body[j + 1];
            let arg = rng.pick(&gprs);
            let far = (j + 2 < n && rng.chance(60)).then(|| j + 2 + rng.below(n - j - 2));
            match far {
                None => insts.push(br(next, &[arg])),
                Some(t) => {
                    let cond = if preds.len() > 1 && rng.chance(40) {
                        rng.pick(&preds[1..])
                    } else {
                        let q = mf.new_vreg(RegClass::Pred);
                        let x = rng.pick(&gprs);
                        insts.push(MInst::op(
                            Opcode::CmpLtI,
                            &[q.into(), Reg::P0],
                            &[x],
                            Imm::Const(rng.small()),
                        ));
                        q.into()
                    };
                    let (e1, e2) = (mf.new_block(), mf.new_block());
                    let other = rng.pick(&gprs);
                    mf.set_block(e1, vec![br(body[t], &[other])]);
                    mf.set_block(e2, vec![br(next, &[arg])]);
                    insts.push(br(e1, &[]).with_guard(MGuard::new(cond, rng.chance(30))));
                    insts.push(br(e2, &[]));
                    layout.extend([e1, e2]);
                }
            }
        }
        mf.set_block(blk, insts);
    }
    let mut ret = MInst::op(Opcode::Ret, &[], &[], Imm::None);
    ret.implicit_uses = vec![crate::mir::PReg::gpr(3), crate::mir::PReg::gpr(4)];
    mf.set_block(
        exit,
        vec![
            MInst::copy(Reg::gpr(3), acc.into()),
            MInst::copy(Reg::gpr(4), k.into()),
            ret,
        ],
    );
    layout.push(exit);
    mf.layout = layout;
    mf
}

/// Random functions with a loop, as they are and if-converted (every region the cost
/// model weighs taken), through the pass in both versions and with a small cap, then
/// ψ lowering and the SSA allocator: the interpreter's results do not change.
#[test]
fn random_loops_keep_their_values() {
    let machine = MachineConfig {
        taken_branch_penalty: 100,
        ..MachineConfig::default()
    };
    let inputs = all_inputs();
    let (mut checked, mut regions, mut constants, mut removed) = (0, 0, 0, 0);
    for seed in 1..=250u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e3779b97f4a7c15) | 1);
        let mf = random_loop_function(&mut rng);
        mf.verify(Phase::Ssa)
            .unwrap_or_else(|e| panic!("seed {seed}: the generator's function: {e}\n{mf}"));
        let mut converted = mf.clone();
        regions += if_convert(&mut converted, &machine, &Limits::default()).regions;
        converted.verify(Phase::Ssa).unwrap();
        for (what, input) in [("plain", &mf), ("if-converted", &converted)] {
            for opts in [
                PcpOptions::default(),
                PcpOptions {
                    mode: Mode::Basic,
                    ..PcpOptions::default()
                },
                PcpOptions {
                    mode: Mode::Full,
                    max_paths: 3,
                },
            ] {
                let mut out = input.clone();
                let stats = propagate_constants(&mut out, &opts);
                constants += stats.constants;
                removed += stats.off_predicated_removed;
                out.verify(Phase::Ssa)
                    .unwrap_or_else(|e| panic!("seed {seed} {what} {opts:?}: {e}\n{input}\n{out}"));
                let mut lowered = out.clone();
                crate::psi::lower_to_selects(&mut lowered);
                lowered.verify(Phase::Ssa).unwrap();
                let mut allocated = lowered.clone();
                crate::ssa_regalloc::allocate(&mut allocated, &crate::Options::default())
                    .unwrap_or_else(|e| panic!("seed {seed} {what}: {e}\n{lowered}"));
                for args in &inputs {
                    let want = run(input, args);
                    if !comparable(&want) {
                        continue;
                    }
                    let mut runs = vec![
                        ("pcp", run(&out, args)),
                        ("allocated", run(&allocated, args)),
                    ];
                    if what == "if-converted" {
                        // ψs made by if-conversion cover their joins: `sel` chains hold
                        runs.push(("sel", run(&lowered, args)));
                    }
                    for (stage, got) in runs {
                        assert_eq!(
                            got, want,
                            "seed {seed} {what} {opts:?} {stage} {args:?}:\n{input}\n{out}"
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    eprintln!(
        "{regions} regions converted, {constants} constants, {removed} off-predicated \
         operations removed, {checked} runs compared"
    );
    assert!(
        regions > 100 && constants > 100 && removed > 20,
        "{regions} {constants} {removed}"
    );
}
