//! Bundling and encoding: an allocated, frame-lowered function to syllables with
//! relocations.
//!
//! `sched=off` makes one bundle per operation (plus its `limm` syllable when the
//! immediate needs 64 bits); `sched=list` takes the bundles of `crate::sched`.
//! Branches within the function are resolved here (pc-relative to the branch
//! syllable); references to symbols become relocations chosen by
//! `RelocKind::for_operand` (`call` → `R_VLIW_BRANCH32`, `addpc` → `R_VLIW_PCREL32`,
//! a `long` immediate → `R_VLIW_IMM64`, else `R_VLIW_IMM32`).

use cranelift_entity::SecondaryMap;
use vliw_ir::SourceLoc;
use vliw_isa::{Format, Inst, MachineConfig, Opcode, RelocKind, check_bundle};

use crate::error::CompileError;
use crate::mir::{Bundles, Imm, InstId, MBlock, MInst, MachFunction};
pub use crate::mir::{encoding_of, to_inst};
use crate::options::Sched;

/// What a code relocation points at.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum RelocTarget {
    /// A named symbol (function or data, defined or not).
    Symbol(String),
    /// The function's jump-table section.
    JumpTables,
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CodeReloc {
    pub offset: u64,
    pub kind: RelocKind,
    pub target: RelocTarget,
    pub addend: i64,
}

/// The encoded function.
#[derive(Clone, Debug, Default)]
pub struct FunctionCode {
    pub words: Vec<u64>,
    pub relocs: Vec<CodeReloc>,
    /// For each jump table, the code offsets of its targets.
    pub jump_tables: Vec<Vec<u64>>,
    /// Code offset and source location of each bundle with a location.
    pub lines: Vec<(u64, SourceLoc)>,
    /// Number of bundles.
    pub bundles: usize,
    /// Where the prologue moves the CFA and saves registers (`crate::cfi`).
    pub frame_rows: Vec<crate::cfi::FrameRow>,
    /// The calls with an unwind edge, in address order: what the call-site table of
    /// the language-specific data area describes (`crate::lsda`).
    pub call_sites: Vec<CallSite>,
}

pub use vliw_elf::lsda::CallSite;

/// Removes each unguarded `br` to the block that follows in the layout. A block that
/// ends in `(p) br next; br other` becomes `(!p) br other`: the branch to the next
/// block would be taken (a taken branch costs the taken-branch penalty, a branch not
/// taken nothing) and the other one is then the fall-through's.
pub fn remove_fallthrough_branches(func: &mut MachFunction) {
    place_exits_after_back_edges(func);
    for i in 0..func.layout.len() {
        let b = func.layout[i];
        let next = func.layout.get(i + 1).copied();
        invert_branch_to_next(func, b, next);
        if let Some(last) = func.last_inst(b)
            && last.is(Opcode::Br)
            && last.guard.is_always()
            && last.args.is_empty()
            && matches!(last.imm, Imm::Block(t) if Some(t) == next)
        {
            func.pop_inst(b);
        }
    }
}

/// A block that ends in `(p) br X; br H` with `H` at or before it in the layout (a
/// loop's back edge) and `X` placed elsewhere gets `X` right after it: the block
/// then ends in `(!p) br H` and falls through to `X`, one branch and one bundle
/// fewer on the path that stays in the loop (the back edge's unconditional branch
/// had a bundle of its own after the exit's, the machine having one branch unit),
/// where a block that fell through to `X` before now branches to it (once per
/// exit, not per iteration). Blocks only move before fall-through branches are
/// removed, and only when they and what came before them end in their own control
/// transfer, so that none relies on what follows it.
fn place_exits_after_back_edges(func: &mut MachFunction) {
    let ends_explicitly = |func: &MachFunction, b: MBlock| {
        func.last_inst(b).is_some_and(|l| {
            l.guard.is_always()
                && (l.is(Opcode::Br) || l.is(Opcode::Jr) || l.is(Opcode::Ret) || l.is(Opcode::Trap))
        })
    };
    // the blocks at or before position `i` (a move only reorders what follows it)
    let mut placed: SecondaryMap<MBlock, bool> = SecondaryMap::new();
    let mut i = 0;
    while i + 1 < func.layout.len() {
        let b = func.layout[i];
        placed[b] = true;
        let ids = func.block_inst_ids(b);
        if let [.., cond, last] = ids {
            let (c, l) = (func.inst(*cond), func.inst(*last));
            let plain = |x: &MInst| x.is(Opcode::Br) && x.args.is_empty();
            if plain(c)
                && plain(l)
                && !c.guard.is_always()
                && l.guard.is_always()
                && let (Imm::Block(exit), Imm::Block(head)) = (c.imm.clone(), l.imm.clone())
                && exit != head
                && placed[head]
                && !placed[exit]
                && exit != func.layout[i + 1]
                && exit != func.layout[0]
                && ends_explicitly(func, exit)
                && let Some(at) = func.layout.iter().position(|&x| x == exit)
                // (what precedes it in the layout does not fall into it)
                && ends_explicitly(func, func.layout[at - 1])
            {
                func.layout.remove(at);
                func.layout.insert(i + 1, exit);
            }
        }
        i += 1;
    }
}

