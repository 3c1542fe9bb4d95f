//! The meaning of the SSA IR's operations on bit patterns (`docs/ir.md` §3), defined
//! once for everything that runs or folds them: the interpreter, the RVSDG's evaluator
//! and constant folders.
//!
//! A value is the bit pattern of its type, zero-extended to a `u128`. [`eval_pure`]
//! computes the operations whose results depend on their operands only (constants,
//! arithmetic, comparisons, conversions, `select`, `fma`; divisions may trap);
//! [`eval`] also the memory accesses (loads, stores, `memcpy memmove memset`,
//! atomics, `fence`) on a [`Memory`]. What needs a running function's context (the
//! addresses of symbols and stack slots, calls, control flow) is the caller's.

use crate::instructions::{AtomicRmwOp, FloatCC, InstructionData, IntCC, MemFlags, Opcode};
use crate::interpreter::{Trap, TrapKind};
use crate::memory::Memory;
use crate::types::Type;

/// The results of an operation: at most two (the overflow operations and
/// `atomic_cas`); `None` past the last.
pub type Results = [Option<u128>; 2];

/// Evaluate an operation without memory: `args` are the operands' bits (as many as
/// `data.arguments()`, whose `Value`s are not read), `arg_types` their types,
/// `result_types` the types of the results (the first gives the type of constants,
/// conversions and loads). Anything else than a pure operation is `Malformed`.
pub fn eval_pure(
    data: &InstructionData,
    arg_types: &[Type],
    args: &[u128],
    result_types: &[Type],
) -> Result<Results, Trap> {
    check_operands(data, arg_types, args)?;
    let rty = || result_types.first().copied().unwrap_or(Type::I64);
    let val = |i: usize| args[i];
    let vty = |i: usize| arg_types[i];
    Ok(match data {
        InstructionData::Nullary {
            opcode: Opcode::Undef,
        } => [Some(0), None],
        InstructionData::UnaryImm { imm, .. } => [Some(*imm & rty().mask()), None],
        InstructionData::Unary { opcode, .. } => {
            [Some(unary(*opcode, vty(0), rty(), val(0))), None]
        }
        InstructionData::Binary { opcode, .. } => {
            match binary(*opcode, vty(0), val(0), val(1), vty(1))? {
                (r, None) => [Some(r), None],
                (r, Some(o)) => [Some(r), Some(o as u128)],
            }
        }
        InstructionData::Ternary {
            opcode: Opcode::Select,
            ..
        } => [Some(if val(0) & 1 != 0 { val(1) } else { val(2) }), None],
        InstructionData::Ternary {
            opcode: Opcode::Fma,
            ..
        } => {
            let (a, b, c) = (val(0), val(1), val(2));
            [
                Some(match vty(0) {
                    Type::F32 => f32_of(a).mul_add(f32_of(b), f32_of(c)).to_bits() as u128,
                    _ => f64_of(a).mul_add(f64_of(b), f64_of(c)).to_bits() as u128,
                }),
                None,
            ]
        }
        InstructionData::IntCompare { cond, .. } => {
            [Some(icmp(*cond, vty(0), val(0), val(1)) as u128), None]
        }
        InstructionData::FloatCompare { cond, .. } => {
            let (a, b) = if vty(0) == Type::F32 {
                (f32_of(val(0)) as f64, f32_of(val(1)) as f64)
            } else {
                (f64_of(val(0)), f64_of(val(1)))
            };
            [Some(fcmp(*cond, a, b) as u128), None]
        }
        _ => return Err(not_evaluated_here(data)),
    })
}

