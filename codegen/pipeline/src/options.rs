//! The options of the pipeline: which passes run, how much is verified, what is
//! dumped and where, timings and counters. The back end's own settings (machine,
//! allocator, scheduler, leaving SSA, jump tables, debug info) are a
//! `vliw_machine::Options` inside.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use vliw_machine::Counters;
use vliw_machine::options::on_off;

use crate::passes::{PIPELINE, Pass};

/// How much of the IR is verified as it goes through the pipeline (`verify=`).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum VerifyLevel {
    /// Nothing (`verify=no`).
    None,
    /// The input, and the function at the end of each stage and after each pass that
    /// enters a new stage (`verify=yes`, the default: cheap).
    #[default]
    Boundaries,
    /// After every pass (`verify=each`).
    Each,
}

impl VerifyLevel {
    pub fn parse(value: &str) -> Result<VerifyLevel, String> {
        match value {
            "no" | "off" | "false" | "0" => Ok(VerifyLevel::None),
            "yes" | "on" | "true" | "1" => Ok(VerifyLevel::Boundaries),
            "each" => Ok(VerifyLevel::Each),
            _ => Err(format!("verify={value}: expected yes, no or each")),
        }
    }
}

/// Before or after a pass.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum When {
    Before,
    After,
}

impl When {
    pub fn name(self) -> &'static str {
        match self {
            When::Before => "before",
            When::After => "after",
        }
    }
}

/// A point of the pipeline to dump: before or after a pass (`all`: every pass).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DumpPoint {
    pub when: When,
    pub pass: String,
}

impl DumpPoint {
    fn matches(&self, when: When, pass: &Pass) -> bool {
        self.when == when && (self.pass == "all" || self.pass == pass.name)
    }
}

/// The dump points named by the back end's older stage names, kept as aliases.
const DUMP_ALIASES: &[(&str, &[&str])] = &[
    ("isel", &["isel"]),
    ("regalloc", &["ssa-regalloc", "naive-regalloc"]),
    ("final", &["sched", "bundle"]),
];

/// The text form of every stage, or Graphviz for the graph-shaped ones (`dump-format=`).
/// How ψ operations leave Psi-SSA (`psi-lowering=`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum PsiLowering {
    /// Each ψ a chain of `sel` (003 §3, Fig. 7).
    Sel,
    /// Predicated copies and guarded definitions that keep a ψ's class in one
    /// register (003 §4).
    PredicatedCopies,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum DumpFormat {
    #[default]
    Text,
    Dot,
}

/// A shared text sink for dumps (several codegen units may write to it in parallel;
/// each function's dump is written in one piece).
pub type DumpSink = Arc<Mutex<dyn Write + Send>>;

/// Accumulated time per pass, shared by the codegen units of a session, in the order
/// the passes first ran (`time-passes`).
#[derive(Debug, Default)]
pub struct Timings {
    phases: Mutex<Vec<(&'static str, Duration, u64)>>,
}

impl Timings {
    pub fn new() -> Arc<Timings> {
        Arc::new(Timings::default())
    }

    /// Add `d` to `phase`.
    pub fn add(&self, phase: &'static str, d: Duration) {
        let mut m = self.phases.lock().unwrap_or_else(|e| e.into_inner());
        match m.iter_mut().find(|e| e.0 == phase) {
            Some(e) => {
                e.1 += d;
                e.2 += 1;
            }
            None => m.push((phase, d, 1)),
        }
    }

