//! What one agent loads at session start, cut to fit a token budget: the core of
//! `mbank context --max-tokens`, and of an agent asking for its context within a budget.
//!
//! The session is the one `mbank context --agent` shows ([`agent_session`]): its files in
//! load order, each as the agent loads it (imports expanded, the agent's own load limits
//! applied). Each file is returned in a block of its own,
//!
//! ```text
//! <file path="memory-bank/progress.md">
//! …the text the agent loads…
//! </file>
//! ```
//!
//! whole while it fits; the first file that does not fit is cut after its last whole line
//! that does (its block says so: `<file path="…" cut="after line 40">`), or left out when
//! not even its first line fits, and every file after it is left out. What is left out is
//! listed with why ([`LeftOutReason`]). `<private>` blocks and `private: true` files are
//! never returned, whatever the agent itself does with them.
//!
//! The budget holds exactly: the text is counted in the encoding asked as it is returned,
//! block headers and closing tags included. Each block is counted once (the one that is
//! cut, a few more times over its prefixes, by bisection); the assembled text is counted
//! once more, since tokens need not add up across a join, and fitted again on the rare
//! join that costs more than its parts.
use std::cell::Cell;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{BankContext, ContextOptions, LoadedPiece, Scope, agent_session, count_lines};
use crate::analysis::context::sessions::agent_banks;
use crate::analysis::load_cut::{Fit, thousands};
use crate::formats::agents::Agent;
use crate::markup::markdown;
use crate::model::{Bank, Format, Project};
use crate::tokens::{self, Encoding};

/// What to fit: whose session start, into how many tokens of which encoding.
#[derive(Debug, Clone, Copy)]
pub struct FitRequest<'a> {
    /// The agent whose session start is fitted; `None`: the project's primary agent, the
    /// first one `mbank context` shows (the first in [`Agent::ALL`] that loads any of the
    /// project's banks).
    pub agent: Option<Agent>,
    /// The returned text never counts more tokens than this.
    pub max_tokens: usize,
    /// The encoding the budget is counted in (the configuration's, o200k_base by default).
    pub encoding: Encoding,
    /// The user-level layer and the folders above the project, as `mbank context` takes them.
    pub options: &'a ContextOptions,
    /// The session's mode, for formats with modes (`None`: the format's default mode).
    pub mode: Option<&'a str>,
}

/// How the agent of a fitted context was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentChoice {
    /// The caller named it.
    Named,
    /// None was named: the project's primary agent (see [`FitRequest::agent`]).
    Primary,
}

/// An agent's session start cut to fit a budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FittedContext {
    pub agent: Agent,
    /// "Claude Code".
    pub label: &'static str,
    pub chosen: AgentChoice,
    pub encoding: Encoding,
    pub max_tokens: usize,
    /// The files' blocks in load order (see the module's documentation); empty when not
    /// even the first line of the first file fits.
    pub text: String,
    /// Tokens of `text`, counted exactly in `encoding`: never more than `max_tokens`.
    pub tokens: usize,
    /// Tokens the whole session start takes in this form, every file whole: the budget
    /// under which nothing is left out for the budget's sake.
    pub whole_tokens: usize,
    /// The files returned, in load order: all whole but possibly the last.
    pub files: Vec<FittedFile>,
    /// Everything the agent's session start holds that `text` does not, in load order,
    /// with why.
    pub left_out: Vec<LeftOut>,
}

/// One file returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FittedFile {
    pub file: PathBuf,
    /// Project-relative (or `~/…`) path, as its block's header names it.
    pub display: String,
    pub format: Format,
    pub scope: Scope,
    /// For an imported file: the files it was imported through, top-level file first.
    pub via: Vec<PathBuf>,
    /// Returned whole as the agent loads it (else cut for the budget: the last file).
    pub whole: bool,
    /// The file's last line returned (1-based, in the file's own numbering; 0: none).
    pub last_line: usize,
    /// Tokens of its block, header and closing tag included.
    pub tokens: usize,
}

/// Why text of the session start is not returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LeftOutReason {
    /// It does not fit in `max_tokens`.
    Budget,
    /// The agent itself stops reading before it (its documented load limit).
    LoadLimit,
    /// The agent does not load it at session start (it loads later, or not at all).
    NotAtStart,
    /// A `<private>` block or a `private: true` file: never returned.
    Private,
}

