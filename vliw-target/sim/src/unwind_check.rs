//! `vliw-run --check-unwind`: the call-frame information (`.eh_frame`) checked
//! against the execution, at every call.
//!
//! A shadow stack keeps each active function's registers at its entry. When a call
//! is taken, the caller's frame is unwound as an unwinder would unwind it: the row of
//! the caller's FDE at the return address − 1 (found through `.eh_frame_hdr`),
//! applied to the registers and memory at the callee's entry. The result must be the
//! caller's entry state: the CFA its entry `sp`, the return-address column (`lr`)
//! its return address, and every callee-saved register (`r32`..`r62`, `p12`..`p15`)
//! its value at entry, whether the row says it is saved (read from memory) or
//! unchanged. The first difference is a fault naming the function, the call and the
//! register; frames that unwinding leaves (the jump into a landing pad) are dropped; a register whose rule is `undefined` is not compared, and a frame whose
//! return address is undefined is the outermost one (`_start`), with nothing to
//! unwind to. Frames of functions without an FDE
//! (hand-written assembly without CFI directives) are counted and not checked. A
//! `ret` pops the frames down to the one it returns into.

use gimli::{
    BaseAddresses, CfaRule, EhFrame, EhFrameHdr, EndianSlice, LittleEndian, Register, RegisterRule,
    UnwindContext, UnwindSection,
};
use vliw_isa::abi::{CALLEE_SAVED_GPRS, CALLEE_SAVED_PREDS, dwarf};

use crate::memory::Memory;
use crate::predecode::PRED_BASE;

/// Where the linker put the call-frame sections.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameSections {
    pub eh_frame: (u64, u64),
    pub eh_frame_hdr: (u64, u64),
}

/// A function's registers at its entry (the register file: `r0`..`r63`, then the
/// predicates from `PRED_BASE`).
#[derive(Clone)]
struct Entry {
    regs: Vec<u64>,
}

pub(crate) struct UnwindCheck {
    eh_frame: Vec<u8>,
    eh_frame_addr: u64,
    hdr: Vec<u8>,
    hdr_addr: u64,
    /// The shadow stack of each guest thread (by index: thread id − 1), and the
    /// running thread's index.
    shadows: Vec<Vec<Entry>>,
    current: usize,
    ctx: UnwindContext<usize>,
    /// Calls whose caller's frame was checked.
    pub checked: u64,
    /// Calls from functions without an FDE.
    pub without_fde: u64,
}

impl UnwindCheck {
    /// Reads the sections from memory; `regs` is the register file at the entry
    /// point.
    pub fn new(sections: FrameSections, mem: &Memory, regs: &[u64]) -> Result<UnwindCheck, String> {
        let read = |(addr, len): (u64, u64), name: &str| {
            mem.slice(addr, len)
                .map(<[u8]>::to_vec)
                .ok_or_else(|| format!("--check-unwind: {name} at {addr:#x} is not in memory"))
        };
        if sections.eh_frame_hdr.1 == 0 {
            return Err("--check-unwind: the program has no .eh_frame_hdr".to_string());
        }
        Ok(UnwindCheck {
            eh_frame: read(sections.eh_frame, ".eh_frame")?,
            eh_frame_addr: sections.eh_frame.0,
            hdr: read(sections.eh_frame_hdr, ".eh_frame_hdr")?,
            hdr_addr: sections.eh_frame_hdr.0,
            shadows: vec![vec![Entry {
                regs: regs.to_vec(),
            }]],
            current: 0,
            ctx: UnwindContext::new(),
            checked: 0,
            without_fde: 0,
        })
    }

    /// A new thread (the next index) with its registers at its start: its first
    /// function is its outermost frame.
    pub fn spawn(&mut self, regs: &[u64]) {
        self.shadows.push(vec![Entry {
            regs: regs.to_vec(),
        }]);
    }

    /// The thread of index `index` runs now.
    pub fn switch(&mut self, index: usize) {
        self.current = index;
    }

    /// A thread has ended: its frames are gone.
    pub fn finish(&mut self, index: usize) {
        self.shadows[index] = Vec::new();
    }

    /// A call was taken: `regs` and `mem` are the state at the callee's entry.
    /// Returns what is wrong with the caller's frame description.
    pub fn call(&mut self, regs: &[u64], mem: &Memory) -> Result<(), String> {
        let result = match self.shadows[self.current].last() {
            Some(caller) => self.check(caller.clone(), regs, mem),
            None => Ok(()),
        };
        self.shadows[self.current].push(Entry {
            regs: regs.to_vec(),
        });
        result
    }

    /// A `ret` (or another indirect jump) to `target`, with `sp` after it: pops the
    /// frames down to the one it returns into, if one is. Otherwise the jump stays in
    /// a function (a jump table) or lands in a frame further down (the unwinder's
    /// `__vliw_unwind_restore` entering a landing pad): the frames entered at or
    /// below `sp` are gone (a function that has a frame of its own is entered above
    /// its `sp`; one without makes no calls, so its shadow entry is never a caller).
    pub fn jump(&mut self, target: u64, sp: u64) {
        let lr = vliw_isa::Gpr::LR.num() as usize;
        let sp_reg = vliw_isa::Gpr::SP.num() as usize;
        let shadow = &mut self.shadows[self.current];
        if let Some(i) = shadow.iter().rposition(|e| e.regs[lr] == target) {
            shadow.truncate(i);
            return;
        }
        while shadow.len() > 1 && shadow.last().is_some_and(|e| e.regs[sp_reg] <= sp) {
            shadow.pop();
        }
    }

