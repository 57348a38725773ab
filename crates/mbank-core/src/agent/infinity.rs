//! The Infinity store of the Infinity store spec as its tools use it: `.infinity/project_id` and
//! `.infinity/memories.json` in one project folder (the server's working directory or
//! `--project`), never anywhere else. The folder and its two files must be real (no
//! symlinks), every change holds the folder lock and goes through the guarded write.
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::WriteReport;
pub use super::infinity_error::InfinityError;
use crate::agent::proposals::{MemoryEdit, NewProposal, ProposalStore, ProposedChange};
use crate::formats;
use crate::formats::infinity::store::{
    self, InfinityMemory, MAX_STORE_BYTES, MEMORY_TYPES, NewMemory, StoreChangeError,
};
use crate::guard::{self, ExpectedVersion, GuardKind, GuardRequest, TextPart};
use crate::io::lock;
use crate::write::{self, Change as WriteChange, Expected, Target, WriteContext, WriteRequest};

fn storage(error: impl std::fmt::Display) -> InfinityError {
    InfinityError::Storage(error.to_string())
}

/// A memory's metadata, as `list_memories` returns it (no content, the Infinity store spec).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemorySummary {
    pub id: String,
    pub title: String,
    #[serde(rename = "type")]
    pub kind: String,
}

/// A whole memory, as `get_memory` returns it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Memory {
    pub id: String,
    pub title: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub content: String,
    pub created_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// `guard::content_version` of `content`, for `update_memory`'s `expectedVersion`.
    pub version: String,
}

impl From<&InfinityMemory> for Memory {
    fn from(m: &InfinityMemory) -> Self {
        Memory {
            id: m.id.clone(),
            title: m.title.clone(),
            kind: m.kind.clone(),
            content: m.content.clone(),
            created_at: m.created_at.clone(),
            updated_at: m.updated_at.clone(),
            version: guard::content_version(&m.content),
        }
    }
}

/// An activated project.
#[derive(Debug, Clone)]
pub struct InfinityProject {
    /// The `.infinity` folder.
    pub dir: PathBuf,
    pub project_id: String,
    /// Where writes are staged as proposals instead of written (`None`: written).
    pub staging: Option<ProposalStore>,
}

/// What `store_memory` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The new memory's id (once accepted, when staged).
    pub id: String,
    /// The proposal the write was staged as (`None`: written).
    pub proposal: Option<u64>,
}

/// Changes the store of the project at `project_dir` to what `change` makes of its
/// text (given the project, for its id), under the store's lock, with the secret rule on
/// the result and the text it replaces kept in the history: how an accepted proposal
/// lands. The result must still be a store mbank reads.
pub(crate) fn apply_store_change<E: From<InfinityError>>(
    ctx: &WriteContext,
    project_dir: &Path,
    change: impl FnOnce(Option<&str>, &InfinityProject) -> Result<Option<String>, E>,
) -> Result<WriteReport, E> {
    let project = activate(project_dir)?;
    let _lock = lock::for_folder(&project.dir).map_err(storage)?;
    let old = project.read_store()?;
    let Some(new) = change(old.as_deref(), &project)? else {
        return Err(storage("the Infinity store itself is never removed").into());
    };
    store::parse_store(&new).map_err(|e| {
        storage(format!(
            "the accepted store would not read back ({e}); nothing was written"
        ))
    })?;
    let kind = GuardKind::Whole { text: &new };
    guard::check(&ctx.guard, &GuardRequest { file: STORE, kind })
        .map_err(InfinityError::Refused)?;
    project.write_store(ctx, old.as_deref(), &new)?;
    Ok(WriteReport {
        path: project.store_path(),
        name: STORE.to_string(),
        created: old.is_none(),
        version: guard::content_version(&new),
        proposal: None,
    })
}

/// The store and the project's id, relative to the project folder.
const STORE: &str = formats::infinity::STORE_PATH;
const PROJECT_ID: &str = formats::infinity::PROJECT_ID_PATH;