/// A file, or lines of one, that the fitted text leaves out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeftOut {
    pub file: PathBuf,
    pub display: String,
    /// The lines left out (1-based, inclusive, in the file's numbering); both `None`:
    /// the whole file.
    pub first_line: Option<usize>,
    pub last_line: Option<usize>,
    pub reason: LeftOutReason,
    /// A whole file left out for the budget: the tokens its block would take.
    pub tokens: Option<usize>,
    /// In words: "memory-bank/progress.md: lines 41–120 are past the 4,000-token budget".
    pub message: String,
}

/// The schema of a fitted context in JSON, as `mbank context --max-tokens --json` prints it
/// and the servers' `get_context` answers it.
pub const FIT_SCHEMA: &str = "mbank.context-fit/1";

/// A fitted context with what it was fitted for: its one JSON form ([`FIT_SCHEMA`]).
#[derive(Debug, Serialize)]
pub struct FitReport<'a> {
    pub schema: &'static str,
    /// Whether the user-level layer (home folder files) was loaded.
    pub user_layer: bool,
    pub project: ProjectRef<'a>,
    #[serde(flatten)]
    pub fitted: &'a FittedContext,
}

impl<'a> FitReport<'a> {
    pub fn new(project: &'a Project, user_layer: bool, fitted: &'a FittedContext) -> Self {
        FitReport {
            schema: FIT_SCHEMA,
            user_layer,
            project: ProjectRef {
                name: &project.name,
                path: &project.path,
            },
            fitted,
        }
    }
}

/// A project as a fitted context names it.
#[derive(Debug, Serialize)]
pub struct ProjectRef<'a> {
    pub name: &'a str,
    pub path: &'a Path,
}

/// Why no context can be fitted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FitError {
    /// The agent named loads nothing from the project; `agents` are those that do.
    #[error("{} loads nothing from {project}; {}", .agent.label(), agents_in_words(.agents))]
    AgentLoadsNothing {
        agent: Agent,
        project: String,
        agents: Vec<Agent>,
    },
    /// No agent loads anything from the project (its banks are read through their own
    /// tools, BEANS.md or Infinity, or it has none).
    #[error("no agent loads anything from {project} at session start")]
    NoAgent { project: String },
}

impl FitError {
    /// The error's code in JSON: `agent-loads-nothing` or `no-agent`.
    pub fn code(&self) -> &'static str {
        match self {
            FitError::AgentLoadsNothing { .. } => "agent-loads-nothing",
            FitError::NoAgent { .. } => "no-agent",
        }
    }

    /// The agents that do load something from the project.
    pub fn agents(&self) -> &[Agent] {
        match self {
            FitError::AgentLoadsNothing { agents, .. } => agents,
            FitError::NoAgent { .. } => &[],
        }
    }
}

fn agents_in_words(agents: &[Agent]) -> String {
    if agents.is_empty() {
        return "no agent does".to_string();
    }
    let named: Vec<String> = agents
        .iter()
        .map(|a| format!("{} ({})", a.id(), a.label()))
        .collect();
    format!("agents that do: {}", named.join(", "))
}

/// `request.agent`'s session start in `project` (its banks as listed, `banks`), cut to fit
/// `request.max_tokens` counted in `request.encoding`: see the module's documentation.
pub fn fit_context(
    project: &Project,
    banks: &[&Bank],
    request: &FitRequest,
) -> Result<FittedContext, FitError> {
    let encoding = request.encoding;
    fit_counted(project, banks, request, &|text| {
        tokens::count(encoding, text)
    })
}

/// [`fit_context`] with the token count given (tests measure with counts of their own).
fn fit_counted(
    project: &Project,
    banks: &[&Bank],
    request: &FitRequest,
    count: &dyn Fn(&str) -> usize,
) -> Result<FittedContext, FitError> {
    let (agent, chosen) = choose_agent(project, banks, request.agent)?;
    // Counted here, block by block, not piece by piece by the session.
    let session = agent_session(project, banks, agent, &|_| 0, request.options, request.mode);
    let pieces: Vec<Prepared> = session
        .banks
        .iter()
        .flat_map(|bank| bank.pieces.iter().map(move |piece| (bank.format, piece)))
        .map(|(format, piece)| Prepared::new(format, piece))
        .collect();
    let max_tokens = request.max_tokens;
    // Tokens need not add up across a join: when the assembled text counts more than its
    // blocks did, fit again into a budget smaller by the difference.
    let mut budget = max_tokens;
    let (fates, text, tokens) = loop {
        let fates = plan(&pieces, budget, count);
        let text = assemble(&pieces, &fates);
        let tokens = count(&text);
        if tokens <= max_tokens || budget == 0 {
            break (fates, text, tokens);
        }
        budget = budget.saturating_sub(tokens - max_tokens);
    };
    // Each block's tokens whole, counted once: the whole session's size, and each
    // file's left out for the budget.
    let block_tokens: Vec<usize> = pieces
        .iter()
        .zip(&fates)
        .map(|(piece, fate)| match fate {
            Fate::Whole { tokens } => *tokens,
            Fate::Private => 0,
            Fate::Cut { .. } | Fate::NoLineFits | Fate::Past => count(&piece.block(&piece.text)),
        })
        .collect();
    let files = pieces
        .iter()
        .zip(&fates)
        .filter_map(|(piece, fate)| piece.returned(fate))
        .collect();
    let left_out = left_out(
        project,
        request,
        &session.banks,
        &pieces,
        &fates,
        &block_tokens,
    );
    Ok(FittedContext {
        agent,
        label: agent.label(),
        chosen,
        encoding: request.encoding,
        max_tokens,
        text,
        tokens,
        whole_tokens: block_tokens.iter().sum(),
        files,
        left_out,
    })
}

