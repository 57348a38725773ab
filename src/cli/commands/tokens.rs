//! `mbank tokens PATH`: per file and totals, loaded vs private, labelled with the encoding.
//! The total is each project's session start ([`ProjectReport::session_tokens`], the
//! figure `mbank list` and the TUI show), never several agents' files added up.
//! Exit 0 when every file of every bank was listed, 2 on usage or I/O errors, a bank
//! that cannot be listed (a folder without read permission) included: the figures
//! printed are then incomplete, and the reason is on stderr (`problems` in JSON).
use std::path::{Path, PathBuf};

use color_eyre::eyre::{Result, WrapErr};
use serde::Serialize;

use crate::cli::style::{Table, eprintln, line, println, thousands};
use crate::cli::{Context, EXIT_ERROR, json};
use crate::core::analysis::membership::FileClass;
use crate::core::analysis::report::{Analyzer, Depth, ProjectReport, SessionTokens};
use crate::core::findings::Finding;
use crate::core::io::text::counted;
use crate::core::model::{BankProblem, Format, LoadKind, Role};
use crate::core::tokens::{self, Encoding, TokenCache};

#[derive(Serialize)]
struct TokensOutput {
    schema: &'static str,
    encoding: Encoding,
    path: PathBuf,
    banks: Vec<BankTokens>,
    /// Each project's sessions; empty for a single file outside any bank.
    projects: Vec<ProjectSessions>,
    totals: Totals,
    /// Memory paths left uncounted because they lead out of their project
    /// (`symlink-outside`).
    findings: Vec<Finding>,
}

/// A project's session starts, as `mbank list` gives them.
#[derive(Serialize)]
struct ProjectSessions {
    name: String,
    path: PathBuf,
    /// The project's one figure: the heaviest session, its agent named.
    session: SessionTokens,
    /// The file `mbank check`'s finding on the session's budget names.
    budget_file: Option<PathBuf>,
    /// Each agent's session start that loads anything here.
    sessions: Vec<SessionTokens>,
}

impl ProjectSessions {
    fn of(report: &ProjectReport) -> ProjectSessions {
        let sessions = report.agent_tokens();
        let session = report.session_of(&sessions);
        ProjectSessions {
            name: report.name.clone(),
            path: report.path.clone(),
            budget_file: report.budget_file(&session).map(Path::to_path_buf),
            session,
            sessions,
        }
    }
}

#[derive(Serialize)]
struct BankTokens {
    /// `null` when PATH is a single file outside any bank.
    format: Option<Format>,
    root: PathBuf,
    files: Vec<FileTokens>,
    loaded_tokens: u64,
    private_tokens: u64,
    /// Problems met while listing the bank (a folder that cannot be listed, a dangling
    /// link). A folder that cannot be listed leaves files out of the figures: exit 2.
    problems: Vec<BankProblem>,
}

#[derive(Serialize)]
struct FileTokens {
    path: PathBuf,
    display: String,
    role: Option<Role>,
    load: Option<LoadKind>,
    /// Memory, backup or foreign (`null` for a single file outside any bank): only
    /// memory counts in the totals.
    class: Option<FileClass>,
    bytes: u64,
    lines: usize,
    chars: usize,
    loaded_tokens: usize,
    private_tokens: usize,
    error: Option<String>,
}

#[derive(Serialize, Default)]
struct Totals {
    /// Memory files (backups and foreign files kept in banks are not counted).
    files: usize,
    /// Backup copies and foreign files kept inside banks.
    not_memory_files: usize,
    /// Each project's session start added up (one project: its figure).
    loaded_tokens: u64,
    private_tokens: u64,
    /// Tokens of files agents never load automatically (archives, on-demand files).
    not_loaded_tokens: u64,
}

