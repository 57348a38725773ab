//! `mbank context` shows each agent's own session start: `--agent NAME` only that agent's
//! files, without it one section per agent with its own total and no total across agents;
//! Windsurf's 12,000-character cut applies to what its session counts.
use crate::common;

use std::path::{Path, PathBuf};

use common::{Sandbox, write};
use serde_json::Value;

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The Windsurf rule's body: 20,000 characters with the frontmatter, some of them
/// two bytes long, so a cut by bytes and a cut by characters differ.
fn big_rule() -> String {
    let head = "---\ntrigger: always_on\n---\n# Style\n";
    let line = "Prefer small functions; naïve code is fine when clear.\n";
    let mut text = head.to_string();
    while text.chars().count() + line.chars().count() <= 20_000 {
        text.push_str(line);
    }
    let missing = 20_000 - text.chars().count();
    text.push_str(&"x".repeat(missing));
    assert_eq!(text.chars().count(), 20_000);
    text
}

/// CLAUDE.md + AGENTS.md + a Cline memory bank + one 20,000-character always-on
/// Windsurf rule.
fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(
        &p.join("CLAUDE.md"),
        "# Claude rules\n\nRun the tests first.\n",
    );
    write(
        &p.join("AGENTS.md"),
        "# Agent rules\n\nKeep commits small and described.\n",
    );
    write(
        &p.join("memory-bank/projectbrief.md"),
        "# Brief\n\nA shop for garden tools.\n",
    );
    write(
        &p.join("memory-bank/activeContext.md"),
        "# Active\n\nWorking on the checkout.\n",
    );
    write(&p.join(".windsurf/rules/style.md"), &big_rule());
    (dir, p)
}

fn context(sandbox: &Sandbox, p: &Path, more: &[&str]) -> Value {
    let mut args = vec!["context", s(p), "--json", "--no-user"];
    args.extend_from_slice(more);
    sandbox.run(&args).expect_code(0).json()
}

fn formats(banks: &Value) -> Vec<&str> {
    banks
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["format"].as_str().unwrap())
        .collect()
}

/// The reference tokenizer (OpenAI's, for the default o200k_base), not mbank's own.
fn tokens_of(text: &str) -> u64 {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len() as u64
}

