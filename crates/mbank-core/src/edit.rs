//! Editing a memory file so that a save changes only the edit.
//!
//! What a person (the TUI editor) or an agent (the coming server) edits is text with
//! `\n` line breaks and no byte-order mark: [`EditText::text`]. How the file writes that
//! text, its line endings and its BOM, is remembered at load and re-applied on save, and
//! the write itself keeps the file's permissions, owner and group
//! ([`write::write_guarded`]). Editing one line of a CRLF file changes that line's bytes
//! and nothing else.
//!
//! Line endings: an LF or a CRLF file gets its ending on every line. A file that mixes
//! both ([`LineEnding::Mixed`]) keeps each untouched line's own ending: the edited text
//! is matched line by line against the text as loaded, a line kept or edited in place
//! keeps the ending it had, and a new line takes the ending most lines of the file have
//! (CRLF on a tie).
//!
//! Saving goes through [`write::resolve_target`] (confinement to the bank) and
//! [`write::write_guarded`] (atomic, and refused when the file changed since it was
//! loaded: [`crate::error::CoreError::Conflict`]).
use std::io::Read;
use std::path::Path;

use serde::Serialize;
use similar::{Algorithm, DiffOp};

use crate::error::{CoreError, Result};
use crate::formats::infinity;
use crate::io::lock;
use crate::io::text;
use crate::model::{Bank, Project};
use crate::scan::bank;
use crate::write::{
    self, Applied, Change, Expected, Target, WriteContext, WriteOutcome, WriteRequest,
};

const UTF8_BOM: &[u8] = &[0xEF, 0xBB, 0xBF];

/// How a text ends its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LineEnding {
    /// `\n` only (also a text without line breaks).
    Lf,
    /// `\r\n` only.
    CrLf,
    /// Both.
    Mixed,
}

/// A file (or one Infinity memory of a store) as loaded for editing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditText {
    /// What is edited: `\n` line breaks, no byte-order mark.
    pub text: String,
    /// How `text`'s lines end on disk.
    pub line_ending: LineEnding,
    /// The file starts with a UTF-8 byte-order mark.
    pub bom: bool,
    /// What is on disk: a save replaces the file only while it still holds this.
    pub expected: Expected,
    /// The file's text as read (BOM dropped, line endings as on disk); for an Infinity
    /// memory, the whole store. Compare it with a fresh read to tell whether the file
    /// changed.
    pub disk_text: String,
    /// The Infinity memory `text` is the content of, inside the store.
    pub memory_id: Option<String>,
    /// Whether each line break of `text` is CRLF on disk, in order.
    crlf_breaks: Vec<bool>,
    /// For an Infinity memory: the store's own line ending.
    store_line_ending: LineEnding,
}

/// A successful save: what the write did, and the file as it is now (pass it to the next
/// save without reloading).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    pub outcome: WriteOutcome,
    pub now: EditText,
}

/// Splits `text` at `\n` into the text with `\n` breaks and, per break, whether a `\r`
/// stood before it.
fn split_endings(text: &str) -> (String, Vec<bool>) {
    if !text.contains('\r') {
        return (text.to_string(), vec![false; text.matches('\n').count()]);
    }
    let mut out = String::with_capacity(text.len());
    let mut breaks = Vec::new();
    let mut pieces = text.split('\n').peekable();
    while let Some(piece) = pieces.next() {
        if pieces.peek().is_some() {
            match piece.strip_suffix('\r') {
                Some(line) => {
                    out.push_str(line);
                    breaks.push(true);
                }
                None => {
                    out.push_str(piece);
                    breaks.push(false);
                }
            }
            out.push('\n');
        } else {
            out.push_str(piece);
        }
    }
    (out, breaks)
}

fn ending_of(breaks: &[bool]) -> LineEnding {
    match (breaks.iter().any(|&b| b), breaks.iter().any(|&b| !b)) {
        (true, true) => LineEnding::Mixed,
        (true, false) => LineEnding::CrLf,
        (false, _) => LineEnding::Lf,
    }
}

