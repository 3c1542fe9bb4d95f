//! Pointer round trips (part of `rvsdg-memory`): a pointer that the ABI lowering
//! carried as an integer — `bitcast p : i64` before a γ or θ, `bitcast a : ptr` of
//! the argument inside — is the pointer itself inside, entering as its own entry or
//! invariant loop variable. A closure that captures `&mut rng` and is inlined into
//! `Iterator::fold` reads the generator's stack cell through such a pair: once the
//! pointer inside is `stack_addr` again, the address analysis sees which slot the
//! loop's loads and stores reach, and `rvsdg-promote` (run again after this) can carry
//! the cell in a register. When nothing else reads the integer, dead node
//! elimination removes it, and with it the slot's only escape.
//!
//! The integer is followed up through γ entry variables and θ loop variables that
//! the body passes through unchanged (a variable the loop changes is another value
//! in every iteration); the pointer goes down the same way, through new entry and
//! invariant loop variables. Counter: `memory.pointer-round-trips`.

use vliw_ir::{InstructionData, Opcode, Type};

use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};

/// How many region boundaries a round trip is followed across.
const MAX_DEPTH: usize = 16;

/// Replaces the pointer round trips of every λ of `g`; how many.
pub fn remove_pointer_round_trips(g: &mut Rvsdg) -> u64 {
    let mut count = 0;
    for l in g.lambdas() {
        let body = g.lambda_body(l);
        for r in g.regions_below(body) {
            for n in g.nodes(r).to_vec() {
                if !g.is_alive(n) || !is_bitcast(g, n, Type::I64, Ty::Val(Type::Ptr)) {
                    continue;
                }
                if let Some(p) = pointer_of(g, g.input(n, 0), r) {
                    g.divert_users(Origin::Out(n, 0), p);
                    count += 1;
                }
            }
        }
    }
    count
}

/// Whether `n` is `bitcast` from a value of type `from` to type `to`.
fn is_bitcast(g: &Rvsdg, n: Node, from: Type, to: Ty) -> bool {
    matches!(
        g.op(n),
        Some(Op::Inst(InstructionData::Unary {
            opcode: Opcode::Bitcast,
            ..
        }))
    ) && g.ty(g.input(n, 0)) == Ty::Val(from)
        && g.ty(Origin::Out(n, 0)) == to
}

/// The pointer that integer `x` of region `r` was made from by a `bitcast` in `r` or
/// in a region around it, brought into `r`.
fn pointer_of(g: &mut Rvsdg, x: Origin, r: Region) -> Option<Origin> {
    // up: the structural nodes crossed, each with the argument's index and region
    let mut path: Vec<(Node, Region)> = Vec::new();
    let mut t = x;
    let pointer = loop {
        if path.len() > MAX_DEPTH {
            return None;
        }
        match t {
            Origin::Out(n, 0) => {
                if !is_bitcast(g, n, Type::Ptr, Ty::Val(Type::I64)) {
                    return None;
                }
                break g.input(n, 0);
            }
            Origin::Out(..) => return None,
            Origin::Arg(region, i) => {
                let owner = g.owner(region)?;
                let outer = match g.kind(owner) {
                    NodeKind::Gamma { .. } => g.input(owner, i as usize + 1),
                    NodeKind::Theta { .. } => {
                        // only a variable the body passes through unchanged
                        if g.results(region)[i as usize + 1] != t {
                            return None;
                        }
                        g.input(owner, i as usize)
                    }
                    _ => return None,
                };
                path.push((owner, region));
                t = outer;
            }
        }
    };
    // down: the pointer through the same boundaries, outermost first
    let mut cur = pointer;
    for &(owner, region) in path.iter().rev() {
        cur = match g.kind(owner) {
            NodeKind::Gamma { arms } => {
                let k = arms.iter().position(|&a| a == region)?;
                g.add_gamma_entry(owner, cur)[k]
            }
            NodeKind::Theta { .. } => g.add_theta_var(owner, cur).0,
            _ => return None,
        };
    }
    debug_assert_eq!(g.origin_region(cur), r);
    Some(cur)
}
