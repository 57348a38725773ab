//! Reading memory files defensively: size caps, binary detection and UTF-8 checks,
//! so bad input becomes a clear error instead of a panic or a hang.
use std::cell::RefCell;
use std::collections::HashMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::{CoreError, Result};
use crate::io::dir_handle::{Dir, FileId};

/// Files above this are reported, not read: no real memory file comes near it,
/// and a runaway agent log must not stall a scan.
pub(crate) const MAX_READ_BYTES: u64 = 16 * 1024 * 1024;

/// Why a path cannot be read as a text file, judged from its metadata alone: folders,
/// FIFOs, sockets and devices are refused before they are opened, because opening a
/// FIFO blocks until something writes to it.
pub(crate) fn refuse_non_file(path: &Path, meta: &std::fs::Metadata) -> Result<()> {
    if meta.is_dir() {
        return Err(CoreError::io(
            path,
            std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a directory"),
        ));
    }
    if !meta.is_file() {
        return Err(CoreError::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file (a FIFO, socket or device); mbank does not read those",
            ),
        ));
    }
    Ok(())
}

/// Reads a file whole as bytes, refusing files over `limit` and anything that is not a
/// regular file once symlinks are followed (folders, FIFOs, sockets, devices such as
/// `/dev/zero`): those are refused from their metadata, before opening (opening a FIFO
/// would wait for a writer), and again from the open handle ([`read_opened`]).
/// For mbank's own files (config, caches) as much as for memory files.
pub(crate) fn read_bytes_limited(path: &Path, limit: u64) -> Result<Vec<u8>> {
    if let Some((bytes, before)) = remembered(path, limit) {
        crate::io::reads::file(path, &before);
        return Ok(bytes);
    }
    let read = read_bytes_checked(path, limit);
    match &read {
        Ok((bytes, before)) => {
            crate::io::reads::file(path, before);
            remember(path, bytes, before);
        }
        Err(e) if is_not_found(e) => crate::io::reads::absent(path),
        // What a refused read found may change with no stamp to show it.
        Err(_) => crate::io::reads::unstampable(),
    }
    read.map(|(bytes, _)| bytes)
}

/// Files read whole on this thread while [`reading_once`] runs, by path, with the
/// metadata each had before it was read.
type ReadOnce = HashMap<PathBuf, (Vec<u8>, fs::Metadata)>;

thread_local! {
    static READ_ONCE: RefCell<Option<ReadOnce>> = const { RefCell::new(None) };
}

/// Runs `work` with each file it reads through [`read_bytes_limited`] read from disk
/// once: validation, the secret scan and the decision log each read a bank's files,
/// and one project's analysis takes them as they were when it first read them.
pub(crate) fn reading_once<T>(work: impl FnOnce() -> T) -> T {
    let outer = READ_ONCE.with(|memo| memo.borrow_mut().replace(HashMap::new()));
    let result = work();
    READ_ONCE.with(|memo| *memo.borrow_mut() = outer);
    result
}

/// A file [`reading_once`] holds, when it is within `limit` as it was read.
fn remembered(path: &Path, limit: u64) -> Option<(Vec<u8>, fs::Metadata)> {
    READ_ONCE.with(|memo| {
        let memo = memo.borrow();
        let (bytes, before) = memo.as_ref()?.get(path)?;
        (before.len() <= limit && bytes.len() as u64 <= limit)
            .then(|| (bytes.clone(), before.clone()))
    })
}

fn remember(path: &Path, bytes: &[u8], before: &fs::Metadata) {
    READ_ONCE.with(|memo| {
        if let Some(memo) = memo.borrow_mut().as_mut() {
            memo.insert(path.to_path_buf(), (bytes.to_vec(), before.clone()));
        }
    });
}

/// [`read_bytes_limited`]'s bytes with the metadata the file had before it was opened.
fn read_bytes_checked(path: &Path, limit: u64) -> Result<(Vec<u8>, std::fs::Metadata)> {
    let before = std::fs::metadata(path).map_err(|e| CoreError::io(path, e))?;
    refuse_non_file(path, &before)?;
    if before.len() > limit {
        return Err(CoreError::TooLarge {
            path: path.to_path_buf(),
            size: before.len(),
            limit,
        });
    }
    let file = std::fs::File::open(path).map_err(|e| CoreError::io(path, e))?;
    Ok((read_opened(path, file, limit)?, before))
}

/// Reads an open file whole, judged by the handle's own metadata (the path may have been
/// swapped since it was checked): anything but a regular file and files over `limit` are
/// refused. The size the handle reports is read in one go, with no further read to find
/// the end; a size of zero may not be the truth (files of virtual file systems), so such
/// a file is read to its end. The read stops after `limit + 1` bytes either way, so a
/// file that grows meanwhile cannot exhaust memory.
pub(crate) fn read_opened(path: &Path, file: std::fs::File, limit: u64) -> Result<Vec<u8>> {
    read_opened_with_meta(path, file, limit).map(|(bytes, _)| bytes)
}

