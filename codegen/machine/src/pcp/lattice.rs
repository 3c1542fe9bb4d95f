//! The constant lattice and the evaluation of operations on it (004 §2).
//!
//! `D = D' ∪ {⊤, ⊥}` with a flat meet: ⊤ is "no value (yet)", a constant is one
//! 64-bit word (a predicate is 0 or 1), ⊥ is "not constant". What an element says of
//! a register is "whenever the register is defined, its value is in the set": ⊤ is
//! the empty set (never defined, or not evaluated yet), `Const(c)` is `{c}`, ⊥ is
//! every word. So every element also allows *undefined* (machine SSA's contract: a
//! guarded definition is undefined where its guard was false, `docs/predication.md`
//! §1).
//!
//! Most operations are strict, ⊥ before ⊤, as the paper defines its interpretation
//! `I0` (an undefined operand makes the machine interpreter's result undefined too).
//! The operations that read an operand only sometimes are evaluated as the machine
//! interpreter runs them, on every concrete state an element allows (undefined
//! included): `sel` reads only the operand its predicate picks, predicate logic is
//! defined when both values of an undefined operand agree (`pand` of false is
//! false), a compare writes what its type says given its guard (`.unc` writes false
//! under a false guard without reading its operands). Evaluating these on the
//! concrete states instead of strictly is what keeps the analysis sound where an
//! undefined operand gives a defined result.

use vliw_isa::CmpType;
use vliw_isa::Opcode;
use vliw_isa::semantics as sem;

/// An element of the constant lattice.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Lat {
    /// No value: never defined, or not evaluated yet.
    #[default]
    Top,
    /// Always this word where defined (predicates: 0 or 1).
    Const(u64),
    /// Not constant.
    Bottom,
}

impl Lat {
    pub const TRUE: Lat = Lat::Const(1);
    pub const FALSE: Lat = Lat::Const(0);

    /// The greatest lower bound.
    pub fn meet(self, other: Lat) -> Lat {
        match (self, other) {
            (Lat::Top, x) | (x, Lat::Top) => x,
            (Lat::Const(a), Lat::Const(b)) if a == b => Lat::Const(a),
            _ => Lat::Bottom,
        }
    }

    /// Whether `self` is below or equal to `other` (`self ⊑ other`).
    pub fn below(self, other: Lat) -> bool {
        self.meet(other) == self
    }

    pub fn of_bool(b: bool) -> Lat {
        Lat::Const(u64::from(b))
    }

    pub fn constant(self) -> Option<u64> {
        match self {
            Lat::Const(c) => Some(c),
            _ => None,
        }
    }

    /// The truth value of a constant predicate.
    pub fn as_bool(self) -> Option<bool> {
        self.constant().map(|c| c != 0)
    }
}

impl core::fmt::Display for Lat {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Lat::Top => f.write_str("⊤"),
            Lat::Const(c) => write!(f, "{}", *c as i64),
            Lat::Bottom => f.write_str("⊥"),
        }
    }
}

/// One concrete state of a one-bit operand: a truth value or undefined.
type Bit = Option<bool>;

/// The concrete states an element allows for a predicate (undefined always).
fn bits(l: Lat) -> &'static [Bit] {
    match l {
        Lat::Top => &[None],
        Lat::Const(0) => &[Some(false), None],
        Lat::Const(_) => &[Some(true), None],
        Lat::Bottom => &[Some(false), Some(true), None],
    }
}

/// The element describing a set of concrete outcomes (undefined ones say nothing).
fn abstract_bits(outcomes: impl IntoIterator<Item = Bit>) -> Lat {
    outcomes
        .into_iter()
        .flatten()
        .fold(Lat::Top, |acc, b| acc.meet(Lat::of_bool(b)))
}

/// A strict operation: ⊥ if an operand is ⊥, else ⊤ if one is ⊤, else `f` of the
/// constants (004 §2: `I0(op)` strict in ⊥ and ⊤, ⊥ prioritized).
pub fn strict(operands: &[Lat], f: impl FnOnce(&[u64]) -> u64) -> Lat {
    if operands.contains(&Lat::Bottom) {
        return Lat::Bottom;
    }
    let mut words = [0u64; 3];
    for (w, l) in words.iter_mut().zip(operands) {
        match l {
            Lat::Const(c) => *w = *c,
            _ => return Lat::Top,
        }
    }
    Lat::Const(f(&words[..operands.len()]))
}

