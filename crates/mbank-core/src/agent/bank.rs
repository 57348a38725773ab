//! A project's `memory-bank/` as agents see it through the servers: read with a version,
//! list, write (create / update / either), delete, and the dated entries of the Memory
//! Bank MCP tools. Every write takes the folder lock, re-reads the file under it, checks
//! `expectedVersion` and the guard rules, and goes through `write::write_in`. Files are
//! opened relative to the bank folder's handle, never by a path looked up again.
use std::cell::RefCell;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chrono::NaiveDateTime;
use serde::Serialize;

pub use super::WriteReport;
use super::batch;
use super::entries::{self, DecisionFormat, NewDecision};
use super::{AgentError, AgentResult};
use crate::agent::proposals::{Change, EntryEdit, NewProposal, ProposalError, ProposalStore};
use crate::analysis::decisions;
use crate::error::CoreError;
use crate::formats;
use crate::guard::{self, GuardPolicy, TextPart};
use crate::history;
use crate::init::{self, InitFormat, InitReport};
use crate::io::dir_handle::Dir;
use crate::io::lock;
use crate::model::{Bank, BankLocation, Format, Project, Role};
use crate::scan::discovery;
use crate::write::{self, Expected, HandleRead};

/// A file as a read returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRead {
    pub content: String,
    /// [`guard::content_version`] of `content`: pass it back as `expectedVersion`.
    pub version: String,
    pub modified: Option<SystemTime>,
}

/// A file as a listing shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileInfo {
    /// Relative to the bank folder, `/`-separated.
    pub name: String,
    pub size: u64,
    #[serde(skip)]
    pub modified: Option<SystemTime>,
}

/// What a write must find on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMode {
    /// The file must not exist (`memory_bank_write`).
    Create,
    /// The file must exist (`memory_bank_update`).
    Update,
    /// Either (`write_memory_bank_file`, `POST /memory-bank/file`).
    Upsert,
}

/// The bank folders the memory-bank tools serve, in order of preference.
const BANK_FOLDERS: [&str; 3] = formats::cline::SERVED_FOLDERS;

/// The sub-folder agents archive completed progress into (the Cline spec), created on
/// the first write into it.
const ARCHIVE_FOLDER: &str = formats::cline::ARCHIVE_DIR;

/// Where an entry goes when the format names no file for its role.
const NOTES_FILE: &str = "notes.md";

/// One project's memory bank.
#[derive(Debug, Clone)]
pub struct MarkdownBank {
    pub project: Project,
    pub format: Format,
    /// The bank folder (as discovered, inside the project).
    pub root: PathBuf,
    /// Where writes are staged as proposals instead of written (`None`: written).
    pub staging: Option<ProposalStore>,
}

fn has_md_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("md"))
}

fn core_error(name: &str, error: CoreError) -> AgentError {
    match error {
        CoreError::Confined { reason, .. } => AgentError::Forbidden {
            name: name.to_string(),
            reason,
        },
        CoreError::Conflict { .. } => AgentError::Conflict {
            name: name.to_string(),
        },
        other => AgentError::Core(other),
    }
}

/// A bank file located for I/O: the folder holding it, opened from the project folder
/// with no symlink followed, and its name in that folder.
struct Located {
    dir: Dir,
    file: String,
}

impl Located {
    /// The file's text, identity and metadata (`None`: nothing there).
    fn read(&self, name: &str) -> AgentResult<Option<HandleRead>> {
        write::read_text_in(&self.dir, Path::new(&self.file)).map_err(|e| core_error(name, e))
    }

    /// Records what the file holds now in the history (writer: the one named on this
    /// thread), before a write replaces or removes it. `real` is the file's real path as
    /// [`MarkdownBank::resolve`] gave it: the key of its history.
    fn record(&self, name: &str, real: &Path, current: Option<&HandleRead>) -> AgentResult<()> {
        match current {
            Some(current) => {
                history::record_replaced_resolved(real, &current.text, &history::current_writer())
                    .map_err(|e| core_error(name, e))
            }
            None => Ok(()),
        }
    }

