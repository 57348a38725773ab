//! A file's history in the TUI, driven with keys as a person would: saves through the
//! editor listed as versions, a version's diff against the file now and against the one
//! before it, a restore (confirmed, itself kept in the history) and a restore refused
//! over unsaved edits; a version whose text is gone shows as a message. Snapshots show
//! the overlay at 80x24 and 160x45.
//!
//! Every app these tests start records into one history (made once, in a folder under
//! cargo's target tmp dir): versions are kept per file, and each test writes only its own
//! temp copy of the demo banks.
use crate::common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use chrono::{DateTime, FixedOffset, Utc};
use common::tui::{DemoBanks, Tui};
use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use mbank::core::history::{self, History, Retention};
use mbank::tui::Message;
use mbank::tui::app::Focus;
use mbank::tui::overlays::Overlay;
use mbank::tui::overlays::history::{DisplayClock, HistoryView};
use mbank::tui::protocol::{DiffBase, DiffKey};

const ACTIVE: &str = "weather-api/memory-bank/activeContext.md";

/// The data folder of the history these tests' writes record into.
fn data_dir() -> &'static Path {
    static DATA: OnceLock<PathBuf> = OnceLock::new();
    DATA.get_or_init(|| {
        remove_old_data_dirs();
        tempfile::Builder::new()
            .prefix("tui-history-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap()
            .keep()
    })
}

/// Removes the data folders earlier runs left (kept for the whole run, they outlive it);
/// one younger than an hour may belong to a run still going.
fn remove_old_data_dirs() {
    let Ok(entries) = std::fs::read_dir(env!("CARGO_TARGET_TMPDIR")) else {
        return;
    };
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().is_ok_and(|age| age.as_secs() > 3_600));
        if old
            && entry
                .file_name()
                .to_string_lossy()
                .starts_with("tui-history-")
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The history these tests' apps record into.
fn test_history() -> &'static History {
    static HISTORY: OnceLock<History> = OnceLock::new();
    HISTORY.get_or_init(|| History::new(data_dir(), Retention::default(), common::test_clock()))
}

/// The weather project with activeContext.md open in the editor, the keyboard in it.
fn editing(demo: &DemoBanks) -> Tui {
    let mut h = Tui::demo(demo).history(test_history().clone()).start();
    h.open_project("weather");
    h.open_file("activeContext.md");
    assert_eq!(h.app.focus, Focus::Editor);
    h.idle();
    h
}

/// The history overlay on top (under a prompt, if one is open).
fn overlay(h: &Tui) -> &HistoryView {
    h.app
        .overlays
        .iter()
        .rev()
        .find_map(|o| match o {
            Overlay::History(view) => Some(view.as_ref()),
            _ => None,
        })
        .expect("the history overlay is open")
}

fn overlay_mut(h: &mut Tui) -> &mut HistoryView {
    h.app
        .overlays
        .iter_mut()
        .rev()
        .find_map(|o| match o {
            Overlay::History(view) => Some(view.as_mut()),
            _ => None,
        })
        .expect("the history overlay is open")
}

/// The writers of the listed versions, newest first.
fn writers(h: &Tui) -> Vec<(u64, String)> {
    overlay(h)
        .versions()
        .iter()
        .map(|v| (v.version.version, v.version.writer.clone()))
        .collect()
}

