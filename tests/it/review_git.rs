//! Review against git HEAD over real temporary repositories: agent-like edits (append,
//! overwrite, deleted entries, new files, renames, deleted files), accept and reject per
//! hunk and per line checked against the exact file contents and the index
//! (`git show :path`), undo, stale reviews refused, and commits that hold memory files
//! only, with the refusals (detached HEAD, merge in progress, no identity, hook failure).
//!
//! Git runs with the system config off, HOME in the temp folder and the identity in the
//! environment, so the user's setup cannot leak in.
use crate::common;

use std::ffi::OsString;
use std::fs;

use common::git::GitRepo;
use mbank::core::error::CoreError;
use mbank::core::findings::Severity;
use mbank::core::review::{
    ChangeKind, CommitError, FileReview, LineKind, RejectOutcome, Review, ReviewOptions,
    ReviewSession,
};
use mbank::core::scan::discovery;

/// The shared git fixture, with the tea shop's bank committed.
struct Repo {
    git: GitRepo,
}

impl std::ops::Deref for Repo {
    type Target = GitRepo;
    fn deref(&self) -> &GitRepo {
        &self.git
    }
}

const BRIEF: &str = "# Project Brief\n\nA tea shop.\n";
const ACTIVE: &str = "# Active Context\n\nWorking on checkout.\n\n## Next\n\n- Payments\n";
const PROGRESS: &str = "# Progress\n\n## Done\n\n- Cart\n- Catalog\n\n## Left\n\n- Payments\n";
const LOG: &str = "# Decision Log\n\n## 2025-01-10 - Use SQLite\n\nSmall data.\n\n## 2025-02-01 - Ship weekly\n\nSmall batches.\n";
const PATTERNS: &str = "# System Patterns\n\n- Hexagonal core\n- Adapters at the edge\n- Events for side effects\n- One module per feature\n";

impl Repo {
    /// A repository with a committed Cline bank and a committed source file, in a folder
    /// whose name has a space and a non-ASCII letter.
    fn new() -> Repo {
        let git = GitRepo::folder("shop ü");
        git.init();
        git.write("memory-bank/projectbrief.md", BRIEF);
        git.write("memory-bank/activeContext.md", ACTIVE);
        git.write("memory-bank/progress.md", PROGRESS);
        git.write("memory-bank/decisionLog.md", LOG);
        git.write("memory-bank/systemPatterns.md", PATTERNS);
        git.write("src/lib.rs", "pub fn a() {}\n");
        git.commit_all("start");
        Repo { git }
    }

    fn session(&self) -> ReviewSession {
        self.session_with(self.env())
    }

    fn session_with(&self, env: Vec<(OsString, OsString)>) -> ReviewSession {
        let project = discovery::project_at(&self.dir, "shop".into()).unwrap();
        ReviewSession::open(
            &project,
            ReviewOptions {
                git_env: env,
                ..self.review_options()
            },
        )
        .unwrap()
    }
}

fn file<'r>(review: &'r Review, display: &str) -> &'r FileReview {
    review
        .files
        .iter()
        .find(|f| f.display == display)
        .unwrap_or_else(|| {
            let names: Vec<_> = review.files.iter().map(|f| &f.display).collect();
            panic!("{display} not in review: {names:?}")
        })
}

fn codes(file: &FileReview) -> Vec<&'static str> {
    file.signals.iter().map(|s| s.code).collect()
}

