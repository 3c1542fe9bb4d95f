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
    /// The pipeline's options (`mem2reg=`, `regalloc=`, `sched=`, `verify=`,
    /// `dump=after:PASS`, `dump-format=`, `machine=`, ...), checked here and applied
    /// to each codegen unit's `vliw_pipeline::Options` by `pipeline_options`.
    pub pipeline: Vec<(String, String)>,
    /// `dump=ir`: the IR as the shim built it (the pipeline's dump points go to
    /// `pipeline`).
    pub dump: Vec<DumpStage>,
    /// `dump-to=DIR` or `dump-to=-` (stderr).
    pub dump_to: DumpTarget,
    /// `time-passes`: per-phase timings on stderr.
    pub time_passes: bool,
    /// `stats`: the back end's counters on stderr, one `vliw-stats: key=value ...`
    /// line per codegen unit.
    pub stats: bool,
    /// `verify=yes|no|each`: verification of the shim's IR (unless `no`) and between
    /// the pipeline's passes.
    pub verify: vliw_pipeline::VerifyLevel,
    /// `passes`: print the pipeline and exit.
    pub list_passes: bool,
}

impl Options {
    pub const HELP: &'static str = "\
VLIW backend options (-Cllvm-args=KEY[=VALUE] ...):
  passes                 print the pipeline in order and exit: one line per pass,
                         NAME, FROM->TO stage, SWITCH, the option that switches it
                         off (- if none), what it does; tab-separated
  dump=POINT[,POINT...]  dump the functions at these points: ir (the module as the
                         shim built it), before:PASS, after:PASS for any PASS of
                         the pipeline, or all for every pass; isel, regalloc,
                         final are aliases of after:isel, after the allocator,
                         after bundling
  dump-format=text|dot   text (default; the SSA IR's text parses back), or
                         Graphviz for the graph-shaped stages (control-flow
                         graphs of the SSA IR and of machine code)
  dump-to=DIR|-          where dumps go: a directory, or - for stderr
                         (default: next to the output file)
  time-passes            print the time of each phase and pass on stderr
  stats                  print the passes' counters on stderr, one line
                         `vliw-stats: key=value ...` per codegen unit
  verify=yes|no|each     verify the shim's IR and the function at the
                         boundaries of the pipeline's stages (yes, the default),
                         after every pass (each), or not at all (no)
  mem2reg=on|off         promote stack slots to SSA values (default on)
  dce=on|off             remove unused side-effect-free instructions (default on)
  jump-tables=on|off     lower dense switches to jump tables (default on)
  regalloc=ssa|naive     the register allocator (ssa: spilling and colouring
                         on SSA, the default; naive: every value in a slot)
  ssa-destruction=copies|sreedhar3|boissinot|virtual
                         how regalloc=naive leaves SSA (default copies)
  sched=list|off         the scheduler (list: list scheduling without stalls,
                         the default; off: one operation per bundle)
  analysis-timing=on|off time the SSA analyses and SSA destruction of every
                         function after instruction selection, one line
                         `vliw-analysis-timing: ...` per function on stderr
                         (default off; the code is unchanged)
  machine=KEY=V[,...]    the machine configuration (docs/isa.md section 8)
  help                   print this help";
    /// Parse the words of `-Cllvm-args` (each a `KEY` or `KEY=VALUE`).
    pub fn parse<'a>(args: &'a [String]) -> Result<Options, String> {
        let mut opts = Options::default();
        // every pipeline option is checked on a scratch copy as it comes
        let mut check = vliw_pipeline::Options::new();
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
                    let mut theirs = Vec::new();
                    for point in need(value)?.split(',') {
                        match DumpStage::from_name(point) {
                            Some(stage) => {
                                if !opts.dump.contains(&stage) {
                                    opts.dump.push(stage);
                                }
                            }
                            None => theirs.push(point),
                        }
                    }
                    if !theirs.is_empty() {
                        let theirs = theirs.join(",");
                        check
                            .set("dump", &theirs)
                            .map_err(|e| format!("{e}; or ir, the module as the shim built it"))?;
                        opts.pipeline.push(("dump".into(), theirs));
                    }
                }
                "verify" => {
                    let value = need(value)?;
                    opts.verify = vliw_pipeline::VerifyLevel::parse(value)?;
                    opts.pipeline.push((key.into(), value.into()));
                }
                _ if vliw_pipeline::Options::KEYS.contains(&key) => {
                    let value = need(value)?;
                    check.set(key, value)?;
                    opts.pipeline.push((key.into(), value.into()));
                }
                "dump-to" => {
                    opts.dump_to = match need(value)? {
                        "-" => DumpTarget::Stderr,
                        dir => DumpTarget::Dir(PathBuf::from(dir)),
                    }
                }
                "time-passes" => opts.time_passes = parse_bool(key, value.unwrap_or("yes"))?,
                "stats" => opts.stats = parse_bool(key, value.unwrap_or("yes"))?,
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