    /// `(phase, total time, number of measurements)`, in the order phases first ran.
    pub fn report(&self) -> Vec<(&'static str, Duration, u64)> {
        self.phases
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The report as text lines.
    pub fn to_text(&self) -> String {
        self.report()
            .iter()
            .map(|(phase, d, n)| format!("{:>10.3} ms  {phase} ({n}x)\n", d.as_secs_f64() * 1e3))
            .collect()
    }
}

/// Everything `compile_module` needs besides the module.
#[derive(Clone)]
pub struct Options {
    /// The back end's settings and its counters.
    pub backend: vliw_machine::Options,
    /// Promote non-escaping stack slots to SSA values (`mem2reg=on|off`).
    pub mem2reg: bool,
    /// Remove unused instructions without side effects (`dce=on|off`).
    pub dce: bool,
    /// Thread branches through blocks that only branch again (`jump-threading=on|off`).
    pub jump_threading: bool,
    /// Fold the compares and branches that dominating branches decide
    /// (`implied-conditions=on|off`, `vliw_opt::implied_conditions`).
    pub implied_conditions: bool,
    /// Fold two tests in a row that lead to one place into one compare when they test
    /// one value's range (`range-tests=on|off`, `vliw_opt::fold_range_tests`).
    pub range_tests: bool,
    /// Fold two tests in a row that lead to one place into one test of both
    /// conditions (`branch-fold=on|off`).
    pub branch_fold: bool,
    /// Thread a loop's dispatch on a state its paths set to constants
    /// (`state-threading=on|off`, `vliw_opt::state_threading`).
    pub state_threading: bool,
    /// Fold the copy blocks of branches into them by predication
    /// (`copy-blocks=on|off`).
    pub copy_blocks: bool,
    /// If-convert acyclic regions of machine SSA into predicated blocks with ψ
    /// operations (`if-convert=on|off`, `vliw_machine::ifconv`).
    pub if_convert: bool,
    /// Local common-subexpression elimination on machine SSA after if-conversion
    /// (`machine-cse=on|off`, `vliw_machine::cse`).
    pub machine_cse: bool,
    /// A loop header's load through a pointer its latch chooses by a ψ moved across
    /// the back edge and through the ψ (`rotate-loads=on|off`,
    /// `vliw_machine::load_rotation`).
    pub rotate_loads: bool,
    /// Also move the first load of a loop's other blocks into their predecessors
    /// (`rotate-load-entries=on|off`).
    pub rotate_load_entries: bool,
    /// Duplicate branch-only blocks into the predecessors that jump to them, after
    /// if-conversion (`tail-dup=on|off`, `vliw_machine::tail_dup`).
    pub tail_dup: bool,
    /// Operations common to a join's predecessors sunk into it, before if-conversion
    /// (`sink-common=on|off`, `vliw_machine::sink_common`).
    pub sink_common: bool,
    /// Alias scopes for the accesses through `noalias` parameters, on the SSA IR
    /// before instruction selection (`noalias-scopes=on|off`,
    /// `vliw_opt::scope_noalias_accesses`).
    pub noalias_scopes: bool,
    /// Constants out of loops into their preheaders (`machine-licm=on|off`,
    /// `vliw_machine::licm`).
    pub machine_licm: bool,
    /// Limits of if-conversion's regions (`if-convert-max-ops=`,
    /// `if-convert-max-predicates=`, `if-convert-max-blocks=`).
    pub if_convert_limits: vliw_machine::ifconv::Limits,
    /// Promote ψ guards (003 §3.1; `promotion=on|off`).
    pub promotion: bool,
    /// Decide promotions with the region's Predicate Partition Graph (`ppg=on|off`;
    /// without it only the first argument's guard, which needs no proof).
    pub ppg: bool,
    /// Constant propagation on predicated code after if-conversion (`pcp=on|off`; it
    /// runs only when `if-convert=on`).
    pub pcp: bool,
    /// Chains of constant additions folded into one addition or a memory offset
    /// (`fold-offsets=on|off`, `vliw_machine::offsets`).
    pub fold_offsets: bool,
    /// A `pnot` of a compare's result folded into the compare's second result
    /// (`fold-pnot=on|off`, `vliw_machine::negate`).
    pub fold_pnot: bool,
    /// A shift by 1 to 3 fused into the addition that reads it, on machines with the
    /// `shift-add` extension (`fuse-shift-add=on|off`, `vliw_machine::shift_add`).
    pub fuse_shift_add: bool,
    /// An indexed address over a sum with one late term split so that the late term
    /// is added last (`split-index=on|off`, `vliw_machine::index_split`).
    pub split_index: bool,
    /// Sums rebuilt by when their terms are ready (`reassociate=on|off`,
    /// `vliw_machine::reassoc`).
    pub reassociate: bool,
    /// Each block's operations in the order of a list schedule over virtual registers
    /// before allocation (`pre-sched=block|region|off`, `vliw_machine::sched::pre_ra`).
    pub pre_sched: bool,
    /// With `pre-sched=region`: operations move up into a block's only predecessor
    /// first, across its side exit (`vliw_machine::sched::hoist`).
    pub pre_sched_region: bool,
    /// Software pipelining of single-block inner loops before allocation
    /// (`modulo=on|off`, `vliw_machine::sched::modulo`), and a line per pipelined loop
    /// on stderr (`modulo-report=on`: `vliw-modulo: FUNCTION BLOCK: ... II ...`).
    pub modulo: bool,
    pub modulo_report: bool,
    /// Small bodies searched exhaustively where iterative modulo scheduling gives up
    /// at an interval (`modulo-exact=on|off`, `vliw_machine::sched::modulo::exact`).
    pub modulo_exact: bool,
    /// The kernel as copies that name each trip's values apart (modulo variable
    /// expansion: `modulo-expand=on|off`, `vliw_machine::sched::modulo::expand`).
    pub modulo_expand: bool,
    /// Its version and path cap (`pcp-mode=basic|full`, `pcp-max-paths=N`).
    pub pcp_options: vliw_machine::pcp::PcpOptions,
    /// How ψ operations leave Psi-SSA before allocation (`psi-lowering=sel|
    /// predicated-copies`, `vliw_machine::psi`).
    pub psi_lowering: PsiLowering,
    /// De Ferrière's §4.6 improvements for predicated copies (`psi-fold=on|off`,
    /// `psi-reorder=on|off`).
    pub psi_copies: vliw_machine::psi::CopyOptions,
    /// ψ inlining before reduction (`psi-inline=on|off`, `vliw_machine::psi::inline`).
    pub psi_inline: bool,
    /// ψ projection after reduction (`psi-project=on|off`,
    /// `vliw_machine::psi::project`).
    pub psi_project: bool,
    /// ψs that choose between their compare's operands become `min`/`max`
    /// (`psi-minmax=on|off`, `vliw_machine::psi::minmax`).
    pub psi_minmax: bool,
    /// Compares of ψs become ψs of compares (`psi-compares=on|off`,
    /// `vliw_machine::psi::compares`).
    pub psi_compares: bool,
    /// ψs whose arguments carry two values become one choice under one predicate
    /// (`psi-two-values=on|off`, `vliw_machine::psi::two_values`).
    pub psi_two_values: bool,
    /// The RVSDG middle end (`rvsdg=on|off`, `sequentialize=`).
    pub rvsdg: vliw_rvsdg::Options,
    /// Verification between passes (`verify=yes|no|each`).
    pub verify: VerifyLevel,
    /// The caller verified the module just before (the shim does, unless
    /// `verify=no`): `compile_module` does not verify it again.
    pub input_verified: bool,
    /// Points to dump (`dump=after:PASS,before:PASS,...`).
    pub dumps: Vec<DumpPoint>,
    pub dump_format: DumpFormat,
    /// Where dumps go; no dump is made without a sink.
    pub dump_to: Option<DumpSink>,
    /// Per-pass timings are added here when present (`time-passes`).
    pub timings: Option<Arc<Timings>>,
    /// Time the SSA analyses and SSA destruction of every function after instruction
    /// selection, one `vliw-analysis-timing:` line per function on stderr
    /// (`analysis-timing=on|off`; measurement only, the code is the same).
    pub analysis_timing: bool,
}

impl core::fmt::Debug for Options {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Options")
            .field("backend", &self.backend)
            .field("mem2reg", &self.mem2reg)
            .field("dce", &self.dce)
            .field("jump_threading", &self.jump_threading)
            .field("implied_conditions", &self.implied_conditions)
            .field("range_tests", &self.range_tests)
            .field("branch_fold", &self.branch_fold)
            .field("state_threading", &self.state_threading)
            .field("copy_blocks", &self.copy_blocks)
            .field("if_convert", &self.if_convert)
            .field("machine_cse", &self.machine_cse)
            .field("rotate_loads", &self.rotate_loads)
            .field("rotate_load_entries", &self.rotate_load_entries)
            .field("tail_dup", &self.tail_dup)
            .field("sink_common", &self.sink_common)
            .field("noalias_scopes", &self.noalias_scopes)
            .field("machine_licm", &self.machine_licm)
            .field("if_convert_limits", &self.if_convert_limits)
            .field("promotion", &self.promotion)
            .field("ppg", &self.ppg)
            .field("pcp", &self.pcp)
            .field("fold_offsets", &self.fold_offsets)
            .field("fold_pnot", &self.fold_pnot)
            .field("fuse_shift_add", &self.fuse_shift_add)
            .field("split_index", &self.split_index)
            .field("reassociate", &self.reassociate)
            .field("pre_sched", &self.pre_sched)
            .field("pre_sched_region", &self.pre_sched_region)
            .field("modulo", &self.modulo)
            .field("modulo_report", &self.modulo_report)
            .field("modulo_exact", &self.modulo_exact)
            .field("modulo_expand", &self.modulo_expand)
            .field("psi_lowering", &self.psi_lowering)
            .field("psi_copies", &self.psi_copies)
            .field("psi_inline", &self.psi_inline)
            .field("psi_project", &self.psi_project)
            .field("psi_minmax", &self.psi_minmax)
            .field("psi_compares", &self.psi_compares)
            .field("psi_two_values", &self.psi_two_values)
            .field("pcp_options", &self.pcp_options)
            .field("rvsdg", &self.rvsdg)
            .field("verify", &self.verify)
            .field("input_verified", &self.input_verified)
            .field("dumps", &self.dumps)
            .field("dump_format", &self.dump_format)
            .field("dump_to", &self.dump_to.is_some())
            .field("timings", &self.timings.is_some())
            .field("analysis_timing", &self.analysis_timing)
            .finish()
    }
}

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

impl Options {
    /// The defaults: every pass on, verification at stage boundaries, no dumps.
    pub fn new() -> Options {
        Options {
            backend: vliw_machine::Options::default(),
            mem2reg: true,
            dce: true,
            jump_threading: true,
            implied_conditions: true,
            range_tests: true,
            branch_fold: false,
            state_threading: true,
            copy_blocks: true,
            if_convert: true,
            machine_cse: true,
            rotate_loads: true,
            rotate_load_entries: true,
            tail_dup: true,
            sink_common: true,
            noalias_scopes: true,
            machine_licm: true,
            if_convert_limits: vliw_machine::ifconv::Limits::default(),
            promotion: true,
            ppg: true,
            pcp: true,
            fold_offsets: true,
            fold_pnot: true,
            fuse_shift_add: true,
            split_index: true,
            reassociate: true,
            pre_sched: true,
            pre_sched_region: true,
            modulo: true,
            modulo_report: false,
            modulo_exact: true,
            modulo_expand: true,
            pcp_options: vliw_machine::pcp::PcpOptions::default(),
            psi_lowering: PsiLowering::PredicatedCopies,
            psi_copies: vliw_machine::psi::CopyOptions::default(),
            psi_inline: false,
            psi_project: false,
            psi_minmax: true,
            psi_compares: true,
            psi_two_values: true,
            rvsdg: vliw_rvsdg::Options::default(),
            verify: VerifyLevel::Boundaries,
            input_verified: false,
            dumps: Vec::new(),
            dump_format: DumpFormat::Text,
            dump_to: None,
            timings: None,
            analysis_timing: false,
        }
    }

