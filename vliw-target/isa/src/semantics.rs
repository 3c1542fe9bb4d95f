//! What every operation computes: the one definition of the machine's operation
//! semantics (`docs/isa.md` §4–5), shared by the simulator (`vliw-sim`, which
//! inlines these functions into its issue loop) and the back end's machine-IR
//! interpreter (`vliw_machine::interp`).
//!
//! Everything here is a pure function of operand values; where values come from
//! (registers, immediates, memory) and where results go is the caller's business.
//! Operand conventions, for an operation of any format:
//!
//! - `a` is `rs1`;
//! - `b` is the second operand: `rs2`, or the immediate for the formats that have one
//!   (`RImm`, `Imm`, `CmpImm`; for `addpc` the address it computes);
//! - `c` is `rs3` (only `fma` reads it).
//!
//! Every function is `#[inline(always)]`: called with a constant opcode it folds to
//! the operation alone, and the simulator's dispatch on the opcode absorbs the
//! dispatch inside.

use crate::opcode::{CmpType, Opcode};

/// Calls macro `$m` with the opcodes of the classes whose result is computed from
/// register and immediate operands alone, one list per class and kind of second
/// operand (a register, or the immediate):
///
/// ```text
/// $m! {
///     value: [Mov, Add, ...], value_imm: [Movi, AddI, ...],
///     compare: [CmpEq, ...], compare_imm: [CmpEqI, ...],
///     predicate_logic: [Pand, ...]
/// }
/// ```
///
/// The one list of these classes: [`class`] is built from it, and the simulator
/// builds its dispatch from it, one `match` arm per opcode with the opcode a
/// constant, so that [`value`], [`condition`] and [`predicate_logic`] fold into the
/// arm and no second dispatch on the opcode remains.
#[macro_export]
macro_rules! with_opcode_lists {
    ($m:ident) => {
        $m! {
            value: [
                Mov, Add, Sub, And, Andn, Or, Xor, Shl, Shr, Sra, Rotl, Rotr, Min,
                Max, Minu, Maxu, Addw, Subw, Shlw, Shrw, Sraw, Rotlw, Rotrw, Clz,
                Ctz, Popc, Clzw, Ctzw, Bswap, Brev, Sxtb, Sxth, Sxtw, Zxtb, Zxth,
                Zxtw, Mul, Mulw, Mulh, Mulhu, Div, Divu, Rem, Remu, Divw, Divuw,
                Remw, Remuw, FaddS, FaddD, FsubS, FsubD, FmulS, FmulD, FdivS, FdivD,
                FsqrtS, FsqrtD, FmaS, FmaD, FminS, FminD, FmaxS, FmaxD, FnegS,
                FnegD, FabsS, FabsD, FcopysignS, FcopysignD, FfloorS, FfloorD,
                FceilS, FceilD, FtruncS, FtruncD, FroundS, FroundD, FroundevenS,
                FroundevenD, FcvtDS, FcvtSD, FcvtSL, FcvtSLu, FcvtSW, FcvtSWu,
                FcvtDL, FcvtDLu, FcvtDW, FcvtDWu, FcvtLS, FcvtLuS, FcvtWS, FcvtWuS,
                FcvtLD, FcvtLuD, FcvtWD, FcvtWuD, Sh1add, Sh2add, Sh3add
            ],
            value_imm: [
                Movi, Addpc, AddI, SubI, AndI, OrI, XorI, ShlI, ShrI, SraI, RotlI,
                AddwI, ShlwI, ShrwI, SrawI, RotlwI, MulI
            ],
            compare: [
                CmpEq, CmpNe, CmpLt, CmpLe, CmpGt, CmpGe, CmpLtu, CmpLeu, CmpGtu,
                CmpGeu, CmpwEq, CmpwNe, CmpwLt, CmpwLe, CmpwGt, CmpwGe, CmpwLtu,
                CmpwLeu, CmpwGtu, CmpwGeu, FcmpEqS, FcmpNeS, FcmpLtS, FcmpLeS,
                FcmpGtS, FcmpGeS, FcmpUnoS, FcmpOrdS, FcmpEqD, FcmpNeD, FcmpLtD,
                FcmpLeD, FcmpGtD, FcmpGeD, FcmpUnoD, FcmpOrdD
            ],
            compare_imm: [
                CmpEqI, CmpNeI, CmpLtI, CmpLeI, CmpGtI, CmpGeI, CmpLtuI, CmpLeuI,
                CmpGtuI, CmpGeuI, CmpwEqI, CmpwNeI, CmpwLtI, CmpwLeI, CmpwGtI,
                CmpwGeI, CmpwLtuI, CmpwLeuI, CmpwGtuI, CmpwGeuI
            ],
            predicate_logic: [
                Pand, Por, Pxor, Pandn, Porn, Pnot
            ]
        }
    };
}

