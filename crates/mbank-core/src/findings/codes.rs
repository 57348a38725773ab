//! Every finding code, declared once: its id, the severities it is reported at, where its
//! rule comes from and what to do about it. SARIF's rules and docs/FINDINGS.md are made
//! from this table, so a new code is one entry here.
use std::fmt;

use serde::{Serialize, Serializer};

use super::Severity;

/// Where the rule behind a finding code comes from, named as a user knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleSource {
    /// mbank's own judgement of what makes memory safe and useful.
    Mbank,
    /// The specification of the bank's format (its template, its files and folders).
    FormatSpecification,
    ClineMemoryBank,
    ClaudeCode,
    Codex,
    RooCode,
    MemoryBankMcp,
    ConKeeper,
    Infinity,
    /// The documentation of the agent whose files these are (Cursor, Windsurf, Kiro,
    /// Claude Code, Gemini CLI…), for rules several agents share.
    AgentDocumentation,
    /// The project's own agent rules, which name the bank's files.
    ProjectRules,
    CursorRules,
    Copilot,
    Windsurf,
    /// The sizes mbank recommends for instruction files (CLAUDE.md, AGENTS.md, GEMINI.md,
    /// BEANS.md), whose agents document no line limit of their own.
    MbankSizes,
    /// The token sizes mbank recommends for a memory bank's files and the whole bank:
    /// Cline's own documentation gives none.
    MbankBankSizes,
    /// The user's own `[budgets]` in mbank's config.toml.
    Config,
    /// Size budgets: the format's guidelines, or `[budgets]` in config.toml.
    SizeGuidelines,
    /// The YAML and JSON a file is written in.
    Syntax,
    Git,
}

impl RuleSource {
    /// Every source, the closed set of names a finding may cite.
    pub const ALL: [RuleSource; 20] = [
        RuleSource::Mbank,
        RuleSource::FormatSpecification,
        RuleSource::ClineMemoryBank,
        RuleSource::ClaudeCode,
        RuleSource::Codex,
        RuleSource::RooCode,
        RuleSource::MemoryBankMcp,
        RuleSource::ConKeeper,
        RuleSource::Infinity,
        RuleSource::AgentDocumentation,
        RuleSource::ProjectRules,
        RuleSource::CursorRules,
        RuleSource::Copilot,
        RuleSource::Windsurf,
        RuleSource::MbankSizes,
        RuleSource::MbankBankSizes,
        RuleSource::Config,
        RuleSource::SizeGuidelines,
        RuleSource::Syntax,
        RuleSource::Git,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RuleSource::Mbank => "mbank",
            RuleSource::FormatSpecification => "the memory format's specification",
            RuleSource::ClineMemoryBank => "Cline's memory bank guidelines",
            RuleSource::ClaudeCode => "Claude Code's documentation",
            RuleSource::Codex => "Codex's documentation",
            RuleSource::RooCode => "Roo Code's documentation",
            RuleSource::MemoryBankMcp => "the Memory Bank MCP specification",
            RuleSource::ConKeeper => "ConKeeper's documentation",
            RuleSource::Infinity => "Infinity's memory store format",
            RuleSource::AgentDocumentation => "the agent's documentation",
            RuleSource::ProjectRules => "this project's agent rules",
            RuleSource::CursorRules => "Cursor's documentation",
            RuleSource::Copilot => "GitHub Copilot's documentation",
            RuleSource::Windsurf => "Windsurf's documentation",
            RuleSource::MbankSizes => "mbank's recommended sizes for instruction files",
            RuleSource::MbankBankSizes => "mbank's recommended sizes for memory banks",
            RuleSource::Config => "[budgets] in mbank's config.toml",
            RuleSource::SizeGuidelines => {
                "the format's size guidelines, or [budgets] in mbank's config.toml"
            }
            RuleSource::Syntax => "YAML and JSON syntax",
            RuleSource::Git => "git",
        }
    }
}

impl Serialize for RuleSource {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl fmt::Display for RuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One finding code's declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub code: FindingCode,
    /// The code as printed and in JSON, e.g. `missing-required-file`.
    pub id: &'static str,
    /// The lowest and highest severity mbank reports the code at (`[rules]` in
    /// config.toml may move it outside them).
    pub lowest: Severity,
    pub highest: Severity,
    pub source: RuleSource,
    /// What is wrong, in a few words.
    pub summary: &'static str,
    /// What it means and what to do about it.
    pub help: &'static str,
}

