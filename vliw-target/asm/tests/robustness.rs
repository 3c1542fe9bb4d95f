//! The assembler never panics: random text, and random mutations of a valid file,
//! give an object or errors. When it gives an object, the object is valid (it can be
//! written as ELF and read back) and errors point at lines of the input.

use proptest::prelude::*;
use vliw_asm::{DisasmOptions, assemble, disassemble_object};
use vliw_isa::MachineConfig;

const VALID: &str = r#"
    .set N, 12
    .globl main, table
    .type main, @function
    .text
main:
    movi r3 = N ; addpc r4 = table ; (p1) br .Ldone ;;
    ld.d r5 = [r4 + 8] ; st.w [r4 - 4] = r5 ; movi r6 = long table+8 ;;
    cmp.lt.unc p1, p2 = r3, 0x123456789 ; call helper ;;
.Ldone:
    ret ;;
    .size main, . - main
    .p2align 4
helper: ret ;;
    .section .rodata.str, "a"
msg: .asciz "a;b # not a comment \x41\n"
    .data
    .p2align 3
table: .quad main, msg + 2, ext
    .word table - ., 0xffffffff
    .short -1
    .byte 1, 2
    .zero 6
    .bss
buf: .space 64
"#;

/// Pieces of assembly syntax, so that random text looks like assembly often enough
/// to reach deep into the assembler.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("add r1 = r2, r3".to_string()),
        Just("movi r4 = ".to_string()),
        Just(" ;; ".to_string()),
        Just(" ; ".to_string()),
        Just("\n".to_string()),
        Just("label:".to_string()),
        Just(".quad ".to_string()),
        Just(".word sym - .".to_string()),
        Just(".section .x, \"aw\", @nobits".to_string()),
        Just(".p2align ".to_string()),
        Just(".zero ".to_string()),
        Just(".set x, ".to_string()),
        Just(".size main, .-main".to_string()),
        Just("(p3) br ".to_string()),
        Just("long ".to_string()),
        Just("\"".to_string()),
        Just("#".to_string()),
        Just("0x7fffffffffffffff".to_string()),
        Just("-".to_string()),
        Just(".".to_string()),
        Just(".text".to_string()),
        Just(".data".to_string()),
        Just(".bss".to_string()),
        Just("limm 5".to_string()),
        Just(".reloc ., R_VLIW_IMM32, ".to_string()),
        "[a-z.0-9_]{1,8}",
        "[ -~]{0,12}",
        any::<char>().prop_map(|c| c.to_string()),
    ]
}

fn check(source: &str) {
    match assemble(source, "f.s", &MachineConfig::default()) {
        Ok(object) => {
            object.check().expect("a consistent object");
            let bytes = vliw_elf::write_object(&object);
            vliw_elf::read_object(&bytes, "f.o").expect("the object reads back");
            let _ = disassemble_object(
                &object,
                &DisasmOptions {
                    disassemble: true,
                    syms: true,
                    relocs: true,
                    headers: true,
                    full_contents: true,
                    ..Default::default()
                },
            );
        }
        Err(errors) => {
            assert!(!errors.is_empty());
            let lines = source.lines().count().max(1);
            for e in errors {
                assert!(
                    e.line >= 1 && e.line <= lines,
                    "error on line {} of {lines}: {e}",
                    e.line
                );
                assert!(e.to_string().starts_with("f.s:"), "{e}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        check(&text);
    }

    #[test]
    fn random_fragments_never_panic(parts in prop::collection::vec(fragment(), 0..40)) {
        check(&parts.concat());
    }

    #[test]
    fn mutations_of_a_valid_file_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, fragment()), 1..6)
    ) {
        let mut text = VALID.to_string();
        for (at, op, piece) in edits {
            let mut chars: Vec<char> = text.chars().collect();
            let i = at.index(chars.len() + 1);
            match op {
                0 => { chars.splice(i..i, piece.chars()); }
                1 if i < chars.len() => { chars.remove(i); }
                2 if i < chars.len() => { chars[i] = piece.chars().next().unwrap_or('x'); }
                _ => { let end = (i + piece.len()).min(chars.len()); chars.drain(i..end); }
            }
            text = chars.into_iter().collect();
        }
        check(&text);
    }
}

#[test]
fn the_valid_file_is_valid() {
    assemble(VALID, "v.s", &MachineConfig::default()).unwrap();
}

#[test]
fn pathological_inputs() {
    for source in [
        "",
        "\n\n\n",
        ";;;;",
        ".zero 268435457\n",
        ".zero 0x7fffffffffffffff\n.bss\n.zero 0x7fffffffffffffff\n",
        ".p2align 30\n.byte 1\n.p2align 30\n",
        &format!(".byte {}\n", "(".repeat(10_000)),
        &format!("movi r1 = {}\n", "-".repeat(10_000)),
        ".set a, a\n",
        ".set a, b + 1\n.set b, a - 1\n",
        "x: .set x, 1\n",
        ".set x, 1\nx:\n",
        ".quad 1/0\n",
        ".size f, f\nf:\n",
        "br .+0x7ffffff8 ;;\n",
        "\u{feff}nop ;;\n",
        "nop ;; # \u{1F600}\n\"\u{1F600}\": nop ;;\nbr \"\u{1F600}\" ;;\n",
    ] {
        check(source);
    }
}
