//! Cline/Roo rule and mode files in the project folder: `.clinerules` (a file or a
//! folder of rules) and `.roo/rules/` load at every start; `.roomodes` (the custom modes'
//! definitions) loads at every start too; the mode files `.clinerules-{mode}` /
//! `.roorules-{mode}` and `.roo/rules-{mode}/` load at the start of a session in their
//! mode. Listings and loaded totals follow the default mode, Roo Code's Code mode
//! (`DEFAULT_MODE`); `mbank context --mode NAME` shows another (`load_in_mode`).
//! `modes` parses the mode files. Roo Code itself reads `.roo/rules/` when it holds a
//! file, else the first non-empty of `.roorules` and `.clinerules` (a file), Cline its
//! `.clinerules` (file or folder) whatever Roo's folder holds: which one a session loads
//! is `agents::Agent::reads`'s to say ("Custom Instructions",
//! docs.roocode.com/features/custom-instructions). Both read `.clinerules` only at the
//! workspace root: one left in a sub-folder is listed with the project, loading never,
//! and named as misplaced (`misplaced_clinerules`).
//!
//! What Roo Code sends of them (its prompt builder, `docs.roocode.com`): `.roomodes` not
//! whole but the active mode's definition in full and one line per other mode in the
//! list of modes (`modes::roomodes_as_sent`); a `.roo/system-prompt-{mode}` file
//! (`system_prompt_override`) replaces the system prompt of its mode: its text is sent
//! with the mode's role definition and custom instructions, and the list of modes, the
//! tool descriptions and Roo's own rules are not. Listings count a `.roomodes` whole;
//! `mbank context` counts what is sent.
//!
//! Budgets: Roo Code and Cline document no size limit for rule files (they go into the
//! system prompt whole), so this format has none of its own; the memory bank's budget
//! (Cline's memory bank guidelines) is not theirs. `config.toml` may set one under
//! `[budgets.formats.roo-rules]`.
use std::path::Path;

use super::{FormatRules, Placement, split_rel};
use crate::model::{Bank, Format, LoadKind, MemoryFile, Role};

/// The mode a Roo Code session starts in unless the user picks another.
pub(crate) const DEFAULT_MODE: &str = "code";

/// Roo Code's built-in modes.
pub(crate) const BUILT_IN_MODES: [&str; 5] = ["code", "architect", "ask", "debug", "orchestrator"];

pub mod modes;

pub struct RooRules;

impl FormatRules for RooRules {
    fn format(&self) -> Format {
        Format::RooRules
    }

    /// Roo sends a rule file whole and reads no frontmatter, so YAML it would reject is
    /// no finding: nothing in Roo parses it.
    fn lenient_frontmatter(&self) -> bool {
        true
    }

    fn place(&self, rel: &Path) -> Placement {
        let (file_name, parents) = split_rel(rel);
        place(&file_name, &parents)
    }

    fn keeps(&self, rel: &Path) -> bool {
        let mut components = rel.components();
        let first = components.next().map(|c| c.as_os_str());
        let single = components.next().is_none();
        let name = rel
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        // `.clinerules` in a sub-folder too: listed there, loading never.
        first.is_some_and(|f| f == ".roo")
            || rel.iter().any(|part| part == CLINERULES)
            || (single
                && (name == ".roomodes" || name == ROORULES || mode_of_rule_file(&name).is_some()))
    }

    fn default_mode(&self) -> Option<&'static str> {
        Some(DEFAULT_MODE)
    }

    fn holds_mode_rules(&self) -> bool {
        true
    }

    fn top_markers(&self) -> super::TopMarkers {
        super::TopMarkers {
            names: &[ROOMODES, ROO_DIR, CLINERULES, ROORULES],
            prefixes: &MODE_RULE_PREFIXES,
        }
    }

    /// Cline reads `.clinerules` only at the workspace root ("Cline Rules",
    /// docs.cline.bot/features/cline-rules/overview), Roo Code too: one in a sub-folder
    /// is listed, loading never, for `misplaced_clinerules` to name.
    fn top_only_entries(&self) -> &'static [&'static str] {
        &[CLINERULES]
    }

    /// A markdown rule in the workspace's `.clinerules/` folder: its frontmatter may scope
    /// it to some files.
    fn reads_frontmatter(&self, rel: &Path) -> bool {
        in_clinerules_folder(rel)
    }

    /// Cline's conditional rules (docs.cline.bot, "Conditional Rules"): a rule whose
    /// frontmatter lists `paths` activates only when files matching them are part of the
    /// task (open, mentioned or edited), never at the start; every other rule there loads
    /// with each task.
    fn frontmatter_load(&self, _rel: &Path, text: &str) -> Option<LoadKind> {
        let scoped = !super::rule_frontmatter::read(text).list("paths").is_empty();
        Some(if scoped {
            LoadKind::OnDemand
        } else {
            LoadKind::Startup
        })
    }

    fn listing(&self) -> super::Listing {
        super::Listing::TopEntries {
            is_rule_file: is_top_rule_file,
            folders: &[CLINERULES, ROO_DIR],
        }
    }
}

