//! Store-to-load forwarding and redundant load elimination, along a region's memory
//! state chain.
//!
//! The memory state is linear (one user per state, `docs/rvsdg.md` §6), so the
//! accesses of a region form a chain, in the order they run (after `rvsdg-mem-split`,
//! several chains, one per location: what is known is forgotten at a `mem_split` or
//! `mem_join`, which is sound and weaker). Walking it, the pass
//! keeps what is known to be in memory now:
//!
//! - the bytes each earlier plain store wrote (its value) and each earlier plain load
//!   read (its result);
//! - the bytes an earlier `memset` of a constant byte filled (what is left of them
//!   after later writes to a part);
//!
//! as long as nothing since may have written them ([`Analysis::preserves`]: stores
//! disjoint from them; calls, atomics and fences when they are in a stack slot that
//! does not escape; γs and θs by everything inside them).
//!
//! A plain load of known bytes is then what they hold: its users read that value,
//! its memory state's user reads the load's memory input, and the load goes
//! (`memory.forwarded-stores` when the bytes were stored or filled,
//! `memory.redundant-loads` when they were loaded). The value is
//!
//! - the stored or loaded value, for the same bytes read as the same type;
//! - its `bitcast`, for the same bytes read as another type of the same width;
//! - `ireduce (ushr v, 8 * d)`, for `d` bytes into an integer stored as a wider one
//!   (little-endian);
//! - a constant, for bytes a `memset` filled.
//!
//! **Traps.** A load that faults (out of bounds, misaligned) traps; removing it is
//! only right when it cannot. The earlier access ran — it is on the chain before the
//! load, so the load is only reached after it — on bytes that include the load's, so
//! they are mapped (and, written or read, readable); the alignment the load promises
//! holds for its address: no stricter than the earlier access's and the distance
//! from it a multiple of it, or known from a stack slot's alignment and a constant
//! offset. Volatile and atomic accesses are never removed nor used.
//!
//! **Regions.** What is known before a γ holds at the start of each arm; what is
//! known before a θ and nothing in its body may write holds at the start of every
//! iteration (a value from outside comes in as an entry variable or an invariant loop
//! variable). What every arm of a γ ends with (the same bytes; the same fill, or a
//! value of the same type in each) holds after the γ, and what a θ's body ends with
//! holds after the θ, from its last iteration (a value from inside leaves as an exit
//! variable, or a loop variable that starts `undef`: a θ's outputs are its last
//! iteration's next values). Such a fact needs an address that means the same
//! outside: a known offset from a base that is not a value of the inner region. The
//! variables are made when a load uses the value, once per node and value.

use rustc_hash::FxHashMap;
use vliw_ir::{InstructionData, Opcode, Type};

use super::access::{Access, Analysis, Effects};
use super::address::Base;
use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};
use crate::opt::rewrite::{Rewriter, const_of};

#[derive(Default)]
pub struct Counts {
    pub forwarded: usize,
    pub redundant: usize,
}

/// What some bytes hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Content {
    /// A value of this type (stored, or loaded).
    Value(Val, Type),
    /// This byte, over and over (`memset`).
    Fill(u8),
}

/// A value known to be in memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Val {
    /// This origin, of the region where it is known or an enclosing one (brought in
    /// when used).
    Origin(Origin),
    /// What a γ or θ gives out ([`Exit`]), made when used.
    Exit(usize),
}

/// A value that leaves a γ (per arm, each arm's) or a θ (the last iteration's),
/// not routed out yet.
struct Exit {
    node: Node,
    /// Per arm of a γ; the body's value for a θ.
    values: Vec<Val>,
    ty: Type,
    /// The output, once made.
    made: Option<Origin>,
}

/// What memory holds at a point of the chain: `access`'s bytes are `content`.
#[derive(Clone, Debug)]
struct Known {
    access: Access,
    content: Content,
    /// The alignment the access that put it there promised.
    align: u32,
    /// It was stored or filled (else loaded).
    written: bool,
}

/// At most this many facts known at once on a chain (the oldest are forgotten).
const MAX_KNOWN: usize = 64;

