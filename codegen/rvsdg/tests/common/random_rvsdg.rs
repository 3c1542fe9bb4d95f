//! Random RVSDGs for the optimizations' tests: a λ `@f(i32, i32) -> i32` whose body
//! nests γs (on a comparison, on a control constant, of one arm, of three arms) and
//! θs (counted loops with invariant variables; rarely one that never ends) in random
//! order with pure arithmetic on i32, constants, divisions that may trap, divisions
//! known not to, loads and stores of a stack slot and calls of the host `@trace`.
//! What the passes look for is made likely: the arms of a γ often start with the same
//! computations (they draw from the same random stream), computations are repeated,
//! γ entries repeat values, loops compute on invariant values.
//!
//! The graph is built through the API and must verify (a generator bug otherwise).

#![allow(dead_code)] // each test file uses a part

use vliw_ir::{
    FuncRef, Function, InstructionData, IntCC, Linkage, MemFlags, Opcode, Signature, StackSlot,
    Type, Value,
};
use vliw_rvsdg::{Node, Op, Origin, Region, Rvsdg, Ty};

use super::random_cfg::Rng;

const I32: Ty = Ty::Val(Type::I32);

fn v0() -> Value {
    Value::from_u32(0)
}

/// What a region has at hand while it is generated: i32 values, and the states.
#[derive(Clone)]
struct Env {
    vals: Vec<Origin>,
    mem: Origin,
    io: Origin,
    /// Pure nodes made here (operation, inputs), to repeat some.
    made: Vec<(Op, Vec<Origin>)>,
}

struct Gen<'a> {
    g: &'a mut Rvsdg,
    /// Nodes left to make (bounds the size).
    budget: usize,
    trace: FuncRef,
    slot: StackSlot,
}

/// A random λ `@f(i32, i32) -> i32` (exported, importing `@trace(i32)`) in a new
/// graph, and the λ.
pub fn random_lambda(rng: &mut Rng) -> (Rvsdg, Node) {
    let mut g = Rvsdg::new();
    let mut shell = Function::new(
        "f",
        Signature::new(&[Type::I32, Type::I32], &[Type::I32]),
        Linkage::Export,
    );
    let slot = shell.create_stack_slot(4, 4);
    let trace = shell.import_function("trace", Signature::new(&[Type::I32], &[]));
    let l = g.add_lambda(shell, &[I32, I32, Ty::Mem, Ty::Io]);
    let body = g.lambda_body(l);
    let args: Vec<Origin> = g.arg_origins(body).collect();
    let mut maker = Gen {
        g: &mut g,
        budget: 20 + rng.below(80),
        trace,
        slot,
    };
    let mut env = Env {
        vals: vec![args[0], args[1]],
        mem: args[2],
        io: args[3],
        made: Vec::new(),
    };
    // the slot starts defined
    maker.store(body, &mut env, args[0]);
    let items = 3 + rng.below(8);
    maker.region(rng, body, &mut env, 3, items);
    let ret = maker.pick(rng, body, &env);
    for o in [ret, env.mem, env.io] {
        g.add_result(body, o);
    }
    (g, l)
}