/// Whether `rel` (relative to the project) is a markdown rule in the workspace's
/// `.clinerules/` folder.
fn in_clinerules_folder(rel: &Path) -> bool {
    let mut parts = rel.components();
    parts
        .next()
        .is_some_and(|first| first.as_os_str() == CLINERULES)
        && parts.next().is_some()
        && rel
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("md"))
}

/// A mode's rule file at the project's top: `.clinerules-{mode}`, `.roorules-{mode}`.
pub(crate) const MODE_RULE_PREFIXES: [&str; 2] = [".clinerules-", ".roorules-"];

/// Cline's rules at the project's top: a file, or (newer Cline) a folder of rule files.
pub(crate) const CLINERULES: &str = ".clinerules";

/// Roo Code's single-file rules at the project's top, read when `.roo/rules/` holds
/// no file ("Custom Instructions", docs.roocode.com/features/custom-instructions).
pub(crate) const ROORULES: &str = ".roorules";

/// The single rule files Roo Code falls back to, in its order: the first non-empty one
/// loads.
pub(crate) const LEGACY_ORDER: [&str; 2] = [ROORULES, CLINERULES];

/// The finding on a `.clinerules` file or folder below the workspace root (`rel`
/// relative to the project): Cline takes `.clinerules` as its rules only at the root
/// ("Cline Rules", docs.cline.bot/features/cline-rules/overview), so there it is no rule.
pub(crate) fn misplaced_clinerules(
    file: &crate::model::MemoryFile,
    rel: &Path,
) -> Option<crate::findings::Finding> {
    let at = rel.iter().position(|part| part == CLINERULES)?;
    if at == 0 {
        return None;
    }
    let folder: std::path::PathBuf = rel.iter().take(at + 1).collect();
    Some(crate::findings::Finding::new(
        crate::findings::Severity::Warning,
        crate::findings::FindingCode::InstructionsMisnamed,
        &file.path,
        None,
        format!(
            "{}: Cline takes {CLINERULES} as its rules only at the workspace root, so {} \
             is none of its rules; move it to the project's top",
            file.display,
            folder.display()
        ),
    ))
}

/// Whether a path relative to the project is a file of `.roo/rules/` the rule loader reads.
pub(crate) fn in_rules_folder(rel: &Path) -> bool {
    rel.starts_with(Path::new(ROO_DIR).join("rules"))
        && rel
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| !skipped_by_the_rule_loader(n))
}

/// Whether a file at the project's top is one of Roo's (or Cline's) rule files:
/// `.clinerules`, `.roorules`, `.roomodes`, or a mode's `.clinerules-{mode}` /
/// `.roorules-{mode}`.
pub(crate) fn is_top_rule_file(name: &str) -> bool {
    name == CLINERULES || name == ROORULES || name == ROOMODES || mode_of_rule_file(name).is_some()
}

/// The name of the file holding Roo Code's custom modes, at the project's top.
pub const ROOMODES: &str = ".roomodes";
/// Roo Code's folder of rules, mode rules and system prompt overrides.
pub(crate) const ROO_DIR: &str = ".roo";

/// `.roo/system-prompt-code` → `code`: the mode whose system prompt the file replaces.
pub(crate) fn system_prompt_override(rel: &Path) -> Option<&str> {
    let mut parts = rel.components().map(|c| c.as_os_str().to_str());
    match (parts.next(), parts.next(), parts.next()) {
        (Some(Some(".roo")), Some(Some(name)), None) => name
            .strip_prefix("system-prompt-")
            .filter(|mode| !mode.is_empty()),
        _ => None,
    }
}

/// Whether a path relative to the project is its `.roomodes`.
pub(crate) fn is_roomodes(rel: &Path) -> bool {
    rel == Path::new(ROOMODES)
}

/// The mode a rule file belongs to, from its path relative to the project folder:
/// `.clinerules-code` and `.roorules-code` at the top, files under `.roo/rules-code/`,
/// and the system prompt override `.roo/system-prompt-code`.
pub(crate) fn mode_of_path(rel: &Path) -> Option<String> {
    if let Some(mode) = system_prompt_override(rel) {
        return Some(mode.to_string());
    }
    let (file_name, parents) = split_rel(rel);
    match parents.as_slice() {
        [] => mode_of_rule_file(&file_name).map(str::to_string),
        [roo, folder, ..] if roo == ".roo" => folder
            .strip_prefix("rules-")
            .filter(|m| !m.is_empty())
            .map(str::to_string),
        _ => None,
    }
}

