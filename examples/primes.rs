// args: 200000
//! Counts the primes below N (default 100000) with a sieve of Eratosthenes and prints
//! the last few. Try it at both optimization levels and compare the cycles:
//!
//!     ./y.sh run --stats examples/primes.rs -- 200000
//!     ./y.sh run --release --stats examples/primes.rs -- 200000

fn sieve(n: usize) -> Vec<usize> {
    let mut composite = vec![false; n];
    let mut primes = Vec::new();
    for i in 2..n {
        if !composite[i] {
            primes.push(i);
            let mut multiple = i * i;
            while multiple < n {
                composite[multiple] = true;
                multiple += i;
            }
        }
    }
    primes
}

fn main() {
    let n = match std::env::args().nth(1) {
        Some(arg) => match arg.parse::<usize>() {
            Ok(n) => n,
            Err(e) => {
                eprintln!("usage: primes [N]: {arg:?} is not a number ({e})");
                std::process::exit(2);
            }
        },
        None => 100_000,
    };
    let primes = sieve(n);
    let last: Vec<String> = primes.iter().rev().take(5).rev().map(|p| p.to_string()).collect();
    println!("{} primes below {n}; the last: {}", primes.len(), last.join(", "));
}
