//! The pipelined loop as one kernel block, predicated (kernel-only code: no prologue
//! or epilogue), in machine SSA.
//!
//! Trip `k` of the kernel runs, of each operation `o` of stage `s(o)` (its cycle
//! over II), the instance of iteration `k − s(o)`. Stage predicates say which
//! iterations exist: `q_s` holds in trip `k` when iteration `k − s` does. They are
//! kernel parameters rotated by the back edge (`q_s ← q_{s−1}`); `q_0` of the next
//! trip is the continuation compare, made `.unc` under `q_0`, so that it is `q_0 ∧
//! cond` (an iteration exists when the one before it did and went on). Entering, `q_0`
//! is true and the others false; the loop goes on while any of `q_0 .. q_{S−2}` holds
//! (a `por` chain), S − 1 trips after the last iteration started, which finish it.
//! With two stages (and the compare in the first) the loop goes on after a trip only
//! when its `q_0` held, so every trip but the first has an iteration in the second
//! stage: the back edge gives `q_1` true instead of rotating `q_0` into it. With
//! more stages, the last stage's next predicate is `q_{S−2} ∨ q_{S−1}` (it has an
//! iteration in every trip from the `S − 1`-th on), a `por` in its own register.
//!
//! What iterations that do not exist must not do: stores are guarded by their stage
//! predicate, loads become non-faulting `lds` (their values are only read by the
//! same missing iteration), and carried values that are read after the loop, or that
//! are defined in a stage after the first, are defined under their stage predicate
//! keeping their previous value, or behind a stage `sel` (`model::wrap`), so that
//! they keep the last real iteration's value. Every other operation computes
//! harmless garbage for a missing iteration: no operation the model admits faults.
//!
//! Values that cross trips are rotated by copy: a value defined in stage `s` and read
//! in stage `s + d` is read from a kernel parameter `v^d`, with `v^1 ← v` and `v^d ←
//! v^{d−1}` on the back edge (the allocator coalesces what it can); a parameter's
//! reader in stage `s_u` reads the back-edge value defined in stage `s_a` at distance
//! `s_u + 1 − s_a`. The kernel's operations are in cycle order (`cycle mod II`, then
//! later stages first, then body order).

use rustc_hash::FxHashMap as HashMap;

use vliw_isa::{CmpType, Format, Opcode};

use super::model::{Model, definers};
use crate::mir::{Imm, MGuard, MInst, MachFunction, Reg, RegClass, VReg};

/// Where a read of the body goes in the kernel: the value, and how many trips back.
fn resolve(
    model: &Model,
    defs: &HashMap<VReg, usize>,
    carried: &HashMap<VReg, usize>,
    stage: &[i64],
    u: usize,
    r: Reg,
) -> Result<Option<(VReg, i64)>, ()> {
    let Reg::Virtual(v) = r else { return Ok(None) };
    if let Some(&d) = defs.get(&v) {
        let dist = stage[u] - stage[d];
        return if dist < 0 {
            Err(())
        } else {
            Ok(Some((v, dist)))
        };
    }
    if let Some(&k) = carried.get(&v) {
        let Reg::Virtual(a) = model.args[k] else {
            return Err(());
        };
        let d = defs[&a];
        let dist = stage[u] + 1 - stage[d];
        return if dist < 0 {
            Err(())
        } else {
            Ok(Some((a, dist)))
        };
    }
    Ok(None)
}

/// What both the kernel and its cost estimate derive from a schedule: each
/// operation's stage and the kernel's order, and where each read goes.
pub(super) struct Shape<'m> {
    pub(super) model: &'m Model,
    pub(super) stage: Vec<i64>,
    pub(super) stages: i64,
    pub(super) defs: HashMap<VReg, usize>,
    carried: HashMap<VReg, usize>,
    /// The operations in kernel order: by cycle (`cycle mod II`), then later stages
    /// first (in one cycle, the operations of older iterations first, as they ran in
    /// the loop: a value's last reader in an older stage then comes before its next
    /// definition, and the two can share a register), then body order.
    pub(super) order: Vec<usize>,
}

