//! Standard input and output: file descriptors 0, 1 and 2 are the simulator's; the
//! simulator reads and writes the descriptors of open files (`fs.rs`) through the
//! same calls.

use crate::machine::{__vliw_sys_exit, __vliw_sys_read, __vliw_sys_write};

#[repr(C)]
pub struct IoVec {
    base: *mut u8,
    len: usize,
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_write(fd: i32, buf: *const u8, len: usize) -> isize {
    // SAFETY: the simulator checks the buffer and returns -EFAULT for a bad one.
    unsafe { __vliw_sys_write(fd, buf, len) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_read(fd: i32, buf: *mut u8, len: usize) -> isize {
    // SAFETY: as for write.
    unsafe { __vliw_sys_read(fd, buf, len) }
}

/// Writes the buffers in order; stops at the first short write or error, as
/// `writev` may.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_writev(fd: i32, iov: *const IoVec, count: usize) -> isize {
    let mut total = 0isize;
    for i in 0..count {
        // SAFETY: std passes `count` valid iovecs.
        let v = unsafe { &*iov.add(i) };
        let n = unsafe { sys_write(fd, v.base, v.len) };
        if n < 0 {
            return if total > 0 { total } else { n };
        }
        total += n;
        if (n as usize) < v.len {
            break;
        }
    }
    total
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_readv(fd: i32, iov: *const IoVec, count: usize) -> isize {
    let mut total = 0isize;
    for i in 0..count {
        // SAFETY: std passes `count` valid iovecs.
        let v = unsafe { &*iov.add(i) };
        let n = unsafe { sys_read(fd, v.base, v.len) };
        if n < 0 {
            return if total > 0 { total } else { n };
        }
        total += n;
        if (n as usize) < v.len {
            break;
        }
    }
    total
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_isatty(_fd: i32) -> i32 {
    0
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_exit(status: i32) -> ! {
    // SAFETY: the system call ends the run.
    unsafe { __vliw_sys_exit(status) }
}

/// `process::abort`, a panic while panicking, and the end of every panic of a
/// program built with `-Cpanic=abort`: status 134, as a host process that dies of
/// SIGABRT. (A panic of a `panic=unwind` program unwinds out of `main`, and std
/// exits with status 101.)
#[unsafe(no_mangle)]
pub extern "C" fn sys_abort() -> ! {
    sys_exit(134)
}

/// An error of the runtime itself: a message on stderr and status 134.
pub fn fatal(message: &str) -> ! {
    let prefix = b"vliw runtime: ";
    // SAFETY: valid buffers.
    unsafe {
        __vliw_sys_write(2, prefix.as_ptr(), prefix.len());
        __vliw_sys_write(2, message.as_ptr(), message.len());
        __vliw_sys_write(2, b"\n".as_ptr(), 1);
        __vliw_sys_exit(134)
    }
}
