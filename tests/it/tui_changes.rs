//! The Changes view over every project, driven through the real loop: the app records
//! what changed (its journal worker holds the recorder lock), marks it all reviewed, and
//! then an agent's direct edits and a deletion show with their hunks; a hunk is reverted,
//! then the whole file, and the deleted file restored, each through the one write
//! pipeline and recorded. Also: the app leaves recording to an `mbank watch` that holds
//! the lock, and says so.
use std::path::{Path, PathBuf};

use crate::common;

use common::tui::{DemoBanks, Tui};
use mbank::core::history::{History, Retention};
use mbank::core::journal::lock;
use mbank::core::review::ReviewOptions;
use mbank::tui::Message;
use mbank::tui::app::Screen;
use mbank::tui::message::Recording;

const SIZES: [(u16, u16); 3] = [(60, 20), (80, 24), (160, 45)];

const FOCUS: &str = "Adding the GeoSphere Austria nowcast adapter behind a feature flag.";
const LAST_STEP: &str = "3. Write the customer-facing changelog for v0.9\n";

/// The history's clock: the demo's day, running on (a version recorded after the app
/// started is later than the start, as the review baseline needs).
fn history_clock(demo: &DemoBanks) -> mbank::core::clock::Clock {
    mbank::core::clock::Clock::starting_at(demo.clock().now())
}

/// A recording harness over `demo`, its history and data folder in `data`.
fn recording(demo: &DemoBanks, data: &Path, (width, height): (u16, u16)) -> Tui {
    let history = History::new(data, Retention::default(), history_clock(demo));
    let mut h = Tui::demo(demo)
        .size(width, height)
        .history(history)
        .review(ReviewOptions {
            data_dir: Some(data.to_path_buf()),
            ..ReviewOptions::default()
        })
        .record()
        .start();
    h.pump_until("the app to record", |app| app.recording == Recording::On);
    h
}

/// Opens the Changes view (nothing changed since the app started), then edits the weather project's
/// active context in two places and deletes its progress as an agent would, directly.
fn reach_changes(h: &mut Tui, demo: &DemoBanks) -> (PathBuf, String, PathBuf, String) {
    h.pump_until("the scan", |app| app.projects.picker.visible_len() > 0);
    h.keys("f10");
    assert_eq!(h.app.screen, Screen::Changes);
    h.pump_until("nothing changed yet", |app| {
        app.changes
            .survey
            .as_ref()
            .is_some_and(|s| s.changes.is_empty())
    });
    let active = demo.file("weather-api/memory-bank/activeContext.md");
    let original = std::fs::read_to_string(&active).unwrap();
    let edited = original
        .replace(FOCUS, "Blending the GeoSphere Austria nowcast into the first 6 hours.")
        .replace(
            LAST_STEP,
            &format!(
                "{LAST_STEP}4. Staging DB: postgres://weather:tr0ub4dor-staging@db.internal/weather\n"
            ),
        );
    assert_ne!(edited, original);
    demo.write(&active, &edited);
    let progress = demo.file("weather-api/memory-bank/progress.md");
    let progress_text = std::fs::read_to_string(&progress).unwrap();
    std::fs::remove_file(&progress).unwrap();
    h.app.update(Message::FilesChanged(vec![
        active.clone(),
        progress.clone(),
    ]));
    h.pump_until("the agent's edit and deletion listed", |app| {
        app.changes
            .survey
            .as_ref()
            .is_some_and(|s| s.changes.len() == 2)
            && !app.changes.loading
    });
    (active, original, progress, progress_text)
}

#[test]
fn changes_view() {
    for size in SIZES {
        let (width, height) = size;
        let demo = DemoBanks::new();
        let data = tempfile::tempdir().unwrap();
        let mut h = recording(&demo, data.path(), size);
        reach_changes(&mut h, &demo);
        let screen: String = h
            .settled_screen()
            .lines()
            .map(str::trim_end)
            .collect::<Vec<_>>()
            .join("\n");
        insta::assert_snapshot!(format!("changes_{width}x{height}"), screen);
    }
}