#[test]
fn agent_edits_are_listed_with_kinds_counts_and_signals() {
    let repo = Repo::new();
    repo.write(
        "memory-bank/progress.md",
        &format!("{PROGRESS}- Shipping\n"),
    );
    repo.write(
        "memory-bank/activeContext.md",
        "# Active Context\n\nRewritten by the agent.\n",
    );
    repo.write(
        "memory-bank/decisionLog.md",
        "# Decision Log\n\n## 2025-02-01 - Ship weekly\n\nSmall batches.\n",
    );
    repo.write(
        "memory-bank/techContext.md",
        "# Tech\n\nDB_URL=postgres://shop:Xk29fLq8@db.internal/shop\n",
    );
    fs::rename(
        repo.dir.join("memory-bank/systemPatterns.md"),
        repo.dir.join("memory-bank/patterns.md"),
    )
    .unwrap();
    repo.write(
        "memory-bank/projectbrief.md",
        "# Project Brief\n\nA coffee shop.\n",
    );
    repo.write("src/lib.rs", "pub fn b() {}\n");
    repo.write("notes.txt", "not memory\n");

    let review = repo.session().review().unwrap();
    let names: Vec<(&str, ChangeKind)> = review
        .files
        .iter()
        .map(|f| (f.display.as_str(), f.change))
        .collect();
    assert_eq!(
        names,
        vec![
            ("memory-bank/activeContext.md", ChangeKind::Modified),
            ("memory-bank/decisionLog.md", ChangeKind::Modified),
            ("memory-bank/patterns.md", ChangeKind::Renamed),
            ("memory-bank/progress.md", ChangeKind::Modified),
            ("memory-bank/projectbrief.md", ChangeKind::Modified),
            ("memory-bank/techContext.md", ChangeKind::Added),
        ]
    );
    let progress = file(&review, "memory-bank/progress.md");
    assert_eq!((progress.added, progress.removed), (1, 0));
    assert!(progress.tokens_after > progress.tokens_before);
    assert!(progress.signals.is_empty());
    let renamed = file(&review, "memory-bank/patterns.md");
    assert_eq!(
        renamed.renamed_from_display.as_deref(),
        Some("memory-bank/systemPatterns.md")
    );
    assert!(renamed.diff.is_empty(), "a pure rename has no hunks");
    let log = file(&review, "memory-bank/decisionLog.md");
    assert_eq!(codes(log), vec!["decision-removed"]);
    let hunk = log.signals[0].hunk.expect("signal sits on a hunk");
    assert!(log.diff.hunk(hunk).unwrap().signals.contains(&0));
    assert_eq!(
        codes(file(&review, "memory-bank/projectbrief.md")),
        vec!["stable-layer-changed"]
    );
    assert_eq!(
        codes(file(&review, "memory-bank/techContext.md")),
        vec!["secret-added"]
    );
    assert_eq!(review.worst_signal(), Some(Severity::Error));
    assert_eq!(review.banks.len(), 1);
    assert_eq!(review.banks[0].files, 6);
}

#[test]
fn accepting_a_hunk_stages_exactly_it_and_rejecting_reverts_the_work_tree() {
    let repo = Repo::new();
    // Two hunks: a changed first line and an appended line far below.
    let edited = PROGRESS.replace("# Progress", "# Progress (updated)") + "- Shipping\n";
    repo.write("memory-bank/progress.md", &edited);
    let mut session = repo.session();
    let review = session.review().unwrap();
    let progress = file(&review, "memory-bank/progress.md");
    assert_eq!(progress.diff.hunks.len(), 2);
    let (first, second) = (progress.diff.hunks[0].id, progress.diff.hunks[1].id);

    session.accept_hunk(progress, second).unwrap();
    assert_eq!(
        repo.staged("memory-bank/progress.md").unwrap(),
        format!("{PROGRESS}- Shipping\n")
    );
    assert_eq!(repo.read("memory-bank/progress.md").unwrap(), edited);

    // The accepted hunk is gone from the review; the other keeps its id.
    let review = session.review().unwrap();
    let progress = file(&review, "memory-bank/progress.md");
    assert_eq!(progress.diff.hunks.len(), 1);
    assert_eq!(progress.diff.hunks[0].id, first);
    assert_eq!((progress.accepted_added, progress.accepted_removed), (1, 0));

    session.reject_hunk(progress, first).unwrap();
    assert_eq!(
        repo.read("memory-bank/progress.md").unwrap(),
        format!("{PROGRESS}- Shipping\n")
    );
    assert_eq!(
        repo.staged("memory-bank/progress.md").unwrap(),
        format!("{PROGRESS}- Shipping\n")
    );
    // Work tree and index agree and differ from HEAD: still listed, nothing pending.
    let review = session.review().unwrap();
    assert!(file(&review, "memory-bank/progress.md").fully_accepted());
}

