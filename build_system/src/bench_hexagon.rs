//! `bench hexagon`: static schedule density of kernel functions, our bundles beside
//! the packets of LLVM's Hexagon backend.
//!
//! The `#![no_std]` crate `benches/kernels` is compiled twice at `-Copt-level=3`: by
//! the pinned nightly's LLVM for `hexagon-unknown-none-elf` (cargo with
//! `-Zbuild-std=core`, `--emit=asm`), and by `dist/rustc-vliw` into an object that
//! `dist/vliw-objdump` disassembles. Per kernel function, the number of our bundles
//! is counted beside the number of Hexagon packets, and likewise for each innermost
//! loop body. This compares the density of the static schedules, not run time.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::bench::{BenchOptions, TIMEOUT};
use crate::bench_analyses::readable_names;
use crate::bench_hexagon_run;
use crate::bench_modulo_loops::{self, Loop};
use crate::bench_report::{Plot, Scale, Section, Series, geomean, table};
use crate::paths::Paths;
use crate::process;
use crate::sysroot;
use crate::toolchain::Toolchain;

const HEXAGON: &str = "hexagon-unknown-none-elf";
/// The crate's name in benches/kernels/Cargo.toml (the assembly file is named after it).
const CRATE: &str = "kernels";
/// The Hexagon version compiled for. The target's default, hexagonv60, has no
/// double-precision instructions (f64 arithmetic would be calls to
/// `__hexagon_adddf3` and the like); V66 added `dfadd`/`dfsub`, V67 the `dfmpy*`
/// sequence. V73 is a recent core with both.
const HEXAGON_CPU: &str = "hexagonv73";
/// The second Hexagon build's LLVM options: no unrolling (nor interleaving by the
/// loop vectorizer), so that each source loop is one loop whose body is one
/// iteration, comparable to ours.
const NO_UNROLLING: [&str; 2] = [
    "-Cllvm-args=-unroll-count=1",
    "-Cllvm-args=-force-vector-interleave=1",
];

pub fn run(paths: &Paths, toolchain: &Toolchain, options: BenchOptions) -> Result<Section, String> {
    let source_dir = paths.root.join("benches").join(CRATE);
    let source = source_dir.join("src").join("lib.rs");
    let text = fs::read_to_string(&source)
        .map_err(|e| format!("cannot read {}: {e}", paths.show(&source)))?;
    let kernels = kernel_names(&text);
    if kernels.is_empty() {
        return Err(format!(
            "{} defines no `#[unsafe(no_mangle)]` kernel function",
            paths.show(&source)
        ));
    }
    let work = paths.build.join("bench").join("hexagon");
    fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;

    let start = Instant::now();
    if !work.join("target").is_dir() {
        eprintln!("[bench] hexagon: the first run builds `core` for Hexagon (20 to 40 s)");
    }
    let asm = build_hexagon(paths, toolchain, &source_dir, &work, &[])?;
    let rolled_asm = build_hexagon(paths, toolchain, &source_dir, &work, &NO_UNROLLING)?;
    let hexagon_time = start.elapsed();
    let start = Instant::now();
    let (dump, pipelined) = build_ours(paths, &source, &work, options)?;
    let ours_time = start.elapsed();
    eprintln!(
        "[bench] hexagon: LLVM builds {:.1} s, ours {:.1} s",
        hexagon_time.as_secs_f64(),
        ours_time.as_secs_f64()
    );

    let ours = parse_objdump(&dump)?;
    let theirs = parse_hexagon(&asm)?;
    let rolled = parse_hexagon(&rolled_asm)?;
    let mut rows = Vec::new();
    for name in &kernels {
        let missing = |place: &str| format!("kernel function `{name}` is missing from {place}");
        rows.push(Row {
            name: name.clone(),
            ours: ours
                .get(name)
                .ok_or_else(|| missing("our object (vliw-objdump's output)"))?
                .summary(),
            hexagon: theirs
                .get(name)
                .ok_or_else(|| missing("LLVM's Hexagon assembly"))?
                .summary(),
            rolled: rolled
                .get(name)
                .ok_or_else(|| missing("LLVM's Hexagon assembly without unrolling"))?
                .summary(),
        });
    }
    let mut section = section(paths, &source, &rows);

    // The dynamic part: what executes (bench_hexagon_run.rs).
    let executed = bench_hexagon_run::run(
        paths,
        toolchain,
        &source_dir,
        &kernels,
        HEXAGON_CPU,
        &work,
        options,
    )?;
    let (markdown, plots, summary) = bench_hexagon_run::report(&executed, HEXAGON_CPU);
    section.title = "Beside LLVM's Hexagon backend: executed packets, static schedules".into();
    section.markdown = format!(
        "{}### Executed bundles and packets\n\n{markdown}### Static schedules\n\n{}\
         ### Software-pipelined loops\n\n{}",
        options
            .backend_note()
            .map_or(String::new(), |note| format!("{note}\n\n")),
        section.markdown,
        bench_modulo_loops::table(&pipelined, readable_names)
    );
    section.plots.splice(0..0, plots);
    section.summary.splice(0..0, summary);
    Ok(section)
}

/// The names of the `#[unsafe(no_mangle)]` functions of the kernels crate, in source
/// order: the attribute line is followed by the `fn` line.
fn kernel_names(source: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "#[unsafe(no_mangle)]" {
            continue;
        }
        let Some(next) = lines.next() else { break };
        if let Some(rest) = next.split_once("fn ").map(|(_, r)| r) {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                names.push(name);
            }
        }
    }
    names
}

