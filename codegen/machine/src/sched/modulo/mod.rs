//! Modulo scheduling of inner loops (`modulo=on`): software pipelining on machine SSA
//! before allocation, so that iteration `j + 1` starts II cycles after iteration `j`
//! instead of after it ends.
//!
//! For each single-block loop the model takes (`model`): the dependence graph across
//! iterations (`graph`), MinII = max(ResMII, RecMII), iterative modulo scheduling
//! from MinII up (`ims`), and the kernel (`kernel`): one predicated block that runs
//! every stage at once, without prologue or epilogue, since the machine predicates.
//! A loop is left as it is when its schedule has one stage (nothing overlaps), when
//! II is not below the length of its block's own schedule (nothing gained), or when
//! the kernel would need more registers than the allocator has
//! (`modulo.declined-pressure`). Each pipelined loop's II beside its MinII is
//! reported (`LoopReport`).

pub mod achieved;
pub mod exact;
pub mod expand;
pub mod graph;
pub mod ims;
pub mod kernel;
pub mod model;

#[cfg(test)]
mod tests;

use cranelift_entity::{EntityRef, SecondaryMap};
use vliw_isa::MachineConfig;

use crate::mir::{MBlock, MachFunction, Phase, Reg, RegClass, VReg};
use crate::sched::deps::DepGraph;
use crate::sched::pre_ra::{address_bases, op_info};
use crate::ssa_view::cfg_of;
use graph::LoopGraph;
use model::{Model, Reject, definers};

/// How loops are pipelined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModuloOptions {
    /// Small bodies searched exhaustively where iterative modulo scheduling runs out
    /// of budget at an interval (`modulo-exact=on`, `exact`).
    pub exact: bool,
    /// The kernel as copies that name each trip's values apart (modulo variable
    /// expansion, `modulo-expand=on`, `expand`) instead of one block that rotates
    /// them by copy (`kernel`).
    pub expand: bool,
}

/// One pipelined loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopReport {
    pub function: String,
    pub header: MBlock,
    pub ops: usize,
    pub res_mii: i64,
    pub rec_mii: i64,
    pub ii: i64,
    pub stages: i64,
    /// Cycles of one iteration as the block's own list schedule has it.
    pub block_length: i64,
}

impl std::fmt::Display for LoopReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: {} ops, ResMII {}, RecMII {}, MinII {}, II {}, {} stages, block schedule {} cycles",
            self.function,
            self.header,
            self.ops,
            self.res_mii,
            self.rec_mii,
            self.res_mii.max(self.rec_mii),
            self.ii,
            self.stages,
            self.block_length
        )
    }
}

/// One loop looked at and left as it was, with why (`modulo-report=on` prints
/// these beside the pipelined ones).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declined {
    pub function: String,
    pub header: MBlock,
    pub reason: String,
}

impl std::fmt::Display for Declined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.function, self.header, self.reason)
    }
}

#[derive(Clone, Debug, Default)]
pub struct ModuloStats {
    pub loops: usize,
    pub pipelined: Vec<LoopReport>,
    pub declined: Vec<Declined>,
    pub rejected_shape: usize,
    pub rejected_operation: usize,
    pub rejected_carried: usize,
    pub rejected_live_out: usize,
    pub rejected_compare: usize,
    /// Kernels retried with stage `sel`s after the folded stage guards failed.
    pub unfolded: usize,
    pub one_stage: usize,
    pub not_faster: usize,
    pub declined_pressure: usize,
    pub failed: usize,
}

/// Bodies larger than this are not modulo scheduled (the scheduler is quadratic).
const MAX_OPS: usize = 160;

/// Intervals tried from MinII up.
const MAX_II_ATTEMPTS: i64 = 4;

/// The latest stage of the continuation compare: in stage 1, the next iteration
/// starts before it is known to exist, and its first stage runs speculatively
/// (`kernel`).
const MAX_COMPARE_STAGE: i64 = 1;

