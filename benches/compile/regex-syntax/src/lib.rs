//! `./y.sh bench compile` times building this crate's dependency, regex-syntax (default
//! features: all of Unicode's tables); this crate only makes cargo build it.
pub use regex_syntax;
