//! The listing cache (`core::listings`) behind `mbank list`: every change to the tree
//! shows on the next run exactly as a run without the cache sees it, and unchanged
//! folders really come from the cache. Folders changed less than two seconds before a
//! run are never trusted, so once the tree is built the runs' clock is moved that far
//! ahead (`Sandbox::settle`).
use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{Sandbox, write};
use mbank::core::scan::bank;
use mbank::core::scan::discovery::{self, ScanOptions};
use mbank::core::scan::listings::Listings;
use serde_json::Value;

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// `list --json` with the sandbox's cache, and the same with a fresh, empty cache
/// folder: they must agree. Returns the cached run's output.
fn list_both_ways(sandbox: &Sandbox, root: &Path) -> Value {
    let cached = sandbox
        .run(&["list", "--root", s(root), "--json"])
        .expect_code(0)
        .json();
    let empty = tempfile::tempdir().unwrap();
    let fresh = sandbox
        .run_env(
            &["list", "--root", s(root), "--json"],
            "MBANK_CACHE_DIR",
            empty.path(),
        )
        .expect_code(0)
        .json();
    assert_eq!(cached, fresh, "cached and uncached listings differ");
    cached
}

fn project<'a>(list: &'a Value, name: &str) -> Option<&'a Value> {
    list["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
}

fn files_of(list: &Value, name: &str) -> u64 {
    project(list, name).unwrap()["files"].as_u64().unwrap()
}

fn tokens_of(list: &Value, name: &str) -> u64 {
    project(list, name).unwrap()["loaded_tokens"]
        .as_u64()
        .unwrap()
}

fn listing_files(cache: &Path) -> Vec<PathBuf> {
    fs::read_dir(cache)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .unwrap()
                        .to_string_lossy()
                        .starts_with("listing-")
                })
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) fn build_tree(root: &Path) {
    for name in ["projectbrief.md", "activeContext.md", "progress.md"] {
        write(
            &root.join("cline/memory-bank").join(name),
            &format!("# {name}\n\nText.\n"),
        );
    }
    write(
        &root.join("keeper/.claude/memory/active-context.md"),
        "# Active\n\nNow.\n",
    );
    write(
        &root.join("keeper/.claude/memory/.memory-config.md"),
        "---\ntoken_budget: light\n---\n",
    );
    write(
        &root.join("claude/CLAUDE.md"),
        "# Instructions\n\nBe brief.\n",
    );
    write(
        &root.join("claude/.claude/rules/api.md"),
        "---\npaths:\n  - src/api/**\n---\n# Api rules\n\nValidate every input.\n",
    );
    write(
        &root.join("inf/.infinity/memories.json"),
        r##"{"project_id":"p","memories":[{"id":"m1","title":"Plan","type":"implementation_plan","content":"# Plan\n- step","created_at":"2025-01-01T00:00:00Z"}]}"##,
    );
    write(&root.join("plain/src/main.rs"), "fn main() {}\n");
}

#[test]
fn every_change_shows_on_the_next_run_as_without_the_cache() {
    let sandbox = Sandbox::new();
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().join("root");
    build_tree(&root);
    sandbox.settle();

    // Cold run writes the cache; the warm run must read no folder at all.
    let first = list_both_ways(&sandbox, &root);
    assert_eq!(files_of(&first, "cline"), 3);
    assert!(project(&first, "plain").is_none());
    let cache = sandbox.cache_dir();
    assert_eq!(listing_files(&cache).len(), 1, "one listing cache per root");
    let listings = Listings::open_at(&cache, &root, &sandbox.clock());
    assert!(listings.remembers(&root.join("cline/memory-bank")));
    let projects = discovery::scan_with(&root, &ScanOptions::default(), &listings);
    for p in &projects {
        bank::list_banks_with(&listings, p);
    }
    assert_eq!(
        listings.folders_read(),
        0,
        "an unchanged tree is read from the cache"
    );
    assert_eq!(projects.len(), 4);

    // A file added to a bank, then one removed.
    write(
        &root.join("cline/memory-bank/techContext.md"),
        "# Tech\n\nRust.\n",
    );
    assert_eq!(files_of(&list_both_ways(&sandbox, &root), "cline"), 4);
    fs::remove_file(root.join("cline/memory-bank/progress.md")).unwrap();
    assert_eq!(files_of(&list_both_ways(&sandbox, &root), "cline"), 3);

    // A file edited in place: its folder's times do not change, its own do.
    let before = tokens_of(&list_both_ways(&sandbox, &root), "cline");
    write(
        &root.join("cline/memory-bank/activeContext.md"),
        "# activeContext.md\n\nA much longer text about what is going on right now, and why.\n",
    );
    assert!(tokens_of(&list_both_ways(&sandbox, &root), "cline") > before);

    // A new project, a removed project, a marker appearing in a plain folder.
    write(&root.join("fresh/memory-bank/progress.md"), "# Progress\n");
    fs::remove_dir_all(root.join("keeper")).unwrap();
    write(
        &root.join("plain/CLAUDE.md"),
        "# Plain now has instructions\n",
    );
    let list = list_both_ways(&sandbox, &root);
    assert!(project(&list, "fresh").is_some());
    assert!(project(&list, "keeper").is_none());
    assert_eq!(files_of(&list, "plain"), 1);

    // Content facts: a rule losing its `paths:` now loads at start-up; a store grows.
    let rule_tokens = tokens_of(&list, "claude");
    write(
        &root.join("claude/.claude/rules/api.md"),
        "# Api rules\n\nValidate every input.\n",
    );
    write(
        &root.join("inf/.infinity/memories.json"),
        r##"{"project_id":"p","memories":[{"id":"m1","title":"Plan","type":"implementation_plan","content":"# Plan","created_at":"2025-01-01T00:00:00Z"},{"id":"m2","title":"Rules","type":"rules","content":"# Rules","created_at":"2025-01-02T00:00:00Z"}]}"##,
    );
    let list = list_both_ways(&sandbox, &root);
    assert!(tokens_of(&list, "claude") > rule_tokens);
    assert_eq!(files_of(&list, "inf"), 2);

    // A changed ignore glob.
    write(
        &sandbox.config_dir().join("config.toml"),
        "ignore = [\"fresh\"]\n",
    );
    let list = list_both_ways(&sandbox, &root);
    assert!(project(&list, "fresh").is_none());
    assert!(project(&list, "cline").is_some());
    fs::remove_file(sandbox.config_dir().join("config.toml")).unwrap();
    assert!(project(&list_both_ways(&sandbox, &root), "fresh").is_some());
}