// ------------------------------------------------------------------------ building

/// Builds the kernels for Hexagon with the pinned nightly's cargo and returns the
/// assembly. Cargo's incremental rebuild is the cache: `core` is built once; the
/// kernels crate (under a second) is rebuilt when `llvm_options` differ from the
/// previous build's. The dependencies of
/// `-Zbuild-std` (rust-src's library workspace) resolve against rust-src's own
/// `vendor/` directory, offline, as the sysroot build does it.
fn build_hexagon(
    paths: &Paths,
    toolchain: &Toolchain,
    crate_dir: &Path,
    work: &Path,
    llvm_options: &[&str],
) -> Result<String, String> {
    let vendor = sysroot::rust_src_library(toolchain)?.join("vendor");
    let target_dir = work.join("target");
    eprintln!(
        "[bench] hexagon: building {} for {HEXAGON} with LLVM{}",
        paths.show(crate_dir),
        if llvm_options.is_empty() {
            String::new()
        } else {
            format!(", {}", llvm_options.join(" "))
        }
    );
    let mut cmd = toolchain.cargo(crate_dir);
    cmd.args(["rustc", "--release", "--lib", "--locked", "--offline"])
        .args(["--message-format", "json-render-diagnostics"])
        .args(["-Zbuild-std=core", "--target", HEXAGON])
        .arg("--config")
        .arg("source.crates-io.replace-with=\"vendored-sources\"")
        .arg("--config")
        .arg(format!(
            "source.vendored-sources.directory=\"{}\"",
            vendor.display()
        ))
        .args(["--", "--emit=asm,link"])
        .arg(format!("-Ctarget-cpu={HEXAGON_CPU}"))
        .args(llvm_options)
        .env("CARGO_TARGET_DIR", &target_dir)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS");
    let out = process::run(&mut cmd, b"", Instant::now() + TIMEOUT)?;
    if !out.success() {
        return Err(format!(
            "cargo build of {} for {HEXAGON} failed ({}):\n{}",
            paths.show(crate_dir),
            out.describe(),
            tail(&out.stderr_text(), 30)
        ));
    }
    // Cargo chooses the directory (one per set of flags, so both builds stay
    // cached) and names it in its artifact message: `lib<crate>-<hash>.rlib` there,
    // and rustc's `<crate>-<hash>.s` beside it.
    let rlib = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("\"reason\":\"compiler-artifact\""))
        .filter(|l| sysroot::json_string(l, "name").as_deref() == Some(CRATE))
        .flat_map(|l| sysroot::json_strings(l, "filenames"))
        .find(|f| f.ends_with(".rlib"))
        .map(PathBuf::from)
        .ok_or_else(|| {
            format!(
                "cargo built {} for {HEXAGON} but named no {CRATE} rlib in its messages",
                paths.show(crate_dir)
            )
        })?;
    let asm = rlib
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("lib"))
        .and_then(|n| n.strip_suffix(".rlib"))
        .map(|stem| rlib.with_file_name(format!("{stem}.s")))
        .ok_or_else(|| format!("unexpected rlib name {}", rlib.display()))?;
    fs::read_to_string(&asm).map_err(|e| {
        format!(
            "cannot read {} (rustc's --emit=asm beside {}): {e}",
            asm.display(),
            rlib.display()
        )
    })
}

/// Compiles the kernels with our backend into an object and returns its disassembly.
/// Our build of the kernels: `vliw-objdump -d`'s listing, and the backend's line for
/// each software-pipelined loop (`modulo-report=on`).
fn build_ours(
    paths: &Paths,
    source: &Path,
    work: &Path,
    options: BenchOptions,
) -> Result<(String, Vec<Loop>), String> {
    let object = work.join("kernels-vliw.o");
    let rustc = paths.dist.join("rustc-vliw");
    let mut cmd = Command::new(&rustc);
    cmd.args([
        "--edition",
        "2024",
        "--crate-type=lib",
        "--crate-name",
        CRATE,
    ])
    .args(["-Copt-level=3", "-Cpanic=abort"])
    .args(options.llvm_args(&["modulo-report=on".to_string()]))
    .arg(format!("--emit=obj={}", object.display()))
    .arg(source)
    .env_remove("RUSTFLAGS");
    let out = process::run(&mut cmd, b"", Instant::now() + TIMEOUT)?;
    if !out.success() {
        return Err(format!(
            "{} failed on {} ({}):\n{}",
            paths.show(&rustc),
            paths.show(source),
            out.describe(),
            tail(&out.stderr_text(), 30)
        ));
    }
    // the loops' reports, each followed by what the bundler made of its kernel
    let pipelined: Vec<Loop> = bench_modulo_loops::report_lines(&out.stderr_text())
        .into_iter()
        .map(|line| Loop {
            program: String::new(),
            line,
        })
        .collect();
    let mut cmd = Command::new(paths.tool("vliw-objdump"));
    cmd.args(["-d", "--no-line-numbers"]).arg(&object);
    let out = process::run(&mut cmd, b"", Instant::now() + TIMEOUT)?;
    if !out.success() {
        return Err(format!(
            "vliw-objdump -d {} failed ({}): {}",
            paths.show(&object),
            out.describe(),
            tail(&out.stderr_text(), 30)
        ));
    }
    Ok((String::from_utf8_lossy(&out.stdout).into_owned(), pipelined))
}