/// `rd = value(op, a, b, c)` (class `Value`).
pub fn value(op: Opcode, a: Lat, b: Lat, c: Lat) -> Lat {
    strict(&[a, b, c], |w| sem::value(op, w[0], w[1], w[2]))
}

/// The condition of a compare.
pub fn condition(op: Opcode, a: Lat, b: Lat) -> Lat {
    strict(&[a, b], |w| u64::from(sem::condition(op, w[0], w[1])))
}

/// `p2r rd = ps1`.
pub fn p2r(p: Lat) -> Lat {
    strict(&[p], |w| u64::from(w[0] != 0))
}

/// `r2p pd1 = rs1`.
pub fn r2p(a: Lat) -> Lat {
    strict(&[a], |w| u64::from(sem::r2p(w[0])))
}

/// `sel rd = p, a, b`: reads only the operand `p` picks.
pub fn sel(p: Lat, a: Lat, b: Lat) -> Lat {
    match p {
        Lat::Top => Lat::Top,
        Lat::Const(0) => b,
        Lat::Const(_) => a,
        Lat::Bottom => a.meet(b),
    }
}

/// Predicate logic (`pand`, `por`, `pxor`, `pandn`, `porn`, `pnot`; `pnot` reads only
/// `p1`), as the machine interpreter runs it: an undefined operand may be either
/// value, and the result is defined when both give the same.
pub fn predicate_logic(op: Opcode, p1: Lat, p2: Lat) -> Lat {
    let run = |a: Bit, b: Bit| -> Bit {
        let values = |x: Bit| match x {
            Some(v) => vec![v],
            None => vec![false, true],
        };
        let results: Vec<bool> = values(a)
            .into_iter()
            .flat_map(|x| values(b).into_iter().map(move |y| (x, y)))
            .map(|(x, y)| sem::predicate_logic(op, x, y))
            .collect();
        results.iter().all(|&r| r == results[0]).then(|| results[0])
    };
    abstract_bits(
        bits(p1)
            .iter()
            .flat_map(|&a| bits(p2).iter().map(move |&b| run(a, b))),
    )
}

/// What a compare of type `ctype` writes to its two destinations given its guard and
/// condition, as the machine interpreter runs it: an undefined guard leaves both
/// undefined; a false guard writes only for `.unc` (false, false; the operands are
/// not read); a destination the type leaves unchanged is undefined (in SSA it has no
/// other definition); an undefined condition writes what both conditions agree on.
pub fn compare_writes(ctype: CmpType, guard: Lat, cond: Lat) -> (Lat, Lat) {
    let run = |g: Bit, c: Bit| -> (Bit, Bit) {
        let Some(g) = g else {
            return (None, None);
        };
        if !sem::executes(g, ctype, true) {
            return (None, None);
        }
        let c = if g { c } else { Some(false) };
        match c {
            Some(c) => sem::compare_writes(ctype, g, c),
            None => {
                let ((t1, t2), (f1, f2)) = (
                    sem::compare_writes(ctype, g, true),
                    sem::compare_writes(ctype, g, false),
                );
                let agree = |t: Option<bool>, f: Option<bool>| if t == f { t } else { None };
                (agree(t1, f1), agree(t2, f2))
            }
        }
    };
    let mut first = Lat::Top;
    let mut second = Lat::Top;
    for &g in bits(guard) {
        for &c in bits(cond) {
            let (a, b) = run(g, c);
            first = first.meet(abstract_bits([a]));
            second = second.meet(abstract_bits([b]));
        }
    }
    (first, second)
}

