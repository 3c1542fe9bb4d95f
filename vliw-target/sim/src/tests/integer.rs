//! Every integer operation, through whole programs (`op2`: r3 = op(r4, r5)).

use super::*;

const MIN: u64 = i64::MIN as u64;
const MAX: u64 = i64::MAX as u64;
const NEG1: u64 = u64::MAX;

fn check(cases: &[(&str, u64, u64, u64)]) {
    for &(op, a, b, expected) in cases {
        let got = op2(op, a, b);
        assert_eq!(
            got, expected,
            "`{op}` with r4 = {a:#x}, r5 = {b:#x}: got {got:#x}, expected {expected:#x}"
        );
    }
}

#[test]
fn moves_and_64_bit_arithmetic() {
    check(&[
        ("mov r3 = r4", 42, 0, 42),
        ("movi r3 = -5", 0, 0, -5i64 as u64),
        ("movi r3 = 0x123456789abcdef0", 0, 0, 0x1234_5678_9abc_def0),
        ("add r3 = r4, r5", MAX, 1, MIN),
        ("add r3 = r4, -1", 0, 0, NEG1),
        ("sub r3 = r4, r5", 0, 1, NEG1),
        ("sub r3 = r4, 10", 3, 0, 7),
        ("sub r3 = r0, r4", 5, 0, -5i64 as u64),
        ("and r3 = r4, r5", 0b1100, 0b1010, 0b1000),
        ("and r3 = r4, -16", 0x1234, 0, 0x1230),
        ("andn r3 = r4, r5", 0b1100, 0b1010, 0b0100),
        ("or r3 = r4, r5", 0b1100, 0b1010, 0b1110),
        ("or r3 = r4, 1", 0b1100, 0, 0b1101),
        ("xor r3 = r4, r5", 0b1100, 0b1010, 0b0110),
        ("xor r3 = r4, -1", 0, 0, NEG1),
        ("min r3 = r4, r5", NEG1, 1, NEG1),
        ("max r3 = r4, r5", NEG1, 1, 1),
        ("minu r3 = r4, r5", NEG1, 1, 1),
        ("maxu r3 = r4, r5", NEG1, 1, NEG1),
        ("sel r3 = p0, r4, r5", 1, 2, 1),
        ("sel r3 = p1, r4, r5", 1, 2, 2),
    ]);
}

#[test]
fn shift_and_add_wraps() {
    check(&[
        ("sh1add r3 = r4, r5", 5, 100, 110),
        ("sh2add r3 = r4, r5", 5, 100, 120),
        ("sh3add r3 = r4, r5", 5, 100, 140),
        ("sh2add r3 = r4, r5", NEG1, 0, -4i64 as u64),
        ("sh3add r3 = r4, r5", MIN | 1, 1, 9),
        ("sh1add r3 = r4, r5", MAX, 2, 0),
    ]);
}

#[test]
fn shifts_take_the_amount_modulo_the_width() {
    check(&[
        ("shl r3 = r4, r5", 1, 63, MIN),
        ("shl r3 = r4, r5", 1, 64, 1),
        ("shl r3 = r4, 65", 1, 0, 2),
        ("shr r3 = r4, r5", MIN, 63, 1),
        ("shr r3 = r4, r5", MIN, 64 + 4, MIN >> 4),
        ("shr r3 = r4, 1", NEG1, 0, MAX),
        ("sra r3 = r4, r5", MIN, 63, NEG1),
        ("sra r3 = r4, 4", MIN, 0, 0xf800_0000_0000_0000),
        ("sra r3 = r4, r5", MIN, 128, MIN),
        ("rotl r3 = r4, r5", MIN | 1, 1, 3),
        ("rotl r3 = r4, 68", 1, 0, 16),
        ("rotr r3 = r4, r5", 3, 1, MIN | 1),
        ("rotr r3 = r4, r5", 3, 65, MIN | 1),
    ]);
}

#[test]
fn word_operations_sign_extend() {
    check(&[
        ("addw r3 = r4, r5", 0x7fff_ffff, 1, 0xffff_ffff_8000_0000),
        ("addw r3 = r4, 1", 0xdead_0000_ffff_ffff, 0, 0),
        ("subw r3 = r4, r5", 0, 1, NEG1),
        ("subw r3 = r4, r5", 0x1_0000_0000, 0, 0),
        ("shlw r3 = r4, r5", 1, 31, 0xffff_ffff_8000_0000),
        ("shlw r3 = r4, r5", 1, 32, 1),
        ("shlw r3 = r4, 33", 1, 0, 2),
        ("shrw r3 = r4, r5", 0xffff_ffff_8000_0000, 31, 1),
        ("shrw r3 = r4, 0", 0x1_8000_0000, 0, 0xffff_ffff_8000_0000),
        ("shrw r3 = r4, 36", 0xffff_ffff_8000_0000, 0, 0x0800_0000),
        ("sraw r3 = r4, r5", 0x8000_0000, 4, 0xffff_ffff_f800_0000),
        ("sraw r3 = r4, 32", 0x8000_0000, 0, 0xffff_ffff_8000_0000),
        ("rotlw r3 = r4, r5", 0x8000_0001, 1, 3),
        ("rotlw r3 = r4, 1", 0x4000_0000, 0, 0xffff_ffff_8000_0000),
        ("rotrw r3 = r4, r5", 3, 1, 0xffff_ffff_8000_0001),
        ("rotrw r3 = r4, r5", 3, 33, 0xffff_ffff_8000_0001),
    ]);
}