/// How an operation takes effect, which decides which function of this module
/// gives its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// No architectural effect: `nop`, `limm` (part of the next operation), `fence`.
    Nothing,
    /// `rd = value(op, a, b, c)`: arithmetic, logic, shifts, moves, constants, bit
    /// manipulation, multiply/divide, floating point, conversions.
    Value,
    /// `rd = sel(ps1, rs1, rs2)`.
    Sel,
    /// A compare: `condition(op, a, b)` written to `pd1`, `pd2` as its compare type
    /// says (`compare_writes`).
    Compare,
    /// `pd1 = predicate_logic(op, ps1, ps2)`.
    PredLogic,
    /// `rd = p2r(ps1)`.
    P2r,
    /// `pd1 = r2p(rs1)`.
    R2p,
    /// `rd = load_value(op, memory[a + b])` (`access_bytes(op)` bytes); speculative
    /// loads give `speculative_load(op, None)` where an ordinary load faults.
    Load,
    /// `memory[a + b] = store_value(op, rs2)`.
    Store,
    /// `rd = old = memory[rs1]`; `memory[rs1] = amo(op, old, rs2)`.
    Amo,
    /// `rd = old = memory[rs1]`; if `cas(op, old, rs2, rs3)` is `Some(new)`, store it.
    Cas,
    /// Control transfer: `br`, `jr`, `call`, `callr`, `ret`, `syscall`, `trap`.
    Control,
}

impl OpClass {
    /// No effect beyond writing its destinations: no memory, no control, no fault
    /// (values, `sel`, compares, predicate logic, `p2r`, `r2p`). Such an operation may
    /// run speculatively, and may read a value that is undefined there.
    pub const fn is_pure(self) -> bool {
        matches!(
            self,
            OpClass::Value
                | OpClass::Sel
                | OpClass::Compare
                | OpClass::PredLogic
                | OpClass::P2r
                | OpClass::R2p
        )
    }
}

macro_rules! define_class {
    (
        value: [$($v:ident),*],
        value_imm: [$($vi:ident),*],
        compare: [$($c:ident),*],
        compare_imm: [$($ci:ident),*],
        predicate_logic: [$($p:ident),*]
    ) => {
        /// The class of an operation.
        #[inline]
        pub const fn class(op: Opcode) -> OpClass {
            use Opcode::*;
            match op {
                $($v)|* | $($vi)|* => OpClass::Value,
                $($c)|* | $($ci)|* => OpClass::Compare,
                $($p)|* => OpClass::PredLogic,
                Nop | NopN | Limm | Fence => OpClass::Nothing,
                Sel => OpClass::Sel,
                P2r => OpClass::P2r,
                R2p => OpClass::R2p,
                LdB | LdBu | LdH | LdHu | LdW | LdWu | LdD | LdsB | LdsBu | LdsH | LdsHu
                | LdsW | LdsWu | LdsD => OpClass::Load,
                StB | StH | StW | StD => OpClass::Store,
                CasB | CasH | CasW | CasD => OpClass::Cas,
                Br | Jr | Call | Callr | Ret | Syscall | Trap => OpClass::Control,
                _ => OpClass::Amo,
            }
        }
    };
}
crate::with_opcode_lists!(define_class);

/// Sign-extends the low 32 bits.
#[inline(always)]
pub const fn sext32(x: u64) -> u64 {
    x as i32 as i64 as u64
}

/// Sign-extends the low `bytes` bytes of `x` (1..=8).
#[inline(always)]
pub const fn sext(x: u64, bytes: usize) -> i64 {
    let shift = 64 - 8 * bytes as u32;
    ((x << shift) as i64) >> shift
}

/// The mask of the low `bytes` bytes (1..=8).
#[inline(always)]
pub const fn mask(bytes: usize) -> u64 {
    if bytes >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * bytes)) - 1
    }
}

/// Signed division: x/0 = -1, MIN/-1 = MIN.
#[inline(always)]
pub const fn div(a: u64, b: u64) -> u64 {
    let (a, b) = (a as i64, b as i64);
    if b == 0 {
        u64::MAX
    } else {
        a.wrapping_div(b) as u64
    }
}

/// Unsigned division: x/0 = all ones.
#[inline(always)]
pub const fn divu(a: u64, b: u64) -> u64 {
    if b == 0 { u64::MAX } else { a / b }
}

