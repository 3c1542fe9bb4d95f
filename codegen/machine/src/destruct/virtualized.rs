//! `ssa-destruction=virtual`: Boissinot's destruction with *virtualized* φ copies
//! (thesis §5.3.3, with the per-φ order of §5.2.3). Method I's copies `a'i ← ai` and
//! `a0 ← a'0` are not inserted up front: each is a *virtual copy* at its copy site
//! ([`super::program`]), and its variable `a'` is created only when the copy cannot be
//! coalesced. The result is the one Method I followed by coalescing would give with
//! its copies taken φ by φ (the unit tests check this on random programs), with one
//! difference: Method I's analysis, made once on the program with all its copies,
//! still sees a *dead* φ target `a0` defined at the entry site after `a0 ← a'0` was
//! coalesced, where it meets the other targets defined there; here it is the
//! parameter again, and a later copy may be coalesced where Method I's is not.
//!
//! **Before any copy exists**, the program is read as Method I leaves it
//! ([`Sites::move_phis_to_copy_sites`]): every φ argument is *used at the virtual
//! parallel copy* of its predecessor's exit site — not live after it, so not live out
//! along the edge, unlike Sreedhar et al.'s Method III which treats it as live-out —
//! and every φ target `a0` is defined at the entry site of its block (by `a0 ← a'0`).
//!
//! **One φ at a time** (blocks in layout order, then parameters), all its virtual
//! copies in [`super::coalesce::copy_order`] (decreasing loop depth of their block,
//! then φ links first, then program order, as [`super::coalesce`]), each coalesced or materialized before any other copy is
//! examined. The *φ-node* is the class of the decided members of the φ's web (Method
//! I's `{a'0, ..., a'n}`): materialized `a'` and the classes of the coalesced
//! variables. Coalescing the copy of `x` (`ai` or `a0`) into it needs:
//!
//! 1. no member of `x`'s class to interfere with the copy's own `a'` (same value as
//!    `x`, live from the copy site to the end of the block, or from the block's entry
//!    to the entry site for `a'0`), nor with any `a'` of the φ's *undecided* copies —
//!    variables that do not exist: each is a definition point and a value, and the test
//!    is "a member of another value is live just after that point"
//!    ([`Ctx::intersects_def_at`]). This is how the thesis's rule "never test an
//!    interference with a variable that is not yet materialized" is kept while Method
//!    I's web is still emulated whole: the lost-copy problem (`a0` live out of the
//!    latch that passes `ai`) is found here, against `a'i`, before `a0` joins the
//!    φ-node;
//! 2. the linear class test ([`Classes::interfere`]) between `x`'s class and the φ-node,
//!    with `x`'s live range already *extended* by the copy's: coalescing `a'i ← ai`
//!    moves the use of `ai` from the copy site to the end of the block (it becomes
//!    live out along the edge), coalescing `a0 ← a'0` moves the definition of `a0`
//!    back to the block's entry (it is the parameter again). The extension can make
//!    `ai` meet a member of its class defined at the same site with the same value
//!    (a materialized copy of `ai`'s value for another φ of the block): its
//!    `equal_anc_in` is updated ([`Classes::note_equal_ancestor`]) so that the
//!    linear test stays exact. (Such a member belongs to another φ-node of the same
//!    block, which always interferes with this one at the block's entry: the attempt
//!    fails.) On failure both are undone. Moving `a0`'s definition needs no such
//!    update: nothing else in its class is defined at the block's entry (step 1) or
//!    at the entry site (it would interfere with `a0`, defined there), so neither the
//!    "≺" order nor the chains change.
//!
//! If `x`'s class already is the φ-node (a variable passed on two edges, or a φ
//! passing its own target back), the copy is coalesced without a test, as Method I's
//! coalescer finds the two sides in one class. Otherwise a failed copy is
//! *materialized*: a fresh `a'` with the copy's value, the copy added to the site's
//! `ParallelCopy`, the argument (or parameter) replaced by `a'`, and `a'` added to the
//! φ-node (interference-free by construction: Method I's web is, and every member
//! joined it through the tests above). Only copies that Method I's coalescer would
//! leave are created. A physical argument is always materialized; unreachable blocks
//! get no copy.
//!
//! Afterwards the ordinary copies (`v = copy w` between virtual registers) are
//! coalesced by decreasing loop depth ([`super::coalesce::ordinary_affinities`]), and
//! [`super::rename`] names the classes and sequentializes the parallel copies.

use cranelift_entity::{EntityRef, SecondaryMap};

