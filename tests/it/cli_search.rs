//! `mbank search` end to end: results with their places, filters, JSON, exit codes, private
//! text never found, and an index in the cache folder that follows every change to the
//! files (in place ones too) and rebuilds itself when damaged.
use crate::common::{Sandbox, rewrite_keeping_size_and_modification_time, write};

use serde_json::Value;

/// A root of two projects: a Cline bank with a decision log, and a CLAUDE.md project.
fn root(sandbox: &Sandbox) -> std::path::PathBuf {
    let root = sandbox.home().join("banks");
    let bank = root.join("shop/memory-bank");
    write(
        &bank.join("projectbrief.md"),
        "# Project Brief\nAn online shop for second-hand bicycles.\n",
    );
    write(
        &bank.join("techContext.md"),
        "# Tech Context\n\n## Database\nPostgreSQL 16 through sqlx; migrations run at start.\n\n\
         ## Payments\nStripe webhooks, retried with exponential backoff.\n\n\
         <private>\nThe staging password rotation lives in the vault.\n</private>\n",
    );
    write(
        &bank.join("decisionLog.md"),
        "# Decision Log\n\n## 2026-03-02: Drop Redis for sessions\n- **Status:** Accepted\n\
         - **Context:** one more service to run for a few hundred sessions\n\
         - **Decision:** keep sessions in PostgreSQL\n",
    );
    write(
        &root.join("blog/CLAUDE.md"),
        "# Blog\n\n## Commands\nRun `npm test` before every commit.\n",
    );
    root
}

fn search(sandbox: &Sandbox, root: &std::path::Path, args: &[&str]) -> Value {
    let mut all = vec!["--root", root.to_str().unwrap(), "search", "--json"];
    all.extend_from_slice(args);
    let run = sandbox.run(&all);
    assert!(run.code == 0 || run.code == 1, "{run:?}");
    run.json()
}

fn places(found: &Value) -> Vec<String> {
    found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{} {}:{}",
                r["project"].as_str().unwrap(),
                r["display"].as_str().unwrap(),
                r["start_line"]
            )
        })
        .collect()
}

