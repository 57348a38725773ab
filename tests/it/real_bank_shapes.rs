//! Fixtures shaped like real banks, through the real binary: `list` and `check` judge
//! staleness alike, `context` loads a file once, placeholders shown as documentation,
//! non-memory files inside a bank, PATH inside a bank, and grouped, well-worded findings.
use crate::common;

use std::path::Path;

use common::{Sandbox, write};
use serde_json::Value;

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn findings_of(check: &Value) -> Vec<Value> {
    check["projects"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["findings"].as_array().unwrap().clone())
        .collect()
}

fn codes(check: &Value) -> Vec<String> {
    findings_of(check)
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

/// A Cline bank whose files are small, dated and complete.
fn cline_bank(bank: &Path) {
    write(&bank.join("projectbrief.md"), "# Brief\nA tool.\n");
    write(&bank.join("productContext.md"), "# Product\nFor people.\n");
    write(&bank.join("systemPatterns.md"), "# Patterns\nLayers.\n");
    write(&bank.join("techContext.md"), "# Tech\nRust.\n");
    write(&bank.join("activeContext.md"), "# Active\nShipping.\n");
    write(&bank.join("progress.md"), "# Progress\nHalf done.\n");
}

/// A root with one Cline bank whose files share modification times but whose written
/// dates make it stale: activeContext.md was last updated before progress.md's entry.
fn dated_bank() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let bank = root.path().join("dated/memory-bank");
    cline_bank(&bank);
    write(
        &bank.join("activeContext.md"),
        "# Active\nLast updated: 2025-01-02\n",
    );
    write(
        &bank.join("progress.md"),
        "# Progress\n## 2025-03-20\nShipped.\n",
    );
    root
}

#[test]
fn list_and_check_judge_staleness_alike() {
    let sandbox = Sandbox::new();
    let root = dated_bank();
    let list = sandbox.run(&["list", "--root", s(root.path()), "--json"]);
    list.expect_code(0);
    let listed = list.json()["projects"][0]["staleness"].clone();
    let check = sandbox.run(&["check", "--root", s(root.path()), "--json"]);
    let json = check.json();
    let stale: Vec<Value> = findings_of(&json)
        .into_iter()
        .filter(|f| f["code"] == "stale")
        .collect();
    assert_eq!(listed, "stale", "{}", list.stdout);
    assert_eq!(stale.len(), 1, "{json:#}");
    // The sibling is named with its folder, relative to the project.
    let message = stale[0]["message"].as_str().unwrap();
    assert!(
        message.contains("before memory-bank/progress.md's 2025-03-20"),
        "{message}"
    );
    // A warm list (cached dates) says the same.
    let again = sandbox.run(&["list", "--root", s(root.path()), "--json"]);
    assert_eq!(again.json()["projects"][0]["staleness"], "stale");
}

#[test]
fn list_after_tokens_still_judges_staleness_by_the_dates_written() {
    let sandbox = Sandbox::new();
    let root = dated_bank();
    // `tokens` counts (and caches) the files without looking for dates.
    let tokens = sandbox.run(&["tokens", "--json", s(&root.path().join("dated"))]);
    tokens.expect_code(0);
    assert!(tokens.json()["totals"]["files"].as_u64().unwrap() >= 6);
    let list = sandbox.run(&["list", "--root", s(root.path()), "--json"]);
    list.expect_code(0);
    assert_eq!(
        list.json()["projects"][0]["staleness"],
        "stale",
        "{}",
        list.stdout
    );
    let again = sandbox.run(&["list", "--root", s(root.path()), "--json"]);
    assert_eq!(again.json()["projects"][0]["staleness"], "stale");
}

/// Commits everything in `dir` at `at` (seconds since the epoch) with a fixed identity.
fn commit_all(dir: &Path, home: &Path, at: u64, message: &str) {
    let date = format!("@{at} +0000");
    let dates = [
        ("GIT_AUTHOR_DATE", date.as_str()),
        ("GIT_COMMITTER_DATE", date.as_str()),
    ];
    common::git_stdout(
        &["add"],
        common::git_output(dir, home, &dates, &["add", "-A"]),
    );
    common::git_stdout(
        &["commit"],
        common::git_output(dir, home, &dates, &["commit", "-q", "-m", message]),
    );
}

/// What `list --json` says of the only project, and the `stale` findings of `check`.
fn list_and_check(sandbox: &Sandbox, root: &Path) -> (Value, Vec<String>) {
    let list = sandbox.run(&["list", "--root", s(root), "--json"]);
    list.expect_code(0);
    let check = sandbox.run(&["check", "--root", s(root), "--json"]);
    let stale = findings_of(&check.json())
        .into_iter()
        .filter(|f| f["code"] == "stale")
        .map(|f| {
            format!(
                "{} {}",
                f["file"].as_str().unwrap(),
                f["message"].as_str().unwrap()
            )
        })
        .collect();
    (list.json()["projects"][0]["staleness"].clone(), stale)
}

