//! `.gcc_except_table`: the language-specific data area (LSDA) of a function with
//! landing pads, in the layout of the Itanium C++ ABI's exception tables that GCC and
//! LLVM write and that Rust's personality routine reads
//! (`std::sys::personality::dwarf::eh::find_eh_action`).
//!
//! The area:
//!
//! | field | here |
//! |---|---|
//! | landing-pad base encoding | `DW_EH_PE_omit`: landing pads are offsets from the function's start |
//! | type-table encoding | `DW_EH_PE_absptr` and the uleb128 offset of the type table's end, or `DW_EH_PE_omit` when nothing catches |
//! | call-site encoding | `DW_EH_PE_uleb128` |
//! | call-site table length | uleb128 |
//! | call sites | start, length, landing pad (0: none), action (0: cleanup; 1 + offset of an action record) |
//! | action table | one record when a landing pad catches: type index 1, no next record |
//! | type table | one entry, 0: the catch-all type (`catch_unwind` catches every exception) |
//!
//! The call sites cover the whole function, in address order: each call with an
//! unwind edge (its bundle, up to the return address) names its landing pad, and the
//! gaps between them name none, so that unwinding passes through the function's
//! other calls instead of finding no entry (which the personality routine takes for
//! "terminate"). The back end gives each function's area a section of its own,
//! `.gcc_except_table.F`, which its FDE's LSDA pointer refers to
//! (`vliw_machine::eh_frame`), so that the linker keeps it with the function's frame
//! description. The reader ([`parse`], [`lookup`]) serves the tests and
//! `vliw-objdump --dwarf=frames`.

/// A call with an unwind edge, as offsets in its function.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct CallSite {
    /// The call's bundle: from its first syllable up to the return address (an
    /// unwinder looks the call up at the return address − 1).
    pub start: u64,
    pub end: u64,
    /// The landing pad's offset.
    pub landing: u64,
    /// Whether the landing pad catches every exception (else it is a cleanup).
    pub catch: bool,
}

/// `DW_EH_PE_omit`.
const OMIT: u8 = 0xff;
/// `DW_EH_PE_absptr`.
const ABSPTR: u8 = 0x00;
/// `DW_EH_PE_uleb128`.
const ULEB128: u8 = 0x01;
/// The action-table entry of a catch-all landing pad: 1 + the offset of its record.
const CATCH_ALL_ACTION: u64 = 1;

/// The section name of function `name`'s area.
pub fn section_name(name: &str) -> String {
    format!(".gcc_except_table.{name}")
}

fn uleb128(out: &mut Vec<u8>, v: u64) {
    // writing to a vector cannot fail
    let _ = gimli::leb128::write::unsigned(out, v);
}

fn sleb128(out: &mut Vec<u8>, v: i64) {
    let _ = gimli::leb128::write::signed(out, v);
}

/// The area of a function of `size` bytes with the calls `sites` (in address order,
/// not overlapping). The type table needs no relocation: its only entry is 0.
pub fn lsda_bytes(sites: &[CallSite], size: u64) -> Vec<u8> {
    let catches = sites.iter().any(|s| s.catch);
    let mut table = Vec::new();
    let mut record = |start: u64, end: u64, landing: u64, action: u64| {
        uleb128(&mut table, start);
        uleb128(&mut table, end - start);
        uleb128(&mut table, landing);
        uleb128(&mut table, action);
    };
    let mut covered = 0;
    for s in sites {
        if s.start > covered {
            record(covered, s.start, 0, 0);
        }
        let action = if s.catch { CATCH_ALL_ACTION } else { 0 };
        record(s.start, s.end, s.landing, action);
        covered = s.end;
    }
    if size > covered {
        record(covered, size, 0, 0);
    }
    let mut actions = Vec::new();
    let mut types = Vec::new();
    if catches {
        sleb128(&mut actions, 1); // type index 1: the catch-all entry
        sleb128(&mut actions, 0); // no next record
        types.extend_from_slice(&0u64.to_le_bytes());
    }
    let mut after_types_offset = Vec::new();
    uleb128(&mut after_types_offset, table.len() as u64);
    let mut out = vec![OMIT];
    if catches {
        out.push(ABSPTR);
        // from the end of this field to the end of the type table
        let to_end = 1 + after_types_offset.len() + table.len() + actions.len() + types.len();
        uleb128(&mut out, to_end as u64);
    } else {
        out.push(OMIT);
    }
    out.push(ULEB128);
    out.extend_from_slice(&after_types_offset);
    out.extend_from_slice(&table);
    out.extend_from_slice(&actions);
    out.extend_from_slice(&types);
    out
}

