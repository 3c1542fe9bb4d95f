//! The pipelined loop as `U` copies of its kernel (modulo variable expansion,
//! `modulo-expand=on`): no value is rotated by copy, and no stage predicate either.
//!
//! The rotating kernel (`kernel.rs`) keeps one block and passes every value that
//! crosses trips down a chain of kernel parameters, `v^d ← v^{d−1}` on the back
//! edge, with the stage predicates rotated the same way. Those copies are
//! operations the modulo schedule did not place: after allocation they take slots
//! and, worse, a copy reads its value at the end of the trip where the schedule had
//! the value's reader in a later trip, so a load's latency that the schedule hid
//! across the back edge becomes a stall (`prefix_sum`'s II 2 kernel ran 5 bundles).
//!
//! Here trip `t` of the loop runs copy `t mod U`, a block of its own, and every
//! value is named by the copy that defined it: a read at distance `d` (`kernel.rs`'s
//! `resolve`) in copy `i` reads the value of copy `i − d` directly when `i ≥ d`
//! (machine SSA: that copy dominates), else a parameter of the first copy whose
//! back-edge value is that of copy `U + i − d` of the trip before. With `U` above
//! every distance (or equal to it where the readers come before the definition), a
//! parameter's last read comes before its back-edge value is defined, so the two do
//! not interfere and the allocator gives them one register: no copy is left.
//!
//! The stage predicates become existence predicates of iterations, each named by the
//! copy whose continuation compare made it: the compare of trip `t` (stage 0,
//! `.unc` under `q_0`) defines "iteration `t + 1` exists", so `q_s` of trip `t` is
//! the compare of trip `t − s − 1`, a read at distance `s + 1`; on entry the one
//! that stands for trip −1's compare is true (iteration 0 exists) and the others
//! false. The loop goes on after trip `t` while an iteration it ran in a stage
//! before the last exists: `q_0 ∨ … ∨ q_{S−2}` of the trip, which would take `S − 2`
//! `por`s in every copy. The iterations that exist are a prefix `0..N`, so that
//! disjunction is "iteration `t − S + 2` exists, or is one before the first": the
//! compare of trip `t − S + 1` (a read at distance `S − 1`), with every trip before
//! the first standing for true. That is `q_{S−2}` but for its values on entry, so it
//! is carried apart from the stage predicates: as the compare's other result, its
//! complement (which `.unc` clears where the iteration does not exist, but those
//! trips' are never read: the loop has ended before), by parameters that enter false,
//! and the branch is guarded by its negation. It costs no operation, and shares no
//! back-edge value with the stage predicates (one value passed to two parameters
//! would cost a copy on the back edge). With two stages it is `q_0` itself; where
//! the compare's other result is used already, the `por`s stay. Each copy ends in its
//! exit test: `(cont) br` to the next copy (the last one to the latch, back to the
//! first) and otherwise to an exit block of its own, which passes the copy's values of
//! what the rest of the function reads to one join block before the loop's exit.
//!
//! An access off a pointer that advances by a constant stride (`p' = p + c` in the
//! first stage) is rewritten off the pointer of the trip's newest iteration, the
//! stages between folded into its offset (`[p_{t−s} + o]` is `[p_t + o − s·c]`):
//! every access of a copy is then off one register, so that the dependences after
//! allocation tell them apart by offset as the modulo schedule did (a store of one
//! iteration and the next iteration's load of the following element may share a
//! bundle), and the older pointers need no register.
//!
//! Only for schedules with the continuation compare in the first stage; the others
//! keep the rotating kernel.

use rustc_hash::FxHashMap as HashMap;

use cranelift_entity::SecondaryMap;

use vliw_isa::{Format, Opcode};

use super::kernel::Shape;
use super::model::Model;
use crate::mir::{Imm, MBlock, MGuard, MInst, MachFunction, Reg, RegClass, VReg};

/// At most this many copies of the kernel (code size).
pub const MAX_COPIES: i64 = 8;

/// The cycles one round of the copies should take at least (`U · II`, with `U` up
/// to [`MAX_COPIES`]): the branch from the last copy back to the first is the one
/// taken branch of a round, and its penalty (a cycle on the default machine) is
/// then at most a tenth of the round. The other copies' branches fall through.
pub const MIN_ROUND_CYCLES: i64 = 10;

