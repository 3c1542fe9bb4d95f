//! Leaving SSA and the naive register allocator.
//!
//! **Leaving SSA** ([`destruct_ssa`]): the arguments of the `br` that ends a block
//! become a parallel copy to the target's parameters just before it, sequentialized
//! into ordinary copies by `vliw_ssa::sequentialize` (the minimum number: a cycle that
//! no other copy reads from is broken with one fresh temporary, so a swap works).
//! Instruction selection split every conditional edge to a block with parameters, so
//! the copies run on their edge only.
//!
//! **Naive allocation** ([`allocate_naive`], `regalloc=naive`): every virtual register
//! lives in its own 8-byte frame slot. Each operation loads the virtual registers it
//! reads into scratch registers, runs on them, and stores what it writes back to the
//! slots (under the operation's own guard, so a nullified operation changes no slot).
//! Predicates are kept in their slots as 0/1 words (`p2r`/`r2p` around the accesses).
//! Scratch registers: `r11`-`r13` (uses), `r14` (the result), `r15` (predicate
//! transfers), `p1` (guard), `p2`-`p3` (predicate uses), `p4`-`p5` (predicate
//! results): all caller-saved, none an argument register, so calls and returns, which
//! use physical registers directly, are not disturbed.

use cranelift_entity::SecondaryMap;
use vliw_isa::{CmpType, Opcode};

use crate::error::CompileError;
use crate::mir::{
    FrameSlot, FrameSlotKind, Imm, InstId, MGuard, MInst, MOp, MachFunction, Reg, RegClass, VReg,
};

/// Replaces block parameters and arguments by copies on the edges.
pub fn destruct_ssa(func: &mut MachFunction) {
    for b in func.layout.clone() {
        let Some(last) = func.last_inst(b) else {
            continue;
        };
        if last.args.is_empty() {
            continue;
        }
        let Imm::Block(target) = last.imm else {
            continue;
        };
        let br = func.pop_inst(b).expect("last");
        let params = func.blocks[target].params.clone();
        let args = core::mem::take(&mut func.inst_mut(br).args);
        let pairs: Vec<(Reg, Reg)> = params.iter().map(|&p| Reg::Virtual(p)).zip(args).collect();
        // a fresh temporary of the saved register's class per circuit
        let seq = vliw_ssa::sequentialize(
            &pairs,
            |r| {
                let class = func.class_of(r);
                Reg::Virtual(func.vregs.push(class))
            },
            |_, _| false,
        )
        .expect("block parameters are distinct");
        let loc = func.inst(br).loc;
        for (d, s) in seq {
            let mut c = MInst::copy(d, s);
            c.loc = loc;
            func.push_inst(b, c);
        }
        func.blocks[b].insts.push(br); // the branch keeps its id
    }
    for b in func.layout.clone() {
        func.blocks[b].params.clear();
    }
}

const USE_SCRATCH: [u8; 3] = [11, 12, 13];
const DEF_SCRATCH: u8 = 14;
const PRED_XFER: u8 = 15;
const GUARD_SCRATCH: u8 = 1;
const PRED_USE_SCRATCH: [u8; 2] = [2, 3];
const PRED_DEF_SCRATCH: [u8; 2] = [4, 5];

/// The new order of a block being rebuilt.
struct Out {
    order: Vec<InstId>,
}

struct Naive<'f> {
    func: &'f mut MachFunction,
    slots: SecondaryMap<VReg, Option<FrameSlot>>,
}

/// The immediate addressing frame slot `slot` from `sp`.
pub(crate) fn slot_imm(slot: FrameSlot) -> Imm {
    Imm::Slot { slot, offset: 0 }
}

