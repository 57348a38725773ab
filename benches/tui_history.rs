//! From the history key to a file's versions and the newest one's diff on screen, through
//! the real app: the key, the listing job (each version read back and its line changes
//! counted), the diff job, the messages back and one drawn frame. A 10 KB memory file
//! with 50 versions (the default retention) and with 1,000 (the hard cap). Peer in the
//! same run: the core's list and one diff alone. Target: shown within 100 ms (median)
//! for 50 versions.
//!
//!     cargo bench --bench tui_history [-- ITERATIONS]
use std::time::{Duration, Instant};

use chrono::Utc;
use crossterm::event::KeyCode;
use mbank::core::history::{self, History, Retention};
use mbank::core::review::diff_texts;
use mbank::tui::driver::{Driver, DriverOptions};
use mbank::tui::overlays::Overlay;

/// About 10 KB of active context; `revision` changes one line in twenty.
fn text(revision: usize) -> String {
    let mut out = String::from("# Active Context\n\n## Current Focus\n");
    let mut line = 0;
    while out.len() < 10_000 {
        line += 1;
        if line % 20 == revision % 20 {
            out.push_str(&format!("- revision {revision}: reworded item {line}\n"));
        } else {
            out.push_str(&format!(
                "- item {line}: the forecast adapter keeps its calibration notes here\n"
            ));
        }
    }
    out
}

fn median(values: &mut [Duration]) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn main() {
    let iterations: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(15);
    let temp = tempfile::tempdir().expect("a temp folder");
    let history = History::new(
        temp.path().join("data"),
        Retention {
            keep_versions: history::MAX_VERSIONS,
            ..Retention::default()
        },
        mbank::core::clock::Clock::system(),
    );
    for versions in [50, 1_000] {
        let root = temp.path().join(format!("root-{versions}"));
        let bank = root.join("shop").join("memory-bank");
        std::fs::create_dir_all(&bank).expect("bank");
        std::fs::write(bank.join("projectbrief.md"), "# Brief\nA shop.\n").expect("brief");
        let file = bank.join("activeContext.md");
        let start = Utc::now() - chrono::Duration::hours(versions as i64);
        for revision in 0..versions {
            let at = start + chrono::Duration::hours(revision as i64);
            history
                .record_at(&file, &text(revision), "mcp:memory_bank_update", at)
                .expect("recorded");
        }
        std::fs::write(&file, text(versions)).expect("the file now");

        let mut options = DriverOptions::new(&root, &temp.path().join("backups"));
        options.history = Some(history.clone());
        options.width = 160;
        options.height = 45;
        let mut driver = Driver::start(options);
        driver.open_project("shop").expect("the project opens");
        driver
            .open_file("activeContext.md")
            .expect("the file opens");
        driver.key(KeyCode::Esc);

        let mut shown = Vec::with_capacity(iterations);
        let mut peer = Vec::with_capacity(iterations);
        for _ in 0..iterations {
            let begin = Instant::now();
            driver.key(KeyCode::Char('H'));
            driver
                .pump_until("the versions and the newest one's diff", |app| {
                    app.overlays.iter().any(|o| match o {
                        Overlay::History(view) => {
                            view.versions().len() == versions
                                && view.diff.as_ref().is_some_and(|(_, d)| d.is_ok())
                        }
                        _ => false,
                    })
                })
                .expect("the history arrives");
            driver.draw().expect("a frame");
            shown.push(begin.elapsed());
            driver.key(KeyCode::Esc);
            driver.drain();

            let begin = Instant::now();
            let listed = history.list(&file).expect("listed");
            let newest = listed.last().expect("a version").version;
            let (_, old) = history.version(&file, newest).expect("its text");
            let now = std::fs::read_to_string(&file).expect("the file");
            std::hint::black_box(diff_texts(&old, &now));
            peer.push(begin.elapsed());
        }
        let shown_median = median(&mut shown);
        let peer_median = median(&mut peer);
        println!(
            "history of a 10 KB file with {versions} versions, {iterations} runs: key to frame median {:.1} ms (max {:.1} ms); core list + one diff alone median {:.2} ms (target: shown within 100 ms at 50 versions)",
            shown_median.as_secs_f64() * 1e3,
            shown.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
            peer_median.as_secs_f64() * 1e3,
        );
    }
}
