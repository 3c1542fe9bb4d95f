//! The loops modulo scheduling takes, as a model detached from the function: a
//! single-block loop of machine SSA (a header `H` whose body ends in `(g) br L; br E`
//! or `(g) br E; br L`, a latch `L` that is only `br H(args)`, one preheader `P`
//! ending in `br H(init)`), its body operations, its parameters with their initial
//! and back-edge values, and the values the rest of the function reads.
//!
//! What is not taken (`Reject`): calls and other control in the body, traps,
//! physical registers other than `r0`, `p0`, `sp` and `tp` (read only), memory
//! operations other than loads and stores (atomics, fences), guarded loads and
//! stores, ψs, a parameter read outside the loop, a predicate carried around the
//! loop or read after it, a back-edge value that is neither the parameter itself nor
//! defined in the body, and a continuation test other than an unguarded normal
//! compare.
//!
//! Before scheduling, every value the loop's exit reads is made a carried value
//! wrapped in a `sel` on the stage predicate (`Model::wrap`): `c = sel Q, a, prev`,
//! where `prev` is the parameter that carries `c` around (the previous iteration's
//! `c`). In the original loop `Q` is `p0` and `c = a`; in the kernel `Q` is the stage
//! predicate of the `sel`'s stage, so that iterations that do not exist (before the
//! first, after the last) leave the value as it was: after the last trip it is the
//! last iteration's. Where it may, `wrap` guards the definition itself instead,
//! `(Q) c = op ... keeps prev`: the same value without the `sel`'s cycle in a
//! recurrence through `c`.

use cranelift_entity::EntityRef;
use vliw_isa::{CmpType, Format, Opcode, Unit};

use crate::mir::{Imm, MBlock, MInst, MOp, MachFunction, PReg, Reg, RegClass, VReg};

/// One loop, ready to schedule.
#[derive(Clone, Debug)]
pub struct Model {
    pub header: MBlock,
    pub latch: MBlock,
    pub exit: MBlock,
    pub preheader: MBlock,
    /// The body: the header's operations before its two branches, then the `sel`s
    /// that `wrap` adds.
    pub nodes: Vec<MInst>,
    /// Which nodes are `sel`s on the stage predicate (their first operand, `p0` in
    /// the model, becomes the stage predicate in the kernel).
    pub is_stage_sel: Vec<bool>,
    /// Which nodes define a wrapped value themselves, guarded by their stage
    /// predicate and keeping the value's previous one (`p0` in the model).
    pub is_stage_guarded: Vec<bool>,
    /// The header's parameters, their values from the preheader and from the latch.
    pub params: Vec<VReg>,
    pub init: Vec<Reg>,
    pub args: Vec<Reg>,
    /// The node whose first definition decides whether the loop goes on, and whether
    /// it goes on where that predicate is false.
    pub cmp: usize,
    pub cont_negated: bool,
    /// Whether `wrap` may guard a definition instead of adding a `sel`.
    pub fold: bool,
    /// The body's values read outside the loop, and what the outside reads instead
    /// once `wrap` has made them carried (`(v, v)` until then).
    pub outside: Vec<(VReg, VReg)>,
}

/// Why a loop is not pipelined (counted per reason).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Reject {
    Shape,
    Operation,
    Carried,
    LiveOut,
    Compare,
}

impl Reject {
    /// What the reason means, for the report.
    pub fn describe(self) -> &'static str {
        match self {
            Reject::Shape => "not a header, latch and preheader of the expected shape",
            Reject::Operation => {
                "an operation it does not schedule: a call, a trap, a guarded \
                                  memory access, an atomic, a ψ or a physical register"
            }
            Reject::Carried => "a carried value that is a predicate or not defined in the body",
            Reject::LiveOut => "a parameter or predicate of the loop read after it",
            Reject::Compare => "the continuation test is not an unguarded normal compare",
        }
    }
}

/// The node defining each virtual register of the body.
pub fn definers(nodes: &[MInst]) -> rustc_hash::FxHashMap<VReg, usize> {
    let mut m = rustc_hash::FxHashMap::default();
    for (i, n) in nodes.iter().enumerate() {
        for d in n.defs.iter().filter_map(|r| r.as_virtual()) {
            m.insert(d, i);
        }
    }
    m
}

fn allowed_physical(r: Reg, write: bool) -> bool {
    match r {
        Reg::Virtual(_) => true,
        Reg::Physical(p) => {
            p == PReg::gpr(0) || p == PReg::pred(0) || (!write && (r == Reg::SP || r == Reg::TP))
        }
    }
}

