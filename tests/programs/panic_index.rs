// Index out of bounds on a Vec (checked at every opt level).
// expect-exit: 101
// expect-stderr-contains: index out of bounds: the len is 4 but the index is 4
use std::hint::black_box;

fn main() {
    let v = vec![10, 20, 30, 40];
    let mut i = black_box(0usize);
    loop {
        println!("v[{i}] = {}", v[i]);
        i += 1;
    }
}
