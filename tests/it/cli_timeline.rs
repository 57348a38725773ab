//! `mbank timeline` end to end: text table, `--json` fields and order, one project or a
//! whole root, and exit codes, over temp folders with our own fixtures.
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A root with a Cline project (a log with an undated entry), a ConKeeper project (ADRs,
/// one superseded) and a project with no decisions.
fn root() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    let shop = root.join("shop/memory-bank");
    write(&shop.join("projectbrief.md"), "# Brief\n\nTea shop.\n");
    write(&shop.join("activeContext.md"), "# Active\n\nCheckout.\n");
    write(&shop.join("progress.md"), "# Progress\n\nCart.\n");
    write(
        &shop.join("decisionLog.md"),
        "# Decision Log\n\n\
## 2025-03-02 - Take card payments only\n\n**Decision:** cards first\n\n\
## Decision: Keep prices in cents\n- **Status**: Accepted\n\n\
## 2025-01-15 14:30 - Start with a monolith\n\n**Context:** two developers\n",
    );
    let app = root.join("app/.claude/memory");
    write(&app.join("active-context.md"), "# Active\n\nSync.\n");
    write(
        &app.join("decisions/ADR-001-redux.md"),
        "# ADR-001: Redux for state\n\n**Status:** Superseded by ADR-002\n**Date:** 2025-02-01\n",
    );
    write(
        &app.join("decisions/ADR-002-20250410-0915-zustand.md"),
        "# ADR-002: Zustand for state\n\n**Status:** Accepted\n**Supersedes:** ADR-001\n",
    );
    write(
        &root.join("notes/CLAUDE.md"),
        "# Notes\n\nNothing decided.\n",
    );
    temp
}

