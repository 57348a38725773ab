//! Hostile input for every parser mbank runs over files on disk: YAML (mode files,
//! `.roomodes`, frontmatter), JSON (mode files, the Infinity store), TOML (mode files,
//! `config.toml`), markdown (the preview, core line scans) and decision logs. Each case is
//! ten times over a limit; parsing it must finish (a ten-second watchdog stands against
//! the hangs these inputs caused: 18 s for 200 KB of `[` in `.roomodes`, a minute for a
//! padded "billion laughs", hours for a log of 100k decisions) and the limit must be
//! reported: a `parse-limit` finding naming the file, the limit and what was found.
//!
//! The limits themselves are documented in `crates/mbank-core/src/limits/mod.rs`; the numbers below are
//! the documented ones on purpose, so a change of a limit shows up here.
use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use common::{Sandbox, git_output, within, write};
use mbank::core::analysis::decisions;
use mbank::core::analysis::validate;
use mbank::core::formats::roo_rules::modes;
use mbank::core::markup::markdown;

/// The nesting limit of every structured format (`core::limits`), and ten times it.
const DEPTH_LIMIT: usize = 64;
const TEN_TIMES_DEPTH: usize = 10 * DEPTH_LIMIT;
/// Mode files and `.roomodes`: 512 KiB.
const MODE_FILE_BYTES: usize = 512 * 1024;
/// Frontmatter: 64 KiB.
const FRONTMATTER_BYTES: usize = 64 * 1024;
/// `config.toml`, keymaps, themes: 256 KiB.
const SETTINGS_BYTES: usize = 256 * 1024;
/// Decision logs: 8 MiB.
const DECISION_LOG_BYTES: u64 = 8 * 1024 * 1024;

/// Every test here holds this lock: the timed ones must not share the machine's two
/// cores with the others' `mbank` runs.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `work` with a watchdog: a hostile input that makes a parser hang fails the test
/// (after `common::HANG_LIMIT`) instead of stalling CI. How fast each parser is belongs to the
/// benchmarks, not here; the time is printed for the curious.
fn without_hanging<T: Send + 'static>(what: &str, work: impl FnOnce() -> T + Send + 'static) -> T {
    let label = what.to_string();
    within(common::HANG_LIMIT, what, move || {
        let started = Instant::now();
        let value = work();
        eprintln!("{label}: {:?}", started.elapsed());
        value
    })
}

/// `mbank check --json` over `root`: every finding of every project.
fn check_findings(sandbox: &Sandbox, root: &Path) -> (i32, Vec<serde_json::Value>) {
    let run = sandbox.run(&["--root", &root.display().to_string(), "check", "--json"]);
    let json = run.json();
    let findings = json["projects"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["findings"].as_array().unwrap().clone())
        .collect();
    (run.code, findings)
}

/// The `parse-limit` findings about a file called `name`.
fn limit_findings<'a>(findings: &'a [serde_json::Value], name: &str) -> Vec<&'a serde_json::Value> {
    findings
        .iter()
        .filter(|f| {
            f["code"] == "parse-limit" && f["file"].as_str().is_some_and(|p| p.ends_with(name))
        })
        .collect()
}

/// A Cline project with every required file, so the only problem is the planted one.
fn cline_project(root: &Path) -> PathBuf {
    let bank = root.join("proj/memory-bank");
    for name in [
        "projectbrief.md",
        "productContext.md",
        "systemPatterns.md",
        "techContext.md",
    ] {
        write(&bank.join(name), &format!("# {name}\n\nFilled in.\n"));
    }
    write(&bank.join("progress.md"), "# Progress\n\nDone.\n");
    bank
}

// ---------------------------------------------------------------------------------------
// YAML
// ---------------------------------------------------------------------------------------

#[test]
fn roomodes_nested_brackets_are_refused_before_the_yaml_parser() {
    let _serial = serial();
    // The report's case: 200 KB of `[` (18 s for `list` before), and ten times the limit.
    for text in [
        "[".repeat(200_000),
        format!("customModes: {}", "[".repeat(TEN_TIMES_DEPTH)),
        format!(
            "customModes:\n{}",
            (0..TEN_TIMES_DEPTH)
                .map(|i| format!("{}- slug:\n", "  ".repeat(i)))
                .collect::<String>()
        ),
    ] {
        let err = without_hanging("parsing a hostile .roomodes", move || {
            modes::parse_roomodes(Path::new(".roomodes"), &text).unwrap_err()
        });
        let message = err.to_string();
        assert!(
            message.contains(".roomodes was not parsed: its YAML nests")
                && message.contains("over the limit of 64 levels"),
            "{message}"
        );
    }
}

