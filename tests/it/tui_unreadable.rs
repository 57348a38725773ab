//! Memory files that cannot be read (binary, invalid UTF-8) in the TUI: their bank's
//! row shows what was counted with a `+` (never `counting…` forever), the picker shows
//! the `+` and the over-budget colour as `mbank list` does, and each error is listed once.
use crate::common;

use std::path::Path;

use common::tui::Tui;
use mbank::tui::theme::Theme;

/// A Cline bank with one file over its budget and the bank's own (whatever the files that
/// cannot be counted hold), one binary file and one that is not UTF-8.
fn write_bank(root: &Path) {
    let bank = root.join("proj/memory-bank");
    std::fs::create_dir_all(&bank).unwrap();
    for name in [
        "projectbrief",
        "productContext",
        "systemPatterns",
        "decisionLog",
    ] {
        std::fs::write(
            bank.join(format!("{name}.md")),
            format!("# {name}\n\ntext\n"),
        )
        .unwrap();
    }
    let long = format!("# Tech\n\n{}\n", "the quick brown fox jumps ".repeat(1400));
    std::fs::write(bank.join("techContext.md"), long).unwrap();
    std::fs::write(bank.join("progress.md"), b"# Progress\n\x00\x01binary").unwrap();
    std::fs::write(
        bank.join("activeContext.md"),
        b"# Active \xff\xfe context\n",
    )
    .unwrap();
}

#[test]
fn unreadable_files_leave_a_plus_the_budget_colour_and_one_error_each() {
    let root = tempfile::tempdir().unwrap();
    write_bank(root.path());
    let mut h = Tui::options(root.path()).size(160, 45).start();
    h.pump_until("the figures", |app| app.projects.picker.counted == 1);
    h.settled_screen();
    let over = Theme::default().over;
    let buffer = h.draw().unwrap().clone();
    let screen = mbank::tui::driver::buffer_text(&buffer);
    let (y, row) = screen
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("proj ") && l.contains("cline"))
        .unwrap_or_else(|| panic!("no row:\n{screen}"));
    let tokens = row
        .split_whitespace()
        .find(|w| w.ends_with("+/5.0k"))
        .unwrap_or_else(|| panic!("no figure with + against the bank's budget in {row:?}"));
    assert!(!row.contains("counting"), "{row}");
    let list = common::Sandbox::new()
        .run(&["--root", root.path().to_str().unwrap(), "list", "--json"])
        .json();
    assert_eq!(list["projects"][0]["budget"], "over", "{list}");
    assert_eq!(list["projects"][0]["complete"], false, "{list}");
    // The figure is drawn in the over-budget colour, as `mbank list` says "over".
    let x = row.chars().count() - row[row.find(tokens).unwrap()..].chars().count();
    assert_eq!(buffer[(x as u16, y as u16)].fg, over, "{row}");

    h.keys("enter");
    h.pump_until("the report", |app| app.tree.report.is_some());
    let screen = h.settled_screen();
    let bank_row = screen
        .lines()
        .find(|l| l.contains("Cline memory bank"))
        .unwrap_or_default();
    assert!(!bank_row.contains("counting"), "{screen}");
    assert!(bank_row.contains('+'), "{bank_row}");

    // Each unreadable file is one finding, in the panel as in the report.
    let findings = &h.app.tree.report.as_ref().unwrap().findings;
    for name in ["progress.md", "activeContext.md"] {
        let about: Vec<_> = findings
            .iter()
            .filter(|f| f.file.ends_with(name) && f.code.id().starts_with("unreadable"))
            .collect();
        assert_eq!(about.len(), 1, "{name}: {findings:#?}");
    }
    h.keys("f");
    let screen = h.settled_screen();
    for name in ["progress.md", "activeContext.md"] {
        let listed = screen
            .lines()
            .filter(|l| l.contains(&format!("memory-bank/{name}")) && l.contains("cannot"))
            .count();
        assert_eq!(listed, 1, "{name}\n{screen}");
    }
}
