//! Just enough ELF reading to compare the code sections of two relocatable objects,
//! for the assembler round-trip check (no dependencies, so no `object` crate here).

const SHT_NOBITS: u32 = 8;

/// A section's name and its contents in the file (empty for SHT_NOBITS).
pub struct Section {
    pub name: String,
    pub data: Vec<u8>,
}

/// The sections of an ELF file (32- or 64-bit, either byte order) in header order.
pub fn sections(file: &[u8]) -> Result<Vec<Section>, String> {
    if file.len() < 16 || &file[..4] != b"\x7fELF" {
        return Err("not an ELF file".into());
    }
    let is64 = match file[4] {
        1 => false,
        2 => true,
        c => return Err(format!("bad ELF class {c}")),
    };
    let r = Reader {
        file,
        big_endian: file[5] == 2,
    };
    let (shoff, shentsize, shnum, shstrndx) = if is64 {
        (
            r.u64(0x28)?,
            r.u16(0x3a)? as u64,
            r.u16(0x3c)? as u64,
            r.u16(0x3e)? as u64,
        )
    } else {
        (
            r.u32(0x20)? as u64,
            r.u16(0x2e)? as u64,
            r.u16(0x30)? as u64,
            r.u16(0x32)? as u64,
        )
    };
    // (name offset, type, file offset, size) of each section header.
    let mut headers = Vec::new();
    for i in 0..shnum {
        let at = usize::try_from(shoff + i * shentsize)
            .map_err(|_| "section header offset out of range")?;
        let header = if is64 {
            (
                r.u32(at)?,
                r.u32(at + 4)?,
                r.u64(at + 0x18)?,
                r.u64(at + 0x20)?,
            )
        } else {
            (
                r.u32(at)?,
                r.u32(at + 4)?,
                r.u32(at + 0x10)? as u64,
                r.u32(at + 0x14)? as u64,
            )
        };
        headers.push(header);
    }
    let &(_, _, strtab_offset, strtab_size) = headers
        .get(shstrndx as usize)
        .ok_or("section name table index out of range")?;
    let strtab = r.bytes(strtab_offset, strtab_size)?;
    headers
        .iter()
        .map(|&(name, kind, offset, size)| {
            let name = strtab
                .get(name as usize..)
                .ok_or("section name out of range")?;
            let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
            let data = if kind == SHT_NOBITS {
                Vec::new()
            } else {
                r.bytes(offset, size)?.to_vec()
            };
            Ok(Section {
                name: String::from_utf8_lossy(name).into_owned(),
                data,
            })
        })
        .collect()
}

/// Compares the `.text` and `.text.*` sections of two objects: same names in the same
/// order with the same bytes. Returns a description of the first difference.
pub fn compare_text(a: &[u8], b: &[u8]) -> Result<Option<String>, String> {
    let is_text = |s: &Section| s.name == ".text" || s.name.starts_with(".text.");
    let a: Vec<Section> = sections(a)?.into_iter().filter(is_text).collect();
    let b: Vec<Section> = sections(b)?.into_iter().filter(is_text).collect();
    let names = |v: &[Section]| v.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
    if names(&a) != names(&b) {
        return Ok(Some(format!(
            "code sections {:?} became {:?}",
            names(&a),
            names(&b)
        )));
    }
    for (x, y) in a.iter().zip(&b) {
        if x.data != y.data {
            let at = x
                .data
                .iter()
                .zip(&y.data)
                .position(|(p, q)| p != q)
                .unwrap_or(x.data.len().min(y.data.len()));
            return Ok(Some(format!(
                "section {}: {} bytes became {} bytes, first difference at offset {at:#x}",
                x.name,
                x.data.len(),
                y.data.len()
            )));
        }
    }
    Ok(None)
}

struct Reader<'a> {
    file: &'a [u8],
    big_endian: bool,
}

impl Reader<'_> {
    fn bytes(&self, offset: u64, size: u64) -> Result<&[u8], String> {
        usize::try_from(offset)
            .ok()
            .zip(usize::try_from(size).ok())
            .and_then(|(o, s)| self.file.get(o..o.checked_add(s)?))
            .ok_or_else(|| format!("truncated ELF file: {size} bytes at {offset:#x} out of range"))
    }

    fn int<const N: usize>(&self, at: usize) -> Result<[u8; N], String> {
        let mut raw: [u8; N] = self
            .bytes(at as u64, N as u64)?
            .try_into()
            .expect("N bytes");
        if self.big_endian {
            raw.reverse();
        }
        Ok(raw)
    }

    fn u16(&self, at: usize) -> Result<u16, String> {
        self.int(at).map(u16::from_le_bytes)
    }

    fn u32(&self, at: usize) -> Result<u32, String> {
        self.int(at).map(u32::from_le_bytes)
    }

    fn u64(&self, at: usize) -> Result<u64, String> {
        self.int(at).map(u64::from_le_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A little-endian ELF64 file with sections null, .text, .text.f, .data, .shstrtab.
    fn object(text: &[u8], text_f: &[u8]) -> Vec<u8> {
        let names = b"\0.text\0.text.f\0.data\0.shstrtab\0";
        let mut file = vec![0u8; 64];
        file[..6].copy_from_slice(b"\x7fELF\x02\x01");
        let mut placed = Vec::new();
        for data in [text, text_f, b"dd", names] {
            placed.push((file.len() as u64, data.len() as u64));
            file.extend_from_slice(data);
        }
        let shoff = file.len() as u64;
        let name_offsets = [1u32, 7, 15, 21];
        file.extend_from_slice(&[0u8; 64]);
        for (i, &(offset, size)) in placed.iter().enumerate() {
            let mut header = [0u8; 64];
            header[..4].copy_from_slice(&name_offsets[i].to_le_bytes());
            header[4..8].copy_from_slice(&1u32.to_le_bytes());
            header[0x18..0x20].copy_from_slice(&offset.to_le_bytes());
            header[0x20..0x28].copy_from_slice(&size.to_le_bytes());
            file.extend_from_slice(&header);
        }
        file[0x28..0x30].copy_from_slice(&shoff.to_le_bytes());
        file[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes());
        file[0x3c..0x3e].copy_from_slice(&5u16.to_le_bytes());
        file[0x3e..0x40].copy_from_slice(&4u16.to_le_bytes());
        file
    }

    #[test]
    fn reads_sections() {
        let s = sections(&object(b"abcd", b"ef")).unwrap();
        let names: Vec<&str> = s.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["", ".text", ".text.f", ".data", ".shstrtab"]);
        assert_eq!(s[1].data, b"abcd");
        assert_eq!(s[2].data, b"ef");
    }

    #[test]
    fn compares_only_code() {
        let a = object(b"abcd", b"ef");
        assert_eq!(compare_text(&a, &object(b"abcd", b"ef")).unwrap(), None);
        let diff = compare_text(&a, &object(b"abXd", b"ef")).unwrap().unwrap();
        assert!(diff.contains(".text:") && diff.contains("0x2"), "{diff}");
        assert!(compare_text(&a, &object(b"abcd", b"e")).unwrap().is_some());
    }

    #[test]
    fn rejects_garbage() {
        assert!(sections(b"not elf").is_err());
        let mut truncated = object(b"abcd", b"ef");
        truncated.truncate(100);
        assert!(sections(&truncated).is_err());
    }
}
