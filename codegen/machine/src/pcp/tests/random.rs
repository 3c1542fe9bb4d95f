//! Randomized checks: random small predicated hyperblocks against the brute-force
//! oracle of their feasible paths (`oracle`) and against the machine interpreter.

use vliw_isa::{CmpType, Opcode};

use super::oracle::{self, End};
use super::*;
use crate::mir::{Imm, MBlock, MGuard, MInst, MOp, Reg, RegClass};

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545f4914f6cdd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
    /// A small constant, so that compares of constants and inputs often decide.
    pub fn small(&mut self) -> i64 {
        self.below(7) as i64 - 3
    }
}

/// The inputs of the random hyperblocks: `r3`, `r4` over a small domain.
pub const DOMAIN: [i64; 6] = [-2, -1, 0, 1, 2, 3];
pub const INPUTS: usize = 2;

pub fn all_inputs() -> Vec<Vec<u64>> {
    DOMAIN
        .iter()
        .flat_map(|&a| DOMAIN.iter().map(move |&b| vec![a as u64, b as u64]))
        .collect()
}

/// The most conditions (compares, `r2p`) of a random hyperblock: at most 2^8 paths.
const MAX_CONDITIONS: usize = 8;

/// Operations of a random hyperblock, on what is defined before them; `atoms` counts
/// the conditions made.
pub struct Builder<'a> {
    pub mf: &'a mut MachFunction,
    pub gprs: Vec<Reg>,
    pub preds: Vec<Reg>,
    pub conditions: usize,
    /// Whether to make ψs (random ones need not cover their runs, which lowering
    /// them to `sel` chains assumes).
    pub psis: bool,
    /// Whether to guard operations other than traps.
    pub guards: bool,
}

impl Builder<'_> {
    fn gpr(&mut self) -> Reg {
        self.mf.new_vreg(RegClass::Gpr).into()
    }

    fn pred(&mut self) -> Reg {
        self.mf.new_vreg(RegClass::Pred).into()
    }

    /// One random operation (or none, when the choice does not apply).
    pub fn random_op(&mut self, rng: &mut Rng) -> Option<MInst> {
        let guard = if self.preds.len() > 1 && rng.chance(if self.guards { 40 } else { 0 }) {
            let p = self.preds[1 + rng.below(self.preds.len() - 1)];
            MGuard::new(p, rng.chance(30))
        } else {
            MGuard::ALWAYS
        };
        let x = rng.pick(&self.gprs);
        let y = rng.pick(&self.gprs);
        let inst = match rng.below(100) {
            0..30 => {
                let d = self.gpr();
                self.gprs.push(d);
                if rng.chance(40) {
                    let op = rng.pick(&[Opcode::AddI, Opcode::AndI, Opcode::XorI, Opcode::MulI]);
                    MInst::op(op, &[d], &[x], Imm::Const(rng.small()))
                } else {
                    let op = rng.pick(&[
                        Opcode::Add,
                        Opcode::Sub,
                        Opcode::Xor,
                        Opcode::And,
                        Opcode::Or,
                        Opcode::Mul,
                        Opcode::Min,
                        Opcode::Rem,
                    ]);
                    MInst::op(op, &[d], &[x, y], Imm::None)
                }
            }
            30..47 if self.conditions < MAX_CONDITIONS => {
                self.conditions += 1;
                let (p, q) = (self.pred(), self.pred());
                let second = if rng.chance(70) { q } else { Reg::P0 };
                self.preds.push(p);
                if second != Reg::P0 {
                    self.preds.push(q);
                }
                let mut c = if rng.chance(50) {
                    let op = rng.pick(&[Opcode::CmpEqI, Opcode::CmpLtI, Opcode::CmpGtI]);
                    MInst::op(op, &[p, second], &[x], Imm::Const(rng.small()))
                } else {
                    let op = rng.pick(&[
                        Opcode::CmpEq,
                        Opcode::CmpNe,
                        Opcode::CmpLt,
                        Opcode::CmpGt,
                        Opcode::CmpLtu,
                    ]);
                    MInst::op(op, &[p, second], &[x, y], Imm::None)
                };
                if rng.chance(50) {
                    c.ctype = CmpType::Unc;
                }
                c
            }
            47..57 => {
                let d = self.pred();
                let a = rng.pick(&self.preds);
                let b = rng.pick(&self.preds);
                self.preds.push(d);
                match rng.below(6) {
                    0 => MInst::op(Opcode::Pnot, &[d], &[a], Imm::None),
                    k => {
                        let op = [
                            Opcode::Pand,
                            Opcode::Por,
                            Opcode::Pandn,
                            Opcode::Porn,
                            Opcode::Pxor,
                        ][k - 1];
                        MInst::op(op, &[d], &[a, b], Imm::None)
                    }
                }
            }
            57..70 if self.psis => {
                let d = self.gpr();
                let mut psi = MInst::new(MOp::Psi);
                psi.defs = vec![d];
                for k in 0..1 + rng.below(3) {
                    psi.uses.push(rng.pick(&self.gprs));
                    let g = if k == 0 && rng.chance(50) {
                        MGuard::ALWAYS
                    } else {
                        MGuard::new(rng.pick(&self.preds), rng.chance(25))
                    };
                    psi.psi_guards.push(g);
                }
                self.gprs.push(d);
                psi
            }
            70..77 => {
                let d = self.gpr();
                let p = rng.pick(&self.preds);
                self.gprs.push(d);
                MInst::op(Opcode::Sel, &[d], &[p, x, y], Imm::None)
            }
            77..85 => {
                let d = self.gpr();
                self.gprs.push(d);
                MInst::copy(d, x)
            }
            85..88 if self.preds.len() > 1 => {
                let p = self.preds[1 + rng.below(self.preds.len() - 1)];
                let trap = MInst::op(Opcode::Trap, &[], &[], Imm::Const(9));
                return Some(trap.with_guard(MGuard::new(p, rng.chance(30))));
            }
            88..92 if self.conditions < MAX_CONDITIONS => {
                self.conditions += 1;
                let d = self.pred();
                self.preds.push(d);
                MInst::op(Opcode::R2p, &[d], &[x], Imm::None)
            }
            92..96 => {
                let d = self.gpr();
                let p = rng.pick(&self.preds);
                self.gprs.push(d);
                MInst::op(Opcode::P2r, &[d], &[p], Imm::None)
            }
            96..100 => {
                let d = self.gpr();
                self.gprs.push(d);
                MInst::op(Opcode::Movi, &[d], &[], Imm::Const(rng.small()))
            }
            _ => return None,
        };
        Some(inst.with_guard(guard))
    }
}

