//! Kilo Code: project rules in `.kilocode/rules/` (every file, read recursively, at the
//! start of every task, after the global `~/.kilocode/rules/`), mode rules in
//! `.kilocode/rules-{mode}/` (read only in that mode), the legacy `.kilocoderules`, and the
//! memory bank Kilo's documentation describes: `.kilocode/rules/memory-bank/` with
//! `brief.md` (kept by the person), `product.md`, `context.md` (the current work),
//! `architecture.md`, `tech.md` and an optional `tasks.md`, read in full at the start of
//! every task. Kilo documents no size limit for rules or the bank, so no budget applies.
//! Kilo's rule loader reads `.kilocode/rules/` recursively and joins the files sorted by
//! file name, case aside, wherever they sit below it: the memory bank's files interleave
//! with the other rules (`architecture.md`, `brief.md`, `coding-style.md`, `context.md` …),
//! and the active mode's `rules-{mode}` files come before them.
//! The legacy `.kilocoderules` loads only when `.kilocode/rules/` holds no file, and then
//! only as the first non-empty of `.kilocoderules`, `.roorules` and `.clinerules` (Kilo's
//! "Custom Rules", kilo.ai/docs/customize/custom-rules; the order is its rule loader's);
//! Kilo also reads the AGENTS.md at the project's top by default ("agents.md",
//! kilo.ai/docs/agent-behavior/agents-md). Which of them a session loads is
//! `agents::Agent::reads`'s to say, from the whole project's files.
//! A `.kilocode/system-prompt-{mode}` file replaces the system prompt of its mode (as
//! Roo's `.roo/system-prompt-{mode}` does): it loads only in that mode's sessions.
//!
//! Kilo Memory ([`KiloMemory`]), the per-project memory that replaces the memory bank,
//! lives in Kilo's data folder, not in the project:
//! `<data>/memory/<project-slug>-<sha1-12>/` (`<data>` is `$XDG_DATA_HOME/kilo`, else
//! `~/.local/share/kilo`) with `project.md` (facts, decisions, constraints, open
//! questions), `environment.md` (commands, paths, tooling), `corrections.md`, session
//! digests in `sessions/`, and index and state files Kilo manages itself. Kilo does not
//! document what the hash is taken of, so mbank never computes it: a folder belongs to a
//! project when its slug is the project folder's name (case and separators aside) and no
//! other memory folder has that slug. mbank reads it and never writes it. The three
//! source files are counted as loaded at session start (the memory's purpose is that the
//! agent need not be told them again), the session digests as read on demand; Kilo
//! documents no size limit.
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use super::{FormatRules, Listing, OutsideProject, Placement, ProjectPaths, names, split_rel};
use crate::model::{Format, LoadKind, Role};

pub(crate) const RULES_DIR: &str = ".kilocode/rules";
pub(crate) const MEMORY_BANK_DIR: &str = ".kilocode/rules/memory-bank";
pub(crate) const LEGACY_FILE: &str = ".kilocoderules";
/// The single rule files Kilo Code falls back to when `.kilocode/rules/` holds no file,
/// in its rule loader's order: the first non-empty one loads.
pub(crate) const LEGACY_ORDER: [&str; 3] = [
    LEGACY_FILE,
    super::roo_rules::ROORULES,
    super::roo_rules::CLINERULES,
];
/// The read-order layer of `.kilocode/rules/` (the memory bank included); the active
/// mode's rules come one layer before, the legacy file one after.
const RULES_LAYER: u8 = 7;
/// The memory bank's five core files in the order Kilo's documentation introduces them,
/// as `mbank init` creates them.
pub(crate) const TEMPLATES: [(&str, &str); 5] = [
    (
        "brief.md",
        include_str!("../../../../assets/templates/kilo-code/brief.md"),
    ),
    (
        "product.md",
        include_str!("../../../../assets/templates/kilo-code/product.md"),
    ),
    (
        "context.md",
        include_str!("../../../../assets/templates/kilo-code/context.md"),
    ),
    (
        "architecture.md",
        include_str!("../../../../assets/templates/kilo-code/architecture.md"),
    ),
    (
        "tech.md",
        include_str!("../../../../assets/templates/kilo-code/tech.md"),
    ),
];
const PATHS: ProjectPaths = ProjectPaths {
    files: &[LEGACY_FILE],
    folders: &[".kilocode"],
    lookalikes: &[],
};

pub struct KiloCode;

