//! The TUI's picker over a repository git refuses ("detected dubious ownership",
//! simulated with git's `GIT_TEST_ASSUME_DIFFERENT_OWNER=1`): its staleness is unknown and
//! its row carries the git-refused finding, as `mbank check` says, never "fresh".
//!
//! Alone in its test binary: the switch is set in this process's environment, which the
//! TUI's git commands inherit.
#[path = "it/common/mod.rs"]
mod common;

use common::git::GitRepo;
use common::tui::Tui;
use mbank::core::analysis::staleness::Freshness;

const SWITCH: &str = "GIT_TEST_ASSUME_DIFFERENT_OWNER";

#[test]
fn the_picker_calls_a_refused_repositorys_staleness_unknown_never_fresh() {
    let repo = GitRepo::folder("root/shop").dated_now();
    repo.init();
    repo.write(
        "memory-bank/projectbrief.md",
        "# Project Brief\n\nA shop.\n",
    );
    repo.write(
        "memory-bank/activeContext.md",
        "# Active Context\n\nCheckout.\n",
    );
    repo.write("memory-bank/progress.md", "# Progress\n\n- Cart\n");
    repo.commit_all("start");
    let root = repo.temp().join("root");

    // SAFETY: this binary runs this one test; nothing else reads the environment
    // concurrently while it is set.
    unsafe { std::env::set_var(SWITCH, "1") };
    let refused = repo.git_output(&["rev-parse", "HEAD"]);
    if !String::from_utf8_lossy(&refused.stderr).contains("dubious ownership") {
        eprintln!("NOTICE: this git ignores {SWITCH}; skipping");
        return;
    }

    let mut h = Tui::start(&root);
    h.pump_until("the project's figures", |app| {
        app.projects.picker.counted == 1
    });
    let report = h.app.projects.picker.rows[0].report.as_ref().unwrap();
    assert_eq!(report.worst_staleness(), Some(Freshness::Unknown));
    let finding = report
        .findings
        .iter()
        .find(|f| f.code.id() == "git-refused")
        .unwrap_or_else(|| panic!("no git-refused finding: {:?}", report.findings));
    assert!(
        finding.message.contains("dubious ownership"),
        "{}",
        finding.message
    );
    let screen = h.screen();
    assert!(screen.contains("unkn."), "{screen}");
    assert!(!screen.contains("fresh"), "{screen}");
}
