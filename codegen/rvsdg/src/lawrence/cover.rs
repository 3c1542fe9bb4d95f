//! Minimal duplication (thesis §4.2): which shared tails to keep shared when a group
//! has several of them and only one can run last (Ferrante's condition, §4.1).
//!
//! The *sharing graph* has a vertex per tail (a node demanded on exclusive paths, by
//! several groups) and an edge between two tails that are children of one group. A
//! vertex cover names the tails kept shared: in each group, a child outside the
//! cover is copied there and runs first, and one covered child is shared and runs
//! last. The static size is then the number of edges (the copies) plus the weight of
//! the cover, so a minimum-weight cover gives the smallest duplication-free PDG.
//!
//! - For two-value γ-trees (every group pairs a tail of the first result with one of
//!   the second) the graph is bipartite, and a minimum cover comes from a maximum
//!   matching by König's theorem (§4.2.1-4.2.2); weights (the tails' sizes) by
//!   blowing each vertex up into as many copies as its weight (§4.2.3), which keeps
//!   the graph bipartite. (The thesis swaps "maximal" and "maximum"; a maximum
//!   matching is meant.)
//! - Otherwise (three results or more: odd cycles) minimum cover is NP-hard; the
//!   documented heuristic takes, until every edge is covered, the vertex covering
//!   the most uncovered edges per unit of weight (the greedy set-cover rule, within a
//!   factor ln(degree) of the optimum).

/// An undirected graph on vertices `0..weights.len()`, each with a weight (≥ 1).
#[derive(Clone, Debug, Default)]
pub struct SharingGraph {
    pub weights: Vec<u32>,
    pub edges: Vec<(u32, u32)>,
}

impl SharingGraph {
    /// The two sides of the graph, if it is bipartite (`side[v]`), by breadth-first
    /// 2-colouring.
    pub fn sides(&self) -> Option<Vec<bool>> {
        let n = self.weights.len();
        let adj = self.adjacency();
        let mut side: Vec<Option<bool>> = vec![None; n];
        for start in 0..n {
            if side[start].is_some() {
                continue;
            }
            side[start] = Some(false);
            let mut queue = std::collections::VecDeque::from([start]);
            while let Some(v) = queue.pop_front() {
                let s = side[v].expect("coloured");
                for &u in &adj[v] {
                    match side[u as usize] {
                        None => {
                            side[u as usize] = Some(!s);
                            queue.push_back(u as usize);
                        }
                        Some(t) if t == s => return None,
                        Some(_) => {}
                    }
                }
            }
        }
        Some(side.into_iter().map(|s| s.unwrap_or(false)).collect())
    }

    fn adjacency(&self) -> Vec<Vec<u32>> {
        let mut adj = vec![Vec::new(); self.weights.len()];
        for &(a, b) in &self.edges {
            if a != b {
                adj[a as usize].push(b);
                adj[b as usize].push(a);
            }
        }
        adj
    }

    /// A vertex cover (`cover[v]`): of minimum weight when the graph is bipartite
    /// (König), else by the greedy heuristic. A self-loop puts its vertex in.
    pub fn cover(&self) -> Vec<bool> {
        match self.sides() {
            Some(side) => self.konig(&side),
            None => self.greedy(),
        }
    }

