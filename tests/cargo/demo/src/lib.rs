//! The library half of the `cargo` suite's demo crate: unit tests and doctests
//! that `cargo-vliw test` runs on the simulator.
//!
//! The doctests cover each kind rustdoc knows (the `cargo` suite compares
//! `cargo-vliw test --doc`'s counts with the host's): passing ones (merged into one
//! binary, edition 2024, and one `standalone_crate`), `should_panic`,
//! `compile_fail` (with an error code), `no_run` and `ignore`.
//!
//! ```
//! assert_eq!(demo::sum_squares(3), 5);
//! ```
//!
//! ```standalone_crate
//! // Compiled and run as a binary of its own.
//! fn main() {
//!     let words = demo::longest_words("one three five");
//!     assert_eq!(words, ["three", "five", "one"]);
//! }
//! ```

include!(concat!(env!("OUT_DIR"), "/squares.rs"));

/// Sum of the generated squares below `n`.
///
/// ```
/// # use demo::sum_squares;
/// assert_eq!(sum_squares(4), 14);
/// assert_eq!(sum_squares(0), 0);
/// ```
///
/// Past the table's end it sums the whole table:
///
/// ```should_panic
/// assert_eq!(demo::sum_squares(1000), 0, "the sum is not zero");
/// ```
///
/// ```compile_fail,E0308
/// let n: u64 = demo::sum_squares(2);
/// ```
///
/// ```no_run
/// // Would loop forever; built, never run.
/// loop {
///     std::hint::black_box(demo::sum_squares(2));
/// }
/// ```
pub fn sum_squares(n: usize) -> u32 {
    SQUARES.iter().take(n).sum()
}

/// Words of `text`, longest first, ties alphabetically.
///
/// ```
/// # fn main() -> Result<(), std::num::ParseIntError> {
/// let words = demo::longest_words("10 200 3");
/// let n: u32 = words[0].parse()?;
/// assert_eq!(n, 200);
/// # Ok(())
/// # }
/// ```
///
/// ```ignore
/// not even Rust
/// ```
///
/// ```should_panic
/// let words = demo::longest_words("x");
/// println!("{}", words[3]);
/// ```
pub fn longest_words(text: &str) -> Vec<&str> {
    let mut words: Vec<&str> = text.split_whitespace().collect();
    words.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_from_the_build_script() {
        assert_eq!(SQUARES[9], 81);
        assert_eq!(sum_squares(4), 14);
    }

    #[test]
    fn words_sorted() {
        assert_eq!(longest_words("a bb ccc dd"), vec!["ccc", "bb", "dd", "a"]);
    }

    #[test]
    #[ignore]
    fn ignored_test() {}

    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn should_panic_on_a_bad_index() {
        let v: Vec<u32> = Vec::new();
        let _ = v[usize::from(v.is_empty())];
    }

    #[test]
    fn catches_a_panic() {
        let r = std::panic::catch_unwind(|| longest_words("x")[3]);
        assert!(r.is_err());
    }

    /// First in libtest's order: the tests after it must still run.
    #[cfg(feature = "failing")]
    #[test]
    fn a_failing_test() {
        assert_eq!(sum_squares(3), 4, "deliberately wrong");
    }

    #[test]
    fn formatting() {
        assert_eq!(format!("{:>6.2}|{:<4}|{:#x}", 3.14159, "ab", 255), "  3.14|ab  |0xff");
    }
}
