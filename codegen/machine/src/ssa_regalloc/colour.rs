//! Colouring in dominance order (Hack; Bouchez, Brisk et al.): the interference graph
//! of a strict SSA program is chordal and a definition's live neighbours at its
//! definition form a clique, so visiting the blocks in a preorder of the dominator tree
//! and each block's operations in order, and giving each definition a colour not held
//! by a live value, needs no more colours than the maximal pressure — which the spiller
//! has brought within the registers. No interference graph is built: the colours held
//! are tracked per point (live-in values at a block's entry, freed at last uses).
//!
//! Physical constraints enter as forbidden registers ([`super::analysis`]); with them
//! greedy colouring may still fail at a definition, and the allocator then spills that
//! value and starts again.
//!
//! **Affinities** (coalescing by preference): each copy `d = copy s` and each block
//! argument `a` passed to parameter `p` is an affinity weighted by its block's loop
//! depth. A definition takes the colour of its heaviest affinity partner that is
//! already coloured and free, so the copy disappears. A copy whose source stays live
//! gives its destination the source's colour when allowed: both hold the same value
//! (value-based interference, thesis §3.5), so they do not interfere.
//!
//! **Kept values** (`(g) d = op ... keeps k`, out of Psi-SSA by predicated copies):
//! `k` dies at the operation and `d` takes its colour, always free there; the
//! analysis makes the two forbid the same registers. A ψ's arguments so end in one
//! register, the ψ-congruence class of de Ferrière §4.

use cranelift_entity::{EntityRef, SecondaryMap};

use super::analysis::{Analysis, virtual_defs};
use super::regs::{Mask, allocatable, class_index, number, preference};
use crate::mir::{Imm, MOp, MachFunction, Reg, VReg};
use crate::ssa_view::mblock;

/// No colour.
pub const NONE: u8 = u8::MAX;

/// Affinity partners of each value: `(partner, weight)`, heaviest first.
pub type Hints = SecondaryMap<VReg, Vec<(Reg, u32)>>;

/// The affinities of copies and block arguments.
pub fn hints(mf: &MachFunction, a: &Analysis) -> Hints {
    let mut hints: Hints = SecondaryMap::new();
    let add = |hints: &mut Hints, x: Reg, y: Reg, w: u32| {
        if let Reg::Virtual(v) = x {
            hints[v].push((y, w));
        }
        if let Reg::Virtual(v) = y {
            hints[v].push((x, w));
        }
    };
    for &b in &mf.layout {
        let w = a.depth(b);
        for inst in mf.block_insts(b) {
            if inst.op == MOp::Copy {
                add(&mut hints, inst.defs[0], inst.uses[0], w);
            }
            if let (false, Imm::Block(t)) = (inst.args.is_empty(), &inst.imm) {
                for (&p, &arg) in mf.blocks[*t].params.iter().zip(&inst.args) {
                    add(&mut hints, Reg::Virtual(p), arg, w);
                }
            }
        }
    }
    for list in hints.values_mut() {
        list.sort_by_key(|&(_, w)| core::cmp::Reverse(w));
    }
    hints
}

/// Colours held at a point, with how many live values hold each (values joined by a
/// copy may share one).
struct Held {
    count: [[u16; 64]; 2],
    mask: [Mask; 2],
}

impl Held {
    fn new() -> Held {
        Held {
            count: [[0; 64]; 2],
            mask: [0; 2],
        }
    }

    fn take(&mut self, c: usize, colour: u8) {
        self.count[c][colour as usize] += 1;
        self.mask[c] |= 1 << colour;
    }

    fn free(&mut self, c: usize, colour: u8) {
        let n = &mut self.count[c][colour as usize];
        *n -= 1;
        if *n == 0 {
            self.mask[c] &= !(1 << colour);
        }
    }
}

struct Colourer<'a> {
    mf: &'a MachFunction,
    a: &'a Analysis,
    hints: &'a Hints,
    colour: SecondaryMap<VReg, u8>,
}

