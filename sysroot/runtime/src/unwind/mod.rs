//! The unwinder: the Itanium C++ ABI's level-1 interface (`_Unwind_RaiseException`,
//! `_Unwind_Resume`, the context accessors, `_Unwind_Backtrace`) that Rust's
//! `panic_unwind` and personality routine use, over the program's call-frame
//! information (`frames.rs`, read with gimli) and the register save and restore of
//! `crt0.s` (`context.rs`).
//!
//! Raising is two-phase: the search phase walks up the stack calling each frame's
//! personality routine until one has a handler, the cleanup phase walks again,
//! letting each routine run its frame's cleanups (the landing pads it installs call
//! `_Unwind_Resume`, which continues the phase from there) until the handler's frame
//! installs its landing pad. A frame without call-frame information stops an
//! exception with a fatal error naming the address and its function (the
//! `symbolize` system call) and exit status 70, as does a malformed description or one
//! whose caller is not above its frame on the stack (which would otherwise loop); a
//! backtrace just ends there.

mod context;
mod frames;

use context::{__vliw_unwind_capture, Context, IP, PRED};
use frames::{FrameError, Sections, step};

pub type ReasonCode = i32;
pub const URC_NO_REASON: ReasonCode = 0;
pub const URC_FATAL_PHASE2_ERROR: ReasonCode = 2;
pub const URC_FATAL_PHASE1_ERROR: ReasonCode = 3;
pub const URC_END_OF_STACK: ReasonCode = 5;
pub const URC_HANDLER_FOUND: ReasonCode = 6;
pub const URC_INSTALL_CONTEXT: ReasonCode = 7;
pub const URC_CONTINUE_UNWIND: ReasonCode = 8;

pub type Action = i32;
pub const UA_SEARCH_PHASE: Action = 1;
pub const UA_CLEANUP_PHASE: Action = 2;
pub const UA_HANDLER_FRAME: Action = 4;

/// The exit status of a fatal unwinding error.
pub const STATUS_UNWIND_ERROR: i32 = 70;

/// `_Unwind_Exception`: the language's header of an exception object.
#[repr(C)]
pub struct Exception {
    pub class: u64,
    pub cleanup: Option<unsafe extern "C" fn(ReasonCode, *mut Exception)>,
    /// The CFA of the handler's frame, found by the search phase.
    pub handler_cfa: u64,
    pub private2: u64,
}

type Personality =
    unsafe extern "C" fn(i32, Action, u64, *mut Exception, *mut Context) -> ReasonCode;

/// Ends the program: the description of the frame at `pc` cannot be followed.
fn fatal(e: FrameError) -> ! {
    use core::fmt::Write;
    let mut text = Line {
        bytes: [0; 512],
        len: 0,
    };
    let pc = match e {
        FrameError::NoFrameInformation(pc)
        | FrameError::Malformed(pc, _)
        | FrameError::Unsupported(pc, _)
        | FrameError::NoProgress(pc) => pc,
    };
    let _ = write!(
        text,
        "fatal runtime error: cannot unwind through the code at {pc:#x}"
    );
    // the function's name, from the executable's symbol table
    let mut name = [0u8; 160];
    // SAFETY: the system call writes at most `name.len()` bytes into `name`.
    let n = unsafe { crate::machine::__vliw_sys_symbolize(pc, name.as_mut_ptr(), name.len()) };
    if n > 0 {
        let shown = &name[..(n as usize).min(name.len())];
        let _ = write!(text, " ({})", core::str::from_utf8(shown).unwrap_or("?"));
    }
    let _ = match e {
        FrameError::NoFrameInformation(_) => write!(
            text,
            ": it has no call-frame information (a hand-written function without CFI directives?)\n"
        ),
        FrameError::Malformed(_, err) => {
            write!(text, ": malformed call-frame information ({err})\n")
        }
        FrameError::Unsupported(_, what) => write!(text, ": {what} is not supported\n"),
        FrameError::NoProgress(_) => write!(
            text,
            ": its call-frame information gives a caller that is not above it on the stack (CFI directives that do not describe the frame?)\n"
        ),
    };
    // SAFETY: a plain write of the message, then the end of the program.
    unsafe {
        crate::machine::__vliw_sys_write(2, text.bytes.as_ptr(), text.len);
        crate::machine::__vliw_sys_exit(STATUS_UNWIND_ERROR)
    }
}

