//! The repository layout the build system works in.

use std::path::{Path, PathBuf};

/// Names of the target tools, as built by package `vliw-tools` and installed in `dist/`.
/// Fixed: scripts and users rely on them (DESIGN.md section 2).
pub const TOOLS: [&str; 4] = ["vliw-as", "vliw-ld", "vliw-objdump", "vliw-run"];

/// Absolute paths of everything the build system reads or writes.
pub struct Paths {
    pub root: PathBuf,
    /// What users run: the tools (and later the backend and sysroot).
    pub dist: PathBuf,
    /// Scratch output of `run`, `test` and `bench`; safe to delete at any time.
    pub build: PathBuf,
    /// Cargo's target directory for the workspace.
    pub target: PathBuf,
    pub tests: PathBuf,
    /// Where the user invoked `./y.sh` from; relative paths on the command line are
    /// relative to it, although y.sh changes into the repository root.
    pub invoked_from: PathBuf,
}

impl Paths {
    /// y.sh changes into the repository root before running us, so the current
    /// directory is the root; check it rather than silently writing elsewhere.
    pub fn discover() -> Result<Paths, String> {
        let root = std::env::current_dir()
            .map_err(|e| format!("cannot read the current directory: {e}"))?;
        if !root.join("rust-toolchain.toml").is_file() || !root.join("build_system").is_dir() {
            return Err(format!(
                "{} is not the repository root (no rust-toolchain.toml and build_system/); \
                 run the build system through ./y.sh",
                root.display()
            ));
        }
        let invoked_from = match std::env::var_os("Y_INVOKED_FROM") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => root.clone(),
        };
        Ok(Paths {
            dist: root.join("dist"),
            build: root.join("build"),
            target: root.join("target"),
            tests: root.join("tests"),
            invoked_from,
            root,
        })
    }

    pub fn tool(&self, name: &str) -> PathBuf {
        self.dist.join(name)
    }

    /// A path given by the user, resolved against the directory y.sh was run from.
    pub fn user_path(&self, arg: &str) -> PathBuf {
        let path = Path::new(arg);
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.invoked_from.join(path)
        }
    }

    /// `path` relative to the repository root when it is inside it, for messages.
    pub fn show(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}
