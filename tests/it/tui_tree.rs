//! The file tree on a nested bank: folders named by their paths, archives and backups
//! folded, the `/` filter (typed keys never reach the global ones), folding with keys
//! and the mouse, and the selection kept across refreshes. The bank is written here, the
//! same on every machine (fresh files, no git), and drawn as `~/banks`.
use crate::common;

use common::tui::Tui;
use mbank::tui::Message;
use mbank::tui::app::{Focus, Main};
use mbank::tui::panes::tree::RowKind;

/// A Cline bank with sub-folders: notes in two levels, an archive, a backup, a `.bak`
/// copy and a chain of single folders.
struct NestedBank {
    temp: tempfile::TempDir,
}

impl NestedBank {
    fn new() -> NestedBank {
        let temp = tempfile::tempdir().unwrap();
        let bank = temp.path().join("banks/atlas/memory-bank");
        let files = [
            (
                "projectBrief.md",
                "# Project Brief\n\nAtlas maps the fleet.\n",
            ),
            (
                "productContext.md",
                "# Product Context\n\nWhy Atlas exists.\n",
            ),
            (
                "activeContext.md",
                "# Active Context\n\nWorking on the importer.\n",
            ),
            ("progress.md", "# Progress\n\n- [x] importer\n"),
            ("notes/index.md", "# Notes\n\nWhere notes live.\n"),
            (
                "notes/design/index.md",
                "# Design notes\n\nThe importer design.\n",
            ),
            (
                "notes/design/queue.md",
                "# Queue\n\nOne queue per region.\n",
            ),
            (
                "notes/research/index.md",
                "# Research\n\nVendors compared.\n",
            ),
            (
                "guides/ops/runbook/index.md",
                "# Runbook\n\nRestart the importer.\n",
            ),
            ("archive/2024/progress.md", "# Progress 2024\n\nOld.\n"),
            ("archive/2024/activeContext.md", "# Active 2024\n\nOld.\n"),
            ("backup-2025-01-01/projectBrief.md", "# Old brief\n"),
            ("memory.bak/progress.md", "# Older progress\n"),
        ];
        for (rel, text) in files {
            let path = bank.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        NestedBank { temp }
    }

    fn root(&self) -> std::path::PathBuf {
        self.temp.path().join("banks")
    }

    fn bank(&self) -> std::path::PathBuf {
        self.root().join("atlas/memory-bank")
    }

    fn start(&self, width: u16, height: u16) -> Tui {
        let mut h = Tui::options(&self.root())
            .home(self.temp.path())
            .size(width, height)
            .start();
        h.open_project("atlas");
        h.keys("esc");
        h
    }
}

/// The tree's rows as text: indent, then what the row names.
fn rows(h: &Tui) -> Vec<String> {
    let tree = &h.app.tree;
    tree.rows
        .iter()
        .map(|row| {
            let what = match &row.kind {
                RowKind::Bank { .. } => "bank".to_string(),
                RowKind::Folder {
                    name,
                    files,
                    folded,
                    ..
                } => format!("{} {name}/ ({files})", if *folded { "▸" } else { "▾" }),
                RowKind::File { bank, file } => tree
                    .file(*bank, *file)
                    .unwrap()
                    .file
                    .display
                    .trim_start_matches("memory-bank/")
                    .to_string(),
                other => format!("{other:?}"),
            };
            format!("{}{what}", "  ".repeat(row.indent))
        })
        .collect()
}

/// The path (under the bank) of the selected file.
fn selected(h: &Tui) -> Option<String> {
    let (path, _) = h.app.tree.selected_file()?;
    let bank = h.app.tree.report.as_ref()?.banks[0].root.clone();
    Some(path.strip_prefix(bank).ok()?.to_string_lossy().into_owned())
}

/// Moves the selection to the row naming `what` (as `rows` writes it) with the keys:
/// down from where it is, else down from the top.
fn go_to(h: &mut Tui, what: &str) {
    for from_the_top in [false, true] {
        if from_the_top {
            h.keys("home");
        }
        for _ in 0..60 {
            let current = rows(h)[h.app.tree.cursor.selected].trim().to_string();
            if current == what {
                return;
            }
            h.keys("down");
        }
    }
    panic!("no row {what:?} in {:#?}", rows(h));
}

fn trimmed(screen: &str) -> String {
    screen
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn sub_folders_are_a_tree_with_paths_and_archives_start_folded() {
    let bank = NestedBank::new();
    let h = bank.start(140, 36);
    assert_eq!(
        rows(&h),
        [
            "bank",
            "  projectBrief.md",
            "  productContext.md",
            "  activeContext.md",
            "  progress.md",
            // Cline reads every memory file at start, sub-folders too; the archive and
            // backups never, so they come last.
            "  ▾ guides/ops/runbook/ (1)",
            "    guides/ops/runbook/index.md",
            "  ▾ notes/ (4)",
            "    notes/index.md",
            "    ▾ design/ (2)",
            "      notes/design/index.md",
            "      notes/design/queue.md",
            "    ▾ research/ (1)",
            "      notes/research/index.md",
            "  ▸ archive/2024/ (2)",
            "  ▸ backup-2025-01-01/ (1)",
            "  ▸ memory.bak/ (1)",
        ]
    );
}

#[test]
fn nested_bank_snapshots() {
    for (width, height) in [(60u16, 20u16), (80, 24), (160, 45)] {
        let bank = NestedBank::new();
        let mut h = bank.start(width, height);
        go_to(&mut h, "notes/design/queue.md");
        let screen = trimmed(&h.settled_screen());
        insta::assert_snapshot!(format!("tree_nested_{width}x{height}"), screen);
    }
}

#[test]
fn filtered_tree_snapshot() {
    let bank = NestedBank::new();
    let mut h = bank.start(80, 24);
    h.keys("/ i n d e x");
    let screen = trimmed(&h.settled_screen());
    insta::assert_snapshot!("tree_nested_filtered_80x24", screen);
}

#[test]
fn folders_fold_and_unfold_with_keys_keeping_the_selection() {
    let bank = NestedBank::new();
    let mut h = bank.start(140, 36);
    go_to(&mut h, "notes/design/queue.md");
    // Left goes up to the folder, left again folds it, right unfolds it and goes in.
    h.keys("left");
    assert_eq!(rows(&h)[h.app.tree.cursor.selected].trim(), "▾ design/ (2)");
    h.keys("left");
    assert_eq!(rows(&h)[h.app.tree.cursor.selected].trim(), "▸ design/ (2)");
    assert!(!rows(&h).iter().any(|r| r.contains("queue.md")));
    h.keys("right");
    assert_eq!(rows(&h)[h.app.tree.cursor.selected].trim(), "▾ design/ (2)");
    h.keys("right");
    assert_eq!(selected(&h).as_deref(), Some("notes/design/index.md"));
    // Space on a file folds the folder it is in and selects it; Enter unfolds it.
    h.keys("space");
    assert_eq!(rows(&h)[h.app.tree.cursor.selected].trim(), "▸ design/ (2)");
    h.keys("enter");
    assert_eq!(rows(&h)[h.app.tree.cursor.selected].trim(), "▾ design/ (2)");
    assert_eq!(
        h.app.focus,
        Focus::Tree,
        "enter on a folder keeps the keyboard"
    );
    // Folding a folder above the selection keeps the selection on its file.
    h.keys("down down");
    assert_eq!(selected(&h).as_deref(), Some("notes/design/queue.md"));
    h.app.tree.cursor.selected = rows(&h)
        .iter()
        .position(|r| r.trim() == "▾ guides/ops/runbook/ (1)")
        .unwrap();
    let before = h.app.tree.rows.len();
    h.keys("enter");
    assert_eq!(h.app.tree.rows.len(), before - 1);
    assert_eq!(
        rows(&h)[h.app.tree.cursor.selected].trim(),
        "▸ guides/ops/runbook/ (1)"
    );
    // Right on a file opens it.
    go_to(&mut h, "notes/research/index.md");
    h.keys("right");
    assert_eq!(h.app.focus, Focus::Editor);
}

#[test]
fn vim_keys_h_and_l_fold_and_unfold() {
    let bank = NestedBank::new();
    let mut h = Tui::options(&bank.root())
        .home(bank.temp.path())
        .vim()
        .start();
    h.open_project("atlas");
    h.keys("esc");
    go_to(&mut h, "▸ archive/2024/ (2)");
    h.keys("l");
    assert_eq!(
        rows(&h)[h.app.tree.cursor.selected].trim(),
        "▾ archive/2024/ (2)"
    );
    h.keys("l");
    assert_eq!(
        selected(&h).as_deref(),
        Some("archive/2024/activeContext.md")
    );
    h.keys("h h");
    assert_eq!(
        rows(&h)[h.app.tree.cursor.selected].trim(),
        "▸ archive/2024/ (2)"
    );
}

#[test]
fn typing_q_t_and_question_mark_into_the_filter_fires_no_global_key() {
    let bank = NestedBank::new();
    let mut h = bank.start(140, 36);
    h.keys("/ q");
    assert!(!h.app.quit, "q quit the app while typing the filter");
    // The status bar names the filter's keys only: q and ? go into the filter.
    let screen = h.screen();
    let status = screen.lines().last().unwrap_or_default();
    assert!(
        status.contains("enter keep filter") && status.contains("esc clear filter"),
        "{status}"
    );
    assert!(
        !status.contains("quit") && !status.contains("help"),
        "{status}"
    );
    h.keys("t ? p f v r T e");
    assert!(!h.app.quit);
    assert!(h.app.overlays.is_empty(), "? opened help");
    assert!(!h.app.main.is_timeline(), "t opened the timeline");
    assert!(!h.app.main.is_review(), "r opened the review");
    assert!(!h.app.show_findings, "f opened the findings");
    assert_eq!(h.app.screen, mbank::tui::app::Screen::Project, "p left");
    assert_eq!(h.app.tree.filter, "qt?pfvrTe");
    assert_eq!(h.app.tree.matching, 0);
    // Backspace edits it; esc clears it and gives the keys back.
    h.keys("backspace");
    assert_eq!(h.app.tree.filter, "qt?pfvrT");
    h.keys("esc");
    assert_eq!(h.app.tree.filter, "");
    assert!(!h.app.tree.typing);
    // A key that is not the filter's (tab) keeps it and goes on; esc in the tree clears it.
    h.keys("/ a tab");
    assert!(!h.app.tree.typing);
    assert_eq!(h.app.focus, Focus::Editor);
    assert_eq!(h.app.tree.filter, "a");
    h.keys("backtab esc");
    assert_eq!(h.app.focus, Focus::Tree);
    assert_eq!(h.app.tree.filter, "");
    h.keys("t");
    assert!(h.app.main.is_timeline(), "t works again after the filter");
}

#[test]
fn the_filter_shows_matching_files_in_their_folders_enter_keeps_it_esc_clears_it() {
    let bank = NestedBank::new();
    let mut h = bank.start(140, 36);
    // The filter opens folded folders and lands on the first match, showing it.
    h.keys("/ 2 0 2 4");
    assert_eq!(
        rows(&h),
        [
            "bank",
            "  ▾ archive/2024/ (2)",
            "    archive/2024/activeContext.md",
            "    archive/2024/progress.md",
        ]
    );
    assert_eq!(
        selected(&h).as_deref(),
        Some("archive/2024/activeContext.md")
    );
    h.pump_until("the matching file shown", |app| {
        app.document
            .path()
            .is_some_and(|p| p.ends_with("archive/2024/activeContext.md"))
    });
    assert!(h.screen().contains("/ 2024"), "the filter line");
    // Enter keeps the filter and gives the keys back to the tree.
    h.keys("enter down");
    assert!(!h.app.tree.typing);
    assert_eq!(h.app.tree.filter, "2024");
    assert_eq!(selected(&h).as_deref(), Some("archive/2024/progress.md"));
    assert_eq!(h.app.focus, Focus::Tree);
    // Esc clears it; the selection stays on its file, its folder now open.
    h.keys("esc");
    assert_eq!(h.app.tree.filter, "");
    assert_eq!(selected(&h).as_deref(), Some("archive/2024/progress.md"));
    assert!(rows(&h).contains(&"  ▸ backup-2025-01-01/ (1)".to_string()));
    assert!(rows(&h).iter().any(|r| r.contains("notes/design/queue.md")));
    // The filter is on the path: a folder's name finds its files.
    h.keys("/ d e s i g n enter");
    assert_eq!(
        rows(&h)[1..],
        [
            "  ▾ notes/ (2)",
            "    ▾ design/ (2)",
            "      notes/design/index.md",
            "      notes/design/queue.md",
        ]
    );
    // Enter now opens the file.
    h.keys("enter");
    assert_eq!(h.app.focus, Focus::Editor);
    assert!(matches!(h.app.main, Main::Document(_)));
}

#[test]
fn a_refresh_keeps_the_selection_and_the_open_folders() {
    let bank = NestedBank::new();
    let mut h = Tui::options(&bank.root())
        .home(bank.temp.path())
        .watch()
        .start();
    h.open_project("atlas");
    h.keys("esc");
    go_to(&mut h, "▸ archive/2024/ (2)");
    h.keys("right right");
    assert_eq!(
        selected(&h).as_deref(),
        Some("archive/2024/activeContext.md")
    );
    let index = h.app.tree.cursor.selected;
    // An agent adds a file at the top of the bank: every row below moves down one.
    std::fs::write(bank.bank().join("techContext.md"), "# Tech\n\nRust.\n").unwrap();
    h.pump_until("the new file in the tree", |app| {
        app.tree.rows.iter().any(|row| match &row.kind {
            RowKind::File { bank, file } => app
                .tree
                .file(*bank, *file)
                .is_some_and(|f| f.file.file_name() == "techContext.md"),
            _ => false,
        })
    });
    assert_eq!(
        selected(&h).as_deref(),
        Some("archive/2024/activeContext.md")
    );
    assert_eq!(h.app.tree.cursor.selected, index + 1);
    assert!(rows(&h).contains(&"  ▾ archive/2024/ (2)".to_string()));
    // A selected folder stays selected too, and a removed file leaves the selection near.
    go_to(&mut h, "▾ notes/ (4)");
    std::fs::remove_file(bank.bank().join("productContext.md")).unwrap();
    h.pump_until("the removed file gone", |app| {
        app.tree
            .report
            .iter()
            .flat_map(|r| r.banks[0].files.iter())
            .all(|f| f.file.file_name() != "productContext.md")
    });
    assert_eq!(rows(&h)[h.app.tree.cursor.selected].trim(), "▾ notes/ (4)");
}

#[test]
fn a_click_on_a_folder_folds_and_unfolds_it() {
    use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let bank = NestedBank::new();
    let mut h = bank.start(140, 36);
    let screen = h.screen();
    let row = screen
        .lines()
        .position(|l| l.contains("▸ archive/2024/ (2)"))
        .expect("the archive row");
    let click = || {
        Message::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: 8,
            row: row as u16,
            modifiers: KeyModifiers::NONE,
        })
    };
    h.app.update(click());
    assert!(h.screen().contains("▾ archive/2024/ (2)"));
    assert!(
        rows(&h)
            .iter()
            .any(|r| r.contains("archive/2024/progress.md"))
    );
    h.app.update(click());
    assert!(h.screen().contains("▸ archive/2024/ (2)"));
    assert_eq!(h.app.focus, Focus::Tree);
}

#[test]
fn folding_near_the_end_never_leaves_the_tree_scrolled_past_its_rows() {
    let bank = NestedBank::new();
    let mut h = bank.start(80, 12);
    // Every folder open, then to the last row and fold its way up.
    for _ in 0..40 {
        let folded = rows(&h)
            .iter()
            .position(|r| r.trim_start().starts_with('▸'));
        let Some(index) = folded else { break };
        while h.app.tree.cursor.selected != index {
            h.keys(if h.app.tree.cursor.selected < index {
                "down"
            } else {
                "up"
            });
        }
        h.keys("space");
    }
    h.keys("end");
    let before = h.app.tree.rows.len();
    for _ in 0..4 {
        h.keys("left");
    }
    let after = h.app.tree.rows.len();
    assert!(after < before, "a folder folded: {before} -> {after}");
    let page = h.app.tree.cursor.page;
    let offset = h.app.tree.cursor.offset;
    assert!(
        offset + page <= after.max(page),
        "scrolled past the end: offset {offset}, page {page}, rows {after}"
    );
}
