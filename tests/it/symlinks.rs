//! Memory paths never leave their project through a symlink:
//! every shape of link is reported as `symlink-outside` by `check`, `list --json`,
//! `tokens` and `context` and in the report the terminal UI shows, and what it points to
//! is never printed, counted, snapshotted or written.
#![cfg(unix)]

use crate::common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use common::{Sandbox, write};
use mbank::core::analysis::context::{self, ContextOptions};
use mbank::core::analysis::report::{Analyzer, Depth};
use mbank::core::config::Config;
use mbank::core::scan::{bank, discovery};
use mbank::core::tokens::{Encoding, TokenCache};
use mbank::core::write as core_write;

const SYMLINK_OUTSIDE: &str = "symlink-outside";

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A root with one project per symlink shape, each link leading out of its project to a
/// file or folder holding a secret of its own; every project also holds a plain file so
/// that a bank exists whatever mbank makes of the link.
struct Hostile {
    dir: tempfile::TempDir,
}

/// (project, link inside it, what it points to under `outside/`)
const SHAPES: [(&str, &str, &str); 14] = [
    ("claude-file", "CLAUDE.md", "claude-file.md"),
    ("agents-file", "AGENTS.md", "agents-file.md"),
    ("gemini-file", "GEMINI.md", "gemini-file.md"),
    ("cline-folder", "memory-bank", "cline-folder"),
    ("conkeeper-folder", ".claude/memory", "conkeeper-folder"),
    ("claude-folder", ".claude", "claude-folder"),
    ("rules-folder", ".claude/rules", "rules-folder"),
    ("nested-file", "sub/CLAUDE.md", "nested-file.md"),
    ("bank-file", "memory-bank/activeContext.md", "bank-file.md"),
    (
        "infinity-store",
        ".infinity/memories.json",
        "infinity-store.json",
    ),
    ("infinity-folder", ".infinity", "infinity-folder"),
    (
        "conkeeper-config",
        ".claude/memory/.memory-config.md",
        "conkeeper-config.md",
    ),
    ("roo-file", ".clinerules", "roo-file.md"),
    (
        "sibling-project",
        "memory-bank",
        "../root/victim/memory-bank",
    ),
];

fn secret(shape: &str) -> String {
    format!("SECRET-{shape}-7f3a")
}

impl Hostile {
    fn new() -> Hostile {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let out = dir.path().join("outside");
        for (shape, link, target) in SHAPES {
            let text = secret(shape);
            let target_path = out.join(target);
            if target.ends_with(".json") {
                write(
                    &target_path,
                    &format!(
                        r#"{{"project_id":"x","memories":[{{"id":"m1","title":"{text}","type":"rules","content":"{text}","created_at":"2025-01-01T00:00:00Z"}}]}}"#
                    ),
                );
            } else if target.ends_with(".md") {
                write(
                    &target_path,
                    &format!("---\ntoken_budget: light\n---\n# {text}\n{text}\n"),
                );
            } else if shape != "sibling-project" {
                // A folder holding what every format would read in it.
                for name in [
                    "projectBrief.md",
                    "activeContext.md",
                    "active-context.md",
                    "CLAUDE.md",
                    "rule.md",
                    "memory/active-context.md",
                    "rules/rule.md",
                ] {
                    write(&target_path.join(name), &format!("# {text}\n{text}\n"));
                }
                write(
                    &target_path.join("memories.json"),
                    &format!(
                        r#"{{"memories":[{{"id":"m1","title":"{text}","type":"rules","content":"{text}","created_at":"2025-01-01T00:00:00Z"}}]}}"#
                    ),
                );
            }
            let project = root.join(shape);
            write(&project.join("CLAUDE.local.md"), "# plain local notes\n");
            let link_path = project.join(link);
            fs::create_dir_all(link_path.parent().unwrap()).unwrap();
            if shape == "bank-file" {
                write(&project.join("memory-bank/progress.md"), "# progress\n");
            }
            if shape == "conkeeper-config" {
                write(&project.join(".claude/memory/progress.md"), "# progress\n");
            }
            symlink(&target_path, &link_path).unwrap();
        }
        // The sibling project's own bank: its secret is its own, shown under its name.
        write(
            &root.join("victim/memory-bank/projectBrief.md"),
            &format!("# {}\n", secret("sibling-project")),
        );
        Hostile { dir }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    fn outside(&self) -> PathBuf {
        self.dir.path().join("outside")
    }
}

/// Asserts no secret reached any output, except the sibling's under its own project.
fn assert_no_secret(what: &str, text: &str, allow_sibling: bool) {
    for (shape, _, _) in SHAPES {
        if allow_sibling && shape == "sibling-project" {
            continue;
        }
        assert!(
            !text.contains(&secret(shape)),
            "{what} shows the secret of {shape}:\n{text}"
        );
    }
}

fn shapes() -> impl Iterator<Item = &'static str> {
    SHAPES.iter().map(|(shape, _, _)| *shape)
}

