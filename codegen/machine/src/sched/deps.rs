//! The dependence graph of a basic block of allocated operations (physical
//! registers), for the list scheduler.
//!
//! An edge `a → b` (a before b in program order) with distance `d` says that `b` may
//! issue no earlier than `d` cycles after `a`: `d = 0` allows the same bundle, which
//! is safe because a bundle's operations are emitted in program order (its slot order
//! preserves program order), every operation reads the state before the bundle, and
//! writes take effect in slot order (`docs/isa.md` §4). The kinds:
//!
//! | kind | from → to | distance |
//! |---|---|---|
//! | true (RAW) | each write that may reach the read (the last unconditional write and the guarded or and/or-type writes after it) → reader | the writer's latency |
//! | anti (WAR) | reader → next writer | 0 |
//! | output (WAW) | write that may reach → next writer | 0 |
//! | memory | store → later load or store that may overlap | 1 |
//! | memory | load → later store that may overlap | 0 |
//! | barrier | every earlier operation → a control operation other than `trap` (`br`, `jr`, `call`, `callr`, `ret`, `syscall`) | 0 |
//! | barrier | such a control operation → every later operation (a `br` right after a `br`: 0, the two share a bundle where the machine has two branch units, the first taken in slot order winning) | 1 |
//! | trap | memory operation or `trap` → later `trap`; `trap` → later memory operation | 0; 1 |
//! | end | every operation → the block's final control operation | 0 |
//!
//! Guards, `lr` of `ret` and `syscall`'s `r3`..`r8` are reads; the implicit uses of
//! calls and returns (arguments, results) are not (the code on the other side reads
//! them, and `pad` makes them ready in time for it); compare destinations, implicit
//! definitions (a call's
//! clobbers, `lr`) are writes. And/or-type compares read nothing but write their
//! destinations conditionally, so they stay ordered among themselves (WAW). Two
//! accesses off the same base register, not redefined between them, with constant
//! offsets whose byte ranges do not overlap are independent; any other pair of
//! accesses is assumed to overlap, and atomics and `fence` overlap everything.
//! Operations that only write registers (no memory, no control) may cross a guarded
//! `trap`: when it is taken the run ends and registers no longer matter.
//!
//! **Writes of one register share a bundle** (output distance 0): a later slot's
//! write wins (`docs/isa.md` §4), and every write that may reach a reader keeps its
//! true edge to it, so the reader waits for the value it gets either way (a guarded
//! write leaves the earlier one reaching). This covers what if-conversion leaves,
//! guarded writes of one register under disjoint guards (ψ's predicated copies),
//! without proving the guards disjoint. A reader keeps its latency after a write
//! under a disjoint guard too: the machine interlocks on an operation's operands
//! whether or not its guard turns out true, so a nullified reader issued early would
//! stall (found by running the programs under `--strict`: `stdin_lines`,
//! `string_ops`). Before allocation, a definition that keeps a value (`MInst::keep`)
//! is the value's second write in the same sense (`OpInfo::keep`): it may follow the
//! kept value's producer by that producer's latency less its own.

use vliw_isa::{CmpType, Format, Gpr, Inst, MachineConfig, Opcode, Unit};

use crate::mir::{Imm, MInst, PReg, Reg};

/// Registers as indices: `r0`..`r63`, then `p0`..`p15`.
pub const NUM_REGS: usize = 64 + 16;

pub fn reg_index(p: PReg) -> usize {
    match p {
        PReg::Gpr(g) => g.index(),
        PReg::Pred(q) => 64 + q.index(),
    }
}

/// `r0` and `p0` are constants: never waited for, writes discarded.
fn is_constant(p: PReg) -> bool {
    p == PReg::gpr(0) || p == PReg::pred(0)
}

/// What a dependence edge stands for.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum DepKind {
    True,
    Anti,
    Output,
    Memory,
    Barrier,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    /// Minimum number of cycles from `from`'s bundle to `to`'s (0: same bundle).
    pub distance: u32,
    pub kind: DepKind,
}

/// A memory access: base register, offset and size when known.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Access {
    pub reads: bool,
    pub writes: bool,
    /// `(base register, version of the base, offset, size)`; `None` if unknown.
    pub place: Option<(usize, u32, i64, u32)>,
    /// The IR access's alias scope: accesses it proves apart are not ordered.
    pub scope: Option<vliw_ir::AliasScope>,
}

