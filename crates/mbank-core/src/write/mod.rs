//! Safe writes: nothing mbank saves may lose data or land outside the bank it is for.
//!
//! Two steps:
//! - [`resolve_target`] confines a name to one bank of one project: no `..`, no absolute
//!   names, no symlink escapes, markdown only where the format says so, and only files the
//!   bank listing shows (plus new `.md` files where a format keeps them).
//! - [`write_guarded`] refuses to write when the file on disk is no longer what the caller
//!   read ([`Expected`]), so an agent's update made meanwhile is never silently overwritten.
//!   It writes atomically: a temp file in the same folder, fsynced, renamed over the target,
//!   then the folder fsynced. Readers see the old or the new file, never half of one, and a
//!   failed write leaves the target byte-identical with no temp file behind.
//!
//! There is deliberately no unguarded overwrite: every write states what it expects.

use std::collections::hash_map::DefaultHasher;
use std::ffi::OsStr;
use std::fs;
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

use crate::error::{CoreError, Result};
use crate::formats;
use crate::formats::infinity;
use crate::io::dir_handle::{Dir, FileId, HandleError};
use crate::io::hash_index::BuildPathHasher;
use crate::model::{Bank, Format};

/// Read through a folder handle (in `io::text`); a write replacing it expects it unchanged.
pub(crate) use crate::io::text::{HandleRead, read_text_in};

mod apply;
mod context;

pub(crate) use apply::{Applied, WriteRequest};
pub use apply::{Change, Target, apply, restore};
pub use context::WriteContext;
pub(crate) use context::is_agent_writer;

/// A file's identity by content: length plus two independent 64-bit hashes.
///
/// Fingerprints compare what a caller read with what is on disk now, inside one process;
/// they are not stable across Rust versions and must not be persisted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint {
    len: u64,
    sip: u64,
    fold: u64,
}

impl Fingerprint {
    pub fn of(bytes: &[u8]) -> Fingerprint {
        let mut sip = DefaultHasher::new();
        sip.write(bytes);
        // foldhash beside SipHash: an accidental collision would have to hit both at once.
        let fold = BuildPathHasher::default().hash_one(bytes);
        Fingerprint {
            len: bytes.len() as u64,
            sip: sip.finish(),
            fold,
        }
    }

    /// Size in bytes of the content fingerprinted.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// What the caller believes is on disk: the write goes ahead only if it still is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// Nothing existed at the path: the write creates the file, and fails if something
    /// appeared there meanwhile.
    Missing,
    /// The file held exactly this content. Text decoded by `text::read_text` (which drops
    /// a UTF-8 byte-order mark) matches the raw file it came from.
    Content(Fingerprint),
}

const UTF8_BOM: &[u8] = &[0xEF, 0xBB, 0xBF];

impl Expected {
    /// The caller read this text.
    pub fn text(text: &str) -> Expected {
        Expected::Content(Fingerprint::of(text.as_bytes()))
    }

    /// The caller read these bytes.
    pub fn bytes(bytes: &[u8]) -> Expected {
        Expected::Content(Fingerprint::of(bytes))
    }

    /// What is on disk at `path` right now (`Missing` when nothing is there).
    pub fn current(path: &Path) -> Result<Expected> {
        match fs::metadata(path) {
            Ok(meta) if !meta.is_file() => return Err(not_a_regular_file(path)),
            _ => {}
        }
        let file = match fs::File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Expected::Missing),
            Err(e) => return Err(CoreError::io(path, e)),
        };
        let bytes = crate::io::text::read_opened(path, file, crate::io::text::MAX_READ_BYTES)?;
        Ok(Expected::bytes(&bytes))
    }

    /// Whether the bytes on disk are what was expected (tolerating a dropped BOM).
    fn matches_bytes(&self, bytes: &[u8]) -> bool {
        match self {
            Expected::Missing => false,
            Expected::Content(expected) => {
                *expected == Fingerprint::of(bytes)
                    || bytes
                        .strip_prefix(UTF8_BOM)
                        .is_some_and(|rest| *expected == Fingerprint::of(rest))
            }
        }
    }
}