#[test]
fn list_and_check_judge_staleness_alike_in_a_git_repository() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("repo");
    let bank = project.join("memory-bank");
    cline_bank(&bank);
    let home = sandbox.home().to_path_buf();
    common::git_stdout(
        &["init"],
        common::git_output(&project, &home, &[], &["init", "-q", "-b", "main"]),
    );
    let t0: u64 = 1_760_000_000;
    commit_all(&project, &home, t0, "bank");
    // Twelve commits of work that never touch the bank: by git's evidence the
    // session files fell behind, while every modification time is the same.
    for i in 0..12 {
        write(&project.join("src/lib.rs"), &format!("// {i}\n"));
        commit_all(&project, &home, t0 + 60 * (i + 1), "work");
    }
    let (listed, stale) = list_and_check(&sandbox, root.path());
    assert_eq!(listed, "stale", "{stale:?}");
    assert!(
        stale
            .iter()
            .any(|f| f.contains("activeContext.md") && f.contains("12 commits since last update")),
        "{stale:?}"
    );
    // A warm list answers from what it remembered, and says the same.
    let (listed, _) = list_and_check(&sandbox, root.path());
    assert_eq!(listed, "stale");
    // The agent updates the session files and commits: list sees the new state at once.
    write(&bank.join("activeContext.md"), "# Active\nReleasing.\n");
    write(&bank.join("progress.md"), "# Progress\nDone.\n");
    commit_all(&project, &home, t0 + 3600, "update the bank");
    let (listed, stale) = list_and_check(&sandbox, root.path());
    assert_eq!(
        (listed, stale),
        (Value::from("fresh"), Vec::<String>::new())
    );
    // More work without touching the bank moves only the branch: seen all the same.
    for i in 0..10 {
        write(&project.join("src/lib.rs"), &format!("// again {i}\n"));
        commit_all(&project, &home, t0 + 7200 + 60 * i, "more work");
    }
    let (listed, stale) = list_and_check(&sandbox, root.path());
    assert_eq!(listed, "stale", "{stale:?}");
    assert!(
        stale
            .iter()
            .any(|f| f.contains("10 commits since last update")),
        "{stale:?}"
    );
}

#[test]
fn context_loads_a_file_once_and_shows_every_way_it_is_reached() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("coach");
    write(
        &project.join("CLAUDE.md"),
        "# Coach\nContext:\n@.claude/memory/active-context.md\n@.claude/memory/architecture.md\n",
    );
    let memory = project.join(".claude/memory");
    write(
        &memory.join("active-context.md"),
        "# Active\nWorking on the importer and its tests.\n",
    );
    write(
        &memory.join("architecture.md"),
        "# Architecture\nA web front, an API, a queue of workers.\n",
    );
    write(
        &memory.join("progress.md"),
        "# Progress\nImporter half done.\n",
    );
    let context = sandbox.run(&["context", s(&project), "--json"]);
    context.expect_code(0);
    let json = context.json();
    let tokens = sandbox.run(&["tokens", s(&project), "--json"]).json();
    assert_eq!(
        json["projects"][0]["sessions"][0]["total_tokens"], tokens["totals"]["loaded_tokens"],
        "{json:#}"
    );
    let pieces: Vec<&Value> = json["projects"][0]["banks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| b["pieces"].as_array().unwrap())
        .collect();
    let active: Vec<&&Value> = pieces
        .iter()
        .filter(|p| p["display"] == ".claude/memory/active-context.md")
        .collect();
    assert_eq!(active.len(), 1, "loaded once: {json:#}");
    let reached: Vec<&str> = active[0]["reached"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(reached.len(), 2, "{reached:?}");
    assert_eq!(reached[0], "start-up file (ConKeeper)");
    assert!(
        reached[1].starts_with("imported through CLAUDE.md"),
        "{reached:?}"
    );

    // The text form says so too; --summary leaves the text out.
    let text = sandbox.run(&["context", s(&project), "--summary", "--no-color"]);
    text.expect_code(0);
    assert!(
        text.stdout.contains("loaded once, reached 2 ways"),
        "{}",
        text.stdout
    );
    assert!(
        !text.stdout.contains("Working on the importer"),
        "{}",
        text.stdout
    );
    let full = sandbox.run(&["context", s(&project), "--no-color"]);
    assert_eq!(full.stdout.matches("Working on the importer").count(), 1);
}

#[test]
fn task_ids_and_documented_templates_are_not_placeholders() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("tasks");
    let bank = project.join("memory-bank");
    cline_bank(&bank);
    write(
        &bank.join("progress.md"),
        "# Progress\n- [T19 Phase 2 Refactor]\n- [TASK-7] Cache\n\n\
         ## Entry format\n- [Date] - [Summary]\n\n## Done\n> Example: [Feature Name]\n\
         ```\n[Placeholder]\n```\n",
    );
    let check = sandbox.run(&["check", s(&project), "--json"]).json();
    assert!(
        !codes(&check).contains(&"unfilled-placeholder".to_string()),
        "{check:#}"
    );
    // A real template line is still found.
    write(&bank.join("activeContext.md"), "# Active\n- [Task 1]\n");
    let check = sandbox.run(&["check", s(&project), "--json"]).json();
    let found: Vec<Value> = findings_of(&check)
        .into_iter()
        .filter(|f| f["code"] == "unfilled-placeholder")
        .collect();
    assert_eq!(found.len(), 1, "{check:#}");
    assert!(
        found[0]["file"]
            .as_str()
            .unwrap()
            .ends_with("activeContext.md")
    );
}