impl Colourer<'_> {
    /// A colour for `v`: free, not forbidden; an affinity partner's if possible, else
    /// in the order of [`preference`].
    fn choose(&self, v: VReg, held: &Held) -> Result<u8, VReg> {
        let class = self.mf.vregs[v];
        let c = class_index(class);
        let free = allocatable(class) & !self.a.forbidden[v] & !held.mask[c];
        if free == 0 {
            return Err(v);
        }
        for &(partner, _) in &self.hints[v] {
            let colour = match partner {
                Reg::Virtual(u) if self.mf.vregs[u] == class => self.colour[u],
                Reg::Physical(p) if p.class() == class => number(p).1,
                _ => NONE,
            };
            if colour != NONE && free & (1 << colour) != 0 {
                return Ok(colour);
            }
        }
        for m in preference(class) {
            if free & m != 0 {
                return Ok((free & m).trailing_zeros() as u8);
            }
        }
        unreachable!("preference covers the allocatable registers")
    }

    fn class(&self, v: VReg) -> usize {
        class_index(self.mf.vregs[v])
    }
}

/// Colours every value of the reachable blocks; `Err(v)` when `v` finds no colour.
pub fn colour(
    mf: &MachFunction,
    a: &Analysis,
    hints: &Hints,
) -> Result<SecondaryMap<VReg, u8>, VReg> {
    let mut k = Colourer {
        mf,
        a,
        hints,
        colour: SecondaryMap::with_default(NONE),
    };
    let kept = &a.kept;
    for &bb in a.dom.preorder() {
        let b = mblock(bb);
        let mut held = Held::new();
        for v in a.live.live_in(bb).iter().map(VReg::new) {
            debug_assert_ne!(k.colour[v], NONE, "{v} live into {b} before its definition");
            held.take(k.class(v), k.colour[v]);
        }
        let facts = &a.blocks[b];
        for &p in &mf.blocks[b].params {
            if facts.dead_params.contains(&p) {
                continue;
            }
            let c = k.choose(p, &held)?;
            k.colour[p] = c;
            held.take(k.class(p), c);
        }
        let (mut kills, mut dead) = (
            facts.kills.iter().peekable(),
            facts.dead_defs.iter().peekable(),
        );
        for (i, inst) in mf.block_insts(b).enumerate() {
            let i = i as u32;
            while let Some(&(_, v)) = kills.next_if(|(j, _)| *j == i) {
                held.free(k.class(v), k.colour[v]);
            }
            for d in virtual_defs(inst) {
                let shared = match (inst.op, inst.uses.first()) {
                    // (not when either is kept: the keeping definition overwrites the
                    // colour while the other may still live)
                    (MOp::Copy, Some(&Reg::Virtual(s)))
                        if !kept[d]
                            && !kept[s]
                            && mf.vregs[s] == mf.vregs[d]
                            && k.colour[s] != NONE
                            && held.mask[k.class(s)] & (1 << k.colour[s]) != 0
                            && a.forbidden[d] & (1 << k.colour[s]) == 0 =>
                    {
                        Some(k.colour[s])
                    }
                    _ => None,
                };
                let c = match (shared, inst.keep) {
                    // the kept value died here (the analysis checks it): its colour
                    (_, Some(Reg::Virtual(kept))) => {
                        let c = k.colour[kept];
                        if held.mask[k.class(d)] & (1 << c) != 0 || a.forbidden[d] & (1 << c) != 0 {
                            return Err(d);
                        }
                        c
                    }
                    (Some(c), _) => c,
                    (None, _) => k.choose(d, &held)?,
                };
                k.colour[d] = c;
                held.take(k.class(d), c);
            }
            while let Some(&(_, v)) = dead.next_if(|(j, _)| *j == i) {
                held.free(k.class(v), k.colour[v]);
            }
        }
    }
    Ok(k.colour)
}