#[test]
fn single_lines_are_accepted_and_rejected() {
    let repo = Repo::new();
    let edited = ACTIVE.replace("- Payments\n", "- Refunds\n- Invoices\n");
    repo.write("memory-bank/activeContext.md", &edited);
    let mut session = repo.session();
    let review = session.review().unwrap();
    let active = file(&review, "memory-bank/activeContext.md");
    let hunk = &active.diff.hunks[0];
    let line = |kind: LineKind, text: &str| {
        hunk.lines
            .iter()
            .position(|l| l.kind == kind && l.text == text)
            .unwrap()
    };
    // Accept "- Invoices" only: the index gains it and keeps "- Payments".
    session
        .accept_line(active, hunk.id, line(LineKind::Added, "- Invoices"))
        .unwrap();
    assert_eq!(
        repo.staged("memory-bank/activeContext.md").unwrap(),
        ACTIVE.replace("- Payments\n", "- Payments\n- Invoices\n")
    );
    // Re-diff, then reject the removal of "- Payments": the work tree gets it back.
    let review = session.review().unwrap();
    let active = file(&review, "memory-bank/activeContext.md");
    let hunk = &active.diff.hunks[0];
    let removed = hunk
        .lines
        .iter()
        .position(|l| l.kind == LineKind::Removed && l.text == "- Payments")
        .unwrap();
    session.reject_line(active, hunk.id, removed).unwrap();
    assert_eq!(
        repo.read("memory-bank/activeContext.md").unwrap(),
        ACTIVE.replace("- Payments\n", "- Payments\n- Refunds\n- Invoices\n")
    );
}

#[test]
fn undo_restores_index_and_work_tree() {
    let repo = Repo::new();
    let edited = format!("{PROGRESS}- Shipping\n");
    repo.write("memory-bank/progress.md", &edited);
    let mut session = repo.session();
    let review = session.review().unwrap();
    let progress = file(&review, "memory-bank/progress.md");
    let hunk = progress.diff.hunks[0].id;
    session.accept_hunk(progress, hunk).unwrap();
    assert_eq!(repo.staged("memory-bank/progress.md").unwrap(), edited);
    let header = progress.diff.hunks[0].header();
    assert_eq!(
        session.next_undo(),
        Some(format!("accept the hunk {header} in memory-bank/progress.md").as_str())
    );
    session.undo().unwrap();
    assert_eq!(repo.staged("memory-bank/progress.md").unwrap(), PROGRESS);

    let review = session.review().unwrap();
    let progress = file(&review, "memory-bank/progress.md");
    session.reject_hunk(progress, hunk).unwrap();
    assert_eq!(repo.read("memory-bank/progress.md").unwrap(), PROGRESS);
    session.undo().unwrap();
    assert_eq!(repo.read("memory-bank/progress.md").unwrap(), edited);
    assert_eq!(session.undo_depth(), 0);
    assert_eq!(session.undo().unwrap(), None);
}

#[test]
fn a_stale_review_is_refused_and_nothing_is_written() {
    let repo = Repo::new();
    repo.write(
        "memory-bank/progress.md",
        &format!("{PROGRESS}- Shipping\n"),
    );
    let mut session = repo.session();
    let review = session.review().unwrap();
    let progress = file(&review, "memory-bank/progress.md");
    let hunk = progress.diff.hunks[0].id;
    // The agent writes again after the diff was computed.
    let newer = format!("{PROGRESS}- Shipping\n- Taxes\n");
    repo.write("memory-bank/progress.md", &newer);
    for result in [
        session.accept_hunk(progress, hunk),
        session.reject_hunk(progress, hunk),
    ] {
        assert!(
            matches!(result, Err(CoreError::Conflict { .. })),
            "{result:?}"
        );
    }
    assert_eq!(repo.read("memory-bank/progress.md").unwrap(), newer);
    assert_eq!(repo.staged("memory-bank/progress.md").unwrap(), PROGRESS);
    // Someone staged meanwhile: also refused.
    let fresh = session.refresh_file(&progress.path).unwrap().unwrap();
    repo.git(&["add", "memory-bank/progress.md"]);
    let result = session.accept_hunk(&fresh, fresh.diff.hunks[0].id);
    assert!(
        matches!(result, Err(CoreError::Conflict { .. })),
        "{result:?}"
    );
}

