//! Staged writes: with `--stage` (or `writes = "stage"`), an agent's write becomes a
//! proposal a person accepts (whole, or some of its hunks) or rejects, instead of a change
//! to the file.
//!
//! Proposals live in `<data dir>/proposals/`, one JSON file each, named
//! `<id>.<state>.json` so the bounds are checked from the folder listing alone: at most
//! [`MAX_PENDING`] pending proposals of at most `MAX_PROPOSAL_BYTES` each and
//! `MAX_PENDING_BYTES` together (a write past a bound is refused, never a pending
//! proposal dropped), and the newest `KEEP_DECIDED` decided ones kept so agents can
//! see what became of theirs. Every file is written atomically (owner-only temp file,
//! fsync, rename) below the data folder's handle with no link followed, under the
//! folder's lock, so proposals survive restarts and concurrent servers.
//!
//! Accepting (`accept.rs`) goes through the bank's guarded write path
//! (`MarkdownBank::apply_change`):
//! the name confined, the folder locked, the guard rules (secrets, append-only, elisions)
//! checked on the result, the replaced text recorded in the history. A file changed since
//! the proposal was made is merged three-way ([`crate::merge`]); overlapping
//! changes are reported as a conflict and nothing is written. Entries (decisions,
//! progress lines, session notes) are re-applied to the file as it is when accepted.
mod accept;
pub mod hunks;

use crate::clock::Clock;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::agent::AgentError;
use crate::agent::entries;
use crate::error::CoreError;
use crate::history::files;
use crate::io::dir_handle::Dir;
use crate::merge;

pub use hunks::ProposalHunk;

const FOLDER: &str = "proposals";
const LAST_ID: &str = "last-id";

/// Pending proposals at most; the next staged write is refused until a person decides.
pub const MAX_PENDING: usize = 200;
/// One proposal's file (its base and proposed text, as JSON) at most.
pub(crate) const MAX_PROPOSAL_BYTES: u64 = 8 * 1024 * 1024;
/// All pending proposals' files together at most.
pub(crate) const MAX_PENDING_BYTES: u64 = 64 * 1024 * 1024;
/// Decided proposals kept (the oldest go first).
pub(crate) const KEEP_DECIDED: usize = 200;

pub use crate::config::Writes;

/// Which projects a server stages writes for.
#[derive(Debug, Clone, Default)]
pub struct Staging {
    /// For projects not named in `projects`.
    pub writes: Writes,
    /// By project name (as `list_projects` shows it: relative to the root).
    pub projects: BTreeMap<String, Writes>,
    /// Where proposals go (required when anything is staged).
    pub store: Option<ProposalStore>,
}

impl Staging {
    /// The store to stage a write of the project named `name` into (`None`: write it).
    pub fn store_for(&self, name: &str) -> Option<&ProposalStore> {
        let writes = self.projects.get(name).copied().unwrap_or(self.writes);
        match writes {
            Writes::Stage => self.store.as_ref(),
            Writes::Direct => None,
        }
    }

    /// Whether any project may be staged.
    pub fn any(&self) -> bool {
        self.writes == Writes::Stage || self.projects.values().any(|w| *w == Writes::Stage)
    }
}

/// An entry a tool adds, kept as what it does rather than the text it made, so accepting
/// it later adds it to the file as the file is then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "entry", rename_all = "camelCase")]
pub enum EntryEdit {
    /// A block appended at the end (a decision).
    #[serde(rename_all = "camelCase")]
    AppendBlock { block: String },
    /// A line put first in a section (a progress line, a session note); a new file
    /// starts as `new_file`.
    #[serde(rename_all = "camelCase")]
    InsertFirst {
        new_file: String,
        section: String,
        line: String,
    },
    /// Sections replaced by these items, then a note put first in `note_section`.
    #[serde(rename_all = "camelCase")]
    ReplaceSections {
        new_file: String,
        sections: Vec<(String, Vec<String>)>,
        note_section: String,
        note: String,
    },
}

