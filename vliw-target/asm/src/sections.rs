//! Sections being assembled, and the mapping between section names, `.section`
//! flags/types and the object model's [`SectionKind`].

use crate::error::Pos;
use vliw_elf::SectionKind;

/// Largest section the assembler builds (a `.zero` or alignment typo must not
/// allocate gigabytes).
pub const MAX_SECTION_SIZE: u64 = 256 << 20;

/// A section while it is being assembled.
#[derive(Clone, Debug)]
pub struct SectionState {
    pub name: String,
    pub kind: SectionKind,
    pub align: u64,
    /// Contents; stays empty for bss.
    pub data: Vec<u8>,
    /// Size of a bss section.
    pub bss_size: u64,
    pub retain: bool,
    /// The last data directive in a code section, for the error if the section does
    /// not end on a syllable boundary.
    pub last_data: Option<Pos>,
}

impl SectionState {
    pub fn new(name: &str, kind: SectionKind, retain: bool) -> SectionState {
        let align = if kind == SectionKind::Text { 8 } else { 1 };
        SectionState {
            name: name.to_string(),
            kind,
            align,
            data: Vec::new(),
            bss_size: 0,
            retain,
            last_data: None,
        }
    }

    /// The location counter.
    pub fn offset(&self) -> u64 {
        if self.kind.is_nobits() {
            self.bss_size
        } else {
            self.data.len() as u64
        }
    }

    pub fn is_code(&self) -> bool {
        self.kind == SectionKind::Text
    }

    /// Grows the section by `n` bytes of `fill`, within [`MAX_SECTION_SIZE`].
    pub fn grow(&mut self, n: u64, fill: u8) -> Result<(), String> {
        let end = self
            .offset()
            .checked_add(n)
            .filter(|&e| e <= MAX_SECTION_SIZE);
        let Some(end) = end else {
            return Err(format!(
                "section `{}` would grow past {} MiB",
                self.name,
                MAX_SECTION_SIZE >> 20
            ));
        };
        if self.kind.is_nobits() {
            self.bss_size = end;
        } else {
            self.data.resize(end as usize, fill);
        }
        Ok(())
    }

    pub fn push_bytes(&mut self, bytes: &[u8]) -> Result<(), String> {
        if self.offset() + bytes.len() as u64 > MAX_SECTION_SIZE {
            return Err(format!(
                "section `{}` would grow past {} MiB",
                self.name,
                MAX_SECTION_SIZE >> 20
            ));
        }
        self.data.extend_from_slice(bytes);
        Ok(())
    }
}

