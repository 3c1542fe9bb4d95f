//! Dead node elimination (Reissmann et al. §5.1): removes what no result of a λ
//! needs — simple nodes whose outputs are unused, γ exit and entry variables and θ
//! loop variables that nothing reads, whole γs and θs that are left with no outputs,
//! and λs that nothing references.
//!
//! Mark, then sweep. Marking starts from every λ's results (the returned values and
//! the final memory and I/O states, so everything with a side effect is reached
//! through the state edges) and follows edges backwards: through a γ's output to the
//! same result of every arm and to the predicate, through a θ's output or body
//! argument to its loop variable's input and result (a loop variable is needed when
//! its output is, or when something needed in the body reads its argument), and to
//! the θ's predicate. A λ is needed when it is exported or weak, named by a data
//! object of the module, or named (called, or its address taken) by a needed node.
//! Sweeping removes unmarked nodes consumers first, and the unmarked variables of
//! the structural nodes that stay. Last, each λ's shell keeps only the declarations
//! its remaining nodes name (`fnN`, `sigN`, `gvN`, `ssN`, renumbered): a callee or
//! symbol named by removed nodes only (a call that was inlined, an address that is no
//! longer passed) may be a λ removed here, which the module could no longer resolve,
//! and a stack slot nothing addresses only takes frame space.

use cranelift_entity::EntityRef;
use rustc_hash::{FxHashMap, FxHashSet};
use vliw_ir::{InstructionData, Linkage};

use crate::graph::{Node, NodeKind, Origin, Region, User};
use crate::ops::{Op, Rvsdg};
use crate::report::Report;

/// Removes the dead parts of `g`. `roots` names the functions that something outside
/// the graph refers to (data objects' relocations).
pub fn dead_node_elimination(g: &mut Rvsdg, roots: &FxHashSet<String>, report: &mut Report) {
    let mut m = Marker {
        g,
        live: FxHashSet::default(),
        nodes: FxHashSet::default(),
        work: Vec::new(),
        names: FxHashSet::default(),
    };
    let lambdas = m.g.lambdas();
    let by_name: FxHashMap<String, Node> = lambdas
        .iter()
        .map(|&l| (m.g.lambda_info(l).name.clone(), l))
        .collect();
    let mut needed: FxHashSet<Node> = FxHashSet::default();
    let mut pending: Vec<Node> = lambdas
        .iter()
        .copied()
        .filter(|&l| {
            let info = m.g.lambda_info(l);
            matches!(info.linkage, Linkage::Export | Linkage::Weak) || roots.contains(&info.name)
        })
        .collect();
    while let Some(l) = pending.pop() {
        if !needed.insert(l) {
            continue;
        }
        let body = m.g.lambda_body(l);
        m.mark_results(body);
        m.run();
        for name in std::mem::take(&mut m.names) {
            if let Some(&callee) = by_name.get(&name) {
                pending.push(callee);
            }
        }
    }
    let Marker { live, nodes, .. } = m;
    let mut removed = 0;
    for l in lambdas {
        if !needed.contains(&l) {
            g.remove_node(l);
            report.count("dne.lambdas", 1);
            continue;
        }
        let body = g.lambda_body(l);
        removed += sweep(g, body, &live, &nodes);
        let declarations = sweep_declarations(g, l);
        report.count("dne.declarations", declarations as u64);
    }
    report.count("dne.nodes", removed as u64);
}