#[test]
fn rejecting_files_restores_deleted_ones_and_deletes_new_ones_only_when_confirmed() {
    let repo = Repo::new();
    fs::remove_file(repo.dir.join("memory-bank/decisionLog.md")).unwrap();
    repo.write("memory-bank/scratch.md", "# Scratch\n\nagent notes\n");
    let mut session = repo.session();
    let review = session.review().unwrap();
    let deleted = file(&review, "memory-bank/decisionLog.md");
    assert_eq!(deleted.change, ChangeKind::Deleted);
    assert_eq!(codes(deleted), vec!["decision-removed", "decision-removed"]);
    assert_eq!(
        session.reject_file(deleted, false).unwrap(),
        RejectOutcome::Done
    );
    assert_eq!(repo.read("memory-bank/decisionLog.md").unwrap(), LOG);

    let new = file(&review, "memory-bank/scratch.md");
    match session.reject_file(new, false).unwrap() {
        RejectOutcome::NeedsConfirmation(loss) => {
            assert!(loss.deletes_file);
            assert_eq!(loss.lines_lost, 3);
        }
        other => panic!("expected a confirmation, got {other:?}"),
    }
    assert!(repo.read("memory-bank/scratch.md").is_some());
    session.reject_file(new, true).unwrap();
    assert!(repo.read("memory-bank/scratch.md").is_none());
    session.undo().unwrap();
    assert_eq!(
        repo.read("memory-bank/scratch.md").unwrap(),
        "# Scratch\n\nagent notes\n"
    );
}

#[test]
fn accepting_a_new_file_and_a_deletion_updates_the_index() {
    let repo = Repo::new();
    fs::remove_file(repo.dir.join("memory-bank/systemPatterns.md")).unwrap();
    repo.write("memory-bank/techContext.md", "# Tech\n\nRust.\n");
    let mut session = repo.session();
    let review = session.review().unwrap();
    let deleted = file(&review, "memory-bank/systemPatterns.md");
    session
        .accept_hunk(deleted, deleted.diff.hunks[0].id)
        .unwrap();
    assert_eq!(repo.staged("memory-bank/systemPatterns.md"), None);
    let added = file(&review, "memory-bank/techContext.md");
    session.accept_file(added).unwrap();
    assert_eq!(
        repo.staged("memory-bank/techContext.md").unwrap(),
        "# Tech\n\nRust.\n"
    );
}

#[test]
fn a_rename_is_accepted_under_its_new_name() {
    let repo = Repo::new();
    fs::remove_file(repo.dir.join("memory-bank/systemPatterns.md")).unwrap();
    repo.write(
        "memory-bank/patterns.md",
        &format!("{PATTERNS}- Retry with backoff\n"),
    );
    let mut session = repo.session();
    let review = session.review().unwrap();
    let renamed = file(&review, "memory-bank/patterns.md");
    assert_eq!(renamed.change, ChangeKind::Renamed);
    assert_eq!((renamed.added, renamed.removed), (1, 0));
    session
        .accept_hunk(renamed, renamed.diff.hunks[0].id)
        .unwrap();
    assert_eq!(
        repo.staged("memory-bank/patterns.md").unwrap(),
        format!("{PATTERNS}- Retry with backoff\n")
    );
    assert_eq!(repo.staged("memory-bank/systemPatterns.md"), None);
    session.undo().unwrap();
    assert_eq!(
        repo.staged("memory-bank/systemPatterns.md").unwrap(),
        PATTERNS
    );
    assert_eq!(repo.staged("memory-bank/patterns.md"), None);
}