fn mbank(temp: &Path, args: &[&str]) -> Output {
    let home = temp.join("home");
    fs::create_dir_all(&home).unwrap();
    Command::new(env!("CARGO_BIN_EXE_mbank"))
        .args(["--root"])
        .arg(temp.join("root"))
        .args(["--config"])
        .arg("/dev/null")
        .args(args)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("NO_COLOR", "1")
        .env_remove("MEMORY_BANK_ROOT")
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn json_lists_decisions_in_date_order_with_every_field() {
    let temp = root();
    let out = mbank(temp.path(), &["timeline", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["schema"], "mbank.timeline/1");
    assert_eq!(json["total"], 5);
    let projects = json["projects"].as_array().unwrap();
    let shop = projects.iter().find(|p| p["name"] == "shop").unwrap();
    let titles: Vec<&str> = shop["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Start with a monolith",
            "Take card payments only",
            "Keep prices in cents"
        ]
    );
    let first = &shop["decisions"][0];
    assert_eq!(first["date"], "2025-01-15");
    assert_eq!(first["time"], "14:30:00");
    assert_eq!(first["status"], "unknown");
    assert_eq!(first["style"], "dated-heading");
    assert_eq!(first["display"], "memory-bank/decisionLog.md");
    assert_eq!(
        (first["line"].as_u64(), first["end_line"].as_u64()),
        (Some(10), Some(12))
    );
    assert!(first["id"].is_null());
    let undated = &shop["decisions"][2];
    assert!(undated["date"].is_null() && undated["time"].is_null());
    assert_eq!(undated["status"], "accepted");
    assert_eq!(undated["style"], "cline-block");

    let app = projects.iter().find(|p| p["name"] == "app").unwrap();
    let adr1 = &app["decisions"][0];
    assert_eq!(adr1["id"], "ADR-001");
    assert_eq!(adr1["status"], "superseded");
    assert_eq!(adr1["superseded_by"], serde_json::json!(["ADR-002"]));
    let adr2 = &app["decisions"][1];
    assert_eq!(adr2["date"], "2025-04-10");
    assert_eq!(adr2["time"], "09:15:00");
    assert_eq!(adr2["supersedes"], serde_json::json!(["ADR-001"]));
    assert_eq!(adr2["style"], "adr");

    let notes = projects.iter().find(|p| p["name"] == "notes").unwrap();
    assert_eq!(notes["decisions"], serde_json::json!([]));
}

#[test]
fn text_table_for_one_project() {
    let temp = root();
    let project = temp.path().join("root/app");
    let out = mbank(temp.path(), &["timeline", project.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("app "), "{text}");
    assert!(lines[1].starts_with("date"), "{text}");
    let words = |line: &str| line.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words(lines[2]).starts_with("2025-02-01 superseded ADR-001: Redux for state → ADR-002"),
        "{text}"
    );
    assert!(
        lines[2].ends_with(".claude/memory/decisions/ADR-001-redux.md:1"),
        "{text}"
    );
    assert!(
        words(lines[3]).starts_with("2025-04-10 09:15 accepted ADR-002: Zustand"),
        "{text}"
    );
    // Columns line up: every row's status starts where the header's does.
    let column = lines[1].find("status").unwrap();
    assert_eq!(lines[2].find("superseded"), Some(column), "{text}");
    assert_eq!(lines[3].find("accepted"), Some(column), "{text}");
    assert!(text.contains("2 decisions in 1 project"), "{text}");
}

#[test]
fn text_over_the_root_skips_projects_without_decisions_and_puts_undated_last() {
    let temp = root();
    let out = mbank(temp.path(), &["timeline"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(!text.contains("notes"), "{text}");
    let monolith = text.find("Start with a monolith").unwrap();
    let cards = text.find("Take card payments only").unwrap();
    let cents = text.find("undated").unwrap();
    assert!(monolith < cards && cards < cents, "{text}");
    assert!(text.contains("5 decisions in 2 projects"), "{text}");

    // A project with no decisions says so when asked about directly.
    let notes = temp.path().join("root/notes");
    let out = mbank(temp.path(), &["timeline", notes.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.contains("no decisions found"), "{text}");
    // Said once, without a "0 decision(s) in 0 project(s)" tally after it.
    assert_eq!(text.matches("decision").count(), 1, "{text}");
    assert!(!text.contains("(s)"), "{text}");
}

#[test]
fn bad_paths_exit_with_code_2() {
    let temp = root();
    let missing = temp.path().join("root/missing");
    let out = mbank(temp.path(), &["timeline", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing"));

    let empty = temp.path().join("empty");
    fs::create_dir_all(&empty).unwrap();
    let out = mbank(
        temp.path(),
        &["timeline", empty.to_str().unwrap(), "--json"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());

    let out = mbank(temp.path(), &["timeline", "--bogus"]);
    assert_eq!(out.status.code(), Some(2));
    let out = mbank(temp.path(), &["timeline", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("--json"));
}

#[test]
fn a_section_pointing_to_the_decision_log_for_the_record_sums_it_up() {
    let temp = root();
    let shop = temp.path().join("root/shop/memory-bank");
    let summary = "# Active\n\nCheckout.\n\n## Key Decisions & Trade-offs\n\n\
See `memory-bank/decisionLog.md` for the detailed history.\n\n**Major choices:**\n\
- **pnpm over npm:** faster installs\n- **Cards first:** fewer providers\n";
    write(&shop.join("activeContext.md"), summary);
    let titles = |temp: &tempfile::TempDir| -> Vec<String> {
        let out = mbank(temp.path(), &["timeline", "--json"]);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let projects = json["projects"].as_array().unwrap().clone();
        let shop_json = projects
            .iter()
            .find(|p| p["name"] == "shop")
            .unwrap()
            .clone();
        shop_json["decisions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["title"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        titles(&temp),
        [
            "Start with a monolith",
            "Take card payments only",
            "Keep prices in cents"
        ]
    );
    // Without the pointer, the section's choices are entries of their own.
    write(
        &shop.join("activeContext.md"),
        &summary.replace(
            "See `memory-bank/decisionLog.md` for the detailed history.\n\n",
            "",
        ),
    );
    assert_eq!(titles(&temp).len(), 5);
}

#[test]
fn decisions_in_sections_of_other_files_join_the_timeline_with_their_file_and_line() {
    let temp = root();
    let shop = temp.path().join("root/shop/memory-bank");
    write(
        &shop.join("activeContext.md"),
        "# Active\n\nCheckout.\n\n## Key Decisions\n\
- **Ship gift cards**: customers asked\n\
- Keep prices in cents — repeated from the log\n\
- Card payments only\n\
- Search by tea name (see decisionLog.md)\n\
\n```markdown\n- **Fenced example**: never an entry\n```\n\n## Next Steps\n- test\n",
    );
    let out = mbank(temp.path(), &["timeline", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let projects = json["projects"].as_array().unwrap();
    let shop_json = projects.iter().find(|p| p["name"] == "shop").unwrap();
    let decisions = shop_json["decisions"].as_array().unwrap();
    let titles: Vec<&str> = decisions
        .iter()
        .map(|d| d["title"].as_str().unwrap())
        .collect();
    // The log's entries are not repeated (by title, by a title inside the log's, or
    // by a pointer to the log); the fenced example is not an entry. Undated
    // entries come last, by file then line.
    assert_eq!(
        titles,
        [
            "Start with a monolith",
            "Take card payments only",
            "Ship gift cards",
            "Keep prices in cents"
        ]
    );
    let gift = &decisions[2];
    assert_eq!(gift["display"], "memory-bank/activeContext.md");
    assert_eq!(
        Path::new(gift["file"].as_str().unwrap()),
        shop.join("activeContext.md")
    );
    assert_eq!(
        (gift["line"].as_u64(), gift["end_line"].as_u64()),
        (Some(6), Some(6))
    );
    assert_eq!(gift["group"], "Key Decisions");
    assert_eq!(gift["style"], "list-item");
    assert!(decisions[0]["group"].is_null());

    // The text table says where it lives.
    let out = mbank(
        temp.path(),
        &["timeline", shop.parent().unwrap().to_str().unwrap()],
    );
    let text = stdout(&out);
    let row = text
        .lines()
        .find(|l| l.contains("Ship gift cards"))
        .unwrap();
    assert!(row.ends_with("memory-bank/activeContext.md:6"), "{text}");
}

#[test]
fn events_stand_apart_from_decisions_in_text_and_json() {
    let temp = tempfile::tempdir().unwrap();
    let bank = temp.path().join("root/shop/memory-bank");
    write(&bank.join("projectbrief.md"), "# Brief\n\nTea shop.\n");
    write(&bank.join("activeContext.md"), "# Active\n\nCheckout.\n");
    write(
        &bank.join("decisionLog.md"),
        "# Decision Log\n\n\
## 2025-03-02 - Take card payments only\n\n**Decision:** cards first\n\n\
## 2025-03-09 - Merged the checkout branch into main\n\n**Context:** release 1.0\n",
    );
    let out = mbank(temp.path(), &["timeline", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let kinds: Vec<(&str, &str, &str)> = json["projects"][0]["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["title"].as_str().unwrap(),
                d["kind"].as_str().unwrap(),
                d["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("Take card payments only", "decision", "accepted"),
            ("Merged the checkout branch into main", "event", "unknown"),
        ]
    );
    let text = stdout(&mbank(temp.path(), &["timeline"]));
    assert!(
        text.contains("event: Merged the checkout branch into main"),
        "{text}"
    );
    assert!(!text.contains("event: Take card"), "{text}");
}

#[test]
fn a_list_indexing_records_kept_one_per_file_makes_no_entries_of_its_own() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path().join("root/forge");
    write(
        &project.join("docs/adr/ADR-001-command-line.md"),
        "# ADR-001: Command-line interface design\n\n**Status:** Accepted\n**Date:** 2025-06-20\n\n## Decision\nSubcommands.\n",
    );
    write(
        &project.join("docs/adr/ADR-002-streaming.md"),
        "# ADR-002: Snapshot streaming\n\n**Status:** Accepted\n**Date:** 2025-06-22\n\n## Decision\nSnapshots.\n",
    );
    write(
        &project.join("CLAUDE.md"),
        "# Forge\n\n## Architecture Decision Records\n\n- **ADR-001**: Command-line interface design principles\n- **ADR-002**: Snapshot-based streaming design\n- **ADR-046**: Chunk field extension (another project's record)\n",
    );
    let out = mbank(temp.path(), &["timeline", "--json", "forge"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let text = json.to_string();
    let files: Vec<String> = json["projects"][0]["decisions"]
        .as_array()
        .unwrap_or_else(|| panic!("{text}"))
        .iter()
        .map(|d| {
            let file = d["file"].as_str().unwrap_or("");
            file.rsplit_once("forge/")
                .map_or(file, |(_, rel)| rel)
                .to_string()
        })
        .collect();
    assert_eq!(
        files,
        [
            "docs/adr/ADR-001-command-line.md",
            "docs/adr/ADR-002-streaming.md"
        ],
        "{text}"
    );
}
