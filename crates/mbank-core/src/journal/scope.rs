//! What the journal follows: every memory file of every project under the root, the
//! agents' own stores for those projects (Claude Code auto memory, Kilo Memory: found by
//! the scan, where each format module says they are), and, once per home folder, the
//! agents' stores and user-level files that belong to no project ([`home_stores`], which
//! search indexes too); and the folders to watch for them.
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

use super::JournalConfig;
use crate::formats::{self, agents_md, claude_md, codex_memories, gemini_md, opencode};
use crate::history::key_of;
use crate::model::{Format, Role};
use crate::scan::discovery::{self, OutsideFolders, ScanOptions};

/// Where memory files are kept: a bank of a project, or an agent's store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Store {
    /// What a person calls it: "Cline memory bank", "Claude Code auto memory".
    pub label: String,
    /// The format (`None`: Codex memories, which have none of their own).
    pub format: Option<Format>,
    /// The project it belongs to (`None`: the home folder's).
    pub project: Option<PathBuf>,
    /// Its folder (the project's, for instruction files).
    pub root: PathBuf,
    /// The folder its files must stay in (confinement).
    pub allowed_root: PathBuf,
    /// Kept by the agent outside the project (in the home folder).
    pub agent_store: bool,
}

/// One memory file the journal follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalFile {
    pub path: PathBuf,
    /// Its key in the history ([`key_of`]).
    pub key: PathBuf,
    /// Index into [`Scope::stores`].
    pub store: usize,
    pub role: Role,
    /// As a person reads it (relative to the project, `~/…` in the home folder).
    pub display: String,
}

/// Everything the journal follows at one moment.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    pub stores: Vec<Store>,
    pub files: Vec<JournalFile>,
    /// Folders to watch (non-recursively), the most wanted first.
    pub folders: Vec<PathBuf>,
    /// Project folders (for HEAD).
    pub projects: Vec<PathBuf>,
    /// The files of folders watched for those files only (`~/.gemini` for its
    /// `GEMINI.md`): the folder's other files are never memory.
    named_files: Vec<NamedFile>,
    by_path: HashMap<PathBuf, usize>,
}

/// A file a home store names, whether or not it exists, in a folder watched for the
/// files named there only.
#[derive(Debug, Clone)]
struct NamedFile {
    folder: PathBuf,
    file: PathBuf,
    /// Index into [`Scope::stores`].
    store: usize,
}

impl Scope {
    /// The file at `path` (as watched, or its real path).
    pub fn file(&self, path: &Path) -> Option<&JournalFile> {
        self.by_path
            .get(path)
            .or_else(|| self.by_path.get(&key_of(path)))
            .map(|&i| &self.files[i])
    }

    pub fn store_of(&self, file: &JournalFile) -> &Store {
        &self.stores[file.store]
    }

    /// The store whose folder holds `key` (the innermost).
    pub fn store_holding(&self, key: &Path) -> Option<&Store> {
        self.stores
            .iter()
            .filter(|s| key.starts_with(key_of(&s.root)) || key.starts_with(&s.root))
            .max_by_key(|s| s.root.components().count())
    }

    /// Whether `path` is a file some store names, when its folder is watched for named
    /// files only (`None`: it is not).
    pub fn named_file(&self, path: &Path) -> Option<bool> {
        let folder = path.parent()?;
        let mut in_folder = self
            .named_files
            .iter()
            .filter(|named| named.folder == folder)
            .peekable();
        in_folder.peek()?;
        Some(in_folder.any(|named| named.file == path))
    }

    /// Where the store at `index` is, as a person names it: the file, for a store of one
    /// named file (`~/.gemini/GEMINI.md`), else its folder.
    pub fn place_of(&self, index: usize) -> &Path {
        let mut named = self.named_files.iter().filter(|n| n.store == index);
        match (named.next(), named.next()) {
            (Some(only), None) => &only.file,
            _ => &self.stores[index].root,
        }
    }

