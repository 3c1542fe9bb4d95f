//! Graphviz for the graph-shaped IRs (`dump-format=dot`): the control-flow graph of
//! the SSA IR and of machine code, one record-shaped node per block listing its
//! instructions (bundles, once there are bundles), an edge per branch target and per
//! fall-through.

use std::fmt::Write;

use vliw_ir::{ControlFlowGraph, Function};
use vliw_machine::{MachFunction, RegClass, VReg};

/// Escapes a line for a Graphviz label, left-justified (`\l`).
fn label_line(s: &mut String, line: &str) {
    for c in line.chars() {
        match c {
            '"' | '\\' | '{' | '}' | '<' | '>' | '|' => {
                s.push('\\');
                s.push(c);
            }
            _ => s.push(c),
        }
    }
    s.push_str("\\l");
}

fn header(s: &mut String, point: &str, name: &str) {
    let mut title = String::new();
    label_line(&mut title, &format!("{point} @{name}"));
    let _ = writeln!(s, "digraph \"{point} @{name}\" {{");
    let _ = writeln!(s, "    label=\"{title}\"; labelloc=t;");
    let _ = writeln!(
        s,
        "    node [shape=record, fontname=monospace, fontsize=10];"
    );
}

/// The CFG of an SSA IR function.
pub fn ir_cfg(s: &mut String, func: &Function, point: &str) {
    header(s, point, &func.name);
    let cfg = ControlFlowGraph::compute(func);
    for block in func.layout.blocks() {
        let mut label = String::new();
        let mut head = String::new();
        let _ = vliw_ir::write::write_block_header(&mut head, func, block);
        label_line(&mut label, head.trim_end());
        label.push('|');
        for inst in func.layout.block_insts(block) {
            let mut line = String::new();
            let _ = vliw_ir::write::write_inst(&mut line, func, inst);
            label_line(&mut label, line.trim());
        }
        let _ = writeln!(s, "    {block} [label=\"{{{label}}}\"];");
        for succ in cfg.succs(block) {
            let _ = writeln!(s, "    {block} -> {succ};");
        }
    }
    s.push_str("}\n");
}

/// A virtual register as the machine IR's text form names it (`v3`, or `pv3` for a
/// predicate).
fn vreg_name(mf: &MachFunction, v: VReg) -> String {
    let n = cranelift_entity::EntityRef::index(v);
    match mf.vregs[v] {
        RegClass::Pred => format!("pv{n}"),
        RegClass::Gpr => format!("v{n}"),
    }
}

/// The CFG of a machine function; with `bundles`, one line per bundle.
pub fn machine_cfg(s: &mut String, mf: &MachFunction, point: &str) {
    header(s, point, &mf.name);
    for (k, &block) in mf.layout.iter().enumerate() {
        let data = &mf.blocks[block];
        let mut label = String::new();
        let params: Vec<String> = data.params.iter().map(|&p| vreg_name(mf, p)).collect();
        if params.is_empty() {
            label_line(&mut label, &format!("{block}:"));
        } else {
            label_line(&mut label, &format!("{block}({}):", params.join(", ")));
        }
        label.push('|');
        match &mf.bundles {
            Some(bundles) => {
                for bundle in bundles.block(block) {
                    let ops: Vec<String> = bundle
                        .iter()
                        .map(|&i| mf.display_inst(mf.inst(i)))
                        .collect();
                    label_line(&mut label, &format!("{} ;;", ops.join(" ; ")));
                }
            }
            None => {
                for inst in mf.block_insts(block) {
                    label_line(&mut label, &mf.display_inst(inst));
                }
            }
        }
        let _ = writeln!(s, "    {block} [label=\"{{{label}}}\"];");
        let mut targets = Vec::new();
        for inst in mf.block_insts(block) {
            for t in inst.branch_targets(mf) {
                if !targets.contains(&t) {
                    targets.push(t);
                }
            }
        }
        for t in &targets {
            let _ = writeln!(s, "    {block} -> {t};");
        }
        let falls_through = !mf
            .last_inst(block)
            .is_some_and(|i| i.is_unconditional_exit());
        if falls_through && let Some(next) = mf.layout.get(k + 1) {
            let _ = writeln!(s, "    {block} -> {next} [style=dashed];");
        }
    }
    s.push_str("}\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_escape_record_syntax() {
        let mut s = String::new();
        label_line(&mut s, "v1 = load {a|b} \"x\" <y>");
        assert_eq!(s, "v1 = load \\{a\\|b\\} \\\"x\\\" \\<y\\>\\l");
    }

    #[test]
    fn an_ir_cfg_has_a_node_per_block_and_an_edge_per_successor() {
        let m = vliw_ir::parse_module(
            "function @f(i64) -> i64 {\nblock0(v0: i64):\n    brif v0, block1, block2\n\
             block1:\n    return v0\nblock2:\n    v1 = iconst.i64 1\n    return v1\n}\n",
        )
        .unwrap();
        let mut s = String::new();
        ir_cfg(&mut s, &m.functions[0], "after:dce");
        assert!(s.starts_with("digraph \"after:dce @f\" {"), "{s}");
        assert!(
            s.contains("block0 -> block1;") && s.contains("block0 -> block2;"),
            "{s}"
        );
        assert!(
            s.contains("block2 [label=\"{block2:\\l|v1 = iconst.i64 1\\lreturn v1\\l}\"];"),
            "{s}"
        );
        assert!(s.trim_end().ends_with('}'));
    }
}

/// The Predicate Partition Graphs of `mf` (`dump=after:ppg`): Graphviz, one cluster
/// per level of the loop forest; as text, the same graph in `;` comments, or why there
/// is none.
pub fn ppg(s: &mut String, mf: &MachFunction, point: &str, format: crate::DumpFormat) {
    let comment = if format == crate::DumpFormat::Dot { "//" } else { ";" };
    match vliw_machine::ifconv::ppg::function_ppg(mf) {
        Ok(forest) if format == crate::DumpFormat::Dot => {
            let _ = writeln!(s, "// dump={point} function={}", mf.name);
            s.push_str(&forest.to_dot());
        }
        Ok(forest) => {
            let _ = writeln!(s, "{comment} dump={point} function={}", mf.name);
            for line in forest.to_dot().lines() {
                let _ = writeln!(s, "{comment} {line}");
            }
        }
        Err(e) => {
            let _ = writeln!(s, "{comment} dump={point} function={}: no PPG: {e}", mf.name);
        }
    }
}
