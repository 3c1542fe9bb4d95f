// Floats: Mandelbrot set, 64x48 pixels, at most 100 iterations per pixel.
use std::hint::black_box;

#[inline(never)]
fn kernel(w: usize, h: usize, max_iter: u32, out: &mut [u32]) {
    for y in 0..h {
        let ci = y as f64 * 2.4 / h as f64 - 1.2;
        for x in 0..w {
            let cr = x as f64 * 3.2 / w as f64 - 2.2;
            let (mut zr, mut zi) = (0.0f64, 0.0f64);
            let mut n = 0;
            while n < max_iter {
                let zr2 = zr * zr;
                let zi2 = zi * zi;
                if zr2 + zi2 > 4.0 {
                    break;
                }
                zi = 2.0 * zr * zi + ci;
                zr = zr2 - zi2 + cr;
                n += 1;
            }
            out[y * w + x] = n;
        }
    }
}

fn main() {
    let (w, h) = (black_box(64usize), black_box(48usize));
    let mut out = vec![0u32; w * h];
    kernel(w, h, black_box(100), &mut out);
    let inside = out.iter().filter(|&&n| n == 100).count();
    let total: u64 = out.iter().map(|&n| n as u64).sum();
    let hash = out.iter().fold(0u32, |h, &n| h.wrapping_mul(31).wrapping_add(n));
    println!("inside: {} total iterations: {}", inside, total);
    println!("hash: {:08x}", hash);
    // one coarse row of the picture
    let row: String = (0..w).step_by(2).map(|x| if out[(h / 2) * w + x] == 100 { '#' } else { '.' }).collect();
    println!("{}", row);
}
