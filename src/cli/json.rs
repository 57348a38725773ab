//! JSON output: one envelope per command with a versioned `schema` name. Field names and
//! meanings are documented in the README; additions are backwards compatible, renames
//! and removals bump the version.
use serde::Serialize;

/// Prints a value as pretty JSON on stdout: exact, never sanitised (serde escapes every
/// control character, so the output is already safe for a terminal).
pub fn print<T: Serialize>(value: &T) -> color_eyre::Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    super::style::write_out(std::io::stdout().lock(), &text);
    Ok(())
}
