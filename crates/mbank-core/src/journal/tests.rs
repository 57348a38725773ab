use std::fs;
use std::path::{Path, PathBuf};

use super::changes::{self, SurveyOptions};
use super::reviewed::Reviewed;
use super::*;
use crate::clock::Clock;
use crate::history::{Retention, Seen};
use crate::review::ChangeKind;
use crate::scan::discovery::ScanOptions;

struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    data: PathBuf,
    project: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(dir.path()).unwrap();
        let root = base.join("root");
        let project = root.join("app");
        fs::create_dir_all(project.join("memory-bank")).unwrap();
        fs::write(project.join("memory-bank/projectbrief.md"), "# Brief\n").unwrap();
        fs::write(
            project.join("memory-bank/progress.md"),
            "# Progress\n- one\n",
        )
        .unwrap();
        let home = base.join("home");
        fs::create_dir_all(&home).unwrap();
        Setup {
            root,
            home,
            data: base.join("data"),
            project,
            _dir: dir,
        }
    }

    fn options(&self) -> ScopeOptions {
        ScopeOptions {
            root: self.root.clone(),
            scan: ScanOptions {
                home: Some(self.home.clone()),
                ..ScanOptions::default()
            },
            config: JournalConfig::default(),
        }
    }

    fn history(&self) -> History {
        History::new(
            &self.data,
            Retention::default(),
            Clock::fixed_on(2026, 5, 1).unwrap(),
        )
    }

    fn recorder(&self) -> Recorder {
        let lock = lock::try_take(&self.data, lock::Holder::Watch)
            .unwrap()
            .unwrap();
        Recorder::new(self.history(), &self.data, lock)
    }

    fn bank(&self, name: &str) -> PathBuf {
        self.project.join("memory-bank").join(name)
    }

    fn scope(&self) -> JournalScope {
        scope::build(&self.options())
    }
}

fn writers(history: &History, file: &Path) -> Vec<(String, Option<Seen>)> {
    history
        .list(file)
        .unwrap()
        .into_iter()
        .map(|v| (v.writer, v.seen))
        .collect()
}

#[test]
fn catch_up_records_each_new_text_once_and_deletions_and_renames() {
    let setup = Setup::new();
    let mut recorder = setup.recorder();
    let report = recorder.catch_up(&setup.scope());
    assert_eq!((report.recorded, report.deleted), (2, 0), "{report:?}");
    // Nothing changed: nothing recorded.
    let report = recorder.catch_up(&setup.scope());
    assert_eq!((report.recorded, report.deleted), (0, 0), "{report:?}");

    fs::write(setup.bank("progress.md"), "# Progress\n- one\n- two\n").unwrap();
    let report = recorder.catch_up(&setup.scope());
    assert_eq!(report.recorded, 1, "{report:?}");
    let history = setup.history();
    let on_disk = on_disk("Cline memory bank");
    assert_eq!(
        writers(&history, &setup.bank("progress.md")),
        vec![
            (on_disk.clone(), Some(Seen::OnDisk)),
            (on_disk.clone(), Some(Seen::OnDisk))
        ]
    );
    assert_eq!(
        history.version(&setup.bank("progress.md"), 1).unwrap().1,
        "# Progress\n- one\n"
    );

    // Renamed: the old name is recorded gone (renamed), the new one as coming from it.
    fs::rename(setup.bank("progress.md"), setup.bank("progress-old.md")).unwrap();
    let report = recorder.catch_up(&setup.scope());
    assert_eq!((report.recorded, report.deleted, report.renamed), (1, 1, 1));
    let old = history.list(&setup.bank("progress.md")).unwrap();
    let last = old.last().unwrap();
    assert!(last.is_deletion());
    assert_eq!(
        last.renamed.as_deref(),
        Some(setup.bank("progress-old.md").as_path())
    );
    let new = history.list(&setup.bank("progress-old.md")).unwrap();
    assert_eq!(
        new[0].renamed.as_deref(),
        Some(setup.bank("progress.md").as_path())
    );

    // Deleted: recorded once, and the text before it can still be read.
    fs::remove_file(setup.bank("progress-old.md")).unwrap();
    let report = recorder.catch_up(&setup.scope());
    assert_eq!((report.recorded, report.deleted), (0, 1), "{report:?}");
    let report = recorder.catch_up(&setup.scope());
    assert_eq!(report.deleted, 0);
    let versions = history.list(&setup.bank("progress-old.md")).unwrap();
    assert!(versions.last().unwrap().is_deletion());
    assert!(history.version(&setup.bank("progress-old.md"), 2).is_err());
    assert_eq!(
        history
            .version(&setup.bank("progress-old.md"), 1)
            .unwrap()
            .1,
        "# Progress\n- one\n- two\n"
    );
}

