//! The VLIW-64 runtime: std's hermit platform interface (the `sys_*` functions that
//! the `hermit-abi` crate declares) implemented over the simulator's system calls
//! (docs/isa.md §7), and the start-up of a program.
//!
//! std for our target is built, unpatched, with `target_os = "hermit"`: that
//! platform layer reaches the system only through `extern "C"` functions, has no
//! architecture-specific code and keeps exit codes. This crate provides those
//! functions; sysroot/README.md says which parts of std work and which return
//! errors.
//!
//! The simulator runs several guest threads on the machine's one core
//! (`thread.rs`): each has its own stack and thread-local storage; futexes, joins
//! and sleeps block in the simulator, which switches threads.
//!
//! Built by `./y.sh build` after std, against the new sysroot, into
//! `libvliw_rt.a`, which the target specification links into every program
//! (`late-link-args`); `crt0.s` holds what Rust cannot write.

#![no_std]
#![feature(rustc_private)]
#![allow(clippy::missing_safety_doc)]

extern crate gimli;
extern crate std;

mod entropy;
mod fs;
mod heap;
mod io;
mod machine;
mod memory;
mod start;
mod thread;
mod time;
mod unsupported;
pub mod unwind;

/// errno values of hermit's interface (hermit-abi's `errno` module).
mod errno {
    pub const EBADF: i32 = 9;
    pub const EAGAIN: i32 = 11;
    pub const EINVAL: i32 = 22;
    pub const ENOSYS: i32 = 38;
    pub const ETIMEDOUT: i32 = 110;
}

/// hermit's `errno()`: the error of the last failed call that sets it. Our calls
/// return their errors instead (negative results), as hermit's do, so nothing sets
/// it; std only reads it after calls that report errors through their result.
static mut LAST_ERRNO: i32 = 0;

#[unsafe(no_mangle)]
pub extern "C" fn sys_get_errno() -> i32 {
    // SAFETY: never written.
    unsafe { LAST_ERRNO }
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_errno() -> i32 {
    sys_get_errno()
}
