//! `mbank adr new TITLE`: the next architecture decision record of a project, numbered
//! after the highest one in its folder and written from the template that folder uses.
//!
//! Folders, in the order one is chosen: ConKeeper's `decisions/` (its bank in `.claude/`
//! or `.ai/`), then `docs/adr/`, `doc/adr/` and `docs/decisions/`. ConKeeper's records are
//! `ADR-NNN-kebab-title.md` with the schema's template; elsewhere the numbers take the
//! width and prefix the folder's records already have (adr-tools' `0001-title.md` when it
//! has none), and the template is MADR's when the folder's records are MADR (or the folder
//! is `docs/decisions/`, MADR's default) and Michael Nygard's otherwise.
use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use crate::error::CoreError;
pub use crate::formats::adr_records::folders_in_words;
use crate::formats::adr_records::{MADR_FOLDER, READ_FOLDERS};
use crate::formats::conkeeper;
use crate::io::dir_handle::Dir;
use crate::write::{self, Change, Expected, Target, WriteContext};

/// How far init looks for a free number when records appear while it writes.
const ATTEMPTS: u32 = 20;

/// The template a folder's records follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Template {
    /// The ConKeeper schema's ADR.
    ConKeeper,
    /// Markdown Architectural Decision Records.
    Madr,
    /// Michael Nygard's: Status, Context, Decision, Consequences.
    Nygard,
}

/// An ADR folder of a project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdrFolder {
    /// Relative to the project, `/`-separated.
    pub rel: String,
    pub template: Template,
}

/// The record written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAdr {
    pub path: PathBuf,
    pub number: u32,
}

/// Why no record was written.
#[derive(Debug, thiserror::Error)]
pub enum AdrError {
    #[error(
        "no ADR folder in {0}: mbank writes records into ConKeeper's decisions/ folder, \
         {folders}; create one of them (or a ConKeeper bank with `mbank init --format \
         conkeeper`)",
        folders = folders_in_words()
    )]
    NoFolder(String),
    #[error("the title is empty")]
    EmptyTitle,
    #[error(transparent)]
    Core(#[from] CoreError),
}

/// How much of an existing record is read to tell its template.
const RECORD_BYTES: u64 = 1 << 20;

/// The project's ADR folders that exist, in the order one is chosen.
pub fn folders(project: &Path) -> Vec<AdrFolder> {
    let mut found = Vec::new();
    for container in ["claude", "ai"] {
        let rel = format!(".{container}/{}/decisions", conkeeper::FOLDER);
        if project.join(&rel).is_dir() {
            found.push(AdrFolder {
                rel,
                template: Template::ConKeeper,
            });
        }
    }
    for rel in READ_FOLDERS {
        let dir = project.join(rel);
        if dir.is_dir() {
            found.push(AdrFolder {
                rel: rel.to_string(),
                template: template_of(project, rel),
            });
        }
    }
    found
}

/// MADR when the folder's records are MADR, or it is MADR's own default folder and
/// holds none; Nygard's otherwise.
fn template_of(project: &Path, rel: &str) -> Template {
    let folder = open_folder(project, rel);
    let records = folder.as_ref().map(records).unwrap_or_default();
    if records.is_empty() {
        return if rel == MADR_FOLDER {
            Template::Madr
        } else {
            Template::Nygard
        };
    }
    let madr = records.iter().any(|(_, name)| {
        let read = folder
            .as_ref()
            .and_then(|f| f.read(Path::new(name), RECORD_BYTES).ok().flatten());
        read.is_some_and(|file| {
            let text = String::from_utf8_lossy(&file.bytes);
            text.contains("## Considered Options")
                || text.contains("## Context and Problem Statement")
                || text.contains("## Decision Outcome")
        })
    });
    if madr {
        Template::Madr
    } else {
        Template::Nygard
    }
}

/// The ADR folder `rel` of `project`, opened with no link followed below the project.
fn open_folder(project: &Path, rel: &str) -> Option<Dir> {
    Dir::open_anchor(project)
        .ok()?
        .open_dir(Path::new(rel))
        .ok()
}

/// The numbered records of a folder: (number, file name).
fn records(folder: &Dir) -> Vec<(u32, String)> {
    let Ok(names) = folder.names() else {
        return Vec::new();
    };
    names
        .into_iter()
        .filter_map(|name| {
            let name = name.to_string_lossy().into_owned();
            let (_, digits) = split_number(&name)?;
            let number = digits.parse().ok()?;
            Some((number, name))
        })
        .collect()
}

