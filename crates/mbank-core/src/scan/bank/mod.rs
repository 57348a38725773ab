//! Listing a bank's files in its format's read order. Reads metadata, plus the little
//! content that decides placement: rule frontmatter (`paths:`) and the Infinity store.
//! Only paths confined to the project are listed (see `confine`). An Infinity store's
//! memories are listed in `infinity_store`, the read order is decided in `read_order`.
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::formats::instruction_files::InstructionFiles;
use crate::formats::{self, Listing};
use crate::io::confine::{Confinement, OutsideLink, ProjectFolder};
use crate::io::paths;
use crate::io::text;
use crate::model::{Bank, BankLocation, BankProblem, Format, LoadKind, MemoryFile, Project};
use crate::scan::listings::{Entry, FileStat, Kind, Listings};

mod agent_folder;
mod infinity_store;
mod nested;
mod read_order;
mod rule_scope;

use infinity_store::list_infinity;
use nested::{nested_instruction_files, nested_rule_folders, nested_top_only_entries};
use read_order::{apply_read_order, mode_read_order, sort_read_order};

/// A bank folder with more entries than this is listed up to the cap, with a problem noted.
const MAX_FILES_PER_BANK: usize = 5_000;
/// How deep inside a bank folder files are listed.
const MAX_BANK_DEPTH: usize = 6;

struct Lister<'a> {
    listings: &'a Listings,
    project: &'a Path,
    /// The project's real folder, resolved only when a first symlink is met.
    folder: &'a ProjectFolder<'a>,
    format: Format,
    bank_root: PathBuf,
    /// The bank folder's real path, resolved only when a first symlink is met.
    bank_real: OnceLock<Option<PathBuf>>,
    files: Vec<MemoryFile>,
    problems: Vec<BankProblem>,
    outside: Vec<OutsideLink>,
    /// Given each real file as soon as it is listed (see [`list_banks_feeding`]).
    feed: Option<&'a dyn Fn(&MemoryFile)>,
}

/// Whether a listed entry may be used (see [`Lister::admit`]).
enum Admit {
    /// A plain file or folder in a confined folder.
    Plain,
    /// A symlink whose real location (given) is inside the project.
    Link(PathBuf),
    /// Leaves the project, or cannot be followed.
    Refused,
}

/// What a folder listing says is at `parent/name`, without following a symlink.
fn kind_of(listings: &Listings, parent: &Path, name: &OsStr) -> Option<Kind> {
    match name.to_str().and_then(|name| listings.child(parent, name)) {
        Some(found) => found.map(|e| e.kind),
        // The folder cannot be listed (searchable but not readable): ask the file itself.
        None => fs::symlink_metadata(parent.join(name)).ok().map(|meta| {
            let t = meta.file_type();
            if t.is_symlink() {
                Kind::Symlink
            } else if t.is_dir() {
                Kind::Dir
            } else if t.is_file() {
                Kind::File
            } else {
                Kind::Other
            }
        }),
    }
}

