//! Rows of `mbank list` remembered between runs (`core::analysis::rows`): a warm run
//! prints exactly what an analysis prints, every input a row was derived from is checked
//! (a change anywhere makes that row be analysed again), and rows that depend on
//! something the checks cannot vouch for are never remembered. Files changed less than
//! two seconds before a run are never trusted, so the runs' clock is moved that far ahead
//! before each run that should remember (`Sandbox::settle`).
use crate::common;

use std::fs;
use std::path::Path;

use common::{Run, Sandbox, git_output, git_stdout, write};
use mbank::core::analysis::rows::RememberedRows;

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn list(sandbox: &Sandbox, root: &Path, json: bool) -> Run {
    let mut args = vec!["list", "--root", s(root)];
    if json {
        args.push("--json");
    }
    let run = sandbox.run(&args);
    run.expect_code(0);
    run
}

/// `list --json` with the sandbox's caches, and the same with an empty cache folder:
/// byte for byte the same. Returns the output.
fn list_both_ways(sandbox: &Sandbox, root: &Path) -> String {
    let remembered = list(sandbox, root, true).stdout;
    let empty = tempfile::tempdir().unwrap();
    let fresh = sandbox.run_env(
        &["list", "--root", s(root), "--json"],
        "MBANK_CACHE_DIR",
        empty.path(),
    );
    fresh.expect_code(0);
    assert_eq!(
        remembered, fresh.stdout,
        "remembered and analysed rows differ"
    );
    remembered
}

/// Whether the row remembered for `root/name` still holds on disk as it is now.
fn row_holds(sandbox: &Sandbox, root: &Path, name: &str) -> bool {
    let rows = RememberedRows::inspect(&sandbox.cache_dir(), root);
    let checked = rows.check();
    rows.index_of(&root.join(name))
        .is_some_and(|index| checked.row_holds(index))
}

fn git(dir: &Path, home: &Path, args: &[&str]) -> String {
    git_stdout(args, git_output(dir, home, &[], args))
}

/// `list_cache`'s tree (a Cline, a ConKeeper, a CLAUDE.md with a rule, an Infinity store
/// and a folder with no memory), a ConKeeper bank big enough for its budget to matter,
/// and a Cline bank in a git repository of its own.
fn build_tree(root: &Path, home: &Path) {
    crate::list_cache::build_tree(root);
    write(
        &root.join("keeper/.claude/memory/active-context.md"),
        // About 720 tokens: over the light preset's 450 for the active context (the tree's
        // `.memory-config.md`), near the detailed preset's 800: a change of preset changes
        // the row whatever second the files were written in.
        &"- a line of what is active now\n".repeat(80),
    );
    let repo = root.join("repo");
    write(
        &repo.join("memory-bank/progress.md"),
        "# Progress\n\nStarted.\n",
    );
    git(&repo, home, &["init", "-q", "-b", "main"]);
    git(&repo, home, &["add", "."]);
    git(&repo, home, &["commit", "-q", "-m", "start"]);
}

#[test]
fn a_warm_list_prints_its_remembered_rows_exactly_as_an_analysis_would() {
    let sandbox = Sandbox::new();
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().join("root");
    build_tree(&root, sandbox.home());
    sandbox.settle();

    let analysed = list(&sandbox, &root, true).stdout;
    let table = list(&sandbox, &root, false).stdout;
    let rows = RememberedRows::inspect(&sandbox.cache_dir(), &root);
    assert_eq!(rows.len(), 5, "every project is remembered");
    assert!(
        rows.check().all_hold(),
        "an unchanged tree is answered from memory"
    );

    assert_eq!(list(&sandbox, &root, true).stdout, analysed);
    assert_eq!(list_both_ways(&sandbox, &root), analysed);
    assert_eq!(list(&sandbox, &root, false).stdout, table);
    for sort in ["name", "activity", "tokens"] {
        let remembered = sandbox.run(&["list", "--root", s(&root), "--sort", sort]);
        let empty = tempfile::tempdir().unwrap();
        let fresh = sandbox.run_env(
            &["list", "--root", s(&root), "--sort", sort],
            "MBANK_CACHE_DIR",
            empty.path(),
        );
        assert_eq!(remembered.stdout, fresh.stdout, "sorted by {sort}");
    }
}

