// VecDeque as a ring buffer: both ends, rotation, wrap-around, make_contiguous.
use std::collections::VecDeque;

fn main() {
    let mut d: VecDeque<u32> = VecDeque::with_capacity(4);
    for i in 0..6 {
        if i % 2 == 0 {
            d.push_back(i);
        } else {
            d.push_front(i);
        }
    }
    println!("{:?} front {:?} back {:?}", d, d.front(), d.back());
    d.rotate_left(2);
    println!("rotate_left(2) {:?}", d);
    d.rotate_right(3);
    println!("rotate_right(3) {:?}", d);
    println!("pop_front {:?} pop_back {:?}", d.pop_front(), d.pop_back());
    for i in 100..110 {
        d.push_back(i);
        if d.len() > 6 {
            d.pop_front();
        }
    }
    println!("window {:?}", d);
    let (a, b) = d.as_slices();
    println!("slices total {}", a.len() + b.len());
    d.make_contiguous().sort_by(|x, y| y.cmp(x));
    println!("sorted desc {:?}", d);
    println!("get(2) {:?} get(99) {:?}", d.get(2), d.get(99));
    let v: Vec<u32> = d.iter().rev().copied().collect();
    println!("rev {:?}", v);
    // A BFS over a small grid using the deque as a queue.
    let grid = ["..#.....", ".##.###.", "....#...", "###.#.#.", "......#."];
    let h = grid.len();
    let w = grid[0].len();
    let mut dist = vec![vec![-1i32; w]; h];
    let mut q = VecDeque::new();
    dist[0][0] = 0;
    q.push_back((0usize, 0usize));
    while let Some((r, c)) = q.pop_front() {
        let moves = [(0i32, 1i32), (1, 0), (0, -1), (-1, 0)];
        for (dr, dc) in moves {
            let nr = r as i32 + dr;
            let nc = c as i32 + dc;
            if nr < 0 || nc < 0 || nr >= h as i32 || nc >= w as i32 {
                continue;
            }
            let (nr, nc) = (nr as usize, nc as usize);
            if grid[nr].as_bytes()[nc] == b'#' || dist[nr][nc] >= 0 {
                continue;
            }
            dist[nr][nc] = dist[r][c] + 1;
            q.push_back((nr, nc));
        }
    }
    for row in &dist {
        let line: Vec<String> = row.iter().map(|d| format!("{d:3}")).collect();
        println!("{}", line.join(""));
    }
    println!("distance to corner: {}", dist[h - 1][w - 1]);
}