/// What a personality routine finds for a return address (`ip` − 1 as an offset):
/// `None` when no call site covers it (terminate), `Some(None)` when the site has no
/// landing pad, else the landing pad's offset and whether it catches. It reads the
/// area as `find_eh_action` does; the tests and `vliw-objdump` use it.
pub fn lookup(lsda: &[u8], offset: u64) -> Result<Option<Option<(u64, bool)>>, String> {
    let table = parse(lsda)?;
    for s in &table.sites {
        if offset < s.start {
            break;
        }
        if offset < s.start + s.len {
            return Ok(Some(
                (s.landing != 0).then_some((s.landing, s.action.is_some_and(|a| a.catches))),
            ));
        }
    }
    Ok(None)
}

/// A call-site record read back.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SiteRecord {
    pub start: u64,
    pub len: u64,
    /// Offset of the landing pad from the function's start; 0: none.
    pub landing: u64,
    /// The action: `None` for a cleanup (entry 0).
    pub action: Option<ActionRecord>,
}

/// An action record read back.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ActionRecord {
    /// The record's offset in the action table.
    pub offset: u64,
    pub type_index: i64,
    /// Whether the personality routine takes it for a catch (a positive type index,
    /// or a chain of records).
    pub catches: bool,
}

/// A language-specific data area read back.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Table {
    pub landing_base: u8,
    pub type_encoding: u8,
    pub sites: Vec<SiteRecord>,
    /// The type table's entries (absolute pointers), last first as they are indexed.
    pub types: Vec<u64>,
}

/// A reader of the area, with the byte offset errors name.
struct Reader<'a> {
    data: gimli::EndianSlice<'a, gimli::LittleEndian>,
    len: usize,
}