impl Access {
    /// The access of an operation `op`, at `place` when it is a load or store (any
    /// other memory operation may touch anything); `None` for no memory operation.
    pub fn of(
        op: Opcode,
        place: Option<(usize, u32, i64, u32)>,
        scope: Option<vliw_ir::AliasScope>,
    ) -> Option<Access> {
        match op.format() {
            Format::Load | Format::Store => Some(Access {
                reads: op.format() == Format::Load,
                writes: op.format() == Format::Store,
                place,
                scope,
            }),
            _ if op.unit() == Unit::Mem => Some(Access {
                reads: true,
                writes: true,
                place: None,
                scope: None,
            }),
            _ => None,
        }
    }

    /// Whether the two accesses may touch a common byte.
    pub fn may_overlap(&self, other: &Access) -> bool {
        if vliw_ir::AliasScope::apart(self.scope, other.scope) {
            return false;
        }
        // a save or spill slot is reached through `sp` only
        let private = |a: &Access| vliw_ir::AliasScope::is_frame_private(a.scope);
        let through_sp = |a: &Access| {
            a.place
                .is_some_and(|(base, ..)| base == reg_index(PReg::Gpr(Gpr::SP)))
        };
        if (private(self) && !through_sp(other)) || (private(other) && !through_sp(self)) {
            return false;
        }
        match (self.place, other.place) {
            (Some((b1, v1, o1, s1)), Some((b2, v2, o2, s2))) if b1 == b2 && v1 == v2 => {
                o1 < o2 + s2 as i64 && o2 < o1 + s1 as i64
            }
            _ => true,
        }
    }
}

/// What the scheduler needs to know of one operation.
#[derive(Clone, Debug)]
pub struct OpInfo {
    /// The encoded form (unit, syllables; `check_bundle` takes these).
    pub inst: Inst,
    /// Registers read (guard included), as `reg_index`.
    pub reads: Vec<usize>,
    /// Before allocation: the value a guarded definition keeps (`MInst::keep`),
    /// when nothing else of the operation reads it. It is not read for its value:
    /// it is what the register holds where the guard is false, so the keeping
    /// definition may share its producer's bundle (a later slot wins) as long as
    /// its readers, which wait for the keeping definition, find the kept value
    /// ready too.
    pub keep: Option<usize>,
    /// Registers written and whether the write may not happen (guarded, and/or type).
    pub writes: Vec<(usize, bool)>,
    /// Cycles until the results can be read.
    pub latency: u32,
    pub access: Option<Access>,
    /// `br`, `jr`, `call`, `callr`, `ret`, `syscall`: nothing crosses it.
    pub barrier: bool,
    pub trap: bool,
}

/// Size in bytes of a load or store.
pub(crate) fn access_size(op: Opcode) -> Option<u32> {
    use Opcode::*;
    Some(match op {
        LdB | LdBu | LdsB | LdsBu | StB => 1,
        LdH | LdHu | LdsH | LdsHu | StH => 2,
        LdW | LdWu | LdsW | LdsWu | StW => 4,
        LdD | LdsD | StD => 8,
        _ => return None,
    })
}

impl OpInfo {
    /// The facts of `mi`, encoded as `inst` (see `emit::encoding_of`).
    pub fn new(mi: &MInst, inst: Inst, config: &MachineConfig) -> OpInfo {
        let mut reads: Vec<usize> = Vec::new();
        let mut push_read = |p: PReg| {
            if !is_constant(p) && !reads.contains(&reg_index(p)) {
                reads.push(reg_index(p));
            }
        };
        // The implicit uses of a call or return (arguments, results) are read by the
        // code on the other side, not by the operation: the interlock does not wait
        // for them (`docs/isa.md` §4), the padding of exits does (`pad`), and the
        // barrier keeps their writes before the transfer.
        let crosses = matches!(inst.opcode, Opcode::Call | Opcode::Callr | Opcode::Ret);
        let uses = mi.all_uses().filter(|r| {
            !(crosses && matches!(r, Reg::Physical(p) if mi.implicit_uses.contains(p)))
        });
        for r in uses {
            if let Reg::Physical(p) = r {
                push_read(p);
            }
        }
        // what the operation reads beyond its operand fields (`lr` of `ret`, the
        // arguments of `syscall`)
        for g in inst.gpr_sources() {
            push_read(PReg::Gpr(g));
        }
        for p in inst.pred_sources() {
            push_read(PReg::Pred(p));
        }
        let conditional = !(mi.guard.is_always() || mi.ctype == CmpType::Unc)
            || !matches!(mi.ctype, CmpType::Normal | CmpType::Unc);
        let mut writes: Vec<(usize, bool)> = Vec::new();
        let mut push_write = |p: PReg| {
            if !is_constant(p) && !writes.iter().any(|w| w.0 == reg_index(p)) {
                writes.push((reg_index(p), conditional));
            }
        };
        for r in mi.all_defs() {
            if let Reg::Physical(p) = r {
                push_write(p);
            }
        }
        if let Some(g) = inst.gpr_dest() {
            push_write(PReg::Gpr(g));
        }
        for p in inst.pred_dests() {
            push_write(PReg::Pred(p));
        }
        let op = inst.opcode;
        let place = match (mi.uses.first(), &mi.imm, access_size(op)) {
            (Some(Reg::Physical(base)), Imm::Const(off), Some(size)) => {
                Some((reg_index(*base), 0, *off, size))
            }
            (Some(Reg::Physical(base)), Imm::None, Some(size)) => {
                Some((reg_index(*base), 0, 0, size))
            }
            _ => None,
        };
        let access = Access::of(op, place, mi.scope);
        OpInfo {
            inst,
            reads,
            keep: None,
            writes,
            latency: config.latency(op.latency_class()),
            access,
            barrier: op.is_control() && op != Opcode::Trap,
            trap: op == Opcode::Trap,
        }
    }
}

