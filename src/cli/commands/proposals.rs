//! `mbank proposals [--json] [--all]`, `mbank accept ID [--hunks 1,3]`, `mbank reject ID`:
//! the agent writes a server staged (`--stage`), for a person to decide on.
use color_eyre::eyre::{Result, eyre};
use serde::Serialize;

use crate::cli::Context;
use crate::cli::style::{Span, Table, line, println};
use crate::core::agent::proposals::{Proposal, ProposalHunk, ProposalStore, State};

/// Lines of each side of a hunk shown in the text listing.
const SHOWN_LINES: usize = 3;

fn store(context: &Context) -> Result<ProposalStore> {
    ProposalStore::in_data_dir(context.clock)
        .ok_or_else(|| eyre!("no data folder for proposals (set MBANK_DATA_DIR or HOME)"))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonProposal<'a> {
    id: u64,
    state: &'static str,
    project: &'a std::path::Path,
    file: &'a str,
    path: &'a std::path::Path,
    tool: &'a str,
    created: &'a str,
    decided: Option<&'a str>,
    accepted_hunks: Option<&'a [usize]>,
    kind: &'static str,
    hunks: Vec<ProposalHunk>,
}

#[derive(Serialize)]
struct JsonList<'a> {
    schema: &'static str,
    pending: usize,
    proposals: Vec<JsonProposal<'a>>,
    /// The proposal files that could not be read (skipped).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unreadable: Vec<JsonUnreadable>,
}

#[derive(Serialize)]
struct JsonUnreadable {
    path: std::path::PathBuf,
    problem: String,
}

/// Lists the proposals that read; each file that does not is named on stderr and
/// skipped, and the exit code is then 1.
pub fn list(context: &Context, as_json: bool, all: bool) -> Result<u8> {
    let listing = store(context)?.listing().map_err(|e| eyre!("{e}"))?;
    for bad in &listing.unreadable {
        crate::cli::style::eprintln(format!(
            "mbank proposals: skipped {}: {}",
            crate::core::markup::sanitize::path(&bad.path),
            crate::core::markup::sanitize::line(&bad.problem)
        ));
    }
    let code = if listing.unreadable.is_empty() { 0 } else { 1 };
    let proposals: Vec<Proposal> = listing
        .proposals
        .into_iter()
        .filter(|p| all || p.state == State::Pending)
        .collect();
    let pending = proposals
        .iter()
        .filter(|p| p.state == State::Pending)
        .count();
    if as_json {
        let out = JsonList {
            schema: "mbank.proposals/1",
            pending,
            proposals: proposals
                .iter()
                .map(|p| JsonProposal {
                    id: p.id,
                    state: p.state.as_str(),
                    project: &p.project,
                    file: &p.file,
                    path: &p.path,
                    tool: &p.via,
                    created: &p.created,
                    decided: p.decided.as_deref(),
                    accepted_hunks: p.accepted_hunks.as_deref(),
                    kind: p.kind(),
                    hunks: p.hunks(),
                })
                .collect(),
            unreadable: listing
                .unreadable
                .iter()
                .map(|bad| JsonUnreadable {
                    path: bad.path.clone(),
                    problem: bad.problem.clone(),
                })
                .collect(),
        };
        crate::cli::json::print(&out)?;
        return Ok(code);
    }
    let style = &context.style;
    if proposals.is_empty() {
        println(if all {
            "No staged writes."
        } else {
            "No staged writes wait for review."
        });
        return Ok(code);
    }
    let mut table =
        Table::new(&["ID", "STATE", "PROJECT", "FILE", "TOOL", "STAGED", "CHANGE"]).right(&[0]);
    for p in &proposals {
        let hunks = p.hunks();
        let added: usize = hunks.iter().map(|h| h.added.len()).sum();
        let removed: usize = hunks.iter().map(|h| h.removed.len()).sum();
        let project = p
            .project
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        table.row(vec![
            Span::line(&p.id.to_string()),
            style.status(p.state.as_str()),
            Span::line(&project),
            Span::line(&p.file),
            Span::line(&p.via),
            Span::line(p.created.get(..19).unwrap_or(&p.created)),
            Span::line(&format!(
                "{} {}, +{added} -{removed}",
                p.kind(),
                crate::core::io::text::counted(hunks.len(), "hunk")
            )),
        ]);
        if p.state == State::Pending {
            for hunk in &hunks {
                table.note(style.dim(format!(
                    "    hunk {} at line {}:",
                    hunk.number, hunk.base_line
                )));
                for (sign, lines) in [("-", &hunk.removed), ("+", &hunk.added)] {
                    for text in lines.iter().take(SHOWN_LINES) {
                        let shown = format!("      {sign} {text}");
                        table.note(if sign == "-" {
                            style.red(shown)
                        } else {
                            style.green(shown)
                        });
                    }
                    if lines.len() > SHOWN_LINES {
                        table.note(
                            style.dim(format!("      {sign} … {} more", lines.len() - SHOWN_LINES)),
                        );
                    }
                }
            }
        }
    }
    table.print(style);
    if pending > 0 {
        println(style.dim(
            "Accept with `mbank accept ID` (some hunks: `--hunks 1,3`), reject with `mbank reject ID`.",
        ));
    }
    Ok(code)
}

pub fn accept(context: &Context, id: u64, hunks: Option<&[usize]>) -> Result<u8> {
    let ctx = context.write_context("accept");
    match store(context)?.accept(&ctx, &context.root, id, hunks) {
        Ok((proposal, report)) => {
            let which = match &proposal.accepted_hunks {
                Some(hunks) => format!(
                    " (hunks {})",
                    hunks
                        .iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => String::new(),
            };
            println(line![
                context.style.green("accepted"),
                format!(" proposal {id}{which}: "),
                &report.path,
            ]);
            Ok(0)
        }
        Err(e) => Err(eyre!("{e}")),
    }
}

pub fn reject(context: &Context, id: u64) -> Result<u8> {
    let proposal = store(context)?.reject(id).map_err(|e| eyre!("{e}"))?;
    println(line![
        context.style.yellow("rejected"),
        format!(" proposal {id}: "),
        &proposal.path,
        " is left as it is",
    ]);
    Ok(0)
}
