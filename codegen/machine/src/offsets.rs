//! Folding constant offsets (machine SSA, before scheduling: `fold-offsets`).
//!
//! Unrolling and store-to-load forwarding leave chains of additions of constants: a
//! pointer advanced four times in one unrolled body (`p1 = p + 4; p2 = p1 + 4; ...`,
//! each store at `[pk + 0]`), a counter kept in memory incremented once per copy
//! (`n1 = n + 1; n2 = n1 + 1; ...`). Every link waits for the previous one, so the
//! chain is as long as the unrolling factor, and when it is carried from one
//! iteration to the next it is the loop's recurrence: the software pipeliner cannot
//! start an iteration sooner than the chain allows (`vec![x; n]`'s loop had a
//! recurrence of 9 cycles, 4 of them such adds). The pass rewrites
//!
//! - `d = add a, c2` where `a = add x, c1` as `d = add x, c1 + c2` (and `addw` over
//!   `addw`: the low 32 bits of a sum depend only on the low 32 bits of its terms, so
//!   the immediates add modulo 2^32);
//! - a load or store at `[a + off]` where `a = add x, c` as `[x + off + c]` (64-bit
//!   `add` only: `addw` sign-extends its sum), unless `x` is a block parameter (or a
//!   ψ or a copy) and `a` is passed on as a branch argument (a loop pointer's next value: read at
//!   `[x + off + c]`, `x` would live past `a`'s definition, the two could not share
//!   a register, and every trip would pay a copy);
//!
//! following a chain to its root as far as the summed immediate fits the 32-bit
//! immediate field (a `limm` would take an issue slot). The operation count does not
//! grow: the inner additions that nothing reads any more are removed, the others stay.
//! Machine SSA makes it sound: `x` is defined once, and its definition dominates
//! `a`'s, which dominates every reader of `a`, so `x` holds the same value there.
//! Only unguarded additions without a kept value are links (a guarded one defines its
//! result only where its guard holds), and only of virtual registers or `r0` (the
//! stack pointer may move between the two). The readers themselves may be guarded.
//!
//! Counters: `offsets.adds` (additions rewritten), `offsets.addresses` (memory
//! operands rewritten), `offsets.removed` (additions left unread and removed).

use rustc_hash::FxHashMap as HashMap;

use vliw_isa::{Format, Opcode};

use crate::mir::{Imm, MInst, MachFunction, Reg};

/// What [`fold_offsets`] did.
#[derive(Copy, Clone, Default, Debug, PartialEq, Eq)]
pub struct FoldStats {
    pub adds: usize,
    pub addresses: usize,
    pub removed: usize,
}

/// A link of a chain: `def = op x, c`.
#[derive(Copy, Clone, Debug)]
struct Link {
    x: Reg,
    c: i64,
    op: Opcode,
}

fn is_root_candidate(r: Reg) -> bool {
    matches!(r, Reg::Virtual(_)) || r == Reg::ZERO
}

/// `inst` as a link (`d = add x, c` or `addw`, unguarded, nothing kept).
fn link_of(inst: &MInst) -> Option<(Reg, Link)> {
    let op = inst
        .opcode()
        .filter(|o| matches!(o, Opcode::AddI | Opcode::AddwI))?;
    let Imm::Const(c) = inst.imm else {
        return None;
    };
    let (&[d], &[x]) = (inst.defs.as_slice(), inst.uses.as_slice()) else {
        return None;
    };
    (inst.guard.is_always()
        && inst.keep.is_none()
        && matches!(d, Reg::Virtual(_))
        && is_root_candidate(x))
    .then_some((d, Link { x, c, op }))
}

/// Adds `a` and `b` as an immediate of `op`: wrapping to 32 bits for `addw`, `None`
/// when a 64-bit sum does not fit the 32-bit field.
fn add_immediates(op: Opcode, a: i64, b: i64) -> Option<i64> {
    if op == Opcode::AddwI {
        Some(i64::from(a.wrapping_add(b) as i32))
    } else {
        let sum = a.checked_add(b)?;
        i32::try_from(sum).is_ok().then_some(sum)
    }
}

/// Follows the links of family `op` from `(reg, total)` towards their root while the
/// summed immediate fits; returns the new operand and immediate if it moved.
fn resolve(links: &HashMap<Reg, Link>, op: Opcode, reg: Reg, total: i64) -> Option<(Reg, i64)> {
    let (mut cur, mut sum) = (reg, total);
    // a chain is at most as long as the function has additions; the bound only
    // guards against a malformed (non-SSA) input
    for _ in 0..=links.len() {
        let Some(l) = links.get(&cur).filter(|l| l.op == op) else {
            break;
        };
        let Some(next) = add_immediates(op, sum, l.c) else {
            break;
        };
        (cur, sum) = (l.x, next);
    }
    (cur != reg).then_some((cur, sum))
}

