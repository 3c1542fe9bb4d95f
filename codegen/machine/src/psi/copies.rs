//! Out of Psi-SSA by predicated copies (de Ferrière 003 §4, `psi-lowering=predicated-
//! copies`), for the SSA allocator.
//!
//! The paper renames each ψ-congruence class (a ψ's result and arguments) to one
//! variable, which leaves SSA; our allocator colours SSA. So the class stays in SSA as
//! a chain of definitions that *keep* the previous value where their guard is false
//! (`MInst::keep`): `x = ψ(g1?a1, g2?a2, g3?a3)` becomes
//!
//! ```text
//! a1 = ...                          (acc1: a1 itself)
//! (g2) acc2 = op ... keeps a1       (a2's definition, guarded by g2: copy folded)
//! (g3) acc3 = copy a3 keeps acc2    (a predicated copy where a3's cannot be)
//! ```
//!
//! and uses of `x` read `acc3`. Each kept value dies at the definition that keeps it,
//! so the allocator gives the whole chain one register for free (`ssa_regalloc`): the
//! predicated copies and guarded definitions write the class's register under their
//! guards, the rightmost true guard last, which is the ψ's semantics.
//!
//! The three phases of §4 are the conditions under which an argument's definition
//! can keep the chain instead of a copy:
//!
//! - **ψ-normalize** (§4.3): the definition's guard must be the argument's guard (N1;
//!   a pure operation's guard may be narrowed to it, its value only read under it),
//!   and the definitions in dominance order (N2): a definition before the previous
//!   link of the chain cannot keep it. Otherwise a predicated copy
//!   (`psi.normalize-copies`).
//! - **ψ-liveness and ψ-congruence** (§4.4): with the use of argument i at the
//!   definition of argument i+1, an argument read elsewhere too interferes with the
//!   class, and is repaired by a predicated copy (`psi.congruence-copies`); the first
//!   argument, when read elsewhere, by a copy just before the chain's second link.
//! - **φ-congruence** (§4.5) is the allocator's: block arguments as parallel copies
//!   between colours (`regalloc.ssa.copies-after`).
//!
//! Where a ψ's copies would cost more operations than its `sel` chain, or as many
//! without shortening a dependence (no definition keeps the chain, or the first copy
//! reads a parameter of the block: a loop-carried value, whose copy would sit on the
//! recurrence), the ψ becomes the `sel` chain instead
//! (`psi.sels`; the issue's "lowering of ψ to `sel` where that is cheaper";
//! `psi-sel-where-cheaper=off` copies always).
//!
//! The §4.6 improvements: `psi-fold=off` never folds a copy into a definition (every
//! argument but the first gets a copy), `psi-reorder=off` keeps misordered arguments
//! whose guards are disjoint (`guards`) in their order instead of swapping them.
//! Interference between an argument and the ψ's result is ignored by construction
//! (the result is the chain's last link).

use rustc_hash::FxHashMap as HashMap;

use cranelift_entity::SecondaryMap;
use vliw_isa::{CmpType, semantics as sem};

use super::guards::Guards;
use crate::mir::{InstId, MBlock, MGuard, MInst, MOp, MachFunction, Reg, RegClass, VReg};

/// The §4.6 switches.
#[derive(Copy, Clone, Debug)]
pub struct CopyOptions {
    /// Fold an argument's copy into its definition where N1 and N2 allow.
    pub fold: bool,
    /// Swap misordered arguments whose guards are disjoint.
    pub reorder: bool,
    /// Lower a ψ to a `sel` chain where its copies would cost as much or more.
    pub sel_where_cheaper: bool,
}

impl Default for CopyOptions {
    fn default() -> CopyOptions {
        CopyOptions {
            fold: true,
            reorder: true,
            sel_where_cheaper: true,
        }
    }
}

