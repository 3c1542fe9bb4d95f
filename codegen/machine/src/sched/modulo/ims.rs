//! Iterative modulo scheduling (Rau, "Iterative Modulo Scheduling", MICRO-27, 1994):
//! for a given initiation interval II, operations are placed in order of height (the
//! longest latency path to anything that depends on them, distances counting −II
//! each), each at the first cycle from its earliest start (its placed predecessors'
//! constraints) whose slot `cycle mod II` of the modulo reservation table still
//! forms a legal bundle (what `check_bundle` counts, kept per slot: syllables against
//! the width, operations per unit kind; the last slot holds the loop's branch), the
//! one among those whose values need the fewest copies across trips. When none of
//! the II candidate cycles has room, the operation is placed anyway, at its earliest start or one cycle after where it was last, and
//! what conflicts with it leaves the table: the operations of that slot that no
//! longer fit, and the successors whose dependences it now violates. A budget of
//! placements bounds the search; when it runs out, a small body is searched
//! exhaustively (`exact`), and otherwise (or when that finds nothing) the caller
//! tries II + 1. With `exact`, a complete schedule the caller's `accept` refuses (the
//! kernel's own operations would not fit beside it) is searched for exhaustively too;
//! when that finds none, the heuristic's schedule stands.
//!
//! Once every operation is placed, a local search cuts the copies the schedule's
//! values need across trips (`fewer_copies`): an operation moves to a cycle where
//! they need fewer, making room by moving one other operation of that slot. The
//! placement above only weighs the copies among the cycles with room when the
//! operation is placed; an operation placed earlier may hold the one cycle that
//! needs none.

use vliw_isa::{MachineConfig, Unit};

use super::graph::{LoopGraph, branch_inst, unit_slot};

/// The cycle of each operation of one iteration (from 0), for interval `ii`, or
/// `None` when the budget ran out (and, with `exact`, the exhaustive search of a small
/// body found nothing either). `first` (the continuation compare) must land in
/// stage `cmp_stage`: only its cycles from `cmp_stage * ii` to below `(cmp_stage + 1)
/// * ii` are candidates; the operations `late` marks (stores, stage `sel`s: what
/// needs to know that its iteration exists) start no earlier than that stage.
pub fn schedule(
    g: &LoopGraph,
    ii: i64,
    config: &MachineConfig,
    first: usize,
    cmp_stage: i64,
    late: &[bool],
    exact: bool,
    accept: &dyn Fn(&[i64], &Reservations) -> bool,
) -> Option<Vec<i64>> {
    let (lo, hi) = (cmp_stage * ii, (cmp_stage + 1) * ii);
    let n = g.ops.len();
    let height = g.heights(ii);
    let slots = ii as usize;
    let mut time: Vec<Option<i64>> = vec![None; n];
    let mut last: Vec<Option<i64>> = vec![None; n];
    let mut mrt = Reservations::new(g, ii, config);
    let mut budget = 6 * n + 32;
    // the cycles an operation may take (`latest`: the schedule's last)
    let range = |op: usize, latest: i64| -> (i64, i64) {
        if op == first {
            (lo, hi - 1)
        } else if late[op] {
            (lo, latest)
        } else {
            (0, latest)
        }
    };
    loop {
        let next = (0..n)
            .filter(|&i| time[i].is_none())
            .max_by_key(|&i| (height[i], std::cmp::Reverse(i)));
        let Some(op) = next else { break };
        if budget == 0 {
            if !exact {
                return None;
            }
            // the heuristic gave up: a small body is searched exhaustively
            let (mut times, mut mrt) =
                super::exact::schedule(g, ii, config, &|op| range(op, i64::MAX), accept)?;
            fewer_copies(g, ii, &mut mrt, &mut times, &range);
            return Some(times);
        }
        budget -= 1;
        let mut estart = if late[op] || op == first { lo } else { 0 };
        for &k in &g.preds[op] {
            let e = g.edges[k];
            if let Some(t) = time[e.from]
                && e.from != op
            {
                estart = estart.max(t + e.latency - ii * e.distance);
            }
        }
        // among the cycles with room, the one whose values need the fewest copies
        // across trips (`copies`), then the earliest
        let window = if op == first {
            estart..hi.min(estart + ii)
        } else {
            estart..estart + ii
        };
        let mut free: Option<(i64, i64)> = None;
        for t in window {
            if !mrt.fits((t % ii) as usize, op) {
                continue;
            }
            let c = copies(g, &time, ii, op, t);
            if free.is_none_or(|(best, _)| c < best) {
                free = Some((c, t));
            }
            if c == 0 {
                break; // the earliest without copies
            }
        }
        let free = free.map(|(_, t)| t);
        let t = match (free, last[op]) {
            (Some(t), _) => t,
            (None, Some(prev)) if prev >= estart && (op != first || prev + 1 < hi) => prev + 1,
            (None, _) => estart,
        };
        let slot = (t % ii) as usize;
        // resource conflicts: the lowest operations of the slot leave until it fits
        while !mrt.fits(slot, op) {
            let Some(&victim) = mrt.table[slot]
                .iter()
                .min_by_key(|&&o| (height[o], std::cmp::Reverse(o)))
            else {
                break;
            };
            mrt.release(slot, victim);
            time[victim] = None;
        }
        time[op] = Some(t);
        last[op] = Some(t);
        mrt.take(slot, op);
        // dependence conflicts: successors placed too early leave
        for &k in &g.succs[op] {
            let e = g.edges[k];
            if e.to == op {
                continue;
            }
            if let Some(ts) = time[e.to]
                && ts < t + e.latency - ii * e.distance
            {
                mrt.release((ts % ii) as usize, e.to);
                time[e.to] = None;
            }
        }
    }
    let mut times: Vec<i64> = time
        .into_iter()
        .map(|t| t.expect("every operation placed"))
        .collect();
    fewer_copies(g, ii, &mut mrt, &mut times, &range);
    debug_assert_eq!(slots, mrt.table.len());
    if exact
        && !accept(&times, &mrt)
        && let Some((mut better, mut better_mrt)) =
            super::exact::schedule(g, ii, config, &|op| range(op, i64::MAX), accept)
    {
        fewer_copies(g, ii, &mut better_mrt, &mut better, &range);
        return Some(better);
    }
    Some(times)
}

