//! The headless CLI, run as a user would: the real binary in a sandboxed HOME (its own
//! XDG folders and cache) over banks we write into temp folders. Every subcommand's text
//! and JSON output, exit codes 0 / 1 / 2, `--help`, root precedence, configuration errors
//! with file:line, `init` and `--demo` (`tokens`: `cli_tokens`).
//! (`timeline` belongs to the decisions work and is tested there.)
use crate::common;

use std::fs;
use std::path::Path;

use crate::cli_tokens::{conkeeper_with_private, reference_count};
use common::{Sandbox, write};
use mbank::core::tokens::{self, Encoding};
use serde_json::Value;

/// The seven Cline core files, filled in: no findings at all.
const CLINE_FILES: [&str; 7] = [
    "projectbrief.md",
    "productContext.md",
    "systemPatterns.md",
    "techContext.md",
    "activeContext.md",
    "progress.md",
    "decisionLog.md",
];

fn healthy_cline(project: &Path) {
    for name in CLINE_FILES {
        write(
            &project.join("memory-bank").join(name),
            &format!("# {name}\n\nFilled in: see [docs](https://example.org).\n- [ ] a task\n"),
        );
    }
}

/// A Cline bank with one warning (a file without a heading) and nothing worse.
fn cline_with_warning(project: &Path) {
    healthy_cline(project);
    write(
        &project.join("memory-bank/notes.md"),
        "Just some notes, no heading at all.\n",
    );
}

