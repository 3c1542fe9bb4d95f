//! The GNU-ld-style command line of `vliw-ld`, as rustc and build scripts write it.
//!
//! Options that only matter for dynamic linking or for other machines are accepted and
//! ignored when they cannot change a static executable of ours (`--as-needed`,
//! `-z relro`, `--eh-frame-hdr`, `-plugin`...); options that ask for something this
//! linker cannot do (`-pie`, `-shared`, a dynamic library) are errors, as are unknown
//! options.

use crate::error::LinkError;

/// One input on the command line, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputSpec {
    /// A file named on the command line: an object or an archive (told apart by
    /// content, not by name).
    File { path: String, whole_archive: bool },
    /// `-lNAME`: `libNAME.a` in the `-L` directories (`-l:FILE` names the file).
    /// `dynamic` is true after `-Bdynamic`: finding `libNAME.so` first is then an error.
    Library {
        name: String,
        dynamic: bool,
        whole_archive: bool,
    },
}

/// What `-s` / `-S` remove from the output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strip {
    #[default]
    None,
    /// `-S`, `--strip-debug`: no `.debug*` sections.
    Debug,
    /// `-s`, `--strip-all`: no `.debug*` sections and no symbol table.
    All,
}

/// A parsed link command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkOptions {
    pub inputs: Vec<InputSpec>,
    pub output: Option<String>,
    pub entry: String,
    pub gc_sections: bool,
    pub map: Option<String>,
    pub library_paths: Vec<String>,
    pub strip: Strip,
    /// `-u SYM`: symbols to treat as referenced (pulls archive members, roots for gc).
    pub undefined: Vec<String>,
    /// Things accepted but worth telling the user about (unknown `-z` keywords).
    pub warnings: Vec<String>,
}

