//! Sequentialization of the PDG into the SSA IR (thesis §2.3 and §4.1, Ferrante's
//! sequentialization): a λ's body, and each θ's body as a unit of its own, is
//! flattened, proceduralized (`build_pdg`) and normalized, then emitted group by
//! group, each group's children in the order their data dependences allow (children
//! with more parents last: Ferrante's condition for duplication-freedom, §4.1, puts a
//! shared child after the others):
//! - a statement is its instruction, at the end of the current block;
//! - a predicate ends the block with the branch on its γ's predicate, and each arm's
//!   group is emitted into a block of its own. The arms' ends are the predicate's
//!   ends, where the γ's outputs are defined as the arms' exit values; only when
//!   something follows the predicate in its group do they meet in a join. So a γ that
//!   is the last thing of an arm of another γ has no join of its own: its arms jump
//!   straight to the outer join with their values (γ-coalescing, the tail registers
//!   of §3.4.2: the inner γ's arms write the outer γ's result);
//! - a θ is a loop: a header whose parameters are the loop variables, its body's
//!   unit, and a back edge from the block that tests the predicate; the exit block
//!   takes the last values (no stack is used);
//! - a group with several parents (a node demanded on exclusive paths) is emitted
//!   once, in a block of its own that each parent jumps to, when every parent's path
//!   goes on from its ends in the same way (tail sharing: the exclusive redundancy of
//!   Fig. 3.1 has one static copy of A). Whether they do is found while emitting: a
//!   shared group's end that two parents would continue differently, or where they
//!   would define a γ's output differently, or a value the group's block reads that
//!   one parent's path does not define, is a *conflict*; the λ is emitted again with
//!   that group copied under each parent (the PDG was not duplication-free there,
//!   §4.1), at most `MAX_RESTARTS` times before every such group is copied.
//!
//! Values are SSA values found by the emitter's own SSA construction (Braun et al.,
//! CC 2013): a node's result is defined in the block that computes it; reading it in
//! another block follows the single predecessors up, and a block where paths meet (a
//! join, or the block of a shared group) gets a block parameter, whose arguments
//! each predecessor's jump gives. Every jump to such a block is written last, once
//! every parameter is known, and a parameter whose arguments are all one value is
//! then replaced by it (Braun et al.'s trivial φs). A loop header's parameters are
//! its loop variables only: whatever else the body reads is defined before the loop.
//!
//! Control values are branches where a γ tests a `match` or a constant, and `i32`
//! alternative numbers where they cross a join, as in the structural destruction.

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};
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
    /// A value read on a path that does not compute it (a fault of the PDG).
    Undefined(String),
}

/// The sub-steps of the method, each switchable so that each is measured.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EmitOptions {
    /// γ-ordering for independent redundancy (§3.4.1; `gamma-ordering=`).
    pub gamma_ordering: bool,
    /// Tail registers (§3.4.2; `tail-registers=`): a γ last in an arm of another
    /// has no join of its own, and a group with several parents is emitted once
    /// where its parents go on alike. Off, every γ has its join and every such group
    /// is copied under each parent.
    pub tail_registers: bool,
    /// The normalization of conditional predicates (§3.2.3; `conditional-predicates=`):
    /// a γ that tests a value merged from several paths is tested on each path before
    /// the merge, straight to its arm where the value is a constant there.
    pub conditional_predicates: bool,
    /// Speculation of the small pure nodes whose independent redundancy γ-ordering
    /// cannot resolve (`speculate=`; [`BuildOptions::speculate`]); off, such a λ
    /// falls back to the structural destruction.
    pub speculate: bool,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions {
            gamma_ordering: true,
            tail_registers: true,
            conditional_predicates: true,
            speculate: true,
        }
    }
}

/// What the emission of one λ did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct EmitStats {
    /// Groups with several parents emitted once.
    pub shared: u32,
    /// Groups with several parents emitted once per parent (duplicated).
    pub copied: u32,
    /// Emissions started again after a conflict.
    pub restarts: u32,
    /// Nodes computed speculatively (independent redundancy that γ-ordering could
    /// not resolve).
    pub speculated: u32,
    /// Divisions at a unit's top level computed there, not in the γ arms that
    /// demand them (`Flat::early`).
    pub early: u32,
    /// Instructions emitted, and simple nodes in the λ: their ratio is the code
    /// growth that copies cause (and the branches and jumps the structure needs).
    pub insts: u32,
    pub nodes: u32,
}

/// Conflicts after which every group with several parents is copied.
const MAX_RESTARTS: u32 = 32;

/// The SSA IR function of λ `lambda`, by Lawrence's method.
pub fn sequentialize_lambda(
    g: &Rvsdg,
    lambda: Node,
    options: EmitOptions,
) -> Result<(Function, EmitStats), EmitError> {
    let mut plans = Plans {
        options,
        units: FxHashMap::default(),
    };
    let mut copies = FxHashSet::default();
    let mut restarts = 0;
    let mut sharing = options.tail_registers;
    loop {
        let share = sharing && restarts <= MAX_RESTARTS;
        match attempt(g, lambda, &mut plans, &copies, share) {
            Ok((func, mut stats)) => {
                stats.restarts = restarts;
                stats.insts = (func.layout.blocks())
                    .map(|b| func.layout.block_insts(b).count() as u32)
                    .sum();
                stats.nodes = simple_nodes(g, g.lambda_body(lambda));
                stats.speculated = plans.units.values().map(|p| p.speculated as u32).sum();
                stats.early = plans
                    .units
                    .values()
                    .map(|p| p.flat.early.len() as u32)
                    .sum();
                return Ok((func, stats));
            }
            // a read of a value on a path that does not compute it, with groups
            // shared: a conflict the checks did not name; again without sharing
            Err(Fail::Emit(EmitError::Undefined(_))) if share => {
                sharing = false;
                restarts += 1;
            }
            Err(Fail::Emit(e)) => return Err(e),
            Err(Fail::Conflict(key)) => {
                assert!(share, "a conflict without shared groups");
                copies.insert(key);
                restarts += 1;
            }
        }
    }
}