/// Removes the declarations of λ `l`'s shell that no node below its body names
/// (callees, signatures of indirect calls, symbols, stack slots), renumbering the
/// others in the nodes that name them. Returns how many went.
fn sweep_declarations(g: &mut Rvsdg, l: Node) -> usize {
    let nodes: Vec<Node> = g
        .regions_below(g.lambda_body(l))
        .iter()
        .flat_map(|&r| g.nodes(r).to_vec())
        .filter(|&n| g.op(n).is_some())
        .collect();
    let info = g.lambda_info(l);
    let mut funcs = vec![None; info.ext_funcs.len()];
    let mut sigs = vec![None; info.signatures.len()];
    let mut globals = vec![None; info.globals.len()];
    let mut slots = vec![None; info.stack_slots.len()];
    for &n in &nodes {
        match g.op(n) {
            Some(Op::Inst(InstructionData::Call { func, .. })) => funcs[func.index()] = Some(*func),
            Some(Op::Inst(InstructionData::CallIndirect { sig, .. })) => {
                sigs[sig.index()] = Some(*sig)
            }
            Some(Op::Inst(InstructionData::SymbolAddr { global, .. })) => {
                globals[global.index()] = Some(*global)
            }
            Some(Op::Inst(InstructionData::StackAddr { slot, .. })) => {
                slots[slot.index()] = Some(*slot)
            }
            _ => {}
        }
    }
    fn unused<T>(v: &[Option<T>]) -> usize {
        v.iter().filter(|x| x.is_none()).count()
    }
    let unused = unused(&funcs) + unused(&sigs) + unused(&globals) + unused(&slots);
    if unused == 0 {
        return 0;
    }
    // the used ones, in their order, numbered anew
    let info = g.lambda_info_mut(l);
    let old_funcs = std::mem::take(&mut info.ext_funcs);
    for f in funcs.iter_mut() {
        *f = f.map(|f| info.ext_funcs.push(old_funcs[f].clone()));
    }
    let old_sigs = std::mem::take(&mut info.signatures);
    for s in sigs.iter_mut() {
        *s = s.map(|s| info.signatures.push(old_sigs[s].clone()));
    }
    let old_globals = std::mem::take(&mut info.globals);
    for gv in globals.iter_mut() {
        *gv = gv.map(|gv| info.globals.push(old_globals[gv].clone()));
    }
    let old_slots = std::mem::take(&mut info.stack_slots);
    for ss in slots.iter_mut() {
        *ss = ss.map(|ss| info.stack_slots.push(old_slots[ss]));
    }
    for n in nodes {
        if let NodeKind::Simple(Op::Inst(data)) = g.kind_mut(n) {
            match data {
                InstructionData::Call { func, .. } => *func = funcs[func.index()].unwrap_or(*func),
                InstructionData::CallIndirect { sig, .. } => {
                    *sig = sigs[sig.index()].unwrap_or(*sig)
                }
                InstructionData::SymbolAddr { global, .. } => {
                    *global = globals[global.index()].unwrap_or(*global)
                }
                InstructionData::StackAddr { slot, .. } => {
                    *slot = slots[slot.index()].unwrap_or(*slot)
                }
                _ => {}
            }
        }
    }
    unused
}

struct Marker<'a> {
    g: &'a Rvsdg,
    /// Needed origins.
    live: FxHashSet<Origin>,
    /// Needed nodes.
    nodes: FxHashSet<Node>,
    work: Vec<Origin>,
    /// Symbol names that needed nodes refer to.
    names: FxHashSet<String>,
}

