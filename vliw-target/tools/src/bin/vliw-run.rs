//! `vliw-run`: the simulator. See `vliw_sim::cli::cli_main`.
fn main() {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    std::process::exit(vliw_sim::cli::cli_main(&args));
}
