//! `mbank init`: a new memory bank — Cline's (the Cline memory bank spec, also what Roo
//! Code reads), Kilo Code's (its memory-bank documentation) or ConKeeper's (the ConKeeper
//! schema) — from templates built into the binary, filled with what the brief says
//! ([`brief`]) and what the project's manifests declare ([`stack`]), and the agent's
//! instructions for using it ([`instructions`]).
//!
//! Existing files are never touched: every file is created through the write pipeline
//! with [`Expected::Missing`], so a file that exists, or appears while init runs, is kept
//! (a symlink included: it is never written through). A file of the bank counts as there
//! when a file of the same name, case and separators aside, is (`projectbrief.md` is the
//! brief). A bank folder that is a symlink leading out of the project is refused before
//! anything is written (see `confine`). [`init_project`] also refuses to make a bank
//! beside another kind of bank the project already has, and only adds to an instruction
//! file that exists when told it may.
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::Serialize;

use crate::error::{CoreError, Result};
use crate::formats;
use crate::io::confine::ProjectFolder;
use crate::model::Format;
use crate::write::{self, Change, Expected, Target, WriteContext};

use crate::formats::init::render::Fill;
use brief::Brief;
use stack::Stack;

pub use crate::formats::init::{InitFormat, brief, instructions, stack, suggested_format};

/// Cline's seven core files in read order (the Cline memory bank spec).
#[cfg(test)]
pub(crate) use crate::formats::cline::TEMPLATES as CLINE_TEMPLATES;
/// ConKeeper's files; the configuration is written as `.memory-config.md`.
#[cfg(test)]
pub(crate) use crate::formats::conkeeper::TEMPLATES as CONKEEPER_TEMPLATES;

/// The placeholder lines `--brief` and the project name replace.
#[cfg(test)]
const CLINE_NAME_PLACEHOLDER: &str = "[Project name]";
#[cfg(test)]
const CLINE_MISSION_PLACEHOLDER: &str = "[One paragraph: what this project is and why it exists]";
#[cfg(test)]
const CONKEEPER_OVERVIEW_PLACEHOLDER: &str =
    "<!-- What the project is and the problem it solves, in two or three sentences. -->";

/// What became of the agent's instructions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "action", content = "file", rename_all = "kebab-case")]
pub enum InstructionsDone {
    /// A new file holds them.
    Created(String),
    /// They were added at the end of an instruction file that existed.
    Added(String),
    /// The file holds them already.
    AlreadyThere(String),
    /// The file exists and init was not allowed to change it.
    LeftAlone(String),
}

/// What `init` did, with paths relative to the project; folders end with `/`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct InitReport {
    /// The bank folder.
    pub bank: PathBuf,
    pub created: Vec<String>,
    /// Files and folders that already existed and were left as they were.
    pub kept: Vec<String>,
    /// The manifests the stack was read from.
    pub stack_from: Vec<String>,
    /// Manifests that could not be read, with why.
    pub stack_problems: Vec<String>,
    /// `None` when init was told not to install them.
    pub instructions: Option<InstructionsDone>,
}

/// Whether init installs the agent's instructions, and may change a file that exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstructionsConsent {
    /// Install nothing.
    Skip,
    /// Create the instruction file when it is missing; leave one that exists.
    NewFileOnly,
    /// Also add the instructions at the end of an existing file.
    MayChange,
}

/// What [`init_project`] is asked to do.
#[derive(Debug, Clone)]
pub struct InitOptions {
    pub format: InitFormat,
    pub brief: Option<String>,
    pub instructions: InstructionsConsent,
    pub today: NaiveDate,
}

/// A bank of another kind, or in another place, that the project already has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OtherBank {
    pub format: Format,
    /// Relative to the project, `/`-separated, ending with `/` for a folder.
    pub folder: String,
}

/// Why [`init_project`] made nothing.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error(
        "this project already has a memory bank ({}) in {}; mbank init makes no second bank beside it \
         (complete that one, or remove it first)",
        .0.format.label(), .0.folder
    )]
    OtherBank(OtherBank),
    #[error(transparent)]
    Core(#[from] CoreError),
}

/// Where an instruction file for `format` would go and whether it is there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstructionsPlan {
    /// Relative to the project.
    pub file: String,
    pub exists: bool,
    /// It holds mbank's instructions already.
    pub installed: bool,
}

