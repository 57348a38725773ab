use super::*;
use crate::scan::{bank, discovery};
use std::fs;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A project holding `files` (project-relative path, text), and its banks as listed.
fn project_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Project, Vec<Bank>) {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap().join("p");
    for (rel, text) in files {
        write(&root.join(rel), text);
    }
    let project = discovery::project_at(&root, "p".into()).unwrap();
    let banks = bank::list_banks(&project);
    (dir, project, banks)
}

fn options() -> ContextOptions {
    ContextOptions {
        home: None,
        include_user_files: false,
        include_ancestors: false,
        codex_home: None,
    }
}

fn bytes(text: &str) -> usize {
    text.len()
}

fn fit_by(
    project: &Project,
    banks: &[Bank],
    agent: Option<Agent>,
    max_tokens: usize,
    count: &dyn Fn(&str) -> usize,
) -> Result<FittedContext, FitError> {
    let banks: Vec<&Bank> = banks.iter().collect();
    let options = options();
    let request = FitRequest {
        agent,
        max_tokens,
        encoding: Encoding::O200k,
        options: &options,
        mode: None,
    };
    fit_counted(project, &banks, &request, count)
}

fn o200k(text: &str) -> usize {
    tokens::count(Encoding::O200k, text)
}

fn cline_bank() -> [(&'static str, String); 3] {
    let lines = |name: &str, n: usize| -> String {
        (1..=n).map(|i| format!("- {name} note {i}\n")).collect()
    };
    [
        (
            "memory-bank/projectbrief.md",
            format!("# Brief\n{}", lines("brief", 4)),
        ),
        (
            "memory-bank/activeContext.md",
            format!("# Active\n{}", lines("active", 20)),
        ),
        (
            "memory-bank/progress.md",
            format!("# Progress\n{}", lines("progress", 6)),
        ),
    ]
}

fn files_of<'b>(bank: &'b [(&'static str, String)]) -> Vec<(&'static str, &'b str)> {
    bank.iter()
        .map(|(rel, text)| (*rel, text.as_str()))
        .collect()
}

fn block(display: &str, text: &str) -> String {
    format!("<file path=\"{display}\">\n{text}</file>\n")
}

fn displays(fitted: &FittedContext) -> Vec<&str> {
    fitted.files.iter().map(|f| f.display.as_str()).collect()
}

fn reasons(fitted: &FittedContext) -> Vec<(&str, Option<usize>, Option<usize>, LeftOutReason)> {
    fitted
        .left_out
        .iter()
        .map(|l| (l.display.as_str(), l.first_line, l.last_line, l.reason))
        .collect()
}

#[test]
fn a_budget_that_holds_everything_returns_every_file_whole_in_load_order() {
    let bank = cline_bank();
    let (_dir, project, banks) = project_with(&files_of(&bank));
    let fitted = fit_by(&project, &banks, None, 100_000, &bytes).unwrap();
    assert_eq!(
        (fitted.agent, fitted.chosen),
        (Agent::Cline, AgentChoice::Primary)
    );
    // The order is the session's, as `mbank context --agent cline` shows it.
    let banks_ref: Vec<&Bank> = banks.iter().collect();
    let session = agent_session(&project, &banks_ref, Agent::Cline, &|_| 0, &options(), None);
    let order: Vec<&str> = session.banks[0]
        .pieces
        .iter()
        .map(|p| p.display.as_str())
        .collect();
    assert_eq!(displays(&fitted), order);
    let expected: String = session.banks[0]
        .pieces
        .iter()
        .map(|p| block(&p.display, &p.text))
        .collect();
    assert_eq!(fitted.text, expected);
    assert_eq!(fitted.tokens, expected.len());
    assert_eq!(fitted.whole_tokens, expected.len());
    assert!(fitted.files.iter().all(|f| f.whole));
    assert_eq!(
        fitted.files.iter().map(|f| f.tokens).sum::<usize>(),
        fitted.tokens
    );
    assert!(fitted.left_out.is_empty(), "{:?}", fitted.left_out);
}

#[test]
fn the_file_that_crosses_the_budget_is_cut_at_a_line_and_later_ones_left_out() {
    let bank = cline_bank();
    let (_dir, project, banks) = project_with(&files_of(&bank));
    let whole = fit_by(&project, &banks, None, usize::MAX, &bytes).unwrap();
    let [first, second, third] = [0, 1, 2].map(|i| whole.files[i].clone());
    // The first file whole, then the second's header and its first three lines.
    let second_text = &whole.text[first.tokens..first.tokens + second.tokens];
    let body: String = second_text
        .lines()
        .skip(1)
        .take(3)
        .map(|l| format!("{l}\n"))
        .collect();
    let cut_block = format!(
        "<file path=\"{}\" cut=\"after line 3\">\n{body}</file>\n",
        second.display
    );
    let budget = first.tokens + cut_block.len() + 5;
    let fitted = fit_by(&project, &banks, None, budget, &bytes).unwrap();
    assert_eq!(
        fitted.text,
        format!("{}{cut_block}", &whole.text[..first.tokens])
    );
    assert_eq!(fitted.tokens, fitted.text.len());
    assert!(fitted.tokens <= budget);
    assert_eq!(fitted.files.len(), 2);
    assert!(fitted.files[0].whole && !fitted.files[1].whole);
    assert_eq!(fitted.files[1].last_line, 3);
    let last_line = second_text.lines().count() - 2;
    assert_eq!(
        reasons(&fitted),
        vec![
            (
                second.display.as_str(),
                Some(4),
                Some(last_line),
                LeftOutReason::Budget
            ),
            (third.display.as_str(), None, None, LeftOutReason::Budget),
        ]
    );
    assert_eq!(fitted.left_out[1].tokens, Some(third.tokens));
    assert!(
        fitted.left_out[1].message.ends_with(&format!(
            "it runs out before this file ({} tokens whole)",
            third.tokens
        )),
        "{}",
        fitted.left_out[1].message
    );
    assert_eq!(
        fitted.left_out[0].message,
        format!(
            "{}: lines 4–{last_line} are past the {}-token budget",
            second.display,
            thousands(budget as u64)
        )
    );
    assert_eq!(fitted.whole_tokens, whole.tokens);
}

#[test]
fn a_zero_budget_returns_nothing_and_lists_every_file() {
    let bank = cline_bank();
    let (_dir, project, banks) = project_with(&files_of(&bank));
    let fitted = fit_by(&project, &banks, None, 0, &o200k).unwrap();
    assert_eq!((fitted.text.as_str(), fitted.tokens), ("", 0));
    assert!(fitted.files.is_empty());
    assert_eq!(fitted.left_out.len(), 3);
    assert!(
        fitted
            .left_out
            .iter()
            .all(|l| l.reason == LeftOutReason::Budget
                && l.first_line.is_none()
                && l.tokens.is_some_and(|t| t > 0))
    );
}

#[test]
fn a_budget_below_the_first_line_leaves_the_first_file_out_whole() {
    let (_dir, project, banks) = project_with(&[(
        "CLAUDE.md",
        "# A first line long enough to need more than ten tokens on its own, surely\nmore\n",
    )]);
    let header_only = o200k(&block("CLAUDE.md", ""));
    let fitted = fit_by(&project, &banks, None, header_only + 3, &o200k).unwrap();
    assert_eq!(fitted.agent, Agent::ClaudeCode);
    assert_eq!(fitted.text, "");
    assert_eq!(fitted.tokens, 0);
    assert_eq!(
        reasons(&fitted),
        vec![("CLAUDE.md", None, None, LeftOutReason::Budget)]
    );
    assert!(
        fitted.left_out[0]
            .message
            .contains("not even the file's first line fits"),
        "{}",
        fitted.left_out[0].message
    );
}

#[test]
fn exact_counts_in_o200k_never_pass_the_budget_at_any_size() {
    let bank = cline_bank();
    let (_dir, project, banks) = project_with(&files_of(&bank));
    let whole = fit_by(&project, &banks, None, usize::MAX, &o200k).unwrap();
    assert_eq!(whole.tokens, o200k(&whole.text));
    let mut previous = 0;
    for budget in 0..=whole.tokens + 2 {
        let fitted = fit_by(&project, &banks, None, budget, &o200k).unwrap();
        assert_eq!(fitted.tokens, o200k(&fitted.text), "budget {budget}");
        assert!(fitted.tokens <= budget, "budget {budget}");
        // A larger budget never returns less.
        assert!(fitted.text.len() >= previous, "budget {budget}");
        previous = fitted.text.len();
    }
}

#[test]
fn a_join_that_costs_more_than_its_blocks_is_fitted_again() {
    // Each block alone counts its bytes; every join between two blocks costs 50 more.
    let joins = |text: &str| text.len() + 50 * text.matches("\n<file").count();
    let bank = cline_bank();
    let (_dir, project, banks) = project_with(&files_of(&bank));
    let by_blocks = fit_by(&project, &banks, None, usize::MAX, &bytes).unwrap();
    let budget = by_blocks.tokens;
    let fitted = fit_by(&project, &banks, None, budget, &joins).unwrap();
    assert!(fitted.tokens <= budget, "{} > {budget}", fitted.tokens);
    assert_eq!(fitted.tokens, joins(&fitted.text));
    assert!(fitted.text.len() < by_blocks.text.len());
    assert!(!fitted.left_out.is_empty());
}

#[test]
fn private_blocks_are_never_returned_and_lines_keep_the_files_numbering() {
    let text = "# Notes\nkeep one\n<private>\nsecret token\n</private>\nkeep two\n\
                keep three, a line too long to fit in the budget below\n";
    let (_dir, project, banks) = project_with(&[("CLAUDE.md", text)]);
    let fitted = fit_by(&project, &banks, None, usize::MAX, &bytes).unwrap();
    assert!(!fitted.text.contains("secret"), "{}", fitted.text);
    assert!(!fitted.text.contains("<private>"));
    assert_eq!(fitted.files[0].last_line, 7);
    assert_eq!(
        reasons(&fitted),
        vec![("CLAUDE.md", Some(3), Some(5), LeftOutReason::Private)]
    );
    // Cut after "keep two", line 6 of the file: the budget's lines start at 7.
    let kept = "# Notes\nkeep one\nkeep two\n";
    let cut = format!("<file path=\"CLAUDE.md\" cut=\"after line 6\">\n{kept}</file>\n");
    let fitted = fit_by(&project, &banks, None, cut.len(), &bytes).unwrap();
    assert_eq!(fitted.text, cut);
    assert_eq!(
        reasons(&fitted),
        vec![
            ("CLAUDE.md", Some(3), Some(5), LeftOutReason::Private),
            ("CLAUDE.md", Some(7), Some(7), LeftOutReason::Budget),
        ]
    );
}

#[test]
fn a_conkeeper_file_is_numbered_as_on_disk_though_its_blocks_were_stripped() {
    let text = "# Active\n<private>\na\nb\n</private>\none\ntwo\nthree\n";
    let (_dir, project, banks) = project_with(&[
        (".claude/memory/active-context.md", text),
        (".claude/memory/product-context.md", "# Product\n"),
    ]);
    assert!(banks.iter().any(|b| b.format == Format::ConKeeper));
    let whole = fit_by(&project, &banks, None, usize::MAX, &bytes).unwrap();
    let active = whole
        .files
        .iter()
        .find(|f| f.display.ends_with("active-context.md"))
        .unwrap();
    assert_eq!(active.last_line, 8);
    assert!(!whole.text.contains("\na\n"));
    let private: Vec<_> = whole
        .left_out
        .iter()
        .filter(|l| l.reason == LeftOutReason::Private)
        .map(|l| (l.first_line, l.last_line))
        .collect();
    assert_eq!(private, vec![(Some(2), Some(5))]);
}

#[test]
fn a_private_file_is_left_out_whole() {
    let (_dir, project, banks) = project_with(&[
        ("CLAUDE.md", "# Main\n"),
        (
            ".claude/rules/keys.md",
            "---\nprivate: true\n---\nthe keys\n",
        ),
    ]);
    let fitted = fit_by(&project, &banks, None, usize::MAX, &bytes).unwrap();
    assert!(!fitted.text.contains("the keys"), "{}", fitted.text);
    assert_eq!(displays(&fitted), ["CLAUDE.md"]);
    assert_eq!(
        reasons(&fitted),
        vec![(".claude/rules/keys.md", None, None, LeftOutReason::Private)]
    );
}

#[test]
fn a_file_over_the_agents_own_limit_is_returned_as_the_agent_loads_it() {
    let rule = format!("---\ntrigger: always_on\n---\n{}\n", "w".repeat(12_500));
    let (_dir, project, banks) = project_with(&[(".windsurf/rules/style.md", &rule)]);
    let fitted = fit_by(&project, &banks, Some(Agent::Windsurf), usize::MAX, &bytes).unwrap();
    assert_eq!(fitted.chosen, AgentChoice::Named);
    assert!(fitted.files[0].whole);
    assert!(fitted.text.len() < rule.len(), "the agent's cut applies");
    let limit = &fitted.left_out[0];
    assert_eq!(limit.reason, LeftOutReason::LoadLimit);
    assert_eq!((limit.first_line, limit.last_line), (Some(4), Some(4)));
    assert!(
        limit
            .message
            .contains("past Windsurf's 12,000-character limit"),
        "{}",
        limit.message
    );
}

#[test]
fn codex_files_past_its_combined_limit_are_listed_with_the_limit() {
    let line = "x".repeat(99) + "\n";
    let (_dir, project, banks) = project_with(&[
        ("AGENTS.md", &line.repeat(400)),
        ("sub/AGENTS.md", "# Sub\n"),
    ]);
    let fitted = fit_by(&project, &banks, Some(Agent::Codex), usize::MAX, &bytes).unwrap();
    let limits: Vec<_> = fitted
        .left_out
        .iter()
        .filter(|l| l.reason == LeftOutReason::LoadLimit)
        .map(|l| (l.display.as_str(), l.first_line))
        .collect();
    assert!(limits.contains(&("AGENTS.md", Some(328))), "{limits:?}");
}

#[test]
fn files_that_load_later_are_named_as_not_loaded_at_start() {
    let (_dir, project, banks) = project_with(&[
        (
            ".cursor/rules/always.mdc",
            "---\nalwaysApply: true\n---\nalways\n",
        ),
        (
            ".cursor/rules/tests.mdc",
            "---\nglobs: \"**/*.test.ts\"\nalwaysApply: false\n---\ntests\n",
        ),
    ]);
    let fitted = fit_by(&project, &banks, Some(Agent::Cursor), usize::MAX, &bytes).unwrap();
    assert_eq!(displays(&fitted), [".cursor/rules/always.mdc"]);
    let later = &fitted.left_out[0];
    assert_eq!(
        (later.display.as_str(), later.reason),
        (".cursor/rules/tests.mdc", LeftOutReason::NotAtStart)
    );
    assert!(later.message.contains("on demand"), "{}", later.message);
}

#[test]
fn an_agent_without_files_here_is_an_error_naming_the_agents_that_have_some() {
    let bank = cline_bank();
    let (_dir, project, banks) = project_with(&files_of(&bank));
    let error = fit_by(&project, &banks, Some(Agent::Codex), 1000, &bytes).unwrap_err();
    assert_eq!(error.agents(), [Agent::Cline]);
    assert_eq!(
        error.to_string(),
        "Codex loads nothing from p; agents that do: cline (Cline)"
    );
}

#[test]
fn the_primary_agent_is_the_first_mbank_context_shows() {
    let (_dir, project, banks) =
        project_with(&[("AGENTS.md", "# Codex\n"), ("CLAUDE.md", "# Claude\n")]);
    let fitted = fit_by(&project, &banks, None, 1000, &bytes).unwrap();
    assert_eq!(
        (fitted.agent, fitted.chosen),
        (Agent::ClaudeCode, AgentChoice::Primary)
    );
    let codex = fit_by(&project, &banks, Some(Agent::Codex), 1000, &bytes).unwrap();
    assert_eq!(displays(&codex), ["AGENTS.md"]);
}

#[test]
fn paths_are_escaped_in_block_headers() {
    assert_eq!(
        escape_attribute("a\"b<c>&d.md"),
        "a&quot;b&lt;c&gt;&amp;d.md"
    );
}

#[test]
fn a_project_no_agent_loads_from_is_an_error() {
    let (_dir, project, banks) = project_with(&[("BEANS.md", "# Beans\n")]);
    assert!(!banks.is_empty());
    let error = fit_by(&project, &banks, None, 1000, &bytes).unwrap_err();
    assert_eq!(
        error,
        FitError::NoAgent {
            project: "p".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "no agent loads anything from p at session start"
    );
}