/// What leaving Psi-SSA did (the paper's Figs. 9 and 10 count the copies per phase).
#[derive(Copy, Clone, Default, Debug)]
pub struct CopyStats {
    pub psis: usize,
    /// Predicated copies for N1 (guard) or N2 (order).
    pub normalize_copies: usize,
    /// Copies for arguments read elsewhere too.
    pub congruence_copies: usize,
    /// Arguments whose definition keeps the chain (no copy).
    pub folded: usize,
    /// Adjacent arguments swapped (disjoint guards).
    pub reordered: usize,
    /// Guarded ψs lowered to `sel` chains instead (never made by if-conversion).
    pub selects: usize,
}

/// Leaves Psi-SSA by predicated copies (see the module documentation).
pub fn out_of_psi_ssa(mf: &mut MachFunction, options: CopyOptions) -> CopyStats {
    let mut stats = CopyStats::default();
    let mut uses = use_counts(mf);
    let mut renamed: SecondaryMap<VReg, Option<Reg>> = SecondaryMap::new();
    for b in mf.layout.clone() {
        if !mf
            .block_insts(b)
            .any(|i| i.op == MOp::Psi && i.guard.is_always())
        {
            continue;
        }
        let guards = Guards::of_block(mf, b);
        let mut block = Block::new(mf, b);
        while let Some(at) = block.next_psi(mf) {
            stats.psis += 1;
            block.convert(
                mf,
                at,
                &guards,
                options,
                &mut uses,
                &mut renamed,
                &mut stats,
            );
        }
        block.store(mf);
    }
    rename_uses(mf, &renamed);
    stats.selects += super::select::lower_to_selects(mf);
    stats
}

/// How many times each virtual register is read (each occurrence).
fn use_counts(mf: &MachFunction) -> SecondaryMap<VReg, u32> {
    let mut n: SecondaryMap<VReg, u32> = SecondaryMap::with_capacity(mf.vregs.len());
    for &b in &mf.layout {
        for inst in mf.block_insts(b) {
            for v in inst.all_uses().filter_map(Reg::as_virtual) {
                n[v] += 1;
            }
        }
    }
    n
}

fn resolve(renamed: &SecondaryMap<VReg, Option<Reg>>, mut r: Reg) -> Reg {
    while let Reg::Virtual(v) = r
        && let Some(to) = renamed[v]
    {
        r = to;
    }
    r
}

fn rename_uses(mf: &mut MachFunction, renamed: &SecondaryMap<VReg, Option<Reg>>) {
    if renamed.values().all(Option::is_none) {
        return;
    }
    for b in mf.layout.clone() {
        let ids: Vec<InstId> = mf.block_insts_with_ids(b).map(|(id, _)| id).collect();
        for id in ids {
            let inst = mf.inst_mut(id);
            let map = |r: &mut Reg| *r = resolve(renamed, *r);
            map(&mut inst.guard.pred);
            inst.psi_guards.iter_mut().for_each(|g| map(&mut g.pred));
            inst.uses.iter_mut().for_each(map);
            inst.args.iter_mut().for_each(map);
            inst.keep.iter_mut().for_each(map);
        }
    }
}

/// One block being rewritten: its operations in order, with where each virtual
/// register is defined.
struct Block {
    b: MBlock,
    order: Vec<InstId>,
    /// Where each register is defined in `order` (`index`).
    pos: HashMap<Reg, isize>,
}

/// Where a link goes: the operation at `at` made to keep the chain (`fold`), or a
/// copy after position `at`.
#[derive(Copy, Clone)]
struct Place {
    fold: bool,
    at: isize,
}

/// A link of the chain being built: the register and the position after which it is
/// defined (-1: before the block).
#[derive(Copy, Clone)]
struct Link {
    reg: Reg,
    at: isize,
}

impl Block {
    fn new(mf: &MachFunction, b: MBlock) -> Block {
        Block {
            b,
            order: mf.block_insts_with_ids(b).map(|(id, _)| id).collect(),
            pos: HashMap::default(),
        }
    }

