//! Store-to-load forwarding and redundant load elimination, along a region's memory
//! state chain.
//!
//! The memory state is linear (one user per state, `docs/rvsdg.md` §6), so the
//! accesses of a region form a chain, in the order they run. Walking it, the pass
//! keeps what is known to be in memory now:
//!
//! - the bytes each earlier plain store wrote (its value) and each earlier plain load
//!   read (its result);
//! - the bytes an earlier `memset` of a constant byte filled (what is left of them
//!   after later writes to a part);
//!
//! as long as nothing since may have written them ([`Analysis::preserves`]: stores
//! disjoint from them; calls, atomics and fences when they are in a stack slot that
//! does not escape; γs and θs by everything inside them).
//!
//! A plain load of known bytes is then what they hold: its users read that value,
//! its memory state's user reads the load's memory input, and the load goes
//! (`memory.forwarded-stores` when the bytes were stored or filled,
//! `memory.redundant-loads` when they were loaded). The value is
//!
//! - the stored or loaded value, for the same bytes read as the same type;
//! - its `bitcast`, for the same bytes read as another type of the same width;
//! - `ireduce (ushr v, 8 * d)`, for `d` bytes into an integer stored as a wider one
//!   (little-endian);
//! - a constant, for bytes a `memset` filled.
//!
//! **Traps.** A load that faults (out of bounds, misaligned) traps; removing it is
//! only right when it cannot. The earlier access ran — it is on the chain before the
//! load, so the load is only reached after it — on bytes that include the load's, so
//! they are mapped (and, written or read, readable); the alignment the load promises
//! holds for its address: no stricter than the earlier access's and the distance
//! from it a multiple of it, or known from a stack slot's alignment and a constant
//! offset. Volatile and atomic accesses are never removed nor used.
//!
//! Each region is walked on its own (nothing is carried into γ arms or θ bodies).

use rustc_hash::FxHashMap;
use vliw_ir::{InstructionData, Opcode, Type};

use super::access::{Access, Analysis, Effects};
use super::address::Base;
use crate::graph::{Node, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};
use crate::opt::rewrite::{Rewriter, const_of};

#[derive(Default)]
pub struct Counts {
    pub forwarded: usize,
    pub redundant: usize,
}

/// What some bytes hold.
#[derive(Copy, Clone, Debug)]
enum Content {
    /// A value of this type (stored, or loaded).
    Value(Origin, Type),
    /// This byte, over and over (`memset`).
    Fill(u8),
}

/// What memory holds at a point of the chain: `access`'s bytes are `content`.
#[derive(Clone, Debug)]
struct Known {
    access: Access,
    content: Content,
    /// The alignment the access that put it there promised.
    align: u32,
    /// It was stored or filled (else loaded).
    written: bool,
}

/// At most this many facts known at once on a chain (the oldest are forgotten).
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

/// A `memset` of a constant byte: what it fills with.
fn fill(a: &Analysis, g: &Rvsdg, n: Node) -> Option<(Access, u8)> {
    match g.op(n)? {
        Op::Inst(d) if d.opcode() == Opcode::Memset => {
            let byte = const_of(g, *g.inputs(n).get(1)?)?;
            let e = a.effects(g, n);
            let access = *e.writes.first()?;
            access.size?;
            Some((access, byte as u8))
        }
        _ => None,
    }
}

/// Forwards along every memory chain of `regions`.
pub fn forward(g: &mut Rvsdg, a: &Analysis, regions: &[Region], counts: &mut Counts) {
    let mut rw = Rewriter::new(g);
    for &r in regions {
        region(&mut rw, a, r, counts);
    }
}