/// The modulo reservation table: per slot (`cycle mod II`) the operations placed
/// there, the syllables and the operations per unit kind in use (what
/// `check_bundle` counts), the last slot holding the loop's branch.
pub struct Reservations {
    table: Vec<Vec<usize>>,
    syllables: Vec<usize>,
    used: Vec<u32>,
    capacity: Vec<u32>,
    width: usize,
    /// Per operation: syllables, unit kind, and whether it is a `limm` extension
    /// (which takes a syllable but no unit).
    cost: Vec<(usize, usize, bool)>,
}

impl Reservations {
    pub(super) fn new(g: &LoopGraph, ii: i64, config: &MachineConfig) -> Reservations {
        let slots = ii as usize;
        let units = Unit::ALL.len();
        let mut r = Reservations {
            table: vec![Vec::new(); slots],
            syllables: vec![0; slots],
            used: vec![0; slots * units],
            capacity: Unit::ALL.iter().map(|&u| config.unit_count(u)).collect(),
            width: config.width,
            cost: g
                .ops
                .iter()
                .map(|o| {
                    (
                        o.inst.syllables(),
                        unit_slot(o.inst.opcode.unit()),
                        o.inst.opcode == vliw_isa::Opcode::Limm,
                    )
                })
                .collect(),
        };
        r.syllables[slots - 1] += branch_inst().syllables();
        r.used[(slots - 1) * units + unit_slot(Unit::Branch)] += 1;
        r
    }

    /// Whether `op` fits in `slot` beside what is there (an empty slot takes
    /// anything).
    pub(super) fn fits(&self, slot: usize, op: usize) -> bool {
        let (syl, unit, limm) = self.cost[op];
        let unit_ok = limm || self.used[slot * Unit::ALL.len() + unit] < self.capacity[unit];
        (self.syllables[slot] + syl <= self.width && unit_ok) || self.table[slot].is_empty()
    }

    /// The interval: the table's slots.
    pub fn interval(&self) -> i64 {
        self.table.len() as i64
    }

    /// How many more single-syllable operations of unit `unit` the slots before the
    /// last (the kernel's branch reads what they write) still take.
    pub fn room_before_branch(&self, unit: Unit) -> usize {
        let u = unit_slot(unit);
        let slots = self.table.len();
        (0..slots.saturating_sub(1))
            .map(|s| {
                let syllables = self.width.saturating_sub(self.syllables[s]);
                let units =
                    self.capacity[u].saturating_sub(self.used[s * Unit::ALL.len() + u]) as usize;
                syllables.min(units)
            })
            .sum()
    }

    pub(super) fn take(&mut self, slot: usize, op: usize) {
        let (syl, unit, limm) = self.cost[op];
        self.syllables[slot] += syl;
        if !limm {
            self.used[slot * Unit::ALL.len() + unit] += 1;
        }
        self.table[slot].push(op);
    }

    pub(super) fn release(&mut self, slot: usize, op: usize) {
        let (syl, unit, limm) = self.cost[op];
        self.syllables[slot] -= syl;
        if !limm {
            self.used[slot * Unit::ALL.len() + unit] -= 1;
        }
        self.table[slot].retain(|&o| o != op);
    }
}

