//! The shared vocabulary: formats, roles and the project → bank → file model.
use std::path::PathBuf;
use std::time::SystemTime;

use serde::Serialize;

pub(crate) use crate::io::confine::OutsideLink;

/// A memory system whose files mbank understands. A project may hold several.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Cline memory bank: `memory-bank/` (or `.cursor/memory-bank/`,
    /// `.copilot-tracking/memory-bank/`), camelCase names.
    Cline,
    /// Memory Bank MCP / Roo Code memory bank: `memory-bank/` with kebab-case names.
    MemoryBankMcp,
    /// Cline/Roo rule and mode files: `.clinerules*`, `.roorules-*`, `.roomodes`, `.roo/`.
    RooRules,
    /// Claude Code instruction memory: `CLAUDE.md`, `CLAUDE.local.md`, `.claude/rules/`.
    ClaudeMd,
    /// Codex and friends: `AGENTS.md`.
    AgentsMd,
    /// Gemini CLI: `GEMINI.md`.
    GeminiMd,
    /// Beans-code: `BEANS.md`, `.beans/`.
    BeansMd,
    /// Infinity structured JSON store: `.infinity/memories.json`.
    Infinity,
    /// ConKeeper: `.claude/memory/` or `.ai/memory/`.
    // Serialized as its id ("conkeeper"), which kebab-case would spell "con-keeper".
    #[serde(rename = "conkeeper")]
    ConKeeper,
    /// Cursor rules: `.cursor/rules/*.mdc`, legacy `.cursorrules`.
    CursorRules,
    /// GitHub Copilot instructions: `.github/copilot-instructions.md`,
    /// `.github/instructions/*.instructions.md`.
    Copilot,
    /// Windsurf rules: `.windsurf/rules/*.md`, legacy `.windsurfrules`.
    Windsurf,
    /// Kiro steering: `.kiro/steering/*.md`.
    Kiro,
    /// Kilo Code: `.kilocode/rules/` with its memory bank in `.kilocode/rules/memory-bank/`,
    /// mode rules in `.kilocode/rules-{mode}/`, legacy `.kilocoderules`.
    KiloCode,
    /// Claude Code's auto memory: `~/.claude/projects/<project>/memory/` (MEMORY.md and
    /// topic files), kept in the home folder and shown under its project.
    ClaudeAutoMemory,
    /// Kilo Memory: `project.md`, `environment.md`, `corrections.md` and session digests
    /// in Kilo's data folder (`~/.local/share/kilo/memory/<project>-<hash>/`).
    KiloMemory,
    /// JetBrains Junie's guidelines: `.junie/guidelines.md`.
    Junie,
    /// Trae's project rules: `.trae/rules/*.md`.
    TraeRules,
    /// Zed's own rule files (`.rules`, `AGENT.md`); Zed reads the first of its list,
    /// other agents' files included.
    ZedRules,
    /// How opencode reads the AGENTS.md (or, without one, the CLAUDE.md) it finds: whole,
    /// after the user's own file. It keeps no files of its own in a project.
    #[serde(rename = "opencode")]
    OpenCode,
    /// Architecture decision records kept beside the code: `docs/adr/`, `doc/adr/` or
    /// `docs/decisions/`, one numbered record per decision (Nygard's template, MADR).
    AdrRecords,
}

impl Format {
    pub const ALL: [Format; 21] = [
        Format::Cline,
        Format::MemoryBankMcp,
        Format::RooRules,
        Format::ClaudeMd,
        Format::AgentsMd,
        Format::GeminiMd,
        Format::BeansMd,
        Format::Infinity,
        Format::ConKeeper,
        Format::CursorRules,
        Format::Copilot,
        Format::Windsurf,
        Format::Kiro,
        Format::KiloCode,
        Format::ClaudeAutoMemory,
        Format::KiloMemory,
        Format::Junie,
        Format::TraeRules,
        Format::ZedRules,
        Format::OpenCode,
        Format::AdrRecords,
    ];

