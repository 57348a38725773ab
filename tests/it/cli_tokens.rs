//! `mbank tokens` through the real binary: one file and a whole project with each
//! encoding, counts identical to the reference tokenizer, private blocks counted apart
//! from what loads, and a warm cache that never answers for a file edited in place.
use crate::common;

use std::path::Path;

use common::{Sandbox, write};
use mbank::core::tokens::Encoding;
use serde_json::Value;

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

const PRIVATE_PATTERNS: &str = "# Patterns\n\nShared with every agent.\n<private>\nThe staging password rotates weekly.\n</private>\nMore shared text.\n";
const PRIVATE_VISIBLE: &str = "# Patterns\n\nShared with every agent.\nMore shared text.\n";
const PRIVATE_HIDDEN: &str = "The staging password rotates weekly.\n";

pub(crate) fn conkeeper_with_private(project: &Path) {
    let memory = project.join(".claude/memory");
    write(&memory.join("patterns.md"), PRIVATE_PATTERNS);
    write(
        &memory.join("active-context.md"),
        "# Active context\n\nRefactoring the importer.\n",
    );
    write(
        &memory.join("secrets.md"),
        "---\nprivate: true\n---\n# Personal notes\n\nNever shared.\n",
    );
}

/// The reference tokenizer, independent of mbank's own.
pub(crate) fn reference_count(encoding: Encoding, text: &str) -> usize {
    match encoding {
        Encoding::O200k => tiktoken_rs::o200k_base_singleton()
            .encode_ordinary(text)
            .len(),
        Encoding::Cl100k => tiktoken_rs::cl100k_base_singleton()
            .encode_ordinary(text)
            .len(),
        Encoding::Bytes4 => text.len().div_ceil(4),
    }
}

#[test]
fn tokens_of_a_single_file_with_each_encoding() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("patterns.md");
    write(&file, PRIVATE_PATTERNS);
    for (flag, encoding) in [
        (None, Encoding::O200k),
        (Some("o200k"), Encoding::O200k),
        (Some("cl100k"), Encoding::Cl100k),
        (Some("cl100k_base"), Encoding::Cl100k),
        (Some("bytes4"), Encoding::Bytes4),
    ] {
        let mut args = vec!["tokens", s(&file), "--json"];
        if let Some(flag) = flag {
            args.extend(["--encoding", flag]);
        }
        let run = sandbox.run(&args);
        run.expect_code(0);
        let json = run.json();
        assert_eq!(json["schema"], "mbank.tokens/1");
        assert_eq!(json["encoding"], encoding.id(), "{flag:?}");
        assert_eq!(json["path"], s(&file));
        let bank = &json["banks"][0];
        assert!(bank["format"].is_null());
        let entry = &bank["files"][0];
        assert!(entry["role"].is_null() && entry["load"].is_null());
        assert_eq!(entry["bytes"], PRIVATE_PATTERNS.len());
        assert_eq!(entry["lines"], PRIVATE_PATTERNS.lines().count());
        assert_eq!(entry["chars"], PRIVATE_PATTERNS.chars().count());
        assert_eq!(
            entry["loaded_tokens"],
            reference_count(encoding, PRIVATE_VISIBLE),
            "{flag:?}"
        );
        assert_eq!(
            entry["private_tokens"],
            reference_count(encoding, PRIVATE_HIDDEN),
            "{flag:?}"
        );
        assert_eq!(json["totals"]["files"], 1);
        assert_eq!(json["totals"]["loaded_tokens"], entry["loaded_tokens"]);
        assert_eq!(json["totals"]["private_tokens"], entry["private_tokens"]);
    }
    let text = sandbox.run(&["tokens", s(&file), "--encoding", "cl100k"]);
    text.expect_code(0);
    assert!(text.stdout.contains("cl100k_base"), "{}", text.stdout);
    assert!(
        text.stdout.contains(&format!(
            "Total: {} loaded, {} private",
            reference_count(Encoding::Cl100k, PRIVATE_VISIBLE),
            reference_count(Encoding::Cl100k, PRIVATE_HIDDEN)
        )),
        "{}",
        text.stdout
    );
}

