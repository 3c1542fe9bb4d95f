//! Options of the back end: the machine, the allocator, the scheduler, how SSA is
//! left, jump tables, debug info, and the counters of `stats`. The pipeline's own
//! options (which passes run, verification, dumps, timings) are `vliw_pipeline`'s.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use vliw_isa::MachineConfig;

/// Register allocators.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum RegAlloc {
    /// Every virtual register lives in a stack slot; each operation loads its uses into
    /// scratch registers and stores its results (`regalloc=naive`).
    #[default]
    Naive,
    /// Spilling and colouring on SSA, then leaving SSA on the colours
    /// (`regalloc=ssa`, `crate::ssa_regalloc`).
    Ssa,
}

/// Schedulers (bundle formation).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Sched {
    /// One operation per bundle (`sched=off`).
    #[default]
    Off,
    /// List scheduling per block over the dependence graph, with empty bundles where
    /// latencies leave nothing to issue, so that no operation waits in the interlock
    /// (`sched=list`, `crate::sched`).
    List,
}

/// How the back end leaves SSA (`ssa-destruction=...`, `destruct`).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum SsaDestruction {
    /// Every block argument copied to its parameter, no coalescing (`copies`).
    #[default]
    Copies,
    /// Sreedhar et al.'s Method III: copies only for interfering φ resources
    /// (`sreedhar3`).
    Sreedhar3,
    /// Boissinot's: Method I parallel copies, value-based interference, aggressive
    /// coalescing with the linear class test, minimal sequentialization (`boissinot`).
    Boissinot,
    /// Boissinot's with the φ copies virtualized (thesis §5.3.3): one φ at a time, a
    /// copy created only when coalescing it fails, then the ordinary copies coalesced
    /// (`virtual`).
    Virtual,
}

impl SsaDestruction {
    pub const ALL: [SsaDestruction; 4] = [
        SsaDestruction::Copies,
        SsaDestruction::Sreedhar3,
        SsaDestruction::Boissinot,
        SsaDestruction::Virtual,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SsaDestruction::Copies => "copies",
            SsaDestruction::Sreedhar3 => "sreedhar3",
            SsaDestruction::Boissinot => "boissinot",
            SsaDestruction::Virtual => "virtual",
        }
    }
}

/// Event counts (remaining copies per phase of SSA destruction, ...), shared by the
/// codegen units of a session (`stats`).
#[derive(Debug, Default)]
pub struct Counters {
    counts: Mutex<BTreeMap<String, u64>>,
}

impl Counters {
    pub fn new() -> Arc<Counters> {
        Arc::new(Counters::default())
    }

    /// Add `n` to `name` (created at 0).
    pub fn add(&self, name: &str, n: u64) {
        let mut m = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        *m.entry(name.to_string()).or_default() += n;
    }

    pub fn get(&self, name: &str) -> u64 {
        let m = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        m.get(name).copied().unwrap_or(0)
    }

    /// `(name, count)` in name order.
    pub fn report(&self) -> Vec<(String, u64)> {
        let m = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        m.iter().map(|(k, v)| (k.clone(), *v)).collect()
    }

    /// One line `vliw-stats: key=value ...` (names contain no spaces), for `stats`.
    pub fn to_line(&self) -> String {
        let mut s = String::from("vliw-stats:");
        for (k, v) in self.report() {
            s.push_str(&format!(" {k}={v}"));
        }
        s
    }
}

/// The default of [`Options::jump_table_min_cases`]. A table costs about eight
/// cycles whatever the case (bounds compare, address, a load of three, the indirect
/// jump and its penalty); a chain of `n` compares issues them together and branches
/// once per bundle, `n / 2` bundles on average, fewer where if-conversion takes the
/// arms (the tokenizer of `benches/programs/state_machine.rs`, six states: 0.86x the
/// cycles as a chain).
pub const JUMP_TABLE_MIN_CASES: usize = 8;

/// The back end's settings.
#[derive(Clone)]
pub struct Options {
    pub machine: MachineConfig,
    pub regalloc: RegAlloc,
    pub sched: Sched,
    /// How to leave SSA (`ssa-destruction=copies|sreedhar3|boissinot|virtual`).
    pub ssa_destruction: SsaDestruction,
    /// Lower dense `switch`es to jump tables (`jump-tables=on|off`).
    pub jump_tables: bool,
    /// The fewest cases a switch has to become a jump table
    /// (`jump-table-min-cases=N`): below, a chain of compares, which if-conversion
    /// and the schedulers overlap, beats the table's load and indirect jump.
    pub jump_table_min_cases: usize,
    /// Write DWARF line tables (`debug-info=on|off`; rustc's `-g`).
    pub debug_info: bool,
    /// Write the call-frame information of every function, `.eh_frame`
    /// (`unwind-tables=on|off`), which the unwinder and backtraces read.
    pub unwind_tables: bool,
    /// Counts (copies per destruction phase) are added here when present (`stats`).
    pub counters: Option<Arc<Counters>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            machine: MachineConfig::default(),
            regalloc: RegAlloc::Ssa,
            sched: Sched::List,
            ssa_destruction: SsaDestruction::Copies,
            jump_tables: true,
            jump_table_min_cases: JUMP_TABLE_MIN_CASES,
            debug_info: false,
            unwind_tables: true,
            counters: None,
        }
    }
}

