use std::path::PathBuf;

use super::*;
use mbank_core::review::ChangeKind;
use mbank_core::review::diff_texts;

fn change(
    path: &str,
    baseline: Option<&str>,
    current: Option<&str>,
    kind: ChangeKind,
) -> FileChange {
    let diff = diff_texts(baseline.unwrap_or(""), current.unwrap_or(""));
    FileChange {
        path: PathBuf::from(path),
        display: path.trim_start_matches("/p/").to_string(),
        store: "Cline memory bank".into(),
        project: Some(PathBuf::from("/p")),
        change: kind,
        renamed_from: None,
        baseline_version: baseline.map(|_| 1),
        newest_version: Some(2),
        writers: vec!["on disk (Cline memory bank)".into()],
        added: diff.added,
        removed: diff.removed,
        signals: Vec::new(),
        past_cut: None,
        baseline_text: baseline.map(str::to_string),
        current_text: current.map(str::to_string),
        diff,
    }
}

fn survey(changes: Vec<FileChange>) -> Arc<Survey> {
    Arc::new(Survey {
        changes,
        ..Survey::default()
    })
}

fn key(action: Action) -> Input {
    Input::Key(crate::pane::KeyInput {
        event: crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Null),
        action: Some(action),
    })
}

fn effects(outcome: Outcome) -> Vec<Effect> {
    match outcome {
        Outcome::Consumed(effects) => effects,
        Outcome::Ignored => Vec::new(),
    }
}

const OLD: &str = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n";

#[test]
fn a_fresh_list_keeps_the_file_chosen_and_a_late_one_is_dropped() {
    let mut pane = ChangesPane::default();
    let first = change("/p/a.md", Some(OLD), Some("a\n"), ChangeKind::Modified);
    let second = change("/p/b.md", Some(OLD), None, ChangeKind::Deleted);
    pane.set_survey(1, Ok(survey(vec![first.clone(), second.clone()])));
    let _ = pane.handle(key(Action::Down));
    assert_eq!(pane.selected().unwrap().display, "b.md");
    let added = change("/p/0.md", None, Some("new\n"), ChangeKind::Added);
    pane.set_survey(3, Ok(survey(vec![added, first.clone(), second])));
    assert_eq!(pane.selected().unwrap().display, "b.md");
    // An answer older than the one shown changes nothing.
    pane.set_survey(2, Ok(survey(vec![first])));
    assert_eq!(pane.changes().len(), 3);
}

#[test]
fn a_hunk_reverts_at_once_a_deleted_file_comes_back_at_once_and_a_whole_file_asks() {
    let mut pane = ChangesPane::default();
    let edited = OLD.replace("b\n", "B\n").replace("k\n", "K\n");
    pane.set_survey(
        1,
        Ok(survey(vec![
            change("/p/a.md", Some(OLD), Some(&edited), ChangeKind::Modified),
            change("/p/b.md", Some(OLD), None, ChangeKind::Deleted),
        ])),
    );
    let _ = pane.handle(key(Action::NextHunk));
    let second = pane.selected().unwrap().diff.hunks[1].id;
    match effects(pane.handle(key(Action::RevertHunk))).as_slice() {
        [Effect::Changes(ChangesRequest::Revert { what, .. })] => {
            assert_eq!(*what, Revert::Hunk(second))
        }
        other => panic!("{other:?}"),
    }
    assert!(pane.busy);
    // While the revert is under way, nothing else is sent.
    assert!(matches!(
        effects(pane.handle(key(Action::RevertHunk))).as_slice(),
        [Effect::Toast(_)]
    ));
    pane.answered(false);
    assert!(matches!(
        effects(pane.handle(key(Action::RevertFile))).as_slice(),
        [Effect::Ask(Ask::Confirm {
            on_yes: Confirmed::RevertChangedFile(_),
            ..
        })]
    ));
    let _ = pane.handle(key(Action::Down));
    assert!(matches!(
        effects(pane.handle(key(Action::RevertHunk))).as_slice(),
        [Effect::Toast(_)]
    ));
    assert!(matches!(
        effects(pane.handle(key(Action::RevertFile))).as_slice(),
        [Effect::Changes(ChangesRequest::Revert {
            what: Revert::File,
            ..
        })]
    ));
}

fn screen(pane: &mut ChangesPane, width: u16, height: u16) -> String {
    let theme = crate::theme::Theme::default();
    let keymap = crate::keymap::Keymap::load(None, None).unwrap();
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height)).unwrap();
    let cx = ViewContext {
        theme: &theme,
        keymap: &keymap,
        focused: true,
        clock: mbank_core::clock::Clock::fixed_on(2026, 11, 28).unwrap(),
    };
    terminal
        .draw(|frame| pane.view(frame, frame.area(), &cx))
        .unwrap();
    crate::driver::buffer_text(terminal.backend().buffer())
}

#[test]
fn a_change_past_the_agents_cut_is_named_above_its_hunks() {
    let mut pane = ChangesPane::default();
    let mut past = change(
        "/p/MEMORY.md",
        Some(OLD),
        Some("a\nnew\n"),
        ChangeKind::Modified,
    );
    past.past_cut = Some(mbank_core::journal::changes::PastCut {
        agent: "Claude Code".into(),
        limit: "200-line limit".into(),
        first_line_past: 201,
        last_line: 205,
        added_lines: 3,
        message: "MEMORY.md: lines 201–205 (110 bytes) are past Claude Code's 200-line limit"
            .into(),
    });
    pane.set_survey(1, Ok(survey(vec![past])));
    let shown = screen(&mut pane, 160, 20);
    assert!(
        shown.contains(
            "✂ MEMORY.md: lines 201–205 (110 bytes) are past Claude Code's 200-line limit; 3 of \
             this change's added lines are there, unread by Claude Code"
        ),
        "{shown}"
    );
    // Without a cut, no such line.
    pane.set_survey(
        2,
        Ok(survey(vec![change(
            "/p/a.md",
            Some(OLD),
            Some("a\n"),
            ChangeKind::Modified,
        )])),
    );
    assert!(!screen(&mut pane, 160, 20).contains('✂'));
}