/// Where init would put `format`'s instructions in `project`, and what is there now.
pub fn instructions_plan(project: &Path, format: InitFormat) -> InstructionsPlan {
    let rel = instructions::target(project, format);
    let path = project.join(&rel);
    let text = crate::io::text::read_text(&path).ok();
    InstructionsPlan {
        file: display(&rel, false),
        exists: fs::symlink_metadata(&path).is_ok(),
        installed: text.is_some_and(|t| t.contains(instructions::MARKER)),
    }
}

/// Creates a bank in `project` (created if missing), today's date in the templates: the
/// templates and the brief only, no instructions (what an agent's own tool asks for).
pub fn init_bank(project: &Path, format: InitFormat, brief: Option<&str>) -> Result<InitReport> {
    init_bank_on(project, format, brief, chrono::Local::now().date_naive())
}

/// [`init_bank`] with the date given.
pub(crate) fn init_bank_on(
    project: &Path,
    format: InitFormat,
    brief: Option<&str>,
    today: NaiveDate,
) -> Result<InitReport> {
    let ctx = WriteContext::new("init", crate::clock::Clock::system());
    check_project(project)?;
    create_bank(
        &ctx,
        project,
        format,
        Path::new(format.bank_dir()),
        brief,
        &Stack::default(),
        today,
    )
}

/// `mbank init`: the bank `options` names, filled from the brief and the project's
/// manifests, and the agent's instructions, every write through `ctx`. A bank of
/// another kind already there is refused before anything is written; the same kind of
/// bank is completed (its existing files kept).
pub fn init_project(
    project: &Path,
    options: &InitOptions,
    ctx: &WriteContext,
) -> std::result::Result<InitReport, InitError> {
    check_project(project)?;
    let format = options.format;
    let bank_dir = match bank_in_place(project, format)? {
        Some(dir) => dir,
        None => PathBuf::from(format.bank_dir()),
    };
    let stack = stack::detect(project);
    let mut report = create_bank(
        ctx,
        project,
        format,
        &bank_dir,
        options.brief.as_deref(),
        &stack,
        options.today,
    )?;
    report.stack_from = stack.sources.clone();
    report.stack_problems = stack.problems.clone();
    if options.instructions != InstructionsConsent::Skip {
        report.instructions = Some(install_instructions(
            ctx,
            project,
            format,
            &bank_dir,
            options.instructions,
        )?);
    }
    Ok(report)
}

fn check_project(project: &Path) -> Result<()> {
    if project.exists() && !project.is_dir() {
        return Err(CoreError::io(
            project,
            io::Error::new(io::ErrorKind::NotADirectory, "is a file, not a folder"),
        ));
    }
    Ok(())
}

/// The memory banks `project` holds (instruction files and rules are not banks), each
/// with its folder relative to the project. Empty folders do not count.
pub(crate) fn existing_banks(project: &Path) -> Vec<OtherBank> {
    let mut found = Vec::new();
    let name = project_name(project);
    let banks = crate::scan::discovery::project_at(project, name)
        .map(|p| p.banks)
        .unwrap_or_default();
    for bank in banks {
        let holds_files = |dir: &Path| {
            fs::read_dir(dir)
                .map(|mut entries| entries.next().is_some())
                .unwrap_or(false)
        };
        let Some(folder) = crate::formats::init::bank_folder(bank.format, &bank.root, project)
        else {
            continue;
        };
        if !folder.is_dir() || !holds_files(&folder) {
            continue;
        }
        let rel = folder
            .strip_prefix(project)
            .unwrap_or(&folder)
            .to_path_buf();
        let shown = display(&rel, true);
        if !found.iter().any(|b: &OtherBank| b.folder == shown) {
            found.push(OtherBank {
                format: bank.format,
                folder: shown,
            });
        }
    }
    found
}

/// The folder of `project`'s bank of `format`'s kind, when it has one; an error naming
/// the other bank when it has only another kind.
fn bank_in_place(
    project: &Path,
    format: InitFormat,
) -> std::result::Result<Option<PathBuf>, InitError> {
    let banks = existing_banks(project);
    if let Some(bank) = banks
        .iter()
        .find(|b| format.is_same_bank(b.format, &b.folder))
    {
        return Ok(Some(PathBuf::from(bank.folder.trim_end_matches('/'))));
    }
    match banks.into_iter().next() {
        Some(other) => Err(InitError::OtherBank(other)),
        None => Ok(None),
    }
}