    /// Stable identifier used in JSON output and configuration.
    pub fn id(self) -> &'static str {
        match self {
            Format::Cline => "cline",
            Format::MemoryBankMcp => "memory-bank-mcp",
            Format::RooRules => "roo-rules",
            Format::ClaudeMd => "claude-md",
            Format::AgentsMd => "agents-md",
            Format::GeminiMd => "gemini-md",
            Format::BeansMd => "beans-md",
            Format::Infinity => "infinity",
            Format::ConKeeper => "conkeeper",
            Format::CursorRules => "cursor-rules",
            Format::Copilot => "copilot",
            Format::Windsurf => "windsurf",
            Format::Kiro => "kiro",
            Format::KiloCode => "kilo-code",
            Format::ClaudeAutoMemory => "claude-auto-memory",
            Format::KiloMemory => "kilo-memory",
            Format::Junie => "junie",
            Format::TraeRules => "trae-rules",
            Format::ZedRules => "zed-rules",
            Format::OpenCode => "opencode",
            Format::AdrRecords => "adr-records",
        }
    }

    pub fn from_id(id: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.id() == id)
    }

    /// Human name for headings and the TUI.
    pub fn label(self) -> &'static str {
        match self {
            Format::Cline => "Cline memory bank",
            Format::MemoryBankMcp => "Memory Bank MCP / Roo",
            Format::RooRules => "Cline/Roo rules and modes",
            Format::ClaudeMd => "CLAUDE.md",
            Format::AgentsMd => "AGENTS.md",
            Format::GeminiMd => "GEMINI.md",
            Format::BeansMd => "BEANS.md",
            Format::Infinity => "Infinity memories",
            Format::ConKeeper => "ConKeeper",
            Format::CursorRules => "Cursor rules",
            Format::Copilot => "GitHub Copilot instructions",
            Format::Windsurf => "Windsurf rules",
            Format::Kiro => "Kiro steering",
            Format::KiloCode => "Kilo Code rules and memory bank",
            Format::ClaudeAutoMemory => "Claude Code auto memory",
            Format::KiloMemory => "Kilo Memory",
            Format::Junie => "Junie guidelines",
            Format::TraeRules => "Trae rules",
            Format::ZedRules => "Zed rules",
            Format::OpenCode => "opencode rules",
            Format::AdrRecords => "Architecture decision records",
        }
    }

    /// Formats whose specs allow markdown files only (the Cline memory bank spec, the
    /// ConKeeper schema, the instruction files).
    pub fn is_markdown_only(self) -> bool {
        matches!(
            self,
            Format::Cline
                | Format::MemoryBankMcp
                | Format::ConKeeper
                | Format::ClaudeAutoMemory
                | Format::ClaudeMd
                | Format::AgentsMd
                | Format::GeminiMd
                | Format::BeansMd
        )
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// What a file is for, independent of how its format spells the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    Brief,
    Product,
    Patterns,
    Tech,
    Active,
    Progress,
    Decisions,
    Rules,
    Instructions,
    Session,
    Adr,
    Glossary,
    Config,
    Other,
}

impl Role {
    pub fn id(self) -> &'static str {
        match self {
            Role::Brief => "brief",
            Role::Product => "product",
            Role::Patterns => "patterns",
            Role::Tech => "tech",
            Role::Active => "active",
            Role::Progress => "progress",
            Role::Decisions => "decisions",
            Role::Rules => "rules",
            Role::Instructions => "instructions",
            Role::Session => "session",
            Role::Adr => "adr",
            Role::Glossary => "glossary",
            Role::Config => "config",
            Role::Other => "other",
        }
    }

    pub fn from_id(id: &str) -> Option<Role> {
        use Role::*;
        [
            Brief,
            Product,
            Patterns,
            Tech,
            Active,
            Progress,
            Decisions,
            Rules,
            Instructions,
            Session,
            Adr,
            Glossary,
            Config,
            Other,
        ]
        .into_iter()
        .find(|r| r.id() == id)
    }

    /// Roles whose content is a decision history that must only grow.
    pub fn is_decision_log(self) -> bool {
        matches!(self, Role::Decisions | Role::Adr)
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// When an agent loads a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoadKind {
    /// Read at every session start.
    Startup,
    /// Read only when a condition holds (a rule's `paths:`, a subfolder's file, a mode).
    OnDemand,
    /// Offered to the agent by its description; the agent decides whether to read it
    /// (Cursor's description-only rules, Windsurf's `model_decision`, Kiro's `auto`).
    AgentRequested,
    /// Read only when the user names it (`@rule`, `#steering-file`).
    Manual,
    /// Kept in the bank but never loaded automatically (archives, indexes, configuration).
    Never,
}

impl LoadKind {
    /// When the file loads, in words: "session start", "on demand"…
    pub fn label(self) -> &'static str {
        match self {
            LoadKind::Startup => "session start",
            LoadKind::OnDemand => "on demand",
            LoadKind::AgentRequested => "agent-requested",
            LoadKind::Manual => "manual",
            LoadKind::Never => "never",
        }
    }
}

