//! The text form: parsing (the inverse of `write.rs`; the grammar is in `text/mod.rs`).
//! It reads with the SSA IR's token cursor (`vliw_ir::parser::Parser`: tokens, types,
//! signatures, declarations, immediates, source locations) and builds the graph
//! through `Graph`'s API. Errors carry a line and column; no input makes it panic.

use rustc_hash::FxHashMap;
use vliw_ir::parser::{Parser, Tok, entity_number, int_literal};
use vliw_ir::{
    AtomicRmwOp, FloatCC, FuncRef, Function, GlobalRef, InstructionData as D,
    InstructionFormat as F, IntCC, Opcode, ParseError, SigRef, SourceLoc, StackSlot, Type, Value,
};

use crate::graph::{Node, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};

type PResult<T> = Result<T, ParseError>;

/// A position in the text: line and column.
type Pos = (usize, usize);

/// The deepest nesting of regions the parser accepts: it recurses once per region, so
/// this bounds its stack on hostile input.
pub const MAX_DEPTH: usize = 256;

/// Parses a graph: its λs (and any other nodes of the root region).
pub fn parse_graph(text: &str) -> PResult<Rvsdg> {
    let mut gp = GraphParser {
        p: Parser::new(text)?,
        g: Rvsdg::new(),
        depth: 0,
    };
    gp.graph()?;
    Ok(gp.g)
}

/// How many of each declaration the enclosing λ's shell has: what its nodes may name.
#[derive(Copy, Clone, Default)]
struct Decls {
    slots: usize,
    sigs: usize,
    funcs: usize,
    globals: usize,
    files: usize,
}

impl Decls {
    fn of(f: &Function) -> Self {
        Decls {
            slots: f.stack_slots.len(),
            sigs: f.signatures.len(),
            funcs: f.ext_funcs.len(),
            globals: f.globals.len(),
            files: f.files.len(),
        }
    }
}

/// The node names of a λ (or of the root region's other nodes): numbers to nodes.
type Scope = FxHashMap<u32, Node>;

/// An `iconst` literal, resolved once the output type is read: negative, magnitude,
/// location.
type IntLit = (bool, u128, Pos);

struct GraphParser {
    p: Parser,
    g: Rvsdg,
    /// Regions being parsed, nested.
    depth: usize,
}

impl GraphParser {
    fn graph(&mut self) -> PResult<()> {
        let root = self.g.root();
        let mut scope = Scope::default();
        while !self.p.at(&Tok::Eof) {
            // A λ's file table comes after its location, and the root region has none:
            // top-level locations are not checked.
            let loc = self.p.source_loc(usize::MAX)?;
            if self.p.at_ident("lambda") {
                self.lambda(loc)?;
            } else {
                self.node(root, Decls::default(), &mut scope, loc)?;
            }
        }
        Ok(())
    }

    fn lambda(&mut self, loc: SourceLoc) -> PResult<()> {
        self.p.keyword("lambda")?;
        let info = self.p.function_shell()?;
        let decls = Decls::of(&info);
        let (params, _) = self.arguments()?;
        let lambda = self.g.add_lambda(info, &params);
        self.g.set_loc(lambda, loc);
        let body = self.g.lambda_body(lambda);
        let (results, _) = self.region(body, decls, &mut Scope::default())?;
        for o in results {
            self.g.add_result(body, o);
        }
        self.p.expect(Tok::RBrace)
    }

    /// A region's arguments `(a0: T, ...):`: their types, and where each type is
    /// written, then where the `)` is.
    fn arguments(&mut self) -> PResult<(Vec<Ty>, Vec<Pos>)> {
        self.p.expect(Tok::LParen)?;
        let (mut types, mut at) = (Vec::new(), Vec::new());
        while !self.p.at(&Tok::RParen) {
            if !types.is_empty() {
                self.p.expect(Tok::Comma)?;
            }
            let k = types.len();
            match self.p.peek() {
                Tok::Ident(s) if entity_number(s, "a") == Some(k as u32) => self.p.bump(),
                _ => {
                    return Err(self
                        .p
                        .expected(&format!("argument a{k} (arguments are numbered in order)")));
                }
            };
            self.p.expect(Tok::Colon)?;
            at.push(self.p.loc());
            types.push(self.ty()?);
        }
        at.push(self.p.loc());
        self.p.bump();
        self.p.expect(Tok::Colon)?;
        Ok((types, at))
    }

