use std::fs;

use chrono::NaiveDate;

use super::*;
use crate::agent::bank::{MarkdownBank, WriteMode};
use crate::agent::entries::NewDecision;
use crate::init::{self, InitFormat};
use crate::write::WriteContext;

struct Fixture {
    _dir: tempfile::TempDir,
    data: PathBuf,
    project: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("app");
        init::init_bank(&project, InitFormat::Cline, None).unwrap();
        fs::write(
            project.join("memory-bank/activeContext.md"),
            "# Active Context\none\ntwo\nthree\nfour\nfive\n",
        )
        .unwrap();
        Fixture {
            data: dir.path().join("data"),
            project: fs::canonicalize(&project).unwrap(),
            _dir: dir,
        }
    }

    fn store(&self) -> ProposalStore {
        ProposalStore::new(&self.data)
    }

    /// The root the project lies in.
    fn root(&self) -> &Path {
        self._dir.path()
    }

    fn staged_bank(&self, store: &ProposalStore) -> MarkdownBank {
        MarkdownBank::open(&self.project)
            .unwrap()
            .with_staging(Some(store.clone()))
    }

    fn active(&self) -> String {
        fs::read_to_string(self.project.join("memory-bank/activeContext.md")).unwrap()
    }

    fn set_active(&self, text: &str) {
        fs::write(self.project.join("memory-bank/activeContext.md"), text).unwrap();
    }
}

/// An agent's write.
fn agent() -> WriteContext {
    WriteContext::new("mcp:test", crate::clock::Clock::system())
}

const EDITED: &str = "# Active Context\nONE\ntwo\nthree\nfour\nFIVE\n";

fn now() -> chrono::NaiveDateTime {
    NaiveDate::from_ymd_opt(2026, 4, 1)
        .unwrap()
        .and_hms_opt(12, 0, 0)
        .unwrap()
}

fn stage_edit(fixture: &Fixture, store: &ProposalStore) -> u64 {
    let report = fixture
        .staged_bank(store)
        .write(
            &agent(),
            "activeContext.md",
            EDITED,
            WriteMode::Update,
            None,
        )
        .unwrap();
    report.proposal.expect("staged")
}

#[test]
fn a_staged_write_leaves_the_file_alone_until_accepted() {
    let fixture = Fixture::new();
    let store = fixture.store();
    let before = fixture.active();
    let id = stage_edit(&fixture, &store);
    assert_eq!(fixture.active(), before, "staging never touches the file");
    let listed = store.list().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].state, State::Pending);
    assert_eq!(listed[0].file, "activeContext.md");
    assert_eq!(listed[0].hunks().len(), 2);
    let (decided, report) = store.accept(&agent(), fixture.root(), id, None).unwrap();
    assert_eq!(decided.state, State::Accepted);
    assert_eq!(report.proposal, None);
    assert_eq!(fixture.active(), EDITED);
    assert!(matches!(
        store.accept(&agent(), fixture.root(), id, None),
        Err(ProposalError::Decided {
            state: State::Accepted,
            ..
        })
    ));
}

#[test]
fn proposals_survive_a_restart_and_ids_are_never_reused() {
    let fixture = Fixture::new();
    let first = stage_edit(&fixture, &fixture.store());
    let second = stage_edit(&fixture, &fixture.store());
    // A new store over the same folder: a restarted server or the CLI.
    let again = ProposalStore::new(&fixture.data);
    let ids: Vec<u64> = again.list().unwrap().iter().map(|p| p.id).collect();
    assert_eq!(ids, [first, second]);
    again.reject(second).unwrap();
    assert_eq!(again.get(second).unwrap().state, State::Rejected);
    // Once every file of the old ones is pruned, a new id is still new.
    let bounded = ProposalStore::new(&fixture.data).with_bounds(Bounds {
        keep_decided: 0,
        ..Bounds::default()
    });
    bounded.reject(first).unwrap();
    assert!(bounded.list().unwrap().is_empty());
    let third = stage_edit(&fixture, &bounded);
    assert!(third > second, "{third} after {second}");
}