/// A Cline bank missing its required brief: an error.
/// Four of Cline's own file names prove a Cline bank; it lacks the brief.
fn cline_with_error(project: &Path) {
    for (name, heading) in [
        ("activeContext.md", "Active"),
        ("progress.md", "Progress"),
        ("productContext.md", "Product"),
        ("systemPatterns.md", "Patterns"),
        ("techContext.md", "Tech"),
    ] {
        write(
            &project.join("memory-bank").join(name),
            &format!("# {heading}\n\nWorking on the parser.\n"),
        );
    }
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn names(list: &Value) -> Vec<String> {
    list["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

fn project<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no project {name} in {json:#}"))
}

// ---------------------------------------------------------------- help and usage

#[test]
fn every_subcommand_has_help() {
    let sandbox = Sandbox::new();
    let top = sandbox.run(&["--help"]);
    top.expect_code(0);
    for word in [
        "list",
        "check",
        "tokens",
        "timeline",
        "init",
        "context",
        "Exit codes",
    ] {
        assert!(top.stdout.contains(word), "top-level help lacks {word}");
    }
    for (command, must_mention) in [
        ("list", "--json"),
        ("check", "--fail-on"),
        ("tokens", "--encoding"),
        ("timeline", "--json"),
        ("init", "--format"),
        ("context", "--bank"),
    ] {
        let help = sandbox.run(&[command, "--help"]);
        help.expect_code(0);
        assert!(
            help.stdout.contains("Usage: mbank") && help.stdout.contains(must_mention),
            "`mbank {command} --help` lacks {must_mention}:\n{}",
            help.stdout
        );
        assert!(help.stdout.contains("--root"), "{command}: global --root");
    }
}

#[test]
fn usage_errors_exit_2() {
    let sandbox = Sandbox::new();
    for args in [
        &["list", "--bogus"][..],
        &["tokens"][..],
        &["check", "--fail-on", "fatal"][..],
        &["nonsense"][..],
        &["--encoding", "gpt2", "list"][..],
    ] {
        let run = sandbox.run(args);
        run.expect_code(2);
        assert!(!run.stderr.is_empty(), "{args:?}: no message");
    }
}

// ---------------------------------------------------------------- root and config

#[test]
fn a_missing_root_says_where_mbank_looked_and_how_to_set_it() {
    let sandbox = Sandbox::new();
    let nowhere = sandbox.home().join("no-such-root");
    for args in [
        vec!["list", "--root", s(&nowhere)],
        vec!["check", "--root", s(&nowhere)],
        vec!["context", "--root", s(&nowhere)],
    ] {
        let run = sandbox.run(&args);
        run.expect_code(2);
        assert!(run.stderr.contains(s(&nowhere)), "{}", run.stderr);
        assert!(run.stderr.contains("from --root"), "{}", run.stderr);
        for how in ["--root", "MEMORY_BANK_ROOT", "root = ", "--demo"] {
            assert!(run.stderr.contains(how), "no {how:?} in {}", run.stderr);
        }
    }
    // With nothing set, the default ~/memory-banks is named.
    let run = sandbox.run(&["list"]);
    run.expect_code(2);
    let default = sandbox.home().join("memory-banks");
    assert!(run.stderr.contains(s(&default)), "{}", run.stderr);
    assert!(run.stderr.contains("default"), "{}", run.stderr);
    // From the environment, the message says so.
    let run = sandbox.run_env(&["list"], "MEMORY_BANK_ROOT", &nowhere);
    run.expect_code(2);
    assert!(
        run.stderr.contains("from MEMORY_BANK_ROOT"),
        "{}",
        run.stderr
    );
}

#[test]
fn root_precedence_is_flag_then_environment_then_config() {
    let sandbox = Sandbox::new();
    let roots = tempfile::tempdir().unwrap();
    let (flag, env, configured) = (
        roots.path().join("flag"),
        roots.path().join("env"),
        roots.path().join("configured"),
    );
    healthy_cline(&flag.join("from-flag"));
    healthy_cline(&env.join("from-env"));
    healthy_cline(&configured.join("from-config"));
    write(
        &sandbox.config_dir().join("config.toml"),
        &format!("# mbank settings\nroot = {:?}\n", s(&configured)),
    );

    let run = sandbox.run_env(
        &["list", "--json", "--root", s(&flag)],
        "MEMORY_BANK_ROOT",
        &env,
    );
    run.expect_code(0);
    assert_eq!(names(&run.json()), vec!["from-flag"]);
    assert_eq!(run.json()["root"], s(&flag));

    let run = sandbox.run_env(&["list", "--json"], "MEMORY_BANK_ROOT", &env);
    run.expect_code(0);
    assert_eq!(names(&run.json()), vec!["from-env"]);

    let run = sandbox.run(&["list", "--json"]);
    run.expect_code(0);
    assert_eq!(names(&run.json()), vec!["from-config"]);

    // --config FILE replaces the platform file.
    let other = roots.path().join("other.toml");
    write(&other, &format!("root = {:?}\n", s(&flag)));
    let run = sandbox.run(&["list", "--json", "--config", s(&other)]);
    run.expect_code(0);
    assert_eq!(names(&run.json()), vec!["from-flag"]);
}

#[test]
fn config_errors_name_the_file_and_line() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    healthy_cline(&root.path().join("alpha"));
    let config = sandbox.config_dir().join("config.toml");
    for (text, line, word) in [
        ("scan_depth = 2\n\ncolour = \"red\"\n", 3, "colour"),
        ("# comment\ntokenizer = \"gpt2\"\n", 2, "gpt2"),
        ("scan_depth = 0\n", 1, "scan_depth"),
        ("[budgets.formats.nope]\ntotal = 1\n", 1, "nope"),
        ("ignore = [\"a[\"]\n", 1, "glob"),
        ("root = 5\n", 1, "expected a string"),
    ] {
        write(&config, text);
        let run = sandbox.run(&["list", "--root", s(root.path())]);
        run.expect_code(2);
        let place = format!("{}:{line}:", config.display());
        assert!(
            run.stderr.contains(&place) && run.stderr.contains(word),
            "config {text:?}: wanted {place} and {word:?} in {}",
            run.stderr
        );
    }
    // A valid file with every section works.
    write(
        &config,
        "tokenizer = \"cl100k\"\nscan_depth = 3\nignore = [\"skip-*\"]\n\
         [budgets.formats.cline]\ntotal = 6000\nper_file = 1200\n\
         [budgets.files]\n\"activeContext.md\" = 800\n\
         [staleness]\nstaleness_commits = 8\n[staleness.cadence_days]\nactive = 2\n",
    );
    healthy_cline(&root.path().join("skip-me"));
    let run = sandbox.run(&["list", "--json", "--root", s(root.path())]);
    run.expect_code(0);
    let json = run.json();
    assert_eq!(json["encoding"], "cl100k_base");
    assert_eq!(names(&json), vec!["alpha"]);
}

#[test]
fn a_config_file_named_with_the_flag_must_exist_but_the_default_one_need_not() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    healthy_cline(&root.path().join("alpha"));
    let missing = sandbox.home().join("missing.toml");
    let run = sandbox.run(&["list", "--root", s(root.path()), "--config", s(&missing)]);
    run.expect_code(2);
    assert!(
        run.stderr.contains(s(&missing)) && run.stderr.contains("does not exist"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.is_empty(),
        "nothing ran on defaults: {}",
        run.stdout
    );
    // A link to nowhere names no file either.
    #[cfg(unix)]
    {
        let dangling = sandbox.home().join("dangling.toml");
        std::os::unix::fs::symlink(&missing, &dangling).unwrap();
        let run = sandbox.run(&["list", "--root", s(root.path()), "--config", s(&dangling)]);
        run.expect_code(2);
        assert!(run.stderr.contains(s(&dangling)), "{}", run.stderr);
    }
    // A named file that does not parse is an error too.
    let broken = sandbox.home().join("broken.toml");
    write(&broken, "scan_depth = \"deep\"\n");
    let run = sandbox.run(&["list", "--root", s(root.path()), "--config", s(&broken)]);
    run.expect_code(2);
    assert!(run.stderr.contains(s(&broken)), "{}", run.stderr);
    // No file at the default location is the default configuration.
    assert!(!sandbox.config_dir().join("config.toml").exists());
    let run = sandbox.run(&["list", "--json", "--root", s(root.path())]);
    run.expect_code(0);
    assert_eq!(names(&run.json()), vec!["alpha"]);
    // `--config /dev/null` says "no configuration".
    let run = sandbox.run(&[
        "list",
        "--json",
        "--root",
        s(root.path()),
        "--config",
        "/dev/null",
    ]);
    run.expect_code(0);
    assert_eq!(names(&run.json()), vec!["alpha"]);
}

// ---------------------------------------------------------------- list

#[test]
fn list_text_and_json() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    healthy_cline(&r.join("alpha"));
    write(&r.join("beta/CLAUDE.md"), "# Beta rules\n\nUse tabs.\n");
    write(
        &r.join("beta/.claude/memory/active-context.md"),
        "# Active context\n\nShipping 1.2.\n",
    );
    write(&r.join("not-a-project/README.md"), "# Nothing here\n");

    let text = sandbox.run(&["list", "--root", s(r), "--sort", "name"]);
    text.expect_code(0);
    let lines: Vec<&str> = text.stdout.lines().collect();
    for column in [
        "project",
        "formats",
        "files",
        "tokens",
        "budget",
        "staleness",
    ] {
        assert!(lines[0].contains(column), "header: {}", lines[0]);
    }
    assert!(
        lines[1].starts_with("alpha") && lines[1].contains("cline"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("beta") && lines[2].contains("claude-md,conkeeper"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].starts_with("2 projects under") && lines[3].contains("o200k_base"),
        "{}",
        lines[3]
    );
    assert!(!text.stdout.contains("not-a-project"));

    let run = sandbox.run(&["list", "--json", "--root", s(r), "--sort", "name"]);
    run.expect_code(0);
    let json = run.json();
    assert_eq!(json["schema"], "mbank.list/1");
    assert_eq!(json["root"], s(r));
    assert_eq!(json["encoding"], "o200k_base");
    assert_eq!(names(&json), vec!["alpha", "beta"]);
    let alpha = project(&json, "alpha");
    assert_eq!(alpha["path"], s(&r.join("alpha")));
    assert_eq!(alpha["formats"], serde_json::json!(["cline"]));
    assert_eq!(alpha["files"], 7);
    let expected_tokens: usize = CLINE_FILES
        .iter()
        .map(|n| {
            let text = fs::read_to_string(r.join("alpha/memory-bank").join(n)).unwrap();
            tokens::count(Encoding::O200k, &text)
        })
        .sum();
    assert_eq!(alpha["loaded_tokens"], expected_tokens);
    assert_eq!(alpha["private_tokens"], 0);
    assert_eq!(alpha["complete"], true);
    assert_eq!(alpha["budget"], "ok");
    assert_eq!(alpha["staleness"], "fresh");
    assert!(alpha["last_write"].as_u64().unwrap() > 1_600_000_000);
    let beta = project(&json, "beta");
    assert_eq!(
        beta["formats"],
        serde_json::json!(["claude-md", "conkeeper"])
    );
    assert_eq!(beta["files"], 2);

    // --sort tokens puts the bigger bank first.
    let run = sandbox.run(&["list", "--json", "--root", s(r), "--sort", "tokens"]);
    assert_eq!(names(&run.json()), vec!["alpha", "beta"]);
}

#[test]
fn list_of_an_empty_root_says_how_to_start() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let run = sandbox.run(&["list", "--root", s(root.path())]);
    run.expect_code(0);
    assert!(
        run.stdout.contains("No memory banks under") && run.stdout.contains("mbank init"),
        "{}",
        run.stdout
    );
    let run = sandbox.run(&["list", "--json", "--root", s(root.path())]);
    assert_eq!(run.json()["projects"], serde_json::json!([]));
}

#[test]
fn a_second_list_reads_figures_from_the_cache() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    healthy_cline(&root.path().join("alpha"));
    let first = sandbox.run(&["list", "--json", "--root", s(root.path())]);
    first.expect_code(0);
    let cache = sandbox.cache_dir().join("tokens-o200k_base.bin");
    assert!(cache.is_file(), "no token cache at {}", cache.display());
    let written = fs::metadata(&cache).unwrap().modified().unwrap();
    let second = sandbox.run(&["list", "--json", "--root", s(root.path())]);
    assert_eq!(first.json()["projects"], second.json()["projects"]);
    // Nothing changed, so nothing new was counted and the cache was not rewritten.
    assert_eq!(fs::metadata(&cache).unwrap().modified().unwrap(), written);
}

