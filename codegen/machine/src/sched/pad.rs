//! Stall-free code across blocks: empty bundles (or a later issue of the exit) where a
//! result could still be in flight when code after a control transfer reads it.
//!
//! Within a block the dependence graph already keeps every read at or after its
//! producer's issue + latency. Across blocks the convention is:
//!
//! - code the compiler does not see finds the registers it may read ready: a
//!   `call`, `callr` or `ret` issues only when the argument and result registers
//!   (`r3`..`r10`), `sp`, `tp` and the callee-saved registers its block wrote are
//!   ready by the time the next bundle issues (the other caller-saved registers are
//!   written before they are read on the other side, and a write makes the register
//!   ready at its own latency: the last write decides); a `jr` without a jump table
//!   waits for every register;
//! - a known successor block `S` may find register `r` still pending for
//!   `need(S, r)` cycles after its entry, where `need` is the earliest cycle at which
//!   `S`, or any path from its entry, may read `r`: the cycle of `S`'s first read of
//!   `r`, or, through each exit of `S` (a taken branch at cycle `c` enters its target
//!   at `c + 1 + branch-penalty`, falling through at the cycle after the last
//!   bundle), that entry cycle plus the target's `need` (0 for unknown code). It is a
//!   backward fixpoint (a minimum over paths) over the schedules of the blocks,
//!   capped at the longest latency.
//!
//! Each exit is then delayed (the branch, call or return moved to a later bundle,
//! empty bundles before it) and each fall-through padded with empty bundles until
//! what its block may leave in flight is within its successors' `need`. Delays only
//! move operations later, so the first reads the fixpoint was computed from only get
//! later and stay safe.

use vliw_isa::{LatencyClass, MachineConfig};

use super::deps::{NUM_REGS, OpInfo, reg_index};
use crate::mir::PReg;

/// Where a control transfer goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Blocks of the function, as positions in the layout.
    Blocks(Vec<usize>),
    /// Code the compiler does not see behind a call or a return (callee, caller):
    /// it may read the argument and result registers, `sp`, `tp` and the
    /// callee-saved registers at once, but no other caller-saved register before
    /// writing it (the calling convention).
    Abi,
    /// Other code the compiler does not see (an indirect jump without a jump
    /// table): it may read any register at once.
    Unknown,
}

/// `need` at a call or return boundary ([`Target::Abi`]): 0 but for the caller-saved
/// registers that carry neither arguments nor results.
fn abi_need(cap: u32) -> Need {
    let mut n = [0u32; NUM_REGS];
    for p in crate::abi::caller_saved() {
        let arg_or_result = matches!(p, PReg::Gpr(g) if (3..=10).contains(&g.num()));
        if !arg_or_result {
            n[reg_index(p)] = cap;
        }
    }
    n
}

/// The scheduled form of a block that padding looks at.
pub struct BlockSchedule<'a> {
    pub ops: &'a [OpInfo],
    /// The bundle of each operation (index = cycle; may hold empty cycles).
    pub bundles: Vec<Vec<usize>>,
    /// Taken control transfers: operation and target.
    pub exits: Vec<(usize, Target)>,
    /// The next block in the layout when the block may fall through its end.
    pub fallthrough: Option<usize>,
}

type Need = [u32; NUM_REGS];

fn max_latency(config: &MachineConfig) -> u32 {
    LatencyClass::ALL
        .into_iter()
        .map(|c| config.latency(c))
        .max()
        .unwrap_or(1)
}