/// The ending most breaks have: what a new line of a mixed file gets.
fn majority_is_crlf(breaks: &[bool]) -> bool {
    let crlf = breaks.iter().filter(|&&b| b).count();
    crlf * 2 >= breaks.len() && crlf > 0
}

/// Joins `lines` with `\n` or `\r\n` as `crlf(i)` says for the break after line `i`.
fn join_with(lines: &[&str], crlf: impl Fn(usize) -> bool) -> String {
    let mut out = String::with_capacity(lines.iter().map(|l| l.len() + 2).sum());
    for (i, line) in lines.iter().enumerate() {
        out.push_str(line);
        if i + 1 < lines.len() {
            out.push_str(if crlf(i) { "\r\n" } else { "\n" });
        }
    }
    out
}

/// `text` with `\n` breaks, written the way `breaks` (the breaks of `original`) were:
/// see the module documentation.
fn reapply(original: &str, breaks: &[bool], text: &str) -> String {
    match ending_of(breaks) {
        LineEnding::Lf => text.to_string(),
        LineEnding::CrLf => text.replace('\n', "\r\n"),
        LineEnding::Mixed => {
            let old: Vec<&str> = original.split('\n').collect();
            let new: Vec<&str> = text.split('\n').collect();
            let majority = majority_is_crlf(breaks);
            // For each new line, the old line it stands for (kept, or edited in place).
            let mut source: Vec<Option<usize>> = vec![None; new.len()];
            let deadline = std::time::Instant::now() + std::time::Duration::from_millis(500);
            let ops =
                similar::capture_diff_slices_deadline(Algorithm::Myers, &old, &new, Some(deadline));
            for op in ops {
                match op {
                    DiffOp::Equal {
                        old_index,
                        new_index,
                        len,
                    } => {
                        for k in 0..len {
                            source[new_index + k] = Some(old_index + k);
                        }
                    }
                    DiffOp::Replace {
                        old_index,
                        old_len,
                        new_index,
                        new_len,
                    } => {
                        for k in 0..new_len.min(old_len) {
                            source[new_index + k] = Some(old_index + k);
                        }
                    }
                    DiffOp::Delete { .. } | DiffOp::Insert { .. } => {}
                }
            }
            join_with(&new, |i| {
                source[i]
                    .and_then(|old_line| breaks.get(old_line).copied())
                    .unwrap_or(majority)
            })
        }
    }
}

