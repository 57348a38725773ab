//! `mbank context`: exactly what an agent loads from a bank at session start, piece by
//! piece in read order, with the cut-offs the agent applies and the tokens of each piece.
//!
//! Rules by format:
//! - Cline, Memory Bank MCP, Roo rules: every start-up file loads whole. Roo rules load
//!   by mode: the session's mode's rule files at start, other modes' not
//!   (`session_context_in_mode`; default: the format's default mode). Of `.roomodes`
//!   Roo Code sends the session mode's definition in full and one line per custom mode
//!   (`modes::roomodes_as_sent`); a `.roo/system-prompt-{mode}` override loads in its
//!   mode's sessions and leaves the list of modes out. A Memory Bank MCP bank in a chosen
//!   mode is read in the order of that mode's `files_to_read`.
//! - ConKeeper: `<private>` blocks are stripped and `private: true` files skipped (its
//!   SessionStart hook does this). Other agents do not honour `<private>`; for them the
//!   block loads and the piece says so.
//! - CLAUDE.md, GEMINI.md, BEANS.md: `@imports` expanded, each imported file following its
//!   importer (see imports.rs). User-level files (`~/.claude/CLAUDE.md`…) load first;
//!   Gemini CLI's also hold its installed extensions' context files. Gemini CLI loads the
//!   GEMINI.md of sub-folders at start too; Claude Code's sub-folder files wait.
//! - Claude Code auto memory (its own bank, in the home folder): `MEMORY.md` loads only its
//!   first 200 lines / 25 KB; topic files are read on demand. Read confined to the home folder.
//! - AGENTS.md (Codex): project files stop at 32 KiB combined; no imports.
//! - Windsurf: each rule file stops at 12,000 characters; its documentation sets no limit
//!   on the rules loaded together.
//!
//! Every cut is computed by [`load_cut`] from the limits the
//! formats declare, and names the lines past it ([`CutOff`]).
//! - Infinity: nothing loads; the agent calls `list_memories`, which returns metadata only.
//!
//!
//! Confinement: a project file is read only when its real location is inside the project
//! (checked again right before reading, see `confine`); the bank's links out of the project
//! are [`BankContext::findings`]. A user-level file is never read when it really is a
//! sensitive file (`~/.ssh`, `.env`, credentials).
//!
//! Token counting is the caller's closure, so this module does not depend on a tokenizer.
//! This file holds one bank's session start; sessions that span banks (a project's, an
//! agent's) are in `sessions`; one agent's session start cut to fit a token budget, with
//! what was left out and why, is `fit` ([`fit_context`]).
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::analysis::imports::{self, Expander, HomeRoots, ImportPolicy};
use crate::analysis::load_cut::{self, Chain, LimitCut};
use crate::error::CoreError;
use crate::findings::{Finding, FindingCode, Severity};
use crate::formats::roo_rules::{self, modes};
use crate::formats::{self, CombinedLimit, agents_md, layers, memory_bank_mcp};
use crate::io::confine::{self, ProjectFolder};
use crate::io::paths;
use crate::io::text;
use crate::markup::markdown;
use crate::model::{Bank, Format, LoadKind, MemoryFile, Project};

mod fit;
mod past_cut;
mod sessions;

pub use fit::{
    AgentChoice, FIT_SCHEMA, FitError, FitReport, FitRequest, FittedContext, FittedFile, LeftOut,
    LeftOutReason, ProjectRef, fit_context,
};
pub use past_cut::entries_past_cut;
pub use sessions::{AgentSession, agent_session, agent_sessions, project_context};

/// Codex's `project_doc_max_bytes`: AGENTS.md files stop here, combined.
#[cfg(test)]
pub(crate) const CODEX_PROJECT_DOC_MAX_BYTES: usize = 32 * 1024;

/// Whose file a piece is: the user's (home folder), a folder's above the project (an
/// ancestor's, which the agent inherits), or the project's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    User,
    Ancestor,
    Project,
}

