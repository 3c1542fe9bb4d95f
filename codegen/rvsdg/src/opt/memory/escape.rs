//! Which stack slots escape: a slot whose address goes anywhere but into the address
//! operand of a plain or volatile load, store, `memcpy`, `memmove` or `memset` of the
//! λ (through `ptradd`, γ entry and exit variables and θ loop variables that stay
//! within the slot, [`Addresses`]) escapes — stored, passed to a call, returned,
//! compared, converted to an integer, selected, given to an atomic operation, or
//! merged with a pointer into something else. A slot that does not escape is only
//! ever accessed through pointers derived from its `stack_addr`s, which the analysis
//! knows by their base: no other pointer (a parameter, a loaded pointer, a call's
//! result) may point into it, and no callee, other thread or later activation can
//! see it. The same test tells whether a `noalias` parameter's pointers escape
//! ([`noalias_params`], for `rvsdg-mem-split`).

use rustc_hash::FxHashSet;
use vliw_ir::{InstructionData, Opcode, StackSlot};

use super::address::{Addresses, Base};
use crate::graph::{Node, NodeKind, Origin, Region, User};
use crate::ops::{Op, Rvsdg};

/// The slots of λ `l` whose address escapes.
pub fn escaped_slots(g: &Rvsdg, l: Node, addrs: &Addresses) -> FxHashSet<StackSlot> {
    let mut escaped = FxHashSet::default();
    for r in g.regions_below(g.lambda_body(l)) {
        let origins = g
            .arg_origins(r)
            .chain(g.nodes(r).iter().flat_map(|&n| g.outputs(n)));
        for o in origins {
            let Base::Slot(s) = addrs.get(o).base else {
                continue;
            };
            if escaped.contains(&s) {
                continue;
            }
            if g.users(o)
                .iter()
                .any(|&u| !stays(g, addrs, Base::Slot(s), u))
            {
                escaped.insert(s);
            }
        }
    }
    escaped
}

/// Whether a pointer of base `base` (a λ parameter's, `Base::Value` of an argument of
/// `body`, the λ's body) escapes as a slot does: whether any pointer derived from it
/// is used but as the address of a plain or volatile access (or to derive another).
pub(super) fn escapes(g: &Rvsdg, body: Region, addrs: &Addresses, base: Base) -> bool {
    g.regions_below(body).into_iter().any(|r| {
        g.arg_origins(r)
            .chain(g.nodes(r).iter().flat_map(|&n| g.outputs(n)))
            .any(|o| {
                addrs.get(o).base == base && g.users(o).iter().any(|&u| !stays(g, addrs, base, u))
            })
    })
}

/// The uses through which the address of each stack slot escapes the λ whose body
/// is `body`: every use of a pointer derived from it that is not the address of a
/// plain or volatile access (or the derivation of another). One walk of the λ.
pub fn slot_captures(
    g: &Rvsdg,
    body: Region,
    addrs: &Addresses,
) -> rustc_hash::FxHashMap<StackSlot, Vec<User>> {
    let mut found: rustc_hash::FxHashMap<StackSlot, Vec<User>> = Default::default();
    for r in g.regions_below(body) {
        let origins = g
            .arg_origins(r)
            .chain(g.nodes(r).iter().flat_map(|&n| g.outputs(n)));
        for o in origins {
            let base = addrs.get(o).base;
            let Base::Slot(s) = base else {
                continue;
            };
            let escaping = g
                .users(o)
                .iter()
                .copied()
                .filter(|&u| !stays(g, addrs, base, u));
            found.entry(s).or_default().extend(escaping);
        }
    }
    found
}

/// The `noalias` pointer parameters of λ `l` whose pointers do not escape ([`escapes`]),
/// as bases: while the λ runs, nothing but the accesses through them reaches the
/// memory they access (the attribute's contract; no callee gets a pointer derived
/// from them).
pub fn noalias_params(g: &Rvsdg, l: Node, addrs: &Addresses) -> Vec<Base> {
    noalias_pointer_params(g, l, addrs, false)
}