/// What a successful write did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteOutcome {
    /// The file written (symlinks resolved).
    pub path: PathBuf,
    /// True when the file did not exist before.
    pub created: bool,
    pub bytes_written: u64,
    /// What is on disk now: pass it as the next write's [`Expected`] to save again
    /// without re-reading.
    pub now: Expected,
    /// False when the folder could not be fsynced after the rename (some filesystems do
    /// not support it); the new content is in place but may not survive a power cut.
    pub folder_synced: bool,
    /// False when the replaced file's owner or group could not be given to the new one:
    /// only a user saving a file that belongs to someone else (not root, who always can)
    /// ends up owning the saved file.
    pub ownership_kept: bool,
}

fn confined(name: &str, reason: impl Into<String>) -> CoreError {
    CoreError::Confined {
        name: name.to_string(),
        reason: reason.into(),
    }
}

/// Checks a bank-relative name's spelling and returns it as a clean relative path
/// (`.` components dropped). Says nothing about what is on disk.
pub(crate) fn validate_name(relative_name: &str) -> Result<PathBuf> {
    let name = relative_name;
    if name.trim().is_empty() {
        return Err(confined(name, "the file name is empty"));
    }
    if name.contains('\0') {
        return Err(confined(name, "the file name contains a NUL byte"));
    }
    // A backslash is a separator on Windows; refusing it everywhere keeps `..\x` out.
    if name.contains('\\') {
        return Err(confined(
            name,
            "backslashes are not allowed in file names; separate folders with /",
        ));
    }
    let path = Path::new(name);
    if path.is_absolute() || name.starts_with('/') {
        return Err(confined(
            name,
            "absolute paths are not allowed; name the file relative to the bank's folder",
        ));
    }
    let mut clean = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => clean.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(confined(
                    name,
                    "\"..\" is not allowed: it would leave the bank's folder",
                ));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(confined(
                    name,
                    "absolute paths are not allowed; name the file relative to the bank's folder",
                ));
            }
        }
    }
    if clean.as_os_str().is_empty() {
        return Err(confined(name, "the name does not name a file"));
    }
    Ok(clean)
}

fn has_md_extension(path: &Path) -> bool {
    path.extension()
        .and_then(OsStr::to_str)
        .is_some_and(|e| e.eq_ignore_ascii_case("md"))
}

/// The project folder a bank belongs to, as its format places it.
fn project_dir_of(bank: &Bank) -> PathBuf {
    formats::rules(bank.format)
        .project_of(&bank.root)
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or_else(|| PathBuf::from("."))
}

/// `path` relative to `base` for a message (never an absolute path an agent could
/// learn the layout from), or its last component when it is not below `base`.
fn shown_in(path: &Path, base: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        Ok(_) => ".".to_string(),
        Err(_) => path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    }
}

/// Where a format lets mbank create a file that does not exist yet.
fn may_create(format: Format, rel: &Path) -> bool {
    formats::rules(format).may_create(rel)
}

fn canonical(path: &Path, name: &str, what: &str) -> Result<PathBuf> {
    fs::canonicalize(path).map_err(|e| {
        confined(
            name,
            format!("cannot resolve {what} {}: {e}", path.display()),
        )
    })
}

