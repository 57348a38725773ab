//! The TUI driven through its message loop and drawn on ratatui's TestBackend: keys in,
//! buffer asserted. Background workers run for real; each wait is bounded so a stuck
//! worker fails the test instead of hanging it.
use crate::common;

use common::git::GitRepo;
use common::tui::Tui;
use crossterm::event::KeyCode;
use mbank::core::demo::{self, DemoRoot};
use mbank::core::tokens::Encoding;
use mbank::tui::Message;
use mbank::tui::app::{Focus, Main, Screen, ViewMode};
use mbank::tui::overlays::Overlay;

/// A demo copy dated as of the harness's clock.
fn demo_root() -> DemoRoot {
    demo::create(&common::test_clock()).unwrap()
}

#[test]
fn picker_lists_every_demo_project_with_figures_and_filters_as_you_type() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.pump_until("every project's figures", |app| {
        app.projects.picker.visible_len() == 6 && app.projects.picker.counted == 6
    });
    let screen = h.screen();
    for name in [
        "weather-api",
        "billing-roo",
        "mobile-app",
        "ml-pipeline",
        "storefront",
        "gemini-cli-tool",
    ] {
        assert!(screen.contains(name), "{name} missing:\n{screen}");
    }
    // A one-bank project's figure names the bank's budget; the verdict follows it.
    assert!(
        screen.contains("/3.0k ok"),
        "token gauge against the ConKeeper bank's 3,000 budget:\n{screen}"
    );
    // The session's figure against its bank's budget, never a single file's verdict.
    assert!(screen.contains("3.8k/5.0k ok"), "{screen}");
    assert!(screen.contains("stale"), "{screen}");
    h.type_text("wthr");
    let screen = h.screen();
    assert!(screen.contains("1 of 6"), "{screen}");
    assert!(
        screen.contains("weather-api") && !screen.contains("billing-roo"),
        "{screen}"
    );
    h.key(KeyCode::Esc);
    assert!(h.app.projects.picker.filter.is_empty());
    assert_eq!(h.app.projects.picker.visible_len(), 6);
}

#[test]
fn opening_a_project_shows_layers_in_read_order_and_the_first_file() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("weather");
    let screen = h.screen();
    let order = [
        "1 projectBrief.md",
        "2 productContext.md",
        "3 systemPatterns.md",
        "4 techContext.md",
        "5 activeContext.md",
        "6 progress.md",
        "7 decisionLog.md",
    ];
    let mut last = 0;
    for row in order {
        let at = screen
            .find(row)
            .unwrap_or_else(|| panic!("{row} missing:\n{screen}"));
        assert!(at > last, "{row} out of order:\n{screen}");
        last = at;
    }
    assert!(
        screen.contains("# Project Brief"),
        "editor shows the brief:\n{screen}"
    );
    assert!(screen.contains("Cline memory bank"), "{screen}");
}

#[test]
fn editing_and_saving_writes_the_file_atomically() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("weather");
    h.open_file("progress.md");
    assert_eq!(h.app.focus, Focus::Editor);
    h.type_text("Edited in mbank. ");
    assert!(h.is_dirty());
    assert!(h.screen().contains("progress.md ●"), "dirty marker");
    h.ctrl('s');
    h.pump_until("the save", |app| !app.document.is_dirty());
    let path = demo.path().join("weather-api/memory-bank/progress.md");
    let on_disk = std::fs::read_to_string(&path).unwrap();
    assert!(
        on_disk.starts_with("Edited in mbank. # Progress"),
        "{on_disk}"
    );
    let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".mbank-tmp"))
        .collect();
    assert!(leftovers.is_empty());
    assert!(h.screen().contains("saved progress.md"));
}

#[test]
fn undo_and_live_token_count_follow_the_buffer() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("weather");
    h.open_file("activeContext.md");
    h.pump_until("the first count", |app| {
        app.document.doc().is_some_and(|d| d.stats.is_some())
    });
    let expected = mbank::core::tokens::count(
        Encoding::O200k,
        &std::fs::read_to_string(demo.path().join("weather-api/memory-bank/activeContext.md"))
            .unwrap(),
    );
    let counted = h.doc().stats.as_ref().unwrap().1.loaded_tokens;
    assert_eq!(counted, expected, "the count is of this file's buffer");
    let before = h.doc().stats.as_ref().unwrap().1.loaded_tokens;
    h.type_text("one two three four five six seven eight nine ten ");
    h.pump_until("the recount", |app| {
        app.document
            .doc()
            .is_some_and(|d| d.stats.as_ref().is_some_and(|(v, _)| *v == d.version))
    });
    let after = h.doc().stats.as_ref().unwrap().1.loaded_tokens;
    assert!(after >= before + 10, "{before} -> {after}");
    for _ in 0..60 {
        h.ctrl('z');
    }
    assert!(!h.is_dirty(), "undo returns to the saved text");
}