/// The `noalias` pointer parameters of λ `l`, as bases, whose pointers escape or
/// not as `escaping` asks.
fn noalias_pointer_params(g: &Rvsdg, l: Node, addrs: &Addresses, escaping: bool) -> Vec<Base> {
    let info = g.lambda_info(l);
    let body = g.lambda_body(l);
    (0..info.signature.params.len())
        .filter(|&i| info.param_attrs(i).noalias && info.signature.params[i] == vliw_ir::Type::Ptr)
        .map(|i| Base::Value(Origin::Arg(body, i as u32)))
        .filter(|&b| escapes(g, body, addrs, b) == escaping)
        .collect()
}

/// The `noalias` pointer parameters of λ `l` whose pointers escape ([`escapes`]), as
/// bases. The attribute's contract still holds for them: while the λ runs, the memory
/// accessed through a pointer derived from one is accessed through no pointer that is
/// not derived from it. What the λ cannot see is where the escaped pointers go (a
/// callee, memory, an integer): any access the analysis does not attribute to a
/// location, and any call, may use one. So such a parameter gets a location of its
/// own that everything touching *other* touches too (`rvsdg-mem-split`): its direct
/// accesses are then apart from those of the other locations only.
pub fn escaping_noalias_params(g: &Rvsdg, l: Node, addrs: &Addresses) -> Vec<Base> {
    noalias_pointer_params(g, l, addrs, true)
}

/// Whether use `u` of a pointer of base `base` (a slot's, a parameter's) keeps the
/// address to the λ's own accesses.
fn stays(g: &Rvsdg, addrs: &Addresses, base: Base, u: User) -> bool {
    let within = |o: Origin| addrs.get(o).base == base;
    match u {
        User::In(n, i) => match g.kind(n) {
            NodeKind::Simple(Op::Inst(data)) => match (data, i) {
                // the address of an access
                (InstructionData::Load { opcode, .. }, 0) => *opcode == Opcode::Load,
                (InstructionData::Store { opcode, .. }, 1) => *opcode == Opcode::Store,
                (InstructionData::Ternary { opcode, .. }, 0 | 1) => {
                    matches!(opcode, Opcode::Memcpy | Opcode::Memmove)
                        || (*opcode == Opcode::Memset && i == 0)
                }
                // the pointer of a `ptradd`, whose result is in the slot too
                (
                    InstructionData::Binary {
                        opcode: Opcode::Ptradd,
                        ..
                    },
                    0,
                ) => within(Origin::Out(n, 0)),
                // the address as an integer that is only compared (a slice iterator's
                // `ptr == end`): a compare's boolean rebuilds no pointer
                (
                    InstructionData::Unary {
                        opcode: Opcode::Bitcast,
                        ..
                    },
                    0,
                ) => g.users(Origin::Out(n, 0)).iter().all(|&c| {
                    matches!(c, User::In(m, _)
                        if matches!(g.op(m), Some(Op::Inst(InstructionData::IntCompare { .. }))))
                }),
                _ => false,
            },
            NodeKind::Simple(_) => false,
            // every arm's argument is the entry's input
            NodeKind::Gamma { arms } => {
                i >= 1 && arms.iter().all(|&a| within(Origin::Arg(a, i - 1)))
            }
            NodeKind::Theta { body } => within(Origin::Arg(*body, i)),
            NodeKind::Lambda { .. } => false,
        },
        User::Res(r, i) => match g.owner(r).map(|n| (n, g.kind(n))) {
            Some((n, NodeKind::Gamma { .. })) => within(Origin::Out(n, i)),
            Some((_, NodeKind::Theta { .. })) => i >= 1 && within(Origin::Arg(r, i - 1)),
            // returned
            _ => false,
        },
    }
}
