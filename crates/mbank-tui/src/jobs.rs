//! One-shot jobs: everything the UI reads or writes on disk runs here, each on a thread
//! of its own, and answers with one [`Message`] (the loop never waits on the disk).
//! Reading for the editor and saving go through the core's edit API
//! ([`mbank_core::edit`]): the same rules as every other write.
use std::path::{Path, PathBuf};
use std::thread;

use mbank_core::edit::{self, EditText};
use mbank_core::error::CoreError;
use mbank_core::findings::Fix;
use mbank_core::history::History;
use mbank_core::model::Project;
use mbank_core::write::WriteContext;

use super::message::{
    BackupSide, HistoryEvent, HistoryListing, ListedVersion, LoadError, LoadPurpose, LoadedFile,
    Message, SaveError, VersionCompare,
};
use super::protocol::{DiffBase, DiffKey};
use super::theme::Theme;
use super::workers::Outbox;

/// Reads one file (or one Infinity memory) for the editor; sends [`Message::FileLoaded`].
pub(crate) fn load_file(
    path: PathBuf,
    memory_id: Option<String>,
    purpose: LoadPurpose,
    outbox: Outbox,
) {
    thread::spawn(move || {
        let result = read_for_editing(&path, memory_id.as_deref());
        let _ = outbox.send(Message::FileLoaded(LoadedFile {
            path,
            memory_id,
            purpose,
            result,
        }));
    });
}

/// The editor's view of a file, or why there is none (gone, a folder, unreadable).
pub(crate) fn read_for_editing(
    path: &Path,
    memory_id: Option<&str>,
) -> Result<edit::Editable, LoadError> {
    edit::open_for_edit(path, memory_id).map_err(|error| match &error {
        CoreError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            LoadError::Gone(error.to_string())
        }
        _ if path.is_dir() => LoadError::Folder,
        _ => LoadError::Unreadable(error.to_string()),
    })
}

/// What a save is of: the buffer's `text` at `version`, over the file as it was read.
pub struct SaveJob {
    pub project: Project,
    pub path: PathBuf,
    pub disk: EditText,
    pub text: String,
    pub version: u64,
    /// How the save writes (writer `tui`, the session's history).
    pub ctx: WriteContext,
}

/// Saves through the core's guarded write, confined to the bank that lists the file; the
/// file's line endings, BOM, permissions and owner are kept (an Infinity memory: its id,
/// type and title). Sends [`Message::Saved`].
pub fn save(job: SaveJob, outbox: Outbox) {
    thread::spawn(move || {
        let result = edit::save_in_project(&job.ctx, &job.project, &job.path, &job.disk, &job.text)
            .map(Box::new)
            .map_err(|e| match e {
                CoreError::Conflict { .. } => SaveError::Conflict,
                other => SaveError::Other(other.to_string()),
            });
        let _ = outbox.send(Message::Saved {
            path: job.path,
            version: job.version,
            text: job.text,
            result,
        });
    });
}

/// Applies a finding's fix to the file at `path` of `project`: read for editing, the fix's
/// line changed, saved through the same guarded write as the editor's save (so a file
/// changed on disk since it was read is never overwritten); sends [`Message::FixApplied`].
pub(crate) fn apply_fix(
    ctx: WriteContext,
    project: Project,
    path: PathBuf,
    fix: Fix,
    outbox: Outbox,
) {
    thread::spawn(move || {
        let result = fix_file(&ctx, &project, &path, &fix).map(Box::new);
        let _ = outbox.send(Message::FixApplied { path, fix, result });
    });
}

fn fix_file(
    ctx: &WriteContext,
    project: &Project,
    path: &Path,
    fix: &Fix,
) -> Result<edit::Saved, String> {
    let editable = edit::open_for_edit(path, None).map_err(|e| e.to_string())?;
    if let Some(why) = editable.read_only {
        return Err(why);
    }
    let fixed = fix.apply(&editable.edit.text).ok_or_else(|| {
        format!(
            "line {} no longer holds `{}` (the file changed since it was checked)",
            fix.line, fix.replace
        )
    })?;
    edit::save_in_project(ctx, project, path, &editable.edit, &fixed).map_err(|e| match e {
        CoreError::Conflict { .. } => {
            "the file changed on disk while the fix was applied; nothing was written".to_string()
        }
        other => other.to_string(),
    })
}

/// Saves one side of a conflict under `dir` ([`mbank_core::io::backup`]); sends
/// [`Message::BackedUp`].
pub(crate) fn back_up(
    dir: PathBuf,
    project: String,
    source: PathBuf,
    bytes: Vec<u8>,
    side: BackupSide,
    clock: mbank_core::clock::Clock,
    outbox: Outbox,
) {
    let label = match side {
        BackupSide::Theirs => "theirs",
        BackupSide::MineBeforeTakingTheirs | BackupSide::MineBeforeMerging => "mine",
    };
    thread::spawn(move || {
        let result = mbank_core::io::backup::save(&dir, &project, &source, &bytes, label, &clock)
            .map_err(|e| e.to_string());
        let _ = outbox.send(Message::BackedUp { side, result });
    });
}

