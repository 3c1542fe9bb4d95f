//! Invariant value redirection (Reissmann et al. §5, "invariant value redirection"):
//! a value that a structural node only passes through is read from where it came
//! from.
//!
//! - A γ exit variable whose result is, in every arm, the argument of one and the
//!   same entry variable is that entry variable's input. An arm whose result is an
//!   `undef` node (or an entry variable whose input is one) agrees with any entry:
//!   `undef` may be refined to any value, this one included (restructuring gives exit
//!   paths `undef` for the values they do not carry, and this is what lets those
//!   values be seen as invariant again).
//! - A θ loop variable whose next value is its own argument is invariant: its output
//!   is its input. So is a loop variable whose next value is the argument of an
//!   invariant one: a θ's outputs are the last iteration's next values (its body runs
//!   at least once), whatever its own input was. (How the construction carries a
//!   value out of a loop; this lets a value that an inner loop only passes through be
//!   invariant in the outer loop.)
//!
//! For values, the users are redirected and the variables themselves are left for
//! dead node elimination, which removes what nobody reads any more.
//!
//! States are used once (`verify/structure.rs`, linearity), so a state that a
//! structural node only passes through is taken out of it instead: its users read the
//! input, and the variable is removed at once (counted as `ivr.states`). Every γ and θ
//! of a freshly built graph threads the memory and I/O states, whether it touches them
//! or not; this unties the effects before and after a γ or θ that does not touch a
//! state from it, so that nothing orders them needlessly.
//!
//! - A γ's state exit whose result is, in every arm, the argument of one entry
//!   variable that nothing else in the arm reads (no sink shares it) goes, with that
//!   entry variable.
//! - A θ's **memory** loop variable that the body passes through unread goes. Its
//!   **I/O** variable stays, always: a loop may not end, and not ending is behaviour
//!   that must stay ordered before the I/O that follows the loop (and that keeps dead
//!   node elimination from removing a loop whose values are unused: `loop {}` must
//!   still hang). A γ always ends (what inside it may not, a θ, keeps its I/O state,
//!   so the γ's arm does not pass it through).
//!
//! **Through checks** ([`invariant_value_redirection_through_checks`], which
//! `rvsdg-loop-prep` runs): for values, the arms of a γ that never complete (a bounds
//! check's panic, a landing pad that resumes unwinding: `completion.rs`) are left out
//! of the rule, since nothing that reads the γ's output runs after them; the value is
//! then the entry's input wherever it is read. States stay as they were: the effects
//! of the arm that does not complete still come before what follows the γ
//! (`ivr.through-checks`).
//!
//! Regions are visited innermost first, so that a value passed through nested γs and
//! θs is redirected through all of them in one run, and a state that an inner γ stops
//! threading lets the enclosing θ stop threading it too.

use vliw_ir::Opcode;

use super::completion::Completion;
use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;

/// Redirects the users of every invariant output of a γ or θ of `g`, and takes the
/// states they only pass through out of them.
pub fn invariant_value_redirection(g: &mut Rvsdg, report: &mut Report) {
    let mut counts = Counts::default();
    for l in g.lambdas() {
        let body = g.lambda_body(l);
        region(g, body, &mut counts);
    }
    report.count("ivr.redirected", counts.redirected as u64);
    report.count("ivr.states", counts.states as u64);
}

/// [`invariant_value_redirection`], with the arms of γs that never complete left out
/// of the rule for values (see the module documentation).
pub fn invariant_value_redirection_through_checks(g: &mut Rvsdg, report: &mut Report) {
    let mut counts = Counts {
        through_checks: true,
        ..Counts::default()
    };
    for l in g.lambdas() {
        let body = g.lambda_body(l);
        region(g, body, &mut counts);
    }
    report.count("ivr.through-checks", counts.redirected as u64);
    report.count("ivr.states", counts.states as u64);
}

#[derive(Default)]
struct Counts {
    /// Outputs whose users were redirected.
    redirected: usize,
    /// State variables removed.
    states: usize,
    /// Whether arms that never complete are left out for values.
    through_checks: bool,
}