/// Folds the chains of constant additions of `mf` (module documentation).
pub fn fold_offsets(mf: &mut MachFunction) -> FoldStats {
    let mut links: HashMap<Reg, Link> = HashMap::default();
    for inst in mf.layout_insts() {
        if let Some((d, l)) = link_of(inst) {
            links.insert(d, l);
        }
    }
    let mut stats = FoldStats::default();
    if links.is_empty() {
        return stats;
    }
    // a memory operand at `[a + off]` with `a = add x, c` is left alone when `x`
    // joins values (a block parameter, a ψ, or a copy of one: after if-conversion and
    // out of Psi-SSA a loop's pointer is often one) and `a` goes on as a branch
    // argument (the pointer's next value): read at `[x + off + c]`, `x` would live
    // past `a`'s definition, the two, one variable of the source, could no longer
    // share a register, and every trip would pay a copy
    let passed: rustc_hash::FxHashSet<Reg> = mf
        .layout_insts()
        .flat_map(|i| i.args.iter().copied())
        .collect();
    let joined: rustc_hash::FxHashSet<Reg> = mf
        .layout
        .iter()
        .flat_map(|&b| mf.blocks[b].params.iter().map(|&v| Reg::Virtual(v)))
        .chain(
            mf.layout_insts()
                .filter(|i| {
                    use crate::mir::MOp;
                    matches!(i.op, MOp::Psi | MOp::Copy | MOp::ParallelCopy)
                })
                .flat_map(|i| i.defs.iter().copied()),
        )
        .collect();
    for b in mf.layout.clone() {
        for id in mf.block_inst_ids(b).to_vec() {
            let inst = mf.inst(id);
            let Some(op) = inst.opcode() else { continue };
            let Imm::Const(c) = inst.imm else { continue };
            let Some(&a) = inst.uses.first() else {
                continue;
            };
            if matches!(op, Opcode::AddI | Opcode::AddwI) && inst.uses.len() == 1 {
                if let Some((x, sum)) = resolve(&links, op, a, c) {
                    let inst = mf.inst_mut(id);
                    inst.uses[0] = x;
                    inst.imm = Imm::Const(sum);
                    stats.adds += 1;
                }
            } else if matches!(op.format(), Format::Load | Format::Store)
                && let Some((x, sum)) = resolve(&links, Opcode::AddI, a, c)
                && !(passed.contains(&a) && joined.contains(&x))
            {
                let inst = mf.inst_mut(id);
                inst.uses[0] = x;
                inst.imm = Imm::Const(sum);
                stats.addresses += 1;
            }
        }
    }
    if stats.adds + stats.addresses > 0 {
        stats.removed = crate::pcp::sweep::remove_dead_operations(mf);
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::Interpreter;
    use crate::mir::Phase;

    fn parse(text: &str) -> MachFunction {
        let mf = MachFunction::parse(text).unwrap();
        mf.verify(Phase::Ssa).unwrap();
        mf
    }

    /// An unrolled fill: the pointer advanced four times and a counter in memory
    /// incremented four times become one addition each, the stores at offsets of the
    /// first pointer; the results stay.
    #[test]
    fn chains_fold_into_one_addition_and_the_offsets() {
        let text = "machine function @f export {
block0:
    v0 = copy r3
    v1 = copy r4
    v2 = copy r5
    st.d [v2 + 0] = r0
    br block1(v0, v1)
block1(v3, v4):
    v5 = add v3, 4
    st.w [v3 + 0] = v4
    v6 = add v5, 4
    st.w [v5 + 0] = v4
    v7 = add v6, 4
    st.w [v6 + 0] = v4
    v8 = add v7, 4
    pv19, p0 = cmp.gt v4, 1
    (pv19) st.w [v7 + 0] = v4
    v9 = ld.d [v2 + 0]
    v10 = add v9, 1
    v11 = add v10, 1
    v12 = add v11, 1
    v13 = add v12, 1
    st.d [v2 + 0] = v13
    v14 = add v4, -1
    pv15, p0 = cmp.gt v14, 0
    (pv15) br block3
    br block2
block3:
    br block1(v8, v14)
block2:
    v16 = ld.d [v2 + 0]
    v17 = sub v8, v0
    v18 = add v16, v17
    r3 = copy v18
    ret uses[r3]
}
";
        let before = parse(text);
        let mut after = before.clone();
        let stats = fold_offsets(&mut after);
        after.verify(Phase::Ssa).unwrap();
        assert_eq!(
            stats,
            FoldStats {
                adds: 6,
                addresses: 3,
                removed: 6
            },
            "{after}"
        );
        let out = after.to_string();
        for line in [
            "v8 = add v3, 16",
            "st.w [v3 + 4] = v4",
            "st.w [v3 + 8] = v4",
            "(pv19) st.w [v3 + 12] = v4",
            "v13 = add v9, 4",
        ] {
            assert!(out.contains(line), "{line}\n{out}");
        }
        const BUF: u64 = 0x10_0000;
        const SLOT: u64 = 0x20_0000;
        let run = |mf: &MachFunction, n: u64| {
            let mut interp = Interpreter::new([mf]);
            interp.memory.map(BUF, vec![0; 1024], true);
            interp.memory.map(SLOT, vec![0; 8], true);
            let r = interp.call("f", &[BUF, n, SLOT]).unwrap();
            (r, interp.memory.read(BUF, 1024).unwrap().to_vec())
        };
        for n in [1u64, 3, 7] {
            assert_eq!(run(&after, n), run(&before, n), "{n}\n{out}");
        }
    }

    /// What stays: a guarded addition (its value is defined under its guard only),
    /// one that keeps a value, the stack pointer as a root, an `addw` under an `add`
    /// (the families do not mix), an address over an `addw`, and a sum that does not
    /// fit 32 bits.
    #[test]
    fn what_is_not_a_link_stays() {
        let text = "machine function @f export {
block0:
    v0 = copy r3
    pv1, p0 = cmp.gt v0, 0
    (pv1) v2 = add v0, 4
    v3 = add v2, 4
    v4 = add r1, 16
    v5 = add v4, 8
    v6 = addw v0, 8
    v7 = add v6, 8
    v8 = ld.d [v6 + 0]
    v9 = add v0, 2147483647
    v10 = add v9, 1
    v11 = add v3, v5
    v12 = add v11, v7
    v13 = add v12, v8
    v14 = add v13, v10
    r3 = copy v14
    ret uses[r3]
}
";
        let mut mf = parse(text);
        let stats = fold_offsets(&mut mf);
        assert_eq!(stats, FoldStats::default(), "{mf}");
        assert_eq!(mf.to_string(), parse(text).to_string());
    }

    /// `addw` over `addw` adds the immediates modulo 2^32.
    #[test]
    fn word_additions_wrap() {
        let text = "machine function @f export {
block0:
    v0 = copy r3
    v1 = addw v0, 2147483647
    v2 = addw v1, 2
    r3 = copy v2
    ret uses[r3]
}
";
        let before = parse(text);
        let mut after = before.clone();
        let stats = fold_offsets(&mut after);
        assert_eq!((stats.adds, stats.removed), (1, 1), "{after}");
        assert!(
            after.to_string().contains("v2 = addw v0, -2147483647"),
            "{after}"
        );
        for x in [0u64, 5, u64::MAX, 1 << 31, 0x7fff_ffff] {
            let r = |mf: &MachFunction| Interpreter::new([mf]).call("f", &[x]).unwrap();
            assert_eq!(r(&after), r(&before), "{x}");
        }
    }

    /// A scan whose next pointer goes round the loop: its load stays at `[v4 + 0]`
    /// (folded to `[v2 + 1]`, `v2` would live past `v4` and cost a copy a trip); a
    /// load through a pointer that stays in the block is still folded.
    #[test]
    fn the_next_value_of_a_loop_pointer_keeps_its_load() {
        let text = "machine function @f export {
block0:
    v0 = copy r3
    v1 = copy r4
    br block1(v0, r0)
block1(v2, v3):
    v4 = add v2, 1
    v5 = add v2, 2
    v6 = ld.b [v4 + 0]
    v7 = ld.b [v5 + 0]
    v8 = add v3, v6
    v9 = add v8, v7
    pv10, p0 = cmp.ltu v4, v1
    (pv10) br block2
    br block3
block2:
    br block1(v4, v9)
block3:
    r3 = copy v9
    ret uses[r3]
}
";
        let mut mf = parse(text);
        let stats = fold_offsets(&mut mf);
        assert_eq!(stats.addresses, 1, "{mf}");
        let out = mf.to_string();
        assert!(out.contains("ld.b [v4 + 0]"), "{out}");
        assert!(out.contains("ld.b [v2 + 2]"), "{out}");
        // the same through a copy of the parameter (what leaving Psi-SSA makes of a
        // ψ that chose between one value)
        let copied = text.replace(
            "    v4 = add v2, 1\n",
            "    v11 = copy v2\n    v4 = add v11, 1\n",
        );
        let mut mf = parse(&copied);
        fold_offsets(&mut mf);
        assert!(mf.to_string().contains("ld.b [v4 + 0]"), "{mf}");
    }
}