#[test]
fn yaml_mode_files_over_the_size_limit_are_refused() {
    let _serial = serial();
    let text = format!(
        "mode: code\ninstructions:\n  general: \"{}\"\n",
        "x".repeat(10 * MODE_FILE_BYTES)
    );
    let err = without_hanging("parsing a 5 MiB YAML mode file", move || {
        modes::parse_mode_file(Path::new(".clinerules-code"), &text).unwrap_err()
    });
    assert!(
        err.to_string()
            .contains("its YAML text is 5 MiB, over the 512 KiB limit"),
        "{err}"
    );
}

#[test]
fn yaml_aliases_that_would_expand_without_bound_are_refused() {
    let _serial = serial();
    // A "billion laughs" padded with a large list: serde_norway's own repetition limit
    // grows with the padding (a minute before); and ten times the alias limit.
    let mut laughs = format!("pad: [{}]\n", vec!["1"; 100_000].join(","));
    laughs.push_str(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for pair in names.windows(2) {
        let refs = vec![format!("*{}", pair[0]); 9].join(",");
        laughs.push_str(&format!("{}: &{} [{refs}]\n", pair[1], pair[1]));
    }
    let many = format!("a: &a x\nb: [{}]\n", vec!["*a"; 2560].join(", "));
    for (text, expected) in [
        (laughs, "its YAML aliases would expand it by about"),
        (many, "it has 2560 YAML aliases"),
    ] {
        let err = without_hanging("parsing YAML aliases", move || {
            modes::parse_mode_file(Path::new(".roorules-code"), &text).unwrap_err()
        });
        assert!(err.to_string().contains(expected), "{err}");
    }
}

#[test]
fn frontmatter_over_the_limits_is_not_parsed() {
    let _serial = serial();
    let deep = format!("---\nglobs: {}\n---\n", "[".repeat(TEN_TIMES_DEPTH));
    let big = format!(
        "---\ntoken_budget: light\nnote: \"{}\"\n---\n",
        "x".repeat(10 * FRONTMATTER_BYTES)
    );
    for (text, expected) in [(deep, "nests 641 levels"), (big, "over the 64 KiB limit")] {
        let issues = without_hanging("parsing hostile frontmatter", move || {
            validate::parse_memory_config_detailed(&text).1
        });
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert!(
            issues[0].message.starts_with("frontmatter was not parsed")
                && issues[0].message.contains(expected),
            "{}",
            issues[0].message
        );
    }
}

#[test]
fn check_reports_hostile_yaml_as_parse_limit_findings() {
    let _serial = serial();
    let sandbox = Sandbox::new();
    let root = sandbox.home().join("root");
    // A Roo project whose .roomodes nests ten times too deep.
    write(
        &root.join("roo/.roomodes"),
        &format!("customModes: {}", "[".repeat(200_000)),
    );
    write(
        &root.join("roo/.clinerules-code"),
        "# Code\n\nBe careful.\n",
    );
    // A Claude Code rule whose frontmatter nests ten times too deep.
    write(&root.join("claude/CLAUDE.md"), "# Claude\n\nRules below.\n");
    write(
        &root.join("claude/.claude/rules/activeContext.md"),
        &format!(
            "---\npaths: {}\n---\n# Active\n\nNow.\n",
            "[".repeat(TEN_TIMES_DEPTH)
        ),
    );
    let (_, findings) = within(common::HANG_LIMIT, "check", move || {
        check_findings(&sandbox, &root)
    });
    let roomodes = limit_findings(&findings, ".roomodes");
    assert_eq!(roomodes.len(), 1, "{findings:#?}");
    assert_eq!(roomodes[0]["severity"], "error");
    let message = roomodes[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(".roomodes was not parsed: its YAML nests 200001 levels deep")
            && message.contains("over the limit of 64 levels"),
        "{message}"
    );
    let front = limit_findings(&findings, "activeContext.md");
    assert_eq!(front.len(), 1, "{findings:#?}");
    assert_eq!(
        (front[0]["severity"].as_str(), front[0]["line"].as_u64()),
        (Some("warning"), Some(2))
    );
}

// ---------------------------------------------------------------------------------------
// JSON and TOML
// ---------------------------------------------------------------------------------------

#[test]
fn json_and_toml_mode_files_over_the_limits_are_refused() {
    let _serial = serial();
    let cases = [
        (
            format!(
                "{{\"mode\": \"code\", \"x\": {}",
                "[".repeat(TEN_TIMES_DEPTH)
            ),
            "its JSON nests 641 levels",
        ),
        (
            format!(
                "[instructions]\nfiles_to_read = {}",
                "[".repeat(TEN_TIMES_DEPTH)
            ),
            // The table, the key and 640 arrays.
            "its TOML nests 642 levels",
        ),
        (
            format!(
                "{{\"mode\": \"code\", \"x\": \"{}\"}}",
                "x".repeat(10 * MODE_FILE_BYTES)
            ),
            "its JSON text is 5 MiB, over the 512 KiB limit",
        ),
    ];
    for (text, expected) in cases {
        let err = without_hanging("parsing a hostile mode file", move || {
            modes::parse_mode_file(Path::new(".clinerules-code"), &text).unwrap_err()
        });
        assert!(err.to_string().contains(expected), "{err}");
    }
}

#[test]
fn check_reports_a_hostile_infinity_store() {
    let _serial = serial();
    let sandbox = Sandbox::new();
    let root = sandbox.home().join("root");
    let store = root.join("inf/.infinity");
    write(
        &store.join("memories.json"),
        &format!(
            "{{\"project_id\": \"p\", \"memories\": {}",
            "[".repeat(TEN_TIMES_DEPTH)
        ),
    );
    write(&store.join("project_id"), "p\n");
    let parse = without_hanging("parsing a hostile store", {
        let text = fs::read_to_string(store.join("memories.json")).unwrap();
        move || {
            mbank::core::formats::infinity::store::parse_store(&text)
                .map(|_| ())
                .unwrap_err()
        }
    });
    assert!(parse.to_string().contains("not parsed"), "{parse}");
    let (code, findings) = check_findings(&sandbox, &root);
    assert_eq!(code, 1);
    let found = limit_findings(&findings, "memories.json");
    assert_eq!(found.len(), 1, "{findings:#?}");
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .contains("its JSON nests 641 levels"),
        "{found:?}"
    );
}