/// The role of a memory-bank file by Kilo's own names; other names keep the role the
/// family's name table gives them (`projectbrief.md` in a hand-made bank).
fn memory_bank_role(file_name: &str) -> Role {
    match names::name_key(file_name).as_str() {
        "brief" => Role::Brief,
        "product" => Role::Product,
        "context" => Role::Active,
        "architecture" => Role::Patterns,
        "tech" => Role::Tech,
        _ => names::role_for_name(file_name).unwrap_or(Role::Other),
    }
}

/// `.kilocode/system-prompt-code` → `code`: the mode whose system prompt the file replaces.
pub(crate) fn system_prompt_override(rel: &Path) -> Option<&str> {
    let mut parts = rel.components().map(|c| c.as_os_str().to_str());
    match (parts.next(), parts.next(), parts.next()) {
        (Some(Some(".kilocode")), Some(Some(name)), None) => name
            .strip_prefix("system-prompt-")
            .filter(|mode| !mode.is_empty()),
        _ => None,
    }
}

/// The mode of a `.kilocode/rules-{mode}/` path.
fn mode_folder(rel: &Path) -> Option<&str> {
    let mut parts = rel.components();
    if parts.next() != Some(Component::Normal(OsStr::new(".kilocode"))) {
        return None;
    }
    match parts.next() {
        Some(Component::Normal(folder)) => folder.to_str()?.strip_prefix("rules-"),
        _ => None,
    }
}

impl FormatRules for KiloCode {
    fn format(&self) -> Format {
        Format::KiloCode
    }