/// Pipelines the inner loops of `mf` (machine SSA); with `exact`, a small body at an
/// interval where iterative modulo scheduling gives up is searched exhaustively
/// (`exact`, `modulo-exact=on`).
pub fn pipeline_loops(
    mf: &mut MachFunction,
    config: &MachineConfig,
    options: ModuloOptions,
) -> ModuloStats {
    let mut stats = ModuloStats::default();
    // pipelining rewrites instructions and block arguments, never edges: the
    // predecessors stay as they are
    let cfg = cfg_of(mf);
    let preds = crate::ssa_view::block_preds(mf, &cfg);
    // the address chains of the function; the registers pipelining adds are no
    // addresses
    let bases = address_bases(mf);
    for h in mf.layout.clone() {
        if !preds[h.index()].iter().any(|&p| {
            mf.block_inst_ids(p)
                .last()
                .is_some_and(|&i| mf.inst(i).imm == crate::mir::Imm::Block(h) && p != h)
                && preds[p.index()] == [h]
        }) {
            continue; // not a single-block loop's header
        }
        stats.loops += 1;
        let function = mf.name.clone();
        let mut decline = |reason: String| {
            stats.declined.push(Declined {
                function: function.clone(),
                header: h,
                reason,
            })
        };
        let model = match model::recognize(mf, h, &preds) {
            Ok(m) => m,
            Err(r) => {
                decline(format!("not taken by the model ({})", r.describe()));
                match r {
                    Reject::Shape => stats.rejected_shape += 1,
                    Reject::Operation => stats.rejected_operation += 1,
                    Reject::Carried => stats.rejected_carried += 1,
                    Reject::LiveOut => stats.rejected_live_out += 1,
                    Reject::Compare => stats.rejected_compare += 1,
                }
                continue;
            }
        };
        if model.nodes.len() > MAX_OPS {
            decline(format!("{} operations, above {MAX_OPS}", model.nodes.len()));
            stats.rejected_operation += 1;
            continue;
        }
        let before = mf.clone();
        // with the stage guards folded into definitions first, then (should the
        // kernel not come out) with `sel`s only
        let mut unfolded = model.clone();
        unfolded.fold = false;
        let attempt = |mf: &mut MachFunction, exit_chain: bool, unfolded_count: &mut usize| {
            let mut outcome = pipeline_one(mf, model.clone(), &bases, config, options, exit_chain);
            let failed = match &outcome {
                Outcome::Done(..) => mf.verify(Phase::Ssa).is_err(),
                Outcome::Failed => true,
                _ => false,
            };
            if failed {
                *mf = before.clone();
                *unfolded_count += 1;
                outcome = pipeline_one(mf, unfolded.clone(), &bases, config, options, exit_chain);
            }
            outcome
        };
        let pressure_of = |mf: &MachFunction, blocks: &[MBlock]| {
            crate::ssa_regalloc::analysis::Analysis::compute(mf)
                .is_ok_and(|a| !blocks.iter().any(|b| a.violations.contains(b)))
        };
        let checked = |mf: &MachFunction, outcome: &Outcome| match outcome {
            Outcome::Done(_, blocks) => {
                let ok = mf.verify(Phase::Ssa).is_ok();
                (ok, ok && pressure_of(mf, blocks))
            }
            _ => (true, true),
        };
        let mut outcome = attempt(mf, true, &mut stats.unfolded);
        let (mut ok, mut pressure_ok) = checked(mf, &outcome);
        // the kernel copies' exit chain holds a predicate per stage: where that is
        // too many registers, the copies again with `por`s
        if let Outcome::Done(report, _) = &outcome
            && options.expand
            && report.stages > 2
            && ok
            && !pressure_ok
        {
            *mf = before.clone();
            outcome = attempt(mf, false, &mut stats.unfolded);
            (ok, pressure_ok) = checked(mf, &outcome);
        }
        match outcome {
            Outcome::Done(report, kernel_blocks) => {
                if !ok {
                    *mf = before;
                    decline("the kernel failed verification".into());
                    stats.failed += 1;
                } else if !pressure_ok {
                    *mf = before;
                    decline(format!(
                        "II {} of MinII {}: the kernel needs more registers than there are",
                        report.ii,
                        report.res_mii.max(report.rec_mii)
                    ));
                    stats.declined_pressure += 1;
                } else {
                    mf.pipelined.push(crate::mir::PipelinedLoop {
                        kernel: kernel_blocks,
                        ii: report.ii,
                    });
                    stats.pipelined.push(LoopReport {
                        function: mf.name.clone(),
                        ..report
                    });
                }
            }
            Outcome::OneStage => {
                decline("its schedule has one stage".into());
                stats.one_stage += 1
            }
            Outcome::NotFaster(why) => {
                decline(why);
                stats.not_faster += 1
            }
            Outcome::Failed => {
                *mf = before;
                decline("the kernel could not be emitted".into());
                stats.failed += 1;
            }
        }
    }
    stats
}

