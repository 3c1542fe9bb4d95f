//! A brute-force oracle of the feasible paths of a hyperblock, independent of the
//! predicated value graph: every assignment of every branch condition of the block
//! (each compare's and `r2p`'s whose predicates steer the block, in block order, one
//! bit each; the others are data, evaluated from their operands) is run through the
//! block as straight-line code with lattice values, inputs ⊥. Under the full version an
//! assignment is infeasible when a condition the operands decide disagrees with it;
//! under the basic version none is. A register's element is the meet over the
//! feasible assignments of its value at the end (⊤ where undefined). The same run
//! with constant inputs is the concrete semantics (one feasible assignment, up to
//! the bits of conditions that do not run), checked against the machine
//! interpreter.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use vliw_isa::semantics::{self as sem, OpClass};
use vliw_isa::{FieldKind, Format, Opcode};

use super::super::Mode;
use super::super::lattice::{self, Lat};
use super::super::propagate::branch_conditions;
use crate::mir::{Imm, MBlock, MGuard, MInst, MOp, MachFunction, Reg, VReg};

/// How one assignment ended.
#[derive(Clone, Debug, PartialEq)]
pub enum End {
    /// `ret`, with the elements of the registers it returns.
    Returned(Vec<Lat>),
    /// A trap whose guard held.
    Trapped,
    /// An operation observed an undefined guard (the interpreter stops with an error).
    Undefined,
}

/// The run of one assignment: `None` if infeasible.
pub struct PathRun {
    pub values: HashMap<VReg, Lat>,
    pub end: End,
}

/// The branch conditions of block `b`: its compares and `r2p`s whose predicates
/// steer the block.
pub fn num_conditions(mf: &MachFunction, b: MBlock) -> usize {
    let steer = branch_conditions(mf, b);
    mf.block_insts(b)
        .filter(|i| is_condition(i, &steer))
        .count()
}

fn is_condition(inst: &MInst, steer: &HashSet<Reg>) -> bool {
    matches!(inst.op, MOp::Op(o) if matches!(sem::class(o), OpClass::Compare | OpClass::R2p))
        && inst.defs.iter().any(|d| steer.contains(d))
}

