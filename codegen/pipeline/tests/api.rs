//! The public API and the object conventions: sections, symbols and relocations of
//! compiled modules, linking them (`--gc-sections`, weak definitions), dumps and
//! timings, and errors instead of panics.

mod common;

use std::sync::{Arc, Mutex};
use vliw_elf::{Binding, SectionKind, SymbolDefinition, SymbolKind, write_object};
use vliw_ir::{DataValue, Type, parse_module};
use vliw_isa::RelocKind;
use vliw_pipeline::{Options, Timings, compile_module};

const MODULE: &str = r#"
declare function @external(i64) -> i64
declare data @extern_data
data @ro: rodata align 8 = { ptr @rw+4, "text" }
data @rw: data align 4 = "abcd"
data @zeros: bss align 16 = zero 32
data @weak_data: data align 1 weak = "w"

function @exported(i64) -> i64 export {
    fn0 = @local_helper(i64) -> i64
    fn1 = @external(i64) -> i64
    gv0 = symbol @ro
    gv1 = symbol @extern_data
block0(v0: i64):
    v1 = call fn0(v0)
    v2 = call fn1(v1)
    v3 = symbol_addr gv0
    v4 = symbol_addr gv1+16
    store align 8 v3, v4
    v5 = iconst.i64 0x123456789abcdef
    v6 = iadd v2, v5
    return v6
}

; inline(never): the tests look at its own section, symbol and dumps, which the
; RVSDG's inliner would otherwise fold into @exported, its only caller
function @local_helper(i64) -> i64 inline(never) {
block0(v0: i64):
    switch v0, block5, [0 -> block1, 1 -> block2, 2 -> block3, 3 -> block4]
block1:
    return v0
block2:
    v1 = iconst.i64 10
    return v1
block3:
    v2 = iconst.i64 20
    return v2
block4:
    v3 = iconst.i64 30
    return v3
block5:
    v4 = iconst.i64 40
    return v4
}

function @weak_fn() -> i32 weak {
block0:
    v0 = iconst.i32 1
    return v0
}
"#;

#[test]
fn one_section_per_function_and_data_object_with_the_irs_linkage() {
    let module = parse_module(MODULE).unwrap();
    let obj = compile_module(&module, &four_case_tables()).unwrap();
    let section = |name: &str| {
        let id = obj
            .section_by_name(name)
            .unwrap_or_else(|| panic!("no section {name}"));
        &obj.sections[id.0]
    };
    assert_eq!(section(".text.exported").kind, SectionKind::Text);
    assert_eq!(section(".text.local_helper").kind, SectionKind::Text);
    assert_eq!(section(".text.weak_fn").kind, SectionKind::Text);
    assert_eq!(section(".rodata.ro").kind, SectionKind::ReadOnlyData);
    assert_eq!(section(".data.rw").kind, SectionKind::Data);
    let bss = section(".bss.zeros");
    assert_eq!(
        (bss.kind, bss.size(), bss.align),
        (SectionKind::Bss, 32, 16)
    );
    assert_eq!(
        section(".rodata.jt.local_helper").kind,
        SectionKind::ReadOnlyData
    );
    for s in &obj.sections {
        if s.kind == SectionKind::Text {
            assert_eq!(s.data.len() % 8, 0);
            assert!(s.align >= 8);
        }
    }
    let sym = |name: &str| {
        obj.symbol(
            obj.symbol_by_name(name)
                .unwrap_or_else(|| panic!("no symbol {name}")),
        )
    };
    assert_eq!(
        (sym("exported").binding, sym("exported").kind),
        (Binding::Global, SymbolKind::Func)
    );
    assert_eq!(sym("local_helper").binding, Binding::Local);
    assert_eq!(sym("weak_fn").binding, Binding::Weak);
    assert_eq!(
        (sym("ro").binding, sym("ro").kind),
        (Binding::Local, SymbolKind::Object)
    );
    assert_eq!(sym("weak_data").binding, Binding::Weak);
    assert_eq!(sym("external").definition, SymbolDefinition::Undefined);
    assert_eq!(sym("extern_data").definition, SymbolDefinition::Undefined);
    assert!(sym("exported").size > 0 && sym("exported").size % 8 == 0);

    // relocations: calls, addresses of symbols, data pointers, jump tables
    let text = section(".text.exported");
    let kinds = |s: &vliw_elf::Section, target: &str| -> Vec<(RelocKind, i64)> {
        s.relocs
            .iter()
            .filter(|r| obj.symbol(r.symbol).name == target)
            .map(|r| (r.kind, r.addend))
            .collect()
    };
    assert_eq!(kinds(text, "local_helper"), vec![(RelocKind::Branch32, 0)]);
    assert_eq!(kinds(text, "external"), vec![(RelocKind::Branch32, 0)]);
    assert_eq!(kinds(text, "ro"), vec![(RelocKind::Pcrel32, 0)]);
    assert_eq!(kinds(text, "extern_data"), vec![(RelocKind::Pcrel32, 16)]);
    assert_eq!(
        kinds(section(".rodata.ro"), "rw"),
        vec![(RelocKind::Abs64, 4)]
    );
    let jt = section(".rodata.jt.local_helper");
    assert_eq!(jt.relocs.len(), 4);
    assert!(jt.relocs.iter().all(|r| r.kind == RelocKind::Abs64 && obj.symbol(r.symbol).kind == SymbolKind::Section));
    let helper = section(".text.local_helper");
    assert!(
        helper
            .relocs
            .iter()
            .any(|r| r.kind == RelocKind::Pcrel32
                && obj.symbol(r.symbol).kind == SymbolKind::Section)
    );

    // the object reads back and disassembles, symbols and relocations included
    let bytes = write_object(&obj);
    let back = vliw_elf::read_object(&bytes, "m.o").unwrap();
    let text = vliw_asm::disassemble_object(
        &back,
        &vliw_asm::DisasmOptions {
            disassemble: true,
            relocs: true,
            ..Default::default()
        },
    );
    assert!(text.contains("exported"), "{text}");
    assert!(text.contains("R_VLIW_BRANCH32"), "{text}");
    assert!(text.contains("R_VLIW_PCREL32"), "{text}");
    assert!(
        text.contains("limm") || text.contains("long"),
        "the 64-bit constant takes a limm: {text}"
    );
}

