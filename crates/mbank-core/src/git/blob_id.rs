//! Git's object id of a work-tree file as its bytes are (what `git hash-object
//! --no-filters` prints), computed here. A `git` process costs about a millisecond to
//! start; hashing a memory file costs microseconds, and a check after every commit hashed
//! one batch plus one process per symbolic link.
use std::fs::File;
use std::io::Read;
use std::path::Path;

use sha1::Digest;

use super::command::os_bytes;

/// Work-tree files larger than this are not hashed: they count as changed.
pub(super) const MAX_HASHED_BYTES: u64 = 64 * 1024 * 1024;

/// The hash a repository names its objects by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ObjectFormat {
    Sha1,
    Sha256,
}

impl ObjectFormat {
    /// The format whose ids are spelled like `id` (hexadecimal digits, 40 or 64 of them).
    pub(crate) fn of_id(id: &str) -> Option<ObjectFormat> {
        if !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        match id.len() {
            40 => Some(ObjectFormat::Sha1),
            64 => Some(ObjectFormat::Sha256),
            _ => None,
        }
    }

    /// The id of a blob holding `bytes`: the hash of `blob <length>\0` and the bytes.
    pub(crate) fn blob_id(self, bytes: &[u8]) -> String {
        let header = format!("blob {}\0", bytes.len());
        match self {
            ObjectFormat::Sha1 => hex(&sha1::Sha1::new()
                .chain_update(header)
                .chain_update(bytes)
                .finalize()),
            ObjectFormat::Sha256 => hex(&sha2::Sha256::new()
                .chain_update(header)
                .chain_update(bytes)
                .finalize()),
        }
    }

    /// The blob id of the work-tree entry at `path` as git would store it: a regular
    /// file's bytes, or a symbolic link's target as text. `None` for a file that is
    /// missing, of another kind, larger than [`MAX_HASHED_BYTES`], unreadable, or that
    /// changed size while it was read.
    pub(crate) fn worktree_blob(self, path: &Path) -> Option<String> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(path).ok()?;
            return Some(self.blob_id(&os_bytes(target.as_os_str())));
        }
        if !meta.is_file() || meta.len() > MAX_HASHED_BYTES {
            return None;
        }
        let file = File::open(path).ok()?;
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).ok()?);
        file.take(MAX_HASHED_BYTES + 1)
            .read_to_end(&mut bytes)
            .ok()?;
        (bytes.len() as u64 == meta.len()).then(|| self.blob_id(&bytes))
    }
}

fn hex(digest: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(digest.len() * 2);
    for byte in digest {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_repo::git;

    #[test]
    fn ids_are_git_s_own() {
        // `printf 'hello\n' | git hash-object --stdin`, and the empty blob, in both formats.
        assert_eq!(
            ObjectFormat::Sha1.blob_id(b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        assert_eq!(
            ObjectFormat::Sha1.blob_id(b""),
            "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
        );
        assert_eq!(
            ObjectFormat::Sha256.blob_id(b""),
            "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"
        );
    }

    #[test]
    fn the_format_follows_the_length_of_an_id() {
        assert_eq!(
            ObjectFormat::of_id("ce013625030ba8dba906f756967f9e9ca394464a"),
            Some(ObjectFormat::Sha1)
        );
        assert_eq!(
            ObjectFormat::of_id(&"a".repeat(64)),
            Some(ObjectFormat::Sha256)
        );
        assert_eq!(ObjectFormat::of_id("ce01"), None);
        assert_eq!(ObjectFormat::of_id(&"g".repeat(40)), None);
    }

    #[test]
    fn work_tree_entries_hash_as_git_hashes_them() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        git(root, &["init", "-q"]);
        std::fs::write(root.join("notes.md"), "# Notes\r\nline\0with a zero\n").expect("write");
        std::fs::write(root.join("empty.md"), "").expect("write");
        #[cfg(unix)]
        std::os::unix::fs::symlink("notes.md", root.join("link.md")).expect("link");
        let mut names = vec!["notes.md", "empty.md"];
        if cfg!(unix) {
            names.push("link.md");
        }
        for name in names {
            let ours = ObjectFormat::Sha1
                .worktree_blob(&root.join(name))
                .expect("hashed");
            let theirs = if name == "link.md" {
                let output = std::process::Command::new("git")
                    .args(["hash-object", "--stdin"])
                    .current_dir(root)
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .spawn()
                    .and_then(|mut child| {
                        use std::io::Write;
                        child.stdin.take().expect("stdin").write_all(b"notes.md")?;
                        child.wait_with_output()
                    })
                    .expect("git hash-object");
                String::from_utf8_lossy(&output.stdout).trim().to_string()
            } else {
                git(root, &["hash-object", "--no-filters", name])
                    .trim()
                    .to_string()
            };
            assert_eq!(ours, theirs, "{name}");
        }
        assert_eq!(
            ObjectFormat::Sha1.worktree_blob(&root.join("absent.md")),
            None
        );
        assert_eq!(ObjectFormat::Sha1.worktree_blob(root), None, "a folder");
    }
}