/// What the read of a value in one copy resolves to: a copy's value, or a parameter
/// of the first copy standing for a copy of the trip before.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Instance {
    value: VReg,
    /// The copy that defined it, `0..U`.
    copy: i64,
}

/// The number of copies the schedule needs so that no parameter interferes with its
/// back-edge value, or `None` when the schedule is not one this form takes (the
/// compare not in the first stage, a read back in time) or needs more than
/// [`MAX_COPIES`].
pub fn copies_needed(model: &Model, times: &[i64], ii: i64) -> Option<i64> {
    let shape = Shape::new(model, times, ii);
    if shape.stage[model.cmp] != 0 {
        return None;
    }
    let refs = references(&shape).ok()?;
    let position = shape.positions();
    let mut copies = 1;
    for &(u, def, dist) in &refs {
        // a read at the largest distance in the same copy as the definition it
        // stands for: fine when it comes first
        let late = position[u] > position[def];
        copies = copies.max(dist + i64::from(late));
    }
    // the exit test's read at distance S − 1, by the branch after the compare
    if shape.stages >= 3 {
        copies = copies.max(shape.stages);
    }
    (copies <= MAX_COPIES).then_some(copies)
}

/// Every read across trips as `(reader, definer, distance)`: of the body's values,
/// and the stage predicates' reads of the continuation compare (see the module
/// documentation).
fn references(shape: &Shape) -> Result<Vec<(usize, usize, i64)>, ()> {
    let model = shape.model;
    let mut refs = Vec::new();
    for u in 0..model.nodes.len() {
        for r in model.nodes[u].all_uses() {
            if let Some((v, d)) = shape.resolve(u, r)?
                && d > 0
            {
                refs.push((u, shape.defs[&v], d));
            }
        }
        if needs_stage_predicate(model, u) {
            refs.push((u, model.cmp, shape.stage[u] + 1));
        }
    }
    Ok(refs)
}

/// The parameters that advance by a constant stride each iteration, with their
/// back-edge value defined in the first stage: parameter → (back-edge value,
/// stride). Iteration `t − s`'s value of such a pointer is iteration `t`'s minus
/// `s` strides, and iteration `t`'s is the back-edge value of the trip before,
/// which every access of a copy can then share (one base register: the accesses'
/// offsets tell them apart after allocation too).
fn strided_pointers(
    model: &Model,
    shape: &Shape,
    bases: &SecondaryMap<VReg, Option<(VReg, i64)>>,
) -> HashMap<VReg, (VReg, i64)> {
    let mut pointers = HashMap::default();
    for (k, &p) in model.params.iter().enumerate() {
        if let Reg::Virtual(next) = model.args[k]
            && next != p
            && bases[next].is_some_and(|(root, _)| root == p)
            && shape.defs.get(&next).is_some_and(|&d| shape.stage[d] == 0)
            && let Some((_, step)) = bases[next]
        {
            pointers.insert(p, (next, step));
        }
    }
    pointers
}

/// Whether operation `u` of the kernel reads its stage predicate.
fn needs_stage_predicate(model: &Model, u: usize) -> bool {
    model.is_stage_sel[u]
        || model.is_stage_guarded[u]
        || u == model.cmp
        || model.nodes[u]
            .opcode()
            .is_some_and(|o| o.format() == Format::Store)
}

/// Whether the continuation compare's other result (the one that is not "goes on")
/// is free for the copies' exit test: `p0`, or a register nothing reads but the
/// loop's own branches (which the kernel replaces).
pub fn compare_other_result_free(mf: &MachFunction, model: &Model) -> bool {
    let other = model.nodes[model.cmp].defs[1 - usize::from(model.cont_negated)];
    let loop_branch = |b: MBlock, mi: &MInst| {
        (b == model.header || b == model.latch) && mi.opcode() == Some(Opcode::Br)
    };
    other == Reg::P0
        || (other.as_virtual().is_some()
            && !mf.layout.iter().any(|&b| {
                mf.block_insts(b)
                    .any(|mi| !loop_branch(b, mi) && mi.all_uses().any(|r| r == other))
            }))
}

