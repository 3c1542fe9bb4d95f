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
//! (value-based interference, thesis §3.5), so they do not interfere. That holds
//! for a copy that a later definition keeps too (the ψ's first argument, out of
//! Psi-SSA by predicated copies), as long as the source is dead when the keeper
//! overwrites the shared colour: the copy then costs nothing, and the keeper's
//! result lands where the source was (a loop's back-edge value in its parameter's
//! register).
//!
//! A definition without a usable partner avoids, when it can, the colours that a
//! later definition of its block wants (a coloured partner of that definition holds
//! them): a loop's back-edge value then finds its parameter's colour still free when
//! it is defined, although the parameter died long before (biased colouring; what a
//! pipelined loop's rotated values need, `sched::modulo`). A kept value takes its
//! keeper's partners as its own and does not avoid what only its keeper wants: the
//! two share a colour (`ssa-regalloc-keeps.mir`: the ψ's register is the result's).
//!
//! **Kept values** (`(g) d = op ... keeps k`, out of Psi-SSA by predicated copies):
//! `k` dies at the operation and `d` takes its colour, always free there; the
//! analysis makes the two forbid the same registers. A ψ's arguments so end in one
//! register, the ψ-congruence class of de Ferrière §4.
//!
//! **Disjoint guards** (predicate-aware interference): a value defined under a
//! guard `g` is undefined wherever `g` is false (no use reads it there: the machine
//! SSA's rule, see [`super`]). Two values of one block defined under guards the
//! block's compares show disjoint ([`crate::psi::guards::Guards`]) are therefore never
//! both defined, and may share a register although both are live: when `g` holds,
//! the other's write was nullified, and the reverse. A guarded definition may take a
//! colour held only by such values. Excluded are definitions that keep a value
//! (defined everywhere), values kept later (their keeper needs their colour free),
//! compares that write where their guard is false (`.unc`), and values from other
//! blocks (their guards are not known here). The spiller still counts such values
//! apart; what sharing saves is registers (callee-saved ones to save) and moves.

use cranelift_entity::{EntityRef, SecondaryMap};

use rustc_hash::FxHashMap as HashMap;

use vliw_isa::CmpType;

use super::analysis::{Analysis, virtual_defs};
use super::regs::{Mask, allocatable, class_index, number, preference};
use crate::mir::{Imm, MBlock, MGuard, MInst, MOp, MachFunction, Reg, VReg};
use crate::psi::guards::Guards;
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

/// Colours held at a point, with the live values that hold each (values joined by a
/// copy, or defined under disjoint guards, may share one).
struct Held {
    holders: [Vec<Vec<VReg>>; 2],
    mask: [Mask; 2],
}

impl Held {
    fn new() -> Held {
        Held {
            holders: [vec![Vec::new(); 64], vec![Vec::new(); 64]],
            mask: [0; 2],
        }
    }

    fn take(&mut self, c: usize, colour: u8, v: VReg) {
        self.holders[c][colour as usize].push(v);
        self.mask[c] |= 1 << colour;
    }

    fn free(&mut self, c: usize, colour: u8, v: VReg) {
        let list = &mut self.holders[c][colour as usize];
        if let Some(at) = list.iter().position(|&h| h == v) {
            list.swap_remove(at);
        }
        if list.is_empty() {
            self.mask[c] &= !(1 << colour);
        }
    }
}

/// The guards of the values defined so far in the block being coloured that may
/// share a register with a value under a disjoint guard (see the module
/// documentation), and the block's predicate relations that tell disjointness.
struct Disjoint {
    guards: Guards,
    guard_of: HashMap<VReg, MGuard>,
}

impl Disjoint {
    /// The guard under which `inst` defines its values, when they may share.
    fn sharing_guard(inst: &MInst, kept: &SecondaryMap<VReg, bool>) -> Option<MGuard> {
        let eligible = !inst.guard.is_always()
            && inst.keep.is_none()
            && inst.ctype == CmpType::Normal
            && matches!(inst.op, MOp::Op(_) | MOp::Copy)
            && virtual_defs(inst).all(|d| !kept[d]);
        eligible.then_some(inst.guard)
    }

    /// The colours of class `c` that a definition under `g` may share: every value
    /// holding one is defined in this block under a guard disjoint from `g`.
    fn shareable(&self, held: &Held, c: usize, g: MGuard) -> Mask {
        let mut m: Mask = 0;
        let mut rest = held.mask[c];
        while rest != 0 {
            let colour = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let all_disjoint = held.holders[c][colour].iter().all(|h| {
                self.guard_of
                    .get(h)
                    .is_some_and(|&gh| self.guards.disjoint(gh, g))
            });
            if all_disjoint {
                m |= 1 << colour;
            }
        }
        m
    }
}