/// The agent named, when it loads anything from the project, else the primary one.
fn choose_agent(
    project: &Project,
    banks: &[&Bank],
    named: Option<Agent>,
) -> Result<(Agent, AgentChoice), FitError> {
    let loads = |agent: Agent| !agent_banks(project, banks, agent).is_empty();
    if let Some(agent) = named {
        if loads(agent) {
            return Ok((agent, AgentChoice::Named));
        }
        return Err(FitError::AgentLoadsNothing {
            agent,
            project: project.name.clone(),
            agents: Agent::ALL.into_iter().filter(|a| loads(*a)).collect(),
        });
    }
    Agent::ALL
        .into_iter()
        .find(|a| loads(*a))
        .map(|agent| (agent, AgentChoice::Primary))
        .ok_or_else(|| FitError::NoAgent {
            project: project.name.clone(),
        })
}

/// One loaded piece, ready to be returned: its text without `<private>` blocks, and the
/// lines they held, to number what is returned as the file does.
struct Prepared<'s> {
    piece: &'s LoadedPiece,
    format: Format,
    /// The piece's text, `<private>` blocks removed.
    text: String,
    /// The lines removed from the file before `text` (private blocks, tags included), in
    /// the file's numbering, in order.
    removed: Vec<(usize, usize)>,
    /// `private: true`: never returned.
    private_file: bool,
    /// The display path, escaped for the block's header.
    path_attribute: String,
}

impl<'s> Prepared<'s> {
    fn new(format: Format, piece: &'s LoadedPiece) -> Prepared<'s> {
        let private_file = markdown::is_private_file(&piece.text);
        // A format that honours `<private>` stripped its blocks before loading (`stripped`);
        // for the others the blocks are in the text, numbered as the file is.
        let (text, removed) = if piece.text.contains("<private>") {
            let last_line = count_lines(&piece.text);
            let mut removed = piece.stripped.clone();
            removed.extend(
                markdown::private_blocks(&piece.text)
                    .iter()
                    .map(|block| (block.start, block.end.unwrap_or(last_line))),
            );
            (markdown::split_private(&piece.text).0, removed)
        } else {
            (piece.text.clone(), piece.stripped.clone())
        };
        Prepared {
            piece,
            format,
            text,
            removed,
            private_file,
            path_attribute: escape_attribute(&piece.display),
        }
    }

    /// The line of the file that line `loaded` (1-based) of `text` is.
    fn file_line(&self, loaded: usize) -> usize {
        let mut line = loaded;
        for &(start, end) in &self.removed {
            if start > line {
                break;
            }
            line += end - start + 1;
        }
        line
    }

    /// The file's last line, as the agent loads it.
    fn last_line(&self) -> usize {
        let last_text_line = match count_lines(&self.text) {
            0 => 0,
            lines => self.file_line(lines),
        };
        let last_removed = self.removed.last().map_or(0, |&(_, end)| end);
        last_text_line.max(last_removed)
    }

    /// The block returning `kept`, the start of `text` (all of it: the whole file).
    fn block(&self, kept: &str) -> String {
        let mut out = String::with_capacity(kept.len() + self.path_attribute.len() + 48);
        out.push_str("<file path=\"");
        out.push_str(&self.path_attribute);
        out.push('"');
        if kept.len() < self.text.len() {
            let last = self.file_line(count_lines(kept));
            out.push_str(&format!(" cut=\"after line {last}\""));
        }
        out.push_str(">\n");
        out.push_str(kept);
        if !kept.is_empty() && !kept.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("</file>\n");
        out
    }

    fn returned(&self, fate: &Fate) -> Option<FittedFile> {
        let (whole, last_line, tokens) = match *fate {
            Fate::Whole { tokens } => (true, self.last_line(), tokens),
            Fate::Cut { kept, tokens } => (
                false,
                self.file_line(count_lines(&self.text[..kept])),
                tokens,
            ),
            Fate::NoLineFits | Fate::Past | Fate::Private => return None,
        };
        Some(FittedFile {
            file: self.piece.file.clone(),
            display: self.piece.display.clone(),
            format: self.format,
            scope: self.piece.scope,
            via: self.piece.via.clone(),
            whole,
            last_line,
            tokens,
        })
    }
}

/// What becomes of one piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// Returned whole, its block taking `tokens`.
    Whole { tokens: usize },
    /// Its first `kept` bytes (whole lines) returned, the block taking `tokens`.
    Cut { kept: usize, tokens: usize },
    /// Left out for the budget: the first file that does not fit whole, not even its
    /// first line fitting.
    NoLineFits,
    /// Left out for the budget: the budget ran out before it.
    Past,
    /// Never returned.
    Private,
}

