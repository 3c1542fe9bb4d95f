//! The post-dominator tree of an acyclic dependence graph with a virtual return τ
//! (thesis §3.3.1): `u` post-dominates `v` when every path from `v`'s results to τ
//! passes through `u`. `buildPDG` walks this tree: a node's subtree is what it alone
//! demands.
//!
//! Edges go from a producer to its consumers (the direction values flow); τ consumes
//! the unit's results. In a DAG, a node's immediate post-dominator is the nearest
//! common ancestor, in the tree built so far, of its consumers: taking the nodes
//! consumers first (a reverse topological order), every consumer is in the tree when
//! its producers are placed (Cooper, Harvey and Kennedy's intersection, on a DAG in
//! one pass).

/// The tree over nodes `0..n`, with τ as node `n` (its root).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostDomTree {
    /// The immediate post-dominator of each node; τ's is itself.
    ipdom: Vec<u32>,
    /// Each node's depth in the tree (τ is 0).
    depth: Vec<u32>,
}

/// A node from which τ cannot be reached (so nothing post-dominates it): the caller
/// removes dead nodes first.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Unreachable(pub usize);

impl PostDomTree {
    /// The tree of nodes `0..n`: `consumers(v)` lists the nodes that read `v` (τ, node
    /// `n`, for the unit's results); `order` is every node `0..n` with each producer
    /// before its consumers.
    pub fn compute<'a>(
        n: usize,
        consumers: impl Fn(usize) -> &'a [usize],
        order: &[usize],
    ) -> Result<Self, Unreachable> {
        debug_assert_eq!(order.len(), n, "every node once");
        const NONE: u32 = u32::MAX;
        let mut ipdom = vec![NONE; n + 1];
        let mut depth = vec![0; n + 1];
        ipdom[n] = n as u32;
        for &v in order.iter().rev() {
            let mut reads = consumers(v).iter().copied();
            let Some(first) = reads.next() else {
                return Err(Unreachable(v));
            };
            let mut lca = first;
            for u in reads {
                lca = Self::meet(&ipdom, &depth, lca, u);
            }
            if ipdom[lca] == NONE {
                // a consumer placed after its producer: `order` is not topological
                panic!("node {lca} is not before its producer {v} in the order");
            }
            ipdom[v] = lca as u32;
            depth[v] = depth[lca] + 1;
        }
        Ok(PostDomTree { ipdom, depth })
    }

    /// The nearest common ancestor of `a` and `b` in the tree built so far.
    fn meet(ipdom: &[u32], depth: &[u32], mut a: usize, mut b: usize) -> usize {
        while a != b {
            if depth[a] >= depth[b] {
                a = ipdom[a] as usize;
            } else {
                b = ipdom[b] as usize;
            }
        }
        a
    }

    /// τ, the root.
    pub fn root(&self) -> usize {
        self.ipdom.len() - 1
    }

    /// The immediate post-dominator of `v` (`None` for τ).
    pub fn ipdom(&self, v: usize) -> Option<usize> {
        (v != self.root()).then(|| self.ipdom[v] as usize)
    }

    pub fn depth(&self, v: usize) -> u32 {
        self.depth[v]
    }

    /// Whether `a` post-dominates `b` (every node post-dominates itself).
    pub fn postdominates(&self, a: usize, mut b: usize) -> bool {
        while self.depth[b] > self.depth[a] {
            b = self.ipdom[b] as usize;
        }
        a == b
    }

    /// The nearest common post-dominator of `a` and `b`.
    pub fn nearest_common(&self, a: usize, b: usize) -> usize {
        Self::meet(&self.ipdom, &self.depth, a, b)
    }

    /// Each node's children in the tree, in increasing order.
    pub fn children(&self) -> Vec<Vec<usize>> {
        let mut children = vec![Vec::new(); self.ipdom.len()];
        for v in 0..self.root() {
            children[self.ipdom[v] as usize].push(v);
        }
        children
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Whether every path from `v` to τ (`n`) passes through `a`, by search.
    fn brute_postdominates(n: usize, consumers: &[Vec<usize>], a: usize, v: usize) -> bool {
        if a == v {
            return true;
        }
        let mut seen = vec![false; n + 1];
        let mut stack = vec![v];
        while let Some(x) = stack.pop() {
            if x == n {
                return false; // τ reached avoiding `a`
            }
            for &u in &consumers[x] {
                if u != a && !std::mem::replace(&mut seen[u], true) {
                    stack.push(u);
                }
            }
        }
        true
    }

    /// A random DAG over `0..n` in topological order `0..n`: each node has consumers
    /// among the later nodes and τ.
    fn dag() -> impl Strategy<Value = Vec<Vec<usize>>> {
        (1usize..12).prop_flat_map(|n| {
            prop::collection::vec(prop::collection::vec(0usize..1000, 1..4), n).prop_map(
                move |picks| {
                    (0..n)
                        .map(|v| {
                            let mut c: Vec<usize> = picks[v]
                                .iter()
                                .map(|p| v + 1 + p % (n - v)) // later nodes, or τ = n
                                .collect();
                            c.sort_unstable();
                            c.dedup();
                            c
                        })
                        .collect()
                },
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn matches_the_definition_on_random_dags(consumers in dag()) {
            let n = consumers.len();
            let order: Vec<usize> = (0..n).collect();
            let tree = PostDomTree::compute(n, |v| &consumers[v], &order).unwrap();
            for v in 0..n {
                for a in 0..=n {
                    prop_assert_eq!(
                        tree.postdominates(a, v),
                        brute_postdominates(n, &consumers, a, v),
                        "does {} post-dominate {}?", a, v
                    );
                }
                // the immediate one is strict and post-dominated by every strict one
                let i = tree.ipdom(v).unwrap();
                prop_assert!(i != v && brute_postdominates(n, &consumers, i, v));
                for a in 0..=n {
                    if a != v && brute_postdominates(n, &consumers, a, v) {
                        prop_assert!(brute_postdominates(n, &consumers, a, i));
                    }
                }
            }
        }
    }

    #[test]
    fn a_node_without_consumers_is_reported() {
        let consumers = [vec![2], vec![]];
        assert_eq!(
            PostDomTree::compute(2, |v| &consumers[v], &[0, 1]),
            Err(Unreachable(1))
        );
    }

    #[test]
    fn the_diamond() {
        // 0 feeds 1 and 2, both feed 3, 3 feeds τ (4)
        let consumers = [vec![1, 2], vec![3], vec![3], vec![4]];
        let tree = PostDomTree::compute(4, |v| &consumers[v], &[0, 1, 2, 3]).unwrap();
        assert_eq!(
            (0..4).map(|v| tree.ipdom(v)).collect::<Vec<_>>(),
            [Some(3), Some(3), Some(3), Some(4)]
        );
        assert_eq!(tree.children()[3], [0, 1, 2]);
        assert_eq!(tree.nearest_common(1, 2), 3);
        assert_eq!(tree.ipdom(4), None);
    }
}
