//! The pinned nightly: read from rust-toolchain.toml, installed explicitly with rustup.
//!
//! The environment may run rustup with auto-install disabled, so the first `cargo` call
//! inside the repository would fail on a fresh machine; every subcommand that runs
//! cargo calls [`ensure_toolchain`] first, which installs the toolchain and its
//! components when they are missing and is a fast check (one rustup call) otherwise.

use std::path::Path;
use std::process::Command;

/// The `[toolchain]` table of rust-toolchain.toml.
#[derive(Debug, PartialEq)]
pub struct Toolchain {
    pub channel: String,
    pub components: Vec<String>,
    pub targets: Vec<String>,
    pub profile: String,
}

impl Toolchain {
    pub fn load(root: &Path) -> Result<Toolchain, String> {
        let path = root.join("rust-toolchain.toml");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// `cargo` of the pinned toolchain. RUSTUP_TOOLCHAIN is set explicitly because a
    /// value inherited from the caller's environment would override the toolchain file.
    pub fn cargo(&self, root: &Path) -> Command {
        let mut cmd = Command::new("cargo");
        cmd.current_dir(root).env("RUSTUP_TOOLCHAIN", &self.channel);
        // Inherited from a `cargo run` of the build system itself, these would select
        // the stable compiler or a different target directory for the workspace.
        for var in [
            "RUSTC",
            "RUSTDOC",
            "RUSTC_WRAPPER",
            "CARGO_BUILD_TARGET_DIR",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("CARGO_TARGET_DIR", root.join("target"));
        cmd
    }

    /// The host's target triple (`rustc -vV`'s `host:` line).
    pub fn host_triple(&self) -> Result<String, String> {
        let out = Command::new("rustc")
            .env("RUSTUP_TOOLCHAIN", &self.channel)
            .arg("-vV")
            .output()
            .map_err(|e| format!("cannot run rustc: {e}"))?;
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("host: "))
            .map(|h| h.trim().to_string())
            .ok_or_else(|| "rustc -vV printed no `host:` line".to_string())
    }
}

/// Parses the subset of TOML that rust-toolchain.toml uses: a `[toolchain]` table of
/// string values and (possibly multi-line) arrays of strings.
pub fn parse(text: &str) -> Result<Toolchain, String> {
    let mut in_toolchain = false;
    let mut channel = None;
    let mut components = Vec::new();
    let mut targets = Vec::new();
    let mut profile = None;
    let mut lines = text.lines().enumerate();
    while let Some((index, line)) = lines.next() {
        let line = strip_comment(line).trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('[') {
            in_toolchain = line == "[toolchain]";
            continue;
        }
        if !in_toolchain {
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .ok_or_else(|| format!("line {}: expected `key = value`", index + 1))?;
        let key = key.trim();
        let mut value = value.trim().to_string();
        // A multi-line array continues until its closing bracket.
        if value.starts_with('[') {
            while !value.ends_with(']') {
                let (_, next) = lines
                    .next()
                    .ok_or_else(|| format!("line {}: unterminated array", index + 1))?;
                value.push_str(strip_comment(next).trim());
            }
        }
        let at = |e: String| format!("line {}: {key}: {e}", index + 1);
        match key {
            "channel" => channel = Some(parse_string(&value).map_err(at)?),
            "profile" => profile = Some(parse_string(&value).map_err(at)?),
            "components" => components = parse_array(&value).map_err(at)?,
            "targets" => targets = parse_array(&value).map_err(at)?,
            // `path` toolchains cannot be installed with rustup; others are irrelevant.
            _ => {}
        }
    }
    let channel = channel.ok_or("no `channel` in the [toolchain] table")?;
    Ok(Toolchain {
        channel,
        components,
        targets,
        profile: profile.unwrap_or("minimal".into()),
    })
}

/// Our values never contain `#`, so a comment starts at the first `#` outside quotes.
fn strip_comment(line: &str) -> &str {
    let mut in_string = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => in_string = !in_string,
            '#' if !in_string => return &line[..i],
            _ => {}
        }
    }
    line
}

fn parse_string(value: &str) -> Result<String, String> {
    let value = value.trim();
    let inner = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
        .ok_or_else(|| format!("expected a quoted string, found `{value}`"))?;
    if inner.contains(['"', '\\']) {
        return Err(format!("unsupported string `{value}`"));
    }
    Ok(inner.to_string())
}

fn parse_array(value: &str) -> Result<Vec<String>, String> {
    let inner = value
        .strip_prefix('[')
        .and_then(|v| v.strip_suffix(']'))
        .ok_or_else(|| format!("expected an array, found `{value}`"))?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty()) // a trailing comma is allowed
        .map(parse_string)
        .collect()
}

