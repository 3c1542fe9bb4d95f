//! Guest faults: what went wrong, where, and the exit status `vliw-run` gives it.
//!
//! A fault ends the run. Its message is one line naming the kind, the address
//! involved, the faulting bundle, its enclosing function and, when the executable has
//! line tables, its source line, e.g.
//! `fault: misaligned 8-byte load at 0x20004 in bundle 0x10040 (main+0x40, src/main.rs:12:5)`.

use std::fmt;
use vliw_elf::SourceLocation;

/// What kind of memory access faulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    Load,
    Store,
    /// `cas.*` and `amo*.*`: a read and a write of one location.
    Atomic,
}

impl AccessKind {
    pub fn name(self) -> &'static str {
        match self {
            AccessKind::Load => "load",
            AccessKind::Store => "store",
            AccessKind::Atomic => "atomic",
        }
    }
}

/// A memory access: its kind and size in bytes (1, 2, 4 or 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    pub kind: AccessKind,
    pub size: u8,
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-byte {}", self.size, self.kind.name())
    }
}

/// The kinds of fault. Each has its own exit status (`exit_status`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// The bundle does not decode or breaks the machine's width or unit limits.
    IllegalBundle { reason: String },
    /// Access to an address that is not mapped.
    Unmapped(Access),
    /// A store or atomic to the text segment or read-only data.
    ReadOnly(Access),
    /// Access in the unmapped guard region just below the stack.
    StackOverflow(Access),
    /// Address not a multiple of the access size.
    Misaligned(Access),
    /// Control transfer to an address that is not the start of a bundle in text.
    BadJump,
    /// Execution ran past the last bundle of a text segment.
    FellOffText,
    /// `trap N`.
    Trap(i64),
    /// The bundle would issue at or after the `max_cycles` limit.
    CycleLimit(u64),
    /// Strict mode: a bundle read `register` `cycles` cycles before it was ready.
    LatencyStall { register: String, cycles: u64 },
    /// `--check-unwind`: the call-frame information of the caller of a call does not
    /// unwind to its entry state.
    BadUnwindInfo(String),
    /// Every live guest thread is blocked without a timeout: nothing can wake any.
    Deadlock(Vec<BlockedThread>),
}

/// What a thread of a deadlock waits for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Waiting {
    /// `futex_wait` on the word at this address, which holds `value`.
    Futex { addr: u64, value: u32 },
    /// `join` of this thread.
    Join(u32),
}

/// A thread of a deadlock: its id, what it waits for, the bundle of its system
/// call and that bundle's function, and its frames (`name+0xoff`, innermost first,
/// from the call-frame information; empty without it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockedThread {
    pub tid: u32,
    pub waiting: Waiting,
    pub bundle_address: u64,
    pub function: Option<(String, u64)>,
    pub backtrace: Vec<String>,
}

impl fmt::Display for BlockedThread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let func = FunctionSuffix(self.function.as_ref(), None);
        match self.waiting {
            Waiting::Futex { addr, value } => write!(
                f,
                "thread {} waits on futex {addr:#x} (value {value})",
                self.tid
            )?,
            Waiting::Join(tid) => write!(f, "thread {} joins thread {tid}", self.tid)?,
        }
        write!(f, " in bundle {:#x}{func}", self.bundle_address)
    }
}

impl FaultKind {
    /// The exit status of `vliw-run` for this fault (those of the host signals a
    /// native process would die of, plus our own for the simulator's checks).
    pub fn exit_status(&self) -> i32 {
        match self {
            FaultKind::IllegalBundle { .. } => 132,
            FaultKind::Trap(_) => 134,
            FaultKind::Misaligned(_) => 135,
            FaultKind::Unmapped(_) | FaultKind::ReadOnly(_) => 139,
            FaultKind::BadJump | FaultKind::FellOffText => 141,
            FaultKind::StackOverflow(_) => 142,
            FaultKind::CycleLimit(_) => 143,
            FaultKind::LatencyStall { .. } => 144,
            FaultKind::BadUnwindInfo(_) => 145,
            FaultKind::Deadlock(_) => 146,
        }
    }

    /// A short name of the kind, e.g. for tables.
    pub fn name(&self) -> &'static str {
        match self {
            FaultKind::IllegalBundle { .. } => "illegal bundle",
            FaultKind::Unmapped(_) => "unmapped address",
            FaultKind::ReadOnly(_) => "write to read-only memory",
            FaultKind::StackOverflow(_) => "stack overflow",
            FaultKind::Misaligned(_) => "misaligned access",
            FaultKind::BadJump | FaultKind::FellOffText => "jump outside text",
            FaultKind::Trap(_) => "trap",
            FaultKind::CycleLimit(_) => "cycle limit",
            FaultKind::LatencyStall { .. } => "latency stall",
            FaultKind::BadUnwindInfo(_) => "bad unwind information",
            FaultKind::Deadlock(_) => "deadlock",
        }
    }
}

