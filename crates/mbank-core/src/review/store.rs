//! Where the "accepted" side of a review lives: the git index (with HEAD as baseline) or
//! a snapshot mbank keeps in its data folder for banks outside git.
//!
//! Every git command goes through [`GitRepo`]'s builder (nothing the repository
//! configures runs, see `core::git`). The snapshot store is mbank's own: it is read with
//! the checks memory files get (regular files only, a size cap; a FIFO or a link to
//! `/dev/zero` planted there is an error, never a hang), written atomically in 0700
//! folders with each copy keeping its source file's permissions, and changed only under
//! an exclusive lock (`lock` in the project's snapshot folder), so concurrent "mark
//! reviewed" runs follow one another instead of mixing their generations.
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{CoreError, Result};
use crate::git::{self, GitRepo, IndexEntries, ObjectFormat, Policy};
use crate::io::dir_handle::{Dir, HandleError};
use crate::io::hash_index::stable_hash;
use crate::io::text;
use crate::write;

pub(crate) use crate::git::IndexEntry;

/// The repository of a project, with the environment every git call gets.
#[derive(Debug, Clone)]
pub(crate) struct Git {
    pub(crate) repo: GitRepo,
    pub(crate) env: Vec<(OsString, OsString)>,
    /// What the review commit may run (`[review] run_git_hooks`).
    pub(crate) commit_policy: Policy,
}

/// One path whose index entry differs from HEAD.
#[derive(Debug, Clone)]
pub(crate) struct Staged {
    pub(crate) path: PathBuf,
    pub(crate) head: Option<IndexEntry>,
    pub(crate) index: Option<IndexEntry>,
    pub(crate) unmerged: bool,
}

fn git_error(what: &str, out: &git::Output) -> CoreError {
    CoreError::Git(format!("{what} failed: {}", out.stderr))
}

impl Git {
    pub(crate) fn run(&self, args: &[OsString]) -> Result<git::Output> {
        self.repo
            .run_at_root(args, &self.env, None, Policy::Hardened)
    }

    pub(crate) fn run_env(
        &self,
        args: &[OsString],
        extra: &[(OsString, OsString)],
        stdin: Option<&[u8]>,
    ) -> Result<git::Output> {
        self.run_policy(args, extra, stdin, Policy::Hardened)
    }

    pub(crate) fn run_policy(
        &self,
        args: &[OsString],
        extra: &[(OsString, OsString)],
        stdin: Option<&[u8]>,
        policy: Policy,
    ) -> Result<git::Output> {
        let mut env = self.env.clone();
        env.extend(extra.iter().cloned());
        self.repo.run_at_root(args, &env, stdin, policy)
    }

    fn spec(&self, file: &Path) -> Result<OsString> {
        self.repo
            .root_relative(file)
            .ok_or_else(|| CoreError::Git(format!("{} is outside the repository", file.display())))
    }

    /// Index and HEAD entries of everything under the project.
    fn project_entries(&self) -> Result<(IndexEntries, HashMap<Vec<u8>, IndexEntry>)> {
        let base = [self.repo.root_relative_base()];
        let index = self.repo.index_entries(&base)?;
        let head = self.repo.head_entries(&base)?;
        Ok((index, head))
    }

