//! Regenerates `screenshots/` from the bundled demo banks: the real UI drawn on a test
//! backend, colours included, saved as SVG.
//!
//!     cargo run --example screenshots [OUT_DIR]
use std::path::{Path, PathBuf};

use color_eyre::eyre::{Result, WrapErr, eyre};
use crossterm::event::KeyCode;
use mbank::core::demo;
use mbank::tui::Message;
use mbank::tui::driver::{Driver, DriverOptions};
use mbank::tui::overlays::Overlay;
use mbank::tui::svg::{SvgOptions, buffer_to_svg_with};
use mbank::tui::theme::Theme;

const WIDTH: u16 = 150;
const HEIGHT: u16 = 40;

/// A driver over a fresh demo copy at a fixed path, so the pictures show a stable root.
fn driver(root: &Path, backups: &Path) -> Driver {
    let mut options = DriverOptions::new(root, backups);
    // Review snapshots of the demo stay in the temp folder, not the user's data folder.
    options.review.data_dir = Some(backups.join("data"));
    options.width = WIDTH;
    options.height = HEIGHT;
    options.demo_path = Some(root.to_path_buf());
    options.theme = Theme::load("dark", None).unwrap_or_default();
    Driver::start(options)
}

fn save(driver: &mut Driver, out: &Path, name: &str, title: &str) -> Result<()> {
    // Let every worker answer (figures, highlighting, preview) before the picture.
    for _ in 0..5 {
        driver.draw().map_err(|e| eyre!("{e}"))?;
        std::thread::sleep(std::time::Duration::from_millis(150));
        driver.drain();
    }
    driver.app.toasts.clear();
    let theme = driver.app.theme.clone();
    let buffer = driver.draw().map_err(|e| eyre!("{e}"))?.clone();
    let svg = buffer_to_svg_with(&buffer, title, &SvgOptions::from_theme(&theme));
    let path = out.join(format!("{name}.svg"));
    std::fs::write(&path, svg).wrap_err_with(|| format!("cannot write {}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}

fn main() -> Result<()> {
    color_eyre::install()?;
    let out = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("screenshots"));
    std::fs::create_dir_all(&out)?;
    let root = std::env::temp_dir().join("mbank-demo");
    if root.exists() {
        std::fs::remove_dir_all(&root)?;
    }
    // Dated as of the day the demo was written, the clock the driver judges time by: the
    // screenshots come out the same on every day.
    demo::copy_to(&root, &demo::clock_of_writing()?)?;
    let backups = tempfile::tempdir()?;
    let wait = |d: &mut Driver, what: &str, f: &dyn Fn(&mbank::tui::App) -> bool| {
        d.pump_until(what, f).map_err(|e| eyre!("{e}"))
    };

    let mut d = driver(&root, backups.path());
    wait(&mut d, "every project's figures", &|app| {
        app.projects.picker.visible_len() > 0
            && app.projects.picker.counted == app.projects.picker.visible_len()
    })?;
    save(&mut d, &out, "picker", "mbank — project picker")?;

    d.open_project("weather").map_err(|e| eyre!("{e}"))?;
    d.open_file("activeContext.md").map_err(|e| eyre!("{e}"))?;
    d.key(KeyCode::Esc);
    save(
        &mut d,
        &out,
        "tree",
        "mbank — layered tree with token and staleness gauges",
    )?;

    d.key(KeyCode::Char('f'));
    save(&mut d, &out, "findings", "mbank — findings panel")?;
    d.key(KeyCode::Esc);

    d.key(KeyCode::Char('?'));
    save(
        &mut d,
        &out,
        "help",
        "mbank — help, generated from the keymap",
    )?;
    d.key(KeyCode::Esc);

    let mut d = driver(&root, backups.path());
    d.open_project("mobile").map_err(|e| eyre!("{e}"))?;
    d.open_file("patterns.md").map_err(|e| eyre!("{e}"))?;
    d.key(KeyCode::Esc);
    d.key(KeyCode::Char('v'));
    save(
        &mut d,
        &out,
        "editor-preview",
        "mbank — editor and preview side by side",
    )?;
    d.key(KeyCode::Char('v'));
    d.key(KeyCode::Char('v'));
    d.key(KeyCode::Char('t'));
    save(&mut d, &out, "timeline", "mbank — decision timeline")?;

    let mut d = driver(&root, backups.path());
    d.open_project("weather").map_err(|e| eyre!("{e}"))?;
    d.open_file("progress.md").map_err(|e| eyre!("{e}"))?;
    d.type_text("Reviewed with the pilot customers. ");
    let path = root.join("weather-api/memory-bank/progress.md");
    let text = std::fs::read_to_string(&path)?;
    std::fs::write(
        &path,
        format!("{text}- [x] Pyrenees calibration report published — 2026-11-21\n"),
    )?;
    d.app.update(Message::FilesChanged(vec![path]));
    wait(&mut d, "the conflict prompt", &|app| {
        matches!(app.overlays.last(), Some(Overlay::Conflict(_)))
    })?;
    save(
        &mut d,
        &out,
        "conflict",
        "mbank — an agent wrote while you were editing",
    )?;

    // Review: the demo is not in git, so the baseline is the "last reviewed" snapshot.
    // Mark it reviewed, then let an "agent" edit two files.
    let mut d = driver(&root, backups.path());
    d.open_project("weather").map_err(|e| eyre!("{e}"))?;
    d.key(KeyCode::Char('r'));
    let settled = |app: &mbank::tui::App| {
        app.review.pane.review.is_some() && !app.review.pane.loading && !app.review.pane.busy
    };
    wait(&mut d, "the review", &settled)?;
    d.key(KeyCode::Char('c'));
    d.key(KeyCode::Char('y'));
    wait(&mut d, "mark reviewed", &|app| {
        settled(app)
            && app
                .review
                .pane
                .review
                .as_ref()
                .is_some_and(|r| r.files.is_empty())
    })?;
    let bank = root.join("weather-api/memory-bank");
    let active = bank.join("activeContext.md");
    let text = std::fs::read_to_string(&active)?
        .replace("Last updated: 2026-10-13", "Last updated: 2026-10-20")
        .replace(
            "Adding the GeoSphere Austria nowcast adapter behind a feature flag.",
            "Blending the GeoSphere Austria nowcast into the first 6 hours.",
        )
        .replace(
            "- 2026-10-12: Quota counters moved to a single Redis pipeline\n",
            "- 2026-10-12: Quota counters moved to a single Redis pipeline\n- 2026-10-19: GeoSphere licence cleared for commercial use\n- Staging DB: postgres://weather:tr0ub4dor-staging@db.internal/weather\n",
        )
        .replace("- GeoSphere licence terms unclear\n", "");
    std::fs::write(&active, text)?;
    let progress = bank.join("progress.md");
    let text = std::fs::read_to_string(&progress)?;
    std::fs::write(
        &progress,
        format!("{text}- [x] GeoSphere nowcast blended for the first 6 hours — 2026-10-20\n"),
    )?;
    d.app
        .update(Message::FilesChanged(vec![active.clone(), progress]));
    wait(&mut d, "the agent's edits", &|app| {
        settled(app)
            && app
                .review
                .pane
                .review
                .as_ref()
                .is_some_and(|r| r.files.len() == 2)
    })?;
    save(
        &mut d,
        &out,
        "review",
        "mbank — review what an agent changed, hunk by hunk",
    )?;
    d.key(KeyCode::Char('s'));
    save(
        &mut d,
        &out,
        "review-side-by-side",
        "mbank — review, side by side with changed words highlighted",
    )?;

    std::fs::remove_dir_all(&root)?;
    Ok(())
}
