//! An agent's session start cut to fit a token budget (`fit_context`, `mbank context
//! --max-tokens`): over every project of the shared corpus (`../shared/corpus`, or
//! `$MBANK_CORPUS`), for each agent that loads anything there and three budgets, the text
//! counts exactly what it says, never more than the budget, in load order, and every file
//! of the session start is returned or listed as left out. Then the command, over temp
//! folders: text, JSON against its schema, and its errors.
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mbank::core::analysis::context::{
    ContextOptions, FitError, FitRequest, FittedContext, LeftOutReason, agent_session, fit_context,
};
use mbank::core::formats::agents::Agent;
use mbank::core::model::{Bank, LoadKind, Project};
use mbank::core::scan::bank::list_banks;
use mbank::core::scan::discovery::{self, ScanOptions};
use mbank::core::tokens::{self, Encoding};
use serde_json::Value;

use crate::common::{Sandbox, corpus_root, write};

const BUDGETS: [usize; 3] = [500, 4_000, 32_000];

/// The block headers of a fitted text, in order: the display paths they name.
fn headers(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.strip_prefix("<file path=\""))
        .filter_map(|rest| rest.split('"').next())
        .map(|path| {
            path.replace("&quot;", "\"")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
        })
        .collect()
}

/// Checks one fitted context against the session it comes from.
fn check_fitted(
    project: &Project,
    banks: &[&Bank],
    agent: Agent,
    budget: usize,
    fitted: &FittedContext,
    options: &ContextOptions,
) {
    let name = format!("{} / {} / {budget}", project.name, agent.id());
    // The budget holds, counted exactly on the text as returned.
    assert_eq!(
        fitted.tokens,
        tokens::count(Encoding::O200k, &fitted.text),
        "{name}"
    );
    assert!(
        fitted.tokens <= budget,
        "{name}: {} > {budget}",
        fitted.tokens
    );
    assert!(
        !fitted.text.lines().any(|l| l.trim() == "<private>"),
        "{name}"
    );
    // Load order: the files returned are the session's pieces in order, minus those left
    // out as private, up to the first one left out for the budget.
    let session = agent_session(project, banks, agent, &|_| 0, options, None);
    let pieces: Vec<&Path> = session
        .banks
        .iter()
        .flat_map(|b| b.pieces.iter().map(|p| p.file.as_path()))
        .collect();
    let private: BTreeSet<&Path> = fitted
        .left_out
        .iter()
        .filter(|l| l.reason == LeftOutReason::Private && l.first_line.is_none())
        .map(|l| l.file.as_path())
        .collect();
    let returned: Vec<&Path> = fitted.files.iter().map(|f| f.file.as_path()).collect();
    let expected: Vec<&Path> = pieces
        .iter()
        .copied()
        .filter(|p| !private.contains(p))
        .take(returned.len())
        .collect();
    assert_eq!(returned, expected, "{name}: not in load order");
    let shown: Vec<String> = fitted.files.iter().map(|f| f.display.clone()).collect();
    assert_eq!(
        headers(&fitted.text),
        shown,
        "{name}: blocks and files disagree"
    );
    // Whole files first: only the last may be cut.
    if let Some((last, before)) = fitted.files.split_last() {
        assert!(before.iter().all(|f| f.whole), "{name}");
        if !last.whole {
            let past = fitted
                .left_out
                .iter()
                .find(|l| l.file == last.file && l.reason == LeftOutReason::Budget)
                .unwrap_or_else(|| panic!("{name}: {} is cut and not listed", last.display));
            assert!(past.first_line.unwrap() > last.last_line, "{name}");
        }
    }
    let files_sum: usize = fitted.files.iter().map(|f| f.tokens).sum();
    assert_eq!(files_sum, fitted.tokens, "{name}: blocks do not add up");
    // Every file of the session start is returned or listed as left out.
    let listed: BTreeSet<&Path> = fitted.left_out.iter().map(|l| l.file.as_path()).collect();
    let accounted = |file: &Path| returned.contains(&file) || listed.contains(file);
    let whole_returned = fitted.files.iter().filter(|f| f.whole).count();
    for (index, piece) in pieces.iter().enumerate() {
        assert!(
            accounted(piece),
            "{name}: {} neither returned nor left out",
            piece.display()
        );
        if index >= whole_returned && !returned.contains(piece) && !private.contains(piece) {
            assert!(
                fitted
                    .left_out
                    .iter()
                    .any(|l| l.file == *piece && l.reason == LeftOutReason::Budget),
                "{name}: {} missing and not past the budget",
                piece.display()
            );
        }
    }
    for bank in &session.banks {
        for file in bank
            .skipped
            .iter()
            .map(|s| &s.file)
            .chain(bank.deferred.iter().map(|d| &d.file))
            .chain(bank.cutoffs.iter().map(|c| &c.file))
        {
            assert!(
                accounted(file),
                "{name}: {} neither returned nor left out",
                file.display()
            );
        }
    }
    // The agent's start-up files in its banks (formats without modes, whose start-up files
    // all load at the default mode's start).
    let facts = mbank::core::formats::agents::ProjectFacts::of_banks(&project.path, banks);
    for bank in banks.iter().filter(|b| agent.formats().contains(&b.format)) {
        if mbank::core::formats::roo_rules::modes::FORMATS_WITH_MODES.contains(&bank.format) {
            continue;
        }
        for file in bank
            .files
            .iter()
            .filter(|f| f.load == LoadKind::Startup && !f.is_virtual())
        {
            let rel = file.path.strip_prefix(&project.path).unwrap_or(&file.path);
            if agent.reads(bank.format, rel, &facts) {
                assert!(
                    accounted(&file.path),
                    "{name}: start-up file {} unaccounted",
                    file.display
                );
            }
        }
    }
    if fitted.whole_tokens <= budget {
        assert!(fitted.files.iter().all(|f| f.whole), "{name}");
        assert!(
            !fitted
                .left_out
                .iter()
                .any(|l| l.reason == LeftOutReason::Budget),
            "{name}"
        );
    }
}

