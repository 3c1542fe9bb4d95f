//! The classical iterative data-flow liveness (thesis §3.2.1, Alg 3): round-robin
//! passes in postorder until nothing changes. It is the reference the two-pass
//! algorithm and the liveness check are tested against, and the baseline of the speed
//! comparison. Same conventions and results as [`LiveSets::compute`].
//!
//! Complexity: O(passes · (V + E)) set operations; the number of passes grows with the
//! loop nesting depth (thesis Fig 3.2).

use crate::bitset::BitSet;
use crate::cfg::Cfg;
use crate::dfs::DfsOrder;
use crate::liveness::{LiveSets, scan_backward};
use crate::program::{Access, SsaProgram};

/// The result of the iterative analysis.
#[derive(Clone, Debug)]
pub struct DataflowLiveness {
    pub sets: LiveSets,
    /// Passes over the blocks, the last one being the pass that changed nothing.
    pub passes: usize,
}

impl DataflowLiveness {
    pub fn compute(cfg: &Cfg, program: &impl SsaProgram) -> DataflowLiveness {
        let vars = program.var_count();
        let order = DfsOrder::compute(cfg);
        let n = cfg.num_blocks();
        // Per block: upward-exposed uses (φ-definitions removed: they are not live at
        // the entry), everything defined (φ-definitions included), and φ-uses.
        let mut upward = vec![BitSet::new(0); n];
        let mut killed = vec![BitSet::new(0); n];
        let mut phi_uses = vec![BitSet::new(0); n];
        for &b in order.postorder() {
            let mut ue = BitSet::new(vars);
            scan_backward(program, b, &mut ue);
            let mut kill = BitSet::new(vars);
            program.for_each_access_backward(b, |a| {
                if let Access::Def(v) = a {
                    kill.insert(v.index());
                }
            });
            program.for_each_phi_def(b, |v| {
                kill.insert(v.index());
                ue.remove(v.index());
            });
            let mut pu = BitSet::new(vars);
            program.for_each_phi_use(b, |v| {
                pu.insert(v.index());
            });
            upward[b.index()] = ue;
            killed[b.index()] = kill;
            phi_uses[b.index()] = pu;
        }

        let mut sets = LiveSets::empty(n, vars);
        let (live_in, live_out) = sets.sets_mut();
        for &b in order.postorder() {
            live_in[b.index()] = upward[b.index()].clone();
        }
        let mut passes = 0;
        let mut changed = true;
        while changed {
            changed = false;
            passes += 1;
            for &b in order.postorder() {
                let mut out = phi_uses[b.index()].clone();
                for &s in cfg.succs(b) {
                    out.union_with(&live_in[s.index()]);
                }
                if out != live_out[b.index()] {
                    let mut inn = out.clone();
                    inn.subtract(&killed[b.index()]);
                    inn.union_with(&upward[b.index()]);
                    live_out[b.index()] = out;
                    live_in[b.index()] = inn;
                    changed = true;
                }
            }
        }
        DataflowLiveness { sets, passes }
    }
}