#[test]
fn every_input_of_a_row_is_checked_and_a_change_shows_as_an_analysis_shows_it() {
    let sandbox = Sandbox::new();
    let home = sandbox.home().to_path_buf();
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().join("root");
    build_tree(&root, &home);
    sandbox.settle();
    list(&sandbox, &root, true);

    type Change<'a> = (&'a str, Box<dyn Fn() + 'a>);
    let changes: Vec<Change> = vec![
        (
            "cline",
            Box::new(|| {
                let file = root.join("cline/memory-bank/activeContext.md");
                let text = fs::read_to_string(&file).unwrap();
                write(
                    &file,
                    &format!("{text}\nA much longer note on what goes on now.\n"),
                );
            }),
        ),
        (
            "cline",
            Box::new(|| write(&root.join("cline/memory-bank/techContext.md"), "# Tech\n")),
        ),
        (
            "cline",
            Box::new(|| fs::remove_file(root.join("cline/memory-bank/progress.md")).unwrap()),
        ),
        (
            "cline",
            Box::new(|| write(&root.join("cline/CLAUDE.md"), "# Also Claude\n\nHello.\n")),
        ),
        (
            "keeper",
            Box::new(|| {
                write(
                    &root.join("keeper/.claude/memory/.memory-config.md"),
                    "---\ntoken_budget: detailed\n---\n",
                )
            }),
        ),
        (
            "claude",
            Box::new(|| {
                write(
                    &root.join("claude/.claude/rules/api.md"),
                    "# Api rules\n\nValidate every input.\n",
                )
            }),
        ),
        (
            "inf",
            Box::new(|| {
                write(
                    &root.join("inf/.infinity/memories.json"),
                    r##"{"project_id":"p","memories":[{"id":"m1","title":"Plan","type":"implementation_plan","content":"# Plan","created_at":"2025-01-01T00:00:00Z"},{"id":"m2","title":"Rules","type":"rules","content":"# Rules","created_at":"2025-01-02T00:00:00Z"}]}"##,
                )
            }),
        ),
        (
            "repo",
            Box::new(|| {
                let repo = root.join("repo");
                write(&repo.join("notes.txt"), "code, not memory\n");
                git(&repo, &home, &["add", "."]);
                git(&repo, &home, &["commit", "-q", "-m", "more"]);
            }),
        ),
    ];
    for (name, change) in &changes {
        sandbox.settle();
        list(&sandbox, &root, true);
        assert!(row_holds(&sandbox, &root, name), "{name} is remembered");
        let before = list_both_ways(&sandbox, &root);
        change();
        assert!(
            !row_holds(&sandbox, &root, name),
            "a change in {name} is seen by the check"
        );
        let others = ["cline", "keeper", "claude", "inf", "repo"];
        for other in others.iter().filter(|other| *other != name) {
            assert!(row_holds(&sandbox, &root, other), "{other} is untouched");
        }
        let after = list_both_ways(&sandbox, &root);
        // A commit that touches no memory file changes what git says, not the row.
        if *name != "repo" {
            assert_ne!(before, after, "the change to {name} shows");
        }
    }

    // A folder with no memory gains some: discovery's own folders are checked too.
    sandbox.settle();
    list(&sandbox, &root, true);
    write(&root.join("plain/CLAUDE.md"), "# Plain has memory now\n");
    assert!(
        !RememberedRows::inspect(&sandbox.cache_dir(), &root)
            .check()
            .discovery_holds
    );
    assert!(list_both_ways(&sandbox, &root).contains("\"name\": \"plain\""));

    // A repository made above the projects: each project's place in git is checked.
    sandbox.settle();
    list(&sandbox, &root, true);
    assert!(row_holds(&sandbox, &root, "cline"));
    git(&root, &home, &["init", "-q", "-b", "main"]);
    assert!(!row_holds(&sandbox, &root, "cline"));
    list_both_ways(&sandbox, &root);
}

#[test]
fn an_edit_that_keeps_size_and_modification_time_still_fails_the_check() {
    let sandbox = Sandbox::new();
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().join("root");
    build_tree(&root, sandbox.home());
    sandbox.settle();
    list(&sandbox, &root, true);
    assert!(row_holds(&sandbox, &root, "cline"));
    let file = root.join("cline/memory-bank/progress.md");
    let text = fs::read_to_string(&file).unwrap();
    // As many bytes, more tokens: the row printed after the edit must be the one a
    // fresh analysis prints.
    let edited = text.replace("Text.", "T;e;x");
    assert_ne!(edited, text);
    common::rewrite_keeping_size_and_modification_time(&file, &edited);
    assert!(
        !row_holds(&sandbox, &root, "cline"),
        "the change time differs"
    );
    list_both_ways(&sandbox, &root);
}

