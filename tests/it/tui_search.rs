//! The search overlay through the real loop: one key opens it over any screen, typing
//! narrows the results as it goes (answered by the search worker, off the drawing
//! thread), and Enter opens the file at the result's line in its project, switching
//! project when another is open, never over unsaved edits without asking.
use crate::common;

use common::tui::{DemoBanks, Tui};
use mbank::tui::app::Screen;
use mbank::tui::overlays::Overlay;
use mbank::tui::overlays::search::SearchState;

fn search_view(h: &Tui) -> &mbank::tui::overlays::search::SearchView {
    match h.app.overlays.last() {
        Some(Overlay::Search(search)) => search,
        other => panic!("the search overlay is not on top: {other:?}"),
    }
}

#[test]
fn typing_narrows_the_results_and_enter_opens_the_file_at_its_line_in_its_project() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(120, 36).start();
    h.open_project("weather");
    h.keys("esc S");
    assert_eq!(search_view(&h).state, SearchState::Empty);
    h.keys("s q l");
    let first = search_view(&h).hits.len();
    assert_eq!(search_view(&h).state, SearchState::Done);
    assert!(first > 0, "sql finds something in the demo");
    h.keys("i t e space o f f l i n e");
    let view = search_view(&h);
    assert_eq!(view.query, "sqlite offline");
    let best = view.hits.first().expect("a result").clone();
    assert!(best.display.contains("ADR-002"), "{best:?}");
    let screen = h.screen();
    assert!(screen.contains("Search every project"), "{screen}");
    assert!(screen.contains("mobile-app"), "{screen}");
    // Backspace narrows back out; esc closes without opening anything.
    h.keys("backspace backspace backspace backspace backspace backspace backspace backspace");
    assert_eq!(search_view(&h).query, "sqlite");
    h.keys("enter");
    assert!(h.app.overlays.is_empty());
    assert_eq!(h.app.screen, Screen::Project);
    assert_eq!(
        h.app.projects.open.as_ref().map(|p| p.name.as_str()),
        Some("mobile-app")
    );
    assert_eq!(h.doc().path.to_string_lossy(), best.file);
}

#[test]
fn escape_closes_and_a_project_with_unsaved_edits_is_not_left_without_asking() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(120, 36).start();
    h.open_project("weather");
    h.open_file("activeContext.md");
    h.keys("i x");
    assert!(h.is_dirty());
    h.keys("f6 s q l i t e esc");
    assert!(h.app.overlays.is_empty(), "esc closes the search");
    h.keys("f6 s q l i t e enter");
    // The switch asks; enter keeps the edits.
    assert!(
        matches!(h.app.overlays.last(), Some(Overlay::Confirm(_))),
        "{:?}",
        h.app.overlays
    );
    h.keys("enter");
    assert!(h.is_dirty());
    assert_eq!(
        h.app.projects.open.as_ref().map(|p| p.name.as_str()),
        Some("weather-api")
    );
}

#[test]
fn the_search_key_works_from_the_picker() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(120, 36).start();
    h.pump_until("every project's figures", |app| {
        app.projects.picker.counted == 6
    });
    h.keys("f6 b o o k i n g");
    let view = search_view(&h);
    assert_eq!(view.state, SearchState::Done);
    assert!(
        view.hits.iter().all(|hit| !hit.project.is_empty()),
        "{:?}",
        view.hits
    );
}

#[test]
fn a_search_opened_again_sees_what_was_written_meanwhile() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(120, 36).start();
    h.pump_until("every project's figures", |app| {
        app.projects.picker.counted == 6
    });
    h.keys("f6 z e p p e l i n");
    assert!(search_view(&h).hits.is_empty());
    assert_eq!(search_view(&h).state, SearchState::Done);
    demo.write(
        &demo.file("weather-api/memory-bank/activeContext.md"),
        "# Active Context\n\nTrying a zeppelin for the rooftop sensors.\n",
    );
    h.keys("esc f6 z e p p e l i n");
    let view = search_view(&h);
    assert_eq!(view.hits.len(), 1, "{:?}", view.hits);
    assert_eq!(view.hits[0].project, "weather-api");
}

#[test]
fn a_home_folder_store_is_found_named_as_its_store_and_enter_says_where_it_is() {
    let demo = DemoBanks::new();
    let memory = demo.home().join(".codex/memories/MEMORY.md");
    std::fs::create_dir_all(memory.parent().unwrap()).unwrap();
    demo.write(
        &memory,
        "# Tooling\nReleases are signed by the zeppelin key.\n",
    );
    let mut h = Tui::demo(&demo).size(120, 36).start();
    h.keys("f6 z e p p e l i n");
    let view = search_view(&h);
    assert_eq!(view.hits.len(), 1, "{:?}", view.hits);
    let hit = view.hits[0].clone();
    assert_eq!(hit.project, "Codex memories (~/.codex/memories)");
    assert_eq!(hit.display, "~/.codex/memories/MEMORY.md");
    assert!(hit.home_store);
    assert!(
        h.screen().contains("Codex memories (~/.codex/memories)"),
        "{}",
        h.screen()
    );
    // Only a project's files open in mbank: the store's file is named, the search stays.
    h.keys("enter");
    assert!(
        h.toasts()
            .contains("~/.codex/memories/MEMORY.md:1 is in Codex memories (~/.codex/memories)"),
        "{}",
        h.toasts()
    );
    search_view(&h);
}
