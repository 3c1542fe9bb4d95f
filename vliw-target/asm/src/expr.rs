//! Operands of directives: tokens, comma-separated argument lists, and expressions
//! with symbols (`sym`, `sym+8`, `end - start`, `sym - .`, `.-main`, `(1 << 12) - 1`).
//!
//! An expression evaluates to a [`Value`]: a constant plus a sum of section bases and
//! undefined symbols with integer coefficients. `end - start` in one section is a
//! constant; `sym` is relocatable (one base with coefficient 1); `sym - .` is
//! pc-relative (its base minus the current section).

pub use vliw_isa::lex::{Tok, Token, tokenize};

/// Splits tokens at top-level commas. An empty list stays empty; `a,,b` has an
/// empty middle argument.
pub fn split_args(tokens: &[Token]) -> Vec<&[Token]> {
    if tokens.is_empty() {
        return Vec::new();
    }
    let mut args = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, t) in tokens.iter().enumerate() {
        match t.tok {
            Tok::Punct('(') => depth += 1,
            Tok::Punct(')') => depth -= 1,
            Tok::Punct(',') if depth <= 0 => {
                args.push(&tokens[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    args.push(&tokens[start..]);
    args
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
}

/// An expression as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Num(i64),
    Sym(String),
    /// `.`: the location counter.
    Here,
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// Whether the expression mentions `.`.
    pub fn uses_here(&self) -> bool {
        match self {
            Expr::Here => true,
            Expr::Num(_) | Expr::Sym(_) => false,
            Expr::Neg(e) | Expr::Not(e) => e.uses_here(),
            Expr::Bin(_, a, b) => a.uses_here() || b.uses_here(),
        }
    }

    /// Every symbol name the expression mentions.
    pub fn symbols<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Expr::Sym(s) => out.push(s),
            Expr::Num(_) | Expr::Here => {}
            Expr::Neg(e) | Expr::Not(e) => e.symbols(out),
            Expr::Bin(_, a, b) => {
                a.symbols(out);
                b.symbols(out);
            }
        }
    }
}

/// Parses a whole argument as one expression.
pub fn parse_expr(tokens: &[Token], end_col: usize) -> Result<Expr, (usize, String)> {
    let mut p = Parser {
        tokens,
        pos: 0,
        end_col,
        depth: 0,
    };
    let e = p.binary(0)?;
    match p.tokens.get(p.pos) {
        None => Ok(e),
        Some(t) => Err((t.col, format!("unexpected {} in expression", t.tok))),
    }
}

struct Parser<'a> {
    tokens: &'a [Token],
    pos: usize,
    end_col: usize,
    depth: usize,
}

/// Binary operators by precedence level, loosest first.
const LEVELS: [&[(Tok, BinOp)]; 5] = [
    &[(Tok::Punct('|'), BinOp::Or)],
    &[(Tok::Punct('^'), BinOp::Xor)],
    &[(Tok::Punct('&'), BinOp::And)],
    &[(Tok::Shift('<'), BinOp::Shl), (Tok::Shift('>'), BinOp::Shr)],
    &[(Tok::Punct('+'), BinOp::Add), (Tok::Punct('-'), BinOp::Sub)],
];
const MUL_LEVEL: &[(Tok, BinOp)] = &[
    (Tok::Punct('*'), BinOp::Mul),
    (Tok::Punct('/'), BinOp::Div),
    (Tok::Punct('%'), BinOp::Rem),
];