#[test]
fn help_overlay_is_generated_from_the_keymap_and_gets_keys_first() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("weather");
    h.key(KeyCode::Esc);
    assert_eq!(h.app.focus, Focus::Tree);
    h.key(KeyCode::Char('?'));
    let screen = h.screen();
    assert!(screen.contains("File tree"), "{screen}");
    assert!(screen.contains("fold / unfold group"), "{screen}");
    assert!(screen.contains("Everywhere"), "{screen}");
    let mut seen_save = false;
    for _ in 0..12 {
        h.key(KeyCode::PageDown);
        seen_save |= h.screen().contains("ctrl-s");
    }
    assert!(seen_save, "the editor's keys further down");
    // q closes the overlay instead of quitting.
    h.key(KeyCode::Char('q'));
    assert!(h.app.overlays.is_empty());
    assert!(!h.app.quit);
}

#[test]
fn quitting_with_unsaved_edits_asks_first_and_no_keeps_them() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("weather");
    h.open_file("progress.md");
    h.type_text("x");
    h.ctrl('q');
    assert!(!h.app.quit);
    let screen = h.screen();
    assert!(
        screen.contains("Your unsaved edits to progress.md will be lost"),
        "{screen}"
    );
    h.key(KeyCode::Char('n'));
    assert!(!h.app.quit && h.is_dirty());
    h.ctrl('q');
    h.key(KeyCode::Char('y'));
    assert!(h.app.quit);
}

#[test]
fn a_dirty_buffer_and_an_external_write_lose_nothing() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("weather");
    h.open_file("progress.md");
    h.type_text("MINE ");
    let path = demo.path().join("weather-api/memory-bank/progress.md");
    let original = std::fs::read_to_string(&path).unwrap();
    let theirs = format!("{original}- [x] agent wrote this line\n");
    std::fs::write(&path, &theirs).unwrap();
    h.app.update(Message::FilesChanged(vec![path.clone()]));
    // The file is read again off the loop; the prompt follows.
    h.pump_until("the conflict prompt", |app| {
        matches!(app.overlays.last(), Some(Overlay::Conflict(_)))
    });
    let screen = h.screen();
    assert!(
        screen.contains("changed on disk while you were editing"),
        "{screen}"
    );
    assert!(screen.contains("+ - [x] agent wrote this line"), "{screen}");
    // The disk still holds their version; the buffer still holds mine.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);
    assert!(h.doc().text().starts_with("MINE "));

    // Merge view: both edits land in the buffer, the pre-merge buffer is backed up.
    h.key(KeyCode::Char('v'));
    let merged = h.doc().text();
    assert!(merged.starts_with("MINE # Progress"), "{merged}");
    assert!(merged.contains("agent wrote this line"), "{merged}");
    h.idle();
    let backups: Vec<_> = std::fs::read_dir(&h.backup_dir)
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(backups.len(), 1);
    h.ctrl('s');
    h.pump_until("the save", |app| !app.document.is_dirty());
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(saved.starts_with("MINE # Progress") && saved.contains("agent wrote this line"));
}

#[test]
fn a_save_racing_an_external_write_is_refused_and_take_theirs_keeps_a_backup() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("weather");
    h.open_file("activeContext.md");
    h.type_text("MINE ");
    let path = demo.path().join("weather-api/memory-bank/activeContext.md");
    std::fs::write(&path, "# Active Context\nrewritten by the agent\n").unwrap();
    // No watcher event yet: the save itself must notice.
    h.ctrl('s');
    h.pump_until("the conflict prompt", |app| {
        matches!(app.overlays.last(), Some(Overlay::Conflict(_)))
    });
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "# Active Context\nrewritten by the agent\n"
    );
    h.key(KeyCode::Char('t'));
    assert_eq!(h.doc().text(), "# Active Context\nrewritten by the agent\n");
    h.idle();
    let backup = std::fs::read_dir(&h.backup_dir)
        .unwrap()
        .flatten()
        .next()
        .unwrap();
    let mine = std::fs::read_to_string(backup.path()).unwrap();
    assert!(mine.starts_with("MINE # Active Context"), "{mine}");
    // Named after the project too: every project has an activeContext.md.
    let name = backup.file_name().to_string_lossy().into_owned();
    assert!(
        name.starts_with("weather-api.activeContext.md.mine."),
        "{name}"
    );
}

