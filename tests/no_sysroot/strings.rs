// Strings and bytes: &str and byte-string literals in read-only data, comparison
// (memcmp-like), searching, parsing decimal numbers, building output in a stack
// buffer, UTF-8 decoding of multi-byte characters.

#![feature(no_core)]
#![no_core]
#![no_main]

extern crate mini_core;
use mini_core::*;

#[inline(never)]
fn find(hay: &str, needle: &str) -> Option<usize> {
    let h = hay.as_bytes();
    let n = needle.as_bytes();
    if n.len() > h.len() {
        return None;
    }
    let mut i = 0;
    while i + n.len() <= h.len() {
        if &h[i..i + n.len()] == n {
            return Some(i);
        }
        i += 1;
    }
    None
}

#[inline(never)]
fn parse_i64(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.is_empty() {
        return None;
    }
    let (neg, start) = if b[0] == b'-' { (true, 1) } else { (false, 0) };
    if start == b.len() {
        return None;
    }
    let mut v: i64 = 0;
    let mut i = start;
    while i < b.len() {
        let d = b[i];
        if d < b'0' || d > b'9' {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((d - b'0') as i64)?;
        i += 1;
    }
    Some(if neg { -v } else { v })
}

/// Splits at spaces; calls `f` with each non-empty word.
fn words<'a, F: FnMut(&'a str)>(s: &'a str, mut f: F) {
    let b = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i <= b.len() {
        if i == b.len() || b[i] == b' ' {
            if i > start {
                f(unsafe { str_from_utf8_unchecked(&b[start..i]) });
            }
            start = i + 1;
        }
        i += 1;
    }
}

#[inline(never)]
fn decode_utf8(s: &str) -> u32 {
    // Sums the code points.
    let b = s.as_bytes();
    let mut i = 0;
    let mut sum = 0u32;
    while i < b.len() {
        let c = b[i] as u32;
        let (cp, len) = if c < 0x80 {
            (c, 1)
        } else if c < 0xe0 {
            (((c & 0x1f) << 6) | (b[i + 1] as u32 & 0x3f), 2)
        } else if c < 0xf0 {
            (((c & 0x0f) << 12) | ((b[i + 1] as u32 & 0x3f) << 6) | (b[i + 2] as u32 & 0x3f), 3)
        } else {
            (((c & 0x07) << 18) | ((b[i + 1] as u32 & 0x3f) << 12) | ((b[i + 2] as u32 & 0x3f) << 6) | (b[i + 3] as u32 & 0x3f), 4)
        };
        out!(Hex(cp), " ");
        sum += cp;
        i += len;
    }
    outln!();
    sum
}

fn to_upper(s: &str, buf: &mut [u8; 64]) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && i < 64 {
        buf[i] = if b[i] >= b'a' && b[i] <= b'z' { b[i] - 32 } else { b[i] };
        i += 1;
    }
    i
}

#[unsafe(no_mangle)]
pub extern "C" fn test_main() -> i32 {
    let text = black_box("the quick brown fox jumps over the lazy dog");
    outln!("len ", text.len(), " find fox ", find(text, "fox"), " the ", find(text, "the"), " cat ", find(text, "cat"), " empty ", find(text, ""));
    outln!("eq ", "abc" == black_box("abc"), " ", "abc" == black_box("abd"), " ", "abc" == black_box("ab"), " ", "" == black_box(""));
    let nums = ["0", "42", "-17", "9223372036854775807", "9223372036854775808", "-", "", "12a", "-9223372036854775807"];
    for i in 0..nums.len() {
        outln!("parse \"", nums[i], "\" = ", parse_i64(black_box(nums[i])));
    }
    let mut count = 0;
    let mut longest = "";
    words(text, |w| {
        count += 1;
        if w.len() > longest.len() {
            longest = w;
        }
    });
    outln!("words ", count, " longest ", longest);
    let mut buf = [0u8; 64];
    let n = to_upper(text, &mut buf);
    outln!("upper ", unsafe { str_from_utf8_unchecked(&buf[..n]) });
    let sum = decode_utf8(black_box("aé€😀"));
    outln!("utf8 sum ", sum);
    let bytes = b"bytes\x00\x7f\x80\xff";
    outln!("byte string ", bytes.len(), " ", bytes, " last ", bytes[bytes.len() - 1]);
    let mut hist = [0u16; 26];
    let tb = text.as_bytes();
    for i in 0..tb.len() {
        if tb[i] != b' ' {
            hist[(tb[i] - b'a') as usize] += 1;
        }
    }
    outln!("letters ", hist);
    0
}
