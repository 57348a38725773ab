//! Sessions that span banks: what a session start loads from every bank of a project
//! ([`project_context`]), what one agent loads from the banks it reads ([`agent_session`]),
//! and each file loaded once however many banks reach it ([`load_once`]).
use std::path::PathBuf;

use serde::Serialize;

use super::{BankContext, ContextOptions, SkippedFile, session_context_in_mode};
use crate::analysis::imports::HomeRoots;
use crate::formats;
use crate::formats::agents::{self, Agent, ProjectFacts};
use crate::io::confine::{self, ProjectFolder};
use crate::model::{Bank, LoadKind, Project};

/// What a session start loads from every bank of a project, each file once: a file that
/// two banks reach (a CLAUDE.md `@import` of a ConKeeper bank's member, say) loads once,
/// in the bank holding it as a start-up file (else in the first bank reaching it), and
/// that piece lists every way it is reached.
pub fn project_context(
    project: &Project,
    banks: &[&Bank],
    count_tokens: &dyn Fn(&str) -> usize,
    options: &ContextOptions,
    mode: Option<&str>,
) -> Vec<BankContext> {
    let home = HomeRoots::resolve(options.home.as_deref());
    let mut contexts: Vec<BankContext> = banks
        .iter()
        .map(|bank| session_context_in_mode(project, bank, count_tokens, options, &home, mode))
        .collect();
    load_once(&mut contexts);
    contexts
}

/// One agent's session start in a project: the banks it loads, each holding only the
/// files that agent reads, each file loaded once, and the session's own total. Agents
/// never share a session, so there is no total across them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentSession {
    pub agent: Agent,
    pub label: &'static str,
    pub banks: Vec<BankContext>,
    pub total_tokens: usize,
    pub total_bytes: usize,
}

/// The banks `agent` loads (see [`Agent::reads`]), each cut down to the files it reads;
/// a bank none of whose files it reads is left out. A memory bank the agent's own start-up
/// instructions tell it to read joins them ([`directing_file`]).
/// A bank of another agent's format that this agent reads (AGENTS.md for Claude Code)
/// takes the format whose loading rules the agent applies to it ([`Agent::loads_as`]).
pub(crate) fn agent_banks(project: &Project, banks: &[&Bank], agent: Agent) -> Vec<Bank> {
    let directed = directing_file(project, banks, agent).is_some();
    let facts = ProjectFacts::of_banks(&project.path, banks);
    banks
        .iter()
        .filter(|bank| agent.formats().contains(&bank.format))
        .filter_map(|bank| {
            let mut mine = (*bank).clone();
            mine.files.retain(|file| {
                let rel = file.path.strip_prefix(&project.path).unwrap_or(&file.path);
                agent.reads(bank.format, rel, &facts)
                    || (directed && agent.reads_when_directed(bank.format, rel))
            });
            let own = agent.loads_as(bank.format) == bank.format;
            mine.format = agent.loads_as(bank.format);
            // A bank of another agent's format joins only with files this agent reads.
            (!mine.files.is_empty() || (own && bank.files.is_empty())).then_some(mine)
        })
        .collect()
}

/// The start-up instruction file of `agent` in the project that tells it to read the
/// memory bank at the start of every task (see `agents::directs_to_memory_bank`), read
/// confined to the project; `None` for agents that never take such a direction.
pub(crate) fn directing_file(project: &Project, banks: &[&Bank], agent: Agent) -> Option<PathBuf> {
    if !agent.takes_memory_bank_directions() {
        return None;
    }
    let folder = ProjectFolder::new(&project.path);
    let facts = ProjectFacts::of_banks(&project.path, banks);
    banks
        .iter()
        .filter(|bank| agent.formats().contains(&bank.format))
        .flat_map(|bank| bank.files.iter().map(move |file| (bank.format, file)))
        .filter(|(format, file)| {
            let rel = file.path.strip_prefix(&project.path).unwrap_or(&file.path);
            file.load == LoadKind::Startup
                && agent.reads(*format, rel, &facts)
                && !file.is_virtual()
        })
        .map(|(_, file)| file)
        .find(|file| {
            confine::read_text(&folder, &file.path)
                .is_ok_and(|text| agents::directs_to_memory_bank(&text))
        })
        .map(|file| file.path.clone())
}