fn create_bank(
    ctx: &WriteContext,
    project: &Path,
    format: InitFormat,
    bank_dir: &Path,
    brief: Option<&str>,
    stack: &Stack,
    today: NaiveDate,
) -> Result<InitReport> {
    let brief = brief
        .map(str::trim)
        .filter(|b| !b.is_empty())
        .map(Brief::parse);
    let bank = project.join(bank_dir);
    let folder = ProjectFolder::new(project);
    refuse_links_out(&folder, bank_dir)?;
    for sub in format.folders() {
        refuse_links_out(&folder, &bank_dir.join(sub))?;
    }
    let mut report = InitReport {
        bank: bank.clone(),
        ..InitReport::default()
    };
    ensure_folder(project, bank_dir, &mut report)?;
    for sub in format.folders() {
        ensure_folder(project, &bank_dir.join(sub), &mut report)?;
    }
    let project_name = project_name(project);
    let date = today.format("%Y-%m-%d").to_string();
    let fill = Fill {
        project_name: &project_name,
        brief: brief.as_ref(),
        stack,
        date: &date,
    };
    for (name, template) in format.templates() {
        let text = format.first_content(name, template, &fill);
        create_file(ctx, project, &bank_dir.join(name), &text, &mut report)?;
    }
    Ok(report)
}

/// Puts the agent's instructions where it reads them: a new file, or (when allowed) the
/// end of the file there; never twice.
fn install_instructions(
    ctx: &WriteContext,
    project: &Path,
    format: InitFormat,
    bank_dir: &Path,
    consent: InstructionsConsent,
) -> Result<InstructionsDone> {
    let rel = instructions::target(project, format);
    let shown = display(&rel, false);
    let folder = ProjectFolder::new(project);
    refuse_links_out(&folder, &rel)?;
    let files: Vec<&str> = format
        .templates()
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| !name.starts_with('.'))
        .collect();
    let text = instructions::text(format, &display(bank_dir, false), &files);
    let path = project.join(&rel);
    let current = match crate::io::text::read_text(&path) {
        Ok(current) => Some(current),
        Err(e) if crate::io::text::is_not_found(&e) => None,
        Err(e) => return Err(e),
    };
    let Some(current) = current else {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| CoreError::io(parent, e))?;
        }
        return match write_file(ctx, &path, None, &text) {
            Ok(()) => Ok(InstructionsDone::Created(shown)),
            Err(CoreError::Conflict { .. }) => Ok(InstructionsDone::LeftAlone(shown)),
            Err(e) => Err(e),
        };
    };
    if current.contains(instructions::MARKER) {
        return Ok(InstructionsDone::AlreadyThere(shown));
    }
    if consent != InstructionsConsent::MayChange {
        return Ok(InstructionsDone::LeftAlone(shown));
    }
    let separator = if current.is_empty() || current.ends_with("\n\n") {
        ""
    } else if current.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    };
    let joined = format!("{current}{separator}{text}");
    match write_file(ctx, &path, Some(&current), &joined) {
        Ok(()) => Ok(InstructionsDone::Added(shown)),
        // Changed meanwhile: someone else's edit wins, nothing is added.
        Err(CoreError::Conflict { .. }) => Ok(InstructionsDone::LeftAlone(shown)),
        Err(e) => Err(e),
    }
}

/// Writes `text` to `path` through the write pipeline: created when `replaced` is
/// `None`, else replacing exactly that text.
fn write_file(ctx: &WriteContext, path: &Path, replaced: Option<&str>, text: &str) -> Result<()> {
    let expected = match replaced {
        Some(old) => Expected::text(old),
        None => Expected::Missing,
    };
    write::apply(
        ctx,
        write::WriteRequest {
            key: &crate::history::key_of(path),
            target: Target::Path(path),
            replaced,
            expected,
            change: Change::Write(text),
        },
    )?;
    Ok(())
}

/// Refuses, before anything is written, a folder on the way from the project to `rel`
/// that is a symlink whose real location is outside the project (`memory-bank/` or
/// `.claude/` linked elsewhere): init would write the templates there. Folders that do
/// not exist yet are created as real folders; links inside the project are fine.
fn refuse_links_out(folder: &ProjectFolder<'_>, rel: &Path) -> Result<()> {
    let mut step = folder.path().to_path_buf();
    for part in rel.components() {
        step.push(part);
        match fs::symlink_metadata(&step) {
            Ok(meta) if meta.file_type().is_symlink() => {
                folder.require_inside(&step)?;
            }
            Ok(_) => {}
            Err(_) => return Ok(()),
        }
    }
    Ok(())
}

