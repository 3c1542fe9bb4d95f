//! Dead stores to stack slots that do not escape: a store whose bytes nothing reads
//! before they are written again or the λ returns is removed (`memory.dead-stores`);
//! a slot that nothing reads loses every store.
//!
//! A backward liveness analysis along the memory state chain of each region, for the
//! bytes of the λ's private slots (those that do not escape, `escape.rs`: nothing
//! but the λ's own accesses through their `stack_addr`s reads them — not a callee,
//! not another thread, not the caller once the λ returns). Live bytes are those that
//! a later access may read:
//!
//! - at the λ's end, none (the slots die with the activation); after a `trap` or
//!   `unreachable`, none;
//! - a load, `memcpy` or `memmove` source makes its bytes live (the whole slot when
//!   the offset or length is not known); a store, `memset` or copy destination of a
//!   known range makes its bytes dead before it (it overwrites them);
//! - at a γ's end, what is live after it; before it, what is live in any arm;
//! - at the end of a θ's body, what is live after the θ and whatever the body may
//!   read (the next iteration's).
//!
//! A plain store, `memset`, `memcpy` or `memmove` that only writes private bytes that
//! are not live after it goes — when it cannot trap: it is within its slot at a known
//! offset, its alignment holds (the slot's alignment and the offset give it), and a
//! copy's source is within a slot too, not overlapping the destination (`memcpy`
//! traps on overlap). Volatile stores stay.

use rustc_hash::FxHashMap;
use vliw_ir::{InstructionData, Opcode, StackSlot};

use super::access::{Access, Analysis, Effects};
use crate::graph::{Node, NodeKind, Origin, Region, User};
use crate::ops::{Op, Rvsdg, Ty};

/// The bytes of private slots that may be read later.
#[derive(Clone, Debug, Default)]
struct Live {
    /// Everything (an operation the analysis does not know reads).
    all: bool,
    /// Per slot, sorted disjoint byte ranges `[start, end)`.
    slots: FxHashMap<StackSlot, Vec<(u64, u64)>>,
}

impl Live {
    fn everything() -> Live {
        Live {
            all: true,
            slots: FxHashMap::default(),
        }
    }

    fn union(&mut self, other: &Live) {
        if self.all {
            return;
        }
        if other.all {
            *self = Live::everything();
            return;
        }
        for (&s, ranges) in &other.slots {
            for &(a, b) in ranges {
                self.add(s, a, b);
            }
        }
    }

    fn add(&mut self, s: StackSlot, a: u64, b: u64) {
        if self.all || a >= b {
            return;
        }
        let ranges = self.slots.entry(s).or_default();
        let (mut a, mut b) = (a, b);
        // merge with every range that meets [a, b)
        ranges.retain(|&(x, y)| {
            if y < a || x > b {
                true
            } else {
                a = a.min(x);
                b = b.max(y);
                false
            }
        });
        let at = ranges.partition_point(|&(x, _)| x < a);
        ranges.insert(at, (a, b));
    }

    fn remove(&mut self, s: StackSlot, a: u64, b: u64) {
        if self.all {
            return;
        }
        let Some(ranges) = self.slots.get_mut(&s) else {
            return;
        };
        let mut out = Vec::with_capacity(ranges.len() + 1);
        for &(x, y) in ranges.iter() {
            if y <= a || x >= b {
                out.push((x, y));
                continue;
            }
            if x < a {
                out.push((x, a));
            }
            if y > b {
                out.push((b, y));
            }
        }
        *ranges = out;
    }

    fn meets(&self, s: StackSlot, a: u64, b: u64) -> bool {
        self.all
            || self
                .slots
                .get(&s)
                .is_some_and(|r| r.iter().any(|&(x, y)| x < b && a < y))
    }
}

/// Removes the dead stores of λ body `body`. Returns how many went.
pub fn remove_dead_stores(g: &mut Rvsdg, a: &Analysis, body: Region) -> usize {
    let mut removed = 0;
    region(g, a, body, &Live::default(), &mut removed);
    removed
}

/// Processes region `r`, given what is live at its end; returns what is live at its
/// start.
fn region(g: &mut Rvsdg, a: &Analysis, r: Region, live_out: &Live, removed: &mut usize) -> Live {
    let mut live_in: FxHashMap<Node, Live> = FxHashMap::default();
    let before = |g: &Rvsdg, live_in: &FxHashMap<Node, Live>, users: &[User]| {
        let mut live = Live::default();
        for &u in users {
            match u {
                User::Res(..) => live.union(live_out),
                User::In(m, _) => match live_in.get(&m) {
                    Some(l) => live.union(l),
                    None => live = Live::everything(),
                },
            }
        }
        let _ = g;
        live
    };
    for n in g.topological_order(r).into_iter().rev() {
        let mem_out: Vec<Origin> = g.outputs(n).filter(|&o| g.ty(o) == Ty::Mem).collect();
        if mem_out.is_empty() && !g.inputs(n).iter().any(|&o| g.ty(o) == Ty::Mem) {
            continue;
        }
        let mut after = Live::default();
        for &o in &mem_out {
            let l = before(g, &live_in, g.users(o));
            after.union(&l);
        }
        let live = match g.kind(n) {
            NodeKind::Simple(_) => simple(g, a, n, after, removed),
            NodeKind::Gamma { arms } => {
                let mut live = Live::default();
                for arm in arms.clone() {
                    let l = region(g, a, arm, &after, removed);
                    live.union(&l);
                }
                live
            }
            NodeKind::Theta { body } => {
                let body = *body;
                let mut out = after;
                reads(a, &a.effects(g, n), &mut out);
                region(g, a, body, &out, removed)
            }
            NodeKind::Lambda { .. } => Live::everything(),
        };
        live_in.insert(n, live);
    }
    let mut live = Live::default();
    for arg in g.arg_origins(r) {
        if g.ty(arg) == Ty::Mem {
            let l = before(g, &live_in, g.users(arg));
            live.union(&l);
        }
    }
    live
}

