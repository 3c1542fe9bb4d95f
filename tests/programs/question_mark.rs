// The ? operator with custom error types: From conversions, Box<dyn Error>, error
// sources, Display of errors, Option with ?.
use std::error::Error;
use std::fmt;
use std::num::ParseIntError;

#[derive(Debug)]
enum ConfigError {
    Missing(String),
    BadNumber { key: String, source: ParseIntError },
    OutOfRange(i64),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ConfigError::Missing(k) => write!(f, "missing key `{k}`"),
            ConfigError::BadNumber { key, .. } => write!(f, "key `{key}` is not a number"),
            ConfigError::OutOfRange(v) => write!(f, "{v} is out of range"),
        }
    }
}

impl Error for ConfigError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            ConfigError::BadNumber { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn lookup<'a>(cfg: &'a [(&str, &str)], key: &str) -> Result<&'a str, ConfigError> {
    cfg.iter().find(|(k, _)| *k == key).map(|(_, v)| *v).ok_or_else(|| ConfigError::Missing(key.to_string()))
}

fn number(cfg: &[(&str, &str)], key: &str) -> Result<i64, ConfigError> {
    let raw = lookup(cfg, key)?;
    let n: i64 = raw.trim().parse().map_err(|source| ConfigError::BadNumber { key: key.into(), source })?;
    if !(0..=1000).contains(&n) {
        return Err(ConfigError::OutOfRange(n));
    }
    Ok(n)
}

#[allow(dead_code)]
#[derive(Debug)]
struct Wrapped(String);
impl From<ParseIntError> for Wrapped {
    fn from(e: ParseIntError) -> Self {
        Wrapped(format!("wrapped: {e}"))
    }
}

fn sum_strs(xs: &[&str]) -> Result<i32, Wrapped> {
    let mut t = 0;
    for x in xs {
        t += x.parse::<i32>()?;
    }
    Ok(t)
}

fn dyn_err(s: &str) -> Result<f64, Box<dyn Error>> {
    let n: i32 = s.parse()?;
    if n == 0 {
        return Err("zero is not allowed".into());
    }
    let f: f64 = format!("{n}.5").parse()?;
    Ok(f / n as f64)
}

fn first_even_square(xs: &[i32]) -> Option<i32> {
    let e = xs.iter().find(|x| *x % 2 == 0)?;
    e.checked_mul(*e)
}

fn report(e: &dyn Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(inner) = cur {
        s.push_str(&format!(" (caused by: {inner})"));
        cur = inner.source();
    }
    s
}

fn main() {
    let cfg = [("width", "640"), ("height", " 480 "), ("depth", "deep"), ("scale", "5000")];
    for key in ["width", "height", "depth", "scale", "missing"] {
        match number(&cfg, key) {
            Ok(v) => println!("{key} = {v}"),
            Err(e) => println!("{key}: {} | {e:?}", report(&e)),
        }
    }
    println!("{:?} {:?}", sum_strs(&["1", "2"]), sum_strs(&["1", "x"]));
    for s in ["4", "0", "z"] {
        match dyn_err(s) {
            Ok(v) => println!("dyn ok {v}"),
            Err(e) => println!("dyn err {e}"),
        }
    }
    println!("{:?} {:?} {:?}", first_even_square(&[1, 3, 4]), first_even_square(&[1, 3]), first_even_square(&[65536]));
}
