//! What the TUI offers a project without a memory bank (a bank made as `mbank init`
//! makes it) and the next decision record of a project with an ADR folder, driven
//! through the app's real loop on the demo banks.
use crate::common;

use common::tui::{DemoBanks, Tui};
use mbank::tui::overlays::Overlay;

#[test]
fn a_project_without_a_bank_is_offered_one_and_gets_it_with_its_instructions() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).start();
    h.open_project("gemini");
    let screen = h.screen();
    assert!(screen.contains("+ create a memory bank"), "{screen}");
    let project = demo.path().join("gemini-cli-tool");
    h.keys("end enter");
    h.pump_until("the offer", |app| {
        matches!(app.overlays.last(), Some(Overlay::Confirm(_)))
    });
    let screen = h.screen();
    assert!(screen.contains("Cline memory bank"), "{screen}");
    assert!(screen.contains(".clinerules/memory-bank.md"), "{screen}");
    h.keys("y");
    h.pump_until("the bank", |_| {
        project.join("memory-bank/projectBrief.md").is_file()
    });
    h.pump_until("the tree with the bank", |app| {
        app.tree.report.as_ref().is_some_and(|r| {
            r.banks
                .iter()
                .any(|b| b.format == mbank::core::model::Format::Cline)
        })
    });
    let screen = h.settled_screen();
    assert!(!screen.contains("+ create a memory bank"), "{screen}");
    assert!(screen.contains("projectBrief.md"), "{screen}");
    let rules = std::fs::read_to_string(project.join(".clinerules/memory-bank.md")).unwrap();
    assert!(rules.contains("`memory-bank/activeContext.md`"), "{rules}");
    // GEMINI.md, the project's own file, is untouched.
    assert_eq!(
        std::fs::read_to_string(project.join("GEMINI.md")).unwrap(),
        std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("assets/demo/gemini-cli-tool/GEMINI.md")
        )
        .unwrap()
    );

    // A project with a bank is offered none.
    let mut h = Tui::demo(&demo).start();
    h.open_project("weather");
    assert!(!h.screen().contains("+ create a memory bank"));
}

#[test]
fn the_timeline_writes_the_next_decision_record_of_the_projects_adr_folder() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).start();
    h.open_project("mobile");
    h.keys("t");
    h.keys("n");
    h.pump_until("the title prompt", |app| {
        matches!(app.overlays.last(), Some(Overlay::AdrTitle(_)))
    });
    assert!(
        h.screen()
            .contains("New decision record in .claude/memory/decisions"),
        "{}",
        h.screen()
    );
    h.keys("U s e space E x p o space R o u t e r");
    h.keys("ctrl-s");
    let record = demo.file("mobile-app/.claude/memory/decisions/ADR-005-use-expo-router.md");
    h.pump_until("the record", |app| app.overlays.is_empty());
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(
        text.starts_with("# ADR-005: Use Expo Router\n\n**Status:** Proposed\n"),
        "{text}"
    );
    assert!(
        h.toasts().contains("ADR-005-use-expo-router.md"),
        "{}",
        h.toasts()
    );

    // A project without an ADR folder says where records go.
    let mut h = Tui::demo(&demo).start();
    h.open_project("weather");
    h.keys("t n");
    assert!(h.app.overlays.is_empty());
    assert!(h.toasts().contains("has no ADR folder"), "{}", h.toasts());
}