#[test]
fn a_write_through_mbank_is_named_by_its_writer_and_recorded_once() {
    let setup = Setup::new();
    let mut recorder = setup.recorder();
    recorder.catch_up(&setup.scope());
    let file = setup.bank("progress.md");
    let history = setup.history();
    let ctx = crate::write::WriteContext::new("mcp:memory_bank_update", history.clock())
        .with_history(Some(history.clone()))
        .with_client(Some("claude-code".into()));
    let before = fs::read_to_string(&file).unwrap();
    crate::write::apply(
        &ctx,
        crate::write::WriteRequest {
            key: &crate::history::key_of(&file),
            target: crate::write::Target::Path(&file),
            replaced: Some(&before),
            expected: crate::write::Expected::current(&file).unwrap(),
            change: crate::write::Change::Write("# Progress\n- by the agent\n"),
        },
    )
    .unwrap();
    // The text it replaced was recorded by the journal already: not again.
    assert_eq!(history.list(&file).unwrap().len(), 1);
    let report = recorder.record_paths(&setup.scope(), std::slice::from_ref(&file));
    assert_eq!(report.recorded, 1, "{report:?}");
    assert_eq!(
        writers(&history, &file).last().unwrap().0,
        "mcp:memory_bank_update (claude-code)"
    );
    // The next write's replaced text is that version: not recorded twice.
    let ctx = ctx.for_writer("tui");
    crate::write::apply(
        &ctx,
        crate::write::WriteRequest {
            key: &crate::history::key_of(&file),
            target: crate::write::Target::Path(&file),
            replaced: Some("# Progress\n- by the agent\n"),
            expected: crate::write::Expected::current(&file).unwrap(),
            change: crate::write::Change::Write("# Progress\n- edited\n"),
        },
    )
    .unwrap();
    assert_eq!(history.list(&file).unwrap().len(), 2);
}

#[test]
fn agent_stores_in_the_home_folder_are_journaled_under_their_name() {
    let setup = Setup::new();
    let memory = crate::formats::claude_auto_memory::memory_folder(&setup.home, &setup.project);
    fs::create_dir_all(&memory).unwrap();
    let index = memory.join("MEMORY.md");
    fs::write(&index, "- [Testing](testing.md)\n").unwrap();
    let codex = crate::formats::codex_memories::memory_folder(&setup.home);
    fs::create_dir_all(codex.join("rollout_summaries")).unwrap();
    fs::write(codex.join("memory_summary.md"), "v1\nsummary\n").unwrap();
    fs::write(codex.join("rollout_summaries/a.md"), "rollout\n").unwrap();
    let mut recorder = setup.recorder();
    let scope = setup.scope();
    assert!(scope.folders.contains(&memory), "{:?}", scope.folders);
    let report = recorder.catch_up(&scope);
    assert_eq!(report.recorded, 5, "{report:?}");
    let history = setup.history();
    assert_eq!(
        writers(&history, &index)[0].0,
        on_disk("Claude Code auto memory")
    );
    assert_eq!(
        writers(&history, &codex.join("rollout_summaries/a.md"))[0].0,
        on_disk("Codex memories")
    );
    // Left out by the configuration: not even in the scope.
    let mut options = setup.options();
    options.config.leave_out = vec!["claude-auto-memory".into(), "codex-memories".into()];
    let scope = scope::build(&options);
    assert!(scope.file(&index).is_none());
    assert_eq!(scope.files.len(), 2);
    // A project left out by name: only the home folder's Codex memories stay.
    options.config.leave_out = vec!["app".into()];
    let scope = scope::build(&options);
    assert_eq!(scope.files.len(), 2);
    assert!(
        scope
            .files
            .iter()
            .all(|f| scope.store_of(f).project.is_none())
    );
}

