// Display impls honouring width/fill via f.pad and f.alternate, format_args!, write! to String,
// fmt::Write for a custom sink, nested Display, Formatter flags.
use std::fmt::{self, Write};

struct Point {
    x: i32,
    y: i32,
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if f.alternate() {
            write!(f, "Point {{ x = {}, y = {} }}", self.x, self.y)
        } else {
            let s = format!("({}, {})", self.x, self.y);
            f.pad(&s)
        }
    }
}

struct Money(i64);

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let prec = f.precision().unwrap_or(2);
        let cents = abs % 100;
        let whole = abs / 100;
        let mut digits = whole.to_string();
        let mut grouped = String::new();
        while digits.len() > 3 {
            let tail = digits.split_off(digits.len() - 3);
            grouped = format!(",{tail}{grouped}");
        }
        grouped = format!("{digits}{grouped}");
        if prec == 0 {
            write!(f, "{sign}${grouped}")
        } else {
            write!(f, "{sign}${grouped}.{cents:02}")
        }
    }
}

struct Table<'a>(&'a [(&'a str, f64)]);

impl fmt::Display for Table<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = f.width().unwrap_or(10);
        writeln!(f, "+{}+", "-".repeat(width + 10))?;
        for (name, v) in self.0 {
            writeln!(f, "|{name:<width$}|{v:>9.2}|")?;
        }
        write!(f, "+{}+", "-".repeat(width + 10))
    }
}

struct Counter {
    chars: usize,
    lines: usize,
}

impl Write for Counter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.chars += s.chars().count();
        self.lines += s.matches('\n').count();
        Ok(())
    }
}

fn log(args: fmt::Arguments) -> String {
    format!("[log] {args}")
}

fn main() {
    let p = Point { x: 3, y: -4 };
    println!("{p} [{p:>12}] [{p:<12}] [{p:^12}] [{p:*^13}] {p:#}");
    for m in [0, 5, 123456, -987654321, 100] {
        println!("{} {:.0} [{:>16}]", Money(m), Money(m), Money(m).to_string());
    }
    println!("{:14}", Table(&[("apples", 1.5), ("pears", 22.125), ("kiwis", -3.0)]));
    let mut s = String::new();
    write!(s, "{}-{:?}", 1, "two").unwrap();
    writeln!(s, " and {:>4}", 3).unwrap();
    write!(&mut s, "{}", format_args!("{}{}", 'a', 'b')).unwrap();
    println!("{s:?}");
    println!("{}", log(format_args!("x={} y={:.1}", 10, 2.25)));
    let mut c = Counter { chars: 0, lines: 0 };
    write!(c, "héllo\nwörld\n{}\n", Point { x: 1, y: 2 }).unwrap();
    println!("counted {} chars {} lines", c.chars, c.lines);
    let v: Vec<String> = (1..=3).map(|i| format!("{i:>width$}", width = i + 1)).collect();
    println!("{:?}", v);
    let msg = format!("{:?}", format_args!("{} {}", 1, 2));
    println!("{msg}");
    println!("{}", std::format!("{0:?} {0}", "q\"uote"));
}