#[test]
fn non_memory_files_in_a_bank_are_classified_and_left_out() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("messy");
    let bank = project.join("memory-bank");
    cline_bank(&bank);
    for backup in ["backup-2025-01-01", "backup-2025-02-01"] {
        for name in ["activeContext.md", "progress.md", "techContext.md"] {
            write(&bank.join(backup).join(name), "# Old copy\nold words\n");
        }
    }
    write(&bank.join("progress.md.bak"), "# Progress\nolder\n");
    write(&bank.join("helper.py"), "print('not memory')\n");
    write(&bank.join("package-lock.json"), "{}\n");
    write(&bank.join(".env"), "API_KEY=Zx81kQ2mVtP0aLw9RbN3\n");

    let list = sandbox.run(&["list", "--root", s(root.path()), "--json"]);
    list.expect_code(0);
    let row = list.json()["projects"][0].clone();
    assert_eq!(row["files"], 6, "{row:#}");
    let not_memory = row["not_memory"].as_array().unwrap();
    assert_eq!(not_memory.len(), 10, "{row:#}");
    let class_of = |name: &str| {
        not_memory
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with(name))
            .map(|f| f["class"].as_str().unwrap().to_string())
    };
    assert_eq!(class_of("progress.md.bak").as_deref(), Some("backup"));
    assert_eq!(class_of("helper.py").as_deref(), Some("foreign"));
    assert_eq!(class_of(".env").as_deref(), Some("foreign"));
    // The secret is a security signal even in `list`.
    let listed_codes: Vec<&str> = row["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(listed_codes, vec!["secret-in-bank"]);

    let tokens = sandbox.run(&["tokens", s(&project), "--json"]);
    tokens.expect_code(0);
    let tokens = tokens.json();
    assert_eq!(tokens["totals"]["files"], 6);
    assert_eq!(tokens["totals"]["not_memory_files"], 10);
    assert_eq!(tokens["totals"]["not_loaded_tokens"], 0, "{tokens:#}");
    let files = tokens["banks"][0]["files"].as_array().unwrap();
    let backup = files
        .iter()
        .find(|f| f["display"] == "memory-bank/backup-2025-01-01/progress.md")
        .unwrap();
    assert_eq!(
        (&backup["class"], &backup["load"]),
        (&Value::from("backup"), &Value::from("never"))
    );

    let check = sandbox.run(&["check", s(&project), "--json"]);
    check.expect_code(1);
    let check = check.json();
    let by_code = |code: &str| -> Vec<String> {
        findings_of(&check)
            .iter()
            .filter(|f| f["code"] == code)
            .map(|f| {
                format!(
                    "{} {}",
                    f["severity"].as_str().unwrap(),
                    f["message"].as_str().unwrap()
                )
            })
            .collect()
    };
    let backups = by_code("backup-in-bank");
    assert_eq!(backups.len(), 1, "{check:#}");
    assert!(
        backups[0]
            .starts_with("info 6 files in 2 nested backups and 1 backup copy inside the bank"),
        "{backups:?}"
    );
    let secrets = by_code("secret-in-bank");
    assert_eq!(secrets.len(), 1);
    assert!(
        secrets[0]
            .starts_with("error memory-bank/.env holds a password or key assignment (line 1)"),
        "{secrets:?}"
    );
    let foreign = by_code("foreign-in-bank");
    assert_eq!(foreign.len(), 1);
    assert!(
        foreign[0].starts_with("warning 2 files that are not memory"),
        "{foreign:?}"
    );
    // Nothing in the backups is judged like memory.
    assert!(
        findings_of(&check)
            .iter()
            .all(|f| !f["file"].as_str().unwrap().contains("backup-2025")),
        "{check:#}"
    );
}