#[test]
fn agent_claude_code_shows_only_claude_md() {
    let sandbox = Sandbox::new();
    let (_dir, p) = project();
    let json = context(&sandbox, &p, &["--agent", "claude-code"]);
    let project = &json["projects"][0];
    let sessions = project["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1);
    let session = &sessions[0];
    assert_eq!(session["agent"], "claude-code");
    assert_eq!(formats(&session["banks"]), ["claude-md"]);
    assert_eq!(formats(&project["banks"]), ["claude-md"]);
    let pieces = session["banks"][0]["pieces"].as_array().unwrap();
    let shown: Vec<&str> = pieces
        .iter()
        .map(|p| p["display"].as_str().unwrap())
        .collect();
    assert_eq!(shown, ["CLAUDE.md"]);
    let claude_tokens = tokens_of("# Claude rules\n\nRun the tests first.\n");
    assert_eq!(pieces[0]["tokens"].as_u64(), Some(claude_tokens));
    assert_eq!(session["total_tokens"].as_u64(), Some(claude_tokens));

    let text = sandbox.run(&["context", s(&p), "--no-user", "--agent", "claude-code"]);
    text.expect_code(0);
    assert!(
        text.stdout.contains("Run the tests first."),
        "{}",
        text.stdout
    );
    assert!(
        !text.stdout.contains("Keep commits small"),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains("garden tools"), "{}", text.stdout);
    assert!(
        text.stdout.contains(&format!(
            "Claude Code total: {claude_tokens} tokens at session start"
        )),
        "{}",
        text.stdout
    );
}

#[test]
fn agent_windsurf_counts_only_the_first_12000_characters_of_a_rule() {
    let sandbox = Sandbox::new();
    let (_dir, p) = project();
    let json = context(&sandbox, &p, &["--agent", "windsurf"]);
    let session = &json["projects"][0]["sessions"][0];
    assert_eq!(session["agent"], "windsurf");
    assert_eq!(formats(&session["banks"]), ["windsurf"]);
    let bank = &session["banks"][0];
    let piece = &bank["pieces"][0];
    let rule = big_rule();
    let kept: String = rule.chars().take(12_000).collect();
    assert_eq!(piece["text"].as_str().unwrap(), kept);
    assert_eq!(piece["bytes"].as_u64(), Some(kept.len() as u64));
    let kept_tokens = tokens_of(&kept);
    assert_eq!(piece["tokens"].as_u64(), Some(kept_tokens));
    assert_eq!(session["total_tokens"].as_u64(), Some(kept_tokens));
    let cut = &bank["cutoffs"][0];
    assert_eq!(cut["kept_bytes"].as_u64(), Some(kept.len() as u64));
    assert_eq!(
        cut["dropped_bytes"].as_u64(),
        Some((rule.len() - kept.len()) as u64)
    );
    assert!(
        cut["rule"].as_str().unwrap().contains("12,000 characters"),
        "{cut}"
    );

    let text = sandbox.run(&["context", s(&p), "--no-user", "--agent", "windsurf"]);
    text.expect_code(0);
    assert!(text.stdout.contains("cut off"), "{}", text.stdout);
    assert!(
        text.stdout.contains("cut after 12000 characters"),
        "{}",
        text.stdout
    );
}

#[test]
fn without_agent_each_session_stands_apart_with_no_total_across_agents() {
    let sandbox = Sandbox::new();
    let (_dir, p) = project();
    let json = context(&sandbox, &p, &[]);
    let project = &json["projects"][0];
    assert!(project.get("total_tokens").is_none(), "{project:#}");
    let sessions = project["sessions"].as_array().unwrap();
    let agents: Vec<&str> = sessions
        .iter()
        .map(|s| s["agent"].as_str().unwrap())
        .collect();
    // Kilo Code reads the AGENTS.md at the top by default, as its own rules; Zed the
    // first of its list present (here AGENTS.md, before CLAUDE.md), whole.
    assert_eq!(
        agents,
        [
            "claude-code",
            "codex",
            "cline",
            "kilo",
            "windsurf",
            "zed",
            "opencode"
        ]
    );
    let expected_formats = [
        vec!["claude-md"],
        vec!["agents-md"],
        vec!["cline"],
        vec!["kilo-code"],
        vec!["windsurf"],
        vec!["zed-rules"],
        vec!["opencode"],
    ];
    for (session, expected) in sessions.iter().zip(expected_formats) {
        assert_eq!(formats(&session["banks"]), expected);
        let sum: u64 = session["banks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["total_tokens"].as_u64().unwrap())
            .sum();
        assert!(sum > 0);
        assert_eq!(session["total_tokens"].as_u64(), Some(sum));
    }
    // Every bank stays listed once, as before sessions were split.
    assert_eq!(
        formats(&project["banks"]),
        ["cline", "claude-md", "agents-md", "windsurf"]
    );

    let text = sandbox.run(&["context", s(&p), "--no-user", "--summary", "--no-color"]);
    text.expect_code(0);
    let out = &text.stdout;
    for label in [
        "Claude Code",
        "Codex",
        "Cline",
        "Kilo Code",
        "Windsurf",
        "Zed",
    ] {
        assert_eq!(
            out.matches(&format!("▶ {label} session start")).count(),
            1,
            "{out}"
        );
        assert_eq!(
            out.matches(&format!("\n{label} total: ")).count(),
            1,
            "{out}"
        );
    }
    assert_eq!(out.matches("tokens at session start").count(), 7, "{out}");
    assert!(!out.contains("app total:"), "{out}");
    // Sections follow one another: Claude Code's holds CLAUDE.md and nothing of Codex.
    let claude = out.find("▶ Claude Code session start").unwrap();
    let codex = out.find("▶ Codex session start").unwrap();
    assert!(claude < codex);
    assert!(out[claude..codex].contains("CLAUDE.md"));
    assert!(!out[claude..codex].contains("AGENTS.md"));
}

#[test]
fn an_unknown_agent_exits_2_naming_the_agents() {
    let sandbox = Sandbox::new();
    let (_dir, p) = project();
    let run = sandbox.run(&["context", s(&p), "--agent", "vim"]);
    run.expect_code(2);
    for name in [
        "claude-code",
        "codex",
        "gemini",
        "cline",
        "roo",
        "kilo",
        "cursor",
        "copilot",
        "windsurf",
        "kiro",
        "junie",
        "zed",
        "trae",
        "opencode",
    ] {
        assert!(run.stderr.contains(name), "{}", run.stderr);
    }
    let json = sandbox.run(&["context", s(&p), "--agent", "vim", "--json"]);
    json.expect_code(2);
    let error = &json.json()["error"];
    assert_eq!(error["code"], "unknown-agent");
    assert_eq!(error["agent"], "vim");
    assert_eq!(error["agents"].as_array().unwrap().len(), 14);
}

#[test]
fn list_shows_one_agents_session_start_and_names_that_agent() {
    let sandbox = Sandbox::new();
    let (dir, p) = project();
    let list = sandbox
        .run(&["list", "--root", s(dir.path()), "--json"])
        .expect_code(0)
        .json();
    let row = &list["projects"][0];
    let sessions: Vec<(&str, u64)> = row["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["agent"].as_str().unwrap(), s["tokens"].as_u64().unwrap()))
        .collect();
    let agents: Vec<&str> = sessions.iter().map(|(a, _)| *a).collect();
    assert_eq!(
        agents,
        [
            "claude-code",
            "codex",
            "cline",
            "kilo",
            "windsurf",
            "zed",
            "opencode"
        ]
    );
    // Each agent's figure is what it loads: its files alone, counted whole.
    for agent in ["claude-code", "codex", "cline", "kilo"] {
        let json = context(&sandbox, &p, &["--agent", agent]);
        let total = json["projects"][0]["sessions"][0]["total_tokens"].as_u64();
        let listed = sessions.iter().find(|(a, _)| *a == agent).map(|(_, t)| *t);
        assert_eq!(listed, total, "{agent}");
    }
    let windsurf = sessions.iter().find(|(a, _)| *a == "windsurf").unwrap().1;
    assert_eq!(windsurf, tokens_of(&big_rule()));
    // The column shows the heaviest session, names it, and never adds sessions up.
    let heaviest = sessions.iter().map(|(_, t)| *t).max().unwrap();
    assert_eq!(row["agent"], "windsurf");
    assert_eq!(row["loaded_tokens"].as_u64(), Some(heaviest));
    let sum: u64 = sessions.iter().map(|(_, t)| *t).sum();
    assert!(heaviest < sum);

    let text = sandbox.run(&["list", "--root", s(dir.path()), "--no-color"]);
    text.expect_code(0);
    let header = text.stdout.lines().next().unwrap();
    assert!(
        header.contains("tokens") && header.contains("session"),
        "{header}"
    );
    let line = text.stdout.lines().find(|l| l.starts_with("app")).unwrap();
    let figure = heaviest.to_string();
    let with_commas = if figure.len() > 3 {
        format!(
            "{},{}",
            &figure[..figure.len() - 3],
            &figure[figure.len() - 3..]
        )
    } else {
        figure
    };
    assert!(
        line.contains(&format!("{with_commas}  windsurf")),
        "{}",
        text.stdout
    );
}

#[test]
fn list_names_no_agent_for_banks_read_through_their_own_tools() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("beans/BEANS.md"),
        "# Beans\n\nPlain notes.\n",
    );
    let list = sandbox
        .run(&["list", "--root", s(dir.path()), "--json"])
        .expect_code(0)
        .json();
    let row = &list["projects"][0];
    assert_eq!(row["agent"], Value::Null);
    assert_eq!(row["sessions"], serde_json::json!([]));
    assert_eq!(
        row["loaded_tokens"].as_u64(),
        Some(tokens_of("# Beans\n\nPlain notes.\n"))
    );
}
