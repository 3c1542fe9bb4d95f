//! DWARF line tables: compiled with `debug-info=on`, linked, and read back with gimli
//! from the executable; every row must lie in its function and carry the line and
//! column of the IR instruction the bundle came from.

mod common;

use std::collections::BTreeMap;
use vliw_elf::write_object;
use vliw_ir::{DataValue, Type, parse_module};
use vliw_pipeline::{Options, compile_module};

const MODULE: &str = r#"
function @square_plus(i64, i64) -> i64 export {
    fn0 = @helper(i64) -> i64
    file0 = "src/main.rs"
    file1 = "/lib/core/ops.rs"
block0(v0: i64, v1: i64):
    [0:10:5] v2 = imul v0, v0
    [1:200:9] v3 = call fn0(v1)
    [0:11:7] v4 = iadd v2, v3
    [0:12:1] return v4
}

; inline(never): the test reads the line table of each function (the RVSDG's
; inliner would otherwise take @helper into its only caller)
function @helper(i64) -> i64 inline(never) {
    file0 = "src/helper.rs"
block0(v0: i64):
    [0:3:4] v1 = iconst.i64 3
    [0:3:8] v2 = iadd v0, v1
    [0:4:1] return v2
}

function @no_locations(i64) -> i64 export {
block0(v0: i64):
    return v0
}
"#;

type Rows = Vec<(u64, String, u64, u64)>;

fn read_rows(exe: &vliw_elf::Executable) -> Rows {
    let load = |id: gimli::SectionId| -> Result<gimli::EndianSlice<'_, gimli::LittleEndian>, gimli::Error> {
        Ok(gimli::EndianSlice::new(exe.non_alloc_section(id.name()).unwrap_or(&[]), gimli::LittleEndian))
    };
    let dwarf = gimli::Dwarf::load(load).unwrap();
    let mut units = dwarf.units();
    let mut rows = Vec::new();
    while let Some(header) = units.next().unwrap() {
        let unit = dwarf.unit(header).unwrap();
        let program = unit.line_program.clone().expect("a line program");
        let mut it = program.rows();
        while let Some((header, row)) = it.next_row().unwrap() {
            if row.end_sequence() {
                continue;
            }
            let file = row.file(header).expect("a file entry");
            let mut path = String::new();
            if let Some(dir) = file.directory(header) {
                let d = dwarf.attr_string(&unit, dir).unwrap();
                path.push_str(&d.to_string_lossy());
                path.push('/');
            }
            path.push_str(
                &dwarf
                    .attr_string(&unit, file.path_name())
                    .unwrap()
                    .to_string_lossy(),
            );
            let col = match row.column() {
                gimli::ColumnType::LeftEdge => 0,
                gimli::ColumnType::Column(c) => c.get(),
            };
            rows.push((row.address(), path, row.line().map_or(0, |l| l.get()), col));
        }
    }
    rows
}

#[test]
fn line_tables_map_bundles_to_source_lines_after_linking() {
    line_tables_after_linking("off");
}

/// With several operations per bundle, a bundle's row is the location of its first
/// operation that has one.
#[test]
fn line_tables_of_list_scheduled_bundles() {
    line_tables_after_linking("list");
}

fn line_tables_after_linking(sched: &str) {
    let module = parse_module(MODULE).unwrap();
    let mut options = Options::default();
    options.set("debug-info", "on").unwrap();
    options.set("sched", sched).unwrap();
    let obj = compile_module(&common::exported(&module), &options).unwrap();
    for name in [".debug_line", ".debug_info", ".debug_abbrev"] {
        assert!(obj.section_by_name(name).is_some(), "{name} missing");
    }
    let bytes = write_object(&obj);
    let back = vliw_elf::read_object(&bytes, "m.o").unwrap();
    vliw_asm::disassemble_object(
        &back,
        &vliw_asm::DisasmOptions {
            relocs: true,
            ..Default::default()
        },
    );

    let exe = common::link_with_driver(
        std::slice::from_ref(&bytes),
        "square_plus",
        &[DataValue::I64(6), DataValue::I64(4)],
        &[Type::I64],
    )
    .unwrap();
    let rows = read_rows(&exe);
    assert!(!rows.is_empty());
    let func = |name: &str| {
        let s = exe
            .symbol(name)
            .unwrap_or_else(|| panic!("no symbol {name}"));
        (s.addr, s.addr + s.size)
    };
    let (sp, sp_end) = func("square_plus");
    let (hp, hp_end) = func("helper");
    let mut lines: BTreeMap<String, Vec<(u64, u64)>> = BTreeMap::new();
    for (addr, file, line, col) in &rows {
        let in_sp = (sp..sp_end).contains(addr);
        let in_hp = (hp..hp_end).contains(addr);
        assert!(in_sp || in_hp, "row at {addr:#x} outside the functions");
        assert_eq!(addr % 8, 0);
        if in_hp {
            assert_eq!(file, "src/helper.rs");
        }
        lines.entry(file.clone()).or_default().push((*line, *col));
    }
    assert_eq!(
        rows.iter().find(|r| r.0 >= hp).map(|r| (r.2, r.3)),
        Some((3, 8)),
        "the first located bundle of helper: {rows:?}"
    );
    let main = &lines["src/main.rs"];
    for want in [(10, 5), (11, 7), (12, 1)] {
        assert!(main.contains(&want), "{want:?} not in {main:?}");
    }
    assert!(lines["/lib/core/ops.rs"].contains(&(200, 9)), "{lines:?}");
    assert!(
        exe.symbol("no_locations").is_none(),
        "unused: dropped by --gc-sections, its rows with it"
    );

    // the program still runs
    match common::run_on_machine(
        &[bytes],
        "square_plus",
        &[DataValue::I64(6), DataValue::I64(4)],
        &[Type::I64],
    ) {
        common::MachineResult::Values(v, _) => assert_eq!(v, vec![DataValue::I64(43)]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn no_line_tables_unless_asked_or_without_locations() {
    let module = parse_module(MODULE).unwrap();
    let obj = compile_module(&module, &Options::default()).unwrap();
    assert!(obj.sections.iter().all(|s| !s.name.starts_with(".debug")));
    // odd file names (empty, with a NUL) do not break the writer
    let odd = parse_module("function @g() export {\n    file0 = \"\"\n    file1 = \"a\\0b/c.rs\"\nblock0:\n    [0:1:1] v0 = iconst.i64 1\n    [1:2:2] return\n}\n").unwrap();
    let obj = compile_module(&odd, &Options::parse("debug-info=on").unwrap()).unwrap();
    assert!(obj.section_by_name(".debug_line").is_some());
    let bare = parse_module("function @f() export {\nblock0:\n    return\n}\n").unwrap();
    let options = Options::parse("debug-info=on").unwrap();
    let obj = compile_module(&bare, &options).unwrap();
    assert!(obj.sections.iter().all(|s| !s.name.starts_with(".debug")));
}
