//! The review view driven through the app's message loop on ratatui's TestBackend, over
//! real temporary git repositories (and a plain folder for the snapshot flow): keys in,
//! then the screen, the files and the index (`git show :path`) checked exactly.
//!
//! Git runs with the system config off, HOME in the temp folder and the identity in the
//! environment, for the test's own commands and the review worker's alike.
use crate::common;

use std::path::PathBuf;

use common::git::GitRepo;
use common::tui::Tui;
use crossterm::event::KeyCode;
use mbank::core::review::{LineKind, ReviewOptions};
use mbank::tui::Message;
use mbank::tui::app::Focus;
use mbank::tui::overlays::Overlay;
use mbank::tui::panes::review::ReviewRow;

const BRIEF: &str = "# Project Brief\n\nA tea shop.\n";
const ACTIVE: &str = "# Active Context\n\nWorking on checkout.\n";
const PROGRESS: &str = "# Progress\n\n## Done\n\n- Cart\n- Catalog\n\n## Left\n\n- Payments\n";
const LOG: &str = "# Decision Log\n\n## 2025-01-10 - Use SQLite\n\nSmall data.\n\n## 2025-02-01 - Ship weekly\n\nSmall batches.\n";

/// A project `shop` under a root (`<temp>/root`), with a Cline bank and a source file;
/// committed when `git` is true, a plain folder otherwise.
struct Fixture {
    repo: GitRepo,
    root: PathBuf,
    git: bool,
}

impl std::ops::Deref for Fixture {
    type Target = GitRepo;
    fn deref(&self) -> &GitRepo {
        &self.repo
    }
}

impl Fixture {
    fn new(git: bool) -> Fixture {
        // Dated now: the memory is fresh, so nothing but the change raises a signal.
        let repo = GitRepo::folder("root/shop").dated_now();
        let root = repo.temp().join("root");
        repo.write("memory-bank/projectbrief.md", BRIEF);
        repo.write("memory-bank/activeContext.md", ACTIVE);
        repo.write("memory-bank/progress.md", PROGRESS);
        repo.write("memory-bank/decisionLog.md", LOG);
        repo.write("src/lib.rs", "pub fn a() {}\n");
        if git {
            repo.init();
            repo.commit_all("start");
        }
        Fixture { repo, root, git }
    }

    /// The app over the root, the project open and its review shown.
    fn open_review(&self) -> Tui {
        let review = if self.git {
            self.repo.review_options()
        } else {
            ReviewOptions {
                home: Some(self.home.clone()),
                data_dir: Some(self.home.join("data")),
                ..ReviewOptions::default()
            }
        };
        let mut h = Tui::options(&self.root).review(review).start();
        h.open_project("shop");
        h.key(KeyCode::Char('r'));
        assert!(h.app.main.is_review());
        assert_eq!(h.app.focus, Focus::Review);
        settle(&mut h, "the review");
        h
    }
}

/// Waits until the review has arrived and no action is in flight.
fn settle(h: &mut Tui, what: &str) {
    h.pump_until(what, |app| {
        app.review.pane.review.is_some() && !app.review.pane.loading && !app.review.pane.busy
    });
}

/// Selects the file whose display path ends with `name`.
fn select_file(h: &mut Tui, name: &str) {
    for key in [']', '['] {
        for _ in 0..20 {
            if h.app
                .review
                .pane
                .file()
                .is_some_and(|f| f.display.ends_with(name))
            {
                return;
            }
            h.key(KeyCode::Char(key));
        }
    }
    panic!("{name} is not in the review:\n{}", h.screen());
}

/// Moves the cursor down onto the diff line whose text is `text` and kind `kind`.
fn cursor_to_line(h: &mut Tui, kind: LineKind, text: &str) {
    h.key(KeyCode::Home);
    for _ in 0..200 {
        let pane = &h.app.review.pane;
        let file = pane.file().unwrap();
        let on_it = match pane.rows().get(pane.cursor.selected) {
            Some(ReviewRow::Line(hunk, l)) => {
                let line = &file.diff.hunks[*hunk].lines[*l];
                line.kind == kind && line.text == text
            }
            _ => false,
        };
        if on_it {
            return;
        }
        h.key(KeyCode::Down);
    }
    panic!("no {kind:?} line {text:?}:\n{}", h.screen());
}

