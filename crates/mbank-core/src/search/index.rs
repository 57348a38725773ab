//! The search index of one root, kept current from what the files are: a base segment
//! and a segment of the projects changed since, both in the cache folder. The home
//! folder's own stores (`home.rs`) are kept as projects of their own. Each project is
//! stored with the stamp of its files (paths, sizes, modification and change times); a
//! run re-reads only the projects whose stamp moved, writes them to the change segment,
//! and folds the changes into a new base once they grow past an eighth of it. A missing,
//! damaged or foreign file is rebuilt; the index is never a source of truth.
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::concepts::Concepts;
use super::extract::project_files;
use super::home::{self, HomeStore};
use super::query::{self, Hit, Query, QueryTerms, Searched};
use super::segment::{self, Header, ProjectInput, Segment};
use super::text::TermAnalyzer;
use crate::cache_store;
use crate::io::hash_index::stable_hash;
use crate::model::{Bank, Project};

/// Bumped when what a project's passages are made of changes (the cut into passages,
/// the fields), so every stored project is read again.
const EXTRACTION_VERSION: u64 = 2;
/// The change segment is folded into the base once it holds more passages than this and
/// an eighth of the base.
const FOLD_MIN_PASSAGES: usize = 2_000;

/// The search index of one root.
pub struct SearchIndex {
    analyzer: TermAnalyzer,
    concepts: Concepts,
    /// Where the base and change segments are kept; `None` keeps them in memory only.
    files: Option<(PathBuf, PathBuf)>,
    base: Option<Segment>,
    changes: Option<Segment>,
    /// The names the home folder's stores had at the last refresh.
    home_stores: HashSet<String>,
}

/// What a refresh did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Refreshed {
    /// Projects (and stores of the home folder) read from disk (all of them when the
    /// index was built anew).
    pub projects_read: usize,
    pub projects_removed: usize,
    /// Whether a new base was written (a first build, a rebuild or a fold).
    pub new_base: bool,
    /// Files left out (too large, unreadable) and saves that failed.
    pub problems: Vec<String>,
}

/// A project to index and the banks listed in it.
pub struct ProjectBanks<'a> {
    pub project: &'a Project,
    pub banks: &'a [Bank],
}

/// The stamp of a project's memory: what its banks list, with each file's size and times.
pub(crate) fn project_stamp(project: &Project, banks: &[Bank]) -> u64 {
    let mut bytes: Vec<u8> = Vec::with_capacity(256);
    bytes.extend_from_slice(&EXTRACTION_VERSION.to_le_bytes());
    bytes.extend_from_slice(project.path.as_os_str().as_encoded_bytes());
    let nanos = |t: Option<std::time::SystemTime>| {
        t.and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos())
    };
    for bank in banks {
        bytes.extend_from_slice(bank.format.id().as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(bank.root.as_os_str().as_encoded_bytes());
        bytes.push(0);
        for file in &bank.files {
            bytes.extend_from_slice(file.path.as_os_str().as_encoded_bytes());
            bytes.push(0);
            bytes.extend_from_slice(file.role.id().as_bytes());
            bytes.extend_from_slice(&file.size.to_le_bytes());
            bytes.extend_from_slice(&nanos(file.modified).to_le_bytes());
            bytes.extend_from_slice(&nanos(file.changed).to_le_bytes());
            bytes.push(u8::from(file.unreadable.is_some()));
        }
    }
    stable_hash(&bytes)
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchIndex")
            .field("files", &self.files)
            .field("base", &self.base)
            .field("changes", &self.changes)
            .finish()
    }
}

impl SearchIndex {
    /// An index kept in memory only (the demo, tests).
    pub fn in_memory() -> SearchIndex {
        let analyzer = TermAnalyzer::default();
        let concepts = Concepts::built_in(&analyzer);
        SearchIndex {
            analyzer,
            concepts,
            files: None,
            base: None,
            changes: None,
            home_stores: HashSet::new(),
        }
    }

    /// The index of `root` kept in `dir`, as it was last saved (empty when it was never
    /// saved or cannot be read).
    pub fn open_at(dir: &Path, root: &Path) -> SearchIndex {
        let key = stable_hash(root.as_os_str().as_encoded_bytes());
        let base_file = dir.join(format!("search-{key:016x}.bin"));
        let changes_file = dir.join(format!("search-{key:016x}-changes.bin"));
        let base = Segment::read(&base_file);
        let changes = Segment::read(&changes_file).filter(|c| {
            base.as_ref()
                .is_some_and(|b| b.header.generation == c.header.generation)
        });
        SearchIndex {
            files: Some((base_file, changes_file)),
            base,
            changes,
            ..Self::in_memory()
        }
    }

    /// The index of `root` in mbank's cache folder, or in memory without one.
    pub fn open_default(root: &Path) -> SearchIndex {
        match crate::io::paths::cache_dir() {
            Some(dir) => Self::open_at(&dir, root),
            None => Self::in_memory(),
        }
    }

