//! The cost model: is a region faster as one predicated block than as branches?
//!
//! Both sides are estimated in cycles from the machine description (issue width, units,
//! latencies, taken-branch penalty), without a profile: each two-way branch goes either
//! way with probability ½.
//!
//! - **Branches.** A block costs the larger of its resource bound (its operations and
//!   exit over the issue width, and per unit kind over the units of that kind) and its
//!   dependence height (the longest latency chain inside it, plus one cycle for a
//!   conditional branch to read the predicate its compare wrote); every block exit
//!   costs half the taken-branch penalty (of a two-way branch one side falls through;
//!   of a jump, the join often follows in the layout). The region costs the expected
//!   sum over its blocks, each weighted by the probability that a run reaches it.
//! - **Predicated.** One block holding every operation of the region plus what
//!   predication adds (the predicates of blocks and edges, a `sel` per ψ argument after
//!   the first, for the parameters whose arguments differ): the resource bound of all
//!   of it, or the height of the longest path of
//!   blocks through the region (their heights added, since a block's guarded operations
//!   wait for the predicates computed before it), plus one cycle for the `sel`s of the
//!   join, whichever is larger.
//!
//! A region is converted when the predicated estimate is at most the branchy one and it
//! stays within the limits on operations and predicates ([`Limits`]).

use rustc_hash::FxHashMap as HashMap;

use vliw_isa::{LatencyClass, MachineConfig, Opcode, Unit};

use super::region::{Exit, Region, speculable};
use crate::mir::{MBlock, MOp, MachFunction, Reg};

/// Limits on what one region may hold once predicated.
#[derive(Copy, Clone, Debug)]
pub struct Limits {
    /// Blocks of a region, the entry included.
    pub max_blocks: usize,
    /// Operations of a region, the entry's included.
    pub max_ops: usize,
    /// Predicates a region may create (block and edge predicates): the machine has 15
    /// allocatable ones, and predicates are live across the whole region.
    pub max_predicates: usize,
    /// How ψ guards are promoted (003 §3.1; `promotion=on|off`, `ppg=on|off`).
    pub promotion: super::Promotion,
    /// ψs as decision trees of two-argument ψs (`psi-shape=tree`) rather than one flat
    /// ψ per join (`psi-shape=flat`).
    pub psi_tree: bool,
    /// Speculate loads as `lds` (`speculate-loads=on|off`, on by default: the machine
    /// has no memory-mapped devices, so a load has no effect to keep under a guard).
    pub speculate_loads: bool,
    /// Convert the whole body of an innermost loop when it is faster once pipelined
    /// (its resource bound), within twice the limits (`if-convert-loops=on|off`).
    pub loop_bodies: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_blocks: 16,
            max_ops: 96,
            max_predicates: 8,
            promotion: super::Promotion::Ppg,
            psi_tree: true,
            speculate_loads: true,
            loop_bodies: true,
        }
    }
}

/// The estimates for one region.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Expected cycles with branches.
    pub branchy: f64,
    /// Cycles as one predicated block.
    pub predicated: f64,
    /// Operations once predicated (added ones included).
    pub ops: usize,
    /// Predicates predication creates.
    pub predicates: usize,
    /// For the whole body of an innermost loop: cycles per iteration once the one
    /// block it becomes is software-pipelined, bounded by its resources (module
    /// documentation).
    pub pipelined: Option<f64>,
}

impl Estimate {
    /// Whether the region is worth converting: within the limits (twice them for the
    /// whole body of an innermost loop, whose predicates live in the loop only), and
    /// as fast predicated as with branches, or faster once pipelined.
    pub fn profitable(&self, limits: &Limits) -> bool {
        let scale = if self.pipelined.is_some() { 2 } else { 1 };
        self.ops <= limits.max_ops * scale
            && self.predicates <= limits.max_predicates * scale
            && (self.predicated <= self.branchy || self.pipelined.is_some_and(|p| p < self.branchy))
    }
}

/// What one block contributes.
#[derive(Default, Clone, Copy)]
struct BlockCost {
    ops: usize,
    per_unit: [usize; Unit::COUNT],
    height: u32,
}

fn latency(machine: &MachineConfig, o: Opcode) -> u32 {
    machine.latency(o.latency_class())
}

/// The operations before a block's exit: count, per unit, and the dependence height.
fn block_cost(mf: &MachFunction, region: &Region, b: MBlock, machine: &MachineConfig) -> BlockCost {
    let body = region.body(mf, b);
    let mut cost = BlockCost::default();
    let mut ready: HashMap<Reg, u32> = HashMap::default();
    for &id in body {
        let inst = mf.inst(id);
        let (unit, lat) = match inst.op {
            MOp::Op(o) => (o.unit(), latency(machine, o)),
            _ => (Unit::Alu, machine.latency(LatencyClass::Alu)),
        };
        cost.ops += 1;
        cost.per_unit[unit as usize] += 1;
        let start = inst
            .all_uses()
            .filter_map(|r| ready.get(&r))
            .max()
            .copied()
            .unwrap_or(0);
        for d in inst.all_defs() {
            ready.insert(d, start + lat);
        }
        cost.height = cost.height.max(start + lat);
    }
    cost
}

/// Cycles to issue `ops` operations of which `per_unit[u]` need a unit of kind `u`.
fn resource_bound(ops: usize, per_unit: &[usize; Unit::COUNT], machine: &MachineConfig) -> f64 {
    let mut bound = ops.div_ceil(machine.width.max(1));
    for u in Unit::ALL {
        let n = machine.unit_count(u).max(1) as usize;
        bound = bound.max(per_unit[u as usize].div_ceil(n));
    }
    bound as f64
}

