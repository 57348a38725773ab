//! Rows of a root remembered between runs of `mbank list`, each with what it was derived
//! from, so a warm run `stat`s what the rows depend on and analyses only the projects
//! where something changed.
//!
//! A row depends on the folders listed for its project (inode, size and times: a file
//! added, removed or renamed changes its folder), on the files it counted or read (the
//! same four: an edit in place changes no folder), on the repository the project is in
//! (as `repository_state` stamps it), on the folders outside it where memory may be
//! kept for it (Claude Code's per-project folder), and on what is the same for every row
//! of a run, summed up by the caller in a [`RowsKey`]: mbank's own build, the
//! configuration, the encoding, the home folder's memory places and the day (staleness
//! counts days). Which projects there are, and their banks, depends on the folders
//! discovery listed, inside the projects and between them, and on those outside ones.
//!
//! A link in a listed folder is an input by where it leads (or, leading nowhere, by the
//! nearest folder above its target: see `stamps::link_inputs`). A row is remembered only
//! when all it read can be checked so: a project that is itself a link, whose memory
//! leaves the project, that meets a folder or file that cannot be read, or that lies in a
//! repository whose state cannot be stamped is analysed on every run. So is anything that
//! changed within the racy window of the run that saw it (see `scan::listings`). The file
//! is a section of mbank's cache store (`cache_store::rows`); a missing, corrupt or
//! foreign file remembers nothing, and deleting it is always safe.
//! `mbank check` remembers each project's findings the same way, in a file and section of
//! their own ([`Remembered::Checks`]), its inputs widened by what its check read.
mod check;
mod stamps;

use std::borrow::Cow;
use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use check::{Base, RepoProbe, RowVerdict, digest_of, git_holds, inputs_hold, outside_holds};
use stamps::{PackedStamps, Packing, link_inputs, relative, relative_slice, under};

use crate::analysis::git_evidence::Repository;
use crate::cache_store::rows::{self as section, DISCOVERY, Derived, InputsOut, PROJECTS};
use crate::cache_store::{self, Loaded, Raw, Section};
use crate::error::Result;
use crate::io::bytes::{os_bytes, os_str, os_string};
use crate::io::hash_index::{StableHasher, stable_hash};
use crate::model::{BankLocation, Format, MemoryFile, Project};
use crate::scan::listings::{Consulted, Listings, Stamp, time_nanos, time_of_nanos};

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

/// What a root's remembered results are: `list`'s rows or `check`'s findings, each kept
/// in a file of its own with the same inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remembered {
    Rows,
    Checks,
}

impl Remembered {
    fn section(self) -> Section {
        match self {
            Remembered::Rows => Section::Rows,
            Remembered::Checks => Section::Checks,
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Remembered::Rows => "rows",
            Remembered::Checks => "checks",
        }
    }
}

/// The rows remembered for a root, and what they were derived from.
pub struct RememberedRows {
    kind: Remembered,
    /// `None`: nothing is read or saved (no cache folder, or no key).
    file: Option<PathBuf>,
    root: PathBuf,
    key: u64,
    /// The file as read: one record per remembered project.
    loaded: Loaded,
    /// Discovery's answer may be reused when its folders are unchanged.
    discovery_trusted: bool,
    /// Folders discovery listed outside every project, with their digests.
    global: Vec<(Vec<u8>, u64)>,
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
    files: Option<PackedStamps>,
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

/// A file a row was derived from, with the size and modification time it was read at
/// (`None` for a file read through a content fact, a store of virtual memories), and its
/// inode and change time then when they were taken with them (as it was listed or read).
pub(crate) type ReadFile<'a> = (
    &'a Path,
    Option<(u64, Option<SystemTime>)>,
    Option<(u64, i128)>,
);

/// The inode and change time (nanoseconds since the epoch) `file` had when it was
/// listed, with its size and modification time; `None` where either is unknown.
pub fn listed_inode_and_change(file: &MemoryFile) -> Option<(u64, i128)> {
    Some((file.inode?, time_nanos(file.changed?)))
}