use super::analyze;
use super::classes::{ClassId, Classes};
use super::coalesce::{CopyOrder, PhiLink, copy_order};
use super::interference::Ctx;
use super::program::{CopySites, END, Point, Sites, insert_copy_sites, push_copy};
use crate::mir::{MBlock, MachFunction, Reg, VReg};
use crate::ssa_view::block;

/// A copy of Method I that is not in the program.
#[derive(Copy, Clone, Debug)]
struct VirtualCopy {
    /// The φ's block for `a0 ← a'0`, else the predecessor.
    block: MBlock,
    target: bool,
    /// The index of the copy site (a `ParallelCopy`) in the block.
    index: usize,
    /// Where `a'` would be defined: the block's entry for `a'0`, the exit site for
    /// `a'i`. It is live just after, to the end of the site's range.
    def: Point,
    /// The value `a'` would hold (`None` for a physical argument: a value of its own).
    value: Option<VReg>,
    /// Loop depth, then φ links first ([`super::coalesce::PhiLink`]).
    rank: CopyOrder,
    /// Program order: the block's position in the layout, entry site first.
    order: (usize, bool),
}

impl VirtualCopy {
    fn site(&self) -> Point {
        Point::inst(self.block, self.index)
    }
}

/// The analyses and classes after the φ copies were coalesced or materialized.
pub struct Virtualized {
    pub copy_sites: CopySites,
    pub ctx: Ctx,
    pub classes: Classes,
    /// Virtual copies examined (what Method I would have inserted, reachable blocks).
    pub considered: usize,
    /// Copies materialized.
    pub materialized: usize,
}

/// Steps 1–3 of §5.2.2 with virtual φ copies (see the module documentation).
pub fn coalesce_phis(mf: &mut MachFunction) -> Virtualized {
    let copy_sites = insert_copy_sites(mf);
    let mut ctx = analyze(mf);
    ctx.sites
        .move_phis_to_copy_sites(mf, &copy_sites, ctx.checker.dominators());
    let mut layout_pos: SecondaryMap<MBlock, usize> = SecondaryMap::new();
    for (i, &b) in mf.layout.iter().enumerate() {
        layout_pos[b] = i;
    }
    // The φ targets of the program as it came (materializing adds registers).
    let mut phi_targets = vec![false; mf.vregs.len()];
    for &b in &mf.layout {
        for p in &mf.blocks[b].params {
            phi_targets[p.index()] = true;
        }
    }
    let mut v = Virtualized {
        classes: Classes::new(mf.vregs.len()),
        copy_sites,
        ctx,
        considered: 0,
        materialized: 0,
    };
    for b0 in v.copy_sites.phi_blocks.clone() {
        if !v.ctx.dom().is_reachable(block(b0)) {
            continue;
        }
        for k in 0..mf.blocks[b0].params.len() {
            v.phi(mf, b0, k, &layout_pos, &phi_targets);
        }
    }
    v
}

impl Virtualized {
    /// The φ of parameter `k` of `b0`.
    fn phi(
        &mut self,
        mf: &mut MachFunction,
        b0: MBlock,
        k: usize,
        layout_pos: &SecondaryMap<MBlock, usize>,
        phi_targets: &[bool],
    ) {
        let loops = self.ctx.checker.loops();
        let entry = self
            .copy_sites
            .entry_index(b0)
            .expect("a block with parameters has an entry site");
        let a0 = mf.blocks[b0].params[k];
        let mut copies = vec![VirtualCopy {
            block: b0,
            target: true,
            index: entry,
            def: Point::new(b0, 0),
            value: Some(self.ctx.value(a0)),
            rank: copy_order(loops.loop_depth(block(b0)), PhiLink::Phi),
            order: (layout_pos[b0], false),
        }];
        for &p in &self.copy_sites.phi_preds[b0] {
            if !self.ctx.dom().is_reachable(block(p)) {
                continue;
            }
            let exit = self
                .copy_sites
                .exit_index(mf, p)
                .expect("an argument-passing block");
            let a = mf.last_inst(p).expect("br").args[k];
            copies.push(VirtualCopy {
                block: p,
                target: false,
                index: exit,
                def: Point::inst(p, exit),
                value: a.as_virtual().map(|a| self.ctx.value(a)),
                rank: copy_order(
                    loops.loop_depth(block(p)),
                    match a.as_virtual() {
                        Some(a) if phi_targets.get(a.index()) == Some(&true) => PhiLink::Phi,
                        _ => PhiLink::Ordinary,
                    },
                ),
                order: (layout_pos[p], true),
            });
        }
        copies.sort_by_key(|c| (c.rank, c.order));
        self.considered += copies.len();
        let mut node: Option<ClassId> = None;
        for (i, c) in copies.iter().enumerate() {
            let var = if c.target {
                Reg::Virtual(a0)
            } else {
                mf.last_inst(c.block).expect("br").args[k]
            };
            let coalesced = match var.as_virtual() {
                Some(x) => self.try_coalesce(x, c, &copies[i + 1..], &mut node),
                None => false,
            };
            if !coalesced {
                self.materialize(mf, c, k, var, &mut node);
            }
        }
    }

