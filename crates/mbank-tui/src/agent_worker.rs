//! What agent servers did while the TUI is open: the writes they staged as proposals and
//! the writes they were refused. One long-lived thread reads the proposal store and the
//! refusal logs when the watcher says they changed, diffs each new proposal once, and
//! carries out a person's decisions (accept, some hunks, an edited text, reject) through
//! the core's guarded write path. Nothing here runs on the drawing thread.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;

use mbank_core::agent::proposals::{Proposal, ProposalError, ProposalStore, State};
use mbank_core::guard::refusals::{self, RefusalRecord};
use mbank_core::model::{Format, Role};
use mbank_core::review::{ChangeKind, DiffLine, FileDiff, FileReview, Hunk, HunkId, LineKind};
use mbank_core::write::WriteContext;

use super::protocol::ProposalDecision;

/// Context lines shown around each change of a proposal.
const CONTEXT: usize = 3;

/// A pending proposal as the review shows it: its diff has one hunk per change the
/// proposal numbers (hunk `i` of the diff is the proposal's hunk `i + 1`), so the hunk
/// under the cursor is the one accepted.
#[derive(Debug)]
pub struct ProposalView {
    pub proposal: Proposal,
    /// The listed project it belongs to (as the picker names its folder).
    pub project: PathBuf,
    pub review: FileReview,
}

/// What the worker is asked.
#[derive(Debug)]
pub enum AgentRequest {
    /// Read the store again, and the refusal logs of these listed projects: those the
    /// watcher saw change among `changed` (`None`: every log).
    Scan {
        projects: Vec<PathBuf>,
        changed: Option<Vec<PathBuf>>,
    },
    Decide(ProposalDecision),
    /// The person looked at a listed project's refusals up to this mark: kept in the
    /// data folder, so the next session's badges count only what came after.
    Seen {
        project: PathBuf,
        mark: SeenMark,
    },
}

/// How far a person looked at a project's refusals: the time of the newest one seen,
/// and how many with that very time (several can share a second).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SeenMark {
    pub at: String,
    pub same: usize,
}

impl SeenMark {
    /// The mark after looking at `records` (oldest first).
    pub fn of(records: &[RefusalRecord]) -> SeenMark {
        let Some(newest) = records.iter().map(|r| r.at.as_str()).max() else {
            return SeenMark::default();
        };
        SeenMark {
            at: newest.to_string(),
            same: records.iter().filter(|r| r.at == newest).count(),
        }
    }

    /// How many of `records` came after the mark.
    pub fn unseen(&self, records: &[RefusalRecord]) -> usize {
        let later = records
            .iter()
            .filter(|r| r.at.as_str() > self.at.as_str())
            .count();
        let same = records.iter().filter(|r| r.at == self.at).count();
        later + same.saturating_sub(self.same)
    }
}

/// Where the marks are kept: `<data dir>/tui/refusals-seen.json`, by real project path.
const SEEN_FOLDER: &str = "tui";
const SEEN_FILE: &str = "refusals-seen.json";
/// The marks file is read up to this size (one mark a project looked at).
const SEEN_LIMIT: u64 = 4 * 1024 * 1024;

/// What the worker reports.
#[derive(Debug)]
pub enum AgentEvent {
    /// Every pending proposal of a listed project, and the refusals (oldest first) of
    /// the listed projects whose logs were read: every project with any when `all`, else
    /// those whose log changed (an empty list: it has none now). With `all`, the marks
    /// of what the person looked at, kept from earlier sessions.
    Scanned {
        proposals: Vec<Arc<ProposalView>>,
        refusals: HashMap<PathBuf, Vec<RefusalRecord>>,
        all: bool,
        seen: HashMap<PathBuf, SeenMark>,
    },
    /// A decision was carried out (`Ok`: what was done) or not.
    Decided {
        id: u64,
        result: Result<String, DecideError>,
    },
}

/// Why a decision did not happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecideError {
    /// The file changed since the proposal was made, in the lines it changes: nothing
    /// was written.
    Conflict(String),
    Other(String),
}

pub struct AgentWorker {
    requests: Sender<AgentRequest>,
    data_dir: Option<PathBuf>,
}

