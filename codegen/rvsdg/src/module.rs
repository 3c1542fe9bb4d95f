//! A codegen unit as an RVSDG: one λ per function of the SSA IR module, built by
//! [`build_module`] and turned back into SSA IR functions by [`sequentialize_module`].
//! Data objects and declarations stay in the SSA IR module.

use rustc_hash::{FxHashMap, FxHashSet};
use vliw_ir::{DataKind, Module, RelocKind};

use crate::build::build_lambda;
use crate::destroy::destroy_lambda;
use crate::graph::Node;
use crate::ops::Rvsdg;
use crate::report::Report;

/// The functions of a module as λs of one graph.
#[derive(Clone, Debug, Default)]
pub struct RvsdgModule {
    pub graph: Rvsdg,
    /// The λ of each function of the module that was built, by the function's index
    /// in `Module::functions`.
    pub lambdas: Vec<(usize, Node)>,
    /// The functions that were not built (index, reason): they go through the rest of
    /// the pipeline as they came (`rvsdg.not-built` counts them).
    pub not_built: Vec<(usize, String)>,
    /// Names that something outside the graph refers to (the relocations of data
    /// objects, the functions that were not built): the λs of those names are needed
    /// even when no λ calls them.
    pub roots: FxHashSet<String>,
    /// The module's read-only data objects (not thread-local) by name: what a load
    /// from them reads never changes (`opt::memory`'s constant copies).
    pub read_only: ReadOnlyData,
}

/// Read-only data objects by name.
pub type ReadOnlyData = FxHashMap<String, ReadOnlyObject>;

/// A read-only data object: its size, alignment and bytes, and where relocations
/// will write addresses into them (those bytes are not known here).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadOnlyObject {
    pub size: u64,
    pub align: u64,
    pub bytes: Vec<u8>,
    /// `[start, end)` of each relocation's bytes.
    pub relocated: Vec<(u64, u64)>,
}

impl ReadOnlyObject {
    /// The `len` bytes at `offset`, if they are all known (in the object, no
    /// relocation among them).
    pub fn known_bytes(&self, offset: i64, len: u64) -> Option<&[u8]> {
        let start = u64::try_from(offset).ok()?;
        let end = start.checked_add(len)?;
        if end > self.bytes.len() as u64
            || self.relocated.iter().any(|&(a, b)| a < end && start < b)
        {
            return None;
        }
        Some(&self.bytes[start as usize..end as usize])
    }
}

impl RvsdgModule {
    /// The λ of the function named `name`.
    pub fn lambda(&self, name: &str) -> Option<Node> {
        self.lambdas
            .iter()
            .map(|&(_, l)| l)
            .find(|&l| self.graph.lambda_info(l).name == name)
    }
}

/// Builds every function of `module` as a λ.
pub fn build_module(module: &Module, report: &mut Report) -> RvsdgModule {
    let mut rm = RvsdgModule::default();
    for (i, func) in module.functions.iter().enumerate() {
        match build_lambda(&mut rm.graph, func, report) {
            Ok(l) => rm.lambdas.push((i, l)),
            Err(why) => {
                report.count("rvsdg.not-built", 1);
                rm.not_built.push((i, why));
            }
        }
    }
    for data in &module.data {
        rm.roots
            .extend(data.relocs.iter().map(|r| r.symbol.clone()));
        if data.kind == DataKind::ReadOnly && !data.thread_local {
            rm.read_only.insert(
                data.name.clone(),
                ReadOnlyObject {
                    size: data.bytes.len() as u64,
                    align: data.align,
                    bytes: data.bytes.clone(),
                    relocated: data
                        .relocs
                        .iter()
                        .map(|r| match r.kind {
                            RelocKind::Abs64 => (r.offset, r.offset + 8),
                        })
                        .collect(),
                },
            );
        }
    }
    for &(i, _) in &rm.not_built {
        let f = &module.functions[i];
        rm.roots
            .extend(f.ext_funcs.values().map(|e| e.name.clone()));
        rm.roots.extend(f.globals.values().cloned());
    }
    rm
}

/// How the RVSDG goes back to control flow (`sequentialize=`).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Sequentializer {
    /// Each γ a branch and a join in its place, each θ a loop (`destroy.rs`).
    #[default]
    Structural,
    /// By demand: Lawrence's proceduralization into a PDG, then its sequentialization
    /// (`lawrence/`); a λ it cannot do yet (independent redundancy) is destroyed
    /// structurally.
    Lawrence,
}

impl Sequentializer {
    pub fn parse(value: &str) -> Result<Sequentializer, String> {
        match value {
            "structural" => Ok(Sequentializer::Structural),
            "lawrence" => Ok(Sequentializer::Lawrence),
            _ => Err(format!(
                "sequentialize={value}: expected structural or lawrence"
            )),
        }
    }
}

/// The code growth Lawrence's method may cause (copies of what exclusive paths share
/// and cannot share, §4.2): a λ whose code by demand has more instructions than
/// this percentage of its structural destruction's is destroyed structurally
/// instead (`lawrence.fallback.growth`).
pub const GROWTH_LIMIT_PERCENT: usize = 150;

/// The largest λ, in simple nodes, that Lawrence's method sequentializes; a larger one
/// is destroyed structurally (`lawrence.fallback.size`). The emitter's SSA
/// construction reads a value across every join between its definition and its use,
/// so on long chains of branches (generated functions of thousands of statements)
/// its time grows with the square of the function (`./y.sh bench compile`: 2.6 s of
/// 4.4 s at 4 000 statements); this bounds it until reads skip the joins that the
/// definition dominates.
pub const SIZE_LIMIT_NODES: u32 = 4000;

