//! The units a format's size rules are stated in: the shared vocabulary of the formats
//! (which state their limits) and the analysis (which measures against them).
use serde::Serialize;

/// What a limit counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Tokens,
    Characters,
    Lines,
    Bytes,
}

impl Unit {
    pub fn label(self) -> &'static str {
        match self {
            Unit::Tokens => "tokens",
            Unit::Characters => "characters",
            Unit::Lines => "lines",
            Unit::Bytes => "bytes",
        }
    }
}
