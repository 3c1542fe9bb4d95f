//! Register names: 64 general registers and 16 one-bit predicate registers.

use std::fmt;

pub const NUM_GPRS: usize = 64;
pub const NUM_PREDS: usize = 16;

/// A general register `r0`..`r63`. 64 bits wide; floats live here too (f32 in the
/// low 32 bits), so the machine has one register class for values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Gpr(u8);

impl Gpr {
    /// `r0` reads as zero; writes to it are discarded.
    pub const ZERO: Gpr = Gpr(0);
    /// `r1`: stack pointer.
    pub const SP: Gpr = Gpr(1);
    /// `r2`: thread pointer, reserved.
    pub const TP: Gpr = Gpr(2);
    /// `r62`: frame pointer (callee-saved, optional).
    pub const FP: Gpr = Gpr(62);
    /// `r63`: link register, written by `call`/`callr`, read by `ret`.
    pub const LR: Gpr = Gpr(63);

    pub const fn new(n: u8) -> Option<Gpr> {
        if (n as usize) < NUM_GPRS {
            Some(Gpr(n))
        } else {
            None
        }
    }
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    pub const fn num(self) -> u8 {
        self.0
    }
    pub fn all() -> impl Iterator<Item = Gpr> {
        (0..NUM_GPRS as u8).map(Gpr)
    }
    /// Parses `r17` or one of the ABI aliases `zero`, `sp`, `tp`, `fp`, `lr`.
    pub fn parse(s: &str) -> Option<Gpr> {
        match s {
            "zero" => return Some(Gpr::ZERO),
            "sp" => return Some(Gpr::SP),
            "tp" => return Some(Gpr::TP),
            "fp" => return Some(Gpr::FP),
            "lr" => return Some(Gpr::LR),
            _ => {}
        }
        let digits = s.strip_prefix('r')?;
        if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
            return None;
        }
        Gpr::new(digits.parse().ok()?)
    }
}

impl fmt::Display for Gpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.0)
    }
}

/// A predicate register `p0`..`p15`; `p0` reads as true and writes to it are discarded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pred(u8);

impl Pred {
    pub const TRUE: Pred = Pred(0);

    pub const fn new(n: u8) -> Option<Pred> {
        if (n as usize) < NUM_PREDS {
            Some(Pred(n))
        } else {
            None
        }
    }
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    pub const fn num(self) -> u8 {
        self.0
    }
    pub fn all() -> impl Iterator<Item = Pred> {
        (0..NUM_PREDS as u8).map(Pred)
    }
    pub fn parse(s: &str) -> Option<Pred> {
        let digits = s.strip_prefix('p')?;
        if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
            return None;
        }
        Pred::new(digits.parse().ok()?)
    }
}

impl fmt::Display for Pred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "p{}", self.0)
    }
}

/// The guard of an operation: it executes when `pred` (negated if `negated`) is true.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Guard {
    pub pred: Pred,
    pub negated: bool,
}

impl Guard {
    /// `p0`: always executes.
    pub const ALWAYS: Guard = Guard {
        pred: Pred::TRUE,
        negated: false,
    };

    pub fn new(pred: Pred, negated: bool) -> Guard {
        Guard { pred, negated }
    }
    pub fn is_always(self) -> bool {
        self == Guard::ALWAYS
    }
}

impl fmt::Display for Guard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negated {
            write!(f, "(!{})", self.pred)
        } else {
            write!(f, "({})", self.pred)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_registers() {
        assert_eq!(Gpr::parse("r0"), Some(Gpr::ZERO));
        assert_eq!(Gpr::parse("r63"), Some(Gpr::LR));
        assert_eq!(Gpr::parse("sp"), Some(Gpr::SP));
        assert_eq!(Gpr::parse("r64"), None);
        assert_eq!(Gpr::parse("r01"), None);
        assert_eq!(Gpr::parse("r"), None);
        assert_eq!(Pred::parse("p15").map(Pred::num), Some(15));
        assert_eq!(Pred::parse("p16"), None);
    }
}
