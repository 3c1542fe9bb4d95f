//! What each node does to memory, and when two accesses cannot touch the same byte.
//!
//! A simple node's [`Effects`] are the bytes it reads and writes ([`Access`]: a
//! pointer, its address by [`Addresses`], a size), and whether it may read and write
//! any memory that escapes: a call, an atomic operation or a fence (another thread or
//! the callee may change what escapes; data-race freedom only holds between two
//! plain accesses with no synchronization in between), a volatile access (it must
//! happen as written). A γ's or θ's effects are those of everything inside it.
//!
//! Two accesses are **disjoint** when
//! - their addresses are a known distance apart (the same base and known offsets, or
//!   the same pointer with the instructions' constant offsets) and their byte ranges
//!   do not meet (modulo 2^64, as addresses wrap); or
//! - they are in two different stack slots; or one is in a stack slot that does not
//!   escape and the other is not in that slot (`escape.rs`).
//!
//! The stack slot rules trust provenance, which the SSA IR's interpreter does not
//! check: its stack is one region, so an access out of a slot's bounds reaches the
//! next slot. Rust makes that undefined, but so that the optimized program runs as
//! the interpreter runs the original, a λ with an access at a known offset out of its
//! slot's bounds gets no stack slot rule at all ([`Analysis::slots`]).

use cranelift_entity::PrimaryMap;
use rustc_hash::{FxHashMap, FxHashSet};
use vliw_ir::{InstructionData, Opcode, StackSlot, StackSlotData};

use super::address::{Addr, Addresses, Base, iconst};
use super::escape::escaped_slots;
use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};
use crate::opt::known::{low_zero_bits, unsigned_range};

/// Bytes that a node reads or writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// The pointer operand.
    pub ptr: Origin,
    /// The instruction's constant offset from it.
    pub imm: i64,
    /// The address accessed (`ptr`'s plus `imm`).
    pub addr: Addr,
    /// How many bytes (`None`: a `memcpy` or `memset` of a length that is not a
    /// constant).
    pub size: Option<u64>,
}

impl Access {
    /// The `len` bytes from `from` on.
    pub fn piece(&self, from: u64, len: u64) -> Access {
        Access {
            ptr: self.ptr,
            imm: self.imm.wrapping_add(from as i64),
            addr: self.addr.plus(Some(from as i64)),
            size: Some(len),
        }
    }
}

/// What a node may do to memory.
#[derive(Clone, Debug, Default)]
pub struct Effects {
    pub reads: Vec<Access>,
    pub writes: Vec<Access>,
    /// May read and write any memory but the stack slots that do not escape.
    pub escaping: bool,
    /// May read and write anything (too many accesses to list, or an operation this
    /// analysis does not know).
    pub anything: bool,
}

/// Past this many accesses, a γ's or θ's effects are [`Effects::anything`].
const MAX_LISTED: usize = 64;

impl Effects {
    fn add(&mut self, other: &Effects) {
        self.escaping |= other.escaping;
        self.anything |= other.anything;
        if !self.anything {
            self.reads.extend_from_slice(&other.reads);
            self.writes.extend_from_slice(&other.writes);
            if self.reads.len() + self.writes.len() > MAX_LISTED {
                self.anything = true;
            }
        }
        if self.anything {
            self.reads.clear();
            self.writes.clear();
        }
    }
}

/// The memory facts of one λ.
pub struct Analysis {
    pub addrs: Addresses,
    escaped: FxHashSet<StackSlot>,
    /// Whether the stack slot rules hold: no access at a known offset out of its
    /// slot's bounds.
    slots_trusted: bool,
    slot_data: PrimaryMap<StackSlot, StackSlotData>,
    /// The effects of every γ and θ.
    summaries: FxHashMap<Node, Effects>,
}

impl Analysis {
    pub fn of_lambda(g: &Rvsdg, l: Node) -> Analysis {
        let addrs = Addresses::of_lambda(g, l);
        let escaped = escaped_slots(g, l, &addrs);
        let mut a = Analysis {
            addrs,
            escaped,
            slots_trusted: true,
            slot_data: g.lambda_info(l).stack_slots.clone(),
            summaries: FxHashMap::default(),
        };
        let body = g.lambda_body(l);
        a.summarize(g, body);
        a
    }

    /// The effects of everything in region `r` (and the summaries of its γs and θs).
    fn summarize(&mut self, g: &Rvsdg, r: Region) -> Effects {
        let mut all = Effects::default();
        for &n in g.nodes(r) {
            let e = match g.kind(n) {
                NodeKind::Simple(_) => {
                    let e = self.simple(g, n);
                    for a in e.reads.iter().chain(&e.writes) {
                        if self.in_bounds(a) == Some(false) {
                            self.slots_trusted = false;
                        }
                    }
                    e
                }
                kind => {
                    let mut e = Effects::default();
                    for &s in kind.subregions() {
                        let inner = self.summarize(g, s);
                        e.add(&inner);
                    }
                    self.summaries.insert(n, e.clone());
                    e
                }
            };
            all.add(&e);
        }
        all
    }

