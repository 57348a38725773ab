//! Where each agent stops reading, through the real binary over temp folders: `mbank
//! context` names the lines past Claude Code's, Codex's and Windsurf's cuts (text and
//! JSON), `mbank check` warns when new entries were written below a cut (judged by the
//! history, else by the dates), and `mbank changes` marks a change that falls past one.
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::context::bank;
use crate::common::{Sandbox, write};
use mbank::core::analysis::rows::{Remembered, RememberedRows};

/// The instant every run here judges time by.
const NOW: &str = "2026-05-10T12:00:00Z";

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    project: PathBuf,
    memory: PathBuf,
}

/// A project with a CLAUDE.md under the root, and its auto memory in the sandbox's HOME.
fn fixture(sandbox: &Sandbox) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("work");
    let project = root.join("app");
    write(&project.join("CLAUDE.md"), "# App\n");
    let memory = mbank::core::formats::claude_auto_memory::memory_folder(sandbox.home(), &project);
    Fixture {
        _dir: dir,
        root,
        project,
        memory,
    }
}

fn notes(range: std::ops::RangeInclusive<usize>) -> String {
    range.map(|n| format!("- note {n}\n")).collect()
}

fn run(sandbox: &Sandbox, args: &[&str]) -> crate::common::Run {
    sandbox.run_env(args, mbank::core::clock::NOW_VARIABLE, Path::new(NOW))
}

fn findings_of<'a>(json: &'a Value, code: &str) -> Vec<&'a Value> {
    json["projects"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["findings"].as_array().unwrap())
        .filter(|f| f["code"] == code)
        .collect()
}

#[test]
fn context_names_the_lines_past_each_agents_cut() {
    let sandbox = Sandbox::new();
    let fx = fixture(&sandbox);
    write(&fx.memory.join("MEMORY.md"), &notes(1..=312));
    let rule = format!("---\ntrigger: always_on\n---\n{}\n", "w".repeat(12_500));
    write(&fx.project.join(".windsurf/rules/style.md"), &rule);
    let line = "x".repeat(99) + "\n";
    write(&fx.project.join("AGENTS.md"), &line.repeat(400));

    let text = run(&sandbox, &["context", s(&fx.project), "--no-user"]);
    text.expect_code(0);
    let out = &text.stdout;
    let dropped = notes(201..=312).len();
    assert!(
        out.contains(&format!(
            "cut off ~/.claude/projects/{}/memory/MEMORY.md: lines 201–312 ({}) are past \
             Claude Code's 200-line limit",
            fx.memory
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_str()
                .unwrap(),
            mbank::core::limits::size_in_words(dropped as u64)
        )),
        "{out}"
    );
    assert!(
        out.contains(
            "cut off AGENTS.md: lines 328–400 (from inside line 328, 7 KiB) are past Codex's \
             32 KiB combined limit"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "cut off .windsurf/rules/style.md: line 4 (from inside line 4, 528 bytes) is past \
             Windsurf's 12,000-character limit"
        ),
        "{out}"
    );
    // The figures stay as they were.
    let kept = notes(1..=200).len();
    assert!(
        out.contains(&format!(
            "kept 200 lines / {kept} bytes, dropped 112 lines / {dropped} bytes"
        )),
        "{out}"
    );

    let json = run(
        &sandbox,
        &["context", s(&fx.project), "--no-user", "--json"],
    )
    .json();
    let cut = &bank(&json, "claude-auto-memory")["cutoffs"][0];
    assert_eq!(cut["agent"], "Claude Code");
    assert_eq!(cut["limit"], "200-line limit");
    assert_eq!(
        (cut["first_line_past"].as_u64(), cut["last_line"].as_u64()),
        (Some(201), Some(312))
    );
    assert_eq!(cut["inside_line"], false);
    assert_eq!(cut["dropped_bytes"].as_u64(), Some(dropped as u64));
    assert!(
        cut["message"]
            .as_str()
            .unwrap()
            .ends_with("MEMORY.md: lines 201–312 (1.2 KiB) are past Claude Code's 200-line limit"),
        "{cut}"
    );
    let codex = &bank(&json, "agents-md")["cutoffs"][0];
    assert_eq!(
        (codex["agent"].as_str(), codex["first_line_past"].as_u64()),
        (Some("Codex"), Some(328))
    );
    assert_eq!(codex["inside_line"], true);
    let windsurf = &bank(&json, "windsurf")["cutoffs"][0];
    assert_eq!(windsurf["limit"], "12,000-character limit");
    // Each agent's session names its own cuts only.
    let sessions = json["projects"][0]["sessions"].as_array().unwrap();
    let agents_cut: Vec<(&str, Vec<&str>)> = sessions
        .iter()
        .map(|session| {
            let agents = session["banks"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|b| b["cutoffs"].as_array().unwrap())
                .map(|c| c["agent"].as_str().unwrap())
                .collect();
            (session["agent"].as_str().unwrap(), agents)
        })
        .collect();
    assert_eq!(
        agents_cut,
        vec![
            ("claude-code", vec!["Claude Code"]),
            ("codex", vec!["Codex"]),
            // Kilo Code reads the AGENTS.md at the top whole: it documents no limit.
            ("kilo", vec![]),
            ("windsurf", vec!["Windsurf"]),
            // Zed includes its first rules file whole, and opencode its AGENTS.md.
            ("zed", vec![]),
            ("opencode", vec![]),
        ]
    );
}

