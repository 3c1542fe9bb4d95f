//! Backend options, given as `-Cllvm-args=KEY[=VALUE] ...` (as rustc_codegen_cranelift
//! does: rustc passes `-Cllvm-args` through to the backend untouched). Documented in
//! `docs/backend.md` ("Options") and the README.

use std::fmt;
use std::path::PathBuf;

/// A stage whose IR `dump=` can write.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum DumpStage {
    /// The SSA IR as the shim built it (before any pass), verified.
    Ir,
}

impl DumpStage {
    pub const ALL: &'static [DumpStage] = &[DumpStage::Ir];

    pub fn name(self) -> &'static str {
        match self {
            DumpStage::Ir => "ir",
        }
    }

    fn from_name(s: &str) -> Option<DumpStage> {
        DumpStage::ALL.iter().copied().find(|d| d.name() == s)
    }
}

impl fmt::Display for DumpStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where dumps go.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub enum DumpTarget {
    /// Next to the output: `<output dir>/<crate>.<cgu>.<stage>.vir`.
    #[default]
    OutputDir,
    /// Standard error.
    Stderr,
    /// A directory of the user's choice (same file names).
    Dir(PathBuf),
}

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The back end's options (`regalloc=`, `sched=`, `jump-tables=`, `machine=`,
    /// `analysis-timing=`, ..., and its dump stages as `dump=`), checked here and applied
    /// to each codegen unit's `vliw_machine::Options` by `machine_options`.
    pub machine: Vec<(String, String)>,
    /// `dump=STAGE[,STAGE...]`: text dumps of these stages.
    pub dump: Vec<DumpStage>,
    /// `dump-to=DIR` or `dump-to=-` (stderr).
    pub dump_to: DumpTarget,
    /// `time-passes`: per-phase timings on stderr.
    pub time_passes: bool,
    /// `stats`: the back end's counters (copies per SSA destruction phase) on stderr,
    /// one `vliw-stats: key=value ...` line per codegen unit.
    pub stats: bool,
    /// `verify=no`: skip the IR verifier (it runs by default after the shim).
    pub verify: bool,
    /// `passes`: print the optional passes and exit.
    pub list_passes: bool,
}

impl Options {
    pub const HELP: &'static str = "\
VLIW backend options (-Cllvm-args=KEY[=VALUE] ...):
  dump=STAGE[,STAGE...]  write these stages as text: ir (the shim's IR), and the
                         back end's isel, regalloc, final (machine code)
  dump-to=DIR|-          where dumps go: a directory, or - for stderr
                         (default: next to the output file)
  time-passes            print the time of each backend phase on stderr
  stats                  print the backend's counters on stderr, one line
                         `vliw-stats: key=value ...` per codegen unit
  verify=yes|no          run the IR verifier after the shim (default yes)
  regalloc=ssa|naive     the register allocator (ssa: spilling and colouring
                         on SSA, the default; naive: every value in a slot)
  sched=list|off         the scheduler (list: list scheduling without stalls,
                         the default; off: one operation per bundle)
  ssa-destruction=copies|sreedhar3|boissinot|virtual
                         how regalloc=naive leaves SSA (default copies)
  mem2reg=on|off         promote stack slots to SSA values (default on)
  dce=on|off             remove unused side-effect-free instructions (default on)
  jump-tables=on|off     lower dense switches to jump tables (default on)
  analysis-timing=on|off time the SSA analyses and SSA destruction of every
                         function after instruction selection, one line
                         `vliw-analysis-timing: ...` per function on stderr
                         (default off; the code is unchanged)
  machine=KEY=V[,...]    the machine configuration (docs/isa.md section 8)
  passes                 print the optional passes (NAME, the option that
                         switches it off, what it does; tab-separated) and exit
  help                   print this help";
    /// Parse the words of `-Cllvm-args` (each a `KEY` or `KEY=VALUE`).
    pub fn parse<'a>(args: &'a [String]) -> Result<Options, String> {
        let mut opts = Options {
            verify: true,
            ..Options::default()
        };
        for arg in args.iter().flat_map(|a| a.split_whitespace()) {
            let (key, value) = match arg.split_once('=') {
                Some((k, v)) => (k, Some(v)),
                None => (arg, None),
            };
            let need = |v: Option<&'a str>| -> Result<&'a str, String> {
                v.filter(|v| !v.is_empty())
                    .ok_or_else(|| format!("backend option `{key}` needs a value (`{key}=...`)"))
            };
            match key {
                "dump" => {
                    for stage in need(value)?.split(',') {
                        match DumpStage::from_name(stage) {
                            Some(stage) => {
                                if !opts.dump.contains(&stage) {
                                    opts.dump.push(stage);
                                }
                            }
                            None if vliw_machine::DumpStage::from_name(stage).is_some() => {
                                opts.machine.push(("dump".into(), stage.into()))
                            }
                            None => {
                                let ours = DumpStage::ALL.iter().map(|s| s.name());
                                let theirs = vliw_machine::DumpStage::ALL.iter().map(|s| s.name());
                                return Err(format!(
                                    "unknown dump stage `{stage}` (stages: {})",
                                    ours.chain(theirs).collect::<Vec<_>>().join(", ")
                                ));
                            }
                        }
                    }
                }
                "regalloc" | "sched" | "ssa-destruction" | "mem2reg" | "dce" | "jump-tables"
                | "machine" | "analysis-timing" => {
                    let value = need(value)?;
                    vliw_machine::Options::default().set(key, value)?;
                    opts.machine.push((key.into(), value.into()));
                }
                "dump-to" => {
                    opts.dump_to = match need(value)? {
                        "-" => DumpTarget::Stderr,
                        dir => DumpTarget::Dir(PathBuf::from(dir)),
                    }
                }
                "time-passes" => opts.time_passes = parse_bool(key, value.unwrap_or("yes"))?,
                "stats" => opts.stats = parse_bool(key, value.unwrap_or("yes"))?,
                "verify" => opts.verify = parse_bool(key, need(value)?)?,
                "help" => return Err(Options::HELP.to_string()),
                "passes" => opts.list_passes = true,
                _ => {
                    return Err(format!(
                        "unknown backend option `{arg}` (-Cllvm-args=help lists them)"
                    ));
                }
            }
        }
        Ok(opts)
    }

