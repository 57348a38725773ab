//! `mbank init`: a relative NAME is looked up under the
//! root as every command's PATH is, and init never writes through a bank folder that is a
//! symlink leading out of the project.
use crate::common;

use std::fs;
use std::path::Path;

use common::{Sandbox, run_command};

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// `mbank ARGS` run from `cwd`.
fn run_in(sandbox: &Sandbox, cwd: &Path, args: &[&str]) -> common::Run {
    let mut command = sandbox.mbank();
    command.args(args).current_dir(cwd);
    run_command(command)
}

#[cfg(unix)]
#[test]
fn init_refuses_bank_folders_linked_out_of_the_project() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    fs::create_dir_all(out.join("memory")).unwrap();
    for (name, format, link, target) in [
        ("cline", "cline", "memory-bank", out.clone()),
        ("claude", "conkeeper", ".claude", out.clone()),
        ("memory", "conkeeper", ".claude/memory", out.join("memory")),
    ] {
        let project = dir.path().join(name);
        fs::create_dir_all(project.join(link).parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&target, project.join(link)).unwrap();
        let run = sandbox.run(&["init", s(&project), "--format", format]);
        run.expect_code(2);
        let real_target = fs::canonicalize(&target).unwrap();
        assert!(
            run.stderr.contains("is a symbolic link to") && run.stderr.contains(s(&real_target)),
            "{name}: {}",
            run.stderr
        );
        let written: Vec<_> = fs::read_dir(&out)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(written, vec!["memory"], "{name} wrote outside");
        assert_eq!(fs::read_dir(out.join("memory")).unwrap().count(), 0);
    }
}

