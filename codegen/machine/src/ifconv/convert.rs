//! Turning a region into one predicated block (de Ferrière's construction, 003 §2 and
//! Fig. 1–2; the block predicates after Gindraud et al.'s ~-classes, 000 §3.2).
//!
//! The blocks are visited in the region's topological order, each appended to the
//! entry `E`:
//!
//! - **Block predicates.** `E` runs always (`p0`). A block equivalent to its immediate
//!   dominator (it also post-dominates it: same set of paths, 000 Prop. 4) shares that
//!   block's predicate; a block with one predecessor takes its incoming edge's; any
//!   other is the OR of its incoming edges' (`por`/`porn`). A predicate is a guard, so
//!   it may be negated: the `else` side of an unconditional branch costs nothing.
//! - **Edge predicates.** An edge of a jump has its block's predicate. The two edges of
//!   `(c) br T; br U` in a block of predicate `P` are `P ∧ c` and `P ∧ ¬c`: when `c`
//!   is written by a normal compare of the block used by nothing else, that compare
//!   becomes `(P) cmp.unc` writing both (IA-64's nested conditions); otherwise
//!   `pand`/`pandn` make them. Under `p0`, they are `c` and `¬c`, guards as they are.
//! - **Operations.** Under a block predicate `P ≠ p0`, an operation that cannot fault
//!   or write memory and is cheap (values, compares, predicate logic, `sel`, copies;
//!   not divisions) runs unguarded (speculated: its result is only read under `P`);
//!   everything else takes `P` as its guard, or `P ∧ g` if it had a guard `g` already
//!   (a conditional trap).
//! - **ψ.** A block parameter, of a join inside the region or of `X`, becomes a ψ of
//!   the arguments of its incoming edges, each under its edge's predicate, in the
//!   topological order of the edges' sources (dominance order: 003 §2's order
//!   invariant; the edges into one block are disjoint, so the order is also free).
//!
//! When every predecessor of `X` is in the region, `X` is appended too: its parameters
//! are defined by the ψs, and its exit ends the block. Otherwise the block ends in
//! `br X(ψs)`.

use std::collections::HashMap;

use vliw_isa::semantics::{self as sem, OpClass};
use vliw_isa::{CmpType, Opcode};
use vliw_ssa::DomTree;
use vliw_ssa::PostDomTree;

use super::IfConvertStats;
use super::region::{Exit, Region, speculable};
use crate::mir::{Imm, InstId, MBlock, MGuard, MInst, MOp, MachFunction, Reg, RegClass};
use crate::ssa_view::block;

/// The conversion of one region, with its predicates.
struct Converter<'a> {
    mf: &'a mut MachFunction,
    region: &'a Region,
    uses: &'a HashMap<Reg, u32>,
    block_pred: HashMap<MBlock, MGuard>,
    edge_pred: HashMap<(MBlock, MBlock), MGuard>,
    /// The position of each block of the region in its topological order.
    rank: HashMap<MBlock, usize>,
    /// The block of the region that defines a register (parameters included).
    def_block: HashMap<Reg, MBlock>,
    /// The merged block's new order.
    order: Vec<InstId>,
    stats: &'a mut IfConvertStats,
}

