//! Finding projects under the root from directory listings and metadata alone, so a
//! picker can appear before any file is read.
//!
//! The walk never enters `.git`, `node_modules`, `target`, hidden folders or folders
//! matching the configured ignore globs, never follows a symlink out of the root, and
//! treats every I/O error (permissions, loops, folders vanishing mid-scan) as "skip".
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use globset::GlobSet;

use crate::formats;
use crate::formats::claude_auto_memory::AutoMemoryPlace;
use crate::formats::kilo_code::{self, KiloMemoryPlace};
use crate::formats::{
    claude_md, cline, conkeeper, infinity, instruction_files, memory_bank_mcp, roo_rules,
};
use crate::io::confine::{Confinement, ProjectFolder};
use crate::io::paths;
use crate::model::{BankLocation, Format, Project};
use crate::scan::listings::{Entry, Kind, Listings};

/// Folders never descended into, whatever the configuration says.
pub(crate) const ALWAYS_SKIPPED: [&str; 6] = [
    ".git",
    "node_modules",
    "target",
    ".venv",
    "__pycache__",
    ".hg",
];

/// How many folder levels below a project its sub-folders' instruction files are looked
/// for (`sub/`, `sub/sub/`, `sub/sub/sub/`), by discovery and bank listing alike.
pub(crate) const MAX_NESTED_DEPTH: usize = 3;

#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// How many folder levels below the root may hold a project (the root itself is 0).
    pub depth: usize,
    /// Extra globs (matched against paths relative to the root and against folder names).
    pub ignore: GlobSet,
    /// The home folder whose Claude Code auto memory is shown under the projects it
    /// belongs to; `None` (the default, and what tests use unless they pass a temporary
    /// one) looks at no home folder at all.
    pub home: Option<PathBuf>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            depth: 2,
            ignore: GlobSet::empty(),
            home: None,
        }
    }
}

/// What a folder's own listing says about the memory it holds.
#[derive(Debug, Default)]
struct FolderMarkers {
    banks: Vec<BankLocation>,
    last_write: Option<SystemTime>,
}

impl FolderMarkers {
    fn add(&mut self, format: Format, root: PathBuf, modified: Option<SystemTime>) {
        if !self
            .banks
            .iter()
            .any(|b| b.format == format && b.root == root)
        {
            self.banks.push(BankLocation { format, root });
        }
        self.touch(modified);
    }

    fn touch(&mut self, modified: Option<SystemTime>) {
        if let Some(m) = modified {
            self.last_write = Some(self.last_write.map_or(m, |old| old.max(m)));
        }
    }

    /// A folder holding only instruction files (CLAUDE.md …) or editor rules
    /// (`.cursor/rules` …) inside another project is a layer of that project, not a
    /// project of its own.
    fn has_memory_folder(&self) -> bool {
        self.banks.iter().any(|b| {
            !formats::is_instruction_file(b.format)
                && formats::rules(b.format).project_paths().is_empty()
        })
    }
}

/// The format of the `memory-bank/` folder `bank` of a project whose listing is
/// `entries`, from every piece of evidence the listings hold (see
/// [`formats::memory_bank_mcp::MemoryBankEvidence`]).
fn memory_bank_format(listings: &Listings, dir: &Path, entries: &[Entry], bank: &Path) -> Format {
    use formats::memory_bank_mcp::{MemoryBankEvidence, is_mode_rules_entry, is_mode_rules_folder};
    let mut evidence = MemoryBankEvidence::default();
    if let Ok(files) = listings.list(bank) {
        for entry in files.iter().filter(|e| e.kind != Kind::Dir) {
            if let Some(name) = entry.name.to_str() {
                evidence.add_bank_file(name);
            }
        }
    }
    evidence.mode_rules = entries
        .iter()
        .any(|e| e.name.to_str().is_some_and(is_mode_rules_entry));
    // `.roo/rules-{mode}/` is looked into only when the rest leaves the question open.
    if !evidence.mode_rules
        && !evidence.brief
        && evidence.protocol_files > 0
        && entries
            .iter()
            .any(|e| e.name == roo_rules::ROO_DIR && e.kind == Kind::Dir)
        && let Ok(roo) = listings.list(&dir.join(roo_rules::ROO_DIR))
    {
        evidence.mode_rules = roo
            .iter()
            .any(|e| e.kind == Kind::Dir && e.name.to_str().is_some_and(is_mode_rules_folder));
    }
    evidence.format()
}

/// Reads one folder's listing and recognises every memory format it holds.
fn markers_of(listings: &Listings, dir: &Path) -> FolderMarkers {
    match listings.list(dir) {
        Ok(entries) => markers_in(listings, &ProjectFolder::new(dir), &entries),
        Err(_) => FolderMarkers::default(),
    }
}

/// What a marker is, judged against the folder being recognised (see `confine`).
enum Probe {
    /// A real file or folder, or a symlink whose real location is inside the folder.
    Inside { is_dir: bool },
    /// A symlink leading out of the folder: still a marker (listing reports the link),
    /// but nothing behind it is listed or `stat`ed.
    Outside,
    /// A dangling or looping symlink: no marker.
    Broken,
}