    /// The segment files, when the index is kept on disk.
    pub fn files(&self) -> Option<(&Path, &Path)> {
        self.files.as_ref().map(|(b, c)| (b.as_path(), c.as_path()))
    }

    /// Whether nothing is indexed yet: the next refresh reads every project.
    pub fn is_empty(&self) -> bool {
        self.base.is_none()
    }

    /// Passages indexed, live ones only.
    pub fn passage_count(&self) -> usize {
        self.searched()
            .iter()
            .map(|s| s.dead.iter().filter(|d| !**d).count())
            .sum()
    }

    /// Bytes the index takes on disk (or would).
    pub fn size(&self) -> usize {
        self.base.as_ref().map_or(0, Segment::size) + self.changes.as_ref().map_or(0, Segment::size)
    }

    /// Each live project's stamp, by name.
    fn live_stamps(&self) -> HashMap<String, u64> {
        let mut out = HashMap::new();
        let replaced = self.replaced();
        if let Some(base) = &self.base {
            for project in base.projects() {
                if !replaced.contains(&project.name) {
                    out.insert(project.name, project.stamp);
                }
            }
        }
        if let Some(changes) = &self.changes {
            for project in changes.projects() {
                out.insert(project.name, project.stamp);
            }
        }
        out
    }

    /// Base projects that no longer count: replaced or removed since the base was built.
    fn replaced(&self) -> HashSet<String> {
        let Some(changes) = &self.changes else {
            return HashSet::new();
        };
        changes
            .header
            .replaced
            .iter()
            .cloned()
            .chain(changes.projects().map(|p| p.name))
            .collect()
    }

