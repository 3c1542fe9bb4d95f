/work/main/tests/cargo/demo/target/vliw64-unknown-hermit/debug/build/demo/c0beb406fe09aac1/out/demo-c0beb406fe09aac1.d: src/lib.rs /work/main/tests/cargo/demo/target/vliw64-unknown-hermit/debug/build/demo/386bc7b78651d648/out/squares.rs

/work/main/tests/cargo/demo/target/vliw64-unknown-hermit/debug/build/demo/c0beb406fe09aac1/out/libdemo-c0beb406fe09aac1.rlib: src/lib.rs /work/main/tests/cargo/demo/target/vliw64-unknown-hermit/debug/build/demo/386bc7b78651d648/out/squares.rs

/work/main/tests/cargo/demo/target/vliw64-unknown-hermit/debug/build/demo/c0beb406fe09aac1/out/libdemo-c0beb406fe09aac1.rmeta: src/lib.rs /work/main/tests/cargo/demo/target/vliw64-unknown-hermit/debug/build/demo/386bc7b78651d648/out/squares.rs

src/lib.rs:
/work/main/tests/cargo/demo/target/vliw64-unknown-hermit/debug/build/demo/386bc7b78651d648/out/squares.rs:

# env-dep:OUT_DIR=/work/main/tests/cargo/demo/target/vliw64-unknown-hermit/debug/build/demo/386bc7b78651d648/out
