//! `mbank context [PATH]`: exactly what each agent loads at session start, bank by bank,
//! in read order, imports expanded, cut-offs applied, private blocks removed. Each agent's
//! session is shown apart with its own total (`--agent NAME`: one agent's only); no
//! total adds up several agents' loads, since no agent loads them together.
//! `--max-tokens N`: one agent's session start cut to fit N tokens (`fit_context`).
use std::path::{Path, PathBuf};

use color_eyre::eyre::{Result, eyre};
use serde::Serialize;

use crate::cli::style::{eprintln, line, print_text, println, thousands};
use crate::cli::{Context, EXIT_ERROR, json};
use crate::core::analysis::context::{
    self, AgentSession, BankContext, FIT_SCHEMA, FitReport, FitRequest,
};
use crate::core::formats::agents::Agent;
use crate::core::formats::roo_rules::modes;
use crate::core::io::text::counted_as;
use crate::core::model::Project;
use crate::core::model::{Bank, Format};
use crate::core::scan::bank;
use crate::core::tokens::{self, Encoding};

#[derive(Serialize)]
struct ContextOutput {
    schema: &'static str,
    encoding: Encoding,
    /// Whether the user-level layer (home folder files) was loaded; `--no-user` leaves it out.
    user_layer: bool,
    projects: Vec<ProjectContext>,
}

/// One project: its banks as a whole (each file once) and each agent's session start.
/// There is no project total: it would add up loads of agents that never share a session.
#[derive(Serialize)]
struct ProjectContext {
    name: String,
    path: PathBuf,
    /// Every bank shown (with `--agent`: that agent's), each file loaded once.
    banks: Vec<BankContext>,
    /// Each agent that loads anything here, with only what it loads and its own total
    /// (with `--agent`: that agent's session, even when empty).
    sessions: Vec<AgentSession>,
}

/// Why `--agent NAME` cannot be shown: no such agent.
#[derive(Serialize)]
struct UnknownAgent {
    code: &'static str,
    message: String,
    agent: String,
    agents: Vec<&'static str>,
}

#[derive(Serialize)]
struct UnknownAgentOutput<'a> {
    schema: &'static str,
    error: &'a UnknownAgent,
}

/// What `mbank context` was asked.
pub struct ContextInvocation<'a> {
    pub path: Option<&'a Path>,
    pub as_json: bool,
    /// `--bank`: only this format.
    pub only: Option<&'a str>,
    pub summary: bool,
    pub mode: Option<&'a str>,
    pub agent: Option<&'a str>,
    pub include_user_files: bool,
    /// `--max-tokens N`: one agent's session start, cut to fit N tokens.
    pub max_tokens: Option<usize>,
}

/// Why `--mode NAME` cannot be shown: no project scanned has that mode.
#[derive(Serialize)]
struct UnknownMode {
    code: &'static str,
    message: String,
    mode: String,
    /// The modes the projects do have, sorted.
    modes: Vec<String>,
}

#[derive(Serialize)]
struct UnknownModeOutput<'a> {
    schema: &'static str,
    error: &'a UnknownMode,
}

/// `Some` when no project's sessions can start in `mode` (the projects' banks as listed).
fn unknown_mode(mode: &str, projects: &[Vec<Bank>]) -> Option<UnknownMode> {
    let mut modes: Vec<String> = projects
        .iter()
        .filter_map(|banks| modes::modes_of_project(banks))
        .flatten()
        .collect();
    modes.sort();
    modes.dedup();
    if modes.iter().any(|m| m == mode) {
        return None;
    }
    let place = if projects.len() == 1 {
        "this project".to_string()
    } else {
        format!("these {} projects", projects.len())
    };
    let message = if modes.is_empty() {
        let with_modes: Vec<&str> = modes::FORMATS_WITH_MODES
            .iter()
            .map(|f| f.label())
            .collect();
        format!(
            "no mode {mode} in {place}: none of its banks has modes ({})",
            with_modes.join(", ")
        )
    } else {
        format!("no mode {mode} in {place}; modes: {}", modes.join(", "))
    };
    Some(UnknownMode {
        code: "unknown-mode",
        message,
        mode: mode.to_string(),
        modes,
    })
}