    /// The real folders of every store (where a file kept in the history may have been).
    pub fn roots(&self) -> Vec<PathBuf> {
        let set: BTreeSet<PathBuf> = self.stores.iter().map(|s| key_of(&s.root)).collect();
        set.into_iter().collect()
    }
}

/// What to build a scope from.
#[derive(Debug, Clone)]
pub struct ScopeOptions {
    pub root: PathBuf,
    /// How the root is scanned; its `home` is the home folder whose agent stores are
    /// followed (`None`: none).
    pub scan: ScanOptions,
    pub config: JournalConfig,
}

/// What `[journal] leave_out` names: store ids and project globs.
struct LeftOut {
    ids: BTreeSet<String>,
    projects: GlobSet,
}

impl LeftOut {
    fn of(config: &JournalConfig) -> LeftOut {
        let mut ids = BTreeSet::new();
        let mut builder = GlobSetBuilder::new();
        for entry in &config.leave_out {
            let known = HOME_STORES.iter().any(|store| store.id == entry)
                || Format::from_id(entry).is_some();
            if known {
                ids.insert(entry.clone());
            } else if let Ok(glob) = Glob::new(entry) {
                builder.add(glob);
            }
        }
        LeftOut {
            ids,
            projects: builder.build().unwrap_or_else(|_| GlobSet::empty()),
        }
    }

    fn project(&self, root: &Path, project: &Path) -> bool {
        let rel = project.strip_prefix(root).unwrap_or(project);
        self.projects.is_match(project)
            || self.projects.is_match(rel)
            || project
                .file_name()
                .is_some_and(|name| self.projects.is_match(name))
    }
}

/// The id `[journal] leave_out` gives Codex memories (formats go by their own ids).
pub const CODEX_ID: &str = "codex-memories";

/// Builds the scope: scans the root, lists every bank, and adds the home folder's stores.
pub fn build(options: &ScopeOptions) -> Scope {
    let left_out = LeftOut::of(&options.config);
    let mut scope = Scope::default();
    let mut folders = Vec::new();
    let home = options.scan.home.as_deref();
    let outside = OutsideFolders::of_home(home);
    for project in discovery::scan(&options.root, &options.scan) {
        if left_out.project(&options.root, &project.path) {
            continue;
        }
        scope.projects.push(project.path.clone());
        folders.push(project.path.clone());
        // Only to see a checkout under way (its events keep a batch open), never recorded.
        folders.push(project.path.join(".git"));
        folders.extend(outside.folders_of(&project.path));
        for bank in crate::scan::bank::list_banks(&project) {
            if left_out.ids.contains(bank.format.id()) {
                continue;
            }
            let outside_project = formats::rules(bank.format).outside_project(&bank.root);
            let store = Store {
                label: bank.format.label().to_string(),
                format: Some(bank.format),
                project: Some(project.path.clone()),
                root: bank.root.clone(),
                allowed_root: outside_project
                    .as_ref()
                    .map_or_else(|| project.path.clone(), |o| o.allowed_root.clone()),
                agent_store: outside_project.is_some(),
            };
            let index = scope.stores.len();
            if bank.root.is_dir() {
                folders.push(bank.root.clone());
            }
            scope.stores.push(store);
            for file in &bank.files {
                if scope.by_path.contains_key(&file.path) {
                    continue;
                }
                if let Some(parent) = file.path.parent() {
                    folders.push(parent.to_path_buf());
                }
                scope.push_file(JournalFile {
                    key: key_of(&file.path),
                    path: file.path.clone(),
                    store: index,
                    role: file.role,
                    display: file.display.clone(),
                });
            }
        }
    }
    if let Some(home) = home {
        folders.extend(discovery::outside_places(Some(home)));
        add_home_stores(&mut scope, &mut folders, home, &left_out.ids);
    }
    scope.folders = existing_once(folders);
    scope
}