impl Lister<'_> {
    fn push(&mut self, path: PathBuf, stat: &FileStat) {
        let rel = paths::relative_to(&path, &self.bank_root).unwrap_or(&path);
        let bank_dir = paths::file_name(&self.bank_root)
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let placement = if formats::DOCUMENT_BANK_DIRS.contains(&bank_dir.as_ref()) {
            formats::place_document_bank(&bank_dir, rel)
        } else {
            formats::place(self.format, rel)
        };
        // A backup or foreign file (source code, `.env`) kept in a bank folder is never
        // loaded, whatever its name says.
        let not_memory = self.bank_root != self.project
            && crate::analysis::membership::classify(rel)
                != crate::analysis::membership::FileClass::Memory;
        let display = paths::relative_to(&path, self.project)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        self.files.push(MemoryFile {
            path,
            display,
            role: placement.role,
            layer: placement.layer,
            order: 0,
            group: placement.group,
            load: if not_memory {
                LoadKind::Never
            } else {
                placement.load
            },
            size: stat.len,
            modified: stat.modified,
            changed: stat.changed,
            inode: stat.inode,
            memory: None,
            unreadable: None,
        });
        if let (Some(feed), Some(file)) = (self.feed, self.files.last()) {
            feed(file);
        }
    }

    /// Pushes `path` when it is a file. Only for paths known to be confined: a plain file
    /// in a confined folder, or a symlink [`Lister::confined`] accepted.
    fn push_if_file(&mut self, path: PathBuf) {
        if let Ok(meta) = fs::metadata(&path)
            && meta.is_file()
        {
            self.push(path, &FileStat::of(&meta));
        }
    }

    /// Whether a listed entry may be used: plain files and folders inside a confined
    /// folder are (no system call); a symlink (or an entry of unknown type) is resolved
    /// once and must stay inside the project. A link leaving the project is recorded;
    /// one that cannot be followed is a problem.
    fn admit(&mut self, path: &Path, kind: Kind) -> Admit {
        if !matches!(kind, Kind::Symlink | Kind::Unknown) {
            return Admit::Plain;
        }
        let problem = match self.folder.check(path) {
            Confinement::Inside(real) => return Admit::Link(real),
            Confinement::Outside(link) => {
                if !self.outside.contains(&link) {
                    self.outside.push(link);
                }
                return Admit::Refused;
            }
            // An entry of unknown type that is not there (it vanished): nothing to say.
            Confinement::Dangling if kind == Kind::Unknown => return Admit::Refused,
            Confinement::Dangling => "it points to nothing".to_string(),
            Confinement::Loop => "it is a symlink loop".to_string(),
            Confinement::Unresolvable(reason) => reason,
        };
        self.problems.push(BankProblem::SymlinkNotFollowed {
            link: path.to_path_buf(),
            reason: problem,
        });
        Admit::Refused
    }

    fn confined(&mut self, path: &Path, kind: Kind) -> bool {
        !matches!(self.admit(path, kind), Admit::Refused)
    }

    /// `parent/name` when it exists and is confined (a folder or a file, per its kind).
    /// The listing of `parent` says whether the name exists at all, so absent files cost
    /// no `stat`.
    fn confined_child(&mut self, parent: &Path, name: &str) -> Option<PathBuf> {
        let kind = kind_of(self.listings, parent, OsStr::new(name))?;
        let path = parent.join(name);
        self.confined(&path, kind).then_some(path)
    }

    /// `parent/name` when it is a confined file.
    fn push_child_if_file(&mut self, parent: &Path, name: &str) {
        if let Some(path) = self.confined_child(parent, name) {
            self.push_if_file(path);
        }
    }

    /// `parent/name` when it is a confined folder.
    fn child_dir(&mut self, parent: &Path, name: &str) -> Option<PathBuf> {
        let kind = kind_of(self.listings, parent, OsStr::new(name))?;
        let path = parent.join(name);
        let is_dir = match self.admit(&path, kind) {
            Admit::Plain => kind == Kind::Dir,
            Admit::Link(real) => real.is_dir(),
            Admit::Refused => false,
        };
        is_dir.then_some(path)
    }

    /// Whether every folder from the project down to `dir` is confined (judged from the
    /// listings, so a bank of plain folders costs nothing). A missing step is left to the
    /// caller, which reports it when it lists.
    fn confined_way(&mut self, dir: &Path) -> bool {
        let Some(rel) = paths::relative_to(dir, self.project) else {
            return dir == self.project;
        };
        let mut parent = self.project.to_path_buf();
        for part in rel.components() {
            let name = part.as_os_str();
            let path = parent.join(name);
            match kind_of(self.listings, &parent, name) {
                Some(kind) if !self.confined(&path, kind) => return false,
                Some(_) => {}
                None => return true,
            }
            parent = path;
        }
        true
    }

    fn bank_real(&self) -> Option<&Path> {
        self.bank_real
            .get_or_init(|| fs::canonicalize(&self.bank_root).ok())
            .as_deref()
    }

    /// Lists every file under `dir`, bounded in depth and count; symlinks are listed only
    /// when they point to a file inside the bank (never followed as folders), and one
    /// leading out of the project is recorded.
    fn walk(&mut self, dir: &Path, depth: usize) {
        let (listed, stats) = match self.listings.list_stating_files(dir) {
            Ok(listed) => listed,
            Err(e) => {
                self.problems.push(BankProblem::FolderUnlisted {
                    folder: dir.to_path_buf(),
                    error: e.to_string(),
                });
                return;
            }
        };
        let mut entries: Vec<(&Entry, Option<FileStat>)> = listed.iter().zip(stats).collect();
        entries.sort_by(|a, b| a.0.name.cmp(&b.0.name));
        for (entry, stat) in entries {
            if self.files.len() >= MAX_FILES_PER_BANK {
                self.problems.push(BankProblem::TooManyFiles {
                    bank: self.bank_root.clone(),
                    limit: MAX_FILES_PER_BANK,
                });
                return;
            }
            let path = dir.join(&entry.name);
            if entry.kind == Kind::Unknown {
                continue;
            }
            if entry.kind == Kind::Dir {
                if depth < MAX_BANK_DEPTH && entry.name != ".git" {
                    self.walk(&path, depth + 1);
                }
            } else if entry.kind == Kind::Symlink {
                // Inside the project but outside the bank: another bank's file, not this one's.
                if let Admit::Link(target) = self.admit(&path, entry.kind)
                    && self
                        .bank_real()
                        .is_some_and(|bank| target.starts_with(bank))
                {
                    self.push_if_file(path);
                }
            } else if is_system_litter(&entry.name) {
                continue;
            } else if let Some(stat) = stat {
                self.push(path, &stat);
            }
        }
    }
}

