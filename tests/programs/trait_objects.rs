// Trait objects: dyn dispatch through Box, &dyn and Rc, default methods, supertraits,
// downcasting with Any, trait objects in collections, dyn with generics methods.
use std::any::Any;
use std::fmt::Debug;
use std::rc::Rc;

trait Shape: Debug {
    fn area(&self) -> f64;
    fn name(&self) -> String {
        format!("{:?}", self)
    }
    fn scale(&mut self, k: f64);
    fn as_any(&self) -> &dyn Any;
}

#[derive(Debug)]
struct Square(f64);
#[derive(Debug)]
struct Tri {
    b: f64,
    h: f64,
}

impl Shape for Square {
    fn area(&self) -> f64 {
        self.0 * self.0
    }
    fn scale(&mut self, k: f64) {
        self.0 *= k;
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Shape for Tri {
    fn area(&self) -> f64 {
        self.b * self.h / 2.0
    }
    fn name(&self) -> String {
        "triangle".into()
    }
    fn scale(&mut self, k: f64) {
        self.b *= k;
        self.h *= k;
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

trait Animal {
    fn speak(&self) -> &'static str;
    fn legs(&self) -> u32;
}
struct Dog;
struct Bird;
impl Animal for Dog {
    fn speak(&self) -> &'static str {
        "woof"
    }
    fn legs(&self) -> u32 {
        4
    }
}
impl Animal for Bird {
    fn speak(&self) -> &'static str {
        "tweet"
    }
    fn legs(&self) -> u32 {
        2
    }
}

fn total_area(shapes: &[Box<dyn Shape>]) -> f64 {
    shapes.iter().map(|s| s.area()).sum()
}

fn describe(a: &dyn Animal) -> String {
    format!("{} on {} legs", a.speak(), a.legs())
}

fn main() {
    let mut shapes: Vec<Box<dyn Shape>> = vec![Box::new(Square(2.0)), Box::new(Tri { b: 3.0, h: 4.0 }), Box::new(Square(0.5))];
    for s in &shapes {
        println!("{} area {}", s.name(), s.area());
    }
    println!("total {}", total_area(&shapes));
    for s in shapes.iter_mut() {
        s.scale(2.0);
    }
    println!("scaled total {}", total_area(&shapes));
    shapes.sort_by(|a, b| a.area().partial_cmp(&b.area()).unwrap());
    println!("{:?}", shapes);
    for s in &shapes {
        match s.as_any().downcast_ref::<Square>() {
            Some(sq) => println!("a square of side {}", sq.0),
            None => println!("not a square: {}", s.name()),
        }
    }
    let zoo: Vec<Rc<dyn Animal>> = vec![Rc::new(Dog), Rc::new(Bird), Rc::new(Dog)];
    let legs: u32 = zoo.iter().map(|a| a.legs()).sum();
    println!("legs {legs}");
    for a in &zoo {
        println!("{}", describe(a.as_ref()));
    }
    let values: Vec<Box<dyn Any>> = vec![Box::new(5i32), Box::new("str"), Box::new(2.5f64), Box::new(String::from("owned"))];
    for v in &values {
        if let Some(i) = v.downcast_ref::<i32>() {
            println!("i32 {i}");
        } else if let Some(s) = v.downcast_ref::<&str>() {
            println!("&str {s}");
        } else if let Some(s) = v.downcast_ref::<String>() {
            println!("String {s}");
        } else {
            println!("something else");
        }
    }
    let printable: Vec<&dyn Debug> = vec![&1, &"two", &3.0, &'4', &[5, 6]];
    println!("{:?}", printable);
}