/// When a file of a rules bank rooted at `root` loads in a session of `mode`: the
/// mode's own rule files at the start, other modes' never in it (on demand: when the
/// user switches), everything else as listed.
pub(crate) fn load_in_mode(root: &Path, file: &MemoryFile, mode: &str) -> LoadKind {
    let rel = file.path.strip_prefix(root).unwrap_or(&file.path);
    if file.load == LoadKind::Never {
        return LoadKind::Never;
    }
    match mode_of_path(rel) {
        Some(m) if m == mode => LoadKind::Startup,
        Some(_) => LoadKind::OnDemand,
        None => file.load,
    }
}

/// `.clinerules-code` → `code`, `.roorules-debug` → `debug`.
pub(crate) fn mode_of_rule_file(file_name: &str) -> Option<&str> {
    MODE_RULE_PREFIXES
        .iter()
        .find_map(|prefix| file_name.strip_prefix(prefix))
        .filter(|m| !m.is_empty())
}

/// `.roomodes` or a mode rule file at the top of the bank (the project folder).
pub(crate) fn is_mode_file(bank: &Bank, file: &MemoryFile) -> bool {
    let name = file.file_name();
    file.path.parent() == Some(bank.root.as_path())
        && (name == ".roomodes" || mode_of_rule_file(&name).is_some())
}

/// A mode's rule files load at start in the default mode's sessions, which listings and
/// totals follow.
/// File name endings of the cache, backup and system files Roo Code's rule loader leaves
/// out of its rule folders (Kilo Code's, a fork of it, too): `notes.md.old` is never sent.
const SKIPPED_BY_THE_RULE_LOADER: [&str; 21] = [
    ".DS_Store",
    ".bak",
    ".cache",
    ".crdownload",
    ".db",
    ".dmp",
    ".dump",
    ".eslintcache",
    ".lock",
    ".log",
    ".old",
    ".part",
    ".partial",
    ".pyc",
    ".pyo",
    ".stackdump",
    ".swo",
    ".swp",
    ".temp",
    ".tmp",
    "Thumbs.db",
];

/// Whether the rule loader of Roo Code (and Kilo Code) leaves `file_name` out of a rule
/// folder it reads.
pub(crate) fn skipped_by_the_rule_loader(file_name: &str) -> bool {
    SKIPPED_BY_THE_RULE_LOADER
        .iter()
        .any(|ending| file_name.ends_with(ending))
}

/// What a file in one of `.roo`'s rule folders loads as: `load`, unless the loader skips it.
fn rule_folder_load(file_name: &str, load: LoadKind) -> LoadKind {
    if skipped_by_the_rule_loader(file_name) {
        LoadKind::Never
    } else {
        load
    }
}

fn mode_load(mode: &str) -> LoadKind {
    if mode == DEFAULT_MODE {
        LoadKind::Startup
    } else {
        LoadKind::OnDemand
    }
}

/// The role of one of the Cline memory bank's six core files (`activeContext.md`,
/// `progress.md` …), by its name in any spelling, at the folder's top or in a
/// `memory-bank/` below it; none for another name, whose text instructs, or elsewhere
/// (`workflows/progress.md` is a workflow).
fn clinerules_memory_role(file_name: &str, below: &[String]) -> Option<Role> {
    let in_bank = match below {
        [] => true,
        [folder] => super::names::same_name_key(folder, super::cline::BANK_DIR),
        _ => false,
    };
    if !in_bank {
        return None;
    }
    super::cline::CLINE_DOCUMENTED_ROLES
        .into_iter()
        .find(|role| {
            super::cline::file_for(*role)
                .is_some_and(|name| super::names::same_name_key(name, file_name))
        })
}