    /// The effects of node `n`.
    pub fn effects(&self, g: &Rvsdg, n: Node) -> Effects {
        match g.kind(n) {
            NodeKind::Simple(_) => self.simple(g, n),
            _ => self.summaries.get(&n).cloned().unwrap_or(Effects {
                anything: true,
                ..Effects::default()
            }),
        }
    }

    /// The access of `size` bytes at `ptr + imm`.
    fn access(&self, ptr: Origin, imm: i64, size: Option<u64>) -> Access {
        Access {
            ptr,
            imm,
            addr: self.addrs.get(ptr).plus(Some(imm)),
            size,
        }
    }

    fn simple(&self, g: &Rvsdg, n: Node) -> Effects {
        let mut e = Effects::default();
        let Some(op @ Op::Inst(data)) = g.op(n) else {
            return e;
        };
        if !op.states().mem {
            return e;
        }
        let inputs = g.inputs(n);
        let value_size = |o: Option<&Origin>| match o.map(|&o| g.ty(o)) {
            Some(Ty::Val(t)) => Some(t.bytes() as u64),
            _ => None,
        };
        match (data, data.opcode()) {
            (InstructionData::Load { flags, offset, .. }, Opcode::Load) => {
                let size = value_size(g.outputs(n).next().as_ref());
                match (inputs.first(), size) {
                    (Some(&p), Some(size)) => {
                        e.reads.push(self.access(p, *offset as i64, Some(size)));
                        e.escaping = flags.volatile;
                    }
                    _ => e.anything = true,
                }
            }
            (InstructionData::Store { flags, offset, .. }, Opcode::Store) => {
                match (inputs.get(1), value_size(inputs.first())) {
                    (Some(&p), Some(size)) => {
                        e.writes.push(self.access(p, *offset as i64, Some(size)));
                        e.escaping = flags.volatile;
                    }
                    _ => e.anything = true,
                }
            }
            (_, op @ (Opcode::Memcpy | Opcode::Memmove | Opcode::Memset)) => {
                if inputs.len() < 3 {
                    e.anything = true;
                    return e;
                }
                let len = iconst(g, inputs[2]).map(|l| l as u64);
                e.writes.push(self.access(inputs[0], 0, len));
                if op != Opcode::Memset {
                    e.reads.push(self.access(inputs[1], 0, len));
                }
            }
            // sinks: nothing after them runs
            (_, Opcode::Trap | Opcode::Unreachable) => {}
            (
                _,
                Opcode::Call
                | Opcode::CallIndirect
                | Opcode::TryCall
                | Opcode::TryCallIndirect
                | Opcode::CatchCall
                | Opcode::CatchCallIndirect
                | Opcode::AtomicLoad
                | Opcode::AtomicStore
                | Opcode::AtomicRmw
                | Opcode::AtomicCas
                | Opcode::Fence,
            ) => e.escaping = true,
            _ => e.anything = true,
        }
        e
    }

    /// Whether access `a` is within its stack slot (`None`: not known, or not in a
    /// slot).
    pub fn in_bounds(&self, a: &Access) -> Option<bool> {
        let Base::Slot(s) = a.addr.base else {
            return None;
        };
        let (offset, size) = (a.addr.offset?, a.size?);
        if size == 0 {
            return Some(true);
        }
        let slot = self.slot_data.get(s)?;
        Some(offset >= 0 && offset as i128 + size as i128 <= slot.size as i128)
    }

    /// Whether access `a` at an offset that is not known stays within its stack slot
    /// all the same: its address is the slot's plus indices whose unsigned ranges
    /// (`known.rs`) keep every byte inside (`table[x & 3]` in a table of four).
    pub fn indexed_in_bounds(&self, g: &Rvsdg, a: &Access) -> bool {
        let Base::Slot(s) = a.addr.base else {
            return false;
        };
        let (Some(size), Some(slot)) = (a.size, self.slot_data.get(s)) else {
            return false;
        };
        offset_range(g, a.ptr, 4).is_some_and(|(lo, hi)| {
            lo + a.imm as i128 >= 0 && hi + a.imm as i128 + size as i128 <= slot.size as i128
        })
    }

    /// The stack slot that `a` is in, if it does not escape (and the stack slot rules
    /// hold).
    pub fn private_slot(&self, a: &Access) -> Option<StackSlot> {
        match a.addr.base {
            Base::Slot(s) if self.slots_trusted && !self.escaped.contains(&s) => Some(s),
            _ => None,
        }
    }