/// One piece of text the agent loads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadedPiece {
    pub file: PathBuf,
    /// Project-relative (or `~/`) path for people.
    pub display: String,
    pub scope: Scope,
    /// For an imported file: the files it came through, top-level file first.
    pub via: Vec<PathBuf>,
    /// The text actually loaded (after privacy stripping and cut-offs).
    pub text: String,
    pub tokens: usize,
    pub lines: usize,
    pub bytes: usize,
    pub notes: Vec<String>,
    /// Every way the agent reaches the file, in words ("start-up file (ConKeeper)",
    /// "imported by @x.md in CLAUDE.md, line 3"): a file reached several ways
    /// loads once (see `load_once`).
    pub reached: Vec<String>,
    /// The `<private>` blocks stripped from the file before it loaded (tag lines
    /// included), as 1-based inclusive line ranges of the file: how a line of `text`
    /// maps back to the file's own numbering.
    #[serde(skip)]
    pub stripped: Vec<(usize, usize)>,
}

/// Text an agent drops because of a size rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CutOff {
    pub file: PathBuf,
    /// The file as a person reads it (project-relative, or `~/…`).
    pub display: String,
    /// Which rule cut, in words: "Claude Code auto memory: first 200 lines or 25 KB".
    pub rule: String,
    /// The agent that stops reading there: "Claude Code".
    pub agent: String,
    /// The bound that stopped it: "200-line limit", "32 KiB combined limit".
    pub limit: String,
    /// What was kept: the cut falls after this many lines / bytes.
    pub kept_lines: usize,
    pub kept_bytes: usize,
    /// What was dropped.
    pub dropped_lines: usize,
    pub dropped_bytes: usize,
    /// The lines past the cut, first to last (1-based, as in the file).
    pub first_line_past: usize,
    pub last_line: usize,
    /// The cut falls inside `first_line_past`: its start loads, its end does not.
    pub inside_line: bool,
    /// "MEMORY.md: lines 201–312 (9.1 KiB) are past Claude Code's 200-line limit".
    pub message: String,
}

impl CutOff {
    fn new(file: &Path, display: String, cut: &LimitCut) -> CutOff {
        CutOff {
            file: file.to_path_buf(),
            message: cut.sentence(&display),
            display,
            rule: cut.rule.to_string(),
            agent: cut.agent.to_string(),
            limit: cut.limit.clone(),
            kept_lines: cut.cut.kept_lines,
            kept_bytes: cut.cut.kept_bytes,
            dropped_lines: cut.cut.dropped_lines,
            dropped_bytes: cut.cut.dropped_bytes,
            first_line_past: cut.cut.first_line,
            last_line: cut.cut.last_line,
            inside_line: cut.cut.inside_line,
        }
    }
}

/// A start-up file that loads nothing, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedFile {
    pub file: PathBuf,
    pub reason: String,
}

/// A file of the bank that does not load at session start but may load later, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeferredFile {
    pub file: PathBuf,
    /// Project-relative path for people.
    pub display: String,
    /// On demand (a glob or a folder matches), agent-requested (by its description) or
    /// manual (only when the user names it).
    pub load: LoadKind,
}

/// The metadata-only answer of Infinity's `list_memories`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListingSize {
    pub memories: usize,
    pub bytes: usize,
    pub tokens: usize,
}

/// Everything a session start loads from one bank.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BankContext {
    pub format: Format,
    pub root: PathBuf,
    /// In read order.
    pub pieces: Vec<LoadedPiece>,
    pub cutoffs: Vec<CutOff>,
    pub skipped: Vec<SkippedFile>,
    /// Problems met while expanding imports (missing, cycles, sensitive…).
    pub import_findings: Vec<Finding>,
    /// Memory paths of the bank that lead out of the project (`symlink-outside`): never
    /// loaded here.
    pub findings: Vec<Finding>,
    /// Files that load after session start (on demand, agent-requested, manual), in read
    /// order; their tokens are not counted here.
    pub deferred: Vec<DeferredFile>,
    /// Infinity only: what the agent's first `list_memories` call costs.
    pub listing: Option<ListingSize>,
    pub notes: Vec<String>,
    pub total_tokens: usize,
    pub total_bytes: usize,
}

