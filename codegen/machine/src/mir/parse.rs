//! The text form: parsing (the inverse of `display.rs`). Errors carry a line and a
//! column; no input makes the parser panic.
//!
//! The parser builds exactly what the text says: operations get ids in the order of
//! the text, virtual registers, blocks and the entities are numbered as written (a
//! register or block that the text never names is a general register, or a block
//! out of the layout). It checks the syntax and that every frame slot and jump table
//! is declared; everything else is the verifier's business ([`MachFunction::verify`]),
//! so that a text can describe an invalid function.

use core::fmt;
use rustc_hash::FxHashMap as HashMap;
use std::sync::OnceLock;

use cranelift_entity::{EntityRef, PrimaryMap};
use vliw_ir::{Linkage, SourceLoc, StackSlot};
use vliw_isa::{CmpType, FieldKind, Format, Gpr, Opcode, Pred};

use super::{
    Bundles, FrameLayout, FrameSlot, FrameSlotData, FrameSlotKind, Imm, InstId, JumpTable, MBlock,
    MGuard, MInst, MOp, MachFunction, PReg, Reg, RegClass, VReg, operand_fields,
};

/// A syntax error of the machine IR's text form, at a 1-based line and column.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ParseError {}

type PResult<T> = Result<T, ParseError>;

/// Parses a text holding exactly one machine function (comment lines, starting with
/// `;`, may surround it).
pub fn parse_machine_function(text: &str) -> PResult<MachFunction> {
    let mut p = Parser::new(text)?;
    p.skip_newlines();
    let f = p.function()?;
    p.skip_newlines();
    if !p.at(&Tok::Eof) {
        return Err(p.err("expected the end of the input after the function"));
    }
    Ok(f)
}

/// Parses every machine function of a text (a dump: functions and comment lines).
pub fn parse_machine_functions(text: &str) -> PResult<Vec<MachFunction>> {
    let mut p = Parser::new(text)?;
    let mut out = Vec::new();
    loop {
        p.skip_newlines();
        if p.at(&Tok::Eof) {
            return Ok(out);
        }
        out.push(p.function()?);
    }
}

impl MachFunction {
    /// Parses the text form of one function (see [`parse_machine_function`]).
    pub fn parse(text: &str) -> PResult<MachFunction> {
        parse_machine_function(text)
    }
}

// ---- operation names ----

fn mnemonics() -> &'static HashMap<&'static str, Vec<Opcode>> {
    static TABLE: OnceLock<HashMap<&'static str, Vec<Opcode>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut m: HashMap<&'static str, Vec<Opcode>> = HashMap::default();
        for o in Opcode::all() {
            m.entry(o.mnemonic()).or_default().push(o);
        }
        m
    })
}

fn opcode_names() -> &'static HashMap<String, Opcode> {
    static TABLE: OnceLock<HashMap<String, Opcode>> = OnceLock::new();
    TABLE.get_or_init(|| Opcode::all().map(|o| (format!("{o:?}"), o)).collect())
}

/// Among opcodes of one mnemonic (a register and an immediate form), the one that
/// fits `uses` sources and the presence of an immediate best; the first on a tie.
fn choose(candidates: &[Opcode], uses: usize, has_imm: bool) -> Option<Opcode> {
    let score = |o: Opcode| {
        let (_, u) = operand_fields(o.format());
        2 * usize::from(u.len() == uses) + usize::from(o.format().has(FieldKind::Imm) == has_imm)
    };
    let mut best: Option<Opcode> = None;
    for &o in candidates {
        if best.is_none_or(|b| score(o) > score(b)) {
            best = Some(o);
        }
    }
    best
}

/// The operation and compare type a name stands for, given its number of sources and
/// whether it has an immediate: a mnemonic (`add`, `cmp.lt.unc`, `ld.d`), a pseudo
/// operation (`copy`, `parallel_copy`, `psi`), or an opcode's name with an optional
/// compare-type suffix (`AddI`, `Copy`, `CmpLt.unc`), which the printer uses when the
/// mnemonic would read back as another operation.
pub(crate) fn resolve_opname(name: &str, uses: usize, has_imm: bool) -> Option<(MOp, CmpType)> {
    match name {
        "copy" => return Some((MOp::Copy, CmpType::Normal)),
        "parallel_copy" => return Some((MOp::ParallelCopy, CmpType::Normal)),
        "psi" => return Some((MOp::Psi, CmpType::Normal)),
        _ => {}
    }
    let table = mnemonics();
    if let Some(c) = table.get(name) {
        return choose(c, uses, has_imm).map(|o| (MOp::Op(o), CmpType::Normal));
    }
    if name.starts_with(|c: char| c.is_ascii_uppercase()) {
        let (base, suffix) = match name.find('.') {
            Some(i) => (&name[..i], &name[i..]),
            None => (name, ""),
        };
        let ctype = CmpType::ALL.into_iter().find(|t| t.suffix() == suffix)?;
        let op = match base {
            "Copy" => MOp::Copy,
            "ParallelCopy" => MOp::ParallelCopy,
            "Psi" => MOp::Psi,
            _ => MOp::Op(*opcode_names().get(base)?),
        };
        return Some((op, ctype));
    }
    // a compare with its type: the longest suffix first (`.or.andcm` before `.andcm`)
    let mut types = CmpType::ALL;
    types.sort_by_key(|t| core::cmp::Reverse(t.suffix().len()));
    for ctype in types.into_iter().filter(|t| *t != CmpType::Normal) {
        if let Some(base) = name.strip_suffix(ctype.suffix())
            && let Some(c) = table.get(base)
        {
            let compares: Vec<Opcode> = c
                .iter()
                .copied()
                .filter(|o| matches!(o.format(), Format::Cmp | Format::CmpImm))
                .collect();
            if let Some(o) = choose(&compares, uses, has_imm) {
                return Some((MOp::Op(o), ctype));
            }
        }
    }
    None
}

