// Walking the stack with the unwinder's `_Unwind_Backtrace` (libgcc's on the host,
// the runtime's on VLIW-64, over each function's call-frame information): the
// frames between the innermost function and `main`, named by matching each
// frame's enclosing function (`_Unwind_FindEnclosingFunction`) against known
// function addresses.
use std::ffi::c_void;
use std::hint::black_box;

#[repr(C)]
struct Context {
    _opaque: [u8; 0],
}

unsafe extern "C" {
    fn _Unwind_Backtrace(
        trace: extern "C" fn(*mut Context, *mut c_void) -> i32,
        arg: *mut c_void,
    ) -> i32;
    fn _Unwind_GetIP(ctx: *mut Context) -> usize;
    fn _Unwind_FindEnclosingFunction(pc: usize) -> usize;
}

struct Walk {
    starts: Vec<usize>,
}

extern "C" fn record(ctx: *mut Context, arg: *mut c_void) -> i32 {
    let walk = unsafe { &mut *(arg as *mut Walk) };
    let ip = unsafe { _Unwind_GetIP(ctx) };
    // libgcc reports a last frame past the outermost one, with no address
    if ip != 0 {
        walk.starts.push(unsafe { _Unwind_FindEnclosingFunction(ip - 1) });
    }
    0
}

fn names(starts: &[usize], known: &[(&str, usize)]) -> Vec<String> {
    starts
        .iter()
        .filter_map(|s| known.iter().find(|(_, a)| a == s).map(|(n, _)| n.to_string()))
        .collect()
}

#[inline(never)]
fn innermost(depth: u32) -> Vec<usize> {
    let mut walk = Walk { starts: Vec::new() };
    let code = unsafe { _Unwind_Backtrace(record, &mut walk as *mut Walk as *mut c_void) };
    // the walk ends at the outermost frame
    assert_eq!(code, 5, "_URC_END_OF_STACK");
    black_box(depth);
    walk.starts
}

#[inline(never)]
fn recurse(depth: u32) -> Vec<usize> {
    let v = if depth == 0 {
        innermost(black_box(depth))
    } else {
        recurse(black_box(depth - 1))
    };
    black_box(v)
}

#[inline(never)]
fn with_big_frame(x: u64) -> Vec<usize> {
    let mut buf = [0u64; 64];
    for (i, b) in buf.iter_mut().enumerate() {
        *b = x.wrapping_mul(i as u64 + 1);
    }
    black_box(&mut buf);
    let v = recurse(black_box(3));
    black_box(buf[7]);
    black_box(v)
}

#[repr(align(128))]
struct Aligned([u64; 4]);

#[inline(never)]
fn realigned(x: u64) -> Vec<usize> {
    let mut a = Aligned([x; 4]);
    black_box(&mut a);
    let v = with_big_frame(black_box(a.0[2]));
    black_box(&a);
    black_box(v)
}

fn main() {
    let known: Vec<(&str, usize)> = vec![
        ("innermost", innermost as *const () as usize),
        ("recurse", recurse as *const () as usize),
        ("with_big_frame", with_big_frame as *const () as usize),
        ("realigned", realigned as *const () as usize),
        ("main", main as *const () as usize),
    ];
    let starts = black_box(realigned(black_box(7)));
    let found = names(&starts, &known);
    println!("{}", found.join(" <- "));
    println!("frames named: {}", found.len());
    // every frame of ours has an enclosing function
    assert!(starts.iter().take(found.len()).all(|&s| s != 0));
}
