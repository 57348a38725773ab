//! Rows of a root remembered between runs of `mbank list`, each with what it was derived
//! from, so a warm run `stat`s what the rows depend on and analyses only the projects
//! where something changed.
//!
//! A row depends on the folders listed for its project (inode, size and times: a file
//! added, removed or renamed changes its folder), on the files it counted or read (the
//! same four: an edit in place changes no folder), on the repository the project is in
//! (as [`repository_state`] stamps it), on the folders outside it where memory may be
//! kept for it (Claude Code's per-project folder), and on what is the same for every row
//! of a run, summed up by the caller in a [`RowsKey`]: mbank's own build, the
//! configuration, the encoding, the home folder's memory places and the day (staleness
//! counts days). Which projects there are, and their banks, depends on the folders
//! discovery listed, inside the projects and between them, and on those outside ones.
//!
//! A row is remembered only when all it read can be checked so: a project whose memory
//! goes through a link, leaves the project, meets a folder or file that cannot be read, or
//! lies in a repository whose state cannot be stamped is analysed on every run. So is
//! anything that changed within the racy window of the run that saw it (see
//! `scan::listings`). The file is versioned and checksummed like the other caches; a
//! missing, corrupt or foreign file remembers nothing, and deleting it is always safe.
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::analysis::git_evidence::{Repository, repository_state};
use crate::error::Result;
use crate::io::bytes::{Reader, Writer, os_bytes, os_str, os_string};
use crate::io::cache_file;
use crate::io::hash_index::{StableHasher, checksum, stable_hash};
use crate::model::{BankLocation, Format, Project};
use crate::scan::listings::{Consulted, Listings, Stamp, time_nanos};

const MAGIC: &[u8; 8] = b"MBROWS\0\0";
/// 2: rows judged with dates that name a plan left out of the written dates.
const VERSION: u32 = 2;
/// magic, version, payload length, checksum.
const HEADER_LEN: usize = 8 + 4 + 8 + 8;

/// What every row of a run shares, in one number: rows remembered under another key
/// are not used.
#[derive(Default)]
pub struct RowsKey(StableHasher);

impl RowsKey {
    /// Starts from the running program itself (its path, inode, size and times), so a
    /// new build never reuses rows an older one made; `None` when the program cannot be
    /// found, and then nothing is remembered.
    pub fn of_this_build() -> Option<RowsKey> {
        let exe = std::env::current_exe().ok()?;
        let stamp = Stamp::of(&fs::metadata(&exe).ok()?)?;
        let mut key = RowsKey::default();
        key.part(os_bytes(exe.as_os_str())?);
        key.part(&stamp.digest().to_le_bytes());
        Some(key)
    }

    /// Adds one thing the rows depend on.
    pub fn part(&mut self, bytes: &[u8]) -> &mut RowsKey {
        self.0.write(&(bytes.len() as u64).to_le_bytes());
        self.0.write(bytes);
        self
    }

    pub fn finish(&self) -> u64 {
        self.0.finish()
    }
}

/// Where one remembered project's parts lie in the file's bytes.
#[derive(Debug, Clone, Copy)]
struct RecordAt {
    /// The whole record, copied as it is when the row is kept.
    start: usize,
    end: usize,
    path: (usize, usize),
    dirs: usize,
    files: usize,
    outside: usize,
    git: usize,
    payload: Option<(usize, usize)>,
}

/// The rows remembered for a root, and what they were derived from.
pub struct RememberedRows {
    /// `None`: nothing is read or saved (no cache folder, or no key).
    file: Option<PathBuf>,
    root: PathBuf,
    key: u64,
    bytes: Vec<u8>,
    /// Discovery's answer may be reused when its folders are unchanged.
    discovery_trusted: bool,
    /// Folders discovery listed outside every project: (offset of the path, digest).
    global: Vec<(usize, usize, u64)>,
    records: Vec<RecordAt>,
}

/// What [`RememberedRows::check`] found on disk.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    /// No folder discovery listed changed: the remembered projects are still the root's.
    pub discovery_holds: bool,
    /// Per remembered project, whether its row still holds.
    rows_hold: Vec<bool>,
}

impl Checked {
    /// Every remembered project still there with a row that holds.
    pub fn all_hold(&self) -> bool {
        self.discovery_holds && self.rows_hold.iter().all(|&holds| holds)
    }

    pub fn row_holds(&self, index: usize) -> bool {
        self.rows_hold.get(index).copied().unwrap_or(false)
    }
}

/// What a run did for one project, for [`RememberedRows::save`].
pub enum RowSource {
    /// The remembered row at this index held and was used.
    Kept(usize),
    /// Analysed in this run.
    Fresh(Observed),
}

