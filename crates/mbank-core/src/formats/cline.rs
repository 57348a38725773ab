//! The Cline memory bank: a `memory-bank/` folder (or `.cursor/memory-bank/`, or
//! `.copilot-tracking/memory-bank/` where it is kept for GitHub Copilot) of camelCase
//! markdown files read whole at every session start, in a fixed order. Cline's custom
//! instructions say "I MUST read ALL memory bank files at the start of EVERY task", so
//! every markdown file of the bank loads at start, those of its sub-folders (`tasks/`,
//! feature notes) after the core files; backups and foreign files are not memory and
//! never load (see `analysis::membership`).
//!
//! Also what the memory-bank family shares with Memory Bank MCP / Roo
//! (`memory_bank_mcp.rs`): top-level markdown files load, sub-folders (archives,
//! backups) do not unless the format says otherwise; the per-file and whole-bank token
//! budgets; unfilled template placeholders are a finding.
use std::path::{Path, PathBuf};

use super::{
    Budget, DecisionEntryRules, ExpectedFiles, FormatRules, HeadingRule, Placement,
    PurposeHeadings, names, split_rel,
};
use crate::findings::RuleSource;
use crate::formats::Unit;
use crate::model::{Bank, Format, LoadKind, MemoryFile, Role};

/// Editor folders that may hold a `memory-bank/` of this format.
pub(crate) const EDITOR_FOLDERS: [&str; 2] = [".cursor", ".copilot-tracking"];

/// The bank's own folder.
pub const BANK_DIR: &str = "memory-bank";

/// The bank folders the memory-bank tools serve, in order of preference.
pub(crate) const SERVED_FOLDERS: [&str; 3] = [
    BANK_DIR,
    ".cursor/memory-bank",
    ".copilot-tracking/memory-bank",
];

/// The folder the memory bank specification archives completed progress into.
pub(crate) const ARCHIVE_DIR: &str = "archive";

/// Where the memory-bank family's token budgets come from: mbank's sizes, as Cline's
/// documentation gives none.
const SIZES: RuleSource = RuleSource::MbankBankSizes;

/// Per-file token budget of a start-up file.
const PER_FILE_TOKENS: u64 = 1000;
/// Token budget of everything loaded at start-up.
pub(crate) const BANK_TOKENS: u64 = 5000;

const EXPECTED: ExpectedFiles = ExpectedFiles {
    required: &[
        (Role::Brief, "projectBrief.md"),
        (Role::Active, "activeContext.md"),
        (Role::Progress, "progress.md"),
    ],
    recommended: &[
        (Role::Product, "productContext.md"),
        (Role::Patterns, "systemPatterns.md"),
        (Role::Tech, "techContext.md"),
        (Role::Decisions, "decisionLog.md"),
    ],
    suggested: &[],
    suggested_because: "",
};

/// A bank holding the six core files Cline's own memory bank documentation lists keeps
/// to that list: the specification's seventh, the decision log, is suggested to it.
const AS_CLINE_DOCUMENTS: ExpectedFiles = ExpectedFiles {
    required: EXPECTED.required,
    recommended: &[
        (Role::Product, "productContext.md"),
        (Role::Patterns, "systemPatterns.md"),
        (Role::Tech, "techContext.md"),
    ],
    suggested: &[(Role::Decisions, "decisionLog.md")],
    suggested_because: "the memory bank specification adds it as a seventh core file; \
                        Cline's own memory bank documentation lists six, and this bank \
                        holds all six",
};

/// The roles of the six core files Cline's memory bank documentation lists.
pub(crate) const CLINE_DOCUMENTED_ROLES: [Role; 6] = [
    Role::Brief,
    Role::Product,
    Role::Patterns,
    Role::Tech,
    Role::Active,
    Role::Progress,
];

/// Cline's seven core files in read order (the Cline memory bank spec).
pub(crate) const TEMPLATES: [(&str, &str); 7] = [
    (
        "projectBrief.md",
        include_str!("../../../../assets/templates/cline/projectBrief.md"),
    ),
    (
        "productContext.md",
        include_str!("../../../../assets/templates/cline/productContext.md"),
    ),
    (
        "systemPatterns.md",
        include_str!("../../../../assets/templates/cline/systemPatterns.md"),
    ),
    (
        "techContext.md",
        include_str!("../../../../assets/templates/cline/techContext.md"),
    ),
    (
        "activeContext.md",
        include_str!("../../../../assets/templates/cline/activeContext.md"),
    ),
    (
        "progress.md",
        include_str!("../../../../assets/templates/cline/progress.md"),
    ),
    (
        "decisionLog.md",
        include_str!("../../../../assets/templates/cline/decisionLog.md"),
    ),
];