#[test]
fn gemini_cli_memory_file_is_journaled_once_for_the_home_folder_and_its_other_files_are_not() {
    let setup = Setup::new();
    let gemini = setup.home.join(".gemini");
    fs::create_dir_all(&gemini).unwrap();
    // Before Gemini CLI's memory tool made the file: its folder is watched for it.
    let scope = setup.scope();
    assert!(scope.folders.contains(&gemini), "{:?}", scope.folders);
    let file = gemini.join("GEMINI.md");
    assert!(scope.file(&file).is_none());
    fs::write(
        &file,
        "## Gemini Added Memories\n- Prefers const over let.\n",
    )
    .unwrap();
    fs::write(gemini.join("settings.json"), "{}").unwrap();
    let options = setup.options();
    assert!(super::watch::could_be_new(&scope, &options, &file));
    assert!(!super::watch::could_be_new(
        &scope,
        &options,
        &gemini.join("settings.json")
    ));
    let scope = setup.scope();
    let journaled = scope.file(&file).expect("the memory file in the scope");
    assert_eq!(journaled.display, "~/.gemini/GEMINI.md");
    let store = scope.store_of(journaled);
    assert_eq!(store.label, "Gemini CLI memory");
    assert!(store.project.is_none() && store.agent_store);
    assert!(scope.file(&gemini.join("settings.json")).is_none());
    let mut recorder = setup.recorder();
    recorder.catch_up(&scope);
    let history = setup.history();
    assert_eq!(writers(&history, &file)[0].0, on_disk("Gemini CLI memory"));
    // Left out by its id.
    let mut options = setup.options();
    options.config.leave_out = vec!["gemini-memory".into()];
    assert!(scope::build(&options).file(&file).is_none());
}

#[test]
fn claude_code_user_memory_is_journaled_once_for_the_home_folder() {
    let setup = Setup::new();
    let file = setup.home.join(".claude/CLAUDE.md");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, "# Preferences\nAnswer in British English.\n").unwrap();
    fs::write(setup.home.join(".claude/history.jsonl"), "{}\n").unwrap();
    let scope = setup.scope();
    let journaled = scope.file(&file).expect("the user memory in the scope");
    assert_eq!(journaled.display, "~/.claude/CLAUDE.md");
    let store = scope.store_of(journaled);
    assert_eq!(store.label, "Claude Code user memory");
    assert!(store.project.is_none() && store.agent_store);
    let options = setup.options();
    assert!(!super::watch::could_be_new(
        &scope,
        &options,
        &setup.home.join(".claude/history.jsonl")
    ));
    let mut recorder = setup.recorder();
    recorder.catch_up(&scope);
    assert_eq!(
        writers(&setup.history(), &file)[0].0,
        on_disk("Claude Code user memory")
    );
    let mut options = setup.options();
    options.config.leave_out = vec!["claude-user-memory".into()];
    assert!(scope::build(&options).file(&file).is_none());
}

