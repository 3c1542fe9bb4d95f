//! Text form: print → parse → print is the identity; parse errors have locations.

use vliw_ir::*;

const EXAMPLE: &str = r#"declare function @write(i64, ptr, i64) -> i64
data @msg: rodata align 1 = "hello\n"
data @table: data align 8 export = { "\x05\0\0\0\0\0\0\0", ptr @msg+2, zero 8 }

function @add(i32, i32) -> i32 export {
    ss0 = stack_slot 16, align 8
    fn0 = @write(i64, ptr, i64) -> i64
block0(v0: i32, v1: i32):
    v2 = iadd v0, v1
    v3, v4 = sadd_overflow v0, v1
    brif v4, block1(v2), block2
block1(v5: i32):
    return v5
block2:
    trap 1
}
"#;

#[test]
fn example_round_trips() {
    let m = parse_module(EXAMPLE).unwrap_or_else(|e| panic!("{e}"));
    let printed = m.to_string();
    assert_eq!(printed, EXAMPLE);
}

#[test]
fn example_verifies() {
    let m = parse_module(EXAMPLE).unwrap();
    verify_module(&m).unwrap_or_else(|e| panic!("{e}"));
}
