// Structs and enums by reference: & and &mut parameters, methods with &self and
// &mut self, returning references into arguments, mutation through nested references,
// and references to fields.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

struct Account {
    id: u32,
    balance: i64,
    history: [i64; 8],
    len: usize,
}

impl Account {
    fn new(id: u32) -> Account {
        Account { id, balance: 0, history: [0; 8], len: 0 }
    }

    fn apply(&mut self, amount: i64) -> bool {
        if self.balance + amount < 0 || self.len == self.history.len() {
            return false;
        }
        self.balance += amount;
        self.history[self.len] = amount;
        self.len += 1;
        true
    }

    fn largest(&self) -> &i64 {
        let mut best = &self.history[0];
        let mut i = 1;
        while i < self.len {
            if self.history[i] > *best {
                best = &self.history[i];
            }
            i += 1;
        }
        best
    }
}

#[inline(never)]
fn richer<'a>(a: &'a Account, b: &'a Account) -> &'a Account {
    if a.balance >= b.balance { a } else { b }
}

#[inline(never)]
fn transfer(from: &mut Account, to: &mut Account, amount: i64) -> bool {
    if from.apply(-amount) {
        if to.apply(amount) {
            return true;
        }
        from.apply(amount);
    }
    false
}

#[inline(never)]
fn increment_all(xs: &mut [u32], by: &u32) {
    let mut i = 0;
    while i < xs.len() {
        xs[i] += *by;
        i += 1;
    }
}

#[inline(never)]
fn field_ref(a: &mut Account) -> &mut i64 {
    &mut a.balance
}

enum Slot {
    Empty,
    Full(u64),
}

#[inline(never)]
fn fill(s: &mut Slot, v: u64) -> u64 {
    match s {
        Slot::Full(old) => {
            let prev = *old;
            *old += v;
            prev
        }
        Slot::Empty => {
            *s = Slot::Full(v);
            0
        }
    }
}

#[inline(never)]
fn deep(r: &mut &mut &mut u32) {
    ***r *= 10;
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let mut a = Account::new(1);
    let mut b = Account::new(2);
    outln!("deposit ", a.apply(black_box(100)), " ", b.apply(50), " ", a.apply(-500));
    outln!("transfer ", transfer(&mut a, &mut b, black_box(30)), " ", transfer(&mut b, &mut a, 1000));
    outln!("balances ", a.balance, " ", b.balance);
    let r = richer(&a, &b);
    outln!("richer ", r.id, " with ", r.balance, " largest ", *r.largest());
    *field_ref(&mut b) += 7;
    outln!("b after field_ref ", b.balance, " history ", b.history, " len ", b.len);
    let mut i = 0;
    while b.apply(1) {
        i += 1;
    }
    outln!("b accepted ", i, " more, history full: ", b.history);

    let mut xs = [1u32, 2, 3, 4];
    let by = black_box(10);
    increment_all(&mut xs, &by);
    increment_all(&mut xs[1..3], &by);
    outln!("xs ", xs);

    let mut s = Slot::Empty;
    let r1 = fill(&mut s, black_box(5));
    let r2 = fill(&mut s, 6);
    let r3 = fill(&mut s, 7);
    let now = match s {
        Slot::Full(v) => v,
        Slot::Empty => 0,
    };
    outln!("slot ", r1, " ", r2, " ", r3, " now ", now);

    let mut v = black_box(7u32);
    let mut r = &mut v;
    let mut rr = &mut r;
    deep(&mut rr);
    deep(&mut rr);
    outln!("deep ", v);
    0
}
