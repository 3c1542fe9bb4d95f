// Portable SIMD (std::simd): the backend scalarizes vectors. Lanewise arithmetic of
// several element types and widths, comparisons, masks, select, shuffles and swizzles,
// reductions, casts, bitmasks, gather/scatter, saturating ops, min/max, abs/sqrt,
// vectors through function calls and memory, slice::reverse.
#![feature(portable_simd)]

use std::hint::black_box;
use std::simd::cmp::{SimdOrd, SimdPartialEq, SimdPartialOrd};
use std::simd::num::{SimdFloat, SimdInt, SimdUint};
use std::simd::{Mask, Select, Simd, SimdElement, simd_swizzle};

#[inline(never)]
fn add_vec<T, const N: usize>(a: Simd<T, N>, b: Simd<T, N>) -> Simd<T, N>
where
    T: SimdElement,
    Simd<T, N>: std::ops::Add<Output = Simd<T, N>>,
{
    a + b
}

fn ints() {
    let a = black_box(Simd::<i32, 4>::from_array([1, -2, 3, i32::MAX]));
    let b = black_box(Simd::<i32, 4>::from_array([10, 20, -30, 1]));
    println!("i32x4 add {:?}", a + b);
    println!("i32x4 sub {:?}", a - b);
    println!("i32x4 mul {:?}", a * b);
    println!("i32x4 div {:?}", b / Simd::splat(3));
    println!("i32x4 rem {:?}", b % Simd::splat(7));
    println!("i32x4 and/or/xor {:?} {:?} {:?}", a & b, a | b, a ^ b);
    println!("i32x4 shl/shr {:?} {:?}", a << Simd::splat(2), b >> Simd::splat(1));
    println!("i32x4 neg/not {:?} {:?}", -b, !a);
    println!("i32x4 abs {:?}", b.abs());
    println!("i32x4 min/max {:?} {:?}", a.simd_min(b), a.simd_max(b));
    println!("i32x4 clamp {:?}", a.simd_clamp(Simd::splat(0), Simd::splat(5)));
    println!("i32x4 sat {:?} {:?}", a.saturating_add(b), a.saturating_sub(b));
    println!(
        "i32x4 reduce {} {} {} {} {} {} {}",
        a.reduce_sum(),
        b.reduce_product(),
        a.reduce_min(),
        a.reduce_max(),
        a.reduce_and(),
        a.reduce_or(),
        a.reduce_xor()
    );
    println!("i32x4 call {:?}", add_vec(a, b));

    let c = black_box(Simd::<u8, 16>::from_array([
        0, 1, 2, 3, 250, 251, 252, 253, 128, 127, 64, 32, 16, 8, 4, 255,
    ]));
    let d = black_box(Simd::<u8, 16>::splat(10));
    println!("u8x16 add {:?}", c + d);
    println!("u8x16 sat {:?} {:?}", c.saturating_add(d), c.saturating_sub(d));
    println!("u8x16 sum {} max {} min {}", c.reduce_sum(), c.reduce_max(), c.reduce_min());
    println!("u8x16 shr {:?}", c >> Simd::splat(3));
    println!("u8x16 call {:?}", add_vec(c, d));
    println!("u8x16 leading_zeros {:?}", c.leading_zeros());
    println!("u8x16 count_ones {:?}", c.count_ones());
    println!("u8x16 swap_bytes {:?}", c.swap_bytes());
    println!("u8x16 reverse_bits {:?}", c.reverse_bits());

    let e = black_box(Simd::<i8, 8>::from_array([-128, -1, 0, 1, 127, 50, -50, 100]));
    println!("i8x8 sat {:?}", e.saturating_add(Simd::splat(100)));
    println!("i8x8 sat {:?}", e.saturating_sub(Simd::splat(100)));
    println!("i8x8 abs {:?} wrapping neg {:?}", e.abs(), -e);
    println!("i8x8 sum {}", e.reduce_sum());

    let f = black_box(Simd::<i16, 8>::from_array([1, 2, 3, 4, -5, -6, 7, 8]));
    println!("i16x8 mul {:?}", f * f * Simd::splat(1000));
    println!("i16x8 sat mul-ish {:?}", (f * Simd::splat(10000)).saturating_add(f));
    println!("i16x8 trailing_zeros {:?}", f.trailing_zeros());

    let g = black_box(Simd::<i64, 2>::from_array([i64::MIN, 42]));
    println!("i64x2 {:?} {:?} {}", g + Simd::splat(1), g.abs(), g.reduce_max());
    let h = black_box(Simd::<u64, 8>::from_array([1, 2, 3, 4, 5, 6, 7, u64::MAX]));
    println!("u64x8 {:?} {}", h * Simd::splat(3), h.reduce_sum());
    let k = black_box(Simd::<u32, 2>::from_array([u32::MAX, 7]));
    println!("u32x2 {:?} {:?}", k + Simd::splat(1), k.saturating_add(Simd::splat(1)));
}