/// The bytes of private slots that effects `e` may read, added to `live`.
fn reads(a: &Analysis, e: &Effects, live: &mut Live) {
    if e.anything {
        *live = Live::everything();
        return;
    }
    for r in &e.reads {
        if let Some((s, x, y)) = range(a, r) {
            live.add(s, x, y);
        }
    }
}

/// The private slot and byte range of `acc` (the whole slot when the offset or size
/// is not known).
fn range(a: &Analysis, acc: &Access) -> Option<(StackSlot, u64, u64)> {
    let s = a.private_slot(acc)?;
    let size = a.slot(s)?.size as u64;
    match (a.in_bounds(acc), acc.addr.offset, acc.size) {
        (Some(true), Some(o), Some(z)) => Some((s, o as u64, o as u64 + z)),
        _ => Some((s, 0, size)),
    }
}

/// The exact private range `acc` writes, if known.
fn exact(a: &Analysis, acc: &Access) -> Option<(StackSlot, u64, u64)> {
    let s = a.private_slot(acc)?;
    match (a.in_bounds(acc), acc.addr.offset, acc.size) {
        (Some(true), Some(o), Some(z)) => Some((s, o as u64, o as u64 + z)),
        _ => None,
    }
}

/// Simple node `n`, given what is live after it: removed if it is a dead store,
/// else what is live before it.
fn simple(g: &mut Rvsdg, a: &Analysis, n: Node, mut live: Live, removed: &mut usize) -> Live {
    let e = a.effects(g, n);
    if removable(g, a, n, &e)
        && e.writes
            .iter()
            .all(|w| exact(a, w).is_some_and(|(s, x, y)| !live.meets(s, x, y)))
    {
        if super::remove_memory_node(g, n) {
            *removed += 1;
            return live;
        }
    }
    for w in &e.writes {
        if let Some((s, x, y)) = exact(a, w) {
            live.remove(s, x, y);
        }
    }
    reads(a, &e, &mut live);
    live
}

/// Whether `n` is a store, `memset`, `memcpy` or `memmove` that writes only private
/// bytes, cannot trap, and has no other effect.
fn removable(g: &Rvsdg, a: &Analysis, n: Node, e: &Effects) -> bool {
    let Some(Op::Inst(data)) = g.op(n) else {
        return false;
    };
    if e.anything || e.escaping || e.writes.len() != 1 || g.outputs(n).any(|o| g.ty(o) != Ty::Mem) {
        return false;
    }
    let w = &e.writes[0];
    if exact(a, w).is_none() {
        return false;
    }
    match (data, data.opcode()) {
        (InstructionData::Store { flags, .. }, Opcode::Store) => {
            let align = flags.align.max(1);
            !flags.volatile
                && e.reads.is_empty()
                && (align == 1
                    || matches!(
                        (w.addr.offset, a.private_slot(w).and_then(|s| a.slot(s))),
                        (Some(o), Some(d)) if d.align >= align && o.rem_euclid(align as i64) == 0
                    ))
        }
        (_, Opcode::Memset) => e.reads.is_empty(),
        (_, op @ (Opcode::Memcpy | Opcode::Memmove)) => match &e.reads[..] {
            [src] => {
                a.in_bounds(src) == Some(true)
                    && (op == Opcode::Memmove || a.disjoint(w, src) || Analysis::same(w, src))
            }
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::Live;
    use vliw_ir::StackSlot;

    fn ranges(l: &Live, s: StackSlot) -> Vec<(u64, u64)> {
        l.slots.get(&s).cloned().unwrap_or_default()
    }

    #[test]
    fn live_ranges_merge_split_and_meet() {
        let s = StackSlot::from_u32(0);
        let t = StackSlot::from_u32(1);
        let mut l = Live::default();
        l.add(s, 8, 12);
        l.add(s, 0, 4);
        l.add(s, 4, 8); // touches both: one range
        assert_eq!(ranges(&l, s), vec![(0, 12)]);
        l.add(s, 20, 24);
        assert_eq!(ranges(&l, s), vec![(0, 12), (20, 24)]);
        l.remove(s, 2, 22); // splits the first, trims the second
        assert_eq!(ranges(&l, s), vec![(0, 2), (22, 24)]);
        assert!(l.meets(s, 1, 2) && l.meets(s, 23, 30));
        assert!(!l.meets(s, 2, 22) && !l.meets(t, 0, 100));
        l.add(s, 5, 5); // empty: nothing
        assert_eq!(ranges(&l, s), vec![(0, 2), (22, 24)]);
        let mut m = Live::default();
        m.add(t, 0, 1);
        m.union(&l);
        assert_eq!(ranges(&m, s), vec![(0, 2), (22, 24)]);
        assert_eq!(ranges(&m, t), vec![(0, 1)]);
        m.union(&Live::everything());
        assert!(m.all && m.meets(t, 5, 6));
        m.remove(t, 0, 100); // everything stays everything
        assert!(m.meets(t, 0, 1));
    }
}
