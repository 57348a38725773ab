//! The headless command line: scripts, CI and git hooks call these; `mbank` with no
//! subcommand opens the TUI. Exit codes: 0 clean, 1 findings at or above `--fail-on`,
//! 2 usage or I/O error.
//!
//! Text output goes through `style` only, which sanitises every string bound for the
//! terminal; printing any other way is a lint error here.
#![deny(clippy::print_stdout, clippy::print_stderr)]
mod args;
mod commands;
mod json;
mod sarif;
mod style;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use color_eyre::eyre::{Result, WrapErr, eyre};

pub use args::Cli;
use args::{Command, EncodingArg};

use crate::core::clock::Clock;
use crate::core::config::{self, Config};
use crate::core::demo::DemoRoot;
use crate::core::model::Project;
use crate::core::scan::discovery::{self, ScanOptions};
use crate::core::scan::listings::Listings;
use crate::core::tokens::Encoding;
use style::Style;

/// Exit code for findings at or above the threshold.
pub const EXIT_FINDINGS: u8 = 1;
/// Exit code for usage and I/O errors (clap uses it too).
pub const EXIT_ERROR: u8 = 2;

/// What every command needs: configuration, root, encoding, output style.
pub struct Context {
    pub config: Config,
    pub root: PathBuf,
    root_source: config::RootSource,
    pub encoding: Encoding,
    pub style: Style,
    /// Keeps the demo copy alive for the command's duration.
    demo: Option<DemoRoot>,
    /// What every judgement of time asks: the system clock, or the instant `MBANK_NOW`
    /// names.
    pub clock: Clock,
    /// Where every write of this process keeps the text it replaces (none without a
    /// data folder).
    pub history: Option<crate::core::history::History>,
}

impl Context {
    fn new(global: &args::GlobalArgs) -> Result<Context> {
        let config = config::load(global.config.as_deref())?;
        let clock = Clock::from_environment().map_err(|message| eyre!(message))?;
        let demo = if global.demo {
            Some(crate::core::demo::create(&clock).wrap_err("cannot create the demo root")?)
        } else {
            None
        };
        let env_root = std::env::var("MEMORY_BANK_ROOT").ok();
        let flag_root = demo
            .as_ref()
            .map(|d| d.path().to_path_buf())
            .or(global.root.clone());
        let (root, root_source) =
            config::choose_root(flag_root.as_deref(), env_root.as_deref(), &config);
        // Absolute from the start: project paths are built on it, and a relative one
        // (`--root .`) would lose a leading `..` wherever it is normalised.
        let root = crate::core::analysis::imports::absolute(&root);
        let encoding = match global.encoding {
            Some(EncodingArg::O200k) => Encoding::O200k,
            Some(EncodingArg::Cl100k) => Encoding::Cl100k,
            Some(EncodingArg::Bytes4) => Encoding::Bytes4,
            None => match &config.tokenizer {
                Some(name) => name
                    .parse()
                    .map_err(|e| eyre!("tokenizer {name:?} in config: {e}"))?,
                None => Encoding::default(),
            },
        };
        let encoding = encoding.built_in().map_err(|e| eyre!("--encoding: {e}"))?;
        let history = crate::core::io::paths::data_dir()
            .map(|dir| crate::core::history::History::new(dir, config.history, clock));
        Ok(Context {
            config,
            root,
            root_source,
            encoding,
            style: Style::detect(global.no_color),
            demo,
            clock,
            history,
        })
    }

    /// A write by `writer` of this process: its history, the configured guard rules and
    /// its clock.
    pub fn write_context(&self, writer: &str) -> crate::core::write::WriteContext {
        crate::core::write::WriteContext::new(writer, self.clock)
            .with_history(self.history.clone())
            .with_policy(self.config.serve.guard)
    }

    pub fn scan_options(&self) -> ScanOptions {
        ScanOptions {
            depth: self.config.scan_depth,
            ignore: self.config.ignore_set.clone(),
            home: crate::core::io::paths::home_dir(),
        }
    }

    /// Whether the root is a fresh copy of the demo banks (gone when the command ends, so
    /// nothing about it is worth remembering on disk).
    pub fn is_demo(&self) -> bool {
        self.demo.is_some()
    }

    /// All projects under the root; a missing or unreadable root is an error naming where
    /// mbank looked and how to set it.
    pub fn projects_under_root(&self) -> Result<Vec<Project>> {
        self.projects_under_root_with(&Listings::in_memory())
    }

