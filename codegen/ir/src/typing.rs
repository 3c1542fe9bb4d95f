//! The typing rules of instructions: their result types computed from their operands
//! (shared by the builder, the parser and the verifier), and the rules their operands
//! must follow (shared by the verifier and the RVSDG's verifier, which types the same
//! operations without `Value`s).

use crate::entities::Value;
use crate::function::{Function, Signature};
use crate::instructions::{AtomicRmwOp, InstructionData, Opcode};
use crate::types::Type;
use rustc_hash::FxHashSet as HashSet;

/// A call's results; a `try_call`'s with its unwinding after them: whether the callee
/// unwound (`i1`), the exception (`ptr`) and the selector (`i32`).
fn with_unwinding(op: Opcode, mut returns: Vec<Type>) -> Vec<Type> {
    if op.is_try_call() {
        returns.extend([Type::I1, Type::Ptr, Type::I32]);
    }
    returns
}

/// The result types of an instruction, from its opcode, its operands' types (`vt`), the
/// function's references (for calls) and, for the opcodes with a type suffix
/// (`Opcode::has_type_suffix`), the controlling type `ctrl`. `None` when something needed
/// is unknown: a missing `ctrl`, an operand whose type `vt` does not know, an invalid
/// reference. This does not check operands; the verifier does.
pub fn result_types(
    func: &Function,
    data: &InstructionData,
    ctrl: Option<Type>,
    vt: &dyn Fn(Value) -> Option<Type>,
) -> Option<Vec<Type>> {
    let args = data.arguments();
    result_types_of(func, data, ctrl, &|i| args.get(i).and_then(|&v| vt(v)))
}

/// [`result_types`] with the operands' types given by position (`arg(i)` is the type of
/// operand `i`), for callers whose operands are not `Value`s.
pub fn result_types_of(
    func: &Function,
    data: &InstructionData,
    ctrl: Option<Type>,
    arg: &dyn Fn(usize) -> Option<Type>,
) -> Option<Vec<Type>> {
    use Opcode::*;
    let op = data.opcode();
    Some(match op {
        _ if op.has_type_suffix() => vec![ctrl?],
        F32const | Fdemote => vec![Type::F32],
        F64const | Fpromote => vec![Type::F64],
        SymbolAddr | TlsAddr | StackAddr | Ptradd => vec![Type::Ptr],
        Icmp | Fcmp => vec![Type::I1],
        UaddOverflow | SaddOverflow | UsubOverflow | SsubOverflow | UmulOverflow | SmulOverflow => {
            vec![arg(0)?, Type::I1]
        }
        Select => vec![arg(1)?],
        AtomicRmw => vec![arg(1)?],
        AtomicCas => vec![arg(1)?, Type::I1],
        Store | AtomicStore | Memcpy | Memmove | Memset | Fence => vec![],
        Jump | Brif | Switch | Return | Unreachable | Trap | Resume => vec![],
        LandingPad | CatchLandingPad => vec![Type::Ptr, Type::I32],
        Call | Invoke | TryCall | CatchCall => match data {
            InstructionData::Call { func: f, .. } | InstructionData::Invoke { func: f, .. } => {
                with_unwinding(op, func.ext_funcs.get(*f)?.signature.returns.clone())
            }
            _ => return None,
        },
        CallIndirect | InvokeIndirect | TryCallIndirect | CatchCallIndirect => match data {
            InstructionData::CallIndirect { sig, .. }
            | InstructionData::InvokeIndirect { sig, .. } => {
                with_unwinding(op, func.signatures.get(*sig)?.returns.clone())
            }
            _ => return None,
        },
        // Every other opcode (integer and float arithmetic, unary ops, fma) has the type
        // of its first operand.
        _ => vec![arg(0)?],
    })
}