/// Judges `path`, of listing type `kind`: plain entries from the listing alone, links
/// resolved once.
fn probe(folder: &ProjectFolder<'_>, path: &Path, kind: Kind) -> Probe {
    match kind {
        Kind::Dir => Probe::Inside { is_dir: true },
        Kind::File | Kind::Other => Probe::Inside { is_dir: false },
        Kind::Symlink | Kind::Unknown => match folder.check(path) {
            Confinement::Inside(real) => Probe::Inside {
                is_dir: real.is_dir(),
            },
            Confinement::Outside(_) => Probe::Outside,
            _ => Probe::Broken,
        },
    }
}

/// [`probe`] of `parent/name`, from `parent`'s listing; `None` when absent.
fn probe_child(
    listings: &Listings,
    folder: &ProjectFolder<'_>,
    parent: &Path,
    name: &str,
) -> Option<Probe> {
    let path = parent.join(name);
    let kind = match listings.child(parent, name) {
        Some(found) => found?.kind,
        None => {
            let meta = fs::symlink_metadata(&path).ok()?;
            if meta.file_type().is_symlink() {
                Kind::Symlink
            } else if meta.is_dir() {
                Kind::Dir
            } else {
                Kind::File
            }
        }
    };
    Some(probe(folder, &path, kind))
}

/// Recognises every memory format in a folder from its listing; only the markers found
/// are looked at more closely, and sub-folder markers (`.claude/memory`) are answered
/// from the listing of their parent. A marker that is a symlink is resolved once: one
/// leading out of `folder` stays a marker (so listing reports it) but is neither listed
/// nor `stat`ed through.
fn markers_in(listings: &Listings, folder: &ProjectFolder<'_>, entries: &[Entry]) -> FolderMarkers {
    let dir = folder.path();
    let mut markers = FolderMarkers::default();
    let kind_of = |n: &str| entries.iter().find(|e| e.name == n).map(|e| e.kind);
    // A file marker's time; a link's own, so nothing outside is `stat`ed.
    let modified = |path: &Path, kind: Kind| match kind {
        Kind::Symlink | Kind::Unknown => fs::symlink_metadata(path).and_then(|m| m.modified()).ok(),
        _ => listings.modified(path),
    };
    // Banks are listed right after discovery: one `stat` serves both.
    let bank_modified = |path: &Path| listings.folder_modified(path);

    for entry in entries {
        let Some(name) = entry.name.to_str() else {
            continue;
        };
        let path = || dir.join(name);
        let file_marker = |format| (format, dir.to_path_buf(), modified(&path(), entry.kind));
        let found = match name {
            cline::BANK_DIR => {
                let path = path();
                match probe(folder, &path, entry.kind) {
                    Probe::Inside { is_dir: true } => {
                        let format = memory_bank_format(listings, dir, entries, &path);
                        let when = listings.modified(&path);
                        Some((format, path, when))
                    }
                    Probe::Outside => Some((Format::Cline, path, None)),
                    _ => None,
                }
            }
            n if formats::DOCUMENT_BANK_DIRS.contains(&n) => {
                let path = path();
                match probe(folder, &path, entry.kind) {
                    Probe::Inside { is_dir: true } => {
                        let when = bank_modified(&path);
                        Some((Format::MemoryBankMcp, path, when))
                    }
                    Probe::Outside => Some((Format::MemoryBankMcp, path, None)),
                    _ => None,
                }
            }
            n => formats::top_marker_format(n).map(file_marker),
        };
        if let Some((format, root, when)) = found {
            markers.add(format, root, when);
        }
    }
    // A folder that holds memory folders (`.claude/memory`): looked into only when it
    // is confined. A memory folder's own (`.claude`, `.ai`, `.infinity`) leading out of
    // the project is reported by the bank it would hold; `docs/` and `.cursor/` are not
    // memory themselves, and a link of theirs out of the project is simply not entered.
    let container = |name: &str| -> Option<(PathBuf, bool)> {
        let kind = kind_of(name)?;
        let path = dir.join(name);
        match probe(folder, &path, kind) {
            Probe::Inside { is_dir: true } => Some((path, true)),
            Probe::Outside => Some((path, false)),
            _ => None,
        }
    };
    // A memory folder inside a confined container.
    let bank_in = |container: &Path, name: &str| -> Option<(PathBuf, Option<SystemTime>)> {
        let path = container.join(name);
        match probe_child(listings, folder, container, name)? {
            Probe::Inside { is_dir: true } => {
                let when = bank_modified(&path);
                Some((path, when))
            }
            Probe::Outside => Some((path, None)),
            _ => None,
        }
    };
    // Banks kept for Cursor and for GitHub Copilot (`.copilot-tracking/`) are Cline's.
    for editor_folder in formats::cline::EDITOR_FOLDERS {
        if let Some((editor, true)) = container(editor_folder)
            && let Some((bank, when)) = bank_in(&editor, cline::BANK_DIR)
        {
            markers.add(Format::Cline, bank, when);
        }
    }
    let claude_dir = claude_md::FILES.dot_dir;
    match container(claude_dir) {
        Some((claude, true)) => {
            if let Some((memory, when)) = bank_in(&claude, conkeeper::FOLDER) {
                markers.add(Format::ConKeeper, memory, when);
            }
            let claude_markers = [
                claude_md::FILES.main,
                claude_md::FILES.local,
                instruction_files::RULES_FOLDER,
            ];
            for marker in claude_markers {
                let path = claude.join(marker);
                let when = match probe_child(listings, folder, &claude, marker) {
                    None | Some(Probe::Broken) => continue,
                    Some(Probe::Outside) => None,
                    Some(Probe::Inside { is_dir: true }) => bank_modified(&path),
                    Some(Probe::Inside { is_dir: false }) => {
                        fs::metadata(&path).ok().and_then(|m| m.modified().ok())
                    }
                };
                markers.add(Format::ClaudeMd, dir.to_path_buf(), when);
            }
        }
        // Claude's own folder leads out of the project: its instruction memory reports it.
        Some((_, false)) => markers.add(Format::ClaudeMd, dir.to_path_buf(), None),
        None => {}
    }
    if let Some((docs, true)) = container(memory_bank_mcp::DOCUMENT_BANKS_PARENT) {
        // memory-bank-mcp-server keeps its document banks under docs/ by default.
        for name in formats::DOCUMENT_BANK_DIRS {
            if let Some((bank, when)) = bank_in(&docs, name) {
                markers.add(Format::MemoryBankMcp, bank, when);
            }
        }
    }
    // ConKeeper's other containers (`.ai/`); in Claude's folder it was looked for above.
    for ai_dir in conkeeper::CONTAINERS
        .into_iter()
        .filter(|c| *c != claude_dir)
    {
        match container(ai_dir) {
            Some((ai, true)) => {
                if let Some((memory, when)) = bank_in(&ai, conkeeper::FOLDER) {
                    markers.add(Format::ConKeeper, memory, when);
                }
            }
            Some((ai, false)) => markers.add(Format::ConKeeper, ai.join(conkeeper::FOLDER), None),
            None => {}
        }
    }
    match container(infinity::DIR) {
        Some((store_dir, true)) => {
            match probe_child(listings, folder, &store_dir, infinity::STORE_FILE) {
                Some(Probe::Inside { is_dir: false }) => {
                    let when = fs::metadata(store_dir.join(infinity::STORE_FILE))
                        .ok()
                        .filter(|m| m.is_file())
                        .map(|m| m.modified().ok());
                    if let Some(when) = when {
                        markers.add(Format::Infinity, store_dir, when);
                    }
                }
                Some(Probe::Outside) => markers.add(Format::Infinity, store_dir, None),
                _ => {}
            }
        }
        Some((store_dir, false)) => markers.add(Format::Infinity, store_dir, None),
        None => {}
    }
    rule_file_markers(listings, folder, entries, &mut markers);
    markers.banks.sort_by_key(|b| b.format);
    markers
}