impl Gen<'_> {
    fn simple(&mut self, r: Region, op: Op, inputs: &[Origin], outputs: &[Ty]) -> Node {
        self.budget = self.budget.saturating_sub(1);
        self.g.add_simple(r, op, inputs, outputs)
    }

    fn iconst(&mut self, r: Region, v: i64) -> Origin {
        let op = Op::from_inst(&InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm: v as u128 & Type::I32.mask(),
        });
        Origin::Out(self.simple(r, op, &[], &[I32]), 0)
    }

    /// A value of the region, or now and then a new small constant.
    fn pick(&mut self, rng: &mut Rng, r: Region, env: &Env) -> Origin {
        if env.vals.is_empty() || rng.chance(15) {
            let k = rng.below(9) as i64 - 2;
            self.iconst(r, k)
        } else {
            env.vals[rng.below(env.vals.len())]
        }
    }

    fn pure(&mut self, r: Region, env: &mut Env, op: Op, inputs: &[Origin]) -> Origin {
        let o = Origin::Out(self.simple(r, op.clone(), inputs, &[I32]), 0);
        env.made.push((op, inputs.to_vec()));
        env.vals.push(o);
        o
    }

    fn binary(opcode: Opcode) -> Op {
        Op::from_inst(&InstructionData::Binary {
            opcode,
            args: [v0(), v0()],
        })
    }

    fn store(&mut self, r: Region, env: &mut Env, v: Origin) {
        let addr = self.stack_addr(r);
        let op = Op::from_inst(&InstructionData::Store {
            opcode: Opcode::Store,
            flags: MemFlags::aligned(4),
            args: [v0(), v0()],
            offset: 0,
        });
        env.mem = Origin::Out(self.simple(r, op, &[v, addr, env.mem], &[Ty::Mem]), 0);
    }

    fn stack_addr(&mut self, r: Region) -> Origin {
        let op = Op::from_inst(&InstructionData::StackAddr {
            opcode: Opcode::StackAddr,
            slot: self.slot,
            offset: 0,
        });
        Origin::Out(self.simple(r, op, &[], &[Ty::Val(Type::Ptr)]), 0)
    }

    /// `items` random items in region `r`, nesting γs and θs `depth` more levels.
    fn region(&mut self, rng: &mut Rng, r: Region, env: &mut Env, depth: usize, items: usize) {
        for _ in 0..items {
            if self.budget == 0 {
                return;
            }
            self.item(rng, r, env, depth);
        }
    }

    fn item(&mut self, rng: &mut Rng, r: Region, env: &mut Env, depth: usize) {
        use Opcode::*;
        match rng.below(100) {
            0..30 => {
                let opcode = [Iadd, Isub, Imul, Band, Bor, Bxor][rng.below(6)];
                let x = self.pick(rng, r, env);
                let y = self.pick(rng, r, env);
                self.pure(r, env, Self::binary(opcode), &[x, y]);
            }
            30..40 if !env.made.is_empty() => {
                // the same computation again
                let (op, inputs) = env.made[rng.below(env.made.len())].clone();
                self.pure(r, env, op, &inputs);
            }
            40..44 => {
                let x = self.pick(rng, r, env);
                let c = self.iconst(r, rng.below(5) as i64 - 2);
                let cmp = Op::from_inst(&InstructionData::IntCompare {
                    opcode: Icmp,
                    cond: IntCC::Slt,
                    args: [v0(), v0()],
                });
                let b = Origin::Out(self.simple(r, cmp, &[x, c], &[Ty::Val(Type::I1)]), 0);
                let y = self.pick(rng, r, env);
                let sel = Op::from_inst(&InstructionData::Ternary {
                    opcode: Select,
                    args: [v0(), v0(), v0()],
                });
                self.pure(r, env, sel, &[b, x, y]);
            }
            44..49 => {
                // may trap: takes the I/O state
                let opcode = [Udiv, Urem, Sdiv][rng.below(3)];
                let x = self.pick(rng, r, env);
                let y = self.pick(rng, r, env);
                let n = self.simple(r, Self::binary(opcode), &[x, y, env.io], &[I32, Ty::Io]);
                env.vals.push(Origin::Out(n, 0));
                env.io = Origin::Out(n, 1);
            }
            49..53 => {
                // cannot trap: a divisor that is neither 0 nor -1
                let x = self.pick(rng, r, env);
                let d = self.iconst(r, [3, 7, -5][rng.below(3)]);
                let opcode = [Udiv, Urem, Sdiv, Srem][rng.below(4)];
                self.pure(r, env, Op::SafeDiv(opcode), &[x, d]);
            }
            53..58 => {
                let x = self.pick(rng, r, env);
                let op = Op::from_inst(&InstructionData::Call {
                    opcode: Call,
                    func: self.trace,
                    args: vec![v0()],
                });
                let n = self.simple(r, op, &[x, env.mem, env.io], &[Ty::Mem, Ty::Io]);
                env.mem = Origin::Out(n, 0);
                env.io = Origin::Out(n, 1);
            }
            58..62 => {
                let x = self.pick(rng, r, env);
                self.store(r, env, x);
            }
            62..67 => {
                let addr = self.stack_addr(r);
                let op = Op::from_inst(&InstructionData::Load {
                    opcode: Load,
                    flags: MemFlags::aligned(4),
                    arg: v0(),
                    offset: 0,
                });
                let n = self.simple(r, op, &[addr, env.mem], &[I32, Ty::Mem]);
                env.vals.push(Origin::Out(n, 0));
                env.mem = Origin::Out(n, 1);
            }
            67..84 if depth > 0 => self.gamma(rng, r, env, depth),
            84..96 if depth > 0 => self.theta(rng, r, env, depth),
            _ => {
                let c = self.iconst(r, rng.below(9) as i64 - 2);
                env.vals.push(c);
            }
        }
    }

    fn gamma(&mut self, rng: &mut Rng, r: Region, env: &mut Env, depth: usize) {
        // the predicate and the number of arms
        let (pred, arms) = match rng.below(100) {
            0..60 => {
                let x = self.pick(rng, r, env);
                let y = self.pick(rng, r, env);
                let cmp = Op::from_inst(&InstructionData::IntCompare {
                    opcode: Opcode::Icmp,
                    cond: IntCC::Slt,
                    args: [v0(), v0()],
                });
                let b = Origin::Out(self.simple(r, cmp, &[x, y], &[Ty::Val(Type::I1)]), 0);
                let m = Op::Match {
                    cases: Box::new([(1, 0)]),
                    default: 1,
                    alts: 2,
                };
                (Origin::Out(self.simple(r, m, &[b], &[Ty::Ctl(2)]), 0), 2)
            }
            60..72 => {
                let op = Op::Ctl {
                    alt: rng.below(2) as u32,
                    alts: 2,
                };
                (Origin::Out(self.simple(r, op, &[], &[Ty::Ctl(2)]), 0), 2)
            }
            72..80 => {
                let op = Op::Ctl { alt: 0, alts: 1 };
                (Origin::Out(self.simple(r, op, &[], &[Ty::Ctl(1)]), 0), 1)
            }
            _ => {
                let x = self.pick(rng, r, env);
                let m = Op::Match {
                    cases: Box::new([(0, 0), (1, 1), (5, 1)]),
                    default: 2,
                    alts: 3,
                };
                let band = Self::binary(Opcode::Band);
                let c = self.iconst(r, 7);
                let masked = Origin::Out(self.simple(r, band, &[x, c], &[I32]), 0);
                (
                    Origin::Out(self.simple(r, m, &[masked], &[Ty::Ctl(3)]), 0),
                    3,
                )
            }
        };
        // entries: some values (repeats allowed), then the states
        let mut entries: Vec<Origin> = (0..1 + rng.below(4))
            .map(|_| self.pick(rng, r, env))
            .collect();
        let nvals = entries.len();
        entries.extend([env.mem, env.io]);
        let gamma = self.g.add_gamma(r, pred, &entries, arms);
        let regions = self.g.kind(gamma).subregions().to_vec();
        let exits = 1 + rng.below(3);
        // the arms start with the same stream (often), then go their own ways
        let common = Rng(rng.next() | 1);
        let common_items = rng.below(4);
        let own_items = rng.below(4);
        let mut results: Vec<Vec<Origin>> = Vec::new();
        for &arm in &regions {
            let args: Vec<Origin> = self.g.arg_origins(arm).collect();
            let mut aenv = Env {
                vals: args[..nvals].to_vec(),
                mem: args[nvals],
                io: args[nvals + 1],
                made: Vec::new(),
            };
            let mut stream = if rng.chance(70) {
                Rng(common.0)
            } else {
                Rng(rng.next() | 1)
            };
            self.region(&mut stream, arm, &mut aenv, depth - 1, common_items);
            self.region(rng, arm, &mut aenv, depth - 1, own_items);
            let mut res: Vec<Origin> = (0..exits).map(|_| self.pick(rng, arm, &aenv)).collect();
            res.extend([aenv.mem, aenv.io]);
            results.push(res);
        }
        let mut outs = Vec::new();
        for k in 0..exits + 2 {
            let per_arm: Vec<Origin> = results.iter().map(|res| res[k]).collect();
            outs.push(self.g.add_gamma_exit(gamma, &per_arm));
        }
        env.vals.extend_from_slice(&outs[..exits]);
        env.mem = outs[exits];
        env.io = outs[exits + 1];
    }

    fn theta(&mut self, rng: &mut Rng, r: Region, env: &mut Env, depth: usize) {
        let endless = rng.chance(3);
        // loop variables: the counter, the bound, some values, the states
        let zero = self.iconst(r, 0);
        let bound = self.iconst(r, 1 + rng.below(4) as i64);
        let mut inits = vec![zero, bound];
        let carried = rng.below(4);
        for _ in 0..carried {
            inits.push(self.pick(rng, r, env));
        }
        inits.extend([env.mem, env.io]);
        let theta = self.g.add_theta(r, &inits);
        let body = self.g.theta_body(theta);
        let args: Vec<Origin> = self.g.arg_origins(body).collect();
        let (mem_k, io_k) = (2 + carried, 3 + carried);
        let mut benv = Env {
            vals: args[..2 + carried].to_vec(),
            mem: args[mem_k],
            io: args[io_k],
            made: Vec::new(),
        };
        let items = 1 + rng.below(5);
        self.region(rng, body, &mut benv, depth - 1, items);
        // next values: the counter counts, the bound stays, the others vary or stay
        let one = self.iconst(body, 1);
        let next = Origin::Out(
            self.simple(body, Self::binary(Opcode::Iadd), &[args[0], one], &[I32]),
            0,
        );
        let pred = if endless {
            let op = Op::Ctl { alt: 1, alts: 2 };
            Origin::Out(self.simple(body, op, &[], &[Ty::Ctl(2)]), 0)
        } else {
            let cmp = Op::from_inst(&InstructionData::IntCompare {
                opcode: Opcode::Icmp,
                cond: IntCC::Slt,
                args: [v0(), v0()],
            });
            let more = Origin::Out(
                self.simple(body, cmp, &[next, args[1]], &[Ty::Val(Type::I1)]),
                0,
            );
            let m = Op::Match {
                cases: Box::new([(1, 1)]),
                default: 0,
                alts: 2,
            };
            Origin::Out(self.simple(body, m, &[more], &[Ty::Ctl(2)]), 0)
        };
        self.g.set_theta_predicate(theta, pred);
        self.g.set_result(body, 1, next);
        for k in 2..2 + carried {
            if rng.chance(60) {
                let v = self.pick(rng, body, &benv);
                self.g.set_result(body, k + 1, v);
            }
        }
        self.g.set_result(body, mem_k + 1, benv.mem);
        self.g.set_result(body, io_k + 1, benv.io);
        env.vals.push(Origin::Out(theta, 0));
        for k in 2..2 + carried {
            env.vals.push(Origin::Out(theta, k as u32));
        }
        env.mem = Origin::Out(theta, mem_k as u32);
        env.io = Origin::Out(theta, io_k as u32);
    }
}
