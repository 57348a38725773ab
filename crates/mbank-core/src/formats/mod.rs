//! The memory formats mbank understands, one family per file. Each describes itself
//! through [`FormatRules`]; bank listing places files, the analysis takes budgets and
//! expected files, and review asks which paths a bank keeps, all through [`rules`],
//! without matching on a format.
//!
//! | file | formats |
//! |---|---|
//! | `cline.rs` | Cline memory bank (`memory-bank/`, `.cursor/memory-bank/`) and what the memory-bank family shares |
//! | `memory_bank_mcp.rs` | Memory Bank MCP / Roo memory bank, and the JSON document banks of its server |
//! | `roo_rules/` | Cline/Roo rule and mode files (`.clinerules*`, `.roorules-*`, `.roomodes`, `.roo/`) and their parser |
//! | `instruction_files.rs` | what the instruction-file family shares (`X.md`, `X.local.md`, rules, sub-folders) |
//! | `claude_md.rs`, `agents_md.rs`, `gemini_md.rs`, `beans_md.rs` | that family's members |
//! | `layers.rs` | the user's and the folders-above files those agents load around the project |
//! | `infinity/` | the Infinity structured JSON store and its parser |
//! | `claude_auto_memory.rs` | Claude Code's auto memory (`~/.claude/projects/<project>/memory/`) |
//! | `conkeeper.rs` | ConKeeper (`.claude/memory/`, `.ai/memory/`) and its budget presets |
//! | `names.rs` | the file-name table every memory-bank format reads roles from |
//! | `purposes.rs` | what each core file is for: the section headings of a format's templates by role |
//! | `cursor_rules.rs`, `copilot.rs`, `windsurf.rs`, `kiro.rs` | rule-file formats of editors and agents: files at fixed places and rule folders, loaded by their frontmatter |
//! | `kilo_code.rs` | Kilo Code's rules, mode rules, system prompt overrides and the memory bank it keeps among them; Kilo Memory in Kilo's data folder |
//! | `junie.rs`, `trae.rs`, `zed.rs` | JetBrains Junie's guidelines, Trae's project rules, Zed's own rule files (Zed reads the first of a list of several agents' files) |
//! | `opencode.rs` | how opencode reads the AGENTS.md (or CLAUDE.md) it finds, and its user file |
//! | `adr_records.rs` | architecture decision records beside the code (`docs/adr/`, `doc/adr/`, `docs/decisions/`, and the other places ADR tools name) |
//! | `agents.rs` | which agent loads which formats at its session start (`mbank context --agent`) |
//! | `rule_frontmatter.rs` | the lenient frontmatter reader those four share |
//!
//! # How to add a format
//!
//! 1. Name it: a variant of [`Format`] in `model.rs` with its id and label (and in
//!    `Format::ALL`, whose order is the order banks are shown in).
//! 2. Write `formats/<name>.rs`: a unit struct implementing [`FormatRules`]. Only
//!    [`format`](FormatRules::format) and [`place`](FormatRules::place) are required;
//!    every other method has a default meaning "this format has no such rule". Give
//!    each [`Budget`] its source from the closed set of [`RuleSource`]s, the names a user
//!    knows ("Cline's memory bank guidelines"), never a design document.
//! 3. Register it: one arm in [`rules`] (the compiler points there), and give each
//!    method whose default does not fit it an answer (where it lives, how it is listed,
//!    what its agent cuts).
//! 4. Add fixtures and tests: a project folder of that shape under a temp dir.
//!
//! A format whose files sit at fixed places in the project (rule files and rule
//! folders, like Cursor's) needs nothing more: it names them in
//! [`project_paths`](FormatRules::project_paths), and discovery and bank listing find
//! them; [`frontmatter_load`](FormatRules::frontmatter_load) decides when each loads and
//! [`check_text`](FormatRules::check_text) adds its own findings.
//!
//! Every engine asks this interface and never matches on a format: discovery
//! ([`top_markers`](FormatRules::top_markers), the memory folders' constants), bank
//! listing ([`listing`](FormatRules::listing),
//! [`outside_project`](FormatRules::outside_project)), the content checks
//! ([`settings_file`](FormatRules::settings_file),
//! [`honours_private_blocks`](FormatRules::honours_private_blocks) …), the session rules
//! ([`file_limit`](FormatRules::file_limit),
//! [`combined_limit`](FormatRules::combined_limit) …, which `analysis::load_cut` turns into
//! cuts),
//! guarded writes ([`may_create`](FormatRules::may_create),
//! [`read_only`](FormatRules::read_only)) and the memory-bank servers
//! ([`entry_file`](FormatRules::entry_file)). `tests/it/format_names.rs` fails on a
//! format's file name spelled, or a format picked by its variant, anywhere else.
use std::borrow::Cow;
use std::path::{Path, PathBuf};