#[test]
fn gc_sections_drops_unused_functions_and_a_global_beats_a_weak_definition() {
    let a = parse_module(
        r#"
function @main() -> i32 export {
    fn0 = @weak_fn() -> i32
block0:
    v0 = call fn0()
    return v0
}
function @unused() -> i32 export {
block0:
    v0 = iconst.i32 99
    return v0
}
function @weak_fn() -> i32 weak {
block0:
    v0 = iconst.i32 1
    return v0
}
"#,
    )
    .unwrap();
    let b = parse_module(
        r#"
function @weak_fn() -> i32 export {
block0:
    v0 = iconst.i32 2
    return v0
}
"#,
    )
    .unwrap();
    let oa = write_object(&compile_module(&a, &Options::default()).unwrap());
    let ob = write_object(&compile_module(&b, &Options::default()).unwrap());
    match common::run_on_machine(&[oa.clone(), ob], "main", &[], &[Type::I32]) {
        common::MachineResult::Values(v, _) => {
            assert_eq!(v, vec![DataValue::I32(2)], "the global definition wins")
        }
        other => panic!("{other:?}"),
    }
    match common::run_on_machine(std::slice::from_ref(&oa), "main", &[], &[Type::I32]) {
        common::MachineResult::Values(v, _) => {
            assert_eq!(v, vec![DataValue::I32(1)], "alone, the weak one is used")
        }
        other => panic!("{other:?}"),
    }
    // link by hand to look at the map: `unused` is dropped
    let driver = vliw_asm::assemble(
        &common::driver_asm("main", &[], &[Type::I32]),
        "d.s",
        &Default::default(),
    )
    .unwrap();
    let files = vec![
        vliw_link::InputFile {
            name: "d.o".into(),
            data: write_object(&driver),
            whole_archive: false,
        },
        vliw_link::InputFile {
            name: "a.o".into(),
            data: oa,
            whole_archive: false,
        },
    ];
    let config = vliw_link::LinkConfig {
        gc_sections: true,
        want_map: true,
        ..Default::default()
    };
    let map = vliw_link::link(&files, &config).unwrap().map.unwrap();
    let discarded = map.split("Discarded").nth(1).unwrap_or("");
    assert!(discarded.contains(".text.unused"), "{map}");
    assert!(!discarded.contains(".text.main"), "{map}");
}