pub struct Cline;

/// The name of the core file of `role` in a Cline bank (`activeContext.md`).
pub fn file_for(role: Role) -> Option<&'static str> {
    EXPECTED
        .required
        .iter()
        .chain(EXPECTED.recommended)
        .find(|(r, _)| *r == role)
        .map(|(_, name)| *name)
}

/// What the memory bank tools' validation asks of a bank (the Cline memory bank spec):
/// required and recommended files by role, named in camelCase and in kebab-case.
pub const TOOL_REQUIRED: [(Role, &str, &str); 3] = [
    (Role::Brief, "projectBrief.md", "project-brief.md"),
    (Role::Active, "activeContext.md", "active-context.md"),
    (Role::Progress, "progress.md", "progress.md"),
];
pub const TOOL_RECOMMENDED: [(Role, &str, &str); 4] = [
    (Role::Product, "productContext.md", "product-context.md"),
    (Role::Patterns, "systemPatterns.md", "system-patterns.md"),
    (Role::Tech, "techContext.md", "tech-context.md"),
    (Role::Decisions, "decisionLog.md", "decision-log.md"),
];

/// The roles the memory-bank tools add entries to.
pub(crate) const ENTRY_ROLES: [Role; 5] = [
    Role::Active,
    Role::Decisions,
    Role::Product,
    Role::Patterns,
    Role::Progress,
];

/// New files go at the bank's top or one folder down: the specs keep sub-folders such as
/// `archive/` (the folder must exist; the agent layer creates `archive/` itself).
pub(crate) fn may_create_in_bank(rel: &Path) -> bool {
    rel.parent().map_or(0, |p| p.iter().count()) <= 1
}

impl FormatRules for Cline {
    fn format(&self) -> Format {
        Format::Cline
    }

    /// The agent reads a bank file whole, as text, and parses no frontmatter: a `---` at
    /// its top (a log's entry separator, say) is no metadata to close.
    fn lenient_frontmatter(&self) -> bool {
        true
    }

    fn listing(&self) -> super::Listing {
        super::Listing::Folder
    }

    fn project_of(&self, bank_root: &Path) -> Option<PathBuf> {
        super::project_of_memory_folder(bank_root)
    }

    fn serves_memory_bank_tools(&self) -> bool {
        true
    }

    fn is_memory_folder(&self) -> bool {
        true
    }

    fn entry_file(&self, role: Role) -> Option<&'static str> {
        ENTRY_ROLES
            .contains(&role)
            .then(|| file_for(role))
            .flatten()
    }

    fn may_create(&self, rel: &Path) -> bool {
        may_create_in_bank(rel)
    }

    fn place(&self, rel: &Path) -> Placement {
        let mut placement = place_memory_bank(rel, layer);
        // "Read ALL memory bank files at the start of EVERY task": sub-folders included,
        // but not `archive/`: the memory bank specification moves completed progress
        // there to keep it out of the session's tokens.
        let in_sub_folder = rel.parent().is_some_and(|p| !p.as_os_str().is_empty());
        let archived = rel
            .components()
            .next()
            .is_some_and(|c| c.as_os_str().eq_ignore_ascii_case(ARCHIVE_DIR));
        if in_sub_folder
            && !archived
            && rel
                .file_name()
                .is_some_and(|n| names::is_markdown(&n.to_string_lossy()))
        {
            // No layer: read after the core files and the bank's other top files.
            placement.load = LoadKind::Startup;
        }
        placement
    }

    /// A folder with no markdown file at its top is another tool's data that shares the
    /// name (a workflow store, a model cache): Cline reads none of it, sub-folders
    /// included.
    fn settle_loads(&self, bank_root: &Path, files: &mut [MemoryFile]) {
        let has_top_markdown = files
            .iter()
            .any(|f| f.path.parent() == Some(bank_root) && names::is_markdown(&f.file_name()));
        if !has_top_markdown {
            for file in files {
                file.load = LoadKind::Never;
            }
        }
    }

    fn file_budgets(&self, file: &MemoryFile, _preset: Option<&str>) -> Vec<Budget> {
        file_budgets(file, false)
    }

    fn bank_budgets(&self, _preset: Option<&str>) -> Vec<Budget> {
        bank_budgets(false)
    }

    fn expected_files(&self, bank: &Bank) -> ExpectedFiles {
        let at_top = |role: Role| {
            bank.files.iter().any(|f| {
                f.role == role && !f.is_virtual() && f.path.parent() == Some(bank.root.as_path())
            })
        };
        if CLINE_DOCUMENTED_ROLES.into_iter().all(at_top) {
            AS_CLINE_DOCUMENTS
        } else {
            EXPECTED
        }
    }

    /// Four of Cline's own file names prove a Cline bank; RooFlow, cursor-memory-bank and
    /// hand-made banks share the folder name and a few of the names, not the set.
    fn contents_prove_format(&self, bank: &Bank) -> bool {
        let own: Vec<&str> = EXPECTED
            .required
            .iter()
            .chain(EXPECTED.recommended)
            .map(|(_, name)| *name)
            .collect();
        super::count_own_names(bank, &own) >= 4
    }

    /// The memory bank specification validates that every file has at least one
    /// heading; a bank that only shares the folder name is held to it as information.
    fn heading_rule(&self, file: &MemoryFile, bank_proven: bool) -> HeadingRule {
        memory_file_heading_rule(file, bank_proven)
    }

    /// "Include date and context for every entry"; "each entry is small (~100 tokens)".
    fn decision_entry_rules(&self) -> Option<DecisionEntryRules> {
        Some(DecisionEntryRules {
            dated: true,
            tokens: 100,
            source: RuleSource::ClineMemoryBank,
        })
    }

    fn purpose_headings(&self) -> &'static PurposeHeadings {
        &PURPOSE_HEADINGS
    }
}

/// The section headings of each core file's template (Cline's memory bank guidelines,
/// "Complete File Specifications"), with the common ways banks spell them, lower-case.
/// A heading naming words of two roles ("Active Decisions") belongs to neither.
static PURPOSE_HEADINGS: PurposeHeadings = PurposeHeadings::new(&[
    (
        Role::Brief,
        &[
            "project name",
            "mission",
            "problem statement",
            "core requirements",
            "key constraints",
            "success criteria",
            "scope",
            "in scope",
            "out of scope",
        ],
    ),
    (
        Role::Product,
        &[
            "why this project exists",
            "target users",
            "user problems",
            "user experience",
            "how it should work",
            "what makes it different",
        ],
    ),
    (
        Role::Patterns,
        &[
            "architecture overview",
            "architecture diagram",
            "design patterns",
            "coding conventions",
            "file organization",
            "component relationships",
        ],
    ),
    (
        Role::Tech,
        &[
            "technology stack",
            "tech stack",
            "languages",
            "frameworks",
            "databases",
            "key libraries",
            "dependencies",
            "development environment",
            "development setup",
            "build commands",
            "deployment",
            "environment variables",
            "version requirements",
        ],
    ),
    (
        Role::Active,
        &[
            "current focus",
            "recent changes",
            "current state",
            "open questions",
            "blockers",
            "next steps",
        ],
    ),
    (
        Role::Progress,
        &[
            "completed",
            "in progress",
            "known issues",
            "technical debt",
            "upcoming",
            "milestones",
            "what works",
            "what's left",
        ],
    ),
    (Role::Decisions, &["decision:"]),
]);

/// The heading rule of the memory-bank family for one file: rule files never, memory
/// files as the specification says when `proven` says the bank is of that format, else
/// as information.
pub(crate) fn memory_file_heading_rule(file: &MemoryFile, proven: bool) -> HeadingRule {
    if file.role == Role::Rules || file.load == LoadKind::Never {
        HeadingRule::None
    } else if proven {
        HeadingRule::Required
    } else {
        HeadingRule::Borrowed
    }
}

/// Cline's read order: brief, product, patterns, tech, active, progress, decisions.
fn layer(role: Role) -> Option<u8> {
    Some(match role {
        Role::Brief => 1,
        Role::Product => 2,
        Role::Patterns => 3,
        Role::Tech => 4,
        Role::Active => 5,
        Role::Progress => 6,
        Role::Decisions => 7,
        _ => return None,
    })
}

/// Places a file of a memory-bank folder: agents read every markdown file at its top;
/// sub-folders (`archive/`, `backup-*/`) and other files are kept but never loaded.
pub(crate) fn place_memory_bank(rel: &Path, layer: fn(Role) -> Option<u8>) -> Placement {
    let (file_name, parents) = split_rel(rel);
    let role = names::role_for_name(&file_name).unwrap_or(Role::Other);
    let top_level = parents.is_empty();
    let load = if top_level && names::is_markdown(&file_name) {
        LoadKind::Startup
    } else {
        LoadKind::Never
    };
    // A record named as one (`adr/ADR-001-tech-stack.md`) is a decision record wherever
    // the bank keeps it; any other file below the top is only kept there.
    let (role, layer) = match role {
        _ if top_level => (role, layer(role)),
        Role::Adr => (Role::Adr, None),
        _ => (Role::Other, None),
    };
    Placement {
        role,
        layer,
        group: parents.first().cloned(),
        load,
    }
}