const PROGRESS_APPENDED: &str =
    "# Progress\n\n## Done\n\n- Cart\n- Catalog\n\n## Left\n\n- Payments\n- Refunds\n";

#[test]
fn the_review_lists_changed_files_by_bank_with_counts_and_signals() {
    let f = Fixture::new(true);
    f.write("memory-bank/progress.md", PROGRESS_APPENDED);
    // The agent drops the first decision: the log is append-only.
    f.write(
        "memory-bank/decisionLog.md",
        "# Decision Log\n\n## 2025-02-01 - Ship weekly\n\nSmall batches.\n",
    );
    f.write(
        "memory-bank/techContext.md",
        "# Tech Context\n\ntoken = ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
    );
    f.write("src/lib.rs", "pub fn b() {}\n");
    let mut h = f.open_review();
    let review = h.app.review.pane.review.as_ref().unwrap();
    let names: Vec<&str> = review.files.iter().map(|f| f.display.as_str()).collect();
    assert_eq!(
        names.len(),
        3,
        "memory files only, not src/lib.rs: {names:?}"
    );
    let screen = h.screen();
    assert!(screen.contains("since git HEAD"), "{screen}");
    assert!(screen.contains("▾ cline memory-bank"), "{screen}");
    assert!(screen.contains("3 files"), "{screen}");
    assert!(screen.contains("M progress.md"), "{screen}");
    assert!(screen.contains("A techContext.md"), "{screen}");
    assert!(!screen.contains("lib.rs"), "{screen}");
    let progress = screen
        .lines()
        .find(|l| l.contains("M progress.md"))
        .unwrap();
    assert!(
        progress.contains("+1") && progress.contains("−0"),
        "{progress}"
    );
    let log = screen
        .lines()
        .find(|l| l.contains("M decisionLog.md"))
        .unwrap();
    assert!(log.contains("✖ 1 error"), "worst signal badge: {log}");
    let tech = screen
        .lines()
        .find(|l| l.contains("A techContext.md"))
        .unwrap();
    assert!(tech.contains("✖ 1 error"), "{tech}");
    assert!(progress.contains("tok"), "{progress}");
}

#[test]
fn a_decision_log_shrink_and_a_secret_show_their_signal_on_the_hunk() {
    let f = Fixture::new(true);
    f.write(
        "memory-bank/decisionLog.md",
        "# Decision Log\n\n## 2025-02-01 - Ship weekly\n\nSmall batches.\n",
    );
    f.write(
        "memory-bank/activeContext.md",
        "# Active Context\n\nWorking on checkout.\n\ntoken = ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
    );
    let mut h = f.open_review();
    for (file, code) in [
        ("decisionLog.md", "decision-removed"),
        ("activeContext.md", "secret-added"),
    ] {
        select_file(&mut h, file);
        let screen = h.screen();
        let lines: Vec<&str> = screen.lines().collect();
        let header = lines
            .iter()
            .position(|l| l.contains("@@ -"))
            .unwrap_or_else(|| panic!("no hunk header:\n{screen}"));
        assert!(
            lines[header + 1].contains(code) && lines[header + 1].contains("✖"),
            "{code} right under the hunk header:\n{screen}"
        );
        let pane = &h.app.review.pane;
        let file = pane.file().unwrap();
        let hunk = file.diff.hunks[0].id;
        assert!(
            file.signals_of(hunk).any(|s| s.code == code),
            "the core ties it to the hunk"
        );
    }
    // A clean change raises nothing.
    let f = Fixture::new(true);
    f.write("memory-bank/progress.md", PROGRESS_APPENDED);
    let mut h = f.open_review();
    let screen = h.screen();
    assert!(
        !screen.contains("✖") && !screen.contains("▲"),
        "no signal on a plain append:\n{screen}"
    );
}