/// How many parameters of `b` the region's edges into it pass different values: the
/// others need no ψ (every path passes the same register).
fn differing_params(mf: &MachFunction, region: &Region, b: MBlock) -> usize {
    // the arguments of each edge into `b` (a guarded branch passes none)
    let edges: Vec<&[Reg]> = region
        .blocks
        .iter()
        .filter_map(|&p| match region.exits[&p] {
            Exit::Jump { target } | Exit::Branch { other: target, .. } if target == b => {
                mf.last_inst(p).map(|i| i.args.as_slice())
            }
            _ => None,
        })
        .collect();
    let params = mf.blocks[b].params.len();
    (0..params)
        .filter(|&k| {
            let mut args = edges.iter().map(|a| a.get(k));
            let first = args.next().flatten();
            args.any(|a| a != first)
        })
        .count()
}

/// Estimates both ways of running `region` (module documentation).
pub fn estimate(mf: &MachFunction, region: &Region, machine: &MachineConfig) -> Estimate {
    let penalty = machine.taken_branch_penalty as f64;
    let alu = machine.latency(LatencyClass::Alu);
    let compare = machine.latency(LatencyClass::Compare);
    // branches: the reach probability of each block
    let mut reach: HashMap<MBlock, f64> = HashMap::from_iter([(region.entry(), 1.0)]);
    let mut branchy = 0.0;
    // predicated: when each register and each block's and edge's predicate is ready
    let mut ready: HashMap<Reg, u32> = HashMap::default();
    let mut block_ready: HashMap<MBlock, u32> = HashMap::default();
    let mut edges_into: HashMap<MBlock, Vec<u32>> = HashMap::default();
    let mut height = 0u32;
    let mut total = BlockCost::default();
    let mut predicates = 0;
    let mut added = 0;
    for &b in &region.blocks {
        let exit = region.exits[&b];
        let c = block_cost(mf, region, b, machine);
        let side = usize::from(region.side_exits.contains_key(&b));
        let branch_wait = u32::from(matches!(exit, Exit::Branch { .. }) || side > 0);
        let mut units = c.per_unit;
        units[Unit::Branch as usize] += exit.op_count() + side;
        let cycles = resource_bound(c.ops + exit.op_count() + side, &units, machine)
            .max(f64::from(c.height + branch_wait))
            .max(1.0);
        let p = reach.get(&b).copied().unwrap_or(0.0);
        branchy += p * (cycles + penalty / 2.0);
        let share = p / exit.targets().count() as f64;
        for t in exit.targets() {
            *reach.entry(t).or_default() += share;
        }
        total.ops += c.ops + side;
        total.per_unit[Unit::Branch as usize] += side;
        for (t, n) in total.per_unit.iter_mut().zip(c.per_unit) {
            *t += n;
        }

        // the block's predicate: an OR of its incoming edges' at a join
        let into = edges_into.remove(&b).unwrap_or_default();
        let mut pred_at = into.iter().copied().max().unwrap_or(0);
        if into.len() > 1 {
            pred_at += alu;
            predicates += 1;
            added += into.len() - 1;
        }
        block_ready.insert(b, pred_at);
        // ψs of its parameters: a sel layer after the arguments
        if into.len() > 1 && !mf.blocks[b].params.is_empty() {
            added += differing_params(mf, region, b) * (into.len() - 1);
            for &v in &mf.blocks[b].params {
                ready.insert(v.into(), pred_at + alu);
            }
        }
        for &id in region.body(mf, b) {
            let inst = mf.inst(id);
            let lat = match inst.op {
                MOp::Op(o) => latency(machine, o),
                _ => alu,
            };
            let guarded = b != region.entry() && !speculable(inst, region.speculate_loads);
            let mut start = inst
                .uses
                .iter()
                .filter_map(|r| ready.get(r))
                .max()
                .copied()
                .unwrap_or(0);
            if guarded {
                start = start.max(pred_at);
            }
            for &d in &inst.defs {
                ready.insert(d, start + lat);
            }
            height = height.max(start + lat);
        }
        // the edges' predicates: a compare's own (.unc) or predicate logic after it
        let edge_at = match exit {
            Exit::Jump { .. } => pred_at,
            Exit::Branch { cond, .. } => {
                let c = ready.get(&cond.pred).copied().unwrap_or(0);
                if b == region.entry() {
                    c
                } else {
                    predicates += 2;
                    added += 1;
                    pred_at.max(c) + compare
                }
            }
        };
        for t in exit.targets() {
            edges_into.entry(t).or_default().push(edge_at);
        }
    }
    // the exit's parameters: a sel layer
    let into_exit = edges_into.remove(&region.exit).unwrap_or_default();
    let params = differing_params(mf, region, region.exit);
    if params > 0 && into_exit.len() > 1 {
        added += params * (into_exit.len() - 1);
        height = height.max(into_exit.iter().copied().max().unwrap_or(0) + alu);
    }
    let ops = total.ops + added;
    total.per_unit[Unit::Alu as usize] += added;
    let resources = resource_bound(ops, &total.per_unit, machine);
    let predicated = resources.max(f64::from(height));
    Estimate {
        branchy,
        predicated,
        ops,
        predicates,
        pipelined: region.loop_body.then_some(resources),
    }
}
