//! What the journal follows: every memory file of every project under the root, the
//! agents' own stores for those projects (Claude Code auto memory, Kilo Memory: found by
//! the scan, where each format module says they are), and, once per home folder, Codex
//! memories, Gemini CLI's memory file and Claude Code's user memory
//! ([`home_stores`], which search indexes too); and the folders to watch for them.
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

use super::JournalConfig;
use crate::formats::{self, claude_md, codex_memories, gemini_md};
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
    /// Folders watched for one file only (`~/.gemini` for its `GEMINI.md`): the folder's
    /// other files are never memory.
    pub one_file_folders: Vec<(PathBuf, PathBuf)>,
    by_path: HashMap<PathBuf, usize>,
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
            let known = entry == CODEX_ID
                || ONE_FILE_STORES.iter().any(|store| store.id == entry)
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
/// journal lists them with nothing left out: Codex memories, Gemini CLI's memory file and
/// Claude Code's user memory; `folders` are those to watch for them.
pub fn home_stores(home: &Path) -> Scope {
    let mut scope = Scope::default();
    let mut folders = Vec::new();
    add_home_stores(&mut scope, &mut folders, home, &BTreeSet::new());
    scope.folders = existing_once(folders);
    scope
}

/// The folders that are folders, each once, in their order.
fn existing_once(folders: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut seen = BTreeSet::new();
    folders
        .into_iter()
        .filter(|f| f.is_dir() && seen.insert(f.clone()))
        .collect()
}

/// A store of the home folder that is one file, watched in its folder.
struct OneFileStore {
    label: &'static str,
    /// The id `[journal] leave_out` knows it by.
    id: &'static str,
    format: Format,
    file: fn(&Path) -> PathBuf,
}

const ONE_FILE_STORES: [OneFileStore; 2] = [
    OneFileStore {
        label: gemini_md::memory::LABEL,
        id: gemini_md::memory::ID,
        format: Format::GeminiMd,
        file: gemini_md::memory::global_file,
    },
    OneFileStore {
        label: claude_md::user_memory::LABEL,
        id: claude_md::user_memory::ID,
        format: Format::ClaudeMd,
        file: claude_md::user_memory::file,
    },
];

/// Adds the home folder's stores but those `left_out` names.
fn add_home_stores(
    scope: &mut Scope,
    folders: &mut Vec<PathBuf>,
    home: &Path,
    left_out: &BTreeSet<String>,
) {
    if !left_out.contains(CODEX_ID) {
        add_codex_memories(scope, folders, home);
    }
    for store in &ONE_FILE_STORES {
        if !left_out.contains(store.id) {
            add_one_file_store(scope, folders, home, store);
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

/// A one-file store of `home` (Gemini CLI's memory file, Claude Code's user memory), the
/// folder watched even before the file exists (Gemini CLI's memory tool creates it),
/// neither through a link.
fn add_one_file_store(
    scope: &mut Scope,
    folders: &mut Vec<PathBuf>,
    home: &Path,
    store: &OneFileStore,
) {
    let file = (store.file)(home);
    let Some(folder) = file.parent().map(Path::to_path_buf) else {
        return;
    };
    if !std::fs::symlink_metadata(&folder).is_ok_and(|meta| meta.is_dir()) {
        return;
    }
    folders.push(folder.clone());
    scope.one_file_folders.push((folder.clone(), file.clone()));
    let index = scope.stores.len();
    scope.stores.push(Store {
        label: store.label.to_string(),
        format: Some(store.format),
        project: None,
        root: folder.clone(),
        allowed_root: folder,
        agent_store: true,
    });
    let is_file = std::fs::symlink_metadata(&file).is_ok_and(|meta| meta.is_file());
    if is_file && !scope.by_path.contains_key(&file) {
        let display = in_home(file.as_path(), home);
        scope.push_file(JournalFile {
            key: key_of(&file),
            path: file,
            store: index,
            role: Role::Other,
            display,
        });
    }
}

/// Codex memories of `home`: the markdown files of its memories folder and of the
/// sub-folders Codex keeps there, none through a link.
fn add_codex_memories(scope: &mut Scope, folders: &mut Vec<PathBuf>, home: &Path) {
    let root = codex_memories::memory_folder(home);
    if !root.is_dir() || root.is_symlink() {
        return;
    }
    let index = scope.stores.len();
    scope.stores.push(Store {
        label: codex_memories::LABEL.to_string(),
        format: None,
        project: None,
        root: root.clone(),
        allowed_root: root.clone(),
        agent_store: true,
    });
    let mut places = vec![root.clone()];
    places.extend(codex_memories::SUB_FOLDERS.iter().map(|s| root.join(s)));
    for folder in places {
        let Ok(meta) = std::fs::symlink_metadata(&folder) else {
            continue;
        };
        if !meta.is_dir() {
            continue;
        }
        folders.push(folder.clone());
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut names: Vec<(String, PathBuf)> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                codex_memories::is_memory_file(&name).then(|| (name, e.path()))
            })
            .collect();
        names.sort();
        for (_, path) in names {
            let display = in_home(&path, home);
            scope.push_file(JournalFile {
                key: key_of(&path),
                path,
                store: index,
                role: Role::Other,
                display,
            });
        }
    }
}

/// `path` as a person reads a file of the home folder: `~/…`.
pub(crate) fn in_home(path: &Path, home: &Path) -> String {
    path.strip_prefix(home)
        .map(|rel| format!("~/{}", rel.display()))
        .unwrap_or_else(|_| path.display().to_string())
}