/// A message built without the allocator (which may be what is failing).
struct Line {
    bytes: [u8; 512],
    len: usize,
}

impl core::fmt::Write for Line {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let n = s.len().min(self.bytes.len() - self.len);
        self.bytes[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

fn sections() -> Sections {
    Sections::load().unwrap_or_else(|e| fatal(e))
}

/// Fills in what the personality routine may ask about `frame`.
fn describe(ctx: &mut Context, frame: &frames::Frame) {
    ctx.cfa = frame.cfa;
    ctx.start = frame.start;
    ctx.lsda = frame.lsda.unwrap_or(0);
}

/// The cleanup phase from the frame of `ctx` up to the handler's.
fn cleanup_phase(sections: &Sections, mut ctx: Context, exception: *mut Exception) -> ReasonCode {
    // SAFETY: the caller's exception object.
    let (class, handler) = unsafe { ((*exception).class, (*exception).handler_cfa) };
    loop {
        let (frame, caller) = match step(sections, &ctx) {
            Ok(x) => x,
            Err(e) => fatal(e),
        };
        let is_handler = frame.cfa == handler;
        if let Some(p) = frame.personality {
            describe(&mut ctx, &frame);
            // SAFETY: the CIE names the routine; it follows the ABI.
            let personality: Personality = unsafe { core::mem::transmute(p as usize) };
            let actions = UA_CLEANUP_PHASE | if is_handler { UA_HANDLER_FRAME } else { 0 };
            match unsafe { personality(1, actions, class, exception, &mut ctx) } {
                URC_INSTALL_CONTEXT => ctx.restore(),
                URC_CONTINUE_UNWIND if !is_handler => {}
                _ => return URC_FATAL_PHASE2_ERROR,
            }
        }
        match caller {
            Some(c) if !is_handler => ctx = c,
            _ => return URC_FATAL_PHASE2_ERROR,
        }
    }
}

/// `_Unwind_RaiseException`: returns only if no frame handles the exception
/// (`_URC_END_OF_STACK`) or a personality routine fails.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _Unwind_RaiseException(exception: *mut Exception) -> ReasonCode {
    let mut start = Context::empty();
    // SAFETY: this function's frame stays active while `start` is used.
    unsafe { __vliw_unwind_capture(&mut start) };
    let sections = sections();
    // SAFETY: the caller's exception object.
    let class = unsafe { (*exception).class };
    let mut ctx = start.clone();
    loop {
        let (frame, caller) = match step(&sections, &ctx) {
            Ok(x) => x,
            Err(e) => fatal(e),
        };
        if let Some(p) = frame.personality {
            describe(&mut ctx, &frame);
            // SAFETY: as in the cleanup phase.
            let personality: Personality = unsafe { core::mem::transmute(p as usize) };
            match unsafe { personality(1, UA_SEARCH_PHASE, class, exception, &mut ctx) } {
                URC_HANDLER_FOUND => {
                    // SAFETY: the caller's exception object.
                    unsafe { (*exception).handler_cfa = frame.cfa };
                    return cleanup_phase(&sections, start, exception);
                }
                URC_CONTINUE_UNWIND => {}
                _ => return URC_FATAL_PHASE1_ERROR,
            }
        }
        match caller {
            Some(c) => ctx = c,
            None => return URC_END_OF_STACK,
        }
    }
}

/// `_Unwind_Resume`: called by a landing pad that ran its cleanups, continues the
/// cleanup phase from its frame.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _Unwind_Resume(exception: *mut Exception) -> ! {
    let mut start = Context::empty();
    // SAFETY: as in `_Unwind_RaiseException`.
    unsafe { __vliw_unwind_capture(&mut start) };
    let sections = sections();
    cleanup_phase(&sections, start, exception);
    let text = "fatal runtime error: _Unwind_Resume: the cleanup phase failed\n";
    // SAFETY: a plain write of the message, then the end of the program.
    unsafe {
        crate::machine::__vliw_sys_write(2, text.as_ptr(), text.len());
        crate::machine::__vliw_sys_exit(STATUS_UNWIND_ERROR)
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn _Unwind_DeleteException(exception: *mut Exception) {
    // SAFETY: the exception's own cleanup routine, as the ABI says.
    unsafe {
        if let Some(cleanup) = (*exception).cleanup {
            cleanup(URC_FOREIGN_EXCEPTION_CAUGHT, exception);
        }
    }
}
const URC_FOREIGN_EXCEPTION_CAUGHT: ReasonCode = 1;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn _Unwind_GetGR(ctx: *mut Context, index: i32) -> u64 {
    // SAFETY: a context the unwinder passed.
    unsafe { (*ctx).regs.get(index as usize).copied().unwrap_or(0) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn _Unwind_SetGR(ctx: *mut Context, index: i32, value: u64) {
    if (0..PRED as i32).contains(&index) {
        // SAFETY: as above.
        unsafe { (*ctx).regs[index as usize] = value };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn _Unwind_GetIP(ctx: *mut Context) -> u64 {
    // SAFETY: as above.
    unsafe { (*ctx).regs[IP] }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn _Unwind_GetIPInfo(ctx: *mut Context, before_insn: *mut i32) -> u64 {
    // SAFETY: as above; every address is a return address (no signal frames).
    unsafe {
        if !before_insn.is_null() {
            *before_insn = 0;
        }
        (*ctx).regs[IP]
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn _Unwind_SetIP(ctx: *mut Context, ip: u64) {
    // SAFETY: as above.
    unsafe { (*ctx).regs[IP] = ip };
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn _Unwind_GetCFA(ctx: *mut Context) -> u64 {
    // SAFETY: as above.
    unsafe { (*ctx).cfa }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn _Unwind_GetLanguageSpecificData(ctx: *mut Context) -> u64 {
    // SAFETY: as above.
    unsafe { (*ctx).lsda }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn _Unwind_GetRegionStart(ctx: *mut Context) -> u64 {
    // SAFETY: as above.
    unsafe { (*ctx).start }
}

#[unsafe(no_mangle)]
pub extern "C" fn _Unwind_GetTextRelBase(_ctx: *mut Context) -> u64 {
    0
}

#[unsafe(no_mangle)]
pub extern "C" fn _Unwind_GetDataRelBase(_ctx: *mut Context) -> u64 {
    0
}

#[unsafe(no_mangle)]
pub extern "C" fn _Unwind_FindEnclosingFunction(pc: u64) -> u64 {
    match Sections::load() {
        Ok(s) => frames::enclosing_function(&s, pc).unwrap_or(0),
        Err(_) => 0,
    }
}

type TraceFn = unsafe extern "C" fn(*mut Context, *mut core::ffi::c_void) -> ReasonCode;

/// `_Unwind_Backtrace`: calls `trace` for each frame from this function's caller
/// outwards, until the outermost frame, a frame without call-frame information, or
/// a `trace` result other than `_URC_NO_REASON`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn _Unwind_Backtrace(
    trace: TraceFn,
    arg: *mut core::ffi::c_void,
) -> ReasonCode {
    let mut here = Context::empty();
    // SAFETY: as in `_Unwind_RaiseException`.
    unsafe { __vliw_unwind_capture(&mut here) };
    let Ok(sections) = Sections::load() else {
        return URC_FATAL_PHASE1_ERROR;
    };
    // this function's own frame is not reported
    let mut ctx = match step(&sections, &here) {
        Ok((_, Some(caller))) => caller,
        Ok((_, None)) | Err(_) => return URC_END_OF_STACK,
    };
    loop {
        let (frame, caller) = match step(&sections, &ctx) {
            Ok(x) => x,
            Err(_) => return URC_END_OF_STACK,
        };
        describe(&mut ctx, &frame);
        // SAFETY: the caller's callback.
        if unsafe { trace(&mut ctx, arg) } != URC_NO_REASON {
            return URC_FATAL_PHASE1_ERROR;
        }
        match caller {
            Some(c) => ctx = c,
            None => return URC_END_OF_STACK,
        }
    }
}
