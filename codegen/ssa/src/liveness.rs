//! Live-in and live-out sets by the two-pass algorithm of thesis §3.2.2 (Alg 4–6),
//! extended to irreducible CFGs by the edge redirection of §3.4 (Alg 12).
//!
//! Pass 1 (DAG_DFS, Alg 4): visit the blocks in a postorder of the reduced graph
//! ([`crate::reduced`]), so each block after its reduced successors, and compute
//! `LiveOut(B) = PhiUses(B) ∪ ⋃ LiveIn(S')` over the reduced successors `S'`, then
//! `LiveIn(B)` by scanning `B` backwards. Pass 2 (LoopTree_DFS, Alg 5): for each loop,
//! outer loops first, add the loop header's live-in set to the live-in and live-out
//! sets of every block of its body. No fixpoint iteration.
//!
//! Conventions: `live_in(B)` is Def 1 of §3.1 at the entry of `B`, so it does **not**
//! contain `B`'s φ-definitions (Alg 4 adds them to `LiveIn(B)` and subtracts them again
//! at every read; keeping them out is the same computation). `live_out(B)` is the set
//! of variables live at the end of `B`, after its last instruction: the live-in sets
//! of its successors plus its own φ-uses.
//!
//! Complexity: O((V + E) · d) for the redirections (d the loop depth), plus
//! O(V + E) set operations of O(live words) each (`BitSet` holds only the words
//! with members); memory proportional to the live sets' sizes.

use crate::bitset::BitSet;
use crate::cfg::{Block, Cfg};
use crate::loops::LoopForest;
use crate::program::{Access, SsaProgram, Var};
use crate::reduced::{reduced_postorder, reduced_succs};

/// Live-in and live-out sets of every block. Unreachable blocks have empty sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveSets {
    live_in: Vec<BitSet>,
    live_out: Vec<BitSet>,
}

impl LiveSets {
    /// Sets of `var_count` variables, all empty.
    pub(crate) fn empty(num_blocks: usize, var_count: usize) -> Self {
        LiveSets {
            live_in: vec![BitSet::new(var_count); num_blocks],
            live_out: vec![BitSet::new(var_count); num_blocks],
        }
    }

    /// The two-pass construction. `program` must be in strict SSA on `cfg`, and `loops`
    /// must be the forest of `cfg`.
    pub fn compute(cfg: &Cfg, loops: &LoopForest, program: &impl SsaProgram) -> LiveSets {
        let mut sets = LiveSets::empty(cfg.num_blocks(), program.var_count());
        let mut phi_defs = BitSet::new(program.var_count());

        // Pass 1: DAG_DFS over the reduced graph, each block after its successors.
        for b in reduced_postorder(cfg, loops) {
            let mut live = BitSet::new(program.var_count());
            program.for_each_phi_use(b, |v| {
                live.insert(v.index());
            });
            for s in reduced_succs(cfg, loops, b) {
                // Already excludes the φ-definitions of `s`.
                live.union_with(&sets.live_in[s.index()]);
            }
            sets.live_out[b.index()] = live.clone();
            scan_backward(program, b, &mut live);
            phi_defs.clear();
            program.for_each_phi_def(b, |v| {
                phi_defs.insert(v.index());
            });
            live.subtract(&phi_defs);
            sets.live_in[b.index()] = live;
        }

        // Pass 2: LoopTree_DFS. Loops are in preorder of the forest, so a header has
        // received its enclosing loops' sets before its own loop is processed.
        for l in loops.loops() {
            let header_live = sets.live_in[loops.header(l).index()].clone();
            for &b in loops.direct_blocks(l) {
                sets.live_in[b.index()].union_with(&header_live);
                sets.live_out[b.index()].union_with(&header_live);
            }
            for &c in loops.children(l) {
                sets.live_in[loops.header(c).index()].union_with(&header_live);
            }
        }
        sets
    }

    /// The variables live at the entry of `b` (φ-definitions of `b` excluded).
    pub fn live_in(&self, b: Block) -> &BitSet {
        &self.live_in[b.index()]
    }

    /// The variables live at the end of `b` (its φ-uses included).
    pub fn live_out(&self, b: Block) -> &BitSet {
        &self.live_out[b.index()]
    }

    pub fn is_live_in(&self, b: Block, v: Var) -> bool {
        self.live_in[b.index()].contains(v.index())
    }

    pub fn is_live_out(&self, b: Block, v: Var) -> bool {
        self.live_out[b.index()].contains(v.index())
    }

    pub(crate) fn sets_mut(&mut self) -> (&mut [BitSet], &mut [BitSet]) {
        (&mut self.live_in, &mut self.live_out)
    }

    /// Bytes held by the sets (for the memory figures of benchmarks).
    pub fn heap_bytes(&self) -> usize {
        self.live_in
            .iter()
            .chain(&self.live_out)
            .map(BitSet::heap_bytes)
            .sum()
    }
}

