//! Sequentialization of the PDG into the SSA IR (thesis §2.3 and §4.1, Ferrante's
//! sequentialization): a λ's body, and each θ's body as a unit of its own, is
//! flattened, proceduralized (`build_pdg`) and normalized, then emitted group by
//! group, each group's children in the order their data dependences allow:
//! - a statement is its instruction, at the end of the current block;
//! - a predicate ends the block with the branch on its γ's predicate, each arm's
//!   group is emitted into a block of its own, and the arms meet in a join block
//!   where the γ's outputs are the arms' exit values;
//! - a θ is a loop: a header whose parameters are the loop variables, its body's
//!   unit, and a back edge from the block that tests the predicate; the exit block
//!   takes the last values (no stack is used);
//! - a group shared by several parents (a node demanded on exclusive paths) is
//!   emitted under each of them: as many static copies as parents, each run on its
//!   own paths only (duplication-freedom, which would share them, is for later).
//!
//! Values are SSA values found by the emitter's own SSA construction (Braun et al.,
//! CC 2013): a node's result is defined in the block that computes it; reading it in
//! another block follows the single predecessors up, and a block where paths with
//! different definitions meet (a join, or a block after a shared group) gets a block
//! parameter, whose arguments each predecessor's jump gives. Every jump to a join is
//! written last, once every parameter is known. A loop header's parameters are its
//! loop variables only: whatever else the body reads is defined before the loop.
//!
//! Control values are branches where a γ tests a `match` or a constant, and `i32`
//! alternative numbers where they cross a join, as in the structural destruction.

use rustc_hash::FxHashMap;
use vliw_ir::{Block, BlockCall, Function, InstructionData, Opcode, Value};

use super::build_pdg::{BuildError, BuildOptions, build_pdg};
use super::flatten::{Flat, FlatId, FlatKind, Role, Source};
use super::pdg::{Pdg, PdgId, PdgNode};
use crate::cursor::{Cursor, Val, empty_function, ir_type, remove_unreachable_blocks};
use crate::graph::{Node, Origin, Region};
use crate::ops::{Op, Rvsdg};

/// Why a λ was not sequentialized this way (the caller falls back to the structural
/// destruction).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmitError {
    Build(BuildError),
    /// Siblings of a group that need each other.
    Order(String),
}

/// The SSA IR function of λ `lambda`, by Lawrence's method.
pub fn sequentialize_lambda(g: &Rvsdg, lambda: Node) -> Result<Function, EmitError> {
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
        defs: FxHashMap::default(),
        preds: FxHashMap::default(),
        params: FxHashMap::default(),
        loop_entry: FxHashMap::default(),
        joins: Vec::new(),
    };
    for a in g.arg_origins(body) {
        if let Some(t) = g.ty(a).value() {
            let v = em.c.func.dfg.append_block_param(entry, t);
            em.defs.insert((entry, a), Val::Ir(v));
        }
    }
    if let Some(end) = em.unit(body, entry)? {
        let rets: Vec<Value> = (g.results(body).iter())
            .filter(|&&o| g.ty(o).value().is_some())
            .map(|&o| em.value(o, end))
            .collect();
        em.c.block = end;
        em.c.terminate(InstructionData::Return {
            opcode: Opcode::Return,
            args: rets,
        });
        em.c.locate_last(lambda);
    }
    em.write_joins();
    remove_unreachable_blocks(&mut func);
    Ok(func)
}

struct Emitter<'a> {
    g: &'a Rvsdg,
    c: Cursor<'a>,
    /// What each origin is in each block where it is known (defined there, or read
    /// there before: the memo of the SSA construction).
    defs: FxHashMap<(Block, Origin), Val>,
    preds: FxHashMap<Block, Vec<Block>>,
    /// The block parameters the SSA construction gave each join, by origin.
    params: FxHashMap<Block, Vec<Origin>>,
    /// Each loop header's block before the loop.
    loop_entry: FxHashMap<Block, Block>,
    /// The jumps to joins, written last: (from, to).
    joins: Vec<(Block, Block)>,
}