#[test]
fn dumps_and_timings() {
    let module = parse_module(MODULE).unwrap();
    let sink = Arc::new(Mutex::new(Vec::<u8>::new()));
    let timings = Timings::new();
    let mut o = four_case_tables();
    o.set("dump", "isel,regalloc,final").unwrap();
    o.dump_to = Some(sink.clone());
    o.timings = Some(timings.clone());
    compile_module(&module, &o).unwrap();
    let text = String::from_utf8(sink.lock().unwrap().clone()).unwrap();
    for point in ["after:isel", "after:ssa-regalloc", "after:sched"] {
        assert!(
            text.contains(&format!("; dump={point} function=local_helper")),
            "{text}"
        );
    }
    assert!(text.contains("machine function @local_helper"));
    assert!(
        text.contains("v0 = copy r3"),
        "isel: arguments arrive in r3..: {text}"
    );
    assert!(text.contains("ret uses[r3]"), "{text}");
    assert!(text.contains("jt0 = [block"), "{text}");
    assert!(text.contains("\n    frame "), "{text}");
    // the dump is the text form: every function of every stage reads back
    let parsed = vliw_machine::mir::parse_machine_functions(&text).unwrap();
    assert_eq!(parsed.len(), 3 * module.functions.len());
    for f in &parsed {
        assert!(text.contains(&f.to_string()), "{f}");
    }
    // the time of every pass that ran, in pipeline order
    let phases: Vec<&str> = timings.report().iter().map(|p| p.0).collect();
    let expected = [
        "verify",
        "mem2reg",
        "dce",
        "isel",
        "ssa-regalloc",
        "frame",
        "fallthrough",
        "sched",
        "emit",
        "object",
    ];
    let ran: Vec<&str> = phases
        .iter()
        .copied()
        .filter(|p| expected.contains(p))
        .collect();
    assert_eq!(ran, expected, "{phases:?}");
    // no dump without a sink, and none of a point not asked for
    let mut o = Options::default();
    o.set("dump", "final").unwrap();
    let sink = Arc::new(Mutex::new(Vec::<u8>::new()));
    o.dump_to = Some(sink.clone());
    compile_module(&module, &o).unwrap();
    let text = String::from_utf8(sink.lock().unwrap().clone()).unwrap();
    assert!(!text.contains("dump=after:isel") && text.contains("dump=after:sched"));
}

/// `dump=before:all,after:all` dumps every function before and after every pass that
/// runs, and the text dumps of the SSA IR parse back.
#[test]
fn dumps_before_and_after_every_pass() {
    let module = parse_module(MODULE).unwrap();
    for variant in ["regalloc=ssa sched=list", "regalloc=naive sched=off"] {
        let mut o = Options::parse(variant).unwrap();
        o.set("dump", "before:all,after:all").unwrap();
        let sink = Arc::new(Mutex::new(Vec::<u8>::new()));
        o.dump_to = Some(sink.clone());
        compile_module(&module, &o).unwrap();
        let text = String::from_utf8(sink.lock().unwrap().clone()).unwrap();
        let running: Vec<_> = vliw_pipeline::PIPELINE
            .iter()
            .filter(|p| (p.runs)(&o))
            .collect();
        for p in &running {
            for when in ["before", "after"] {
                let stage = if when == "before" { p.from } else { p.to };
                if stage == vliw_pipeline::Stage::Rvsdg {
                    // the RVSDG is dumped whole, once
                    let head = format!("; dump={when}:{} rvsdg\n", p.name);
                    assert_eq!(text.matches(&head).count(), 1, "{variant}: {head}");
                    continue;
                }
                for f in &module.functions {
                    let head = format!("; dump={when}:{} function={}\n", p.name, f.name);
                    assert_eq!(text.matches(&head).count(), 1, "{variant}: {head}");
                }
            }
        }
        // the IR after the middle end is valid IR text
        let after_dce = text
            .split("; dump=after:dce function=exported\n")
            .nth(1)
            .unwrap();
        let ir = after_dce.split("; dump=").next().unwrap();
        let reparsed = parse_module(ir).unwrap_or_else(|e| panic!("{e}\n{ir}"));
        assert_eq!(reparsed.functions[0].name, "exported");
    }
}

