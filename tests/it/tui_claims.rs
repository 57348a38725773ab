//! Claims in the TUI: a git repository whose memory names a path renamed since, opened in
//! the app; the editor and preview mark the claim's line, and the findings panel applies
//! the rename through the editor's guarded save.
use crate::common;

use common::git::GitRepo;
use common::tui::Tui;
use crossterm::event::KeyCode;
use mbank::core::findings::Severity;
use mbank::tui::app::Focus;

const PATTERNS: &str =
    "# Patterns\n\nRefunds live in `src/api/refunds_v1.rs`.\n\nThe entry point is `src/main.rs`.\n";

/// A shop whose system patterns name `src/api/refunds_v1.rs` on line 3, renamed to
/// `src/api/refunds.rs` in the last commit.
fn shop_with_a_renamed_path() -> GitRepo {
    let repo = GitRepo::folder("shop");
    repo.init();
    repo.write("src/main.rs", "mod api;\nfn main() {}\n");
    repo.write("src/api/mod.rs", "pub mod refunds_v1;\n");
    repo.write("src/api/refunds_v1.rs", "pub fn refund() {}\n");
    repo.write("memory-bank/projectbrief.md", "# Brief\n\nA shop.\n");
    repo.write("memory-bank/systemPatterns.md", PATTERNS);
    repo.commit_all("first");
    repo.git(&["mv", "src/api/refunds_v1.rs", "src/api/refunds.rs"]);
    repo.write("src/api/mod.rs", "pub mod refunds;\n");
    repo.commit_all("rename refunds");
    repo
}

fn has_rename_finding(app: &mbank::tui::App) -> bool {
    app.findings
        .items
        .iter()
        .any(|f| f.code.id() == "claim-missing-path" && f.fix.is_some())
}

/// Opens the shop and waits for its claim finding.
fn open_shop(repo: &GitRepo) -> Tui {
    let mut h = Tui::start(repo.temp());
    h.open_project("shop");
    h.pump_until("the claim finding", has_rename_finding);
    h
}

/// Shows the findings panel with the rename finding selected.
fn select_the_rename(h: &mut Tui) {
    h.key(KeyCode::Esc);
    if !h.app.show_findings {
        h.key(KeyCode::Char('f'));
    }
    assert_eq!(h.app.focus, Focus::Findings);
    let Some(at) = h.app.findings.items.iter().position(|f| f.fix.is_some()) else {
        panic!("no finding with a fix: {:#?}", h.app.findings.items);
    };
    h.app.findings.cursor.selected = at;
}

#[test]
fn the_editor_and_preview_mark_the_line_of_a_claim_the_code_contradicts() {
    let repo = shop_with_a_renamed_path();
    let mut h = open_shop(&repo);
    h.open_file("systemPatterns.md");
    h.pump_until("the marks", |app| {
        app.document
            .doc()
            .is_some_and(|d| !d.finding_lines.is_empty())
    });
    assert_eq!(
        h.doc().finding_lines.iter().collect::<Vec<_>>(),
        vec![(&3, &Severity::Warning)]
    );
    let screen = h.settled_screen();
    assert!(
        screen.contains("● 3 Refunds live in `src/api/refunds_v1.rs`."),
        "the claim's line is marked in the gutter:\n{screen}"
    );
    assert!(
        !screen.contains("● 5 "),
        "a line whose claims hold is not marked:\n{screen}"
    );
    // Beside the editor, the preview marks the rendered paragraph at its right edge.
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('v'));
    h.screen();
    h.pump_until("the preview", |app| app.document.preview.rendered.is_some());
    let screen = h.settled_screen();
    let marked: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("Refunds live in") && l.trim_end().ends_with("●│"))
        .collect();
    assert_eq!(marked.len(), 1, "the preview marks the claim:\n{screen}");
}

#[test]
fn the_findings_panel_applies_the_rename_to_the_file_and_the_finding_goes() {
    let repo = shop_with_a_renamed_path();
    let mut h = open_shop(&repo);
    h.open_file("systemPatterns.md");
    select_the_rename(&mut h);
    let screen = h.settled_screen();
    assert!(
        screen.contains("fix ▸ `src/api/refunds_v1.rs` was renamed to `src/api/refunds.rs`"),
        "the fix is shown on the finding:\n{screen}"
    );
    assert!(
        screen.contains("x fix"),
        "the status bar names the key:\n{screen}"
    );
    h.key(KeyCode::Char('x'));
    let file = repo.path("memory-bank/systemPatterns.md");
    h.pump_until("the fix on disk", |_| {
        std::fs::read_to_string(&file).is_ok_and(|t| t.contains("`src/api/refunds.rs`"))
    });
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        PATTERNS.replace("src/api/refunds_v1.rs", "src/api/refunds.rs")
    );
    h.pump_until("the finding gone", |app| {
        !app.findings
            .items
            .iter()
            .any(|f| f.code.id().starts_with("claim-"))
    });
    assert!(
        h.toasts().contains("fixed systemPatterns.md:3"),
        "{}",
        h.toasts()
    );
    // The open file shows the fix, unmodified, and loses its mark.
    assert!(h.doc().text().contains("`src/api/refunds.rs`"));
    assert!(!h.is_dirty());
    assert!(h.doc().finding_lines.is_empty());
}

#[test]
fn a_fix_is_refused_over_unsaved_edits_and_over_a_line_changed_on_disk() {
    let repo = shop_with_a_renamed_path();
    let mut h = open_shop(&repo);
    let file = repo.path("memory-bank/systemPatterns.md");
    // Unsaved edits of the file in the editor: the fix would turn them into a conflict.
    h.open_file("systemPatterns.md");
    h.key(KeyCode::Char('!'));
    assert!(h.is_dirty());
    select_the_rename(&mut h);
    h.key(KeyCode::Char('x'));
    h.idle();
    assert!(h.toasts().contains("unsaved edits"), "{}", h.toasts());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), PATTERNS);
    // Edits undone; then the line changes on disk after the check: nothing is written.
    h.key(KeyCode::Esc);
    h.key(KeyCode::Enter);
    h.keys("ctrl-z");
    assert!(!h.is_dirty());
    let changed = PATTERNS.replace("Refunds live in `src/api/refunds_v1.rs`.", "Refunds moved.");
    std::fs::write(&file, &changed).unwrap();
    select_the_rename(&mut h);
    h.app.toasts.clear();
    h.key(KeyCode::Char('x'));
    h.pump_until("the refusal", |app| {
        app.toasts.iter().any(|t| t.text.contains("not fixed"))
    });
    assert!(h.toasts().contains("no longer holds"), "{}", h.toasts());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), changed);
}
