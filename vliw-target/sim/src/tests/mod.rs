//! Tests of the whole simulator on small programs written as bundles of assembly
//! text (`vliw_isa::parse_inst` + `encode_bundle`; pc-relative targets are numeric,
//! e.g. `br .-16`).

mod cli;
mod control;
#[path = "../../../elf/tests/support/dwarf.rs"]
mod dwarf;
mod faults;
mod files;
mod floats;
mod integer;
mod loader;
mod memory_ops;
mod predication;
mod random_text;
mod speed;
mod syscalls;
mod threads;
mod timing;
mod trace;

use crate::{CaptureIo, Options, Outcome, Program, Segment, Simulator, Stats, Symbol};
use vliw_elf::LineTable;
use vliw_isa::{encode_bundle, parse_inst};

/// A writer the test keeps a handle to while the simulator owns a clone (the trace).
#[derive(Clone, Default)]
pub struct SharedWriter(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl SharedWriter {
    /// What was written so far, as text.
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

impl std::io::Write for SharedWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub const TEXT: u64 = 0x10000;
/// A writable data segment of `DATA_SIZE` bytes.
pub const DATA: u64 = 0x20000;
pub const DATA_SIZE: u64 = 0x1000;
/// A read-only data segment of one page.
pub const RODATA: u64 = 0x30000;

/// Encodes bundles given as lists of operations.
pub fn assemble(bundles: &[&[&str]]) -> Vec<u64> {
    let mut words = Vec::new();
    for (i, ops) in bundles.iter().enumerate() {
        let insts: Vec<_> = ops
            .iter()
            .map(|text| {
                parse_inst(text)
                    .unwrap_or_else(|e| panic!("bundle {i}: `{text}`: {e}"))
                    .inst
            })
            .collect();
        encode_bundle(&insts, &mut words).unwrap_or_else(|e| panic!("bundle {i}: {e}"));
    }
    words
}

/// A test program and how to run it.
pub struct Test {
    pub words: Vec<u64>,
    pub options: Options,
    pub data: Vec<u8>,
    pub rodata: Vec<u8>,
    pub stdin: Vec<u8>,
    pub argv: Vec<Vec<u8>>,
    pub envp: Vec<Vec<u8>>,
    pub symbols: Vec<Symbol>,
    pub lines: LineTable,
}

/// The result of a run.
pub struct Run {
    pub sim: Simulator,
    pub outcome: Outcome,
    pub io: CaptureIo,
}

impl Run {
    pub fn reg(&self, n: u8) -> u64 {
        self.sim.reg(n)
    }
    pub fn pred(&self, n: u8) -> bool {
        self.sim.pred(n)
    }
    pub fn stats(&self) -> Stats {
        self.sim.stats()
    }
    /// The exit code; panics with the fault otherwise.
    pub fn exit_code(&self) -> i32 {
        match &self.outcome {
            Outcome::Exit(code) => *code,
            Outcome::Fault(f) => panic!("expected an exit, got {f}"),
        }
    }
    /// The fault's message; panics on an exit.
    pub fn fault(&self) -> String {
        match &self.outcome {
            Outcome::Fault(f) => f.to_string(),
            Outcome::Exit(code) => panic!("expected a fault, got exit {code}"),
        }
    }
    pub fn stdout(&self) -> String {
        String::from_utf8(self.io.stdout()).unwrap()
    }
    pub fn load(&self, addr: u64, size: u8) -> u64 {
        self.sim
            .memory()
            .read(addr, size)
            .unwrap_or_else(|| panic!("cannot read {addr:#x}"))
    }
}

impl Test {
    pub fn new(bundles: &[&[&str]]) -> Test {
        Test::from_words(assemble(bundles))
    }

    pub fn from_words(words: Vec<u64>) -> Test {
        Test {
            words,
            options: Options {
                stack_size: 64 << 10,
                heap_size: 1 << 20,
                ..Options::default()
            },
            data: Vec::new(),
            rodata: Vec::new(),
            stdin: Vec::new(),
            argv: vec![b"test".to_vec()],
            envp: Vec::new(),
            symbols: Vec::new(),
            lines: LineTable::default(),
        }
    }

    pub fn program(&self) -> Program {
        let mut segments = vec![
            Segment::text(TEXT, &self.words),
            Segment::data(DATA, self.data.clone(), DATA_SIZE),
        ];
        if !self.rodata.is_empty() {
            segments.push(Segment::read_only(RODATA, self.rodata.clone()));
        }
        Program {
            entry: TEXT,
            segments,
            symbols: self.symbols.clone(),
            lines: self.lines.clone(),
            frames: None,
        }
    }

    pub fn machine(mut self, overrides: &str) -> Test {
        self.options.machine.apply_overrides(overrides).unwrap();
        self
    }

    pub fn strict(mut self) -> Test {
        self.options.strict = true;
        self
    }

    pub fn max_cycles(mut self, n: u64) -> Test {
        self.options.max_cycles = Some(n);
        self
    }

    pub fn data(mut self, bytes: &[u8]) -> Test {
        self.data = bytes.to_vec();
        self
    }

    pub fn symbol(mut self, name: &str, addr: u64, size: u64) -> Test {
        self.symbols.push(Symbol {
            name: name.to_string(),
            addr,
            size,
            is_function: true,
        });
        self
    }

    /// Source lines for the code.
    pub fn lines(mut self, lines: LineTable) -> Test {
        self.lines = lines;
        self
    }

    pub fn simulator(&self) -> (Simulator, CaptureIo) {
        let io = CaptureIo::new(&self.stdin);
        let sim = Simulator::new(
            &self.program(),
            &self.options,
            &self.argv,
            &self.envp,
            Box::new(io.clone()),
        )
        .unwrap_or_else(|e| panic!("load: {e}"));
        (sim, io)
    }

    pub fn run(self) -> Run {
        let (mut sim, io) = self.simulator();
        let outcome = sim.run();
        Run { sim, outcome, io }
    }
}

/// A line table (DWARF 4, gimli) for one sequence at `start`, `size` bytes long.
pub fn line_table(start: u64, size: u64, rows: Vec<dwarf::Row>) -> LineTable {
    dwarf::table(
        4,
        &[dwarf::Seq {
            start: dwarf::Address::Constant(start),
            size,
            rows,
        }],
    )
}

/// Runs `body` (bundles) followed by `exit(r3)`, with a cycle limit.
pub fn run(body: &[&[&str]]) -> Run {
    let mut bundles = body.to_vec();
    bundles.push(&["syscall 0"]);
    Test::new(&bundles).max_cycles(100_000).run()
}

/// Runs one operation after setting r4 = `a` and r5 = `b` (with `limm` as needed);
/// returns r3.
pub fn op2(op: &str, a: u64, b: u64) -> u64 {
    let set_a = format!("movi r4 = {a:#x}");
    let set_b = format!("movi r5 = {b:#x}");
    let r = Test::new(&[&[&set_a, &set_b], &[op], &["syscall 0"]])
        .max_cycles(1000)
        .run();
    r.exit_code();
    r.reg(3)
}
