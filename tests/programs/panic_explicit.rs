// An explicit panic! with a formatted message after some output; exit status 101.
// expect-exit: 101
// expect-stderr-contains: invariant broken: 3 > 2
fn check(xs: &[u32]) {
    for w in xs.windows(2) {
        if w[0] > w[1] {
            panic!("invariant broken: {} > {}", w[0], w[1]);
        }
        println!("ok {} <= {}", w[0], w[1]);
    }
}

fn main() {
    check(&[1, 2, 3, 2, 5]);
    println!("not reached");
}