/// `(p) br next; br other` (no arguments) becomes `(!p) br other`, falling through
/// to `next`; with up to [`MAX_GUARDED_MOVES`] unguarded register moves between the
/// two branches (the copies of a loop exit's arguments, which scheduling and copy
/// folding leave there), `(p) br next; moves; br other` becomes `(!p) moves; (!p) br
/// other`: the path to `next` no longer takes a branch, the other takes
/// the one it took before, and the moves, nullified on the first, run as before on
/// the second. Not when a move writes `p` (the branch would read the new value).
fn invert_branch_to_next(func: &mut MachFunction, b: MBlock, next: Option<MBlock>) {
    let ids = func.block_inst_ids(b).to_vec();
    let plain = |i: &crate::mir::MInst| i.is(Opcode::Br) && i.args.is_empty();
    let Some(cond_at) = ids
        .iter()
        .rposition(|&i| func.inst(i).is(Opcode::Br) && !func.inst(i).guard.is_always())
    else {
        return;
    };
    let (cond, moves, last) = (
        ids[cond_at],
        &ids[cond_at + 1..ids.len() - 1],
        *ids.last().expect("a block with a branch"),
    );
    if cond == last || moves.len() > MAX_GUARDED_MOVES {
        return;
    }
    let (c, l) = (func.inst(cond), func.inst(last));
    if !plain(c) || !plain(l) || c.guard.is_always() || !l.guard.is_always() {
        return;
    }
    let (Imm::Block(taken), Imm::Block(other)) = (&c.imm, &l.imm) else {
        return;
    };
    if Some(*taken) != next || taken == other {
        return;
    }
    let guard = c.guard;
    let movable = moves.iter().all(|&m| {
        let m = func.inst(m);
        matches!(m.op, crate::mir::MOp::Op(Opcode::Mov | Opcode::Movi))
            && m.guard.is_always()
            && m.implicit_defs.is_empty()
            && !m.defs.contains(&guard.pred)
    });
    if !movable {
        return;
    }
    let inverted = crate::mir::MGuard::new(guard.pred, !guard.negated);
    for &m in moves {
        func.inst_mut(m).guard = inverted;
    }
    func.inst_mut(last).guard = inverted;
    let kept: Vec<InstId> = ids.iter().copied().filter(|&i| i != cond).collect();
    func.set_block_insts(b, kept);
}

/// The most moves `invert_branch_to_next` guards: each takes an issue slot on the
/// path that falls through as well.
pub const MAX_GUARDED_MOVES: usize = 4;

/// One bundle per operation (`sched=off`): sets the function's bundles.
pub fn bundle_one_per_op(func: &mut MachFunction) {
    let mut bundles = Bundles::new();
    for &b in &func.layout {
        bundles.set_block(b, func.block_inst_ids(b).iter().map(|&i| vec![i]).collect());
    }
    func.bundles = Some(bundles);
}

/// Encodes an allocated, frame-lowered function.
pub fn encode_function(
    func: &MachFunction,
    config: &MachineConfig,
    sched: Sched,
) -> Result<FunctionCode, CompileError> {
    let mut func = func.clone();
    match sched {
        Sched::Off => bundle_one_per_op(&mut func),
        Sched::List => crate::sched::schedule_function(&mut func, config),
    }
    encode_bundles(&func, config)
}

