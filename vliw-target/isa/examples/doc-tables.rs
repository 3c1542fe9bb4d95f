//! Rewrites the generated tables of `docs/isa.md` in place.
fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/isa.md");
    let mut doc = std::fs::read_to_string(path).expect("read docs/isa.md");
    for (name, table) in [
        ("opcodes", vliw_isa::doc_tables::opcode_table()),
        ("machine", vliw_isa::doc_tables::machine_table()),
    ] {
        let begin = format!("<!-- BEGIN {name} -->\n");
        let end = format!("<!-- END {name} -->");
        let (Some(b), Some(e)) = (doc.find(&begin), doc.find(&end)) else {
            eprintln!("docs/isa.md lacks the markers for {name}");
            std::process::exit(1);
        };
        doc.replace_range(b + begin.len()..e, &table);
    }
    std::fs::write(path, doc).expect("write docs/isa.md");
}
