//! The change log against the truth: a fingerprint of each region (its arguments,
//! results and nodes, their edges, users lists and operations, by arena index, which
//! an unchanged region keeps) and of each λ's data, taken before a pass; after it,
//! every region and λ whose fingerprint differs must be among the changes the graph
//! reports, since the verifier of `verify=each` looks only at those.

#![allow(dead_code)] // each test file uses a part

use std::collections::BTreeMap;
use std::fmt::Write;

use vliw_rvsdg::{Changes, Node, Origin, Region, Rvsdg};

/// What the fingerprints cover: every live region and λ.
pub struct Prints {
    regions: BTreeMap<Region, String>,
    lambdas: BTreeMap<Node, String>,
}

pub fn fingerprints(g: &Rvsdg) -> Prints {
    let mut prints = Prints {
        regions: BTreeMap::new(),
        lambdas: BTreeMap::new(),
    };
    for l in g.lambdas() {
        prints.lambdas.insert(l, format!("{:?}", g.lambda_info(l)));
        for r in g.regions_below(g.lambda_body(l)) {
            prints.regions.insert(r, region(g, r));
        }
    }
    prints.regions.insert(g.root(), region(g, g.root()));
    prints
}

fn region(g: &Rvsdg, r: Region) -> String {
    let port = |o: Origin| (g.ty(o), g.users(o).to_vec());
    let args: Vec<_> = g.arg_origins(r).map(port).collect();
    let mut s = format!("{r}: args {args:?} results {:?}\n", g.results(r));
    for &n in g.nodes(r) {
        let outs: Vec<_> = g.outputs(n).map(port).collect();
        writeln!(
            s,
            "  {n} {} {:?} in {:?} out {outs:?} sub {:?}",
            g.kind(n).label(),
            g.op(n),
            g.inputs(n),
            g.kind(n).subregions()
        )
        .unwrap();
    }
    s
}

/// Takes the graph's changes and checks them against the fingerprints taken before
/// the pass: every region and λ that is new or differs is reported (a region also
/// when below a reported λ), and the root whenever the set of λs changed. Returns the
/// changes.
pub fn changes_cover(g: &mut Rvsdg, before: &Prints, pass: &str) -> Result<Changes, String> {
    let changes = g.take_changes();
    let after = fingerprints(g);
    for (l, print) in &after.lambdas {
        if before.lambdas.get(l) != Some(print) && changes.lambdas.binary_search(l).is_err() {
            return Err(format!(
                "{pass} changed the data of λ {l} without reporting it"
            ));
        }
    }
    for (&r, print) in &after.regions {
        if before.regions.get(&r) == Some(print) || changes.regions.binary_search(&r).is_ok() {
            continue;
        }
        if r == g.root() {
            if !changes.root {
                return Err(format!(
                    "{pass} changed the root region without reporting it"
                ));
            }
            continue;
        }
        let lambda = g.enclosing_lambda(r).expect("a λ's region");
        if changes.lambdas.binary_search(&lambda).is_err() {
            return Err(format!(
                "{pass} changed {r} (in λ {lambda}) without reporting it:\nbefore {}\nafter {print}",
                before.regions.get(&r).map_or("(none)", |s| s.as_str())
            ));
        }
    }
    Ok(changes)
}
