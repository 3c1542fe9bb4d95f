//! Turning a region into one predicated block (de Ferrière's construction, 003 §2 and
//! Figs. 1–2; block predicates after Gindraud et al.'s ~-classes, 000 §3.2; predicate
//! promotion, 003 §3.1).
//!
//! Predicates are first described symbolically ([`Sym`]), then only those something
//! needs are made, block by block in the region's topological order, each block's
//! operations appended to the entry `E`:
//!
//! - **Block predicates.** `E` runs always (`p0`). A block equivalent to its immediate
//!   dominator (it also post-dominates it: the same traces, 000 Prop. 4) shares that
//!   block's predicate; a block with one predecessor takes its incoming edge's; any
//!   other is the OR of its incoming edges' (`por`/`porn`). A predicate is a guard, so
//!   it may be negated: the `else` side of a branch costs nothing.
//! - **Edge predicates.** An edge of a jump has its block's predicate. The two edges of
//!   `(c) br T; br U` in a block of predicate `P` are `P ∧ c` and `P ∧ ¬c`; under
//!   `P = p0` they are `c` and `¬c` themselves (the *raw* condition). When both are
//!   needed and `c` is written by a normal compare of the block that nothing else
//!   reads, the compare becomes `(P) cmp.unc` writing both (IA-64's nested
//!   conditions); a second `.unc` copy of the compare when the raw condition is needed
//!   too; `pand`/`pandn` when only one is needed or `c` comes from elsewhere.
//! - **Operations.** Under a block predicate `P ≠ p0`, an operation that cannot fault
//!   or write memory and is cheap (values, compares, predicate logic, `sel`, copies;
//!   not divisions) runs unguarded (speculated: its result is only read under `P`);
//!   everything else takes `P` as its guard, or `P ∧ g` if it had a guard `g` already
//!   (a conditional trap).
//! - **ψ.** A block parameter, of a join inside the region or of `X`, becomes a ψ of
//!   the arguments of its incoming edges, each under its edge's predicate. The guards of
//!   one join's edges are disjoint, so any order gives the same value (003 §4.6); the
//!   arguments are put in the reverse topological order of the edges' sources (the
//!   most deeply nested first), then each guard is **promoted** (003 §3.1, condition 2:
//!   a guard may grow into the union of its own and the guards to its right) to the
//!   cheapest predicate that qualifies: true, or the raw condition of the branch that
//!   decides its edge, which a compare computes without waiting for the enclosing
//!   predicates. Whether a promotion qualifies is asked of the region's Predicate
//!   Partition Graph ([`RegionPpg`]): is the join's predicate covered by the candidate
//!   and the guards to the right? (`ppg=off`: only the first argument, which needs no
//!   proof.) Condition 1 (the argument is defined wherever its new guard
//!   holds) is not needed by the `sel` chains that ψs become: where a promoted guard
//!   holds beyond the original one, an argument further right overrides the value.
//!   `promotion=off` keeps the guards exact, in the order of the definitions.
//!
//! When every predecessor of `X` is in the region, `X` is appended too: its parameters
//! are defined by the ψs, and its exit ends the block. Otherwise the block ends in
//! `br X(ψs)`.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use vliw_isa::semantics::{self as sem, OpClass};
use vliw_isa::{CmpType, Opcode};
use vliw_ssa::{DomTree, PostDomTree};

use super::IfConvertStats;
use super::ppg::RegionPpg;
use super::region::{Exit, Region, speculable};
use crate::mir::{Imm, InstId, MBlock, MGuard, MInst, MOp, MachFunction, Reg, RegClass};
use crate::ssa_view::{block, mblock};

/// A predicate of the region, before it is made.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
enum Sym {
    True,
    /// The condition of block `b`'s branch (`true`: towards its taken target), as its
    /// compare computes it, whatever the block's predicate.
    Raw(MBlock, bool),
    /// The OR of a join's incoming edges.
    Join(MBlock),
    /// `P ∧ c` or `P ∧ ¬c` of the branch of a block of predicate `P ≠ p0`.
    Edge(MBlock, MBlock),
}