/// Where user-level files and `~/` imports come from.
#[derive(Debug, Clone, Default)]
pub struct ContextOptions {
    pub home: Option<PathBuf>,
    /// Load the user's global files (`~/.claude/CLAUDE.md`, auto memory…) as the agent does.
    pub include_user_files: bool,
    /// Load the instruction files of the folders above the project as the agent does
    /// (`ancestor_files`).
    pub include_ancestors: bool,
    /// Codex's folder (`$CODEX_HOME`) when it is not `~/.codex`.
    pub codex_home: Option<PathBuf>,
}

impl ContextOptions {
    /// The real home folder, user files included.
    pub fn from_env() -> Self {
        ContextOptions {
            home: paths::home_dir(),
            include_user_files: true,
            include_ancestors: true,
            codex_home: paths::codex_home(),
        }
    }
}

fn count_lines(text: &str) -> usize {
    text::line_and_char_counts(text).0
}

fn has_paths_scope(text: &str) -> bool {
    markdown::frontmatter(text).is_some_and(|fm| {
        fm.yaml.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("paths:") || l.starts_with("globs:")
        })
    })
}

/// Reads a user-level file (`~/.claude/CLAUDE.md`, a user rule, auto memory). The user's
/// own files may link anywhere (dotfile managers keep them elsewhere), but never to a
/// sensitive file: a link to `~/.ssh/id_rsa` does not put a key into the context.
fn read_user_file(file: &Path) -> Result<String, CoreError> {
    let real = std::fs::canonicalize(file).map_err(|e| CoreError::io(file, e))?;
    if imports::is_sensitive(&real) {
        return Err(CoreError::NotConfined {
            path: file.to_path_buf(),
            reason: format!(
                "it really is {}, a sensitive file (secrets, credentials or keys); not read",
                real.display()
            ),
        });
    }
    text::read_text(&real)
}

pub(crate) use crate::formats::layers::ancestor_files;

struct Builder<'a> {
    project: &'a Path,
    /// The project, its real path resolved once: every project file loaded is checked
    /// against it right before it is read.
    folder: ProjectFolder<'a>,
    /// The bank lives outside the project (in the home or the agent's data folder): its
    /// files are read confined to its own allowed root.
    outside_project: bool,
    home: Option<PathBuf>,
    format: Format,
    /// The project's real path, resolved the first time a name needs it.
    real_project: std::cell::OnceCell<Option<PathBuf>>,
    count_tokens: &'a dyn Fn(&str) -> usize,
    expander: Option<Expander>,
    /// The format's combined limit over the project's files, as far as it is used.
    chain: Option<Chain>,
    /// A Roo Code session: its mode, and whether a system prompt override replaces the
    /// mode's system prompt.
    roo: Option<RooSession>,
    out: BankContext,
}

/// The mode of a Roo Code session over a rules bank.
struct RooSession {
    mode: String,
    overridden: bool,
}