    /// The arguments of a region the graph has made: they must be of `types`, which
    /// are `what`.
    fn check_arguments(&mut self, types: &[Ty], what: &str) -> PResult<()> {
        let (found, at) = self.arguments()?;
        match (0..=found.len()).find(|&k| found.get(k) != types.get(k)) {
            None => Ok(()),
            Some(k) => {
                let list: Vec<String> = types
                    .iter()
                    .enumerate()
                    .map(|(i, t)| format!("a{i}: {t}"))
                    .collect();
                Err(self.p.err_at(
                    at[k],
                    format!("the arguments are {what}: ({})", list.join(", ")),
                ))
            }
        }
    }

    /// A region's nodes and results (its arguments are read): the results, and where
    /// they are.
    fn region(
        &mut self,
        r: Region,
        decls: Decls,
        scope: &mut Scope,
    ) -> PResult<(Vec<Origin>, Pos)> {
        if self.depth >= MAX_DEPTH {
            return Err(self
                .p
                .err(format!("regions nested too deeply (at most {MAX_DEPTH})")));
        }
        self.depth += 1;
        while !self.p.at(&Tok::Arrow) {
            if matches!(self.p.peek(), Tok::Eof | Tok::RBrace | Tok::LParen) {
                return Err(self.p.expected("a node or the results '-> (...)'"));
            }
            let loc = self.p.source_loc(decls.files)?;
            self.node(r, decls, scope, loc)?;
        }
        let at = self.p.loc();
        self.p.bump();
        self.p.expect(Tok::LParen)?;
        let results = self.uses_until(r, scope, Tok::RParen)?;
        self.depth -= 1;
        Ok((results, at))
    }

    /// A node of region `r` (its location is read).
    fn node(&mut self, r: Region, decls: Decls, scope: &mut Scope, loc: SourceLoc) -> PResult<()> {
        let mut name = None;
        if let Tok::Ident(s) = self.p.peek()
            && self.p.peek_at(1) == &Tok::Equal
        {
            let k = entity_number(s, "n").ok_or_else(|| {
                self.p
                    .err(format!("expected a node name 'nK', found '{s}'"))
            })?;
            if scope.contains_key(&k) {
                return Err(self.p.err(format!("n{k} is defined twice")));
            }
            self.p.bump();
            self.p.bump();
            name = Some(k);
        }
        let at = self.p.loc();
        let word = self.p.ident("an operation")?;
        let n = match word.as_str() {
            "gamma" => self.gamma(r, decls, scope)?,
            "theta" => self.theta(r, decls, scope)?,
            "lambda" => {
                return Err(self
                    .p
                    .err_at(at, "a lambda is a top-level item, without a name"));
            }
            _ => self.simple(&word, at, r, decls, scope)?,
        };
        self.g.set_loc(n, loc);
        if let Some(k) = name {
            scope.insert(k, n);
        }
        Ok(())
    }

    fn gamma(&mut self, r: Region, decls: Decls, scope: &mut Scope) -> PResult<Node> {
        let predicate = self.use_(r, scope)?;
        self.p.expect(Tok::LBracket)?;
        let entries = self.uses_until(r, scope, Tok::RBracket)?;
        let outputs = self.outputs()?;
        self.p.expect(Tok::LBrace)?;
        let types: Vec<Ty> = entries.iter().map(|&o| self.g.ty(o)).collect();
        let gamma = self.g.add_gamma(r, predicate, &entries, 0);
        while !self.p.eat(&Tok::RBrace) {
            if !self.p.at(&Tok::LParen) {
                return Err(self.p.expected("an arm '(arguments):' or '}'"));
            }
            let arm = self.g.add_gamma_arm(gamma);
            self.check_arguments(&types, "the gamma's entry variables")?;
            let (results, _) = self.region(arm, decls, scope)?;
            for o in results {
                self.g.add_result(arm, o);
            }
        }
        for ty in outputs {
            self.g.add_output(gamma, ty);
        }
        Ok(gamma)
    }

