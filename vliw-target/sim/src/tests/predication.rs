//! Compares, compare types, guards, predicate logic, nullification.

use super::*;
use vliw_isa::CmpType;

/// The outcome of `cmp` (written `p1, p2 = r4, r5` or `p1, p2 = r4, IMM`).
fn compare(op: &str, a: u64, b: u64) -> bool {
    let set_a = format!("movi r4 = {a:#x}");
    let set_b = format!("movi r5 = {b:#x}");
    let r = Test::new(&[&[&set_a, &set_b], &[op], &["syscall 0"]])
        .max_cycles(1000)
        .run();
    r.exit_code();
    assert_ne!(
        r.pred(1),
        r.pred(2),
        "`{op}`: a plain compare writes c and !c"
    );
    r.pred(1)
}

const MIN: u64 = i64::MIN as u64;
const NEG1: u64 = u64::MAX;

#[test]
fn integer_compares() {
    let cases: &[(&str, u64, u64, bool)] = &[
        ("cmp.eq", 5, 5, true),
        ("cmp.eq", 5, 6, false),
        ("cmp.ne", 5, 6, true),
        ("cmp.ne", 5, 5, false),
        ("cmp.lt", NEG1, 0, true),
        ("cmp.lt", 0, NEG1, false),
        ("cmp.le", 5, 5, true),
        ("cmp.le", MIN, NEG1, true),
        ("cmp.gt", 0, NEG1, true),
        ("cmp.gt", 5, 5, false),
        ("cmp.ge", 5, 5, true),
        ("cmp.ge", NEG1, 0, false),
        ("cmp.ltu", 0, NEG1, true),
        ("cmp.ltu", NEG1, 0, false),
        ("cmp.leu", NEG1, NEG1, true),
        ("cmp.leu", NEG1, 1, false),
        ("cmp.gtu", NEG1, 0, true),
        ("cmp.gtu", 0, 0, false),
        ("cmp.geu", 0, 0, true),
        ("cmp.geu", 0, 1, false),
        // 32-bit compares look at the low halves only.
        ("cmpw.eq", 0x1_0000_0005, 5, true),
        ("cmpw.ne", 0x1_0000_0005, 5, false),
        ("cmpw.lt", 0x8000_0000, 0, true),
        ("cmpw.lt", 0xffff_ffff_0000_0001, 0xffff_ffff, false),
        ("cmpw.le", 0xffff_ffff, 0xffff_ffff, true),
        ("cmpw.gt", 0x7fff_ffff, 0x8000_0000, true),
        ("cmpw.ge", 0x8000_0000, 0, false),
        ("cmpw.ltu", 0, 0x8000_0000, true),
        ("cmpw.ltu", 0x1_0000_0000, 1, true),
        ("cmpw.leu", 0x8000_0000, 0x1_8000_0000, true),
        ("cmpw.gtu", 0x8000_0000, 0x7fff_ffff, true),
        ("cmpw.geu", 0x7fff_ffff, 0x8000_0000, false),
    ];
    for &(mnemonic, a, b, expected) in cases {
        let op = format!("{mnemonic} p1, p2 = r4, r5");
        assert_eq!(compare(&op, a, b), expected, "`{op}` with {a:#x}, {b:#x}");
    }
}

