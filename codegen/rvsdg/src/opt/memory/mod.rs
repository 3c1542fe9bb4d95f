//! Memory optimizations: loads that read what an earlier store wrote, an earlier load
//! read or a `memset` filled, and stores to stack slots that nothing reads. Reissmann
//! et al. order side effects by state edges, which makes these walks along a chain;
//! jlm's alias analyses and memory state encoder (`llvm/opt/alias-analyses/`) are the
//! reference for memory.
//!
//! - `address.rs`: the object and offset of every pointer;
//! - `escape.rs`: which stack slots' addresses escape the λ;
//! - `access.rs`: what each node reads and writes, when two accesses are disjoint;
//! - `constant_copies.rs`: stack copies of read-only data read in place
//!   (`memory.constant-copies`, `memory.constant-copies-removed`), first;
//! - `constant_loads.rs`: loads of read-only data at known offsets become constants
//!   (`memory.constant-loads`), after the copies;
//! - `forward.rs`: store-to-load forwarding and redundant load elimination along
//!   each region's memory state chain (`memory.forwarded-stores`,
//!   `memory.redundant-loads`);
//! - `dead_stores.rs`: dead stores to stack slots that do not escape
//!   (`memory.dead-stores`);
//! - `promote.rs`: scalar promotion of stack slot cells in loops whose address has
//!   not escaped yet, its own pass (`rvsdg-promote`);
//! - `split.rs`: memory state splitting by disjoint locations, its own pass
//!   (`rvsdg-mem-split`).
//!
//! Each λ is analyzed, forwarded, analyzed again if that changed the graph, then its
//! dead stores removed; again while that removed a store (a removed store may have
//! overwritten part of what a load reads, or been what let a slot's address escape),
//! at most [`MAX_ROUNDS`] times. (Forwarding alone enables no further forwarding: a
//! removed load writes nothing and lets no address escape.)

mod access;
mod address;
mod constant_copies;
mod constant_loads;
mod dead_stores;
mod escape;
mod forward;
mod promote;
mod split;

pub use access::{Access, Analysis, Effects};
pub use address::{Addr, Addresses, Base};
pub use escape::noalias_params;
pub use promote::promote_loop_cells;
pub use split::{SplitOptions, split_memory_states};

use crate::graph::Node;
use crate::module::ReadOnlyData;
use crate::ops::{Rvsdg, Ty};
use crate::report::Report;

/// At most this many rounds of analysis, forwarding and dead store removal per λ.
pub const MAX_ROUNDS: usize = 4;

/// Reads stack copies of read-only data (`read_only`: the module's) in place,
/// forwards stored and loaded values to the loads that read them again, and removes
/// the stores to stack slots that nothing reads.
pub fn memory_optimization(g: &mut Rvsdg, read_only: &ReadOnlyData, report: &mut Report) {
    let mut counts = forward::Counts::default();
    let mut copies = constant_copies::Counts::default();
    let mut constant_loads = 0;
    let mut dead = 0;
    for l in g.lambdas() {
        let body = g.lambda_body(l);
        let mut fresh = Some(Analysis::of_lambda(g, l));
        if let Some(a) = &fresh
            && constant_copies::read_in_place(g, l, a, read_only, &mut copies)
        {
            fresh = Some(Analysis::of_lambda(g, l));
        }
        if let Some(a) = &fresh {
            let folded = constant_loads::fold_loads(g, l, a, read_only);
            constant_loads += folded;
            if folded > 0 {
                fresh = None;
            }
        }
        for _ in 0..MAX_ROUNDS {
            let a = fresh.take().unwrap_or_else(|| Analysis::of_lambda(g, l));
            let before = (counts.forwarded, counts.redundant);
            forward::forward(g, &a, body, &mut counts);
            let a = if before == (counts.forwarded, counts.redundant) {
                a
            } else {
                Analysis::of_lambda(g, l)
            };
            let removed = dead_stores::remove_dead_stores(g, &a, body);
            dead += removed;
            if removed == 0 {
                break;
            }
        }
    }
    report.count("memory.forwarded-stores", counts.forwarded as u64);
    report.count("memory.redundant-loads", counts.redundant as u64);
    report.count("memory.dead-stores", dead as u64);
    report.count("memory.constant-copies", copies.slots as u64);
    report.count("memory.constant-copies-removed", copies.copies as u64);
    report.count("memory.constant-loads", constant_loads as u64);
}

/// Removes memory operation `n`, its memory state passed on to its users (their
/// values, if any, must be given other origins first); false when `n` does not take
/// and give one memory state.
fn remove_memory_node(g: &mut Rvsdg, n: Node) -> bool {
    let mem_in = g.inputs(n).iter().copied().find(|&o| g.ty(o) == Ty::Mem);
    let mem_out = g.outputs(n).find(|&o| g.ty(o) == Ty::Mem);
    let (Some(i), Some(o)) = (mem_in, mem_out) else {
        return false;
    };
    g.divert_users(o, i);
    g.remove_node(n);
    true
}
