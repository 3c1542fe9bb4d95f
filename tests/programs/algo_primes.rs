// Prime sieve of Eratosthenes up to 12 000 over a bit vector, a segmented sieve,
// prime counting, twin primes, Goldbach decompositions, factorisation by trial division
// and a deterministic Miller-Rabin for u64 using u128 multiplication.
fn sieve(n: usize) -> Vec<u64> {
    let mut bits = vec![u64::MAX; n / 64 + 1];
    let clear = |bits: &mut Vec<u64>, i: usize| bits[i / 64] &= !(1u64 << (i % 64));
    clear(&mut bits, 0);
    clear(&mut bits, 1);
    let mut i = 2;
    while i * i <= n {
        if bits[i / 64] >> (i % 64) & 1 == 1 {
            let mut j = i * i;
            while j <= n {
                clear(&mut bits, j);
                j += i;
            }
        }
        i += 1;
    }
    (0..=n).filter(|&i| bits[i / 64] >> (i % 64) & 1 == 1).map(|i| i as u64).collect()
}

fn segmented(lo: u64, hi: u64, base: &[u64]) -> Vec<u64> {
    let mut is = vec![true; (hi - lo) as usize];
    for &p in base {
        if p * p >= hi {
            break;
        }
        let start = lo.div_ceil(p).max(p) * p;
        let mut m = start;
        while m < hi {
            is[(m - lo) as usize] = false;
            m += p;
        }
    }
    (lo..hi).filter(|&x| x > 1 && is[(x - lo) as usize]).collect()
}

fn mul_mod(a: u64, b: u64, m: u64) -> u64 {
    ((a as u128 * b as u128) % m as u128) as u64
}

fn pow_mod(mut b: u64, mut e: u64, m: u64) -> u64 {
    let mut r = 1;
    b %= m;
    while e > 0 {
        if e & 1 == 1 {
            r = mul_mod(r, b, m);
        }
        b = mul_mod(b, b, m);
        e >>= 1;
    }
    r
}

fn is_prime(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    for p in [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37] {
        if n % p == 0 {
            return n == p;
        }
    }
    let (mut d, mut s) = (n - 1, 0);
    while d % 2 == 0 {
        d /= 2;
        s += 1;
    }
    'witness: for a in [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37] {
        let mut x = pow_mod(a, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul_mod(x, x, n);
            if x == n - 1 {
                continue 'witness;
            }
        }
        return false;
    }
    true
}

fn factor(mut n: u64) -> Vec<(u64, u32)> {
    let mut out = Vec::new();
    let mut p = 2;
    while p * p <= n {
        let mut k = 0;
        while n % p == 0 {
            n /= p;
            k += 1;
        }
        if k > 0 {
            out.push((p, k));
        }
        p += if p == 2 { 1 } else { 2 };
    }
    if n > 1 {
        out.push((n, 1));
    }
    out
}

fn main() {
    let primes = sieve(12_000);
    println!("pi(12000) = {} last {:?}", primes.len(), primes.last());
    println!("first 20 {:?}", &primes[..20]);
    for lim in [10, 100, 1000, 10_000] {
        println!("pi({lim}) = {}", primes.partition_point(|&p| p <= lim));
    }
    let twins = primes.windows(2).filter(|w| w[1] - w[0] == 2).count();
    let gap = primes.windows(2).map(|w| (w[1] - w[0], w[0])).max().unwrap();
    println!("twin pairs {twins}, largest gap {} after {}", gap.0, gap.1);
    let seg = segmented(100_000_000, 100_000_100, &primes);
    println!("primes in [1e8, 1e8+100): {seg:?}");
    println!("miller-rabin agrees: {}", seg.iter().all(|&p| is_prime(p)) && !is_prime(100_000_001));
    for n in [2u64, 561, 7919, 1_000_000_007, 4_294_967_297, 18_446_744_073_709_551_557, 18_446_744_073_709_551_615] {
        println!("is_prime({n}) = {}", is_prime(n));
    }
    for n in [360u64, 9_999_991, 600_851_475_143, 4_294_967_297, 1 << 40] {
        let f = factor(n);
        let s: Vec<String> = f.iter().map(|(p, k)| if *k > 1 { format!("{p}^{k}") } else { p.to_string() }).collect();
        println!("{n} = {}", s.join(" * "));
    }
    for even in [100u64, 1000, 9_998] {
        let p = primes.iter().find(|&&p| primes.binary_search(&(even - p)).is_ok()).unwrap();
        println!("{even} = {p} + {}", even - p);
    }
}
