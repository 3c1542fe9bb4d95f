// Recursion: naive fib (deep call trees), Ackermann (deep stacks), mutual recursion,
// recursion over a tree built on the stack, and functions with large frames that
// recurse (stack pointer arithmetic, callee-saved registers across calls).

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

fn fib(n: u32) -> u64 {
    if n < 2 { n as u64 } else { fib(n - 1) + fib(n - 2) }
}

fn ackermann(m: u64, n: u64) -> u64 {
    if m == 0 {
        n + 1
    } else if n == 0 {
        ackermann(m - 1, 1)
    } else {
        ackermann(m - 1, ackermann(m, n - 1))
    }
}

fn is_even(n: u32) -> bool {
    if n == 0 { true } else { is_odd(n - 1) }
}

fn is_odd(n: u32) -> bool {
    if n == 0 { false } else { is_even(n - 1) }
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 { a } else { gcd(b, a % b) }
}

struct Node<'a> {
    value: i32,
    left: Option<&'a Node<'a>>,
    right: Option<&'a Node<'a>>,
}

fn tree_sum(n: &Node) -> i64 {
    let mut s = n.value as i64;
    if let Some(l) = n.left {
        s += tree_sum(l);
    }
    if let Some(r) = n.right {
        s += tree_sum(r);
    }
    s
}

fn tree_depth(n: Option<&Node>) -> u32 {
    match n {
        None => 0,
        Some(n) => 1 + max(tree_depth(n.left), tree_depth(n.right)),
    }
}

fn in_order(n: Option<&Node>) {
    if let Some(n) = n {
        in_order(n.left);
        out!(n.value, " ");
        in_order(n.right);
    }
}

/// Each level keeps a 64-word array live across the recursive call.
fn big_frames(depth: u32, seed: u64) -> u64 {
    let mut local = [0u64; 64];
    let mut i = 0;
    while i < 64 {
        local[i] = seed.wrapping_mul(i as u64 + 1) ^ (depth as u64);
        i += 1;
    }
    let below = if depth == 0 { 0 } else { big_frames(depth - 1, seed.rotate_left(3)) };
    let mut s = below;
    i = 0;
    while i < 64 {
        s = s.wrapping_add(local[i]);
        i += 1;
    }
    s
}

fn hanoi(n: u32, from: u8, to: u8, via: u8, moves: &mut u32, trace: bool) {
    if n == 0 {
        return;
    }
    hanoi(n - 1, from, via, to, moves, trace);
    *moves += 1;
    if trace {
        out!(from as char, "->", to as char, " ");
    }
    hanoi(n - 1, via, to, from, moves, trace);
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    outln!("fib(25) = ", fib(black_box(25)));
    outln!("ackermann(2, 3) = ", ackermann(2, black_box(3)), " ackermann(3, 5) = ", ackermann(3, black_box(5)));
    outln!("even 1001 ", is_even(black_box(1001)), " odd 1001 ", is_odd(1001), " even 5000 ", is_even(5000));
    outln!("gcd ", gcd(black_box(2u128 * 3 * 5 * 7 * 11 * 13 * (1 << 70)), 3u128 * 7 * 13 * 17 * (1 << 65)));
    let l2 = Node { value: 1, left: None, right: None };
    let r2 = Node { value: 6, left: None, right: None };
    let l1 = Node { value: 3, left: Some(&l2), right: None };
    let r1 = Node { value: 8, left: Some(&r2), right: Some(&Node { value: 9, left: None, right: None }) };
    let root = Node { value: black_box(5), left: Some(&l1), right: Some(&r1) };
    out!("tree sum ", tree_sum(&root), " depth ", tree_depth(Some(&root)), " in order: ");
    in_order(Some(&root));
    outln!();
    outln!("big frames ", big_frames(black_box(200), 0x1234_5678_9abc_def0));
    let mut moves = 0;
    hanoi(4, b'A', b'C', b'B', &mut moves, true);
    outln!();
    let mut moves20 = 0;
    hanoi(black_box(16), b'A', b'C', b'B', &mut moves20, false);
    outln!("hanoi moves ", moves, " ", moves20);
    0
}