impl Observed {
    /// What the analysis of the project at `project` read: each of `files` must be
    /// older than the racy window of the run that began at `started`, and one whose
    /// inode and change time were not taken with its size and modification time is
    /// `stat`ed now, on the analysing thread, and must still be that version. A stamp
    /// taken before the file was read is as good as one taken after: a change in
    /// between leaves the remembered stamp behind the file, so the next run reads it.
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
        let files = files.into_iter();
        let mut packing = (checkable && !linked()).then(|| Packing::new(files.size_hint().0));
        let mut through_facts = Vec::new();
        for (path, version, inode_and_change) in files {
            let Some(packer) = packing.as_mut() else {
                break;
            };
            let stamped = match version {
                Some((size, Some(modified))) => {
                    let modified = time_nanos(modified);
                    let as_read = inode_and_change
                        .map(|(ino, change)| Stamp::from_parts(ino, size, modified, change));
                    packer.stamp(project, path, (size, modified), as_read, started)
                }
                Some((_, None)) => None,
                None => relative_slice(path.as_os_str(), project)
                    .map(|rel| through_facts.push(rel.to_vec())),
            };
            if stamped.is_none() {
                packing = None;
            }
        }
        Observed {
            files: packing.map(Packing::finish),
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
        Self::open_default_of(Remembered::Rows, root, key)
    }

    /// [`RememberedRows::open_default`] of `kind`.
    pub fn open_default_of(kind: Remembered, root: &Path, key: Option<u64>) -> RememberedRows {
        match (crate::io::paths::cache_dir(), key) {
            (Some(dir), Some(key)) => Self::open_at_of(kind, &dir, root, key),
            _ => Self::empty(kind, None, root, 0),
        }
    }

    /// The rows remembered for `root` in `dir` under `key`; a missing, invalid or foreign
    /// file remembers none.
    pub fn open_at(dir: &Path, root: &Path, key: u64) -> RememberedRows {
        Self::open_at_of(Remembered::Rows, dir, root, key)
    }

    /// [`RememberedRows::open_at`] of `kind`.
    pub(crate) fn open_at_of(
        kind: Remembered,
        dir: &Path,
        root: &Path,
        key: u64,
    ) -> RememberedRows {
        let file = dir.join(Self::file_name_of(kind, root));
        let loaded = section::read(&file, kind.section());
        let mut rows = Self::empty(kind, Some(file), root, key);
        if let Some(loaded) = loaded {
            rows.take(loaded);
        }
        rows
    }

    /// The rows remembered for `root` in `dir` under whatever key they were saved with,
    /// for looking at what a run left (nothing is saved through it).
    pub fn inspect(dir: &Path, root: &Path) -> RememberedRows {
        Self::inspect_of(Remembered::Rows, dir, root)
    }

    /// [`RememberedRows::inspect`] of `kind`.
    pub fn inspect_of(kind: Remembered, dir: &Path, root: &Path) -> RememberedRows {
        let mut rows = Self::empty(kind, None, root, 0);
        if let Some(loaded) =
            section::read(&dir.join(Self::file_name_of(kind, root)), kind.section())
            && let Some((_, key)) = section::scope_of(loaded.scope())
        {
            rows.key = key;
            rows.take(loaded);
        }
        rows
    }

    /// Takes in a file when it is for this root and key, and reads back.
    fn take(&mut self, loaded: Loaded) {
        let scope = os_bytes(self.root.as_os_str()).and_then(|root| section::scope(root, self.key));
        if scope.as_deref() != Some(loaded.scope()) || loaded.len(DISCOVERY) != 1 {
            return;
        }
        let Some(discovery) = section::discovery(loaded.record(DISCOVERY, 0)) else {
            return;
        };
        self.discovery_trusted = discovery.trusted;
        self.global = discovery
            .folders
            .iter()
            .map(|(path, digest)| (path.0.to_vec(), *digest))
            .collect();
        self.loaded = loaded;
    }

