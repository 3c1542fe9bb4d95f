// Arbitrary-precision unsigned arithmetic in u32 limbs: add, sub, mul (schoolbook),
// divmod by a small number and long division by a big number, decimal and hex
// formatting, parsing; checked with factorials, powers, Fibonacci and u128 cross-checks.
use std::cmp::Ordering;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
struct Big(Vec<u32>); // little-endian limbs, no trailing zeros

impl Big {
    fn from_u128(mut v: u128) -> Big {
        let mut l = Vec::new();
        while v > 0 {
            l.push(v as u32);
            v >>= 32;
        }
        Big(l)
    }
    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }
    fn trim(mut self) -> Big {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        self
    }
    fn add(&self, o: &Big) -> Big {
        let mut r = Vec::with_capacity(self.0.len().max(o.0.len()) + 1);
        let mut carry = 0u64;
        for i in 0..self.0.len().max(o.0.len()) {
            let s = *self.0.get(i).unwrap_or(&0) as u64 + *o.0.get(i).unwrap_or(&0) as u64 + carry;
            r.push(s as u32);
            carry = s >> 32;
        }
        if carry > 0 {
            r.push(carry as u32);
        }
        Big(r)
    }
    fn sub(&self, o: &Big) -> Big {
        assert!(self.cmp(o) != Ordering::Less, "negative result");
        let mut r = Vec::with_capacity(self.0.len());
        let mut borrow = 0i64;
        for i in 0..self.0.len() {
            let mut d = self.0[i] as i64 - *o.0.get(i).unwrap_or(&0) as i64 - borrow;
            borrow = 0;
            if d < 0 {
                d += 1 << 32;
                borrow = 1;
            }
            r.push(d as u32);
        }
        Big(r).trim()
    }
    fn mul(&self, o: &Big) -> Big {
        let mut r = vec![0u32; self.0.len() + o.0.len()];
        for (i, &a) in self.0.iter().enumerate() {
            let mut carry = 0u64;
            for (j, &b) in o.0.iter().enumerate() {
                let t = a as u64 * b as u64 + r[i + j] as u64 + carry;
                r[i + j] = t as u32;
                carry = t >> 32;
            }
            r[i + o.0.len()] = carry as u32;
        }
        Big(r).trim()
    }
    fn divmod_small(&self, d: u32) -> (Big, u32) {
        let mut q = vec![0u32; self.0.len()];
        let mut rem = 0u64;
        for i in (0..self.0.len()).rev() {
            let cur = (rem << 32) | self.0[i] as u64;
            q[i] = (cur / d as u64) as u32;
            rem = cur % d as u64;
        }
        (Big(q).trim(), rem as u32)
    }
    fn shl1(&self) -> Big {
        self.add(self)
    }
    fn bits(&self) -> usize {
        match self.0.last() {
            None => 0,
            Some(top) => 32 * self.0.len() - top.leading_zeros() as usize,
        }
    }
    fn bit(&self, i: usize) -> bool {
        self.0.get(i / 32).is_some_and(|l| l >> (i % 32) & 1 == 1)
    }
    /// Binary long division: slow but simple.
    fn divmod(&self, d: &Big) -> (Big, Big) {
        assert!(!d.is_zero(), "division by zero");
        let mut q = Big(vec![0; self.0.len()]);
        let mut r = Big(vec![]);
        for i in (0..self.bits()).rev() {
            r = r.shl1();
            if self.bit(i) {
                r = r.add(&Big(vec![1]));
            }
            if r.cmp(d) != Ordering::Less {
                r = r.sub(d);
                q.0[i / 32] |= 1 << (i % 32);
            }
        }
        (q.trim(), r)
    }
    fn parse(s: &str) -> Option<Big> {
        let mut r = Big(vec![]);
        for c in s.chars() {
            let d = c.to_digit(10)?;
            r = r.mul(&Big(vec![10])).add(&Big::from_u128(d as u128));
        }
        Some(r.trim())
    }
    fn pow(&self, mut e: u32) -> Big {
        let mut base = self.clone();
        let mut r = Big(vec![1]);
        while e > 0 {
            if e & 1 == 1 {
                r = r.mul(&base);
            }
            base = base.mul(&base);
            e >>= 1;
        }
        r
    }
}

impl Ord for Big {
    fn cmp(&self, o: &Big) -> Ordering {
        self.0.len().cmp(&o.0.len()).then_with(|| self.0.iter().rev().cmp(o.0.iter().rev()))
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, o: &Big) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl fmt::Display for Big {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.is_zero() {
            return f.pad("0");
        }
        let mut chunks = Vec::new();
        let mut cur = self.clone();
        while !cur.is_zero() {
            let (q, r) = cur.divmod_small(1_000_000_000);
            chunks.push(r);
            cur = q;
        }
        let mut s = chunks.last().unwrap().to_string();
        for c in chunks.iter().rev().skip(1) {
            s.push_str(&format!("{c:09}"));
        }
        f.pad(&s)
    }
}

impl fmt::LowerHex for Big {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let mut s = format!("{:x}", self.0.last().copied().unwrap_or(0));
        for l in self.0.iter().rev().skip(1) {
            s.push_str(&format!("{l:08x}"));
        }
        f.pad(&s)
    }
}

fn main() {
    let mut f = Big(vec![1]);
    for i in 1..=60u32 {
        f = f.mul(&Big(vec![i]));
    }
    println!("60! = {f}");
    println!("60! hex = {f:x} ({} bits)", f.bits());
    let two_256 = Big(vec![2]).pow(256);
    println!("2^256 = {two_256}");
    println!("2^256 - 1 = {:x}", two_256.sub(&Big(vec![1])));
    let (mut a, mut b) = (Big(vec![]), Big(vec![1]));
    for _ in 0..300 {
        let c = a.add(&b);
        a = b;
        b = c;
    }
    println!("fib(300) = {a}");
    let n = Big::parse("123456789012345678901234567890123456789012345678901234567890").unwrap();
    let d = Big::parse("987654321987654321").unwrap();
    let (q, r) = n.divmod(&d);
    println!("{n} / {d} = {q} rem {r}");
    println!("check {}", q.mul(&d).add(&r) == n);
    let x: u128 = 0xfedc_ba98_7654_3210_0123_4567_89ab_cdef;
    let y: u128 = 0x1234_5678_9abc;
    let (bq, br) = Big::from_u128(x).divmod(&Big::from_u128(y));
    println!("u128 cross-check {} {}", bq == Big::from_u128(x / y), br == Big::from_u128(x % y));
    println!("{} {}", Big::from_u128(x), Big::from_u128(x).to_string() == x.to_string());
    println!("cmp {:?} {:?} parse bad {:?}", n.cmp(&d), d.cmp(&n), Big::parse("12x"));
    println!("[{:>30}] [{:<8}]", Big::from_u128(12345678901234567890), Big(vec![]));
    let mut sum_digits = 0;
    for c in Big(vec![2]).pow(1000).to_string().chars() {
        sum_digits += c.to_digit(10).unwrap();
    }
    println!("digit sum of 2^1000 = {sum_digits}");
}