/// A watching app with the weather project's progress.md open, the cursor moved to its
/// third line: the cursor and the file's path.
fn progress_open_on_its_third_line(demo: &DemoRoot) -> (Tui, (usize, usize), std::path::PathBuf) {
    let mut h = Tui::options(demo.path()).watch().start();
    h.open_project("weather");
    h.open_file("progress.md");
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    let cursor = h.doc().cursor();
    (
        h,
        cursor,
        demo.path().join("weather-api/memory-bank/progress.md"),
    )
}

#[test]
fn a_clean_buffer_reloads_in_place_when_an_agent_writes() {
    let demo = demo_root();
    let (mut h, cursor, path) = progress_open_on_its_third_line(&demo);
    let writer_path = path.clone();
    std::thread::spawn(move || {
        let text = std::fs::read_to_string(&writer_path).unwrap();
        std::fs::write(
            &writer_path,
            format!("{text}- [x] written by another thread\n"),
        )
        .unwrap();
    })
    .join()
    .unwrap();
    h.pump_until("the watcher's reload", |app| {
        app.document
            .doc()
            .is_some_and(|d| d.text().contains("written by another thread"))
    });
    assert_eq!(h.doc().cursor(), cursor);
    assert!(!h.is_dirty());
    h.drain();
    assert!(h.screen().contains("changed on disk: reloaded"));
}

#[test]
fn an_agent_write_seen_half_done_leaves_the_cursor_where_it_was() {
    let demo = demo_root();
    let (mut h, cursor, path) = progress_open_on_its_third_line(&demo);
    let text = std::fs::read_to_string(&path).unwrap();
    // An agent that empties the file before writing it, read in between.
    std::fs::write(&path, "").unwrap();
    h.pump_until("the reload of the emptied file", |app| {
        app.document.doc().is_some_and(|d| d.text().is_empty())
    });
    std::fs::write(&path, format!("{text}- [x] written in two steps\n")).unwrap();
    h.pump_until("the reload of the whole file", |app| {
        app.document
            .doc()
            .is_some_and(|d| d.text().contains("written in two steps"))
    });
    assert_eq!(h.doc().cursor(), cursor);
    assert!(!h.is_dirty());
}

#[test]
fn the_watcher_marks_files_an_agent_changed_until_viewed() {
    let demo = demo_root();
    let mut h = Tui::options(demo.path()).watch().start();
    h.open_project("weather");
    let path = demo.path().join("weather-api/memory-bank/decisionLog.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        format!("{text}\n## Decision: Cache forecasts for 10 minutes\n"),
    )
    .unwrap();
    let changed = path.clone();
    h.pump_until("the changed marker", move |app| {
        app.tree.changed.contains(&changed)
    });
    let screen = h.screen();
    assert!(screen.contains("decisionLog.md"), "{screen}");
    let line = screen
        .lines()
        .find(|l| l.contains("decisionLog.md"))
        .unwrap();
    assert!(line.contains('•'), "{line}");
    h.open_file("decisionLog.md");
    assert!(!h.app.tree.changed.contains(&path));
}

#[test]
fn findings_panel_jumps_to_file_and_line() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("weather");
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('f'));
    assert_eq!(h.app.focus, Focus::Findings);
    let screen = h.screen();
    assert!(screen.contains("Findings:"), "{screen}");
    assert!(!h.app.findings.items.is_empty());
    let target = h
        .app
        .findings
        .items
        .iter()
        .position(|f| f.file.is_file())
        .expect("a finding about a file");
    h.app.findings.cursor.selected = target;
    let wanted = h.app.findings.items[target].file.clone();
    h.key(KeyCode::Enter);
    h.pump_until("the jump", move |app| {
        app.document.doc().is_some_and(|d| d.path == wanted)
    });
    assert_eq!(h.app.focus, Focus::Editor);
}

