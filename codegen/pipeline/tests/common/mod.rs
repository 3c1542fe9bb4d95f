//! The differential test harness: compile IR with `vliw_pipeline::compile_module`, link
//! it with a generated driver (assembled with `vliw-asm`) and the test runtime, run it
//! on the simulator, and compare with the expectation and with the IR interpreter.
//!
//! The driver (`_start`) puts the arguments where the calling convention says
//! (`r3`..`r10`, then the stack after the return area), calls the function, and writes
//! `r3`..`r10` and the return area to stdout as little-endian words, then exits with 0.
//! The harness reads the result words back and checks them, including their canonical
//! form (`docs/machine.md`).
//!
//! The runtime (`tests/support/runtime.ir`, compiled by the back end under test, one
//! archive member per function, plus `write` in assembly) provides what compiled code
//! calls: `memcpy`, `memmove`, `memset`, `fmod`, `fmodf` and the compiler_builtins
//! functions for `i128`.

#![allow(dead_code)]

use std::sync::OnceLock;
use vliw_elf::{ArchiveMember, write_archive, write_object};
use vliw_ir::{DataValue, Linkage, Module, Type, parse_module};
use vliw_isa::MachineConfig;
use vliw_link::{InputFile, LinkConfig, link};
use vliw_machine::Sched;
use vliw_pipeline::{Options, compile_module};
use vliw_sim::{CaptureIo, Outcome, Program, Simulator};

pub const MAX_CYCLES: u64 = 50_000_000;

/// The runtime archive (built once per test binary).
pub fn runtime_archive() -> &'static [u8] {
    runtime_archive_for(Sched::Off)
}

/// The runtime archive compiled with scheduler `sched` (so that a strict run of
/// list-scheduled code does not stall in the runtime).
pub fn runtime_archive_for(sched: Sched) -> &'static [u8] {
    static RT: OnceLock<Vec<u8>> = OnceLock::new();
    static RT_LIST: OnceLock<Vec<u8>> = OnceLock::new();
    let mut options = Options::default();
    options.backend.sched = sched;
    let cell = match sched {
        Sched::Off => &RT,
        Sched::List => &RT_LIST,
    };
    cell.get_or_init(|| {
        let text = include_str!("../support/runtime.ir");
        let module = parse_module(text).unwrap_or_else(|e| panic!("runtime.ir: {e}"));
        let mut members = Vec::new();
        for f in &module.functions {
            // one member per function, so that a test's own definition of a name wins
            // without a duplicate
            let mut m = Module::new();
            m.functions.push(f.clone());
            for g in &module.functions {
                if g.name != f.name {
                    m.declare_function(&g.name, g.signature.clone());
                }
            }
            for d in &module.func_decls {
                m.declare_function(&d.name, d.signature.clone());
            }
            let obj = compile_module(&m, &options).unwrap_or_else(|e| panic!("runtime: {e}"));
            members.push(ArchiveMember {
                name: format!("{}.o", f.name),
                data: write_object(&obj),
            });
        }
        let io = vliw_asm::assemble(WRITE_ASM, "write.s", &MachineConfig::default())
            .unwrap_or_else(|e| panic!("write.s: {e:?}"));
        members.push(ArchiveMember {
            name: "write.o".into(),
            data: write_object(&io),
        });
        write_archive(&members)
    })
}

/// `write(fd, buf, len)` of the filetests' host interface, as the system call.
const WRITE_ASM: &str = "
    .text
    .globl write
    .type write, @function
write:
    syscall 1 ;;
    ret ;;
    .size write, . - write
";

/// The words of an argument value in its canonical register form.
pub fn words_of(v: &DataValue) -> Vec<u64> {
    match *v {
        DataValue::I1(b) => vec![b as u64],
        DataValue::I8(x) => vec![x as i64 as u64],
        DataValue::I16(x) => vec![x as i64 as u64],
        DataValue::I32(x) => vec![x as i64 as u64],
        DataValue::I64(x) => vec![x as u64],
        DataValue::I128(x) => vec![x as u64, (x as u128 >> 64) as u64],
        DataValue::F32(x) => vec![x.to_bits() as u64],
        DataValue::F64(x) => vec![x.to_bits()],
        DataValue::Ptr(p) => vec![p],
    }
}