#[test]
fn a_path_inside_a_bank_resolves_to_its_project() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("inner");
    cline_bank(&project.join("memory-bank"));
    write(
        &project.join(".claude/memory/progress.md"),
        "# Progress\nok\n",
    );
    let places = [
        project.join("memory-bank"),
        project.join("memory-bank/progress.md"),
        project.join(".claude/memory"),
    ];
    for place in &places {
        let check = sandbox.run(&["check", s(place), "--json"]);
        assert_ne!(check.code, 2, "{}: {}", place.display(), check.stderr);
        let json = check.json();
        assert_eq!(json["projects"].as_array().unwrap().len(), 1);
        assert_eq!(json["projects"][0]["name"], "inner", "{json:#}");
        for command in ["context", "timeline"] {
            let run = sandbox.run(&[command, s(place), "--json"]);
            run.expect_code(0);
            assert_eq!(run.json()["projects"][0]["name"], "inner");
        }
    }
    let tokens = sandbox.run(&["tokens", s(&places[0]), "--json"]);
    tokens.expect_code(0);
    assert_eq!(tokens.json()["totals"]["files"], 7);
    // A folder with no bank around it is still an error.
    let elsewhere = root.path().join("plain/src");
    write(&elsewhere.join("main.rs"), "fn main() {}\n");
    sandbox.run(&["check", s(&elsewhere)]).expect_code(2);
}

#[test]
fn findings_are_grouped_and_worded_once() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("big");
    let bank = project.join("memory-bank");
    cline_bank(&bank);
    let long = "word ".repeat(1_800);
    for name in ["productContext.md", "systemPatterns.md", "techContext.md"] {
        write(&bank.join(name), &format!("# {name}\n{long}\n"));
    }
    write(
        &bank.join("progress.md"),
        "# Progress\n## 2026-30-05 release\nShipped.\n",
    );
    let check = sandbox.run(&["check", s(&project), "--json"]).json();
    let over: Vec<Value> = findings_of(&check)
        .into_iter()
        .filter(|f| f["code"] == "budget-over")
        .collect();
    // Three files over the per-file budget and the bank over its own: two findings.
    let grouped: Vec<&Value> = over
        .iter()
        .filter(|f| {
            f["message"]
                .as_str()
                .unwrap()
                .starts_with("3 files over their budget, largest memory-bank/")
        })
        .collect();
    assert_eq!(grouped.len(), 1, "{over:#?}");
    assert_eq!(grouped[0]["details"].as_array().unwrap().len(), 3);
    assert_eq!(over.len(), 2, "{over:#?}");
    let impossible: Vec<Value> = findings_of(&check)
        .into_iter()
        .filter(|f| f["code"] == "impossible-date")
        .collect();
    assert_eq!(impossible.len(), 1, "{check:#}");
    assert_eq!(impossible[0]["line"], 2);
    assert!(
        impossible[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("2026-30-05 is not a day")
    );

    let text = sandbox.run(&["check", s(&project), "--no-color"]);
    assert!(
        text.stdout.contains("(3 details in --verbose and --json)"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("· 1 project ·"), "{}", text.stdout);
    assert!(!text.stdout.contains("(s)"), "{}", text.stdout);
    let list = sandbox.run(&["list", "--root", s(root.path()), "--no-color"]);
    assert!(
        list.stdout.contains("\n1 project under "),
        "{}",
        list.stdout
    );
    let verbose = sandbox.run(&["check", s(&project), "--verbose", "--no-color"]);
    for name in ["productContext.md", "systemPatterns.md", "techContext.md"] {
        assert!(
            verbose.stdout.contains(&format!("memory-bank/{name}: ")),
            "{}",
            verbose.stdout
        );
    }
}

#[test]
fn identical_rule_files_and_rules_for_unknown_modes_are_reported() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("roo");
    write(
        &project.join(".roo/rules/01-style.md"),
        "# Style\nShort functions.\n",
    );
    write(
        &project.join(".roo/rules/02-style-copy.md"),
        "# Style\nShort functions.\n",
    );
    write(&project.join(".roo/rules-code/x.md"), "# Code\n");
    write(&project.join(".roo/rules-reviewer/x.md"), "# Review\n");
    let check = sandbox.run(&["check", s(&project), "--json"]).json();
    let found: Vec<(String, String)> = findings_of(&check)
        .iter()
        .filter(|f| f["code"] == "duplicate-loaded" || f["code"] == "unknown-mode-rules")
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(found.len(), 2, "{check:#}");
    assert!(found.iter().any(|(code, m)| code == "duplicate-loaded"
        && m.starts_with(".roo/rules/02-style-copy.md is identical to .roo/rules/01-style.md")));
    assert!(found.iter().any(|(code, m)| code == "unknown-mode-rules"
        && m.starts_with(".roo/rules-reviewer/ holds rules for mode \"reviewer\"")));
}