/// The home folder's own stores, which belong to no project, and their files as the
/// journal lists them with nothing left out (see [`HOME_STORES`]); `folders` are those to
/// watch for them.
pub fn home_stores(home: &Path) -> Scope {
    let mut scope = Scope::default();
    let mut folders = Vec::new();
    add_home_stores(&mut scope, &mut folders, home, &BTreeSet::new());
    scope.folders = existing_once(folders);
    scope
}

/// The ids `[journal] leave_out` knows the home folder's stores by, in their order.
pub fn home_store_ids() -> impl Iterator<Item = &'static str> {
    HOME_STORES.iter().map(|store| store.id)
}

/// The folders that are folders, each once, in their order.
fn existing_once(folders: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut seen = BTreeSet::new();
    folders
        .into_iter()
        .filter(|f| f.is_dir() && seen.insert(f.clone()))
        .collect()
}

/// A store of the home folder, which belongs to no project.
struct HomeStore {
    label: &'static str,
    /// The id `[journal] leave_out` knows it by.
    id: &'static str,
    /// `None`: Codex memories, which have none of their own.
    format: Option<Format>,
    place: HomePlace,
}

/// Where a store of the home folder keeps its files, as its format module says.
enum HomePlace {
    /// Named files of one folder, which is watched for them only: the folder's other files
    /// are never memory (`~/.gemini` holds settings beside its `GEMINI.md`).
    Files(fn(&Path) -> Vec<PathBuf>),
    /// A folder of memory files: those whose names it `keeps`, in it and in the sub-folders
    /// it `enters` (relative to it), none through a link.
    Folder {
        root: fn(&Path) -> PathBuf,
        enters: fn(&Path) -> bool,
        keeps: fn(&str) -> bool,
    },
}

/// The home folder's stores, in the order results and the journal list them: Codex
/// memories, Gemini CLI's memory file, Claude Code's user memory and user rules, Codex's
/// global instructions and opencode's user rules.
const HOME_STORES: [HomeStore; 6] = [
    HomeStore {
        label: codex_memories::LABEL,
        id: CODEX_ID,
        format: None,
        place: HomePlace::Folder {
            root: codex_memories::memory_folder,
            enters: codex_memories::is_sub_folder,
            keeps: codex_memories::is_memory_file,
        },
    },
    HomeStore {
        label: gemini_md::memory::LABEL,
        id: gemini_md::memory::ID,
        format: Some(Format::GeminiMd),
        place: HomePlace::Files(|home| vec![gemini_md::memory::global_file(home)]),
    },
    HomeStore {
        label: claude_md::user_memory::LABEL,
        id: claude_md::user_memory::ID,
        format: Some(Format::ClaudeMd),
        place: HomePlace::Files(|home| vec![claude_md::user_memory::file(home)]),
    },
    HomeStore {
        label: claude_md::user_rules::LABEL,
        id: claude_md::user_rules::ID,
        format: Some(Format::ClaudeMd),
        place: HomePlace::Folder {
            root: claude_md::user_rules::folder,
            enters: |_| true,
            keeps: claude_md::user_rules::is_rule_file,
        },
    },
    HomeStore {
        label: agents_md::global_instructions::LABEL,
        id: agents_md::global_instructions::ID,
        format: Some(Format::AgentsMd),
        place: HomePlace::Files(agents_md::global_instructions::files),
    },
    HomeStore {
        label: opencode::user_rules::LABEL,
        id: opencode::user_rules::ID,
        format: Some(Format::OpenCode),
        place: HomePlace::Files(|home| vec![opencode::user_rules::file(home)]),
    },
];

/// Adds the home folder's stores but those `left_out` names.
fn add_home_stores(
    scope: &mut Scope,
    folders: &mut Vec<PathBuf>,
    home: &Path,
    left_out: &BTreeSet<String>,
) {
    for store in &HOME_STORES {
        if left_out.contains(store.id) {
            continue;
        }
        match &store.place {
            HomePlace::Files(files) => add_named_files(scope, folders, home, store, files(home)),
            HomePlace::Folder {
                root,
                enters,
                keeps,
            } => add_memory_folder(scope, folders, home, store, &root(home), *enters, *keeps),
        }
    }
}

