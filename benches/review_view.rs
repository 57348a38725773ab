//! From "open the review" to the diff of a 1 MB memory file on screen, through the real
//! app: the key, the review worker (session, git, diff, signals, token counts), the
//! message back and one drawn frame. Peer in the same run: the core diff of the same two
//! texts alone. Target: shown within 100 ms (median).
//!
//!     cargo bench --bench review_view [-- ITERATIONS]
use std::ffi::OsString;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crossterm::event::KeyCode;
use mbank::core::review::{ReviewOptions, diff_texts};
use mbank::tui::driver::{Driver, DriverOptions};

fn git_env(home: &Path) -> Vec<(OsString, OsString)> {
    [
        ("GIT_CONFIG_NOSYSTEM", OsString::from("1")),
        ("HOME", home.as_os_str().to_owned()),
        ("XDG_CONFIG_HOME", home.as_os_str().to_owned()),
        ("GIT_AUTHOR_NAME", "Bench".into()),
        ("GIT_AUTHOR_EMAIL", "bench@example.invalid".into()),
        ("GIT_COMMITTER_NAME", "Bench".into()),
        ("GIT_COMMITTER_EMAIL", "bench@example.invalid".into()),
    ]
    .into_iter()
    .map(|(k, v)| (OsString::from(k), v))
    .collect()
}

fn git(dir: &Path, home: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .envs(git_env(home))
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// About 1 MB of progress notes, and the same after an agent's session: a rewritten
/// section, scattered line edits and an appended block.
fn texts() -> (String, String) {
    let mut old = String::from("# Progress\n\n");
    let mut section = 0;
    while old.len() < 1_000_000 {
        section += 1;
        old.push_str(&format!("\n## Sprint {section}\n\n"));
        for item in 0..20 {
            old.push_str(&format!(
                "- [x] Task {section}.{item}: moved the forecast adapter behind a flag and added tests\n"
            ));
        }
    }
    let mut new = String::new();
    for (index, line) in old.lines().enumerate() {
        if index % 997 == 0 && line.starts_with("- [x]") {
            new.push_str(&line.replace("added tests", "added property tests"));
        } else if (4_000..4_040).contains(&index) {
            new.push_str("- [ ] Rewritten by the agent: calibration of the Pyrenees model");
        } else {
            new.push_str(line);
        }
        new.push('\n');
    }
    new.push_str("\n## Agent session\n\n- [x] Summarised the week\n- [x] Closed two issues\n");
    (old, new)
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
    let home = temp.path().join("home");
    let root = temp.path().join("root");
    let project = root.join("shop");
    let bank = project.join("memory-bank");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::create_dir_all(&bank).expect("bank");
    let (old, new) = texts();
    std::fs::write(bank.join("projectbrief.md"), "# Brief\nA shop.\n").expect("brief");
    std::fs::write(bank.join("activeContext.md"), "# Active\nNow.\n").expect("active");
    std::fs::write(bank.join("progress.md"), &old).expect("progress");
    git(&project, &home, &["init", "-q", "-b", "main"]);
    git(&project, &home, &["add", "-A"]);
    git(&project, &home, &["commit", "-q", "-m", "memory"]);
    std::fs::write(bank.join("progress.md"), &new).expect("agent edit");

    let backups = temp.path().join("backups");
    let mut options = DriverOptions::new(&root, &backups);
    options.width = 200;
    options.height = 60;
    options.review = ReviewOptions {
        git_env: git_env(&home),
        home: Some(home.clone()),
        data_dir: Some(home.join("data")),
        ..ReviewOptions::default()
    };
    let mut driver = Driver::start(options);
    driver.open_project("shop").expect("the project opens");
    driver.key(KeyCode::Esc);

    let mut shown = Vec::with_capacity(iterations);
    let mut peer = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let start = Instant::now();
        driver.key(KeyCode::Char('r'));
        driver
            .pump_until("the review", |app| {
                app.review
                    .pane
                    .review
                    .as_ref()
                    .is_some_and(|r| r.files.iter().any(|f| f.diff.hunks.len() > 1))
                    && !app.review.pane.loading
            })
            .expect("the review arrives");
        driver.draw().expect("a frame");
        shown.push(start.elapsed());
        driver.key(KeyCode::Esc);
        driver.drain();

        let start = Instant::now();
        let diff = diff_texts(&old, &new);
        std::hint::black_box(&diff);
        peer.push(start.elapsed());
    }
    let shown_median = median(&mut shown);
    let peer_median = median(&mut peer);
    println!(
        "review of a {:.1} MB file, {iterations} runs: open to frame median {:.1} ms (max {:.1} ms); core diff alone median {:.1} ms; ratio {:.1}x (target: shown within 100 ms)",
        new.len() as f64 / 1e6,
        shown_median.as_secs_f64() * 1e3,
        shown.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
        peer_median.as_secs_f64() * 1e3,
        shown_median.as_secs_f64() / peer_median.as_secs_f64().max(1e-9),
    );
}
