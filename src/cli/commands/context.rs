//! `mbank context [PATH]`: exactly what an agent loads at session start for each bank, in
//! read order, imports expanded, cut-offs applied, private blocks removed, with totals.
use std::path::{Path, PathBuf};

use color_eyre::eyre::{Result, eyre};
use serde::Serialize;

use crate::cli::style::{eprintln, line, print_text, println, thousands};
use crate::cli::{Context, EXIT_ERROR, json};
use crate::core::analysis::context::{self, BankContext};
use crate::core::formats::roo_rules::modes;
use crate::core::model::{Bank, Format};
use crate::core::scan::bank;
use crate::core::text::counted_as;
use crate::core::tokens::{self, Encoding};

#[derive(Serialize)]
struct ContextOutput {
    schema: &'static str,
    encoding: Encoding,
    /// Whether the user-level layer (home folder files) was loaded; `--no-user` leaves it out.
    user_layer: bool,
    projects: Vec<ProjectContext>,
}

#[derive(Serialize)]
struct ProjectContext {
    name: String,
    path: PathBuf,
    banks: Vec<BankContext>,
    total_tokens: usize,
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
        format!(
            "no mode {mode} in {place}: none of its banks has modes (Roo/Cline mode rules, \
             Memory Bank MCP)"
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

pub fn run(
    context: &Context,
    path: Option<&Path>,
    as_json: bool,
    only: Option<&str>,
    summary: bool,
    mode: Option<&str>,
    include_user_files: bool,
) -> Result<u8> {
    let only = match only {
        Some(id) => Some(Format::from_id(id).ok_or_else(|| {
            let known: Vec<&str> = Format::ALL.iter().map(|f| f.id()).collect();
            eyre!("unknown bank format {id:?}; one of {}", known.join(", "))
        })?),
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
                schema: "mbank.context/1",
                error: &unknown,
            })?;
        }
        eprintln(format!("mbank: {}", unknown.message));
        return Ok(EXIT_ERROR);
    }
    let mut projects = Vec::new();
    for (project, listed) in found.into_iter().zip(listed) {
        let chosen: Vec<&Bank> = listed
            .iter()
            .filter(|b| only.is_none_or(|f| f == b.format))
            .collect();
        let banks: Vec<BankContext> =
            context::project_context(&project, &chosen, &count, &options, mode);
        let total_tokens = banks.iter().map(|b| b.total_tokens).sum();
        projects.push(ProjectContext {
            name: project.name.clone(),
            path: project.path.clone(),
            banks,
            total_tokens,
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
    for project in &projects {
        println(style.bold(format!("═══ {} ═══", project.name)));
        for bank in &project.banks {
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
                println(style.yellow(format!(
                    "   cut off {}: {} — kept {} lines / {} bytes, dropped {} lines / {} bytes",
                    cut.file.display(),
                    cut.rule,
                    cut.kept_lines,
                    cut.kept_bytes,
                    cut.dropped_lines,
                    cut.dropped_bytes
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
        println(line![
            style.bold(format!("{} total:", project.name)),
            format!(
                " {} tokens at session start ({})",
                thousands(project.total_tokens as u64),
                encoding.id()
            )
        ]);
        println("");
    }
    Ok(0)
}