/// Reads a theme (the user's file first); sends [`Message::ThemeLoaded`].
pub(crate) fn load_theme(name: String, config_dir: Option<PathBuf>, outbox: Outbox) {
    thread::spawn(move || {
        let result = Theme::load(&name, config_dir.as_deref())
            .map(Box::new)
            .map_err(|e| e.to_string());
        let _ = outbox.send(Message::ThemeLoaded { name, result });
    });
}

/// Copies the demo banks to a fresh folder, removed when the app ends; sends
/// [`Message::DemoReady`]. Dated as of `clock`.
pub(crate) fn create_demo(clock: mbank_core::clock::Clock, outbox: Outbox) {
    thread::spawn(move || {
        let result = mbank_core::demo::create(&clock).map_err(|e| e.to_string());
        let _ = outbox.send(Message::DemoReady(result));
    });
}

/// Creates a Cline bank (its template files) in `path`; sends [`Message::BankCreated`].
pub(crate) fn create_bank(path: PathBuf, outbox: Outbox) {
    thread::spawn(move || {
        let result = mbank_core::init::init_bank(&path, mbank_core::init::InitFormat::Cline, None)
            .map(|_| ())
            .map_err(|e| e.to_string());
        let _ = outbox.send(Message::BankCreated { path, result });
    });
}

/// `mbank init` of `path` in `format` (its manifests read, the agent's instructions
/// added where no instruction file is); sends [`Message::BankCreated`].
pub(crate) fn init_project(
    path: PathBuf,
    format: mbank_core::init::InitFormat,
    ctx: mbank_core::write::WriteContext,
    outbox: Outbox,
) {
    thread::spawn(move || {
        let options = mbank_core::init::InitOptions {
            format,
            brief: None,
            instructions: mbank_core::init::InstructionsConsent::NewFileOnly,
            today: ctx.clock.today(),
        };
        let result = mbank_core::init::init_project(&path, &options, &ctx)
            .map(|_| ())
            .map_err(|e| e.to_string());
        let _ = outbox.send(Message::BankCreated { path, result });
    });
}

/// Writes the next decision record of the project in `project`; sends
/// [`Message::AdrCreated`].
pub(crate) fn new_adr(
    project: PathBuf,
    title: String,
    today: chrono::NaiveDate,
    ctx: mbank_core::write::WriteContext,
    outbox: Outbox,
) {
    thread::spawn(move || {
        let result = mbank_core::adr::new_adr(&project, None, &title, today, &ctx)
            .map(|made| made.path)
            .map_err(|e| e.to_string());
        let _ = outbox.send(Message::AdrCreated(result));
    });
}

/// How many of a file's newest versions the history list gives line changes for: each
/// costs a read and a diff, and a list of a thousand versions must still come quickly.
const HISTORY_LINE_CHANGES: usize = 200;
/// Longest one version's line count may take (a pathological text gets none).
const LINE_CHANGES_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(50);

/// The history this session's writes record into, or why there is none.
fn session_history(history: Option<&History>) -> Result<&History, String> {
    history.ok_or_else(|| {
        "mbank keeps no history in this session: it has no data folder (set MBANK_DATA_DIR or HOME)"
            .to_string()
    })
}

/// The file's text now: `None` when it is gone.
fn current_text(path: &Path) -> Result<Option<String>, String> {
    match mbank_core::io::text::read_text(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if mbank_core::io::text::is_not_found(&e) => Ok(None),
        Err(e) => Err(format!("cannot read the file now: {e}")),
    }
}

/// Lines added and removed from `old` to `new`.
fn line_changes(old: &str, new: &str) -> (usize, usize) {
    let diff = similar::TextDiff::configure()
        .timeout(LINE_CHANGES_TIMEOUT)
        .diff_lines(old, new);
    diff.iter_all_changes()
        .fold((0, 0), |(added, removed), change| match change.tag() {
            similar::ChangeTag::Insert => (added + 1, removed),
            similar::ChangeTag::Delete => (added, removed + 1),
            similar::ChangeTag::Equal => (added, removed),
        })
}