fn single_file(context: &Context, path: &Path) -> Result<TokensOutput> {
    let text = crate::core::io::text::read_text(path).wrap_err("cannot count tokens")?;
    let stats = tokens::measure(&text, context.encoding);
    let file = FileTokens {
        path: path.to_path_buf(),
        display: path.display().to_string(),
        role: None,
        load: None,
        class: None,
        bytes: stats.bytes,
        lines: stats.lines,
        chars: stats.chars,
        loaded_tokens: stats.loaded_tokens,
        private_tokens: stats.private_tokens,
        error: None,
    };
    let totals = Totals {
        files: 1,
        not_memory_files: 0,
        loaded_tokens: stats.loaded_tokens as u64,
        private_tokens: stats.private_tokens as u64,
        not_loaded_tokens: 0,
    };
    Ok(TokensOutput {
        schema: "mbank.tokens/1",
        encoding: context.encoding,
        path: path.to_path_buf(),
        projects: Vec::new(),
        banks: vec![BankTokens {
            format: None,
            // "notes.md" has the empty parent "": say "." instead.
            root: path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf(),
            loaded_tokens: totals.loaded_tokens,
            private_tokens: totals.private_tokens,
            files: vec![file],
            problems: Vec::new(),
        }],
        totals,
        findings: Vec::new(),
    })
}

fn project_tokens(context: &Context, path: &Path) -> Result<TokensOutput> {
    let projects = context.projects_at(Some(path))?;
    let cache = TokenCache::open_default(context.encoding);
    // Figures alone: staleness is not shown here. Files are counted while they are
    // listed, so counting a cold bank starts with its first file.
    let mut analyzer = Analyzer::new(&context.config, context.encoding, cache, &context.clock)
        .for_one_run()
        .figures_only()
        .counting_while_listing();
    let mut banks = Vec::new();
    let mut sessions = Vec::new();
    let mut totals = Totals::default();
    let mut findings = Vec::new();
    for project in &projects {
        let report = analyzer.analyze(project, Depth::default());
        let project_sessions = ProjectSessions::of(&report);
        totals.loaded_tokens += project_sessions.session.tokens;
        totals.private_tokens += project_sessions.session.private_tokens;
        sessions.push(project_sessions);
        findings.extend(report.findings);
        for bank in report.banks {
            let files: Vec<FileTokens> = bank
                .files
                .iter()
                .map(|f| {
                    let stats = f.stats.as_ref();
                    let (loaded, private) =
                        stats.map_or((0, 0), |s| (s.loaded_tokens, s.private_tokens));
                    if f.class != FileClass::Memory {
                        totals.not_memory_files += 1;
                    } else {
                        totals.files += 1;
                        if f.file.load != LoadKind::Startup {
                            totals.not_loaded_tokens += (loaded + private) as u64;
                        }
                    }
                    FileTokens {
                        path: f.file.path.clone(),
                        display: match &f.file.memory {
                            Some(m) => format!("{} [{}]", m.title, m.kind),
                            None => f.file.display.clone(),
                        },
                        role: Some(f.file.role),
                        load: Some(f.file.load),
                        class: Some(f.class),
                        bytes: stats.map_or(f.file.size, |s| s.bytes),
                        lines: stats.map_or(0, |s| s.lines),
                        chars: stats.map_or(0, |s| s.chars),
                        loaded_tokens: loaded,
                        private_tokens: private,
                        error: f.error.clone(),
                    }
                })
                .collect();
            banks.push(BankTokens {
                format: Some(bank.format),
                root: bank.root,
                loaded_tokens: bank.loaded_tokens,
                private_tokens: bank.private_tokens,
                files,
                problems: bank.problems,
            });
        }
    }
    analyzer.finish();
    Ok(TokensOutput {
        schema: "mbank.tokens/1",
        encoding: context.encoding,
        path: path.to_path_buf(),
        banks,
        projects: sessions,
        totals,
        findings,
    })
}

pub fn run(context: &Context, path: &Path, as_json: bool) -> Result<u8> {
    let resolved = context.resolve(path);
    let path = resolved.as_path();
    let meta =
        std::fs::metadata(path).wrap_err_with(|| format!("cannot read {}", path.display()))?;
    let output = if meta.is_file() {
        single_file(context, path)?
    } else {
        project_tokens(context, path)?
    };
    // A bank that could not be listed whole leaves figures out: an error, with why.
    let problems: Vec<(&Path, &BankProblem)> = output
        .banks
        .iter()
        .flat_map(|b| b.problems.iter().map(|p| (b.root.as_path(), p)))
        .filter(|(_, problem)| problem.leaves_files_out())
        .collect();
    let code = if problems.is_empty() { 0 } else { EXIT_ERROR };
    if as_json {
        json::print(&output)?;
    } else {
        print_tables(context, &output);
    }
    for (root, problem) in &problems {
        eprintln(format!(
            "mbank: the figures of {} are incomplete: {problem}",
            root.display()
        ));
    }
    Ok(code)
}

