// Drop order: locals in reverse, struct fields in declaration order, Vec elements in
// order, temporaries at end of statement, shadowing, scopes, mem::drop, mem::forget,
// mem::replace/take, Option::take, moves out of a scope, Box and Rc drops.
use std::cell::RefCell;
use std::mem;
use std::rc::Rc;

struct Noisy(&'static str);

impl Drop for Noisy {
    fn drop(&mut self) {
        println!("drop {}", self.0);
    }
}

struct Pair {
    _first: Noisy,
    _second: Noisy,
}

impl Drop for Pair {
    fn drop(&mut self) {
        println!("drop Pair (before its fields)");
    }
}

fn make(name: &'static str) -> Noisy {
    println!("make {name}");
    Noisy(name)
}

fn pass_through(n: Noisy) -> Noisy {
    println!("passing {}", n.0);
    n
}

struct Logger {
    log: Rc<RefCell<Vec<String>>>,
    id: u32,
}

impl Drop for Logger {
    fn drop(&mut self) {
        self.log.borrow_mut().push(format!("logger {}", self.id));
    }
}

#[allow(unused_assignments)]
fn main() {
    println!("-- locals");
    {
        let _a = make("a");
        let _b = make("b");
        let _ = make("wildcard dropped at once");
        println!("end of scope");
    }
    println!("-- struct fields");
    {
        let _p = Pair { _first: Noisy("first"), _second: Noisy("second") };
    }
    println!("-- vec elements");
    {
        let v = vec![Noisy("v0"), Noisy("v1"), Noisy("v2")];
        println!("vec len {}", v.len());
    }
    println!("-- temporaries");
    let len = make("temp").0.len();
    println!("after statement, len {len}");
    println!("-- shadowing");
    {
        let x = make("x1");
        let x = pass_through(x);
        let _x2 = make("x2");
        println!("holding {}", x.0);
    }
    println!("-- mem::drop and forget");
    let d = make("dropped early");
    drop(d);
    let f = make("forgotten");
    mem::forget(f);
    println!("-- replace/take");
    let mut slot = Some(make("slot old"));
    let old = mem::replace(&mut slot, Some(Noisy("slot new")));
    println!("replaced, old is {}", old.as_ref().map(|n| n.0).unwrap());
    drop(old);
    let taken = slot.take();
    println!("taken {}, slot is_none {}", taken.as_ref().unwrap().0, slot.is_none());
    println!("-- reassignment drops the old value");
    let mut r = make("r1");
    r = make("r2");
    println!("r is {}", r.0);
    println!("-- box and rc");
    {
        let b: Box<Noisy> = Box::new(Noisy("boxed"));
        let rc1 = Rc::new(Noisy("rc"));
        let rc2 = rc1.clone();
        drop(rc1);
        println!("rc still alive: {}", rc2.0);
        drop(b);
        println!("end of box/rc scope");
    }
    println!("-- truncate and clear");
    let mut v = vec![Noisy("t0"), Noisy("t1"), Noisy("t2"), Noisy("t3")];
    v.truncate(2);
    v.remove(0);
    println!("cleared next");
    v.clear();
    let log = Rc::new(RefCell::new(Vec::new()));
    {
        let _loggers: Vec<Logger> = (1..=3).map(|id| Logger { log: log.clone(), id }).collect();
        let _l = Logger { log: log.clone(), id: 9 };
    }
    println!("log {:?}", log.borrow());
    println!("-- end of main");
}
