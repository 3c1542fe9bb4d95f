/work/main/tests/cargo/demo/target/vliw64-unknown-hermit/debug/build/demo/e14e121f625a3b6e/out/demo.d: src/main.rs

/work/main/tests/cargo/demo/target/vliw64-unknown-hermit/debug/build/demo/e14e121f625a3b6e/out/demo: src/main.rs

src/main.rs:
