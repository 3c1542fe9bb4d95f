// Iterator impls for own types: a Fibonacci generator, a tree in-order iterator over an
// explicit stack, DoubleEndedIterator and ExactSizeIterator, IntoIterator for a struct
// and a reference to it, FromIterator and Extend for a custom collection.
use std::collections::BTreeSet;

struct Fib {
    a: u64,
    b: u64,
}

impl Iterator for Fib {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        let r = self.a;
        let next = self.a.checked_add(self.b)?;
        self.a = self.b;
        self.b = next;
        Some(r)
    }
}

struct Countdown {
    lo: u32,
    hi: u32,
}

impl Iterator for Countdown {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.lo >= self.hi {
            return None;
        }
        self.hi -= 1;
        Some(self.hi)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.hi - self.lo) as usize;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Countdown {
    fn next_back(&mut self) -> Option<u32> {
        if self.lo >= self.hi {
            return None;
        }
        self.lo += 1;
        Some(self.lo - 1)
    }
}

impl ExactSizeIterator for Countdown {}

enum Tree {
    Leaf,
    Node(Box<Tree>, i32, Box<Tree>),
}

impl Tree {
    fn insert(self, v: i32) -> Tree {
        match self {
            Tree::Leaf => Tree::Node(Box::new(Tree::Leaf), v, Box::new(Tree::Leaf)),
            Tree::Node(l, x, r) => {
                if v < x {
                    Tree::Node(Box::new(l.insert(v)), x, r)
                } else {
                    Tree::Node(l, x, Box::new(r.insert(v)))
                }
            }
        }
    }
    fn iter(&self) -> InOrder<'_> {
        let mut it = InOrder { stack: Vec::new() };
        it.push_left(self);
        it
    }
}

struct InOrder<'a> {
    stack: Vec<&'a Tree>,
}

impl<'a> InOrder<'a> {
    fn push_left(&mut self, mut t: &'a Tree) {
        while let Tree::Node(l, _, _) = t {
            self.stack.push(t);
            t = l;
        }
    }
}

impl<'a> Iterator for InOrder<'a> {
    type Item = i32;
    fn next(&mut self) -> Option<i32> {
        let t = self.stack.pop()?;
        if let Tree::Node(_, v, r) = t {
            self.push_left(r);
            Some(*v)
        } else {
            None
        }
    }
}

#[derive(Debug, Default)]
struct Bag {
    items: BTreeSet<String>,
    inserts: usize,
}

impl FromIterator<String> for Bag {
    fn from_iter<I: IntoIterator<Item = String>>(iter: I) -> Self {
        let mut b = Bag::default();
        b.extend(iter);
        b
    }
}

impl Extend<String> for Bag {
    fn extend<I: IntoIterator<Item = String>>(&mut self, iter: I) {
        for s in iter {
            self.inserts += 1;
            self.items.insert(s);
        }
    }
}

impl IntoIterator for Bag {
    type Item = String;
    type IntoIter = std::collections::btree_set::IntoIter<String>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a> IntoIterator for &'a Bag {
    type Item = &'a String;
    type IntoIter = std::collections::btree_set::Iter<'a, String>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

fn main() {
    println!("{:?}", Fib { a: 0, b: 1 }.take(15).collect::<Vec<_>>());
    println!("fib count until overflow {} last {:?}", Fib { a: 0, b: 1 }.count(), Fib { a: 0, b: 1 }.last());
    println!("even fib sum < 4M {}", Fib { a: 1, b: 2 }.take_while(|&x| x < 4_000_000).filter(|x| x % 2 == 0).sum::<u64>());
    let c = Countdown { lo: 3, hi: 9 };
    println!("len {} {:?}", c.len(), c.collect::<Vec<_>>());
    println!("rev {:?}", Countdown { lo: 3, hi: 9 }.rev().collect::<Vec<_>>());
    let mut both = Countdown { lo: 0, hi: 6 };
    println!("ends {:?} {:?} {:?} {:?} rest {:?}", both.next(), both.next_back(), both.next(), both.next_back(), both.collect::<Vec<_>>());
    let mut t = Tree::Leaf;
    for v in [50, 30, 70, 20, 40, 60, 80, 35, 65, 10] {
        t = t.insert(v);
    }
    println!("in order {:?}", t.iter().collect::<Vec<_>>());
    println!("sum {} max {:?} > 33: {:?}", t.iter().sum::<i32>(), t.iter().max(), t.iter().find(|&v| v > 33));
    let mut bag: Bag = ["pear", "apple", "pear"].iter().map(|s| s.to_string()).collect();
    bag.extend(vec!["fig".to_string(), "apple".to_string()]);
    println!("{bag:?}");
    for s in &bag {
        print!("{s} ");
    }
    println!();
    let upper: Vec<String> = bag.into_iter().map(|s| s.to_uppercase()).collect();
    println!("{upper:?}");
}