fn project_name(project: &Path) -> String {
    fs::canonicalize(project)
        .ok()
        .as_deref()
        .unwrap_or(project)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn display(rel: &Path, folder: bool) -> String {
    let mut shown = rel.to_string_lossy().replace('\\', "/");
    if folder {
        shown.push('/');
    }
    shown
}

fn ensure_folder(project: &Path, rel: &Path, report: &mut InitReport) -> Result<()> {
    let path = project.join(rel);
    if path.is_dir() {
        report.kept.push(display(rel, true));
        return Ok(());
    }
    fs::create_dir_all(&path).map_err(|e| CoreError::io(&path, e))?;
    report.created.push(display(rel, true));
    Ok(())
}

/// The name of a file in `dir` that stands for `name` (same name, case and separators
/// aside: `projectbrief.md`, `project-brief.md` for `projectBrief.md`).
fn same_name_in(dir: &Path, name: &str) -> Option<String> {
    let key = formats::names::name_key(name);
    let hidden = name.starts_with('.');
    fs::read_dir(dir).ok()?.flatten().find_map(|entry| {
        let found = entry.file_name().to_string_lossy().into_owned();
        (found.starts_with('.') == hidden && formats::names::name_key(&found) == key)
            .then_some(found)
    })
}

fn create_file(
    ctx: &WriteContext,
    project: &Path,
    rel: &Path,
    text: &str,
    report: &mut InitReport,
) -> Result<()> {
    let path = project.join(rel);
    if fs::symlink_metadata(&path).is_ok() {
        report.kept.push(display(rel, false));
        return Ok(());
    }
    if let (Some(parent), Some(name)) = (rel.parent(), rel.file_name())
        && let Some(found) = same_name_in(&project.join(parent), &name.to_string_lossy())
    {
        report.kept.push(display(&parent.join(found), false));
        return Ok(());
    }
    match write_file(ctx, &path, None, text) {
        Ok(()) => report.created.push(display(rel, false)),
        // Something appeared there meanwhile: it is someone's file, keep it.
        Err(CoreError::Conflict { .. }) => report.kept.push(display(rel, false)),
        Err(e) => return Err(e),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()
    }

    #[test]
    fn templates_carry_the_placeholders_init_fills() {
        let brief = CLINE_TEMPLATES[0].1;
        assert!(brief.contains(CLINE_NAME_PLACEHOLDER));
        assert!(brief.contains(CLINE_MISSION_PLACEHOLDER));
        assert!(
            CONKEEPER_TEMPLATES[1]
                .1
                .contains(CONKEEPER_OVERVIEW_PLACEHOLDER)
        );
        for (name, text) in CLINE_TEMPLATES.iter().chain(&CONKEEPER_TEMPLATES) {
            assert!(
                text.lines().any(|l| l.starts_with("# ")),
                "{name} has no heading"
            );
        }
    }

    #[test]
    fn cline_init_creates_seven_files_with_the_brief() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("weather");
        let report = init_bank_on(
            &project,
            InitFormat::Cline,
            Some("  A tiny weather API for hikers.  "),
            day(),
        )
        .unwrap();
        assert_eq!(report.created[0], "memory-bank/");
        assert_eq!(report.created.len(), 8);
        assert!(report.kept.is_empty());
        let brief = fs::read_to_string(project.join("memory-bank/projectBrief.md")).unwrap();
        assert!(brief.contains("## Project Name\nweather\n"), "{brief}");
        assert!(brief.contains("## Mission Statement\nA tiny weather API for hikers.\n"));
        assert!(!brief.contains(CLINE_MISSION_PLACEHOLDER));
        let progress = fs::read_to_string(project.join("memory-bank/progress.md")).unwrap();
        assert_eq!(progress, CLINE_TEMPLATES[5].1);
    }

    #[test]
    fn conkeeper_init_creates_files_folders_and_config() {
        let dir = tempfile::tempdir().unwrap();
        let report = init_bank_on(dir.path(), InitFormat::ConKeeper, None, day()).unwrap();
        assert_eq!(
            report.created,
            vec![
                ".claude/memory/",
                ".claude/memory/decisions/",
                ".claude/memory/sessions/",
                ".claude/memory/active-context.md",
                ".claude/memory/product-context.md",
                ".claude/memory/progress.md",
                ".claude/memory/patterns.md",
                ".claude/memory/glossary.md",
                ".claude/memory/.memory-config.md",
            ]
        );
        let memory = dir.path().join(".claude/memory");
        assert!(memory.join("decisions").is_dir() && memory.join("sessions").is_dir());
        let active = fs::read_to_string(memory.join("active-context.md")).unwrap();
        assert!(active.contains("*Session: 2026-11-22*"));
        let config = fs::read_to_string(memory.join(".memory-config.md")).unwrap();
        let fm = crate::markup::markdown::frontmatter(&config).unwrap();
        let yaml: serde_norway::Value = serde_norway::from_str(fm.yaml).unwrap();
        assert_eq!(yaml["token_budget"].as_str(), Some("standard"));
        assert_eq!(yaml["auto_sync_threshold"].as_u64(), Some(60));
    }

    #[test]
    fn existing_files_are_kept_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let bank = dir.path().join("memory-bank");
        fs::create_dir_all(&bank).unwrap();
        fs::write(bank.join("progress.md"), "# My progress\n- [x] shipped\n").unwrap();
        let report = init_bank_on(dir.path(), InitFormat::Cline, Some("brief"), day()).unwrap();
        assert_eq!(report.kept, vec!["memory-bank/", "memory-bank/progress.md"]);
        assert_eq!(report.created.len(), 6);
        assert_eq!(
            fs::read_to_string(bank.join("progress.md")).unwrap(),
            "# My progress\n- [x] shipped\n"
        );
        // A second run creates nothing and keeps everything.
        let again = init_bank_on(dir.path(), InitFormat::Cline, None, day()).unwrap();
        assert!(again.created.is_empty());
        assert_eq!(again.kept.len(), 8);
        let brief = fs::read_to_string(bank.join("projectBrief.md")).unwrap();
        assert!(brief.contains("## Mission Statement\nbrief\n"));
    }

    #[test]
    fn conkeeper_brief_goes_into_the_overview_and_a_file_path_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        init_bank_on(
            dir.path(),
            InitFormat::ConKeeper,
            Some("Habit tracker."),
            day(),
        )
        .unwrap();
        let product =
            fs::read_to_string(dir.path().join(".claude/memory/product-context.md")).unwrap();
        assert!(product.contains("## Project Overview\nHabit tracker.\n"));
        let file = dir.path().join("plain.txt");
        fs::write(&file, "x").unwrap();
        let err = init_bank_on(&file, InitFormat::Cline, None, day()).unwrap_err();
        assert!(matches!(err, CoreError::Io { .. }), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn bank_folders_linked_out_of_the_project_are_refused_before_any_write() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        fs::create_dir_all(out.join("memory")).unwrap();
        let cases = [
            ("cline", InitFormat::Cline, "memory-bank", out.clone()),
            ("claude", InitFormat::ConKeeper, ".claude", out.clone()),
            (
                "memory",
                InitFormat::ConKeeper,
                ".claude/memory",
                out.join("memory"),
            ),
        ];
        for (name, format, link, target) in cases {
            let project = dir.path().join(name);
            fs::create_dir_all(project.join(link).parent().unwrap()).unwrap();
            symlink(&target, project.join(link)).unwrap();
            let err = init_bank_on(&project, format, None, day()).unwrap_err();
            assert!(
                matches!(err, CoreError::NotConfined { .. }),
                "{name}: {err}"
            );
            assert!(
                err.to_string().contains("outside the project"),
                "{name}: {err}"
            );
            let written: Vec<_> = walk_files(&out);
            assert!(written.is_empty(), "{name} wrote {written:?}");
        }
        // ConKeeper's sub-folders too.
        let project = dir.path().join("sessions");
        fs::create_dir_all(project.join(".claude/memory")).unwrap();
        symlink(&out, project.join(".claude/memory/sessions")).unwrap();
        let err = init_bank_on(&project, InitFormat::ConKeeper, None, day()).unwrap_err();
        assert!(matches!(err, CoreError::NotConfined { .. }), "{err}");
        assert!(walk_files(&project.join(".claude/memory")).is_empty());
        assert!(walk_files(&out).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_bank_folder_linked_inside_the_project_is_used() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("docs/bank")).unwrap();
        std::os::unix::fs::symlink("docs/bank", dir.path().join("memory-bank")).unwrap();
        let report = init_bank_on(dir.path(), InitFormat::Cline, None, day()).unwrap();
        assert_eq!(report.created.len(), 7);
        assert!(dir.path().join("docs/bank/progress.md").is_file());
    }

    /// Every file below `dir`, links left out and never followed.
    fn walk_files(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for entry in fs::read_dir(dir).unwrap().flatten() {
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                out.extend(walk_files(&entry.path()));
            } else if !kind.is_symlink() {
                out.push(entry.path());
            }
        }
        out
    }
}