/// Evaluate an operation on values and `memory`: the pure ones as [`eval_pure`], and
/// the memory accesses, which trap on an access out of bounds, to read-only memory,
/// misaligned, or (`memcpy`) to overlapping ranges.
pub fn eval(
    memory: &mut Memory,
    data: &InstructionData,
    arg_types: &[Type],
    args: &[u128],
    result_types: &[Type],
) -> Result<Results, Trap> {
    check_operands(data, arg_types, args)?;
    let rty = || result_types.first().copied().unwrap_or(Type::I64);
    let val = |i: usize| args[i];
    let vty = |i: usize| arg_types[i];
    Ok(match data {
        InstructionData::Nullary {
            opcode: Opcode::Fence,
        } => [None, None],
        InstructionData::Ternary {
            opcode: opcode @ (Opcode::Memcpy | Opcode::Memmove),
            ..
        } => {
            let (dst, src, len) = (val(0) as u64, val(1) as u64, val(2) as u64);
            if len > 0 {
                let bytes = memory.read(src, len)?.to_vec();
                if *opcode == Opcode::Memcpy
                    && dst != src
                    && dst < src.wrapping_add(len)
                    && src < dst.wrapping_add(len)
                {
                    return Err(Trap::new(
                        TrapKind::Overlap,
                        format!("memcpy of overlapping ranges {dst:#x} and {src:#x} ({len} bytes)"),
                    ));
                }
                memory.write(dst, &bytes)?;
            }
            [None, None]
        }
        InstructionData::Ternary {
            opcode: Opcode::Memset,
            ..
        } => {
            let len = val(2) as u64;
            if len > 0 {
                memory.fill(val(0) as u64, val(1) as u8, len)?;
            }
            [None, None]
        }
        InstructionData::Load {
            opcode,
            flags,
            offset,
            ..
        } => {
            let ty = rty();
            let addr = (val(0) as u64).wrapping_add(*offset as i64 as u64);
            let loaded = check_align(addr, *flags, ty, *opcode == Opcode::AtomicLoad)
                .and_then(|()| memory.read_uint(addr, ty.bytes()));
            match loaded {
                Ok(v) => [Some(v), None],
                // a speculative load gives 0 where it would trap (the machine's `lds`)
                Err(_) if flags.speculative => [Some(0), None],
                Err(t) => return Err(t),
            }
        }
        InstructionData::Store {
            opcode,
            flags,
            offset,
            ..
        } => {
            let ty = vty(0);
            let addr = (val(1) as u64).wrapping_add(*offset as i64 as u64);
            check_align(addr, *flags, ty, *opcode == Opcode::AtomicStore)?;
            memory.write_uint(addr, ty.bytes(), val(0))?;
            [None, None]
        }
        InstructionData::AtomicRmw { flags, op, .. } => {
            let ty = vty(1);
            let addr = val(0) as u64;
            check_align(addr, *flags, ty, true)?;
            let old = memory.read_uint(addr, ty.bytes())?;
            let new = atomic_rmw(*op, ty, old, val(1));
            memory.write_uint(addr, ty.bytes(), new)?;
            [Some(old), None]
        }
        InstructionData::AtomicCas { flags, .. } => {
            let ty = vty(1);
            let addr = val(0) as u64;
            check_align(addr, *flags, ty, true)?;
            let old = memory.read_uint(addr, ty.bytes())?;
            let ok = old == val(1);
            if ok {
                memory.write_uint(addr, ty.bytes(), val(2))?;
            } else {
                // a failed compare-and-swap still needs write access
                memory.write_uint(addr, ty.bytes(), old)?;
            }
            [Some(old), Some(ok as u128)]
        }
        _ => return eval_pure(data, arg_types, args, result_types),
    })
}

/// As many operands and types as the operation reads.
fn check_operands(data: &InstructionData, arg_types: &[Type], args: &[u128]) -> Result<(), Trap> {
    let n = data.arguments().len();
    if args.len() < n || arg_types.len() < n {
        return Err(Trap::new(
            TrapKind::Malformed,
            format!("{} without its {n} operand(s)", data.opcode()),
        ));
    }
    Ok(())
}

/// The trap for an operation that [`eval`] does not define.
fn not_evaluated_here(data: &InstructionData) -> Trap {
    let message = match data {
        InstructionData::Nullary { .. } => "bad nullary".to_string(),
        InstructionData::Ternary { .. } => "bad ternary".to_string(),
        _ if data.opcode().is_terminator() => "unexpected control instruction".to_string(),
        _ => format!("{} needs the context of a running function", data.opcode()),
    };
    Trap::new(TrapKind::Malformed, message)
}

