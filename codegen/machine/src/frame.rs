//! Frame layout, and the lowering that makes a function's frame real: resolving
//! frame-relative immediates and inserting the prologue and epilogues (after register
//! allocation, when the used callee-saved registers are known).
//!
//! The frame, from `sp` upwards (`sp` after the prologue, 16-byte aligned, or aligned
//! to the largest slot alignment when that is more):
//!
//! ```text
//! entry sp  ───────────────────────────────────────────  (caller's frame above:
//!           padding                                       return area, stack args)
//!           saved registers: lr, fp, r32.., p12..  8 bytes each
//!           frame slots (IR stack slots, spill slots), by decreasing alignment
//! sp + 0    outgoing area: return area and stack arguments of calls
//! ```
//!
//! When a slot needs more than 16-byte alignment the frame is *realigned*: `sp` is
//! rounded down after the adjustment and `fp` (`r62`, saved first) keeps the entry
//! `sp`, through which incoming stack arguments are read and `sp` is restored.

use cranelift_entity::{EntityRef, PrimaryMap};
use vliw_isa::abi::STACK_ALIGN;
use vliw_isa::{Gpr, Opcode};

use crate::abi::is_callee_saved;
pub use crate::mir::FrameLayout;
use crate::mir::{FrameSlot, FrameSlotData, Imm, MInst, MachFunction, PReg, Reg};

/// The scratch register of prologues and epilogues: caller-saved and neither an
/// argument nor a result register, so it is free at entry and at return.
pub const FRAME_SCRATCH: u8 = 11;

fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

/// Lays out a frame with these slots, an outgoing area of `outgoing_words` words and
/// these saved registers (`fp` must be among them if a slot needs more than 16-byte
/// alignment; [`lower_frame`] sees to that).
pub fn compute_layout(
    slots: &PrimaryMap<FrameSlot, FrameSlotData>,
    outgoing_words: u64,
    saved: &[PReg],
) -> FrameLayout {
    let outgoing_bytes = outgoing_words * 8;
    let mut offset = outgoing_bytes;
    let mut order: Vec<FrameSlot> = slots.keys().collect();
    // decreasing alignment packs slots without padding between them
    order.sort_by_key(|&s| core::cmp::Reverse(slots[s].align.max(1)));
    let mut slot_offsets = vec![0; slots.len()];
    let mut max_align = STACK_ALIGN;
    for s in order {
        let d = slots[s];
        let a = u64::from(d.align.max(1));
        max_align = max_align.max(a);
        offset = align_up(offset, a);
        slot_offsets[s.index()] = offset;
        offset += u64::from(d.size);
    }
    offset = align_up(offset, 8);
    let mut saves = Vec::with_capacity(saved.len());
    for &r in saved {
        saves.push((r, offset));
        offset += 8;
    }
    FrameLayout {
        size: align_up(offset, max_align),
        align: max_align,
        realigned: max_align > STACK_ALIGN,
        slot_offsets,
        saves,
        outgoing_bytes,
    }
}

/// The registers a function must save: `lr` if it calls, `fp` if its frame is
/// realigned, and the callee-saved registers it writes.
pub fn registers_to_save(func: &MachFunction) -> Vec<PReg> {
    let realign = func
        .slots
        .values()
        .any(|s| u64::from(s.align) > STACK_ALIGN);
    let mut saved = Vec::new();
    if func.has_calls() {
        saved.push(PReg::Gpr(Gpr::LR));
    }
    if realign {
        saved.push(PReg::Gpr(Gpr::FP));
    }
    let mut written: Vec<PReg> = Vec::new();
    for &b in &func.layout {
        for inst in func.block_insts(b) {
            for d in &inst.defs {
                if let Reg::Physical(p) = *d
                    && is_callee_saved(p)
                    && !written.contains(&p)
                {
                    written.push(p);
                }
            }
        }
    }
    written.sort();
    for p in written {
        if !saved.contains(&p) {
            saved.push(p);
        }
    }
    saved
}

fn scratch() -> Reg {
    Reg::gpr(FRAME_SCRATCH)
}