/// The conversion of one region.
struct Converter<'a> {
    mf: &'a mut MachFunction,
    region: &'a Region,
    uses: &'a HashMap<Reg, u32>,
    preds: HashMap<MBlock, Vec<MBlock>>,
    /// Each block's predicate.
    block_sym: HashMap<MBlock, Sym>,
    /// The predicates made so far.
    made: HashMap<Sym, MGuard>,
    /// The source of each unguarded copy of a virtual register (a ψ of two copies of
    /// one value is that value).
    copy_of: &'a HashMap<Reg, Reg>,
    /// The predicates something reads.
    needed: HashSet<Sym>,
    /// The merged block's new order.
    order: Vec<InstId>,
    stats: &'a mut IfConvertStats,
}

impl Converter<'_> {
    fn exit(&self, b: MBlock) -> Exit {
        self.region.exits[&b]
    }

    /// The predicate of edge `from → to`.
    fn edge_sym(&self, from: MBlock, to: MBlock) -> Sym {
        match self.exit(from) {
            Exit::Jump { .. } => self.block_sym[&from],
            Exit::Branch { taken, .. } if self.block_sym[&from] == Sym::True => {
                Sym::Raw(from, to == taken)
            }
            Exit::Branch { .. } => Sym::Edge(from, to),
        }
    }

    /// The raw condition that decides edge `from → to`, if one does: the branch's own,
    /// or, through a block with a single way in, the one that decides that.
    fn raw_of(&self, mut from: MBlock, mut to: MBlock) -> Option<Sym> {
        loop {
            match self.exit(from) {
                Exit::Branch { taken, .. } => return Some(Sym::Raw(from, to == taken)),
                Exit::Jump { .. } => {
                    let p = self.preds.get(&from)?;
                    if from == self.region.entry() || p.len() != 1 {
                        return None;
                    }
                    (to, from) = (from, p[0]);
                }
            }
        }
    }

    /// Marks `s` and what making it reads as needed.
    fn need(&mut self, s: Sym) {
        let mut work = vec![s];
        while let Some(s) = work.pop() {
            if !self.needed.insert(s) {
                continue;
            }
            match s {
                Sym::True | Sym::Raw(..) => {}
                Sym::Join(b) => {
                    for &p in &self.preds[&b] {
                        work.push(self.edge_sym(p, b));
                    }
                }
                Sym::Edge(b, _) => work.push(self.block_sym[&b]),
            }
        }
    }

    /// `r`, or what it is an unguarded copy of (through chains of copies).
    fn original(&self, mut r: Reg) -> Reg {
        for _ in 0..16 {
            match self.copy_of.get(&r) {
                Some(&s) => r = s,
                None => break,
            }
        }
        r
    }

    fn emit(&mut self, inst: MInst) {
        let id = self.mf.make_inst(inst);
        self.order.push(id);
    }

    fn new_pred(&mut self) -> Reg {
        self.stats.predicates += 1;
        self.mf.new_vreg(RegClass::Pred).into()
    }

    /// A predicate holding `a ∧ b` (as a guard).
    fn and(&mut self, a: MGuard, b: MGuard) -> MGuard {
        if a.is_always() {
            return b;
        }
        if b.is_always() {
            return a;
        }
        let d = self.new_pred();
        self.stats.logic_ops += 1;
        let (op, x, y, negated) = match (a.negated, b.negated) {
            (false, false) => (Opcode::Pand, a.pred, b.pred, false),
            (false, true) => (Opcode::Pandn, a.pred, b.pred, false),
            (true, false) => (Opcode::Pandn, b.pred, a.pred, false),
            // ¬a ∧ ¬b = ¬(a ∨ b)
            (true, true) => (Opcode::Por, a.pred, b.pred, true),
        };
        self.emit(MInst::op(op, &[d], &[x, y], Imm::None));
        MGuard::new(d, negated)
    }

    /// A predicate holding `a ∨ b` (as a guard).
    fn or(&mut self, a: MGuard, b: MGuard) -> MGuard {
        if a.is_always() || b.is_always() {
            return MGuard::ALWAYS;
        }
        let d = self.new_pred();
        self.stats.logic_ops += 1;
        let (op, x, y, negated) = match (a.negated, b.negated) {
            (false, false) => (Opcode::Por, a.pred, b.pred, false),
            (false, true) => (Opcode::Porn, a.pred, b.pred, false),
            (true, false) => (Opcode::Porn, b.pred, a.pred, false),
            // ¬a ∨ ¬b = ¬(a ∧ b)
            (true, true) => (Opcode::Pand, a.pred, b.pred, true),
        };
        self.emit(MInst::op(op, &[d], &[x, y], Imm::None));
        MGuard::new(d, negated)
    }

    /// The guard of a predicate already made (or made here, for the trivial ones).
    fn guard(&self, s: Sym) -> MGuard {
        match s {
            Sym::True => MGuard::ALWAYS,
            Sym::Raw(b, towards_taken) => {
                let Exit::Branch { cond, .. } = self.exit(b) else {
                    return MGuard::ALWAYS;
                };
                MGuard::new(cond.pred, cond.negated == towards_taken)
            }
            _ => self.made[&s],
        }
    }

    /// The predicate of join `b`: the OR of its incoming edges'.
    fn make_join(&mut self, b: MBlock) {
        let incoming: Vec<Sym> = self.preds[&b]
            .iter()
            .map(|&p| self.edge_sym(p, b))
            .collect();
        let mut acc = self.guard(incoming[0]);
        for &s in &incoming[1..] {
            let g = self.guard(s);
            acc = self.or(acc, g);
        }
        self.made.insert(Sym::Join(b), acc);
    }

    /// The ψs of block `target`'s parameters (defining `defs`: the parameters
    /// themselves, or new registers), from the arguments its predecessors pass.
    fn psis(&mut self, ops_of: &[Vec<PsiOp>], defs: &[Reg]) {
        for (i, &d) in defs.iter().enumerate() {
            for op in &ops_of[i] {
                let mut psi = MInst::new(MOp::Psi);
                psi.defs = vec![op.def.unwrap_or(d)];
                for (arg, s) in &op.args {
                    psi.uses.push(*arg);
                    psi.psi_guards.push(self.guard(*s));
                }
                self.stats.psis += 1;
                self.emit(psi);
            }
        }
    }

    /// The body of block `b` under its predicate, and the edge predicates its branch
    /// must make.
    fn block_body(&mut self, b: MBlock) {
        let exit = self.exit(b);
        // the block's predicate, when something needs it (operations that cannot be
        // speculated, or the predicates of its edges)
        let sym = self.block_sym[&b];
        let pred = if matches!(sym, Sym::True | Sym::Raw(..)) || self.needed.contains(&sym) {
            self.guard(sym)
        } else {
            MGuard::ALWAYS
        };
        let body: Vec<InstId> = self.region.body(self.mf, b).to_vec();
        let body = &body[..];
        for &id in body {
            let inst = self.mf.inst(id).clone();
            if sym == Sym::True {
            } else if speculable(&inst, self.region.speculate_loads) {
                self.stats.speculated += 1;
                if let Some(lds) = inst.opcode().and_then(|o| o.speculative_load()) {
                    self.mf.inst_mut(id).op = MOp::Op(lds);
                    self.stats.speculated_loads += 1;
                }
            } else {
                let g = self.and(pred, inst.guard);
                self.mf.inst_mut(id).guard = g;
                self.stats.guarded += 1;
            }
            self.order.push(id);
        }
        // a side exit leaves here when its guard holds under the block's predicate
        // (what follows in the block runs only when it did not)
        if let Some(&(side, cold)) = self.region.side_exits.get(&b) {
            let g = self.and(pred, side);
            let br = MInst::op(Opcode::Br, &[], &[], Imm::Block(cold)).with_guard(g);
            self.emit(br);
            self.stats.side_exits += 1;
        }
        let Exit::Branch { cond, taken, other } = exit else {
            return;
        };
        let (t, o) = (Sym::Edge(b, taken), Sym::Edge(b, other));
        let (need_t, need_o) = (self.needed.contains(&t), self.needed.contains(&o));
        if pred.is_always() || !(need_t || need_o) {
            return;
        }
        let raw_needed =
            self.needed.contains(&Sym::Raw(b, true)) || self.needed.contains(&Sym::Raw(b, false));
        let compare = body.iter().copied().find(|&i| {
            let c = self.mf.inst(i);
            c.defs.first() == Some(&cond.pred)
                && matches!(c.op, MOp::Op(o) if sem::class(o) == OpClass::Compare)
                && c.ctype == CmpType::Normal
                && c.guard.is_always()
        });
        match compare {
            Some(id) if need_t && need_o => {
                // (P) cmp.unc: P ∧ c and P ∧ ¬c at once
                let reuse = !raw_needed
                    && self.uses.get(&cond.pred) == Some(&1)
                    && self.mf.inst(id).defs.get(1) == Some(&Reg::P0);
                let first = if reuse { cond.pred } else { self.new_pred() };
                let second = self.new_pred();
                let mut unc = self.mf.inst(id).clone();
                unc.guard = pred;
                unc.ctype = CmpType::Unc;
                unc.defs = vec![first, second];
                if reuse {
                    *self.mf.inst_mut(id) = unc;
                } else {
                    self.emit(unc);
                }
                self.stats.unc_compares += 1;
                let (pos, neg) = (MGuard::new(first, false), MGuard::new(second, false));
                let (gt, go) = if cond.negated { (neg, pos) } else { (pos, neg) };
                self.made.insert(t, gt);
                self.made.insert(o, go);
            }
            _ => {
                let not = MGuard::new(cond.pred, !cond.negated);
                if need_t {
                    let g = self.and(pred, cond);
                    self.made.insert(t, g);
                }
                if need_o {
                    let g = self.and(pred, not);
                    self.made.insert(o, g);
                }
            }
        }
    }
}