#[test]
fn bit_manipulation_and_extension() {
    check(&[
        ("clz r3 = r4", 0, 0, 64),
        ("clz r3 = r4", 1, 0, 63),
        ("ctz r3 = r4", 0, 0, 64),
        ("ctz r3 = r4", MIN, 0, 63),
        ("popc r3 = r4", NEG1, 0, 64),
        ("popc r3 = r4", 0xf0f0, 0, 8),
        ("clzw r3 = r4", 0xffff_ffff_0000_0000, 0, 32),
        ("clzw r3 = r4", 0x0000_8000, 0, 16),
        ("ctzw r3 = r4", 0xffff_ffff_0000_0000, 0, 32),
        ("ctzw r3 = r4", 0x100, 0, 8),
        (
            "bswap r3 = r4",
            0x0102_0304_0506_0708,
            0,
            0x0807_0605_0403_0201,
        ),
        ("brev r3 = r4", 1, 0, MIN),
        ("brev r3 = r4", 0x0f, 0, 0xf000_0000_0000_0000),
        ("sxtb r3 = r4", 0x1ff, 0, NEG1),
        ("sxtb r3 = r4", 0x17f, 0, 0x7f),
        ("sxth r3 = r4", 0x8000, 0, 0xffff_ffff_ffff_8000),
        ("sxtw r3 = r4", 0x1_8000_0000, 0, 0xffff_ffff_8000_0000),
        ("zxtb r3 = r4", NEG1, 0, 0xff),
        ("zxth r3 = r4", NEG1, 0, 0xffff),
        ("zxtw r3 = r4", NEG1, 0, 0xffff_ffff),
    ]);
}

#[test]
fn multiply() {
    check(&[
        ("mul r3 = r4, r5", 3, NEG1, -3i64 as u64),
        ("mul r3 = r4, r5", 1 << 32, 1 << 32, 0),
        ("mul r3 = r4, -7", 6, 0, -42i64 as u64),
        ("mulw r3 = r4, r5", 0x10000, 0x8000, 0xffff_ffff_8000_0000),
        ("mulw r3 = r4, r5", 0x1_0000_0003, 2, 6),
        ("mulh r3 = r4, r5", NEG1, NEG1, 0),
        ("mulh r3 = r4, r5", MIN, MIN, 1 << 62),
        ("mulh r3 = r4, r5", MIN, 3, NEG1 - 1),
        ("mulhu r3 = r4, r5", NEG1, NEG1, NEG1 - 1),
        ("mulhu r3 = r4, r5", 1 << 63, 4, 2),
    ]);
}

#[test]
fn division_never_traps() {
    check(&[
        ("div r3 = r4, r5", 7, 2, 3),
        ("div r3 = r4, r5", -7i64 as u64, 2, -3i64 as u64),
        ("div r3 = r4, r5", 7, 0, NEG1),
        ("div r3 = r4, r5", MIN, NEG1, MIN),
        ("divu r3 = r4, r5", NEG1, 2, MAX),
        ("divu r3 = r4, r5", 7, 0, NEG1),
        ("rem r3 = r4, r5", -7i64 as u64, 2, NEG1),
        ("rem r3 = r4, r5", 7, -2i64 as u64, 1),
        ("rem r3 = r4, r5", 7, 0, 7),
        ("rem r3 = r4, r5", MIN, NEG1, 0),
        ("remu r3 = r4, r5", NEG1, 10, 5),
        ("remu r3 = r4, r5", 7, 0, 7),
        ("divw r3 = r4, r5", 0xffff_fff9, 2, -3i64 as u64),
        (
            "divw r3 = r4, r5",
            0x8000_0000,
            0xffff_ffff,
            0xffff_ffff_8000_0000,
        ),
        ("divw r3 = r4, r5", 5, 0x1_0000_0000, NEG1),
        ("divuw r3 = r4, r5", 0xffff_fffe, 1, 0xffff_ffff_ffff_fffe),
        ("divuw r3 = r4, r5", 0xffff_fffe, 2, 0x7fff_ffff),
        ("divuw r3 = r4, r5", 9, 0, NEG1),
        ("remw r3 = r4, r5", 0xffff_fff9, 2, NEG1),
        ("remw r3 = r4, r5", 0x8000_0000, 0xffff_ffff, 0),
        ("remw r3 = r4, r5", 0xabcd_0000_0000_0007, 0, 7),
        ("remuw r3 = r4, r5", 0xffff_ffff, 10, 5),
        ("remuw r3 = r4, r5", 0x8000_0007, 0, 0xffff_ffff_8000_0007),
    ]);
}

#[test]
fn writes_to_r0_are_discarded() {
    let r = run(&[
        &["movi r0 = 5"],
        &["add r3 = r0, 1", "add r0 = r0, 9"],
        &["add r4 = r0, r0"],
    ]);
    assert_eq!((r.reg(0), r.reg(3), r.reg(4)), (0, 1, 0));
}

#[test]
fn addpc_is_relative_to_its_own_syllable() {
    let r = run(&[&["nop", "addpc r3 = .+8"], &["addpc r4 = .-16"]]);
    assert_eq!(r.reg(3), TEXT + 8 + 8);
    assert_eq!(r.reg(4), TEXT + 16 - 16);
}