/// After a schedule is found, fewer copies: an operation whose values (or the
/// values it reads) need copies across trips moves to a cycle where they need
/// fewer, within the dependences and the table, and when that cycle's slot is full,
/// one operation of the slot moves out of the way to a cycle of its own (one swap
/// deep). A move is taken when the copies of the two operations' values together go
/// down; no operation leaves its range (`range(op, latest)`: the continuation
/// compare its stage, what must know that its iteration exists no earlier than that
/// stage, nothing past the schedule's last stage). The copies matter beyond their
/// slots: the rotation copy of a value read after its next definition waits for
/// that value, and when the value is a load's, the kernel grows by a cycle.
fn fewer_copies(
    g: &LoopGraph,
    ii: i64,
    mrt: &mut Reservations,
    time: &mut [i64],
    range: &dyn Fn(usize, i64) -> (i64, i64),
) {
    let n = time.len();
    let latest = ((time.iter().copied().max().unwrap_or(0) / ii) + 1) * ii - 1;
    // the copies of the register edges at `ops` (each edge once)
    let copies_at = |time: &[i64], ops: &[usize]| -> i64 {
        let mut sum = 0;
        for e in &g.edges {
            let touches = ops.contains(&e.from) || ops.contains(&e.to);
            if e.register && touches {
                sum += copies_of(ii, e.from, time[e.from], e.to, time[e.to], e.distance);
            }
        }
        sum
    };
    // the dependences at `op` hold
    let legal = |time: &[i64], op: usize| -> bool {
        let (from, to) = range(op, latest);
        if time[op] < from || time[op] > to {
            return false;
        }
        let ok = |k: &usize| {
            let e = g.edges[*k];
            e.from == e.to || time[e.to] >= time[e.from] + e.latency - ii * e.distance
        };
        g.preds[op].iter().all(ok) && g.succs[op].iter().all(ok)
    };
    for _round in 0..4 {
        let mut improved = false;
        for op in 0..n {
            let before = copies_at(time, &[op]);
            if before == 0 {
                continue;
            }
            let (from, to) = range(op, latest);
            let was = time[op];
            'cycles: for t in from..=to {
                if t == was {
                    continue;
                }
                let slot = (t % ii) as usize;
                mrt.release((was % ii) as usize, op);
                time[op] = t;
                if !legal(time, op) {
                    time[op] = was;
                    mrt.take((was % ii) as usize, op);
                    continue;
                }
                if mrt.fits(slot, op) {
                    if copies_at(time, &[op]) < before {
                        mrt.take(slot, op);
                        improved = true;
                        break 'cycles;
                    }
                    time[op] = was;
                    mrt.take((was % ii) as usize, op);
                    continue;
                }
                // one operation of the full slot moves elsewhere
                let others: Vec<usize> = mrt.table[slot].clone();
                for y in others {
                    let y_was = time[y];
                    time[op] = was;
                    let pair_before = copies_at(time, &[op, y]);
                    time[op] = t;
                    mrt.release(slot, y);
                    let (y_from, y_to) = range(y, latest);
                    for ty in y_from..=y_to {
                        let y_slot = (ty % ii) as usize;
                        if y_slot == slot {
                            continue;
                        }
                        time[y] = ty;
                        if legal(time, op)
                            && legal(time, y)
                            && mrt.fits(slot, op)
                            && copies_at(time, &[op, y]) < pair_before
                        {
                            mrt.take(slot, op);
                            if mrt.fits(y_slot, y) {
                                mrt.take(y_slot, y);
                                improved = true;
                                break 'cycles;
                            }
                            mrt.release(slot, op);
                        }
                    }
                    time[y] = y_was;
                    mrt.take(slot, y);
                }
                time[op] = was;
                mrt.take((was % ii) as usize, op);
            }
        }
        if !improved {
            break;
        }
    }
}

/// The copies a value needs when it is defined at `t_def` by `def` and read at `t_use`
/// by `user` of `distance` iterations later: a value read `d` trips after its
/// definition lives across `d` back edges; one back edge is free when the reader
/// comes before the next definition in the kernel (an earlier slot, or the same slot
/// and a later stage or earlier in the body), every further one is a copy.
fn copies_of(ii: i64, def: usize, t_def: i64, user: usize, t_use: i64, distance: i64) -> i64 {
    let trips = (t_use + ii * distance).div_euclid(ii) - t_def.div_euclid(ii);
    if trips <= 0 || user == def {
        return 0;
    }
    let (c_def, c_use) = (t_def.rem_euclid(ii), t_use.rem_euclid(ii));
    // (the kernel's order in one cycle: later stages first, then the body's)
    let (s_def, s_use) = (t_def.div_euclid(ii), t_use.div_euclid(ii));
    let reads_first =
        c_use < c_def || (c_use == c_def && (s_use > s_def || (s_use == s_def && user < def)));
    trips - 1 + i64::from(!reads_first)
}

/// The copies `op` placed at `t` makes its values and those it reads need, with the
/// operations placed so far.
fn copies(g: &LoopGraph, time: &[Option<i64>], ii: i64, op: usize, t: i64) -> i64 {
    let mut n = 0;
    for &k in &g.succs[op] {
        let e = g.edges[k];
        if let (true, Some(tu)) = (e.register, time[e.to]) {
            n += copies_of(ii, op, t, e.to, tu, e.distance);
        }
    }
    for &k in &g.preds[op] {
        let e = g.edges[k];
        if let (true, Some(td)) = (e.register, time[e.from]) {
            n += copies_of(ii, e.from, td, op, t, e.distance);
        }
    }
    n
}