#[test]
fn a_hostile_config_is_an_error_naming_the_file_and_the_limit() {
    let _serial = serial();
    let sandbox = Sandbox::new();
    let root = sandbox.home().join("root");
    cline_project(&root);
    let deep = sandbox.home().join("deep.toml");
    fs::write(&deep, format!("ignore = {}", "[".repeat(TEN_TIMES_DEPTH))).unwrap();
    let big = sandbox.home().join("big.toml");
    fs::write(&big, format!("# {}\n", "x".repeat(10 * SETTINGS_BYTES))).unwrap();
    for (file, expected) in [
        (&deep, "its TOML nests 641 levels"),
        (&big, "over the 262144-byte limit"),
    ] {
        let run = sandbox.run(&[
            "--root",
            &root.display().to_string(),
            "--config",
            &file.display().to_string(),
            "list",
        ]);
        run.expect_code(2);
        assert!(
            run.stderr.contains(&file.display().to_string()) && run.stderr.contains(expected),
            "{}",
            run.stderr
        );
    }
}

// ---------------------------------------------------------------------------------------
// Markdown
// ---------------------------------------------------------------------------------------

#[test]
fn markdown_nested_past_the_limit_is_a_finding_and_plain_in_the_preview() {
    let _serial = serial();
    let quotes = format!("# Active\n\n{} deep\n", "> ".repeat(TEN_TIMES_DEPTH));
    let preview = without_hanging("previewing 640 nested quotes", {
        let text = quotes.clone();
        move || {
            let theme = mbank::tui::theme::Theme::default();
            mbank::tui::markdown_view::render(&text, &theme, 80).plain_lines()
        }
    });
    assert!(preview[0].starts_with("Shown as plain text"), "{preview:?}");

    let sandbox = Sandbox::new();
    let root = sandbox.home().join("root");
    let bank = cline_project(&root);
    write(&bank.join("activeContext.md"), &quotes);
    let (_, findings) = check_findings(&sandbox, &root);
    let found = limit_findings(&findings, "activeContext.md");
    assert_eq!(found.len(), 1, "{findings:#?}");
    assert_eq!(found[0]["line"].as_u64(), Some(3));
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .contains("its markdown nests 640 levels"),
        "{found:?}"
    );
}

