//! What the machine does not have: sockets, name lookup, polling, descriptor
//! duplication and control. Each call fails with `ENOSYS` ("function not
//! implemented"), which std reports as an `io::Error` (kind `Uncategorized`,
//! hermit's mapping of that errno), and a name lookup fails as std's "failed to
//! lookup address information"; none crashes. Every socket call of the hermit ABI
//! that std refers to is here, so that a program using `std::net` links (its calls
//! then fail at run time, as on a machine without a network). (Processes and pipes are `Unsupported` in std's hermit
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

#[unsafe(no_mangle)]
pub extern "C" fn sys_accept(_s: i32, _addr: *mut u8, _addrlen: *mut u32) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_bind(_s: i32, _name: *const u8, _namelen: u32) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_connect(_s: i32, _name: *const u8, _namelen: u32) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_listen(_s: i32, _backlog: i32) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_recv(_s: i32, _buf: *mut u8, _len: usize, _flags: i32) -> isize {
    -(ENOSYS as isize)
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_recvfrom(
    _s: i32,
    _buf: *mut u8,
    _len: usize,
    _flags: i32,
    _addr: *mut u8,
    _addrlen: *mut u32,
) -> isize {
    -(ENOSYS as isize)
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_send(_s: i32, _mem: *const u8, _len: usize, _flags: i32) -> isize {
    -(ENOSYS as isize)
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_sendto(
    _s: i32,
    _mem: *const u8,
    _len: usize,
    _flags: i32,
    _to: *const u8,
    _tolen: u32,
) -> isize {
    -(ENOSYS as isize)
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_shutdown(_s: i32, _how: i32) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_shutdown_socket(_s: i32, _how: i32) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_getpeername(_s: i32, _name: *mut u8, _namelen: *mut u32) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_getsockname(_s: i32, _name: *mut u8, _namelen: *mut u32) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_getsockopt(
    _s: i32,
    _level: i32,
    _optname: i32,
    _optval: *mut u8,
    _optlen: *mut u32,
) -> i32 {
    -ENOSYS
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_setsockopt(
    _s: i32,
    _level: i32,
    _optname: i32,
    _optval: *const u8,
    _optlen: u32,
) -> i32 {
    -ENOSYS
}

/// Name lookup fails (a nonzero `EAI_*` code; std reports any as "failed to lookup
/// address information") and gives no list to free.
#[unsafe(no_mangle)]
pub extern "C" fn sys_getaddrinfo(
    _nodename: *const u8,
    _servname: *const u8,
    _hints: *const u8,
    res: *mut *mut u8,
) -> i32 {
    if !res.is_null() {
        // SAFETY: std passes a valid out-pointer.
        unsafe { *res = core::ptr::null_mut() };
    }
    EAI_FAIL
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_freeaddrinfo(_ai: *mut u8) {}

#[unsafe(no_mangle)]
pub extern "C" fn sys_getaddrbyname(_name: *const u8, _inaddr: *mut u8, _len: usize) -> i32 {
    -ENOSYS
}

/// `EAI_FAIL` of the hermit ABI's `getaddrinfo`: a non-recoverable failure.
const EAI_FAIL: i32 = 4;