#[test]
fn a_file_within_its_limit_names_no_cut() {
    let sandbox = Sandbox::new();
    let fx = fixture(&sandbox);
    write(&fx.memory.join("MEMORY.md"), &notes(1..=200));
    let json = run(&sandbox, &["context", s(&fx.project), "--json"]).json();
    assert_eq!(
        bank(&json, "claude-auto-memory")["cutoffs"],
        serde_json::json!([])
    );
    let check = run(&sandbox, &["check", s(&fx.root), "--json"]).json();
    assert!(findings_of(&check, "entries-past-load-cut").is_empty());
}

#[test]
fn check_warns_when_entries_written_since_the_last_version_fall_past_the_cut() {
    let sandbox = Sandbox::new();
    let fx = fixture(&sandbox);
    let index = fx.memory.join("MEMORY.md");
    write(&index, &notes(1..=230));
    // `mbank changes` records the file as it is now.
    run(&sandbox, &["changes", "--root", s(&fx.root)]).expect_code(0);
    let before = run(&sandbox, &["check", s(&fx.root), "--json"]).json();
    assert!(
        findings_of(&before, "entries-past-load-cut").is_empty(),
        "nothing was written since the recorded version: {before:#}"
    );

    // An edit above the cut is read: no warning.
    write(&index, &format!("# Index\n{}", notes(1..=230)));
    let above = run(&sandbox, &["check", s(&fx.root), "--json"]).json();
    assert!(findings_of(&above, "entries-past-load-cut").is_empty());

    // Two entries appended below it are not.
    write(&index, &notes(1..=232));
    let check = run(&sandbox, &["check", s(&fx.root), "--json"]);
    let json = check.json();
    let found = findings_of(&json, "entries-past-load-cut");
    assert_eq!(found.len(), 1, "{json:#}");
    assert_eq!(found[0]["severity"], "warning");
    assert_eq!(found[0]["line"], 231);
    let message = found[0]["message"].as_str().unwrap();
    assert!(
        message.contains("MEMORY.md: 2 lines written since version 1 (2026-05-10T12:00:00"),
        "{message}"
    );
    assert!(
        message.ends_with(
            ") are past Claude Code's 200-line limit, which leaves out lines 201–232 (352 \
             bytes): the newest entries are the ones Claude Code never reads"
        ),
        "{message}"
    );
    let text = run(&sandbox, &["check", s(&fx.root)]);
    assert!(
        text.stdout.contains("[entries-past-load-cut]"),
        "{}",
        text.stdout
    );
}

