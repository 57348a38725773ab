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
    for runs in [&texts, &jsons] {
        for run in &runs[1..] {
            assert_eq!(
                (run.code, &run.stdout),
                (runs[0].code, &runs[0].stdout),
                "a warm or uncached check differs\nstderr:\n{}",
                run.stderr
            );
        }
    }
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
