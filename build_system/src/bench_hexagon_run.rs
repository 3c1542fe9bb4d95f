//! `bench hexagon`, the dynamic part: bundles we execute beside the packets Hexagon
//! executes, kernel by kernel, on the same inputs.
//!
//! `benches/kernels/src/bin/driver.rs` calls every kernel on deterministic inputs and
//! prints a checksum per kernel. It is built three times: for the host by LLVM (its
//! output is the expectation), for Hexagon by LLVM (`no_std`, run by `qemu-hexagon`
//! in one-packet-per-block mode with its execution log: one line per executed
//! packet, with its address), and by our backend (run by `vliw-run --profile`). Both
//! outputs must equal the host's. On each side the same rule attributes execution to
//! a kernel call: from the kernel's first packet or bundle, entered from outside it,
//! until a packet or bundle of its caller (the function that held the one executed
//! just before the entry) executes again; callees are included. Function address
//! ranges come from the ELF symbol table (read here: the build system has no
//! dependencies) on the Hexagon side and from the simulator's own symbols on ours.
//!
//! qemu comes from Debian's `qemu-user` package; when `qemu-hexagon` is missing the
//! bench installs it with apt-get, and when that fails the dynamic part is skipped
//! with the reason (the static part still runs).

use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::bench::BenchOptions;
use crate::bench::TIMEOUT;
use crate::bench_report::{Plot, Scale, Series, geomean, table};
use crate::paths::Paths;
use crate::process;
use crate::sysroot;
use crate::toolchain::Toolchain;

const HEXAGON: &str = "hexagon-unknown-none-elf";
const QEMU: &str = "qemu-hexagon";
/// The Debian package with `qemu-hexagon`.
const QEMU_PACKAGE: &str = "qemu-user";
/// The CPU model qemu emulates. qemu takes the model from the ELF header's flags by
/// default, and 7.2 (Debian 12) knows none newer than V67, so it rejects V73's
/// flags; its V67 runs the V73 code of these kernels (scalar code: an instruction it
/// did not know would end the run with SIGILL, and the checksums are compared).
const QEMU_CPU: &str = "v67";
/// The driver's binary name (benches/kernels/src/bin/driver.rs).
const DRIVER: &str = "driver";
/// The crate's name in benches/kernels/Cargo.toml.
const CRATE: &str = "kernels";
/// The hand-counted loop of the Hexagon driver: `calibrate_loop(1000)` executes
/// the set-up packet, a `nop` packet, 1000 times a hardware loop of two packets and
/// the return packet (driver.rs, `platform`). Its count in qemu's log checks the
/// counting on every run.
const CALIBRATION: &str = "calibrate_loop";
const CALIBRATION_TRIPS: u64 = 1000;
const CALIBRATION_PACKETS: u64 = 2 * CALIBRATION_TRIPS + 3;
/// What `vliw-run` needs for runs that do not depend on the host (as in `bench
/// programs`).
const VLIW_RUN_OPTIONS: [&str; 4] = ["--clear-env", "--seed", "1", "--stats"];

/// One kernel's executed figures.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ExecRow {
    pub name: String,
    pub calls: u64,
    pub packets: u64,
    pub bundles: u64,
    pub cycles: u64,
}

impl ExecRow {
    fn bundle_ratio(&self) -> f64 {
        self.bundles as f64 / self.packets.max(1) as f64
    }

    fn cycle_ratio(&self) -> f64 {
        self.cycles as f64 / self.packets.max(1) as f64
    }
}

/// The dynamic part's results.
pub(crate) struct Executed {
    pub rows: Vec<ExecRow>,
    /// `qemu-hexagon -version`'s first line.
    pub qemu: String,
    /// The option that makes each packet a translation block of its own.
    pub one_per_block: String,
    /// Packets counted in the calibration loop's call (`CALIBRATION_PACKETS`).
    pub calibration: u64,
    /// Packets in qemu's whole log, bundles of our whole run.
    pub total_packets: u64,
    pub total_bundles: u64,
    pub qemu_seconds: f64,
}

/// Builds the three drivers, runs them, and counts. `Ok(Err(reason))`: skipped
/// because qemu is not available; `Err`: something measured is wrong (a build
/// failure, an output that differs from the host's, a count that fails its check).
pub(crate) fn run(
    paths: &Paths,
    toolchain: &Toolchain,
    crate_dir: &Path,
    kernels: &[String],
    cpu: &str,
    work: &Path,
    options: BenchOptions,
) -> Result<Result<Executed, String>, String> {
    let qemu = match ensure_qemu() {
        Ok(version) => version,
        Err(reason) => {
            eprintln!("[bench] hexagon: executed packets skipped: {reason}");
            return Ok(Err(reason));
        }
    };
    let one_per_block = one_tb_per_packet_option();
    let work = work.join("run");
    fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let library = crate_dir.join("src").join("lib.rs");
    let driver = crate_dir
        .join("src")
        .join("bin")
        .join(format!("{DRIVER}.rs"));

    let start = Instant::now();
    let host = build_host(paths, toolchain, &library, &driver, &work.join("host"))?;
    let hexagon = build_hexagon_driver(paths, toolchain, crate_dir, cpu, &work)?;
    let ours = build_ours(paths, &library, &driver, &work.join("vliw"), options)?;
    eprintln!(
        "[bench] hexagon: drivers built in {:.1} s",
        start.elapsed().as_secs_f64()
    );

    let expected = run_host(paths, &host)?;
    let start = Instant::now();
    let mut watched: Vec<String> = kernels.to_vec();
    watched.push(CALIBRATION.into());
    let qemu_run = run_qemu(paths, &hexagon, &one_per_block, &watched)?;
    let qemu_seconds = start.elapsed().as_secs_f64();
    compare_outputs(
        &expected,
        &qemu_run.stdout,
        "qemu-hexagon (LLVM's Hexagon build)",
    )?;
    let (calibration_calls, calibration) = qemu_run.counts[kernels.len()];
    if calibration_calls != 1 || calibration != CALIBRATION_PACKETS {
        return Err(format!(
            "the packet count is wrong: `{CALIBRATION}({CALIBRATION_TRIPS})` executes \
             {CALIBRATION_PACKETS} packets in one call (counted by hand, driver.rs), but \
             {calibration} packets in {calibration_calls} calls were counted in qemu's log \
             (`{QEMU} {one_per_block} -d exec,nochain`)"
        ));
    }
    let start = Instant::now();
    let (our_output, profile, total_bundles) = run_ours(paths, &ours, kernels)?;
    eprintln!(
        "[bench] hexagon: qemu {qemu_seconds:.1} s ({} packets logged), vliw-run {:.1} s",
        qemu_run.lines,
        start.elapsed().as_secs_f64()
    );
    compare_outputs(&expected, &our_output, "vliw-run (our build)")?;

    let mut rows = Vec::new();
    for (i, name) in kernels.iter().enumerate() {
        let (calls, packets) = qemu_run.counts[i];
        let ours = profile
            .iter()
            .find(|p| &p.name == name)
            .ok_or_else(|| format!("vliw-run --profile printed no line for `{name}`"))?;
        if calls == 0 || calls != ours.calls {
            return Err(format!(
                "kernel `{name}`: {calls} calls counted in qemu's log, {} by vliw-run \
                 --profile; the driver calls every kernel the same number of times",
                ours.calls
            ));
        }
        rows.push(ExecRow {
            name: name.clone(),
            calls,
            packets,
            bundles: ours.bundles,
            cycles: ours.cycles,
        });
    }
    Ok(Ok(Executed {
        rows,
        qemu,
        one_per_block,
        calibration,
        total_packets: qemu_run.lines,
        total_bundles,
        qemu_seconds,
    }))
}

