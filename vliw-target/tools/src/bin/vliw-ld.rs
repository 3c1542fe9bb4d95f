//! `vliw-ld`: the linker. See `vliw_link::main_with_args` and docs/linking.md.
fn main() -> std::process::ExitCode {
    vliw_link::run_main()
}
