//! What the journal follows: every memory file of every project under the root, the
//! agents' own stores for those projects (Claude Code auto memory, Kilo Memory: found by
//! the scan, where each format module says they are), and, once per home folder, the
//! agents' stores and user-level files that belong to no project ([`home_stores`], which
//! search indexes too); and the folders to watch for them.
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

use super::JournalConfig;
use crate::formats::{self, agents_md, beans_md, claude_md, codex_memories, gemini_md, opencode};
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
    /// Index into [`JournalScope::stores`].
    pub store: usize,
    pub role: Role,
    /// As a person reads it (relative to the project, `~/…` in the home folder).
    pub display: String,
}

/// Everything the journal follows at one moment.
#[derive(Debug, Clone, Default)]
pub struct JournalScope {
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
    /// Index into [`JournalScope::stores`].
    store: usize,
}

impl JournalScope {
    /// The file at `path` (as watched, or its real path).
    pub fn file(&self, path: &Path) -> Option<&JournalFile> {
        self.by_path
            .get(path)
            .or_else(|| self.by_path.get(&key_of(path)))
            .map(|&i| &self.files[i])
    }

    pub(crate) fn store_of(&self, file: &JournalFile) -> &Store {
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
    pub(crate) fn named_file(&self, path: &Path) -> Option<bool> {
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
    pub(crate) fn place_of(&self, index: usize) -> &Path {
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
pub fn build(options: &ScopeOptions) -> JournalScope {
    let left_out = LeftOut::of(&options.config);
    let mut scope = JournalScope::default();
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
/// journal lists them with nothing left out (see `HOME_STORES`); `folders` are those to
/// watch for them.
pub fn home_stores(home: &Path) -> JournalScope {
    let mut scope = JournalScope::default();
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
    /// Files that what else a folder holds chooses (each installed Gemini CLI extension's
    /// manifest names its context files): the folder, its sub-folders and those of the
    /// files are watched, so that any change there lists the store again.
    Chosen {
        root: fn(&Path) -> PathBuf,
        files: fn(&Path) -> Vec<PathBuf>,
    },
}

/// The home folder's stores, in the order results and the journal list them: Codex
/// memories, Gemini CLI's memory file, Claude Code's user memory and user rules, Codex's
/// global instructions, opencode's user rules, Gemini CLI's extensions' context files, and
/// Beans-Code's global memory and auto-saved memories.
const HOME_STORES: [HomeStore; 9] = [
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
            enters: claude_md::user_rules::is_rule_folder,
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
    HomeStore {
        label: gemini_md::extensions::LABEL,
        id: gemini_md::extensions::ID,
        format: Some(Format::GeminiMd),
        place: HomePlace::Chosen {
            root: gemini_md::extensions::folder,
            files: gemini_md::extension_context_files,
        },
    },
    HomeStore {
        label: beans_md::global_memory::LABEL,
        id: beans_md::global_memory::ID,
        format: Some(Format::BeansMd),
        place: HomePlace::Files(beans_md::global_memory::files),
    },
    HomeStore {
        label: beans_md::saved_memories::LABEL,
        id: beans_md::saved_memories::ID,
        format: Some(Format::BeansMd),
        place: HomePlace::Folder {
            root: beans_md::saved_memories::folder,
            enters: beans_md::saved_memories::enters,
            keeps: beans_md::saved_memories::is_memory_file,
        },
    },
];

/// Adds the home folder's stores but those `left_out` names.
fn add_home_stores(
    scope: &mut JournalScope,
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
            HomePlace::Chosen { root, files } => {
                add_chosen_files(scope, folders, home, store, &root(home), files(home));
            }
        }
    }
}

impl JournalScope {
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
    scope: &mut JournalScope,
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
    scope: &mut JournalScope,
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

/// A store of `home` whose files its folder's contents choose (Gemini CLI's extensions'
/// context files): the folder and its sub-folders watched, and each file's folder; no
/// file through a link, nor inside the folder through a linked sub-folder.
fn add_chosen_files(
    scope: &mut JournalScope,
    folders: &mut Vec<PathBuf>,
    home: &Path,
    store: &HomeStore,
    root: &Path,
    files: Vec<PathBuf>,
) {
    if !std::fs::symlink_metadata(root).is_ok_and(|meta| meta.is_dir()) {
        return;
    }
    let index = push_home_store(scope, store, root);
    folders.push(root.to_path_buf());
    if let Ok(entries) = std::fs::read_dir(root) {
        let mut sub_folders: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        sub_folders.sort();
        folders.extend(sub_folders);
    }
    for file in files {
        let Ok(rel) = file.strip_prefix(root) else {
            continue;
        };
        let real_folders = rel
            .ancestors()
            .skip(1)
            .filter(|a| !a.as_os_str().is_empty())
            .all(|a| std::fs::symlink_metadata(root.join(a)).is_ok_and(|m| m.is_dir()));
        let is_file = std::fs::symlink_metadata(&file).is_ok_and(|meta| meta.is_file());
        if !real_folders || !is_file || scope.by_path.contains_key(&file) {
            continue;
        }
        folders.extend(file.parent().map(Path::to_path_buf));
        push_home_file(scope, home, index, file);
    }
}

/// Adds a store of the home folder at `root`, its index.
fn push_home_store(scope: &mut JournalScope, store: &HomeStore, root: &Path) -> usize {
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

fn push_home_file(scope: &mut JournalScope, home: &Path, store: usize, path: PathBuf) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// A home with every store's files, and beside them files that are no memory.
    fn home_with_every_store() -> tempfile::TempDir {
        let temp = tempfile::tempdir().unwrap();
        let home = temp.path();
        write(&home.join(".codex/memories/memory_summary.md"), "summary\n");
        write(&home.join(".codex/memories/rollout_summaries/a.md"), "a\n");
        write(&home.join(".codex/memories/other/b.md"), "not kept\n");
        write(&home.join(".gemini/GEMINI.md"), "- tabs\n");
        write(&home.join(".gemini/settings.json"), "{}");
        write(&home.join(".claude/CLAUDE.md"), "# Me\n");
        write(&home.join(".claude/rules/style.md"), "# Style\n");
        write(&home.join(".claude/rules/lang/rust.md"), "# Rust\n");
        write(&home.join(".claude/rules/lang/notes.txt"), "not a rule\n");
        write(
            &home.join(".claude/rules/.git/info/README.md"),
            "not a rule\n",
        );
        write(&home.join(".codex/AGENTS.md"), "# Global\n");
        write(&home.join(".codex/AGENTS.override.md"), "# Override\n");
        write(&home.join(".codex/config.toml"), "model = \"o3\"\n");
        write(&home.join(".config/opencode/AGENTS.md"), "# opencode\n");
        write(&home.join(".config/opencode/opencode.json"), "{}");
        let extensions = home.join(".gemini/extensions");
        write(
            &extensions.join("jira/gemini-extension.json"),
            r#"{"name":"jira","contextFileName":"JIRA.md"}"#,
        );
        write(&extensions.join("jira/JIRA.md"), "# Jira\n");
        write(&extensions.join("jira/README.md"), "not named\n");
        write(&home.join(".beans/BEANS.md"), "# Beans\n");
        write(&home.join(".beans/settings.json"), "{}");
        write(&home.join(".beans/memories/db.md"), "- port 5432\n");
        write(&home.join(".beans/memories/.draft.md"), "hidden\n");
        write(&home.join(".beans/memories/old/x.md"), "not entered\n");
        temp
    }

    fn listed(scope: &JournalScope) -> Vec<(String, String)> {
        scope
            .files
            .iter()
            .map(|f| (scope.store_of(f).label.clone(), f.display.clone()))
            .collect()
    }

    #[test]
    fn every_home_store_lists_the_files_its_agent_keeps_there_and_no_other() {
        let temp = home_with_every_store();
        let home = temp.path();
        let scope = home_stores(home);
        let expected = [
            ("Codex memories", "~/.codex/memories/memory_summary.md"),
            ("Codex memories", "~/.codex/memories/rollout_summaries/a.md"),
            ("Gemini CLI memory", "~/.gemini/GEMINI.md"),
            ("Claude Code user memory", "~/.claude/CLAUDE.md"),
            ("Claude Code user rules", "~/.claude/rules/style.md"),
            ("Claude Code user rules", "~/.claude/rules/lang/rust.md"),
            ("Codex global instructions", "~/.codex/AGENTS.override.md"),
            ("Codex global instructions", "~/.codex/AGENTS.md"),
            ("opencode user rules", "~/.config/opencode/AGENTS.md"),
            (
                "Gemini CLI extension context",
                "~/.gemini/extensions/jira/JIRA.md",
            ),
            ("Beans-Code global memory", "~/.beans/BEANS.md"),
            ("Beans-Code auto-saved memories", "~/.beans/memories/db.md"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(label, display)| (label.to_string(), display.to_string()))
            .collect();
        assert_eq!(listed(&scope), expected);
        assert!(
            scope
                .stores
                .iter()
                .all(|s| s.project.is_none() && s.agent_store)
        );
        // Where each store is: its one file, or its folder.
        let places: Vec<String> = (0..scope.stores.len())
            .map(|i| in_home(scope.place_of(i), home))
            .collect();
        assert_eq!(
            places,
            [
                "~/.codex/memories",
                "~/.gemini/GEMINI.md",
                "~/.claude/CLAUDE.md",
                "~/.claude/rules",
                "~/.codex",
                "~/.config/opencode/AGENTS.md",
                "~/.gemini/extensions",
                "~/.beans",
                "~/.beans/memories"
            ]
        );
        // Watched: every folder that holds, or may come to hold, one of their files.
        for folder in [
            ".codex/memories",
            ".codex/memories/rollout_summaries",
            ".gemini",
            ".claude",
            ".claude/rules",
            ".claude/rules/lang",
            ".codex",
            ".config/opencode",
            ".gemini/extensions",
            ".gemini/extensions/jira",
            ".beans",
            ".beans/memories",
        ] {
            assert!(
                scope.folders.contains(&home.join(folder)),
                "{folder}: {:?}",
                scope.folders
            );
        }
        assert!(!scope.folders.contains(&home.join(".codex/memories/other")));
        assert!(!scope.folders.contains(&home.join(".claude/rules/.git")));
        assert!(!scope.folders.contains(&home.join(".beans/memories/old")));
        assert_eq!(home_store_ids().count(), scope.stores.len());
    }

    #[test]
    fn a_folder_watched_for_named_files_takes_those_only() {
        let temp = home_with_every_store();
        let home = temp.path();
        let scope = home_stores(home);
        assert_eq!(scope.named_file(&home.join(".codex/AGENTS.md")), Some(true));
        assert_eq!(
            scope.named_file(&home.join(".codex/AGENTS.override.md")),
            Some(true)
        );
        assert_eq!(
            scope.named_file(&home.join(".codex/config.toml")),
            Some(false)
        );
        assert_eq!(
            scope.named_file(&home.join(".config/opencode/opencode.json")),
            Some(false)
        );
        assert_eq!(
            scope.named_file(&home.join(".beans/BEANS.local.md")),
            Some(true)
        );
        assert_eq!(
            scope.named_file(&home.join(".beans/settings.json")),
            Some(false)
        );
        // A store's folder is no folder watched for named files.
        assert_eq!(scope.named_file(&home.join(".claude/rules/new.md")), None);
        assert_eq!(scope.named_file(&home.join(".codex/memories/new.md")), None);
        // Named before it exists: the folder is watched for it.
        fs::remove_file(home.join(".codex/AGENTS.md")).unwrap();
        let scope = home_stores(home);
        assert!(scope.file(&home.join(".codex/AGENTS.md")).is_none());
        assert_eq!(scope.named_file(&home.join(".codex/AGENTS.md")), Some(true));
    }

    #[cfg(unix)]
    #[test]
    fn no_home_store_file_is_taken_through_a_link() {
        let temp = tempfile::tempdir().unwrap();
        let home = temp.path().join("home");
        let elsewhere = temp.path().join("elsewhere");
        write(&elsewhere.join("secret.md"), "# Secret\n");
        write(&home.join(".claude/rules/real.md"), "# Real\n");
        std::os::unix::fs::symlink(&elsewhere, home.join(".claude/rules/linked")).unwrap();
        std::os::unix::fs::symlink(
            elsewhere.join("secret.md"),
            home.join(".claude/rules/file.md"),
        )
        .unwrap();
        fs::create_dir_all(home.join(".codex")).unwrap();
        std::os::unix::fs::symlink(elsewhere.join("secret.md"), home.join(".codex/AGENTS.md"))
            .unwrap();
        fs::create_dir_all(home.join(".config")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, home.join(".config/opencode")).unwrap();
        write(
            &elsewhere.join("ext/gemini-extension.json"),
            r#"{"name":"ext"}"#,
        );
        write(&elsewhere.join("ext/GEMINI.md"), "# Ext\n");
        fs::create_dir_all(home.join(".gemini/extensions")).unwrap();
        std::os::unix::fs::symlink(elsewhere.join("ext"), home.join(".gemini/extensions/ext"))
            .unwrap();
        let scope = home_stores(&home);
        let displays: Vec<&str> = scope.files.iter().map(|f| f.display.as_str()).collect();
        assert_eq!(displays, ["~/.claude/rules/real.md"]);
        assert!(!scope.folders.iter().any(|f| f.starts_with(&elsewhere)));
    }

    #[test]
    fn leave_out_names_each_home_store_by_its_id() {
        let temp = home_with_every_store();
        let home = temp.path();
        let root = tempfile::tempdir().unwrap();
        let options = |leave_out: &[&str]| ScopeOptions {
            root: root.path().to_path_buf(),
            scan: ScanOptions {
                home: Some(home.to_path_buf()),
                ..ScanOptions::default()
            },
            config: JournalConfig {
                leave_out: leave_out.iter().map(|s| s.to_string()).collect(),
            },
        };
        let all = build(&options(&[]));
        assert_eq!(all.stores.len(), HOME_STORES.len());
        for store in &HOME_STORES {
            let scope = build(&options(&[store.id]));
            let labels: Vec<&str> = scope.stores.iter().map(|s| s.label.as_str()).collect();
            assert_eq!(labels.len(), HOME_STORES.len() - 1, "{}", store.id);
            assert!(!labels.contains(&store.label), "{}: {labels:?}", store.id);
        }
        let none = build(&options(&home_store_ids().collect::<Vec<_>>()));
        assert!(none.files.is_empty() && none.stores.is_empty());
    }
}