/// Reads a result of type `ty` from its words, checking the canonical form.
pub fn value_from_words(ty: Type, w: &[u64]) -> Result<DataValue, String> {
    let v = match ty {
        Type::I128 => DataValue::I128((w[0] as u128 | (w[1] as u128) << 64) as i128),
        _ => DataValue::from_bits(ty, w[0] as u128),
    };
    let canonical = words_of(&v);
    if canonical[..] != w[..canonical.len()] {
        return Err(format!(
            "{ty} result {:#x?} is not in canonical form (expected {:#x?})",
            &w[..canonical.len()],
            canonical
        ));
    }
    Ok(v)
}

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The driver: calls `name` with `args`, writes the result words to stdout, exits 0.
pub fn driver_asm(name: &str, args: &[DataValue], rets: &[Type]) -> String {
    let ret_words: usize = rets
        .iter()
        .map(|&t| if t == Type::I128 { 2 } else { 1 })
        .sum();
    let ret_area = ret_words.saturating_sub(8);
    let arg_words: Vec<u64> = args.iter().flat_map(words_of).collect();
    let stack_args = arg_words.len().saturating_sub(8);
    let frame = (8 * (ret_area + stack_args)).div_ceil(16) * 16;
    let mut s =
        String::from("    .text\n    .globl _start\n    .type _start, @function\n_start:\n");
    // The thread pointer: the TLS image in place (one thread).
    s += "    movi r2 = long __tls_start ;;\n";
    if frame > 0 {
        s += &format!("    add sp = sp, -{frame} ;;\n");
    }
    for (i, w) in arg_words.iter().enumerate() {
        if i < 8 {
            s += &format!("    movi r{} = long {:#x} ;;\n", 3 + i, w);
        } else {
            s += &format!("    movi r11 = long {w:#x} ;;\n");
            s += &format!("    st.d [sp + {}] = r11 ;;\n", 8 * (ret_area + i - 8));
        }
    }
    s += &format!("    call {} ;;\n", quote(name));
    s += "    addpc r20 = .Lresults ;;\n";
    for i in 0..ret_words.min(8) {
        s += &format!("    st.d [r20 + {}] = r{} ;;\n", 8 * i, 3 + i);
    }
    for k in 0..ret_area {
        s += &format!(
            "    ld.d r11 = [sp + {}] ;;\n    nop ;;\n    nop ;;\n    st.d [r20 + {}] = r11 ;;\n",
            8 * k,
            8 * (8 + k)
        );
    }
    s += &format!(
        "    movi r3 = 1 ;;\n    mov r4 = r20 ;;\n    movi r5 = {} ;;\n    syscall 1 ;;\n",
        8 * ret_words
    );
    s += "    movi r3 = 0 ;;\n    syscall 0 ;;\n    .size _start, . - _start\n";
    s += &format!(
        "    .bss\n    .balign 8\n.Lresults:\n    .zero {}\n",
        8 * ret_words.max(1)
    );
    s
}

/// How a run on the machine ended.
#[derive(Debug)]
pub enum MachineResult {
    Values(Vec<DataValue>, Vec<u8>),
    Fault(vliw_sim::Fault, Vec<u8>),
    Exit(i32, Vec<u8>),
    LinkError(String),
}

/// The module with every local function made global, so that the driver can call it.
pub fn exported(module: &Module) -> Module {
    let mut m = module.clone();
    for f in &mut m.functions {
        if f.linkage == Linkage::Local {
            f.linkage = Linkage::Export;
        }
    }
    m
}

/// Links `objects` (ELF bytes) with a driver calling `name(args)` and the runtime.
pub fn link_with_driver(
    objects: &[Vec<u8>],
    name: &str,
    args: &[DataValue],
    rets: &[Type],
) -> Result<vliw_elf::Executable, String> {
    link_with_driver_for(objects, name, args, rets, Sched::Off)
}

/// [`link_with_driver`] with the runtime compiled with scheduler `sched`.
pub fn link_with_driver_for(
    objects: &[Vec<u8>],
    name: &str,
    args: &[DataValue],
    rets: &[Type],
    sched: Sched,
) -> Result<vliw_elf::Executable, String> {
    let asm = driver_asm(name, args, rets);
    let driver = vliw_asm::assemble(&asm, "driver.s", &MachineConfig::default())
        .unwrap_or_else(|e| panic!("driver does not assemble: {e:?}\n{asm}"));
    let mut files = vec![InputFile {
        name: "driver.o".into(),
        data: write_object(&driver),
        whole_archive: false,
    }];
    for (i, o) in objects.iter().enumerate() {
        files.push(InputFile {
            name: format!("module{i}.o"),
            data: o.clone(),
            whole_archive: false,
        });
    }
    files.push(InputFile {
        name: "libruntime.a".into(),
        data: runtime_archive_for(sched).to_vec(),
        whole_archive: false,
    });
    let config = LinkConfig {
        gc_sections: true,
        ..LinkConfig::default()
    };
    link(&files, &config)
        .map(|out| out.executable)
        .map_err(|e| e.to_string())
}

/// Links `objects` (ELF bytes) with the driver and the runtime and runs `name(args)`.
pub fn run_on_machine(
    objects: &[Vec<u8>],
    name: &str,
    args: &[DataValue],
    rets: &[Type],
) -> MachineResult {
    run_on_machine_with(objects, name, args, rets, Sched::Off, false)
}