    /// Indexes where each register of the block is defined (after `order` changed).
    fn index(&mut self, mf: &MachFunction) {
        self.pos.clear();
        for (i, &id) in self.order.iter().enumerate() {
            for &d in &mf.inst(id).defs {
                self.pos.insert(d, i as isize);
            }
        }
    }

    fn store(self, mf: &mut MachFunction) {
        mf.set_block_insts(self.b, self.order);
    }

    fn next_psi(&self, mf: &MachFunction) -> Option<usize> {
        self.order.iter().position(|&id| {
            let i = mf.inst(id);
            i.op == MOp::Psi && i.guard.is_always()
        })
    }

    /// Position of `r`'s definition in the block, -1 when it is defined before it
    /// (as of the last `index`).
    fn def_pos(&self, r: Reg) -> isize {
        if r.as_virtual().is_none() {
            return -1;
        }
        self.pos.get(&r).copied().unwrap_or(-1)
    }

    #[allow(clippy::too_many_arguments)]
    fn convert(
        &mut self,
        mf: &mut MachFunction,
        at: usize,
        guards: &Guards,
        options: CopyOptions,
        uses: &mut SecondaryMap<VReg, u32>,
        renamed: &mut SecondaryMap<VReg, Option<Reg>>,
        stats: &mut CopyStats,
    ) {
        let psi = mf.inst(self.order[at]).clone();
        let d = psi.defs[0]
            .as_virtual()
            .expect("a ψ defines a virtual register");
        let class = mf.class_of(psi.defs[0]);
        let mut args: Vec<(MGuard, Reg)> = psi
            .psi_guards
            .iter()
            .zip(&psi.uses)
            .map(|(&g, &a)| (g, resolve(renamed, a)))
            .collect();
        // the ψ is gone: its reads with it
        for (g, a) in &args {
            for r in [g.pred, *a] {
                if let Reg::Virtual(v) = r {
                    uses[v] -= 1;
                }
            }
        }
        self.order.remove(at);
        self.index(mf);
        let read = |uses: &mut SecondaryMap<VReg, u32>, r: Reg| {
            if let Reg::Virtual(v) = r {
                uses[v] += 1;
            }
        };
        if options.reorder {
            self.swap_first_two(&mut args, stats);
            // insertion sort by definition, moving an argument left only past
            // arguments whose guards are disjoint from its own
            for i in 1..args.len() {
                let mut j = i;
                while j > 0
                    && self.def_pos(args[j].1) < self.def_pos(args[j - 1].1)
                    && guards.disjoint(args[j].0, args[j - 1].0)
                {
                    args.swap(j, j - 1);
                    stats.reordered += 1;
                    j -= 1;
                }
            }
            self.swap_first_two(&mut args, stats);
        }
        if args.len() == 1 {
            // a ψ of one argument is a copy of it
            let mut copy = MInst::copy(d.into(), args[0].1);
            copy.loc = psi.loc;
            read(uses, args[0].1);
            let id = mf.make_inst(copy);
            self.order.insert(at, id);
            return;
        }
        // plan the chain (nothing changes yet): the first link a1 itself when
        // nothing reads it after the second link (ψ-liveness: its use is there),
        // else a copy of it just before the second link; then each argument's link.
        // Promoted or not, the first argument's guard is not tested.
        let a1 = args[0].1;
        let a1_at = self.def_pos(a1);
        let once = |r: Reg| args.iter().filter(|x| x.1 == r).count() == 1;
        let mut links: Vec<Place> = Vec::with_capacity(args.len() - 1);
        let mut acc_at = a1_at;
        for &(g, a) in &args[1..] {
            // an argument given twice is read again after its link: never folded
            let place = self.place(mf, options, (g, a), once(a), acc_at, uses);
            acc_at = place.at;
            links.push(place);
        }
        // the previous link may be read up to the second link's position
        let first_copy = !(once(a1) && self.reads_end_by(mf, a1, links[0].at, uses, renamed));
        let copies = usize::from(first_copy) + links.iter().filter(|l| !l.fold).count();
        let sels = (args.len() - 1) * if class == RegClass::Pred { 3 } else { 1 };
        // as many operations either way: the copies win only where they shorten the
        // dependences, a definition keeping the chain in place of the `sel` after it,
        // unless the first copy reads a loop-carried value (it would sit on the
        // recurrence)
        let folds = links.iter().any(|l| l.fold);
        let recurrence = matches!(a1, Reg::Virtual(v) if mf.blocks[self.b].params.contains(&v));
        let cheaper = copies > sels || (copies == sels && !(folds && first_copy && !recurrence));
        if options.sel_where_cheaper && cheaper {
            // a `sel` chain is cheaper (003 §4: where copies would cost more)
            for (g, a) in &args {
                read(uses, g.pred);
                read(uses, *a);
            }
            let mut lowered = psi.clone();
            lowered.psi_guards = args.iter().map(|x| x.0).collect();
            lowered.uses = args.iter().map(|x| x.1).collect();
            let chain = super::select::select_chain(mf, &lowered);
            stats.selects += args.len() - 1;
            for (k, inst) in chain.into_iter().enumerate() {
                let id = mf.make_inst(inst);
                self.order.insert(at + k, id);
            }
            return;
        }
        // (after position, operation): new operations, in the order made
        let mut inserts: Vec<(isize, MInst)> = Vec::new();
        let mut acc = Link { reg: a1, at: a1_at };
        if first_copy {
            let t = mf.new_vreg(class);
            read(uses, a1);
            stats.congruence_copies += 1;
            let second = links[0];
            let before = if second.fold {
                second.at - 1
            } else {
                second.at
            };
            inserts.push((before, MInst::copy(t.into(), a1)));
            acc.reg = t.into();
        }
        for (&(g, a), place) in args[1..].iter().zip(links) {
            read(uses, g.pred);
            read(uses, acc.reg);
            acc = if place.fold {
                let inst = mf.inst_mut(self.order[place.at as usize]);
                if let Reg::Virtual(v) = inst.guard.pred {
                    uses[v] -= 1;
                }
                inst.guard = g;
                inst.keep = Some(acc.reg);
                stats.folded += 1;
                Link {
                    reg: a,
                    at: place.at,
                }
            } else {
                let t = mf.new_vreg(class);
                let mut copy = MInst::copy(t.into(), a).with_guard(g);
                copy.keep = Some(acc.reg);
                copy.loc = psi.loc;
                read(uses, a);
                let a_at = self.def_pos(a);
                let misordered = a_at <= acc.at || a_at < self.def_pos(g.pred);
                let other_guard = self.def_guard(mf, a_at) != Some(g);
                if misordered || other_guard || a.as_virtual().is_none() {
                    stats.normalize_copies += 1;
                } else {
                    stats.congruence_copies += 1;
                }
                inserts.push((place.at, copy));
                Link {
                    reg: t.into(),
                    at: place.at,
                }
            };
        }
        // uses of the ψ's result read the chain's last link
        renamed[d] = Some(acc.reg);
        if let Reg::Virtual(v) = acc.reg {
            uses[v] += uses[d];
        }
        self.insert(mf, inserts);
    }

