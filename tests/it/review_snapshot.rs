//! Review outside git, end to end over temp folders: the first review lists every
//! memory file as new, "mark reviewed" takes the snapshot, agent edits then show against
//! it, accept moves hunks into the snapshot, reject reverts the work tree, undo works on
//! both, and a stale review is refused.
use std::fs;
use std::path::{Path, PathBuf};

use mbank::core::error::CoreError;
use mbank::core::review::{Baseline, ChangeKind, RejectOutcome, ReviewOptions, ReviewSession};
use mbank::core::scan::discovery;

const ACTIVE: &str = "# Active Context\n\nWorking on checkout.\n\n## Next\n\n- Payments\n";
const PROGRESS: &str = "# Progress\n\n## Done\n\n- Cart\n- Catalog\n\n## Left\n\n- Payments\n";

struct Bank {
    temp: tempfile::TempDir,
    project: PathBuf,
}

impl Bank {
    fn new() -> Bank {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path().join("plain").join("shop");
        fs::create_dir_all(project.join("memory-bank")).unwrap();
        let bank = Bank { temp, project };
        bank.write("activeContext.md", ACTIVE);
        bank.write("progress.md", PROGRESS);
        bank
    }

    fn write(&self, name: &str, text: &str) {
        fs::write(self.project.join("memory-bank").join(name), text).unwrap();
    }

    fn read(&self, name: &str) -> Option<String> {
        fs::read_to_string(self.project.join("memory-bank").join(name)).ok()
    }

    fn data(&self) -> PathBuf {
        self.temp.path().join("data")
    }

    fn session(&self) -> ReviewSession {
        let project = discovery::project_at(&self.project, "shop".into()).unwrap();
        ReviewSession::open(
            &project,
            ReviewOptions {
                data_dir: Some(self.data()),
                home: Some(self.temp.path().join("home")),
                ..ReviewOptions::default()
            },
        )
        .unwrap()
    }
}

fn snapshot_copy_count(data: &Path) -> usize {
    let snapshots = data.join("snapshots");
    let Ok(projects) = fs::read_dir(&snapshots) else {
        return 0;
    };
    projects
        .flatten()
        .flat_map(|p| fs::read_dir(p.path()).unwrap().flatten())
        .filter(|e| e.path().is_dir())
        .map(|g| fs::read_dir(g.path()).unwrap().count())
        .sum()
}

#[test]
fn the_snapshot_flow_end_to_end() {
    let bank = Bank::new();
    if mbank::core::git::GitRepo::discover(&bank.project).is_some() {
        eprintln!("temp folder is inside a git repository; snapshot flow not testable here");
        return;
    }
    let mut session = bank.session();
    // No snapshot yet: everything is new.
    let review = session.review().unwrap();
    assert!(matches!(
        review.baseline,
        Baseline::Snapshot { exists: false, .. }
    ));
    assert_eq!(review.files.len(), 2);
    assert!(review.files.iter().all(|f| f.change == ChangeKind::Added));

    assert_eq!(session.mark_reviewed().unwrap(), 2);
    assert_eq!(snapshot_copy_count(&bank.data()), 2);
    let review = session.review().unwrap();
    assert!(review.is_empty());
    assert!(matches!(
        review.baseline,
        Baseline::Snapshot {
            exists: true,
            reviewed_at: Some(_),
            ..
        }
    ));

    // The agent edits two places of progress, and adds a file.
    let edited = PROGRESS.replace("# Progress", "# Progress (agent)") + "- Shipping\n";
    bank.write("progress.md", &edited);
    bank.write("techContext.md", "# Tech\n\nRust.\n");
    let mut session = bank.session();
    let review = session.review().unwrap();
    let names: Vec<_> = review
        .files
        .iter()
        .map(|f| (f.display.as_str(), f.change))
        .collect();
    assert_eq!(
        names,
        vec![
            ("memory-bank/progress.md", ChangeKind::Modified),
            ("memory-bank/techContext.md", ChangeKind::Added),
        ]
    );
    let progress = &review.files[0];
    assert_eq!(progress.diff.hunks.len(), 2);
    let (first, second) = (progress.diff.hunks[0].id, progress.diff.hunks[1].id);

    // Accept the append: it moves into the snapshot, the work tree is untouched.
    session.accept_hunk(progress, second).unwrap();
    assert_eq!(bank.read("progress.md").unwrap(), edited);
    let review = session.review().unwrap();
    let progress = &review.files[0];
    assert_eq!(progress.diff.hunks.len(), 1);
    assert_eq!(progress.diff.hunks[0].id, first);
    assert_eq!(
        progress.accepted.as_deref().unwrap(),
        format!("{PROGRESS}- Shipping\n")
    );

    // Reject the heading change: the work tree loses it; nothing is left to review.
    session.reject_hunk(progress, first).unwrap();
    assert_eq!(
        bank.read("progress.md").unwrap(),
        format!("{PROGRESS}- Shipping\n")
    );
    let review = session.review().unwrap();
    assert_eq!(review.files.len(), 1, "only the new file is left");

    // Undo the reject, then the accept.
    session.undo().unwrap();
    assert_eq!(bank.read("progress.md").unwrap(), edited);
    session.undo().unwrap();
    let review = session.review().unwrap();
    assert_eq!(review.files[0].diff.hunks.len(), 2);

    // Reject the new file: confirmation first, then it is gone.
    let new = review
        .file(&bank.project.join("memory-bank/techContext.md"))
        .unwrap();
    assert!(matches!(
        session.reject_file(new, false).unwrap(),
        RejectOutcome::NeedsConfirmation(_)
    ));
    session.reject_file(new, true).unwrap();
    assert!(bank.read("techContext.md").is_none());

    // Mark reviewed takes the current state whole.
    session.mark_reviewed().unwrap();
    assert!(session.review().unwrap().is_empty());
    assert_eq!(
        snapshot_copy_count(&bank.data()),
        2,
        "old generation removed"
    );

    // A deleted file is restored from the snapshot by rejecting it.
    fs::remove_file(bank.project.join("memory-bank/activeContext.md")).unwrap();
    let review = session.review().unwrap();
    let deleted = &review.files[0];
    assert_eq!(deleted.change, ChangeKind::Deleted);
    session.reject_file(deleted, false).unwrap();
    assert_eq!(bank.read("activeContext.md").unwrap(), ACTIVE);
}

#[test]
fn stale_reviews_are_refused_outside_git_too() {
    let bank = Bank::new();
    if mbank::core::git::GitRepo::discover(&bank.project).is_some() {
        eprintln!("temp folder is inside a git repository; skipped");
        return;
    }
    let mut session = bank.session();
    session.mark_reviewed().unwrap();
    bank.write("progress.md", &format!("{PROGRESS}- Shipping\n"));
    let review = session.review().unwrap();
    let progress = &review.files[0];
    bank.write("progress.md", &format!("{PROGRESS}- Shipping\n- Taxes\n"));
    let err = session
        .accept_hunk(progress, progress.diff.hunks[0].id)
        .unwrap_err();
    assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
    // The snapshot kept its old text: the fresh review shows both lines as new.
    let fresh = session.review().unwrap();
    assert_eq!(fresh.files[0].added, 2);
    // Commit is a git-only action.
    assert!(session.commit("x").is_err());
}