/// `ADR-007-cache.md` → (`ADR-`, `007`); `0012-title.md` → (``, `0012`).
fn split_number(name: &str) -> Option<(&str, &str)> {
    if !name.to_ascii_lowercase().ends_with(".md") {
        return None;
    }
    let start = name.find(|c: char| c.is_ascii_digit())?;
    let prefix = &name[..start];
    if !(prefix.is_empty()
        || prefix.eq_ignore_ascii_case("adr-")
        || prefix.eq_ignore_ascii_case("adr_"))
    {
        return None;
    }
    let digits_len = name[start..]
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(name.len() - start);
    let digits = &name[start..start + digits_len];
    let after = &name[start + digits_len..];
    (after.starts_with(['-', '_', '.'])).then_some((prefix, digits))
}

/// `Use PostgreSQL for events!` → `use-postgresql-for-events`.
pub fn slug(title: &str) -> String {
    let mut slug = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    slug.trim_end_matches('-').to_string()
}

/// The next record's file name in the project's ADR folder: its number, then the name.
fn next_name(project: &Path, folder: &AdrFolder, title: &str, skip: u32) -> (u32, String) {
    let records = open_folder(project, &folder.rel)
        .as_ref()
        .map(records)
        .unwrap_or_default();
    let highest = records.iter().map(|(n, _)| *n).max().unwrap_or(0);
    let number = highest + 1 + skip;
    let (prefix, width) = match folder.template {
        Template::ConKeeper => ("ADR-".to_string(), 3),
        _ => records
            .iter()
            .max_by_key(|(n, _)| *n)
            .and_then(|(_, name)| split_number(name))
            .map(|(prefix, digits)| (prefix.to_string(), digits.len()))
            .unwrap_or((String::new(), 4)),
    };
    let slug = slug(title);
    let name = if slug.is_empty() {
        format!("{prefix}{number:0width$}.md")
    } else {
        format!("{prefix}{number:0width$}-{slug}.md")
    };
    (number, name)
}

/// The record's text.
pub fn text(template: Template, number: u32, title: &str, date: &str) -> String {
    match template {
        Template::ConKeeper => format!(
            "# ADR-{number:03}: {title}\n\n\
             **Status:** Proposed\n\
             **Date:** {date}\n\
             **Tags:** \n\n\
             ## Context\n<!-- Why a decision was needed, in one to three sentences. -->\n\n\
             ## Decision\n<!-- What was decided, as a clear instruction. -->\n\n\
             ## Rationale\n- <!-- A reason -->\n\n\
             ## Consequences\n- Positive: <!-- what it makes possible -->\n\
             - Negative: <!-- the trade-off accepted -->\n\
             - Neutral: <!-- other effects -->\n\n\
             ## Alternatives Considered\n- <!-- An option, and why it lost -->\n"
        ),
        Template::Madr => format!(
            "---\nstatus: proposed\ndate: {date}\n---\n\n\
             # {title}\n\n\
             ## Context and Problem Statement\n\n[The situation, and the question to answer]\n\n\
             ## Considered Options\n\n* [Option 1]\n* [Option 2]\n\n\
             ## Decision Outcome\n\nChosen option: \"[Option]\", because [reason].\n\n\
             ### Consequences\n\n* Good, because [what it makes possible]\n\
             * Bad, because [what it costs]\n"
        ),
        Template::Nygard => format!(
            "# {number}. {title}\n\n\
             Date: {date}\n\n\
             ## Status\n\nProposed\n\n\
             ## Context\n\n[The forces at play, and why a decision is needed]\n\n\
             ## Decision\n\n[What we will do]\n\n\
             ## Consequences\n\n[What becomes easier or harder because of it]\n"
        ),
    }
}