/// Whether the operations the kernel adds to the body's for schedule `times` still
/// fit in the reservation table `mrt` before its branch: with kernel copies
/// (`expand`) none (the exit test is a carried predicate), or a `por` per stage
/// beyond the second where the body uses the compare's other result; in the rotating kernel,
/// its predicate upkeep and rotation copies (`kernel::kernel_overhead`, the branch
/// aside). What does not fit makes the kernel a cycle longer than the interval.
fn kernel_fits(
    model: &Model,
    times: &[i64],
    mrt: &ims::Reservations,
    expand: bool,
    other_free: bool,
) -> bool {
    let ii = mrt.interval();
    let stages = times.iter().map(|t| t / ii).max().unwrap_or(0) + 1;
    // (the copies' exit test uses the compare's other result, unless something reads
    // it: `other_free`)
    let adds = match expand
        .then(|| expand::copies_needed(model, times, ii))
        .flatten()
    {
        Some(_) if other_free => 0,
        Some(_) => (stages - 2).max(0) as usize,
        None => kernel::kernel_overhead(model, times, ii).saturating_sub(1),
    };
    adds <= mrt.room_before_branch(vliw_isa::Unit::Alu)
}

enum Outcome {
    /// The report and the kernel's blocks.
    Done(LoopReport, Vec<MBlock>),
    OneStage,
    /// Why not, with the numbers.
    NotFaster(String),
    Failed,
}

/// The cycles of one iteration in the block's own list schedule (what the loop
/// costs per iteration without pipelining, latency stalls across the back edge
/// aside).
fn block_length(
    model: &Model,
    bases: &SecondaryMap<VReg, Option<(VReg, i64)>>,
    config: &MachineConfig,
) -> i64 {
    let mut ops: Vec<_> = model
        .nodes
        .iter()
        .map(|mi| op_info(mi, bases, config))
        .collect();
    let g = DepGraph::build(&mut ops);
    let cycles = crate::sched::list::schedule(&ops, &g, config);
    cycles.iter().map(|&c| i64::from(c) + 1).max().unwrap_or(1)
}

