//! Iterative modulo scheduling (Rau, "Iterative Modulo Scheduling", MICRO-27, 1994):
//! for a given initiation interval II, operations are placed in order of height (the
//! longest latency path to anything that depends on them, distances counting −II
//! each), each at the first cycle from its earliest start (its placed predecessors'
//! constraints) whose slot `cycle mod II` of the modulo reservation table still
//! forms a legal bundle (what `check_bundle` counts, kept per slot: syllables against
//! the width, operations per unit kind; the last slot holds the loop's branch), the
//! one among those whose values need the fewest copies across trips. When none of the II candidate cycles has room, the operation is
//! placed anyway, at its earliest start or one cycle after where it was last, and
//! what conflicts with it leaves the table: the operations of that slot that no
//! longer fit, and the successors whose dependences it now violates. A budget of
//! placements bounds the search; when it runs out, the caller tries II + 1.

use vliw_isa::{MachineConfig, Unit};

use super::graph::{LoopGraph, branch_inst, unit_slot};

/// The cycle of each operation of one iteration (from 0), for interval `ii`, or
/// `None` when the budget ran out. `first` (the continuation compare) must land in
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
) -> Option<Vec<i64>> {
    let (lo, hi) = (cmp_stage * ii, (cmp_stage + 1) * ii);
    let n = g.ops.len();
    let height = g.heights(ii);
    let slots = ii as usize;
    let mut time: Vec<Option<i64>> = vec![None; n];
    let mut last: Vec<Option<i64>> = vec![None; n];
    let mut table: Vec<Vec<usize>> = vec![Vec::new(); slots];
    let mut budget = 6 * n + 32;
    // per slot: syllables and operations per unit kind in use (what `check_bundle`
    // counts), the last slot holding the loop's branch
    let units = Unit::ALL.len();
    let mut syllables = vec![0usize; slots];
    let mut used = vec![0u32; slots * units];
    syllables[slots - 1] += branch_inst().syllables();
    used[(slots - 1) * units + unit_slot(Unit::Branch)] += 1;
    let cost: Vec<(usize, usize)> = g
        .ops
        .iter()
        .map(|o| (o.inst.syllables(), unit_slot(o.inst.opcode.unit())))
        .collect();
    let limm = |op: usize| g.ops[op].inst.opcode == vliw_isa::Opcode::Limm;
    let capacity: Vec<u32> = Unit::ALL.iter().map(|&u| config.unit_count(u)).collect();
    let fits =
        |table: &Vec<Vec<usize>>, syllables: &[usize], used: &[u32], slot: usize, op: usize| {
            let (syl, unit) = cost[op];
            let unit_ok = limm(op) || used[slot * units + unit] < capacity[unit];
            (syllables[slot] + syl <= config.width && unit_ok) || table[slot].is_empty()
        };
    let take = |syllables: &mut [usize], used: &mut [u32], slot: usize, op: usize| {
        let (syl, unit) = cost[op];
        syllables[slot] += syl;
        if !limm(op) {
            used[slot * units + unit] += 1;
        }
    };
    let release = |syllables: &mut [usize], used: &mut [u32], slot: usize, op: usize| {
        let (syl, unit) = cost[op];
        syllables[slot] -= syl;
        if !limm(op) {
            used[slot * units + unit] -= 1;
        }
    };
    loop {
        let next = (0..n)
            .filter(|&i| time[i].is_none())
            .max_by_key(|&i| (height[i], std::cmp::Reverse(i)));
        let Some(op) = next else { break };
        if budget == 0 {
            return None;
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
            if !fits(&table, &syllables, &used, (t % ii) as usize, op) {
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
        while !fits(&table, &syllables, &used, slot, op) {
            let Some((k, &victim)) = table[slot]
                .iter()
                .enumerate()
                .min_by_key(|&(_, &o)| (height[o], std::cmp::Reverse(o)))
            else {
                break;
            };
            table[slot].remove(k);
            release(&mut syllables, &mut used, slot, victim);
            time[victim] = None;
        }
        time[op] = Some(t);
        last[op] = Some(t);
        table[slot].push(op);
        take(&mut syllables, &mut used, slot, op);
        // dependence conflicts: successors placed too early leave
        for &k in &g.succs[op] {
            let e = g.edges[k];
            if e.to == op {
                continue;
            }
            if let Some(ts) = time[e.to]
                && ts < t + e.latency - ii * e.distance
            {
                let s = (ts % ii) as usize;
                table[s].retain(|&o| o != e.to);
                release(&mut syllables, &mut used, s, e.to);
                time[e.to] = None;
            }
        }
    }
    Some(
        time.into_iter()
            .map(|t| t.expect("every operation placed"))
            .collect(),
    )
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
