// Enums with data: an expression tree with Box, evaluation and printing, Option-like
// niche layouts, C-like enums with discriminants and casts, methods on enums.
#![allow(dead_code)]

use std::fmt;

#[derive(Debug, Clone)]
enum Expr {
    Num(f64),
    Var(&'static str),
    Neg(Box<Expr>),
    Bin(Box<Expr>, Op, Box<Expr>),
    Let(&'static str, Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
enum Level {
    Trace = 1,
    Debug,
    Info = 10,
    Warn,
    Error = 200,
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Expr::Num(n) => write!(f, "{n}"),
            Expr::Var(v) => write!(f, "{v}"),
            Expr::Neg(e) => write!(f, "-({e})"),
            Expr::Bin(a, op, b) => {
                let c = match op {
                    Op::Add => '+',
                    Op::Sub => '-',
                    Op::Mul => '*',
                    Op::Div => '/',
                };
                write!(f, "({a} {c} {b})")
            }
            Expr::Let(n, v, body) => write!(f, "let {n} = {v} in {body}"),
        }
    }
}

fn eval(e: &Expr, env: &mut Vec<(&'static str, f64)>) -> Result<f64, String> {
    Ok(match e {
        Expr::Num(n) => *n,
        Expr::Var(v) => env.iter().rev().find(|(k, _)| k == v).map(|(_, x)| *x).ok_or(format!("unbound {v}"))?,
        Expr::Neg(e) => -eval(e, env)?,
        Expr::Bin(a, op, b) => {
            let (x, y) = (eval(a, env)?, eval(b, env)?);
            match op {
                Op::Add => x + y,
                Op::Sub => x - y,
                Op::Mul => x * y,
                Op::Div if y == 0.0 => return Err("division by zero".into()),
                Op::Div => x / y,
            }
        }
        Expr::Let(n, v, body) => {
            let val = eval(v, env)?;
            env.push((n, val));
            let r = eval(body, env);
            env.pop();
            r?
        }
    })
}

fn num(n: f64) -> Box<Expr> {
    Box::new(Expr::Num(n))
}

fn var(v: &'static str) -> Box<Expr> {
    Box::new(Expr::Var(v))
}

impl Level {
    fn from_u8(v: u8) -> Option<Level> {
        [Level::Trace, Level::Debug, Level::Info, Level::Warn, Level::Error].into_iter().find(|l| *l as u8 == v)
    }
}

fn main() {
    let e = Expr::Let("x", Box::new(Expr::Bin(num(3.0), Op::Mul, num(4.0))), Box::new(Expr::Bin(var("x"), Op::Sub, Box::new(Expr::Neg(Box::new(Expr::Bin(var("x"), Op::Div, num(8.0))))))));
    println!("{e}");
    println!("= {:?}", eval(&e, &mut vec![]));
    let bad = Expr::Bin(num(1.0), Op::Div, Box::new(Expr::Bin(var("y"), Op::Sub, var("y"))));
    println!("{bad} = {:?}", eval(&bad, &mut vec![("y", 2.0)]));
    println!("unbound: {:?}", eval(&Expr::Neg(var("z")), &mut vec![]));
    println!("{:?}", e.clone());
    for l in [Level::Trace, Level::Debug, Level::Info, Level::Warn, Level::Error] {
        println!("{l:?} = {} ", l as u8);
    }
    println!("{:?} {:?} {:?}", Level::from_u8(11), Level::from_u8(3), Level::Warn > Level::Info);
    let mut levels = vec![Level::Error, Level::Trace, Level::Warn];
    levels.sort();
    println!("{levels:?} max {:?}", levels.iter().max());
    println!("sizes: Option<Box<Expr>> == Box<Expr>: {} Option<Level> {} Level {}",
        std::mem::size_of::<Option<Box<Expr>>>() == std::mem::size_of::<Box<Expr>>(),
        std::mem::size_of::<Option<Level>>(), std::mem::size_of::<Level>());
    println!("discriminant eq {}", std::mem::discriminant(&Expr::Num(1.0)) == std::mem::discriminant(&Expr::Num(2.0)));
}
