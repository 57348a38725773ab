//! `mbank check` remembers each project's findings with what they were derived from: a
//! warm run over the corpus prints exactly what a run without the cache prints, text and
//! JSON, and a file edited in place with its size and modification time kept is checked
//! again.
use crate::common;

use std::fs;
use std::path::Path;

use common::{Sandbox, rewrite_keeping_size_and_modification_time, write};
use mbank::core::analysis::rows::{Remembered, RememberedRows};

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(entry.path()).unwrap(), &target).unwrap();
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `check` of `root` in text and JSON, with the sandbox's cache (twice: filling it, then
/// reading it) and with an empty one: all three agree. Returns the JSON.
fn check_three_ways(sandbox: &Sandbox, root: &Path) -> serde_json::Value {
    let text = ["check", "--root", s(root)];
    let json = ["check", "--root", s(root), "--format", "json"];
    let mut texts = Vec::new();
    let mut jsons = Vec::new();
    for _ in 0..2 {
        texts.push(sandbox.run(&text));
        jsons.push(sandbox.run(&json));
    }
    let empty = tempfile::tempdir().unwrap();
    texts.push(sandbox.run_env(&text, "MBANK_CACHE_DIR", empty.path()));
    let empty = tempfile::tempdir().unwrap();
    jsons.push(sandbox.run_env(&json, "MBANK_CACHE_DIR", empty.path()));
    assert_all_alike(&texts);
    assert_all_alike(&jsons);
    jsons[0].json()
}

fn findings_of<'a>(
    output: &'a serde_json::Value,
    project: &str,
) -> impl Iterator<Item = &'a serde_json::Value> {
    output["projects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(move |p| p["name"] == project)
        .flat_map(|p| p["findings"].as_array().unwrap())
}

#[test]
fn a_warm_check_of_the_corpus_prints_what_an_uncached_one_does_and_sees_an_edit_in_place() {
    let Some(corpus) = common::corpus_root() else {
        return;
    };
    let sandbox = Sandbox::new();
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().join("corpus");
    copy_tree(&corpus, &root);
    // A bank of this test's own, whose one placeholder date is filled in later.
    let bank = root.join("zz-edited-in-place/memory-bank");
    for name in [
        "projectbrief",
        "productContext",
        "systemPatterns",
        "techContext",
    ] {
        write(
            &bank.join(format!("{name}.md")),
            &format!("# {name}\n\nWhat the agent knows.\n"),
        );
    }
    let active = bank.join("activeContext.md");
    write(&active, "# Active context\n\nLast review: [Date].\n");
    write(&bank.join("progress.md"), "# Progress\n\nWorking.\n");
    sandbox.settle();

    let before = check_three_ways(&sandbox, &root);
    let remembered = RememberedRows::inspect_of(Remembered::Checks, &sandbox.cache_dir(), &root);
    let kept = (0..remembered.len())
        .filter(|&i| remembered.payload(i).is_some())
        .count();
    assert!(
        kept > remembered.len() / 2,
        "most projects' findings are remembered ({kept} of {})",
        remembered.len()
    );
    let placeholder = |output: &serde_json::Value| {
        findings_of(output, "zz-edited-in-place")
            .filter(|f| f["file"].as_str().unwrap().ends_with("activeContext.md"))
            .filter(|f| f["code"] == "unfilled-placeholder")
            .count()
    };
    assert_eq!(placeholder(&before), 1, "{:#}", before);

    rewrite_keeping_size_and_modification_time(
        &active,
        "# Active context\n\nLast review: 05 Jan.\n",
    );
    sandbox.settle();
    let after = check_three_ways(&sandbox, &root);
    assert_eq!(placeholder(&after), 0, "{:#}", after);
    let others = |output: &serde_json::Value| {
        let mut projects = output["projects"].as_array().unwrap().clone();
        projects.retain(|p| p["name"] != "zz-edited-in-place");
        projects
    };
    assert_eq!(others(&before), others(&after));
}

/// `check PATH --json` of a repository: twice (filling the cache, then reading it) and
/// with an empty cache, all three the same; the JSON, and whether the project's findings
/// were remembered.
fn check_repo_three_ways(sandbox: &Sandbox, dir: &Path) -> (serde_json::Value, bool) {
    let args = ["check", "--json", s(dir)];
    let runs = [
        sandbox.run(&args),
        sandbox.run(&args),
        sandbox.run_env(
            &args,
            "MBANK_CACHE_DIR",
            tempfile::tempdir().unwrap().path(),
        ),
    ];
    assert_all_alike(&runs);
    let target = fs::canonicalize(dir).unwrap();
    let remembered = RememberedRows::inspect_of(Remembered::Checks, &sandbox.cache_dir(), &target);
    let kept = remembered.len() == 1 && remembered.payload(0).is_some();
    (runs[0].json(), kept)
}