// ---------------------------------------------------------------- check

#[test]
fn check_exit_codes_follow_fail_on() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    healthy_cline(&r.join("clean"));
    cline_with_warning(&r.join("warned"));
    cline_with_error(&r.join("broken"));

    let clean = r.join("clean");
    let run = sandbox.run(&["check", s(&clean)]);
    run.expect_code(0);
    assert!(run.stdout.contains("clean clean"), "{}", run.stdout);
    sandbox
        .run(&["check", s(&clean), "--fail-on", "info"])
        .expect_code(0);

    let warned = r.join("warned");
    let run = sandbox.run(&["check", s(&warned)]);
    run.expect_code(0);
    assert!(
        run.stdout.contains("warning") && run.stdout.contains("memory-bank/notes.md"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("[no-heading]"), "{}", run.stdout);
    sandbox
        .run(&["check", s(&warned), "--fail-on", "warning"])
        .expect_code(1);
    sandbox
        .run(&["check", s(&warned), "--fail-on", "info"])
        .expect_code(1);

    let broken = r.join("broken");
    let run = sandbox.run(&["check", s(&broken)]);
    run.expect_code(1);
    assert!(run.stdout.contains("FAIL"), "{}", run.stdout);
    assert!(
        run.stdout.contains("[missing-required-file]"),
        "{}",
        run.stdout
    );

    // The whole root fails when one project does.
    sandbox.run(&["check", "--root", s(r)]).expect_code(1);
    // A PATH that is no project and holds none is an error, not a clean pass.
    let empty = tempfile::tempdir().unwrap();
    let run = sandbox.run(&["check", s(empty.path())]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("no memory bank found"),
        "{}",
        run.stderr
    );
    let run = sandbox.run(&["check", s(&r.join("missing"))]);
    run.expect_code(2);
    assert!(run.stderr.contains(s(&r.join("missing"))), "{}", run.stderr);
}