/// The last `lines` lines of `text`.
fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.trim_end().lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

// ------------------------------------------------------------------------ parsing

/// One function's static schedule: its issue groups (our bundles or Hexagon
/// packets) in layout order, and the control flow between them.
#[derive(Debug, Default)]
struct Function {
    /// Operations (instructions) per issue group.
    ops: Vec<usize>,
    /// Successors of each group: branch targets, and the next group unless the
    /// group ends in an unconditional transfer. Indirect jumps have none.
    successors: Vec<Vec<usize>>,
}

/// What the report shows of one function.
#[derive(Debug, PartialEq)]
struct Shape {
    groups: usize,
    ops: usize,
    /// Sizes in groups of the innermost loop bodies, in the order of their headers.
    loops: Vec<usize>,
}

impl Function {
    fn summary(&self) -> Shape {
        Shape {
            groups: self.ops.len(),
            ops: self.ops.iter().sum(),
            loops: innermost_loops(&self.successors)
                .iter()
                .map(|body| body.len())
                .collect(),
        }
    }
}

/// The bodies of the innermost natural loops of a control-flow graph whose entry is
/// node 0, ordered by header. A back edge goes from a node to one that dominates it;
/// a loop's body is its header and every node that reaches a back edge's source
/// without passing through the header (back edges to one header make one loop). A
/// loop is innermost when no other loop's header is in its body. Finding loops this
/// way rather than as address ranges makes them independent of block layout (ours
/// may place an outer loop's latch between inner loops; LLVM rotates loops).
fn innermost_loops(successors: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = successors.len();
    if n == 0 {
        return Vec::new();
    }
    // Reverse postorder from the entry (iterative depth-first search).
    let mut order = vec![usize::MAX; n];
    let mut postorder = Vec::with_capacity(n);
    let mut visited = vec![false; n];
    let mut stack = vec![(0usize, 0usize)];
    visited[0] = true;
    while let Some((node, next)) = stack.pop() {
        if let Some(&s) = successors[node].get(next) {
            stack.push((node, next + 1));
            if s < n && !visited[s] {
                visited[s] = true;
                stack.push((s, 0));
            }
        } else {
            postorder.push(node);
        }
    }
    let rpo: Vec<usize> = postorder.iter().rev().copied().collect();
    for (i, &node) in rpo.iter().enumerate() {
        order[node] = i;
    }
    let mut predecessors = vec![Vec::new(); n];
    for (node, succs) in successors.iter().enumerate() {
        for &s in succs {
            if s < n && visited[node] {
                predecessors[s].push(node);
            }
        }
    }
    // Immediate dominators (Cooper, Harvey and Kennedy's iterative algorithm).
    let mut idom = vec![usize::MAX; n];
    idom[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for &node in &rpo[1..] {
            let mut new = usize::MAX;
            for &p in &predecessors[node] {
                if idom[p] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    p
                } else {
                    let (mut a, mut b) = (p, new);
                    while a != b {
                        while order[a] > order[b] {
                            a = idom[a];
                        }
                        while order[b] > order[a] {
                            b = idom[b];
                        }
                    }
                    a
                };
            }
            if new != usize::MAX && idom[node] != new {
                idom[node] = new;
                changed = true;
            }
        }
    }
    let dominates = |h: usize, mut node: usize| loop {
        if node == h {
            return true;
        }
        if node == 0 || idom[node] == usize::MAX {
            return false;
        }
        node = idom[node];
    };
    // Natural loops, merged by header.
    let mut loops: BTreeMap<usize, Vec<bool>> = BTreeMap::new();
    for &source in &rpo {
        for &header in &successors[source] {
            if header >= n || !dominates(header, source) {
                continue;
            }
            let body = loops.entry(header).or_insert_with(|| vec![false; n]);
            body[header] = true;
            let mut work = vec![source];
            while let Some(node) = work.pop() {
                if body[node] {
                    continue;
                }
                body[node] = true;
                work.extend(predecessors[node].iter().copied());
            }
        }
    }
    loops
        .iter()
        .filter(|(header, body)| !loops.keys().any(|other| other != *header && body[*other]))
        .map(|(_, body)| (0..n).filter(|&i| body[i]).collect())
        .collect()
}