/// Refuses a path that exists as anything but a regular file (or, for `want_dir`, a
/// real folder): a symlink would send the store somewhere else.
fn must_be_real(path: &Path, want_dir: bool) -> Result<bool, String> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(format!(
            "{} is a symbolic link; the Infinity store is only kept in the project's own folder",
            path.display()
        )),
        Ok(meta) if want_dir && !meta.is_dir() => {
            Err(format!("{} exists and is not a folder", path.display()))
        }
        Ok(meta) if !want_dir && !meta.is_file() => Err(format!(
            "{} exists and is not a regular file",
            path.display()
        )),
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

fn valid_project_id(text: &str) -> Option<String> {
    let id = text.trim();
    (!id.is_empty() && id.len() <= 128 && !id.contains(char::is_whitespace)).then(|| id.to_string())
}

/// `activate_project` (the Infinity store spec): loads `.infinity/project_id` in `project_dir`, or
/// creates the folder and a new v4 id. TC1, TC2.
pub fn activate(project_dir: &Path) -> Result<InfinityProject, InfinityError> {
    let dir = project_dir.join(formats::infinity::DIR);
    let exists = must_be_real(&dir, true).map_err(InfinityError::CannotCreateProjectDir)?;
    if !exists {
        fs::create_dir(&dir).or_else(|e| match e.kind() {
            // Another server created it meanwhile.
            io::ErrorKind::AlreadyExists => Ok(()),
            _ => Err(InfinityError::CannotCreateProjectDir(format!(
                "{}: {e}",
                dir.display()
            ))),
        })?;
        must_be_real(&dir, true).map_err(InfinityError::CannotCreateProjectDir)?;
    }
    let _lock = lock::for_folder(&dir).map_err(storage)?;
    let id_path = dir.join(formats::infinity::PROJECT_ID_FILE);
    if must_be_real(&id_path, false).map_err(InfinityError::Storage)? {
        let text = write::read_text_beneath(project_dir, Path::new(PROJECT_ID))
            .map_err(storage)?
            .map(|read| read.text)
            .unwrap_or_default();
        let project_id = valid_project_id(&text).ok_or_else(|| {
            storage(format!(
                "{} does not hold a project id; remove it to start a new project",
                id_path.display()
            ))
        })?;
        return Ok(InfinityProject {
            dir,
            project_id,
            staging: None,
        });
    }
    // A store without its id file keeps the id it names.
    let store_path = dir.join(formats::infinity::STORE_FILE);
    let from_store = match must_be_real(&store_path, false) {
        Ok(true) => write::read_text_beneath(project_dir, Path::new(STORE))
            .ok()
            .flatten()
            .and_then(|read| store::parse_store(&read.text).ok())
            .and_then(|(s, _)| s.project_id)
            .and_then(|id| valid_project_id(&id)),
        _ => None,
    };
    let project_id = from_store.unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    write::write_beneath(
        project_dir,
        Path::new(PROJECT_ID),
        &format!("{project_id}\n"),
        Expected::Missing,
    )
    .map_err(|e| InfinityError::CannotCreateProjectDir(e.to_string()))?;
    Ok(InfinityProject {
        dir,
        project_id,
        staging: None,
    })
}

impl InfinityProject {
    /// This project with its writes staged into `store` (`None`: written).
    pub fn with_staging(mut self, store: Option<ProposalStore>) -> InfinityProject {
        self.staging = store;
        self
    }

    fn store_path(&self) -> PathBuf {
        self.dir.join(formats::infinity::STORE_FILE)
    }

    /// The project folder: every read and write of the store starts from it and opens
    /// `.infinity/` and the file below it with no symlink followed.
    fn project_dir(&self) -> &Path {
        self.dir.parent().unwrap_or(Path::new("."))
    }

