//! The assembly text of one operation: parsing and printing.
//!
//! ```text
//! [(pN) | (!pN)] mnemonic[.ctype] operands
//! ```
//! Operand syntax per format is documented on `Format`. Immediates are numbers
//! (decimal, `0x`, `0o`, `0b`, `_` separators), `sym`, `sym+N`, `sym-N`, a quoted
//! `"symbol"`, or `.`, `.+N`, `.-N` (this syllable's address), optionally preceded by
//! `long` to force the two-syllable 64-bit form; `sym@tprel`, `sym@tprel+N` is the
//! offset of a thread-local variable from the thread pointer (`R_VLIW_TPREL32`). The assembler (`vliw-asm`) adds
//! labels, directives and bundles; this module is the part shared with the
//! disassembler, so that what one prints the other reads.

use crate::format::{FieldKind, Format};
use crate::inst::Inst;
use crate::lex::{Tok, Token, is_ident_continue, is_ident_start, tokenize};
use crate::opcode::{CmpType, OPCODES, Opcode};
use crate::reg::{Gpr, Guard, Pred};
use std::fmt;

/// The value of an immediate operand as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImmExpr {
    Num(i64),
    Sym {
        name: String,
        addend: i64,
    },
    /// `.` plus an offset: the address of the syllable holding the operand.
    Here(i64),
    /// `sym@tprel+addend`: the offset of thread-local `sym` (plus `addend`) from the
    /// start of the TLS block, which the thread pointer `tp` holds (`R_VLIW_TPREL32`).
    Tprel {
        name: String,
        addend: i64,
    },
}

/// One parsed operation. `inst.imm` holds the number when `imm` is `Num` or, for
/// pc-relative formats, `Here`; symbolic operands are left to the assembler.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedInst {
    pub inst: Inst,
    pub imm: Option<ImmExpr>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

fn err<T>(message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError(message.into()))
}

/// Parses an integer literal: decimal, `0x`, `0o`, `0b`, with `_` separators.
/// Values up to `u64::MAX` are accepted and reinterpreted as `i64`.
pub fn parse_number(text: &str) -> Option<i64> {
    let clean: String = text.chars().filter(|c| *c != '_').collect();
    let (digits, radix) = if let Some(h) = clean
        .strip_prefix("0x")
        .or_else(|| clean.strip_prefix("0X"))
    {
        (h, 16)
    } else if let Some(b) = clean
        .strip_prefix("0b")
        .or_else(|| clean.strip_prefix("0B"))
    {
        (b, 2)
    } else if let Some(o) = clean
        .strip_prefix("0o")
        .or_else(|| clean.strip_prefix("0O"))
    {
        (o, 8)
    } else {
        (clean.as_str(), 10)
    };
    if digits.is_empty() {
        return None;
    }
    u64::from_str_radix(digits, radix).ok().map(|v| v as i64)
}

