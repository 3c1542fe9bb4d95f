//! Exact modulo scheduling of small loops: a depth-first search over the cycles of
//! each operation, for an interval at which iterative modulo scheduling (`ims`) ran
//! out of budget.
//!
//! Iterative modulo scheduling places operations by height and evicts on conflict;
//! when the interval leaves no free slot (the reservation table exactly full, as in
//! a 15-operation body at II 4 on a 4-wide machine) and a recurrence is tight, its
//! evictions can chase each other around the recurrence until the budget is spent,
//! although a schedule exists. For a body of at most [`MAX_OPS`] operations the
//! search below decides the question instead, within [`MAX_PLACEMENTS`] tries:
//!
//! - operations are placed in body order, which every edge of distance 0 follows,
//!   so each operation's predecessors within the iteration are placed before it;
//! - an operation's cycles run from its earliest start (its placed predecessors,
//!   across iterations too) to its latest (the operations placed before it that
//!   depend on it across iterations), within the schedule's horizon (at most
//!   [`MAX_STAGES`] stages) and its own window (the continuation compare in its
//!   stage, what must know that its iteration exists no earlier than that stage);
//! - a cycle is tried when its slot of the reservation table still forms a legal
//!   bundle (the same table and test as `ims`);
//! - earlier cycles first: they leave the later operations the most room;
//! - every placement narrows the cycles left to the operations not yet placed, by
//!   the longest paths between operations (all pairs, latencies less II per
//!   iteration of distance, closed over the whole graph): a placement that leaves
//!   one of them no cycle is abandoned at once, instead of after trying every
//!   placement of the operations between (a recurrence's first operation placed too
//!   early for a load that feeds its middle is seen at that operation, not at the
//!   recurrence's last).
//!
//! - a complete placement is taken only when `accept` says the kernel's own
//!   operations still fit beside it (the stage predicates' `por`s of a schedule with
//!   more than two stages, the rotation copies of the rotating kernel): a table the
//!   body fills exactly leaves them no slot, and the kernel would run a cycle longer
//!   than the interval; the search goes on to a placement with fewer stages or free
//!   slots, up to [`MAX_REFUSALS`] refusals.
//!
//! The result is a schedule by the same rules as `ims`'s, or `None` when there is
//! none within the horizon or the tries run out (the caller then tries II + 1).

use super::graph::LoopGraph;
use super::ims::Reservations;
use vliw_isa::MachineConfig;

/// Bodies up to this many operations are searched.
pub const MAX_OPS: usize = 32;
/// Placements tried before the search gives up.
pub const MAX_PLACEMENTS: usize = 200_000;
/// Stages of the schedules searched.
pub const MAX_STAGES: i64 = 4;
/// Complete placements `accept` may refuse before the search gives up (each costs
/// the caller's test of the whole schedule).
pub const MAX_REFUSALS: usize = 4096;

/// A schedule at interval `ii` with every operation in its window (`window(op)`:
/// the first and last cycle it may take), or `None`.
pub(super) fn schedule(
    g: &LoopGraph,
    ii: i64,
    config: &MachineConfig,
    window: &dyn Fn(usize) -> (i64, i64),
    accept: &dyn Fn(&[i64], &Reservations) -> bool,
) -> Option<(Vec<i64>, Reservations)> {
    let n = g.ops.len();
    // body order must follow every edge within an iteration, and no operation's
    // recurrence through itself may need more than the interval
    let backward = |e: &super::graph::LoopEdge| e.distance == 0 && e.from > e.to;
    let self_too_long = |e: &super::graph::LoopEdge| e.from == e.to && e.latency > ii * e.distance;
    if n > MAX_OPS || g.edges.iter().any(|e| backward(e) || self_too_long(e)) {
        return None;
    }
    let Some(longest) = longest_paths(g, ii) else {
        return None; // a recurrence longer than the interval
    };
    let horizon = MAX_STAGES * ii - 1;
    // each operation's cycles before any placement: its window, and the windows'
    // first cycles through the longest paths into it
    let first: Vec<i64> = (0..n).map(|op| window(op).0.max(0)).collect();
    let latest: Vec<i64> = (0..n).map(|op| window(op).1.min(horizon)).collect();
    let earliest: Vec<i64> = (0..n)
        .map(|x| {
            (0..n)
                .filter_map(|y| longest[y][x].map(|d| first[y] + d))
                .fold(first[x], i64::max)
        })
        .collect();
    let mut search = Search {
        g,
        ii,
        accept,
        longest,
        bounds: vec![(earliest, latest)],
        time: vec![None; n],
        mrt: Reservations::new(g, ii, config),
        tries: 0,
        refusals: 0,
    };
    if search.place(0) {
        let times = search.time.iter().map(|t| t.expect("placed")).collect();
        Some((times, search.mrt))
    } else {
        None
    }
}