/// The value `atomic_rmw op` writes, from the old one and its operand.
fn atomic_rmw(op: AtomicRmwOp, ty: Type, old: u128, v: u128) -> u128 {
    let m = ty.mask();
    match op {
        AtomicRmwOp::Add => old.wrapping_add(v) & m,
        AtomicRmwOp::Sub => old.wrapping_sub(v) & m,
        AtomicRmwOp::And => old & v,
        AtomicRmwOp::Or => old | v,
        AtomicRmwOp::Xor => old ^ v,
        AtomicRmwOp::Nand => !(old & v) & m,
        AtomicRmwOp::Xchg => v,
        AtomicRmwOp::Umin => old.min(v),
        AtomicRmwOp::Umax => old.max(v),
        AtomicRmwOp::Smin => {
            if sext(ty, old) <= sext(ty, v) {
                old
            } else {
                v
            }
        }
        AtomicRmwOp::Smax => {
            if sext(ty, old) >= sext(ty, v) {
                old
            } else {
                v
            }
        }
    }
}

fn check_align(addr: u64, flags: MemFlags, ty: Type, atomic: bool) -> Result<(), Trap> {
    let align = if atomic {
        (ty.bytes() as u64).max(flags.align as u64)
    } else {
        flags.align as u64
    };
    if align > 1 && !addr.is_multiple_of(align) {
        return Err(Trap::new(
            TrapKind::Misaligned,
            format!("access at {addr:#x} is not {align}-byte aligned"),
        ));
    }
    Ok(())
}

/// Sign-extend the low `ty.bits()` bits.
fn sext(ty: Type, x: u128) -> i128 {
    let s = 128 - ty.bits();
    ((x << s) as i128) >> s
}

fn f32_of(x: u128) -> f32 {
    f32::from_bits(x as u32)
}

fn f64_of(x: u128) -> f64 {
    f64::from_bits(x as u64)
}

fn smin_of(w: u32) -> i128 {
    if w == 128 {
        i128::MIN
    } else {
        -(1i128 << (w - 1))
    }
}

fn smax_of(w: u32) -> i128 {
    if w == 128 {
        i128::MAX
    } else {
        (1i128 << (w - 1)) - 1
    }
}

/// High and low halves of the full 256-bit product of two u128.
fn mul_wide(a: u128, b: u128) -> (u128, u128) {
    let (a1, a0) = (a >> 64, a & u64::MAX as u128);
    let (b1, b0) = (b >> 64, b & u64::MAX as u128);
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 64) + (p01 & u64::MAX as u128) + (p10 & u64::MAX as u128);
    let lo = (p00 & u64::MAX as u128) | (mid << 64);
    let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (hi, lo)
}

