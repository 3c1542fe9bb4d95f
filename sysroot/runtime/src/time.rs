//! Clocks and sleeping. The monotonic clock is the simulator's cycle counter as
//! nanoseconds (1 GHz), the real-time clock the host's (0 under `vliw-run --seed`,
//! for reproducible runs). Sleeping does not burn cycles: it advances both clocks
//! by the time slept, so that a program observes the time it asked to sleep.

use crate::errno::EINVAL;
use crate::machine::{__vliw_sys_clock, CLOCK_CYCLES_NS, CLOCK_HOST_REALTIME_NS};

/// hermit's `timespec`.
#[repr(C)]
pub struct Timespec {
    pub tv_sec: i64,
    pub tv_nsec: i32,
}

const CLOCK_REALTIME: i32 = 1;
const CLOCK_MONOTONIC: i32 = 4;
const FUTEX_RELATIVE_TIMEOUT: u32 = 1;
const NANOS: i64 = 1_000_000_000;

/// Nanoseconds slept so far.
static mut SLEPT_NS: i64 = 0;

fn slept() -> i64 {
    // SAFETY: one thread of execution.
    unsafe { SLEPT_NS }
}

fn sleep_ns(ns: i64) {
    if ns > 0 {
        // SAFETY: one thread of execution.
        unsafe { SLEPT_NS = SLEPT_NS.saturating_add(ns) };
    }
}

fn monotonic_ns() -> i64 {
    // SAFETY: a system call without memory arguments.
    unsafe { __vliw_sys_clock(CLOCK_CYCLES_NS) }.saturating_add(slept())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_clock_gettime(clock: i32, tp: *mut Timespec) -> i32 {
    let ns = match clock {
        CLOCK_MONOTONIC => monotonic_ns(),
        // SAFETY: as above.
        CLOCK_REALTIME => {
            unsafe { __vliw_sys_clock(CLOCK_HOST_REALTIME_NS) }.saturating_add(slept())
        }
        _ => return -EINVAL,
    };
    if tp.is_null() {
        return -EINVAL;
    }
    // SAFETY: std passes a valid timespec.
    unsafe {
        *tp = Timespec {
            tv_sec: ns / NANOS,
            tv_nsec: (ns % NANOS) as i32,
        };
    }
    0
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_usleep(usecs: u64) {
    sleep_ns(usecs.saturating_mul(1000).min(i64::MAX as u64) as i64);
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_nanosleep(req: *const Timespec) -> i32 {
    if req.is_null() {
        return -EINVAL;
    }
    // SAFETY: std passes a valid timespec.
    let req = unsafe { &*req };
    sleep_ns(duration_ns(req));
    0
}

/// A futex wait that times out: relative, or until an absolute monotonic time.
pub fn wait(timeout: &Timespec, flags: u32) {
    let ns = duration_ns(timeout);
    if flags & FUTEX_RELATIVE_TIMEOUT != 0 {
        sleep_ns(ns);
    } else {
        sleep_ns(ns - monotonic_ns());
    }
}

fn duration_ns(t: &Timespec) -> i64 {
    t.tv_sec
        .saturating_mul(NANOS)
        .saturating_add(t.tv_nsec as i64)
}
