//! Live refresh of every listed project, not only the open one: an agent writing inside
//! another project's memory folder (a plain write, an append, a temp file renamed over the
//! file, a new file in an empty sub-folder) changes that project's picker row, sorting by
//! recent activity moves the row while the selection stays put, and a watch limit too
//! small for every folder is said, not silently ignored. The app watches for real here.
use crate::common;

use std::path::Path;

use common::tui::{DemoBanks, Tui};
use mbank::tui::App;
use mbank::tui::app::Screen;

/// The size the picker's row of `project` knows for the file at `path`, once counted.
fn row_size(app: &App, project: &str, path: &Path) -> Option<u64> {
    let row = app
        .projects
        .picker
        .rows
        .iter()
        .find(|r| r.project.name == project)?;
    row.report
        .as_ref()?
        .banks
        .iter()
        .flat_map(|b| &b.files)
        .find(|f| f.file.path == path)
        .map(|f| f.file.size)
}

fn row_files(app: &App, project: &str) -> Option<usize> {
    let row = app
        .projects
        .picker
        .rows
        .iter()
        .find(|r| r.project.name == project)?;
    row.report.as_ref().map(|r| r.file_count())
}

/// Opens weather-api, goes back to the picker and waits for every figure and watch.
fn on_the_picker_with_weather_open(demo: &DemoBanks) -> Tui {
    let mut h = Tui::demo(demo).watch().start();
    h.open_project("weather");
    h.keys("esc p");
    assert_eq!(h.app.screen, Screen::Picker);
    h.pump_until("every project's figures and watches", |app| {
        app.projects.picker.counted == app.projects.picker.rows.len() && app.watches_settled()
    });
    h
}

#[test]
fn writes_inside_another_projects_memory_folders_refresh_its_row() {
    let demo = DemoBanks::new();
    // An empty sub-folder of a bank: the first file an agent puts there must be seen.
    std::fs::create_dir_all(demo.file("mobile-app/.claude/memory/notes")).unwrap();
    let mut h = on_the_picker_with_weather_open(&demo);

    // A plain write in a sub-folder of a bank that is not open.
    let adr = demo.file("mobile-app/.claude/memory/decisions/ADR-002-sqlite-offline-cache.md");
    let text = format!(
        "{}\n",
        "# ADR-002: SQLite offline cache, rewritten by an agent\n".repeat(9)
    );
    std::fs::write(&adr, &text).unwrap();
    let size = text.len() as u64;
    h.pump_until("the plain write in mobile-app", |app| {
        row_size(app, "mobile-app", &adr) == Some(size)
    });

    // An append.
    let session = demo.file("mobile-app/.claude/memory/sessions/2026-11-12-sync-conflicts.md");
    let before = std::fs::metadata(&session).unwrap().len();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&session)
        .unwrap();
    std::io::Write::write_all(&mut file, b"- appended by an agent\n").unwrap();
    drop(file);
    h.pump_until("the append in mobile-app", |app| {
        row_size(app, "mobile-app", &session) == Some(before + 23)
    });

    // A temp file renamed over a file, in another project's rules folder.
    let rule = demo.file("storefront/.claude/rules/testing.md");
    let temp = demo.file("storefront/.claude/rules/.testing.md.agent-tmp");
    std::fs::write(&temp, "# Testing\n\nRenamed into place.\n").unwrap();
    std::fs::rename(&temp, &rule).unwrap();
    h.pump_until("the rename in storefront", |app| {
        row_size(app, "storefront", &rule) == Some(31)
    });

    // A new file in the sub-folder that was empty when the app started.
    let files = row_files(&h.app, "mobile-app").unwrap();
    std::fs::write(
        demo.file("mobile-app/.claude/memory/notes/first.md"),
        "# First note\n",
    )
    .unwrap();
    h.pump_until("the new file in mobile-app", |app| {
        row_files(app, "mobile-app") == Some(files + 1)
    });
    assert!(
        h.app.projects.picker.watch_note.is_none(),
        "{:?}",
        h.app.projects.picker.watch_note
    );
}

