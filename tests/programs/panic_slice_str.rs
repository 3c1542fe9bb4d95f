// Slicing a str inside a multi-byte character panics with the byte-index message.
// expect-exit: 101
// expect-stderr-contains: is not a char boundary
use std::hint::black_box;

fn main() {
    let s = "añb";
    println!("{}", &s[..1]);
    let end = black_box(2);
    println!("{}", &s[..end]);
}