/// What an analysis of a project read, as its caller saw it, with the row it made.
pub struct Observed {
    /// The digests of the files the row was derived from, by path relative to the
    /// project; `None` when one of them cannot vouch for the row (see [`Observed::new`]).
    files: Option<Vec<(Vec<u8>, u64)>>,
    /// Files read through a content fact of the run's listings (a store of virtual
    /// memories): they must be among those facts.
    through_facts: Vec<Vec<u8>>,
    pub repository: Repository,
    /// Folders outside the project whose change may change the row (see
    /// `discovery::OutsideFolders`).
    pub outside: Vec<PathBuf>,
    /// False when the row depends on something the inputs above cannot vouch for (see
    /// the module comment); it is then not remembered.
    pub checkable: bool,
    /// The row, as the caller encodes it.
    pub payload: Vec<u8>,
}

/// A file a row was derived from, with the size and modification time it was read at;
/// `None` for a file read through a content fact (a store of virtual memories).
pub(crate) type ReadFile<'a> = (&'a Path, Option<(u64, Option<SystemTime>)>);

impl Observed {
    /// What the analysis of the project at `project` read: `files` are `stat`ed now, on
    /// the analysing thread, and each must still be the version that was read and older
    /// than the racy window of the run that began at `started`.
    pub fn new<'a>(
        project: &Path,
        files: impl IntoIterator<Item = ReadFile<'a>>,
        started: i128,
        repository: Repository,
        outside: Vec<PathBuf>,
        checkable: bool,
        payload: Vec<u8>,
    ) -> Observed {
        // A project that is itself a link: what its folder is can change with no stamp
        // of it changing. A row that is not remembered needs no stamps at all.
        let linked = || fs::symlink_metadata(project).is_ok_and(|m| m.file_type().is_symlink());
        let mut stamped = (checkable && !linked()).then(Vec::new);
        let mut through_facts = Vec::new();
        for (path, version) in files {
            let Some(list) = stamped.as_mut() else {
                break;
            };
            let stamp = match version {
                Some((size, Some(modified))) => {
                    stamp_file(list, project, path, (size, time_nanos(modified)), started)
                }
                Some((_, None)) => None,
                None => relative(path.as_os_str(), project).map(|rel| through_facts.push(rel)),
            };
            if stamp.is_none() {
                stamped = None;
            }
        }
        Observed {
            files: stamped,
            through_facts,
            repository,
            outside,
            checkable,
            payload,
        }
    }
}

impl RememberedRows {
    /// The rows remembered for `root` in mbank's cache folder under `key` (none without
    /// a key or a cache folder).
    pub fn open_default(root: &Path, key: Option<u64>) -> RememberedRows {
        match (crate::io::paths::cache_dir(), key) {
            (Some(dir), Some(key)) => Self::open_at(&dir, root, key),
            _ => Self::empty(None, root, 0),
        }
    }

    /// The rows remembered for `root` in `dir` under `key`; a missing, invalid or foreign
    /// file remembers none.
    pub fn open_at(dir: &Path, root: &Path, key: u64) -> RememberedRows {
        let file = dir.join(Self::file_name(root));
        let mut rows = Self::empty(Some(file.clone()), root, key);
        if let Some(bytes) = cache_file::read(&file)
            && let Some((global, records, trusted)) = decode(&bytes, root, key)
        {
            rows.bytes = bytes;
            rows.global = global;
            rows.records = records;
            rows.discovery_trusted = trusted;
        }
        rows
    }

    /// The rows remembered for `root` in `dir` under whatever key they were saved with,
    /// for looking at what a run left (nothing is saved through it).
    pub fn inspect(dir: &Path, root: &Path) -> RememberedRows {
        let file = dir.join(Self::file_name(root));
        let key = cache_file::read(&file)
            .and_then(|bytes| {
                let mut r = Reader(bytes.get(HEADER_LEN..)?);
                r.bytes()?;
                r.u64()
            })
            .unwrap_or_default();
        let mut rows = Self::open_at(dir, root, key);
        rows.file = None;
        rows
    }

    fn empty(file: Option<PathBuf>, root: &Path, key: u64) -> RememberedRows {
        RememberedRows {
            file,
            root: root.to_path_buf(),
            key,
            bytes: Vec::new(),
            discovery_trusted: false,
            global: Vec::new(),
            records: Vec::new(),
        }
    }