/// "Session start: 8,950/5,000 tokens (over) for Kilo Code, the heaviest; Codex 612": the
/// figure `mbank list` gives, with every other agent's apart, never added to it.
fn session_line(project: &ProjectSessions, named: bool) -> String {
    let session = &project.session;
    let whose = match session.agent {
        Some(agent) => format!("for {}", agent.label()),
        None => "through the banks' own tools".to_string(),
    };
    let budget = session
        .budget
        .map_or(String::new(), |status| format!(" ({})", status.id()));
    let others: Vec<String> = project
        .sessions
        .iter()
        .filter(|s| s.agent != session.agent)
        .filter_map(|s| {
            Some(format!(
                "{} {}",
                s.agent?.label(),
                s.used_of_budget(thousands)
            ))
        })
        .collect();
    let heaviest = if others.is_empty() {
        String::new()
    } else {
        format!(", the heaviest; {}", others.join(", "))
    };
    let project_name = if named {
        format!(" of {}", project.name)
    } else {
        String::new()
    };
    format!(
        "Session start{project_name}: {} tokens{budget} {whose}{heaviest}",
        session.used_of_budget(thousands)
    )
}

fn print_tables(context: &Context, output: &TokensOutput) {
    let style = &context.style;
    for bank in &output.banks {
        let title = bank
            .format
            .map_or("file".to_string(), |f| f.label().to_string());
        println(line![style.bold(title), " ", style.dim(&bank.root)]);
        let mut table =
            Table::new(&["file", "load", "lines", "loaded", "private"]).right(&[2, 3, 4]);
        for f in &bank.files {
            let load = match (f.class, f.load) {
                (Some(class), _) if class != FileClass::Memory => class.id(),
                (_, load) => load.map_or("—", |l| match l {
                    LoadKind::Startup => "start",
                    LoadKind::OnDemand => "on demand",
                    LoadKind::AgentRequested => "agent-requested",
                    LoadKind::Manual => "manual",
                    LoadKind::Never => "never",
                }),
            };
            let (loaded, private) = match &f.error {
                Some(_) => ("—".to_string(), "—".to_string()),
                None => (
                    thousands(f.loaded_tokens as u64),
                    thousands(f.private_tokens as u64),
                ),
            };
            table.row(vec![
                (&f.display).into(),
                load.into(),
                f.lines.to_string().into(),
                loaded.into(),
                private.into(),
            ]);
            // On its own line under the row: a long message never widens the columns.
            if let Some(error) = &f.error {
                table.note(style.red(format!("  ↳ {error}")));
            }
        }
        table.print(style);
        println(line![
            "  loaded at session start: ",
            style.bold(thousands(bank.loaded_tokens)),
            format!(" · private: {}", thousands(bank.private_tokens))
        ]);
        println("");
    }
    for finding in &output.findings {
        println(line![
            style.status(finding.severity.id()),
            " ",
            &finding.message,
            format!(" [{}]", finding.code)
        ]);
    }
    for project in &output.projects {
        println(session_line(project, output.projects.len() > 1));
    }
    let loaded = if output.projects.is_empty() {
        " loaded"
    } else {
        " loaded at session start"
    };
    println(line![
        "Total: ",
        style.bold(thousands(output.totals.loaded_tokens)),
        loaded,
        format!(
            ", {} private, {} in files not loaded at start · {}{} · encoding {}",
            thousands(output.totals.private_tokens),
            thousands(output.totals.not_loaded_tokens),
            counted(output.totals.files, "file"),
            match output.totals.not_memory_files {
                0 => String::new(),
                n => format!(" (and {} that are not memory)", counted(n, "file")),
            },
            context.encoding.label()
        )
    ]);
}
