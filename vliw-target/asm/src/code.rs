//! Walking the bytes of a code section bundle by bundle, for the disassembler and
//! the reassembler. Undecodable words are reported one syllable at a time and the walk
//! goes on at the next syllable, so one bad word never hides the rest of the code.

use vliw_isa::{Inst, decode_bundle};

/// One step of the walk.
#[derive(Clone, Debug, PartialEq)]
pub enum CodeItem {
    /// A decodable bundle at `offset`: its syllables and its operations, each with the
    /// offset of its own syllable (after its `limm`, if it has one).
    Bundle {
        offset: u64,
        words: Vec<u64>,
        ops: Vec<(u64, Inst)>,
    },
    /// A syllable that does not start a decodable bundle.
    Illegal {
        offset: u64,
        word: u64,
        reason: String,
    },
    /// Trailing bytes that do not make a whole syllable.
    Tail { offset: u64, bytes: Vec<u8> },
}

impl CodeItem {
    pub fn offset(&self) -> u64 {
        match self {
            CodeItem::Bundle { offset, .. }
            | CodeItem::Illegal { offset, .. }
            | CodeItem::Tail { offset, .. } => *offset,
        }
    }

    pub fn len(&self) -> u64 {
        match self {
            CodeItem::Bundle { words, .. } => 8 * words.len() as u64,
            CodeItem::Illegal { .. } => 8,
            CodeItem::Tail { bytes, .. } => bytes.len() as u64,
        }
    }
}

/// Decodes `bytes` (a code section) from offset 0.
pub fn walk_code(bytes: &[u8]) -> Vec<CodeItem> {
    let words: Vec<u64> = bytes
        .as_chunks::<8>()
        .0
        .iter()
        .map(|c| u64::from_le_bytes(*c))
        .collect();
    let mut items = Vec::new();
    let mut at = 0;
    while at < words.len() {
        let offset = 8 * at as u64;
        match decode_bundle(&words[at..]) {
            Ok((insts, n)) => {
                let mut ops = Vec::with_capacity(insts.len());
                let mut syllable = offset;
                for inst in insts {
                    syllable += 8 * (inst.syllables() as u64 - 1);
                    ops.push((syllable, inst));
                    syllable += 8;
                }
                items.push(CodeItem::Bundle {
                    offset,
                    words: words[at..at + n].to_vec(),
                    ops,
                });
                at += n;
            }
            Err(e) => {
                items.push(CodeItem::Illegal {
                    offset,
                    word: words[at],
                    reason: e.to_string(),
                });
                at += 1;
            }
        }
    }
    let tail = bytes.len() - bytes.len() % 8;
    if tail < bytes.len() {
        items.push(CodeItem::Tail {
            offset: tail as u64,
            bytes: bytes[tail..].to_vec(),
        });
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;
    use vliw_isa::NOP_BUNDLE;

    #[test]
    fn illegal_words_are_skipped_one_syllable_at_a_time() {
        let mut bytes = Vec::new();
        for w in [0u64, NOP_BUNDLE, 0x0123] {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        bytes.push(7);
        let items = walk_code(&bytes);
        assert!(matches!(items[0], CodeItem::Illegal { offset: 0, .. }));
        assert!(matches!(items[1], CodeItem::Bundle { offset: 8, .. }));
        assert!(matches!(items[2], CodeItem::Illegal { offset: 16, .. }));
        assert_eq!(
            items[3],
            CodeItem::Tail {
                offset: 24,
                bytes: vec![7]
            }
        );
    }
}
