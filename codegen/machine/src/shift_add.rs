//! Fusing a shift into the addition that reads it (machine SSA, before scheduling:
//! `fuse-shift-add`), on machines with the `shift-add` extension (`docs/isa.md` §8).
//!
//! An indexed element's address is `base + (i << k)`: a shift, then an add that
//! waits for it. Where the index is computed inside a loop's recurrence (a binary
//! search's probe `a[lo + (hi - lo) / 2]`, a table lookup whose index comes from the
//! previous lookup, `crc = T[(crc ^ b) & 0xff] ^ (crc >> 8)`), both are on the
//! recurrence and each costs a cycle per trip. The pass rewrites
//!
//! - `d = add t, y` (or `add y, t`) where `t = shl x, k`, `k` in 1..=3, as
//!   `d = shKadd x, y`,
//!
//! which reads `x` one operation earlier. The shift stays if anything else reads
//! `t`, so the operation count never grows, and the addition's result is never later
//! than before. Machine SSA makes it sound as in `offsets`: `x` is defined once,
//! before `t`, so it holds the same value at the addition. Only an unguarded shift
//! without a kept value is fused (a guarded one defines `t` only where its guard
//! holds), and only of a virtual register or `r0` (a physical register may be
//! written between the two); the addition itself may be guarded.
//!
//! Counters: `shift-add.fused` (additions rewritten), `shift-add.removed` (shifts
//! left unread and removed).

use rustc_hash::FxHashMap as HashMap;

use vliw_isa::{MachineConfig, Opcode};

use crate::mir::{Imm, MInst, MOp, MachFunction, Reg};

/// What [`fuse_shift_add`] did.
#[derive(Copy, Clone, Default, Debug, PartialEq, Eq)]
pub struct ShiftAddStats {
    pub fused: usize,
    pub removed: usize,
}

/// `inst` as a fusable shift: `(t, x, op)` for `t = shl x, k` with `op` the
/// shift-and-add of `k`.
fn shift_of(inst: &MInst) -> Option<(Reg, Reg, Opcode)> {
    if inst.opcode() != Some(Opcode::ShlI) {
        return None;
    }
    let Imm::Const(k) = inst.imm else {
        return None;
    };
    let op = Opcode::shift_add(k)?;
    let (&[t], &[x]) = (inst.defs.as_slice(), inst.uses.as_slice()) else {
        return None;
    };
    (inst.guard.is_always()
        && inst.keep.is_none()
        && matches!(t, Reg::Virtual(_))
        && (matches!(x, Reg::Virtual(_)) || x == Reg::ZERO))
        .then_some((t, x, op))
}

/// Fuses the shifts of `mf` into the additions that read them (module
/// documentation); nothing on a machine without the extension.
pub fn fuse_shift_add(mf: &mut MachFunction, machine: &MachineConfig) -> ShiftAddStats {
    let mut stats = ShiftAddStats::default();
    if !machine.shift_add {
        return stats;
    }
    let shifts: HashMap<Reg, (Reg, Opcode)> = mf
        .layout_insts()
        .filter_map(shift_of)
        .map(|(t, x, op)| (t, (x, op)))
        .collect();
    if shifts.is_empty() {
        return stats;
    }
    for b in mf.layout.clone() {
        for id in mf.block_inst_ids(b).to_vec() {
            let inst = mf.inst(id);
            if inst.opcode() != Some(Opcode::Add) {
                continue;
            }
            let &[a, c] = inst.uses.as_slice() else {
                continue;
            };
            // the first operand that is a fusable shift; the other is the addend
            let Some((x, op, y)) = [(a, c), (c, a)]
                .into_iter()
                .find_map(|(s, y)| shifts.get(&s).map(|&(x, op)| (x, op, y)))
            else {
                continue;
            };
            let inst = mf.inst_mut(id);
            inst.op = MOp::Op(op);
            inst.uses = vec![x, y];
            stats.fused += 1;
        }
    }
    if stats.fused > 0 {
        stats.removed = crate::pcp::sweep::remove_dead_operations(mf);
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::Phase;

    const PROBE: &str = "machine function @probe export {
block0:
    v0 = copy r3
    v1 = copy r4
    v2 = shl v1, 2
    v3 = add v2, v0
    r3 = copy v3
    ret uses[r3]
}
";

    /// The machine without the extension keeps the shift and the addition; with it,
    /// one `sh2add` is left (the filetest `tests/mir/fuse-shift-add.mir` runs both).
    #[test]
    fn only_machines_with_the_extension_fuse() {
        let mut mf = MachFunction::parse(PROBE).unwrap();
        let off = MachineConfig::from_overrides("shift-add=0").unwrap();
        assert_eq!(fuse_shift_add(&mut mf, &off), ShiftAddStats::default());
        assert!(mf.to_string().contains("shl v1, 2"));
        let stats = fuse_shift_add(&mut mf, &MachineConfig::default());
        assert_eq!(
            stats,
            ShiftAddStats {
                fused: 1,
                removed: 1
            }
        );
        mf.verify(Phase::Ssa).unwrap();
        assert!(mf.to_string().contains("v3 = sh2add v1, v0"), "{mf}");
    }
}
