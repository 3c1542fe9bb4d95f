//! The text form: printing. `parser.rs` reads it back; print → parse → print is the
//! identity. The grammar is in `docs/ir.md`.

use crate::entities::{Block, Inst, Value};
use crate::function::{Function, InlineHint, Linkage, ParamAttrs, Signature, SourceLoc};
use crate::instructions::{BlockCall, InstructionData, MemFlags, Opcode};
use crate::module::{DataKind, DataObject, Module};
use crate::types::Type;
use core::fmt::{self, Write};

/// Whether a symbol name can be printed without quotes.
pub fn is_plain_symbol(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$'))
}

/// `@name`, or `@"name"` with escapes when it has other characters.
pub fn write_symbol(w: &mut dyn Write, name: &str) -> fmt::Result {
    if is_plain_symbol(name) {
        write!(w, "@{name}")
    } else {
        w.write_char('@')?;
        write_string(w, name.as_bytes())
    }
}

/// A string literal: printable ASCII as is, `\n \t \0 \" \\`, others as `\xNN`.
pub fn write_string(w: &mut dyn Write, bytes: &[u8]) -> fmt::Result {
    w.write_char('"')?;
    for &c in bytes {
        match c {
            b'"' => w.write_str("\\\"")?,
            b'\\' => w.write_str("\\\\")?,
            b'\n' => w.write_str("\\n")?,
            b'\t' => w.write_str("\\t")?,
            0 => w.write_str("\\0")?,
            0x20..=0x7e => w.write_char(c as char)?,
            _ => write!(w, "\\x{c:02x}")?,
        }
    }
    w.write_char('"')
}

/// `(i32, ptr, ...) -> i64, i64` (no arrow when there are no returns).
pub fn write_signature(w: &mut dyn Write, sig: &Signature) -> fmt::Result {
    write_signature_with(w, sig, &[])
}

/// A signature with the parameters' attributes after their types (`ptr noalias
/// readonly`): a function's own signature.
pub fn write_signature_with(
    w: &mut dyn Write,
    sig: &Signature,
    attrs: &[ParamAttrs],
) -> fmt::Result {
    w.write_char('(')?;
    for (i, t) in sig.params.iter().enumerate() {
        if i > 0 {
            w.write_str(", ")?;
        }
        write!(w, "{t}")?;
        let a = attrs.get(i).copied().unwrap_or_default();
        if a.noalias {
            w.write_str(" noalias")?;
        }
        if a.readonly {
            w.write_str(" readonly")?;
        }
    }
    if sig.variadic {
        if !sig.params.is_empty() {
            w.write_str(", ")?;
        }
        w.write_str("...")?;
    }
    w.write_char(')')?;
    if !sig.returns.is_empty() {
        w.write_str(" -> ")?;
        for (i, t) in sig.returns.iter().enumerate() {
            if i > 0 {
                w.write_str(", ")?;
            }
            write!(w, "{t}")?;
        }
    }
    Ok(())
}

/// An integer of type `ty` held in the low bits of `bits`, in signed decimal (`i1`: 0 or 1).
pub fn format_int(ty: Type, bits: u128) -> String {
    let bits = bits & ty.mask();
    if ty == Type::I1 || ty.bits() == 128 && bits <= i128::MAX as u128 {
        return bits.to_string();
    }
    let shift = 128 - ty.bits();
    (((bits << shift) as i128) >> shift).to_string()
}

/// A float constant: Rust's shortest round-trip decimal (`1.0`, `-0.0`, `inf`), or the
/// bit pattern in hex for NaNs.
pub fn format_f32(bits: u32) -> String {
    let x = f32::from_bits(bits);
    if x.is_nan() {
        format!("0x{bits:08x}")
    } else {
        format!("{x:?}")
    }
}

pub fn format_f64(bits: u64) -> String {
    let x = f64::from_bits(bits);
    if x.is_nan() {
        format!("0x{bits:016x}")
    } else {
        format!("{x:?}")
    }
}

/// A byte offset after an address: `+8`, `-4`, nothing for 0.
pub fn write_offset(w: &mut dyn Write, offset: i64) -> fmt::Result {
    if offset > 0 {
        write!(w, "+{offset}")
    } else if offset < 0 {
        write!(w, "{offset}")
    } else {
        Ok(())
    }
}