#[test]
fn init_name_is_looked_up_under_the_root_when_it_is_not_here() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let here = tempfile::tempdir().unwrap();
    fs::create_dir_all(root.path().join("tide-api")).unwrap();
    let run = run_in(
        &sandbox,
        here.path(),
        &["init", "tide-api", "--root", s(root.path())],
    );
    run.expect_code(0);
    assert!(
        root.path()
            .join("tide-api/memory-bank/projectBrief.md")
            .is_file()
    );
    assert!(!here.path().join("tide-api").exists(), "created ./tide-api");
    assert!(
        run.stdout.contains(s(&root.path().join("tide-api"))),
        "{}",
        run.stdout
    );

    // Here first when it exists here; created here when it exists in neither place.
    fs::create_dir_all(here.path().join("both")).unwrap();
    fs::create_dir_all(root.path().join("both")).unwrap();
    run_in(
        &sandbox,
        here.path(),
        &["init", "both", "--root", s(root.path())],
    )
    .expect_code(0);
    assert!(here.path().join("both/memory-bank").is_dir());
    assert!(!root.path().join("both/memory-bank").exists());
    run_in(
        &sandbox,
        here.path(),
        &["init", "fresh", "--root", s(root.path())],
    )
    .expect_code(0);
    assert!(here.path().join("fresh/memory-bank").is_dir());
    assert!(!root.path().join("fresh").exists());
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn init_fills_the_tech_context_from_the_manifests_and_the_other_files_from_the_brief() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("todo-api");
    common::write(
        &project.join("package.json"),
        r#"{"name":"todo-api","engines":{"node":">=20"},
            "dependencies":{"express":"^4.18.2","pg":"^8.11.0"},
            "devDependencies":{"vitest":"^1.6.0"},
            "scripts":{"test":"vitest run","dev":"node server.js"}}"#,
    );
    common::write(
        &project.join("go.mod"),
        "module example.com/worker\n\ngo 1.22\n\nrequire github.com/go-chi/chi/v5 v5.0.12\n",
    );
    let brief = "A REST API for managing todo items.\nUsers: people who share a household\nGoals: a new item shows on every phone within a second\nRequirements: offline edits; shared lists\nOut of scope: payments";
    let run = sandbox.run(&["init", s(&project), "--brief", brief]);
    run.expect_code(0);
    assert!(
        run.stdout.contains("read from package.json, go.mod"),
        "{}",
        run.stdout
    );

    let bank = project.join("memory-bank");
    let tech = read(&bank.join("techContext.md"));
    for expected in [
        "### Languages\n- JavaScript (package.json)\n- Go (go.mod)\n",
        "### Frameworks and Key Libraries\n- express ^4.18.2 (package.json)\n- pg ^8.11.0 (package.json)\n- github.com/go-chi/chi/v5 v5.0.12 (go.mod)\n",
        "### Development Tools\n- vitest ^1.6.0 (package.json)\n",
        // package.json's scripts, in the order serde_json keeps an object's keys.
        "- **dev**: `npm run dev` — node server.js\n- **test**: `npm test` — vitest run\n",
        "- **build**: `go build ./...`\n",
        "## Version Requirements\n- node >=20 (package.json)\n- go 1.22 (go.mod)\n",
    ] {
        assert!(
            tech.contains(expected),
            "{expected:?} missing from:\n{tech}"
        );
    }
    assert!(!tech.contains("### Frameworks\n"), "{tech}");
    // What no manifest says stays a placeholder.
    assert!(tech.contains("- [Database — what it stores]"), "{tech}");

    let brief_file = read(&bank.join("projectBrief.md"));
    assert!(
        brief_file.contains("## Project Name\ntodo-api\n"),
        "{brief_file}"
    );
    assert!(brief_file.contains("## Mission Statement\nA REST API for managing todo items.\n"));
    assert!(brief_file.contains("## Core Requirements\n- offline edits\n- shared lists\n"));
    assert!(
        brief_file.contains("### Out of Scope\n- payments\n"),
        "{brief_file}"
    );
    let product = read(&bank.join("productContext.md"));
    assert!(
        product.contains("## Target Users\n- people who share a household\n"),
        "{product}"
    );
    assert!(
        product.contains(
            "## User Experience Goals\n- a new item shows on every phone within a second\n"
        )
    );
    // Nothing the brief does not say: the rest keeps its placeholders.
    assert!(
        product.contains("## What Makes It Different\n[Why this instead"),
        "{product}"
    );
    let progress = read(&bank.join("progress.md"));
    assert!(progress.contains("## Upcoming\n- [ ] offline edits\n- [ ] shared lists\n"));
    let patterns = read(&bank.join("systemPatterns.md"));
    assert!(patterns.contains("## File Organization\n- module `example.com/worker` (go.mod)\n"));

    // Cline's instructions, in its rules folder, naming the seven files in read order.
    let rules = read(&project.join(".clinerules/memory-bank.md"));
    assert!(
        run.stdout
            .contains(".clinerules/memory-bank.md (the agent's instructions for the bank)")
    );
    assert!(
        rules.contains("1. `memory-bank/projectBrief.md`"),
        "{rules}"
    );
    assert!(rules.contains("7. `memory-bank/decisionLog.md`"), "{rules}");
    assert!(rules.contains("## When to update"), "{rules}");
    // The manual trigger Cline's memory bank documents, and what it asks of the agent.
    assert!(
        rules.contains("(\"update memory bank\" or \"UMB\"): then review every file"),
        "{rules}"
    );

    // The new bank passes mbank's own checks of the Cline format.
    let check = sandbox.run(&["check", s(&project), "--json"]);
    let json = check.json();
    let errors: Vec<_> = json["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["severity"] == "error")
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn init_reads_requirements_txt_into_the_tech_context() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("scraper");
    common::write(
        &project.join("requirements.txt"),
        "# pinned\n-r requirements-dev.txt\nDjango>=4.2,<5  # web\nrequests[socks]==2.31.0\n-e .\n",
    );
    common::write(&project.join("requirements-dev.txt"), "pytest==8.2.0\n");
    let run = sandbox.run(&["init", s(&project)]);
    run.expect_code(0);
    assert!(
        run.stdout.contains("read from requirements.txt"),
        "{}",
        run.stdout
    );
    let tech = read(&project.join("memory-bank/techContext.md"));
    for expected in [
        "### Languages\n- Python (requirements.txt)\n",
        "- Django >=4.2,<5 (requirements.txt)\n- requests ==2.31.0 (requirements.txt)\n",
    ] {
        assert!(
            tech.contains(expected),
            "{expected:?} missing from:\n{tech}"
        );
    }
    // An included file is not followed.
    assert!(!tech.contains("pytest"), "{tech}");
}