/// Encodes an allocated, frame-lowered, bundled function (`MachFunction::bundles`).
pub fn encode_bundles(
    func: &MachFunction,
    config: &MachineConfig,
) -> Result<FunctionCode, CompileError> {
    let err = |m: String| CompileError::new(&func.name, m);
    // every operation and its form first: the size of each immediate is known before
    // any address is
    let n = func.num_insts();
    let Some(layout_bundles) = &func.bundles else {
        return Err(err("the function is not bundled".into()));
    };
    let mut ops: Vec<(Inst, &MInst)> = Vec::with_capacity(n);
    let mut bundles: Vec<usize> = Vec::with_capacity(n); // operations per bundle
    let mut block_offsets = vec![u64::MAX; func.blocks.len()];
    let mut offset = 0u64;
    for &b in &func.layout {
        block_offsets[cranelift_entity::EntityRef::index(b)] = offset;
        let block_bundles = layout_bundles.block(b);
        let in_order = block_bundles.iter().flatten().copied();
        if !in_order.eq(func.block_inst_ids(b).iter().copied())
            || block_bundles.iter().any(Vec::is_empty)
        {
            return Err(err(format!("bundles of {b} do not cover its operations")));
        }
        for mi in func.block_insts(b) {
            let inst = encoding_of(func, mi)?;
            offset += 8 * inst.syllables() as u64;
            ops.push((inst, mi));
        }
        bundles.extend(block_bundles.iter().map(Vec::len));
    }
    let block_offset = |b: MBlock| -> Result<u64, CompileError> {
        match block_offsets[cranelift_entity::EntityRef::index(b)] {
            u64::MAX => Err(CompileError::new(
                &func.name,
                format!("branch to {b}, which is not laid out"),
            )),
            o => Ok(o),
        }
    };
    let mut code = FunctionCode {
        words: Vec::with_capacity(offset as usize / 8),
        ..FunctionCode::default()
    };
    let mut jt_offsets = Vec::with_capacity(func.jump_tables.len());
    let mut jt_base = 0i64;
    for (_, targets) in func.jump_tables.iter() {
        jt_offsets.push(jt_base);
        jt_base += 8 * targets.len() as i64;
        let mut t = Vec::with_capacity(targets.len());
        for &b in targets {
            t.push(block_offset(b)?);
        }
        code.jump_tables.push(t);
    }
    let mut next = 0;
    let mut bundle: Vec<Inst> = Vec::with_capacity(config.width);
    // the prologue is in the entry block's bundles, which come first
    let entry_bundles = func
        .layout
        .first()
        .map_or(0, |&b| layout_bundles.block(b).len());
    let mut prologue = func.frame.as_ref().map(crate::cfi::PrologueTracker::new);
    for (bundle_index, len) in bundles.into_iter().enumerate() {
        let members = &ops[next..next + len];
        next += len;
        let start = code.words.len() as u64 * 8;
        let mut syll = start;
        bundle.clear();
        let mut loc = SourceLoc::default();
        for (inst, mi) in members {
            let mut inst = *inst;
            if loc.is_default() {
                loc = mi.loc;
            }
            match &mi.imm {
                Imm::Block(t) if inst.format() == Format::Branch => {
                    inst.imm = block_offset(*t)? as i64 - syll as i64;
                }
                Imm::Symbol { name, addend } => {
                    let kind = RelocKind::for_operand(&inst).ok_or_else(|| {
                        err(format!("`{}` cannot take a symbol", inst.opcode.mnemonic()))
                    })?;
                    code.relocs.push(CodeReloc {
                        offset: syll,
                        kind,
                        target: RelocTarget::Symbol(name.clone()),
                        addend: *addend,
                    });
                }
                Imm::TpRel { name, addend } => {
                    if RelocKind::for_operand(&inst) != Some(RelocKind::Imm32) {
                        return Err(err(format!(
                            "`{}` cannot take a thread-pointer offset",
                            func.display_inst(mi)
                        )));
                    }
                    code.relocs.push(CodeReloc {
                        offset: syll,
                        kind: RelocKind::Tprel32,
                        target: RelocTarget::Symbol(name.clone()),
                        addend: *addend,
                    });
                }
                Imm::JumpTable(jt) if inst.opcode == Opcode::Addpc => {
                    code.relocs.push(CodeReloc {
                        offset: syll,
                        kind: RelocKind::Pcrel32,
                        target: RelocTarget::JumpTables,
                        addend: jt_offsets[cranelift_entity::EntityRef::index(*jt)],
                    });
                }
                Imm::Const(_) | Imm::None | Imm::JumpTable(_) => {}
                other => {
                    return Err(err(format!(
                        "unresolved immediate {other:?} in `{}`",
                        func.display_inst(mi)
                    )));
                }
            }
            syll += 8 * inst.syllables() as u64;
            bundle.push(inst);
        }
        check_bundle(&bundle, config).map_err(|e| {
            err(format!(
                "bundle at {start:#x} does not fit the machine ({e}): {}",
                describe(func, members)
            ))
        })?;
        vliw_isa::encode_bundle(&bundle, &mut code.words).map_err(|e| {
            err(format!(
                "cannot encode bundle at {start:#x}: {e}: {}",
                describe(func, members)
            ))
        })?;
        if !loc.is_default() {
            code.lines.push((start, loc));
        }
        for (_, mi) in members {
            if let Some(u) = mi.unwind {
                code.call_sites.push(CallSite {
                    start,
                    end: code.words.len() as u64 * 8,
                    landing: block_offset(u.pad)?,
                    catch: u.catch,
                });
            }
        }
        code.bundles += 1;
        if let Some(t) = &mut prologue
            && bundle_index < entry_bundles
        {
            // from the bundle's last syllable: an unwinder looks a caller up at its
            // return address − 1, inside the call's bundle, whose effects (a save
            // beside the call) the callee sees
            t.bundle(
                members.iter().map(|(_, mi)| *mi),
                code.words.len() as u64 * 8 - 8,
            );
        }
    }
    if let Some(t) = prologue {
        code.frame_rows = t
            .finish()
            .map_err(|e| err(format!("cannot describe the prologue: {e}")))?;
    }
    Ok(code)
}

fn describe(func: &MachFunction, bundle: &[(Inst, &MInst)]) -> String {
    bundle
        .iter()
        .map(|(_, mi)| func.display_inst(mi))
        .collect::<Vec<_>>()
        .join(" ; ")
}
