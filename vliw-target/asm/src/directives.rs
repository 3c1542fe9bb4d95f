//! Directives: sections, symbols, alignment, data, `.set`, `.reloc`, the call-frame
//! directives (`cfi.rs`), and the debugging directives that are accepted and ignored.

use crate::assemble::{Assembler, FixTarget, Fixup, FixupKind, RawReloc};
use crate::error::Pos;
use crate::expr::{Base, Expr, Tok, Token, Value, eval, parse_expr, split_args, tokenize};
use crate::sections::{MAX_SECTION_SIZE, kind_from_flags, kind_from_name};
use crate::strings::unescape;
use crate::symbols::{Declared, SymDef};
use vliw_elf::{SectionKind, SymbolKind};
use vliw_isa::{NOP_BUNDLE, RelocKind};

/// Largest alignment `.p2align`/`.balign` accept: 2^30.
const MAX_ALIGN_LOG2: u64 = 30;

/// A directive's error: column and message.
type DResult<T> = Result<T, (usize, String)>;

impl Assembler<'_> {
    pub(crate) fn directive(&mut self, name: &str, args: &str, pos: Pos, args_col: usize) {
        if let Err((col, message)) = self.directive_inner(name, args, pos, args_col) {
            self.diag.error(Pos::new(pos.line, col), message);
        }
    }

    fn directive_inner(
        &mut self,
        name: &str,
        args: &str,
        pos: Pos,
        args_col: usize,
    ) -> DResult<()> {
        // Accepted and ignored: debugging information and tool identification.
        if matches!(name, ".file" | ".loc" | ".ident") {
            return Ok(());
        }
        let tokens = tokenize(args, args_col)?;
        let end_col = args_col + args.chars().count();
        let list = split_args(&tokens);
        if name.starts_with(".cfi_") {
            return self.cfi_directive(name, &list, pos, args_col, end_col);
        }
        match name {
            ".text" | ".data" | ".rodata" | ".bss" => {
                no_args(&list, name)?;
                self.close_bundle_before(&format!("`{name}`"), pos);
                let s = self.section_named(name, kind_from_name(name), false);
                self.current = Some(s);
            }
            ".section" => self.section_directive(&list, pos, args_col)?,
            ".globl" | ".global" => self.declare(&list, Some(Declared::Global), pos, args_col)?,
            ".weak" => self.declare(&list, Some(Declared::Weak), pos, args_col)?,
            ".local" => self.declare(&list, Some(Declared::Local), pos, args_col)?,
            ".hidden" => self.declare(&list, None, pos, args_col)?,
            ".type" => self.type_directive(&list, pos, args_col)?,
            ".size" => {
                let [sym, expr] = exactly::<2>(&list, name, args_col)?;
                let sym_name = symbol_arg(sym, args_col)?;
                let expr = parse_expr(expr, end_col)?;
                let here = self.here_for(&expr);
                self.symbols.entry(&sym_name, pos).size = Some((expr, here, pos));
            }
            ".p2align" | ".balign" | ".align" => {
                self.align_directive(name, &list, pos, args_col, end_col)?
            }
            ".byte" => self.data(name, &list, 1, pos, args_col, end_col)?,
            ".short" | ".half" | ".2byte" => self.data(name, &list, 2, pos, args_col, end_col)?,
            ".word" | ".long" | ".4byte" => self.data(name, &list, 4, pos, args_col, end_col)?,
            ".quad" | ".dword" | ".8byte" => self.data(name, &list, 8, pos, args_col, end_col)?,
            ".ascii" | ".asciz" | ".string" => self.strings(name, &list, pos, args_col)?,
            ".zero" | ".space" | ".skip" => self.zero(name, &list, pos, args_col, end_col)?,
            ".set" | ".equ" => {
                let [sym, expr] = exactly::<2>(&list, name, args_col)?;
                let sym_name = symbol_arg(sym, args_col)?;
                let expr = parse_expr(expr, end_col)?;
                self.set(&sym_name, expr, pos, sym[0].col)?;
            }
            ".reloc" => self.reloc_directive(&list, pos, args_col, end_col)?,
            _ => return Err((pos.col, format!("unknown directive `{name}`"))),
        }
        Ok(())
    }

    /// The location counter: current section and offset.
    fn here(&mut self) -> (usize, u64) {
        let s = self.current_section();
        (s, self.sections[s].offset())
    }

    /// The location counter for evaluating `expr`, without selecting `.text` when no
    /// section is selected yet and `expr` does not use `.` (declarations before the
    /// first section must not create one).
    fn here_for(&mut self, expr: &Expr) -> (usize, u64) {
        match self.current {
            None if !expr.uses_here() => (0, 0),
            _ => self.here(),
        }
    }

    /// Evaluates with what is known now; `Ok(None)` if it needs later symbols.
    fn early_eval(&mut self, expr: &Expr, here: (usize, u64)) -> Result<Option<Value>, String> {
        let symbols = &self.symbols;
        let mut undefined = false;
        let value = eval(expr, here, &mut |name| {
            let v = symbols.early_value(name);
            undefined |= v.is_none();
            v
        });
        match value {
            Ok(v) => Ok(Some(v)),
            Err(_) if undefined => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// An expression that must be a constant now (sizes, alignments, counts).
    pub(crate) fn absolute_now(
        &mut self,
        tokens: &[Token],
        end_col: usize,
        what: &str,
    ) -> DResult<i64> {
        let col = tokens.first().map_or(end_col, |t| t.col);
        let expr = parse_expr(tokens, end_col)?;
        let here = self.here();
        match self.early_eval(&expr, here).map_err(|e| (col, e))? {
            Some(v) if v.is_absolute() => Ok(v.constant),
            Some(_) => Err((col, format!("{what} must be a constant, not an address"))),
            None => {
                let mut names = Vec::new();
                expr.symbols(&mut names);
                let missing = names
                    .into_iter()
                    .find(|n| self.symbols.early_value(n).is_none())
                    .unwrap_or("?");
                Err((
                    col,
                    format!(
                        "{what} must be a constant known here (`{missing}` is not defined before this line)"
                    ),
                ))
            }
        }
    }

    fn section_directive(&mut self, list: &[&[Token]], pos: Pos, args_col: usize) -> DResult<()> {
        let Some(first) = list.first() else {
            return Err((args_col, "`.section` needs a section name".to_string()));
        };
        let name = match first {
            [
                Token {
                    tok: Tok::Ident(n) | Tok::Quoted(n),
                    ..
                },
            ] => n.clone(),
            _ => {
                return Err((
                    first.first().map_or(args_col, |t| t.col),
                    "expected a section name".to_string(),
                ));
            }
        };
        let mut flags = None;
        let mut section_type = None;
        for arg in &list[1..] {
            match arg {
                [
                    Token {
                        tok: Tok::Quoted(f),
                        ..
                    },
                ] if flags.is_none() && section_type.is_none() => flags = Some(f.clone()),
                [
                    Token {
                        tok: Tok::Punct('@' | '%'),
                        ..
                    },
                    Token {
                        tok: Tok::Ident(t), ..
                    },
                ] if section_type.is_none() => section_type = Some(t.clone()),
                _ => {
                    let col = arg.first().map_or(args_col, |t| t.col);
                    return Err((
                        col,
                        "expected `\"FLAGS\"` or `@TYPE` after the section name".to_string(),
                    ));
                }
            }
        }
        let (kind, retain) = kind_from_flags(&name, flags.as_deref(), section_type.as_deref())
            .map_err(|e| (args_col, e))?;
        self.close_bundle_before("`.section`", pos);
        if let Some(existing) = self.symbols.section_index(&name) {
            let s = &self.sections[existing];
            if (flags.is_some() || section_type.is_some()) && (s.kind != kind || s.retain != retain)
            {
                return Err((
                    args_col,
                    format!("section `{name}` was already declared with different flags or type"),
                ));
            }
            self.current = Some(existing);
        } else {
            let s = self.section_named(&name, kind, retain);
            self.current = Some(s);
        }
        Ok(())
    }

    fn declare(
        &mut self,
        list: &[&[Token]],
        binding: Option<Declared>,
        pos: Pos,
        args_col: usize,
    ) -> DResult<()> {
        if list.is_empty() {
            return Err((args_col, "expected a symbol name".to_string()));
        }
        for arg in list {
            let name = symbol_arg(arg, args_col)?;
            let sym = self.symbols.entry(&name, pos);
            if binding.is_some() {
                sym.declared = binding;
            }
        }
        Ok(())
    }

    fn type_directive(&mut self, list: &[&[Token]], pos: Pos, args_col: usize) -> DResult<()> {
        let [sym, ty] = exactly::<2>(list, ".type", args_col)?;
        let name = symbol_arg(sym, args_col)?;
        let type_name = match ty {
            [
                Token {
                    tok: Tok::Punct('@' | '%'),
                    ..
                },
                Token {
                    tok: Tok::Ident(t), ..
                },
            ] => t.clone(),
            [
                Token {
                    tok: Tok::Quoted(t) | Tok::Ident(t),
                    ..
                },
            ] => t.clone(),
            _ => {
                return Err((
                    ty.first().map_or(args_col, |t| t.col),
                    "expected `@function` or `@object`".to_string(),
                ));
            }
        };
        let kind = match type_name.as_str() {
            "function" | "STT_FUNC" => SymbolKind::Func,
            "object" | "STT_OBJECT" => SymbolKind::Object,
            "notype" | "STT_NOTYPE" => SymbolKind::NoType,
            "tls_object" | "STT_TLS" => SymbolKind::Tls,
            other => {
                return Err((
                    ty[0].col,
                    format!(
                        "unsupported symbol type `{other}` (known: @function, @object, @tls_object, @notype)"
                    ),
                ));
            }
        };
        self.symbols.entry(&name, pos).kind = Some(kind);
        Ok(())
    }

    fn align_directive(
        &mut self,
        name: &str,
        list: &[&[Token]],
        pos: Pos,
        args_col: usize,
        end_col: usize,
    ) -> DResult<()> {
        if list.is_empty() || list.len() > 3 {
            return Err((
                args_col,
                format!(
                    "`{name}` takes an alignment, an optional fill value and an optional maximum"
                ),
            ));
        }
        let n = self.absolute_now(list[0], end_col, "the alignment")?;
        let align = if name == ".p2align" {
            if !(0..=MAX_ALIGN_LOG2 as i64).contains(&n) {
                return Err((
                    args_col,
                    format!("`.p2align {n}`: the power of two must be 0..={MAX_ALIGN_LOG2}"),
                ));
            }
            1u64 << n
        } else {
            if n <= 0 || !(n as u64).is_power_of_two() || n as u64 > 1 << MAX_ALIGN_LOG2 {
                return Err((
                    args_col,
                    format!(
                        "`{name} {n}`: the alignment must be a power of two up to 2^{MAX_ALIGN_LOG2}"
                    ),
                ));
            }
            n as u64
        };
        let fill = match list.get(1) {
            Some(t) if !t.is_empty() => Some(self.absolute_now(t, end_col, "the fill value")?),
            _ => None,
        };
        let max = match list.get(2) {
            Some(t) if !t.is_empty() => {
                Some(self.absolute_now(t, end_col, "the maximum padding")?)
            }
            _ => None,
        };
        self.close_bundle_before(&format!("`{name}`"), pos);
        let s = self.current_section();
        let section = &mut self.sections[s];
        let offset = section.offset();
        let padding = offset.next_multiple_of(align) - offset;
        if max.is_some_and(|m| (padding as i64) > m) {
            return Ok(());
        }
        if offset + padding > MAX_SECTION_SIZE {
            let name = &section.name;
            return Err((
                args_col,
                format!(
                    "section `{name}` would grow past {} MiB",
                    MAX_SECTION_SIZE >> 20
                ),
            ));
        }
        section.align = section.align.max(align);
        if padding == 0 {
            return Ok(());
        }
        match section.kind {
            SectionKind::Text => {
                if fill.is_some() {
                    return Err((
                        args_col,
                        format!("`{name}` in a code section pads with nop bundles: no fill value"),
                    ));
                }
                let zeros = offset.next_multiple_of(8) - offset;
                section.grow(zeros, 0).map_err(|e| (args_col, e))?;
                let words = (padding - zeros) / 8;
                let bytes: Vec<u8> = (0..words).flat_map(|_| NOP_BUNDLE.to_le_bytes()).collect();
                section.push_bytes(&bytes).map_err(|e| (args_col, e))?;
            }
            SectionKind::Bss | SectionKind::TlsBss => {
                if fill.is_some_and(|f| f != 0) {
                    return Err((
                        args_col,
                        "a bss section can only be padded with zeros".to_string(),
                    ));
                }
                section.grow(padding, 0).map_err(|e| (args_col, e))?;
            }
            _ => {
                let fill = fill.unwrap_or(0);
                if !(-128..=255).contains(&fill) {
                    return Err((
                        args_col,
                        format!("fill value {fill} does not fit in a byte"),
                    ));
                }
                section
                    .grow(padding, fill as u8)
                    .map_err(|e| (args_col, e))?;
            }
        }
        Ok(())
    }

    /// Checks that data may be emitted in the current section; returns it.
    fn data_section(&mut self, name: &str, pos: Pos) -> DResult<usize> {
        self.close_bundle_before(&format!("`{name}`"), pos);
        let s = self.current_section();
        let section = &mut self.sections[s];
        if section.kind.is_nobits() {
            return Err((
                pos.col,
                format!(
                    "`{name}` in bss section `{}`, which has no contents (use `.zero`)",
                    section.name
                ),
            ));
        }
        if section.is_code() {
            section.last_data = Some(pos);
        }
        Ok(s)
    }

    fn data(
        &mut self,
        name: &str,
        list: &[&[Token]],
        size: u8,
        pos: Pos,
        args_col: usize,
        end_col: usize,
    ) -> DResult<()> {
        let s = self.data_section(name, pos)?;
        if list.is_empty() {
            return Err((args_col, format!("`{name}` needs at least one value")));
        }
        for arg in list {
            let col = arg.first().map_or(args_col, |t| t.col);
            let expr = parse_expr(arg, end_col)?;
            let offset = self.sections[s].offset();
            let mut names = Vec::new();
            expr.symbols(&mut names);
            for n in names {
                self.symbols.reference(n, Pos::new(pos.line, col));
            }
            let mut bytes = [0u8; 8];
            match self.early_eval(&expr, (s, offset)) {
                Ok(Some(v)) if v.is_absolute() => {
                    check_data_range(v.constant, size).map_err(|e| (col, e))?;
                    bytes = v.constant.to_le_bytes();
                }
                Err(e) => return Err((col, e)),
                _ => self.fixups.push(Fixup {
                    section: s,
                    offset,
                    kind: FixupKind::Data(size),
                    target: FixTarget::Expr(expr),
                    pos: Pos::new(pos.line, col),
                }),
            }
            self.sections[s]
                .push_bytes(&bytes[..size as usize])
                .map_err(|e| (col, e))?;
        }
        Ok(())
    }

    fn strings(&mut self, name: &str, list: &[&[Token]], pos: Pos, args_col: usize) -> DResult<()> {
        let s = self.data_section(name, pos)?;
        if list.is_empty() {
            return Err((args_col, format!("`{name}` needs a string")));
        }
        for arg in list {
            let [
                Token {
                    tok: Tok::Quoted(text),
                    col,
                },
            ] = arg
            else {
                return Err((
                    arg.first().map_or(args_col, |t| t.col),
                    "expected a string in double quotes".to_string(),
                ));
            };
            let mut bytes = unescape(text).map_err(|e| (*col, e))?;
            if name != ".ascii" {
                bytes.push(0);
            }
            self.sections[s].push_bytes(&bytes).map_err(|e| (*col, e))?;
        }
        Ok(())
    }

    fn zero(
        &mut self,
        name: &str,
        list: &[&[Token]],
        pos: Pos,
        args_col: usize,
        end_col: usize,
    ) -> DResult<()> {
        if list.is_empty() || list.len() > 2 {
            return Err((
                args_col,
                format!("`{name}` takes a size and an optional fill byte"),
            ));
        }
        let n = self.absolute_now(list[0], end_col, "the size")?;
        let fill = match list.get(1) {
            Some(t) => self.absolute_now(t, end_col, "the fill value")?,
            None => 0,
        };
        if !(0..=MAX_SECTION_SIZE as i64).contains(&n) {
            return Err((
                args_col,
                format!("`{name} {n}`: the size must be 0..={MAX_SECTION_SIZE}"),
            ));
        }
        if !(-128..=255).contains(&fill) {
            return Err((
                args_col,
                format!("fill value {fill} does not fit in a byte"),
            ));
        }
        self.close_bundle_before(&format!("`{name}`"), pos);
        let s = self.current_section();
        let section = &mut self.sections[s];
        if section.kind.is_nobits() && fill != 0 {
            return Err((args_col, "a bss section can only hold zeros".to_string()));
        }
        if section.is_code() {
            section.last_data = Some(pos);
        }
        section
            .grow(n as u64, fill as u8)
            .map_err(|e| (args_col, e))
    }

    fn set(&mut self, name: &str, expr: Expr, pos: Pos, col: usize) -> DResult<()> {
        if name == "." {
            return Err((
                col,
                "`.set .` (moving the location counter) is not supported; use `.zero`".to_string(),
            ));
        }
        let here = self.here_for(&expr);
        let def = match self.early_eval(&expr, here).map_err(|e| (col, e))? {
            None => SymDef::Deferred { expr, here },
            Some(v) => value_to_def(&v).map_err(|e| (col, e))?,
        };
        let sym = self.symbols.entry(name, pos);
        if sym.is_label {
            return Err((
                col,
                format!(
                    "`{name}` is already defined as a label at line {}",
                    sym.def_pos.line
                ),
            ));
        }
        sym.def = Some(def);
        sym.def_pos = pos;
        Ok(())
    }

    fn reloc_directive(
        &mut self,
        list: &[&[Token]],
        pos: Pos,
        args_col: usize,
        end_col: usize,
    ) -> DResult<()> {
        let [offset, kind, target] = exactly::<3>(list, ".reloc", args_col)?;
        let offset_col = offset.first().map_or(args_col, |t| t.col);
        let s = self.current_section();
        let offset_expr = parse_expr(offset, end_col)?;
        let here = self.here();
        let offset = match self
            .early_eval(&offset_expr, here)
            .map_err(|e| (offset_col, e))?
        {
            Some(v) if v.is_absolute() && v.constant >= 0 => v.constant as u64,
            Some(v) if v.terms == [(Base::Section(s), 1)] && v.constant >= 0 => v.constant as u64,
            _ => {
                return Err((
                    offset_col,
                    "the offset of `.reloc` must be a constant or `.`-relative".to_string(),
                ));
            }
        };
        let kind_col = kind.first().map_or(args_col, |t| t.col);
        let kind = match kind {
            [
                Token {
                    tok: Tok::Ident(n), ..
                },
            ] => RelocKind::from_name(n),
            [
                Token {
                    tok: Tok::Num(n), ..
                },
            ] => u32::try_from(*n).ok().and_then(RelocKind::from_elf),
            _ => None,
        }
        .ok_or((
            kind_col,
            "expected a relocation type (R_VLIW_... or its number)".to_string(),
        ))?;
        let expr = parse_expr(target, end_col)?;
        let mut names = Vec::new();
        expr.symbols(&mut names);
        for n in names {
            self.symbols.reference(n, pos);
        }
        self.raw_relocs.push(RawReloc {
            section: s,
            offset,
            kind,
            expr,
            pos,
        });
        Ok(())
    }
}

/// What `.set NAME, VALUE` defines: a constant or a place in a section.
pub(crate) fn value_to_def(v: &Value) -> Result<SymDef, String> {
    match v.terms.as_slice() {
        [] => Ok(SymDef::Absolute(v.constant)),
        [(Base::Section(section), 1)] if v.constant >= 0 => Ok(SymDef::InSection {
            section: *section,
            offset: v.constant as u64,
        }),
        _ => Err(
            "`.set` needs a constant or an address in a section defined in this file".to_string(),
        ),
    }
}

/// The range a data item of `size` bytes accepts: signed or unsigned.
pub(crate) fn check_data_range(value: i64, size: u8) -> Result<(), String> {
    let ok = match size {
        1 => (-128..=255).contains(&value),
        2 => (-32768..=65535).contains(&value),
        4 => (i32::MIN as i64..=u32::MAX as i64).contains(&value),
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        let name = match size {
            1 => ".byte",
            2 => ".short",
            _ => ".word",
        };
        Err(format!(
            "value {value} is out of range for `{name}` ({size} byte{})",
            if size == 1 { "" } else { "s" }
        ))
    }
}

fn no_args(list: &[&[Token]], name: &str) -> DResult<()> {
    match list.first().and_then(|a| a.first()) {
        Some(t) => Err((
            t.col,
            format!("`{name}` takes no arguments (use `.section` for other sections)"),
        )),
        None => Ok(()),
    }
}

fn exactly<'a, const N: usize>(
    list: &[&'a [Token]],
    name: &str,
    col: usize,
) -> DResult<[&'a [Token]; N]> {
    <[&[Token]; N]>::try_from(list).map_err(|_| {
        (
            col,
            format!(
                "`{name}` takes {N} argument{}, found {}",
                if N == 1 { "" } else { "s" },
                list.len()
            ),
        )
    })
}

fn symbol_arg(arg: &[Token], col: usize) -> DResult<String> {
    match arg {
        [
            Token {
                tok: Tok::Ident(n) | Tok::Quoted(n),
                ..
            },
        ] if n != "." && !n.is_empty() => Ok(n.clone()),
        _ => Err((
            arg.first().map_or(col, |t| t.col),
            "expected a symbol name".to_string(),
        )),
    }
}