/// A store into the register save area (no pointer to it exists: the schedulers
/// order it only against other accesses through `sp`).
fn store(base: Reg, offset: u64, value: Reg) -> MInst {
    let mut i = MInst::op(Opcode::StD, &[], &[base, value], Imm::Const(offset as i64));
    i.scope = Some(vliw_ir::AliasScope::FRAME_PRIVATE);
    i
}

/// A load from the register save area.
fn load(dst: Reg, base: Reg, offset: u64) -> MInst {
    let mut i = MInst::op(Opcode::LdD, &[dst], &[base], Imm::Const(offset as i64));
    i.scope = Some(vliw_ir::AliasScope::FRAME_PRIVATE);
    i
}

fn save(out: &mut Vec<MInst>, r: PReg, offset: u64) {
    match r {
        PReg::Gpr(_) => out.push(store(Reg::SP, offset, r.into())),
        PReg::Pred(_) => {
            out.push(MInst::op(Opcode::P2r, &[scratch()], &[r.into()], Imm::None));
            out.push(store(Reg::SP, offset, scratch()));
        }
    }
}

fn restore(out: &mut Vec<MInst>, r: PReg, offset: u64) {
    match r {
        PReg::Gpr(_) => out.push(load(r.into(), Reg::SP, offset)),
        PReg::Pred(_) => {
            out.push(load(scratch(), Reg::SP, offset));
            out.push(MInst::op(Opcode::R2p, &[r.into()], &[scratch()], Imm::None));
        }
    }
}

/// The prologue of a frame.
pub fn prologue(frame: &FrameLayout) -> Vec<MInst> {
    let mut out = Vec::new();
    let fp = PReg::Gpr(Gpr::FP);
    if frame.realigned {
        out.push(MInst::op(Opcode::Mov, &[scratch()], &[Reg::SP], Imm::None));
    }
    if frame.size > 0 {
        out.push(MInst::op(
            Opcode::AddI,
            &[Reg::SP],
            &[Reg::SP],
            Imm::Const(-(frame.size as i64)),
        ));
    }
    if frame.realigned {
        out.push(MInst::op(
            Opcode::AndI,
            &[Reg::SP],
            &[Reg::SP],
            Imm::Const(-(frame.align as i64)),
        ));
        let (_, off) = frame
            .saves
            .iter()
            .find(|(r, _)| *r == fp)
            .expect("a realigned frame saves fp");
        out.push(store(Reg::SP, *off, Reg::FP));
        out.push(MInst::op(Opcode::Mov, &[Reg::FP], &[scratch()], Imm::None));
    }
    for &(r, off) in &frame.saves {
        if !(frame.realigned && r == fp) {
            save(&mut out, r, off);
        }
    }
    out
}

/// The epilogue of a frame (before each `ret`).
pub fn epilogue(frame: &FrameLayout) -> Vec<MInst> {
    let mut out = Vec::new();
    let fp = PReg::Gpr(Gpr::FP);
    for &(r, off) in &frame.saves {
        if !(frame.realigned && r == fp) {
            restore(&mut out, r, off);
        }
    }
    if frame.realigned {
        let (_, off) = frame
            .saves
            .iter()
            .find(|(r, _)| *r == fp)
            .expect("a realigned frame saves fp");
        out.push(load(scratch(), Reg::SP, *off));
        out.push(MInst::op(Opcode::Mov, &[Reg::SP], &[Reg::FP], Imm::None));
        out.push(MInst::op(Opcode::Mov, &[Reg::FP], &[scratch()], Imm::None));
    } else if frame.size > 0 {
        out.push(MInst::op(
            Opcode::AddI,
            &[Reg::SP],
            &[Reg::SP],
            Imm::Const(frame.size as i64),
        ));
    }
    out
}

