//! Value-based interference (thesis §3.5, Thm 6), without live sets or an
//! interference graph: the liveness check of `vliw-ssa` (whose data depends only on
//! the CFG, so it stays valid while copies are added) plus the use points of the
//! variable in the block of the query.
//!
//! - **Intersection.** In strict SSA, if the live ranges of `a` and `b` intersect, the
//!   definition of one dominates the other's; if `def(a)` dominates `def(b)`, they
//!   intersect iff `a` is live just after `def(b)`: used later in that block, or live
//!   out of it. A last use at the operation that defines `b` does not count (an
//!   operation reads before it writes). Two variables defined by one operation (the
//!   pairs of a parallel copy, two block parameters) always intersect.
//! - **Interference**: intersection and different values ([`super::values`]). After
//!   `b ← a; c ← a`, none of `a`, `b`, `c` interfere.

use cranelift_entity::EntityRef;
use vliw_ssa::{DomTree, LivenessChecker};

use super::program::{Point, Sites};
use crate::mir::VReg;
use crate::ssa_view::block;

/// What the interference tests need: the liveness check, the definition and use
/// points, and the values.
pub struct Ctx {
    pub checker: LivenessChecker,
    pub sites: Sites,
    pub values: Vec<VReg>,
}

impl Ctx {
    pub fn dom(&self) -> &DomTree {
        self.checker.dominators()
    }

    /// Whether point `p` dominates point `q` (non-strictly).
    pub fn point_dominates(&self, p: Point, q: Point) -> bool {
        if p.block == q.block {
            p.pos <= q.pos
        } else {
            self.dom().dominates(block(p.block), block(q.block))
        }
    }

    /// The "≺" key of a variable: its definition in dominator-tree preorder, then
    /// program order inside the block, then the register (for one operation's
    /// definitions). `None` for variables without a reachable definition.
    pub fn key(&self, v: VReg) -> Option<(u32, u32, u32)> {
        let d = self.sites.def(v)?;
        let pre = self.dom().preorder_number(block(d.block))?;
        Some((pre, d.pos, v.index() as u32))
    }

    /// Whether `v` is live just after point `p`; `v`'s definition must dominate `p`.
    pub fn live_after(&self, v: VReg, p: Point) -> bool {
        let uses = self.sites.uses(v);
        if uses.iter().any(|u| u.block == p.block && u.pos > p.pos) {
            return true;
        }
        let Some(d) = self.sites.def(v) else {
            return false;
        };
        self.checker.is_live_out(
            block(d.block),
            uses.iter().map(|u| u.use_site()),
            block(p.block),
        )
    }

    /// Whether the live ranges of `a` and `b` intersect.
    pub fn intersect(&self, a: VReg, b: VReg) -> bool {
        if a == b {
            return true;
        }
        let (Some(da), Some(db)) = (self.sites.def(a), self.sites.def(b)) else {
            return false;
        };
        if da == db {
            return true;
        }
        if self.point_dominates(da, db) {
            self.live_after(a, db)
        } else if self.point_dominates(db, da) {
            self.live_after(b, da)
        } else {
            false
        }
    }

    /// Whether `v` intersects a variable defined at `p` and live just after it, up to
    /// the end of `p`'s copy site (the new variable of a copy that is not materialized
    /// yet, `a'i` at an exit site or `a'0` at a block's entry; no operation defines
    /// anything inside those ranges): `v` is defined at `p` too, or its definition
    /// dominates `p` and it is live just after `p`.
    pub fn intersects_def_at(&self, v: VReg, p: Point) -> bool {
        let Some(d) = self.sites.def(v) else {
            return false;
        };
        d == p || (self.point_dominates(d, p) && self.live_after(v, p))
    }

    pub fn value(&self, v: VReg) -> VReg {
        self.values.get(v.index()).copied().unwrap_or(v)
    }

    pub fn same_value(&self, a: VReg, b: VReg) -> bool {
        self.value(a) == self.value(b)
    }

    /// Value-based interference: the live ranges intersect and the values differ.
    pub fn interfere(&self, a: VReg, b: VReg) -> bool {
        !self.same_value(a, b) && self.intersect(a, b)
    }
}
