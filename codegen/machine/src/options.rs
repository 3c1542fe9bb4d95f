//! Options of the back end: the machine, switches of the passes, dumps, timings.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
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

/// A technique that can be switched off, so that what it contributes can be measured.
/// `./y.sh bench` builds its ablation table from this list (through the shim's
/// `-Cllvm-args=passes`): a pass appears there as soon as it is listed here.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OptionalPass {
    /// Short name, the heading of the pass's column ("without NAME").
    pub name: &'static str,
    /// The back-end option (`KEY=VALUE`) that switches it off, i.e. selects the
    /// baseline it is measured against.
    pub off: &'static str,
    /// What it does, in a few words.
    pub about: &'static str,
}

/// The optional passes, in pipeline order. Switching all of them off gives the naive
/// baseline.
pub const OPTIONAL_PASSES: &[OptionalPass] = &[
    OptionalPass {
        name: "mem2reg",
        off: "mem2reg=off",
        about: "stack slots whose address does not escape promoted to SSA values, \
                aggregates split into fields (vliw_opt::mem2reg)",
    },
    OptionalPass {
        name: "dce",
        off: "dce=off",
        about: "unused instructions without side effects removed (vliw_opt::dce)",
    },
    OptionalPass {
        name: "jump-tables",
        off: "jump-tables=off",
        about: "dense switches lowered to a jump table instead of a compare chain",
    },
    OptionalPass {
        name: "ssa-regalloc",
        off: "regalloc=naive",
        about: "registers allocated on SSA (spilling, colouring in dominance order) \
                instead of every value in a stack slot (crate::ssa_regalloc)",
    },
    OptionalPass {
        name: "sched",
        off: "sched=off",
        about: "list scheduling into bundles instead of one operation per bundle \
                (crate::sched)",
    },
];

/// The points at which the machine code can be dumped as text.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum DumpStage {
    /// Machine SSA after instruction selection (before register allocation).
    Isel,
    /// After register allocation (before frame lowering).
    Regalloc,
    /// After frame lowering and bundling: what is encoded.
    Final,
}

impl DumpStage {
    pub const ALL: [DumpStage; 3] = [DumpStage::Isel, DumpStage::Regalloc, DumpStage::Final];

    pub fn name(self) -> &'static str {
        match self {
            DumpStage::Isel => "isel",
            DumpStage::Regalloc => "regalloc",
            DumpStage::Final => "final",
        }
    }

    pub fn from_name(s: &str) -> Option<DumpStage> {
        DumpStage::ALL.into_iter().find(|d| d.name() == s)
    }
}

/// A shared text sink for dumps (several codegen units may write to it in parallel;
/// each function's dump is written in one piece).
pub type DumpSink = Arc<Mutex<dyn Write + Send>>;

/// Accumulated time per phase, shared by the codegen units of a session.
#[derive(Debug, Default)]
pub struct Timings {
    phases: Mutex<BTreeMap<&'static str, (Duration, u64)>>,
}

impl Timings {
    pub fn new() -> Arc<Timings> {
        Arc::new(Timings::default())
    }

    /// Add `d` to `phase`.
    pub fn add(&self, phase: &'static str, d: Duration) {
        let mut m = self.phases.lock().unwrap_or_else(|e| e.into_inner());
        let e = m.entry(phase).or_default();
        e.0 += d;
        e.1 += 1;
    }

    /// `(phase, total time, number of measurements)`, in phase-name order.
    pub fn report(&self) -> Vec<(&'static str, Duration, u64)> {
        let m = self.phases.lock().unwrap_or_else(|e| e.into_inner());
        m.iter().map(|(k, v)| (*k, v.0, v.1)).collect()
    }

    /// The report as text lines (`time-passes`).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for (phase, d, n) in self.report() {
            s.push_str(&format!(
                "{:>10.3} ms  {phase} ({n}x)\n",
                d.as_secs_f64() * 1000.0
            ));
        }
        s
    }
}

/// Event counts (remaining copies per phase of SSA destruction, ...), shared by the
/// codegen units of a session like [`Timings`] (`stats`).
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

/// What `compile_module` does besides compiling.
#[derive(Clone)]
pub struct Options {
    pub machine: MachineConfig,
    pub regalloc: RegAlloc,
    pub sched: Sched,
    /// How to leave SSA (`ssa-destruction=copies|sreedhar3|boissinot|virtual`).
    pub ssa_destruction: SsaDestruction,
    /// Promote non-escaping stack slots to SSA values (`mem2reg=on|off`).
    pub mem2reg: bool,
    /// Remove unused instructions without side effects (`dce=on|off`).
    pub dce: bool,
    /// Lower dense `switch`es to jump tables (`jump-tables=on|off`).
    pub jump_tables: bool,
    /// Write DWARF line tables (`debug-info=on|off`; rustc's `-g`).
    pub debug_info: bool,
    /// Stages to dump, and where to.
    pub dump: Vec<DumpStage>,
    pub dump_to: Option<DumpSink>,
    /// Per-phase timings are added here when present (`time-passes`).
    pub timings: Option<Arc<Timings>>,
    /// Counts (copies per destruction phase) are added here when present (`stats`).
    pub counters: Option<Arc<Counters>>,
    /// Time the SSA analyses and SSA destruction on every function after instruction
    /// selection and print one `vliw-analysis-timing:` line per function on stderr
    /// (`analysis-timing=on|off`, default off; `crate::analysis_timing`). Measurement
    /// only: the generated code is the same.
    pub analysis_timing: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            machine: MachineConfig::default(),
            regalloc: RegAlloc::Ssa,
            sched: Sched::List,
            ssa_destruction: SsaDestruction::Copies,
            mem2reg: true,
            dce: true,
            jump_tables: true,
            debug_info: false,
            dump: Vec::new(),
            dump_to: None,
            timings: None,
            counters: None,
            analysis_timing: false,
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
            .field("mem2reg", &self.mem2reg)
            .field("dce", &self.dce)
            .field("jump_tables", &self.jump_tables)
            .field("debug_info", &self.debug_info)
            .field("dump", &self.dump)
            .field("timings", &self.timings.is_some())
            .field("counters", &self.counters.is_some())
            .field("analysis_timing", &self.analysis_timing)
            .finish()
    }
}

