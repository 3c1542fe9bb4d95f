// f16 and f128 values as the machine holds them: as their IEEE bits. Moving them
// through arguments (register and stack), results, structs, arrays, enums and memory;
// the bit operations (to_bits/from_bits, negation, abs, copysign, classify, sign
// tests). Their arithmetic needs soft float, which the backend refuses by name.
#![feature(f16, f128)]
use std::hint::black_box;
use std::num::FpCategory;

#[derive(Clone, Copy)]
struct Pair {
    tag: u8,
    wide: f128,
    half: f16,
}

#[inline(never)]
fn many(a: f128, b: f16, c: f128, d: u64, e: f128, f: f16, g: f128, h: f128) -> (f128, f16) {
    // Nine words before `h`: some of these travel on the stack.
    let bits = a.to_bits() ^ c.to_bits() ^ e.to_bits() ^ g.to_bits() ^ h.to_bits() ^ d as u128;
    (f128::from_bits(bits), f16::from_bits(b.to_bits() ^ f.to_bits()))
}

#[inline(never)]
fn negate_all(xs: &mut [f128]) {
    for x in xs.iter_mut() {
        *x = -*x;
    }
}

#[inline(never)]
fn pick(flag: bool, a: f128, b: f128) -> f128 {
    if flag { a } else { b }
}

fn category(c: FpCategory) -> &'static str {
    match c {
        FpCategory::Nan => "nan",
        FpCategory::Infinite => "inf",
        FpCategory::Zero => "zero",
        FpCategory::Subnormal => "subnormal",
        FpCategory::Normal => "normal",
    }
}

fn main() {
    let one: f128 = black_box(1.0);
    let half: f16 = black_box(0.5);
    println!("one {:#034x} half {:#06x}", one.to_bits(), half.to_bits());
    println!("neg {:#034x} {:#06x}", (-one).to_bits(), (-half).to_bits());
    let m = black_box(f128::from_bits(0xc000_1234_5678_9abc_def0_1234_5678_9abcu128));
    println!("abs {:#034x}", m.abs().to_bits());
    println!("copysign {:#034x} {:#034x}", one.copysign(m).to_bits(), m.copysign(one).to_bits());
    let h = black_box(f16::from_bits(0xbc00));
    println!("f16 abs {:#06x} copysign {:#06x}", h.abs().to_bits(), half.copysign(h).to_bits());
    println!(
        "sign {} {} {} {}",
        m.is_sign_negative(),
        one.is_sign_positive(),
        h.is_sign_negative(),
        (-h).is_sign_positive()
    );

    let samples: [f128; 6] = black_box([
        f128::NAN,
        f128::INFINITY,
        -0.0,
        f128::MIN_POSITIVE,
        f128::from_bits(1),
        -2.5,
    ]);
    for x in samples {
        println!("{:#034x} {}", x.to_bits(), category(x.classify()));
    }
    let halves: [f16; 5] = black_box([f16::NAN, f16::NEG_INFINITY, 0.0, f16::from_bits(3), 65504.0]);
    for x in halves {
        println!("{:#06x} {}", x.to_bits(), category(x.classify()));
    }

    let (w, n) = many(one, half, m, 0xdead_beef, -one, h, f128::MAX, f128::EPSILON);
    println!("many {:#034x} {:#06x}", w.to_bits(), n.to_bits());

    let mut xs = black_box([one, m, f128::INFINITY, -0.0]);
    negate_all(&mut xs);
    for x in xs {
        print!("{:#x} ", x.to_bits());
    }
    println!();

    let pairs = black_box([
        Pair { tag: 1, wide: one, half },
        Pair { tag: 2, wide: m, half: h },
    ]);
    let total: u128 = pairs.iter().map(|p| p.wide.to_bits().rotate_left(p.tag as u32)).sum();
    let halves: u16 = pairs.iter().map(|p| p.half.to_bits()).fold(0, |a, b| a ^ b);
    println!("pairs {total:#x} {halves:#x}");

    let opt: Option<f128> = black_box(Some(m));
    match opt {
        Some(x) => println!("some {:#x}", x.to_bits()),
        None => println!("none"),
    }
    let flag = black_box(true);
    println!("pick {:#x} {:#x}", pick(flag, one, m).to_bits(), pick(!flag, one, m).to_bits());
    let boxed = Box::new(black_box(f128::MIN));
    println!("boxed {:#x}", boxed.to_bits());
}
