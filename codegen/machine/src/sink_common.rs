//! Sinking common code from predecessors (`sink-common`) on machine SSA, before
//! if-conversion: operations that every predecessor of a join performs alike move
//! into the join, done once on the join's parameters (LLVM's
//! `SinkCommonCodeFromPredecessors` in SimplifyCFG, GCC's tail merging).
//!
//! Why, on a predicated machine: MIR's jump threading copies `counts[class] += 1`
//! into every arm of `classify`'s decision tree, where `class` is a constant, so each
//! arm loads, adds and stores its own counter. As branches that is 8 paths of a load
//! and a store each; if-converted it would be 8 guarded loads and 8 guarded stores on
//! 2 memory units. Sunk into the joins, the arms only choose an address and a value,
//! which if-conversion turns into a few guarded moves, and one load, one addition and
//! one store remain.
//!
//! **The joins.** A block `J` with at least two predecessors, each of which has `J`
//! as its only successor and ends in `br J(args)`; not the entry, and not a loop
//! header (no predecessor is dominated by `J`): then a register that every predecessor
//! reads and none defines is defined in a block that dominates every predecessor and
//! is not `J`, so it dominates `J` too.
//!
//! **A group.** One operation from each predecessor, alike: the same opcode, compare
//! type, immediate and number of operands, unguarded, not a control transfer, call,
//! atomic or ψ, writing only virtual general registers and reading only those and
//! `r0`, `sp`, `tp`. Loads and stores may differ in their constant offset: each
//! predecessor then computes its address (`add a = base, offset`, shared by the
//! accesses of one predecessor to one place) and the sunk access reads the address
//! parameter at offset 0. Each operation must be movable to the end of its block:
//! nothing after it reads what it writes (but the final jump), no store, call or other
//! control operation follows a load, and no load, store or such follows a store. What
//! it writes goes only to the jump's arguments, at the same positions in every
//! predecessor: those parameters of `J` become the sunk operation's results.
//!
//! Not a join of a path that calls and one that does not (the calling path, within
//! four blocks of one predecessor before the join, is the rare one: a vector's grow;
//! the hot path keeps its code, so that region scheduling can move it above the test
//! that chose the path: `state_machine`'s pushes).
//!
//! **The cost.** An operand that differs between the predecessors becomes a new
//! parameter of `J` (one the predecessors already pass alike is reused), which costs a
//! copy or a ψ; the parameters the group's results replace go. A group is sunk when it
//! adds no parameter net, one for a load, or two for a store (a store needs its value
//! and its address; the addition and the load that computed them then take parameters
//! away again): an operation that only computes is not worth a copy on each path
//! (`binary_search`'s accumulator, added on its two paths, kept tail duplication's
//! copies of the latch). Groups are sunk one by one, the operations nearest the jump first,
//! until no group is left; a sunk operation goes before those sunk earlier, which came
//! from later in the predecessors.
//!
//! The semantics stay: each path through a predecessor ran its operation and then went
//! to `J`; now it passes the operands instead, and `J` runs the operation on them
//! before anything else. Memory accesses keep their order, since each moved only past
//! operations it commutes with.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use cranelift_entity::EntityRef;
use vliw_isa::{Format, Opcode, Unit};
use vliw_ssa::DomTree;

use crate::mir::{Imm, InstId, MBlock, MInst, MOp, MachFunction, Reg, RegClass, VReg};
use crate::ssa_view::{block, block_preds, cfg_of};

/// The most operations sunk in one function.
const MAX_SUNK: usize = 512;

/// What the pass did (the `stats` counters `sink-common.*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SinkStats {
    /// Joins that received at least one operation.
    pub joins: usize,
    /// Operations sunk (one per group).
    pub sunk: usize,
    /// Operations removed from predecessors (the groups' sizes).
    pub removed: usize,
    /// Address computations added to predecessors (accesses at differing offsets).
    pub addresses: usize,
}

