//! From an agent server's staged write or refused write to the TUI saying so: a root of
//! [`PROJECTS`] projects, the picker showing, the App watching (real watcher, real agent
//! worker); another thread stages a proposal (as `mbank mcp --stage` does, through the
//! core) or appends a refusal to the log, in a different project each time, and the
//! clock stops when that project's picker row carries the new badge, drawn, with the
//! notice in the status line. Proposals pile up as they would (up to `ITERATIONS / 2`
//! pending), so each read of the store is also timed against a growing store.
//!
//! Then the person's side: accepting a proposal from the review (one hunk taken, the
//! others left out) until the file holds the hunk and the review no longer lists it.
//!
//! Targets: p50 <= 100 ms from the write to the badge (as `tui_watch` for a picker row),
//! p50 <= 50 ms for an accept.
//!
//!     cargo bench --bench tui_agent_live [-- ITERATIONS]      (default 40)
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crossterm::event::KeyCode;
use mbank::core::agent::bank::{MarkdownBank, WriteMode};
use mbank::core::agent::proposals::ProposalStore;
use mbank::core::clock::Clock;
use mbank::core::guard::refusals::{self, RefusalRecord};
use mbank::core::write::WriteContext;
use mbank::tui::driver::{Driver, DriverOptions};

/// Projects in the root.
const PROJECTS: usize = 300;

const ACTIVE: &str = "# Active Context\n\n## Focus\n- login form\n\n## Notes\n- one\n- two\n- three\n- four\n- five\n- six\n\n## Next\n- ship it\n";

fn write_root(root: &Path) -> Vec<PathBuf> {
    (0..PROJECTS)
        .map(|n| {
            let project = root.join(format!("project-{n:04}"));
            let bank = project.join("memory-bank");
            std::fs::create_dir_all(&bank).unwrap();
            std::fs::write(bank.join("projectbrief.md"), format!("# Brief\n\n- {n}\n")).unwrap();
            std::fs::write(bank.join("activeContext.md"), ACTIVE).unwrap();
            project
        })
        .collect()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[index]
}

/// Prints the figures; true when the p50 is within `target`.
fn summary(name: &str, mut times: Vec<Duration>, target: Duration) -> bool {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let p50 = percentile(&times, 0.5);
    println!(
        "{name:<34} n={:<3} p50 {:>7.1} ms  p90 {:>7.1} ms  max {:>7.1} ms  (target p50 <= {:.0} ms)",
        times.len(),
        ms(p50),
        ms(percentile(&times, 0.9)),
        ms(times[times.len() - 1]),
        ms(target)
    );
    p50 <= target
}

/// Stages a rewrite of the project's activeContext.md from another thread.
fn stage_elsewhere(project: &Path, data: &Path, marker: usize) {
    let (project, data) = (project.to_path_buf(), data.to_path_buf());
    std::thread::spawn(move || {
        let text = ACTIVE
            .replace("- login form", &format!("- focus #{marker}"))
            .replace("- ship it", &format!("- next #{marker}"));
        let ctx = WriteContext::new("mcp:memory_bank_update", Clock::system());
        MarkdownBank::open(&project)
            .unwrap()
            .with_staging(Some(ProposalStore::new(&data)))
            .write(&ctx, "activeContext.md", &text, WriteMode::Update, None)
            .unwrap();
    })
    .join()
    .unwrap();
}

fn refuse_elsewhere(project: &Path, data: &Path, marker: usize) {
    let (project, data) = (project.to_path_buf(), data.to_path_buf());
    std::thread::spawn(move || {
        let record = RefusalRecord::at(
            &Clock::system(),
            &project,
            "decisionLog.md",
            "append-only",
            &format!("would drop an entry (#{marker})"),
            "mcp:memory_bank_update",
        );
        refusals::append_in(&data, &record).unwrap();
    })
    .join()
    .unwrap();
}

fn main() {
    let iterations: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(40);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let data = dir.path().join("data");
    let projects = write_root(&root);
    let mut options = DriverOptions::new(&root, &dir.path().join("backups"));
    options.width = 160;
    options.height = 45;
    options.watch = true;
    options.review.data_dir = Some(data.clone());
    let mut driver = Driver::start(options);
    driver
        .pump_until(
            "every row's figures, the agent writes and every watch",
            |app| {
                app.projects.picker.counted == PROJECTS
                    && app.review.agent.loaded
                    && app.watches_settled()
            },
        )
        .unwrap();
    driver.settle(Duration::from_millis(100)).unwrap();

    let mut staged = Vec::new();
    let mut refused = Vec::new();
    for iteration in 0..iterations {
        let project = &projects[1 + (iteration * 37) % (PROJECTS - 1)];
        let before = driver
            .app
            .projects
            .picker
            .agent_badges
            .get(project)
            .copied()
            .unwrap_or((0, 0));
        let start = Instant::now();
        let expected = if iteration % 2 == 0 {
            stage_elsewhere(project, &data, iteration);
            (before.0 + 1, before.1)
        } else {
            refuse_elsewhere(project, &data, iteration);
            (before.0, before.1 + 1)
        };
        driver
            .pump_until("the badge", |app| {
                app.projects.picker.agent_badges.get(project) == Some(&expected)
                    && !app.toasts.is_empty()
            })
            .unwrap();
        driver.draw().unwrap();
        if iteration % 2 == 0 {
            staged.push(start.elapsed());
        } else {
            refused.push(start.elapsed());
        }
        driver.app.toasts.clear();
        driver.settle(Duration::from_millis(40)).unwrap();
    }

    // The person's side: one proposal, decided from the review, a hunk at a time.
    let target = &projects[0];
    let mut accepted = Vec::new();
    driver.key(KeyCode::Enter);
    driver
        .pump_until("the report", |app| app.tree.report.is_some())
        .unwrap();
    driver.key(KeyCode::Char('r'));
    driver.idle().unwrap();
    for round in 0..5 {
        std::fs::write(target.join("memory-bank/activeContext.md"), ACTIVE).unwrap();
        stage_elsewhere(target, &data, 1000 + round);
        driver
            .pump_until("the proposal in the review", |app| {
                app.review.pane.proposals.len() == 1
            })
            .unwrap();
        for _ in 0..20 {
            if driver.app.review.pane.proposal().is_some() {
                break;
            }
            driver.key(KeyCode::Char(']'));
        }
        let start = Instant::now();
        driver.key(KeyCode::Char('a'));
        driver.key(KeyCode::Char('x'));
        driver
            .pump_until("the decision", |app| {
                app.review.pane.deciding.is_none() && app.review.pane.proposals.is_empty()
            })
            .unwrap();
        driver.draw().unwrap();
        accepted.push(start.elapsed());
        driver.settle(Duration::from_millis(60)).unwrap();
    }

    println!(
        "\nagent write in another process -> badge + notice on its picker row ({iterations} writes over {PROJECTS} projects; staged proposals pile up to {})",
        iterations.div_ceil(2)
    );
    let live = Duration::from_millis(100);
    let met = [
        summary("proposal staged -> badge, notice", staged, live),
        summary("refusal logged -> badge, notice", refused, live),
        summary(
            "accept 1 of 2 hunks in the review",
            accepted,
            Duration::from_millis(50),
        ),
    ];
    println!(
        "targets: {}",
        if met.iter().all(|m| *m) {
            "met"
        } else {
            "NOT met"
        }
    );
}