    /// Coalesces the virtual copy `c` of `x` into the φ-node if nothing interferes.
    fn try_coalesce(
        &mut self,
        x: VReg,
        c: &VirtualCopy,
        undecided: &[VirtualCopy],
        node: &mut Option<ClassId>,
    ) -> bool {
        let cx = self.classes.class(x);
        if *node == Some(cx) {
            self.extend(x, c);
            return true;
        }
        // 1. the copy's own a' and the undecided ones against x's class
        let members = self.classes.members(cx);
        let ctx = &self.ctx;
        let conflict = core::iter::once(c).chain(undecided).any(|vc| {
            members
                .iter()
                .any(|&m| Some(ctx.value(m)) != vc.value && ctx.intersects_def_at(m, vc.def))
        });
        if conflict {
            return false;
        }
        // 2. the linear test with x's live range extended by the copy's
        let undo = self.extend(x, c);
        match *node {
            None => *node = Some(cx),
            Some(n) => {
                if self.classes.interfere(&self.ctx, n, cx) {
                    self.retract(x, c, undo);
                    return false;
                }
                self.classes.merge(&self.ctx, n, cx);
            }
        }
        true
    }

    /// Gives `x` the live range of the coalesced copy (see the module documentation);
    /// returns the `equal_anc_in` links it changed, with their old values.
    fn extend(&mut self, x: VReg, c: &VirtualCopy) -> Vec<(VReg, Option<VReg>)> {
        if c.target {
            self.ctx.sites.set_def(x, c.def);
            return Vec::new();
        }
        let site = c.site();
        self.ctx.sites.move_use(x, site, Point::new(c.block, END));
        let vx = self.ctx.value(x);
        let meets: Vec<VReg> = self
            .classes
            .members(self.classes.class(x))
            .iter()
            .copied()
            .filter(|&m| m != x && self.ctx.sites.def(m) == Some(site) && self.ctx.value(m) == vx)
            .collect();
        meets
            .into_iter()
            .map(|m| (m, self.classes.note_equal_ancestor(&self.ctx, m, x)))
            .collect()
    }

    fn retract(&mut self, x: VReg, c: &VirtualCopy, undo: Vec<(VReg, Option<VReg>)>) {
        if c.target {
            self.ctx.sites.set_def(x, c.site());
        } else {
            self.ctx
                .sites
                .move_use(x, Point::new(c.block, END), c.site());
        }
        for (m, old) in undo.into_iter().rev() {
            self.classes.set_equal_anc_in(m, old);
        }
    }

    /// Inserts the copy `c` of `var` and adds its new variable to the φ-node.
    fn materialize(
        &mut self,
        mf: &mut MachFunction,
        c: &VirtualCopy,
        k: usize,
        var: Reg,
        node: &mut Option<ClassId>,
    ) {
        let xp = mf.new_vreg(mf.class_of(var));
        let n = mf.vregs.len();
        grow(&mut self.ctx.sites, &mut self.ctx.values, n);
        self.classes.grow(n);
        self.ctx.values[xp.index()] = c.value.unwrap_or(xp);
        let site = c.site();
        if c.target {
            // a0 ← a'0; a0 stays defined at the site
            push_copy(mf, c.block, c.index, var, Reg::Virtual(xp));
            mf.blocks[c.block].params[k] = xp;
            self.ctx.sites.set_def(xp, c.def);
            self.ctx.sites.add_use(xp, site);
        } else {
            // a'i ← ai; ai stays used at the site
            push_copy(mf, c.block, c.index, Reg::Virtual(xp), var);
            mf.last_inst_mut(c.block).expect("br").args[k] = Reg::Virtual(xp);
            self.ctx.sites.set_def(xp, site);
            self.ctx.sites.add_use(xp, Point::new(c.block, END));
        }
        self.materialized += 1;
        let cv = self.classes.class(xp);
        match *node {
            None => *node = Some(cv),
            Some(nd) => {
                let bad = self.classes.interfere(&self.ctx, nd, cv);
                debug_assert!(!bad, "a materialized copy interferes with its φ-node");
                self.classes.merge(&self.ctx, nd, cv);
            }
        }
    }
}

fn grow(sites: &mut Sites, values: &mut Vec<VReg>, n: usize) {
    sites.grow(n);
    while values.len() < n {
        values.push(VReg::new(values.len()));
    }
}