impl Builder<'_> {
    fn display(&self, path: &Path) -> String {
        if let Ok(rel) = path.strip_prefix(self.project) {
            return rel.display().to_string();
        }
        // A file of a folder above the project: `../CLAUDE.md`.
        if let (Some(dir), Some(name)) = (path.parent(), path.file_name())
            && let Ok(down) = self.project.strip_prefix(dir)
            && !down.as_os_str().is_empty()
        {
            return format!(
                "{}{}",
                "../".repeat(down.components().count()),
                name.to_string_lossy()
            );
        }
        if let Some(canonical_project) = self
            .real_project
            .get_or_init(|| std::fs::canonicalize(self.project).ok())
            && let Ok(rel) = path.strip_prefix(canonical_project)
        {
            return rel.display().to_string();
        }
        if let Some(home) = &self.home
            && let Ok(rel) = path.strip_prefix(home)
        {
            return format!("~/{}", rel.display());
        }
        path.display().to_string()
    }

    fn skip(&mut self, file: &Path, reason: impl Into<String>) {
        self.out.skipped.push(SkippedFile {
            file: file.to_path_buf(),
            reason: reason.into(),
        });
    }

    fn push_piece(
        &mut self,
        file: &Path,
        scope: Scope,
        via: Vec<PathBuf>,
        text: String,
        notes: Vec<String>,
    ) {
        let tokens = (self.count_tokens)(&text);
        self.out.total_tokens += tokens;
        self.out.total_bytes += text.len();
        let reached = match (via.last(), scope) {
            (Some(importer), _) => format!(
                "imported through {}{}",
                self.display(importer),
                notes
                    .first()
                    .and_then(|n| n.strip_prefix("imported by "))
                    .map(|how| format!(" by {how}"))
                    .unwrap_or_default()
            ),
            (None, Scope::User) => "user-level file, loaded first".to_string(),
            (None, Scope::Ancestor) => {
                "inherited from a folder above the project, loaded before its files".to_string()
            }
            (None, Scope::Project) => format!("start-up file ({})", self.format.label()),
        };
        self.out.pieces.push(LoadedPiece {
            file: file.to_path_buf(),
            display: self.display(file),
            scope,
            via,
            lines: count_lines(&text),
            bytes: text.len(),
            text,
            tokens,
            notes,
            reached: vec![reached],
            stripped: Vec::new(),
        });
    }

    fn record_cut(&mut self, file: &Path, cut: &LimitCut) {
        let display = self.display(file);
        self.out.cutoffs.push(CutOff::new(file, display, cut));
    }

    /// A combined limit's cut dropped text of `file`: where, and how much.
    fn combined_cut_finding(&mut self, limit: &CombinedLimit, file: &Path, cut: &LimitCut) {
        let line = cut.cut.first_line;
        let shown = self.display(file);
        let message = (limit.message)(
            &shown,
            line,
            cut.cut.kept_bytes,
            cut.cut.dropped_lines,
            cut.cut.dropped_bytes,
        );
        self.out.findings.push(Finding::new(
            Severity::Warning,
            limit.code,
            file,
            Some(line),
            message,
        ));
    }

    /// Loads one top-level file: privacy, cut-offs, then its imports.
    fn load(&mut self, file: &Path, scope: Scope, limit: Option<formats::FileLimit>) {
        if let Some(expander) = &self.expander
            && expander.is_loaded(file)
        {
            self.skip(file, "already loaded through an @import");
            return;
        }
        let read = match scope {
            // Auto memory's folder is the home folder: links out of it are refused.
            Scope::Project => confine::read_text(&self.folder, file),
            Scope::User if self.outside_project => confine::read_text(&self.folder, file),
            // Files above the project are the agent's to read, like the user's own.
            Scope::User | Scope::Ancestor => read_user_file(file),
        };
        let mut text = match read {
            Ok(text) => text,
            Err(e) => {
                self.skip(file, format!("cannot be read: {e}"));
                return;
            }
        };
        let mut notes = Vec::new();
        let mut stripped = Vec::new();
        if let Some(roo) = &self.roo
            && scope == Scope::Project
        {
            let rel = file.strip_prefix(self.project).unwrap_or(file);
            if roo_rules::is_roomodes(rel) {
                let defined = match modes::parse_mode_definitions(file, &text) {
                    Ok(defined) => defined,
                    Err(e) => {
                        self.skip(
                            file,
                            format!("Roo Code cannot read its custom modes, so none loads: {e}"),
                        );
                        return;
                    }
                };
                let sent = modes::roomodes_as_sent(&defined, &roo.mode, roo.overridden);
                if sent.trim().is_empty() {
                    self.skip(
                        file,
                        format!(
                            "nothing of it is sent in mode {}: it does not define that mode{}",
                            roo.mode,
                            if roo.overridden {
                                ", and the system prompt override leaves the list of modes out"
                            } else {
                                ""
                            }
                        ),
                    );
                    return;
                }
                let how = if roo.overridden {
                    format!(
                        "only the {} mode's definition is sent: the system prompt override \
                         leaves the list of modes out",
                        roo.mode
                    )
                } else if defined.iter().any(|m| m.slug == roo.mode) {
                    format!(
                        "Roo Code sends the {} mode's definition in full and one line for each \
                         of the {} in its list of modes, not the whole file",
                        roo.mode,
                        text::counted(defined.len(), "custom mode")
                    )
                } else {
                    format!(
                        "the {} mode is not defined here: Roo Code sends one line for each of \
                         the {} in its list of modes, not the whole file",
                        roo.mode,
                        text::counted(defined.len(), "custom mode")
                    )
                };
                notes.push(format!("{how} ({} of {} bytes)", sent.len(), text.len()));
                text = sent;
            } else if roo_rules::system_prompt_override(rel) == Some(roo.mode.as_str()) {
                if text.trim().is_empty() {
                    self.skip(file, "empty: Roo Code keeps its own system prompt");
                    return;
                }
                notes.push(format!(
                    "replaces Roo Code's system prompt in mode {}: sent with the mode's role \
                     definition and custom instructions; the tool descriptions, Roo's own rules \
                     and the list of modes are not",
                    roo.mode
                ));
                text = text.trim().to_string();
            }
        }
        if formats::rules(self.format).honours_private_blocks() {
            if markdown::is_private_file(&text) {
                self.skip(file, "private: true — ConKeeper never injects this file");
                return;
            }
            let last_line = count_lines(&text);
            stripped = markdown::private_blocks(&text)
                .iter()
                .map(|block| (block.start, block.end.unwrap_or(last_line)))
                .collect();
            let (loaded, hidden) = markdown::split_private(&text);
            if !hidden.is_empty() {
                notes.push(format!(
                    "{} inside <private> blocks stripped",
                    text::counted(count_lines(&hidden), "line")
                ));
            }
            text = loaded;
        } else if !markdown::private_blocks(&text).is_empty() {
            notes.push(format!(
                "{} does not honour <private>: the block loads like any other text",
                self.format.label()
            ));
        }
        if let Some(limit) = limit
            && let Some(cut) = load_cut::file_cut(&limit, &text)
        {
            let kept = cut.cut.kept_bytes;
            self.record_cut(file, &cut);
            notes.push(if limit.max_chars.is_some() {
                let chars = text[..kept].chars().count();
                format!("cut after {chars} characters ({})", cut.rule)
            } else {
                format!("cut after {kept} bytes")
            });
            text.truncate(kept);
        }
        let rules = formats::rules(self.format);
        if let Some(why) = rules.skips_text(&text) {
            self.skip(file, why);
            return;
        }
        if scope != Scope::User
            && let Some(chain) = self.chain.as_mut()
        {
            let limit = *chain.limit();
            if let Some(cut) = chain.take(&text) {
                let kept = cut.cut.kept_bytes;
                self.record_cut(file, &cut);
                self.combined_cut_finding(&limit, file, &cut);
                if kept == 0 {
                    self.skip(file, limit.used_up);
                    return;
                }
                notes.push(format!("cut after {kept} bytes ({})", limit.note));
                text.truncate(kept);
            }
        }
        let file_name = file
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        notes.extend(rules.size_note(&file_name, &text));
        // Claude Code does not expand the imports of a CLAUDE.md it loads as an ancestor.
        let expansion = self
            .expander
            .as_mut()
            .filter(|_| scope != Scope::Ancestor)
            .map(|expander| expander.expand(file, &text));
        self.push_piece(file, scope, Vec::new(), text, notes);
        if let Some(piece) = self.out.pieces.last_mut() {
            piece.stripped = stripped;
        }
        if let Some(expansion) = expansion {
            let bridge_note = self.ancestor_agents_md_note(file, scope, &expansion.files);
            for imported in expansion.files {
                let note = format!(
                    "imported by @{} (line {}), depth {}",
                    imported.written,
                    imported.line,
                    imported.depth()
                );
                self.push_piece(
                    &imported.path,
                    scope,
                    imported.chain,
                    imported.text,
                    vec![note],
                );
            }
            self.out.import_findings.extend(expansion.findings);
            self.out.import_findings.extend(bridge_note);
        }
    }

    /// Claude Code expands the imports of the CLAUDE.md in the folder it was launched in,
    /// not those of a CLAUDE.md it loads as an ancestor (launched in a sub-folder): there
    /// the `@AGENTS.md` bridge line stays plain text and AGENTS.md does not load.
    fn ancestor_agents_md_note(
        &self,
        file: &Path,
        scope: Scope,
        imported: &[imports::ImportedFile],
    ) -> Option<Finding> {
        if scope != Scope::Project {
            return None;
        }
        let rules = formats::rules(self.format);
        let shown = self.display(file);
        imported
            .iter()
            .filter(|i| i.depth() == 1)
            .find_map(|i| {
                let name = i.path.file_name()?.to_string_lossy();
                let note = rules.ancestor_import_note(&name, &i.written, &shown)?;
                Some((i.line, note))
            })
            .map(|(line, note)| {
                Finding::new(
                    Severity::Info,
                    FindingCode::ImportNotExpandedInSubfolders,
                    file,
                    Some(line),
                    note,
                )
            })
    }
}

