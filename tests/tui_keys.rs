//! Key sequences, written the way the keymap writes keys, driven through the app's real
//! loop on the TestBackend (each key, then the workers' answers, then a frame): what a
//! person types, and what it does to the screen and the files.
mod common;

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
    h.pump_until("the scan", |app| app.picker.visible_len() == 6);
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
    assert!(h.screen().contains("Decisions: 4 of 4"));
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
    h.pump_until("the scan", |app| app.picker.visible_len() == 6);
    // On the picker, the project-only global keys are off and typed text is a filter.
    h.keys("tab F2 F3 F7 F4 ctrl-e");
    assert_eq!(h.app.screen, Screen::Picker);
    assert!(h.app.overlays.is_empty());
    assert!(h.app.picker.filter.is_empty());
    h.keys("esc");
    assert_eq!(h.app.screen, Screen::Picker, "no project to go back to");
}