/// The dependence graph of a block: edges in both directions, by operation.
#[derive(Clone, Debug, Default)]
pub struct DepGraph {
    pub succs: Vec<Vec<Edge>>,
    pub preds: Vec<Vec<Edge>>,
}

impl DepGraph {
    pub(crate) fn add(&mut self, from: usize, to: usize, distance: u32, kind: DepKind) {
        debug_assert!(from < to);
        let e = Edge {
            from,
            to,
            distance,
            kind,
        };
        self.succs[from].push(e);
        self.preds[to].push(e);
    }

    /// The strongest constraint from `a` to `b`, if any (for tests).
    pub fn distance(&self, a: usize, b: usize) -> Option<u32> {
        self.succs[a]
            .iter()
            .filter(|e| e.to == b)
            .map(|e| e.distance)
            .max()
    }

    /// The kinds of the edges from `a` to `b` (for tests).
    pub fn kinds(&self, a: usize, b: usize) -> Vec<DepKind> {
        self.succs[a]
            .iter()
            .filter(|e| e.to == b)
            .map(|e| e.kind)
            .collect()
    }

    /// Builds the graph of a block's operations, in program order.
    pub fn build(ops: &mut [OpInfo]) -> DepGraph {
        let n = ops.len();
        let mut g = DepGraph {
            succs: vec![Vec::new(); n],
            preds: vec![Vec::new(); n],
        };
        // per register: the writes that may reach this point, the reads since the
        // last write, how many times it was written (versions of base registers);
        // registers are numbered densely over the block (`slot`): virtual registers
        // before allocation are numbered over the whole function, and tables that
        // large per block made a function of many blocks quadratic
        let mut slots: rustc_hash::FxHashMap<usize, usize> = rustc_hash::FxHashMap::default();
        for op in ops.iter() {
            let regs = op
                .reads
                .iter()
                .copied()
                .chain(op.keep)
                .chain(op.writes.iter().map(|w| w.0))
                .chain(op.access.and_then(|a| a.place).map(|p| p.0));
            for r in regs {
                let next = slots.len();
                slots.entry(r).or_insert(next);
            }
        }
        let slot = |r: usize| slots[&r];
        let num_regs = slots.len();
        let mut reaching: Vec<Vec<usize>> = vec![Vec::new(); num_regs];
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); num_regs];
        let mut version = vec![0u32; num_regs];
        // memory operations since the last barrier
        let mut accesses = Accesses::default();
        let mut last_barrier: Option<usize> = None;
        let mut since_barrier: Vec<usize> = Vec::new();
        let mut traps: Vec<usize> = Vec::new();
        for i in 0..n {
            // the version of the base register makes accesses comparable
            if let Some(a) = ops[i].access.as_mut()
                && let Some(place) = a.place.as_mut()
            {
                place.1 = version[slot(place.0)];
            }
            let op = &ops[i];
            for &r in &op.reads {
                for &w in &reaching[slot(r)] {
                    // (a write under a guard disjoint from the reader's never reaches
                    // it, but the reader still waits for it: an operation reads its
                    // operands, and interlocks on them, whether or not its guard
                    // turns out true, docs/isa.md §4; with the reader `latency`
                    // cycles after the writer, neither stalls)
                    g.add(w, i, ops[w].latency, DepKind::True);
                }
            }
            if let Some(k) = op.keep {
                for &w in &reaching[slot(k)] {
                    let d = ops[w].latency.saturating_sub(op.latency);
                    g.add(w, i, d, DepKind::True);
                }
            }
            for &(r, _) in &op.writes {
                let r = slot(r);
                for &w in &reaching[r] {
                    // (the same bundle is fine: a later slot's write wins, and its
                    // readers wait for every write that may reach them)
                    g.add(w, i, 0, DepKind::Output);
                }
                for &u in &readers[r] {
                    if u != i {
                        g.add(u, i, 0, DepKind::Anti);
                    }
                }
            }
            if let Some(a) = op.access {
                for j in accesses.may_overlap(&a) {
                    let b = ops[j].access.expect("memory operation");
                    if (b.writes || a.writes) && a.may_overlap(&b) {
                        g.add(j, i, u32::from(b.writes), DepKind::Memory);
                    }
                }
                for &t in &traps {
                    g.add(t, i, 1, DepKind::Barrier);
                }
            }
            if op.trap {
                for j in accesses.all().chain(traps.iter().copied()) {
                    g.add(j, i, 0, DepKind::Barrier);
                }
            }
            if op.barrier {
                for &j in &since_barrier {
                    g.add(j, i, 0, DepKind::Barrier);
                }
            }
            if let Some(b) = last_barrier {
                // a branch right after a branch may share its bundle, where the
                // machine has two branch units: the first taken one in slot order
                // wins (docs/isa.md §3, step 8), the program's order
                let follows = ops[b].inst.opcode == Opcode::Br
                    && ops[i].inst.opcode == Opcode::Br
                    && since_barrier.is_empty();
                g.add(b, i, if follows { 0 } else { 1 }, DepKind::Barrier);
            }
            // update the state
            let op = &ops[i];
            for &r in &op.reads {
                readers[slot(r)].push(i); // `reads` has no duplicates
            }
            for &(r, conditional) in &op.writes {
                let r = slot(r);
                readers[r].clear();
                if !conditional {
                    reaching[r].clear();
                }
                reaching[r].push(i);
                version[r] += 1;
            }
            if op.barrier {
                last_barrier = Some(i);
                since_barrier.clear();
                accesses = Accesses::default();
                traps.clear();
            } else {
                since_barrier.push(i);
                if let Some(a) = op.access {
                    accesses.insert(i, a);
                }
                if op.trap {
                    traps.push(i);
                }
            }
        }
        // the block's final control operation ends it
        if let Some(last) = n.checked_sub(1)
            && ops[last].inst.opcode.is_control()
        {
            for j in 0..last {
                g.add(j, last, 0, DepKind::Barrier);
            }
        }
        g
    }
}