    fn theta(&mut self, r: Region, decls: Decls, scope: &mut Scope) -> PResult<Node> {
        self.p.expect(Tok::LBracket)?;
        let inits = self.uses_until(r, scope, Tok::RBracket)?;
        let types: Vec<Ty> = inits.iter().map(|&o| self.g.ty(o)).collect();
        let at = self.p.loc();
        if self.outputs()? != types {
            let list: Vec<String> = types.iter().map(Ty::to_string).collect();
            return Err(self.p.err_at(
                at,
                format!(
                    "the outputs of a theta are its loop variables: ': {}'",
                    list.join(", ")
                ),
            ));
        }
        self.p.expect(Tok::LBrace)?;
        let theta = self.g.add_theta(r, &inits);
        let body = self.g.theta_body(theta);
        if !self.p.at(&Tok::LParen) {
            return Err(self.p.expected("the body's arguments '(...):'"));
        }
        self.check_arguments(&types, "the theta's loop variables")?;
        let (results, at) = self.region(body, decls, scope)?;
        if results.len() != inits.len() + 1 {
            return Err(self.p.err_at(
                at,
                format!(
                    "a theta's body gives its predicate, then the next value of each loop \
                     variable: {} results",
                    inits.len() + 1
                ),
            ));
        }
        self.g.set_theta_predicate(theta, results[0]);
        for (i, &o) in results.iter().enumerate().skip(1) {
            self.g.set_result(body, i, o);
        }
        self.p.expect(Tok::RBrace)?;
        Ok(theta)
    }

    /// A simple node: its operation (`word` at `at` is read), inputs and outputs.
    fn simple(
        &mut self,
        word: &str,
        at: Pos,
        r: Region,
        decls: Decls,
        scope: &mut Scope,
    ) -> PResult<Node> {
        let (mut op, literal) = self.op(word, at, decls)?;
        let inputs = self.uses_on_line(r, scope)?;
        let outputs = self.outputs()?;
        let states = op.states().count();
        if let Op::Inst(D::Call { args, .. } | D::CallIndirect { args, .. }) = &mut op {
            let n = inputs.len().checked_sub(states).ok_or_else(|| {
                self.p.err_at(
                    at,
                    format!("'{word}' takes its arguments, then the memory and I/O states"),
                )
            })?;
            *args = vec![Value::from_u32(0); n];
        }
        if let (Some((neg, mag, lit_at)), Op::Inst(D::UnaryImm { imm, .. })) = (literal, &mut op) {
            *imm = match outputs.first() {
                Some(&Ty::Val(t)) if t.is_int() || t.is_ptr() => int_literal(t, neg, mag)
                    .ok_or_else(|| {
                        self.p
                            .err_at(lit_at, format!("integer literal out of range for {t}"))
                    })?,
                _ if !neg => mag,
                _ => {
                    return Err(self
                        .p
                        .err_at(lit_at, "a negative literal needs an integer output type"));
                }
            };
        }
        Ok(self.g.add_simple(r, op, &inputs, &outputs))
    }