/// Types `text` at the end of the file and saves.
fn append_and_save(h: &mut Tui, text: &str) {
    h.keys("ctrl-end");
    h.type_text(text);
    h.keys("ctrl-s");
    assert!(!h.is_dirty(), "saved: {}", h.toasts());
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn three_saves_are_listed_diffed_against_any_version_and_the_first_restored() {
    let demo = DemoBanks::new();
    let file = demo.file(ACTIVE);
    let first = read(&file);
    let mut h = editing(&demo);
    append_and_save(&mut h, "one");
    let second = read(&file);
    append_and_save(&mut h, " two");
    let third = read(&file);
    append_and_save(&mut h, " three");
    assert!(read(&file).ends_with("one two three"));

    // The editor takes letters as text: the history opens with its F-key there.
    h.keys("f12");
    let listed = writers(&h);
    assert_eq!(
        listed,
        [(3, "tui".to_string()), (2, "tui".into()), (1, "tui".into())]
    );
    // Newest first, each with the lines the save that replaced it changed.
    let lines: Vec<_> = overlay(&h).versions().iter().map(|v| v.lines).collect();
    // The first save added a line after the file's last; the others changed that line.
    assert_eq!(lines, [Some((1, 1)), Some((1, 1)), Some((1, 0))]);
    let screen = h.screen();
    for row in ["v3", "v2", "v1", "version 3 → now", "one two three"] {
        assert!(screen.contains(row), "{row} not on screen:\n{screen}");
    }

    // A click on a version chooses it.
    let screen = h.screen();
    let row = screen.lines().position(|l| l.contains(" v2 ")).unwrap();
    let column = screen.lines().nth(row).unwrap().find(" v2 ").unwrap();
    h.app.update(Message::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: column as u16,
        row: row as u16,
        modifiers: KeyModifiers::NONE,
    }));
    h.idle();
    assert_eq!(overlay(&h).wanted().map(|key| key.version), Some(2));

    // The first version against the file now.
    h.keys("end");
    assert_eq!(
        overlay(&h).diff.as_ref().map(|(key, _)| *key),
        Some(DiffKey {
            version: 1,
            base: DiffBase::Now
        })
    );
    let screen = h.screen();
    assert!(screen.contains("version 1 → now"), "{screen}");
    // And the second against the one before it: the save that added "one".
    h.keys("up p");
    let screen = h.screen();
    assert!(screen.contains("version 1 → version 2"), "{screen}");
    let (_, compare) = overlay(&h).diff.as_ref().unwrap();
    let compare = compare.as_ref().unwrap();
    assert_eq!((compare.diff.added, compare.diff.removed), (1, 0));
    // The oldest has nothing before it, and says so.
    h.keys("down");
    let screen = h.screen();
    assert!(screen.contains("is the oldest kept"), "{screen}");
    // The rule names no figures then (not those of the comparison shown before).
    let rule = screen
        .lines()
        .find(|l| l.contains("(the oldest kept)"))
        .unwrap();
    assert!(!rule.contains('+'), "{rule}");
    h.keys("p");

    // Restore the first version: asked first, then written, and itself a version.
    h.keys("r");
    assert!(
        matches!(h.app.overlays.last(), Some(Overlay::Confirm(_))),
        "a restore asks first"
    );
    assert!(h.screen().contains("Restore version 1"));
    assert_eq!(read(&file), format!("{third} three"), "nothing written yet");
    h.keys("y");
    assert_eq!(read(&file), first, "the file is the first version again");
    assert_eq!(h.doc().text(), first, "the editor shows it");
    assert!(!h.is_dirty());
    assert!(h.toasts().contains("restored version 1"), "{}", h.toasts());
    // The tree's figures (and the gauges drawn from them) are of the restored file,
    // with the watcher off: the restore itself asks for them.
    let restored_bytes = first.len() as u64;
    let path = file.clone();
    h.pump_until("the tree's figures of the restored file", move |app| {
        app.tree
            .file_report(&path, None)
            .and_then(|f| f.stats.as_ref())
            .is_some_and(|stats| stats.bytes == restored_bytes)
    });
    assert_eq!(
        writers(&h),
        [
            (4, "restore".to_string()),
            (3, "tui".into()),
            (2, "tui".into()),
            (1, "tui".into())
        ]
    );
    // The version the restore replaced is the text the three saves made.
    let (_, replaced) = test_history().version(&file, 4).unwrap();
    assert_eq!(replaced, format!("{third} three"));
    assert_eq!(test_history().version(&file, 2).unwrap().1, second);
    // The chosen version stays chosen, now compared with the restored file: the same.
    assert!(h.screen().contains("version 1 and now are the same"));
}

#[test]
fn with_the_watcher_on_a_restore_reloads_the_editor_and_a_write_elsewhere_refreshes_the_diff() {
    let demo = DemoBanks::new();
    let file = demo.file(ACTIVE);
    let first = read(&file);
    let mut h = Tui::demo(&demo)
        .history(test_history().clone())
        .watch()
        .start();
    h.open_project("weather");
    h.open_file("activeContext.md");
    append_and_save(&mut h, "one");
    let saved = read(&file);
    // Enter on the prompt is the safe answer: the file stays as it is.
    h.keys("f12 r enter");
    assert!(matches!(h.app.overlays.last(), Some(Overlay::History(_))));
    assert_eq!(read(&file), saved);
    h.keys("r y");
    assert_eq!(read(&file), first);
    // The watcher's own report of the write comes too: still no prompt, the same text.
    h.driver
        .settle(std::time::Duration::from_millis(300))
        .unwrap();
    h.idle();
    // The status bar (the newest message) names the version that came back, not just
    // that the file changed on disk.
    let newest = h
        .app
        .toasts
        .last()
        .map(|t| t.text.clone())
        .unwrap_or_default();
    assert!(
        newest.starts_with("restored version 1 of activeContext.md"),
        "{}",
        h.toasts()
    );
    assert!(
        !h.app
            .overlays
            .iter()
            .any(|o| matches!(o, Overlay::Conflict(_) | Overlay::Confirm(_))),
        "no prompt after a restore"
    );
    assert_eq!(h.doc().text(), first);
    assert!(!h.is_dirty());

    // Another writer changes the file while the history is open: the chosen version is
    // compared with the file as it is now.
    std::fs::write(&file, format!("{first}written elsewhere\n")).unwrap();
    h.pump_until("the diff against the file written elsewhere", |app| {
        app.overlays.iter().any(|o| match o {
            Overlay::History(view) => view.diff.as_ref().is_some_and(|(_, compare)| {
                compare.as_ref().is_ok_and(|c| {
                    c.diff
                        .hunks
                        .iter()
                        .flat_map(|h| &h.lines)
                        .any(|l| l.text == "written elsewhere")
                })
            }),
            _ => false,
        })
    });
}