    /// The defaults with `KEY=VALUE` words applied (separated by white space), as
    /// the backend receives them through `-Cllvm-args`.
    pub fn parse(words: &str) -> Result<Options, String> {
        let mut o = Options::new();
        for word in words.split_whitespace() {
            let (k, v) = word
                .split_once('=')
                .ok_or_else(|| format!("`{word}`: expected KEY=VALUE"))?;
            o.set(k, v)?;
        }
        Ok(o)
    }

    /// The keys `set` takes, for callers that route options.
    pub const KEYS: &'static [&'static str] = &[
        "mem2reg",
        "dce",
        "jump-threading",
        "implied-conditions",
        "range-tests",
        "branch-fold",
        "state-threading",
        "copy-blocks",
        "if-convert",
        "machine-cse",
        "rotate-loads",
        "rotate-load-entries",
        "tail-dup",
        "sink-common",
        "noalias-scopes",
        "machine-licm",
        "if-convert-max-ops",
        "if-convert-max-predicates",
        "if-convert-max-blocks",
        "psi-lowering",
        "speculate-loads",
        "if-convert-loops",
        "psi-fold",
        "psi-reorder",
        "psi-sel-where-cheaper",
        "psi-inline",
        "psi-project",
        "psi-minmax",
        "psi-compares",
        "psi-two-values",
        "promotion",
        "ppg",
        "psi-shape",
        "pcp",
        "fold-pnot",
        "fold-offsets",
        "fuse-shift-add",
        "split-index",
        "reassociate",
        "pre-sched",
        "modulo",
        "modulo-report",
        "modulo-exact",
        "modulo-expand",
        "pcp-mode",
        "pcp-max-paths",
        "rvsdg",
        "sequentialize",
        "gamma-ordering",
        "tail-registers",
        "conditional-predicates",
        "speculate",
        "rvsdg-dne",
        "rvsdg-ivr",
        "rvsdg-inline",
        "rvsdg-inline-threshold",
        "rvsdg-fold",
        "rvsdg-strength",
        "rvsdg-gamma-thread",
        "rvsdg-gamma",
        "rvsdg-cne",
        "rvsdg-licm",
        "rvsdg-invert",
        "rvsdg-idiom",
        "rvsdg-induction",
        "rvsdg-loop-prep",
        "rvsdg-version",
        "rvsdg-cleanup",
        "rvsdg-loop-tests",
        "rvsdg-tail-calls",
        "rvsdg-fuse",
        "rvsdg-jam",
        "rvsdg-jam-lanes",
        "rvsdg-jam-loads",
        "rvsdg-unroll",
        "unroll",
        "rvsdg-unroll-factor",
        "rvsdg-unroll-budget",
        "rvsdg-unroll-nests",
        "rvsdg-unroll-peel",
        "rvsdg-unroll-until",
        "rvsdg-memory",
        "rvsdg-promote",
        "rvsdg-mem-split",
        "mem-scopes",
        "rvsdg-mem-split-escaping",
        "rvsdg-cne-gamma",
        "rvsdg-select",
        "rvsdg-select-budget",
        "verify",
        "dump",
        "dump-format",
        "analysis-timing",
        "regalloc",
        "sched",
        "ssa-destruction",
        "jump-tables",
        "jump-table-min-cases",
        "debug-info",
        "unwind-tables",
        "machine",
    ];