#[test]
fn accepting_a_hunk_stages_it_and_leaves_the_file_alone() {
    let f = Fixture::new(true);
    f.write("memory-bank/progress.md", PROGRESS_APPENDED);
    let mut h = f.open_review();
    select_file(&mut h, "progress.md");
    h.key(KeyCode::Char('a'));
    settle(&mut h, "the accept");
    assert_eq!(
        f.staged("memory-bank/progress.md").as_deref(),
        Some(PROGRESS_APPENDED)
    );
    assert_eq!(
        f.read("memory-bank/progress.md").as_deref(),
        Some(PROGRESS_APPENDED)
    );
    assert!(h.toasts().contains("accepted the hunk"), "{}", h.toasts());
    let screen = h.screen();
    assert!(screen.contains("✔ accepted"), "{screen}");

    // Undo puts the index back to HEAD.
    h.key(KeyCode::Char('u'));
    settle(&mut h, "the undo");
    assert_eq!(
        f.staged("memory-bank/progress.md").as_deref(),
        Some(PROGRESS)
    );
    assert_eq!(
        f.read("memory-bank/progress.md").as_deref(),
        Some(PROGRESS_APPENDED)
    );
    // The message names what was undone: which change, in which file.
    assert!(
        h.toasts().contains("undid: accept the hunk @@ -")
            && h.toasts().contains("in memory-bank/progress.md"),
        "{}",
        h.toasts()
    );
    assert_eq!(h.app.review.pane.file().unwrap().diff.hunks.len(), 1);
}

#[test]
fn rejecting_a_hunk_reverts_the_file_and_leaves_the_index() {
    let f = Fixture::new(true);
    f.write("memory-bank/progress.md", PROGRESS_APPENDED);
    let mut h = f.open_review();
    select_file(&mut h, "progress.md");
    h.key(KeyCode::Char('x'));
    settle(&mut h, "the reject");
    assert_eq!(f.read("memory-bank/progress.md").as_deref(), Some(PROGRESS));
    assert_eq!(
        f.staged("memory-bank/progress.md").as_deref(),
        Some(PROGRESS)
    );
    let screen = h.screen();
    assert!(screen.contains("Nothing to review"), "{screen}");
    // Undo brings the agent's line back.
    h.key(KeyCode::Char('u'));
    settle(&mut h, "the undo");
    assert_eq!(
        f.read("memory-bank/progress.md").as_deref(),
        Some(PROGRESS_APPENDED)
    );
}

#[test]
fn single_lines_are_accepted_and_rejected_on_their_own() {
    let f = Fixture::new(true);
    let two = "# Progress\n\n## Done\n\n- Cart\n- Catalog\n\n## Left\n\n- Payments\n- Refunds\n- Gift cards\n";
    f.write("memory-bank/progress.md", two);
    let mut h = f.open_review();
    select_file(&mut h, "progress.md");
    cursor_to_line(&mut h, LineKind::Added, "- Refunds");
    h.key(KeyCode::Char('A'));
    settle(&mut h, "the line accept");
    assert_eq!(
        f.staged("memory-bank/progress.md").as_deref(),
        Some(PROGRESS_APPENDED),
        "only the line under the cursor is staged"
    );
    assert_eq!(f.read("memory-bank/progress.md").as_deref(), Some(two));

    cursor_to_line(&mut h, LineKind::Added, "- Gift cards");
    h.key(KeyCode::Char('X'));
    settle(&mut h, "the line reject");
    assert_eq!(
        f.read("memory-bank/progress.md").as_deref(),
        Some(PROGRESS_APPENDED),
        "only the line under the cursor is gone from the file"
    );
    assert_eq!(
        f.staged("memory-bank/progress.md").as_deref(),
        Some(PROGRESS_APPENDED)
    );
}