    /// The `passes` listing: the pipeline in order (`vliw_pipeline::listing`).
    pub fn pass_list() -> String {
        vliw_pipeline::listing()
    }

    pub fn dumps(&self, stage: DumpStage) -> bool {
        self.dump.contains(&stage)
    }

    /// Whether the pipeline is asked for dumps.
    pub fn dumps_passes(&self) -> bool {
        self.pipeline.iter().any(|(k, _)| k == "dump")
    }

    /// The pipeline's options as given (without dump sink, timings and counters).
    pub fn pipeline_options(&self) -> vliw_pipeline::Options {
        let mut m = vliw_pipeline::Options::new();
        for (k, v) in &self.pipeline {
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
    use vliw_pipeline::VerifyLevel;

    fn parse(s: &[&str]) -> Result<Options, String> {
        Options::parse(&s.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn parses_options() {
        let o = parse(&["dump=ir", "time-passes", "dump-to=-"]).unwrap();
        assert_eq!(o.dump, vec![DumpStage::Ir]);
        assert!(o.time_passes);
        assert_eq!(o.verify, VerifyLevel::Boundaries);
        assert_eq!(o.dump_to, DumpTarget::Stderr);
        assert!(!o.dumps_passes());
        let o = parse(&["dump=ir,final,before:isel jump-tables=off machine=width=2"]).unwrap();
        assert_eq!(o.dump, vec![DumpStage::Ir]);
        assert!(o.dumps_passes());
        let m = o.pipeline_options();
        let points: Vec<String> = m
            .dumps
            .iter()
            .map(|d| format!("{}:{}", d.when.name(), d.pass))
            .collect();
        assert_eq!(points, ["after:sched", "after:bundle", "before:isel"]);
        assert!(!m.backend.jump_tables);
        assert_eq!(m.backend.machine.width, 2);
        let o = parse(&["stats ssa-destruction=boissinot mem2reg=off"]).unwrap();
        assert!(o.stats);
        let m = o.pipeline_options();
        assert_eq!(
            m.backend.ssa_destruction,
            vliw_machine::SsaDestruction::Boissinot
        );
        assert!(!m.mem2reg);
        assert!(parse(&["ssa-destruction=cytron"]).is_err());
        assert!(
            parse(&["analysis-timing=on"])
                .unwrap()
                .pipeline_options()
                .analysis_timing
        );
        assert!(!o.pipeline_options().analysis_timing);
        assert!(parse(&["analysis-timing"]).is_err());
        let o = parse(&["verify=no dump-to=/tmp/x"]).unwrap();
        assert_eq!(o.verify, VerifyLevel::None);
        assert_eq!(o.pipeline_options().verify, VerifyLevel::None);
        assert_eq!(o.dump_to, DumpTarget::Dir(PathBuf::from("/tmp/x")));
        let o = parse(&["verify=each dump-format=dot"]).unwrap();
        assert_eq!(o.pipeline_options().verify, VerifyLevel::Each);
        assert_eq!(
            o.pipeline_options().dump_format,
            vliw_pipeline::DumpFormat::Dot
        );
    }

    #[test]
    fn rejects_bad_options() {
        let e = parse(&["dump=asm"]).unwrap_err();
        assert!(e.contains("dump=asm") && e.contains("or ir"), "{e}");
        assert!(parse(&["dump=after:frobnicate"]).is_err());
        assert!(
            parse(&["frobnicate"])
                .unwrap_err()
                .contains("unknown backend option")
        );
        assert!(parse(&["dump"]).unwrap_err().contains("needs a value"));
        assert!(parse(&["verify=maybe"]).unwrap_err().contains("each"));
        assert!(parse(&["dump-format=svg"]).is_err());
    }

    #[test]
    fn lists_the_pipeline_with_switches_that_parse() {
        assert!(parse(&["passes"]).unwrap().list_passes);
        let list = Options::pass_list();
        assert_eq!(list.lines().count(), vliw_pipeline::PIPELINE.len());
        for line in list.lines() {
            let fields: Vec<&str> = line.split('\t').collect();
            // NAME FROM->TO SWITCH OFF ON DEFAULT ABOUT
            assert_eq!(fields.len(), 7, "{line}");
            for switch in [fields[3], fields[4]] {
                if switch != "-" {
                    parse(&[switch]).unwrap();
                }
            }
            assert!(matches!(fields[5], "on" | "off" | "-"), "{line}");
        }
    }
}
