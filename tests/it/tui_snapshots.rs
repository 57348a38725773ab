//! Snapshots of the main screens on the demo banks, at 60x20 (a split pane), 80x24 (the
//! classic terminal) and 160x45: the picker, the tree, the editor beside the preview, the
//! decision timeline, the findings panel, the review (unified and side by side), the
//! conflict prompt and help. Each is reached with keys, through the real loop, and taken
//! once every worker has answered. They draw the same on every machine: the demo's file
//! ages come from `assets/demo/ages.toml` relative to now, and the root draws as
//! `~/demo` (see `common::tui::DemoBanks`).
//!
//! A change to what a screen shows fails here with the difference; if it is wanted,
//! review and accept it with `cargo insta review` (or `INSTA_UPDATE=always`).
use crate::common;

use common::tui::{DemoBanks, Tui};
use mbank::tui::Message;
use mbank::tui::overlays::Overlay;

const SIZES: [(u16, u16); 3] = [(60, 20), (80, 24), (160, 45)];

/// Days each screen is also drawn on, from a copy of the demo made that day: with the
/// dates the copy moved moved back, it must draw as the demo as written does.
const LATER_DAYS: [(i32, u32, u32); 3] = [(2026, 11, 28), (2027, 6, 1), (2030, 1, 1)];

/// Noon UTC of a day, as a fixed clock.
fn noon_on((year, month, day): (i32, u32, u32)) -> mbank::core::clock::Clock {
    let at = chrono::NaiveDate::from_ymd_opt(year, month, day)
        .and_then(|date| date.and_hms_opt(12, 0, 0))
        .unwrap()
        .and_utc();
    mbank::core::clock::Clock::fixed(at.into())
}