/// Resolves a name relative to a bank's memory location (the project folder for
/// CLAUDE.md-style formats) to the real path a write may go to.
///
/// Accepted: (a) any file the bank listing shows, or (b) a new file where the format keeps
/// them: a `.md` directly in `memory-bank/`, in `.claude/memory/` or its `decisions/` and
/// `sessions/`, a known instruction file, or a rule under `.claude/rules/`. Refused, as
/// [`CoreError::Confined`]: empty names, NUL, absolute names, `..`, non-`.md` names in
/// markdown-only formats, and anything whose real path (symlinks resolved) leaves the
/// bank's folder or whose bank folder leaves its project.
pub fn resolve_target(bank: &Bank, relative_name: &str) -> Result<PathBuf> {
    let name = relative_name;
    let rel = validate_name(name)?;
    if let Some(reason) = formats::rules(bank.format).read_only() {
        return Err(confined(name, reason));
    }
    if bank.format.is_markdown_only() && !has_md_extension(&rel) {
        return Err(confined(
            name,
            format!("{} banks hold only .md files", bank.format.label()),
        ));
    }
    let candidate = bank.root.join(&rel);
    let listed = bank.files.iter().any(|f| f.path == candidate);
    if !listed && !may_create(bank.format, &rel) {
        return Err(confined(
            name,
            format!(
                "it is not a known file of the {} format, and new files may only be created where the format keeps them",
                bank.format.label()
            ),
        ));
    }

    // Isolation: the bank folder itself must not be a link into another project.
    let project = project_dir_of(bank);
    let real_project = canonical(&project, name, "the project folder")?;
    let real_root = canonical(&bank.root, name, "the bank folder")?;
    if !real_root.starts_with(&real_project) {
        return Err(confined(
            name,
            format!(
                "the bank folder {} leads outside its project through a symbolic link; \
                 mbank refuses it",
                shown_in(&bank.root, &project)
            ),
        ));
    }

    let parent = candidate.parent().unwrap_or(&bank.root);
    // A file directly in the bank's folder (most are) has the folder just resolved.
    let resolved_parent = if parent == bank.root {
        Ok(real_root.clone())
    } else {
        fs::canonicalize(parent)
    };
    let real_parent = match resolved_parent {
        Ok(p) => p,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(confined(
                name,
                format!("its folder {} does not exist", shown_in(parent, &bank.root)),
            ));
        }
        Err(e) => {
            return Err(confined(
                name,
                format!(
                    "cannot resolve its folder {}: {e}",
                    shown_in(parent, &bank.root)
                ),
            ));
        }
    };
    let file_name = rel.file_name().unwrap_or_default();
    let mut real = real_parent.join(file_name);
    // What is there, a link followed; not asked again of a file that is no link.
    let is_dir = match fs::symlink_metadata(&candidate) {
        Ok(meta) if meta.file_type().is_symlink() => {
            real = fs::canonicalize(&candidate).map_err(|_| {
                confined(
                    name,
                    "it is a symbolic link to something that does not exist",
                )
            })?;
            real.is_dir()
        }
        Ok(meta) => meta.is_dir(),
        Err(_) => false,
    };
    if !real.starts_with(&real_root) {
        return Err(confined(
            name,
            "it is, or passes through, a symbolic link leading outside the bank's folder; \
             mbank refuses it",
        ));
    }
    if bank.format.is_markdown_only() && !has_md_extension(&real) {
        return Err(confined(
            name,
            "it is a symbolic link to a file that is not a .md file; mbank refuses it",
        ));
    }
    if is_dir {
        return Err(confined(name, "it is a folder, not a file"));
    }
    Ok(real)
}

/// Follows a symlink at `target` so the link itself survives the rename.
fn follow_link(target: &Path) -> Result<PathBuf> {
    match fs::symlink_metadata(target) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(target).map_err(|e| CoreError::io(target, e))
        }
        _ => Ok(target.to_path_buf()),
    }
}

fn not_a_regular_file(path: &Path) -> CoreError {
    CoreError::io(
        path,
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a folder, FIFO, socket or device)",
        ),
    )
}

/// What a replaced file had that its replacement keeps.
struct Existing {
    meta: fs::Metadata,
    /// It starts with a UTF-8 byte-order mark.
    bom: bool,
}