/// Parses `vliw-objdump -d --no-line-numbers` output: a function starts at its
/// `ADDR <name>:` header; each bundle is one line `ADDR:  op ; op ;;` followed by
/// comments, among them `# 0xTARGET <sym+0xOFF>` for each pc-relative operation in
/// order. Each function is in a section of its own, so addresses restart at each.
fn parse_objdump(text: &str) -> Result<BTreeMap<String, Function>, String> {
    /// A function being read: its name, and per bundle its address, operation
    /// count, branch target addresses, and whether it falls through.
    type Bundles = Vec<(u64, usize, Vec<u64>, bool)>;
    fn finish(current: Option<(String, Bundles)>, functions: &mut BTreeMap<String, Function>) {
        let Some((name, bundles)) = current else {
            return;
        };
        let addresses: Vec<u64> = bundles.iter().map(|b| b.0).collect();
        let mut function = Function::default();
        for (index, (_, ops, targets, falls_through)) in bundles.iter().enumerate() {
            let mut successors: Vec<usize> = targets
                .iter()
                .filter_map(|t| addresses.binary_search(t).ok())
                .collect();
            if *falls_through && index + 1 < bundles.len() {
                successors.push(index + 1);
            }
            function.ops.push(*ops);
            function.successors.push(successors);
        }
        functions.insert(name, function);
    }
    let mut functions = BTreeMap::new();
    let mut current: Option<(String, Bundles)> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(name) = header(trimmed) {
            if name.starts_with(".L") && current.is_some() {
                continue; // a local label inside the function
            }
            finish(current.take(), &mut functions);
            current = Some((name.to_string(), Vec::new()));
            continue;
        }
        let Some((address, rest)) = trimmed.split_once(":  ") else {
            continue;
        };
        let Ok(address) = u64::from_str_radix(address, 16) else {
            continue;
        };
        let Some((ops, comments)) = rest.split_once(" ;;") else {
            continue; // `.quad` (illegal syllable) or `.byte` lines: not bundles
        };
        let Some((_, bundles)) = current.as_mut() else {
            return Err(format!(
                "vliw-objdump: a bundle before any function: `{line}`"
            ));
        };
        let ops: Vec<&str> = ops.split(" ; ").map(str::trim).collect();
        let mut targets: Vec<u64> = comments
            .split("  # ")
            .filter_map(|c| c.trim().strip_prefix("0x"))
            .filter_map(|c| c.split_whitespace().next())
            .filter_map(|c| u64::from_str_radix(c, 16).ok())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let mut branch_targets = Vec::new();
        let mut falls_through = true;
        for op in &ops {
            // `(p1) br .+56`: the predicate, then the mnemonic.
            let (predicated, bare) = match op.strip_prefix('(') {
                Some(o) => (
                    true,
                    o.split_once(')').map_or(o, |(_, rest)| rest.trim_start()),
                ),
                None => (false, *op),
            };
            let mnemonic = bare.split_whitespace().next().unwrap_or("");
            let pc_relative = op.contains(" .+") || op.contains(" .-");
            // The comments of pc-relative operations come in operation order.
            let target = if pc_relative { targets.pop() } else { None };
            if mnemonic == "br"
                && let Some(target) = target
            {
                branch_targets.push(target);
            }
            if !predicated && matches!(mnemonic, "br" | "ret" | "jr" | "trap") {
                falls_through = false;
            }
        }
        bundles.push((address, ops.len(), branch_targets, falls_through));
    }
    finish(current, &mut functions);
    Ok(functions)
}

/// `name` of a `0000000000000000 <name>:` line.
fn header(line: &str) -> Option<&str> {
    let (address, rest) = line.split_once(" <")?;
    if address.is_empty() || !address.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    rest.strip_suffix(">:")
}

/// A Hexagon packet as found in the assembly.
#[derive(Debug, Default)]
struct Packet {
    instructions: usize,
    /// Labels of `jump` instructions.
    jumps: Vec<String>,
    /// Whether the packet ends in an unconditional `jump`, `jumpr` or return.
    falls_through: bool,
    /// `loopN(label, count)` set-ups: (N, label).
    setups: Vec<(u8, String)>,
    /// The N of a `}:endloopN` suffix (both for `:endloop01`).
    ends: Vec<u8>,
}

/// Parses LLVM's Hexagon assembly: a function runs from its label (a symbol declared
/// `.type NAME,@function`) to its `.Lfunc_end` label or `.size` directive. Packets
/// are `{ ... }` groups (several instructions per line are separated by `;`); an
/// instruction outside braces is a packet of one. Directives, labels and `//`
/// comments are not instructions.
fn parse_hexagon(text: &str) -> Result<BTreeMap<String, Function>, String> {
    let functions_declared: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix(".type"))
        .filter_map(|rest| {
            let (name, kind) = rest.split_once(',')?;
            (kind.trim() == "@function").then_some(name.trim())
        })
        .collect();
    type Current = Option<(String, Vec<Packet>, BTreeMap<String, usize>)>;
    fn finish(
        current: &mut Current,
        functions: &mut BTreeMap<String, Function>,
    ) -> Result<(), String> {
        if let Some((name, packets, labels)) = current.take() {
            let function = hexagon_function(&name, &packets, &labels)?;
            functions.insert(name, function);
        }
        Ok(())
    }
    let mut functions = BTreeMap::new();
    // The function being read: its name, packets, and labels (label -> index of
    // the packet that follows it).
    let mut current: Current = None;
    let mut open: Option<Packet> = None;
    for (index, raw) in text.lines().enumerate() {
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if open.is_none()
            && let Some(label) = line.strip_suffix(':')
            && !label.contains(char::is_whitespace)
        {
            if functions_declared.contains(&label) {
                finish(&mut current, &mut functions)?;
                current = Some((label.to_string(), Vec::new(), BTreeMap::new()));
            } else if label.starts_with(".Lfunc_end") {
                finish(&mut current, &mut functions)?;
            } else if let Some((_, packets, labels)) = current.as_mut() {
                labels.insert(label.to_string(), packets.len());
            }
            continue;
        }
        if open.is_none() && line.starts_with('.') {
            if line.starts_with(".size") {
                finish(&mut current, &mut functions)?;
            }
            continue;
        }
        let Some((_, packets, _)) = current.as_mut() else {
            continue;
        };
        let at = || format!("Hexagon assembly line {}: `{}`", index + 1, raw.trim());
        if let Some(rest) = line.strip_prefix('{') {
            if open.is_some() {
                return Err(format!("{}: a packet inside a packet", at()));
            }
            let mut packet = Packet {
                falls_through: true,
                ..Packet::default()
            };
            add_instructions(&mut packet, rest);
            open = Some(packet);
            continue;
        }
        if let Some(rest) = line.strip_prefix('}') {
            let mut packet = open
                .take()
                .ok_or_else(|| format!("{}: `}}` without `{{`", at()))?;
            for suffix in rest.split(':').map(str::trim) {
                if let Some(n) = suffix.strip_prefix("endloop") {
                    packet.ends.extend(n.bytes().map(|b| b.wrapping_sub(b'0')));
                }
            }
            packets.push(packet);
            continue;
        }
        match open.as_mut() {
            Some(packet) => add_instructions(packet, line),
            None => {
                let mut packet = Packet {
                    falls_through: true,
                    ..Packet::default()
                };
                add_instructions(&mut packet, line);
                packets.push(packet);
            }
        }
    }
    if open.is_some() {
        return Err("Hexagon assembly: a packet is not closed at the end".into());
    }
    finish(&mut current, &mut functions)?;
    Ok(functions)
}

