//! `bench hexagon`: static schedule density of kernel functions, our bundles beside
//! the packets of LLVM's Hexagon backend.

use crate::bench::BenchOptions;
use crate::bench_report::Section;
use crate::paths::Paths;
use crate::toolchain::Toolchain;

pub fn run(
    _paths: &Paths,
    _toolchain: &Toolchain,
    _options: BenchOptions,
) -> Result<Section, String> {
    Err("the hexagon comparison is not written yet".into())
}