/// What `agent` loads at session start from `banks` of the project.
pub fn agent_session(
    project: &Project,
    banks: &[&Bank],
    agent: Agent,
    count_tokens: &dyn Fn(&str) -> usize,
    options: &ContextOptions,
    mode: Option<&str>,
) -> AgentSession {
    let mine = agent_banks(project, banks, agent);
    let mine: Vec<&Bank> = mine.iter().collect();
    let mut banks = project_context(project, &mine, count_tokens, options, mode);
    if let Some(directing) = directing_file(project, &mine, agent) {
        let shown = directing
            .strip_prefix(&project.path)
            .unwrap_or(&directing)
            .display()
            .to_string();
        for bank in &mut banks {
            let read_when_directed = bank.pieces.iter().any(|p| {
                let rel = p.file.strip_prefix(&project.path).unwrap_or(&p.file);
                !agent.reads(bank.format, rel, &ProjectFacts::default())
                    && agent.reads_when_directed(bank.format, rel)
            });
            if read_when_directed {
                bank.notes.push(format!(
                    "{} reads this bank because {shown}, one of its start-up instructions, \
                     tells it to read all memory bank files at the start of every task",
                    agent.label()
                ));
            }
        }
    }
    AgentSession {
        agent,
        label: agent.label(),
        total_tokens: banks.iter().map(|b| b.total_tokens).sum(),
        total_bytes: banks.iter().map(|b| b.total_bytes).sum(),
        banks,
    }
}

/// Every agent's session that loads from the project's `banks`, in [`Agent::ALL`] order.
pub fn agent_sessions(
    project: &Project,
    banks: &[&Bank],
    count_tokens: &dyn Fn(&str) -> usize,
    options: &ContextOptions,
    mode: Option<&str>,
) -> Vec<AgentSession> {
    Agent::ALL
        .into_iter()
        .map(|agent| agent_session(project, banks, agent, count_tokens, options, mode))
        .filter(|session| !session.banks.is_empty())
        .collect()
}

/// Keeps one piece per file across a project's banks (see [`project_context`]); the
/// others leave their bank's totals and are listed as skipped, naming where the file loads.
pub(crate) fn load_once(contexts: &mut [BankContext]) {
    use std::collections::HashMap;
    // Pieces by the file's real location, in bank and read order.
    let mut by_file: HashMap<PathBuf, Vec<(usize, usize)>> = HashMap::new();
    let mut order: Vec<PathBuf> = Vec::new();
    for (b, context) in contexts.iter().enumerate() {
        for (p, piece) in context.pieces.iter().enumerate() {
            let key = std::fs::canonicalize(&piece.file).unwrap_or_else(|_| piece.file.clone());
            let entry = by_file.entry(key.clone()).or_default();
            if entry.is_empty() {
                order.push(key);
            }
            entry.push((b, p));
        }
    }
    let mut dropped: Vec<(usize, usize, usize)> = Vec::new();
    for key in order {
        let Some(places) = by_file.get(&key).filter(|p| p.len() > 1) else {
            continue;
        };
        let owner = places
            .iter()
            .copied()
            .find(|&(b, p)| contexts[b].pieces[p].via.is_empty())
            .unwrap_or(places[0]);
        for &(b, p) in places.iter().filter(|place| **place != owner) {
            // Instruction files of two different agents (a CLAUDE.md importing AGENTS.md,
            // which Codex reads on its own) load in two sessions, not twice in one.
            let (mine, theirs) = (contexts[b].format, contexts[owner.0].format);
            if mine != theirs
                && formats::is_instruction_file(mine)
                && formats::is_instruction_file(theirs)
            {
                continue;
            }
            let reached = contexts[b].pieces[p].reached.clone();
            let owner_piece = &mut contexts[owner.0].pieces[owner.1];
            for way in reached {
                if !owner_piece.reached.contains(&way) {
                    owner_piece.reached.push(way);
                }
            }
            dropped.push((b, p, owner.0));
        }
    }
    // Remove from the back so indexes stay valid.
    dropped.sort_unstable_by(|a, b| b.cmp(a));
    for (b, p, owner) in dropped {
        let owner_label = contexts[owner].format.label();
        let context = &mut contexts[b];
        let piece = context.pieces.remove(p);
        context.total_tokens = context.total_tokens.saturating_sub(piece.tokens);
        context.total_bytes = context.total_bytes.saturating_sub(piece.bytes);
        let reason = if owner == b {
            "already loaded in this bank; it loads once".to_string()
        } else {
            format!("loads once, with the {owner_label} bank (also reached here)")
        };
        context.skipped.push(SkippedFile {
            file: piece.file,
            reason,
        });
    }
}
