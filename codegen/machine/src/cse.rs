//! Local common-subexpression elimination on machine SSA (`machine-cse`), after
//! if-conversion.
//!
//! The RVSDG's common node elimination merges equal computations of one region, but
//! not those of two arms of a γ: each arm computes its own `c == '\n'` or its own
//! constant 3. If-conversion then puts the arms into one predicated block, where the
//! copies run side by side, taking issue slots and registers. This pass numbers the
//! values of each block (local value numbering): an unguarded operation without
//! effects whose opcode, operands (as numbered), immediate and compare type equal an
//! earlier one's in the block is removed, and the readers of its results read the
//! earlier one's instead. Machine SSA makes it sound: every register has one
//! definition, so the earlier result holds the same value wherever the later one was
//! read (the earlier definition dominates everything the later one does).
//!
//! Taken: operations of the pure classes (values, `sel`, compares of the normal type,
//! predicate logic, `p2r`, `r2p`) and ψs, with virtual results (and `p0` as a
//! compare's unused second result); a ψ of one argument under `p0` (what converting a
//! region nested in another leaves) is its argument. Left: guarded operations (a guarded definition is a ψ argument's
//! value only where its guard holds), and/or-type compares (they read their
//! destinations), everything else with an effect, copies and ψs.
//!
//! Loads too: an unguarded load of the same base register and offset with the same
//! operation as an earlier one of the block, with nothing that may write memory in
//! between (a store, an atomic, a call; side exits do not write), is the earlier
//! one's value ([`Loaded`]; the speculative `lds` that if-conversion makes of a load
//! the compare before it already made is the common case).
//!
//! Counter: `cse.removed`.

use rustc_hash::FxHashMap as HashMap;

use vliw_isa::semantics::{self as sem};
use vliw_isa::{CmpType, Opcode};

use crate::mir::{Imm, MBlock, MGuard, MInst, MOp, MachFunction, Reg};
use crate::ssa_regalloc::analysis::Analysis;

/// What makes two operations compute the same values.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    op: MOp,
    uses: Vec<Reg>,
    imm: Imm,
    ctype: CmpType,
    /// A ψ's guards (its arguments are `uses`).
    psi_guards: Vec<MGuard>,
    /// Which results are `p0` (a compare whose second predicate nobody reads).
    discarded: Vec<bool>,
}

/// The key of `inst` if the pass may merge it with an equal one (`movi` only with
/// `constants`).
fn key(inst: &MInst, constants: bool) -> Option<Key> {
    let pure = match inst.op {
        MOp::Op(Opcode::Movi) => constants,
        MOp::Op(opcode) => sem::class(opcode).is_pure(),
        MOp::Psi => true,
        MOp::Copy | MOp::ParallelCopy => false,
    };
    let plain = inst.guard.is_always()
        && inst.args.is_empty()
        && inst.keep.is_none()
        && inst.implicit_defs.is_empty()
        && inst.implicit_uses.is_empty()
        && !inst.defs.is_empty()
        && inst
            .defs
            .iter()
            .all(|d| d.as_virtual().is_some() || *d == Reg::P0)
        && inst.defs.first().is_some_and(|d| d.as_virtual().is_some());
    if !plain || !pure || inst.ctype != CmpType::Normal {
        return None;
    }
    Some(Key {
        op: inst.op,
        uses: inst.uses.clone(),
        imm: inst.imm.clone(),
        ctype: inst.ctype,
        psi_guards: inst.psi_guards.clone(),
        discarded: inst.defs.iter().map(|d| *d == Reg::P0).collect(),
    })
}

/// Removes the repeated computations of every block of `mf`; returns how many.
///
/// Equal constants (`movi`) are merged only when that leaves no block where more
/// values are live than there are registers and there was none before (as the SSA
/// allocator's analysis counts): a constant is one operation to make again, and one
/// register held across the block when shared, which can cost a spill.
pub fn eliminate_common_subexpressions(mf: &mut MachFunction) -> usize {
    let mut trial = mf.clone();
    let (removed, constants) = number_values(&mut trial, true);
    if constants == 0 {
        *mf = trial;
        return removed;
    }
    let over = |f: &MachFunction| Analysis::compute(f).map_or(usize::MAX, |a| a.violations.len());
    if over(&trial) <= over(mf) {
        *mf = trial;
        return removed;
    }
    number_values(mf, false).0
}