struct Cursor<'a> {
    tokens: &'a [Token],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<&'a Tok> {
        self.tokens.get(self.pos).map(|t| &t.tok)
    }
    fn next(&mut self) -> Option<&'a Tok> {
        let t = self.peek();
        self.pos += 1;
        t
    }
    fn describe_next(&self) -> String {
        self.peek()
            .map_or_else(|| "end of line".to_string(), |t| t.to_string())
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: char) -> Result<(), ParseError> {
        if self.eat(c) {
            Ok(())
        } else {
            err(format!("expected `{c}`, found {}", self.describe_next()))
        }
    }
    fn gpr(&mut self) -> Result<Gpr, ParseError> {
        match self.peek() {
            Some(Tok::Ident(name)) if Gpr::parse(name).is_some() => {
                self.pos += 1;
                Ok(Gpr::parse(name).expect("checked"))
            }
            Some(Tok::Ident(name))
                if name.starts_with('r') && name[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                err(format!(
                    "no register `{name}`: general registers are r0..r63"
                ))
            }
            _ => err(format!(
                "expected a general register, found {}",
                self.describe_next()
            )),
        }
    }
    fn pred(&mut self) -> Result<Pred, ParseError> {
        match self.peek() {
            Some(Tok::Ident(name)) if Pred::parse(name).is_some() => {
                self.pos += 1;
                Ok(Pred::parse(name).expect("checked"))
            }
            Some(Tok::Ident(name))
                if name.starts_with('p') && name[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                err(format!("no predicate `{name}`: predicates are p0..p15"))
            }
            _ => err(format!(
                "expected a predicate register, found {}",
                self.describe_next()
            )),
        }
    }
    fn signed_number(&mut self) -> Result<i64, ParseError> {
        let negative = self.eat('-');
        if !negative {
            self.eat('+');
        }
        match self.next() {
            Some(Tok::Num(n)) => Ok(if negative { n.wrapping_neg() } else { *n }),
            _ => {
                self.pos -= 1;
                err(format!("expected a number, found {}", self.describe_next()))
            }
        }
    }
    /// `[long] expr`; returns the expression and whether `long` was written.
    fn imm(&mut self) -> Result<(ImmExpr, bool), ParseError> {
        let long = matches!(self.peek(), Some(Tok::Ident(k)) if k == "long");
        if long {
            self.pos += 1;
        }
        Ok((self.imm_expr()?, long))
    }
    fn imm_expr(&mut self) -> Result<ImmExpr, ParseError> {
        match self.peek() {
            Some(Tok::Num(_)) | Some(Tok::Punct('-')) | Some(Tok::Punct('+')) => {
                Ok(ImmExpr::Num(self.signed_number()?))
            }
            Some(Tok::Ident(name)) if name == "." => {
                self.pos += 1;
                Ok(ImmExpr::Here(self.addend()?))
            }
            Some(Tok::Ident(name)) => {
                if Gpr::parse(name).is_some() || Pred::parse(name).is_some() {
                    return err(format!(
                        "register `{name}` where an immediate was expected (quote a symbol with this name: \"{name}\")"
                    ));
                }
                self.pos += 1;
                self.symbol_operand(name)
            }
            Some(Tok::Quoted(name)) => {
                self.pos += 1;
                self.symbol_operand(name)
            }
            _ => err(format!(
                "expected an immediate, found {}",
                self.describe_next()
            )),
        }
    }
    /// After a symbol's name: `[@tprel][+N | -N]`.
    fn symbol_operand(&mut self, name: &str) -> Result<ImmExpr, ParseError> {
        let name = name.to_string();
        if self.eat('@') {
            match self.next() {
                Some(Tok::Ident(m)) if m == "tprel" => {}
                _ => {
                    self.pos -= 1;
                    return err(format!(
                        "expected `tprel` after `@`, found {} (the only operand modifier is `sym@tprel`)",
                        self.describe_next()
                    ));
                }
            }
            return Ok(ImmExpr::Tprel {
                name,
                addend: self.addend()?,
            });
        }
        Ok(ImmExpr::Sym {
            name,
            addend: self.addend()?,
        })
    }
    fn addend(&mut self) -> Result<i64, ParseError> {
        match self.peek() {
            Some(Tok::Punct('+')) | Some(Tok::Punct('-')) => self.signed_number(),
            _ => Ok(0),
        }
    }
    fn finish(&self) -> Result<(), ParseError> {
        match self.peek() {
            None => Ok(()),
            Some(t) => err(format!("unexpected {t} after the operands")),
        }
    }
}

