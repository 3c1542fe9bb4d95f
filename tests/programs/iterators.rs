// Iterator adapters: map/filter/fold/zip/chain/rev/enumerate/skip/step_by/any/all/
// position/min_by_key/max_by/sum/product/partition/unzip and collect into many types.
use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};

fn main() {
    let v: Vec<i32> = (1..=12).collect();
    let evens: Vec<i32> = v.iter().copied().filter(|x| x % 2 == 0).collect();
    let squares: Vec<i32> = v.iter().map(|x| x * x).collect();
    println!("{evens:?}\n{squares:?}");
    println!("fold {} sum {} product {}", v.iter().fold(0, |a, x| a * 2 + x), v.iter().sum::<i32>(), v.iter().take(6).product::<i32>());
    let zipped: Vec<(i32, char)> = v.iter().copied().zip("abcdef".chars()).collect();
    println!("{zipped:?}");
    let chained: Vec<i32> = v.iter().take(2).chain(v.iter().rev().take(2)).copied().collect();
    println!("chain {chained:?}");
    println!("rev-step {:?}", v.iter().rev().step_by(3).collect::<Vec<_>>());
    println!("skip {:?} skip_while {:?}", v.iter().skip(9).collect::<Vec<_>>(), v.iter().skip_while(|&&x| x < 10).collect::<Vec<_>>());
    for (i, c) in "xyz".chars().enumerate() {
        print!("{i}:{c} ");
    }
    println!();
    println!("any {} all {} position {:?} rposition {:?} find {:?}", v.iter().any(|&x| x > 11), v.iter().all(|&x| x > 0), v.iter().position(|&x| x == 5), v.iter().rposition(|&x| x % 5 == 0), v.iter().find(|&&x| x * x > 50));
    let words = ["apple", "fig", "banana", "kiwi", "cherry"];
    println!("min_by_key {:?} max_by_key {:?} max_by {:?}", words.iter().min_by_key(|w| w.len()), words.iter().max_by_key(|w| w.len()), words.iter().max_by(|a, b| a.chars().last().cmp(&b.chars().last())));
    let (short, long): (Vec<&str>, Vec<&str>) = words.iter().partition(|w| w.len() <= 4);
    println!("partition {short:?} {long:?}");
    let (idx, lens): (Vec<usize>, Vec<usize>) = words.iter().enumerate().map(|(i, w)| (i, w.len())).unzip();
    println!("unzip {idx:?} {lens:?}");
    let s: String = words.iter().map(|w| w.chars().next().unwrap()).collect();
    let set: BTreeSet<usize> = words.iter().map(|w| w.len()).collect();
    let map: BTreeMap<&str, usize> = words.iter().map(|w| (*w, w.len())).collect();
    let dq: VecDeque<i32> = (0..4).collect();
    let hs: HashSet<i32> = [1, 1, 2].into_iter().collect();
    let boxed: Box<[u8]> = (0..3u8).collect();
    println!("{s} {set:?} {map:?} {dq:?} {} {boxed:?}", hs.len());
    let res: Result<Vec<u32>, String> = ["1", "2", "3"].iter().map(|s| s.parse::<u32>().map_err(|e| e.to_string())).collect();
    let opt: Option<Vec<char>> = ["a", "", "c"].iter().map(|s| s.chars().next()).collect();
    println!("{res:?} {opt:?}");
    println!("count {} last {:?} nth {:?} min {:?} max {:?}", v.iter().filter(|x| **x > 4).count(), v.iter().last(), v.iter().nth(3), v.iter().min(), "hello".chars().max());
    let total: u64 = (1..=1000u64).filter(|n| n % 3 == 0 || n % 5 == 0).sum();
    println!("euler1 {total}");
    let cmp = [1, 2, 3].iter().cmp([1, 2, 4].iter());
    let eq = (0..5).eq([0, 1, 2, 3, 4]);
    println!("cmp {cmp:?} eq {eq} lt {}", [1.0, 2.0].iter().lt([1.0, 3.0].iter()));
    let mut it = v.iter();
    let firsts: Vec<_> = it.by_ref().take(3).collect();
    let rest: i32 = it.sum();
    println!("by_ref {firsts:?} rest {rest}");
    let inter: Vec<i32> = std::iter::successors(Some(1), |&x| if x < 200 { Some(x * 3) } else { None }).collect();
    let rep: Vec<&str> = std::iter::repeat("ab").take(3).collect();
    let once: Vec<i32> = std::iter::once(7).chain(std::iter::empty()).collect();
    let from_fn: Vec<u32> = {
        let mut n = 0;
        std::iter::from_fn(move || {
            n += 1;
            (n < 5).then_some(n * n)
        })
        .collect()
    };
    println!("{inter:?} {rep:?} {once:?} {from_fn:?}");
    let cycled: String = "abc".chars().cycle().take(8).collect();
    println!("{cycled}");
    println!("is_sorted {} {}", [1, 2, 2, 5].is_sorted(), v.iter().rev().is_sorted());
}
