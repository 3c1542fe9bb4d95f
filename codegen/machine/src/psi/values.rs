//! ψ arguments compared as values: an argument that an unguarded `copy` defines is
//! its copy's source (the source dominates the copy, which dominates the ψ), and two
//! registers that `movi` one constant are one value. Shared by ψ reduction and
//! two-valued ψs.

use rustc_hash::FxHashMap as HashMap;

use crate::mir::{MOp, MachFunction, Reg};

pub struct Values {
    /// What each unguarded copy of a virtual register copies.
    source: HashMap<Reg, Reg>,
    constant: HashMap<Reg, i64>,
}

impl Values {
    pub fn of(mf: &MachFunction) -> Values {
        let mut source = HashMap::default();
        for inst in mf.layout_insts() {
            if inst.op == MOp::Copy
                && inst.guard.is_always()
                && inst.keep.is_none()
                && let (Some(&d @ Reg::Virtual(_)), Some(&s @ Reg::Virtual(_))) =
                    (inst.defs.first(), inst.uses.first())
            {
                source.insert(d, s);
            }
        }
        Values {
            source,
            constant: mf.movi_constants(),
        }
    }

    /// The first source of `r` through unguarded copies.
    pub fn root(&self, mut r: Reg) -> Reg {
        for _ in 0..64 {
            match self.source.get(&r) {
                Some(&s) => r = s,
                None => break,
            }
        }
        r
    }

    /// Whether `a` and `b` are one value (one register, or `movi`s of one constant).
    pub fn same(&self, a: Reg, b: Reg) -> bool {
        a == b
            || self
                .constant
                .get(&a)
                .is_some_and(|c| self.constant.get(&b) == Some(c))
    }
}
