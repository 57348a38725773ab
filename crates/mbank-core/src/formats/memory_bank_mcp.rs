//! Memory Bank MCP / Roo memory bank (RooFlow among them): a `memory-bank/` folder of
//! the five core files (product, active context, progress, decision log, system
//! patterns; no project brief, no tech context), told apart from Cline's by the evidence
//! `MemoryBankEvidence` weighs, and the JSON document banks of the
//! `memory-bank-mcp-server` family (`global-memory-bank/`, `branch-memory-bank/<branch>/`,
//! also under `docs/`), which the server hands to the agent on request.
//!
//! Budgets and the placeholder check are the memory-bank family's (`cline.rs`): the
//! Memory Bank MCP spec sets no size limit of its own, so its budgets say so in their
//! source (`BUDGET_SOURCE`) rather than pass for its own rule or for Cline's.
use std::path::{Path, PathBuf};

use super::{Budget, ExpectedFiles, FormatRules, HeadingRule, Placement, cline, names};
use crate::model::{Bank, Format, LoadKind, MemoryFile, Role};

/// Folder names of the JSON document banks of the `memory-bank-mcp-server` family:
/// one global bank and one bank folder per git branch.
pub(crate) const DOCUMENT_BANK_DIRS: [&str; 2] = ["global-memory-bank", "branch-memory-bank"];
/// The project folder that holds the document banks.
pub(crate) const DOCUMENT_BANKS_PARENT: &str = "docs";

/// The five core files of the Memory Bank MCP protocol: product-context, active-context,
/// progress, decision-log and system-patterns. Product context (the overview resource),
/// active context and progress are required because the server's `track_progress` and
/// `update_active_context` tools write the last two on every update and an agent without
/// the first has no picture of the project; decision-log and system-patterns only fill up
/// when a decision or pattern is recorded, so a young bank may lack them: recommended.
const EXPECTED: ExpectedFiles = ExpectedFiles {
    required: &[
        (Role::Product, "product-context.md"),
        (Role::Active, "active-context.md"),
        (Role::Progress, "progress.md"),
    ],
    recommended: &[
        (Role::Decisions, "decision-log.md"),
        (Role::Patterns, "system-patterns.md"),
    ],
    suggested: &[],
    suggested_because: "",
};

/// What a `memory-bank/` folder and its project folder say about the bank's format,
/// gathered from directory listings alone.
///
/// Cline's bank opens with a project brief and holds a tech context; the Memory Bank MCP
/// / Roo bank (RooFlow included) holds the five files of its protocol and neither of
/// those, names them in kebab-case by default, and sits next to the mode rules of its
/// modes (`.clinerules-{mode}`, `.roorules-{mode}`, `.roomodes`, `.roo/rules-{mode}/`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MemoryBankEvidence {
    /// Core files named in kebab-case (`active-context.md`) and in camelCase
    /// (`activeContext.md`, `projectbrief.md`).
    pub kebab_names: usize,
    pub camel_names: usize,
    pub brief: bool,
    pub tech: bool,
    /// How many of the five Memory Bank MCP core roles the folder's top holds.
    pub protocol_files: usize,
    /// Mode rule files or folders in the project folder.
    pub mode_rules: bool,
    seen: [bool; 5],
}

/// The roles of the Memory Bank MCP protocol's five files.
const PROTOCOL_ROLES: [Role; 5] = [
    Role::Product,
    Role::Active,
    Role::Progress,
    Role::Decisions,
    Role::Patterns,
];

impl MemoryBankEvidence {
    /// Takes a file name at the top of the `memory-bank/` folder into account.
    pub(crate) fn add_bank_file(&mut self, file_name: &str) {
        if !names::is_markdown(file_name) {
            return;
        }
        let Some(role) = names::role_for_name(file_name) else {
            return;
        };
        let core = matches!(role, Role::Brief | Role::Tech) || PROTOCOL_ROLES.contains(&role);
        if !core {
            return;
        }
        if file_name.contains('-') || file_name.contains('_') {
            self.kebab_names += 1;
        } else {
            self.camel_names += 1;
        }
        match role {
            Role::Brief => self.brief = true,
            Role::Tech => self.tech = true,
            _ => {}
        }
        if let Some(i) = PROTOCOL_ROLES.iter().position(|r| *r == role)
            && !self.seen[i]
        {
            self.seen[i] = true;
            self.protocol_files += 1;
        }
    }

    /// The format the evidence points to. Naming decides first (kebab-case is Memory
    /// Bank MCP's own); then a project brief is Cline's; then mode rules next to a bank
    /// without a brief, or four or more of the five protocol files with neither a brief
    /// nor a tech context, make it Memory Bank MCP / Roo.
    pub fn format(&self) -> Format {
        if self.kebab_names > self.camel_names {
            Format::MemoryBankMcp
        } else if self.brief {
            Format::Cline
        } else if (self.mode_rules && self.protocol_files > 0)
            || (!self.tech && self.protocol_files >= 4)
        {
            Format::MemoryBankMcp
        } else {
            Format::Cline
        }
    }
}