/// Installs the pinned toolchain, its components and targets if any is missing.
pub fn ensure_toolchain(root: &Path) -> Result<Toolchain, String> {
    let toolchain = Toolchain::load(root)?;
    let channel = &toolchain.channel;
    match installed_components(channel)? {
        None => {
            eprintln!("[prepare] installing toolchain {channel} with rustup");
            let mut cmd = rustup();
            // No self-update: a build must not change the machine's rustup.
            cmd.args(["toolchain", "install", channel, "--no-self-update"]);
            cmd.args(["--profile", &toolchain.profile]);
            if !toolchain.components.is_empty() {
                cmd.arg("--component").arg(toolchain.components.join(","));
            }
            if !toolchain.targets.is_empty() {
                cmd.arg("--target").arg(toolchain.targets.join(","));
            }
            run_rustup(cmd)?;
        }
        Some(installed) => {
            let missing = missing(
                &toolchain.components,
                &installed,
                &component_host(&installed),
            );
            if !missing.is_empty() {
                eprintln!(
                    "[prepare] adding components to {channel}: {}",
                    missing.join(", ")
                );
                let mut cmd = rustup();
                cmd.args(["component", "add", "--toolchain", channel])
                    .args(&missing);
                run_rustup(cmd)?;
            }
            let missing: Vec<String> = toolchain
                .targets
                .iter()
                .filter(|t| !installed.contains(&format!("rust-std-{t}")))
                .cloned()
                .collect();
            if !missing.is_empty() {
                eprintln!(
                    "[prepare] adding targets to {channel}: {}",
                    missing.join(", ")
                );
                let mut cmd = rustup();
                cmd.args(["target", "add", "--toolchain", channel])
                    .args(&missing);
                run_rustup(cmd)?;
            }
        }
    }
    Ok(toolchain)
}

fn rustup() -> Command {
    let mut cmd = Command::new("rustup");
    // Our own choice of toolchain must not be overridden by the caller's.
    cmd.env_remove("RUSTUP_TOOLCHAIN");
    cmd
}

fn run_rustup(mut cmd: Command) -> Result<(), String> {
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run rustup: {e}; is rustup installed?"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("rustup failed ({status}): {cmd:?}"))
    }
}

/// The installed components of `channel` as rustup names them (`rust-src`,
/// `rustfmt-x86_64-unknown-linux-gnu`, ...), or None when it is not installed.
fn installed_components(channel: &str) -> Result<Option<Vec<String>>, String> {
    let output = rustup()
        .args(["component", "list", "--installed", "--toolchain", channel])
        .output()
        .map_err(|e| format!("cannot run rustup: {e}; is rustup installed?"))?;
    if !output.status.success() {
        // rustup's only failure here in practice: the toolchain is not installed.
        return Ok(None);
    }
    Ok(Some(
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(|l| l.trim().to_string())
            .collect(),
    ))
}

/// The host triple that suffixes host components, read off `cargo-<host>` (every
/// profile has cargo) or `rustc-<host>`.
fn component_host(installed: &[String]) -> Option<String> {
    installed
        .iter()
        .find_map(|c| c.strip_prefix("cargo-"))
        .map(str::to_string)
        .or_else(|| {
            installed
                .iter()
                .filter_map(|c| c.strip_prefix("rustc-"))
                .find(|rest| !rest.starts_with("dev-") && !rest.starts_with("docs-"))
                .map(str::to_string)
        })
}

/// The wanted components that are not installed. Host components are listed with a
/// `-<host>` suffix, and rustup renamed `*-preview` components to their plain names.
fn missing(wanted: &[String], installed: &[String], host: &Option<String>) -> Vec<String> {
    let is_installed = |name: &str| {
        installed
            .iter()
            .any(|c| c == name || host.as_ref().is_some_and(|h| *c == format!("{name}-{h}")))
    };
    wanted
        .iter()
        .filter(|w| !is_installed(w) && !w.strip_suffix("-preview").is_some_and(is_installed))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_repository_file() {
        let text = "[toolchain]\nchannel = \"nightly-2026-10-25\"\n\
                    components = [\"rust-src\", \"rustc-dev\", \"llvm-tools\"]\nprofile = \"minimal\"\n";
        let tc = parse(text).unwrap();
        assert_eq!(tc.channel, "nightly-2026-10-25");
        assert_eq!(tc.components, ["rust-src", "rustc-dev", "llvm-tools"]);
        assert_eq!(tc.profile, "minimal");
        assert!(tc.targets.is_empty());
    }

    #[test]
    fn parses_multiline_arrays_comments_and_other_tables() {
        let text = "# pinned\n[other]\nchannel = \"wrong\"\n[toolchain]\n\
                    channel = 'nightly' # the channel\ncomponents = [\n  \"rustfmt\", # fmt\n  \"clippy\",\n]\n\
                    targets = [\"hexagon-unknown-none-elf\"]\n";
        let tc = parse(text).unwrap();
        assert_eq!(tc.channel, "nightly");
        assert_eq!(tc.components, ["rustfmt", "clippy"]);
        assert_eq!(tc.targets, ["hexagon-unknown-none-elf"]);
        assert_eq!(tc.profile, "minimal");
    }

    #[test]
    fn rejects_a_file_without_channel() {
        assert!(parse("[toolchain]\ncomponents = []\n").is_err());
        assert!(parse("[toolchain]\nchannel = nightly\n").is_err());
    }

    #[test]
    fn finds_missing_components() {
        let installed: Vec<String> = [
            "cargo-x86_64-unknown-linux-gnu",
            "llvm-tools-x86_64-unknown-linux-gnu",
            "rust-src",
            "rustc-x86_64-unknown-linux-gnu",
            "rustc-dev-x86_64-unknown-linux-gnu",
        ]
        .map(String::from)
        .to_vec();
        let host = component_host(&installed);
        assert_eq!(host.as_deref(), Some("x86_64-unknown-linux-gnu"));
        let wanted: Vec<String> = [
            "rust-src",
            "rustc-dev",
            "llvm-tools-preview",
            "rustfmt",
            "clippy",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(missing(&wanted, &installed, &host), ["rustfmt", "clippy"]);
    }
}