use crate::findings::{Finding, RuleSource};
use crate::model::{Bank, Format, LoadKind, MemoryFile, Role};

pub(crate) use memory_bank_mcp::{DOCUMENT_BANK_DIRS, place_document_bank};
pub use names::role_for_name;
pub(crate) use names::{adr_number, is_adr_name, name_key};
pub use purposes::PurposeHeadings;
pub(crate) use roo_rules::mode_of_rule_file;
pub use units::Unit;

pub(crate) mod adr_records;
pub mod agents;
pub(crate) mod agents_md;
pub(crate) mod beans_md;
pub mod claude_auto_memory;
pub(crate) mod claude_md;
pub mod cline;
pub(crate) mod codex_memories;
pub mod conkeeper;
pub mod copilot;
pub(crate) mod cursor_rules;
pub(crate) mod gemini_md;
pub mod infinity;
pub mod init;
pub(crate) mod instruction_files;
pub(crate) mod junie;
pub(crate) mod kilo_code;
pub mod kiro;
pub mod layers;
pub mod memory_bank_mcp;
pub mod names;
pub(crate) mod opencode;
pub mod purposes;
pub mod roo_rules;
pub(crate) mod rule_frontmatter;
pub(crate) mod trae;
pub mod units;
pub mod windsurf;
pub(crate) mod zed;

/// The rules of one memory format: where its files sit and when they load, which
/// budgets judge them, which core files a bank should hold.
pub trait FormatRules: Send + Sync {
    /// The variant of the shared vocabulary this file describes.
    fn format(&self) -> Format;

    /// Role, read-order layer, tree group and load kind of a file, given its path
    /// relative to the bank root.
    fn place(&self, rel: &Path) -> Placement;

    /// Whether a path relative to the bank root (a deleted file, say) is where this
    /// format keeps memory. Review uses it for files no longer listed.
    fn keeps(&self, _rel: &Path) -> bool {
        true
    }

    /// Budgets of one file. `preset` is the bank's own budget setting, if any. Token
    /// budgets come first: `config.toml` replaces them, never the others.
    fn file_budgets(&self, _file: &MemoryFile, _preset: Option<&str>) -> Vec<Budget> {
        Vec::new()
    }

    /// Budgets of what the bank loads at start-up, as a whole (same order rule).
    fn bank_budgets(&self, _preset: Option<&str>) -> Vec<Budget> {
        Vec::new()
    }

    /// [`bank_budgets`](FormatRules::bank_budgets) of the bank at `bank_root`, for a
    /// format whose settings there change them.
    fn bank_budgets_at(&self, _bank_root: &Path, preset: Option<&str>) -> Vec<Budget> {
        self.bank_budgets(preset)
    }

    /// Core files the bank should hold at its top.
    fn expected_files(&self, _bank: &Bank) -> ExpectedFiles {
        ExpectedFiles::default()
    }

    /// Whether the bank's contents (not its folder's name) prove it is of this format:
    /// only then is a missing required file an error and a budget of the format more than
    /// information. Folder names such as `memory-bank/` or `.claude/memory/` are shared by
    /// many tools and prove nothing; a format found by files of its own (`CLAUDE.md`,
    /// `.cursor/rules/`) is proven by them, the default.
    fn contents_prove_format(&self, _bank: &Bank) -> bool {
        true
    }