/// A plain load or store: its access, the type of its value, its alignment.
fn plain(a: &Analysis, g: &Rvsdg, n: Node) -> Option<(Access, Type, u32)> {
    let Some(Op::Inst(data)) = g.op(n) else {
        return None;
    };
    let (flags, ty) = match data {
        InstructionData::Load {
            opcode: Opcode::Load,
            flags,
            ..
        } => (flags, g.ty(Origin::Out(n, 0))),
        InstructionData::Store {
            opcode: Opcode::Store,
            flags,
            ..
        } => (flags, g.ty(*g.inputs(n).first()?)),
        _ => return None,
    };
    if flags.volatile {
        return None;
    }
    let Ty::Val(ty) = ty else {
        return None;
    };
    let e = a.effects(g, n);
    let access = *e.reads.first().or(e.writes.first())?;
    Some((access, ty, flags.align))
}

/// A `memset` of a constant byte: what it fills with.
fn fill(a: &Analysis, g: &Rvsdg, n: Node) -> Option<(Access, u8)> {
    match g.op(n)? {
        Op::Inst(d) if d.opcode() == Opcode::Memset => {
            let byte = const_of(g, *g.inputs(n).get(1)?)?;
            let e = a.effects(g, n);
            let access = *e.writes.first()?;
            access.size?;
            Some((access, byte as u8))
        }
        _ => None,
    }
}

/// Forwards along every memory chain of λ body `body`.
pub fn forward(g: &mut Rvsdg, a: &Analysis, body: Region, counts: &mut Counts) {
    let mut f = Forwarder {
        rw: Rewriter::new(g),
        a,
        counts,
        routes: FxHashMap::default(),
        exits: Vec::new(),
    };
    f.region(body, FxHashMap::default());
}

struct Forwarder<'g, 'a> {
    rw: Rewriter<'g>,
    a: &'a Analysis,
    counts: &'a mut Counts,
    /// The values brought into γs and θs so far: (node, value outside) to its
    /// argument in each subregion.
    routes: FxHashMap<(Node, Origin), Vec<Origin>>,
    /// The values known to leave γs and θs.
    exits: Vec<Exit>,
}

impl Forwarder<'_, '_> {
    /// Walks the chains of region `r`, whose memory arguments start with what `seeds`
    /// says is known. What is known at the region's results, by result.
    fn region(&mut self, r: Region, seeds: FxHashMap<Origin, Vec<Known>>) -> Vec<Vec<Known>> {
        let a = self.a;
        // what is known at each memory state of the region that is not consumed yet
        let mut state = seeds;
        let order = self.rw.g.topological_order(r);
        for n in order {
            let g = &*self.rw.g;
            let mem_in: Vec<usize> = (0..g.inputs(n).len())
                .filter(|&i| g.ty(g.input(n, i)) == Ty::Mem)
                .collect();
            if mem_in.is_empty() {
                continue;
            }
            let known = match mem_in[..] {
                [i] => state.remove(&g.input(n, i)).unwrap_or_default(),
                _ => Vec::new(),
            };
            let mem_out: Vec<Origin> = g.outputs(n).filter(|&o| g.ty(o) == Ty::Mem).collect();
            let leaving = if g.kind(n).is_structural() {
                self.enter(n, &mem_in, &mem_out, &known)
            } else {
                Vec::new()
            };
            let g = &*self.rw.g;
            let access = plain(a, g, n);
            let is_load = matches!(g.op(n), Some(Op::Inst(d)) if d.opcode() == Opcode::Load);
            if let (Some((acc, ty, align)), true, [i], [out]) =
                (access, is_load, &mem_in[..], &mem_out[..])
                && let Some((k, d)) = known
                    .iter()
                    .rev()
                    .find_map(|k| readable(a, k, &acc, ty, align).map(|d| (k.clone(), d)))
            {
                let m = g.input(n, *i);
                let value = self.read(n, &k, d, ty);
                self.rw.g.divert_users(Origin::Out(n, 0), value);
                self.rw.g.divert_users(*out, m);
                self.rw.g.remove_node(n);
                if k.written {
                    self.counts.forwarded += 1;
                } else {
                    self.counts.redundant += 1;
                }
                state.insert(m, known);
                continue;
            }
            let g = &*self.rw.g;
            let e = a.effects(g, n);
            let mut kept = Vec::with_capacity(known.len() + 1);
            for k in known {
                if a.preserves(&e, &k.access) {
                    kept.push(k);
                } else if let Content::Fill(_) = k.content {
                    // what a store leaves of a fill
                    kept.extend(remains(a, &k, &e));
                }
            }
            let mut known = kept;
            known.extend(leaving);
            if known.len() > MAX_KNOWN {
                known.drain(..known.len() - MAX_KNOWN);
            }
            let new = if let Some((access, ty, align)) = access {
                let value = if is_load {
                    Origin::Out(n, 0)
                } else {
                    g.input(n, 0)
                };
                Some(Known {
                    access,
                    content: Content::Value(Val::Origin(value), ty),
                    align,
                    written: !is_load,
                })
            } else {
                fill(a, g, n).map(|(access, byte)| Known {
                    access,
                    content: Content::Fill(byte),
                    align: 1,
                    written: true,
                })
            };
            if let Some(k) = new {
                if known.len() >= MAX_KNOWN {
                    known.remove(0);
                }
                known.push(k);
            }
            if let [out] = mem_out[..] {
                state.insert(out, known);
            }
        }
        let g = &*self.rw.g;
        g.results(r)
            .iter()
            .map(|o| state.get(o).cloned().unwrap_or_default())
            .collect()
    }