#[test]
fn a_corrupt_or_truncated_cache_is_ignored() {
    let sandbox = Sandbox::new();
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().join("root");
    build_tree(&root);
    sandbox.settle();
    let good = list_both_ways(&sandbox, &root);
    let cache = sandbox.cache_dir();
    let file = listing_files(&cache).pop().expect("the cache was written");
    let bytes = fs::read(&file).unwrap();
    for broken in [
        b"garbage".to_vec(),
        bytes[..bytes.len() / 2].to_vec(),
        Vec::new(),
    ] {
        fs::write(&file, &broken).unwrap();
        write(&root.join("cline/memory-bank/extra.md"), "# Extra\n");
        let list = list_both_ways(&sandbox, &root);
        assert_eq!(files_of(&list, "cline"), files_of(&good, "cline") + 1);
        fs::remove_file(root.join("cline/memory-bank/extra.md")).unwrap();
        assert_eq!(list_both_ways(&sandbox, &root), good);
    }
}

#[test]
fn racy_folders_are_read_again() {
    let sandbox = Sandbox::new();
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().join("root");
    build_tree(&root);
    sandbox.settle();
    list_both_ways(&sandbox, &root);
    let bank_dir = root.join("cline/memory-bank");
    let cache = sandbox.cache_dir();
    assert!(Listings::open_at(&cache, &root, &sandbox.clock()).remembers(&bank_dir));

    // Changed just now: listed correctly, but not trusted by the next run.
    write(&bank_dir.join("techContext.md"), "# Tech\n");
    assert_eq!(files_of(&list_both_ways(&sandbox, &root), "cline"), 4);
    assert!(!Listings::open_at(&cache, &root, &sandbox.clock()).remembers(&bank_dir));

    // A change that leaves the folder's modification time as it was (a coarse clock, or
    // a tool restoring times) is still seen.
    let old_time = fs::metadata(&bank_dir).unwrap().modified().unwrap();
    sandbox.settle();
    list_both_ways(&sandbox, &root);
    assert!(Listings::open_at(&cache, &root, &sandbox.clock()).remembers(&bank_dir));
    write(&bank_dir.join("progress2.md"), "# More\n");
    fs::File::open(&bank_dir)
        .unwrap()
        .set_modified(old_time)
        .unwrap();
    assert_eq!(
        fs::metadata(&bank_dir).unwrap().modified().unwrap(),
        old_time
    );
    assert_eq!(files_of(&list_both_ways(&sandbox, &root), "cline"), 5);
}

#[test]
fn the_cache_lives_in_the_cache_folder() {
    let sandbox = Sandbox::new();
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().join("root");
    build_tree(&root);
    let elsewhere = tempfile::tempdir().unwrap();
    sandbox
        .run_env(
            &["list", "--root", s(&root)],
            "MBANK_CACHE_DIR",
            elsewhere.path(),
        )
        .expect_code(0);
    assert_eq!(listing_files(elsewhere.path()).len(), 1);
    assert!(listing_files(&sandbox.cache_dir()).is_empty());
}