/// Files the operating system leaves in any folder it shows (Finder's `.DS_Store` and
/// `._name` companions, Explorer's `Thumbs.db` and `desktop.ini`): binary, and no
/// agent's memory.
fn is_system_litter(name: &OsStr) -> bool {
    let bytes = name.as_encoded_bytes();
    bytes.starts_with(b"._")
        || [&b".DS_Store"[..], b"Thumbs.db", b"desktop.ini"]
            .iter()
            .any(|litter| bytes.eq_ignore_ascii_case(litter))
}

fn list_hierarchical(lister: &mut Lister<'_>, member: &InstructionFiles) {
    let project = lister.project.to_path_buf();
    let main = member.main;
    let local = member.local;
    // Names the agent's settings add, looked for wherever the main file is.
    let extra = formats::rules(lister.format).extra_names(&project);
    lister.push_child_if_file(&project, main);
    // The main file named in another case (`agents.md`), which the agent misses where
    // names are case-sensitive: listed, so its finding can say so.
    let miscased: Vec<String> = lister
        .listings
        .list(&project)
        .map(|entries| {
            entries
                .iter()
                .filter_map(|entry| entry.name.to_str())
                .filter(|name| member.is_miscased(name))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    for name in &miscased {
        lister.push_child_if_file(&project, name);
    }
    for name in &extra {
        lister.push_child_if_file(&project, name);
    }
    let dot_dir = member.reads_dot_dir.then_some(member.dot_dir);
    if let Some(dot) = dot_dir
        && let Some(dot_path) = lister.child_dir(&project, dot)
    {
        lister.push_child_if_file(&dot_path, main);
        for name in &extra {
            lister.push_child_if_file(&dot_path, name);
        }
        agent_folder::list_rules_and_memory(lister, &dot_path, member);
        lister.push_child_if_file(&dot_path, local);
    } else if member.reads_dot_dir_main
        && let Some(dot_path) = lister.child_dir(&project, member.dot_dir)
    {
        lister.push_child_if_file(&dot_path, main);
    }
    lister.push_child_if_file(&project, local);
    nested_instruction_files(lister, &project, main);
    for name in &extra {
        nested_instruction_files(lister, &project, name);
    }
    if let Some(override_file) = member.override_file {
        lister.push_child_if_file(&project, override_file);
        nested_instruction_files(lister, &project, override_file);
    }
}

fn list_top_entries(lister: &mut Lister<'_>, is_rule_file: fn(&str) -> bool, folders: &[&str]) {
    let project = lister.project.to_path_buf();
    let Ok(listed) = lister.listings.list(&project) else {
        return;
    };
    let mut entries: Vec<&Entry> = listed.iter().collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    for entry in entries {
        let Some(name) = entry.name.to_str() else {
            continue;
        };
        let is_rule_name = is_rule_file(name);
        let is_folder_name = folders.contains(&name);
        if !is_rule_name && !is_folder_name {
            continue;
        }
        let path = project.join(name);
        if !lister.confined(&path, entry.kind) {
            continue;
        }
        let is_dir = entry.is_dir(&project);
        if is_rule_name && !is_dir {
            // Pushed only when it is a file (a dangling link is not).
            lister.push_if_file(path);
        } else if is_folder_name && is_dir {
            lister.walk(&path, 1);
        }
    }
    settle_loads_by_frontmatter(lister, &project);
}

/// Remembered per file version in the listing cache: when a rule file loads, by its
/// frontmatter.
const RULE_LOAD_FACT: &str = "rule-load";

/// Lists a format known by its paths in the project (`FormatRules::project_paths`): its
/// files where they exist, its rule folders whole; then each rule's frontmatter says
/// when it loads.
fn list_project_paths(lister: &mut Lister<'_>, locations: formats::ProjectPaths) {
    let project = lister.project.to_path_buf();
    // The folder holding `rel`'s last part, when every folder on the way is confined.
    let parent_of = |lister: &mut Lister<'_>, rel: &str| -> Option<(PathBuf, String)> {
        let mut parts: Vec<&str> = rel.split('/').collect();
        let last = parts.pop()?.to_string();
        let mut dir = project.clone();
        for part in parts {
            dir = lister.child_dir(&dir, part)?;
        }
        Some((dir, last))
    };
    for rel in locations.files {
        if let Some((dir, name)) = parent_of(lister, rel) {
            lister.push_child_if_file(&dir, &name);
        }
    }
    for lookalike in locations.lookalikes {
        let Some(dir) = parent_of(lister, &format!("{}/-", lookalike.folder)).map(|(d, _)| d)
        else {
            continue;
        };
        let Ok(entries) = lister.listings.list(&dir) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .iter()
            .filter(|e| e.kind == Kind::File)
            .filter_map(|e| e.name.to_str().map(str::to_string))
            .filter(|name| (lookalike.name)(name))
            .collect();
        names.sort();
        for name in names {
            lister.push_child_if_file(&dir, &name);
        }
    }
    for rel in locations.folders {
        if let Some((dir, name)) = parent_of(lister, rel)
            && let Some(folder) = lister.child_dir(&dir, &name)
        {
            lister.walk(&folder, 1);
        }
    }
    let rules = formats::rules(lister.format);
    lister
        .files
        .retain(|file| rules.lists(paths::relative_to(&file.path, &project).unwrap_or(&file.path)));
    for rel in rules.nested_folders() {
        nested_rule_folders(lister, &project, rel);
    }
    settle_loads_by_frontmatter(lister, &project);
}

/// Sets when each rule file the format reads the frontmatter of loads, as that
/// frontmatter says.
fn settle_loads_by_frontmatter(lister: &mut Lister<'_>, project: &Path) {
    let rules = formats::rules(lister.format);
    let listings = lister.listings;
    for file in &mut lister.files {
        let rel = paths::relative_to(&file.path, project).unwrap_or(&file.path);
        if !rules.reads_frontmatter(rel) {
            continue;
        }
        let known = listings.fact(
            RULE_LOAD_FACT,
            &file.path,
            file.size,
            file.modified,
            file.changed,
        );
        let load = known.or_else(|| {
            let text = text::read_text_limited(&file.path, 1024 * 1024).ok()?;
            let load = rules.frontmatter_load(rel, &text)?;
            listings.put_fact(
                RULE_LOAD_FACT,
                &file.path,
                file.size,
                file.modified,
                file.changed,
                &load,
            );
            Some(load)
        });
        if let Some(load) = load {
            file.load = load;
        }
    }
}

/// Lists one bank of a project.
pub fn list_bank(project: &Project, location: &BankLocation) -> Bank {
    list_bank_with(&Listings::in_memory(), project, location)
}

/// [`list_bank`] reading folders and small facts through `listings`.
pub(crate) fn list_bank_with(
    listings: &Listings,
    project: &Project,
    location: &BankLocation,
) -> Bank {
    list_bank_in(
        listings,
        project,
        &ProjectFolder::new(&project.path),
        location,
        None,
    )
}

/// Lists one bank; `folder` (the project's, its real path resolved once) is shared by
/// the project's banks. Nothing whose real location leaves the project is listed: such
/// links end up in [`Bank::outside`].
fn list_bank_in(
    listings: &Listings,
    project: &Project,
    folder: &ProjectFolder<'_>,
    location: &BankLocation,
    feed: Option<&dyn Fn(&MemoryFile)>,
) -> Bank {
    // A bank kept in the home folder (Claude Code's auto memory) has its own allowed root.
    let rules = formats::rules(location.format);
    let outside = rules.outside_project(&location.root);
    let auto_root = outside.as_ref().map(|o| o.allowed_root.as_path());
    let home = outside.as_ref().and_then(|o| o.home.as_deref());
    let auto_folder = auto_root.map(ProjectFolder::new);
    let (base, folder) = match (auto_root, &auto_folder) {
        (Some(root), Some(auto_folder)) => (root, auto_folder),
        _ => (project.path.as_path(), folder),
    };
    let mut lister = Lister {
        listings,
        project: base,
        folder,
        format: location.format,
        bank_root: location.root.clone(),
        bank_real: OnceLock::new(),
        files: Vec::new(),
        problems: Vec::new(),
        outside: Vec::new(),
        feed,
    };
    let mut project_id = None;
    let mut parsed_store = None;
    match rules.listing() {
        Listing::Folder => {
            let root = location.root.clone();
            if lister.confined_way(&root) {
                lister.walk(&root, 0);
            }
            if rules.reads_in_mode_order(&root) {
                let reads = mode_read_order(&lister);
                if !reads.is_empty() {
                    apply_read_order(&root, &mut lister.files, &reads);
                }
            }
        }
        Listing::TopEntries {
            is_rule_file,
            folders,
        } => list_top_entries(&mut lister, is_rule_file, folders),
        Listing::Store => parsed_store = list_infinity(&mut lister, &mut project_id),
        Listing::Instructions(member) => list_hierarchical(&mut lister, member),
        Listing::ProjectPaths(paths) => list_project_paths(&mut lister, paths),
    }
    for name in rules.top_only_entries() {
        nested_top_only_entries(&mut lister, base, name);
    }
    let Lister {
        mut files,
        mut problems,
        outside,
        ..
    } = lister;
    if home.is_some() {
        for file in &mut files {
            file.display = format!("~/{}", file.display);
        }
        problems.extend(rules.listing_problems(&location.root));
    } else if let Some(root) = auto_root {
        // A folder of the user's choice: shown where it is.
        for file in &mut files {
            file.display = root.join(&file.display).display().to_string();
        }
    } else {
        problems.extend(rules.listing_problems(&location.root));
    }
    let format_rules = formats::rules(location.format);
    format_rules.settle_loads(&location.root, &mut files);
    sort_read_order(&mut files, format_rules.orders_by_file_name());
    Bank {
        format: location.format,
        root: location.root.clone(),
        files,
        project_id,
        modes: Vec::new(),
        problems,
        outside,
        parsed_store,
    }
}

/// Lists every bank of a project.
pub fn list_banks(project: &Project) -> Vec<Bank> {
    list_banks_with(&Listings::in_memory(), project)
}

/// [`list_banks`] reading folders and small facts through `listings`, so a folder that
/// discovery already read is not read again.
pub fn list_banks_with(listings: &Listings, project: &Project) -> Vec<Bank> {
    list_banks_in(listings, project, None)
}

/// [`list_banks_with`], handing each real file to `feed` as soon as it is listed, so
/// work on it (counting its tokens) starts while the rest is still listed. What `feed`
/// is given is the file's path and version as listed; its place in the read order and
/// its load may still change before the banks are returned.
pub(crate) fn list_banks_feeding(
    listings: &Listings,
    project: &Project,
    feed: &dyn Fn(&MemoryFile),
) -> Vec<Bank> {
    list_banks_in(listings, project, Some(feed))
}

fn list_banks_in(
    listings: &Listings,
    project: &Project,
    feed: Option<&dyn Fn(&MemoryFile)>,
) -> Vec<Bank> {
    let folder = ProjectFolder::new(&project.path);
    project
        .banks
        .iter()
        .map(|location| list_bank_in(listings, project, &folder, location, feed))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::discovery;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn project(dir: &Path) -> Project {
        discovery::project_at(dir, "p".into()).unwrap()
    }

    /// Lists the project at `dir` and returns every file listed (display names) and
    /// every outside link (relative to `dir`).
    #[cfg(unix)]
    fn listed(dir: &Path) -> (Vec<String>, Vec<String>) {
        let banks = list_banks(&project(dir));
        let files = banks
            .iter()
            .flat_map(|b| b.files.iter().map(|f| f.display.clone()))
            .collect();
        let mut outside: Vec<String> = banks
            .iter()
            .flat_map(|b| b.outside.iter())
            .map(|l| l.link.strip_prefix(dir).unwrap().display().to_string())
            .collect();
        outside.sort();
        outside.dedup();
        (files, outside)
    }

    fn write_touch(path: &Path) {
        write(path, "# x\n");
    }

    #[cfg(unix)]
    #[test]
    fn files_the_operating_system_leaves_in_folders_are_never_listed() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write_touch(&d.join("memory-bank/projectbrief.md"));
        write_touch(&d.join(".roo/rules/style.md"));
        for litter in [
            "memory-bank/.DS_Store",
            "memory-bank/._projectbrief.md",
            ".roo/.DS_Store",
            ".roo/rules/Thumbs.db",
            ".roo/desktop.ini",
        ] {
            fs::create_dir_all(d.join(litter).parent().unwrap()).unwrap();
            fs::write(d.join(litter), b"Bud1\0\0\x01").unwrap();
        }
        write_touch(&d.join("memory-bank/DS_Store-notes.md"));
        let (mut files, _) = listed(d);
        files.sort();
        assert_eq!(
            files,
            [
                ".roo/rules/style.md",
                "memory-bank/DS_Store-notes.md",
                "memory-bank/projectbrief.md"
            ]
        );
    }

    #[test]
    fn instruction_files_only_in_sub_folders_give_the_project_their_bank() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        // Found by its memory bank; its only CLAUDE.md is a sub-folder's.
        write_touch(&r.join("bank/memory-bank/projectbrief.md"));
        write_touch(&r.join("bank/api/CLAUDE.md"));
        // A repository whose only instruction files are a sub-folder's GEMINI.md and
        // AGENTS.override.md, three levels down.
        fs::create_dir_all(r.join("repo/.git")).unwrap();
        write_touch(&r.join("repo/packages/web/GEMINI.md"));
        write_touch(&r.join("repo/a/b/AGENTS.override.md"));
        // Gemini CLI's scan of the sub-folders finds its own folder's GEMINI.md too.
        write_touch(&r.join("gem/.gemini/GEMINI.md"));
        fs::create_dir_all(r.join("gem/.git")).unwrap();
        // Too deep, hidden or in dependencies: not looked at; no repository, no project.
        fs::create_dir_all(r.join("deep/.git")).unwrap();
        write_touch(&r.join("deep/a/b/c/d/e/f/g/h/i/CLAUDE.md"));
        write_touch(&r.join("deep/node_modules/x/CLAUDE.md"));
        write_touch(&r.join("deep/.hidden/CLAUDE.md"));
        write_touch(&r.join("loose/docs/notes/readme.md"));
        let projects = discovery::scan(
            r,
            &discovery::ScanOptions {
                depth: 3,
                ..discovery::ScanOptions::default()
            },
        );
        let summary: Vec<(String, Vec<Format>)> = projects
            .iter()
            .map(|p| (p.name.clone(), p.formats()))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("bank".into(), vec![Format::Cline, Format::ClaudeMd]),
                ("gem".into(), vec![Format::GeminiMd]),
                ("repo".into(), vec![Format::AgentsMd, Format::GeminiMd]),
            ]
        );
        // The listing finds what discovery saw.
        let repo = projects.iter().find(|p| p.name == "repo").unwrap();
        let listed: Vec<String> = list_banks(repo)
            .iter()
            .flat_map(|b| b.files.iter().map(|f| f.display.clone()))
            .collect();
        assert_eq!(listed, ["a/b/AGENTS.override.md", "packages/web/GEMINI.md"]);
        let gem = projects.iter().find(|p| p.name == "gem").unwrap();
        let gem_bank = &list_banks(gem)[0];
        assert_eq!(gem_bank.files[0].display, ".gemini/GEMINI.md");
        assert_eq!(gem_bank.files[0].load, crate::model::LoadKind::Startup);
        // A folder named on the command line is looked into the same way.
        let named = discovery::project_at(&r.join("bank"), "bank".into()).unwrap();
        assert_eq!(named.formats(), [Format::Cline, Format::ClaudeMd]);
    }

    #[test]
    fn cline_bank_is_in_read_order_with_extras_last() {
        let dir = tempfile::tempdir().unwrap();
        let bank = dir.path().join("memory-bank");
        for name in [
            "progress.md",
            "activeContext.md",
            "projectbrief.md",
            "tasks.md",
            "decisionLog.md",
        ] {
            write(&bank.join(name), "# x\n");
        }
        write(&bank.join("archive/old.md"), "# old\n");
        let banks = list_banks(&project(dir.path()));
        let names: Vec<_> = banks[0].files.iter().map(|f| f.display.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "memory-bank/projectbrief.md",
                "memory-bank/activeContext.md",
                "memory-bank/progress.md",
                "memory-bank/decisionLog.md",
                "memory-bank/tasks.md",
                "memory-bank/archive/old.md",
            ]
        );
        // Cline's instructions read ALL memory bank files at the start of every task, but
        // the specification archives completed work to keep it out of the session.
        assert_eq!(banks[0].files[5].load, LoadKind::Never);
    }

    #[test]
    fn every_real_file_listed_is_fed_once_and_nothing_else_is() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(&d.join("memory-bank/activeContext.md"), "# x\n");
        write(&d.join("memory-bank/archive/old.md"), "# old\n");
        write(&d.join("CLAUDE.md"), "# Main\n");
        write(&d.join(".claude/rules/always.md"), "# Always\n");
        write(&d.join("sub/CLAUDE.md"), "# Sub\n");
        write(
            &d.join(".infinity/memories.json"),
            r#"{"memories": [{"id": "m-1", "title": "One", "type": "rules", "content": "x"}]}"#,
        );
        let project = project(d);
        let fed = std::cell::RefCell::new(Vec::new());
        let feed = |file: &MemoryFile| {
            assert!(!file.is_virtual(), "{}", file.display);
            fed.borrow_mut()
                .push((file.path.clone(), file.size, file.modified));
        };
        let banks = list_banks_feeding(&Listings::in_memory(), &project, &feed);
        let mut listed: Vec<_> = banks
            .iter()
            .flat_map(|b| &b.files)
            .filter(|f| !f.is_virtual())
            .map(|f| (f.path.clone(), f.size, f.modified))
            .collect();
        assert!(
            banks
                .iter()
                .flat_map(|b| &b.files)
                .any(MemoryFile::is_virtual)
        );
        let mut fed = fed.into_inner();
        listed.sort();
        fed.sort();
        assert_eq!(fed, listed);
        assert!(fed.len() >= 4, "{fed:?}");
        // The same banks as a listing that feeds nothing.
        let plain = list_banks(&project);
        let rows = |banks: &[Bank]| -> Vec<(String, Option<u8>, LoadKind)> {
            banks
                .iter()
                .flat_map(|b| &b.files)
                .map(|f| (f.display.clone(), f.layer, f.load))
                .collect()
        };
        assert_eq!(rows(&banks), rows(&plain));
    }

    #[test]
    fn claude_rules_with_paths_load_on_demand() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(&d.join("CLAUDE.md"), "# Main\n");
        write(&d.join("CLAUDE.local.md"), "# Mine\n");
        write(&d.join(".claude/rules/always.md"), "# Always\n");
        write(
            &d.join(".claude/rules/api.md"),
            "---\npaths:\n  - src/api/**\n---\n# Api\n",
        );
        write(&d.join("sub/CLAUDE.md"), "# Sub\n");
        let banks = list_banks(&project(d));
        let rows: Vec<_> = banks[0]
            .files
            .iter()
            .map(|f| (f.display.as_str(), f.layer, f.load))
            .collect();
        assert_eq!(
            rows,
            vec![
                ("CLAUDE.md", Some(1), LoadKind::Startup),
                (".claude/rules/always.md", Some(2), LoadKind::Startup),
                (".claude/rules/api.md", Some(2), LoadKind::OnDemand),
                ("CLAUDE.local.md", Some(3), LoadKind::Startup),
                ("sub/CLAUDE.md", Some(4), LoadKind::OnDemand),
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_project_are_recorded_and_never_listed() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        write(&out.join("secret.md"), "# secret\n");
        write(&out.join("bank/projectBrief.md"), "# secret brief\n");
        write(&out.join("store/memories.json"), r#"{"memories":[]}"#);
        let secret = out.join("secret.md");
        let cases: Vec<(&str, Vec<&str>, Vec<&str>)> = vec![
            // (shape, links to make, the outside links expected)
            ("claude-file", vec!["CLAUDE.md"], vec!["CLAUDE.md"]),
            ("agents-file", vec!["AGENTS.md"], vec!["AGENTS.md"]),
            ("gemini-file", vec!["GEMINI.md"], vec!["GEMINI.md"]),
            ("roo-file", vec![".clinerules"], vec![".clinerules"]),
            (
                "bank-file",
                vec!["memory-bank/activeContext.md"],
                vec!["memory-bank/activeContext.md"],
            ),
            ("nested-file", vec!["sub/CLAUDE.md"], vec!["sub/CLAUDE.md"]),
            (
                "conkeeper-config",
                vec![".claude/memory/.memory-config.md"],
                vec![".claude/memory/.memory-config.md"],
            ),
        ];
        for (shape, links, expected) in cases {
            let p = dir.path().join(shape);
            // Every project has a plain bank too, so it is found whatever the link.
            write(&p.join("memory-bank/progress.md"), "# progress\n");
            write(&p.join(".claude/memory/active-context.md"), "# active\n");
            write(&p.join("CLAUDE.local.md"), "# local\n");
            for link in &links {
                fs::create_dir_all(p.join(link).parent().unwrap()).unwrap();
                symlink(&secret, p.join(link)).unwrap();
            }
            let (files, outside) = listed(&p);
            assert_eq!(outside, expected, "{shape}");
            for link in links {
                assert!(
                    !files.iter().any(|f| f == link),
                    "{shape}: {link} listed: {files:?}"
                );
            }
            assert!(
                files.iter().any(|f| f == "memory-bank/progress.md"),
                "{shape}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn memory_folders_linked_out_of_the_project_list_nothing() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        write(&out.join("bank/projectBrief.md"), "# secret brief\n");
        write(&out.join("rules/rule.md"), "# secret rule\n");
        write(&out.join("claude/CLAUDE.md"), "# secret\n");
        write(&out.join("claude/memory/active-context.md"), "# secret\n");
        write(
            &out.join("store/memories.json"),
            r#"{"memories":[{"id":"m","title":"secret","type":"rules","content":"x","created_at":"2025-01-01T00:00:00Z"}]}"#,
        );
        let cases = [
            ("cline", "memory-bank", "bank", vec!["memory-bank"]),
            (
                "conkeeper",
                ".claude/memory",
                "bank",
                vec![".claude/memory"],
            ),
            ("rules", ".claude/rules", "rules", vec![".claude/rules"]),
            ("claude-dir", ".claude", "claude", vec![".claude"]),
            ("infinity-dir", ".infinity", "store", vec![".infinity"]),
            (
                "infinity-store",
                ".infinity/memories.json",
                "store/memories.json",
                vec![".infinity/memories.json"],
            ),
            ("ai", ".ai", "claude", vec![".ai"]),
        ];
        for (shape, link, target, expected) in cases {
            let p = dir.path().join(shape);
            write(&p.join("README.md"), "# not memory\n");
            fs::create_dir_all(p.join(link).parent().unwrap()).unwrap();
            symlink(out.join(target), p.join(link)).unwrap();
            let (files, outside) = listed(&p);
            assert_eq!(outside, expected, "{shape}");
            assert!(files.is_empty(), "{shape}: {files:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn links_inside_the_project_still_work() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        write(&p.join("CLAUDE.md"), "# main\n");
        symlink("CLAUDE.md", p.join("AGENTS.md")).unwrap();
        write(&p.join("docs/bank/progress.md"), "# progress\n");
        symlink("docs/bank", p.join("memory-bank")).unwrap();
        write(&p.join("docs/rules/style.md"), "# style\n");
        fs::create_dir_all(p.join(".claude")).unwrap();
        symlink("../docs/rules", p.join(".claude/rules")).unwrap();
        let (mut files, outside) = listed(p);
        files.sort();
        assert!(outside.is_empty(), "{outside:?}");
        assert_eq!(
            files,
            vec![
                ".claude/rules/style.md",
                "AGENTS.md",
                "CLAUDE.md",
                "memory-bank/progress.md"
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_into_a_sibling_project_is_outside() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("b/memory-bank/progress.md"), "# b\n");
        fs::create_dir_all(dir.path().join("a")).unwrap();
        symlink(
            dir.path().join("b/memory-bank"),
            dir.path().join("a/memory-bank"),
        )
        .unwrap();
        let (files, outside) = listed(&dir.path().join("a"));
        assert!(files.is_empty(), "{files:?}");
        assert_eq!(outside, vec!["memory-bank"]);
    }
}
