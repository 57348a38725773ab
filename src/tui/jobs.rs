//! One-shot jobs: everything the UI reads or writes on disk runs here, each on a thread
//! of its own, and answers with one [`Message`] (the loop never waits on the disk).
//! Reading for the editor and saving go through the core's edit API
//! ([`crate::core::edit`]): the same rules as every other write.
use std::path::{Path, PathBuf};
use std::thread;

use crate::core::edit::{self, EditText};
use crate::core::error::CoreError;
use crate::core::findings::Fix;
use crate::core::model::Project;

use super::message::{BackupSide, LoadError, LoadPurpose, LoadedFile, Message, SaveError};
use super::theme::Theme;
use super::workers::Outbox;

/// Reads one file (or one Infinity memory) for the editor; sends [`Message::FileLoaded`].
pub fn load_file(path: PathBuf, memory_id: Option<String>, purpose: LoadPurpose, outbox: Outbox) {
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
pub fn read_for_editing(path: &Path, memory_id: Option<&str>) -> Result<edit::Editable, LoadError> {
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
}

/// Saves through the core's guarded write, confined to the bank that lists the file; the
/// file's line endings, BOM, permissions and owner are kept (an Infinity memory: its id,
/// type and title). Sends [`Message::Saved`].
pub fn save(job: SaveJob, outbox: Outbox) {
    thread::spawn(move || {
        let result = edit::save_in_project(&job.project, &job.path, &job.disk, &job.text)
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
pub fn apply_fix(project: Project, path: PathBuf, fix: Fix, outbox: Outbox) {
    thread::spawn(move || {
        let result = fix_file(&project, &path, &fix).map(Box::new);
        let _ = outbox.send(Message::FixApplied { path, fix, result });
    });
}

fn fix_file(project: &Project, path: &Path, fix: &Fix) -> Result<edit::Saved, String> {
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
    edit::save_in_project(project, path, &editable.edit, &fixed).map_err(|e| match e {
        CoreError::Conflict { .. } => {
            "the file changed on disk while the fix was applied; nothing was written".to_string()
        }
        other => other.to_string(),
    })
}

/// Saves one side of a conflict under `dir` ([`crate::core::backup`]); sends
/// [`Message::BackedUp`].
pub fn back_up(
    dir: PathBuf,
    project: String,
    source: PathBuf,
    bytes: Vec<u8>,
    side: BackupSide,
    outbox: Outbox,
) {
    let label = match side {
        BackupSide::Theirs => "theirs",
        BackupSide::MineBeforeTakingTheirs | BackupSide::MineBeforeMerging => "mine",
    };
    thread::spawn(move || {
        let result = crate::core::backup::save(&dir, &project, &source, &bytes, label)
            .map_err(|e| e.to_string());
        let _ = outbox.send(Message::BackedUp { side, result });
    });
}

/// Reads a theme (the user's file first); sends [`Message::ThemeLoaded`].
pub fn load_theme(name: String, config_dir: Option<PathBuf>, outbox: Outbox) {
    thread::spawn(move || {
        let result = Theme::load(&name, config_dir.as_deref())
            .map(Box::new)
            .map_err(|e| e.to_string());
        let _ = outbox.send(Message::ThemeLoaded { name, result });
    });
}

/// Copies the demo banks to a fresh folder, removed when the app ends; sends
/// [`Message::DemoReady`].
pub fn create_demo(outbox: Outbox) {
    thread::spawn(move || {
        let result = crate::core::demo::create().map_err(|e| e.to_string());
        let _ = outbox.send(Message::DemoReady(result));
    });
}

/// Creates a Cline bank (its template files) in `path`; sends [`Message::BankCreated`].
pub fn create_bank(path: PathBuf, outbox: Outbox) {
    thread::spawn(move || {
        let result =
            crate::core::init::init_bank(&path, crate::core::init::InitFormat::Cline, None)
                .map(|_| ())
                .map_err(|e| e.to_string());
        let _ = outbox.send(Message::BankCreated { path, result });
    });
}