/// A fault with its context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    /// The faulting data address, or the target of a bad jump (0 when none applies).
    pub address: u64,
    /// The address of the bundle that faulted.
    pub bundle_address: u64,
    /// The symbol enclosing the bundle and the bundle's offset from it.
    pub function: Option<(String, u64)>,
    /// The bundle's source line (DWARF line tables), if known.
    pub source: Option<SourceLocation>,
    /// The thread that faulted, when the program has had more than one.
    pub thread: Option<u32>,
}

impl Fault {
    pub fn exit_status(&self) -> i32 {
        self.kind.exit_status()
    }
}

/// ` (name+0x10, file:line:col)`, ` (name+0x10)`, ` (name)`, ` (file:line:col)` or
/// nothing.
pub(crate) struct FunctionSuffix<'a>(
    pub Option<&'a (String, u64)>,
    pub Option<&'a SourceLocation>,
);

impl fmt::Display for FunctionSuffix<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let source = self.1.map(|s| s.as_line());
        match (self.0, source) {
            (None, None) => Ok(()),
            (None, Some(s)) => write!(f, " ({s})"),
            (Some((name, 0)), None) => write!(f, " ({name})"),
            (Some((name, offset)), None) => write!(f, " ({name}+{offset:#x})"),
            (Some((name, 0)), Some(s)) => write!(f, " ({name}, {s})"),
            (Some((name, offset)), Some(s)) => write!(f, " ({name}+{offset:#x}, {s})"),
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bundle = self.bundle_address;
        let func = FunctionSuffix(self.function.as_ref(), self.source.as_ref());
        let addr = self.address;
        match &self.kind {
            FaultKind::IllegalBundle { reason } => {
                write!(f, "fault: illegal bundle ({reason}) at {bundle:#x}{func}")
            }
            FaultKind::Unmapped(a) => write!(
                f,
                "fault: unmapped {a} at {addr:#x} in bundle {bundle:#x}{func}"
            ),
            FaultKind::ReadOnly(a) => {
                write!(
                    f,
                    "fault: write to read-only memory: {a} at {addr:#x} in bundle {bundle:#x}{func}"
                )
            }
            FaultKind::StackOverflow(a) => write!(
                f,
                "fault: stack overflow: {a} at {addr:#x} below the stack limit in bundle {bundle:#x}{func}"
            ),
            FaultKind::Misaligned(a) => write!(
                f,
                "fault: misaligned {a} at {addr:#x} in bundle {bundle:#x}{func}"
            ),
            FaultKind::BadJump => write!(
                f,
                "fault: jump outside text to {addr:#x} from bundle {bundle:#x}{func}"
            ),
            FaultKind::FellOffText => write!(
                f,
                "fault: jump outside text to {addr:#x} (ran off the end of text) from bundle {bundle:#x}{func}"
            ),
            FaultKind::Trap(code) => write!(f, "fault: trap {code} in bundle {bundle:#x}{func}"),
            FaultKind::CycleLimit(limit) => {
                write!(
                    f,
                    "fault: cycle limit of {limit} cycles reached in bundle {bundle:#x}{func}"
                )
            }
            FaultKind::LatencyStall { register, cycles } => write!(
                f,
                "fault: latency stall: {register} is read {cycles} cycle{} before it is ready in bundle {bundle:#x}{func}",
                if *cycles == 1 { "" } else { "s" }
            ),
            FaultKind::BadUnwindInfo(what) => write!(
                f,
                "fault: bad unwind information at the call in bundle {bundle:#x}{func}: {what}"
            ),
            FaultKind::Deadlock(threads) => {
                write!(f, "fault: deadlock: every thread waits:")?;
                for (k, t) in threads.iter().enumerate() {
                    write!(f, "{}{t}", if k == 0 { " " } else { "; " })?;
                }
                Ok(())
            }
        }?;
        match self.thread {
            Some(tid) if !matches!(self.kind, FaultKind::Deadlock(_)) => {
                write!(f, " in thread {tid}")
            }
            _ => Ok(()),
        }
    }
}