    /// Writes `content` if the file is still `current` (the same file, same text).
    fn commit(
        &self,
        name: &str,
        real: &Path,
        current: Option<&HandleRead>,
        content: &str,
    ) -> AgentResult<WriteReport> {
        self.record(name, real, current)?;
        let expected = current.map_or(Expected::Missing, HandleRead::expected);
        let outcome = write::write_in(
            &self.dir,
            &self.file,
            content,
            expected,
            current.map(|c| c.id),
        )
        .map_err(|e| core_error(name, e))?;
        // One SHA-256 for the agent's version and the history's next record.
        let hash = history::content_hash(content);
        history::remember_written(real, content, &hash);
        Ok(WriteReport {
            path: outcome.path,
            name: name.to_string(),
            created: outcome.created,
            version: hash[..32].to_string(),
            proposal: None,
        })
    }
}

/// Creates a Cline memory bank in `project_dir` (the Cline memory bank spec) through `core::init`,
/// which never overwrites a file. The brief becomes `projectBrief.md`, so it passes the
/// secret rule first.
pub fn initialize(
    policy: &GuardPolicy,
    project_dir: &Path,
    brief: Option<&str>,
) -> AgentResult<InitReport> {
    if let Some(brief) = brief {
        guard::check_text(policy, "projectBrief.md", TextPart::Brief, brief)?;
    }
    init::init_bank(project_dir, InitFormat::Cline, brief).map_err(AgentError::Core)
}