#[test]
fn bounds_refuse_new_proposals_and_never_drop_pending_ones() {
    let fixture = Fixture::new();
    let store = fixture.store().with_bounds(Bounds {
        max_pending: 3,
        max_proposal_bytes: 64 * 1024,
        max_pending_bytes: 1024 * 1024,
        keep_decided: 2,
    });
    let ids: Vec<u64> = (0..3).map(|_| stage_edit(&fixture, &store)).collect();
    let bank = fixture.staged_bank(&store);
    let err = bank
        .write(
            &agent(),
            "activeContext.md",
            EDITED,
            WriteMode::Update,
            None,
        )
        .unwrap_err();
    assert_eq!(err.code(), "proposal_limit", "{err}");
    assert_eq!(store.list().unwrap().len(), 3);
    // A decision makes room again.
    store.reject(ids[0]).unwrap();
    stage_edit(&fixture, &store);
    // One proposal over its size limit is refused whole.
    let big = format!("# Active Context\n{}\n", "x".repeat(70 * 1024));
    store.reject(ids[1]).unwrap();
    let err = bank
        .write(&agent(), "activeContext.md", &big, WriteMode::Update, None)
        .unwrap_err();
    assert_eq!(err.code(), "proposal_limit", "{err}");
    // Decided ones beyond keep_decided are pruned, oldest first; pending ones stay.
    store.reject(ids[2]).unwrap();
    let states: Vec<(u64, State)> = store
        .list()
        .unwrap()
        .iter()
        .map(|p| (p.id, p.state))
        .collect();
    assert_eq!(states.len(), 3, "{states:?}");
    assert!(!states.iter().any(|(id, _)| *id == ids[0]), "{states:?}");
    assert_eq!(
        states.iter().filter(|(_, s)| *s == State::Pending).count(),
        1
    );
}

#[test]
fn accepting_some_hunks_applies_only_those() {
    let fixture = Fixture::new();
    let store = fixture.store();
    let id = stage_edit(&fixture, &store);
    let (decided, _) = store
        .accept(&agent(), fixture.root(), id, Some(&[2]))
        .unwrap();
    assert_eq!(decided.accepted_hunks, Some(vec![2]));
    assert_eq!(
        fixture.active(),
        "# Active Context\none\ntwo\nthree\nfour\nFIVE\n"
    );
    let id = stage_edit(&fixture, &store);
    assert!(matches!(
        store.accept(&agent(), fixture.root(), id, Some(&[3])),
        Err(ProposalError::NoSuchHunk { count: 1, .. })
    ));
}

#[test]
fn a_person_may_edit_a_proposal_before_accepting_it_and_the_guard_still_applies() {
    let fixture = Fixture::new();
    let store = fixture.store();
    let id = stage_edit(&fixture, &store);
    let edited = "# Active Context\nONE, reworded\ntwo\nthree\nfour\nfive\n";
    let (decided, _) = store
        .accept_edited(&agent(), fixture.root(), id, edited)
        .unwrap();
    assert_eq!(decided.state, State::Accepted);
    assert_eq!(fixture.active(), edited);
    let id = stage_edit(&fixture, &store);
    let leaky = format!("{edited}token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB\n");
    let err = store
        .accept_edited(&agent(), fixture.root(), id, &leaky)
        .unwrap_err();
    assert!(
        matches!(&err, ProposalError::Agent(e) if e.code() == "secret_detected"),
        "{err}"
    );
    assert_eq!(fixture.active(), edited);
}