impl Naive<'_> {
    fn slot(&mut self, v: VReg) -> FrameSlot {
        if let Some(s) = self.slots[v] {
            return s;
        }
        let s = self.func.new_slot(8, 8, FrameSlotKind::Spill(v));
        self.slots[v] = Some(s);
        s
    }

    /// Loads virtual register `v` into physical register `into` (of `v`'s class).
    fn load(&mut self, out: &mut Out, v: VReg, into: Reg, guard: MGuard) {
        let s = slot_imm(self.slot(v));
        match self.func.vregs[v] {
            RegClass::Gpr => self.emit(
                out,
                MInst::op(Opcode::LdD, &[into], &[Reg::SP], s).with_guard(guard),
            ),
            RegClass::Pred => {
                let x = Reg::gpr(PRED_XFER);
                self.emit(
                    out,
                    MInst::op(Opcode::LdD, &[x], &[Reg::SP], s).with_guard(guard),
                );
                self.emit(
                    out,
                    MInst::op(Opcode::R2p, &[into], &[x], Imm::None).with_guard(guard),
                );
            }
        }
    }

    /// Stores physical register `from` into the slot of `v`.
    fn store(&mut self, out: &mut Out, v: VReg, from: Reg, guard: MGuard) {
        let s = slot_imm(self.slot(v));
        match self.func.vregs[v] {
            RegClass::Gpr => self.emit(
                out,
                MInst::op(Opcode::StD, &[], &[Reg::SP, from], s).with_guard(guard),
            ),
            RegClass::Pred => {
                let x = Reg::gpr(PRED_XFER);
                self.emit(
                    out,
                    MInst::op(Opcode::P2r, &[x], &[from], Imm::None).with_guard(guard),
                );
                self.emit(
                    out,
                    MInst::op(Opcode::StD, &[], &[Reg::SP, x], s).with_guard(guard),
                );
            }
        }
    }

    /// The guard with a virtual predicate loaded into the guard scratch.
    fn guard(&mut self, out: &mut Out, g: MGuard) -> MGuard {
        match g.pred {
            Reg::Virtual(v) => {
                let p = Reg::pred(GUARD_SCRATCH);
                self.load(out, v, p, MGuard::ALWAYS);
                MGuard::new(p, g.negated)
            }
            Reg::Physical(_) => g,
        }
    }

    fn copy(&mut self, out: &mut Out, inst: &MInst) {
        let guard = self.guard(out, inst.guard);
        let (d, s) = (inst.defs[0], inst.uses[0]);
        let class = self.func.class_of(d);
        match (d, s) {
            (Reg::Virtual(dv), Reg::Virtual(sv)) => {
                // both slots hold words: copy the word
                let t = Reg::gpr(USE_SCRATCH[0]);
                let ss = slot_imm(self.slot(sv));
                self.emit(
                    out,
                    MInst::op(Opcode::LdD, &[t], &[Reg::SP], ss).with_guard(guard),
                );
                let ds = slot_imm(self.slot(dv));
                self.emit(
                    out,
                    MInst::op(Opcode::StD, &[], &[Reg::SP, t], ds).with_guard(guard),
                );
            }
            (Reg::Physical(_), Reg::Virtual(sv)) => self.load(out, sv, d, guard),
            (Reg::Virtual(dv), Reg::Physical(_)) => self.store(out, dv, s, guard),
            (Reg::Physical(_), Reg::Physical(_)) => self.emit(
                out,
                crate::ssa_regalloc::rewrite::mov(class, d, s, guard, inst.loc),
            ),
        }
    }

    fn emit(&mut self, out: &mut Out, inst: MInst) {
        out.order.push(self.func.make_inst(inst));
    }

    /// `inst` (operation `id`, rewritten in place) with its loads and stores.
    fn op(&mut self, out: &mut Out, id: InstId, mut inst: MInst) {
        let guard = self.guard(out, inst.guard);
        inst.guard = guard;
        // at most three uses: a list is faster than a map
        let mut map: Vec<(VReg, Reg)> = Vec::with_capacity(inst.uses.len());
        let (mut gi, mut pi) = (0, 0);
        for u in inst.uses.iter_mut() {
            let Reg::Virtual(v) = *u else { continue };
            if let Some(&(_, r)) = map.iter().find(|(w, _)| *w == v) {
                *u = r;
                continue;
            }
            let r = match self.func.vregs[v] {
                RegClass::Gpr => {
                    let r = Reg::gpr(USE_SCRATCH[gi]);
                    gi += 1;
                    r
                }
                RegClass::Pred => {
                    let r = Reg::pred(PRED_USE_SCRATCH[pi]);
                    pi += 1;
                    r
                }
            };
            self.load(out, v, r, MGuard::ALWAYS);
            map.push((v, r));
            *u = r;
        }
        // and/or compares leave a destination alone when their condition fails: it
        // must hold its current value
        let accumulates = !matches!(inst.ctype, CmpType::Normal | CmpType::Unc);
        let mut stores = Vec::new();
        let mut pd = 0;
        for d in inst.defs.iter_mut() {
            let Reg::Virtual(v) = *d else { continue };
            let r = match self.func.vregs[v] {
                RegClass::Gpr => Reg::gpr(DEF_SCRATCH),
                RegClass::Pred => {
                    let r = Reg::pred(PRED_DEF_SCRATCH[pd]);
                    pd += 1;
                    r
                }
            };
            if accumulates {
                self.load(out, v, r, MGuard::ALWAYS);
            }
            stores.push((v, r));
            *d = r;
        }
        // an unconditional compare writes its destinations even when nullified
        let store_guard = if inst.ctype == CmpType::Unc {
            MGuard::ALWAYS
        } else {
            guard
        };
        *self.func.inst_mut(id) = inst;
        out.order.push(id);
        for (v, r) in stores {
            self.store(out, v, r, store_guard);
        }
    }
}