impl Scope {
    fn push_file(&mut self, file: JournalFile) {
        let index = self.files.len();
        self.by_path.insert(file.path.clone(), index);
        self.by_path.insert(file.key.clone(), index);
        self.files.push(file);
    }
}

/// A store of named files of `home` (Gemini CLI's memory file, Codex's global
/// instructions), their folder watched even before they exist (Gemini CLI's memory tool
/// creates its file), neither through a link.
fn add_named_files(
    scope: &mut Scope,
    folders: &mut Vec<PathBuf>,
    home: &Path,
    store: &HomeStore,
    files: Vec<PathBuf>,
) {
    let Some(folder) = files
        .first()
        .and_then(|f| f.parent())
        .map(Path::to_path_buf)
    else {
        return;
    };
    if !std::fs::symlink_metadata(&folder).is_ok_and(|meta| meta.is_dir()) {
        return;
    }
    folders.push(folder.clone());
    let index = push_home_store(scope, store, &folder);
    for file in files {
        scope.named_files.push(NamedFile {
            folder: folder.clone(),
            file: file.clone(),
            store: index,
        });
        let is_file = std::fs::symlink_metadata(&file).is_ok_and(|meta| meta.is_file());
        if is_file && !scope.by_path.contains_key(&file) {
            push_home_file(scope, home, index, file);
        }
    }
}

/// A store of `home` that is a folder of memory files (Codex memories, Claude Code's user
/// rules): the files it `keeps` in `root` and the sub-folders it `enters`, folder by
/// folder, each one's files by name; none through a link.
fn add_memory_folder(
    scope: &mut Scope,
    folders: &mut Vec<PathBuf>,
    home: &Path,
    store: &HomeStore,
    root: &Path,
    enters: fn(&Path) -> bool,
    keeps: fn(&str) -> bool,
) {
    if !std::fs::symlink_metadata(root).is_ok_and(|meta| meta.is_dir()) {
        return;
    }
    let index = push_home_store(scope, store, root);
    let mut pending = vec![root.to_path_buf()];
    while let Some(folder) = pending.pop() {
        folders.push(folder.clone());
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut files = Vec::new();
        let mut sub_folders = Vec::new();
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() && path.strip_prefix(root).is_ok_and(enters) {
                sub_folders.push(path);
            } else if kind.is_file() && entry.file_name().to_str().is_some_and(keeps) {
                files.push(path);
            }
        }
        files.sort();
        for file in files {
            if !scope.by_path.contains_key(&file) {
                push_home_file(scope, home, index, file);
            }
        }
        // Taken from the end: the first sub-folder is listed next.
        sub_folders.sort_by(|a, b| b.cmp(a));
        pending.extend(sub_folders);
    }
}

/// Adds a store of the home folder at `root`, its index.
fn push_home_store(scope: &mut Scope, store: &HomeStore, root: &Path) -> usize {
    scope.stores.push(Store {
        label: store.label.to_string(),
        format: store.format,
        project: None,
        root: root.to_path_buf(),
        allowed_root: root.to_path_buf(),
        agent_store: true,
    });
    scope.stores.len() - 1
}

fn push_home_file(scope: &mut Scope, home: &Path, store: usize, path: PathBuf) {
    let display = in_home(&path, home);
    scope.push_file(JournalFile {
        key: key_of(&path),
        path,
        store,
        role: Role::Other,
        display,
    });
}

/// `path` as a person reads a file of the home folder: `~/…`.
pub(crate) fn in_home(path: &Path, home: &Path) -> String {
    path.strip_prefix(home)
        .map(|rel| format!("~/{}", rel.display()))
        .unwrap_or_else(|_| path.display().to_string())
}
