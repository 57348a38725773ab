//! Every figure agrees wherever it is shown: over every project of the shared corpus of
//! real banks (`../shared/corpus`, or `$MBANK_CORPUS`), `list`, `tokens`, `check`,
//! `context` and the TUI's picker and header give one name, one session figure (one
//! agent's, named), one budget verdict, and every "over" or "near" is a finding `check`
//! reports on the file `list` names. The corpus tests are skipped, with a notice, when the
//! corpus is absent; a root written here, with each kind of session and budget, always
//! runs.
use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::tui::Tui;
use common::{Sandbox, corpus_root};
use mbank::core::findings::RuleSource;
use mbank::core::formats::agents::Agent;
use mbank::tui::widgets::compact;
use serde_json::Value;

/// `used/budget` as the TUI writes it ("3.8k/5.0k", "9.6k+"), from a session's JSON.
fn tui_figure(session: &Value) -> String {
    let suffix = if session["complete"].as_bool().unwrap() {
        ""
    } else {
        "+"
    };
    let tokens = compact(session_tokens(session));
    match session["budget_limit"].as_u64() {
        Some(limit) => format!("{tokens}{suffix}/{}", compact(limit)),
        None => format!("{tokens}{suffix}"),
    }
}

/// A session's tokens, under either name (`tokens` in a session, `loaded_tokens` in a
/// `list` row).
fn session_tokens(session: &Value) -> u64 {
    session["tokens"]
        .as_u64()
        .or_else(|| session["loaded_tokens"].as_u64())
        .unwrap()
}

/// The session fields a `list` row and a `tokens` session share.
fn session_of_row(row: &Value) -> Value {
    serde_json::json!({
        "agent": row["agent"],
        "tokens": row["loaded_tokens"],
        "private_tokens": row["private_tokens"],
        "complete": row["complete"],
        "budget": row["budget"],
        "budget_limit": row["budget_limit"],
    })
}

/// The findings of `check --json` by project name.
fn findings_by_project(check: &Value) -> BTreeMap<String, Vec<Value>> {
    check["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["findings"].as_array().unwrap().clone(),
            )
        })
        .collect()
}

#[test]
fn list_tokens_check_and_context_agree_on_every_corpus_project() {
    let Some(root) = corpus_root() else { return };
    views_agree(&root);
}

