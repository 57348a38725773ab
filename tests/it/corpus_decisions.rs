//! Every decision log of the real banks in `../shared/corpus` (or `$MBANK_CORPUS`) yields
//! timeline entries, and nothing panics. Skipped with a notice when the corpus is absent.
use crate::common;

use std::path::PathBuf;

use mbank::core::analysis::decisions::{self, DecisionStatus};
use mbank::core::analysis::validate;
use mbank::core::io::text;
use mbank::core::scan::bank::list_banks;
use mbank::core::scan::discovery::{self, ScanOptions};

#[test]
fn every_decision_log_in_the_corpus_yields_entries() {
    // Prints the skip notice itself when the corpus is absent.
    let Some(root) = common::corpus_root() else {
        return;
    };
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    assert!(!folders.is_empty(), "empty corpus at {}", root.display());
    let options = ScanOptions {
        depth: 4,
        ..ScanOptions::default()
    };
    let (mut logs, mut entries, mut sectioned) = (0, 0, 0);
    let mut empty = Vec::new();
    for folder in &folders {
        let mut projects = discovery::scan(folder, &options);
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        projects.extend(discovery::project_at(folder, name));
        for project in &projects {
            for bank in list_banks(project) {
                for file in bank.files.iter().filter(|f| f.role.is_decision_log()) {
                    let Ok(text) = text::read_text(&file.path) else {
                        continue;
                    };
                    if text.trim().is_empty() {
                        continue;
                    }
                    logs += 1;
                    let found = decisions::decisions_of_file(file, &text);
                    for d in &found {
                        assert!(d.line >= 1 && d.line <= d.end_line, "{d:?}");
                        assert!(d.end_line <= text.lines().count().max(1), "{d:?}");
                        assert!(!d.title.trim().is_empty(), "{d:?}");
                    }
                    // A template never filled in (`## Decision 1` over `[Date]`,
                    // `[Context]`) rightly yields nothing.
                    let unfilled = validate::placeholder_lines(&text).len();
                    if found.is_empty() && unfilled == 0 {
                        empty.push(file.path.clone());
                    }
                    entries += found.len();
                }
            }
            // The whole-project API must not panic either, and keeps its timeline order.
            let all = decisions::decisions_of_project(&project.path, &list_banks(project));
            let dated: Vec<_> = all.iter().map(|d| (d.date.is_none(), d.date)).collect();
            assert!(
                dated.windows(2).all(|w| w[0] <= w[1]),
                "not in timeline order"
            );
            for d in &all {
                if !d.superseded_by.is_empty() {
                    assert_ne!(d.status, DecisionStatus::Accepted, "{d:?}");
                }
                // Entries of decision sections in other files point into their file.
                let Ok(text) = text::read_text(&d.file) else {
                    panic!("{} is not readable: {d:?}", d.file.display());
                };
                assert!(d.line >= 1 && d.line <= d.end_line, "{d:?}");
                assert!(d.end_line <= text.lines().count().max(1), "{d:?}");
                assert!(!d.title.trim().is_empty(), "{d:?}");
                assert!(
                    d.file.ends_with(&d.display),
                    "display {} is not the file {}",
                    d.display,
                    d.file.display()
                );
                if d.group.is_some() {
                    sectioned += 1;
                }
            }
        }
    }
    eprintln!("corpus: {logs} decision files, {entries} entries, {sectioned} grouped entries");
    // Banks of the corpus keep decisions in "Key Decisions" sections of other files.
    assert!(sectioned > 0, "no entry of a decision section was read");
    assert!(logs > 0, "no decision log found in the corpus");
    assert!(
        empty.is_empty(),
        "decision logs without entries: {empty:#?}"
    );
}
