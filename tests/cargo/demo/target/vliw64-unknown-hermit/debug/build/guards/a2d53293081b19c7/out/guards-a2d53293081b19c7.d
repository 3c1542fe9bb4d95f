/work/main/tests/cargo/demo/target/vliw64-unknown-hermit/debug/build/guards/a2d53293081b19c7/out/guards-a2d53293081b19c7.d: guards/src/lib.rs

/work/main/tests/cargo/demo/target/vliw64-unknown-hermit/debug/build/guards/a2d53293081b19c7/out/libguards-a2d53293081b19c7.rlib: guards/src/lib.rs

/work/main/tests/cargo/demo/target/vliw64-unknown-hermit/debug/build/guards/a2d53293081b19c7/out/libguards-a2d53293081b19c7.rmeta: guards/src/lib.rs

guards/src/lib.rs:
