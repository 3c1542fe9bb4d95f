//! The interpreter's integer and float semantics (computed on 128-bit patterns masked
//! to the width) against Rust's native operations on the real types, for random
//! operands biased toward the boundaries.

use proptest::prelude::*;
use vliw_ir::*;

const INT_TYPES: [Type; 5] = [Type::I8, Type::I16, Type::I32, Type::I64, Type::I128];

const BINARY: &[Opcode] = &[
    Opcode::Iadd,
    Opcode::Isub,
    Opcode::Imul,
    Opcode::Udiv,
    Opcode::Sdiv,
    Opcode::Urem,
    Opcode::Srem,
    Opcode::Umulhi,
    Opcode::Smulhi,
    Opcode::Band,
    Opcode::Bor,
    Opcode::Bxor,
    Opcode::Ishl,
    Opcode::Ushr,
    Opcode::Sshr,
    Opcode::Rotl,
    Opcode::Rotr,
    Opcode::Smin,
    Opcode::Smax,
    Opcode::Umin,
    Opcode::Umax,
];

const UNARY: &[Opcode] = &[
    Opcode::Ineg,
    Opcode::Bnot,
    Opcode::Clz,
    Opcode::Ctz,
    Opcode::Popcnt,
    Opcode::Bswap,
    Opcode::Bitrev,
    Opcode::Iabs,
];

const OVERFLOW: &[Opcode] = &[
    Opcode::UaddOverflow,
    Opcode::SaddOverflow,
    Opcode::UsubOverflow,
    Opcode::SsubOverflow,
    Opcode::UmulOverflow,
    Opcode::SmulOverflow,
];

/// Build `@f(params) -> results` whose body is made by `body`, and run it.
fn run(
    params: &[Type],
    args: &[u128],
    body: impl FnOnce(&mut FunctionBuilder, &[Value]) -> Vec<Value>,
) -> Result<Vec<u128>, Trap> {
    let mut func = Function::new("f", Signature::new(params, &[]), Linkage::Export);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block();
    let ps = b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let rs = body(&mut b, &ps);
    b.ins().return_(&rs);
    func.signature.returns = rs.iter().map(|&r| func.dfg.value_type(r)).collect();
    verify_function(&func).unwrap_or_else(|e| panic!("{e}\n{func}"));
    let mut m = Module::new();
    m.functions.push(func);
    let mut interp = Interpreter::new(&m);
    let dv: Vec<DataValue> = params
        .iter()
        .zip(args)
        .map(|(&t, &a)| DataValue::from_bits(t, a))
        .collect();
    interp
        .call("f", &dv)
        .map(|r| r.iter().map(|d| d.bits()).collect())
}

