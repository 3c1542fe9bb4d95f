//! The algebra against its meaning: random expressions of the operations, evaluated
//! under every outcome of their γs, agree with the boolean functions they stand for
//! (union OR, catenation AND), and stay in normal form; the thesis's worked examples.

use proptest::prelude::*;

use super::{Cond, Label, ReturnRegister};

/// γs 0, 1, 2 with 2, 3 and 2 arms; registers 0 and 1 (and 9, the register of the
/// node a catenation is relative to).
const ARMS: [usize; 3] = [2, 3, 2];
const REG: u8 = 9;

type C = Cond<u8, Option<u8>>;

impl ReturnRegister for u8 {
    fn is_return(&self) -> bool {
        *self == REG
    }
}

/// An expression of the operations, kept to evaluate it directly.
#[derive(Clone, Debug)]
enum Expr {
    Never,
    Always(Option<u8>),
    Arm(u8, usize, Option<u8>),
    Switch(u8, Vec<Expr>),
    Union(Box<Expr>, Box<Expr>),
    Cat(Box<Expr>, Box<Expr>),
    Cofactor(Box<Expr>, u8, usize),
}

impl Expr {
    fn build(&self) -> C {
        match self {
            Expr::Never => Cond::Never,
            Expr::Always(t) => Cond::Always(*t),
            Expr::Arm(g, k, t) => Cond::arm(*g, ARMS[*g as usize], *k, *t),
            Expr::Switch(g, arms) => Cond::switch(*g, arms.iter().map(Expr::build).collect()),
            Expr::Union(a, b) => a.build().union(&b.build()),
            Expr::Cat(a, b) => a.build().cat(&b.build()),
            Expr::Cofactor(a, g, k) => a.build().cofactor(*g, *k),
        }
    }

    /// The boolean function it stands for.
    fn holds(&self, outcome: &[usize; 3]) -> bool {
        match self {
            Expr::Never => false,
            Expr::Always(_) => true,
            Expr::Arm(g, k, _) => outcome[*g as usize] == *k,
            Expr::Switch(g, arms) => arms[outcome[*g as usize]].holds(outcome),
            Expr::Union(a, b) => a.holds(outcome) || b.holds(outcome),
            Expr::Cat(a, b) => a.holds(outcome) && b.holds(outcome),
            Expr::Cofactor(a, g, k) => {
                let mut o = *outcome;
                o[*g as usize] = *k;
                a.holds(&o)
            }
        }
    }
}

fn outcomes() -> Vec<[usize; 3]> {
    let mut all = Vec::new();
    for a in 0..ARMS[0] {
        for b in 0..ARMS[1] {
            for c in 0..ARMS[2] {
                all.push([a, b, c]);
            }
        }
    }
    all
}

fn tail() -> impl Strategy<Value = Option<u8>> {
    prop_oneof![Just(None), Just(Some(0)), Just(Some(1)), Just(Some(REG))]
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        Just(Expr::Never),
        tail().prop_map(Expr::Always),
        (0u8..3, 0usize..3, tail()).prop_map(|(g, k, t)| Expr::Arm(g, k % ARMS[g as usize], t)),
    ];
    leaf.prop_recursive(5, 40, 3, |inner| {
        prop_oneof![
            (0u8..3, prop::collection::vec(inner.clone(), 3)).prop_map(|(g, mut arms)| {
                arms.truncate(ARMS[g as usize]);
                Expr::Switch(g, arms)
            }),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Union(a.into(), b.into())),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Cat(a.into(), b.into())),
            (inner, 0u8..3, 0usize..3).prop_map(|(a, g, k)| Expr::Cofactor(
                a.into(),
                g,
                k % ARMS[g as usize]
            )),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn union_is_or_and_catenation_is_and(e in expr()) {
        let c = e.build();
        prop_assert!(c.is_normal(), "{c} from {e:?}");
        for o in outcomes() {
            prop_assert_eq!(c.eval(&|g: u8| o[g as usize]), e.holds(&o), "{} under {:?}", c, o);
        }
    }

    #[test]
    fn union_is_commutative_and_idempotent(a in expr(), b in expr()) {
        let (a, b) = (a.build(), b.build());
        prop_assert_eq!(a.union(&b), b.union(&a));
        prop_assert_eq!(a.union(&a), a.clone());
        // a Λ of the union carries the join of the labels of both sides
        if let Cond::Always(l) = a.union(&b) {
            let all = a.labels().into_iter().chain(b.labels()).fold(None, |acc: Option<Option<u8>>, l| {
                Some(acc.map_or(*l, |a| a.join(l)))
            });
            prop_assert_eq!(Some(l), all);
        }
    }
}

