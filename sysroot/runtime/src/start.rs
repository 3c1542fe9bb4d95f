//! Program start-up: `_start` (crt0.s) calls `__vliw_rt_start` with the simulator's
//! start-up registers, which gives the main thread its thread-local storage and
//! enters std's `runtime_entry` (std/src/sys/pal/hermit/mod.rs): that stores the
//! arguments and environment, calls `main`, runs the thread-local destructors and
//! exits with `main`'s status.

use core::ffi::c_char;

use crate::machine::__vliw_set_tp;
use crate::thread::new_tls_block;

unsafe extern "C" {
    fn runtime_entry(argc: i32, argv: *const *const c_char, env: *const *const c_char) -> !;
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn __vliw_rt_start(
    argc: i32,
    argv: *const *const c_char,
    env: *const *const c_char,
) -> ! {
    let tls = new_tls_block();
    if tls.is_null() {
        crate::io::fatal("cannot allocate the main thread's thread-local storage");
    }
    // SAFETY: before any thread-local access; the block lives as long as the program.
    unsafe {
        __vliw_set_tp(tls);
        runtime_entry(argc, argv, env)
    }
}
