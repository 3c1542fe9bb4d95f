//! Structural destruction: from a λ back to an SSA IR function, each γ becoming a
//! branch and a join block, each θ a loop header with a back edge
//! (`sequentialize=structural`).
//!
//! Each region is emitted in one topological order of its nodes (producers first; the
//! state edges order the effects; ties broken by node number, i.e. in the order the
//! construction created them, which is the original instruction order). Values of a
//! region are SSA values of the blocks emitted for it, so an arm or a loop body uses
//! the values of the enclosing regions directly (its blocks are dominated by the
//! block where the γ or θ starts) and only a γ's join and a θ's header get block
//! parameters. States have no SSA value: they only order the emission.
//!
//! Control values become branches: a γ or θ predicate made by a `match` of the same
//! region branches on the matched integer directly (`brif` for a boolean matched to
//! two alternatives, `switch` otherwise), a constant predicate selects its arm without
//! a branch, and any other control value (one passed through a region) is carried as
//! an `i32` alternative number. An arm that computes nothing branches straight to the
//! join. A `trap` ends its block; what its region computes after it cannot run and is
//! emitted into a block without predecessors, which is removed at the end.

use rustc_hash::FxHashMap;
use vliw_ir::{BlockCall, Function, InstructionData, Opcode, Type, Value};

use crate::cursor::{Cursor, Val, empty_function, remove_unreachable_blocks};
use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};

/// The SSA IR function of λ `lambda`.
pub fn destroy_lambda(g: &Rvsdg, lambda: Node) -> Function {
    let shell = g.lambda_info(lambda);
    let mut func = empty_function(g, lambda);
    let body = g.lambda_body(lambda);
    let entry = func.dfg.make_block();
    func.layout.append_block(entry);
    let mut em = Emitter {
        g,
        c: Cursor {
            g,
            func: &mut func,
            block: entry,
        },
        vals: FxHashMap::default(),
    };
    for (i, a) in g.arg_origins(body).enumerate() {
        if let Ty::Val(t) = g.ty(a) {
            let v = em.c.func.dfg.append_block_param(entry, t);
            em.vals.insert(a, Val::Ir(v));
        } else {
            debug_assert!(i >= shell.signature.params.len());
        }
    }
    em.region(body);
    let rets: Vec<Value> = g
        .results(body)
        .iter()
        .filter(|&&o| matches!(g.ty(o), Ty::Val(_)))
        .map(|&o| em.value(o))
        .collect();
    em.c.terminate(InstructionData::Return {
        opcode: Opcode::Return,
        args: rets,
    });
    em.c.locate_last(lambda);
    remove_unreachable_blocks(&mut func);
    func
}

struct Emitter<'a> {
    g: &'a Rvsdg,
    /// Where instructions go.
    c: Cursor<'a>,
    vals: FxHashMap<Origin, Val>,
}

