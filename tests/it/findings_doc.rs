//! docs/FINDINGS.md is written from the finding-code table: the committed file must be
//! what the table renders today. `UPDATE_DOCS=1 cargo test --test it findings_doc`
//! rewrites it.
use std::fs;
use std::path::Path;

use mbank::core::findings::{REFERENCE_PATH, reference_markdown};

#[test]
fn findings_doc_matches_the_code_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(REFERENCE_PATH);
    let expected = reference_markdown();
    if std::env::var_os("UPDATE_DOCS").is_some_and(|v| v == "1") {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, &expected).unwrap();
    }
    let committed = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == expected,
        "{REFERENCE_PATH} is not what crates/mbank-core/src/findings/codes.rs declares; regenerate it with \
         `UPDATE_DOCS=1 cargo test --test it findings_doc` and commit it"
    );
}