#[test]
fn a_file_outside_its_project_through_a_link_is_not_read() {
    let setup = Setup::new();
    let outside = setup.root.parent().unwrap().join("secret.md");
    fs::write(&outside, "secret\n").unwrap();
    std::os::unix::fs::symlink(&outside, setup.bank("linked.md")).unwrap();
    let mut recorder = setup.recorder();
    recorder.catch_up(&setup.scope());
    assert!(setup.history().list(&outside).unwrap().is_empty());
    assert!(
        setup
            .history()
            .list(&setup.bank("linked.md"))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_moved_head_labels_the_changes_as_git() {
    let setup = Setup::new();
    let git = setup.project.join(".git");
    fs::create_dir_all(&git).unwrap();
    fs::write(git.join("HEAD"), "aaaa\n").unwrap();
    let mut recorder = setup.recorder();
    recorder.catch_up(&setup.scope());
    fs::write(git.join("HEAD"), "bbbb\n").unwrap();
    fs::write(setup.bank("progress.md"), "# Progress\n- from the branch\n").unwrap();
    recorder.catch_up(&setup.scope());
    let history = setup.history();
    assert_eq!(
        writers(&history, &setup.bank("progress.md"))
            .last()
            .unwrap()
            .0,
        GIT_WRITER
    );
    // HEAD still: an edit is on disk again.
    fs::write(setup.bank("progress.md"), "# Progress\n- edited\n").unwrap();
    recorder.catch_up(&setup.scope());
    assert_eq!(
        writers(&history, &setup.bank("progress.md"))
            .last()
            .unwrap()
            .0,
        on_disk("Cline memory bank")
    );
}

#[test]
fn changes_lists_what_differs_from_the_marks_with_signals_until_marked_reviewed() {
    let setup = Setup::new();
    let mut recorder = setup.recorder();
    recorder.catch_up(&setup.scope());
    let history = setup.history();
    let survey = |reviewed: &Reviewed| {
        changes::survey(
            &history,
            &setup.scope(),
            reviewed,
            &SurveyOptions::default(),
        )
        .unwrap()
    };
    let mut reviewed = Reviewed::default();
    assert!(survey(&reviewed).changes.is_empty());

    fs::write(
        setup.bank("progress.md"),
        "# Progress\n- one\n- token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n",
    )
    .unwrap();
    fs::remove_file(setup.bank("projectbrief.md")).unwrap();
    recorder.catch_up(&setup.scope());
    let found = survey(&reviewed);
    let kinds: Vec<(String, ChangeKind)> = found
        .changes
        .iter()
        .map(|c| (c.display.clone(), c.change))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("memory-bank/progress.md".to_string(), ChangeKind::Modified),
            (
                "memory-bank/projectbrief.md".to_string(),
                ChangeKind::Deleted
            ),
        ]
    );
    let progress = &found.changes[0];
    assert_eq!((progress.added, progress.removed), (1, 0));
    assert!(
        progress.signals.iter().any(|s| s.code == "secret-added"),
        "{:?}",
        progress.signals
    );
    assert_eq!(progress.baseline_version, Some(1));
    assert_eq!(progress.writers, vec![on_disk("Cline memory bank")]);

    changes::mark_reviewed(&found, &mut reviewed, chrono::Utc::now());
    reviewed.save(&setup.data).unwrap();
    let reviewed = Reviewed::load(&setup.data).unwrap();
    assert!(survey(&reviewed).changes.is_empty());
}

#[test]
fn the_total_cap_halves_the_biggest_history_and_keeps_the_newest_version() {
    let setup = Setup::new();
    let history = History::new(
        &setup.data,
        Retention {
            max_mib_total: 1,
            ..Retention::default()
        },
        Clock::fixed_on(2026, 5, 1).unwrap(),
    );
    let file = setup.bank("progress.md");
    let key = crate::history::key_of(&file);
    for i in 0..12 {
        let text = format!("{i}\n{}", "x".repeat(200 * 1024));
        history.record_seen(&key, Some(&text), "t", None).unwrap();
    }
    let before = history.stats().unwrap();
    assert!(before.bytes > 2 * 1024 * 1024, "{before:?}");
    let dropped = history.enforce_total_cap().unwrap();
    assert!(dropped > 0);
    let after = history.stats().unwrap();
    assert!(after.bytes <= 1024 * 1024, "{after:?}");
    let versions = history.list(&file).unwrap();
    assert_eq!(versions.last().unwrap().version, 12);
    let (_, text) = history.version(&file, 12).unwrap();
    assert!(text.starts_with("11\n"));
}

