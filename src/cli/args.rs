//! Command-line grammar. Every subcommand has `--help`; read commands take `--json`.
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "mbank",
    version,
    about = "See, curate and trust the memory banks your AI coding agents read and write",
    long_about = "mbank finds every project's memory bank under a root folder (Cline memory-bank/, \
Memory Bank MCP / Roo, CLAUDE.md / AGENTS.md / GEMINI.md / BEANS.md hierarchies, Infinity \
.infinity/memories.json, ConKeeper .claude/memory/, Cursor, GitHub Copilot, Windsurf and Kiro \
rules), counts their tokens, checks budgets, \
staleness and the formats' rules, and shows what an agent loads at session start.\n\n\
With no subcommand it opens the terminal UI.",
    after_help = "Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage or I/O error.\n\
Root: --root, else MEMORY_BANK_ROOT, else `root` in config.toml, else ~/memory-banks."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Folder holding one folder per project (overrides MEMORY_BANK_ROOT and config.toml)
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Read this configuration file instead of the platform's config.toml
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Use a fresh writable copy of the bundled demo banks as the root
    #[arg(long, global = true)]
    pub demo: bool,
    /// With the TUI: a background "agent" writes updates into the root every few seconds
    /// (meant for --demo: it only touches the demo's own files)
    #[arg(long, global = true)]
    pub simulate_agent: bool,
    /// Quit after the first frame that lists the projects (for start-up benchmarks)
    #[arg(long, global = true, hide = true)]
    pub exit_after_first_frame: bool,
    /// TUI theme: dark, light, high-contrast, or a file in <config>/themes/ (overrides config)
    #[arg(long, global = true, value_name = "NAME")]
    pub theme: Option<String>,
    /// Token encoding for every figure (default: config's tokenizer, else o200k)
    #[arg(long, global = true, value_enum, value_name = "ENCODING")]
    pub encoding: Option<EncodingArg>,
    /// Never use colour in text output (also: NO_COLOR)
    #[arg(long, global = true)]
    pub no_color: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EncodingArg {
    /// OpenAI o200k_base (GPT-4o and later)
    #[value(alias = "o200k_base")]
    O200k,
    /// OpenAI cl100k_base (GPT-4, GPT-3.5)
    #[value(alias = "cl100k_base")]
    Cl100k,
    /// bytes / 4: the cheap estimate many tools use
    #[value(alias = "bytes/4")]
    Bytes4,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SeverityArg {
    Error,
    Warning,
    Info,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InitFormatArg {
    /// Cline's memory-bank/ (seven files) and .clinerules/memory-bank.md
    Cline,
    /// Cline's memory-bank/ and .roo/rules/memory-bank.md for Roo Code
    Roo,
    /// Kilo Code's .kilocode/rules/memory-bank/ (five files) and its instructions file
    KiloCode,
    /// ConKeeper's .claude/memory/ and an import block in CLAUDE.md
    Conkeeper,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
    /// SARIF 2.1.0, paths relative to the working folder
    Sarif,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListSort {
    /// Most recently written first
    Activity,
    Name,
    /// Most loaded tokens first
    Tokens,
}

/// `mbank search --kind`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SearchKindArg {
    Decision,
    Section,
    File,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List projects with formats, file count, tokens, budget status and worst staleness
    List {
        /// Machine-readable output (schema in docs/JSON.md)
        #[arg(long)]
        json: bool,
        #[arg(long, value_enum, default_value_t = ListSort::Activity)]
        sort: ListSort,
    },
    /// Validate banks, budgets and staleness for one project or the whole root (for hooks and CI)
    Check {
        /// A project folder (or a folder of projects); default: the whole root
        path: Option<PathBuf>,
        /// Machine-readable output (the same as `--format json`)
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// Output format: text, json (schema mbank.check/1) or sarif (SARIF 2.1.0, for
        /// code scanning)
        #[arg(long, value_enum)]
        format: Option<CheckFormat>,
        /// Exit 1 when a finding is at or above this severity
        #[arg(long, value_enum, default_value_t = SeverityArg::Error)]
        fail_on: SeverityArg,
        /// Under a grouped finding ("37 files over their budget"), every file it stands for
        #[arg(long, short)]
        verbose: bool,
    },
    /// Count tokens per file and in total, loaded vs private
    Tokens {
        /// A project folder or a single file
        path: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Decisions of a project (or the whole root) in date order
    Timeline {
        path: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Search every memory file of every project under the root (agents' own stores
    /// included, and those in the home folder that belong to no project: Codex memories,
    /// ~/.gemini/GEMINI.md, ~/.claude/CLAUDE.md): the best passages first, with file,
    /// lines, headings and matches marked
    Search {
        /// What to look for, in any words and any language
        #[arg(required = true, num_args = 1.., value_name = "QUERY")]
        query: Vec<String>,
        /// Only this project (its name as `mbank list` prints it), or this home folder
        /// store (its name as results give it, alone or its place: "Codex memories",
        /// ~/.codex/memories)
        #[arg(long, value_name = "NAME")]
        project: Option<String>,
        /// Only files of this format (cline, claude-md, agents-md, conkeeper, …;
        /// codex-memories for Codex memories)
        #[arg(long, value_name = "FORMAT")]
        format: Option<String>,
        /// Only files this agent loads at session start (claude-code, codex, gemini, cline, …)
        #[arg(long, value_name = "NAME")]
        agent: Option<String>,
        /// Only decisions dated since, and passages of files changed since: a day
        /// (2026-05-01), an RFC 3339 instant or an age (3d, 2w)
        #[arg(long, value_name = "WHEN")]
        since: Option<String>,
        /// Only decisions, only sections, or one result per file
        #[arg(long, value_enum)]
        kind: Option<SearchKindArg>,
        /// At most this many results
        #[arg(long, default_value_t = 10, value_name = "N")]
        limit: usize,
        /// Machine-readable output (schema mbank.search/1)
        #[arg(long)]
        json: bool,
    },
    /// Create a memory bank from the project's manifests and a brief, and install the
    /// agent's memory-bank instructions (never overwrites a file, never makes a second bank)
    #[command(
        long_about = "Create a memory bank in PATH: the format's files, with the tech file \
filled from the project's manifests (package.json, Cargo.toml, pyproject.toml, requirements.txt, \
go.mod, Gemfile, composer.json, pom.xml, build.gradle, CMakeLists.txt, Makefile, toolchain files) \
and the other \
files' first content taken from --brief, then the agent's instructions for using the bank. \
Files that exist are kept (names compared without case), an existing bank of the same kind is \
completed, and a project that has another kind of bank gets none (exit code 2). An existing \
instruction file is changed only after asking (or with --yes)."
    )]
    Init {
        /// The project folder
        path: PathBuf,
        #[arg(long, value_enum, default_value_t = InitFormatArg::Cline)]
        format: InitFormatArg,
        /// The project brief: free text becomes the mission; lines such as `Users: …`,
        /// `Goals: …`, `Problem: …`, `Requirements: …`, `Constraints: …`, `Out of scope: …`
        /// fill the files that ask for them
        #[arg(long, value_name = "TEXT")]
        brief: Option<String>,
        /// Add the instructions to an instruction file that exists without asking
        #[arg(long, short = 'y')]
        yes: bool,
        /// Do not install the agent's instructions
        #[arg(long, conflicts_with = "yes")]
        no_instructions: bool,
    },
    /// Architecture decision records: ConKeeper's decisions/, docs/adr/, doc/adr/,
    /// docs/decisions/
    Adr {
        #[command(subcommand)]
        command: AdrCommand,
    },
    /// Memory files changed since git HEAD (or since the last review outside git), with
    /// lines, token change and review signals; fit for a git pre-commit hook
    Review {
        /// A project folder (or a folder of projects); default: the whole root
        path: Option<PathBuf>,
        /// Machine-readable output (schema mbank.review/1)
        #[arg(long)]
        json: bool,
        /// Exit 1 when a signal is at or above this severity
        #[arg(long, value_enum, default_value_t = SeverityArg::Warning)]
        fail_on: SeverityArg,
        /// Outside git: take the current memory files as reviewed (moves the snapshot)
        #[arg(long, conflicts_with = "json")]
        mark_reviewed: bool,
    },
    /// Exactly what each agent loads at session start, per bank, with each session's token total
    Context {
        path: Option<PathBuf>,
        #[arg(long)]
        json: bool,
        /// Only this bank format (cline, memory-bank-mcp, claude-md, conkeeper, …)
        #[arg(long, value_name = "FORMAT")]
        bank: Option<String>,
        /// One line per loaded file (tokens, how it is reached) instead of the text
        #[arg(long)]
        summary: bool,
        /// The session's mode, for formats with modes (Roo: code, architect, ask, …;
        /// default: the format's default mode, code)
        #[arg(long, value_name = "NAME")]
        mode: Option<String>,
        /// Only this agent's session start (claude-code, codex, gemini, cline, roo, kilo,
        /// cursor, copilot, windsurf, kiro); without it, each agent's session is shown apart
        #[arg(long, value_name = "NAME")]
        agent: Option<String>,
        /// Leave out the user-level layer (~/.claude/CLAUDE.md, ~/.claude/rules/,
        /// ~/.codex/AGENTS.md, ~/.gemini/GEMINI.md): the project's files only
        #[arg(long)]
        no_user: bool,
        /// Print one agent's session start cut to fit N tokens (the configured encoding):
        /// its files in load order, whole while they fit, the next cut at a line; what is
        /// left out, and why, on stderr (in `left_out` with --json). The agent is --agent,
        /// else the first one `mbank context` shows; PATH must be one project
        #[arg(long, value_name = "N", conflicts_with = "summary")]
        max_tokens: Option<usize>,
    },
    /// Remember a fact in Beans-Code's memory (its `/memory add`): appended under
    /// `## Auto-saved Memories` of the project's BEANS.md, or of ~/.beans/BEANS.md with
    /// --global (file and section created when missing); secrets are refused
    Remember {
        /// The fact, one line (newlines are joined into spaces)
        #[arg(value_name = "TEXT")]
        fact: String,
        /// Into the global memory, ~/.beans/BEANS.md, loaded in every project
        #[arg(long, conflicts_with = "path")]
        global: bool,
        /// The project folder (default: the current folder)
        #[arg(default_value = ".")]
        path: PathBuf,
    },
    /// Agent writes staged for review (`mbank mcp --stage`): id, project, file, tool, state, hunks
    Proposals {
        /// Machine-readable output (schema mbank.proposals/1), with each proposal's hunks
        #[arg(long)]
        json: bool,
        /// Decided proposals too (accepted, rejected), not only the pending ones
        #[arg(long)]
        all: bool,
    },
    /// Accept a staged write (through the guard), whole or some of its hunks; a file changed
    /// since is merged three-way, and overlapping changes are refused as a conflict
    Accept {
        /// The proposal's id (`mbank proposals`)
        id: u64,
        /// Only these hunks, by number (`--hunks 1,3`)
        #[arg(long, value_delimiter = ',', value_name = "N,…")]
        hunks: Option<Vec<usize>>,
    },
    /// Reject a staged write: the file is left as it is
    Reject {
        /// The proposal's id (`mbank proposals`)
        id: u64,
    },
    /// Earlier versions of a memory file: time, writer and size (mbank's writes and,
    /// with `mbank watch`, every version found on disk)
    History {
        /// The memory file
        #[arg(required_unless_present = "stats")]
        file: Option<PathBuf>,
        /// Machine-readable output (schema mbank.history/1)
        #[arg(long)]
        json: bool,
        /// Show the diff from this version to the file now
        #[arg(long, value_name = "VERSION", conflicts_with = "stats")]
        diff: Option<u64>,
        /// How big the history is: files, versions, bytes on disk and the cap
        #[arg(long, conflicts_with = "file")]
        stats: bool,
    },
    /// Bring an earlier version of a memory file back (the version it replaces is kept too)
    Restore {
        /// The memory file
        file: PathBuf,
        /// The version number (`mbank history FILE`)
        version: u64,
    },
    /// Record every version of every memory file under the root and of the agents' own
    /// stores, whoever writes it, until stopped (SIGTERM, SIGINT); logs to stderr
    Watch,
    /// Memory files changed since a person last marked them reviewed, across projects and
    /// agent stores, with lines and review signals (written by agents, tools, git or you)
    Changes {
        /// Changes since this time, for files never marked: an RFC 3339 instant, a day
        /// (2026-05-01) or an age (90m, 12h, 3d, 2w)
        #[arg(long, value_name = "WHEN")]
        since: Option<String>,
        /// Machine-readable output (schema mbank.changes/1)
        #[arg(long)]
        json: bool,
        /// Take every file as it is now as reviewed
        #[arg(long, conflicts_with = "json")]
        mark_reviewed: bool,
    },
    /// Serve the memory banks to agents as an MCP server on stdin/stdout (every write guarded)
    Mcp {
        #[command(flatten)]
        serve: ServeArgs,
    },
    /// Serve the REST API of Memory Bank MCP and MCP over HTTP at /mcp (every write guarded)
    Serve {
        /// Address to listen on (default: [serve] listen in config, else 127.0.0.1:3000)
        #[arg(long, value_name = "ADDR")]
        listen: Option<String>,
        #[command(flatten)]
        serve: ServeArgs,
    },
}

/// What `mbank mcp` and `mbank serve` share.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Tool surfaces: cline, memory-bank-mcp, infinity (comma-separated; default: all)
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub tools: Vec<String>,
    /// Refuse every write
    #[arg(long)]
    pub read_only: bool,
    /// The Infinity project folder (default: the working folder)
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Stage every agent write as a proposal a person accepts or rejects (`mbank
    /// proposals`) instead of writing the file (also: `writes = "stage"` in [serve])
    #[arg(long)]
    pub stage: bool,
}

/// `mbank adr …`.
#[derive(Debug, Subcommand)]
pub enum AdrCommand {
    /// Write the next decision record (highest number + 1, the folder's template) and print
    /// its path
    New {
        /// The decision's title
        title: String,
        /// The project folder (default: the current folder)
        #[arg(default_value = ".")]
        path: PathBuf,
        /// The ADR folder, relative to the project (default: ConKeeper's decisions/, else
        /// the first of docs/adr, doc/adr, docs/decisions that exists)
        #[arg(long, value_name = "DIR")]
        dir: Option<String>,
    },
}
