//! No Rust source file of the workspace grows past 1,000 lines: past that, a file holds
//! more than one responsibility, and it is split along them (not mechanically).
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 1000;

fn rust_files(folder: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            rust_files(&path, out);
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_source_file_is_over_a_thousand_lines() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for folder in ["src", "crates", "tests", "benches", "examples"] {
        rust_files(&top.join(folder), &mut files);
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