    fn empty(kind: Remembered, file: Option<PathBuf>, root: &Path, key: u64) -> RememberedRows {
        RememberedRows {
            kind,
            file,
            root: root.to_path_buf(),
            key,
            loaded: Loaded::default(),
            discovery_trusted: false,
            global: Vec::new(),
        }
    }

    /// `rows-<hash of the root>.bin`.
    pub fn file_name(root: &Path) -> String {
        Self::file_name_of(Remembered::Rows, root)
    }

    /// `rows-…` or `checks-<hash of the root>.bin`.
    pub(crate) fn file_name_of(kind: Remembered, root: &Path) -> String {
        format!(
            "{}-{:016x}.bin",
            kind.prefix(),
            stable_hash(os_bytes(root.as_os_str()).unwrap_or_default())
        )
    }

    pub fn len(&self) -> usize {
        self.loaded.len(PROJECTS)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checks every remembered input against the disk, spread over the machine's cores.
    pub fn check(&self) -> Checked {
        let count = self.len();
        if count == 0 {
            return Checked::default();
        }
        let global_holds = self.discovery_trusted
            && self.global.iter().all(|(path, digest)| {
                os_str(path).is_some_and(|path| digest_of(Path::new(path)) == Some(*digest))
            });
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8)
            .min(count.div_ceil(256));
        let chunk = count.div_ceil(workers.max(1));
        let verdicts: Vec<RowVerdict> = if workers <= 1 {
            let mut probe = RepoProbe::default();
            (0..count).map(|n| self.verdict(n, &mut probe)).collect()
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..count)
                    .step_by(chunk)
                    .map(|first| {
                        scope.spawn(move || {
                            let mut probe = RepoProbe::default();
                            (first..count.min(first + chunk))
                                .map(|n| self.verdict(n, &mut probe))
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
        if verdicts.len() != count {
            return Checked::default();
        }
        Checked {
            discovery_holds: global_holds && verdicts.iter().all(|v| v.folders),
            rows_hold: verdicts.iter().map(|v| v.row).collect(),
        }
    }

    fn verdict(&self, number: usize, probe: &mut RepoProbe) -> RowVerdict {
        let Some(record) = section::project(self.loaded.record(PROJECTS, number)) else {
            return RowVerdict::default();
        };
        let Some(project) = os_str(record.path.0).map(Path::new) else {
            return RowVerdict::default();
        };
        let Some(base) = Base::open(project) else {
            return RowVerdict::default();
        };
        // Folders outside the project decide its banks as much as its own do.
        let folders = inputs_hold(&record.dirs, &base) && outside_holds(&record.outside);
        let row = record.row.is_some()
            && folders
            && inputs_hold(&record.files, &base)
            && git_holds(record.git, project, probe);
        RowVerdict { folders, row }
    }

    /// The project remembered at `index`, as discovery found it.
    pub fn project(&self, index: usize) -> Option<Project> {
        if index >= self.len() {
            return None;
        }
        let record = section::project(self.loaded.record(PROJECTS, index))?;
        let banks = record
            .banks
            .iter()
            .map(|&(format, root)| {
                Some(BankLocation {
                    format: Format::from_id(format)?,
                    root: PathBuf::from(os_string(root.0)?),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Project {
            name: record.name.to_string(),
            path: PathBuf::from(os_string(record.path.0)?),
            banks,
            last_write: record.last_write.map(time_of_nanos),
            real: None,
        })
    }

    /// Every remembered project in the order discovery found them (for a run whose
    /// discovery holds); `None` when one cannot be read back.
    pub fn projects(&self) -> Option<Vec<Project>> {
        (0..self.len()).map(|i| self.project(i)).collect()
    }

    /// The row remembered for the project at `index`.
    pub fn payload(&self, index: usize) -> Option<&[u8]> {
        if index >= self.len() {
            return None;
        }
        Some(
            section::project(self.loaded.record(PROJECTS, index))?
                .row?
                .0,
        )
    }

    /// The path of the project remembered at `index`, as bytes.
    fn path_bytes(&self, index: usize) -> Option<&[u8]> {
        if index >= self.len() {
            return None;
        }
        section::project_path(self.loaded.record(PROJECTS, index)).map(|path| path.0)
    }

    /// Index of each remembered project by its path.
    pub fn indices(&self) -> HashMap<&[u8], usize> {
        (0..self.len())
            .filter_map(|i| Some((self.path_bytes(i)?, i)))
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
        let Some(scope) =
            os_bytes(self.root.as_os_str()).and_then(|root| section::scope(root, self.key))
        else {
            return Ok(());
        };
        let indices = if discovered {
            HashMap::new()
        } else {
            self.indices()
        };
        // Each record is written to the file as it is made (kept ones copied from the
        // file as they are), so saving holds no copy of every project's record.
        cache_store::save_tables(file, self.kind.section(), &scope, 2, |out| {
            out.table(projects.len());
            let mut records = Records {
                out,
                scratch: Vec::new(),
                whole: true,
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
                if folders.iter().any(|f| f.unknown || f.digest.is_none()) {
                    trusted = false;
                }
                match source {
                    RowSource::Kept(index) => {
                        if *index >= self.len() {
                            trusted = false;
                            encode_project(&mut records, project, [InputsOut::NONE; 3], None, None);
                            continue;
                        }
                        records.out.record(self.loaded.record(PROJECTS, *index));
                    }
                    RowSource::Fresh(observed) => {
                        let mut dirs: Vec<(Vec<u8>, u64)> = Vec::new();
                        let mut checkable = observed.checkable;
                        for folder in &folders {
                            match (relative(&folder.path, &project.path), folder.digest) {
                                (Some(rel), Some(digest)) if !folder.unknown => {
                                    dirs.push((rel, digest))
                                }
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
                        // Where its folders' links lead decides its banks as its folders do.
                        let links = link_inputs(folders.iter().flat_map(|f| &f.links), started);
                        let outside: Option<Vec<(Vec<u8>, u64)>> = observed
                            .outside
                            .iter()
                            .map(|path| {
                                let stamp = Stamp::of(&fs::metadata(path).ok()?)?;
                                let path = os_bytes(path.as_os_str())?.to_vec();
                                (!stamp.is_racy(started)).then(|| (path, stamp.digest()))
                            })
                            .collect::<Option<Vec<_>>>()
                            .zip(links)
                            .map(|(mut outside, links)| {
                                outside.extend(links);
                                outside
                            });
                        // Discovery depends on them even where the row is not remembered.
                        let Some(outside) = outside else {
                            trusted = false;
                            let dirs = InputsOut::Pairs(&dirs);
                            encode_project(
                                &mut records,
                                project,
                                [dirs, InputsOut::NONE, InputsOut::NONE],
                                None,
                                None,
                            );
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
                                [
                                    InputsOut::Pairs(&dirs),
                                    files.inputs(),
                                    InputsOut::Pairs(&outside),
                                ],
                                Some(git),
                                Some(&observed.payload),
                            ),
                            _ => encode_project(
                                &mut records,
                                project,
                                [
                                    InputsOut::Pairs(&dirs),
                                    InputsOut::NONE,
                                    InputsOut::Pairs(&outside),
                                ],
                                None,
                                None,
                            ),
                        }
                    }
                }
            }
            let global: Vec<(Vec<u8>, u64)> = if discovered {
                let mut global = Vec::new();
                let between = consulted.iter().zip(&attributed).filter(|(_, a)| !**a);
                for (folder, _) in between {
                    if folder.unknown || folder.digest.is_none() {
                        trusted = false;
                    }
                    match link_inputs(&folder.links, started) {
                        Some(links) => global.extend(links),
                        None => trusted = false,
                    }
                    if let (Some(path), Some(digest)) = (os_bytes(&folder.path), folder.digest) {
                        global.push((path.to_vec(), digest));
                    }
                }
                global
            } else {
                self.global.clone()
            };
            let trusted = trusted && (discovered || self.discovery_trusted);
            let (Some(discovery), true) =
                (section::write_discovery(trusted, &global), records.whole)
            else {
                // A record that cannot be written: the next run analyses and discovers anew.
                return false;
            };
            records.out.table(1);
            records.out.record(&discovery);
            true
        })
    }

    /// The index of the project remembered at `path` (a linear search: see
    /// [`RememberedRows::indices`] for many).
    pub fn index_of(&self, path: &Path) -> Option<usize> {
        let wanted = os_bytes(path.as_os_str())?;
        (0..self.len()).position(|i| self.path_bytes(i) == Some(wanted))
    }

    /// The folder inputs of the record at `index`: (path relative to the project, digest).
    fn dirs_of(&self, index: usize) -> Vec<(Vec<u8>, u64)> {
        if index >= self.len() {
            return Vec::new();
        }
        section::project(self.loaded.record(PROJECTS, index)).map_or_else(Vec::new, |record| {
            let dirs = record.dirs.iter();
            dirs.map(|(rel, digest)| (rel.0.to_vec(), *digest))
                .collect()
        })
    }
}

/// The project records of a save, written to its file in discovery's order.
struct Records<'o, 'a> {
    out: &'o mut cache_store::Tables<'a>,
    /// A fresh record as it is encoded.
    scratch: Vec<u8>,
    /// False once a record could not be encoded: the file is then not saved.
    whole: bool,
}

/// The digests of the files a fresh row read: its observed files, and the files whose
/// facts the run used inside the project. `None` when one changed since it was read or
/// so recently that a change could keep its times, or lies outside the project.
fn file_inputs<'o>(
    project: &Project,
    observed: &'o Observed,
    fact_files: &[(OsString, u64, i128)],
    started: i128,
) -> Option<Cow<'o, PackedStamps>> {
    let packed = observed.files.as_ref()?;
    let facts = under(fact_files, |(path, _, _)| path.as_os_str(), &project.path);
    if facts.is_empty() && observed.through_facts.is_empty() {
        return Some(Cow::Borrowed(packed));
    }
    let mut files = Packing::of(packed);
    for index in facts {
        let (path, len, mtime) = &fact_files[index];
        files.stamp(
            &project.path,
            Path::new(path),
            (*len, *mtime),
            None,
            started,
        )?;
    }
    observed
        .through_facts
        .iter()
        .all(|rel| files.seen.contains(&rel[..]))
        .then(|| Cow::Owned(files.finish()))
}

/// One record: the project, its folder, file and outside inputs, its place in git
/// (`None` with no row: nothing to say) and its row (only with its place in git).
fn encode_project(
    out: &mut Records,
    project: &Project,
    inputs: [InputsOut<'_>; 3],
    git: Option<Option<(&Path, u64)>>,
    payload: Option<&[u8]>,
) {
    let banks: Vec<(&str, Raw<'_>)> = project
        .banks
        .iter()
        .map(|bank| {
            let root = os_bytes(bank.root.as_os_str()).unwrap_or_default();
            (bank.format.id(), Raw(root))
        })
        .collect();
    let git_marker = git.flatten().map(|(marker, state)| {
        let marker = os_bytes(marker.as_os_str()).unwrap_or_default();
        (marker, state)
    });
    let derived = Derived {
        inputs,
        git: git_marker,
        row: payload.filter(|_| git.is_some()),
    };
    out.scratch.clear();
    out.whole &= section::write_project(
        os_bytes(project.path.as_os_str()).unwrap_or_default(),
        &project.name,
        project.last_write.map(time_nanos),
        &banks,
        derived,
        &mut out.scratch,
    );
    out.out.record(&out.scratch);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::model::MemoryFile;
    use crate::scan::bank::list_banks_with;
    use crate::scan::discovery::{ScanOptions, scan_with};
    use crate::scan::listings::RACY_WINDOW;
    use std::time::Duration;

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
                        .map(|file| (file.path.as_path(), Some((file.size, file.modified)), None)),
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