/// A random hyperblock `f(r3, r4)`: one block of guarded operations (values,
/// compares of both types, predicate logic, ψ, `sel`, copies, guarded traps, `r2p`,
/// `p2r`) returning two of its values.
pub fn random_hyperblock(rng: &mut Rng) -> MachFunction {
    let mut mf = MachFunction::new("f", vliw_ir::Linkage::Export);
    let b = mf.new_block();
    mf.layout = vec![b];
    let mut body = Vec::new();
    let mut builder = Builder {
        mf: &mut mf,
        gprs: Vec::new(),
        preds: vec![Reg::P0],
        conditions: 0,
        psis: true,
        guards: true,
    };
    for k in 0..INPUTS {
        let v = builder.gpr();
        body.push(MInst::copy(v, Reg::gpr(3 + k as u8)));
        builder.gprs.push(v);
    }
    for _ in 0..2 {
        let v = builder.gpr();
        body.push(MInst::op(Opcode::Movi, &[v], &[], Imm::Const(rng.small())));
        builder.gprs.push(v);
    }
    for _ in 0..10 + rng.below(18) {
        if let Some(i) = builder.random_op(rng) {
            body.push(i);
        }
    }
    let (x, y) = (rng.pick(&builder.gprs), rng.pick(&builder.gprs));
    body.push(MInst::copy(Reg::gpr(3), x));
    body.push(MInst::copy(Reg::gpr(4), y));
    let mut ret = MInst::op(Opcode::Ret, &[], &[], Imm::None);
    ret.implicit_uses = vec![crate::mir::PReg::gpr(3), crate::mir::PReg::gpr(4)];
    body.push(ret);
    mf.set_block(b, body);
    mf
}

fn block0(mf: &MachFunction) -> MBlock {
    mf.layout[0]
}