#[test]
fn sorted_by_recent_activity_a_written_project_moves_up_and_the_selection_stays() {
    let demo = DemoBanks::new();
    let mut h = on_the_picker_with_weather_open(&demo);
    assert_eq!(h.app.projects.picker.sort.label(), "recent activity");
    let first_row = |h: &mut Tui| {
        let screen = h.screen();
        screen
            .lines()
            .skip_while(|l| !l.contains("project"))
            .nth(1)
            .unwrap_or_default()
            .to_string()
    };
    assert!(!first_row(&mut h).contains("storefront"));
    let selected = h.app.projects.picker.selected_path().unwrap();
    assert!(selected.ends_with("weather-api"), "{selected:?}");

    let text = "# API routes\n\nWritten just now.\n";
    std::fs::write(demo.file("storefront/.claude/rules/api-routes.md"), text).unwrap();
    let size = text.len() as u64;
    h.pump_until("storefront's fresh figures", |app| {
        app.projects
            .picker
            .rows
            .iter()
            .find(|r| r.project.name == "storefront")
            .and_then(|r| r.report.as_ref())
            .is_some_and(|r| {
                r.banks
                    .iter()
                    .flat_map(|b| &b.files)
                    .any(|f| f.file.size == size && f.file.path.ends_with("api-routes.md"))
            })
    });
    let top = first_row(&mut h);
    assert!(top.contains("storefront"), "{top}");
    assert!(top.contains("just now"), "{top}");
    assert_eq!(h.app.projects.picker.selected_path(), Some(selected));
    let screen = h.screen();
    let marked = screen
        .lines()
        .find(|l| l.contains("weather-api"))
        .unwrap_or_default();
    assert!(
        marked.contains("▸"),
        "the open project stays marked: {marked}"
    );
}

#[test]
fn a_watch_limit_too_small_for_every_folder_is_said_in_the_picker() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).watch().start();
    h.app.limit_watches(3);
    h.pump_until("the coverage note", |app| {
        app.projects.picker.watch_note.is_some()
    });
    h.pump_until("every project's figures", |app| {
        app.projects.picker.counted == app.projects.picker.rows.len() && app.watches_settled()
    });
    let screen = h.screen();
    assert!(screen.contains("live refresh watches 3 of"), "{screen}");
    // The most wanted folders are the ones watched: the root first, so new projects
    // still appear.
    // (made elsewhere and moved in whole, as one event)
    let staging = demo.home().join("staging/new-project");
    std::fs::create_dir_all(staging.join("memory-bank")).unwrap();
    std::fs::write(staging.join("memory-bank/projectbrief.md"), "# New\n").unwrap();
    std::fs::rename(&staging, demo.file("new-project")).unwrap();
    h.pump_until("the new project", |app| app.projects.picker.rows.len() == 7);
}

/// A decision log kept outside every bank, which `CLAUDE.md` imports: its entries are in
/// the timeline, Enter opens one in the editor, and an entry an agent appends to it shows
/// up without a keystroke (its folder is watched like a bank's).
#[test]
fn the_timeline_follows_a_decision_log_the_memory_imports() {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("shop");
    let log = project.join("docs/ai/decisions.md");
    std::fs::create_dir_all(log.parent().unwrap()).unwrap();
    std::fs::write(
        project.join("CLAUDE.md"),
        "# Shop\n\nDecisions: @docs/ai/decisions.md\n",
    )
    .unwrap();
    std::fs::write(
        &log,
        "# Decisions\n\n## 2026-02-01: Keep one binary\n**Decision**: one binary.\n",
    )
    .unwrap();
    let mut h = Tui::options(root.path()).watch().start();
    h.open_project("shop");
    h.key(crossterm::event::KeyCode::Esc);
    h.key(crossterm::event::KeyCode::Char('t'));
    let screen = h.screen();
    assert!(screen.contains("Keep one binary"), "{screen}");
    assert!(screen.contains("docs/ai/decisions.md"), "{screen}");
    // The log's folder joins the watches once the report that reads it is in.
    h.pump_until("the watches", |app| app.watches_settled());

    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::write(
        &log,
        format!("{text}\n## 2026-03-01: Ship a demo\n**Decision**: a demo root.\n"),
    )
    .unwrap();
    h.pump_until("the appended entry", |app| {
        app.tree
            .report
            .as_ref()
            .is_some_and(|r| r.decisions.iter().any(|d| d.title == "Ship a demo"))
    });
    assert!(h.screen().contains("Ship a demo"), "{}", h.screen());

    h.key(crossterm::event::KeyCode::Enter);
    h.pump_until("the log in the editor", |app| {
        app.document
            .doc()
            .is_some_and(|d| d.path.ends_with("docs/ai/decisions.md"))
    });
}