    /// Walks the subregions of γ or θ `n`, whose memory input (input `mem_in`) holds
    /// `known`: a γ's arms start with all of it, a θ's body with what nothing inside
    /// it may write (what holds before the θ then holds at the start of every
    /// iteration). Returns what is known to hold after `n` (memory output `mem_out`)
    /// from inside it: what every arm of a γ ends with (the same bytes, each arm's
    /// value), what a θ's body ends with (its last iteration's).
    fn enter(
        &mut self,
        n: Node,
        mem_in: &[usize],
        mem_out: &[Origin],
        known: &[Known],
    ) -> Vec<Known> {
        let g = &*self.rw.g;
        let (subregions, arg, result) = match (g.kind(n), mem_in, mem_out) {
            (NodeKind::Gamma { arms }, &[i], &[Origin::Out(_, o)]) => {
                (arms.clone(), Some(i - 1), Some(o as usize))
            }
            (NodeKind::Theta { body }, &[i], &[Origin::Out(_, o)]) => {
                (vec![*body], Some(i), Some(o as usize + 1))
            }
            (kind, _, _) => (kind.subregions().to_vec(), None, None),
        };
        let seed: Vec<Known> = match g.kind(n) {
            NodeKind::Theta { .. } => {
                let e = self.a.effects(g, n);
                known
                    .iter()
                    .filter(|k| self.a.preserves(&e, &k.access))
                    .cloned()
                    .collect()
            }
            _ => known.to_vec(),
        };
        let mut ends = Vec::new();
        for &s in &subregions {
            let mut seeds = FxHashMap::default();
            if let Some(k) = arg {
                seeds.insert(Origin::Arg(s, k as u32), seed.clone());
            }
            let mut end = self.region(s, seeds);
            ends.push(
                result
                    .and_then(|k| end.get_mut(k))
                    .map(std::mem::take)
                    .unwrap_or_default(),
            );
        }
        if result.is_none() {
            return Vec::new();
        }
        match self.rw.g.kind(n) {
            NodeKind::Gamma { .. } => self.leave_gamma(n, &subregions, &ends),
            NodeKind::Theta { .. } => self.leave_theta(n, subregions[0], &ends[0]),
            _ => Vec::new(),
        }
    }

    /// Whether what `k` says about its bytes means the same outside region `r`: its
    /// address has a known offset from a base that is not a value of `r`.
    fn outside(&self, k: &Known, r: Region) -> bool {
        let g = &*self.rw.g;
        k.access.addr.offset.is_some()
            && match k.access.addr.base {
                Base::Value(x) => !g.region_within(g.origin_region(x), r),
                _ => true,
            }
    }

    /// Whether `v` is an origin outside region `r`.
    fn outside_value(&self, v: Val, r: Region) -> bool {
        let g = &*self.rw.g;
        matches!(v, Val::Origin(o) if !g.region_within(g.origin_region(o), r))
    }

