//! The pipeline: every pass a function goes through, in order, in one list.
//!
//! A pass takes the function at one [`Stage`] and leaves it at the same or the next.
//! Some passes are alternatives chosen by an option (`regalloc=ssa` runs
//! `ssa-regalloc`, `regalloc=naive` runs `ssa-destruction` and `naive-regalloc`);
//! `runs` says whether a pass runs under the given options, and the test
//! `stages_chain_under_every_option` checks that the passes that run always form a
//! chain of stages from the SSA IR to code. A pass with a [`Switch`] can be switched
//! off so that what it contributes can be measured (`./y.sh bench` builds its
//! ablation table from the switches, through `-Cllvm-args=passes`).
//!
//! To add a pass: write it as a function of its stage in its own crate, and add one
//! entry here.

use vliw_ir::{Function, Module};
use vliw_machine::emit::FunctionCode;
use vliw_machine::{CompileError, MachFunction, RegAlloc, Sched};
use vliw_rvsdg::RvsdgModule;

use crate::Options;

/// The forms a function takes on its way through the pipeline.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Stage {
    /// The SSA IR (`vliw_ir::Function`).
    Ir,
    /// The codegen unit as an RVSDG (`vliw_rvsdg::RvsdgModule`): a stage of the whole
    /// module, not of one function.
    Rvsdg,
    /// Machine SSA: target operations on virtual registers, block parameters.
    MachineSsa,
    /// Machine code out of SSA: virtual registers with several definitions.
    MachineVirtual,
    /// Physical registers only (frame slots may still be symbolic).
    Allocated,
    /// Allocated and cut into bundles.
    Bundled,
    /// Encoded: syllables, relocations, line table.
    Code,
}

impl Stage {
    /// The machine IR verifier's phase of a machine stage.
    pub fn machine_phase(self) -> Option<vliw_machine::mir::Phase> {
        use vliw_machine::mir::Phase;
        match self {
            Stage::MachineSsa => Some(Phase::Ssa),
            Stage::MachineVirtual => Some(Phase::Virtual),
            Stage::Allocated => Some(Phase::Allocated),
            Stage::Bundled => Some(Phase::Bundled),
            Stage::Ir | Stage::Rvsdg | Stage::Code => None,
        }
    }

    /// The middle end's stages, where passes see the whole codegen unit (an SSA IR
    /// pass runs on each function in turn).
    pub fn is_module_wide(self) -> bool {
        matches!(self, Stage::Ir | Stage::Rvsdg)
    }

    pub fn name(self) -> &'static str {
        match self {
            Stage::Ir => "ir",
            Stage::Rvsdg => "rvsdg",
            Stage::MachineSsa => "machine-ssa",
            Stage::MachineVirtual => "machine-virtual",
            Stage::Allocated => "allocated",
            Stage::Bundled => "bundled",
            Stage::Code => "code",
        }
    }
}

/// How a pass is switched on and off, whether it is on by default, and the name of
/// what that measures.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Switch {
    /// Short name of the technique ("without NAME" or "with NAME" in the ablation
    /// table).
    pub name: &'static str,
    /// The option (`KEY=VALUE`) that switches it off, i.e. selects the baseline.
    pub off: &'static str,
    /// The option that switches it on.
    pub on: &'static str,
    /// Whether it is on without either option (a new pass stays off until it is
    /// correct on every suite; the fuzz suite and the ablation then switch it on).
    pub default_on: bool,
}

impl Switch {
    /// The option that changes it from its default: `off`, or `on` for a pass that is
    /// off by default.
    pub fn flip(&self) -> &'static str {
        if self.default_on { self.off } else { self.on }
    }
}

/// What a pass does to the function.
#[derive(Copy, Clone)]
pub enum Run {
    /// SSA IR to SSA IR.
    Ir(fn(&mut Function, &Options)),
    /// The SSA IR module to its RVSDG.
    Build(fn(&Module, &Options) -> RvsdgModule),
    /// RVSDG to RVSDG.
    Rvsdg(fn(&mut RvsdgModule, &Options)),
    /// The RVSDG back to the SSA IR: the module's functions replaced.
    Sequentialize(fn(&RvsdgModule, &mut Module, &Options)),
    /// SSA IR to machine SSA.
    Lower(fn(&Module, &Function, &Options) -> Result<MachFunction, CompileError>),
    /// Machine code to machine code (bundling included: bundles are part of the IR).
    Machine(fn(&mut MachFunction, &Options) -> Result<(), CompileError>),
    /// Bundled machine code to encoded code.
    Emit(fn(&MachFunction, &Options) -> Result<FunctionCode, CompileError>),
}

/// One entry of the pipeline.
#[derive(Copy, Clone)]
pub struct Pass {
    /// Its name: in `dump=after:NAME`, `time-passes` and `passes`.
    pub name: &'static str,
    pub from: Stage,
    pub to: Stage,
    /// What it does, in a few words.
    pub about: &'static str,
    /// The option that switches it off, if it can be.
    pub switch: Option<Switch>,
    /// Whether it runs under these options.
    pub runs: fn(&Options) -> bool,
    pub run: Run,
}

fn always(_: &Options) -> bool {
    true
}