/// Parses one operation, e.g. `(!p2) cmp.lt.unc p1, p3 = r4, 10`.
pub fn parse_inst(text: &str) -> Result<ParsedInst, ParseError> {
    let tokens = tokenize(text, 1).map_err(|(_, message)| ParseError(message))?;
    let mut cursor = Cursor {
        tokens: &tokens,
        pos: 0,
    };
    let guard = if cursor.eat('(') {
        let negated = cursor.eat('!');
        let pred = cursor.pred()?;
        cursor.expect(')')?;
        Guard::new(pred, negated)
    } else {
        Guard::ALWAYS
    };
    let mnemonic = match cursor.next() {
        Some(Tok::Ident(m)) => m.as_str(),
        _ => return err("expected a mnemonic"),
    };
    let (candidates, ctype) = lookup_mnemonic(mnemonic)?;
    let start = cursor.pos;
    let mut first_error = None;
    for opcode in candidates {
        cursor.pos = start;
        match parse_operands(&mut cursor, opcode, guard, ctype) {
            Ok(parsed) => return Ok(parsed),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.expect("at least one candidate"))
}

/// The opcodes spelled `mnemonic` (one, or two when a register and an immediate
/// form exist) and the compare type its suffix names.
fn lookup_mnemonic(mnemonic: &str) -> Result<(Vec<Opcode>, CmpType), ParseError> {
    let exact: Vec<Opcode> = OPCODES
        .iter()
        .filter(|i| i.mnemonic == mnemonic)
        .map(|i| i.opcode)
        .collect();
    if !exact.is_empty() {
        return Ok((exact, CmpType::Normal));
    }
    // Longest suffix first: `.or.andcm` before `.andcm`.
    let mut types = CmpType::ALL;
    types.sort_by_key(|t| std::cmp::Reverse(t.suffix().len()));
    for ctype in types.into_iter().filter(|t| *t != CmpType::Normal) {
        if let Some(base) = mnemonic.strip_suffix(ctype.suffix()) {
            let compares: Vec<Opcode> = OPCODES
                .iter()
                .filter(|i| i.mnemonic == base && matches!(i.format, Format::Cmp | Format::CmpImm))
                .map(|i| i.opcode)
                .collect();
            if !compares.is_empty() {
                return Ok((compares, ctype));
            }
        }
    }
    err(format!("unknown mnemonic `{mnemonic}`"))
}

fn parse_operands(
    c: &mut Cursor,
    opcode: Opcode,
    guard: Guard,
    ctype: CmpType,
) -> Result<ParsedInst, ParseError> {
    let mut inst = Inst::new(opcode);
    inst.guard = guard;
    inst.ctype = ctype;
    let mut imm = None;
    let mut take_imm = |c: &mut Cursor, inst: &mut Inst| -> Result<(), ParseError> {
        let (expr, long) = c.imm()?;
        inst.long = long;
        match expr {
            ImmExpr::Num(n) => inst.imm = n,
            ImmExpr::Here(n) if inst.format().is_pc_relative() => inst.imm = n,
            _ => {}
        }
        imm = Some(expr);
        Ok(())
    };
    match opcode.format() {
        Format::None => {}
        Format::Limm | Format::Sys | Format::Branch => take_imm(c, &mut inst)?,
        Format::R1 | Format::R2 | Format::R3 | Format::RImm => {
            inst.rd = c.gpr()?;
            c.expect('=')?;
            inst.rs1 = c.gpr()?;
            match opcode.format() {
                Format::R2 => {
                    c.expect(',')?;
                    inst.rs2 = c.gpr()?;
                }
                Format::R3 => {
                    c.expect(',')?;
                    inst.rs2 = c.gpr()?;
                    c.expect(',')?;
                    inst.rs3 = c.gpr()?;
                }
                Format::RImm => {
                    c.expect(',')?;
                    take_imm(c, &mut inst)?;
                }
                _ => {}
            }
        }
        Format::Imm | Format::PcRel => {
            inst.rd = c.gpr()?;
            c.expect('=')?;
            take_imm(c, &mut inst)?;
        }
        Format::Sel => {
            inst.rd = c.gpr()?;
            c.expect('=')?;
            inst.ps1 = c.pred()?;
            c.expect(',')?;
            inst.rs1 = c.gpr()?;
            c.expect(',')?;
            inst.rs2 = c.gpr()?;
        }
        Format::Cmp | Format::CmpImm => {
            inst.pd1 = c.pred()?;
            c.expect(',')?;
            inst.pd2 = c.pred()?;
            c.expect('=')?;
            inst.rs1 = c.gpr()?;
            c.expect(',')?;
            if opcode.format() == Format::Cmp {
                inst.rs2 = c.gpr()?;
            } else {
                take_imm(c, &mut inst)?;
            }
            if inst.pd1 == inst.pd2 && inst.pd1 != Pred::TRUE {
                return err(format!("a compare cannot write {} twice", inst.pd1));
            }
        }
        Format::PLogic | Format::PUnary => {
            inst.pd1 = c.pred()?;
            c.expect('=')?;
            inst.ps1 = c.pred()?;
            if opcode.format() == Format::PLogic {
                c.expect(',')?;
                inst.ps2 = c.pred()?;
            }
        }
        Format::P2R => {
            inst.rd = c.gpr()?;
            c.expect('=')?;
            inst.ps1 = c.pred()?;
        }
        Format::R2P => {
            inst.pd1 = c.pred()?;
            c.expect('=')?;
            inst.rs1 = c.gpr()?;
        }
        Format::Load => {
            inst.rd = c.gpr()?;
            c.expect('=')?;
            parse_address(c, &mut inst, &mut take_imm)?;
        }
        Format::Store => {
            parse_address(c, &mut inst, &mut take_imm)?;
            c.expect('=')?;
            inst.rs2 = c.gpr()?;
        }
        Format::Amo | Format::Cas => {
            inst.rd = c.gpr()?;
            c.expect('=')?;
            c.expect('[')?;
            inst.rs1 = c.gpr()?;
            c.expect(']')?;
            c.expect(',')?;
            inst.rs2 = c.gpr()?;
            if opcode.format() == Format::Cas {
                c.expect(',')?;
                inst.rs3 = c.gpr()?;
            }
        }
        Format::Jump => inst.rs1 = c.gpr()?,
    }
    c.finish()?;
    Ok(ParsedInst { inst, imm })
}

/// `[rs1]`, `[rs1 + IMM]` or `[rs1 - N]`.
fn parse_address(
    c: &mut Cursor,
    inst: &mut Inst,
    take_imm: &mut impl FnMut(&mut Cursor, &mut Inst) -> Result<(), ParseError>,
) -> Result<(), ParseError> {
    c.expect('[')?;
    inst.rs1 = c.gpr()?;
    // `+ IMM`, or `- N` whose sign the immediate keeps.
    if c.eat('+') || matches!(c.peek(), Some(Tok::Punct('-'))) {
        take_imm(c, inst)?;
    } else {
        take_imm(
            &mut Cursor {
                tokens: &[Token {
                    tok: Tok::Num(0),
                    col: 0,
                }],
                pos: 0,
            },
            inst,
        )?;
    }
    c.expect(']')
}

/// Prints a number the way the disassembler does: decimal when small, else hex.
pub fn format_number(n: i64) -> String {
    if (-4096..=4096).contains(&n) {
        n.to_string()
    } else if n < 0 {
        format!("-{:#x}", n.unsigned_abs())
    } else {
        format!("{n:#x}")
    }
}

fn format_addend(addend: i64) -> String {
    match addend.cmp(&0) {
        std::cmp::Ordering::Equal => String::new(),
        std::cmp::Ordering::Greater => format!("+{}", format_number(addend)),
        std::cmp::Ordering::Less => format!(
            "-{}",
            format_number(addend.wrapping_neg()).trim_start_matches('-')
        ),
    }
}

/// Whether `name` can be written without quotes as a symbol operand.
pub fn is_plain_symbol(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(is_ident_start)
        && chars.all(is_ident_continue)
        && name != "."
        && name != "long"
        && Gpr::parse(name).is_none()
        && Pred::parse(name).is_none()
}

impl fmt::Display for ImmExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImmExpr::Num(n) => f.write_str(&format_number(*n)),
            ImmExpr::Here(n) => write!(
                f,
                ".{}",
                if *n == 0 {
                    "+0".to_string()
                } else {
                    format_addend(*n)
                }
            ),
            ImmExpr::Sym { name, addend } => {
                if is_plain_symbol(name) {
                    write!(f, "{name}{}", format_addend(*addend))
                } else {
                    write!(f, "\"{name}\"{}", format_addend(*addend))
                }
            }
            ImmExpr::Tprel { name, addend } => {
                if is_plain_symbol(name) {
                    write!(f, "{name}@tprel{}", format_addend(*addend))
                } else {
                    write!(f, "\"{name}\"@tprel{}", format_addend(*addend))
                }
            }
        }
    }
}