/// Memory flags, each with a leading space: ` volatile`, ` speculative`, ` align 4`
/// (when not 1), ` scope 1 2` (group, class).
pub fn write_flags(w: &mut dyn Write, flags: MemFlags) -> fmt::Result {
    if flags.volatile {
        w.write_str(" volatile")?;
    }
    if flags.speculative {
        w.write_str(" speculative")?;
    }
    if flags.align != 1 {
        write!(w, " align {}", flags.align)?;
    }
    if let Some(s) = flags.scope {
        write!(w, " scope {} {}", s.group, s.class)?;
    }
    Ok(())
}

fn write_values(w: &mut dyn Write, vals: &[Value]) -> fmt::Result {
    for (i, v) in vals.iter().enumerate() {
        if i > 0 {
            w.write_str(", ")?;
        }
        write!(w, "{v}")?;
    }
    Ok(())
}

fn write_block_call(w: &mut dyn Write, bc: &BlockCall) -> fmt::Result {
    write!(w, "{}", bc.block)?;
    if !bc.args.is_empty() {
        w.write_char('(')?;
        write_values(w, &bc.args)?;
        w.write_char(')')?;
    }
    Ok(())
}

fn value_type_of(func: &Function, v: Value) -> Option<Type> {
    func.dfg.value_is_valid(v).then(|| func.dfg.value_type(v))
}

/// One instruction, without indentation or newline: `v2 = iadd v0, v1`. Works on
/// malformed functions too (for diagnostics).
pub fn write_inst(w: &mut dyn Write, func: &Function, inst: Inst) -> fmt::Result {
    let dfg = &func.dfg;
    let results = dfg.inst_results(inst);
    if !results.is_empty() {
        write_values(w, results)?;
        w.write_str(" = ")?;
    }
    let data = dfg.inst_data(inst);
    let opcode = data.opcode();
    w.write_str(opcode.name())?;
    let result_ty = results.first().and_then(|&r| value_type_of(func, r));
    if opcode.has_type_suffix() {
        match result_ty {
            Some(t) => write!(w, ".{t}")?,
            None => w.write_str(".?")?,
        }
    }
    use InstructionData::*;
    match data {
        Nullary { .. } => Ok(()),
        UnaryImm { imm, .. } => match opcode {
            Opcode::F32const => write!(w, " {}", format_f32(*imm as u32)),
            Opcode::F64const => write!(w, " {}", format_f64(*imm as u64)),
            _ => match result_ty {
                Some(t) => write!(w, " {}", format_int(t, *imm)),
                None => write!(w, " {imm}"),
            },
        },
        Unary { arg, .. } => write!(w, " {arg}"),
        Binary { args, .. } => write!(w, " {}, {}", args[0], args[1]),
        Ternary { args, .. } => write!(w, " {}, {}, {}", args[0], args[1], args[2]),
        IntCompare { cond, args, .. } => write!(w, " {cond} {}, {}", args[0], args[1]),
        FloatCompare { cond, args, .. } => write!(w, " {cond} {}, {}", args[0], args[1]),
        SymbolAddr { global, offset, .. } => {
            write!(w, " {global}")?;
            write_offset(w, *offset)
        }
        StackAddr { slot, offset, .. } => {
            write!(w, " {slot}")?;
            write_offset(w, *offset)
        }
        Load {
            flags, arg, offset, ..
        } => {
            write_flags(w, *flags)?;
            write!(w, " {arg}")?;
            write_offset(w, *offset as i64)
        }
        Store {
            flags,
            args,
            offset,
            ..
        } => {
            write_flags(w, *flags)?;
            write!(w, " {}, {}", args[0], args[1])?;
            write_offset(w, *offset as i64)
        }
        AtomicRmw {
            flags, op, args, ..
        } => {
            write!(w, " {op}")?;
            write_flags(w, *flags)?;
            write!(w, " {}, {}", args[0], args[1])
        }
        AtomicCas { flags, args, .. } => {
            write_flags(w, *flags)?;
            write!(w, " {}, {}, {}", args[0], args[1], args[2])
        }
        Call { func: f, args, .. } => {
            write!(w, " {f}(")?;
            write_values(w, args)?;
            w.write_char(')')
        }
        CallIndirect { sig, args, .. } => {
            write!(w, " {sig}, ")?;
            match args.split_first() {
                Some((callee, rest)) => {
                    write!(w, "{callee}(")?;
                    write_values(w, rest)?;
                    w.write_char(')')
                }
                None => w.write_str("?()"),
            }
        }
        Invoke {
            func: f,
            args,
            blocks,
            ..
        } => {
            write!(w, " {f}(")?;
            write_values(w, args)?;
            w.write_str("), ")?;
            write_block_call(w, &blocks[0])?;
            w.write_str(", ")?;
            write_block_call(w, &blocks[1])
        }
        InvokeIndirect {
            sig, args, blocks, ..
        } => {
            write!(w, " {sig}, ")?;
            match args.split_first() {
                Some((callee, rest)) => {
                    write!(w, "{callee}(")?;
                    write_values(w, rest)?;
                    w.write_char(')')?;
                }
                None => w.write_str("?()")?,
            }
            w.write_str(", ")?;
            write_block_call(w, &blocks[0])?;
            w.write_str(", ")?;
            write_block_call(w, &blocks[1])
        }
        Jump { dest, .. } => {
            w.write_char(' ')?;
            write_block_call(w, dest)
        }
        Brif { arg, blocks, .. } => {
            write!(w, " {arg}, ")?;
            write_block_call(w, &blocks[0])?;
            w.write_str(", ")?;
            write_block_call(w, &blocks[1])
        }
        Switch { arg, table, .. } => {
            write!(w, " {arg}, ")?;
            match table.dests.first() {
                Some(d) => write_block_call(w, d)?,
                None => w.write_char('?')?,
            }
            w.write_str(", [")?;
            let ty = value_type_of(func, *arg);
            for (i, (val, dest)) in table
                .values
                .iter()
                .zip(table.dests.iter().skip(1))
                .enumerate()
            {
                if i > 0 {
                    w.write_str(", ")?;
                }
                match ty {
                    Some(t) if t.is_int() => write!(w, "{}", format_int(t, *val))?,
                    _ => write!(w, "{val}")?,
                }
                w.write_str(" -> ")?;
                write_block_call(w, dest)?;
            }
            w.write_char(']')
        }
        Return { args, .. } => {
            if !args.is_empty() {
                w.write_char(' ')?;
                write_values(w, args)?;
            }
            Ok(())
        }
        Trap { code, .. } => write!(w, " {code}"),
    }
}