    fn place(&self, rel: &Path) -> Placement {
        let file_name = rel
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let (role, layer, group, load) = if rel == Path::new(LEGACY_FILE) {
            (Role::Rules, Some(8), None, LoadKind::Startup)
        } else if rel.parent() == Some(Path::new(MEMORY_BANK_DIR)) {
            let role = memory_bank_role(&file_name);
            let load = if names::is_markdown(&file_name) {
                LoadKind::Startup
            } else {
                LoadKind::Never
            };
            // The memory bank is part of the rules folder: read with it, in name order.
            (
                role,
                Some(RULES_LAYER),
                Some("memory-bank".to_string()),
                load,
            )
        } else if rel.starts_with(RULES_DIR) {
            // Kilo reads the rules folder recursively, archives included, but leaves out
            // the cache and backup files Roo's loader, which it shares, skips.
            let load = if super::roo_rules::skipped_by_the_rule_loader(&file_name) {
                LoadKind::Never
            } else {
                LoadKind::Startup
            };
            (Role::Rules, Some(RULES_LAYER), Some("rules".into()), load)
        } else if let Some(mode) = system_prompt_override(rel) {
            // Replaces the system prompt, in its mode's sessions only.
            (
                Role::Instructions,
                None,
                Some(format!("system-prompt-{mode}")),
                LoadKind::OnDemand,
            )
        } else if let Some(mode) = mode_folder(rel) {
            // A mode's rules load in its sessions; a task starts in Code mode, so listings
            // and totals count Code's (Kilo's mode rules, like Roo's it forks, are
            // `rules-{mode}` of the active mode).
            let load = if mode == super::roo_rules::DEFAULT_MODE {
                LoadKind::Startup
            } else {
                LoadKind::OnDemand
            };
            // Before the rules folder: Kilo puts the mode's rules first.
            (
                Role::Rules,
                Some(RULES_LAYER - 1),
                Some(format!("rules-{mode}")),
                load,
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
        PATHS.contains(rel)
    }

    fn project_paths(&self) -> ProjectPaths {
        PATHS
    }

    fn orders_by_file_name(&self) -> bool {
        true
    }
}

/// The three source files of Kilo Memory, in the order they are shown.
pub(crate) const MEMORY_SOURCES: [&str; 3] = ["project.md", "environment.md", "corrections.md"];
/// The folder of session digests.
pub(crate) const SESSIONS_DIR: &str = "sessions";
/// Kilo's data folder below `$XDG_DATA_HOME` (or `~/.local/share`), and its memory folder.
const DATA_DIR: &str = "kilo";
const MEMORY_DIR: &str = "memory";
/// The data folder below the home folder when `XDG_DATA_HOME` is not set.
const DEFAULT_DATA_HOME: &str = ".local/share";
/// Length of the hash that ends a memory folder's name.
const HASH_LEN: usize = 12;
/// More memory folders than anyone keeps: the rest are not looked at.
const MAX_MEMORY_FOLDERS: usize = 100_000;

/// Where Kilo keeps project memory: `<xdg_data_home>/kilo/memory` when given (absolute),
/// else `<home>/.local/share/kilo/memory`.
pub(crate) fn memory_root(home: &Path, xdg_data_home: Option<&Path>) -> PathBuf {
    xdg_data_home
        .filter(|dir| dir.is_absolute())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| home.join(DEFAULT_DATA_HOME))
        .join(DATA_DIR)
        .join(MEMORY_DIR)
}

/// The slug of a memory folder's name (`my-app` of `my-app-0123456789ab`), matched on
/// letters and digits only; `None` for a name that does not end in the hash.
fn slug_key(folder_name: &str) -> Option<String> {
    let (slug, hash) = folder_name.rsplit_once('-')?;
    let is_hash = hash.len() == HASH_LEN && hash.bytes().all(|b| b.is_ascii_hexdigit());
    (is_hash && !slug.is_empty()).then(|| name_key(slug))
}

fn name_key(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The memory folders of one data folder, read once per scan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct KiloMemoryPlace {
    /// Slug key → the folders with that slug (more than one: nobody can tell which).
    folders: std::collections::HashMap<String, Vec<PathBuf>>,
}

impl KiloMemoryPlace {
    /// Lists `memory_root` (see [`memory_root`]); a missing folder holds nothing.
    pub(crate) fn of_root(memory_root: &Path) -> KiloMemoryPlace {
        let mut folders: std::collections::HashMap<String, Vec<PathBuf>> = Default::default();
        if let Ok(entries) = std::fs::read_dir(memory_root) {
            for entry in entries.filter_map(Result::ok).take(MAX_MEMORY_FOLDERS) {
                let Some(key) = entry.file_name().to_str().and_then(slug_key) else {
                    continue;
                };
                folders.entry(key).or_default().push(entry.path());
            }
        }
        KiloMemoryPlace { folders }
    }

    /// The project's memory folder: the one folder whose slug is the project folder's
    /// name, when it is a folder.
    pub fn find(&self, project: &Path) -> Option<PathBuf> {
        if self.folders.is_empty() {
            return None;
        }
        let name = project.file_name()?.to_str()?;
        match self.folders.get(&name_key(name))?.as_slice() {
            [only] if only.is_dir() => Some(only.clone()),
            _ => None,
        }
    }
}

pub(crate) struct KiloMemory;

impl FormatRules for KiloMemory {
    fn format(&self) -> Format {
        Format::KiloMemory
    }

    fn place(&self, rel: &Path) -> Placement {
        let (file_name, parents) = split_rel(rel);
        let is_md = names::is_markdown(&file_name);
        let source = MEMORY_SOURCES.iter().position(|s| *s == file_name);
        let (role, layer, group, load) = match (parents.as_slice(), source) {
            ([], Some(i)) => {
                let role = if i == 1 { Role::Tech } else { Role::Active };
                (role, u8::try_from(i + 1).ok(), None, LoadKind::Startup)
            }
            ([sessions, ..], _) if sessions == SESSIONS_DIR && is_md => (
                Role::Session,
                Some(4),
                Some(SESSIONS_DIR.to_string()),
                LoadKind::OnDemand,
            ),
            // Kilo's own index and state files.
            _ => (Role::Other, None, None, LoadKind::Never),
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

    fn listing(&self) -> Listing {
        Listing::Folder
    }

    /// The folder is its own allowed root: nothing in it may lead out of it.
    fn outside_project(&self, bank_root: &Path) -> Option<OutsideProject> {
        Some(OutsideProject {
            allowed_root: bank_root.to_path_buf(),
            home: None,
        })
    }

    fn read_only(&self) -> Option<&'static str> {
        Some("Kilo Memory belongs to Kilo: mbank reads it, never writes it")
    }

    fn on_demand_note(&self, count: usize) -> Option<String> {
        Some(format!(
            "{count} session digest(s) are read on demand, when Kilo recalls them, and are \
             not counted here"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placed(rel: &str) -> (Role, Option<u8>, LoadKind) {
        let p = KiloCode.place(Path::new(rel));
        (p.role, p.layer, p.load)
    }

    #[test]
    fn the_memory_bank_loads_at_start_with_the_rules_and_kilos_roles() {
        assert_eq!(
            placed(".kilocode/rules/memory-bank/brief.md"),
            (Role::Brief, Some(7), LoadKind::Startup)
        );
        assert_eq!(
            placed(".kilocode/rules/memory-bank/context.md"),
            (Role::Active, Some(7), LoadKind::Startup)
        );
        assert_eq!(
            placed(".kilocode/rules/memory-bank/architecture.md"),
            (Role::Patterns, Some(7), LoadKind::Startup)
        );
        assert_eq!(
            placed(".kilocode/rules/memory-bank/tasks.md"),
            (Role::Other, Some(7), LoadKind::Startup)
        );
        assert_eq!(
            placed(".kilocode/rules/memory-bank/implementation-status.md"),
            (Role::Other, Some(7), LoadKind::Startup)
        );
        assert!(KiloCode.orders_by_file_name());
        let mode = KiloCode.place(Path::new(".kilocode/rules-code/style.md"));
        assert!(mode.layer < placed(".kilocode/rules/a.md").1);
    }

    #[test]
    fn a_system_prompt_override_is_kilos_and_loads_only_in_its_mode() {
        let p = KiloCode.place(Path::new(".kilocode/system-prompt-code"));
        assert_eq!((p.role, p.load), (Role::Instructions, LoadKind::OnDemand));
        assert_eq!(p.group.as_deref(), Some("system-prompt-code"));
        assert_eq!(
            system_prompt_override(Path::new(".kilocode/system-prompt-architect")),
            Some("architect")
        );
        assert_eq!(
            system_prompt_override(Path::new(".kilocode/rules/system-prompt-x")),
            None
        );
        assert_eq!(
            system_prompt_override(Path::new(".kilocode/system-prompt-")),
            None
        );
        assert_eq!(
            system_prompt_override(Path::new(".roo/system-prompt-code")),
            None
        );
        assert!(KiloCode.keeps(Path::new(".kilocode/system-prompt-code")));
    }

    #[test]
    fn kilo_memory_is_found_by_its_slug_and_never_guessed_between_two() {
        let data = tempfile::tempdir().unwrap();
        let root = memory_root(data.path(), None);
        assert_eq!(root, data.path().join(".local/share/kilo/memory"));
        assert_eq!(
            memory_root(data.path(), Some(Path::new("/x/data"))),
            Path::new("/x/data/kilo/memory")
        );
        // A relative XDG_DATA_HOME is not used (the XDG rule).
        assert_eq!(memory_root(data.path(), Some(Path::new("rel"))), root);
        for name in [
            "my-app-0123456789ab",
            "twin-aaaaaaaaaaaa",
            "twin-bbbbbbbbbbbb",
            "nohash-xyz",
        ] {
            std::fs::create_dir_all(root.join(name)).unwrap();
        }
        std::fs::write(root.join("file-0123456789ab"), "").unwrap();
        let place = KiloMemoryPlace::of_root(&root);
        assert_eq!(
            place.find(Path::new("/w/My_App")),
            Some(root.join("my-app-0123456789ab"))
        );
        assert_eq!(place.find(Path::new("/w/twin")), None);
        assert_eq!(place.find(Path::new("/w/nohash")), None);
        assert_eq!(place.find(Path::new("/w/file")), None);
        assert_eq!(
            KiloMemoryPlace::of_root(&data.path().join("none")).find(Path::new("/w/my-app")),
            None
        );
    }

    #[test]
    fn kilo_memorys_sources_load_at_start_and_session_digests_on_demand() {
        let placed = |rel: &str| {
            let p = KiloMemory.place(Path::new(rel));
            (p.role, p.load)
        };
        assert_eq!(placed("project.md"), (Role::Active, LoadKind::Startup));
        assert_eq!(placed("environment.md"), (Role::Tech, LoadKind::Startup));
        assert_eq!(placed("corrections.md"), (Role::Active, LoadKind::Startup));
        assert_eq!(
            placed("sessions/2026-05-01.md"),
            (Role::Session, LoadKind::OnDemand)
        );
        assert_eq!(placed("index.json"), (Role::Other, LoadKind::Never));
        assert_eq!(placed("notes/project.md"), (Role::Other, LoadKind::Never));
        assert!(KiloMemory.read_only().is_some());
    }

    #[test]
    fn project_rules_load_always_and_mode_rules_only_in_their_mode() {
        assert_eq!(
            placed(".kilocode/rules/memory-bank-instructions.md"),
            (Role::Rules, Some(7), LoadKind::Startup)
        );
        assert_eq!(
            placed(".kilocoderules"),
            (Role::Rules, Some(8), LoadKind::Startup)
        );
        let p = KiloCode.place(Path::new(".kilocode/rules-debug/style.md"));
        assert_eq!((p.role, p.load), (Role::Rules, LoadKind::OnDemand));
        assert_eq!(p.group.as_deref(), Some("rules-debug"));
        // A task starts in Code mode: its rules load with the project's.
        let p = KiloCode.place(Path::new(".kilocode/rules-code/style.md"));
        assert_eq!((p.role, p.load), (Role::Rules, LoadKind::Startup));
        assert_eq!(
            placed(".kilocode/mcp.json"),
            (Role::Other, None, LoadKind::Never)
        );
        assert_eq!(
            placed(".kilocode/rules/old/notes.md.bak"),
            (Role::Rules, Some(7), LoadKind::Never)
        );
    }
}