    /// The store's text, `None` before the first memory.
    fn read_store(&self) -> Result<Option<String>, InfinityError> {
        let read =
            write::read_text_beneath(self.project_dir(), Path::new(STORE)).map_err(storage)?;
        match read {
            Some(read) if read.text.len() > MAX_STORE_BYTES => Err(storage(format!(
                "the store holds {} bytes, more than the {MAX_STORE_BYTES} mbank reads",
                read.text.len()
            ))),
            read => Ok(read.map(|read| read.text)),
        }
    }

    fn memories(&self) -> Result<Vec<InfinityMemory>, InfinityError> {
        let Some(text) = self.read_store()? else {
            return Ok(Vec::new());
        };
        let (parsed, _) = store::parse_store(&text)
            .map_err(|e| storage(format!("{}: {e}", self.store_path().display())))?;
        Ok(parsed.memories)
    }

    /// A change the store refused: too big for the store (nothing written), or malformed.
    fn change_failed(&self, error: StoreChangeError) -> InfinityError {
        match error {
            StoreChangeError::TooLarge(too_large) => InfinityError::TooLarge(too_large),
            StoreChangeError::Malformed(message) => {
                storage(format!("{}: {message}", self.store_path().display()))
            }
        }
    }

    /// Writes the store, or stages `edit` (what made `new` of `old`) as a proposal when
    /// the project stages writes: returns the proposal's id then.
    fn write_or_stage(
        &self,
        ctx: &WriteContext,
        old: Option<&str>,
        new: &str,
        edit: MemoryEdit,
    ) -> Result<Option<u64>, InfinityError> {
        let Some(store) = &self.staging else {
            self.write_store(ctx, old, new)?;
            return Ok(None);
        };
        let project = self.project_dir();
        let proposal = store
            .stage(NewProposal {
                project: fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf()),
                file: STORE.to_string(),
                path: self.store_path(),
                via: ctx.writer.clone(),
                client: ctx.client.clone(),
                base: old.map(str::to_string),
                proposed: Some(new.to_string()),
                change: ProposedChange::Memory(edit),
            })
            .map_err(storage)?;
        Ok(Some(proposal.id))
    }

    fn write_store(
        &self,
        ctx: &WriteContext,
        old: Option<&str>,
        new: &str,
    ) -> Result<(), InfinityError> {
        let request = WriteRequest {
            key: &crate::history::key_of(&self.store_path()),
            target: Target::Beneath {
                anchor: self.project_dir(),
                rel: Path::new(STORE),
            },
            replaced: old,
            expected: old.map_or(Expected::Missing, Expected::text),
            change: WriteChange::Write(new),
        };
        write::apply(ctx, request).map(|_| ()).map_err(storage)
    }

    /// `store_memory` (TC3, TC4): returns the new memory's id.
    pub fn store(
        &self,
        ctx: &WriteContext,
        title: &str,
        kind: &str,
        content: &str,
    ) -> Result<Stored, InfinityError> {
        if title.trim().is_empty() {
            return Err(InfinityError::MissingRequiredField("title"));
        }
        if !MEMORY_TYPES.contains(&kind) {
            return Err(InfinityError::InvalidMemoryType(kind.to_string()));
        }
        // Before any work in proportion to the memory's size.
        store::check_memory_size(title, content)?;
        let named = GuardKind::Text {
            part: TextPart::Title,
            text: title,
        };
        guard::check(
            &ctx.guard,
            &GuardRequest {
                file: "a new memory",
                kind: named,
            },
        )?;
        let content_kind = GuardKind::Whole { text: content };
        guard::check(
            &ctx.guard,
            &GuardRequest {
                file: title,
                kind: content_kind,
            },
        )?;
        let _lock = lock::for_folder(&self.dir).map_err(storage)?;
        let old = self.read_store()?;
        let id = uuid::Uuid::new_v4().to_string();
        let created_at = ctx.stamp();
        let new = store::add_memory(
            old.as_deref(),
            &self.project_id,
            &NewMemory {
                id: &id,
                title,
                kind,
                content,
                created_at: &created_at,
            },
        )
        .map_err(|e| self.change_failed(e))?;
        let edit = MemoryEdit::Add {
            id: id.clone(),
            title: title.to_string(),
            memory_type: kind.to_string(),
            content: content.to_string(),
            created_at,
        };
        let proposal = self.write_or_stage(ctx, old.as_deref(), &new, edit)?;
        Ok(Stored { id, proposal })
    }

    /// `get_memory` (TC5).
    pub fn get(&self, id: &str) -> Result<Memory, InfinityError> {
        self.memories()?
            .iter()
            .find(|m| m.id == id)
            .map(Memory::from)
            .ok_or_else(|| InfinityError::MemoryNotFound(id.to_string()))
    }

    /// `list_memories` (TC6, TC7): metadata only, optionally of one type.
    pub fn list(&self, kind: Option<&str>) -> Result<Vec<MemorySummary>, InfinityError> {
        if let Some(kind) = kind
            && !MEMORY_TYPES.contains(&kind)
        {
            return Err(InfinityError::InvalidMemoryType(kind.to_string()));
        }
        Ok(self
            .memories()?
            .iter()
            .filter(|m| kind.is_none_or(|k| m.kind == k))
            .map(|m| MemorySummary {
                id: m.id.clone(),
                title: m.title.clone(),
                kind: m.kind.clone(),
            })
            .collect())
    }

    /// `update_memory` (TC8): content only; id, type and title never change.
    pub fn update(
        &self,
        ctx: &WriteContext,
        id: &str,
        content: &str,
        expected_version: Option<&str>,
    ) -> Result<Option<u64>, InfinityError> {
        // Before any work in proportion to the content's size.
        store::check_memory_size("", content)?;
        let _lock = lock::for_folder(&self.dir).map_err(storage)?;
        let old = self.read_store()?;
        let text = old.as_deref().unwrap_or("");
        let (parsed, _) = match old.as_deref() {
            Some(text) => store::parse_store(text)
                .map_err(|e| storage(format!("{}: {e}", self.store_path().display())))?,
            None => Default::default(),
        };
        let memory = parsed
            .memories
            .iter()
            .find(|m| m.id == id)
            .ok_or_else(|| InfinityError::MemoryNotFound(id.to_string()))?;
        let label = format!("memory {id}");
        let kind = GuardKind::Replace {
            path: Path::new("memory.md"),
            role: crate::model::Role::Other,
            old: Some(&memory.content),
            new: content,
            version: ExpectedVersion::Sent(expected_version),
            person_made: None,
        };
        guard::check(&ctx.guard, &GuardRequest { file: &label, kind })?;
        let new = store::change_content(text, id, content, &ctx.stamp())
            .map_err(|e| self.change_failed(e))?;
        let edit = MemoryEdit::Content {
            id: id.to_string(),
            content: content.to_string(),
        };
        self.write_or_stage(ctx, old.as_deref(), &new, edit)
    }

    /// `delete_memory` (TC9).
    pub fn delete(&self, ctx: &WriteContext, id: &str) -> Result<Option<u64>, InfinityError> {
        let _lock = lock::for_folder(&self.dir).map_err(storage)?;
        let Some(old) = self.read_store()? else {
            return Err(InfinityError::MemoryNotFound(id.to_string()));
        };
        let new = store::remove_memory(&old, id)
            .map_err(|e| self.change_failed(e))?
            .ok_or_else(|| InfinityError::MemoryNotFound(id.to_string()))?;
        let edit = MemoryEdit::Remove { id: id.to_string() };
        self.write_or_stage(ctx, Some(&old), &new, edit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activation_creates_then_loads_the_project_id() {
        let dir = tempfile::tempdir().unwrap();
        let first = activate(dir.path()).unwrap();
        assert!(uuid::Uuid::parse_str(&first.project_id).is_ok());
        let stored = fs::read_to_string(dir.path().join(".infinity/project_id")).unwrap();
        assert_eq!(stored.trim(), first.project_id);
        let second = activate(dir.path()).unwrap();
        assert_eq!(second.project_id, first.project_id);
    }

    #[cfg(unix)]
    #[test]
    fn a_store_or_store_folder_swapped_for_a_link_after_activation_is_neither_read_nor_written() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        fs::create_dir(&outside).unwrap();
        let outside_store = outside.join("memories.json");
        let planted = r#"{"memories":[{"id":"x","title":"planted","type":"note","content":"outside","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}]}"#;
        fs::write(&outside_store, planted).unwrap();
        let project_dir = dir.path().join("p");
        fs::create_dir(&project_dir).unwrap();
        let project = activate(&project_dir).unwrap();
        let policy = WriteContext::new("mcp:test", crate::clock::Clock::system());
        project
            .store(&policy, "first", "design_doc", "inside")
            .unwrap();
        let store = project_dir.join(".infinity/memories.json");
        // The store itself replaced by a link out of the project.
        fs::remove_file(&store).unwrap();
        std::os::unix::fs::symlink(&outside_store, &store).unwrap();
        assert_eq!(project.list(None).unwrap_err().code(), "storage_error");
        assert!(project.store(&policy, "second", "design_doc", "x").is_err());
        // The whole folder exchanged for a linked one, after activation.
        fs::remove_file(&store).unwrap();
        let infinity = project_dir.join(".infinity");
        fs::rename(&infinity, dir.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(&outside, &infinity).unwrap();
        assert_eq!(project.list(None).unwrap_err().code(), "storage_error");
        assert!(project.store(&policy, "third", "design_doc", "x").is_err());
        assert_eq!(fs::read_to_string(&outside_store).unwrap(), planted);
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_store_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        let project = dir.path().join("p");
        fs::create_dir(&project).unwrap();
        std::os::unix::fs::symlink(&elsewhere, project.join(".infinity")).unwrap();
        let err = activate(&project).unwrap_err();
        assert_eq!(err.code(), "cannot_create_project_dir");
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    }

    #[test]
    fn store_get_list_update_delete() {
        let dir = tempfile::tempdir().unwrap();
        let project = activate(dir.path()).unwrap();
        let policy = WriteContext::new("mcp:test", crate::clock::Clock::system());
        let a = project
            .store(&policy, "API", "design_doc", "# API\n")
            .unwrap()
            .id;
        let b = project
            .store(&policy, "Plan", "implementation_plan", "")
            .unwrap()
            .id;
        assert_eq!(
            project
                .store(&policy, "x", "wishlist", "")
                .unwrap_err()
                .code(),
            "invalid_memory_type"
        );
        assert_eq!(
            project
                .store(&policy, " ", "analysis", "")
                .unwrap_err()
                .code(),
            "missing_required_field"
        );
        assert_eq!(project.get(&a).unwrap().content, "# API\n");
        assert_eq!(project.get("nope").unwrap_err().code(), "memory_not_found");
        assert_eq!(project.list(None).unwrap().len(), 2);
        let designs = project.list(Some("design_doc")).unwrap();
        assert_eq!(designs.len(), 1);
        assert_eq!(designs[0].id, a);
        let version = project.get(&b).unwrap().version;
        project
            .update(&policy, &b, "step 1", Some(&version))
            .unwrap();
        let err = project
            .update(&policy, &b, "step 2", Some(&version))
            .unwrap_err();
        assert_eq!(err.code(), "version_conflict");
        let updated = project.get(&b).unwrap();
        assert_eq!(
            (
                updated.title.as_str(),
                updated.kind.as_str(),
                updated.content.as_str()
            ),
            ("Plan", "implementation_plan", "step 1")
        );
        assert!(updated.updated_at.is_some());
        assert_eq!(
            project
                .update(&policy, "nope", "x", None)
                .unwrap_err()
                .code(),
            "memory_not_found"
        );
        project.delete(&policy, &a).unwrap();
        assert_eq!(
            project.delete(&policy, &a).unwrap_err().code(),
            "memory_not_found"
        );
        let text = fs::read_to_string(dir.path().join(".infinity/memories.json")).unwrap();
        assert!(!text.contains(&a));
        assert!(text.contains(&project.project_id));
    }

    /// Markdown of about `bytes` bytes, in short lines.
    fn markdown_of(bytes: usize) -> String {
        "- a note of some length for the store\n".repeat(bytes / 38 + 1)
    }

    #[test]
    fn a_write_that_would_pass_the_size_cap_is_refused_and_the_store_stays_readable() {
        let dir = tempfile::tempdir().unwrap();
        let project = activate(dir.path()).unwrap();
        let policy = WriteContext::new("mcp:test", crate::clock::Clock::system());
        let path = dir.path().join(".infinity/memories.json");
        let small = project
            .store(&policy, "Small", "rules", "keep me")
            .unwrap()
            .id;
        let half = markdown_of(MAX_STORE_BYTES / 2 + 4096);
        project.store(&policy, "Half", "analysis", &half).unwrap();
        let before = fs::read(&path).unwrap();

        let refused = project
            .store(&policy, "Half again", "analysis", &half)
            .unwrap_err();
        assert_eq!(refused.code(), "storage_error");
        let InfinityError::TooLarge(too_large) = &refused else {
            panic!("not refused for its size: {refused}");
        };
        assert!(too_large.bytes > MAX_STORE_BYTES as u64 && !too_large.at_least);
        assert!(
            refused.to_string().contains("; the limit is 16 MiB"),
            "{refused}"
        );

        let refused = project.update(&policy, &small, &half, None).unwrap_err();
        assert_eq!(refused.code(), "storage_error", "{refused}");
        assert!(matches!(refused, InfinityError::TooLarge(_)), "{refused}");

        assert_eq!(fs::read(&path).unwrap(), before, "the store changed");
        assert_eq!(project.list(None).unwrap().len(), 2);
        assert_eq!(project.get(&small).unwrap().content, "keep me");
        // A change that fits is still written.
        project.update(&policy, &small, "kept", None).unwrap();
        assert_eq!(project.get(&small).unwrap().content, "kept");
    }

    #[test]
    fn a_memory_bigger_than_the_store_may_be_is_refused_before_it_is_scanned() {
        let dir = tempfile::tempdir().unwrap();
        let project = activate(dir.path()).unwrap();
        let policy = WriteContext::new("mcp:test", crate::clock::Clock::system());
        let id = project.store(&policy, "Plan", "rules", "one").unwrap().id;
        let path = dir.path().join(".infinity/memories.json");
        let before = fs::read(&path).unwrap();
        // It starts with a secret the guard refuses: the size check comes first.
        let secret = "token: ghp_abcdefghijklmnopqrstuvwxyz0123456789AB\n";
        assert_eq!(
            project
                .store(&policy, "Key", "rules", secret)
                .unwrap_err()
                .code(),
            "secret_detected"
        );
        let huge = format!("{secret}{}", "x".repeat(50 * 1_000_000));
        for refused in [
            project
                .store(&policy, "Huge", "analysis", &huge)
                .unwrap_err(),
            project.update(&policy, &id, &huge, None).unwrap_err(),
        ] {
            assert_eq!(refused.code(), "storage_error", "{refused}");
            let InfinityError::TooLarge(too_large) = &refused else {
                panic!("not refused for its size: {refused}");
            };
            assert!(too_large.at_least, "{refused}");
        }
        assert_eq!(fs::read(&path).unwrap(), before);
    }

    #[test]
    fn a_broken_store_is_a_storage_error_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let project = activate(dir.path()).unwrap();
        let path = dir.path().join(".infinity/memories.json");
        fs::write(&path, "{ broken").unwrap();
        let policy = WriteContext::new("mcp:test", crate::clock::Clock::system());
        assert_eq!(
            project
                .store(&policy, "t", "rules", "x")
                .unwrap_err()
                .code(),
            "storage_error"
        );
        assert_eq!(project.list(None).unwrap_err().code(), "storage_error");
        assert_eq!(fs::read_to_string(&path).unwrap(), "{ broken");
    }
}