/// Prints `inst`, with `imm` (e.g. a relocation's symbol) in place of its number.
pub fn format_inst(inst: &Inst, imm: Option<&ImmExpr>) -> String {
    let format = inst.format();
    let mut out = String::new();
    if !inst.guard.is_always() {
        out.push_str(&format!("{} ", inst.guard));
    }
    out.push_str(inst.opcode.mnemonic());
    if format.has(FieldKind::CmpType) {
        out.push_str(inst.ctype.suffix());
    }
    let default_imm = if format.is_pc_relative() {
        ImmExpr::Here(inst.imm)
    } else {
        ImmExpr::Num(inst.imm)
    };
    let imm = imm.unwrap_or(&default_imm);
    let imm_text = if inst.needs_limm() {
        format!("long {imm}")
    } else {
        imm.to_string()
    };
    let address = |base: Gpr| match imm {
        ImmExpr::Num(0) if !inst.needs_limm() => format!("[{base}]"),
        ImmExpr::Num(n) if *n < 0 && !inst.needs_limm() => {
            format!("[{base} - {}]", format_number(n.wrapping_neg()))
        }
        _ => format!("[{base} + {imm_text}]"),
    };
    let operands = match format {
        Format::None => String::new(),
        Format::Limm | Format::Sys | Format::Branch => imm_text.clone(),
        Format::R1 => format!("{} = {}", inst.rd, inst.rs1),
        Format::R2 => format!("{} = {}, {}", inst.rd, inst.rs1, inst.rs2),
        Format::R3 => format!("{} = {}, {}, {}", inst.rd, inst.rs1, inst.rs2, inst.rs3),
        Format::RImm => format!("{} = {}, {imm_text}", inst.rd, inst.rs1),
        Format::Imm | Format::PcRel => format!("{} = {imm_text}", inst.rd),
        Format::Sel => format!("{} = {}, {}, {}", inst.rd, inst.ps1, inst.rs1, inst.rs2),
        Format::Cmp => format!("{}, {} = {}, {}", inst.pd1, inst.pd2, inst.rs1, inst.rs2),
        Format::CmpImm => format!("{}, {} = {}, {imm_text}", inst.pd1, inst.pd2, inst.rs1),
        Format::PLogic => format!("{} = {}, {}", inst.pd1, inst.ps1, inst.ps2),
        Format::PUnary => format!("{} = {}", inst.pd1, inst.ps1),
        Format::P2R => format!("{} = {}", inst.rd, inst.ps1),
        Format::R2P => format!("{} = {}", inst.pd1, inst.rs1),
        Format::Load => format!("{} = {}", inst.rd, address(inst.rs1)),
        Format::Store => format!("{} = {}", address(inst.rs1), inst.rs2),
        Format::Amo => format!("{} = [{}], {}", inst.rd, inst.rs1, inst.rs2),
        Format::Cas => format!("{} = [{}], {}, {}", inst.rd, inst.rs1, inst.rs2, inst.rs3),
        Format::Jump => inst.rs1.to_string(),
    };
    if !operands.is_empty() {
        out.push(' ');
        out.push_str(&operands);
    }
    out
}