fn floats() {
    let a = black_box(Simd::<f32, 4>::from_array([1.5, -2.25, 9.0, -0.0]));
    let b = black_box(Simd::<f32, 4>::from_array([0.5, 4.0, -3.0, 2.0]));
    println!("f32x4 +-*/ {:?} {:?} {:?} {:?}", a + b, a - b, a * b, a / b);
    println!("f32x4 neg/abs {:?} {:?}", -a, a.abs());
    println!("f32x4 min/max {:?} {:?}", a.simd_min(b), a.simd_max(b));
    println!("f32x4 sum {} product {}", a.reduce_sum(), a.reduce_product());
    println!("f32x4 reduce min {} max {}", a.reduce_min(), a.reduce_max());
    println!("f32x4 signum {:?} copysign {:?}", a.signum(), b.copysign(a));
    println!("f32x4 recip {:?}", b.recip());
    println!("f32x4 is_sign_negative {:?}", a.is_sign_negative());
    println!("f32x4 call {:?}", add_vec(a, b));

    let c = black_box(Simd::<f64, 4>::from_array([4.0, 2.0, 0.25, 1e10]));
    let d = black_box(Simd::<f64, 4>::from_array([f64::NAN, -1.0, 3.5, f64::INFINITY]));
    println!("f64x4 add {:?}", c + d);
    println!("f64x4 mul {:?}", c * d);
    println!("f64x4 min/max {:?} {:?}", c.simd_min(d), c.simd_max(d));
    println!("f64x4 is_nan {:?}", d.is_nan());
    println!("f64x4 is_finite {:?}", d.is_finite());
    println!("f64x4 sum {}", c.reduce_sum());
    let e = black_box(Simd::<f64, 2>::from_array([-7.5, 7.5]));
    println!("f64x2 abs {:?} to_bits {:?}", e.abs(), e.to_bits());
    println!("f64x2 from_bits {:?}", Simd::<f64, 2>::from_bits(e.to_bits() ^ Simd::splat(1 << 63)));
}

