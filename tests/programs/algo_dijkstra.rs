// Dijkstra's shortest paths with a BinaryHeap on a generated grid graph and a small named
// graph, with path reconstruction; compared against Bellman-Ford; plus a topological
// sort (Kahn) and connected components with union-find.
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

fn dijkstra(adj: &[Vec<(usize, u64)>], src: usize) -> (Vec<u64>, Vec<Option<usize>>) {
    let mut dist = vec![u64::MAX; adj.len()];
    let mut prev = vec![None; adj.len()];
    let mut heap = BinaryHeap::new();
    dist[src] = 0;
    heap.push(Reverse((0u64, src)));
    while let Some(Reverse((d, u))) = heap.pop() {
        if d > dist[u] {
            continue;
        }
        for &(v, w) in &adj[u] {
            let nd = d + w;
            if nd < dist[v] {
                dist[v] = nd;
                prev[v] = Some(u);
                heap.push(Reverse((nd, v)));
            }
        }
    }
    (dist, prev)
}

fn bellman_ford(adj: &[Vec<(usize, u64)>], src: usize) -> Vec<u64> {
    let mut dist = vec![u64::MAX; adj.len()];
    dist[src] = 0;
    for _ in 0..adj.len() {
        let mut changed = false;
        for u in 0..adj.len() {
            if dist[u] == u64::MAX {
                continue;
            }
            for &(v, w) in &adj[u] {
                if dist[u] + w < dist[v] {
                    dist[v] = dist[u] + w;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    dist
}

fn path(prev: &[Option<usize>], mut t: usize) -> Vec<usize> {
    let mut p = vec![t];
    while let Some(u) = prev[t] {
        p.push(u);
        t = u;
    }
    p.reverse();
    p
}

fn find(parent: &mut Vec<usize>, x: usize) -> usize {
    if parent[x] != x {
        let r = find(parent, parent[x]);
        parent[x] = r;
    }
    parent[x]
}

fn main() {
    let names = ["home", "bakery", "park", "school", "library", "station", "harbor"];
    let edges = [(0, 1, 7), (0, 2, 9), (0, 5, 14), (1, 2, 10), (1, 3, 15), (2, 3, 11), (2, 5, 2), (3, 4, 6), (4, 5, 9)];
    let mut adj = vec![Vec::new(); names.len()];
    for (a, b, w) in edges {
        adj[a].push((b, w));
        adj[b].push((a, w));
    }
    let (dist, prev) = dijkstra(&adj, 0);
    for (i, n) in names.iter().enumerate() {
        if dist[i] == u64::MAX {
            println!("{n:>8}: unreachable");
        } else {
            let p: Vec<&str> = path(&prev, i).iter().map(|&j| names[j]).collect();
            println!("{n:>8}: {:>3} via {}", dist[i], p.join(" -> "));
        }
    }
    let (w, h) = (20usize, 15usize);
    let mut grid = vec![Vec::new(); w * h];
    let mut seed = 12345u64;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % 20 + 1
    };
    for y in 0..h {
        for x in 0..w {
            let u = y * w + x;
            if x + 1 < w {
                let c = rnd();
                grid[u].push((u + 1, c));
                grid[u + 1].push((u, c));
            }
            if y + 1 < h {
                let c = rnd();
                grid[u].push((u + w, c));
                grid[u + w].push((u, c));
            }
        }
    }
    let (gd, gp) = dijkstra(&grid, 0);
    let bf = bellman_ford(&grid, 0);
    println!("grid: corner {} agrees with bellman-ford {} path length {}", gd[w * h - 1], gd == bf, path(&gp, w * h - 1).len());
    let far = gd.iter().enumerate().max_by_key(|(i, d)| (**d, Reverse(*i))).unwrap();
    println!("farthest node {} at {}", far.0, far.1);
    let mut hist = BTreeMap::new();
    for d in &gd {
        *hist.entry(d / 50).or_insert(0) += 1;
    }
    println!("distance histogram {hist:?}");
    let deps = [("app", vec!["lib", "log"]), ("lib", vec!["core", "alloc"]), ("log", vec!["core"]), ("alloc", vec!["core"]), ("core", vec![]), ("test", vec!["app", "lib"])];
    let idx = |n: &str| deps.iter().position(|d| d.0 == n).unwrap();
    let mut indeg = vec![0; deps.len()];
    let mut users = vec![Vec::new(); deps.len()];
    for (i, (_, ds)) in deps.iter().enumerate() {
        for d in ds {
            indeg[i] += 1;
            users[idx(d)].push(i);
        }
    }
    let mut q: VecDeque<usize> = (0..deps.len()).filter(|&i| indeg[i] == 0).collect();
    let mut order = Vec::new();
    while let Some(u) = q.pop_front() {
        order.push(deps[u].0);
        for &v in &users[u] {
            indeg[v] -= 1;
            if indeg[v] == 0 {
                q.push_back(v);
            }
        }
    }
    println!("build order {order:?}");
    let mut parent: Vec<usize> = (0..20).collect();
    for (a, b) in [(0, 1), (2, 3), (1, 3), (5, 6), (7, 8), (8, 9), (9, 5), (12, 13), (19, 0)] {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        parent[ra] = rb;
    }
    let mut comps: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for x in 0..20 {
        let r = find(&mut parent, x);
        comps.entry(r).or_default().push(x);
    }
    let mut sizes: Vec<Vec<usize>> = comps.into_values().filter(|c| c.len() > 1).collect();
    sizes.sort();
    println!("components {sizes:?}");
}