/// The opcode's rules for the operands of `data` (docs/ir.md §3; results are compared
/// separately, with [`result_types`]): `arg_types[i]` is the type of operand `i`, `name(i)`
/// how messages call it; `ctrl` is the controlling type of the opcodes with a type
/// suffix; `func` holds the references and, for `return`, the signature.
pub fn operand_types(
    func: &Function,
    data: &InstructionData,
    ctrl: Option<Type>,
    arg_types: &[Type],
    name: &dyn Fn(usize) -> String,
) -> Result<(), String> {
    use Opcode::*;
    let op = data.opcode();
    let expected = data.arguments().len();
    if arg_types.len() != expected {
        return Err(format!(
            "{op} takes {expected} operand(s), {} given",
            arg_types.len()
        ));
    }
    let t = |i: usize| arg_types[i];
    let need = |cond: bool, msg: String| if cond { Ok(()) } else { Err(msg) };
    let same = |i: usize, j: usize| {
        need(
            t(i) == t(j),
            format!(
                "operands {} ({}) and {} ({}) differ in type",
                name(i),
                t(i),
                name(j),
                t(j)
            ),
        )
    };
    let is = |i: usize, ty: Type| {
        need(
            t(i) == ty,
            format!("{} has type {}, expected {ty}", name(i), t(i)),
        )
    };
    let int = |i: usize| {
        need(
            t(i).is_int(),
            format!("{} has type {}, expected an integer", name(i), t(i)),
        )
    };
    let float = |i: usize| {
        need(
            t(i).is_float(),
            format!("{} has type {}, expected a float", name(i), t(i)),
        )
    };
    let mem_ty = |ty: Type| need(ty.is_memory(), format!("{ty} cannot be loaded or stored"));
    let atomic_ty = |ty: Type| {
        need(
            matches!(ty, Type::I8 | Type::I16 | Type::I32 | Type::I64 | Type::Ptr),
            format!("{ty} is not an atomic type (i8, i16, i32, i64, ptr)"),
        )
    };
    let flags_ok = || match data.mem_flags() {
        Some(f) if f.align == 0 || !f.align.is_power_of_two() => {
            Err(format!("alignment {} is not a power of two", f.align))
        }
        _ => Ok(()),
    };
    let ctrl_ty = || ctrl.ok_or_else(|| format!("{op} must have one result"));
    match op {
        Iconst => {
            let ty = ctrl_ty()?;
            need(ty.is_int() || ty.is_ptr(), format!("iconst of type {ty}"))?;
            if let InstructionData::UnaryImm { imm, .. } = data {
                need(
                    *imm & !ty.mask() == 0,
                    format!("immediate {imm:#x} does not fit {ty}"),
                )?;
            }
            Ok(())
        }
        F32const | F64const => {
            if let InstructionData::UnaryImm { imm, .. } = data {
                let max = if op == F32const {
                    u32::MAX as u128
                } else {
                    u64::MAX as u128
                };
                need(*imm <= max, format!("bit pattern {imm:#x} too wide"))?;
            }
            Ok(())
        }
        Undef | SymbolAddr | TlsAddr | StackAddr | Fence | Jump | Unreachable | Trap => Ok(()),
        Iadd | Isub | Imul | Udiv | Sdiv | Urem | Srem | Umulhi | Smulhi | Band | Bor | Bxor
        | Smin | Smax | Umin | Umax | UaddOverflow | SaddOverflow | UsubOverflow | SsubOverflow
        | UmulOverflow | SmulOverflow => {
            int(0)?;
            same(0, 1)
        }
        Ishl | Ushr | Sshr | Rotl | Rotr => {
            int(0)?;
            int(1)
        }
        Ineg | Bnot | Clz | Ctz | Popcnt | Bitrev | Iabs => int(0),
        Bswap => {
            int(0)?;
            need(
                t(0).bits() % 16 == 0,
                format!("bswap of {} (needs a multiple of 16 bits)", t(0)),
            )
        }
        Icmp => {
            need(t(0).is_int() || t(0).is_ptr(), format!("icmp of {}", t(0)))?;
            same(0, 1)
        }
        Fcmp => {
            float(0)?;
            same(0, 1)
        }
        Select => {
            is(0, Type::I1)?;
            same(1, 2)
        }
        Ptradd => {
            is(0, Type::Ptr)?;
            is(1, Type::I64)
        }
        Uextend | Sextend => {
            let to = ctrl_ty()?;
            int(0)?;
            need(
                to.is_int() && to.bits() > t(0).bits(),
                format!("{op} from {} to {to}", t(0)),
            )
        }
        Ireduce => {
            let to = ctrl_ty()?;
            int(0)?;
            need(
                to.is_int() && to.bits() < t(0).bits(),
                format!("ireduce from {} to {to}", t(0)),
            )
        }
        Fpromote => is(0, Type::F32),
        Fdemote => is(0, Type::F64),
        FcvtToUintSat | FcvtToSintSat => {
            let to = ctrl_ty()?;
            float(0)?;
            need(to.is_int() && to != Type::I1, format!("{op} to {to}"))
        }
        FcvtFromUint | FcvtFromSint => {
            let to = ctrl_ty()?;
            need(
                t(0).is_int() && t(0) != Type::I1,
                format!("{op} from {}", t(0)),
            )?;
            need(to.is_float(), format!("{op} to {to}"))
        }
        Bitcast => {
            let to = ctrl_ty()?;
            need(
                to.bits() == t(0).bits(),
                format!("bitcast from {} to {to} changes the size", t(0)),
            )
        }
        Fadd | Fsub | Fmul | Fdiv | Frem | Fcopysign | Fmin | Fmax => {
            float(0)?;
            same(0, 1)
        }
        Fneg | Fabs | Sqrt | Floor | Ceil | Trunc | Nearest | Round => float(0),
        Fma => {
            float(0)?;
            same(0, 1)?;
            same(0, 2)
        }
        Load => {
            flags_ok()?;
            is(0, Type::Ptr)?;
            mem_ty(ctrl_ty()?)
        }
        Store => {
            flags_ok()?;
            is(1, Type::Ptr)?;
            mem_ty(t(0))
        }
        Memcpy | Memmove => {
            is(0, Type::Ptr)?;
            is(1, Type::Ptr)?;
            is(2, Type::I64)
        }
        Memset => {
            is(0, Type::Ptr)?;
            is(1, Type::I8)?;
            is(2, Type::I64)
        }
        AtomicLoad => {
            flags_ok()?;
            is(0, Type::Ptr)?;
            atomic_ty(ctrl_ty()?)
        }
        AtomicStore => {
            flags_ok()?;
            is(1, Type::Ptr)?;
            atomic_ty(t(0))
        }
        AtomicRmw => {
            flags_ok()?;
            is(0, Type::Ptr)?;
            atomic_ty(t(1))?;
            if let InstructionData::AtomicRmw { op: rmw, .. } = data
                && *rmw != AtomicRmwOp::Xchg
            {
                int(1)?;
            }
            Ok(())
        }
        AtomicCas => {
            flags_ok()?;
            is(0, Type::Ptr)?;
            atomic_ty(t(1))?;
            same(1, 2)
        }
        Call | Invoke | TryCall | CatchCall => {
            let (InstructionData::Call { func: f, .. } | InstructionData::Invoke { func: f, .. }) =
                data
            else {
                unreachable!("call and invoke have their formats")
            };
            let ext = func
                .ext_funcs
                .get(*f)
                .ok_or_else(|| format!("{f} is not declared"))?;
            call_args(&ext.signature, arg_types, 0, name)
        }
        LandingPad | CatchLandingPad => Ok(()),
        Resume => is(0, Type::Ptr),
        CallIndirect | InvokeIndirect | TryCallIndirect | CatchCallIndirect => {
            let (InstructionData::CallIndirect { sig, .. }
            | InstructionData::InvokeIndirect { sig, .. }) = data
            else {
                unreachable!("call_indirect and invoke_indirect have their formats")
            };
            let s = func
                .signatures
                .get(*sig)
                .ok_or_else(|| format!("{sig} is not declared"))?;
            is(0, Type::Ptr)?;
            call_args(s, &arg_types[1..], 1, name)
        }
        Brif => is(0, Type::I1),
        Switch => {
            int(0)?;
            let InstructionData::Switch { table, .. } = data else {
                unreachable!("switch has the switch format")
            };
            let mask = t(0).mask();
            let mut seen = HashSet::default();
            for &v in &table.values {
                need(
                    v & !mask == 0,
                    format!("case value {v:#x} does not fit {}", t(0)),
                )?;
                need(seen.insert(v), format!("duplicate case value {v:#x}"))?;
            }
            need(
                table.dests.len() == table.values.len() + 1,
                "malformed switch table".into(),
            )
        }
        Return => {
            let rets = &func.signature.returns;
            need(
                arg_types == rets.as_slice(),
                format!(
                    "returns ({}), the signature returns ({})",
                    types_list(arg_types),
                    types_list(rets)
                ),
            )
        }
    }
}

/// The arguments of a call (operands `first..` of the instruction, of types `args`)
/// against the callee's signature.
fn call_args(
    sig: &Signature,
    args: &[Type],
    first: usize,
    name: &dyn Fn(usize) -> String,
) -> Result<(), String> {
    let n = sig.params.len();
    if args.len() < n || (!sig.variadic && args.len() != n) {
        return Err(format!(
            "{} argument(s) given, the signature {sig} takes {n}",
            args.len()
        ));
    }
    for (i, (&a, &p)) in args.iter().zip(&sig.params).enumerate() {
        if a != p {
            return Err(format!(
                "argument {i} ({}) has type {a}, the signature {sig} expects {p}",
                name(first + i)
            ));
        }
    }
    Ok(())
}

/// `i32, ptr`: a list of types as messages write it.
pub fn types_list(ts: &[Type]) -> String {
    ts.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ")
}
