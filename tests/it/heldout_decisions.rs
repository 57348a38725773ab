//! The decision timeline on banks nobody tuned the rules on: every entry mbank gives on
//! the held-out banks in `$MBANK_HELDOUT` (or `../heldout`) scored against
//! `heldout_decision_labels.toml`. Prints per-entry precision, recall and status accuracy
//! and never fails on the figures: the set is measured, not tuned on. Skipped with a
//! notice when the banks are absent.
use crate::common::decision_labels::{read_labels, score, timeline_entries};

use std::path::{Path, PathBuf};

fn heldout_root() -> Option<PathBuf> {
    let root = std::env::var_os("MBANK_HELDOUT")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../heldout"));
    if root.is_dir() {
        Some(root)
    } else {
        eprintln!(
            "NOTICE: held-out banks not found at {} (set MBANK_HELDOUT to measure them); skipping",
            root.display()
        );
        None
    }
}

#[test]
fn heldout_decisions_are_measured() {
    let labels = read_labels(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/heldout_decision_labels.toml"),
    );
    let Some(root) = heldout_root() else {
        return;
    };
    let seen = timeline_entries(&root);
    let score = score(&root, &labels, &seen);
    eprintln!("{}", score.summary("held-out timeline"));
    for line in score
        .false_entries
        .iter()
        .map(|e| format!("not a decision: {e}"))
        .chain(score.unlabelled.iter().map(|e| format!("unlabelled: {e}")))
        .chain(score.missed.iter().map(|e| format!("missed: {e}")))
        .chain(
            score
                .wrong_status
                .iter()
                .map(|e| format!("wrong status: {e}")),
        )
    {
        eprintln!("  {line}");
    }
}
