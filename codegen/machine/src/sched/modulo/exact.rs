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
//! - earlier cycles first: they leave the later operations the most room.
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
    let mut search = Search {
        g,
        ii,
        window,
        accept,
        horizon: MAX_STAGES * ii - 1,
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

struct Search<'a> {
    g: &'a LoopGraph,
    ii: i64,
    window: &'a dyn Fn(usize) -> (i64, i64),
    accept: &'a dyn Fn(&[i64], &Reservations) -> bool,
    horizon: i64,
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
        let (from, to) = (self.window)(op);
        let (mut earliest, mut latest) = (from.max(0), to.min(self.horizon));
        for &k in &self.g.preds[op] {
            let e = self.g.edges[k];
            if let Some(t) = self.time[e.from]
                && e.from != op
            {
                earliest = earliest.max(t + e.latency - self.ii * e.distance);
            }
        }
        for &k in &self.g.succs[op] {
            let e = self.g.edges[k];
            if let Some(t) = self.time[e.to]
                && e.to != op
            {
                latest = latest.min(t - e.latency + self.ii * e.distance);
            }
        }
        for t in earliest..=latest {
            if self.tries >= MAX_PLACEMENTS {
                return false;
            }
            self.tries += 1;
            let slot = (t % self.ii) as usize;
            if !self.mrt.fits(slot, op) {
                continue;
            }
            self.mrt.take(slot, op);
            self.time[op] = Some(t);
            if self.place(op + 1) {
                return true;
            }
            self.time[op] = None;
            self.mrt.release(slot, op);
        }
        false
    }
}
