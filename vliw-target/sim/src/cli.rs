//! The `vliw-run` command: `vliw-run [OPTIONS] EXECUTABLE [ARGS...]`.
//!
//! Exit status: the program's own (`exit`), a fault's (see `FaultKind::exit_status`,
//! with the fault's line on stderr prefixed `vliw-run: `), 126 when the executable
//! cannot be loaded, 2 for a bad command line. `--stats` prints the statistics line
//! last on stderr, after a fault too.

use crate::fs::DirMapping;
use crate::io::HostIo;
use crate::loader::load_file;
use crate::options::Options;
use crate::simulator::{Outcome, Simulator};
use crate::{STATUS_LOAD_ERROR, STATUS_USAGE};
use std::io::BufWriter;
use std::path::Path;
use std::sync::atomic::Ordering;

pub const USAGE: &str = "\
usage: vliw-run [OPTIONS] EXECUTABLE [ARGS...]

Runs a VLIW executable on the simulator. ARGS are the program's arguments
(argv[0] is EXECUTABLE as given); the host environment is passed through.

Options:
  --stats                 print `stats: cycles=N bundles=N ops=N nullified=N stalls=N
                          branches=N` as the last line on stderr; a program that
                          spawned threads first gets `threads: N switches=N
                          idle-ns=N` and a `thread T: cycles=N bundles=N ops=N
                          stalls=N slices=N` line per thread
  --strict                a latency stall is a fault (exit status 144), not a delay
  --trace                 print every executed bundle on stderr (with its source
                          line when the executable has DWARF line tables)
  --profile FUNC,...      count what the calls of each FUNC execute, callees
                          included (from its first bundle until its caller runs
                          again); print `profile: FUNC calls=N cycles=N bundles=N
                          ops=N nullified=N stalls=N` per FUNC on stderr at the
                          end, before the stats line; repeatable
  --check-unwind          at every call, unwind the caller's frame by its call-frame
                          information (.eh_frame) and fault (exit status 145) unless
                          it gives the caller's entry sp, return address and
                          callee-saved registers; with --stats, print
                          `unwind-check: checked=N without-fde=N` before the stats
  --max-cycles N          fault (exit status 143) when cycle N is reached
  --machine KEY=VALUE,... machine configuration, e.g. width=8,alu=8,latency.load=2
                          (keys: width, alu, mul, mem, fpu, branch, branch-penalty,
                          latency.CLASS); repeatable
  --stack-size BYTES      stack size (default 8M); K, M, G suffixes allowed
  --heap-size BYTES       limit of the heap grown by brk (default 1G)
  --seed N                deterministic `random` system call, real-time clock at 0,
                          and a seeded choice of the next guest thread and of the
                          length of each thread's slice
  --quantum N             cycles a guest thread runs while another is ready
                          before a switch (default 100000)
  --dir HOST[::GUEST]     give the program's file calls the host directory HOST
                          at the guest path GUEST (default HOST as given;
                          relative to the guest's current directory, `/`: `--dir .`
                          maps the host's current directory at `/`); repeatable.
                          Paths resolve inside the mapped directories only: `..`
                          and symbolic links cannot leave them. Without --dir,
                          no file exists
  --env KEY=VALUE         add or replace an environment variable; repeatable
  --clear-env             do not pass the host environment
  --help                  print this help

A fault is one line on stderr naming the bundle, its function and, with line
tables (-g), its source line: `fault: trap 3 in bundle 0x10040 (main+0x40,
src/main.rs:12:5)`.

Exit status: the program's exit code; for a fault 132 illegal bundle, 134 trap,
135 misaligned access, 139 unmapped address or write to read-only memory,
141 jump outside text, 142 stack overflow, 143 cycle limit, 144 latency stall
(--strict), 145 bad unwind information (--check-unwind), 146 deadlock (every
guest thread waits for another; each one's frames follow the fault line); 126 if
the executable cannot be loaded; 2 for a bad command line.
";

/// The parsed command line.
#[derive(Debug, Default, PartialEq)]
struct Command {
    help: bool,
    stats: bool,
    trace: bool,
    check_unwind: bool,
    profile: Vec<String>,
    options: Options,
    clear_env: bool,
    env: Vec<String>,
    executable: String,
    args: Vec<String>,
}

/// A number: decimal or `0x` hexadecimal, with an optional `K`, `M` or `G` suffix
/// (powers of 1024) when `sizes`.
fn parse_number(text: &str, sizes: bool) -> Option<u64> {
    let (digits, scale) = match text.as_bytes().last().map(u8::to_ascii_uppercase) {
        Some(b'K') if sizes => (&text[..text.len() - 1], 1u64 << 10),
        Some(b'M') if sizes => (&text[..text.len() - 1], 1 << 20),
        Some(b'G') if sizes => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    let value = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => u64::from_str_radix(hex, 16).ok()?,
        None => digits.parse().ok()?,
    };
    value.checked_mul(scale)
}

fn parse_args(args: &[String]) -> Result<Command, String> {
    let mut cmd = Command::default();
    let mut i = 0;
    let mut executable = None;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            executable = args.get(i).cloned();
            i += 1;
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            executable = Some(arg.clone());
            break;
        }
        let (name, inline_value) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let takes_value = matches!(
            name,
            "--max-cycles"
                | "--machine"
                | "--stack-size"
                | "--heap-size"
                | "--seed"
                | "--quantum"
                | "--env"
                | "--dir"
                | "--profile"
        );
        let value = if takes_value {
            match inline_value {
                Some(v) => v,
                None => {
                    let v = args
                        .get(i)
                        .cloned()
                        .ok_or_else(|| format!("option `{name}` needs a value"))?;
                    i += 1;
                    v
                }
            }
        } else {
            if inline_value.is_some() {
                return Err(format!("option `{name}` takes no value"));
            }
            String::new()
        };
        let number = |sizes: bool| {
            parse_number(&value, sizes)
                .ok_or_else(|| format!("option `{name}`: `{value}` is not a valid number"))
        };
        match name {
            "--help" | "-h" => cmd.help = true,
            "--stats" => cmd.stats = true,
            "--strict" => cmd.options.strict = true,
            "--trace" => cmd.trace = true,
            "--check-unwind" => cmd.check_unwind = true,
            "--clear-env" => cmd.clear_env = true,
            "--max-cycles" => cmd.options.max_cycles = Some(number(false)?),
            "--machine" => cmd
                .options
                .machine
                .apply_overrides(&value)
                .map_err(|e| format!("option `--machine`: {e}"))?,
            "--stack-size" => {
                let size = number(true)?;
                if size == 0 {
                    return Err("option `--stack-size`: the stack cannot be empty".to_string());
                }
                cmd.options.stack_size = size;
            }
            "--heap-size" => cmd.options.heap_size = number(true)?,
            "--seed" => cmd.options.seed = Some(number(false)?),
            "--quantum" => {
                let quantum = number(false)?;
                if quantum == 0 {
                    return Err("option `--quantum`: a slice must have a cycle".to_string());
                }
                cmd.options.quantum = quantum;
            }
            "--profile" => {
                for name in value.split(',') {
                    if name.is_empty() {
                        return Err(format!("option `--profile`: empty name in `{value}`"));
                    }
                    cmd.profile.push(name.to_string());
                }
            }
            "--dir" => cmd
                .options
                .dirs
                .push(DirMapping::parse(&value).map_err(|e| format!("option `--dir`: {e}"))?),
            "--env" => {
                if !value.contains('=') || value.starts_with('=') {
                    return Err(format!("option `--env`: `{value}` is not KEY=VALUE"));
                }
                cmd.env.push(value);
            }
            _ => return Err(format!("unknown option `{arg}`")),
        }
    }
    if cmd.help {
        return Ok(cmd);
    }
    cmd.executable = executable.ok_or("no executable given")?;
    cmd.args = args[i.min(args.len())..].to_vec();
    Ok(cmd)
}

