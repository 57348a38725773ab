//! Key sequences, written the way the keymap writes keys, driven through the app's real
//! loop on the TestBackend (each key, then the workers' answers, then a frame): what a
//! person types, and what it does to the screen and the files.
use crate::common;

use common::tui::{DemoBanks, Tui};
use mbank::tui::app::{Focus, Main, Screen, ViewMode};
use mbank::tui::overlays::Overlay;

/// The status bar: the screen's last line.
fn status(h: &mut Tui) -> String {
    h.screen().lines().last().unwrap_or_default().to_string()
}

#[test]
fn typing_a_filter_opening_moving_editing_and_saving_with_vim_keys() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).vim().start();
    h.pump_until("the scan", |app| app.projects.picker.visible_len() == 6);
    // Typed letters filter the picker, even those bound elsewhere (q, p, t).
    h.keys("w e a t h e r enter");
    assert_eq!(h.app.screen, Screen::Project);
    assert!(h.doc().path.ends_with("projectBrief.md"));
    // j moves down the tree and shows each file; enter puts the keyboard in it.
    h.keys("j j enter");
    assert_eq!(h.app.focus, Focus::Editor);
    assert!(
        h.doc().path.ends_with("systemPatterns.md"),
        "{:?}",
        h.doc().path
    );
    // The vim editor opens in normal mode: i to type, esc back, ctrl-s saves.
    h.keys("i N o t e : space esc ctrl-s");
    assert!(!h.is_dirty());
    let saved =
        std::fs::read_to_string(demo.file("weather-api/memory-bank/systemPatterns.md")).unwrap();
    assert!(saved.starts_with("Note: # System Patterns"), "{saved}");
    assert!(h.screen().contains("saved systemPatterns.md"));
}

#[test]
fn tab_visits_the_panes_shown_in_order() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).start();
    h.open_project("weather");
    assert_eq!(h.app.focus, Focus::Tree);
    let mut visited = Vec::new();
    for _ in 0..3 {
        h.keys("tab");
        visited.push(h.app.focus);
    }
    assert_eq!(visited, [Focus::Editor, Focus::Tree, Focus::Editor]);
    // Split view and the findings panel add their panes; shift-tab goes back.
    h.keys("esc v f");
    assert_eq!(h.app.main, Main::Document(ViewMode::Split));
    assert_eq!(h.app.focus, Focus::Findings);
    let mut visited = Vec::new();
    for _ in 0..4 {
        h.keys("tab");
        visited.push(h.app.focus);
    }
    assert_eq!(
        visited,
        [Focus::Tree, Focus::Editor, Focus::Preview, Focus::Findings]
    );
    h.keys("backtab backtab");
    assert_eq!(h.app.focus, Focus::Editor);
}

#[test]
fn the_main_area_shows_one_thing_and_closing_it_returns_to_the_document() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).start();
    h.open_project("mobile");
    h.keys("esc v");
    assert_eq!(h.app.main, Main::Document(ViewMode::Split));
    h.keys("t");
    assert_eq!(
        h.app.main,
        Main::Timeline {
            back: ViewMode::Split
        }
    );
    assert_eq!(h.app.focus, Focus::Timeline);
    assert!(h.screen().contains("Decisions: 5 of 5"));
    // The review replaces the timeline; esc gives the document back as it was.
    h.keys("r");
    assert!(h.app.main.is_review());
    h.keys("esc");
    assert_eq!(h.app.main, Main::Document(ViewMode::Split));
    assert_eq!(h.app.focus, Focus::Tree);
    // v from the timeline moves on from the view it came from.
    h.keys("t v");
    assert_eq!(h.app.main, Main::Document(ViewMode::Preview));
    assert_eq!(
        h.app.focus,
        Focus::Tree,
        "the timeline's focus does not linger"
    );
}

#[test]
fn an_overlay_keeps_every_key_and_the_status_bar_names_only_its_own() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).start();
    h.open_project("weather");
    h.keys("esc ?");
    assert!(matches!(h.app.overlays.last(), Some(Overlay::Help(_))));
    let bar = status(&mut h);
    assert!(bar.contains("esc back"), "{bar}");
    for global in ["help", "quit", "projects", "timeline", "review"] {
        assert!(!bar.contains(global), "{global} under help: {bar}");
    }
    // t, v, r and p would change the screen below; under help they do nothing.
    h.keys("t v r p");
    assert_eq!(h.app.main, Main::Document(ViewMode::Editor));
    assert_eq!(h.app.screen, Screen::Project);
    h.keys("q");
    assert!(
        h.app.overlays.is_empty() && !h.app.quit,
        "q closes help first"
    );
    let bar = status(&mut h);
    assert!(bar.contains("? help") && bar.contains("q quit"), "{bar}");

    // Under a confirm prompt: its keys only, and no stray key answers it.
    h.keys("enter x ctrl-q");
    assert!(matches!(h.app.overlays.last(), Some(Overlay::Confirm(_))));
    let bar = status(&mut h);
    assert!(bar.contains("y yes") && bar.contains("n no"), "{bar}");
    assert!(!bar.contains("save"), "{bar}");
    h.keys("tab f v");
    assert!(h.app.overlays.len() == 1 && h.is_dirty());
    h.keys("n");
    assert!(h.app.overlays.is_empty() && !h.app.quit && h.is_dirty());
}