// ------------------------------------------------------------------------ qemu

/// The first line of `qemu-hexagon -version`, when it runs.
fn qemu_version() -> Option<String> {
    let out = Command::new(QEMU)
        .arg("-version")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or(QEMU)
            .trim()
            .to_string()
    })
}

/// qemu's version line; installs Debian's `qemu-user` with apt-get when
/// `qemu-hexagon` is missing. The error is the reason it is not available.
fn ensure_qemu() -> Result<String, String> {
    if let Some(version) = qemu_version() {
        return Ok(version);
    }
    let has = |program: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {program}")])
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !has("apt-get") {
        return Err(format!(
            "{QEMU} is not installed, and there is no apt-get to install Debian's \
             {QEMU_PACKAGE} package that provides it"
        ));
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let sudo = !root
        && has("sudo")
        && Command::new("sudo")
            .args(["-n", "true"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    if !root && !sudo {
        return Err(format!(
            "{QEMU} is not installed, and installing {QEMU_PACKAGE} with apt-get needs root \
             (or sudo without a password)"
        ));
    }
    eprintln!("[bench] hexagon: {QEMU} is missing; installing {QEMU_PACKAGE} with apt-get");
    let apt = |args: &[&str]| -> Result<(), String> {
        let mut cmd = if sudo {
            let mut c = Command::new("sudo");
            c.args(["-n", "apt-get"]);
            c
        } else {
            Command::new("apt-get")
        };
        cmd.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        let out = process::run(&mut cmd, b"", Instant::now() + TIMEOUT)?;
        if out.success() {
            Ok(())
        } else {
            Err(format!(
                "`apt-get {}` failed ({}): {}",
                args.join(" "),
                out.describe(),
                tail(&out.stderr_text(), 5)
            ))
        }
    };
    apt(&["update", "-q"])?;
    apt(&[
        "install",
        "-y",
        "-q",
        "--no-install-recommends",
        QEMU_PACKAGE,
    ])?;
    qemu_version().ok_or_else(|| {
        format!("apt-get installed {QEMU_PACKAGE}, but `{QEMU} -version` still does not run")
    })
}

/// `-one-insn-per-tb` (qemu 8.1 and later), or its older name `-singlestep`: every
/// packet becomes a translation block of its own, so that the execution log has a
/// line per packet.
fn one_tb_per_packet_option() -> String {
    let help = Command::new(QEMU)
        .arg("-h")
        .stdin(Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if help.contains("-one-insn-per-tb") {
        "-one-insn-per-tb".into()
    } else {
        "-singlestep".into()
    }
}

/// The guest address of a line of qemu's `-d exec` log, `Trace 0: 0x7f0c4c000100
/// [00000000/000200e0/00000000/00000201] counted`: the second field in brackets
/// (the fields are cs_base, pc, flags, cflags in every version). Other lines: None.
pub(crate) fn qemu_exec_pc(line: &str) -> Option<u64> {
    let rest = line.strip_prefix("Trace ")?;
    let (_, fields) = rest.split_once('[')?;
    let (fields, _) = fields.split_once(']')?;
    let pc = fields.split('/').nth(1)?;
    u64::from_str_radix(pc.trim(), 16).ok()
}

struct QemuRun {
    stdout: Vec<u8>,
    /// (calls, packets) per watched function, in order.
    counts: Vec<(u64, u64)>,
    /// Lines of the execution log: packets executed in the whole run.
    lines: u64,
}

/// Runs the Hexagon driver under qemu with its execution log on stderr, counting
/// the packets of each call of the `watched` functions as the lines stream by (the
/// log is about 100 MB; it is never stored).
fn run_qemu(
    paths: &Paths,
    exe: &Path,
    one_per_block: &str,
    watched: &[String],
) -> Result<QemuRun, String> {
    let bytes = fs::read(exe).map_err(|e| format!("cannot read {}: {e}", exe.display()))?;
    let functions = elf_functions(&bytes).map_err(|e| format!("{}: {e}", paths.show(exe)))?;
    let mut counter =
        CallCounter::new(watched, &functions).map_err(|e| format!("{}: {e}", paths.show(exe)))?;
    let mut cmd = Command::new(QEMU);
    cmd.args(["-cpu", QEMU_CPU, one_per_block, "-d", "exec,nochain"])
        .arg(exe)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| format!("cannot run {QEMU}: {e}"))?;
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let out_thread = thread::spawn(move || {
        let mut kept = Vec::new();
        let _ = stdout.read_to_end(&mut kept);
        kept
    });
    let stderr = child.stderr.take().expect("stderr is piped");
    let log_thread = thread::spawn(move || {
        let mut lines = 0u64;
        let mut other = Vec::new();
        for line in BufReader::with_capacity(1 << 20, stderr).lines() {
            let Ok(line) = line else { break };
            match qemu_exec_pc(&line) {
                Some(pc) => {
                    lines += 1;
                    counter.observe(pc);
                }
                None if other.len() < 20 => other.push(line),
                None => {}
            }
        }
        (counter, lines, other)
    });
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| format!("{QEMU}: {e}"))? {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(20));
    };
    let stdout = out_thread.join().unwrap_or_default();
    let (counter, lines, other) = log_thread
        .join()
        .map_err(|_| "the reader of qemu's log panicked".to_string())?;
    match status {
        Some(s) if s.success() => {}
        Some(s) => {
            return Err(format!(
                "{QEMU} {} failed ({}): {}",
                paths.show(exe),
                process::describe_status(s),
                other.join("\n")
            ));
        }
        None => return Err(format!("{QEMU} {} timed out", paths.show(exe))),
    }
    if lines == 0 {
        return Err(format!(
            "{QEMU} -d exec,nochain logged no `Trace` line: {}",
            other.join("\n")
        ));
    }
    Ok(QemuRun {
        stdout,
        counts: counter.counts(),
        lines,
    })
}

// ------------------------------------------------------------------------ counting

/// A function symbol of an ELF file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ElfFunction {
    pub name: String,
    pub addr: u64,
    pub size: u64,
}