/// Whether a project-folder entry is a Roo mode rule: `.clinerules-{mode}`,
/// `.roorules-{mode}` or `.roomodes` (`.roo/rules-{mode}/` is judged by its folder name,
/// see [`is_mode_rules_folder`]).
pub(crate) fn is_mode_rules_entry(name: &str) -> bool {
    name == ".roomodes" || super::roo_rules::mode_of_rule_file(name).is_some()
}

/// `rules-code`, a folder of `.roo/` holding one mode's rules.
pub(crate) fn is_mode_rules_folder(name: &str) -> bool {
    name.strip_prefix("rules-").is_some_and(|m| !m.is_empty())
}

pub struct MemoryBankMcp;

impl FormatRules for MemoryBankMcp {
    fn format(&self) -> Format {
        Format::MemoryBankMcp
    }

    /// The agent reads a bank file whole, as text, and parses no frontmatter: a `---` at
    /// its top (a log's entry separator, say) is no metadata to close.
    fn lenient_frontmatter(&self) -> bool {
        true
    }

    fn listing(&self) -> super::Listing {
        super::Listing::Folder
    }

    /// A Roo memory bank is read in the order its modes' rules list (a document bank of
    /// the MCP server is handed out on request, in no order).
    fn reads_in_mode_order(&self, bank_root: &Path) -> bool {
        document_bank_dir(bank_root).is_none()
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

    /// The server's kebab-case names; progress is `progress.md` in both spellings.
    fn entry_file(&self, role: Role) -> Option<&'static str> {
        Some(match role {
            Role::Active => "active-context.md",
            Role::Decisions => "decision-log.md",
            Role::Product => "product-context.md",
            Role::Patterns => "system-patterns.md",
            Role::Progress => "progress.md",
            _ => return None,
        })
    }

    fn entry_style(&self) -> super::EntryStyle {
        super::EntryStyle::MemoryBankMcp
    }

    fn may_create(&self, rel: &Path) -> bool {
        super::cline::may_create_in_bank(rel)
    }

    fn place(&self, rel: &Path) -> Placement {
        cline::place_memory_bank(rel, layer)
    }

    fn file_budgets(&self, file: &MemoryFile, _preset: Option<&str>) -> Vec<Budget> {
        cline::file_budgets(file, true)
    }

    fn bank_budgets(&self, _preset: Option<&str>) -> Vec<Budget> {
        cline::bank_budgets(true)
    }

    fn expected_files(&self, bank: &Bank) -> ExpectedFiles {
        // Document banks are filled document by document, on request.
        if document_bank_dir(&bank.root).is_some() {
            ExpectedFiles::default()
        } else {
            EXPECTED
        }
    }

    /// Three of the protocol's kebab-case names prove a bank its server keeps; the
    /// camelCase names of Cline and RooFlow banks do not.
    fn contents_prove_format(&self, bank: &Bank) -> bool {
        let own: Vec<&str> = EXPECTED
            .required
            .iter()
            .chain(EXPECTED.recommended)
            .map(|(_, name)| *name)
            .collect();
        super::count_own_names(bank, &own) >= 3
    }

    /// The heading rule is the Cline memory bank specification's, so information here.
    fn heading_rule(&self, file: &MemoryFile, _bank_proven: bool) -> HeadingRule {
        cline::memory_file_heading_rule(file, false)
    }

    /// `branch-memory-bank/` holds one bank per git branch.
    fn groups_are_separate_banks(&self, bank: &Bank) -> bool {
        document_bank_dir(&bank.root) == Some("branch-memory-bank")
    }
}

/// Roo / Memory Bank MCP read order: brief, product, active, patterns, tech, decisions,
/// progress.
fn layer(role: Role) -> Option<u8> {
    Some(match role {
        Role::Brief => 1,
        Role::Product => 2,
        Role::Active => 3,
        Role::Patterns => 4,
        Role::Tech => 5,
        Role::Decisions => 6,
        Role::Progress => 7,
        _ => return None,
    })
}

/// The document-bank folder name of a bank root, when it is one.
pub(crate) fn document_bank_dir(root: &Path) -> Option<&'static str> {
    let name = root.file_name()?.to_str()?;
    DOCUMENT_BANK_DIRS.into_iter().find(|d| *d == name)
}

/// Places a file of a document bank (`global-memory-bank/`, `branch-memory-bank/<branch>/`).
/// The MCP server hands documents to the agent on request, so nothing loads at start.
pub(crate) fn place_document_bank(bank_dir_name: &str, rel: &Path) -> Placement {
    let components: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let file_name = components.last().cloned().unwrap_or_default();
    let group = components.len().gt(&1).then(|| components[0].clone());
    // In a branch bank the first folder is the branch; its own files are its core documents.
    let depth_in_group = if bank_dir_name == "branch-memory-bank" {
        components.len().saturating_sub(2)
    } else {
        components.len().saturating_sub(1)
    };
    let is_document = file_name.ends_with(".json") || names::is_markdown(&file_name);
    let role = if depth_in_group == 0 {
        names::role_for_name(&file_name).unwrap_or(Role::Other)
    } else {
        Role::Other
    };
    Placement {
        role,
        layer: if depth_in_group == 0 {
            layer(role)
        } else {
            None
        },
        group,
        load: if is_document {
            LoadKind::OnDemand
        } else {
            LoadKind::Never
        },
    }
}