impl Parser<'_> {
    fn col(&self) -> usize {
        self.tokens.get(self.pos).map_or(self.end_col, |t| t.col)
    }

    fn binary(&mut self, level: usize) -> Result<Expr, (usize, String)> {
        let ops = if level < LEVELS.len() {
            LEVELS[level]
        } else {
            MUL_LEVEL
        };
        let operand = |p: &mut Self| {
            if level < LEVELS.len() {
                p.binary(level + 1)
            } else {
                p.unary()
            }
        };
        let mut left = operand(self)?;
        loop {
            let Some(t) = self.tokens.get(self.pos) else {
                return Ok(left);
            };
            let Some((_, op)) = ops.iter().find(|(tok, _)| *tok == t.tok) else {
                return Ok(left);
            };
            self.pos += 1;
            let right = operand(self)?;
            left = Expr::Bin(*op, Box::new(left), Box::new(right));
        }
    }

    fn unary(&mut self) -> Result<Expr, (usize, String)> {
        // Deeply nested input must not overflow the stack.
        self.depth += 1;
        if self.depth > 100 {
            return Err((self.col(), "expression nested too deeply".to_string()));
        }
        let result = self.unary_inner();
        self.depth -= 1;
        result
    }

    fn unary_inner(&mut self) -> Result<Expr, (usize, String)> {
        let col = self.col();
        let Some(t) = self.tokens.get(self.pos) else {
            return Err((col, "expected an expression".to_string()));
        };
        self.pos += 1;
        match &t.tok {
            Tok::Punct('-') => Ok(Expr::Neg(Box::new(self.unary()?))),
            Tok::Punct('+') => self.unary(),
            Tok::Punct('~') => Ok(Expr::Not(Box::new(self.unary()?))),
            Tok::Punct('(') => {
                let e = self.binary(0)?;
                match self.tokens.get(self.pos) {
                    Some(Token {
                        tok: Tok::Punct(')'),
                        ..
                    }) => {
                        self.pos += 1;
                        Ok(e)
                    }
                    _ => Err((self.col(), "expected `)`".to_string())),
                }
            }
            Tok::Num(n) => Ok(Expr::Num(*n)),
            Tok::Ident(s) if s == "." => Ok(Expr::Here),
            Tok::Ident(s) => Ok(Expr::Sym(s.clone())),
            Tok::Quoted(s) => Ok(Expr::Sym(s.clone())),
            other => Err((t.col, format!("expected an expression, found {other}"))),
        }
    }
}

/// What a base of a relocatable value is.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Base {
    /// The start of a section (by index in the assembler's section list).
    Section(usize),
    /// A symbol whose value the assembler does not know (undefined or weak).
    Symbol(String),
}

/// `constant + Σ coeff · base`. Bases with a zero coefficient are dropped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Value {
    pub constant: i64,
    pub terms: Vec<(Base, i64)>,
    /// Symbols defined in a section that the expression named, with their section,
    /// offset and coefficient: a relocation against a global symbol names that symbol
    /// rather than its section.
    pub named: Vec<(String, usize, u64, i64)>,
}

impl Value {
    pub fn constant(c: i64) -> Value {
        Value {
            constant: c,
            ..Value::default()
        }
    }

    pub fn is_absolute(&self) -> bool {
        self.terms.is_empty()
    }

    fn add(mut self, other: Value, sign: i64) -> Value {
        self.constant = self
            .constant
            .wrapping_add(other.constant.wrapping_mul(sign));
        for (base, coeff) in other.terms {
            match self.terms.iter_mut().find(|(b, _)| *b == base) {
                Some((_, c)) => *c = c.wrapping_add(coeff.wrapping_mul(sign)),
                None => self.terms.push((base, coeff.wrapping_mul(sign))),
            }
        }
        self.terms.retain(|(_, c)| *c != 0);
        self.named.extend(
            other
                .named
                .into_iter()
                .map(|(n, s, o, c)| (n, s, o, c.wrapping_mul(sign))),
        );
        self
    }

    fn scale(mut self, k: i64) -> Value {
        self.constant = self.constant.wrapping_mul(k);
        for (_, c) in &mut self.terms {
            *c = c.wrapping_mul(k);
        }
        self.terms.retain(|(_, c)| *c != 0);
        for n in &mut self.named {
            n.3 = n.3.wrapping_mul(k);
        }
        self
    }
}

/// What a symbol stands for when an expression is evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SymValue {
    Absolute(i64),
    /// Defined at `offset` in `section`; `global` if the symbol itself should be named
    /// by a relocation.
    InSection {
        section: usize,
        offset: u64,
        global: bool,
    },
    /// Not known to the assembler: undefined, or weak (a definition elsewhere may win).
    External,
}

