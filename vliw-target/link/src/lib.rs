//! `vliw-link`: the static linker of the VLIW target, and the logic behind `vliw-ld`.
//!
//! The link is a short pipeline, one module per step:
//! 1. `args`: the GNU-ld-style command line (with `@response` files);
//! 2. `input`: read files, find `-l` libraries;
//! 3. `resolve`: choose archive members, resolve symbols (strong, weak, local);
//! 4. `gc`: with `--gc-sections`, keep only reachable sections;
//! 5. `layout`: addresses of output and input sections, linker-defined symbols;
//! 6. `relocate`: copy sections, apply relocations (`vliw_isa::apply_reloc`);
//! 7. `output`, `map`: the executable and the link map.
//!
//! Use [`main_with_args`] (or [`run_main`]) for the command line, [`link`] to link
//! files held in memory. The conventions are documented in `docs/linking.md`.

mod args;
mod eh_frame;
mod error;
mod gc;
mod input;
mod layout;
mod map;
mod output;
mod relocate;
mod resolve;

use std::process::ExitCode;

pub use args::{
    Command, HELP, InputSpec, LinkOptions, Strip, VERSION, expand_response_files, parse_args,
    split_response_file,
};
pub use error::{DuplicateSymbol, LinkError, UndefinedSymbol};
pub use input::{InputFile, find_library, load_inputs};
pub use layout::TEXT_BASE;
use vliw_elf::Executable;

use crate::layout::Layout;
use crate::resolve::{Resolution, Target};

/// What a link does besides reading its inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkConfig {
    /// The entry symbol (`-e`), `_start` by default. It must be defined.
    pub entry: String,
    pub gc_sections: bool,
    pub strip: Strip,
    /// Symbols treated as referenced (`-u`).
    pub undefined: Vec<String>,
    /// Whether to produce the link map text.
    pub want_map: bool,
}

impl Default for LinkConfig {
    fn default() -> LinkConfig {
        LinkConfig {
            entry: "_start".to_string(),
            gc_sections: false,
            strip: Strip::None,
            undefined: Vec::new(),
            want_map: false,
        }
    }
}

impl LinkConfig {
    pub fn from_options(options: &LinkOptions) -> LinkConfig {
        LinkConfig {
            entry: options.entry.clone(),
            gc_sections: options.gc_sections,
            strip: options.strip,
            undefined: options.undefined.clone(),
            want_map: options.map.is_some(),
        }
    }
}

/// The result of a link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkOutput {
    pub executable: Executable,
    /// The link map, if `LinkConfig::want_map`.
    pub map: Option<String>,
}

/// Links objects and archives (told apart by content) held in memory, in the given
/// order, into an executable.
pub fn link(files: &[InputFile], config: &LinkConfig) -> Result<LinkOutput, LinkError> {
    let mut roots = vec![config.entry.clone()];
    roots.extend(config.undefined.iter().cloned());
    let inputs = resolve::select_objects(files, &roots)?;
    let resolution = Resolution::build(&inputs)?;

    let entry_target = resolution.target_of_name(&inputs, &config.entry);
    if matches!(entry_target, Target::Undefined { .. }) {
        return Err(LinkError::MissingEntry(config.entry.clone()));
    }
    let mut root_targets = vec![entry_target];
    root_targets.extend(
        config
            .undefined
            .iter()
            .map(|name| resolution.target_of_name(&inputs, name)),
    );
    let frame_sections = eh_frame::parse_all(&inputs, &resolution)?;
    let live = gc::live_sections(
        &inputs,
        &resolution,
        &root_targets,
        &frame_sections,
        config.gc_sections,
    );
    let frames = eh_frame::live_fdes(&frame_sections, &live);

    let layout = Layout::compute(&inputs, &live, config.strip, frames.len())?;
    relocate::check_undefined(&inputs, &resolution, &layout)?;
    let mut image = relocate::build_image(&inputs, &resolution, &layout)?;
    let hdr = eh_frame::build_hdr(&frames, &layout)?;
    let at = (layout.output_named(eh_frame::HDR_NAME).addr - layout.rodata_start) as usize;
    image.rodata[at..at + hdr.len()].copy_from_slice(&hdr);
    let entry = relocate::symbol_value(entry_target, &layout);
    let map = config
        .want_map
        .then(|| map::write_map(&inputs, &resolution, &layout, &live, entry));
    let executable =
        output::build_executable(&inputs, &resolution, &layout, image, entry, config.strip);
    Ok(LinkOutput { executable, map })
}

/// Runs a parsed link command: reads the inputs, links, writes the executable (mode
/// 0755) and the map file.
pub fn run(options: &LinkOptions) -> Result<(), LinkError> {
    let output = options
        .output
        .as_deref()
        .ok_or_else(|| LinkError::Usage("no output file given (use -o FILE)".to_string()))?;
    if options.inputs.is_empty() {
        return Err(LinkError::Usage("no input files".to_string()));
    }
    let files = load_inputs(options)?;
    // As GNU ld does: a failed link leaves no stale executable behind for a build
    // system to mistake for its result. (Removing rather than overwriting also leaves
    // a running simulator's open file alone.)
    let _ = std::fs::remove_file(output);
    let linked = link(&files, &LinkConfig::from_options(options))?;
    if let (Some(path), Some(map)) = (&options.map, &linked.map) {
        std::fs::write(path, map).map_err(|e| LinkError::io(path, "write map file", &e))?;
    }
    let bytes = vliw_elf::write_executable(&linked.executable);
    std::fs::write(output, bytes).map_err(|e| LinkError::io(output, "write", &e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(output, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| LinkError::io(output, "set permissions of", &e))?;
    }
    Ok(())
}

/// The whole of `vliw-ld`: `args` is the command line without the program name.
/// `--version` and `--help` print to stdout; warnings go to stderr as
/// `vliw-ld: warning: ...`. The caller prints the error and exits non-zero.
pub fn main_with_args(args: &[String]) -> Result<(), LinkError> {
    match parse_args(args)? {
        Command::Version => {
            println!("{VERSION}");
            Ok(())
        }
        Command::Help => {
            print!("{HELP}");
            Ok(())
        }
        Command::Link(options) => {
            for w in &options.warnings {
                eprintln!("vliw-ld: warning: {w}");
            }
            run(&options)
        }
    }
}

/// `main` of the `vliw-ld` binary: reads `std::env::args`, prints an error as
/// `vliw-ld: error: ...` and returns exit status 1 on failure.
pub fn run_main() -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    match main_with_args(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vliw-ld: error: {e}");
            ExitCode::FAILURE
        }
    }
}