#[test]
fn a_filter_being_typed_takes_characters_bound_to_global_keys() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).start();
    h.open_project("mobile");
    h.keys("esc t / q t");
    assert!(!h.app.quit);
    assert!(h.app.main.is_timeline());
    assert_eq!(h.app.timeline.text, "qt");
    h.keys("backspace backspace z u s t enter");
    assert_eq!(h.app.timeline.visible_len(), 1);
    // Filtering is done: the same keys are commands again.
    h.keys("enter");
    assert!(h.doc().path.ends_with("ADR-004-zustand-for-app-state.md"));
    assert_eq!(h.app.focus, Focus::Editor);
}

#[test]
fn keys_that_do_nothing_here_change_nothing() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).start();
    h.pump_until("the scan", |app| app.projects.picker.visible_len() == 6);
    // On the picker, the project-only global keys are off and typed text is a filter.
    h.keys("tab F2 F3 F7 F4 ctrl-e");
    assert_eq!(h.app.screen, Screen::Picker);
    assert!(h.app.overlays.is_empty());
    assert!(h.app.projects.picker.filter.is_empty());
    h.keys("esc");
    assert_eq!(h.app.screen, Screen::Picker, "no project to go back to");
}

#[test]
fn saving_a_buffer_with_conflict_markers_asks_first_naming_how_many() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).start();
    h.open_project("weather");
    h.keys("down down enter");
    let path = h.doc().path.clone();
    let before = std::fs::read_to_string(&path).unwrap();
    h.app.update(mbank::tui::Message::Paste(
        "<<<<<<< mine\nours\n=======\ntheirs\n>>>>>>> theirs\n<<<<<<< mine\na\n=======\nb\n>>>>>>> theirs\n"
            .into(),
    ));
    h.keys("ctrl-s");
    let Some(Overlay::Confirm(confirm)) = h.app.overlays.last() else {
        panic!("no prompt: {:?}", h.app.overlays);
    };
    assert!(
        confirm.message.contains("2 unresolved conflicts"),
        "{}",
        confirm.message
    );
    assert!(confirm.message.contains("line 1"), "{}", confirm.message);
    let screen = h.screen();
    assert!(screen.contains("Save with conflict markers?"), "{screen}");
    // No: nothing written, the edits stay.
    h.keys("n");
    assert!(h.app.overlays.is_empty() && h.is_dirty());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    // Yes: saved as it is.
    h.keys("ctrl-s y");
    assert!(!h.is_dirty());
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(saved.starts_with("<<<<<<< mine\nours\n"), "{saved}");
    // A buffer without markers saves without a question (a setext underline is not one).
    h.keys("esc down enter");
    assert_ne!(h.doc().path, path);
    h.app
        .update(mbank::tui::Message::Paste("Title\n=======\n".into()));
    h.keys("ctrl-s");
    assert!(h.app.overlays.is_empty(), "{:?}", h.app.overlays);
    assert!(!h.is_dirty());
}

/// The preview pane's lines (the third bordered column at 140 columns), its title first.
fn preview_column(screen: &str) -> Vec<String> {
    screen
        .lines()
        .filter_map(|line| {
            let start = line.find("┐┌").or_else(|| line.find("││"))?;
            let rest: String = line
                .chars()
                .skip(line[..start].chars().count() + 1)
                .collect();
            // The editor column, then the preview column.
            let next = rest.find("┐┌").or_else(|| rest.find("││"))?;
            Some(rest[next..].to_string())
        })
        .collect()
}

#[test]
fn the_preview_follows_the_tree_selection_and_its_title_names_the_file() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).start();
    h.open_project("weather");
    h.keys("v");
    assert_eq!(h.app.main, Main::Document(ViewMode::Split));
    let screen = h.settled_screen();
    let preview = preview_column(&screen).join("\n");
    assert!(preview.contains("Preview · projectBrief.md"), "{screen}");
    assert!(preview.contains("Project Brief"), "{screen}");
    // Moving through the tree shows each file, in the editor and in the preview.
    for (keys, name, heading) in [
        ("down", "productContext.md", "Product Context"),
        ("down", "systemPatterns.md", "System Patterns"),
        ("up up", "projectBrief.md", "Project Brief"),
    ] {
        h.keys(keys);
        let screen = h.settled_screen();
        let preview = preview_column(&screen).join("\n");
        assert!(
            preview.contains(&format!("Preview · {name}")),
            "{keys}: {screen}"
        );
        assert!(preview.contains(heading), "{keys}: {screen}");
        for other in ["Project Brief", "Product Context", "System Patterns"] {
            if other != heading {
                assert!(
                    !preview.contains(other),
                    "{keys}: {other} still shown\n{screen}"
                );
            }
        }
    }
}