fn region(g: &mut Rvsdg, r: Region, counts: &mut Counts) {
    for n in g.topological_order(r) {
        let subregions = g.kind(n).subregions().to_vec();
        for &s in &subregions {
            region(g, s, counts);
        }
        match g.kind(n) {
            NodeKind::Gamma { .. } => {
                counts.redirected += gamma_values(g, n, &subregions, counts.through_checks);
                counts.states += gamma_states(g, n, &subregions);
            }
            NodeKind::Theta { body } => {
                let body = *body;
                counts.redirected += theta_values(g, n, body);
                counts.states += theta_memory(g, n, body);
            }
            _ => {}
        }
    }
}

/// The entry variable whose argument is exit `k`'s result in every arm (for states:
/// no `undef` stands for one).
fn passed_through(g: &Rvsdg, arms: &[Region], k: usize) -> Option<u32> {
    let mut entry = None;
    let through = arms.iter().all(|&arm| match g.results(arm)[k] {
        Origin::Arg(_, j) => *entry.get_or_insert(j) == j,
        Origin::Out(..) => false,
    });
    if through { entry } else { None }
}

fn gamma_values(g: &mut Rvsdg, n: Node, arms: &[Region], through_checks: bool) -> usize {
    let mut count = 0;
    // the arms that count: all of them, or those that may complete
    let arms: Vec<Region> = if through_checks {
        let mut c = Completion::new();
        c.completing_arms(g, n)
            .into_iter()
            .map(|a| arms[a])
            .collect()
    } else {
        arms.to_vec()
    };
    if arms.is_empty() {
        return 0;
    }
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

/// Removes the state exits that every arm passes through from one entry variable, and
/// those entry variables.
fn gamma_states(g: &mut Rvsdg, n: Node, arms: &[Region]) -> usize {
    let mut count = 0;
    // backwards: removing exit k renumbers only the exits after it
    for k in (0..g.num_outputs(n)).rev() {
        let out = Origin::Out(n, k as u32);
        if !g.ty(out).is_state() {
            continue;
        }
        let Some(j) = passed_through(g, arms, k) else {
            continue;
        };
        // the result is the argument's only user in every arm: a sink that shares it
        // (a `trap` in that arm) would be left reading nothing
        if arms
            .iter()
            .any(|&arm| g.users(Origin::Arg(arm, j)).len() != 1)
        {
            continue;
        }
        let input = g.input(n, j as usize + 1);
        g.divert_users(out, input);
        g.remove_gamma_exit(n, k);
        g.remove_gamma_entry(n, j as usize);
        count += 1;
    }
    count
}

/// Redirects the users of the loop variables whose last value is an invariant
/// variable's (their own, or another's: see `theta_invariant`) to that variable's
/// input.
fn theta_values(g: &mut Rvsdg, n: Node, body: Region) -> usize {
    let mut count = 0;
    for k in 0..g.num_outputs(n) {
        let out = Origin::Out(n, k as u32);
        if !g.has_users(out) || g.ty(out).is_state() {
            continue;
        }
        if let Origin::Arg(_, j) = g.results(body)[k + 1]
            && theta_invariant(g, body, j as usize)
        {
            let input = g.input(n, j as usize);
            count += usize::from(g.divert_users(out, input) > 0);
        }
    }
    count
}

/// Whether loop variable `j` is invariant (its next value is its argument). A loop
/// variable whose next value is an invariant variable's argument ends with that
/// variable's value too: the body runs at least once, and in its last run the argument
/// holds the input. (The construction carries a value out of a loop so: an exit
/// variable that starts `undef` and takes the value in every iteration.)
fn theta_invariant(g: &Rvsdg, body: Region, j: usize) -> bool {
    g.results(body)[j + 1] == Origin::Arg(body, j as u32)
}

/// Removes the memory loop variables that the body passes through without reading
/// them (the I/O one stays: see the module's documentation).
fn theta_memory(g: &mut Rvsdg, n: Node, body: Region) -> usize {
    let mut count = 0;
    for k in (0..g.num_outputs(n)).rev() {
        let out = Origin::Out(n, k as u32);
        let arg = Origin::Arg(body, k as u32);
        if g.ty(out) == Ty::Mem && g.results(body)[k + 1] == arg && g.users(arg).len() == 1 {
            let input = g.input(n, k);
            g.divert_users(out, input);
            g.remove_theta_var(n, k);
            count += 1;
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