fn body_op_ok(mi: &MInst) -> bool {
    let opcode = match mi.op {
        MOp::Op(o) => o,
        MOp::Copy => Opcode::Mov,
        MOp::Psi | MOp::ParallelCopy => return false,
    };
    if opcode.is_control() || !mi.implicit_defs.is_empty() || !mi.implicit_uses.is_empty() {
        return false;
    }
    if !mi.args.is_empty() || !mi.psi_guards.is_empty() {
        return false;
    }
    if opcode.unit() == Unit::Mem {
        if !matches!(opcode.format(), Format::Load | Format::Store) || !mi.guard.is_always() {
            return false;
        }
    }
    mi.all_uses().all(|r| allowed_physical(r, false))
        && mi.defs.iter().all(|&r| allowed_physical(r, true))
}

/// The model of the loop headed by `h`, if it is one modulo scheduling takes.
pub fn recognize(mf: &MachFunction, h: MBlock, preds: &[Vec<MBlock>]) -> Result<Model, Reject> {
    let ids = mf.block_inst_ids(h);
    if ids.len() < 3 {
        return Err(Reject::Shape);
    }
    let (cond, last) = (mf.inst(ids[ids.len() - 2]), mf.inst(ids[ids.len() - 1]));
    let (Imm::Block(x), Imm::Block(y)) = (&cond.imm, &last.imm) else {
        return Err(Reject::Shape);
    };
    if !cond.is(Opcode::Br)
        || !last.is(Opcode::Br)
        || cond.guard.is_always()
        || !last.guard.is_always()
    {
        return Err(Reject::Shape);
    }
    if !cond.args.is_empty() || !last.args.is_empty() {
        return Err(Reject::Shape);
    }
    let is_latch = |b: MBlock| {
        let insts = mf.block_inst_ids(b);
        insts.len() == 1
            && mf.inst(insts[0]).is(Opcode::Br)
            && mf.inst(insts[0]).guard.is_always()
            && mf.inst(insts[0]).imm == Imm::Block(h)
            && preds[b.index()] == [h]
    };
    let (latch, exit, cont_negated) = if is_latch(*x) && *y != h {
        (*x, *y, cond.guard.negated)
    } else if is_latch(*y) && *x != h {
        (*y, *x, !cond.guard.negated)
    } else {
        return Err(Reject::Shape);
    };
    let hp = &preds[h.index()];
    if hp.len() != 2 || !hp.contains(&latch) {
        return Err(Reject::Shape);
    }
    let preheader = if hp[0] == latch { hp[1] } else { hp[0] };
    if preheader == h {
        return Err(Reject::Shape);
    }
    let pre_last = mf.last_inst(preheader).ok_or(Reject::Shape)?;
    if !pre_last.is(Opcode::Br) || !pre_last.guard.is_always() || pre_last.imm != Imm::Block(h) {
        return Err(Reject::Shape);
    }
    let pre_ids = mf.block_inst_ids(preheader);
    if pre_ids[..pre_ids.len() - 1]
        .iter()
        .any(|&i| mf.inst(i).branch_targets(mf).contains(&h))
    {
        return Err(Reject::Shape);
    }
    let nodes: Vec<MInst> = ids[..ids.len() - 2]
        .iter()
        .map(|&i| mf.inst(i).clone())
        .collect();
    if !nodes.iter().all(body_op_ok) {
        return Err(Reject::Operation);
    }
    let params = mf.blocks[h].params.clone();
    let init = pre_last.args.clone();
    let latch_br = mf.inst(mf.block_inst_ids(latch)[0]);
    let args = latch_br.args.clone();
    if init.len() != params.len() || args.len() != params.len() {
        return Err(Reject::Shape);
    }
    let defs = definers(&nodes);
    for (k, &p) in params.iter().enumerate() {
        match args[k] {
            Reg::Virtual(a) if a == p => {}
            Reg::Virtual(a) if defs.contains_key(&a) => {
                if mf.vregs[a] != RegClass::Gpr {
                    return Err(Reject::Carried);
                }
            }
            _ => return Err(Reject::Carried),
        }
    }
    // the continuation test: an unguarded normal compare of the body
    let g = cond.guard.pred.as_virtual().ok_or(Reject::Compare)?;
    let &cmp = defs.get(&g).ok_or(Reject::Compare)?;
    let c = &nodes[cmp];
    if !matches!(c.opcode(), Some(o) if matches!(o.format(), Format::Cmp | Format::CmpImm))
        || !c.guard.is_always()
        || c.ctype != CmpType::Normal
        || c.defs.first() != Some(&Reg::Virtual(g))
    {
        return Err(Reject::Compare);
    }
    let mut model = Model {
        header: h,
        latch,
        exit,
        preheader,
        is_stage_sel: vec![false; nodes.len()],
        is_stage_guarded: vec![false; nodes.len()],
        nodes,
        params,
        init,
        args,
        cmp,
        cont_negated,
        fold: true,
        outside: Vec::new(),
    };
    // what the rest of the function reads of the loop
    let param_set: rustc_hash::FxHashSet<VReg> = model.params.iter().copied().collect();
    let mut live_out: Vec<VReg> = Vec::new();
    for &b in &mf.layout {
        if b == h || b == latch {
            continue;
        }
        for inst in mf.block_insts(b) {
            for r in inst.all_uses().filter_map(Reg::as_virtual) {
                let invariant = model
                    .params
                    .iter()
                    .zip(&model.args)
                    .any(|(&p, &a)| p == r && a == Reg::Virtual(p));
                if param_set.contains(&r) && !invariant {
                    return Err(Reject::LiveOut);
                }
                if defs.contains_key(&r) && !live_out.contains(&r) {
                    if mf.vregs[r] != RegClass::Gpr {
                        return Err(Reject::LiveOut);
                    }
                    live_out.push(r);
                }
            }
        }
    }
    model.outside = live_out.iter().map(|&v| (v, v)).collect();
    Ok(model)
}

