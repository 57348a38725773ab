//! Claude Code's auto memory: the notes Claude Code writes for itself in
//! `~/.claude/projects/<project folder name>/memory/`. `MEMORY.md` is the index: its first
//! 200 lines or 25 KB (whichever comes first) load at every session start; the rest of it
//! and the topic files beside it (`debugging.md`, …) are read on demand.
//!
//! The folder name is the project's absolute path with every character that is not an
//! ASCII letter or digit replaced by `-` (Claude Code's `[^a-zA-Z0-9]` replacement, one
//! `-` per UTF-16 unit). The encoding loses information, so mbank never decodes a folder
//! name: it encodes each project's path and looks for that folder.
//!
//! The user's `autoMemoryDirectory` setting (in `~/.claude/settings.json`: a path, `~/`
//! allowed) moves auto memory to that folder, for every project; `AutoMemoryPlace`
//! reads it once per scan. A settings file that is not JSON is reported on the bank found
//! at the default place (`settings_problem`), never a panic.
//!
//! The bank lives in the home folder, which is its allowed root (a folder set with
//! `autoMemoryDirectory` is its own): a link out of it is refused like a link out of a
//! project. mbank never writes there.
use std::path::{Path, PathBuf};

use super::{Budget, FormatRules, Placement, split_rel};
use crate::findings::RuleSource;
use crate::formats::Unit;
use crate::model::{BankProblem, Format, LoadKind, MemoryFile, Role};

/// Claude Code loads only this many lines of `MEMORY.md`…
pub(crate) const MAX_LINES: u64 = 200;
/// …and at most this many bytes of it, whichever limit comes first.
pub(crate) const MAX_BYTES: u64 = 25 * 1024;
/// The index file, loaded (cut) at session start.
pub(crate) const INDEX: &str = "MEMORY.md";
/// Where the project folders sit, below the home folder.
pub(crate) const PROJECTS_DIR: &str = ".claude/projects";
/// Claude Code's user settings, below the home folder.
pub(crate) const SETTINGS: &str = ".claude/settings.json";
/// The user setting that moves auto memory to a folder of the user's choice.
pub(crate) const DIRECTORY_SETTING: &str = "autoMemoryDirectory";
/// Settings files are small; a bigger one is not read.
const SETTINGS_MAX_BYTES: u64 = 1024 * 1024;

/// Claude Code's folder name for a project path.
pub(crate) fn project_folder_name(project: &Path) -> String {
    let mut name = String::new();
    for c in project.to_string_lossy().chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c);
        } else {
            // JavaScript replaces per UTF-16 unit: a character outside the BMP gives two.
            for _ in 0..c.len_utf16() {
                name.push('-');
            }
        }
    }
    name
}

/// The auto memory folder of a project, whether or not it exists.
pub fn memory_folder(home: &Path, project: &Path) -> PathBuf {
    home.join(PROJECTS_DIR)
        .join(project_folder_name(project))
        .join("memory")
}

/// The home folder of an auto memory folder at its default place
/// (`<home>/.claude/projects/<name>/memory`); `None` for a folder elsewhere
/// (`autoMemoryDirectory`).
pub(crate) fn home_of(memory_folder: &Path) -> Option<&Path> {
    let name_of = |n: usize| memory_folder.ancestors().nth(n).and_then(Path::file_name);
    let default_place = name_of(0).is_some_and(|n| n == "memory")
        && name_of(2).is_some_and(|n| n == "projects")
        && name_of(3).is_some_and(|n| n == ".claude");
    default_place
        .then(|| memory_folder.ancestors().nth(4))
        .flatten()
}

/// The folder an auto memory folder's files must stay in: the home folder at the default
/// place, the folder itself when `autoMemoryDirectory` put it elsewhere.
pub(crate) fn allowed_root(memory_folder: &Path) -> &Path {
    home_of(memory_folder).unwrap_or(memory_folder)
}