#[test]
fn a_commit_holds_accepted_memory_files_only() {
    let repo = Repo::new();
    repo.write(
        "memory-bank/decisionLog.md",
        &format!("{LOG}\n## 2025-03-01 - Add caching\n\nFaster pages.\n"),
    );
    repo.write(
        "memory-bank/progress.md",
        &format!("{PROGRESS}- Shipping\n"),
    );
    // Someone else's work: one staged, one unstaged change outside the bank.
    repo.write("src/staged.rs", "pub fn staged() {}\n");
    repo.git(&["add", "src/staged.rs"]);
    repo.write("src/lib.rs", "pub fn unstaged() {}\n");

    let mut session = repo.session();
    let review = session.review().unwrap();
    let log = file(&review, "memory-bank/decisionLog.md");
    session.accept_file(log).unwrap();
    let message = session.commit_message().unwrap();
    assert!(
        message.starts_with("memory: update decisionLog.md\n"),
        "{message}"
    );
    assert!(
        message.contains("Decisions added:\n- Add caching (2025-03-01)"),
        "{message}"
    );
    assert!(!message.contains("progress.md"), "{message}");

    let outcome = session.commit(&message).unwrap();
    assert_eq!(
        outcome.files,
        vec!["memory-bank/decisionLog.md".to_string()]
    );
    let committed = repo.git(&["show", "--name-only", "--format=%s", "HEAD"]);
    assert_eq!(
        committed.trim(),
        "memory: update decisionLog.md\n\nmemory-bank/decisionLog.md"
    );
    assert_eq!(repo.git(&["rev-parse", "HEAD"]).trim(), outcome.commit);
    assert_eq!(
        repo.git(&["diff", "--cached", "--name-only"]).trim(),
        "src/staged.rs"
    );
    assert_eq!(
        repo.git(&["diff", "--name-only"]).trim(),
        "memory-bank/progress.md\nsrc/lib.rs"
    );
    // The committed file is clean now; the unaccepted one is still to review.
    let review = session.review().unwrap();
    let names: Vec<_> = review.files.iter().map(|f| f.display.as_str()).collect();
    assert_eq!(names, vec!["memory-bank/progress.md"]);
    assert!(matches!(
        session.commit("again"),
        Err(CommitError::NothingAccepted)
    ));
}

fn accept_progress(session: &mut ReviewSession) {
    let review = session.review().unwrap();
    session
        .accept_file(file(&review, "memory-bank/progress.md"))
        .unwrap();
}

#[test]
fn commit_refuses_a_detached_head() {
    let repo = Repo::new();
    repo.git(&["checkout", "-q", "--detach"]);
    repo.write(
        "memory-bank/progress.md",
        &format!("{PROGRESS}- Shipping\n"),
    );
    let mut session = repo.session();
    accept_progress(&mut session);
    let err = session.commit("memory").unwrap_err();
    assert!(matches!(err, CommitError::DetachedHead), "{err}");
    assert!(err.to_string().contains("check out a branch"));
}

#[test]
fn commit_refuses_a_merge_in_progress() {
    let repo = Repo::new();
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.write("src/other.rs", "x\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "other"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.write("src/main_only.rs", "y\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "--no-commit", "other"]);
    repo.write(
        "memory-bank/progress.md",
        &format!("{PROGRESS}- Shipping\n"),
    );
    let mut session = repo.session();
    accept_progress(&mut session);
    let err = session.commit("memory").unwrap_err();
    assert!(matches!(err, CommitError::MergeInProgress), "{err}");
}

