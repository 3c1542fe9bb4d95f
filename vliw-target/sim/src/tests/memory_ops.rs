//! Loads, stores, speculative loads, atomics.

use super::*;

/// Data at `DATA`: bytes 0x80 0x81 ... 0x8f, then zeros.
fn data() -> Vec<u8> {
    (0x80..0x90).collect()
}

/// Runs bundles with r10 = DATA, r11 = 1, r12 = -1, r13 = 0x1234, then waits out
/// latencies and exits.
fn run_mem(body: &[&[&str]]) -> Run {
    let mut bundles: Vec<&[&str]> = vec![&[
        "movi r10 = 0x20000",
        "movi r11 = 1",
        "movi r12 = -1",
        "movi r13 = 0x1234",
    ]];
    bundles.extend_from_slice(body);
    bundles.push(&["nop"]);
    bundles.push(&["nop"]);
    bundles.push(&["nop"]);
    bundles.push(&["movi r3 = 0"]);
    bundles.push(&["syscall 0"]);
    let r = Test::new(&bundles).data(&data()).max_cycles(10_000).run();
    assert_eq!(r.exit_code(), 0);
    r
}

#[test]
fn loads_extend_as_their_opcode_says() {
    let r = run_mem(&[
        &["ld.b r20 = [r10]", "ld.bu r21 = [r10 + 1]"],
        &["ld.h r22 = [r10 + 2]", "ld.hu r23 = [r10 + 2]"],
        &["ld.w r24 = [r10 + 4]", "ld.wu r25 = [r10 + 4]"],
        &["ld.d r26 = [r10 + 8]", "ld.d r27 = [r10 + long 16]"],
    ]);
    assert_eq!(r.reg(20), 0xffff_ffff_ffff_ff80);
    assert_eq!(r.reg(21), 0x81);
    assert_eq!(r.reg(22), 0xffff_ffff_ffff_8382);
    assert_eq!(r.reg(23), 0x8382);
    assert_eq!(r.reg(24), 0xffff_ffff_8786_8584);
    assert_eq!(r.reg(25), 0x8786_8584);
    assert_eq!(r.reg(26), 0x8f8e_8d8c_8b8a_8988);
    assert_eq!(r.reg(27), 0);
}

#[test]
fn stores_then_loads() {
    let r = Test::new(&[
        &["movi r10 = 0x20000", "movi r20 = long 0x1122334455667788"],
        &["st.b [r10 + 16] = r20", "st.h [r10 + 18] = r20"],
        &["st.w [r10 + 20] = r20", "st.d [r10 + 24] = r20"],
        &["st.d [r10 - 8] = r20"],
    ])
    .data(&data())
    .run();
    assert_eq!(
        r.fault(),
        "fault: unmapped 8-byte store at 0x1fff8 in bundle 0x10038"
    );
    assert_eq!(r.load(DATA + 16, 8), 0x5566_7788_7788_0088);
    assert_eq!(r.load(DATA + 24, 8), 0x1122_3344_5566_7788);
    assert_eq!(r.load(DATA, 1), 0x80, "untouched");
}

#[test]
fn speculative_loads_never_fault() {
    let r = run_mem(&[
        &["lds.d r20 = [r0]", "lds.w r21 = [r10 + 2]"], // unmapped; misaligned
        &["lds.b r22 = [r10]", "lds.bu r23 = [r10]"],   // mapped: like ld
        &["lds.h r24 = [r10 + 2]", "lds.hu r25 = [r10 + 2]"],
        &["lds.w r26 = [r10 + 4]", "lds.wu r27 = [r10 + 4]"],
        &["lds.d r28 = [r10 + 8]", "lds.hu r29 = [r12]"], // r12 = -1: unmapped and misaligned
        &["movi r30 = long 0x7ffefff00000"],
        &["lds.d r31 = [r30]"], // the stack guard
    ]);
    assert_eq!((r.reg(20), r.reg(21)), (0, 0));
    assert_eq!((r.reg(22), r.reg(23)), (0xffff_ffff_ffff_ff80, 0x80));
    assert_eq!((r.reg(24), r.reg(25)), (0xffff_ffff_ffff_8382, 0x8382));
    assert_eq!((r.reg(26), r.reg(27)), (0xffff_ffff_8786_8584, 0x8786_8584));
    assert_eq!(
        (r.reg(28), r.reg(29), r.reg(31)),
        (0x8f8e_8d8c_8b8a_8988, 0, 0)
    );
}

