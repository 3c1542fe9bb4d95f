//! Assembler diagnostics, GNU style: `FILE:LINE:COL: error: message`.

use std::fmt;

/// One error found in the source. Lines and columns count from 1; a column counts
/// characters, not bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

impl std::error::Error for AsmError {}

/// A position in the source, attached to everything that can fail late (fixups,
/// bundles), so that errors found at the end of the file still point at their line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

impl Pos {
    pub fn new(line: usize, col: usize) -> Pos {
        Pos { line, col }
    }
}

/// Collects errors for one file.
#[derive(Debug)]
pub(crate) struct Diagnostics {
    pub file: String,
    pub errors: Vec<AsmError>,
}

impl Diagnostics {
    pub fn new(file: &str) -> Diagnostics {
        Diagnostics {
            file: file.to_string(),
            errors: Vec::new(),
        }
    }

    pub fn error(&mut self, pos: Pos, message: impl Into<String>) {
        self.errors.push(AsmError {
            file: self.file.clone(),
            line: pos.line,
            col: pos.col,
            message: message.into(),
        });
    }
}
