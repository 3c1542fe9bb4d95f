//! Constants for code that moves: a node moved into another region (hoisted out of a
//! γ or a θ) that reads constants of its old region needs them in its new one. The
//! constants already there are reused, others are copied once; the old region's
//! constants stay for the nodes that still read them (dead node elimination removes
//! the rest, or the pass itself when it knows nothing reads them any more).

use rustc_hash::FxHashMap;

use crate::graph::{Node, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};

/// A constant node: no inputs, one output, cheap to compute anywhere
/// ([`Op::is_constant_like`]). Its operation and type.
pub fn constant(g: &Rvsdg, c: Node) -> Option<(Op, Ty)> {
    let op = g.op(c)?;
    (op.is_constant_like() && g.inputs(c).is_empty() && g.num_outputs(c) == 1)
        .then(|| (op.clone(), g.ty(Origin::Out(c, 0))))
}

/// The constants of one region, by operation and type, found when first asked for.
pub struct RegionConstants {
    region: Region,
    known: Option<FxHashMap<(Op, Ty), Origin>>,
}

impl RegionConstants {
    pub fn new(region: Region) -> Self {
        RegionConstants {
            region,
            known: None,
        }
    }

    /// The output of a constant `op` of type `ty` in the region: an existing one, or a
    /// new node.
    pub fn get(&mut self, g: &mut Rvsdg, op: &Op, ty: Ty) -> Origin {
        let region = self.region;
        let known = self.known.get_or_insert_with(|| {
            let mut m = FxHashMap::default();
            for &n in g.nodes(region) {
                if let Some(key) = constant(g, n) {
                    m.entry(key).or_insert(Origin::Out(n, 0));
                }
            }
            m
        });
        *known
            .entry((op.clone(), ty))
            .or_insert_with(|| Origin::Out(g.add_simple(region, op.clone(), &[], &[ty]), 0))
    }
}

/// Removes the constants among `origins` that nothing reads any more.
pub fn remove_unused(g: &mut Rvsdg, origins: &[Origin]) {
    for &o in origins {
        if let Origin::Out(c, _) = o
            && g.is_alive(c)
            && !g.is_used(c)
            && constant(g, c).is_some()
        {
            g.remove_node(c);
        }
    }
}