fn has_prefix(name: &str, prefix: &str) -> bool {
    name == prefix
        || name
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// The kind a section gets from its name alone (`.text.foo` is code, `.rodata.str`
/// read-only data...); names without a known prefix are not loaded.
pub fn kind_from_name(name: &str) -> SectionKind {
    const PREFIXES: [(&str, SectionKind); 10] = [
        (".text", SectionKind::Text),
        (".tdata", SectionKind::TlsData),
        (".tbss", SectionKind::TlsBss),
        (".data", SectionKind::Data),
        (".rodata", SectionKind::ReadOnlyData),
        (".bss", SectionKind::Bss),
        (".init_array", SectionKind::InitArray),
        (".fini_array", SectionKind::FiniArray),
        (".note", SectionKind::Note),
        (".debug", SectionKind::Other),
    ];
    // `.debug_line` and friends use `_`, not `.`.
    if name.starts_with(".debug") {
        return SectionKind::Other;
    }
    PREFIXES
        .iter()
        .find(|(p, _)| has_prefix(name, p))
        .map_or(SectionKind::Other, |(_, k)| *k)
}

/// The kind and `retain` flag of `.section NAME[, "FLAGS"][, @TYPE]`.
pub fn kind_from_flags(
    name: &str,
    flags: Option<&str>,
    section_type: Option<&str>,
) -> Result<(SectionKind, bool), String> {
    let mut retain = false;
    let (mut alloc, mut write, mut exec, mut tls) = (false, false, false, false);
    if let Some(flags) = flags {
        for c in flags.chars() {
            match c {
                'a' => alloc = true,
                'w' => write = true,
                'x' => exec = true,
                'R' => retain = true,
                // Mergeable / strings: hints for linkers that merge constants; ours
                // does not, and the contents are the same either way.
                'M' | 'S' => {}
                'T' => tls = true,
                'G' => return Err("section groups (flag `G`) are not supported".to_string()),
                other => {
                    return Err(format!(
                        "unknown section flag `{other}` (known: a, w, x, T, R, M, S)"
                    ));
                }
            }
        }
    }
    let by_type = match section_type {
        None | Some("progbits") => None,
        Some("nobits") => Some(SectionKind::Bss),
        Some("init_array") => Some(SectionKind::InitArray),
        Some("fini_array") => Some(SectionKind::FiniArray),
        Some("note") => Some(SectionKind::Note),
        Some(other) => {
            return Err(format!(
                "unknown section type `@{other}` (known: progbits, nobits, init_array, fini_array, note)"
            ));
        }
    };
    if tls {
        return match by_type {
            _ if !alloc || !write || exec => Err(
                "a thread-local section (flag `T`) must be allocated, writable and not executable (flags \"awT\")"
                    .to_string(),
            ),
            None => Ok((SectionKind::TlsData, retain)),
            Some(SectionKind::Bss) => Ok((SectionKind::TlsBss, retain)),
            Some(_) => Err(
                "a thread-local section (flag `T`) is `@progbits` (.tdata) or `@nobits` (.tbss)"
                    .to_string(),
            ),
        };
    }
    if let Some(kind) = by_type {
        if kind == SectionKind::Bss && (exec || (flags.is_some() && !alloc)) {
            return Err(
                "a `@nobits` section must be allocated and not executable (flags \"aw\")"
                    .to_string(),
            );
        }
        return Ok((kind, retain));
    }
    let kind = match flags {
        None => kind_from_name(name),
        Some(_) if exec => SectionKind::Text,
        Some(_) if write => SectionKind::Data,
        Some(_) if alloc => SectionKind::ReadOnlyData,
        Some(_) => SectionKind::Other,
    };
    Ok((kind, retain))
}

/// `"FLAGS", @TYPE` that [`kind_from_flags`] maps back to `kind`.
pub fn flags_for_kind(kind: SectionKind, retain: bool) -> (String, &'static str) {
    let (flags, section_type) = match kind {
        SectionKind::Text => ("ax", "progbits"),
        SectionKind::Data => ("aw", "progbits"),
        SectionKind::ReadOnlyData => ("a", "progbits"),
        SectionKind::Bss => ("aw", "nobits"),
        SectionKind::InitArray => ("aw", "init_array"),
        SectionKind::FiniArray => ("aw", "fini_array"),
        SectionKind::Note => ("", "note"),
        SectionKind::Other => ("", "progbits"),
        SectionKind::TlsData => ("awT", "progbits"),
        SectionKind::TlsBss => ("awT", "nobits"),
    };
    (
        format!("{flags}{}", if retain { "R" } else { "" }),
        section_type,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_imply_kinds() {
        assert_eq!(kind_from_name(".text"), SectionKind::Text);
        assert_eq!(kind_from_name(".text._ZN3foo3barE"), SectionKind::Text);
        assert_eq!(kind_from_name(".textual"), SectionKind::Other);
        assert_eq!(kind_from_name(".rodata.str1.1"), SectionKind::ReadOnlyData);
        assert_eq!(kind_from_name(".bss.x"), SectionKind::Bss);
        assert_eq!(kind_from_name(".tdata.x"), SectionKind::TlsData);
        assert_eq!(kind_from_name(".tbss"), SectionKind::TlsBss);
        assert_eq!(kind_from_name(".tdatax"), SectionKind::Other);
        assert_eq!(kind_from_name(".init_array.00100"), SectionKind::InitArray);
        assert_eq!(kind_from_name(".debug_line"), SectionKind::Other);
        assert_eq!(kind_from_name(".comment"), SectionKind::Other);
    }

    #[test]
    fn flags_round_trip_for_every_kind() {
        for kind in SectionKind::ALL {
            for retain in [false, true] {
                let (flags, ty) = flags_for_kind(kind, retain);
                assert_eq!(
                    kind_from_flags(".x", Some(&flags), Some(ty)),
                    Ok((kind, retain)),
                    "{kind:?}"
                );
            }
        }
        assert!(kind_from_flags(".x", Some("q"), None).is_err());
        assert!(kind_from_flags(".x", Some("aT"), None).is_err());
        assert!(kind_from_flags(".x", Some("awT"), Some("init_array")).is_err());
        assert_eq!(
            kind_from_flags(".tbss.y", Some("awT"), Some("nobits")),
            Ok((SectionKind::TlsBss, false))
        );
        assert!(kind_from_flags(".x", None, Some("weird")).is_err());
        assert_eq!(
            kind_from_flags(".data.x", None, None),
            Ok((SectionKind::Data, false))
        );
    }
}