impl Options {
    /// Applies one `KEY=VALUE` option (as the backend receives them through
    /// `-Cllvm-args`): `regalloc=naive|ssa`, `sched=off|list`,
    /// `ssa-destruction=copies|sreedhar3|boissinot|virtual`, `jump-tables=on|off`,
    /// `debug-info=on|off`, `dump=isel,regalloc,final`, `machine=width=8,alu=...` (the machine keys of
    /// `docs/isa.md` §8), `analysis-timing=on|off` (default off: when on, each
    /// function's SSA analyses and SSA destruction are timed after instruction selection
    /// and reported on stderr, `crate::analysis_timing`; the code is unchanged). Unknown
    /// keys and values are errors that say what is known.
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
            "mem2reg" => self.mem2reg = on_off(key, value)?,
            "dce" => self.dce = on_off(key, value)?,
            "debug-info" => self.debug_info = on_off(key, value)?,
            "analysis-timing" => self.analysis_timing = on_off(key, value)?,
            "dump" => {
                for s in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    let stage = DumpStage::from_name(s).ok_or_else(|| {
                        format!(
                            "dump={s}: unknown machine stage (known: {})",
                            DumpStage::ALL.map(DumpStage::name).join(", ")
                        )
                    })?;
                    if !self.dump.contains(&stage) {
                        self.dump.push(stage);
                    }
                }
            }
            "machine" => self.machine.apply_overrides(value)?,
            _ => return Err(format!("unknown back-end option `{key}`")),
        }
        Ok(())
    }

    pub(crate) fn time<T>(&self, phase: &'static str, f: impl FnOnce() -> T) -> T {
        match &self.timings {
            Some(t) => {
                let start = Instant::now();
                let r = f();
                t.add(phase, start.elapsed());
                r
            }
            None => f(),
        }
    }

    pub(crate) fn wants_dump(&self, stage: DumpStage) -> bool {
        self.dump_to.is_some() && self.dump.contains(&stage)
    }

    pub(crate) fn write_dump(&self, stage: DumpStage, text: &str) {
        if let Some(sink) = &self.dump_to {
            let mut w = sink.lock().unwrap_or_else(|e| e.into_inner());
            let _ = writeln!(w, "; dump={}", stage.name());
            let _ = w.write_all(text.as_bytes());
        }
    }
}

fn on_off(key: &str, value: &str) -> Result<bool, String> {
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
        o.set("dump", "isel,final").unwrap();
        o.set("jump-tables", "off").unwrap();
        assert!(!o.analysis_timing);
        o.set("analysis-timing", "on").unwrap();
        assert!(o.analysis_timing);
        assert!(
            o.set("analysis-timing", "yes")
                .unwrap_err()
                .contains("on or off")
        );
        o.set("ssa-destruction", "boissinot").unwrap();
        assert_eq!(o.ssa_destruction, SsaDestruction::Boissinot);
        o.set("ssa-destruction", "virtual").unwrap();
        assert_eq!(o.ssa_destruction, SsaDestruction::Virtual);
        let err = o.set("ssa-destruction", "cytron").unwrap_err();
        for m in SsaDestruction::ALL {
            assert!(err.contains(m.name()), "{err}");
        }
        o.set("machine", "width=2,latency.load=5").unwrap();
        assert_eq!(o.dump, vec![DumpStage::Isel, DumpStage::Final]);
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
            o.set("dump", "rvsdg")
                .unwrap_err()
                .contains("isel, regalloc, final")
        );
        assert!(o.set("bogus", "1").is_err());
    }

    #[test]
    fn every_optional_pass_can_be_switched_off() {
        for pass in OPTIONAL_PASSES {
            let (key, value) = pass.off.split_once('=').expect("KEY=VALUE");
            let mut o = Options::default();
            o.set(key, value).unwrap();
            assert_ne!(
                format!("{o:?}"),
                format!("{:?}", Options::default()),
                "`{}` must change the default options",
                pass.off
            );
            assert!(!pass.name.contains(char::is_whitespace));
        }
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

    #[test]
    fn timings_accumulate() {
        let t = Timings::new();
        t.add("isel", Duration::from_millis(2));
        t.add("isel", Duration::from_millis(3));
        let r = t.report();
        assert_eq!(r, vec![("isel", Duration::from_millis(5), 2)]);
        assert!(t.to_text().contains("isel (2x)"));
    }
}
