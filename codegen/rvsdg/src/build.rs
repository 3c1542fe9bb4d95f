//! Construction of a λ from an SSA IR function, after Bahmann et al. (ACM TACO 2015):
//! the function's control flow is first restructured in place (`restructure`: every
//! loop tail-controlled, every branch region with one join, every value block-local),
//! then its structure tree is turned into nested regions: a branch into a γ whose
//! arms are the branch's arms, a loop into a θ whose body is the loop's body.
//!
//! Between the two, the parameters that only pass a value on are forwarded
//! (`restructure::forward_pass_through_params`): block-locality passes every value
//! live across a construct through it, which would make it a variable of every γ and
//! θ it crosses (quadratic in the function's length). What flows between blocks is
//! then either a branch argument (a γ's entry variables are the arguments of its arms'
//! edges, each origin once; its exit variables the join's parameters; a θ's loop
//! variables the header's parameters followed by the exit block's, which start as
//! `undef`: they only carry the last iteration's values out), or a value of an
//! enclosing region that a region reads directly: [`Builder::val`] routes it in on
//! demand, through each structural node between, as an entry variable of a γ (the one
//! an edge already passes, if any) or an invariant loop variable of a θ, once per node.
//! The memory and I/O states are threaded through every region as one more
//! entry/exit variable each.

use rustc_hash::{FxHashMap, FxHashSet};
use vliw_ir::{Block, Function, InstructionData, Opcode, Type, Value};

use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;
use crate::restructure::{Tree, forward_pass_through_params, restructure, structure_tree};

/// Builds `func` as a λ of `g`. An error says why the function cannot be built (it
/// then goes through the pipeline without the RVSDG).
pub fn build_lambda(g: &mut Rvsdg, func: &Function, report: &mut Report) -> Result<Node, String> {
    let mut f = func.clone();
    // unwind edges become branches on the outcome of calls (`crate::unwind`)
    if f.unwinding_opcode().is_some() {
        crate::unwind::invokes_to_try_calls(&mut f);
        report.count("rvsdg.unwind.functions", 1);
    }
    let stats = restructure(&mut f);
    report.count("rvsdg.restructure.loops", stats.loops as u64);
    report.count("rvsdg.restructure.blocks-added", stats.blocks_added as u64);
    report.count(
        "rvsdg.restructure.dead-ends",
        stats.dead_ends_detached as u64,
    );
    report.count(
        "rvsdg.restructure.dead-region-copies",
        stats.dead_region_copies as u64,
    );
    let tree = structure_tree(&f).map_err(|e| format!("@{}: not structured: {e}", f.name))?;
    // values cross the constructs that do not read them on their own, not as variables
    let dead_ends: FxHashSet<Block> = stats.dead_ends.iter().copied().collect();
    let forwarded = forward_pass_through_params(&mut f, &tree, &dead_ends);
    report.count("rvsdg.restructure.params-forwarded", forwarded as u64);
    let mut shell = f.clone();
    shell.dfg = Default::default();
    shell.layout = Default::default();
    shell.srclocs = Default::default();
    let mut params: Vec<Ty> = f.signature.params.iter().map(|&t| Ty::Val(t)).collect();
    params.extend([Ty::Mem, Ty::Io]);
    let lambda = g.add_lambda(shell, &params);
    let body = g.lambda_body(lambda);
    let entry = f.layout.entry_block().ok_or("no blocks")?;
    let n = f.signature.params.len();
    let mut b = Builder {
        g,
        f: &f,
        region: body,
        vals: FxHashMap::default(),
        mem: Origin::Arg(body, n as u32),
        io: Origin::Arg(body, n as u32 + 1),
        dead_ends,
        outer: Vec::new(),
        routed: FxHashMap::default(),
    };
    let args: Vec<Origin> = (0..n as u32).map(|i| Origin::Arg(body, i)).collect();
    b.bind_params(entry, &args);
    match b.tree(&tree)? {
        Exit::Done(results) => {
            for o in results {
                b.g.add_result(body, o);
            }
        }
        Exit::Edge(target, _) => {
            return Err(format!(
                "@{}: the structure ends in an edge to {target}",
                f.name
            ));
        }
    }
    report.count("rvsdg.built", 1);
    Ok(lambda)
}

/// A region being filled while a subregion of one of its nodes is.
struct Frame {
    region: Region,
    vals: FxHashMap<Value, Origin>,
    mem: Origin,
    io: Origin,
}

/// How a piece of the structure ends.
enum Exit {
    /// An edge to `block` with these arguments.
    Edge(Block, Vec<Origin>),
    /// The function's end: the λ's results (returned values, memory, I/O).
    Done(Vec<Origin>),
}