#[test]
fn every_command_reports_links_out_and_never_shows_what_they_point_to() {
    let hostile = Hostile::new();
    let sandbox = Sandbox::new();
    let root = hostile.root();
    let r = s(&root);
    for shape in shapes() {
        let project = root.join(shape);
        let p = s(&project);
        for args in [
            vec!["context", "--root", r, p],
            vec!["context", "--root", r, p, "--json"],
            vec!["tokens", "--root", r, p],
            vec!["tokens", "--root", r, p, "--json"],
            vec!["check", "--root", r, p],
            vec!["check", "--root", r, p, "--json"],
            vec!["timeline", "--root", r, p, "--json"],
            vec!["review", "--root", r, p, "--json"],
        ] {
            let run = sandbox.run(&args);
            assert!(
                run.code == 0 || run.code == 1,
                "{args:?}: {}\n{}",
                run.stdout,
                run.stderr
            );
            let all = format!("{}{}", run.stdout, run.stderr);
            assert_no_secret(&format!("{args:?}"), &all, false);
            // Every view that reports names the link; JSON says so in the finding's code.
            if !matches!(args[0], "timeline" | "review") {
                assert!(
                    all.contains(SYMLINK_OUTSIDE) || all.contains("is a symbolic link to"),
                    "{args:?} does not report the link:\n{all}"
                );
            }
        }
        // check fails on it: an error finding.
        sandbox
            .run(&["check", "--root", r, p, "--fail-on", "error"])
            .expect_code(1);
    }
}

#[test]
fn list_and_check_json_name_each_link_and_where_it_points() {
    let hostile = Hostile::new();
    let sandbox = Sandbox::new();
    let root = hostile.root();
    let list = sandbox.run(&["list", "--json", "--root", s(&root)]);
    list.expect_code(0);
    assert_no_secret("list --json", &list.stdout, true);
    let check = sandbox.run(&["check", "--json", "--root", s(&root)]);
    check.expect_code(1);
    assert_no_secret("check --json", &check.stdout, true);
    let text_list = sandbox.run(&["list", "--root", s(&root)]);
    assert_no_secret("list", &text_list.stdout, true);
    let outside = fs::canonicalize(hostile.outside()).unwrap();
    let victim = fs::canonicalize(root.join("victim")).unwrap();
    for (json, what) in [(list.json(), "list"), (check.json(), "check")] {
        let projects = json["projects"].as_array().unwrap();
        for (shape, link, _) in SHAPES {
            let project = projects
                .iter()
                .find(|p| p["name"] == shape)
                .unwrap_or_else(|| panic!("{what}: no project {shape}"));
            let findings: Vec<&serde_json::Value> = project["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["code"] == SYMLINK_OUTSIDE)
                .collect();
            assert_eq!(findings.len(), 1, "{what} {shape}: {findings:?}");
            let finding = findings[0];
            assert_eq!(finding["severity"], "error");
            assert_eq!(
                finding["file"].as_str().unwrap(),
                s(&root.join(shape).join(link)),
                "{what} {shape}"
            );
            let message = finding["message"].as_str().unwrap();
            let expected_target = if shape == "sibling-project" {
                victim.join("memory-bank")
            } else {
                outside.clone()
            };
            assert!(
                message.contains(s(&expected_target)),
                "{what} {shape}: {message}"
            );
        }
        // Nothing behind a link was counted.
        if what == "list" {
            for shape in shapes() {
                let project = projects.iter().find(|p| p["name"] == shape).unwrap();
                let plain = match shape {
                    "bank-file" | "conkeeper-config" => 2,
                    _ => 1,
                };
                assert_eq!(project["files"], plain, "{shape}");
            }
        }
    }
}

#[test]
fn review_snapshots_never_copy_what_a_link_points_to() {
    let hostile = Hostile::new();
    let sandbox = Sandbox::new();
    let root = hostile.root();
    let data = hostile.dir.path().join("data");
    for shape in shapes() {
        let project = root.join(shape);
        let run = sandbox.run_env(
            &["review", "--root", s(&root), s(&project), "--mark-reviewed"],
            "MBANK_DATA_DIR",
            &data,
        );
        run.expect_code(0);
        assert_no_secret("review --mark-reviewed", &run.stdout, false);
    }
    let mut stack = vec![data];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                let text = String::from_utf8_lossy(&fs::read(&path).unwrap()).into_owned();
                assert_no_secret(&path.display().to_string(), &text, false);
            }
        }
    }
}