impl fmt::Display for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_inst(self, None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) -> Inst {
        let parsed = parse_inst(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let printed = format_inst(&parsed.inst, parsed.imm.as_ref());
        assert_eq!(printed, text, "printing the parse of `{text}`");
        parsed.inst
    }

    #[test]
    fn formats_print_as_they_parse() {
        for text in [
            "nop",
            "add r3 = r4, r5",
            "add r3 = r4, -5",
            "(!p3) sub r1 = r2, 0x10000",
            "movi r3 = long 5",
            "movi r3 = long 0x123456789",
            "movi r3 = foo+8",
            "addpc r4 = .-16",
            "addpc r4 = \"r5\"",
            "sel r1 = p2, r3, r4",
            "cmp.lt.unc p1, p2 = r3, r4",
            "cmpw.geu.or.andcm p1, p2 = r3, 7",
            "fcmp.uno.d.and p4, p5 = r3, r4",
            "pandn p1 = p2, p3",
            "pnot p1 = p2",
            "p2r r1 = p15",
            "r2p p1 = r9",
            "ld.d r1 = [r2]",
            "lds.wu r1 = [r2 - 8]",
            "ld.b r1 = [r2 + sym-4]",
            "st.h [r1 + 16] = r7",
            "amoadd.w r1 = [r2], r3",
            "cas.d r1 = [r2], r3, r4",
            "br loop",
            "call .+64",
            "jr r5",
            "ret",
            "syscall 1",
            "fma.d r1 = r2, r3, r4",
            "add r4 = r2, counter@tprel",
            "add r4 = r2, counter@tprel+8",
            "ld.w r4 = [r2 + \"odd name\"@tprel-4]",
        ] {
            round_trip(text);
        }
    }

