//! Splitting an indexed address over its index's sum (machine SSA, before scheduling:
//! `split-index`), on machines with the `shift-add` extension (`docs/isa.md` §8).
//!
//! After `fuse-shift-add` an element's address is `d = shKadd s, c`, `c + (s << k)`.
//! When the index is itself a sum, `s = add a, b`, of a term `a` known early (a loop
//! variable arriving from the previous trip, a base) and a term `b` computed late (a
//! binary search's half width `(hi - lo) >> 1`, a `lower_bound`'s `len >> 1`), the
//! address waits for the addition and then for the shift-add: two operations after
//! `b`. Shifting distributes over wrapping addition, `(a + b) << k = (a << k) +
//! (b << k)` in 64 bits, so the pass rewrites
//!
//! - `d = shKadd s, c` with `s = add a, b` as `t = shKadd a, c; d = shKadd b, t`,
//!
//! where `t` is ready before `b` is: the address then waits for one operation after
//! `b`. This is address arithmetic reassociated around when its terms are ready, as
//! `reassociate` does for sums; on a binary search's probe, the load starts a cycle
//! earlier on every trip, and its loop's recurrence (probe address, load, compare,
//! next bound) is one cycle shorter.
//!
//! When the rewrite pays: the readiness of each register is its dependence height in
//! the block (the machine description's latencies; a register from another block is
//! ready at 0), and the address must be ready strictly earlier after the rewrite. The
//! addition stays when anything else reads `s` (the probe's `mid` also becomes the
//! next bound), so the rewrite then costs an operation: it is made only when `d` is a
//! load's address, the head of the longest latency chain, and the addition's result
//! is otherwise unread. Only unguarded operations without a kept value, of virtual
//! registers (or `r0`), and only 64-bit `add` (a 32-bit `addw`'s sign extension does
//! not distribute) are rewritten.
//!
//! Counters: `split-index.split` (addresses rewritten), `split-index.removed`
//! (additions left unread and removed).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use vliw_isa::{Format, MachineConfig, Opcode};

use crate::mir::{Imm, InstId, MBlock, MInst, MachFunction, Reg};

/// What [`split_indices`] did.
#[derive(Copy, Clone, Default, Debug, PartialEq, Eq)]
pub struct IndexSplitStats {
    pub split: usize,
    pub removed: usize,
}

/// A register an SSA rewrite may read at another point: a virtual one, or `r0`.
fn movable(r: Reg) -> bool {
    matches!(r, Reg::Virtual(_)) || r == Reg::ZERO
}

/// An operation the pass may read through or rewrite: unguarded, keeping nothing,
/// without an immediate, two operands that may be read elsewhere, one virtual result.
fn plain(inst: &MInst, opcode: impl Fn(Opcode) -> bool) -> Option<(Reg, Reg, Reg)> {
    let o = inst.opcode()?;
    let (&[d], &[x, y]) = (inst.defs.as_slice(), inst.uses.as_slice()) else {
        return None;
    };
    (opcode(o)
        && inst.guard.is_always()
        && inst.keep.is_none()
        && matches!(inst.imm, Imm::None)
        && matches!(d, Reg::Virtual(_))
        && movable(x)
        && movable(y))
    .then_some((d, x, y))
}

/// Splits the indexed addresses of every block of `mf` (module documentation);
/// nothing on a machine without the extension.
pub fn split_indices(mf: &mut MachFunction, machine: &MachineConfig) -> IndexSplitStats {
    let mut stats = IndexSplitStats::default();
    if !machine.shift_add {
        return stats;
    }
    let mut reads = mf.read_counts();
    let load_addresses: HashSet<Reg> = mf
        .layout_insts()
        .filter(|i| i.opcode().is_some_and(|o| o.format() == Format::Load))
        .filter_map(|i| i.uses.first().copied())
        .collect();
    for b in mf.layout.clone() {
        block(mf, b, machine, &mut reads, &load_addresses, &mut stats);
    }
    if stats.split > 0 {
        stats.removed = crate::pcp::sweep::remove_dead_operations(mf);
    }
    stats
}