impl<'a> Reader<'a> {
    fn at(bytes: &'a [u8], offset: usize) -> Reader<'a> {
        let data = bytes.get(offset..).unwrap_or(&[]);
        Reader {
            data: gimli::EndianSlice::new(data, gimli::LittleEndian),
            len: bytes.len(),
        }
    }

    /// The offset of the next byte in the area.
    fn offset(&self) -> usize {
        self.len - self.data.len()
    }

    fn read<T>(&mut self, what: impl FnOnce(&mut Self) -> gimli::Result<T>) -> Result<T, String> {
        let at = self.offset();
        what(self).map_err(|e| format!("{e} at byte {at}"))
    }

    fn u8(&mut self) -> Result<u8, String> {
        self.read(|r| gimli::Reader::read_u8(&mut r.data))
    }

    fn uleb(&mut self) -> Result<u64, String> {
        self.read(|r| gimli::Reader::read_uleb128(&mut r.data))
    }

    fn sleb(&mut self) -> Result<i64, String> {
        self.read(|r| gimli::Reader::read_sleb128(&mut r.data))
    }
}

/// Reads an area in the layout this module writes (any landing-pad base but the
/// function start, or a call-site encoding other than uleb128, is refused).
pub fn parse(lsda: &[u8]) -> Result<Table, String> {
    let mut r = Reader::at(lsda, 0);
    let landing_base = r.u8()?;
    if landing_base != OMIT {
        return Err(format!(
            "landing-pad base encoding {landing_base:#x} (only omitted is read)"
        ));
    }
    let type_encoding = r.u8()?;
    let types_end = if type_encoding != OMIT {
        let off = r.uleb()? as usize;
        Some(
            r.offset()
                .checked_add(off)
                .ok_or("type table offset overflows")?,
        )
    } else {
        None
    };
    let site_encoding = r.u8()?;
    if site_encoding != ULEB128 {
        return Err(format!(
            "call-site encoding {site_encoding:#x} (only uleb128 is read)"
        ));
    }
    let len = r.uleb()? as usize;
    let actions_at = r
        .offset()
        .checked_add(len)
        .ok_or("call-site table overflows")?;
    if actions_at > lsda.len() {
        return Err(format!(
            "the call-site table ({len} bytes) runs past the end ({} bytes)",
            lsda.len()
        ));
    }
    let mut sites = Vec::new();
    while r.offset() < actions_at {
        let start = r.uleb()?;
        let len = r.uleb()?;
        let landing = r.uleb()?;
        let entry = r.uleb()?;
        let action = if entry == 0 {
            None
        } else {
            let offset = entry - 1;
            let mut a = Reader::at(
                lsda,
                actions_at
                    .checked_add(offset as usize)
                    .ok_or("action offset overflows")?,
            );
            let type_index = a.sleb()?;
            let next = a.sleb()?;
            Some(ActionRecord {
                offset,
                type_index,
                catches: next != 0 || type_index > 0,
            })
        };
        sites.push(SiteRecord {
            start,
            len,
            landing,
            action,
        });
    }
    let mut types = Vec::new();
    if let Some(end) = types_end {
        let max_index = sites
            .iter()
            .filter_map(|s| s.action)
            .map(|a| a.type_index)
            .max()
            .unwrap_or(0);
        for k in 1..=max_index.max(0) as usize {
            let at = end.checked_sub(8 * k).ok_or("type table before the area")?;
            let bytes = lsda
                .get(at..at + 8)
                .ok_or_else(|| format!("type entry {k} past the end"))?;
            types.push(u64::from_le_bytes(bytes.try_into().expect("eight bytes")));
        }
    }
    Ok(Table {
        landing_base,
        type_encoding,
        sites,
        types,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(start: u64, end: u64, landing: u64, catch: bool) -> CallSite {
        CallSite {
            start,
            end,
            landing,
            catch,
        }
    }

    #[test]
    fn cleanups_only_have_no_type_table() {
        let sites = [site(16, 24, 64, false)];
        let bytes = lsda_bytes(&sites, 96);
        let t = parse(&bytes).unwrap();
        assert_eq!(t.type_encoding, OMIT);
        assert!(t.types.is_empty());
        // the gaps are covered, without landing pads
        assert_eq!(
            t.sites
                .iter()
                .map(|s| (s.start, s.len, s.landing))
                .collect::<Vec<_>>(),
            [(0, 16, 0), (16, 8, 64), (24, 72, 0)]
        );
        assert_eq!(t.sites[1].action, None);
    }

    #[test]
    fn lookups_follow_the_personality_routine() {
        let sites = [site(8, 16, 200, false), site(40, 56, 300, true)];
        let bytes = lsda_bytes(&sites, 400);
        // the return address − 1 of each call
        assert_eq!(lookup(&bytes, 15).unwrap(), Some(Some((200, false))));
        assert_eq!(lookup(&bytes, 55).unwrap(), Some(Some((300, true))));
        // another call of the function: no landing pad, unwinding goes on
        assert_eq!(lookup(&bytes, 30).unwrap(), Some(None));
        // past the function: no entry (terminate)
        assert_eq!(lookup(&bytes, 400).unwrap(), None);
        let t = parse(&bytes).unwrap();
        assert_eq!(t.type_encoding, ABSPTR);
        assert_eq!(t.types, [0], "one catch-all entry");
        assert_eq!(t.sites[3].action.unwrap().type_index, 1);
    }

    #[test]
    fn long_tables_take_multi_byte_lengths() {
        // enough sites that the table length and the type offset need two bytes
        let sites: Vec<CallSite> = (0..60)
            .map(|k| site(k * 200, k * 200 + 8, 20_000 + k, k % 2 == 0))
            .collect();
        let bytes = lsda_bytes(&sites, 60 * 200);
        let t = parse(&bytes).unwrap();
        assert_eq!(t.types, [0]);
        for (k, s) in sites.iter().enumerate() {
            assert_eq!(
                lookup(&bytes, s.end - 1).unwrap(),
                Some(Some((s.landing, k % 2 == 0)))
            );
        }
    }

    #[test]
    fn truncated_areas_are_errors() {
        let bytes = lsda_bytes(&[site(0, 8, 16, true)], 32);
        for n in 0..bytes.len() {
            let _ = parse(&bytes[..n]); // no panic
        }
        assert!(parse(&bytes[..3]).is_err());
    }
}
