//! Sequentializing a parallel copy with the fewest copies (thesis §5.2.4, Alg 13, with
//! the correction of the reading guide).
//!
//! A parallel copy `(b_i ← a_i)` reads every source before writing any destination.
//! Its copy graph is a *windmill*: every destination has one incoming copy, so each
//! connected part is one circuit (possibly empty) with trees hanging off it. The
//! algorithm emits tree copies leaves first; after the copy `b ← a`, `a`'s value also
//! lives in `b`, which frees `a` for its own incoming copy, and readers of `a` after
//! that read it in `b` ([`loc`]). Copies still reading `a` where it is are emitted
//! before `a` is overwritten, and a register that is never overwritten is always
//! read where it is: the copies out of one source are independent of each other (a
//! VLIW bundle may hold them all), not a chain through their destinations. A circuit that no tree edge leaves is broken with one
//! copy into the temporary. So the number of copies is exactly
//! `|P| + (number of circuits without a tree edge)`, self-copies not counted.
//!
//! The printed Alg 13 pushes pure sources (registers that are no destination) onto the
//! ready list; the guide's correction is the test that the freed register is itself a
//! pending destination (`pred(a) ≠ ⊥`) *and* still holds its own value (`loc(a) = a`).
//!
//! This is the compiler's one sequentializer of parallel copies, generic over the
//! register type: the machine back end's SSA allocator sequentializes block arguments
//! between colours with it (a physical temporary per class), SSA destruction
//! (`boissinot`, `virtual`, `sreedhar3`) its renamed parallel copies and the `copies`
//! method its block arguments (fresh virtual registers as temporaries).

use rustc_hash::FxHashMap as HashMap;
use std::hash::Hash;

/// Why a parallel copy cannot be sequentialized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParallelCopyError<R> {
    /// Two copies write the same destination from sources with different values.
    ConflictingDestination { dst: R, sources: (R, R) },
}

