//! The RVSDG middle end's options (the pipeline parses them from `-Cllvm-args`).

use crate::module::Sequentializer;
use crate::opt::{InlineOptions, UnrollOptions};

/// Which RVSDG passes run, and how the graph goes back to control flow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Build the RVSDG at all (`rvsdg=on|off`, on by default: the middle end's
    /// optimizer).
    pub enabled: bool,
    /// `sequentialize=lawrence|structural` (by demand, the default).
    pub sequentialize: Sequentializer,
    /// The sub-steps of `sequentialize=lawrence` (`gamma-ordering=on|off`,
    /// `tail-registers=on|off`, `conditional-predicates=on|off`, `speculate=on|off`).
    pub lawrence: crate::lawrence::emit::EmitOptions,
    /// Dead node elimination (`rvsdg-dne=on|off`).
    pub dne: bool,
    /// Invariant value redirection (`rvsdg-ivr=on|off`).
    pub ivr: bool,
    /// Inlining (`rvsdg-inline=on|off`).
    pub inline: bool,
    /// The inliner's cost model (`rvsdg-inline-threshold=N`).
    pub inline_options: InlineOptions,
    /// Constant folding, algebraic identities, safe divisions (`rvsdg-fold=on|off`).
    pub fold: bool,
    /// Strength reduction of multiplications and divisions by constants
    /// (`rvsdg-strength=on|off`).
    pub strength: bool,
    /// γ simplification (`rvsdg-gamma=on|off`).
    pub gamma: bool,
    /// γ threading (`rvsdg-gamma-thread=on|off`).
    pub gamma_thread: bool,
    /// Common node elimination (`rvsdg-cne=on|off`).
    pub cne: bool,
    /// Loop-invariant code motion (`rvsdg-licm=on|off`).
    pub licm: bool,
    /// θ-γ inversion (`rvsdg-invert=on|off`).
    pub invert: bool,
    /// Loop idiom recognition (`rvsdg-idiom=on|off`).
    pub idiom: bool,
    /// Strength reduction of induction addresses (`rvsdg-induction=on|off`).
    pub induction: bool,
    /// Loop preparation before versioning: promotion, invariant values and loads
    /// through bounds checks (`rvsdg-loop-prep=on|off`).
    pub loop_prep: bool,
    /// Loop versioning for memory disambiguation (`rvsdg-version=on|off`).
    pub version: bool,
    /// A second round of CNE and LICM after the loop transformations
    /// (`rvsdg-cleanup=on|off`).
    pub cleanup: bool,
    /// θ predicates that test a γ's constant exits made to test the γ's compare,
    /// after the loop transformations (`rvsdg-loop-tests=on|off`).
    pub loop_tests: bool,
    /// Tail recursion as loops (`rvsdg-tail-calls=on|off`).
    pub tail_calls: bool,
    /// Fusion of sibling loops of equal trip counts that only read memory
    /// (`rvsdg-fuse=on|off`).
    pub fuse: bool,
    /// Unroll-and-jam of counted loops around a pure while loop
    /// (`rvsdg-jam=on|off`).
    pub jam: bool,
    /// How many lanes the jammed while loop runs (`rvsdg-jam-lanes=N`; `None`:
    /// `auto`, by the inner loop's critical path).
    pub jam_lanes: Option<usize>,
    /// Whether inner loops that load are jammed too, their loads speculative
    /// (`rvsdg-jam-loads=on|off`).
    pub jam_loads: bool,
    /// Unrolling of counted innermost loops (`rvsdg-unroll=on|off`).
    pub unroll: bool,
    /// The unroller's factor and size budget (`rvsdg-unroll-factor=N`,
    /// `rvsdg-unroll-budget=N`).
    pub unroll_options: UnrollOptions,
    /// Store-to-load forwarding, redundant loads, dead stores to private stack slots
    /// (`rvsdg-memory=on|off`).
    pub memory: bool,
    /// Scalar promotion of stack slot cells in loops (`rvsdg-promote=on|off`, on by
    /// default).
    pub promote: bool,
    /// Memory state splitting by disjoint locations (`rvsdg-mem-split=on|off`).
    pub mem_split: bool,
    /// What the split does besides (`mem-scopes`, `rvsdg-mem-split-escaping`).
    pub split_options: crate::opt::SplitOptions,
    /// CNE of γ arms' nodes against their γ's region, loads included
    /// (`rvsdg-cne-gamma=on|off`, on by default).
    pub cne_gamma: bool,
    /// γ speculation into selects (`rvsdg-select=on|off`, off by default).
    pub select: bool,
    /// What one γ's speculated operations and selects may cost
    /// (`rvsdg-select-budget=N`).
    pub select_budget: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            enabled: true,
            sequentialize: Sequentializer::Lawrence,
            lawrence: Default::default(),
            dne: true,
            ivr: true,
            inline: true,
            inline_options: InlineOptions::default(),
            fold: true,
            strength: true,
            gamma: true,
            gamma_thread: true,
            cne: true,
            licm: true,
            invert: true,
            idiom: true,
            induction: true,
            loop_prep: true,
            version: true,
            cleanup: true,
            loop_tests: true,
            tail_calls: true,
            fuse: true,
            jam: true,
            jam_lanes: None,
            jam_loads: true,
            unroll: true,
            unroll_options: UnrollOptions::default(),
            memory: true,
            promote: true,
            mem_split: true,
            split_options: crate::opt::SplitOptions::default(),
            cne_gamma: true,
            select: false,
            select_budget: crate::opt::select::DEFAULT_BUDGET,
        }
    }
}
