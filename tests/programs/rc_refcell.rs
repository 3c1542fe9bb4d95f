// Shared ownership: Rc counts, Weak upgrade after drop, RefCell borrow rules and
// try_borrow, Cell, a tree with parent back-pointers, a shared mutable graph.
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

#[derive(Debug)]
struct Node {
    value: i32,
    parent: RefCell<Weak<Node>>,
    children: RefCell<Vec<Rc<Node>>>,
}

fn node(value: i32) -> Rc<Node> {
    Rc::new(Node { value, parent: RefCell::new(Weak::new()), children: RefCell::new(vec![]) })
}

fn sum(n: &Rc<Node>) -> i32 {
    n.value + n.children.borrow().iter().map(sum).sum::<i32>()
}

fn main() {
    let a = Rc::new(String::from("shared"));
    let b = Rc::clone(&a);
    println!("strong {} weak {}", Rc::strong_count(&a), Rc::weak_count(&a));
    let w = Rc::downgrade(&a);
    println!("strong {} weak {} upgrade {:?}", Rc::strong_count(&a), Rc::weak_count(&a), w.upgrade());
    drop(a);
    println!("after drop a: {} {:?}", Rc::strong_count(&b), w.upgrade().map(|s| s.len()));
    drop(b);
    println!("after drop b: upgrade {:?}", w.upgrade());
    println!("ptr_eq {}", { let x = Rc::new(1); let y = x.clone(); Rc::ptr_eq(&x, &y) });

    let root = node(1);
    for v in 2..5 {
        let child = node(v);
        *child.parent.borrow_mut() = Rc::downgrade(&root);
        for g in 0..v {
            let gc = node(v * 10 + g);
            *gc.parent.borrow_mut() = Rc::downgrade(&child);
            child.children.borrow_mut().push(gc);
        }
        root.children.borrow_mut().push(child);
    }
    println!("tree sum {}", sum(&root));
    let leaf = root.children.borrow()[2].children.borrow()[1].clone();
    let mut path = vec![leaf.value];
    let mut cur = leaf.parent.borrow().upgrade();
    while let Some(p) = cur {
        path.push(p.value);
        cur = p.parent.borrow().upgrade();
    }
    println!("path to root {path:?}; root strong {} weak {}", Rc::strong_count(&root), Rc::weak_count(&root));

    let cell = RefCell::new(vec![1, 2, 3]);
    {
        let r1 = cell.borrow();
        let r2 = cell.borrow();
        println!("two readers {} {} try_borrow_mut is_err {}", r1.len(), r2[0], cell.try_borrow_mut().is_err());
    }
    cell.borrow_mut().push(4);
    {
        let _w = cell.borrow_mut();
        println!("writer active: try_borrow is_err {}", cell.try_borrow().is_err());
    }
    println!("{:?}", cell.borrow());
    let replaced = cell.replace(vec![9]);
    println!("replaced {replaced:?} now {:?}", cell.borrow());
    let taken = cell.take();
    println!("take {taken:?} after {:?}", cell.borrow());

    let c = Cell::new(5);
    c.set(c.get() * 2);
    let old = c.replace(1);
    println!("cell old {old} new {} swap", c.get());
    let counter = Rc::new(Cell::new(0u32));
    let handles: Vec<Rc<Cell<u32>>> = (0..5).map(|_| counter.clone()).collect();
    for (i, h) in handles.iter().enumerate() {
        h.set(h.get() + i as u32);
    }
    println!("counter {} strong {}", counter.get(), Rc::strong_count(&counter));
    let shared = Rc::new(RefCell::new(Vec::<String>::new()));
    let loggers: Vec<Box<dyn Fn(&str)>> = (0..3)
        .map(|i| {
            let s = shared.clone();
            Box::new(move |m: &str| s.borrow_mut().push(format!("{i}:{m}"))) as Box<dyn Fn(&str)>
        })
        .collect();
    for (i, l) in loggers.iter().enumerate() {
        l(&"x".repeat(i + 1));
    }
    println!("{:?}", shared.borrow());
    let mut rc = Rc::new(10);
    *Rc::make_mut(&mut rc) += 1;
    let other = rc.clone();
    *Rc::make_mut(&mut rc) += 1;
    println!("make_mut {rc} {other}");
    println!("unwrap {:?}", Rc::try_unwrap(other));
}