#[test]
fn an_empty_root_explains_how_to_set_one() {
    let empty = tempfile::tempdir().unwrap();
    let mut h = Tui::start(empty.path());
    h.pump_until("the scan", |app| !app.projects.picker.scanning);
    let screen = h.screen();
    assert!(screen.contains("No memory banks under"), "{screen}");
    assert!(screen.contains("MEMORY_BANK_ROOT"), "{screen}");
    assert!(screen.contains("ctrl-d"), "demo key shown:\n{screen}");
}

#[test]
fn a_demo_copy_made_with_ctrl_d_is_removed_when_the_app_ends() {
    let empty = tempfile::tempdir().unwrap();
    let mut h = Tui::start(empty.path());
    h.pump_until("the scan", |app| !app.projects.picker.scanning);
    h.keys("ctrl-d");
    h.pump_until("the demo copy", |app| app.projects.demo_path.is_some());
    let copy = h.app.projects.demo_path.clone().unwrap();
    h.pump_until("the demo's scan", |app| !app.projects.picker.scanning);
    assert!(copy.join("weather-api").is_dir(), "{copy:?}");
    assert!(
        h.toasts().contains("removed when mbank exits"),
        "{}",
        h.toasts()
    );
    drop(h);
    assert!(!copy.exists(), "{copy:?} is left behind");
}

#[test]
fn infinity_memories_open_with_type_and_title_locked() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("ml-pipe");
    let doc = h.doc();
    assert!(doc.memory_id.is_some(), "the first row is a memory");
    let screen = h.screen();
    assert!(screen.contains("type and title are locked"), "{screen}");
    h.key(KeyCode::Enter);
    h.type_text("Note: ");
    h.ctrl('s');
    h.pump_until("the save", |app| !app.document.is_dirty());
    let store =
        std::fs::read_to_string(demo.path().join("ml-pipeline/.infinity/memories.json")).unwrap();
    assert!(store.contains("Note: "), "{store}");
    assert!(serde_json::from_str::<serde_json::Value>(&store).is_ok());
}

#[test]
fn switching_projects_remembers_the_open_file_and_cursor() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("weather");
    h.open_file("techContext.md");
    for _ in 0..5 {
        h.key(KeyCode::Down);
    }
    let cursor = h.doc().cursor();
    h.ctrl('p');
    assert_eq!(h.app.screen, Screen::Picker);
    h.type_text("billing");
    h.key(KeyCode::Enter);
    h.pump_until("billing's report", |app| {
        app.tree
            .report
            .as_ref()
            .is_some_and(|r| r.name == "billing-roo")
    });
    h.ctrl('p');
    assert!(
        h.app.projects.picker.filter.is_empty(),
        "the picker opens unfiltered"
    );
    h.type_text("weather");
    h.key(KeyCode::Enter);
    h.pump_until("the remembered file", |app| {
        app.document
            .doc()
            .is_some_and(|d| d.path.ends_with("techContext.md"))
    });
    assert_eq!(h.doc().cursor(), cursor);
}

#[test]
fn timeline_lists_decisions_in_date_order_with_links_filters_and_jumps() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("mobile");
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('t'));
    assert_eq!(h.app.focus, Focus::Timeline);
    let screen = h.screen();
    let first = screen.find("ADR-001").expect(&screen);
    let last = screen.find("ADR-004").expect(&screen);
    assert!(first < last, "date order:\n{screen}");
    assert!(screen.contains("⇢ superseded by ADR-004"), "{screen}");
    // The four ADRs and the informal decision of a session note ("## Decisions Made"),
    // shown with the file it lives in.
    assert!(screen.contains("Decisions: 5 of 5"), "{screen}");
    assert!(screen.contains("Archive wins over concurrent"), "{screen}");
    assert!(
        screen.contains(".claude/memory/sessions/2026-11-19"),
        "{screen}"
    );

    // Status filter: accepted only.
    h.key(KeyCode::Char('s'));
    let screen = h.screen();
    assert!(screen.contains("Decisions: 2 of 5 · accepted"), "{screen}");
    assert!(!screen.contains("ADR-001 Redux"), "{screen}");

    h.key(KeyCode::Esc);
    assert_eq!(h.app.timeline.visible_len(), 5);

    // Text filter, typed after '/'.
    h.key(KeyCode::Char('/'));
    h.type_text("zustand");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.timeline.visible_len(), 1);
    h.key(KeyCode::Enter);
    h.pump_until("the jump to the ADR", |app| {
        app.document
            .doc()
            .is_some_and(|d| d.path.ends_with("ADR-004-zustand-for-app-state.md"))
    });
    assert!(!h.app.main.is_timeline());
    assert_eq!(h.app.focus, Focus::Editor);
}

