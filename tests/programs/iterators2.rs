// More iterator machinery: windows, chunks, chunks_exact, rchunks, peekable, scan,
// take_while, map_while, flat_map, flatten, inspect, dedup via fold, group runs.
fn run_lengths(s: &str) -> Vec<(char, usize)> {
    let mut out = Vec::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        let mut n = 1;
        while it.peek() == Some(&c) {
            it.next();
            n += 1;
        }
        out.push((c, n));
    }
    out
}

fn tokens(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = src.chars().peekable();
    while let Some(&c) = it.peek() {
        if c.is_ascii_digit() {
            let mut num = String::new();
            while let Some(&d) = it.peek().filter(|d| d.is_ascii_digit()) {
                num.push(d);
                it.next();
            }
            out.push(num);
        } else if c.is_whitespace() {
            it.next();
        } else {
            out.push(c.to_string());
            it.next();
        }
    }
    out
}

fn main() {
    let data = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5];
    let sums: Vec<i32> = data.windows(3).map(|w| w.iter().sum()).collect();
    println!("windows(3) sums {sums:?}");
    println!("increasing pairs {}", data.windows(2).filter(|w| w[1] > w[0]).count());
    println!("chunks(4) {:?}", data.chunks(4).collect::<Vec<_>>());
    let ex = data.chunks_exact(4);
    println!("chunks_exact remainder {:?}", ex.remainder());
    println!("rchunks(4) {:?}", data.rchunks(4).collect::<Vec<_>>());
    let running: Vec<i32> = data.iter().scan(0, |acc, &x| {
        *acc += x;
        Some(*acc)
    }).collect();
    println!("scan {running:?}");
    println!("take_while {:?}", data.iter().take_while(|&&x| x < 5).collect::<Vec<_>>());
    println!("map_while {:?}", ["1", "2", "x", "4"].iter().map_while(|s| s.parse::<i32>().ok()).collect::<Vec<_>>());
    println!("flat_map {:?}", (1..4).flat_map(|n| (0..n).map(move |i| n * 10 + i)).collect::<Vec<_>>());
    println!("flatten {:?}", vec![vec![1, 2], vec![], vec![3]].into_iter().flatten().collect::<Vec<_>>());
    println!("flatten options {:?}", [Some(1), None, Some(3)].iter().flatten().collect::<Vec<_>>());
    let mut seen = Vec::new();
    let total: i32 = data.iter().inspect(|x| seen.push(**x)).filter(|x| **x > 3).sum();
    println!("inspect saw {} items, total {total}", seen.len());
    println!("run lengths {:?}", run_lengths("aaabccddddde"));
    println!("tokens {:?}", tokens("12+(345 * 6)-78"));
    let mut p = data.iter().peekable();
    let mut groups = Vec::new();
    while let Some(&first) = p.next() {
        let mut g = vec![first];
        while let Some(&&next) = p.peek() {
            if next >= *g.last().unwrap() {
                g.push(next);
                p.next();
            } else {
                break;
            }
        }
        groups.push(g);
    }
    println!("ascending runs {groups:?}");
    let next_if: Vec<i32> = {
        let mut it = (1..10).peekable();
        let mut v = Vec::new();
        while let Some(x) = it.next_if(|x| *x < 4) {
            v.push(x);
        }
        v.push(*it.peek().unwrap());
        v
    };
    println!("next_if {next_if:?}");
    let pascal: Vec<Vec<u64>> = std::iter::successors(Some(vec![1u64]), |row| {
        let mut next = vec![1];
        next.extend(row.windows(2).map(|w| w[0] + w[1]));
        next.push(1);
        Some(next)
    })
    .take(10)
    .collect();
    for row in &pascal {
        println!("{:^40}", row.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" "));
    }
    let zipped3: Vec<(i32, (char, bool))> = (0..3).zip("abc".chars().zip([true, false, true])).collect();
    println!("{zipped3:?}");
    let s: Vec<_> = data.split(|x| *x == 5).collect();
    println!("split at 5 {s:?}");
    let mut v2 = data.to_vec();
    v2.dedup_by_key(|x| *x / 2);
    println!("dedup_by_key {v2:?}");
}