/// Runs block `b` (straight-line, ending in `ret`) on one assignment of its
/// conditions, with `inputs` the elements of `r3`, `r4`, ...
pub fn run_assignment(
    mf: &MachFunction,
    b: MBlock,
    inputs: &[Lat],
    mode: Mode,
    assignment: u64,
) -> Option<PathRun> {
    let mut env: HashMap<Reg, Lat> = HashMap::default();
    let read = |env: &HashMap<Reg, Lat>, r: Reg| -> Lat {
        match r {
            Reg::ZERO => Lat::Const(0),
            Reg::P0 => Lat::TRUE,
            Reg::Physical(crate::mir::PReg::Gpr(g)) => {
                let n = g.index();
                if (3..3 + inputs.len()).contains(&n) {
                    env.get(&r).copied().unwrap_or(inputs[n - 3])
                } else {
                    env.get(&r).copied().unwrap_or(Lat::Bottom)
                }
            }
            r => env.get(&r).copied().unwrap_or(Lat::Top),
        }
    };
    let guard = |env: &HashMap<Reg, Lat>, g: MGuard| -> Lat {
        if g.is_always() {
            Lat::TRUE
        } else {
            lattice::guard_value(read(env, g.pred), g.negated)
        }
    };
    let steer = branch_conditions(mf, b);
    let mut bit = 0;
    let mut end = End::Undefined;
    for inst in mf.block_insts(b) {
        let g = guard(&env, inst.guard);
        let condition_bit = if is_condition(inst, &steer) {
            bit += 1;
            Some(assignment >> (bit - 1) & 1 != 0)
        } else {
            None
        };
        let holds = g == Lat::TRUE;
        let mut defs: Vec<Lat> = vec![Lat::Top; inst.defs.len()];
        match inst.op {
            MOp::Copy => {
                if holds {
                    defs[0] = read(&env, inst.uses[0]);
                }
            }
            MOp::Psi => {
                if holds {
                    for (k, &u) in inst.uses.iter().enumerate().rev() {
                        match guard(&env, inst.psi_guards[k]) {
                            Lat::Const(0) => continue,
                            Lat::Top => break,
                            _ => {
                                defs[0] = read(&env, u);
                                break;
                            }
                        }
                    }
                }
            }
            MOp::ParallelCopy => unreachable!("not generated"),
            MOp::Op(op) => {
                let (_, fields) = crate::mir::operand_fields(op.format());
                let field = |k: FieldKind| {
                    fields
                        .iter()
                        .position(|&f| f == k)
                        .map_or(Lat::Const(0), |i| read(&env, inst.uses[i]))
                };
                let b_operand = if op.format().has(FieldKind::Imm) || op.format() == Format::PcRel {
                    match inst.imm {
                        Imm::Const(c) => Lat::Const(c as u64),
                        _ => Lat::Const(0),
                    }
                } else {
                    field(FieldKind::Rs2)
                };
                let (a, c) = (field(FieldKind::Rs1), field(FieldKind::Rs3));
                match sem::class(op) {
                    OpClass::Value if holds => defs[0] = lattice::value(op, a, b_operand, c),
                    OpClass::Sel if holds => {
                        defs[0] = lattice::sel(read(&env, inst.uses[0]), a, b_operand)
                    }
                    OpClass::P2r if holds => defs[0] = lattice::p2r(read(&env, inst.uses[0])),
                    OpClass::PredLogic if holds => {
                        let p1 = read(&env, inst.uses[0]);
                        let p2 = inst.uses.get(1).map_or(Lat::FALSE, |&u| read(&env, u));
                        defs[0] = lattice::predicate_logic(op, p1, p2);
                    }
                    OpClass::Compare => {
                        let assigned = Lat::of_bool(condition_bit.unwrap_or(false));
                        let c = if holds {
                            let data = lattice::condition(op, a, b_operand);
                            match (mode, data) {
                                _ if condition_bit.is_none() => data,
                                (Mode::Basic, _) => assigned,
                                (Mode::Full, Lat::Const(_)) if data != assigned => return None,
                                (Mode::Full, Lat::Bottom) => assigned,
                                (Mode::Full, d) => d,
                            }
                        } else {
                            Lat::Top
                        };
                        let (x, y) = lattice::compare_writes(inst.ctype, g, c);
                        defs = vec![x, y];
                    }
                    OpClass::R2p if holds => {
                        let assigned = Lat::of_bool(condition_bit.unwrap_or(false));
                        let data = lattice::r2p(read(&env, inst.uses[0]));
                        defs[0] = match (mode, data) {
                            _ if condition_bit.is_none() => data,
                            (Mode::Basic, _) => assigned,
                            (Mode::Full, Lat::Const(_)) if data != assigned => return None,
                            (Mode::Full, Lat::Bottom) => assigned,
                            (Mode::Full, d) => d,
                        };
                    }
                    OpClass::Control => match (op, g) {
                        (Opcode::Trap, Lat::Top) => break,
                        (Opcode::Trap, Lat::TRUE) => {
                            end = End::Trapped;
                            break;
                        }
                        (Opcode::Ret, _) => {
                            let values = inst
                                .implicit_uses
                                .iter()
                                .map(|&p| read(&env, p.into()))
                                .collect();
                            end = End::Returned(values);
                            break;
                        }
                        _ => {}
                    },
                    _ => {}
                }
            }
        }
        for (&d, v) in inst.defs.iter().zip(defs) {
            if d != Reg::P0 && d != Reg::ZERO {
                env.insert(d, v);
            }
        }
    }
    let values = env
        .into_iter()
        .filter_map(|(r, l)| r.as_virtual().map(|v| (v, l)))
        .collect();
    Some(PathRun { values, end })
}

/// The oracle's element of every virtual register of block `b`: the meet over the
/// feasible assignments (inputs ⊥).
pub fn feasible_path_values(
    mf: &MachFunction,
    b: MBlock,
    inputs: usize,
    mode: Mode,
) -> HashMap<VReg, Lat> {
    let k = num_conditions(mf, b);
    let bottoms = vec![Lat::Bottom; inputs];
    let mut out: HashMap<VReg, Lat> = HashMap::default();
    for assignment in 0..1u64 << k {
        let Some(run) = run_assignment(mf, b, &bottoms, mode, assignment) else {
            continue;
        };
        for (v, l) in run.values {
            let e = out.entry(v).or_insert(Lat::Top);
            *e = e.meet(l);
        }
    }
    out
}

/// The concrete run of block `b` on constant inputs: the values of the registers
/// (⊤: undefined) and how it ended.
pub fn concrete_run(mf: &MachFunction, b: MBlock, args: &[u64]) -> PathRun {
    let inputs: Vec<Lat> = args.iter().map(|&a| Lat::Const(a)).collect();
    let k = num_conditions(mf, b);
    (0..1u64 << k)
        .find_map(|a| run_assignment(mf, b, &inputs, Mode::Full, a))
        .expect("constant inputs decide every condition that runs")
}