/// Each piece's fate under `budget`: whole while it fits, the first that does not cut at
/// a line or left out, every later one left out.
fn plan(pieces: &[Prepared], budget: usize, count: &dyn Fn(&str) -> usize) -> Vec<Fate> {
    let current = Cell::new(0);
    let mut fit = Fit::new(budget, |kept: &str| {
        count(&pieces[current.get()].block(kept))
    });
    let mut crossed = false;
    let mut fates = Vec::with_capacity(pieces.len());
    for (index, piece) in pieces.iter().enumerate() {
        if piece.private_file {
            fates.push(Fate::Private);
            continue;
        }
        if crossed {
            fates.push(Fate::Past);
            continue;
        }
        current.set(index);
        let before = fit.left();
        // An empty text has no line to cut at: its block fits or it is left out.
        if piece.text.is_empty() && count(&piece.block("")) > before {
            crossed = true;
            fates.push(Fate::NoLineFits);
            continue;
        }
        let fate = match fit.take(&piece.text) {
            None => Fate::Whole {
                tokens: before - fit.left(),
            },
            Some(cut) if cut.kept_bytes == 0 => Fate::NoLineFits,
            Some(cut) => Fate::Cut {
                kept: cut.kept_bytes,
                tokens: before - fit.left(),
            },
        };
        crossed = !matches!(fate, Fate::Whole { .. });
        fates.push(fate);
    }
    fates
}

/// The text returned: the blocks of the pieces that are, in load order.
fn assemble(pieces: &[Prepared], fates: &[Fate]) -> String {
    let mut text = String::new();
    for (piece, fate) in pieces.iter().zip(fates) {
        match *fate {
            Fate::Whole { .. } => text.push_str(&piece.block(&piece.text)),
            Fate::Cut { kept, .. } => text.push_str(&piece.block(&piece.text[..kept])),
            Fate::NoLineFits | Fate::Past | Fate::Private => {}
        }
    }
    text
}

