//! Which regions never complete, and what a γ gives back when it does.
//!
//! A bounds check, an overflow check or an `unwrap` is a γ one of whose arms ends the
//! program or the thread: a panic (`call` of the panic function, then `unreachable`),
//! or, with unwinding, a chain of landing pads that drop what is live and resume
//! unwinding (`_Unwind_Resume`, then `unreachable`). Nothing after such a γ runs when
//! that arm is taken, so what comes after it sees only the arms that complete: a
//! value that every completing arm passes through from one entry variable is that
//! entry's input for every user, and a memory state that every completing arm gives
//! back unchanged is, for a load after the γ, the state before it.
//!
//! A region **never completes** when a node at its top level is a `trap` or an
//! `unreachable` (neither gives a state back), a θ whose body never completes (the
//! body runs at least once), or a γ that never completes: the arm its predicate takes
//! when that is known for every completing path (below), or else every arm, never
//! completes.
//!
//! An output has a **completing constant** when it has the same constant value on
//! every path on which it is computed and the program goes on: an `iconst` or a
//! control constant, a `match` of an output that has one, a γ exit whose result in
//! every arm that completes has one (the arm's argument standing for the entry's
//! input). Landing-pad chains give their "did the drop unwind" flag so: `0` on the
//! path where it returns, nothing on the path where it unwinds again (that arm ends
//! in `unreachable`), which decides the `match` of the γ that resumes unwinding.
//!
//! The answers are memoized; a [`Completion`] is valid only until the graph changes
//! below the regions it has answered for (each user makes a new one per loop or per
//! rewrite). Without the memo, nested landing pads make the queries exponential in
//! their depth.

use rustc_hash::FxHashMap;
use vliw_ir::Opcode;

use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg};

use super::rewrite::const_of;

/// The memoized answers for one unchanged graph (see the module documentation).
#[derive(Default)]
pub struct Completion {
    never: FxHashMap<Region, bool>,
    constants: FxHashMap<Origin, Option<u128>>,
}

impl Completion {
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether region `r` never completes: every execution of it ends the program
    /// or unwinds out of the function.
    pub fn never_completes(&mut self, g: &Rvsdg, r: Region) -> bool {
        if let Some(&known) = self.never.get(&r) {
            return known;
        }
        // (a region is never its own descendant: no cycle through the memo)
        let mut never = false;
        for &n in g.nodes(r) {
            never = match g.kind(n) {
                NodeKind::Simple(op) => {
                    matches!(op.opcode(), Some(Opcode::Trap | Opcode::Unreachable))
                }
                NodeKind::Theta { body } => {
                    let body = *body;
                    self.never_completes(g, body)
                }
                NodeKind::Gamma { .. } => self.gamma_never_completes(g, n),
                _ => false,
            };
            if never {
                break;
            }
        }
        self.never.insert(r, never);
        never
    }

    /// Whether γ `n` never completes: the arm it takes on every completing path
    /// never does, or, when that arm is not known, none does.
    pub fn gamma_never_completes(&mut self, g: &Rvsdg, n: Node) -> bool {
        let arms = g.kind(n).subregions().to_vec();
        match self.taken_arm(g, n) {
            Some(a) => self.never_completes(g, arms[a]),
            None => arms.iter().all(|&a| self.never_completes(g, a)),
        }
    }

    /// The arm γ `n` takes whenever the program goes on past it, when its predicate
    /// has a completing constant.
    pub fn taken_arm(&mut self, g: &Rvsdg, n: Node) -> Option<usize> {
        let arms = g.kind(n).subregions().len();
        let alt = self.completing_constant(g, g.input(n, 0))?;
        ((alt as usize) < arms).then_some(alt as usize)
    }

    /// The arms of γ `n` that may complete.
    pub fn completing_arms(&mut self, g: &Rvsdg, n: Node) -> Vec<usize> {
        let arms = g.kind(n).subregions().to_vec();
        if let Some(a) = self.taken_arm(g, n) {
            return vec![a];
        }
        (0..arms.len())
            .filter(|&a| !self.never_completes(g, arms[a]))
            .collect()
    }

    /// The value `o` has on every path on which the program goes on past its
    /// producer (for a control value, its alternative), if one constant.
    pub fn completing_constant(&mut self, g: &Rvsdg, o: Origin) -> Option<u128> {
        if let Some(&known) = self.constants.get(&o) {
            return known;
        }
        let value = self.compute_constant(g, o);
        self.constants.insert(o, value);
        value
    }

    fn compute_constant(&mut self, g: &Rvsdg, o: Origin) -> Option<u128> {
        if let Some(c) = const_of(g, o) {
            return Some(c);
        }
        let Origin::Out(n, k) = o else { return None };
        match g.kind(n) {
            NodeKind::Simple(Op::Ctl { alt, .. }) => Some(u128::from(*alt)),
            NodeKind::Simple(Op::Match { cases, default, .. }) => {
                let v = self.completing_constant(g, g.input(n, 0))?;
                let alt = cases.iter().find(|c| c.0 == v).map_or(*default, |c| c.1);
                Some(u128::from(alt))
            }
            NodeKind::Gamma { .. } => {
                let arms = g.kind(n).subregions().to_vec();
                let mut value = None;
                for a in self.completing_arms(g, n) {
                    let v = match g.results(arms[a])[k as usize] {
                        Origin::Arg(_, e) => {
                            self.completing_constant(g, g.input(n, e as usize + 1))
                        }
                        r => self.completing_constant(g, r),
                    }?;
                    if *value.get_or_insert(v) != v {
                        return None;
                    }
                }
                value
            }
            _ => None,
        }
    }

