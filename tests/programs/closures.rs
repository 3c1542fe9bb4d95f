// Closures: capture by reference, by mutable reference and by move; FnOnce/FnMut/Fn;
// returning closures; closures in structs; recursion through function pointers.
fn apply<F: Fn(i32) -> i32>(f: F, x: i32) -> i32 {
    f(x)
}

fn apply_mut<F: FnMut() -> u32>(mut f: F, times: usize) -> Vec<u32> {
    (0..times).map(|_| f()).collect()
}

fn consume<F: FnOnce() -> String>(f: F) -> String {
    f()
}

fn compose<A, B, C>(f: impl Fn(A) -> B, g: impl Fn(B) -> C) -> impl Fn(A) -> C {
    move |x| g(f(x))
}

struct Cache<F: Fn(u64) -> u64> {
    f: F,
    hits: u32,
    memo: Vec<Option<u64>>,
}

impl<F: Fn(u64) -> u64> Cache<F> {
    fn get(&mut self, n: usize) -> u64 {
        if let Some(v) = self.memo[n] {
            self.hits += 1;
            return v;
        }
        let v = (self.f)(n as u64);
        self.memo[n] = Some(v);
        v
    }
}

fn fact(n: u64) -> u64 {
    if n == 0 { 1 } else { n * fact(n - 1) }
}

fn main() {
    let k = 3;
    println!("{}", apply(|x| x * k, 7));
    let mut count = 0;
    let v = apply_mut(
        || {
            count += 2;
            count
        },
        4,
    );
    println!("{v:?} count {count}");
    let s = String::from("moved");
    let r = consume(move || s + "!");
    println!("{r}");
    let inc_then_double = compose(|x: i32| x + 1, |x: i32| x * 2);
    let to_str = compose(inc_then_double, |x: i32| format!("<{x}>"));
    println!("{}", to_str(5));
    let mut c = Cache { f: |n| fact(n % 20), hits: 0, memo: vec![None; 30] };
    let total: u64 = [5, 10, 5, 19, 10, 5].iter().map(|&n| c.get(n)).sum();
    println!("total {total} hits {}", c.hits);
    let ops: [(&str, fn(i64, i64) -> i64); 4] = [("add", |a, b| a + b), ("sub", |a, b| a - b), ("mul", |a, b| a * b), ("max", i64::max)];
    for (name, op) in ops {
        println!("{name} {}", op(6, -4));
    }
    let mut log = Vec::new();
    let mut push = |s: &str| log.push(s.to_uppercase());
    push("a");
    push("b");
    println!("{:?}", log);
    let factor = 2.5;
    let scaled: Vec<f64> = [1.0, 2.0, 3.0].iter().map(|x| x * factor).collect();
    println!("{scaled:?}");
    let mut counters: Vec<Box<dyn FnMut() -> usize>> = Vec::new();
    for start in [10, 100] {
        let mut n = start;
        counters.push(Box::new(move || {
            n += 1;
            n
        }));
    }
    for c in counters.iter_mut() {
        c();
    }
    println!("{:?}", counters.iter_mut().map(|c| c()).collect::<Vec<_>>());
    let fib = {
        fn fib(n: u32) -> u64 {
            if n < 2 { n as u64 } else { fib(n - 1) + fib(n - 2) }
        }
        fib
    };
    println!("fib(20) {}", fib(20));
    let mut sort_me = vec!["ccc", "a", "bb", "dddd"];
    let key = |s: &&str| std::cmp::Reverse(s.len());
    sort_me.sort_by_key(key);
    println!("{sort_me:?}");
}