    /// What every arm of γ `n` ends with: the same bytes, with a fill of the same
    /// byte or a value of the same type in each (an exit variable, unless it is one
    /// value from outside the γ).
    fn leave_gamma(&mut self, n: Node, arms: &[Region], ends: &[Vec<Known>]) -> Vec<Known> {
        let mut out = Vec::new();
        let Some((first, others)) = ends.split_first() else {
            return out;
        };
        for k in first {
            if !self.outside(k, arms[0]) {
                continue;
            }
            let mut contents = vec![k.content];
            let mut align = k.align;
            let mut written = k.written;
            for (i, end) in others.iter().enumerate() {
                let found = end.iter().rev().find(|m| {
                    Analysis::same(&k.access, &m.access)
                        && self.outside(m, arms[i + 1])
                        && match (k.content, m.content) {
                            (Content::Fill(a), Content::Fill(b)) => a == b,
                            (Content::Value(_, a), Content::Value(_, b)) => a == b,
                            _ => false,
                        }
                });
                let Some(m) = found else {
                    break;
                };
                contents.push(m.content);
                align = align.min(m.align);
                written |= m.written;
            }
            if contents.len() != arms.len() {
                continue;
            }
            let content = match k.content {
                Content::Fill(_) => k.content,
                Content::Value(v, ty) => {
                    if contents.iter().all(|&c| c == k.content) && self.outside_value(v, arms[0]) {
                        k.content
                    } else {
                        let values = contents
                            .iter()
                            .map(|c| match c {
                                Content::Value(v, _) => *v,
                                Content::Fill(_) => unreachable!("matched as values"),
                            })
                            .collect();
                        self.exits.push(Exit {
                            node: n,
                            values,
                            ty,
                            made: None,
                        });
                        Content::Value(Val::Exit(self.exits.len() - 1), ty)
                    }
                }
            };
            out.push(Known {
                access: k.access,
                content,
                align,
                written,
            });
        }
        out
    }

    /// What θ `n`'s body ends with: in memory after the θ too, from the last
    /// iteration (a value of the body leaves as a new loop variable).
    fn leave_theta(&mut self, n: Node, body: Region, end: &[Known]) -> Vec<Known> {
        let mut out = Vec::new();
        for k in end {
            if !self.outside(k, body) {
                continue;
            }
            let content = match k.content {
                Content::Value(v, ty) if !self.outside_value(v, body) => {
                    self.exits.push(Exit {
                        node: n,
                        values: vec![v],
                        ty,
                        made: None,
                    });
                    Content::Value(Val::Exit(self.exits.len() - 1), ty)
                }
                c => c,
            };
            out.push(Known {
                content,
                ..k.clone()
            });
        }
        out
    }

    /// The origin of `v`, routing it out of its γ or θ if not done yet.
    fn make(&mut self, v: Val) -> Origin {
        let i = match v {
            Val::Origin(o) => return o,
            Val::Exit(i) => i,
        };
        if let Some(o) = self.exits[i].made {
            return o;
        }
        let (n, ty) = (self.exits[i].node, self.exits[i].ty);
        let values = self.exits[i].values.clone();
        let subregions = self.rw.g.kind(n).subregions().to_vec();
        let mut inner = Vec::with_capacity(values.len());
        for (&s, &v) in subregions.iter().zip(&values) {
            let o = self.make(v);
            inner.push(self.bring(o, s));
        }
        let g = &mut *self.rw.g;
        let out = match g.kind(n) {
            NodeKind::Theta { body } => {
                let body = *body;
                let region = g.node(n).region;
                let undef = Op::Inst(InstructionData::Nullary {
                    opcode: Opcode::Undef,
                });
                let init = g.add_simple(region, undef, &[], &[Ty::Val(ty)]);
                let (arg, out) = g.add_theta_var(n, Origin::Out(init, 0));
                let Origin::Arg(_, k) = arg else {
                    unreachable!("a loop variable's argument")
                };
                g.set_result(body, k as usize + 1, inner[0]);
                out
            }
            _ => g.add_gamma_exit(n, &inner),
        };
        self.exits[i].made = Some(out);
        out
    }

