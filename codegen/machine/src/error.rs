//! Errors of the back end.

use core::fmt;

/// Why a function (or the module) could not be compiled: the function and the
/// unsupported feature or invalid input, never a panic.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CompileError {
    /// The function being compiled (empty for module-level problems).
    pub function: String,
    pub message: String,
}

impl CompileError {
    pub fn new(function: &str, message: impl Into<String>) -> CompileError {
        CompileError {
            function: function.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.function.is_empty() {
            write!(f, "vliw back end: {}", self.message)
        } else {
            write!(
                f,
                "vliw back end: in function `{}`: {}",
                self.function, self.message
            )
        }
    }
}

impl std::error::Error for CompileError {}
