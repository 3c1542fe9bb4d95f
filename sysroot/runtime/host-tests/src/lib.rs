//! The runtime (`sysroot/runtime`) runs on the simulator, built against our
//! sysroot; its machine-independent logic is included here unchanged and tested on
//! the host, where failures are easy to read.

#[path = "../../src/heap.rs"]
pub mod heap;

#[cfg(test)]
mod heap_tests;
