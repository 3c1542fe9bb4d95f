//! Sequentializing a parallel copy with the fewest copies (thesis §5.2.4, Alg 13, with
//! the correction of the reading guide).
//!
//! A parallel copy `(b_i ← a_i)` reads every source before writing any destination.
//! Its copy graph is a *windmill*: every destination has one incoming copy, so each
//! connected part is one circuit (possibly empty) with trees hanging off it. The
//! algorithm emits tree copies leaves first; after the copy `b ← a`, `a`'s value also
//! lives in `b`, and later readers of `a` read it there ([`loc`]), which frees `a` for
//! its own incoming copy at once. A circuit that no tree edge leaves is broken with one
//! copy into the temporary. So the number of copies is exactly
//! `|P| + (number of circuits without a tree edge)`, self-copies not counted.
//!
//! The printed Alg 13 pushes pure sources (registers that are no destination) onto the
//! ready list; the guide's correction is the test that the freed register is itself a
//! pending destination (`pred(a) ≠ ⊥`) *and* still holds its own value (`loc(a) = a`).

use std::collections::HashMap;
use std::hash::Hash;

/// Why a parallel copy cannot be sequentialized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParallelCopyError<R> {
    /// Two copies write the same destination from sources with different values.
    ConflictingDestination { dst: R, sources: (R, R) },
}