    /// Memory paths under the project (those `is_memory` accepts, plus `listed`) that
    /// differ between HEAD, the index and the work tree, untracked (and not ignored)
    /// files included; renames show as a deletion and an addition. Decided from blob
    /// ids — `ls-files -s`, `ls-tree` and the work-tree bytes hashed as they are — so no
    /// filter, fsmonitor or other configured program runs. A file whose bytes cannot be
    /// hashed (unreadable, not a regular file) counts as changed, so the review reads it
    /// and reports why it cannot.
    pub(crate) fn changed_paths(
        &self,
        listed: &[PathBuf],
        is_memory: impl Fn(&Path) -> bool,
    ) -> Result<Vec<PathBuf>> {
        let (
            IndexEntries {
                entries: index,
                unmerged,
            },
            head,
        ) = self.project_entries()?;
        let mut paths: BTreeMap<Vec<u8>, PathBuf> = BTreeMap::new();
        for name in index.keys().chain(head.keys()).chain(unmerged.iter()) {
            if index.get(name).is_some_and(|e| e.mode == "160000") {
                continue;
            }
            if let Some(path) = self.repo.under_base(name)
                && is_memory(&path)
            {
                paths.insert(name.clone(), path);
            }
        }
        for path in listed {
            if let Some(name) = self.repo.root_relative(path) {
                paths.insert(os_bytes(&name), path.clone());
            }
        }
        let exists = |path: &Path| fs::symlink_metadata(path).is_ok();
        let tracked: Vec<(&Vec<u8>, &PathBuf)> = paths
            .iter()
            .filter(|(name, path)| index.contains_key(*name) && exists(path))
            .collect();
        let format = index
            .values()
            .find_map(|entry| ObjectFormat::of_id(&entry.sha));
        let blobs = match format {
            Some(format) => self.repo.worktree_blobs(
                &tracked.iter().map(|(_, p)| p.as_path()).collect::<Vec<_>>(),
                format,
            ),
            // Ids of no format this knows: every file counts as changed.
            None => vec![None; tracked.len()],
        };
        let worktree: HashMap<&Vec<u8>, Option<String>> =
            tracked.iter().map(|(name, _)| *name).zip(blobs).collect();
        let untracked: Vec<&Vec<u8>> = paths
            .iter()
            .filter(|(name, path)| {
                !index.contains_key(*name) && !unmerged.contains(*name) && exists(path)
            })
            .map(|(name, _)| name)
            .collect();
        let ignored = self.ignored(&untracked)?;
        let mut changed = Vec::new();
        for (name, path) in &paths {
            let staged = index.get(name);
            let differs = unmerged.contains(name)
                || staged != head.get(name)
                || match staged {
                    Some(entry) if exists(path) => {
                        worktree.get(name).cloned().flatten().as_deref() != Some(&entry.sha)
                    }
                    // Staged but deleted in the work tree.
                    Some(_) => true,
                    None => exists(path) && !ignored.contains(name),
                };
            if differs {
                changed.push(path.clone());
            }
        }
        Ok(changed)
    }

    /// Which of the untracked root-relative `names` git ignores (`check-ignore`, which
    /// reads ignore files and runs nothing).
    fn ignored(&self, names: &[&Vec<u8>]) -> Result<HashSet<Vec<u8>>> {
        if names.is_empty() {
            return Ok(HashSet::new());
        }
        let mut input = Vec::new();
        for name in names {
            input.extend_from_slice(name);
            input.push(0);
        }
        // check-ignore refuses the `literal` pathspec magic every other command gets;
        // it only matches the names against ignore rules.
        let literal_off = [(OsString::from("GIT_LITERAL_PATHSPECS"), OsString::from("0"))];
        let out = self.run_env(
            &git::os(&["check-ignore", "-z", "--stdin"]),
            &literal_off,
            Some(&input),
        )?;
        // 1: nothing is ignored.
        if !out.success && out.code != Some(1) {
            return Err(git_error("git check-ignore", &out));
        }
        Ok(out
            .stdout
            .split(|b| *b == 0)
            .filter(|n| !n.is_empty())
            .map(<[u8]>::to_vec)
            .collect())
    }

    /// Paths under the project whose index entry differs from HEAD (staged changes),
    /// with both entries; `unmerged` when the index holds a conflict for the path.
    pub(crate) fn staged(&self) -> Result<Vec<Staged>> {
        let (
            IndexEntries {
                entries: index,
                unmerged,
            },
            head,
        ) = self.project_entries()?;
        let names: HashSet<&Vec<u8>> = index
            .keys()
            .chain(head.keys())
            .chain(unmerged.iter())
            .collect();
        let mut staged: Vec<Staged> = names
            .into_iter()
            .filter(|name| unmerged.contains(*name) || index.get(*name) != head.get(*name))
            .filter_map(|name| {
                Some(Staged {
                    path: self.repo.under_base(name)?,
                    head: head.get(name).cloned(),
                    index: index.get(name).cloned(),
                    unmerged: unmerged.contains(name),
                })
            })
            .collect();
        staged.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(staged)
    }