/// Signed remainder (sign of the dividend): x%0 = x, MIN%-1 = 0.
#[inline(always)]
pub const fn rem(a: u64, b: u64) -> u64 {
    let (a, b) = (a as i64, b as i64);
    if b == 0 {
        a as u64
    } else {
        a.wrapping_rem(b) as u64
    }
}

/// Unsigned remainder: x%0 = x.
#[inline(always)]
pub const fn remu(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { a % b }
}

/// `divw`: signed 32-bit division of the low halves, result sign-extended.
#[inline(always)]
pub const fn divw(a: u64, b: u64) -> u64 {
    let (a, b) = (a as i32, b as i32);
    let q = if b == 0 { -1 } else { a.wrapping_div(b) };
    q as i64 as u64
}

/// `divuw`: unsigned 32-bit division, the 32-bit quotient sign-extended.
#[inline(always)]
pub const fn divuw(a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let q = if b == 0 { u32::MAX } else { a / b };
    sext32(q as u64)
}

/// `remw`: signed 32-bit remainder, sign-extended.
#[inline(always)]
pub const fn remw(a: u64, b: u64) -> u64 {
    let (a, b) = (a as i32, b as i32);
    let r = if b == 0 { a } else { a.wrapping_rem(b) };
    r as i64 as u64
}

/// `remuw`: unsigned 32-bit remainder, the 32-bit result sign-extended.
#[inline(always)]
pub const fn remuw(a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let r = if b == 0 { a } else { a % b };
    sext32(r as u64)
}

/// High 64 bits of the signed 128-bit product.
#[inline(always)]
pub const fn mulh(a: u64, b: u64) -> u64 {
    ((a as i64 as i128 * b as i64 as i128) >> 64) as u64
}

/// High 64 bits of the unsigned 128-bit product.
#[inline(always)]
pub const fn mulhu(a: u64, b: u64) -> u64 {
    ((a as u128 * b as u128) >> 64) as u64
}