/// Lays out the frame of an allocated function, resolves `Imm::Slot` and
/// `Imm::IncomingArg`, and inserts the prologue and the epilogues.
pub fn lower_frame(func: &mut MachFunction) {
    let saved = registers_to_save(func);
    let frame = compute_layout(&func.slots, func.outgoing_words, &saved);
    for &b in &func.layout.clone() {
        let insts = func.take_block_insts(b);
        let mut out = Vec::with_capacity(insts.len() + 8);
        if Some(&b) == func.layout.first() {
            for i in prologue(&frame) {
                out.push(func.make_inst(i));
            }
        }
        for id in insts {
            let inst = func.inst_mut(id);
            match inst.imm {
                Imm::Slot { slot, offset } => {
                    inst.imm = Imm::Const(frame.slot_offsets[slot.index()] as i64 + offset);
                }
                Imm::IncomingArg(o) => {
                    if frame.realigned {
                        for u in inst.uses.iter_mut().take(1) {
                            if *u == Reg::SP {
                                *u = Reg::FP;
                            }
                        }
                        inst.imm = Imm::Const(o);
                    } else {
                        inst.imm = Imm::Const(frame.size as i64 + o);
                    }
                }
                _ => {}
            }
            if inst.is(Opcode::Ret) {
                let guard = inst.guard;
                for i in epilogue(&frame) {
                    out.push(func.make_inst(i.with_guard(guard)));
                }
            }
            out.push(id);
        }
        func.set_block_insts(b, out);
    }
    func.frame = Some(frame);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::FrameSlotKind;

    fn slots(list: &[(u32, u32)]) -> PrimaryMap<FrameSlot, FrameSlotData> {
        let mut m = PrimaryMap::new();
        for &(size, align) in list {
            m.push(FrameSlotData {
                size,
                align,
                kind: FrameSlotKind::Temp,
            });
        }
        m
    }

    #[test]
    fn empty_leaf_frame_is_empty() {
        let f = compute_layout(&slots(&[]), 0, &[]);
        assert_eq!((f.size, f.align, f.realigned), (0, 16, false));
        assert!(prologue(&f).is_empty() && epilogue(&f).is_empty());
    }

    #[test]
    fn slots_sit_above_the_outgoing_area_by_decreasing_alignment_and_saves_on_top() {
        let s = slots(&[(1, 1), (8, 8), (4, 4), (16, 16)]);
        let lr = PReg::Gpr(Gpr::LR);
        let r40 = PReg::gpr(40);
        let f = compute_layout(&s, 3, &[lr, r40]);
        assert_eq!(f.outgoing_bytes, 24);
        // 16-aligned slot first at 32, then 8 at 48, 4 at 56, 1 at 60
        assert_eq!(f.slot_offsets, vec![60, 48, 56, 32]);
        assert_eq!(f.saves, vec![(lr, 64), (r40, 72)]);
        assert_eq!(f.size, 80);
        assert_eq!(f.size % 16, 0);
        for (i, d) in s.values().enumerate() {
            assert_eq!(f.slot_offsets[i] % u64::from(d.align), 0);
            assert!(f.slot_offsets[i] >= f.outgoing_bytes);
            assert!(f.slot_offsets[i] + u64::from(d.size) <= f.saves[0].1);
        }
    }

    #[test]
    fn frame_size_keeps_sp_16_byte_aligned() {
        for n in 0..40u32 {
            let f = compute_layout(&slots(&[(n, 1)]), u64::from(n % 3), &[PReg::Gpr(Gpr::LR)]);
            assert_eq!(f.size % 16, 0, "{n}");
            assert!(f.size >= u64::from(n) + 8 + 8 * u64::from(n % 3));
        }
    }

    #[test]
    fn large_alignment_realigns_through_fp() {
        let fp = PReg::Gpr(Gpr::FP);
        let f = compute_layout(&slots(&[(8, 64)]), 0, &[fp]);
        assert!(f.realigned);
        assert_eq!(f.align, 64);
        assert_eq!(f.size % 64, 0);
        let text: Vec<String> = prologue(&f)
            .iter()
            .map(|i| format!("{:?} {:?}", i.opcode().unwrap(), i.imm))
            .collect();
        assert_eq!(text[0], "Mov None");
        assert_eq!(text[2], "AndI Const(-64)");
        let epi = epilogue(&f);
        assert!(epi.last().unwrap().is(Opcode::Mov), "fp is restored last");
    }

    #[test]
    fn predicates_are_saved_through_the_scratch_register() {
        let p12 = PReg::pred(12);
        let f = compute_layout(&slots(&[]), 0, &[p12]);
        let pro = prologue(&f);
        assert!(pro.iter().any(|i| i.is(Opcode::P2r)));
        assert!(epilogue(&f).iter().any(|i| i.is(Opcode::R2p)));
    }
}