/// Adds the `;`-separated instructions of one line of a packet.
fn add_instructions(packet: &mut Packet, line: &str) {
    for instruction in line.split(';').map(str::trim).filter(|i| !i.is_empty()) {
        packet.instructions += 1;
        let words: Vec<&str> = instruction
            .split(|c: char| c.is_whitespace() || c == '(' || c == ',' || c == ')')
            .filter(|w| !w.is_empty())
            .collect();
        // `jump:nt .LBB0_3`, `jumpr r31`, `dealloc_return`; conditional ones start
        // with `if`.
        let first = words
            .first()
            .map_or("", |w| w.split(':').next().unwrap_or(w));
        if matches!(first, "jump" | "jumpr" | "dealloc_return" | "return") {
            packet.falls_through = false;
        }
        for (i, word) in words.iter().enumerate() {
            let mnemonic = word.split(':').next().unwrap_or(word);
            if mnemonic == "jump"
                && let Some(target) = words.get(i + 1)
            {
                packet
                    .jumps
                    .push(target.trim_start_matches('#').to_string());
            }
            // loop0, loop1 and the software-pipelined sp1loop0..sp3loop0.
            let setup = mnemonic
                .strip_prefix("sp1")
                .or_else(|| mnemonic.strip_prefix("sp2"))
                .or_else(|| mnemonic.strip_prefix("sp3"))
                .unwrap_or(mnemonic);
            if let Some(n @ ("0" | "1")) = setup.strip_prefix("loop")
                && let Some(target) = words.get(i + 1)
            {
                let n = n.as_bytes()[0] - b'0';
                packet
                    .setups
                    .push((n, target.trim_start_matches('#').to_string()));
            }
        }
    }
}

/// The control flow of a parsed Hexagon function. A packet ending in `:endloopN`
/// branches to the label of its hardware loop's `loopN` set-up: the last set-up of
/// loop N in the layout before the packet (a rotated loop's label may come after its
/// `:endloop` packet, but its set-up comes before).
fn hexagon_function(
    name: &str,
    packets: &[Packet],
    labels: &BTreeMap<String, usize>,
) -> Result<Function, String> {
    let mut function = Function::default();
    // (N, packet of the set-up, packet of the label)
    let mut setups: Vec<(u8, usize, usize)> = Vec::new();
    for (at, packet) in packets.iter().enumerate() {
        for (n, label) in &packet.setups {
            let target = labels.get(label).ok_or_else(|| {
                format!("Hexagon function `{name}`: loop{n} to unknown label `{label}`")
            })?;
            setups.push((*n, at, *target));
        }
    }
    for (at, packet) in packets.iter().enumerate() {
        let mut successors: Vec<usize> = packet
            .jumps
            .iter()
            .filter_map(|label| labels.get(label).copied())
            .collect();
        for &n in &packet.ends {
            let target = setups
                .iter()
                .filter(|(m, setup, _)| *m == n && *setup <= at)
                .max_by_key(|(_, setup, _)| *setup)
                .map(|(_, _, target)| *target)
                .ok_or_else(|| {
                    format!("Hexagon function `{name}`: an :endloop{n} before any loop{n} set-up")
                })?;
            successors.push(target);
        }
        if packet.falls_through && at + 1 < packets.len() {
            successors.push(at + 1);
        }
        function.ops.push(packet.instructions);
        function.successors.push(successors);
    }
    Ok(function)
}

// ------------------------------------------------------------------------ report

struct Row {
    name: String,
    ours: Shape,
    /// LLVM at -Copt-level=3 as it is.
    hexagon: Shape,
    /// LLVM without unrolling: loops comparable to ours.
    rolled: Shape,
}

impl Row {
    /// Ratios ours/Hexagon of the innermost loop bodies paired in order, when both
    /// compilers (Hexagon without unrolling) have as many innermost loops.
    fn loop_ratios(&self) -> Option<Vec<f64>> {
        let (a, b) = (&self.ours.loops, &self.rolled.loops);
        (!a.is_empty() && a.len() == b.len()).then(|| {
            a.iter()
                .zip(b)
                .map(|(x, y)| *x as f64 / *y as f64)
                .collect()
        })
    }

    fn ratio(&self) -> f64 {
        self.ours.groups as f64 / self.hexagon.groups.max(1) as f64
    }