    /// [`Context::projects_under_root`] reading folders through `listings`.
    pub fn projects_under_root_with(&self, listings: &Listings) -> Result<Vec<Project>> {
        config::check_root(&self.root, &self.root_source)?;
        Ok(discovery::scan_with(
            &self.root,
            &self.scan_options(),
            listings,
        ))
    }

    /// Where a PATH argument is: as given when it exists (relative to the current
    /// folder), else (when relative) the same path under the root, so `mbank --demo
    /// check weather-api` names a demo project. Kept as written, for messages; anything
    /// that becomes a project goes through [`Context::projects_at`], which makes it
    /// absolute.
    pub fn resolve(&self, path: &Path) -> PathBuf {
        if path.is_relative() && std::fs::symlink_metadata(path).is_err() {
            let under_root = self.root.join(path);
            if std::fs::symlink_metadata(&under_root).is_ok() {
                return under_root;
            }
        }
        path.to_path_buf()
    }

    /// Projects a PATH argument names: the folder itself when it holds a bank, else the
    /// projects below it; without PATH, the whole root. A project inside the root has the
    /// name `mbank list` gives it (its path under the root), which every command prints
    /// and accepts as PATH.
    pub fn projects_at(&self, path: Option<&Path>) -> Result<Vec<Project>> {
        let Some(path) = path else {
            return self.projects_under_root();
        };
        self.projects_at_with(path, &Listings::in_memory())
    }

    /// [`Context::projects_at`] for a PATH, its folders read through `listings`.
    fn projects_at_with(&self, path: &Path, listings: &Listings) -> Result<Vec<Project>> {
        let mut projects = self.projects_named_by_folder(path, listings)?;
        let root = std::fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        for project in &mut projects {
            if let Some(name) = name_under(&root, &project.path) {
                project.name = name;
            }
        }
        Ok(projects)
    }

    /// [`Context::projects_at`] for a PATH, and where PATH is itself a project, the
    /// projects in its sub-folders with banks of their own too (a monorepo's apps, each
    /// with its `memory-bank/`), as `list` finds them: `check .` in a repository checks
    /// all of its memory. Each named as `list` names it under the root, else by its path
    /// below PATH.
    pub fn projects_at_and_below(&self, path: &Path, listings: &Listings) -> Result<Vec<Project>> {
        let mut projects = self.projects_at_with(path, listings)?;
        let [project] = projects.as_slice() else {
            return Ok(projects);
        };
        let project = project.path.clone();
        let top = std::fs::canonicalize(&project).unwrap_or_else(|_| project.clone());
        let resolved = self.resolve(path);
        let given = std::fs::canonicalize(&resolved).unwrap_or(resolved);
        if top != given {
            // A file of a bank or a memory folder names only the project holding it.
            return Ok(projects);
        }
        let root = std::fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        // Under the root, only as deep as a scan of the root goes: the projects `list`
        // shows, no more.
        let mut options = self.scan_options();
        if let Ok(rel) = top.strip_prefix(&root) {
            options.depth = options.depth.saturating_sub(rel.components().count());
            if options.depth == 0 {
                return Ok(projects);
            }
        }
        let below = discovery::scan_with(&project, &options, listings)
            .into_iter()
            .filter(|found| found.path != project);
        for mut found in below {
            if let Some(name) = name_under(&root, &found.path) {
                found.name = name;
            }
            projects.push(found);
        }
        Ok(projects)
    }

    /// [`Context::projects_at`] for a PATH, each project named by its own folder.
    fn projects_named_by_folder(&self, path: &Path, listings: &Listings) -> Result<Vec<Project>> {
        // Absolute before anything is built on it: a project at `.` would otherwise
        // hide an `@../x` import that leaves it (normalising `./../x` loses the `..`).
        let resolved = crate::core::analysis::imports::absolute(&self.resolve(path));
        let path = resolved.as_path();
        let meta =
            std::fs::metadata(path).wrap_err_with(|| format!("cannot read {}", path.display()))?;
        if !meta.is_dir() {
            // A file of a bank names the project the bank belongs to.
            return enclosing_project(path)
                .map(|project| vec![project])
                .ok_or_else(|| {
                    eyre!(
                        "{} is a file that belongs to no memory bank",
                        path.display()
                    )
                });
        }
        let home = crate::core::io::paths::home_dir();
        if let Some(project) =
            discovery::project_at_with(listings, path, folder_name(path), home.as_deref())
        {
            return Ok(vec![project]);
        }
        let mut projects = discovery::scan_with(path, &self.scan_options(), listings);
        if projects.is_empty() {
            // The memory folder itself (`memory-bank/`, `.claude/memory/`) or a folder
            // inside a bank: its project is above it.
            projects.extend(enclosing_project(path));
        }
        if projects.is_empty() {
            return Err(eyre!(
                "no memory bank found in {} (looked for {} …)",
                path.display(),
                crate::core::formats::looked_for()
            ));
        }
        Ok(projects)
    }
}