    /// The value of `ty` that `k`'s bytes from `d` on hold, made beside load `n`.
    fn read(&mut self, n: Node, k: &Known, d: u64, ty: Type) -> Origin {
        let r = self.rw.g.node(n).region;
        match k.content {
            Content::Value(v, kty) => {
                let v = self.make(v);
                let v = self.bring(v, r);
                let rw = &mut self.rw;
                if kty == ty {
                    v
                } else if kty.bytes() == ty.bytes() {
                    rw.unary(n, Opcode::Bitcast, v, ty)
                } else {
                    let shifted = if d == 0 {
                        v
                    } else {
                        let amount = rw.int(n, kty, 8 * d as i128);
                        rw.binary(n, Opcode::Ushr, v, amount)
                    };
                    rw.unary(n, Opcode::Ireduce, shifted, ty)
                }
            }
            Content::Fill(b) => {
                let bits = (0..ty.bytes()).fold(0u128, |acc, _| (acc << 8) | b as u128);
                self.rw.constant(n, Ty::Val(ty), bits)
            }
        }
    }

    /// Value `v` (of region `r` or an enclosing one) in region `r`: brought in
    /// through the γs and θs between, as an entry variable or an invariant loop
    /// variable of each (made once per node and value).
    fn bring(&mut self, v: Origin, r: Region) -> Origin {
        let g = &*self.rw.g;
        let home = g.origin_region(v);
        if home == r {
            return v;
        }
        let Some(n) = g.owner(r) else {
            return v;
        };
        let outer = self.bring(v, g.node(n).region);
        let g = &mut *self.rw.g;
        let args = self
            .routes
            .entry((n, outer))
            .or_insert_with(|| match g.kind(n) {
                NodeKind::Gamma { .. } => g.add_gamma_entry(n, outer),
                NodeKind::Theta { .. } => vec![g.add_theta_var(n, outer).0],
                _ => Vec::new(),
            });
        let k = g.kind(n).subregions().iter().position(|&s| s == r);
        k.and_then(|k| args.get(k)).copied().unwrap_or(v)
    }
}

/// Whether a load of `acc` as `ty` (promising `align`) reads bytes that `k` knows:
/// they are within `k`'s, the content gives a value of `ty` for them, and the load
/// cannot be misaligned. Its distance from `k`'s start.
fn readable(a: &Analysis, k: &Known, acc: &Access, ty: Type, align: u32) -> Option<u64> {
    let d = Analysis::within(&k.access, acc)?;
    let fits = match k.content {
        Content::Value(_, kty) if kty == ty => d == 0,
        Content::Value(_, kty) if kty.bytes() == ty.bytes() => d == 0 && bitcastable(kty, ty),
        Content::Value(_, kty) => kty.is_int() && ty.is_int() && kty != Type::I1,
        Content::Fill(_) => true,
    };
    let aligned = align <= 1
        || (align <= k.align.max(1) && d.is_multiple_of(align as u64))
        || match (acc.addr.base, acc.addr.offset) {
            (Base::Slot(s), Some(offset)) => a
                .slot(s)
                .is_some_and(|s| s.align >= align && offset.rem_euclid(align as i64) == 0),
            _ => false,
        };
    (fits && aligned).then_some(d)
}

/// Whether `bitcast` turns a `from` into a `to` (same width; not `i1`).
fn bitcastable(from: Type, to: Type) -> bool {
    from.bits() == to.bits() && from != Type::I1 && from.bits() >= 8
}

/// What is left known of fill `k` after a node of effects `e`, which does not
/// preserve it: the parts before and after its one write, when that is all it does
/// to `k` and the write is at a known distance within the fill.
fn remains(a: &Analysis, k: &Known, e: &Effects) -> Vec<Known> {
    let ([w], false, true) = (
        &e.writes[..],
        e.anything,
        !e.escaping || a.private_slot(&k.access).is_some(),
    ) else {
        return Vec::new();
    };
    let (Some(d), Some(len), Some(size)) =
        (Analysis::distance(&k.access, w), k.access.size, w.size)
    else {
        return Vec::new();
    };
    if d >= len || d.checked_add(size).is_none_or(|end| end > len) {
        return Vec::new();
    }
    let piece = |from: u64, to: u64| {
        (from < to).then(|| Known {
            access: k.access.piece(from, to - from),
            ..k.clone()
        })
    };
    [piece(0, d), piece(d + size, len)]
        .into_iter()
        .flatten()
        .collect()
}