/// Sinks the operations common to the predecessors of every join of `mf`.
pub fn sink_common_code(mf: &mut MachFunction) -> SinkStats {
    let mut stats = SinkStats::default();
    let cfg = cfg_of(mf);
    let dom = DomTree::compute(&cfg);
    let preds = block_preds(mf, &cfg);
    let Some(&entry) = mf.layout.first() else {
        return stats;
    };
    // the block that defines each virtual register (parameters included)
    let mut def_block: HashMap<Reg, MBlock> = HashMap::default();
    for &b in &mf.layout {
        for &p in &mf.blocks[b].params {
            def_block.insert(p.into(), b);
        }
        for inst in mf.block_insts(b) {
            for d in &inst.defs {
                def_block.insert(*d, b);
            }
        }
    }
    let mut helpers: HashSet<InstId> = HashSet::default();
    let mut addresses: HashMap<(MBlock, Reg, i64), Reg> = HashMap::default();
    // the parameters that sunk operations' results replaced: renamed in their join at
    // once, in the rest of the function once at the end (a replaced parameter is gone
    // from its join and its predecessors' jumps, and a result is never a parameter: no
    // chains)
    let mut renamed: HashMap<Reg, Reg> = HashMap::default();
    for j in mf.layout.clone() {
        let ps = &preds[j.index()];
        if j == entry || ps.len() < 2 {
            continue;
        }
        let distinct: HashSet<MBlock> = ps.iter().copied().collect();
        if distinct.len() != ps.len()
            || ps.iter().any(|&p| dom.dominates(block(j), block(p)))
            || !ps
                .iter()
                .all(|&p| cfg.succs(block(p)) == [block(j)] && ends_in_jump_to(mf, p, j))
        {
            continue;
        }
        // a join of a path that calls (a vector's grow, a landing pad's way back) and
        // one that does not stays apart: the calling path is the rare one, and sunk
        // into the join its common code would leave the other path a join to run
        // through, which region scheduling cannot hoist out of
        let calling = ps
            .iter()
            .filter(|&&p| calls_on_way_in(mf, &preds, p, WAY_IN))
            .count();
        if calling > 0 && calling < ps.len() {
            continue;
        }
        let mut any = false;
        while stats.sunk < MAX_SUNK {
            let Some(group) = find_group(mf, ps, j, &def_block, &helpers, &addresses) else {
                break;
            };
            sink(
                mf,
                ps,
                j,
                group,
                &mut def_block,
                &mut helpers,
                &mut addresses,
                &mut renamed,
                &mut stats,
            );
            any = true;
        }
        stats.joins += usize::from(any);
    }
    if !renamed.is_empty() {
        for b in mf.layout.clone() {
            for id in mf.block_inst_ids(b).to_vec() {
                mf.inst_mut(id)
                    .rename_uses(|r| renamed.get(&r).copied().unwrap_or(r));
            }
        }
    }
    stats
}

/// Whether every way into `p` calls: `p` calls, or each of its predecessors does or
/// is entered only that way, looking at most `depth` blocks back (the normal return
/// of a call and its landing pad joined after it both came from the call).
fn calls_on_way_in(mf: &MachFunction, preds: &[Vec<MBlock>], p: MBlock, depth: usize) -> bool {
    if mf
        .block_insts(p)
        .any(|i| i.is(Opcode::Call) || i.is(Opcode::Callr))
    {
        return true;
    }
    let ps = &preds[p.index()];
    depth > 0 && !ps.is_empty() && ps.iter().all(|&q| calls_on_way_in(mf, preds, q, depth - 1))
}

/// How many blocks back [`calls_on_way_in`] looks.
const WAY_IN: usize = 4;

/// Whether `p` ends in an unguarded `br j(...)` and branches nowhere else.
fn ends_in_jump_to(mf: &MachFunction, p: MBlock, j: MBlock) -> bool {
    let ids = mf.block_inst_ids(p);
    let Some((&last, rest)) = ids.split_last() else {
        return false;
    };
    let last = mf.inst(last);
    last.is(Opcode::Br)
        && last.guard.is_always()
        && last.imm == Imm::Block(j)
        && rest.iter().all(|&i| {
            let inst = mf.inst(i);
            inst.unwind.is_none() && !matches!(inst.op, MOp::Op(Opcode::Br | Opcode::Jr))
        })
}