/// The longest path from each operation to each other (`None`: no path), each edge
/// counting its latency less `ii` per iteration of its distance; `None` when a cycle
/// is positive (a recurrence needs more than `ii`). Edges of an operation to itself
/// are left to the caller's check.
fn longest_paths(g: &LoopGraph, ii: i64) -> Option<Vec<Vec<Option<i64>>>> {
    let n = g.ops.len();
    let mut d: Vec<Vec<Option<i64>>> = vec![vec![None; n]; n];
    for e in &g.edges {
        if e.from == e.to {
            continue;
        }
        let w = e.latency - ii * e.distance;
        let cell = &mut d[e.from][e.to];
        *cell = Some(cell.map_or(w, |c| c.max(w)));
    }
    for k in 0..n {
        for i in 0..n {
            let Some(ik) = d[i][k] else { continue };
            for j in 0..n {
                if let Some(kj) = d[k][j]
                    && d[i][j].is_none_or(|ij| ik + kj > ij)
                {
                    d[i][j] = Some(ik + kj);
                }
            }
        }
    }
    if (0..n).any(|i| d[i][i].is_some_and(|c| c > 0)) {
        return None;
    }
    Some(d)
}

struct Search<'a> {
    g: &'a LoopGraph,
    ii: i64,
    accept: &'a dyn Fn(&[i64], &Reservations) -> bool,
    longest: Vec<Vec<Option<i64>>>,
    /// The first and last cycle each operation may still take, one entry per
    /// placement made (the last is the current one).
    bounds: Vec<(Vec<i64>, Vec<i64>)>,
    time: Vec<Option<i64>>,
    mrt: Reservations,
    tries: usize,
    refusals: usize,
}

impl Search<'_> {
    /// Places operations `op..` after those before them; true when all are placed.
    fn place(&mut self, op: usize) -> bool {
        if op == self.time.len() {
            let times: Vec<i64> = self.time.iter().map(|t| t.expect("placed")).collect();
            if (self.accept)(&times, &self.mrt) {
                return true;
            }
            self.refusals += 1;
            if self.refusals >= MAX_REFUSALS {
                self.tries = MAX_PLACEMENTS; // give up
            }
            return false;
        }
        let (earliest, latest) = {
            let (first, last) = self.bounds.last().expect("the bounds before any placement");
            (first[op], last[op])
        };
        debug_assert!(self.consistent_with_placed(op, earliest, latest));
        for t in earliest..=latest {
            if self.tries >= MAX_PLACEMENTS {
                return false;
            }
            self.tries += 1;
            let slot = (t % self.ii) as usize;
            if !self.mrt.fits(slot, op) {
                continue;
            }
            let Some(narrowed) = self.narrowed(op, t) else {
                continue;
            };
            self.mrt.take(slot, op);
            self.time[op] = Some(t);
            self.bounds.push(narrowed);
            if self.place(op + 1) {
                return true;
            }
            self.bounds.pop();
            self.time[op] = None;
            self.mrt.release(slot, op);
        }
        false
    }

    /// The bounds of the operations after `op` once it takes cycle `t`, or `None` when
    /// that leaves one of them no cycle.
    fn narrowed(&self, op: usize, t: i64) -> Option<(Vec<i64>, Vec<i64>)> {
        let (mut first, mut last) = self.bounds.last().expect("bounds").clone();
        for x in op + 1..self.time.len() {
            if let Some(d) = self.longest[op][x] {
                first[x] = first[x].max(t + d);
            }
            if let Some(d) = self.longest[x][op] {
                last[x] = last[x].min(t - d);
            }
            if first[x] > last[x] {
                return None;
            }
        }
        Some((first, last))
    }

    /// The bounds of `op` are those its placed neighbours give (what the search did
    /// before it kept the bounds).
    fn consistent_with_placed(&self, op: usize, earliest: i64, latest: i64) -> bool {
        self.g.preds[op].iter().all(|&k| {
            let e = self.g.edges[k];
            e.from == op
                || self.time[e.from]
                    .is_none_or(|t| earliest >= t + e.latency - self.ii * e.distance)
        }) && self.g.succs[op].iter().all(|&k| {
            let e = self.g.edges[k];
            e.to == op
                || self.time[e.to].is_none_or(|t| latest <= t - e.latency + self.ii * e.distance)
        })
    }
}