impl EntryEdit {
    /// Applies the entry to a file's text (`None`: no file yet).
    pub fn apply(&self, text: &mut Option<String>) {
        match self {
            EntryEdit::AppendBlock { block } => entries::append_block_to(text, block),
            EntryEdit::InsertFirst {
                new_file,
                section,
                line,
            } => {
                let base = text.as_deref().unwrap_or(new_file);
                *text = Some(entries::insert_first_in_section(base, section, line));
            }
            EntryEdit::ReplaceSections {
                new_file,
                sections,
                note_section,
                note,
            } => {
                let mut out = text.as_deref().unwrap_or(new_file).to_string();
                for (title, items) in sections {
                    out = entries::replace_section(&out, title, items);
                }
                *text = Some(entries::insert_first_in_section(&out, note_section, note));
            }
        }
    }
}

/// A change to an Infinity store (`.infinity/memories.json`), kept as what it does so
/// accepting it later applies it to the store as it is then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "memory", rename_all = "camelCase")]
pub enum MemoryEdit {
    /// `store_memory`: a new memory.
    #[serde(rename_all = "camelCase")]
    Add {
        id: String,
        title: String,
        /// The memory's type (`design_doc`, `rules` …).
        memory_type: String,
        content: String,
        created_at: String,
    },
    /// `update_memory`: a memory's new content.
    Content { id: String, content: String },
    /// `delete_memory`.
    Remove { id: String },
}

impl MemoryEdit {
    /// The store's text with the change applied (`None` in: no store yet); a changed
    /// memory's `updated_at` is `now` (RFC 3339).
    pub fn apply(&self, text: Option<&str>, project_id: &str, now: &str) -> Result<String, String> {
        use crate::formats::infinity::store::{self, NewMemory};
        let missing = |id: &str| format!("the memory {id} is no longer in the store");
        match self {
            MemoryEdit::Add {
                id,
                title,
                memory_type,
                content,
                created_at,
            } => store::add_memory(
                text,
                project_id,
                &NewMemory {
                    id,
                    title,
                    kind: memory_type,
                    content,
                    created_at,
                },
            )
            .map_err(|e| e.to_string()),
            MemoryEdit::Content { id, content } => {
                let text = text.ok_or_else(|| missing(id))?;
                store::change_content(text, id, content, now).map_err(|e| e.to_string())
            }
            MemoryEdit::Remove { id } => {
                let text = text.ok_or_else(|| missing(id))?;
                store::remove_memory(text, id)
                    .map_err(|e| e.to_string())?
                    .ok_or_else(|| missing(id))
            }
        }
    }
}

/// What a proposal does to its file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ProposedChange {
    /// The file becomes the proposed text (created when it did not exist).
    Replace,
    /// The file is removed.
    Delete,
    /// An entry added to the file as it is when accepted.
    Entry(EntryEdit),
    /// A memory added, changed or removed in an Infinity store as it is when accepted.
    Memory(MemoryEdit),
    /// A fact (`line`, a list item) saved to Beans-Code's memory of `scope`, put last
    /// under its saved-memories section of the file as it is when accepted.
    #[serde(rename_all = "camelCase")]
    SavedMemory {
        scope: crate::formats::beans_md::saved::SavedScope,
        line: String,
    },
}

/// Where a proposal stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Pending,
    Accepted,
    Rejected,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Pending => "pending",
            State::Accepted => "accepted",
            State::Rejected => "rejected",
        }
    }

    fn parse(text: &str) -> Option<State> {
        match text {
            "pending" => Some(State::Pending),
            "accepted" => Some(State::Accepted),
            "rejected" => Some(State::Rejected),
            _ => None,
        }
    }
}

/// One staged write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Proposal {
    pub id: u64,
    /// When it was staged (RFC 3339, UTC).
    pub created: String,
    /// The project folder (its real path).
    pub project: PathBuf,
    /// The file, relative to the project's memory bank folder.
    pub file: String,
    /// The file's real path when staged.
    pub path: PathBuf,
    /// The tool that staged it (`mcp:memory_bank_update`, `http:POST /memory-bank/file`).
    pub via: String,
    /// The agent's client as it named itself, when the server knew.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// The file's text when staged (`None`: there was no file).
    pub base: Option<String>,
    /// The file's text the write would have made (`None`: removed).
    pub proposed: Option<String>,
    pub change: ProposedChange,
    pub state: State,
    /// When it was accepted or rejected.
    pub decided: Option<String>,
    /// The hunks accepted, when only some were.
    pub accepted_hunks: Option<Vec<usize>>,
}