/// Turns the set live at the end of `b`'s instructions into the set live before its
/// first instruction: definitions leave, uses enter, last instruction first.
pub(crate) fn scan_backward(program: &impl SsaProgram, b: Block, live: &mut BitSet) {
    program.for_each_access_backward(b, |a| match a {
        Access::Def(v) => {
            live.remove(v.index());
        }
        Access::Use(v) => {
            live.insert(v.index());
        }
    });
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::dataflow::DataflowLiveness;
    use crate::program::{ExplicitProgram, Instruction};

    pub(crate) fn cfg(succs: &[&[u32]]) -> Cfg {
        Cfg::from_successors(Block(0), succs.iter().map(|s| s.iter().map(|&i| Block(i))))
    }

    /// A program on `cfg` with no arguments on any edge.
    pub(crate) fn empty_program(cfg: &Cfg) -> ExplicitProgram {
        let mut p = ExplicitProgram::new(cfg.num_blocks());
        for b in cfg.blocks() {
            p.blocks[b.index()].edge_args = vec![Vec::new(); cfg.succs(b).len()];
        }
        p
    }

    pub(crate) fn def(p: &mut ExplicitProgram, b: u32) -> Var {
        let v = p.new_var();
        p.blocks[b as usize].insts.push(Instruction {
            defs: vec![v],
            uses: vec![],
        });
        v
    }

    pub(crate) fn use_in(p: &mut ExplicitProgram, b: u32, v: Var) {
        p.blocks[b as usize].insts.push(Instruction {
            defs: vec![],
            uses: vec![v],
        });
    }

    fn blocks_where(cfg: &Cfg, f: impl Fn(Block) -> bool) -> Vec<u32> {
        cfg.blocks().filter(|&b| f(b)).map(|b| b.0).collect()
    }

    #[test]
    fn nested_loops_need_no_iteration_unlike_data_flow() {
        // Thesis Fig 3.2: four nested loops (headers 1..4, innermost body {4, 5}),
        // `a` defined before them and used in the outermost header only.
        let g = cfg(&[&[1], &[2, 6], &[3, 1], &[4, 2], &[5, 3], &[4], &[]]);
        let mut p = empty_program(&g);
        let a = def(&mut p, 0);
        use_in(&mut p, 1, a);
        let loops = LoopForest::compute(&g);
        let sets = LiveSets::compute(&g, &loops, &p);
        assert_eq!(
            blocks_where(&g, |b| sets.is_live_in(b, a)),
            vec![1, 2, 3, 4, 5]
        );
        assert_eq!(
            blocks_where(&g, |b| sets.is_live_out(b, a)),
            vec![0, 1, 2, 3, 4, 5]
        );
        let reference = DataflowLiveness::compute(&g, &p);
        assert_eq!(sets, reference.sets);
        // Round-robin in postorder (Alg 3, live-in starting at the upward-exposed uses)
        // reaches one more loop level per pass: 2 in the first, then 3, 4 and 5, then a
        // pass with no change; the passes grow with the nesting depth.
        assert_eq!(reference.passes, 5);
    }

    #[test]
    fn an_entry_edge_into_an_irreducible_loop_is_redirected_to_its_header() {
        // 0 -> 1, 2; 1 -> 3; 3 -> 1; 2 -> 3. The loop {1, 3} is headed by 1 and
        // entered at 3 from 2; `a` is defined in 0 and used in 1. Without redirecting
        // 2 -> 3 to 1, the first pass sees nothing live at 3 (its path to the use is
        // the loop edge 3 -> 1) and 2, outside the loop, is never repaired.
        let g = cfg(&[&[1, 2], &[3], &[3], &[1]]);
        let mut p = empty_program(&g);
        let a = def(&mut p, 0);
        use_in(&mut p, 1, a);
        let loops = LoopForest::compute(&g);
        assert_eq!(
            loops.header(loops.innermost_loop(Block(3)).unwrap()),
            Block(1)
        );
        let sets = LiveSets::compute(&g, &loops, &p);
        assert_eq!(blocks_where(&g, |b| sets.is_live_in(b, a)), vec![1, 2, 3]);
        assert_eq!(
            blocks_where(&g, |b| sets.is_live_out(b, a)),
            vec![0, 1, 2, 3]
        );
        assert_eq!(sets, DataflowLiveness::compute(&g, &p).sets);
    }

    #[test]
    fn phi_definitions_are_not_live_in_and_phi_uses_are_live_out() {
        // 0 -> 1; 1 -> 1, 2. x = param of 1, passed around the self-loop as y = x + 1.
        let g = cfg(&[&[1], &[1, 2], &[]]);
        let mut p = empty_program(&g);
        let init = def(&mut p, 0);
        let x = p.new_var();
        p.blocks[1].params.push(x);
        let y = p.new_var();
        p.blocks[1].insts.push(Instruction {
            defs: vec![y],
            uses: vec![x],
        });
        p.blocks[0].edge_args = vec![vec![init]];
        p.blocks[1].edge_args = vec![vec![y], vec![]];
        let loops = LoopForest::compute(&g);
        let sets = LiveSets::compute(&g, &loops, &p);
        assert!(
            !sets.is_live_in(Block(1), x),
            "a φ-definition is defined at the entry"
        );
        assert!(!sets.is_live_out(Block(1), x));
        assert!(
            sets.is_live_out(Block(1), y),
            "a φ-use sits at the end of the predecessor"
        );
        assert!(!sets.is_live_in(Block(1), y));
        assert!(sets.is_live_out(Block(0), init) && !sets.is_live_in(Block(1), init));
        assert_eq!(sets, DataflowLiveness::compute(&g, &p).sets);
    }
}
