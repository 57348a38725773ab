//! From an external write to the refreshed view: the App (watching, real workers) has a
//! project open with a clean buffer; another thread writes the file, alternating a plain
//! write and a temp-file-plus-rename (as agents do), and the clock stops when the editor
//! holds the new text. Target: p50 <= 100 ms.
//!
//! Peer, in the same run: the same writes seen by a bare `notify` watcher (raw event
//! arrival, no debouncing), so the ratio shows what debouncing and reloading add.
//!
//!     cargo bench --bench tui_watch [-- ITERATIONS]      (default 40)
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mbank::core::config::Config;
use mbank::core::tokens::{Encoding, TokenCache};
use mbank::tui::Message;
use mbank::tui::app::{App, Options};
use mbank::tui::keymap::Keymap;
use mbank::tui::theme::Theme;
use mbank::tui::workers::AnalysisWorker;
use notify::{RecursiveMode, Watcher};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const FILES: [&str; 4] = [
    "projectbrief.md",
    "progress.md",
    "activeContext.md",
    "techContext.md",
];

fn write_root(root: &Path) -> PathBuf {
    let bank = root.join("watched-project/memory-bank");
    std::fs::create_dir_all(&bank).unwrap();
    for name in FILES {
        std::fs::write(
            bank.join(name),
            format!("# {name}\n\n- first line\n- second line\n"),
        )
        .unwrap();
    }
    bank.join("progress.md")
}

/// Writes `text` to `path` from another thread: plainly, or to a temp file renamed over it.
fn write_elsewhere(path: &Path, text: String, rename: bool) {
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        if rename {
            let temp = path.with_file_name(".progress.md.agent-tmp");
            std::fs::write(&temp, text).unwrap();
            std::fs::rename(&temp, &path).unwrap();
        } else {
            std::fs::write(&path, text).unwrap();
        }
    })
    .join()
    .unwrap();
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[index]
}

fn summary(name: &str, mut times: Vec<Duration>) -> Duration {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let p50 = percentile(&times, 0.5);
    println!(
        "{name:<24} n={:<3} p50 {:>7.1} ms  p90 {:>7.1} ms  max {:>7.1} ms",
        times.len(),
        ms(p50),
        ms(percentile(&times, 0.9)),
        ms(times[times.len() - 1])
    );
    p50
}

fn app_over(root: &Path) -> (App, Receiver<Message>) {
    let (outbox, inbox) = mpsc::channel();
    let config = Arc::new(Config::default());
    let options = Options {
        root: root.to_path_buf(),
        root_problem: None,
        config: config.clone(),
        encoding: Encoding::O200k,
        theme: Theme::load("dark", None).unwrap(),
        keymap: Keymap::load(None, None).unwrap(),
        demo_path: None,
        watch: true,
        config_dir: None,
        backup_dir: root.join("backups"),
        review: Default::default(),
    };
    let worker = AnalysisWorker::spawn_with_cache(
        config,
        Encoding::O200k,
        TokenCache::in_memory(Encoding::O200k),
        outbox.clone(),
    );
    let mut app = App::with_worker(options, outbox, worker);
    app.start();
    (app, inbox)
}

fn pump_until(app: &mut App, inbox: &Receiver<Message>, done: impl Fn(&App) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done(app) {
        assert!(Instant::now() < deadline, "timed out");
        if let Ok(message) = inbox.recv_timeout(Duration::from_millis(5)) {
            app.update(message);
        }
    }
}

fn main() {
    let iterations: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(40);
    let dir = tempfile::tempdir().unwrap();
    let path = write_root(dir.path());
    let (mut app, inbox) = app_over(dir.path());
    let mut terminal = Terminal::new(TestBackend::new(160, 45)).unwrap();
    pump_until(&mut app, &inbox, |app| app.picker.visible_len() > 0);
    app.update(Message::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    pump_until(&mut app, &inbox, |app| app.tree.report.is_some());
    let wanted = path.clone();
    app.tree.select_path(&wanted);
    app.update(Message::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    pump_until(&mut app, &inbox, move |app| {
        app.editor.doc.as_ref().is_some_and(|d| d.path == wanted)
    });
    pump_until(&mut app, &inbox, |app| app.watches_settled());

    // The bare watcher, on the same folder, fed the same kind of writes.
    let (raw_tx, raw_rx) = mpsc::channel();
    let mut raw = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event
            && event.kind.is_modify() | event.kind.is_create()
        {
            let _ = raw_tx.send(Instant::now());
        }
    })
    .unwrap();
    let bank = path.parent().unwrap().to_path_buf();

    let mut refreshed = Vec::new();
    let mut raw_arrival = Vec::new();
    for iteration in 0..iterations {
        let rename = iteration % 2 == 1;
        // The App: write, then pump until the editor shows it (the view is drawn too).
        let marker = format!("written externally #{iteration}");
        let text = format!("# progress\n\n- {marker}\n- second line\n");
        let start = Instant::now();
        write_elsewhere(&path, text, rename);
        pump_until(&mut app, &inbox, |app| {
            app.editor
                .doc
                .as_ref()
                .is_some_and(|d| d.textarea.lines().iter().any(|l| l.contains(&marker)))
        });
        terminal.draw(|f| app.view(f)).unwrap();
        app.after_draw();
        refreshed.push(start.elapsed());
        assert!(!app.editor.is_dirty());
        // Let the follow-up work (the project's re-analysis) finish before the next write.
        let quiet = Instant::now() + Duration::from_millis(250);
        while let Ok(message) = inbox.recv_timeout(quiet.saturating_duration_since(Instant::now()))
        {
            app.update(message);
        }

        // The peer: the same write to a bare watcher (the App's own watcher keeps running,
        // as it would).
        raw.watch(&bank, RecursiveMode::NonRecursive).unwrap();
        while raw_rx.try_recv().is_ok() {}
        let start = Instant::now();
        write_elsewhere(&path, format!("# progress\n\n- raw #{iteration}\n"), rename);
        let arrived = raw_rx.recv_timeout(Duration::from_secs(5)).unwrap();
        raw_arrival.push(arrived.saturating_duration_since(start));
        raw.unwatch(&bank).unwrap();
        // Drain what the App heard of the peer's write (it reloads the clean buffer).
        let quiet = Instant::now() + Duration::from_millis(250);
        while let Ok(message) = inbox.recv_timeout(quiet.saturating_duration_since(Instant::now()))
        {
            app.update(message);
        }
    }

    println!(
        "\nexternal write -> refreshed view ({iterations} writes, plain and rename alternating; target p50 <= 100 ms)"
    );
    let app_p50 = summary("app (write -> editor)", refreshed);
    let raw_p50 = summary("bare notify (raw event)", raw_arrival);
    println!(
        "ratio app/raw p50: {:.1}x ({:.1} ms added by debouncing, reading and reloading)",
        app_p50.as_secs_f64() / raw_p50.as_secs_f64().max(1e-9),
        (app_p50.saturating_sub(raw_p50)).as_secs_f64() * 1e3
    );
    println!(
        "target: {}",
        if app_p50 <= Duration::from_millis(100) {
            "met"
        } else {
            "NOT met"
        }
    );
}