impl AgentWorker {
    /// `data_dir` holds the proposal store and the refusal logs (`None`: none known,
    /// nothing to show). Each event goes to `report`, which says false once nobody
    /// listens any more (the worker then ends); the worker knows nothing of the app's
    /// messages.
    pub fn spawn(
        data_dir: Option<PathBuf>,
        root: PathBuf,
        accept: WriteContext,
        report: impl Fn(AgentEvent) -> bool + Send + 'static,
    ) -> AgentWorker {
        let (requests, inbox) = mpsc::channel();
        let dir = data_dir.clone();
        thread::spawn(move || {
            if let Some(dir) = &dir {
                make_folders(dir);
            }
            agent_loop(dir, root, accept, &inbox, &report)
        });
        AgentWorker { requests, data_dir }
    }

    pub fn send(&self, request: AgentRequest) {
        let _ = self.requests.send(request);
    }

    /// The folders to watch: the proposal store's and the refusal logs'.
    pub fn folders(&self) -> Vec<PathBuf> {
        match &self.data_dir {
            Some(dir) => vec![ProposalStore::new(dir).folder_path(), refusal_folder(dir)],
            None => Vec::new(),
        }
    }

    /// Whether a changed path is the store's or a refusal log's.
    pub fn owns(&self, path: &Path) -> bool {
        self.folders().iter().any(|f| path.starts_with(f))
    }
}

