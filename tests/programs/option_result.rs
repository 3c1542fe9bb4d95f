// Option and Result combinators: map, and_then, or_else, filter, zip, xor, ok_or,
// unwrap_or_default, transpose, flatten, copied, as_deref, get_or_insert_with, iter.
fn half(x: i32) -> Option<i32> {
    if x % 2 == 0 { Some(x / 2) } else { None }
}

fn parse_pos(s: &str) -> Result<u32, String> {
    let n: i64 = s.parse().map_err(|e| format!("{s:?}: {e}"))?;
    u32::try_from(n).map_err(|_| format!("{n} is out of range"))
}

fn main() {
    let xs = [Some(8), Some(3), None];
    for x in xs {
        println!(
            "{x:?}: map {:?} and_then {:?} filter {:?} or {:?} unwrap_or {} map_or {} is_some_and {}",
            x.map(|v| v * 10), x.and_then(half), x.filter(|v| *v > 4), x.or(Some(-1)), x.unwrap_or(0),
            x.map_or(-1, |v| v + 1), x.is_some_and(|v| v > 5)
        );
    }
    println!("zip {:?} {:?} xor {:?} {:?}", Some(1).zip(Some('a')), Some(1).zip(None::<u8>), Some(1).xor(None), Some(1).xor(Some(2)));
    println!("ok_or {:?} {:?}", Some(5).ok_or("none"), None::<i32>.ok_or_else(|| "computed".to_string()));
    println!("and_then chain {:?}", Some(64).and_then(half).and_then(half).and_then(half));
    println!("{:?}", [Some(4), Some(16)].iter().map(|o| o.and_then(half)).collect::<Vec<_>>());
    let name: Option<String> = Some("abc".into());
    println!("as_deref {:?} len {:?}", name.as_deref(), name.as_ref().map(String::len));
    let mut cache: Option<Vec<u8>> = None;
    cache.get_or_insert_with(Vec::new).push(1);
    cache.get_or_insert_with(Vec::new).push(2);
    println!("cache {cache:?} take {:?} now {cache:?}", cache.clone().take());
    let nested: Option<Option<i32>> = Some(Some(3));
    println!("flatten {:?} unwrap_or_default {}", nested.flatten(), None::<String>.unwrap_or_default().len());
    for s in ["12", "-4", "x", "99999999999"] {
        let r = parse_pos(s);
        println!(
            "{s:?}: {r:?} ok {:?} map {:?} and_then {:?} unwrap_or_else {} is_ok_and {}",
            r.clone().ok(), r.clone().map(|v| v * 2), r.clone().and_then(|v| if v > 10 { Ok(v) } else { Err("small".into()) }),
            r.clone().unwrap_or_else(|e| e.len() as u32), r.clone().is_ok_and(|v| v == 12)
        );
    }
    let r: Result<i32, i32> = Err(3);
    println!("or_else {:?} map_err {:?} err {:?} unwrap_or {}", r.or_else(|e| if e > 2 { Ok(e * 100) } else { Err(e) }), r.map_err(|e| e + 1), r.err(), r.unwrap_or(7));
    let t: Option<Result<i32, String>> = Some(Ok(5));
    println!("transpose {:?}", t.transpose());
    let results = [Ok(1), Err("bad"), Ok(3)];
    let oks: Vec<i32> = results.iter().filter_map(|r| r.ok()).collect();
    let all: Result<Vec<i32>, &str> = results.iter().cloned().collect();
    println!("oks {oks:?} all {all:?}");
    let total: Option<i32> = [Some(1), Some(2), Some(3)].into_iter().sum();
    let prod: Option<i32> = [Some(1), None].into_iter().product();
    println!("sum {total:?} product {prod:?}");
    let mut opt = Some(3);
    if let Some(v) = opt.as_mut() {
        *v += 1;
    }
    println!("as_mut {opt:?}");
    let old = opt.replace(10);
    println!("replace {old:?} now {opt:?}");
    let inserted = *opt.insert(20);
    println!("insert {inserted} now {opt:?}");
    println!("copied {:?} cloned {:?}", Some(&5).copied(), Some(&String::from("s")).cloned());
    println!("iter {:?}", Some(1).iter().chain(None.iter()).chain(Some(3).iter()).collect::<Vec<_>>());
    let v: Result<u8, String> = "300".parse::<u8>().map_err(|e| e.to_string());
    println!("{}", match v { Ok(n) => format!("got {n}"), Err(e) => format!("error: {e}") });
}