/// [`run_on_machine`] with the runtime compiled with scheduler `sched`; `strict`: a
/// latency stall is a fault (`vliw-run --strict`).
pub fn run_on_machine_with(
    objects: &[Vec<u8>],
    name: &str,
    args: &[DataValue],
    rets: &[Type],
    sched: Sched,
    strict: bool,
) -> MachineResult {
    let exe = match link_with_driver_for(objects, name, args, rets, sched) {
        Ok(exe) => exe,
        Err(e) => return MachineResult::LinkError(e),
    };
    let program = Program::from_executable(&exe);
    let io = CaptureIo::default();
    let options = vliw_sim::Options {
        max_cycles: Some(MAX_CYCLES),
        strict,
        ..vliw_sim::Options::default()
    };
    let mut sim = Simulator::new(
        &program,
        &options,
        &[b"test".to_vec()],
        &[],
        Box::new(io.clone()),
    )
    .unwrap_or_else(|e| panic!("load: {e:?}"));
    let outcome = sim.run();
    let mut out = io.stdout();
    match outcome {
        Outcome::Fault(f) => MachineResult::Fault(f, out),
        Outcome::Exit(0) => {
            let n: usize = rets
                .iter()
                .map(|&t| if t == Type::I128 { 2 } else { 1 })
                .sum();
            if out.len() < 8 * n {
                return MachineResult::Exit(0, out);
            }
            let res = out.split_off(out.len() - 8 * n);
            let words: Vec<u64> = res
                .chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect();
            let mut vals = Vec::new();
            let mut k = 0;
            for &t in rets {
                let n = if t == Type::I128 { 2 } else { 1 };
                match value_from_words(t, &words[k..k + n]) {
                    Ok(v) => vals.push(v),
                    Err(e) => return MachineResult::LinkError(format!("bad result: {e}")),
                }
                k += n;
            }
            MachineResult::Values(vals, out)
        }
        Outcome::Exit(code) => MachineResult::Exit(code, out),
    }
}

/// Compiles a module (functions exported for the driver) to ELF bytes.
pub fn compile(module: &Module, options: &Options) -> Result<Vec<u8>, String> {
    let obj = compile_module(&exported(module), options).map_err(|e| e.to_string())?;
    let bytes = write_object(&obj);
    // every object must read back and disassemble
    let back = vliw_elf::read_object(&bytes, "module.o")
        .map_err(|e| format!("object does not read back: {e}"))?;
    let _ = vliw_asm::disassemble_object(
        &back,
        &vliw_asm::DisasmOptions {
            disassemble: true,
            relocs: true,
            ..Default::default()
        },
    );
    Ok(bytes)
}

/// Floats compare bit for bit, except that any NaN matches any NaN.
pub fn same_value(a: &DataValue, b: &DataValue) -> bool {
    (a.is_nan() && b.is_nan()) || a == b
}

/// Runs every function of `module` through the pipeline's passes one at a time,
/// as `compile_module` does, and checks the machine IR after each machine pass: it
/// verifies for its stage, prints, parses back to the same function, and prints the
/// same text again. Returns the number of functions checked (those instruction
/// selection takes).
pub fn check_machine_ir_phases(module: &Module, options: &Options) -> Result<usize, String> {
    use vliw_machine::MachFunction;
    use vliw_machine::mir::Phase;
    use vliw_pipeline::{PIPELINE, Stage, Unit};
    fn check(
        mf: &MachFunction,
        phase: Phase,
        after: &str,
        options: &Options,
    ) -> Result<(), String> {
        let machine = &options.backend.machine;
        let text = mf.to_string();
        mf.verify_for(phase, machine)
            .map_err(|e| format!("after {after}, {phase:?}: {e}\n{text}"))?;
        let parsed = MachFunction::parse(&text)
            .map_err(|e| format!("after {after}: the text does not parse: {e}\n{text}"))?;
        mf.same_as(&parsed)
            .map_err(|e| format!("after {after}: the text does not read back: {e}\n{text}"))?;
        let again = parsed.to_string();
        if again != text {
            return Err(format!(
                "after {after}: printing the parsed text differs:\n{text}\n---\n{again}"
            ));
        }
        parsed
            .verify_for(phase, machine)
            .map_err(|e| format!("after {after}: the parsed function does not verify: {e}"))
    }
    let mut checked = 0;
    let module = &*vliw_pipeline::optimize_module(module, options).map_err(|e| e.to_string())?;
    for func in &module.functions {
        let mut unit = Unit::Ir(std::borrow::Cow::Borrowed(func));
        let machine_passes = PIPELINE
            .iter()
            .filter(|p| (p.runs)(options) && !(p.from.is_module_wide() && p.to.is_module_wide()));
        for pass in machine_passes {
            unit = match vliw_pipeline::run_pass(pass, module, unit, options) {
                Ok(unit) => unit,
                // what instruction selection refuses is not machine IR
                Err(_) if pass.from == Stage::Ir => break,
                Err(e) => return Err(format!("{}: {e}", pass.name)),
            };
            let Some(phase) = pass.to.machine_phase() else {
                continue;
            };
            if let Unit::Machine(mf) = &unit {
                check(mf, phase, pass.name, options)?;
            }
            if pass.name == "isel" {
                checked += 1;
            }
        }
    }
    Ok(checked)
}