    /// The mode a session starts in, for formats whose loading depends on a mode:
    /// listings and loaded totals follow it; `mbank context --mode` picks another.
    fn default_mode(&self) -> Option<&'static str> {
        None
    }

    /// Whether the agent reads the files of one layer in file-name order (case aside)
    /// wherever they sit below the bank, rather than folder by folder.
    fn orders_by_file_name(&self) -> bool {
        false
    }

    /// Files and rule folders at fixed places in the project that make up a bank of
    /// this format; discovery and bank listing find them through this alone.
    fn project_paths(&self) -> ProjectPaths {
        ProjectPaths::default()
    }

    /// Whether the bank's files other than its decision logs may hold decision sections
    /// the timeline reads ("## Key Decisions" in an active context): not in a folder of
    /// records, whose other files (a README, an index) only point at them.
    fn has_decision_sections(&self) -> bool {
        true
    }

    /// Whether bank listing takes a file found in the folders of
    /// [`project_paths`](FormatRules::project_paths) (`rel` relative to the project): a
    /// folder kept beside the code holds other files too, such as an ADR folder's
    /// diagrams.
    fn lists(&self, _rel: &Path) -> bool {
        true
    }

    /// Rule folders (relative paths such as `.cursor/rules`) that may also sit in the
    /// project's sub-folders, a few levels down; bank listing finds and lists them whole.
    fn nested_folders(&self) -> &'static [&'static str] {
        &[]
    }

    /// Top markers (`.clinerules`) the agent reads only at the workspace root, which
    /// users still leave in a project's sub-folders. Found there, a few levels down (a
    /// file, or a folder listed whole), one makes a bank of the project holding it, whose
    /// files there load never (as [`place`](FormatRules::place) says of them), and the
    /// sub-folder it stands in is a layer of that project, not a project of its own.
    fn top_only_entries(&self) -> &'static [&'static str] {
        &[]
    }

    /// When a file loads, decided by its text (a rule's frontmatter): `None` keeps what
    /// [`place`](FormatRules::place) said. Asked only for files
    /// [`reads_frontmatter`](FormatRules::reads_frontmatter) names.
    fn frontmatter_load(&self, _rel: &Path, _text: &str) -> Option<LoadKind> {
        None
    }

    /// Whether a file's text decides when it loads (see
    /// [`frontmatter_load`](FormatRules::frontmatter_load)).
    fn reads_frontmatter(&self, _rel: &Path) -> bool {
        false
    }

    /// A finding on a file the agent never reads because of its name or place
    /// (`rel` relative to the bank root), whether or not it loads otherwise: for an
    /// instruction file, its name in another case.
    fn name_finding(&self, file: &MemoryFile, rel: &Path) -> Option<Finding> {
        instruction_member(self.format())?.miscased_finding(file, rel)
    }

    /// Files the format keeps out of git (ignored by .gitignore), with what the agent's
    /// documentation calls them: an instruction file's private `.local.md`, which Claude
    /// Code and Beans-Code add to .gitignore (members whose agent never loads it have no
    /// say).
    fn git_private_files(&self, bank: &Bank) -> Vec<PathBuf> {
        let Some(member) = instruction_member(self.format()) else {
            return Vec::new();
        };
        if member.local_ignored.is_some() {
            return Vec::new();
        }
        bank.files
            .iter()
            .filter(|file| !file.is_virtual() && file.file_name() == member.local)
            .map(|file| file.path.clone())
            .collect()
    }

    /// What the format's guidelines ask of each entry of its decision log; `None` when
    /// they say nothing.
    fn decision_entry_rules(&self) -> Option<DecisionEntryRules> {
        None
    }

    /// What each core file is for, as the headings of the format's templates say it: a
    /// role and the words of the section headings that belong to it. Empty when the
    /// format's files have no fixed purpose.
    fn purpose_headings(&self) -> &'static PurposeHeadings {
        &purposes::NO_PURPOSES
    }

    /// This format's own checks of one file's text (a rule that can never load…).
    fn check_text(&self, _file: &MemoryFile, _text: &str) -> Vec<Finding> {
        Vec::new()
    }

    /// The folder the agent reads instead of the bank at `bank_root`, when the format
    /// reads only the first of several places and an earlier one exists: nothing in the
    /// bank loads.
    fn read_instead(&self, _bank_root: &Path) -> Option<PathBuf> {
        None
    }

    /// Settles what loads once the whole bank is listed, for rules a single path cannot
    /// decide (`bank_root` is the bank's folder).
    fn settle_loads(&self, _bank_root: &Path, _files: &mut [MemoryFile]) {}

    /// Whether the bank's groups are banks of their own (one per git branch), so a
    /// file's staleness is judged against its own group only: an old branch's notes
    /// are not stale because another branch moved on.
    fn groups_are_separate_banks(&self, _bank: &Bank) -> bool {
        false
    }

    /// How strongly this format asks each memory file for a markdown heading: a rule
    /// of the format's own specification, one borrowed from a sibling (information at
    /// most), or none (rule files, which agents read whole and nobody navigates).
    /// `bank_proven` is [`FormatRules::contents_prove_format`] of the file's bank, worked
    /// out once per bank (asked per file, checking a bank would be quadratic in its files).
    fn heading_rule(&self, _file: &MemoryFile, _bank_proven: bool) -> HeadingRule {
        HeadingRule::None
    }

    /// The project folder a bank rooted at `bank_root` belongs to: the folder itself for
    /// formats found at the project's top (or outside it, like auto memory).
    fn project_of(&self, bank_root: &Path) -> Option<PathBuf> {
        Some(bank_root.to_path_buf())
    }

    /// Whether mbank may create a file that does not exist yet at `rel` (relative to the
    /// bank root): only where the format keeps files of its own. Rule files are edited
    /// where they are, never created; an instruction-file member creates its known names.
    fn may_create(&self, rel: &Path) -> bool {
        instruction_member(self.format()).is_some_and(|files| files.may_create(rel))
    }

    /// What the session's note says of the bank's files read on demand (`count` of them),
    /// for a format whose agent looks them up itself.
    fn on_demand_note(&self, _count: usize) -> Option<String> {
        None
    }

    /// Where the agent stops reading one file it loads (`rel` relative to the bank):
    /// Claude Code reads 200 lines / 25 KB of auto memory's `MEMORY.md`, Windsurf 12,000
    /// characters of a rule file. `analysis::load_cut` computes the cut from it.
    fn file_limit(&self, _rel: &Path) -> Option<FileLimit> {
        None
    }

    /// What the files of this format load together at most (Codex stops AGENTS.md files
    /// at 32 KiB combined), counted over the project's files, not the user's.
    fn combined_limit(&self) -> Option<CombinedLimit> {
        None
    }

    /// Why the agent skips a file it would load, judged by its text (Codex skips empty
    /// files).
    fn skips_text(&self, _text: &str) -> Option<&'static str> {
        None
    }

    /// A note on a loaded file's size the agent warns about (`file_name` is its name).
    fn size_note(&self, _file_name: &str, _text: &str) -> Option<String> {
        None
    }

    /// The file that takes this one's place, when `listed` says it is there, and why
    /// (Codex reads `AGENTS.override.md` instead of the `AGENTS.md` beside it).
    fn superseded_by(
        &self,
        _file: &Path,
        _listed: &dyn Fn(&Path) -> bool,
    ) -> Option<(PathBuf, &'static str)> {
        None
    }

    /// A note on a direct `@import` of `imported_name` (written `written`) in a project
    /// file shown as `shown`, when the agent does not expand it everywhere it loads the
    /// file (Claude Code loading a CLAUDE.md as an ancestor): the finding's message.
    fn ancestor_import_note(
        &self,
        _imported_name: &str,
        _written: &str,
        _shown: &str,
    ) -> Option<String> {
        None
    }

    /// Whether the bank is a memory folder of the memory-bank family (Cline, Memory Bank
    /// MCP, ConKeeper): a folder in the project whose every file is memory the agent keeps.
    fn is_memory_folder(&self) -> bool {
        false
    }

    /// Whether the bank is one structured store file whose records are virtual files.
    fn is_store(&self) -> bool {
        matches!(self.listing(), Listing::Store)
    }

    /// The bank's settings file at its top (ConKeeper's `.memory-config.md`): its content
    /// is checked though it never loads, and budgets and staleness read it.
    fn settings_file(&self) -> Option<&'static str> {
        None
    }

    /// Whether the agent strips `<private>` blocks (and whole `private: true` files) from
    /// what it loads.
    fn honours_private_blocks(&self) -> bool {
        false
    }

    /// Whether the format's specification names its ADR files (`NNNN-title.md`), so
    /// another name is a finding.
    fn names_adr_files(&self) -> bool {
        false
    }

    /// Sub-folders a bank proven of this format must have, even when empty.
    fn required_folders(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether the agent expands `@path` imports in this format's files (Codex reads
    /// AGENTS.md verbatim, so an `@` there is plain text).
    fn expands_imports(&self) -> bool {
        false
    }

    /// How many `@import` hops deep the agent follows, when it says ([`None`]: Claude
    /// Code's four, which the instruction-file family shares).
    fn import_depth(&self) -> Option<usize> {
        None
    }

    /// [`import_depth`](FormatRules::import_depth) in `project`, for a format whose
    /// settings (the project's or the user's under `home`) change it; `Some(0)`: no
    /// import is followed.
    fn import_depth_at(&self, _project: &Path, _home: Option<&Path>) -> Option<usize> {
        self.import_depth()
    }

    /// File names an instruction-file member's agent reads besides its main file, at the
    /// project's top, in its folder and in sub-folders (names its settings give).
    fn extra_names(&self, _project: &Path) -> Vec<String> {
        Vec::new()
    }

    /// Whether the bank is made of the project's mode rule files (`.roomodes`,
    /// `.clinerules-{mode}`, `.roo/rules-{mode}/`), which say which modes exist and what
    /// each reads.
    fn holds_mode_rules(&self) -> bool {
        false
    }

    /// Whether the memory-bank servers (Cline's and Memory Bank MCP's tools) read and
    /// write banks of this format.
    fn serves_memory_bank_tools(&self) -> bool {
        false
    }

    /// The file the memory-bank tools add an entry of `role` to when the bank has none
    /// of that role yet (a decision, a progress line, a session note).
    fn entry_file(&self, _role: Role) -> Option<&'static str> {
        None
    }

    /// How the memory-bank tools write entries into this format's files.
    fn entry_style(&self) -> EntryStyle {
        EntryStyle::Cline
    }

    /// Whether what the agent loads differs from the listed files' text (imports expanded,
    /// `<private>` blocks stripped), so a view computes the session's context to show it.
    fn session_text_differs(&self) -> bool {
        instruction_member(self.format()).is_some()
    }

    /// Why mbank never writes this format's files, when it never does (the agent owns them).
    fn read_only(&self) -> Option<&'static str> {
        None
    }

    /// Names of entries at a folder's top that make the folder a project holding a bank
    /// of this format (rooted at the folder). Memory folders and rule folders at fixed
    /// places are found through [`project_paths`](FormatRules::project_paths) and the
    /// memory-folder markers instead.
    fn top_markers(&self) -> TopMarkers {
        TopMarkers {
            names: instruction_member(self.format()).map_or(&[], |files| files.top_markers),
            prefixes: &[],
        }
    }

    /// How bank listing finds the bank's files.
    fn listing(&self) -> Listing {
        match instruction_member(self.format()) {
            Some(files) => Listing::Instructions(files),
            None => Listing::ProjectPaths(self.project_paths()),
        }
    }

    /// For a bank kept outside the project (in the home folder): the folder its files must
    /// stay in, and the home folder its paths are shown from (`~/…`) when it sits at the
    /// agent's default place there.
    fn outside_project(&self, _bank_root: &Path) -> Option<OutsideProject> {
        None
    }

    /// Problems of the bank's setting up that listing reports (a settings file the agent
    /// cannot read, say).
    fn listing_problems(&self, _bank_root: &Path) -> Vec<crate::model::BankProblem> {
        Vec::new()
    }

    /// Whether the bank's top files are read in the order its modes' rule files list them
    /// (`files_to_read`), before the format's own order.
    fn reads_in_mode_order(&self, _bank_root: &Path) -> bool {
        false
    }

    /// The agent reads frontmatter leniently (Cursor's bare `globs: **/*.ts`) or not at
    /// all (Roo sends rule files whole), so a
    /// strict YAML error is not a finding; [`check_text`](FormatRules::check_text) says
    /// what the agent really cannot read.
    fn lenient_frontmatter(&self) -> bool {
        false
    }
}