impl Emitter<'_> {
    /// The SSA value of a value-typed origin; a control value as its `i32`
    /// alternative number.
    fn value(&mut self, o: Origin) -> Value {
        let val = self.vals[&o];
        self.c.value(val)
    }

    /// Emits the nodes of `r`, whose arguments are already mapped.
    fn region(&mut self, r: Region) {
        for n in self.g.topological_order(r) {
            self.node(n);
        }
    }

    fn node(&mut self, n: Node) {
        let g = self.g;
        match g.kind(n) {
            NodeKind::Simple(op) => self.simple(n, op),
            NodeKind::Gamma { arms } => self.gamma(n, arms),
            NodeKind::Theta { body } => self.theta(n, *body),
            NodeKind::Lambda { .. } => unreachable!("a λ inside a λ"),
        }
    }

    fn simple(&mut self, n: Node, op: &Op) {
        let g = self.g;
        match op {
            Op::Ctl { alt, .. } => {
                self.vals.insert(Origin::Out(n, 0), Val::Const(*alt));
            }
            // states have no SSA value: nothing to emit
            Op::MemSplit(_) | Op::MemJoin(_) => {}
            Op::Match { .. } => {
                let x = self.value(g.input(n, 0));
                self.vals.insert(Origin::Out(n, 0), Val::Match(n, x));
            }
            Op::Inst(_) | Op::SafeDiv(_) => {
                let nargs = op.num_value_args();
                let args: Vec<Value> = g.inputs(n)[..nargs]
                    .iter()
                    .map(|&o| self.value(o))
                    .collect();
                let is_trap = matches!(op.opcode(), Some(Opcode::Trap | Opcode::Unreachable));
                let mut results = self.c.operation(n, op, &args).into_iter();
                for o in g.outputs(n) {
                    if let Ty::Val(_) = g.ty(o) {
                        self.vals
                            .insert(o, Val::Ir(results.next().expect("a result")));
                    }
                }
                if is_trap {
                    // nothing after a trap runs: continue in a block nobody reaches
                    self.c.block = self.c.new_block();
                }
            }
        }
    }

    fn gamma(&mut self, n: Node, arms: &[Region]) {
        let g = self.g;
        let pred = g.input(n, 0);
        let entries: Vec<Origin> = g.inputs(n)[1..].to_vec();
        // a constant predicate: the arm inline
        if let Val::Const(alt) = self.vals[&pred] {
            let arm = arms[alt as usize];
            self.bind_args(arm, &entries);
            self.region(arm);
            // (states have no value)
            let outs: Vec<(Origin, Val)> = g
                .outputs(n)
                .zip(g.results(arm))
                .filter(|(o, _)| !g.ty(*o).is_state())
                .map(|(o, &res)| (o, self.vals[&res]))
                .collect();
            self.vals.extend(outs);
            return;
        }
        let join = self.c.func.dfg.make_block();
        let mut join_params = Vec::new();
        for o in g.outputs(n) {
            match g.ty(o) {
                Ty::Val(t) => join_params.push((o, self.c.func.dfg.append_block_param(join, t))),
                Ty::Ctl(_) => {
                    join_params.push((o, self.c.func.dfg.append_block_param(join, Type::I32)))
                }
                Ty::Mem | Ty::Io => {}
            }
        }
        let head = self.c.block;
        let mut targets = Vec::with_capacity(arms.len());
        let mut pending = Vec::new();
        for &arm in arms {
            self.bind_args(arm, &entries);
            if g.nodes(arm).is_empty() {
                // nothing to compute: straight to the join
                let args = self.join_args(n, arm);
                targets.push(BlockCall { block: join, args });
            } else {
                let b = self.c.func.dfg.make_block();
                targets.push(BlockCall::from(b));
                pending.push((arm, b));
            }
        }
        self.c.block = head;
        self.c.branch(self.vals[&pred], &targets);
        self.c.locate_last(n);
        for (arm, b) in pending {
            self.c.func.layout.append_block(b);
            self.c.block = b;
            self.region(arm);
            let args = self.join_args(n, arm);
            self.c.terminate(InstructionData::Jump {
                opcode: Opcode::Jump,
                dest: BlockCall { block: join, args },
            });
        }
        self.c.func.layout.append_block(join);
        self.c.block = join;
        for (o, v) in join_params {
            self.vals.insert(o, Val::Ir(v));
        }
    }

    /// Maps the arguments of a subregion to the values of the structural node's inputs.
    fn bind_args(&mut self, r: Region, inputs: &[Origin]) {
        for (a, &i) in self.g.arg_origins(r).zip(inputs) {
            if let Some(&v) = self.vals.get(&i) {
                self.vals.insert(a, v);
            }
        }
    }

    /// The join's arguments from arm `arm` (its results that are not states).
    fn join_args(&mut self, gamma: Node, arm: Region) -> Vec<Value> {
        let g = self.g;
        g.outputs(gamma)
            .zip(g.results(arm).to_vec())
            .filter(|(o, _)| !g.ty(*o).is_state())
            .map(|(_, res)| self.value(res))
            .collect()
    }

    fn theta(&mut self, n: Node, body: Region) {
        let g = self.g;
        let header = self.c.func.dfg.make_block();
        let results = g.results(body).to_vec();
        // loop variables carried around the loop as the header's parameters: not the
        // states, not the invariant ones (the body reads the input's value), and not
        // the ones the body never reads (they only carry the last iteration's value
        // out, which the exit takes directly)
        let mut carried = Vec::new();
        let mut init = Vec::new();
        for (k, a) in g.arg_origins(body).enumerate() {
            let input = g.input(n, k);
            let ty = g.ty(a);
            if ty.is_state() {
                continue;
            }
            if results[k + 1] == a {
                if let Some(&v) = self.vals.get(&input) {
                    self.vals.insert(a, v);
                }
                continue;
            }
            if !g.has_users(a) {
                continue;
            }
            let t = ty.value().unwrap_or(Type::I32);
            let p = self.c.func.dfg.append_block_param(header, t);
            self.vals.insert(a, Val::Ir(p));
            init.push(self.value(input));
            carried.push(k);
        }
        self.c.terminate(InstructionData::Jump {
            opcode: Opcode::Jump,
            dest: BlockCall {
                block: header,
                args: init,
            },
        });
        self.c.func.layout.append_block(header);
        self.c.block = header;
        self.region(body);
        let next: Vec<Value> = carried
            .iter()
            .map(|&k| self.value(results[k + 1]))
            .collect();
        // the outputs are the last iteration's values, computed in the block that
        // branches to the exit; those that are IR values enter the exit as its
        // parameters, so that nothing after the loop reads the values of the block that
        // tests the predicate (jump threading can then send the body's paths past that
        // test straight to the header or the exit)
        let exit = self.c.func.dfg.make_block();
        let mut exit_args = Vec::new();
        let mut outs: Vec<(Origin, Val)> = Vec::new();
        for k in 0..g.num_outputs(n) {
            let o = Origin::Out(n, k as u32);
            if g.ty(o).is_state() {
                continue;
            }
            let val = match self.vals[&results[k + 1]] {
                Val::Ir(v) if g.has_users(o) => {
                    exit_args.push(v);
                    let ty = self.c.func.dfg.value_type(v);
                    Val::Ir(self.c.func.dfg.append_block_param(exit, ty))
                }
                val => val,
            };
            outs.push((o, val));
        }
        // alternative 1 repeats, 0 leaves
        let targets = [
            BlockCall {
                block: exit,
                args: exit_args,
            },
            BlockCall {
                block: header,
                args: next,
            },
        ];
        self.c.branch(self.vals[&results[0]], &targets);
        self.c.locate_last(n);
        self.c.func.layout.append_block(exit);
        self.c.block = exit;
        self.vals.extend(outs);
    }
}
