//! Names, paths, titles and content reach a terminal only through the sanitiser: a
//! project folder named with escape sequences, bidi and zero-width characters, a file and
//! a decision title with the same, and content holding them, printed by every text
//! command of the real binary and drawn by the TUI. No output byte may be a control a
//! terminal would act on; each hidden character shows as its visible marker; `--json`
//! keeps the exact names.
use crate::common;

use std::path::{Path, PathBuf};

use common::tui::Tui;
use common::{Run, Sandbox, write};
use crossterm::event::KeyCode;

/// Sets the terminal title, clears the screen, starts a C1 CSI, reverses the text that
/// follows and hides a zero-width space.
const HOSTILE: &str = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m\u{202E}gpj.\u{200B}x";

/// What each piece of [`HOSTILE`] must look like once printed.
const MARKERS: [&str; 5] = ["␛]0;pwned␇", "␛[2J", "⟨U+009B⟩31m", "⟨U+202E⟩", "⟨U+200B⟩"];

fn project_name() -> String {
    format!("evil{HOSTILE}")
}

fn file_name() -> String {
    format!("notes{HOSTILE}.md")
}

/// A root with one Cline project whose folder, one file name, one decision title and
/// the content of its files all carry [`HOSTILE`].
fn hostile_root(temp: &Path) -> (PathBuf, PathBuf) {
    let root = temp.join("root");
    let project = root.join(project_name());
    let bank = project.join("memory-bank");
    write(
        &bank.join("projectbrief.md"),
        &format!("# Brief\n\nA shop {HOSTILE} for tea.\n"),
    );
    write(&bank.join("activeContext.md"), "# Active\n\nCheckout.\n");
    write(&bank.join("progress.md"), "# Progress\n\nCart.\n");
    write(
        &bank.join("decisionLog.md"),
        &format!(
            "# Decision Log\n\n## 2025-03-02 - Pay {HOSTILE} by card\n\n**Decision:** cards\n"
        ),
    );
    write(
        &bank.join(file_name()),
        &format!("# Notes {HOSTILE}\n\nline two {HOSTILE}\n"),
    );
    (root, project)
}

/// The forbidden characters: C0 controls (line feed, tab and carriage return excepted:
/// the output is multi-line), DEL, C1 controls, bidi controls, zero-width characters.
fn forbidden(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{61c}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

fn assert_clean(what: &str, text: &str) {
    let bad: Vec<String> = text
        .chars()
        .filter(|&c| forbidden(c))
        .map(|c| format!("U+{:04X}", c as u32))
        .collect();
    assert!(bad.is_empty(), "{what} printed {bad:?}:\n{text:?}");
}

fn assert_shows_markers(what: &str, text: &str) {
    for marker in MARKERS {
        assert!(text.contains(marker), "{what} lacks {marker:?}:\n{text}");
    }
}

fn run(sandbox: &Sandbox, root: &Path, args: &[&str]) -> Run {
    let mut full = vec!["--root", root.to_str().unwrap()];
    full.extend_from_slice(args);
    let run = sandbox.run(&full);
    assert_clean(&format!("{args:?} (stdout)"), &run.stdout);
    assert_clean(&format!("{args:?} (stderr)"), &run.stderr);
    run
}

#[test]
fn every_text_command_shows_hidden_characters_as_markers() {
    let temp = tempfile::tempdir().unwrap();
    let (root, project) = hostile_root(temp.path());
    let sandbox = Sandbox::new();
    let project_arg = project.to_str().unwrap();
    // The project name, file names, titles and content each carry every marker.
    for args in [
        vec!["list"],
        vec!["check"],
        vec!["timeline"],
        vec!["review", project_arg],
        vec!["tokens", project_arg],
        vec!["context", project_arg],
    ] {
        let out = run(&sandbox, &root, &args);
        assert!(out.code == 0 || out.code == 1, "{args:?}: {out:?}");
        assert_shows_markers(&format!("{args:?}"), &out.stdout);
    }
    // Content keeps its line breaks: `context` prints the file's lines as lines.
    let context = run(&sandbox, &root, &["context", project_arg]);
    assert!(
        context.stdout.contains(&format!(
            "# Notes {}\n\nline two ",
            "␛]0;pwned␇␛[2J⟨U+009B⟩31m⟨U+202E⟩gpj.⟨U+200B⟩x"
        )),
        "{}",
        context.stdout
    );
    // An error naming a hostile path says so on stderr, just as cleanly.
    let missing = format!("{}/gone{HOSTILE}", root.display());
    let error = run(&sandbox, &root, &["tokens", &missing]);
    error.expect_code(2);
    assert!(error.stderr.contains("gone␛]0;pwned␇"), "{}", error.stderr);
}

#[test]
fn json_output_keeps_the_exact_names() {
    let temp = tempfile::tempdir().unwrap();
    let (root, project) = hostile_root(temp.path());
    let sandbox = Sandbox::new();
    let root_arg = root.to_str().unwrap();
    let list = sandbox.run(&["--root", root_arg, "list", "--json"]);
    list.expect_code(0);
    assert!(
        !list.stdout.contains('\u{1b}'),
        "serde escapes controls: {}",
        list.stdout
    );
    assert_eq!(list.json()["projects"][0]["name"], project_name().as_str());
    let timeline = sandbox.run(&["--root", root_arg, "timeline", "--json"]);
    let title = timeline.json()["projects"][0]["decisions"][0]["title"].clone();
    assert_eq!(title, format!("Pay {HOSTILE} by card").as_str());
    let tokens = sandbox.run(&[
        "--root",
        root_arg,
        "tokens",
        project.to_str().unwrap(),
        "--json",
    ]);
    let displays: Vec<String> = tokens.json()["banks"][0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["display"].as_str().unwrap().to_string())
        .collect();
    assert!(
        displays.contains(&format!("memory-bank/{}", file_name())),
        "{displays:?}"
    );
}

#[test]
fn the_tui_draws_names_and_titles_with_markers() {
    let temp = tempfile::tempdir().unwrap();
    let (root, _) = hostile_root(temp.path());
    let mut driver = Tui::start(&root);
    driver.pump_until("the scan", |app| app.projects.picker.visible_len() == 1);
    let picker = driver.screen();
    assert_clean("the picker", &picker);
    assert!(picker.contains("evil␛]0;pwned␇"), "{picker}");
    driver.key(KeyCode::Enter);
    driver.pump_until("the project's report", |app| app.tree.report.is_some());
    let project = driver.screen();
    assert_clean("the project screen", &project);
    // The status bar and the tree's title carry the project name, the tree the file.
    assert!(project.contains("evil␛]0;pwned␇"), "{project}");
    assert!(project.contains("notes␛]0;pwned␇"), "{project}");
    // The timeline's titles.
    driver.key(KeyCode::Esc);
    driver.key(KeyCode::Char('t'));
    let timeline = driver.screen();
    assert_clean("the timeline", &timeline);
    assert!(timeline.contains("Decisions: 1 of 1"), "{timeline}");
    assert!(timeline.contains("Pay ␛]0;pwned␇"), "{timeline}");
}