/// How entries (decisions, progress lines) are written into a format's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryStyle {
    /// The Cline memory bank's: `## [date] Title` decision blocks.
    Cline,
    /// The Memory Bank MCP server's own decision format.
    MemoryBankMcp,
}

/// Entries at a folder's top that mark a format's bank (see [`FormatRules::top_markers`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct TopMarkers {
    /// Whole names: `CLAUDE.md`, `.roomodes`.
    pub names: &'static [&'static str],
    /// Beginnings of names: `.clinerules-` (a mode's rule file).
    pub prefixes: &'static [&'static str],
}

/// Every format's top markers, gathered once: which format an entry named `name` at a
/// folder's top marks, if any.
pub(crate) fn top_marker_format(name: &str) -> Option<Format> {
    static MARKERS: std::sync::LazyLock<Vec<(Format, TopMarkers)>> =
        std::sync::LazyLock::new(|| {
            all()
                .map(|rules| (rules.format(), rules.top_markers()))
                .filter(|(_, m)| !m.names.is_empty() || !m.prefixes.is_empty())
                .collect()
        });
    MARKERS
        .iter()
        .find_map(|(format, markers)| {
            (markers.names.contains(&name) || markers.prefixes.iter().any(|p| name.starts_with(p)))
                .then_some(*format)
        })
        .or_else(|| {
            // An instruction file named in another case (`agents.md`) still marks the
            // project whose agent misses it, so the listing can say so.
            Format::ALL
                .into_iter()
                .find(|&format| instruction_member(format).is_some_and(|m| m.is_miscased(name)))
        })
}