    /// The `passes` listing: one line per optional pass, `NAME\tOFF\tABOUT`.
    pub fn pass_list() -> String {
        vliw_machine::OPTIONAL_PASSES
            .iter()
            .map(|p| format!("{}\t{}\t{}\n", p.name, p.off, p.about))
            .collect()
    }

    pub fn dumps(&self, stage: DumpStage) -> bool {
        self.dump.contains(&stage)
    }

    /// The back end's options as given (without dump sink and timings).
    pub fn machine_options(&self) -> vliw_machine::Options {
        let mut m = vliw_machine::Options::default();
        for (k, v) in &self.machine {
            m.set(k, v).expect("checked when parsed");
        }
        m
    }
}

fn parse_bool(key: &str, v: &str) -> Result<bool, String> {
    match v {
        "yes" | "on" | "true" | "1" => Ok(true),
        "no" | "off" | "false" | "0" => Ok(false),
        _ => Err(format!("backend option `{key}` takes yes or no, not `{v}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &[&str]) -> Result<Options, String> {
        Options::parse(&s.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn parses_options() {
        let o = parse(&["dump=ir", "time-passes", "dump-to=-"]).unwrap();
        assert_eq!(o.dump, vec![DumpStage::Ir]);
        assert!(o.time_passes);
        assert!(o.verify);
        assert_eq!(o.dump_to, DumpTarget::Stderr);
        let o = parse(&["dump=ir,final jump-tables=off machine=width=2"]).unwrap();
        assert_eq!(o.dump, vec![DumpStage::Ir]);
        let m = o.machine_options();
        assert_eq!(m.dump, vec![vliw_machine::DumpStage::Final]);
        assert!(!m.jump_tables);
        assert_eq!(m.machine.width, 2);
        let o = parse(&["stats ssa-destruction=boissinot"]).unwrap();
        assert!(o.stats);
        assert_eq!(
            o.machine_options().ssa_destruction,
            vliw_machine::SsaDestruction::Boissinot
        );
        assert!(parse(&["ssa-destruction=cytron"]).is_err());
        assert!(
            parse(&["analysis-timing=on"])
                .unwrap()
                .machine_options()
                .analysis_timing
        );
        assert!(!o.machine_options().analysis_timing);
        assert!(parse(&["analysis-timing"]).is_err());
        let o = parse(&["verify=no dump-to=/tmp/x"]).unwrap();
        assert!(!o.verify);
        assert_eq!(o.dump_to, DumpTarget::Dir(PathBuf::from("/tmp/x")));
    }

    #[test]
    fn rejects_bad_options() {
        assert!(
            parse(&["dump=asm"])
                .unwrap_err()
                .contains("unknown dump stage `asm`")
        );
        assert!(
            parse(&["frobnicate"])
                .unwrap_err()
                .contains("unknown backend option")
        );
        assert!(parse(&["dump"]).unwrap_err().contains("needs a value"));
        assert!(parse(&["verify=maybe"]).unwrap_err().contains("yes or no"));
    }

    #[test]
    fn lists_passes_with_switches_that_parse() {
        assert!(parse(&["passes"]).unwrap().list_passes);
        let list = Options::pass_list();
        assert_eq!(list.lines().count(), vliw_machine::OPTIONAL_PASSES.len());
        for line in list.lines() {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 3, "{line}");
            parse(&[fields[1]]).unwrap();
        }
    }
}
