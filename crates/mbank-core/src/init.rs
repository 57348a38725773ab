//! `mbank init`: a new Cline memory bank (the Cline memory bank spec) or ConKeeper memory (the ConKeeper schema)
//! from templates built into the binary.
//!
//! Existing files are never touched: every file is created through the guarded write
//! with [`Expected::Missing`], so a file that exists, or appears while init runs, is kept
//! (a symlink included: it is never written through). A bank folder that is a symlink
//! leading out of the project is refused before anything is written (see `confine`).
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::Serialize;

use crate::error::{CoreError, Result};
use crate::formats;
use crate::io::confine::ProjectFolder;
use crate::model::Format;
use crate::write::{Expected, write_guarded};

/// The memory formats `mbank init` can create.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum InitFormat {
    Cline,
    #[serde(rename = "conkeeper")]
    ConKeeper,
}

impl InitFormat {
    pub fn format(self) -> Format {
        match self {
            InitFormat::Cline => Format::Cline,
            InitFormat::ConKeeper => Format::ConKeeper,
        }
    }

    /// The bank folder, relative to the project.
    pub fn bank_dir(self) -> &'static str {
        match self {
            InitFormat::Cline => formats::cline::BANK_DIR,
            InitFormat::ConKeeper => formats::conkeeper::BANK_DIR,
        }
    }
}

/// Cline's seven core files in read order (the Cline memory bank spec).
pub(crate) use crate::formats::cline::TEMPLATES as CLINE_TEMPLATES;
/// ConKeeper's folders, which must exist even when empty.
pub(crate) use crate::formats::conkeeper::FOLDERS as CONKEEPER_FOLDERS;
/// ConKeeper's files; the configuration is written as `.memory-config.md`.
pub(crate) use crate::formats::conkeeper::TEMPLATES as CONKEEPER_TEMPLATES;

/// The placeholder lines `--brief` and the project name replace.
const CLINE_NAME_PLACEHOLDER: &str = "[Project name]";
const CLINE_MISSION_PLACEHOLDER: &str = "[One paragraph: what this project is and why it exists]";
const CONKEEPER_OVERVIEW_PLACEHOLDER: &str =
    "<!-- What the project is and the problem it solves, in two or three sentences. -->";
/// ConKeeper footers carry a date; init writes the day the bank was made.
const DATE_PLACEHOLDER: &str = "YYYY-MM-DD";

/// What `init` did, with paths relative to the project; folders end with `/`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct InitReport {
    /// The bank folder.
    pub bank: PathBuf,
    pub created: Vec<String>,
    /// Files and folders that already existed and were left as they were.
    pub kept: Vec<String>,
}

/// Creates a bank in `project` (created if missing), today's date in the templates.
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
    let brief = brief.map(str::trim).filter(|b| !b.is_empty());
    if project.exists() && !project.is_dir() {
        return Err(CoreError::io(
            project,
            io::Error::new(io::ErrorKind::NotADirectory, "is a file, not a folder"),
        ));
    }
    let bank = project.join(format.bank_dir());
    let folder = ProjectFolder::new(project);
    refuse_links_out(&folder, Path::new(format.bank_dir()))?;
    if format == InitFormat::ConKeeper {
        for sub in CONKEEPER_FOLDERS {
            refuse_links_out(&folder, &Path::new(format.bank_dir()).join(sub))?;
        }
    }
    let mut report = InitReport {
        bank: bank.clone(),
        ..InitReport::default()
    };
    ensure_folder(project, Path::new(format.bank_dir()), &mut report)?;
    let project_name = project_name(project);
    match format {
        InitFormat::Cline => {
            for (name, template) in CLINE_TEMPLATES {
                let text = if name == "projectBrief.md" {
                    fill_brief(template, &project_name, brief)
                } else {
                    template.to_string()
                };
                create_file(
                    project,
                    &Path::new(format.bank_dir()).join(name),
                    &text,
                    &mut report,
                )?;
            }
        }
        InitFormat::ConKeeper => {
            for folder in CONKEEPER_FOLDERS {
                ensure_folder(
                    project,
                    &Path::new(format.bank_dir()).join(folder),
                    &mut report,
                )?;
            }
            let date = today.format("%Y-%m-%d").to_string();
            for (name, template) in CONKEEPER_TEMPLATES {
                let mut text = template.replace(DATE_PLACEHOLDER, &date);
                if name == "product-context.md"
                    && let Some(brief) = brief
                {
                    text = text.replacen(CONKEEPER_OVERVIEW_PLACEHOLDER, brief, 1);
                }
                create_file(
                    project,
                    &Path::new(format.bank_dir()).join(name),
                    &text,
                    &mut report,
                )?;
            }
        }
    }
    Ok(report)
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

/// Puts the project's name and, when given, the brief into projectBrief.md (the Cline memory bank spec
/// step 3a of its set-up); without a brief the mission stays a placeholder to fill in.
fn fill_brief(template: &str, project_name: &str, brief: Option<&str>) -> String {
    let mut text = template.to_string();
    if !project_name.is_empty() {
        text = text.replacen(CLINE_NAME_PLACEHOLDER, project_name, 1);
    }
    if let Some(brief) = brief {
        text = text.replacen(CLINE_MISSION_PLACEHOLDER, brief, 1);
    }
    text
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

fn create_file(project: &Path, rel: &Path, text: &str, report: &mut InitReport) -> Result<()> {
    let path = project.join(rel);
    if fs::symlink_metadata(&path).is_ok() {
        report.kept.push(display(rel, false));
        return Ok(());
    }
    match write_guarded(&path, text, Expected::Missing) {
        Ok(_) => report.created.push(display(rel, false)),
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