impl Marker<'_> {
    fn mark(&mut self, o: Origin) {
        if self.live.insert(o) {
            self.work.push(o);
        }
    }

    fn mark_results(&mut self, r: Region) {
        for &o in self.g.results(r) {
            self.mark(o);
        }
    }

    fn run(&mut self) {
        while let Some(o) = self.work.pop() {
            // a needed state is needed by the sinks that read it (a `trap`: it gives
            // no state back, but it must happen)
            if self.g.ty(o).is_state() {
                for &u in self.g.users(o) {
                    if let User::In(m, _) = u
                        && let Some(op) = self.g.op(m)
                        && op.state_outputs().count() == 0
                        && self.nodes.insert(m)
                    {
                        for &i in self.g.inputs(m) {
                            self.mark(i);
                        }
                    }
                }
            }
            match o {
                Origin::Out(n, i) => self.output(n, i as usize),
                Origin::Arg(r, i) => self.argument(r, i as usize),
            }
        }
    }

    /// Output `i` of `n` is needed.
    fn output(&mut self, n: Node, i: usize) {
        let g = self.g;
        let first = self.nodes.insert(n);
        match g.kind(n) {
            NodeKind::Simple(op) => {
                if first {
                    for &o in g.inputs(n) {
                        self.mark(o);
                    }
                    self.note_names(n, op);
                }
            }
            NodeKind::Gamma { arms } => {
                if first {
                    self.mark(g.input(n, 0));
                }
                for &r in arms {
                    self.mark(g.results(r)[i]);
                }
            }
            NodeKind::Theta { body } => {
                let body = *body;
                if first {
                    self.mark(g.results(body)[0]);
                }
                self.mark(g.results(body)[i + 1]);
                self.mark(g.input(n, i));
                // the argument too: the loop variable exists as a whole
                self.mark(Origin::Arg(body, i as u32));
            }
            NodeKind::Lambda { .. } => {}
        }
    }

    /// Argument `i` of region `r` is needed: what flows into it.
    fn argument(&mut self, r: Region, i: usize) {
        let g = self.g;
        let Some(owner) = g.owner(r) else {
            return;
        };
        match g.kind(owner) {
            NodeKind::Gamma { .. } => {
                self.nodes.insert(owner);
                self.mark(g.input(owner, i + 1));
            }
            NodeKind::Theta { .. } => {
                // the loop variable as a whole: its output marks input and result
                self.mark(Origin::Out(owner, i as u32));
            }
            NodeKind::Lambda { .. } | NodeKind::Simple(_) => {}
        }
    }

    fn note_names(&mut self, n: Node, op: &Op) {
        let Some(l) = self.g.enclosing_lambda(self.g.node(n).region) else {
            return;
        };
        let shell = self.g.lambda_info(l);
        match op {
            Op::Inst(InstructionData::Call { func, .. }) => {
                self.names.insert(shell.ext_funcs[*func].name.clone());
            }
            Op::Inst(InstructionData::SymbolAddr { global, .. }) => {
                self.names.insert(shell.globals[*global].clone());
            }
            _ => {}
        }
    }
}

/// Removes what is not marked below `r`; returns the number of nodes removed.
fn sweep(g: &mut Rvsdg, r: Region, live: &FxHashSet<Origin>, nodes: &FxHashSet<Node>) -> usize {
    let mut removed = 0;
    for n in g.topological_order(r).into_iter().rev() {
        if !nodes.contains(&n) {
            // consumers go first, so nothing reads it any more
            removed += 1 + g.count_nodes_inside(n);
            g.remove_node(n);
            continue;
        }
        let dead_outputs: Vec<usize> = (0..g.num_outputs(n))
            .filter(|&k| !live.contains(&Origin::Out(n, k as u32)))
            .collect();
        match g.kind(n) {
            NodeKind::Gamma { arms } => {
                let arms = arms.clone();
                // exit variables, then the arms, then the entry variables
                let dead: rustc_hash::FxHashSet<usize> = dead_outputs.iter().copied().collect();
                g.remove_gamma_exits(n, |k| dead.contains(&k));
                for &arm in &arms {
                    removed += sweep(g, arm, live, nodes);
                }
                let unused: rustc_hash::FxHashSet<usize> = (0..g.inputs(n).len() - 1)
                    .filter(|&k| {
                        arms.iter()
                            .all(|&arm| !g.has_users(Origin::Arg(arm, k as u32)))
                    })
                    .collect();
                if !unused.is_empty() {
                    g.remove_gamma_entries(n, |k| unused.contains(&k));
                }
            }
            NodeKind::Theta { body } => {
                let body = *body;
                // the dead loop variables' results, the body, then the rest of them
                let dead: rustc_hash::FxHashSet<usize> = dead_outputs.iter().copied().collect();
                g.retain_results(body, |i| i == 0 || !dead.contains(&(i - 1)));
                removed += sweep(g, body, live, nodes);
                if !dead.is_empty() {
                    g.retain_args(body, |i| !dead.contains(&i));
                    g.retain_outputs(n, |i| !dead.contains(&i));
                    g.retain_inputs(n, |i| !dead.contains(&i));
                }
            }
            NodeKind::Simple(_) | NodeKind::Lambda { .. } => {}
        }
    }
    removed
}