/// Formats known by their paths in the project (`.cursorrules`, `.cursor/rules/`, see
/// `FormatRules::project_paths`): a file or folder there makes a bank whose root is the
/// project. Only hidden names are compared, so a folder without any costs nothing more;
/// containers on the way (`.github`) are entered only when confined.
fn rule_file_markers(
    listings: &Listings,
    folder: &ProjectFolder<'_>,
    entries: &[Entry],
    markers: &mut FolderMarkers,
) {
    let dir = folder.path();
    for entry in entries {
        let Some(name) = entry.name.to_str().filter(|n| n.starts_with('.')) else {
            continue;
        };
        for rules in formats::all() {
            let paths = rules.project_paths();
            let wanted = paths
                .files
                .iter()
                .map(|p| (p, false))
                .chain(paths.folders.iter().map(|p| (p, true)));
            for (rel, want_dir) in wanted {
                let mut parts = rel.split('/');
                if parts.next() != Some(name) {
                    continue;
                }
                let rest: Vec<&str> = parts.collect();
                let mut path = dir.join(name);
                let mut found = probe(folder, &path, entry.kind);
                for part in &rest {
                    // A container leading out of the project is not entered.
                    if !matches!(found, Probe::Inside { is_dir: true }) {
                        found = Probe::Broken;
                        break;
                    }
                    found = probe_child(listings, folder, &path, part).unwrap_or(Probe::Broken);
                    path = path.join(part);
                }
                let when = match found {
                    Probe::Inside { is_dir } if is_dir == want_dir => {
                        if is_dir {
                            listings.folder_modified(&path)
                        } else {
                            listings.modified(&path)
                        }
                    }
                    Probe::Outside => None,
                    _ => continue,
                };
                markers.add(rules.format(), dir.to_path_buf(), when);
            }
            // Files named like the format's own in a folder of the project (a one-level
            // folder such as `.github`), entered only when confined.
            for lookalike in paths.lookalikes.iter().filter(|l| l.folder == name) {
                let path = dir.join(name);
                if !matches!(
                    probe(folder, &path, entry.kind),
                    Probe::Inside { is_dir: true }
                ) {
                    continue;
                }
                let Ok(inside) = listings.list(&path) else {
                    continue;
                };
                let found = inside
                    .iter()
                    .any(|e| e.kind == Kind::File && e.name.to_str().is_some_and(lookalike.name));
                if found {
                    markers.add(
                        rules.format(),
                        dir.to_path_buf(),
                        listings.folder_modified(&path),
                    );
                }
            }
        }
    }
}

