//! The journal: every version of every memory file under the root, and of the agents'
//! own stores for those projects, kept in the history (`crate::history`) whoever wrote
//! it, deletions and renames included, so nothing an agent writes is lost.
//!
//! A [`Recorder`] compares each file's text with the newest version its history holds
//! (by SHA-256) and records only what differs: a catch-up pass ([`Recorder::catch_up`])
//! over the whole [`JournalScope`] finds what changed while nothing was watching, then
//! [`Recorder::record_paths`] records what the watcher ([`watch`]) reports. Who wrote a
//! version: the writer a write through mbank noted (`write::apply`), "git (HEAD moved)"
//! when the project's HEAD moved since the last look (a checkout, pull or rebase),
//! otherwise "on disk" and the store it belongs to. A file that vanished as another with
//! the same text appeared is recorded as renamed.
//!
//! Every file is read under the confinement of its project (or, for an agent's store,
//! of its allowed folder), as everything else. Only one recorder runs at a time: it
//! holds the [`lock::RecorderLock`] in mbank's data folder.
pub mod changes;
mod head;
pub mod lock;
pub mod revert;
pub mod reviewed;
pub mod scope;
pub mod watch;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use crate::config::JournalConfig;
use crate::error::Result;
use crate::history::{self, History};
use crate::io::confine::{self, ProjectFolder};
use crate::scan::listings::Stamp;
pub use scope::{JournalFile, JournalScope, ScopeOptions, Store};

/// The writer a version found on disk is given when git moved HEAD meanwhile.
pub(crate) const GIT_WRITER: &str = "git (HEAD moved: checkout, pull or rebase)";

/// The writer of a version found on disk in `store`, when nothing else is known.
pub fn on_disk(store: &str) -> String {
    format!("on disk ({store})")
}

/// What one pass recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PassReport {
    /// Versions recorded of files found on disk.
    pub recorded: usize,
    /// Deletions recorded.
    pub deleted: usize,
    /// Of those, renames (a deletion paired with a new file of the same text).
    pub renamed: usize,
    /// Files a catch-up did not read: their stamps are as when they last held their
    /// newest version.
    pub not_read: usize,
    /// Files that could not be read or recorded, each as a sentence.
    pub problems: Vec<String>,
    /// What was recorded, a line a version (for the log).
    pub lines: Vec<String>,
}

impl PassReport {
    fn add(&mut self, other: PassReport) {
        self.recorded += other.recorded;
        self.deleted += other.deleted;
        self.renamed += other.renamed;
        self.not_read += other.not_read;
        self.problems.extend(other.problems);
        self.lines.extend(other.lines);
    }
}

/// Records versions into the history; holds the recorder lock while it lives.
pub struct Recorder {
    history: History,
    data_dir: PathBuf,
    heads: head::Heads,
    /// The store label and project of every file seen in a scope during this run, for
    /// files that are gone from the newest scope.
    known: HashMap<PathBuf, (String, Option<PathBuf>, bool)>,
    /// Files found holding their newest version, by the stamp (inode, size, modification
    /// and change times) they had then: a catch-up passes over a file whose stamp is the
    /// same without reading it. Only stamps older than the racy window are kept.
    unchanged: HashMap<PathBuf, Stamp>,
    _lock: lock::RecorderLock,
}

/// A file found changed, waiting to be recorded.
struct Found {
    key: PathBuf,
    text: String,
    hash: String,
    /// Whether the history had no version of it yet (a new file: maybe a rename).
    new: bool,
    label: String,
    project: Option<PathBuf>,
    agent_store: bool,
}

/// A file found gone.
struct Gone {
    key: PathBuf,
    hash: String,
    label: String,
    project: Option<PathBuf>,
    agent_store: bool,
}