#[test]
fn a_decision_log_that_lost_entries_since_head_raises_a_banner() {
    let repo = GitRepo::folder("shop");
    let bank = repo.path("memory-bank");
    std::fs::create_dir_all(&bank).unwrap();
    for (name, text) in [
        ("projectbrief.md", "# Brief\nA shop.\n"),
        ("activeContext.md", "# Active\nNow.\n"),
        ("progress.md", "# Progress\n- started\n"),
    ] {
        std::fs::write(bank.join(name), text).unwrap();
    }
    let log = bank.join("decisionLog.md");
    std::fs::write(
        &log,
        "# Decision Log\n\n## Decision: Use Postgres\n- **Date**: 2026-01-05\n- **Status**: Accepted\n\n## Decision: Use Redis\n- **Date**: 2026-02-01\n- **Status**: Accepted\n",
    )
    .unwrap();
    repo.init();
    repo.commit_all("memory");
    // The agent rewrites the log and drops the Postgres entry.
    std::fs::write(
        &log,
        "# Decision Log\n\n## Decision: Use Redis\n- **Date**: 2026-02-01\n- **Status**: Accepted\n",
    )
    .unwrap();
    let mut h = Tui::start(repo.temp());
    h.open_project("shop");
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('t'));
    let screen = h.screen();
    assert!(screen.contains("⚠"), "{screen}");
    assert!(
        screen.contains("Postgres"),
        "the lost entry is named:\n{screen}"
    );
    assert!(screen.contains("append-only"), "{screen}");
}

#[test]
fn preview_renders_beside_the_editor_and_alone_with_private_blocks_and_chips() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("mobile");
    h.open_file("patterns.md");
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('v'));
    h.screen();
    h.pump_until("the preview", |app| app.document.preview.rendered.is_some());
    let screen = h.screen();
    assert!(screen.contains(" Preview "), "{screen}");
    assert!(
        screen.contains(" patterns.md"),
        "the editor stays beside it:\n{screen}"
    );
    h.key(KeyCode::Char('v'));
    h.screen();
    h.pump_until("the full-width preview", |app| {
        app.document
            .preview
            .rendered
            .as_ref()
            .is_some_and(|(k, _)| k.width > 80)
    });
    let text: Vec<String> = h
        .app
        .document
        .preview
        .rendered
        .as_ref()
        .unwrap()
        .1
        .plain_lines();
    let all = text.join("\n");
    assert!(
        all.contains("private"),
        "the private block is marked:\n{all}"
    );
    assert!(!all.contains("<private>"), "tags are not shown raw:\n{all}");
    h.key(KeyCode::Char('v'));
    assert_eq!(h.app.main, Main::Document(ViewMode::Editor));
}

#[test]
fn the_editor_highlights_markdown_off_the_drawing_thread() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("weather");
    h.screen();
    h.pump_until("the highlighter's answer", |app| {
        app.document.doc().is_some_and(|doc| {
            app.document
                .editor
                .highlights
                .as_ref()
                .is_some_and(|cache| cache.styles_for(0, &doc.buffer.lines()[0]).is_some())
        })
    });
    h.screen();
    let buffer = h.terminal.backend().buffer().clone();
    // The heading's first letter and a body letter are drawn in different colours.
    let find = |needle: &str| -> (u16, u16) {
        for y in 0..buffer.area.height {
            let row: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect();
            if let Some(at) = row.find(needle) {
                let column = row[..at].chars().count() as u16;
                return (column, y);
            }
        }
        panic!("{needle} not on screen");
    };
    let (hx, hy) = find("# Project Brief");
    let (bx, by) = find("Skyline Weather API");
    assert_ne!(buffer[(hx + 2, hy)].fg, buffer[(bx, by)].fg);
}