// ---- tokens ----

#[derive(Clone, PartialEq, Debug)]
enum Tok {
    Ident(String),
    Int(u64),
    Symbol(String),
    Str(Vec<u8>),
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Equal,
    Plus,
    Minus,
    Bang,
    /// `;`: between the operations of a bundle.
    Semi,
    /// `;;`: the end of a bundle.
    SemiSemi,
    Newline,
    Eof,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("'{s}'"),
            Tok::Int(n) => format!("'{n}'"),
            Tok::Symbol(s) => format!("'@{s}'"),
            Tok::Str(_) => "a string".into(),
            Tok::LParen => "'('".into(),
            Tok::RParen => "')'".into(),
            Tok::LBracket => "'['".into(),
            Tok::RBracket => "']'".into(),
            Tok::LBrace => "'{'".into(),
            Tok::RBrace => "'}'".into(),
            Tok::Comma => "','".into(),
            Tok::Colon => "':'".into(),
            Tok::Equal => "'='".into(),
            Tok::Plus => "'+'".into(),
            Tok::Minus => "'-'".into(),
            Tok::Bang => "'!'".into(),
            Tok::Semi => "';'".into(),
            Tok::SemiSemi => "';;'".into(),
            Tok::Newline => "the end of the line".into(),
            Tok::Eof => "the end of the input".into(),
        }
    }
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
    col: usize,
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.')
}