/// Compares the file `name` directly in `dir` with `expected`; `Ok(Some(existing))` when
/// it exists as expected, `Ok(None)` when it is absent as expected. No link is followed
/// (a symlink there is refused), and with `same_file` the file must also be that one
/// (not another with the same content renamed in meanwhile).
fn check_expected_in(
    dir: &Dir,
    name: &str,
    expected: &Expected,
    same_file: Option<FileId>,
) -> Result<Option<Existing>> {
    let path = dir.path().join(name);
    let conflict = || CoreError::Conflict { path: path.clone() };
    let Expected::Content(fingerprint) = expected else {
        return match dir.entry_meta(OsStr::new(name))? {
            None => Ok(None),
            Some(entry) if entry.is_symlink => Err(HandleError::Symlink {
                rel: PathBuf::from(name),
            }
            .into()),
            Some(_) => Err(conflict()),
        };
    };
    let (file, meta) = match dir.open_file(Path::new(name)) {
        Ok(opened) => opened,
        Err(e) if e.is_not_found() => return Err(conflict()),
        Err(e) => return Err(e.into()),
    };
    if same_file.is_some_and(|id| id != FileId::of(&meta)) {
        return Err(conflict());
    }
    // Only the expected size (or that plus a BOM) can match: skip reading anything else.
    let size = meta.len();
    if size != fingerprint.len() && size != fingerprint.len() + UTF8_BOM.len() as u64 {
        return Err(conflict());
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(size + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CoreError::io(&path, e))?;
    if expected.matches_bytes(&bytes) {
        Ok(Some(Existing {
            meta,
            bom: bytes.starts_with(UTF8_BOM),
        }))
    } else {
        Err(conflict())
    }
}

impl HandleRead {
    /// What a write replacing this file expects on disk.
    pub fn expected(&self) -> Expected {
        Expected::text(&self.text)
    }
}

#[cfg(unix)]
fn sync_folder(dir: &Path) -> bool {
    fs::File::open(dir).and_then(|f| f.sync_all()).is_ok()
}

#[cfg(not(unix))]
fn sync_folder(_dir: &Path) -> bool {
    // Windows cannot open a folder as a file; NTFS journals the rename itself.
    true
}

/// Writes `new_text` to `target` only if the file on disk is still what the caller read.
///
/// The content is checked twice: before any work, and again right before the rename.
/// Creating a file (`Expected::Missing`) is race-free: the rename refuses to replace
/// anything that appeared meanwhile. Replacing a file leaves a window of a few
/// microseconds between the last check and the rename in which another process's write
/// would be replaced; closing it needs file locks the agents do not take.
///
/// A replaced file keeps what is not its text: its permissions, its owner and group
/// (see [`WriteOutcome::ownership_kept`]) and its UTF-8 byte-order mark (added back when
/// `new_text` has none). Line endings are the caller's: [`crate::edit`] re-applies
/// a file's own.
///
/// A symlink at `target` is followed, so the link stays and its target is updated; the
/// folder is then opened once (refused if it is itself a link) and the write is
/// `write_in` relative to it. On any error the target is untouched and no temp file is left behind; temp files
/// that an earlier, killed write left in the folder are removed once stale
/// (`STALE_TEMP_AGE`).
pub fn write_guarded(target: &Path, new_text: &str, expected: Expected) -> Result<WriteOutcome> {
    write_guarded_with_hook(target, new_text, expected, &mut |_| {})
}

/// Writes `new_text` to the file `name` directly in the folder `dir` only if it is still
/// what the caller read ([`write_guarded`]'s checks), and, with `same_file`, still the
/// very file read ([`HandleRead::id`]). Nothing is opened by path: the check, the temp
/// file (`O_EXCL`, no link followed) and the rename are all relative to `dir`, and a
/// symlink at `name` is refused, never followed.
pub(crate) fn write_in(
    dir: &Dir,
    name: &str,
    new_text: &str,
    expected: Expected,
    same_file: Option<FileId>,
) -> Result<WriteOutcome> {
    write_in_with_hook(dir, name, new_text, expected, same_file, &mut |_| {})
}

/// The suffix of every temp file a write makes: `.{name}.{8 random}.mbank-tmp`.
const TEMP_SUFFIX: &str = ".mbank-tmp";
/// Random characters in a temp file's name.
const TEMP_RANDOM_LEN: usize = 8;

/// A temp file this old is an orphan of a killed write, never one in progress: a write
/// (at most [`crate::io::text::MAX_READ_BYTES`], fsynced) takes seconds even on a slow disk,
/// and a writer whose temp file was removed under it fails before the rename, leaving
/// the target untouched.
pub(crate) const STALE_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// Whether `name` is a temp file name of [`write_guarded`]'s own pattern.
fn is_temp_name(name: &str) -> bool {
    let Some(stem) = name
        .strip_prefix('.')
        .and_then(|n| n.strip_suffix(TEMP_SUFFIX))
    else {
        return false;
    };
    let Some((file, random)) = stem.rsplit_once('.') else {
        return false;
    };
    !file.is_empty()
        && random.len() == TEMP_RANDOM_LEN
        && random.bytes().all(|b| b.is_ascii_alphanumeric())
}

#[cfg(test)]
fn remove_temp_files_older_than(dir: &Path, age: std::time::Duration) -> usize {
    match Dir::open_anchor(dir) {
        Ok(dir) => remove_temp_files_in(&dir, age),
        Err(_) => 0,
    }
}

/// [`remove_stale_temp_files`] in an open folder.
fn remove_temp_files_in(dir: &Dir, age: std::time::Duration) -> usize {
    let Ok(names) = dir.names() else {
        return 0;
    };
    let now = std::time::SystemTime::now();
    let mut removed = 0;
    for name in names {
        if !name.to_str().is_some_and(is_temp_name) {
            continue;
        }
        // Never follows a link: a temp file is always a regular file.
        let Ok(Some(entry)) = dir.entry_meta(&name) else {
            continue;
        };
        let stale = entry
            .modified
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|elapsed| elapsed >= age);
        let is_file = entry.is_file;
        if is_file && stale && dir.remove_file(&name).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Gives the temp file the replaced file's owner and group, then its permissions (a
/// change of owner clears set-id bits, so the mode comes last). Returns whether the
/// owner and group are the replaced file's.
#[cfg(unix)]
fn keep_identity(temp: &fs::File, temp_path: &Path, existing: &fs::Metadata) -> Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let mine = temp.metadata().map_err(|e| CoreError::io(temp_path, e))?;
    let mut kept = true;
    if (mine.uid(), mine.gid()) != (existing.uid(), existing.gid()) {
        match std::os::unix::fs::fchown(temp, Some(existing.uid()), Some(existing.gid())) {
            Ok(()) => {}
            // Not root: a user can keep a group it belongs to, never another's ownership.
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                let group_kept = mine.uid() == existing.uid()
                    || std::os::unix::fs::fchown(temp, None, Some(existing.gid())).is_ok();
                kept = mine.uid() == existing.uid() && group_kept;
            }
            Err(e) => return Err(CoreError::io(temp_path, e)),
        }
    }
    temp.set_permissions(existing.permissions())
        .map_err(|e| CoreError::io(temp_path, e))?;
    Ok(kept)
}

