//! Per-phase timings (`-Cllvm-args=time-passes`).
//!
//! Each codegen unit records how long each backend phase took on it; the phases run on
//! different threads (building IR on the thread that holds `TyCtxt`, lowering on
//! rustc_codegen_ssa's worker threads), so the records travel with the unit and are
//! printed, one line per phase and unit, when the phase ends.

use std::time::{Duration, Instant};

/// The backend's phases, in pipeline order.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Phase {
    /// MIR to SSA IR through rustc_codegen_ssa and the shim.
    BuildIr,
    /// The IR verifier on every function.
    Verify,
    /// Writing IR dumps.
    Dump,
    /// IR to a relocatable object (the lowering crate).
    Lower,
    /// Writing the object file.
    WriteObject,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::BuildIr => "build-ir",
            Phase::Verify => "verify",
            Phase::Dump => "dump",
            Phase::Lower => "lower",
            Phase::WriteObject => "write-object",
        }
    }
}

/// Times phases of one codegen unit when enabled; otherwise does nothing.
pub struct Timer {
    enabled: bool,
    unit: String,
}

impl Timer {
    pub fn new(enabled: bool, unit: &str) -> Self {
        Timer {
            enabled,
            unit: unit.to_string(),
        }
    }

    /// Run `f` as `phase`, printing its time if enabled.
    pub fn time<R>(
        &self,
        phase: Phase,
        detail: impl FnOnce() -> String,
        f: impl FnOnce() -> R,
    ) -> R {
        if !self.enabled {
            return f();
        }
        let start = Instant::now();
        let r = f();
        report(phase, &self.unit, &detail(), start.elapsed());
        r
    }
}

fn report(phase: Phase, unit: &str, detail: &str, d: Duration) {
    let sep = if detail.is_empty() { "" } else { "  " };
    eprintln!(
        "time: {:>9.3}ms  {:<12} {unit}{sep}{detail}",
        d.as_secs_f64() * 1e3,
        phase.name()
    );
}