impl Default for LinkOptions {
    fn default() -> LinkOptions {
        LinkOptions {
            inputs: Vec::new(),
            output: None,
            entry: "_start".to_string(),
            gc_sections: false,
            map: None,
            library_paths: Vec::new(),
            strip: Strip::None,
            undefined: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Link(LinkOptions),
    Version,
    Help,
}

pub const VERSION: &str = concat!(
    "vliw-ld (vliw-link) ",
    env!("CARGO_PKG_VERSION"),
    ", a static linker for the VLIW target"
);

pub const HELP: &str = "\
Usage: vliw-ld [options] FILE...
Links objects and archives of the VLIW target into a static executable.

  -o FILE                   write the executable to FILE (required)
  -e SYM, --entry=SYM       entry point (default _start)
  --gc-sections             drop sections nothing refers to (--no-gc-sections: keep all)
  -Map FILE, -Map=FILE      write a link map to FILE
  -L DIR                    search DIR for -l libraries
  -lNAME, -l NAME           link libNAME.a found in the -L directories (-l:FILE: exact name)
  --whole-archive           take every member of the following archives (--no-whole-archive)
  --start-group, --end-group  accepted: archives are always searched until nothing changes
  -u SYM, --undefined=SYM   treat SYM as referenced
  -s, --strip-all           no symbol table, no debug sections
  -S, --strip-debug         no debug sections
  -static, -Bstatic, -Bdynamic, -nostdlib, -nostartfiles, --as-needed, -no-pie,
  -z noexecstack|relro|now, --eh-frame-hdr, -O1, -plugin*  accepted, no effect
  @FILE                     read more arguments from FILE
  --version, --help
";

/// Options accepted and ignored: they change nothing in a static executable of ours.
const IGNORED: &[&str] = &[
    "-static",
    "--static",
    "-Bstatic",
    "-dn",
    "-non_shared",
    "-nostdlib",
    "-nostartfiles",
    "-nodefaultlibs",
    "--as-needed",
    "--no-as-needed",
    "--eh-frame-hdr",
    "--no-eh-frame-hdr",
    "-no-pie",
    "--no-pie",
    "--start-group",
    "--end-group",
    "-(",
    "-)",
    "--no-undefined",
    "--no-undefined-version",
    "--fatal-warnings",
    "--disable-new-dtags",
    "--enable-new-dtags",
    "--no-allow-shlib-undefined",
    "-O0",
    "-O1",
    "-O2",
    "-O3",
    "--build-id",
    "--no-rosegment",
    "--rosegment",
];

/// Options that take the next argument, accepted and ignored.
const IGNORED_WITH_ARG: &[&str] = &["-plugin", "-m"];

/// `-z` keywords accepted silently: they concern dynamic linking or stack
/// executability, which a static executable of ours does not have.
const Z_KEYWORDS: &[&str] = &[
    "noexecstack",
    "execstack",
    "relro",
    "norelro",
    "now",
    "lazy",
    "text",
    "notext",
    "defs",
    "nodefs",
];

/// Options that ask for output this linker cannot make.
const UNSUPPORTED: &[(&str, &str)] = &[
    (
        "-pie",
        "position-independent executables are not supported (static executables only)",
    ),
    (
        "--pie",
        "position-independent executables are not supported (static executables only)",
    ),
    (
        "-static-pie",
        "position-independent executables are not supported (static executables only)",
    ),
    (
        "--static-pie",
        "position-independent executables are not supported (static executables only)",
    ),
    (
        "-shared",
        "shared libraries are not supported (static executables only)",
    ),
    (
        "--shared",
        "shared libraries are not supported (static executables only)",
    ),
    (
        "-Bshareable",
        "shared libraries are not supported (static executables only)",
    ),
    ("-r", "relocatable output (-r) is not supported"),
    ("--relocatable", "relocatable output (-r) is not supported"),
];

/// Expands `@FILE` arguments (recursively) into the arguments FILE holds.
pub fn expand_response_files(args: &[String]) -> Result<Vec<String>, LinkError> {
    let mut out = Vec::new();
    expand_into(args, &mut out, 0)?;
    Ok(out)
}

fn expand_into(args: &[String], out: &mut Vec<String>, depth: usize) -> Result<(), LinkError> {
    for arg in args {
        match arg.strip_prefix('@') {
            Some(path) if !path.is_empty() => {
                if depth >= 16 {
                    return Err(LinkError::Usage(format!(
                        "response file {path} nests too deeply (a file that includes itself?)"
                    )));
                }
                let text = std::fs::read(path)
                    .map_err(|e| LinkError::io(path, "read response file", &e))?;
                let words = split_response_file(&String::from_utf8_lossy(&text));
                expand_into(&words, out, depth + 1)?;
            }
            _ => out.push(arg.clone()),
        }
    }
    Ok(())
}

/// Splits a response file into arguments the way GNU tools do: whitespace separates,
/// single and double quotes group, a backslash takes the next character literally
/// (rustc escapes spaces and backslashes this way).
pub fn split_response_file(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (c, quote) {
            ('\\', _) => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
                in_word = true;
            }
            (q, Some(open)) if q == open => quote = None,
            (_, Some(_)) => word.push(c),
            ('\'' | '"', None) => {
                quote = Some(c);
                in_word = true;
            }
            (c, None) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (c, None) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Parses a command line (without the program name). Expands response files first.
pub fn parse_args(args: &[String]) -> Result<Command, LinkError> {
    let args = expand_response_files(args)?;
    let mut o = LinkOptions::default();
    let mut whole_archive = false;
    let mut dynamic = false;
    let mut i = 0;
    // The value of an option given as `-x VALUE`, `-xVALUE`, `--long VALUE` or
    // `--long=VALUE`.
    let value = |i: &mut usize, arg: &str, inline: Option<&str>| -> Result<String, LinkError> {
        if let Some(v) = inline {
            return Ok(v.to_string());
        }
        *i += 1;
        args.get(*i)
            .cloned()
            .ok_or_else(|| LinkError::Usage(format!("missing argument to option `{arg}`")))
    };
    while i < args.len() {
        let arg = args[i].as_str();
        // `--name=value` and `-name=value` split at the first `=`.
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with('-') => (n, Some(v)),
            _ => (arg, None),
        };
        match name {
            "--version" | "-v" | "-V" => return Ok(Command::Version),
            "--help" => return Ok(Command::Help),
            "-o" | "--output" => o.output = Some(value(&mut i, arg, inline)?),
            "-e" | "--entry" => o.entry = value(&mut i, arg, inline)?,
            "--gc-sections" => o.gc_sections = true,
            "--no-gc-sections" => o.gc_sections = false,
            "-Map" | "--Map" => o.map = Some(value(&mut i, arg, inline)?),
            "-L" | "--library-path" => o.library_paths.push(value(&mut i, arg, inline)?),
            "-l" | "--library" => {
                let lib = value(&mut i, arg, inline)?;
                o.inputs.push(InputSpec::Library {
                    name: lib,
                    dynamic,
                    whole_archive,
                });
            }
            "-u" | "--undefined" => o.undefined.push(value(&mut i, arg, inline)?),
            "--whole-archive" => whole_archive = true,
            "--no-whole-archive" => whole_archive = false,
            "-Bdynamic" | "-dy" | "-call_shared" => dynamic = true,
            "-Bstatic" | "-dn" | "-non_shared" | "-static" | "--static" => dynamic = false,
            "-s" | "--strip-all" => o.strip = Strip::All,
            "-S" | "--strip-debug" => {
                if o.strip == Strip::None {
                    o.strip = Strip::Debug;
                }
            }
            "-z" => {
                let keyword = value(&mut i, arg, inline)?;
                z_keyword(&keyword, &mut o);
            }
            _ if IGNORED.contains(&name) => {}
            _ if IGNORED_WITH_ARG.contains(&name) => {
                value(&mut i, arg, inline)?;
            }
            _ if name.starts_with("-plugin") || name.starts_with("--plugin") => {}
            _ if name.starts_with("--hash-style") || name.starts_with("--build-id") => {}
            _ if name.starts_with("--color-diagnostics") || name.starts_with("--threads") => {}
            _ => {
                if let Some((_, message)) = UNSUPPORTED.iter().find(|(n, _)| *n == name) {
                    return Err(LinkError::Usage(format!("{message} (option `{arg}`)")));
                }
                if let Some(v) = arg
                    .strip_prefix("-o")
                    .filter(|v| !v.is_empty() && !arg.starts_with("--"))
                {
                    o.output = Some(v.to_string());
                } else if let Some(v) = arg.strip_prefix("-L").filter(|v| !v.is_empty()) {
                    o.library_paths.push(v.to_string());
                } else if let Some(v) = arg.strip_prefix("-l").filter(|v| !v.is_empty()) {
                    o.inputs.push(InputSpec::Library {
                        name: v.to_string(),
                        dynamic,
                        whole_archive,
                    });
                } else if let Some(v) = arg
                    .strip_prefix("-e")
                    .filter(|v| !v.is_empty() && !arg.starts_with("--"))
                {
                    o.entry = v.to_string();
                } else if let Some(v) = arg.strip_prefix("-z").filter(|v| !v.is_empty()) {
                    z_keyword(v, &mut o);
                } else if let Some(v) = arg
                    .strip_prefix("-u")
                    .filter(|v| !v.is_empty() && !arg.starts_with("--"))
                {
                    o.undefined.push(v.to_string());
                } else if arg.starts_with('-') && arg != "-" {
                    return Err(LinkError::Usage(format!("unknown option: {arg}")));
                } else {
                    o.inputs.push(InputSpec::File {
                        path: arg.to_string(),
                        whole_archive,
                    });
                }
            }
        }
        i += 1;
    }
    Ok(Command::Link(o))
}

fn z_keyword(keyword: &str, o: &mut LinkOptions) {
    if !Z_KEYWORDS.contains(&keyword)
        && !keyword.starts_with("max-page-size")
        && !keyword.starts_with("common-page-size")
    {
        o.warnings
            .push(format!("ignoring unknown -z keyword: {keyword}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Command, LinkError> {
        parse_args(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    fn link(args: &[&str]) -> LinkOptions {
        match parse(args).unwrap() {
            Command::Link(o) => o,
            c => panic!("{c:?}"),
        }
    }

    #[test]
    fn option_spellings() {
        let o = link(&[
            "a.o",
            "-o",
            "out",
            "-e",
            "main",
            "--gc-sections",
            "-Map",
            "m.txt",
            "-L",
            "dir",
            "-lfoo",
            "-l",
            "bar",
        ]);
        assert_eq!(o.output.as_deref(), Some("out"));
        assert_eq!(o.entry, "main");
        assert!(o.gc_sections);
        assert_eq!(o.map.as_deref(), Some("m.txt"));
        assert_eq!(o.library_paths, ["dir"]);
        assert_eq!(o.inputs.len(), 3);
        assert_eq!(
            o.inputs[1],
            InputSpec::Library {
                name: "foo".into(),
                dynamic: false,
                whole_archive: false
            }
        );

        let o = link(&[
            "-oout",
            "--entry=start2",
            "-Map=a.map",
            "-Ldir2",
            "--library-path=d3",
            "--no-gc-sections",
        ]);
        assert_eq!(
            (o.output.as_deref(), o.entry.as_str(), o.map.as_deref()),
            (Some("out"), "start2", Some("a.map"))
        );
        assert_eq!(o.library_paths, ["dir2", "d3"]);
        let o = link(&["--entry", "s", "--Map=b.map", "-estart3"]);
        assert_eq!(
            (o.entry.as_str(), o.map.as_deref()),
            ("start3", Some("b.map"))
        );
    }

    #[test]
    fn ignored_options() {
        let o = link(&[
            "-static",
            "-nostdlib",
            "-nostartfiles",
            "--as-needed",
            "-Bstatic",
            "-z",
            "noexecstack",
            "-zrelro",
            "-z",
            "now",
            "--eh-frame-hdr",
            "-no-pie",
            "-plugin",
            "/usr/lib/liblto_plugin.so",
            "-plugin-opt=O2",
            "--start-group",
            "x.a",
            "--end-group",
            "-O1",
            "a.o",
        ]);
        assert_eq!(o.inputs.len(), 2);
        assert!(o.warnings.is_empty());
        let o = link(&["-z", "bogus"]);
        assert_eq!(o.warnings, ["ignoring unknown -z keyword: bogus"]);
    }

    #[test]
    fn whole_archive_and_dynamic_apply_to_following_inputs() {
        let o = link(&[
            "a.a",
            "--whole-archive",
            "b.a",
            "-lc",
            "--no-whole-archive",
            "-Bdynamic",
            "-lm",
            "c.a",
        ]);
        assert_eq!(
            o.inputs,
            [
                InputSpec::File {
                    path: "a.a".into(),
                    whole_archive: false
                },
                InputSpec::File {
                    path: "b.a".into(),
                    whole_archive: true
                },
                InputSpec::Library {
                    name: "c".into(),
                    dynamic: false,
                    whole_archive: true
                },
                InputSpec::Library {
                    name: "m".into(),
                    dynamic: true,
                    whole_archive: false
                },
                InputSpec::File {
                    path: "c.a".into(),
                    whole_archive: false
                },
            ]
        );
    }

    #[test]
    fn strip_options() {
        assert_eq!(link(&["-s"]).strip, Strip::All);
        assert_eq!(link(&["--strip-debug"]).strip, Strip::Debug);
        assert_eq!(link(&["-s", "-S"]).strip, Strip::All);
        assert_eq!(link(&["-S", "--strip-all"]).strip, Strip::All);
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse(&["--frobnicate"]).unwrap_err().to_string(),
            "unknown option: --frobnicate"
        );
        assert_eq!(
            parse(&["a.o", "-o"]).unwrap_err().to_string(),
            "missing argument to option `-o`"
        );
        assert_eq!(
            parse(&["-pie"]).unwrap_err().to_string(),
            "position-independent executables are not supported (static executables only) (option `-pie`)"
        );
        assert!(
            parse(&["-shared"])
                .unwrap_err()
                .to_string()
                .contains("shared libraries are not supported")
        );
    }

    #[test]
    fn version_and_help() {
        assert_eq!(parse(&["--version"]).unwrap(), Command::Version);
        assert_eq!(parse(&["a.o", "--help"]).unwrap(), Command::Help);
    }

    #[test]
    fn response_file_splitting() {
        assert_eq!(
            split_response_file("a.o  \"b c.o\"\n'd e'  f\\ g.o\n-o\nout\\\\x\n"),
            ["a.o", "b c.o", "d e", "f g.o", "-o", "out\\x"]
        );
        assert_eq!(split_response_file("\"\" x"), ["", "x"]);
    }
}