#[test]
fn the_cursor_stays_on_its_hunk_after_an_action_elsewhere() {
    let f = Fixture::new(true);
    // Two hunks far apart: a line near the top and one at the end.
    let long: String = (1..=30).map(|i| format!("- item {i}\n")).collect();
    f.write("memory-bank/progress.md", &format!("# Progress\n\n{long}"));
    f.git(&["add", "-A"]);
    f.git(&["commit", "-q", "-m", "long"]);
    f.write(
        "memory-bank/progress.md",
        &format!("# Progress\n\nIntro.\n{long}- item 31\n"),
    );
    let mut h = f.open_review();
    select_file(&mut h, "progress.md");
    assert_eq!(h.app.review.pane.file().unwrap().diff.hunks.len(), 2);
    h.key(KeyCode::Char('n'));
    assert_eq!(h.app.review.pane.hunk_index(), Some(1));
    let second = h.app.review.pane.file().unwrap().diff.hunks[1].id;
    h.key(KeyCode::Char('N'));
    assert_eq!(h.app.review.pane.hunk_index(), Some(0));
    h.key(KeyCode::Char('a'));
    settle(&mut h, "the accept");
    // The first hunk is gone; the cursor lands on what is left, the old second hunk.
    let file = h.app.review.pane.file().unwrap();
    assert_eq!(file.diff.hunks.len(), 1);
    assert_eq!(file.diff.hunks[0].id, second, "hunk ids survive a re-diff");
    assert_eq!(h.app.review.pane.hunk_index(), Some(0));
}

#[test]
fn rejecting_a_whole_new_file_asks_first_and_names_the_loss() {
    let f = Fixture::new(true);
    f.write(
        "memory-bank/techContext.md",
        "# Tech Context\n\n- Rust\n- SQLite\n",
    );
    let mut h = f.open_review();
    select_file(&mut h, "techContext.md");
    h.ctrl('x');
    h.pump_until("the confirm prompt", |app| {
        matches!(app.overlays.last(), Some(Overlay::Confirm(_)))
    });
    let screen = h.screen();
    assert!(screen.contains("Reject the whole file?"), "{screen}");
    assert!(
        screen.contains("deletes the file") && screen.contains("4 lines"),
        "{screen}"
    );
    h.key(KeyCode::Char('n'));
    assert!(h.app.overlays.is_empty());
    assert!(f.path("memory-bank/techContext.md").exists(), "no means no");

    h.ctrl('x');
    h.pump_until("the confirm prompt", |app| !app.overlays.is_empty());
    h.key(KeyCode::Char('y'));
    settle(&mut h, "the reject");
    assert!(!f.path("memory-bank/techContext.md").exists());
    assert!(h.app.review.pane.review.as_ref().unwrap().files.is_empty());
}

#[test]
fn rejecting_a_whole_modified_file_names_the_lines_and_restores_head() {
    let f = Fixture::new(true);
    f.write("memory-bank/progress.md", "# Progress\n\nAll rewritten.\n");
    let mut h = f.open_review();
    select_file(&mut h, "progress.md");
    h.ctrl('x');
    h.pump_until("the confirm prompt", |app| !app.overlays.is_empty());
    let screen = h.screen();
    assert!(
        screen.contains("goes back to the baseline") && screen.contains("1 line the"),
        "{screen}"
    );
    // Enter is the safe answer: nothing is rejected.
    h.key(KeyCode::Enter);
    assert!(h.app.overlays.is_empty());
    assert_eq!(
        f.read("memory-bank/progress.md").as_deref(),
        Some("# Progress\n\nAll rewritten.\n")
    );
    h.ctrl('x');
    h.pump_until("the confirm prompt", |app| !app.overlays.is_empty());
    h.key(KeyCode::Char('y'));
    settle(&mut h, "the reject");
    assert_eq!(f.read("memory-bank/progress.md").as_deref(), Some(PROGRESS));
}