#[test]
fn a_hunk_or_a_whole_file_goes_back_to_its_baseline_and_a_deleted_file_comes_back() {
    use super::revert::{Revert, Reverted, revert};
    use crate::error::CoreError;
    let setup = Setup::new();
    let mut recorder = setup.recorder();
    recorder.catch_up(&setup.scope());
    let history = setup.history();
    let ctx = crate::write::WriteContext::new("revert", history.clock())
        .with_history(Some(history.clone()));
    let progress = setup.bank("progress.md");
    let brief = setup.bank("projectbrief.md");
    let lines: String = (1..=20).map(|n| format!("- line {n}\n")).collect();
    fs::write(&progress, format!("# Progress\n{lines}")).unwrap();
    recorder.catch_up(&setup.scope());
    let reviewed = Reviewed::default();
    let survey = |reviewed: &Reviewed| {
        changes::survey(
            &history,
            &setup.scope(),
            reviewed,
            &SurveyOptions::default(),
        )
        .unwrap()
    };
    // The new baseline: marked reviewed with twenty lines.
    let mut reviewed = reviewed;
    changes::mark_reviewed(&survey(&reviewed), &mut reviewed, chrono::Utc::now());
    let edited = format!("# Progress\n{lines}")
        .replace("- line 2\n", "- line two\n")
        .replace("- line 19\n", "- line nineteen\n");
    fs::write(&progress, &edited).unwrap();
    fs::remove_file(&brief).unwrap();
    recorder.catch_up(&setup.scope());

    let found = survey(&reviewed);
    let change = found.changes.iter().find(|c| c.path == progress).unwrap();
    assert_eq!(change.diff.hunks.len(), 2);
    // Changed on disk since the survey: refused, nothing written.
    fs::write(&progress, format!("{edited}- more\n")).unwrap();
    let refused = revert(
        &ctx,
        &setup.scope(),
        change,
        Revert::Hunk(change.diff.hunks[0].id),
    );
    assert!(
        matches!(refused, Err(CoreError::Conflict { .. })),
        "{refused:?}"
    );
    fs::write(&progress, &edited).unwrap();

    let first = change.diff.hunks[0].id;
    assert_eq!(
        revert(&ctx, &setup.scope(), change, Revert::Hunk(first)).unwrap(),
        Reverted::Written
    );
    let now = fs::read_to_string(&progress).unwrap();
    assert!(
        now.contains("- line 2\n") && now.contains("- line nineteen\n"),
        "{now}"
    );
    // The text it replaced is the newest the history holds.
    let versions = history.list(&progress).unwrap();
    let last = versions.last().unwrap();
    assert_eq!(history.version(&progress, last.version).unwrap().1, edited);

    let gone = found.changes.iter().find(|c| c.path == brief).unwrap();
    assert_eq!(gone.change, ChangeKind::Deleted);
    assert_eq!(
        revert(&ctx, &setup.scope(), gone, Revert::File).unwrap(),
        Reverted::Restored
    );
    assert_eq!(fs::read_to_string(&brief).unwrap(), "# Brief\n");
    // The journal names the revert as the writer of the text it finds.
    let report = recorder.catch_up(&setup.scope());
    assert_eq!(report.recorded, 2, "{report:?}");
    for file in [&progress, &brief] {
        assert_eq!(history.list(file).unwrap().last().unwrap().writer, "revert");
    }
}

/// A survey's change of `file` after its text went from `baseline` (marked reviewed) to
/// `now`, both recorded.
fn change_from(
    setup: &Setup,
    recorder: &mut Recorder,
    file: &Path,
    baseline: &str,
    now: &str,
) -> changes::FileChange {
    let history = setup.history();
    fs::write(file, baseline).unwrap();
    recorder.catch_up(&setup.scope());
    let survey = |reviewed: &Reviewed| {
        changes::survey(
            &history,
            &setup.scope(),
            reviewed,
            &SurveyOptions::default(),
        )
        .unwrap()
    };
    let mut reviewed = Reviewed::default();
    changes::mark_reviewed(&survey(&reviewed), &mut reviewed, chrono::Utc::now());
    fs::write(file, now).unwrap();
    recorder.catch_up(&setup.scope());
    survey(&reviewed)
        .changes
        .into_iter()
        .find(|c| c.path == file)
        .unwrap()
}

const AWS_KEY: &str = "AKIAZ7QWERTYUIOPASDF";