#[test]
fn init_kilo_code_creates_kilos_five_files_and_its_instructions_file() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("tide");
    common::write(
        &project.join("Cargo.toml"),
        "[package]\nname = \"tide\"\nedition = \"2024\"\nrust-version = \"1.85\"\n[dependencies]\naxum = \"0.8\"\n",
    );
    let run = sandbox.run(&[
        "init",
        s(&project),
        "--format",
        "kilo-code",
        "--brief",
        "Tide tables for sailors.\nConstraints: runs offline",
    ]);
    run.expect_code(0);
    let bank = project.join(".kilocode/rules/memory-bank");
    for name in [
        "brief.md",
        "product.md",
        "context.md",
        "architecture.md",
        "tech.md",
    ] {
        assert!(bank.join(name).is_file(), "{name}: {}", run.stdout);
    }
    let tech = read(&bank.join("tech.md"));
    assert!(
        tech.contains("## Technologies Used\n- Rust (edition 2024) (Cargo.toml)\n"),
        "{tech}"
    );
    assert!(
        tech.contains("## Dependencies\n- axum 0.8 (Cargo.toml)\n"),
        "{tech}"
    );
    assert!(tech.contains("- **test**: `cargo test`"), "{tech}");
    assert!(
        tech.contains("## Technical Constraints\n- runs offline\n"),
        "{tech}"
    );
    assert!(tech.contains("- rust 1.85 or newer (Cargo.toml)"), "{tech}");
    let brief = read(&bank.join("brief.md"));
    assert!(
        brief.contains("## Mission\nTide tables for sailors.\n"),
        "{brief}"
    );
    let rules = read(&project.join(".kilocode/rules/memory-bank-instructions.md"));
    assert!(
        rules.contains("1. `.kilocode/rules/memory-bank/brief.md`"),
        "{rules}"
    );
    assert!(rules.contains("[Memory Bank: Active]"), "{rules}");

    // mbank reads what it made as Kilo's memory bank, in Kilo's order.
    let context = sandbox.run(&["context", s(&project), "--agent", "kilo", "--json"]);
    context.expect_code(0);
    let shown = context.stdout.find("memory-bank/brief.md").unwrap();
    let tech_at = context.stdout.find("memory-bank/tech.md").unwrap();
    assert!(shown < tech_at, "{}", context.stdout);
}