#[test]
fn side_by_side_shows_old_left_and_new_right_with_changed_words() {
    let f = Fixture::new(true);
    f.write(
        "memory-bank/progress.md",
        "# Progress\n\n## Done\n\n- Cart\n- Catalog\n\n## Left\n\n- Payments via Stripe\n",
    );
    let mut h = f.open_review();
    select_file(&mut h, "progress.md");
    let unified = h.screen();
    let removed = unified.lines().find(|l| l.contains("-- Payments")).unwrap();
    assert!(!removed.contains("Stripe"), "unified: one side per row");
    h.key(KeyCode::Char('s'));
    assert!(h.app.review.pane.side_by_side);
    let screen = h.screen();
    let row = screen
        .lines()
        .find(|l| l.contains("Payments via Stripe"))
        .unwrap_or_else(|| panic!("{screen}"));
    let start = row.find("10 -").unwrap_or_else(|| panic!("{row}"));
    let (left, right) = row[start..].split_once('│').unwrap();
    assert!(
        left.contains("-- Payments") && !left.contains("Stripe"),
        "{row}"
    );
    assert!(right.contains("+- Payments via Stripe"), "{row}");
    assert!(screen.contains("side by side"), "{screen}");
    // The changed word is drawn in the added colour as a background, the rest is not.
    let buffer = h.draw().unwrap().clone();
    let theme = h.app.theme.clone();
    let (y, text) = mbank::tui::driver::buffer_text(&buffer)
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("Payments via Stripe"))
        .map(|(y, l)| (y as u16, l.to_string()))
        .unwrap();
    let column = |needle: &str| {
        let byte = text.rfind(needle).unwrap();
        text[..byte].chars().count() as u16
    };
    assert_eq!(buffer[(column("Stripe"), y)].bg, theme.added, "{text}");
    assert_ne!(buffer[(column("Payments via"), y)].bg, theme.added);
}

#[test]
fn commit_from_the_overlay_holds_only_memory_files() {
    let f = Fixture::new(true);
    f.write("memory-bank/progress.md", PROGRESS_APPENDED);
    f.write(
        "memory-bank/activeContext.md",
        "# Active Context\n\nShipping.\n",
    );
    // Other work, staged and unstaged, must stay out of the commit.
    f.write("src/lib.rs", "pub fn staged() {}\n");
    f.git(&["add", "src/lib.rs"]);
    f.write("src/other.rs", "// untracked\n");
    let mut h = f.open_review();
    select_file(&mut h, "progress.md");
    h.key(KeyCode::Char('a'));
    settle(&mut h, "the accept");
    h.key(KeyCode::Char('c'));
    h.pump_until("the commit overlay", |app| {
        matches!(app.overlays.last(), Some(Overlay::Commit(_)))
    });
    let screen = h.screen();
    assert!(
        screen.contains("Commit accepted memory changes"),
        "{screen}"
    );
    assert!(
        screen.contains("memory: update progress.md"),
        "prefilled:\n{screen}"
    );
    // Typed text goes into the message, not to the review's keys.
    h.key(KeyCode::End);
    h.type_text(" (reviewed)");
    h.ctrl('s');
    h.pump_until("the commit", |app| app.overlays.is_empty());
    settle(&mut h, "the review after the commit");
    let files = f.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(files.trim(), "memory-bank/progress.md");
    let subject = f.git(&["log", "-1", "--format=%s"]);
    assert_eq!(subject.trim(), "memory: update progress.md (reviewed)");
    assert!(
        f.git(&["diff", "--cached", "--name-only"])
            .contains("src/lib.rs"),
        "the staged source change is still staged, not committed"
    );
    assert!(h.toasts().contains("committed"), "{}", h.toasts());
    let names: Vec<String> = h
        .app
        .review
        .pane
        .review
        .as_ref()
        .unwrap()
        .files
        .iter()
        .map(|f| f.display.clone())
        .collect();
    assert_eq!(names, vec!["memory-bank/activeContext.md"]);
}

