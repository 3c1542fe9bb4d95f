//! Copies of read-only data read in place: a private stack slot whose only writes
//! are copies of one whole read-only data object (`memcpy` of the slot's size from
//! offset 0 of the symbol) always holds that object's bytes, or bytes never written
//! (which Rust never reads), so every read of the slot may read the object instead;
//! its `stack_addr`s become `symbol_addr`s of the object at the same offset and the
//! copies go (`memory.constant-copies`, `memory.constant-copies-removed`).
//!
//! This is what indexing a `const` array makes: rustc's MIR copies the constant into
//! a local (`_5 = const K; _6 = _5[i]`) wherever it is indexed, so SHA-256's round
//! loop copied its 256-byte table to the stack in every round, more than half of the
//! program's cycles. LLVM folds the same pattern (a load from a `memcpy` of a
//! constant global reads the global).
//!
//! Conditions, each needed:
//! - the slot does not escape ([`Analysis::private_slot`]: only the λ's own accesses
//!   through its `stack_addr`s reach it) and the stack slot rules hold;
//! - no simple node of the λ has effects the analysis does not know;
//! - every write to the slot is a `memcpy` (not `memmove`, `memset` or a store) of
//!   exactly the slot's size to its offset 0, from offset 0 of the same symbol;
//! - the symbol is a read-only data object of the module (not thread-local) at least
//!   as large as the slot and at least as aligned (the loads' alignment promises,
//!   made for the slot, then hold for the object).
//!
//! The copies cannot trap (different objects, in bounds), so removing them changes
//! nothing else.

use rustc_hash::FxHashMap;
use vliw_ir::{GlobalRef, InstructionData, Opcode, StackSlot};

use super::access::Analysis;
use super::address::Base;
use crate::graph::{Node, NodeKind};
use crate::module::ReadOnlyData;
use crate::ops::{Op, Rvsdg};

/// What [`read_in_place`] did.
#[derive(Copy, Clone, Debug, Default)]
pub struct Counts {
    /// Slots now read in place.
    pub slots: usize,
    /// Copies removed.
    pub copies: usize,
}

/// Makes the reads of λ `l`'s stack copies of read-only data read the data (see the
/// module documentation); `a` is the λ's analysis, stale afterwards when a slot was
/// rewritten.
pub fn read_in_place(
    g: &mut Rvsdg,
    l: Node,
    a: &Analysis,
    read_only: &ReadOnlyData,
    counts: &mut Counts,
) -> bool {
    if !a.slots_trusted() || read_only.is_empty() {
        return false;
    }
    // per private slot written: the symbol every write copies, or `None`
    let mut source: FxHashMap<StackSlot, Option<GlobalRef>> = FxHashMap::default();
    let mut copies: FxHashMap<StackSlot, Vec<Node>> = FxHashMap::default();
    let mut stack_addrs: Vec<Node> = Vec::new();
    let shell = g.lambda_info(l);
    for r in g.regions_below(g.lambda_body(l)) {
        for &n in g.nodes(r) {
            let Some(Op::Inst(data)) = g.op(n) else {
                continue;
            };
            if matches!(data, InstructionData::StackAddr { .. }) {
                stack_addrs.push(n);
            }
            let e = a.effects(g, n);
            if e.anything {
                return false;
            }
            for w in &e.writes {
                let Some(s) = a.private_slot(w) else {
                    continue;
                };
                let copied = (data.opcode() == Opcode::Memcpy)
                    .then(|| whole_copy(a, &e, s, shell, read_only))
                    .flatten();
                let entry = source.entry(s).or_insert(copied);
                if *entry != copied {
                    *entry = None;
                }
                copies.entry(s).or_default().push(n);
            }
        }
    }
    let rewritten: FxHashMap<StackSlot, GlobalRef> = source
        .into_iter()
        .filter_map(|(s, gv)| gv.map(|gv| (s, gv)))
        .collect();
    if rewritten.is_empty() {
        return false;
    }
    for n in stack_addrs {
        let NodeKind::Simple(Op::Inst(InstructionData::StackAddr { slot, offset, .. })) =
            *g.kind(n)
        else {
            continue;
        };
        if let Some(&global) = rewritten.get(&slot) {
            *g.kind_mut(n) = NodeKind::Simple(Op::Inst(InstructionData::SymbolAddr {
                opcode: Opcode::SymbolAddr,
                global,
                offset,
            }));
        }
    }
    for s in rewritten.keys() {
        counts.slots += 1;
        for &n in &copies[s] {
            let removed = super::remove_memory_node(g, n);
            debug_assert!(removed, "a memcpy takes and gives the memory state");
            counts.copies += 1;
        }
    }
    true
}

/// The symbol that `memcpy` effects `e` copy whole into slot `s`, when they do: the
/// slot's size from offset 0 of a large and aligned enough read-only object to the
/// slot's offset 0.
fn whole_copy(
    a: &Analysis,
    e: &super::access::Effects,
    s: StackSlot,
    shell: &vliw_ir::Function,
    read_only: &ReadOnlyData,
) -> Option<GlobalRef> {
    let slot = a.slot(s)?;
    let size = slot.size as u64;
    let ([w], [r]) = (&e.writes[..], &e.reads[..]) else {
        return None;
    };
    if w.addr.offset != Some(0) || w.size != Some(size) || r.size != Some(size) {
        return None;
    }
    let (Base::Symbol(gv), Some(0)) = (r.addr.base, r.addr.offset) else {
        return None;
    };
    let object = read_only.get(shell.globals.get(gv)?)?;
    (object.size >= size && object.align >= slot.align as u64).then_some(gv)
}