/// The screen without trailing blanks (the snapshot files stay readable).
fn trimmed(screen: &str) -> String {
    screen
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

/// `line` with every digit turned into `#`.
fn digits_masked(line: &str) -> String {
    line.chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect()
}

/// The screen `reach` brings a harness over `demo` to, at one size.
fn screen_of(
    demo: &DemoBanks,
    (width, height): (u16, u16),
    reach: &impl Fn(&mut Tui, &DemoBanks),
) -> String {
    let mut h = Tui::demo(demo).size(width, height).start();
    reach(&mut h, demo);
    trimmed(&h.settled_screen())
}

/// Takes `name` at every size: `reach` gets a harness over a fresh demo copy and brings
/// it to the screen. The same screen is drawn from copies made on each of
/// [`LATER_DAYS`], so no screen changes with the day it is drawn on. Each size is drawn on
/// a thread of its own: a draw mostly waits for the app's workers to settle, so the
/// waits overlap; the comparisons are made here, in order.
fn snapshot(name: &str, reach: impl Fn(&mut Tui, &DemoBanks) + Sync) {
    type Drawn = ((u16, u16), String, Vec<((i32, u32, u32), String, i64)>);
    let drawn: Vec<Drawn> = std::thread::scope(|scope| {
        let reach = &reach;
        let threads: Vec<_> = SIZES
            .into_iter()
            .map(|size| {
                scope.spawn(move || {
                    let screen = screen_of(&DemoBanks::new(), size, reach);
                    let later = LATER_DAYS
                        .into_iter()
                        .map(|day| {
                            let later = DemoBanks::as_of(noon_on(day));
                            (day, screen_of(&later, size, reach), later.days_moved())
                        })
                        .collect();
                    (size, screen, later)
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|thread| thread.join().unwrap())
            .collect()
    });
    for ((width, height), screen, later) in drawn {
        insta::assert_snapshot!(format!("{name}_{width}x{height}"), screen);
        for (day, drawn, days_moved) in later {
            let moved_back = mbank::core::demo::shift_dates(&drawn, -days_moved);
            // A date cut short by an edge ("…1-15", "…5") cannot be moved back: a line
            // holding one may differ in its digits alone; every other line is the same.
            for (drawn_line, line) in moved_back.lines().zip(screen.lines()) {
                if drawn_line != line {
                    assert_eq!(
                        digits_masked(drawn_line),
                        digits_masked(line),
                        "{name} at {width}x{height} drawn on {day:?} (dates moved back)"
                    );
                }
            }
            assert_eq!(moved_back.lines().count(), screen.lines().count());
        }
    }
}

#[test]
fn picker() {
    snapshot("picker", |h, _| {
        h.pump_until("every project's figures", |app| {
            app.projects.picker.visible_len() == 6 && app.projects.picker.counted == 6
        });
    });
}

#[test]
fn tree() {
    snapshot("tree", |h, _| {
        h.open_project("weather");
        h.open_file("activeContext.md");
        h.keys("esc");
    });
}

#[test]
fn editor_and_preview() {
    snapshot("editor_preview", |h, _| {
        h.open_project("mobile");
        h.open_file("patterns.md");
        h.keys("esc v");
    });
}

#[test]
fn timeline() {
    snapshot("timeline", |h, _| {
        h.open_project("mobile");
        h.keys("esc t");
    });
}

#[test]
fn findings() {
    snapshot("findings", |h, _| {
        h.open_project("weather");
        h.keys("esc f");
    });
}

/// The weather project's review after it was marked reviewed and an agent edited two
/// files (the demo is not in git: the baseline is the "last reviewed" snapshot).
fn reach_review(h: &mut Tui, demo: &DemoBanks) {
    h.open_project("weather");
    h.keys("r c y");
    let active = demo.file("weather-api/memory-bank/activeContext.md");
    let text = std::fs::read_to_string(&active)
        .unwrap()
        .replace(
            "Adding the GeoSphere Austria nowcast adapter behind a feature flag.",
            "Blending the GeoSphere Austria nowcast into the first 6 hours.",
        )
        .replace(
            &demo.dated("- 2026-10-12: Quota counters moved to a single Redis pipeline\n"),
            &demo.dated("- 2026-10-12: Quota counters moved to a single Redis pipeline\n- Staging DB: postgres://weather:tr0ub4dor-staging@db.internal/weather\n"),
        );
    demo.write(&active, &text);
    let progress = demo.file("weather-api/memory-bank/progress.md");
    let text = std::fs::read_to_string(&progress).unwrap();
    demo.write(
        &progress,
        &format!(
            "{text}{}",
            demo.dated("- [x] GeoSphere nowcast blended for the first 6 hours — 2026-10-20\n")
        ),
    );
    h.app.update(Message::FilesChanged(vec![active, progress]));
    h.pump_until("the agent's edits in the review", |app| {
        app.review
            .pane
            .review
            .as_ref()
            .is_some_and(|r| r.files.len() == 2)
            && !app.review.pane.loading
            && !app.review.pane.busy
    });
}

#[test]
fn review_unified() {
    snapshot("review_unified", reach_review);
}

#[test]
fn review_side_by_side() {
    snapshot("review_side_by_side", |h, demo| {
        reach_review(h, demo);
        h.keys("s");
    });
}

#[test]
fn conflict() {
    snapshot("conflict", |h, demo| {
        h.open_project("weather");
        h.open_file("progress.md");
        h.type_text("Reviewed with the pilot customers. ");
        let path = demo.file("weather-api/memory-bank/progress.md");
        let text = std::fs::read_to_string(&path).unwrap();
        demo.write(
            &path,
            &format!(
                "{text}{}",
                demo.dated("- [x] Pyrenees calibration report published — 2026-11-21\n")
            ),
        );
        h.app.update(Message::FilesChanged(vec![path]));
        h.pump_until("the conflict prompt", |app| {
            matches!(app.overlays.last(), Some(Overlay::Conflict(_)))
        });
    });
}

#[test]
fn help() {
    snapshot("help", |h, _| {
        h.open_project("weather");
        h.keys("esc ?");
    });
}

#[test]
fn save_with_conflict_markers() {
    snapshot("save_with_conflict_markers", |h, _| {
        h.open_project("weather");
        h.open_file("progress.md");
        h.app.update(Message::Paste(
            "<<<<<<< mine\n- ours\n=======\n- theirs\n>>>>>>> theirs\n".into(),
        ));
        h.keys("ctrl-s");
    });
}

#[test]
fn review_zoomed() {
    snapshot("review_zoomed", |h, demo| {
        reach_review(h, demo);
        h.keys("z");
    });
}

#[test]
fn editor_viewing() {
    snapshot("editor_viewing", |h, _| {
        h.open_project("weather");
        h.keys("esc tab");
    });
}

#[test]
fn search() {
    snapshot("search", |h, _| {
        h.keys("f6 s q l i t e space o f f l i n e");
    });
}

/// An empty project (its `memory-bank/` holds no file): the tree's last row offers a bank,
/// and Enter on it asks.
#[test]
fn empty_project_offer() {
    snapshot("empty_project_offer", |h, demo| {
        crate::tui_init::open_empty_project(h, demo);
        h.keys("end enter");
        h.pump_until("the offer", |app| {
            matches!(app.overlays.last(), Some(Overlay::Confirm(_)))
        });
    });
}