    /// The entry variable whose argument every completing arm of γ `n` gives back
    /// as exit `k`, if one (and some arm completes).
    pub fn passed_through(&mut self, g: &Rvsdg, n: Node, k: usize) -> Option<u32> {
        let arms = g.kind(n).subregions().to_vec();
        let mut entry = None;
        for a in self.completing_arms(g, n) {
            let Origin::Arg(_, e) = g.results(arms[a])[k] else {
                return None;
            };
            if *entry.get_or_insert(e) != e {
                return None;
            }
        }
        entry
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_graph, verify};

    fn graph(text: &str) -> Rvsdg {
        let g = parse_graph(text).unwrap_or_else(|e| panic!("{e}"));
        verify(&g).unwrap_or_else(|e| panic!("{e:?}"));
        g
    }

    /// A check whose failing arm resumes unwinding after a landing pad: the pad's
    /// flag is `0` where its drop returns, and the arm where the drop unwinds again
    /// never completes, so the γ that resumes is known to take its resuming arm.
    const LANDING_PAD: &str = "
lambda @f(i64, i64) -> i64 {
    fn0 = @drop(ptr)
    fn1 = @resume()
  (a0: i64, a1: i64, a2: mem, a3: io):
    n0 = icmp ult a0, a1 : i1
    n1 = match2 [1 -> 0, _ -> 1] n0 : ctl2
    n2 = gamma n1 [a2, a3, a0] : i64, mem, io {
      (a0: mem, a1: io, a2: i64):
        -> (a2, a0, a1)
      (a0: mem, a1: io, a2: i64):
        n3 = iconst 0 : ptr
        n4 = catch_call fn0 n3, a0, a1 : i1, ptr, i32, mem, io
        n5 = match2 [1 -> 0, _ -> 1] n4.0 : ctl2
        n6 = gamma n5 [n4.3, n4.4] : i1, mem, io {
          (a0: mem, a1: io):
            n7 = iconst 0 : i1
            -> (n7, a0, a1)
          (a0: mem, a1: io):
            unreachable a0, a1
            n8 = iconst 1 : i1
            -> (n8, a0, a1)
        }
        n9 = match2 [1 -> 0, _ -> 1] n6.0 : ctl2
        n10 = gamma n9 [n6.1, n6.2] : mem, io {
          (a0: mem, a1: io):
            -> (a0, a1)
          (a0: mem, a1: io):
            n11 = call fn1 a0, a1 : mem, io
            unreachable n11.0, n11.1
            -> (n11.0, n11.1)
        }
        n12 = undef : i64
        -> (n12, n10.0, n10.1)
    }
    -> (n2.0, n2.1, n2.2)
}
";

    fn gammas(g: &Rvsdg) -> Vec<Node> {
        let l = g.lambdas()[0];
        let mut out = Vec::new();
        for r in g.regions_below(g.lambda_body(l)) {
            for &n in g.nodes(r) {
                if matches!(g.kind(n), NodeKind::Gamma { .. }) {
                    out.push(n);
                }
            }
        }
        out
    }

    #[test]
    fn a_landing_pad_chain_that_resumes_never_completes() {
        let g = graph(LANDING_PAD);
        let gammas = gammas(&g);
        let outer = gammas
            .iter()
            .copied()
            .find(|&n| g.node(n).region == g.lambda_body(g.lambdas()[0]))
            .unwrap();
        let mut c = Completion::new();
        let arms = g.kind(outer).subregions().to_vec();
        assert!(!c.never_completes(&g, arms[0]));
        assert!(c.never_completes(&g, arms[1]));
        assert_eq!(c.completing_arms(&g, outer), vec![0]);
        assert_eq!(c.passed_through(&g, outer, 0), Some(2));
        assert_eq!(c.passed_through(&g, outer, 1), Some(0));
        assert!(!c.gamma_never_completes(&g, outer));
    }

    #[test]
    fn a_drop_flag_is_a_completing_constant() {
        let g = graph(LANDING_PAD);
        let mut c = Completion::new();
        for n in gammas(&g) {
            // the γ that makes the flag gives 0 whenever it completes
            if g.num_outputs(n) == 3 && g.node(n).region != g.lambda_body(g.lambdas()[0]) {
                assert_eq!(c.completing_constant(&g, Origin::Out(n, 0)), Some(0));
            }
        }
    }

    #[test]
    fn an_arm_that_returns_completes() {
        let g = graph(
            "
lambda @f(i64) -> i64 {
  (a0: i64, a1: mem, a2: io):
    n0 = icmp ult a0, a0 : i1
    n1 = match2 [1 -> 0, _ -> 1] n0 : ctl2
    n2 = gamma n1 [a0] : i64 {
      (a0: i64):
        -> (a0)
      (a0: i64):
        n3 = iconst 7 : i64
        -> (n3)
    }
    -> (n2.0, a1, a2)
}
",
        );
        let n = gammas(&g)[0];
        let mut c = Completion::new();
        assert_eq!(c.completing_arms(&g, n), vec![0, 1]);
        assert_eq!(c.passed_through(&g, n, 0), None);
        assert_eq!(c.completing_constant(&g, Origin::Out(n, 0)), None);
    }
}
