//! Loads of read-only data at known offsets are constants: a plain load whose address
//! is a read-only data object of the module (not thread-local) at a known offset,
//! with every byte it reads in the object and none under a relocation, is the value
//! those bytes make, little-endian (`memory.constant-loads`).
//!
//! rustc materializes constants of aggregate type as constant allocations and loads
//! their fields (`None` of an `Option<u32>` is two `i32` loads from one), and after
//! `constant_copies.rs` a `const` array indexed at a known position is one too. LLVM
//! folds a load from a constant global the same way.
//!
//! The load cannot trap: the object is mapped and readable, and its alignment
//! promise is checked against the object's alignment and the offset (a misaligned
//! load would fault; such a load stays). Volatile loads stay.

use vliw_ir::{InstructionData, Opcode, Type};

use super::access::Analysis;
use super::address::Base;
use crate::graph::{Node, Origin};
use crate::module::ReadOnlyData;
use crate::ops::{Op, Rvsdg, Ty};

/// Replaces the loads of read-only data of λ `l` by constants (see the module
/// documentation); how many.
pub fn fold_loads(g: &mut Rvsdg, l: Node, a: &Analysis, read_only: &ReadOnlyData) -> usize {
    if read_only.is_empty() {
        return 0;
    }
    let shell = g.lambda_info(l);
    let mut found: Vec<(Node, Type, u128)> = Vec::new();
    for r in g.regions_below(g.lambda_body(l)) {
        for &n in g.nodes(r) {
            let Some(Op::Inst(InstructionData::Load {
                opcode: Opcode::Load,
                flags,
                offset,
                ..
            })) = g.op(n)
            else {
                continue;
            };
            if flags.volatile {
                continue;
            }
            let Some(&ptr) = g.inputs(n).first() else {
                continue;
            };
            let Some(Ty::Val(ty)) = g.outputs(n).next().map(|o| g.ty(o)) else {
                continue;
            };
            if !matches!(
                ty,
                Type::I8 | Type::I16 | Type::I32 | Type::I64 | Type::F32 | Type::F64
            ) {
                continue;
            }
            let addr = a.addrs.get(ptr).plus(Some(*offset as i64));
            let (Base::Symbol(gv), Some(at)) = (addr.base, addr.offset) else {
                continue;
            };
            let Some(object) = shell.globals.get(gv).and_then(|name| read_only.get(name)) else {
                continue;
            };
            let size = ty.bytes() as u64;
            let align = flags.align.max(1) as u64;
            if align > object.align || at.rem_euclid(align as i64) != 0 {
                continue;
            }
            let Some(bytes) = object.known_bytes(at, size) else {
                continue;
            };
            let bits = bytes.iter().rev().fold(0u128, |v, &b| (v << 8) | b as u128);
            found.push((n, ty, bits));
        }
    }
    for &(n, ty, bits) in &found {
        let region = g.node(n).region;
        let opcode = match ty {
            Type::F32 => Opcode::F32const,
            Type::F64 => Opcode::F64const,
            _ => Opcode::Iconst,
        };
        let c = g.add_simple(
            region,
            Op::Inst(InstructionData::UnaryImm { opcode, imm: bits }),
            &[],
            &[Ty::Val(ty)],
        );
        g.divert_users(Origin::Out(n, 0), Origin::Out(c, 0));
        let removed = super::remove_memory_node(g, n);
        debug_assert!(removed, "a load takes and gives the memory state");
    }
    found.len()
}
