//! Leaving conventional SSA (thesis §5.2.2 steps 4–5): every congruence class becomes
//! one virtual register (its first member in "≺" order, the one whose definition
//! dominates the others'), block parameters and arguments disappear, and each
//! parallel copy, without the copies its renaming made trivial, is sequentialized by
//! `vliw_ssa::sequentialize` with the minimum number of copies: one extra copy, into a
//! fresh register of the class, per circuit that no tree edge leaves. An ordinary copy
//! whose two sides got one name is deleted.

use cranelift_entity::EntityRef;

use super::classes::Classes;
use super::interference::Ctx;
use crate::mir::{InstId, MInst, MOp, MachFunction, Reg, RegClass, VReg};

/// What renaming and sequentialization left.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Sequentialized {
    /// Copies of the parallel copies whose two sides got different names.
    pub remaining: usize,
    /// Sequential copies emitted (temporaries included).
    pub copies: usize,
    /// Copies into a temporary (one per circuit without a tree edge).
    pub temporaries: usize,
    /// Ordinary copies (`Copy`) deleted because their two sides got one name.
    pub deleted: usize,
}

/// The register a class is renamed to.
fn representatives(mf: &MachFunction, classes: &Classes, ctx: &Ctx) -> Vec<VReg> {
    let mut rep: Vec<VReg> = (0..mf.vregs.len()).map(VReg::new).collect();
    for members in classes.nontrivial() {
        let first = members
            .iter()
            .copied()
            .min_by_key(|&v| {
                ctx.key(v)
                    .map_or((0, 0, 0, v.index()), |k| (1, k.0, k.1, v.index()))
            })
            .expect("nonempty");
        for &v in members {
            rep[v.index()] = first;
        }
    }
    rep
}

/// Renames the classes, drops block parameters and arguments, sequentializes every
/// `ParallelCopy`.
pub fn rename(mf: &mut MachFunction, classes: &Classes, ctx: &Ctx) -> Sequentialized {
    let rep = representatives(mf, classes, ctx);
    let map = |r: &mut Reg| {
        if let Reg::Virtual(v) = *r
            && let Some(&to) = rep.get(v.index())
        {
            *r = Reg::Virtual(to);
        }
    };
    let mut stats = Sequentialized::default();
    for b in mf.layout.clone() {
        mf.blocks[b].params.clear();
        let insts = mf.take_block_insts(b);
        let mut out = Vec::with_capacity(insts.len());
        for id in insts {
            if mf.inst(id).op == MOp::ParallelCopy {
                let pc = mf.inst(id).clone();
                sequentialize(mf, &pc, &rep, ctx, &mut stats, &mut out);
                continue;
            }
            let inst = mf.inst_mut(id);
            map(&mut inst.guard.pred);
            inst.psi_guards.iter_mut().for_each(|g| map(&mut g.pred));
            inst.defs.iter_mut().for_each(map);
            inst.uses.iter_mut().for_each(map);
            inst.args.clear();
            // an ordinary copy whose two sides were coalesced
            if inst.op == MOp::Copy
                && inst.defs == inst.uses
                && inst.defs.iter().all(|d| d.as_virtual().is_some())
            {
                stats.deleted += 1;
                continue;
            }
            out.push(id);
        }
        mf.set_block_insts(b, out);
    }
    stats
}

fn sequentialize(
    mf: &mut MachFunction,
    pc: &MInst,
    rep: &[VReg],
    ctx: &Ctx,
    stats: &mut Sequentialized,
    out: &mut Vec<InstId>,
) {
    let renamed = |r: Reg| match r {
        Reg::Virtual(v) => Reg::Virtual(rep.get(v.index()).copied().unwrap_or(v)),
        p => p,
    };
    let value = |r: Reg| match r {
        Reg::Virtual(v) => Reg::Virtual(ctx.value(v)),
        p => p,
    };
    for class in [RegClass::Gpr, RegClass::Pred] {
        // (renamed dst, renamed src, value of the original source)
        let mut pairs: Vec<(Reg, Reg, Reg)> = Vec::new();
        for (&d, &s) in pc.defs.iter().zip(&pc.uses) {
            if mf.class_of(d) != class {
                continue;
            }
            let (rd, rs) = (renamed(d), renamed(s));
            if rd == rs {
                continue;
            }
            // two copies into one class read the same value (else they would interfere)
            if let Some(&(_, _, other)) = pairs.iter().find(|p| p.0 == rd) {
                debug_assert_eq!(other, value(s), "two values into one register");
                continue;
            }
            pairs.push((rd, rs, value(s)));
        }
        if pairs.is_empty() {
            continue;
        }
        stats.remaining += pairs.len();
        // one fresh register of the class, made when the first circuit needs it
        let simple: Vec<(Reg, Reg)> = pairs.iter().map(|p| (p.0, p.1)).collect();
        let mut temp = None;
        let seq = vliw_ssa::sequentialize(
            &simple,
            |_| *temp.get_or_insert_with(|| Reg::Virtual(mf.new_vreg(class))),
            |a, b| a == b,
        )
        .expect("destinations are distinct");
        for (d, s) in seq {
            if Some(d) == temp {
                stats.temporaries += 1;
            }
            let mut c = MInst::copy(d, s);
            c.loc = pc.loc;
            out.push(mf.make_inst(c));
            stats.copies += 1;
        }
    }
}