impl Emitter<'_> {
    /// Emits unit `unit` (a λ's or θ's body, whose arguments are defined in `block`)
    /// from `block`; the block where it ends (`None` if every path traps).
    fn unit(&mut self, unit: Region, block: Block) -> Result<Option<Block>, EmitError> {
        let flat = Flat::build(self.g, unit);
        let options = BuildOptions {
            gamma_ordering: true,
        };
        let proc = build_pdg(self.g, &flat, options).map_err(EmitError::Build)?;
        let (pdg, _) = proc.pdg.normalized();
        self.group(&flat, &pdg, pdg.root, block)
    }

    fn group(
        &mut self,
        flat: &Flat,
        pdg: &Pdg,
        group: PdgId,
        mut block: Block,
    ) -> Result<Option<Block>, EmitError> {
        for child in pdg.sequence(flat, group).map_err(EmitError::Order)? {
            let next = match pdg.node(child) {
                PdgNode::Group(_) => self.group(flat, pdg, child, block)?,
                PdgNode::Statement(f) => self.statement(flat, *f, block)?,
                PdgNode::Predicate { gamma, arms } => {
                    self.predicate(flat, pdg, *gamma, arms, block)?
                }
            };
            match next {
                Some(b) => block = b,
                None => return Ok(None),
            }
        }
        Ok(Some(block))
    }

    /// The origin a flat operand reads.
    fn origin(&self, flat: &Flat, source: Source) -> Origin {
        match source {
            Source::Out(id, k) => Origin::Out(node_of(flat, id), k),
            Source::Arg(k) => Origin::Arg(flat.unit, k),
            Source::Effect(_) => unreachable!("an effect has no value"),
        }
    }

    fn statement(
        &mut self,
        flat: &Flat,
        f: FlatId,
        block: Block,
    ) -> Result<Option<Block>, EmitError> {
        let g = self.g;
        let n = node_of(flat, f);
        // what the node's inputs read (an arm's argument is its γ's entry)
        let inputs: Vec<Origin> = (flat.nodes[f as usize].operands.iter())
            .map(|o| self.origin(flat, o.source))
            .collect();
        if let FlatKind::Theta(_) = flat.nodes[f as usize].kind {
            return self.theta(n, &inputs, block);
        }
        let op = g.op(n).expect("a statement of a simple node");
        match op {
            Op::Ctl { alt, .. } => {
                self.defs
                    .insert((block, Origin::Out(n, 0)), Val::Const(*alt));
            }
            Op::MemSplit(_) | Op::MemJoin(_) => {}
            Op::Match { .. } => {
                let x = self.value(inputs[0], block);
                self.defs
                    .insert((block, Origin::Out(n, 0)), Val::Match(n, x));
            }
            Op::Inst(_) | Op::SafeDiv(_) => {
                let nargs = op.num_value_args();
                let args: Vec<Value> = (inputs[..nargs].iter())
                    .map(|&o| self.value(o, block))
                    .collect();
                self.c.block = block;
                let mut results = self.c.operation(n, op, &args).into_iter();
                for o in g.outputs(n) {
                    if g.ty(o).value().is_some() {
                        let v = results.next().expect("a result");
                        self.defs.insert((block, o), Val::Ir(v));
                    }
                }
                if matches!(op.opcode(), Some(Opcode::Trap | Opcode::Unreachable)) {
                    return Ok(None); // nothing after it runs
                }
            }
        }
        Ok(Some(block))
    }

    fn predicate(
        &mut self,
        flat: &Flat,
        pdg: &Pdg,
        gamma: FlatId,
        arms: &[PdgId],
        block: Block,
    ) -> Result<Option<Block>, EmitError> {
        let g = self.g;
        let n = node_of(flat, gamma);
        let operands = &flat.nodes[gamma as usize].operands;
        let pred_origin = self.origin(flat, operands[0].source);
        let pred = self.read(pred_origin, block);
        let exits = |arm: u32| {
            (operands.iter()).filter_map(move |o| match o.role {
                Role::Exit { arm: a, exit } if a == arm => Some((exit, o.source)),
                _ => None,
            })
        };
        // the results of arm `k`, defined where it ends
        let define = |em: &mut Self, k: u32, end: Block| {
            for (exit, source) in exits(k) {
                let out = Origin::Out(n, exit);
                if g.ty(out).is_state() {
                    continue;
                }
                let v = em.read(em.origin(flat, source), end);
                em.defs.insert((end, out), v);
            }
        };
        if let Val::Const(alt) = pred {
            // a constant predicate: its arm inline
            let end = self.group(flat, pdg, arms[alt as usize], block)?;
            if let Some(end) = end {
                define(self, alt, end);
            }
            return Ok(end);
        }
        let heads: Vec<Block> = arms.iter().map(|_| self.c.func.dfg.make_block()).collect();
        self.c.block = block;
        let targets: Vec<BlockCall> = heads.iter().map(|&b| BlockCall::from(b)).collect();
        self.c.branch(pred, &targets);
        self.c.locate_last(n);
        let join = self.c.func.dfg.make_block();
        for (k, (&arm, &head)) in arms.iter().zip(&heads).enumerate() {
            self.c.func.layout.append_block(head);
            self.preds.insert(head, vec![block]);
            if let Some(end) = self.group(flat, pdg, arm, head)? {
                define(self, k as u32, end);
                self.preds.entry(join).or_default().push(end);
                self.joins.push((end, join));
            }
        }
        if !self.preds.contains_key(&join) {
            return Ok(None); // every arm traps
        }
        self.c.func.layout.append_block(join);
        Ok(Some(join))
    }

    /// θ `n`, whose inputs read `inputs`.
    fn theta(
        &mut self,
        n: Node,
        inputs: &[Origin],
        block: Block,
    ) -> Result<Option<Block>, EmitError> {
        let g = self.g;
        let body = g.theta_body(n);
        let header = self.c.func.dfg.make_block();
        let mut init = Vec::new();
        for (k, a) in g.arg_origins(body).enumerate() {
            let Some(t) = ir_type(g.ty(a)) else { continue };
            let p = self.c.func.dfg.append_block_param(header, t);
            self.defs.insert((header, a), Val::Ir(p));
            init.push(self.value(inputs[k], block));
        }
        self.c.block = block;
        self.c.jump(BlockCall {
            block: header,
            args: init,
        });
        self.c.func.layout.append_block(header);
        self.loop_entry.insert(header, block);
        self.preds.insert(header, vec![block]);
        let Some(latch) = self.unit(body, header)? else {
            return Ok(None); // the body always traps: no back edge
        };
        let results = g.results(body).to_vec();
        let mut next = Vec::new();
        for (k, a) in g.arg_origins(body).enumerate() {
            if ir_type(g.ty(a)).is_some() {
                next.push(self.value(results[k + 1], latch));
            }
        }
        let exit = self.c.func.dfg.make_block();
        let mut exit_args = Vec::new();
        for k in 0..g.num_outputs(n) {
            let o = Origin::Out(n, k as u32);
            let Some(t) = ir_type(g.ty(o)) else { continue };
            exit_args.push(self.value(results[k + 1], latch));
            let p = self.c.func.dfg.append_block_param(exit, t);
            self.defs.insert((exit, o), Val::Ir(p));
        }
        let pred = self.read(results[0], latch);
        self.c.block = latch;
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
        self.c.branch(pred, &targets);
        self.c.locate_last(n);
        self.preds.get_mut(&header).expect("the header").push(latch);
        self.c.func.layout.append_block(exit);
        self.preds.insert(exit, vec![latch]);
        Ok(Some(exit))
    }

    /// What `o` is at the end of `block`, as an SSA value.
    fn value(&mut self, o: Origin, block: Block) -> Value {
        let val = self.read(o, block);
        self.c.block = block;
        self.c.value(val)
    }

    /// What `o` is at the end of `block` (Braun et al.'s readVariable).
    fn read(&mut self, o: Origin, block: Block) -> Val {
        if let Some(&v) = self.defs.get(&(block, o)) {
            return v;
        }
        let v = if let Some(&before) = self.loop_entry.get(&block) {
            // not a loop variable: defined before the loop
            self.read(o, before)
        } else {
            match self.preds.get(&block).map(Vec::as_slice) {
                Some(&[one]) => self.read(o, one),
                Some([_, _, ..]) => {
                    let ty = ir_type(self.g.ty(o)).expect("a value or control origin");
                    let p = self.c.func.dfg.append_block_param(block, ty);
                    self.params.entry(block).or_default().push(o);
                    Val::Ir(p)
                }
                _ => panic!("{o:?} is read in {block}, where no path defines it"),
            }
        };
        self.defs.insert((block, o), v);
        v
    }

    /// Writes the jumps to the joins, each with the arguments of its target's
    /// parameters (reading them may give other joins new parameters: until none).
    fn write_joins(&mut self) {
        let mut args: FxHashMap<(Block, Block), Vec<Value>> = FxHashMap::default();
        loop {
            let mut grew = false;
            for k in 0..self.joins.len() {
                let (from, to) = self.joins[k];
                let params = self.params.get(&to).cloned().unwrap_or_default();
                let done = args.get(&(from, to)).map_or(0, Vec::len);
                for &o in &params[done..] {
                    let v = self.value(o, from);
                    args.entry((from, to)).or_default().push(v);
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        for &(from, to) in &self.joins.clone() {
            self.c.block = from;
            self.c.jump(BlockCall {
                block: to,
                args: args.remove(&(from, to)).unwrap_or_default(),
            });
        }
    }
}

/// The RVSDG node a flat node stands for.
fn node_of(flat: &Flat, id: FlatId) -> Node {
    match flat.nodes[id as usize].kind {
        FlatKind::Simple(n) | FlatKind::Theta(n) | FlatKind::Gamma { node: n, .. } => n,
    }
}