/// The five files of the Memory Bank MCP spec's bank ("Data Formats"), by the names its
/// file list gives them, in the order it lists them: what `initialize_memory_bank` with
/// `path` creates. `[Project name]` and `YYYY-MM-DD` are filled in when they are written.
pub(crate) const TEMPLATES: [(&str, &str); 5] = [
    (
        "activeContext.md",
        include_str!("../../../../assets/templates/memory-bank-mcp/activeContext.md"),
    ),
    (
        "productContext.md",
        include_str!("../../../../assets/templates/memory-bank-mcp/productContext.md"),
    ),
    (
        "progress.md",
        include_str!("../../../../assets/templates/memory-bank-mcp/progress.md"),
    ),
    (
        "decisionLog.md",
        include_str!("../../../../assets/templates/memory-bank-mcp/decisionLog.md"),
    ),
    (
        "systemPatterns.md",
        include_str!("../../../../assets/templates/memory-bank-mcp/systemPatterns.md"),
    ),
];

/// The file of `TEMPLATES` whose overview a brief fills.
pub const BRIEF_FILE: &str = "productContext.md";

/// The placeholders of [`TEMPLATES`] filled when a bank is created.
pub(crate) const TEMPLATE_NAME: &str = "[Project name]";
pub(crate) const TEMPLATE_OVERVIEW: &str = "[Project description and purpose]";
pub(crate) const TEMPLATE_DATE: &str = "YYYY-MM-DD";

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn evidence(files: &[&str], mode_rules: bool) -> Format {
        let mut e = MemoryBankEvidence {
            mode_rules,
            ..Default::default()
        };
        for f in files {
            e.add_bank_file(f);
        }
        e.format()
    }

    #[test]
    fn the_format_of_a_memory_bank_follows_all_the_evidence() {
        let five = [
            "activeContext.md",
            "productContext.md",
            "progress.md",
            "decisionLog.md",
            "systemPatterns.md",
        ];
        // RooFlow: the five files, camelCase, with or without mode rules.
        assert_eq!(evidence(&five, true), Format::MemoryBankMcp);
        assert_eq!(evidence(&five, false), Format::MemoryBankMcp);
        // A brief makes it Cline's, mode rules or not.
        let mut cline = five.to_vec();
        cline.push("projectbrief.md");
        assert_eq!(evidence(&cline, true), Format::Cline);
        // Cline's six without a decision log.
        let six = [
            "projectBrief.md",
            "productContext.md",
            "systemPatterns.md",
            "techContext.md",
            "activeContext.md",
            "progress.md",
        ];
        assert_eq!(evidence(&six, false), Format::Cline);
        // A tech context without a brief: Cline's unless mode rules sit next to it.
        let with_tech = [
            "activeContext.md",
            "progress.md",
            "techContext.md",
            "productContext.md",
            "decisionLog.md",
        ];
        assert_eq!(evidence(&with_tech, false), Format::Cline);
        assert_eq!(evidence(&with_tech, true), Format::MemoryBankMcp);
        // Kebab-case names are Memory Bank MCP's, brief or not.
        assert_eq!(
            evidence(
                &["project-brief.md", "active-context.md", "progress.md"],
                false
            ),
            Format::MemoryBankMcp
        );
        // Nothing to go on: Cline, the family's first. ADR names are no naming evidence.
        assert_eq!(evidence(&["notes.md"], false), Format::Cline);
        assert_eq!(
            evidence(&["ADR-0001.md", "ADR-0002.md", "projectbrief.md"], false),
            Format::Cline
        );
        assert_eq!(evidence(&[], true), Format::Cline);
    }

    #[test]
    fn document_banks_group_by_branch() {
        let p = place_document_bank(
            "branch-memory-bank",
            &PathBuf::from("feature-x/activeContext.json"),
        );
        assert_eq!(
            (p.role, p.group.as_deref(), p.load),
            (Role::Active, Some("feature-x"), LoadKind::OnDemand)
        );
        let p = place_document_bank(
            "branch-memory-bank",
            &PathBuf::from("feature-x/design/plan.json"),
        );
        assert_eq!(p.role, Role::Other);
        let p = place_document_bank("global-memory-bank", &PathBuf::from("core/glossary.json"));
        assert_eq!((p.role, p.group.as_deref()), (Role::Other, Some("core")));
        let p = place_document_bank("global-memory-bank", &PathBuf::from(".gitkeep"));
        assert_eq!(p.load, LoadKind::Never);
    }
}
