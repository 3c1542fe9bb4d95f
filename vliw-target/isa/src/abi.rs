//! The calling convention and the memory map of a program, shared by the compiler,
//! the linker, the runtime and the simulator (see `docs/isa.md`).

use crate::reg::{Gpr, Pred};

/// Registers carrying the first eight integer/pointer/float arguments, in order.
pub const ARG_REGS: [u8; 8] = [3, 4, 5, 6, 7, 8, 9, 10];
/// Registers carrying system-call arguments (`syscall`); the result comes back in r3.
pub const SYSCALL_ARG_REGS: [u8; 6] = [3, 4, 5, 6, 7, 8];
/// Registers carrying the first eight result words, in order (further words go to the
/// return area in the caller's frame, docs/isa.md §6).
pub const RET_REGS: [u8; 8] = [3, 4, 5, 6, 7, 8, 9, 10];
/// Registers in which the personality routine hands a landing pad the exception
/// object and the selector (`_Unwind_SetGR`, DWARF registers 3 and 4; GCC's
/// `__builtin_eh_return_data_regno(0)` and `(1)`), docs/isa.md §6.
pub const EXCEPTION_REGS: [u8; 2] = [3, 4];
/// First and last callee-saved general register (inclusive): r32..r62.
pub const CALLEE_SAVED_GPRS: std::ops::RangeInclusive<u8> = 32..=62;
/// Callee-saved predicates: p12..p15.
pub const CALLEE_SAVED_PREDS: std::ops::RangeInclusive<u8> = 12..=15;
/// Stack pointer alignment at every call, in bytes.
pub const STACK_ALIGN: u64 = 16;

pub fn is_callee_saved_gpr(r: Gpr) -> bool {
    CALLEE_SAVED_GPRS.contains(&r.num())
}

pub fn is_callee_saved_pred(p: Pred) -> bool {
    CALLEE_SAVED_PREDS.contains(&p.num())
}

/// Registers a call may clobber: r3..r31 and the link register r63.
pub fn is_caller_saved_gpr(r: Gpr) -> bool {
    (3..=31).contains(&r.num()) || r == Gpr::LR
}

/// DWARF register numbers (call-frame information, `docs/isa.md` §6): `r0`..`r63` are
/// 0..63, `p0`..`p15` are 64..79. A predicate's saved value is a word holding 0 or 1.
pub mod dwarf {
    use crate::reg::{Gpr, Pred};

    /// The number of the first predicate.
    pub const FIRST_PRED: u16 = 64;
    /// The return-address column of every CIE: `lr`, which holds the return address
    /// at a function's entry (as `x30` on AArch64).
    pub const RETURN_ADDRESS: u16 = Gpr::LR.num() as u16;
    /// Number of DWARF registers.
    pub const COUNT: u16 = FIRST_PRED + 16;

    pub fn gpr(r: Gpr) -> u16 {
        u16::from(r.num())
    }

    pub fn pred(p: Pred) -> u16 {
        FIRST_PRED + u16::from(p.num())
    }

    /// The assembly name of a DWARF register number, if it has one.
    pub fn name(n: u16) -> Option<String> {
        match n {
            0..FIRST_PRED => Some(format!("r{n}")),
            FIRST_PRED..COUNT => Some(format!("p{}", n - FIRST_PRED)),
            _ => None,
        }
    }
}

/// Lowest address of the text segment; nothing is mapped below it (null guard).
pub const TEXT_BASE: u64 = 0x1_0000;
/// Page size for segment alignment.
pub const PAGE_SIZE: u64 = 0x1000;
/// The initial stack pointer's upper bound: the stack occupies
/// `[STACK_TOP - stack size, STACK_TOP)` and grows down.
pub const STACK_TOP: u64 = 0x7fff_0000_0000;
/// Default stack size of the simulator.
pub const DEFAULT_STACK_SIZE: u64 = 8 << 20;
/// Unmapped region just below the stack; an access there is a stack overflow.
pub const STACK_GUARD_SIZE: u64 = 1 << 20;

