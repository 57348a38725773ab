//! A project's `memory-bank/` as agents see it through the servers: read with a version,
//! list, write (create / update / either), delete, and the dated entries of the Memory
//! Bank MCP tools. Every write takes the folder lock, re-reads the file under it, checks
//! `expectedVersion` and the guard rules (`guard::check`), and goes through
//! `write::apply` with the caller's `WriteContext`, which says who writes (or is staged
//! as a proposal when the bank stages writes). Files are opened relative to the bank folder's handle, never by a
//! path looked up again.
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
use crate::agent::proposals::{
    EntryEdit, NewProposal, ProposalError, ProposalStore, ProposedChange,
};
use crate::analysis::decisions;
use crate::error::CoreError;
use crate::formats;
use crate::guard::{self, ExpectedVersion, GuardKind, GuardRequest, TextPart};
use crate::init::{self, InitFormat, InitReport};
use crate::io::dir_handle::Dir;
use crate::io::lock;
use crate::model::{Bank, BankLocation, Format, Project, Role};
use crate::scan::discovery;
use crate::write::{
    self, Applied, Change as WriteChange, Expected, HandleRead, Target, WriteContext, WriteRequest,
};

/// A file as a read returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRead {
    pub content: String,
    /// `guard::content_version` of `content`: pass it back as `expectedVersion`.
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
    /// Appends to one file made meanwhile through this bank share one write.
    appends: batch::AppendQueues,
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

    /// Writes `content` (`None`: removes the file) if the file is still `current` (the
    /// same file, same text), through [`write::apply`]: what it holds now goes to the
    /// context's history first. `real` is the file's real path as
    /// [`MarkdownBank::resolve`] gave it: the key of its history.
    fn commit(
        &self,
        ctx: &WriteContext,
        name: &str,
        real: &Path,
        current: Option<&HandleRead>,
        content: Option<&str>,
    ) -> AgentResult<WriteReport> {
        let applied = write::apply(
            ctx,
            WriteRequest {
                key: real,
                target: Target::In {
                    dir: &self.dir,
                    name: &self.file,
                    same_file: current.map(|c| c.id),
                },
                replaced: current.map(|c| c.text.as_str()),
                expected: current.map_or(Expected::Missing, HandleRead::expected),
                change: content.map_or(WriteChange::Remove, WriteChange::Write),
            },
        )
        .map_err(|e| core_error(name, e))?;
        Ok(match applied {
            Applied::Written { outcome, hash } => WriteReport {
                path: outcome.path,
                name: name.to_string(),
                created: outcome.created,
                version: hash[..32].to_string(),
                proposal: None,
            },
            Applied::Removed => WriteReport {
                path: real.to_path_buf(),
                name: name.to_string(),
                created: false,
                version: String::new(),
                proposal: None,
            },
        })
    }
}

/// For an agent's write replacing `current` in the file at `path`, when agents made
/// `current` and every text since the last one a person made: that text, as the history
/// of `ctx` tells (`None`: no history, not an agent, the rule off, or no such text kept).
/// `reviewed`: the text the person marked reviewed, which counts as theirs.
fn person_made(
    ctx: &WriteContext,
    path: &Path,
    current: &str,
    reviewed: Option<&str>,
) -> Option<String> {
    if !ctx.is_agent() || ctx.policy().max_shrink_percent >= 100 {
        return None;
    }
    let history = ctx.history.as_ref()?;
    let reviewed_hash = reviewed.map(crate::history::content_hash);
    history
        .last_text_not_by(
            path,
            current,
            reviewed_hash.as_deref(),
            write::is_agent_writer,
        )
        .ok()
        .flatten()
        .map(|(_, text)| text)
}