#[test]
fn a_restore_is_refused_while_the_editor_holds_unsaved_edits_of_the_file() {
    let demo = DemoBanks::new();
    let file = demo.file(ACTIVE);
    let mut h = editing(&demo);
    append_and_save(&mut h, "saved");
    let saved = read(&file);
    h.keys("ctrl-end");
    h.type_text(" unsaved");
    assert!(h.is_dirty());
    h.keys("f12 r");
    assert!(
        matches!(h.app.overlays.last(), Some(Overlay::History(_))),
        "no prompt over unsaved edits"
    );
    assert!(
        h.toasts().contains("not restored") && h.toasts().contains("unsaved edits"),
        "{}",
        h.toasts()
    );
    assert_eq!(read(&file), saved, "the file is untouched");
    assert!(
        h.doc().text().ends_with("saved unsaved"),
        "the edits are kept"
    );
    assert!(h.is_dirty());
}

#[test]
fn a_version_whose_text_is_gone_shows_why_and_is_not_restored() {
    let demo = DemoBanks::new();
    let file = demo.file(ACTIVE);
    let mut h = editing(&demo);
    append_and_save(&mut h, "one");
    append_and_save(&mut h, " two");
    let now = read(&file);
    // The first version's text is cut from the history folder's pack.
    let versions = test_history().list(&file).unwrap();
    let removed = remove_stored_text(&file, &versions[0]);
    assert!(removed, "the version's text was found and removed");

    h.keys("f12 end");
    let screen = h.screen();
    assert!(screen.contains("cannot compare"), "{screen}");
    h.keys("r y");
    assert!(h.toasts().contains("not restored"), "{}", h.toasts());
    assert_eq!(read(&file), now);
}

#[test]
fn a_file_with_no_history_says_so() {
    let demo = DemoBanks::new();
    let mut h = editing(&demo);
    h.keys("esc");
    assert_eq!(h.app.focus, Focus::Tree);
    h.keys("H");
    assert!(overlay(&h).versions().is_empty());
    assert!(
        h.screen()
            .contains("No earlier version of activeContext.md")
    );
    h.keys("esc");
    assert!(h.app.overlays.is_empty());
}

/// Cuts the stored text of `version` of `file` from its history's pack, and all after
/// it (texts are stored per file, so only the folder whose index names this file is
/// searched).
fn remove_stored_text(file: &Path, version: &history::Version) -> bool {
    let name = format!("texts-{}.pack", version.pack);
    let Some(at) = version.text_at else {
        return false;
    };
    let key = history::key_of(file);
    let key = serde_json::to_string(&key).unwrap();
    for folder in std::fs::read_dir(data_dir().join("history"))
        .unwrap()
        .flatten()
    {
        let index = std::fs::read_to_string(folder.path().join("index.jsonl")).unwrap_or_default();
        let pack = folder.path().join(&name);
        if index.contains(&key) && pack.is_file() {
            let bytes = std::fs::read(&pack).unwrap();
            let cut = usize::try_from(at).unwrap();
            assert!(cut < bytes.len());
            std::fs::write(&pack, &bytes[..cut]).unwrap();
            return true;
        }
    }
    false
}

const SIZES: [(u16, u16); 3] = [(60, 20), (80, 24), (160, 45)];

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).unwrap().to_utc()
}

#[test]
fn history_overlay_snapshots() {
    for (width, height) in SIZES {
        let demo = DemoBanks::new();
        let file = demo.file(ACTIVE);
        let now = read(&file);
        // Three versions by three writers, an hour, a day and a week before "now".
        let history = test_history();
        let older = now.replace(
            "Adding the GeoSphere Austria nowcast adapter",
            "Wiring the GeoSphere Austria nowcast adapter",
        );
        let oldest = older.replace("- GeoSphere licence terms unclear\n", "");
        for (text, writer, time) in [
            (&oldest, "mcp:memory_bank_update", "2026-11-18T09:30:00Z"),
            (&older, "accept", "2026-11-24T16:05:00Z"),
            (&now, "tui", "2026-11-25T13:12:00Z"),
        ] {
            history.record_at(&file, text, writer, at(time)).unwrap();
        }
        // The newest version equals the file: the file is changed once more after it.
        let current = now.replace(
            "3. Write the customer-facing",
            "3. Draft the customer-facing",
        );
        std::fs::write(&file, &current).unwrap();

        let mut h = Tui::demo(&demo)
            .history(test_history().clone())
            .size(width, height)
            .start();
        h.open_project("weather");
        h.open_file("activeContext.md");
        h.keys("f12 down");
        overlay_mut(&mut h).clock = DisplayClock {
            now: Some(at("2026-11-25T14:12:00Z")),
            utc_offset: FixedOffset::east_opt(0),
        };
        let screen: String = h
            .settled_screen()
            .lines()
            .map(str::trim_end)
            .collect::<Vec<_>>()
            .join("\n");
        insta::assert_snapshot!(format!("history_{width}x{height}"), screen);
    }
}