/// Reads a regular file's bytes, refusing what `text::read_text` refuses (folders,
/// FIFOs, devices, files over [`text::MAX_READ_BYTES`]).
fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    let limit = text::MAX_READ_BYTES;
    let not_a_file = || {
        CoreError::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file (a folder, FIFO, socket or device)",
            ),
        )
    };
    // Checked before opening: opening a FIFO blocks until something writes to it.
    let before = std::fs::metadata(path).map_err(|e| CoreError::io(path, e))?;
    if !before.is_file() {
        return Err(not_a_file());
    }
    let file = std::fs::File::open(path).map_err(|e| CoreError::io(path, e))?;
    let meta = file.metadata().map_err(|e| CoreError::io(path, e))?;
    if !meta.is_file() {
        return Err(not_a_file());
    }
    let too_large = |size| CoreError::TooLarge {
        path: path.to_path_buf(),
        size,
        limit,
    };
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CoreError::io(path, e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

impl EditText {
    /// A file's bytes as loaded for editing (`path` names it in errors).
    pub fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<EditText> {
        let expected = Expected::bytes(&bytes);
        let bom = bytes.starts_with(UTF8_BOM);
        // `decode_text` drops the BOM and refuses binary and invalid UTF-8.
        let disk_text = text::decode_text(path, bytes)?;
        let (text, crlf_breaks) = split_endings(&disk_text);
        Ok(EditText {
            line_ending: ending_of(&crlf_breaks),
            store_line_ending: LineEnding::Lf,
            text,
            bom,
            expected,
            disk_text,
            memory_id: None,
            crlf_breaks,
        })
    }

    /// One Infinity memory of a store's bytes: its content is what is edited.
    pub(crate) fn memory_from_bytes(store: &Path, id: &str, bytes: Vec<u8>) -> Result<EditText> {
        let file = EditText::from_bytes(store, bytes)?;
        let (parsed, _) =
            infinity::store::parse_store(&file.disk_text).map_err(|e| CoreError::Parse {
                path: store.to_path_buf(),
                message: e.to_string(),
            })?;
        let content = parsed
            .memories
            .into_iter()
            .find(|m| m.id == id)
            .map(|m| m.content)
            .ok_or_else(|| CoreError::Parse {
                path: store.to_path_buf(),
                message: format!("memory {id} is no longer in the store"),
            })?;
        let (text, crlf_breaks) = split_endings(&content);
        Ok(EditText {
            line_ending: ending_of(&crlf_breaks),
            store_line_ending: file.line_ending,
            text,
            crlf_breaks,
            memory_id: Some(id.to_string()),
            ..file
        })
    }

    /// `new_text` (with `\n` breaks) as it will be written: this file's line endings
    /// re-applied (for an Infinity memory, to the content). The BOM is the write's.
    pub fn encode(&self, new_text: &str) -> String {
        reapply(&self.text, &self.crlf_breaks, new_text)
    }

    /// The file's bytes as they were read (BOM included): a backup of this version.
    pub fn disk_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.disk_text.len() + 3);
        if self.bom {
            bytes.extend_from_slice(UTF8_BOM);
        }
        bytes.extend_from_slice(self.disk_text.as_bytes());
        bytes
    }

    /// Whether the file still holds what was loaded (`false` when it cannot be read).
    #[cfg(test)]
    pub(crate) fn unchanged_on_disk(&self, path: &Path) -> bool {
        read_bytes(path).is_ok_and(|bytes| Expected::bytes(&bytes) == self.expected)
    }

    /// The whole file to write for `new_text`, BOM excluded.
    fn file_text(&self, path: &Path, new_text: &str, stamp: &str) -> Result<String> {
        let encoded = self.encode(new_text);
        let Some(id) = &self.memory_id else {
            return Ok(encoded);
        };
        let store = infinity::store::replace_content(&self.disk_text, id, &encoded, stamp)
            .map_err(|message| CoreError::Parse {
                path: path.to_path_buf(),
                message,
            })?;
        // The store is written pretty-printed with `\n`: give it the file's endings back.
        let (_, store_breaks) = split_endings(&self.disk_text);
        Ok(match self.store_line_ending {
            LineEnding::Lf => store,
            LineEnding::CrLf => store.replace('\n', "\r\n"),
            LineEnding::Mixed if majority_is_crlf(&store_breaks) => store.replace('\n', "\r\n"),
            LineEnding::Mixed => store,
        })
    }
}

/// Loads a file for editing.
pub(crate) fn load_for_edit(path: &Path) -> Result<EditText> {
    EditText::from_bytes(path, read_bytes(path)?)
}

/// Loads one Infinity memory of the store at `store` for editing.
pub(crate) fn load_memory_for_edit(store: &Path, id: &str) -> Result<EditText> {
    EditText::memory_from_bytes(store, id, read_bytes(store)?)
}

/// A file (or one Infinity memory of a store) as an editor opens it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Editable {
    /// The text to edit and what a save needs to change only the edit.
    pub edit: EditText,
    /// Why a save would fail, when it is known before trying (a read-only file).
    pub read_only: Option<String>,
}

/// Opens a file for editing, or the Infinity memory `memory_id` of the store at `path`:
/// the one way an editor reads what it will save with [`save_in_project`].
pub fn open_for_edit(path: &Path, memory_id: Option<&str>) -> Result<Editable> {
    let edit = match memory_id {
        None => load_for_edit(path)?,
        Some(id) => load_memory_for_edit(path, id)?,
    };
    let read_only = std::fs::metadata(path)
        .map(|m| m.permissions().readonly())
        .unwrap_or(false)
        .then(|| "the file is read-only on disk".to_string());
    Ok(Editable { edit, read_only })
}