/// A group of a unit's PDG.
type GroupKey = (Region, PdgId);

/// Why an emission stopped.
enum Fail {
    Emit(EmitError),
    /// Shared group `0` cannot be shared.
    Conflict(GroupKey),
}

/// A unit proceduralized, normalized and ordered, kept over the attempts.
struct UnitPlan {
    flat: Flat,
    pdg: Pdg,
    /// Each PDG node's number of parents.
    parents: Vec<u32>,
    /// Each group's children in emission order.
    orders: FxHashMap<PdgId, Vec<PdgId>>,
    /// The groups with several parents that are tried shared (`tail_group`).
    tails: FxHashSet<PdgId>,
    /// Nodes computed speculatively.
    speculated: usize,
    /// (group, child): a tail copied under that group, because another tail of the
    /// group is the one shared there (the minimum cover of `cover.rs`, §4.2).
    copy_here: FxHashSet<(PdgId, PdgId)>,
}

struct Plans {
    options: EmitOptions,
    units: FxHashMap<Region, Rc<UnitPlan>>,
}

impl Plans {
    fn get(&mut self, g: &Rvsdg, unit: Region) -> Result<Rc<UnitPlan>, EmitError> {
        if let Some(plan) = self.units.get(&unit) {
            return Ok(plan.clone());
        }
        let flat = Flat::build(g, unit);
        let options = BuildOptions {
            gamma_ordering: self.options.gamma_ordering,
            speculate: self.options.speculate,
        };
        let proc = build_pdg(g, &flat, options).map_err(EmitError::Build)?;
        let (pdg, map) = proc.pdg.normalized();
        let parents = pdg.parent_counts();
        let mut tails = FxHashSet::default();
        for (v, &fragment) in proc.fragments[..flat.nodes.len()].iter().enumerate() {
            if let Some(id) = map[fragment as usize]
                && parents[id as usize] >= 2
                && tail_group(&flat, &pdg, id, &proc.conditions[v])
            {
                tails.insert(id);
            }
        }
        let copy_here = minimal_duplication(&pdg, &tails);
        let mut orders = FxHashMap::default();
        for id in 0..pdg.nodes.len() as PdgId {
            if let PdgNode::Group(_) = pdg.node(id) {
                let rank = |child: PdgId| {
                    if copy_here.contains(&(id, child)) {
                        1
                    } else {
                        parents[child as usize]
                    }
                };
                let order = pdg.sequence(&flat, id, &rank).map_err(EmitError::Order)?;
                orders.insert(id, order);
            }
        }
        let plan = Rc::new(UnitPlan {
            flat,
            pdg,
            parents,
            orders,
            tails,
            copy_here,
            speculated: proc.speculated,
        });
        self.units.insert(unit, plan.clone());
        Ok(plan)
    }
}

/// One emission of λ `lambda`, with the groups of `copies` copied under each parent
/// (all of them unless `share`).
fn attempt(
    g: &Rvsdg,
    lambda: Node,
    plans: &mut Plans,
    copies: &FxHashSet<GroupKey>,
    share: bool,
) -> Result<(Function, EmitStats), Fail> {
    let mut func = empty_function(g, lambda);
    let body = g.lambda_body(lambda);
    let entry = func.dfg.make_block();
    func.layout.append_block(entry);
    let conditional_predicates = plans.options.conditional_predicates;
    let mut em = Emitter {
        g,
        c: Cursor {
            g,
            func: &mut func,
            block: entry,
        },
        plans,
        copies,
        share,
        conditional_predicates,
        defs: FxHashMap::default(),
        preds: FxHashMap::default(),
        params: FxHashMap::default(),
        loop_entry: FxHashMap::default(),
        joins: Vec::new(),
        merges: FxHashSet::default(),
        shared: FxHashMap::default(),
        owner: FxHashMap::default(),
        claimed: FxHashSet::default(),
        copied: FxHashSet::default(),
        match_inputs: FxHashMap::default(),
        cold: Vec::new(),
        arm_stack: Vec::new(),
        entries: FxHashMap::default(),
        shared_contents: FxHashMap::default(),
        moves: FxHashSet::default(),
        exits_defined: FxHashSet::default(),
        undefs: FxHashSet::default(),
        fresh_params: Vec::new(),
    };
    for a in g.arg_origins(body) {
        if let Some(t) = g.ty(a).value() {
            let v = em.c.func.dfg.append_block_param(entry, t);
            em.defs.insert((entry, a), Val::Ir(v));
        }
    }
    let ends = em.unit(body, entry)?;
    if !ends.is_empty() {
        let end = em.continue_from(&ends)?;
        let mut rets = Vec::new();
        for &o in g.results(body) {
            if g.ty(o).value().is_some() {
                rets.push(em.value(o, end)?);
            }
        }
        em.c.block = end;
        em.c.terminate(InstructionData::Return {
            opcode: Opcode::Return,
            args: rets,
        });
        em.c.locate_last(lambda);
    }
    em.write_joins()?;
    let mut moved = FxHashSet::default();
    for b in std::mem::take(&mut em.cold) {
        if moved.insert(b) {
            em.c.func.layout.move_block_to_end(b);
        }
    }
    let stats = EmitStats {
        shared: em.shared.len() as u32,
        copied: em.copied.len() as u32,
        ..EmitStats::default()
    };
    remove_unreachable_blocks(&mut func);
    Ok((func, stats))
}

