/work/main/tests/cargo/demo/target/debug/build/demo/8a5fea8dc9d9f1b7/out/build_script_build.d: build.rs

/work/main/tests/cargo/demo/target/debug/build/demo/8a5fea8dc9d9f1b7/out/build_script_build: build.rs

build.rs:
