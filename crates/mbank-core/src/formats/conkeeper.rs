//! ConKeeper: `.claude/memory/` or `.ai/memory/`, kebab-case core files read at start in
//! a fixed order (stable context, then state, then history), ADRs in `decisions/` and
//! session logs in `sessions/` on demand, settings in `.memory-config.md`, and token
//! budgets from the preset the bank names there.
use std::path::{Path, PathBuf};

use std::sync::LazyLock;

use regex::Regex;

use super::{Budget, ExpectedFiles, FormatRules, Placement, names, split_rel};
use crate::findings::{Finding, FindingCode, RuleSource, Severity};
use crate::formats::Unit;
use crate::model::{Bank, Format, LoadKind, MemoryFile, Role};

/// The bank's folder…
pub const FOLDER: &str = "memory";
/// …inside one of these project folders.
pub(crate) const CONTAINERS: [&str; 2] = [".claude", ".ai"];
/// The bank's settings (token budget preset, staleness), at its top.
pub(crate) const SETTINGS_FILE: &str = ".memory-config.md";
/// The bank's folder as `mbank init` creates it, relative to the project.
pub const BANK_DIR: &str = ".claude/memory";
/// Sub-folders of the bank where new files go (ADRs, session logs); they exist even
/// when empty.
pub(crate) const FOLDERS: [&str; 2] = ["decisions", "sessions"];

/// Where ConKeeper's budgets come from.
const PRESETS: RuleSource = RuleSource::ConKeeper;
/// The preset a bank without its own setting gets.
const DEFAULT_PRESET: &str = "standard";

const EXPECTED: ExpectedFiles = ExpectedFiles {
    required: &[
        (Role::Active, "active-context.md"),
        (Role::Product, "product-context.md"),
    ],
    recommended: &[],
    suggested: &[],
    suggested_because: "",
};

/// ConKeeper's files (the ConKeeper schema, "Directory Structure"); the configuration is written as
/// `.memory-config.md`.
pub(crate) const TEMPLATES: [(&str, &str); 6] = [
    (
        "active-context.md",
        include_str!("../../../../assets/templates/conkeeper/active-context.md"),
    ),
    (
        "product-context.md",
        include_str!("../../../../assets/templates/conkeeper/product-context.md"),
    ),
    (
        "progress.md",
        include_str!("../../../../assets/templates/conkeeper/progress.md"),
    ),
    (
        "patterns.md",
        include_str!("../../../../assets/templates/conkeeper/patterns.md"),
    ),
    (
        "glossary.md",
        include_str!("../../../../assets/templates/conkeeper/glossary.md"),
    ),
    (
        ".memory-config.md",
        include_str!("../../../../assets/templates/conkeeper/memory-config.md"),
    ),
];

pub struct ConKeeper;

impl FormatRules for ConKeeper {
    fn format(&self) -> Format {
        Format::ConKeeper
    }

    /// ConKeeper's injection strips `<private>` blocks.
    fn session_text_differs(&self) -> bool {
        true
    }

    fn listing(&self) -> super::Listing {
        super::Listing::Folder
    }

    fn is_memory_folder(&self) -> bool {
        true
    }

    fn settings_file(&self) -> Option<&'static str> {
        Some(SETTINGS_FILE)
    }

    /// ConKeeper's SessionStart hook strips them.
    fn honours_private_blocks(&self) -> bool {
        true
    }

    fn names_adr_files(&self) -> bool {
        true
    }

    fn required_folders(&self) -> &'static [&'static str] {
        &FOLDERS
    }

    /// "Implementations should check for memory in this order: `.claude/memory/`, then
    /// `.ai/memory/`" (the ConKeeper schema, "Memory Path Resolution"): a later folder is
    /// read only when no earlier one exists.
    fn read_instead(&self, bank_root: &Path) -> Option<PathBuf> {
        let container = bank_root.parent()?;
        let project = container.parent()?;
        let own = container.file_name()?.to_str()?;
        if bank_root.file_name()? != FOLDER {
            return None;
        }
        CONTAINERS
            .iter()
            .take_while(|c| **c != own)
            .map(|c| project.join(c).join(FOLDER))
            .find(|earlier| earlier.is_dir())
    }

    fn settle_loads(&self, bank_root: &Path, files: &mut [MemoryFile]) {
        if self.read_instead(bank_root).is_some() {
            for file in files {
                file.load = LoadKind::Never;
            }
        }
    }

    /// Session summaries are named by their date (the ConKeeper schema,
    /// "sessions/YYYY-MM-DD-topic.md").
    fn name_finding(&self, file: &MemoryFile, rel: &Path) -> Option<Finding> {
        let (file_name, parents) = split_rel(rel);
        if parents.len() != 1
            || parents[0] != "sessions"
            || !names::is_markdown(&file_name)
            || SESSION_NAME.is_match(&file_name)
        {
            return None;
        }
        Some(Finding::new(
            Severity::Info,
            FindingCode::SessionNaming,
            &file.path,
            None,
            format!(
                "{} is not named by its date: ConKeeper names session summaries \
                 YYYY-MM-DD-topic.md (or YYYY-MM-DD-HHMM.md)",
                file.display
            ),
        ))
    }

    /// An ADR's `**Status:**` is one of ConKeeper's (the ConKeeper schema,
    /// "decisions/ADR-NNN-title.md").
    fn check_text(&self, file: &MemoryFile, text: &str) -> Vec<Finding> {
        if file.role != Role::Adr {
            return Vec::new();
        }
        adr_status_finding(file, text).into_iter().collect()
    }

    fn project_of(&self, bank_root: &Path) -> Option<PathBuf> {
        super::project_of_memory_folder(bank_root)
    }

    fn may_create(&self, rel: &Path) -> bool {
        let folders: Vec<&str> = rel
            .parent()
            .map(|p| p.iter().filter_map(|c| c.to_str()).collect())
            .unwrap_or_default();
        match folders.as_slice() {
            [] => true,
            [folder] => FOLDERS.contains(folder),
            _ => false,
        }
    }

    fn place(&self, rel: &Path) -> Placement {
        let (file_name, parents) = split_rel(rel);
        place(&file_name, &parents)
    }

    fn file_budgets(&self, file: &MemoryFile, preset: Option<&str>) -> Vec<Budget> {
        if file.load == LoadKind::Never {
            return Vec::new();
        }
        let name = preset.unwrap_or(DEFAULT_PRESET);
        let Some((_, table)) = preset_budgets(name) else {
            return Vec::new();
        };
        table
            .iter()
            .filter(|(role, _)| *role == file.role)
            .take(1)
            .map(|(_, limit)| {
                let rule = format!("{name} preset: {} file", file.role);
                Budget::new(rule, PRESETS, Unit::Tokens, *limit)
            })
            .collect()
    }

    fn bank_budgets(&self, preset: Option<&str>) -> Vec<Budget> {
        let name = preset.unwrap_or(DEFAULT_PRESET);
        preset_budgets(name)
            .map(|(total, _)| {
                Budget::new(format!("{name} preset total"), PRESETS, Unit::Tokens, total)
            })
            .into_iter()
            .collect()
    }

    fn expected_files(&self, _bank: &Bank) -> ExpectedFiles {
        EXPECTED
    }

    /// ConKeeper's own markers: its settings file, its `decisions/` and `sessions/`
    /// folders, or its `<!-- @category -->` tags. `.claude/memory/` alone is only a name
    /// other tools use too.
    fn contents_prove_format(&self, bank: &Bank) -> bool {
        if bank.root.join(".memory-config.md").is_file()
            || (bank.root.join("decisions").is_dir() && bank.root.join("sessions").is_dir())
        {
            return true;
        }
        bank.files.iter().any(|f| {
            !f.is_virtual()
                && f.path.parent() == Some(bank.root.as_path())
                && f.size <= TAG_SCAN_MAX_BYTES
                && names::is_markdown(&f.file_name())
                && crate::io::text::read_text(&f.path)
                    .is_ok_and(|text| text.contains("<!-- @category"))
        })
    }
}

/// `YYYY-MM-DD-topic.md` or `YYYY-MM-DD-HHMM.md`.
static SESSION_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d{4}-\d{2}-\d{2}-[^.\s][^\s]*\.md$").expect("constant regex"));

/// A `**Status:** value` line (bold label, colon inside or outside the bold).
static STATUS_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:[-*]\s+)?\*\*Status:?\*\*:?\s*(.*?)\s*$").expect("constant regex")
});

/// The values ConKeeper's ADR template allows.
static STATUS_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:proposed|accepted|deprecated|superseded by adr-\d+)\b")
        .expect("constant regex")
});