#[test]
fn tails_survive_only_where_both_sides_agree() {
    let (r, s) = (Some(1u8), Some(2u8));
    let l = |t| C::Always(t);
    assert_eq!(l(r).union(&l(r)), l(r));
    assert_eq!(l(r).union(&l(s)), l(None));
    assert_eq!(l(r).union(&C::Never), l(r));
    let g = C::arm(0, 2, 0, s);
    assert_eq!(l(r).union(&g), l(None), "Λ^r ∪ c = Λ for c ≠ ∅");
    assert_eq!(l(r).union(&C::arm(0, 2, 0, r)), l(r));
    // catenation passes a tail on: Λ^rt · c = c[rt/rv]
    let inner = C::arm(1, 2, 1, Some(REG));
    assert_eq!(l(r).cat(&inner), C::arm(1, 2, 1, r));
    assert_eq!(l(None).cat(&inner), inner);
    assert_eq!(
        l(r).cat(&C::arm(1, 2, 1, s)),
        C::arm(1, 2, 1, s),
        "other tails stay"
    );
}

/// §3.5, the exclusive redundancy of Fig. 3.1: γ1 takes γ2 in one arm and A in the
/// other, γ2 takes B and A. A's condition relative to γ1 is
/// ⟨?⟩(γ1, ⟨?⟩(γ2, ∅, Λ^r1), Λ^r1): one copy of A, writing γ1's result r1.
#[test]
fn the_exclusive_redundancy_of_section_3_5() {
    let (g1, g2, r1, r2) = (1u8, 2u8, 1u8, 2u8);
    let a_in_g1 = C::arm(g1, 2, 1, Some(r1));
    let g2_in_g1 = C::arm(g1, 2, 0, Some(r1));
    let a_in_g2 = C::arm(g2, 2, 1, Some(r2));
    let c = a_in_g1.union(&g2_in_g1.cat(&a_in_g2.relabel(&|l| l.map(|_| REG))));
    let want = C::Switch(
        g1,
        vec![
            C::Switch(g2, vec![C::Never, C::Always(Some(r1))]),
            C::Always(Some(r1)),
        ],
    );
    assert_eq!(c, want);
    assert_eq!(c.to_string(), "⟨?⟩(1, ⟨?⟩(2, ∅, ΛSome(1)), ΛSome(1))");
    assert!(
        c.labels().iter().all(|&&l| l == Some(r1)),
        "every use of A writes r1"
    );
    let _ = r2;
}

/// §3.5, the independent redundancy after γ-ordering: A is demanded by γ1's true arm
/// and by γ2's, ⟨?⟩(γ1, Λ, ∅) ⊕ ⟨?⟩(γ2, Λ, ∅); with γ1 dominant its arms get
/// Λ ∪ ⟨?⟩(γ2, Λ, ∅) = Λ and ∅ ∪ ⟨?⟩(γ2, Λ, ∅), that is ⟨?⟩(γ1, Λ, ⟨?⟩(γ2, Λ, ∅)).
#[test]
fn the_independent_redundancy_of_section_3_5() {
    let (g1, g2) = (1u8, 2u8);
    let c = C::arm(g1, 2, 0, None).union(&C::arm(g2, 2, 0, None));
    assert!(matches!(&c, Cond::Or(terms) if terms.len() == 2));
    assert_eq!(c.top_gammas(), vec![g1, g2]);
    let ordered = C::switch(g1, vec![c.cofactor(g1, 0), c.cofactor(g1, 1)]);
    assert_eq!(
        ordered,
        C::Switch(g1, vec![C::Always(None), C::arm(g2, 2, 0, None)])
    );
    assert_eq!(ordered.to_string(), "⟨?⟩(1, ΛNone, ⟨?⟩(2, ΛNone, ∅))");
}

#[test]
fn a_path_tests_each_gamma_once() {
    // ⟨?⟩(g, ⟨?⟩(g, x, y), z) = ⟨?⟩(g, x, z)
    let x = C::arm(1, 3, 2, None);
    let inner = C::switch(0, vec![x.clone(), C::Always(None)]);
    let c = C::switch(0, vec![inner, C::Never]);
    assert_eq!(c, C::Switch(0, vec![x, C::Never]));
    assert!(c.is_normal());
    assert!(
        !C::Switch(
            0,
            vec![C::Switch(0, vec![C::Never, C::Always(None)]), C::Never]
        )
        .is_normal()
    );
}