impl Recorder {
    /// A recorder writing to `history`, with the lock `lock` taken in its data folder.
    pub fn new(history: History, data_dir: &Path, lock: lock::RecorderLock) -> Recorder {
        Recorder {
            history,
            data_dir: data_dir.to_path_buf(),
            heads: head::Heads::load(data_dir),
            known: HashMap::new(),
            unchanged: HashMap::new(),
            _lock: lock,
        }
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    /// Records what changed while nothing was watching: every file of `scope` whose
    /// text differs from its newest version, and every file with a history in one of
    /// the scope's folders that is gone. Then keeps the history within its total cap.
    pub fn catch_up(&mut self, scope: &JournalScope) -> PassReport {
        let mut report = PassReport::default();
        let moved = self.heads_moved(scope, &scope.projects);
        let mut found = Vec::new();
        for file in &scope.files {
            self.remember(scope, file);
            // Taken before the read: a write after it changes the stamp.
            let stamp = std::fs::metadata(&file.path)
                .ok()
                .and_then(|meta| Stamp::of(&meta));
            if stamp.is_some() && stamp.as_ref() == self.unchanged.get(&file.key) {
                report.not_read += 1;
                continue;
            }
            match self.find_change(scope, file) {
                Ok(Some(change)) => found.push(change),
                Ok(None) => {
                    let now = crate::scan::listings::time_nanos(std::time::SystemTime::now());
                    if let Some(stamp) = stamp.filter(|stamp| !stamp.is_racy(now)) {
                        self.unchanged.insert(file.key.clone(), stamp);
                    }
                }
                Err(problem) => report.problems.push(problem),
            }
        }
        let mut gone = Vec::new();
        match self.history.files_below(&scope.roots()) {
            Ok(versions) => {
                for newest in versions {
                    if newest.is_deletion() || scope.file(&newest.path).is_some() {
                        continue;
                    }
                    if let Some(g) = self.gone(scope, &newest.path, Some(newest.hash)) {
                        gone.push(g);
                    }
                }
            }
            Err(e) => report
                .problems
                .push(format!("cannot list the history: {e}")),
        }
        report.add(self.record(found, gone, &moved));
        if let Err(e) = self.history.enforce_total_cap() {
            report
                .problems
                .push(format!("cannot keep the history within its cap: {e}"));
        }
        if let Err(e) = reviewed::Reviewed::start_if_new(&self.data_dir, self.history.clock().utc())
        {
            report
                .problems
                .push(format!("cannot note when the journal started: {e}"));
        }
        report
    }

    /// Records the files at `paths` (as the watcher reports them): their new text, or
    /// their deletion. Paths the scope does not know and that have no history are
    /// passed over (the caller rebuilds the scope when a new file appears).
    pub fn record_paths(&mut self, scope: &JournalScope, paths: &[PathBuf]) -> PassReport {
        let mut report = PassReport::default();
        let mut projects = Vec::new();
        let mut found = Vec::new();
        let mut gone = Vec::new();
        let mut done = std::collections::HashSet::new();
        for path in paths {
            if let Some(file) = scope.file(path) {
                if !done.insert(file.key.clone()) {
                    continue;
                }
                self.unchanged.remove(&file.key);
                self.remember(scope, file);
                if let Some(project) = &scope.store_of(file).project {
                    projects.push(project.clone());
                }
                if let Some(g) = self.gone(scope, &file.key, None) {
                    gone.push(g);
                    continue;
                }
                match self.find_change(scope, file) {
                    Ok(Some(change)) => found.push(change),
                    Ok(None) => {}
                    Err(problem) => report.problems.push(problem),
                }
                continue;
            }
            let key = history::key_of(path);
            if !done.insert(key.clone()) {
                continue;
            }
            if let Some(g) = self.gone(scope, &key, None) {
                projects.extend(g.project.clone());
                gone.push(g);
            }
        }
        let moved = self.heads_moved(scope, &projects);
        report.add(self.record(found, gone, &moved));
        report
    }

    fn remember(&mut self, scope: &JournalScope, file: &JournalFile) {
        let store = scope.store_of(file);
        self.known.insert(
            file.key.clone(),
            (
                store.label.clone(),
                store.project.clone(),
                store.agent_store,
            ),
        );
    }

    /// Projects among `projects` whose HEAD moved since the last look (each looked at
    /// once; the new HEADs are kept).
    fn heads_moved(&mut self, scope: &JournalScope, projects: &[PathBuf]) -> Vec<PathBuf> {
        let mut moved = Vec::new();
        let mut looked = std::collections::HashSet::new();
        for project in projects {
            if looked.insert(project.clone()) && scope.projects.contains(project) {
                let now = head::read(project);
                if self.heads.moved(project, now) {
                    moved.push(project.clone());
                }
            }
        }
        self.heads.save();
        moved
    }

    /// The file's text when it differs from its newest version.
    fn find_change(
        &self,
        scope: &JournalScope,
        file: &JournalFile,
    ) -> std::result::Result<Option<Found>, String> {
        let store = scope.store_of(file);
        let folder = ProjectFolder::new(&store.allowed_root);
        let text = match read_if_there(&folder, &file.path) {
            Ok(Some(text)) => text,
            Ok(None) => return Ok(None),
            Err(e) => return Err(format!("{}: {e}", file.path.display())),
        };
        let hash = history::content_hash(&text);
        let newest = self
            .history
            .newest(&file.key)
            .map_err(|e| format!("{}: {e}", file.path.display()))?;
        if newest
            .as_ref()
            .is_some_and(|v| v.hash == hash && !v.is_deletion())
        {
            return Ok(None);
        }
        Ok(Some(Found {
            key: file.key.clone(),
            text,
            hash,
            new: newest.is_none(),
            label: store.label.clone(),
            project: store.project.clone(),
            agent_store: store.agent_store,
        }))
    }

    /// The file whose key is `key` when it is gone from disk and its history does not
    /// say so yet.
    fn gone(&self, scope: &JournalScope, key: &Path, newest_hash: Option<String>) -> Option<Gone> {
        if std::fs::symlink_metadata(key).is_ok() {
            return None;
        }
        let hash = match newest_hash {
            Some(hash) => hash,
            None => {
                let newest = self.history.newest(key).ok()??;
                if newest.is_deletion() {
                    return None;
                }
                newest.hash
            }
        };
        let (label, project, agent_store) = match self.known.get(key) {
            Some(known) => known.clone(),
            None => match scope.store_holding(key) {
                Some(store) => (
                    store.label.clone(),
                    store.project.clone(),
                    store.agent_store,
                ),
                None => ("memory".to_string(), None, false),
            },
        };
        Some(Gone {
            key: key.to_path_buf(),
            hash,
            label,
            project,
            agent_store,
        })
    }

    /// Who wrote the text whose SHA-256 is `hash` (`None`: who removed the file).
    fn writer(&self, key: &Path, hash: Option<&str>, label: &str, git_moved: bool) -> String {
        if let Ok(Some(note)) = self.history.written_note(key)
            && note.hash.as_deref() == hash
        {
            return note.who();
        }
        if git_moved {
            return GIT_WRITER.to_string();
        }
        on_disk(label)
    }

    fn record(&self, found: Vec<Found>, gone: Vec<Gone>, moved: &[PathBuf]) -> PassReport {
        let mut report = PassReport::default();
        let git = |project: &Option<PathBuf>, agent_store: bool| {
            !agent_store && project.as_ref().is_some_and(|p| moved.contains(p))
        };
        // A file gone while a new one with its very text appeared: a rename.
        let mut renamed_to: HashMap<usize, usize> = HashMap::new();
        for (g, gone_file) in gone.iter().enumerate() {
            if let Some(f) = found.iter().enumerate().position(|(i, f)| {
                f.new && f.hash == gone_file.hash && !renamed_to.values().any(|&v| v == i)
            }) {
                renamed_to.insert(g, f);
            }
        }
        let renamed_from: HashMap<usize, usize> =
            renamed_to.iter().map(|(&g, &f)| (f, g)).collect();
        for (g, gone_file) in gone.iter().enumerate() {
            let to = renamed_to.get(&g).map(|&f| found[f].key.as_path());
            let writer = self.writer(
                &gone_file.key,
                None,
                &gone_file.label,
                git(&gone_file.project, gone_file.agent_store),
            );
            match self.history.record_seen(&gone_file.key, None, &writer, to) {
                Ok(Some(number)) => {
                    report.deleted += 1;
                    report.renamed += usize::from(to.is_some());
                    let what = match to {
                        Some(to) => format!("renamed to {}", to.display()),
                        None => "deleted".to_string(),
                    };
                    report.lines.push(format!(
                        "{} {what}: version {number}, by {writer}",
                        gone_file.key.display()
                    ));
                }
                Ok(None) => {}
                Err(e) => report
                    .problems
                    .push(format!("{}: {e}", gone_file.key.display())),
            }
        }
        for (f, file) in found.iter().enumerate() {
            let from = renamed_from.get(&f).map(|&g| gone[g].key.as_path());
            let writer = self.writer(
                &file.key,
                Some(&file.hash),
                &file.label,
                git(&file.project, file.agent_store),
            );
            match self
                .history
                .record_seen(&file.key, Some(&file.text), &writer, from)
            {
                Ok(Some(number)) => {
                    report.recorded += 1;
                    report.lines.push(format!(
                        "{}: version {number}, by {writer}",
                        file.key.display()
                    ));
                }
                Ok(None) => {}
                Err(e) => report.problems.push(format!("{}: {e}", file.key.display())),
            }
        }
        report
    }
}

/// Brings version `number` of `file`, a file of the agent's store `store` (which agents'
/// writes through mbank never touch), back at a person's word, writing as `ctx` says
/// (its writer, `restore`, is who the journal names): judged by the context's guard rules
/// (a version holding a secret is refused, naming the file), opened below the store's
/// real folder with no link followed, under the file's lock, refused when the file
/// changed meanwhile, and the text it replaces recorded first in `history`. A file that
/// was deleted is created again. `scope` tells the file's name and role when it lists it.
pub fn restore_in_store(
    ctx: &crate::write::WriteContext,
    history: &History,
    scope: &JournalScope,
    store: &Store,
    file: &Path,
    number: u64,
) -> Result<PathBuf> {
    let (_, text) = history.version(file, number)?;
    let key = history::key_of(file);
    let _lock = crate::io::lock::for_file(&key)?;
    let current = read_if_there(&ProjectFolder::new(&store.allowed_root), &key)?;
    let listed = scope.file(&key);
    let shown = key.display().to_string();
    let guarded = revert::Guarded {
        key: &key,
        name: listed.map_or(shown.as_str(), |f| f.display.as_str()),
        role: listed.map_or(crate::model::Role::Other, |f| f.role),
    };
    let ctx = ctx.clone().with_history(Some(history.clone()));
    revert::write_in_store(&ctx, store, &guarded, current.as_deref(), Some(&text))?;
    Ok(key)
}

/// A file's text read under `folder`'s confinement; `None` when nothing is there (a
/// missing file reads as a dangling path to the confinement check).
pub(crate) fn read_if_there(folder: &ProjectFolder<'_>, path: &Path) -> Result<Option<String>> {
    if std::fs::symlink_metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        return Ok(None);
    }
    match confine::read_text(folder, path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if crate::io::text::is_not_found(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests;