    fn rolled_ratio(&self) -> f64 {
        self.ours.groups as f64 / self.rolled.groups.max(1) as f64
    }
}

fn list(values: &[usize]) -> String {
    if values.is_empty() {
        "–".into()
    } else {
        let texts: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        texts.join(", ")
    }
}

fn ratio_text(value: Option<f64>) -> String {
    value.map_or("n/a".to_string(), |v| format!("{v:.2}"))
}

fn section(paths: &Paths, source: &Path, rows: &[Row]) -> Section {
    let crate_dir = source.parent().and_then(Path::parent).unwrap_or(source);
    let mut md = format!(
        "The {} `extern \"C\"` kernel functions of `{}` (listed in its README), compiled \
         at `-Copt-level=3` by our backend (`dist/rustc-vliw --crate-type=lib`, \
         disassembled by `vliw-objdump`) and by the pinned nightly's LLVM for \
         `{HEXAGON}` with `-Ctarget-cpu={HEXAGON_CPU}` (cargo `-Zbuild-std=core`, \
         `--emit=asm`; the target's default hexagonv60 has no f64 instructions). \
         These are **static** counts, the density of the schedules, not run time: our \
         bundles (up to 4 operations at the default machine width of docs/isa.md) beside \
         Hexagon packets (up to 4 instructions). Ratios are ours / Hexagon: above 1 our \
         code is longer.\n\n\
         Loops are natural loops found on each side's control-flow graph (back edges to \
         a dominating bundle or packet, Hexagon's `loopN`/`:endloopN` hardware loops \
         included); a loop body's size is the number of bundles or packets in it, and \
         only innermost loops are listed, in the order of their headers. At \
         `-Copt-level=3` LLVM unrolls loops and adds remainder loops, so its loops do \
         not match ours; the loop comparison is therefore made against a second LLVM \
         build without unrolling (`{}`), where a loop body is one iteration as in ours, \
         and loops are paired in order only when both sides have as many innermost \
         loops (otherwise no ratio); the function is also compared with that build. Note that LLVM software-pipelines many of those \
         loops (one packet per iteration when the loop allows it). \"Ops\" counts \
         operations (ours) and instructions (Hexagon) in the function.\n\n",
        rows.len(),
        paths.show(crate_dir),
        NO_UNROLLING.join(" "),
    );
    let mut table_rows = Vec::new();
    for row in rows {
        let loop_ratio = match row.loop_ratios() {
            Some(r) => {
                let texts: Vec<String> = r.iter().map(|v| format!("{v:.1}")).collect();
                texts.join(", ")
            }
            None => "–".into(),
        };
        table_rows.push(vec![
            format!("`{}`", row.name),
            row.ours.groups.to_string(),
            row.hexagon.groups.to_string(),
            format!("{:.2}", row.ratio()),
            row.rolled.groups.to_string(),
            format!("{:.2}", row.rolled_ratio()),
            row.ours.ops.to_string(),
            row.hexagon.ops.to_string(),
            list(&row.hexagon.loops),
            list(&row.ours.loops),
            list(&row.rolled.loops),
            loop_ratio,
        ]);
    }
    let function_geomean = geomean(rows.iter().map(Row::ratio));
    let rolled_geomean = geomean(rows.iter().map(Row::rolled_ratio));
    let paired: Vec<(&Row, f64)> = rows
        .iter()
        .filter_map(|r| Some(r).zip(r.loop_ratios()))
        .flat_map(|(r, ratios)| ratios.into_iter().map(move |v| (r, v)))
        .collect();
    let paired_functions = rows.iter().filter(|r| r.loop_ratios().is_some()).count();
    let loop_geomean = geomean(paired.iter().map(|(_, v)| *v));
    let ops_geomean = geomean(
        rows.iter()
            .map(|r| r.ours.ops as f64 / r.hexagon.ops.max(1) as f64),
    );
    let density = |shape: fn(&Row) -> &Shape| {
        let (ops, groups) = rows
            .iter()
            .fold((0, 0), |(o, g), r| (o + shape(r).ops, g + shape(r).groups));
        ops as f64 / groups.max(1) as f64
    };
    let (ours_density, hexagon_density) = (density(|r| &r.ours), density(|r| &r.hexagon));
    let mut geomean_row = vec![String::new(); 12];
    geomean_row[0] = "**geomean**".into();
    geomean_row[3] = format!("**{}**", ratio_text(function_geomean));
    geomean_row[5] = format!("**{}**", ratio_text(rolled_geomean));
    geomean_row[11] = format!("**{}**", ratio_text(loop_geomean));
    table_rows.push(geomean_row);
    md.push_str(&table(
        &[
            "function",
            "our bundles",
            "Hexagon packets",
            "ratio",
            "Hexagon packets, no unrolling",
            "ratio",
            "our ops",
            "Hexagon instrs",
            "Hexagon innermost loops",
            "our innermost loops",
            "Hexagon innermost loops, no unrolling",
            "loop ratio",
        ],
        &table_rows,
    ));
    md.push_str(&format!(
        "\nOver all {} functions: {ours_density:.2} operations per bundle (ours), \
         {hexagon_density:.2} instructions per packet (Hexagon); geomean ratio of \
         operation counts {}. Loop ratios: {} paired innermost loops in {paired_functions} \
         functions.\n\n",
        rows.len(),
        ratio_text(ops_geomean),
        paired.len(),
    ));

    let mut plots = vec![Plot {
        file: "hexagon.svg".into(),
        title: "Static schedule length per kernel function".into(),
        unit: "bundles (ours) / packets (Hexagon) per function".into(),
        categories: rows.iter().map(|r| r.name.clone()).collect(),
        series: vec![
            Series {
                name: "ours (bundles)".into(),
                values: rows.iter().map(|r| Some(r.ours.groups as f64)).collect(),
            },
            Series {
                name: "LLVM Hexagon (packets)".into(),
                values: rows.iter().map(|r| Some(r.hexagon.groups as f64)).collect(),
            },
        ],
        scale: Scale::Log,
    }];
    let loop_rows: Vec<(String, usize, usize)> = rows
        .iter()
        .filter(|r| r.loop_ratios().is_some())
        .flat_map(|r| {
            let several = r.ours.loops.len() > 1;
            r.ours
                .loops
                .iter()
                .zip(&r.rolled.loops)
                .enumerate()
                .map(move |(i, (a, b))| {
                    let name = if several {
                        format!("{} #{}", r.name, i + 1)
                    } else {
                        r.name.clone()
                    };
                    (name, *a, *b)
                })
        })
        .collect();
    if !loop_rows.is_empty() {
        plots.push(Plot {
            file: "hexagon_loops.svg".into(),
            title: "Innermost loop bodies (LLVM without unrolling)".into(),
            unit: "bundles (ours) / packets (Hexagon) per loop body".into(),
            categories: loop_rows.iter().map(|r| r.0.clone()).collect(),
            series: vec![
                Series {
                    name: "ours (bundles)".into(),
                    values: loop_rows.iter().map(|r| Some(r.1 as f64)).collect(),
                },
                Series {
                    name: "LLVM Hexagon (packets)".into(),
                    values: loop_rows.iter().map(|r| Some(r.2 as f64)).collect(),
                },
            ],
            scale: Scale::Log,
        });
    }
    let summary = vec![
        format!(
            "{} kernels: our bundles / LLVM Hexagon packets, geomean {} per function \
             ({} against LLVM without unrolling), {} per innermost loop body ({} loops \
             paired, LLVM without unrolling)",
            rows.len(),
            ratio_text(function_geomean),
            ratio_text(rolled_geomean),
            ratio_text(loop_geomean),
            paired.len()
        ),
        format!(
            "{ours_density:.2} operations per bundle (ours), {hexagon_density:.2} \
             instructions per packet (Hexagon); geomean ratio of operation counts {}",
            ratio_text(ops_geomean)
        ),
    ];
    Section {
        title: "Static schedules beside LLVM's Hexagon backend".into(),
        markdown: md,
        plots,
        summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real `vliw-objdump -d --no-line-numbers` output of `fill_u32`, shortened (the
    /// straight-line runs are cut; addresses kept), with a bundle of two operations
    /// and a call with a relocation added in the format of the disassembler.
    const OBJDUMP: &str = "
/tmp/k.o:     file format elf64-vliw

Disassembly of section .text.fill_u32:

0000000000000000 <fill_u32>:
       0:  add r1 = r1, -112 ;;
      58:  ld.d r11 = [r1 + 32] ;;
      60:  ld.d r14 = [r11] ;;
      a0:  r2p p1 = r15 ;;
      a8:  (p1) br .+24 ;;  # 0xc0 <fill_u32+0xc0>
      b0:  add r1 = r1, 112 ;;
      b8:  ret ;;
      c0:  ld.d r11 = [r1 + 32] ;;
     120:  st.w [r11] = r12 ; add r14 = r11, 1 ;;
     128:  call 0 ;;  # R_VLIW_BRANCH32 other
     170:  br .-280 ;;  # 0x58 <fill_u32+0x58>

Disassembly of section .text.other:

0000000000000000 <other>:
       0:  (p1) br .+0 ;;  # 0x0 <other>
       8:  ret ;;
";

    #[test]
    fn objdump_bundles_and_loops() {
        let functions = parse_objdump(OBJDUMP).unwrap();
        assert_eq!(functions.len(), 2);
        let fill = functions["fill_u32"].summary();
        assert_eq!(fill.groups, 11);
        assert_eq!(fill.ops, 12);
        // 0x58 .. 0xa8, then 0xc0 .. 0x170: the return path is not in the loop.
        assert_eq!(fill.loops, vec![8]);
        let other = functions["other"].summary();
        assert_eq!((other.groups, other.loops.clone()), (2, vec![1]));
    }

    #[test]
    fn objdump_errors() {
        assert!(parse_objdump("       0:  ret ;;\n").is_err());
        assert!(parse_objdump("").unwrap().is_empty());
    }

    /// Real output of LLVM for `hexagon-unknown-none-elf` (`dot_i32` without
    /// unrolling: a software-pipelined hardware loop of one packet).
    const DOT: &str = "
	.section	.text.dot_i32,\"ax\",@progbits
	.globl	dot_i32
	.p2align	2
	.prefalign	4, .Lfunc_end8, nop
	.type	dot_i32,@function
dot_i32:
	{
		p0 = cmp.eq(r2,#0)
		if (p0.new) jumpr:nt r31
		r0 = #0
		r3 = r0
	}
.LBB8_1:
	{
		p0 = cmp.gtu(r2,#1); if (!p0.new) jump:t .LBB8_5
		r4 = memw(r3++#4)
		r5 = memw(r1++#4)
	}
	{
		r7 = add(r2,#-2)
		p0 = cmp.gtu(r2,#2)
		r2 = memw(r3++#4)
		r6 = memw(r1++#4)
	}
	{
		loop0(.LBB8_3,r7)
		if (!p0) jump:nt .LBB8_4
	}
	.p2align	5
.LBB8_3:
	{
		r0 += mpyi(r5,r4)
		r5:4 = combine(r6,r2)
		r2 = memw(r3++#4)
		r6 = memw(r1++#4)
	} :endloop0
.LBB8_4:
	{
		r0 += mpyi(r5,r4)
		r5:4 = combine(r6,r2)
	}
.LBB8_5:
	{
		r0 += mpyi(r5,r4)
		jumpr r31
	}
.Lfunc_end8:
	.size	dot_i32, .Lfunc_end8-dot_i32
";

    #[test]
    fn hexagon_packets_and_hardware_loop() {
        let functions = parse_hexagon(DOT).unwrap();
        let dot = functions["dot_i32"].summary();
        assert_eq!(dot.groups, 7);
        assert_eq!(dot.ops, 4 + 4 + 4 + 2 + 4 + 2 + 2);
        assert_eq!(dot.loops, vec![1]);
    }

    /// A rotated hardware loop as LLVM lays out `classify` (shortened): the
    /// `:endloop0` packet comes before the loop's label, and a backward jump closes
    /// the loop in the layout. Also: an instruction outside braces, a comment, a
    /// compare-and-jump with `##`, and a `:endloop01` packet of two nested loops.
    const ROTATED: &str = "
	.type	classify,@function
	.type	nested,@function
classify:
	{
		loop0(.LBB4_5,r9)
		jump .LBB4_5
	}
.LBB4_3:
	{
		r0 = add(r0,#1)
	} :endloop0
	jumpr r31 // a packet of one
.LBB4_5:
	{
		r2 = memw(r1++#4)
	}
	{
		if (cmp.gt(r2.new,#-1)) jump:t ##.LBB4_3
	}
	{
		jump .LBB4_3
	}
.Lfunc_end4:
nested:
	{
		loop1(.LBB5_1,#4)
	}
.LBB5_1:
	{
		loop0(.LBB5_2,#8)
	}
.LBB5_2:
	{
		r0 = add(r0,#1); r1 = add(r1,#1)
	}:endloop01
	{
		jumpr r31
	}
	.size	nested, .Lfunc_end5-nested
";

    #[test]
    fn hexagon_rotated_and_nested_loops() {
        let functions = parse_hexagon(ROTATED).unwrap();
        let classify = functions["classify"].summary();
        assert_eq!((classify.groups, classify.ops), (6, 7));
        // .LBB4_5 (header), its two packets and .LBB4_3's packet.
        assert_eq!(classify.loops, vec![4]);
        let nested = functions["nested"].summary();
        assert_eq!((nested.groups, nested.ops), (4, 5));
        assert_eq!(nested.loops, vec![1]);
    }

    #[test]
    fn hexagon_errors() {
        assert!(parse_hexagon("\t.type f,@function\nf:\n\t{\n\t\tr0 = #0\n").is_err());
        assert!(parse_hexagon("\t.type f,@function\nf:\n\t}\n").is_err());
        assert!(parse_hexagon("\t.type f,@function\nf:\n\t{\n\t\tnop\n\t} :endloop0\n").is_err());
    }

    #[test]
    fn innermost_loops_do_not_depend_on_layout() {
        // Our layout of three nested loops: 0 -> 1 (outer header) -> 2 (exit) or
        // 3 (middle header); the outer latch 4 comes before the middle loop's
        // body 5..7, whose inner loop is 6 <-> 7.
        let successors = vec![
            vec![1],
            vec![2, 3],
            vec![],
            vec![4, 5],
            vec![1],
            vec![6],
            vec![7, 8],
            vec![6],
            vec![3],
        ];
        assert_eq!(innermost_loops(&successors), vec![vec![6, 7]]);
        // Two back edges to one header are one loop.
        let successors = vec![vec![1], vec![2, 3], vec![1], vec![1, 4], vec![]];
        assert_eq!(innermost_loops(&successors), vec![vec![1, 2, 3]]);
        assert!(innermost_loops(&[]).is_empty());
    }

    #[test]
    fn finds_the_kernels() {
        let source = "/// Doc.\n#[unsafe(no_mangle)]\npub unsafe extern \"C\" fn dot_i32(a: *const i32) {}\n\
                      fn helper() {}\n#[unsafe(no_mangle)]\npub extern \"C\" fn m(x: f64) -> u32 {}\n";
        assert_eq!(kernel_names(source), vec!["dot_i32", "m"]);
    }

    #[test]
    fn loop_ratios_only_when_paired() {
        let shape = |groups, loops: Vec<usize>| Shape {
            groups,
            ops: groups,
            loops,
        };
        let row = Row {
            name: "k".into(),
            ours: shape(40, vec![10, 20]),
            hexagon: shape(10, vec![4]),
            rolled: shape(8, vec![2, 5]),
        };
        assert_eq!(row.ratio(), 4.0);
        assert_eq!(row.loop_ratios(), Some(vec![5.0, 4.0]));
        let unpaired = Row {
            rolled: shape(8, vec![2]),
            ..row
        };
        assert_eq!(unpaired.loop_ratios(), None);
    }
}
