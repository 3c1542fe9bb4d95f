// Dynamic programming: longest common subsequence with reconstruction, edit distance,
// 0/1 knapsack with chosen items, coin change (ways and fewest coins), longest
// increasing subsequence in O(n log n), matrix-chain order, and partition counts.
fn lcs(a: &str, b: &str) -> String {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut t = vec![vec![0u16; b.len() + 1]; a.len() + 1];
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            t[i][j] = if a[i - 1] == b[j - 1] { t[i - 1][j - 1] + 1 } else { t[i - 1][j].max(t[i][j - 1]) };
        }
    }
    let (mut i, mut j) = (a.len(), b.len());
    let mut out = Vec::new();
    while i > 0 && j > 0 {
        if a[i - 1] == b[j - 1] {
            out.push(a[i - 1]);
            i -= 1;
            j -= 1;
        } else if t[i - 1][j] >= t[i][j - 1] {
            i -= 1;
        } else {
            j -= 1;
        }
    }
    out.iter().rev().collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for j in 1..=b.len() {
            let sub = prev[j - 1] + (ca != b[j - 1]) as usize;
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn knapsack(items: &[(&'static str, usize, u32)], cap: usize) -> (u32, Vec<&'static str>) {
    let n = items.len();
    let mut t = vec![vec![0u32; cap + 1]; n + 1];
    for i in 1..=n {
        let (_, w, v) = items[i - 1];
        for c in 0..=cap {
            t[i][c] = t[i - 1][c];
            if w <= c {
                t[i][c] = t[i][c].max(t[i - 1][c - w] + v);
            }
        }
    }
    let mut chosen = Vec::new();
    let mut c = cap;
    for i in (1..=n).rev() {
        if t[i][c] != t[i - 1][c] {
            chosen.push(items[i - 1].0);
            c -= items[i - 1].1;
        }
    }
    chosen.reverse();
    (t[n][cap], chosen)
}

fn coin_ways(coins: &[usize], amount: usize) -> u64 {
    let mut ways = vec![0u64; amount + 1];
    ways[0] = 1;
    for &c in coins {
        for a in c..=amount {
            ways[a] += ways[a - c];
        }
    }
    ways[amount]
}

fn fewest_coins(coins: &[usize], amount: usize) -> Option<usize> {
    let mut best = vec![usize::MAX; amount + 1];
    best[0] = 0;
    for a in 1..=amount {
        for &c in coins {
            if c <= a && best[a - c] != usize::MAX {
                best[a] = best[a].min(best[a - c] + 1);
            }
        }
    }
    (best[amount] != usize::MAX).then_some(best[amount])
}

fn lis(xs: &[i32]) -> usize {
    let mut tails: Vec<i32> = Vec::new();
    for &x in xs {
        let i = tails.partition_point(|&t| t < x);
        if i == tails.len() { tails.push(x) } else { tails[i] = x }
    }
    tails.len()
}

fn matrix_chain(d: &[u64]) -> (u64, String) {
    let n = d.len() - 1;
    let mut m = vec![vec![0u64; n]; n];
    let mut s = vec![vec![0usize; n]; n];
    for len in 2..=n {
        for i in 0..=n - len {
            let j = i + len - 1;
            m[i][j] = u64::MAX;
            for k in i..j {
                let c = m[i][k] + m[k + 1][j] + d[i] * d[k + 1] * d[j + 1];
                if c < m[i][j] {
                    m[i][j] = c;
                    s[i][j] = k;
                }
            }
        }
    }
    fn paren(s: &[Vec<usize>], i: usize, j: usize) -> String {
        if i == j { format!("A{}", i + 1) } else { format!("({}{})", paren(s, i, s[i][j]), paren(s, s[i][j] + 1, j)) }
    }
    (m[0][n - 1], paren(&s, 0, n - 1))
}

fn partitions(n: usize) -> u128 {
    let mut p = vec![0u128; n + 1];
    p[0] = 1;
    for k in 1..=n {
        for i in k..=n {
            p[i] += p[i - k];
        }
    }
    p[n]
}

fn main() {
    for (a, b) in [("AGGTAB", "GXTXAYB"), ("dynamic programming", "dramatic programs"), ("", "abc")] {
        println!("lcs({a:?}, {b:?}) = {:?}; edit distance {}", lcs(a, b), edit_distance(a, b));
    }
    println!("edit kitten/sitting {} flaw/lawn {} ünï/uni {}", edit_distance("kitten", "sitting"), edit_distance("flaw", "lawn"), edit_distance("ünï", "uni"));
    let items = [("map", 9, 150), ("compass", 13, 35), ("water", 153, 200), ("sandwich", 50, 160), ("glucose", 15, 60),
        ("tin", 68, 45), ("banana", 27, 60), ("apple", 39, 40), ("cheese", 23, 30), ("beer", 52, 10)];
    println!("knapsack {:?}", knapsack(&items, 200));
    println!("coin ways 100 {} 1000 {}", coin_ways(&[1, 5, 10, 25, 50], 100), coin_ways(&[1, 2, 5, 10, 20, 50, 100, 200], 300));
    println!("fewest {:?} {:?} {:?}", fewest_coins(&[1, 5, 10, 25], 63), fewest_coins(&[2, 7], 3), fewest_coins(&[3, 7, 11], 300));
    let seq: Vec<i32> = (0..500).map(|i| ((i * 7919) % 2003) as i32).collect();
    println!("lis {} {}", lis(&[10, 9, 2, 5, 3, 7, 101, 18]), lis(&seq));
    println!("matrix chain {:?}", matrix_chain(&[40, 20, 30, 10, 30, 25, 5, 60]));
    println!("partitions p(100) {} p(200) {}", partitions(100), partitions(200));
}
