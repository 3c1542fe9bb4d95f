//! What the machine does not have: files, directories, sockets. Each call fails
//! with `ENOSYS` ("function not implemented"), which std reports as an
//! `io::Error` (kind `Uncategorized`, hermit's mapping of that errno); none
//! crashes. (Processes and pipes are `Unsupported` in std's hermit layer itself.)

use crate::errno::{EBADF, ENOSYS};

#[unsafe(no_mangle)]
pub extern "C" fn sys_open(_name: *const u8, _flags: i32, _mode: i32) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_opendir(_name: *const u8) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_unlink(_name: *const u8) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_rmdir(_name: *const u8) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_mkdir(_name: *const u8, _mode: u32) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_stat(_name: *const u8, _stat: *mut u8) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_lstat(_name: *const u8, _stat: *mut u8) -> i32 {
    -ENOSYS
}

/// The standard descriptors exist but are not files.
#[unsafe(no_mangle)]
pub extern "C" fn sys_fstat(fd: i32, _stat: *mut u8) -> i32 {
    if (0..=2).contains(&fd) {
        -ENOSYS
    } else {
        -EBADF
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_getdents64(_fd: i32, _dirp: *mut u8, _count: usize) -> i64 {
    -(ENOSYS as i64)
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_lseek(_fd: i32, _offset: isize, _whence: i32) -> isize {
    -(ENOSYS as isize)
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_fsync(_fd: i32) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_dup(_fd: i32) -> i32 {
    -ENOSYS
}

/// Closing a standard descriptor is allowed and does nothing.
#[unsafe(no_mangle)]
pub extern "C" fn sys_close(fd: i32) -> i32 {
    if (0..=2).contains(&fd) { 0 } else { -EBADF }
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_fcntl(_fd: i32, _cmd: i32, _arg: i32) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_ioctl(_fd: i32, _cmd: i32, _argp: *mut u8) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_poll(_fds: *mut u8, _nfds: usize, _timeout: i32) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_eventfd(_initval: u64, _flags: i16) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_socket(_domain: i32, _type: i32, _protocol: i32) -> i32 {
    -ENOSYS
}