/// The `STT_FUNC` symbols of a little-endian ELF file (32- or 64-bit).
pub(crate) fn elf_functions(bytes: &[u8]) -> Result<Vec<ElfFunction>, String> {
    let bad = |what: &str| format!("not a readable ELF file: {what}");
    if bytes.len() < 52 || &bytes[..4] != b"\x7fELF" {
        return Err(bad("no ELF header"));
    }
    let wide = match bytes[4] {
        1 => false,
        2 => true,
        _ => return Err(bad("unknown class")),
    };
    if bytes[5] != 1 {
        return Err(bad("not little-endian"));
    }
    let get = |at: usize, n: usize| -> Result<u64, String> {
        let b = bytes.get(at..at + n).ok_or_else(|| bad("truncated"))?;
        Ok(b.iter().rev().fold(0u64, |v, &x| (v << 8) | x as u64))
    };
    let (shoff, shentsize, shnum) = if wide {
        (get(0x28, 8)?, get(0x3a, 2)?, get(0x3c, 2)?)
    } else {
        (get(0x20, 4)?, get(0x2e, 2)?, get(0x30, 2)?)
    };
    // (type, offset, size, link, entsize) of section i.
    let section = |i: u64| -> Result<(u64, u64, u64, u64, u64), String> {
        let at = (shoff + i * shentsize) as usize;
        Ok(if wide {
            (
                get(at + 4, 4)?,
                get(at + 0x18, 8)?,
                get(at + 0x20, 8)?,
                get(at + 0x28, 4)?,
                get(at + 0x38, 8)?,
            )
        } else {
            (
                get(at + 4, 4)?,
                get(at + 0x10, 4)?,
                get(at + 0x14, 4)?,
                get(at + 0x18, 4)?,
                get(at + 0x24, 4)?,
            )
        })
    };
    const SHT_SYMTAB: u64 = 2;
    const STT_FUNC: u64 = 2;
    let mut functions = Vec::new();
    for i in 0..shnum {
        let (kind, offset, size, link, entsize) = section(i)?;
        if kind != SHT_SYMTAB || entsize == 0 {
            continue;
        }
        let (_, strings, strings_size, _, _) = section(link)?;
        let name_at = |offset_in: u64| -> Result<String, String> {
            let start = (strings + offset_in) as usize;
            let end = (strings + strings_size) as usize;
            let table = bytes
                .get(start..end)
                .ok_or_else(|| bad("bad string table"))?;
            let len = table.iter().position(|&b| b == 0).unwrap_or(table.len());
            Ok(String::from_utf8_lossy(&table[..len]).into_owned())
        };
        for k in 0..size / entsize {
            let at = (offset + k * entsize) as usize;
            let (name, info, value, sym_size) = if wide {
                (
                    get(at, 4)?,
                    get(at + 4, 1)?,
                    get(at + 8, 8)?,
                    get(at + 16, 8)?,
                )
            } else {
                (
                    get(at, 4)?,
                    get(at + 12, 1)?,
                    get(at + 4, 4)?,
                    get(at + 8, 4)?,
                )
            };
            if info & 0xf == STT_FUNC {
                functions.push(ElfFunction {
                    name: name_at(name)?,
                    addr: value,
                    size: sym_size,
                });
            }
        }
    }
    Ok(functions)
}

/// Address ranges of functions, sorted, without overlaps: a symbol of size 0 runs
/// to the next function; of several at one address, the largest is kept.
fn function_ranges(functions: &[ElfFunction]) -> Vec<(u64, u64)> {
    let mut sorted: Vec<&ElfFunction> = functions.iter().collect();
    sorted.sort_by_key(|f| (f.addr, std::cmp::Reverse(f.size)));
    let mut ranges: Vec<(u64, u64)> = Vec::new();
    for (i, f) in sorted.iter().enumerate() {
        if ranges.last().is_some_and(|r| r.0 == f.addr) {
            continue;
        }
        let end = if f.size > 0 {
            f.addr.saturating_add(f.size)
        } else {
            sorted[i + 1..]
                .iter()
                .find(|n| n.addr > f.addr)
                .map_or(u64::MAX, |n| n.addr)
        };
        ranges.push((f.addr, end));
    }
    ranges
}

/// Attributes executed addresses to calls of watched functions, as `vliw-run
/// --profile` does (vliw-target/sim/src/profile.rs): a call starts at the
/// function's entry address reached from outside the function, and ends when an
/// address of its caller (the function holding the address executed just before the
/// entry) executes again; every address in between counts, callees included. An
/// entry of another watched function while a call is open belongs to that call.
pub(crate) struct CallCounter {
    /// Entry addresses of the watched functions, sorted, with their index.
    entries: Vec<(u64, usize)>,
    functions: Vec<(u64, u64)>,
    /// (calls, executed) per watched function.
    counts: Vec<(u64, u64)>,
    /// The open call: function, caller's range, `seen` at its entry.
    open: Option<(usize, (u64, u64), u64)>,
    previous: Option<u64>,
    /// Addresses observed so far.
    seen: u64,
}

