//! The host half of the no_sysroot runtime (tests/no_sysroot/README.md).
//!
//! A test program and mini_core, compiled by rustc's LLVM backend for the host into one
//! static library, export `test_main` and import `vliw_write` and `vliw_exit`. This
//! ordinary std program provides those two functions the way the simulator's system
//! calls behave (docs/isa.md §7: `write` and `exit`), and runs `test_main`.
//!
//! The static library is a native library from this crate's point of view: its
//! `#![no_core]` crates never meet std's `core` in one crate graph, so their lang items
//! cannot clash, and their symbols are mangled with their own crate names.

use std::io::Write;

unsafe extern "C" {
    fn test_main() -> i32;
}

const EBADF: isize = 9;
const EIO: isize = 5;

/// System call 1, `write(fd, buf, len)`: fd 1 or 2, else `-EBADF`; returns `len`.
/// Unbuffered, as the guest's writes are: each call reaches the file before returning.
#[unsafe(no_mangle)]
pub extern "C" fn vliw_write(fd: i32, ptr: *const u8, len: usize) -> isize {
    if len == 0 {
        return if fd == 1 || fd == 2 { 0 } else { -EBADF };
    }
    // SAFETY: the guest passes a buffer it owns, as the system call requires.
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len) };
    let result = match fd {
        1 => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes).and_then(|()| out.flush())
        }
        2 => std::io::stderr().lock().write_all(bytes),
        _ => return -EBADF,
    };
    match result {
        Ok(()) => len as isize,
        Err(_) => -EIO,
    }
}

/// System call 0, `exit(code)`: the status is `code & 0xff` on the host as well.
#[unsafe(no_mangle)]
pub extern "C" fn vliw_exit(code: i32) -> ! {
    std::process::exit(code)
}

fn main() {
    // SAFETY: test_main takes no arguments and returns the exit code.
    let code = unsafe { test_main() };
    vliw_exit(code)
}
