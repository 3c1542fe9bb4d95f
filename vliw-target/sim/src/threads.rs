//! Guest threads: their saved state, what they wait for, and what each has run.
//!
//! The machine has one core. The simulator keeps the architectural state of every
//! thread that is not running (general and predicate registers, their ready cycles
//! and the next bundle) and switches between threads on the thread system calls
//! (`vliw_isa::abi::syscall::SPAWN`..`GETTID`) and when a thread has run for a
//! quantum while another is ready (`Simulator` in `simulator.rs` does the
//! switching). A switch first drains the outgoing thread's pending results (the
//! cycle advances to the last of their ready cycles, counted as stall cycles of
//! that thread), so no value in flight crosses threads; nothing else is charged.
//!
//! Threads are numbered from 1 (the thread the program starts in) in the order
//! they are spawned; numbers are never reused. The ready threads wait in a queue:
//! without `--seed` the next thread is the first of the queue and every slice is a
//! quantum long (round robin); with a seed, a generator seeded from it (not the
//! guest's `random` generator) picks the next thread among the ready ones and each
//! slice's length between half and one and a half quanta. Either way a run is
//! deterministic.

use crate::memory::Memory;
use crate::predecode::REG_FILE;
use crate::unwind_check::FrameSections;
use gimli::{
    BaseAddresses, CfaRule, EhFrame, EhFrameHdr, LittleEndian, Register, RegisterRule,
    UnwindContext, UnwindSection,
};
use vliw_isa::abi::dwarf;

/// Default length of a thread's slice, in cycles (`vliw-run --quantum`).
pub const DEFAULT_QUANTUM: u64 = 100_000;
/// The most threads that may be alive (not yet ended) at once.
pub const MAX_LIVE_THREADS: usize = 4096;

/// What a blocked thread waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wait {
    /// `futex_wait` on the word at `addr`, until a wake or the deadline (monotonic
    /// nanoseconds).
    Futex { addr: u64, deadline: Option<u64> },
    /// `join` of the thread with this id.
    Join(u32),
    /// `sleep` until the deadline.
    Sleep { deadline: u64 },
}

impl Wait {
    pub fn deadline(self) -> Option<u64> {
        match self {
            Wait::Futex { deadline, .. } => deadline,
            Wait::Sleep { deadline } => Some(deadline),
            Wait::Join(_) => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    Running,
    Ready,
    /// Blocked since `seq` (the order of blocking: futex wakes go to the longest
    /// waiting first), in the system call of the bundle at `bundle`.
    Blocked {
        wait: Wait,
        seq: u64,
        bundle: u64,
    },
    Finished,
}

/// The registers of a thread that is not running.
pub(crate) struct Saved {
    pub regs: [u64; REG_FILE],
    pub ready: [u64; REG_FILE],
    /// The bundle it continues at (an index into the predecoded code).
    pub pc: u32,
}

/// What a thread ran: the cycles and counts of its slices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreadStats {
    pub tid: u32,
    /// Cycles of its slices: its bundles, their stalls and branch penalties, and
    /// the drain of its pending results when it was switched out.
    pub cycles: u64,
    pub bundles: u64,
    pub ops: u64,
    pub stalls: u64,
    /// Times it was switched in.
    pub slices: u64,
}

pub(crate) struct Thread {
    pub tid: u32,
    pub state: State,
    /// `Some` while the thread is not running (dropped when it has finished).
    pub saved: Option<Box<Saved>>,
    /// Whether the result of the system call it blocked in goes to r3 (a later
    /// slot of that bundle may write r3 instead, docs/isa.md §4).
    pub writes_r3: bool,
    pub stats: ThreadStats,
    /// The base of the stack the simulator mapped for it (not for thread 1, whose
    /// stack is the program's), unmapped when it ends; the guard region below it
    /// stays (`STACK_GUARD_SIZE` bytes), and the next thread's stack lies below.
    pub stack_base: Option<u64>,
}

impl Thread {
    pub fn new(tid: u32, saved: Option<Box<Saved>>) -> Thread {
        Thread {
            tid,
            state: if saved.is_some() {
                State::Ready
            } else {
                State::Running
            },
            saved,
            writes_r3: true,
            stack_base: None,
            stats: ThreadStats {
                tid,
                slices: u64::from(tid == 1),
                ..ThreadStats::default()
            },
        }
    }
}

/// The return addresses of the frames of a thread stopped at `pc` with registers
/// `regs` (`r0`..`r63` first), by its call-frame information: `pc` first, then
/// each caller's return address, at most `max` in all. Stops at the outermost
/// frame, at a function without an FDE, or at anything unreadable.
pub(crate) fn backtrace(
    sections: FrameSections,
    mem: &Memory,
    regs: &[u64],
    pc: u64,
    max: usize,
) -> Vec<u64> {
    let mut out = vec![pc];
    let (Some(eh_frame), Some(hdr)) = (
        mem.slice(sections.eh_frame.0, sections.eh_frame.1),
        mem.slice(sections.eh_frame_hdr.0, sections.eh_frame_hdr.1),
    ) else {
        return out;
    };
    let bases = BaseAddresses::default()
        .set_eh_frame_hdr(sections.eh_frame_hdr.0)
        .set_eh_frame(sections.eh_frame.0);
    let Ok(hdr) = EhFrameHdr::new(hdr, LittleEndian).parse(&bases, 8) else {
        return out;
    };
    let Some(table) = hdr.table() else {
        return out;
    };
    let eh = EhFrame::new(eh_frame, LittleEndian);
    let mut ctx = UnwindContext::new();
    let mut gprs: Vec<u64> = regs[..64].to_vec();
    let mut at = pc;
    while out.len() < max {
        let Ok(fde) = table.fde_for_address(&eh, &bases, at, EhFrame::cie_from_offset) else {
            break;
        };
        let Ok(row) = fde.unwind_info_for_address(&eh, &bases, &mut ctx, at) else {
            break;
        };
        let row = row.clone();
        let cfa = match row.cfa() {
            CfaRule::RegisterAndOffset { register, offset } if register.0 < 64 => {
                gprs[register.0 as usize].wrapping_add(*offset as u64)
            }
            _ => break,
        };
        let mut next = gprs.clone();
        for (r, value) in next.iter_mut().enumerate() {
            match row.register(Register(r as u16)) {
                Some(RegisterRule::Offset(o)) => match mem.read(cfa.wrapping_add(o as u64), 8) {
                    Some(v) => *value = v,
                    None => return out,
                },
                Some(RegisterRule::Undefined) if r == dwarf::RETURN_ADDRESS as usize => {
                    return out;
                }
                _ => {}
            }
        }
        next[vliw_isa::Gpr::SP.num() as usize] = cfa;
        let ra = next[dwarf::RETURN_ADDRESS as usize];
        if ra == 0 {
            break;
        }
        out.push(ra);
        gprs = next;
        at = ra - 1;
    }
    out
}
