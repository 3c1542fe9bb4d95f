//! Randomized checks of if-conversion: random acyclic functions in machine SSA (nested
//! and unstructured branches, joins with parameters, guarded divisions and traps,
//! panic paths that become side exits),
//! interpreted before and after `if_convert` and `psi::lower_to_selects` on random
//! arguments, under each way of promoting ψ guards and both shapes of ψs, and once more after the SSA
//! allocator. Every promotion the PPG allows is also checked against condition 2 of
//! 003 §3.1 on the enumerated paths (`paths`): a promoted guard stays inside the union
//! of its own edge's paths and those of the arguments to its right.

use vliw_isa::{MachineConfig, Opcode};

use super::paths::Paths;
use super::ppg::RegionPpg;
use super::region::find_region;
use super::*;
use crate::interp::Interpreter;
use crate::mir::{Imm, MBlock, MGuard, MInst, Phase, RegClass, VReg};
use crate::test_support::{br, func};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545f4914f6cdd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// A random acyclic function `f(r3, r4, r5)`: blocks in topological order, each but
/// the entry with one parameter, a few operations on what it may read, and a jump or a
/// two-way branch forward (block `i` always reaches `i + 1`, so every block is
/// reachable and reaches the last, which returns). A branch's edges pass their
/// arguments through edge blocks of their own, as instruction selection makes them.
fn random_function(rng: &mut Rng) -> MachFunction {
    let n = 3 + rng.below(8);
    let mut exits: Vec<(usize, Option<usize>)> = Vec::new();
    for i in 0..n - 1 {
        let second = (i + 2 < n && rng.chance(60)).then(|| i + 2 + rng.below(n - i - 2));
        exits.push((i + 1, second));
    }
    let (mut mf, blocks) = func(n);
    let args: Vec<VReg> = (0..3).map(|_| mf.new_vreg(RegClass::Gpr)).collect();
    let params: Vec<Option<VReg>> = (0..n)
        .map(|i| (i > 0).then(|| mf.new_vreg(RegClass::Gpr)))
        .collect();
    let mut layout = Vec::new();
    for i in 0..n {
        let b = blocks[i];
        layout.push(b);
        let mut body = Vec::new();
        if i == 0 {
            for (k, &a) in args.iter().enumerate() {
                body.push(MInst::copy(a.into(), Reg::gpr(3 + k as u8)));
            }
        }
        if let Some(p) = params[i] {
            mf.blocks[b].params = vec![p];
        }
        let mut avail: Vec<VReg> = args.clone();
        avail.extend(params[i]);
        for _ in 0..rng.below(4) {
            let d = mf.new_vreg(RegClass::Gpr);
            let x = avail[rng.below(avail.len())];
            let y = avail[rng.below(avail.len())];
            let op = match rng.below(7) {
                0 => MInst::op(Opcode::Add, &[d.into()], &[x.into(), y.into()], Imm::None),
                1 => MInst::op(Opcode::Sub, &[d.into()], &[x.into(), y.into()], Imm::None),
                2 => MInst::op(Opcode::Mul, &[d.into()], &[x.into(), y.into()], Imm::None),
                3 => MInst::op(Opcode::Xor, &[d.into()], &[x.into(), y.into()], Imm::None),
                // a division keeps its guard; its divisor made odd, so never zero
                4 => {
                    let odd = mf.new_vreg(RegClass::Gpr);
                    body.push(MInst::op(
                        Opcode::OrI,
                        &[odd.into()],
                        &[y.into()],
                        Imm::Const(1),
                    ));
                    MInst::op(Opcode::Div, &[d.into()], &[x.into(), odd.into()], Imm::None)
                }
                // a conditional trap that never fires (x == x + 1 is false)
                5 => {
                    let (t, p) = (mf.new_vreg(RegClass::Gpr), mf.new_vreg(RegClass::Pred));
                    body.push(MInst::op(
                        Opcode::AddI,
                        &[t.into()],
                        &[x.into()],
                        Imm::Const(1),
                    ));
                    body.push(MInst::op(
                        Opcode::CmpEq,
                        &[p.into(), Reg::P0],
                        &[x.into(), t.into()],
                        Imm::None,
                    ));
                    body.push(
                        MInst::op(Opcode::Trap, &[], &[], Imm::Const(9))
                            .with_guard(MGuard::new(p.into(), false)),
                    );
                    MInst::op(Opcode::AddI, &[d.into()], &[y.into()], Imm::Const(3))
                }
                _ => MInst::op(
                    Opcode::AddI,
                    &[d.into()],
                    &[x.into()],
                    Imm::Const(rng.below(9) as i64 - 4),
                ),
            };
            body.push(op);
            avail.push(d);
        }
        let pick = |rng: &mut Rng| avail[rng.below(avail.len())];
        if i == n - 1 {
            let r = pick(rng);
            body.push(MInst::copy(Reg::gpr(3), r.into()));
            let mut ret = MInst::op(Opcode::Ret, &[], &[], Imm::None);
            ret.implicit_uses = vec![crate::mir::PReg::gpr(3)];
            body.push(ret);
        } else {
            let (a, second) = exits[i];
            let jump = |t: usize, rng: &mut Rng| br(blocks[t], &[pick(rng).into()]);
            match second {
                None => body.push(jump(a, rng)),
                Some(c) => {
                    let p = mf.new_vreg(RegClass::Pred);
                    let (x, y) = (pick(rng), pick(rng));
                    let cmp = [Opcode::CmpLt, Opcode::CmpEq, Opcode::CmpGtu][rng.below(3)];
                    body.push(MInst::op(
                        cmp,
                        &[p.into(), Reg::P0],
                        &[x.into(), y.into()],
                        Imm::None,
                    ));
                    let (e1, e2) = (mf.new_block(), mf.new_block());
                    // sometimes a panic path instead: a cold block that traps, which
                    // stays a side exit of the converted region
                    let j1 = if rng.chance(25) {
                        MInst::op(Opcode::Trap, &[], &[], Imm::Const(7))
                    } else {
                        jump(c, rng)
                    };
                    mf.set_block(e1, vec![j1]);
                    let j2 = jump(a, rng);
                    mf.set_block(e2, vec![j2]);
                    let negated = rng.chance(30);
                    body.push(br(e1, &[]).with_guard(MGuard::new(p.into(), negated)));
                    layout.extend([e1, e2]);
                    // sometimes a multi-way branch: a second guarded branch before
                    // the final jump (cut into a chain by `chains::split`)
                    if i + 3 < n && rng.chance(30) {
                        let q = mf.new_vreg(RegClass::Pred);
                        let (x, y) = (pick(rng), pick(rng));
                        body.insert(
                            body.len() - 1,
                            MInst::op(
                                Opcode::CmpLt,
                                &[q.into(), Reg::P0],
                                &[y.into(), x.into()],
                                Imm::None,
                            ),
                        );
                        let e3 = mf.new_block();
                        let d = i + 2 + rng.below(n - i - 2);
                        let j3 = jump(d, rng);
                        mf.set_block(e3, vec![j3]);
                        body.push(br(e3, &[]).with_guard(MGuard::new(q.into(), false)));
                        layout.push(e3);
                    }
                    body.push(br(e2, &[]));
                }
            }
        }
        mf.set_block(b, body);
    }
    mf.layout = layout;
    mf
}