macro_rules! int_native {
    ($s:ty, $u:ty, $op:expr, $a:expr, $b:expr) => {{
        let (ua, ub) = ($a as $u, $b as $u);
        let (sa, sb) = (ua as $s, ub as $s);
        let bits = <$u>::BITS;
        let amt = (ub % bits as $u) as u32;
        let wide_hi = |signed: bool| -> Option<u128> {
            if bits == 128 {
                return None;
            }
            Some(if signed {
                ((sa as i128 * sb as i128) >> bits) as $s as $u as u128
            } else {
                ((ua as u128 * ub as u128) >> bits) as $u as u128
            })
        };
        use Opcode::*;
        let r: Option<Option<u128>> = match $op {
            Iadd => Some(Some(ua.wrapping_add(ub) as u128)),
            Isub => Some(Some(ua.wrapping_sub(ub) as u128)),
            Imul => Some(Some(ua.wrapping_mul(ub) as u128)),
            Udiv => Some(ua.checked_div(ub).map(|x| x as u128)),
            Urem => Some(ua.checked_rem(ub).map(|x| x as u128)),
            Sdiv => Some(sa.checked_div(sb).map(|x| x as $u as u128)),
            Srem => Some(sa.checked_rem(sb).map(|x| x as $u as u128)),
            Umulhi => wide_hi(false).map(Some),
            Smulhi => wide_hi(true).map(Some),
            Band => Some(Some((ua & ub) as u128)),
            Bor => Some(Some((ua | ub) as u128)),
            Bxor => Some(Some((ua ^ ub) as u128)),
            Ishl => Some(Some((ua << amt) as u128)),
            Ushr => Some(Some((ua >> amt) as u128)),
            Sshr => Some(Some((sa >> amt) as $u as u128)),
            Rotl => Some(Some(ua.rotate_left(amt) as u128)),
            Rotr => Some(Some(ua.rotate_right(amt) as u128)),
            Smin => Some(Some(sa.min(sb) as $u as u128)),
            Smax => Some(Some(sa.max(sb) as $u as u128)),
            Umin => Some(Some(ua.min(ub) as u128)),
            Umax => Some(Some(ua.max(ub) as u128)),
            Ineg => Some(Some(sa.wrapping_neg() as $u as u128)),
            Bnot => Some(Some((!ua) as u128)),
            Clz => Some(Some(ua.leading_zeros() as u128)),
            Ctz => Some(Some(ua.trailing_zeros() as u128)),
            Popcnt => Some(Some(ua.count_ones() as u128)),
            Bswap => {
                if bits == 8 {
                    None
                } else {
                    Some(Some(ua.swap_bytes() as u128))
                }
            }
            Bitrev => Some(Some(ua.reverse_bits() as u128)),
            Iabs => Some(Some(sa.wrapping_abs() as $u as u128)),
            _ => None,
        };
        r
    }};
}

/// `None`: not checked; `Some(None)`: must trap; `Some(Some(r))`: result bits.
fn native(op: Opcode, ty: Type, a: u128, b: u128) -> Option<Option<u128>> {
    match ty {
        Type::I8 => int_native!(i8, u8, op, a, b),
        Type::I16 => int_native!(i16, u16, op, a, b),
        Type::I32 => int_native!(i32, u32, op, a, b),
        Type::I64 => int_native!(i64, u64, op, a, b),
        _ => int_native!(i128, u128, op, a, b),
    }
}

macro_rules! ovf_native {
    ($s:ty, $u:ty, $op:expr, $a:expr, $b:expr) => {{
        let (ua, ub) = ($a as $u, $b as $u);
        let (sa, sb) = (ua as $s, ub as $s);
        use Opcode::*;
        let (r, o) = match $op {
            UaddOverflow => {
                let (r, o) = ua.overflowing_add(ub);
                (r as u128, o)
            }
            SaddOverflow => {
                let (r, o) = sa.overflowing_add(sb);
                (r as $u as u128, o)
            }
            UsubOverflow => {
                let (r, o) = ua.overflowing_sub(ub);
                (r as u128, o)
            }
            SsubOverflow => {
                let (r, o) = sa.overflowing_sub(sb);
                (r as $u as u128, o)
            }
            UmulOverflow => {
                let (r, o) = ua.overflowing_mul(ub);
                (r as u128, o)
            }
            _ => {
                let (r, o) = sa.overflowing_mul(sb);
                (r as $u as u128, o)
            }
        };
        vec![r, o as u128]
    }};
}

fn native_overflow(op: Opcode, ty: Type, a: u128, b: u128) -> Vec<u128> {
    match ty {
        Type::I8 => ovf_native!(i8, u8, op, a, b),
        Type::I16 => ovf_native!(i16, u16, op, a, b),
        Type::I32 => ovf_native!(i32, u32, op, a, b),
        Type::I64 => ovf_native!(i64, u64, op, a, b),
        _ => ovf_native!(i128, u128, op, a, b),
    }
}