/// The instruction-file members (CLAUDE.md, AGENTS.md, GEMINI.md …) whose files stand
/// only below the project's top, in its sub-folders (as bank listing looks for them: not
/// hidden, not dependencies or build output, not a memory bank, `MAX_NESTED_DEPTH` levels
/// down), or in the agent's own folder when the agent reads its main file there
/// (`.gemini/GEMINI.md`). Their agents read them in that project, so they make a bank of
/// it rooted at the project; each folder's listing answers, nothing is read.
fn add_nested_instruction_banks(listings: &Listings, dir: &Path, markers: &mut FolderMarkers) {
    let mut wanted: Vec<(Format, &'static instruction_files::InstructionFiles)> = Format::ALL
        .into_iter()
        .filter_map(|format| formats::instruction_member(format).map(|files| (format, files)))
        .filter(|(format, _)| !markers.banks.iter().any(|b| b.format == *format))
        .collect();
    let found = |format: Format, wanted: &mut Vec<_>, markers: &mut FolderMarkers| {
        wanted.retain(|(f, _)| *f != format);
        markers.add(format, dir.to_path_buf(), None);
    };
    for (format, files) in wanted.clone() {
        if files.reads_dot_dir_main
            && matches!(
                listings.child(&dir.join(files.dot_dir), files.main),
                Some(Some(Entry {
                    kind: Kind::File,
                    ..
                }))
            )
        {
            found(format, &mut wanted, markers);
        }
    }
    let mut level = vec![dir.to_path_buf()];
    for _ in 0..MAX_NESTED_DEPTH {
        let mut next = Vec::new();
        for folder in &level {
            let Ok(entries) = listings.list(folder) else {
                continue;
            };
            for entry in entries.iter() {
                let Some(name) = entry.name.to_str() else {
                    continue;
                };
                if entry.kind == Kind::Dir {
                    if !name.starts_with('.')
                        && !ALWAYS_SKIPPED.contains(&name)
                        && name != cline::BANK_DIR
                    {
                        next.push(folder.join(name));
                    }
                    continue;
                }
                // The project's own top was recognised from its listing already.
                if folder == dir || !matches!(entry.kind, Kind::File | Kind::Symlink) {
                    continue;
                }
                let member = wanted
                    .iter()
                    .find(|(_, files)| name == files.main || files.override_file == Some(name));
                if let Some(&(format, _)) = member {
                    found(format, &mut wanted, markers);
                }
            }
            if wanted.is_empty() {
                return;
            }
        }
        level = next;
    }
}

/// Folders the walk never enters, by name alone: hidden, vendored, build output, and
/// banks themselves.
fn is_skipped_name(name: &str) -> bool {
    name.starts_with('.')
        || ALWAYS_SKIPPED.contains(&name)
        || name == cline::BANK_DIR
        || formats::DOCUMENT_BANK_DIRS.contains(&name)
}

/// Whether the walk may enter this folder.
fn may_descend(name: &str, rel: &Path, options: &ScanOptions) -> bool {
    !(is_skipped_name(name) || options.ignore.is_match(name) || options.ignore.is_match(rel))
}

/// Where the home folder keeps Claude Code's auto memory, read once per scan.
fn auto_memory_place(home: Option<&Path>) -> Option<AutoMemoryPlace> {
    home.map(AutoMemoryPlace::of_home)
}

/// Where Kilo keeps project memory for this home folder, listed once per scan. The
/// user's `XDG_DATA_HOME` moves it only for the user's own home folder (a scan given
/// another home, as tests are, looks below that home alone).
fn kilo_memory_place(home: Option<&Path>) -> Option<KiloMemoryPlace> {
    let home = home?;
    let xdg_data_home = (paths::home_dir().as_deref() == Some(home))
        .then(|| std::env::var_os("XDG_DATA_HOME").map(PathBuf::from))
        .flatten();
    let root = kilo_code::memory_root(home, xdg_data_home.as_deref());
    Some(KiloMemoryPlace::of_root(&root))
}

/// What a scan with `home` reads outside every project for all projects alike (where
/// Claude Code and Kilo keep per-project memory): a change there may give any project a
/// bank. Files and folders, existing or not.
pub fn outside_places(home: Option<&Path>) -> Vec<PathBuf> {
    let Some(home) = home else {
        return Vec::new();
    };
    let mut places = formats::claude_auto_memory::places_read(home);
    let xdg_data_home = (paths::home_dir().as_deref() == Some(home))
        .then(|| std::env::var_os("XDG_DATA_HOME").map(PathBuf::from))
        .flatten();
    places.push(kilo_code::memory_root(home, xdg_data_home.as_deref()));
    places
}

/// The folders outside a project whose contents decide whether it has memory kept
/// elsewhere (a folder Claude Code keeps for it, before any memory is made there), of
/// those that exist: one appearing changes a place of [`outside_places`]. Reads the
/// home folder once.
pub struct OutsideFolders(Option<AutoMemoryPlace>);

impl OutsideFolders {
    pub fn of_home(home: Option<&Path>) -> OutsideFolders {
        OutsideFolders(auto_memory_place(home))
    }

    pub fn folders_of(&self, project: &Path) -> Vec<PathBuf> {
        self.0
            .as_ref()
            .map(|place| place.own_folders(project))
            .unwrap_or_default()
    }
}

/// Adds the project's Kilo Memory (kept in Kilo's data folder) to a project.
fn add_kilo_memory(markers: &mut FolderMarkers, project: &Path, place: Option<&KiloMemoryPlace>) {
    if let Some(folder) = place.and_then(|place| place.find(project)) {
        markers.add(Format::KiloMemory, folder, None);
    }
}

/// Adds the project's Claude Code auto memory (kept in the home folder, or where the
/// user's `autoMemoryDirectory` says) to a project.
fn add_auto_memory(markers: &mut FolderMarkers, project: &Path, place: Option<&AutoMemoryPlace>) {
    if let Some(folder) = place.and_then(|place| place.find(project)) {
        markers.add(Format::ClaudeAutoMemory, folder, None);
    }
}

/// Recognises one folder as a project, whatever its depth, from the folder alone: no
/// home folder is looked at, so the user's Claude Code auto memory is not among its banks
/// (see [`project_at_home`]). `None` when it holds no memory format.
pub fn project_at(path: &Path, name: String) -> Option<Project> {
    project_at_with(&Listings::in_memory(), path, name, None)
}

/// [`project_at`] with the auto memory `home` keeps for the project (used for folders
/// named on the command line, with the user's home folder).
pub fn project_at_home(path: &Path, name: String, home: Option<&Path>) -> Option<Project> {
    project_at_with(&Listings::in_memory(), path, name, home)
}

/// [`project_at_home`] with listings shared with the rest of the run.
pub(crate) fn project_at_with(
    listings: &Listings,
    path: &Path,
    name: String,
    home: Option<&Path>,
) -> Option<Project> {
    let mut markers = markers_of(listings, path);
    // As the walk does: a project, or a repository's top, holds its sub-folders'
    // instruction files; any other folder is a root of projects.
    let repository_top = listings.child(path, ".git").is_some_and(|e| e.is_some());
    if !markers.banks.is_empty() || repository_top {
        add_nested_instruction_banks(listings, path, &mut markers);
        markers.banks.sort_by_key(|b| b.format);
    }
    add_auto_memory(&mut markers, path, auto_memory_place(home).as_ref());
    if !markers.banks.is_empty() {
        add_kilo_memory(&mut markers, path, kilo_memory_place(home).as_ref());
    }
    (!markers.banks.is_empty()).then(|| Project {
        name,
        path: path.to_path_buf(),
        banks: markers.banks,
        last_write: markers.last_write,
    })
}

/// A folder waiting to be scanned.
struct PendingFolder {
    dir: PathBuf,
    /// Its real path: the root's canonical path plus real folder names, or a resolved
    /// symlink. Carried along so the walk never calls `canonicalize` per folder.
    real: PathBuf,
    depth: usize,
    inside_project: bool,
}

/// Folders reached through more than one path (symlinks), shared by the walkers.
type Visited = parking_lot::Mutex<HashSet<PathBuf>>;

/// What one walker needs to know about the whole scan.
struct Walk<'a> {
    root: &'a Path,
    canonical_root: &'a Path,
    options: &'a ScanOptions,
    visited: &'a Visited,
    listings: &'a Listings,
    auto_memory: Option<&'a AutoMemoryPlace>,
    kilo_memory: Option<&'a KiloMemoryPlace>,
}

