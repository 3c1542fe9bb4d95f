//! Files and directories: hermit's calls over the simulator's file system calls
//! (docs/isa.md §7, *Files*), which reach the host directories that `vliw-run
//! --dir HOST[::GUEST]` maps, and nothing else (without `--dir` every path is
//! `ENOENT`). Paths are resolved by the simulator, relative ones against `/` (what
//! std's `env::current_dir()` says on hermit). Read and write of a descriptor are
//! `io.rs`'s `sys_read`/`sys_write`, which the simulator serves for files too.
//!
//! Results are `-errno` on failure (hermit's convention: std's `cvt` makes an
//! `io::Error` of a negative result).

use crate::machine::*;

/// hermit-abi's `O_RDONLY | O_DIRECTORY`.
const O_RDONLY: i32 = 0;
const O_DIRECTORY: i32 = 0o200000;

/// hermit-abi's `timespec`.
#[repr(C)]
pub struct Timespec {
    tv_sec: i64,
    tv_nsec: i32,
}

/// hermit-abi's `stat`, which std's hermit layer reads.
#[repr(C)]
pub struct Stat {
    st_dev: u64,
    st_ino: u64,
    st_nlink: u64,
    st_mode: u32,
    st_uid: u32,
    st_gid: u32,
    st_rdev: u64,
    st_size: i64,
    st_blksize: i64,
    st_blocks: i64,
    st_atim: Timespec,
    st_mtim: Timespec,
    st_ctim: Timespec,
}

/// Fills hermit's `stat` from the simulator's record of 16 words.
unsafe fn fill(result: i32, words: &[u64; 16], stat: *mut Stat) -> i32 {
    if result < 0 {
        return result;
    }
    let time = |sec: u64, nsec: u64| Timespec {
        tv_sec: sec as i64,
        tv_nsec: nsec as i32,
    };
    let w = words;
    // SAFETY: std passes a valid `stat`.
    unsafe {
        stat.write(Stat {
            st_dev: w[0],
            st_ino: w[1],
            st_nlink: w[2],
            st_mode: w[3] as u32,
            st_uid: w[4] as u32,
            st_gid: w[5] as u32,
            st_rdev: w[6],
            st_size: w[7] as i64,
            st_blksize: w[8] as i64,
            st_blocks: w[9] as i64,
            st_atim: time(w[10], w[11]),
            st_mtim: time(w[12], w[13]),
            st_ctim: time(w[14], w[15]),
        });
    }
    0
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_open(name: *const u8, flags: i32, mode: i32) -> i32 {
    // SAFETY: the simulator checks the string (-EFAULT).
    unsafe { __vliw_sys_open(name, flags, mode) }
}

/// Deprecated in hermit-abi (std uses `open` with `O_DIRECTORY`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_opendir(name: *const u8) -> i32 {
    unsafe { sys_open(name, O_RDONLY | O_DIRECTORY, 0) }
}

/// Closing a standard descriptor is allowed and does nothing.
#[unsafe(no_mangle)]
pub extern "C" fn sys_close(fd: i32) -> i32 {
    // SAFETY: no memory is involved.
    unsafe { __vliw_sys_close(fd) }
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_lseek(fd: i32, offset: isize, whence: i32) -> isize {
    // SAFETY: no memory is involved.
    unsafe { __vliw_sys_lseek(fd, offset, whence) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_fstat(fd: i32, stat: *mut Stat) -> i32 {
    let mut words = [0u64; 16];
    // SAFETY: a valid buffer; std passes a valid `stat`.
    unsafe { fill(__vliw_sys_fstat(fd, &mut words), &words, stat) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_stat(name: *const u8, stat: *mut Stat) -> i32 {
    let mut words = [0u64; 16];
    // SAFETY: as for fstat; the simulator checks the string.
    unsafe { fill(__vliw_sys_stat(name, &mut words), &words, stat) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_lstat(name: *const u8, stat: *mut Stat) -> i32 {
    let mut words = [0u64; 16];
    // SAFETY: as for stat.
    unsafe { fill(__vliw_sys_lstat(name, &mut words), &words, stat) }
}

/// The simulator writes hermit's (and Linux's) `dirent64` records, 8-byte aligned.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_getdents64(fd: i32, dirp: *mut u8, count: usize) -> i64 {
    // SAFETY: the simulator checks the buffer.
    unsafe { __vliw_sys_getdents(fd, dirp, count) as i64 }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_mkdir(name: *const u8, mode: u32) -> i32 {
    // SAFETY: the simulator checks the string.
    unsafe { __vliw_sys_mkdir(name, mode) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_rmdir(name: *const u8) -> i32 {
    // SAFETY: as for mkdir.
    unsafe { __vliw_sys_rmdir(name) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_unlink(name: *const u8) -> i32 {
    // SAFETY: as for mkdir.
    unsafe { __vliw_sys_unlink(name) }
}

/// Not in hermit-abi: std's `fs::rename` calls it on this target (sysroot patch
/// 0005).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_rename(old: *const u8, new: *const u8) -> i32 {
    // SAFETY: as for mkdir.
    unsafe { __vliw_sys_rename(old, new) }
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_fsync(fd: i32) -> i32 {
    // SAFETY: no memory is involved.
    unsafe { __vliw_sys_fsync(fd) }
}