fn operand() -> impl Strategy<Value = u128> {
    prop_oneof![
        any::<u128>(),
        0u128..4,
        Just(u128::MAX),
        Just(u128::MAX - 1),
        (0u32..128).prop_map(|k| 1u128 << k),
        (0u32..128).prop_map(|k| (1u128 << k) - 1),
        (0u32..128).prop_map(|k| !((1u128 << k) - 1)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn binary_and_unary_ops(t in 0usize..5, op in 0usize..(BINARY.len() + UNARY.len()), a in operand(), b in operand()) {
        let ty = INT_TYPES[t];
        let (a, b) = (a & ty.mask(), b & ty.mask());
        let op = if op < BINARY.len() { BINARY[op] } else { UNARY[op - BINARY.len()] };
        let Some(expected) = native(op, ty, a, b) else { return Ok(()) };
        let unary = UNARY.contains(&op);
        let got = if unary {
            run(&[ty], &[a], |bld, p| vec![bld.ins().unary(op, p[0])])
        } else {
            run(&[ty, ty], &[a, b], |bld, p| vec![bld.ins().binary(op, p[0], p[1])])
        };
        match (expected, got) {
            (None, Err(_)) => {}
            (Some(e), Ok(g)) => prop_assert_eq!(g, vec![e], "{} {} {:#x} {:#x}", op, ty, a, b),
            (e, g) => prop_assert!(false, "{} {} {:#x} {:#x}: expected {:?}, got {:?}", op, ty, a, b, e, g),
        }
    }

    #[test]
    fn overflow_ops(t in 0usize..5, op in 0usize..6, a in operand(), b in operand()) {
        let ty = INT_TYPES[t];
        let (a, b) = (a & ty.mask(), b & ty.mask());
        let op = OVERFLOW[op];
        let got = run(&[ty, ty], &[a, b], |bld, p| {
            let inst = bld.insert(InstructionData::Binary { opcode: op, args: [p[0], p[1]] }, &[ty, Type::I1]);
            bld.func.dfg.inst_results(inst).to_vec()
        }).unwrap();
        prop_assert_eq!(got, native_overflow(op, ty, a, b), "{} {} {:#x} {:#x}", op, ty, a, b);
    }

    #[test]
    fn compares_and_extensions(t in 0usize..5, a in operand(), b in operand()) {
        let ty = INT_TYPES[t];
        let (a, b) = (a & ty.mask(), b & ty.mask());
        let sext = |x: u128| -> i128 { let s = 128 - ty.bits(); ((x << s) as i128) >> s };
        let got = run(&[ty, ty], &[a, b], |bld, p| {
            let mut out: Vec<Value> = IntCC::ALL.iter().map(|&cc| bld.ins().icmp(cc, p[0], p[1])).collect();
            if ty != Type::I128 {
                out.push(bld.ins().sextend(Type::I128, p[0]));
                out.push(bld.ins().uextend(Type::I128, p[0]));
            }
            if ty != Type::I8 {
                out.push(bld.ins().ireduce(Type::I8, p[0]));
            }
            out
        }).unwrap();
        let (sa, sb) = (sext(a), sext(b));
        let mut exp: Vec<u128> = [a == b, a != b, sa < sb, sa <= sb, sa > sb, sa >= sb, a < b, a <= b, a > b, a >= b]
            .iter().map(|&x| x as u128).collect();
        if ty != Type::I128 {
            exp.push(sa as u128);
            exp.push(a);
        }
        if ty != Type::I8 {
            exp.push(a & 0xff);
        }
        prop_assert_eq!(got, exp);
    }
}

// ---- floats ----

fn fbits64() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        any::<f64>().prop_map(f64::to_bits),
        (-1e20f64..1e20).prop_map(f64::to_bits),
        (-300.0f64..300.0).prop_map(f64::to_bits),
        prop::sample::select(vec![
            0.0f64,
            -0.0,
            0.5,
            -0.5,
            1.5,
            2.5,
            -2.5,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1e300,
            -1e-300,
            9.3e18,
            1.9e19,
            -9.3e18,
            2147483648.5
        ])
        .prop_map(f64::to_bits),
    ]
}

fn same_float(bits: u32, a: u128, b: u128) -> bool {
    let nan = |x: u128| {
        if bits == 32 {
            f32::from_bits(x as u32).is_nan()
        } else {
            f64::from_bits(x as u64).is_nan()
        }
    };
    a == b || (nan(a) && nan(b))
}