#[test]
fn a_check_past_a_cut_is_remembered_until_the_history_of_the_file_changes() {
    // Real time here (a fixed past instant would make every file newer than the run, and
    // nothing is remembered of a file changed within the run's racy window).
    // A rule in the project (a project whose memory is kept outside it, as Claude Code's
    // auto memory is, is checked on every run whatever its cuts).
    let sandbox = Sandbox::new();
    let fx = fixture(&sandbox);
    let rule = |lines: std::ops::RangeInclusive<usize>| -> String {
        lines
            .map(|n| format!("{:<39}\n", format!("- rule {n}: keep handlers small")))
            .collect()
    };
    let rules = fx.project.join(".windsurfrules");
    write(&rules, &rule(1..=310));
    sandbox
        .run(&["changes", "--root", s(&fx.root)])
        .expect_code(0);
    write(&rules, &rule(1..=312));
    sandbox.settle();
    let args = ["check", s(&fx.root), "--json"];
    let first = sandbox.run(&args);
    assert_eq!(findings_of(&first.json(), "entries-past-load-cut").len(), 1);
    let kept = RememberedRows::inspect_of(Remembered::Checks, &sandbox.cache_dir(), &fx.root);
    assert!(
        kept.len() == 1 && kept.payload(0).is_some(),
        "a project cut at load is remembered like any other"
    );
    assert_eq!(sandbox.run(&args).stdout, first.stdout);

    // The rule is as it was; only mbank's history of it is gone (its data folder cleared):
    // the lines can no longer be told new, and the entries carry no dates.
    let histories = sandbox.home().join("data/mbank/history");
    let folders: Vec<PathBuf> = std::fs::read_dir(&histories)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|folder| folder.join("index.jsonl").exists())
        .collect();
    assert!(
        !folders.is_empty(),
        "versions recorded under {}",
        histories.display()
    );
    for folder in folders {
        std::fs::remove_dir_all(folder).unwrap();
    }
    let after = sandbox.run(&args).json();
    assert!(
        findings_of(&after, "entries-past-load-cut").is_empty(),
        "judged again without the versions: {after:#}"
    );
    let empty = tempfile::tempdir().unwrap();
    let uncached = sandbox.run_env(&args, "MBANK_CACHE_DIR", empty.path());
    assert_eq!(after, uncached.json());
}

#[test]
fn with_no_history_check_looks_at_the_dates_of_the_entries() {
    let sandbox = Sandbox::new();
    let fx = fixture(&sandbox);
    let index = fx.memory.join("MEMORY.md");
    let dated = |first: &str, last: &str| {
        format!(
            "- {first}: started\n{}- {last}: switched the cache to Redis\n",
            notes(2..=239)
        )
    };
    // Newest at the bottom, past line 200.
    write(&index, &dated("2026-01-05", "2026-05-01"));
    let json = run(&sandbox, &["check", s(&fx.root), "--json"]).json();
    let found = findings_of(&json, "entries-past-load-cut");
    assert_eq!(found.len(), 1, "{json:#}");
    assert_eq!(found[0]["line"], 240);
    assert!(
        found[0]["message"].as_str().unwrap().contains(
            "MEMORY.md: the newest dated entry (2026-05-01, line 240) is past Claude Code's \
                 200-line limit, which leaves out lines 201–240"
        ),
        "{json:#}"
    );
    // `[rules]` in config.toml applies to it as to every code.
    write(
        &sandbox.config_dir().join("config.toml"),
        "[rules]\n\"entries-past-load-cut\" = \"off\"\n",
    );
    let json = run(&sandbox, &["check", s(&fx.root), "--json"]).json();
    assert!(
        findings_of(&json, "entries-past-load-cut").is_empty(),
        "{json:#}"
    );
    std::fs::remove_file(sandbox.config_dir().join("config.toml")).unwrap();
    // Newest at the top, read: no warning.
    write(&index, &dated("2026-05-01", "2026-01-05"));
    let json = run(&sandbox, &["check", s(&fx.root), "--json"]).json();
    assert!(findings_of(&json, "entries-past-load-cut").is_empty());
}