/// Writes the next record titled `title` into `folder` (or the project's first ADR
/// folder), through `ctx`. A record that appears meanwhile under the same name is kept:
/// the next number is taken instead.
pub fn new_adr(
    project: &Path,
    folder: Option<&AdrFolder>,
    title: &str,
    today: NaiveDate,
    ctx: &WriteContext,
) -> std::result::Result<NewAdr, AdrError> {
    let title = title.trim();
    if title.is_empty() {
        return Err(AdrError::EmptyTitle);
    }
    let folder = match folder {
        Some(folder) => folder.clone(),
        None => folders(project)
            .into_iter()
            .next()
            .ok_or_else(|| AdrError::NoFolder(project.display().to_string()))?,
    };
    let dir = project.join(&folder.rel);
    crate::io::confine::ProjectFolder::new(project).require_inside(&dir)?;
    let date = today.format("%Y-%m-%d").to_string();
    for skip in 0..ATTEMPTS {
        let (number, name) = next_name(project, &folder, title, skip);
        let path = dir.join(&name);
        let body = text(folder.template, number, title, &date);
        let written = write::apply(
            ctx,
            write::WriteRequest {
                key: &crate::history::key_of(&path),
                target: Target::Path(&path),
                replaced: None,
                expected: Expected::Missing,
                change: Change::Write(&body),
            },
        );
        match written {
            Ok(_) => return Ok(NewAdr { path, number }),
            Err(CoreError::Conflict { .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(AdrError::Core(CoreError::Conflict { path: dir }))
}

/// A folder named on the command line, relative to the project: its template as
/// [`folders`] would judge it.
pub fn folder_at(project: &Path, rel: &str) -> AdrFolder {
    let rel = rel.trim_end_matches('/').to_string();
    let template = if Path::new(&rel).ends_with("memory/decisions") {
        Template::ConKeeper
    } else {
        template_of(project, &rel)
    };
    AdrFolder { rel, template }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn a_folder_that_is_a_link_out_is_never_listed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("0041-elsewhere.md"), "# 41. Elsewhere\n").unwrap();
        let project = dir.path().join("app");
        fs::create_dir_all(project.join("docs")).unwrap();
        std::os::unix::fs::symlink(&outside, project.join("docs/adr")).unwrap();
        assert!(open_folder(&project, "docs/adr").is_none());
        fs::create_dir_all(project.join("doc/adr")).unwrap();
        fs::write(project.join("doc/adr/0003-here.md"), "# 3. Here\n").unwrap();
        let folder = open_folder(&project, "doc/adr").unwrap();
        assert_eq!(records(&folder), [(3, "0003-here.md".to_string())]);
    }

    fn day() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()
    }

    fn ctx() -> WriteContext {
        WriteContext::new("adr", crate::clock::Clock::system())
    }

    #[test]
    fn numbers_follow_the_highest_with_the_folders_width_and_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let adr = dir.path().join("docs/adr");
        fs::create_dir_all(&adr).unwrap();
        fs::write(
            adr.join("0001-record-decisions.md"),
            "# 1. Record\n## Status\n",
        )
        .unwrap();
        fs::write(adr.join("0007-use-sqlite.md"), "# 7. SQLite\n").unwrap();
        fs::write(adr.join("README.md"), "index\n").unwrap();
        let made = new_adr(dir.path(), None, "Use Postgres, not SQLite!", day(), &ctx()).unwrap();
        assert_eq!(made.number, 8);
        assert_eq!(made.path, adr.join("0008-use-postgres-not-sqlite.md"));
        let text = fs::read_to_string(&made.path).unwrap();
        assert!(text.starts_with("# 8. Use Postgres, not SQLite!\n\nDate: 2026-11-22\n"));
        assert!(text.contains("## Status\n\nProposed\n"));
    }

    #[test]
    fn conkeeper_records_use_the_schema_and_madr_folders_stay_madr() {
        let dir = tempfile::tempdir().unwrap();
        let decisions = dir.path().join(".claude/memory/decisions");
        fs::create_dir_all(&decisions).unwrap();
        fs::write(decisions.join("ADR-002-cache.md"), "# ADR-002: Cache\n").unwrap();
        let made = new_adr(dir.path(), None, "Split the API", day(), &ctx()).unwrap();
        assert_eq!(made.path, decisions.join("ADR-003-split-the-api.md"));
        let text = fs::read_to_string(&made.path).unwrap();
        assert!(text.starts_with(
            "# ADR-003: Split the API\n\n**Status:** Proposed\n**Date:** 2026-11-22\n"
        ));
        assert!(text.contains("## Alternatives Considered\n"));

        let madr = dir.path().join("docs/decisions");
        fs::create_dir_all(&madr).unwrap();
        let folder = folder_at(dir.path(), "docs/decisions");
        assert_eq!(folder.template, Template::Madr);
        let made = new_adr(dir.path(), Some(&folder), "Pick a queue", day(), &ctx()).unwrap();
        assert_eq!(made.path, madr.join("0001-pick-a-queue.md"));
        assert!(
            fs::read_to_string(&made.path)
                .unwrap()
                .contains("## Considered Options")
        );
    }

    #[test]
    fn no_folder_and_an_empty_title_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            new_adr(dir.path(), None, "X", day(), &ctx()),
            Err(AdrError::NoFolder(_))
        ));
        fs::create_dir_all(dir.path().join("doc/adr")).unwrap();
        assert!(matches!(
            new_adr(dir.path(), None, "  ", day(), &ctx()),
            Err(AdrError::EmptyTitle)
        ));
        assert_eq!(split_number("ADR-12-x.md"), Some(("ADR-", "12")));
        assert_eq!(split_number("notes-1.md"), None);
        assert_eq!(slug("  Ünïcode & co  "), "ünïcode-co");
    }
}