/// Orders the parallel copy `copies` (`(dst, src)` pairs) into sequential copies
/// `(dst, src)` with the same effect and the fewest copies. Self-copies are dropped.
/// Two copies to one destination are allowed only when `same_value` says their sources
/// hold the same value (one of them is kept).
///
/// `temp(r)` is called once per circuit that no tree edge leaves, when the algorithm
/// breaks it by saving `r` (a register of the circuit): it gives a location that can
/// hold `r`'s value and that no copy mentions. It may give the same location every
/// time: a circuit is finished, and its temporary read, before the next one is
/// broken. A caller with several register classes gives one of `r`'s class; a caller
/// with a fixed scratch register returns it; one that makes registers can make one on
/// the first call and cache it. Not called when no circuit needs it.
pub fn sequentialize<R: Copy + Eq + Hash>(
    copies: &[(R, R)],
    mut temp: impl FnMut(R) -> R,
    same_value: impl Fn(R, R) -> bool,
) -> Result<Vec<(R, R)>, ParallelCopyError<R>> {
    // pred[b]: the source of the copy into b (b a pending destination).
    let mut pred: HashMap<R, R> =
        HashMap::with_capacity_and_hasher(copies.len(), Default::default());
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
    let mut loc: HashMap<R, R> = HashMap::with_capacity_and_hasher(pred.len(), Default::default());
    for &src in pred.values() {
        loc.insert(src, src);
    }
    // saved[a]: the first destination a copy of a's original value went to, where
    // readers of a find it once a itself is overwritten. Until then they read a:
    // every copy out of a register that is never overwritten reads it, and the
    // copies out of one source do not wait for each other (a bundle may hold them).
    let mut saved: HashMap<R, R> =
        HashMap::with_capacity_and_hasher(pred.len(), Default::default());
    // A double-ended list: copies into registers no copy reads are taken from the
    // back; a source freed by saving its value goes to the front, so that the copies
    // still reading it from where it is come first.
    let mut ready: std::collections::VecDeque<R> = order
        .iter()
        .copied()
        .filter(|b| !loc.contains_key(b))
        .collect();
    let mut to_do: Vec<R> = order.clone();
    let mut out = Vec::with_capacity(pred.len() + 1);
    let mut done: HashMap<R, ()> =
        HashMap::with_capacity_and_hasher(pred.len(), Default::default());
    loop {
        while let Some(b) = ready.pop_back() {
            // b is overwritten now: its own value (if something still reads it) is
            // found where it was saved
            if let Some(&s) = saved.get(&b)
                && loc.get(&b) == Some(&b)
            {
                loc.insert(b, s);
            }
            let a = pred[&b];
            let c = loc[&a];
            out.push((b, c));
            done.insert(b, ());
            if c == a {
                saved.entry(a).or_insert(b);
                // `a` held its own value, which now lives in b too: if a is itself
                // waiting for its copy, it can be overwritten now.
                if pred.contains_key(&a) && !done.contains_key(&a) && !ready.contains(&a) {
                    ready.push_front(a);
                }
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
        let t = temp(b);
        out.push((t, b));
        saved.insert(b, t);
        ready.push_back(b);
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
            let seq = sequentialize(&copies, |_| N, |_, _| false).unwrap();
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
            // a source that is never overwritten is read where it is, by every copy
            // out of it: no copy waits for another's destination
            for &(d, s) in &copies {
                if d != s && !copies.iter().any(|&(d2, s2)| d2 == s && s2 != s) {
                    assert!(seq.contains(&(d, s)), "{copies:?} -> {seq:?}");
                }
            }
            cases += 1;
        }
        assert_eq!(cases, 7776);
    }

    #[test]
    fn a_swap_takes_three_copies_and_a_tree_edge_saves_the_temporary() {
        let swap = sequentialize(&[(0, 1), (1, 0)], |_| 2, |_, _| false).unwrap();
        assert_eq!(swap.len(), 3);
        assert_eq!(run(2, &swap), vec![1, 0]);
        // The guide's example (a↦b, b↦c, c↦a, c↦d): 4 copies, no temporary.
        let (a, b, c, d) = (0, 1, 2, 3);
        let seq = sequentialize(&[(b, a), (c, b), (a, c), (d, c)], |_| 9, |_, _| false).unwrap();
        assert_eq!(seq, vec![(d, c), (c, b), (b, a), (a, d)]);
    }

    /// One source to several destinations, and a source that is overwritten after
    /// its readers: each copy reads the source itself (the SSA allocator's block
    /// arguments `(r0, r0, r0)` were a chain `r14 = r0; r13 = r14; r12 = r13`).
    #[test]
    fn copies_out_of_one_source_are_independent() {
        let seq = sequentialize(&[(1, 0), (2, 0), (3, 0)], |_| 9, |_, _| false).unwrap();
        assert!(seq.iter().all(|&(_, s)| s == 0), "{seq:?}");
        let seq = sequentialize(&[(1, 0), (2, 0), (0, 3)], |_| 9, |_, _| false).unwrap();
        assert_eq!(run(4, &seq), vec![3, 0, 0, 3]);
        assert_eq!(seq.len(), 3);
        assert!(seq[..2].iter().all(|&(_, s)| s == 0), "{seq:?}");
    }

    #[test]
    fn duplicate_destinations_need_the_same_value() {
        let same = sequentialize(&[(0, 1), (0, 2)], |_| 9, |x, y| (x, y) == (1, 2)).unwrap();
        assert_eq!(same, vec![(0, 1)]);
        assert_eq!(
            sequentialize(&[(0, 1), (0, 2)], |_| 9, |_, _| false),
            Err(ParallelCopyError::ConflictingDestination {
                dst: 0,
                sources: (1, 2)
            })
        );
        assert_eq!(
            sequentialize(&[(3, 3)], |_| 9, |_, _| false).unwrap(),
            vec![]
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Random parallel copies over up to 12 registers of two classes (even and odd
        /// numbers, one temporary each, cached as a caller that makes registers
        /// would), with duplicate destinations of one value: the sequential copies
        /// have the parallel semantics and exactly `n` copies plus one per circuit
        /// without a tree edge, and the temporary is asked for once per such circuit.
        #[test]
        fn random_parallel_copies_are_minimal_and_correct(
            n in 1usize..12,
            raw in proptest::collection::vec((0usize..12, 0usize..12), 0..16),
        ) {
            // one class per parity: a copy stays in its class
            let mut copies: Vec<(usize, usize)> = Vec::new();
            for (d, s) in raw {
                let (d, s) = (d % n, s % n);
                let s = if (d + s) % 2 == 0 { s } else { (s + 1) % n };
                if (d + s) % 2 != 0 {
                    continue; // n == 1 with an odd source
                }
                copies.push((d, s));
            }
            let first_src = |d: usize| copies.iter().find(|c| c.0 == d).map(|c| c.1);
            // the temporaries: n and n + 1, one of each parity
            let mut asked = 0;
            let seq = sequentialize(
                &copies,
                |r| {
                    asked += 1;
                    n + (r + n) % 2
                },
                // a duplicate destination reads the same value only when it repeats
                // the first copy's source
                |x, y| x == y,
            );
            let distinct_ok = copies.iter().all(|&(d, s)| first_src(d) == Some(s));
            let seq = match seq {
                Ok(seq) => seq,
                Err(ParallelCopyError::ConflictingDestination { .. }) => {
                    proptest::prop_assert!(!distinct_ok);
                    return Ok(());
                }
            };
            proptest::prop_assert!(distinct_ok);
            let mut regs: Vec<usize> = (0..n + 2).collect();
            for &(d, s) in &seq {
                proptest::prop_assert_eq!(d % 2, s % 2, "within a class");
                regs[d] = regs[s];
            }
            let mut unique: Vec<(usize, usize)> = Vec::new();
            for &(d, s) in &copies {
                if !unique.iter().any(|u| u.0 == d) {
                    unique.push((d, s));
                }
            }
            for (r, &value) in regs.iter().enumerate().take(n) {
                let expected = unique.iter().find(|u| u.0 == r).map_or(r, |u| u.1);
                proptest::prop_assert_eq!(value, expected, "{:?} -> {:?}", copies, seq);
            }
            let real = unique.iter().filter(|(d, s)| d != s).count();
            let circuits = circuits_without_tree_edge(n, &unique);
            proptest::prop_assert_eq!(seq.len(), real + circuits, "{:?} -> {:?}", copies, seq);
            proptest::prop_assert_eq!(asked, circuits);
        }
    }
}