/// Saves `new_text` over a file of `bank` named relative to the bank's folder, as it was
/// loaded in `original`: the name is confined by [`write::resolve_target`], the write
/// guarded by `original.expected`, the file's line endings and BOM re-applied, its
/// permissions, owner and group kept. For an Infinity memory, name the store
/// (`memories.json`): the memory's content is replaced, its id, type and title kept.
pub(crate) fn save_edit(
    ctx: &WriteContext,
    bank: &Bank,
    relative_name: &str,
    original: &EditText,
    new_text: &str,
) -> Result<Saved> {
    let target = write::resolve_target(bank, relative_name)?;
    save_resolved(ctx, &target, original, new_text)
}

/// `save_edit` for a file of `project` named by its path (the TUI's editor): the bank
/// it belongs to is found in a fresh listing of the project's banks, and the name
/// relative to that bank's folder goes through [`write::resolve_target`] like any other.
/// A path no bank lists is refused ([`CoreError::Confined`]).
pub fn save_in_project(
    ctx: &WriteContext,
    project: &Project,
    path: &Path,
    original: &EditText,
    new_text: &str,
) -> Result<Saved> {
    let refused = |reason: String| CoreError::Confined {
        name: path.display().to_string(),
        reason,
    };
    let banks = bank::list_banks(project);
    let bank = banks
        .iter()
        .find(|b| b.files.iter().any(|f| f.path == path))
        .ok_or_else(|| {
            refused(format!(
                "it is not a file of any memory bank of {}",
                project.name
            ))
        })?;
    let relative = path
        .strip_prefix(&bank.root)
        .ok()
        .and_then(Path::to_str)
        .ok_or_else(|| {
            refused(format!(
                "its name relative to {} is not UTF-8 text",
                bank.root.display()
            ))
        })?;
    save_edit(ctx, bank, relative, original, new_text)
}