/// [`read_opened`]'s bytes with the metadata the handle reported before reading.
fn read_opened_with_meta(
    path: &Path,
    mut file: std::fs::File,
    limit: u64,
) -> Result<(Vec<u8>, fs::Metadata)> {
    let meta = file.metadata().map_err(|e| CoreError::io(path, e))?;
    refuse_non_file(path, &meta)?;
    if meta.len() > limit {
        return Err(CoreError::TooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    let wanted = match meta.len() {
        0 => limit + 1,
        size => size,
    };
    file.by_ref()
        .take(wanted)
        .read_to_end(&mut bytes)
        .map_err(|e| CoreError::io(path, e))?;
    if bytes.len() as u64 > limit {
        return Err(CoreError::TooLarge {
            path: path.to_path_buf(),
            size: bytes.len() as u64,
            limit,
        });
    }
    Ok((bytes, meta))
}

/// Reads an open file whole as [`read_opened`] does; within [`reading_once`], the bytes
/// are kept for the next [`read_bytes_limited`] of `path`, so a file read for its token
/// figures is not read again for validation.
pub(crate) fn read_opened_once(path: &Path, file: std::fs::File, limit: u64) -> Result<Vec<u8>> {
    let (bytes, meta) = read_opened_with_meta(path, file, limit)?;
    remember(path, &bytes, &meta);
    Ok(bytes)
}

/// Reads a text file whole, refusing binaries, invalid UTF-8, files over `limit`, and
/// anything that is not a regular file ([`read_bytes_limited`]).
pub(crate) fn read_text_limited(path: &Path, limit: u64) -> Result<String> {
    decode_text(path, read_bytes_limited(path, limit)?)
}

/// True when `error` says the file does not exist (a missing optional file).
pub fn is_not_found(error: &CoreError) -> bool {
    matches!(error, CoreError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
}

/// Reads a text file with the default cap.
pub fn read_text(path: &Path) -> Result<String> {
    read_text_limited(path, MAX_READ_BYTES)
}

/// Turns raw bytes into text: strips a UTF-8 BOM, rejects NUL-bearing (binary) data and
/// invalid UTF-8 with the offset of the first bad byte.
pub(crate) fn decode_text(path: &Path, mut bytes: Vec<u8>) -> Result<String> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        bytes.drain(..3);
    }
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(CoreError::Binary {
            path: path.to_path_buf(),
        });
    }
    String::from_utf8(bytes).map_err(|e| CoreError::InvalidUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// Line and character counts as a person sees them (a trailing newline adds no line).
pub(crate) fn line_and_char_counts(text: &str) -> (usize, usize) {
    // What `text.lines().count()` says, from one byte count instead of a search per
    // line: every line ends at a '\n' except an unterminated last one. Characters are
    // the bytes that do not continue one (0b10xxxxxx). Both are counted in one pass,
    // in runs short enough for byte-wide counters, which the compiler turns into wide
    // vector adds (a `usize` counter per byte vectorises poorly).
    let (mut breaks, mut chars) = (0, 0);
    for run in text.as_bytes().chunks(u8::MAX as usize) {
        let (mut run_breaks, mut run_chars) = (0u8, 0u8);
        for &byte in run {
            run_breaks += u8::from(byte == b'\n');
            run_chars += u8::from((byte as i8) >= -0x40);
        }
        breaks += usize::from(run_breaks);
        chars += usize::from(run_chars);
    }
    let lines = breaks + usize::from(!text.is_empty() && !text.ends_with('\n'));
    (lines, chars)
}

/// A count with its noun in the right number: "1 file", "2 files", "0 files". `noun` is
/// the singular; nouns with an irregular plural go through [`counted_as`].
/// Whether `a` becomes `b` with at most `max` single-character insertions, deletions or
/// substitutions (for short words: quadratic in their length).
pub(crate) fn edit_distance_at_most(a: &str, b: &str, max: usize) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > max {
        return false;
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()] <= max
}

pub fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// [`counted`] with the plural spelled out ("1 entry", "3 entries").
pub fn counted_as(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// Time since `then` in a few words: "just now", "5 min", "3 h", "12 d" (`—` unknown).
pub fn age_in_words(then: Option<u64>, now: u64) -> String {
    let Some(then) = then else {
        return "—".into();
    };
    let seconds = now.saturating_sub(then);
    match seconds {
        0..60 => "just now".into(),
        60..3600 => format!("{} min", seconds / 60),
        3600..86_400 => format!("{} h", seconds / 3600),
        _ => format!("{} d", seconds / 86_400),
    }
}

/// A text file read through a folder handle: its text (a BOM dropped), and the file's
/// identity and metadata, so a later write can insist on the same file.
#[derive(Debug)]
pub(crate) struct HandleRead {
    pub text: String,
    pub id: FileId,
    pub meta: fs::Metadata,
}

/// Reads the text file `rel` below `dir` with no link followed (`None`: nothing there);
/// the read checks of [`crate::io::text::read_text`].
pub(crate) fn read_text_in(dir: &Dir, rel: &Path) -> Result<Option<HandleRead>> {
    let path = dir.path().join(rel);
    let (file, meta) = match dir.open_file(rel) {
        Ok(opened) => opened,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let limit = crate::io::text::MAX_READ_BYTES;
    let too_large = |size: u64| CoreError::TooLarge {
        path: path.clone(),
        size,
        limit,
    };
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // take() guards against a file that grows while it is read.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CoreError::io(&path, e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(Some(HandleRead {
        text: crate::io::text::decode_text(&path, bytes)?,
        id: FileId::of(&meta),
        meta,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_in_the_right_number() {
        assert_eq!(counted(1, "file"), "1 file");
        assert_eq!(counted(2, "file"), "2 files");
        assert_eq!(counted(0, "decision"), "0 decisions");
        assert_eq!(counted_as(3, "entry", "entries"), "3 entries");
        assert_eq!(counted_as(1, "entry", "entries"), "1 entry");
    }

    #[test]
    fn bom_is_stripped_and_counts_are_human() {
        let text = decode_text(Path::new("x.md"), b"\xEF\xBB\xBF# A\nb\n".to_vec()).unwrap();
        assert_eq!(text, "# A\nb\n");
        assert_eq!(line_and_char_counts(&text), (2, 6));
        assert_eq!(line_and_char_counts(""), (0, 0));
        for text in [
            "a",
            "\n",
            "a\n",
            "a\nb",
            "a\n\n",
            "\r\n",
            "a\r\nb\r",
            "é\n日本\n\n x",
            // Past one counting run, with characters across its ends.
            &"ab\né日本😀\n".repeat(100),
            &"\n".repeat(600),
            &"é".repeat(300),
        ] {
            assert_eq!(
                line_and_char_counts(text),
                (text.lines().count(), text.chars().count()),
                "{text:?}"
            );
        }
    }

    #[test]
    fn binary_and_invalid_utf8_are_typed_errors() {
        let err = decode_text(Path::new("b.md"), vec![b'a', 0, b'b']).unwrap_err();
        assert!(matches!(err, CoreError::Binary { .. }), "{err}");
        let err = decode_text(Path::new("u.md"), vec![b'a', b'b', 0xFF, b'c']).unwrap_err();
        match err {
            CoreError::InvalidUtf8 { offset, .. } => assert_eq!(offset, 2),
            other => panic!("unexpected {other}"),
        }
    }

    #[cfg(unix)]
    #[test]
    fn fifos_and_folders_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.md");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let err = read_text(&fifo).unwrap_err().to_string();
            assert!(err.contains("pipe.md") && err.contains("FIFO"), "{err}");
        }
        let folder = dir.path().join("x.md");
        std::fs::create_dir(&folder).unwrap();
        let err = read_text(&folder).unwrap_err().to_string();
        assert!(err.contains("x.md") && err.contains("directory"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn devices_behind_links_and_sparse_giants_are_refused_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let zero = dir.path().join("cache.bin");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let err = read_bytes_limited(&zero, 1024).unwrap_err().to_string();
        assert!(
            err.contains("cache.bin") && err.contains("not a regular file"),
            "{err}"
        );
        // Ten times the limit, sparse: refused from its size, nothing is read.
        let giant = dir.path().join("giant.bin");
        std::fs::File::create(&giant)
            .unwrap()
            .set_len(10 << 30)
            .unwrap();
        let err = read_bytes_limited(&giant, 1 << 30).unwrap_err();
        assert!(
            matches!(err, CoreError::TooLarge { size, .. } if size == 10 << 30),
            "{err}"
        );
        let missing = read_bytes_limited(&dir.path().join("none"), 1).unwrap_err();
        assert!(is_not_found(&missing));
        std::fs::write(dir.path().join("ok.bin"), [0u8, 1, 2]).unwrap();
        assert_eq!(
            read_bytes_limited(&dir.path().join("ok.bin"), 3).unwrap(),
            [0, 1, 2]
        );
    }

    #[test]
    fn oversized_files_are_refused_before_reading() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.md");
        std::fs::write(&path, vec![b'a'; 2048]).unwrap();
        let err = read_text_limited(&path, 1024).unwrap_err();
        assert!(
            matches!(err, CoreError::TooLarge { size: 2048, .. }),
            "{err}"
        );
        assert_eq!(read_text_limited(&path, 4096).unwrap().len(), 2048);
    }
}
