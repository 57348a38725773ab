//! Counting files while their banks are listed (`Analyzer::counting_while_listing`, what
//! `mbank tokens` does) gives every file exactly the figures, or the error, that counting
//! after the listing gives: on a project of awkward files, and on every corpus project.
use crate::common;

use std::time::Duration;

use common::{corpus_root, within, write};
use mbank::core::analysis::report::{Analyzer, Depth, ProjectReport};
use mbank::core::config::Config;
use mbank::core::model::Project;
use mbank::core::scan::discovery::{self, ScanOptions};
use mbank::core::tokens::{Encoding, TextStats, TokenCache};

/// Each file of each bank: its path, figures and error, as reports show them.
type Rows = Vec<(String, Option<TextStats>, Option<String>)>;

fn rows(report: &ProjectReport) -> Rows {
    report
        .banks
        .iter()
        .flat_map(|bank| &bank.files)
        .map(|f| (f.file.display.clone(), f.stats.clone(), f.error.clone()))
        .collect()
}

/// The project's rows counted after listing, and while listing, with and without the
/// dates written in the files, each with an empty cache.
fn both_ways(config: &Config, project: &Project) -> [(Rows, Rows); 2] {
    [true, false].map(|with_dates| {
        let analyzer = |ahead: bool| {
            let analyzer = Analyzer::new(
                config,
                Encoding::O200k,
                TokenCache::in_memory(Encoding::O200k),
                &common::test_clock(),
            );
            let analyzer = if with_dates {
                analyzer
            } else {
                analyzer.figures_only()
            };
            if ahead {
                analyzer.counting_while_listing()
            } else {
                analyzer
            }
        };
        let after = rows(&analyzer(false).analyze(project, Depth::default()));
        let ahead = rows(&analyzer(true).analyze(project, Depth::default()));
        (after, ahead)
    })
}

#[test]
fn files_counted_while_listed_get_the_figures_and_errors_of_files_counted_after() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bank = d.join("memory-bank");
    for i in 0..30 {
        write(
            &bank.join(format!("note{i:02}.md")),
            &format!("# Note {i}\nShipped on 2024-05-{:02}.\n", i % 28 + 1).repeat(i * 20 + 1),
        );
    }
    write(
        &bank.join("activeContext.md"),
        "# Active\n<private>\nsecret\n</private>\nopen\n",
    );
    // Large enough to be cut across the cores, so counted by the batch, not ahead.
    write(
        &bank.join("big.md"),
        &"word and more words\n".repeat(30_000),
    );
    std::fs::write(bank.join("binary.md"), b"ab\0cd").unwrap();
    std::fs::write(bank.join("latin1.md"), b"caf\xE9\n").unwrap();
    write(&d.join("CLAUDE.md"), "# Main\n");
    write(
        &d.join(".infinity/memories.json"),
        r#"{"memories": [{"id": "m-1", "title": "One", "type": "rules", "content": "first memory"}]}"#,
    );
    #[cfg(unix)]
    std::os::unix::fs::symlink(bank.join("note01.md"), bank.join("linked.md")).unwrap();
    let project = discovery::project_at(d, "p".into()).unwrap();
    let config = Config::default();
    for (after, ahead) in both_ways(&config, &project) {
        assert_eq!(ahead, after);
        let errors = after.iter().filter(|(_, _, error)| error.is_some()).count();
        let counted = after.iter().filter(|(_, stats, _)| stats.is_some()).count();
        assert_eq!(errors, 2, "{after:#?}");
        assert!(counted >= 34, "{after:#?}");
    }
}

#[test]
fn a_second_run_counting_while_listing_reads_nothing_the_cache_holds() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("p");
    for i in 0..10 {
        write(
            &d.join(format!("memory-bank/f{i}.md")),
            &format!("# F{i}\ntext\n"),
        );
    }
    let cache_dir = dir.path().join("cache");
    let project = discovery::project_at(&d, "p".into()).unwrap();
    let config = Config::default();
    let run = || {
        let cache = TokenCache::open_at(&cache_dir, Encoding::O200k);
        let mut analyzer = Analyzer::new(&config, Encoding::O200k, cache, &common::test_clock())
            .figures_only()
            .counting_while_listing();
        let report = analyzer.analyze(&project, Depth::default());
        assert_eq!(analyzer.finish(), None);
        (
            rows(&report),
            analyzer.cache.hits(),
            analyzer.cache.misses(),
        )
    };
    let (first, hits, misses) = run();
    assert_eq!((hits, misses), (0, 10));
    let (second, hits, misses) = run();
    assert_eq!((hits, misses), (10, 0));
    assert_eq!(second, first);
}

#[test]
fn counting_while_listing_gives_every_corpus_file_the_figures_counted_after() {
    let Some(root) = corpus_root() else { return };
    within(
        Duration::from_secs(300),
        "corpus counted two ways",
        move || {
            let config = Config::default();
            let projects = discovery::scan(&root, &ScanOptions::default());
            assert!(projects.len() > 20, "{} projects", projects.len());
            let mut counted = 0;
            for project in &projects {
                for (after, ahead) in both_ways(&config, project) {
                    assert_eq!(ahead, after, "{}", project.name);
                    counted += after.iter().filter(|(_, stats, _)| stats.is_some()).count();
                }
            }
            assert!(counted > 400, "{counted} files counted");
        },
    );
}