    /// An operation as `Op::write` prints it (`word`, at `at`, is read), and the
    /// literal of an `iconst`, which needs the output type.
    fn op(&mut self, word: &str, at: Pos, decls: Decls) -> PResult<(Op, Option<IntLit>)> {
        if let Some(alts) = entity_number(word, "match") {
            return Ok((self.match_op(alts)?, None));
        }
        if word == "mem_split" || word == "mem_join" {
            let n = self.p.u32()?;
            return Ok((
                if word == "mem_split" {
                    Op::MemSplit(n)
                } else {
                    Op::MemJoin(n)
                },
                None,
            ));
        }
        if let Some(alts) = entity_number(word, "ctl") {
            let alt = self.p.u32()?;
            return Ok((Op::Ctl { alt, alts }, None));
        }
        let Some(opcode) = Opcode::from_name(word) else {
            let hint = match word.split_once('.') {
                Some((o, _)) if Opcode::from_name(o).is_some() => {
                    " (no type suffix: the output types say it)"
                }
                _ => "",
            };
            return Err(self
                .p
                .err_at(at, format!("unknown operation '{word}'{hint}")));
        };
        use Opcode::*;
        if matches!(opcode, Udiv | Sdiv | Urem | Srem) && self.p.at_ident("safe") {
            self.p.bump();
            return Ok((Op::SafeDiv(opcode), None));
        }
        let v0 = Value::from_u32(0);
        let mut literal = None;
        let data = match opcode.format() {
            F::Nullary => D::Nullary { opcode },
            F::Jump | F::Brif | F::Switch | F::Return | F::Invoke | F::InvokeIndirect => {
                return Err(self.p.err_at(
                    at,
                    format!("'{word}' is control flow, which gamma and theta nodes express"),
                ));
            }
            F::UnaryImm => {
                let imm = match opcode {
                    F32const => self.p.float_bits(Type::F32)? as u128,
                    F64const => self.p.float_bits(Type::F64)? as u128,
                    _ => {
                        let lit_at = self.p.loc();
                        let (neg, mag) = self.p.signed()?;
                        literal = Some((neg, mag, lit_at));
                        0
                    }
                };
                D::UnaryImm { opcode, imm }
            }
            F::Unary => D::Unary { opcode, arg: v0 },
            F::Binary => D::Binary {
                opcode,
                args: [v0; 2],
            },
            F::Ternary => D::Ternary {
                opcode,
                args: [v0; 3],
            },
            F::IntCompare => {
                let at = self.p.loc();
                let c = self.p.ident("a condition")?;
                let cond = IntCC::from_name(&c)
                    .ok_or_else(|| self.p.err_at(at, format!("unknown icmp condition '{c}'")))?;
                D::IntCompare {
                    opcode,
                    cond,
                    args: [v0; 2],
                }
            }
            F::FloatCompare => {
                let at = self.p.loc();
                let c = self.p.ident("a condition")?;
                let cond = FloatCC::from_name(&c)
                    .ok_or_else(|| self.p.err_at(at, format!("unknown fcmp condition '{c}'")))?;
                D::FloatCompare {
                    opcode,
                    cond,
                    args: [v0; 2],
                }
            }
            F::SymbolAddr => {
                let n = self
                    .p
                    .ref_number("gv", decls.globals, "a symbol reference")?;
                D::SymbolAddr {
                    opcode,
                    global: GlobalRef::from_u32(n),
                    offset: self.p.offset()?,
                }
            }
            F::StackAddr => {
                let n = self.p.ref_number("ss", decls.slots, "a stack slot")?;
                D::StackAddr {
                    opcode,
                    slot: StackSlot::from_u32(n),
                    offset: self.p.offset()?,
                }
            }
            F::Load => D::Load {
                opcode,
                flags: self.p.mem_flags()?,
                arg: v0,
                offset: self.p.offset32()?,
            },
            F::Store => D::Store {
                opcode,
                flags: self.p.mem_flags()?,
                args: [v0; 2],
                offset: self.p.offset32()?,
            },
            F::AtomicRmw => {
                let at = self.p.loc();
                let o = self.p.ident("an atomic operation")?;
                let op = AtomicRmwOp::from_name(&o).ok_or_else(|| {
                    self.p
                        .err_at(at, format!("unknown atomic_rmw operation '{o}'"))
                })?;
                D::AtomicRmw {
                    opcode,
                    flags: self.p.mem_flags()?,
                    op,
                    args: [v0; 2],
                }
            }
            F::AtomicCas => D::AtomicCas {
                opcode,
                flags: self.p.mem_flags()?,
                args: [v0; 3],
            },
            // the arguments are counted once the inputs are read
            F::Call => D::Call {
                opcode,
                func: FuncRef::from_u32(self.p.ref_number(
                    "fn",
                    decls.funcs,
                    "a function reference",
                )?),
                args: Vec::new(),
            },
            F::CallIndirect => D::CallIndirect {
                opcode,
                sig: SigRef::from_u32(self.p.ref_number(
                    "sig",
                    decls.sigs,
                    "a signature reference",
                )?),
                args: Vec::new(),
            },
            F::Trap => {
                let at = self.p.loc();
                let code = u16::try_from(self.p.uint()?)
                    .map_err(|_| self.p.err_at(at, "trap code out of range (0..=65535)"))?;
                D::Trap { opcode, code }
            }
        };
        Ok((Op::Inst(data), literal))
    }

