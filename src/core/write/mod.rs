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

use crate::core::error::{CoreError, Result};
use crate::core::formats;
use crate::core::formats::infinity;
use crate::core::io::dir_handle::{Dir, FileId, HandleError};
use crate::core::io::hash_index::BuildPathHasher;
use crate::core::model::{Bank, Format};

/// Read through a folder handle (in `io::text`); a write replacing it expects it unchanged.
pub use crate::core::io::text::{HandleRead, read_text_in};

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
        let limit = crate::core::io::text::MAX_READ_BYTES;
        let mut bytes = Vec::new();
        file.take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| CoreError::io(path, e))?;
        if bytes.len() as u64 > limit {
            return Err(CoreError::TooLarge {
                path: path.to_path_buf(),
                size: bytes.len() as u64,
                limit,
            });
        }
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
pub fn validate_name(relative_name: &str) -> Result<PathBuf> {
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
    let real_parent = match fs::canonicalize(parent) {
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
    match fs::symlink_metadata(&candidate) {
        Ok(meta) if meta.file_type().is_symlink() => {
            real = fs::canonicalize(&candidate).map_err(|_| {
                confined(
                    name,
                    "it is a symbolic link to something that does not exist",
                )
            })?;
        }
        Ok(_) | Err(_) => {}
    }
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
    if real.is_dir() {
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
/// `new_text` has none). Line endings are the caller's: [`crate::core::edit`] re-applies
/// a file's own.
///
/// A symlink at `target` is followed, so the link stays and its target is updated; the
/// folder is then opened once (refused if it is itself a link) and the write is
/// [`write_in`] relative to it. On any error the target is untouched and no temp file is left behind; temp files
/// that an earlier, killed write left in the folder are removed once stale
/// ([`STALE_TEMP_AGE`]).
pub fn write_guarded(target: &Path, new_text: &str, expected: Expected) -> Result<WriteOutcome> {
    write_guarded_with_hook(target, new_text, expected, &mut |_| {})
}

/// Writes `new_text` to the file `name` directly in the folder `dir` only if it is still
/// what the caller read ([`write_guarded`]'s checks), and, with `same_file`, still the
/// very file read ([`HandleRead::id`]). Nothing is opened by path: the check, the temp
/// file (`O_EXCL`, no link followed) and the rename are all relative to `dir`, and a
/// symlink at `name` is refused, never followed.
pub fn write_in(
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
/// (at most [`crate::core::io::text::MAX_READ_BYTES`], fsynced) takes seconds even on a slow disk,
/// and a writer whose temp file was removed under it fails before the rename, leaving
/// the target untouched.
pub const STALE_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(15 * 60);

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

/// Removes temp files of killed writes from `dir`: regular files of mbank's own naming
/// pattern, last modified at least [`STALE_TEMP_AGE`] ago. Returns how many were
/// removed; what cannot be listed or removed is left for the next write.
pub fn remove_stale_temp_files(dir: &Path) -> usize {
    remove_temp_files_older_than(dir, STALE_TEMP_AGE)
}

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
pub fn write_beneath(
    anchor: &Path,
    rel: &Path,
    new_text: &str,
    expected: Expected,
) -> Result<WriteOutcome> {
    let (dir, name) = folder_beneath(anchor, rel)?;
    write_in(&dir, &name, new_text, expected, None)
}

/// [`read_text_in`] below `anchor`, every step of `rel` without following a link.
pub fn read_text_beneath(anchor: &Path, rel: &Path) -> Result<Option<HandleRead>> {
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
pub fn remove_in(
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
pub fn remove_guarded(target: &Path, expected: Expected) -> Result<()> {
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
) -> Result<WriteOutcome> {
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    write_infinity_content_at(store, id, new_content, expected_store_text, &now)
}

/// [`write_infinity_content`] with the `updated_at` stamp given (RFC 3339).
pub fn write_infinity_content_at(
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
mod tests {
    use super::*;
    use crate::core::model::MemoryFile;

    fn leftover_temp_files(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".mbank-tmp"))
            .collect()
    }

    fn bank_with(format: Format, root: &Path, listed: &[&str]) -> Bank {
        Bank {
            format,
            root: root.to_path_buf(),
            files: listed
                .iter()
                .map(|rel| MemoryFile {
                    path: root.join(rel),
                    display: rel.to_string(),
                    role: crate::core::model::Role::Other,
                    layer: None,
                    order: 0,
                    group: None,
                    load: crate::core::model::LoadKind::Startup,
                    size: 0,
                    modified: None,
                    memory: None,
                    unreadable: None,
                })
                .collect(),
            project_id: None,
            modes: Vec::new(),
            problems: Vec::new(),
            outside: Vec::new(),
        }
    }

    fn reason(err: CoreError) -> String {
        match err {
            CoreError::Confined { reason, .. } => reason,
            other => panic!("expected Confined, got {other}"),
        }
    }

    #[test]
    fn names_are_checked_before_the_disk() {
        assert_eq!(
            validate_name("./progress.md").unwrap(),
            PathBuf::from("progress.md")
        );
        assert_eq!(
            validate_name("decisions/ADR-001-x.md").unwrap(),
            PathBuf::from("decisions/ADR-001-x.md")
        );
        assert!(reason(validate_name("").unwrap_err()).contains("empty"));
        assert!(reason(validate_name("   ").unwrap_err()).contains("empty"));
        assert!(reason(validate_name(".").unwrap_err()).contains("does not name"));
        assert!(reason(validate_name("a\0.md").unwrap_err()).contains("NUL"));
        assert!(reason(validate_name("/etc/passwd").unwrap_err()).contains("absolute"));
        assert!(reason(validate_name("../other/x.md").unwrap_err()).contains(".."));
        assert!(reason(validate_name("sub/../../x.md").unwrap_err()).contains(".."));
        assert!(reason(validate_name("..\\x.md").unwrap_err()).contains("backslash"));
    }

    #[test]
    fn guarded_write_replaces_matching_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("progress.md");
        fs::write(&path, "old\n").unwrap();
        let outcome = write_guarded(&path, "new\n", Expected::text("old\n")).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
        assert!(!outcome.created);
        assert_eq!(outcome.bytes_written, 4);
        assert_eq!(outcome.now, Expected::text("new\n"));
        // The outcome chains into the next save without re-reading.
        write_guarded(&path, "newer\n", outcome.now).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "newer\n");
        assert!(leftover_temp_files(dir.path()).is_empty());
    }

    #[test]
    fn conflicts_leave_the_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("activeContext.md");
        // Changed since read.
        fs::write(&path, "agent wrote this\n").unwrap();
        let err = write_guarded(&path, "mine\n", Expected::text("what I read\n")).unwrap_err();
        assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "agent wrote this\n");
        // Same size, different bytes.
        let err = write_guarded(&path, "mine\n", Expected::text("agent wrote thiS\n")).unwrap_err();
        assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
        // Created since read.
        let err = write_guarded(&path, "mine\n", Expected::Missing).unwrap_err();
        assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "agent wrote this\n");
        // Deleted since read.
        let gone = dir.path().join("gone.md");
        let err = write_guarded(&gone, "mine\n", Expected::text("x")).unwrap_err();
        assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
        assert!(!gone.exists());
        assert!(leftover_temp_files(dir.path()).is_empty());
    }

    #[test]
    fn current_state_is_missing_or_the_bytes_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.md");
        assert_eq!(Expected::current(&path).unwrap(), Expected::Missing);
        fs::write(&path, "abc").unwrap();
        assert_eq!(Expected::current(&path).unwrap(), Expected::text("abc"));
        assert_ne!(Expected::text("abc"), Expected::text("abd"));
    }

    #[test]
    fn text_read_without_its_bom_still_matches() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bom.md");
        fs::write(&path, b"\xEF\xBB\xBF# Title\n").unwrap();
        let read = crate::core::io::text::read_text(&path).unwrap();
        assert_eq!(read, "# Title\n");
        let outcome = write_guarded(&path, "# Title 2\n", Expected::text(&read)).unwrap();
        // The file keeps its byte-order mark, and the outcome says what is on disk.
        assert_eq!(fs::read(&path).unwrap(), b"\xEF\xBB\xBF# Title 2\n");
        assert_eq!(outcome.bytes_written, 13);
        assert_eq!(outcome.now, Expected::current(&path).unwrap());
        // A text that brings its own BOM gets no second one.
        write_guarded(&path, "\u{FEFF}# Title 3\n", outcome.now).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"\xEF\xBB\xBF# Title 3\n");
        // A new file gets none.
        let fresh = dir.path().join("fresh.md");
        write_guarded(&fresh, "x\n", Expected::Missing).unwrap();
        assert_eq!(fs::read(&fresh).unwrap(), b"x\n");
    }

    #[cfg(unix)]
    #[test]
    fn private_files_stay_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secrets.md");
        fs::write(&path, "a").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        write_guarded(&path, "b", Expected::text("a")).unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600, "mode {mode:o}");
    }

    #[cfg(unix)]
    #[test]
    fn owner_and_group_are_kept() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shared.md");
        fs::write(&path, "a").unwrap();
        let me = fs::metadata(&path).unwrap();
        // Root can give the file away and must give the saved file back; anyone else
        // keeps their own ownership, which the write must not lose either.
        let other = if me.uid() == 0 {
            std::os::unix::fs::chown(&path, Some(4321), Some(4322)).unwrap();
            (4321, 4322)
        } else {
            eprintln!(
                "not running as root: giving a file to another user is not possible, only own ownership is checked"
            );
            (me.uid(), me.gid())
        };
        let outcome = write_guarded(&path, "b", Expected::text("a")).unwrap();
        let after = fs::metadata(&path).unwrap();
        assert_eq!((after.uid(), after.gid()), other);
        assert!(outcome.ownership_kept);
        assert_eq!(fs::read(&path).unwrap(), b"b");
    }

    #[test]
    fn temp_names_follow_the_write_pattern_only() {
        assert!(is_temp_name(".progress.md.AbC123xY.mbank-tmp"));
        assert!(is_temp_name(".a.b.md.00000000.mbank-tmp"));
        for other in [
            "progress.md.AbC123xY.mbank-tmp",
            ".progress.md.short.mbank-tmp",
            "..AbC123xY.mbank-tmp",
            ".progress.md.AbC-23xY.mbank-tmp",
            ".progress.md.AbC123xY.mbank-tmp.md",
            "notes.mbank-tmp",
        ] {
            assert!(!is_temp_name(other), "{other}");
        }
    }

    #[test]
    fn stale_temp_files_are_removed_on_the_next_write_and_fresh_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let old =
            std::time::SystemTime::now() - STALE_TEMP_AGE - std::time::Duration::from_secs(60);
        let make = |name: &str, stale: bool| {
            let path = dir.path().join(name);
            fs::write(&path, "orphan").unwrap();
            if stale {
                fs::File::options()
                    .write(true)
                    .open(&path)
                    .unwrap()
                    .set_modified(old)
                    .unwrap();
            }
            path
        };
        let orphan = make(".progress.md.Xy12Ab34.mbank-tmp", true);
        let other_orphan = make(".notes.md.Qq99Zz00.mbank-tmp", true);
        // A write in progress in another process: recent, so kept.
        let in_progress = make(".progress.md.Fresh123.mbank-tmp", false);
        // Stale but not of mbank's pattern: someone else's file.
        let foreign = make("backup.mbank-tmp", true);
        let path = dir.path().join("progress.md");
        fs::write(&path, "a").unwrap();
        write_guarded(&path, "b", Expected::text("a")).unwrap();
        assert!(!orphan.exists() && !other_orphan.exists());
        assert!(in_progress.exists() && foreign.exists());
        assert_eq!(fs::read(&path).unwrap(), b"b");
        #[cfg(unix)]
        {
            // A link named like a temp file is not followed or removed.
            let target = make("kept.md", true);
            let link = dir.path().join(".kept.md.Link1234.mbank-tmp");
            std::os::unix::fs::symlink(&target, &link).unwrap();
            assert_eq!(
                remove_temp_files_older_than(dir.path(), std::time::Duration::ZERO),
                1
            );
            assert!(target.exists() && fs::symlink_metadata(&link).is_ok());
            assert!(!in_progress.exists());
        }
    }

    #[test]
    fn creating_a_file_uses_missing_and_ordinary_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.md");
        let outcome = write_guarded(&path, "# New\n", Expected::Missing).unwrap();
        assert!(outcome.created);
        assert_eq!(fs::read_to_string(&path).unwrap(), "# New\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            // Not the 0600 of a raw temp file: group/other read follows the umask.
            assert_ne!(mode, 0o600, "mode {mode:o}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_preserved_and_symlinks_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.md");
        fs::write(&real, "a").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_guarded(&link, "b", Expected::text("a")).unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "b");
        let mode = fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }

    #[cfg(unix)]
    #[test]
    fn failed_write_leaves_target_and_no_temp_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("ro");
        fs::create_dir(&sub).unwrap();
        let path = sub.join("x.md");
        fs::write(&path, "keep me").unwrap();
        fs::set_permissions(&sub, fs::Permissions::from_mode(0o500)).unwrap();
        let result = write_guarded(&path, "lost?", Expected::text("keep me"));
        fs::set_permissions(&sub, fs::Permissions::from_mode(0o700)).unwrap();
        match result {
            Err(err) => {
                assert!(matches!(err, CoreError::Io { .. }), "{err}");
                assert_eq!(fs::read(&path).unwrap(), b"keep me");
                assert!(leftover_temp_files(&sub).is_empty());
            }
            // Root ignores folder permissions; the race test covers cleanup for root.
            Ok(_) => eprintln!("running as root: read-only folder not enforced, skipped"),
        }
    }

    #[test]
    fn a_change_during_the_write_is_caught_before_the_rename() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("progress.md");
        fs::write(&path, "read\n").unwrap();
        let err = write_guarded_with_hook(&path, "mine\n", Expected::text("read\n"), &mut |p| {
            assert_eq!(leftover_temp_files(dir.path()).len(), 1);
            fs::write(p, "agent\n").unwrap();
        })
        .unwrap_err();
        assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
        assert_eq!(fs::read(&path).unwrap(), b"agent\n");
        assert!(leftover_temp_files(dir.path()).is_empty());

        // Creating: the no-clobber rename refuses a file that appeared meanwhile.
        let fresh = dir.path().join("new.md");
        let err = write_guarded_with_hook(&fresh, "mine\n", Expected::Missing, &mut |p| {
            fs::write(p, "agent\n").unwrap();
        })
        .unwrap_err();
        assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
        assert_eq!(fs::read(&fresh).unwrap(), b"agent\n");
        assert!(leftover_temp_files(dir.path()).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_path_through_a_folder_link_the_caller_confined_is_still_written() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("docs/bank")).unwrap();
        std::os::unix::fs::symlink("docs/bank", dir.path().join("memory-bank")).unwrap();
        let path = dir.path().join("memory-bank/new.md");
        let outcome = write_guarded(&path, "x\n", Expected::Missing).unwrap();
        assert_eq!(
            fs::read(dir.path().join("docs/bank/new.md")).unwrap(),
            b"x\n"
        );
        assert_eq!(
            outcome.path,
            fs::canonicalize(dir.path().join("docs/bank/new.md")).unwrap()
        );
        remove_guarded(&path, outcome.now).unwrap();
        assert!(!dir.path().join("docs/bank/new.md").exists());
    }

    #[cfg(unix)]
    #[test]
    fn writes_beneath_an_anchor_refuse_a_folder_swapped_for_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let project = dir.path();
        fs::create_dir_all(project.join(".infinity")).unwrap();
        let rel = Path::new(".infinity/memories.json");
        write_beneath(project, rel, "{}\n", Expected::Missing).unwrap();
        let read = read_text_beneath(project, rel).unwrap().unwrap();
        assert_eq!(read.text, "{}\n");
        fs::rename(project.join(".infinity"), project.join("moved")).unwrap();
        std::os::unix::fs::symlink(outside.path(), project.join(".infinity")).unwrap();
        let err = write_beneath(project, rel, "x", Expected::Missing).unwrap_err();
        assert!(matches!(err, CoreError::Confined { .. }), "{err}");
        assert!(read_text_beneath(project, rel).is_err());
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn a_write_insists_on_the_very_file_it_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("progress.md");
        fs::write(&path, "same\n").unwrap();
        let folder = Dir::open_anchor(dir.path()).unwrap();
        let read = read_text_in(&folder, Path::new("progress.md"))
            .unwrap()
            .unwrap();
        let swap_in_a_twin = |p: &Path| {
            let twin = p.with_file_name("twin");
            fs::write(&twin, "same\n").unwrap();
            fs::rename(&twin, p).unwrap();
        };
        // Replaced by another file with the same content before the write…
        swap_in_a_twin(&path);
        let err = write_in(
            &folder,
            "progress.md",
            "mine\n",
            read.expected(),
            Some(read.id),
        )
        .unwrap_err();
        assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
        // …or between the write's first check and its rename.
        let read = read_text_in(&folder, Path::new("progress.md"))
            .unwrap()
            .unwrap();
        let err = write_in_with_hook(
            &folder,
            "progress.md",
            "mine\n",
            read.expected(),
            Some(read.id),
            &mut |p| swap_in_a_twin(p),
        )
        .unwrap_err();
        assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
        assert_eq!(fs::read(&path).unwrap(), b"same\n");
        assert!(leftover_temp_files(dir.path()).is_empty());
        // A symlink swapped in at the name is refused, and its target untouched.
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim.sh");
        fs::write(&victim, "theirs").unwrap();
        let read = read_text_in(&folder, Path::new("progress.md"))
            .unwrap()
            .unwrap();
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        let err = write_in(
            &folder,
            "progress.md",
            "mine\n",
            read.expected(),
            Some(read.id),
        )
        .unwrap_err();
        assert!(matches!(err, CoreError::Confined { .. }), "{err}");
        assert!(!err.to_string().contains(outside.path().to_str().unwrap()));
        assert_eq!(fs::read(&victim).unwrap(), b"theirs");
        assert!(leftover_temp_files(dir.path()).is_empty());
    }

    #[test]
    fn guarded_removal_checks_content_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.md");
        fs::write(&path, "agent\n").unwrap();
        let err = remove_guarded(&path, Expected::text("other\n")).unwrap_err();
        assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
        assert!(path.exists());
        let err = remove_guarded(&path, Expected::Missing).unwrap_err();
        assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
        remove_guarded(&path, Expected::text("agent\n")).unwrap();
        assert!(!path.exists());
        remove_guarded(&path, Expected::Missing).unwrap();
    }

    #[test]
    fn writing_over_a_folder_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("decisions");
        fs::create_dir(&folder).unwrap();
        let err = write_guarded(&folder, "x", Expected::text("x")).unwrap_err();
        assert!(matches!(err, CoreError::Io { .. }), "{err}");
        assert!(folder.is_dir());
    }

    #[test]
    fn project_folder_is_found_from_every_bank_layout() {
        let cases = [
            (Format::Cline, "/r/p/memory-bank", "/r/p"),
            (Format::Cline, "/r/p/.cursor/memory-bank", "/r/p"),
            (
                Format::MemoryBankMcp,
                "/r/p/docs/global-memory-bank",
                "/r/p",
            ),
            (Format::ConKeeper, "/r/p/.claude/memory", "/r/p"),
            (Format::ConKeeper, "/r/p/.ai/memory", "/r/p"),
            (Format::Infinity, "/r/p/.infinity", "/r/p"),
            (Format::ClaudeMd, "/r/p", "/r/p"),
            (Format::RooRules, "/r/p", "/r/p"),
            // A project that happens to be called docs keeps its own memory-bank.
            (Format::Cline, "/r/docs/memory-bank", "/r/docs"),
        ];
        for (format, root, project) in cases {
            let bank = bank_with(format, Path::new(root), &[]);
            assert_eq!(project_dir_of(&bank), PathBuf::from(project), "{root}");
        }
    }

    #[test]
    fn resolve_accepts_listed_and_new_files_where_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("memory-bank");
        fs::create_dir(&root).unwrap();
        fs::write(root.join("progress.md"), "x").unwrap();
        let bank = bank_with(Format::Cline, &root, &["progress.md"]);
        let real_root = fs::canonicalize(&root).unwrap();
        assert_eq!(
            resolve_target(&bank, "progress.md").unwrap(),
            real_root.join("progress.md")
        );
        assert_eq!(
            resolve_target(&bank, "sessionLog.md").unwrap(),
            real_root.join("sessionLog.md")
        );
        // One folder deep where the folder exists (the spec's `archive/`), never deeper.
        let err = resolve_target(&bank, "archive/old.md").unwrap_err();
        assert!(reason(err).contains("does not exist"));
        fs::create_dir_all(root.join("archive/2025")).unwrap();
        assert_eq!(
            resolve_target(&bank, "archive/old.md").unwrap(),
            real_root.join("archive/old.md")
        );
        let err = resolve_target(&bank, "archive/2025/old.md").unwrap_err();
        let reason_text = reason(err);
        assert!(reason_text.contains("not a known file of the Cline memory bank format"));
        assert!(!reason_text.contains("bank bank"), "{reason_text}");
        let err = resolve_target(&bank, "notes.txt").unwrap_err();
        assert!(reason(err).contains("only .md"));
    }

    #[test]
    fn conkeeper_allows_new_adrs_and_sessions_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join(".claude/memory");
        fs::create_dir_all(root.join("decisions")).unwrap();
        let bank = bank_with(Format::ConKeeper, &root, &[]);
        assert!(resolve_target(&bank, "decisions/ADR-002-x.md").is_ok());
        // The sessions folder does not exist yet: a clear refusal, no folder created.
        let err = resolve_target(&bank, "sessions/2026-11-01-x.md").unwrap_err();
        assert!(reason(err).contains("does not exist"));
        let err = resolve_target(&bank, "other/x.md").unwrap_err();
        assert!(reason(err).contains("not a known file of the"));
    }

    #[test]
    fn hierarchical_formats_allow_known_files_and_rules() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path();
        fs::create_dir_all(project.join(".claude/rules/api")).unwrap();
        fs::create_dir_all(project.join("src")).unwrap();
        let bank = bank_with(Format::ClaudeMd, project, &["CLAUDE.md"]);
        for ok in [
            "CLAUDE.md",
            "CLAUDE.local.md",
            ".claude/CLAUDE.md",
            ".claude/rules/api/errors.md",
        ] {
            assert!(resolve_target(&bank, ok).is_ok(), "{ok}");
        }
        for refused in [
            "README.md",
            "src/notes.md",
            "AGENTS.md",
            ".claude/settings.md",
        ] {
            let err = resolve_target(&bank, refused).unwrap_err();
            assert!(reason(err).contains("not a known file of the"), "{refused}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlink_escapes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p/memory-bank");
        fs::create_dir_all(&root).unwrap();
        fs::write(dir.path().join("p/secret.md"), "s").unwrap();
        std::os::unix::fs::symlink("../secret.md", root.join("escape.md")).unwrap();
        std::os::unix::fs::symlink("nowhere.md", root.join("dangling.md")).unwrap();
        std::os::unix::fs::symlink("..", root.join("up")).unwrap();
        let bank = bank_with(Format::Cline, &root, &["escape.md"]);
        let err = resolve_target(&bank, "escape.md").unwrap_err();
        assert!(reason(err).contains("outside the bank's folder"));
        let err = resolve_target(&bank, "dangling.md").unwrap_err();
        assert!(reason(err).contains("does not exist"));
        let bank = bank_with(Format::Cline, &root, &["up/secret.md"]);
        let err = resolve_target(&bank, "up/secret.md").unwrap_err();
        assert!(reason(err).contains("outside the bank's folder"));
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_project_are_refused_for_listed_and_new_files() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        for sub in [
            "bank",
            "memory/sessions",
            "rules",
            "claude",
            "other/memory-bank",
        ] {
            fs::create_dir_all(out.join(sub)).unwrap();
        }
        fs::write(out.join("bank/progress.md"), "outside").unwrap();
        fs::write(out.join("secret.md"), "outside").unwrap();
        let p = dir.path().join("p");
        fs::create_dir_all(p.join(".claude/memory")).unwrap();
        // A bank folder that is a link out of the project, with a listed and a new file.
        symlink(out.join("bank"), p.join("memory-bank")).unwrap();
        let cline = bank_with(Format::Cline, &p.join("memory-bank"), &["progress.md"]);
        for name in ["progress.md", "new.md"] {
            let err = resolve_target(&cline, name).unwrap_err();
            assert!(reason(err).contains("outside its project"), "{name}");
        }
        // The parent folder of a new file is a link out: ConKeeper sessions, Claude rules.
        symlink(
            out.join("memory/sessions"),
            p.join(".claude/memory/sessions"),
        )
        .unwrap();
        let conkeeper = bank_with(Format::ConKeeper, &p.join(".claude/memory"), &[]);
        let err = resolve_target(&conkeeper, "sessions/2026-01-01-x.md").unwrap_err();
        assert!(reason(err).contains("outside the bank's folder"));
        symlink(out.join("rules"), p.join(".claude/rules")).unwrap();
        symlink(out.join("secret.md"), p.join("CLAUDE.md")).unwrap();
        let claude = bank_with(Format::ClaudeMd, &p, &["CLAUDE.md"]);
        for name in [".claude/rules/new.md", "CLAUDE.md"] {
            let err = resolve_target(&claude, name).unwrap_err();
            assert!(reason(err).contains("outside the bank's folder"), "{name}");
        }
        // Claude's whole folder linked out, and a bank linked into a sibling project.
        let q = dir.path().join("q");
        fs::create_dir_all(&q).unwrap();
        symlink(out.join("claude"), q.join(".claude")).unwrap();
        let claude = bank_with(Format::ClaudeMd, &q, &[]);
        let err = resolve_target(&claude, ".claude/CLAUDE.md").unwrap_err();
        assert!(reason(err).contains("outside the bank's folder"));
        let sibling = dir.path().join("s");
        fs::create_dir_all(&sibling).unwrap();
        symlink(out.join("other/memory-bank"), sibling.join("memory-bank")).unwrap();
        let cline = bank_with(Format::Cline, &sibling.join("memory-bank"), &[]);
        let err = resolve_target(&cline, "progress.md").unwrap_err();
        assert!(reason(err).contains("outside its project"));
        // Nothing was created anywhere outside.
        for sub in [
            "bank",
            "memory/sessions",
            "rules",
            "claude",
            "other/memory-bank",
        ] {
            let names: Vec<_> = fs::read_dir(out.join(sub)).unwrap().flatten().collect();
            assert!(names.len() <= 1, "{sub}");
        }
    }

    #[test]
    fn infinity_edit_keeps_identity_and_detects_conflicts() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("memories.json");
        let text = r#"{"project_id":"p","memories":[{"id":"m1","title":"Plan","type":"implementation_plan","content":"old","created_at":"2026-01-01T00:00:00Z"}]}"#;
        fs::write(&store, text).unwrap();
        write_infinity_content_at(&store, "m1", "new plan", text, "2026-11-22T10:00:00Z").unwrap();
        let written = fs::read_to_string(&store).unwrap();
        let (parsed, _) = infinity::store::parse_store(&written).unwrap();
        let m = &parsed.memories[0];
        assert_eq!(
            (
                m.id.as_str(),
                m.title.as_str(),
                m.kind.as_str(),
                m.content.as_str()
            ),
            ("m1", "Plan", "implementation_plan", "new plan")
        );
        assert_eq!(m.updated_at.as_deref(), Some("2026-11-22T10:00:00Z"));
        // The stale text the caller read no longer matches: nothing written.
        let err = write_infinity_content(&store, "m1", "again", text).unwrap_err();
        assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
        assert_eq!(fs::read_to_string(&store).unwrap(), written);
        let err = write_infinity_content(&store, "nope", "x", &written).unwrap_err();
        assert!(matches!(err, CoreError::Parse { .. }), "{err}");
        let err =
            write_infinity_content(&dir.path().join("other.json"), "m1", "x", text).unwrap_err();
        assert!(matches!(err, CoreError::Confined { .. }), "{err}");
    }

    #[test]
    fn claude_auto_memory_is_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("home/.claude/projects/-p/memory");
        fs::create_dir_all(&root).unwrap();
        fs::write(root.join("MEMORY.md"), "# notes\n").unwrap();
        let bank = bank_with(Format::ClaudeAutoMemory, &root, &["MEMORY.md"]);
        for name in ["MEMORY.md", "topic.md"] {
            let err = resolve_target(&bank, name).unwrap_err();
            assert!(err.to_string().contains("never writes it"), "{err}");
        }
    }
}
