//! The build system behind `./y.sh`, in the style of rustc_codegen_cranelift's: a plain
//! Rust program without dependencies, built with the stable toolchain by y.sh, which
//! installs the pinned nightly and drives cargo and the project's tools.

mod bench;
mod bench_analyses;
mod bench_compile;
mod bench_hexagon;
mod bench_hexagon_run;
mod bench_modulo_loops;
mod bench_programs;
mod bench_report;
mod build;
mod clean;
mod differential;
mod gen_program;
mod headers;
mod paths;
mod process;
mod report;
mod run;
mod sysroot;
mod test;
mod test_cargo;
mod test_extended;
mod test_fuzz;
mod test_no_sysroot;
mod test_programs;
mod test_sysroot;
mod test_sysroot_std;
mod test_target;
mod toolchain;

use std::process::ExitCode;

use paths::Paths;

const USAGE: &str = "\
Usage: ./y.sh COMMAND [OPTIONS]

Commands:
  prepare           Install the toolchain pinned in rust-toolchain.toml, with its
                    components, using rustup (a fast check when already installed)
  build [--debug]   Build the workspace, install the tools in dist/, build the
                    sysroot (core, alloc, std, test) with our backend into
                    dist/sysroot and write dist/rustc-vliw, dist/rustdoc-vliw,
                    dist/cargo-vliw and its runner dist/vliw-test-run
                      --debug    the workspace without optimizations (no sysroot)
  test [SUITE...]   Run the test suites of tests/suites.txt (default: all of them
                    but those marked [explicit]); prints a summary and exits non-zero
                    if any suite failed
                      --list       list the suites and exit
                      --host-only  no_sysroot, programs: only the host half (LLVM
                                   builds run natively and checked against their
                                   headers)
                      --binary NAME    sysroot, sysroot_sample: only this test
                                       binary (coretests, alloctests,
                                       alloctests-lib); repeatable
                      --profile P      sysroot, sysroot_sample: only this build
                                       profile (release: opt-level 3, debug:
                                       opt-level 0)
                      --sample N       fuzz, fuzz_sample: a deterministic sample
                                       of N programs of the rustlantis corpus
                                       (fuzz: all 200, fuzz_sample: CI's 150)
                      --program NAME   fuzz, fuzz_sample: only this program
                                       (rl_5003; repeatable)
                      --all-configs    fuzz, fuzz_sample: also each optional
                                       pass switched from its default in turn
                                       (off, or on when off by default), at
                                       each opt level (the passes of
                                       -Cllvm-args=passes)
                      --config KEY     fuzz, fuzz_sample: only this configuration
                                       of the --all-configs list (O0,
                                       O3,rvsdg-ivr=off; repeatable), to run the
                                       whole set in parts
  run [FLAGS] FILE [-- ARGS...]
                    Build FILE and run it on the simulator with ARGS; stdin, stdout,
                    stderr and the exit code are the program's (build messages go
                    to stderr). FILE: a Rust program with std (.rs, built by
                    dist/rustc-vliw) or an assembly program (.s)
                      --release          Rust: -Copt-level=3 (default 0)
                      -C, -Z, --edition, --cfg, --crate-name, --cap-lints,
                      -A, -W, -D, -O, -g
                                         Rust: rustc's options, passed to
                                         dist/rustc-vliw as given (`-C opt-level=2`
                                         or `-Copt-level=2`; the edition is 2024
                                         unless given; backend options as
                                         -Cllvm-args=KEY=VALUE, `-Cllvm-args=help`
                                         lists them)
                      --stats            print cycles, bundles, ops, nullified ops,
                                         stalls, branches on stderr
                      --strict           a stall is a scheduling error
                      --trace            trace executed bundles on stderr
                      --check-unwind     check every frame's call-frame information
                      --max-cycles N, --seed N, --machine K=V, --stack-size B,
                      --heap-size B, --env K=V, --profile FUNC
                                         vliw-run's options, passed through
                      --dir HOST[::GUEST]
                                         give the program the host directory
                                         HOST at GUEST (vliw-run --dir; relative
                                         HOST: to the current directory, which
                                         is also the simulator's); repeatable
  bench [--quick] [-C KEY=VALUE]... [WHAT...]
                    Run benchmarks (default: all) and write target/bench/report.md
                    with SVG plots; prints a summary
                      --quick    one run per wall-clock figure and fewer compile
                                 workloads: a few minutes
                      -C KEY=VALUE  a backend option (-Cllvm-args) for our
                                 builds in programs and hexagon (repeatable),
                                 e.g. -C rvsdg=on; the report names them
                      programs   simulated cycles, IPC, bundle fill, stalls, code
                                 size of benches/programs at -Copt-level=3, each
                                 optional pass switched from its default in
                                 turn; simulator speed against the native LLVM
                                 build
                      hexagon    bundles executed per kernel (vliw-run) beside
                                 the packets LLVM's Hexagon build executes
                                 (qemu-hexagon, installed with apt-get when
                                 missing); static bundles per kernel function and
                                 loop body beside LLVM's Hexagon packets
                                 (benches/kernels)
                      compile    compile time of the sysroot and sample crates,
                                 ours against LLVM -O0/-O3 and Cranelift, and the
                                 backend's time per phase
                      analyses   time of the SSA analyses and SSA destruction
                                 per function of the sysroot (core only with
                                 --quick), by function size; data-flow against
                                 two-pass liveness on the largest functions
                      sim        peak simulator speed on tests/bench/sim_loop.s
  clean             Remove dist/, build/ and target/
  help, --help      Show this message

Every command except clean first runs the check of `prepare`. Progress messages go to
stderr.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match dispatch(&args) {
        Ok(code) => code,
        Err(Error::Usage(message)) => {
            eprintln!("error: {message}\nRun `./y.sh --help` for the commands and their options.");
            ExitCode::from(2)
        }
        Err(Error::Failed(message)) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

enum Error {
    /// A bad command line.
    Usage(String),
    /// The command could not do its job.
    Failed(String),
}

impl From<String> for Error {
    fn from(message: String) -> Error {
        Error::Failed(message)
    }
}

fn dispatch(args: &[String]) -> Result<ExitCode, Error> {
    let Some((command, options)) = args.split_first() else {
        eprintln!("{USAGE}");
        return Err(Error::Usage("no command given".into()));
    };
    if matches!(command.as_str(), "help" | "--help" | "-h")
        || options.iter().any(|o| o == "--help" || o == "-h")
    {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    let paths = Paths::discover()?;
    match command.as_str() {
        "prepare" => {
            no_options(command, options)?;
            let toolchain = toolchain::ensure_toolchain(&paths.root)?;
            eprintln!(
                "[prepare] toolchain {} is installed with {}",
                toolchain.channel,
                toolchain.components.join(", ")
            );
            Ok(ExitCode::SUCCESS)
        }
        "build" => {
            let profile = match options {
                [] => build::Profile::Release,
                [o] if o == "--debug" => build::Profile::Debug,
                _ => {
                    return Err(Error::Usage(format!(
                        "build: unexpected {}",
                        options.join(" ")
                    )));
                }
            };
            let toolchain = toolchain::ensure_toolchain(&paths.root)?;
            build::build(&paths, &toolchain, profile)?;
            Ok(ExitCode::SUCCESS)
        }
        "test" => {
            if options.iter().any(|o| o == "--list") {
                test::list(&test::load_suites(&paths)?);
                return Ok(ExitCode::SUCCESS);
            }
            let mut test_options = test::Options::default();
            let mut names = Vec::new();
            let mut options = options.iter();
            while let Some(o) = options.next() {
                match o.as_str() {
                    "--host-only" => test_options.host_only = true,
                    "--all-configs" => test_options.fuzz.all_configs = true,
                    "--sample" => {
                        let n = options.next().and_then(|n| n.parse::<usize>().ok());
                        let n = n.ok_or_else(|| {
                            Error::Usage("test: --sample needs a number of programs".into())
                        })?;
                        test_options.fuzz.sample = Some(n);
                    }
                    "--program" => {
                        let Some(name) = options.next() else {
                            return Err(Error::Usage("test: --program needs a name".into()));
                        };
                        test_options.fuzz.programs.push(name.clone());
                    }
                    "--config" => {
                        let Some(key) = options.next() else {
                            return Err(Error::Usage(
                                "test: --config needs a configuration (O0, O3,rvsdg-ivr=off)"
                                    .into(),
                            ));
                        };
                        test_options.fuzz.configs.push(key.clone());
                    }
                    "--binary" | "--profile" => {
                        let Some(value) = options.next() else {
                            return Err(Error::Usage(format!("test: {o} needs a value")));
                        };
                        if o == "--binary" {
                            test_options.binaries.push(value.clone());
                        } else {
                            test_options.profile = Some(
                                test_sysroot::Profile::parse(value)
                                    .map_err(|e| Error::Usage(format!("test: {e}")))?,
                            );
                        }
                    }
                    flag if flag.starts_with('-') => {
                        return Err(Error::Usage(format!("test: unknown option {flag}")));
                    }
                    name => names.push(name.to_string()),
                }
            }
            let toolchain = toolchain::ensure_toolchain(&paths.root)?;
            let passed = test::test(&paths, &toolchain, &names, &test_options)?;
            Ok(if passed {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        "run" => run_command(&paths, options),
        "bench" => {
            let mut bench_options = bench::BenchOptions::default();
            let mut names: Vec<String> = Vec::new();
            let mut backend: Vec<String> = Vec::new();
            let mut words = options.iter();
            while let Some(option) = words.next() {
                match option.as_str() {
                    "--quick" => bench_options.quick = true,
                    "-C" => match words.next() {
                        Some(kv) if kv.contains('=') => backend.push(kv.clone()),
                        _ => {
                            return Err(Error::Usage(
                                "bench: -C takes a backend option KEY=VALUE".into(),
                            ));
                        }
                    },
                    flag if flag.starts_with('-') => {
                        return Err(Error::Usage(format!("unknown bench option `{flag}`")));
                    }
                    name => names.push(name.to_string()),
                }
            }
            if names.is_empty() {
                names = bench::BENCHES
                    .iter()
                    .map(|(name, _)| name.to_string())
                    .collect();
            }
            bench::check_names(&names).map_err(Error::Usage)?;
            bench_options.backend = Vec::leak(backend);
            let toolchain = toolchain::ensure_toolchain(&paths.root)?;
            build::build(&paths, &toolchain, build::Profile::Release)?;
            let mut sections = Vec::new();
            for name in &names {
                sections.push(bench::run(&paths, &toolchain, name, bench_options)?);
            }
            let summary = bench::write_report(&paths, &sections)?;
            println!("{summary}");
            println!(
                "report: {}",
                paths.show(&bench::report_dir(&paths).join("report.md"))
            );
            Ok(ExitCode::SUCCESS)
        }
        // No toolchain check: clean runs no cargo, and it should not download a
        // toolchain on a fresh machine only to delete directories.
        "clean" => {
            no_options(command, options)?;
            clean::clean(&paths)?;
            Ok(ExitCode::SUCCESS)
        }
        _ => Err(Error::Usage(format!("unknown command `{command}`"))),
    }
}

fn no_options(command: &str, options: &[String]) -> Result<(), Error> {
    match options {
        [] => Ok(()),
        _ => Err(Error::Usage(format!(
            "{command} takes no options, got {}",
            options.join(" ")
        ))),
    }
}

/// `run [FLAGS] FILE [-- ARGS...]`: flags come before FILE, and everything after FILE
/// belongs to the program (`run::parse_command_line`).
fn run_command(paths: &Paths, options: &[String]) -> Result<ExitCode, Error> {
    let opts = run::parse_command_line(options).map_err(Error::Usage)?;
    let toolchain = toolchain::ensure_toolchain(&paths.root)?;
    build::build(paths, &toolchain, build::Profile::Release)?;
    let code = match opts.kind {
        run::Kind::Rust => run::run_rust(paths, &opts)?,
        run::Kind::Assembly => run::run_assembly(paths, &opts)?,
    };
    // Exit codes are 0..=255 on every host we run on; clamp rather than wrap.
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(u8::MAX)))
}
