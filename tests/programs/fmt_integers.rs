// Integer formatting: width, fill, alignment, sign, #, 0, radixes, runtime width/precision.
fn main() {
    let vals: [i64; 6] = [0, 7, -7, 255, -32768, i64::MAX];
    for v in vals {
        println!("[{v}] [{v:5}] [{v:<6}] [{v:^7}] [{v:>8}] [{v:+}] [{v:08}] [{v:+08}] [{v:*^9}]");
    }
    let u: [u64; 5] = [0, 10, 255, 0xdead_beef, u64::MAX];
    for v in u {
        println!("{v:x} {v:X} {v:o} {v:b} | {v:#x} {v:#X} {v:#o} {v:#b} | {v:#010x} {v:010b}");
    }
    for v in [-1i8, -128, 127] {
        println!("i8 {v}: {v:x} {v:#b} {v:o}");
    }
    for v in [-1i32, i32::MIN] {
        println!("i32 {v}: {v:x} {v:X} {v:#o}");
    }
    let w = 12;
    let p = 3;
    println!("[{:w$}] [{:<w$}] [{:>2$}] [{:.*}]", 42, 43, 8, 2, 1.23456);
    println!("[{:>width$.prec$}]", 3.14159265, width = w, prec = p);
    println!("[{0}-{0}-{1}] [{a}{b}{a}]", 1, 2, a = "x", b = "y");
    println!("{:5}|{:<5}|{:^5}|{:>5}|", 'c', 'c', 'c', 'c');
    println!("{:5}|{:<5}|{:^5}|{:>5}|", true, false, "ab", "abcdefg");
    println!("{:.2}|{:5.2}|{:<5.1}|", "abcdef", "abcdef", "xyz");
    println!("{:?} {:5?} {:<5?}| {:#?}", 5u8, 5u8, -5i8, 17u16);
    println!("{:x?} {:X?} {:#x?}", [10u8, 255], vec![3000u32], (1u8, 200u8));
    println!("{:e} {:E} {:e} {:e}", 1234567u32, 1200u64, 0u8, -45i32);
    let n: u128 = u128::MAX;
    println!("{n} {n:x} {:o}", n >> 64);
    println!("{{literal}} {}%", 50);
    let width = 6;
    let s = format!("{:0>width$}", 42);
    let t = format!("{:#>width$x}", 255);
    println!("{s} {t}");
}