/// The format whose top-only entry (see [`FormatRules::top_only_entries`]) is named
/// `name`, if any: met in a sub-folder, the entry belongs to the project above.
pub(crate) fn top_only_format(name: &str) -> Option<Format> {
    static ENTRIES: std::sync::LazyLock<Vec<(Format, &'static [&'static str])>> =
        std::sync::LazyLock::new(|| {
            all()
                .map(|rules| (rules.format(), rules.top_only_entries()))
                .filter(|(_, names)| !names.is_empty())
                .collect()
        });
    ENTRIES
        .iter()
        .find_map(|(format, names)| names.contains(&name).then_some(*format))
}

/// How bank listing finds a format's files.
#[derive(Debug, Clone, Copy)]
pub enum Listing {
    /// Every file of the bank's own folder, walked.
    Folder,
    /// Entries at the project's top: files whose name `is_rule_file` accepts, and the
    /// folders named in `folders` walked whole (a name in both is either).
    TopEntries {
        is_rule_file: fn(&str) -> bool,
        folders: &'static [&'static str],
    },
    /// One structured store file in the bank's folder, each record a virtual file.
    Store,
    /// An instruction-file member's files at the top, in its folder and in sub-folders.
    Instructions(&'static instruction_files::InstructionFiles),
    /// Files and rule folders at fixed places in the project.
    ProjectPaths(ProjectPaths),
}