#[test]
fn compares_with_immediates() {
    // The immediate is sign-extended to 64 bits, then compared as the opcode says.
    let cases: &[(&str, u64, bool)] = &[
        ("cmp.eq p1, p2 = r4, -1", NEG1, true),
        ("cmp.ne p1, p2 = r4, 3", 3, false),
        ("cmp.lt p1, p2 = r4, -1", MIN, true),
        ("cmp.le p1, p2 = r4, 0", 0, true),
        ("cmp.gt p1, p2 = r4, 100", 101, true),
        ("cmp.ge p1, p2 = r4, 100", 99, false),
        ("cmp.ltu p1, p2 = r4, -1", 5, true),
        ("cmp.leu p1, p2 = r4, 5", 6, false),
        ("cmp.gtu p1, p2 = r4, 5", NEG1, true),
        ("cmp.geu p1, p2 = r4, -2", NEG1 - 2, false),
        ("cmp.eq p1, p2 = r4, long 0x123456789", 0x1_2345_6789, true),
        ("cmpw.eq p1, p2 = r4, -1", 0xffff_ffff, true),
        ("cmpw.ne p1, p2 = r4, 1", 0x5_0000_0001, false),
        ("cmpw.lt p1, p2 = r4, 0", 0x8000_0000, true),
        ("cmpw.le p1, p2 = r4, -1", 0xffff_fffe, true),
        ("cmpw.gt p1, p2 = r4, -1", 0x1_0000_0000, true),
        ("cmpw.ge p1, p2 = r4, 0", 0xffff_ffff, false),
        ("cmpw.ltu p1, p2 = r4, -1", 0xffff_fffe, true),
        ("cmpw.leu p1, p2 = r4, 0", 0x1_0000_0000, true),
        ("cmpw.gtu p1, p2 = r4, 7", 0x8000_0000, true),
        ("cmpw.geu p1, p2 = r4, 7", 6, false),
    ];
    for &(op, a, expected) in cases {
        assert_eq!(compare(op, a, 0), expected, "`{op}` with {a:#x}");
    }
}

/// Runs `(p3) cmp.eq{suffix} p1, p2 = r4, r5` with p3 = g, outcome c and the old
/// values of p1, p2; returns the new ones and the nullified count.
fn compare_type(ctype: CmpType, g: bool, c: bool, old: (bool, bool)) -> ((bool, bool), u64) {
    let set = |r: u8, v: bool| format!("movi r{r} = {}", v as u8);
    let (s6, s7, s8, s5) = (set(6, old.0), set(7, old.1), set(8, g), set(5, c));
    let op = format!("(p3) cmp.eq{} p1, p2 = r4, r5", ctype.suffix());
    let r = Test::new(&[
        &[&s6, &s7, &s8, "movi r4 = 1"],
        &["r2p p1 = r6", "r2p p2 = r7", "r2p p3 = r8", &s5],
        &[&op],
        &["syscall 0"],
    ])
    .run();
    r.exit_code();
    ((r.pred(1), r.pred(2)), r.stats().nullified)
}

#[test]
fn every_compare_type_with_every_guard_outcome_and_old_value() {
    let olds = [(false, false), (false, true), (true, false), (true, true)];
    for ctype in CmpType::ALL {
        for g in [false, true] {
            for c in [false, true] {
                for old in olds {
                    let (new, nullified) = compare_type(ctype, g, c, old);
                    assert_eq!(
                        new,
                        ctype.apply(g, c, old),
                        "{ctype:?} g={g} c={c} old={old:?}"
                    );
                    let expect_nullified = (!g && ctype != CmpType::Unc) as u64;
                    assert_eq!(nullified, expect_nullified, "{ctype:?} g={g}");
                }
            }
        }
    }
    // The documented cases, spelled out.
    assert_eq!(
        compare_type(CmpType::Unc, false, true, (true, true)).0,
        (false, false),
        ".unc clears both"
    );
    assert_eq!(
        compare_type(CmpType::Normal, false, true, (true, false)).0,
        (true, false),
        "plain: no effect"
    );
    assert_eq!(
        compare_type(CmpType::And, true, false, (true, true)).0,
        (false, false)
    );
    assert_eq!(
        compare_type(CmpType::And, true, true, (true, false)).0,
        (true, false),
        "and: keeps"
    );
    assert_eq!(
        compare_type(CmpType::Or, true, true, (false, false)).0,
        (true, true)
    );
    assert_eq!(
        compare_type(CmpType::OrAndcm, true, true, (false, true)).0,
        (true, false)
    );
    assert_eq!(
        compare_type(CmpType::AndOrcm, true, false, (true, false)).0,
        (false, true)
    );
}