/// [`save_edit`] for a path already returned by [`write::resolve_target`].
pub(crate) fn save_resolved(
    ctx: &WriteContext,
    target: &Path,
    original: &EditText,
    new_text: &str,
) -> Result<Saved> {
    if original.memory_id.is_some()
        && target.file_name() != Some(std::ffi::OsStr::new(infinity::STORE_FILE))
    {
        return Err(CoreError::Confined {
            name: target.display().to_string(),
            reason: format!(
                "Infinity memories live in a file named {}",
                infinity::STORE_FILE
            ),
        });
    }
    // One writer at a time in this folder: the servers and `mbank review` take the same lock.
    let _lock = lock::for_file(target)?;
    let file_text = original.file_text(target, new_text, &ctx.stamp())?;
    // The text the save replaces goes to the history first (a file still as loaded;
    // a changed one fails the guarded write below anyway).
    let replaced = match &ctx.history {
        None => None,
        Some(_) => match crate::io::text::read_text(target) {
            Ok(replaced) => Some(replaced),
            Err(e) if crate::io::text::is_not_found(&e) => None,
            Err(e) => return Err(e),
        },
    };
    let applied = write::apply(
        ctx,
        WriteRequest {
            key: &crate::history::key_of(target),
            target: Target::Path(target),
            replaced: replaced.as_deref(),
            expected: original.expected,
            change: Change::Write(&file_text),
        },
    )?;
    let Applied::Written { outcome, .. } = applied else {
        return Err(CoreError::Conflict {
            path: target.to_path_buf(),
        });
    };
    let mut bytes = Vec::with_capacity(file_text.len() + 3);
    // The BOM write_guarded kept (a text that starts with one gets no second).
    if original.bom && !file_text.starts_with('\u{FEFF}') {
        bytes.extend_from_slice(UTF8_BOM);
    }
    bytes.extend_from_slice(file_text.as_bytes());
    let now = match &original.memory_id {
        Some(id) => EditText::memory_from_bytes(target, id, bytes)?,
        None => EditText::from_bytes(target, bytes)?,
    };
    debug_assert_eq!(now.expected, outcome.now);
    Ok(Saved { outcome, now })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, MemoryFile, Role};
    use std::fs;

    fn tui() -> WriteContext {
        WriteContext::new("tui", crate::clock::Clock::fixed_on(2026, 11, 28).unwrap())
    }

    fn bank_of(root: &Path, names: &[&str]) -> Bank {
        Bank {
            format: Format::Cline,
            root: root.to_path_buf(),
            files: names
                .iter()
                .map(|n| MemoryFile::for_test(root.join(n), n, Role::Other))
                .collect(),
            project_id: None,
            modes: Vec::new(),
            problems: Vec::new(),
            outside: Vec::new(),
            parsed_store: None,
        }
    }

    fn loaded(bytes: &[u8]) -> EditText {
        EditText::from_bytes(Path::new("x.md"), bytes.to_vec()).unwrap()
    }

    #[test]
    fn endings_and_bom_are_detected_and_the_text_is_lf() {
        let crlf = loaded(b"\xEF\xBB\xBF# A\r\nb\r\n");
        assert_eq!(
            (crlf.text.as_str(), crlf.line_ending, crlf.bom),
            ("# A\nb\n", LineEnding::CrLf, true)
        );
        let lf = loaded(b"a\nb");
        assert_eq!((lf.line_ending, lf.bom), (LineEnding::Lf, false));
        assert_eq!(loaded(b"one line").line_ending, LineEnding::Lf);
        let mixed = loaded(b"a\r\nb\nc\r\n");
        assert_eq!(
            (mixed.text.as_str(), mixed.line_ending),
            ("a\nb\nc\n", LineEnding::Mixed)
        );
        // A carriage return inside a line is content, not an ending.
        let lone = loaded(b"a\rb\n");
        assert_eq!(
            (lone.text.as_str(), lone.line_ending),
            ("a\rb\n", LineEnding::Lf)
        );
    }

    #[test]
    fn unedited_text_encodes_to_the_same_bytes() {
        for bytes in [
            &b"a\r\nb\r\n"[..],
            b"a\nb",
            b"a\r\nb\nc\r\n\r\n",
            b"x\r\r\ny\n",
            b"",
            b"\r\n",
        ] {
            let edit = loaded(bytes);
            assert_eq!(edit.encode(&edit.text).as_bytes(), bytes, "{bytes:?}");
        }
    }

    #[test]
    fn mixed_files_keep_each_untouched_line_ending() {
        let edit = loaded(b"one\r\ntwo\nthree\r\nfour\n");
        // Line two edited in place keeps its LF; a line inserted after three takes the
        // majority (a tie: CRLF); the others keep theirs.
        let encoded = edit.encode("one\nTWO\nthree\ninserted\nfour\n");
        assert_eq!(encoded, "one\r\nTWO\nthree\r\ninserted\r\nfour\n");
        // Deleting a line takes its ending with it.
        assert_eq!(edit.encode("one\nthree\nfour\n"), "one\r\nthree\r\nfour\n");
        let mostly_lf = loaded(b"a\nb\nc\r\n");
        assert_eq!(mostly_lf.encode("a\nnew\nb\nc\n"), "a\nnew\nb\nc\r\n");
    }

    #[test]
    fn a_save_changes_only_the_edited_line_and_keeps_the_bom() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("memory-bank");
        fs::create_dir(&root).unwrap();
        let path = root.join("progress.md");
        let original = b"\xEF\xBB\xBF# Progress\r\n- one\r\n- two\r\n";
        fs::write(&path, original).unwrap();
        let bank = bank_of(&root, &["progress.md"]);
        let edit = load_for_edit(&path).unwrap();
        let new_text = edit.text.replace("- one", "- ONE");
        let saved = save_edit(&tui(), &bank, "progress.md", &edit, &new_text).unwrap();
        assert_eq!(
            fs::read(&path).unwrap(),
            b"\xEF\xBB\xBF# Progress\r\n- ONE\r\n- two\r\n"
        );
        // The result chains into the next save.
        assert_eq!(saved.now.text, new_text);
        assert_eq!(saved.now, load_for_edit(&path).unwrap());
        let again = saved.now.text.replace("- two", "- TWO");
        save_edit(&tui(), &bank, "progress.md", &saved.now, &again).unwrap();
        assert_eq!(
            fs::read(&path).unwrap(),
            b"\xEF\xBB\xBF# Progress\r\n- ONE\r\n- TWO\r\n"
        );
        // A stale original is a conflict; nothing is written.
        let err = save_edit(&tui(), &bank, "progress.md", &edit, "lost\n").unwrap_err();
        assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
        // Confinement comes first.
        let err = save_edit(&tui(), &bank, "../outside.md", &edit, "x").unwrap_err();
        assert!(matches!(err, CoreError::Confined { .. }), "{err}");
    }

    #[test]
    fn a_save_past_the_read_limit_is_refused_bom_included() {
        let limit = crate::guard::MAX_FILE_BYTES as usize;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("memory-bank");
        fs::create_dir(&root).unwrap();
        let path = root.join("progress.md");
        fs::write(&path, b"\xEF\xBB\xBF# Progress\n").unwrap();
        let bank = bank_of(&root, &["progress.md"]);
        let edit = load_for_edit(&path).unwrap();
        // Two bytes under the limit as text: the BOM the save keeps takes the file past it.
        let mut new_text = "# Progress\n".to_string();
        new_text.push_str(&"x".repeat(limit - 2 - new_text.len() - 1));
        new_text.push('\n');
        for text in [new_text.clone(), new_text.clone() + "more\n"] {
            let err = save_edit(&tui(), &bank, "progress.md", &edit, &text).unwrap_err();
            let CoreError::Refused { rule, message, .. } = &err else {
                panic!("{err}");
            };
            assert_eq!(*rule, "size");
            assert!(message.contains("progress.md"), "{message}");
            assert!(message.contains("16777216-byte"), "{message}");
            assert_eq!(fs::read(&path).unwrap(), b"\xEF\xBB\xBF# Progress\n");
        }
        // A byte less fits, BOM included, and reads back.
        new_text.remove(new_text.len() - 2);
        save_edit(&tui(), &bank, "progress.md", &edit, &new_text).unwrap();
        assert_eq!(crate::io::text::read_text(&path).unwrap(), new_text);
    }

    #[test]
    fn infinity_memories_keep_content_and_store_endings_and_the_bom() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("memories.json");
        let json = "{\r\n  \"project_id\": \"p\",\r\n  \"memories\": [\r\n    {\r\n      \"content\": \"a\\r\\nb\\r\\n\",\r\n      \"created_at\": \"2026-01-01T00:00:00Z\",\r\n      \"id\": \"m1\",\r\n      \"title\": \"Plan\",\r\n      \"type\": \"implementation_plan\"\r\n    }\r\n  ]\r\n}\r\n";
        let mut bytes = UTF8_BOM.to_vec();
        bytes.extend_from_slice(json.as_bytes());
        fs::write(&store, &bytes).unwrap();
        let edit = load_memory_for_edit(&store, "m1").unwrap();
        assert_eq!(
            (edit.text.as_str(), edit.line_ending, edit.bom),
            ("a\nb\n", LineEnding::CrLf, true)
        );
        let saved = save_resolved(&tui(), &store, &edit, "a\nB\n").unwrap();
        let written = fs::read(&store).unwrap();
        assert!(written.starts_with(UTF8_BOM));
        let written = String::from_utf8(written[3..].to_vec()).unwrap();
        assert!(!written.replace("\r\n", "").contains('\n'), "{written}");
        let (parsed, _) = infinity::store::parse_store(&written).unwrap();
        assert_eq!(parsed.memories[0].content, "a\r\nB\r\n");
        assert_eq!(parsed.memories[0].title, "Plan");
        assert_eq!(saved.now.text, "a\nB\n");
        let err = save_resolved(&tui(), &dir.path().join("other.json"), &edit, "x").unwrap_err();
        assert!(matches!(err, CoreError::Confined { .. }), "{err}");
    }

    #[test]
    fn unchanged_on_disk_compares_the_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        fs::write(&path, "a\r\n").unwrap();
        let edit = load_for_edit(&path).unwrap();
        assert!(edit.unchanged_on_disk(&path));
        fs::write(&path, "a\n").unwrap();
        assert!(!edit.unchanged_on_disk(&path));
        fs::remove_file(&path).unwrap();
        assert!(!edit.unchanged_on_disk(&path));
    }
}