    /// `[N -> K, ..., _ -> K]` after `matchN`.
    fn match_op(&mut self, alts: u32) -> PResult<Op> {
        self.p.expect(Tok::LBracket)?;
        let mut cases = Vec::new();
        loop {
            if self.p.at_ident("_") {
                self.p.bump();
                self.p.expect(Tok::Arrow)?;
                let default = self.p.u32()?;
                self.p.expect(Tok::RBracket)?;
                return Ok(Op::Match {
                    cases: cases.into(),
                    default,
                    alts,
                });
            }
            if !matches!(self.p.peek(), Tok::Int(..)) {
                return Err(self.p.expected("a case 'N -> K' or the default '_ -> K'"));
            }
            let v = self.p.uint()?;
            self.p.expect(Tok::Arrow)?;
            let a = self.p.u32()?;
            self.p.expect(Tok::Comma)?;
            cases.push((v, a));
        }
    }

    fn ty(&mut self) -> PResult<Ty> {
        let ty = match self.p.peek() {
            Tok::Ident(s) if s == "mem" => Ty::Mem,
            Tok::Ident(s) if s == "io" => Ty::Io,
            Tok::Ident(s) if let Some(n) = entity_number(s, "ctl") => Ty::Ctl(n),
            _ => return Ok(Ty::Val(self.p.ty()?)),
        };
        self.p.bump();
        Ok(ty)
    }

