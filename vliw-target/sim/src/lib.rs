//! `vliw-sim`: the simulator of the VLIW target.
//!
//! It loads an executable (`loader`, `program`), maps its memory (`memory`),
//! predecodes the text once into bundles of compact operations (`predecode`), and
//! runs them (`simulator`, `exec`) with exact predicate semantics and the
//! interlocked timing of exposed latencies, counting cycles, stalls, nullified
//! operations and taken branches (`stats`). A guest fault ends the run with a
//! one-line message and an exit status of its own (`fault`). System calls
//! (`syscall`) reach the host's streams through the `Io` trait (`io`) and the host
//! directories that `--dir` maps (`fs`). Several guest threads share the one core
//! (`threads`). `cli` is the whole `vliw-run` command.
//!
//! ```no_run
//! use vliw_sim::{CaptureIo, Options, Simulator, load_file};
//! let program = load_file("hello".as_ref()).unwrap();
//! let io = CaptureIo::default();
//! let mut sim = Simulator::new(&program, &Options::default(), &[b"hello".to_vec()], &[], Box::new(io.clone())).unwrap();
//! let outcome = sim.run();
//! println!("{:?} {} {}", outcome, String::from_utf8_lossy(&io.stdout()), sim.stats());
//! ```

pub mod cli;
mod exec;
mod fault;
mod fs;
mod io;
mod loader;
mod memory;
mod options;
mod predecode;
mod profile;
mod program;
mod rng;
mod simulator;
mod stats;
mod syscall;
mod threads;
mod trace;
mod unwind_check;

pub use cli::cli_main;
pub use fault::{Access, AccessKind, BlockedThread, Fault, FaultKind, Waiting};
pub use fs::DirMapping;
pub use io::{CaptureIo, Captured, HostIo, Io};
pub use loader::{LoadError, load_file, read_program};
pub use memory::{Memory, MemoryLayout};
pub use options::{DEFAULT_HEAP_SIZE, Options};
pub use profile::CallCounts;
pub use program::{Program, Segment, Symbol};
pub use simulator::{Outcome, Simulator};
pub use stats::Stats;
pub use syscall::EIO;
pub use threads::{DEFAULT_QUANTUM, MAX_LIVE_THREADS, ThreadStats};
pub use unwind_check::FrameSections;

/// Exit status of `vliw-run` for a program that cannot be loaded.
pub const STATUS_LOAD_ERROR: i32 = 126;
/// Exit status of `vliw-run` for a bad command line.
pub const STATUS_USAGE: i32 = 2;

#[cfg(test)]
mod tests;