/// What the files of a format load together at most (see
/// [`FormatRules::combined_limit`]).
#[derive(Debug, Clone, Copy)]
pub struct CombinedLimit {
    /// The agent that applies it, as a person names it.
    pub agent: &'static str,
    pub max_bytes: usize,
    /// The rule in words, for the cut's record.
    pub rule: &'static str,
    /// Why a file past the limit loads nothing.
    pub used_up: &'static str,
    /// What the note on a cut file adds: "32 KiB combined limit".
    pub note: &'static str,
    /// The code of the finding on a cut file.
    pub code: crate::findings::FindingCode,
    /// Its message: the file as shown, the line of the cut, the bytes kept, and the
    /// lines and bytes dropped.
    pub message: fn(&str, usize, usize, usize, usize) -> String,
}

/// Where an agent stops reading one file (see [`FormatRules::file_limit`]): its first
/// lines, bytes or characters, whichever bound given comes first. Lines are kept whole
/// under a line or byte bound (a first line longer than the byte bound is cut inside);
/// a character bound cuts where it falls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileLimit {
    /// The agent that applies it, as a person names it.
    pub agent: &'static str,
    pub max_lines: Option<usize>,
    pub max_bytes: Option<usize>,
    pub max_chars: Option<usize>,
    /// The rule in words, with its source.
    pub rule: &'static str,
}

/// A bank kept outside the project (see [`FormatRules::outside_project`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutsideProject {
    /// The folder the bank's files must stay in.
    pub allowed_root: PathBuf,
    /// The home folder paths are shown from, when the bank is at its default place.
    pub home: Option<PathBuf>,
}

/// What a format's guidelines ask of each decision log entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecisionEntryRules {
    /// Every entry carries its date.
    pub dated: bool,
    /// The size an entry keeps to, in tokens.
    pub tokens: u64,
    /// Who says so.
    pub source: RuleSource,
}

/// Whether a format asks its files for a heading, and on whose authority.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadingRule {
    /// Rule files and instructions: agents read them whole.
    None,
    /// A sibling format's rule, shown as information.
    Borrowed,
    /// The format's own specification requires one.
    Required,
}

/// Where a rule-file format keeps its files, relative to the project folder.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProjectPaths {
    /// Files at fixed places: `.cursorrules`, `.github/copilot-instructions.md`.
    pub files: &'static [&'static str],
    /// Folders whose files are the format's rules, listed to any depth: `.cursor/rules`.
    pub folders: &'static [&'static str],
    /// Files in a folder named like the format's own but not as the agent needs
    /// (`.github/copilot-instruction.md`): listed so that a finding can name them, never
    /// loaded.
    pub lookalikes: &'static [Lookalike],
}

/// Files of one folder whose names a format's agent would miss (see
/// [`ProjectPaths::lookalikes`]).
#[derive(Debug, Clone, Copy)]
pub struct Lookalike {
    /// The folder, relative to the project: `.github`.
    pub folder: &'static str,
    /// Whether a file name there is such a lookalike.
    pub name: fn(&str) -> bool,
}

impl ProjectPaths {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.folders.is_empty() && self.lookalikes.is_empty()
    }

    /// Whether a path relative to the project is one of these files or inside one of
    /// these folders.
    pub fn contains(&self, rel: &Path) -> bool {
        self.files.iter().any(|f| rel == Path::new(f))
            || self.folders.iter().any(|d| rel.starts_with(d))
            || self.lookalikes.iter().any(|l| {
                rel.parent() == Some(Path::new(l.folder))
                    && rel.file_name().and_then(|n| n.to_str()).is_some_and(l.name)
            })
    }
}