/// The mode of a session over a Roo rules bank, and whether its `.roo/system-prompt-{mode}`
/// override (read confined to the project, trimmed as Roo reads it) is there and not empty.
fn roo_session(project: &Project, bank: &Bank, mode: Option<&str>) -> Option<RooSession> {
    let mode = mode.filter(|_| formats::rules(bank.format).holds_mode_rules())?;
    let folder = ProjectFolder::new(&project.path);
    let overridden = bank.files.iter().any(|file| {
        let rel = file.path.strip_prefix(&project.path).unwrap_or(&file.path);
        roo_rules::system_prompt_override(rel) == Some(mode)
            && confine::read_text(&folder, &file.path).is_ok_and(|t| !t.trim().is_empty())
    });
    Some(RooSession {
        mode: mode.to_string(),
        overridden,
    })
}

/// What `mode`'s rule files in the project say to read (see [`modes::reads_of_mode`]),
/// each read confined to the project.
fn mode_reads(project: &Project, mode: &str) -> Option<(PathBuf, Vec<String>)> {
    let folder = ProjectFolder::new(&project.path);
    project
        .banks
        .iter()
        .filter(|location| formats::rules(location.format).holds_mode_rules())
        .find_map(|location| {
            let rules = crate::scan::bank::list_bank(project, location);
            modes::reads_of_mode(&rules, mode, |file| confine::read_text(&folder, file).ok())
        })
}