/// Declares [`FindingCode`] and its table of [`Rule`]s from one list of entries.
macro_rules! finding_codes {
    ($(
        $variant:ident = $id:literal, $lowest:ident..=$highest:ident, $source:ident,
            $summary:literal,
            $help:literal;
    )*) => {
        /// The code of a finding: which check reported it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum FindingCode {
            $($variant,)*
        }

        /// Every code's declaration, in the order of [`FindingCode`]'s variants.
        pub const RULES: &[Rule] = &[$(
            Rule {
                code: FindingCode::$variant,
                id: $id,
                lowest: Severity::$lowest,
                highest: Severity::$highest,
                source: RuleSource::$source,
                summary: $summary,
                help: $help,
            },
        )*];
    };
}

finding_codes! {
    // The bank's files and folders.
    MissingRequiredFile = "missing-required-file", Info..=Error, FormatSpecification,
        "A file the bank's format requires is missing",
        "Create the file from the format's template (`mbank init` never overwrites) or remove the format's markers if the folder is not that kind of bank. When the folder only looks like the format by its name, this is information only.";
    MissingRecommendedFile = "missing-recommended-file", Info..=Warning, FormatSpecification,
        "A file the bank's format recommends is missing",
        "Agents of this format expect the file; create it when the project needs it. A file the format's specification adds to the agent's own documented set (the memory bank specification's decision log, beyond the six core files of Cline's documentation) is information for a bank that holds that whole set.";
    MissingDeclaredFile = "missing-declared-file", Warning..=Warning, ProjectRules,
        "A file the project's rules list is missing",
        "The project's agent rules name this memory file, but it does not exist: create it or drop it from the rules.";
    MissingRequiredDir = "missing-required-dir", Warning..=Warning, FormatSpecification,
        "A folder the bank's format requires is missing",
        "Create the folder the format expects (it may stay empty).";
    VariantFileName = "variant-file-name", Info..=Info, Mbank,
        "A core file is kept under another name",
        "A file looks like or is titled as a file the format expects and is read in its place. Rename it to the format's name if agents should find it by that name.";
    StandInFile = "stand-in-file", Info..=Info, Mbank,
        "Another core file stands in for a missing one",
        "The format's file is missing and a related file covers its role. Create the file if the project needs it apart.";
    DuplicateCoreFile = "duplicate-core-file", Warning..=Warning, Mbank,
        "One core file is kept under two names",
        "Two spellings of one core file (camelCase and kebab-case, say) are both in the bank: the agent reads one and the other drifts. Merge them into one.";
    NotAMemoryBank = "not-a-memory-bank", Info..=Info, Mbank,
        "A folder named like a bank holds no markdown at its top",
        "Nothing in the folder loads at session start. If it is not a memory bank, ignore this or switch the code off in `[rules]`.";
    BackupInBank = "backup-in-bank", Info..=Info, Mbank,
        "Backup copies are kept inside the bank",
        "Backups are not memory and are never loaded or counted; keep them outside the memory folder.";
    ForeignInBank = "foreign-in-bank", Warning..=Warning, Mbank,
        "Files that are not memory are kept inside the bank",
        "Source code, lock files and the like inside a memory folder are never loaded or counted; move them out of the bank.";
    ListingProblem = "listing-problem", Warning..=Warning, Mbank,
        "Part of the bank could not be listed",
        "A folder could not be listed, a symlink could not be followed or the bank holds too many files, so some files are missing from the figures; or the agent's settings cannot be read or hold a key or value it does not know (Claude Code's autoMemoryDirectory, Beans-Code's memory settings), so the default applies instead. Fix what the message names.";
    DuplicateLoaded = "duplicate-loaded", Warning..=Warning, Mbank,
        "Two identical files both load at session start",
        "Remove one copy: the agent pays for the same text twice.";

    // A memory file's text.
    EmptyFile = "empty-file", Warning..=Warning, Mbank,
        "A memory file is empty",
        "Fill the file or delete it; an empty file costs a read and tells the agent nothing.";
    NoHeading = "no-heading", Info..=Warning, ClineMemoryBank,
        "A memory file has no heading",
        "Start the file with a heading that names its role so agents and people can tell what it holds. Information only where the rule is borrowed from another format.";
    UnfilledPlaceholder = "unfilled-placeholder", Warning..=Warning, ClineMemoryBank,
        "Template placeholders were never filled",
        "Replace the placeholders ([Date], [Task 1]…) with real content or remove them.";
    ImpossibleDate = "impossible-date", Warning..=Warning, Mbank,
        "A date that cannot exist",
        "Correct the date (month and day swapped?) so staleness and timelines read it.";
    ConflictMarkers = "conflict-markers", Warning..=Error, Mbank,
        "Unresolved merge-conflict markers",
        "Resolve the conflict: agents read both sides as memory. A whole conflict (`<<<<<<<`, `=======`, `>>>>>>>` in that order) is an error, a lone marker a warning; a coding agent's `<<<<<<< SEARCH` … `>>>>>>> REPLACE` edit block is neither.";
    FrontmatterUnclosed = "frontmatter-unclosed", Error..=Error, Syntax,
        "Frontmatter is never closed",
        "Close the frontmatter with a `---` line: until then the whole file reads as metadata and the agent cannot tell when the rule applies.";
    FrontmatterInvalid = "frontmatter-invalid", Warning..=Warning, Syntax,
        "Frontmatter cannot be read",
        "Fix the frontmatter so it is valid YAML of `key: value` lines; the agent may ignore settings it cannot read.";
    JsonMalformed = "json-malformed", Error..=Error, Syntax,
        "A JSON memory file is malformed",
        "Fix the JSON at the line the message names so the agent can read the document.";
    ParseLimit = "parse-limit", Warning..=Error, Mbank,
        "A file is over mbank's parse limits",
        "The file is too large or too deeply nested to be parsed safely, so the checks that need its contents did not run. Split or shorten the file.";
    Unreadable = "unreadable", Error..=Error, Mbank,
        "A memory file cannot be read",
        "Fix the file's permissions, encoding or size so agents and mbank can read it.";
    UnreadableFile = "unreadable-file", Warning..=Error, Mbank,
        "A memory file cannot be read",
        "Fix the file's permissions, encoding or size so agents and mbank can read it. An error when the file loads at session start.";
    SecretInBank = "secret-in-bank", Warning..=Error, Mbank,
        "A secret is kept inside a memory folder",
        "Agents read memory folders: move the secret out and rotate it.";
    SymlinkOutside = "symlink-outside", Error..=Error, Mbank,
        "A memory path leads out of the project",
        "A symlink in the bank points outside the project; agents following it read files they should not. Replace it with the file itself or remove it.";
    OffPurpose = "off-purpose", Info..=Info, ClineMemoryBank,
        "A core file holds what another core file is for",
        "Every heading of the file belongs to another core file's role (a progress file holding only the tech stack, say), so the agent finds the wrong thing where it looks. Move the content to the file the message names and give this file what it is for.";
    SessionNaming = "session-naming", Info..=Info, ConKeeper,
        "A session summary is not named by its date",
        "ConKeeper names session summaries `sessions/YYYY-MM-DD-topic.md` (or `YYYY-MM-DD-HHMM.md` for several a day) so they sort by date and the latest is found first. Rename the file.";
    SecondMemoryFolder = "second-memory-folder", Warning..=Warning, ConKeeper,
        "A second ConKeeper memory folder is never read",
        "ConKeeper looks for its memory folder in a fixed order (Claude Code's folder, then the cross-platform one) and reads the first it finds, so the other folder's files never load. Merge them into the folder it reads and remove the other.";
    UnclosedPrivate = "unclosed-private", Warning..=Warning, ConKeeper,
        "A `<private>` block is never closed",
        "Close the block with `</private>`: until then it hides everything to the end of the file from automation.";
    TagSyntax = "tag-syntax", Warning..=Warning, ConKeeper,
        "A tag line is malformed",
        "Write tags as `<!-- @category: value -->` or `<!-- @tag: value -->`, one per line, values in lower-case letters, digits and hyphens.";
    TagLineTooLong = "tag-line-too-long", Warning..=Warning, ConKeeper,
        "A tag line is too long",
        "Shorten the tag line to the limit the message names.";
    UnknownCategory = "unknown-category", Warning..=Warning, ConKeeper,
        "A tag names an unknown category",
        "Use one of ConKeeper's categories, or @tag for free-form labels.";
    TagPlacement = "tag-placement", Warning..=Warning, ConKeeper,
        "A tag is not right after the heading or bullet it labels",
        "ConKeeper places a tag on its own line immediately after the heading or bullet it categorizes (several tags on consecutive lines); a tag after a blank line or a paragraph labels nothing a search can show. Move it up under its heading or bullet.";
    MemoryConfig = "memory-config", Warning..=Error, ConKeeper,
        "ConKeeper's .memory-config.md has a problem",
        "Fix the setting the message names; a setting ConKeeper cannot read falls back to its default.";

    // Agents' rule and instruction files.
    RuleFrontmatterValue = "rule-frontmatter-value", Warning..=Warning, AgentDocumentation,
        "A rule's frontmatter holds a value the agent does not know",
        "Use one of the values the agent documents (the message lists them): otherwise the rule loads only when mentioned.";
    RuleNeverPicked = "rule-never-picked", Info..=Warning, AgentDocumentation,
        "A rule loads only when mentioned by name",
        "Nothing lets the agent pick the rule by itself (no globs, no description, not always applied). Add what the agent needs to pick it, or leave it if it is meant to be mentioned.";
    LocalFileNotLoaded = "local-file-not-loaded", Info..=Info, AgentDocumentation,
        "A private .local.md file is never loaded",
        "This agent does not read .local.md files: put what it says in the main instruction file, or import it from a file the agent reads.";
    LocalFileTracked = "local-file-tracked", Warning..=Warning, AgentDocumentation,
        "A private .local.md file is tracked by git",
        "The file is private memory: add it to .gitignore and `git rm --cached` it.";
    LocalFileNotIgnored = "local-file-not-ignored", Warning..=Warning, AgentDocumentation,
        "A private .local.md file is not in .gitignore",
        "The agent's documentation keeps .local.md files private by listing them in .gitignore; this one is not ignored, so the next `git add .` commits it. Add it to .gitignore.";
    UnknownModeRules = "unknown-mode-rules", Warning..=Warning, RooCode,
        "Rules for a mode no one defines",
        "The folder holds rules for a mode that neither Roo Code's built-in modes nor the project's custom modes define: they load only if your global settings define that mode.";
    ModeFileUnreadable = "mode-file-unreadable", Error..=Error, MemoryBankMcp,
        "A mode rule file cannot be read",
        "Fix the file's permissions or encoding so the agent and mbank can read the mode's rules.";
    ModeFileParse = "mode-file-parse", Error..=Error, MemoryBankMcp,
        "A mode rule file does not parse",
        "Fix the JSON, YAML or TOML at the place the message names: the agent cannot use this mode's rules.";
    CodexCutoff = "codex-cutoff", Warning..=Warning, Codex,
        "Instruction text past Codex's combined limit",
        "Codex loads its instruction files up to 32 KiB combined and drops the rest: shorten the files or move detail into files read on demand.";
    EntriesPastLoadCut = "entries-past-load-cut", Warning..=Warning, AgentDocumentation,
        "New entries were written below the line where the agent stops reading",
        "The agent loads only the start of this file, up to the limit its documentation gives (the finding names the agent and the limit), and the newest entries sit past that cut, so they are the ones it never reads. Move them up, or move older detail into files read on demand. `mbank context` names the lines past the cut.";

    // @imports.
    ImportMissing = "import-missing", Warning..=Warning, AgentDocumentation,
        "An @import points to a file that does not exist",
        "Fix the path or create the file: the agent skips the import.";
    ImportSensitive = "import-sensitive", Error..=Error, Mbank,
        "An @import pulls a sensitive file into memory",
        "Remove the import: the file (keys, credentials, environment) would be loaded into the agent's context.";
    ImportOutside = "import-outside", Warning..=Warning, Mbank,
        "An @import leads out of the project",
        "The import resolves outside the project and the agent's home memory folders, so mbank does not read it: import a file inside the project.";
    ImportNoHome = "import-no-home", Warning..=Warning, Mbank,
        "An @import needs the home folder, which is unknown",
        "The import starts with ~ but HOME is not set, so it cannot be followed; set HOME or import a path inside the project.";
    ImportCycle = "import-cycle", Error..=Error, Mbank,
        "@imports form a cycle",
        "Break the cycle the message shows so each file is imported once.";
    ImportTooDeep = "import-too-deep", Warning..=Warning, AgentDocumentation,
        "@imports nest deeper than the agent follows",
        "The agent stops following imports past its depth limit: import the file from a shallower one.";
    ImportLimit = "import-limit", Warning..=Warning, Mbank,
        "@imports load more than mbank follows",
        "mbank stopped following imports at its limit on files or bytes, so the rest were not read or checked; import less.";
    ImportUnreadable = "import-unreadable", Warning..=Warning, Mbank,
        "An imported file cannot be read",
        "Fix the imported file's permissions or encoding so the agent can load it.";
    ImportNotExpandedInSubfolders = "import-not-expanded-in-subfolders", Info..=Info, ClaudeCode,
        "An @import Claude Code does not expand when launched in a sub-folder",
        "Launched in a sub-folder, Claude Code reads this file as an ancestor without expanding its imports, so the imported file is not loaded there. Put what every session needs in the file itself.";

    // Architecture decision records and decision logs.
    AdrNaming = "adr-naming", Info..=Info, ConKeeper,
        "An ADR file is not named by the convention",
        "Name ADR files ADR-NNN-kebab-title.md (or ADR-NNN-YYYYMMDD-HHMM-title.md) so they sort and are found by number.";
    AdrDuplicateNumber = "adr-duplicate-number", Warning..=Warning, Mbank,
        "Two ADRs share a number",
        "Renumber one of them: references by number become ambiguous.";
    AdrNumberingGap = "adr-numbering-gap", Warning..=Warning, Mbank,
        "ADR numbers skip one",
        "Restore the missing record or note why the number was skipped.";
    AdrStatus = "adr-status", Warning..=Warning, ConKeeper,
        "An ADR's status is not one ConKeeper defines",
        "ConKeeper's ADRs say `**Status:** Proposed`, `Accepted`, `Deprecated` or `Superseded by ADR-NNN`; another word leaves readers and tools unable to tell whether the decision holds. Use one of them.";
    DecisionUndated = "decision-undated", Info..=Warning, ClineMemoryBank,
        "A decision has no date",
        "Cline's memory bank guidelines ask for a date in every decision entry (`- **Date**: YYYY-MM-DD`) so the log reads as a history and supersessions can be ordered. Add the date the decision was made.";
    DecisionTooLong = "decision-too-long", Info..=Info, ClineMemoryBank,
        "A decision entry is far longer than the guideline",
        "Cline's memory bank guidelines keep each decision log entry small (about 100 tokens), since the log grows forever and loads at every session start. Keep the decision, its reason and its trade-off; move the discussion elsewhere.";
    DecisionLogShrunk = "decision-log-shrunk", Error..=Error, Mbank,
        "Entries were removed from an append-only decision log",
        "Decision logs are append-only: restore the removed entries or mark them superseded.";

    // Infinity's memory store.
    InfinityNotIgnored = "infinity-not-ignored", Warning..=Warning, Infinity,
        "The memory store folder is not ignored by git",
        "Infinity keeps its store in a hidden folder that git ignores: add the folder the message names to .gitignore (and untrack it with `git rm -r --cached` if git tracks it) so project memories are not committed.";
    InfinityStoreMissing = "infinity-store-missing", Error..=Error, Infinity,
        "The memory store file is missing",
        "The agent finds no memories: restore the store file or let the agent create it.";
    InfinityJson = "infinity-json", Error..=Error, Infinity,
        "The memory store is malformed JSON",
        "Fix the JSON at the line the message names; until then the agent cannot read its memories.";
    InfinitySchema = "infinity-schema", Warning..=Error, Infinity,
        "A memory in the store does not match the store's schema",
        "Fix the field the message names. An error when a memory becomes unreachable, a warning for cosmetic drift.";
    InfinityProjectIdMismatch = "infinity-project-id-mismatch", Warning..=Warning, Infinity,
        "The project id file and the store disagree",
        "Make the project id file and the store name the same project, or the agent reads another project's memories.";
    InfinityProjectIdMissing = "infinity-project-id-missing", Warning..=Warning, Infinity,
        "The project id is missing",
        "Without it, activate_project mints a new project id and the existing memories are not found.";

    // Budgets and staleness.
    BudgetOver = "budget-over", Warning..=Warning, SizeGuidelines,
        "A memory file or bank is over its size budget",
        "Agents load this at every session start: summarise, archive old entries or split the file.";
    BudgetBorrowedOver = "budget-borrowed-over", Info..=Info, SizeGuidelines,
        "Over a budget borrowed from another format",
        "Information only: the limit comes from another format's guideline.";
    BudgetNear = "budget-near", Info..=Info, SizeGuidelines,
        "Near the size budget",
        "The file or bank is close to its budget; plan a summary before it grows past it.";
    Stale = "stale", Warning..=Warning, Mbank,
        "A memory file is stale",
        "The file is far behind the project's activity; update it before agents rely on it.";
    Aging = "aging", Info..=Info, Mbank,
        "A memory file is aging",
        "The file lags behind the rest of the bank; check that it still holds.";

    // Files an agent cannot use as they stand.
    TemplateSlotsOnly = "template-slots-only", Warning..=Warning, Mbank,
        "A file holds only template slots",
        "Every line of the file is a heading or an unfilled template slot ({LIST}, {{name}}): the tool that should have filled it in never ran, and the agent loads a form with nothing in it. Fill it in or delete it; keep templates in a templates/ folder.";
    PathAsContent = "path-as-content", Warning..=Error, Git,
        "A file's whole text is a path (a symlink stored as text)",
        "Where symbolic links are off (Windows, or git's core.symlinks=false), git writes a link as a text file holding its target, and the agent loads that one line instead of the file it names. An error when the named file exists beside it. Enable symlinks and check the file out again, or replace it with the file's content or an @import.";
    InstructionsMisnamed = "instructions-misnamed", Warning..=Warning, AgentDocumentation,
        "An instruction file the agent never reads by its name or place",
        "The agent reads its instruction files only under their exact names and places (GitHub Copilot its repository instructions file and its path-specific instructions folder, Cline its rules at the workspace root, Beans-Code the names its memory settings list in fileNames, Claude Code, Codex and Gemini CLI their instruction file in its name's exact case where the file system tells cases apart); this file is named or placed otherwise, so the agent never takes it for one. The message names the name or place it needs: rename or move it.";
    FrontmatterKeyMisspelled = "frontmatter-key-misspelled", Warning..=Warning, AgentDocumentation,
        "A rule's frontmatter key is misspelled, so the agent ignores it",
        "A frontmatter key differs from one the agent reads by its separators or one letter (apply_to for applyTo, glob for globs, descripton for description): the agent ignores it and applies the rule as if it were not there. Spell it as the agent's documentation does.";

    // Claims the memory makes about the code.
    ClaimMissingPath = "claim-missing-path", Warning..=Warning, Mbank,
        "Memory names a file or folder that is not in the work tree",
        "A memory file names a path that git does not track and that is not on disk. Where git history shows it was renamed or removed, the message says to what and in which commit. A rule file an agent loads at every session (Cursor's, Cline's or Roo Code's rules) is told only of paths history shows gone: rules are often written for many projects, their other paths examples of a layout. A bare file name in a rule (`main.rs`, `brief.md`) is advice for every file of that name, never matched to one that history removed somewhere. A memory file whose task list is all open (a plan nobody has begun) lists what is to be built, so its paths are not checked until a task is done. Correct the memory (or restore the file) so agents do not act on a path that is gone.";
    ClaimMissingScript = "claim-missing-script", Warning..=Warning, Mbank,
        "Memory names a script or task that no manifest defines",
        "A command in a memory file (npm/pnpm/yarn/bun run, make, just, cargo, poetry/uv/pdm run) names a script, target or recipe that package.json, the Makefile, the justfile, Cargo aliases or pyproject.toml do not define. Update the memory to the script's current name.";
    ClaimMissingSymbol = "claim-missing-symbol", Warning..=Warning, Mbank,
        "Memory names a code symbol or environment variable found nowhere in the code",
        "A function, type, constant or environment variable named in backticks in a memory file occurs in no tracked source or configuration file. It was probably renamed or removed: update the memory. An environment variable is reported only while the code names other variables of its family (`STRIPE_WEBHOOK_SECRET` where it reads `STRIPE_API_KEY`): one whose family no tracked file names is read by something else, a dependency, a tool or the platform. A name ending in `_` (`NEXT_PUBLIC_`) names a family, not a variable, and names made of placeholders (`PREFIX_X`, `FOO_BAR`) are examples; neither is a claim, nor is anything the memory strikes through (`~~OldName~~`), nor a name on a line about naming (`snake_case (calculate_total)`) or marked as what not to write (❌ `usrAuth`). A name its line gives to something else (SwiftUI's `WindowGroup`) belongs to that thing, and a section of three or more names none of which the code has describes another system, so neither is reported.";
    ClaimMissingDependency = "claim-missing-dependency", Warning..=Warning, Mbank,
        "Tech context names a dependency no manifest declares",
        "A dependency named in the tech context is declared in no manifest or lock file (package.json, Cargo.toml, pyproject.toml, requirements, go.mod, Gemfile, composer.json). Remove it from the memory or declare it.";
    ClaimsNotChecked = "claims-not-checked", Info..=Info, Mbank,
        "Claims about code were not checked",
        "The bank has no code beside it (no git work tree holding source outside the memory files), so the paths, scripts and symbols it names could not be checked.";

    // Git.
    GitRefused = "git-refused", Error..=Error, Git,
        "Git refused the repository",
        "Git's checks (history, staleness by commits, the append-only check) did not run. Fix what git names, e.g. mark the folder safe with `git config --global --add safe.directory`.";
    GitFailed = "git-failed", Error..=Error, Git,
        "Git failed in the repository",
        "Git's checks did not run; the message has git's reason.";
}