#[test]
fn many_code_fences_do_not_make_the_heading_check_quadratic() {
    let _serial = serial();
    let text = "```\nx\n```\n".repeat(100_000) + &"plain\n".repeat(100_000);
    let found = without_hanging("looking for a heading after 100k fences", move || {
        markdown::has_heading(&text)
    });
    assert!(!found);
}

// ---------------------------------------------------------------------------------------
// Decision logs
// ---------------------------------------------------------------------------------------

/// A Roo log of `count` entries (`[date time] - summary`), dates out of order.
fn big_log(count: usize) -> String {
    let mut text = String::from("# Decision Log\n\n");
    for i in 0..count {
        let day = 1 + (i * 7) % 28;
        text.push_str(&format!(
            "[2025-01-{day:02} {:02}:{:02}:00] - Decision {i}\n",
            i % 24,
            i % 60
        ));
    }
    text
}

#[test]
fn a_timeline_of_100k_decisions_is_built_in_n_log_n() {
    let _serial = serial();
    // Each entry's end used to be found by scanning every later entry: 100k² steps.
    let text = big_log(100_000);
    let timeline = without_hanging("parsing, linking and sorting 100k decisions", move || {
        let mut all = decisions::parse_log(Path::new("decisionLog.md"), &text);
        decisions::link_supersessions(&mut all);
        decisions::sort_timeline(&mut all);
        all
    });
    assert_eq!(timeline.len(), 100_000);
    assert!(
        timeline
            .windows(2)
            .all(|pair| (pair[0].date, pair[0].time) <= (pair[1].date, pair[1].time))
    );
    assert!(timeline.iter().all(|d| d.line == d.end_line));
}

/// `count` decisions named `title(i)`, each superseding `link(i)`.
fn linked(
    count: usize,
    title: fn(usize) -> String,
    link: fn(usize) -> String,
) -> Vec<decisions::Decision> {
    let template = decisions::parse_log(Path::new("decisionLog.md"), "## 2025-01-01 - T\n")
        .pop()
        .unwrap();
    (0..count)
        .map(|i| {
            let mut decision = template.clone();
            decision.title = title(i);
            decision.line = i + 1;
            decision.supersedes = vec![link(i)];
            decision
        })
        .collect()
}

#[test]
fn supersession_links_of_100k_decisions_are_resolved_in_n_log_n() {
    let _serial = serial();
    // Each entry used to be compared with every other for every link: 100k² steps.
    let all = linked(
        100_000,
        |i| format!("Decision {i}"),
        |i| format!("Decision {}", i.saturating_sub(1)),
    );
    let all = without_hanging("linking 100k supersessions", move || {
        let mut all = all;
        decisions::link_supersessions(&mut all);
        all
    });
    let superseded = all
        .iter()
        .filter(|d| d.status == decisions::DecisionStatus::Superseded)
        .count();
    // Every entry but the newest is superseded by the next one.
    assert_eq!(superseded, 99_999);
    assert_eq!(all[5].superseded_by, ["Decision 6"]);
    // One title shared by 100k entries that all supersede it: links are capped per
    // entry and per link instead of filling in 100k² of them.
    let same = linked(
        100_000,
        |i| format!("Same {}", " ".repeat(i % 3)),
        |_| "same".into(),
    );
    let same = without_hanging("linking 100k entries of one title", move || {
        let mut same = same;
        decisions::link_supersessions(&mut same);
        same
    });
    assert!(same.iter().all(|d| d.superseded_by.len() <= 16));
}

/// A sparse decision log ten times over the limit: its size is all that is read.
fn oversized_log(bank: &Path) -> PathBuf {
    let log = bank.join("decisionLog.md");
    fs::create_dir_all(bank).unwrap();
    let file = fs::File::create(&log).unwrap();
    file.set_len(10 * DECISION_LOG_BYTES).unwrap();
    log
}