    /// Applies one `KEY=VALUE` option: the pipeline's own (`mem2reg=`, `dce=`,
    /// `verify=yes|no|each`, `dump=[before:|after:]PASS,...`, `dump-format=text|dot`,
    /// `analysis-timing=`), or the back end's (`vliw_machine::Options::set`). Unknown
    /// keys, values and pass names are errors that say what is known.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "mem2reg" => self.mem2reg = on_off(key, value)?,
            "dce" => self.dce = on_off(key, value)?,
            "jump-threading" => self.jump_threading = on_off(key, value)?,
            "implied-conditions" => self.implied_conditions = on_off(key, value)?,
            "range-tests" => self.range_tests = on_off(key, value)?,
            "branch-fold" => self.branch_fold = on_off(key, value)?,
            "state-threading" => self.state_threading = on_off(key, value)?,
            "copy-blocks" => self.copy_blocks = on_off(key, value)?,
            "if-convert" => self.if_convert = on_off(key, value)?,
            "machine-cse" => self.machine_cse = on_off(key, value)?,
            "rotate-loads" => self.rotate_loads = on_off(key, value)?,
            "rotate-load-entries" => self.rotate_load_entries = on_off(key, value)?,
            "tail-dup" => self.tail_dup = on_off(key, value)?,
            "sink-common" => self.sink_common = on_off(key, value)?,
            "noalias-scopes" => self.noalias_scopes = on_off(key, value)?,
            "machine-licm" => self.machine_licm = on_off(key, value)?,
            "promotion" => self.promotion = on_off(key, value)?,
            "ppg" => self.ppg = on_off(key, value)?,
            "psi-shape" => {
                self.if_convert_limits.psi_tree = match value {
                    "tree" => true,
                    "flat" => false,
                    _ => {
                        return Err(format!(
                            "psi-shape={value}: unknown shape (known: tree, flat)"
                        ));
                    }
                }
            }
            "pcp" => self.pcp = on_off(key, value)?,
            "fold-offsets" => self.fold_offsets = on_off(key, value)?,
            "fold-pnot" => self.fold_pnot = on_off(key, value)?,
            "fuse-shift-add" => self.fuse_shift_add = on_off(key, value)?,
            "split-index" => self.split_index = on_off(key, value)?,
            "reassociate" => self.reassociate = on_off(key, value)?,
            "modulo" => self.modulo = on_off(key, value)?,
            "modulo-report" => self.modulo_report = on_off(key, value)?,
            "modulo-exact" => self.modulo_exact = on_off(key, value)?,
            "modulo-expand" => self.modulo_expand = on_off(key, value)?,
            "pre-sched" => {
                (self.pre_sched, self.pre_sched_region) = match value {
                    "block" => (true, false),
                    "region" => (true, true),
                    "off" => (false, false),
                    _ => {
                        return Err(format!(
                            "pre-sched={value}: unknown scheduler (known: block, region, off)"
                        ));
                    }
                }
            }
            "pcp-mode" => self.pcp_options.mode = vliw_machine::pcp::Mode::parse(value)?,
            "pcp-max-paths" => {
                self.pcp_options.max_paths = match value.parse() {
                    Ok(n) if n >= 1 => n,
                    _ => {
                        return Err(format!(
                            "pcp-max-paths={value}: expected a number of paths (at least 1)"
                        ));
                    }
                }
            }
            "if-convert-max-ops" => {
                self.if_convert_limits.max_ops = value.parse().map_err(|_| {
                    format!("if-convert-max-ops={value}: expected a number of operations")
                })?
            }
            "if-convert-max-predicates" => {
                self.if_convert_limits.max_predicates = value.parse().map_err(|_| {
                    format!("if-convert-max-predicates={value}: expected a number of predicates")
                })?
            }
            "if-convert-max-blocks" => {
                self.if_convert_limits.max_blocks = match value.parse() {
                    Ok(n) if n >= 2 => n,
                    _ => {
                        return Err(format!(
                            "if-convert-max-blocks={value}: expected a number of blocks (at \
                             least 2)"
                        ));
                    }
                }
            }
            "psi-lowering" => {
                self.psi_lowering = match value {
                    "sel" => PsiLowering::Sel,
                    "predicated-copies" => PsiLowering::PredicatedCopies,
                    _ => {
                        return Err(format!(
                            "psi-lowering={value}: unknown method (known: sel, predicated-copies)"
                        ));
                    }
                }
            }
            "psi-fold" => self.psi_copies.fold = on_off(key, value)?,
            "speculate-loads" => self.if_convert_limits.speculate_loads = on_off(key, value)?,
            "if-convert-loops" => self.if_convert_limits.loop_bodies = on_off(key, value)?,
            "psi-reorder" => self.psi_copies.reorder = on_off(key, value)?,
            "psi-sel-where-cheaper" => self.psi_copies.sel_where_cheaper = on_off(key, value)?,
            "psi-inline" => self.psi_inline = on_off(key, value)?,
            "psi-project" => self.psi_project = on_off(key, value)?,
            "psi-minmax" => self.psi_minmax = on_off(key, value)?,
            "psi-compares" => self.psi_compares = on_off(key, value)?,
            "psi-two-values" => self.psi_two_values = on_off(key, value)?,
            "rvsdg" => self.rvsdg.enabled = on_off(key, value)?,
            "rvsdg-dne" => self.rvsdg.dne = on_off(key, value)?,
            "rvsdg-ivr" => self.rvsdg.ivr = on_off(key, value)?,
            "rvsdg-inline" => self.rvsdg.inline = on_off(key, value)?,
            "rvsdg-inline-threshold" => {
                self.rvsdg.inline_options.threshold = value.parse().map_err(|_| {
                    format!("rvsdg-inline-threshold={value}: expected a number of nodes")
                })?
            }
            "rvsdg-fold" => self.rvsdg.fold = on_off(key, value)?,
            "rvsdg-strength" => self.rvsdg.strength = on_off(key, value)?,
            "rvsdg-gamma-thread" => self.rvsdg.gamma_thread = on_off(key, value)?,
            "rvsdg-gamma" => self.rvsdg.gamma = on_off(key, value)?,
            "rvsdg-cne" => self.rvsdg.cne = on_off(key, value)?,
            "rvsdg-licm" => self.rvsdg.licm = on_off(key, value)?,
            "rvsdg-invert" => self.rvsdg.invert = on_off(key, value)?,
            "rvsdg-idiom" => self.rvsdg.idiom = on_off(key, value)?,
            "rvsdg-induction" => self.rvsdg.induction = on_off(key, value)?,
            "rvsdg-loop-prep" => self.rvsdg.loop_prep = on_off(key, value)?,
            "rvsdg-version" => self.rvsdg.version = on_off(key, value)?,
            "rvsdg-cleanup" => self.rvsdg.cleanup = on_off(key, value)?,
            "rvsdg-loop-tests" => self.rvsdg.loop_tests = on_off(key, value)?,
            "rvsdg-tail-calls" => self.rvsdg.tail_calls = on_off(key, value)?,
            "rvsdg-fuse" => self.rvsdg.fuse = on_off(key, value)?,
            "rvsdg-unroll" => self.rvsdg.unroll = on_off(key, value)?,
            // the short form: `unroll=off`, or `unroll=N` copies (1 = none)
            "unroll" => match value {
                "off" => self.rvsdg.unroll = false,
                _ => {
                    self.rvsdg.unroll_options.factor = value.parse().map_err(|_| {
                        format!("unroll={value}: expected `off` or a number of copies")
                    })?;
                    self.rvsdg.unroll = true;
                }
            },
            "rvsdg-jam" => self.rvsdg.jam = on_off(key, value)?,
            "rvsdg-jam-lanes" => self.rvsdg.jam_lanes = match value {
                "auto" => None,
                _ => Some(value.parse().ok().filter(|&n| n >= 2).ok_or_else(|| {
                    format!(
                        "rvsdg-jam-lanes={value}: expected `auto` or a number of lanes, at least 2"
                    )
                })?),
            },
            "rvsdg-jam-loads" => self.rvsdg.jam_loads = on_off(key, value)?,
            "rvsdg-unroll-factor" => {
                self.rvsdg.unroll_options.factor = value.parse().map_err(|_| {
                    format!("rvsdg-unroll-factor={value}: expected a number of copies")
                })?
            }
            "rvsdg-unroll-budget" => {
                self.rvsdg.unroll_options.budget = value.parse().map_err(|_| {
                    format!("rvsdg-unroll-budget={value}: expected a number of nodes")
                })?
            }
            "rvsdg-unroll-nests" => self.rvsdg.unroll_options.nests = on_off(key, value)?,
            "rvsdg-unroll-peel" => self.rvsdg.unroll_options.peel = on_off(key, value)?,
            "rvsdg-unroll-until" => self.rvsdg.unroll_options.until = on_off(key, value)?,
            "rvsdg-memory" => self.rvsdg.memory = on_off(key, value)?,
            "rvsdg-promote" => self.rvsdg.promote = on_off(key, value)?,
            "rvsdg-mem-split" => self.rvsdg.mem_split = on_off(key, value)?,
            "mem-scopes" => self.rvsdg.split_options.scopes = on_off(key, value)?,
            "rvsdg-mem-split-escaping" => self.rvsdg.split_options.escaping = on_off(key, value)?,
            "rvsdg-cne-gamma" => self.rvsdg.cne_gamma = on_off(key, value)?,
            "rvsdg-select" => self.rvsdg.select = on_off(key, value)?,
            "rvsdg-select-budget" => {
                self.rvsdg.select_budget = value.parse().map_err(|_| {
                    format!("rvsdg-select-budget={value}: expected a number of operations")
                })?
            }
            "sequentialize" => self.rvsdg.sequentialize = vliw_rvsdg::Sequentializer::parse(value)?,
            "gamma-ordering" => self.rvsdg.lawrence.gamma_ordering = on_off(key, value)?,
            "tail-registers" => self.rvsdg.lawrence.tail_registers = on_off(key, value)?,
            "conditional-predicates" => {
                self.rvsdg.lawrence.conditional_predicates = on_off(key, value)?
            }
            "speculate" => self.rvsdg.lawrence.speculate = on_off(key, value)?,
            "analysis-timing" => self.analysis_timing = on_off(key, value)?,
            "verify" => self.verify = VerifyLevel::parse(value)?,
            "dump-format" => {
                self.dump_format = match value {
                    "text" => DumpFormat::Text,
                    "dot" => DumpFormat::Dot,
                    _ => return Err(format!("dump-format={value}: expected text or dot")),
                }
            }
            "dump" => {
                for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    for point in parse_dump_point(item)? {
                        if !self.dumps.contains(&point) {
                            self.dumps.push(point);
                        }
                    }
                }
            }
            _ => self.backend.set(key, value)?,
        }
        Ok(())
    }

    /// The counters of `stats`, when asked for.
    pub fn counters(&self) -> Option<&Counters> {
        self.backend.counters.as_deref()
    }

    pub(crate) fn count(&self, name: &str, n: u64) {
        if let Some(c) = self.counters() {
            c.add(name, n);
        }
    }

    /// Adds the counters of an RVSDG pass to `stats`.
    pub(crate) fn report(&self, report: &vliw_rvsdg::Report) {
        for &(name, n) in report.counters() {
            self.count(name, n);
        }
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

    /// Whether the function is dumped `when` `pass` runs.
    pub(crate) fn dumps_at(&self, when: When, pass: &Pass) -> bool {
        self.dump_to.is_some() && self.dumps.iter().any(|d| d.matches(when, pass))
    }

    pub(crate) fn write_dump(&self, text: &str) {
        if let Some(sink) = &self.dump_to {
            let mut w = sink.lock().unwrap_or_else(|e| e.into_inner());
            let _ = w.write_all(text.as_bytes());
        }
    }
}