/// The value of a guard `(p)` or `(!p)` given the predicate's element.
pub fn guard_value(pred: Lat, negated: bool) -> Lat {
    match pred.as_bool() {
        Some(b) => Lat::of_bool(b != negated),
        None => pred,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meet_is_flat() {
        assert_eq!(Lat::Top.meet(Lat::Const(3)), Lat::Const(3));
        assert_eq!(Lat::Const(3).meet(Lat::Const(3)), Lat::Const(3));
        assert_eq!(Lat::Const(3).meet(Lat::Const(4)), Lat::Bottom);
        assert_eq!(Lat::Bottom.meet(Lat::Top), Lat::Bottom);
        assert!(Lat::Bottom.below(Lat::Const(1)) && Lat::Const(1).below(Lat::Top));
        assert!(!Lat::Const(1).below(Lat::Const(2)));
    }

    #[test]
    fn strict_operations_prefer_bottom() {
        let add = |a, b| value(Opcode::Add, a, b, Lat::Const(0));
        assert_eq!(add(Lat::Const(2), Lat::Const(3)), Lat::Const(5));
        assert_eq!(add(Lat::Top, Lat::Const(3)), Lat::Top);
        assert_eq!(add(Lat::Top, Lat::Bottom), Lat::Bottom);
        assert_eq!(
            condition(Opcode::CmpLt, Lat::Const(-1i64 as u64), Lat::Const(0)),
            Lat::TRUE
        );
        assert_eq!(
            condition(Opcode::CmpLtu, Lat::Bottom, Lat::Top),
            Lat::Bottom
        );
    }

    #[test]
    fn predicate_logic_reads_undefined_as_the_interpreter_does() {
        // pand of false is false whatever the other operand, undefined included
        for other in [Lat::Top, Lat::Bottom, Lat::TRUE, Lat::FALSE] {
            assert_eq!(
                predicate_logic(Opcode::Pand, Lat::FALSE, other),
                Lat::FALSE,
                "{other}"
            );
            assert_eq!(
                predicate_logic(Opcode::Por, other, Lat::TRUE),
                Lat::TRUE,
                "{other}"
            );
        }
        assert_eq!(
            predicate_logic(Opcode::Pand, Lat::TRUE, Lat::TRUE),
            Lat::TRUE
        );
        assert_eq!(predicate_logic(Opcode::Pand, Lat::TRUE, Lat::Top), Lat::Top);
        assert_eq!(
            predicate_logic(Opcode::Pand, Lat::Bottom, Lat::Top),
            Lat::FALSE
        );
        assert_eq!(
            predicate_logic(Opcode::Pxor, Lat::Bottom, Lat::TRUE),
            Lat::Bottom
        );
        assert_eq!(
            predicate_logic(Opcode::Pnot, Lat::TRUE, Lat::FALSE),
            Lat::FALSE
        );
    }

    #[test]
    fn compares_write_as_their_type_says() {
        let (t, f) = (Lat::TRUE, Lat::FALSE);
        assert_eq!(compare_writes(CmpType::Normal, t, t), (t, f));
        assert_eq!(compare_writes(CmpType::Unc, f, Lat::Bottom), (f, f));
        assert_eq!(compare_writes(CmpType::Unc, f, Lat::Top), (f, f));
        assert_eq!(
            compare_writes(CmpType::Normal, f, t),
            (Lat::Top, Lat::Top),
            "a false guard leaves a normal compare's destinations undefined"
        );
        assert_eq!(
            compare_writes(CmpType::Unc, Lat::Bottom, t),
            (Lat::Bottom, f)
        );
        assert_eq!(compare_writes(CmpType::And, t, t), (Lat::Top, Lat::Top));
        assert_eq!(compare_writes(CmpType::And, t, Lat::Bottom), (f, f));
        assert_eq!(
            compare_writes(CmpType::Normal, t, Lat::Top),
            (Lat::Top, Lat::Top)
        );
    }

    #[test]
    fn sel_reads_the_operand_it_picks() {
        assert_eq!(sel(Lat::TRUE, Lat::Const(4), Lat::Bottom), Lat::Const(4));
        assert_eq!(sel(Lat::FALSE, Lat::Top, Lat::Const(2)), Lat::Const(2));
        assert_eq!(
            sel(Lat::Bottom, Lat::Const(2), Lat::Const(2)),
            Lat::Const(2)
        );
        assert_eq!(sel(Lat::Top, Lat::Const(2), Lat::Const(2)), Lat::Top);
    }
}
