//! Clocks and sleeping. The monotonic clock is the simulator's cycle counter as
//! nanoseconds (1 GHz), the real-time clock the host's (0 under `vliw-run --seed`,
//! for reproducible runs). A sleep blocks the thread in the simulator until the
//! monotonic clock reaches its end: the other threads run meanwhile, and when
//! every thread sleeps or waits with a timeout the simulator advances both clocks
//! to the earliest deadline instead of spending cycles, so that a program observes
//! the time it asked to sleep.

use crate::errno::EINVAL;
use crate::machine::{
    __vliw_sys_clock, __vliw_sys_sleep, CLOCK_CYCLES_NS, CLOCK_HOST_REALTIME_NS,
};

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

fn monotonic_ns() -> i64 {
    // SAFETY: a system call without memory arguments.
    unsafe { __vliw_sys_clock(CLOCK_CYCLES_NS) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_clock_gettime(clock: i32, tp: *mut Timespec) -> i32 {
    let ns = match clock {
        CLOCK_MONOTONIC => monotonic_ns(),
        // SAFETY: as above.
        CLOCK_REALTIME => unsafe { __vliw_sys_clock(CLOCK_HOST_REALTIME_NS) },
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

fn sleep_ns(ns: u64) {
    // SAFETY: a system call without memory arguments.
    unsafe { __vliw_sys_sleep(ns) };
}

#[unsafe(no_mangle)]
pub extern "C" fn sys_usleep(usecs: u64) {
    sleep_ns(usecs.saturating_mul(1000).min(i64::MAX as u64));
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn sys_nanosleep(req: *const Timespec) -> i32 {
    if req.is_null() {
        return -EINVAL;
    }
    // SAFETY: std passes a valid timespec.
    let req = unsafe { &*req };
    sleep_ns(duration_ns(req).max(0) as u64);
    0
}

/// A futex wait's timeout as the nanoseconds to wait from now: relative, or until
/// an absolute monotonic time.
pub fn timeout_ns(timeout: &Timespec, flags: u32) -> u64 {
    let ns = duration_ns(timeout);
    let ns = if flags & FUTEX_RELATIVE_TIMEOUT != 0 {
        ns
    } else {
        ns.saturating_sub(monotonic_ns())
    };
    // -1 would mean no timeout
    ns.clamp(0, i64::MAX) as u64
}

fn duration_ns(t: &Timespec) -> i64 {
    t.tv_sec
        .saturating_mul(NANOS)
        .saturating_add(t.tv_nsec as i64)
}
