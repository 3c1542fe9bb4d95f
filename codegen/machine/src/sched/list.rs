//! The list scheduler: cycle by cycle, the operations whose predecessors are placed
//! and whose distances have elapsed compete for the bundle of the cycle, by priority
//! (the longest latency-weighted path from the operation to the end of the block,
//! then program order), as long as the bundle stays legal for the machine
//! (`vliw_isa::check_bundle`: issue width with `limm` syllables, units of each kind).
//! An operation placed in the current bundle may release a successor at distance 0
//! into the same bundle.

use vliw_isa::{Inst, MachineConfig, check_bundle};

use super::deps::{DepGraph, OpInfo};

/// The critical-path priority of each operation: the longest path, weighted by edge
/// distances, from it to the end of the block, at least its own latency.
pub fn priorities(ops: &[OpInfo], g: &DepGraph) -> Vec<u32> {
    let mut prio = vec![0u32; ops.len()];
    for i in (0..ops.len()).rev() {
        let mut p = ops[i].latency;
        for e in &g.succs[i] {
            p = p.max(e.distance + prio[e.to]);
        }
        prio[i] = p;
    }
    prio
}

/// The cycle of each operation, relative to the block's first bundle. Every edge's
/// distance is respected, and the operations of each cycle form a legal bundle
/// (except an operation too wide for the machine on its own, which gets a bundle
/// alone and is reported by the encoder).
pub fn schedule(ops: &[OpInfo], g: &DepGraph, config: &MachineConfig) -> Vec<u32> {
    schedule_from(ops, g, config, &vec![0; ops.len()])
}

/// [`schedule`] with a first cycle for each operation (`start`): what it reads may
/// still be in flight from the block before.
pub fn schedule_from(
    ops: &[OpInfo],
    g: &DepGraph,
    config: &MachineConfig,
    start: &[u32],
) -> Vec<u32> {
    let n = ops.len();
    let prio = priorities(ops, g);
    let mut waiting: Vec<usize> = g.preds.iter().map(Vec::len).collect();
    let mut earliest = start.to_vec();
    let mut cycle = vec![u32::MAX; n];
    let mut ready: Vec<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    let mut bundle: Vec<Inst> = Vec::with_capacity(config.width);
    let mut placed = 0;
    let mut t = 0u32;
    while placed < n {
        bundle.clear();
        loop {
            let mut best: Option<usize> = None;
            for (k, &i) in ready.iter().enumerate() {
                if earliest[i] > t {
                    continue;
                }
                if let Some(b) = best {
                    let j = ready[b];
                    if (prio[i], core::cmp::Reverse(i)) <= (prio[j], core::cmp::Reverse(j)) {
                        continue;
                    }
                }
                bundle.push(ops[i].inst);
                let fits = check_bundle(&bundle, config).is_ok() || bundle.len() == 1;
                bundle.pop();
                if fits {
                    best = Some(k);
                }
            }
            let Some(k) = best else { break };
            let i = ready.swap_remove(k);
            cycle[i] = t;
            bundle.push(ops[i].inst);
            placed += 1;
            for e in &g.succs[i] {
                earliest[e.to] = earliest[e.to].max(t + e.distance);
                waiting[e.to] -= 1;
                if waiting[e.to] == 0 {
                    ready.push(e.to);
                }
            }
        }
        if bundle.is_empty() {
            // nothing can issue: go to the first cycle at which something can
            let next = ready.iter().map(|&i| earliest[i]).min();
            t = next
                .expect("a ready operation (the graph is acyclic)")
                .max(t + 1);
        } else {
            t += 1;
        }
    }
    cycle
}