#[test]
fn check_reports_conflict_markers_left_in_memory_files() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("merged");
    healthy_cline(&project);
    write(
        &project.join("memory-bank/activeContext.md"),
        "# Active\n\nWorking on:\n<<<<<<< HEAD\n- the parser\n=======\n- the lexer\n>>>>>>> agent\n",
    );
    // A setext heading underlined with seven `=` is markdown, not a marker.
    write(
        &project.join("memory-bank/progress.md"),
        "Progress\n=======\n\n- [ ] a task\n",
    );
    let run = sandbox.run(&["check", s(&project)]);
    run.expect_code(1);
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("[conflict-markers]"))
        .unwrap_or_else(|| panic!("no conflict-markers finding:\n{}", run.stdout));
    assert!(line.contains("error"), "{line}");
    assert!(line.contains("memory-bank/activeContext.md:4"), "{line}");
    assert!(line.contains("1 unresolved conflict"), "{line}");
    assert_eq!(
        run.stdout.matches("[conflict-markers]").count(),
        1,
        "{}",
        run.stdout
    );

    let json = sandbox.run(&["check", "--json", s(&project)]).json();
    let codes: Vec<&str> = json["projects"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["code"].as_str())
        .collect();
    assert!(codes.contains(&"conflict-markers"), "{codes:?}");
}