fn run(mf: &MachFunction, args: &[u64]) -> Result<Vec<u64>, String> {
    Interpreter::new([mf])
        .call("f", args)
        .map_err(|e| e.to_string())
}

#[test]
fn random_functions_keep_their_values() {
    let machine = MachineConfig::default();
    let (mut converted, mut checked, mut side_exits, mut cuts) = (0, 0, 0, 0);
    let (mut folded, mut reordered, mut copies_made) = (0, 0, 0);
    let (mut inlines, mut projections, mut disjoint_shared, mut min_max) = (0, 0, 0, 0);
    let (mut reassociated, mut two_valued, mut compares) = (0, 0, 0);
    for seed in 1..=300u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e3779b97f4a7c15) | 1);
        let mf = random_function(&mut rng);
        mf.verify(Phase::Ssa)
            .unwrap_or_else(|e| panic!("seed {seed}: the generator's function:\n{e}\n{mf}"));
        let inputs: Vec<Vec<u64>> = (0..6)
            .map(|_| (0..3).map(|_| (rng.below(21) as i64 - 10) as u64).collect())
            .collect();
        let ways = [Promotion::Off, Promotion::First, Promotion::Ppg]
            .into_iter()
            .flat_map(|p| [(p, true), (p, false)]);
        for (promotion, psi_tree) in ways {
            let limits = Limits {
                promotion,
                psi_tree,
                ..Limits::default()
            };
            let mut out = mf.clone();
            // every region the cost model would weigh is taken, to test the conversion
            let always = MachineConfig {
                taken_branch_penalty: 100,
                ..machine.clone()
            };
            let stats = if_convert(&mut out, &always, &limits);
            converted += stats.regions;
            side_exits += stats.side_exits;
            cuts += stats.chain_cuts;
            out.verify(Phase::Ssa).unwrap_or_else(|e| {
                panic!("seed {seed} {promotion:?} {psi_tree}:\n{e}\n{mf}\n{out}")
            });
            let mut lowered = out.clone();
            crate::psi::reduce(&mut lowered);
            crate::psi::lower_to_selects(&mut lowered);
            lowered.verify(Phase::Ssa).unwrap();
            // ψ inlining, reduction and projection, each step verified and run below
            let mut inlined = out.clone();
            inlines += crate::psi::inline(&mut inlined);
            inlined.verify(Phase::Ssa).unwrap();
            let mut simplified = inlined.clone();
            crate::psi::reduce(&mut simplified);
            two_valued += crate::psi::two_values(&mut simplified);
            simplified
                .verify(Phase::Ssa)
                .unwrap_or_else(|e| panic!("seed {seed} two values:\n{e}\n{out}\n{simplified}"));
            min_max += crate::psi::select_min_max(&mut simplified);
            compares += crate::psi::compares_through_psis(&mut simplified, &machine);
            projections += crate::psi::project(&mut simplified);
            simplified
                .verify(Phase::Ssa)
                .unwrap_or_else(|e| panic!("seed {seed} simplified:\n{e}\n{out}\n{simplified}"));
            let mut simplified_sel = simplified.clone();
            crate::psi::lower_to_selects(&mut simplified_sel);
            reassociated += crate::reassoc::reassociate(&mut simplified_sel, &machine).trees;
            simplified_sel.verify(Phase::Ssa).unwrap();
            let mut allocated = lowered.clone();
            let mut st = crate::ssa_regalloc::Stats::default();
            crate::ssa_regalloc::allocate_ssa(&mut allocated, &mut st).unwrap();
            disjoint_shared += st.disjoint_shared;
            // out of Psi-SSA by predicated copies, with and without each §4.6
            // improvement, then the SSA allocator, which must take it whole
            let mut copies = Vec::new();
            let ways = [
                (true, true, false, false),
                (false, true, false, false),
                (true, false, false, false),
                (true, true, true, false),
                (true, true, true, true),
            ];
            for (fold, reorder, sel_where_cheaper, simplify) in ways {
                let mut c = if simplify {
                    simplified.clone()
                } else {
                    out.clone()
                };
                crate::psi::reduce(&mut c);
                if sel_where_cheaper && !simplify {
                    // the default pipeline's order: reduction, then two-valued ψs
                    two_valued += crate::psi::two_values(&mut c);
                }
                let st = crate::psi::out_of_psi_ssa(
                    &mut c,
                    crate::psi::CopyOptions {
                        fold,
                        reorder,
                        sel_where_cheaper,
                    },
                );
                folded += st.folded;
                reordered += st.reordered;
                copies_made += st.normalize_copies + st.congruence_copies;
                c.verify(Phase::Ssa).unwrap_or_else(|e| {
                    panic!("seed {seed} copies {fold} {reorder}:\n{e}\n{out}\n{c}")
                });
                let mut a = c.clone();
                let mut st = crate::ssa_regalloc::Stats::default();
                crate::ssa_regalloc::allocate_ssa(&mut a, &mut st).unwrap_or_else(|e| {
                    panic!("seed {seed} copies {fold} {reorder}: allocation: {e}\n{c}")
                });
                disjoint_shared += st.disjoint_shared;
                copies.push(c);
                copies.push(a);
            }
            for args in &inputs {
                let want = run(&mf, args);
                let mut all = vec![
                    ("ψ", &out),
                    ("sel", &lowered),
                    ("allocated", &allocated),
                    ("inlined", &inlined),
                    ("simplified", &simplified),
                    ("simplified sel", &simplified_sel),
                ];
                all.extend(copies.iter().map(|c| ("predicated copies", c)));
                for (what, f) in all {
                    assert_eq!(
                        run(f, args),
                        want,
                        "seed {seed} {promotion:?} tree {psi_tree} {what} {args:?}:\n{mf}\n{f}"
                    );
                    checked += 1;
                }
            }
        }
    }
    eprintln!("{converted} regions converted ({side_exits} side exits), {checked} runs compared");
    eprintln!("predicated copies: {folded} folded, {reordered} reordered, {copies_made} copies");
    eprintln!(
        "ψ inlining: {inlines} arguments; projection: {projections} reads; {min_max} min/max; \
         {reassociated} sums reassociated; {two_valued} two-valued ψs; {compares} compares \
         of ψs split"
    );
    // (rare here: a guarded definition's value is mostly read at once or folded into
    // a predicated copy; `ssa_regalloc::tests` has the case where it is not)
    eprintln!("allocation: {disjoint_shared} registers shared under disjoint guards");
    assert!(folded > 100 && reordered > 10 && copies_made > 100);
    assert!(
        inlines > 50 && projections > 20,
        "{inlines} inlined, {projections} projected"
    );
    assert!(two_valued > 100, "only {two_valued} two-valued ψs");
    assert!(compares >= 5, "only {compares} compares of ψs split");
    assert!(side_exits > 50, "only {side_exits} side exits");
    assert!(cuts > 50, "only {cuts} multi-way branches taken apart");
    assert!(converted > 300, "only {converted} regions converted");
    assert!(checked > 0);
}