#[cfg(not(unix))]
fn keep_identity(temp: &fs::File, temp_path: &Path, existing: &fs::Metadata) -> Result<bool> {
    temp.set_permissions(existing.permissions())
        .map_err(|e| CoreError::io(temp_path, e))?;
    Ok(true)
}

/// Refuses to leave `bytes` bytes in the file at `path` when mbank could not read that
/// back (the guard's `size` rule, whoever writes).
pub(crate) fn refuse_too_large(path: &Path, bytes: u64) -> Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    crate::guard::check_size(&name, bytes, false).map_err(|refusal| CoreError::Refused {
        path: path.to_path_buf(),
        rule: refusal.rule(),
        message: refusal.message(),
    })
}

/// `write_guarded` with a hook run after the temp file is complete and before the final
/// check: tests use it to play the other writer in the race.
fn write_guarded_with_hook(
    target: &Path,
    new_text: &str,
    expected: Expected,
    before_commit: &mut dyn FnMut(&Path),
) -> Result<WriteOutcome> {
    let target = follow_link(target)?;
    let dir_path = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = target.file_name().and_then(OsStr::to_str).ok_or_else(|| {
        CoreError::io(
            &target,
            io::Error::new(io::ErrorKind::InvalidInput, "does not name a file"),
        )
    })?;
    // Links on the way were judged by the caller's confinement: the real folder is
    // opened once (refused should a link replace it meanwhile), and all else is relative.
    let real_dir = fs::canonicalize(&dir_path).map_err(|e| CoreError::io(&dir_path, e))?;
    let dir = Dir::open_unlinked(&real_dir)?;
    write_in_with_hook(&dir, file_name, new_text, expected, None, before_commit)
}