impl Converter<'_> {
    fn emit(&mut self, inst: MInst) -> Reg {
        let d = inst.defs.first().copied().unwrap_or(Reg::P0);
        let id = self.mf.make_inst(inst);
        self.order.push(id);
        d
    }

    fn new_pred(&mut self) -> Reg {
        self.stats.predicates += 1;
        self.mf.new_vreg(RegClass::Pred).into()
    }

    /// A predicate register holding `a ∧ b` (as a guard).
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

    /// A predicate register holding `a ∨ b` (as a guard).
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

    /// The predicate of block `b`, made from its incoming edges' (module documentation).
    fn block_predicate(
        &mut self,
        b: MBlock,
        dom: &DomTree,
        pdom: &PostDomTree,
        preds: &[MBlock],
    ) -> MGuard {
        if let Some(d) = dom.idom(block(b)).map(crate::ssa_view::mblock)
            && pdom.post_dominates(block(b), block(d))
            && let Some(&p) = self.block_pred.get(&d)
        {
            return p;
        }
        let mut incoming = preds.iter().map(|&p| self.edge_pred[&(p, b)]);
        let first = incoming.next().unwrap_or(MGuard::ALWAYS);
        let rest: Vec<MGuard> = incoming.collect();
        rest.into_iter().fold(first, |acc, g| self.or(acc, g))
    }

    /// ψs defining `params` from the arguments that `preds`' jumps pass to `target`
    /// (the new registers `defs`, or the parameters themselves).
    fn psis(&mut self, target: MBlock, preds: &[MBlock], defs: &[Reg]) {
        for (i, &d) in defs.iter().enumerate() {
            let mut psi = MInst::new(MOp::Psi);
            psi.defs = vec![d];
            // arguments in the order of their definitions (003 §2): those from before
            // the region first, then by the block that defines them (a constant
            // register as if defined on its edge), the edge's source breaking ties
            let mut args: Vec<(i64, usize, Reg, MGuard)> = preds
                .iter()
                .map(|&p| {
                    let jump = self
                        .mf
                        .inst(*self.mf.block_inst_ids(p).last().expect("exit"));
                    let arg = jump.args[i];
                    let source = self.rank[&p];
                    let defined = match arg {
                        Reg::Physical(_) => source as i64,
                        Reg::Virtual(_) => {
                            self.def_block.get(&arg).map_or(-1, |b| self.rank[b] as i64)
                        }
                    };
                    (defined, source, arg, self.edge_pred[&(p, target)])
                })
                .collect();
            args.sort_by_key(|a| (a.0, a.1));
            for (_, _, arg, guard) in args {
                psi.uses.push(arg);
                psi.psi_guards.push(guard);
            }
            self.stats.psis += 1;
            self.emit(psi);
        }
    }

    /// The body of block `b` under predicate `pred`, and its exit's edge predicates.
    fn block_body(&mut self, b: MBlock, pred: MGuard) {
        let exit = self.region.exits[&b];
        let ids: Vec<InstId> = self.mf.block_inst_ids(b).to_vec();
        let (body, _) = ids.split_at(ids.len() - exit.op_count());
        // the compare of a nested condition, written as .unc under the block predicate
        let mut unc: Option<(InstId, Reg)> = None;
        if let Exit::Branch { cond, .. } = exit
            && !pred.is_always()
            && self.uses.get(&cond.pred) == Some(&1)
            && let Some(&id) = body
                .iter()
                .find(|&&i| self.mf.inst(i).defs.first() == Some(&cond.pred))
        {
            let c = self.mf.inst(id);
            let is_compare = matches!(c.op, MOp::Op(o) if sem::class(o) == OpClass::Compare);
            if is_compare
                && c.ctype == CmpType::Normal
                && c.guard.is_always()
                && c.defs.get(1) == Some(&Reg::P0)
            {
                let other = self.mf.new_vreg(RegClass::Pred).into();
                unc = Some((id, other));
            }
        }
        for &id in body {
            if let Some((cmp, other)) = unc
                && cmp == id
            {
                let inst = self.mf.inst_mut(id);
                inst.guard = pred;
                inst.ctype = CmpType::Unc;
                inst.defs[1] = other;
                self.stats.unc_compares += 1;
                self.order.push(id);
                continue;
            }
            let inst = self.mf.inst(id).clone();
            if pred.is_always() {
            } else if speculable(&inst) {
                self.stats.speculated += 1;
            } else {
                let g = self.and(pred, inst.guard);
                self.mf.inst_mut(id).guard = g;
                self.stats.guarded += 1;
            }
            self.order.push(id);
        }
        match exit {
            Exit::Jump { target } => {
                self.edge_pred.insert((b, target), pred);
            }
            Exit::Branch { cond, taken, other } => {
                let (t, o) = if let Some((id, second)) = unc {
                    let first = self.mf.inst(id).defs[0];
                    self.stats.predicates += 1;
                    let (pos, neg) = (MGuard::new(first, false), MGuard::new(second, false));
                    if cond.negated { (neg, pos) } else { (pos, neg) }
                } else {
                    let not = MGuard::new(cond.pred, !cond.negated);
                    (self.and(pred, cond), self.and(pred, not))
                };
                self.edge_pred.insert((b, taken), t);
                self.edge_pred.insert((b, other), o);
            }
        }
    }
}

/// Converts `region` (checked by `find_region`, accepted by the cost model) into one
/// block at its entry; returns whether its exit block was merged too.
pub fn convert(
    mf: &mut MachFunction,
    region: &Region,
    dom: &DomTree,
    pdom: &PostDomTree,
    preds: &HashMap<MBlock, Vec<MBlock>>,
    uses: &HashMap<Reg, u32>,
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
    let in_order = |list: &[MBlock]| {
        let mut v: Vec<MBlock> = list.to_vec();
        v.sort_by_key(|b| rank.get(b).copied().unwrap_or(usize::MAX));
        v
    };
    let mut def_block = HashMap::new();
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
        rank: rank.clone(),
        def_block,
        block_pred: HashMap::new(),
        edge_pred: HashMap::new(),
        order: Vec::new(),
        stats,
    };
    for &b in &region.blocks {
        let pred = if b == e {
            MGuard::ALWAYS
        } else {
            let incoming = in_order(&preds[&b]);
            let p = c.block_predicate(b, dom, pdom, &incoming);
            let params: Vec<Reg> = c.mf.blocks[b].params.iter().map(|&v| v.into()).collect();
            c.psis(b, &incoming, &params);
            c.mf.blocks[b].params.clear();
            p
        };
        c.block_pred.insert(b, pred);
        c.block_body(b, pred);
    }
    let into_exit = in_order(&preds[&x]);
    let merge = into_exit.iter().all(|p| rank.contains_key(p)) && c.mf.layout.first() != Some(&x);
    let into_exit: Vec<MBlock> = into_exit
        .into_iter()
        .filter(|p| rank.contains_key(p))
        .collect();
    if merge {
        let params: Vec<Reg> = c.mf.blocks[x].params.iter().map(|&v| v.into()).collect();
        c.psis(x, &into_exit, &params);
        c.mf.blocks[x].params.clear();
        let rest = c.mf.take_block_insts(x);
        c.order.extend(rest);
    } else {
        let defs: Vec<Reg> = c.mf.blocks[x]
            .params
            .iter()
            .map(|&v| c.mf.vregs[v])
            .collect::<Vec<_>>()
            .into_iter()
            .map(|class| c.mf.new_vreg(class).into())
            .collect();
        c.psis(x, &into_exit, &defs);
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