/// Rewrites the loop of `model` in `mf` as `copies` copies of its kernel for `times`
/// at interval `ii` (`copies` from [`copies_needed`]); with `exit_chain` (the caller
/// has checked [`compare_other_result_free`]), the exit test of more than two stages
/// by a carried chain of the compare's other result, else by `por`s (fewer
/// registers). Returns the copies' blocks,
/// the first being the loop's header. Fails, leaving `mf` as it was, when a read
/// would go back in time.
pub fn emit_expanded(
    mf: &mut MachFunction,
    model: &Model,
    times: &[i64],
    ii: i64,
    copies: i64,
    bases: &SecondaryMap<VReg, Option<(VReg, i64)>>,
    exit_chain: bool,
) -> Result<Vec<MBlock>, ()> {
    let shape = Shape::new(model, times, ii);
    let (stage, stages) = (&shape.stage, shape.stages);
    if stage[model.cmp] != 0 || copies < 1 {
        return Err(());
    }
    // resolve every read first, and no read may reach further back than one trip of
    // the copies: nothing is written when one fails
    if references(&shape)?.iter().any(|&(_, _, d)| d > copies) {
        return Err(());
    }
    let n = model.nodes.len();
    // the continuation compare's "goes on" register, made when the model's is `p0`
    let mut nodes: Vec<MInst> = model.nodes.clone();
    let cont_def_index = usize::from(model.cont_negated);
    if nodes[model.cmp].defs[cont_def_index] == Reg::P0 {
        nodes[model.cmp].defs[cont_def_index] = Reg::Virtual(mf.new_vreg(RegClass::Pred));
    }
    let Reg::Virtual(cmp_value) = nodes[model.cmp].defs[cont_def_index] else {
        return Err(());
    };
    // with more than two stages, the exit test's chain: the compare's other result
    // (its complement where the iteration exists), in a register of its own (the
    // model's is `p0` or read by nothing)
    let exit_value = (exit_chain && stages > 2).then(|| {
        let v = mf.new_vreg(RegClass::Pred);
        nodes[model.cmp].defs[1 - cont_def_index] = Reg::Virtual(v);
        v
    });

    let pointers = strided_pointers(model, &shape, bases);

    // every copy's name of every value the body defines
    let mut name: HashMap<Instance, VReg> = HashMap::default();
    for copy in 0..copies {
        for mi in &nodes {
            for d in mi.defs.iter().filter_map(|r| r.as_virtual()) {
                let fresh = mf.new_vreg(mf.vregs[d]);
                name.insert(Instance { value: d, copy }, fresh);
            }
        }
    }
    // the first copy's parameters for instances of the trip before, made on demand;
    // those of the exit test's chain apart (they enter true)
    let mut carried: Vec<(Instance, VReg)> = Vec::new();
    let mut carried_exit_test: Vec<(Instance, VReg)> = Vec::new();
    let mut read =
        |mf: &mut MachFunction, value: VReg, copy: i64, dist: i64, exit_test: bool| -> Reg {
            let from = copy - dist;
            if from >= 0 {
                return Reg::Virtual(name[&Instance { value, copy: from }]);
            }
            let instance = Instance {
                value,
                copy: from.rem_euclid(copies),
            };
            let list = if exit_test {
                &mut carried_exit_test
            } else {
                &mut carried
            };
            if let Some(&(_, p)) = list.iter().find(|(i, _)| *i == instance) {
                return Reg::Virtual(p);
            }
            let p = mf.new_vreg(mf.vregs[value]);
            list.push((instance, p));
            Reg::Virtual(p)
        };

    let mut blocks: Vec<MBlock> = vec![model.header];
    for _ in 1..copies {
        blocks.push(mf.new_block());
    }
    let mut bodies: Vec<Vec<MInst>> = Vec::new();
    for copy in 0..copies {
        let mut body: Vec<MInst> = Vec::with_capacity(n + 4);
        // the loop goes on after this trip while a stage before the last has an
        // iteration (see the module documentation)
        let (cont, cont_negated) = match exit_value {
            Some(v) => (read(mf, v, copy, stages - 1, true), true),
            None => {
                // `q_0 ∨ … ∨ q_{S−2}` by `por`s, from what earlier trips made
                let mut cont = read(mf, cmp_value, copy, 1, false);
                for s in 1..stages - 1 {
                    let q = read(mf, cmp_value, copy, s + 1, false);
                    let t = Reg::Virtual(mf.new_vreg(RegClass::Pred));
                    body.push(MInst::op(Opcode::Por, &[t], &[cont, q], Imm::None));
                    cont = t;
                }
                (cont, false)
            }
        };
        for &u in &shape.order {
            let mut mi = nodes[u].clone();
            // (every read resolved above)
            let mut resolved: Vec<(Reg, Reg)> = Vec::new();
            for r in mi.all_uses() {
                if let Ok(Some((v, d))) = shape.resolve(u, r) {
                    let to = read(mf, v, copy, d, false);
                    resolved.push((r, to));
                }
            }
            mi.rename_uses(|r| {
                resolved
                    .iter()
                    .find(|(from, _)| *from == r)
                    .map_or(r, |&(_, to)| to)
            });
            for d in mi.defs.iter_mut() {
                if let Reg::Virtual(v) = *d {
                    *d = Reg::Virtual(name[&Instance { value: v, copy }]);
                }
            }
            // an access off a pointer that advances by a stride: off the pointer of
            // the trip's newest iteration, with the stride folded into the offset
            if mi.is_memory_access()
                && let Some(&Reg::Virtual(base)) = model.nodes[u].uses.first()
            {
                let (root, offset) = bases[base].unwrap_or((base, 0));
                let own = match model.nodes[u].imm {
                    Imm::Const(c) => Some(c),
                    Imm::None => Some(0),
                    _ => None,
                };
                if let (Some(&(next, step)), Some(own)) = (pointers.get(&root), own)
                    && let Some(folded) = step
                        .checked_mul(stage[u])
                        .and_then(|back| offset.checked_add(own)?.checked_sub(back))
                        .filter(|f| i32::try_from(*f).is_ok())
                {
                    mi.uses[0] = read(mf, next, copy, 1, false);
                    mi.imm = Imm::Const(folded);
                }
            }
            let qs = read(mf, cmp_value, copy, stage[u] + 1, false);
            super::kernel::under_stage_predicate(model, u, &mut mi, qs);
            body.push(mi);
        }
        let next = if copy + 1 < copies {
            blocks[(copy + 1) as usize]
        } else {
            model.latch
        };
        let mut go_on = MInst::op(Opcode::Br, &[], &[], Imm::Block(next));
        go_on.guard = MGuard::new(cont, cont_negated);
        body.push(go_on);
        bodies.push(body);
    }

    // the exits: each copy's own block passes its values of what the rest of the
    // function reads to the join before the loop's exit
    let outside: Vec<(VReg, VReg)> = model.outside.clone();
    let join = (!outside.is_empty()).then(|| mf.new_block());
    let joined: Vec<VReg> = outside
        .iter()
        .map(|&(_, new)| mf.new_vreg(mf.vregs[new]))
        .collect();
    let mut exits: Vec<MBlock> = Vec::new();
    for (copy, body) in bodies.iter_mut().enumerate() {
        let target = match join {
            Some(_) => {
                let x = mf.new_block();
                exits.push(x);
                x
            }
            None => model.exit,
        };
        body.push(MInst::op(Opcode::Br, &[], &[], Imm::Block(target)));
        if let Some(j) = join {
            let mut to_join = MInst::op(Opcode::Br, &[], &[], Imm::Block(j));
            to_join.args = outside
                .iter()
                .map(|&(_, new)| {
                    name.get(&Instance {
                        value: new,
                        copy: copy as i64,
                    })
                    .map_or(Reg::Virtual(new), |&v| Reg::Virtual(v))
                })
                .collect();
            mf.push_inst(target, to_join);
        }
    }
    if let Some(j) = join {
        mf.blocks[j].params = joined.clone();
        mf.push_inst(j, MInst::op(Opcode::Br, &[], &[], Imm::Block(model.exit)));
    }

    // a kept value must die at the definition that keeps it: one read later (in
    // this copy or a later one, by the back edge or the exit of this copy or a
    // later one) gets a copy to keep
    let back_reads: Vec<Reg> = carried
        .iter()
        .chain(&carried_exit_test)
        .map(|(i, _)| Reg::Virtual(name[i]))
        .collect();
    let exit_reads: Vec<Vec<Reg>> = exits
        .iter()
        .map(|&x| mf.block_insts(x).flat_map(|mi| mi.args.clone()).collect())
        .collect();
    for copy in 0..bodies.len() {
        let later_reads: Vec<Reg> = back_reads
            .iter()
            .copied()
            .chain(exit_reads.iter().skip(copy).flatten().copied())
            .collect();
        let mut k = 0;
        while k < bodies[copy].len() {
            if let Some(kr @ Reg::Virtual(kv)) = bodies[copy][k].keep {
                let later = bodies[copy][k + 1..]
                    .iter()
                    .chain(bodies[copy + 1..].iter().flatten())
                    .any(|m| m.all_uses().any(|r| r == kr))
                    || later_reads.contains(&kr);
                if later {
                    let keeper = mf.new_vreg(mf.vregs[kv]);
                    bodies[copy].insert(k, MInst::copy(Reg::Virtual(keeper), kr));
                    bodies[copy][k + 1].keep = Some(Reg::Virtual(keeper));
                    k += 1;
                }
            }
            k += 1;
        }
    }

    // the first copy's parameters: the loop's invariant ones, then the instances of
    // the trip before; their values on entry and from the back edge
    let init_of = model.init_of_back_values();
    let f = mf.new_vreg(RegClass::Pred);
    let mut params: Vec<VReg> = Vec::new();
    let mut init: Vec<Reg> = Vec::new();
    let mut back: Vec<Reg> = Vec::new();
    for k in 0..model.params.len() {
        if model.args[k] == Reg::Virtual(model.params[k]) {
            params.push(model.params[k]);
            init.push(model.init[k]);
            back.push(Reg::Virtual(model.params[k]));
        }
    }
    for &(instance, p) in &carried {
        params.push(p);
        back.push(Reg::Virtual(name[&instance]));
        if instance.value == cmp_value {
            // the compare of trip −1 says iteration 0 exists; earlier ones, nothing
            init.push(if instance.copy == copies - 1 {
                Reg::P0
            } else {
                Reg::Virtual(f)
            });
        } else {
            let zero = match mf.vregs[instance.value] {
                RegClass::Gpr => Reg::ZERO,
                RegClass::Pred => Reg::P0,
            };
            init.push(init_of.get(&instance.value).copied().unwrap_or(zero));
        }
    }

    // the exit test's chain of complements: every trip before the first stands for
    // "goes on", its complement false
    for &(instance, p) in &carried_exit_test {
        params.push(p);
        back.push(Reg::Virtual(name[&instance]));
        init.push(Reg::Virtual(f));
    }

    // write it all
    let h = model.header;
    mf.blocks[h].params = params;
    for (copy, body) in bodies.into_iter().enumerate() {
        mf.set_block(blocks[copy], body);
    }
    let at = mf
        .layout
        .iter()
        .position(|&b| b == h)
        .map_or(mf.layout.len(), |i| i + 1);
    for (k, &b) in blocks[1..].iter().enumerate() {
        mf.layout.insert(at + k, b);
    }
    mf.layout.extend(exits.iter().copied());
    mf.layout.extend(join);
    super::kernel::connect(mf, model, f, back, init);
    // what the rest of the function read of the loop, it reads of the join
    if join.is_some() {
        let skip: Vec<MBlock> = blocks
            .iter()
            .chain(&exits)
            .copied()
            .chain([model.latch])
            .collect();
        for b in mf.layout.clone() {
            if skip.contains(&b) {
                continue;
            }
            for id in mf.block_inst_ids(b).to_vec() {
                let mi = mf.inst_mut(id);
                for (&(old, _), &j) in outside.iter().zip(&joined) {
                    mi.replace_use(Reg::Virtual(old), Reg::Virtual(j));
                }
            }
        }
    }
    Ok(blocks)
}