/// The pipeline, in order.
pub const PIPELINE: &[Pass] = &[
    Pass {
        name: "mem2reg",
        from: Stage::Ir,
        to: Stage::Ir,
        about: "stack slots whose address does not escape promoted to SSA values, \
                aggregates split into fields (vliw_opt::mem2reg)",
        switch: Some(Switch {
            name: "mem2reg",
            off: "mem2reg=off",
            on: "mem2reg=on",
            default_on: true,
        }),
        runs: |o| o.mem2reg,
        run: Run::Ir(|f, o| {
            let s = vliw_opt::mem2reg(f);
            o.count("mem2reg.promoted", s.promoted as u64);
            o.count("mem2reg.fields", s.fields as u64);
            o.count("mem2reg.loads", s.loads as u64);
            o.count("mem2reg.stores", s.stores as u64);
            o.count("mem2reg.params", s.params as u64);
        }),
    },
    Pass {
        name: "dce",
        from: Stage::Ir,
        to: Stage::Ir,
        about: "unused instructions without side effects removed (vliw_opt::dce)",
        switch: Some(Switch {
            name: "dce",
            off: "dce=off",
            on: "dce=on",
            default_on: true,
        }),
        runs: |o| o.dce,
        run: Run::Ir(|f, o| o.count("dce.removed", vliw_opt::dce(f).removed as u64)),
    },
    Pass {
        name: "rvsdg-build",
        from: Stage::Ir,
        to: Stage::Rvsdg,
        about: "every function built as a λ of one RVSDG: control flow restructured into \
                tail-controlled loops (θ) and decisions (γ) as Bahmann et al. describe, \
                side effects on memory and I/O state edges; when rvsdg=on \
                (vliw_rvsdg::build_module)",
        switch: Some(Switch {
            name: "rvsdg",
            off: "rvsdg=off",
            on: "rvsdg=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled,
        run: Run::Build(|m, o| {
            let mut report = vliw_rvsdg::Report::default();
            let rm = vliw_rvsdg::build_module(m, &mut report);
            o.report(&report);
            rm
        }),
    },
    Pass {
        name: "rvsdg-tail-calls",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "tail recursion as a loop: a λ whose every call of itself is a tail call \
                (a bool's normalization allowed on the way) becomes a θ around its body, \
                the calls the next iteration's parameters (vliw_rvsdg::opt::tail_calls)",
        switch: Some(Switch {
            name: "rvsdg-tail-calls",
            off: "rvsdg-tail-calls=off",
            on: "rvsdg-tail-calls=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.tail_calls,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::eliminate_tail_calls(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-inline",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "inlining: direct calls of small λs of the unit replaced by copies of \
                their bodies, callees first, honouring inline(never|always), cold, \
                recursion and rvsdg-inline-threshold= (vliw_rvsdg::opt::inline)",
        switch: Some(Switch {
            name: "rvsdg-inline",
            off: "rvsdg-inline=off",
            on: "rvsdg-inline=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.inline,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::inline_calls(
                &mut rm.graph,
                &rm.roots,
                &o.rvsdg.inline_options,
                &mut report,
            );
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-invert",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "θ-γ inversion (loop rotation): a θ that tests at its head becomes a test \
                before the loop and a loop that tests after its work \
                (vliw_rvsdg::opt::invert)",
        switch: Some(Switch {
            name: "rvsdg-invert",
            off: "rvsdg-invert=off",
            on: "rvsdg-invert=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.invert,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::invert_loops(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-ivr",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "invariant value redirection: what a γ or θ only passes through is read \
                from its origin (vliw_rvsdg::opt::ivr)",
        switch: Some(Switch {
            name: "rvsdg-ivr",
            off: "rvsdg-ivr=off",
            on: "rvsdg-ivr=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.ivr,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::invariant_value_redirection(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-select",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "γ speculation into selects: a two-arm γ whose arms only compute a few \
                pure operations runs both and selects (vliw_rvsdg::opt::select; off by \
                default)",
        switch: Some(Switch {
            name: "rvsdg-select",
            off: "rvsdg-select=off",
            on: "rvsdg-select=on",
            default_on: false,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.select,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::speculate_gammas(&mut rm.graph, o.rvsdg.select_budget, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-fold",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "normal forms: constant folding with the IR's semantics, algebraic \
                identities, divisions by safe constants made safe, constants carried \
                into γ arms and θ bodies (vliw_rvsdg::opt::fold)",
        switch: Some(Switch {
            name: "rvsdg-fold",
            off: "rvsdg-fold=off",
            on: "rvsdg-fold=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.fold,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::fold(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-strength",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "strength reduction: multiplications by powers of two as shifts, \
                divisions and remainders by constants as shifts, masks and \
                multiplications by magic numbers (vliw_rvsdg::opt::strength)",
        switch: Some(Switch {
            name: "rvsdg-strength",
            off: "rvsdg-strength=off",
            on: "rvsdg-strength=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.strength,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::strength_reduction(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-gamma-thread",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "γ threading: a small γ whose predicate an earlier γ's arms decide moves \
                into those arms, the decided ones getting its chosen arm without a test \
                (a flag of an invoke: the landing pad only where the call is) \
                (vliw_rvsdg::opt::gamma_thread)",
        switch: Some(Switch {
            name: "rvsdg-gamma-thread",
            off: "rvsdg-gamma-thread=off",
            on: "rvsdg-gamma-thread=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.gamma_thread,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::thread_gammas(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-gamma",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "γ simplification: a γ whose arm is known replaced by that arm, pure \
                computations common to every arm hoisted before it, pure nodes used in one \
                arm only sunk into it (vliw_rvsdg::opt::gamma)",
        switch: Some(Switch {
            name: "rvsdg-gamma",
            off: "rvsdg-gamma=off",
            on: "rvsdg-gamma=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.gamma,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::gamma_simplification(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-cne",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "common node elimination: congruent pure nodes, γ entry and exit variables \
                and θ loop variables merged (vliw_rvsdg::opt::cne)",
        switch: Some(Switch {
            name: "rvsdg-cne",
            off: "rvsdg-cne=off",
            on: "rvsdg-cne=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.cne,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::common_node_elimination(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-licm",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "loop-invariant code motion: pure computations of invariant values hoisted \
                out of θs and out of the arms of their bodies' γs, innermost first \
                (vliw_rvsdg::opt::licm)",
        switch: Some(Switch {
            name: "rvsdg-licm",
            off: "rvsdg-licm=off",
            on: "rvsdg-licm=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.licm,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::loop_invariant_code_motion(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-idiom",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "loop idiom recognition: a loop that computes what one instruction does \
                (clearing the lowest set bit until none is left: popcnt) replaced by it \
                (vliw_rvsdg::opt::idiom)",
        switch: Some(Switch {
            name: "rvsdg-idiom",
            off: "rvsdg-idiom=off",
            on: "rvsdg-idiom=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.idiom,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            // the loop variables that inversion and restructuring leave dead hide
            // the shapes: they go first
            vliw_rvsdg::opt::dead_node_elimination(&mut rm.graph, &rm.roots, &mut report);
            vliw_rvsdg::opt::recognize_idioms(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-promote",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "scalar promotion of stack slot cells in loops: a cell of a slot whose \
                address has not escaped when an outermost loop runs, and that the loop \
                reaches only through its own loads and stores of it, is carried as a \
                loop variable, loaded before the loop and stored after it \
                (vliw_rvsdg::opt::memory::promote)",
        switch: Some(Switch {
            name: "rvsdg-promote",
            off: "rvsdg-promote=off",
            on: "rvsdg-promote=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.promote,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::promote_loop_cells(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-loop-prep",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "loop preparation for versioning: the pure computations of a bounds \
                check's passing arm hoisted before it, values that checks pass through \
                read from before them, and invariant loads that only such checks \
                separate from the loop's start hoisted, so that versioning sees a \
                counted loop with invariant lengths and bases \
                (vliw_rvsdg::opt::loop_prep)",
        switch: Some(Switch {
            name: "rvsdg-loop-prep",
            off: "rvsdg-loop-prep=off",
            on: "rvsdg-loop-prep=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.loop_prep,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::prepare_loops(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-version",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "loop versioning: a counted innermost θ that stores through one pointer and \
                accesses another runs as a copy with alias scopes on its loads and stores \
                when a check before it finds the pointers' byte ranges apart, and one whose \
                bounds checks pass for its last index as a copy without them (IRCE); as it \
                was otherwise (vliw_rvsdg::opt::version)",
        switch: Some(Switch {
            name: "rvsdg-version",
            off: "rvsdg-version=off",
            on: "rvsdg-version=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.version,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::version_loops(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-fuse",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "loop fusion: sibling θs whose predicates are congruent (equal trip \
                counts) and whose bodies only read memory become one θ; sibling γs on \
                one predicate whose arms hold θs merged first (vliw_rvsdg::opt::fuse)",
        switch: Some(Switch {
            name: "rvsdg-fuse",
            off: "rvsdg-fuse=off",
            on: "rvsdg-fuse=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.fuse,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::fuse_loops(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-jam",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "unroll-and-jam of while loops: a counted θ around one pure inner θ is \
                unrolled by the lane count and the inner loop's copies run side by side \
                as one θ, each lane under its own activity flag (vliw_rvsdg::opt::jam)",
        switch: Some(Switch {
            name: "rvsdg-jam",
            off: "rvsdg-jam=off",
            on: "rvsdg-jam=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.jam,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::jam_loops(
                &mut rm.graph,
                o.rvsdg.jam_lanes,
                o.rvsdg.jam_loads,
                &mut report,
            );
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-unroll",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "loop unrolling: the body of a counted innermost θ copied k times into \
                one iteration of a guarded loop, the original θ left for the remaining \
                iterations (vliw_rvsdg::opt::unroll)",
        switch: Some(Switch {
            name: "rvsdg-unroll",
            off: "rvsdg-unroll=off",
            on: "rvsdg-unroll=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.unroll,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::unroll_loops(&mut rm.graph, &o.rvsdg.unroll_options, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-memory",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "memory optimizations: stack copies of read-only data read in place, \
                loads of what an earlier store wrote or load read \
                forwarded along the memory state, dead stores to stack slots that do not \
                escape removed (vliw_rvsdg::opt::memory)",
        switch: Some(Switch {
            name: "rvsdg-memory",
            off: "rvsdg-memory=off",
            on: "rvsdg-memory=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.memory,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::memory_optimization(&mut rm.graph, &rm.read_only, &mut report);
            // what forwarding made visible: pointers that crossed regions as integers,
            // and then the stack cells that loops reach through them
            let trips = vliw_rvsdg::opt::remove_pointer_round_trips(&mut rm.graph);
            report.count("memory.pointer-round-trips", trips);
            if trips > 0 && o.rvsdg.promote {
                let mut quiet = vliw_rvsdg::Report::default();
                vliw_rvsdg::opt::dead_node_elimination(&mut rm.graph, &rm.roots, &mut quiet);
                vliw_rvsdg::opt::promote_loop_cells(&mut rm.graph, &mut report);
            }
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-mem-split",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "memory state splitting: one memory state per private stack slot, per \
                noalias pointer parameter that does not escape, and one for the rest, so \
                that accesses to disjoint objects do not order each other; then, when on, \
                rvsdg-cne and rvsdg-licm again, merging and hoisting loads too along the \
                split states (vliw_rvsdg::opt::memory::split)",
        switch: Some(Switch {
            name: "rvsdg-mem-split",
            off: "rvsdg-mem-split=off",
            on: "rvsdg-mem-split=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.mem_split,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::split_memory_states(&mut rm.graph, o.rvsdg.split_options, &mut report);
            if o.rvsdg.cne {
                vliw_rvsdg::opt::common_node_elimination_with_loads(&mut rm.graph, &mut report);
            }
            if o.rvsdg.licm {
                vliw_rvsdg::opt::loop_invariant_code_motion_with_loads(&mut rm.graph, &mut report);
            }
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-cne-gamma",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "common node elimination into γ arms: a node of an arm congruent to one of \
                the γ's region before it (a load of the same address and memory version, \
                an equal pure computation) reads that node's value through an entry \
                variable (vliw_rvsdg::opt::cne)",
        switch: Some(Switch {
            name: "rvsdg-cne-gamma",
            off: "rvsdg-cne-gamma=off",
            on: "rvsdg-cne-gamma=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.cne_gamma,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::common_node_elimination_into_gammas(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-induction",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "strength reduction of induction addresses: base + s·i + d in a loop \
                becomes a pointer advanced by s·step, d folded into loads and stores \
                (vliw_rvsdg::opt::induction)",
        switch: Some(Switch {
            name: "rvsdg-induction",
            off: "rvsdg-induction=off",
            on: "rvsdg-induction=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.induction,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::reduce_induction_addresses(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-cleanup",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "a second round of rvsdg-cne and rvsdg-licm (those switched on) over what \
                versioning, unrolling and induction pointers made: their loop invariant \
                strides and first pointers hoisted, their equal constants and products \
                merged",
        switch: Some(Switch {
            name: "rvsdg-cleanup",
            off: "rvsdg-cleanup=off",
            on: "rvsdg-cleanup=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.cleanup,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            // (not rvsdg-fold: a second folding added 21 spilled values to the
            // programs benchmark, 28 -> 49, and nothing to the kernels)
            if o.rvsdg.cne {
                vliw_rvsdg::opt::common_node_elimination(&mut rm.graph, &mut report);
            }
            if o.rvsdg.licm {
                vliw_rvsdg::opt::loop_invariant_code_motion(&mut rm.graph, &mut report);
            }
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-loop-tests",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "loop tests as compares: a θ whose predicate tests a γ exit that is 1 in \
                the arm of the γ's compare and 0 in the other (a `while i < n { i += 1 }` \
                that carries whether it went on) tests the compare itself, after the \
                loop transformations, so that the modulo scheduler finds a loop that \
                ends on a compare (vliw_rvsdg::opt::loop_tests)",
        switch: Some(Switch {
            name: "rvsdg-loop-tests",
            off: "rvsdg-loop-tests=off",
            on: "rvsdg-loop-tests=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.loop_tests,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::loop_tests_as_compares(&mut rm.graph, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "rvsdg-dne",
        from: Stage::Rvsdg,
        to: Stage::Rvsdg,
        about: "dead node elimination: unused nodes, γ and θ variables, and λs nothing \
                refers to removed (vliw_rvsdg::opt::dne)",
        switch: Some(Switch {
            name: "rvsdg-dne",
            off: "rvsdg-dne=off",
            on: "rvsdg-dne=on",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled && o.rvsdg.dne,
        run: Run::Rvsdg(|rm, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::opt::dead_node_elimination(&mut rm.graph, &rm.roots, &mut report);
            o.report(&report);
        }),
    },
    Pass {
        name: "sequentialize",
        from: Stage::Rvsdg,
        to: Stage::Ir,
        about: "the RVSDG back to control flow by demand, Lawrence's \
                proceduralization (sequentialize=lawrence, the default), or each γ a \
                branch in its place (sequentialize=structural) \
                (vliw_rvsdg::sequentialize_module)",
        switch: Some(Switch {
            name: "lawrence",
            off: "sequentialize=structural",
            on: "sequentialize=lawrence",
            default_on: true,
        }),
        runs: |o| o.rvsdg.enabled,
        run: Run::Sequentialize(|rm, m, o| {
            let mut report = vliw_rvsdg::Report::default();
            vliw_rvsdg::sequentialize_module(
                rm,
                m,
                o.rvsdg.sequentialize,
                o.rvsdg.lawrence,
                &mut report,
            );
            o.report(&report);
        }),
    },
    Pass {
        name: "jump-threading",
        from: Stage::Ir,
        to: Stage::Ir,
        about: "a branch to a block that only branches again goes straight on when it can \
                tell where: the block only jumps, or tests a constant the branch passes \
                (the join of a θ's predicate after structural destruction); block \
                parameters every branch passes one constant become that constant \
                (vliw_opt::jump_threading)",
        switch: Some(Switch {
            name: "jump-threading",
            off: "jump-threading=off",
            on: "jump-threading=on",
            default_on: true,
        }),
        runs: |o| o.jump_threading,
        run: Run::Ir(|f, o| {
            let stats = vliw_opt::jump_threading(f);
            o.count("jump-threading.threaded", stats.threaded as u64);
            o.count("jump-threading.removed-blocks", stats.removed_blocks as u64);
            o.count("jump-threading.localized", stats.localized as u64);
            o.count(
                "jump-threading.constant-params",
                stats.constant_params as u64,
            );
        }),
    },
    Pass {
        name: "implied-conditions",
        from: Stage::Ir,
        to: Stage::Ir,
        about: "compares and branches that the branches dominating them decide become \
                constants and jumps: the relations a block knows from the edge that \
                enters it, chains of at most two bounds (`i < mid`, `mid = n >> 1`: \
                `i < n`) (vliw_opt::implied_conditions)",
        switch: Some(Switch {
            name: "implied-conditions",
            off: "implied-conditions=off",
            on: "implied-conditions=on",
            default_on: true,
        }),
        runs: |o| o.implied_conditions,
        run: Run::Ir(|f, o| {
            let stats = vliw_opt::implied_conditions(f);
            o.count("implied-conditions.compares", stats.compares as u64);
            o.count("implied-conditions.branches", stats.branches as u64);
            o.count(
                "implied-conditions.removed-blocks",
                stats.removed_blocks as u64,
            );
        }),
    },
    Pass {
        name: "noalias-scopes",
        from: Stage::Ir,
        to: Stage::Ir,
        about: "loads and stores whose address comes from one noalias pointer parameter \
                (through ptradds and block parameters that agree) get that parameter's \
                alias scope, so that the machine schedulers do not order accesses \
                through different ones (vliw_opt::scope_noalias_accesses)",
        switch: Some(Switch {
            name: "noalias-scopes",
            off: "noalias-scopes=off",
            on: "noalias-scopes=on",
            default_on: true,
        }),
        runs: |o| o.noalias_scopes,
        run: Run::Ir(|f, o| {
            let stats = vliw_opt::scope_noalias_accesses(f);
            o.count("noalias-scopes.functions", stats.functions as u64);
            o.count("noalias-scopes.scoped", stats.scoped as u64);
        }),
    },
    Pass {
        name: "range-tests",
        from: Stage::Ir,
        to: Stage::Ir,
        about: "two tests in a row that lead to one place and compare one value with \
                constants become one compare when the values that reach the shared place \
                form a range: `(x - lo) <u len` (`b'a'..=b'z'`) (vliw_opt::fold_range_tests)",
        switch: Some(Switch {
            name: "range-tests",
            off: "range-tests=off",
            on: "range-tests=on",
            default_on: true,
        }),
        runs: |o| o.range_tests,
        run: Run::Ir(|f, o| {
            let stats = vliw_opt::fold_range_tests(f);
            o.count("range-tests.folded", stats.ranges as u64);
        }),
    },
    Pass {
        name: "branch-fold",
        from: Stage::Ir,
        to: Stage::Ir,
        about: "two tests in a row that lead to one place become one test of both \
                conditions (`a || b` to one join: the second block's few pure operations \
                move up, a bor joins the conditions, the block goes) \
                (vliw_opt::branch_fold)",
        switch: Some(Switch {
            name: "branch-fold",
            off: "branch-fold=off",
            on: "branch-fold=on",
            default_on: false,
        }),
        runs: |o| o.branch_fold,
        run: Run::Ir(|f, o| {
            let stats = vliw_opt::branch_fold(f);
            o.count("branch-fold.folded", stats.folded as u64);
            o.count("branch-fold.speculated", stats.speculated as u64);
            o.count("branch-fold.ranges", stats.ranges as u64);
        }),
    },
    Pass {
        name: "state-threading",
        from: Stage::Ir,
        to: Stage::Ir,
        about: "a loop that dispatches on a state its own paths set to constants goes \
                from each path straight to its state's case: the small blocks between \
                (the latch) copied into the paths, the dispatch's values passed as block \
                arguments, each edge threaded; kept only where every loop keeps one \
                header (vliw_opt::state_threading)",
        switch: Some(Switch {
            name: "state-threading",
            off: "state-threading=off",
            on: "state-threading=on",
            default_on: true,
        }),
        runs: |o| o.state_threading,
        run: Run::Ir(|f, o| {
            let stats = vliw_opt::state_threading(f);
            o.count("state-threading.dispatches", stats.dispatches as u64);
            o.count("state-threading.copied", stats.copied as u64);
            o.count("state-threading.threaded", stats.threaded as u64);
            o.count("state-threading.irreducible", stats.irreducible as u64);
            o.count("state-threading.merged", stats.merged as u64);
        }),
    },
    Pass {
        name: "isel",
        from: Stage::Ir,
        to: Stage::MachineSsa,
        about: "instruction selection and legalization into machine SSA; dense switches \
                through jump tables unless jump-tables=off (vliw_machine::lower)",
        switch: Some(Switch {
            name: "jump-tables",
            off: "jump-tables=off",
            on: "jump-tables=on",
            default_on: true,
        }),
        runs: always,
        run: Run::Lower(|m, f, o| {
            let mf = vliw_machine::lower_function(m, f, &o.backend)?;
            o.count("isel.ops", mf.num_insts() as u64);
            Ok(mf)
        }),
    },
    Pass {
        name: "sink-common",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "sinking common code from predecessors: operations that every predecessor \
                of a join performs alike (a counter's load, addition and store in each \
                arm of a decision tree) done once in the join on its parameters, loads \
                and stores at differing offsets through an address parameter \
                (vliw_machine::sink_common)",
        switch: Some(Switch {
            name: "sink-common",
            off: "sink-common=off",
            on: "sink-common=on",
            default_on: true,
        }),
        runs: |o| o.sink_common,
        run: Run::Machine(|mf, o| {
            let s = vliw_machine::sink_common::sink_common_code(mf);
            o.count("sink-common.joins", s.joins as u64);
            o.count("sink-common.sunk", s.sunk as u64);
            o.count("sink-common.removed", s.removed as u64);
            o.count("sink-common.addresses", s.addresses as u64);
            Ok(())
        }),
    },
    Pass {
        name: "ppg",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "analysis only: the Predicate Partition Graphs of the function's CFG, one per \
                level of its loop forest (Gindraud et al., Alg. 5), built and checked when \
                if-convert=on ppg=on under verify=each or a dump of it; dump=after:ppg \
                dump-format=dot draws them (vliw_machine::ifconv::ppg)",
        switch: None,
        // an analysis for checks and dumps: built under verify=each or when dumped
        runs: |o| {
            o.if_convert
                && o.ppg
                && (o.verify == crate::VerifyLevel::Each
                    || o.dumps.iter().any(|d| d.pass == "ppg" || d.pass == "all"))
        },
        run: Run::Machine(|mf, o| {
            match vliw_machine::ifconv::ppg::function_ppg(mf) {
                Ok(forest) => {
                    forest.check().map_err(|(region, e)| {
                        vliw_machine::CompileError::new(
                            &mf.name,
                            format!(
                                "the predicate partition graph of region {region:?} is \
                                 inconsistent: {e}"
                            ),
                        )
                    })?;
                    o.count("ppg.functions", 1);
                    o.count("ppg.regions", forest.num_regions() as u64);
                }
                Err(_) => o.count("ppg.refused", 1),
            }
            Ok(())
        }),
    },
    Pass {
        name: "if-convert",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "if-conversion into Psi-SSA: acyclic single-entry regions chosen by a cost \
                model from the machine description become one block of guarded and \
                speculated operations, block parameters of joins ψ operations \
                (vliw_machine::ifconv)",
        switch: Some(Switch {
            name: "if-convert",
            off: "if-convert=off",
            on: "if-convert=on",
            default_on: true,
        }),
        runs: |o| o.if_convert,
        run: Run::Machine(|mf, o| {
            use vliw_machine::ifconv::Promotion;
            let mut limits = o.if_convert_limits;
            limits.promotion = match (o.promotion, o.ppg) {
                (false, _) => Promotion::Off,
                (true, false) => Promotion::First,
                (true, true) => Promotion::Ppg,
            };
            let s = vliw_machine::ifconv::if_convert(mf, &o.backend.machine, &limits);
            o.count("ifconv.regions", s.regions as u64);
            o.count("ifconv.blocks", s.blocks as u64);
            o.count("ifconv.rejected", s.rejected as u64);
            o.count("ifconv.predicates", s.predicates as u64);
            o.count("ifconv.unc-compares", s.unc_compares as u64);
            o.count("ifconv.logic-ops", s.logic_ops as u64);
            o.count("ifconv.psis", s.psis as u64);
            o.count("ifconv.speculated", s.speculated as u64);
            o.count("ifconv.speculated-loads", s.speculated_loads as u64);
            o.count("ifconv.guarded", s.guarded as u64);
            o.count("ifconv.side-exits", s.side_exits as u64);
            o.count("ifconv.chain-cuts", s.chain_cuts as u64);
            Ok(())
        }),
    },
    Pass {
        name: "pcp",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "constant propagation on predicated code (Knoop and Rüthing): path-sensitive \
                in each hyperblock on its predicated value graph (pcp-mode=basic|full, at \
                most pcp-max-paths= paths, else without paths), a worklist over blocks and \
                loops; constants materialized, off-predicated operations removed, compares, \
                predicate logic and ψs simplified; when if-convert=on pcp=on \
                (vliw_machine::pcp)",
        switch: Some(Switch {
            name: "pcp",
            off: "pcp=off",
            on: "pcp=on",
            default_on: true,
        }),
        runs: |o| o.if_convert && o.pcp,
        run: Run::Machine(|mf, o| {
            let s = vliw_machine::pcp::propagate_constants(mf, &o.pcp_options);
            o.count("pcp.constants", s.constants as u64);
            o.count(
                "pcp.off-predicated-removed",
                s.off_predicated_removed as u64,
            );
            o.count("pcp.compares-folded", s.compares_folded as u64);
            o.count("pcp.ors-simplified", s.ors_simplified as u64);
            o.count("pcp.psi-args-dropped", s.psi_args_dropped as u64);
            o.count("pcp.branches-decided", s.branches_decided as u64);
            o.count("pcp.dead-removed", s.dead_removed as u64);
            o.count("pcp.fallbacks", s.fallbacks as u64);
            Ok(())
        }),
    },
    Pass {
        name: "machine-cse",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "local common-subexpression elimination on machine SSA: the equal \
                computations that if-conversion brought into one block from the arms \
                of a branch (vliw_machine::cse)",
        switch: Some(Switch {
            name: "machine-cse",
            off: "machine-cse=off",
            on: "machine-cse=on",
            default_on: true,
        }),
        runs: |o| o.machine_cse,
        run: Run::Machine(|mf, o| {
            let removed = vliw_machine::cse::eliminate_common_subexpressions(mf);
            o.count("cse.removed", removed as u64);
            Ok(())
        }),
    },
    Pass {
        name: "rotate-loads",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "load rotation for pointer chasing: a loop header's first memory operation, \
                a load through a parameter whose latch passes a ψ, moved across the back \
                edge into the predecessors, through the ψ as speculative loads of its \
                candidates (vliw_machine::load_rotation)",
        switch: Some(Switch {
            name: "rotate-loads",
            off: "rotate-loads=off",
            on: "rotate-loads=on",
            default_on: true,
        }),
        runs: |o| o.rotate_loads,
        run: Run::Machine(|mf, o| {
            let s = vliw_machine::load_rotation::rotate_loads(mf, o.rotate_load_entries);
            o.count("rotate-loads.loops", s.loops as u64);
            o.count("rotate-loads.entries", s.entries as u64);
            o.count("rotate-loads.candidates", s.candidates as u64);
            Ok(())
        }),
    },
    Pass {
        name: "psi-lower",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "out of Psi-SSA, after ψ inlining, reduction, min/max, compares of ψs and projection \
                (psi-inline=, psi-two-values=, psi-minmax=, psi-compares=, psi-project=): by psi-lowering=sel every ψ a chain of sel (predicate logic \
                for predicates), first argument promoted; by psi-lowering=predicated-copies \
                every ψ-congruence class a chain of guarded definitions and predicated \
                copies that keep the previous link, one register for the allocator \
                (psi-fold=, psi-reorder=) (vliw_machine::psi)",
        switch: Some(Switch {
            name: "predicated-copies",
            off: "psi-lowering=sel",
            on: "psi-lowering=predicated-copies",
            default_on: true,
        }),
        runs: |o| o.if_convert,
        run: Run::Machine(|mf, o| {
            if o.psi_inline {
                o.count("psi.inlined", vliw_machine::psi::inline(mf) as u64);
            }
            o.count("psi.reduced", vliw_machine::psi::reduce(mf) as u64);
            if o.psi_two_values {
                o.count("psi.two-values", vliw_machine::psi::two_values(mf) as u64);
            }
            if o.psi_minmax {
                o.count("psi.min-max", vliw_machine::psi::select_min_max(mf) as u64);
            }
            if o.psi_compares {
                o.count(
                    "psi.compares",
                    vliw_machine::psi::compares_through_psis(mf, &o.backend.machine) as u64,
                );
            }
            if o.psi_project {
                o.count("psi.projected", vliw_machine::psi::project(mf) as u64);
            }
            match o.psi_lowering {
                crate::options::PsiLowering::Sel => {
                    o.count("psi.sels", vliw_machine::psi::lower_to_selects(mf) as u64);
                }
                crate::options::PsiLowering::PredicatedCopies => {
                    let s = vliw_machine::psi::out_of_psi_ssa(mf, o.psi_copies);
                    o.count("psi.psis", s.psis as u64);
                    o.count("psi.normalize-copies", s.normalize_copies as u64);
                    o.count("psi.congruence-copies", s.congruence_copies as u64);
                    o.count("psi.folded", s.folded as u64);
                    o.count("psi.reordered", s.reordered as u64);
                    o.count("psi.sels", s.selects as u64);
                }
            }
            Ok(())
        }),
    },
    Pass {
        name: "tail-dup",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "blocks that only branch (a loop's latch after the paths if-conversion \
                left) copied into the predecessors that jump to them: one taken branch \
                and one bundle fewer on each path (vliw_machine::tail_dup)",
        switch: Some(Switch {
            name: "tail-dup",
            off: "tail-dup=off",
            on: "tail-dup=on",
            default_on: true,
        }),
        runs: |o| o.tail_dup,
        run: Run::Machine(|mf, o| {
            let s = vliw_machine::tail_dup::duplicate_branch_tails(mf);
            o.count("tail-dup.blocks", s.blocks as u64);
            o.count("tail-dup.copies", s.copies as u64);
            o.count("tail-dup.removed", s.removed as u64);
            o.count("tail-dup.folded", s.folded as u64);
            Ok(())
        }),
    },
    Pass {
        name: "fold-pnot",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "`pnot` of an unguarded compare's result becomes the compare's second \
                result (the complement it writes anyway): one operation and one cycle \
                less on a negated condition (vliw_machine::negate)",
        switch: Some(Switch {
            name: "fold-pnot",
            off: "fold-pnot=off",
            on: "fold-pnot=on",
            default_on: true,
        }),
        runs: |o| o.fold_pnot,
        run: Run::Machine(|mf, o| {
            o.count(
                "pnot.folded",
                vliw_machine::negate::fold_negations(mf) as u64,
            );
            Ok(())
        }),
    },
    Pass {
        name: "fold-offsets",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "chains of constant additions (an unrolled pointer, a counter incremented \
                per copy) folded: `add (add x, c1), c2` becomes `add x, c1 + c2`, a load \
                or store at `[(add x, c) + off]` one at `[x + c + off]`; as many \
                operations or fewer, shorter chains (vliw_machine::offsets)",
        switch: Some(Switch {
            name: "fold-offsets",
            off: "fold-offsets=off",
            on: "fold-offsets=on",
            default_on: true,
        }),
        runs: |o| o.fold_offsets,
        run: Run::Machine(|mf, o| {
            let s = vliw_machine::offsets::fold_offsets(mf);
            o.count("offsets.adds", s.adds as u64);
            o.count("offsets.addresses", s.addresses as u64);
            o.count("offsets.removed", s.removed as u64);
            Ok(())
        }),
    },
    Pass {
        name: "reassociate",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "sums of add/sub (or addw/subw) whose inner results the sum alone reads are \
                rebuilt by when their terms are ready in a greedy schedule of the block \
                (vliw_machine::reassoc)",
        switch: Some(Switch {
            name: "reassociate",
            off: "reassociate=off",
            on: "reassociate=on",
            default_on: true,
        }),
        runs: |o| o.reassociate,
        run: Run::Machine(|mf, o| {
            let s = vliw_machine::reassoc::reassociate(mf, &o.backend.machine);
            o.count("reassoc.trees", s.trees as u64);
            o.count("reassoc.leaves", s.leaves as u64);
            Ok(())
        }),
    },
    Pass {
        name: "fuse-shift-add",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "`add (shl x, k), y` with k in 1..3 becomes `shKadd x, y` on machines with \
                the shift-add extension: an indexed address in one operation, the shift \
                removed when nothing else reads it (vliw_machine::shift_add)",
        switch: Some(Switch {
            name: "fuse-shift-add",
            off: "fuse-shift-add=off",
            on: "fuse-shift-add=on",
            default_on: true,
        }),
        runs: |o| o.fuse_shift_add && o.backend.machine.shift_add,
        run: Run::Machine(|mf, o| {
            let s = vliw_machine::shift_add::fuse_shift_add(mf, &o.backend.machine);
            o.count("shift-add.fused", s.fused as u64);
            o.count("shift-add.removed", s.removed as u64);
            Ok(())
        }),
    },
    Pass {
        name: "split-index",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "`shKadd (add a, b), c` becomes `shKadd b, (shKadd a, c)` when `b` is ready \
                later than `a` and `c`: an indexed address waits for its index's late term \
                one operation less (a binary search's probe), on machines with the \
                shift-add extension (vliw_machine::index_split)",
        switch: Some(Switch {
            name: "split-index",
            off: "split-index=off",
            on: "split-index=on",
            default_on: true,
        }),
        runs: |o| o.split_index && o.backend.machine.shift_add,
        run: Run::Machine(|mf, o| {
            let s = vliw_machine::index_split::split_indices(mf, &o.backend.machine);
            o.count("split-index.split", s.split as u64);
            o.count("split-index.removed", s.removed as u64);
            Ok(())
        }),
    },
    Pass {
        name: "pre-sched-region",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "scheduling across blocks: operations that cannot fault (loads as lds) move \
                up from a block into its only predecessor in the same loop, past its side \
                exit, where that predecessor's schedule has room, when pre-sched=region \
                (vliw_machine::sched::hoist)",
        switch: Some(Switch {
            name: "pre-sched-region",
            off: "pre-sched=block",
            on: "pre-sched=region",
            default_on: true,
        }),
        runs: |o| o.pre_sched && o.pre_sched_region,
        run: Run::Machine(|mf, o| {
            let s = vliw_machine::sched::hoist::hoist_into_predecessors(mf, &o.backend.machine);
            o.count("pre-sched.hoisted", s.hoisted as u64);
            o.count("pre-sched.hoisted-loads", s.hoisted_loads as u64);
            o.count("pre-sched.hoist-blocks", s.blocks as u64);
            o.count(
                "pre-sched.hoist-declined-pressure",
                s.declined_pressure as u64,
            );
            Ok(())
        }),
    },
    Pass {
        name: "pre-sched",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "each block's operations reordered by a register-pressure-aware list \
                schedule over virtual registers, when pre-sched=block \
                (vliw_machine::sched::pre_ra)",
        switch: Some(Switch {
            name: "pre-sched",
            off: "pre-sched=off",
            on: "pre-sched=block",
            default_on: true,
        }),
        runs: |o| o.pre_sched,
        run: Run::Machine(|mf, o| {
            let s = vliw_machine::sched::pre_ra::schedule_before_allocation(mf, &o.backend.machine);
            o.count("pre-sched.blocks", s.blocks as u64);
            o.count("pre-sched.kept-for-pressure", s.kept_for_pressure as u64);
            o.count("pre-sched.chunked", s.chunked as u64);
            o.count("pre-sched.windowed", s.windowed as u64);
            Ok(())
        }),
    },
    Pass {
        name: "modulo",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "software pipelining of single-block inner loops: iterative modulo \
                scheduling from MinII, one predicated kernel without prologue or \
                epilogue, when modulo=on (vliw_machine::sched::modulo)",
        switch: Some(Switch {
            name: "modulo",
            off: "modulo=off",
            on: "modulo=on",
            default_on: true,
        }),
        runs: |o| o.modulo,
        run: Run::Machine(|mf, o| {
            let s = vliw_machine::sched::modulo::pipeline_loops(
                mf,
                &o.backend.machine,
                vliw_machine::sched::modulo::ModuloOptions {
                    exact: o.modulo_exact,
                    expand: o.modulo_expand,
                },
            );
            o.count("modulo.loops", s.loops as u64);
            o.count("modulo.pipelined", s.pipelined.len() as u64);
            let at_min = s
                .pipelined
                .iter()
                .filter(|r| r.ii == r.res_mii.max(r.rec_mii));
            o.count("modulo.at-min-ii", at_min.count() as u64);
            o.count("modulo.ii", s.pipelined.iter().map(|r| r.ii as u64).sum());
            o.count(
                "modulo.min-ii",
                s.pipelined
                    .iter()
                    .map(|r| r.res_mii.max(r.rec_mii) as u64)
                    .sum(),
            );
            o.count("modulo.rejected-shape", s.rejected_shape as u64);
            o.count("modulo.rejected-operation", s.rejected_operation as u64);
            o.count("modulo.rejected-carried", s.rejected_carried as u64);
            o.count("modulo.rejected-live-out", s.rejected_live_out as u64);
            o.count("modulo.rejected-compare", s.rejected_compare as u64);
            o.count("modulo.one-stage", s.one_stage as u64);
            o.count("modulo.not-faster", s.not_faster as u64);
            o.count("modulo.declined-pressure", s.declined_pressure as u64);
            o.count("modulo.failed", s.failed as u64);
            o.count("modulo.unfolded", s.unfolded as u64);
            if o.modulo_report {
                for r in &s.pipelined {
                    eprintln!("vliw-modulo: {r}");
                }
                for d in &s.declined {
                    eprintln!("vliw-modulo-declined: {d}");
                }
            }
            Ok(())
        }),
    },
    Pass {
        name: "machine-licm",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "constants out of loops: the unguarded movi of a loop without calls move \
                to its preheader, equal ones merged, unless the allocator's pressure \
                analysis then finds a block over the registers (vliw_machine::licm)",
        switch: Some(Switch {
            name: "machine-licm",
            off: "machine-licm=off",
            on: "machine-licm=on",
            default_on: true,
        }),
        runs: |o| o.machine_licm,
        run: Run::Machine(|mf, o| {
            let s = vliw_machine::licm::hoist_constants(mf);
            o.count("machine-licm.hoisted", s.hoisted as u64);
            o.count("machine-licm.merged", s.merged as u64);
            o.count("machine-licm.refused", s.refused as u64);
            Ok(())
        }),
    },
    Pass {
        name: "analysis-timing",
        from: Stage::MachineSsa,
        to: Stage::MachineSsa,
        about: "measurement only, when analysis-timing=on: times the SSA analyses and \
                SSA destruction on copies of the function (vliw_machine::analysis_timing)",
        switch: None,
        runs: |o| o.analysis_timing,
        run: Run::Machine(|mf, _| {
            vliw_machine::analysis_timing::report(mf);
            Ok(())
        }),
    },
    Pass {
        name: "ssa-regalloc",
        from: Stage::MachineSsa,
        to: Stage::Allocated,
        about: "registers allocated on SSA (spilling, colouring in dominance order), \
                then out of SSA on the colours, when regalloc=ssa \
                (vliw_machine::ssa_regalloc)",
        switch: Some(Switch {
            name: "ssa-regalloc",
            off: "regalloc=naive",
            on: "regalloc=ssa",
            default_on: true,
        }),
        runs: |o| o.backend.regalloc == RegAlloc::Ssa,
        run: Run::Machine(|mf, o| vliw_machine::ssa_regalloc::allocate(mf, &o.backend)),
    },
    Pass {
        name: "ssa-destruction",
        from: Stage::MachineSsa,
        to: Stage::MachineVirtual,
        about: "out of SSA by the method of ssa-destruction=, when regalloc=naive \
                (vliw_machine::destruct)",
        switch: None,
        runs: |o| o.backend.regalloc == RegAlloc::Naive,
        run: Run::Machine(|mf, o| {
            vliw_machine::destruct::destruct(mf, o.backend.ssa_destruction, o.counters());
            Ok(())
        }),
    },
    Pass {
        name: "naive-regalloc",
        from: Stage::MachineVirtual,
        to: Stage::Allocated,
        about: "every virtual register in a stack slot, when regalloc=naive \
                (vliw_machine::regalloc)",
        switch: None,
        runs: |o| o.backend.regalloc == RegAlloc::Naive,
        run: Run::Machine(|mf, _| vliw_machine::regalloc::allocate_naive(mf)),
    },
    Pass {
        name: "frame",
        from: Stage::Allocated,
        to: Stage::Allocated,
        about: "frame layout, prologue and epilogues (vliw_machine::frame)",
        switch: None,
        runs: always,
        run: Run::Machine(|mf, o| {
            vliw_machine::frame::lower_frame(mf);
            if let Some(frame) = &mf.frame {
                o.count("frame.bytes", frame.size);
            }
            Ok(())
        }),
    },
    Pass {
        name: "copy-blocks",
        from: Stage::Allocated,
        to: Stage::Allocated,
        about: "blocks of only register moves on a branch's edge folded into the branch \
                under its guard (vliw_machine::copy_blocks)",
        switch: Some(Switch {
            name: "copy-blocks",
            off: "copy-blocks=off",
            on: "copy-blocks=on",
            default_on: true,
        }),
        runs: |o| o.copy_blocks,
        run: Run::Machine(|mf, o| {
            let folded = vliw_machine::copy_blocks::fold_copy_blocks(mf);
            o.count("copy-blocks.folded", folded as u64);
            Ok(())
        }),
    },
    Pass {
        name: "fallthrough",
        from: Stage::Allocated,
        to: Stage::Allocated,
        about: "unconditional branches to the next block of the layout removed, after a \
                loop's exit block is placed right after the block that branches back \
                (vliw_machine::emit)",
        switch: None,
        runs: always,
        run: Run::Machine(|mf, _| {
            vliw_machine::emit::remove_fallthrough_branches(mf);
            Ok(())
        }),
    },
    Pass {
        name: "sched",
        from: Stage::Allocated,
        to: Stage::Bundled,
        about: "list scheduling per block into bundles without latency stalls, when \
                sched=list (vliw_machine::sched)",
        switch: Some(Switch {
            name: "sched",
            off: "sched=off",
            on: "sched=list",
            default_on: true,
        }),
        runs: |o| o.backend.sched == Sched::List,
        run: Run::Machine(|mf, o| {
            vliw_machine::sched::schedule_function(mf, &o.backend.machine);
            // what the bundler made of the pipelined loops' kernels
            let kernels = vliw_machine::sched::modulo::achieved::achieved(mf);
            o.count(
                "modulo.trip-at-ii",
                kernels
                    .iter()
                    .filter(|k| k.cycles_per_trip <= k.ii as f64)
                    .count() as u64,
            );
            o.count(
                "modulo.trip-cycles",
                kernels
                    .iter()
                    .map(|k| k.cycles_per_trip.ceil() as u64)
                    .sum(),
            );
            if o.modulo_report {
                for k in &kernels {
                    eprintln!(
                        "vliw-modulo-kernel: {} {}: II {}, {} cop{}, {:.2} cycles per trip",
                        mf.name,
                        k.header,
                        k.ii,
                        k.copies,
                        if k.copies == 1 { "y" } else { "ies" },
                        k.cycles_per_trip
                    );
                }
            }
            Ok(())
        }),
    },
    Pass {
        name: "bundle",
        from: Stage::Allocated,
        to: Stage::Bundled,
        about: "one operation per bundle, when sched=off",
        switch: None,
        runs: |o| o.backend.sched == Sched::Off,
        run: Run::Machine(|mf, _| {
            vliw_machine::emit::bundle_one_per_op(mf);
            Ok(())
        }),
    },
    Pass {
        name: "emit",
        from: Stage::Bundled,
        to: Stage::Code,
        about: "encoding of the bundles, branches resolved, relocations \
                (vliw_machine::emit)",
        switch: None,
        runs: always,
        run: Run::Emit(|mf, o| {
            let code = vliw_machine::emit::encode_bundles(mf, &o.backend.machine)?;
            o.count("emit.bundles", code.bundles as u64);
            o.count("emit.bytes", 8 * code.words.len() as u64);
            Ok(code)
        }),
    },
];

/// The techniques that can be switched off, in pipeline order: `(pass, switch)`.
pub fn switches() -> impl Iterator<Item = (&'static Pass, Switch)> {
    PIPELINE.iter().filter_map(|p| p.switch.map(|s| (p, s)))
}

/// The `passes` listing: one line per pass in pipeline order,
/// `NAME<TAB>FROM->TO<TAB>SWITCH<TAB>OFF<TAB>ON<TAB>DEFAULT<TAB>ABOUT` (`DEFAULT` is `on`
/// or `off`), with `-` where a pass has no switch.
pub fn listing() -> String {
    PIPELINE
        .iter()
        .map(|p| {
            let (name, off, on, default) = match p.switch {
                Some(s) => (s.name, s.off, s.on, if s.default_on { "on" } else { "off" }),
                None => ("-", "-", "-", "-"),
            };
            format!(
                "{}\t{}->{}\t{name}\t{off}\t{on}\t{default}\t{}\n",
                p.name,
                p.from.name(),
                p.to.name(),
                p.about.split_whitespace().collect::<Vec<_>>().join(" ")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every combination of the options that choose passes.
    fn option_sets() -> Vec<Options> {
        let mut sets = Vec::new();
        for regalloc in ["ssa", "naive"] {
            for sched in ["list", "off"] {
                for ir in [
                    "mem2reg=on dce=on rvsdg=on",
                    "mem2reg=off dce=off rvsdg=off",
                ] {
                    for timing in ["on", "off"] {
                        sets.push(
                            Options::parse(&format!(
                                "regalloc={regalloc} sched={sched} {ir} analysis-timing={timing}"
                            ))
                            .unwrap(),
                        );
                    }
                }
            }
        }
        sets
    }

    #[test]
    fn stages_chain_under_every_option() {
        for o in option_sets() {
            let mut stage = Stage::Ir;
            for p in PIPELINE.iter().filter(|p| (p.runs)(&o)) {
                assert_eq!(p.from, stage, "{} under {o:?}", p.name);
                stage = p.to;
            }
            assert_eq!(stage, Stage::Code, "{o:?}");
        }
    }

    #[test]
    fn names_are_unique_and_switches_parse_and_change_the_options() {
        for (i, p) in PIPELINE.iter().enumerate() {
            assert!(PIPELINE[..i].iter().all(|q| q.name != p.name), "{}", p.name);
            assert!(!p.name.contains(char::is_whitespace));
            let (from, to) = match p.run {
                Run::Ir(_) => (Stage::Ir, Stage::Ir),
                Run::Build(_) => (Stage::Ir, Stage::Rvsdg),
                Run::Rvsdg(_) => (Stage::Rvsdg, Stage::Rvsdg),
                Run::Sequentialize(_) => (Stage::Rvsdg, Stage::Ir),
                Run::Lower(_) => (Stage::Ir, p.to),
                Run::Machine(_) => (p.from, p.to),
                Run::Emit(_) => (Stage::Bundled, Stage::Code),
            };
            assert_eq!(
                (from, to),
                (p.from, p.to),
                "{}: its function's types",
                p.name
            );
        }
        // passes whose switch chooses how they work, not whether they run
        let chooses_method = |p: &Pass| matches!(p.name, "isel" | "sequentialize" | "psi-lower");
        for (p, s) in switches() {
            // every pass with a switch runs by default as its switch says, or (a new
            // pass, until it is correct on every suite) when switched on
            let default = Options::parse("").unwrap();
            if !chooses_method(p) {
                assert_eq!((p.runs)(&default), s.default_on, "{}: its default", p.name);
            }
            let on = Options::parse(s.on).unwrap();
            let off = Options::parse(s.off).unwrap();
            assert!((p.runs)(&on), "{} runs under `{}`", p.name, s.on);
            assert_ne!(format!("{off:?}"), format!("{on:?}"), "{}", s.off);
            // the flip changes the options from the default
            let flipped = Options::parse(s.flip()).unwrap();
            assert_ne!(
                format!("{flipped:?}"),
                format!("{default:?}"),
                "{}",
                s.flip()
            );
            // switched off, the pass runs no more, or runs differently
            assert!(!(p.runs)(&off) || chooses_method(p), "{}", p.name);
        }
    }

    #[test]
    fn the_listing_has_one_line_per_pass_with_seven_fields() {
        let text = listing();
        assert_eq!(text.lines().count(), PIPELINE.len());
        for line in text.lines() {
            assert_eq!(line.split('\t').count(), 7, "{line}");
        }
        assert!(text.starts_with("mem2reg\tir->ir\tmem2reg\tmem2reg=off\tmem2reg=on\ton\t"));
        assert!(text.contains("\trvsdg-mem-split\trvsdg-mem-split=off\trvsdg-mem-split=on\ton\t"));
    }
}
