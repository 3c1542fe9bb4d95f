// A small interpreter: tokenizer, recursive-descent parser and tree-walking evaluator for
// a language with integers, variables, arithmetic, comparisons, if/while, functions
// and recursion; runs a few programs (factorial, gcd, primes, collatz) and reports errors.
use std::collections::HashMap;
use std::rc::Rc;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(i64),
    Id(String),
    Sym(&'static str),
}

fn lex(src: &str) -> Result<Vec<Tok>, String> {
    let syms = ["==", "!=", "<=", ">=", "&&", "||", "+", "-", "*", "/", "%", "<", ">", "=", "(", ")", "{", "}", ",", ";"];
    let b = src.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    'outer: while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            out.push(Tok::Num(src[s..i].parse().map_err(|e| format!("{e}"))?));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Id(src[s..i].to_string()));
        } else {
            for s in syms {
                if src[i..].starts_with(s) {
                    out.push(Tok::Sym(s));
                    i += s.len();
                    continue 'outer;
                }
            }
            return Err(format!("unexpected character {c:?} at {i}"));
        }
    }
    Ok(out)
}

#[derive(Debug, Clone)]
enum Ex {
    Num(i64),
    Var(String),
    Bin(&'static str, Box<Ex>, Box<Ex>),
    Call(String, Vec<Ex>),
}

#[derive(Debug, Clone)]
enum St {
    Assign(String, Ex),
    If(Ex, Vec<St>, Vec<St>),
    While(Ex, Vec<St>),
    Print(Ex),
    Return(Ex),
    Fn(String, Vec<String>, Vec<St>),
}

struct Parser {
    t: Vec<Tok>,
    p: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.p)
    }
    fn eat(&mut self, s: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Sym(x)) if *x == s) {
            self.p += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, s: &str) -> Result<(), String> {
        if self.eat(s) { Ok(()) } else { Err(format!("expected `{s}` at token {} ({:?})", self.p, self.peek())) }
    }
    fn ident(&mut self) -> Result<String, String> {
        match self.t.get(self.p).cloned() {
            Some(Tok::Id(s)) => {
                self.p += 1;
                Ok(s)
            }
            other => Err(format!("expected identifier, found {other:?}")),
        }
    }
    fn block(&mut self) -> Result<Vec<St>, String> {
        self.expect("{")?;
        let mut v = Vec::new();
        while !self.eat("}") {
            v.push(self.stmt()?);
        }
        Ok(v)
    }
    fn stmt(&mut self) -> Result<St, String> {
        let kw = match self.peek() {
            Some(Tok::Id(s)) => s.clone(),
            _ => String::new(),
        };
        match kw.as_str() {
            "if" | "while" | "print" | "return" | "fn" => self.p += 1,
            _ => {
                let name = self.ident()?;
                self.expect("=")?;
                let e = self.expr(0)?;
                self.expect(";")?;
                return Ok(St::Assign(name, e));
            }
        }
        Ok(match kw.as_str() {
            "if" => {
                let c = self.expr(0)?;
                let a = self.block()?;
                let b = if matches!(self.peek(), Some(Tok::Id(s)) if s == "else") {
                    self.p += 1;
                    self.block()?
                } else {
                    vec![]
                };
                St::If(c, a, b)
            }
            "while" => St::While(self.expr(0)?, self.block()?),
            "fn" => {
                let name = self.ident()?;
                self.expect("(")?;
                let mut params = Vec::new();
                while !self.eat(")") {
                    params.push(self.ident()?);
                    self.eat(",");
                }
                St::Fn(name, params, self.block()?)
            }
            k => {
                let e = self.expr(0)?;
                self.expect(";")?;
                if k == "print" { St::Print(e) } else { St::Return(e) }
            }
        })
    }
    fn expr(&mut self, min: u8) -> Result<Ex, String> {
        let mut lhs = self.atom()?;
        loop {
            let (op, prec) = match self.peek() {
                Some(Tok::Sym(s)) => match *s {
                    "||" => (*s, 1),
                    "&&" => (*s, 2),
                    "==" | "!=" | "<" | ">" | "<=" | ">=" => (*s, 3),
                    "+" | "-" => (*s, 4),
                    "*" | "/" | "%" => (*s, 5),
                    _ => break,
                },
                _ => break,
            };
            if prec < min {
                break;
            }
            self.p += 1;
            let rhs = self.expr(prec + 1)?;
            lhs = Ex::Bin(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }
    fn atom(&mut self) -> Result<Ex, String> {
        match self.t.get(self.p).cloned() {
            Some(Tok::Num(n)) => {
                self.p += 1;
                Ok(Ex::Num(n))
            }
            Some(Tok::Id(name)) => {
                self.p += 1;
                if self.eat("(") {
                    let mut args = Vec::new();
                    while !self.eat(")") {
                        args.push(self.expr(0)?);
                        self.eat(",");
                    }
                    Ok(Ex::Call(name, args))
                } else {
                    Ok(Ex::Var(name))
                }
            }
            Some(Tok::Sym("(")) => {
                self.p += 1;
                let e = self.expr(0)?;
                self.expect(")")?;
                Ok(e)
            }
            Some(Tok::Sym("-")) => {
                self.p += 1;
                Ok(Ex::Bin("-", Box::new(Ex::Num(0)), Box::new(self.atom()?)))
            }
            other => Err(format!("unexpected {other:?}")),
        }
    }
}

struct Interp {
    fns: HashMap<String, Rc<(Vec<String>, Vec<St>)>>,
    out: Vec<String>,
    steps: u64,
}

impl Interp {
    fn eval(&mut self, e: &Ex, env: &mut HashMap<String, i64>) -> Result<i64, String> {
        self.steps += 1;
        Ok(match e {
            Ex::Num(n) => *n,
            Ex::Var(v) => *env.get(v).ok_or(format!("undefined variable {v}"))?,
            Ex::Bin(op, a, b) => {
                let x = self.eval(a, env)?;
                let y = self.eval(b, env)?;
                match *op {
                    "+" => x.wrapping_add(y),
                    "-" => x.wrapping_sub(y),
                    "*" => x.wrapping_mul(y),
                    "/" | "%" if y == 0 => return Err("division by zero".into()),
                    "/" => x / y,
                    "%" => x % y,
                    "==" => (x == y) as i64,
                    "!=" => (x != y) as i64,
                    "<" => (x < y) as i64,
                    ">" => (x > y) as i64,
                    "<=" => (x <= y) as i64,
                    ">=" => (x >= y) as i64,
                    "&&" => (x != 0 && y != 0) as i64,
                    _ => (x != 0 || y != 0) as i64,
                }
            }
            Ex::Call(name, args) => {
                let f = self.fns.get(name).cloned().ok_or(format!("undefined function {name}"))?;
                let (params, body) = &*f;
                if params.len() != args.len() {
                    return Err(format!("{name} takes {} arguments, got {}", params.len(), args.len()));
                }
                let mut local = HashMap::new();
                for (p, a) in params.iter().zip(args) {
                    local.insert(p.clone(), self.eval(a, env)?);
                }
                self.exec(body, &mut local)?.unwrap_or(0)
            }
        })
    }
    fn exec(&mut self, body: &[St], env: &mut HashMap<String, i64>) -> Result<Option<i64>, String> {
        for s in body {
            match s {
                St::Assign(n, e) => {
                    let v = self.eval(e, env)?;
                    env.insert(n.clone(), v);
                }
                St::If(c, a, b) => {
                    let branch = if self.eval(c, env)? != 0 { a } else { b };
                    if let Some(r) = self.exec(branch, env)? {
                        return Ok(Some(r));
                    }
                }
                St::While(c, b) => {
                    while self.eval(c, env)? != 0 {
                        if let Some(r) = self.exec(b, env)? {
                            return Ok(Some(r));
                        }
                    }
                }
                St::Print(e) => {
                    let v = self.eval(e, env)?;
                    self.out.push(v.to_string());
                }
                St::Return(e) => return Ok(Some(self.eval(e, env)?)),
                St::Fn(n, p, b) => {
                    self.fns.insert(n.clone(), Rc::new((p.clone(), b.clone())));
                }
            }
        }
        Ok(None)
    }
}

fn run(src: &str) -> String {
    let toks = match lex(src) {
        Ok(t) => t,
        Err(e) => return format!("lex error: {e}"),
    };
    let mut p = Parser { t: toks, p: 0 };
    let mut prog = Vec::new();
    while p.peek().is_some() {
        match p.stmt() {
            Ok(s) => prog.push(s),
            Err(e) => return format!("parse error: {e}"),
        }
    }
    let mut it = Interp { fns: HashMap::new(), out: Vec::new(), steps: 0 };
    let r = it.exec(&prog, &mut HashMap::new());
    let mut s = it.out.join(" ");
    if let Err(e) = r {
        s.push_str(&format!(" | runtime error: {e}"));
    }
    format!("{s} ({} steps)", it.steps)
}

fn main() {
    let programs = [
        "fn fact(n) { if n <= 1 { return 1; } return n * fact(n - 1); } i = 0; while i < 21 { print fact(i); i = i + 5; }",
        "fn gcd(a, b) { while b != 0 { t = b; b = a % b; a = t; } return a; } print gcd(1071, 462); print gcd(17, 5); print gcd(0, 9);",
        "n = 2; c = 0; while c < 10 { d = 2; p = 1; while d * d <= n && p { if n % d == 0 { p = 0; } d = d + 1; } if p { print n; c = c + 1; } n = n + 1; }",
        "fn collatz(n) { s = 0; while n != 1 { if n % 2 == 0 { n = n / 2; } else { n = 3 * n + 1; } s = s + 1; } return s; } print collatz(27); print collatz(9);",
        "fn fib(n) { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); } print fib(12); print -(3 - 10) * 2 % 5;",
        "x = 1; print x / (x - 1);",
        "print y + 1;",
        "fn f(a) { return a; } print f(1, 2);",
        "x = = 3;",
        "x = 3 $ 4;",
    ];
    for (i, p) in programs.iter().enumerate() {
        println!("program {i}: {}", run(p));
    }
}