/// The first `**Status:**` line outside code fences, when its value is not one of
/// ConKeeper's.
fn adr_status_finding(file: &MemoryFile, text: &str) -> Option<Finding> {
    let fenced = crate::markup::markdown::fenced_lines(text);
    let (index, value) = text.lines().enumerate().find_map(|(index, line)| {
        if fenced
            .iter()
            .any(|&(start, end)| (start..=end).contains(&(index + 1)))
        {
            return None;
        }
        STATUS_LINE
            .captures(line)
            .and_then(|c| c.get(1))
            .map(|m| (index, m.as_str()))
    })?;
    let bare = value.trim_matches(|c: char| c == '*' || c == '_' || c == '`' || c.is_whitespace());
    let unchosen = bare.contains('|');
    if STATUS_VALUE.is_match(bare) && !unchosen {
        return None;
    }
    let hint = if unchosen {
        ": the template's choices are still there, keep the one that holds"
    } else if bare.to_ascii_lowercase().starts_with("superseded") {
        ": say which record replaces it, `Superseded by ADR-NNN`"
    } else {
        ""
    };
    Some(Finding::new(
        Severity::Warning,
        FindingCode::AdrStatus,
        &file.path,
        Some(index + 1),
        format!(
            "status {bare:?} is not one of ConKeeper's: Proposed, Accepted, Deprecated or \
             Superseded by ADR-NNN{hint}"
        ),
    ))
}

/// Largest file looked into for ConKeeper's category tags.
const TAG_SCAN_MAX_BYTES: u64 = 256 * 1024;

/// ConKeeper's token presets: total target and per-role upper bounds.
pub(crate) fn preset_budgets(name: &str) -> Option<(u64, [(Role, u64); 7])> {
    let preset = match name {
        "economy" | "compact" => (2000, [400, 600, 400, 400, 300, 500, 400]),
        "light" => (3000, [500, 700, 450, 450, 350, 600, 700]),
        "standard" => (4000, [600, 900, 550, 550, 450, 800, 1000]),
        "detailed" => (6000, [800, 1200, 700, 700, 500, 1000, 1500]),
        _ => return None,
    };
    let (total, per) = preset;
    let roles = [
        Role::Active,
        Role::Product,
        Role::Progress,
        Role::Patterns,
        Role::Glossary,
        Role::Adr,
        Role::Session,
    ];
    let mut table = [(Role::Other, 0); 7];
    for (slot, (role, limit)) in table.iter_mut().zip(roles.into_iter().zip(per)) {
        *slot = (role, limit);
    }
    Some((total, table))
}

/// ConKeeper's session-start order: stable context first, then state, then history.
fn layer(role: Role) -> Option<u8> {
    Some(match role {
        Role::Brief => 1,
        Role::Product => 2,
        Role::Active => 3,
        Role::Progress => 4,
        Role::Patterns => 5,
        Role::Tech => 5,
        Role::Glossary => 6,
        Role::Adr => 7,
        Role::Session => 8,
        _ => return None,
    })
}