    /// `rows-<hash of the root>.bin`.
    pub fn file_name(root: &Path) -> String {
        format!(
            "rows-{:016x}.bin",
            stable_hash(os_bytes(root.as_os_str()).unwrap_or_default())
        )
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Checks every remembered input against the disk, spread over the machine's cores.
    pub fn check(&self) -> Checked {
        if self.records.is_empty() {
            return Checked::default();
        }
        let global_holds = self.discovery_trusted
            && self.global.iter().all(|&(start, len, digest)| {
                path_at(&self.bytes, start, len).is_some_and(|path| digest_of(path) == Some(digest))
            });
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8)
            .min(self.records.len().div_ceil(256));
        let chunk = self.records.len().div_ceil(workers.max(1));
        let verdicts: Vec<Verdict> = if workers <= 1 {
            let mut probe = RepoProbe::default();
            self.records
                .iter()
                .map(|r| self.verdict(r, &mut probe))
                .collect()
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = self
                    .records
                    .chunks(chunk)
                    .map(|records| {
                        scope.spawn(move || {
                            let mut probe = RepoProbe::default();
                            records
                                .iter()
                                .map(|r| self.verdict(r, &mut probe))
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| {
                        // A checker that panicked vouches for nothing.
                        h.join().unwrap_or_default()
                    })
                    .collect()
            })
        };
        if verdicts.len() != self.records.len() {
            return Checked::default();
        }
        Checked {
            discovery_holds: global_holds && verdicts.iter().all(|v| v.folders),
            rows_hold: verdicts.iter().map(|v| v.row).collect(),
        }
    }

    fn verdict(&self, record: &RecordAt, probe: &mut RepoProbe) -> Verdict {
        let bytes = &self.bytes;
        let Some(project) = path_at(bytes, record.path.0, record.path.1) else {
            return Verdict::default();
        };
        let Some(base) = Base::open(project) else {
            return Verdict::default();
        };
        // Folders outside the project decide its banks as much as its own do.
        let folders =
            inputs_hold(bytes, record.dirs, &base) && outside_holds(bytes, record.outside);
        let row = record.payload.is_some()
            && folders
            && inputs_hold(bytes, record.files, &base)
            && git_holds(bytes, record.git, project, probe);
        Verdict { folders, row }
    }

    /// The project remembered at `index`, as discovery found it.
    pub fn project(&self, index: usize) -> Option<Project> {
        let record = self.records.get(index)?;
        let mut r = Reader(self.bytes.get(record.start..record.end)?);
        let path = PathBuf::from(os_string(r.bytes()?)?);
        let name = String::from_utf8(r.bytes()?.to_vec()).ok()?;
        let last_write = match r.u8()? {
            0 => None,
            _ => Some(from_nanos(r.i128()?)),
        };
        let bank_count = r.u32()? as usize;
        let mut banks = Vec::with_capacity(bank_count.min(64));
        for _ in 0..bank_count {
            let format = Format::from_id(std::str::from_utf8(r.bytes()?).ok()?)?;
            let root = PathBuf::from(os_string(r.bytes()?)?);
            banks.push(BankLocation { format, root });
        }
        Some(Project {
            name,
            path,
            banks,
            last_write,
        })
    }

    /// Every remembered project in the order discovery found them (for a run whose
    /// discovery holds); `None` when one cannot be read back.
    pub fn projects(&self) -> Option<Vec<Project>> {
        (0..self.records.len()).map(|i| self.project(i)).collect()
    }

    /// The row remembered for the project at `index`.
    pub fn payload(&self, index: usize) -> Option<&[u8]> {
        let (start, len) = self.records.get(index)?.payload?;
        self.bytes.get(start..start + len)
    }

    /// Index of each remembered project by its path.
    pub fn indices(&self) -> HashMap<&[u8], usize> {
        self.records
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some((self.bytes.get(r.path.0..r.path.0 + r.path.1)?, i)))
            .collect()
    }

