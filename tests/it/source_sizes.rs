//! No Rust source file of the workspace grows past 1,000 lines: past that, a file holds
//! more than one responsibility, and it is split along them (not mechanically).
use std::path::Path;

use crate::common;

const MAX_LINES: usize = 1000;

#[test]
fn no_source_file_is_over_a_thousand_lines() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for folder in ["src", "crates", "tests", "benches", "examples"] {
        common::rust_files(&top.join(folder), &mut files);
    }
    assert!(files.len() > 100, "found only {} source files", files.len());
    let mut long: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let lines = std::fs::read_to_string(path).ok()?.lines().count();
            (lines > MAX_LINES).then(|| format!("{} ({lines} lines)", path.display()))
        })
        .collect();
    long.sort();
    assert!(long.is_empty(), "over {MAX_LINES} lines: {long:?}");
}
