// Derived Debug and pretty Debug ({:#?}) of nested structs, enums, tuples, maps, Options.
#![allow(dead_code)]

use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
enum Shape {
    Circle { r: f64 },
    Rect(u32, u32),
    Empty,
}

#[derive(Debug)]
struct Unit;

#[derive(Debug)]
struct Wrapper(i32, &'static str);

#[derive(Debug)]
struct Scene {
    name: String,
    shapes: Vec<Shape>,
    tags: BTreeMap<&'static str, Option<u8>>,
    origin: (i16, i16),
    unit: Unit,
    wrapped: Wrapper,
    nested: Option<Box<Scene>>,
}

fn main() {
    let mut tags = BTreeMap::new();
    tags.insert("b", Some(2));
    tags.insert("a", None);
    let inner = Scene {
        name: "inner \"quoted\"\n".into(),
        shapes: vec![],
        tags: BTreeMap::new(),
        origin: (-1, 1),
        unit: Unit,
        wrapped: Wrapper(-5, "tab\there"),
        nested: None,
    };
    let scene = Scene {
        name: "main".into(),
        shapes: vec![Shape::Circle { r: 1.5 }, Shape::Rect(2, 3), Shape::Empty],
        tags,
        origin: (0, 0),
        unit: Unit,
        wrapped: Wrapper(7, "w"),
        nested: Some(Box::new(inner)),
    };
    println!("{:?}", scene);
    println!("{:#?}", scene);
    println!("{:?} {:?} {:?}", Shape::Empty, Some(Shape::Rect(1, 1)), None::<Shape>);
    let r: Result<Vec<u8>, String> = Err("bad".into());
    let ok: Result<(char, bool), ()> = Ok(('\'', true));
    println!("{:?} {:?}", r, ok);
    println!("{:#?}", (1, "two", [3.0, 4.5]));
    println!("{:?} {:?}", "esc\u{7f}\u{0}\u{1b}é", '\n');
    println!("{:#?}", Vec::<u8>::new());
    println!("{:>12?}|{:<12?}|", Some(1), Shape::Empty);
    println!("{:08.3?} {:?}", 2.5f64, [Some(0.1f32), None]);
    let nested = vec![vec![Some((1, 'a'))], vec![], vec![None]];
    println!("{nested:?}");
    println!("{nested:#?}");
}