impl FindingCode {
    /// This code's declaration.
    pub fn rule(self) -> &'static Rule {
        &RULES[self.index()]
    }

    /// The code's place in [`RULES`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Every code, in declaration order.
    pub fn all() -> impl Iterator<Item = FindingCode> {
        RULES.iter().map(|rule| rule.code)
    }

    /// The code as printed and in JSON.
    pub fn id(self) -> &'static str {
        self.rule().id
    }

    pub fn from_id(id: &str) -> Option<FindingCode> {
        RULES
            .iter()
            .find(|rule| rule.id == id)
            .map(|rule| rule.code)
    }

    /// Whether mbank reports this code at `severity`.
    pub fn allows(self, severity: Severity) -> bool {
        let rule = self.rule();
        (rule.lowest..=rule.highest).contains(&severity)
    }
}

impl fmt::Display for FindingCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl Serialize for FindingCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

/// Codes order by their ids, as the strings they replace did.
impl Ord for FindingCode {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.id().cmp(other.id())
    }
}

impl PartialOrd for FindingCode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_follows_the_enum_and_ids_are_unique_kebab_case() {
        for (index, rule) in RULES.iter().enumerate() {
            assert_eq!(rule.code.index(), index, "{}", rule.id);
            assert_eq!(FindingCode::from_id(rule.id), Some(rule.code));
            assert!(
                rule.id
                    .split('-')
                    .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_lowercase())),
                "{}",
                rule.id
            );
        }
        let mut ids: Vec<&str> = RULES.iter().map(|rule| rule.id).collect();
        ids.sort_unstable();
        let count = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), count);
    }

    #[test]
    fn every_code_has_bounds_in_order_and_words_to_act_on() {
        for rule in RULES {
            assert!(rule.lowest <= rule.highest, "{}", rule.id);
            assert!(rule.code.allows(rule.lowest) && rule.code.allows(rule.highest));
            assert!(!rule.summary.is_empty() && !rule.summary.ends_with('.'));
            assert!(rule.help.ends_with('.'), "{}", rule.id);
        }
        assert!(!FindingCode::Stale.allows(Severity::Error));
        assert!(FindingCode::MissingRequiredFile.allows(Severity::Info));
    }

    #[test]
    fn a_code_serializes_and_displays_as_its_id() {
        let code = FindingCode::ImportCycle;
        assert_eq!(serde_json::to_string(&code).unwrap(), "\"import-cycle\"");
        assert_eq!(code.to_string(), "import-cycle");
    }

    #[test]
    fn codes_order_by_id() {
        assert!(FindingCode::Aging < FindingCode::BudgetOver);
        assert!(FindingCode::Stale > FindingCode::SecretInBank);
    }
}
