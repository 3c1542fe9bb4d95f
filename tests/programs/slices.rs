// Slices: split_at, split_first/last, contains, starts_with, iter_mut, swap, reverse,
// rotate, fill, copy_from_slice, concat, 2-D arrays, slice patterns, to_vec, chunks_mut.
fn classify(s: &[i32]) -> String {
    match s {
        [] => "empty".into(),
        [x] => format!("one {x}"),
        [first, .., last] if first == last => format!("same ends {first}"),
        [first, rest @ ..] => format!("first {first} then {} more", rest.len()),
    }
}

fn main() {
    let mut a = [10, 20, 30, 40, 50, 60];
    let (l, r) = a.split_at(2);
    println!("split_at {l:?} {r:?}");
    println!("first {:?} last {:?}", a.split_first(), a.split_last());
    println!("contains 30 {} starts {} ends {}", a.contains(&30), a.starts_with(&[10, 20]), a.ends_with(&[60]));
    for x in a.iter_mut() {
        *x /= 10;
    }
    a.swap(0, 5);
    println!("{a:?}");
    a.reverse();
    a.rotate_left(2);
    println!("{a:?}");
    a[1..4].fill(0);
    println!("{a:?}");
    a[..2].copy_from_slice(&[7, 8]);
    println!("{a:?}");
    let (x, y) = a.split_at_mut(3);
    x[0] += y[0];
    println!("{a:?}");
    for chunk in a.chunks_mut(4) {
        chunk.sort();
    }
    println!("{a:?}");
    let mut grid = [[0u8; 5]; 4];
    for (r, row) in grid.iter_mut().enumerate() {
        for (c, cell) in row.iter_mut().enumerate() {
            *cell = (r * 5 + c) as u8;
        }
    }
    let transposed: Vec<Vec<u8>> = (0..5).map(|c| grid.iter().map(|row| row[c]).collect()).collect();
    println!("{grid:?}\n{transposed:?}");
    for s in [&[][..], &[4], &[1, 2, 1], &[1, 2, 3]] {
        println!("{}", classify(s));
    }
    let v = a.to_vec();
    let joined = [&v[..2], &v[4..]].concat();
    println!("{joined:?} eq {} cmp {:?}", v[..] == a[..], [1, 2].cmp(&[1, 3]));
    let strs = ["ab", "cd"];
    println!("{} {:?}", strs.concat(), strs.iter().rev().collect::<Vec<_>>());
    let bytes = b"hello";
    println!("{:?} {:?} {}", bytes.iter().position(|&b| b == b'l'), bytes.escape_ascii().to_string(), bytes.is_ascii());
    let mut arr = [3u16; 4];
    arr.iter_mut().enumerate().for_each(|(i, x)| *x <<= i);
    println!("{arr:?} sum {}", arr.iter().sum::<u16>());
    let arr2: [u32; 5] = std::array::from_fn(|i| (i * i) as u32);
    println!("{arr2:?} map {:?}", arr2.map(|x| x + 1));
    if let [a0, b0, rest @ ..] = &arr2[..] {
        println!("{a0} {b0} {rest:?}");
    }
    println!("repeat {:?} first_chunk {:?}", [1, 2].repeat(2), arr2.first_chunk::<2>());
    println!("get {:?} {:?} {:?}", arr2.get(4), arr2.get(5), arr2.get(1..3));
}