/// The rules of a format.
pub fn rules(format: Format) -> &'static dyn FormatRules {
    match format {
        Format::Cline => &cline::Cline,
        Format::MemoryBankMcp => &memory_bank_mcp::MemoryBankMcp,
        Format::RooRules => &roo_rules::RooRules,
        Format::ClaudeMd => &claude_md::ClaudeMd,
        Format::AgentsMd => &agents_md::AgentsMd,
        Format::GeminiMd => &gemini_md::GeminiMd,
        Format::BeansMd => &beans_md::BeansMd,
        Format::Infinity => &infinity::Infinity,
        Format::ConKeeper => &conkeeper::ConKeeper,
        Format::CursorRules => &cursor_rules::CursorRules,
        Format::Copilot => &copilot::Copilot,
        Format::Windsurf => &windsurf::Windsurf,
        Format::Kiro => &kiro::Kiro,
        Format::KiloCode => &kilo_code::KiloCode,
        Format::KiloMemory => &kilo_code::KiloMemory,
        Format::ClaudeAutoMemory => &claude_auto_memory::ClaudeAutoMemory,
        Format::Junie => &junie::Junie,
        Format::TraeRules => &trae::TraeRules,
        Format::ZedRules => &zed::ZedRules,
        Format::OpenCode => &opencode::OpenCode,
        Format::AdrRecords => &adr_records::AdrRecords,
    }
}

/// Rule files of the agents that keep a memory bank, relative to the project, where a
/// project may declare its bank's own file set (a `.clinerules` listing the files).
pub const DECLARING_RULE_FILES: [&str; 4] = [
    ".clinerules",
    copilot::MAIN_FILE,
    claude_md::FILES.main,
    agents_md::FILES.main,
];
/// Folders whose files (one level; in `.roo/`, its `rules*` folders) are such rules.
pub const DECLARING_RULE_FOLDERS: [&str; 6] = [
    ".clinerules",
    windsurf::RULES_DIR,
    kilo_code::RULES_DIR,
    copilot::INSTRUCTIONS_DIR,
    cursor_rules::RULES_DIR,
    roo_rules::ROO_DIR,
];

/// The project a memory folder (Cline, Memory Bank MCP, ConKeeper) belongs to: the folder above it, or the one
/// above its container (`.cursor/memory-bank/`, `.claude/memory/`, `docs/global-memory-bank/`).
pub(crate) fn project_of_memory_folder(root: &Path) -> Option<PathBuf> {
    let name_of = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let parent_name = root.parent().map(name_of).unwrap_or_default();
    let name = name_of(root);
    let in_container = (name == cline::BANK_DIR
        && cline::EDITOR_FOLDERS.contains(&parent_name.as_str()))
        || (name == conkeeper::FOLDER && conkeeper::CONTAINERS.contains(&parent_name.as_str()))
        || (memory_bank_mcp::DOCUMENT_BANK_DIRS.contains(&name.as_str())
            && parent_name == memory_bank_mcp::DOCUMENT_BANKS_PARENT);
    if in_container {
        root.parent().and_then(Path::parent).map(Path::to_path_buf)
    } else {
        root.parent().map(Path::to_path_buf)
    }
}

/// Agents' own folders in a project, whose files are tracked configuration: Claude's,
/// Cursor's and Roo's.
pub(crate) const AGENT_FOLDERS: [&str; 3] = [
    claude_md::FILES.dot_dir,
    cline::EDITOR_FOLDERS[0],
    roo_rules::ROO_DIR,
];

/// The member of the instruction-file family a format is (see `instruction_files.rs`).
pub(crate) fn instruction_member(
    format: Format,
) -> Option<&'static instruction_files::InstructionFiles> {
    match format {
        Format::ClaudeMd => Some(&claude_md::FILES),
        Format::AgentsMd => Some(&agents_md::FILES),
        Format::GeminiMd => Some(&gemini_md::FILES),
        Format::BeansMd => Some(&beans_md::FILES),
        _ => None,
    }
}

/// Whether a format is an instruction-file member (loads as a hierarchy with `@imports`).
pub(crate) fn is_instruction_file(format: Format) -> bool {
    instruction_member(format).is_some()
}

/// The main places discovery looks for, in words for a message ("memory-bank/,
/// .claude/memory/, CLAUDE.md, …"); folders end in `/`.
pub fn looked_for() -> String {
    let places = [
        format!("{}/", cline::BANK_DIR),
        format!("{}/{}/", conkeeper::CONTAINERS[0], conkeeper::FOLDER),
        claude_md::FILES.main.to_string(),
        agents_md::FILES.main.to_string(),
        gemini_md::FILES.main.to_string(),
        format!("{}/", infinity::DIR),
        roo_rules::CLINERULES.to_string(),
        format!("{}/", roo_rules::ROO_DIR),
    ];
    places.join(", ")
}

/// Every member of the instruction-file family.
pub fn instruction_family() -> impl Iterator<Item = &'static instruction_files::InstructionFiles> {
    Format::ALL.into_iter().filter_map(instruction_member)
}