/// The f32 in the low 32 bits of a register (the upper bits are ignored).
#[inline(always)]
pub fn f32_of(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

/// An f32 result: its bits, zero-extended.
#[inline(always)]
pub fn of_f32(x: f32) -> u64 {
    x.to_bits() as u64
}

/// The f64 of a register.
#[inline(always)]
pub fn f64_of(x: u64) -> f64 {
    f64::from_bits(x)
}

/// An f64 result: its bits.
#[inline(always)]
pub fn of_f64(x: f64) -> u64 {
    x.to_bits()
}

/// The result of an operation of class [`OpClass::Value`] (0 for any other opcode).
#[inline(always)]
pub fn value(op: Opcode, a: u64, b: u64, c: u64) -> u64 {
    use Opcode::*;
    match op {
        Mov => a,
        Movi | Addpc => b,

        Add | AddI => a.wrapping_add(b),
        Sub => a.wrapping_sub(b),
        SubI => b.wrapping_sub(a),
        And | AndI => a & b,
        Andn => a & !b,
        Or | OrI => a | b,
        Xor | XorI => a ^ b,
        Shl | ShlI => a << (b & 63),
        Sh1add => (a << 1).wrapping_add(b),
        Sh2add => (a << 2).wrapping_add(b),
        Sh3add => (a << 3).wrapping_add(b),
        Shr | ShrI => a >> (b & 63),
        Sra | SraI => ((a as i64) >> (b & 63)) as u64,
        Rotl | RotlI => a.rotate_left((b & 63) as u32),
        Rotr => a.rotate_right((b & 63) as u32),
        Min => (a as i64).min(b as i64) as u64,
        Max => (a as i64).max(b as i64) as u64,
        Minu => a.min(b),
        Maxu => a.max(b),

        Addw | AddwI => sext32(a.wrapping_add(b)),
        Subw => sext32(a.wrapping_sub(b)),
        Shlw | ShlwI => sext32(((a as u32) << (b & 31)) as u64),
        Shrw | ShrwI => sext32(((a as u32) >> (b & 31)) as u64),
        Sraw | SrawI => ((a as i32) >> (b & 31)) as i64 as u64,
        Rotlw | RotlwI => sext32((a as u32).rotate_left((b & 31) as u32) as u64),
        Rotrw => sext32((a as u32).rotate_right((b & 31) as u32) as u64),

        Clz => a.leading_zeros() as u64,
        Ctz => a.trailing_zeros() as u64,
        Popc => a.count_ones() as u64,
        Clzw => (a as u32).leading_zeros() as u64,
        Ctzw => (a as u32).trailing_zeros() as u64,
        Bswap => a.swap_bytes(),
        Brev => a.reverse_bits(),
        Sxtb => a as i8 as i64 as u64,
        Sxth => a as i16 as i64 as u64,
        Sxtw => a as i32 as i64 as u64,
        Zxtb => a & 0xff,
        Zxth => a & 0xffff,
        Zxtw => a & 0xffff_ffff,

        Mul | MulI => a.wrapping_mul(b),
        Mulw => sext32(a.wrapping_mul(b)),
        Mulh => mulh(a, b),
        Mulhu => mulhu(a, b),
        Div => div(a, b),
        Divu => divu(a, b),
        Rem => rem(a, b),
        Remu => remu(a, b),
        Divw => divw(a, b),
        Divuw => divuw(a, b),
        Remw => remw(a, b),
        Remuw => remuw(a, b),

        FaddS => of_f32(f32_of(a) + f32_of(b)),
        FaddD => of_f64(f64_of(a) + f64_of(b)),
        FsubS => of_f32(f32_of(a) - f32_of(b)),
        FsubD => of_f64(f64_of(a) - f64_of(b)),
        FmulS => of_f32(f32_of(a) * f32_of(b)),
        FmulD => of_f64(f64_of(a) * f64_of(b)),
        FdivS => of_f32(f32_of(a) / f32_of(b)),
        FdivD => of_f64(f64_of(a) / f64_of(b)),
        FsqrtS => of_f32(f32_of(a).sqrt()),
        FsqrtD => of_f64(f64_of(a).sqrt()),
        FmaS => of_f32(f32_of(a).mul_add(f32_of(b), f32_of(c))),
        FmaD => of_f64(f64_of(a).mul_add(f64_of(b), f64_of(c))),
        FminS => of_f32(f32_of(a).min(f32_of(b))),
        FminD => of_f64(f64_of(a).min(f64_of(b))),
        FmaxS => of_f32(f32_of(a).max(f32_of(b))),
        FmaxD => of_f64(f64_of(a).max(f64_of(b))),
        FnegS => (a as u32 ^ 0x8000_0000) as u64,
        FnegD => a ^ (1 << 63),
        FabsS => (a as u32 & 0x7fff_ffff) as u64,
        FabsD => a & !(1 << 63),
        FcopysignS => ((a as u32 & 0x7fff_ffff) | (b as u32 & 0x8000_0000)) as u64,
        FcopysignD => (a & !(1 << 63)) | (b & (1 << 63)),
        FfloorS => of_f32(f32_of(a).floor()),
        FfloorD => of_f64(f64_of(a).floor()),
        FceilS => of_f32(f32_of(a).ceil()),
        FceilD => of_f64(f64_of(a).ceil()),
        FtruncS => of_f32(f32_of(a).trunc()),
        FtruncD => of_f64(f64_of(a).trunc()),
        FroundS => of_f32(f32_of(a).round()),
        FroundD => of_f64(f64_of(a).round()),
        FroundevenS => of_f32(f32_of(a).round_ties_even()),
        FroundevenD => of_f64(f64_of(a).round_ties_even()),
        FcvtDS => of_f64(f32_of(a) as f64),
        FcvtSD => of_f32(f64_of(a) as f32),
        FcvtSL => of_f32(a as i64 as f32),
        FcvtSLu => of_f32(a as f32),
        FcvtSW => of_f32(a as i32 as f32),
        FcvtSWu => of_f32(a as u32 as f32),
        FcvtDL => of_f64(a as i64 as f64),
        FcvtDLu => of_f64(a as f64),
        FcvtDW => of_f64(a as i32 as f64),
        FcvtDWu => of_f64(a as u32 as f64),
        FcvtLS => f32_of(a) as i64 as u64,
        FcvtLuS => f32_of(a) as u64,
        FcvtWS => f32_of(a) as i32 as i64 as u64,
        FcvtWuS => f32_of(a) as u32 as u64,
        FcvtLD => f64_of(a) as i64 as u64,
        FcvtLuD => f64_of(a) as u64,
        FcvtWD => f64_of(a) as i32 as i64 as u64,
        FcvtWuD => f64_of(a) as u32 as u64,
        _ => 0,
    }
}

/// The condition `c` of a compare (of class [`OpClass::Compare`]; false for any
/// other opcode).
#[inline(always)]
pub fn condition(op: Opcode, a: u64, b: u64) -> bool {
    use Opcode::*;
    match op {
        CmpEq | CmpEqI => a == b,
        CmpNe | CmpNeI => a != b,
        CmpLt | CmpLtI => (a as i64) < (b as i64),
        CmpLe | CmpLeI => (a as i64) <= (b as i64),
        CmpGt | CmpGtI => (a as i64) > (b as i64),
        CmpGe | CmpGeI => (a as i64) >= (b as i64),
        CmpLtu | CmpLtuI => a < b,
        CmpLeu | CmpLeuI => a <= b,
        CmpGtu | CmpGtuI => a > b,
        CmpGeu | CmpGeuI => a >= b,
        CmpwEq | CmpwEqI => a as u32 == b as u32,
        CmpwNe | CmpwNeI => a as u32 != b as u32,
        CmpwLt | CmpwLtI => (a as i32) < (b as i32),
        CmpwLe | CmpwLeI => (a as i32) <= (b as i32),
        CmpwGt | CmpwGtI => (a as i32) > (b as i32),
        CmpwGe | CmpwGeI => (a as i32) >= (b as i32),
        CmpwLtu | CmpwLtuI => (a as u32) < (b as u32),
        CmpwLeu | CmpwLeuI => (a as u32) <= (b as u32),
        CmpwGtu | CmpwGtuI => (a as u32) > (b as u32),
        CmpwGeu | CmpwGeuI => (a as u32) >= (b as u32),
        FcmpEqS => f32_of(a) == f32_of(b),
        FcmpNeS => f32_of(a) != f32_of(b),
        FcmpLtS => f32_of(a) < f32_of(b),
        FcmpLeS => f32_of(a) <= f32_of(b),
        FcmpGtS => f32_of(a) > f32_of(b),
        FcmpGeS => f32_of(a) >= f32_of(b),
        FcmpUnoS => f32_of(a).is_nan() || f32_of(b).is_nan(),
        FcmpOrdS => !f32_of(a).is_nan() && !f32_of(b).is_nan(),
        FcmpEqD => f64_of(a) == f64_of(b),
        FcmpNeD => f64_of(a) != f64_of(b),
        FcmpLtD => f64_of(a) < f64_of(b),
        FcmpLeD => f64_of(a) <= f64_of(b),
        FcmpGtD => f64_of(a) > f64_of(b),
        FcmpGeD => f64_of(a) >= f64_of(b),
        FcmpUnoD => f64_of(a).is_nan() || f64_of(b).is_nan(),
        FcmpOrdD => !f64_of(a).is_nan() && !f64_of(b).is_nan(),
        _ => false,
    }
}

/// What a compare of type `ctype` writes to `(pd1, pd2)` given its guard `g` and
/// condition `c`: `Some(value)` for a destination it writes, `None` for one it
/// leaves unchanged (`docs/isa.md` §5; `CmpType::apply` with the old values).
#[inline(always)]
pub const fn compare_writes(ctype: CmpType, g: bool, c: bool) -> (Option<bool>, Option<bool>) {
    match ctype {
        CmpType::Normal if g => (Some(c), Some(!c)),
        CmpType::Unc => (Some(g && c), Some(g && !c)),
        CmpType::And if g && !c => (Some(false), Some(false)),
        CmpType::Or if g && c => (Some(true), Some(true)),
        CmpType::Andcm if g && c => (Some(false), Some(false)),
        CmpType::Orcm if g && !c => (Some(true), Some(true)),
        CmpType::OrAndcm if g && c => (Some(true), Some(false)),
        CmpType::AndOrcm if g && !c => (Some(false), Some(true)),
        _ => (None, None),
    }
}

/// Whether an operation whose guard `g` is false still takes effect: only `.unc`
/// compares do (they write false to both destinations).
#[inline(always)]
pub const fn executes(g: bool, ctype: CmpType, is_compare: bool) -> bool {
    g || (is_compare && matches!(ctype, CmpType::Unc))
}

/// The value of a guard `(pN)` / `(!pN)` given the predicate's value.
#[inline(always)]
pub const fn guard(pred: bool, negated: bool) -> bool {
    pred != negated
}

/// `sel rd = ps1, rs1, rs2`.
#[inline(always)]
pub const fn sel(p: bool, a: u64, b: u64) -> u64 {
    if p { a } else { b }
}

/// Predicate logic (class [`OpClass::PredLogic`]); `pnot` reads only `p1`.
#[inline(always)]
pub const fn predicate_logic(op: Opcode, p1: bool, p2: bool) -> bool {
    use Opcode::*;
    match op {
        Pand => p1 & p2,
        Por => p1 | p2,
        Pxor => p1 ^ p2,
        Pandn => p1 & !p2,
        Porn => p1 | !p2,
        Pnot => !p1,
        _ => false,
    }
}

/// `p2r rd = ps1`.
#[inline(always)]
pub const fn p2r(p: bool) -> u64 {
    p as u64
}

/// `r2p pd1 = rs1`.
#[inline(always)]
pub const fn r2p(a: u64) -> bool {
    a != 0
}

/// The address a load or store accesses: `rs1 + imm`, wrapping (atomics access `rs1`).
#[inline(always)]
pub const fn address(a: u64, imm: u64) -> u64 {
    a.wrapping_add(imm)
}

/// Bytes accessed by a load, store or atomic (0 for other operations).
#[inline(always)]
pub const fn access_bytes(op: Opcode) -> usize {
    use Opcode::*;
    match op {
        LdB | LdBu | LdsB | LdsBu | StB | CasB | AmoswapB | AmoaddB | AmoandB | AmoorB
        | AmoxorB | AmominB | AmomaxB | AmominuB | AmomaxuB => 1,
        LdH | LdHu | LdsH | LdsHu | StH | CasH | AmoswapH | AmoaddH | AmoandH | AmoorH
        | AmoxorH | AmominH | AmomaxH | AmominuH | AmomaxuH => 2,
        LdW | LdWu | LdsW | LdsWu | StW | CasW | AmoswapW | AmoaddW | AmoandW | AmoorW
        | AmoxorW | AmominW | AmomaxW | AmominuW | AmomaxuW => 4,
        LdD | LdsD | StD | CasD | AmoswapD | AmoaddD | AmoandD | AmoorD | AmoxorD | AmominD
        | AmomaxD | AmominuD | AmomaxuD => 8,
        _ => 0,
    }
}

/// Whether an address is aligned for an access of `bytes` bytes (every access must be).
#[inline(always)]
pub const fn aligned(addr: u64, bytes: usize) -> bool {
    addr & (bytes as u64 - 1) == 0
}

/// The register value of a load given the `access_bytes(op)` bytes read,
/// zero-extended in `raw`: sign-extended for `ld.b/h/w` and `lds.b/h/w`.
#[inline(always)]
pub const fn load_value(op: Opcode, raw: u64) -> u64 {
    use Opcode::*;
    match op {
        LdB | LdsB => raw as i8 as i64 as u64,
        LdH | LdsH => raw as i16 as i64 as u64,
        LdW | LdsW => raw as i32 as i64 as u64,
        _ => raw,
    }
}

/// The result of a speculative load (`lds.*`): the loaded value, or 0 where an
/// ordinary load would fault (`raw` is `None`).
#[inline(always)]
pub const fn speculative_load(op: Opcode, raw: Option<u64>) -> u64 {
    match raw {
        Some(raw) => load_value(op, raw),
        None => 0,
    }
}

/// The bytes a store writes: the low `access_bytes(op)` bytes of `rs2`.
#[inline(always)]
pub const fn store_value(op: Opcode, v: u64) -> u64 {
    v & mask(access_bytes(op))
}

/// The value an `amo*` operation stores given the old value (zero-extended) and the
/// operand `rs2`, both taken as `access_bytes(op)`-byte values; the result is
/// zero-extended. (The operation's `rd` is the old value.)
#[inline(always)]
pub const fn amo(op: Opcode, old: u64, operand: u64) -> u64 {
    use Opcode::*;
    let bytes = access_bytes(op);
    let m = mask(bytes);
    let old = old & m;
    let operand = operand & m;
    let value = match op {
        AmoswapB | AmoswapH | AmoswapW | AmoswapD => operand,
        AmoaddB | AmoaddH | AmoaddW | AmoaddD => old.wrapping_add(operand),
        AmoandB | AmoandH | AmoandW | AmoandD => old & operand,
        AmoorB | AmoorH | AmoorW | AmoorD => old | operand,
        AmoxorB | AmoxorH | AmoxorW | AmoxorD => old ^ operand,
        AmominB | AmominH | AmominW | AmominD => {
            if sext(old, bytes) <= sext(operand, bytes) {
                old
            } else {
                operand
            }
        }
        AmomaxB | AmomaxH | AmomaxW | AmomaxD => {
            if sext(old, bytes) >= sext(operand, bytes) {
                old
            } else {
                operand
            }
        }
        AmominuB | AmominuH | AmominuW | AmominuD => {
            if old <= operand {
                old
            } else {
                operand
            }
        }
        _ => {
            if old >= operand {
                old
            } else {
                operand
            }
        }
    };
    value & m
}

/// What a `cas` stores given the old value (zero-extended), the expected value
/// `rs2` and the new value `rs3`: the low bytes of `rs3` if the old value equals the
/// low bytes of `rs2`, else nothing. (The operation's `rd` is the old value.)
#[inline(always)]
pub const fn cas(op: Opcode, old: u64, expected: u64, new: u64) -> Option<u64> {
    let m = mask(access_bytes(op));
    if old & m == expected & m {
        Some(new & m)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;

    const MIN: u64 = i64::MIN as u64;
    const NEG1: u64 = u64::MAX;

    #[test]
    fn division_edge_cases() {
        assert_eq!(div(7, 0), NEG1);
        assert_eq!(div(MIN, NEG1), MIN);
        assert_eq!(div(-7i64 as u64, 2), -3i64 as u64, "rounds toward zero");
        assert_eq!(divu(7, 0), u64::MAX);
        assert_eq!(rem(7, 0), 7);
        assert_eq!(rem(MIN, NEG1), 0);
        assert_eq!(rem(-7i64 as u64, 2), -1i64 as u64, "sign of the dividend");
        assert_eq!(remu(7, 0), 7);
        assert_eq!(divw(0xdead_0000_0000_0007, 0), NEG1);
        assert_eq!(
            divw(0x8000_0000, 0xffff_ffff),
            0xffff_ffff_8000_0000,
            "i32::MIN / -1"
        );
        assert_eq!(
            divw(0x1_0000_0010, 0xffff_fffe),
            0xffff_ffff_ffff_fff8,
            "low halves only: 16 / -2"
        );
        assert_eq!(divuw(5, 0), NEG1);
        assert_eq!(divuw(0xffff_fffe, 1), 0xffff_ffff_ffff_fffe);
        assert_eq!(remw(0x8000_0000, 0xffff_ffff), 0);
        assert_eq!(
            remw(0x1234_ffff_fff9, 0),
            0xffff_ffff_ffff_fff9,
            "x%0 = x, sign-extended"
        );
        assert_eq!(remuw(0xffff_fff9, 0), 0xffff_ffff_ffff_fff9);
        assert_eq!(remuw(0xffff_fff9, 0x10), 9);
    }

    #[test]
    fn high_products_and_extensions() {
        assert_eq!(mulh(NEG1, NEG1), 0);
        assert_eq!(mulh(MIN, 2), NEG1);
        assert_eq!(mulhu(NEG1, NEG1), NEG1 - 1);
        assert_eq!(sext(0x80, 1), -128);
        assert_eq!(sext(0x7fff, 2), 0x7fff);
        assert_eq!(sext(0xffff_ffff, 4), -1);
        assert_eq!(sext(5, 8), 5);
        assert_eq!(of_f32(-0.0), 0x8000_0000);
        assert_eq!(f32_of(0xffff_ffff_3f80_0000), 1.0, "upper bits ignored");
    }

    #[test]
    fn every_opcode_has_a_class_matching_its_format() {
        for op in Opcode::all() {
            let cls = class(op);
            let f = op.format();
            match cls {
                OpClass::Compare => assert!(matches!(f, Format::Cmp | Format::CmpImm)),
                OpClass::Load | OpClass::Store | OpClass::Amo | OpClass::Cas => {
                    assert!(access_bytes(op) > 0, "{op:?}")
                }
                OpClass::Value => assert!(
                    matches!(
                        f,
                        Format::R1 | Format::R2 | Format::R3 | Format::RImm | Format::Imm
                    ) || op == Opcode::Addpc,
                    "{op:?}"
                ),
                _ => {}
            }
            assert_eq!(
                matches!(f, Format::Cmp | Format::CmpImm),
                cls == OpClass::Compare,
                "{op:?}"
            );
            for (format, want) in [
                (Format::Load, OpClass::Load),
                (Format::Store, OpClass::Store),
                (Format::Amo, OpClass::Amo),
                (Format::Cas, OpClass::Cas),
            ] {
                assert_eq!(f == format, cls == want, "{op:?}");
            }
            assert_eq!(
                matches!(f, Format::PLogic | Format::PUnary),
                cls == OpClass::PredLogic,
                "{op:?}"
            );
            if !matches!(
                cls,
                OpClass::Load | OpClass::Store | OpClass::Amo | OpClass::Cas
            ) {
                assert_eq!(access_bytes(op), 0, "{op:?}");
            }
            assert_eq!(op.is_control(), cls == OpClass::Control, "{op:?}");
        }
    }

    #[test]
    fn the_immediate_lists_hold_the_operations_with_an_immediate() {
        macro_rules! check {
            (
                value: [$($v:ident),*],
                value_imm: [$($vi:ident),*],
                compare: [$($c:ident),*],
                compare_imm: [$($ci:ident),*],
                predicate_logic: [$($p:ident),*]
            ) => {
                $(assert!(!Opcode::$v.format().has(crate::FieldKind::Imm));)*
                $(assert!(!Opcode::$c.format().has(crate::FieldKind::Imm));)*
                $(assert!(Opcode::$vi.format().has(crate::FieldKind::Imm) || Opcode::$vi == Opcode::Addpc);)*
                $(assert!(Opcode::$ci.format().has(crate::FieldKind::Imm));)*
                $(assert_eq!(class(Opcode::$p), OpClass::PredLogic);)*
            };
        }
        crate::with_opcode_lists!(check);
    }

    #[test]
    fn every_value_and_compare_opcode_is_defined() {
        // an opcode of the lists missing from `value` or `condition` would give 0 or
        // false whatever its operands
        let inputs = [
            (0, 0, 0),
            (1, 2, 3),
            (u64::MAX, 1, 0),
            (0x4000_0000_0000_0000, 0x3ff0_0000_0000_0000, 1),
            (0x3f80_0000, 0x4000_0000, 0x4040_0000),
            (0x8000_0000_0000_0000, 7, 0),
            (0x7ff8_0000_0000_0000, 0x7fc0_0000, 0),
            (5, 3, 0),
        ];
        for op in Opcode::all() {
            match class(op) {
                OpClass::Value => assert!(
                    inputs.iter().any(|&(a, b, c)| value(op, a, b, c) != 0),
                    "{op:?}"
                ),
                OpClass::Compare => {
                    assert!(
                        inputs.iter().any(|&(a, b, _)| condition(op, a, b)),
                        "{op:?}"
                    )
                }
                _ => {}
            }
        }
    }

    #[test]
    fn compare_writes_follow_the_manual() {
        // docs/isa.md §5, written out independently: for each type, the writes when
        // g && c and when g && !c (with a false guard only .unc writes: false, false)
        let table = [
            (
                CmpType::Normal,
                (Some(true), Some(false)),
                (Some(false), Some(true)),
            ),
            (
                CmpType::Unc,
                (Some(true), Some(false)),
                (Some(false), Some(true)),
            ),
            (CmpType::And, (None, None), (Some(false), Some(false))),
            (CmpType::Or, (Some(true), Some(true)), (None, None)),
            (CmpType::Andcm, (Some(false), Some(false)), (None, None)),
            (CmpType::Orcm, (None, None), (Some(true), Some(true))),
            (CmpType::OrAndcm, (Some(true), Some(false)), (None, None)),
            (CmpType::AndOrcm, (None, None), (Some(false), Some(true))),
        ];
        for (ctype, if_c, if_not_c) in table {
            assert_eq!(compare_writes(ctype, true, true), if_c, "{ctype:?}");
            assert_eq!(compare_writes(ctype, true, false), if_not_c, "{ctype:?}");
            let off = if ctype == CmpType::Unc {
                (Some(false), Some(false))
            } else {
                (None, None)
            };
            for c in [false, true] {
                assert_eq!(compare_writes(ctype, false, c), off, "{ctype:?}");
            }
        }
        assert!(executes(false, CmpType::Unc, true));
        assert!(!executes(false, CmpType::Unc, false));
        assert!(!executes(false, CmpType::Normal, true));
    }

    #[test]
    fn memory_widths_and_extensions() {
        assert_eq!(load_value(Opcode::LdB, 0x80), 0xffff_ffff_ffff_ff80);
        assert_eq!(load_value(Opcode::LdBu, 0x80), 0x80);
        assert_eq!(load_value(Opcode::LdsW, 0x8000_0000), 0xffff_ffff_8000_0000);
        assert_eq!(speculative_load(Opcode::LdsD, None), 0);
        assert_eq!(store_value(Opcode::StH, 0x1234_5678), 0x5678);
        assert_eq!(amo(Opcode::AmominB, 0x7f, 0x80), 0x80, "signed bytes");
        assert_eq!(amo(Opcode::AmominuB, 0x7f, 0x180), 0x7f, "operand masked");
        assert_eq!(amo(Opcode::AmoaddH, 0xffff, 1), 0, "wraps in the width");
        assert_eq!(cas(Opcode::CasW, 5, 0x1_0000_0005, 9), Some(9));
        assert_eq!(cas(Opcode::CasD, 5, 6, 9), None);
        assert!(aligned(0x1000, 8) && !aligned(0x1004, 8) && aligned(0x1003, 1));
    }
}