/// Where Claude Code keeps auto memory for one home folder, read once per scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AutoMemoryPlace {
    home: PathBuf,
    /// The folder `autoMemoryDirectory` names (`~/` expanded; relative to the home folder).
    directory: Option<PathBuf>,
    /// The folder names in `~/.claude/projects`, read once (most homes have none): a
    /// project's folder is looked for only when its name is among them.
    folders: std::collections::HashSet<String>,
}

/// More project folders than anyone keeps: the rest are not looked at.
const MAX_PROJECT_FOLDERS: usize = 100_000;

impl AutoMemoryPlace {
    /// Reads the home folder's Claude Code settings (a broken file is passed over here:
    /// see [`settings_problem`]).
    pub fn of_home(home: &Path) -> AutoMemoryPlace {
        let directory = read_directory_setting(home).ok().flatten();
        let folders = match (&directory, std::fs::read_dir(home.join(PROJECTS_DIR))) {
            (None, Ok(entries)) => entries
                .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
                .take(MAX_PROJECT_FOLDERS)
                .collect(),
            _ => Default::default(),
        };
        AutoMemoryPlace {
            home: home.to_path_buf(),
            folders,
            directory,
        }
    }

    /// The auto memory folder Claude Code keeps at its default place for a folder
    /// (`dir` as given, or `real`, its resolved path), when it exists. Never the
    /// `autoMemoryDirectory` folder, which belongs to every project alike: this is how a
    /// folder with no memory of its own is still found as a project.
    pub(crate) fn find_own(&self, dir: &Path, real: &Path) -> Option<PathBuf> {
        if self.folders.is_empty() {
            return None;
        }
        [dir, real].into_iter().find_map(|path| {
            self.folders
                .contains(&project_folder_name(path))
                .then(|| memory_folder(&self.home, path))
                .filter(|folder| folder.is_dir())
        })
    }

    /// The per-project folders Claude Code keeps for `project` (under the path as given
    /// and its resolved path) that exist: a `memory` folder made in one changes it. None
    /// when `autoMemoryDirectory` is set (that folder serves every project alike).
    pub(crate) fn own_folders(&self, project: &Path) -> Vec<PathBuf> {
        if self.directory.is_some() || self.folders.is_empty() {
            return Vec::new();
        }
        let real = std::fs::canonicalize(project).ok();
        let mut folders: Vec<PathBuf> = std::iter::once(project)
            .chain(real.as_deref().filter(|real| *real != project))
            .filter(|path| self.folders.contains(&project_folder_name(path)))
            .map(|path| self.home.join(PROJECTS_DIR).join(project_folder_name(path)))
            .collect();
        folders.dedup();
        folders
    }

    /// The project's auto memory folder when it exists: the `autoMemoryDirectory` folder
    /// when one is set; else the default place under the path as given, else under its
    /// real path (Claude Code names the folder after the path it was started in).
    pub fn find(&self, project: &Path) -> Option<PathBuf> {
        if let Some(directory) = &self.directory {
            return directory.is_dir().then(|| directory.clone());
        }
        if self.folders.is_empty() {
            return None;
        }
        if let Some(given) = self.find_own(project, project) {
            return Some(given);
        }
        let real = std::fs::canonicalize(project).ok()?;
        (real != project)
            .then(|| self.find_own(&real, &real))
            .flatten()
    }
}

/// What a scan reads in `home` for every project alike: the folder of per-project
/// folders, the settings, and the `autoMemoryDirectory` folder they may name.
pub(crate) fn places_read(home: &Path) -> Vec<PathBuf> {
    let mut places = vec![home.join(PROJECTS_DIR), home.join(SETTINGS)];
    places.extend(read_directory_setting(home).ok().flatten());
    places
}

/// The project's auto memory folder under `home`, when it exists (see
/// [`AutoMemoryPlace::find`]; a scan reads the settings once instead).
#[cfg(test)]
pub(crate) fn find_memory_folder(home: &Path, project: &Path) -> Option<PathBuf> {
    AutoMemoryPlace::of_home(home).find(project)
}

/// Why the home folder's Claude Code settings could not be read for
/// `autoMemoryDirectory`, in words; `None` when they could (or there are none).
pub(crate) fn settings_problem(home: &Path) -> Option<String> {
    read_directory_setting(home).err()
}