#[test]
fn a_revert_that_would_bring_back_a_secret_or_drop_a_decision_is_refused_by_the_guard() {
    use super::revert::{Revert, revert};
    use crate::error::CoreError;
    let setup = Setup::new();
    let mut recorder = setup.recorder();
    let history = setup.history();
    let ctx = crate::write::WriteContext::new("revert", history.clock())
        .with_history(Some(history.clone()));
    let progress = setup.bank("progress.md");
    let with_key = format!("# Progress\n- deploy with AWS_ACCESS_KEY_ID={AWS_KEY}\n");
    let without = "# Progress\n- deploy with the key in the vault\n";
    let change = change_from(&setup, &mut recorder, &progress, &with_key, without);

    let refused = revert(&ctx, &setup.scope(), &change, Revert::File).unwrap_err();
    match &refused {
        CoreError::Refused { path, rule, .. } => {
            assert_eq!(path, &progress);
            assert_eq!(*rule, "secret");
        }
        other => panic!("{other:?}"),
    }
    let message = refused.to_string();
    assert!(
        message.starts_with("memory-bank/progress.md: "),
        "{message}"
    );
    assert!(message.contains("secret on line 2"), "{message}");
    assert!(!message.contains(AWS_KEY), "{message}");
    assert_eq!(fs::read_to_string(&progress).unwrap(), without);

    // The rules are the context's: with secrets allowed the same revert goes through.
    let relaxed = ctx.clone().with_policy(crate::guard::GuardPolicy {
        secrets: false,
        ..Default::default()
    });
    revert(&relaxed, &setup.scope(), &change, Revert::File).unwrap();
    assert_eq!(fs::read_to_string(&progress).unwrap(), with_key);

    // A decision log only grows: taking back an entry added since the baseline is refused.
    let log = setup.bank("decisionLog.md");
    let entry = |title: &str| {
        format!(
            "## [2026-04-0{}] {title}\nWhy it was so.\n",
            title.len() % 9
        )
    };
    let one = format!("# Decision Log\n\n{}", entry("Use SQLite"));
    let two = format!("{one}\n{}", entry("Use WAL mode"));
    let change = change_from(&setup, &mut recorder, &log, &one, &two);
    assert!(setup.scope().file(&log).unwrap().role.is_decision_log());
    let refused = revert(&ctx, &setup.scope(), &change, Revert::File).unwrap_err();
    assert!(
        matches!(
            &refused,
            CoreError::Refused {
                rule: "append-only",
                ..
            }
        ),
        "{refused:?}"
    );
    assert!(refused.to_string().contains("Use WAL mode"), "{refused}");
    assert_eq!(fs::read_to_string(&log).unwrap(), two);
}

#[test]
fn restoring_a_version_of_an_agent_store_holding_a_secret_is_refused_by_the_guard() {
    use crate::error::CoreError;
    let setup = Setup::new();
    let memory = crate::formats::claude_auto_memory::memory_folder(&setup.home, &setup.project);
    fs::create_dir_all(&memory).unwrap();
    let topic = memory.join("deploy.md");
    let mut recorder = setup.recorder();
    fs::write(&topic, format!("# Deploy\ntoken: {AWS_KEY}\n")).unwrap();
    recorder.catch_up(&setup.scope());
    fs::write(&topic, "# Deploy\nthe token is in the vault\n").unwrap();
    recorder.catch_up(&setup.scope());
    fs::write(
        &topic,
        "# Deploy\nthe token is in the vault; rotate monthly\n",
    )
    .unwrap();
    recorder.catch_up(&setup.scope());
    let history = setup.history();
    assert_eq!(history.list(&topic).unwrap().len(), 3);
    let scope = setup.scope();
    let store = scope.store_holding(&topic).unwrap().clone();
    let ctx = crate::write::WriteContext::new("restore", history.clock());

    let refused = restore_in_store(&ctx, &history, &scope, &store, &topic, 1).unwrap_err();
    assert!(
        matches!(&refused, CoreError::Refused { rule: "secret", .. }),
        "{refused:?}"
    );
    let message = refused.to_string();
    assert!(message.contains("deploy.md"), "{message}");
    assert!(
        fs::read_to_string(&topic)
            .unwrap()
            .contains("rotate monthly"),
        "nothing was written"
    );
    // A clean version comes back, recorded as the restore's.
    restore_in_store(&ctx, &history, &scope, &store, &topic, 2).unwrap();
    assert_eq!(
        fs::read_to_string(&topic).unwrap(),
        "# Deploy\nthe token is in the vault\n"
    );
    recorder.catch_up(&setup.scope());
    assert_eq!(
        history.list(&topic).unwrap().last().unwrap().writer,
        "restore"
    );
}

