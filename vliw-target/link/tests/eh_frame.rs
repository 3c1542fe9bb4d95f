//! `.eh_frame` sections live with their functions; `.eh_frame_hdr` is the sorted
//! table the unwinder searches.
mod common;

use common::*;
use gimli::{BaseAddresses, EhFrame, EhFrameHdr, LittleEndian, UnwindSection};
use vliw_elf::*;
use vliw_isa::RelocKind;

/// A CIE (version 1, no augmentation, code alignment 8, data alignment -8, return
/// address r63, CFA = r1) and one FDE for `function` of `size` bytes, as the backend
/// writes them: the FDE's `pc_begin` at offset 24 + 8 = 32 relocated by ABS64.
fn add_frame(o: &mut Obj, function: SymbolId, size: u64) -> SectionId {
    let mut d = Vec::new();
    // CIE: length 20, id 0, version 1, "", 8, -8, 63, def_cfa r1 0, padding
    d.extend_from_slice(&20u32.to_le_bytes());
    d.extend_from_slice(&0u32.to_le_bytes());
    d.extend_from_slice(&[1, 0, 8, 0x78, 63, 0x0c, 1, 0]);
    d.extend_from_slice(&[0; 8]);
    assert_eq!(d.len(), 24);
    // FDE: length 28, CIE pointer 28 (from this field back to 0), pc_begin, pc_range,
    // def_cfa_offset 16, padding
    d.extend_from_slice(&28u32.to_le_bytes());
    d.extend_from_slice(&28u32.to_le_bytes());
    d.extend_from_slice(&[0; 8]);
    d.extend_from_slice(&size.to_le_bytes());
    d.extend_from_slice(&[0x0e, 16, 0, 0, 0, 0, 0, 0]);
    assert_eq!(d.len(), 56);
    let s = o.section(".eh_frame", SectionKind::ReadOnlyData, 8, d);
    o.reloc(s, 32, RelocKind::Abs64, function, 0);
    s
}

fn frames_object() -> Obj {
    let mut o = start_calling(&["used", "late"]);
    let (_, used) = o.func("used", 2);
    let (_, unused) = o.func("unused", 3);
    let (_, late) = o.func("late", 1);
    // in an order unlike the functions', so that the table must be sorted
    add_frame(&mut o, late, 8);
    add_frame(&mut o, unused, 24);
    add_frame(&mut o, used, 16);
    o
}

#[test]
fn frames_of_collected_functions_are_dropped_and_the_table_is_sorted() {
    let exe = link_ok(&[frames_object().file("a.o")], &gc()).executable;
    assert!(exe.symbol("unused").is_none());
    let eh = exe.section(".eh_frame").unwrap();
    assert_eq!(
        eh.size,
        2 * 56 + 4,
        "two functions' frames and the terminator"
    );
    let sym = |n: &str| exe.symbol(n).unwrap().addr;
    assert_eq!(sym("__eh_frame_start"), eh.addr);
    assert_eq!(sym("__eh_frame_end"), eh.addr + eh.size);
    let hdr = exe.section(".eh_frame_hdr").unwrap();
    assert_eq!(sym("__eh_frame_hdr_start"), hdr.addr);
    assert_eq!(hdr.size, 12 + 2 * 8);
    assert!(eh.addr >= exe.section(".rodata").map_or(0, |r| r.addr));

    let bases = BaseAddresses::default()
        .set_eh_frame_hdr(hdr.addr)
        .set_eh_frame(eh.addr);
    let hdr_bytes = exe.bytes_at(hdr.addr, hdr.size).unwrap();
    let parsed = EhFrameHdr::new(hdr_bytes, LittleEndian)
        .parse(&bases, 8)
        .unwrap();
    assert_eq!(parsed.eh_frame_ptr().direct().unwrap(), eh.addr);
    let table = parsed.table().unwrap();
    let mut starts = Vec::new();
    let mut it = table.iter(&bases);
    while let Some((start, _)) = it.next().unwrap() {
        starts.push(start.direct().unwrap());
    }
    assert_eq!(starts, vec![sym("used"), sym("late")], "sorted by address");
    let eh_frame = EhFrame::new(exe.bytes_at(eh.addr, eh.size).unwrap(), LittleEndian);
    for (f, size) in [("used", 16), ("late", 8)] {
        let fde = table
            .fde_for_address(
                &eh_frame,
                &bases,
                sym(f) + size - 8,
                EhFrame::cie_from_offset,
            )
            .unwrap();
        assert_eq!((fde.initial_address(), fde.len()), (sym(f), size));
    }
    assert!(
        table
            .fde_for_address(&eh_frame, &bases, sym("_start"), EhFrame::cie_from_offset)
            .is_err(),
        "_start has no frame description"
    );
}

#[test]
fn without_gc_every_frame_is_kept() {
    let exe = link_ok(&[frames_object().file("a.o")], &default()).executable;
    assert_eq!(exe.section(".eh_frame").unwrap().size, 3 * 56 + 4);
    assert_eq!(exe.section(".eh_frame_hdr").unwrap().size, 12 + 3 * 8);
}

#[test]
fn a_frame_does_not_keep_its_function_alive() {
    let mut o = start_calling(&[]);
    let (_, lonely) = o.func("lonely", 1);
    add_frame(&mut o, lonely, 8);
    let exe = link_ok(&[o.file("a.o")], &gc()).executable;
    assert!(exe.symbol("lonely").is_none());
    assert!(exe.section(".eh_frame").is_none());
    assert!(exe.section(".eh_frame_hdr").is_none());
    // the symbols still exist, as an empty range
    let sym = |n: &str| exe.symbol(n).unwrap().addr;
    assert_eq!(sym("__eh_frame_start"), sym("__eh_frame_end"));
}

#[test]
fn a_live_frame_keeps_what_it_refers_to() {
    // a personality routine named only by a CIE is kept with the function
    let mut o = frames_object();
    let (_, personality) = o.func("personality", 1);
    let s = SectionId(o.o.sections.len() - 1 - 1); // the frame of `used`
    assert_eq!(o.o.sections[s.0].name, ".eh_frame");
    o.reloc(s, 16, RelocKind::Abs64, personality, 0);
    let exe = link_ok(&[o.file("a.o")], &gc()).executable;
    assert!(exe.symbol("personality").is_some());
}

#[test]
fn malformed_frames_are_errors_naming_the_object() {
    let mut o = start_calling(&[]);
    let d = vec![200, 0, 0, 0, 0, 0, 0, 0];
    o.section(".eh_frame", SectionKind::ReadOnlyData, 8, d);
    let e = link_err(&[o.file("bad.o")], &default());
    assert!(e.contains("bad.o") && e.contains("does not fit"), "{e}");
    let mut o = start_calling(&[]);
    o.section(".eh_frame", SectionKind::ReadOnlyData, 8, vec![0xff; 8]);
    let e = link_err(&[o.file("bad.o")], &default());
    assert!(e.contains("64-bit length"), "{e}");
    let mut o = start_calling(&[]);
    o.section(
        ".eh_frame",
        SectionKind::ReadOnlyData,
        8,
        vec![8, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0],
    );
    let e = link_err(&[o.file("bad.o")], &default());
    assert!(e.contains("points before the section"), "{e}");
}