#[test]
fn dot_dumps_are_one_digraph_per_function_and_point() {
    let module = parse_module(MODULE).unwrap();
    let mut o = Options::parse("dump=after:dce,after:isel,after:sched dump-format=dot").unwrap();
    let sink = Arc::new(Mutex::new(Vec::<u8>::new()));
    o.dump_to = Some(sink.clone());
    compile_module(&module, &o).unwrap();
    let text = String::from_utf8(sink.lock().unwrap().clone()).unwrap();
    assert_eq!(
        text.matches("digraph ").count(),
        3 * module.functions.len(),
        "{text}"
    );
    assert!(
        text.contains("digraph \"after:isel @local_helper\" {"),
        "{text}"
    );
    // a switch: the entry block branches to all five cases
    let isel = text
        .split("digraph \"after:isel @local_helper\"")
        .nth(1)
        .unwrap();
    let isel = &isel[..isel.find("\n}\n").unwrap()];
    assert!(isel.matches(" -> ").count() >= 5, "{isel}");
    assert!(text.trim_end().ends_with('}'), "{text}");
}

/// `verify=each` verifies after every pass, `verify=no` not even the input.
#[test]
fn verification_levels() {
    let module = parse_module(MODULE).unwrap();
    let timed = |words: &str| {
        let mut o = Options::parse(words).unwrap();
        let t = Timings::new();
        o.timings = Some(t.clone());
        compile_module(&module, &o).unwrap();
        t.report()
            .iter()
            .find(|p| p.0 == "verify")
            .map_or(0, |p| p.2)
    };
    let functions = module.functions.len() as u64;
    // the passes that run under verify=each (the analysis `ppg` is one of them)
    let each_options = Options::parse("verify=each").unwrap();
    let running = || {
        vliw_pipeline::PIPELINE
            .iter()
            .filter(|p| (p.runs)(&each_options))
    };
    // the middle end's passes verify the whole module at once
    let module_wide = running()
        .filter(|p| p.from.is_module_wide() && p.to.is_module_wide())
        .count() as u64;
    let per_function = running().count() as u64 - module_wide;
    // every pass but `emit` (the encoder checks what it encodes), and the input
    let each = 1 + module_wide + functions * (per_function - 1);
    assert_eq!(timed("verify=each"), each);
    let boundaries = timed("verify=yes");
    assert!(boundaries > 1 && boundaries < each, "{boundaries}");
    assert_eq!(timed("verify=no"), 0);
    // a caller that has just verified the module saves the input's verification
    let mut o = Options::new();
    o.input_verified = true;
    let t = Timings::new();
    o.timings = Some(t.clone());
    compile_module(&module, &o).unwrap();
    let runs = t
        .report()
        .iter()
        .find(|p| p.0 == "verify")
        .map_or(0, |p| p.2);
    assert_eq!(runs, boundaries - 1);
}

#[test]
fn errors_not_panics() {
    // a module that does not verify
    let bad =
        parse_module("function @f(i32) -> i64 {\nblock0(v0: i32):\n    return v0\n}\n").unwrap();
    let e = compile_module(&bad, &Options::default()).unwrap_err();
    assert!(e.to_string().contains("does not verify"), "{e}");
    // a machine too narrow for a long immediate
    let m = parse_module(
        "function @big() -> i64 export {\nblock0:\n    v0 = iconst.i64 0x123456789\n    return v0\n}\n",
    )
    .unwrap();
    let mut o = Options::default();
    o.set("machine", "width=1").unwrap();
    let e = compile_module(&m, &o).unwrap_err();
    assert_eq!(e.function, "big");
    assert!(e.to_string().contains("does not fit the machine"), "{e}");
}