/// `autoMemoryDirectory` from `<home>/.claude/settings.json`: `Ok(None)` when the file or
/// the key is missing, `Err` (in words) when the file cannot be read as JSON or the value
/// is not a path.
fn read_directory_setting(home: &Path) -> Result<Option<PathBuf>, String> {
    let file = home.join(SETTINGS);
    let text = match crate::io::text::read_text_limited(&file, SETTINGS_MAX_BYTES) {
        Ok(text) => text,
        Err(e) if crate::io::text::is_not_found(&e) => return Ok(None),
        Err(e) => return Err(format!("~/{SETTINGS} cannot be read ({e}): {}", fallback())),
    };
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "~/{SETTINGS} is not valid JSON (line {}, column {}): {}",
            e.line(),
            e.column(),
            fallback()
        )
    })?;
    match value.get(DIRECTORY_SETTING) {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(path)) if path.trim().is_empty() => Ok(None),
        Some(serde_json::Value::String(path)) => Ok(Some(resolve(home, path.trim()))),
        Some(_) => Err(format!(
            "{DIRECTORY_SETTING} in ~/{SETTINGS} is not a path: {}",
            fallback()
        )),
    }
}

fn fallback() -> String {
    format!("{DIRECTORY_SETTING} is not read; auto memory is looked for in ~/{PROJECTS_DIR}")
}

/// A path as the settings write it: `~` and `~/…` in the home folder, a relative path
/// below it.
fn resolve(home: &Path, path: &str) -> PathBuf {
    if path == "~" {
        return home.to_path_buf();
    }
    match path.strip_prefix("~/") {
        Some(rest) => home.join(rest),
        None => home.join(path),
    }
}

pub(crate) struct ClaudeAutoMemory;

impl FormatRules for ClaudeAutoMemory {
    fn format(&self) -> Format {
        Format::ClaudeAutoMemory
    }

    fn listing(&self) -> super::Listing {
        super::Listing::Folder
    }

    fn outside_project(&self, bank_root: &Path) -> Option<super::OutsideProject> {
        Some(super::OutsideProject {
            allowed_root: allowed_root(bank_root).to_path_buf(),
            home: home_of(bank_root).map(Path::to_path_buf),
        })
    }

    fn listing_problems(&self, bank_root: &Path) -> Vec<BankProblem> {
        home_of(bank_root)
            .and_then(settings_problem)
            .map(BankProblem::Settings)
            .into_iter()
            .collect()
    }

    // "The first 200 lines of MEMORY.md, or the first 25KB, whichever comes first, are
    // loaded at the start of every conversation" (https://code.claude.com/docs/en/memory,
    // section "Auto memory"); topic files are read on demand, never cut.
    fn file_limit(&self, rel: &Path) -> Option<super::FileLimit> {
        (rel == Path::new(INDEX)).then_some(super::FileLimit {
            agent: "Claude Code",
            max_lines: Some(MAX_LINES as usize),
            max_bytes: Some(MAX_BYTES as usize),
            max_chars: None,
            rule: "Claude Code auto memory: first 200 lines or 25 KB",
        })
    }

    fn on_demand_note(&self, count: usize) -> Option<String> {
        Some(format!(
            "{count} topic file(s) are read on demand, when Claude Code looks them up, and are \
             not counted here"
        ))
    }