#[test]
fn a_file_changed_since_is_merged_or_reported_as_a_conflict_never_overwritten() {
    let fixture = Fixture::new();
    let store = fixture.store();
    // Someone changes another line meanwhile: the proposal merges in.
    let id = stage_edit(&fixture, &store);
    fixture.set_active("# Active Context\none\ntwo\nthree, edited by hand\nfour\nfive\n");
    store.accept(&agent(), fixture.root(), id, None).unwrap();
    assert_eq!(
        fixture.active(),
        "# Active Context\nONE\ntwo\nthree, edited by hand\nfour\nFIVE\n"
    );
    // Someone changes the very line the proposal changes: a conflict, nothing written.
    fixture.set_active("# Active Context\none\ntwo\nthree\nfour\nfive\n");
    let id = stage_edit(&fixture, &store);
    let by_hand = "# Active Context\nuno\ntwo\nthree\nfour\nfive\n";
    fixture.set_active(by_hand);
    match store.accept(&agent(), fixture.root(), id, None) {
        Err(ProposalError::Conflict {
            conflicts, merged, ..
        }) => {
            assert_eq!(conflicts, 1);
            assert!(merged.contains("uno") && merged.contains("ONE"), "{merged}");
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert_eq!(fixture.active(), by_hand);
    assert_eq!(store.get(id).unwrap().state, State::Pending);
}

#[test]
fn staged_entries_are_added_to_the_file_as_it_is_when_accepted() {
    let fixture = Fixture::new();
    let store = fixture.store();
    let bank = fixture.staged_bank(&store);
    let decision = |title: &str| NewDecision {
        title: title.into(),
        context: "c".into(),
        decision: "d".into(),
        ..NewDecision::default()
    };
    let policy = agent();
    let first = bank
        .log_decision(&policy, now(), &decision("Use JWT"))
        .unwrap();
    let second = bank
        .log_decision(&policy, now(), &decision("Use Postgres"))
        .unwrap();
    let progress = bank
        .track_progress(&policy, now(), "Implementation", "Feature X", false)
        .unwrap();
    let log = fs::read_to_string(fixture.project.join("memory-bank/decisionLog.md")).unwrap();
    assert!(!log.contains("Use JWT"), "nothing lands before acceptance");
    // Accepted in the other order: both land, neither conflicts with the other.
    for report in [&second, &first, &progress[0]] {
        store
            .accept(&policy, fixture.root(), report.proposal.unwrap(), None)
            .unwrap();
    }
    let log = fs::read_to_string(fixture.project.join("memory-bank/decisionLog.md")).unwrap();
    assert!(
        log.contains("Use JWT") && log.contains("Use Postgres"),
        "{log}"
    );
    let progress = fs::read_to_string(fixture.project.join("memory-bank/progress.md")).unwrap();
    assert!(progress.contains("Implementation: Feature X"), "{progress}");
}

#[test]
fn accepting_runs_the_guard_again() {
    let fixture = Fixture::new();
    let store = fixture.store();
    let path = fixture.project.join("memory-bank/activeContext.md");
    let base = fixture.active();
    // A proposal that never passed the guard (written into the store by hand).
    let proposal = store
        .stage(NewProposal {
            project: fixture.project.clone(),
            file: "activeContext.md".into(),
            path,
            via: "test".into(),
            client: None,
            proposed: Some(format!(
                "{base}token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB\n"
            )),
            base: Some(base.clone()),
            change: ProposedChange::Replace,
        })
        .unwrap();
    let err = store
        .accept(&agent(), fixture.root(), proposal.id, None)
        .unwrap_err();
    assert!(
        matches!(&err, ProposalError::Agent(e) if e.code() == "secret_detected"),
        "{err}"
    );
    assert_eq!(fixture.active(), base);
    assert_eq!(store.get(proposal.id).unwrap().state, State::Pending);
}

#[test]
fn a_staged_deletion_removes_the_file_only_when_accepted() {
    let fixture = Fixture::new();
    let store = fixture.store();
    let bank = fixture.staged_bank(&store);
    let id = bank
        .delete(&agent(), "activeContext.md", None)
        .unwrap()
        .expect("staged");
    assert!(
        fixture
            .project
            .join("memory-bank/activeContext.md")
            .exists()
    );
    store.accept(&agent(), fixture.root(), id, None).unwrap();
    assert!(
        !fixture
            .project
            .join("memory-bank/activeContext.md")
            .exists()
    );
}

#[test]
fn a_proposal_file_replaced_by_a_link_is_not_followed() {
    let fixture = Fixture::new();
    let store = fixture.store();
    let id = stage_edit(&fixture, &store);
    let folder = fixture.data.join(FOLDER);
    let name = file_name(id, State::Pending);
    let outside = fixture.data.join("elsewhere.json");
    fs::rename(folder.join(&name), &outside).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, folder.join(&name)).unwrap();
        // Named as unreadable and skipped, not read through the link.
        let listing = store.listing().unwrap();
        assert!(listing.proposals.is_empty());
        assert_eq!(listing.unreadable.len(), 1);
        assert!(listing.unreadable[0].path.ends_with(&name));
        assert!(store.accept(&agent(), fixture.root(), id, None).is_err());
        assert_eq!(
            fixture.active(),
            "# Active Context\none\ntwo\nthree\nfour\nfive\n"
        );
    }
}