fn pipeline_one(
    mf: &mut MachFunction,
    mut model: Model,
    bases: &SecondaryMap<VReg, Option<(VReg, i64)>>,
    config: &MachineConfig,
    options: ModuloOptions,
    exit_chain: bool,
) -> Outcome {
    let exact = options.exact;
    let length = block_length(&model, bases, config);
    // what the rest of the function reads becomes carried behind a stage `sel`
    for k in 0..model.outside.len() {
        let v = model.outside[k].0;
        model.wrap(v, &mut |c: RegClass| mf.new_vreg(c));
    }
    let mut wrapped: Vec<VReg> = model.outside.iter().map(|o| o.1).collect();
    loop {
        let g = LoopGraph::build(&model, bases, config);
        let res = g.res_mii(config);
        let Some(rec) = g.rec_mii(1, length.max(res) + 1) else {
            return Outcome::NotFaster(format!(
                "RecMII above the block schedule's {length} cycles (ResMII {res})"
            ));
        };
        let mii = res.max(rec);
        if mii >= length {
            return Outcome::NotFaster(format!(
                "MinII {mii} (ResMII {res}, RecMII {rec}) not below the block schedule's \
                 {length} cycles"
            ));
        }
        // what must know that its iteration exists: stores, stage `sel`s
        let late: Vec<bool> = model
            .nodes
            .iter()
            .zip(model.is_stage_sel.iter().zip(&model.is_stage_guarded))
            .map(|(mi, (&sel, &guarded))| {
                sel || guarded
                    || mi
                        .opcode()
                        .is_some_and(|o| o.format() == vliw_isa::Format::Store)
            })
            .collect();
        // the kernel's own operations beside the body's, which a full table leaves no
        // slot (see `kernel_fits`)
        let other_free = exit_chain && expand::compare_other_result_free(mf, &model);
        let accept = |times: &[i64], mrt: &ims::Reservations| {
            kernel_fits(&model, times, mrt, options.expand, other_free)
        };
        let mut found = None;
        // (a few intervals above MinII: a loop that needs more is rarely worth it,
        // and each failed attempt spends the scheduler's whole budget); at each, the
        // continuation compare in the first stage, else in the second (`kernel`:
        // the first stage then runs speculatively)
        'intervals: for ii in mii..length.min(mii + MAX_II_ATTEMPTS) {
            for cmp_stage in 0..=MAX_COMPARE_STAGE {
                if let Some(times) =
                    ims::schedule(&g, ii, config, model.cmp, cmp_stage, &late, exact, &accept)
                    && times[model.cmp] / ii == cmp_stage
                {
                    found = Some((ii, times));
                    break 'intervals;
                }
            }
        }
        let Some((ii, times)) = found else {
            return Outcome::NotFaster(format!(
                "no schedule from MinII {mii} (ResMII {res}, RecMII {rec}) below {} with the \
                 continuation compare in the first two stages (block schedule {length} \
                 cycles)",
                length.min(mii + MAX_II_ATTEMPTS)
            ));
        };
        let stages = times.iter().map(|t| t / ii).max().unwrap_or(0) + 1;
        if stages == 1 {
            return Outcome::OneStage;
        }
        // a carried value defined after the first stage needs its `sel` too (the
        // trips before its iteration exists would overwrite the initial value)
        let defs = definers(&model.nodes);
        let late: Vec<VReg> = (0..model.params.len())
            .filter_map(|k| {
                let d = model.carried_def(k, &defs)?;
                let Reg::Virtual(a) = model.args[k] else {
                    return None;
                };
                (times[d] / ii > 0 && !wrapped.contains(&a)).then_some(a)
            })
            .collect();
        if !late.is_empty() {
            for a in late {
                let c = model.wrap(a, &mut |c: RegClass| mf.new_vreg(c));
                wrapped.push(c);
            }
            continue;
        }
        // as copies that name each trip's values apart, when the schedule is one that
        // form takes (else one block rotating them); enough of them that the taken
        // branch back to the first, once per round, costs a tenth of a round at most
        let copies = if options.expand {
            expand::copies_needed(&model, &times, ii)
                .map(|u| u.max(((expand::MIN_ROUND_CYCLES + ii - 1) / ii).min(expand::MAX_COPIES)))
        } else {
            None
        };
        // what the kernel adds (its branch, predicate upkeep, rotation copies) may
        // make it no shorter than the block: then it is not worth it
        let overhead = match copies {
            Some(_) if other_free => 1,
            Some(_) => 1 + (stages - 2).max(0) as usize,
            None => kernel::kernel_overhead(&model, &times, ii),
        };
        let issue = (model.nodes.len() + overhead).div_ceil(config.width) as i64;
        if issue.max(ii) >= length {
            return Outcome::NotFaster(format!(
                "II {ii} (MinII {mii}), but its {} operations and about {overhead} the \
                 kernel adds need {issue} cycles, not below the block schedule's {length}",
                model.nodes.len()
            ));
        }
        let report = LoopReport {
            function: String::new(),
            header: model.header,
            ops: model.nodes.len(),
            res_mii: res,
            rec_mii: rec,
            ii,
            stages,
            block_length: length,
        };
        let emitted = match copies {
            Some(u) => expand::emit_expanded(mf, &model, &times, ii, u, bases, other_free),
            None => kernel::emit_kernel(mf, &model, &times, ii).map(|()| vec![model.header]),
        };
        return match emitted {
            Ok(blocks) => Outcome::Done(report, blocks),
            Err(()) => Outcome::Failed,
        };
    }
}
