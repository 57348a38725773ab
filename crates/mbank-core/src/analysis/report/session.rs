//! Each agent's session start in a project: which start-up files it reads, their tokens
//! and the budget that limits them.
use std::collections::HashSet;
use std::path::Path;

use serde::Serialize;

use super::{FileReport, ProjectReport};
use crate::analysis::budgets::{self, BudgetCheck, BudgetStatus};
use crate::formats::agents::{Agent, ProjectFacts};
use crate::io::paths;
use crate::model::LoadKind;

impl ProjectReport {
    /// The start-up files of each agent's session that loads any here, in [`Agent::ALL`]
    /// order: each agent counts only the files it reads ([`Agent::reads`]), each start-up
    /// file as the token cache counted it (`.roomodes` as Roo Code sends it in the default
    /// mode), each with its budget ([`SessionTokens::budget`]), and what the `@` imports
    /// of those files load with them for the agent that expands them
    /// ([`FileReport::imports`]), each file once. The user's own files, the agents'
    /// cut-offs and a bank an agent's instructions direct it to read (Copilot given
    /// Cline's instructions) are `mbank context`'s, which reads the texts.
    pub fn agent_tokens(&self) -> Vec<SessionTokens> {
        // One pass over the files, each asked only of the agents loading its format.
        let mut sessions: [Option<SessionTokens>; Agent::ALL.len()] = [None; Agent::ALL.len()];
        let loading: Vec<[bool; Agent::ALL.len()]> = self
            .banks
            .iter()
            .map(|bank| Agent::ALL.map(|agent| agent.formats().contains(&bank.format)))
            .collect();
        if !loading.iter().flatten().any(|&loads| loads) {
            return Vec::new();
        }
        let facts = ProjectFacts::of(self.banks.iter().flat_map(|bank| {
            bank.files
                .iter()
                .map(|file| (self.relative(file), file.file.size, file.file.load))
        }));
        // The files each agent reads whose imports it loads along (CLAUDE.md's for
        // Claude Code), and every file it reads, each once.
        let mut importing: [Vec<&FileReport>; Agent::ALL.len()] = Default::default();
        let mut read: [HashSet<&Path>; Agent::ALL.len()] = Default::default();
        for (bank_index, (bank, loading)) in self.banks.iter().zip(&loading).enumerate() {
            if !loading.contains(&true) {
                continue;
            }
            for file in &bank.files {
                // A counted file that does not load at start adds nothing to any session.
                if file.stats.is_some() && file.file.load != LoadKind::Startup {
                    continue;
                }
                let rel = self.relative(file);
                for (index, agent) in Agent::ALL.into_iter().enumerate() {
                    if loading[index] && agent.reads(bank.format, rel, &facts) {
                        sessions[index]
                            .get_or_insert(SessionTokens::empty(Some(agent)))
                            .add(file, bank_index);
                        read[index].insert(rel);
                        if !file.imports.is_empty() && agent.expands_imports_of(bank.format) {
                            importing[index].push(file);
                        }
                    }
                }
            }
        }
        // What their imports load comes with them, once, unless the agent reads it anyway.
        for ((session, importing), read) in sessions.iter_mut().zip(importing).zip(&mut read) {
            let Some(session) = session else {
                continue;
            };
            for imported in importing.iter().flat_map(|file| &file.imports) {
                if read.insert(&imported.path) {
                    session.tokens += imported.loaded_tokens;
                    session.private_tokens += imported.private_tokens;
                }
            }
        }
        sessions
            .into_iter()
            .flatten()
            .map(|session| self.with_budget(session))
            .collect()
    }

