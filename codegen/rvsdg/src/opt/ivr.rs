//! Invariant value redirection (Reissmann et al. §5.2): a value that a structural
//! node only passes through is read from where it came from.
//!
//! - A γ exit variable whose result is, in every arm, the argument of one and the
//!   same entry variable is that entry variable's input. An arm whose result is an
//!   `undef` node (or an entry variable whose input is one) agrees with any entry: `undef` may be refined to any value, this one
//!   included (restructuring gives exit paths `undef` for the values they do not
//!   carry, and this is what lets those values be seen as invariant again).
//! - A θ loop variable whose next value is its own argument is invariant: its output
//!   is its input. So is a loop variable whose next value is the argument of an
//!   invariant one: a θ's outputs are the last iteration's next values (its body runs
//!   at least once), whatever its own input was.
//!
//! States are left alone: a state has one user, so redirecting one would have to
//! remove the variable at once. The users of values are redirected; the variables
//! themselves are left for dead node elimination, which removes what nobody reads any more. Regions are visited
//! innermost first, so that a value passed through nested γs and θs is redirected
//! through all of them in one run.

use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg};
use crate::report::Report;
use vliw_ir::Opcode;

/// Redirects the users of every invariant output of a γ or θ of `g`.
pub fn invariant_value_redirection(g: &mut Rvsdg, report: &mut Report) {
    let mut redirected = 0;
    for l in g.lambdas() {
        let body = g.lambda_body(l);
        redirected += region(g, body);
    }
    report.count("ivr.redirected", redirected as u64);
}

fn region(g: &mut Rvsdg, r: Region) -> usize {
    let mut count = 0;
    for n in g.topological_order(r) {
        let subregions = g.kind(n).subregions().to_vec();
        for &s in &subregions {
            count += region(g, s);
        }
        count += match g.kind(n) {
            NodeKind::Gamma { .. } => gamma(g, n, &subregions),
            NodeKind::Theta { body } => theta(g, n, *body),
            _ => 0,
        };
    }
    count
}

fn gamma(g: &mut Rvsdg, n: Node, arms: &[Region]) -> usize {
    let mut count = 0;
    for k in 0..g.num_outputs(n) {
        let out = Origin::Out(n, k as u32);
        if !g.has_users(out) || g.ty(out).is_state() {
            continue;
        }
        let mut entry = None;
        let invariant = arms.iter().all(|&arm| match g.results(arm)[k] {
            Origin::Arg(_, j) if is_undef(g, g.input(n, j as usize + 1)) => true,
            Origin::Arg(_, j) => *entry.get_or_insert(j) == j,
            o => is_undef(g, o),
        });
        if let (true, Some(j)) = (invariant, entry) {
            let input = g.input(n, j as usize + 1);
            count += usize::from(g.divert_users(out, input) > 0);
        }
    }
    count
}

fn theta(g: &mut Rvsdg, n: Node, body: Region) -> usize {
    let mut count = 0;
    let invariant = |g: &Rvsdg, j: usize| g.results(body)[j + 1] == Origin::Arg(body, j as u32);
    for k in 0..g.num_outputs(n) {
        let out = Origin::Out(n, k as u32);
        if !g.has_users(out) || g.ty(out).is_state() {
            continue;
        }
        if let Origin::Arg(_, j) = g.results(body)[k + 1]
            && invariant(g, j as usize)
        {
            let input = g.input(n, j as usize);
            count += usize::from(g.divert_users(out, input) > 0);
        }
    }
    count
}

/// Whether `o` is the output of an `undef` node.
fn is_undef(g: &Rvsdg, o: Origin) -> bool {
    g.producer(o)
        .and_then(|n| g.op(n))
        .is_some_and(|op| matches!(op, Op::Inst(data) if data.opcode() == Opcode::Undef))
}
