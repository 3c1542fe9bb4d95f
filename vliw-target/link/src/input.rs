//! Input files: reading them from disk, finding `-l` libraries, and telling objects
//! from archives by their contents.

use std::path::Path;

use crate::args::{InputSpec, LinkOptions};
use crate::error::LinkError;

/// One file given to the linker, already read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputFile {
    /// The name used in messages and in the map file (the path as given).
    pub name: String,
    pub data: Vec<u8>,
    /// `--whole-archive` was in effect: every member of this archive is linked.
    pub whole_archive: bool,
}

/// Reads every input of the command line, in order, finding `-l` libraries in the
/// `-L` directories (all of them apply to every `-l`, as in GNU ld).
pub fn load_inputs(options: &LinkOptions) -> Result<Vec<InputFile>, LinkError> {
    let mut files = Vec::with_capacity(options.inputs.len());
    for spec in &options.inputs {
        let (path, whole_archive) = match spec {
            InputSpec::File {
                path,
                whole_archive,
            } => (path.clone(), *whole_archive),
            InputSpec::Library {
                name,
                dynamic,
                whole_archive,
            } => (
                find_library(name, *dynamic, &options.library_paths)?,
                *whole_archive,
            ),
        };
        let data = std::fs::read(&path).map_err(|e| LinkError::io(&path, "open", &e))?;
        files.push(InputFile {
            name: path,
            data,
            whole_archive,
        });
    }
    Ok(files)
}

/// The file that `-lNAME` stands for. `-l:FILE` names the file itself. With
/// `-Bdynamic` in effect, a `libNAME.so` found before `libNAME.a` is an error: this
/// linker makes static executables only.
pub fn find_library(name: &str, dynamic: bool, dirs: &[String]) -> Result<String, LinkError> {
    let candidates: Vec<String> = match name.strip_prefix(':') {
        Some(file) => vec![file.to_string()],
        None => vec![format!("lib{name}.so"), format!("lib{name}.a")],
    };
    for dir in dirs {
        for file in &candidates {
            let path = Path::new(dir).join(file);
            if !path.is_file() {
                continue;
            }
            let path = path.to_string_lossy().into_owned();
            if file.ends_with(".so") {
                if dynamic || name.starts_with(':') {
                    return Err(LinkError::Usage(format!(
                        "-l{name}: found the dynamic library {path}, but only static linking is supported (use -Bstatic or provide lib{name}.a)"
                    )));
                }
                continue;
            }
            return Ok(path);
        }
    }
    Err(LinkError::Usage(format!(
        "unable to find library -l{name} (searched {})",
        if dirs.is_empty() {
            "no -L directories".to_string()
        } else {
            dirs.join(", ")
        }
    )))
}