/// The naive allocator (see the module documentation). Runs after [`destruct_ssa`].
pub fn allocate_naive(func: &mut MachFunction) -> Result<(), CompileError> {
    let mut naive = Naive {
        func,
        slots: SecondaryMap::new(),
    };
    for b in naive.func.layout.clone() {
        let insts = naive.func.take_block_insts(b);
        let mut out = Out {
            order: Vec::with_capacity(insts.len() * 3),
        };
        for id in insts {
            let inst = naive.func.inst(id).clone();
            match inst.op {
                MOp::Copy => naive.copy(&mut out, &inst),
                MOp::Op(_) => naive.op(&mut out, id, inst),
                MOp::ParallelCopy | MOp::Psi => {
                    return Err(CompileError::new(
                        &naive.func.name,
                        format!(
                            "the naive allocator does not take `{:?}` (leave SSA first)",
                            inst.op
                        ),
                    ));
                }
            }
        }
        naive.func.set_block_insts(b, out.order);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::FxHashMap as HashMap;

    /// The shared sequentializer on machine registers, as `destruct_ssa` calls it.
    fn sequentialize(copies: &[(Reg, Reg)], temp: impl FnMut(Reg) -> Reg) -> Vec<(Reg, Reg)> {
        vliw_ssa::sequentialize(copies, temp, |_, _| false).expect("distinct destinations")
    }

    fn r(n: u8) -> Reg {
        Reg::gpr(n)
    }

    /// Runs copies on a register file and returns it.
    fn run(copies: &[(Reg, Reg)], init: &HashMap<Reg, i64>) -> HashMap<Reg, i64> {
        let mut regs = init.clone();
        for (d, s) in copies {
            let v = regs.get(s).copied().unwrap_or(0);
            regs.insert(*d, v);
        }
        regs
    }

    fn check(parallel: &[(Reg, Reg)]) {
        let init: HashMap<Reg, i64> = (0..64).map(|i| (r(i), 100 + i as i64)).collect();
        let mut next = 40;
        let seq = sequentialize(parallel, |_| {
            next += 1;
            r(next)
        });
        let got = run(&seq, &init);
        for (d, s) in parallel {
            assert_eq!(got[d], init[s], "{parallel:?} sequentialized as {seq:?}");
        }
    }

    #[test]
    fn swap_and_cycles_use_one_temporary() {
        let swap = [(r(3), r(4)), (r(4), r(3))];
        check(&swap);
        let mut n = 0;
        let seq = sequentialize(&swap, |_| {
            n += 1;
            r(50)
        });
        assert_eq!((seq.len(), n), (3, 1));
        check(&[(r(3), r(4)), (r(4), r(5)), (r(5), r(3))]);
        check(&[(r(3), r(4)), (r(4), r(3)), (r(5), r(6)), (r(6), r(5))]);
    }

    #[test]
    fn chains_fan_out_and_identity() {
        check(&[(r(3), r(4)), (r(4), r(5)), (r(5), r(6))]);
        check(&[(r(3), r(7)), (r(4), r(7)), (r(7), r(3))]);
        check(&[(r(3), r(3)), (r(4), r(5))]);
        assert!(sequentialize(&[(r(3), r(3))], |_| r(9)).is_empty());
        // the lost-copy shape: a parameter also read by another copy
        check(&[(r(3), r(4)), (r(5), r(3))]);
    }

    #[test]
    fn random_parallel_copies() {
        // a fixed pseudo-random sequence: every permutation-with-fan-out of 6 registers
        let mut seed = 0x2545f4914f6cdd1du64;
        for _ in 0..500 {
            let mut pairs = Vec::new();
            let mut dsts: Vec<u8> = (3..9).collect();
            for i in (1..dsts.len()).rev() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                dsts.swap(i, (seed % (i as u64 + 1)) as usize);
            }
            for d in dsts.iter().take((seed % 6 + 1) as usize) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                pairs.push((r(*d), r(3 + (seed % 6) as u8)));
            }
            check(&pairs);
        }
    }
}