    /// `: T, T...`, or nothing.
    fn outputs(&mut self) -> PResult<Vec<Ty>> {
        let mut types = Vec::new();
        if self.p.eat(&Tok::Colon) {
            loop {
                types.push(self.ty()?);
                if !self.p.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        Ok(types)
    }

    /// A use of a value of region `r`: `nK`, `nK.i` or `aK`.
    fn use_(&mut self, r: Region, scope: &Scope) -> PResult<Origin> {
        let found = match self.p.peek() {
            Tok::Ident(s) => self.resolve(s, r, scope),
            _ => None,
        };
        match found {
            Some(Ok(o)) => {
                self.p.bump();
                Ok(o)
            }
            Some(Err(message)) => Err(self.p.err(message)),
            None => Err(self.p.expected("a value 'nK', 'nK.i' or 'aK'")),
        }
    }

    /// What a name means in region `r` (`None` if it is not a value's name).
    fn resolve(&self, s: &str, r: Region, scope: &Scope) -> Option<Result<Origin, String>> {
        if let Some(k) = entity_number(s, "a") {
            let count = self.g.args(r).len();
            return Some(if (k as usize) < count {
                Ok(Origin::Arg(r, k))
            } else {
                Err(format!(
                    "a{k} is not an argument of this region (it has {count})"
                ))
            });
        }
        let (head, index) = match s.split_once('.') {
            Some((head, i)) => (head, Some(entity_number(i, "")?)),
            None => (s, None),
        };
        let k = entity_number(head, "n")?;
        let Some(&n) = scope.get(&k) else {
            return Some(Err(format!(
                "n{k} is not defined (definitions come before uses)"
            )));
        };
        if self.g.node(n).region != r {
            return Some(Err(format!(
                "n{k} is in another region (values enter a region through its node's inputs)"
            )));
        }
        let count = self.g.num_outputs(n);
        Some(match index {
            None if count == 1 => Ok(Origin::Out(n, 0)),
            None if count == 0 => Err(format!("n{k} has no outputs")),
            None => Err(format!(
                "n{k} has {count} outputs: name one, n{k}.0 to n{k}.{}",
                count - 1
            )),
            Some(i) if (i as usize) < count => Ok(Origin::Out(n, i)),
            Some(i) => Err(format!("n{k} has no output {i}")),
        })
    }

    /// Uses separated by commas, up to `close`.
    fn uses_until(&mut self, r: Region, scope: &Scope, close: Tok) -> PResult<Vec<Origin>> {
        let mut uses = Vec::new();
        if self.p.eat(&close) {
            return Ok(uses);
        }
        loop {
            uses.push(self.use_(r, scope)?);
            if self.p.eat(&close) {
                return Ok(uses);
            }
            self.p.expect(Tok::Comma)?;
        }
    }

    /// The inputs of a simple node: uses separated by commas, starting on the line of
    /// its operation (the next line may start with the next node's name).
    fn uses_on_line(&mut self, r: Region, scope: &Scope) -> PResult<Vec<Origin>> {
        let mut uses = Vec::new();
        if self.p.line() == self.p.prev_line() && matches!(self.p.peek(), Tok::Ident(_)) {
            loop {
                uses.push(self.use_(r, scope)?);
                if !self.p.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        Ok(uses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::NodeKind;

    fn ops_of(text: &str) -> Vec<Op> {
        let g = parse_graph(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let body = g.lambda_body(g.lambdas()[0]);
        g.topological_order(body)
            .into_iter()
            .filter_map(|n| match g.kind(n) {
                NodeKind::Simple(op) => Some(op.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn reads_the_rvsdg_operations() {
        let ops = ops_of(
            "lambda @f(i32) {\n  (a0: i32):\n    n0 = match3 [7 -> 2, 0 -> 1, _ -> 0] a0 : ctl3\n    \
             n1 = ctl2 1 : ctl2\n    n2 = sdiv safe a0, a0 : i32\n    -> ()\n}\n",
        );
        assert_eq!(
            ops,
            [
                Op::Match {
                    cases: [(7, 2), (0, 1)].into(),
                    default: 0,
                    alts: 3
                },
                Op::Ctl { alt: 1, alts: 2 },
                Op::SafeDiv(Opcode::Sdiv),
            ]
        );
    }

    #[test]
    fn iconst_literals_take_the_output_type() {
        let ops = ops_of(
            "lambda @f() {\n  ():\n    n0 = iconst -1 : i8\n    n1 = iconst 255 : i8\n    \
             n2 = iconst 7 : f32\n    -> ()\n}\n",
        );
        let imm = |op: &Op| match op {
            Op::Inst(D::UnaryImm { imm, .. }) => *imm,
            _ => panic!("{op:?}"),
        };
        assert_eq!(ops.iter().map(imm).collect::<Vec<_>>(), [0xff, 0xff, 7]);
    }

    #[test]
    fn calls_count_their_arguments_from_the_inputs() {
        let ops = ops_of(
            "lambda @f(i32) {\n    fn0 = @g(i32, i32)\n  (a0: i32, a1: mem, a2: io):\n    \
             n0 = call fn0 a0, a0, a1, a2 : mem, io\n    -> ()\n}\n",
        );
        assert!(matches!(&ops[0], Op::Inst(D::Call { args, .. }) if args.len() == 2));
    }
}