impl CallCounter {
    pub(crate) fn new(watched: &[String], functions: &[ElfFunction]) -> Result<Self, String> {
        let mut entries = Vec::new();
        for (i, name) in watched.iter().enumerate() {
            let f = functions
                .iter()
                .find(|f| &f.name == name)
                .ok_or_else(|| format!("no function `{name}` in the symbol table"))?;
            entries.push((f.addr, i));
        }
        entries.sort_unstable();
        Ok(CallCounter {
            entries,
            functions: function_ranges(functions),
            counts: vec![(0, 0); watched.len()],
            open: None,
            previous: None,
            seen: 0,
        })
    }

    fn range_of(&self, addr: u64) -> (u64, u64) {
        let n = self.functions.partition_point(|r| r.0 <= addr);
        match n.checked_sub(1).map(|i| self.functions[i]) {
            Some((start, end)) if addr < end => (start, end),
            _ => (addr, addr + 1),
        }
    }

    pub(crate) fn observe(&mut self, addr: u64) {
        if let Some((function, caller, at_entry)) = self.open
            && addr >= caller.0
            && addr < caller.1
        {
            self.counts[function].0 += 1;
            self.counts[function].1 += self.seen - at_entry;
            self.open = None;
        }
        if self.open.is_none()
            && let Some(previous) = self.previous
            && let Ok(i) = self.entries.binary_search_by_key(&addr, |e| e.0)
        {
            let caller = self.range_of(previous);
            if !(addr >= caller.0 && addr < caller.1) {
                self.open = Some((self.entries[i].1, caller, self.seen));
            }
        }
        self.previous = Some(addr);
        self.seen += 1;
    }

    /// (calls, executed) per watched function, in the order given; a call still
    /// open is not counted.
    pub(crate) fn counts(&self) -> Vec<(u64, u64)> {
        self.counts.clone()
    }
}

/// One `profile: NAME calls=N cycles=N bundles=N ...` line of `vliw-run --profile`.
#[derive(Debug, PartialEq)]
pub(crate) struct ProfileLine {
    pub name: String,
    pub calls: u64,
    pub cycles: u64,
    pub bundles: u64,
}

pub(crate) fn parse_profile_line(line: &str) -> Option<ProfileLine> {
    let mut words = line.trim().strip_prefix("profile: ")?.split_whitespace();
    let name = words.next()?.to_string();
    let field = |key: &str| -> Option<u64> {
        words
            .clone()
            .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))?
            .parse()
            .ok()
    };
    Some(ProfileLine {
        calls: field("calls")?,
        cycles: field("cycles")?,
        bundles: field("bundles")?,
        name,
    })
}

// ------------------------------------------------------------------------ building

/// The host build by the pinned nightly's LLVM: the kernels as an rlib, then the
/// driver with std.
fn build_host(
    paths: &Paths,
    toolchain: &Toolchain,
    library: &Path,
    driver: &Path,
    dir: &Path,
) -> Result<PathBuf, String> {
    let rustc = || {
        let mut cmd = Command::new("rustc");
        cmd.env("RUSTUP_TOOLCHAIN", &toolchain.channel)
            .env_remove("RUSTFLAGS");
        cmd
    };
    build_pair(paths, rustc, library, driver, dir, "the host (LLVM)")
}

/// Our build: the kernels as an rlib by `dist/rustc-vliw`, then the driver with
/// our std.
fn build_ours(
    paths: &Paths,
    library: &Path,
    driver: &Path,
    dir: &Path,
    options: BenchOptions,
) -> Result<PathBuf, String> {
    let rustc = || {
        let mut cmd = Command::new(paths.dist.join("rustc-vliw"));
        cmd.env_remove("RUSTFLAGS").args(options.llvm_args(&[]));
        cmd
    };
    build_pair(paths, rustc, library, driver, dir, "VLIW-64 (ours)")
}

fn build_pair(
    paths: &Paths,
    rustc: impl Fn() -> Command,
    library: &Path,
    driver: &Path,
    dir: &Path,
    what: &str,
) -> Result<PathBuf, String> {
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let rlib = dir.join(format!("lib{CRATE}.rlib"));
    let exe = dir.join(DRIVER);
    let common = ["--edition", "2024", "-Copt-level=3", "-Cpanic=abort"];
    let mut lib = rustc();
    lib.args(common)
        .args(["--crate-type=rlib", "--crate-name", CRATE])
        .arg(library)
        .arg("-o")
        .arg(&rlib);
    let mut bin = rustc();
    bin.args(common)
        .arg("--extern")
        .arg(format!("{CRATE}={}", rlib.display()))
        .arg(driver)
        .arg("-o")
        .arg(&exe);
    for (cmd, source) in [(&mut lib, library), (&mut bin, driver)] {
        let out = process::run(cmd, b"", Instant::now() + TIMEOUT)?;
        if !out.success() {
            return Err(format!(
                "building {} for {what} failed ({}):\n{}",
                paths.show(source),
                out.describe(),
                tail(&out.stderr_text(), 30)
            ));
        }
    }
    Ok(exe)
}

/// The Hexagon driver by cargo with `-Zbuild-std=core` (and compiler_builtins'
/// `memcpy` family), every crate at `-Ctarget-cpu=CPU` as the static part's kernels.
/// Its own target directory: the flags differ from the static part's, and both stay
/// cached.
fn build_hexagon_driver(
    paths: &Paths,
    toolchain: &Toolchain,
    crate_dir: &Path,
    cpu: &str,
    work: &Path,
) -> Result<PathBuf, String> {
    let vendor = sysroot::rust_src_library(toolchain)?.join("vendor");
    let target_dir = work.join("target");
    if !target_dir.is_dir() {
        eprintln!(
            "[bench] hexagon: the first run builds `core` for Hexagon again, for the \
             driver (20 to 80 s)"
        );
    }
    let mut cmd = toolchain.cargo(crate_dir);
    cmd.args([
        "build",
        "--release",
        "--bin",
        DRIVER,
        "--locked",
        "--offline",
    ])
    .args(["--message-format", "json-render-diagnostics"])
    .args([
        "-Zbuild-std=core",
        "-Zbuild-std-features=compiler-builtins-mem",
    ])
    .args(["--target", HEXAGON])
    .arg("--config")
    .arg("source.crates-io.replace-with=\"vendored-sources\"")
    .arg("--config")
    .arg(format!(
        "source.vendored-sources.directory=\"{}\"",
        vendor.display()
    ))
    .env("CARGO_TARGET_DIR", &target_dir)
    .env("CARGO_ENCODED_RUSTFLAGS", format!("-Ctarget-cpu={cpu}"))
    .env_remove("RUSTFLAGS")
    .env_remove("CARGO_BUILD_RUSTFLAGS");
    let out = process::run(&mut cmd, b"", Instant::now() + TIMEOUT)?;
    if !out.success() {
        return Err(format!(
            "cargo build of the driver of {} for {HEXAGON} failed ({}):\n{}",
            paths.show(crate_dir),
            out.describe(),
            tail(&out.stderr_text(), 30)
        ));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("\"reason\":\"compiler-artifact\""))
        .find_map(|l| sysroot::json_string(l, "executable"))
        .map(PathBuf::from)
        .ok_or_else(|| {
            format!("cargo built the driver for {HEXAGON} but named no executable in its messages")
        })
}