impl std::error::Error for Fault {}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(kind: FaultKind, address: u64) -> Fault {
        Fault {
            kind,
            address,
            bundle_address: 0x10040,
            function: Some(("main".to_string(), 0x40)),
            source: None,
            thread: None,
        }
    }

    #[test]
    fn messages_are_one_line_and_name_the_bundle_and_function() {
        let load8 = Access {
            kind: AccessKind::Load,
            size: 8,
        };
        let store8 = Access {
            kind: AccessKind::Store,
            size: 8,
        };
        let cases = [
            (
                fault(FaultKind::Misaligned(load8), 0x20004),
                "fault: misaligned 8-byte load at 0x20004 in bundle 0x10040 (main+0x40)",
            ),
            (
                fault(FaultKind::BadJump, 0),
                "fault: jump outside text to 0x0 from bundle 0x10040 (main+0x40)",
            ),
            (
                fault(FaultKind::Trap(3), 0),
                "fault: trap 3 in bundle 0x10040 (main+0x40)",
            ),
            (
                fault(FaultKind::CycleLimit(1000), 0),
                "fault: cycle limit of 1000 cycles reached in bundle 0x10040 (main+0x40)",
            ),
            (
                fault(
                    FaultKind::IllegalBundle {
                        reason: "illegal opcode 0x1ff".into(),
                    },
                    0,
                ),
                "fault: illegal bundle (illegal opcode 0x1ff) at 0x10040 (main+0x40)",
            ),
            (
                fault(FaultKind::StackOverflow(store8), 0x7ffe_ff7f_fff8),
                "fault: stack overflow: 8-byte store at 0x7ffeff7ffff8 below the stack limit in bundle 0x10040 (main+0x40)",
            ),
            (
                fault(FaultKind::ReadOnly(store8), 0x10000),
                "fault: write to read-only memory: 8-byte store at 0x10000 in bundle 0x10040 (main+0x40)",
            ),
        ];
        for (fault, text) in cases {
            assert_eq!(fault.to_string(), text);
        }
        let mut f = fault(FaultKind::Trap(-1), 0);
        f.function = None;
        assert_eq!(f.to_string(), "fault: trap -1 in bundle 0x10040");
        f.function = Some(("_start".into(), 0));
        assert_eq!(f.to_string(), "fault: trap -1 in bundle 0x10040 (_start)");
    }

    #[test]
    fn messages_name_the_source_line_when_known() {
        let load8 = Access {
            kind: AccessKind::Load,
            size: 8,
        };
        let mut f = fault(FaultKind::Misaligned(load8), 0x20004);
        f.source = Some(SourceLocation {
            file: "src/main.rs".into(),
            line: 12,
            column: 5,
        });
        assert_eq!(
            f.to_string(),
            "fault: misaligned 8-byte load at 0x20004 in bundle 0x10040 (main+0x40, src/main.rs:12:5)"
        );
        f.function = Some(("main".into(), 0));
        assert_eq!(
            f.to_string(),
            "fault: misaligned 8-byte load at 0x20004 in bundle 0x10040 (main, src/main.rs:12:5)"
        );
        f.function = None;
        f.source.as_mut().unwrap().column = 0;
        assert_eq!(
            f.to_string(),
            "fault: misaligned 8-byte load at 0x20004 in bundle 0x10040 (src/main.rs:12)"
        );
        f.kind = FaultKind::IllegalBundle {
            reason: "illegal opcode 0x1ff".into(),
        };
        assert_eq!(
            f.to_string(),
            "fault: illegal bundle (illegal opcode 0x1ff) at 0x10040 (src/main.rs:12)"
        );
    }

    #[test]
    fn every_kind_has_its_own_status() {
        let a = Access {
            kind: AccessKind::Load,
            size: 1,
        };
        let statuses = [
            FaultKind::IllegalBundle {
                reason: String::new(),
            }
            .exit_status(),
            FaultKind::Trap(0).exit_status(),
            FaultKind::Misaligned(a).exit_status(),
            FaultKind::Unmapped(a).exit_status(),
            FaultKind::BadJump.exit_status(),
            FaultKind::StackOverflow(a).exit_status(),
            FaultKind::CycleLimit(0).exit_status(),
            FaultKind::LatencyStall {
                register: "r1".into(),
                cycles: 1,
            }
            .exit_status(),
        ];
        assert_eq!(statuses, [132, 134, 135, 139, 141, 142, 143, 144]);
        assert_eq!(FaultKind::ReadOnly(a).exit_status(), 139);
        assert_eq!(FaultKind::FellOffText.exit_status(), 141);
    }
}