#[test]
fn a_hunk_and_a_file_are_reverted_and_a_deleted_file_restored_each_recorded() {
    let demo = DemoBanks::new();
    let data = tempfile::tempdir().unwrap();
    let mut h = recording(&demo, data.path(), (140, 36));
    let (active, original, progress, progress_text) = reach_changes(&mut h, &demo);
    let history = History::new(data.path(), Retention::default(), history_clock(&demo));
    let selected = h.app.changes.selected().unwrap().path.clone();
    assert_eq!(selected, std::fs::canonicalize(&active).unwrap());
    assert_eq!(h.app.changes.selected().unwrap().diff.hunks.len(), 2);

    // The first hunk only: the focus comes back, the added step stays.
    h.keys("x");
    h.pump_until("the revert listed", |app| {
        app.changes
            .selected()
            .is_some_and(|c| c.diff.hunks.len() == 1)
    });
    let now = std::fs::read_to_string(&active).unwrap();
    assert!(
        now.contains(FOCUS) && now.contains("4. Staging DB"),
        "{now}"
    );
    let versions = history.list(&active).unwrap();
    let newest = versions.last().unwrap();
    assert_eq!(newest.writer, "revert", "{versions:?}");
    assert_eq!(history.version(&active, newest.version).unwrap().1, now);

    // The whole file, asked first: enter keeps it, y takes it back to what was marked
    // reviewed.
    h.keys("ctrl-x enter");
    assert!(h.app.overlays.is_empty());
    assert_eq!(std::fs::read_to_string(&active).unwrap(), now);
    h.keys("ctrl-x");
    h.keys("y");
    h.pump_until("the file gone from the list", |app| {
        app.changes
            .survey
            .as_ref()
            .is_some_and(|s| s.changes.len() == 1)
    });
    assert_eq!(std::fs::read_to_string(&active).unwrap(), original);

    // The deleted file, at once: nothing is lost by bringing it back.
    assert!(h.app.changes.selected().unwrap().current_text.is_none());
    h.keys("ctrl-x");
    h.pump_until("nothing left to review", |app| {
        app.changes
            .survey
            .as_ref()
            .is_some_and(|s| s.changes.is_empty())
    });
    assert_eq!(std::fs::read_to_string(&progress).unwrap(), progress_text);
    let versions = history.list(&progress).unwrap();
    assert_eq!(versions.last().unwrap().writer, "restore", "{versions:?}");
    assert!(h.toasts().contains("restored"), "{}", h.toasts());
}

#[test]
fn while_mbank_watch_holds_the_lock_the_app_leaves_recording_to_it_and_says_so() {
    for (holder, said) in [
        (lock::Holder::Watch, "mbank watch is recording"),
        (lock::Holder::App, "another mbank window is recording"),
    ] {
        leaves_recording_to(holder, said);
    }
}

fn leaves_recording_to(holder: lock::Holder, said: &str) {
    let demo = DemoBanks::new();
    let data = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(data.path()).unwrap();
    let watch = lock::try_take(data.path(), holder).unwrap().unwrap();
    let history = History::new(data.path(), Retention::default(), history_clock(&demo));
    let mut h = Tui::demo(&demo)
        .history(history)
        .review(ReviewOptions {
            data_dir: Some(data.path().to_path_buf()),
            ..ReviewOptions::default()
        })
        .record()
        .start();
    h.pump_until("the app to leave recording to the watch", |app| {
        app.recording == Recording::ByAnother(Some(holder))
    });
    h.pump_until("the scan", |app| app.projects.picker.visible_len() > 0);
    let screen = h.screen();
    let status = screen.lines().last().unwrap();
    assert!(status.contains(said), "{status}");
    drop(watch);
}

#[test]
fn marked_reviewed_the_changes_leave_the_list_until_the_file_changes_again() {
    let demo = DemoBanks::new();
    let data = tempfile::tempdir().unwrap();
    let mut h = recording(&demo, data.path(), (140, 36));
    let (active, _, _, _) = reach_changes(&mut h, &demo);
    h.keys("m y");
    h.pump_until("nothing left to review", |app| {
        app.changes
            .survey
            .as_ref()
            .is_some_and(|s| s.changes.is_empty())
    });
    assert!(h.toasts().contains("marked reviewed"), "{}", h.toasts());
    let text = std::fs::read_to_string(&active).unwrap();
    demo.write(&active, &format!("{text}- one more line\n"));
    h.app.update(Message::FilesChanged(vec![active.clone()]));
    h.pump_until("the new edit listed", |app| {
        app.changes
            .survey
            .as_ref()
            .is_some_and(|s| s.changes.len() == 1)
    });
    let change = h.app.changes.selected().unwrap();
    assert_eq!((change.added, change.removed), (1, 0));
    assert_eq!(change.baseline_text.as_deref(), Some(text.as_str()));
}
