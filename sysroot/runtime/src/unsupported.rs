//! What the machine does not have: sockets, polling, descriptor duplication and
//! control. Each call fails with `ENOSYS` ("function not implemented"), which std
//! reports as an `io::Error` (kind `Uncategorized`, hermit's mapping of that
//! errno); none crashes. (Processes and pipes are `Unsupported` in std's hermit
//! layer itself; files are `fs.rs`.)

use crate::errno::ENOSYS;

#[unsafe(no_mangle)]
pub extern "C" fn sys_dup(_fd: i32) -> i32 {
    -ENOSYS
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