/// How an operation touches memory, for moving it past others.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Memory {
    None,
    Load,
    Store,
    /// Calls, traps, system calls, atomics: ordered with every access.
    Barrier,
}

fn memory_of(inst: &MInst) -> Memory {
    match inst.op {
        MOp::Op(o) => match o.format() {
            Format::Load => Memory::Load,
            Format::Store => Memory::Store,
            _ if o.is_control() || o.unit() == Unit::Mem || !inst.implicit_defs.is_empty() => {
                Memory::Barrier
            }
            _ => Memory::None,
        },
        _ => Memory::None,
    }
}

/// Whether `inst` has the form a sunk operation may have (module documentation).
fn sinkable(mf: &MachFunction, inst: &MInst) -> bool {
    let MOp::Op(o) = inst.op else { return false };
    let fixed = [Reg::ZERO, Reg::SP, Reg::TP];
    let gpr = |r: &Reg| r.as_virtual().is_some_and(|v| mf.vregs[v] == RegClass::Gpr);
    !o.is_control()
        && (o.unit() != Unit::Mem || matches!(o.format(), Format::Load | Format::Store))
        && inst.guard.is_always()
        && inst.implicit_defs.is_empty()
        && inst.implicit_uses.is_empty()
        && inst.unwind.is_none()
        && inst.keep.is_none()
        && inst.args.is_empty()
        && inst.psi_guards.is_empty()
        && (!inst.defs.is_empty() || o.format() == Format::Store)
        && inst.defs.iter().all(gpr)
        && inst.uses.iter().all(|r| gpr(r) || fixed.contains(r))
        && matches!(inst.imm, Imm::None | Imm::Const(_) | Imm::Slot { .. })
}

/// The operations of `p` that could move to its end, by index, the last first.
fn movable(mf: &MachFunction, p: MBlock, helpers: &HashSet<InstId>) -> Vec<usize> {
    let ids = mf.block_inst_ids(p);
    let mut out = Vec::new();
    let mut read_later: HashSet<Reg> = HashSet::default();
    let (mut load_later, mut store_later) = (false, false);
    for i in (0..ids.len() - 1).rev() {
        let inst = mf.inst(ids[i]);
        let memory = memory_of(inst);
        let ordered = match memory {
            Memory::None => true,
            Memory::Load => !store_later,
            Memory::Store => !store_later && !load_later,
            Memory::Barrier => false,
        };
        if ordered
            && !helpers.contains(&ids[i])
            && sinkable(mf, inst)
            && !inst.defs.iter().any(|d| read_later.contains(d))
        {
            out.push(i);
        }
        read_later.extend(inst.all_uses());
        match memory {
            Memory::None => {}
            Memory::Load => load_later = true,
            Memory::Store | Memory::Barrier => store_later = true,
        }
    }
    out
}

/// One operation of each predecessor, alike, and what sinking them needs.
struct Group {
    /// Per predecessor: the index of its operation in its block.
    at: Vec<usize>,
    /// A load or store whose offsets differ: each predecessor passes its address.
    by_address: bool,
}

/// Whether `a` and `b` are alike (module documentation); `Some(by_address)`.
fn alike(a: &MInst, b: &MInst) -> Option<bool> {
    if a.op != b.op
        || a.ctype != b.ctype
        || a.long != b.long
        || a.defs.len() != b.defs.len()
        || a.uses.len() != b.uses.len()
    {
        return None;
    }
    if a.imm == b.imm {
        return Some(false);
    }
    let access = matches!(a.op, MOp::Op(o) if matches!(o.format(), Format::Load | Format::Store));
    (access && matches!((&a.imm, &b.imm), (Imm::Const(_), Imm::Const(_)))).then_some(true)
}

/// The positions of `r` among the arguments of `p`'s final jump.
fn arg_positions(mf: &MachFunction, p: MBlock, r: Reg) -> Vec<usize> {
    let jump = mf
        .last_inst(p)
        .expect("a join's predecessor ends in a jump");
    (0..jump.args.len())
        .filter(|&k| jump.args[k] == r)
        .collect()
}

