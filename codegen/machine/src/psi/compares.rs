//! A compare of a ψ is a ψ of compares: `x = ψ(T?a, p?b); c = cmp x, y` becomes
//! `ca = cmp a, y; cb = cmp b, y; c = ψ(T?ca, p?cb)` (`psi-compares`).
//!
//! A loop whose test reads what the iteration chose waits for the choice, then for
//! the compare, then branches: `lower_bound`'s `if a[lo + half] < key { lo += half + 1;
//! len -= half + 1 } else { len = half }; while len > 0` chooses `len` after the load
//! and the order compare, and tests it a cycle later. Compared through the ψ, each
//! candidate is tested as soon as it is made, beside the load, and the test's ψ
//! leaves Psi-SSA as a guarded compare that keeps the first candidate's result
//! (`(p) c = cmp b, y keeps c`, ready the cycle after `p`): one cycle less per trip,
//! for one more compare.
//!
//! Only an unguarded integer compare of the normal type whose second predicate is
//! unused (`p0`) and read by branches only (a loop's or an exit's test), and whose
//! one register operand is a ψ of the same block with at most [`MAX_ARGS`]
//! arguments, none of them a ψ of the block; the other operand an immediate or a
//! register that is not a ψ. (A predicate ψ that further predicate logic or ψ
//! guards read, or one over nested ψs, met the predicated copies' folding in ways
//! that broke dominance: `char_methods`' UTF-16 decoding.) And only where it is faster: where some guard of the ψ is ready after
//! every argument and the other operand (by the latencies of the machine along the
//! block's dependences, what comes from before the block ready at its start). A
//! guard ready no later costs the same cycles either way, and one more compare
//! (`clamp_median`'s median of three, whose order compares come before the values
//! they choose among). And only in a block whose operations would not fill its
//! dependences' length in bundles with room to spare: where the bundles are full,
//! the compare and the copy that chooses its result take slots that the block's
//! other work needed (`clamp_median`'s bounds checks, 1.004x slower split). The
//! compares of the
//! candidates are speculated (a compare cannot fault) and placed where the original
//! was; the ψ stays for its other readers, and is removed with nothing left reading
//! it.

use rustc_hash::FxHashMap as HashMap;

use vliw_isa::{CmpType, Format, LatencyClass, MachineConfig, Opcode};

use crate::mir::{InstId, MInst, MOp, MachFunction, Reg, RegClass};

/// The most arguments of a ψ whose compare is split: each costs a compare.
pub const MAX_ARGS: usize = 2;