fn write_in_with_hook(
    dir: &Dir,
    name: &str,
    new_text: &str,
    expected: Expected,
    same_file: Option<FileId>,
    before_commit: &mut dyn FnMut(&Path),
) -> Result<WriteOutcome> {
    let target = dir.path().join(name);
    if name.contains('/') || name == "." || name == ".." || name.is_empty() {
        return Err(HandleError::Escape { rel: target }.into());
    }
    let existing = check_expected_in(dir, name, &expected, same_file)?;
    remove_temp_files_in(dir, STALE_TEMP_AGE);
    let keep_bom = existing.as_ref().is_some_and(|e| e.bom) && !new_text.starts_with('\u{FEFF}');
    let bom: &[u8] = if keep_bom { UTF8_BOM } else { &[] };
    let bytes = new_text.as_bytes();
    refuse_too_large(&target, (bom.len() + bytes.len()) as u64)?;

    // A replacement starts owner-only and gets the replaced file's mode below; a new
    // file gets the usual mode the umask gives.
    let mode = if existing.is_some() { 0o600 } else { 0o666 };
    // Dropping `temp` on any early return removes the temp file.
    let temp = dir.create_temp(&format!(".{name}."), TEMP_SUFFIX, mode)?;
    let mut file = temp.file();
    file.write_all(bom)
        .and_then(|()| file.write_all(bytes))
        .and_then(|()| file.sync_all())
        .map_err(|e| CoreError::io(temp.path(), e))?;
    let ownership_kept = match &existing {
        Some(existing) => keep_identity(temp.file(), &temp.path(), &existing.meta)?,
        None => true,
    };

    before_commit(&target);
    match &existing {
        None => temp.commit(name, false).map_err(|e| {
            if e.kind() == Some(io::ErrorKind::AlreadyExists) {
                CoreError::Conflict {
                    path: target.clone(),
                }
            } else {
                e.into()
            }
        })?,
        Some(first) => {
            // The same file as checked first, still holding what the caller read.
            check_expected_in(dir, name, &expected, Some(FileId::of(&first.meta)))?;
            temp.commit(name, true)?;
        }
    }
    let folder_synced = dir.sync();
    let now = if keep_bom {
        Expected::bytes(&[UTF8_BOM, bytes].concat())
    } else {
        Expected::bytes(bytes)
    };
    Ok(WriteOutcome {
        path: target,
        created: existing.is_none(),
        bytes_written: (bom.len() + bytes.len()) as u64,
        now,
        folder_synced,
        ownership_kept,
    })
}

/// [`write_in`] for a caller that knows its anchor (a project folder) but holds no
/// handle: `rel`'s folders are opened below `anchor` with no link followed, then the file
/// is written relative to them. `rel` is a clean relative path ([`validate_name`]).
pub(crate) fn write_beneath(
    anchor: &Path,
    rel: &Path,
    new_text: &str,
    expected: Expected,
) -> Result<WriteOutcome> {
    let (dir, name) = folder_beneath(anchor, rel)?;
    write_in(&dir, &name, new_text, expected, None)
}

/// [`read_text_in`] below `anchor`, every step of `rel` without following a link.
pub(crate) fn read_text_beneath(anchor: &Path, rel: &Path) -> Result<Option<HandleRead>> {
    read_text_in(&Dir::open_anchor(anchor)?, rel)
}

