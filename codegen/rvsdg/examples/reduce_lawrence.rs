//! Reduces an RVSDG text on which Lawrence's sequentialization goes wrong to a small
//! one that still does, for a filetest (`docs/lawrence.md`, "Reducing a fault").
//!
//! ```sh
//! cargo run --release -p vliw-rvsdg --example reduce_lawrence -- IN.rvsdg [WHAT] > OUT.rvsdg
//! ```
//!
//! `WHAT` is what "goes wrong" means: `verify` (the default: the function it emits
//! does not verify), or any other text, which the debug form of its error (the reason
//! it falls back to the structural destruction) must contain, e.g. `Unlinked`. The
//! input is what `-Cllvm-args=dump=before:sequentialize` writes; every λ that goes
//! wrong is kept, the others are removed.
//!
//! The reduction is greedy, to a fixed point, each step kept only when the graph
//! still verifies and still goes wrong: every γ replaced by one of its arms (its
//! predicate made a constant, then γ simplification), every node's value outputs
//! replaced by `undef` and its state outputs by its state inputs (then dead node
//! elimination), every node's outputs replaced by its inputs of the same types,
//! every θ's loop cut after its first iteration (its predicate made
//! the exit constant); constant folding and γ simplification after each.

use rustc_hash::FxHashSet;
use vliw_ir::{InstructionData, Opcode};
use vliw_rvsdg::lawrence::emit::{EmitOptions, sequentialize_lambda};
use vliw_rvsdg::{Node, NodeKind, Op, Origin, Report, Rvsdg, Ty};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: reduce_lawrence IN.rvsdg [verify|ERROR-TEXT]");
        std::process::exit(2);
    };
    let what = args.get(2).cloned().unwrap_or_else(|| "verify".into());
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("reduce_lawrence: {path}: {e}");
        std::process::exit(1)
    });
    let mut g = vliw_rvsdg::parse_graph(&text).unwrap_or_else(|e| {
        eprintln!("reduce_lawrence: {path}: {e}");
        std::process::exit(1)
    });
    for l in g.lambdas() {
        if !goes_wrong_at(&g, l, &what) {
            g.remove_node(l);
        }
    }
    if g.lambdas().is_empty() {
        eprintln!("reduce_lawrence: no λ of {path} goes wrong ({what})");
        std::process::exit(1);
    }
    let mut size = g.count_nodes(g.root());
    eprintln!("reduce_lawrence: {size} nodes");
    loop {
        let before = size;
        for step in candidates(&g) {
            let mut h = g.clone();
            if !apply(&mut h, step) || vliw_rvsdg::verify(&h).is_err() {
                continue;
            }
            let n = h.count_nodes(h.root());
            if n < size && goes_wrong(&h, &what) {
                g = h;
                size = n;
                eprintln!("reduce_lawrence: {size} nodes");
            }
        }
        if size == before {
            break;
        }
    }
    print!("{g}");
}

/// One reduction step.
#[derive(Copy, Clone)]
enum Step {
    /// γ `node` always takes arm `arm`.
    Arm(Node, u32),
    /// θ `node` runs its body once.
    Once(Node),
    /// Simple node `node` gives `undef` and passes its states through.
    Undef(Node),
    /// Simple node `node` gives its first input of each output's type instead (a
    /// chain of computations made shorter).
    Bypass(Node),
}

fn candidates(g: &Rvsdg) -> Vec<Step> {
    let mut steps = Vec::new();
    for r in g.regions_below(g.root()) {
        for &n in g.nodes(r) {
            match g.kind(n) {
                NodeKind::Gamma { arms } => {
                    steps.extend((0..arms.len() as u32).map(|k| Step::Arm(n, k)));
                }
                NodeKind::Theta { .. } => steps.push(Step::Once(n)),
                NodeKind::Simple(op) if !op.is_constant_like() => {
                    steps.push(Step::Undef(n));
                    steps.push(Step::Bypass(n));
                }
                _ => {}
            }
        }
    }
    steps
}

fn apply(g: &mut Rvsdg, step: Step) -> bool {
    let mut report = Report::default();
    match step {
        Step::Arm(n, k) => {
            if !g.is_alive(n) {
                return false;
            }
            let NodeKind::Gamma { arms } = g.kind(n) else {
                return false;
            };
            let alts = arms.len() as u32;
            let region = g.node(n).region;
            let c = g.add_simple(region, Op::Ctl { alt: k, alts }, &[], &[Ty::Ctl(alts)]);
            g.set_input(n, 0, Origin::Out(c, 0));
            vliw_rvsdg::opt::gamma_simplification(g, &mut report);
        }
        Step::Once(n) => {
            if !g.is_alive(n) {
                return false;
            }
            let body = g.theta_body(n);
            let predicate = g.results(body)[0];
            let Ty::Ctl(alts) = g.ty(predicate) else {
                return false;
            };
            // the exit is alternative 0 (a θ repeats on 1)
            let c = g.add_simple(body, Op::Ctl { alt: 0, alts }, &[], &[Ty::Ctl(alts)]);
            g.set_theta_predicate(n, Origin::Out(c, 0));
        }
        Step::Bypass(n) => {
            if !g.is_alive(n) {
                return false;
            }
            let inputs = g.inputs(n).to_vec();
            let mut changed = false;
            for (k, ty) in g.output_types(n).into_iter().enumerate() {
                let out = Origin::Out(n, k as u32);
                if let Some(&o) = inputs.iter().find(|&&o| g.ty(o) == ty)
                    && g.has_users(out)
                {
                    g.divert_users(out, o);
                    changed = true;
                }
            }
            if !changed {
                return false;
            }
        }
        Step::Undef(n) => {
            if !g.is_alive(n) {
                return false;
            }
            let region = g.node(n).region;
            let inputs = g.inputs(n).to_vec();
            let mut changed = false;
            for (k, ty) in g.output_types(n).into_iter().enumerate() {
                let out = Origin::Out(n, k as u32);
                if !g.has_users(out) {
                    continue;
                }
                let to = match ty {
                    Ty::Val(t) => {
                        let op = Op::from_inst(&InstructionData::Nullary {
                            opcode: Opcode::Undef,
                        });
                        Origin::Out(g.add_simple(region, op, &[], &[Ty::Val(t)]), 0)
                    }
                    Ty::Mem | Ty::Io => match inputs.iter().find(|&&o| g.ty(o) == ty) {
                        Some(&o) => o,
                        None => continue,
                    },
                    Ty::Ctl(_) => continue,
                };
                g.divert_users(out, to);
                changed = true;
            }
            if !changed {
                return false;
            }
        }
    }
    let roots: FxHashSet<String> = (g.lambdas().into_iter())
        .map(|l| g.lambda_info(l).name.clone())
        .collect();
    vliw_rvsdg::opt::fold(g, &mut report);
    vliw_rvsdg::opt::gamma_simplification(g, &mut report);
    vliw_rvsdg::opt::dead_node_elimination(g, &roots, &mut report);
    true
}

fn goes_wrong(g: &Rvsdg, what: &str) -> bool {
    g.lambdas().into_iter().any(|l| goes_wrong_at(g, l, what))
}

fn goes_wrong_at(g: &Rvsdg, l: Node, what: &str) -> bool {
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        sequentialize_lambda(g, l, EmitOptions::default())
    }));
    match run {
        Err(_) => what == "panic",
        Ok(Ok((f, _))) => what == "verify" && vliw_ir::verify_function(&f).is_err(),
        Ok(Err(e)) => what != "verify" && format!("{e:?}").contains(what),
    }
}