#[test]
fn staged_infinity_memories_are_applied_to_the_store_as_it_is_when_accepted() {
    use crate::agent::infinity;
    let fixture = Fixture::new();
    let store = fixture.store();
    let policy = agent();
    let direct = infinity::activate(&fixture.project).unwrap();
    let kept = direct
        .store(&policy, "Kept", "rules", "keep me")
        .unwrap()
        .id;
    let project = direct.clone().with_staging(Some(store.clone()));
    let store_path = fixture.project.join(".infinity/memories.json");
    let before = fs::read_to_string(&store_path).unwrap();
    let first = project.store(&policy, "First", "analysis", "one").unwrap();
    let second = project.store(&policy, "Second", "analysis", "two").unwrap();
    let changed = project
        .update(&policy, &kept, "kept, reworded", None)
        .unwrap();
    assert_eq!(fs::read_to_string(&store_path).unwrap(), before);
    assert!(
        direct.get(&first.id).is_err(),
        "nothing lands before acceptance"
    );
    // Accepted out of order: each is applied to the store as it is then.
    for id in [second.proposal, first.proposal, changed] {
        let (decided, _) = store
            .accept(&policy, fixture.root(), id.unwrap(), None)
            .unwrap();
        assert_eq!(decided.kind(), "memory");
    }
    assert_eq!(direct.get(&first.id).unwrap().content, "one");
    assert_eq!(direct.get(&second.id).unwrap().content, "two");
    assert_eq!(direct.get(&kept).unwrap().content, "kept, reworded");
    // A memory removed meanwhile: its staged change conflicts, nothing is written.
    let update = project.update(&policy, &first.id, "late", None).unwrap();
    direct.delete(&policy, &first.id).unwrap();
    let after_delete = fs::read_to_string(&store_path).unwrap();
    assert!(matches!(
        store.accept(&policy, fixture.root(), update.unwrap(), None),
        Err(ProposalError::Conflict { .. })
    ));
    assert_eq!(fs::read_to_string(&store_path).unwrap(), after_delete);
}

#[test]
fn staging_is_chosen_for_the_root_and_overridden_per_project() {
    let store = ProposalStore::new("/data");
    let mut staging = Staging {
        writes: Writes::Stage,
        projects: BTreeMap::from([("scratch".to_string(), Writes::Direct)]),
        store: Some(store.clone()),
    };
    assert_eq!(staging.store_for("app"), Some(&store));
    assert_eq!(staging.store_for("scratch"), None);
    staging.writes = Writes::Direct;
    staging.projects = BTreeMap::from([("app".to_string(), Writes::Stage)]);
    assert!(staging.any());
    assert_eq!(staging.store_for("app"), Some(&store));
    assert_eq!(staging.store_for("other"), None);
    staging.projects.clear();
    assert!(!staging.any());
}