/// Every registered format, in [`Format::ALL`] order.
pub fn all() -> impl Iterator<Item = &'static dyn FormatRules> {
    Format::ALL.into_iter().map(rules)
}

/// The first names of the formats' fixed places that are not hidden (`docs` of
/// `docs/adr`): discovery asks every format about each hidden name in a project's folder
/// (`.cursor`), and about these alone of the others.
pub(crate) fn plain_place_heads() -> &'static [&'static str] {
    static HEADS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
        let mut heads: Vec<&'static str> = all()
            .flat_map(|rules| {
                let paths = rules.project_paths();
                paths.files.iter().chain(paths.folders.iter()).copied()
            })
            .filter_map(|place| place.split('/').next())
            .filter(|head| !head.starts_with('.'))
            .collect();
        heads.sort_unstable();
        heads.dedup();
        heads
    });
    &HEADS
}

/// Places a file of a bank of `format`, given its path relative to the bank root.
pub fn place(format: Format, rel: &Path) -> Placement {
    rules(format).place(rel)
}

/// Where a file sits in its format's scheme.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub role: Role,
    /// Read-order layer (1-based), where the format defines one.
    pub layer: Option<u8>,
    /// Collapsible group in the tree: "decisions", "rules", a branch…
    pub group: Option<String>,
    pub load: LoadKind,
}

/// The file name of a path relative to a bank root, and the folders above it.
pub(crate) fn split_rel(rel: &Path) -> (Cow<'_, str>, Vec<String>) {
    let file_name = crate::io::paths::file_name(rel)
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let parents = rel
        .parent()
        .map(|p| {
            p.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    (file_name, parents)
}

/// A size rule of a format, before it is measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    /// The rule in words: "500–1,000 tokens per file".
    pub rule: Cow<'static, str>,
    /// Where it comes from, named as a user knows it.
    pub source: RuleSource,
    pub unit: Unit,
    pub limit: u64,
    /// The agent silently drops what is past the limit (rather than merely warning).
    pub cuts_off: bool,
    /// The rule is another format's, applied here because this format documents no
    /// limit of its own: going over it is at most information.
    pub borrowed: bool,
}

impl Budget {
    /// A rule the agent only warns about (or that is advice).
    pub fn new(
        rule: impl Into<Cow<'static, str>>,
        source: RuleSource,
        unit: Unit,
        limit: u64,
    ) -> Budget {
        Budget {
            rule: rule.into(),
            source,
            unit,
            limit,
            cuts_off: false,
            borrowed: false,
        }
    }

    /// Another format's rule, applied to a format that documents no such limit itself.
    pub fn borrowed(
        rule: impl Into<Cow<'static, str>>,
        source: RuleSource,
        unit: Unit,
        limit: u64,
    ) -> Budget {
        Budget {
            borrowed: true,
            ..Budget::new(rule, source, unit, limit)
        }
    }

    /// The same rule, enforced by the agent dropping what is past it.
    pub(crate) fn cutting_off(self) -> Budget {
        Budget {
            cuts_off: true,
            ..self
        }
    }
}

/// How many of `names` the bank holds at its top under exactly that name (case aside):
/// a format's own spelling of its core files is evidence of the format, a synonym is not.
pub(crate) fn count_own_names(bank: &Bank, names: &[&str]) -> usize {
    // One pass over the files, each name compared as bytes (the names are ASCII): the
    // file's parent is found only for a file named like one of them.
    let mut held = vec![false; names.len()];
    for file in &bank.files {
        let Some(file_name) = crate::io::paths::file_name(&file.path) else {
            continue;
        };
        let file_name = file_name.as_encoded_bytes();
        let mut at_top = None;
        for (name, held) in names.iter().zip(held.iter_mut()) {
            if !*held
                && file_name.eq_ignore_ascii_case(name.as_bytes())
                && *at_top.get_or_insert_with(|| file.path.parent() == Some(bank.root.as_path()))
            {
                *held = true;
            }
        }
    }
    held.into_iter().filter(|&held| held).count()
}

/// Core files a bank should hold, each role with the name a new file of it gets.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExpectedFiles {
    /// Missing: an error (the agent's start-up reads them) when the bank's contents prove
    /// the format ([`FormatRules::contents_prove_format`]), else information.
    pub required: &'static [(Role, &'static str)],
    /// Missing: a warning, under the same proviso.
    pub recommended: &'static [(Role, &'static str)],
    /// Files the format's specification adds to those the agent's own documentation
    /// lists, where the bank keeps to the agent's list: missing, information, with
    /// `suggested_because` saying whose list holds them.
    pub suggested: &'static [(Role, &'static str)],
    pub suggested_because: &'static str,
}

#[cfg(test)]
mod tests;
