//! Markdown tables of the machine description, for `docs/isa.md`. A test in this
//! crate checks that the manual contains exactly what these functions produce, so
//! the manual cannot drift from the table.

use crate::machine::{LatencyClass, MachineConfig, Unit};
use crate::opcode::OPCODES;

/// The opcode table: encoding, mnemonic, format, unit, latency class, semantics.
pub fn opcode_table() -> String {
    let mut out = String::from(
        "| enc | mnemonic | format | unit | latency | semantics |\n|---|---|---|---|---|---|\n",
    );
    for info in OPCODES {
        out.push_str(&format!(
            "| {:#05x} | `{}` | {:?} | {} | {} | {} |\n",
            info.opcode.encoding(),
            info.mnemonic,
            info.format,
            info.unit.name(),
            info.latency.name(),
            info.semantics.replace('|', "\\|")
        ));
    }
    out
}

/// The default machine: units and latencies.
pub fn machine_table() -> String {
    let config = MachineConfig::default();
    let mut out = format!(
        "| parameter | default |\n|---|---|\n| `width` (syllables per bundle) | {} |\n| `branch-penalty` (cycles after a taken control transfer) | {} |\n| `max-nop` (most cycles one `nop N` takes) | {} |\n| `shift-add` (`sh1add`..`sh3add` exist) | {} |\n",
        config.width,
        config.taken_branch_penalty,
        config.max_nop,
        u8::from(config.shift_add)
    );
    for unit in Unit::ALL {
        out.push_str(&format!(
            "| `{}` units | {} |\n",
            unit.name(),
            config.unit_count(unit)
        ));
    }
    for class in LatencyClass::ALL {
        out.push_str(&format!(
            "| `latency.{}` (cycles) | {} |\n",
            class.name(),
            config.latency(class)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text between `<!-- BEGIN name -->` and `<!-- END name -->` in the manual.
    fn section<'a>(doc: &'a str, name: &str) -> Option<&'a str> {
        let begin = format!("<!-- BEGIN {name} -->\n");
        let end = format!("<!-- END {name} -->");
        let start = doc.find(&begin)? + begin.len();
        let stop = doc[start..].find(&end)? + start;
        Some(&doc[start..stop])
    }

    #[test]
    fn manual_tables_match_the_machine_description() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/isa.md");
        let doc = std::fs::read_to_string(path).expect("docs/isa.md exists");
        for (name, generated) in [("opcodes", opcode_table()), ("machine", machine_table())] {
            let found = section(&doc, name)
                .unwrap_or_else(|| panic!("docs/isa.md lacks the {name} markers"));
            assert!(
                found == generated,
                "docs/isa.md's {name} table is stale; regenerate it with\n  cargo run -p vliw-isa --example doc-tables\nexpected:\n{generated}"
            );
        }
    }
}