impl core::fmt::Debug for Options {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Options")
            .field("machine", &self.machine.to_string())
            .field("regalloc", &self.regalloc)
            .field("sched", &self.sched)
            .field("ssa_destruction", &self.ssa_destruction)
            .field("jump_tables", &self.jump_tables)
            .field("jump_table_min_cases", &self.jump_table_min_cases)
            .field("debug_info", &self.debug_info)
            .field("unwind_tables", &self.unwind_tables)
            .field("counters", &self.counters.is_some())
            .finish()
    }
}

impl Options {
    /// Applies one `KEY=VALUE` option (as the backend receives them through
    /// `-Cllvm-args`): `regalloc=naive|ssa`, `sched=off|list`,
    /// `ssa-destruction=copies|sreedhar3|boissinot|virtual`, `jump-tables=on|off`,
    /// `jump-table-min-cases=N`, `debug-info=on|off`, `unwind-tables=on|off`, `machine=width=8,alu=...` (the machine keys of
    /// `docs/isa.md` §8). Unknown keys and values are errors that say what is known.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "regalloc" => {
                self.regalloc = match value {
                    "naive" => RegAlloc::Naive,
                    "ssa" => RegAlloc::Ssa,
                    _ => {
                        return Err(format!(
                            "regalloc={value}: unknown allocator (known: naive, ssa)"
                        ));
                    }
                }
            }
            "sched" => {
                self.sched = match value {
                    "off" => Sched::Off,
                    "list" => Sched::List,
                    _ => {
                        return Err(format!(
                            "sched={value}: unknown scheduler (known: off, list)"
                        ));
                    }
                }
            }
            "ssa-destruction" => {
                self.ssa_destruction = SsaDestruction::ALL
                    .into_iter()
                    .find(|m| m.name() == value)
                    .ok_or_else(|| {
                        let known: Vec<&str> =
                            SsaDestruction::ALL.iter().map(|m| m.name()).collect();
                        format!(
                            "ssa-destruction={value}: unknown method (known: {})",
                            known.join(", ")
                        )
                    })?
            }
            "jump-tables" => self.jump_tables = on_off(key, value)?,
            "jump-table-min-cases" => {
                self.jump_table_min_cases = match value.parse() {
                    Ok(n) if n >= 1 => n,
                    _ => {
                        return Err(format!(
                            "jump-table-min-cases={value}: expected a number of cases (at \
                             least 1)"
                        ));
                    }
                }
            }
            "debug-info" => self.debug_info = on_off(key, value)?,
            "unwind-tables" => self.unwind_tables = on_off(key, value)?,
            "machine" => self.machine.apply_overrides(value)?,
            _ => return Err(format!("unknown back-end option `{key}`")),
        }
        Ok(())
    }
}

/// `on` or `off`, the value of a switch `key` (an error that says so otherwise).
pub fn on_off(key: &str, value: &str) -> Result<bool, String> {
    match value {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("{key}={value}: expected on or off")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_and_explain_errors() {
        let mut o = Options::default();
        o.set("regalloc", "naive").unwrap();
        o.set("sched", "off").unwrap();
        o.set("sched", "list").unwrap();
        assert_eq!(o.sched, Sched::List);
        assert!(o.set("sched", "trace").unwrap_err().contains("off, list"));
        o.set("jump-tables", "off").unwrap();
        o.set("ssa-destruction", "boissinot").unwrap();
        assert_eq!(o.ssa_destruction, SsaDestruction::Boissinot);
        o.set("ssa-destruction", "virtual").unwrap();
        assert_eq!(o.ssa_destruction, SsaDestruction::Virtual);
        let err = o.set("ssa-destruction", "cytron").unwrap_err();
        for m in SsaDestruction::ALL {
            assert!(err.contains(m.name()), "{err}");
        }
        o.set("machine", "width=2,latency.load=5").unwrap();
        assert!(!o.jump_tables);
        assert_eq!(o.machine.width, 2);
        o.set("regalloc", "ssa").unwrap();
        assert_eq!(o.regalloc, RegAlloc::Ssa);
        assert!(
            o.set("regalloc", "linear")
                .unwrap_err()
                .contains("known: naive, ssa")
        );
        assert!(
            o.set("debug-info", "yes")
                .unwrap_err()
                .contains("on or off")
        );
        assert!(o.set("bogus", "1").is_err());
    }

    #[test]
    fn counters_accumulate_into_one_line() {
        let c = Counters::new();
        c.add("b.x", 2);
        c.add("a.y", 1);
        c.add("b.x", 3);
        assert_eq!(c.get("b.x"), 5);
        assert_eq!(c.to_line(), "vliw-stats: a.y=1 b.x=5");
    }
}