/// One ψ to make at a join: its definition (`None`: the join's parameter) and its
/// arguments with their guards.
struct PsiOp {
    def: Option<Reg>,
    args: Vec<(Reg, Sym)>,
}

/// The ψs of parameter `i` of `join` as a decision tree (module documentation): one
/// two-argument ψ per branch between the join's immediate dominator `d` and the join
/// where the two sides bring different values, from the last branch up to `d`, whose
/// ψ defines the parameter. `None` when `d` is not in the region.
fn decision_tree(
    c: &mut Converter,
    join: MBlock,
    i: usize,
    dom: &DomTree,
    rank: &HashMap<MBlock, usize>,
    promotion: Promotion,
) -> Option<Vec<PsiOp>> {
    let d = mblock(dom.idom(block(join))?);
    rank.get(&d)?;
    // the blocks on the paths from d to the join
    let mut reaches: HashSet<MBlock> = HashSet::default();
    let mut work: Vec<MBlock> = c.preds[&join].clone();
    while let Some(b) = work.pop() {
        if reaches.insert(b) {
            work.extend(c.preds.get(&b).into_iter().flatten().copied());
        }
    }
    let mut between: Vec<MBlock> = reaches
        .into_iter()
        .filter(|&b| dom.dominates(block(d), block(b)))
        .collect();
    between.sort_by_key(|b| core::cmp::Reverse(rank[b]));
    let class = c.mf.vregs[c.mf.blocks[join].params[i]];
    let mut value: HashMap<MBlock, Reg> = HashMap::default();
    let mut ops: Vec<PsiOp> = Vec::new();
    for &b in &between {
        let on_edge = |c: &Converter, t: MBlock| -> Option<Reg> {
            if t == join {
                let jump = c.mf.inst(*c.mf.block_inst_ids(b).last()?);
                jump.args.get(i).copied()
            } else {
                value.get(&t).copied()
            }
        };
        let v = match c.exit(b) {
            Exit::Jump { target } => on_edge(c, target).map(|r| c.original(r)),
            Exit::Branch { taken, other, .. } => match (
                on_edge(c, taken).map(|r| c.original(r)),
                on_edge(c, other).map(|r| c.original(r)),
            ) {
                (Some(t), Some(o)) if t != o => {
                    let (gt, go) = if promotion == Promotion::Off {
                        (c.edge_sym(b, taken), c.edge_sym(b, other))
                    } else {
                        (Sym::Raw(b, true), Sym::True)
                    };
                    let def: Reg = c.mf.new_vreg(class).into();
                    ops.push(PsiOp {
                        def: Some(def),
                        args: vec![(o, go), (t, gt)],
                    });
                    Some(def)
                }
                (Some(t), _) => Some(t),
                (None, o) => o,
            },
        };
        if let Some(v) = v {
            value.insert(b, v);
        }
    }
    let root = *value.get(&d)?;
    match ops.last_mut() {
        // the last ψ made is d's own: it defines the parameter
        Some(last) if last.def == Some(root) => last.def = None,
        _ => ops.push(PsiOp {
            def: None,
            args: vec![(root, Sym::True)],
        }),
    }
    Some(ops)
}