#[test]
fn atomics_return_the_old_value_zero_extended() {
    // Memory at DATA: 80 81 82 83 84 85 86 87 | 88 .. 8f.
    let r = run_mem(&[
        &["amoadd.b r20 = [r10], r11"], // [0] = 0x81, r20 = 0x80
        &["add r14 = r10, 2"],
        &["amoswap.h r21 = [r14], r13"], // [2..4] = 0x1234, r21 = 0x8382
        &["add r15 = r10, 4"],
        &["amoand.w r22 = [r15], r13"], // r22 = 0x87868584
        &["add r16 = r10, 8"],
        &["amoor.d r23 = [r16], r11"],  // r23 = 0x8f8e...88, [8] |= 1
        &["amoxor.d r24 = [r16], r12"], // r24 = old | 1, [8] = !that
    ]);
    assert_eq!(
        (r.reg(20), r.reg(21), r.reg(22)),
        (0x80, 0x8382, 0x8786_8584)
    );
    assert_eq!(r.reg(23), 0x8f8e_8d8c_8b8a_8988);
    assert_eq!(r.reg(24), 0x8f8e_8d8c_8b8a_8989);
    assert_eq!(r.load(DATA, 1), 0x81);
    assert_eq!(r.load(DATA + 2, 2), 0x1234);
    assert_eq!(r.load(DATA + 4, 4), 0x8786_8584 & 0x1234);
    assert_eq!(r.load(DATA + 8, 8), !0x8f8e_8d8c_8b8a_8989u64);
}

#[test]
fn atomic_min_and_max_compare_values_of_their_width() {
    // [0] = 0x80 (-128 as i8). Signed min with 1 keeps 0x80; unsigned min stores 1.
    let r = run_mem(&[
        &["amomin.b r20 = [r10], r11"],
        &["amomax.b r21 = [r10], r11"], // -128 vs 1: stores 1
        &["add r14 = r10, 2"],
        &["amominu.h r22 = [r14], r13"], // 0x8382 vs 0x1234: stores 0x1234
        &["add r15 = r10, 4"],
        &["amomaxu.w r23 = [r15], r12"], // vs 0xffffffff: stores it
        &["add r16 = r10, 8"],
        &["amomin.d r24 = [r16], r11"],  // 0x8f8e.. is negative: kept
        &["amomax.w r25 = [r15], r11"],  // -1 vs 1: stores 1
        &["amomaxu.d r26 = [r16], r11"], // kept
        &["amominu.b r27 = [r10], r12"], // 1 vs 0xff: keeps 1
    ]);
    assert_eq!(
        (r.reg(20), r.reg(21), r.reg(22), r.reg(23)),
        (0x80, 0x80, 0x8382, 0x8786_8584)
    );
    assert_eq!(
        (r.reg(24), r.reg(25), r.reg(26), r.reg(27)),
        (0x8f8e_8d8c_8b8a_8988, 0xffff_ffff, 0x8f8e_8d8c_8b8a_8988, 1)
    );
    assert_eq!(r.load(DATA, 1), 1);
    assert_eq!(r.load(DATA + 2, 2), 0x1234);
    assert_eq!(r.load(DATA + 4, 4), 1);
    assert_eq!(r.load(DATA + 8, 8), 0x8f8e_8d8c_8b8a_8988);
}

#[test]
fn compare_and_swap() {
    let r = run_mem(&[
        &["movi r20 = 0x180", "movi r21 = 0x55"],
        &["cas.b r22 = [r10], r20, r21"], // low8(0x180) = 0x80 == old: stores 0x55
        &["cas.b r23 = [r10], r20, r13"], // 0x55 != 0x80: no store
        &["add r14 = r10, 8"],
        &["movi r24 = long 0x8f8e8d8c8b8a8988"],
        &["cas.d r25 = [r14], r24, r13"], // equal: stores 0x1234
        &["add r15 = r10, 4"],
        &["movi r26 = long 0xffffffff87868584"],
        &["cas.w r27 = [r15], r26, r11"], // low32 equal: stores 1
        &["add r16 = r10, 2"],
        &["cas.h r28 = [r16], r11, r11"], // 0x8382 != 1: no store
    ]);
    assert_eq!(
        (r.reg(22), r.reg(23), r.reg(25)),
        (0x80, 0x55, 0x8f8e_8d8c_8b8a_8988)
    );
    assert_eq!((r.reg(27), r.reg(28)), (0x8786_8584, 0x8382));
    assert_eq!(r.load(DATA, 1), 0x55);
    assert_eq!(r.load(DATA + 8, 8), 0x1234);
    assert_eq!(r.load(DATA + 4, 4), 1);
    assert_eq!(r.load(DATA + 2, 2), 0x8382);
}

#[test]
fn fence_is_a_no_op() {
    let r = run_mem(&[&["fence", "movi r20 = 3"]]);
    assert_eq!(r.reg(20), 3);
}