impl Walk<'_> {
    /// First visit of a real folder?
    fn first_visit(&self, real: PathBuf) -> bool {
        self.visited.lock().insert(real)
    }

    /// Scans `stack` depth-first; returns the projects found and pushes nothing outside.
    /// `claimed` holds bank folders already reported by an enclosing project
    /// (docs/global-memory-bank), which only matters below that project.
    fn run(&self, mut stack: Vec<PendingFolder>, mut claimed: HashSet<PathBuf>) -> Vec<Project> {
        let mut projects = Vec::new();
        while let Some(pending) = stack.pop() {
            self.visit(pending, &mut stack, &mut claimed, &mut projects);
        }
        projects
    }

    fn visit(
        &self,
        pending: PendingFolder,
        stack: &mut Vec<PendingFolder>,
        claimed: &mut HashSet<PathBuf>,
        projects: &mut Vec<Project>,
    ) {
        let PendingFolder {
            dir,
            real,
            depth,
            inside_project,
        } = pending;
        let Ok(entries) = self.listings.list(&dir) else {
            return;
        };
        let folder = ProjectFolder::with_real(&dir, &real);
        let mut markers = markers_in(self.listings, &folder, &entries);
        markers.banks.retain(|b| !claimed.contains(&b.root));
        let mut is_project = if inside_project {
            markers.has_memory_folder()
        } else {
            !markers.banks.is_empty()
        };
        // A project (or a repository's top) also holds the instruction files of its
        // sub-folders, which its agents read there, though none stands at its top.
        let repository_top = entries.iter().any(|e| e.name == ".git");
        if !inside_project && (is_project || repository_top) {
            add_nested_instruction_banks(self.listings, &dir, &mut markers);
            markers.banks.retain(|b| !claimed.contains(&b.root));
            markers.banks.sort_by_key(|b| b.format);
            is_project = !markers.banks.is_empty();
        }
        // A folder whose only memory is the auto memory Claude Code keeps for it in the
        // home folder is a project too; it claims nothing below it, so projects inside
        // it are found as if it were none.
        let mut auto_memory_only = false;
        if !is_project
            && !inside_project
            && let Some(folder) = self
                .auto_memory
                .and_then(|place| place.find_own(&dir, &real))
        {
            markers.add(Format::ClaudeAutoMemory, folder, None);
            is_project = true;
            auto_memory_only = true;
        }
        if is_project && !auto_memory_only {
            claimed.extend(markers.banks.iter().map(|b| b.root.clone()));
            if let Some(folder) = self
                .auto_memory
                .and_then(|place| place.find_own(&dir, &real))
            {
                markers.add(Format::ClaudeAutoMemory, folder, None);
            }
        }
        if is_project {
            // Kilo Memory is matched by the folder's name alone: it joins a project found
            // by its own memory, never makes one.
            add_kilo_memory(&mut markers, &dir, self.kilo_memory);
            let rel = dir.strip_prefix(self.root).unwrap_or(&dir);
            let name = if rel.as_os_str().is_empty() {
                self.root
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| self.root.display().to_string())
            } else {
                rel.to_string_lossy().into_owned()
            };
            projects.push(Project {
                name,
                path: dir.clone(),
                banks: markers.banks,
                last_write: markers.last_write,
            });
        }
        if depth >= self.options.depth {
            return;
        }
        let mut entries: Vec<&Entry> = entries.iter().collect();
        // Real folders claim their place before symlinks to them, so a project is
        // reported under its own name, not an alias's.
        entries.sort_by_key(|e| e.is_symlink());
        for entry in entries {
            // Only folders and links (which may point at one) can be walked into.
            let name = entry.name.to_string_lossy();
            if !matches!(entry.kind, Kind::Dir | Kind::Symlink) || is_skipped_name(&name) {
                continue;
            }
            let path = dir.join(&entry.name);
            let rel = crate::io::paths::relative_to(&path, self.root).unwrap_or(&path);
            if !may_descend(&name, rel, self.options) {
                continue;
            }
            let real_path = if entry.kind == Kind::Symlink {
                // Follow a link only when it stays inside the root and was not seen before.
                let Ok(target) = fs::canonicalize(&path) else {
                    continue;
                };
                if !target.starts_with(self.canonical_root) || !target.is_dir() {
                    continue;
                }
                target
            } else if entry.kind == Kind::Dir {
                real.join(&entry.name)
            } else {
                continue;
            };
            if !self.first_visit(real_path.clone()) {
                continue;
            }
            stack.push(PendingFolder {
                dir: path,
                real: real_path,
                depth: depth + 1,
                inside_project: inside_project || (is_project && !auto_memory_only),
            });
        }
    }
}

