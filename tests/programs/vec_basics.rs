// Vec: push/pop, insert/remove, retain, extend, drain, splitting, capacity-independent queries.
fn main() {
    let mut v: Vec<i32> = Vec::new();
    for i in 0..20 {
        v.push(i * i - 7 * i);
    }
    println!("len {} first {:?} last {:?}", v.len(), v.first(), v.last());
    println!("{:?}", v);
    v.insert(3, 1000);
    let removed = v.remove(0);
    println!("removed {removed}, now {:?}", &v[..5]);
    v.retain(|x| x % 3 != 0);
    println!("retain: {:?}", v);
    v.extend_from_slice(&[1, 2, 3]);
    v.extend((10..13).map(|x| -x));
    let drained: Vec<i32> = v.drain(2..6).collect();
    println!("drained {:?} left {:?}", drained, v);
    let tail = v.split_off(v.len() / 2);
    println!("head {:?} tail {:?}", v, tail);
    v.truncate(2);
    v.swap(0, 1);
    println!("truncate+swap {:?} contains 1000: {}", v, v.contains(&1000));
    let mut w = vec![0u8; 5];
    w[2] = 7;
    w.resize(8, 9);
    println!("{:?} sum {}", w, w.iter().map(|&b| b as u32).sum::<u32>());
    let nested: Vec<Vec<usize>> = (1..5).map(|n| (0..n).collect()).collect();
    println!("{:?}", nested);
    let flat: Vec<usize> = nested.concat();
    println!("concat {:?} joined {:?}", flat, [[1, 2], [3, 4]].join(&0));
    while let Some(top) = w.pop() {
        print!("{top} ");
    }
    println!();
    let mut big = Vec::with_capacity(4);
    for i in 0..1000u64 {
        big.push(i.wrapping_mul(2654435761) % 1000);
    }
    big.dedup();
    println!("big len {} max {:?} min {:?}", big.len(), big.iter().max(), big.iter().min());
    let strings = vec![String::from("a"), "bc".to_string(), "def".into()];
    let lens: Vec<usize> = strings.iter().map(String::len).collect();
    println!("{:?} {:?} {}", strings, lens, strings.join("-"));
    println!("empty: {:?} {}", Vec::<u8>::new(), Vec::<u8>::new().is_empty());
}