/// The folder holding `rel` below `anchor` (opened with no link followed) and the name.
fn folder_beneath(anchor: &Path, rel: &Path) -> Result<(Dir, String)> {
    let not_a_file = || {
        CoreError::from(HandleError::Escape {
            rel: rel.to_path_buf(),
        })
    };
    let name = rel
        .file_name()
        .and_then(OsStr::to_str)
        .ok_or_else(not_a_file)?;
    let root = Dir::open_anchor(anchor)?;
    let dir = match rel.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(folder) => root.open_dir(folder)?,
        None => root,
    };
    Ok((dir, name.to_string()))
}

/// Deletes the file `name` directly in `dir` only if it still holds what the caller
/// read and, with `same_file`, is still the file read; a symlink there is refused.
pub(crate) fn remove_in(
    dir: &Dir,
    name: &str,
    expected: Expected,
    same_file: Option<FileId>,
) -> Result<()> {
    check_expected_in(dir, name, &expected, same_file)?;
    if expected != Expected::Missing {
        dir.remove_file(OsStr::new(name))?;
        dir.sync();
    }
    Ok(())
}

/// Deletes `target` only if it still holds what the caller read (`Expected::Missing`:
/// succeeds when nothing is there). A symlink is removed itself, after its target's
/// content was checked. Used by review to drop a file the person confirmed to discard.
pub(crate) fn remove_guarded(target: &Path, expected: Expected) -> Result<()> {
    if expected == Expected::Missing {
        return match fs::symlink_metadata(target) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            _ => Err(CoreError::Conflict {
                path: target.to_path_buf(),
            }),
        };
    }
    let real = follow_link(target)?;
    let (dir, name) = match (real.parent(), real.file_name().and_then(OsStr::to_str)) {
        (Some(parent), Some(name)) if !parent.as_os_str().is_empty() => (parent, name),
        (_, Some(name)) => (Path::new("."), name),
        _ => {
            return Err(CoreError::io(
                &real,
                io::Error::new(io::ErrorKind::InvalidInput, "does not name a file"),
            ));
        }
    };
    let real_dir = fs::canonicalize(dir).map_err(|e| CoreError::io(dir, e))?;
    check_expected_in(&Dir::open_unlinked(&real_dir)?, name, &expected, None)?;
    fs::remove_file(target).map_err(|e| CoreError::io(target, e))?;
    if let Some(dir) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
        sync_folder(dir);
    }
    Ok(())
}

/// Replaces one Infinity memory's content, keeping its id, type and title, through the
/// same guarded atomic write. `expected_store_text` is the store as the caller read it:
/// if anything changed the store since, nothing is written ([`CoreError::Conflict`]).
pub fn write_infinity_content(
    store: &Path,
    id: &str,
    new_content: &str,
    expected_store_text: &str,
    clock: crate::clock::Clock,
) -> Result<WriteOutcome> {
    let now = clock
        .utc()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    write_infinity_content_at(store, id, new_content, expected_store_text, &now)
}

/// [`write_infinity_content`] with the `updated_at` stamp given (RFC 3339).
pub(crate) fn write_infinity_content_at(
    store: &Path,
    id: &str,
    new_content: &str,
    expected_store_text: &str,
    now_rfc3339: &str,
) -> Result<WriteOutcome> {
    if store.file_name() != Some(OsStr::new(infinity::STORE_FILE)) {
        return Err(confined(
            &store.display().to_string(),
            format!(
                "Infinity memories live in a file named {}",
                infinity::STORE_FILE
            ),
        ));
    }
    let new_text =
        infinity::store::replace_content(expected_store_text, id, new_content, now_rfc3339)
            .map_err(|message| CoreError::Parse {
                path: store.to_path_buf(),
                message,
            })?;
    write_guarded(store, &new_text, Expected::text(expected_store_text))
}

#[cfg(test)]
pub(crate) mod tests;