impl MarkdownBank {
    /// The memory bank of the project at `project_dir` (`NotInitialized` without one).
    pub fn open(project_dir: &Path) -> AgentResult<MarkdownBank> {
        let name = project_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| project_dir.display().to_string());
        let not_initialized = || AgentError::NotInitialized {
            project: project_dir.to_path_buf(),
        };
        let project = discovery::project_at(project_dir, name).ok_or_else(not_initialized)?;
        let location = BANK_FOLDERS
            .iter()
            .find_map(|folder| {
                let root = project_dir.join(folder);
                project
                    .banks
                    .iter()
                    .find(|b| b.root == root && formats::rules(b.format).serves_memory_bank_tools())
            })
            .cloned()
            .ok_or_else(not_initialized)?;
        Ok(MarkdownBank {
            format: location.format,
            root: location.root,
            project,
            staging: None,
        })
    }

    /// This bank with its writes staged into `store` (`None`: written).
    pub fn with_staging(mut self, store: Option<ProposalStore>) -> MarkdownBank {
        self.staging = store;
        self
    }

    /// Stages a write as a proposal (the bank stages writes): the file is not touched.
    fn stage(
        &self,
        name: &str,
        path: &Path,
        store: &ProposalStore,
        current: Option<&str>,
        proposed: Option<String>,
        change: Change,
    ) -> AgentResult<WriteReport> {
        let proposal = store
            .stage(NewProposal {
                project: self.project.path.clone(),
                file: name.to_string(),
                path: path.to_path_buf(),
                via: history::current_writer(),
                base: current.map(str::to_string),
                proposed,
                change,
            })
            .map_err(|e| match e {
                ProposalError::Full(message) => AgentError::ProposalLimit(message),
                ProposalError::Agent(e) => e,
                ProposalError::Core(e) => core_error(name, e),
                other => AgentError::Storage(other.to_string()),
            })?;
        Ok(WriteReport {
            path: path.to_path_buf(),
            name: name.to_string(),
            created: false,
            version: current.map(guard::content_version).unwrap_or_default(),
            proposal: Some(proposal.id),
        })
    }

    fn bank(&self, listed: bool) -> Bank {
        if listed {
            let location = BankLocation {
                format: self.format,
                root: self.root.clone(),
            };
            crate::scan::bank::list_bank(&self.project, &location)
        } else {
            Bank {
                format: self.format,
                root: self.root.clone(),
                files: Vec::new(),
                project_id: None,
                modes: Vec::new(),
                problems: Vec::new(),
                outside: Vec::new(),
            }
        }
    }

    /// The real path `name` may be read from or written to, confined to the bank
    /// (`write::resolve_target`), and the file's role. The path names the file in
    /// messages and keys; reads and writes go through `Self::locate`, never this path.
    pub fn resolve(&self, name: &str) -> AgentResult<(PathBuf, Role)> {
        self.resolve_rel(name).map(|(path, _, role)| (path, role))
    }

    /// [`Self::resolve`], with the name's clean bank-relative path.
    fn resolve_rel(&self, name: &str) -> AgentResult<(PathBuf, PathBuf, Role)> {
        let rel = write::validate_name(name).map_err(|e| core_error(name, e))?;
        if !has_md_extension(&rel) {
            return Err(AgentError::InvalidFormat {
                name: name.to_string(),
            });
        }
        // Files directly in the bank resolve without a listing (the hot path); deeper
        // ones must be files the listing shows.
        let nested = rel.components().count() > 1;
        let path =
            write::resolve_target(&self.bank(nested), name).map_err(|e| core_error(name, e))?;
        let role = formats::place(self.format, &rel).role;
        Ok((path, rel, role))
    }

    /// The bank folder, opened from the project folder (the anchor) with no symlink
    /// followed: a `memory-bank/` swapped for a link is refused, and one renamed away
    /// after this keeps being the folder written to.
    fn open_root(&self, name: &str) -> AgentResult<Dir> {
        let project = Dir::open_anchor(&self.project.path)
            .map_err(|e| AgentError::Core(CoreError::from(e)))?;
        match self.root.strip_prefix(&self.project.path) {
            Ok(rel) if !rel.as_os_str().is_empty() => project
                .open_dir(rel)
                .map_err(|e| core_error(name, CoreError::from(e))),
            _ => Ok(project),
        }
    }

    /// Opens the folder holding the bank-relative `rel` (every step without following
    /// a link).
    fn locate(&self, name: &str, rel: &Path) -> AgentResult<Located> {
        let root = self.open_root(name)?;
        let file = rel
            .file_name()
            .and_then(|f| f.to_str())
            .ok_or_else(|| AgentError::InvalidRequest(format!("{name:?} does not name a file")))?
            .to_string();
        let dir = match rel.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(folder) => root
                .open_dir(folder)
                .map_err(|e| core_error(name, e.into()))?,
            None => root,
        };
        Ok(Located { dir, file })
    }

    /// The metadata of `name` as it is now (`None`: nothing there, or not a regular
    /// file reached without a link). Checks the name's spelling only: for callers that
    /// [`resolve`](Self::resolve) it too.
    pub fn stat(&self, name: &str) -> Option<fs::Metadata> {
        let rel = write::validate_name(name).ok()?;
        let located = self.locate(name, &rel).ok()?;
        located
            .dir
            .file_meta(Path::new(&located.file))
            .ok()
            .flatten()
    }

    /// Reads `name`.
    pub fn read(&self, name: &str) -> AgentResult<FileRead> {
        let (_, rel, _) = self.resolve_rel(name)?;
        let Some(read) = self.locate(name, &rel)?.read(name)? else {
            return Err(AgentError::FileNotFound {
                name: name.to_string(),
            });
        };
        Ok(FileRead {
            version: guard::content_version(&read.text),
            modified: read.meta.modified().ok(),
            content: read.text,
        })
    }

    /// Every markdown file of the bank, in the format's read order.
    pub fn list(&self) -> Vec<FileInfo> {
        let bank = self.bank(true);
        bank.files
            .iter()
            .filter(|f| !f.is_virtual() && has_md_extension(&f.path))
            .filter_map(|f| {
                let rel = f.path.strip_prefix(&self.root).ok()?;
                Some(FileInfo {
                    name: rel.to_string_lossy().replace('\\', "/"),
                    size: f.size,
                    modified: f.modified,
                })
            })
            .collect()
    }

    /// Writes `content` to `name` under the lock, after `mode`, `expected_version` and the
    /// guard rules.
    pub fn write(
        &self,
        policy: &GuardPolicy,
        name: &str,
        content: &str,
        mode: WriteMode,
        expected_version: Option<&str>,
    ) -> AgentResult<WriteReport> {
        // Before anything echoes the name: it is listed to every agent.
        guard::check_text(policy, "a file to write", TextPart::FileName, name)?;
        let archive = self.create_archive_folder(name)?;
        let written = self.write_resolved(policy, name, content, mode, expected_version);
        if let (Err(_), Some(root)) = (&written, archive) {
            // A refused first write leaves no empty folder behind (fails if not empty).
            let _ = root.remove_dir(std::ffi::OsStr::new(ARCHIVE_FOLDER));
        }
        written
    }

    /// Creates the bank's `archive/` folder (through the bank folder's handle, no link
    /// followed) when `name` is a file in it and it is missing: the Cline spec has agents
    /// archive completed progress there. The bank folder's handle when it was created.
    fn create_archive_folder(&self, name: &str) -> AgentResult<Option<Dir>> {
        let Ok(rel) = write::validate_name(name) else {
            return Ok(None);
        };
        let in_archive = rel
            .parent()
            .is_some_and(|folder| folder == Path::new(ARCHIVE_FOLDER));
        if !in_archive || !formats::rules(self.format).serves_memory_bank_tools() {
            return Ok(None);
        }
        let root = self.open_root(name)?;
        if root
            .entry_meta(std::ffi::OsStr::new(ARCHIVE_FOLDER))
            .map_err(|e| core_error(name, e.into()))?
            .is_some()
        {
            return Ok(None);
        }
        root.create_dir(ARCHIVE_FOLDER, 0o755)
            .map_err(|e| core_error(name, e.into()))?;
        Ok(Some(root))
    }

    fn write_resolved(
        &self,
        policy: &GuardPolicy,
        name: &str,
        content: &str,
        mode: WriteMode,
        expected_version: Option<&str>,
    ) -> AgentResult<WriteReport> {
        let (path, rel, role) = self.resolve_rel(name)?;
        let _lock = lock::for_file(&path).map_err(AgentError::Core)?;
        let located = self.locate(name, &rel)?;
        let current = located.read(name)?;
        let current_text = current.as_ref().map(|c| c.text.as_str());
        match (mode, &current) {
            (WriteMode::Create, Some(_)) => {
                return Err(AgentError::FileExists {
                    name: name.to_string(),
                });
            }
            (WriteMode::Update, None) => {
                return Err(AgentError::FileNotFound {
                    name: name.to_string(),
                });
            }
            _ => {}
        }
        guard::check_version(policy, name, current_text, expected_version)?;
        guard::check_replace(policy, name, &path, role, current_text, content)?;
        if let Some(store) = &self.staging {
            let proposed = Some(content.to_string());
            return self.stage(name, &path, store, current_text, proposed, Change::Replace);
        }
        located.commit(name, &path, current.as_ref(), content)
    }

    /// Deletes `name` (the Memory Bank MCP spec `DELETE /memory-bank/file`): a decision log with entries
    /// is refused by the append-only rule. Returns the proposal the deletion was staged as
    /// when the bank stages writes (`None`: the file is gone).
    pub fn delete(
        &self,
        policy: &GuardPolicy,
        name: &str,
        expected_version: Option<&str>,
    ) -> AgentResult<Option<u64>> {
        let (path, rel, role) = self.resolve_rel(name)?;
        let _lock = lock::for_file(&path).map_err(AgentError::Core)?;
        let located = self.locate(name, &rel)?;
        let Some(current) = located.read(name)? else {
            return Err(AgentError::FileNotFound {
                name: name.to_string(),
            });
        };
        guard::check_version(policy, name, Some(&current.text), expected_version)?;
        guard::check_removal(policy, name, &path, role, &current.text)?;
        if let Some(store) = &self.staging {
            let staged = self.stage(
                name,
                &path,
                store,
                Some(&current.text),
                None,
                Change::Delete,
            )?;
            return Ok(staged.proposal);
        }
        located.record(name, &path, Some(&current))?;
        write::remove_in(
            &located.dir,
            &located.file,
            current.expected(),
            Some(current.id),
        )
        .map_err(|e| core_error(name, e))?;
        Ok(None)
    }

    /// Changes `name` under the folder lock to what `change` makes of its current text
    /// (`None` in: no file; `None` out: remove it), through the guard rules and the
    /// history like every write, never staged: how an accepted proposal lands.
    pub fn apply_change<E: From<AgentError>>(
        &self,
        policy: &GuardPolicy,
        name: &str,
        change: impl FnOnce(Option<&str>) -> Result<Option<String>, E>,
    ) -> Result<WriteReport, E> {
        let (path, rel, role) = self.resolve_rel(name)?;
        let _lock = lock::for_file(&path).map_err(AgentError::Core)?;
        let located = self.locate(name, &rel)?;
        let current = located.read(name)?;
        let current_text = current.as_ref().map(|c| c.text.as_str());
        match change(current_text)? {
            Some(text) => {
                guard::check_replace(policy, name, &path, role, current_text, &text)
                    .map_err(AgentError::from)?;
                Ok(located.commit(name, &path, current.as_ref(), &text)?)
            }
            None => {
                let Some(current) = current else {
                    return Err(AgentError::FileNotFound {
                        name: name.to_string(),
                    }
                    .into());
                };
                guard::check_removal(policy, name, &path, role, &current.text)
                    .map_err(AgentError::from)?;
                located.record(name, &path, Some(&current))?;
                write::remove_in(
                    &located.dir,
                    &located.file,
                    current.expected(),
                    Some(current.id),
                )
                .map_err(|e| core_error(name, e))?;
                Ok(WriteReport {
                    path,
                    name: name.to_string(),
                    created: false,
                    version: String::new(),
                    proposal: None,
                })
            }
        }
    }

    /// The file of `role` in the bank, or the name a new one gets in this format.
    pub fn file_for(&self, role: Role) -> String {
        let existing = self.open_root(".").ok().and_then(|root| {
            let mut names: Vec<String> = root
                .names()
                .ok()?
                .into_iter()
                .filter_map(|n| n.into_string().ok())
                .filter(|n| {
                    has_md_extension(Path::new(n)) && formats::role_for_name(n) == Some(role)
                })
                .collect();
            names.sort();
            names.into_iter().next()
        });
        existing.unwrap_or_else(|| {
            formats::rules(self.format)
                .entry_file(role)
                .unwrap_or(NOTES_FILE)
                .to_string()
        })
    }

    /// Applies `edit` to the file of `role` under the lock (`None`: the file is new) and
    /// writes the result, batched with concurrent appends to the same file
    /// ([`super::batch`]). `added` is the text the edit adds, checked for secrets alone
    /// (so a refused entry fails without its batch), and the file each batch writes is
    /// checked whole.
    fn edit_role(
        &self,
        policy: &GuardPolicy,
        role: Role,
        added: &str,
        edit: EntryEdit,
    ) -> AgentResult<WriteReport> {
        let name = self.file_for(role);
        let (path, rel, _) = self.resolve_rel(&name)?;
        guard::check_added(policy, &name, added)?;
        if let Some(store) = &self.staging {
            // Staged: the entry as it would land on the file as it is now, kept as an
            // entry so accepting it later adds it to the file as it is then.
            let current = self.locate(&name, &rel)?.read(&name)?.map(|c| c.text);
            let mut proposed = current.clone();
            edit.apply(&mut proposed);
            let proposed = proposed.unwrap_or_default();
            guard::check_appended_result(policy, &name, &path, current.as_deref(), &proposed)?;
            let change = Change::Entry(edit);
            return self.stage(
                &name,
                &path,
                store,
                current.as_deref(),
                Some(proposed),
                change,
            );
        }
        // What the batch's read found (the folder and the file), for its commit.
        let seen: RefCell<Option<(Located, Option<HandleRead>)>> = RefCell::new(None);
        let version = batch::append(
            &path,
            Box::new(move |text: &mut Option<String>| {
                edit.apply(text);
                Ok(())
            }),
            &|| {
                let located = self.locate(&name, &rel)?;
                let current = located.read(&name)?;
                let text = current.as_ref().map(|c| c.text.clone());
                *seen.borrow_mut() = Some((located, current));
                Ok(text)
            },
            &|read, new| {
                guard::check_appended_result(policy, &name, &path, read, new)?;
                let (located, current) = seen.borrow_mut().take().ok_or_else(|| {
                    AgentError::Storage("the append's file was not read first".into())
                })?;
                located
                    .commit(&name, &path, current.as_ref(), new)
                    .map(|r| r.version)
            },
        )?;
        Ok(WriteReport {
            path: path.clone(),
            name,
            created: false,
            version,
            proposal: None,
        })
    }

    /// `log_decision`: appends a dated decision block to the decision log.
    pub fn log_decision(
        &self,
        policy: &GuardPolicy,
        now: NaiveDateTime,
        decision: &NewDecision,
    ) -> AgentResult<WriteReport> {
        let title = entries::clean_title(&decision.title);
        if title.is_empty() {
            return Err(AgentError::InvalidRequest(
                "the decision needs a title".into(),
            ));
        }
        let format = match formats::rules(self.format).entry_style() {
            formats::EntryStyle::MemoryBankMcp => DecisionFormat::MemoryBankMcp,
            formats::EntryStyle::Cline => DecisionFormat::Cline,
        };
        let block = entries::decision_block(format, now, decision);
        // What is appended must come back from the timeline with its title and date.
        let log_name = formats::cline::file_for(Role::Decisions).unwrap_or_default();
        let parsed = decisions::parse_log(Path::new(log_name), &block);
        if parsed.len() != 1 || parsed[0].title != title || parsed[0].date.is_none() {
            return Err(AgentError::InvalidRequest(format!(
                "the title {title:?} reads as a template placeholder or a date, not a decision \
                 title; name the decision in words"
            )));
        }
        let edit = EntryEdit::AppendBlock {
            block: block.clone(),
        };
        self.edit_role(policy, Role::Decisions, &block, edit)
    }

    /// `track_progress`: a dated line under `## Update History` of the progress file, and
    /// with `update_active_context` a session note in the active context too.
    pub fn track_progress(
        &self,
        policy: &GuardPolicy,
        now: NaiveDateTime,
        action: &str,
        description: &str,
        update_active_context: bool,
    ) -> AgentResult<Vec<WriteReport>> {
        if entries::one_line(description).is_empty() && entries::one_line(action).is_empty() {
            return Err(AgentError::InvalidRequest(
                "track_progress needs an action or a description".into(),
            ));
        }
        let line = entries::progress_line(now, action, description);
        let edit = EntryEdit::InsertFirst {
            new_file: entries::PROGRESS_HEADING.to_string(),
            section: "Update History".to_string(),
            line: line.clone(),
        };
        let mut reports = vec![self.edit_role(policy, Role::Progress, &line, edit)?];
        if update_active_context {
            let note = entries::note_line(
                now,
                &format!(
                    "{}: {}",
                    entries::one_line(action),
                    entries::one_line(description)
                ),
            );
            let edit = EntryEdit::InsertFirst {
                new_file: entries::ACTIVE_CONTEXT_HEADING.to_string(),
                section: "Current Session Notes".to_string(),
                line: note.clone(),
            };
            reports.push(self.edit_role(policy, Role::Active, &note, edit)?);
        }
        Ok(reports)
    }

    /// `update_active_context`: replaces the given sections and notes the update.
    pub fn update_active_context(
        &self,
        policy: &GuardPolicy,
        now: NaiveDateTime,
        tasks: Option<&[String]>,
        issues: Option<&[String]>,
        next_steps: Option<&[String]>,
    ) -> AgentResult<WriteReport> {
        let sections: Vec<(&'static str, Vec<String>)> = [
            ("Ongoing Tasks", tasks),
            ("Known Issues", issues),
            ("Next Steps", next_steps),
        ]
        .into_iter()
        .filter_map(|(title, items)| items.map(|i| (title, i.to_vec())))
        .collect();
        if sections.is_empty() {
            return Err(AgentError::InvalidRequest(
                "update_active_context needs tasks, issues or nextSteps".into(),
            ));
        }
        let added: String = sections
            .iter()
            .flat_map(|(_, items)| items.iter())
            .map(|i| format!("{i}\n"))
            .collect();
        let updated: Vec<&str> = sections
            .iter()
            .map(|(title, _)| match *title {
                "Ongoing Tasks" => "tasks",
                "Known Issues" => "issues",
                _ => "next steps",
            })
            .collect();
        let note = entries::note_line(
            now,
            &format!("Active context updated: {}", updated.join(", ")),
        );
        let edit = EntryEdit::ReplaceSections {
            new_file: entries::ACTIVE_CONTEXT_HEADING.to_string(),
            sections: sections
                .into_iter()
                .map(|(title, items)| (title.to_string(), items))
                .collect(),
            note_section: "Current Session Notes".to_string(),
            note,
        };
        self.edit_role(policy, Role::Active, &added, edit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::Refusal;

    fn now() -> NaiveDateTime {
        NaiveDateTime::parse_from_str("2026-04-01 12:00:00", "%Y-%m-%d %H:%M:%S").unwrap()
    }

    fn bank() -> (tempfile::TempDir, MarkdownBank) {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        initialize(&GuardPolicy::default(), &project, Some("A todo API")).unwrap();
        let bank = MarkdownBank::open(&project).unwrap();
        (dir, bank)
    }

    #[test]
    fn open_needs_a_memory_bank() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            MarkdownBank::open(dir.path()),
            Err(AgentError::NotInitialized { .. })
        ));
        let (_dir, bank) = bank();
        assert_eq!(bank.format, Format::Cline);
        let names: Vec<String> = bank.list().into_iter().map(|f| f.name).collect();
        assert!(names.contains(&"projectBrief.md".to_string()), "{names:?}");
    }

    #[test]
    fn reads_write_and_versions() {
        let (_dir, bank) = bank();
        let policy = GuardPolicy::default();
        let read = bank.read("activeContext.md").unwrap();
        assert_eq!(read.version, guard::content_version(&read.content));
        let err = bank.read("missing.md").unwrap_err();
        assert_eq!(err.code(), "file_not_found");
        let err = bank
            .write(
                &policy,
                "activeContext.md",
                "# x\n",
                WriteMode::Create,
                None,
            )
            .unwrap_err();
        assert_eq!(err.code(), "file_exists");
        let err = bank
            .write(&policy, "new.md", "# x\n", WriteMode::Update, None)
            .unwrap_err();
        assert_eq!(err.code(), "file_not_found");
        let created = bank
            .write(&policy, "new.md", "# New\n", WriteMode::Create, None)
            .unwrap();
        assert!(created.created);
        let updated = bank
            .write(
                &policy,
                "new.md",
                "# Newer\n",
                WriteMode::Update,
                Some(&created.version),
            )
            .unwrap();
        assert_eq!(bank.read("new.md").unwrap().version, updated.version);
        // The version read before the last write is stale now.
        let err = bank
            .write(
                &policy,
                "new.md",
                "# Mine\n",
                WriteMode::Update,
                Some(&created.version),
            )
            .unwrap_err();
        assert_eq!(err.code(), "version_conflict");
        assert!(err.to_string().contains(&updated.version), "{err}");
        assert_eq!(bank.read("new.md").unwrap().content, "# Newer\n");
    }

    #[test]
    fn archive_and_existing_sub_folders_take_new_files_and_deeper_ones_do_not() {
        let (_dir, bank) = bank();
        let policy = GuardPolicy::default();
        // A refused first write into archive/ leaves no folder behind.
        let refused = bank.write(
            &policy,
            "archive/progress-2025.md",
            "# Done\nDB_PASSWORD=hunter2hunter2\n",
            WriteMode::Create,
            None,
        );
        assert_eq!(refused.unwrap_err().code(), "secret_detected");
        assert!(!bank.root.join("archive").exists());
        let report = bank
            .write(
                &policy,
                "archive/progress-2025.md",
                "# Done in 2025\n- Cart\n",
                WriteMode::Create,
                None,
            )
            .unwrap();
        assert!(report.created);
        assert_eq!(
            fs::read_to_string(bank.root.join("archive/progress-2025.md")).unwrap(),
            "# Done in 2025\n- Cart\n"
        );
        assert_eq!(
            bank.read("archive/progress-2025.md").unwrap().content,
            "# Done in 2025\n- Cart\n"
        );
        // Another sub-folder is written when it exists, never created.
        let missing = bank.write(&policy, "notes/api.md", "# API\n", WriteMode::Upsert, None);
        let err = missing.unwrap_err();
        assert_eq!(err.code(), "forbidden_path");
        assert!(err.to_string().contains("does not exist"), "{err}");
        assert!(!bank.root.join("notes").exists());
        fs::create_dir(bank.root.join("notes")).unwrap();
        bank.write(&policy, "notes/api.md", "# API\n", WriteMode::Upsert, None)
            .unwrap();
        let deep = bank.write(
            &policy,
            "notes/v1/api.md",
            "# API\n",
            WriteMode::Upsert,
            None,
        );
        assert_eq!(deep.unwrap_err().code(), "forbidden_path");
    }

    #[cfg(unix)]
    #[test]
    fn an_archive_link_out_of_the_bank_is_refused_not_followed() {
        let (dir, bank) = bank();
        let outside = dir.path().join("outside");
        fs::create_dir(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, bank.root.join("archive")).unwrap();
        let err = bank
            .write(
                &GuardPolicy::default(),
                "archive/x.md",
                "# X\n",
                WriteMode::Create,
                None,
            )
            .unwrap_err();
        assert_eq!(err.code(), "forbidden_path", "{err}");
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
    }

    #[test]
    fn names_are_confined_and_markdown_only() {
        let (_dir, bank) = bank();
        for (name, code) in [
            ("../../etc/passwd", "forbidden_path"),
            ("/etc/passwd.md", "forbidden_path"),
            ("../other/x.md", "forbidden_path"),
            ("script.sh", "invalid_format"),
            ("notes/deep/new.md", "forbidden_path"),
        ] {
            let err = bank.read(name).unwrap_err();
            assert_eq!(err.code(), code, "{name}: {err}");
            let err = bank
                .write(&GuardPolicy::default(), name, "x", WriteMode::Upsert, None)
                .unwrap_err();
            assert_eq!(err.code(), code, "{name}: {err}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn links_are_refused_without_naming_where_they_lead() {
        use std::os::unix::fs::symlink;
        let (dir, bank) = bank();
        let policy = GuardPolicy::default();
        let outside = dir.path().join("elsewhere-private");
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("victim.md"), "outside\n").unwrap();
        symlink(outside.join("victim.md"), bank.root.join("victim.md")).unwrap();
        // A link that stays inside the bank is not followed either.
        symlink("progress.md", bank.root.join("inner.md")).unwrap();
        let check = |err: AgentError, name: &str| {
            assert_eq!(err.code(), "forbidden_path", "{err}");
            let message = err.to_string();
            assert!(message.contains(name), "{message}");
            assert!(message.contains("symbolic link"), "{message}");
            assert!(!message.contains("elsewhere-private"), "{message}");
            assert!(!message.contains(dir.path().to_str().unwrap()), "{message}");
        };
        for name in ["victim.md", "inner.md"] {
            check(bank.read(name).unwrap_err(), name);
            let write = bank.write(&policy, name, "# mine\n", WriteMode::Upsert, None);
            check(write.unwrap_err(), name);
            check(bank.delete(&policy, name, None).unwrap_err(), name);
        }
        assert_eq!(
            fs::read_to_string(outside.join("victim.md")).unwrap(),
            "outside\n"
        );
        assert!(fs::symlink_metadata(bank.root.join("inner.md")).is_ok());

        // The bank folder itself swapped for a link after the bank was opened.
        fs::rename(&bank.root, dir.path().join("moved")).unwrap();
        symlink(&outside, &bank.root).unwrap();
        check(bank.read("victim.md").unwrap_err(), "memory-bank");
        let write = bank.write(&policy, "new.md", "# new\n", WriteMode::Create, None);
        check(write.unwrap_err(), "memory-bank");
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 1);
    }

    #[test]
    fn decision_log_stays_append_only_and_logged_decisions_parse() {
        let (_dir, bank) = bank();
        let policy = GuardPolicy::default();
        let decision = |title: &str| NewDecision {
            title: title.into(),
            context: "c".into(),
            decision: "d".into(),
            ..NewDecision::default()
        };
        bank.log_decision(&policy, now(), &decision("Use JWT"))
            .unwrap();
        bank.log_decision(&policy, now(), &decision("Use Postgres"))
            .unwrap();
        let log = bank.read("decisionLog.md").unwrap();
        let titles: Vec<String> = decisions::parse_log(Path::new("decisionLog.md"), &log.content)
            .into_iter()
            .map(|d| d.title)
            .collect();
        assert_eq!(titles, ["Use JWT", "Use Postgres"]);
        let shrunk = "# Decision Log\n\n## Decision: Use JWT\n- **Date**: 2026-04-01 12:00:00\n";
        let err = bank
            .write(&policy, "decisionLog.md", shrunk, WriteMode::Update, None)
            .unwrap_err();
        assert_eq!(err.code(), "append_only_violation");
        assert!(err.to_string().contains("Use Postgres"), "{err}");
        let err = bank.delete(&policy, "decisionLog.md", None).unwrap_err();
        assert!(matches!(
            err,
            AgentError::Refused(Refusal::AppendOnly { .. })
        ));
        let err = bank
            .log_decision(&policy, now(), &decision("[Decision title]"))
            .unwrap_err();
        assert_eq!(err.code(), "invalid_request");
        let err = bank
            .log_decision(&policy, now(), &decision(" "))
            .unwrap_err();
        assert_eq!(err.code(), "invalid_request");
    }

    #[test]
    fn progress_and_active_context_entries() {
        let (_dir, bank) = bank();
        let policy = GuardPolicy::default();
        let reports = bank
            .track_progress(&policy, now(), "Implementation", "Feature X", true)
            .unwrap();
        assert_eq!(reports.len(), 2);
        let progress = bank.read("progress.md").unwrap().content;
        assert!(
            progress.contains(
                "## Update History\n- [2026-04-01 12:00:00] - Implementation: Feature X\n"
            ),
            "{progress}"
        );
        bank.update_active_context(
            &policy,
            now(),
            Some(&["Auth".to_string()]),
            None,
            Some(&["Ship".to_string()]),
        )
        .unwrap();
        let active = bank.read("activeContext.md").unwrap().content;
        assert!(active.contains("## Ongoing Tasks\n- Auth\n"), "{active}");
        assert!(active.contains("## Next Steps\n- Ship\n"), "{active}");
        assert!(active.contains("- [2026-04-01 12:00:00] - Implementation: Feature X"));
        assert!(active.contains("Active context updated: tasks, next steps"));
        let err = bank
            .update_active_context(&policy, now(), None, None, None)
            .unwrap_err();
        assert_eq!(err.code(), "invalid_request");
        let err = bank
            .track_progress(
                &policy,
                now(),
                "Deploy",
                "token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB",
                false,
            )
            .unwrap_err();
        assert_eq!(err.code(), "secret_detected");
    }
}