struct Emitter<'a, 'p> {
    g: &'a Rvsdg,
    c: Cursor<'a>,
    plans: &'p mut Plans,
    copies: &'p FxHashSet<GroupKey>,
    share: bool,
    conditional_predicates: bool,
    /// What each origin is in each block where it is known (defined there, or read
    /// there before: the memo of the SSA construction).
    defs: FxHashMap<(Block, Origin), Val>,
    preds: FxHashMap<Block, Vec<Block>>,
    /// The block parameters the SSA construction gave each join, by origin.
    params: FxHashMap<Block, Vec<Origin>>,
    /// Each loop header's block before the loop.
    loop_entry: FxHashMap<Block, Block>,
    /// The jumps to joins and to shared groups, written last: (from, to).
    joins: Vec<(Block, Block)>,
    /// The first blocks of shared groups, and the arms' heads of tests made at each
    /// end: their predecessors come as the emission reaches them, so a read there is
    /// always a parameter.
    merges: FxHashSet<Block>,
    /// Each shared group emitted: its first block and its ends.
    shared: FxHashMap<GroupKey, (Block, Vec<Block>)>,
    /// The ends of shared groups, by the innermost group.
    owner: FxHashMap<Block, GroupKey>,
    /// The ends that already jump on.
    claimed: FxHashSet<Block>,
    /// The groups with several parents emitted under each.
    copied: FxHashSet<GroupKey>,
    /// The origin each `match` node emitted reads: where its value crosses a join,
    /// the join takes that operand (a boolean, mostly) and matches it again, rather
    /// than an alternative number computed by `select`s on every path.
    match_inputs: FxHashMap<Node, Origin>,
    /// The blocks of arms where every path traps, moved to the end of the function.
    cold: Vec<Block>,
    /// The arms being emitted, outermost first: (γ, arm).
    arm_stack: Vec<(Node, u32)>,
    /// Each shared group's entries: the block that jumps to its first block, and
    /// the arms it is in.
    entries: FxHashMap<Block, Vec<(Block, Vec<(Node, u32)>)>>,
    /// The flat nodes each shared group computes, by its first block.
    shared_contents: FxHashMap<Block, FxHashSet<FlatId>>,
    /// The γ results defined at a shared group's end by moves before the group.
    moves: FxHashSet<(Block, Origin)>,
    /// The γ results defined at the ends of arms (not merely read there).
    exits_defined: FxHashSet<(Block, Origin)>,
    /// The undefined arguments of merges (ignored when a parameter is trivial).
    undefs: FxHashSet<Value>,
    /// The blocks given a parameter since `write_joins` last looked.
    fresh_params: Vec<Block>,
}

impl Emitter<'_, '_> {
    /// Emits unit `unit` (a λ's or θ's body, whose arguments are defined in `block`)
    /// from `block`; the blocks where it ends (none if every path traps).
    fn unit(&mut self, unit: Region, block: Block) -> Result<Vec<Block>, Fail> {
        let plan = self.plans.get(self.g, unit).map_err(Fail::Emit)?;
        self.group(&plan, unit, plan.pdg.root, block)
    }

    fn group(
        &mut self,
        plan: &UnitPlan,
        unit: Region,
        group: PdgId,
        block: Block,
    ) -> Result<Vec<Block>, Fail> {
        let mut ends = vec![block];
        let order = &plan.orders[&group];
        let mut i = 0;
        while i < order.len() {
            if ends.len() >= 2
                && self.conditional_predicates
                && let Some((gamma, arms, tested)) = conditional_test(self.g, plan, &order[i..])
                && let Some(split) =
                    self.test_at_each_end(plan, unit, gamma, arms, tested, &ends)?
            {
                ends = split;
                i += 1 + usize::from(tested.is_some());
                if ends.is_empty() {
                    break;
                }
                continue;
            }
            let child = order[i];
            i += 1;
            let at = self.continue_from(&ends)?;
            ends = match plan.pdg.node(child) {
                PdgNode::Group(_) => self.child_group(plan, unit, group, child, at)?,
                PdgNode::Statement(f) => self.statement(&plan.flat, *f, at)?.into_iter().collect(),
                PdgNode::Predicate { gamma, arms } => {
                    self.predicate(plan, unit, *gamma, arms, at)?
                }
            };
            if ends.is_empty() {
                break; // every path traps
            }
        }
        Ok(ends)
    }

    /// The block where what follows `ends` goes: the one end, or a join of them.
    /// The end of a shared group is never continued in place: its other parents may
    /// go on elsewhere. Each end jumps on once: a second time is a conflict.
    fn continue_from(&mut self, ends: &[Block]) -> Result<Block, Fail> {
        if let [one] = ends
            && !self.owner.contains_key(one)
        {
            return Ok(*one);
        }
        let join = self.c.func.dfg.make_block();
        self.c.func.layout.append_block(join);
        for &e in ends {
            self.claim(e)?;
            self.preds.entry(join).or_default().push(e);
            self.joins.push((e, join));
        }
        Ok(join)
    }

    /// Marks end `e` as going on; a second time is a conflict (the end of a shared
    /// group that two parents continue differently).
    fn claim(&mut self, e: Block) -> Result<(), Fail> {
        if self.claimed.insert(e) {
            Ok(())
        } else {
            Err(Fail::Conflict(self.owner[&e]))
        }
    }