/// Evaluates `expr`; `here` is the location counter (section, offset) and `lookup`
/// gives the value of a symbol (or `None` if it cannot be evaluated now: a forward
/// reference when evaluating early).
pub fn eval(
    expr: &Expr,
    here: (usize, u64),
    lookup: &mut dyn FnMut(&str) -> Option<SymValue>,
) -> Result<Value, String> {
    Ok(match expr {
        Expr::Num(n) => Value::constant(*n),
        Expr::Here => Value {
            constant: here.1 as i64,
            terms: vec![(Base::Section(here.0), 1)],
            named: Vec::new(),
        },
        Expr::Sym(name) => match lookup(name) {
            None => return Err(format!("`{name}` is not defined yet")),
            Some(SymValue::Absolute(v)) => Value::constant(v),
            Some(SymValue::InSection {
                section,
                offset,
                global,
            }) => Value {
                constant: offset as i64,
                terms: vec![(Base::Section(section), 1)],
                named: if global {
                    vec![(name.clone(), section, offset, 1)]
                } else {
                    Vec::new()
                },
            },
            Some(SymValue::External) => Value {
                constant: 0,
                terms: vec![(Base::Symbol(name.clone()), 1)],
                named: Vec::new(),
            },
        },
        Expr::Neg(e) => eval(e, here, lookup)?.scale(-1),
        Expr::Not(e) => {
            let v = eval(e, here, lookup)?;
            if !v.is_absolute() {
                return Err("`~` needs an absolute operand".to_string());
            }
            Value::constant(!v.constant)
        }
        Expr::Bin(op, a, b) => {
            let a = eval(a, here, lookup)?;
            let b = eval(b, here, lookup)?;
            match op {
                BinOp::Add => a.add(b, 1),
                BinOp::Sub => a.add(b, -1),
                BinOp::Mul if a.is_absolute() => b.scale(a.constant),
                BinOp::Mul if b.is_absolute() => a.scale(b.constant),
                _ => {
                    if !a.is_absolute() || !b.is_absolute() {
                        return Err(format!(
                            "operator `{}` needs absolute operands",
                            op_name(*op)
                        ));
                    }
                    let (x, y) = (a.constant, b.constant);
                    Value::constant(match op {
                        BinOp::Div | BinOp::Rem if y == 0 => {
                            return Err("division by zero".to_string());
                        }
                        BinOp::Div => x.wrapping_div(y),
                        BinOp::Rem => x.wrapping_rem(y),
                        BinOp::Shl => x.wrapping_shl(y as u32),
                        BinOp::Shr => ((x as u64).wrapping_shr(y as u32)) as i64,
                        BinOp::And => x & y,
                        BinOp::Or => x | y,
                        BinOp::Xor => x ^ y,
                        BinOp::Add | BinOp::Sub | BinOp::Mul => unreachable!("handled above"),
                    })
                }
            }
        }
    })
}

fn op_name(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::And => "&",
        BinOp::Or => "|",
        BinOp::Xor => "^",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> Result<Value, String> {
        let tokens = tokenize(text, 1).map_err(|e| e.1)?;
        let e = parse_expr(&tokens, text.len() + 1).map_err(|e| e.1)?;
        eval(&e, (0, 100), &mut |name| match name {
            "a" => Some(SymValue::InSection {
                section: 0,
                offset: 40,
                global: false,
            }),
            "b" => Some(SymValue::InSection {
                section: 0,
                offset: 8,
                global: true,
            }),
            "c" => Some(SymValue::InSection {
                section: 1,
                offset: 16,
                global: false,
            }),
            "k" => Some(SymValue::Absolute(3)),
            "ext" => Some(SymValue::External),
            _ => None,
        })
    }

    #[test]
    fn constants_and_precedence() {
        assert_eq!(value("1 + 2 * 3").unwrap(), Value::constant(7));
        assert_eq!(value("(1 << 12) - 1").unwrap(), Value::constant(4095));
        assert_eq!(value("-k * 2 | 1").unwrap(), Value::constant(-5));
        assert_eq!(value("~0 & 0xff").unwrap(), Value::constant(255));
        assert!(value("1 / 0").unwrap_err().contains("division by zero"));
    }

    #[test]
    fn differences_in_one_section_are_absolute() {
        assert_eq!(value("a - b").unwrap().constant, 32);
        assert!(value("a - b").unwrap().is_absolute());
        assert_eq!(value(". - a").unwrap().constant, 60);
        let pcrel = value("c - .").unwrap();
        assert_eq!(
            pcrel.terms,
            vec![(Base::Section(1), 1), (Base::Section(0), -1)]
        );
        assert_eq!(pcrel.constant, 16 - 100);
        let ext = value("ext + 4").unwrap();
        assert_eq!(
            (ext.terms.clone(), ext.constant),
            (vec![(Base::Symbol("ext".into()), 1)], 4)
        );
        assert!(value("a * c").unwrap_err().contains("absolute"));
        assert!(value("nothing").unwrap_err().contains("not defined"));
    }

    #[test]
    fn argument_lists() {
        let tokens = tokenize("1, (2, 3), \"x,y\"", 1).unwrap();
        assert_eq!(split_args(&tokens).len(), 3);
        assert!(tokenize("1 ? 2", 1).is_err());
        let deep = "(".repeat(500) + "1" + &")".repeat(500);
        let tokens = tokenize(&deep, 1).unwrap();
        assert!(parse_expr(&tokens, 1).is_err());
    }
}
