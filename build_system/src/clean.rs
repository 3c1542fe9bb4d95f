//! `clean`: removes every build output except the build system's own.

use std::fs;

use crate::paths::Paths;

/// Removes `dist/`, `build/` and `target/`. `build_system/target/` stays: it holds the
/// binary that is running this.
pub fn clean(paths: &Paths) -> Result<(), String> {
    for dir in [&paths.dist, &paths.build, &paths.target] {
        match fs::remove_dir_all(dir) {
            Ok(()) => eprintln!("[clean] removed {}/", paths.show(dir)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("cannot remove {}: {e}", dir.display())),
        }
    }
    Ok(())
}
