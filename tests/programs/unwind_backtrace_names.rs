// Backtraces: std::backtrace::Backtrace walks the stack (the runtime's
// _Unwind_Backtrace) and names each frame (the simulator's symbolize system call,
// sysroot/patches/0004); the program's own frames, innermost first, are the host's.
use std::backtrace::Backtrace;
use std::hint::black_box;

#[inline(never)]
fn leaf(depth: u32) -> String {
    black_box(depth);
    Backtrace::force_capture().to_string()
}

#[inline(never)]
fn middle(depth: u32) -> String {
    black_box(leaf(depth + 1))
}

#[inline(never)]
fn top() -> String {
    black_box(middle(1))
}

fn main() {
    let text = top();
    for line in text.lines() {
        let name = line.trim().split_once(": ").map_or("", |(_, n)| n);
        if name.starts_with("unwind_backtrace_names::") {
            println!("{name}");
        }
    }
}