/// The concrete semantics of the oracle agrees with the machine interpreter: what
/// the random hyperblocks return, where they trap, where they read undefined.
#[test]
fn the_oracle_runs_as_the_interpreter() {
    let mut compared = 0;
    for seed in 1..=200u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9e3779b97f4a7c15) | 1);
        let mf = random_hyperblock(&mut rng);
        mf.verify(Phase::Ssa)
            .unwrap_or_else(|e| panic!("{e}\n{mf}"));
        for args in all_inputs() {
            let concrete = oracle::concrete_run(&mf, block0(&mf), &args);
            let interp = Interpreter::new([&mf]).call("f", &args);
            match (&concrete.end, interp) {
                (End::Returned(vals), Ok(got)) => {
                    let want: Vec<Lat> = got.iter().map(|&w| Lat::Const(w)).collect();
                    assert_eq!(vals, &want, "seed {seed} {args:?}\n{mf}");
                    compared += 1;
                }
                (End::Trapped, Err(crate::interp::Stop::Trap(_))) => {}
                (End::Undefined, Err(crate::interp::Stop::Error(_))) => {}
                // a returned register undefined: the interpreter stops at the copy
                (End::Returned(vals), Err(crate::interp::Stop::Error(_)))
                    if vals.contains(&Lat::Top) => {}
                (end, got) => {
                    panic!("seed {seed} {args:?}: oracle {end:?}, interpreter {got:?}\n{mf}")
                }
            }
        }
    }
    assert!(compared > 2000, "{compared} runs returned");
}

/// The local pass finds exactly what the oracle of feasible paths finds, basic and
/// full, on every register of random hyperblocks within the cap; what it claims holds
/// on every concrete run; the rewrite keeps SSA and the interpreter's results.
#[test]
fn random_hyperblocks_match_the_feasible_path_oracle() {
    let (mut constants, mut beyond_flat, mut rewritten) = (0usize, 0usize, 0usize);
    let mut removed = 0usize;
    let inputs = all_inputs();
    for seed in 1..=400u64 {
        let mut rng = Rng(seed.wrapping_mul(0x2545f4914f6cdd1d) | 1);
        let mf = random_hyperblock(&mut rng);
        let b = block0(&mf);
        let concrete: Vec<_> = inputs
            .iter()
            .map(|args| oracle::concrete_run(&mf, b, args))
            .collect();
        // without paths (the cap at one path): what Wegman and Zadeck find
        let flat = analyze(
            &mf,
            &PcpOptions {
                mode: Mode::Full,
                max_paths: 1,
            },
        );
        for mode in [Mode::Basic, Mode::Full] {
            let opts = PcpOptions {
                mode,
                max_paths: 1 << oracle::num_conditions(&mf, b),
            };
            let analysis = analyze(&mf, &opts);
            let facts = &analysis.facts[&b];
            assert!(!facts.fallback, "seed {seed} {mode:?}: within the cap");
            let truth = oracle::feasible_path_values(&mf, b, INPUTS, mode);
            for (&v, &want) in &truth {
                let got = analysis.value(v);
                assert_eq!(
                    got, want,
                    "seed {seed} {mode:?}: {v} is {got} by the pass, {want} by the oracle\n{mf}"
                );
                if let Lat::Const(c) = got {
                    constants += usize::from(mode == Mode::Full);
                    for (args, run) in inputs.iter().zip(&concrete) {
                        let seen = run.values.get(&v).copied().unwrap_or(Lat::Top);
                        assert!(
                            seen == Lat::Top || seen == Lat::Const(c),
                            "seed {seed} {mode:?}: {v} claimed {c}, is {seen} on {args:?}\n{mf}"
                        );
                    }
                }
                if mode == Mode::Full
                    && want.constant().is_some()
                    && flat.value(v).constant().is_none()
                {
                    beyond_flat += 1;
                }
            }
            let mut out = mf.clone();
            let stats = propagate_constants(&mut out, &opts);
            out.verify(Phase::Ssa)
                .unwrap_or_else(|e| panic!("seed {seed} {mode:?}: {e}\n{mf}\n{out}"));
            rewritten += usize::from(
                stats.constants
                    + stats.off_predicated_removed
                    + stats.compares_folded
                    + stats.ors_simplified
                    + stats.psi_args_dropped
                    > 0,
            );
            removed += stats.off_predicated_removed;
            for args in &inputs {
                let before = run(&mf, args);
                if comparable(&before) {
                    assert_eq!(
                        run(&out, args),
                        before,
                        "seed {seed} {mode:?} {args:?}\n{mf}\n{out}"
                    );
                }
            }
        }
        // below the cap: the fallback, sound too
        let small = PcpOptions {
            mode: Mode::Full,
            max_paths: 2,
        };
        rewrite_keeps_results(&mf, &small, &inputs);
    }
    eprintln!(
        "{constants} constants found (full), {beyond_flat} of them not without paths; \
         {rewritten} functions rewritten, {removed} off-predicated operations removed"
    );
    assert!(
        constants > 1000 && beyond_flat > 100 && rewritten > 300 && removed > 50,
        "{constants} constants, {beyond_flat} beyond the flat pass, {rewritten} rewrites, \
         {removed} removed"
    );
}