/// Colours that definitions still to come in the block want (an affinity partner
/// holds them), counted so that a colour stays wanted while anyone wants it.
struct Wants {
    count: [[u32; 64]; 2],
    mask: [Mask; 2],
    by: HashMap<VReg, Vec<(usize, u8)>>,
}

impl Wants {
    fn new() -> Wants {
        Wants {
            count: [[0; 64]; 2],
            mask: [0; 2],
            by: HashMap::default(),
        }
    }

    fn add(&mut self, d: VReg, c: usize, colour: u8) {
        self.count[c][colour as usize] += 1;
        self.mask[c] |= 1 << colour;
        self.by.entry(d).or_default().push((c, colour));
    }

    /// The colours of class `c` wanted by definitions other than `d` and `also`.
    fn wanted_by_others(&self, c: usize, d: VReg, also: Option<VReg>) -> Mask {
        let mut mask = self.mask[c];
        let mut own = [0u32; 64];
        for v in core::iter::once(d).chain(also) {
            for &(cc, colour) in self.by.get(&v).map_or(&[][..], |x| &x[..]) {
                if cc == c {
                    own[colour as usize] += 1;
                }
            }
        }
        for (colour, &n) in own.iter().enumerate() {
            if n > 0 && self.count[c][colour] == n {
                mask &= !(1 << colour);
            }
        }
        mask
    }