/// Everything of the session start the text leaves out, in load order: bank by bank, its
/// pieces (private blocks, the budget's cut, the agent's own cut), then its start-up files
/// that load nothing and the files that load later.
fn left_out(
    project: &Project,
    request: &FitRequest,
    banks: &[BankContext],
    pieces: &[Prepared],
    fates: &[Fate],
    block_tokens: &[usize],
) -> Vec<LeftOut> {
    let budget_words = format!("the {}-token budget", thousands(request.max_tokens as u64));
    let mut out = Vec::new();
    let loaded: Vec<&Path> = pieces.iter().map(|p| p.piece.file.as_path()).collect();
    let mut pieces = pieces.iter().zip(fates).zip(block_tokens);
    for bank in banks {
        for _ in &bank.pieces {
            let Some(((piece, fate), &tokens)) = pieces.next() else {
                break;
            };
            piece_left_out(piece, fate, &budget_words, tokens, &mut out);
            for cut in bank.cutoffs.iter().filter(|c| c.file == piece.piece.file) {
                out.push(LeftOut {
                    file: cut.file.clone(),
                    display: cut.display.clone(),
                    first_line: Some(cut.first_line_past),
                    last_line: Some(cut.last_line),
                    reason: LeftOutReason::LoadLimit,
                    tokens: None,
                    message: cut.message.clone(),
                });
            }
        }
        // A file the agent's combined limit leaves out whole has a cut and no piece.
        let mut unloaded: Vec<&Path> = Vec::new();
        for cut in bank
            .cutoffs
            .iter()
            .filter(|c| !loaded.contains(&c.file.as_path()))
        {
            unloaded.push(&cut.file);
            out.push(LeftOut {
                file: cut.file.clone(),
                display: cut.display.clone(),
                first_line: Some(cut.first_line_past),
                last_line: Some(cut.last_line),
                reason: LeftOutReason::LoadLimit,
                tokens: None,
                message: cut.message.clone(),
            });
        }
        // Skipped because it loads elsewhere in the session: it is among the pieces.
        for skipped in bank.skipped.iter().filter(|s| {
            !loaded.contains(&s.file.as_path()) && !unloaded.contains(&s.file.as_path())
        }) {
            let display = shown(project, request.options.home.as_deref(), &skipped.file);
            out.push(LeftOut {
                message: format!("{display}: not loaded at session start: {}", skipped.reason),
                file: skipped.file.clone(),
                display,
                first_line: None,
                last_line: None,
                reason: LeftOutReason::NotAtStart,
                tokens: None,
            });
        }
        for later in &bank.deferred {
            out.push(LeftOut {
                file: later.file.clone(),
                display: later.display.clone(),
                first_line: None,
                last_line: None,
                reason: LeftOutReason::NotAtStart,
                tokens: None,
                message: format!(
                    "{}: not loaded at session start: it loads later ({})",
                    later.display,
                    later.load.label()
                ),
            });
        }
    }
    out
}

/// What one piece's fate leaves out: its `<private>` blocks in the part returned, the
/// lines past the budget, or the whole file.
fn piece_left_out(
    piece: &Prepared,
    fate: &Fate,
    budget_words: &str,
    whole_tokens: usize,
    out: &mut Vec<LeftOut>,
) {
    let display = &piece.piece.display;
    let entry = |first_line: Option<usize>, last_line: Option<usize>, reason, message| LeftOut {
        file: piece.piece.file.clone(),
        display: display.clone(),
        first_line,
        last_line,
        reason,
        tokens: None,
        message,
    };
    let past_from = match *fate {
        Fate::Private => {
            out.push(entry(
                None,
                None,
                LeftOutReason::Private,
                format!("{display}: private (private: true in its frontmatter): never returned"),
            ));
            return;
        }
        Fate::NoLineFits | Fate::Past => {
            let why = if *fate == Fate::Past {
                "it runs out before this file"
            } else {
                "not even the file's first line fits in what is left"
            };
            out.push(LeftOut {
                tokens: Some(whole_tokens),
                ..entry(
                    None,
                    None,
                    LeftOutReason::Budget,
                    format!(
                        "{display}: past {budget_words}: {why} ({} tokens whole)",
                        thousands(whole_tokens as u64)
                    ),
                )
            });
            return;
        }
        Fate::Whole { .. } => None,
        Fate::Cut { kept, .. } => Some(piece.file_line(count_lines(&piece.text[..kept]) + 1)),
    };
    for &(start, end) in &piece.removed {
        if past_from.is_some_and(|from| start >= from) {
            break;
        }
        out.push(entry(
            Some(start),
            Some(end),
            LeftOutReason::Private,
            format!(
                "{display}: {} a <private> block: never returned",
                lines_are(start, end)
            ),
        ));
    }
    if let Some(from) = past_from {
        let last = piece.last_line().max(from);
        out.push(entry(
            Some(from),
            Some(last),
            LeftOutReason::Budget,
            format!("{display}: {} past {budget_words}", lines_are(from, last)),
        ));
    }
}

/// "line 7 is", "lines 41–120 are".
fn lines_are(first: usize, last: usize) -> String {
    if first == last {
        format!("line {first} is")
    } else {
        format!("lines {first}–{last} are")
    }
}

/// A file as a person reads it: project-relative, `~/…` in the home folder, else whole.
fn shown(project: &Project, home: Option<&Path>, file: &Path) -> String {
    if let Ok(rel) = file.strip_prefix(&project.path) {
        return rel.display().to_string();
    }
    if let Some(rel) = home.and_then(|home| file.strip_prefix(home).ok()) {
        return format!("~/{}", rel.display());
    }
    file.display().to_string()
}

/// A path as a double-quoted attribute value.
fn escape_attribute(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' => out.push_str("&#10;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
