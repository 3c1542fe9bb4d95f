#!/usr/bin/env bash
# Entry point of the build system (build_system/). It is built with the stable
# toolchain, not the nightly pinned in rust-toolchain.toml: that one may not be
# installed yet, and installing it is the build system's first job (`prepare`).
set -e
# Relative paths given to `run` are resolved against the caller's directory.
export Y_INVOKED_FROM="$PWD"
cd "$(dirname "$0")"
RUSTUP_TOOLCHAIN=stable cargo build --release --quiet \
    --manifest-path build_system/Cargo.toml --target-dir build_system/target
exec build_system/target/release/y "$@"
