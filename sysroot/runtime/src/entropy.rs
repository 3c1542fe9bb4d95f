//! Random bytes (std's `HashMap` keys, `random`): the simulator's `random` system
//! call, from the host's entropy or, under `vliw-run --seed N`, from a fixed seed.

use crate::machine::__vliw_sys_random;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_read_entropy(buf: *mut u8, len: usize, _flags: u32) -> isize {
    // SAFETY: the simulator checks the buffer.
    unsafe { __vliw_sys_random(buf, len) }
}