fn compare_and_masks() {
    let a = black_box(Simd::<i32, 8>::from_array([1, 5, 3, 7, 2, 8, 4, 6]));
    let b = black_box(Simd::<i32, 8>::splat(4));
    let lt = a.simd_lt(b);
    let ge = a.simd_ge(b);
    let eq = a.simd_eq(b);
    println!("lt {:?}", lt);
    println!("ge {:?} eq {:?} ne {:?}", ge, eq, a.simd_ne(b));
    println!("le/gt {:?} {:?}", a.simd_le(b), a.simd_gt(b));
    println!("bitmask {:#x} {:#x}", lt.to_bitmask(), ge.to_bitmask());
    println!("any {} all {} none {}", lt.any(), lt.all(), eq.any());
    println!("select {:?}", lt.select(a, b));
    println!("mask & | ! {:?} {:?} {:?}", lt & ge, lt | eq, !lt);
    let m = Mask::<i32, 8>::from_bitmask(black_box(0b1010_0110));
    println!("from_bitmask {:?}", m);
    println!("from_bitmask select {:?}", m.select(a, -a));
    println!("mask test {} {}", m.test(1), m.test(0));
    println!("first_set {:?}", m.first_set());

    let fa = black_box(Simd::<f32, 4>::from_array([1.0, f32::NAN, -1.0, 0.0]));
    let fb = black_box(Simd::<f32, 4>::splat(0.0));
    println!("f32 lt {:?} eq {:?} ne {:?}", fa.simd_lt(fb), fa.simd_eq(fb), fa.simd_ne(fb));

    let ua = black_box(Simd::<u16, 4>::from_array([1, 65535, 300, 0]));
    println!("u16 gt {:?}", ua.simd_gt(Simd::splat(299)));
    let wide = black_box(Simd::<u8, 64>::from_array(std::array::from_fn(|i| (i * 7) as u8)));
    let wm = wide.simd_gt(Simd::splat(100));
    println!("u8x64 bitmask {:#x}", wm.to_bitmask());
    println!("u8x64 masked sum {}", wm.select(wide, Simd::splat(0)).cast::<u32>().reduce_sum());
}

fn shuffles() {
    let a = black_box(Simd::<i32, 4>::from_array([10, 20, 30, 40]));
    let b = black_box(Simd::<i32, 4>::from_array([50, 60, 70, 80]));
    println!("reverse {:?}", a.reverse());
    println!("rotate {:?} {:?}", a.rotate_elements_left::<1>(), a.rotate_elements_right::<3>());
    println!("swizzle {:?}", simd_swizzle!(a, [3, 3, 0, 1]));
    println!("swizzle2 {:?}", simd_swizzle!(a, b, [0, 4, 1, 5, 7, 2]));
    let (lo, hi) = a.interleave(b);
    println!("interleave {:?} {:?}", lo, hi);
    let (x, y) = lo.deinterleave(hi);
    println!("deinterleave {:?} {:?}", x, y);
    println!("resize {:?}", a.resize::<6>(-1));
    let idx = black_box(Simd::<u8, 8>::from_array([7, 0, 1, 9, 2, 2, 3, 200]));
    let bytes = black_box(Simd::<u8, 8>::from_array([1, 2, 3, 4, 5, 6, 7, 8]));
    println!("swizzle_dyn {:?}", bytes.swizzle_dyn(idx));
    let mut v = a;
    v[2] = black_box(99);
    let i = black_box(3usize);
    v[i] = 7;
    println!("index {:?} {} {}", v, v[1], v[i]);
    println!("as_array {:?}", v.as_array());
}

fn casts() {
    let a = black_box(Simd::<f32, 4>::from_array([1.9, -2.7, 300.5, -1e10]));
    println!("f32->i32 cast {:?}", a.cast::<i32>());
    println!("f32->u8 cast {:?}", a.cast::<u8>());
    println!("f32->f64 {:?}", a.cast::<f64>());
    let b = black_box(Simd::<i32, 4>::from_array([-1, 256, 65535, i32::MIN]));
    println!("i32->u8 {:?} i32->i64 {:?}", b.cast::<u8>(), b.cast::<i64>());
    println!("i32->u32 {:?} i32->f32 {:?}", b.cast::<u32>(), b.cast::<f32>());
    let c = black_box(Simd::<u16, 4>::from_array([1, 40000, 7, 65535]));
    println!("u16->i32 {:?} u16->f64 {:?}", c.cast::<i32>(), c.cast::<f64>());
    let d = black_box(Simd::<f64, 2>::from_array([1e300, -0.1]));
    println!("f64->f32 {:?} f64->i16 {:?}", d.cast::<f32>(), d.cast::<i16>());
    let m = Simd::<i8, 4>::from_array([1, 2, 3, 4]).simd_gt(Simd::splat(2));
    println!("mask cast {:?}", m.cast::<i64>());
    // Transmutes between vector types.
    let words: Simd<u32, 4> = unsafe { std::mem::transmute(black_box(Simd::<u8, 16>::from_array(
        std::array::from_fn(|i| i as u8),
    ))) };
    println!("transmute u8x16->u32x4 {:x?}", words);
    let back: [u16; 8] = unsafe { std::mem::transmute(words) };
    println!("transmute ->[u16; 8] {:x?}", back);
}

