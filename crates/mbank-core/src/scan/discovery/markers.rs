//! What a folder's own listing says about the memory it holds: the folders and files a
//! project is recognised by, each asked of the formats.
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::probe::{Probe, probe, probe_child};
use crate::formats;
use crate::formats::{
    claude_md, cline, conkeeper, infinity, instruction_files, memory_bank_mcp, roo_rules,
};
use crate::io::confine::ProjectFolder;
use crate::model::{BankLocation, Format};
use crate::scan::listings::{Entry, Kind, Listings};

/// What a folder's own listing says about the memory it holds.
#[derive(Debug, Default)]
pub(super) struct FolderMarkers {
    pub(super) banks: Vec<BankLocation>,
    pub(super) last_write: Option<SystemTime>,
    /// Formats found here only by entries their agent reads only at the workspace root
    /// (`.clinerules`, see `FormatRules::top_only_entries`).
    top_only: Vec<Format>,
}

impl FolderMarkers {
    pub(super) fn add(&mut self, format: Format, root: PathBuf, modified: Option<SystemTime>) {
        if !self
            .banks
            .iter()
            .any(|b| b.format == format && b.root == root)
        {
            self.banks.push(BankLocation { format, root });
        }
        self.top_only.retain(|f| *f != format);
        self.touch(modified);
    }

    /// [`add`](FolderMarkers::add) for a marker that is one of its format's top-only
    /// entries: unless something else marks the format too, a folder inside a project
    /// holding it is no project of its own (see [`has_memory_folder`](Self::has_memory_folder)).
    fn add_top_only(&mut self, format: Format, root: PathBuf, modified: Option<SystemTime>) {
        if !self.banks.iter().any(|b| b.format == format) {
            self.banks.push(BankLocation { format, root });
            self.top_only.push(format);
        }
        self.touch(modified);
    }

    fn touch(&mut self, modified: Option<SystemTime>) {
        if let Some(m) = modified {
            self.last_write = Some(self.last_write.map_or(m, |old| old.max(m)));
        }
    }

    /// A folder holding only instruction files (CLAUDE.md …), editor rules
    /// (`.cursor/rules` …) or entries read only at the workspace root (`.clinerules`)
    /// inside another project is a layer of that project, not a project of its own.
    pub(super) fn has_memory_folder(&self) -> bool {
        self.banks.iter().any(|b| {
            !formats::is_instruction_file(b.format)
                && formats::rules(b.format).project_paths().is_empty()
                && !self.top_only.contains(&b.format)
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
pub(super) fn markers_of(listings: &Listings, dir: &Path) -> FolderMarkers {
    match listings.list(dir) {
        Ok(entries) => markers_in(listings, &ProjectFolder::new(dir), &entries),
        Err(_) => FolderMarkers::default(),
    }
}

/// Recognises every memory format in a folder from its listing; only the markers found
/// are looked at more closely, and sub-folder markers (`.claude/memory`) are answered
/// from the listing of their parent. A marker that is a symlink is resolved once: one
/// leading out of `folder` stays a marker (so listing reports it) but is neither listed
/// nor `stat`ed through.
pub(super) fn markers_in(
    listings: &Listings,
    folder: &ProjectFolder<'_>,
    entries: &[Entry],
) -> FolderMarkers {
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
        match found {
            Some((format, root, when)) if formats::top_only_format(name) == Some(format) => {
                markers.add_top_only(format, root, when);
            }
            Some((format, root, when)) => markers.add(format, root, when),
            None => {}
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
/// project. Only hidden names and the few plain first names of such places (`docs`) are
/// compared, so a folder without any costs nothing more;
/// containers on the way (`.github`) are entered only when confined.
fn rule_file_markers(
    listings: &Listings,
    folder: &ProjectFolder<'_>,
    entries: &[Entry],
    markers: &mut FolderMarkers,
) {
    let dir = folder.path();
    for entry in entries {
        let Some(name) = entry
            .name
            .to_str()
            .filter(|n| n.starts_with('.') || formats::plain_place_heads().contains(n))
        else {
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