#[test]
fn results_name_their_project_file_lines_and_headings_with_matches_marked() {
    let sandbox = Sandbox::new();
    let root = root(&sandbox);
    let found = search(&sandbox, &root, &["postgresql"]);
    assert_eq!(found["schema"], "mbank.search/1");
    let first = &found["results"][0];
    assert_eq!(first["project"], "shop");
    assert_eq!(first["display"], "memory-bank/techContext.md");
    assert_eq!(
        first["headings"],
        serde_json::json!(["Tech Context", "Database"])
    );
    assert_eq!(
        (first["start_line"].as_u64(), first["end_line"].as_u64()),
        (Some(3), Some(5))
    );
    let snippet = &first["snippet"];
    let text = snippet["text"].as_str().unwrap();
    let marked: Vec<&str> = snippet["marks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &text[m[0].as_u64().unwrap() as usize..m[1].as_u64().unwrap() as usize])
        .collect();
    assert!(marked.contains(&"PostgreSQL"), "{marked:?} in {text:?}");

    let run = sandbox.run(&[
        "--root",
        root.to_str().unwrap(),
        "search",
        "which",
        "database",
    ]);
    run.expect_code(0);
    assert!(
        run.stdout
            .contains("shop memory-bank/techContext.md:3-5 › Tech Context › Database"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("**PostgreSQL**"), "{}", run.stdout);
}

#[test]
fn decisions_carry_their_status_and_date_and_kind_filters_them() {
    let sandbox = Sandbox::new();
    let root = root(&sandbox);
    let found = search(
        &sandbox,
        &root,
        &["redis", "sessions", "--kind", "decision"],
    );
    let first = &found["results"][0];
    assert_eq!(first["kind"], "decision");
    assert_eq!(first["decision"]["status"], "accepted");
    assert_eq!(first["decision"]["date"], "2026-03-02");
    assert!(
        found["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["kind"] == "decision")
    );
    let sections = search(&sandbox, &root, &["redis", "--kind", "section"]);
    assert!(
        sections["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["kind"] == "section")
    );
    let files = search(&sandbox, &root, &["postgresql", "--kind", "file"]);
    let mut shown: Vec<&str> = files["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    let count = shown.len();
    shown.dedup();
    assert_eq!(shown.len(), count, "one result per file");
}

#[test]
fn project_agent_format_and_since_narrow_the_results() {
    let sandbox = Sandbox::new();
    let root = root(&sandbox);
    let in_shop = places(&search(&sandbox, &root, &["commit", "--project", "shop"]));
    assert!(
        in_shop.iter().all(|p| p.starts_with("shop ")),
        "{in_shop:?}"
    );
    assert_eq!(
        places(&search(&sandbox, &root, &["commit", "--project", "blog"])),
        ["blog CLAUDE.md:3"]
    );
    let cline = places(&search(&sandbox, &root, &["npm", "--agent", "cline"]));
    assert!(cline.iter().all(|p| p.starts_with("shop ")), "{cline:?}");
    let claude = places(&search(&sandbox, &root, &["npm", "--agent", "claude-code"]));
    assert_eq!(claude, ["blog CLAUDE.md:3"]);
    let cline_files = places(&search(&sandbox, &root, &["npm", "--format", "cline"]));
    assert!(
        cline_files.iter().all(|p| p.starts_with("shop ")),
        "{cline_files:?}"
    );
    assert!(
        places(&search(
            &sandbox,
            &root,
            &["redis", "--since", "2026-03-01", "--kind", "decision"]
        ))
        .len()
            == 1
    );
    assert!(
        places(&search(
            &sandbox,
            &root,
            &["redis", "--since", "2026-03-03", "--kind", "decision"]
        ))
        .is_empty()
    );
}

#[test]
fn private_text_is_never_found_and_nothing_found_exits_one() {
    let sandbox = Sandbox::new();
    let root = root(&sandbox);
    let run = sandbox.run(&[
        "--root",
        root.to_str().unwrap(),
        "search",
        "vault",
        "rotation",
    ]);
    run.expect_code(1);
    assert!(run.stdout.contains("nothing found"), "{}", run.stdout);
    let run = sandbox.run(&[
        "--root",
        root.to_str().unwrap(),
        "search",
        "x",
        "--agent",
        "nobody",
    ]);
    run.expect_code(2);
    assert!(run.stderr.contains("claude-code"), "{}", run.stderr);
    let run = sandbox.run(&[
        "--root",
        root.to_str().unwrap(),
        "search",
        "x",
        "--project",
        "nowhere",
    ]);
    run.expect_code(2);
    assert!(run.stderr.contains("mbank list"), "{}", run.stderr);
    let run = sandbox.run(&[
        "--root",
        root.to_str().unwrap(),
        "search",
        "x",
        "--since",
        "soon",
    ]);
    run.expect_code(2);
}

#[test]
fn the_index_follows_every_change_and_reads_only_changed_projects() {
    let sandbox = Sandbox::new();
    let root = root(&sandbox);
    let first = search(&sandbox, &root, &["bicycles"]);
    assert_eq!(first["indexed"]["projects_read"], 2);
    let again = search(&sandbox, &root, &["bicycles"]);
    assert_eq!(again["indexed"]["projects_read"], 0);
    assert_eq!(places(&again), places(&first));

    // An edit in place, with the size and modification time kept.
    let brief = root.join("shop/memory-bank/projectbrief.md");
    rewrite_keeping_size_and_modification_time(
        &brief,
        "# Project Brief\nAn online shop for second-hand scooters.\n",
    );
    let edited = search(&sandbox, &root, &["scooters"]);
    assert_eq!(edited["indexed"]["projects_read"], 1);
    assert_eq!(places(&edited), ["shop memory-bank/projectbrief.md:1"]);
    assert!(places(&search(&sandbox, &root, &["bicycles"])).is_empty());

    // A new project, then a project gone.
    write(
        &root.join("wiki/AGENTS.md"),
        "# Wiki\nScooters are our mascot.\n",
    );
    let added = search(&sandbox, &root, &["scooters"]);
    assert_eq!(added["indexed"]["projects_read"], 1);
    assert_eq!(places(&added).len(), 2);
    std::fs::remove_dir_all(root.join("wiki")).unwrap();
    let removed = search(&sandbox, &root, &["scooters"]);
    assert_eq!(places(&removed), ["shop memory-bank/projectbrief.md:1"]);
}

#[test]
fn a_damaged_or_foreign_index_is_rebuilt_with_the_same_results() {
    let sandbox = Sandbox::new();
    let root = root(&sandbox);
    let first = search(&sandbox, &root, &["payments", "retries"]);
    let index_files: Vec<std::path::PathBuf> = std::fs::read_dir(sandbox.cache_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("search-")
        })
        .collect();
    assert!(!index_files.is_empty());
    for garbage in [
        b"MBCACHE\0 truncated".to_vec(),
        vec![0xff; 4096],
        Vec::new(),
    ] {
        for file in &index_files {
            std::fs::write(file, &garbage).unwrap();
        }
        let rebuilt = search(&sandbox, &root, &["payments", "retries"]);
        assert_eq!(rebuilt["indexed"]["projects_read"], 2);
        assert_eq!(places(&rebuilt), places(&first));
    }
}