    fn read_only(&self) -> Option<&'static str> {
        Some("Claude Code's auto memory belongs to Claude Code: mbank reads it, never writes it")
    }

    fn place(&self, rel: &Path) -> Placement {
        let (file_name, parents) = split_rel(rel);
        let is_md = file_name.ends_with(".md");
        let (role, layer, group, load) = if parents.is_empty() && file_name == INDEX {
            (Role::Active, Some(1), None, LoadKind::Startup)
        } else if is_md {
            (
                Role::Other,
                Some(2),
                Some("topics".into()),
                LoadKind::OnDemand,
            )
        } else {
            (Role::Other, None, None, LoadKind::Never)
        };
        Placement {
            role,
            layer,
            group,
            load,
        }
    }

    fn keeps(&self, rel: &Path) -> bool {
        rel.extension().is_some_and(|e| e == "md")
    }

    fn file_budgets(&self, file: &MemoryFile, _preset: Option<&str>) -> Vec<Budget> {
        if file.load != LoadKind::Startup || file.file_name() != INDEX {
            return Vec::new();
        }
        vec![
            Budget::new(
                "auto memory loads only the first 200 lines",
                RuleSource::ClaudeCode,
                Unit::Lines,
                MAX_LINES,
            )
            .cutting_off(),
            Budget::new(
                "auto memory loads only the first 25 KB",
                RuleSource::ClaudeCode,
                Unit::Bytes,
                MAX_BYTES,
            )
            .cutting_off(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_replace_every_non_alphanumeric_character() {
        assert_eq!(
            project_folder_name(Path::new("/Users/me/my_app.v2/web site")),
            "-Users-me-my-app-v2-web-site"
        );
        // Non-ASCII letters too, one dash per UTF-16 unit.
        assert_eq!(project_folder_name(Path::new("/p/Проект")), "-p-------");
        assert_eq!(project_folder_name(Path::new("/p/🦀")), "-p---");
        let folder = memory_folder(Path::new("/home/me"), Path::new("/w/app"));
        assert_eq!(folder, Path::new("/home/me/.claude/projects/-w-app/memory"));
        assert_eq!(home_of(&folder), Some(Path::new("/home/me")));
        assert_eq!(allowed_root(&folder), Path::new("/home/me"));
        let custom = Path::new("/sync/notes");
        assert_eq!((home_of(custom), allowed_root(custom)), (None, custom));
    }

    #[test]
    fn the_directory_setting_moves_auto_memory_and_a_broken_file_is_a_problem() {
        let home = tempfile::tempdir().unwrap();
        let home = home.path();
        let write = |text: &str| {
            std::fs::create_dir_all(home.join(".claude")).unwrap();
            std::fs::write(home.join(SETTINGS), text).unwrap();
        };
        let default = memory_folder(home, Path::new("/w/app"));
        std::fs::create_dir_all(&default).unwrap();
        std::fs::create_dir_all(home.join("sync/mem")).unwrap();
        // No settings file: the default place.
        assert_eq!(settings_problem(home), None);
        assert_eq!(
            find_memory_folder(home, Path::new("/w/app")),
            Some(default.clone())
        );
        write(r#"{"autoMemoryDirectory": "~/sync/mem", "model": "x"}"#);
        let place = AutoMemoryPlace::of_home(home);
        assert_eq!(place.find(Path::new("/w/app")), Some(home.join("sync/mem")));
        assert_eq!(
            place.find(Path::new("/w/other")),
            Some(home.join("sync/mem"))
        );
        write(r#"{"autoMemoryDirectory": "~/missing"}"#);
        assert_eq!(find_memory_folder(home, Path::new("/w/app")), None);
        // Broken: the default place, and a problem in words.
        write("{\"autoMemoryDirectory\": ");
        assert_eq!(find_memory_folder(home, Path::new("/w/app")), Some(default));
        let problem = settings_problem(home).unwrap();
        assert!(problem.contains("is not valid JSON (line 1"), "{problem}");
        write(r#"{"autoMemoryDirectory": 3}"#);
        assert!(settings_problem(home).unwrap().contains("is not a path"));
        write("\u{0}\u{1}binary");
        assert!(settings_problem(home).is_some());
    }

    #[test]
    fn memory_md_loads_at_start_and_topic_files_on_demand() {
        let index = ClaudeAutoMemory.place(Path::new("MEMORY.md"));
        assert_eq!((index.layer, index.load), (Some(1), LoadKind::Startup));
        let topic = ClaudeAutoMemory.place(Path::new("debugging.md"));
        assert_eq!(topic.load, LoadKind::OnDemand);
        let nested = ClaudeAutoMemory.place(Path::new("old/MEMORY.md"));
        assert_eq!(nested.load, LoadKind::OnDemand);
    }
}