fn place(file_name: &str, parents: &[String]) -> Placement {
    let first = parents.first().map(String::as_str);
    let (role, layer, group, load) = match first {
        None if file_name == CLINERULES || file_name == ROORULES => {
            (Role::Rules, Some(1), None, LoadKind::Startup)
        }
        // Roo Code reads the custom modes' definitions when a session starts.
        None if file_name == ".roomodes" => (Role::Config, Some(2), None, LoadKind::Startup),
        None if mode_of_rule_file(file_name).is_some() => (
            Role::Rules,
            Some(3),
            None,
            mode_load(mode_of_rule_file(file_name).unwrap_or_default()),
        ),
        // .clinerules/ as a folder of rule files (newer Cline); a memory bank kept there
        // (`.clinerules/memory-bank/activeContext.md`) is memory, read at every start.
        Some(".clinerules") => (
            clinerules_memory_role(file_name, &parents[1..]).unwrap_or(Role::Rules),
            Some(1),
            Some(".clinerules".to_string()),
            LoadKind::Startup,
        ),
        Some(".roo") => {
            let sub = parents.get(1).map(String::as_str);
            match sub {
                Some("rules") => (
                    Role::Rules,
                    Some(1),
                    Some("rules".into()),
                    rule_folder_load(file_name, LoadKind::Startup),
                ),
                Some(s) if s.starts_with("rules-") => (
                    Role::Rules,
                    Some(3),
                    Some(s.to_string()),
                    rule_folder_load(file_name, mode_load(&s["rules-".len()..])),
                ),
                Some(s) => (Role::Other, None, Some(s.to_string()), LoadKind::Never),
                // Replaces the system prompt of its mode, at the start of its sessions.
                None if file_name.starts_with("system-prompt-") => (
                    Role::Instructions,
                    Some(3),
                    None,
                    mode_load(&file_name["system-prompt-".len()..]),
                ),
                None => (Role::Config, None, None, LoadKind::Never),
            }
        }
        _ => (Role::Other, None, parents.first().cloned(), LoadKind::Never),
    };
    Placement {
        role,
        layer,
        group,
        load,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clinerules_rule_with_paths_loads_on_demand() {
        let rel = Path::new(".clinerules/react.md");
        assert!(RooRules.reads_frontmatter(rel));
        assert!(!RooRules.reads_frontmatter(Path::new(".clinerules")));
        assert!(!RooRules.reads_frontmatter(Path::new("web/.clinerules/react.md")));
        assert!(!RooRules.reads_frontmatter(Path::new(".roo/rules/react.md")));
        let scoped = "---\npaths:\n  - \"src/components/**\"\n---\n# React\n";
        assert_eq!(
            RooRules.frontmatter_load(rel, scoped),
            Some(LoadKind::OnDemand)
        );
        let inline = "---\npaths: [\"src/**\"]\n---\n# Src\n";
        assert_eq!(
            RooRules.frontmatter_load(rel, inline),
            Some(LoadKind::OnDemand)
        );
        assert_eq!(
            RooRules.frontmatter_load(rel, "# Always\n"),
            Some(LoadKind::Startup)
        );
        assert_eq!(
            RooRules.frontmatter_load(rel, "---\npaths: []\n---\n# R\n"),
            Some(LoadKind::Startup)
        );
    }
    use std::path::PathBuf;

    #[test]
    fn a_clinerules_below_the_top_is_kept_but_never_loads() {
        for rel in [
            "sub/.clinerules",
            "pkg/.clinerules/style.md",
            "a/b/c/.clinerules",
        ] {
            let rel = Path::new(rel);
            assert!(RooRules.keeps(rel), "{}", rel.display());
            assert_eq!(
                RooRules.place(rel).load,
                LoadKind::Never,
                "{}",
                rel.display()
            );
        }
        for rel in [".clinerules", ".clinerules/style.md"] {
            let rel = Path::new(rel);
            assert!(RooRules.keeps(rel), "{}", rel.display());
            assert_eq!(
                RooRules.place(rel).load,
                LoadKind::Startup,
                "{}",
                rel.display()
            );
        }
        assert!(!RooRules.keeps(Path::new("sub/.roomodes")));
    }

    #[test]
    fn the_default_modes_files_and_roomodes_load_at_start() {
        for rel in [
            ".clinerules-code",
            ".roorules-code",
            ".roo/rules-code/a.md",
            ".roomodes",
        ] {
            assert_eq!(
                RooRules.place(&PathBuf::from(rel)).load,
                LoadKind::Startup,
                "{rel}"
            );
        }
        assert_eq!(
            mode_of_path(Path::new(".roo/rules-debug/x.md")).as_deref(),
            Some("debug")
        );
        assert_eq!(
            mode_of_path(Path::new(".clinerules-ask")).as_deref(),
            Some("ask")
        );
        assert_eq!(mode_of_path(Path::new(".roo/rules/x.md")), None);
        let file = |rel: &str| MemoryFile {
            path: Path::new("/p").join(rel),
            display: rel.into(),
            role: Role::Rules,
            layer: Some(3),
            order: 0,
            group: None,
            load: RooRules.place(Path::new(rel)).load,
            size: 0,
            modified: None,
            changed: None,
            inode: None,
            memory: None,
            unreadable: None,
        };
        let root = Path::new("/p");
        assert_eq!(
            load_in_mode(root, &file(".clinerules-debug"), "debug"),
            LoadKind::Startup
        );
        assert_eq!(
            load_in_mode(root, &file(".clinerules-code"), "debug"),
            LoadKind::OnDemand
        );
        assert_eq!(
            load_in_mode(root, &file(".roomodes"), "debug"),
            LoadKind::Startup
        );
    }

    #[test]
    fn a_memory_bank_kept_in_the_rules_folder_is_memory_and_its_workflows_rules() {
        let role = |rel: &str| RooRules.place(Path::new(rel)).role;
        assert_eq!(
            role(".clinerules/memory-bank/activeContext.md"),
            Role::Active
        );
        assert_eq!(role(".clinerules/memory-bank/projectbrief.md"), Role::Brief);
        assert_eq!(role(".clinerules/progress.md"), Role::Progress);
        assert_eq!(role(".clinerules/workflows/progress.md"), Role::Rules);
        assert_eq!(role(".clinerules/coding-style.md"), Role::Rules);
        assert_eq!(role(".clinerules/memory-bank/notes.md"), Role::Rules);
        assert_eq!(
            RooRules
                .place(Path::new(".clinerules/memory-bank/techContext.md"))
                .load,
            LoadKind::Startup
        );
    }

    #[test]
    fn backup_and_cache_files_in_rule_folders_never_load_in_any_mode() {
        for rel in [
            ".roo/rules/notes.md.old",
            ".roo/rules/sub/x.md.bak",
            ".roo/rules/.DS_Store",
            ".roo/rules-debug/trace.log",
            ".roo/rules-code/draft.md.swp",
        ] {
            let placed = RooRules.place(Path::new(rel));
            assert_eq!(placed.load, LoadKind::Never, "{rel}");
            let file = MemoryFile {
                path: Path::new("/p").join(rel),
                display: rel.into(),
                role: placed.role,
                layer: placed.layer,
                order: 0,
                group: placed.group,
                load: placed.load,
                size: 0,
                modified: None,
                changed: None,
                inode: None,
                memory: None,
                unreadable: None,
            };
            for mode in ["code", "debug"] {
                assert_eq!(
                    load_in_mode(Path::new("/p"), &file, mode),
                    LoadKind::Never,
                    "{rel} in {mode}"
                );
            }
        }
        assert_eq!(
            RooRules.place(Path::new(".roo/rules/old-notes.md")).load,
            LoadKind::Startup
        );
    }

    #[test]
    fn a_system_prompt_override_loads_in_its_modes_sessions() {
        let code = Path::new(".roo/system-prompt-code");
        let debug = Path::new(".roo/system-prompt-debug");
        assert_eq!(system_prompt_override(code), Some("code"));
        assert_eq!(
            system_prompt_override(Path::new(".roo/rules/system-prompt-x")),
            None
        );
        assert_eq!(
            system_prompt_override(Path::new(".roo/system-prompt-")),
            None
        );
        assert_eq!(mode_of_path(debug).as_deref(), Some("debug"));
        assert_eq!(RooRules.place(code).load, LoadKind::Startup);
        assert_eq!(RooRules.place(debug).load, LoadKind::OnDemand);
        let file = MemoryFile {
            path: Path::new("/p").join(debug),
            display: ".roo/system-prompt-debug".into(),
            role: Role::Instructions,
            layer: Some(3),
            order: 0,
            group: None,
            load: LoadKind::OnDemand,
            size: 0,
            modified: None,
            changed: None,
            inode: None,
            memory: None,
            unreadable: None,
        };
        assert_eq!(
            load_in_mode(Path::new("/p"), &file, "debug"),
            LoadKind::Startup
        );
        assert_eq!(
            load_in_mode(Path::new("/p"), &file, "code"),
            LoadKind::OnDemand
        );
    }

    #[test]
    fn roo_mode_files_load_on_demand() {
        assert_eq!(
            mode_of_rule_file(".clinerules-architect"),
            Some("architect")
        );
        assert_eq!(mode_of_rule_file(".roorules-debug"), Some("debug"));
        assert_eq!(mode_of_rule_file(".clinerules"), None);
        let p = RooRules.place(&PathBuf::from(".roo/rules-debug/rules.md"));
        assert_eq!(
            (p.load, p.group.as_deref()),
            (LoadKind::OnDemand, Some("rules-debug"))
        );
        let p = RooRules.place(&PathBuf::from(".clinerules"));
        assert_eq!(p.load, LoadKind::Startup);
    }
}
