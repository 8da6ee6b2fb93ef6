//! What is wrong with a session file, said with line numbers.

use std::fmt;

/// A line that is not JSON: where, and why (`JSON.parse` would throw on it).
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    pub reason: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.reason)
    }
}

impl std::error::Error for ParseError {}