#[test]
fn decision_logs_over_the_limit_are_reported_not_skipped_silently() {
    let _serial = serial();
    let sandbox = Sandbox::new();
    let root = sandbox.home().join("root");
    let bank = cline_project(&root);
    write(&bank.join("activeContext.md"), "# Active\n\nNow.\n");
    oversized_log(&bank);
    let (_, findings) = check_findings(&sandbox, &root);
    let found = limit_findings(&findings, "decisionLog.md");
    assert_eq!(found.len(), 1, "{findings:#?}");
    // Not in git: only the timeline misses it.
    assert_eq!(found[0]["severity"], "warning");
    let message = found[0]["message"].as_str().unwrap();
    assert!(
        message.contains("80 MiB, over the 8 MiB limit")
            && message.contains("missing from the timeline"),
        "{message}"
    );

    let root_arg = root.display().to_string();
    let run = sandbox.run(&["--root", &root_arg, "timeline"]);
    run.expect_code(0);
    assert!(
        run.stderr.contains("decisionLog.md was not parsed") && run.stderr.contains("8 MiB"),
        "{}",
        run.stderr
    );
    let run = sandbox.run(&["--root", &root_arg, "timeline", "--json"]);
    let problems = &run.json()["projects"][0]["problems"];
    assert_eq!(problems[0]["code"], "parse-limit", "{problems}");
}

#[test]
fn a_tracked_decision_log_over_the_limit_fails_the_append_only_check_closed() {
    let _serial = serial();
    let sandbox = Sandbox::new();
    let root = sandbox.home().join("root");
    let bank = cline_project(&root);
    write(&bank.join("activeContext.md"), "# Active\n\nNow.\n");
    let project = root.join("proj");
    let log = bank.join("decisionLog.md");
    write(&log, "# Decision Log\n\n## 2025-01-01 - Keep it small\n");
    let home = sandbox.home();
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &["commit", "-q", "-m", "bank"],
    ] {
        let out = git_output(&project, home, &[], args);
        assert!(out.status.success(), "{out:?}");
    }
    oversized_log(&bank);
    let (code, findings) = check_findings(&sandbox, &root);
    let found = limit_findings(&findings, "decisionLog.md");
    assert_eq!(found.len(), 1, "{findings:#?}");
    assert_eq!(found[0]["severity"], "error");
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .contains("the append-only check (no entries lost since the last commit) did not run"),
        "{found:?}"
    );
    assert_eq!(code, 1);
}

// ---------------------------------------------------------------------------------------
// Real files stay within the limits
// ---------------------------------------------------------------------------------------

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => files_under(&path, out),
            Ok(t) if t.is_file() => out.push(path),
            _ => {}
        }
    }
}

#[test]
fn every_file_of_the_corpus_is_within_the_limits() {
    use mbank::core::limits::{self, Syntax};
    let _serial = serial();
    let Some(corpus) = common::corpus_root() else {
        return;
    };
    let mut files = Vec::new();
    files_under(&corpus, &mut files);
    let (mut modes_checked, mut markdown_checked, mut frontmatter_checked) = (0, 0, 0);
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        if name == ".roomodes" || name.starts_with(".clinerules-") || name.starts_with(".roorules-")
        {
            if let Err(err) = modes::parse_mode_file(&path, &text) {
                assert!(err.limit.is_none(), "{err}");
            }
            modes_checked += 1;
        }
        if name.ends_with(".md") || name.ends_with(".mdc") {
            assert_eq!(
                limits::check(&text, Syntax::Markdown, limits::MARKDOWN),
                Ok(()),
                "{}",
                path.display()
            );
            markdown_checked += 1;
            if let Some(fm) = markdown::frontmatter(&text) {
                assert_eq!(
                    limits::check(fm.yaml, Syntax::Yaml, limits::FRONTMATTER),
                    Ok(()),
                    "{}",
                    path.display()
                );
                frontmatter_checked += 1;
            }
        }
        if name == "memories.json" || name.ends_with(".json") {
            assert_eq!(
                limits::check(&text, Syntax::Json, limits::JSON_STORE),
                Ok(()),
                "{}",
                path.display()
            );
        }
    }
    assert!(
        modes_checked > 0 && markdown_checked > 100 && frontmatter_checked > 0,
        "{modes_checked} {markdown_checked} {frontmatter_checked}"
    );
}