    fn remove(&mut self, d: VReg) {
        for (c, colour) in self.by.remove(&d).unwrap_or_default() {
            self.count[c][colour as usize] -= 1;
            if self.count[c][colour as usize] == 0 {
                self.mask[c] &= !(1 << colour);
            }
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
    /// A colour for `v`: free, or held only by values under guards disjoint from
    /// `shareable`'s (those first: no register more is used), not forbidden; an
    /// affinity partner's if possible, else in the order of [`preference`].
    fn choose(
        &self,
        v: VReg,
        also: Option<VReg>,
        held: &Held,
        shareable: Mask,
        wanted: Mask,
    ) -> Result<u8, VReg> {
        let class = self.mf.vregs[v];
        let c = class_index(class);
        let allowed = allocatable(class) & !self.a.forbidden[v];
        let shared = allowed & shareable;
        let free = (allowed & !held.mask[c]) | shared;
        if free == 0 {
            return Err(v);
        }
        if shared != 0 {
            let colour = self.hints[v]
                .iter()
                .map(|&(partner, _)| match partner {
                    Reg::Virtual(u) if self.mf.vregs[u] == class => self.colour[u],
                    _ => NONE,
                })
                .find(|&colour| colour != NONE && shared & (1 << colour) != 0);
            return Ok(colour.unwrap_or(shared.trailing_zeros() as u8));
        }
        // the value's partners, then those of the definition that keeps it (which
        // takes its colour)
        let keeper_hints = also.map_or(&[][..], |k| &self.hints[k][..]);
        for &(partner, _) in self.hints[v].iter().chain(keeper_hints) {
            let colour = match partner {
                Reg::Virtual(u) if self.mf.vregs[u] == class => self.colour[u],
                Reg::Physical(p) if p.class() == class => number(p).1,
                _ => NONE,
            };
            if colour != NONE && free & (1 << colour) != 0 {
                return Ok(colour);
            }
        }
        // a colour that a value defined later in the block wants (its partner holds
        // it) is taken last, so that the later value can still have it
        for pool in [free & !wanted, free] {
            for m in preference(class) {
                if pool & m != 0 {
                    return Ok((pool & m).trailing_zeros() as u8);
                }
            }
        }
        unreachable!("preference covers the allocatable registers")
    }

    /// Whether kept value `v` (kept by `keeper`) would rather take a colour other than
    /// `shared` that its keeper's or its own first coloured affinity partner holds and
    /// that is free: the keeper's result then lands where it is wanted (a loop's
    /// parameter), which saves a move on the back edge, where sharing the copy's
    /// source would save only the copy.
    fn keeper_prefers_other(
        &self,
        v: VReg,
        keeper: Option<&VReg>,
        shared: u8,
        held: &Held,
    ) -> bool {
        let class = self.mf.vregs[v];
        let allowed = allocatable(class) & !self.a.forbidden[v];
        let free = allowed & !held.mask[class_index(class)];
        // (the keeper's partners first: the copy's own first partner is its source)
        let keeper_hints = keeper.map_or(&[][..], |k| &self.hints[*k][..]);
        keeper_hints
            .iter()
            .chain(&self.hints[v])
            .map(|&(partner, _)| match partner {
                Reg::Virtual(u) if self.mf.vregs[u] == class => self.colour[u],
                Reg::Physical(p) if p.class() == class => number(p).1,
                _ => NONE,
            })
            .find(|&c| c != NONE)
            .is_some_and(|c| c != shared && free & (1 << c) != 0)
    }

    fn class(&self, v: VReg) -> usize {
        class_index(self.mf.vregs[v])
    }
}

/// Where each kept value's keeper is, and where values are defined and read last,
/// so that whether a value is dead at a keeper is answered without scanning blocks.
struct Keepers {
    /// Kept value to its keeper: block, index in it, and the keeping definition.
    at: HashMap<VReg, (MBlock, u32, VReg)>,
    /// Where each value is defined: its block, and 0 for a parameter or the
    /// defining operation's index + 1.
    def: SecondaryMap<VReg, Option<(MBlock, u32)>>,
    /// The index of the operation that reads a value last, per block it dies in.
    kill: HashMap<(MBlock, VReg), u32>,
    /// Values whose definition is never read.
    dead_def: SecondaryMap<VReg, bool>,
}

impl Keepers {
    fn new(mf: &MachFunction, a: &Analysis) -> Keepers {
        let mut k = Keepers {
            at: HashMap::default(),
            def: SecondaryMap::new(),
            kill: HashMap::default(),
            dead_def: SecondaryMap::new(),
        };
        for &b in &mf.layout {
            for &p in &mf.blocks[b].params {
                k.def[p] = Some((b, 0));
            }
            for (i, inst) in mf.block_insts(b).enumerate() {
                if let (Some(Reg::Virtual(kv)), Some(&Reg::Virtual(d))) =
                    (inst.keep, inst.defs.first())
                {
                    k.at.insert(kv, (b, i as u32, d));
                }
                for d in virtual_defs(inst) {
                    // (after the operation's own reads: index + 1)
                    k.def[d] = Some((b, i as u32 + 1));
                }
            }
            for &(j, v) in &a.blocks[b].kills {
                k.kill.insert((b, v), j);
            }
            for &(_, v) in &a.blocks[b].dead_defs {
                k.dead_def[v] = true;
            }
        }
        k
    }

    /// The definition in block `b` that keeps `v`, if any.
    fn keeper_in(&self, v: VReg, b: MBlock) -> Option<VReg> {
        self.at
            .get(&v)
            .and_then(|&(kb, _, d)| (kb == b).then_some(d))
    }

    /// Whether `v` is dead when operation `index` of block `b` writes its
    /// definitions (read last by that operation or before it in `b`, or not live
    /// there at all).
    fn dead_at(&self, a: &Analysis, v: VReg, b: MBlock, index: u32) -> bool {
        if self.kill.get(&(b, v)).is_some_and(|&j| j <= index) || self.dead_def[v] {
            return true;
        }
        let live_in = a
            .live
            .live_in(crate::ssa_view::block(b))
            .contains(v.index());
        // (a parameter is at 0, an operation's result at its index + 1)
        let defined_before = self.def[v].is_some_and(|(db, di)| db == b && di <= index);
        !(live_in || defined_before)
    }

    /// Whether `d` may join `holders` in their colour: every kept value among them
    /// all finds the others dead at its keeper, which overwrites the colour.
    fn find_it_free(&self, a: &Analysis, holders: &[VReg], d: VReg) -> bool {
        let all = || holders.iter().copied().chain(core::iter::once(d));
        all().all(|h| {
            !a.kept[h]
                || self.at.get(&h).is_some_and(|&(kb, ki, _)| {
                    all()
                        .filter(|&o| o != h)
                        .all(|o| self.dead_at(a, o, kb, ki))
                })
        })
    }
}

/// Block `b` and the blocks only it leads to: successors whose one predecessor is
/// `b`, and theirs in turn (at most [`FOLLOWERS`] blocks). Their definitions come
/// after `b`'s on every path through them.
fn followers(mf: &MachFunction, preds: &[Vec<MBlock>], b: MBlock) -> Vec<MBlock> {
    let mut chain = vec![b];
    let mut next = 0;
    while next < chain.len() && chain.len() < FOLLOWERS {
        let at = chain[next];
        next += 1;
        let targets: Vec<MBlock> = mf
            .block_insts(at)
            .filter(|i| i.is(vliw_isa::Opcode::Br))
            .flat_map(|i| i.branch_targets(mf))
            .collect();
        for t in targets {
            if preds[t.index()] == [at] && !chain.contains(&t) && chain.len() < FOLLOWERS {
                chain.push(t);
            }
        }
    }
    chain
}

/// The most blocks whose definitions' wants a block takes into account.
const FOLLOWERS: usize = 8;

/// A colouring: a colour per value, and how many guarded definitions took a colour
/// held by values under disjoint guards.
pub struct Colouring {
    pub colours: SecondaryMap<VReg, u8>,
    pub disjoint_shared: usize,
}

/// Colours every value of the reachable blocks; `Err(v)` when `v` finds no colour.
pub fn colour(mf: &MachFunction, a: &Analysis, hints: &Hints) -> Result<Colouring, VReg> {
    let mut k = Colourer {
        mf,
        a,
        hints,
        colour: SecondaryMap::with_default(NONE),
    };
    let kept = &a.kept;
    let mut disjoint_shared = 0;
    let keepers = Keepers::new(mf, a);
    let preds = crate::ssa_view::block_preds(mf, &a.cfg);
    for &bb in a.dom.preorder() {
        let b = mblock(bb);
        let mut held = Held::new();
        for v in a.live.live_in(bb).iter().map(VReg::new) {
            debug_assert_ne!(k.colour[v], NONE, "{v} live into {b} before its definition");
            held.take(k.class(v), k.colour[v], v);
        }
        let facts = &a.blocks[b];
        for &p in &mf.blocks[b].params {
            if facts.dead_params.contains(&p) {
                continue;
            }
            let c = k.choose(p, None, &held, 0, 0)?;
            k.colour[p] = c;
            held.take(k.class(p), c, p);
        }
        // the colours the block's later definitions want: their coloured partners'
        // (a kept value wants what its keeper wants: they share a colour); and those
        // of the blocks that only this one leads to (a pipelined loop's kernel copies,
        // `sched::modulo::expand`: a back-edge value defined in the last copy wants
        // its parameter's colour through all of them)
        let mut wants = Wants::new();
        for inst in followers(mf, &preds, b)
            .into_iter()
            .flat_map(|f| mf.block_insts(f))
        {
            for d in virtual_defs(inst) {
                for &(partner, _) in &hints[d] {
                    if let Reg::Virtual(u) = partner
                        && mf.vregs[u] == mf.vregs[d]
                        && k.colour[u] != NONE
                    {
                        wants.add(d, k.class(d), k.colour[u]);
                    }
                }
            }
        }
        let mut disjoint = mf
            .block_insts(b)
            .any(|inst| Disjoint::sharing_guard(inst, kept).is_some())
            .then(|| Disjoint {
                guards: Guards::of_block(mf, b),
                guard_of: HashMap::default(),
            });
        let (mut kills, mut dead) = (
            facts.kills.iter().peekable(),
            facts.dead_defs.iter().peekable(),
        );
        for (i, inst) in mf.block_insts(b).enumerate() {
            let i = i as u32;
            while let Some(&(_, v)) = kills.next_if(|(j, _)| *j == i) {
                held.free(k.class(v), k.colour[v], v);
            }
            let sharing = disjoint
                .as_ref()
                .and_then(|_| Disjoint::sharing_guard(inst, kept));
            for d in virtual_defs(inst) {
                let shared = match (inst.op, inst.uses.first()) {
                    // (not when the source is kept, nor when the copy is kept and
                    // the source still lives at its keeper: the keeping definition
                    // overwrites the colour while the other may still live)
                    (MOp::Copy, Some(&Reg::Virtual(s)))
                        if !kept[s]
                            && mf.vregs[s] == mf.vregs[d]
                            && k.colour[s] != NONE
                            && held.mask[k.class(s)] & (1 << k.colour[s]) != 0
                            && a.forbidden[d] & (1 << k.colour[s]) == 0
                            && keepers.find_it_free(
                                a,
                                &held.holders[k.class(s)][k.colour[s] as usize],
                                d,
                            )
                            && !(kept[d]
                                && k.keeper_prefers_other(
                                    d,
                                    keepers.keeper_in(d, b).as_ref(),
                                    k.colour[s],
                                    &held,
                                )) =>
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
                    (None, _) => {
                        let shareable = match (&disjoint, sharing) {
                            (Some(dj), Some(g)) => dj.shareable(&held, k.class(d), g),
                            _ => 0,
                        };
                        let also = keepers.keeper_in(d, b);
                        let wanted = wants.wanted_by_others(k.class(d), d, also);
                        let c = k.choose(d, also, &held, shareable, wanted)?;
                        disjoint_shared += usize::from(held.mask[k.class(d)] & (1 << c) != 0);
                        c
                    }
                };
                k.colour[d] = c;
                held.take(k.class(d), c, d);
                wants.remove(d);
                if let (Some(dj), Some(g)) = (disjoint.as_mut(), sharing) {
                    dj.guard_of.insert(d, g);
                }
            }
            while let Some(&(_, v)) = dead.next_if(|(j, _)| *j == i) {
                held.free(k.class(v), k.colour[v], v);
            }
        }
    }
    Ok(Colouring {
        colours: k.colour,
        disjoint_shared,
    })
}
