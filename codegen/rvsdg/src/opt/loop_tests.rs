//! Loop tests as compares (`rvsdg-loop-tests`): restructuring makes of a `while`
//! loop whose test could not be rotated before it (`rvsdg-invert` declines a body
//! with a call, or a test after the work) a θ that carries whether it goes on as a γ
//! exit, `1` in the arm of the compare and `0` in the other, and tests that value:
//! `θ { …; γ(i < n) { i + 1, 1 | i, 0 }; repeat while the γ gave 1 }`. The exit is
//! the compare itself (`zext c`), and the θ's predicate then tests the compare: after
//! if-conversion the loop ends on a compare, which the modulo scheduler needs, instead
//! of on a predicate rebuilt from a register the γ's arms set. The other exits stay
//! (a predicated increment). Runs after the loop transformations: versioning and
//! unrolling recognize their loops by the shapes before it (run earlier, it took the
//! kernel's loops of `prefix_sum` from their unrolled, pipelined form: 1.67x the
//! cycles). Loop preparation's step 0 applies it early to the loops it frees of an
//! overflow check. Counter: `loop-tests.compares`.

use vliw_ir::{InstructionData, Opcode, Type};

use super::rewrite::Rewriter;
use super::unroll::match2_alternatives;
use crate::graph::{NodeKind, Origin, Region, User};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;

/// Every θ predicate of `g` that tests a γ's constant exits made to test the
/// compare (module documentation).
pub fn loop_tests_as_compares(g: &mut Rvsdg, report: &mut Report) {
    let lambdas = g.lambdas();
    let mut count = 0;
    for &l in &lambdas {
        let body = g.lambda_body(l);
        count += constant_exits_as_values(g, body);
    }
    if count > 0 {
        // `ireduce (zext c)` is `c`
        super::fold::fold_lambdas(g, &lambdas, &mut Report::default());
    }
    report.count("loop-tests.compares", count as u64);
}

/// The exits of the two-armed γs below `r` whose arms give integer constants and that
/// a θ's predicate tests (through `ireduce`), as values of the γ's condition before
/// it: `zext c` for 1 and 0, `zext !c` for 0 and 1, `select c, k1, k0` otherwise (`while i < n { i += 1 }` carries
/// whether it went on as such an exit, which the θ's predicate then tests; the test
/// itself is the compare). How many exits.
pub(crate) fn constant_exits_as_values(g: &mut Rvsdg, r: Region) -> usize {
    let mut count = 0;
    for region in g.regions_below(r) {
        for gamma in g.nodes(region).to_vec() {
            let NodeKind::Gamma { arms } = g.kind(gamma) else {
                continue;
            };
            let arms = arms.clone();
            if arms.len() != 2 {
                continue;
            }
            let Origin::Out(m, 0) = g.input(gamma, 0) else {
                continue;
            };
            let Some([on_false, on_true]) = match2_alternatives(g, m) else {
                continue;
            };
            let c = g.input(m, 0);
            if on_false == on_true || g.ty(c) != Ty::Val(Type::I1) {
                continue;
            }
            for k in 0..g.num_outputs(gamma) {
                let Ty::Val(ty) = g.ty(Origin::Out(gamma, k as u32)) else {
                    continue;
                };
                if !ty.is_int() || !tests_loop(g, Origin::Out(gamma, k as u32)) {
                    continue;
                }
                let value = |arm: u32| -> Option<u128> {
                    let o = match g.results(arms[arm as usize])[k] {
                        // a constant that enters as an entry variable
                        Origin::Arg(_, i) => g.input(gamma, i as usize + 1),
                        o => o,
                    };
                    let n = g.producer(o)?;
                    match g.op(n) {
                        Some(Op::Inst(InstructionData::UnaryImm {
                            opcode: Opcode::Iconst,
                            imm,
                        })) => Some(*imm & ty.mask()),
                        _ => None,
                    }
                };
                let (Some(kt), Some(kf)) = (value(on_true), value(on_false)) else {
                    continue;
                };
                let mut rw = Rewriter::new(g);
                let v = match (kt, kf) {
                    (1, 0) if ty == Type::I1 => c,
                    (1, 0) => rw.unary(gamma, Opcode::Uextend, c, ty),
                    (0, 1) => {
                        let not = rw.unary(gamma, Opcode::Bnot, c, Type::I1);
                        if ty == Type::I1 {
                            not
                        } else {
                            rw.unary(gamma, Opcode::Uextend, not, ty)
                        }
                    }
                    _ => {
                        let (a, b) = (rw.int(gamma, ty, kt as i128), rw.int(gamma, ty, kf as i128));
                        rw.select(gamma, c, a, b)
                    }
                };
                rw.replace(Origin::Out(gamma, k as u32), v);
                count += 1;
            }
        }
    }
    count
}

/// Whether `o`, directly or through `ireduce`s, is what the `match` that is the
/// predicate of the θ whose body holds it tests.
fn tests_loop(g: &Rvsdg, mut o: Origin) -> bool {
    let r = g.origin_region(o);
    let Some(theta) = g.owner(r) else {
        return false;
    };
    if !matches!(g.kind(theta), NodeKind::Theta { .. }) {
        return false;
    }
    let Some(m) = g.producer(g.results(r)[0]) else {
        return false;
    };
    for _ in 0..4 {
        if g.input(m, 0) == o {
            return matches!(g.op(m), Some(Op::Match { .. }));
        }
        let [User::In(n, 0)] = g.users(o) else {
            return false;
        };
        match g.op(*n) {
            Some(Op::Inst(InstructionData::Unary {
                opcode: Opcode::Ireduce,
                ..
            })) => o = Origin::Out(*n, 0),
            _ => return false,
        }
    }
    false
}
