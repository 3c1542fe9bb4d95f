//! The text form: parsing (the inverse of `write.rs`). Errors carry a line and column;
//! no input makes the parser panic.

use crate::dfg::ValueDef;
use crate::entities::{Block, FuncRef, GlobalRef, Inst, SigRef, StackSlot, Value};
use crate::function::{
    ExtFuncData, Function, InlineHint, Linkage, ParamAttrs, Signature, SourceLoc, StackSlotData,
};
use crate::instructions::{
    AtomicRmwOp, BlockCall, FloatCC, InstructionData, InstructionFormat, IntCC, MemFlags, Opcode,
    SwitchData,
};
use crate::module::{DataKind, DataObject, DataReloc, FuncDecl, Module, RelocKind};
use crate::types::Type;
use crate::typing::result_types;
use core::fmt;
use cranelift_entity::EntityRef;
use cranelift_entity::packed_option::ReservedValue;
use rustc_hash::FxHashMap as HashMap;

/// A syntax or typing error of the text form, at a 1-based line and column.
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

/// The largest data object the parser builds (64 MiB).
pub const MAX_DATA_SIZE: u64 = 1 << 26;

/// Parse a module (declarations, data objects and functions).
pub fn parse_module(text: &str) -> PResult<Module> {
    let mut p = Parser::new(text)?;
    p.module()
}

/// Parse a text holding exactly one function.
pub fn parse_function(text: &str) -> PResult<Function> {
    let mut p = Parser::new(text)?;
    let f = p.function()?;
    if !p.at(&Tok::Eof) {
        return Err(p.err("expected the end of the input after the function"));
    }
    Ok(f)
}

/// A token of the text form.
#[derive(Clone, PartialEq, Debug)]
pub enum Tok {
    Ident(String),
    Symbol(String),
    /// Unsigned magnitude, and the literal's text.
    Int(u128, String),
    Float(String),
    Str(Vec<u8>),
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Comma,
    Colon,
    Equal,
    Plus,
    Minus,
    Arrow,
    Ellipsis,
    Eof,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("'{s}'"),
            Tok::Symbol(s) => format!("'@{s}'"),
            Tok::Int(_, s) | Tok::Float(s) => format!("'{s}'"),
            Tok::Str(_) => "a string".into(),
            Tok::LParen => "'('".into(),
            Tok::RParen => "')'".into(),
            Tok::LBrace => "'{'".into(),
            Tok::RBrace => "'}'".into(),
            Tok::LBracket => "'['".into(),
            Tok::RBracket => "']'".into(),
            Tok::Comma => "','".into(),
            Tok::Colon => "':'".into(),
            Tok::Equal => "'='".into(),
            Tok::Plus => "'+'".into(),
            Tok::Minus => "'-'".into(),
            Tok::Arrow => "'->'".into(),
            Tok::Ellipsis => "'...'".into(),
            Tok::Eof => "the end of the input".into(),
        }
    }
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
    col: usize,
    /// Column just after the token.
    end_col: usize,
}