    /// Brings the index up to `projects` (every project of the root) and the stores of
    /// `home` that belong to no project: re-reads the ones whose files changed, drops the
    /// ones gone, and saves what changed.
    pub fn refresh(&mut self, projects: &[ProjectBanks<'_>], home: Option<&Path>) -> Refreshed {
        let mut sources: Vec<Source<'_>> = projects.iter().map(Source::Project).collect();
        if let Some(home) = home {
            let taken: HashSet<&Path> = projects
                .iter()
                .flat_map(|p| p.banks)
                .flat_map(|bank| &bank.files)
                .map(|file| file.path.as_path())
                .collect();
            let names: HashSet<&str> = projects.iter().map(|p| p.project.name.as_str()).collect();
            // A project of the same name keeps it: names are the index's keys.
            sources.extend(
                home::home_stores(home, &taken)
                    .into_iter()
                    .filter(|store| !names.contains(store.name.as_str()))
                    .map(|store| Source::Home(store, home)),
            );
        }
        self.home_stores = sources
            .iter()
            .filter(|source| matches!(source, Source::Home(..)))
            .map(|source| source.name().to_string())
            .collect();
        self.refresh_sources(&sources)
    }

    fn refresh_sources(&mut self, sources: &[Source<'_>]) -> Refreshed {
        let mut report = Refreshed::default();
        let stamps: Vec<u64> = sources.iter().map(Source::stamp).collect();
        let Some(base) = &self.base else {
            let inputs: Vec<ProjectInput> = sources
                .iter()
                .zip(&stamps)
                .map(|(source, &stamp)| source.read(stamp, &mut report.problems))
                .collect();
            report.projects_read = inputs.len();
            self.write_base(inputs, &mut report);
            return report;
        };
        let live = self.live_stamps();
        let current: HashSet<&str> = sources.iter().map(Source::name).collect();
        let changed: Vec<usize> = (0..sources.len())
            .filter(|&i| live.get(sources[i].name()) != Some(&stamps[i]))
            .collect();
        let removed: Vec<String> = live
            .keys()
            .filter(|name| !current.contains(name.as_str()))
            .cloned()
            .collect();
        if changed.is_empty() && removed.is_empty() {
            return report;
        }
        report.projects_read = changed.len();
        report.projects_removed = removed.len();
        let changed_names: HashSet<&str> = changed.iter().map(|&i| sources[i].name()).collect();
        let mut inputs: Vec<ProjectInput> = self
            .changes
            .as_ref()
            .map(Segment::inputs)
            .unwrap_or_default();
        inputs.retain(|p| {
            !changed_names.contains(p.name.as_str()) && current.contains(p.name.as_str())
        });
        for &i in &changed {
            inputs.push(sources[i].read(stamps[i], &mut report.problems));
        }
        let base_names: HashSet<String> = base.projects().map(|p| p.name).collect();
        let mut replaced: Vec<String> = self
            .changes
            .as_ref()
            .map(|c| c.header.replaced.clone())
            .unwrap_or_default();
        for name in changed_names.iter().map(|n| n.to_string()).chain(removed) {
            if base_names.contains(&name) && !replaced.contains(&name) {
                replaced.push(name);
            }
        }
        replaced.sort();
        let change_passages: usize = inputs
            .iter()
            .flat_map(|p| &p.files)
            .map(|f| f.passages.len())
            .sum();
        if change_passages > FOLD_MIN_PASSAGES.max(base.passage_count() / 8) {
            let gone: HashSet<&str> = replaced.iter().map(String::as_str).collect();
            let mut all = base.inputs();
            all.retain(|p| !gone.contains(p.name.as_str()));
            all.extend(inputs);
            self.write_base(all, &mut report);
            return report;
        }
        let header = Header {
            generation: base.header.generation,
            replaced,
        };
        let bytes = segment::build(&self.analyzer, &header, &inputs);
        if let Some((_, changes_file)) = &self.files {
            save(changes_file, &bytes, &mut report);
        }
        self.changes = Segment::parse(bytes);
        report
    }

    fn write_base(&mut self, inputs: Vec<ProjectInput>, report: &mut Refreshed) {
        let mut identity: Vec<u8> = Vec::new();
        for project in &inputs {
            identity.extend_from_slice(project.name.as_bytes());
            identity.extend_from_slice(&project.stamp.to_le_bytes());
        }
        let header = Header {
            generation: stable_hash(&identity),
            replaced: Vec::new(),
        };
        let bytes = segment::build(&self.analyzer, &header, &inputs);
        if let Some((base_file, changes_file)) = &self.files {
            save(base_file, &bytes, report);
            // The changes now in the base must not be applied to it again.
            match std::fs::remove_file(changes_file) {
                Ok(()) => {}
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => report
                    .problems
                    .push(format!("{}: {error}", changes_file.display())),
            }
        }
        self.base = Segment::parse(bytes);
        self.changes = None;
        report.new_base = true;
    }

    fn searched(&self) -> Vec<Searched<'_>> {
        let mut out = Vec::new();
        if let Some(base) = &self.base {
            let replaced = self.replaced();
            let mut dead = vec![false; base.passage_count()];
            if !replaced.is_empty() {
                for project in base.projects() {
                    if replaced.contains(&project.name) {
                        let (start, end) = project.passages;
                        for flag in dead.iter_mut().take(end as usize).skip(start as usize) {
                            *flag = true;
                        }
                    }
                }
            }
            out.push(Searched {
                segment: base,
                dead,
            });
        }
        if let Some(changes) = &self.changes {
            out.push(Searched {
                segment: changes,
                dead: vec![false; changes.passage_count()],
            });
        }
        out
    }

    /// The best passages for `query`, best first.
    pub fn search(&self, query: &Query) -> Vec<Hit> {
        let terms = QueryTerms::of(&query.text, &self.analyzer, &self.concepts);
        let mut hits = query::run(&self.searched(), query, &terms, &self.analyzer);
        for hit in &mut hits {
            hit.home_store = self.home_stores.contains(&hit.project);
        }
        hits
    }
}

/// Saves one segment; a failure only costs a rebuild next time, and is reported.
fn save(file: &Path, bytes: &[u8], report: &mut Refreshed) {
    if bytes.len() as u64 > crate::limits::CACHE_MAX_BYTES {
        report.problems.push(format!(
            "the search index ({} MiB) is over the cache's {} MiB limit: it is not kept, \
             so every search builds it again",
            bytes.len() >> 20,
            crate::limits::CACHE_MAX_BYTES >> 20
        ));
        return;
    }
    if let Err(error) = cache_store::file::save(file, bytes) {
        report
            .problems
            .push(format!("search index not saved: {error}"));
    }
}

/// Where a project of the index comes from: a project of the root, or a store of the
/// home folder (with the home folder).
enum Source<'a> {
    Project(&'a ProjectBanks<'a>),
    Home(HomeStore, &'a Path),
}

impl Source<'_> {
    fn name(&self) -> &str {
        match self {
            Source::Project(project) => &project.project.name,
            Source::Home(store, _) => &store.name,
        }
    }

    fn stamp(&self) -> u64 {
        match self {
            Source::Project(project) => project_stamp(project.project, project.banks),
            Source::Home(store, _) => home::stamp(store, EXTRACTION_VERSION),
        }
    }

    fn read(&self, stamp: u64, problems: &mut Vec<String>) -> ProjectInput {
        match self {
            Source::Project(project) => read_project(project, stamp, problems),
            Source::Home(store, home) => {
                let mut found = Vec::new();
                let files = home::store_files(store, home, &mut found);
                problems.extend(found.into_iter().map(|p| format!("{}: {p}", store.label)));
                ProjectInput {
                    name: store.name.clone(),
                    path: store.path.to_string_lossy().into_owned(),
                    stamp,
                    files,
                }
            }
        }
    }
}

fn read_project(
    project: &ProjectBanks<'_>,
    stamp: u64,
    problems: &mut Vec<String>,
) -> ProjectInput {
    let mut found = Vec::new();
    let files = project_files(project.project, project.banks, &mut found);
    problems.extend(
        found
            .into_iter()
            .map(|p| format!("{}: {p}", project.project.name)),
    );
    ProjectInput {
        name: project.project.name.clone(),
        path: project.project.path.to_string_lossy().into_owned(),
        stamp,
        files,
    }
}
