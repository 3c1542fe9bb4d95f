//! The dependence graph of a loop body across iterations: edges `a → b` with a
//! latency and an iteration distance (`b` of iteration `j + distance` issues at
//! least `latency` cycles after `a` of iteration `j`), and the lower bounds of the
//! initiation interval: ResMII from the machine description's units and width,
//! RecMII from the recurrences.
//!
//! - Within an iteration (distance 0): `deps::DepGraph` over the body in program
//!   order, as scheduling before allocation builds it, with the edges that keep a
//!   kept value's other readers before the definition that keeps it.
//! - Registers carried around the loop (distance 1): the definition of a
//!   parameter's back-edge value → every reader of the parameter.
//! - Memory across iterations (distance 1, latency 1): every pair of accesses of
//!   which one writes, in both directions, unless their addresses provably never
//!   meet in different iterations: both off one parameter that advances by a
//!   constant stride each iteration (the back-edge value is the parameter plus an
//!   immediate, through `add` chains), or both off one value that does not change,
//!   with bytes that do not overlap at any iteration distance, or an alias scope
//!   that proves them apart (`vliw_ir::AliasScope`). Latency 1 (not 0 for
//!   a load before a store) keeps accesses of different iterations out of one cycle,
//!   where the kernel's order inside a cycle follows the body's, not the iterations'.

use cranelift_entity::{EntityRef, SecondaryMap};
use vliw_isa::{Inst, MachineConfig, Unit};

use super::model::{Model, definers};
use crate::mir::{MInst, Reg, VReg};
use crate::sched::deps::{DepGraph, DepKind, NUM_REGS, OpInfo};
use crate::sched::pre_ra::{add_keep_edges, op_info};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LoopEdge {
    pub from: usize,
    pub to: usize,
    pub latency: i64,
    pub distance: i64,
    /// A value flows along it (a true dependence on a register): the scheduler
    /// weighs how long the value lives.
    pub register: bool,
}

pub struct LoopGraph {
    pub ops: Vec<OpInfo>,
    pub edges: Vec<LoopEdge>,
    pub succs: Vec<Vec<usize>>,
    pub preds: Vec<Vec<usize>>,
}

/// The stride of each parameter that advances by an immediate each iteration.
fn strides(
    model: &Model,
    bases: &SecondaryMap<VReg, Option<(VReg, i64)>>,
) -> rustc_hash::FxHashMap<usize, i64> {
    let mut m = rustc_hash::FxHashMap::default();
    for (k, &p) in model.params.iter().enumerate() {
        let stride = match model.args[k] {
            Reg::Virtual(a) if a == p => Some(0),
            Reg::Virtual(a) => match bases[a] {
                Some((root, off)) if root == p => Some(off),
                _ => None,
            },
            _ => None,
        };
        if let Some(s) = stride {
            m.insert(NUM_REGS + p.index(), s);
        }
    }
    m
}

/// Whether accesses `a` (iteration j) and `b` (iteration j + δ, δ ≥ 1) may overlap.
fn may_meet_across(
    a: &OpInfo,
    b: &OpInfo,
    strides: &rustc_hash::FxHashMap<usize, i64>,
    invariant: &dyn Fn(usize) -> bool,
) -> bool {
    // (a scope's claim holds for one execution of the loop: every iteration)
    if let (Some(x), Some(y)) = (a.access, b.access)
        && vliw_ir::AliasScope::apart(x.scope, y.scope)
    {
        return false;
    }
    let (Some(pa), Some(pb)) = (
        a.access.and_then(|x| x.place),
        b.access.and_then(|x| x.place),
    ) else {
        return true;
    };
    if pa.0 != pb.0 {
        return true;
    }
    let stride = match strides.get(&pa.0) {
        Some(&s) => s,
        None if invariant(pa.0) => 0,
        None => return true,
    };
    let (o1, s1) = (pa.2 as i128, pa.3 as i128);
    let (o2, s2) = (pb.2 as i128, pb.3 as i128);
    let stride = stride as i128;
    if stride == 0 {
        return o1 < o2 + s2 && o2 < o1 + s1;
    }
    // b's bytes at iteration distance δ: [o2 + δ·stride, o2 + δ·stride + s2)
    for delta in 1..=4096i128 {
        let lo = o2 + delta * stride;
        if lo < o1 + s1 && o1 < lo + s2 {
            return true;
        }
        if (stride > 0 && lo >= o1 + s1) || (stride < 0 && lo + s2 <= o1) {
            return false;
        }
    }
    true
}