/// Writes `text` at `rel` under `root`, making its folders.
fn put(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A markdown file of about `tokens` tokens.
fn sized(title: &str, tokens: usize) -> String {
    format!("# {title}\n\n{}\n", "budget ".repeat(tokens))
}

#[test]
fn the_views_agree_on_each_kind_of_session_and_budget() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let cline = |project: &str, sizes: [usize; 6]| {
        let names = [
            "projectbrief",
            "productContext",
            "systemPatterns",
            "techContext",
            "activeContext",
            "progress",
        ];
        for (name, tokens) in names.iter().zip(sizes) {
            put(
                root,
                &format!("{project}/memory-bank/{name}.md"),
                &sized(name, tokens),
            );
        }
    };
    // One file over its own limit, the bank within its total: the session is ok.
    cline("file-over", [100, 100, 100, 1_500, 100, 100]);
    // The bank's total over: the session is over, on the bank's first file.
    cline("total-over", [900, 900, 900, 900, 900, 900]);
    // Two agents' files that no agent loads together.
    put(root, "two-agents/CLAUDE.md", &sized("Claude", 300));
    put(root, "two-agents/AGENTS.md", &sized("Agents", 200));
    // A borrowed total past its limit: information, never the session's verdict.
    for name in ["product-context", "active-context", "progress"] {
        put(
            root,
            &format!("borrowed/memory-bank/{name}.md"),
            &sized(name, 2_000),
        );
    }
    // A project below another folder: one name everywhere.
    cline("group/nested", [50, 50, 50, 50, 50, 50]);
    views_agree(root);

    let list = Sandbox::new()
        .run(&["list", "--json", "--root", root.to_str().unwrap()])
        .json();
    let row = |name: &str| -> Value {
        list["projects"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no {name}: {list}"))
            .clone()
    };
    assert_eq!(row("file-over")["budget"], "ok");
    assert_eq!(row("file-over")["budget_limit"], 5000);
    assert_eq!(row("total-over")["budget"], "over");
    assert!(
        row("total-over")["budget_file"]
            .as_str()
            .unwrap()
            .ends_with("memory-bank/projectbrief.md")
    );
    assert_eq!(row("two-agents")["agent"], "claude-code");
    // Claude Code reads CLAUDE.md; Codex, Kilo Code, Zed and opencode read AGENTS.md
    // (Zed and opencode take the first of the two they find); no session adds both.
    let sessions = row("two-agents")["sessions"].as_array().unwrap().clone();
    let agents: Vec<&str> = sessions
        .iter()
        .map(|s| s["agent"].as_str().unwrap())
        .collect();
    assert_eq!(agents, ["claude-code", "codex", "kilo", "zed", "opencode"]);
    let claude = sessions[0]["tokens"].as_u64().unwrap();
    for session in &sessions[1..] {
        assert!(session["tokens"].as_u64().unwrap() < claude, "{session}");
    }
    assert!(row("borrowed")["budget"].is_null(), "{}", row("borrowed"));
    assert_eq!(row("group/nested")["budget"], "ok");
    tui_agrees(root);

    // Sorted by tokens, the picker orders the rows as `list --sort tokens` does.
    let by_tokens = Sandbox::new()
        .run(&[
            "list",
            "--json",
            "--sort",
            "tokens",
            "--root",
            root.to_str().unwrap(),
        ])
        .json();
    let names: Vec<&str> = by_tokens["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    let mut h = Tui::options(root).size(200, 30).start();
    h.pump_until("the figures", |app| {
        app.projects.picker.counted == names.len()
    });
    h.keys("ctrl-s ctrl-s");
    let screen = h.settled_screen();
    assert!(screen.contains("sorted by tokens"), "{screen}");
    let at = |name: &str| {
        screen
            .lines()
            .position(|l| l.contains(&format!(" {name} ")))
            .unwrap_or_else(|| panic!("no row for {name}:\n{screen}"))
    };
    let rows: Vec<usize> = names.iter().map(|name| at(name)).collect();
    assert!(rows.windows(2).all(|w| w[0] < w[1]), "{names:?}\n{screen}");
}

/// Runs every view over the projects under `root` and fails on any figure that disagrees.
fn views_agree(root: &Path) {
    let sandbox = Sandbox::new();
    let root_arg = root.to_str().unwrap();
    let list = sandbox.run(&["list", "--json", "--root", root_arg]);
    list.expect_code(0);
    let list = list.json();
    let check = sandbox.run(&["check", "--json", "--root", root_arg]);
    assert!(check.code == 0 || check.code == 1, "{}", check.stderr);
    let whole_check = findings_by_project(&check.json());
    let rows = list["projects"].as_array().unwrap();
    assert!(!rows.is_empty());
    for row in rows {
        let name = row["name"].as_str().unwrap();
        let path = Path::new(row["path"].as_str().unwrap());

        // One session figure: the heaviest of the per-agent ones, never a sum.
        let sessions = row["sessions"].as_array().unwrap();
        if let Some(heaviest) = sessions.iter().map(session_tokens).max() {
            assert_eq!(session_tokens(row), heaviest, "{name}");
            assert!(
                !row["agent"].is_null(),
                "{name}: the session names its agent"
            );
        }
        let summed: u64 = sessions.iter().map(session_tokens).sum();
        if sessions.len() > 1 && sessions.iter().filter(|s| session_tokens(s) > 0).count() > 1 {
            assert_ne!(session_tokens(row), summed, "{name}: agents added up");
        }

        // `tokens` gives the same session, per agent, and totals it alone.
        let tokens = sandbox.run(&["tokens", "--json", "--root", root_arg, name]);
        assert!(
            tokens.code == 0 || tokens.code == 2,
            "{name}: {}",
            tokens.stderr
        );
        let tokens = tokens.json();
        let project = &tokens["projects"][0];
        assert_eq!(tokens["projects"].as_array().unwrap().len(), 1, "{name}");
        assert_eq!(project["name"], row["name"], "{name}");
        assert_eq!(project["session"], session_of_row(row), "{name}");
        assert_eq!(project["sessions"], row["sessions"], "{name}");
        assert_eq!(project["budget_file"], row["budget_file"], "{name}");
        assert_eq!(
            tokens["totals"]["loaded_tokens"], row["loaded_tokens"],
            "{name}: the total is the session's"
        );

        // `check` on the name `list` gives: the same project, and every verdict backed.
        let named = sandbox.run(&["check", "--json", "--root", root_arg, name]);
        assert!(
            named.code == 0 || named.code == 1,
            "{name}: check exit {}: {}",
            named.code,
            named.stderr
        );
        // The projects in its sub-folders with banks of their own come with it, each
        // as the root's check gives it.
        let named = findings_by_project(&named.json());
        assert!(named.contains_key(name), "{name}");
        for (other, found) in &named {
            assert!(
                other.as_str() == name || other.starts_with(&format!("{name}/")),
                "{name}: {other} is not below it"
            );
            let whole = whole_check.get(other);
            assert_eq!(Some(found), whole, "{name}: {other}");
        }
        let findings = &whole_check[name];
        assert_eq!(
            &named[name], findings,
            "{name}: check of the root and of the name"
        );
        for finding in findings {
            assert_ne!(
                Path::new(finding["file"].as_str().unwrap()),
                path,
                "{name}: a finding names the project's folder, not a file: {finding}"
            );
            // A budget names its source from the closed set, never a design document.
            let message = finding["message"].as_str().unwrap();
            if finding["code"].as_str().unwrap().starts_with("budget-") {
                assert!(
                    RuleSource::ALL.iter().any(|s| message.contains(s.name())),
                    "{name}: {message}"
                );
            }
            for internal in ["Beans-Code", "seed 0", "spec)"] {
                assert!(!message.contains(internal), "{name}: {message}");
            }
        }
        match row["budget"].as_str() {
            Some(verdict @ ("over" | "near")) => {
                let code = format!("budget-{verdict}");
                let file = row["budget_file"].as_str().unwrap();
                assert!(
                    findings
                        .iter()
                        .any(|f| f["code"] == code.as_str() && f["file"] == file),
                    "{name}: list says {verdict} on {file}, check has no {code} there: \
                     {findings:#?}"
                );
            }
            Some("ok") | None => {
                assert!(
                    row["budget_file"].is_null() || row["budget"] == "ok",
                    "{name}"
                );
            }
            Some(other) => panic!("{name}: budget {other}"),
        }
        // No verdict above what check reports: a borrowed rule is information.
        let warned = findings
            .iter()
            .any(|f| f["code"] == "budget-over" && f["severity"] != "info");
        if row["budget"] == "over" {
            assert!(warned, "{name}");
        }

        // `context` on the name: the same project, each agent's file figures those of
        // `tokens` where the agent reads the file whole.
        let context = sandbox.run(&["context", "--json", "--root", root_arg, name]);
        context.expect_code(0);
        let context = context.json();
        assert_eq!(context["projects"][0]["name"], row["name"], "{name}");
        let counted: BTreeMap<&str, u64> = tokens["banks"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|b| b["files"].as_array().unwrap())
            .map(|f| {
                (
                    f["path"].as_str().unwrap(),
                    f["loaded_tokens"].as_u64().unwrap(),
                )
            })
            .collect();
        for session in context["projects"][0]["sessions"].as_array().unwrap() {
            for bank in session["banks"].as_array().unwrap() {
                if !bank["cutoffs"].as_array().unwrap().is_empty() {
                    continue;
                }
                for piece in bank["pieces"].as_array().unwrap() {
                    let file = piece["file"].as_str().unwrap();
                    let whole = piece["via"].as_array().unwrap().is_empty()
                        && piece["notes"].as_array().unwrap().is_empty();
                    if let (true, Some(&figure)) = (whole, counted.get(file)) {
                        assert_eq!(
                            piece["tokens"].as_u64().unwrap(),
                            figure,
                            "{name}: {file} in {}'s context",
                            session["agent"]
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn the_picker_and_the_header_show_the_figure_list_gives_on_every_corpus_project() {
    let Some(root) = corpus_root() else { return };
    tui_agrees(&root);
}

/// The TUI's picker rows and each project's header against `list` over `root`.
fn tui_agrees(root: &Path) {
    let sandbox = Sandbox::new();
    let list = sandbox
        .run(&["list", "--json", "--root", root.to_str().unwrap()])
        .json();
    let rows = list["projects"].as_array().unwrap();
    let mut h = Tui::options(root).size(240, rows.len() as u16 + 12).start();
    h.pump_until("the figures", |app| {
        app.projects.picker.counted == rows.len()
    });
    let screen = h.settled_screen();
    for row in rows {
        let name = row["name"].as_str().unwrap();
        let line = screen
            .lines()
            .find(|l| l.contains(&format!(" {name} ")))
            .unwrap_or_else(|| panic!("no picker row for {name}:\n{screen}"));
        let verdict = row["budget"].as_str().unwrap_or("—");
        let agent = row["agent"].as_str().unwrap_or("own tools");
        let shown = format!("{} {verdict:<4} {agent}", tui_figure(row));
        assert!(
            line.contains(&shown),
            "{name}: list gives {shown:?}, the picker:\n{line}"
        );
        if row["budget_limit"].is_null() {
            assert!(!line.contains('▰'), "{name}: a bar with no budget:\n{line}");
        }
        if session_tokens(row) == 0 {
            assert!(!line.contains('▰'), "{name}: a filled cell for 0:\n{line}");
        }
    }
    drop(h);

    // Each project's header is drawn by a TUI of its own, which mostly waits for its
    // workers to settle: a few threads draw them side by side, compared here in order.
    const DRAWING_THREADS: usize = 4;
    let chunk = rows.len().div_ceil(DRAWING_THREADS).max(1);
    let headers: Vec<String> = std::thread::scope(|scope| {
        let threads: Vec<_> = rows
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|row| {
                            let name = row["name"].as_str().unwrap();
                            let mut h = Tui::options(root).size(240, 40).start();
                            h.open_project(name);
                            assert_eq!(
                                h.app.tree.report.as_ref().unwrap().name,
                                name,
                                "the filter opened another project"
                            );
                            let screen = h.settled_screen();
                            screen.lines().next().unwrap().to_string()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        threads
            .into_iter()
            .flat_map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    for (row, header) in rows.iter().zip(&headers) {
        let name = row["name"].as_str().unwrap();
        let whose = match row["agent"].as_str() {
            Some(id) => format!("{}'s start", Agent::from_id(id).unwrap().label()),
            None => "start, through the banks' own tools".to_string(),
        };
        let verdict = row["budget"]
            .as_str()
            .map_or(String::new(), |v| format!(" {v}"));
        let shown = format!("{} tok at {whose}{verdict}", tui_figure(row));
        assert!(
            header.contains(&shown),
            "{name}: list gives {shown:?}, the header:\n{header}"
        );
    }
}

/// Claude Code's session start in `project` under `root` as `context` counts it: every
/// piece of the project it loads, imports and all.
fn context_session(sandbox: &Sandbox, root: &Path, project: &str) -> u64 {
    let context = sandbox.run(&[
        "context",
        "--json",
        "--agent",
        "claude-code",
        "--root",
        root.to_str().unwrap(),
        project,
    ]);
    context.expect_code(0);
    let context = context.json();
    context["projects"][0]["sessions"][0]["banks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|bank| bank["pieces"].as_array().unwrap())
        .filter(|piece| piece["scope"] == "project")
        .map(|piece| piece["tokens"].as_u64().unwrap())
        .sum()
}

/// The session figure `list` gives the one project under `root`, and its agent.
fn listed_session(sandbox: &Sandbox, root: &Path) -> (u64, Value) {
    let list = sandbox.run(&["list", "--json", "--root", root.to_str().unwrap()]);
    list.expect_code(0);
    let row = list.json()["projects"][0].clone();
    (session_tokens(&row), row["agent"].clone())
}

#[test]
fn claude_code_s_session_holds_what_claude_md_imports_each_file_once() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    put(root, "app/AGENTS.md", &sized("Agents", 300));
    put(root, "app/docs/guide.md", &sized("Guide", 120));
    put(root, "app/.claude/rules/style.md", &sized("Style", 40));
    // The rule file loads on its own too: imported again, it still counts once.
    put(
        root,
        "app/CLAUDE.md",
        "# App\n\n@AGENTS.md\n@docs/guide.md\n@.claude/rules/style.md\n",
    );
    let sandbox = Sandbox::new();
    let (listed, agent) = listed_session(&sandbox, root);
    assert_eq!(agent, "claude-code");
    assert_eq!(listed, context_session(&sandbox, root, "app"));
    assert!(listed > 460, "{listed}: the imports are counted");
    // An imported file outside every bank, edited: the remembered row sees it.
    sandbox.settle();
    put(root, "app/docs/guide.md", &sized("Guide", 400));
    let (edited, _) = listed_session(&sandbox, root);
    assert_eq!(edited, context_session(&sandbox, root, "app"));
    assert!(edited > listed, "{edited} after {listed}");
}