#[test]
fn a_secret_already_exposed_does_not_stop_another_hunk_but_unwrapping_one_is_refused() {
    use super::revert::{Revert, revert};
    use crate::error::CoreError;
    let setup = Setup::new();
    let mut recorder = setup.recorder();
    let history = setup.history();
    let ctx = crate::write::WriteContext::new("revert", history.clock())
        .with_history(Some(history.clone()));
    let progress = setup.bank("progress.md");
    let lines: String = (1..=20).map(|n| format!("- line {n}\n")).collect();
    let baseline = format!("# Progress\n{lines}");
    let now = baseline
        .replace("- line 2\n", "- line two\n")
        .replace("- line 19\n", &format!("- key {AWS_KEY}\n"));
    let change = change_from(&setup, &mut recorder, &progress, &baseline, &now);
    assert_eq!(change.diff.hunks.len(), 2);
    // Taking back the first hunk leaves the agent's secret where it stands: not refused.
    revert(
        &ctx,
        &setup.scope(),
        &change,
        Revert::Hunk(change.diff.hunks[0].id),
    )
    .unwrap();
    let reverted = fs::read_to_string(&progress).unwrap();
    assert!(reverted.contains("- line 2\n") && reverted.contains(AWS_KEY));

    // The same line, hidden in a <private> block now: bringing it out is refused.
    let notes = setup.bank("techContext.md");
    let exposed = format!("# Tech\nkey {AWS_KEY}\n");
    let hidden = format!("# Tech\n<private>\nkey {AWS_KEY}\n</private>\n");
    let change = change_from(&setup, &mut recorder, &notes, &exposed, &hidden);
    let refused = revert(&ctx, &setup.scope(), &change, Revert::File).unwrap_err();
    assert!(
        matches!(&refused, CoreError::Refused { rule: "secret", .. }),
        "{refused:?}"
    );
    assert_eq!(fs::read_to_string(&notes).unwrap(), hidden);
}