/// The path of `project` under `root` (canonical), as `mbank list` names a project it
/// finds there; `None` outside the root or for the root itself.
fn name_under(root: &Path, project: &Path) -> Option<String> {
    let project = std::fs::canonicalize(project).ok()?;
    let rel = project.strip_prefix(root).ok()?;
    if rel.as_os_str().is_empty() {
        return None;
    }
    let parts: Option<Vec<&str>> = rel.iter().map(|part| part.to_str()).collect();
    Some(parts?.join("/"))
}

/// A folder's own name (resolving `.` and links), for a project found there.
fn folder_name(path: &Path) -> String {
    std::fs::canonicalize(path)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| path.display().to_string())
}

/// The nearest folder above `path` that is a project with a bank holding `path`: its
/// memory folder contains it, or (for file formats, whose bank is the project) it is one
/// of the bank's own files or folders.
pub(crate) fn enclosing_project(path: &Path) -> Option<Project> {
    path.ancestors().skip(1).find_map(|folder| {
        let home = crate::core::io::paths::home_dir();
        let project = discovery::project_at_home(folder, folder_name(folder), home.as_deref())?;
        let holds = project.banks.iter().any(|bank| {
            path.starts_with(&bank.root)
                && (bank.root != project.path
                    || crate::core::scan::bank::list_banks(&project)
                        .iter()
                        .flat_map(|b| &b.files)
                        .any(|f| f.path == path || f.path.starts_with(path)))
        });
        holds.then_some(project)
    })
}

/// `mbank` with no subcommand: the terminal UI over the root.
fn open_tui(context: &Context, global: &args::GlobalArgs) -> Result<u8> {
    use crate::tui::keymap::Keymap;
    use crate::tui::theme::Theme;
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        // Piped or scripted: the UI cannot run, the listing is what was asked for.
        style::eprintln(
            "mbank: not a terminal, so here is `mbank list` (run it in a terminal for the UI)",
        );
        return commands::list::run(context, false, args::ListSort::Activity);
    }
    if global.simulate_agent && !global.demo {
        return Err(eyre!(
            "--simulate-agent writes into the root: use it with --demo only"
        ));
    }
    let config_dir = crate::core::io::paths::config_dir();
    let theme_name = global
        .theme
        .clone()
        .or_else(|| context.config.theme.clone())
        .unwrap_or_else(|| "dark".to_string());
    let theme = Theme::load(&theme_name, config_dir.as_deref())?;
    let keymap = Keymap::load(
        context.config.keymap.as_deref(),
        config_dir
            .as_ref()
            .map(|d| d.join("keymap.toml"))
            .as_deref(),
    )?;
    let root_problem = config::check_root(&context.root, &context.root_source)
        .err()
        .map(|e| e.to_string());
    let options = crate::tui::Options {
        root: context.root.clone(),
        root_problem,
        config: std::sync::Arc::new(context.config.clone()),
        encoding: context.encoding,
        theme,
        keymap,
        demo_path: context.demo.as_ref().map(|d| d.path().to_path_buf()),
        home: crate::core::io::paths::home_dir(),
        watch: true,
        config_dir,
        backup_dir: crate::core::io::paths::data_dir()
            .unwrap_or_else(std::env::temp_dir)
            .join("conflicts"),
        review: crate::core::review::ReviewOptions {
            disk_token_cache: true,
            run_git_hooks: context.config.review.run_git_hooks,
            ..crate::core::review::ReviewOptions::default()
        },
        clock: context.clock,
        history: context.history.clone(),
        // A demo copy is gone when mbank exits: nothing about it is worth recording.
        record: !context.is_demo(),
        search_cache_dir: if context.is_demo() {
            None
        } else {
            crate::core::io::paths::cache_dir()
        },
    };
    let mode = crate::tui::RunMode {
        simulate_agent: global.simulate_agent,
        exit_after_first_frame: global.exit_after_first_frame,
    };
    crate::tui::run(options, mode)?;
    Ok(0)
}

