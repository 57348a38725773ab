//! What the TUI offers an empty project (its bank folder holds no file yet): a bank made
//! as `mbank init` makes it; and the next decision record of a project with an ADR
//! folder. Driven through the app's real loop on the demo banks.
use crate::common;

use common::tui::{DemoBanks, Tui};
use mbank::tui::Message;
use mbank::tui::overlays::Overlay;

/// Adds an empty project (a `memory-bank/` folder with nothing in it, and a
/// package.json) to the running app's root and opens it.
pub fn open_empty_project(h: &mut Tui, demo: &DemoBanks) -> std::path::PathBuf {
    let project = demo.path().join("fresh-app");
    std::fs::create_dir_all(project.join("memory-bank")).unwrap();
    std::fs::write(
        project.join("package.json"),
        r#"{"dependencies":{"express":"^4.19.2"}}"#,
    )
    .unwrap();
    h.app.update(Message::FilesChanged(vec![project.clone()]));
    let wanted = project.clone();
    h.pump_until("the new project", move |app| {
        app.projects.picker.project(&wanted).is_some()
    });
    h.keys("f r e s h enter");
    h.pump_until("its report", |app| app.tree.report.is_some());
    project
}

#[test]
fn an_empty_project_is_offered_a_bank_and_gets_it_with_its_instructions() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).start();
    let project = open_empty_project(&mut h, &demo);
    let screen = h.settled_screen();
    assert!(screen.contains("+ create a memory bank"), "{screen}");
    h.keys("end enter");
    h.pump_until("the offer", |app| {
        matches!(app.overlays.last(), Some(Overlay::Confirm(_)))
    });
    let screen = h.screen();
    assert!(screen.contains("Cline memory bank"), "{screen}");
    assert!(screen.contains(".clinerules/memory-bank.md"), "{screen}");
    h.keys("y");
    h.pump_until("the bank", |_| {
        project.join("memory-bank/decisionLog.md").is_file()
    });
    h.pump_until("the tree with the bank's files", |app| {
        app.tree
            .report
            .as_ref()
            .is_some_and(|r| r.banks.iter().any(|b| !b.files.is_empty()))
    });
    let screen = h.settled_screen();
    assert!(!screen.contains("+ create a memory bank"), "{screen}");
    assert!(screen.contains("projectBrief.md"), "{screen}");
    let rules = std::fs::read_to_string(project.join(".clinerules/memory-bank.md")).unwrap();
    assert!(rules.contains("`memory-bank/activeContext.md`"), "{rules}");
    // Made as `mbank init` makes it: the tech file from the project's manifest.
    let tech = std::fs::read_to_string(project.join("memory-bank/techContext.md")).unwrap();
    assert!(tech.contains("- express ^4.19.2 (package.json)"), "{tech}");

    // A project with files is offered nothing, a project of instruction files included.
    for name in ["weather", "gemini"] {
        let mut h = Tui::demo(&demo).start();
        h.open_project(name);
        assert!(!h.screen().contains("+ create a memory bank"), "{name}");
    }
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