#[test]
fn changes_marks_a_change_that_falls_past_the_cut() {
    let sandbox = Sandbox::new();
    let fx = fixture(&sandbox);
    let index = fx.memory.join("MEMORY.md");
    write(&index, &notes(1..=205));
    write(&fx.project.join("AGENTS.md"), "# Codex\nshort\n");
    run(
        &sandbox,
        &["changes", "--root", s(&fx.root), "--mark-reviewed"],
    )
    .expect_code(0);

    write(&index, &notes(1..=210));
    write(&fx.project.join("AGENTS.md"), "# Codex\nshort, still\n");
    let json = run(&sandbox, &["changes", "--root", s(&fx.root), "--json"]).json();
    let changes = json["changes"].as_array().unwrap();
    let of = |name: &str| {
        changes
            .iter()
            .find(|c| c["path"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("no change of {name}: {json:#}"))
    };
    let past = &of("MEMORY.md")["past_cut"];
    assert_eq!(past["agent"], "Claude Code");
    assert_eq!(past["limit"], "200-line limit");
    assert_eq!(past["added_lines"], 5);
    assert_eq!(
        (past["first_line_past"].as_u64(), past["last_line"].as_u64()),
        (Some(201), Some(210))
    );
    assert!(of("AGENTS.md").get("past_cut").is_none(), "{json:#}");

    let text = run(&sandbox, &["changes", "--root", s(&fx.root)]);
    text.expect_code(0);
    assert!(text.stdout.contains("MEMORY.md ✂"), "{}", text.stdout);
    assert!(
        text.stdout
            .contains("lines 201–210 (110 bytes) are past Claude Code's 200-line limit; 5 of this change's added lines are there, unread by Claude Code"),
        "{}",
        text.stdout
    );
}

/// A Windsurf rule of 310 lines of 40 characters: Windsurf reads the first 300.
/// The summary's entry in `mbank changes --json` over `root`, with the whole output.
fn summary_change(sandbox: &Sandbox, root: &Path) -> (Value, Value) {
    let json = run(sandbox, &["changes", "--root", s(root), "--json"]).json();
    let change = json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"].as_str().unwrap().ends_with("memory_summary.md"))
        .unwrap_or_else(|| panic!("no change of the summary: {json:#}"))
        .clone();
    (change, json)
}

#[test]
fn changes_marks_what_codex_leaves_out_of_the_middle_of_its_memory_summary() {
    let sandbox = Sandbox::new();
    let fx = fixture(&sandbox);
    let summary = sandbox.home().join(".codex/memories/memory_summary.md");
    // 50-byte lines: 200 of them are 10,000 bytes, what Codex puts into a session whole.
    let line = |n: usize| format!("- note {n:04}: {}\n", "x".repeat(36));
    let lines = |range: std::ops::RangeInclusive<usize>| range.map(line).collect::<String>();
    write(&summary, &format!("v1\n{}", lines(1..=280)));
    run(
        &sandbox,
        &["changes", "--root", s(&fx.root), "--mark-reviewed"],
    )
    .expect_code(0);
    // Entries inserted in the middle of a 14,000-byte summary: Codex reads its first and
    // last 5,000 bytes only.
    write(
        &summary,
        &format!(
            "v1\n{}{}{}",
            lines(1..=140),
            lines(5_001..=5_010),
            lines(141..=280)
        ),
    );
    let (change, json) = summary_change(&sandbox, &fx.root);
    let past = &change["past_cut"];
    assert_eq!(past["agent"], "Codex", "{json:#}");
    assert_eq!(past["added_lines"], 10);
    // Line 1 is "v1\n" (3 bytes): the head ends inside line 101, the tail starts inside
    // line 191 of 291.
    assert_eq!(
        (past["first_line_past"].as_u64(), past["last_line"].as_u64()),
        (Some(101), Some(191))
    );
    assert!(
        past["message"]
            .as_str()
            .unwrap()
            .contains("left out by Codex, which puts only the first and last 1,250 tokens"),
        "{json:#}"
    );
    // The appended end is read: entries added there are not past the cut.
    run(
        &sandbox,
        &["changes", "--root", s(&fx.root), "--mark-reviewed"],
    )
    .expect_code(0);
    write(
        &summary,
        &format!(
            "v1\n{}{}{}{}",
            lines(1..=140),
            lines(5_001..=5_010),
            lines(141..=280),
            lines(9_001..=9_003)
        ),
    );
    let (change, json) = summary_change(&sandbox, &fx.root);
    assert!(
        change.get("past_cut").is_none_or(Value::is_null),
        "{json:#}"
    );
}

fn long_windsurf_rule(project: &Path) {
    let text: String = (1..=310)
        .map(|n| format!("{:<39}\n", format!("- rule {n}: keep handlers small")))
        .collect();
    write(&project.join(".windsurfrules"), &text);
}

fn trimmed(screen: &str) -> String {
    screen
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_tui_marks_where_windsurf_stops_reading_a_rule() {
    let dir = tempfile::tempdir().unwrap();
    // The root under the home folder draws as `~/root` on every machine.
    let root = dir.path().join("root");
    long_windsurf_rule(&root.join("rules"));
    let mut h = crate::common::tui::Tui::options(&root)
        .home(dir.path())
        .size(100, 24)
        .start();
    h.open_project("rules");
    h.open_file(".windsurfrules");
    h.keys("ctrl-end");
    let screen = trimmed(&h.settled_screen());
    let cut = h.doc().cut.clone().expect("the open rule is cut");
    assert_eq!(cut.first_line, 301);
    assert_eq!(cut.label, "past Windsurf's 12,000-character limit");
    assert!(
        screen.contains("✂ cut off: lines 301–310 (400 byt"),
        "{screen}"
    );
    assert!(screen.contains("✂301 - rule 301"), "{screen}");
    assert!(
        screen.contains("✂ from line 301: past Windsurf's 12,000-character limit"),
        "{screen}"
    );
    insta::assert_snapshot!("windsurf_cut_100x24", screen);
}