/// Each claim finding as `code: message`.
fn claims_of(output: &serde_json::Value) -> Vec<String> {
    common::claim_findings(output)
        .map(|f| {
            format!(
                "{}: {}",
                f["code"].as_str().unwrap(),
                f["message"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn remembered_claim_findings_follow_the_code_history_ignore_rules_and_the_bank() {
    let repo = common::git::GitRepo::folder("shop");
    repo.init();
    repo.write("src/ledger.rs", "pub struct RefundLedger;\n");
    repo.write("src/api/refunds.rs", "pub fn refund() {}\n");
    repo.write(".gitignore", "src/generated.rs\n");
    repo.write("memory-bank/projectbrief.md", "# Brief\n\nA shop.\n");
    let patterns = repo.path("memory-bank/systemPatterns.md");
    write(
        &patterns,
        "# Patterns\n\n`RefundLedger` keeps refunds, served from `src/api/refunds.rs`.\nThe schema is generated into `src/generated.rs`; `src/gone.rs` went.\n",
    );
    repo.commit_all("shop");
    let sandbox = Sandbox::new();
    sandbox.settle();
    let gone = "claim-missing-path: `src/gone.rs` is not in the work tree";
    let starts = |found: &[String], expected: &[&str]| {
        found.len() == expected.len() && found.iter().zip(expected).all(|(f, e)| f.starts_with(e))
    };
    let (json, kept) = check_repo_three_ways(&sandbox, &repo.dir);
    assert!(
        kept,
        "the findings of an unchanged repository are remembered"
    );
    assert!(
        starts(&claims_of(&json), &[gone]),
        "{:#?}",
        claims_of(&json)
    );

    // The symbol's file edited in place, its size and modification time kept.
    let ledger = repo.path("src/ledger.rs");
    rewrite_keeping_size_and_modification_time(&ledger, "pub struct RefundLedgex;\n");
    sandbox.settle();
    let missing_symbol = "claim-missing-symbol: `RefundLedger` occurs in no tracked file";
    let (json, kept) = check_repo_three_ways(&sandbox, &repo.dir);
    assert!(kept);
    let found = claims_of(&json);
    assert!(starts(&found, &[missing_symbol, gone]), "{found:#?}");

    // Back, then the file removed from the work tree only.
    rewrite_keeping_size_and_modification_time(&ledger, "pub struct RefundLedger;\n");
    sandbox.settle();
    let (json, _) = check_repo_three_ways(&sandbox, &repo.dir);
    assert!(
        starts(&claims_of(&json), &[gone]),
        "{:#?}",
        claims_of(&json)
    );
    fs::remove_file(&ledger).unwrap();
    sandbox.settle();
    let (json, kept) = check_repo_three_ways(&sandbox, &repo.dir);
    assert!(kept);
    let found = claims_of(&json);
    assert!(starts(&found, &[missing_symbol, gone]), "{found:#?}");
    repo.git(&["checkout", "--", "src/ledger.rs"]);

    // A rename committed: the path claim says where the file went.
    repo.git(&["mv", "src/api/refunds.rs", "src/api/payouts.rs"]);
    repo.commit_all("rename refunds");
    sandbox.settle();
    let (json, kept) = check_repo_three_ways(&sandbox, &repo.dir);
    assert!(kept);
    let found = claims_of(&json);
    let renamed = "claim-missing-path: `src/api/refunds.rs` was renamed to `src/api/payouts.rs`";
    assert!(starts(&found, &[renamed, gone]), "{found:#?}");

    // The ignore rule dropped from the work tree's `.gitignore`: the generated file is a
    // claim about the code again.
    rewrite_keeping_size_and_modification_time(&repo.path(".gitignore"), "src/generatex.rs\n");
    sandbox.settle();
    let (json, kept) = check_repo_three_ways(&sandbox, &repo.dir);
    assert!(kept);
    let found = claims_of(&json);
    let generated = "claim-missing-path: `src/generated.rs` is not in the work tree";
    assert!(starts(&found, &[renamed, generated, gone]), "{found:#?}");

    // The bank edited: its new claim is checked.
    write(
        &patterns,
        "# Patterns\n\n`RefundLedger` keeps refunds, served from `src/api/refunds.rs`.\nThe schema is generated into `src/generated.rs`; `src/gone.rs` went.\n`PayoutBatcher` batches them.\n",
    );
    sandbox.settle();
    let (json, kept) = check_repo_three_ways(&sandbox, &repo.dir);
    assert!(kept);
    let found = claims_of(&json);
    let batcher = "claim-missing-symbol: `PayoutBatcher` occurs in no tracked file";
    assert!(
        starts(&found, &[renamed, generated, gone, batcher]),
        "{found:#?}"
    );
}

/// Every run exits and prints as the first one did.
fn assert_all_alike(runs: &[common::Run]) {
    for run in &runs[1..] {
        assert_eq!(
            (run.code, &run.stdout),
            (runs[0].code, &runs[0].stdout),
            "a warm or uncached check differs\nstderr:\n{}",
            run.stderr
        );
    }
}
