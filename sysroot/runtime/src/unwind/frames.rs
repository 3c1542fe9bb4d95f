//! Stepping from a frame to its caller with the program's call-frame information:
//! `.eh_frame_hdr`'s table finds the FDE of an address, gimli evaluates its row, and
//! the row gives the caller's registers (docs/isa.md §6, docs/linking.md §4.3.1).

use gimli::{
    BaseAddresses, CfaRule, EhFrame, EhFrameHdr, EndianSlice, LittleEndian, ParsedEhFrameHdr,
    Pointer, Register, RegisterRule, UnwindContext, UnwindSection,
};

use super::context::{Context, IP, PRED, SP};

type Slice = EndianSlice<'static, LittleEndian>;

unsafe extern "C" {
    static __eh_frame_start: u8;
    static __eh_frame_end: u8;
    static __eh_frame_hdr_start: u8;
    static __eh_frame_hdr_end: u8;
}

/// Why a frame cannot be stepped through.
#[derive(Debug)]
pub enum FrameError {
    /// No FDE covers the address (hand-written code without CFI directives, or an
    /// address outside the program's code).
    NoFrameInformation(u64),
    /// The sections or the FDE cannot be read or evaluated.
    Malformed(u64, gimli::Error),
    /// A rule this unwinder does not evaluate.
    Unsupported(u64, &'static str),
    /// The description gives a caller that is not above the frame on the stack: a
    /// lower stack pointer, or the frame itself again (the same stack pointer and
    /// address), which an unwinder that trusted it would step through forever.
    NoProgress(u64),
}

/// The program's `.eh_frame` and its search table.
pub struct Sections {
    eh_frame: EhFrame<Slice>,
    hdr: ParsedEhFrameHdr<Slice>,
    bases: BaseAddresses,
}

fn bytes(start: *const u8, end: *const u8) -> &'static [u8] {
    // SAFETY: the linker's symbols bound sections of the loaded, read-only image.
    unsafe { core::slice::from_raw_parts(start, end as usize - start as usize) }
}

impl Sections {
    pub fn load() -> Result<Sections, FrameError> {
        let (eh_start, eh_end, hdr_start, hdr_end) = (
            &raw const __eh_frame_start,
            &raw const __eh_frame_end,
            &raw const __eh_frame_hdr_start,
            &raw const __eh_frame_hdr_end,
        );
        let bases = BaseAddresses::default()
            .set_eh_frame(eh_start as u64)
            .set_eh_frame_hdr(hdr_start as u64);
        let hdr = EhFrameHdr::new(bytes(hdr_start, hdr_end), LittleEndian)
            .parse(&bases, 8)
            .map_err(|e| FrameError::Malformed(hdr_start as u64, e))?;
        Ok(Sections {
            eh_frame: EhFrame::new(bytes(eh_start, eh_end), LittleEndian),
            hdr,
            bases,
        })
    }
}

/// What the FDE of a frame says about it.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    /// The function's first address.
    pub start: u64,
    /// The canonical frame address: `sp` at the function's entry.
    pub cfa: u64,
    /// The personality routine of its CIE, if any.
    pub personality: Option<u64>,
    /// Its language-specific data area, if any.
    pub lsda: Option<u64>,
}

fn direct(p: Pointer) -> u64 {
    match p {
        Pointer::Direct(a) => a,
        // an indirect pointer holds the address of the value
        // SAFETY: the CIE points into the loaded image.
        Pointer::Indirect(a) => unsafe { *(a as *const u64) },
    }
}

/// The return-address column: `lr`.
const RETURN_ADDRESS: u16 = 63;

