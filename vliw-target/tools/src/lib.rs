//! `vliw-tools`: the four command-line tools of the VLIW target. Each binary is a
//! thin wrapper; the logic, including argument parsing, lives in the libraries:
//!
//! | binary | entry point |
//! |---|---|
//! | `vliw-as` | `vliw_asm::cli::as_main` |
//! | `vliw-objdump` | `vliw_asm::cli::objdump_main` |
//! | `vliw-ld` | `vliw_link::run_main` |
//! | `vliw-run` | `vliw_sim::cli::cli_main` |