/// The bank's files with its top files named in `reads` first, in that order (matched by
/// name, whatever the case or separators), then the others in the format's own order.
fn in_read_order<'b>(bank: &'b Bank, reads: &[String]) -> Vec<&'b MemoryFile> {
    let keys: Vec<String> = reads
        .iter()
        .map(|r| formats::name_key(r.rsplit(['/', '\\']).next().unwrap_or(r)))
        .collect();
    let rules = formats::rules(bank.format);
    let mut files: Vec<(usize, u8, usize, &MemoryFile)> = bank
        .files
        .iter()
        .enumerate()
        .map(|(index, file)| {
            let named = (file.path.parent() == Some(bank.root.as_path()))
                .then(|| {
                    let key = formats::name_key(&file.file_name());
                    keys.iter().position(|k| *k == key)
                })
                .flatten();
            let layer = file
                .path
                .strip_prefix(&bank.root)
                .ok()
                .and_then(|rel| rules.place(rel).layer)
                .unwrap_or(u8::MAX);
            match named {
                Some(position) => (position, 0, index, file),
                None => (keys.len(), layer, index, file),
            }
        })
        .collect();
    files.sort_by_key(|&(position, layer, index, _)| (position, layer, index));
    files.into_iter().map(|(_, _, _, file)| file).collect()
}

