//! Loop-invariant code motion (Reissmann et al. §5.5, node hoisting out of θs): a
//! computation of a θ body whose inputs do not change from one iteration to the next
//! is done once, before the θ, and enters the body as a new invariant loop variable
//! (`licm.hoisted`).
//!
//! - **Invariant:** a body argument whose next value is the argument itself, or a
//!   constant of the body.
//! - **What moves:** simple pure nodes (no state: no load, no division that may trap,
//!   no call; `sdiv safe` and the like move) that read only invariant values. A θ is
//!   tail-controlled, its body runs at least once, and a pure node neither faults nor
//!   has effects, so computing it before the loop instead of in every iteration
//!   changes nothing observable. Loads stay: an invariant load needs the memory to be
//!   invariant too (the memory optimizations' business).
//! - **Constants** alone stay in the body: rematerializing an `iconst` in the loop
//!   costs nothing on a VLIW with free slots, while a loop variable costs a register
//!   across the whole loop. The constants a hoisted computation reads are copied
//!   before the θ with it (an equal constant already there is reused; the body's goes
//!   when nothing reads it any more).
//! - **Control values** (a `match` on an invariant value) stay: a predicate made in
//!   the region of the γ or θ it controls is a branch on the compared value, one that
//!   enters through a variable becomes a carried alternative number.
//!
//! θs are processed innermost first, so a computation invariant in two nested loops
//! leaves the inner one, then the outer one. Within a body, nodes are visited
//! producers first, so a chain of invariant computations moves in one pass.

use super::constants::{RegionConstants, constant, remove_unused};
use crate::graph::{Node, NodeKind, Origin, Region, User};
use crate::ops::{Rvsdg, Ty};
use crate::report::Report;

/// Hoists the invariant computations out of every θ of `g`.
pub fn loop_invariant_code_motion(g: &mut Rvsdg, report: &mut Report) {
    let mut hoisted = 0;
    for l in g.lambdas() {
        let body = g.lambda_body(l);
        hoisted += region(g, body);
    }
    report.count("licm.hoisted", hoisted as u64);
}

/// Hoists out of the θs below `r`, innermost first; returns how many nodes moved.
fn region(g: &mut Rvsdg, r: Region) -> usize {
    let mut count = 0;
    let mut constants = RegionConstants::new(r);
    for n in g.topological_order(r) {
        for s in g.kind(n).subregions().to_vec() {
            count += region(g, s);
        }
        if let NodeKind::Theta { body } = *g.kind(n) {
            count += theta(g, n, body, &mut constants);
        }
    }
    count
}

/// Whether body node `m` can leave θ `body`: a pure computation (not a lone
/// constant, not making a control value) of invariant values.
fn hoistable(g: &Rvsdg, body: Region, m: Node) -> bool {
    let Some(op) = g.op(m) else {
        return false;
    };
    op.is_pure()
        && g.is_used(m)
        && !g.inputs(m).is_empty()
        && g.outputs(m).all(|o| matches!(g.ty(o), Ty::Val(_)))
        && g.inputs(m).iter().all(|&o| match o {
            Origin::Arg(_, k) => g.results(body)[k as usize + 1] == o,
            Origin::Out(c, _) => constant(g, c).is_some(),
        })
}

/// Hoists the invariant computations of θ `n`'s body; returns how many.
fn theta(g: &mut Rvsdg, n: Node, body: Region, constants: &mut RegionConstants) -> usize {
    let region = g.node(n).region;
    let mut count = 0;
    // producers first: once a node is out, its users read an invariant argument
    for m in g.topological_order(body) {
        if !hoistable(g, body, m) {
            continue;
        }
        let old = g.inputs(m).to_vec();
        let inputs: Vec<Origin> = old
            .iter()
            .map(|&o| match o {
                Origin::Arg(_, k) => g.input(n, k as usize),
                Origin::Out(c, _) => {
                    let (op, ty) = constant(g, c).expect("hoistable reads constants");
                    constants.get(g, &op, ty)
                }
            })
            .collect();
        let users: Vec<Vec<User>> = g.outputs(m).map(|o| g.users(o).to_vec()).collect();
        g.move_node(m, region, &inputs);
        for (i, users) in users.into_iter().enumerate() {
            let (arg, _) = g.add_theta_var(n, Origin::Out(m, i as u32));
            for u in users {
                g.set_origin(u, arg);
            }
        }
        // the body's constants that only the moved node read
        remove_unused(g, &old);
        count += 1;
    }
    count
}