/// Below this many top-level folders a scan stays on one thread.
const PARALLEL_SCAN_MIN: usize = 64;

/// Walks the root to `options.depth` and returns every project found, sorted by name.
///
/// Each folder is listed once; the listing's file types decide what is a folder, so
/// only markers and symlinks cost a `stat`. Loops are impossible without symlinks, and a
/// symlink is followed only when its target is inside the root and not seen before.
/// Large roots are split across the machine's cores after the root's own listing.
pub fn scan(root: &Path, options: &ScanOptions) -> Vec<Project> {
    scan_with(root, options, &Listings::in_memory())
}

/// [`scan`] reading folders through `listings`, which the run then shares with bank
/// listing (and which may hold listings remembered from an earlier run).
pub fn scan_with(root: &Path, options: &ScanOptions, listings: &Listings) -> Vec<Project> {
    let canonical_root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let visited = Visited::new(HashSet::from([canonical_root.clone()]));
    let auto_memory = auto_memory_place(options.home.as_deref());
    let kilo_memory = kilo_memory_place(options.home.as_deref());
    let walk = Walk {
        root,
        canonical_root: &canonical_root,
        options,
        visited: &visited,
        listings,
        auto_memory: auto_memory.as_ref(),
        kilo_memory: kilo_memory.as_ref(),
    };
    let mut top = Vec::new();
    let mut claimed = HashSet::new();
    let mut projects = Vec::new();
    walk.visit(
        PendingFolder {
            dir: root.to_path_buf(),
            real: canonical_root.clone(),
            depth: 0,
            inside_project: false,
        },
        &mut top,
        &mut claimed,
        &mut projects,
    );
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    if threads < 2 || top.len() < PARALLEL_SCAN_MIN {
        projects.extend(walk.run(top, claimed));
    } else {
        // Workers take one top-level folder at a time, so a worker on a busy core does
        // less instead of holding everyone up.
        let queue = parking_lot::Mutex::new(top);
        let next = || queue.lock().pop();
        let found: Vec<Vec<Project>> = std::thread::scope(|scope| {
            let walk = &walk;
            let next = &next;
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    let claimed = claimed.clone();
                    scope.spawn(move || {
                        let mut found = Vec::new();
                        while let Some(pending) = next() {
                            found.extend(walk.run(vec![pending], claimed.clone()));
                        }
                        found
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        });
        projects.extend(found.into_iter().flatten());
    }
    projects.sort_by(|a, b| a.name.cmp(&b.name));
    projects
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "# x\n").unwrap();
    }

    #[test]
    fn finds_every_format_and_reports_each_bank() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        touch(&r.join("cline/memory-bank/projectbrief.md"));
        touch(&r.join("mcp/memory-bank/active-context.md"));
        touch(&r.join("mcp/memory-bank/product-context.md"));
        touch(&r.join("multi/CLAUDE.md"));
        touch(&r.join("multi/AGENTS.md"));
        touch(&r.join("multi/.claude/memory/active-context.md"));
        touch(&r.join("inf/.infinity/memories.json"));
        touch(&r.join("roo/.clinerules-code"));
        touch(&r.join("cursor/.cursor/memory-bank/activeContext.md"));
        touch(&r.join("copilot/.copilot-tracking/memory-bank/activeContext.md"));
        touch(&r.join("kilo/.kilocode/rules/memory-bank/brief.md"));
        touch(&r.join("plain/README.md"));
        touch(&r.join("docbanks/docs/global-memory-bank/core/glossary.json"));
        touch(&r.join("docbanks/docs/branch-memory-bank/feature-x/activeContext.json"));
        let projects = scan(r, &ScanOptions::default());
        let summary: Vec<(String, Vec<Format>)> = projects
            .iter()
            .map(|p| (p.name.clone(), p.formats()))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("cline".into(), vec![Format::Cline]),
                ("copilot".into(), vec![Format::Cline]),
                ("cursor".into(), vec![Format::Cline]),
                ("docbanks".into(), vec![Format::MemoryBankMcp]),
                ("inf".into(), vec![Format::Infinity]),
                ("kilo".into(), vec![Format::KiloCode]),
                ("mcp".into(), vec![Format::MemoryBankMcp]),
                (
                    "multi".into(),
                    vec![Format::ClaudeMd, Format::AgentsMd, Format::ConKeeper]
                ),
                ("roo".into(), vec![Format::RooRules]),
            ]
        );
    }

    #[test]
    fn respects_depth_and_skips_ignored_folders() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        touch(&r.join("a/b/memory-bank/progress.md"));
        touch(&r.join("a/b/c/memory-bank/progress.md"));
        touch(&r.join("node_modules/x/memory-bank/progress.md"));
        touch(&r.join("skipme/memory-bank/progress.md"));
        let mut builder = globset::GlobSetBuilder::new();
        builder.add(globset::Glob::new("skip*").unwrap());
        let options = ScanOptions {
            depth: 2,
            ignore: builder.build().unwrap(),
            home: None,
        };
        let names: Vec<String> = scan(r, &options).into_iter().map(|p| p.name).collect();
        assert_eq!(names, vec!["a/b".to_string()]);
    }

    #[test]
    fn nested_instruction_files_belong_to_their_project() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        touch(&r.join("p/CLAUDE.md"));
        touch(&r.join("p/sub/CLAUDE.md"));
        touch(&r.join("p/nested/memory-bank/progress.md"));
        let names: Vec<String> = scan(r, &ScanOptions::default())
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(names, vec!["p".to_string(), "p/nested".to_string()]);
    }

    #[test]
    fn large_roots_scanned_in_parallel_find_everything_once() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let mut wanted = Vec::new();
        for n in 0..150 {
            let name = format!("p{n:03}");
            touch(&r.join(&name).join("memory-bank/progress.md"));
            // Nested projects and plain folders at depth 2 too.
            if n % 10 == 0 {
                touch(&r.join(&name).join("sub/memory-bank/progress.md"));
                wanted.push(format!("{name}/sub"));
            }
            touch(&r.join(&name).join("src/main.rs"));
            wanted.push(name);
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(r.join("p000"), r.join("alias")).unwrap();
        wanted.sort();
        // The alias of p000 is not a second project.
        let names: Vec<String> = scan(r, &ScanOptions::default())
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(names, wanted);
    }

    #[cfg(unix)]
    #[test]
    fn survives_symlink_loops_and_never_leaves_the_root() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let r = root.path();
        touch(&r.join("p/memory-bank/progress.md"));
        touch(&outside.path().join("o/memory-bank/progress.md"));
        std::os::unix::fs::symlink(r, r.join("p/loop")).unwrap();
        std::os::unix::fs::symlink(outside.path(), r.join("escape")).unwrap();
        let names: Vec<String> = scan(
            r,
            &ScanOptions {
                depth: 6,
                ..Default::default()
            },
        )
        .into_iter()
        .map(|p| p.name)
        .collect();
        assert_eq!(names, vec!["p".to_string()]);
    }

    #[cfg(unix)]
    #[test]
    fn markers_leading_out_of_the_project_are_kept_but_not_looked_through() {
        use std::os::unix::fs::symlink;
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let r = root.path();
        let o = outside.path();
        touch(&o.join("bank/active-context.md"));
        touch(&o.join("bank/product-context.md"));
        touch(&o.join("secret.md"));
        touch(&o.join("claude/memory/progress.md"));
        touch(&o.join("store/memories.json"));
        // Far in the future: a time read through a link would win `last_write`.
        let future = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(4_000_000_000);
        for path in [
            o.join("bank"),
            o.join("secret.md"),
            o.join("claude"),
            o.join("claude/memory"),
            o.join("store"),
            o.join("store/memories.json"),
        ] {
            fs::File::open(&path).unwrap().set_modified(future).unwrap();
        }
        for name in [
            "cline",
            "claude",
            "conkeeper",
            "dotclaude",
            "infinity",
            "store",
        ] {
            fs::create_dir_all(r.join(name)).unwrap();
        }
        symlink(o.join("bank"), r.join("cline/memory-bank")).unwrap();
        symlink(o.join("secret.md"), r.join("claude/CLAUDE.md")).unwrap();
        fs::create_dir_all(r.join("conkeeper/.claude")).unwrap();
        symlink(o.join("claude/memory"), r.join("conkeeper/.claude/memory")).unwrap();
        symlink(o.join("claude"), r.join("dotclaude/.claude")).unwrap();
        symlink(o.join("store"), r.join("infinity/.infinity")).unwrap();
        fs::create_dir_all(r.join("store/.infinity")).unwrap();
        symlink(
            o.join("store/memories.json"),
            r.join("store/.infinity/memories.json"),
        )
        .unwrap();
        let projects = scan(r, &ScanOptions::default());
        let summary: Vec<(String, Vec<Format>)> = projects
            .iter()
            .map(|p| (p.name.clone(), p.formats()))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("claude".into(), vec![Format::ClaudeMd]),
                // Not told apart by its names: nothing behind the link is listed.
                ("cline".into(), vec![Format::Cline]),
                ("conkeeper".into(), vec![Format::ConKeeper]),
                ("dotclaude".into(), vec![Format::ClaudeMd]),
                ("infinity".into(), vec![Format::Infinity]),
                ("store".into(), vec![Format::Infinity]),
            ]
        );
        let year_2090 = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(3_800_000_000);
        for project in &projects {
            assert!(
                project.last_write.is_none_or(|t| t < year_2090),
                "{} took a time from outside",
                project.name
            );
        }
    }

    #[test]
    fn auto_memory_is_looked_for_only_in_the_home_folder_passed_in() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let project = root.join("app");
        fs::create_dir_all(&project).unwrap();
        fs::write(project.join("CLAUDE.md"), "# App\n").unwrap();
        let home = dir.path().join("home");
        let memory = formats::claude_auto_memory::memory_folder(&home, &project);
        fs::create_dir_all(&memory).unwrap();
        fs::write(memory.join("MEMORY.md"), "- note\n").unwrap();
        let formats_of = |project: Option<Project>| project.map(|p| p.formats());
        // No home passed: no home folder is looked at.
        assert_eq!(
            formats_of(project_at(&project, "app".into())),
            Some(vec![Format::ClaudeMd])
        );
        assert_eq!(
            formats_of(project_at_home(&project, "app".into(), Some(&home))),
            Some(vec![Format::ClaudeMd, Format::ClaudeAutoMemory])
        );
        let scanned = |home: Option<PathBuf>| {
            let options = ScanOptions {
                home,
                ..ScanOptions::default()
            };
            scan(&root, &options)
                .into_iter()
                .flat_map(|p| p.banks)
                .map(|b| b.format)
                .collect::<Vec<_>>()
        };
        assert_eq!(scanned(None), vec![Format::ClaudeMd]);
        assert_eq!(
            scanned(Some(home.clone())),
            vec![Format::ClaudeMd, Format::ClaudeAutoMemory]
        );
    }
}