/// Creates a Cline memory bank in `project_dir` (the Cline memory bank spec) through `core::init`,
/// which never overwrites a file. The brief becomes `projectBrief.md`, so it passes the
/// secret rule first.
pub fn initialize(
    ctx: &WriteContext,
    project_dir: &Path,
    brief: Option<&str>,
) -> AgentResult<InitReport> {
    if let Some(brief) = brief {
        let kind = GuardKind::Text {
            part: TextPart::Brief,
            text: brief,
        };
        guard::check(
            &ctx.guard,
            &GuardRequest {
                file: "projectBrief.md",
                kind,
            },
        )?;
    }
    let report =
        init::init_bank(project_dir, InitFormat::Cline, brief).map_err(AgentError::Core)?;
    // The templates are the agent's texts, not a person's: noted as its writes, so the
    // shrinkage rule does not take them for a person's files.
    if let Some(history) = &ctx.history {
        for name in report.created.iter().filter(|n| !n.ends_with('/')) {
            let path = crate::history::key_of(&project_dir.join(name));
            if let Ok(text) = crate::io::text::read_text(&path) {
                let hash = crate::history::content_hash(&text);
                let _ =
                    history.note_written(&path, Some(&hash), &ctx.writer, ctx.client.as_deref());
            }
        }
    }
    Ok(report)
}

