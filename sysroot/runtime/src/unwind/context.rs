//! A frame's registers, as `crt0.s` saves and restores them (81 words: `r0`..`r63`,
//! `p0`..`p15` as 0 or 1, and the address to continue at), with what the unwinder
//! knows of the frame for the personality routine's queries.

/// Index of `sp` (`r1`).
pub const SP: usize = 1;
/// Index of the first predicate.
pub const PRED: usize = 64;
/// Index of the address: a return address into the frame's function, or where
/// `restore` jumps to.
pub const IP: usize = 80;
/// Words of registers.
pub const WORDS: usize = 81;

/// `_Unwind_Context`.
#[repr(C)]
#[derive(Clone)]
pub struct Context {
    pub regs: [u64; WORDS],
    /// The frame's canonical frame address, function start and LSDA (0 if none),
    /// set while a personality routine looks at the frame.
    pub cfa: u64,
    pub start: u64,
    pub lsda: u64,
}

unsafe extern "C" {
    /// Saves the registers as the caller sees them at this call, and its return
    /// address as `ip`. Call it from the function whose frame unwinding starts
    /// from, which stays active while the context is used (a helper that returned
    /// would leave a dead frame behind).
    pub fn __vliw_unwind_capture(ctx: *mut Context);
    fn __vliw_unwind_restore(ctx: *const Context) -> !;
}

impl Context {
    pub const fn empty() -> Context {
        Context {
            regs: [0; WORDS],
            cfa: 0,
            start: 0,
            lsda: 0,
        }
    }

    /// Continues at `regs[IP]` with these registers (the thread pointer kept).
    pub fn restore(&self) -> ! {
        // SAFETY: the registers describe a frame of the running thread (a landing
        // pad's, whose personality routine set the address and arguments).
        unsafe { __vliw_unwind_restore(self) }
    }
}