/// A block header: `block1(v3: i32, v4: ptr):`.
pub fn write_block_header(w: &mut dyn Write, func: &Function, block: Block) -> fmt::Result {
    write!(w, "{block}")?;
    let params = func.dfg.block_params(block);
    if !params.is_empty() {
        w.write_char('(')?;
        for (i, &p) in params.iter().enumerate() {
            if i > 0 {
                w.write_str(", ")?;
            }
            match value_type_of(func, p) {
                Some(t) => write!(w, "{p}: {t}")?,
                None => write!(w, "{p}: ?")?,
            }
        }
        w.write_char(')')?;
    }
    w.write_char(':')
}

/// A whole function definition, ending with a newline.
pub fn write_function(w: &mut dyn Write, func: &Function) -> fmt::Result {
    write_function_shell(w, "function", func)?;
    for block in func.layout.blocks() {
        write_block_header(w, func, block)?;
        w.write_char('\n')?;
        for inst in func.layout.block_insts(block) {
            w.write_str("    ")?;
            write_source_loc(w, func.srclocs[inst])?;
            write_inst(w, func, inst)?;
            w.write_char('\n')?;
        }
    }
    w.write_str("}\n")
}

/// The part of a function before its body, which other text forms share (the RVSDG's
/// λ): `keyword @name(sig) [linkage] [inline] [cold] [personality @sym] {`, a newline, and the declarations (stack slots,
/// signatures, callees, symbols, files), one per line.
pub fn write_function_shell(w: &mut dyn Write, keyword: &str, func: &Function) -> fmt::Result {
    write!(w, "{keyword} ")?;
    write_symbol(w, &func.name)?;
    write_signature_with(w, &func.signature, &func.param_attrs)?;
    if func.linkage != Linkage::Local {
        write!(w, " {}", func.linkage)?;
    }
    if func.inline != InlineHint::Default {
        write!(w, " {}", func.inline)?;
    }
    if func.cold {
        w.write_str(" cold")?;
    }
    if let Some(p) = &func.personality {
        w.write_str(" personality ")?;
        write_symbol(w, p)?;
    }
    w.write_str(" {\n")?;
    for (ss, data) in func.stack_slots.iter() {
        writeln!(
            w,
            "    {ss} = stack_slot {}, align {}",
            data.size, data.align
        )?;
    }
    for (sig, data) in func.signatures.iter() {
        write!(w, "    {sig} = ")?;
        write_signature(w, data)?;
        w.write_char('\n')?;
    }
    for (f, data) in func.ext_funcs.iter() {
        write!(w, "    {f} = ")?;
        write_symbol(w, &data.name)?;
        write_signature(w, &data.signature)?;
        if data.nounwind {
            w.write_str(" nounwind")?;
        }
        w.write_char('\n')?;
    }
    for (gv, name) in func.globals.iter() {
        write!(w, "    {gv} = symbol ")?;
        write_symbol(w, name)?;
        w.write_char('\n')?;
    }
    for (i, name) in func.files.iter().enumerate() {
        write!(w, "    file{i} = ")?;
        write_string(w, name.as_bytes())?;
        w.write_char('\n')?;
    }
    Ok(())
}