/// Creates the Memory Bank MCP spec's bank in `project_dir` (created if missing):
/// `memory-bank/` with the spec's five files (`formats::memory_bank_mcp::TEMPLATES`),
/// each written through [`write::apply`] as `ctx`'s write, never over a file that exists.
/// The brief becomes the product context's overview, so it passes the secret rule first.
pub fn initialize_memory_bank_mcp(
    ctx: &WriteContext,
    project_dir: &Path,
    brief: Option<&str>,
) -> AgentResult<InitReport> {
    use formats::memory_bank_mcp::{
        BRIEF_FILE, TEMPLATE_DATE, TEMPLATE_NAME, TEMPLATE_OVERVIEW, TEMPLATES,
    };
    let brief = brief.map(str::trim).filter(|b| !b.is_empty());
    if let Some(brief) = brief {
        let kind = GuardKind::Text {
            part: TextPart::Brief,
            text: brief,
        };
        guard::check(
            &ctx.guard,
            &GuardRequest {
                file: BRIEF_FILE,
                kind,
            },
        )?;
    }
    let folder = formats::cline::BANK_DIR;
    fs::create_dir_all(project_dir).map_err(|e| AgentError::Core(CoreError::io(project_dir, e)))?;
    let anchor = Dir::open_anchor(project_dir).map_err(|e| core_error(folder, e.into()))?;
    let existed = anchor.open_dir(Path::new(folder)).is_ok();
    // Opened with no link followed: a link in its place is refused, not written through.
    let bank = anchor
        .create_dir(folder, 0o777)
        .map_err(|e| core_error(folder, e.into()))?;
    let bank_path = project_dir.join(folder);
    let mut report = InitReport {
        bank: bank_path.clone(),
        ..InitReport::default()
    };
    let folder_name = format!("{folder}/");
    if existed {
        report.kept.push(folder_name);
    } else {
        report.created.push(folder_name);
    }
    let _lock = lock::for_folder(&bank_path).map_err(AgentError::Core)?;
    let project_name = fs::canonicalize(project_dir)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let today = ctx.clock.today().format("%Y-%m-%d").to_string();
    for (name, template) in TEMPLATES {
        let mut text = template.replace(TEMPLATE_DATE, &today);
        if !project_name.is_empty() {
            text = text.replacen(TEMPLATE_NAME, &project_name, 1);
        }
        if let Some(brief) = brief {
            text = text.replacen(TEMPLATE_OVERVIEW, brief, 1);
        }
        let rel = format!("{folder}/{name}");
        let key = crate::history::key_of(&bank_path.join(name));
        let applied = write::apply(
            ctx,
            WriteRequest {
                key: &key,
                target: Target::In {
                    dir: &bank,
                    name,
                    same_file: None,
                },
                replaced: None,
                expected: Expected::Missing,
                change: WriteChange::Write(&text),
            },
        );
        match applied {
            Ok(_) => report.created.push(rel),
            // Someone's file is there (or appeared meanwhile): it is kept as it is.
            Err(CoreError::Conflict { .. }) => report.kept.push(rel),
            Err(e) => return Err(core_error(name, e)),
        }
    }
    Ok(report)
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
            appends: batch::AppendQueues::default(),
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
        ctx: &WriteContext,
        name: &str,
        path: &Path,
        current: Option<&str>,
        proposed: Option<String>,
        change: ProposedChange,
    ) -> AgentResult<WriteReport> {
        let store = self
            .staging
            .as_ref()
            .ok_or_else(|| AgentError::Storage("this bank does not stage writes".into()))?;
        let proposal = store
            .stage(NewProposal {
                project: self.project.path.clone(),
                file: name.to_string(),
                path: path.to_path_buf(),
                via: ctx.writer.clone(),
                client: ctx.client.clone(),
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
                parsed_store: None,
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
        ctx: &WriteContext,
        name: &str,
        content: &str,
        mode: WriteMode,
        expected_version: Option<&str>,
    ) -> AgentResult<WriteReport> {
        // Before anything echoes the name: it is listed to every agent.
        let kind = GuardKind::Text {
            part: TextPart::FileName,
            text: name,
        };
        guard::check(
            &ctx.guard,
            &GuardRequest {
                file: "a file to write",
                kind,
            },
        )?;
        let archive = self.create_archive_folder(name)?;
        let written = self.write_resolved(ctx, name, content, mode, expected_version);
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
        ctx: &WriteContext,
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
        // A staged write waits for a person anyway; a write that does not make the file
        // smaller removes nothing more than the writes before it did (and costs no
        // reading of the history).
        let made = match (&self.staging, current_text) {
            (None, Some(current)) if content.len() < current.len() => {
                person_made(ctx, &path, current, None)
            }
            _ => None,
        };
        let replace = |person_made: Option<&str>| {
            let kind = GuardKind::Replace {
                path: &path,
                role,
                old: current_text,
                new: content,
                version: ExpectedVersion::Sent(expected_version),
                person_made,
            };
            guard::check(&ctx.guard, &GuardRequest { file: name, kind })
        };
        match replace(made.as_deref()) {
            // Only then is the review snapshot read: a text the person marked reviewed
            // since is the one to judge against.
            Err(guard::Refusal::Shrinkage { .. }) => {
                let reviewed = ctx.history.as_ref().and_then(|history| {
                    let file = self.root.join(&rel);
                    crate::review::reviewed_text(&self.project.path, history.data_dir(), &file)
                });
                let made = match (reviewed, current_text) {
                    (Some(reviewed), Some(current)) => {
                        person_made(ctx, &path, current, Some(&reviewed))
                    }
                    _ => made,
                };
                replace(made.as_deref())?;
            }
            other => other?,
        }
        if self.staging.is_some() {
            let proposed = Some(content.to_string());
            return self.stage(
                ctx,
                name,
                &path,
                current_text,
                proposed,
                ProposedChange::Replace,
            );
        }
        located.commit(ctx, name, &path, current.as_ref(), Some(content))
    }

    /// Deletes `name` (the Memory Bank MCP spec `DELETE /memory-bank/file`): a decision log with entries
    /// is refused by the append-only rule. Returns the proposal the deletion was staged as
    /// when the bank stages writes (`None`: the file is gone).
    pub fn delete(
        &self,
        ctx: &WriteContext,
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
        let kind = GuardKind::Remove {
            path: &path,
            role,
            old: &current.text,
            version: ExpectedVersion::Sent(expected_version),
        };
        guard::check(&ctx.guard, &GuardRequest { file: name, kind })?;
        if self.staging.is_some() {
            let staged = self.stage(
                ctx,
                name,
                &path,
                Some(&current.text),
                None,
                ProposedChange::Delete,
            )?;
            return Ok(staged.proposal);
        }
        located.commit(ctx, name, &path, Some(&current), None)?;
        Ok(None)
    }

    /// Changes `name` under the folder lock to what `change` makes of its current text
    /// (`None` in: no file; `None` out: remove it), through the guard rules and the
    /// history like every write, never staged: how an accepted proposal lands.
    pub(crate) fn apply_change<E: From<AgentError>>(
        &self,
        ctx: &WriteContext,
        name: &str,
        change: impl FnOnce(Option<&str>) -> Result<Option<String>, E>,
    ) -> Result<WriteReport, E> {
        let (path, rel, role) = self.resolve_rel(name)?;
        let _lock = lock::for_file(&path).map_err(AgentError::Core)?;
        let located = self.locate(name, &rel)?;
        let current = located.read(name)?;
        let current_text = current.as_ref().map(|c| c.text.as_str());
        let new = change(current_text)?;
        let kind = match (&new, current_text) {
            (Some(text), _) => GuardKind::Replace {
                path: &path,
                role,
                old: current_text,
                new: text,
                version: ExpectedVersion::Unchecked,
                person_made: None,
            },
            (None, Some(old)) => GuardKind::Remove {
                path: &path,
                role,
                old,
                version: ExpectedVersion::Unchecked,
            },
            (None, None) => {
                return Err(AgentError::FileNotFound {
                    name: name.to_string(),
                }
                .into());
            }
        };
        guard::check(&ctx.guard, &GuardRequest { file: name, kind }).map_err(AgentError::from)?;
        Ok(located.commit(ctx, name, &path, current.as_ref(), new.as_deref())?)
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
        ctx: &WriteContext,
        role: Role,
        added: &str,
        edit: EntryEdit,
    ) -> AgentResult<WriteReport> {
        let name = self.file_for(role);
        let (path, rel, _) = self.resolve_rel(&name)?;
        let entry = GuardKind::Entry { added };
        guard::check(
            &ctx.guard,
            &GuardRequest {
                file: &name,
                kind: entry,
            },
        )?;
        if self.staging.is_some() {
            // Staged: the entry as it would land on the file as it is now, kept as an
            // entry so accepting it later adds it to the file as it is then.
            let current = self.locate(&name, &rel)?.read(&name)?.map(|c| c.text);
            let mut proposed = current.clone();
            edit.apply(&mut proposed);
            let proposed = proposed.unwrap_or_default();
            let kind = GuardKind::Append {
                path: &path,
                old: current.as_deref(),
                new: &proposed,
            };
            guard::check(&ctx.guard, &GuardRequest { file: &name, kind })?;
            let change = ProposedChange::Entry(edit);
            return self.stage(
                ctx,
                &name,
                &path,
                current.as_deref(),
                Some(proposed),
                change,
            );
        }
        // What the batch's read found (the folder and the file), for its commit.
        let seen: RefCell<Option<(Located, Option<HandleRead>)>> = RefCell::new(None);
        let version = self.appends.append(
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
                let kind = GuardKind::Append {
                    path: &path,
                    old: read,
                    new,
                };
                guard::check(&ctx.guard, &GuardRequest { file: &name, kind })?;
                let (located, current) = seen.borrow_mut().take().ok_or_else(|| {
                    AgentError::Storage("the append's file was not read first".into())
                })?;
                located
                    .commit(ctx, &name, &path, current.as_ref(), Some(new))
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
        ctx: &WriteContext,
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
        self.edit_role(ctx, Role::Decisions, &block, edit)
    }

    /// `track_progress`: a dated line under `## Update History` of the progress file, and
    /// with `update_active_context` a session note in the active context too.
    pub fn track_progress(
        &self,
        ctx: &WriteContext,
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
        let mut reports = vec![self.edit_role(ctx, Role::Progress, &line, edit)?];
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
            reports.push(self.edit_role(ctx, Role::Active, &note, edit)?);
        }
        Ok(reports)
    }

    /// `update_active_context`: replaces the given sections and notes the update.
    pub fn update_active_context(
        &self,
        ctx: &WriteContext,
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
        self.edit_role(ctx, Role::Active, &added, edit)
    }
}

#[cfg(test)]
mod tests;