    fn check(&mut self, caller: Entry, regs: &[u64], mem: &Memory) -> Result<(), String> {
        let lr = vliw_isa::Gpr::LR.num() as usize;
        let ra = regs[lr];
        let bases = BaseAddresses::default()
            .set_eh_frame_hdr(self.hdr_addr)
            .set_eh_frame(self.eh_frame_addr);
        let hdr = EhFrameHdr::new(&self.hdr, LittleEndian)
            .parse(&bases, 8)
            .map_err(|e| format!("unreadable .eh_frame_hdr: {e}"))?;
        let Some(table) = hdr.table() else {
            return Err(".eh_frame_hdr has no search table".to_string());
        };
        let eh = EhFrame::new(&self.eh_frame, LittleEndian);
        let pc = ra.wrapping_sub(1);
        let fde = match table.fde_for_address(&eh, &bases, pc, EhFrame::cie_from_offset) {
            Ok(f) => f,
            Err(gimli::Error::NoUnwindInfoForAddress) => {
                self.without_fde += 1;
                return Ok(());
            }
            Err(e) => return Err(format!("no readable FDE for {pc:#x}: {e}")),
        };
        let row = fde
            .unwind_info_for_address(&eh, &bases, &mut self.ctx, pc)
            .map_err(|e| format!("the FDE of {pc:#x} cannot be evaluated: {e}"))?
            .clone();
        if row.register(Register(dwarf::RETURN_ADDRESS)) == Some(RegisterRule::Undefined) {
            // the outermost frame (`_start`): it has no caller to unwind to, and the
            // registers it changes before its call are nobody's
            self.checked += 1;
            return Ok(());
        }
        let cfa = match row.cfa() {
            CfaRule::RegisterAndOffset { register, offset } => {
                value_of(regs, *register)?.wrapping_add(*offset as u64)
            }
            CfaRule::Expression(_) => return Err("a CFA expression (unsupported)".into()),
        };
        let sp = vliw_isa::Gpr::SP.num() as usize;
        if cfa != caller.regs[sp] {
            return Err(format!(
                "the CFA is {cfa:#x}, the caller's entry sp {:#x}",
                caller.regs[sp]
            ));
        }
        let mut columns: Vec<(u16, usize)> = vec![(dwarf::RETURN_ADDRESS, lr)];
        for r in CALLEE_SAVED_GPRS {
            columns.push((u16::from(r), r as usize));
        }
        for p in CALLEE_SAVED_PREDS {
            columns.push((dwarf::FIRST_PRED + u16::from(p), (PRED_BASE + p) as usize));
        }
        for (column, index) in columns {
            let name = dwarf::name(column).unwrap_or_default();
            let value = match row.register(Register(column)) {
                // a register the function does not preserve
                Some(RegisterRule::Undefined) => continue,
                None | Some(RegisterRule::SameValue) => regs[index],
                Some(RegisterRule::Offset(o)) => {
                    let at = cfa.wrapping_add(o as u64);
                    mem.read(at, 8)
                        .ok_or_else(|| format!("{name} is saved at {at:#x}, outside memory"))?
                }
                Some(RegisterRule::Expression(e)) => {
                    let e = e
                        .get(&eh)
                        .map_err(|err| format!("{name}: bad expression: {err}"))?;
                    let at = evaluate(e, regs)?;
                    mem.read(at, 8)
                        .ok_or_else(|| format!("{name} is saved at {at:#x}, outside memory"))?
                }
                Some(other) => return Err(format!("{name}: unsupported rule {other:?}")),
            };
            if value != caller.regs[index] {
                return Err(format!(
                    "{name} unwinds to {value:#x}, its value at the caller's entry is {:#x}",
                    caller.regs[index]
                ));
            }
        }
        self.checked += 1;
        Ok(())
    }
}

fn value_of(regs: &[u64], r: Register) -> Result<u64, String> {
    match r.0 {
        n if n < dwarf::FIRST_PRED => Ok(regs[n as usize]),
        n if n < dwarf::COUNT => Ok(regs[(PRED_BASE as u16 + n - dwarf::FIRST_PRED) as usize]),
        n => Err(format!("no register {n}")),
    }
}

/// The expressions the back end writes: `DW_OP_drop; DW_OP_bregN off` (an address
/// relative to a register).
fn evaluate(
    e: gimli::Expression<EndianSlice<'_, LittleEndian>>,
    regs: &[u64],
) -> Result<u64, String> {
    let encoding = gimli::Encoding {
        format: gimli::Format::Dwarf32,
        version: 4,
        address_size: 8,
    };
    let mut ops = e.operations(encoding);
    let mut result = None;
    while let Some(op) = ops.next().map_err(|err| format!("bad expression: {err}"))? {
        match op {
            gimli::Operation::Drop => {}
            gimli::Operation::RegisterOffset {
                register, offset, ..
            } => result = Some(value_of(regs, register)?.wrapping_add(offset as u64)),
            other => return Err(format!("unsupported expression operation {other:?}")),
        }
    }
    result.ok_or_else(|| "an empty expression".to_string())
}
