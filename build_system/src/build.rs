//! `build`: the workspace with the pinned toolchain, then the tools into `dist/`, then
//! (release builds) the sysroot and the wrappers (`sysroot.rs`).

use std::fs;
use std::path::Path;

use crate::paths::{Paths, TOOLS};
use crate::toolchain::Toolchain;

#[derive(Clone, Copy, PartialEq)]
pub enum Profile {
    Release,
    Debug,
}

pub fn build(paths: &Paths, toolchain: &Toolchain, profile: Profile) -> Result<(), String> {
    eprintln!(
        "[build] workspace ({} toolchain {})",
        profile_name(profile),
        toolchain.channel
    );
    let mut cmd = toolchain.cargo(&paths.root);
    cmd.args(["build", "--workspace", "--locked"]);
    if profile == Profile::Release {
        cmd.arg("--release");
    }
    let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "`cargo build` of the workspace failed ({status}); see cargo's messages above"
        ));
    }

    let built = paths.target.join(profile_name(profile));
    fs::create_dir_all(&paths.dist)
        .map_err(|e| format!("cannot create {}: {e}", paths.dist.display()))?;
    for tool in TOOLS {
        let from = built.join(tool);
        if !from.is_file() {
            return Err(format!(
                "cargo built the workspace but {} does not exist: the workspace must provide \
                 package `vliw-tools` with the binaries {}",
                paths.show(&from),
                TOOLS.join(", ")
            ));
        }
        install(&from, &paths.dist.join(tool))?;
    }
    eprintln!("[build] tools installed in {}/", paths.show(&paths.dist));
    if profile == Profile::Release {
        crate::sysroot::build(paths, toolchain)?;
    }
    Ok(())
}

fn profile_name(profile: Profile) -> &'static str {
    match profile {
        Profile::Release => "release",
        Profile::Debug => "debug",
    }
}

/// Copies `from` to `to` unless `to` already has the same size and modification
/// time. Through a temporary file and a rename, so that a tool still running from
/// `dist/` never sees a half-written binary ("text file busy" cannot happen either).
pub(crate) fn install(from: &Path, to: &Path) -> Result<(), String> {
    let source = fs::metadata(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    if let Ok(dest) = fs::metadata(to)
        && dest.len() == source.len()
        && dest.modified().ok() == source.modified().ok()
    {
        return Ok(());
    }
    let tmp = to.with_extension("tmp");
    fs::copy(from, &tmp)
        .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), tmp.display()))?;
    if let Ok(mtime) = source.modified() {
        // Keeping cargo's timestamp is what makes the up-to-date check above work.
        let file = fs::File::options().write(true).open(&tmp);
        if let Ok(file) = file {
            let _ = file.set_modified(mtime);
        }
    }
    fs::rename(&tmp, to)
        .map_err(|e| format!("cannot move {} to {}: {e}", tmp.display(), to.display()))
}