// ------------------------------------------------------------------------ running

fn run_host(paths: &Paths, exe: &Path) -> Result<Vec<u8>, String> {
    let out = process::run(&mut Command::new(exe), b"", Instant::now() + TIMEOUT)?;
    if !out.success() || out.stdout.is_empty() {
        return Err(format!(
            "the host build of the driver, {}, failed ({}): {}",
            paths.show(exe),
            out.describe(),
            tail(&out.stderr_text(), 10)
        ));
    }
    Ok(out.stdout)
}

/// Runs our driver with the kernels profiled: its output, the profile lines, and the
/// bundles of the whole run.
fn run_ours(
    paths: &Paths,
    exe: &Path,
    kernels: &[String],
) -> Result<(Vec<u8>, Vec<ProfileLine>, u64), String> {
    let mut cmd = Command::new(paths.tool("vliw-run"));
    cmd.args(VLIW_RUN_OPTIONS)
        .arg("--profile")
        .arg(kernels.join(","))
        .arg(exe);
    let out = process::run(&mut cmd, b"", Instant::now() + TIMEOUT)?;
    if !out.success() {
        return Err(format!(
            "vliw-run {} failed ({}): {}",
            paths.show(exe),
            out.describe(),
            tail(&out.stderr_text(), 10)
        ));
    }
    let stderr = out.stderr_text();
    let profile: Vec<ProfileLine> = stderr.lines().filter_map(parse_profile_line).collect();
    let bundles = crate::bench::Stats::parse(&out.stderr)?.get("bundles")?;
    Ok((out.stdout, profile, bundles))
}

/// Fails with the first differing line when `actual` is not `expected`.
fn compare_outputs(expected: &[u8], actual: &[u8], what: &str) -> Result<(), String> {
    if expected == actual {
        return Ok(());
    }
    let (e, a) = (
        String::from_utf8_lossy(expected),
        String::from_utf8_lossy(actual),
    );
    let mut left = e.lines();
    let mut right = a.lines();
    let mut line = 1;
    loop {
        match (left.next(), right.next()) {
            (Some(x), Some(y)) if x == y => line += 1,
            (x, y) => {
                return Err(format!(
                    "the checksums of {what} differ from the host build's at line {line}: \
                     expected `{}`, got `{}`",
                    x.unwrap_or("(end of output)"),
                    y.unwrap_or("(end of output)")
                ));
            }
        }
    }
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.trim_end().lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

// ------------------------------------------------------------------------ report

/// The geometric means of bundles / packets and cycles / packets over the rows.
pub(crate) fn geomeans(rows: &[ExecRow]) -> (Option<f64>, Option<f64>) {
    (
        geomean(rows.iter().map(ExecRow::bundle_ratio)),
        geomean(rows.iter().map(ExecRow::cycle_ratio)),
    )
}

fn ratio_text(value: Option<f64>) -> String {
    value.map_or("n/a".to_string(), |v| format!("{v:.2}"))
}

/// The part of the report: Markdown, plots, summary lines.
pub(crate) fn report(
    outcome: &Result<Executed, String>,
    cpu: &str,
) -> (String, Vec<Plot>, Vec<String>) {
    let executed = match outcome {
        Ok(executed) => executed,
        Err(reason) => {
            let line = format!("executed packets not measured: {reason}");
            return (
                format!("**Not measured**: {reason}.\n\n"),
                Vec::new(),
                vec![line],
            );
        }
    };
    let rows = &executed.rows;
    let (bundle_geomean, cycle_geomean) = geomeans(rows);
    let mut md = format!(
        "What executes, kernel by kernel, on the same inputs: `benches/kernels/src/bin/\
         {DRIVER}.rs` calls every kernel on deterministic inputs and prints a checksum \
         per kernel. It is built for the host by LLVM (the expected output), for \
         `{HEXAGON}` by LLVM (`-Ctarget-cpu={cpu}`, `-Copt-level=3`, `no_std` with a \
         `_start` in assembly) and run by `{QEMU} -cpu {QEMU_CPU} {one} -d \
         exec,nochain` ({qemu}), and by our backend (`-Copt-level=3`) and run by \
         `vliw-run --profile`; both outputs equal the host's. Each packet is a \
         translation block of its own (`{one}`) and chaining is off, so qemu's log has \
         one line per executed packet, with its address. Both sides count the same \
         way: a kernel call runs from the kernel's first packet (bundle), entered from \
         outside it, until its caller executes again, callees included (on Hexagon \
         the f64 division of `nbody_pairs` is a call into compiler_builtins); function \
         ranges come from the ELF symbol table. The counting is checked on every \
         run: the Hexagon driver first calls `{CALIBRATION}({CALIBRATION_TRIPS})`, a \
         hand-written hardware loop of known shape, and its count must be \
         {CALIBRATION_PACKETS} packets (counted: {calib}).\n\n\
         Bundles / packets is the figure of merit: above 1 we execute more issue \
         groups. A Hexagon packet that waits for an operand stalls in the interlock \
         and still counts once; so does our bundle with a `nop N` that waits out a \
         latency (`docs/isa.md` §4; `-C machine=max-nop=1` writes one `nop` bundle \
         per empty cycle instead, as before 2026-11-30). Our cycles include those \
         waits and taken-branch penalties; qemu counts packets, not cycles, so \
         cycles / packets is an upper bound of our disadvantage in time. Hexagon differs from \
         our machine in ways that favour it on these kernels: hardware loops \
         (`loop0`/`:endloop0`: no compare and branch per iteration), post-increment \
         addressing (a load or store updates its pointer in the same instruction), \
         32-bit registers and pointers (`usize` and addresses are 32-bit; `i64` \
         arithmetic uses register pairs, which costs Hexagon rather than us), and \
         LLVM unrolls and software-pipelines loops at `-Copt-level=3`.\n\n",
        one = executed.one_per_block,
        qemu = executed.qemu,
        calib = executed.calibration,
    );
    let mut table_rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                format!("`{}`", r.name),
                r.calls.to_string(),
                r.packets.to_string(),
                r.bundles.to_string(),
                r.cycles.to_string(),
                format!("{:.2}", r.bundle_ratio()),
                format!("{:.2}", r.cycle_ratio()),
            ]
        })
        .collect();
    let sum = |f: fn(&ExecRow) -> u64| rows.iter().map(f).sum::<u64>();
    let (packets, bundles, cycles) = (sum(|r| r.packets), sum(|r| r.bundles), sum(|r| r.cycles));
    table_rows.push(vec![
        "all kernels".into(),
        sum(|r| r.calls).to_string(),
        packets.to_string(),
        bundles.to_string(),
        cycles.to_string(),
        format!("{:.2}", bundles as f64 / packets.max(1) as f64),
        format!("{:.2}", cycles as f64 / packets.max(1) as f64),
    ]);
    table_rows.push(vec![
        "**geomean**".into(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        format!("**{}**", ratio_text(bundle_geomean)),
        format!("**{}**", ratio_text(cycle_geomean)),
    ]);
    md.push_str(&table(
        &[
            "kernel",
            "calls",
            "Hexagon packets",
            "our bundles",
            "our cycles",
            "bundles / packets",
            "cycles / packets",
        ],
        &table_rows,
    ));
    let (best, worst) = extremes(rows);
    let (without, highest) = geomean_without_highest(rows);
    md.push_str(&format!(
        "\nRatios range from {best} to {worst}; without `{highest}`, the geomean of \
         bundles / packets is {}. (Both compilers replace `popcount_loop`'s \
         clear-lowest-bit loop by a population count, LLVM's loop idiom recognition \
         Hexagon's `popcount` and ours `popc` (`rvsdg-idiom`); the rest of the gap \
         is the loop around it, which Hexagon software-pipelines to one packet per \
         element.) Whole runs, driver \
         included: {} packets under qemu, {} bundles on ours; qemu with its log took \
         {:.1} s.\n\n",
        ratio_text(without),
        executed.total_packets,
        executed.total_bundles,
        executed.qemu_seconds,
    ));
    let plots = vec![Plot {
        file: "hexagon_executed.svg".into(),
        title: "Executed per kernel (all calls)".into(),
        unit: "packets (Hexagon) / bundles and cycles (ours)".into(),
        categories: rows.iter().map(|r| r.name.clone()).collect(),
        series: vec![
            Series {
                name: "ours (bundles)".into(),
                values: rows.iter().map(|r| Some(r.bundles as f64)).collect(),
            },
            Series {
                name: "ours (cycles)".into(),
                values: rows.iter().map(|r| Some(r.cycles as f64)).collect(),
            },
            Series {
                name: "LLVM Hexagon (packets)".into(),
                values: rows.iter().map(|r| Some(r.packets as f64)).collect(),
            },
        ],
        scale: Scale::Log,
    }];
    let summary = vec![format!(
        "{} kernels executed: our bundles / Hexagon packets geomean {} (cycles / packets \
         {}; {} without `{highest}`); all kernels together {} bundles, {} cycles, {} \
         packets; {best} to {worst}",
        rows.len(),
        ratio_text(bundle_geomean),
        ratio_text(cycle_geomean),
        ratio_text(without),
        bundles,
        cycles,
        packets,
    )];
    (md, plots, summary)
}