fn execute(cli: Cli) -> Result<u8> {
    let context = Context::new(&cli.global)?;
    match cli.command {
        None => open_tui(&context, &cli.global),
        Some(Command::List { json, sort }) => commands::list::run(&context, json, sort),
        Some(Command::Check {
            path,
            json,
            format,
            fail_on,
            verbose,
        }) => {
            let format = match (json, format) {
                (true, _) => args::CheckFormat::Json,
                (false, format) => format.unwrap_or(args::CheckFormat::Text),
            };
            commands::check::run(&context, path.as_deref(), format, fail_on, verbose)
        }
        Some(Command::Tokens { path, json }) => commands::tokens::run(&context, &path, json),
        Some(Command::Timeline { path, json }) => {
            commands::timeline::run(&context, path.as_deref(), json)
        }
        Some(Command::Search {
            query,
            project,
            format,
            agent,
            since,
            kind,
            limit,
            json,
        }) => {
            use crate::core::search::KindFilter;
            commands::search::run(
                &context,
                &commands::search::SearchInvocation {
                    query: &query.join(" "),
                    project: project.as_deref(),
                    format: format.as_deref(),
                    agent: agent.as_deref(),
                    since: since.as_deref(),
                    kind: kind.map(|k| match k {
                        args::SearchKindArg::Decision => KindFilter::Decision,
                        args::SearchKindArg::Section => KindFilter::Section,
                        args::SearchKindArg::File => KindFilter::File,
                    }),
                    limit,
                    as_json: json,
                },
            )
        }
        Some(Command::Init {
            path,
            format,
            brief,
            yes,
            no_instructions,
        }) => commands::init::run(
            &context,
            &path,
            format,
            brief.as_deref(),
            commands::init::Instructions {
                yes,
                skip: no_instructions,
            },
        ),
        Some(Command::Adr {
            command: args::AdrCommand::New { title, path, dir },
        }) => commands::adr::new(&context, &path, &title, dir.as_deref()),
        Some(Command::Review {
            path,
            json,
            fail_on,
            mark_reviewed,
        }) => commands::review::run(&context, path.as_deref(), json, fail_on, mark_reviewed),
        Some(Command::Context {
            path,
            json,
            bank,
            summary,
            mode,
            agent,
            no_user,
            max_tokens,
        }) => commands::context::run(
            &context,
            &commands::context::ContextInvocation {
                path: path.as_deref(),
                as_json: json,
                only: bank.as_deref(),
                summary,
                mode: mode.as_deref(),
                agent: agent.as_deref(),
                include_user_files: !no_user,
                max_tokens,
            },
        ),
        Some(Command::Proposals { json, all }) => commands::proposals::list(&context, json, all),
        Some(Command::Remember { fact, global, path }) => {
            commands::remember::run(&context, &fact, global, &path)
        }
        Some(Command::Accept { id, hunks }) => {
            commands::proposals::accept(&context, id, hunks.as_deref())
        }
        Some(Command::Reject { id }) => commands::proposals::reject(&context, id),
        Some(Command::History {
            stats: true, json, ..
        }) => commands::journal::stats(&context, json),
        Some(Command::History {
            file: Some(file),
            json,
            diff,
            ..
        }) => commands::history::list(&context, &file, json, diff),
        Some(Command::History { file: None, .. }) => {
            Err(eyre!("name the memory file (or ask for --stats)"))
        }
        Some(Command::Watch) => commands::journal::watch(&context),
        Some(Command::Changes {
            since,
            json,
            mark_reviewed,
        }) => commands::journal::changes(&context, since.as_deref(), json, mark_reviewed),
        Some(Command::Restore { file, version }) => {
            commands::history::restore(&context, &file, version)
        }
        Some(Command::Mcp { serve }) => commands::mcp::run(&context, &serve),
        Some(Command::Serve { listen, serve }) => {
            commands::serve::run(&context, listen.as_deref(), &serve)
        }
    }
}

/// Runs a parsed command line and turns errors into exit code 2 with a readable message.
pub fn run(cli: Cli) -> ExitCode {
    match execute(cli) {
        Ok(code) => ExitCode::from(code),
        Err(report) => {
            style::eprintln(format!("mbank: {report}"));
            for cause in report.chain().skip(1) {
                style::eprintln(format!("  caused by: {cause}"));
            }
            ExitCode::from(EXIT_ERROR)
        }
    }
}