macro_rules! float_case {
    ($f:ty, $ft:expr, $w:expr, $a:expr, $b:expr) => {{
        let (x, y): ($f, $f) = ($a, $b);
        let bits = |v: $f| v.to_bits() as u128;
        let got = run(&[$ft, $ft], &[bits(x), bits(y)], |bld, p| {
            let (a, b) = (p[0], p[1]);
            let mut v = vec![
                bld.ins().fadd(a, b),
                bld.ins().fsub(a, b),
                bld.ins().fmul(a, b),
                bld.ins().fdiv(a, b),
                bld.ins().frem(a, b),
                bld.ins().fmin(a, b),
                bld.ins().fmax(a, b),
                bld.ins().fcopysign(a, b),
                bld.ins().fneg(a),
                bld.ins().fabs(a),
                bld.ins().sqrt(a),
                bld.ins().floor(a),
                bld.ins().ceil(a),
                bld.ins().trunc(a),
                bld.ins().nearest(a),
                bld.ins().round(a),
            ];
            for t in [Type::I8, Type::I16, Type::I32, Type::I64, Type::I128] {
                v.push(bld.ins().fcvt_to_uint_sat(t, a));
                v.push(bld.ins().fcvt_to_sint_sat(t, a));
            }
            v.push(bld.ins().fcmp(FloatCC::Olt, a, b));
            v.push(bld.ins().fcmp(FloatCC::Ueq, a, b));
            v.push(bld.ins().fcmp(FloatCC::One, a, b));
            v
        })
        .unwrap();
        let mut exp: Vec<u128> = vec![
            bits(x + y),
            bits(x - y),
            bits(x * y),
            bits(x / y),
            bits(x % y),
            bits(x.min(y)),
            bits(x.max(y)),
            bits(x.copysign(y)),
            bits(-x),
            bits(x.abs()),
            bits(x.sqrt()),
            bits(x.floor()),
            bits(x.ceil()),
            bits(x.trunc()),
            bits(x.round_ties_even()),
            bits(x.round()),
        ];
        exp.extend([
            x as u8 as u128,
            x as i8 as u8 as u128,
            x as u16 as u128,
            x as i16 as u16 as u128,
            x as u32 as u128,
            x as i32 as u32 as u128,
            x as u64 as u128,
            x as i64 as u64 as u128,
            x as u128,
            x as i128 as u128,
        ]);
        exp.push((x < y) as u128);
        exp.push((x == y || x.is_nan() || y.is_nan()) as u128);
        exp.push((!x.is_nan() && !y.is_nan() && x != y) as u128);
        let nf = 16;
        for i in 0..exp.len() {
            if i < nf {
                prop_assert!(
                    same_float($w, got[i], exp[i]),
                    "result {} of {:?} {:?}: got {:#x}, expected {:#x}",
                    i,
                    x,
                    y,
                    got[i],
                    exp[i]
                );
            } else {
                prop_assert_eq!(got[i], exp[i], "result {} of {:?} {:?}", i, x, y);
            }
        }
    }};
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn f64_ops(a in fbits64(), b in fbits64()) {
        float_case!(f64, Type::F64, 64, f64::from_bits(a), f64::from_bits(b));
    }

    #[test]
    fn f32_ops(a in fbits64(), b in fbits64()) {
        float_case!(f32, Type::F32, 32, f64::from_bits(a) as f32, f64::from_bits(b) as f32);
    }

    #[test]
    fn int_to_float(t in 0usize..5, a in operand()) {
        let ty = INT_TYPES[t];
        let a = a & ty.mask();
        let s = 128 - ty.bits();
        let sa = ((a << s) as i128) >> s;
        let got = run(&[ty], &[a], |bld, p| vec![
            bld.ins().fcvt_from_uint(Type::F32, p[0]), bld.ins().fcvt_from_sint(Type::F32, p[0]),
            bld.ins().fcvt_from_uint(Type::F64, p[0]), bld.ins().fcvt_from_sint(Type::F64, p[0]),
        ]).unwrap();
        let exp = vec![(a as f32).to_bits() as u128, (sa as f32).to_bits() as u128,
                       (a as f64).to_bits() as u128, (sa as f64).to_bits() as u128];
        prop_assert_eq!(got, exp);
    }
}