fn memory() {
    let data: Vec<i32> = (0..20).map(|x| x * x).collect();
    let idx = black_box(Simd::<usize, 4>::from_array([0, 5, 19, 100]));
    println!("gather_or {:?}", Simd::gather_or(&data, idx, Simd::splat(-1)));
    println!("gather_or_default {:?}", Simd::<i32, 4>::gather_or_default(&data, idx));
    let mut out = vec![0i32; 8];
    Simd::<i32, 4>::from_array([1, 2, 3, 4]).scatter(&mut out, Simd::from_array([7, 1, 50, 3]));
    println!("scatter {:?}", out);
    println!("load_or {:?}", Simd::<i32, 8>::load_or(&data[16..], Simd::splat(-5)));
    let mut dst = [0i32; 3];
    Simd::<i32, 4>::from_array([9, 8, 7, 6]).store_select(&mut dst, Mask::from_array([true, false, true, true]));
    println!("store_select {:?}", dst);
    let chunks: i64 = data
        .chunks_exact(4)
        .map(|c| Simd::<i32, 4>::from_slice(c).cast::<i64>().reduce_sum())
        .sum();
    println!("chunked sum {}", chunks);
    let mut arr = [Simd::<f32, 2>::splat(0.0); 4];
    for (i, v) in arr.iter_mut().enumerate() {
        *v = Simd::from_array([i as f32, -(i as f32)]) * Simd::splat(1.5);
    }
    println!("array of vectors {:?}", arr);
    let mut buf = [0u8; 16];
    Simd::<u8, 16>::splat(3).copy_to_slice(&mut buf);
    println!("copy_to_slice {:?}", buf);
}

fn reverse_slices() {
    let mut a: Vec<u8> = (0..37).collect();
    a.reverse();
    println!("reverse u8 {:?}", a);
    let mut b: Vec<u16> = (0..23).collect();
    b.reverse();
    println!("reverse u16 {:?}", b);
    let mut c: Vec<u32> = (0..11).collect();
    c.reverse();
    println!("reverse u32 {:?}", c);
    let mut d: Vec<f64> = (0..9).map(|x| x as f64 * 0.5).collect();
    d.reverse();
    println!("reverse f64 {:?}", d);
    let mut s = String::from("hello, portable simd!").into_bytes();
    s.reverse();
    println!("reverse str {}", String::from_utf8(s).unwrap());
}

fn math() {
    let a = black_box(Simd::<f64, 4>::from_array([4.0, 2.0, 0.0, 1e-300]));
    let b = black_box(Simd::<f32, 8>::from_array([1.5, -1.5, 2.5, -2.5, 0.49, 9.99, -0.0, 3.0]));
    use std::simd::StdFloat;
    println!("sqrt {:?}", a.sqrt());
    println!("floor {:?}", b.floor());
    println!("ceil {:?}", b.ceil());
    println!("round {:?}", b.round());
    println!("trunc {:?}", b.trunc());
    println!("fract {:?}", b.fract());
    println!("mul_add {:?}", a.mul_add(Simd::splat(2.0), Simd::splat(1.0)));
}

fn main() {
    ints();
    floats();
    compare_and_masks();
    shuffles();
    casts();
    memory();
    reverse_slices();
    math();
}