    /// The conditional predicate normalization (§3.2.3): the test of γ `gamma`,
    /// whose predicate is a value that differs between `ends` (a γ's result: the
    /// `match` `tested` of it, or the control value itself), made at each end instead
    /// of after their join. An end where the value is a constant goes straight to the
    /// arm it selects (no test on that path); at the others the test is made there.
    /// So `if a && b {..}` tests `a` and `b`, never the boolean their merge computes.
    /// The arms are entered from several places (their first blocks merge the
    /// values). `None` (nothing emitted) when no end knows its arm.
    fn test_at_each_end(
        &mut self,
        plan: &UnitPlan,
        unit: Region,
        gamma: FlatId,
        arms: &[PdgId],
        tested: Option<FlatId>,
        ends: &[Block],
    ) -> Result<Option<Vec<Block>>, Fail> {
        let flat = &plan.flat;
        let source = match tested {
            Some(m) => flat.nodes[m as usize].operands[0].source,
            None => flat.nodes[gamma as usize].operands[0].source,
        };
        let origin = self.origin(flat, source);
        let mut vals = Vec::with_capacity(ends.len());
        for &e in ends {
            vals.push(self.read(origin, e)?);
        }
        if vals.iter().all(|v| *v == vals[0]) || ends.len() > MAX_SPLIT_ENDS {
            return Ok(None);
        }
        let matched = tested.map(|m| node_of(flat, m));
        // each end's arm when it is known, or the control value it tests
        let mut routes = Vec::with_capacity(ends.len());
        for &v in &vals {
            let route = match (matched, v) {
                (Some(m), Val::Ir(x)) => match self.constant(x) {
                    Some(c) => Ok(self.match_arm(m, c)),
                    None => Err(Val::Match(m, x)),
                },
                (Some(_), _) => return Ok(None),
                (None, Val::Const(alt)) => Ok(alt),
                (None, Val::Match(m, x)) => match self.constant(x) {
                    Some(c) => Ok(self.match_arm(m, c)),
                    None => Err(v),
                },
                (None, Val::Ir(x)) => match self.constant(x) {
                    Some(c) => Ok(c as u32),
                    None => Err(v),
                },
            };
            routes.push(route);
        }
        if routes.iter().all(Result::is_err) {
            return Ok(None);
        }
        let n = node_of(flat, gamma);
        let heads: Vec<Block> = arms.iter().map(|_| self.c.func.dfg.make_block()).collect();
        for &h in &heads {
            self.merges.insert(h);
            self.preds.insert(h, Vec::new());
        }
        for (&e, route) in ends.iter().zip(routes) {
            self.claim(e)?;
            match route {
                Ok(alt) => {
                    self.preds
                        .get_mut(&heads[alt as usize])
                        .expect("a head")
                        .push(e);
                    self.joins.push((e, heads[alt as usize]));
                }
                Err(pred) => {
                    // the test at this end, through a block per arm (the arms' first
                    // blocks take their values by jumps)
                    let mut targets = Vec::with_capacity(heads.len());
                    for &h in &heads {
                        let t = self.c.func.dfg.make_block();
                        self.c.func.layout.append_block(t);
                        self.preds.insert(t, vec![e]);
                        self.preds.get_mut(&h).expect("a head").push(t);
                        self.joins.push((t, h));
                        targets.push(BlockCall::from(t));
                    }
                    self.c.block = e;
                    self.c.branch(pred, &targets);
                    self.c.locate_last(n);
                }
            }
        }
        self.arms(plan, unit, gamma, arms, &heads).map(Some)
    }

    /// The constant `x` is, if an `iconst` defines it.
    fn constant(&self, x: Value) -> Option<u128> {
        let vliw_ir::ValueDef::Result(inst, _) = self.c.func.dfg.value_def(x) else {
            return None;
        };
        match self.c.func.dfg.inst_data(inst) {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => Some(*imm),
            _ => None,
        }
    }

    /// The alternative `match` node `m` gives for `c`.
    fn match_arm(&self, m: Node, c: u128) -> u32 {
        let Some(Op::Match { cases, default, .. }) = self.g.op(m) else {
            unreachable!("a match node")
        };
        (cases.iter())
            .find(|&&(k, _)| k == c)
            .map_or(*default, |&(_, a)| a)
    }

    /// Child group `child` of group `parent`, from block `at`.
    fn child_group(
        &mut self,
        plan: &UnitPlan,
        unit: Region,
        parent: PdgId,
        child: PdgId,
        at: Block,
    ) -> Result<Vec<Block>, Fail> {
        let key = (unit, child);
        if plan.parents[child as usize] < 2 {
            return self.group(plan, unit, child, at);
        }
        if !self.share
            || !plan.tails.contains(&child)
            || plan.copy_here.contains(&(parent, child))
            || self.copies.contains(&key)
        {
            self.copied.insert(key);
            return self.group(plan, unit, child, at);
        }
        if let Some((start, ends)) = self.shared.get(&key) {
            let (start, ends) = (*start, ends.clone());
            self.enter(at, start);
            return Ok(ends);
        }
        let start = self.c.func.dfg.make_block();
        self.c.func.layout.append_block(start);
        self.merges.insert(start);
        self.enter(at, start);
        let ends = self.group(plan, unit, child, start)?;
        for &e in &ends {
            self.owner.entry(e).or_insert(key);
        }
        let inside = plan.pdg.contents(child).into_iter().collect();
        self.shared_contents.insert(start, inside);
        self.shared.insert(key, (start, ends.clone()));
        Ok(ends)
    }

    /// Makes block `at` jump to `start`, the first block of a shared group.
    fn enter(&mut self, at: Block, start: Block) {
        self.preds.entry(start).or_default().push(at);
        self.joins.push((at, start));
        (self.entries.entry(start).or_default()).push((at, self.arm_stack.clone()));
    }

    /// The origin a flat operand reads.
    fn origin(&self, flat: &Flat, source: Source) -> Origin {
        match source {
            Source::Out(id, k) => Origin::Out(node_of(flat, id), k),
            Source::Arg(k) => Origin::Arg(flat.unit, k),
            Source::Effect(_) => unreachable!("an effect has no value"),
        }
    }