/// Lists the versions of the file at `path`, newest first, and sends them
/// ([`HistoryEvent::Listed`]); then works out what each write that replaced one changed
/// and sends that ([`HistoryEvent::Counted`], always, even after an error), so a long
/// history is on screen before every version is read back.
pub(crate) fn list_history(path: PathBuf, history: Option<History>, outbox: Outbox) {
    thread::spawn(move || {
        let versions = session_history(history.as_ref()).and_then(|history| {
            history
                .list(&path)
                .map_err(|e| format!("cannot read the history: {e}"))
        });
        let current = current_text(&path).ok().flatten();
        let result = versions
            .as_ref()
            .map_err(Clone::clone)
            .map(|versions| HistoryListing {
                versions: versions
                    .iter()
                    .rev()
                    .map(|version| ListedVersion {
                        version: version.clone(),
                        lines: None,
                    })
                    .collect(),
                current_size: current.as_ref().map(|t| t.len() as u64),
            });
        let listed = HistoryEvent::Listed {
            path: path.clone(),
            result,
        };
        if outbox.send(Message::History(listed)).is_err() {
            return;
        }
        let changes = match (session_history(history.as_ref()), versions) {
            (Ok(history), Ok(versions)) => line_changes_of(history, &path, &versions, current),
            _ => Vec::new(),
        };
        let _ = outbox.send(Message::History(HistoryEvent::Counted { path, changes }));
    });
}

/// For the newest versions (oldest first in `versions`), the lines added and removed
/// by the write that replaced each: compared with the next version's text, the newest
/// with `current` (a file gone counts as empty). A version whose text, or the next
/// one's, cannot be read gets none.
fn line_changes_of(
    history: &History,
    path: &Path,
    versions: &[mbank_core::history::Version],
    current: Option<String>,
) -> Vec<(u64, (usize, usize))> {
    let mut newer = Some(current.unwrap_or_default());
    let mut changes = Vec::new();
    for version in versions.iter().rev().take(HISTORY_LINE_CHANGES) {
        let text = history
            .version(path, version.version)
            .ok()
            .map(|(_, text)| text);
        if let (Some(old), Some(new)) = (&text, &newer) {
            changes.push((version.version, line_changes(old, new)));
        }
        newer = text;
    }
    changes
}

/// Compares two texts of the file at `path` as `key` says; sends [`HistoryEvent::Diffed`].
pub(crate) fn diff_history(path: PathBuf, key: DiffKey, history: Option<History>, outbox: Outbox) {
    thread::spawn(move || {
        let result = compare_versions(history.as_ref(), &path, key).map(Box::new);
        let _ = outbox.send(Message::History(HistoryEvent::Diffed { path, key, result }));
    });
}

fn compare_versions(
    history: Option<&History>,
    path: &Path,
    key: DiffKey,
) -> Result<VersionCompare, String> {
    let history = session_history(history)?;
    let text_of = |number: u64| {
        history
            .version(path, number)
            .map(|(_, text)| text)
            .map_err(|e| e.to_string())
    };
    let chosen = text_of(key.version)?;
    let compare = match key.base {
        DiffBase::Now => {
            let (now, note) = match current_text(path)? {
                Some(text) => (text, None),
                None => (
                    String::new(),
                    Some("the file is gone now: restoring brings it back".to_string()),
                ),
            };
            VersionCompare {
                diff: mbank_core::review::diff_texts(&chosen, &now),
                old_label: format!("version {}", key.version),
                new_label: "now".into(),
                note,
            }
        }
        DiffBase::Version(base) => VersionCompare {
            diff: mbank_core::review::diff_texts(&text_of(base)?, &chosen),
            old_label: format!("version {base}"),
            new_label: format!("version {}", key.version),
            note: None,
        },
    };
    Ok(compare)
}

/// Brings version `version` of the file at `path` back through the history's guarded
/// restore, confined to the innermost bank of `project` that holds it (the text it
/// replaces is recorded first); sends [`HistoryEvent::Restored`].
pub(crate) fn restore_version(
    project: Project,
    path: PathBuf,
    version: u64,
    history: Option<History>,
    ctx: mbank_core::write::WriteContext,
    outbox: Outbox,
) {
    thread::spawn(move || {
        let result = restore_in_project(&ctx, history.as_ref(), &project, &path, version);
        let _ = outbox.send(Message::History(HistoryEvent::Restored {
            path,
            version,
            result,
        }));
    });
}

fn restore_in_project(
    ctx: &mbank_core::write::WriteContext,
    history: Option<&History>,
    project: &Project,
    path: &Path,
    version: u64,
) -> Result<(), String> {
    let history = session_history(history)?;
    let banks = mbank_core::scan::bank::list_banks(project);
    let bank = banks
        .iter()
        .filter(|b| path.starts_with(&b.root))
        .max_by_key(|b| b.root.components().count())
        .ok_or_else(|| {
            format!(
                "{} belongs to no memory bank of {}",
                path.display(),
                project.name
            )
        })?;
    let relative = path
        .strip_prefix(&bank.root)
        .ok()
        .and_then(Path::to_str)
        .ok_or_else(|| format!("{} is not a UTF-8 name inside its bank", path.display()))?;
    mbank_core::write::restore(ctx, history, bank, relative, version)
        .map(|_| ())
        .map_err(|e| e.to_string())
}