#[test]
fn commit_refuses_without_an_identity() {
    let repo = Repo::new();
    repo.write(
        "memory-bank/progress.md",
        &format!("{PROGRESS}- Shipping\n"),
    );
    let env: Vec<(OsString, OsString)> = repo
        .env()
        .into_iter()
        .filter(|(k, _)| {
            !k.to_string_lossy().ends_with("_NAME") && !k.to_string_lossy().ends_with("_EMAIL")
        })
        .chain([
            ("GIT_CONFIG_COUNT".into(), "1".into()),
            ("GIT_CONFIG_KEY_0".into(), "user.useConfigOnly".into()),
            ("GIT_CONFIG_VALUE_0".into(), "true".into()),
        ])
        .collect();
    let mut session = repo.session_with(env);
    accept_progress(&mut session);
    let err = session.commit("memory").unwrap_err();
    assert!(matches!(err, CommitError::NoIdentity(_)), "{err}");
    assert!(err.to_string().contains("user.email"));
    // Nothing was committed; the accepted change is still staged.
    assert_eq!(repo.git(&["log", "--format=%s"]).trim(), "start");
}

/// With `[review] run_git_hooks = true` the commit runs the user's hooks, and a refusal
/// is reported with the hook's output.
#[cfg(unix)]
#[test]
fn a_failing_hook_is_reported_with_its_output() {
    use std::os::unix::fs::PermissionsExt;
    let repo = Repo::new();
    let hook = repo.dir.join(".git/hooks/pre-commit");
    fs::create_dir_all(hook.parent().unwrap()).unwrap();
    fs::write(
        &hook,
        "#!/bin/sh\necho 'memory needs a ticket number' >&2\nexit 1\n",
    )
    .unwrap();
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    repo.write(
        "memory-bank/progress.md",
        &format!("{PROGRESS}- Shipping\n"),
    );
    let project = discovery::project_at(&repo.dir, "shop".into()).unwrap();
    let mut session = ReviewSession::open(
        &project,
        ReviewOptions {
            git_env: repo.env(),
            home: Some(repo.home.clone()),
            run_git_hooks: true,
            ..ReviewOptions::default()
        },
    )
    .unwrap();
    accept_progress(&mut session);
    match session.commit("memory") {
        Err(CommitError::HookFailed { output }) => {
            assert!(output.contains("memory needs a ticket number"), "{output}")
        }
        other => panic!("expected a hook failure, got {other:?}"),
    }
    assert_eq!(repo.git(&["log", "--format=%s"]).trim(), "start");

    // By default the repository's hooks never run: the same commit goes through.
    let mut session = repo.session();
    let outcome = session.commit("memory: shipping").unwrap();
    assert_eq!(outcome.files, vec!["memory-bank/progress.md".to_string()]);
    assert_eq!(
        repo.git(&["log", "--format=%s"]).trim(),
        "memory: shipping\nstart"
    );
    // The commit is an ordinary one: message cleaned, reflog written, index in step.
    assert_eq!(
        repo.git(&["log", "-1", "--format=%B"]),
        "memory: shipping\n\n"
    );
    assert!(
        repo.git(&["reflog", "-1"])
            .contains("commit: memory: shipping")
    );
    assert_eq!(
        repo.git(&["status", "--porcelain", "--", "memory-bank"]),
        ""
    );
}

#[test]
fn a_bank_in_a_subfolder_of_the_repository_is_reviewed() {
    let repo = Repo::new();
    repo.write("apps/web/memory-bank/progress.md", PROGRESS);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "web"]);
    repo.write(
        "apps/web/memory-bank/progress.md",
        &format!("{PROGRESS}- Web\n"),
    );
    let web = repo.dir.join("apps/web");
    let project = discovery::project_at(&web, "web".into()).unwrap();
    let mut session = ReviewSession::open(
        &project,
        ReviewOptions {
            git_env: repo.env(),
            ..ReviewOptions::default()
        },
    )
    .unwrap();
    let review = session.review().unwrap();
    assert_eq!(review.files.len(), 1);
    let progress = &review.files[0];
    assert_eq!(progress.display, "memory-bank/progress.md");
    session.accept_file(progress).unwrap();
    assert_eq!(
        repo.staged("apps/web/memory-bank/progress.md").unwrap(),
        format!("{PROGRESS}- Web\n")
    );
    let outcome = session.commit("memory: web").unwrap();
    assert_eq!(outcome.files, vec!["memory-bank/progress.md".to_string()]);
}