    /// Defines `out` at `end`; a different definition there is a conflict.
    fn define(&mut self, end: Block, out: Origin, v: Val) -> Result<(), Fail> {
        match self.defs.insert((end, out), v) {
            Some(old) if old != v => match self.owner.get(&end) {
                Some(&key) => Err(Fail::Conflict(key)),
                None => Err(Fail::Emit(EmitError::Undefined(format!(
                    "{out:?} defined twice in {end}"
                )))),
            },
            _ => Ok(()),
        }
    }

    fn statement(&mut self, flat: &Flat, f: FlatId, block: Block) -> Result<Option<Block>, Fail> {
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
                self.match_inputs.insert(n, inputs[0]);
                let x = self.value(inputs[0], block)?;
                self.defs
                    .insert((block, Origin::Out(n, 0)), Val::Match(n, x));
            }
            Op::Inst(_) | Op::SafeDiv(_) => {
                let nargs = op.num_value_args();
                let mut args = Vec::with_capacity(nargs);
                for &o in &inputs[..nargs] {
                    args.push(self.value(o, block)?);
                }
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

    /// The test of γ `gamma` from `block`; its ends, where the γ's outputs are
    /// defined.
    fn predicate(
        &mut self,
        plan: &UnitPlan,
        unit: Region,
        gamma: FlatId,
        arms: &[PdgId],
        block: Block,
    ) -> Result<Vec<Block>, Fail> {
        let flat = &plan.flat;
        let n = node_of(flat, gamma);
        let operands = &flat.nodes[gamma as usize].operands;
        let pred_origin = self.origin(flat, operands[0].source);
        // arms that do nothing and give the same results: no test at all
        let same_exits = |k: u32| {
            let mut exits: Vec<(u32, Source)> = (operands.iter())
                .filter_map(|o| match o.role {
                    Role::Exit { arm, exit } if arm == k => Some((exit, o.source)),
                    _ => None,
                })
                .collect();
            exits.sort_unstable_by_key(|&(e, _)| e);
            exits
        };
        if arms.iter().all(|a| plan.orders[a].is_empty())
            && (1..arms.len() as u32).all(|k| same_exits(k) == same_exits(0))
        {
            self.define_exits(flat, gamma, 0, block)?;
            return Ok(vec![block]);
        }
        let pred = self.read(pred_origin, block)?;
        if let Val::Const(alt) = pred {
            // a constant predicate: its arm inline
            self.arm_stack.push((n, alt));
            let ends = self.group(plan, unit, arms[alt as usize], block);
            self.arm_stack.pop();
            let ends = ends?;
            for &end in &ends {
                self.define_exits(flat, gamma, alt, end)?;
            }
            return Ok(ends);
        }
        let heads: Vec<Block> = arms.iter().map(|_| self.c.func.dfg.make_block()).collect();
        self.c.block = block;
        let targets: Vec<BlockCall> = heads.iter().map(|&b| BlockCall::from(b)).collect();
        self.c.branch(pred, &targets);
        self.c.locate_last(n);
        for &head in &heads {
            self.preds.insert(head, vec![block]);
        }
        self.arms(plan, unit, gamma, arms, &heads)
    }

    /// The arms of γ `gamma`'s test, each emitted from its head (whose predecessors
    /// are known); their ends, where the γ's outputs are defined.
    fn arms(
        &mut self,
        plan: &UnitPlan,
        unit: Region,
        gamma: FlatId,
        arms: &[PdgId],
        heads: &[Block],
    ) -> Result<Vec<Block>, Fail> {
        let flat = &plan.flat;
        let mut all: Vec<Block> = Vec::new();
        for (k, (&arm, &head)) in arms.iter().zip(heads).enumerate() {
            self.c.func.layout.append_block(head);
            self.arm_stack.push((node_of(flat, gamma), k as u32));
            let ends = self.group(plan, unit, arm, head);
            self.arm_stack.pop();
            let ends = ends?;
            if ends.is_empty() {
                // every path of the arm traps: its blocks go last, out of the way of
                // the paths that go on (a bounds check's panic must not sit between
                // the check and what follows it)
                let mut b = Some(head);
                while let Some(x) = b {
                    self.cold.push(x);
                    b = self.c.func.layout.next_block(x);
                }
            }
            for end in ends {
                self.define_exits(flat, gamma, k as u32, end)?;
                if !all.contains(&end) {
                    all.push(end);
                }
            }
        }
        if !self.share && !all.is_empty() {
            // no tail registers: the arms meet in a join of their own
            return Ok(vec![self.join(&all)]);
        }
        Ok(all)
    }

    /// The results of arm `k` of γ `gamma`, defined where it ends (`end`). At the end
    /// of a shared group, a result the group does not compute is the thesis's move
    /// `r = rn` before the shared tail (§3.4.2): it is defined where each of the arm's
    /// paths enters the group, and the group's first block merges it.
    fn define_exits(&mut self, flat: &Flat, gamma: FlatId, k: u32, end: Block) -> Result<(), Fail> {
        let n = node_of(flat, gamma);
        let start = (self.owner.get(&end))
            .and_then(|key| self.shared.get(key))
            .map(|&(start, _)| start);
        for o in &flat.nodes[gamma as usize].operands {
            let Role::Exit { arm, exit } = o.role else {
                continue;
            };
            let out = Origin::Out(n, exit);
            if arm != k || self.g.ty(out).is_state() {
                continue;
            }
            let source = self.origin(flat, o.source);
            // not computed by the group: a value from before it, or the result of a
            // γ inside the arm that is itself such a move
            let outside = start.filter(|s| {
                if self.exits_defined.contains(&(end, source)) {
                    self.moves.contains(&(end, source))
                } else {
                    Flat::producer(o.source).is_none_or(|p| !self.shared_contents[s].contains(&p))
                }
            });
            let v = match outside {
                None => self.read(source, end)?,
                Some(start) => {
                    let entries: Vec<Block> = (self.entries[&start].iter())
                        .filter(|(_, arms)| arms.contains(&(n, k)))
                        .map(|&(at, _)| at)
                        .collect();
                    for at in entries {
                        // a path into the group that does not have the value: the
                        // group cannot be shared there
                        let v = match self.read(source, at) {
                            Err(Fail::Emit(EmitError::Undefined(_))) => {
                                return Err(Fail::Conflict(self.owner[&end]));
                            }
                            v => v?,
                        };
                        self.define(at, out, v)?;
                    }
                    self.moves.insert((end, out));
                    self.read(out, end)?
                }
            };
            self.define(end, out, v)?;
            self.exits_defined.insert((end, out));
        }
        Ok(())
    }

    /// A join of `ends`, which are no shared group's.
    fn join(&mut self, ends: &[Block]) -> Block {
        let join = self.c.func.dfg.make_block();
        self.c.func.layout.append_block(join);
        for &e in ends {
            self.claimed.insert(e);
            self.preds.entry(join).or_default().push(e);
            self.joins.push((e, join));
        }
        join
    }

    /// θ `n`, whose inputs read `inputs`.
    fn theta(&mut self, n: Node, inputs: &[Origin], block: Block) -> Result<Option<Block>, Fail> {
        let g = self.g;
        let body = g.theta_body(n);
        let header = self.c.func.dfg.make_block();
        let results = g.results(body).to_vec();
        // loop variables carried around the loop as the header's parameters: not the
        // states, not the invariant ones (the body reads the input's value), and not
        // the ones the body never reads (as in the structural destruction)
        let mut carried = Vec::new();
        let mut init = Vec::new();
        for (k, a) in g.arg_origins(body).enumerate() {
            let Some(t) = ir_type(g.ty(a)) else { continue };
            if results[k + 1] == a {
                let v = self.read(inputs[k], block)?;
                self.defs.insert((header, a), v);
                continue;
            }
            if !g.has_users(a) {
                continue;
            }
            let p = self.c.func.dfg.append_block_param(header, t);
            self.defs.insert((header, a), Val::Ir(p));
            init.push(self.value(inputs[k], block)?);
            carried.push(k);
        }
        self.c.block = block;
        self.c.jump(BlockCall {
            block: header,
            args: init,
        });
        self.c.func.layout.append_block(header);
        self.loop_entry.insert(header, block);
        self.preds.insert(header, vec![block]);
        let ends = self.unit(body, header)?;
        if ends.is_empty() {
            return Ok(None); // the body always traps: no back edge
        }
        let latch = self.continue_from(&ends)?;
        let mut next = Vec::new();
        for &k in &carried {
            next.push(self.value(results[k + 1], latch)?);
        }
        // the last iteration's values: those read after the loop enter the exit as
        // its parameters
        let exit = self.c.func.dfg.make_block();
        let mut exit_args = Vec::new();
        for k in 0..g.num_outputs(n) {
            let o = Origin::Out(n, k as u32);
            if g.ty(o).is_state() || !g.has_users(o) {
                continue;
            }
            let val = match self.read(results[k + 1], latch)? {
                Val::Ir(v) => {
                    exit_args.push(v);
                    let ty = self.c.func.dfg.value_type(v);
                    Val::Ir(self.c.func.dfg.append_block_param(exit, ty))
                }
                val => val,
            };
            self.defs.insert((exit, o), val);
        }
        let pred = self.read(results[0], latch)?;
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
    fn value(&mut self, o: Origin, block: Block) -> Result<Value, Fail> {
        let val = self.read(o, block)?;
        self.c.block = block;
        Ok(self.c.value(val))
    }

    /// What `o` is at the end of `block` (Braun et al.'s readVariable, iteratively):
    /// up the single predecessors to a definition, or to a block where paths meet,
    /// which gets a parameter.
    fn read(&mut self, o: Origin, block: Block) -> Result<Val, Fail> {
        let mut path = Vec::new();
        let mut b = block;
        let v = loop {
            if let Some(&v) = self.defs.get(&(b, o)) {
                break v;
            }
            path.push(b);
            if let Some(&before) = self.loop_entry.get(&b) {
                b = before; // not a loop variable: defined before the loop
                continue;
            }
            let preds = self.preds.get(&b).map_or(&[][..], Vec::as_slice);
            if preds.len() >= 2 || self.merges.contains(&b) {
                if let Origin::Out(n, 0) = o
                    && let Some(&input) = self.match_inputs.get(&n)
                    && let Val::Ir(x) = self.read(input, b)?
                {
                    // a match's value: its operand crosses the join instead
                    break Val::Match(n, x);
                }
                let ty = ir_type(self.g.ty(o)).expect("a value or control origin");
                let p = self.c.func.dfg.append_block_param(b, ty);
                self.params.entry(b).or_default().push(o);
                self.fresh_params.push(b);
                break Val::Ir(p);
            }
            match preds {
                &[one] => b = one,
                _ => {
                    return Err(Fail::Emit(EmitError::Undefined(format!(
                        "{o:?} is read in {block}, where a path does not define it"
                    ))));
                }
            }
        };
        for b in path {
            self.defs.insert((b, o), v);
        }
        Ok(v)
    }

    /// Writes the jumps to the joins and shared groups, each with the arguments of
    /// its target's parameters (reading them may give other blocks new parameters:
    /// until none), without the parameters whose arguments are all one value.
    fn write_joins(&mut self) -> Result<(), Fail> {
        let mut args: FxHashMap<(Block, Block), Vec<Value>> = FxHashMap::default();
        let mut incoming: FxHashMap<Block, Vec<Block>> = FxHashMap::default();
        for &(from, to) in &self.joins {
            incoming.entry(to).or_default().push(from);
        }
        // a worklist of the blocks with parameters whose arguments are not all
        // written (reading an argument may give another block a parameter)
        let mut work: Vec<Block> = self.params.keys().copied().collect();
        let mut queued: FxHashSet<Block> = work.iter().copied().collect();
        self.fresh_params.clear();
        while let Some(to) = work.pop() {
            queued.remove(&to);
            let froms = incoming.get(&to).cloned().unwrap_or_default();
            for from in froms {
                loop {
                    let done = args.get(&(from, to)).map_or(0, Vec::len);
                    let Some(&o) = self.params.get(&to).and_then(|p| p.get(done)) else {
                        break;
                    };
                    let v = match self.value(o, from) {
                        Ok(v) => v,
                        // a value this path into a merge does not compute: nothing on
                        // this path reads it (a node runs only on paths that compute
                        // its operands; the merge's parameter serves the other
                        // paths), so the argument is undefined, as Braun et al.'s
                        // construction has it
                        Err(Fail::Emit(EmitError::Undefined(_))) if self.merges.contains(&to) => {
                            let ty = ir_type(self.g.ty(o)).expect("a value");
                            self.c.block = from;
                            let undef = self.c.inst(
                                InstructionData::Nullary {
                                    opcode: Opcode::Undef,
                                },
                                &[ty],
                            );
                            let v = self.c.func.dfg.first_result(undef);
                            self.undefs.insert(v);
                            v
                        }
                        Err(e) => return Err(e),
                    };
                    args.entry((from, to)).or_default().push(v);
                    for b in std::mem::take(&mut self.fresh_params) {
                        if queued.insert(b) {
                            work.push(b);
                        }
                    }
                }
            }
        }
        // the jumps with every argument first: whether a parameter that has undefined
        // arguments can be replaced by its one defined argument depends on dominance
        let mut jumps = Vec::with_capacity(self.joins.len());
        for &(from, to) in &self.joins.clone() {
            let all = args.get(&(from, to)).cloned().unwrap_or_default();
            self.c.block = from;
            self.c.jump(BlockCall {
                block: to,
                args: all,
            });
            let jump = self
                .c
                .func
                .layout
                .last_inst(from)
                .expect("the jump just written");
            jumps.push((jump, to));
        }
        let domtree = vliw_ir::DominatorTree::compute(&self.c.func);
        let subst = self.trivial_params(&args, &domtree);
        let resolve = |v: Value| resolve(&subst, v);
        for (jump, to) in jumps {
            let params = self.c.func.dfg.block_params(to).to_vec();
            if let InstructionData::Jump { dest, .. } = self.c.func.dfg.inst_data_mut(jump) {
                dest.args = (dest.args.iter().zip(&params))
                    .filter(|(_, p)| !subst.contains_key(p))
                    .map(|(&a, _)| resolve(a))
                    .collect();
            }
        }
        let blocks: Vec<Block> = self.params.keys().copied().collect();
        for b in blocks {
            for i in (0..self.c.func.dfg.block_params(b).len()).rev() {
                if subst.contains_key(&self.c.func.dfg.block_params(b)[i]) {
                    self.c.func.dfg.remove_block_param(b, i);
                }
            }
        }
        if !subst.is_empty() {
            let blocks: Vec<Block> = self.c.func.layout.blocks().collect();
            for b in blocks {
                let insts: Vec<_> = self.c.func.layout.block_insts(b).collect();
                for inst in insts {
                    self.c.func.dfg.map_inst_values(inst, resolve);
                }
            }
        }
        Ok(())
    }

    /// The parameters of joins and shared groups whose arguments are all one value
    /// (or the parameter itself), each with that value; jumps from unreachable blocks
    /// do not count. An undefined argument (a path
    /// that does not compute the value) counts as any value only where the one value
    /// is defined in a block that dominates the parameter's: else that path would
    /// reach a read of a value it never defined (found compiling `proc_macro`, whose
    /// shared tail block was entered from a path before the value's definition).
    fn trivial_params(
        &self,
        args: &FxHashMap<(Block, Block), Vec<Value>>,
        domtree: &vliw_ir::DominatorTree,
    ) -> FxHashMap<Value, Value> {
        let mut incoming: FxHashMap<Block, Vec<Block>> = FxHashMap::default();
        for &(from, to) in &self.joins {
            incoming.entry(to).or_default().push(from);
        }
        let mut subst: FxHashMap<Value, Value> = FxHashMap::default();
        let mut changed = true;
        while changed {
            changed = false;
            for (&to, origins) in &self.params {
                let params = self.c.func.dfg.block_params(to);
                for i in 0..origins.len() {
                    let p = params[i];
                    if subst.contains_key(&p) {
                        continue;
                    }
                    let mut only = None;
                    let mut trivial = true;
                    let mut undefined = false;
                    for from in incoming.get(&to).map_or(&[][..], Vec::as_slice) {
                        if !domtree.is_reachable(*from) {
                            continue; // removed with the unreachable blocks
                        }
                        let a = resolve(&subst, args[&(*from, to)][i]);
                        if a == p {
                            continue;
                        }
                        if self.undefs.contains(&a) {
                            undefined = true;
                            continue;
                        }
                        match only {
                            None => only = Some(a),
                            Some(x) if x == a => {}
                            Some(_) => {
                                trivial = false;
                                break;
                            }
                        }
                    }
                    if let (true, Some(v)) = (trivial, only) {
                        if undefined && !self.defined_above(v, to, domtree) {
                            continue;
                        }
                        subst.insert(p, v);
                        changed = true;
                    }
                }
            }
        }
        subst
    }

    /// Whether `v` is defined in a block that strictly dominates `block` (so that it
    /// can stand for a parameter of `block` on every path).
    fn defined_above(&self, v: Value, block: Block, domtree: &vliw_ir::DominatorTree) -> bool {
        let dfg = &self.c.func.dfg;
        let def = match dfg.value_def(v) {
            vliw_ir::ValueDef::Param(b, _) => Some(b),
            vliw_ir::ValueDef::Result(inst, _) => self.c.func.layout.inst_block(inst),
            _ => None,
        };
        def.is_some_and(|d| domtree.strictly_dominates(d, block))
    }
}

/// Which tails each group copies (§4.2): where a group has several tails, only one
/// can run last and be shared; the sharing graph's cover (`cover.rs`: minimum by
/// König for two-value γ-trees, else the greedy heuristic; weights the tails' sizes)
/// names those kept shared, and each group shares its heaviest covered tail and
/// copies the others.
fn minimal_duplication(pdg: &Pdg, tails: &FxHashSet<PdgId>) -> FxHashSet<(PdgId, PdgId)> {
    let mut copy_here = FxHashSet::default();
    let mut index: FxHashMap<PdgId, u32> = FxHashMap::default();
    let mut graph = super::cover::SharingGraph::default();
    let mut groups = Vec::new();
    for id in 0..pdg.nodes.len() as PdgId {
        let mine: Vec<PdgId> = (pdg.successors(id).iter().copied())
            .filter(|c| tails.contains(c))
            .collect();
        if mine.len() < 2 || !matches!(pdg.node(id), PdgNode::Group(_)) {
            continue;
        }
        for &t in &mine {
            index.entry(t).or_insert_with(|| {
                let size = pdg.contents(t).len().min(16) as u32;
                graph.weights.push(size.max(1));
                graph.weights.len() as u32 - 1
            });
        }
        for (i, &a) in mine.iter().enumerate() {
            for &b in &mine[i + 1..] {
                graph.edges.push((index[&a], index[&b]));
            }
        }
        groups.push((id, mine));
    }
    if groups.is_empty() {
        return copy_here;
    }
    let cover = graph.cover();
    for (id, mine) in groups {
        let shared = (mine.iter().copied())
            .filter(|t| cover[index[t] as usize])
            .max_by_key(|t| (graph.weights[index[t] as usize], std::cmp::Reverse(*t)));
        for t in mine {
            if Some(t) != shared {
                copy_here.insert((id, t));
            }
        }
    }
    copy_here
}

/// Whether the group `id` of flat node `v`'s PDG, with several parents, is worth
/// trying to emit once (the conflicts found while emitting decide whether it can
/// be): `v` is demanded as a tail (§3.4.2) in every place (its condition's labels
/// agree, and each value result it gives there is a γ's result, so that every parent
/// goes on to the same join with it), and the group computes more than constants
/// (a constant is cheaper to copy than to reach by a jump).
fn tail_group(flat: &Flat, pdg: &Pdg, id: PdgId, condition: &super::dests::Gc) -> bool {
    let labels = condition.labels();
    let Some(first) = labels.first() else {
        return false;
    };
    let tails = labels.iter().all(|l| l == first)
        && (first.outputs.iter()).all(|(_, d)| matches!(d, super::dests::Dest::Tail(..)));
    tails
        && pdg.contents(id).iter().any(|&f| {
            let node = &flat.nodes[f as usize];
            !matches!(node.kind, FlatKind::Simple(_)) || !node.operands.is_empty()
        })
}

/// What `v` stands for once the trivial parameters in `subst` are replaced.
fn resolve(subst: &FxHashMap<Value, Value>, mut v: Value) -> Value {
    while let Some(&w) = subst.get(&v) {
        v = w;
    }
    v
}

/// The simple nodes of region `r` and of the regions inside it.
pub(crate) fn simple_nodes(g: &Rvsdg, r: Region) -> u32 {
    let mut count = 0;
    let mut todo = vec![r];
    while let Some(r) = todo.pop() {
        for &n in g.nodes(r) {
            let subregions = g.node(n).kind.subregions();
            if subregions.is_empty() {
                count += 1;
            }
            todo.extend_from_slice(subregions);
        }
    }
    count
}

/// The ends beyond which a test is not copied to each (a join and one test instead).
const MAX_SPLIT_ENDS: usize = 8;

/// Whether `rest` (the children of a group from here) starts with the test of a γ:
/// the γ, its arm groups, and the `match` node whose value it tests when that comes
/// just before it and nothing else reads it (both are then emitted by
/// `test_at_each_end`).
fn conditional_test<'p>(
    g: &Rvsdg,
    plan: &'p UnitPlan,
    rest: &[PdgId],
) -> Option<(FlatId, &'p [PdgId], Option<FlatId>)> {
    let flat = &plan.flat;
    match plan.pdg.node(rest[0]) {
        PdgNode::Predicate { gamma, arms } => Some((*gamma, arms, None)),
        PdgNode::Statement(m) => {
            let n = node_of(flat, *m);
            if !matches!(g.op(n), Some(Op::Match { .. })) || g.users(Origin::Out(n, 0)).len() != 1 {
                return None;
            }
            let PdgNode::Predicate { gamma, arms } = plan.pdg.node(*rest.get(1)?) else {
                return None;
            };
            let reads = flat.nodes[*gamma as usize].operands[0].source;
            (reads == Source::Out(*m, 0)).then_some((*gamma, arms, Some(*m)))
        }
        PdgNode::Group(_) => None,
    }
}

/// The RVSDG node a flat node stands for.
fn node_of(flat: &Flat, id: FlatId) -> Node {
    match flat.nodes[id as usize].kind {
        FlatKind::Simple(n) | FlatKind::Theta(n) | FlatKind::Gamma { node: n, .. } => n,
    }
}

#[cfg(test)]
mod tests;