fn lex(text: &str) -> PResult<Vec<Token>> {
    let bytes = text.as_bytes();
    let mut toks: Vec<Token> = Vec::new();
    let (mut i, mut line, mut line_start) = (0usize, 1usize, 0usize);
    let mut line_empty = true;
    while i < bytes.len() {
        let c = bytes[i];
        let col = text
            .get(line_start..i)
            .map_or(i - line_start, |s| s.chars().count())
            + 1;
        let err = |message: String| Err(ParseError { line, col, message });
        let start = i;
        let tok = match c {
            b'\n' => {
                i += 1;
                toks.push(Token {
                    tok: Tok::Newline,
                    line,
                    col,
                });
                line += 1;
                line_start = i;
                line_empty = true;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            // a line that starts with `;` is a comment
            b';' if line_empty => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b';' => {
                if bytes.get(i + 1) == Some(&b';') {
                    i += 2;
                    Tok::SemiSemi
                } else {
                    i += 1;
                    Tok::Semi
                }
            }
            b'(' => {
                i += 1;
                Tok::LParen
            }
            b')' => {
                i += 1;
                Tok::RParen
            }
            b'[' => {
                i += 1;
                Tok::LBracket
            }
            b']' => {
                i += 1;
                Tok::RBracket
            }
            b'{' => {
                i += 1;
                Tok::LBrace
            }
            b'}' => {
                i += 1;
                Tok::RBrace
            }
            b',' => {
                i += 1;
                Tok::Comma
            }
            b':' => {
                i += 1;
                Tok::Colon
            }
            b'=' => {
                i += 1;
                Tok::Equal
            }
            b'+' => {
                i += 1;
                Tok::Plus
            }
            b'-' => {
                i += 1;
                Tok::Minus
            }
            b'!' => {
                i += 1;
                Tok::Bang
            }
            b'"' => {
                let (s, n) =
                    vliw_ir::parser::lex_string(&bytes[i..]).map_err(|(off, m)| ParseError {
                        line,
                        col: col + off,
                        message: m,
                    })?;
                i += n;
                Tok::Str(s)
            }
            b'@' => {
                i += 1;
                if bytes.get(i) == Some(&b'"') {
                    let (s, n) = vliw_ir::parser::lex_string(&bytes[i..]).map_err(|(off, m)| {
                        ParseError {
                            line,
                            col: col + 1 + off,
                            message: m,
                        }
                    })?;
                    i += n;
                    match String::from_utf8(s) {
                        Ok(s) => Tok::Symbol(s),
                        Err(_) => return err("a symbol name must be UTF-8".into()),
                    }
                } else {
                    while i < bytes.len()
                        && (bytes[i].is_ascii_alphanumeric()
                            || matches!(bytes[i], b'_' | b'.' | b'$'))
                    {
                        i += 1;
                    }
                    if i == start + 1 {
                        return err("expected a symbol name after '@'".into());
                    }
                    Tok::Symbol(text[start + 1..i].to_string())
                }
            }
            b'0'..=b'9' => {
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                if i < bytes.len() && is_ident_char(bytes[i]) {
                    return err(format!("unexpected '{}' after a number", bytes[i] as char));
                }
                match text[start..i].parse::<u64>() {
                    Ok(n) => Tok::Int(n),
                    Err(_) => return err("number out of range".into()),
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < bytes.len() && is_ident_char(bytes[i]) {
                    i += 1;
                }
                Tok::Ident(text[start..i].to_string())
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return err(format!("unexpected character '{ch}'"));
            }
        };
        line_empty = false;
        toks.push(Token { tok, line, col });
    }
    let col = text.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    toks.push(Token {
        tok: Tok::Eof,
        line,
        col,
    });
    Ok(toks)
}

/// The number after `prefix` in an entity name (`v12` → 12); no leading zeros.
fn entity_number(s: &str, prefix: &str) -> Option<usize> {
    let rest = s.strip_prefix(prefix)?;
    if rest.is_empty()
        || rest.len() > 9
        || !rest.bytes().all(|c| c.is_ascii_digit())
        || (rest.len() > 1 && rest.starts_with('0'))
    {
        return None;
    }
    rest.parse().ok()
}

/// A register named by the text: `vN`, `pvN`, `rN` (or an ABI alias), `pN`.
fn register_name(s: &str) -> Option<(Option<RegClass>, Reg, usize)> {
    if let Some(n) = entity_number(s, "v") {
        return Some((Some(RegClass::Gpr), Reg::Virtual(VReg::new(n)), n));
    }
    if let Some(n) = entity_number(s, "pv") {
        return Some((Some(RegClass::Pred), Reg::Virtual(VReg::new(n)), n));
    }
    if let Some(g) = Gpr::parse(s) {
        return Some((None, Reg::Physical(PReg::Gpr(g)), 0));
    }
    Pred::parse(s).map(|p| (None, Reg::Physical(PReg::Pred(p)), 0))
}

// ---- the parser ----

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    /// The largest entity number accepted (proportional to the text, so that a short
    /// text cannot make a huge function).
    max_entity: usize,
}

/// What one function's text has said so far.
#[derive(Default)]
struct Building {
    /// Class of each virtual register named (`None`: not named yet).
    vregs: Vec<Option<RegClass>>,
    /// Blocks named; the layout is the order of their headers.
    blocks: usize,
    layout: Vec<MBlock>,
    params: HashMap<MBlock, Vec<VReg>>,
    insts: PrimaryMap<InstId, MInst>,
    orders: HashMap<MBlock, Vec<InstId>>,
    bundles: HashMap<MBlock, Vec<Vec<InstId>>>,
    /// Whether the operations are written as bundles (decided by the first line).
    bundled: Option<bool>,
    slots: PrimaryMap<FrameSlot, FrameSlotData>,
    jump_tables: PrimaryMap<JumpTable, Vec<MBlock>>,
    files: Vec<String>,
    outgoing_words: Option<u64>,
    frame: Option<FrameLayout>,
    /// Slots and jump tables named, with where, to check that they are declared.
    slot_refs: Vec<(FrameSlot, usize, usize)>,
    jt_refs: Vec<(JumpTable, usize, usize)>,
}

impl Parser {
    fn new(text: &str) -> PResult<Parser> {
        Ok(Parser {
            toks: lex(text)?,
            pos: 0,
            max_entity: 16 * text.len() + 4096,
        })
    }

    fn tok(&self) -> &Tok {
        &self.toks[self.pos.min(self.toks.len() - 1)].tok
    }

    fn peek(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }

    fn here(&self) -> (usize, usize) {
        let t = &self.toks[self.pos.min(self.toks.len() - 1)];
        (t.line, t.col)
    }

    fn at(&self, t: &Tok) -> bool {
        self.tok() == t
    }

    fn bump(&mut self) -> Tok {
        let t = self.tok().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn err(&self, message: impl Into<String>) -> ParseError {
        let (line, col) = self.here();
        ParseError {
            line,
            col,
            message: message.into(),
        }
    }

    fn unexpected(&self, what: &str) -> ParseError {
        self.err(format!("expected {what}, found {}", self.tok().describe()))
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.at(t) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: &Tok) -> PResult<()> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(self.unexpected(&t.describe()))
        }
    }

    fn skip_newlines(&mut self) {
        while self.at(&Tok::Newline) {
            self.bump();
        }
    }

    fn end_of_line(&mut self) -> PResult<()> {
        if self.at(&Tok::Eof) || self.eat(&Tok::Newline) {
            Ok(())
        } else {
            Err(self.unexpected("the end of the line"))
        }
    }

    fn ident(&mut self) -> PResult<String> {
        match self.tok() {
            Tok::Ident(s) => {
                let s = s.clone();
                self.bump();
                Ok(s)
            }
            _ => Err(self.unexpected("a name")),
        }
    }

    fn keyword(&mut self, word: &str) -> PResult<()> {
        match self.tok() {
            Tok::Ident(s) if s == word => {
                self.bump();
                Ok(())
            }
            _ => Err(self.unexpected(&format!("'{word}'"))),
        }
    }

    fn at_keyword(&self, word: &str) -> bool {
        matches!(self.tok(), Tok::Ident(s) if s == word)
    }

    fn uint(&mut self) -> PResult<u64> {
        match self.tok() {
            Tok::Int(n) => {
                let n = *n;
                self.bump();
                Ok(n)
            }
            _ => Err(self.unexpected("a number")),
        }
    }

    fn u32(&mut self) -> PResult<u32> {
        let n = self.uint()?;
        u32::try_from(n).map_err(|_| self.err(format!("{n} does not fit 32 bits")))
    }

    /// `N` or `-N` as an `i64`.
    fn int(&mut self) -> PResult<i64> {
        let neg = self.eat(&Tok::Minus);
        let n = self.uint()?;
        if neg {
            if n > 1 << 63 {
                return Err(self.err("number out of range"));
            }
            Ok((n as i64).wrapping_neg())
        } else {
            i64::try_from(n).map_err(|_| self.err("number out of range"))
        }
    }

    /// An optional `+N` or `-N` (0 when absent).
    fn offset(&mut self) -> PResult<i64> {
        if self.eat(&Tok::Plus) {
            let n = self.uint()?;
            i64::try_from(n).map_err(|_| self.err("offset out of range"))
        } else if self.at(&Tok::Minus) {
            self.int()
        } else {
            Ok(0)
        }
    }

    /// An entity `prefixN` (checks the number against the size limit).
    fn entity(&self, s: &str, prefix: &str) -> PResult<Option<usize>> {
        match entity_number(s, prefix) {
            Some(n) if n > self.max_entity => Err(self.err(format!(
                "{s}: entity number too large for the size of the text"
            ))),
            other => Ok(other),
        }
    }

    // ---- registers and entities ----

    fn note_vreg(&self, b: &mut Building, n: usize, class: RegClass, name: &str) -> PResult<()> {
        if n > self.max_entity {
            return Err(self.err(format!(
                "{name}: register number too large for the size of the text"
            )));
        }
        if b.vregs.len() <= n {
            b.vregs.resize(n + 1, None);
        }
        match b.vregs[n] {
            Some(c) if c != class => Err(self.err(format!(
                "{name}: virtual register {n} is named both as a general (v{n}) and a predicate (pv{n}) register"
            ))),
            _ => {
                b.vregs[n] = Some(class);
                Ok(())
            }
        }
    }

    fn at_reg(&self) -> bool {
        matches!(self.tok(), Tok::Ident(s) if register_name(s).is_some())
    }

    fn reg(&mut self, b: &mut Building) -> PResult<Reg> {
        let Tok::Ident(s) = self.tok() else {
            return Err(self.unexpected("a register"));
        };
        let s = s.clone();
        let Some((class, r, n)) = register_name(&s) else {
            return Err(self.unexpected("a register"));
        };
        if let Some(class) = class {
            self.note_vreg(b, n, class, &s)?;
        }
        self.bump();
        Ok(r)
    }

    fn vreg(&mut self, b: &mut Building) -> PResult<VReg> {
        let at = self.here();
        match self.reg(b)? {
            Reg::Virtual(v) => Ok(v),
            Reg::Physical(p) => Err(ParseError {
                line: at.0,
                col: at.1,
                message: format!("expected a virtual register, found {p}"),
            }),
        }
    }

    fn preg(&mut self, b: &mut Building) -> PResult<PReg> {
        let at = self.here();
        match self.reg(b)? {
            Reg::Physical(p) => Ok(p),
            Reg::Virtual(_) => Err(ParseError {
                line: at.0,
                col: at.1,
                message: "expected a physical register".into(),
            }),
        }
    }

    fn block_ref(&mut self, b: &mut Building) -> PResult<MBlock> {
        let s = self.ident()?;
        match self.entity(&s, "block")? {
            Some(n) => {
                b.blocks = b.blocks.max(n + 1);
                Ok(MBlock::new(n))
            }
            None => {
                self.pos -= 1;
                Err(self.unexpected("a block"))
            }
        }
    }

    /// `[r3 r4-r10 p1]`: physical registers, ranges of one class.
    fn preg_list(&mut self, b: &mut Building) -> PResult<Vec<PReg>> {
        self.expect(&Tok::LBracket)?;
        let mut out = Vec::new();
        while !self.eat(&Tok::RBracket) {
            let first = self.preg(b)?;
            if self.eat(&Tok::Minus) {
                let last = self.preg(b)?;
                let range = match (first, last) {
                    (PReg::Gpr(x), PReg::Gpr(y)) if x.num() < y.num() => (x.num()..=y.num())
                        .filter_map(Gpr::new)
                        .map(PReg::Gpr)
                        .collect::<Vec<_>>(),
                    (PReg::Pred(x), PReg::Pred(y)) if x.num() < y.num() => (x.num()..=y.num())
                        .filter_map(Pred::new)
                        .map(PReg::Pred)
                        .collect(),
                    _ => {
                        return Err(self.err(format!(
                            "{first}-{last} is not a range of registers of one class"
                        )));
                    }
                };
                out.extend(range);
            } else {
                out.push(first);
            }
        }
        Ok(out)
    }

    // ---- immediates ----

    fn at_imm(&self) -> bool {
        match self.tok() {
            Tok::Int(_) | Tok::Minus | Tok::Symbol(_) => true,
            Tok::Ident(s) => {
                s == "incoming"
                    || entity_number(s, "block").is_some()
                    || entity_number(s, "jt").is_some()
                    || entity_number(s, "fs").is_some()
            }
            _ => false,
        }
    }

    fn imm(&mut self, b: &mut Building) -> PResult<Imm> {
        let (line, col) = self.here();
        match self.tok().clone() {
            Tok::Int(_) | Tok::Minus => Ok(Imm::Const(self.int()?)),
            Tok::Symbol(name) => {
                self.bump();
                let tprel = matches!(self.tok(), Tok::Symbol(s) if s == "tprel");
                if tprel {
                    self.bump();
                }
                let addend = self.offset()?;
                Ok(if tprel {
                    Imm::TpRel { name, addend }
                } else {
                    Imm::Symbol { name, addend }
                })
            }
            Tok::Ident(s) if s == "incoming" => {
                self.bump();
                if !matches!(self.tok(), Tok::Plus | Tok::Minus) {
                    return Err(self.unexpected("'+' or '-' after 'incoming'"));
                }
                Ok(Imm::IncomingArg(self.offset()?))
            }
            Tok::Ident(s) => {
                if self.entity(&s, "block")?.is_some() {
                    return Ok(Imm::Block(self.block_ref(b)?));
                }
                if let Some(n) = self.entity(&s, "jt")? {
                    self.bump();
                    b.jt_refs.push((JumpTable::new(n), line, col));
                    return Ok(Imm::JumpTable(JumpTable::new(n)));
                }
                if let Some(n) = self.entity(&s, "fs")? {
                    self.bump();
                    b.slot_refs.push((FrameSlot::new(n), line, col));
                    let offset = self.offset()?;
                    return Ok(Imm::Slot {
                        slot: FrameSlot::new(n),
                        offset,
                    });
                }
                Err(self.unexpected("an immediate"))
            }
            _ => Err(self.unexpected("an immediate")),
        }
    }

    /// `[long] IMM`, or `long` alone; sets `inst.long` and `inst.imm`.
    fn imm_operand(&mut self, b: &mut Building, inst: &mut MInst) -> PResult<()> {
        if self.at_keyword("long") {
            self.bump();
            inst.long = true;
            if !self.at_imm() {
                return Ok(());
            }
        }
        inst.imm = self.imm(b)?;
        Ok(())
    }

    // ---- operations ----

    /// `(p3)` or `(!pv4)`.
    fn guard(&mut self, b: &mut Building) -> PResult<MGuard> {
        let negated = self.eat(&Tok::Bang);
        let pred = self.reg(b)?;
        Ok(MGuard::new(pred, negated))
    }

    /// One operation with its optional source location `[file:line:col]`.
    fn inst(&mut self, b: &mut Building) -> PResult<MInst> {
        let mut inst = MInst::new(MOp::Copy);
        if self.eat(&Tok::LBracket) {
            let file = self.u32()?;
            self.expect(&Tok::Colon)?;
            let line = self.u32()?;
            self.expect(&Tok::Colon)?;
            let col = self.u32()?;
            self.expect(&Tok::RBracket)?;
            inst.loc = SourceLoc::new(file, line, col);
        }
        if self.eat(&Tok::LParen) {
            inst.guard = self.guard(b)?;
            self.expect(&Tok::RParen)?;
        }
        // definitions: registers before `=`
        if self.at_reg() && matches!(self.peek(1), Tok::Comma | Tok::Equal) {
            loop {
                inst.defs.push(self.reg(b)?);
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
            self.expect(&Tok::Equal)?;
        }
        let (name_line, name_col) = self.here();
        let name = self.ident()?;
        if self.eat(&Tok::LBracket) {
            // memory form: `[base + imm]`, then `= value` or `, src...`
            inst.uses.push(self.reg(b)?);
            if self.eat(&Tok::Plus) {
                self.imm_operand(b, &mut inst)?;
            }
            self.expect(&Tok::RBracket)?;
            if self.eat(&Tok::Equal) {
                inst.uses.push(self.reg(b)?);
            } else {
                while self.eat(&Tok::Comma) {
                    inst.uses.push(self.reg(b)?);
                }
            }
        } else if !self.at_operands_end() {
            loop {
                if self.at_imm() || self.at_keyword("long") {
                    self.imm_operand(b, &mut inst)?;
                    break;
                }
                // `g: use` (ψ guards, the first operands) or `use`
                let guarded = self.at(&Tok::Bang) || matches!(self.peek(1), Tok::Colon);
                if guarded {
                    if inst.psi_guards.len() != inst.uses.len() {
                        return Err(self.err(
                            "only the first operands may have guards (`g: value`), each of them",
                        ));
                    }
                    let g = self.guard(b)?;
                    self.expect(&Tok::Colon)?;
                    inst.psi_guards.push(g);
                }
                inst.uses.push(self.reg(b)?);
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        if self.eat(&Tok::LParen) {
            while !self.eat(&Tok::RParen) {
                if !inst.args.is_empty() {
                    self.expect(&Tok::Comma)?;
                }
                inst.args.push(self.reg(b)?);
            }
        }
        if self.at_keyword("keeps") {
            self.bump();
            inst.keep = Some(self.reg(b)?);
        }
        if self.at_keyword("scope") {
            self.bump();
            let group = self.u32()?;
            let class = self.u32()?;
            inst.scope = Some(vliw_ir::AliasScope { group, class });
        }
        if self.at_keyword("uses") {
            self.bump();
            inst.implicit_uses = self.preg_list(b)?;
        }
        if self.at_keyword("clobbers") {
            self.bump();
            inst.implicit_defs = self.preg_list(b)?;
        }
        if self.at_keyword("unwind") {
            self.bump();
            let catch = self.at_keyword("catch");
            if catch {
                self.bump();
            }
            let pad = self.block_ref(b)?;
            inst.unwind = Some(crate::mir::Unwind { pad, catch });
        }
        let has_imm = inst.imm != Imm::None;
        let Some((op, ctype)) = resolve_opname(&name, inst.uses.len(), has_imm) else {
            return Err(ParseError {
                line: name_line,
                col: name_col,
                message: format!("unknown operation `{name}`"),
            });
        };
        inst.op = op;
        inst.ctype = ctype;
        Ok(inst)
    }

    fn at_operands_end(&self) -> bool {
        match self.tok() {
            Tok::LParen | Tok::Semi | Tok::SemiSemi | Tok::Newline | Tok::Eof => true,
            Tok::Ident(s) => s == "uses" || s == "clobbers",
            _ => false,
        }
    }

    /// A line of operations in block `block`: one operation, or a bundle
    /// `op ; op ;;`.
    fn inst_line(&mut self, b: &mut Building, block: MBlock) -> PResult<()> {
        let (line, col) = self.here();
        let mut ids = Vec::new();
        let bundled = loop {
            let inst = self.inst(b)?;
            ids.push(b.insts.push(inst));
            if self.eat(&Tok::SemiSemi) {
                break true;
            }
            if self.eat(&Tok::Semi) {
                continue;
            }
            if ids.len() > 1 {
                return Err(self.unexpected("';' or ';;' (a bundle ends with ';;')"));
            }
            break false;
        };
        self.end_of_line()?;
        match b.bundled {
            Some(was) if was != bundled => {
                return Err(ParseError {
                    line,
                    col,
                    message: if bundled {
                        "a bundle (`;;`) in a function whose operations are not bundled".into()
                    } else {
                        "an operation outside a bundle (no `;;`) in a bundled function".into()
                    },
                });
            }
            _ => b.bundled = Some(bundled),
        }
        b.orders
            .entry(block)
            .or_default()
            .extend(ids.iter().copied());
        if bundled {
            b.bundles.entry(block).or_default().push(ids);
        }
        Ok(())
    }

    // ---- declarations ----

    /// `fs0 = 8 bytes, align 8 (ir ss0)`, `(spill v3)`, `(temp)`.
    fn slot_decl(&mut self, b: &mut Building, n: usize) -> PResult<()> {
        if n != b.slots.len() {
            return Err(self.err(format!(
                "expected {} (frame slots are declared in order)",
                FrameSlot::new(b.slots.len())
            )));
        }
        self.bump();
        self.expect(&Tok::Equal)?;
        let size = self.u32()?;
        self.keyword("bytes")?;
        self.expect(&Tok::Comma)?;
        self.keyword("align")?;
        let align = self.u32()?;
        self.expect(&Tok::LParen)?;
        let kind = match self.ident()?.as_str() {
            "ir" => {
                let s = self.ident()?;
                match self.entity(&s, "ss")? {
                    Some(k) => FrameSlotKind::Ir(StackSlot::new(k)),
                    None => {
                        self.pos -= 1;
                        return Err(self.unexpected("a stack slot `ssN`"));
                    }
                }
            }
            "spill" => FrameSlotKind::Spill(self.vreg(b)?),
            "temp" => FrameSlotKind::Temp,
            other => {
                self.pos -= 1;
                return Err(self.err(format!(
                    "expected `ir ssN`, `spill vN` or `temp`, found '{other}'"
                )));
            }
        };
        self.expect(&Tok::RParen)?;
        b.slots.push(FrameSlotData { size, align, kind });
        Ok(())
    }

    /// `jt0 = [block1, block2]`.
    fn jump_table_decl(&mut self, b: &mut Building, n: usize) -> PResult<()> {
        if n != b.jump_tables.len() {
            return Err(self.err(format!(
                "expected {} (jump tables are declared in order)",
                JumpTable::new(b.jump_tables.len())
            )));
        }
        self.bump();
        self.expect(&Tok::Equal)?;
        self.expect(&Tok::LBracket)?;
        let mut targets = Vec::new();
        while !self.eat(&Tok::RBracket) {
            if !targets.is_empty() {
                self.expect(&Tok::Comma)?;
            }
            targets.push(self.block_ref(b)?);
        }
        b.jump_tables.push(targets);
        Ok(())
    }

    /// `frame 80 bytes, align 16[, realigned], outgoing 24 bytes, saves [r63: 64],
    /// slots [fs0: 32]`.
    fn frame_decl(&mut self, b: &mut Building) -> PResult<()> {
        if b.frame.is_some() {
            return Err(self.err("a second frame line"));
        }
        self.bump();
        let size = self.uint()?;
        self.keyword("bytes")?;
        self.expect(&Tok::Comma)?;
        self.keyword("align")?;
        let align = self.uint()?;
        self.expect(&Tok::Comma)?;
        let realigned = self.at_keyword("realigned");
        if realigned {
            self.bump();
            self.expect(&Tok::Comma)?;
        }
        self.keyword("outgoing")?;
        let outgoing_bytes = self.uint()?;
        self.keyword("bytes")?;
        self.expect(&Tok::Comma)?;
        self.keyword("saves")?;
        self.expect(&Tok::LBracket)?;
        let mut saves = Vec::new();
        while !self.eat(&Tok::RBracket) {
            if !saves.is_empty() {
                self.expect(&Tok::Comma)?;
            }
            let r = self.preg(b)?;
            self.expect(&Tok::Colon)?;
            saves.push((r, self.uint()?));
        }
        self.expect(&Tok::Comma)?;
        self.keyword("slots")?;
        self.expect(&Tok::LBracket)?;
        let mut slot_offsets = Vec::new();
        while !self.eat(&Tok::RBracket) {
            if !slot_offsets.is_empty() {
                self.expect(&Tok::Comma)?;
            }
            let s = self.ident()?;
            if self.entity(&s, "fs")? != Some(slot_offsets.len()) {
                self.pos -= 1;
                return Err(self.err(format!(
                    "expected {} (slot offsets are listed in order)",
                    FrameSlot::new(slot_offsets.len())
                )));
            }
            self.expect(&Tok::Colon)?;
            slot_offsets.push(self.uint()?);
        }
        b.frame = Some(FrameLayout {
            size,
            align,
            realigned,
            slot_offsets,
            saves,
            outgoing_bytes,
        });
        Ok(())
    }

    /// `block3(v1, pv2):`.
    fn block_header(&mut self, b: &mut Building) -> PResult<MBlock> {
        let (line, col) = self.here();
        let block = self.block_ref(b)?;
        if b.layout.contains(&block) {
            return Err(ParseError {
                line,
                col,
                message: format!("{block} is defined twice"),
            });
        }
        let mut params = Vec::new();
        if self.eat(&Tok::LParen) {
            while !self.eat(&Tok::RParen) {
                if !params.is_empty() {
                    self.expect(&Tok::Comma)?;
                }
                params.push(self.vreg(b)?);
            }
        }
        self.expect(&Tok::Colon)?;
        self.end_of_line()?;
        b.layout.push(block);
        b.params.insert(block, params);
        Ok(block)
    }

    fn function(&mut self) -> PResult<MachFunction> {
        self.keyword("machine")?;
        self.keyword("function")?;
        let name = match self.bump() {
            Tok::Symbol(s) => s,
            _ => {
                self.pos -= 1;
                return Err(self.unexpected("the function's name `@name`"));
            }
        };
        let mut linkage = Linkage::Local;
        if let Tok::Ident(s) = self.tok()
            && s != "personality"
        {
            linkage =
                Linkage::from_name(s).ok_or_else(|| self.err(format!("unknown linkage '{s}'")))?;
            self.bump();
        }
        let mut personality = None;
        if self.at_keyword("personality") {
            self.bump();
            match self.bump() {
                Tok::Symbol(s) => personality = Some(s),
                _ => {
                    self.pos -= 1;
                    return Err(self.unexpected("the personality routine `@name`"));
                }
            }
        }
        self.expect(&Tok::LBrace)?;
        self.end_of_line()?;
        let mut b = Building::default();
        let mut current: Option<MBlock> = None;
        loop {
            self.skip_newlines();
            if self.eat(&Tok::RBrace) {
                self.end_of_line()?;
                break;
            }
            if self.at(&Tok::Eof) {
                return Err(self.unexpected("'}' (the end of the function)"));
            }
            let word = match self.tok() {
                Tok::Ident(s) => Some(s.clone()),
                _ => None,
            };
            let next_is_equal = matches!(self.peek(1), Tok::Equal);
            if let Some(w) = &word {
                let header = current.is_none();
                if self.entity(w, "block")?.is_some() {
                    current = Some(self.block_header(&mut b)?);
                    continue;
                }
                let declaration = if let (Some(n), true) = (self.entity(w, "file")?, next_is_equal)
                {
                    Some(self.file_decl(&mut b, n))
                } else if let (Some(n), true) = (self.entity(w, "fs")?, next_is_equal) {
                    Some(self.slot_decl(&mut b, n))
                } else if let (Some(n), true) = (self.entity(w, "jt")?, next_is_equal) {
                    Some(self.jump_table_decl(&mut b, n))
                } else if w == "outgoing" && header {
                    Some(self.outgoing_decl(&mut b))
                } else if w == "frame" && header {
                    Some(self.frame_decl(&mut b))
                } else {
                    None
                };
                if let Some(result) = declaration {
                    if !header {
                        return Err(self.err("declarations come before the first block"));
                    }
                    result?;
                    self.end_of_line()?;
                    continue;
                }
            }
            let Some(block) = current else {
                return Err(self.unexpected("a declaration or a block header `blockN:`"));
            };
            self.inst_line(&mut b, block)?;
        }
        self.finish(name, linkage, personality, b)
    }

    fn file_decl(&mut self, b: &mut Building, n: usize) -> PResult<()> {
        if n != b.files.len() {
            return Err(self.err(format!(
                "expected file{} (files are declared in order)",
                b.files.len()
            )));
        }
        self.bump();
        self.expect(&Tok::Equal)?;
        match self.bump() {
            Tok::Str(bytes) => match String::from_utf8(bytes) {
                Ok(s) => b.files.push(s),
                Err(_) => {
                    self.pos -= 1;
                    return Err(self.err("a file name must be UTF-8"));
                }
            },
            _ => {
                self.pos -= 1;
                return Err(self.unexpected("a string"));
            }
        }
        Ok(())
    }

    fn outgoing_decl(&mut self, b: &mut Building) -> PResult<()> {
        if b.outgoing_words.is_some() {
            return Err(self.err("a second `outgoing` line"));
        }
        self.bump();
        b.outgoing_words = Some(self.uint()?);
        self.keyword("words")
    }

    fn finish(
        &self,
        name: String,
        linkage: Linkage,
        personality: Option<String>,
        b: Building,
    ) -> PResult<MachFunction> {
        for &(s, line, col) in &b.slot_refs {
            if s.index() >= b.slots.len() {
                return Err(ParseError {
                    line,
                    col,
                    message: format!("{s} is not declared"),
                });
            }
        }
        for &(jt, line, col) in &b.jt_refs {
            if jt.index() >= b.jump_tables.len() {
                return Err(ParseError {
                    line,
                    col,
                    message: format!("{jt} is not declared"),
                });
            }
        }
        let mut f = MachFunction::new(&name, linkage);
        f.personality = personality;
        for class in &b.vregs {
            f.vregs.push(class.unwrap_or(RegClass::Gpr));
        }
        for _ in 0..b.blocks {
            f.new_block();
        }
        f.insts = b.insts;
        f.layout = b.layout;
        let mut params = b.params;
        let mut orders = b.orders;
        for &block in &f.layout {
            f.blocks[block].params = params.remove(&block).unwrap_or_default();
            f.blocks[block].insts = orders.remove(&block).unwrap_or_default();
        }
        f.slots = b.slots;
        f.jump_tables = b.jump_tables;
        f.files = b.files;
        f.outgoing_words = b.outgoing_words.unwrap_or(0);
        f.frame = b.frame;
        if b.bundled == Some(true) {
            let mut bundles = Bundles::new();
            let mut per_block = b.bundles;
            for &block in &f.layout {
                bundles.set_block(block, per_block.remove(&block).unwrap_or_default());
            }
            f.bundles = Some(bundles);
        }
        Ok(f)
    }
}