    /// Where the link for argument `(g, a)` goes after a link defined at `acc_at`:
    /// into `a`'s definition when N1 and N2 hold (or can be made to, narrowing a pure
    /// operation's guard) and nothing else reads `a`, else a predicated copy after
    /// the last of `a`, `g` and the previous link.
    fn place(
        &self,
        mf: &MachFunction,
        options: CopyOptions,
        (g, a): (MGuard, Reg),
        once: bool,
        acc_at: isize,
        uses: &SecondaryMap<VReg, u32>,
    ) -> Place {
        let a_at = self.def_pos(a);
        let g_at = self.def_pos(g.pred);
        let fold = options.fold
            && once
            && a_at > acc_at
            && a_at > g_at
            && matches!(a, Reg::Virtual(v) if uses[v] == 0)
            && self.can_keep(mf, a_at, g);
        Place {
            fold,
            at: if fold {
                a_at
            } else {
                a_at.max(g_at).max(acc_at)
            },
        }
    }

    /// Whether `r` dies by position `limit`: defined in this block (or one of its
    /// parameters: a value from before it may live around a loop through it), and
    /// every read of it in this block at or before `limit` (`uses[r]` counts them all,
    /// the reads of the ψ results already renamed to `r` included: the operations
    /// still name those results until the end, `renamed` says which they are).
    fn reads_end_by(
        &self,
        mf: &MachFunction,
        r: Reg,
        limit: isize,
        uses: &SecondaryMap<VReg, u32>,
        renamed: &SecondaryMap<VReg, Option<Reg>>,
    ) -> bool {
        let Reg::Virtual(v) = r else { return false };
        if self.def_pos(r) < 0 && !mf.blocks[self.b].params.contains(&v) {
            return false;
        }
        let mut seen = 0;
        for (i, &id) in self.order.iter().enumerate() {
            let n = mf
                .inst(id)
                .all_uses()
                .filter(|&u| resolve(renamed, u) == r)
                .count() as u32;
            if n > 0 && i as isize > limit {
                return false;
            }
            seen += n;
        }
        seen == uses[v]
    }