/// `after:PASS`, `before:PASS`, `after:all`, or an alias (`isel`, `regalloc`, `final`).
fn parse_dump_point(item: &str) -> Result<Vec<DumpPoint>, String> {
    let known = || {
        let names: Vec<&str> = PIPELINE.iter().map(|p| p.name).collect();
        format!(
            "known: before:PASS or after:PASS with PASS one of {}, or all; the aliases {}",
            names.join(", "),
            DUMP_ALIASES
                .iter()
                .map(|a| a.0)
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let (when, pass) = match item.split_once(':') {
        Some(("after", p)) => (When::After, p),
        Some(("before", p)) => (When::Before, p),
        Some(_) => return Err(format!("dump={item}: unknown dump point ({})", known())),
        None => {
            return match DUMP_ALIASES.iter().find(|a| a.0 == item) {
                Some((_, passes)) => Ok(passes
                    .iter()
                    .map(|p| DumpPoint {
                        when: When::After,
                        pass: p.to_string(),
                    })
                    .collect()),
                None => Err(format!("dump={item}: unknown dump point ({})", known())),
            };
        }
    };
    if pass != "all" && !PIPELINE.iter().any(|p| p.name == pass) {
        return Err(format!("dump={item}: no pass `{pass}` ({})", known()));
    }
    Ok(vec![DumpPoint {
        when,
        pass: pass.to_string(),
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_and_explain_errors() {
        let o = Options::parse("mem2reg=off verify=each dump=after:isel,before:sched").unwrap();
        assert!(!o.mem2reg && o.dce);
        assert_eq!(o.verify, VerifyLevel::Each);
        assert_eq!(o.dumps.len(), 2);
        assert_eq!(o.dumps[1].when, When::Before);
        let o = Options::parse("dump=regalloc,final dump-format=dot regalloc=naive").unwrap();
        let names: Vec<&str> = o.dumps.iter().map(|d| d.pass.as_str()).collect();
        assert_eq!(names, ["ssa-regalloc", "naive-regalloc", "sched", "bundle"]);
        assert_eq!(o.dump_format, DumpFormat::Dot);
        assert_eq!(o.backend.regalloc, vliw_machine::RegAlloc::Naive);
        let e = Options::parse("dump=after:gvn").unwrap_err();
        assert!(e.contains("no pass `gvn`") && e.contains("mem2reg"), "{e}");
        assert!(Options::parse("dump=during:isel").is_err());
        assert!(Options::parse("verify=maybe").unwrap_err().contains("each"));
        assert!(Options::parse("dump-format=svg").is_err());
        assert!(Options::parse("bogus=1").is_err());
        assert!(Options::parse("mem2reg").is_err());
        let o = Options::parse("unroll=8").unwrap();
        assert!(o.rvsdg.unroll && o.rvsdg.unroll_options.factor == 8);
        assert!(!Options::parse("unroll=off").unwrap().rvsdg.unroll);
        assert!(
            Options::parse("unroll=lots")
                .unwrap_err()
                .contains("number of copies")
        );
        assert_eq!(
            Options::parse("rvsdg-inline-threshold=12")
                .unwrap()
                .rvsdg
                .inline_options
                .threshold,
            12
        );
        assert!(
            Options::parse("rvsdg-inline-threshold=many")
                .unwrap_err()
                .contains("number of nodes")
        );
        assert_eq!(
            Options::parse("verify=no").unwrap().verify,
            VerifyLevel::None
        );
        assert_eq!(Options::new().verify, VerifyLevel::Boundaries);
    }

    #[test]
    fn every_key_is_taken() {
        for key in Options::KEYS {
            let value = match *key {
                "verify" => "each",
                "dump" => "after:all",
                "dump-format" => "dot",
                "regalloc" => "naive",
                "sched" => "off",
                "ssa-destruction" => "boissinot",
                "sequentialize" => "structural",
                "machine" => "width=2",
                "jump-table-min-cases" => "8",
                "rvsdg-inline-threshold" => "50",
                "rvsdg-unroll-factor" => "2",
                "rvsdg-unroll-budget" => "100",
                "rvsdg-jam-lanes" => "3",
                "rvsdg-select-budget" => "2",
                "if-convert-max-ops" => "64",
                "if-convert-max-predicates" => "4",
                "if-convert-max-blocks" => "4",
                "psi-lowering" => "sel",
                "psi-shape" => "flat",
                "pcp-mode" => "basic",
                "pcp-max-paths" => "8",
                _ => "off",
            };
            Options::new()
                .set(key, value)
                .unwrap_or_else(|e| panic!("{key}: {e}"));
        }
    }

    #[test]
    fn timings_accumulate_in_running_order() {
        let t = Timings::new();
        t.add("isel", Duration::from_millis(2));
        t.add("emit", Duration::from_millis(1));
        t.add("isel", Duration::from_millis(3));
        let r = t.report();
        assert_eq!(
            r,
            vec![
                ("isel", Duration::from_millis(5), 2),
                ("emit", Duration::from_millis(1), 1)
            ]
        );
    }
}