impl Model {
    /// Makes `value` (defined in the body) a carried value that missing iterations
    /// leave as it was: its definition guarded by the stage predicate (`p0` in the
    /// model) keeping the previous value, when it is an unguarded operation that is
    /// no memory access or compare and `fold` is on; else behind a stage `sel`.
    /// Returns the new value. `fresh` makes new virtual registers.
    pub fn wrap(&mut self, value: VReg, fresh: &mut impl FnMut(RegClass) -> VReg) -> VReg {
        let c = fresh(RegClass::Gpr);
        let carried = self.args.iter().position(|&a| a == Reg::Virtual(value));
        let prev = match carried {
            Some(k) => {
                self.args[k] = Reg::Virtual(c);
                self.params[k]
            }
            None => {
                let p = fresh(RegClass::Gpr);
                self.params.push(p);
                self.init.push(Reg::ZERO);
                self.args.push(Reg::Virtual(c));
                p
            }
        };
        // the definition itself guarded, when it may be: the recurrence through a
        // carried value then has no `sel` in it
        let defs = definers(&self.nodes);
        if let Some(&d) = defs.get(&value)
            && self.fold
            && d != self.cmp
            && self.nodes[d].guard.is_always()
            && self.nodes[d].keep.is_none()
            && self.nodes[d].defs.len() == 1
            && matches!(self.nodes[d].op, MOp::Op(o) if o.unit() != Unit::Mem)
        {
            self.nodes[d].defs[0] = Reg::Virtual(c);
            self.nodes[d].keep = Some(Reg::Virtual(prev));
            self.is_stage_guarded[d] = true;
            for n in self.nodes.iter_mut() {
                n.replace_use(Reg::Virtual(value), Reg::Virtual(c));
            }
            // (the node's own keep reads `prev`, never `value`)
            for a in self.args.iter_mut() {
                if *a == Reg::Virtual(value) {
                    *a = Reg::Virtual(c);
                }
            }
            for o in self.outside.iter_mut() {
                if o.0 == value {
                    o.1 = c;
                }
            }
            return c;
        }
        let sel = MInst::op(
            Opcode::Sel,
            &[Reg::Virtual(c)],
            &[Reg::P0, Reg::Virtual(value), Reg::Virtual(prev)],
            Imm::None,
        );
        self.nodes.push(sel);
        self.is_stage_sel.push(true);
        self.is_stage_guarded.push(false);
        for o in self.outside.iter_mut() {
            if o.0 == value {
                o.1 = c;
            }
        }
        c
    }

    /// The initial value of the parameter each back-edge value is passed to.
    pub fn init_of_back_values(&self) -> rustc_hash::FxHashMap<VReg, Reg> {
        self.args
            .iter()
            .zip(&self.init)
            .filter_map(|(a, i)| a.as_virtual().map(|a| (a, *i)))
            .collect()
    }

    /// The node that defines the back-edge value of parameter `k`, if it is carried
    /// (not the parameter itself).
    pub fn carried_def(
        &self,
        k: usize,
        defs: &rustc_hash::FxHashMap<VReg, usize>,
    ) -> Option<usize> {
        match self.args[k] {
            Reg::Virtual(a) if a != self.params[k] => defs.get(&a).copied(),
            _ => None,
        }
    }
}