/// System calls: `syscall N`, arguments in r3..r8, result in r3; negative results
/// are `-errno`.
pub mod syscall {
    /// `exit(code)`: ends the program with exit status `code & 0xff`.
    pub const EXIT: i64 = 0;
    /// `write(fd, buf, len) -> written`: fd 1 = stdout, 2 = stderr.
    pub const WRITE: i64 = 1;
    /// `read(fd, buf, len) -> read`: fd 0 = stdin; 0 at end of input.
    pub const READ: i64 = 2;
    /// `brk(addr) -> break`: moves the end of the heap to `addr` when it is valid;
    /// returns the (new or unchanged) break. `brk(0)` asks for the current break.
    pub const BRK: i64 = 3;
    /// `clock(id) -> nanoseconds`: id 0 = monotonic (simulated cycles at 1 GHz),
    /// id 1 = real time since the Unix epoch (host clock, or 0 with a fixed seed).
    pub const CLOCK: i64 = 4;
    /// `random(buf, len) -> len`: fills `buf` with random bytes (seeded on request).
    pub const RANDOM: i64 = 5;
    /// `cycles() -> count`: the simulated cycle counter.
    pub const CYCLES: i64 = 6;
    /// `symbolize(addr, buf, len) -> n`: writes `name+0xoff` of the symbol holding
    /// `addr` (the executable's symbol table, as fault messages name functions) to
    /// the buffer, truncated to `len` bytes; returns the whole text's length, or
    /// `-ENOENT` when no symbol holds `addr`.
    pub const SYMBOLIZE: i64 = 7;

    // Files of the host directories that `vliw-run --dir` maps (docs/isa.md §7,
    // *Files*). Numbers 8..15 are left for other calls.
    /// `open(path, flags, mode) -> fd`: flags `O_*` below; `mode` for a new file.
    pub const OPEN: i64 = 16;
    /// `close(fd) -> 0`.
    pub const CLOSE: i64 = 17;
    /// `lseek(fd, offset, whence) -> offset`: whence `SEEK_SET`, `SEEK_CUR`, `SEEK_END`.
    pub const LSEEK: i64 = 18;
    /// `fstat(fd, buf) -> 0`: writes a `STAT_SIZE`-byte stat record.
    pub const FSTAT: i64 = 19;
    /// `stat(path, buf) -> 0`: follows a final symbolic link.
    pub const STAT: i64 = 20;
    /// `lstat(path, buf) -> 0`: does not.
    pub const LSTAT: i64 = 21;
    /// `getdents(fd, buf, len) -> bytes`: directory entries (`dirent64` records).
    pub const GETDENTS: i64 = 22;
    /// `mkdir(path, mode) -> 0`.
    pub const MKDIR: i64 = 23;
    /// `rmdir(path) -> 0`.
    pub const RMDIR: i64 = 24;
    /// `unlink(path) -> 0`.
    pub const UNLINK: i64 = 25;
    /// `rename(old, new) -> 0`.
    pub const RENAME: i64 = 26;
    /// `fsync(fd) -> 0`.
    pub const FSYNC: i64 = 27;

    /// `open` flags (Linux's and hermit's values).
    pub const O_RDONLY: i64 = 0;
    pub const O_WRONLY: i64 = 1;
    pub const O_RDWR: i64 = 2;
    pub const O_ACCMODE: i64 = 3;
    pub const O_CREAT: i64 = 0o100;
    pub const O_EXCL: i64 = 0o200;
    pub const O_TRUNC: i64 = 0o1000;
    pub const O_APPEND: i64 = 0o2000;
    pub const O_DIRECTORY: i64 = 0o200000;
    pub const SEEK_SET: i64 = 0;
    pub const SEEK_CUR: i64 = 1;
    pub const SEEK_END: i64 = 2;
    /// Bytes of the record `stat` and `fstat` write: 16 little-endian words (dev,
    /// ino, nlink, mode, uid, gid, rdev, size, blksize, blocks, atime, atime_nsec,
    /// mtime, mtime_nsec, ctime, ctime_nsec).
    pub const STAT_SIZE: u64 = 128;
    /// The longest path, its NUL included.
    pub const PATH_MAX: u64 = 4096;
    /// File descriptors are below this: 0, 1, 2 and up to 125 files or directories.
    pub const MAX_FDS: i64 = 128;

    // Threads (docs/isa.md §7, "Threads"): numbers 64 and up, so that the calls
    // of other subsystems (files: 16..=27) have room below them.