    /// `ψ(T?a, g?b, ...)` is `ψ(T?b, ¬g?a, ...)`: with a first guard promoted to
    /// true, the first two arguments swap when the second is defined first.
    fn swap_first_two(&self, args: &mut [(MGuard, Reg)], stats: &mut CopyStats) {
        if args.len() >= 2
            && args[0].0.is_always()
            && !args[1].0.is_always()
            && self.def_pos(args[1].1) < self.def_pos(args[0].1)
        {
            let (a, (g, b)) = (args[0].1, args[1]);
            args[0] = (MGuard::ALWAYS, b);
            args[1] = (MGuard::new(g.pred, !g.negated), a);
            stats.reordered += 1;
        }
    }

    /// The guard of the operation at `pos` (none before the block).
    fn def_guard(&self, mf: &MachFunction, pos: isize) -> Option<MGuard> {
        (pos >= 0).then(|| mf.inst(self.order[pos as usize]).guard)
    }

    /// Whether the operation at `pos` may take guard `g` and keep the chain: one
    /// virtual definition, writing nothing where its guard is false, and either
    /// guarded by `g` already or pure (its guard may then narrow to `g`, the only
    /// guard under which its value is read).
    fn can_keep(&self, mf: &MachFunction, pos: isize, g: MGuard) -> bool {
        if pos < 0 || g.is_always() {
            return false;
        }
        let inst = mf.inst(self.order[pos as usize]);
        let single = inst.defs.len() == 1
            && inst.keep.is_none()
            && inst.implicit_defs.is_empty()
            && inst.ctype == CmpType::Normal;
        let pure = match inst.op {
            MOp::Copy => true,
            // a speculative load neither faults nor has an effect
            MOp::Op(o) => sem::class(o).is_pure() || o.is_speculative_load(),
            _ => false,
        };
        single && (inst.guard == g || pure)
    }

    /// Puts the new operations after their positions (in the order made at equal
    /// positions).
    fn insert(&mut self, mf: &mut MachFunction, mut inserts: Vec<(isize, MInst)>) {
        if inserts.is_empty() {
            return;
        }
        inserts.sort_by_key(|&(after, _)| after); // stable: keeps the order made
        let old = std::mem::take(&mut self.order);
        let mut pending = inserts.into_iter().peekable();
        let mut out = Vec::with_capacity(old.len() + pending.len());
        while let Some((_, inst)) = pending.next_if(|(after, _)| *after < 0) {
            out.push(mf.make_inst(inst));
        }
        for (i, id) in old.into_iter().enumerate() {
            out.push(id);
            while let Some((_, inst)) = pending.next_if(|(after, _)| *after <= i as isize) {
                out.push(mf.make_inst(inst));
            }
        }
        debug_assert!(pending.next().is_none());
        self.order = out;
    }
}