/// The next group of `j`'s predecessors `ps` to sink, if any is worth it.
fn find_group(
    mf: &MachFunction,
    ps: &[MBlock],
    j: MBlock,
    def_block: &HashMap<Reg, MBlock>,
    helpers: &HashSet<InstId>,
    addresses: &HashMap<(MBlock, Reg, i64), Reg>,
) -> Option<Group> {
    let candidates: Vec<Vec<usize>> = ps.iter().map(|&p| movable(mf, p, helpers)).collect();
    let inst_at = |k: usize, i: usize| mf.inst(mf.block_inst_ids(ps[k])[i]);
    'first: for &c0 in &candidates[0] {
        let first = inst_at(0, c0);
        let positions: Vec<Vec<usize>> = first
            .defs
            .iter()
            .map(|&d| arg_positions(mf, ps[0], d))
            .collect();
        let mut at = vec![c0];
        let mut by_address = false;
        for k in 1..ps.len() {
            let found = candidates[k].iter().find_map(|&c| {
                let inst = inst_at(k, c);
                let same_args = inst
                    .defs
                    .iter()
                    .zip(&positions)
                    .all(|(&d, pos)| arg_positions(mf, ps[k], d) == *pos);
                alike(first, inst).filter(|_| same_args).map(|b| (c, b))
            });
            let Some((c, b)) = found else { continue 'first };
            at.push(c);
            by_address |= b;
        }
        // the parameters it needs against those its results replace
        let insts: Vec<&MInst> = (0..ps.len()).map(|k| inst_at(k, at[k])).collect();
        let mut added = 0usize;
        let mut operands: Vec<Vec<Reg>> = Vec::new();
        for u in 0..first.uses.len() {
            let regs: Vec<Reg> = insts.iter().map(|i| i.uses[u]).collect();
            if u == 0 && by_address {
                // the address: reused when each predecessor already computed it
                let known: Option<Vec<Reg>> = (0..ps.len())
                    .map(|k| {
                        let Imm::Const(off) = insts[k].imm else {
                            return None;
                        };
                        match off {
                            0 => Some(regs[k]),
                            _ => addresses.get(&(ps[k], regs[k], off)).copied(),
                        }
                    })
                    .collect();
                if known.is_none_or(|regs| existing_param(mf, ps, j, &regs).is_none()) {
                    added += 1;
                }
                continue;
            }
            if regs.iter().all(|&r| r == regs[0]) {
                // read alike: it must be defined outside the predecessors
                if def_block.get(&regs[0]).is_some_and(|b| ps.contains(b)) {
                    continue 'first;
                }
                continue;
            }
            if !operands.contains(&regs) && existing_param(mf, ps, j, &regs).is_none() {
                added += 1;
            }
            operands.push(regs);
        }
        let replaced: usize = positions.iter().map(Vec::len).sum();
        let budget = match memory_of(first) {
            Memory::Store => 2,
            Memory::Load => 1,
            _ => 0,
        };
        if added <= replaced + budget {
            return Some(Group { at, by_address });
        }
    }
    None
}

/// The parameter of `j` that every predecessor `ps[k]` passes `regs[k]`, if any.
fn existing_param(mf: &MachFunction, ps: &[MBlock], j: MBlock, regs: &[Reg]) -> Option<usize> {
    (0..mf.blocks[j].params.len()).find(|&i| {
        ps.iter()
            .zip(regs)
            .all(|(&p, &r)| mf.last_inst(p).is_some_and(|jump| jump.args[i] == r))
    })
}

/// The parameter of `j` that each predecessor `ps[k]` passes `regs[k]`: an existing
/// one, or a new one (a general register).
fn param_for(
    mf: &mut MachFunction,
    ps: &[MBlock],
    j: MBlock,
    regs: Vec<Reg>,
    def_block: &mut HashMap<Reg, MBlock>,
) -> Reg {
    if let Some(i) = existing_param(mf, ps, j, &regs) {
        return mf.blocks[j].params[i].into();
    }
    let v: VReg = mf.new_vreg(RegClass::Gpr);
    mf.blocks[j].params.push(v);
    def_block.insert(v.into(), j);
    for (&p, &r) in ps.iter().zip(&regs) {
        mf.last_inst_mut(p).expect("a jump").args.push(r);
    }
    v.into()
}

