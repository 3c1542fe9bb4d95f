//! `bench programs`: the benchmark programs of benches/programs on the simulator.

use crate::bench::BenchOptions;
use crate::bench_report::Section;
use crate::paths::Paths;
use crate::toolchain::Toolchain;

pub fn run(
    _paths: &Paths,
    _toolchain: &Toolchain,
    _options: BenchOptions,
) -> Result<Section, String> {
    Err("not written yet".into())
}
