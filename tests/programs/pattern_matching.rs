// Pattern matching: ranges, guards, bindings with @, nested tuples/structs/enums,
// slices, references, let-else, if-let chains, matches!, or-patterns, constants.
#[derive(Debug)]
enum Msg {
    Move { x: i32, y: i32 },
    Write(String),
    Color(u8, u8, u8),
    Quit,
}

const LIMIT: u32 = 100;

fn grade(n: u32) -> &'static str {
    match n {
        0 => "zero",
        1..=9 => "digit",
        10 | 20 | 30 => "round",
        LIMIT => "limit",
        x if x % 2 == 0 => "even",
        _ => "odd",
    }
}

fn describe(m: &Msg) -> String {
    match m {
        Msg::Move { x: 0, y: 0 } => "stay".into(),
        Msg::Move { x, y: 0 } => format!("horizontal {x}"),
        Msg::Move { x, y } if x == y => format!("diagonal {x}"),
        Msg::Move { x, y } => format!("move {x},{y}"),
        Msg::Write(s) if s.is_empty() => "empty write".into(),
        Msg::Write(s) => format!("write {} chars", s.chars().count()),
        Msg::Color(r, _, _) if *r > 200 => "reddish".into(),
        &Msg::Color(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        Msg::Quit => "quit".into(),
    }
}

fn parse_kv(s: &str) -> Option<(String, i32)> {
    let Some((k, v)) = s.split_once(':') else {
        return None;
    };
    let Ok(v) = v.parse::<i32>() else {
        return None;
    };
    Some((k.to_string(), v))
}

fn main() {
    for n in [0, 5, 20, 100, 44, 45] {
        println!("{n} {}", grade(n));
    }
    let msgs = [
        Msg::Move { x: 0, y: 0 },
        Msg::Move { x: 5, y: 0 },
        Msg::Move { x: 3, y: 3 },
        Msg::Move { x: -1, y: 2 },
        Msg::Write(String::new()),
        Msg::Write("héllo".into()),
        Msg::Color(255, 0, 0),
        Msg::Color(1, 2, 3),
        Msg::Quit,
    ];
    for m in &msgs {
        println!("{m:?} => {}", describe(m));
    }
    let points = [(0, 0), (1, -1), (-3, 4), (5, 5)];
    for p in points {
        let q = match p {
            (0, 0) => "origin".to_string(),
            (x, 0) | (0, x) => format!("axis {x}"),
            (x @ 1..=9, y @ -9..=-1) => format!("Q4 small {x} {y}"),
            (x, y) if x < 0 => format!("left half {x} {y}"),
            _ => "other".to_string(),
        };
        println!("{p:?}: {q}");
    }
    for s in ["a:1", "b:x", "noval", "c:-7"] {
        println!("{s:?} -> {:?}", parse_kv(s));
    }
    let c = 'k';
    println!("{} {} {}", matches!(c, 'a'..='z'), matches!(c, 'A'..='Z' | '0'..='9'), matches!(Some(3), Some(n) if n > 2));
    let v = vec![1, 2, 3, 4, 5];
    if let [first, middle @ .., last] = v.as_slice()
        && middle.len() > 2
    {
        println!("first {first} middle {middle:?} last {last}");
    }
    let pair = (Some("x"), Err::<i32, &str>("e"));
    match pair {
        (Some(s), Ok(n)) => println!("both {s} {n}"),
        (Some(s), Err(e)) => println!("some {s} err {e}"),
        (None, _) => println!("none"),
    }
    let refs = [&1, &2, &3];
    let sum: i32 = refs.iter().map(|&&x| x).sum();
    println!("sum {sum}");
    let nested = Some(Ok::<(i32, (char, bool)), ()>((7, ('q', true))));
    if let Some(Ok((n, (ch, true)))) = nested {
        println!("deep {n} {ch}");
    }
    let num @ 1..=99 = 42 else { panic!() };
    println!("binding {num}");
    let x = 5u8;
    let kind = match x {
        0..5 => "low",
        5.. => "high",
    };
    println!("{kind}");
}