#[test]
fn the_naive_allocator_uses_only_scratch_registers_and_saves_lr_only_when_calling() {
    let module = parse_module(MODULE).unwrap();
    for f in &module.functions {
        let mut mf =
            vliw_machine::lower_function(&module, f, &vliw_machine::Options::default()).unwrap();
        mf.verify(vliw_machine::mir::Phase::Ssa).unwrap();
        vliw_machine::regalloc::destruct_ssa(&mut mf);
        mf.verify(vliw_machine::mir::Phase::Virtual).unwrap();
        vliw_machine::regalloc::allocate_naive(&mut mf).unwrap();
        vliw_machine::frame::lower_frame(&mut mf);
        let frame = mf.frame.clone().unwrap();
        let saves_lr = frame
            .saves
            .iter()
            .any(|(r, _)| *r == vliw_machine::PReg::Gpr(vliw_isa::Gpr::LR));
        assert_eq!(saves_lr, mf.has_calls(), "{}", f.name);
        assert_eq!(frame.size % 16, 0);
        for &b in &mf.layout {
            for inst in mf.block_insts(b) {
                for r in inst.all_defs().chain(inst.all_uses()) {
                    let vliw_machine::Reg::Physical(p) = r else {
                        panic!("virtual register left: {r:?}")
                    };
                    if let vliw_machine::PReg::Gpr(g) = p {
                        assert!(
                            !(32..=62).contains(&g.num()),
                            "callee-saved {g} used by {}",
                            mf.display_inst(inst)
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn thread_local_data_and_tls_addr() {
    let module = parse_module(
        r#"
declare data @other_tls
data @t: data align 8 thread_local export = { i64 5 }
data @z: bss align 16 thread_local = zero 24

function @f() -> ptr, ptr, ptr export {
    gv0 = symbol @t
    gv1 = symbol @z
    gv2 = symbol @other_tls
block0:
    v0 = tls_addr gv0
    v1 = tls_addr gv1+8
    v2 = tls_addr gv2
    return v0, v1, v2
}
"#,
    )
    .unwrap();
    let obj = compile_module(&module, &Options::default()).unwrap();
    let section = |name: &str| &obj.sections[obj.section_by_name(name).unwrap().0];
    let t = section(".tdata.t");
    assert_eq!(
        (t.kind, t.align, t.data.as_slice()),
        (SectionKind::TlsData, 8, &[5, 0, 0, 0, 0, 0, 0, 0][..])
    );
    let z = section(".tbss.z");
    assert_eq!((z.kind, z.size(), z.align), (SectionKind::TlsBss, 24, 16));
    let sym = |name: &str| obj.symbol(obj.symbol_by_name(name).unwrap());
    assert_eq!(
        (sym("t").kind, sym("t").binding),
        (SymbolKind::Tls, Binding::Global)
    );
    assert_eq!(sym("z").kind, SymbolKind::Tls);
    let relocs: Vec<(RelocKind, String, i64)> = section(".text.f")
        .relocs
        .iter()
        .map(|r| (r.kind, obj.symbol(r.symbol).name.clone(), r.addend))
        .collect();
    assert_eq!(
        relocs,
        vec![
            (RelocKind::Tprel32, "t".to_string(), 0),
            (RelocKind::Tprel32, "z".to_string(), 8),
            (RelocKind::Tprel32, "other_tls".to_string(), 0),
        ]
    );
    // `add rd = tp, sym@tprel`.
    let listing = vliw_asm::disassemble_object(
        &obj,
        &vliw_asm::DisasmOptions {
            disassemble: true,
            ..Default::default()
        },
    );
    assert!(listing.contains("= r2, t@tprel"), "{listing}");
    assert!(listing.contains("= r2, z@tprel+8"), "{listing}");
}

/// `analysis-timing=on` measures and changes nothing: every IR filetest compiles to the
/// same object with it as without, with either allocator.
#[test]
fn analysis_timing_leaves_the_code_unchanged() {
    fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                collect(&p, out);
            } else if p.extension().is_some_and(|e| e == "ir") {
                out.push(p);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ir");
    let mut files = Vec::new();
    collect(&root, &mut files);
    let mut compared = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let Ok(module) = parse_module(&text) else {
            continue;
        };
        for regalloc in ["ssa", "naive"] {
            let mut off = Options::default();
            off.set("regalloc", regalloc).unwrap();
            let Ok(expected) = compile_module(&module, &off) else {
                continue;
            };
            let mut on = off.clone();
            on.set("analysis-timing", "on").unwrap();
            let actual = compile_module(&module, &on).unwrap();
            assert!(
                write_object(&expected) == write_object(&actual),
                "{}: analysis-timing=on changed the object (regalloc={regalloc})",
                file.display()
            );
            compared += 1;
        }
    }
    assert!(compared >= 60, "only {compared} modules compared");
}

/// The default options, but for switches of four cases made jump tables (the
/// module's `local_helper` has one, whose table the tests look at).
fn four_case_tables() -> Options {
    Options::parse("jump-table-min-cases=4").expect("a known option")
}
