//! The reduced graph F_L(G) (thesis §2.2.2) with the edge redirection of §3.4
//! (Alg 12), as a view: the CFG is never modified.
//!
//! An edge `A -> B` of the CFG becomes, in the reduced graph:
//! - `A -> header(M)` if some loop contains `B` but not `A`, with `M` the largest such
//!   loop (an entry edge of an irreducible loop is redirected to the header, which in a
//!   forest with one header per loop is merged with the loop's δ node);
//! - nothing if it is a loop edge (`B` heads a loop that contains `A`);
//! - `A -> B` otherwise.
//!
//! On a reducible CFG the first case only ever yields `B` itself (every entry edge goes
//! to the header), so this is the plain reduced graph. With the forest of
//! [`LoopForest`] the result is acyclic and every reachable block stays reachable from
//! the entry (Thm 1); both passes of the live-set construction and the reachability of
//! the liveness check walk this graph, as the errata in the reading guide require.

use crate::cfg::{Block, Cfg};
use crate::dfs;
use crate::loops::LoopForest;

/// Where the CFG edge `from -> to` goes in the reduced graph; `None` for a loop edge.
pub fn reduced_target(loops: &LoopForest, from: Block, to: Block) -> Option<Block> {
    if let Some(m) = loops.outermost_loop_excluding(to, from) {
        return Some(loops.header(m));
    }
    // Every loop containing `to` contains `from`: a loop edge iff `to` is a header.
    if loops.loop_headed_by(to).is_some() {
        None
    } else {
        Some(to)
    }
}

/// The successors of `b` in the reduced graph, one per CFG edge that is not a loop edge
/// (duplicates kept).
pub fn reduced_succs<'a>(
    cfg: &'a Cfg,
    loops: &'a LoopForest,
    b: Block,
) -> impl Iterator<Item = Block> + 'a {
    cfg.succs(b)
        .iter()
        .filter_map(move |&s| reduced_target(loops, b, s))
}

/// A postorder of the reduced graph from the entry: every block comes after all its
/// reduced successors (a reverse topological order), and, since the forest is
/// connected, it lists every reachable block. O(E · loop depth) for the redirections.
pub fn reduced_postorder(cfg: &Cfg, loops: &LoopForest) -> Vec<Block> {
    let mut order = Vec::with_capacity(cfg.num_reachable());
    dfs::walk(
        cfg.num_blocks(),
        cfg.entry(),
        |b| reduced_succs(cfg, loops, b),
        |_, _| {},
        |b| order.push(b),
    );
    debug_assert_eq!(
        order.len(),
        cfg.num_reachable(),
        "Thm 1: the reduced graph is connected"
    );
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(succs: &[&[u32]]) -> Cfg {
        Cfg::from_successors(Block(0), succs.iter().map(|s| s.iter().map(|&i| Block(i))))
    }

    #[test]
    fn entry_edges_of_an_irreducible_loop_go_to_its_header() {
        // 0 -> 1, 2; 1 <-> 2; 2 -> 3. Header 1; 0 -> 2 enters the loop at 2.
        let g = cfg(&[&[1, 2], &[2], &[1, 3], &[]]);
        let f = LoopForest::compute(&g);
        assert_eq!(reduced_target(&f, Block(0), Block(2)), Some(Block(1)));
        assert_eq!(reduced_target(&f, Block(0), Block(1)), Some(Block(1)));
        assert_eq!(reduced_target(&f, Block(1), Block(2)), Some(Block(2)));
        assert_eq!(reduced_target(&f, Block(2), Block(1)), None);
        assert_eq!(reduced_target(&f, Block(2), Block(3)), Some(Block(3)));
        let post = reduced_postorder(&g, &f);
        assert_eq!(post, vec![Block(3), Block(2), Block(1), Block(0)]);
    }

    #[test]
    fn redirection_goes_to_the_outermost_loop_entered() {
        // 0 -> 1, 3; 1 -> 2; 2 -> 1, 3; 3 -> 2, 4; 4 -> 3: the outer loop {1, 2, 3, 4}
        // is headed by 1, which 0 -> 3 enters at 3; nested in it, {2, 3, 4} headed by 2
        // and {3, 4} headed by 3.
        let g = cfg(&[&[1, 3], &[2], &[1, 3], &[2, 4], &[3]]);
        let f = LoopForest::compute(&g);
        let outer = f.loop_headed_by(Block(1)).unwrap();
        assert_eq!(f.header(outer), Block(1));
        // 0 -> 3 enters the outer loop: redirected to its header, not to 3's loop.
        assert_eq!(reduced_target(&f, Block(0), Block(3)), Some(Block(1)));
        assert_eq!(f.loop_depth(Block(4)), 3);
        assert_eq!(reduced_target(&f, Block(2), Block(3)), Some(Block(3)));
        assert_eq!(reduced_target(&f, Block(4), Block(3)), None);
        assert_eq!(reduced_target(&f, Block(3), Block(2)), None);
        assert_eq!(reduced_postorder(&g, &f).len(), 5);
    }
}
