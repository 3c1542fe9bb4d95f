//! Store-to-load forwarding and redundant load elimination, along a region's memory
//! state chain.
//!
//! The memory state is linear (one user per state, `docs/rvsdg.md` §6), so the
//! accesses of a region form a chain, in the order they run. Walking it, the pass
//! keeps what is known to be in memory now: the bytes each earlier plain store wrote
//! (its value) and each earlier plain load read (its result), as long as nothing
//! since may have written them ([`Analysis::preserves`]: stores disjoint from them,
//! calls, atomics and fences when they are in a stack slot that does not escape, γs
//! and θs by everything inside them).
//!
//! A plain load of the same bytes (same address, same type) is then that value: its
//! users read the value, its memory state's user reads the load's memory input, and
//! the load goes (`memory.forwarded-stores`, `memory.redundant-loads`).
//!
//! **Traps.** A load that faults (out of bounds, misaligned) traps; removing it is
//! only right when it cannot. The earlier access ran — it is on the chain before the
//! load, so the load is only reached after it — on the same bytes, so they are
//! mapped (and, written or read, readable); the alignment the load promises is no
//! stricter than the earlier access's, or the address is known to have it (a stack
//! slot's alignment and a constant offset). Volatile and atomic accesses are never
//! removed nor used.
//!
//! Each region is walked on its own (nothing is carried into γ arms or θ bodies).

use rustc_hash::FxHashMap;
use vliw_ir::{InstructionData, Opcode, Type};

use super::access::{Access, Analysis};
use super::address::Base;
use crate::graph::{Node, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};

#[derive(Default)]
pub struct Counts {
    pub forwarded: usize,
    pub redundant: usize,
}

/// What memory holds at a point of the chain: `access`'s bytes are `value`.
#[derive(Clone, Debug)]
struct Known {
    access: Access,
    ty: Type,
    value: Origin,
    /// The alignment the access that put it there promised.
    align: u32,
    /// It was stored (else loaded).
    stored: bool,
}

/// At most this many values known at once on a chain (the oldest are forgotten).
const MAX_KNOWN: usize = 64;

/// A plain load or store: its access, the type of its value, its alignment.
fn plain(a: &Analysis, g: &Rvsdg, n: Node) -> Option<(Access, Type, u32)> {
    let Some(Op::Inst(data)) = g.op(n) else {
        return None;
    };
    let (flags, ty) = match data {
        InstructionData::Load {
            opcode: Opcode::Load,
            flags,
            ..
        } => (flags, g.ty(Origin::Out(n, 0))),
        InstructionData::Store {
            opcode: Opcode::Store,
            flags,
            ..
        } => (flags, g.ty(*g.inputs(n).first()?)),
        _ => return None,
    };
    if flags.volatile {
        return None;
    }
    let Ty::Val(ty) = ty else {
        return None;
    };
    let e = a.effects(g, n);
    let access = *e.reads.first().or(e.writes.first())?;
    Some((access, ty, flags.align))
}

/// Forwards along every memory chain of `regions`.
pub fn forward(g: &mut Rvsdg, a: &Analysis, regions: &[Region], counts: &mut Counts) {
    for &r in regions {
        region(g, a, r, counts);
    }
}

fn region(g: &mut Rvsdg, a: &Analysis, r: Region, counts: &mut Counts) {
    // what is known at each memory state of the region that is not consumed yet
    let mut state: FxHashMap<Origin, Vec<Known>> = FxHashMap::default();
    for n in g.topological_order(r) {
        let mem_in: Vec<Origin> = g
            .inputs(n)
            .iter()
            .copied()
            .filter(|&o| g.ty(o) == Ty::Mem)
            .collect();
        if mem_in.is_empty() {
            continue;
        }
        let mut known = match mem_in[..] {
            [m] => state.remove(&m).unwrap_or_default(),
            _ => Vec::new(),
        };
        let mem_out: Vec<Origin> = g.outputs(n).filter(|&o| g.ty(o) == Ty::Mem).collect();
        let access = plain(a, g, n);
        let is_load = matches!(g.op(n), Some(Op::Inst(d)) if d.opcode() == Opcode::Load);
        // the value this load reads, if known
        let found = match (access, is_load) {
            (Some((acc, ty, align)), true) => known
                .iter()
                .rev()
                .find(|k| {
                    k.ty == ty && Analysis::same(&k.access, &acc) && aligned(a, k, &acc, align)
                })
                .map(|k| (k.value, k.stored)),
            _ => None,
        };
        if let (Some((value, stored)), [m], [out]) = (found, &mem_in[..], &mem_out[..]) {
            g.divert_users(Origin::Out(n, 0), value);
            g.divert_users(*out, *m);
            g.remove_node(n);
            if stored {
                counts.forwarded += 1;
            } else {
                counts.redundant += 1;
            }
            state.insert(*m, known);
            continue;
        }
        let e = a.effects(g, n);
        known.retain(|k| a.preserves(&e, &k.access));
        if let Some((access, ty, align)) = access {
            let value = if is_load {
                Origin::Out(n, 0)
            } else {
                g.input(n, 0)
            };
            if known.len() == MAX_KNOWN {
                known.remove(0);
            }
            known.push(Known {
                access,
                ty,
                value,
                align,
                stored: !is_load,
            });
        }
        if let [out] = mem_out[..] {
            state.insert(out, known);
        }
    }
}

/// Whether a load of `acc` that promises `align` cannot be misaligned, given that the
/// access that made `k` was not.
fn aligned(a: &Analysis, k: &Known, acc: &Access, align: u32) -> bool {
    if align <= k.align.max(1) {
        return true;
    }
    match (acc.addr.base, acc.addr.offset) {
        (Base::Slot(s), Some(offset)) => a
            .slot(s)
            .is_some_and(|d| d.align >= align && offset.rem_euclid(align as i64) == 0),
        _ => false,
    }
}