fn block(
    mf: &mut MachFunction,
    b: MBlock,
    machine: &MachineConfig,
    reads: &mut HashMap<Reg, usize>,
    load_addresses: &HashSet<Reg>,
    stats: &mut IndexSplitStats,
) {
    let latency = |o: Opcode| machine.latency(o.latency_class());
    // the additions of the block: result -> (its operands)
    let mut adds: HashMap<Reg, (Reg, Reg)> = HashMap::default();
    let mut ready: HashMap<Reg, u32> = HashMap::default();
    let ids: Vec<InstId> = mf.block_inst_ids(b).to_vec();
    let mut position = 0;
    for id in ids {
        let at = |r: Reg, ready: &HashMap<Reg, u32>| ready.get(&r).copied().unwrap_or(0);
        let inst = mf.inst(id);
        if let Some((d, s, c)) = plain(inst, Opcode::is_shift_add)
            && let Some(&(x, y)) = adds.get(&s)
        {
            let op = inst.opcode().expect("a shift-add");
            let lat = latency(op);
            let loc = inst.loc;
            let (late, early) = if at(x, &ready) >= at(y, &ready) {
                (x, y)
            } else {
                (y, x)
            };
            let before = (at(s, &ready)).max(at(c, &ready)) + lat;
            let t_ready = at(early, &ready).max(at(c, &ready)) + lat;
            let after = at(late, &ready).max(t_ready) + lat;
            let add_dies = reads.get(&s).copied() == Some(1);
            if after < before && (add_dies || load_addresses.contains(&d)) {
                let t = Reg::Virtual(mf.new_vreg(crate::mir::RegClass::Gpr));
                let mut first = MInst::op(op, &[t], &[early, c], Imm::None);
                first.loc = loc;
                mf.insert_inst(b, position, first);
                position += 1;
                let inst = mf.inst_mut(id);
                inst.uses = vec![late, t];
                *reads.entry(s).or_default() -= 1;
                *reads.entry(late).or_default() += 1;
                *reads.entry(early).or_default() += 1;
                *reads.entry(t).or_default() += 1;
                ready.insert(t, t_ready);
                ready.insert(d, after);
                stats.split += 1;
                position += 1;
                continue;
            }
        }
        let inst = mf.inst(id);
        if let Some((d, x, y)) = plain(inst, |o| o == Opcode::Add) {
            adds.insert(d, (x, y));
        }
        let lat = match inst.opcode() {
            Some(o) => latency(o),
            None => latency(Opcode::Add),
        };
        let start = inst.all_uses().map(|r| at(r, &ready)).max().unwrap_or(0);
        for d in inst.all_defs() {
            ready.insert(d, start + lat);
        }
        position += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::Phase;

    /// A binary search's probe: `mid = lo + ((hi - lo) >> 1)` read by the address and
    /// by the next bound.
    const PROBE: &str = "machine function @probe export {
block0:
    v0 = copy r3
    v1 = copy r4
    v2 = copy r5
    v3 = sub v2, v1
    v4 = shr v3, 1
    v5 = add v1, v4
    v6 = sh2add v5, v0
    v7 = ld.w [v6 + 0]
    v8 = add v7, v5
    r3 = copy v8
    ret uses[r3]
}
";

    #[test]
    fn a_late_term_of_a_load_address_is_added_last() {
        let mut mf = MachFunction::parse(PROBE).unwrap();
        let stats = split_indices(&mut mf, &MachineConfig::default());
        assert_eq!(
            stats,
            IndexSplitStats {
                split: 1,
                removed: 0
            }
        );
        mf.verify(Phase::Ssa).unwrap();
        let text = mf.to_string();
        assert!(text.contains("v9 = sh2add v1, v0"), "{text}");
        assert!(text.contains("v6 = sh2add v4, v9"), "{text}");
        assert!(text.contains("v5 = add v1, v4"), "{text}");
    }

    #[test]
    fn machines_without_the_extension_are_left_alone() {
        let mut mf = MachFunction::parse(PROBE).unwrap();
        let off = MachineConfig::from_overrides("shift-add=0").unwrap();
        assert_eq!(split_indices(&mut mf, &off), IndexSplitStats::default());
    }
}
