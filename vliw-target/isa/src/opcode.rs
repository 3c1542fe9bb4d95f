//! The opcode table: every operation of the machine with its mnemonic, operand
//! format, functional unit, latency class and semantics.
//!
//! Encoding: the 9-bit opcode field holds `Opcode as u16 + 1`; the value 0 is
//! illegal, so that zero-filled memory never decodes as code. The table is the
//! single source: `docs/isa.md`'s opcode list is checked against it by a test.

use crate::format::Format;
use crate::machine::{LatencyClass, Unit};

/// What the table says about one opcode.
#[derive(Clone, Copy, Debug)]
pub struct OpcodeInfo {
    pub opcode: Opcode,
    pub mnemonic: &'static str,
    pub format: Format,
    pub unit: Unit,
    pub latency: LatencyClass,
    /// One-line semantics, as in `docs/isa.md`.
    pub semantics: &'static str,
}

macro_rules! opcodes {
    ($( $variant:ident = $mnemonic:literal, $format:ident, $unit:ident, $latency:ident, $semantics:literal; )*) => {
        /// Every operation of the machine. See `OPCODES` for mnemonics and semantics.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[repr(u16)]
        pub enum Opcode { $( #[doc = $semantics] $variant, )* }

        /// The machine description's opcode table, indexed by `Opcode as usize`.
        pub static OPCODES: &[OpcodeInfo] = &[ $( OpcodeInfo {
            opcode: Opcode::$variant,
            mnemonic: $mnemonic,
            format: Format::$format,
            unit: Unit::$unit,
            latency: LatencyClass::$latency,
            semantics: $semantics,
        }, )* ];
    };
}

opcodes! {
    // --- control of the bundle itself
    Nop = "nop", None, Alu, Alu, "no operation";
    Limm = "limm", Limm, Alu, Alu, "long-immediate extension: supplies bits 63..32 of the immediate of the next syllable of the bundle; takes an issue slot but no unit";

    // --- moves, constants, select
    Mov = "mov", R1, Alu, Alu, "rd = rs1";
    Movi = "movi", Imm, Alu, Alu, "rd = imm";
    Addpc = "addpc", PcRel, Alu, Alu, "rd = address of this syllable + imm";
    Sel = "sel", Sel, Alu, Alu, "rd = ps1 ? rs1 : rs2";

    // --- 64-bit integer arithmetic and logic (wrapping)
    Add = "add", R2, Alu, Alu, "rd = rs1 + rs2";
    AddI = "add", RImm, Alu, Alu, "rd = rs1 + imm";
    Sub = "sub", R2, Alu, Alu, "rd = rs1 - rs2";
    SubI = "sub", RImm, Alu, Alu, "rd = imm - rs1 (reverse subtract; `sub rd = r0, x` is negation)";
    And = "and", R2, Alu, Alu, "rd = rs1 & rs2";
    AndI = "and", RImm, Alu, Alu, "rd = rs1 & imm";
    Andn = "andn", R2, Alu, Alu, "rd = rs1 & !rs2";
    Or = "or", R2, Alu, Alu, "rd = rs1 | rs2";
    OrI = "or", RImm, Alu, Alu, "rd = rs1 | imm";
    Xor = "xor", R2, Alu, Alu, "rd = rs1 ^ rs2";
    XorI = "xor", RImm, Alu, Alu, "rd = rs1 ^ imm";
    Shl = "shl", R2, Alu, Alu, "rd = rs1 << (rs2 mod 64)";
    ShlI = "shl", RImm, Alu, Alu, "rd = rs1 << (imm mod 64)";
    Shr = "shr", R2, Alu, Alu, "rd = rs1 >> (rs2 mod 64), logical";
    ShrI = "shr", RImm, Alu, Alu, "rd = rs1 >> (imm mod 64), logical";
    Sra = "sra", R2, Alu, Alu, "rd = rs1 >> (rs2 mod 64), arithmetic";
    SraI = "sra", RImm, Alu, Alu, "rd = rs1 >> (imm mod 64), arithmetic";
    Rotl = "rotl", R2, Alu, Alu, "rd = rs1 rotated left by rs2 mod 64";
    RotlI = "rotl", RImm, Alu, Alu, "rd = rs1 rotated left by imm mod 64";
    Rotr = "rotr", R2, Alu, Alu, "rd = rs1 rotated right by rs2 mod 64";
    Min = "min", R2, Alu, Alu, "rd = signed minimum of rs1, rs2";
    Max = "max", R2, Alu, Alu, "rd = signed maximum of rs1, rs2";
    Minu = "minu", R2, Alu, Alu, "rd = unsigned minimum of rs1, rs2";
    Maxu = "maxu", R2, Alu, Alu, "rd = unsigned maximum of rs1, rs2";

    // --- 32-bit integer arithmetic: operate on the low 32 bits, sign-extend the result
    Addw = "addw", R2, Alu, Alu, "rd = sext32(rs1 + rs2)";
    AddwI = "addw", RImm, Alu, Alu, "rd = sext32(rs1 + imm)";
    Subw = "subw", R2, Alu, Alu, "rd = sext32(rs1 - rs2)";
    Shlw = "shlw", R2, Alu, Alu, "rd = sext32(rs1 << (rs2 mod 32))";
    ShlwI = "shlw", RImm, Alu, Alu, "rd = sext32(rs1 << (imm mod 32))";
    Shrw = "shrw", R2, Alu, Alu, "rd = sext32(zext32(rs1) >> (rs2 mod 32))";
    ShrwI = "shrw", RImm, Alu, Alu, "rd = sext32(zext32(rs1) >> (imm mod 32))";
    Sraw = "sraw", R2, Alu, Alu, "rd = sext32(rs1) >> (rs2 mod 32)";
    SrawI = "sraw", RImm, Alu, Alu, "rd = sext32(rs1) >> (imm mod 32)";
    Rotlw = "rotlw", R2, Alu, Alu, "rd = sext32(low 32 bits of rs1 rotated left by rs2 mod 32)";
    RotlwI = "rotlw", RImm, Alu, Alu, "rd = sext32(low 32 bits of rs1 rotated left by imm mod 32)";
    Rotrw = "rotrw", R2, Alu, Alu, "rd = sext32(low 32 bits of rs1 rotated right by rs2 mod 32)";

    // --- bit manipulation and extension
    Clz = "clz", R1, Alu, Alu, "rd = count of leading zeros of rs1 (64 for 0)";
    Ctz = "ctz", R1, Alu, Alu, "rd = count of trailing zeros of rs1 (64 for 0)";
    Popc = "popc", R1, Alu, Alu, "rd = number of set bits of rs1";
    Clzw = "clzw", R1, Alu, Alu, "rd = count of leading zeros of the low 32 bits of rs1 (32 for 0)";
    Ctzw = "ctzw", R1, Alu, Alu, "rd = count of trailing zeros of the low 32 bits of rs1 (32 for 0)";
    Bswap = "bswap", R1, Alu, Alu, "rd = rs1 with its 8 bytes reversed";
    Brev = "brev", R1, Alu, Alu, "rd = rs1 with its 64 bits reversed";
    Sxtb = "sxtb", R1, Alu, Alu, "rd = sign-extend bits 7..0 of rs1";
    Sxth = "sxth", R1, Alu, Alu, "rd = sign-extend bits 15..0 of rs1";
    Sxtw = "sxtw", R1, Alu, Alu, "rd = sign-extend bits 31..0 of rs1";
    Zxtb = "zxtb", R1, Alu, Alu, "rd = zero-extend bits 7..0 of rs1";
    Zxth = "zxth", R1, Alu, Alu, "rd = zero-extend bits 15..0 of rs1";
    Zxtw = "zxtw", R1, Alu, Alu, "rd = zero-extend bits 31..0 of rs1";

    // --- multiply and divide (division by zero and overflow do not trap: see docs/isa.md)
    Mul = "mul", R2, Mul, Multiply, "rd = low 64 bits of rs1 * rs2";
    MulI = "mul", RImm, Mul, Multiply, "rd = low 64 bits of rs1 * imm";
    Mulw = "mulw", R2, Mul, Multiply, "rd = sext32(rs1 * rs2)";
    Mulh = "mulh", R2, Mul, Multiply, "rd = high 64 bits of the signed 128-bit product rs1 * rs2";
    Mulhu = "mulhu", R2, Mul, Multiply, "rd = high 64 bits of the unsigned 128-bit product rs1 * rs2";
    Div = "div", R2, Mul, Divide, "rd = rs1 / rs2, signed, rounding toward zero; x/0 = -1, MIN/-1 = MIN";
    Divu = "divu", R2, Mul, Divide, "rd = rs1 / rs2, unsigned; x/0 = all ones";
    Rem = "rem", R2, Mul, Divide, "rd = rs1 % rs2, signed (sign of rs1); x%0 = x, MIN%-1 = 0";
    Remu = "remu", R2, Mul, Divide, "rd = rs1 % rs2, unsigned; x%0 = x";
    Divw = "divw", R2, Mul, Divide, "rd = sext32(signed 32-bit rs1 / rs2), same edge cases as div";
    Divuw = "divuw", R2, Mul, Divide, "rd = sext32(unsigned 32-bit rs1 / rs2), same edge cases as divu";
    Remw = "remw", R2, Mul, Divide, "rd = sext32(signed 32-bit rs1 % rs2), same edge cases as rem";
    Remuw = "remuw", R2, Mul, Divide, "rd = sext32(unsigned 32-bit rs1 % rs2), same edge cases as remu";

    // --- integer compares into predicates (64-bit, then 32-bit on the low halves)
    CmpEq = "cmp.eq", Cmp, Alu, Compare, "c = rs1 == rs2";
    CmpNe = "cmp.ne", Cmp, Alu, Compare, "c = rs1 != rs2";
    CmpLt = "cmp.lt", Cmp, Alu, Compare, "c = rs1 < rs2, signed";
    CmpLe = "cmp.le", Cmp, Alu, Compare, "c = rs1 <= rs2, signed";
    CmpGt = "cmp.gt", Cmp, Alu, Compare, "c = rs1 > rs2, signed";
    CmpGe = "cmp.ge", Cmp, Alu, Compare, "c = rs1 >= rs2, signed";
    CmpLtu = "cmp.ltu", Cmp, Alu, Compare, "c = rs1 < rs2, unsigned";
    CmpLeu = "cmp.leu", Cmp, Alu, Compare, "c = rs1 <= rs2, unsigned";
    CmpGtu = "cmp.gtu", Cmp, Alu, Compare, "c = rs1 > rs2, unsigned";
    CmpGeu = "cmp.geu", Cmp, Alu, Compare, "c = rs1 >= rs2, unsigned";
    CmpEqI = "cmp.eq", CmpImm, Alu, Compare, "c = rs1 == imm";
    CmpNeI = "cmp.ne", CmpImm, Alu, Compare, "c = rs1 != imm";
    CmpLtI = "cmp.lt", CmpImm, Alu, Compare, "c = rs1 < imm, signed";
    CmpLeI = "cmp.le", CmpImm, Alu, Compare, "c = rs1 <= imm, signed";
    CmpGtI = "cmp.gt", CmpImm, Alu, Compare, "c = rs1 > imm, signed";
    CmpGeI = "cmp.ge", CmpImm, Alu, Compare, "c = rs1 >= imm, signed";
    CmpLtuI = "cmp.ltu", CmpImm, Alu, Compare, "c = rs1 < imm, unsigned";
    CmpLeuI = "cmp.leu", CmpImm, Alu, Compare, "c = rs1 <= imm, unsigned";
    CmpGtuI = "cmp.gtu", CmpImm, Alu, Compare, "c = rs1 > imm, unsigned";
    CmpGeuI = "cmp.geu", CmpImm, Alu, Compare, "c = rs1 >= imm, unsigned";
    CmpwEq = "cmpw.eq", Cmp, Alu, Compare, "c = low32(rs1) == low32(rs2)";
    CmpwNe = "cmpw.ne", Cmp, Alu, Compare, "c = low32(rs1) != low32(rs2)";
    CmpwLt = "cmpw.lt", Cmp, Alu, Compare, "c = low32(rs1) < low32(rs2), signed";
    CmpwLe = "cmpw.le", Cmp, Alu, Compare, "c = low32(rs1) <= low32(rs2), signed";
    CmpwGt = "cmpw.gt", Cmp, Alu, Compare, "c = low32(rs1) > low32(rs2), signed";
    CmpwGe = "cmpw.ge", Cmp, Alu, Compare, "c = low32(rs1) >= low32(rs2), signed";
    CmpwLtu = "cmpw.ltu", Cmp, Alu, Compare, "c = low32(rs1) < low32(rs2), unsigned";
    CmpwLeu = "cmpw.leu", Cmp, Alu, Compare, "c = low32(rs1) <= low32(rs2), unsigned";
    CmpwGtu = "cmpw.gtu", Cmp, Alu, Compare, "c = low32(rs1) > low32(rs2), unsigned";
    CmpwGeu = "cmpw.geu", Cmp, Alu, Compare, "c = low32(rs1) >= low32(rs2), unsigned";
    CmpwEqI = "cmpw.eq", CmpImm, Alu, Compare, "c = low32(rs1) == low32(imm)";
    CmpwNeI = "cmpw.ne", CmpImm, Alu, Compare, "c = low32(rs1) != low32(imm)";
    CmpwLtI = "cmpw.lt", CmpImm, Alu, Compare, "c = low32(rs1) < low32(imm), signed";
    CmpwLeI = "cmpw.le", CmpImm, Alu, Compare, "c = low32(rs1) <= low32(imm), signed";
    CmpwGtI = "cmpw.gt", CmpImm, Alu, Compare, "c = low32(rs1) > low32(imm), signed";
    CmpwGeI = "cmpw.ge", CmpImm, Alu, Compare, "c = low32(rs1) >= low32(imm), signed";
    CmpwLtuI = "cmpw.ltu", CmpImm, Alu, Compare, "c = low32(rs1) < low32(imm), unsigned";
    CmpwLeuI = "cmpw.leu", CmpImm, Alu, Compare, "c = low32(rs1) <= low32(imm), unsigned";
    CmpwGtuI = "cmpw.gtu", CmpImm, Alu, Compare, "c = low32(rs1) > low32(imm), unsigned";
    CmpwGeuI = "cmpw.geu", CmpImm, Alu, Compare, "c = low32(rs1) >= low32(imm), unsigned";

    // --- predicate logic and moves between predicates and registers
    Pand = "pand", PLogic, Alu, Compare, "pd1 = ps1 & ps2";
    Por = "por", PLogic, Alu, Compare, "pd1 = ps1 | ps2";
    Pxor = "pxor", PLogic, Alu, Compare, "pd1 = ps1 ^ ps2";
    Pandn = "pandn", PLogic, Alu, Compare, "pd1 = ps1 & !ps2";
    Porn = "porn", PLogic, Alu, Compare, "pd1 = ps1 | !ps2";
    Pnot = "pnot", PUnary, Alu, Compare, "pd1 = !ps1";
    P2r = "p2r", P2R, Alu, Alu, "rd = ps1 ? 1 : 0";
    R2p = "r2p", R2P, Alu, Compare, "pd1 = rs1 != 0";

    // --- loads: rd = memory[rs1 + imm]; faulting on unmapped or misaligned addresses
    LdB = "ld.b", Load, Mem, Load, "rd = sign-extended byte";
    LdBu = "ld.bu", Load, Mem, Load, "rd = zero-extended byte";
    LdH = "ld.h", Load, Mem, Load, "rd = sign-extended 16-bit halfword";
    LdHu = "ld.hu", Load, Mem, Load, "rd = zero-extended 16-bit halfword";
    LdW = "ld.w", Load, Mem, Load, "rd = sign-extended 32-bit word";
    LdWu = "ld.wu", Load, Mem, Load, "rd = zero-extended 32-bit word";
    LdD = "ld.d", Load, Mem, Load, "rd = 64-bit doubleword";
    // --- speculative (non-faulting) loads: an unmapped or misaligned address yields 0
    LdsB = "lds.b", Load, Mem, Load, "speculative ld.b: 0 instead of a fault";
    LdsBu = "lds.bu", Load, Mem, Load, "speculative ld.bu: 0 instead of a fault";
    LdsH = "lds.h", Load, Mem, Load, "speculative ld.h: 0 instead of a fault";
    LdsHu = "lds.hu", Load, Mem, Load, "speculative ld.hu: 0 instead of a fault";
    LdsW = "lds.w", Load, Mem, Load, "speculative ld.w: 0 instead of a fault";
    LdsWu = "lds.wu", Load, Mem, Load, "speculative ld.wu: 0 instead of a fault";
    LdsD = "lds.d", Load, Mem, Load, "speculative ld.d: 0 instead of a fault";
    // --- stores: memory[rs1 + imm] = low bits of rs2
    StB = "st.b", Store, Mem, Alu, "store the low byte of rs2";
    StH = "st.h", Store, Mem, Alu, "store the low 16 bits of rs2";
    StW = "st.w", Store, Mem, Alu, "store the low 32 bits of rs2";
    StD = "st.d", Store, Mem, Alu, "store rs2";

    // --- atomics: rd = old value (zero-extended), memory updated, one indivisible step
    CasB = "cas.b", Cas, Mem, Load, "rd = old byte at [rs1]; if old == low8(rs2) store low8(rs3)";
    CasH = "cas.h", Cas, Mem, Load, "rd = old halfword at [rs1]; if old == low16(rs2) store low16(rs3)";
    CasW = "cas.w", Cas, Mem, Load, "rd = old word at [rs1]; if old == low32(rs2) store low32(rs3)";
    CasD = "cas.d", Cas, Mem, Load, "rd = old doubleword at [rs1]; if old == rs2 store rs3";
    AmoswapB = "amoswap.b", Amo, Mem, Load, "rd = old byte; store rs2";
    AmoswapH = "amoswap.h", Amo, Mem, Load, "rd = old halfword; store rs2";
    AmoswapW = "amoswap.w", Amo, Mem, Load, "rd = old word; store rs2";
    AmoswapD = "amoswap.d", Amo, Mem, Load, "rd = old doubleword; store rs2";
    AmoaddB = "amoadd.b", Amo, Mem, Load, "rd = old byte; store old + rs2";
    AmoaddH = "amoadd.h", Amo, Mem, Load, "rd = old halfword; store old + rs2";
    AmoaddW = "amoadd.w", Amo, Mem, Load, "rd = old word; store old + rs2";
    AmoaddD = "amoadd.d", Amo, Mem, Load, "rd = old doubleword; store old + rs2";
    AmoandB = "amoand.b", Amo, Mem, Load, "rd = old byte; store old & rs2";
    AmoandH = "amoand.h", Amo, Mem, Load, "rd = old halfword; store old & rs2";
    AmoandW = "amoand.w", Amo, Mem, Load, "rd = old word; store old & rs2";
    AmoandD = "amoand.d", Amo, Mem, Load, "rd = old doubleword; store old & rs2";
    AmoorB = "amoor.b", Amo, Mem, Load, "rd = old byte; store old | rs2";
    AmoorH = "amoor.h", Amo, Mem, Load, "rd = old halfword; store old | rs2";
    AmoorW = "amoor.w", Amo, Mem, Load, "rd = old word; store old | rs2";
    AmoorD = "amoor.d", Amo, Mem, Load, "rd = old doubleword; store old | rs2";
    AmoxorB = "amoxor.b", Amo, Mem, Load, "rd = old byte; store old ^ rs2";
    AmoxorH = "amoxor.h", Amo, Mem, Load, "rd = old halfword; store old ^ rs2";
    AmoxorW = "amoxor.w", Amo, Mem, Load, "rd = old word; store old ^ rs2";
    AmoxorD = "amoxor.d", Amo, Mem, Load, "rd = old doubleword; store old ^ rs2";
    AmominB = "amomin.b", Amo, Mem, Load, "rd = old byte; store signed min(old, rs2)";
    AmominH = "amomin.h", Amo, Mem, Load, "rd = old halfword; store signed min(old, rs2)";
    AmominW = "amomin.w", Amo, Mem, Load, "rd = old word; store signed min(old, rs2)";
    AmominD = "amomin.d", Amo, Mem, Load, "rd = old doubleword; store signed min(old, rs2)";
    AmomaxB = "amomax.b", Amo, Mem, Load, "rd = old byte; store signed max(old, rs2)";
    AmomaxH = "amomax.h", Amo, Mem, Load, "rd = old halfword; store signed max(old, rs2)";
    AmomaxW = "amomax.w", Amo, Mem, Load, "rd = old word; store signed max(old, rs2)";
    AmomaxD = "amomax.d", Amo, Mem, Load, "rd = old doubleword; store signed max(old, rs2)";
    AmominuB = "amominu.b", Amo, Mem, Load, "rd = old byte; store unsigned min(old, rs2)";
    AmominuH = "amominu.h", Amo, Mem, Load, "rd = old halfword; store unsigned min(old, rs2)";
    AmominuW = "amominu.w", Amo, Mem, Load, "rd = old word; store unsigned min(old, rs2)";
    AmominuD = "amominu.d", Amo, Mem, Load, "rd = old doubleword; store unsigned min(old, rs2)";
    AmomaxuB = "amomaxu.b", Amo, Mem, Load, "rd = old byte; store unsigned max(old, rs2)";
    AmomaxuH = "amomaxu.h", Amo, Mem, Load, "rd = old halfword; store unsigned max(old, rs2)";
    AmomaxuW = "amomaxu.w", Amo, Mem, Load, "rd = old word; store unsigned max(old, rs2)";
    AmomaxuD = "amomaxu.d", Amo, Mem, Load, "rd = old doubleword; store unsigned max(old, rs2)";
    Fence = "fence", None, Mem, Alu, "memory fence (orders nothing on this single-issue-stream machine; kept for atomics)";

    // --- floating point, IEEE 754 binary32 (.s, low 32 bits of a register) and binary64 (.d)
    FaddS = "fadd.s", R2, Fpu, Float, "rd = rs1 + rs2";
    FaddD = "fadd.d", R2, Fpu, Float, "rd = rs1 + rs2";
    FsubS = "fsub.s", R2, Fpu, Float, "rd = rs1 - rs2";
    FsubD = "fsub.d", R2, Fpu, Float, "rd = rs1 - rs2";
    FmulS = "fmul.s", R2, Fpu, Float, "rd = rs1 * rs2";
    FmulD = "fmul.d", R2, Fpu, Float, "rd = rs1 * rs2";
    FdivS = "fdiv.s", R2, Fpu, FloatDivide, "rd = rs1 / rs2";
    FdivD = "fdiv.d", R2, Fpu, FloatDivide, "rd = rs1 / rs2";
    FsqrtS = "fsqrt.s", R1, Fpu, FloatDivide, "rd = sqrt(rs1)";
    FsqrtD = "fsqrt.d", R1, Fpu, FloatDivide, "rd = sqrt(rs1)";
    FmaS = "fma.s", R3, Fpu, Float, "rd = rs1 * rs2 + rs3, one rounding";
    FmaD = "fma.d", R3, Fpu, Float, "rd = rs1 * rs2 + rs3, one rounding";
    FminS = "fmin.s", R2, Fpu, Float, "rd = minNum(rs1, rs2): the other operand if one is NaN (Rust's f32::min)";
    FminD = "fmin.d", R2, Fpu, Float, "rd = minNum(rs1, rs2) (Rust's f64::min)";
    FmaxS = "fmax.s", R2, Fpu, Float, "rd = maxNum(rs1, rs2) (Rust's f32::max)";
    FmaxD = "fmax.d", R2, Fpu, Float, "rd = maxNum(rs1, rs2) (Rust's f64::max)";
    FnegS = "fneg.s", R1, Alu, Alu, "rd = rs1 with the sign bit (31) flipped";
    FnegD = "fneg.d", R1, Alu, Alu, "rd = rs1 with the sign bit (63) flipped";
    FabsS = "fabs.s", R1, Alu, Alu, "rd = rs1 with the sign bit (31) cleared";
    FabsD = "fabs.d", R1, Alu, Alu, "rd = rs1 with the sign bit (63) cleared";
    FcopysignS = "fcopysign.s", R2, Alu, Alu, "rd = magnitude of rs1 with the sign of rs2";
    FcopysignD = "fcopysign.d", R2, Alu, Alu, "rd = magnitude of rs1 with the sign of rs2";
    FfloorS = "ffloor.s", R1, Fpu, Float, "rd = floor(rs1)";
    FfloorD = "ffloor.d", R1, Fpu, Float, "rd = floor(rs1)";
    FceilS = "fceil.s", R1, Fpu, Float, "rd = ceil(rs1)";
    FceilD = "fceil.d", R1, Fpu, Float, "rd = ceil(rs1)";
    FtruncS = "ftrunc.s", R1, Fpu, Float, "rd = rs1 rounded toward zero";
    FtruncD = "ftrunc.d", R1, Fpu, Float, "rd = rs1 rounded toward zero";
    FroundS = "fround.s", R1, Fpu, Float, "rd = rs1 rounded to nearest, ties away from zero";
    FroundD = "fround.d", R1, Fpu, Float, "rd = rs1 rounded to nearest, ties away from zero";
    FroundevenS = "froundeven.s", R1, Fpu, Float, "rd = rs1 rounded to nearest, ties to even";
    FroundevenD = "froundeven.d", R1, Fpu, Float, "rd = rs1 rounded to nearest, ties to even";
    // conversions: fcvt.TO.FROM; l = i64, lu = u64, w = i32, wu = u32
    FcvtDS = "fcvt.d.s", R1, Fpu, Float, "f64 from f32 (exact)";
    FcvtSD = "fcvt.s.d", R1, Fpu, Float, "f32 from f64, round to nearest even";
    FcvtSL = "fcvt.s.l", R1, Fpu, Float, "f32 from i64, round to nearest even";
    FcvtSLu = "fcvt.s.lu", R1, Fpu, Float, "f32 from u64, round to nearest even";
    FcvtSW = "fcvt.s.w", R1, Fpu, Float, "f32 from the low 32 bits as i32";
    FcvtSWu = "fcvt.s.wu", R1, Fpu, Float, "f32 from the low 32 bits as u32";
    FcvtDL = "fcvt.d.l", R1, Fpu, Float, "f64 from i64, round to nearest even";
    FcvtDLu = "fcvt.d.lu", R1, Fpu, Float, "f64 from u64, round to nearest even";
    FcvtDW = "fcvt.d.w", R1, Fpu, Float, "f64 from the low 32 bits as i32 (exact)";
    FcvtDWu = "fcvt.d.wu", R1, Fpu, Float, "f64 from the low 32 bits as u32 (exact)";
    FcvtLS = "fcvt.l.s", R1, Fpu, Float, "i64 from f32, toward zero, saturating, NaN to 0 (Rust `as`)";
    FcvtLuS = "fcvt.lu.s", R1, Fpu, Float, "u64 from f32, toward zero, saturating, NaN to 0";
    FcvtWS = "fcvt.w.s", R1, Fpu, Float, "i32 from f32 (sign-extended), toward zero, saturating, NaN to 0";
    FcvtWuS = "fcvt.wu.s", R1, Fpu, Float, "u32 from f32 (zero-extended), toward zero, saturating, NaN to 0";
    FcvtLD = "fcvt.l.d", R1, Fpu, Float, "i64 from f64, toward zero, saturating, NaN to 0";
    FcvtLuD = "fcvt.lu.d", R1, Fpu, Float, "u64 from f64, toward zero, saturating, NaN to 0";
    FcvtWD = "fcvt.w.d", R1, Fpu, Float, "i32 from f64 (sign-extended), toward zero, saturating, NaN to 0";
    FcvtWuD = "fcvt.wu.d", R1, Fpu, Float, "u32 from f64 (zero-extended), toward zero, saturating, NaN to 0";
    // float compares into predicates; all but .ne are false when an operand is NaN
    FcmpEqS = "fcmp.eq.s", Cmp, Fpu, FloatCompare, "c = rs1 == rs2";
    FcmpNeS = "fcmp.ne.s", Cmp, Fpu, FloatCompare, "c = !(rs1 == rs2) (true when unordered)";
    FcmpLtS = "fcmp.lt.s", Cmp, Fpu, FloatCompare, "c = rs1 < rs2";
    FcmpLeS = "fcmp.le.s", Cmp, Fpu, FloatCompare, "c = rs1 <= rs2";
    FcmpGtS = "fcmp.gt.s", Cmp, Fpu, FloatCompare, "c = rs1 > rs2";
    FcmpGeS = "fcmp.ge.s", Cmp, Fpu, FloatCompare, "c = rs1 >= rs2";
    FcmpUnoS = "fcmp.uno.s", Cmp, Fpu, FloatCompare, "c = rs1 or rs2 is NaN";
    FcmpOrdS = "fcmp.ord.s", Cmp, Fpu, FloatCompare, "c = neither rs1 nor rs2 is NaN";
    FcmpEqD = "fcmp.eq.d", Cmp, Fpu, FloatCompare, "c = rs1 == rs2";
    FcmpNeD = "fcmp.ne.d", Cmp, Fpu, FloatCompare, "c = !(rs1 == rs2) (true when unordered)";
    FcmpLtD = "fcmp.lt.d", Cmp, Fpu, FloatCompare, "c = rs1 < rs2";
    FcmpLeD = "fcmp.le.d", Cmp, Fpu, FloatCompare, "c = rs1 <= rs2";
    FcmpGtD = "fcmp.gt.d", Cmp, Fpu, FloatCompare, "c = rs1 > rs2";
    FcmpGeD = "fcmp.ge.d", Cmp, Fpu, FloatCompare, "c = rs1 >= rs2";
    FcmpUnoD = "fcmp.uno.d", Cmp, Fpu, FloatCompare, "c = rs1 or rs2 is NaN";
    FcmpOrdD = "fcmp.ord.d", Cmp, Fpu, FloatCompare, "c = neither rs1 nor rs2 is NaN";

    // --- control transfer (at most one per bundle; takes effect after the whole bundle)
    Br = "br", Branch, Branch, Alu, "continue at the target (address of this syllable + imm)";
    Jr = "jr", Jump, Branch, Alu, "continue at the address in rs1";
    Call = "call", Branch, Branch, Alu, "lr = address of the next bundle; continue at the target";
    Callr = "callr", Jump, Branch, Alu, "lr = address of the next bundle; continue at the address in rs1";
    Ret = "ret", None, Branch, Alu, "continue at the address in lr (r63)";
    Syscall = "syscall", Sys, Branch, Alu, "system call number imm: arguments r3..r8, result in r3 (docs/isa.md)";
    Trap = "trap", Sys, Branch, Alu, "stop the program with a trap fault carrying the code imm";

    // --- timing of the bundle itself (after the table's first entries, to keep their encodings)
    NopN = "nop", Sys, Alu, Alu, "multi-cycle no operation: the bundle takes imm cycles (1 to the machine's `max-nop`) instead of one, as if imm - 1 empty bundles followed it; takes an issue slot but no unit, and cannot be guarded";

    // --- shift-and-add (the `shift-add` extension, RISC-V Zba's sh1add..sh3add, Hexagon's
    // addasl): an indexed address `base + index * 2^k` in one operation; after the
    // table's first entries, to keep their encodings
    Sh1add = "sh1add", R2, Alu, Alu, "rd = (rs1 << 1) + rs2";
    Sh2add = "sh2add", R2, Alu, Alu, "rd = (rs1 << 2) + rs2";
    Sh3add = "sh3add", R2, Alu, Alu, "rd = (rs1 << 3) + rs2";
}

impl Opcode {
    pub fn info(self) -> &'static OpcodeInfo {
        &OPCODES[self as usize]
    }
    pub fn mnemonic(self) -> &'static str {
        self.info().mnemonic
    }
    pub fn format(self) -> Format {
        self.info().format
    }
    pub fn unit(self) -> Unit {
        self.info().unit
    }
    pub fn latency_class(self) -> LatencyClass {
        self.info().latency
    }
    /// The 9-bit value of the opcode field.
    pub fn encoding(self) -> u64 {
        self as u64 + 1
    }
    pub fn from_encoding(field: u64) -> Option<Opcode> {
        let index = usize::try_from(field.checked_sub(1)?).ok()?;
        OPCODES.get(index).map(|info| info.opcode)
    }
    pub fn all() -> impl Iterator<Item = Opcode> {
        OPCODES.iter().map(|info| info.opcode)
    }
    /// Whether the operation occupies a functional unit (`limm` and `nop N` take an
    /// issue slot only).
    /// `sh1add`, `sh2add` or `sh3add` (the `shift-add` extension).
    pub fn is_shift_add(self) -> bool {
        matches!(self, Opcode::Sh1add | Opcode::Sh2add | Opcode::Sh3add)
    }

    /// The shift-and-add operation for `(x << shift) + y`, if `shift` is 1 to 3.
    pub fn shift_add(shift: i64) -> Option<Opcode> {
        match shift {
            1 => Some(Opcode::Sh1add),
            2 => Some(Opcode::Sh2add),
            3 => Some(Opcode::Sh3add),
            _ => None,
        }
    }

    pub fn uses_unit(self) -> bool {
        !matches!(self, Opcode::Limm | Opcode::NopN)
    }
    /// Operations whose guard must be `p0` (they act on the bundle, not on values).
    pub fn is_never_guarded(self) -> bool {
        matches!(self, Opcode::Limm | Opcode::NopN)
    }
    /// How the manual and error messages name the operation: its mnemonic, or
    /// `nop N` for the multi-cycle `nop`.
    pub fn syntax_name(self) -> &'static str {
        match self {
            Opcode::NopN => "nop N",
            _ => self.mnemonic(),
        }
    }
    /// Operations that end the bundle's straight-line flow.
    pub fn is_control(self) -> bool {
        self.unit() == Unit::Branch
    }
    /// The speculative (non-faulting) form of an ordinary load.
    pub fn speculative_load(self) -> Option<Opcode> {
        Some(match self {
            Opcode::LdB => Opcode::LdsB,
            Opcode::LdBu => Opcode::LdsBu,
            Opcode::LdH => Opcode::LdsH,
            Opcode::LdHu => Opcode::LdsHu,
            Opcode::LdW => Opcode::LdsW,
            Opcode::LdWu => Opcode::LdsWu,
            Opcode::LdD => Opcode::LdsD,
            _ => return None,
        })
    }
    /// The ordinary (faulting) form of a speculative load.
    pub fn ordinary_load(self) -> Option<Opcode> {
        Some(match self {
            Opcode::LdsB => Opcode::LdB,
            Opcode::LdsBu => Opcode::LdBu,
            Opcode::LdsH => Opcode::LdH,
            Opcode::LdsHu => Opcode::LdHu,
            Opcode::LdsW => Opcode::LdW,
            Opcode::LdsWu => Opcode::LdWu,
            Opcode::LdsD => Opcode::LdD,
            _ => return None,
        })
    }
    pub fn is_speculative_load(self) -> bool {
        matches!(
            self,
            Opcode::LdsB
                | Opcode::LdsBu
                | Opcode::LdsH
                | Opcode::LdsHu
                | Opcode::LdsW
                | Opcode::LdsWu
                | Opcode::LdsD
        )
    }
}