    /// Whether the λ makes no access at a known offset out of its stack slot's bounds
    /// (which Rust's provenance rules forbid, and the interpreter's one stack region
    /// lets reach another object).
    pub fn slots_trusted(&self) -> bool {
        self.slots_trusted
    }

    /// Whether access `a` to a private stack slot, promising alignment `align`, can
    /// be misaligned: the slot's alignment does not give it, or its offset is not a
    /// known multiple of `align` (known, or made of indices whose low bits are).
    /// (Out of bounds it is not: at a known offset the slot rules would not hold, at
    /// an unknown one it would break provenance.)
    pub fn may_misalign(&self, g: &Rvsdg, a: &Access, align: u32) -> bool {
        if align <= 1 {
            return false;
        }
        let Base::Slot(s) = a.addr.base else {
            return true;
        };
        if self.slot(s).is_none_or(|d| d.align < align) {
            return true;
        }
        match a.addr.offset {
            Some(o) => o.rem_euclid(align as i64) != 0,
            // an index whose low bits are known zero (`table[x & 3]` of 8-byte
            // elements): a multiple of the alignment from an aligned place
            None => {
                (a.imm.rem_euclid(align as i64) != 0)
                    || offset_low_zero_bits(g, a.ptr, 4) < align.trailing_zeros()
            }
        }
    }

    pub fn slot(&self, s: StackSlot) -> Option<&StackSlotData> {
        self.slot_data.get(s)
    }

    /// How far `b` starts after `a` (modulo 2^64), when known.
    pub fn distance(a: &Access, b: &Access) -> Option<u64> {
        if a.addr.base == b.addr.base
            && let (Some(x), Some(y)) = (a.addr.offset, b.addr.offset)
        {
            return Some(y.wrapping_sub(x) as u64);
        }
        (a.ptr == b.ptr).then(|| b.imm.wrapping_sub(a.imm) as u64)
    }

    /// How far into `outer` the bytes of `inner` start, when they are all within it.
    pub fn within(outer: &Access, inner: &Access) -> Option<u64> {
        let d = Self::distance(outer, inner)?;
        let end = d.checked_add(inner.size?)?;
        (end <= outer.size?).then_some(d)
    }

    /// Whether `a` and `b` are the same bytes.
    pub fn same(a: &Access, b: &Access) -> bool {
        Self::distance(a, b) == Some(0) && a.size.is_some() && a.size == b.size
    }

    /// Whether `a` and `b` cannot touch a common byte.
    pub fn disjoint(&self, a: &Access, b: &Access) -> bool {
        if a.size == Some(0) || b.size == Some(0) {
            return true;
        }
        if let Some(d) = Self::distance(a, b) {
            // b starts d bytes after a, a starts 2^64 - d bytes after b
            return match (a.size, b.size) {
                (Some(sa), Some(sb)) => {
                    d as u128 >= sa as u128 && (1u128 << 64) - d as u128 >= sb as u128
                }
                _ => false,
            };
        }
        if !self.slots_trusted {
            return false;
        }
        match (a.addr.base, b.addr.base) {
            (Base::Slot(x), Base::Slot(y)) => x != y,
            (Base::Slot(x), _) | (_, Base::Slot(x)) => !self.escaped.contains(&x),
            _ => false,
        }
    }

    /// Whether node effects `e` leave the bytes of `a` alone (they may still read
    /// them).
    pub fn preserves(&self, e: &Effects, a: &Access) -> bool {
        !e.anything
            && (!e.escaping || self.private_slot(a).is_some())
            && e.writes.iter().all(|w| self.disjoint(a, w))
    }
}

#[cfg(test)]
mod tests {
    use super::{Access, Analysis};
    use crate::graph::Origin;
    use crate::opt::memory::{Addr, Base};
    use crate::text::parse_graph;

    /// The analysis of a λ with two slots, `ss0` (16 bytes) and `ss1` (8), whose
    /// second argument is a pointer.
    fn analysis() -> (crate::ops::Rvsdg, Analysis) {
        let g = parse_graph(
            "lambda @f(i64, ptr) -> i64 {\n\
                 ss0 = stack_slot 16, align 8\n\
                 ss1 = stack_slot 8, align 8\n\
               (a0: i64, a1: ptr, a2: mem, a3: io):\n\
                 -> (a0, a2, a3)\n\
             }\n",
        )
        .expect("parses");
        let l = g.lambdas()[0];
        let a = Analysis::of_lambda(&g, l);
        (g, a)
    }

    fn at(base: Base, offset: Option<i64>, ptr: Origin, size: u64) -> Access {
        Access {
            ptr,
            imm: 0,
            addr: Addr { base, offset },
            size: Some(size),
        }
    }