impl Proposal {
    /// What it does: `create`, `replace`, `delete`, `entry` (a dated entry or a saved fact added),
    /// `memory` (an Infinity memory stored, changed or removed).
    pub fn kind(&self) -> &'static str {
        match self.change {
            ProposedChange::Replace if self.base.is_none() => "create",
            ProposedChange::Replace => "replace",
            ProposedChange::Delete => "delete",
            ProposedChange::Entry(_) | ProposedChange::SavedMemory { .. } => "entry",
            ProposedChange::Memory(_) => "memory",
        }
    }

    /// The changes from the base to the proposed text, numbered for `--hunks`.
    pub fn hunks(&self) -> Vec<ProposalHunk> {
        hunks::hunks(
            self.base.as_deref().unwrap_or(""),
            self.proposed.as_deref().unwrap_or(""),
        )
    }
}

/// What [`ProposalStore::listing`] found.
#[derive(Debug, Default)]
pub struct StoredProposals {
    pub proposals: Vec<Proposal>,
    pub unreadable: Vec<Unreadable>,
}

/// A proposal file that could not be read, and why.
#[derive(Debug, Clone)]
pub struct Unreadable {
    pub path: PathBuf,
    pub problem: String,
}

/// What a staged write records.
#[derive(Debug, Clone)]
pub struct NewProposal {
    pub project: PathBuf,
    pub file: String,
    pub path: PathBuf,
    pub via: String,
    /// The agent's client as it named itself, when known.
    pub client: Option<String>,
    pub base: Option<String>,
    pub proposed: Option<String>,
    pub change: ProposedChange,
}

/// Why a proposal operation did not happen.
#[derive(Debug, thiserror::Error)]
pub enum ProposalError {
    #[error("no proposal {0} (`mbank proposals` lists them)")]
    NotFound(u64),
    #[error("proposal {id} was already {}", state.as_str())]
    Decided { id: u64, state: State },
    /// A bound was reached: nothing was staged.
    #[error("{0}")]
    Full(String),
    #[error("proposal {id} has hunks 1 to {count}; {given} is not one of them")]
    NoSuchHunk { id: u64, count: usize, given: usize },
    /// The file changed since the proposal was made, in the lines it changes.
    #[error(
        "proposal {id} conflicts with changes made to {file} since it was staged ({conflicts} overlapping change(s)); nothing was written: reject it, or edit the file and ask the agent again"
    )]
    Conflict {
        id: u64,
        file: String,
        conflicts: usize,
        /// The three-way merge with conflict markers, for a person to look at.
        merged: String,
    },
    /// The proposal's target is not a place its writes may go.
    #[error("proposal {id} is refused: {reason}; nothing was written")]
    Outside { id: u64, reason: String },
    #[error("{0}")]
    Agent(#[from] AgentError),
    #[error("{0}")]
    Infinity(#[from] crate::agent::infinity_error::InfinityError),
    #[error(transparent)]
    Core(#[from] CoreError),
}

impl From<crate::io::dir_handle::HandleError> for ProposalError {
    fn from(e: crate::io::dir_handle::HandleError) -> Self {
        ProposalError::Core(e.into())
    }
}

pub(crate) type ProposalResult<T> = Result<T, ProposalError>;

/// How much a store holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub max_pending: usize,
    pub max_proposal_bytes: u64,
    pub max_pending_bytes: u64,
    pub keep_decided: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            max_pending: MAX_PENDING,
            max_proposal_bytes: MAX_PROPOSAL_BYTES,
            max_pending_bytes: MAX_PENDING_BYTES,
            keep_decided: KEEP_DECIDED,
        }
    }
}

/// The proposals kept in one data folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposalStore {
    data_dir: PathBuf,
    bounds: Bounds,
    /// What dates a proposal's creation and decision.
    clock: Clock,
}

fn file_name(id: u64, state: State) -> String {
    format!("{id:08}.{}.json", state.as_str())
}