#[test]
fn tokens_of_a_project_separate_loaded_and_private() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let project_dir = dir.path().join("keeper");
    conkeeper_with_private(&project_dir);
    let run = sandbox.run(&["tokens", s(&project_dir), "--json"]);
    run.expect_code(0);
    let json = run.json();
    let bank = &json["banks"][0];
    assert_eq!(bank["format"], "conkeeper");
    assert_eq!(bank["root"], s(&project_dir.join(".claude/memory")));
    let file = |display: &str| -> &Value {
        bank["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["display"] == display)
            .unwrap_or_else(|| panic!("no {display} in {bank:#}"))
    };
    let patterns = file(".claude/memory/patterns.md");
    assert_eq!(patterns["role"], "patterns");
    assert_eq!(patterns["load"], "startup");
    assert_eq!(
        patterns["loaded_tokens"],
        reference_count(Encoding::O200k, PRIVATE_VISIBLE)
    );
    assert_eq!(
        patterns["private_tokens"],
        reference_count(Encoding::O200k, PRIVATE_HIDDEN)
    );
    let secrets = file(".claude/memory/secrets.md");
    assert_eq!(secrets["loaded_tokens"], 0);
    assert!(secrets["private_tokens"].as_u64().unwrap() > 0);
    let loaded: u64 = bank["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["loaded_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(bank["loaded_tokens"], loaded);
    assert_eq!(json["totals"]["loaded_tokens"], loaded);
    assert_eq!(json["totals"]["files"], 3);
    assert_eq!(
        json["totals"]["private_tokens"],
        patterns["private_tokens"].as_u64().unwrap() + secrets["private_tokens"].as_u64().unwrap()
    );

    let text = sandbox.run(&["tokens", s(&project_dir)]);
    text.expect_code(0);
    assert!(text.stdout.starts_with("ConKeeper"), "{}", text.stdout);
    assert!(text.stdout.contains(".claude/memory/patterns.md"));
    assert!(text.stdout.contains("loaded at session start:"));

    let bytes4 = sandbox.run(&["--encoding", "bytes4", "tokens", s(&project_dir), "--json"]);
    let bytes4 = bytes4.json();
    assert_eq!(bytes4["encoding"], "bytes/4");
    let patterns4 = bytes4["banks"][0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["display"] == ".claude/memory/patterns.md")
        .unwrap()
        .clone();
    assert_eq!(
        patterns4["loaded_tokens"],
        PRIVATE_VISIBLE.len().div_ceil(4)
    );

    let missing = sandbox.run(&["tokens", s(&dir.path().join("nope.md"))]);
    missing.expect_code(2);
    assert!(missing.stderr.contains("nope.md"), "{}", missing.stderr);
}

/// An edit that keeps a file's size and sets its modification time back (as `rsync -t`,
/// `touch -r` or an editor restoring times can) is still a new version: a warm token
/// cache must not answer for it.
#[test]
fn tokens_recount_a_file_edited_in_place_with_its_modification_time_restored() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    let file = project.join("memory-bank/activeContext.md");
    write(&file, "# Active context\n\nShipping release candidate.\n");
    let total = |sandbox: &Sandbox| {
        let run = sandbox.run(&["tokens", "--json", s(&project)]);
        run.expect_code(0);
        let json: Value = serde_json::from_str(&run.stdout).unwrap();
        json["totals"]["loaded_tokens"].as_u64().unwrap()
            + json["totals"]["not_loaded_tokens"].as_u64().unwrap()
    };
    let before = total(&sandbox);
    // The same number of bytes, many more tokens.
    common::rewrite_keeping_size_and_modification_time(
        &file,
        "# Active context\n\nS;h;i;p;p;i;n;g;r;e;l;e;a;s\n",
    );
    let after = total(&sandbox);
    let fresh = total(&Sandbox::new());
    assert_eq!(after, fresh, "the warm cache answered for the old text");
    assert!(after > before, "{before} -> {after}");
}