#[test]
fn parallel_compares_in_one_bundle_accumulate() {
    // p1 = (r4 == 1) && (r5 < 10) && (r6 != 0), computed by three .and compares in one
    // bundle on predicates set beforehand.
    let program = |r4: u64, r5: u64, r6: u64| {
        let (a, b, c) = (
            format!("movi r4 = {r4}"),
            format!("movi r5 = {r5}"),
            format!("movi r6 = {r6}"),
        );
        Test::new(&[
            &[&a, &b, &c, "cmp.eq p1, p2 = r0, r0"],
            &[
                "cmp.eq.and p1, p3 = r4, 1",
                "cmp.lt.and p1, p3 = r5, 10",
                "cmp.ne.and p1, p3 = r6, 0",
            ],
            &["syscall 0"],
        ])
        .run()
    };
    for (r4, r5, r6) in [(1, 5, 1), (0, 5, 1), (1, 50, 1), (1, 5, 0), (0, 50, 0)] {
        let r = program(r4, r5, r6);
        assert_eq!(r.pred(1), r4 == 1 && r5 < 10 && r6 != 0, "{r4} {r5} {r6}");
    }
}

#[test]
fn float_compares_take_compare_types_too() {
    let r = Test::new(&[
        &["movi r4 = 0x7fc00000", "movi r5 = 0x3f800000"], // NaN, 1.0 as f32
        &[
            "fcmp.eq.s.unc p1, p2 = r5, r5",
            "fcmp.uno.s.unc p3, p4 = r4, r5",
        ],
        &["nop"],
        &["syscall 0"],
    ])
    .run();
    assert_eq!(
        (r.pred(1), r.pred(2), r.pred(3), r.pred(4)),
        (true, false, true, false)
    );
}

#[test]
fn guards_and_negated_guards() {
    let r = run(&[
        &["cmp.eq p1, p2 = r0, r0"],
        &[
            "(p1) movi r10 = 1",
            "(!p1) movi r11 = 1",
            "(p2) movi r12 = 1",
            "(!p2) movi r13 = 1",
        ],
    ]);
    assert_eq!((r.reg(10), r.reg(11), r.reg(12), r.reg(13)), (1, 0, 0, 1));
    let s = r.stats();
    assert_eq!(s.nullified, 2);
    assert_eq!(s.ops, 1 + 4 + 1);
}

#[test]
fn predicate_logic_and_moves() {
    // p1 = true, p2 = false.
    let r = run(&[
        &["cmp.eq p1, p2 = r0, r0", "movi r20 = 7"],
        &[
            "pand p3 = p1, p2",
            "por p4 = p1, p2",
            "pxor p5 = p1, p1",
            "pandn p6 = p1, p2",
        ],
        &[
            "porn p7 = p2, p1",
            "pnot p8 = p2",
            "p2r r21 = p1",
            "p2r r22 = p2",
        ],
        &[
            "r2p p9 = r20",
            "r2p p10 = r0",
            "porn p11 = p2, p2",
            "pnot p0 = p0",
        ],
    ]);
    let preds: Vec<bool> = (3..=11).map(|n| r.pred(n)).collect();
    assert_eq!(
        preds,
        [false, true, false, true, false, true, true, false, true]
    );
    assert_eq!((r.reg(21), r.reg(22)), (1, 0));
    assert!(r.pred(0), "writes to p0 are discarded");
}

#[test]
fn nullified_operations_have_no_effect() {
    // p1 is false: the store, call, system call, trap, load from address 0 and
    // jumps must all do nothing.
    let r = Test::new(&[
        &["movi r10 = 0x20000", "movi r4 = 99", "movi r3 = 5"],
        &[
            "(p1) st.d [r10] = r4",
            "(p1) call .+64",
            "(p1) ld.d r6 = [r0]",
        ],
        &["(p1) syscall 0"],
        &["(p1) trap 1"],
        &["(p1) jr r0", "(p1) amoadd.d r7 = [r10], r4"],
        &["(p1) ret"],
        &["movi r3 = 7"],
        &["syscall 0"],
    ])
    .run();
    assert_eq!(r.exit_code(), 7);
    assert_eq!(r.load(DATA, 8), 0);
    assert_eq!((r.reg(63), r.reg(6), r.reg(7)), (0, 0, 0));
    let s = r.stats();
    assert_eq!(s.nullified, 8);
    assert_eq!(s.branches, 0);
    assert_eq!(s.ops, 3 + 3 + 1 + 1 + 2 + 1 + 1 + 1);
}