/// The frame of `ctx`, whose `ip` is a return address (the call is at `ip - 1`),
/// and its caller's registers; no caller for the outermost frame (its return
/// address undefined).
pub fn step(sections: &Sections, ctx: &Context) -> Result<(Frame, Option<Context>), FrameError> {
    let pc = ctx.regs[IP].wrapping_sub(1);
    let table = sections.hdr.table().ok_or(FrameError::Unsupported(
        pc,
        "an .eh_frame_hdr without a table",
    ))?;
    let fde = match table.fde_for_address(
        &sections.eh_frame,
        &sections.bases,
        pc,
        EhFrame::cie_from_offset,
    ) {
        Ok(fde) => fde,
        Err(gimli::Error::NoUnwindInfoForAddress) => {
            return Err(FrameError::NoFrameInformation(pc));
        }
        Err(e) => return Err(FrameError::Malformed(pc, e)),
    };
    let mut unwind = UnwindContext::new();
    let row = fde
        .unwind_info_for_address(&sections.eh_frame, &sections.bases, &mut unwind, pc)
        .map_err(|e| FrameError::Malformed(pc, e))?;
    let value = |r: Register| -> Result<u64, FrameError> {
        if (r.0 as usize) < PRED + 16 {
            Ok(ctx.regs[r.0 as usize])
        } else {
            Err(FrameError::Unsupported(
                pc,
                "a rule on a register that does not exist",
            ))
        }
    };
    let cfa = match row.cfa() {
        CfaRule::RegisterAndOffset { register, offset } => {
            value(*register)?.wrapping_add(*offset as u64)
        }
        CfaRule::Expression(_) => {
            return Err(FrameError::Unsupported(pc, "a CFA expression"));
        }
    };
    let frame = Frame {
        start: fde.initial_address(),
        cfa,
        personality: fde.personality().map(direct),
        lsda: fde.lsda().map(direct),
    };
    if matches!(
        row.register(Register(RETURN_ADDRESS)),
        Some(RegisterRule::Undefined)
    ) {
        return Ok((frame, None));
    }
    let mut caller = ctx.clone();
    for (n, rule) in row.registers() {
        value(*n)?;
        caller.regs[n.0 as usize] = match rule {
            RegisterRule::Undefined => 0,
            RegisterRule::SameValue => ctx.regs[n.0 as usize],
            RegisterRule::Offset(o) => {
                // SAFETY: the row says the caller's register was saved there, in the
                // frame of a function that is still active.
                unsafe { *(cfa.wrapping_add(*o as u64) as *const u64) }
            }
            RegisterRule::ValOffset(o) => cfa.wrapping_add(*o as u64),
            RegisterRule::Register(r) => value(*r)?,
            RegisterRule::Expression(e) => {
                let at = evaluate(sections, e, ctx, pc)?;
                // SAFETY: as for `Offset`.
                unsafe { *(at as *const u64) }
            }
            _ => return Err(FrameError::Unsupported(pc, "a register rule")),
        };
    }
    caller.regs[SP] = cfa;
    caller.regs[IP] = caller.regs[RETURN_ADDRESS as usize];
    // The stack grows down: a caller's frame is at or above its callee's, and at the
    // same stack pointer (a callee that did not move it) it returns elsewhere.
    let (sp, caller_sp) = (ctx.regs[SP], caller.regs[SP]);
    if caller_sp < sp || (caller_sp == sp && caller.regs[IP] == ctx.regs[IP]) {
        return Err(FrameError::NoProgress(pc));
    }
    Ok((frame, Some(caller)))
}

/// The expressions the back end writes for the saves of a realigned frame:
/// `DW_OP_drop; DW_OP_bregN off` (or `DW_OP_bregx`). Read here rather than with
/// gimli's general operation parser, which is most of the unwinder's code.
fn evaluate(
    sections: &Sections,
    e: &gimli::UnwindExpression<usize>,
    ctx: &Context,
    pc: u64,
) -> Result<u64, FrameError> {
    use gimli::Reader;
    let mut r = e
        .get(&sections.eh_frame)
        .map_err(|err| FrameError::Malformed(pc, err))?
        .0;
    let malformed = |err| FrameError::Malformed(pc, err);
    let mut result = None;
    while !r.is_empty() {
        let op = r.read_u8().map_err(malformed)?;
        let register = match op {
            0x13 => continue,                             // DW_OP_drop
            0x70..=0x8f => u64::from(op - 0x70),          // DW_OP_breg0..31
            0x92 => r.read_uleb128().map_err(malformed)?, // DW_OP_bregx
            _ => return Err(FrameError::Unsupported(pc, "an expression operation")),
        };
        let offset = r.read_sleb128().map_err(malformed)?;
        if register as usize >= PRED + 16 {
            return Err(FrameError::Unsupported(pc, "an expression register"));
        }
        result = Some(ctx.regs[register as usize].wrapping_add(offset as u64));
    }
    result.ok_or(FrameError::Unsupported(pc, "an empty expression"))
}

/// The first address of the function containing `pc`, if an FDE covers it.
pub fn enclosing_function(sections: &Sections, pc: u64) -> Option<u64> {
    let table = sections.hdr.table()?;
    table
        .fde_for_address(
            &sections.eh_frame,
            &sections.bases,
            pc,
            EhFrame::cie_from_offset,
        )
        .ok()
        .map(|f| f.initial_address())
}