pub fn run(context: &Context, request: &ContextInvocation) -> Result<u8> {
    let ContextInvocation {
        path,
        as_json,
        only,
        summary,
        mode,
        agent,
        include_user_files,
        max_tokens,
    } = *request;
    // An error answers in the schema of the output asked for.
    let schema = if max_tokens.is_some() {
        FIT_SCHEMA
    } else {
        "mbank.context/1"
    };
    let only = match only {
        Some(id) => Some(Format::from_id(id).ok_or_else(|| {
            let known: Vec<&str> = Format::ALL.iter().map(|f| f.id()).collect();
            eyre!("unknown bank format {id:?}; one of {}", known.join(", "))
        })?),
        None => None,
    };
    let agent = match agent {
        Some(id) => match Agent::from_id(id) {
            Some(agent) => Some(agent),
            None => {
                let agents: Vec<&str> = Agent::ALL.iter().map(|a| a.id()).collect();
                let unknown = UnknownAgent {
                    code: "unknown-agent",
                    message: format!("unknown agent {id:?}; one of {}", agents.join(", ")),
                    agent: id.to_string(),
                    agents,
                };
                if as_json {
                    json::print(&UnknownAgentOutput {
                        schema,
                        error: &unknown,
                    })?;
                }
                eprintln(format!("mbank: {}", unknown.message));
                return Ok(EXIT_ERROR);
            }
        },
        None => None,
    };
    let options = context::ContextOptions {
        include_user_files,
        ..context::ContextOptions::from_env()
    };
    let encoding = context.encoding;
    let count = move |text: &str| tokens::count(encoding, text);
    let found = context.projects_at(path)?;
    let listed: Vec<Vec<Bank>> = found.iter().map(bank::list_banks).collect();
    if let Some(mode) = mode
        && let Some(unknown) = unknown_mode(mode, &listed)
    {
        if as_json {
            json::print(&UnknownModeOutput {
                schema,
                error: &unknown,
            })?;
        }
        eprintln(format!("mbank: {}", unknown.message));
        return Ok(EXIT_ERROR);
    }
    if let Some(max_tokens) = max_tokens {
        let fit = Fit {
            agent,
            max_tokens,
            only,
            mode,
            as_json,
            include_user_files,
        };
        return fit.run(context, path, found, listed, &options);
    }
    let mut projects = Vec::new();
    for (project, listed) in found.into_iter().zip(listed) {
        let chosen: Vec<&Bank> = listed
            .iter()
            .filter(|b| only.is_none_or(|f| f == b.format))
            .collect();
        let (banks, sessions) = match agent {
            Some(agent) => {
                let session =
                    context::agent_session(&project, &chosen, agent, &count, &options, mode);
                (session.banks.clone(), vec![session])
            }
            None => (
                context::project_context(&project, &chosen, &count, &options, mode),
                context::agent_sessions(&project, &chosen, &count, &options, mode),
            ),
        };
        projects.push(ProjectContext {
            name: project.name.clone(),
            path: project.path.clone(),
            banks,
            sessions,
        });
    }
    if as_json {
        json::print(&ContextOutput {
            schema: "mbank.context/1",
            encoding,
            user_layer: include_user_files,
            projects,
        })?;
        return Ok(0);
    }
    let style = &context.style;
    let print_bank = |bank: &BankContext| print_bank(context, bank, summary);
    for project in &projects {
        println(style.bold(format!("═══ {} ═══", project.name)));
        if project.sessions.iter().all(|s| s.banks.is_empty()) && agent.is_some() {
            let label = agent.map_or("", Agent::label);
            println(style.dim(format!("{label} loads nothing from this project")));
            println("");
        }
        for session in project.sessions.iter().filter(|s| !s.banks.is_empty()) {
            println(style.bold(format!("▶ {} session start", session.label)));
            println("");
            for bank in &session.banks {
                print_bank(bank);
            }
            println(line![
                style.bold(format!("{} total:", session.label)),
                format!(
                    " {} tokens at session start ({})",
                    thousands(session.total_tokens as u64),
                    encoding.id()
                )
            ]);
            println("");
        }
        // BEANS.md and Infinity: read through their own tools, in no agent's session.
        let others: Vec<&BankContext> = project
            .banks
            .iter()
            .filter(|b| agent.is_none() && !Agent::any_loads(b.format))
            .collect();
        if !others.is_empty() {
            println(style.bold("▶ Read through their own tools, in no agent's session"));
            println("");
            for bank in others {
                print_bank(bank);
            }
        }
    }
    Ok(0)
}

/// One bank's block: its pieces (text or, with `summary`, one line each), cut-offs,
/// skipped and later files, findings, notes and the bank's total.
fn print_bank(context: &Context, bank: &BankContext, summary: bool) {
    let style = &context.style;
    let encoding = context.encoding;
    println(line![
        style.cyan(format!("▌ {}", bank.format.label())),
        " ",
        style.dim(&bank.root)
    ]);
    for piece in &bank.pieces {
        let via = if piece.via.is_empty() {
            String::new()
        } else {
            let chain: Vec<String> = piece
                .via
                .iter()
                .map(|p| {
                    p.file_name()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
                })
                .collect();
            format!(" (imported via {})", chain.join(" → "))
        };
        let level = match piece.scope {
            context::Scope::User => " [user-level]",
            context::Scope::Ancestor => " [ancestor]",
            context::Scope::Project => "",
        };
        if summary {
            println(line![
                "   ",
                format!("{}{level}{via}", piece.display),
                style.dim(format!(" · {} tokens", thousands(piece.tokens as u64)))
            ]);
        } else {
            println(style.bold(format!(
                "──── {}{level}{via} · {} tokens ────",
                piece.display,
                thousands(piece.tokens as u64)
            )));
            print_text(&piece.text);
            for note in &piece.notes {
                println(style.dim(format!("   note: {note}")));
            }
        }
        if piece.reached.len() > 1 {
            println(style.dim(format!(
                "   loaded once, reached {}: {}",
                counted_as(piece.reached.len(), "way", "ways"),
                piece.reached.join("; ")
            )));
        }
    }
    for cut in &bank.cutoffs {
        println(style.yellow(format!("   cut off {}", cut.message)));
        println(style.dim(format!(
            "      {} — kept {} lines / {} bytes, dropped {} lines / {} bytes",
            cut.rule, cut.kept_lines, cut.kept_bytes, cut.dropped_lines, cut.dropped_bytes
        )));
    }
    for skipped in &bank.skipped {
        println(style.dim(format!(
            "   skipped {}: {}",
            skipped.file.display(),
            skipped.reason
        )));
    }
    for later in &bank.deferred {
        println(style.dim(format!(
            "   loads later ({}): {}",
            later.load.label(),
            later.display
        )));
    }
    for finding in bank.findings.iter().chain(&bank.import_findings) {
        println(line![
            "   ",
            style.status(finding.severity.id()),
            " ",
            &finding.message
        ]);
    }
    for note in &bank.notes {
        println(style.dim(format!("   {note}")));
    }
    println(line![
        "   ",
        style.bold("bank total:"),
        format!(
            " {} tokens ({})",
            thousands(bank.total_tokens as u64),
            encoding.id()
        )
    ]);
    println("");
}