    pub(crate) fn head_entry(&self, file: &Path) -> Result<Option<IndexEntry>> {
        let spec = self.spec(file)?;
        let mut entries = self.repo.head_entries(std::slice::from_ref(&spec))?;
        Ok(entries.remove(&os_bytes(&spec)))
    }

    pub(crate) fn index_entry(&self, file: &Path) -> Result<Option<IndexEntry>> {
        let spec = self.spec(file)?;
        let IndexEntries {
            mut entries,
            unmerged,
        } = self.repo.index_entries(std::slice::from_ref(&spec))?;
        let name = os_bytes(&spec);
        if unmerged.contains(&name) {
            return Err(CoreError::Git(format!(
                "{} has unresolved merge conflicts in the index",
                file.display()
            )));
        }
        Ok(entries.remove(&name))
    }

    pub(crate) fn blob_text(&self, file: &Path, entry: &IndexEntry) -> Result<String> {
        let out = self.run(&git::os(&["cat-file", "blob", &entry.sha]))?;
        if !out.success {
            return Err(git_error("git cat-file", &out));
        }
        text::decode_text(file, out.stdout)
    }

    pub(crate) fn text_of(
        &self,
        file: &Path,
        entry: Option<&IndexEntry>,
    ) -> Result<Option<String>> {
        entry.map(|e| self.blob_text(file, e)).transpose()
    }

    pub(crate) fn hash_object(&self, text: &str) -> Result<String> {
        let out = self.run_env(
            &git::os(&["hash-object", "-w", "--stdin", "--no-filters"]),
            &[],
            Some(text.as_bytes()),
        )?;
        if !out.success {
            return Err(git_error("git hash-object", &out));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// Points the index entry of `file` at `entry`, or removes it.
    pub(crate) fn set_index(&self, file: &Path, entry: Option<&IndexEntry>) -> Result<()> {
        self.set_index_with(file, entry, &[])
    }

    /// [`set_index`](Self::set_index) with extra environment (another `GIT_INDEX_FILE`).
    pub(crate) fn set_index_with(
        &self,
        file: &Path,
        entry: Option<&IndexEntry>,
        extra: &[(OsString, OsString)],
    ) -> Result<()> {
        let spec = self.spec(file)?;
        let mut args = git::os(&["update-index"]);
        match entry {
            Some(e) => {
                args.extend(git::os(&["--add", "--cacheinfo"]));
                let mut info = OsString::from(format!("{},{},", e.mode, e.sha));
                info.push(&spec);
                args.push(info);
            }
            None => {
                args.extend(git::os(&["--force-remove", "--"]));
                args.push(spec);
            }
        }
        let out = self.run_env(&args, extra, None)?;
        if !out.success {
            return Err(git_error("git update-index", &out));
        }
        Ok(())
    }
}

#[cfg(unix)]
fn os_bytes(text: &std::ffi::OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    text.as_bytes().to_vec()
}

#[cfg(not(unix))]
fn os_bytes(text: &std::ffi::OsStr) -> Vec<u8> {
    text.to_string_lossy().into_owned().into_bytes()
}

// ---------------------------------------------------------------------------------------
// Snapshots
// ---------------------------------------------------------------------------------------

const SNAPSHOT_SCHEMA: &str = "mbank.snapshot/1";
const MANIFEST: &str = "manifest.json";
const LOCK: &str = "lock";
/// The folder of every project's snapshot folder, in mbank's data folder.
const SNAPSHOTS: &str = "snapshots";
/// Permissions of a copy whose source's are unknown, and of the manifest.
const PRIVATE_FILE: u32 = 0o600;

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Manifest {
    schema: String,
    project: PathBuf,
    /// Copies live in `gen-<generation>/`; "mark reviewed" writes a new generation and
    /// switches the manifest to it in one atomic write.
    generation: u64,
    /// Seconds since the epoch of the last "mark reviewed".
    reviewed_at: Option<u64>,
    /// Project-relative path (`/`-separated) → copy file name.
    files: BTreeMap<String, String>,
}

/// One file of a "mark reviewed": its text and its permission bits.
#[derive(Debug, Clone)]
pub(crate) struct SnapshotFile {
    pub(crate) text: String,
    pub(crate) mode: u32,
}

/// The "last reviewed" state of a project outside git.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    dir: PathBuf,
    project: PathBuf,
    manifest: Option<Manifest>,
    /// The manifest's text as read (to notice another process changing it).
    manifest_text: Option<String>,
    /// Why the store cannot be trusted (its manifest unreadable, broken, or lost while
    /// copies remain); "mark reviewed" replaces it.
    broken: Option<String>,
}

fn generation_name(generation: u64) -> String {
    format!("gen-{generation}")
}

fn copy_name(rel: &str) -> String {
    format!("{:016x}.md", stable_hash(rel.as_bytes()))
}

/// Reads a file of the store (`rel` below its folder's handle): `None` when absent (or
/// no store); an error for anything but a regular file (a link, a FIFO, a device are
/// never opened or followed) or a file over the read cap.
fn read_store_file(store: Option<&Dir>, rel: &Path) -> Result<Option<String>> {
    let Some(store) = store else {
        return Ok(None);
    };
    match write::read_text_in(store, rel) {
        Ok(read) => Ok(read.map(|r| r.text)),
        Err(CoreError::Confined { .. }) => Err(CoreError::io(
            store.path().join(rel),
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file (a link, FIFO or device) in mbank's snapshot store",
            ),
        )),
        Err(e) => Err(e),
    }
}