#[test]
fn a_commit_git_refuses_shows_why_in_the_overlay() {
    let f = Fixture::new(true);
    f.write("memory-bank/progress.md", PROGRESS_APPENDED);
    // The user's pre-commit hook refuses every commit (hooks run when configured to).
    let hook = f.path(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(
        &hook,
        "#!/bin/sh\necho refused by the pre-commit hook >&2\nexit 1\n",
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let review = ReviewOptions {
        run_git_hooks: true,
        ..f.review_options()
    };
    let mut h = Tui::options(&f.root).review(review).start();
    h.open_project("shop");
    h.key(KeyCode::Char('r'));
    settle(&mut h, "the review");
    select_file(&mut h, "progress.md");
    h.key(KeyCode::Char('a'));
    settle(&mut h, "the accept");
    h.key(KeyCode::Char('c'));
    h.pump_until("the commit overlay", |app| !app.overlays.is_empty());
    h.ctrl('s');
    h.pump_until(
        "the refusal",
        |app| matches!(app.overlays.last(), Some(Overlay::Commit(e)) if e.form.error.is_some()),
    );
    let screen = h.screen();
    assert!(
        screen.contains("refused by the pre-commit hook"),
        "{screen}"
    );
    h.key(KeyCode::Esc);
    assert!(h.app.overlays.is_empty());
    assert_eq!(f.git(&["rev-list", "--count", "HEAD"]).trim(), "1");
}

#[test]
fn an_external_write_under_the_cursor_is_re_diffed_never_applied_stale() {
    let f = Fixture::new(true);
    f.write("memory-bank/progress.md", PROGRESS_APPENDED);
    let mut h = f.open_review();
    select_file(&mut h, "progress.md");
    // The agent writes again; the view has not heard of it yet.
    let newer = format!("{PROGRESS_APPENDED}- Gift cards\n");
    f.write("memory-bank/progress.md", &newer);
    h.key(KeyCode::Char('a'));
    settle(&mut h, "the refused accept");
    assert!(
        h.toasts()
            .contains("changed on disk: re-diffed, nothing applied"),
        "{}",
        h.toasts()
    );
    assert_eq!(
        f.staged("memory-bank/progress.md").as_deref(),
        Some(PROGRESS),
        "nothing staged"
    );
    let file = h.app.review.pane.file().unwrap();
    assert_eq!(file.current.as_deref(), Some(newer.as_str()), "re-diffed");
    assert_eq!(file.diff.added, 2);

    // Live: the watcher's message re-diffs the open review without a key.
    let newest = format!("{newer}- Loyalty points\n");
    f.write("memory-bank/progress.md", &newest);
    h.app.update(Message::FilesChanged(vec![
        f.path("memory-bank/progress.md"),
    ]));
    h.pump_until("the live re-diff", |app| {
        app.review.pane.file().is_some_and(|f| f.diff.added == 3)
    });
    let screen = h.screen();
    assert!(screen.contains("Loyalty points"), "{screen}");
    // A new file appearing recomputes the whole review.
    f.write("memory-bank/techContext.md", "# Tech\n");
    h.app.update(Message::FilesChanged(vec![
        f.path("memory-bank/techContext.md"),
    ]));
    h.pump_until("the new file", |app| {
        app.review
            .pane
            .review
            .as_ref()
            .is_some_and(|r| r.files.len() == 2)
    });
}

#[test]
fn outside_git_mark_reviewed_empties_the_review() {
    let f = Fixture::new(false);
    let mut h = f.open_review();
    let screen = h.screen();
    assert!(screen.contains("never marked reviewed"), "{screen}");
    assert_eq!(h.app.review.pane.review.as_ref().unwrap().files.len(), 4);
    assert!(!h.app.review.pane.is_git);
    h.key(KeyCode::Char('c'));
    let screen = h.screen();
    assert!(
        screen.contains("Mark reviewed?") && screen.contains("The 4 changed"),
        "{screen}"
    );
    h.key(KeyCode::Char('y'));
    settle(&mut h, "mark reviewed");
    let screen = h.screen();
    assert!(screen.contains("Nothing to review"), "{screen}");
    assert!(screen.contains("since last reviewed"), "{screen}");

    // An agent edits after the review; accepting its hunk moves it into the snapshot.
    f.write("memory-bank/progress.md", PROGRESS_APPENDED);
    h.app.update(Message::FilesChanged(vec![
        f.path("memory-bank/progress.md"),
    ]));
    h.pump_until("the edit", |app| {
        app.review
            .pane
            .review
            .as_ref()
            .is_some_and(|r| r.files.len() == 1)
    });
    h.key(KeyCode::Char('a'));
    settle(&mut h, "the accept");
    assert!(h.app.review.pane.review.as_ref().unwrap().files.is_empty());
    assert_eq!(
        f.read("memory-bank/progress.md").as_deref(),
        Some(PROGRESS_APPENDED)
    );
}

#[test]
fn review_keys_are_in_help_and_the_status_bar_and_esc_goes_back() {
    let f = Fixture::new(true);
    f.write("memory-bank/progress.md", PROGRESS_APPENDED);
    let mut h = f.open_review();
    let screen = h.screen();
    let status = screen.lines().last().unwrap();
    assert!(
        status.contains("a accept") && status.contains("x reject"),
        "{status}"
    );
    h.key(KeyCode::Char('?'));
    let screen = h.screen();
    assert!(
        screen.contains("Review") && screen.contains("reject the whole file"),
        "{screen}"
    );
    h.key(KeyCode::Esc);
    h.key(KeyCode::Esc);
    assert!(!h.app.main.is_review());
    assert_eq!(h.app.focus, Focus::Tree);
}

#[test]
fn writes_the_agent_servers_refused_are_listed_under_the_changed_files() {
    let demo = common::tui::DemoBanks::new();
    let data = tempfile::tempdir().unwrap();
    let mut h = common::tui::Tui::demo(&demo)
        .review(mbank::core::review::ReviewOptions {
            data_dir: Some(data.path().to_path_buf()),
            ..Default::default()
        })
        .start();
    h.open_project("weather");
    h.keys("r c y");
    let project = demo.file("weather-api");
    let refused = [
        (
            "decisionLog.md",
            "append-only",
            "would drop 2 entries: ADR-003, ADR-004",
            "mcp:memory_bank_update",
        ),
        (
            "activeContext.md",
            "secret",
            "line 4 holds an AWS access key",
            "http:POST /memory-bank/file",
        ),
    ];
    for (file, rule, message, via) in refused {
        let record = mbank::core::guard::refusals::RefusalRecord::at(
            &mbank::core::clock::Clock::system(),
            &project,
            file,
            rule,
            message,
            via,
        );
        mbank::core::guard::refusals::append_in(data.path(), &record).unwrap();
    }
    let progress = demo.file("weather-api/memory-bank/progress.md");
    let text = std::fs::read_to_string(&progress).unwrap();
    std::fs::write(&progress, format!("{text}- [x] an agent's line\n")).unwrap();
    h.app
        .update(mbank::tui::Message::FilesChanged(vec![progress]));
    h.pump_until("the review with the refusals", |app| {
        app.review
            .pane
            .review
            .as_ref()
            .is_some_and(|r| r.files.len() == 1 && r.refused.len() == 2)
            && !app.review.pane.busy
    });
    let screen = h.settled_screen();
    assert!(
        screen.contains("⊘ 2 writes refused by the agent servers since the baseline"),
        "{screen}"
    );
    let line = screen
        .lines()
        .find(|l| l.contains("⊘ decisionLog.md"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(
        line.contains("[append-only]") && line.contains("would drop 2"),
        "{line}"
    );
    assert!(screen.contains("⊘ activeContext.md [secret]"), "{screen}");
    // Moving in the diff keeps the file selected (the refused writes are rows of the
    // list, reached with ] and [).
    h.keys("down down down");
    assert!(h.app.review.pane.file().is_some());
}

#[test]
fn commit_with_nothing_accepted_says_so_instead_of_opening_the_editor() {
    let f = Fixture::new(true);
    f.write("memory-bank/progress.md", PROGRESS_APPENDED);
    let mut h = f.open_review();
    h.key(KeyCode::Char('c'));
    h.idle();
    assert!(h.app.overlays.is_empty(), "no commit editor for nothing");
    assert!(
        h.toasts()
            .contains("nothing accepted to commit yet: a accepts a hunk"),
        "{}",
        h.toasts()
    );
    // Once something is accepted, c opens it.
    select_file(&mut h, "progress.md");
    h.key(KeyCode::Char('a'));
    settle(&mut h, "the accept");
    h.key(KeyCode::Char('c'));
    h.pump_until("the commit overlay", |app| {
        matches!(app.overlays.last(), Some(Overlay::Commit(_)))
    });
}