/// A folder found under the root that holds at least one memory format.
/// Built from directory listings and metadata only.
#[derive(Debug, Clone, Serialize)]
pub struct Project {
    pub name: String,
    pub path: PathBuf,
    pub banks: Vec<BankLocation>,
    /// Newest modification time among the memory locations found (metadata only).
    #[serde(skip)]
    pub last_write: Option<SystemTime>,
    /// The folder's real path (links resolved), as discovery found it on its way down
    /// from the root; `None` when not known, and then resolved where it is needed.
    #[serde(skip)]
    pub real: Option<PathBuf>,
}

impl Project {
    pub fn formats(&self) -> Vec<Format> {
        let mut formats: Vec<Format> = self.banks.iter().map(|b| b.format).collect();
        formats.dedup();
        formats
    }
}

/// Where one bank lives inside a project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BankLocation {
    pub format: Format,
    /// The bank's memory folder, or the project folder for file-based formats.
    pub root: PathBuf,
}

/// One memory file, real or virtual (an Infinity memory inside `memories.json`).
#[derive(Debug, Clone, Serialize)]
pub struct MemoryFile {
    /// Absolute path on disk (for virtual files, the store's path).
    pub path: PathBuf,
    /// Path relative to the project, as shown to people; virtual files add `#id`.
    pub display: String,
    pub role: Role,
    /// Layer number in the format's read order (1-based), where the format defines one.
    pub layer: Option<u8>,
    /// Position in the bank's read order (0-based, total order).
    pub order: usize,
    /// Collapsible group in the tree: "decisions", "sessions", "rules", an Infinity type…
    pub group: Option<String>,
    pub load: LoadKind,
    pub size: u64,
    #[serde(skip)]
    pub modified: Option<SystemTime>,
    /// When the file's inode last changed (`crate::io::paths::change_time`):
    /// with the size and modification time, what tells one version of a file from the
    /// next.
    #[serde(skip)]
    pub changed: Option<SystemTime>,
    /// The file's inode when it was listed: with the three above, the stamp a remembered
    /// result is checked against, so that result needs no second `stat` of the file.
    #[serde(skip)]
    pub inode: Option<u64>,
    /// Infinity memory this file stands for.
    pub memory: Option<VirtualMemory>,
    /// Why the file cannot be read, when it cannot (it is still listed).
    pub unreadable: Option<String>,
}

/// Identity of an Infinity memory shown as a virtual file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VirtualMemory {
    pub id: String,
    pub title: String,
    pub kind: String,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
}

impl MemoryFile {
    pub fn is_virtual(&self) -> bool {
        self.memory.is_some()
    }

    pub fn file_name(&self) -> std::borrow::Cow<'_, str> {
        crate::io::paths::file_name(&self.path)
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    }
}

/// A mode rule file's view of the bank (`.clinerules-{mode}`, `.roorules-*`, `.roomodes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModeRule {
    pub mode: String,
    pub source: PathBuf,
    pub reads: Vec<String>,
    pub updates: Vec<String>,
}

/// One memory of an Infinity store, as parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InfinityMemory {
    pub id: String,
    pub title: String,
    pub kind: String,
    pub content: String,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    /// 1-based line where the memory's object starts in the store, when found.
    pub line: usize,
}

/// An Infinity store's memories and the project id it names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InfinityStore {
    pub project_id: Option<String>,
    pub memories: Vec<InfinityMemory>,
}

/// An Infinity store (`.infinity/memories.json`) as parsed once: its memories and its
/// departures from the schema. A bank listed from a store carries it, so counting and
/// checking its memories read nothing again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedStore {
    pub store: InfinityStore,
    pub issues: Vec<SchemaIssue>,
}

/// A departure of an Infinity store from its schema: where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaIssue {
    pub line: usize,
    pub message: String,
}

/// One bank of a project, with its files in the format's read order.
#[derive(Debug, Clone, Serialize)]
pub struct Bank {
    pub format: Format,
    pub root: PathBuf,
    pub files: Vec<MemoryFile>,
    /// Infinity store's project id.
    pub project_id: Option<String>,
    pub modes: Vec<ModeRule>,
    /// Problems met while listing the bank (a broken store, an unreadable folder).
    pub problems: Vec<BankProblem>,
    /// Symlinks met while listing whose real location is outside the project: nothing
    /// behind them is listed (see `confine`).
    pub outside: Vec<OutsideLink>,
    /// The Infinity store as parsed while this bank was listed, when it was parsed then
    /// (not when the listing came from the cache): its memories' texts and schema
    /// problems, so neither is parsed again.
    #[serde(skip)]
    pub parsed_store: Option<std::sync::Arc<ParsedStore>>,
}