    /// A file's path relative to the project, or whole when it lies outside (auto memory).
    fn relative<'a>(&self, file: &'a FileReport) -> &'a Path {
        paths::relative_to(&file.file.path, &self.path).unwrap_or(&file.file.path)
    }

    /// The one session-start figure of the project, the definition every view shows
    /// (`mbank list`'s token and budget columns, `mbank tokens`' session line, the TUI's
    /// picker gauge and header), so they agree: the heaviest agent's session start
    /// ([`ProjectReport::agent_tokens`]; on a tie, the first in [`Agent::ALL`] order),
    /// naming that agent, with its budget. A project whose banks no agent loads (BEANS.md,
    /// Infinity: read through their own tools) gets their start-up files' figure with no
    /// agent. Never a sum of several agents' loads. Worked out when the report was built
    /// ([`ProjectReport::new`]).
    pub fn session_tokens(&self) -> SessionTokens {
        self.session
    }

    /// [`ProjectReport::session_tokens`] from the banks.
    pub(super) fn work_out_session(&self) -> SessionTokens {
        self.session_of(&self.agent_tokens())
    }

    /// [`ProjectReport::session_tokens`] from the sessions
    /// [`ProjectReport::agent_tokens`] gave, for a caller that shows both.
    pub fn session_of(&self, sessions: &[SessionTokens]) -> SessionTokens {
        let mut heaviest: Option<SessionTokens> = None;
        for &session in sessions {
            if heaviest.is_none_or(|h| session.tokens > h.tokens) {
                heaviest = Some(session);
            }
        }
        heaviest
            .or_else(|| self.own_tools_tokens())
            .unwrap_or(SessionTokens {
                complete: self.banks.iter().all(|b| b.complete),
                ..SessionTokens::empty(None)
            })
    }

    /// The file `mbank check`'s finding on a session's budget names: the budget is a
    /// bank's total, and its finding names `BankReport::total_subject`. `None` when the
    /// session has no budget.
    pub fn budget_file(&self, session: &SessionTokens) -> Option<&Path> {
        session.budget?;
        let bank = self.banks.get(session.deciding_bank?)?;
        Some(bank.total_subject())
    }

    /// The session with its budget: the token totals of the banks it loads (the
    /// format's own, a ConKeeper preset's or config.toml's; a rule borrowed from another
    /// format is information, never a budget). Its verdict is the worst of them, each a
    /// check `mbank check` reports on the same figure (`budget-over`, `budget-near`); its
    /// limit is shown beside the figure only when it limits that very figure (the
    /// session loads one bank's start-up files, all of them).
    fn with_budget(&self, session: SessionTokens) -> SessionTokens {
        let mut deciding: Option<(usize, &BudgetCheck)> = None;
        for (index, bank) in self.banks.iter().enumerate() {
            if !session.reads_bank(index) {
                continue;
            }
            let totals = bank
                .budget
                .iter()
                .filter(|c| c.unit == budgets::Unit::Tokens && !c.borrowed);
            for check in totals {
                if deciding
                    .is_none_or(|(_, d)| (check.status, check.percent()) > (d.status, d.percent()))
                {
                    deciding = Some((index, check));
                }
            }
        }
        let limit = deciding
            .filter(|(index, check)| session.bank == Some(*index) && check.value == session.tokens)
            .map(|(_, check)| check.limit);
        SessionTokens {
            budget: deciding.map(|(_, c)| c.status),
            budget_limit: limit,
            deciding_bank: deciding.map(|(index, _)| index),
            ..session
        }
    }

    /// What the banks no agent loads (BEANS.md, Infinity) load at start, by their own
    /// tools; `None` when there are none.
    fn own_tools_tokens(&self) -> Option<SessionTokens> {
        let mut session: Option<SessionTokens> = None;
        for (index, bank) in self.banks.iter().enumerate() {
            if Agent::any_loads(bank.format) {
                continue;
            }
            for file in &bank.files {
                session
                    .get_or_insert(SessionTokens::empty(None))
                    .add(file, index);
            }
        }
        session.map(|session| self.with_budget(session))
    }
}

/// One agent's session start in a project (see [`ProjectReport::session_tokens`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SessionTokens {
    /// Whose session it is; `None` for banks no agent loads (read through their own tools).
    pub agent: Option<Agent>,
    /// Tokens of the start-up files the agent reads, private blocks excluded.
    pub tokens: u64,
    /// Tokens inside `<private>` blocks of those files.
    pub private_tokens: u64,
    /// False when some of those files could not be counted.
    pub complete: bool,
    /// The figure against its budget (ok / near / over); `None` when nothing limits the
    /// session's whole start (see [`ProjectReport::agent_tokens`]).
    pub budget: Option<BudgetStatus>,
    /// The budget's limit, in tokens.
    pub budget_limit: Option<u64>,
    /// The one bank the start-up files come from; `None` for several (or none).
    #[serde(skip)]
    bank: Option<usize>,
    /// The banks the files come from, by index (the first 128).
    #[serde(skip)]
    banks: u128,
    /// The bank whose total decides the verdict.
    #[serde(skip)]
    deciding_bank: Option<usize>,
}

impl SessionTokens {
    pub(super) fn empty(agent: Option<Agent>) -> SessionTokens {
        SessionTokens {
            agent,
            tokens: 0,
            private_tokens: 0,
            complete: true,
            budget: None,
            budget_limit: None,
            bank: None,
            banks: 0,
            deciding_bank: None,
        }
    }

    fn reads_bank(&self, index: usize) -> bool {
        index < 128 && self.banks & (1 << index) != 0
    }

    /// Counts a file the session reads, of the bank at `bank`: its figures when it
    /// loads at start.
    fn add(&mut self, file: &FileReport, bank: usize) {
        match &file.stats {
            Some(stats) if file.file.load == LoadKind::Startup => {
                self.tokens += stats.loaded_tokens as u64;
                self.private_tokens += stats.private_tokens as u64;
            }
            Some(_) => return,
            None => self.complete = false,
        }
        self.bank = match self.banks {
            0 => Some(bank),
            _ if self.bank == Some(bank) => self.bank,
            _ => None,
        };
        if bank < 128 {
            self.banks |= 1 << bank;
        }
    }

    /// `used/budget` as the views write it ("3,812/5,000"), or the figure alone.
    pub fn used_of_budget(&self, figure: impl Fn(u64) -> String) -> String {
        let suffix = if self.complete { "" } else { "+" };
        match self.budget_limit {
            Some(limit) => format!("{}{suffix}/{}", figure(self.tokens), figure(limit)),
            None => format!("{}{suffix}", figure(self.tokens)),
        }
    }
}