    /// First number of the thread calls; 64..=127 are reserved for them.
    pub const THREAD_FIRST: i64 = 64;
    /// `spawn(pc, stack_size, tp, a0, a1) -> tid`: a new thread on a stack of
    /// `stack_size` bytes that the simulator maps (with a guard region below it,
    /// unmapped when the thread ends); it starts at `pc` with `sp` at the top of that
    /// stack, `tp`, `r3 = a0`, `r4 = a1` and every other register 0; it is ready to
    /// run, the caller goes on. `-EINVAL` when `pc` is not a bundle start in text,
    /// `-EAGAIN` when there are too many threads, `-ENOMEM` when the stack cannot
    /// be mapped.
    pub const SPAWN: i64 = 64;
    /// `exit_thread() -> !`: ends the calling thread (its stack is unmapped) and
    /// wakes the threads that join it. When no other thread is left, the run ends with status 0.
    pub const EXIT_THREAD: i64 = 65;
    /// `join(tid) -> 0`: waits until thread `tid` has ended (at once if it has);
    /// `-ESRCH` for no such thread, `-EDEADLK` for the caller itself.
    pub const JOIN: i64 = 66;
    /// `futex_wait(addr, expected, timeout_ns) -> 0`: if the 4-byte word at `addr`
    /// equals the low 32 bits of `expected`, waits until a `futex_wake` of `addr`
    /// (0) or until `timeout_ns` nanoseconds of the monotonic clock have passed
    /// (`-ETIMEDOUT`; `timeout_ns` = -1 waits without a timeout); else `-EAGAIN`.
    /// `-EFAULT` (-EINVAL) when the word is not mapped (not 4-byte aligned).
    pub const FUTEX_WAIT: i64 = 67;
    /// `futex_wake(addr, count) -> woken`: wakes up to `count` threads waiting on
    /// `addr` (all of them for a negative count), the longest waiting first.
    pub const FUTEX_WAKE: i64 = 68;
    /// `yield() -> 0`: lets the other ready threads run first.
    pub const YIELD: i64 = 69;
    /// `sleep(ns) -> 0`: waits until `ns` nanoseconds of the monotonic clock have
    /// passed.
    pub const SLEEP: i64 = 70;
    /// `gettid() -> tid`: the calling thread's id (the first thread is 1).
    pub const GETTID: i64 = 71;
    /// Last number reserved for thread calls.
    pub const THREAD_LAST: i64 = 127;

    // errno values (Linux's, as hermit's).
    pub const EPERM: i64 = 1;
    pub const ENOENT: i64 = 2;
    pub const ESRCH: i64 = 3;
    pub const EIO: i64 = 5;
    pub const EBADF: i64 = 9;
    pub const EAGAIN: i64 = 11;
    pub const ENOMEM: i64 = 12;
    pub const EACCES: i64 = 13;
    pub const EFAULT: i64 = 14;
    pub const EBUSY: i64 = 16;
    pub const EEXIST: i64 = 17;
    pub const EXDEV: i64 = 18;
    pub const ENOTDIR: i64 = 20;
    pub const EISDIR: i64 = 21;
    pub const EINVAL: i64 = 22;
    pub const EMFILE: i64 = 24;
    pub const EFBIG: i64 = 27;
    pub const ENOSPC: i64 = 28;
    pub const ESPIPE: i64 = 29;
    pub const EROFS: i64 = 30;
    pub const EMLINK: i64 = 31;
    pub const EDEADLK: i64 = 35;
    pub const ENAMETOOLONG: i64 = 36;
    pub const ENOSYS: i64 = 38;
    pub const ENOTEMPTY: i64 = 39;
    pub const ELOOP: i64 = 40;
    pub const ETIMEDOUT: i64 = 110;

    pub fn name(number: i64) -> Option<&'static str> {
        Some(match number {
            EXIT => "exit",
            WRITE => "write",
            READ => "read",
            BRK => "brk",
            CLOCK => "clock",
            RANDOM => "random",
            CYCLES => "cycles",
            SYMBOLIZE => "symbolize",
            OPEN => "open",
            CLOSE => "close",
            LSEEK => "lseek",
            FSTAT => "fstat",
            STAT => "stat",
            LSTAT => "lstat",
            GETDENTS => "getdents",
            MKDIR => "mkdir",
            RMDIR => "rmdir",
            UNLINK => "unlink",
            RENAME => "rename",
            FSYNC => "fsync",
            SPAWN => "spawn",
            EXIT_THREAD => "exit_thread",
            JOIN => "join",
            FUTEX_WAIT => "futex_wait",
            FUTEX_WAKE => "futex_wake",
            YIELD => "yield",
            SLEEP => "sleep",
            GETTID => "gettid",
            _ => return None,
        })
    }
}
