//! Congruence classes (sets of variables coalesced together) and the linear
//! interference test between two classes (thesis §5.3.2, Alg 14–15, with the
//! extension to equal values).
//!
//! A class is a list sorted by "≺" ([`Ctx::key`]: dominator-tree preorder of the
//! definitions, program order inside a block). Walking two lists merged in that order
//! with a stack that keeps the chain of dominating definitions emulates a depth-first
//! traversal of the *dominance forest* of their union (Budimlić et al.): two members
//! intersect only if one is an ancestor of the other, and a variable that intersects
//! an ancestor intersects every variable on the forest path to it. So each variable is
//! only tested against its parent in the forest — when the parent comes from the other
//! class — or against the nearest ancestor from the other class that has the parent's
//! value and intersects it (`equal_anc_out`), following the chain of same-value
//! intersecting ancestors inside that class (`equal_anc_in`). Two variables of one
//! class are never tested. The walk stops as soon as one list is exhausted and the
//! stack holds none of its members. After a merge, `equal_anc_in` of every member is
//! the nearer (≺-later) of its `equal_anc_in` and `equal_anc_out`.
//!
//! The thesis's `interference` routine writes `if b ← NULL`: it means `b = NULL`.

use cranelift_entity::EntityRef;

use super::interference::Ctx;
use crate::mir::VReg;

/// A partition of the virtual registers into congruence classes.
#[derive(Clone, Debug, Default)]
pub struct Classes {
    class_of: Vec<u32>,
    members: Vec<Vec<VReg>>,
    equal_anc_in: Vec<Option<VReg>>,
    equal_anc_out: Vec<Option<VReg>>,
}

/// A class, by index.
pub type ClassId = u32;

impl Classes {
    /// Every register in a class of its own.
    pub fn new(n: usize) -> Classes {
        let mut c = Classes::default();
        c.grow(n);
        c
    }

    /// Adds singleton classes for registers created since.
    pub fn grow(&mut self, n: usize) {
        for v in self.class_of.len()..n {
            self.class_of.push(self.members.len() as u32);
            self.members.push(vec![VReg::new(v)]);
            self.equal_anc_in.push(None);
            self.equal_anc_out.push(None);
        }
    }

    pub fn class(&self, v: VReg) -> ClassId {
        self.class_of[v.index()]
    }

    pub fn members(&self, c: ClassId) -> &[VReg] {
        &self.members[c as usize]
    }

    /// The classes with more than one member.
    pub fn nontrivial(&self) -> impl Iterator<Item = &[VReg]> {
        self.members
            .iter()
            .filter(|m| m.len() > 1)
            .map(|m| m.as_slice())
    }

    fn order(ctx: &Ctx, v: VReg) -> (u32, u32, u32) {
        // variables without a reachable definition interfere with nothing: first
        ctx.key(v).unwrap_or((0, 0, v.index() as u32))
    }

    fn dominates(ctx: &Ctx, a: VReg, b: VReg) -> bool {
        match (ctx.sites.def(a), ctx.sites.def(b)) {
            (Some(da), Some(db)) => ctx.point_dominates(da, db),
            _ => false,
        }
    }

    /// Whether some member of `red` interferes with some member of `blue` (Alg 15 with
    /// values). Both classes must be interference-free, and built by [`Classes::merge`]
    /// (which maintains `equal_anc_in`). Fills `equal_anc_out` for [`Classes::merge`].
    pub fn interfere(&mut self, ctx: &Ctx, red: ClassId, blue: ClassId) -> bool {
        if red == blue {
            return false;
        }
        let (r, b) = (
            core::mem::take(&mut self.members[red as usize]),
            core::mem::take(&mut self.members[blue as usize]),
        );
        let result = self.walk(ctx, &r, &b);
        self.members[red as usize] = r;
        self.members[blue as usize] = b;
        result
    }

    fn walk(&mut self, ctx: &Ctx, red: &[VReg], blue: &[VReg]) -> bool {
        for &v in red.iter().chain(blue) {
            self.equal_anc_out[v.index()] = None;
        }
        let red_class = self.class(red[0]);
        let mut stack: Vec<VReg> = Vec::new();
        let (mut ir, mut ib) = (0, 0);
        // members of each list on the stack
        let (mut nr, mut nb) = (0usize, 0usize);
        while (ir < red.len() && ib < blue.len())
            || (ir < red.len() && nb > 0)
            || (ib < blue.len() && nr > 0)
        {
            let take_blue = ir == red.len()
                || (ib < blue.len() && Self::order(ctx, blue[ib]) < Self::order(ctx, red[ir]));
            let var = if take_blue {
                ib += 1;
                blue[ib - 1]
            } else {
                ir += 1;
                red[ir - 1]
            };
            while let Some(&top) = stack.last() {
                if Self::dominates(ctx, top, var) {
                    break;
                }
                stack.pop();
                if self.class(top) == red_class {
                    nr -= 1;
                } else {
                    nb -= 1;
                }
            }
            if let Some(&parent) = stack.last()
                && self.interference(ctx, var, parent)
            {
                return true;
            }
            stack.push(var);
            if self.class(var) == red_class {
                nr += 1;
            } else {
                nb += 1;
            }
        }
        false
    }