/// One ψ argument while its guard is chosen.
struct Arg {
    value: Reg,
    /// The edge's own predicate.
    exact: Sym,
    source: MBlock,
    /// Where its value is defined (for the order without promotion).
    defined_at: i64,
    raw: Option<Sym>,
}

/// How guards are promoted.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Promotion {
    /// Guards exact, in the order of the definitions (`promotion=off`).
    Off,
    /// Only the first argument's guard to true: the edges into a join are its only
    /// ways in, so that needs no proof (`ppg=off`).
    First,
    /// Every guard to the cheapest qualifying predicate, asked of the region's PPG.
    Ppg,
}

/// The guards of a ψ's arguments at `join` (module documentation).
fn choose_guards(
    c: &Converter,
    mut args: Vec<Arg>,
    join: MBlock,
    rank: &HashMap<MBlock, usize>,
    ppg: Option<&RegionPpg>,
    promotion: Promotion,
) -> Vec<(Reg, Sym)> {
    if promotion == Promotion::Off {
        args.sort_by_key(|a| (a.defined_at, rank[&a.source]));
        return args.into_iter().map(|a| (a.value, a.exact)).collect();
    }
    args.sort_by_key(|a| core::cmp::Reverse(rank[&a.source]));
    let ppg = ppg.filter(|_| promotion == Promotion::Ppg);
    let edge = |a: &Arg| ppg.and_then(|g| g.edge(a.source, join));
    let universe = ppg.and_then(|g| g.block(join));
    let mut out = Vec::with_capacity(args.len());
    for (k, a) in args.iter().enumerate() {
        // the predicates of the arguments to the right, if the graph knows them all
        let right: Option<Vec<_>> = args[k + 1..].iter().map(edge).collect();
        let covered = |extra: Option<_>| match (ppg, universe, &right, extra) {
            (Some(g), Some(u), Some(r), Some(x)) => {
                let mut qs = r.clone();
                qs.push(x);
                g.covers(u, &qs)
            }
            _ => false,
        };
        let guard = if k == 0 || covered(edge(a)) {
            Sym::True
        } else if let Some(Sym::Raw(b, dir)) = a.raw
            && c.block_sym[&b] != Sym::True
            && covered(ppg.and_then(|g| g.block(b)))
        {
            // paths that do not pass b are overridden by arguments to the right
            Sym::Raw(b, dir)
        } else {
            a.exact
        };
        out.push((a.value, guard));
    }
    out
}