/// The memory operations of a block since its last barrier, indexed so that an
/// access off a base register compares offsets only with the accesses off the same
/// base (and version) near its offset, and with every access off another base or at
/// an unknown place.
#[derive(Default)]
struct Accesses {
    /// By base register and version: operations by offset.
    placed: rustc_hash::FxHashMap<(usize, u32), std::collections::BTreeMap<i64, Vec<usize>>>,
    unknown: Vec<usize>,
    /// Whether a save or spill slot access was inserted: a store of unknown place
    /// does not overlap it, so it orders nothing through one.
    private: bool,
}

/// Accesses are at most this many bytes (`ld.d`, `st.d`).
const MAX_ACCESS: i64 = 8;

impl Accesses {
    fn insert(&mut self, i: usize, a: Access) {
        self.private |= vliw_ir::AliasScope::is_frame_private(a.scope);
        if a.place.is_none() && a.writes && a.scope.is_none() && !self.private {
            // every earlier access is ordered before this one (it may overlap them
            // all), and anything later that overlaps one of them overlaps this store
            // too and is ordered after it: the earlier ones need no more edges (not
            // so for a store with a scope, which some of them do not overlap)
            self.placed.clear();
            self.unknown.clear();
        }
        match a.place {
            Some((base, version, offset, _)) => self
                .placed
                .entry((base, version))
                .or_default()
                .entry(offset)
                .or_default()
                .push(i),
            None => self.unknown.push(i),
        }
    }

    fn all(&self) -> impl Iterator<Item = usize> + '_ {
        self.placed
            .values()
            .flat_map(|m| m.values().flatten().copied())
            .chain(self.unknown.iter().copied())
    }

    /// The earlier accesses that may overlap `a` (a superset; in program order).
    fn may_overlap(&self, a: &Access) -> Vec<usize> {
        let mut out: Vec<usize> = self.unknown.clone();
        for (&key, by_offset) in &self.placed {
            match a.place {
                Some((base, version, offset, size)) if key == (base, version) => {
                    let range = offset.saturating_sub(MAX_ACCESS - 1)
                        ..offset.saturating_add(i64::from(size));
                    out.extend(by_offset.range(range).flat_map(|(_, v)| v.iter().copied()));
                }
                _ => out.extend(by_offset.values().flatten().copied()),
            }
        }
        out.sort_unstable();
        out
    }
}