    /// `interference(a, b)` of §5.3.2: `b` is `a`'s parent in the dominance forest.
    fn interference(&mut self, ctx: &Ctx, a: VReg, parent: VReg) -> bool {
        self.equal_anc_out[a.index()] = None;
        let b = if self.class(a) == self.class(parent) {
            match self.equal_anc_out[parent.index()] {
                Some(b) => b,
                None => return false,
            }
        } else {
            parent
        };
        if !ctx.same_value(a, b) {
            return self.chain_intersect(ctx, a, b);
        }
        self.equal_anc_out[a.index()] = self.first_intersecting(ctx, a, b);
        false
    }

    /// The first of `b`, `equal_anc_in(b)`, ... that intersects `a`.
    fn first_intersecting(&self, ctx: &Ctx, a: VReg, b: VReg) -> Option<VReg> {
        let mut tmp = Some(b);
        while let Some(t) = tmp {
            if ctx.intersect(a, t) {
                return Some(t);
            }
            tmp = self.equal_anc_in[t.index()];
        }
        None
    }

    fn chain_intersect(&self, ctx: &Ctx, a: VReg, b: VReg) -> bool {
        self.first_intersecting(ctx, a, b).is_some()
    }

    /// The reference: every pair, one member from each class.
    pub fn interfere_quadratic(&self, ctx: &Ctx, red: ClassId, blue: ClassId) -> bool {
        red != blue
            && self
                .members(red)
                .iter()
                .any(|&a| self.members(blue).iter().any(|&b| ctx.interfere(a, b)))
    }

    /// Merges `blue` into `red` (right after [`Classes::interfere`] returned false for
    /// them, whose `equal_anc_out` it uses); returns the class.
    pub fn merge(&mut self, ctx: &Ctx, red: ClassId, blue: ClassId) -> ClassId {
        if red == blue {
            return red;
        }
        let r = core::mem::take(&mut self.members[red as usize]);
        let b = core::mem::take(&mut self.members[blue as usize]);
        let mut merged = Vec::with_capacity(r.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < r.len() || j < b.len() {
            let take_b =
                i == r.len() || (j < b.len() && Self::order(ctx, b[j]) < Self::order(ctx, r[i]));
            if take_b {
                merged.push(b[j]);
                j += 1;
            } else {
                merged.push(r[i]);
                i += 1;
            }
        }
        for &v in &merged {
            self.class_of[v.index()] = red;
            let (inn, out) = (self.equal_anc_in[v.index()], self.equal_anc_out[v.index()]);
            self.equal_anc_in[v.index()] = match (inn, out) {
                (Some(x), Some(y)) => Some(if Self::order(ctx, x) < Self::order(ctx, y) {
                    y
                } else {
                    x
                }),
                (x, y) => x.or(y),
            };
            self.equal_anc_out[v.index()] = None;
        }
        self.members[red as usize] = merged;
        red
    }

    /// Sets `equal_anc_in(v)` (the nearest member of `v`'s class that dominates it,
    /// has its value and intersects it).
    pub fn set_equal_anc_in(&mut self, v: VReg, anc: Option<VReg>) {
        self.equal_anc_in[v.index()] = anc;
    }

    /// After the live range of `anc` grew (a virtual copy coalesced,
    /// `ssa-destruction=virtual`), `anc` — same class and value as `v`, dominating it —
    /// intersects `v`: `equal_anc_in(v)` becomes the nearer (≺-later) of the two.
    /// Returns the previous one, to undo with [`Classes::set_equal_anc_in`].
    pub fn note_equal_ancestor(&mut self, ctx: &Ctx, v: VReg, anc: VReg) -> Option<VReg> {
        let old = self.equal_anc_in[v.index()];
        self.equal_anc_in[v.index()] = Some(match old {
            Some(o) if Self::order(ctx, anc) < Self::order(ctx, o) => o,
            _ => anc,
        });
        old
    }

    /// Merges the classes of `a` and `b` if they do not interfere (linear test).
    pub fn try_coalesce(&mut self, ctx: &Ctx, a: VReg, b: VReg) -> bool {
        let (ca, cb) = (self.class(a), self.class(b));
        if ca == cb {
            return true;
        }
        if self.interfere(ctx, ca, cb) {
            return false;
        }
        self.merge(ctx, ca, cb);
        true
    }
}