fn place(file_name: &str, parents: &[String]) -> Placement {
    let first = parents.first().map(String::as_str);
    let (role, group, load) = match first {
        Some("decisions") if names::name_key(file_name) == "index" => {
            (Role::Other, Some("decisions"), LoadKind::Startup)
        }
        Some("decisions") if names::is_adr_name(file_name) => {
            (Role::Adr, Some("decisions"), LoadKind::OnDemand)
        }
        Some("decisions") => (Role::Other, Some("decisions"), LoadKind::OnDemand),
        Some("sessions") => (Role::Session, Some("sessions"), LoadKind::OnDemand),
        Some(_) => (Role::Other, None, LoadKind::Never),
        None if file_name == ".memory-config.md" || file_name == ".last-sync" => {
            (Role::Config, None, LoadKind::Never)
        }
        None if names::is_markdown(file_name) => (
            names::role_for_name(file_name).unwrap_or(Role::Other),
            None,
            LoadKind::Startup,
        ),
        None => (Role::Other, None, LoadKind::Never),
    };
    let group = group
        .map(str::to_string)
        .or_else(|| parents.first().cloned());
    // decisions/INDEX.md loads at session start as the decisions' entry: their layer.
    let index = first == Some("decisions") && load == LoadKind::Startup;
    Placement {
        layer: if index { layer(Role::Adr) } else { layer(role) },
        role,
        group,
        load,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn file(rel: &str, role: Role) -> MemoryFile {
        MemoryFile {
            path: PathBuf::from(".claude/memory").join(rel),
            display: format!(".claude/memory/{rel}"),
            role,
            layer: None,
            order: 0,
            group: None,
            load: LoadKind::OnDemand,
            size: 0,
            modified: None,
            changed: None,
            inode: None,
            memory: None,
            unreadable: None,
        }
    }

    #[test]
    fn sessions_are_named_by_date() {
        for good in ["2025-01-02-api.md", "2025-01-02-1430.md"] {
            let rel = PathBuf::from("sessions").join(good);
            assert!(
                ConKeeper
                    .name_finding(&file("x", Role::Session), &rel)
                    .is_none(),
                "{good}"
            );
        }
        for bad in ["api-notes.md", "2025-1-2-api.md", "20250102.md"] {
            let rel = PathBuf::from("sessions").join(bad);
            let finding = ConKeeper.name_finding(&file(bad, Role::Session), &rel);
            assert_eq!(
                finding.map(|f| f.code),
                Some(FindingCode::SessionNaming),
                "{bad}"
            );
        }
        // Only session summaries are held to it.
        let rel = PathBuf::from("notes.md");
        assert!(
            ConKeeper
                .name_finding(&file("notes.md", Role::Other), &rel)
                .is_none()
        );
    }

    #[test]
    fn an_adr_status_is_one_of_conkeepers() {
        let adr = file("decisions/ADR-001-x.md", Role::Adr);
        let status = |value: &str| {
            let text = format!("# ADR-001: X\n\n**Status:** {value}\n**Date:** 2025-01-02\n");
            ConKeeper.check_text(&adr, &text)
        };
        for good in [
            "Proposed",
            "Accepted",
            "deprecated",
            "Superseded by ADR-012",
            "Accepted (2025-02)",
        ] {
            assert!(status(good).is_empty(), "{good}");
        }
        for bad in ["Maybe", "Superseded", "Done", "Proposed | Accepted"] {
            let found = status(bad);
            assert_eq!(found.len(), 1, "{bad}");
            assert_eq!(
                (found[0].code, found[0].line),
                (FindingCode::AdrStatus, Some(3))
            );
        }
        // A status in a code block is an example, and other files have no ADR status.
        let fenced = "# ADR-001: X\n\n```\n**Status:** Maybe\n```\n";
        assert!(ConKeeper.check_text(&adr, fenced).is_empty());
        let other = file("patterns.md", Role::Patterns);
        assert!(
            ConKeeper
                .check_text(&other, "**Status:** Maybe\n")
                .is_empty()
        );
    }

    #[test]
    fn the_ai_folder_is_read_only_without_the_claude_one() {
        let temp = tempfile::tempdir().unwrap();
        let ai = temp.path().join(".ai/memory");
        std::fs::create_dir_all(&ai).unwrap();
        assert_eq!(ConKeeper.read_instead(&ai), None);
        let claude = temp.path().join(".claude/memory");
        std::fs::create_dir_all(&claude).unwrap();
        assert_eq!(ConKeeper.read_instead(&ai), Some(claude.clone()));
        assert_eq!(ConKeeper.read_instead(&claude), None);
    }

    #[test]
    fn conkeeper_places_adrs_sessions_and_config() {
        let p = ConKeeper.place(&PathBuf::from("decisions/ADR-003-x.md"));
        assert_eq!((p.role, p.group.as_deref()), (Role::Adr, Some("decisions")));
        let p = ConKeeper.place(&PathBuf::from("sessions/2025-01-02-api.md"));
        assert_eq!(p.role, Role::Session);
        let p = ConKeeper.place(&PathBuf::from(".memory-config.md"));
        assert_eq!((p.role, p.load), (Role::Config, LoadKind::Never));
        let p = ConKeeper.place(&PathBuf::from("active-context.md"));
        assert_eq!((p.role, p.load), (Role::Active, LoadKind::Startup));
        // The decisions index loads at start and has its place in the order.
        let p = ConKeeper.place(&PathBuf::from("decisions/INDEX.md"));
        assert_eq!((p.load, p.layer), (LoadKind::Startup, Some(7)));
        let glossary = ConKeeper.place(&PathBuf::from("glossary.md"));
        assert!(glossary.layer < p.layer);
    }
}