#[test]
fn space_pages_down_in_the_preview() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(80, 24).start();
    h.open_project("weather");
    h.open_file("progress.md");
    h.keys("esc v v");
    assert_eq!(h.app.main, Main::Document(ViewMode::Preview));
    h.settled_screen();
    h.keys("tab");
    assert_eq!(h.app.focus, Focus::Preview);
    assert_eq!(h.app.document.preview.scroll, 0);
    h.keys("space");
    let page = h.app.document.preview.scroll;
    assert!(page > 10, "space scrolled {page} lines");
    h.keys("pageup");
    assert_eq!(h.app.document.preview.scroll, 0);
}

#[test]
fn at_80x24_zoom_gives_the_review_the_whole_width_and_the_status_bar_keeps_help_and_quit() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(80, 24).start();
    h.open_project("weather");
    let active = demo.file("weather-api/memory-bank/activeContext.md");
    h.keys("r c y");
    let text = std::fs::read_to_string(&active).unwrap();
    std::fs::write(&active, format!("{text}- an agent's line\n")).unwrap();
    h.app
        .update(mbank::tui::Message::FilesChanged(vec![active.clone()]));
    h.pump_until("the review", |app| {
        app.review
            .pane
            .review
            .as_ref()
            .is_some_and(|r| r.files.len() == 1)
            && !app.review.pane.busy
    });
    assert_eq!(h.app.focus, Focus::Review);
    let screen = h.settled_screen();
    // Beside the tree, the file is named from its bank's folder, its end kept.
    assert!(
        screen
            .lines()
            .any(|l| l.contains("M activeContext.md") || l.contains("…Context.md")),
        "{screen}"
    );
    h.keys("z");
    let screen = h.settled_screen();
    assert!(
        !screen.contains("projectBrief.md"),
        "the tree is hidden:\n{screen}"
    );
    let row = screen
        .lines()
        .find(|l| l.contains(" M "))
        .unwrap_or_default();
    assert!(
        row.contains("M activeContext.md") && row.contains("tok"),
        "{screen}"
    );
    let status = status(&mut h);
    for hint in ["? help", "q quit"] {
        assert!(status.contains(hint), "{status}");
    }
    // No hint is cut: the last one before the root's label is a whole word, not a key.
    let left = status.split("~/demo").next().unwrap_or_default().trim_end();
    let last = left.rsplit(' ').next().unwrap_or_default();
    assert!(last.chars().count() > 1, "{status}");
    // Tab moves the focus to the tree, which then takes the width; z again: both.
    h.keys("tab");
    assert_eq!(h.app.focus, Focus::Tree);
    let screen = h.settled_screen();
    assert!(
        screen.contains("projectBrief.md") && !screen.contains("Review"),
        "{screen}"
    );
    h.keys("z");
    let screen = h.settled_screen();
    assert!(
        screen.contains("projectBrief.md") && screen.contains("Review"),
        "{screen}"
    );
}

#[test]
fn the_demo_path_is_shortened_in_the_status_bar() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(80, 24).start();
    h.app.projects.demo_path = Some(std::path::PathBuf::from(
        "/tmp/a-very-long-temporary-folder-name/for/the/demo/mbank-demo-x1y2z3",
    ));
    let status = status(&mut h);
    assert!(status.contains("demo mbank-demo-x1y2z3"), "{status}");
    assert!(!status.contains("/tmp/"), "{status}");
    assert!(
        status.contains("F1 help") && status.contains("ctrl-q quit"),
        "{status}"
    );
}

#[test]
fn toasts_sit_in_the_status_line_never_over_a_title_or_text() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(80, 24).start();
    h.open_project("weather");
    h.keys("down down enter");
    let before = h.settled_screen();
    h.keys("ctrl-s");
    h.idle();
    h.app.toast("a second message");
    h.app.toast_error("an error that must be read first");
    let after = h.screen();
    let lines = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
    let (before, after) = (lines(&before), lines(&after));
    // Every row but the status line is drawn as it was.
    assert_eq!(before[..before.len() - 1], after[..after.len() - 1]);
    let status = after.last().unwrap();
    assert!(
        status.contains("an error that must be read first (+2, F9)"),
        "{status}"
    );
    assert!(
        status.contains("F1 help") && status.contains("ctrl-q quit"),
        "{status}"
    );
}