/// Rewrites every such compare of `mf`; returns how many.
pub fn compares_through_psis(mf: &mut MachFunction, machine: &MachineConfig) -> usize {
    let mut made = 0;
    let branch_tests = branch_tests(mf);
    for b in mf.layout.clone() {
        // the ψs of the block so far, by what they define
        let mut psis: HashMap<Reg, InstId> = HashMap::default();
        // when each value of the block is ready, in cycles from its start
        let mut ready: HashMap<Reg, u32> = HashMap::default();
        let at_ready = |r: Reg, ready: &HashMap<Reg, u32>| ready.get(&r).copied().unwrap_or(0);
        if !latency_bound(mf, b, machine) {
            continue;
        }
        let mut at = 0;
        while at < mf.block_len(b) {
            let id = mf.block_inst_ids(b)[at];
            at += 1;
            let inst = mf.inst(id);
            let latency = machine.latency(inst.opcode().unwrap_or(Opcode::Add).latency_class());
            let start = inst
                .all_uses()
                .map(|r| at_ready(r, &ready))
                .max()
                .unwrap_or(0);
            // (`p0`, a compare's unused second result, is always ready)
            for d in inst.all_defs().filter(|d| d.as_virtual().is_some()) {
                ready.insert(d, start + latency);
            }
            if inst.op == MOp::Psi {
                if let Some(&d) = inst.defs.first() {
                    psis.insert(d, id);
                }
                continue;
            }
            let Some(o) = inst.opcode() else { continue };
            let integer_compare = matches!(o.format(), Format::Cmp | Format::CmpImm)
                && o.latency_class() == LatencyClass::Compare;
            if !integer_compare
                || !inst.guard.is_always()
                || inst.ctype != CmpType::Normal
                || inst.keep.is_some()
                || inst.defs.len() != 2
                || inst.defs[1] != Reg::P0
            {
                continue;
            }
            // the one operand that is a ψ of the block
            let psi_uses: Vec<usize> = (0..inst.uses.len())
                .filter(|&k| psis.contains_key(&inst.uses[k]))
                .collect();
            let [k] = psi_uses[..] else { continue };
            let psi = mf.inst(psis[&inst.uses[k]]).clone();
            if psi.uses.len() > MAX_ARGS
                || psi
                    .uses
                    .iter()
                    .any(|r| r.as_virtual().is_none() || psis.contains_key(r))
                || !branch_tests.contains(&inst.defs[0])
            {
                continue;
            }
            let values = psi
                .uses
                .iter()
                .chain(inst.uses.iter().filter(|&&r| r != inst.uses[k]));
            let values_ready = values.map(|&r| at_ready(r, &ready)).max().unwrap_or(0);
            let guards_ready = psi
                .psi_guards
                .iter()
                .map(|g| at_ready(g.pred, &ready))
                .max();
            if guards_ready.is_none_or(|g| g <= values_ready) {
                continue;
            }
            let compare = inst.clone();
            let mut results = Vec::with_capacity(psi.uses.len());
            for (j, &arg) in psi.uses.iter().enumerate() {
                let r = Reg::Virtual(mf.new_vreg(RegClass::Pred));
                let mut c = compare.clone();
                c.uses[k] = arg;
                c.defs[0] = r;
                mf.insert_inst(b, at - 1 + j, c);
                ready.insert(r, values_ready + 1);
                results.push(r);
            }
            at += psi.uses.len();
            let mut chosen = MInst::new(MOp::Psi);
            chosen.defs = vec![compare.defs[0]];
            chosen.uses = results;
            chosen.psi_guards = psi.psi_guards.clone();
            chosen.loc = compare.loc;
            *mf.inst_mut(id) = chosen;
            psis.insert(compare.defs[0], id);
            made += 1;
        }
    }
    if made > 0 {
        crate::pcp::sweep::remove_dead_operations(mf);
    }
    made
}

/// Whether block `b` is bound by its dependences rather than by the machine's
/// width: its operations, `width` to a bundle, take fewer than its longest chain of
/// latencies less one cycle.
fn latency_bound(mf: &MachFunction, b: crate::mir::MBlock, machine: &MachineConfig) -> bool {
    let mut ready: HashMap<Reg, u32> = HashMap::default();
    let mut longest = 0;
    let mut operations = 0;
    for inst in mf.block_insts(b) {
        let latency = machine.latency(inst.opcode().unwrap_or(Opcode::Add).latency_class());
        let start = inst
            .all_uses()
            .map(|r| ready.get(&r).copied().unwrap_or(0))
            .max()
            .unwrap_or(0);
        for d in inst.all_defs().filter(|d| d.as_virtual().is_some()) {
            ready.insert(d, start + latency);
        }
        longest = longest.max(start + latency);
        operations += 1;
    }
    (operations as u32).div_ceil(machine.width as u32) + 1 < longest
}

/// The predicates that only branches read, as their guard.
fn branch_tests(mf: &MachFunction) -> rustc_hash::FxHashSet<Reg> {
    let mut tests = rustc_hash::FxHashSet::default();
    let mut other = rustc_hash::FxHashSet::default();
    for inst in mf.layout_insts() {
        let branch = inst.is(Opcode::Br);
        for r in inst.all_uses() {
            if branch && r == inst.guard.pred && !inst.args.contains(&r) {
                tests.insert(r);
            } else {
                other.insert(r);
            }
        }
    }
    tests.retain(|r| !other.contains(r));
    tests
}