/// The PPG's answers to promotion's question (is the join covered by the candidate and
/// the guards to its right?) against the paths: never yes when the paths say no.
#[test]
fn ppg_covers_agree_with_the_paths() {
    let (mut asked, mut yes) = (0, 0);
    for seed in 1..=300u64 {
        let mut rng = Rng(seed.wrapping_mul(0x2545f4914f6cdd1d) | 1);
        let mf = random_function(&mut rng);
        let cfg = crate::ssa_view::cfg_of(&mf);
        let dom = vliw_ssa::DomTree::compute(&cfg);
        let pdom = vliw_ssa::PostDomTree::compute(&cfg);
        let mut preds: rustc_hash::FxHashMap<MBlock, Vec<MBlock>> =
            mf.layout.iter().map(|&b| (b, Vec::new())).collect();
        for &b in &mf.layout {
            for t in cfg.succs(crate::ssa_view::block(b)) {
                preds
                    .entry(crate::ssa_view::mblock(*t))
                    .or_default()
                    .push(b);
            }
        }
        for &e in &mf.layout {
            let in_layout = mf.layout.iter().copied().collect();
            let Ok(region) = find_region(
                &mf,
                e,
                &dom,
                &pdom,
                &preds,
                &Default::default(),
                &in_layout,
                16,
            ) else {
                continue;
            };
            let (Some(ppg), Some(paths)) = (RegionPpg::build(&region), Paths::enumerate(&region))
            else {
                continue;
            };
            // every block as a join, every subset of the edges into it (by a mask)
            for &join in region.blocks.iter().chain([&region.exit]) {
                let into: Vec<(MBlock, MBlock)> = region
                    .blocks
                    .iter()
                    .flat_map(|&b| region.exits[&b].targets().map(move |t| (b, t)))
                    .filter(|&(_, t)| t == join)
                    .collect();
                for candidate in &region.blocks {
                    for mask in 0u32..(1 << into.len().min(4)) {
                        let chosen: Vec<(MBlock, MBlock)> = into
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| mask & (1 << i) != 0)
                            .map(|(_, &e)| e)
                            .collect();
                        let qs: Vec<_> = chosen
                            .iter()
                            .map(|&(f, t)| ppg.edge(f, t).unwrap())
                            .chain([ppg.block(*candidate).unwrap()])
                            .collect();
                        let covered = ppg.covers(ppg.block(join).unwrap(), &qs);
                        let union = chosen
                            .iter()
                            .fold(paths.of_block(*candidate), |u, &(f, t)| {
                                u | paths.of_edge(f, t)
                            });
                        let truth = paths.of_block(join) & !union == 0;
                        asked += 1;
                        yes += usize::from(covered);
                        assert!(
                            !covered || truth,
                            "seed {seed}: {join} by {candidate} and {chosen:?}\n{mf}"
                        );
                    }
                }
            }
        }
    }
    assert!(asked > 1000 && yes > 100, "{asked} asked, {yes} yes");
}