#[test]
fn check_json_schema() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    cline_with_warning(&r.join("warned"));
    cline_with_error(&r.join("broken"));
    let run = sandbox.run(&["check", "--json", "--root", s(r), "--fail-on", "warning"]);
    run.expect_code(1);
    let json = run.json();
    assert_eq!(json["schema"], "mbank.check/1");
    assert_eq!(json["encoding"], "o200k_base");
    assert_eq!(json["fail_on"], "warning");
    assert_eq!(json["failed"], true);
    let all: Vec<&Value> = json["projects"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["findings"].as_array().unwrap())
        .collect();
    for severity in ["error", "warning", "info"] {
        let counted = all.iter().filter(|f| f["severity"] == severity).count();
        assert_eq!(json["summary"][severity], counted, "{severity}");
    }
    let broken = project(&json, "broken");
    assert_eq!(broken["path"], s(&r.join("broken")));
    let missing = broken["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "missing-required-file")
        .expect("missing-required-file");
    assert_eq!(missing["severity"], "error");
    assert_eq!(missing["file"], s(&r.join("broken/memory-bank")));
    assert!(missing["line"].is_null());
    assert!(
        missing["message"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("projectbrief"),
        "{missing}"
    );
    let warned = project(&json, "warned");
    let no_heading = &warned["findings"][0];
    assert_eq!(no_heading["code"], "no-heading");
    assert_eq!(no_heading["severity"], "warning");
    assert_eq!(
        no_heading["file"],
        s(&r.join("warned/memory-bank/notes.md"))
    );
}

// ---------------------------------------------------------------- context

#[test]
fn context_shows_what_loads_in_read_order() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(
        &p.join("CLAUDE.md"),
        "# App rules\n\nSee the conventions.\n@docs/conventions.md\n",
    );
    write(
        &p.join("docs/conventions.md"),
        "# Conventions\n\nSnake case everywhere.\n",
    );
    conkeeper_with_private(&p);

    let run = sandbox.run(&["context", s(&p), "--json"]);
    run.expect_code(0);
    let json = run.json();
    assert_eq!(json["schema"], "mbank.context/1");
    assert_eq!(json["encoding"], "o200k_base");
    let project = &json["projects"][0];
    assert_eq!(project["name"], "app");
    let banks = project["banks"].as_array().unwrap();
    let formats: Vec<&str> = banks
        .iter()
        .map(|b| b["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats, vec!["claude-md", "conkeeper"]);

    let claude = &banks[0];
    let pieces: Vec<&str> = claude["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["display"].as_str().unwrap())
        .collect();
    assert_eq!(pieces, vec!["CLAUDE.md", "docs/conventions.md"]);
    let imported = &claude["pieces"][1];
    assert_eq!(
        imported["via"],
        serde_json::json!([s(&p.join("CLAUDE.md"))])
    );
    assert_eq!(imported["scope"], "project");
    assert_eq!(
        imported["tokens"],
        reference_count(Encoding::O200k, imported["text"].as_str().unwrap())
    );

    let keeper = &banks[1];
    let patterns = keeper["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["display"] == ".claude/memory/patterns.md")
        .unwrap();
    // ConKeeper strips <private> blocks and skips private files.
    assert!(!patterns["text"].as_str().unwrap().contains("password"));
    assert!(
        keeper["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["file"].as_str().unwrap().ends_with("secrets.md"))
    );
    let sum: u64 = banks
        .iter()
        .map(|b| b["total_tokens"].as_u64().unwrap())
        .sum();
    // CLAUDE.md and ConKeeper both load in Claude Code's session: one session, the sum.
    // Zed's session includes CLAUDE.md, the first of its list here, whole (no imports);
    // opencode's too, there being no AGENTS.md.
    let sessions = project["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 3, "{sessions:?}");
    assert_eq!(sessions[2]["agent"], "opencode");
    assert_eq!(sessions[0]["agent"], "claude-code");
    assert_eq!(sessions[0]["total_tokens"], sum);
    assert_eq!(sessions[1]["agent"], "zed");
    let zed_pieces = sessions[1]["banks"][0]["pieces"].as_array().unwrap();
    assert_eq!(zed_pieces.len(), 1, "{zed_pieces:?}");
    assert_eq!(zed_pieces[0]["display"], "CLAUDE.md");
    assert!(project.get("total_tokens").is_none());
    for bank in banks {
        let pieces_sum: u64 = bank["pieces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["tokens"].as_u64().unwrap())
            .sum();
        assert_eq!(bank["total_tokens"], pieces_sum);
    }

    let text = sandbox.run(&["context", s(&p)]);
    text.expect_code(0);
    assert!(text.stdout.starts_with("═══ app ═══"), "{}", text.stdout);
    assert!(
        text.stdout
            .contains("──── docs/conventions.md (imported via CLAUDE.md)"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("Snake case everywhere."));
    assert!(!text.stdout.contains("password"));
    assert!(text.stdout.contains("tokens at session start"));

    let only = sandbox.run(&["context", s(&p), "--json", "--bank", "conkeeper"]);
    only.expect_code(0);
    assert_eq!(
        only.json()["projects"][0]["banks"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let unknown = sandbox.run(&["context", s(&p), "--bank", "nope"]);
    unknown.expect_code(2);
    assert!(unknown.stderr.contains("conkeeper"), "{}", unknown.stderr);
}

// ---------------------------------------------------------------- init

#[test]
fn init_cline_creates_seven_files_and_never_overwrites() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("new-project");
    let run = sandbox.run(&[
        "init",
        s(&p),
        "--brief",
        "A tide-table API for sailors.",
        // The agent's instructions are a file beside the bank (tests/it/cli_init.rs).
        "--no-instructions",
    ]);
    run.expect_code(0);
    assert_eq!(
        run.stdout.matches("created memory-bank/").count(),
        8,
        "the folder and seven files: {}",
        run.stdout
    );
    let bank = p.join("memory-bank");
    let mut made: Vec<String> = fs::read_dir(&bank)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    made.sort();
    assert_eq!(
        made,
        vec![
            "activeContext.md",
            "decisionLog.md",
            "productContext.md",
            "progress.md",
            "projectBrief.md",
            "systemPatterns.md",
            "techContext.md"
        ]
    );
    let brief = fs::read_to_string(bank.join("projectBrief.md")).unwrap();
    assert!(brief.contains("A tide-table API for sailors."), "{brief}");

    fs::write(bank.join("progress.md"), "# Progress\n\nMine, keep it.\n").unwrap();
    fs::remove_file(bank.join("techContext.md")).unwrap();
    let again = sandbox.run(&["init", s(&p), "--no-instructions"]);
    again.expect_code(0);
    assert_eq!(
        again.stdout.matches("created").count(),
        1,
        "{}",
        again.stdout
    );
    assert!(
        again.stdout.contains("created memory-bank/techContext.md"),
        "{}",
        again.stdout
    );
    assert!(
        again
            .stdout
            .contains("memory-bank/progress.md (already there, left untouched)"),
        "{}",
        again.stdout
    );
    assert_eq!(
        fs::read_to_string(bank.join("progress.md")).unwrap(),
        "# Progress\n\nMine, keep it.\n"
    );
    assert_eq!(
        fs::read_to_string(bank.join("projectBrief.md")).unwrap(),
        brief
    );

    // The new bank is found and lists.
    let list = sandbox.run(&["list", "--json", "--root", s(dir.path())]);
    assert_eq!(project(&list.json(), "new-project")["files"], 7);
}

#[test]
fn init_conkeeper_creates_its_folders_and_config() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("keeper");
    // CLAUDE.md's import of the bank is tested in tests/it/cli_init.rs.
    let run = sandbox.run(&["init", s(&p), "--format", "conkeeper", "--no-instructions"]);
    run.expect_code(0);
    let memory = p.join(".claude/memory");
    for name in [
        "active-context.md",
        "product-context.md",
        "progress.md",
        "patterns.md",
        "glossary.md",
        ".memory-config.md",
    ] {
        assert!(memory.join(name).is_file(), "{name} not created");
    }
    assert!(memory.join("decisions").is_dir() && memory.join("sessions").is_dir());
    let before = fs::read_to_string(memory.join("patterns.md")).unwrap();
    fs::write(memory.join("patterns.md"), "# Patterns\n\nEdited.\n").unwrap();
    let again = sandbox.run(&["init", s(&p), "--format", "conkeeper", "--no-instructions"]);
    again.expect_code(0);
    assert!(!again.stdout.contains("created"), "{}", again.stdout);
    assert_ne!(before, "# Patterns\n\nEdited.\n");
    assert_eq!(
        fs::read_to_string(memory.join("patterns.md")).unwrap(),
        "# Patterns\n\nEdited.\n"
    );
    let list = sandbox.run(&["list", "--json", "--root", s(dir.path())]);
    assert_eq!(
        project(&list.json(), "keeper")["formats"],
        serde_json::json!(["conkeeper"])
    );
}

// ---------------------------------------------------------------- demo

#[test]
fn demo_root_works_with_every_read_command() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&["--demo", "list", "--json", "--sort", "name"]);
    run.expect_code(0);
    let json = run.json();
    let root = json["root"].as_str().unwrap().to_string();
    assert!(root.contains("mbank-demo-"), "{root}");
    // The demo copy is temporary: it is gone once the command ends.
    assert!(!Path::new(&root).exists(), "{root} left behind");
    let formats = |name: &str| project(&json, name)["formats"].clone();
    assert_eq!(formats("weather-api"), serde_json::json!(["cline"]));
    assert_eq!(
        formats("billing-roo"),
        serde_json::json!(["memory-bank-mcp", "roo-rules"])
    );
    assert_eq!(formats("ml-pipeline"), serde_json::json!(["infinity"]));
    assert_eq!(formats("mobile-app"), serde_json::json!(["conkeeper"]));
    assert_eq!(formats("gemini-cli-tool"), serde_json::json!(["gemini-md"]));
    assert_eq!(
        formats("storefront"),
        serde_json::json!(["claude-md", "agents-md"])
    );
    // The demo has a stale active context and an over-budget file: the file's finding is
    // check's, while the session that loads it stays within its bank's budget.
    assert_eq!(project(&json, "weather-api")["staleness"], "stale");
    assert_eq!(project(&json, "weather-api")["budget"], "ok");
    assert_eq!(project(&json, "weather-api")["budget_limit"], 5000);
    let check = sandbox
        .run(&["--demo", "check", "--json", "weather-api"])
        .json();
    assert!(
        check["projects"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "budget-over"
                && f["file"]
                    .as_str()
                    .unwrap()
                    .ends_with("memory-bank/techContext.md")),
        "{check}"
    );

    let text = sandbox.run(&["--demo", "list"]);
    text.expect_code(0);
    assert!(text.stdout.contains("weather-api"), "{}", text.stdout);
    let check = sandbox.run(&["--demo", "check", "--json"]);
    assert!(check.code == 0 || check.code == 1, "{}", check.stderr);
    assert_eq!(check.json()["failed"], check.code == 1);
    sandbox.run(&["--demo", "context", "--json"]).expect_code(0);

    // A relative PATH that does not exist here is looked up under the root.
    let one = sandbox.run(&["--demo", "check", "weather-api", "--json"]);
    let one = one.json();
    assert_eq!(one["projects"].as_array().unwrap().len(), 1);
    assert_eq!(one["projects"][0]["name"], "weather-api");
    let tokens = sandbox.run(&["--demo", "tokens", "mobile-app", "--json"]);
    tokens.expect_code(0);
    assert_eq!(tokens.json()["banks"][0]["format"], "conkeeper");
}

#[test]
fn list_of_a_large_root_is_complete_and_ordered_and_caches_every_file() {
    // Over 64 projects, scanning and analysis are shared across threads.
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let mut wanted = Vec::new();
    for n in 0..90 {
        let name = format!("p{n:03}");
        let project = root.path().join(&name);
        // Different sizes, so each project's figures are its own.
        for file in 0..(1 + n % 4) {
            write(
                &project.join(format!("memory-bank/note{file}.md")),
                &format!("# Note {file}\n\n{}\n", "word ".repeat(n + 1)),
            );
        }
        wanted.push((name, 1 + n % 4));
    }
    let first = sandbox.run(&["list", "--json", "--sort", "name", "--root", s(root.path())]);
    first.expect_code(0);
    let json = first.json();
    let got: Vec<(String, usize)> = json["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["files"].as_u64().unwrap() as usize,
            )
        })
        .collect();
    assert_eq!(got, wanted);
    for (n, project) in json["projects"].as_array().unwrap().iter().enumerate() {
        let expected: usize = (0..(1 + n % 4))
            .map(|file| {
                tokens::count(
                    Encoding::O200k,
                    &format!("# Note {file}\n\n{}\n", "word ".repeat(n + 1)),
                )
            })
            .sum();
        assert_eq!(project["loaded_tokens"], expected, "p{n:03}");
    }
    // Every worker's counts were merged into the one cache: nothing is recounted.
    let cache = sandbox.cache_dir().join("tokens-o200k_base.bin");
    let written = fs::metadata(&cache).unwrap().modified().unwrap();
    let second = sandbox.run(&["list", "--json", "--sort", "name", "--root", s(root.path())]);
    assert_eq!(second.json()["projects"], json["projects"]);
    assert_eq!(fs::metadata(&cache).unwrap().modified().unwrap(), written);
}

/// `mbank context | head` (a reader that closes the pipe early) ends the output quietly:
/// no panic, no backtrace, for text and JSON alike. The output is larger than a pipe's
/// buffer, so the write really meets the closed pipe.
#[test]
fn a_closed_pipe_ends_the_output_without_a_panic() {
    use std::io::Read;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::new();
    let root = dir.path().join("root");
    write(
        &root.join("p").join("CLAUDE.md"),
        &format!("# Rules\n\n{}\n", "word ".repeat(60_000)),
    );
    for json in [false, true] {
        let mut command = sandbox.mbank();
        command.args(["context", "--root", s(&root), "p"]);
        if json {
            command.arg("--json");
        }
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The read end is dropped here: every later write meets a closed pipe.
        let output = common::within(
            common::COMMAND_LIMIT,
            "mbank context into a closed pipe",
            move || child.wait_with_output().unwrap(),
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
            "json={json}: {stderr}"
        );
    }
}

#[test]
fn config_rules_raise_lower_or_silence_a_check_finding() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let warned = root.path().join("warned");
    cline_with_warning(&warned);
    let config = sandbox.config_dir().join("config.toml");

    write(&config, "[rules]\nno-heading = \"error\"\n");
    let run = sandbox.run(&["check", s(&warned), "--json"]);
    run.expect_code(1);
    let json = run.json();
    let raised = project(&json, "warned")["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "no-heading")
        .cloned()
        .expect("no-heading");
    assert_eq!(raised["severity"], "error");

    write(&config, "[rules]\nno-heading = \"off\"\n");
    let run = sandbox.run(&["check", s(&warned), "--json", "--fail-on", "warning"]);
    // The only warning is silenced: the check passes.
    run.expect_code(0);
    let json = run.json();
    let codes: Vec<&Value> = project(&json, "warned")["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| &f["code"])
        .collect();
    assert!(!codes.iter().any(|c| *c == "no-heading"), "{codes:?}");
}