/// `need(S, r)` for every block of the layout.
pub fn needs(blocks: &[BlockSchedule<'_>], config: &MachineConfig) -> Vec<Need> {
    let cap = max_latency(config);
    let penalty = config.taken_branch_penalty;
    let mut first_read: Vec<Need> = Vec::with_capacity(blocks.len());
    for b in blocks {
        let mut f = [cap; NUM_REGS];
        for (c, bundle) in b.bundles.iter().enumerate() {
            for &i in bundle {
                for &r in &b.ops[i].reads {
                    f[r] = f[r].min(c as u32);
                }
            }
        }
        first_read.push(f);
    }
    let exit_cycles: Vec<Vec<(u32, &Target)>> = blocks
        .iter()
        .map(|b| {
            let mut cycle = vec![0u32; b.ops.len()];
            for (c, bundle) in b.bundles.iter().enumerate() {
                for &i in bundle {
                    cycle[i] = c as u32;
                }
            }
            b.exits
                .iter()
                .map(|(i, t)| (cycle[*i] + 1 + penalty, t))
                .collect()
        })
        .collect();
    let abi = abi_need(cap);
    let mut need = first_read.clone();
    loop {
        let mut changed = false;
        for k in (0..blocks.len()).rev() {
            let mut n = first_read[k];
            let mut through = |entry: u32, target: Option<&Need>| {
                for r in 0..NUM_REGS {
                    let v = entry.saturating_add(target.map_or(0, |t| t[r])).min(cap);
                    n[r] = n[r].min(v);
                }
            };
            for &(entry, target) in &exit_cycles[k] {
                match target {
                    Target::Unknown => through(entry, None),
                    Target::Abi => through(entry, Some(&abi)),
                    Target::Blocks(ts) => {
                        for &t in ts {
                            through(entry, Some(&need[t]));
                        }
                    }
                }
            }
            if let Some(next) = blocks[k].fallthrough {
                through(blocks[k].bundles.len() as u32, Some(&need[next]));
            }
            if n != need[k] {
                need[k] = n;
                changed = true;
            }
        }
        if !changed {
            return need;
        }
    }
}

/// Delays the exits of a block and pads its end so that nothing it leaves in flight
/// is read early; returns the new bundles (empty ones are empty cycles).
pub fn pad_block(b: &BlockSchedule<'_>, need: &[Need], config: &MachineConfig) -> Vec<Vec<usize>> {
    let penalty = config.taken_branch_penalty;
    let zero = [0u32; NUM_REGS];
    let abi = abi_need(max_latency(config));
    let mut ready_at = [0u32; NUM_REGS];
    let mut exit_of: Vec<Option<&Target>> = vec![None; b.ops.len()];
    for (i, t) in &b.exits {
        exit_of[*i] = Some(t);
    }
    let mut out: Vec<Vec<usize>> = Vec::with_capacity(b.bundles.len());
    for bundle in &b.bundles {
        let mut current: Vec<usize> = Vec::with_capacity(bundle.len());
        for &i in bundle {
            if let Some(target) = exit_of[i] {
                let needs: Vec<&Need> = match target {
                    Target::Unknown => vec![&zero],
                    Target::Abi => vec![&abi],
                    Target::Blocks(ts) => ts.iter().map(|&t| &need[t]).collect(),
                };
                // issue cycle c must satisfy ready_at[r] <= c + 1 + penalty + need[r]
                let mut required = 0u32;
                for n in needs {
                    for r in 0..NUM_REGS {
                        required = required.max(ready_at[r].saturating_sub(1 + penalty + n[r]));
                    }
                }
                let now = out.len() as u32;
                if required > now {
                    if !current.is_empty() {
                        out.push(core::mem::take(&mut current));
                    }
                    while (out.len() as u32) < required {
                        out.push(Vec::new());
                    }
                }
            }
            let c = out.len() as u32;
            let op = &b.ops[i];
            for &(r, conditional) in &op.writes {
                let done = c + op.latency;
                ready_at[r] = if conditional {
                    ready_at[r].max(done)
                } else {
                    done
                };
            }
            current.push(i);
        }
        out.push(current);
    }
    if let Some(next) = b.fallthrough {
        let mut required = 0u32;
        for r in 0..NUM_REGS {
            required = required.max(ready_at[r].saturating_sub(need[next][r]));
        }
        while (out.len() as u32) < required {
            out.push(Vec::new());
        }
    }
    out
}