/// Why no context could be fitted, with `--json`.
#[derive(Serialize)]
struct FitErrorOutput<'a> {
    schema: &'static str,
    error: FitErrorJson<'a>,
}

#[derive(Serialize)]
struct FitErrorJson<'a> {
    /// `agent-loads-nothing`, `no-agent` or `several-projects`.
    code: &'static str,
    message: &'a str,
    /// The agent named, when one was.
    agent: Option<&'static str>,
    /// The agents that do load something from the project.
    agents: Vec<&'static str>,
}

/// What `--max-tokens` was asked.
struct Fit<'a> {
    agent: Option<Agent>,
    max_tokens: usize,
    only: Option<Format>,
    mode: Option<&'a str>,
    as_json: bool,
    include_user_files: bool,
}

impl Fit<'_> {
    fn run(
        &self,
        context: &Context,
        path: Option<&Path>,
        found: Vec<Project>,
        listed: Vec<Vec<Bank>>,
        options: &context::ContextOptions,
    ) -> Result<u8> {
        let (Some(project), Some(listed), 1) = (found.first(), listed.first(), found.len()) else {
            let names: Vec<&str> = found.iter().map(|p| p.name.as_str()).collect();
            let message = format!(
                "--max-tokens fits one project's session start, and {} holds {}: name one \
                 ({})",
                path.map_or_else(|| "the root".to_string(), |p| p.display().to_string()),
                counted_as(found.len(), "project", "projects"),
                names.join(", ")
            );
            return self.fail("several-projects", &message, &[]);
        };
        let chosen: Vec<&Bank> = listed
            .iter()
            .filter(|b| self.only.is_none_or(|f| f == b.format))
            .collect();
        let request = FitRequest {
            agent: self.agent,
            max_tokens: self.max_tokens,
            encoding: context.encoding,
            options,
            mode: self.mode,
        };
        let fitted = match context::fit_context(project, &chosen, &request) {
            Ok(fitted) => fitted,
            Err(error) => {
                return self.fail(error.code(), &error.to_string(), error.agents());
            }
        };
        if self.as_json {
            json::print(&FitReport::new(project, self.include_user_files, &fitted))?;
            return Ok(0);
        }
        // The text alone on stdout, to be handed to an agent; the account on stderr.
        print_text(&fitted.text);
        let style = &context.style;
        let cut = fitted.files.iter().filter(|f| !f.whole).count();
        eprintln(style.bold(format!(
            "{} session start in {}: {} of {} tokens ({}); {} whole{}",
            fitted.label,
            project.name,
            thousands(fitted.tokens as u64),
            thousands(fitted.max_tokens as u64),
            fitted.encoding.id(),
            counted_as(fitted.files.len() - cut, "file", "files"),
            if cut > 0 { ", 1 cut" } else { "" },
        )));
        if fitted.whole_tokens > fitted.max_tokens {
            eprintln(style.dim(format!(
                "the whole session start takes {} tokens",
                thousands(fitted.whole_tokens as u64)
            )));
        }
        // Each message says why: past the budget, past the agent's own limit, not loaded
        // at session start, or private.
        for left in &fitted.left_out {
            eprintln(style.dim(format!("   left out: {}", left.message)));
        }
        Ok(0)
    }

    /// No context to print: the error on stderr (and as JSON with `--json`).
    fn fail(&self, code: &'static str, message: &str, agents: &[Agent]) -> Result<u8> {
        if self.as_json {
            json::print(&FitErrorOutput {
                schema: FIT_SCHEMA,
                error: FitErrorJson {
                    code,
                    message,
                    agent: self.agent.map(Agent::id),
                    agents: agents.iter().map(|a| a.id()).collect(),
                },
            })?;
        }
        eprintln(format!("mbank: {message}"));
        Ok(EXIT_ERROR)
    }
}