/// Converts `region` (checked by `find_region`, accepted by the cost model) into one
/// block at its entry; returns whether its exit block was merged too.
#[allow(clippy::too_many_arguments)]
pub fn convert(
    mf: &mut MachFunction,
    region: &Region,
    dom: &DomTree,
    pdom: &PostDomTree,
    preds: &HashMap<MBlock, Vec<MBlock>>,
    uses: &HashMap<Reg, u32>,
    copy_of: &HashMap<Reg, Reg>,
    promotion: Promotion,
    tree: bool,
    stats: &mut IfConvertStats,
) -> bool {
    let e = region.entry();
    let x = region.exit;
    let rank: HashMap<MBlock, usize> = region
        .blocks
        .iter()
        .enumerate()
        .map(|(i, &b)| (b, i))
        .collect();
    // predecessors inside the region, in topological order
    let mut region_preds: HashMap<MBlock, Vec<MBlock>> = HashMap::default();
    for &b in region.blocks.iter().chain([&x]) {
        let mut p: Vec<MBlock> = preds[&b]
            .iter()
            .copied()
            .filter(|p| rank.contains_key(p))
            .collect();
        p.sort_by_key(|p| rank[p]);
        p.dedup();
        region_preds.insert(b, p);
    }
    let mut def_block: HashMap<Reg, MBlock> = HashMap::default();
    for &b in &region.blocks {
        for &p in &mf.blocks[b].params {
            def_block.insert(Reg::from(p), b);
        }
        for inst in mf.block_insts(b) {
            for &d in &inst.defs {
                def_block.insert(d, b);
            }
        }
    }
    let mut c = Converter {
        mf,
        region,
        uses,
        copy_of,
        preds: region_preds,
        block_sym: HashMap::default(),
        made: HashMap::default(),
        needed: HashSet::default(),
        order: Vec::new(),
        stats,
    };

    // 1. the block predicates, symbolically
    for &b in &region.blocks {
        let s = if b == e {
            Sym::True
        } else if let Some(d) = dom.idom(block(b)).map(mblock)
            && pdom.post_dominates(block(b), block(d))
            && let Some(&s) = c.block_sym.get(&d)
        {
            s
        } else if c.preds[&b].len() == 1 {
            c.edge_sym(c.preds[&b][0], b)
        } else {
            Sym::Join(b)
        };
        c.block_sym.insert(b, s);
    }

    // 2. the ψ arguments and their guards
    let ppg = (promotion == Promotion::Ppg && !tree)
        .then(|| RegionPpg::build(region))
        .flatten();
    let merge = preds[&x].iter().all(|p| rank.contains_key(p)) && c.mf.layout.first() != Some(&x);
    let mut psi_args: HashMap<MBlock, Vec<Vec<PsiOp>>> = HashMap::default();
    for &join in region.blocks[1..].iter().chain([&x]) {
        let n = c.mf.blocks[join].params.len();
        let mut per_param = Vec::with_capacity(n);
        for i in 0..n {
            if tree && let Some(ops) = decision_tree(&mut c, join, i, dom, &rank, promotion) {
                per_param.push(ops);
                continue;
            }
            let args: Vec<Arg> = c.preds[&join]
                .iter()
                .map(|&p| {
                    let jump = c.mf.inst(*c.mf.block_inst_ids(p).last().expect("exit"));
                    let value = jump.args[i];
                    let defined_at = match value {
                        Reg::Physical(_) => rank[&p] as i64,
                        Reg::Virtual(_) => def_block.get(&value).map_or(-1, |b| rank[b] as i64),
                    };
                    Arg {
                        value,
                        exact: c.edge_sym(p, join),
                        source: p,
                        defined_at,
                        raw: c.raw_of(p, join),
                    }
                })
                .collect();
            per_param.push(vec![PsiOp {
                def: None,
                args: choose_guards(&c, args, join, &rank, ppg.as_ref(), promotion),
            }]);
        }
        psi_args.insert(join, per_param);
    }

    // 3. what is needed: the guards of ψs and of operations that cannot be speculated
    let psi_syms: Vec<Sym> = psi_args
        .values()
        .flatten()
        .flatten()
        .flat_map(|op| op.args.iter().map(|&(_, s)| s))
        .collect();
    for s in psi_syms {
        c.need(s);
    }
    for &b in &region.blocks[1..] {
        let body = region.body(c.mf, b);
        if body
            .iter()
            .any(|&i| !speculable(c.mf.inst(i), region.speculate_loads))
            || region.side_exits.contains_key(&b)
        {
            let s = c.block_sym[&b];
            c.need(s);
        }
    }

    // 4. the block, in topological order
    for &b in &region.blocks {
        if b != e {
            if c.block_sym[&b] == Sym::Join(b) && c.needed.contains(&Sym::Join(b)) {
                c.make_join(b);
            }
            let params: Vec<Reg> = c.mf.blocks[b].params.iter().map(|&v| v.into()).collect();
            c.psis(&psi_args[&b], &params);
            c.mf.blocks[b].params.clear();
        }
        c.block_body(b);
    }
    if merge {
        let params: Vec<Reg> = c.mf.blocks[x].params.iter().map(|&v| v.into()).collect();
        c.psis(&psi_args[&x], &params);
        c.mf.blocks[x].params.clear();
        let rest = c.mf.take_block_insts(x);
        c.order.extend(rest);
    } else {
        let classes: Vec<RegClass> = c.mf.blocks[x]
            .params
            .iter()
            .map(|&v| c.mf.vregs[v])
            .collect();
        let defs: Vec<Reg> = classes
            .into_iter()
            .map(|k| c.mf.new_vreg(k).into())
            .collect();
        c.psis(&psi_args[&x], &defs);
        let mut br = MInst::op(Opcode::Br, &[], &[], Imm::Block(x));
        br.args = defs;
        c.emit(br);
    }
    let order = core::mem::take(&mut c.order);
    for &b in &region.blocks[1..] {
        c.mf.take_block_insts(b);
    }
    c.mf.set_block_insts(e, order);
    let gone: Vec<MBlock> = region.blocks[1..]
        .iter()
        .copied()
        .chain(merge.then_some(x))
        .collect();
    c.mf.layout.retain(|b| !gone.contains(b));
    merge
}

/// The source of each unguarded copy between virtual registers of `mf` (computed once
/// per round: copies made by a conversion are not between virtual registers of the
/// regions that follow).
pub fn copies(mf: &MachFunction) -> HashMap<Reg, Reg> {
    mf.layout
        .iter()
        .flat_map(|&b| mf.block_insts(b))
        .filter(|i| i.op == MOp::Copy && i.guard.is_always())
        .filter(|i| i.defs[0].as_virtual().is_some() && i.uses[0].as_virtual().is_some())
        .map(|i| (i.defs[0], i.uses[0]))
        .collect()
}