impl<'m> Shape<'m> {
    pub(super) fn new(model: &'m Model, times: &[i64], ii: i64) -> Shape<'m> {
        let stage: Vec<i64> = times.iter().map(|t| t / ii).collect();
        let slot: Vec<i64> = times.iter().map(|t| t % ii).collect();
        let stages = stage.iter().copied().max().unwrap_or(0) + 1;
        let mut carried: HashMap<VReg, usize> = HashMap::default();
        for (k, &p) in model.params.iter().enumerate() {
            if model.args[k] != Reg::Virtual(p) {
                carried.insert(p, k);
            }
        }
        let mut order: Vec<usize> = (0..model.nodes.len()).collect();
        order.sort_by_key(|&i| (slot[i], -stage[i], i));
        Shape {
            model,
            stage,
            stages,
            defs: definers(&model.nodes),
            carried,
            order,
        }
    }

    /// Where operation `u`'s read of `r` goes (see [`resolve`]).
    pub(super) fn resolve(&self, u: usize, r: Reg) -> Result<Option<(VReg, i64)>, ()> {
        resolve(self.model, &self.defs, &self.carried, &self.stage, u, r)
    }

    /// Each operation's position in the kernel's order.
    pub(super) fn positions(&self) -> Vec<usize> {
        let mut position = vec![0usize; self.order.len()];
        for (at, &u) in self.order.iter().enumerate() {
            position[u] = at;
        }
        position
    }

    /// Per value read across trips: the deepest distance it is read at, and whether
    /// a reader at distance 1 comes after its definition in the kernel's order.
    fn depths(&self) -> Result<HashMap<VReg, (i64, bool)>, ()> {
        let position = self.positions();
        let mut depth: HashMap<VReg, (i64, bool)> = HashMap::default();
        for u in 0..self.model.nodes.len() {
            for r in self.model.nodes[u].all_uses() {
                if let Some((v, d)) = self.resolve(u, r)?
                    && d > 0
                {
                    let late_reader = d == 1 && position[u] > position[self.defs[&v]];
                    let e = depth.entry(v).or_insert((0, false));
                    e.0 = e.0.max(d);
                    e.1 |= late_reader;
                }
            }
        }
        Ok(depth)
    }
}

/// An estimate of the operations the kernel adds to the body's for `times` at
/// `ii`: its branch, the upkeep of the stage predicates (the `por`s at the top and
/// the predicate rotation of the back edge, about two more than the stages), and
/// the rotation copies the allocator cannot coalesce: `v^1 ← v` when a reader of
/// `v^1` comes after `v`'s definition in the kernel's order (both live across it),
/// and every deeper `v^d ← v^{d−1}`.
pub fn kernel_overhead(model: &Model, times: &[i64], ii: i64) -> usize {
    let shape = Shape::new(model, times, ii);
    // (a read that goes back in time is the kernel's to refuse)
    let copies: usize = shape.depths().map_or(0, |depth| {
        depth
            .values()
            .map(|&(d, late)| (d as usize - 1) + usize::from(late))
            .sum()
    });
    1 + (shape.stages as usize + 2) + copies
}

/// What operation `u` of the body becomes under its stage predicate `qs`: a stage
/// `sel` selects on it, a guarded definition and a store take it as guard, a load
/// becomes non-faulting (`lds`), the continuation compare is made `.unc` under it.
pub(super) fn under_stage_predicate(model: &Model, u: usize, mi: &mut MInst, qs: Reg) {
    if model.is_stage_sel[u] {
        mi.uses[0] = qs;
    }
    if model.is_stage_guarded[u] {
        mi.guard = MGuard::new(qs, false);
    }
    if let Some(o) = mi.opcode() {
        if o.format() == Format::Store {
            mi.guard = MGuard::new(qs, false);
        } else if let Some(spec) = o.speculative_load() {
            mi.op = crate::mir::MOp::Op(spec);
        }
    }
    if u == model.cmp {
        mi.guard = MGuard::new(qs, false);
        mi.ctype = CmpType::Unc;
    }
}

/// Passes the kernel's parameters their values: `back` by the latch, `init` by the
/// preheader, which first makes `f` false (the predicate of stages that have no
/// iteration yet). A preheader with a call that has an unwind edge gets a block of
/// its own for the compare after the call, whose result copies alone may follow it.
pub(super) fn connect(
    mf: &mut MachFunction,
    model: &Model,
    f: VReg,
    back: Vec<Reg>,
    init: Vec<Reg>,
) {
    let latch_br = mf.block_inst_ids(model.latch)[0];
    mf.inst_mut(latch_br).args = back;
    let pre = mf.end_of_normal_path(model.preheader);
    let last = mf.block_len(pre) - 1;
    mf.insert_inst(
        pre,
        last,
        MInst::op(
            Opcode::CmpNe,
            &[Reg::Virtual(f), Reg::P0],
            &[Reg::ZERO, Reg::ZERO],
            Imm::None,
        ),
    );
    let pre_br = mf.block_inst_ids(pre)[last + 1];
    mf.inst_mut(pre_br).args = init;
}

/// Rewrites the loop of `model` in `mf` as its kernel for `times` at interval `ii`.
/// Fails (leaving `mf` as it was) when a read would go back in time, which the
/// schedule's dependences exclude.
pub fn emit_kernel(mf: &mut MachFunction, model: &Model, times: &[i64], ii: i64) -> Result<(), ()> {
    let n = model.nodes.len();
    let shape = Shape::new(model, times, ii);
    let (stage, stages) = (&shape.stage, shape.stages);
    // the continuation compare's stage: 0, or 1 with a speculative first stage
    let cmp_stage = stage[model.cmp];
    if cmp_stage > 1 {
        return Err(());
    }
    let depth = shape.depths()?;
    // the kernel's parameters: stage predicates, invariant parameters, value chains
    let q: Vec<VReg> = (0..stages).map(|_| mf.new_vreg(RegClass::Pred)).collect();
    let mut chain: HashMap<(VReg, i64), VReg> = HashMap::default();
    let mut chain_order: Vec<(VReg, i64)> = Vec::new();
    let mut sources: Vec<VReg> = depth.keys().copied().collect();
    sources.sort();
    for v in sources {
        for d in 1..=depth[&v].0 {
            let class = mf.vregs[v];
            chain.insert((v, d), mf.new_vreg(class));
            chain_order.push((v, d));
        }
    }
    let map = |u: usize, r: Reg| -> Reg {
        match shape.resolve(u, r) {
            Ok(Some((v, 0))) => Reg::Virtual(v),
            Ok(Some((v, d))) => Reg::Virtual(chain[&(v, d)]),
            _ => r,
        }
    };
    // the operations in kernel order, reads rewritten
    let order = &shape.order;
    let mut kernel: Vec<MInst> = Vec::with_capacity(n + 4);
    let mut q_next = Reg::Virtual(q[0]);
    for &u in order {
        let mut mi = model.nodes[u].clone();
        mi.guard.pred = map(u, mi.guard.pred);
        for k in 0..mi.uses.len() {
            mi.uses[k] = map(u, mi.uses[k]);
        }
        if let Some(kr) = mi.keep {
            mi.keep = Some(map(u, kr));
        }
        let qs = Reg::Virtual(q[stage[u] as usize]);
        under_stage_predicate(model, u, &mut mi, qs);
        if u == model.cmp {
            debug_assert!(stage[u] == cmp_stage);
            if model.cont_negated {
                if mi.defs[1] == Reg::P0 {
                    mi.defs[1] = Reg::Virtual(mf.new_vreg(RegClass::Pred));
                }
                q_next = mi.defs[1];
            } else {
                q_next = mi.defs[0];
            }
        }
        kernel.push(mi);
    }
    // with the compare in stage 1, `q_0` marks the first trip (true on entry, then
    // false) and the next `q_1` is the compare's `q_1 ∧ cond` or that mark:
    // iteration 0 exists whatever the compare of iteration -1 (which does not)
    // said
    let f = mf.new_vreg(RegClass::Pred);
    if cmp_stage == 1 {
        let t = Reg::Virtual(mf.new_vreg(RegClass::Pred));
        kernel.push(MInst::op(
            Opcode::Por,
            &[t],
            &[q_next, Reg::Virtual(q[0])],
            Imm::None,
        ));
        q_next = t;
    }
    // back-edge values of the chains
    let mut back: Vec<Reg> = Vec::new();
    if cmp_stage == 1 {
        back.push(Reg::Virtual(f));
        back.push(q_next);
    } else {
        back.push(q_next);
    }
    for s in (1 + cmp_stage as usize)..stages as usize {
        // with two stages and the compare in the first, every trip after the first
        // has an iteration in the second: the trip exists only because the one
        // before had an iteration in the first (the loop goes on while `q_0` holds),
        // so the next `q_1` is true, not a copy of `q_0` (the rotation of two
        // predicates would be a swap through a third register)
        if stages == 2 && cmp_stage == 0 {
            back.push(Reg::P0);
        } else if cmp_stage == 0 && s == stages as usize - 1 {
            // likewise the last stage has an iteration in every trip from the
            // `S − 1`-th on: the next `q_{S−1}` is `q_{S−2} ∨ q_{S−1}`, made in place
            // (no rotation copy into it)
            let t = Reg::Virtual(mf.new_vreg(RegClass::Pred));
            kernel.push(MInst::op(
                Opcode::Por,
                &[t],
                &[Reg::Virtual(q[s - 1]), Reg::Virtual(q[s])],
                Imm::None,
            ));
            back.push(t);
        } else {
            back.push(Reg::Virtual(q[s - 1]));
        }
    }
    let invariant: Vec<usize> = (0..model.params.len())
        .filter(|&k| model.args[k] == Reg::Virtual(model.params[k]))
        .collect();
    for &k in &invariant {
        back.push(Reg::Virtual(model.params[k]));
    }
    for &(v, d) in &chain_order {
        back.push(Reg::Virtual(if d == 1 { v } else { chain[&(v, d - 1)] }));
    }
    // a kept value must die at the definition that keeps it: one read later (or
    // passed on by the back edge, or read after the loop) gets a copy to keep
    let outside: Vec<VReg> = model.outside.iter().map(|o| o.1).collect();
    let mut k = 0;
    while k < kernel.len() {
        if let Some(kr @ Reg::Virtual(kv)) = kernel[k].keep {
            let later = kernel[k + 1..]
                .iter()
                .any(|m| m.all_uses().any(|r| r == kr))
                || back.contains(&kr)
                || outside.contains(&kv);
            if later {
                let copy = mf.new_vreg(mf.vregs[kv]);
                kernel.insert(k, MInst::copy(Reg::Virtual(copy), kr));
                kernel[k + 1].keep = Some(Reg::Virtual(copy));
                k += 1;
            }
        }
        k += 1;
    }
    // the loop goes on while a stage before the last has an iteration; computed at
    // the top, from the parameters only, so that its register is not one the back
    // edge rewrites (with two stages a `por` copies `q_0`, which the back edge
    // rewrites: the copies of the back edge then run before the branch).
    // With the compare in stage 1 `q_0` is the first trip's mark, and whether this
    // trip's speculative iteration exists is not known at the top: an iteration in
    // stage 1 (`q_1`) may have a successor, so the loop goes on while one is there,
    // and may run one trip more than needed (that trip's iterations all missing).
    let mut cont = Reg::Virtual(q[0]);
    let mut top: Vec<MInst> = Vec::new();
    let last_read = if cmp_stage == 1 {
        (stages - 2).max(1)
    } else {
        stages - 2
    };
    if last_read == 0 {
        let t = Reg::Virtual(mf.new_vreg(RegClass::Pred));
        top.push(MInst::op(Opcode::Por, &[t], &[cont, cont], Imm::None));
        cont = t;
    }
    for s in 1..=last_read as usize {
        let t = Reg::Virtual(mf.new_vreg(RegClass::Pred));
        top.push(MInst::op(
            Opcode::Por,
            &[t],
            &[cont, Reg::Virtual(q[s])],
            Imm::None,
        ));
        cont = t;
    }
    kernel.splice(0..0, top);
    let mut br_latch = MInst::op(Opcode::Br, &[], &[], Imm::Block(model.latch));
    br_latch.guard = MGuard::new(cont, false);
    kernel.push(br_latch);
    kernel.push(MInst::op(Opcode::Br, &[], &[], Imm::Block(model.exit)));
    // the entry: q_0 true, the other stages false, chains start at the initial
    // values of their parameters (or anything, for values of missing iterations)
    let mut params: Vec<VReg> = q.clone();
    let mut init: Vec<Reg> = vec![Reg::P0];
    init.extend((1..stages).map(|_| Reg::Virtual(f)));
    for &k in &invariant {
        params.push(model.params[k]);
        init.push(model.init[k]);
    }
    let init_of = model.init_of_back_values();
    for &(v, d) in &chain_order {
        params.push(chain[&(v, d)]);
        let zero = match mf.vregs[v] {
            RegClass::Gpr => Reg::ZERO,
            RegClass::Pred => Reg::P0,
        };
        init.push(init_of.get(&v).copied().unwrap_or(zero));
    }
    // write it all
    let h = model.header;
    mf.blocks[h].params = params;
    mf.set_block(h, kernel);
    connect(mf, model, f, back, init);
    // what the rest of the function read of the loop, it reads of the wrapped values
    for &(old, new) in &model.outside {
        if old == new {
            continue;
        }
        for b in mf.layout.clone() {
            if b == h || b == model.latch {
                continue;
            }
            for id in mf.block_inst_ids(b).to_vec() {
                let mi = mf.inst_mut(id);
                mi.replace_use(Reg::Virtual(old), Reg::Virtual(new));
            }
        }
    }
    Ok(())
}