/// Orders the parallel copy `copies` (`(dst, src)` pairs) into sequential copies
/// `(dst, src)` with the same effect, using `temp` (a register no copy mentions) for
/// circuits. Self-copies are dropped. Two copies to one destination are allowed only
/// when `same_value` says their sources hold the same value (one of them is kept).
pub fn sequentialize<R: Copy + Eq + Hash>(
    copies: &[(R, R)],
    temp: R,
    same_value: impl Fn(R, R) -> bool,
) -> Result<Vec<(R, R)>, ParallelCopyError<R>> {
    // pred[b]: the source of the copy into b (b a pending destination).
    let mut pred: HashMap<R, R> = HashMap::with_capacity(copies.len());
    let mut order: Vec<R> = Vec::with_capacity(copies.len());
    for &(dst, src) in copies {
        if let Some(&other) = pred.get(&dst) {
            if other != src && !same_value(other, src) {
                return Err(ParallelCopyError::ConflictingDestination {
                    dst,
                    sources: (other, src),
                });
            }
            continue;
        }
        pred.insert(dst, src);
        order.push(dst);
    }
    // A self-copy is no copy, but a register copied to itself keeps its value: it is
    // not a pending destination.
    order.retain(|d| pred[d] != *d);
    pred.retain(|d, s| d != s);

    // loc[a]: where a's original value is now. Only sources have an entry.
    let mut loc: HashMap<R, R> = HashMap::with_capacity(pred.len());
    for &src in pred.values() {
        loc.insert(src, src);
    }
    let mut ready: Vec<R> = order
        .iter()
        .copied()
        .filter(|b| !loc.contains_key(b))
        .collect();
    let mut to_do: Vec<R> = order.clone();
    let mut out = Vec::with_capacity(pred.len() + 1);
    let mut done: HashMap<R, ()> = HashMap::with_capacity(pred.len());
    loop {
        while let Some(b) = ready.pop() {
            let a = pred[&b];
            let c = loc[&a];
            out.push((b, c));
            done.insert(b, ());
            loc.insert(a, b);
            // `a` held its own value, which now lives in b too: if a is itself waiting
            // for its copy, it can be overwritten now.
            if a == c && pred.contains_key(&a) && !done.contains_key(&a) {
                ready.push(a);
            }
        }
        // Only circuits without a tree edge are left (if anything).
        let Some(b) = to_do.pop() else {
            break;
        };
        if done.contains_key(&b) {
            continue;
        }
        // b is on a circuit and still holds its own value: save it, then b is free.
        debug_assert!(loc.get(&b) == Some(&b));
        out.push((temp, b));
        loc.insert(b, temp);
        ready.push(b);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs sequential copies on registers 0..n (plus the temporary `n`), each
    /// starting with its own number as value.
    fn run(n: usize, seq: &[(usize, usize)]) -> Vec<usize> {
        let mut regs: Vec<usize> = (0..=n).collect();
        for &(d, s) in seq {
            regs[d] = regs[s];
        }
        regs.truncate(n);
        regs
    }

    /// The number of circuits of the copy graph that no tree edge leaves.
    fn circuits_without_tree_edge(n: usize, copies: &[(usize, usize)]) -> usize {
        let mut src: Vec<Option<usize>> = vec![None; n];
        for &(d, s) in copies {
            if d != s {
                src[d] = Some(s);
            }
        }
        let mut count = 0;
        let mut seen = vec![false; n];
        for start in 0..n {
            // Walk d -> src(d); a circuit is found when the walk returns to start.
            let mut members = vec![start];
            let mut r = start;
            let on_circuit = loop {
                match src[r] {
                    None => break false,
                    Some(s) if s == start => break true,
                    Some(s) => {
                        if members.contains(&s) {
                            break false;
                        }
                        members.push(s);
                        r = s;
                    }
                }
            };
            if !on_circuit || members.iter().any(|&m| seen[m]) {
                continue;
            }
            for &m in &members {
                seen[m] = true;
            }
            // A tree edge: a copy reading a circuit member into a non-member.
            let has_tree_edge = copies
                .iter()
                .any(|&(d, s)| d != s && members.contains(&s) && !members.contains(&d));
            if !has_tree_edge {
                count += 1;
            }
        }
        count
    }

    #[test]
    fn every_parallel_copy_over_five_registers() {
        // Each register is either no destination or copied from one of the five.
        const N: usize = 5;
        let mut cases = 0;
        for code in 0..6usize.pow(N as u32) {
            let mut copies = Vec::new();
            let mut c = code;
            for d in 0..N {
                let choice = c % 6;
                c /= 6;
                if choice < N {
                    copies.push((d, choice));
                }
            }
            let seq = sequentialize(&copies, N, |_, _| false).unwrap();
            let mut expected: Vec<usize> = (0..N).collect();
            for &(d, s) in &copies {
                expected[d] = s;
            }
            assert_eq!(run(N, &seq), expected, "{copies:?} -> {seq:?}");
            let real = copies.iter().filter(|(d, s)| d != s).count();
            assert_eq!(
                seq.len(),
                real + circuits_without_tree_edge(N, &copies),
                "not minimal: {copies:?} -> {seq:?}"
            );
            assert!(seq.iter().all(|(d, s)| d != s));
            cases += 1;
        }
        assert_eq!(cases, 7776);
    }

    #[test]
    fn a_swap_takes_three_copies_and_a_tree_edge_saves_the_temporary() {
        let swap = sequentialize(&[(0, 1), (1, 0)], 2, |_, _| false).unwrap();
        assert_eq!(swap.len(), 3);
        assert_eq!(run(2, &swap), vec![1, 0]);
        // The guide's example (a↦b, b↦c, c↦a, c↦d): 4 copies, no temporary.
        let (a, b, c, d) = (0, 1, 2, 3);
        let seq = sequentialize(&[(b, a), (c, b), (a, c), (d, c)], 9, |_, _| false).unwrap();
        assert_eq!(seq, vec![(d, c), (c, b), (b, a), (a, d)]);
    }

    #[test]
    fn duplicate_destinations_need_the_same_value() {
        let same = sequentialize(&[(0, 1), (0, 2)], 9, |x, y| (x, y) == (1, 2)).unwrap();
        assert_eq!(same, vec![(0, 1)]);
        assert_eq!(
            sequentialize(&[(0, 1), (0, 2)], 9, |_, _| false),
            Err(ParallelCopyError::ConflictingDestination {
                dst: 0,
                sources: (1, 2)
            })
        );
        assert_eq!(sequentialize(&[(3, 3)], 9, |_, _| false).unwrap(), vec![]);
    }
}