#[test]
fn a_watch_short_of_inotify_watches_says_so_and_names_its_fallback() {
    let setup = Setup::new();
    let web = setup.root.join("web/memory-bank");
    fs::create_dir_all(&web).unwrap();
    fs::write(web.join("progress.md"), "# Progress\n").unwrap();
    let mut recorder = setup.recorder();
    let mut follower = watch::Follower::new().unwrap();
    follower.limit(2);
    let stopper = follower.stopper();
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let said = lines.clone();
    let options = setup.options();
    let following = std::thread::spawn(move || {
        let mut log = |line: &str| {
            said.lock().unwrap().push(line.to_string());
        };
        watch::follow(&mut recorder, &options, &mut follower, &mut log, &mut || {});
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !lines
        .lock()
        .unwrap()
        .iter()
        .any(|l| l == "watching for changes")
    {
        assert!(std::time::Instant::now() < deadline, "{lines:?}");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    stopper.stop();
    following.join().unwrap();
    let lines = lines.lock().unwrap();
    let wanted = setup.scope().folders.len();
    assert!(wanted > 2, "{wanted}");
    let note = lines
        .iter()
        .find(|l| l.starts_with("watching 2 of"))
        .unwrap_or_else(|| panic!("{lines:?}"));
    assert!(note.contains(&format!("2 of {wanted} folders")), "{note}");
    assert!(
        note.contains("falling back to a periodic scan of everything every 60 s"),
        "{note}"
    );
    assert!(note.contains("raise the limit"), "{note}");
}

#[test]
fn a_catch_up_reads_only_files_whose_stamps_changed_since_they_were_last_found_unchanged() {
    let setup = Setup::new();
    let mut recorder = setup.recorder();
    let scope = setup.scope();
    assert_eq!(recorder.catch_up(&scope).recorded, 2);
    // Just written: their times may not change with their next write, so they are read.
    assert_eq!(recorder.catch_up(&scope).not_read, 0);
    std::thread::sleep(crate::scan::listings::RACY_WINDOW + std::time::Duration::from_millis(100));
    assert_eq!(recorder.catch_up(&scope).not_read, 0, "stamps kept now");
    assert_eq!(recorder.catch_up(&scope).not_read, 2);
    // A write changes the stamp: read, and recorded.
    fs::write(setup.bank("progress.md"), "# Progress\n- two\n").unwrap();
    let report = recorder.catch_up(&scope);
    assert_eq!((report.recorded, report.not_read), (1, 1), "{report:?}");
}

#[test]
fn a_settle_pass_records_an_edit_a_new_file_and_a_removal_no_event_reported() {
    use std::time::{Duration, Instant};
    let setup = Setup::new();
    let options = setup.options();
    let mut recorder = setup.recorder();
    let mut scope = setup.scope();
    recorder.catch_up(&scope);
    // Changed on disk while only an unrelated file of the bank was reported.
    fs::write(setup.bank("progress.md"), "# Progress\n- two\n").unwrap();
    fs::write(setup.bank("notes.md"), "# Notes\n").unwrap();
    fs::remove_file(setup.bank("projectbrief.md")).unwrap();
    let mut spell = watch::Spell::default();
    let first = Instant::now();
    spell.add(&[setup.bank("scratch.txt")], first);
    spell.add(
        &[setup.bank("scratch.txt")],
        first + Duration::from_millis(700),
    );
    assert_eq!(spell.due_at(), Some(first + watch::SETTLE), "not put off");

    let mut paths = spell.paths(&scope);
    assert!(spell.finds_unknown(&scope, &options), "notes.md is new");
    scope = scope::build(&options);
    paths.extend(spell.paths(&scope));
    let report = recorder.record_paths(&scope, &paths);
    assert_eq!((report.recorded, report.deleted), (2, 1), "{report:?}");
    assert_eq!(
        watch::settled_note(&report).as_deref(),
        Some("settled: 3 change(s) no file event reported")
    );
    let history = setup.history();
    let newest_text = |name: &str| {
        let newest = history.newest(&setup.bank(name)).unwrap().unwrap();
        (!newest.is_deletion()).then(|| {
            history
                .version(&setup.bank(name), newest.version)
                .unwrap()
                .1
        })
    };
    assert_eq!(
        newest_text("progress.md").as_deref(),
        Some("# Progress\n- two\n")
    );
    assert_eq!(newest_text("notes.md").as_deref(), Some("# Notes\n"));
    assert_eq!(newest_text("projectbrief.md"), None);

    // Settled, the same folder again finds and records nothing.
    assert!(!spell.finds_unknown(&scope, &options));
    let again = recorder.record_paths(&scope, &spell.paths(&scope));
    assert_eq!(watch::settled_note(&again), None, "{again:?}");
}

#[test]
fn following_settles_a_folder_an_event_touched_and_records_what_no_event_reported() {
    use std::time::{Duration, Instant};
    let setup = Setup::new();
    let mut recorder = setup.recorder();
    let mut follower = watch::Follower::new().unwrap();
    // No folder watched: only the events handed over below are seen.
    follower.limit(0);
    let stopper = follower.stopper();
    let report = follower.reporter();
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let said = lines.clone();
    let options = setup.options();
    let following = std::thread::spawn(move || {
        let mut log = |line: &str| said.lock().unwrap().push(line.to_string());
        watch::follow(&mut recorder, &options, &mut follower, &mut log, &mut || {});
    });
    let said = |text: &str| lines.lock().unwrap().iter().any(|l| l == text);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !said("watching for changes") {
        assert!(Instant::now() < deadline, "{lines:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
    fs::write(setup.bank("progress.md"), "# Progress\n- settled\n").unwrap();
    // The only event: a file of the bank that is not memory.
    report(
        notify::Event::new(notify::EventKind::Create(notify::event::CreateKind::File))
            .add_path(setup.bank("scratch.txt")),
    );
    let history = setup.history();
    while !said("settled: 1 change(s) no file event reported") {
        assert!(Instant::now() < deadline, "{lines:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
    stopper.stop();
    following.join().unwrap();
    let newest = history.newest(&setup.bank("progress.md")).unwrap().unwrap();
    let text = history
        .version(&setup.bank("progress.md"), newest.version)
        .unwrap()
        .1;
    assert_eq!(text, "# Progress\n- settled\n");
}

#[test]
fn a_settle_pass_lists_the_scope_again_only_for_a_memory_file_it_lacks() {
    let setup = Setup::new();
    let options = setup.options();
    let scope = setup.scope();
    // A project's own folder: a sub-folder and files that are not memory.
    fs::create_dir_all(setup.project.join("src")).unwrap();
    fs::write(setup.project.join("README.md"), "# App\n").unwrap();
    fs::write(setup.project.join("Cargo.toml"), "[package]\n").unwrap();
    let now = std::time::Instant::now();
    let mut spell = watch::Spell::default();
    spell.add(&[setup.project.join("README.md")], now);
    assert!(!spell.finds_unknown(&scope, &options));
    // An instruction file the project's listing names now.
    fs::write(setup.project.join("CLAUDE.md"), "# Instructions\n").unwrap();
    assert!(spell.finds_unknown(&scope, &options));
    // A file of the bank the scope lacks.
    let mut in_bank = watch::Spell::default();
    in_bank.add(&[setup.bank("progress.md")], now);
    assert!(!in_bank.finds_unknown(&scope, &options));
    fs::write(setup.bank("notes.md"), "# Notes\n").unwrap();
    assert!(in_bank.finds_unknown(&scope, &options));
}