#[cfg(unix)]
#[test]
fn a_row_whose_memory_leads_through_a_link_is_remembered_by_where_the_link_leads() {
    let sandbox = Sandbox::new();
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().join("root");
    build_tree(&root, sandbox.home());
    // A link inside the project to a folder inside it: read through, so what it leads
    // to can change while no folder the row listed does.
    let target = root.join("linked/docs/bank");
    write(&target.join("progress.md"), "# Progress\n\nKept in docs.\n");
    std::os::unix::fs::symlink("docs/bank", root.join("linked/memory-bank")).unwrap();
    // A link leading nowhere yet, where a bank would be.
    write(&root.join("dangling/CLAUDE.md"), "# Dangling\n\nRules.\n");
    std::os::unix::fs::symlink("../store/bank", root.join("dangling/memory-bank")).unwrap();
    sandbox.settle();
    let before = list_both_ways(&sandbox, &root);
    assert!(before.contains("\"path\": \"") && before.contains("/root/linked\""));
    list(&sandbox, &root, true);
    for name in ["linked", "dangling", "cline"] {
        assert!(row_holds(&sandbox, &root, name), "{name} is remembered");
    }

    // The file the link leads to is edited: no folder of the project changes.
    write(
        &target.join("progress.md"),
        "# Progress\n\nKept in docs, and now much longer than it was before.\n",
    );
    assert!(!row_holds(&sandbox, &root, "linked"));
    let edited = list_both_ways(&sandbox, &root);
    assert_ne!(edited, before);

    // Where the dangling link points comes to hold a bank.
    write(
        &root.join("store/bank/progress.md"),
        "# Progress\n\nFound.\n",
    );
    assert!(!row_holds(&sandbox, &root, "dangling"));
    let found = list_both_ways(&sandbox, &root);
    assert_ne!(found, edited);
    assert!(
        found.contains("/root/dangling/memory-bank"),
        "the link now leads to a bank: {found}"
    );
}

#[test]
fn a_broken_rows_file_remembers_nothing() {
    let sandbox = Sandbox::new();
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().join("root");
    build_tree(&root, sandbox.home());
    sandbox.settle();
    let good = list_both_ways(&sandbox, &root);
    let file = sandbox.cache_dir().join(RememberedRows::file_name(&root));
    let bytes = fs::read(&file).expect("the rows were remembered");
    let mut flipped = bytes.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    for broken in [
        b"garbage".to_vec(),
        bytes[..bytes.len() / 2].to_vec(),
        flipped,
        Vec::new(),
    ] {
        fs::write(&file, &broken).unwrap();
        assert!(RememberedRows::inspect(&sandbox.cache_dir(), &root).is_empty());
        assert_eq!(list_both_ways(&sandbox, &root), good);
    }
}

#[test]
fn memory_kept_for_a_project_in_the_home_folder_shows_as_soon_as_it_is_made() {
    use mbank::core::formats::claude_auto_memory::memory_folder;
    let sandbox = Sandbox::new();
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().join("root");
    build_tree(&root, sandbox.home());
    // Claude Code keeps a folder for a project it has run in before it keeps memory.
    let cline_memory = memory_folder(sandbox.home(), &root.join("cline"));
    fs::create_dir_all(cline_memory.parent().unwrap()).unwrap();
    sandbox.settle();
    let before = list_both_ways(&sandbox, &root);
    list(&sandbox, &root, true);
    assert!(row_holds(&sandbox, &root, "cline"));
    write(
        &cline_memory.join("MEMORY.md"),
        "# Memory\n\n- kept by Claude\n",
    );
    assert!(!row_holds(&sandbox, &root, "cline"));
    let after = list_both_ways(&sandbox, &root);
    assert_ne!(after, before);
    assert!(after.contains("claude-auto-memory"));

    // A project Claude Code had no folder for: the folder of folders changes.
    sandbox.settle();
    list(&sandbox, &root, true);
    let keeper_memory = memory_folder(sandbox.home(), &root.join("keeper"));
    write(
        &keeper_memory.join("MEMORY.md"),
        "# Memory\n\n- kept for keeper\n",
    );
    let last = list_both_ways(&sandbox, &root);
    assert_eq!(last.matches("claude-auto-memory").count(), 2, "{last}");
}

#[test]
fn the_demo_leaves_no_listing_or_rows_of_its_passing_copy_behind() {
    let sandbox = Sandbox::new();
    for _ in 0..2 {
        let run = sandbox.run(&["--demo", "list"]);
        run.expect_code(0);
        assert!(run.stdout.contains("projects under"), "{}", run.stdout);
    }
    let left: Vec<String> = fs::read_dir(sandbox.cache_dir())
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| name.starts_with("listing-") || name.starts_with("rows-"))
                .collect()
        })
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}