#[test]
fn init_never_makes_a_second_bank_or_a_second_file_of_the_same_name() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();

    // A Cline bank whose brief is spelled in lower case keeps it: no projectBrief.md.
    let cline = dir.path().join("lower");
    common::write(
        &cline.join("memory-bank/projectbrief.md"),
        "# Brief\nMine.\n",
    );
    common::write(
        &cline.join("memory-bank/active-context.md"),
        "# Active\nNow.\n",
    );
    let run = sandbox.run(&["init", s(&cline), "--no-instructions"]);
    run.expect_code(0);
    let names: Vec<String> = fs::read_dir(cline.join("memory-bank"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.contains(&"projectBrief.md".to_string()), "{names:?}");
    assert!(
        !names.contains(&"activeContext.md".to_string()),
        "{names:?}"
    );
    assert_eq!(names.len(), 7, "{names:?}");
    assert!(
        run.stdout
            .contains("memory-bank/projectbrief.md (already there"),
        "{}",
        run.stdout
    );
    assert_eq!(
        read(&cline.join("memory-bank/projectbrief.md")),
        "# Brief\nMine.\n"
    );
    assert!(
        !cline.join(".clinerules").exists(),
        "--no-instructions wrote rules"
    );

    // Another kind of bank: nothing is made, the message names it, exit code 2.
    let conkeeper = dir.path().join("keeper");
    common::write(
        &conkeeper.join(".claude/memory/active-context.md"),
        "# Active\n",
    );
    for format in ["cline", "kilo-code", "roo"] {
        let run = sandbox.run(&["init", s(&conkeeper), "--format", format]);
        run.expect_code(2);
        assert!(
            run.stderr
                .contains("already has a memory bank (ConKeeper) in .claude/memory/")
                && run.stderr.contains("mbank init --format conkeeper"),
            "{format}: {}",
            run.stderr
        );
        assert!(!conkeeper.join("memory-bank").exists());
        assert!(!conkeeper.join(".kilocode").exists());
        assert!(!conkeeper.join(".clinerules").exists() && !conkeeper.join(".roo").exists());
    }

    // The same kind where it already is: ConKeeper's .ai/memory is completed, no
    // .claude/memory beside it.
    let ai = dir.path().join("ai");
    common::write(&ai.join(".ai/memory/product-context.md"), "# Product\n");
    let run = sandbox.run(&["init", s(&ai), "--format", "conkeeper", "--no-instructions"]);
    run.expect_code(0);
    assert!(
        ai.join(".ai/memory/active-context.md").is_file(),
        "{}",
        run.stdout
    );
    assert!(ai.join(".ai/memory/decisions").is_dir());
    assert!(!ai.join(".claude").exists(), "{}", run.stdout);
}

#[test]
fn init_asks_before_changing_an_instruction_file_that_exists() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("app");
    let claude = project.join("CLAUDE.md");
    common::write(&claude, "# App\nUse tabs.\n");

    // No terminal to ask and no --yes: CLAUDE.md stays as it was, and the output says so.
    let run = sandbox.run(&["init", s(&project), "--format", "conkeeper"]);
    run.expect_code(0);
    assert_eq!(read(&claude), "# App\nUse tabs.\n");
    assert!(
        run.stdout
            .contains("CLAUDE.md as it was (no terminal to ask; run again with --yes"),
        "{}",
        run.stdout
    );
    assert!(project.join(".claude/memory/product-context.md").is_file());

    // --yes: the import block is added after the person's text, once.
    let run = sandbox.run(&["init", s(&project), "--format", "conkeeper", "--yes"]);
    run.expect_code(0);
    let text = read(&claude);
    assert!(text.starts_with("# App\nUse tabs.\n\n<!-- mbank"), "{text}");
    assert!(
        text.contains("\n@.claude/memory/product-context.md\n@.claude/memory/active-context.md\n")
    );
    assert!(
        run.stdout
            .contains("the agent's instructions for the bank at the end of CLAUDE.md")
    );
    let again = sandbox.run(&["init", s(&project), "--format", "conkeeper", "--yes"]);
    again.expect_code(0);
    assert_eq!(read(&claude), text);
    assert!(
        again
            .stdout
            .contains("holds the instructions for the bank already")
    );
    // Claude Code's session loads the bank through the import.
    let context = sandbox.run(&["context", s(&project), "--agent", "claude-code", "--json"]);
    assert!(
        context.stdout.contains(".claude/memory/active-context.md"),
        "{}",
        context.stdout
    );

    // Roo Code's rules folder gets a file of its own; Cline's single .clinerules file is
    // an instruction file that exists.
    let roo = dir.path().join("roo");
    fs::create_dir_all(&roo).unwrap();
    sandbox
        .run(&["init", s(&roo), "--format", "roo"])
        .expect_code(0);
    assert!(read(&roo.join(".roo/rules/memory-bank.md")).contains("`memory-bank/progress.md`"));
    let single = dir.path().join("single");
    common::write(&single.join(".clinerules"), "Be brief.\n");
    let run = sandbox.run(&["init", s(&single)]);
    run.expect_code(0);
    assert_eq!(read(&single.join(".clinerules")), "Be brief.\n");
    sandbox.run(&["init", s(&single), "-y"]).expect_code(0);
    assert!(read(&single.join(".clinerules")).starts_with("Be brief.\n\n<!-- mbank"));
}