    #[test]
    fn register_and_immediate_forms_are_told_apart() {
        assert_eq!(
            parse_inst("add r1 = r2, r3").unwrap().inst.opcode,
            Opcode::Add
        );
        assert_eq!(
            parse_inst("add r1 = r2, 3").unwrap().inst.opcode,
            Opcode::AddI
        );
        assert_eq!(
            parse_inst("add r1 = r2, x").unwrap().inst.opcode,
            Opcode::AddI
        );
        assert_eq!(
            parse_inst("add r1 = r2, x@tprel+8").unwrap().imm,
            Some(ImmExpr::Tprel {
                name: "x".into(),
                addend: 8
            })
        );
        let cmp = parse_inst("cmp.ne.unc p1, p2 = r1, 0").unwrap().inst;
        assert_eq!((cmp.opcode, cmp.ctype), (Opcode::CmpNeI, CmpType::Unc));
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let cases = [
            ("frob r1 = r2", "unknown mnemonic `frob`"),
            ("add r1 = r64, r2", "no register `r64`"),
            ("add r1 r2, r3", "expected `=`"),
            ("ld.d r1 = [r2 + 8", "expected `]`"),
            ("cmp.eq p1, p1 = r1, r2", "cannot write p1 twice"),
            ("movi r1 = p3", "where an immediate was expected"),
            ("add r1 = r2, r3, r4", "unexpected `,`"),
            ("(p16) nop", "no predicate `p16`"),
            ("movi r1 = 0xfffffffffffffffff", "bad number"),
            ("movi r1 = 5 ?", "unexpected character `?`"),
            ("movi r1 = 5 @", "unexpected `@` after the operands"),
            (
                "movi r1 = x@tpoff",
                "expected `tprel` after `@`, found `tpoff`",
            ),
        ];
        for (text, message) in cases {
            let e = parse_inst(text).unwrap_err().0;
            assert!(
                e.contains(message),
                "`{text}`: got `{e}`, expected `{message}`"
            );
        }
    }
}