#[test]
fn pending_ids_come_from_the_listing_and_leave_out_decided_and_half_decided_ones() {
    let fixture = Fixture::new();
    let store = fixture.store();
    let ids: Vec<u64> = (0..3).map(|_| stage_edit(&fixture, &store)).collect();
    assert_eq!(store.pending_ids().unwrap(), ids);
    store.reject(ids[1]).unwrap();
    assert_eq!(store.pending_ids().unwrap(), [ids[0], ids[2]]);
    // A decision cut short after its decided file was written: both files are there.
    let folder = store.folder_path();
    let decided = store.get(ids[1]).unwrap();
    let mut copy = decided.clone();
    copy.id = ids[2];
    fs::write(
        folder.join(file_name(ids[2], State::Rejected)),
        serde_json::to_vec(&copy).unwrap(),
    )
    .unwrap();
    assert_eq!(store.pending_ids().unwrap(), [ids[0]]);
    assert_eq!(
        store
            .list()
            .unwrap()
            .iter()
            .filter(|p| p.state == State::Pending)
            .count(),
        1,
        "the listing agrees with list()"
    );
}

#[test]
fn a_forged_proposal_for_a_project_outside_the_root_is_refused() {
    let fixture = Fixture::new();
    let store = fixture.store();
    let id = stage_edit(&fixture, &store);
    // A bank outside the root, named by a proposal file someone wrote by hand.
    let elsewhere = tempfile::tempdir().unwrap();
    let victim = elsewhere.path().join("victim");
    init::init_bank(&victim, InitFormat::Cline, None).unwrap();
    let victim_file = victim.join("memory-bank/activeContext.md");
    let victim_before = fs::read_to_string(&victim_file).unwrap();
    let path = fixture
        .data
        .join(FOLDER)
        .join(file_name(id, State::Pending));
    let mut forged: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    forged["project"] = serde_json::json!(fs::canonicalize(&victim).unwrap());
    fs::write(&path, serde_json::to_vec(&forged).unwrap()).unwrap();
    let err = store
        .accept(&agent(), fixture.root(), id, None)
        .unwrap_err();
    assert!(matches!(err, ProposalError::Outside { .. }), "{err}");
    assert!(
        err.to_string().contains("outside the memory bank root"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&victim_file).unwrap(), victim_before);
    // Still pending: a person may reject it.
    assert_eq!(store.get(id).unwrap().state, State::Pending);
    // Under a root that holds it, it is no longer refused for where it goes (the file
    // differs from the proposal's base, so it is merged: a conflict here).
    let under = store.accept(&agent(), elsewhere.path(), id, None);
    assert!(
        !matches!(under, Err(ProposalError::Outside { .. })),
        "{under:?}"
    );
}

#[test]
fn one_unreadable_proposal_file_is_named_and_the_rest_are_listed() {
    let fixture = Fixture::new();
    let store = fixture.store();
    let first = stage_edit(&fixture, &store);
    let folder = fixture.data.join(FOLDER);
    // A corrupt file, a pipe and a link, each under a proposal's name.
    fs::write(
        folder.join(file_name(first + 10, State::Pending)),
        "{ not json",
    )
    .unwrap();
    #[cfg(unix)]
    {
        let made = std::process::Command::new("mkfifo")
            .arg(folder.join(file_name(first + 11, State::Pending)))
            .status()
            .unwrap();
        assert!(made.success());
        std::os::unix::fs::symlink(
            folder.join(file_name(first, State::Pending)),
            folder.join(file_name(first + 12, State::Pending)),
        )
        .unwrap();
    }
    let listing = store.listing().unwrap();
    assert_eq!(
        listing.proposals.iter().map(|p| p.id).collect::<Vec<_>>(),
        [first]
    );
    let expected = if cfg!(unix) { 3 } else { 1 };
    assert_eq!(
        listing.unreadable.len(),
        expected,
        "{:?}",
        listing.unreadable
    );
    assert_eq!(store.list().unwrap().len(), 1);
}