fn region(rw: &mut Rewriter, a: &Analysis, r: Region, counts: &mut Counts) {
    // what is known at each memory state of the region that is not consumed yet
    let mut state: FxHashMap<Origin, Vec<Known>> = FxHashMap::default();
    let order = rw.g.topological_order(r);
    for n in order {
        let g = &*rw.g;
        let mem_in: Vec<Origin> = g
            .inputs(n)
            .iter()
            .copied()
            .filter(|&o| g.ty(o) == Ty::Mem)
            .collect();
        if mem_in.is_empty() {
            continue;
        }
        let known = match mem_in[..] {
            [m] => state.remove(&m).unwrap_or_default(),
            _ => Vec::new(),
        };
        let mem_out: Vec<Origin> = g.outputs(n).filter(|&o| g.ty(o) == Ty::Mem).collect();
        let access = plain(a, g, n);
        let is_load = matches!(g.op(n), Some(Op::Inst(d)) if d.opcode() == Opcode::Load);
        if let (Some((acc, ty, align)), true, [m], [out]) =
            (access, is_load, &mem_in[..], &mem_out[..])
            && let Some((k, d)) = known
                .iter()
                .rev()
                .find_map(|k| readable(a, k, &acc, ty, align).map(|d| (k.clone(), d)))
        {
            let value = read(rw, n, &k, d, ty);
            rw.g.divert_users(Origin::Out(n, 0), value);
            rw.g.divert_users(*out, *m);
            rw.g.remove_node(n);
            if k.written {
                counts.forwarded += 1;
            } else {
                counts.redundant += 1;
            }
            state.insert(*m, known);
            continue;
        }
        let g = &*rw.g;
        let e = a.effects(g, n);
        let mut kept = Vec::with_capacity(known.len() + 1);
        for k in known {
            if a.preserves(&e, &k.access) {
                kept.push(k);
            } else if let Content::Fill(_) = k.content {
                // what a store leaves of a fill
                kept.extend(remains(a, &k, &e));
            }
        }
        let mut known = kept;
        let new = if let Some((access, ty, align)) = access {
            let value = if is_load {
                Origin::Out(n, 0)
            } else {
                g.input(n, 0)
            };
            Some(Known {
                access,
                content: Content::Value(value, ty),
                align,
                written: !is_load,
            })
        } else {
            fill(a, g, n).map(|(access, byte)| Known {
                access,
                content: Content::Fill(byte),
                align: 1,
                written: true,
            })
        };
        if let Some(k) = new {
            if known.len() >= MAX_KNOWN {
                known.remove(0);
            }
            known.push(k);
        }
        if let [out] = mem_out[..] {
            state.insert(out, known);
        }
    }
}

/// Whether a load of `acc` as `ty` (promising `align`) reads bytes that `k` knows:
/// they are within `k`'s, the content gives a value of `ty` for them, and the load
/// cannot be misaligned. Its distance from `k`'s start.
fn readable(a: &Analysis, k: &Known, acc: &Access, ty: Type, align: u32) -> Option<u64> {
    let d = Analysis::within(&k.access, acc)?;
    let fits = match k.content {
        Content::Value(_, kty) if kty == ty => d == 0,
        Content::Value(_, kty) if kty.bytes() == ty.bytes() => d == 0 && bitcastable(kty, ty),
        Content::Value(_, kty) => kty.is_int() && ty.is_int() && kty != Type::I1,
        Content::Fill(_) => true,
    };
    let aligned = align <= 1
        || (align <= k.align.max(1) && d.is_multiple_of(align as u64))
        || match (acc.addr.base, acc.addr.offset) {
            (Base::Slot(s), Some(offset)) => a
                .slot(s)
                .is_some_and(|s| s.align >= align && offset.rem_euclid(align as i64) == 0),
            _ => false,
        };
    (fits && aligned).then_some(d)
}

/// Whether `bitcast` turns a `from` into a `to` (same width; not `i1`).
fn bitcastable(from: Type, to: Type) -> bool {
    from.bits() == to.bits() && from != Type::I1 && from.bits() >= 8
}

/// The value of `ty` that `k`'s bytes from `d` on hold, made beside load `n`.
fn read(rw: &mut Rewriter, n: Node, k: &Known, d: u64, ty: Type) -> Origin {
    match k.content {
        Content::Value(v, kty) if kty == ty => v,
        Content::Value(v, kty) if kty.bytes() == ty.bytes() => rw.unary(n, Opcode::Bitcast, v, ty),
        Content::Value(v, kty) => {
            let shifted = if d == 0 {
                v
            } else {
                let amount = rw.int(n, kty, 8 * d as i128);
                rw.binary(n, Opcode::Ushr, v, amount)
            };
            rw.unary(n, Opcode::Ireduce, shifted, ty)
        }
        Content::Fill(b) => {
            let bits = (0..ty.bytes()).fold(0u128, |acc, _| (acc << 8) | b as u128);
            rw.constant(n, Ty::Val(ty), bits)
        }
    }
}

/// What is left known of fill `k` after a node of effects `e`, which does not
/// preserve it: the parts before and after its one write, when that is all it does
/// to `k` and the write is at a known distance within the fill.
fn remains(a: &Analysis, k: &Known, e: &Effects) -> Vec<Known> {
    let ([w], false, true) = (
        &e.writes[..],
        e.anything,
        !e.escaping || a.private_slot(&k.access).is_some(),
    ) else {
        return Vec::new();
    };
    let (Some(d), Some(len), Some(size)) =
        (Analysis::distance(&k.access, w), k.access.size, w.size)
    else {
        return Vec::new();
    };
    if d >= len || d.checked_add(size).is_none_or(|end| end > len) {
        return Vec::new();
    }
    let piece = |from: u64, to: u64| {
        (from < to).then(|| Known {
            access: k.access.piece(from, to - from),
            ..k.clone()
        })
    };
    [piece(0, d), piece(d + size, len)]
        .into_iter()
        .flatten()
        .collect()
}