/// Opens (creating it owner-only when missing) the folder `name` below `parent`, no link
/// followed, and makes it owner-only.
fn private_dir(parent: &Dir, name: &str) -> Result<Dir> {
    let dir = parent.create_dir(name, 0o700)?;
    #[cfg(unix)]
    dir.ensure_mode(0o700)?;
    Ok(dir)
}

/// Writes `text` to `name` in `dir` atomically (temp file in the same folder handle,
/// then rename) with permission bits `mode`; the temp file is created owner-only, so
/// the text is never readable by others on the way, and no link is followed.
fn write_private(dir: &Dir, name: &str, text: &str, mode: u32) -> Result<()> {
    let temp = dir.create_temp(".mbank-", ".tmp", PRIVATE_FILE)?;
    let path = dir.path().join(name);
    let mut file = temp.file();
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| CoreError::io(&path, e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        temp.file()
            .set_permissions(fs::Permissions::from_mode(mode & 0o777))
            .map_err(|e| CoreError::io(&path, e))?;
    }
    #[cfg(not(unix))]
    let _ = mode;
    temp.commit(name, true)?;
    Ok(())
}

/// Removes a generation folder (copies only) without following a link.
fn remove_generation(store: &Dir, name: &str) -> Result<()> {
    let generation = store.open_dir(Path::new(name))?;
    for copy in generation.names()? {
        generation.remove_file(&copy)?;
    }
    store.remove_dir(std::ffi::OsStr::new(name))?;
    Ok(())
}

/// The permission bits of a work-tree file, for its snapshot copy.
pub(crate) fn mode_of(path: &Path) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).map_or(PRIVATE_FILE, |m| m.permissions().mode() & 0o777)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        PRIVATE_FILE
    }
}

/// An exclusive or shared lock on a project's snapshot folder, held until dropped.
struct StoreLock {
    _file: fs::File,
}

impl Snapshot {
    /// The snapshot folder of a project: `<data dir>/snapshots/<hash of its path>/`.
    pub(crate) fn folder_for(project: &Path, data_dir: Option<&Path>) -> Result<PathBuf> {
        let data = data_dir
            .map(Path::to_path_buf)
            .or_else(crate::io::paths::data_dir)
            .ok_or_else(|| {
                CoreError::Config(
                    "no data folder for review snapshots (set MBANK_DATA_DIR or HOME)".into(),
                )
            })?;
        let canonical = fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
        let hash = stable_hash(canonical.to_string_lossy().as_bytes());
        Ok(data.join(SNAPSHOTS).join(format!("{hash:016x}")))
    }

