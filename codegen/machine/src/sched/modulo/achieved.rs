//! What the bundler made of each pipelined loop's kernel: the cycles one trip
//! takes in the final code, beside the interval the modulo schedule gave it.
//!
//! The modulo schedule places the body's operations, but what runs is the kernel
//! after allocation and bundling: the rotating kernel's copies and predicate upkeep
//! (`kernel.rs`), and whatever the bundler after allocation does differently from
//! the schedule (it rebuilds each block's order from its own dependences) take
//! cycles the interval does not count. A trip is one kernel block, or, with modulo
//! variable expansion (`expand.rs`), one of the copies in turn: its cycles are the
//! block's bundles (a bundle with a `nop N` lasts N cycles), without a last bundle
//! that only leaves the loop (the branch to the exit after the back edge's, which a
//! trip that goes on does not reach). Cycles per trip are averaged over the copies.

use vliw_isa::Opcode;

use crate::mir::{Imm, MBlock, MachFunction};

/// One pipelined loop after bundling.
#[derive(Clone, Debug, PartialEq)]
pub struct Achieved {
    /// The kernel's first block (the loop's header).
    pub header: MBlock,
    pub ii: i64,
    pub copies: usize,
    /// Cycles of one trip in the bundled code (mean over the copies).
    pub cycles_per_trip: f64,
}

/// The pipelined loops of a bundled function whose kernel blocks are all still laid
/// out; none before bundling.
pub fn achieved(mf: &MachFunction) -> Vec<Achieved> {
    let Some(bundles) = &mf.bundles else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for lp in &mf.pipelined {
        if lp.kernel.is_empty() || !lp.kernel.iter().all(|b| mf.layout.contains(b)) {
            continue;
        }
        let mut cycles = 0u64;
        for &b in &lp.kernel {
            let block = bundles.block(b);
            let exits_only = |bundle: &Vec<crate::mir::InstId>| {
                bundle.iter().all(|&i| {
                    let mi = mf.inst(i);
                    mi.is(Opcode::Br)
                        && mi.guard.is_always()
                        && !matches!(mi.imm, Imm::Block(t) if lp.kernel.contains(&t))
                })
            };
            let counted = match block.split_last() {
                Some((last, rest)) if !rest.is_empty() && exits_only(last) => rest,
                _ => block,
            };
            cycles += counted
                .iter()
                .map(|bundle| {
                    bundle
                        .iter()
                        .filter_map(|&i| {
                            let mi = mf.inst(i);
                            match (mi.is(Opcode::NopN), &mi.imm) {
                                (true, Imm::Const(n)) => Some((*n).max(1) as u64),
                                _ => None,
                            }
                        })
                        .max()
                        .unwrap_or(1)
                })
                .sum::<u64>();
        }
        out.push(Achieved {
            header: lp.kernel[0],
            ii: lp.ii,
            copies: lp.kernel.len(),
            cycles_per_trip: cycles as f64 / lp.kernel.len() as f64,
        });
    }
    out
}