#[test]
fn every_corpus_project_fits_three_budgets_exactly_in_load_order() {
    let Some(root) = corpus_root() else { return };
    let home = tempfile::tempdir().unwrap();
    let options = ContextOptions {
        home: Some(home.path().to_path_buf()),
        include_user_files: false,
        include_ancestors: false,
        codex_home: None,
    };
    let (mut sessions, mut cut, mut left_out) = (0, 0, 0);
    for project in discovery::scan(&root, &ScanOptions::default()) {
        let listed = list_banks(&project);
        let banks: Vec<&Bank> = listed.iter().collect();
        for budget in BUDGETS {
            let mut request = FitRequest {
                agent: None,
                max_tokens: budget,
                encoding: Encoding::O200k,
                options: &options,
                mode: None,
            };
            // The primary agent is the first of those that load anything.
            let primary = match fit_context(&project, &banks, &request) {
                Ok(fitted) => Some(fitted.agent),
                Err(FitError::NoAgent { .. }) => None,
                Err(e) => panic!("{}: {e}", project.name),
            };
            for agent in Agent::ALL {
                request.agent = Some(agent);
                let fitted = match fit_context(&project, &banks, &request) {
                    Ok(fitted) => fitted,
                    Err(FitError::AgentLoadsNothing { agents, .. }) => {
                        assert!(!agents.contains(&agent));
                        assert_eq!(agents.first().copied(), primary, "{}", project.name);
                        continue;
                    }
                    Err(e) => panic!("{}: {e}", project.name),
                };
                check_fitted(&project, &banks, agent, budget, &fitted, &options);
                sessions += 1;
                cut += usize::from(fitted.files.iter().any(|f| !f.whole));
                left_out += usize::from(
                    fitted
                        .left_out
                        .iter()
                        .any(|l| l.reason == LeftOutReason::Budget),
                );
            }
        }
    }
    eprintln!(
        "fitted {sessions} sessions (agent × budget); {cut} with a file cut, {left_out} leaving files out for the budget"
    );
    assert!(sessions > 0);
    assert!(cut > 0, "no corpus session crossed a budget at a line");
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A Cline bank of three files with ten notes each, and a CLAUDE.md with a private block.
fn project(sandbox: &Sandbox) -> PathBuf {
    let project = sandbox.home().join("work/shop");
    for name in ["projectbrief", "activeContext", "progress"] {
        let notes: String = (1..=10).map(|i| format!("- {name} note {i}\n")).collect();
        write(
            &project.join(format!("memory-bank/{name}.md")),
            &format!("# {name}\n{notes}"),
        );
    }
    write(
        &project.join("CLAUDE.md"),
        "# Shop\n<private>\nthe door code\n</private>\nUse pnpm.\n",
    );
    project
}

#[test]
fn the_command_prints_the_fitted_text_and_what_it_left_out() {
    let sandbox = Sandbox::new();
    let project = project(&sandbox);
    let run = sandbox.run(&[
        "context",
        s(&project),
        "--agent",
        "cline",
        "--max-tokens",
        "60",
        "--no-user",
    ]);
    run.expect_code(0);
    assert!(
        run.stdout.starts_with(
            "<file path=\"memory-bank/projectbrief.md\" cut=\"after line 6\">\n# projectbrief\n"
        ),
        "{}",
        run.stdout
    );
    assert!(
        tokens::count(Encoding::O200k, &run.stdout) <= 60,
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("Cline session start in shop:"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("of 60 tokens (o200k_base)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("left out: memory-bank/"),
        "{}",
        run.stderr
    );
    // Claude Code, the primary agent: its private block is never printed.
    let run = sandbox.run(&["context", s(&project), "--max-tokens", "1000", "--no-user"]);
    run.expect_code(0);
    assert_eq!(
        run.stdout,
        "<file path=\"CLAUDE.md\">\n# Shop\nUse pnpm.\n</file>\n"
    );
    assert!(
        run.stderr
            .contains("left out: CLAUDE.md: lines 2–4 are a <private> block"),
        "{}",
        run.stderr
    );
}

/// Asserts `json` is valid against docs/schemas/context-fit.json.
fn valid(json: &Value) {
    let schema_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schemas/context-fit.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&schema)
        .unwrap();
    let errors: Vec<String> = validator
        .iter_errors(json)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{}\n{json:#}", errors.join("\n"));
}

#[test]
fn the_command_answers_json_that_matches_its_schema() {
    let sandbox = Sandbox::new();
    let project = project(&sandbox);
    for budget in ["0", "60", "100000"] {
        let run = sandbox.run(&[
            "context",
            s(&project),
            "--agent",
            "cline",
            "--max-tokens",
            budget,
            "--json",
            "--no-user",
        ]);
        run.expect_code(0);
        let json = run.json();
        valid(&json);
        assert_eq!(json["schema"], "mbank.context-fit/1");
        assert_eq!(
            (json["agent"].as_str(), json["chosen"].as_str()),
            (Some("cline"), Some("named"))
        );
        let text = json["text"].as_str().unwrap();
        assert_eq!(
            json["tokens"].as_u64().unwrap() as usize,
            tokens::count(Encoding::O200k, text)
        );
        assert!(json["tokens"].as_u64().unwrap() <= budget.parse().unwrap());
    }
    // Codex has no file here: the error names the agents that do.
    let run = sandbox.run(&[
        "context",
        s(&project),
        "--agent",
        "codex",
        "--max-tokens",
        "100",
        "--json",
        "--no-user",
    ]);
    run.expect_code(2);
    let json = run.json();
    valid(&json);
    assert_eq!(json["error"]["code"], "agent-loads-nothing");
    assert_eq!(
        json["error"]["agents"],
        serde_json::json!(["claude-code", "cline", "zed", "opencode"])
    );
    assert!(run.stderr.contains("mbank: Codex loads nothing from shop; agents that do: claude-code (Claude Code), cline (Cline), zed (Zed), opencode (opencode)"), "{}", run.stderr);
    // A root of several projects: name one.
    let root = sandbox.home().join("work");
    write(&root.join("other/CLAUDE.md"), "# Other\n");
    let run = sandbox.run(&[
        "context",
        s(&root),
        "--max-tokens",
        "100",
        "--json",
        "--no-user",
    ]);
    run.expect_code(2);
    let json = run.json();
    valid(&json);
    assert_eq!(json["error"]["code"], "several-projects");
}

/// The `get_context` tool (over stdio, as an agent calls it) and `GET /memory-bank/context`
/// answer what `mbank context --max-tokens --json --no-user` prints, in the same schema.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_answer_what_the_command_prints() {
    use crate::http_serve::{Server, tls};
    use crate::mcp_stdio::{Setup, fails, ok};

    let setup = Setup::new();
    setup.init("shop");
    std::fs::write(
        setup.root.join("shop/memory-bank/progress.md"),
        "# Progress\n\n".to_string() + &"- shipped the basket and its retries\n".repeat(200),
    )
    .unwrap();
    let client = setup.connect(&[]).await;
    let listed = client.list_all_tools().await.unwrap();
    let tool = listed.iter().find(|t| t.name == "get_context").unwrap();
    let annotations = tool.annotations.as_ref().unwrap();
    assert_eq!(annotations.read_only_hint, Some(true));
    assert_eq!(annotations.destructive_hint, Some(false));
    for budget in [0u64, 300, 100_000] {
        let answer = ok(
            &client,
            "get_context",
            serde_json::json!({"project": "shop", "maxTokens": budget}),
        )
        .await;
        valid(&answer);
        let text = answer["text"].as_str().unwrap();
        assert!(tokens::count(Encoding::O200k, text) as u64 <= budget);
        let printed = setup.sandbox.run(&[
            "--root",
            setup.root.to_str().unwrap(),
            "context",
            setup.root.join("shop").to_str().unwrap(),
            "--max-tokens",
            &budget.to_string(),
            "--json",
            "--no-user",
        ]);
        printed.expect_code(0);
        let printed = printed.json();
        for key in [
            "agent",
            "text",
            "tokens",
            "whole_tokens",
            "files",
            "left_out",
        ] {
            assert_eq!(answer[key], printed[key], "{key} at {budget}");
        }
    }
    let message = fails(
        &client,
        "get_context",
        serde_json::json!({"project": "shop", "maxTokens": 10, "agent": "codex"}),
        "not_found",
    )
    .await;
    assert!(
        message.contains("Codex loads nothing from shop"),
        "{message}"
    );
    client.cancel().await.unwrap();

    tls();
    let server = Server::start("", &[]);
    let http = reqwest::Client::new();
    let answer: Value = http
        .get(server.url("/memory-bank/context?project=alpha&maxTokens=120"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    valid(&answer);
    assert!(answer["tokens"].as_u64().unwrap() <= 120, "{answer}");
    assert_eq!(answer["project"]["name"], "alpha");
    let refused = http
        .get(server.url("/memory-bank/context?project=alpha&maxTokens=many"))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 400);
    let body: Value = refused.json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("maxTokens"),
        "{body}"
    );
}