    #[test]
    fn disjoint_ranges_wrap_around() {
        let (g, a) = analysis();
        let body = g.lambda_body(g.lambdas()[0]);
        let p = Origin::Arg(body, 1);
        let v = Base::Value(p);
        // [-4, 4) and [0, 8) meet; [-8, 0) and [0, 8) do not
        assert!(!a.disjoint(&at(v, Some(-4), p, 8), &at(v, Some(0), p, 8)));
        assert!(a.disjoint(&at(v, Some(-8), p, 8), &at(v, Some(0), p, 8)));
        // offsets on both sides of the i64 boundary, 4 apart (distances wrap)
        assert!(a.disjoint(
            &at(v, Some(i64::MAX), p, 4),
            &at(v, Some(i64::MIN + 3), p, 4)
        ));
        // [-2, 2) and [1, 5) meet across offset 0
        assert!(!a.disjoint(&at(v, Some(-2), p, 4), &at(v, Some(1), p, 4)));
        // unknown offsets from one base: not known apart
        assert!(!a.disjoint(&at(v, None, p, 1), &at(v, Some(100), p, 1)));
        // zero bytes touch nothing
        assert!(a.disjoint(&at(v, None, p, 0), &at(v, None, p, 8)));
    }

    #[test]
    fn slots_are_apart_from_each_other_and_from_other_pointers() {
        let (g, a) = analysis();
        let body = g.lambda_body(g.lambdas()[0]);
        // two pointer values (which they are does not matter but to `same`)
        let (p, q) = (Origin::Arg(body, 1), Origin::Arg(body, 0));
        let (s0, s1) = (
            Base::Slot(vliw_ir::StackSlot::from_u32(0)),
            Base::Slot(vliw_ir::StackSlot::from_u32(1)),
        );
        assert!(a.disjoint(&at(s0, None, p, 8), &at(s1, None, q, 8)));
        // neither slot escapes: a parameter cannot point into them
        assert!(a.disjoint(&at(s0, Some(0), q, 8), &at(Base::Value(p), Some(0), p, 8)));
        assert!(!a.disjoint(&at(s0, None, p, 8), &at(s0, Some(8), q, 8)));
        assert!(Analysis::same(
            &at(s0, Some(8), p, 8),
            &at(s0, Some(8), q, 8)
        ));
        assert_eq!(
            Analysis::within(&at(s0, Some(0), p, 16), &at(s0, Some(12), q, 4)),
            Some(12)
        );
        assert_eq!(
            Analysis::within(&at(s0, Some(0), p, 16), &at(s0, Some(14), q, 4)),
            None
        );
    }
}

/// The offsets from its slot's start that pointer `p` may have: a `stack_addr` is
/// at its own, `ptradd q, i` at `q`'s plus `i`'s unsigned range (`i` as an index,
/// below the sign bit). At most `depth` additions back.
fn offset_range(g: &Rvsdg, p: Origin, depth: u32) -> Option<(i128, i128)> {
    let n = g.producer(p)?;
    match g.op(n)? {
        Op::Inst(InstructionData::StackAddr { offset, .. }) => {
            Some((*offset as i128, *offset as i128))
        }
        Op::Inst(InstructionData::Binary {
            opcode: Opcode::Ptradd,
            ..
        }) => {
            let (lo, hi) = offset_range(g, g.input(n, 0), depth.checked_sub(1)?)?;
            let i = g.input(n, 1);
            let (ilo, ihi) = unsigned_range(g, i, 8)?;
            let ty = g.ty(i).value()?;
            if ihi >= 1u128 << (ty.bits() - 1) {
                return None;
            }
            Some((lo + ilo as i128, hi + ihi as i128))
        }
        _ => None,
    }
}

/// How many low bits of pointer `p`'s offset from its slot's start are known to be
/// zero: a `stack_addr`'s offset's, `ptradd q, i` the fewer of `q`'s and `i`'s. At
/// most `depth` additions back.
fn offset_low_zero_bits(g: &Rvsdg, p: Origin, depth: u32) -> u32 {
    let Some(n) = g.producer(p) else {
        return 0;
    };
    match g.op(n) {
        Some(Op::Inst(InstructionData::StackAddr { offset, .. })) => {
            offset.trailing_zeros().min(64)
        }
        Some(Op::Inst(InstructionData::Binary {
            opcode: Opcode::Ptradd,
            ..
        })) => match depth.checked_sub(1) {
            Some(d) => {
                offset_low_zero_bits(g, g.input(n, 0), d).min(low_zero_bits(g, g.input(n, 1), 8))
            }
            None => 0,
        },
        _ => 0,
    }
}