/// Local value numbering of every block (equal constants merged when `constants`):
/// the operations removed, and of those the constants.
fn number_values(mf: &mut MachFunction, constants: bool) -> (usize, usize) {
    // the register a removed result's readers read instead
    let mut same: HashMap<Reg, Reg> = HashMap::default();
    let (mut removed, mut merged_constants) = (0, 0);
    // `p2r x = p` (unguarded, both virtual): `r2p d = x` is `p` again (a flag of an
    // overflow operation or compare carried as an integer to a `select`)
    let mut as_int: HashMap<Reg, Reg> = HashMap::default();
    let mut round_trips = 0;
    // an upper bound on the unsigned value of unguarded definitions, where one is
    // known from the operation (`and` with a small constant, a zero-extending load or
    // extension, a count): an extension that cannot change such a value is the value
    let mut bound: HashMap<Reg, u64> = param_bounds(mf);
    for b in mf.layout.clone() {
        let mut seen: HashMap<Key, Vec<Reg>> = HashMap::default();
        let mut loaded = Loaded::default();
        let mut kept = Vec::with_capacity(mf.block_len(b));
        for id in mf.take_block_insts(b) {
            let inst = mf.inst_mut(id);
            read_merged(inst, &same);
            match loaded.visit(inst) {
                Some((d, e)) => {
                    same.insert(d, e);
                    removed += 1;
                    continue;
                }
                None if writes_memory(inst) => loaded.clear(),
                None => {}
            }
            // a ψ of one argument that always holds (left by nested conversions) is
            // that argument
            if inst.op == MOp::Psi
                && inst.uses.len() == 1
                && inst.psi_guards[0].is_always()
                && inst.guard.is_always()
                && let [d @ Reg::Virtual(_)] = inst.defs[..]
                && inst.uses[0].as_virtual().is_some()
            {
                same.insert(d, inst.uses[0]);
                removed += 1;
                continue;
            }
            if inst.guard.is_always()
                && inst.implicit_defs.is_empty()
                && let ([d @ Reg::Virtual(_)], [x @ Reg::Virtual(_)]) =
                    (&inst.defs[..], &inst.uses[..])
            {
                if inst.is(Opcode::P2r) {
                    as_int.insert(*d, *x);
                } else if inst.is(Opcode::R2p)
                    && let Some(&p) = as_int.get(x)
                {
                    same.insert(*d, p);
                    removed += 1;
                    round_trips += 1;
                    continue;
                } else if let Some(limit) = inst.opcode().and_then(extension_limit)
                    && bound.get(x).is_some_and(|&b| b <= limit)
                {
                    same.insert(*d, *x);
                    removed += 1;
                    continue;
                }
            }
            if inst.guard.is_always()
                && let [d @ Reg::Virtual(_)] = inst.defs[..]
                && let Some(b) = value_bound(inst)
            {
                bound.insert(d, b);
            }
            let Some(k) = key(inst, constants) else {
                kept.push(id);
                continue;
            };
            match seen.get(&k) {
                Some(earlier) => {
                    for (&d, &e) in inst.defs.iter().zip(earlier) {
                        if d != Reg::P0 {
                            same.insert(d, e);
                        }
                    }
                    removed += 1;
                    merged_constants += usize::from(inst.is(Opcode::Movi));
                }
                None => {
                    seen.insert(k, inst.defs.clone());
                    kept.push(id);
                }
            }
        }
        mf.set_block_insts(b, kept);
    }
    if !same.is_empty() {
        // readers in blocks placed before the definition's block in the layout (a loop's
        // header reading a value of its body through a block argument)
        for b in mf.layout.clone() {
            for &id in mf.block_inst_ids(b).to_vec().iter() {
                read_merged(mf.inst_mut(id), &same);
            }
        }
    }
    if round_trips > 0 {
        // the `p2r`s only the round trips read
        crate::pcp::sweep::remove_dead_operations(mf);
    }
    (removed, merged_constants)
}

/// The loads of a block since the last operation that may write memory: a load of
/// the same bytes with the same operation (its speculative form counted as the same)
/// reads the value the earlier one did. An earlier `ld` stands for a later `ld` or
/// `lds`; an earlier `lds` only for an `lds` (where the `ld` would fault, the `lds`
/// gave 0, and the later `ld` must still fault).
#[derive(Default)]
struct Loaded {
    /// (the ordinary form of the operation, base register, offset) → the result and
    /// whether it was speculative.
    known: HashMap<(Opcode, Reg, Imm), (Reg, bool)>,
}

impl Loaded {
    /// When `inst` is a plain unguarded load of what an earlier one read: its result
    /// and the earlier one's. Otherwise it is remembered if it is such a load.
    fn visit(&mut self, inst: &MInst) -> Option<(Reg, Reg)> {
        let opcode = inst.opcode()?;
        if sem::class(opcode) != sem::OpClass::Load
            || !inst.guard.is_always()
            || !inst.implicit_defs.is_empty()
            || !inst.args.is_empty()
            || inst.keep.is_some()
        {
            return None;
        }
        let ([d @ Reg::Virtual(_)], [base @ Reg::Virtual(_)]) = (&inst.defs[..], &inst.uses[..])
        else {
            return None;
        };
        let speculative = opcode.is_speculative_load();
        let plain = if speculative {
            opcode.ordinary_load()?
        } else {
            opcode
        };
        let key = (plain, *base, inst.imm.clone());
        match self.known.get(&key) {
            Some(&(e, earlier_speculative)) if !earlier_speculative || speculative => Some((*d, e)),
            _ => {
                self.known.insert(key, (*d, speculative));
                None
            }
        }
    }