/// A source location prefix `[file:line:col] `, nothing for the default.
pub fn write_source_loc(w: &mut dyn Write, loc: SourceLoc) -> fmt::Result {
    if loc.is_default() {
        Ok(())
    } else {
        write!(w, "[{}:{}:{}] ", loc.file, loc.line, loc.col)
    }
}

/// A data object definition line (with newline).
pub fn write_data(w: &mut dyn Write, data: &DataObject) -> fmt::Result {
    w.write_str("data ")?;
    write_symbol(w, &data.name)?;
    write!(w, ": {} align {}", data.kind.name(), data.align)?;
    if data.thread_local {
        w.write_str(" thread_local")?;
    }
    if data.linkage != Linkage::Local {
        write!(w, " {}", data.linkage)?;
    }
    w.write_str(" = ")?;
    if data.kind == DataKind::Bss && data.relocs.is_empty() && data.bytes.iter().all(|&b| b == 0) {
        return writeln!(w, "zero {}", data.bytes.len());
    }
    // Elements: runs of bytes as strings, runs of 8 or more zero bytes as `zero N`,
    // relocations as `ptr @sym+addend`.
    let mut elems: Vec<String> = Vec::new();
    let mut pos = 0usize;
    let mut relocs = data.relocs.iter().peekable();
    let len = data.bytes.len();
    while pos < len || relocs.peek().is_some() {
        let next_reloc = relocs
            .peek()
            .map(|r| r.offset as usize)
            .unwrap_or(len)
            .min(len);
        if pos >= next_reloc {
            if let Some(r) = relocs.next() {
                let mut s = String::from("ptr ");
                write_symbol(&mut s, &r.symbol)?;
                write_offset(&mut s, r.addend)?;
                elems.push(s);
                pos = (r.offset as usize).saturating_add(8);
                continue;
            }
            break;
        }
        let seg = &data.bytes[pos..next_reloc];
        let mut i = 0;
        while i < seg.len() {
            let zeros = seg[i..].iter().take_while(|&&b| b == 0).count();
            if zeros >= 8 {
                elems.push(format!("zero {zeros}"));
                i += zeros;
                continue;
            }
            // a string up to the next run of 8 zeros
            let mut j = i;
            while j < seg.len() {
                let z = seg[j..].iter().take_while(|&&b| b == 0).count();
                if z >= 8 {
                    break;
                }
                j += z.max(1);
            }
            let mut s = String::new();
            write_string(&mut s, &seg[i..j])?;
            elems.push(s);
            i = j;
        }
        pos = next_reloc;
    }
    if elems.len() == 1 {
        writeln!(w, "{}", elems[0])
    } else if elems.is_empty() {
        writeln!(w, "\"\"")
    } else {
        writeln!(w, "{{ {} }}", elems.join(", "))
    }
}

/// A whole module: declarations, data, then functions (each preceded by a blank line).
pub fn write_module(w: &mut dyn Write, module: &Module) -> fmt::Result {
    for d in &module.func_decls {
        w.write_str("declare function ")?;
        write_symbol(w, &d.name)?;
        write_signature(w, &d.signature)?;
        w.write_char('\n')?;
    }
    for d in &module.data_decls {
        w.write_str("declare data ")?;
        write_symbol(w, d)?;
        w.write_char('\n')?;
    }
    for d in &module.data {
        write_data(w, d)?;
    }
    for (i, f) in module.functions.iter().enumerate() {
        if i > 0
            || !module.func_decls.is_empty()
            || !module.data_decls.is_empty()
            || !module.data.is_empty()
        {
            w.write_char('\n')?;
        }
        write_function(w, f)?;
    }
    Ok(())
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_function(f, self)
    }
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_module(f, self)
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_signature(f, self)
    }
}

impl Function {
    /// One instruction in text form (`v2 = iadd v0, v1`).
    pub fn display_inst(&self, inst: Inst) -> String {
        let mut s = String::new();
        let _ = write_inst(&mut s, self, inst);
        s
    }
}