fn infinity_listing(bank: &Bank, count_tokens: &dyn Fn(&str) -> usize) -> ListingSize {
    let memories: Vec<serde_json::Value> = bank
        .files
        .iter()
        .filter_map(|f| f.memory.as_ref())
        .map(|m| serde_json::json!({"id": m.id, "title": m.title, "type": m.kind}))
        .collect();
    let count = memories.len();
    let answer = serde_json::json!({"success": true, "memories": memories});
    let text = serde_json::to_string(&answer).unwrap_or_default();
    ListingSize {
        memories: count,
        bytes: text.len(),
        tokens: count_tokens(&text),
    }
}

/// What an agent loads of `bank` at its session start, with explicit options (tests, or a
/// view that leaves out the user's global files).
pub fn session_context_with(
    project: &Project,
    bank: &Bank,
    count_tokens: &dyn Fn(&str) -> usize,
    options: &ContextOptions,
) -> BankContext {
    let home = HomeRoots::resolve(options.home.as_deref());
    session_context_in_mode(project, bank, count_tokens, options, &home, None)
}

/// [`session_context_with`] for a session in `mode` (formats with modes; `None`: the
/// format's default mode), `home` being `options.home` resolved.
pub(crate) fn session_context_in_mode(
    project: &Project,
    bank: &Bank,
    count_tokens: &dyn Fn(&str) -> usize,
    options: &ContextOptions,
    home: &HomeRoots,
    mode: Option<&str>,
) -> BankContext {
    let format = bank.format;
    let default_mode = crate::formats::rules(format).default_mode();
    // A Memory Bank MCP / Roo bank is read in the order its session mode's rules list.
    let mode_order = match (format, mode) {
        (Format::MemoryBankMcp, Some(chosen))
            if memory_bank_mcp::document_bank_dir(&bank.root).is_none() =>
        {
            Some((chosen, mode_reads(project, chosen)))
        }
        _ => None,
    };
    // Only formats with modes have a session mode.
    let mode = default_mode.and(mode.or(default_mode));
    let expander = imports::format_expands_imports(format)
        .then(|| Expander::new(ImportPolicy::of_project(project, home).for_format(format)));
    // Claude Code's auto memory is read confined to the home folder it lives in.
    let rules = formats::rules(format);
    let outside = rules.outside_project(&bank.root);
    let auto_memory_home = outside.as_ref().map(|o| o.allowed_root.as_path());
    let mut builder = Builder {
        project: &project.path,
        folder: ProjectFolder::new(auto_memory_home.unwrap_or(&project.path)),
        outside_project: outside.is_some(),
        home: options.home.clone(),
        format,
        real_project: std::cell::OnceCell::new(),
        count_tokens,
        expander,
        chain: rules.combined_limit().map(Chain::new),
        roo: roo_session(project, bank, mode),
        out: BankContext {
            format,
            root: bank.root.clone(),
            pieces: Vec::new(),
            cutoffs: Vec::new(),
            skipped: Vec::new(),
            import_findings: Vec::new(),
            findings: confine::findings(&bank.outside, &project.path),
            deferred: Vec::new(),
            listing: None,
            notes: Vec::new(),
            total_tokens: 0,
            total_bytes: 0,
        },
    };
    if rules.is_store() {
        let listing = infinity_listing(bank, count_tokens);
        builder.out.notes.push(format!(
            "Infinity loads nothing at session start: the agent calls list_memories, which \
             returns metadata only ({} memories, {} bytes, {} tokens), then get_memory for \
             the ones it needs",
            listing.memories, listing.bytes, listing.tokens
        ));
        builder.out.listing = Some(listing);
        for file in bank.files.iter().filter(|f| f.unreadable.is_some()) {
            let reason = file.unreadable.clone().unwrap_or_default();
            builder.skip(&file.path, reason);
        }
        return builder.out;
    }
    let user_before = match (&options.home, options.include_user_files) {
        (Some(home), true) => {
            // Codex uses the first of its files that is not empty.
            let non_empty = |file: &Path| {
                read_user_file(file).is_ok_and(|t| !agents_md::is_empty_for_codex(&t))
            };
            layers::user_files(format, home, options.codex_home.as_deref(), &non_empty)
        }
        _ => Vec::new(),
    };
    for file in &user_before {
        // A user rule scoped with paths: loads only when matching files are touched.
        if file.parent().is_some_and(|p| p.ends_with("rules"))
            && read_user_file(file).is_ok_and(|t| has_paths_scope(&t))
        {
            continue;
        }
        builder.load(file, Scope::User, None);
    }
    if options.include_ancestors {
        for file in ancestor_files(format, &project.path, options.home.as_deref()) {
            builder.load(&file, Scope::Ancestor, None);
        }
    }
    if let Some(mode) = mode {
        let how = if Some(mode) == default_mode {
            "the default mode"
        } else {
            "chosen with --mode"
        };
        builder
            .out
            .notes
            .push(format!("session in mode {mode} ({how})"));
    }
    let files: Vec<&MemoryFile> = match &mode_order {
        Some((chosen, reads)) => {
            let (how, order) = match reads {
                Some((source, reads)) => (
                    format!(
                        "read in the order of files_to_read in {}",
                        builder.display(source)
                    ),
                    reads.as_slice(),
                ),
                None => (
                    "its rules list no files_to_read, so the bank is read in its format's \
                     own order"
                        .to_string(),
                    &[][..],
                ),
            };
            builder.out.notes.push(format!(
                "session in mode {chosen} (chosen with --mode): {how}"
            ));
            in_read_order(bank, order)
        }
        None => bank.files.iter().collect(),
    };
    let mut on_demand = 0;
    for file in files {
        if file.is_virtual() {
            continue;
        }
        let load = match mode.filter(|_| rules.holds_mode_rules()) {
            Some(mode) => crate::formats::roo_rules::load_in_mode(&bank.root, file, mode),
            None => file.load,
        };
        match load {
            LoadKind::Startup => {
                if let Some((superseding, why)) =
                    rules.superseded_by(&file.path, &|p| bank.files.iter().any(|f| f.path == p))
                {
                    builder.skip(
                        &file.path,
                        format!(
                            "{} in the same folder takes its place ({why})",
                            builder.display(&superseding)
                        ),
                    );
                    continue;
                }
                let rel = file.path.strip_prefix(&bank.root).unwrap_or(&file.path);
                let limit = rules.file_limit(rel);
                if builder.outside_project {
                    builder.load(&file.path, Scope::User, limit);
                } else {
                    builder.load(&file.path, Scope::Project, limit);
                }
            }
            LoadKind::Never => {}
            later => {
                on_demand += 1;
                let display = builder.display(&file.path);
                builder.out.deferred.push(DeferredFile {
                    file: file.path.clone(),
                    display,
                    load: later,
                });
            }
        }
    }
    let later_kinds = |kind| {
        builder
            .out
            .deferred
            .iter()
            .filter(|d| d.load == kind)
            .count()
    };
    let (agent_requested, manual) = (
        later_kinds(LoadKind::AgentRequested),
        later_kinds(LoadKind::Manual),
    );
    if let Some(note) = (on_demand > 0)
        .then(|| rules.on_demand_note(on_demand))
        .flatten()
    {
        builder.out.notes.push(note);
    } else if agent_requested + manual > 0 {
        let on_demand = on_demand - agent_requested - manual;
        builder.out.notes.push(format!(
            "{} more file(s) load after session start and are not counted here: \
             {on_demand} on demand, {agent_requested} agent-requested, {manual} manual",
            on_demand + agent_requested + manual
        ));
    } else if on_demand > 0 {
        builder.out.notes.push(format!(
            "{} more load only on demand (scoped rules, sub-folder files, \
             modes, documents) and are not counted here",
            text::counted(on_demand, "file")
        ));
    }
    if builder.out.pieces.is_empty() && bank.files.iter().all(|f| f.load != LoadKind::Startup) {
        builder
            .out
            .notes
            .push("nothing in this bank loads at session start".to_string());
    }
    builder.out
}

#[cfg(test)]
mod tests;