    /// Opens the snapshot of a project. A store that cannot be trusted still opens (so
    /// "mark reviewed" can replace it); [`Snapshot::broken`] says why.
    pub(crate) fn open(project: &Path, data_dir: Option<&Path>) -> Result<Snapshot> {
        let dir = Self::folder_for(project, data_dir)?;
        let mut snapshot = Snapshot {
            dir,
            project: project.to_path_buf(),
            manifest: None,
            manifest_text: None,
            broken: None,
        };
        snapshot.reload()?;
        Ok(snapshot)
    }

    /// The store's folder, opened from the data folder with no link followed (`snapshots`
    /// and the project's folder below it): created owner-only with `create`, else `None`
    /// when absent. A folder replaced by a symlink is an error, never written through.
    fn store(&self, create: bool) -> Result<Option<Dir>> {
        let (Some(snapshots), Some(name)) = (
            self.dir.parent(),
            self.dir.file_name().and_then(|n| n.to_str()),
        ) else {
            return Err(CoreError::Snapshot {
                path: self.dir.clone(),
                message: "is not a snapshot folder".into(),
            });
        };
        let data = snapshots.parent().unwrap_or(Path::new("."));
        let missing = |e: &HandleError| !create && e.is_not_found();
        if create {
            fs::create_dir_all(data).map_err(|e| CoreError::io(data, e))?;
        }
        let data = match Dir::open_anchor(data) {
            Ok(dir) => dir,
            Err(e) if missing(&e) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        if create {
            let snapshots = private_dir(&data, SNAPSHOTS)?;
            return private_dir(&snapshots, name).map(Some);
        }
        match data.open_dir(&Path::new(SNAPSHOTS).join(name)) {
            Ok(dir) => Ok(Some(dir)),
            Err(e) if missing(&e) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Reads the manifest afresh (under a shared lock when the folder exists).
    fn reload(&mut self) -> Result<()> {
        let _lock = self.lock(false)?;
        self.read_manifest();
        Ok(())
    }

    fn read_manifest(&mut self) {
        self.manifest = None;
        self.manifest_text = None;
        self.broken = None;
        let read = self
            .store(false)
            .and_then(|store| read_store_file(store.as_ref(), Path::new(MANIFEST)));
        match read {
            Ok(Some(text)) => match parse_manifest(&text) {
                Ok(manifest) => {
                    self.manifest = Some(manifest);
                    self.manifest_text = Some(text);
                }
                Err(message) => self.broken = Some(message),
            },
            Ok(None) => {
                if !self.generations().is_empty() {
                    self.broken = Some(
                        "the manifest is missing but copies remain (lost, or a \"mark reviewed\" was interrupted); check the changes, then mark the bank reviewed again"
                            .into(),
                    );
                }
            }
            Err(e) => self.broken = Some(format!("unreadable manifest: {e}")),
        }
    }

    /// Why the store cannot be trusted, as an error.
    pub(crate) fn broken(&self) -> Option<CoreError> {
        self.broken.as_ref().map(|message| CoreError::Snapshot {
            path: self.dir.join(MANIFEST),
            message: message.clone(),
        })
    }

    /// Takes the store's lock. A shared lock on a folder that does not exist yet is not
    /// needed (there is nothing to read) and creates nothing.
    fn lock(&self, exclusive: bool) -> Result<Option<StoreLock>> {
        let Some(store) = self.store(exclusive)? else {
            return Ok(None);
        };
        let path = self.dir.join(LOCK);
        let file = match store.open_lock_file(LOCK, PRIVATE_FILE) {
            Ok(file) => file,
            // A read-only store can still be read, without a lock.
            Err(e) if !exclusive && e.kind() == Some(std::io::ErrorKind::PermissionDenied) => {
                return Ok(None);
            }
            Err(HandleError::Symlink { .. }) => {
                return Err(CoreError::Snapshot {
                    path,
                    message: "the lock is not a regular file".into(),
                });
            }
            Err(e) => return Err(e.into()),
        };
        let locked = if exclusive {
            file.lock()
        } else {
            file.lock_shared()
        };
        locked.map_err(|e| CoreError::io(&path, e))?;
        Ok(Some(StoreLock { _file: file }))
    }

    /// Generation numbers of the `gen-N` folders present.
    fn generations(&self) -> Vec<u64> {
        let Some(names) = self
            .store(false)
            .ok()
            .flatten()
            .and_then(|store| store.names().ok())
        else {
            return Vec::new();
        };
        names
            .into_iter()
            .filter_map(|name| name.to_str()?.strip_prefix("gen-")?.parse::<u64>().ok())
            .collect()
    }

    pub(crate) fn exists(&self) -> bool {
        self.manifest.is_some()
    }

    pub(crate) fn folder(&self) -> &Path {
        &self.dir
    }

    pub(crate) fn reviewed_at(&self) -> Option<u64> {
        self.manifest.as_ref().and_then(|m| m.reviewed_at)
    }

    pub(crate) fn paths(&self) -> Vec<String> {
        self.manifest
            .as_ref()
            .map(|m| m.files.keys().cloned().collect())
            .unwrap_or_default()
    }

    fn copy_path(&self, rel: &str) -> Option<PathBuf> {
        Some(self.dir.join(self.copy_rel(rel)?))
    }

    /// Where the copy of `rel` is, relative to the store's folder.
    fn copy_rel(&self, rel: &str) -> Option<PathBuf> {
        let manifest = self.manifest.as_ref()?;
        let name = manifest.files.get(rel)?;
        Some(Path::new(&generation_name(manifest.generation)).join(name))
    }

    /// The reviewed text of `rel`; `None` when the snapshot does not hold it.
    pub(crate) fn text(&self, rel: &str) -> Result<Option<String>> {
        match self.copy_text(rel) {
            Err(CoreError::Snapshot { path, message }) if fs::symlink_metadata(&path).is_err() => {
                // Replaced by another run since this session read the manifest?
                let _lock = self.lock(false)?;
                let now = self
                    .store(false)
                    .and_then(|store| read_store_file(store.as_ref(), Path::new(MANIFEST)))
                    .ok()
                    .flatten();
                if now != self.manifest_text {
                    return Err(CoreError::Conflict {
                        path: self.dir.join(MANIFEST),
                    });
                }
                Err(CoreError::Snapshot { path, message })
            }
            other => other,
        }
    }

    /// [`Snapshot::text`] without a lock (for callers holding the exclusive one).
    fn copy_text(&self, rel: &str) -> Result<Option<String>> {
        if let Some(error) = self.broken() {
            return Err(error);
        }
        let (Some(path), Some(copy)) = (self.copy_path(rel), self.copy_rel(rel)) else {
            return Ok(None);
        };
        let read = self
            .store(false)
            .and_then(|store| read_store_file(store.as_ref(), &copy));
        match read {
            Ok(Some(text)) => Ok(Some(text)),
            Ok(None) => Err(CoreError::Snapshot {
                path,
                message: "lost this copy; mark the bank reviewed again".into(),
            }),
            Err(e) => Err(CoreError::Snapshot {
                path,
                message: format!("unreadable copy: {e}"),
            }),
        }
    }

    /// The stable code of a failure to read `rel`'s copy: lost (absent) or unreadable.
    pub(crate) fn failure_code(&self, rel: &str) -> &'static str {
        match self.copy_path(rel) {
            Some(path) if fs::symlink_metadata(&path).is_err() => "snapshot-lost",
            _ => "snapshot-unreadable",
        }
    }

    /// Writes `manifest` (the store's lock held).
    fn write_manifest(&mut self, manifest: Manifest) -> Result<()> {
        let text = serde_json::to_string_pretty(&manifest)
            .map_err(|e| CoreError::Config(format!("cannot encode the snapshot: {e}")))?;
        let store = self.store(true)?.ok_or_else(|| CoreError::Snapshot {
            path: self.dir.clone(),
            message: "the snapshot folder vanished".into(),
        })?;
        write_private(&store, MANIFEST, &text, PRIVATE_FILE)?;
        self.manifest = Some(manifest);
        self.manifest_text = Some(text);
        self.broken = None;
        Ok(())
    }

    fn empty_manifest(&self, generation: u64) -> Manifest {
        Manifest {
            schema: SNAPSHOT_SCHEMA.to_string(),
            project: self.project.clone(),
            generation,
            reviewed_at: None,
            files: BTreeMap::new(),
        }
    }

    /// Sets one file's reviewed text (`None`: not in the snapshot), if it still is
    /// `expected` and no other run changed the snapshot since this one read it;
    /// otherwise a conflict. `mode` is the source file's permission bits.
    pub(crate) fn set(
        &mut self,
        rel: &str,
        expected: Option<&str>,
        new: Option<&str>,
        mode: u32,
    ) -> Result<()> {
        let _lock = self.lock(true)?;
        let seen = self.manifest_text.clone();
        let mut fresh = self.clone();
        fresh.read_manifest();
        if let Some(error) = fresh.broken() {
            return Err(error);
        }
        if fresh.manifest_text != seen {
            return Err(CoreError::Conflict {
                path: self.dir.join(MANIFEST),
            });
        }
        let now = self.copy_text(rel)?;
        if now.as_deref() != expected {
            return Err(CoreError::Conflict {
                path: self.dir.join(MANIFEST),
            });
        }
        let mut manifest = match &self.manifest {
            Some(manifest) => manifest.clone(),
            None => {
                let next = self.generations().into_iter().max().unwrap_or(0) + 1;
                self.empty_manifest(next)
            }
        };
        let store = self.store(true)?.ok_or_else(|| CoreError::Snapshot {
            path: self.dir.clone(),
            message: "the snapshot folder vanished".into(),
        })?;
        let gen_name = generation_name(manifest.generation);
        match new {
            Some(text) => {
                let gen_dir = private_dir(&store, &gen_name)?;
                write_private(&gen_dir, &copy_name(rel), text, mode)?;
                if !manifest.files.contains_key(rel) || self.manifest.is_none() {
                    manifest.files.insert(rel.to_string(), copy_name(rel));
                    self.write_manifest(manifest)?;
                }
            }
            None => {
                if manifest.files.remove(rel).is_some() {
                    self.write_manifest(manifest)?;
                    let removed = store
                        .open_dir(Path::new(&gen_name))
                        .and_then(|gen_dir| gen_dir.remove_file(copy_name(rel).as_ref()));
                    match removed {
                        Err(e) if !e.is_not_found() => return Err(e.into()),
                        _ => {}
                    }
                }
            }
        }
        Ok(())
    }

    /// Replaces the whole snapshot with `files` (project-relative path → text and
    /// permissions): under the store's lock, a new generation folder is written, then
    /// the manifest switches to it, then every other generation is removed. An
    /// interruption leaves the old snapshot intact; a concurrent run waits its turn.
    /// The manifest says it was reviewed at `reviewed_at`.
    pub(crate) fn replace_all(
        &mut self,
        files: &BTreeMap<String, SnapshotFile>,
        reviewed_at: std::time::SystemTime,
    ) -> Result<()> {
        let _lock = self.lock(true)?;
        // What is on disk now, not what this session read earlier.
        self.read_manifest();
        let newest = self
            .generations()
            .into_iter()
            .chain(self.manifest.as_ref().map(|m| m.generation))
            .max()
            .unwrap_or(0);
        let generation = newest + 1;
        let store = self.store(true)?.ok_or_else(|| CoreError::Snapshot {
            path: self.dir.clone(),
            message: "the snapshot folder vanished".into(),
        })?;
        let gen_dir = private_dir(&store, &generation_name(generation))?;
        let mut manifest = self.empty_manifest(generation);
        for (rel, file) in files {
            let name = copy_name(rel);
            write_private(&gen_dir, &name, &file.text, file.mode)?;
            manifest.files.insert(rel.clone(), name);
        }
        manifest.reviewed_at = crate::analysis::report::epoch_seconds(reviewed_at);
        self.write_manifest(manifest)?;
        for old in self.generations() {
            if old != generation {
                // Failing to tidy up loses nothing: the manifest no longer points there.
                let _ = remove_generation(&store, &generation_name(old));
            }
        }
        Ok(())
    }
}

fn parse_manifest(text: &str) -> std::result::Result<Manifest, String> {
    let manifest: Manifest =
        serde_json::from_str(text).map_err(|e| format!("broken manifest: {e}"))?;
    if manifest.schema != SNAPSHOT_SCHEMA {
        return Err(format!("unknown snapshot schema {:?}", manifest.schema));
    }
    if manifest
        .files
        .values()
        .any(|name| name.contains('/') || name.contains('\\') || name.starts_with('.'))
    {
        return Err("the manifest names a copy outside its folder".into());
    }
    Ok(manifest)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn file(text: &str) -> SnapshotFile {
        SnapshotFile {
            text: text.into(),
            mode: 0o644,
        }
    }

    #[test]
    fn a_snapshot_folder_replaced_by_a_symlink_gets_no_lock_or_copy_written_through_it() {
        let data = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let project = data.path().join("p");
        fs::create_dir_all(&project).unwrap();
        let dir = Snapshot::folder_for(&project, Some(data.path())).unwrap();
        fs::create_dir_all(dir.parent().unwrap()).unwrap();
        symlink(outside.path(), &dir).unwrap();
        // Opening (a shared lock) and marking reviewed (the exclusive lock, copies, the
        // manifest) are refused; nothing lands behind the link.
        assert!(Snapshot::open(&project, Some(data.path())).is_err());
        let mut snapshot = Snapshot {
            dir: dir.clone(),
            project: project.clone(),
            manifest: None,
            manifest_text: None,
            broken: None,
        };
        let files = BTreeMap::from([("memory-bank/a.md".to_string(), file("a"))]);
        let err = snapshot
            .replace_all(&files, std::time::SystemTime::UNIX_EPOCH)
            .unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(
            !err.to_string().contains(outside.path().to_str().unwrap()),
            "{err}"
        );
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);

        // The same for the `snapshots` folder above it.
        fs::remove_file(&dir).unwrap();
        let snapshots = dir.parent().unwrap();
        fs::remove_dir(snapshots).unwrap();
        symlink(outside.path(), snapshots).unwrap();
        assert!(
            snapshot
                .replace_all(&files, std::time::SystemTime::UNIX_EPOCH)
                .is_err()
        );
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_generation_folder_replaced_by_a_symlink_is_neither_written_nor_read_through() {
        let data = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let project = data.path().join("p");
        fs::create_dir_all(&project).unwrap();
        let mut snapshot = Snapshot::open(&project, Some(data.path())).unwrap();
        let files = BTreeMap::from([("memory-bank/a.md".to_string(), file("a"))]);
        snapshot
            .replace_all(&files, std::time::SystemTime::UNIX_EPOCH)
            .unwrap();
        assert_eq!(
            snapshot.text("memory-bank/a.md").unwrap().as_deref(),
            Some("a")
        );
        // A generation folder planted as a link out: skipped for the new generation, and
        // tidying up removes nothing through it.
        fs::write(outside.path().join("keep.md"), "theirs").unwrap();
        symlink(outside.path(), snapshot.folder().join("gen-2")).unwrap();
        snapshot
            .replace_all(&files, std::time::SystemTime::UNIX_EPOCH)
            .unwrap();
        assert!(snapshot.folder().join("gen-3").is_dir());
        let names: Vec<_> = fs::read_dir(outside.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1);
        fs::remove_file(outside.path().join("keep.md")).unwrap();
        fs::remove_file(snapshot.folder().join("gen-2")).unwrap();
        // The current copy's folder swapped for a link: its text is not read through it.
        let current = snapshot.folder().join("gen-3");
        fs::rename(&current, snapshot.folder().join("gen-old")).unwrap();
        fs::create_dir_all(outside.path().join("x")).unwrap();
        symlink(outside.path().join("x"), &current).unwrap();
        fs::write(
            outside.path().join("x").join(copy_name("memory-bank/a.md")),
            "outside",
        )
        .unwrap();
        let snapshot = Snapshot::open(&project, Some(data.path())).unwrap();
        assert!(snapshot.text("memory-bank/a.md").is_err());
    }
}