    /// The minimum-weight cover of a bipartite graph: König's construction on the
    /// graph with each vertex blown up into `weight` copies.
    pub fn konig(&self, side: &[bool]) -> Vec<bool> {
        // the copies: vertex v is copies first[v] .. first[v] + weight[v]
        let mut first = Vec::with_capacity(self.weights.len());
        let mut total = 0usize;
        for &w in &self.weights {
            first.push(total);
            total += w.max(1) as usize;
        }
        let copies = |v: usize| first[v]..first[v] + self.weights[v].max(1) as usize;
        let mut owner = vec![0usize; total];
        for v in 0..self.weights.len() {
            for c in copies(v) {
                owner[c] = v;
            }
        }
        let mut adj: Vec<Vec<usize>> = vec![Vec::new(); total];
        for &(a, b) in &self.edges {
            let (a, b) = (a as usize, b as usize);
            if a == b {
                continue;
            }
            for x in copies(a) {
                for y in copies(b) {
                    adj[x].push(y);
                    adj[y].push(x);
                }
            }
        }
        let left = |c: usize| !side[owner[c]];
        let mate = maximum_matching(&adj, &left);
        // S: the unmatched left copies and what alternating paths reach from them
        // (any edge left to right, matched edges right to left)
        let mut in_s = vec![false; total];
        let mut stack: Vec<usize> = (0..total)
            .filter(|&c| left(c) && mate[c].is_none())
            .collect();
        for &c in &stack {
            in_s[c] = true;
        }
        while let Some(c) = stack.pop() {
            if left(c) {
                for &d in &adj[c] {
                    if !in_s[d] {
                        in_s[d] = true;
                        stack.push(d);
                    }
                }
            } else if let Some(m) = mate[c]
                && !in_s[m]
            {
                in_s[m] = true;
                stack.push(m);
            }
        }
        // K = (S ∩ right) ∪ (left \ S); a vertex is in the cover when all its copies are
        // (in a minimum cover of the blown-up graph, a vertex's copies are all in or
        // all out, or some out and then none needed)
        let mut cover = vec![true; self.weights.len()];
        for c in 0..total {
            let in_k = if left(c) { !in_s[c] } else { in_s[c] };
            if !in_k {
                cover[owner[c]] = false;
            }
        }
        for &(a, b) in &self.edges {
            if a == b {
                cover[a as usize] = true;
            }
        }
        cover
    }

    /// The greedy cover: the vertex covering the most uncovered edges per unit of
    /// weight, until none is left.
    pub fn greedy(&self) -> Vec<bool> {
        let n = self.weights.len();
        let mut cover = vec![false; n];
        let mut left: Vec<(u32, u32)> = Vec::new();
        for &(a, b) in &self.edges {
            if a == b {
                cover[a as usize] = true;
            } else {
                left.push((a, b));
            }
        }
        loop {
            left.retain(|&(a, b)| !cover[a as usize] && !cover[b as usize]);
            if left.is_empty() {
                return cover;
            }
            let mut degree = vec![0u32; n];
            for &(a, b) in &left {
                degree[a as usize] += 1;
                degree[b as usize] += 1;
            }
            // best ratio degree / weight, compared as degree * other's weight
            let best = (0..n)
                .filter(|&v| degree[v] > 0)
                .max_by(|&x, &y| {
                    let (wx, wy) = (self.weights[x].max(1) as u64, self.weights[y].max(1) as u64);
                    (degree[x] as u64 * wy)
                        .cmp(&(degree[y] as u64 * wx))
                        .then(y.cmp(&x))
                })
                .expect("an uncovered edge");
            cover[best] = true;
        }
    }

    /// The weight of the vertices in `cover`, if it covers every edge.
    pub fn cover_weight(&self, cover: &[bool]) -> Option<u64> {
        (self.edges.iter())
            .all(|&(a, b)| cover[a as usize] || cover[b as usize])
            .then(|| {
                (0..self.weights.len())
                    .filter(|&v| cover[v])
                    .map(|v| self.weights[v] as u64)
                    .sum()
            })
    }
}