/// The geomean of bundles / packets without the kernel of the highest ratio, and
/// that kernel's name.
fn geomean_without_highest(rows: &[ExecRow]) -> (Option<f64>, String) {
    let Some(highest) = rows
        .iter()
        .max_by(|a, b| a.bundle_ratio().total_cmp(&b.bundle_ratio()))
    else {
        return (None, String::new());
    };
    let rest = rows
        .iter()
        .filter(|r| r.name != highest.name)
        .map(ExecRow::bundle_ratio);
    (geomean(rest), highest.name.clone())
}

/// "NAME RATIO" of the lowest and the highest bundles / packets.
fn extremes(rows: &[ExecRow]) -> (String, String) {
    let text = |r: Option<&ExecRow>| {
        r.map_or("n/a".to_string(), |r| {
            format!("{:.2} (`{}`)", r.bundle_ratio(), r.name)
        })
    };
    let by = |a: &&ExecRow, b: &&ExecRow| a.bundle_ratio().total_cmp(&b.bundle_ratio());
    (text(rows.iter().min_by(by)), text(rows.iter().max_by(by)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real `qemu-hexagon -singlestep -d exec,nochain` output (qemu 7.2) of a probe
    /// program: `_start` calls `driver_main`, which calls `counted(10)`. Hand count
    /// from `llvm-objdump -d` of `counted` (LLVM unrolled its loop by 8 into a
    /// hardware loop of 16 packets, with a remainder hardware loop of 2):
    /// 7 packets of set-up (0x200e0, 0x200e8, 0x200f4, 0x200fc, 0x20100, the
    /// `loop0` at 0x20104 and an alignment `nop` packet at 0x20108), 16 packets of
    /// the unrolled loop run once (10 / 8), 3 packets of the remainder's set-up
    /// (0x20174, 0x20178, 0x2017c), 2 packets of the remainder loop run twice
    /// (10 % 8), and the return packet: 7 + 16 + 3 + 4 + 1 = 31.
    const PROBE_LOG: &str = "\
Trace 0: 0x7ffb040000c0 [00000000/000200d0/00000000/00000201] _start
Trace 0: 0x7ffb040001c0 [00000000/000200d4/00000000/00000201] _start
Trace 0: 0x7ffb04000300 [00000000/00020190/00000000/00000201] driver_main
Trace 0: 0x7ffb04000480 [00000000/0002019c/00000000/00000201] driver_main
Trace 0: 0x7ffb040005c0 [00000000/000200e0/00000000/00000201] counted
Trace 0: 0x7ffb04000740 [00000000/000200e8/00000000/00000201] counted
Trace 0: 0x7ffb04000900 [00000000/000200f4/00000000/00000201] counted
Trace 0: 0x7ffb04000a40 [00000000/000200fc/00000000/00000201] counted
Trace 0: 0x7ffb04000b40 [00000000/00020100/00000000/00000201] counted
Trace 0: 0x7ffb04000c40 [00000000/00020104/00000000/00000201] counted
Trace 0: 0x7ffb04000d80 [00000000/00020108/00000000/00000201] counted
Trace 0: 0x7ffb04000e80 [00000000/00020110/00000000/00000201] counted
Trace 0: 0x7ffb04000fc0 [00000000/0002011c/00000000/00000201] counted
Trace 0: 0x7ffb040010c0 [00000000/00020120/00000000/00000201] counted
Trace 0: 0x7ffb040011c0 [00000000/00020124/00000000/00000201] counted
Trace 0: 0x7ffb04001300 [00000000/0002012c/00000000/00000201] counted
Trace 0: 0x7ffb04001400 [00000000/00020130/00000000/00000201] counted
Trace 0: 0x7ffb04001500 [00000000/00020134/00000000/00000201] counted
Trace 0: 0x7ffb04001600 [00000000/00020138/00000000/00000201] counted
Trace 0: 0x7ffb04001740 [00000000/00020140/00000000/00000201] counted
Trace 0: 0x7ffb04001840 [00000000/00020144/00000000/00000201] counted
Trace 0: 0x7ffb04001980 [00000000/0002014c/00000000/00000201] counted
Trace 0: 0x7ffb04001a80 [00000000/00020150/00000000/00000201] counted
Trace 0: 0x7ffb04001bc0 [00000000/00020158/00000000/00000201] counted
Trace 0: 0x7ffb04001cc0 [00000000/0002015c/00000000/00000201] counted
Trace 0: 0x7ffb04001e00 [00000000/00020168/00000000/00000201] counted
Trace 0: 0x7ffb04001f00 [00000000/0002016c/00000000/00000201] counted
Trace 0: 0x7ffb040020c0 [00000000/00020174/00000000/00000201] counted
Trace 0: 0x7ffb04002200 [00000000/00020178/00000000/00000201] counted
Trace 0: 0x7ffb04002340 [00000000/0002017c/00000000/00000201] counted
Trace 0: 0x7ffb04002440 [00000000/00020180/00000000/00000201] counted
Trace 0: 0x7ffb04002540 [00000000/00020184/00000000/00000201] counted
Trace 0: 0x7ffb04002440 [00000000/00020180/00000000/00000201] counted
Trace 0: 0x7ffb04002540 [00000000/00020184/00000000/00000201] counted
Trace 0: 0x7ffb04002700 [00000000/0002018c/00000000/00000201] counted
Trace 0: 0x7ffb04002800 [00000000/000201a4/00000000/00000201] driver_main
Trace 0: 0x7ffb04002980 [00000000/000201b4/00000000/00000201] driver_main
Trace 0: 0x7ffb04003a80 [00000000/000200d8/00000000/00000201] _start
Trace 0: 0x7ffb04003b80 [00000000/000200dc/00000000/00000201] _start
";

    fn function(name: &str, addr: u64, size: u64) -> ElfFunction {
        ElfFunction {
            name: name.into(),
            addr,
            size,
        }
    }

    /// The probe's symbol table (`llvm-objdump -t`).
    fn probe_functions() -> Vec<ElfFunction> {
        vec![
            function("counted", 0x200e0, 0xb0),
            function("driver_main", 0x20190, 0x98),
            function("_start", 0x200d0, 0x10),
        ]
    }

    #[test]
    fn parses_qemu_exec_lines() {
        assert_eq!(
            qemu_exec_pc("Trace 0: 0x7ffb040005c0 [00000000/000200e0/00000000/00000201] counted"),
            Some(0x200e0)
        );
        // qemu 8 and later: a 64-bit pc field.
        assert_eq!(
            qemu_exec_pc("Trace 0: 0x7f12 [00000000/00000000000200e0/00000201/ff000000] f"),
            Some(0x200e0)
        );
        assert_eq!(qemu_exec_pc("Linking TBs 0x7f12 index 0 -> 0x7f34"), None);
        assert_eq!(qemu_exec_pc("Trace 0: 0x7f12 [garbage] f"), None);
        assert_eq!(qemu_exec_pc(""), None);
    }

    #[test]
    fn counts_the_hand_counted_probe() {
        let watched = vec!["counted".to_string(), "driver_main".to_string()];
        let mut counter = CallCounter::new(&watched, &probe_functions()).unwrap();
        let mut lines = 0;
        for pc in PROBE_LOG.lines().filter_map(qemu_exec_pc) {
            counter.observe(pc);
            lines += 1;
        }
        assert_eq!(lines, 39);
        // `driver_main` returns to `_start`: its call holds `counted`'s 31 packets
        // and its own 4 (an entry of `counted` inside it is part of it).
        assert_eq!(counter.counts(), vec![(0, 0), (1, 35)]);
        let mut counter = CallCounter::new(&watched[..1], &probe_functions()).unwrap();
        PROBE_LOG
            .lines()
            .filter_map(qemu_exec_pc)
            .for_each(|pc| counter.observe(pc));
        assert_eq!(counter.counts(), vec![(1, 31)]);
        assert!(
            CallCounter::new(&["absent".to_string()], &probe_functions())
                .err()
                .unwrap()
                .contains("`absent`")
        );
    }

    #[test]
    fn counts_repeated_calls_callees_and_loops_to_the_entry() {
        let functions = vec![
            function("main", 0x100, 0x40),
            function("kernel", 0x200, 0x40),
            function("helper", 0x300, 0),
            function("after", 0x400, 0x10),
        ];
        let mut counter = CallCounter::new(&["kernel".to_string()], &functions).unwrap();
        // Call 1 loops back to the entry and calls `helper` (size 0: it runs to
        // `after`); call 2 is two packets.
        for pc in [
            0x100, 0x108, 0x200, 0x204, 0x200, 0x204, 0x300, 0x3f0, 0x208, 0x110, 0x118, 0x200,
            0x20c, 0x120,
        ] {
            counter.observe(pc);
        }
        assert_eq!(counter.counts(), vec![(2, 7 + 2)]);
        assert_eq!(
            function_ranges(&functions),
            vec![
                (0x100, 0x140),
                (0x200, 0x240),
                (0x300, 0x400),
                (0x400, 0x410)
            ]
        );
    }

    /// A minimal little-endian ELF file: a null section, a symbol table, its string
    /// table.
    fn elf(wide: bool, symbols: &[(&str, u64, u64, u8)]) -> Vec<u8> {
        let mut strings = vec![0u8];
        let mut names = Vec::new();
        for (name, ..) in symbols {
            names.push(strings.len() as u64);
            strings.extend_from_slice(name.as_bytes());
            strings.push(0);
        }
        let put =
            |out: &mut Vec<u8>, v: u64, n: usize| out.extend_from_slice(&v.to_le_bytes()[..n]);
        let (header, entsize, shentsize) = if wide { (64, 24, 64) } else { (52, 16, 40) };
        let mut symtab = vec![0u8; entsize];
        for ((_, addr, size, kind), name) in symbols.iter().zip(&names) {
            if wide {
                put(&mut symtab, *name, 4);
                symtab.extend_from_slice(&[0x10 | kind, 0, 1, 0]);
                put(&mut symtab, *addr, 8);
                put(&mut symtab, *size, 8);
            } else {
                put(&mut symtab, *name, 4);
                put(&mut symtab, *addr, 4);
                put(&mut symtab, *size, 4);
                symtab.extend_from_slice(&[0x10 | kind, 0, 1, 0]);
            }
        }
        let symtab_at = header as u64;
        let strings_at = symtab_at + symtab.len() as u64;
        let sections_at = strings_at + strings.len() as u64;
        let mut out = vec![0x7f, b'E', b'L', b'F', if wide { 2 } else { 1 }, 1, 1];
        out.resize(header, 0);
        let section = |out: &mut Vec<u8>, kind: u64, at: u64, size: u64, link: u64, ent: u64| {
            let n = if wide { 8 } else { 4 };
            put(out, 0, 4);
            put(out, kind, 4);
            put(out, 0, n);
            put(out, 0, n);
            put(out, at, n);
            put(out, size, n);
            put(out, link, 4);
            put(out, 0, 4);
            put(out, 0, n);
            put(out, ent, n);
        };
        if wide {
            out[0x28..0x30].copy_from_slice(&sections_at.to_le_bytes());
            out[0x3a..0x3c].copy_from_slice(&(shentsize as u16).to_le_bytes());
            out[0x3c..0x3e].copy_from_slice(&3u16.to_le_bytes());
        } else {
            out[0x20..0x24].copy_from_slice(&(sections_at as u32).to_le_bytes());
            out[0x2e..0x30].copy_from_slice(&(shentsize as u16).to_le_bytes());
            out[0x30..0x32].copy_from_slice(&3u16.to_le_bytes());
        }
        out.extend_from_slice(&symtab);
        out.extend_from_slice(&strings);
        section(&mut out, 0, 0, 0, 0, 0);
        section(
            &mut out,
            2,
            symtab_at,
            symtab.len() as u64,
            2,
            entsize as u64,
        );
        section(&mut out, 3, strings_at, strings.len() as u64, 0, 0);
        assert_eq!(out.len() as u64, sections_at + 3 * shentsize as u64);
        out
    }

    #[test]
    fn reads_function_symbols_of_elf32_and_elf64() {
        let symbols = [
            ("counted", 0x200e0, 0xb0, 2),
            ("data", 0x30000, 8, 1),
            ("_start", 0x200d0, 0x10, 2),
        ];
        for wide in [false, true] {
            let functions = elf_functions(&elf(wide, &symbols)).unwrap();
            assert_eq!(
                functions,
                vec![
                    function("counted", 0x200e0, 0xb0),
                    function("_start", 0x200d0, 0x10)
                ],
                "wide: {wide}"
            );
        }
        assert!(elf_functions(b"\x7fELF").is_err());
        assert!(elf_functions(&[0; 64]).is_err());
        let mut truncated = elf(false, &symbols);
        truncated.truncate(100);
        assert!(elf_functions(&truncated).is_err());
    }

    #[test]
    fn parses_profile_lines() {
        assert_eq!(
            parse_profile_line(
                "profile: dot_i32 calls=1 cycles=15366 bundles=13317 ops=18438 nullified=1 stalls=0"
            ),
            Some(ProfileLine {
                name: "dot_i32".into(),
                calls: 1,
                cycles: 15366,
                bundles: 13317,
            })
        );
        assert_eq!(parse_profile_line("stats: cycles=1 bundles=1"), None);
        assert_eq!(
            parse_profile_line("profile: f calls=x cycles=1 bundles=1"),
            None
        );
    }

    #[test]
    fn ratios_and_their_geomeans() {
        let row = |name: &str, packets, bundles, cycles| ExecRow {
            name: name.into(),
            calls: 1,
            packets,
            bundles,
            cycles,
        };
        let rows = [row("a", 100, 200, 400), row("b", 100, 800, 900)];
        let (bundles, cycles) = geomeans(&rows);
        assert!((bundles.unwrap() - 4.0).abs() < 1e-12);
        assert!((cycles.unwrap() - 6.0).abs() < 1e-12);
        assert_eq!(geomeans(&[]), (None, None));
        let (best, worst) = extremes(&rows);
        assert_eq!(
            (best.as_str(), worst.as_str()),
            ("2.00 (`a`)", "8.00 (`b`)")
        );
        let (without, highest) = geomean_without_highest(&rows);
        assert_eq!((without, highest.as_str()), (Some(2.0), "b"));
        let (md, plots, summary) = report(&Err("no qemu".into()), "hexagonv73");
        assert!(md.contains("no qemu") && plots.is_empty() && summary[0].contains("no qemu"));
    }

    #[test]
    fn outputs_are_compared_line_by_line() {
        assert!(compare_outputs(b"a 1\nb 2\n", b"a 1\nb 2\n", "x").is_ok());
        let e = compare_outputs(b"a 1\nb 2\n", b"a 1\nb 3\n", "x").unwrap_err();
        assert!(
            e.contains("line 2") && e.contains("`b 2`") && e.contains("`b 3`"),
            "{e}"
        );
        let e = compare_outputs(b"a 1\n", b"", "x").unwrap_err();
        assert!(e.contains("(end of output)"), "{e}");
    }
}