#[test]
fn the_core_lists_reads_and_writes_nothing_behind_a_link() {
    let hostile = Hostile::new();
    let root = hostile.root();
    let projects = discovery::scan(&root, &Default::default());
    let words = |text: &str| text.split_whitespace().count();
    for shape in shapes() {
        let project = projects
            .iter()
            .find(|p| p.name == shape)
            .unwrap_or_else(|| panic!("{shape} was not found"));
        let banks = bank::list_banks(project);
        let links: Vec<_> = banks.iter().flat_map(|b| &b.outside).collect();
        assert_eq!(links.len(), 1, "{shape}: {links:?}");
        // The report the terminal UI builds (and `list`'s summary) carries the finding.
        let config = Config::default();
        for depth in [Depth::full(), Depth::default()] {
            let cache = TokenCache::in_memory(Encoding::Bytes4);
            let report = Analyzer::new(&config, Encoding::Bytes4, cache, &common::test_clock())
                .analyze(project, depth);
            let codes: Vec<_> = report.findings.iter().map(|f| f.code.id()).collect();
            assert!(codes.contains(&SYMLINK_OUTSIDE), "{shape}: {codes:?}");
            let json = serde_json::to_string(&report).unwrap();
            assert_no_secret(&format!("{shape} report"), &json, false);
        }
        for bank in &banks {
            for file in &bank.files {
                let real = fs::canonicalize(&file.path).unwrap();
                assert!(
                    real.starts_with(fs::canonicalize(&project.path).unwrap()),
                    "{shape}: {} is listed",
                    file.path.display()
                );
            }
            let ctx =
                context::session_context_with(project, bank, &words, &ContextOptions::default());
            let json = serde_json::to_string(&ctx).unwrap();
            assert_no_secret(&format!("{shape} context"), &json, false);
            // The link's name is refused for writing, whatever the bank.
            let link = links[0].link.strip_prefix(&bank.root).ok();
            if let Some(name) = link.and_then(Path::to_str).filter(|n| n.ends_with(".md")) {
                assert!(
                    core_write::resolve_target(bank, name).is_err(),
                    "{shape}: {name} may be written"
                );
            }
        }
    }
}

/// A memory file that was reviewed (so the snapshot names it) and is then swapped for a
/// link out of the project: `review` reports the link and never reads, diffs or scans
/// what it points to.
#[test]
fn review_never_reads_a_reviewed_file_swapped_for_a_link_out() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::new();
    let root = dir.path().join("root");
    let project = root.join("swapped");
    let data = dir.path().join("data");
    write(&project.join("CLAUDE.md"), "# Rules\n\nBe kind.\n");
    let marked = sandbox.run_env(
        &["review", "--root", s(&root), s(&project), "--mark-reviewed"],
        "MBANK_DATA_DIR",
        &data,
    );
    marked.expect_code(0);
    let secret_file = dir.path().join("outside-secret.md");
    write(&secret_file, "# Keys\n\nSECRET-swapped-7f3a\n");
    fs::remove_file(project.join("CLAUDE.md")).unwrap();
    symlink(&secret_file, project.join("CLAUDE.md")).unwrap();
    for args in [
        vec!["review", "--root", s(&root), s(&project)],
        vec!["review", "--root", s(&root), s(&project), "--json"],
    ] {
        let run = sandbox.run_env(&args, "MBANK_DATA_DIR", &data);
        assert_ne!(
            run.code, 0,
            "a link out must fail the review:\n{}",
            run.stdout
        );
        for stream in [&run.stdout, &run.stderr] {
            assert!(
                !stream.contains("SECRET-swapped-7f3a"),
                "review shows what the link points to:\n{stream}"
            );
        }
        assert!(
            run.stdout.contains(SYMLINK_OUTSIDE),
            "the link is named as {SYMLINK_OUTSIDE}:\n{}",
            run.stdout
        );
    }
}
