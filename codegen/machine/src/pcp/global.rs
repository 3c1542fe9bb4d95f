//! The global component (004 §4.2, Alg. 1): the local pass run over the hyperblocks
//! by a worklist until the information at their entries is stable.
//!
//! Every block is a hyperblock (after if-conversion, a region is one block). The
//! paper's `inf[hb]`, a map from every variable to the lattice, is in SSA one
//! element per virtual register, valid wherever it is defined: the registers a
//! block defines take the elements its local pass finds (the meet over its paths),
//! and a block's parameters the meet of the arguments its executable incoming edges
//! pass (the paper's `meet` over `Info[hb@m]`, `m` the predecessors of the block's
//! start). Everything starts at ⊤ but the entry's parameters (⊥: the start
//! information `c_s` assumes nothing), and only the entry is reachable. A block is
//! visited again when a register it reads goes down, and reached when some path of a
//! reached block takes an edge to it; loops are nothing special, their back edges'
//! arguments meet the header's parameters like any other edge's. Each register goes
//! down at most twice (⊤, a constant, ⊥), so the worklist empties.
//!
//! Elements only go down: a block's new result is met with what its registers had,
//! which keeps the iteration finite when a block is analysed with paths on one
//! visit and without on another (the cap decides per visit; both are sound).

use rustc_hash::FxHashMap as HashMap;
use std::collections::VecDeque;

use cranelift_entity::EntityRef;

use super::lattice::Lat;
use super::propagate::{self, BlockFacts, Policy};
use super::{Mode, PcpOptions};
use crate::mir::{MBlock, MachFunction, VReg};

/// The result of the analysis of a function.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    /// The element of every virtual register (by its index).
    pub values: Vec<Lat>,
    /// The blocks some executable edge reaches, with what their final local pass
    /// found (run with the stable information).
    pub facts: HashMap<MBlock, BlockFacts>,
    /// Whether some block has successors the analysis cannot see (a `jr` without its
    /// table): then nothing may be rewritten.
    pub unknown_successors: bool,
    /// Local passes run (visits of the worklist, the final one included).
    pub visits: usize,
}

impl Analysis {
    pub fn value(&self, v: VReg) -> Lat {
        self.values.get(v.index()).copied().unwrap_or(Lat::Top)
    }

    pub fn reached(&self, b: MBlock) -> bool {
        self.facts.contains_key(&b)
    }
}

/// The local pass of block `b` under the mode and cap of `options`, without paths
/// when they exceed the cap. A block found above the cap once (`over_cap`) is
/// analysed without paths from then on: its paths only multiply as the elements go
/// down (more conditions ⊥), and going without paths is sound anyway.
pub fn local(
    mf: &MachFunction,
    b: MBlock,
    values: &[Lat],
    options: &PcpOptions,
    over_cap: &mut [bool],
) -> BlockFacts {
    let entry = |v: VReg| values.get(v.index()).copied().unwrap_or(Lat::Bottom);
    let policy = match options.mode {
        Mode::Basic => Policy::Basic,
        Mode::Full => Policy::Full,
    };
    if !over_cap[b.index()] {
        match propagate::evaluate(mf, b, &entry, policy, options.max_paths) {
            Ok(facts) => return facts,
            Err(_) => over_cap[b.index()] = true,
        }
    }
    let mut facts = propagate::evaluate(mf, b, &entry, Policy::Flat, 1)
        .expect("without paths the pass never splits one");
    facts.fallback = true;
    facts
}

/// Queues `b` unless it is queued already.
fn push(b: MBlock, queued: &mut [bool], work: &mut VecDeque<MBlock>) {
    if !queued[b.index()] {
        queued[b.index()] = true;
        work.push_back(b);
    }
}

/// Alg. 1 over the blocks of `mf` (machine SSA).
pub fn analyze(mf: &MachFunction, options: &PcpOptions) -> Analysis {
    let mut values = vec![Lat::Top; mf.vregs.len()];
    let Some(&entry) = mf.layout.first() else {
        return Analysis::default();
    };
    // the blocks that read each register they do not define
    let mut readers: HashMap<VReg, Vec<MBlock>> = HashMap::default();
    for &b in &mf.layout {
        let defined: Vec<VReg> = mf
            .block_insts(b)
            .flat_map(|i| i.defs.iter().filter_map(|r| r.as_virtual()))
            .collect();
        for inst in mf.block_insts(b) {
            for v in inst.all_uses().filter_map(|r| r.as_virtual()) {
                if !defined.contains(&v) {
                    let list = readers.entry(v).or_default();
                    if list.last() != Some(&b) {
                        list.push(b);
                    }
                }
            }
        }
    }
    for &p in &mf.blocks[entry].params {
        values[p.index()] = Lat::Bottom;
    }
    let mut reached = vec![false; mf.blocks.len()];
    let mut over_cap = vec![false; mf.blocks.len()];
    let mut queued = vec![false; mf.blocks.len()];
    let mut work: VecDeque<MBlock> = VecDeque::new();
    reached[entry.index()] = true;
    push(entry, &mut queued, &mut work);
    let mut analysis = Analysis::default();
    while let Some(b) = work.pop_front() {
        queued[b.index()] = false;
        let facts = local(mf, b, &values, options, &mut over_cap);
        analysis.visits += 1;
        if facts.unknown_exit {
            analysis.unknown_successors = true;
            return analysis;
        }
        let mut lowered: Vec<VReg> = Vec::new();
        for (&v, &l) in &facts.defs {
            let old = values[v.index()];
            let new = old.meet(l);
            if new != old {
                values[v.index()] = new;
                lowered.push(v);
            }
        }
        for exit in &facts.exits {
            let t = exit.target;
            if t.index() >= reached.len() {
                continue;
            }
            if !reached[t.index()] {
                reached[t.index()] = true;
                push(t, &mut queued, &mut work);
            }
            for (&p, &arg) in mf.blocks[t].params.iter().zip(&exit.args) {
                let old = values[p.index()];
                let new = old.meet(arg);
                if new != old {
                    values[p.index()] = new;
                    lowered.push(p);
                    push(t, &mut queued, &mut work);
                }
            }
        }
        for v in lowered {
            for &r in readers.get(&v).map(Vec::as_slice).unwrap_or(&[]) {
                if reached[r.index()] {
                    push(r, &mut queued, &mut work);
                }
            }
        }
    }
    for &b in &mf.layout {
        if reached[b.index()] {
            let facts = local(mf, b, &values, options, &mut over_cap);
            analysis.facts.insert(b, facts);
            analysis.visits += 1;
        }
    }
    analysis.values = values;
    analysis
}