#[test]
fn instruction_files_show_their_import_chain_in_the_tree() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("storefront");
    let screen = h.screen();
    assert!(screen.contains("↳ @docs/agents/archit"), "{screen}");
    let claude = screen.find("CLAUDE.md").expect("CLAUDE.md row");
    let import = screen.find("↳ @docs/agents/archit").unwrap();
    assert!(claude < import, "the import sits under its file:\n{screen}");
}

#[test]
fn groups_fold_and_unfold() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("mobile");
    h.key(KeyCode::Esc);
    let group = h
        .app
        .tree
        .rows
        .iter()
        .position(|r| matches!(&r.kind, mbank::tui::panes::tree::RowKind::Folder { name, .. } if name == "decisions"))
        .expect("a decisions group");
    h.app.tree.cursor.selected = group;
    let before = h.app.tree.rows.len();
    h.key(KeyCode::Char(' '));
    assert_eq!(
        h.app.tree.rows.len(),
        before - 5,
        "five decision files fold away"
    );
    assert!(h.screen().contains("▸ decisions/ (5)"));
    h.key(KeyCode::Char(' '));
    assert_eq!(h.app.tree.rows.len(), before);
}

#[test]
fn read_only_files_are_marked_and_not_edited() {
    let demo = demo_root();
    let path = demo.path().join("weather-api/memory-bank/techContext.md");
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&path, permissions).unwrap();
    let before = std::fs::read_to_string(&path).unwrap();
    let mut h = Tui::start(demo.path());
    h.open_project("weather");
    h.open_file("techContext.md");
    assert!(h.screen().contains("[read-only]"));
    h.type_text("nope");
    assert!(!h.is_dirty());
    h.ctrl('s');
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
}

#[test]
fn themes_switch_live() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.pump_until("the scan", |app| app.projects.picker.visible_len() > 0);
    h.screen();
    let before = h.terminal.backend().buffer()[(0, 0)].bg;
    h.keys("F5");
    assert_eq!(h.app.theme.name, "light");
    h.screen();
    let after = h.terminal.backend().buffer()[(0, 0)].bg;
    assert_ne!(before, after);
    h.keys("F5");
    assert_eq!(h.app.theme.name, "high-contrast");
}

#[test]
fn switching_projects_with_unsaved_edits_asks_first() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("weather");
    h.open_file("progress.md");
    h.type_text("unsaved ");
    h.ctrl('p');
    h.type_text("billing");
    h.key(KeyCode::Enter);
    assert!(h.screen().contains("Switch project?"));
    h.key(KeyCode::Char('n'));
    assert!(h.is_dirty(), "no keeps the edits");
    assert_eq!(h.app.projects.open.as_ref().unwrap().name, "weather-api");
}

#[test]
fn deletes_and_renames_by_an_agent_refresh_the_tree() {
    let demo = demo_root();
    let mut h = Tui::options(demo.path()).watch().start();
    h.open_project("billing");
    let bank = demo.path().join("billing-roo/memory-bank");
    std::fs::rename(bank.join("progress.md"), bank.join("progress-archive.md")).unwrap();
    h.pump_until("the renamed file in the tree", |app| {
        let names: Vec<String> = app
            .tree
            .report
            .iter()
            .flat_map(|r| r.banks.iter())
            .flat_map(|b| b.files.iter())
            .map(|f| f.file.file_name().into_owned())
            .collect();
        names.contains(&"progress-archive.md".to_string())
            && !names.contains(&"progress.md".to_string())
    });
    std::fs::remove_file(bank.join("progress-archive.md")).unwrap();
    h.pump_until("the deleted file gone", |app| {
        app.tree
            .report
            .iter()
            .flat_map(|r| r.banks.iter())
            .flat_map(|b| b.files.iter())
            .all(|f| f.file.file_name() != "progress-archive.md")
    });
}

#[test]
fn the_open_file_replaced_by_temp_file_and_rename_reloads() {
    let demo = demo_root();
    let mut h = Tui::options(demo.path()).watch().start();
    h.open_project("weather");
    h.open_file("activeContext.md");
    mbank::core::demo::agent_step(demo.path(), 1, &common::test_clock()).unwrap();
    h.pump_until("the reload after the rename", |app| {
        app.document
            .doc()
            .is_some_and(|d| d.text().contains("## Next steps"))
    });
    assert!(!h.is_dirty());
}