/// IA-64 style compare types: how a compare's outcome `c` and its guard `g` update
/// the two destination predicates. `none` and `unc` write both destinations; the
/// others write constants when their condition holds, so that several compares in
/// one bundle can combine into an `and`/`or` of conditions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CmpType {
    /// if g: pd1 = c, pd2 = !c
    #[default]
    Normal,
    /// pd1 = g & c, pd2 = g & !c (writes even when the guard is false)
    Unc,
    /// if g & !c: pd1 = pd2 = 0
    And,
    /// if g & c: pd1 = pd2 = 1
    Or,
    /// if g & c: pd1 = pd2 = 0
    Andcm,
    /// if g & !c: pd1 = pd2 = 1
    Orcm,
    /// if g & c: pd1 = 1, pd2 = 0
    OrAndcm,
    /// if g & !c: pd1 = 0, pd2 = 1
    AndOrcm,
}

impl CmpType {
    pub const ALL: [CmpType; 8] = [
        CmpType::Normal,
        CmpType::Unc,
        CmpType::And,
        CmpType::Or,
        CmpType::Andcm,
        CmpType::Orcm,
        CmpType::OrAndcm,
        CmpType::AndOrcm,
    ];

    /// The mnemonic suffix, including its leading dot (empty for `Normal`).
    pub fn suffix(self) -> &'static str {
        match self {
            CmpType::Normal => "",
            CmpType::Unc => ".unc",
            CmpType::And => ".and",
            CmpType::Or => ".or",
            CmpType::Andcm => ".andcm",
            CmpType::Orcm => ".orcm",
            CmpType::OrAndcm => ".or.andcm",
            CmpType::AndOrcm => ".and.orcm",
        }
    }
    pub fn from_bits(bits: u64) -> CmpType {
        CmpType::ALL[(bits & 7) as usize]
    }
    pub fn bits(self) -> u64 {
        self as u64
    }

    /// The new values of (pd1, pd2) given guard `g`, outcome `c` and their old values
    /// (`semantics::compare_writes` says which destinations are written).
    pub fn apply(self, g: bool, c: bool, old: (bool, bool)) -> (bool, bool) {
        let (w1, w2) = crate::semantics::compare_writes(self, g, c);
        (w1.unwrap_or(old.0), w2.unwrap_or(old.1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn table_is_indexed_by_opcode_and_fits_the_field() {
        for (i, info) in OPCODES.iter().enumerate() {
            assert_eq!(info.opcode as usize, i);
            assert_eq!(
                Opcode::from_encoding(info.opcode.encoding()),
                Some(info.opcode)
            );
        }
        assert!(OPCODES.len() < 0x1ff, "the opcode field is 9 bits");
        assert_eq!(Opcode::from_encoding(0), None);
        assert_eq!(Opcode::from_encoding(OPCODES.len() as u64 + 1), None);
    }

    #[test]
    fn mnemonic_and_format_identify_an_opcode() {
        let mut seen = HashSet::new();
        for info in OPCODES {
            assert!(
                seen.insert((info.mnemonic, info.format)),
                "duplicate {} {:?}",
                info.mnemonic,
                info.format
            );
        }
    }

    #[test]
    fn nop_is_the_filler_bundle() {
        assert_eq!(Opcode::Nop.encoding(), 1);
    }

    #[test]
    fn unc_clears_both_when_the_guard_is_false() {
        assert_eq!(
            CmpType::Unc.apply(false, true, (true, true)),
            (false, false)
        );
        assert_eq!(
            CmpType::Normal.apply(false, true, (true, true)),
            (true, true)
        );
        assert_eq!(
            CmpType::And.apply(true, false, (true, true)),
            (false, false)
        );
        assert_eq!(CmpType::And.apply(true, true, (true, false)), (true, false));
    }
}
