//! `mbank check [PATH]`: validation, budgets and staleness, fit for a pre-commit hook and
//! CI: exit 1 when a finding is at or above `--fail-on`. A check that cannot run is an
//! error finding, never a pass: a repository git refuses (`git-refused`, e.g. "detected
//! dubious ownership") or fails on (`git-failed`) loses its git checks, and says so.
//! Git runs only for projects inside a repository, once per repository. `--format sarif`
//! writes SARIF 2.1.0 for code scanning ([`crate::cli::sarif`]).
use std::path::{Path, PathBuf};

use color_eyre::eyre::Result;
use serde::Serialize;

use crate::cli::args::{CheckFormat, SeverityArg};
use crate::cli::style::{line, pad, println};
use crate::cli::{Context, EXIT_FINDINGS, json, sarif};
use crate::core::analysis::context::entries_past_cut;
use crate::core::analysis::report::{Analyzer, Depth};
use crate::core::findings::{Finding, Severity};
use crate::core::io::text::counted;
use crate::core::model::Bank;
use crate::core::tokens::{Encoding, TokenCache};

#[derive(Serialize)]
struct CheckOutput {
    schema: &'static str,
    encoding: Encoding,
    fail_on: Severity,
    failed: bool,
    summary: CheckSummary,
    projects: Vec<ProjectFindings>,
}

#[derive(Serialize, Default)]
struct CheckSummary {
    error: usize,
    warning: usize,
    info: usize,
}

#[derive(Serialize)]
struct ProjectFindings {
    name: String,
    path: PathBuf,
    findings: Vec<Finding>,
}

pub(crate) fn severity(arg: SeverityArg) -> Severity {
    match arg {
        SeverityArg::Error => Severity::Error,
        SeverityArg::Warning => Severity::Warning,
        SeverityArg::Info => Severity::Info,
    }
}

/// A finding's file relative to its project (`.` for the project folder itself), so
/// every place reads the same way; a path outside the project stays whole.
fn short(path: &Path, project: &Path) -> String {
    match path.strip_prefix(project) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

pub fn run(
    context: &Context,
    path: Option<&Path>,
    format: CheckFormat,
    fail_on: SeverityArg,
    verbose: bool,
) -> Result<u8> {
    let fail_on = severity(fail_on);
    let projects = context.projects_at(path)?;
    let cache = TokenCache::open_default(context.encoding);
    let mut analyzer = Analyzer::new(&context.config, context.encoding, cache, &context.clock);
    let depth = Depth::full();
    let mut summary = CheckSummary::default();
    let mut results = Vec::new();
    let today = context.clock.today();
    for (mut report, project) in analyzer
        .analyze_all(&projects, depth)
        .into_iter()
        .zip(&projects)
    {
        let banks = analyzer.list(project);
        let banks: Vec<&Bank> = banks.iter().collect();
        let mut past_cut = entries_past_cut(project, &banks, context.history.as_ref(), today);
        context.config.apply_rule_levels(&mut past_cut);
        report.findings.extend(past_cut);
        for finding in &report.findings {
            match finding.severity {
                Severity::Error => summary.error += 1,
                Severity::Warning => summary.warning += 1,
                Severity::Info => summary.info += 1,
            }
        }
        results.push(ProjectFindings {
            name: report.name,
            path: report.path,
            findings: report.findings,
        });
    }
    analyzer.finish();
    let failed = results
        .iter()
        .flat_map(|p| &p.findings)
        .any(|f| f.severity >= fail_on);
    if format == CheckFormat::Sarif {
        // Relative to where the check runs: in CI, the repository's top.
        let base = std::env::current_dir().unwrap_or_else(|_| context.root.clone());
        json::print(&sarif::log(results.iter().flat_map(|p| &p.findings), &base))?;
    } else if format == CheckFormat::Json {
        json::print(&CheckOutput {
            schema: "mbank.check/1",
            encoding: context.encoding,
            fail_on,
            failed,
            summary,
            projects: results,
        })?;
    } else {
        let style = &context.style;
        for project in &results {
            if project.findings.is_empty() {
                println(line![style.bold(&project.name), " ", style.green("clean")]);
                continue;
            }
            println(line![
                style.bold(&project.name),
                " ",
                style.dim(&project.path)
            ]);
            for f in &project.findings {
                let place = match f.line {
                    Some(line) => format!("{}:{line}", short(&f.file, &project.path)),
                    None => short(&f.file, &project.path),
                };
                println(line![
                    "  ",
                    pad(style.status(f.severity.id()), 7),
                    " ",
                    format!("{place}: {}", f.message),
                    " ",
                    style.dim(format!("[{}]", f.code))
                ]);
                if verbose {
                    for detail in &f.details {
                        println(style.dim(format!("            {detail}")));
                    }
                } else if !f.details.is_empty() {
                    println(style.dim(format!(
                        "            ({} in --verbose and --json)",
                        counted(f.details.len(), "detail")
                    )));
                }
            }
        }
        println(line![
            format!(
                "{}, {}, {} info · {} · failing on {} and above: ",
                counted(summary.error, "error"),
                counted(summary.warning, "warning"),
                summary.info,
                counted(results.len(), "project"),
                fail_on,
            ),
            if failed {
                style.red("FAIL")
            } else {
                style.green("ok")
            }
        ]);
    }
    Ok(if failed { EXIT_FINDINGS } else { 0 })
}