/// A problem met while listing a bank. It reads (and serializes) as a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BankProblem {
    /// A symlink that points to nothing, loops or cannot be resolved: not listed.
    SymlinkNotFollowed { link: PathBuf, reason: String },
    /// A folder that could not be listed: the files in it are missing.
    FolderUnlisted { folder: PathBuf, error: String },
    /// A bank with more files than listing takes: the rest are missing.
    TooManyFiles { bank: PathBuf, limit: usize },
    /// Infinity's store file, which cannot be read.
    StoreUnreadable { store: PathBuf, error: String },
    /// Infinity's store, which cannot be parsed; the store is listed as one unreadable
    /// file. The text says what is wrong with it.
    StoreBroken(String),
    /// The agent's settings, which cannot be read: the text says which and what applies
    /// instead.
    Settings(String),
}

impl BankProblem {
    /// Whether files are missing from the listing because of it (a dangling link or a
    /// broken store is listed and shown on its own instead).
    pub fn leaves_files_out(&self) -> bool {
        matches!(
            self,
            BankProblem::FolderUnlisted { .. } | BankProblem::TooManyFiles { .. }
        )
    }
}

impl std::fmt::Display for BankProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BankProblem::SymlinkNotFollowed { link, reason } => {
                write!(f, "cannot follow the symlink {}: {reason}", link.display())
            }
            BankProblem::FolderUnlisted { folder, error } => {
                write!(f, "cannot list {}: {error}", folder.display())
            }
            BankProblem::TooManyFiles { bank, limit } => write!(
                f,
                "{} holds more than {limit} files; the rest are not listed",
                bank.display()
            ),
            BankProblem::StoreUnreadable { store, error } => {
                write!(f, "cannot read {}: {error}", store.display())
            }
            BankProblem::StoreBroken(text) | BankProblem::Settings(text) => f.write_str(text),
        }
    }
}

impl Serialize for BankProblem {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl Bank {
    /// Whether `path` lies behind one of the bank's outside links (never to be read).
    pub(crate) fn reaches_outside(&self, path: &std::path::Path) -> bool {
        self.outside.iter().any(|l| path.starts_with(&l.link))
    }
}

/// Files and banks as the tests build them: nothing but a path, a role and a format.
#[cfg(test)]
impl MemoryFile {
    pub(crate) fn for_test(path: PathBuf, display: &str, role: Role) -> MemoryFile {
        MemoryFile {
            path,
            display: display.to_string(),
            role,
            layer: None,
            order: 0,
            group: None,
            load: LoadKind::Startup,
            size: 0,
            modified: None,
            changed: None,
            inode: None,
            memory: None,
            unreadable: None,
        }
    }
}

#[cfg(test)]
impl Bank {
    pub(crate) fn for_test(format: Format, root: PathBuf, files: Vec<MemoryFile>) -> Bank {
        Bank {
            format,
            root,
            files,
            project_id: None,
            modes: vec![],
            problems: vec![],
            outside: vec![],
            parsed_store: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bank_problem_reads_and_serializes_as_its_sentence() {
        let cases = [
            (
                BankProblem::SymlinkNotFollowed {
                    link: PathBuf::from("/p/memory-bank/x.md"),
                    reason: "it points to nothing".into(),
                },
                "cannot follow the symlink /p/memory-bank/x.md: it points to nothing",
                false,
            ),
            (
                BankProblem::FolderUnlisted {
                    folder: PathBuf::from("/p/memory-bank"),
                    error: "Permission denied (os error 13)".into(),
                },
                "cannot list /p/memory-bank: Permission denied (os error 13)",
                true,
            ),
            (
                BankProblem::TooManyFiles {
                    bank: PathBuf::from("/p/memory-bank"),
                    limit: 5_000,
                },
                "/p/memory-bank holds more than 5000 files; the rest are not listed",
                true,
            ),
            (
                BankProblem::StoreUnreadable {
                    store: PathBuf::from("/p/.infinity/memories.json"),
                    error: "Permission denied (os error 13)".into(),
                },
                "cannot read /p/.infinity/memories.json: Permission denied (os error 13)",
                false,
            ),
            (
                BankProblem::StoreBroken("the store is not JSON".into()),
                "the store is not JSON",
                false,
            ),
            (
                BankProblem::Settings("~/.claude/settings.json is not valid JSON".into()),
                "~/.claude/settings.json is not valid JSON",
                false,
            ),
        ];
        for (problem, text, leaves_out) in cases {
            assert_eq!(problem.to_string(), text);
            assert_eq!(
                serde_json::to_value(&problem).unwrap(),
                serde_json::json!(text)
            );
            assert_eq!(problem.leaves_files_out(), leaves_out, "{text}");
        }
    }
}