fn binary(
    op: Opcode,
    ty: Type,
    a: u128,
    b: u128,
    bty: Type,
) -> Result<(u128, Option<bool>), crate::interpreter::Trap> {
    use Opcode::*;
    let w = ty.bits();
    let m = ty.mask();
    let (sa, sb) = (sext(ty, a), sext(ty, b));
    let div0 =
        || crate::interpreter::Trap::new(TrapKind::DivisionByZero, "integer division by zero");
    let ovf = || {
        crate::interpreter::Trap::new(
            TrapKind::IntegerOverflow,
            "signed division overflow (minimum / -1)",
        )
    };
    let amt = || ((b & bty.mask()) % w as u128) as u32;
    let fl32 = |f: fn(f32, f32) -> f32| f(f32_of(a), f32_of(b)).to_bits() as u128;
    let fl64 = |f: fn(f64, f64) -> f64| f(f64_of(a), f64_of(b)).to_bits() as u128;
    let fl = |g: fn(f32, f32) -> f32, h: fn(f64, f64) -> f64| {
        if ty == Type::F32 { fl32(g) } else { fl64(h) }
    };
    let in_srange = |x: i128| x >= smin_of(w) && x <= smax_of(w);
    Ok(match op {
        Iadd => (a.wrapping_add(b) & m, None),
        Isub => (a.wrapping_sub(b) & m, None),
        Imul => (a.wrapping_mul(b) & m, None),
        Udiv => (a.checked_div(b).ok_or_else(div0)?, None),
        Urem => (a.checked_rem(b).ok_or_else(div0)?, None),
        Sdiv | Srem => {
            if b == 0 {
                return Err(div0());
            }
            if sa == smin_of(w) && sb == -1 {
                return Err(ovf());
            }
            let r = if op == Sdiv {
                sa.wrapping_div(sb)
            } else {
                sa.wrapping_rem(sb)
            };
            (r as u128 & m, None)
        }
        Umulhi => {
            if w == 128 {
                (mul_wide(a, b).0, None)
            } else {
                ((a * b) >> w & m, None)
            }
        }
        Smulhi => {
            if w == 128 {
                let (hi, _) = mul_wide(a, b);
                let mut hi = hi;
                if sa < 0 {
                    hi = hi.wrapping_sub(b);
                }
                if sb < 0 {
                    hi = hi.wrapping_sub(a);
                }
                (hi, None)
            } else {
                (((sa * sb) >> w) as u128 & m, None)
            }
        }
        Band => (a & b, None),
        Bor => (a | b, None),
        Bxor => (a ^ b, None),
        Ishl => ((a << amt()) & m, None),
        Ushr => (a >> amt(), None),
        Sshr => ((sa >> amt()) as u128 & m, None),
        Rotl | Rotr => {
            let k = amt();
            let k = if op == Rotl { k } else { (w - k) % w };
            if k == 0 {
                (a, None)
            } else {
                (((a << k) | (a >> (w - k))) & m, None)
            }
        }
        Smin => (if sa <= sb { a } else { b }, None),
        Smax => (if sa >= sb { a } else { b }, None),
        Umin => (a.min(b), None),
        Umax => (a.max(b), None),
        UaddOverflow => {
            let (r, c) = a.overflowing_add(b);
            (r & m, Some(c || (w < 128 && r > m)))
        }
        SaddOverflow => {
            if w == 128 {
                let (r, o) = sa.overflowing_add(sb);
                (r as u128, Some(o))
            } else {
                let r = sa + sb;
                (r as u128 & m, Some(!in_srange(r)))
            }
        }
        UsubOverflow => (a.wrapping_sub(b) & m, Some(a < b)),
        SsubOverflow => {
            if w == 128 {
                let (r, o) = sa.overflowing_sub(sb);
                (r as u128, Some(o))
            } else {
                let r = sa - sb;
                (r as u128 & m, Some(!in_srange(r)))
            }
        }
        UmulOverflow => {
            if w == 128 {
                let (r, o) = a.overflowing_mul(b);
                (r, Some(o))
            } else {
                let r = a * b; // fits: both < 2^64
                (r & m, Some(r > m))
            }
        }
        SmulOverflow => {
            if w == 128 {
                let (r, o) = sa.overflowing_mul(sb);
                (r as u128, Some(o))
            } else {
                let r = sa * sb; // fits: both in [-2^63, 2^63)
                (r as u128 & m, Some(!in_srange(r)))
            }
        }
        Ptradd => ((a as u64).wrapping_add(b as u64) as u128, None),
        Fadd => (fl(|x, y| x + y, |x, y| x + y), None),
        Fsub => (fl(|x, y| x - y, |x, y| x - y), None),
        Fmul => (fl(|x, y| x * y, |x, y| x * y), None),
        Fdiv => (fl(|x, y| x / y, |x, y| x / y), None),
        Frem => (fl(|x, y| x % y, |x, y| x % y), None),
        Fmin => (fl(f32::min, f64::min), None),
        Fmax => (fl(f32::max, f64::max), None),
        Fcopysign => {
            let sign = 1u128 << (w - 1);
            ((a & !sign) | (b & sign), None)
        }
        _ => {
            return Err(crate::interpreter::Trap::new(
                TrapKind::Malformed,
                format!("{op} is not a binary operation"),
            ));
        }
    })
}

