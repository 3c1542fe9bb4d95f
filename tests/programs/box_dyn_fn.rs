// Box<dyn Fn>: callback tables, event dispatch, a stack of boxed transformations,
// closures returning boxed closures (currying), FnOnce in Option::take.
use std::collections::BTreeMap;

type Handler = Box<dyn Fn(&[i64]) -> i64>;

fn curry(a: i64) -> Box<dyn Fn(i64) -> Box<dyn Fn(i64) -> i64>> {
    Box::new(move |b| Box::new(move |c| a * 100 + b * 10 + c))
}

struct Button {
    label: String,
    on_click: Option<Box<dyn FnOnce(&str) -> String>>,
}

impl Button {
    fn click(&mut self) -> String {
        match self.on_click.take() {
            Some(f) => f(&self.label),
            None => format!("{}: already clicked", self.label),
        }
    }
}

fn main() {
    let mut table: BTreeMap<&str, Handler> = BTreeMap::new();
    table.insert("sum", Box::new(|xs| xs.iter().sum()));
    table.insert("max", Box::new(|xs| xs.iter().copied().max().unwrap_or(i64::MIN)));
    let offset = 1000;
    table.insert("count+offset", Box::new(move |xs| xs.len() as i64 + offset));
    table.insert("alt", Box::new(|xs| xs.iter().enumerate().map(|(i, x)| if i % 2 == 0 { *x } else { -x }).sum()));
    let data = [5, -3, 12, 7, 0, -8];
    for (name, h) in &table {
        println!("{name:>14} -> {}", h(&data));
    }
    let pipeline: Vec<Box<dyn Fn(String) -> String>> = vec![
        Box::new(|s| s.trim().to_string()),
        Box::new(|s| s.replace(' ', "_")),
        Box::new(|s| s.to_uppercase()),
        Box::new(|s| format!("[{s}]")),
    ];
    let out = pipeline.iter().fold(String::from("  hello big world "), |acc, f| f(acc));
    println!("{out}");
    println!("curry {}", curry(1)(2)(3));
    let mut b = Button { label: "ok".into(), on_click: Some(Box::new(|l| format!("{l} clicked once"))) };
    println!("{}", b.click());
    println!("{}", b.click());
    let mut fs: Vec<Box<dyn FnMut() -> String>> = Vec::new();
    for word in ["a", "bb", "ccc"] {
        let mut n = 0;
        fs.push(Box::new(move || {
            n += 1;
            word.repeat(n)
        }));
    }
    for _ in 0..2 {
        let row: Vec<String> = fs.iter_mut().map(|f| f()).collect();
        println!("{row:?}");
    }
    let compose_all = |fs: Vec<Box<dyn Fn(i64) -> i64>>| -> Box<dyn Fn(i64) -> i64> {
        Box::new(move |x| fs.iter().fold(x, |acc, f| f(acc)))
    };
    let f = compose_all(vec![Box::new(|x| x + 1), Box::new(|x| x * x), Box::new(|x| x - 3)]);
    println!("{:?}", (0..5).map(|x| f(x)).collect::<Vec<_>>());
    let fp: fn(i64) -> i64 = i64::abs;
    let boxed: Box<dyn Fn(i64) -> i64> = Box::new(fp);
    println!("{}", boxed(-42));
}