/// Sinks `group` from the predecessors `ps` into `j`.
#[allow(clippy::too_many_arguments)]
fn sink(
    mf: &mut MachFunction,
    ps: &[MBlock],
    j: MBlock,
    group: Group,
    def_block: &mut HashMap<Reg, MBlock>,
    helpers: &mut HashSet<InstId>,
    addresses: &mut HashMap<(MBlock, Reg, i64), Reg>,
    renamed: &mut HashMap<Reg, Reg>,
    stats: &mut SinkStats,
) {
    let ids: Vec<InstId> = (0..ps.len())
        .map(|k| mf.block_inst_ids(ps[k])[group.at[k]])
        .collect();
    let insts: Vec<MInst> = ids.iter().map(|&i| mf.inst(i).clone()).collect();
    let mut sunk = insts[0].clone();
    if insts.iter().any(|i| i.scope != sunk.scope) {
        sunk.scope = None;
    }
    for u in 0..sunk.uses.len() {
        let regs: Vec<Reg> = insts.iter().map(|i| i.uses[u]).collect();
        if u == 0 && group.by_address {
            let mut address = Vec::with_capacity(ps.len());
            for (k, &p) in ps.iter().enumerate() {
                let Imm::Const(off) = insts[k].imm else {
                    unreachable!("accesses by address have constant offsets")
                };
                let a = match addresses.get(&(p, regs[k], off)) {
                    Some(&a) => a,
                    // the base itself
                    None if off == 0 => regs[k],
                    None => {
                        let a: Reg = mf.new_vreg(RegClass::Gpr).into();
                        let mut add = MInst::op(Opcode::AddI, &[a], &[regs[k]], Imm::Const(off));
                        add.loc = insts[k].loc;
                        let at = mf.block_len(p) - 1;
                        let id = mf.insert_inst(p, at, add);
                        helpers.insert(id);
                        def_block.insert(a, p);
                        addresses.insert((p, regs[k], off), a);
                        stats.addresses += 1;
                        a
                    }
                };
                address.push(a);
            }
            sunk.uses[0] = param_for(mf, ps, j, address, def_block);
            sunk.imm = Imm::Const(0);
            continue;
        }
        if regs.iter().any(|&r| r != regs[0]) {
            sunk.uses[u] = param_for(mf, ps, j, regs, def_block);
        }
    }
    // the results: new registers, which replace the parameters they were passed to
    let mut replaced: Vec<(usize, Reg)> = Vec::new();
    for (t, &d) in insts[0].defs.iter().enumerate() {
        let class = mf.class_of(d);
        let new: Reg = mf.new_vreg(class).into();
        sunk.defs[t] = new;
        def_block.insert(new, j);
        for k in arg_positions(mf, ps[0], d) {
            replaced.push((k, new));
        }
    }
    // out of the predecessors
    for (k, &p) in ps.iter().enumerate() {
        let mut order = mf.block_inst_ids(p).to_vec();
        order.retain(|&i| i != ids[k]);
        mf.set_block_insts(p, order);
    }
    for &(k, new) in &replaced {
        renamed.insert(mf.blocks[j].params[k].into(), new);
    }
    mf.insert_inst(j, 0, sunk);
    // within `j` at once: the next groups read its operations and its jump's arguments
    // (what `j` passes to a join after it); the rest of the function at the end
    if !replaced.is_empty() {
        for id in mf.block_inst_ids(j).to_vec() {
            mf.inst_mut(id)
                .rename_uses(|r| renamed.get(&r).copied().unwrap_or(r));
        }
    }
    let mut gone: Vec<usize> = replaced.iter().map(|&(k, _)| k).collect();
    gone.sort_unstable();
    gone.dedup();
    for &k in gone.iter().rev() {
        mf.blocks[j].params.remove(k);
        for &p in ps {
            mf.last_inst_mut(p).expect("a jump").args.remove(k);
        }
    }
    stats.sunk += 1;
    stats.removed += ps.len();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::Interpreter;
    use crate::mir::Phase;
    use crate::test_support::Rng;

    /// A function whose entry fills a frame array of 4 words, then branches three
    /// ways on its argument to arms that each run a few loads, additions and stores
    /// of the array (the same shapes, often at other offsets or with other
    /// constants), and join passing two of their values; the join adds the array's
    /// words to them.
    fn random_function(rng: &mut Rng) -> String {
        let mut t = String::from(
            "machine function @f export {\n    fs0 = 32 bytes, align 8 (ir ss0)\nblock0:\n    \
             v0 = copy r3\n    v1 = add r1, fs0\n",
        );
        for k in 0..4 {
            t += &format!(
                "    v{} = movi {}\n    st.d [v1 + {}] = v{}\n",
                2 + k,
                k * 7 + 1,
                8 * k,
                2 + k
            );
        }
        t += "    pv6, p0 = cmp.lt v0, 0\n    (pv6) br block1\n    br block4\nblock4:\n    \
              pv7, p0 = cmp.eq v0, 0\n    (pv7) br block2\n    br block3\n";
        let mut v = 100;
        for arm in 1..=3 {
            t += &format!("block{arm}:\n");
            let mut vals = vec!["v0".to_string()];
            for _ in 0..(2 + rng.below(4)) {
                let off = 8 * rng.below(4) as u64;
                match rng.below(4) {
                    0 => {
                        t += &format!("    v{v} = ld.d [v1 + {off}]\n");
                        vals.push(format!("v{v}"));
                    }
                    1 => {
                        let a = &vals[rng.below(vals.len())];
                        t += &format!("    v{v} = add {a}, {}\n", rng.below(3));
                        vals.push(format!("v{v}"));
                    }
                    2 => {
                        let a = &vals[rng.below(vals.len())];
                        t += &format!("    st.d [v1 + {off}] = {a}\n");
                    }
                    _ => {
                        t += &format!("    v{v} = ld.d [v1 + {off}]\n");
                        t += &format!("    v{} = add v{v}, 1\n", v + 1);
                        t += &format!("    st.d [v1 + {off}] = v{}\n", v + 1);
                        vals.push(format!("v{}", v + 1));
                        v += 1;
                    }
                }
                v += 1;
            }
            let a = &vals[vals.len() - 1];
            let b = &vals[rng.below(vals.len())];
            t += &format!("    br block5({a}, {b})\n");
        }
        t += "block5(v50, v51):\n";
        let mut acc = "v50".to_string();
        for k in 0..4 {
            t += &format!(
                "    v{} = ld.d [v1 + {}]\n    v{} = mul v{}, {}\n    v{} = add {acc}, v{}\n",
                60 + 3 * k,
                8 * k,
                61 + 3 * k,
                60 + 3 * k,
                1 << (8 * (k + 1)),
                62 + 3 * k,
                61 + 3 * k
            );
            acc = format!("v{}", 62 + 3 * k);
        }
        t += &format!(
            "    v80 = mul v51, 3\n    v81 = add {acc}, v80\n    r3 = copy v81\n    ret uses[r3]\n}}\n"
        );
        t
    }

    #[test]
    fn random_joins_keep_their_values() {
        let (mut sunk, mut addresses, mut functions) = (0, 0, 0);
        for seed in 1..=400u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
            let text = random_function(&mut rng);
            let mf = MachFunction::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            mf.verify(Phase::Ssa).unwrap();
            let mut out = mf.clone();
            let stats = sink_common_code(&mut out);
            out.verify(Phase::Ssa)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}\n{out}"));
            sunk += stats.sunk;
            addresses += stats.addresses;
            functions += usize::from(stats.sunk > 0);
            for x in [-3i64, 0, 5] {
                let call = |f: &MachFunction| Interpreter::new([f]).call("f", &[x as u64]);
                assert_eq!(
                    call(&mf).unwrap(),
                    call(&out).unwrap(),
                    "seed {seed}, f({x})\n{text}\n{out}"
                );
            }
        }
        // the generator makes groups to sink, at other offsets too
        assert!(
            functions > 80 && sunk > 100 && addresses > 50,
            "{functions} {sunk} {addresses}"
        );
    }
}