/// A maximum matching of a bipartite graph (`left` tells the sides), by augmenting
/// paths from each left vertex (Kuhn's algorithm, O(V·E)): each vertex's mate.
fn maximum_matching(adj: &[Vec<usize>], left: &impl Fn(usize) -> bool) -> Vec<Option<usize>> {
    let n = adj.len();
    let mut mate: Vec<Option<usize>> = vec![None; n];
    for start in 0..n {
        if !left(start) || mate[start].is_some() {
            continue;
        }
        // iterative depth-first search for an augmenting path
        let mut seen = vec![false; n];
        let mut parent: Vec<Option<usize>> = vec![None; n]; // right vertex -> left vertex
        let mut stack = vec![start];
        let mut free_right = None;
        'search: while let Some(l) = stack.pop() {
            for &r in &adj[l] {
                if seen[r] {
                    continue;
                }
                seen[r] = true;
                parent[r] = Some(l);
                match mate[r] {
                    None => {
                        free_right = Some(r);
                        break 'search;
                    }
                    Some(l2) => stack.push(l2),
                }
            }
        }
        // flip the path back to `start`
        let mut r = free_right;
        while let Some(rr) = r {
            let l = parent[rr].expect("reached from a left vertex");
            let next = mate[l];
            mate[rr] = Some(l);
            mate[l] = Some(rr);
            r = if l == start { None } else { next };
        }
    }
    mate
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The minimum weight of a cover, by trying every subset.
    fn exhaustive(g: &SharingGraph) -> u64 {
        let n = g.weights.len();
        (0u32..1 << n)
            .filter_map(|set| {
                let cover: Vec<bool> = (0..n).map(|v| set & (1 << v) != 0).collect();
                g.cover_weight(&cover)
            })
            .min()
            .expect("the full set covers")
    }

    fn bipartite() -> impl Strategy<Value = SharingGraph> {
        (1usize..6, 1usize..6).prop_flat_map(|(a, b)| {
            (
                proptest::collection::vec(1u32..4, a + b),
                proptest::collection::vec((0..a as u32, 0..b as u32), 0..12),
            )
                .prop_map(move |(weights, pairs)| SharingGraph {
                    weights,
                    edges: pairs.into_iter().map(|(x, y)| (x, a as u32 + y)).collect(),
                })
        })
    }

    fn any_graph() -> impl Strategy<Value = SharingGraph> {
        (1usize..9).prop_flat_map(|n| {
            (
                proptest::collection::vec(1u32..4, n),
                proptest::collection::vec((0..n as u32, 0..n as u32), 0..14),
            )
                .prop_map(|(weights, edges)| SharingGraph { weights, edges })
        })
    }

    proptest! {
        /// König's cover (weighted, by blowing up) equals exhaustive search on small
        /// two-value γ-trees' sharing graphs.
        #[test]
        fn konig_is_minimum_on_bipartite_graphs(g in bipartite()) {
            let side = g.sides().expect("bipartite by construction");
            let cover = g.konig(&side);
            let w = g.cover_weight(&cover).expect("a cover");
            prop_assert_eq!(w, exhaustive(&g));
            prop_assert_eq!(g.cover(), cover);
        }

        /// The heuristic always covers, and is optimal where the graph is bipartite
        /// (`cover` takes König's there).
        #[test]
        fn every_graph_gets_a_cover(g in any_graph()) {
            let cover = g.cover();
            let w = g.cover_weight(&cover).expect("a cover");
            prop_assert!(w >= exhaustive(&g));
            prop_assert!(g.cover_weight(&g.greedy()).is_some());
        }
    }

    /// Fig. 4.6's shape: leaves A1, A2 (first result) and B1, B2 (second), groups
    /// pairing (A1,B1), (A1,B2), (A2,B2): a minimum cover has two vertices.
    #[test]
    fn a_path_of_three_groups_needs_two_shared_leaves() {
        let g = SharingGraph {
            weights: vec![1; 4],
            edges: vec![(0, 2), (0, 3), (1, 3)],
        };
        let cover = g.cover();
        assert_eq!(g.cover_weight(&cover), Some(2), "{cover:?}");
        // with A2 heavier, {A1, B2} is the one minimum
        let g = SharingGraph {
            weights: vec![1, 3, 1, 1],
            ..g
        };
        assert_eq!(g.cover(), [true, false, false, true]);
    }

    #[test]
    fn a_triangle_is_not_bipartite_and_the_heuristic_covers_it() {
        let g = SharingGraph {
            weights: vec![1, 1, 5],
            edges: vec![(0, 1), (1, 2), (0, 2)],
        };
        assert!(g.sides().is_none());
        assert_eq!(g.cover_weight(&g.cover()), Some(2), "the two light ones");
    }
}