fn unary(op: Opcode, ty: Type, to: Type, a: u128) -> u128 {
    use Opcode::*;
    let w = ty.bits();
    let m = ty.mask();
    let f32u = |f: fn(f32) -> f32| f(f32_of(a)).to_bits() as u128;
    let f64u = |f: fn(f64) -> f64| f(f64_of(a)).to_bits() as u128;
    let fl = |g: fn(f32) -> f32, h: fn(f64) -> f64| if ty == Type::F32 { f32u(g) } else { f64u(h) };
    match op {
        Ineg => 0u128.wrapping_sub(a) & m,
        Bnot => !a & m,
        Clz => {
            if a == 0 {
                w as u128
            } else {
                (a.leading_zeros() - (128 - w)) as u128
            }
        }
        Ctz => {
            if a == 0 {
                w as u128
            } else {
                a.trailing_zeros() as u128
            }
        }
        Popcnt => a.count_ones() as u128,
        Bswap => a.swap_bytes() >> (128 - w),
        Bitrev => a.reverse_bits() >> (128 - w),
        Iabs => sext(ty, a).wrapping_abs() as u128 & m,
        Uextend => a,
        Sextend => sext(ty, a) as u128 & to.mask(),
        Ireduce => a & to.mask(),
        Fpromote => (f32_of(a) as f64).to_bits() as u128,
        Fdemote => (f64_of(a) as f32).to_bits() as u128,
        FcvtToUintSat | FcvtToSintSat => {
            let x = if ty == Type::F32 {
                f32_of(a) as f64
            } else {
                f64_of(a)
            };
            // Rust `as` saturates and maps NaN to 0; converting from f32 through f64 is exact.
            let signed = op == FcvtToSintSat;
            (match (to, signed) {
                (Type::I8, false) => x as u8 as u128,
                (Type::I16, false) => x as u16 as u128,
                (Type::I32, false) => x as u32 as u128,
                (Type::I64, false) => x as u64 as u128,
                (Type::I128, false) => x as u128,
                (Type::I8, true) => x as i8 as u128,
                (Type::I16, true) => x as i16 as u128,
                (Type::I32, true) => x as i32 as u128,
                (Type::I64, true) => x as i64 as u128,
                (Type::I128, true) => x as i128 as u128,
                _ => 0,
            }) & to.mask()
        }
        FcvtFromUint => match to {
            Type::F32 => (a as f32).to_bits() as u128,
            _ => (a as f64).to_bits() as u128,
        },
        FcvtFromSint => match to {
            Type::F32 => (sext(ty, a) as f32).to_bits() as u128,
            _ => (sext(ty, a) as f64).to_bits() as u128,
        },
        Bitcast => a & to.mask(),
        Fneg => a ^ (1u128 << (w - 1)),
        Fabs => a & !(1u128 << (w - 1)),
        Sqrt => fl(f32::sqrt, f64::sqrt),
        Floor => fl(f32::floor, f64::floor),
        Ceil => fl(f32::ceil, f64::ceil),
        Trunc => fl(f32::trunc, f64::trunc),
        Nearest => fl(f32::round_ties_even, f64::round_ties_even),
        Round => fl(f32::round, f64::round),
        _ => 0,
    }
}

fn icmp(cond: IntCC, ty: Type, a: u128, b: u128) -> bool {
    let (sa, sb) = (sext(ty, a), sext(ty, b));
    match cond {
        IntCC::Eq => a == b,
        IntCC::Ne => a != b,
        IntCC::Slt => sa < sb,
        IntCC::Sle => sa <= sb,
        IntCC::Sgt => sa > sb,
        IntCC::Sge => sa >= sb,
        IntCC::Ult => a < b,
        IntCC::Ule => a <= b,
        IntCC::Ugt => a > b,
        IntCC::Uge => a >= b,
    }
}

fn fcmp(cond: FloatCC, a: f64, b: f64) -> bool {
    let uno = a.is_nan() || b.is_nan();
    match cond {
        FloatCC::Oeq => a == b,
        FloatCC::One => !uno && a != b,
        FloatCC::Olt => a < b,
        FloatCC::Ole => a <= b,
        FloatCC::Ogt => a > b,
        FloatCC::Oge => a >= b,
        FloatCC::Ord => !uno,
        FloatCC::Uno => uno,
        FloatCC::Ueq => uno || a == b,
        FloatCC::Une => a != b,
        FloatCC::Ult => uno || a < b,
        FloatCC::Ule => uno || a <= b,
        FloatCC::Ugt => uno || a > b,
        FloatCC::Uge => uno || a >= b,
    }
}