/// The refusal logs' folder, where [`refusals::log_path_in`] places them.
fn refusal_folder(data_dir: &Path) -> PathBuf {
    refusals::log_path_in(data_dir, Path::new("/"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| data_dir.join("refusals"))
}

/// Creates the two folders (owner-only) so they can be watched before any server wrote.
fn make_folders(data_dir: &Path) {
    #[cfg(unix)]
    use std::os::unix::fs::DirBuilderExt;
    for folder in [
        ProposalStore::new(data_dir).folder_path(),
        refusal_folder(data_dir),
    ] {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        builder.mode(0o700);
        // A folder that cannot be made is simply not watched; reads report the rest.
        let _ = builder.create(&folder);
    }
}

struct Worker {
    data_dir: Option<PathBuf>,
    /// The memory bank root: an accepted proposal must write inside it.
    root: PathBuf,
    /// How an accepted proposal is written (its rules, history and clock, which also
    /// dates a decision on a proposal).
    accept: WriteContext,
    /// Diffed proposals by id (a pending proposal never changes).
    views: HashMap<u64, Arc<ProposalView>>,
    /// The listed projects of the last scan.
    projects: Vec<Listed>,
    /// Every log is to be read at the next scan (the first, a new project list).
    read_all: bool,
    /// Names of the logs the watcher saw change since the last scan.
    changed_logs: std::collections::HashSet<std::ffi::OsString>,
    /// The marks of what the person looked at, by real project path.
    seen: HashMap<PathBuf, SeenMark>,
}

/// A listed project: its folder as the picker names it, its real path, and the file
/// name of its refusal log (worked out once per list, not at every read).
struct Listed {
    path: PathBuf,
    real: PathBuf,
    log: Option<std::ffi::OsString>,
}

fn agent_loop(
    data_dir: Option<PathBuf>,
    root: PathBuf,
    accept: WriteContext,
    inbox: &Receiver<AgentRequest>,
    report: &dyn Fn(AgentEvent) -> bool,
) {
    let mut state = Worker {
        data_dir,
        root,
        accept,
        views: HashMap::new(),
        projects: Vec::new(),
        read_all: true,
        changed_logs: Default::default(),
        seen: HashMap::new(),
    };
    if let Some(dir) = &state.data_dir {
        state.seen = read_seen(dir);
    }
    while let Ok(request) = inbox.recv() {
        // Scans queued behind a slow one collapse into one.
        let mut batch = vec![request];
        while let Ok(more) = inbox.try_recv() {
            batch.push(more);
        }
        for request in batch {
            let event = match request {
                AgentRequest::Scan { projects, changed } => {
                    match changed {
                        None => state.read_all = true,
                        Some(paths) => state
                            .changed_logs
                            .extend(paths.iter().filter_map(|p| p.file_name()).map(Into::into)),
                    }
                    let same = projects.len() == state.projects.len()
                        && projects
                            .iter()
                            .zip(&state.projects)
                            .all(|(p, known)| *p == known.path);
                    if !same {
                        state.read_all = true;
                        state.projects = projects
                            .into_iter()
                            .map(|path| listed_project(state.data_dir.as_deref(), path))
                            .collect();
                    }
                    continue;
                }
                AgentRequest::Decide(decision) => decide(&state, decision),
                AgentRequest::Seen { project, mark } => {
                    let real = std::fs::canonicalize(&project).unwrap_or(project);
                    if state.seen.get(&real) != Some(&mark) {
                        state.seen.insert(real, mark);
                        if let Some(dir) = &state.data_dir {
                            // Lost, the marks only make old refusals count again.
                            let _ = write_seen(dir, &state.seen);
                        }
                    }
                    continue;
                }
            };
            if !report(event) {
                return;
            }
        }
        if !report(scan(&mut state)) {
            return;
        }
    }
}

fn accepted_words(proposal: &Proposal) -> String {
    match &proposal.accepted_hunks {
        Some(hunks) => format!(
            "accepted hunk{} {} of proposal {} into {}",
            if hunks.len() == 1 { "" } else { "s" },
            hunks
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            proposal.id,
            proposal.file
        ),
        None => format!("accepted proposal {} into {}", proposal.id, proposal.file),
    }
}

fn decide(state: &Worker, decision: ProposalDecision) -> AgentEvent {
    let id = decision.id();
    let Some(dir) = &state.data_dir else {
        return AgentEvent::Decided {
            id,
            result: Err(DecideError::Other("no data folder for proposals".into())),
        };
    };
    let store = ProposalStore::new(dir).with_clock(state.accept.clock);
    let ctx = &state.accept;
    let result = match decision {
        ProposalDecision::Accept { hunks, .. } => store
            .accept(ctx, &state.root, id, hunks.as_deref())
            .map(|(p, _)| accepted_words(&p)),
        ProposalDecision::AcceptEdited { text, .. } => store
            .accept_edited(ctx, &state.root, id, &text)
            .map(|(p, _)| format!("accepted proposal {id} as edited into {}", p.file)),
        ProposalDecision::Reject { .. } => store
            .reject(id)
            .map(|p| format!("rejected proposal {id} ({}): the file is as it was", p.file)),
    };
    AgentEvent::Decided {
        id,
        result: result.map_err(|e| match e {
            ProposalError::Conflict { .. } => DecideError::Conflict(e.to_string()),
            other => DecideError::Other(other.to_string()),
        }),
    }
}

fn listed_project(data_dir: Option<&Path>, path: PathBuf) -> Listed {
    let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    let log = data_dir.and_then(|dir| {
        refusals::log_path_in(dir, &real)
            .file_name()
            .map(|n| n.to_os_string())
    });
    Listed { path, real, log }
}

/// The listed project a proposal belongs to.
fn listed(projects: &[Listed], project: &Path) -> Option<PathBuf> {
    projects
        .iter()
        .find(|p| p.real == project || p.path == project)
        .map(|p| p.path.clone())
}

fn scan(state: &mut Worker) -> AgentEvent {
    let mut proposals = Vec::new();
    let mut refusals = HashMap::new();
    let all = std::mem::take(&mut state.read_all);
    let changed = std::mem::take(&mut state.changed_logs);
    if let Some(dir) = &state.data_dir {
        let store = ProposalStore::new(dir);
        let pending = store.pending_ids().unwrap_or_default();
        state.views.retain(|id, _| pending.contains(id));
        for id in pending {
            // A pending proposal never changes: each is read and diffed once.
            let view = match state.views.get(&id) {
                Some(view) => view.clone(),
                None => {
                    let Ok(proposal) = store.get(id) else {
                        continue;
                    };
                    let Some(project) = listed(&state.projects, &proposal.project) else {
                        continue;
                    };
                    if proposal.state != State::Pending {
                        continue;
                    }
                    let view = Arc::new(view_of(proposal, project));
                    state.views.insert(id, view.clone());
                    view
                }
            };
            proposals.push(view);
        }
        // Only logs that exist are read (most projects have none).
        // Listed through the data folder's handle, no link followed (as the logs are read).
        let present: std::collections::HashSet<std::ffi::OsString> =
            mbank_core::io::dir_handle::Dir::open_anchor(dir)
                .and_then(|data| {
                    let folder = refusal_folder(dir);
                    data.open_dir(folder.strip_prefix(dir).unwrap_or(&folder))
                })
                .and_then(|folder| folder.names())
                .map(|names| names.into_iter().collect())
                .unwrap_or_default();
        for project in &state.projects {
            let Some(log) = &project.log else {
                continue;
            };
            // The log, or its rotated half (`<name>.1.jsonl`).
            let rotated = Path::new(log).with_extension("1.jsonl").into_os_string();
            if !all && !changed.contains(log) && !changed.contains(&rotated) {
                continue;
            }
            if !present.contains(log) && !present.contains(&rotated) {
                if !all {
                    refusals.insert(project.path.clone(), Vec::new());
                }
                continue;
            }
            if let Ok(records) = refusals::read_in(dir, &project.real) {
                refusals.insert(project.path.clone(), records);
            }
        }
    }
    let seen = if all {
        state
            .projects
            .iter()
            .filter_map(|p| Some((p.path.clone(), state.seen.get(&p.real)?.clone())))
            .collect()
    } else {
        HashMap::new()
    };
    AgentEvent::Scanned {
        proposals,
        refusals,
        all,
        seen,
    }
}

fn read_seen(data_dir: &Path) -> HashMap<PathBuf, SeenMark> {
    use mbank_core::history::files;
    let bytes = files::folder(data_dir, &[SEEN_FOLDER], false)
        .ok()
        .flatten()
        .and_then(|dir| files::read(&dir, SEEN_FILE, SEEN_LIMIT).ok().flatten());
    // A file that does not parse counts as no marks: old refusals show again, no more.
    bytes
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Writes the marks atomically (temp file and rename in the folder, no link followed).
fn write_seen(data_dir: &Path, seen: &HashMap<PathBuf, SeenMark>) -> Result<(), String> {
    use mbank_core::history::files;
    let bytes = serde_json::to_vec(seen).map_err(|e| e.to_string())?;
    let dir = files::folder(data_dir, &[SEEN_FOLDER], true)
        .map_err(|e| e.to_string())?
        .ok_or("no folder for the marks")?;
    files::write_atomic(&dir, SEEN_FILE, &bytes, false).map_err(|e| e.to_string())
}

impl ProposalView {
    /// A pending proposal of the listed project `project`, diffed for the review.
    pub fn new(proposal: Proposal, project: PathBuf) -> ProposalView {
        view_of(proposal, project)
    }
}

fn view_of(proposal: Proposal, project: PathBuf) -> ProposalView {
    let base = proposal.base.as_deref().unwrap_or("");
    let diff = diff_per_change(&proposal, base);
    let change = match (&proposal.base, &proposal.proposed) {
        (None, _) => ChangeKind::Added,
        (_, None) => ChangeKind::Deleted,
        _ => ChangeKind::Modified,
    };
    let review = FileReview {
        path: proposal.path.clone(),
        display: proposal.file.clone(),
        change,
        renamed_from: None,
        renamed_from_display: None,
        format: Format::Cline,
        role: Role::Other,
        // The texts stay in the proposal: the view needs only the diff.
        baseline: None,
        accepted: None,
        current: None,
        added: diff.added,
        removed: diff.removed,
        diff,
        accepted_added: 0,
        accepted_removed: 0,
        tokens_before: 0,
        tokens_after: 0,
        signals: Vec::new(),
        error: None,
    };
    ProposalView {
        proposal,
        project,
        review,
    }
}

/// The proposal's diff with one hunk per change it numbers, each with up to
/// [`CONTEXT`] lines of the base around it.
pub(crate) fn diff_per_change(proposal: &Proposal, base: &str) -> FileDiff {
    let base_lines: Vec<&str> = base.split_inclusive('\n').collect();
    let strip = |l: &str| -> (String, bool) {
        match l.strip_suffix('\n') {
            Some(rest) => (rest.strip_suffix('\r').unwrap_or(rest).to_string(), false),
            None => (l.to_string(), true),
        }
    };
    let context = |index: usize, old: usize, new: usize| {
        let (text, no_newline) = strip(base_lines[index]);
        DiffLine {
            kind: LineKind::Context,
            old_line: Some(old),
            new_line: Some(new),
            text,
            changed: Vec::new(),
            no_newline,
        }
    };
    let mut diff = FileDiff::default();
    // Lines the hunks before this one added minus those they removed.
    let mut shift: i64 = 0;
    for hunk in proposal.hunks() {
        let start = hunk.base_line - 1;
        let end = (start + hunk.removed.len()).min(base_lines.len());
        let before = start.saturating_sub(CONTEXT);
        let after = (end + CONTEXT).min(base_lines.len());
        let new_of = |old_index: usize, shift: i64| (old_index as i64 + shift + 1).max(1) as usize;
        let mut lines = Vec::new();
        for i in before..start.min(base_lines.len()) {
            lines.push(context(i, i + 1, new_of(i, shift)));
        }
        for (k, text) in hunk.removed.iter().enumerate() {
            lines.push(DiffLine {
                kind: LineKind::Removed,
                old_line: Some(start + k + 1),
                new_line: None,
                text: text.clone(),
                changed: Vec::new(),
                no_newline: false,
            });
        }
        for (k, text) in hunk.added.iter().enumerate() {
            lines.push(DiffLine {
                kind: LineKind::Added,
                old_line: None,
                new_line: Some(new_of(start + k, shift)),
                text: text.clone(),
                changed: Vec::new(),
                no_newline: false,
            });
        }
        let next_shift = shift + hunk.added.len() as i64 - hunk.removed.len() as i64;
        for i in end..after {
            lines.push(context(i, i + 1, new_of(i, next_shift)));
        }
        let old = mbank_core::review::LineRange {
            start: before + 1,
            count: after.max(before) - before,
        };
        let new_count = lines.iter().filter(|l| l.kind != LineKind::Removed).count();
        let new = mbank_core::review::LineRange {
            start: new_of(before, shift),
            count: new_count,
        };
        diff.added += hunk.added.len();
        diff.removed += hunk.removed.len();
        diff.hunks.push(Hunk {
            id: HunkId(hunk.number as u64),
            old,
            new,
            lines,
            added: hunk.added.len(),
            removed: hunk.removed.len(),
            signals: Vec::new(),
        });
        shift = next_shift;
    }
    diff
}

#[cfg(test)]
mod tests {
    use super::*;
    use mbank_core::agent::proposals::ProposedChange;

    fn proposal(base: &str, proposed: &str) -> Proposal {
        Proposal {
            id: 1,
            created: "2026-11-25T10:00:00.000Z".into(),
            project: PathBuf::from("/p"),
            file: "notes.md".into(),
            path: PathBuf::from("/p/memory-bank/notes.md"),
            via: "mcp:memory_bank_update".into(),
            client: None,
            base: Some(base.into()),
            proposed: Some(proposed.into()),
            change: ProposedChange::Replace,
            state: State::Pending,
            decided: None,
            accepted_hunks: None,
        }
    }

    #[test]
    fn each_numbered_change_is_its_own_hunk_even_when_close_together() {
        let base = "# N\na\nb\nc\nd\ne\n";
        let proposed = "# N\nA\nb\nC\nd\ne\nf\n";
        let p = proposal(base, proposed);
        let diff = diff_per_change(&p, base);
        assert_eq!(diff.hunks.len(), p.hunks().len());
        assert_eq!(diff.hunks.len(), 3);
        let changed = |h: &Hunk| -> Vec<(LineKind, String)> {
            h.lines
                .iter()
                .filter(|l| l.kind != LineKind::Context)
                .map(|l| (l.kind, l.text.clone()))
                .collect()
        };
        assert_eq!(
            changed(&diff.hunks[1]),
            [
                (LineKind::Removed, "c".to_string()),
                (LineKind::Added, "C".to_string())
            ]
        );
        // The appended line sits after the base's last line, new line 7.
        let last = diff.hunks[2].lines.last().unwrap();
        assert_eq!((last.kind, last.new_line), (LineKind::Added, Some(7)));
        assert_eq!((diff.added, diff.removed), (3, 2));
    }
}