/// `(id, state)` of a proposal's file name.
fn parse_name(name: &OsStr) -> Option<(u64, State)> {
    let name = name.to_str()?.strip_suffix(".json")?;
    let (id, state) = name.split_once('.')?;
    Some((id.parse().ok()?, State::parse(state)?))
}

fn stamp(clock: &Clock) -> String {
    clock
        .utc()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl ProposalStore {
    pub fn new(data_dir: impl Into<PathBuf>) -> ProposalStore {
        ProposalStore {
            data_dir: data_dir.into(),
            bounds: Bounds::default(),
            clock: Clock::system(),
        }
    }

    /// This store dating proposals by `clock`.
    pub fn with_clock(mut self, clock: Clock) -> ProposalStore {
        self.clock = clock;
        self
    }

    /// This store with other bounds.
    #[cfg(test)]
    pub(crate) fn with_bounds(mut self, bounds: Bounds) -> ProposalStore {
        self.bounds = bounds;
        self
    }

    /// The store in mbank's data folder (`None`: no data folder known).
    pub fn in_data_dir(clock: Clock) -> Option<ProposalStore> {
        crate::io::paths::data_dir().map(|dir| ProposalStore::new(dir).with_clock(clock))
    }

    fn folder(&self, create: bool) -> ProposalResult<Option<Dir>> {
        Ok(files::folder(&self.data_dir, &[FOLDER], create)?)
    }

    /// Every proposal file present: `(id, state, size)` (size of pending ones only), by id.
    fn entries(dir: &Dir) -> ProposalResult<Vec<(u64, State, u64)>> {
        let mut out = Vec::new();
        for name in dir.names()? {
            let Some((id, state)) = parse_name(&name) else {
                continue;
            };
            // Only pending proposals count towards the size bound.
            let size = match state {
                State::Pending => dir
                    .file_meta(Path::new(&name))
                    .ok()
                    .flatten()
                    .map_or(0, |m| m.len()),
                _ => 0,
            };
            out.push((id, state, size));
        }
        out.sort_by_key(|(id, state, _)| (*id, *state != State::Pending));
        Ok(out)
    }

    fn read(dir: &Dir, id: u64, state: State) -> ProposalResult<Option<Proposal>> {
        let name = file_name(id, state);
        let Some(bytes) = files::read(dir, &name, MAX_PROPOSAL_BYTES)? else {
            return Ok(None);
        };
        serde_json::from_slice::<Proposal>(&bytes)
            .map(Some)
            .map_err(|e| {
                ProposalError::Core(CoreError::Parse {
                    path: dir.path().join(&name),
                    message: e.to_string(),
                })
            })
    }

    /// Writes a proposal's file; `durable` flushes it and its folder to disk first.
    fn write(&self, dir: &Dir, proposal: &Proposal, durable: bool) -> ProposalResult<()> {
        let name = file_name(proposal.id, proposal.state);
        let bytes = serde_json::to_vec(proposal).map_err(|e| CoreError::Parse {
            path: dir.path().join(&name),
            message: e.to_string(),
        })?;
        let limit = self.bounds.max_proposal_bytes.min(MAX_PROPOSAL_BYTES);
        if bytes.len() as u64 > limit {
            return Err(ProposalError::Full(format!(
                "the staged write would take {} bytes, over the {limit}-byte limit of one proposal; nothing was staged",
                bytes.len()
            )));
        }
        files::write_atomic(dir, &name, &bytes, durable)?;
        if durable {
            dir.sync();
        }
        Ok(())
    }

    /// Stages a write: checks the bounds, gives it the next id and stores it.
    pub fn stage(&self, new: NewProposal) -> ProposalResult<Proposal> {
        let dir = self
            .folder(true)?
            .ok_or_else(|| ProposalError::Full("no proposal folder".into()))?;
        let _lock = files::lock(&dir)?;
        let entries = Self::entries(&dir)?;
        let pending: Vec<&(u64, State, u64)> = entries
            .iter()
            .filter(|(_, s, _)| *s == State::Pending)
            .collect();
        let bounds = self.bounds;
        if pending.len() >= bounds.max_pending {
            return Err(ProposalError::Full(format!(
                "{} staged writes are waiting for a person to accept or reject them (`mbank proposals`); nothing was staged",
                bounds.max_pending
            )));
        }
        let pending_bytes: u64 = pending.iter().map(|(_, _, size)| size).sum();
        let size = new.base.as_ref().map_or(0, String::len) as u64
            + new.proposed.as_ref().map_or(0, String::len) as u64;
        if pending_bytes + size > bounds.max_pending_bytes {
            return Err(ProposalError::Full(format!(
                "the staged writes waiting for a person hold {pending_bytes} bytes; with this one they would pass the {}-byte limit; nothing was staged",
                bounds.max_pending_bytes
            )));
        }
        let last = files::read(&dir, LAST_ID, 64)?
            .and_then(|b| String::from_utf8(b).ok())
            .and_then(|t| t.trim().parse::<u64>().ok())
            .unwrap_or(0);
        let id = entries
            .iter()
            .map(|(id, _, _)| *id)
            .max()
            .unwrap_or(0)
            .max(last)
            + 1;
        let proposal = Proposal {
            id,
            created: stamp(&self.clock),
            project: new.project,
            file: new.file,
            path: new.path,
            via: new.via,
            client: new.client,
            base: new.base,
            proposed: new.proposed,
            change: new.change,
            state: State::Pending,
            decided: None,
            accepted_hunks: None,
        };
        // The proposal is the only copy of the agent's write: on disk before it counts.
        self.write(&dir, &proposal, true)?;
        // Ids are never reused, even once the files of old ones are pruned.
        files::write_atomic(&dir, LAST_ID, id.to_string().as_bytes(), false)?;
        Ok(proposal)
    }

    /// Every proposal that reads, oldest first (a proposal whose decision was
    /// interrupted shows as decided); one that does not is left out
    /// ([`ProposalStore::listing`] names it).
    pub fn list(&self) -> ProposalResult<Vec<Proposal>> {
        Ok(self.listing()?.proposals)
    }

    /// Every proposal, and the proposal files that cannot be read (not JSON, a link, a
    /// pipe, too large): each one is named and skipped, so one bad file hides no other.
    pub fn listing(&self) -> ProposalResult<StoredProposals> {
        let Some(dir) = self.folder(false)? else {
            return Ok(StoredProposals::default());
        };
        let mut listing = StoredProposals::default();
        let out = &mut listing.proposals;
        for (id, state, _) in Self::entries(&dir)? {
            match Self::read(&dir, id, state) {
                Ok(Some(proposal)) => {
                    if out.last().is_some_and(|p| p.id == id) {
                        out.pop();
                    }
                    out.push(proposal);
                }
                Ok(None) => {}
                Err(e) => listing.unreadable.push(Unreadable {
                    path: dir.path().join(file_name(id, state)),
                    problem: e.to_string(),
                }),
            }
        }
        Ok(listing)
    }

    /// The ids of the pending proposals, oldest first, from the folder listing alone
    /// (nothing is read: a UI that keeps what it read asks only for the new ones).
    pub fn pending_ids(&self) -> ProposalResult<Vec<u64>> {
        let Some(dir) = self.folder(false)? else {
            return Ok(Vec::new());
        };
        let entries = Self::entries(&dir)?;
        // A decision interrupted between its two files leaves both: it counts as decided.
        let decided: std::collections::HashSet<u64> = entries
            .iter()
            .filter(|(_, s, _)| *s != State::Pending)
            .map(|(id, _, _)| *id)
            .collect();
        Ok(entries
            .into_iter()
            .filter(|(id, s, _)| *s == State::Pending && !decided.contains(id))
            .map(|(id, _, _)| id)
            .collect())
    }

    /// One proposal.
    pub fn get(&self, id: u64) -> ProposalResult<Proposal> {
        let dir = self.folder(false)?.ok_or(ProposalError::NotFound(id))?;
        Self::find(&dir, id)
    }

    fn find(dir: &Dir, id: u64) -> ProposalResult<Proposal> {
        for state in [State::Accepted, State::Rejected, State::Pending] {
            if let Some(proposal) = Self::read(dir, id, state)? {
                return Ok(proposal);
            }
        }
        Err(ProposalError::NotFound(id))
    }

    /// Records a decision: the decided file written, then the pending one removed.
    fn decide(
        &self,
        dir: &Dir,
        mut proposal: Proposal,
        state: State,
        hunks: Option<Vec<usize>>,
    ) -> ProposalResult<Proposal> {
        proposal.state = state;
        proposal.decided = Some(stamp(&self.clock));
        proposal.accepted_hunks = hunks;
        // Not flushed: the accepted write itself is, and a decision lost to a power cut
        // leaves the proposal pending; accepting it again merges to the same text.
        self.write(dir, &proposal, false)?;
        dir.remove_file(OsStr::new(&file_name(proposal.id, State::Pending)))?;
        self.prune(dir)?;
        Ok(proposal)
    }

    /// Drops the oldest decided proposals beyond [`Bounds::keep_decided`].
    fn prune(&self, dir: &Dir) -> ProposalResult<()> {
        let decided: Vec<(u64, State)> = Self::entries(dir)?
            .into_iter()
            .filter(|(_, s, _)| *s != State::Pending)
            .map(|(id, s, _)| (id, s))
            .collect();
        let extra = decided.len().saturating_sub(self.bounds.keep_decided);
        for (id, state) in decided.into_iter().take(extra) {
            let _ = dir.remove_file(OsStr::new(&file_name(id, state)));
        }
        Ok(())
    }

    fn pending(dir: &Dir, id: u64) -> ProposalResult<Proposal> {
        let proposal = Self::find(dir, id)?;
        if proposal.state != State::Pending {
            return Err(ProposalError::Decided {
                id,
                state: proposal.state,
            });
        }
        Ok(proposal)
    }

    /// Rejects a pending proposal: its file is left as it is.
    pub fn reject(&self, id: u64) -> ProposalResult<Proposal> {
        let dir = self.folder(false)?.ok_or(ProposalError::NotFound(id))?;
        let _lock = files::lock(&dir)?;
        let proposal = Self::pending(&dir, id)?;
        self.decide(&dir, proposal, State::Rejected, None)
    }

    /// The folder proposals are kept in (for a UI to watch for new ones).
    pub fn folder_path(&self) -> PathBuf {
        self.data_dir.join(FOLDER)
    }
}

/// What of a proposal a person accepts.
#[derive(Debug, Clone, Copy)]
pub(super) enum AcceptedPart<'a> {
    Whole,
    Hunks(&'a [usize]),
    Edited(&'a str),
}

pub(super) fn chosen_text(
    proposal: &Proposal,
    choice: AcceptedPart<'_>,
    current: Option<&str>,
) -> ProposalResult<Option<String>> {
    if let (ProposedChange::Entry(entry), AcceptedPart::Whole) = (&proposal.change, choice) {
        let mut text = current.map(str::to_string);
        entry.apply(&mut text);
        return Ok(text);
    }
    if let (ProposedChange::SavedMemory { line, .. }, AcceptedPart::Whole) =
        (&proposal.change, choice)
    {
        let section = crate::formats::beans_md::saved::SAVED_SECTION;
        let text = current.unwrap_or("");
        return Ok(Some(entries::append_last_in_section(text, section, line)));
    }
    let base = proposal.base.as_deref().unwrap_or("");
    let proposed = proposal.proposed.as_deref().unwrap_or("");
    let chosen = match choice {
        AcceptedPart::Hunks(selected) => hunks::apply(base, proposed, selected),
        AcceptedPart::Edited(text) => text.to_string(),
        AcceptedPart::Whole => proposed.to_string(),
    };
    let removing =
        proposal.change == ProposedChange::Delete && matches!(choice, AcceptedPart::Whole);
    if current == proposal.base.as_deref() {
        return Ok((!removing).then_some(chosen));
    }
    if removing {
        // Removing a file someone changed since would lose their change.
        return Err(ProposalError::Conflict {
            id: proposal.id,
            file: proposal.file.clone(),
            conflicts: 1,
            merged: current.unwrap_or("").to_string(),
        });
    }
    let merged = merge::three_way(base, &chosen, current.unwrap_or(""));
    if merged.conflicts > 0 {
        return Err(ProposalError::Conflict {
            id: proposal.id,
            file: proposal.file.clone(),
            conflicts: merged.conflicts,
            merged: merged.text,
        });
    }
    Ok(Some(merged.text))
}

#[cfg(test)]
mod tests;