fn lex(text: &str) -> PResult<Vec<Token>> {
    let bytes = text.as_bytes();
    let mut toks = Vec::new();
    let (mut i, mut line, mut line_start) = (0usize, 1usize, 0usize);
    while i < bytes.len() {
        let c = bytes[i];
        let col = text[line_start..i].chars().count() + 1;
        let err = |message: String| Err(ParseError { line, col, message });
        let start = i;
        let tok = match c {
            b'\n' => {
                i += 1;
                line += 1;
                line_start = i;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'(' => {
                i += 1;
                Tok::LParen
            }
            b')' => {
                i += 1;
                Tok::RParen
            }
            b'{' => {
                i += 1;
                Tok::LBrace
            }
            b'}' => {
                i += 1;
                Tok::RBrace
            }
            b'[' => {
                i += 1;
                Tok::LBracket
            }
            b']' => {
                i += 1;
                Tok::RBracket
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
                if bytes.get(i + 1) == Some(&b'>') {
                    i += 2;
                    Tok::Arrow
                } else {
                    i += 1;
                    Tok::Minus
                }
            }
            b'.' => {
                if bytes[i..].starts_with(b"...") {
                    i += 3;
                    Tok::Ellipsis
                } else {
                    return err("unexpected '.'".into());
                }
            }
            b'"' => {
                let (s, n) = lex_string(&bytes[i..]).map_err(|(off, m)| ParseError {
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
                    let (s, n) = lex_string(&bytes[i..]).map_err(|(off, m)| ParseError {
                        line,
                        col: col + 1 + off,
                        message: m,
                    })?;
                    i += n;
                    match String::from_utf8(s) {
                        Ok(s) if !s.is_empty() => Tok::Symbol(s),
                        _ => return err("a symbol name must be non-empty UTF-8".into()),
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
                if c == b'0' && matches!(bytes.get(i + 1), Some(b'x' | b'X')) {
                    i += 2;
                    let ds = i;
                    while i < bytes.len() && (bytes[i].is_ascii_hexdigit() || bytes[i] == b'_') {
                        i += 1;
                    }
                    let digits: String = text[ds..i].chars().filter(|&c| c != '_').collect();
                    if digits.is_empty() {
                        return err("expected hex digits after '0x'".into());
                    }
                    match u128::from_str_radix(&digits, 16) {
                        Ok(v) => Tok::Int(v, text[start..i].to_string()),
                        Err(_) => return err("integer literal too large".into()),
                    }
                } else {
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        i += 1;
                    }
                    let mut is_float = false;
                    if bytes.get(i) == Some(&b'.')
                        && bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit())
                    {
                        is_float = true;
                        i += 1;
                        while i < bytes.len() && bytes[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                    if matches!(bytes.get(i), Some(b'e' | b'E')) {
                        let mut j = i + 1;
                        if matches!(bytes.get(j), Some(b'+' | b'-')) {
                            j += 1;
                        }
                        if bytes.get(j).is_some_and(|b| b.is_ascii_digit()) {
                            is_float = true;
                            i = j;
                            while i < bytes.len() && bytes[i].is_ascii_digit() {
                                i += 1;
                            }
                        }
                    }
                    let s = &text[start..i];
                    if is_float {
                        Tok::Float(s.to_string())
                    } else {
                        match s.parse::<u128>() {
                            Ok(v) => Tok::Int(v, s.to_string()),
                            Err(_) => return err("integer literal too large".into()),
                        }
                    }
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'.'))
                {
                    i += 1;
                }
                Tok::Ident(text[start..i].to_string())
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return err(format!("unexpected character {ch:?}"));
            }
        };
        let end_col = col + text[start..i].chars().count();
        toks.push(Token {
            tok,
            line,
            col,
            end_col,
        });
    }
    let col = text[line_start..].chars().count() + 1;
    toks.push(Token {
        tok: Tok::Eof,
        line,
        col,
        end_col: col,
    });
    Ok(toks)
}

/// Lexes a string literal (`"..."` with the escapes `\n`, `\t`, `\0`, `\\`, `\"` and
/// `\xHH`) at the start of `b`: its bytes and the length of the literal, or the offset
/// and message of an error. Shared by the text forms of the SSA IR and of the machine
/// IR, which write strings the same way (`write::write_string`).
pub fn lex_string(b: &[u8]) -> Result<(Vec<u8>, usize), (usize, String)> {
    let mut out = Vec::new();
    let mut i = 1;
    loop {
        match b.get(i) {
            None | Some(b'\n') => return Err((0, "unterminated string".into())),
            Some(b'"') => return Ok((out, i + 1)),
            Some(b'\\') => {
                let e = b.get(i + 1).copied();
                match e {
                    Some(b'n') => out.push(b'\n'),
                    Some(b't') => out.push(b'\t'),
                    Some(b'0') => out.push(0),
                    Some(b'\\') => out.push(b'\\'),
                    Some(b'"') => out.push(b'"'),
                    Some(b'x') => {
                        let h = b
                            .get(i + 2..i + 4)
                            .and_then(|h| core::str::from_utf8(h).ok());
                        match h.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                            Some(v) => out.push(v),
                            None => return Err((i, "expected two hex digits after \\x".into())),
                        }
                        i += 2;
                    }
                    _ => return Err((i, "unknown escape in string".into())),
                }
                i += 2;
            }
            Some(&c) => {
                out.push(c);
                i += 1;
            }
        }
    }
}

/// The number after `prefix` in an entity name (`v12` → 12).
pub fn entity_number(s: &str, prefix: &str) -> Option<u32> {
    let rest = s.strip_prefix(prefix)?;
    if rest.is_empty() || rest.len() > 9 || !rest.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    rest.parse().ok()
}

/// A cursor over the tokens of a text, with the pieces of the grammar that other text
/// forms share (the RVSDG's, in `vliw-rvsdg`, has the same tokens, types, signatures,
/// declarations, immediates and source locations): its public methods.
pub struct Parser {
    toks: Vec<Token>,
    pos: usize,
    /// Largest entity number accepted (bounds memory on hostile input).
    entity_limit: u32,
}

/// A switch case literal to check once types are known: (inst, case index, negative,
/// magnitude, location).
type SwitchLit = (Inst, usize, bool, u128, (usize, usize));

/// Per-function parsing state.
struct FuncState {
    func: Function,
    /// For each value number: defined yet, and its type is known.
    defined: Vec<bool>,
    typed: Vec<bool>,
    first_use: HashMap<u32, (usize, usize)>,
    /// Instructions in text order with their location and type suffix.
    insts: Vec<(Inst, (usize, usize), Option<Type>)>,
    /// Blocks whose header has been seen.
    block_seen: Vec<bool>,
    /// Switch case literals to check once types are known: (inst, case index, negative, magnitude).
    switch_lits: Vec<SwitchLit>,
}

impl Parser {
    pub fn new(text: &str) -> PResult<Self> {
        let toks = lex(text)?;
        let limit = (text.len() as u64)
            .saturating_mul(64)
            .clamp(1 << 16, 1 << 24) as u32;
        Ok(Parser {
            toks,
            pos: 0,
            entity_limit: limit,
        })
    }

    pub fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    pub fn peek_at(&self, n: usize) -> &Tok {
        &self.toks[(self.pos + n).min(self.toks.len() - 1)].tok
    }

    pub fn loc(&self) -> (usize, usize) {
        let t = &self.toks[self.pos];
        (t.line, t.col)
    }

    pub fn line(&self) -> usize {
        self.toks[self.pos].line
    }

    pub fn prev_line(&self) -> usize {
        self.toks[self.pos.saturating_sub(1)].line
    }

    pub fn at(&self, t: &Tok) -> bool {
        self.peek() == t
    }

    pub fn at_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Ident(i) if i == s)
    }

    pub fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos].tok.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    pub fn err(&self, message: impl Into<String>) -> ParseError {
        let (line, col) = self.loc();
        ParseError {
            line,
            col,
            message: message.into(),
        }
    }

    pub fn err_at(&self, (line, col): (usize, usize), message: impl Into<String>) -> ParseError {
        ParseError {
            line,
            col,
            message: message.into(),
        }
    }

    /// "expected X, found Y", at Y, or just after the previous token when Y is on a
    /// later line (a missing operand at the end of a line).
    pub fn expected(&self, what: &str) -> ParseError {
        let message = format!("expected {what}, found {}", self.peek().describe());
        let cur = &self.toks[self.pos];
        if self.pos > 0 {
            let prev = &self.toks[self.pos - 1];
            if prev.line < cur.line {
                return ParseError {
                    line: prev.line,
                    col: prev.end_col,
                    message,
                };
            }
        }
        ParseError {
            line: cur.line,
            col: cur.col,
            message,
        }
    }

    pub fn expect(&mut self, t: Tok) -> PResult<()> {
        if self.at(&t) {
            self.bump();
            Ok(())
        } else {
            Err(self.expected(&t.describe()))
        }
    }

    pub fn eat(&mut self, t: &Tok) -> bool {
        if self.at(t) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub fn ident(&mut self, what: &str) -> PResult<String> {
        match self.peek() {
            Tok::Ident(s) => {
                let s = s.clone();
                self.bump();
                Ok(s)
            }
            _ => Err(self.expected(what)),
        }
    }

    pub fn keyword(&mut self, kw: &str) -> PResult<()> {
        if self.at_ident(kw) {
            self.bump();
            Ok(())
        } else {
            Err(self.expected(&format!("'{kw}'")))
        }
    }

    fn symbol(&mut self) -> PResult<String> {
        match self.peek() {
            Tok::Symbol(s) => {
                let s = s.clone();
                self.bump();
                Ok(s)
            }
            _ => Err(self.expected("a symbol '@name'")),
        }
    }

    fn string(&mut self) -> PResult<Vec<u8>> {
        match self.peek() {
            Tok::Str(s) => {
                let s = s.clone();
                self.bump();
                Ok(s)
            }
            _ => Err(self.expected("a string")),
        }
    }

    pub fn ty(&mut self) -> PResult<Type> {
        match self.peek() {
            Tok::Ident(s) => match Type::from_name(s) {
                Some(t) => {
                    self.bump();
                    Ok(t)
                }
                None => Err(self.err(format!("unknown type '{s}'"))),
            },
            _ => Err(self.expected("a type")),
        }
    }

    /// An unsigned integer literal.
    pub fn uint(&mut self) -> PResult<u128> {
        match self.peek() {
            Tok::Int(v, _) => {
                let v = *v;
                self.bump();
                Ok(v)
            }
            _ => Err(self.expected("an integer")),
        }
    }

    pub fn u32(&mut self) -> PResult<u32> {
        let loc = self.loc();
        let v = self.uint()?;
        u32::try_from(v).map_err(|_| self.err_at(loc, "number too large (at most 2^32-1)"))
    }

    fn u64(&mut self) -> PResult<u64> {
        let loc = self.loc();
        let v = self.uint()?;
        u64::try_from(v).map_err(|_| self.err_at(loc, "number too large (at most 2^64-1)"))
    }

    /// An integer literal with an optional sign: (negative, magnitude).
    pub fn signed(&mut self) -> PResult<(bool, u128)> {
        let neg = if self.eat(&Tok::Minus) {
            true
        } else {
            self.eat(&Tok::Plus);
            false
        };
        Ok((neg, self.uint()?))
    }

    /// A literal of integer type `ty`: `-2^(w-1) ..= 2^w - 1`, returned masked.
    fn int_of_type(&mut self, ty: Type) -> PResult<u128> {
        let loc = self.loc();
        let (neg, mag) = self.signed()?;
        int_literal(ty, neg, mag)
            .ok_or_else(|| self.err_at(loc, format!("integer literal out of range for {ty}")))
    }

    /// An optional `+N` / `-N` offset fitting in an i64.
    pub fn offset(&mut self) -> PResult<i64> {
        if !matches!(self.peek(), Tok::Plus | Tok::Minus) {
            return Ok(0);
        }
        let loc = self.loc();
        let (neg, mag) = self.signed()?;
        let v = if neg {
            if mag > 1u128 << 63 {
                None
            } else {
                Some((mag as i128).wrapping_neg() as i64)
            }
        } else {
            i64::try_from(mag).ok()
        };
        v.ok_or_else(|| self.err_at(loc, "offset out of range"))
    }

    pub fn offset32(&mut self) -> PResult<i32> {
        let loc = self.loc();
        let o = self.offset()?;
        i32::try_from(o)
            .map_err(|_| self.err_at(loc, "offset out of range for a load or store (32 bits)"))
    }

    /// A float literal of `bits` width: decimal, `inf`, `nan`, or `0x` raw bits.
    pub fn float_bits(&mut self, ty: Type) -> PResult<u64> {
        let loc = self.loc();
        let neg = self.eat(&Tok::Minus);
        if !neg {
            self.eat(&Tok::Plus);
        }
        let bad = |p: &Self| p.err_at(loc, format!("bad {ty} literal"));
        let text = match self.bump() {
            Tok::Int(v, s) if s.starts_with("0x") || s.starts_with("0X") => {
                let max = if ty == Type::F32 {
                    u32::MAX as u128
                } else {
                    u64::MAX as u128
                };
                if neg || v > max {
                    return Err(bad(self));
                }
                return Ok(v as u64);
            }
            Tok::Int(_, s) | Tok::Float(s) => s,
            Tok::Ident(s) if s == "inf" || s == "nan" => s,
            _ => return Err(bad(self)),
        };
        let text = if neg { format!("-{text}") } else { text };
        if ty == Type::F32 {
            text.parse::<f32>()
                .map(|x| x.to_bits() as u64)
                .map_err(|_| bad(self))
        } else {
            text.parse::<f64>()
                .map(|x| x.to_bits())
                .map_err(|_| bad(self))
        }
    }

    fn linkage_opt(&mut self) -> Option<Linkage> {
        if let Tok::Ident(s) = self.peek()
            && let Some(l) = Linkage::from_name(s)
        {
            self.bump();
            return Some(l);
        }
        None
    }

    /// `(types [, ...]) [-> types]`
    fn signature(&mut self) -> PResult<Signature> {
        self.signature_with(None)
    }

    /// A signature; with `attrs`, parameters may carry attributes after their types
    /// (`ptr noalias readonly`), given back by position (a function's own signature).
    fn signature_with(&mut self, mut attrs: Option<&mut Vec<ParamAttrs>>) -> PResult<Signature> {
        self.expect(Tok::LParen)?;
        let mut sig = Signature::default();
        if !self.eat(&Tok::RParen) {
            loop {
                if self.eat(&Tok::Ellipsis) {
                    sig.variadic = true;
                    self.expect(Tok::RParen)?;
                    break;
                }
                sig.params.push(self.ty()?);
                if let Some(attrs) = attrs.as_deref_mut() {
                    let mut a = ParamAttrs::default();
                    loop {
                        let flag = if self.at_ident("noalias") {
                            &mut a.noalias
                        } else if self.at_ident("readonly") {
                            &mut a.readonly
                        } else {
                            break;
                        };
                        if *flag {
                            return Err(self.err("a parameter attribute is given twice"));
                        }
                        *flag = true;
                        self.bump();
                    }
                    if !a.is_empty() {
                        attrs.resize(sig.params.len() - 1, ParamAttrs::default());
                        attrs.push(a);
                    }
                }
                if self.eat(&Tok::RParen) {
                    break;
                }
                self.expect(Tok::Comma)?;
            }
        }
        if self.eat(&Tok::Arrow) {
            sig.returns.push(self.ty()?);
            while self.at(&Tok::Comma)
                && matches!(self.peek_at(1), Tok::Ident(s) if Type::from_name(s).is_some())
            {
                self.bump();
                sig.returns.push(self.ty()?);
            }
        }
        Ok(sig)
    }

    // ---- module ----

    fn module(&mut self) -> PResult<Module> {
        let mut m = Module::new();
        loop {
            match self.peek() {
                Tok::Eof => return Ok(m),
                Tok::Ident(s) if s == "declare" => {
                    self.bump();
                    if self.at_ident("function") {
                        self.bump();
                        let name = self.symbol()?;
                        let signature = self.signature()?;
                        m.func_decls.push(FuncDecl { name, signature });
                    } else if self.at_ident("data") {
                        self.bump();
                        let name = self.symbol()?;
                        m.data_decls.push(name);
                    } else {
                        return Err(self.expected("'function' or 'data'"));
                    }
                }
                Tok::Ident(s) if s == "data" => {
                    let d = self.data()?;
                    m.data.push(d);
                }
                Tok::Ident(s) if s == "function" => {
                    let f = self.function()?;
                    m.functions.push(f);
                }
                _ => return Err(self.expected("'function', 'data' or 'declare'")),
            }
        }
    }

    /// `data @name: kind align N [thread_local] [linkage] = init`
    fn data(&mut self) -> PResult<DataObject> {
        self.keyword("data")?;
        let name = self.symbol()?;
        self.expect(Tok::Colon)?;
        let kind_loc = self.loc();
        let kind_name = self.ident("a data kind (rodata, data, bss)")?;
        let kind = DataKind::from_name(&kind_name)
            .ok_or_else(|| self.err_at(kind_loc, format!("unknown data kind '{kind_name}'")))?;
        self.keyword("align")?;
        let align = self.u64()?;
        let thread_local = self.at_ident("thread_local");
        if thread_local {
            self.bump();
        }
        let linkage = self.linkage_opt().unwrap_or(Linkage::Local);
        self.expect(Tok::Equal)?;
        let mut d = DataObject {
            name,
            linkage,
            kind,
            align,
            bytes: Vec::new(),
            relocs: Vec::new(),
            thread_local,
        };
        if self.eat(&Tok::LBrace) {
            if !self.eat(&Tok::RBrace) {
                loop {
                    self.data_elem(&mut d)?;
                    if self.eat(&Tok::RBrace) {
                        break;
                    }
                    self.expect(Tok::Comma)?;
                }
            }
        } else {
            self.data_elem(&mut d)?;
        }
        Ok(d)
    }

    fn data_elem(&mut self, d: &mut DataObject) -> PResult<()> {
        let loc = self.loc();
        let grow = |p: &Self, d: &DataObject, n: u64| -> PResult<()> {
            if d.bytes.len() as u64 + n > MAX_DATA_SIZE {
                Err(p.err_at(
                    loc,
                    format!("data object larger than {MAX_DATA_SIZE} bytes"),
                ))
            } else {
                Ok(())
            }
        };
        if let Tok::Str(_) = self.peek() {
            let s = self.string()?;
            grow(self, d, s.len() as u64)?;
            d.bytes.extend_from_slice(&s);
            return Ok(());
        }
        let kw = self.ident("a data element (string, zero N, iN N, fN X, ptr @sym)")?;
        match kw.as_str() {
            "zero" => {
                let n = self.u64()?;
                grow(self, d, n)?;
                d.bytes.resize(d.bytes.len() + n as usize, 0);
            }
            "ptr" => {
                let symbol = self.symbol()?;
                let addend = self.offset()?;
                grow(self, d, 8)?;
                d.relocs.push(DataReloc {
                    offset: d.bytes.len() as u64,
                    symbol,
                    addend,
                    kind: RelocKind::Abs64,
                });
                d.bytes.extend_from_slice(&[0; 8]);
            }
            "f32" => {
                let b = self.float_bits(Type::F32)? as u32;
                grow(self, d, 4)?;
                d.bytes.extend_from_slice(&b.to_le_bytes());
            }
            "f64" => {
                let b = self.float_bits(Type::F64)?;
                grow(self, d, 8)?;
                d.bytes.extend_from_slice(&b.to_le_bytes());
            }
            _ => match Type::from_name(&kw) {
                Some(t) if t.is_int() && t != Type::I1 => {
                    let v = self.int_of_type(t)?;
                    grow(self, d, t.bytes() as u64)?;
                    d.bytes
                        .extend_from_slice(&v.to_le_bytes()[..t.bytes() as usize]);
                }
                _ => return Err(self.err_at(loc, format!("unknown data element '{kw}'"))),
            },
        }
        Ok(())
    }

    // ---- functions ----

    fn function(&mut self) -> PResult<Function> {
        self.keyword("function")?;
        let mut st = FuncState {
            func: self.function_shell()?,
            defined: Vec::new(),
            typed: Vec::new(),
            first_use: HashMap::default(),
            insts: Vec::new(),
            block_seen: Vec::new(),
            switch_lits: Vec::new(),
        };
        let mut cur: Option<Block> = None;
        loop {
            match self.peek() {
                Tok::RBrace => {
                    self.bump();
                    break;
                }
                Tok::Ident(s) if entity_number(s, "block").is_some() => {
                    let b = self.block_header(&mut st)?;
                    cur = Some(b);
                }
                Tok::Eof => return Err(self.expected("'}'")),
                _ => match cur {
                    Some(b) => self.instruction(&mut st, b)?,
                    None => return Err(self.expected("a block header 'blockN:'")),
                },
            }
        }
        self.finish(st)
    }

    /// What follows the keyword of a function: `@name(sig) [linkage] [inline] [cold]
    /// [personality @sym] {`
    /// and the declarations; a function without blocks.
    pub fn function_shell(&mut self) -> PResult<Function> {
        let name = self.symbol()?;
        let mut param_attrs = Vec::new();
        let signature = self.signature_with(Some(&mut param_attrs))?;
        let linkage = self.linkage_opt().unwrap_or(Linkage::Local);
        let inline = self.inline_hint()?;
        let cold = self.at_ident("cold");
        if cold {
            self.bump();
        }
        let mut personality = None;
        if self.at_ident("personality") {
            self.bump();
            personality = Some(self.symbol()?);
        }
        self.expect(Tok::LBrace)?;
        let mut func = Function::new(name, signature, linkage);
        func.param_attrs = param_attrs;
        func.inline = inline;
        func.cold = cold;
        func.personality = personality;
        self.preamble(&mut func)?;
        Ok(func)
    }

    /// `inline`, `inline(always)`, `inline(never)`, or nothing.
    fn inline_hint(&mut self) -> PResult<InlineHint> {
        if !self.at_ident("inline") {
            return Ok(InlineHint::Default);
        }
        self.bump();
        if !self.eat(&Tok::LParen) {
            return Ok(InlineHint::Hint);
        }
        let hint = match self.peek() {
            Tok::Ident(s) if s == "always" => InlineHint::Always,
            Tok::Ident(s) if s == "never" => InlineHint::Never,
            _ => return Err(self.expected("'always' or 'never'")),
        };
        self.bump();
        self.expect(Tok::RParen)?;
        Ok(hint)
    }

    fn preamble(&mut self, func: &mut Function) -> PResult<()> {
        loop {
            let Tok::Ident(s) = self.peek().clone() else {
                return Ok(());
            };
            if self.peek_at(1) != &Tok::Equal {
                return Ok(());
            }
            let loc = self.loc();
            let check = |p: &Self, n: Option<u32>, next: usize, what: &str| -> PResult<()> {
                if n == Some(next as u32) {
                    Ok(())
                } else {
                    Err(p.err_at(
                        loc,
                        format!("expected {what}{next} (declarations are numbered in order)"),
                    ))
                }
            };
            if s.starts_with("ss") && entity_number(&s, "ss").is_some() {
                check(self, entity_number(&s, "ss"), func.stack_slots.len(), "ss")?;
                self.bump();
                self.bump();
                self.keyword("stack_slot")?;
                let size = self.u32()?;
                self.expect(Tok::Comma)?;
                self.keyword("align")?;
                let align = self.u32()?;
                func.stack_slots.push(StackSlotData { size, align });
            } else if entity_number(&s, "sig").is_some() {
                check(self, entity_number(&s, "sig"), func.signatures.len(), "sig")?;
                self.bump();
                self.bump();
                let sig = self.signature()?;
                func.signatures.push(sig);
            } else if entity_number(&s, "fn").is_some() {
                check(self, entity_number(&s, "fn"), func.ext_funcs.len(), "fn")?;
                self.bump();
                self.bump();
                let name = self.symbol()?;
                let signature = self.signature()?;
                let nounwind = self.at_ident("nounwind");
                if nounwind {
                    self.bump();
                }
                func.ext_funcs.push(ExtFuncData {
                    name,
                    signature,
                    nounwind,
                });
            } else if entity_number(&s, "gv").is_some() {
                check(self, entity_number(&s, "gv"), func.globals.len(), "gv")?;
                self.bump();
                self.bump();
                self.keyword("symbol")?;
                let name = self.symbol()?;
                func.globals.push(name);
            } else if entity_number(&s, "file").is_some() {
                check(self, entity_number(&s, "file"), func.files.len(), "file")?;
                self.bump();
                self.bump();
                let name = self.string()?;
                let name = String::from_utf8(name)
                    .map_err(|_| self.err_at(loc, "file name is not UTF-8"))?;
                func.files.push(name);
            } else {
                return Ok(());
            }
        }
    }

    fn check_limit(&self, n: u32, loc: (usize, usize)) -> PResult<()> {
        if n > self.entity_limit {
            Err(self.err_at(loc, format!("entity number {n} too large for this input")))
        } else {
            Ok(())
        }
    }

    /// The block numbered `n`, creating placeholders up to it.
    fn block_entity(&self, st: &mut FuncState, n: u32, loc: (usize, usize)) -> PResult<Block> {
        self.check_limit(n, loc)?;
        while st.func.dfg.num_blocks() <= n as usize {
            st.func.dfg.make_block();
            st.block_seen.push(false);
        }
        Ok(Block::from_u32(n))
    }

    /// The value numbered `n`, creating placeholders up to it.
    fn value_entity(&self, st: &mut FuncState, n: u32, loc: (usize, usize)) -> PResult<Value> {
        self.check_limit(n, loc)?;
        while st.func.dfg.num_values() <= n as usize {
            st.func.dfg.make_value(Type::I8);
            st.defined.push(false);
            st.typed.push(false);
        }
        Ok(Value::from_u32(n))
    }

    /// A value operand (a use).
    fn value(&mut self, st: &mut FuncState) -> PResult<Value> {
        let loc = self.loc();
        let n = match self.peek() {
            Tok::Ident(s) => entity_number(s, "v"),
            _ => None,
        };
        let Some(n) = n else {
            return Err(self.expected("a value 'vN'"));
        };
        self.bump();
        let v = self.value_entity(st, n, loc)?;
        st.first_use.entry(n).or_insert(loc);
        Ok(v)
    }

    /// A value being defined (result or parameter).
    fn def_value(&mut self, st: &mut FuncState) -> PResult<Value> {
        let loc = self.loc();
        let n = match self.peek() {
            Tok::Ident(s) => entity_number(s, "v"),
            _ => None,
        };
        let Some(n) = n else {
            return Err(self.expected("a value 'vN'"));
        };
        self.bump();
        let v = self.value_entity(st, n, loc)?;
        if st.defined[n as usize] {
            return Err(self.err_at(loc, format!("{v} is defined twice")));
        }
        st.defined[n as usize] = true;
        Ok(v)
    }

    fn values_list(&mut self, st: &mut FuncState, close: Tok) -> PResult<Vec<Value>> {
        let mut vs = Vec::new();
        if self.eat(&close) {
            return Ok(vs);
        }
        loop {
            vs.push(self.value(st)?);
            if self.eat(&close) {
                return Ok(vs);
            }
            self.expect(Tok::Comma)?;
        }
    }

    fn block_ref(&mut self, st: &mut FuncState) -> PResult<Block> {
        let loc = self.loc();
        let n = match self.peek() {
            Tok::Ident(s) => entity_number(s, "block"),
            _ => None,
        };
        let Some(n) = n else {
            return Err(self.expected("a block 'blockN'"));
        };
        self.bump();
        self.block_entity(st, n, loc)
    }

    /// `fnN(args)` of `call` and `invoke`.
    fn direct_call(&mut self, st: &mut FuncState) -> PResult<(FuncRef, Vec<Value>)> {
        let n = self.ref_number("fn", st.func.ext_funcs.len(), "a function reference")?;
        self.expect(Tok::LParen)?;
        let args = self.values_list(st, Tok::RParen)?;
        Ok((FuncRef::from_u32(n), args))
    }

    /// `sigN, callee(args)` of `call_indirect` and `invoke_indirect`: the callee first.
    fn indirect_call(&mut self, st: &mut FuncState) -> PResult<(SigRef, Vec<Value>)> {
        let n = self.ref_number("sig", st.func.signatures.len(), "a signature reference")?;
        self.expect(Tok::Comma)?;
        let callee = self.value(st)?;
        self.expect(Tok::LParen)?;
        let mut args = vec![callee];
        args.extend(self.values_list(st, Tok::RParen)?);
        Ok((SigRef::from_u32(n), args))
    }

    /// `, blockN, blockU` after an invoke's call.
    fn invoke_targets(&mut self, st: &mut FuncState) -> PResult<[BlockCall; 2]> {
        self.expect(Tok::Comma)?;
        let normal = self.block_call(st)?;
        self.expect(Tok::Comma)?;
        let unwind = self.block_call(st)?;
        Ok([normal, unwind])
    }

    fn block_call(&mut self, st: &mut FuncState) -> PResult<BlockCall> {
        let block = self.block_ref(st)?;
        let args = if self.eat(&Tok::LParen) {
            self.values_list(st, Tok::RParen)?
        } else {
            Vec::new()
        };
        Ok(BlockCall { block, args })
    }

    fn block_header(&mut self, st: &mut FuncState) -> PResult<Block> {
        let loc = self.loc();
        let block = self.block_ref(st)?;
        if st.block_seen[block.index()] {
            return Err(self.err_at(loc, format!("{block} is defined twice")));
        }
        st.block_seen[block.index()] = true;
        st.func.layout.append_block(block);
        if self.eat(&Tok::LParen) {
            loop {
                let v = self.def_value(st)?;
                self.expect(Tok::Colon)?;
                let ty = self.ty()?;
                st.func.dfg.set_value_type(v, ty);
                st.typed[v.index()] = true;
                st.func.dfg.attach_block_param(block, v);
                if self.eat(&Tok::RParen) {
                    break;
                }
                self.expect(Tok::Comma)?;
            }
        }
        self.expect(Tok::Colon)?;
        Ok(block)
    }

    pub fn mem_flags(&mut self) -> PResult<MemFlags> {
        let mut flags = MemFlags::new();
        loop {
            if self.at_ident("volatile") {
                self.bump();
                flags.volatile = true;
            } else if self.at_ident("speculative") {
                self.bump();
                flags.speculative = true;
            } else if self.at_ident("align") {
                self.bump();
                flags.align = self.u32()?;
            } else if self.at_ident("scope") {
                self.bump();
                let group = self.u32()?;
                let class = self.u32()?;
                flags.scope = Some(crate::instructions::AliasScope { group, class });
            } else {
                return Ok(flags);
            }
        }
    }

    pub fn ref_number(&mut self, prefix: &str, len: usize, what: &str) -> PResult<u32> {
        let loc = self.loc();
        let n = match self.peek() {
            Tok::Ident(s) => entity_number(s, prefix),
            _ => None,
        };
        let Some(n) = n else {
            return Err(self.expected(&format!("{what} '{prefix}N'")));
        };
        if n as usize >= len {
            return Err(self.err_at(loc, format!("{prefix}{n} is not declared")));
        }
        self.bump();
        Ok(n)
    }

    /// An optional source location `[file:line:col]` (the default if absent), whose
    /// file must be one of `files` (or 0 when there are none).
    pub fn source_loc(&mut self, files: usize) -> PResult<SourceLoc> {
        let start = self.loc();
        if !self.eat(&Tok::LBracket) {
            return Ok(SourceLoc::default());
        }
        let file = self.u32()?;
        if file as usize >= files && !(file == 0 && files == 0) {
            return Err(self.err_at(start, format!("file{file} is not declared")));
        }
        self.expect(Tok::Colon)?;
        let line = self.u32()?;
        self.expect(Tok::Colon)?;
        let col = self.u32()?;
        self.expect(Tok::RBracket)?;
        Ok(SourceLoc { file, line, col })
    }

    fn instruction(&mut self, st: &mut FuncState, block: Block) -> PResult<()> {
        let start = self.loc();
        let srcloc = self.source_loc(st.func.files.len())?;
        // results
        let mut results = Vec::new();
        if matches!(self.peek(), Tok::Ident(s) if entity_number(s, "v").is_some()) {
            loop {
                results.push(self.def_value(st)?);
                if self.eat(&Tok::Equal) {
                    break;
                }
                self.expect(Tok::Comma)?;
            }
        }
        // opcode
        let op_loc = self.loc();
        let word = self.ident("an instruction")?;
        let (op_name, suffix) = match word.split_once('.') {
            Some((o, t)) => (o, Some(t)),
            None => (word.as_str(), None),
        };
        let opcode = Opcode::from_name(op_name)
            .ok_or_else(|| self.err_at(op_loc, format!("unknown instruction '{op_name}'")))?;
        let ctrl = match suffix {
            Some(t) => {
                if !opcode.has_type_suffix() {
                    return Err(self.err_at(op_loc, format!("'{op_name}' takes no type suffix")));
                }
                Some(
                    Type::from_name(t)
                        .ok_or_else(|| self.err_at(op_loc, format!("unknown type '{t}'")))?,
                )
            }
            None => {
                if opcode.has_type_suffix() {
                    return Err(self.err_at(
                        op_loc,
                        format!("'{op_name}' needs a type suffix ('{op_name}.T')"),
                    ));
                }
                None
            }
        };
        let data = self.operands(st, opcode, ctrl)?;
        let inst = st.func.dfg.make_inst(data);
        for &r in &results {
            st.func.dfg.attach_result(inst, r);
        }
        st.func.layout.append_inst(inst, block);
        if !srcloc.is_default() {
            st.func.srclocs[inst] = srcloc;
        }
        st.insts.push((inst, start, ctrl));
        // fix up the switch literals recorded with a placeholder instruction
        for lit in st.switch_lits.iter_mut() {
            if lit.0 == Inst::reserved_value() {
                lit.0 = inst;
            }
        }
        Ok(())
    }

    fn operands(
        &mut self,
        st: &mut FuncState,
        opcode: Opcode,
        ctrl: Option<Type>,
    ) -> PResult<InstructionData> {
        use InstructionFormat as F;
        Ok(match opcode.format() {
            F::Nullary => InstructionData::Nullary { opcode },
            F::UnaryImm => {
                let imm = match opcode {
                    Opcode::F32const => self.float_bits(Type::F32)? as u128,
                    Opcode::F64const => self.float_bits(Type::F64)? as u128,
                    _ => {
                        let ty = ctrl.unwrap_or(Type::I64);
                        if !(ty.is_int() || ty.is_ptr()) {
                            return Err(self.err(format!("iconst of non-integer type {ty}")));
                        }
                        self.int_of_type(ty)?
                    }
                };
                InstructionData::UnaryImm { opcode, imm }
            }
            F::Unary => InstructionData::Unary {
                opcode,
                arg: self.value(st)?,
            },
            F::Binary => {
                let a = self.value(st)?;
                self.expect(Tok::Comma)?;
                let b = self.value(st)?;
                InstructionData::Binary {
                    opcode,
                    args: [a, b],
                }
            }
            F::Ternary => {
                let a = self.value(st)?;
                self.expect(Tok::Comma)?;
                let b = self.value(st)?;
                self.expect(Tok::Comma)?;
                let c = self.value(st)?;
                InstructionData::Ternary {
                    opcode,
                    args: [a, b, c],
                }
            }
            F::IntCompare => {
                let loc = self.loc();
                let c = self.ident("a condition")?;
                let cond = IntCC::from_name(&c)
                    .ok_or_else(|| self.err_at(loc, format!("unknown icmp condition '{c}'")))?;
                let a = self.value(st)?;
                self.expect(Tok::Comma)?;
                let b = self.value(st)?;
                InstructionData::IntCompare {
                    opcode,
                    cond,
                    args: [a, b],
                }
            }
            F::FloatCompare => {
                let loc = self.loc();
                let c = self.ident("a condition")?;
                let cond = FloatCC::from_name(&c)
                    .ok_or_else(|| self.err_at(loc, format!("unknown fcmp condition '{c}'")))?;
                let a = self.value(st)?;
                self.expect(Tok::Comma)?;
                let b = self.value(st)?;
                InstructionData::FloatCompare {
                    opcode,
                    cond,
                    args: [a, b],
                }
            }
            F::SymbolAddr => {
                let n = self.ref_number("gv", st.func.globals.len(), "a symbol reference")?;
                let offset = self.offset()?;
                InstructionData::SymbolAddr {
                    opcode,
                    global: GlobalRef::from_u32(n),
                    offset,
                }
            }
            F::StackAddr => {
                let n = self.ref_number("ss", st.func.stack_slots.len(), "a stack slot")?;
                let offset = self.offset()?;
                InstructionData::StackAddr {
                    opcode,
                    slot: StackSlot::from_u32(n),
                    offset,
                }
            }
            F::Load => {
                let flags = self.mem_flags()?;
                let arg = self.value(st)?;
                let offset = if opcode == Opcode::Load {
                    self.offset32()?
                } else {
                    0
                };
                InstructionData::Load {
                    opcode,
                    flags,
                    arg,
                    offset,
                }
            }
            F::Store => {
                let flags = self.mem_flags()?;
                let v = self.value(st)?;
                self.expect(Tok::Comma)?;
                let p = self.value(st)?;
                let offset = if opcode == Opcode::Store {
                    self.offset32()?
                } else {
                    0
                };
                InstructionData::Store {
                    opcode,
                    flags,
                    args: [v, p],
                    offset,
                }
            }
            F::AtomicRmw => {
                let loc = self.loc();
                let o = self.ident("an atomic operation")?;
                let op = AtomicRmwOp::from_name(&o).ok_or_else(|| {
                    self.err_at(loc, format!("unknown atomic_rmw operation '{o}'"))
                })?;
                let flags = self.mem_flags()?;
                let p = self.value(st)?;
                self.expect(Tok::Comma)?;
                let v = self.value(st)?;
                InstructionData::AtomicRmw {
                    opcode,
                    flags,
                    op,
                    args: [p, v],
                }
            }
            F::AtomicCas => {
                let flags = self.mem_flags()?;
                let p = self.value(st)?;
                self.expect(Tok::Comma)?;
                let e = self.value(st)?;
                self.expect(Tok::Comma)?;
                let n = self.value(st)?;
                InstructionData::AtomicCas {
                    opcode,
                    flags,
                    args: [p, e, n],
                }
            }
            F::Call => {
                let (func, args) = self.direct_call(st)?;
                InstructionData::Call { opcode, func, args }
            }
            F::CallIndirect => {
                let (sig, args) = self.indirect_call(st)?;
                InstructionData::CallIndirect { opcode, sig, args }
            }
            F::Invoke => {
                let (func, args) = self.direct_call(st)?;
                let blocks = self.invoke_targets(st)?;
                InstructionData::Invoke {
                    opcode,
                    func,
                    args,
                    blocks,
                }
            }
            F::InvokeIndirect => {
                let (sig, args) = self.indirect_call(st)?;
                let blocks = self.invoke_targets(st)?;
                InstructionData::InvokeIndirect {
                    opcode,
                    sig,
                    args,
                    blocks,
                }
            }
            F::Jump => InstructionData::Jump {
                opcode,
                dest: self.block_call(st)?,
            },
            F::Brif => {
                let c = self.value(st)?;
                self.expect(Tok::Comma)?;
                let t = self.block_call(st)?;
                self.expect(Tok::Comma)?;
                let e = self.block_call(st)?;
                InstructionData::Brif {
                    opcode,
                    arg: c,
                    blocks: [t, e],
                }
            }
            F::Switch => {
                let v = self.value(st)?;
                self.expect(Tok::Comma)?;
                let default = self.block_call(st)?;
                self.expect(Tok::Comma)?;
                self.expect(Tok::LBracket)?;
                let mut table = SwitchData::new(default);
                if !self.eat(&Tok::RBracket) {
                    loop {
                        let loc = self.loc();
                        let (neg, mag) = self.signed()?;
                        let raw = if neg { 0u128.wrapping_sub(mag) } else { mag };
                        st.switch_lits.push((
                            Inst::reserved_value(),
                            table.values.len(),
                            neg,
                            mag,
                            loc,
                        ));
                        self.expect(Tok::Arrow)?;
                        let dest = self.block_call(st)?;
                        table.push_case(raw, dest);
                        if self.eat(&Tok::RBracket) {
                            break;
                        }
                        self.expect(Tok::Comma)?;
                    }
                }
                InstructionData::Switch {
                    opcode,
                    arg: v,
                    table: Box::new(table),
                }
            }
            F::Return => {
                let line = self.prev_line();
                let mut args = Vec::new();
                if self.line() == line
                    && matches!(self.peek(), Tok::Ident(s) if entity_number(s, "v").is_some())
                {
                    loop {
                        args.push(self.value(st)?);
                        if !self.eat(&Tok::Comma) {
                            break;
                        }
                    }
                }
                InstructionData::Return { opcode, args }
            }
            F::Trap => {
                let loc = self.loc();
                let code = self.uint()?;
                let code = u16::try_from(code)
                    .map_err(|_| self.err_at(loc, "trap code out of range (0..=65535)"))?;
                InstructionData::Trap { opcode, code }
            }
        })
    }

    /// Infer result types, check that every used value is defined, resolve switch
    /// literals.
    fn finish(&mut self, mut st: FuncState) -> PResult<Function> {
        // every block referenced must have a header
        for (i, seen) in st.block_seen.iter().enumerate() {
            if !seen {
                // Find a branch naming it, for the location.
                let b = Block::new(i);
                for &(inst, loc, _) in &st.insts {
                    if st
                        .func
                        .dfg
                        .branch_destinations(inst)
                        .iter()
                        .any(|d| d.block == b)
                    {
                        return Err(self.err_at(loc, format!("{b} is not defined")));
                    }
                }
            }
        }
        // undefined values
        if let Some((n, loc)) = st
            .first_use
            .iter()
            .filter(|&(&n, _)| !st.defined[n as usize])
            .min_by_key(|&(_, &loc)| loc)
        {
            return Err(self.err_at(*loc, format!("v{n} is not defined")));
        }
        // result types, to a fixed point (operands may be defined later in the text)
        let mut pending: Vec<(Inst, (usize, usize), Option<Type>)> = st.insts.clone();
        loop {
            let mut progress = false;
            let mut still = Vec::new();
            for (inst, loc, ctrl) in pending {
                let func = &st.func;
                let typed = &st.typed;
                let dfg = &func.dfg;
                let types = result_types(func, dfg.inst_data(inst), ctrl, &|v| {
                    (v.index() < typed.len() && typed[v.index()]).then(|| dfg.value_type(v))
                });
                match types {
                    Some(types) => {
                        let results = st.func.dfg.inst_results(inst).to_vec();
                        if types.len() != results.len() {
                            let text = format!(
                                "{} has {} result{}, {} written",
                                st.func.dfg.opcode(inst),
                                types.len(),
                                if types.len() == 1 { "" } else { "s" },
                                results.len()
                            );
                            return Err(self.err_at(loc, text));
                        }
                        for (&r, t) in results.iter().zip(types) {
                            st.func.dfg.set_value_type(r, t);
                            st.typed[r.index()] = true;
                        }
                        progress = true;
                    }
                    None => still.push((inst, loc, ctrl)),
                }
            }
            pending = still;
            if pending.is_empty() {
                break;
            }
            if !progress {
                let (_, loc, _) = pending
                    .iter()
                    .min_by_key(|p| p.1)
                    .copied()
                    .unwrap_or(pending[0]);
                return Err(self.err_at(
                    loc,
                    "cannot infer the result types: an operand's type depends on this instruction",
                ));
            }
        }
        // switch case literals
        for (inst, idx, neg, mag, loc) in std::mem::take(&mut st.switch_lits) {
            let arg = st.func.dfg.inst_args(inst)[0];
            let ty = st.func.dfg.value_type(arg);
            if !ty.is_int() {
                return Err(self.err_at(loc, format!("switch on a non-integer ({ty})")));
            }
            let v = int_literal(ty, neg, mag)
                .ok_or_else(|| self.err_at(loc, format!("case value out of range for {ty}")))?;
            if let InstructionData::Switch { table, .. } = st.func.dfg.inst_data_mut(inst) {
                table.values[idx] = v;
            }
        }
        // values that were never defined stay detached placeholders
        debug_assert!(
            st.func
                .dfg
                .values()
                .all(|v| st.defined[v.index()] || st.func.dfg.value_def(v) == ValueDef::Detached)
        );
        Ok(st.func)
    }
}

/// An integer literal `-mag` or `mag` as a value of `ty` (masked), if in range.
pub fn int_literal(ty: Type, neg: bool, mag: u128) -> Option<u128> {
    let w = ty.bits();
    if neg {
        let min_mag = if w == 1 { 1 } else { 1u128 << (w - 1) };
        (mag <= min_mag).then(|| 0u128.wrapping_sub(mag) & ty.mask())
    } else {
        (mag <= ty.mask()).then_some(mag)
    }
}
