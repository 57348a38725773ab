//! `mbank timeline [PATH] [--json]`: the decisions of one project (or of every project
//! under PATH or the root) in date order; undated entries come last, in file order.
//! Decisions come from decision logs and ADRs, and from the decision sections ("## Key
//! Decisions" …) of the banks' other memory files; each names its file and line.
//!
//! Text: one table per project with date (and time when written), status, title and
//! `file:line`; an event recorded among the decisions (a merge, a release) is marked
//! `event:` before its title; a decision log too large to parse is named on stderr. Exit 0 when it ran
//! (an empty timeline included), 2 on usage or I/O errors.
//!
//! JSON (schema `mbank.timeline/1`, stable; additions only):
//! ```json
//! {
//!   "schema": "mbank.timeline/1",
//!   "projects": [{
//!     "name": "shop", "path": "/root/shop",
//!     "decisions": [{
//!       "id": "ADR-0002",               // or null
//!       "title": "Move sessions to Postgres",
//!       "date": "2025-06-10",            // or null
//!       "time": "14:03:00",              // or null
//!       "status": "accepted",            // proposed|accepted|superseded|deprecated|rejected|reverted|unknown
//!       "supersedes": ["ADR-0001"],
//!       "superseded_by": [],
//!       "file": "/root/shop/memory-bank/decisionLog.md",  // the file it lives in
//!       "display": "memory-bank/decisionLog.md",
//!       "line": 12, "end_line": 20,      // 1-based, inclusive
//!       "style": "cline-block",          // cline-block|dated-heading|block|log-line|list-item|table-row|adr
//!       "group": "Key Decisions",        // the heading grouping it, or null
//!       "kind": "decision"               // decision|event (a merge, a release recorded among them)
//!     }],
//!     "problems": [{                      // logs left out: over the 8 MiB parse limit
//!       "severity": "warning", "code": "parse-limit",
//!       "file": "/root/shop/memory-bank/decisionLog.md", "line": null, "message": "…"
//!     }]
//!   }],
//!   "total": 1
//! }
//! ```
use std::path::{Path, PathBuf};

use color_eyre::eyre::Result;
use serde::Serialize;

use crate::cli::style::{Table, eprintln, line, println};
use crate::cli::{Context, json};
use crate::core::analysis::decisions::{self, Decision, DecisionKind};
use crate::core::findings::Finding;
use crate::core::io::text::counted;

#[derive(Serialize)]
struct TimelineOutput {
    schema: &'static str,
    projects: Vec<ProjectTimeline>,
    /// Decisions over all projects.
    total: usize,
}

#[derive(Serialize)]
struct ProjectTimeline {
    name: String,
    path: PathBuf,
    decisions: Vec<Decision>,
    /// Decision logs left out (too large to parse).
    problems: Vec<Finding>,
}

/// `2025-06-10 14:03`, `2025-06-10`, `2025-06` (dated to its month), or `undated`.
fn when(decision: &Decision) -> String {
    decision.when().unwrap_or_else(|| "undated".to_string())
}

/// Title with its ADR id and supersession links, for the text table; an event is marked
/// so it stands apart from the decisions.
fn title_cell(decision: &Decision) -> String {
    let mut title = match &decision.id {
        Some(id) if !decision.title.starts_with(id.as_str()) => {
            format!("{id}: {}", decision.title)
        }
        _ => decision.title.clone(),
    };
    if !decision.superseded_by.is_empty() {
        title.push_str(&format!(" → {}", decision.superseded_by.join(", ")));
    }
    if decision.kind == DecisionKind::Event {
        title = format!("{}: {title}", DecisionKind::Event.id());
    }
    title
}

pub fn run(context: &Context, path: Option<&Path>, as_json: bool) -> Result<u8> {
    let projects = context.projects_at(path)?;
    let timelines: Vec<ProjectTimeline> = projects
        .iter()
        .map(|project| {
            let found = decisions::project_decisions(
                &project.path,
                &crate::core::scan::bank::list_banks(project),
            );
            ProjectTimeline {
                name: project.name.clone(),
                path: project.path.clone(),
                decisions: found.decisions,
                problems: found.problems,
            }
        })
        .collect();
    let total = timelines.iter().map(|t| t.decisions.len()).sum();
    if as_json {
        json::print(&TimelineOutput {
            schema: "mbank.timeline/1",
            projects: timelines,
            total,
        })?;
        return Ok(0);
    }
    let style = &context.style;
    for problem in timelines.iter().flat_map(|t| &t.problems) {
        eprintln(format!(
            "mbank: {}: {} ({})",
            problem.severity,
            problem.message,
            problem.file.display()
        ));
    }
    let mut shown = 0;
    for timeline in &timelines {
        // Over a whole root, projects without decisions would only add noise.
        if timeline.decisions.is_empty() && timelines.len() > 1 {
            continue;
        }
        if shown > 0 {
            println("");
        }
        shown += 1;
        println(line![
            style.bold(&timeline.name),
            " ",
            style.dim(&timeline.path)
        ]);
        let mut table = Table::new(&["date", "status", "title", "where"]);
        for d in &timeline.decisions {
            table.row(vec![
                when(d).into(),
                style.status(d.status.id()),
                title_cell(d).into(),
                style.dim(format!("{}:{}", d.display, d.line)),
            ]);
        }
        if table.is_empty() {
            println("  no decisions found");
        } else {
            table.print(style);
        }
    }
    if shown == 0 {
        println(format!(
            "no decisions found in {}",
            counted(timelines.len(), "project")
        ));
    } else if total > 0 {
        // One project without decisions has said so already.
        println(format!(
            "{} in {}",
            counted(total, "decision"),
            counted(
                timelines.iter().filter(|t| !t.decisions.is_empty()).count(),
                "project"
            )
        ));
    }
    Ok(0)
}