/// The environment of the guest: the host's (unless cleared) with `--env` entries
/// replacing variables of the same name or appended.
fn environment(clear: bool, extra: &[String]) -> Vec<Vec<u8>> {
    let mut env: Vec<Vec<u8>> = Vec::new();
    if !clear {
        for (key, value) in std::env::vars_os() {
            let mut entry = os_bytes(&key);
            entry.push(b'=');
            entry.extend(os_bytes(&value));
            env.push(entry);
        }
    }
    for item in extra {
        let key_len = item.find('=').map_or(item.len(), |k| k + 1);
        let prefix = &item.as_bytes()[..key_len];
        match env.iter_mut().find(|e| e.starts_with(prefix)) {
            Some(e) => *e = item.as_bytes().to_vec(),
            None => env.push(item.as_bytes().to_vec()),
        }
    }
    env
}

#[cfg(unix)]
fn os_bytes(s: &std::ffi::OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    s.as_bytes().to_vec()
}

#[cfg(not(unix))]
fn os_bytes(s: &std::ffi::OsStr) -> Vec<u8> {
    s.to_string_lossy().into_owned().into_bytes()
}

/// The whole of `vliw-run`: `args` is the command line without the program name.
/// Returns the exit status.
pub fn cli_main(args: &[String]) -> i32 {
    let cmd = match parse_args(args) {
        Ok(cmd) => cmd,
        Err(message) => {
            eprintln!("vliw-run: {message}");
            eprintln!("usage: vliw-run [OPTIONS] EXECUTABLE [ARGS...] (see vliw-run --help)");
            return STATUS_USAGE;
        }
    };
    if cmd.help {
        print!("{USAGE}");
        return 0;
    }
    if let Err(e) = crate::fs::FileSystem::new(&cmd.options.dirs) {
        eprintln!("vliw-run: {e}");
        return STATUS_USAGE;
    }
    let program = match load_file(Path::new(&cmd.executable)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("vliw-run: {e}");
            return STATUS_LOAD_ERROR;
        }
    };
    let argv: Vec<Vec<u8>> = std::iter::once(&cmd.executable)
        .chain(&cmd.args)
        .map(|a| a.as_bytes().to_vec())
        .collect();
    let envp = environment(cmd.clear_env, &cmd.env);
    let io = HostIo::new(cmd.trace);
    let stderr_at_line_start = io.stderr_at_line_start();
    let io = Box::new(io);
    let mut sim = match Simulator::new(&program, &cmd.options, &argv, &envp, io) {
        Ok(sim) => sim,
        Err(e) => {
            eprintln!("vliw-run: {}: {e}", cmd.executable);
            return STATUS_LOAD_ERROR;
        }
    };
    if !cmd.profile.is_empty()
        && let Err(e) = sim.set_profile(&cmd.profile)
    {
        eprintln!("vliw-run: {}: {e}", cmd.executable);
        return STATUS_USAGE;
    }
    if cmd.check_unwind
        && let Err(e) = sim.set_unwind_check()
    {
        eprintln!("vliw-run: {}: {e}", cmd.executable);
        return STATUS_USAGE;
    }
    if cmd.trace {
        sim.set_trace(Box::new(BufWriter::with_capacity(
            64 * 1024,
            std::io::stderr(),
        )));
    }
    let outcome = sim.run();
    let reports = cmd.stats || !cmd.profile.is_empty() || matches!(outcome, Outcome::Fault(_));
    if reports && !stderr_at_line_start.load(Ordering::Relaxed) {
        eprintln!();
    }
    if let Outcome::Fault(fault) = &outcome {
        eprintln!("vliw-run: {fault}");
        if let crate::FaultKind::Deadlock(threads) = &fault.kind {
            for t in threads {
                if !t.backtrace.is_empty() {
                    eprintln!("vliw-run:   thread {}: {}", t.tid, t.backtrace.join(" <- "));
                }
            }
        }
    }
    for counts in sim.profile().unwrap_or_default() {
        eprintln!("{counts}");
    }
    if cmd.stats
        && let Some((checked, without)) = sim.unwind_check_counts()
    {
        eprintln!("unwind-check: checked={checked} without-fde={without}");
    }
    if cmd.stats {
        let threads = sim.thread_stats();
        if threads.len() > 1 {
            eprintln!(
                "threads: {} switches={} idle-ns={}",
                threads.len(),
                sim.thread_switches(),
                sim.idle_ns()
            );
            for t in threads {
                eprintln!(
                    "thread {}: cycles={} bundles={} ops={} stalls={} slices={}",
                    t.tid, t.cycles, t.bundles, t.ops, t.stalls, t.slices
                );
            }
        }
        eprintln!("{}", sim.stats());
    }
    outcome.exit_status()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Command, String> {
        parse_args(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn options_come_before_the_executable() {
        let cmd = parse(&[
            "--stats",
            "--max-cycles",
            "0x100",
            "--seed=7",
            "--profile",
            "a,b",
            "--profile=c",
            "prog",
            "--stats",
            "x",
        ])
        .unwrap();
        assert!(cmd.stats);
        assert_eq!(cmd.options.max_cycles, Some(256));
        assert_eq!(cmd.options.seed, Some(7));
        assert_eq!(cmd.profile, ["a", "b", "c"]);
        assert_eq!(cmd.executable, "prog");
        assert_eq!(cmd.args, ["--stats", "x"]);
        let cmd = parse(&["--", "-weird-name", "a"]).unwrap();
        assert_eq!(
            (cmd.executable.as_str(), cmd.args.as_slice()),
            ("-weird-name", &["a".to_string()][..])
        );
    }

    #[test]
    fn sizes_and_machine_options() {
        let cmd = parse(&[
            "--stack-size",
            "64K",
            "--heap-size=2g",
            "--machine",
            "width=8,alu=8",
            "--machine",
            "latency.load=2",
            "p",
        ])
        .unwrap();
        assert_eq!(cmd.options.stack_size, 64 << 10);
        assert_eq!(cmd.options.heap_size, 2 << 30);
        assert_eq!(cmd.options.machine.width, 8);
        assert_eq!(cmd.options.machine.latency(vliw_isa::LatencyClass::Load), 2);
    }

    #[test]
    fn dirs_map_host_directories() {
        let cmd = parse(&["--dir", ".", "--dir=/h/x::/data", "p"]).unwrap();
        let dirs: Vec<(&str, &str)> = cmd
            .options
            .dirs
            .iter()
            .map(|d| (d.host.to_str().unwrap(), d.guest.as_str()))
            .collect();
        assert_eq!(dirs, [(".", "."), ("/h/x", "/data")]);
    }

    #[test]
    fn usage_errors_are_explained() {
        let cases: [(&[&str], &str); 11] = [
            (&["--dir", "::/x", "p"], "not HOST[::GUEST]"),
            (&["--dir=a::", "p"], "not HOST[::GUEST]"),
            (&["--profile", "a,,b", "p"], "empty name"),
            (&[], "no executable"),
            (&["--bogus", "p"], "unknown option `--bogus`"),
            (&["--max-cycles"], "needs a value"),
            (&["--max-cycles", "ten", "p"], "not a valid number"),
            (&["--machine", "width=99", "p"], "width"),
            (&["--env", "NOEQUALS", "p"], "not KEY=VALUE"),
            (&["--stats=1", "p"], "takes no value"),
            (&["--stack-size", "0", "p"], "cannot be empty"),
        ];
        for (args, message) in cases {
            let e = parse(args).unwrap_err();
            assert!(e.contains(message), "{args:?}: {e}");
        }
        assert!(parse(&["--help"]).unwrap().help);
        let e = parse(&["--quantum", "0", "p"]).unwrap_err();
        assert!(e.contains("a slice must have a cycle"), "{e}");
        let cmd = parse(&["--quantum=5000", "p"]).unwrap();
        assert_eq!(cmd.options.quantum, 5000);
        assert_eq!(
            parse(&["p"]).unwrap().options.quantum,
            crate::DEFAULT_QUANTUM
        );
    }

    #[test]
    fn env_entries_replace_or_append() {
        let env = environment(
            true,
            &["A=1".into(), "B=2".into(), "A=3".into(), "AB=4".into()],
        );
        assert_eq!(env, [b"A=3".to_vec(), b"B=2".to_vec(), b"AB=4".to_vec()]);
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_number("10", false), Some(10));
        assert_eq!(parse_number("0x10", false), Some(16));
        assert_eq!(parse_number("1k", true), Some(1024));
        assert_eq!(parse_number("1k", false), None);
        assert_eq!(parse_number("99999999999G", true), None);
        assert_eq!(parse_number("", false), None);
    }
}