struct Builder<'a> {
    g: &'a mut Rvsdg,
    f: &'a Function,
    /// The region being filled.
    region: Region,
    /// The origin of each SSA value in `region`.
    vals: FxHashMap<Value, Origin>,
    mem: Origin,
    io: Origin,
    /// The regions around `region` being filled, outermost first.
    outer: Vec<Frame>,
    /// The values routed into structural nodes: (node, origin outside) → the index of
    /// the argument it became in the node's subregions.
    routed: FxHashMap<(Node, Origin), u32>,
    /// The restructuring's dead ends: blocks that end in an `unreachable` sink.
    dead_ends: rustc_hash::FxHashSet<Block>,
}

impl Builder<'_> {
    fn bind_params(&mut self, block: Block, args: &[Origin]) {
        for (&p, &a) in self.f.dfg.block_params(block).iter().zip(args) {
            self.vals.insert(p, a);
        }
    }

    /// Follows an edge into `block`: its parameters take the edge's arguments.
    fn enter(&mut self, exit: Exit, block: Block) -> Result<(), String> {
        match exit {
            Exit::Edge(target, args) if target == block => {
                self.bind_params(block, &args);
                Ok(())
            }
            Exit::Edge(target, _) => Err(format!(
                "@{}: an edge to {target} where the structure continues at {block}",
                self.f.name
            )),
            Exit::Done(_) => Err(format!(
                "@{}: the structure goes on at {block} after the function's end",
                self.f.name
            )),
        }
    }

    /// The origin of `v` in the region being filled: a value of the region, or one of
    /// a region around it, routed in through each structural node between (an entry
    /// variable of a γ, an invariant loop variable of a θ) and remembered there.
    fn val(&mut self, v: Value) -> Result<Origin, String> {
        if let Some(&o) = self.vals.get(&v) {
            return Ok(o);
        }
        let Some(level) = self.outer.iter().rposition(|f| f.vals.contains_key(&v)) else {
            return Err(format!(
                "@{}: {v} is used where it is not visible",
                self.f.name
            ));
        };
        let mut o = self.outer[level].vals[&v];
        for j in level + 1..=self.outer.len() {
            let (region, vals) = match self.outer.get_mut(j) {
                Some(f) => (f.region, &mut f.vals),
                None => (self.region, &mut self.vals),
            };
            let node = self.g.owner(region).expect("an inner region has an owner");
            let k = match self.routed.get(&(node, o)) {
                Some(&k) => k,
                None => {
                    // the new variable's argument: after the γ's predicate input, or
                    // the θ's input of the same number
                    let k = match self.g.kind(node) {
                        NodeKind::Gamma { .. } => {
                            self.g.add_gamma_entry(node, o);
                            self.g.inputs(node).len() - 2
                        }
                        NodeKind::Theta { .. } => {
                            self.g.add_theta_var(node, o);
                            self.g.inputs(node).len() - 1
                        }
                        _ => unreachable!("values do not flow into a λ"),
                    } as u32;
                    self.routed.insert((node, o), k);
                    k
                }
            };
            o = Origin::Arg(region, k);
            vals.insert(v, o);
        }
        Ok(o)
    }

    fn vals_of(&mut self, vs: &[Value]) -> Result<Vec<Origin>, String> {
        vs.iter().map(|&v| self.val(v)).collect()
    }

    /// Starts filling `region` (a subregion of a node of the region being filled),
    /// whose states are `mem` and `io`.
    fn push_region(&mut self, region: Region, mem: Origin, io: Origin) {
        let frame = Frame {
            region: std::mem::replace(&mut self.region, region),
            vals: std::mem::take(&mut self.vals),
            mem: std::mem::replace(&mut self.mem, mem),
            io: std::mem::replace(&mut self.io, io),
        };
        self.outer.push(frame);
    }

    /// Goes back to the region around the one being filled.
    fn pop_region(&mut self) {
        let f = self.outer.pop().expect("a region was pushed");
        (self.region, self.vals, self.mem, self.io) = (f.region, f.vals, f.mem, f.io);
    }

    fn undef(&mut self, ty: Type) -> Origin {
        let op = Op::from_inst(&InstructionData::Nullary {
            opcode: Opcode::Undef,
        });
        let n = self.g.add_simple(self.region, op, &[], &[Ty::Val(ty)]);
        Origin::Out(n, 0)
    }

    fn tree(&mut self, t: &Tree) -> Result<Exit, String> {
        match t {
            Tree::Block(b) => self.block(*b),
            Tree::Seq(items) => {
                let mut exit = None;
                for (k, item) in items.iter().enumerate() {
                    if k > 0 {
                        // the previous item's edge enters this one
                        let p = exit.take().expect("set by the previous item");
                        self.enter(p, item_head(item))?;
                    }
                    exit = Some(self.tree(item)?);
                }
                exit.ok_or_else(|| format!("@{}: an empty sequence", self.f.name))
            }
            Tree::Branch { head, arms, join } => self.branch(*head, arms, *join),
            Tree::Loop {
                header,
                body,
                tail,
                exit,
            } => self.theta(*header, body, *tail, *exit),
        }
    }

    /// The instructions of `b` before its terminator, as nodes.
    fn instructions(&mut self, b: Block) -> Result<vliw_ir::Inst, String> {
        let f = self.f;
        let mut insts = f.layout.block_insts(b).peekable();
        while let Some(inst) = insts.next() {
            if insts.peek().is_none() {
                return Ok(inst);
            }
            self.simple(inst)?;
        }
        Err(format!("@{}: {b} is empty", f.name))
    }

    fn simple(&mut self, inst: vliw_ir::Inst) -> Result<(), String> {
        let f = self.f;
        let data = f.dfg.inst_data(inst);
        let op = Op::from_inst(data);
        let states = op.states();
        let mut inputs = self.vals_of(data.arguments())?;
        if states.mem {
            inputs.push(self.mem);
        }
        if states.io {
            inputs.push(self.io);
        }
        let results = f.dfg.inst_results(inst);
        let mut types: Vec<Ty> = results
            .iter()
            .map(|&r| Ty::Val(f.dfg.value_type(r)))
            .collect();
        let gives_back = op.state_outputs();
        types.extend(gives_back.types());
        let n = self.g.add_simple(self.region, op, &inputs, &types);
        let loc = f.srclocs[inst];
        if !loc.is_default() {
            self.g.set_loc(n, loc);
        }
        for (k, &r) in results.iter().enumerate() {
            self.vals.insert(r, Origin::Out(n, k as u32));
        }
        let mut k = results.len() as u32;
        if gives_back.mem {
            self.mem = Origin::Out(n, k);
            k += 1;
        }
        if gives_back.io {
            self.io = Origin::Out(n, k);
        }
        Ok(())
    }

    /// Gives node `n` the source location of instruction `inst`, if it has one.
    fn locate(&mut self, n: Node, inst: vliw_ir::Inst) {
        let loc = self.f.srclocs[inst];
        if !loc.is_default() {
            self.g.set_loc(n, loc);
        }
    }

    /// A block that ends the structure or jumps on: its nodes, and where it goes.
    fn block(&mut self, b: Block) -> Result<Exit, String> {
        let term = self.instructions(b)?;
        let f = self.f;
        match f.dfg.inst_data(term) {
            InstructionData::Jump { dest, .. } => {
                if self.dead_ends.contains(&b) {
                    // the `unreachable` the restructuring took out (a sink: it reads
                    // the states, and the arm passes them on as its results)
                    let sink = Op::from_inst(&InstructionData::Nullary {
                        opcode: Opcode::Unreachable,
                    });
                    self.g
                        .add_simple(self.region, sink, &[self.mem, self.io], &[]);
                }
                Ok(Exit::Edge(dest.block, self.vals_of(&dest.args)?))
            }
            InstructionData::Return { args, .. } => {
                // the λ keeps the location of (the first) `return`, for the one the
                // sequentialization makes
                if let Some(l) = self.g.enclosing_lambda(self.region)
                    && self.g.node(l).loc.is_default()
                {
                    self.locate(l, term);
                }
                let mut results = self.vals_of(args)?;
                results.extend([self.mem, self.io]);
                Ok(Exit::Done(results))
            }
            InstructionData::Trap { .. }
            | InstructionData::Nullary {
                opcode: Opcode::Unreachable,
            } => {
                self.simple(term)?;
                let mut results: Vec<Origin> =
                    f.signature.returns.iter().map(|&t| self.undef(t)).collect();
                results.extend([self.mem, self.io]);
                Ok(Exit::Done(results))
            }
            other => Err(format!(
                "@{}: {b} ends in `{}` where the structure has a plain block",
                f.name,
                other.opcode()
            )),
        }
    }

    /// The control value of `head`'s terminator (`brif`/`switch`) selecting among
    /// `arms` (edge indices of the terminator, in arm order).
    fn predicate(&mut self, term: &InstructionData, arms: &[usize]) -> Result<Origin, String> {
        // an arm stands for every destination equal to its first one (same block,
        // same arguments)
        let dests = term.branch_destinations();
        let alt_of_edge = |edge: usize| -> Result<u32, String> {
            arms.iter()
                .position(|&e| dests[e] == dests[edge])
                .map(|a| a as u32)
                .ok_or_else(|| format!("edge {edge} is in no arm"))
        };
        let (cond, cases, default): (Value, Vec<(u128, u32)>, u32) = match term {
            InstructionData::Brif { arg, .. } => {
                (*arg, vec![(1, alt_of_edge(0)?)], alt_of_edge(1)?)
            }
            InstructionData::Switch { arg, table, .. } => {
                let cases = table
                    .values
                    .iter()
                    .enumerate()
                    .map(|(k, &v)| Ok((v, alt_of_edge(k + 1)?)))
                    .collect::<Result<Vec<_>, String>>()?;
                (*arg, cases, alt_of_edge(0)?)
            }
            other => return Err(format!("a branch on `{}`", other.opcode())),
        };
        let x = self.val(cond)?;
        let alts = arms.len() as u32;
        let n = self.g.add_simple(
            self.region,
            Op::Match {
                cases: cases.into_boxed_slice(),
                default,
                alts,
            },
            &[x],
            &[Ty::Ctl(alts)],
        );
        Ok(Origin::Out(n, 0))
    }

    fn branch(
        &mut self,
        head: Block,
        arms: &[(usize, Tree)],
        join: Option<Block>,
    ) -> Result<Exit, String> {
        let term = self.instructions(head)?;
        let f = self.f;
        let data = f.dfg.inst_data(term);
        let dests = data.branch_destinations();
        let edges: Vec<usize> = arms.iter().map(|(e, _)| *e).collect();
        let pred = self.predicate(data, &edges)?;
        // entry variables: every origin an arm's edge passes, once, then the states
        let mut entries: Vec<Origin> = Vec::new();
        let mut index: FxHashMap<Origin, usize> = FxHashMap::default();
        for &(e, _) in arms {
            for &v in &dests[e].args {
                let o = self.val(v)?;
                index.entry(o).or_insert_with(|| {
                    entries.push(o);
                    entries.len() - 1
                });
            }
        }
        entries.extend([self.mem, self.io]);
        let ne = entries.len() as u32;
        let gamma = self.g.add_gamma(self.region, pred, &entries, arms.len());
        // an arm that reads a value the edges pass anyway reads that entry variable
        for (&o, &k) in &index {
            self.routed.insert((gamma, o), k as u32);
        }
        // the branch's location goes to the γ, and back to the branch it becomes
        self.locate(gamma, term);
        let arm_regions = self.g.kind(gamma).subregions().to_vec();
        // what each arm's edge passes, as entry numbers
        let passed: Vec<Vec<u32>> = arms
            .iter()
            .map(|&(e, _)| {
                dests[e]
                    .args
                    .iter()
                    .map(|v| index[&self.vals[v]] as u32)
                    .collect()
            })
            .collect();
        let mut exits = Vec::with_capacity(arms.len());
        for ((&(e, ref tree), &r), passed) in arms.iter().zip(&arm_regions).zip(&passed) {
            self.push_region(r, Origin::Arg(r, ne - 2), Origin::Arg(r, ne - 1));
            let args: Vec<Origin> = passed.iter().map(|&k| Origin::Arg(r, k)).collect();
            let exit = if is_empty(tree) {
                Exit::Edge(dests[e].block, args)
            } else {
                self.bind_params(item_head(tree), &args);
                self.tree(tree)?
            };
            exits.push(match exit {
                Exit::Edge(target, mut args) => {
                    if Some(target) != join {
                        return Err(format!(
                            "@{}: an arm of {head} goes to {target}, not to its join",
                            f.name
                        ));
                    }
                    args.extend([self.mem, self.io]);
                    args
                }
                Exit::Done(results) if join.is_none() => results,
                Exit::Done(_) => {
                    return Err(format!("@{}: an arm of {head} ends the function", f.name));
                }
            });
            self.pop_region();
        }
        let width = exits[0].len();
        if exits.iter().any(|x| x.len() != width) {
            return Err(format!("@{}: the arms of {head} disagree", f.name));
        }
        let outs: Vec<Origin> = (0..width)
            .map(|k| {
                let per_arm: Vec<Origin> = exits.iter().map(|x| x[k]).collect();
                self.g.add_gamma_exit(gamma, &per_arm)
            })
            .collect();
        self.mem = outs[width - 2];
        self.io = outs[width - 1];
        let values = outs[..width - 2].to_vec();
        Ok(match join {
            Some(j) => Exit::Edge(j, values),
            None => Exit::Done(outs),
        })
    }

    fn theta(
        &mut self,
        header: Block,
        body: &Tree,
        tail: Block,
        exit: Block,
    ) -> Result<Exit, String> {
        let f = self.f;
        // the values entering the loop are the header's parameters, bound by the
        // edge that led here
        let inits: Vec<Origin> = self.vals_of(f.dfg.block_params(header))?;
        let mut all = inits.clone();
        for &p in f.dfg.block_params(exit) {
            let u = self.undef(f.dfg.value_type(p));
            all.push(u);
        }
        all.extend([self.mem, self.io]);
        let nh = inits.len();
        let nx = f.dfg.block_params(exit).len();
        let theta = self.g.add_theta(self.region, &all);
        if let Some(term) = f.layout.last_inst(tail) {
            self.locate(theta, term);
        }
        let r = self.g.theta_body(theta);
        self.push_region(
            r,
            Origin::Arg(r, (nh + nx) as u32),
            Origin::Arg(r, (nh + nx + 1) as u32),
        );
        let args: Vec<Origin> = (0..nh as u32).map(|i| Origin::Arg(r, i)).collect();
        self.bind_params(header, &args);
        // the body ends in the tail's `brif r, header(..), exit(..)`
        let (repeat, next, out) = self.loop_body(body, header, tail, exit)?;
        self.g.set_theta_predicate(theta, repeat);
        let mut results = next;
        results.extend(out);
        results.extend([self.mem, self.io]);
        for (k, o) in results.into_iter().enumerate() {
            self.g.set_result(r, k + 1, o);
        }
        self.pop_region();
        self.mem = Origin::Out(theta, (nh + nx) as u32);
        self.io = Origin::Out(theta, (nh + nx + 1) as u32);
        let values = (nh..nh + nx)
            .map(|k| Origin::Out(theta, k as u32))
            .collect();
        Ok(Exit::Edge(exit, values))
    }

    /// Converts a loop body; returns the repetition predicate, the header's next
    /// arguments and the exit's arguments.
    fn loop_body(
        &mut self,
        body: &Tree,
        header: Block,
        tail: Block,
        exit: Block,
    ) -> Result<(Origin, Vec<Origin>, Vec<Origin>), String> {
        let f = self.f;
        // the body's items up to the tail (which may or may not be listed as the
        // last item), then the tail's instructions and its brif
        let mut init: &[Tree] = body.items();
        if let Some((Tree::Block(b), rest)) = init.split_last()
            && *b == tail
        {
            init = rest;
        }
        let mut prev: Option<Exit> = None;
        for item in init {
            if let Some(p) = prev.take() {
                self.enter(p, item_head(item))?;
            }
            prev = Some(self.tree(item)?);
        }
        if let Some(p) = prev {
            self.enter(p, tail)?;
        }
        let term = self.instructions(tail)?;
        let InstructionData::Brif { arg, blocks, .. } = f.dfg.inst_data(term) else {
            return Err(format!("@{}: the tail {tail} does not end in brif", f.name));
        };
        let (repeat_edge, exit_edge) = if blocks[0].block == header && blocks[1].block == exit {
            (0, 1)
        } else if blocks[1].block == header && blocks[0].block == exit {
            (1, 0)
        } else {
            return Err(format!(
                "@{}: the tail {tail} does not branch to {header} and {exit}",
                f.name
            ));
        };
        let x = self.val(*arg)?;
        // alternative 1 repeats
        let taken_if_true = if repeat_edge == 0 { 1 } else { 0 };
        let m = self.g.add_simple(
            self.region,
            Op::Match {
                cases: vec![(1, taken_if_true)].into_boxed_slice(),
                default: 1 - taken_if_true,
                alts: 2,
            },
            &[x],
            &[Ty::Ctl(2)],
        );
        let next = self.vals_of(&blocks[repeat_edge].args)?;
        let out = self.vals_of(&blocks[exit_edge].args)?;
        Ok((Origin::Out(m, 0), next, out))
    }
}

/// The first block of a piece of structure.
fn item_head(t: &Tree) -> Block {
    match t {
        Tree::Block(b) => *b,
        Tree::Seq(items) => item_head(&items[0]),
        Tree::Branch { head, .. } => *head,
        Tree::Loop { header, .. } => *header,
    }
}

fn is_empty(t: &Tree) -> bool {
    matches!(t, Tree::Seq(items) if items.is_empty())
}