    /// Remembers this run's rows: `sources` gives, for each of `projects` in order, the
    /// row kept or what its analysis read. `listings` are the run's (what discovery and
    /// the analyses listed); `discovered` says whether discovery ran (else the remembered
    /// projects were used and their folders are remembered as they were checked).
    /// Failures only cost an analysis next time.
    pub fn save(
        &self,
        projects: &[Project],
        sources: &[RowSource],
        listings: &Listings,
        discovered: bool,
    ) -> Result<()> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        if !discovered && sources.iter().all(|s| matches!(s, RowSource::Kept(_))) {
            return Ok(());
        }
        let started = listings.started();
        let mut consulted = listings.consulted();
        consulted.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        let mut fact_files = listings.fact_files();
        fact_files.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut attributed = vec![false; consulted.len()];
        let mut trusted = true;
        // One buffer, the header filled in at the end: the file is written from it as is.
        // Sized for what it will hold, so growing it never holds two copies at once.
        let capacity: usize = projects
            .iter()
            .zip(sources)
            .map(|(project, source)| match source {
                RowSource::Kept(index) => self.records.get(*index).map_or(0, |r| r.end - r.start),
                RowSource::Fresh(observed) => {
                    let inputs =
                        observed.files.as_ref().map_or(0, Vec::len) + observed.outside.len();
                    observed.payload.len()
                        + 64 * (inputs + project.banks.len() + 8)
                        + project.path.as_os_str().len()
                }
            })
            .sum();
        let mut records = Writer(Vec::with_capacity(HEADER_LEN + capacity + 64 * 1024));
        records.0.resize(HEADER_LEN, 0);
        records.bytes(os_bytes(self.root.as_os_str()).unwrap_or_default());
        records.u64(self.key);
        records.u32(projects.len() as u32);
        let indices = if discovered {
            HashMap::new()
        } else {
            self.indices()
        };
        for (project, source) in projects.iter().zip(sources) {
            let encodable = os_bytes(project.path.as_os_str()).is_some()
                && project
                    .banks
                    .iter()
                    .all(|bank| os_bytes(bank.root.as_os_str()).is_some());
            if !encodable {
                // Its paths would not read back as they are: discovery must run again.
                trusted = false;
            }
            let inside = under(&consulted, |f| f.path.as_os_str(), &project.path);
            for &index in &inside {
                attributed[index] = true;
            }
            let folders: Vec<&Consulted> = inside.iter().map(|&i| &consulted[i]).collect();
            if folders.iter().any(|f| f.links || f.digest.is_none()) {
                trusted = false;
            }
            match source {
                RowSource::Kept(index) => {
                    let Some(record) = self.records.get(*index) else {
                        trusted = false;
                        encode_project(&mut records, project, [&[], &[], &[]], None, None);
                        continue;
                    };
                    records
                        .0
                        .extend_from_slice(&self.bytes[record.start..record.end]);
                }
                RowSource::Fresh(observed) => {
                    let mut dirs: Vec<(Vec<u8>, u64)> = Vec::new();
                    let mut checkable = observed.checkable;
                    for folder in folders {
                        match (relative(&folder.path, &project.path), folder.digest) {
                            (Some(rel), Some(digest)) if !folder.links => dirs.push((rel, digest)),
                            _ => checkable = false,
                        }
                    }
                    if !discovered {
                        // Discovery's folders of this project were checked unchanged but
                        // may not have been listed again by its analysis.
                        let index = os_bytes(project.path.as_os_str())
                            .and_then(|path| indices.get(path).copied());
                        if let Some(index) = index {
                            for (rel, digest) in self.dirs_of(index) {
                                if !dirs.iter().any(|(known, _)| *known == rel) {
                                    dirs.push((rel, digest));
                                }
                            }
                        } else {
                            trusted = false;
                        }
                    }
                    if !dirs.iter().any(|(rel, _)| rel.is_empty()) {
                        // Its own folder unchecked: a bank created in it would go unseen.
                        checkable = false;
                        trusted = false;
                    }
                    let files = if checkable {
                        file_inputs(project, observed, &fact_files, started)
                    } else {
                        None
                    };
                    let outside: Option<Vec<(Vec<u8>, u64)>> = observed
                        .outside
                        .iter()
                        .map(|path| {
                            let stamp = Stamp::of(&fs::metadata(path).ok()?)?;
                            let path = os_bytes(path.as_os_str())?.to_vec();
                            (!stamp.is_racy(started)).then(|| (path, stamp.digest()))
                        })
                        .collect();
                    // Discovery depends on them even where the row is not remembered.
                    let Some(outside) = outside else {
                        trusted = false;
                        encode_project(&mut records, project, [&dirs, &[], &[]], None, None);
                        continue;
                    };
                    let git = match &observed.repository {
                        Repository::Outside => Some(None),
                        Repository::At {
                            marker,
                            state: Some(state),
                        } => Some(Some((marker.as_path(), *state))),
                        Repository::At { state: None, .. } => None,
                    };
                    match (files, git) {
                        (Some(files), Some(git)) => encode_project(
                            &mut records,
                            project,
                            [&dirs, &files, &outside],
                            Some(git),
                            Some(&observed.payload),
                        ),
                        _ => encode_project(
                            &mut records,
                            project,
                            [&dirs, &[], &outside],
                            None,
                            None,
                        ),
                    }
                }
            }
        }
        let global: Vec<(Vec<u8>, u64)> = if discovered {
            consulted
                .iter()
                .zip(&attributed)
                .filter(|(_, attributed)| !**attributed)
                .filter_map(|(folder, _)| {
                    if folder.links || folder.digest.is_none() {
                        trusted = false;
                    }
                    Some((os_bytes(&folder.path)?.to_vec(), folder.digest?))
                })
                .collect()
        } else {
            self.global
                .iter()
                .map(|&(start, len, digest)| (self.bytes[start..start + len].to_vec(), digest))
                .collect()
        };
        records.u8(u8::from(trusted && (discovered || self.discovery_trusted)));
        records.u32(global.len() as u32);
        for (path, digest) in &global {
            records.bytes(path);
            records.u64(*digest);
        }
        let mut bytes = records.0;
        let body_len = (bytes.len() - HEADER_LEN) as u64;
        let body_checksum = checksum(&bytes[HEADER_LEN..]);
        let mut header = Writer(Vec::with_capacity(HEADER_LEN));
        header.0.extend_from_slice(MAGIC);
        header.u32(VERSION);
        header.u64(body_len);
        header.u64(body_checksum);
        bytes[..HEADER_LEN].copy_from_slice(&header.0);
        cache_file::save(file, &bytes)
    }

    /// The index of the project remembered at `path` (a linear search: see
    /// [`RememberedRows::indices`] for many).
    pub fn index_of(&self, path: &Path) -> Option<usize> {
        let wanted = os_bytes(path.as_os_str())?;
        self.records
            .iter()
            .position(|r| self.bytes.get(r.path.0..r.path.0 + r.path.1) == Some(wanted))
    }

    /// The folder inputs of the record at `index`: (path relative to the project, digest).
    fn dirs_of(&self, index: usize) -> Vec<(Vec<u8>, u64)> {
        let Some(record) = self.records.get(index) else {
            return Vec::new();
        };
        let mut r = Reader(&self.bytes[record.dirs..]);
        let Some(count) = r.u32() else {
            return Vec::new();
        };
        (0..count)
            .map_while(|_| Some((r.bytes()?.to_vec(), r.u64()?)))
            .collect()
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Verdict {
    /// The folders it remembers (in the project and outside it) are unchanged.
    folders: bool,
    /// Its row still holds.
    row: bool,
}

/// Whether every input of the list at `offset` has the digest remembered for it.
fn inputs_hold(bytes: &[u8], offset: usize, base: &Base) -> bool {
    let Some(rest) = bytes.get(offset..) else {
        return false;
    };
    let mut r = Reader(rest);
    let Some(count) = r.u32() else {
        return false;
    };
    for _ in 0..count {
        let (Some(rel), Some(digest)) = (r.bytes().and_then(os_str), r.u64()) else {
            return false;
        };
        if base.digest(Path::new(rel)) != Some(digest) {
            return false;
        }
    }
    true
}

/// A project's folder, where its inputs are checked from: on Unix an open handle, so
/// each name is resolved from the folder rather than from `/` (walking the same leading
/// folders again for every file took a third of the kernel's time).
#[cfg(unix)]
struct Base(rustix::fd::OwnedFd);

#[cfg(unix)]
impl Base {
    fn open(project: &Path) -> Option<Base> {
        use rustix::fs::{CWD, Mode, OFlags, openat};
        // Links followed, as listing and reading follow them.
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        openat(CWD, project, flags, Mode::empty()).ok().map(Base)
    }

    /// The digest of `rel` (the folder itself when empty), links followed.
    fn digest(&self, rel: &Path) -> Option<u64> {
        use rustix::fs::{AtFlags, fstat, statat};
        let stat = if rel.as_os_str().is_empty() {
            fstat(&self.0)
        } else {
            statat(&self.0, rel, AtFlags::empty())
        }
        .ok()?;
        let nanos =
            |seconds: i64, nanos: i64| i128::from(seconds) * 1_000_000_000 + i128::from(nanos);
        #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
        let stamp = Stamp::from_parts(
            stat.st_ino as u64,
            stat.st_size as u64,
            nanos(stat.st_mtime as i64, stat.st_mtime_nsec as i64),
            nanos(stat.st_ctime as i64, stat.st_ctime_nsec as i64),
        );
        Some(stamp.digest())
    }
}

#[cfg(not(unix))]
struct Base(PathBuf);

#[cfg(not(unix))]
impl Base {
    fn open(project: &Path) -> Option<Base> {
        Some(Base(project.to_path_buf()))
    }

    fn digest(&self, rel: &Path) -> Option<u64> {
        let path = if rel.as_os_str().is_empty() {
            self.0.clone()
        } else {
            self.0.join(rel)
        };
        digest_of(&path)
    }
}

/// Whether every absolute input of the list at `offset` has its remembered digest.
fn outside_holds(bytes: &[u8], offset: usize) -> bool {
    let Some(rest) = bytes.get(offset..) else {
        return false;
    };
    let mut r = Reader(rest);
    let Some(count) = r.u32() else {
        return false;
    };
    (0..count).all(|_| match (r.bytes().and_then(os_str), r.u64()) {
        (Some(path), Some(digest)) => digest_of(Path::new(path)) == Some(digest),
        _ => false,
    })
}

/// The digest of a file or folder (links followed, as listing and reading follow them).
fn digest_of(path: &Path) -> Option<u64> {
    Stamp::of(&fs::metadata(path).ok()?).map(|stamp| stamp.digest())
}

/// Finds repositories without git, remembering each folder's answer for the check.
#[derive(Default)]
struct RepoProbe {
    parents: HashMap<PathBuf, Option<PathBuf>>,
    markers: HashMap<PathBuf, Option<PathBuf>>,
    states: HashMap<PathBuf, Option<u64>>,
}

impl RepoProbe {
    /// The project's parent folder with its links resolved, once per parent.
    fn resolved_parent(&mut self, project: &Path) -> Option<PathBuf> {
        let parent = project.parent()?;
        self.parents
            .entry(parent.to_path_buf())
            .or_insert_with(|| fs::canonicalize(parent).ok())
            .clone()
    }

    /// The nearest folder above `project` holding a `.git` entry, its parent resolved.
    fn marker_above(&mut self, project: &Path) -> Option<PathBuf> {
        let resolved = self.resolved_parent(project)?;
        crate::git::nearest_marker(&mut self.markers, &resolved, |folder| {
            fs::symlink_metadata(folder.join(".git")).is_ok()
        })
    }

    /// The project's folder as git sees it (its parent resolved).
    fn resolved(&mut self, project: &Path) -> Option<PathBuf> {
        Some(self.resolved_parent(project)?.join(project.file_name()?))
    }

    fn state(&mut self, marker: &Path) -> Option<u64> {
        *self
            .states
            .entry(marker.to_path_buf())
            .or_insert_with(|| repository_state(marker))
    }
}

/// Whether the project is still where it was in git: outside any repository, or in the
/// same one in the same state. The project's own `.git` entry is vouched for by its own
/// folder, which every remembered row checks.
fn git_holds(bytes: &[u8], offset: usize, project: &Path, probe: &mut RepoProbe) -> bool {
    let Some(rest) = bytes.get(offset..) else {
        return false;
    };
    let mut r = Reader(rest);
    match r.u8() {
        Some(0) => probe.marker_above(project).is_none(),
        Some(1) => {
            let (Some(marker), Some(state)) = (r.bytes().and_then(os_str), r.u64()) else {
                return false;
            };
            let marker = Path::new(marker);
            let found = if probe.resolved(project).as_deref() == Some(marker) {
                true
            } else {
                probe.marker_above(project).as_deref() == Some(marker)
            };
            found && probe.state(marker) == Some(state)
        }
        _ => false,
    }
}

/// The digests of the files a fresh row read: its observed files, and the files whose
/// facts the run used inside the project. `None` when one changed since it was read or
/// so recently that a change could keep its times, or lies outside the project.
fn file_inputs(
    project: &Project,
    observed: &Observed,
    fact_files: &[(OsString, u64, i128)],
    started: i128,
) -> Option<Vec<(Vec<u8>, u64)>> {
    let mut files = observed.files.clone()?;
    for index in under(fact_files, |(path, _, _)| path.as_os_str(), &project.path) {
        let (path, len, mtime) = &fact_files[index];
        stamp_file(
            &mut files,
            &project.path,
            Path::new(path),
            (*len, *mtime),
            started,
        )?;
    }
    observed
        .through_facts
        .iter()
        .all(|rel| files.iter().any(|(known, _)| known == rel))
        .then_some(files)
}

/// Adds the digest of `path` (relative to the project) unless it is there already;
/// `None` when it is outside the project, no longer at `version` (size, modification
/// time) or changed within the racy window of the run.
fn stamp_file(
    files: &mut Vec<(Vec<u8>, u64)>,
    project: &Path,
    path: &Path,
    version: (u64, i128),
    started: i128,
) -> Option<()> {
    let rel = relative(path.as_os_str(), project)?;
    if files.iter().any(|(known, _)| *known == rel) {
        return Some(());
    }
    let stamp = Stamp::of(&fs::metadata(path).ok()?)?;
    if stamp.version() != version || stamp.is_racy(started) {
        return None;
    }
    files.push((rel, stamp.digest()));
    Some(())
}

/// The indices of the `sorted` paths that are `project` or lie under it: the project
/// itself, then the run of paths starting with `project/` (in byte order a sibling such
/// as `project-2` falls between the two).
fn under<T>(sorted: &[T], path_of: impl Fn(&T) -> &OsStr, project: &Path) -> Vec<usize> {
    let mut found = Vec::new();
    let Some(base) = os_bytes(project.as_os_str()) else {
        return found;
    };
    let exact = sorted.partition_point(|item| os_bytes(path_of(item)).unwrap_or_default() < base);
    if sorted
        .get(exact)
        .is_some_and(|item| os_bytes(path_of(item)) == Some(base))
    {
        found.push(exact);
    }
    let mut prefix = base.to_vec();
    prefix.push(b'/');
    let mut index =
        sorted.partition_point(|item| os_bytes(path_of(item)).unwrap_or_default() < &prefix[..]);
    while let Some(item) = sorted.get(index)
        && os_bytes(path_of(item)).is_some_and(|p| p.starts_with(&prefix))
    {
        found.push(index);
        index += 1;
    }
    found
}

/// `path` relative to `project` as bytes (empty for the project itself); `None` outside.
fn relative(path: &OsStr, project: &Path) -> Option<Vec<u8>> {
    let path = os_bytes(path)?;
    let base = os_bytes(project.as_os_str())?;
    let rest = path.strip_prefix(base)?;
    match rest.split_first() {
        None => Some(Vec::new()),
        Some((b'/', rel)) if !rel.is_empty() => Some(rel.to_vec()),
        _ => None,
    }
}

/// One record: the project, its folder, file and outside inputs, its place in git and
/// its row.
fn encode_project(
    out: &mut Writer,
    project: &Project,
    inputs: [&[(Vec<u8>, u64)]; 3],
    git: Option<Option<(&Path, u64)>>,
    payload: Option<&[u8]>,
) {
    out.bytes(os_bytes(project.path.as_os_str()).unwrap_or_default());
    out.bytes(project.name.as_bytes());
    match project.last_write {
        Some(time) => {
            out.u8(1);
            out.i128(time_nanos(time));
        }
        None => out.u8(0),
    }
    out.u32(project.banks.len() as u32);
    for bank in &project.banks {
        out.bytes(bank.format.id().as_bytes());
        out.bytes(os_bytes(bank.root.as_os_str()).unwrap_or_default());
    }
    for list in inputs {
        out.u32(list.len() as u32);
        for (rel, digest) in list {
            out.bytes(rel);
            out.u64(*digest);
        }
    }
    match git {
        Some(Some((marker, state))) => {
            out.u8(1);
            out.bytes(os_bytes(marker.as_os_str()).unwrap_or_default());
            out.u64(state);
        }
        // Outside any repository, or (with no row) nothing to say.
        _ => out.u8(0),
    }
    match (git, payload) {
        (Some(_), Some(payload)) => {
            out.u8(1);
            out.bytes(payload);
        }
        _ => out.u8(0),
    }
}

type Decoded = (Vec<(usize, usize, u64)>, Vec<RecordAt>, bool);

/// Checks a file and indexes its records; `None` for anything that is not this
/// module's file for `root` under `key`.
fn decode(bytes: &[u8], root: &Path, key: u64) -> Option<Decoded> {
    let mut header = Reader(bytes);
    if header.take(MAGIC.len())? != MAGIC || header.u32()? != VERSION {
        return None;
    }
    let len = usize::try_from(header.u64()?).ok()?;
    let expected = header.u64()?;
    if header.0.len() != len || checksum(header.0) != expected {
        return None;
    }
    let mut r = Reader(header.0);
    let at = |r: &Reader<'_>| bytes.len() - r.0.len();
    if r.bytes()? != os_bytes(root.as_os_str())? || r.u64()? != key {
        return None;
    }
    let count = r.u32()? as usize;
    let mut records = Vec::with_capacity(count.min(r.0.len() / 32 + 1));
    for _ in 0..count {
        let start = at(&r);
        let path = r.bytes()?;
        let path = (start + 4, path.len());
        r.bytes()?;
        if r.u8()? == 1 {
            r.i128()?;
        }
        for _ in 0..r.u32()? {
            r.bytes()?;
            r.bytes()?;
        }
        let dirs = at(&r);
        skip_inputs(&mut r)?;
        let files = at(&r);
        skip_inputs(&mut r)?;
        let outside = at(&r);
        skip_inputs(&mut r)?;
        let git = at(&r);
        if r.u8()? == 1 {
            r.bytes()?;
            r.u64()?;
        }
        let payload = match r.u8()? {
            0 => None,
            _ => {
                let start = at(&r) + 4;
                Some((start, r.bytes()?.len()))
            }
        };
        records.push(RecordAt {
            start,
            end: at(&r),
            path,
            dirs,
            files,
            outside,
            git,
            payload,
        });
    }
    let trusted = r.u8()? == 1;
    let global_count = r.u32()? as usize;
    let mut global = Vec::with_capacity(global_count.min(r.0.len() / 12 + 1));
    for _ in 0..global_count {
        let start = at(&r) + 4;
        let path = r.bytes()?;
        global.push((start, path.len(), r.u64()?));
    }
    r.0.is_empty().then_some((global, records, trusted))
}

fn skip_inputs(r: &mut Reader<'_>) -> Option<()> {
    for _ in 0..r.u32()? {
        r.bytes()?;
        r.u64()?;
    }
    Some(())
}

fn path_at(bytes: &[u8], start: usize, len: usize) -> Option<&Path> {
    os_str(bytes.get(start..start + len)?).map(Path::new)
}

fn from_nanos(nanos: i128) -> SystemTime {
    let magnitude = Duration::from_nanos(u64::try_from(nanos.unsigned_abs()).unwrap_or(u64::MAX));
    if nanos >= 0 {
        UNIX_EPOCH + magnitude
    } else {
        UNIX_EPOCH - magnitude
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::model::MemoryFile;
    use crate::scan::bank::list_banks_with;
    use crate::scan::discovery::{ScanOptions, scan_with};
    use crate::scan::listings::RACY_WINDOW;

    fn consulted(path: &str) -> Consulted {
        Consulted {
            path: OsString::from(path),
            digest: Some(1),
            links: false,
        }
    }

    #[test]
    fn a_project_owns_its_folder_and_what_lies_below_never_a_sibling_sharing_its_name() {
        let mut sorted: Vec<Consulted> = [
            "/r", "/r/p", "/r/p-2", "/r/p-2/x", "/r/p/a", "/r/p/a/b", "/r/pq",
        ]
        .into_iter()
        .map(consulted)
        .collect();
        sorted.sort_by(|a, b| a.path.cmp(&b.path));
        let names = |project: &str| -> Vec<String> {
            under(&sorted, |f| f.path.as_os_str(), Path::new(project))
                .into_iter()
                .map(|i| sorted[i].path.to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(names("/r/p"), ["/r/p", "/r/p/a", "/r/p/a/b"]);
        assert_eq!(names("/r/p-2"), ["/r/p-2", "/r/p-2/x"]);
        assert_eq!(names("/r/none"), Vec::<String>::new());
        assert_eq!(
            relative(OsStr::new("/r/p/a"), Path::new("/r/p")),
            Some(b"a".to_vec())
        );
        assert_eq!(
            relative(OsStr::new("/r/p"), Path::new("/r/p")),
            Some(Vec::new())
        );
        assert_eq!(relative(OsStr::new("/r/pq"), Path::new("/r/p")), None);
    }

    /// Discovers and lists `root` as `list` does at `clock`'s now, and remembers each
    /// project's row.
    fn remember(cache: &Path, root: &Path, key: u64, clock: &Clock) -> RememberedRows {
        let rows = RememberedRows::open_at(cache, root, key);
        let listings = Listings::stamping(clock);
        let projects = scan_with(root, &ScanOptions::default(), &listings);
        let sources: Vec<RowSource> = projects
            .iter()
            .map(|project| {
                let files: Vec<MemoryFile> = list_banks_with(&listings, project)
                    .into_iter()
                    .flat_map(|bank| bank.files)
                    .collect();
                RowSource::Fresh(Observed::new(
                    &project.path,
                    files
                        .iter()
                        .map(|file| (file.path.as_path(), Some((file.size, file.modified)))),
                    listings.started(),
                    Repository::Outside,
                    Vec::new(),
                    true,
                    project.name.as_bytes().to_vec(),
                ))
            })
            .collect();
        rows.save(&projects, &sources, &listings, true).unwrap();
        RememberedRows::open_at(cache, root, key)
    }

    #[test]
    fn rows_are_remembered_once_settled_for_their_root_and_key_alone() {
        let tree = tempfile::tempdir().unwrap();
        let cache = tree.path().join("cache");
        let root = tree.path().join("root");
        for project in ["a", "b"] {
            let bank = root.join(project).join("memory-bank");
            fs::create_dir_all(&bank).unwrap();
            fs::write(bank.join("progress.md"), "# Progress\n").unwrap();
        }

        // Changed just now: the projects are remembered, their rows are not.
        let racy = remember(&cache, &root, 7, &Clock::system());
        assert_eq!(racy.len(), 2);
        assert!((0..2).all(|i| racy.payload(i).is_none()));
        assert!(!racy.check().discovery_holds);

        // A run that starts once the racy window has passed keeps them.
        let later = Clock::fixed(SystemTime::now() + RACY_WINDOW + Duration::from_secs(1));
        let rows = remember(&cache, &root, 7, &later);
        let checked = rows.check();
        assert!(checked.all_hold());
        let a = rows.index_of(&root.join("a")).unwrap();
        assert_eq!(rows.payload(a), Some(&b"a"[..]));
        assert_eq!(rows.project(a).unwrap().banks.len(), 1);

        assert!(
            RememberedRows::open_at(&cache, &root, 8).is_empty(),
            "another key"
        );
        assert!(RememberedRows::open_at(&cache, &tree.path().join("other"), 7).is_empty());
        let file = cache.join(RememberedRows::file_name(&root));
        let bytes = fs::read(&file).unwrap();
        fs::write(&file, &bytes[..bytes.len() - 1]).unwrap();
        assert!(
            RememberedRows::open_at(&cache, &root, 7).is_empty(),
            "a cut file"
        );
        fs::write(&file, &bytes).unwrap();

        fs::write(
            root.join("b/memory-bank/progress.md"),
            "# Progress\n\nMore.\n",
        )
        .unwrap();
        let checked = RememberedRows::open_at(&cache, &root, 7).check();
        assert!(checked.discovery_holds, "an edit in place adds no bank");
        let b = rows.index_of(&root.join("b")).unwrap();
        assert!(checked.row_holds(a) && !checked.row_holds(b));
        fs::write(root.join("a/memory-bank/notes.md"), "# Notes\n").unwrap();
        assert!(
            !RememberedRows::open_at(&cache, &root, 7)
                .check()
                .discovery_holds
        );
    }
}