/// Whether the code by demand of λ `l` passes the growth limit. The structural
/// destruction is made to compare only when the code by demand is larger than its
/// nodes with half again for control could explain (so most λs do not pay for it).
/// When it does, the structural destruction it compared with, to use instead.
fn too_large(
    g: &Rvsdg,
    l: Node,
    stats: &crate::lawrence::emit::EmitStats,
) -> Option<vliw_ir::Function> {
    let (insts, nodes) = (stats.insts as usize, stats.nodes as usize);
    if insts <= nodes + nodes / 2 + 16 {
        return None;
    }
    let f = destroy_lambda(g, l);
    let structural: usize = (f.layout.blocks())
        .map(|b| f.layout.block_insts(b).count())
        .sum();
    (insts * 100 > structural * GROWTH_LIMIT_PERCENT).then_some(f)
}

/// Replaces the functions of `module` that have a λ with the λ's sequentialization.
/// Functions whose λ was removed (unused local functions) are removed from the module.
/// `report` counts the instructions written (`sequentialize.insts`, the static size
/// to compare the methods by); with [`Sequentializer::Lawrence`], the λs done by
/// demand (`lawrence.by-demand`), what their emission did (`lawrence.*`), and those
/// destroyed structurally instead, by why (`lawrence.fallback.*`).
pub fn sequentialize_module(
    rm: &RvsdgModule,
    module: &mut Module,
    how: Sequentializer,
    lawrence: crate::lawrence::emit::EmitOptions,
    report: &mut crate::Report,
) {
    use crate::lawrence::build_pdg::BuildError;
    use crate::lawrence::emit::{EmitError, sequentialize_lambda};
    let mut keep = vec![true; module.functions.len()];
    for &(i, l) in &rm.lambdas {
        if !rm.graph.is_alive(l) {
            keep[i] = false;
            continue;
        }
        module.functions[i] = match how {
            Sequentializer::Structural => destroy_lambda(&rm.graph, l),
            Sequentializer::Lawrence
                if crate::lawrence::emit::simple_nodes(&rm.graph, rm.graph.lambda_body(l))
                    > SIZE_LIMIT_NODES =>
            {
                report.count("lawrence.fallback.size", 1);
                destroy_lambda(&rm.graph, l)
            }
            Sequentializer::Lawrence => match sequentialize_lambda(&rm.graph, l, lawrence) {
                Ok((f, stats)) => match too_large(&rm.graph, l, &stats) {
                    Some(structural) => {
                        if std::env::var_os("VLIW_LAWRENCE_TRACE").is_some() {
                            eprintln!(
                                "vliw-lawrence: {} destroyed structurally: {} instructions \
                                 by demand, over {}% of the structural destruction's",
                                f.name, stats.insts, GROWTH_LIMIT_PERCENT
                            );
                        }
                        report.count("lawrence.fallback.growth", 1);
                        structural
                    }
                    None => {
                        report.count("lawrence.by-demand", 1);
                        report.count("lawrence.shared-groups", stats.shared as u64);
                        report.count("lawrence.copied-groups", stats.copied as u64);
                        report.count("lawrence.restarts", stats.restarts as u64);
                        report.count("lawrence.speculated", stats.speculated as u64);
                        report.count("lawrence.early-divisions", stats.early as u64);
                        report.count("lawrence.insts", stats.insts as u64);
                        report.count("lawrence.nodes", stats.nodes as u64);
                        f
                    }
                },
                Err(e) => {
                    if std::env::var_os("VLIW_LAWRENCE_TRACE").is_some() {
                        eprintln!(
                            "vliw-lawrence: {} destroyed structurally: {e:?}",
                            module.functions[i].name
                        );
                    }
                    if let EmitError::Build(BuildError::IndependentRedundancy { why, .. }) = &e {
                        report.count(why.counter(), 1);
                    }
                    report.count(
                        match e {
                            EmitError::Build(BuildError::IndependentRedundancy { .. }) => {
                                "lawrence.fallback.independent-redundancy"
                            }
                            EmitError::Build(BuildError::Dead(_)) => "lawrence.fallback.dead",
                            EmitError::Build(BuildError::Unlinked { .. }) => {
                                "lawrence.fallback.unlinked"
                            }
                            EmitError::Order(_) => "lawrence.fallback.order",
                            EmitError::Undefined(_) => "lawrence.fallback.undefined",
                        },
                        1,
                    );
                    destroy_lambda(&rm.graph, l)
                }
            },
        };
        // the invokes of functions with landing pads, formed again
        match crate::unwind::try_calls_to_invokes(&mut module.functions[i]) {
            Ok(n) => report.count("rvsdg.unwind.invokes", n as u64),
            Err(e) => {
                // left as they are: instruction selection refuses them, naming them
                report.count("rvsdg.unwind.malformed", 1);
                if std::env::var_os("VLIW_LAWRENCE_TRACE").is_some() {
                    eprintln!("vliw-rvsdg: {}: {e}", module.functions[i].name);
                }
            }
        }
        let f = &module.functions[i];
        let insts: usize = (f.layout.blocks())
            .map(|b| f.layout.block_insts(b).count())
            .sum();
        report.count("sequentialize.insts", insts as u64);
    }
    let mut i = 0;
    module.functions.retain(|_| {
        i += 1;
        keep[i - 1]
    });
    crate::unwind::declare_resume(module);
}