#[test]
fn multi_way_branches_no_region_takes_are_joined_back() {
    // with no region allowed, the chains cut before the rounds are joined again: the
    // function comes out as it went in
    let limits = Limits {
        max_ops: 0,
        ..Limits::default()
    };
    let mut chains = 0;
    for seed in 1..=300u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e3779b97f4a7c15) | 1);
        let mf = random_function(&mut rng);
        let mut out = mf.clone();
        let stats = if_convert(&mut out, &MachineConfig::default(), &limits);
        assert_eq!(stats.regions, 0);
        assert_eq!(stats.chain_cuts, 0);
        assert_eq!(out.to_string(), mf.to_string(), "seed {seed}");
        chains += usize::from(out.blocks.len() > mf.blocks.len());
    }
    assert!(
        chains > 20,
        "only {chains} functions with a multi-way branch"
    );
}

/// `tests/mir/if-convert-loop-body.mir`: `classify`'s loop body after sink-common.
const LOOP_BODY: &str = include_str!("../../../../tests/mir/if-convert-loop-body.mir");

#[test]
fn a_loop_body_is_converted_for_pipelining_only_with_if_convert_loops() {
    let text = LOOP_BODY;
    let start = text.find("machine function").unwrap();
    let end = text.find("\n}\n").unwrap() + 3;
    let mf = MachFunction::parse(&text[start..end]).unwrap();
    let machine = MachineConfig::default();
    let run = |loop_bodies: bool| {
        let mut out = mf.clone();
        let limits = Limits {
            loop_bodies,
            ..Limits::default()
        };
        let stats = if_convert(&mut out, &machine, &limits);
        out.verify(Phase::Ssa).unwrap();
        (stats, out)
    };
    let (on, converted) = run(true);
    assert_eq!(on.regions, 1, "{on:?}");
    assert_eq!(on.blocks, 19, "{on:?}");
    let (off, _) = run(false);
    assert_eq!(off.regions, 0, "{off:?}");
    // the converted loop computes what the branches did
    for k in [1i64, -1, 3, 0] {
        let call = |f: &MachFunction| Interpreter::new([f]).call("classify", &[k as u64]);
        assert_eq!(
            call(&mf).unwrap(),
            call(&converted).unwrap(),
            "classify({k})"
        );
    }
}
