//! Runs an SSA IR file through the pipeline and prints the dumps the options ask for,
//! without rustc: the way to look at what a pass does to a function, and to make the
//! input of a machine-IR filetest (`tests/mir/README.md`).
//!
//! ```text
//! cargo run --release -p vliw-pipeline --example passes -- FILE.ir dump=after:isel [KEY=VALUE...]
//! ```
//!
//! The options are the backend's (`-Cllvm-args`, `docs/pipeline.md`); `dump=` defaults
//! to `after:all`. A word `stats` prints the passes' counters (`vliw-stats: ...`) on
//! stderr at the end, as `-Cllvm-args=stats` does; `time-passes` their times.

use std::io::Write;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first() else {
        eprintln!("usage: passes FILE.ir [KEY=VALUE...]");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{file}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let module = match vliw_ir::parse_module(&text) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{file}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let flag = |name: &str| args[1..].iter().any(|a| a == name);
    let (stats, time_passes) = (flag("stats"), flag("time-passes"));
    let words: Vec<&str> = args[1..]
        .iter()
        .map(String::as_str)
        .filter(|&a| a != "stats" && a != "time-passes")
        .collect();
    let mut words = words.join(" ");
    if !args[1..].iter().any(|a| a.starts_with("dump=")) {
        words.push_str(" dump=after:all");
    }
    let mut options = match vliw_pipeline::Options::parse(&words) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    if stats {
        options.backend.counters = Some(vliw_machine::Counters::new());
    }
    if time_passes {
        options.timings = Some(vliw_pipeline::Timings::new());
    }
    let sink = Arc::new(Mutex::new(Vec::<u8>::new()));
    options.dump_to = Some(sink.clone());
    let result = vliw_pipeline::compile_module(&module, &options);
    let _ = std::io::stdout().write_all(&sink.lock().unwrap_or_else(|e| e.into_inner()));
    if let Some(c) = &options.backend.counters {
        eprintln!("{}", c.to_line());
    }
    if let Some(t) = &options.timings {
        eprint!("{}", t.to_text());
    }
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