#[test]
fn what_an_agent_would_cut_off_is_shown_under_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("big-agents");
    std::fs::create_dir_all(&project).unwrap();
    // Codex stops reading AGENTS.md at 32 KiB: 40 KB of rules lose their tail.
    let mut text = String::from("# Agent rules\n\n");
    while text.len() < 40 * 1024 {
        text.push_str("- Keep every handler small, typed and tested before merging it.\n");
    }
    std::fs::write(project.join("AGENTS.md"), text).unwrap();
    let mut h = Tui::start(dir.path());
    h.open_project("big-agents");
    let screen = h.screen();
    let row = screen
        .lines()
        .find(|l| l.contains('✂'))
        .unwrap_or_else(|| panic!("no cut-off row:\n{screen}"));
    assert!(row.contains("cut off"), "{row}");
}

#[test]
fn a_big_buffer_is_rehighlighted_after_a_pause_in_typing_not_on_every_key() {
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("big/memory-bank");
    std::fs::create_dir_all(&bank).unwrap();
    let text: String = (0..8_000).map(|i| format!("- item {i}\n")).collect();
    std::fs::write(bank.join("progress.md"), &text).unwrap();
    std::fs::write(bank.join("projectbrief.md"), "# Brief\n").unwrap();
    let mut h = Tui::start(dir.path());
    h.open_project("big");
    h.open_file("progress.md");
    h.screen();
    h.pump_until("the first highlighting", |app| {
        app.document.doc().is_some_and(|doc| {
            app.document
                .editor
                .highlights
                .as_ref()
                .is_some_and(|c| c.styles_for(0, &doc.buffer.lines()[0]).is_some())
        })
    });
    h.type_text("x");
    h.screen();
    let due = h
        .app
        .next_deadline()
        .expect("the re-highlight waits for a pause");
    assert!(
        !h.app.take_due_work(std::time::Instant::now()),
        "not yet due"
    );
    // Time is an input: the pause passes for the app without the test waiting for it.
    h.pass_time(due.saturating_duration_since(std::time::Instant::now()));
    assert!(h.app.take_due_work(due));
    h.screen();
    h.pump_until("the edited line highlighted", |app| {
        app.document.doc().is_some_and(|doc| {
            app.document
                .editor
                .highlights
                .as_ref()
                .is_some_and(|c| c.styles_for(0, &doc.buffer.lines()[0]).is_some())
        })
    });
    assert!(h.doc().buffer.lines()[0].starts_with('x'));
}

#[test]
fn the_mouse_focuses_selects_opens_and_scrolls() {
    use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("weather");
    let screen = h.screen();
    let (row, _) = screen
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("6 progress.md"))
        .expect("progress.md row");
    let click = |kind| {
        Message::Mouse(MouseEvent {
            kind,
            column: 5,
            row: row as u16,
            modifiers: KeyModifiers::NONE,
        })
    };
    h.app.update(click(MouseEventKind::Down(MouseButton::Left)));
    assert_eq!(h.app.focus, Focus::Tree);
    h.pump_until("the clicked file", |app| {
        app.document
            .doc()
            .is_some_and(|d| d.path.ends_with("progress.md"))
    });
    // A second click on the same row opens it for editing.
    h.app.update(click(MouseEventKind::Down(MouseButton::Left)));
    assert_eq!(h.app.focus, Focus::Editor);
    // The wheel over the editor scrolls it.
    let editor_x = h.terminal.backend().buffer().area.width - 10;
    h.app.update(Message::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: editor_x,
        row: 10,
        modifiers: KeyModifiers::NONE,
    }));
    assert_eq!(h.doc().top, 3);
}

#[test]
fn a_small_or_resized_terminal_still_draws_every_screen() {
    let demo = demo_root();
    let mut h = Tui::start(demo.path());
    h.open_project("mobile");
    for (width, height) in [(60, 16), (200, 60), (30, 10)] {
        h.terminal.backend_mut().resize(width, height);
        h.app.update(Message::Resize);
        let screen = h.screen();
        assert!(screen.contains("mbank"), "{width}x{height}:\n{screen}");
        h.key(KeyCode::Char('?'));
        h.screen();
        h.key(KeyCode::Esc);
        h.key(KeyCode::Esc);
        h.key(KeyCode::Char('t'));
        h.screen();
        h.key(KeyCode::Char('t'));
    }
}