    fn clear(&mut self) {
        self.known.clear();
    }
}

/// Whether `inst` may write memory (or do anything a load must not be merged
/// across): a store, an atomic, a call, a system call; not a load, a pure operation,
/// a copy or a ψ.
fn writes_memory(inst: &MInst) -> bool {
    match inst.op {
        // a side exit leaves the block; what stays in it has not been written
        MOp::Op(Opcode::Br) => false,
        MOp::Op(opcode) => !matches!(
            sem::class(opcode),
            sem::OpClass::Load
                | sem::OpClass::Value
                | sem::OpClass::Compare
                | sem::OpClass::PredLogic
                | sem::OpClass::Sel
                | sem::OpClass::P2r
                | sem::OpClass::R2p
                | sem::OpClass::Nothing
        ),
        MOp::Psi | MOp::Copy | MOp::ParallelCopy => false,
    }
}

/// The largest unsigned value that extension `opcode` leaves unchanged.
fn extension_limit(opcode: Opcode) -> Option<u64> {
    Some(match opcode {
        Opcode::Zxtb => 0xff,
        Opcode::Sxtb => 0x7f,
        Opcode::Zxth => 0xffff,
        Opcode::Sxth => 0x7fff,
        Opcode::Zxtw => 0xffff_ffff,
        Opcode::Sxtw => 0x7fff_ffff,
        _ => return None,
    })
}

/// An upper bound on the unsigned value `inst` (unguarded) defines, where its
/// operation gives one.
fn value_bound(inst: &MInst) -> Option<u64> {
    Some(match inst.opcode()? {
        Opcode::AndI => match inst.imm {
            Imm::Const(c) if c >= 0 => c as u64,
            _ => return None,
        },
        Opcode::LdBu | Opcode::LdsBu | Opcode::Zxtb => 0xff,
        Opcode::LdHu | Opcode::LdsHu | Opcode::Zxth => 0xffff,
        Opcode::LdWu | Opcode::LdsWu | Opcode::Zxtw => 0xffff_ffff,
        Opcode::Clz | Opcode::Ctz | Opcode::Popc => 64,
        Opcode::P2r => 1,
        _ => return None,
    })
}

/// Bounds on the unsigned values of block parameters: the largest bound of the
/// arguments every branch to the block passes, where each has one (an optimistic
/// fixpoint: a loop's byte, loaded zero-extended one trip ahead and passed round,
/// keeps its bound). A parameter some argument of which has no bound has none.
fn param_bounds(mf: &MachFunction) -> HashMap<Reg, u64> {
    let mut defined: HashMap<Reg, u64> = HashMap::default();
    let mut edges: Vec<(MBlock, &[Reg])> = Vec::new();
    // blocks entered by an edge that passes no arguments (a landing pad, a table's
    // target, the entry): their parameters are not known
    let mut unknown: rustc_hash::FxHashSet<MBlock> = rustc_hash::FxHashSet::default();
    if let Some(&entry) = mf.layout.first() {
        unknown.insert(entry);
    }
    for &b in &mf.layout {
        for &id in &mf.blocks[b].insts {
            let inst = &mf.insts[id];
            for t in inst.branch_targets(mf) {
                if inst.args.is_empty() || inst.unwind.is_some() {
                    unknown.insert(t);
                }
            }
            if inst.guard.is_always()
                && let [d @ Reg::Virtual(_)] = inst.defs[..]
                && let Some(bound) = value_bound(inst)
            {
                defined.insert(d, bound);
            }
            if !inst.args.is_empty()
                && let Imm::Block(t) = inst.imm
            {
                edges.push((t, &inst.args[..]));
            }
        }
    }
    let params = |t: MBlock| mf.blocks[t].params.iter().map(|&v| Reg::Virtual(v));
    // the parameters still believed bounded, and their bounds so far
    let mut bounds: HashMap<Reg, u64> = HashMap::default();
    for &b in mf.layout.iter().filter(|b| !unknown.contains(b)) {
        for p in params(b) {
            bounds.insert(p, 0);
        }
    }
    loop {
        let mut changed = false;
        for &(t, args) in &edges {
            for (p, a) in params(t).zip(args) {
                let Some(&current) = bounds.get(&p) else {
                    continue;
                };
                let incoming = defined.get(a).or_else(|| bounds.get(a)).copied();
                match incoming {
                    Some(x) if x <= current => {}
                    Some(x) => {
                        bounds.insert(p, x);
                        changed = true;
                    }
                    None => {
                        bounds.remove(&p);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    bounds
}

/// Makes `inst` read what every removed result it reads was merged into (`same`).
fn read_merged(inst: &mut MInst, same: &HashMap<Reg, Reg>) {
    if inst.all_uses().any(|r| same.contains_key(&r)) {
        inst.rename_uses(|r| same.get(&r).copied().unwrap_or(r));
    }
}