impl LoopGraph {
    pub fn build(
        model: &Model,
        bases: &SecondaryMap<VReg, Option<(VReg, i64)>>,
        config: &MachineConfig,
    ) -> LoopGraph {
        let mut ops: Vec<OpInfo> = model
            .nodes
            .iter()
            .map(|mi| op_info(mi, bases, config))
            .collect();
        let mut g = DepGraph::build(&mut ops);
        let refs: Vec<&MInst> = model.nodes.iter().collect();
        add_keep_edges(&refs, &mut g);
        let mut edges: Vec<LoopEdge> = g
            .succs
            .iter()
            .flatten()
            .map(|e| LoopEdge {
                from: e.from,
                to: e.to,
                latency: i64::from(e.distance),
                distance: 0,
                register: e.kind == DepKind::True,
            })
            .collect();
        let defs = definers(&model.nodes);
        for (k, &p) in model.params.iter().enumerate() {
            let Some(d) = model.carried_def(k, &defs) else {
                continue;
            };
            for (u, n) in model.nodes.iter().enumerate() {
                if n.all_uses().any(|r| r == Reg::Virtual(p)) {
                    edges.push(LoopEdge {
                        from: d,
                        to: u,
                        latency: i64::from(ops[d].latency),
                        distance: 1,
                        register: true,
                    });
                }
            }
        }
        let strides = strides(model, bases);
        // a base that is no parameter and not defined in the body does not change
        // (the physical bases the model admits are `sp` and `tp`)
        let invariant = |index: usize| {
            index < NUM_REGS || {
                let v = VReg::new(index - NUM_REGS);
                !defs.contains_key(&v) && !model.params.contains(&v)
            }
        };
        let mems: Vec<usize> = (0..ops.len())
            .filter(|&i| ops[i].access.is_some())
            .collect();
        for &a in &mems {
            for &b in &mems {
                let (x, y) = (ops[a].access.unwrap(), ops[b].access.unwrap());
                if !(x.writes || y.writes) {
                    continue;
                }
                if may_meet_across(&ops[a], &ops[b], &strides, &invariant) {
                    edges.push(LoopEdge {
                        from: a,
                        to: b,
                        latency: 1,
                        distance: 1,
                        register: false,
                    });
                }
            }
        }
        let n = ops.len();
        let mut succs = vec![Vec::new(); n];
        let mut preds = vec![Vec::new(); n];
        for (k, e) in edges.iter().enumerate() {
            succs[e.from].push(k);
            preds[e.to].push(k);
        }
        LoopGraph {
            ops,
            edges,
            succs,
            preds,
        }
    }

    /// The resource bound: operations per unit over the units, syllables over the
    /// width, with one syllable and the branch unit for the loop's branch. (The
    /// kernel's upkeep of its stage predicates, two or three predicate moves, is not
    /// counted: counting it made `prefix_sum` slower, its loops then not worth
    /// pipelining; the list scheduler fits the moves where slots are free.)
    pub fn res_mii(&self, config: &MachineConfig) -> i64 {
        let mut per_unit = [0u32; Unit::ALL.len()];
        let mut syllables = 1usize;
        for op in &self.ops {
            per_unit[unit_slot(op.inst.opcode.unit())] += 1;
            syllables += op.inst.syllables();
        }
        per_unit[unit_slot(Unit::Branch)] += 1;
        let mut mii = syllables.div_ceil(config.width) as i64;
        for u in Unit::ALL {
            let have = config.unit_count(u).max(1);
            mii = mii.max(i64::from(per_unit[unit_slot(u)].div_ceil(have)));
        }
        mii.max(1)
    }

    /// Whether some recurrence needs more than `ii` cycles (a cycle of positive
    /// weight `latency - ii · distance`).
    pub fn has_positive_cycle(&self, ii: i64) -> bool {
        let n = self.ops.len();
        let mut dist = vec![0i64; n];
        for _ in 0..=n {
            let mut changed = false;
            for e in &self.edges {
                let w = dist[e.from] + e.latency - ii * e.distance;
                if w > dist[e.to] {
                    dist[e.to] = w;
                    changed = true;
                }
            }
            if !changed {
                return false;
            }
        }
        true
    }

    /// The smallest interval the recurrences allow, from `from` up to `limit`
    /// (a positive cycle at II has one at every smaller II: binary search).
    pub fn rec_mii(&self, from: i64, limit: i64) -> Option<i64> {
        let (mut lo, mut hi) = (from.max(1), limit);
        if lo > hi || self.has_positive_cycle(hi) {
            return None;
        }
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.has_positive_cycle(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Some(lo)
    }

    /// Each node's height: the longest path weighted `latency - ii · distance` to
    /// any node, at least its own latency (the scheduling priority).
    pub fn heights(&self, ii: i64) -> Vec<i64> {
        let n = self.ops.len();
        let mut h: Vec<i64> = self.ops.iter().map(|o| i64::from(o.latency)).collect();
        for _ in 0..=n {
            let mut changed = false;
            for e in &self.edges {
                let w = h[e.to] + e.latency - ii * e.distance;
                if w > h[e.from] {
                    h[e.from] = w;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        h
    }
}

pub fn unit_slot(u: Unit) -> usize {
    Unit::ALL
        .iter()
        .position(|&x| x == u)
        .expect("a unit of Unit::ALL")
}

/// The encoded facts of the loop's branch, for the reservation table.
pub fn branch_inst() -> Inst {
    Inst::new(vliw_isa::Opcode::Br)
}
