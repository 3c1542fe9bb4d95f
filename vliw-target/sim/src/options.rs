//! Run options of the simulator (what `vliw-run`'s flags set).

use crate::fs::DirMapping;
use vliw_isa::MachineConfig;
use vliw_isa::abi::DEFAULT_STACK_SIZE;

/// Default limit of the heap: 1 GiB.
pub const DEFAULT_HEAP_SIZE: u64 = 1 << 30;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Issue width, units, latencies, branch penalty.
    pub machine: MachineConfig,
    /// A latency stall is a fault instead of a delay.
    pub strict: bool,
    /// Fault when a bundle would issue at this cycle or later.
    pub max_cycles: Option<u64>,
    /// Bytes of stack (rounded up to a page).
    pub stack_size: u64,
    /// Bytes the heap may grow to with `brk`.
    pub heap_size: u64,
    /// Seed of the `random` system call's generator; also fixes the real-time
    /// clock at 0. `None`: host entropy and host time.
    pub seed: Option<u64>,
    /// Host directories the guest's file calls reach (`--dir`, `fs.rs`); none: every
    /// path is `-ENOENT`.
    pub dirs: Vec<DirMapping>,
    /// Cycles a guest thread runs before another ready thread gets its turn
    /// (`threads.rs`; with a seed, each slice is between half and 1.5 times this).
    pub quantum: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            machine: MachineConfig::default(),
            strict: false,
            max_cycles: None,
            stack_size: DEFAULT_STACK_SIZE,
            heap_size: DEFAULT_HEAP_SIZE,
            seed: None,
            dirs: Vec::new(),
            quantum: crate::threads::DEFAULT_QUANTUM,
        }
    }
}