/// The family's per-file budget: start-up files only; `borrowed` by a format of the
/// family that documents no limit of its own.
pub(crate) fn file_budgets(file: &MemoryFile, borrowed: bool) -> Vec<Budget> {
    if file.load != LoadKind::Startup {
        return Vec::new();
    }
    vec![family_budget(
        "500–1,000 tokens per file",
        borrowed,
        PER_FILE_TOKENS,
    )]
}

/// A token budget of the family, the Cline memory bank's own or borrowed. Cline's
/// documentation gives no figure: these are mbank's, from the memory bank
/// specification mbank follows.
fn family_budget(rule: &'static str, borrowed: bool, limit: u64) -> Budget {
    if borrowed {
        Budget::borrowed(rule, SIZES, Unit::Tokens, limit)
    } else {
        Budget::new(rule, SIZES, Unit::Tokens, limit)
    }
}

/// The family's whole-bank budget, borrowed as in [`file_budgets`].
pub(crate) fn bank_budgets(borrowed: bool) -> Vec<Budget> {
    vec![family_budget(
        "whole bank under 5,000 tokens",
        borrowed,
        BANK_TOKENS,
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn a_record_named_as_one_below_the_top_is_a_decision_record() {
        for rel in ["adr/ADR-001-tech-stack.md", "decisions/adr-0004-cache.md"] {
            let placed = super::super::memory_bank_mcp::MemoryBankMcp.place(&PathBuf::from(rel));
            assert_eq!((placed.role, placed.layer), (Role::Adr, None), "{rel}");
        }
        let other = Cline.place(&PathBuf::from("adr/notes.md"));
        assert_eq!(other.role, Role::Other);
    }

    #[test]
    fn cline_layers_follow_the_spec_and_every_markdown_file_loads() {
        let p = Cline.place(&PathBuf::from("projectbrief.md"));
        assert_eq!(
            (p.role, p.layer, p.load),
            (Role::Brief, Some(1), LoadKind::Startup)
        );
        let p = Cline.place(&PathBuf::from("decisionLog.md"));
        assert_eq!(p.layer, Some(7));
        // Cline reads ALL memory bank files at the start of every task.
        let p = Cline.place(&PathBuf::from("tasks/TASK001-search.md"));
        assert_eq!(
            (p.role, p.layer, p.load),
            (Role::Other, None, LoadKind::Startup)
        );
        assert_eq!(p.group.as_deref(), Some("tasks"));
        // …except what the specification archives to keep it out of the session.
        let p = Cline.place(&PathBuf::from("archive/progress-2025-q1.md"));
        assert_eq!(p.load, LoadKind::Never);
        let p = Cline.place(&PathBuf::from("notes.json"));
        assert_eq!(p.load, LoadKind::Never);
        let p = Cline.place(&PathBuf::from("tasks/board.json"));
        assert_eq!(p.load, LoadKind::Never);
        // Memory Bank MCP / Roo banks keep the family's rule: sub-folders do not load.
        let p = crate::formats::memory_bank_mcp::MemoryBankMcp
            .place(&PathBuf::from("archive/progress-2024.md"));
        assert_eq!((p.role, p.load), (Role::Other, LoadKind::Never));
    }

    #[test]
    fn a_folder_with_no_markdown_at_its_top_loads_nothing_sub_folders_included() {
        let root = PathBuf::from("/p/.cursor/memory-bank");
        let file = |rel: &str| {
            let placed = Cline.place(&PathBuf::from(rel));
            MemoryFile {
                path: root.join(rel),
                display: format!(".cursor/memory-bank/{rel}"),
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
            }
        };
        let mut store = vec![file("workflow/tasks.json"), file("models/cache/README.md")];
        assert_eq!(store[1].load, LoadKind::Startup);
        Cline.settle_loads(&root, &mut store);
        assert!(store.iter().all(|f| f.load == LoadKind::Never));
        // A bank with its files at the top keeps its sub-folders loading.
        let mut bank = vec![file("activeContext.md"), file("tasks/TASK001.md")];
        Cline.settle_loads(&root, &mut bank);
        assert!(bank.iter().all(|f| f.load == LoadKind::Startup));
    }
}
