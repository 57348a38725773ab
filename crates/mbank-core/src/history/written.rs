//! The text a history's writes last put in each file, with its SHA-256. A write hashes the
//! text it writes anyway (its version for the agent); the next write of the same file
//! records that text as the one it replaces and takes its hash from here instead of
//! hashing it again, only when the text it replaces is byte for byte the one kept.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// Files kept at most (past it, all are dropped and kept again as written).
const MAX_FILES: usize = 64;
/// A longer text is not kept: hashing it again is cheaper than holding it.
const MAX_TEXT: usize = 1024 * 1024;
/// Bytes of text kept at most over all files (past it, all are dropped), so a server's
/// memory stays small whatever its agents write.
const MAX_TOTAL: usize = 4 * 1024 * 1024;

/// Texts by file key, each with its SHA-256 in hex.
#[derive(Debug, Default)]
pub(super) struct Written {
    kept: Mutex<HashMap<PathBuf, (String, String)>>,
}

impl Written {
    /// Keeps `text` as what `key` holds now, and `hash` as its SHA-256 in hex.
    pub(super) fn put(&self, key: &Path, text: &str, hash: &str) {
        if text.len() > MAX_TEXT {
            self.forget(key);
            return;
        }
        let mut map = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let others: usize = map
            .iter()
            .filter(|(k, _)| k.as_path() != key)
            .map(|(_, (t, _))| t.len())
            .sum();
        if (map.len() >= MAX_FILES && !map.contains_key(key)) || others + text.len() > MAX_TOTAL {
            map.clear();
        }
        match map.get_mut(key) {
            Some((kept_text, kept_hash)) => {
                kept_text.clear();
                kept_text.push_str(text);
                kept_hash.clear();
                kept_hash.push_str(hash);
            }
            None => {
                map.insert(key.to_path_buf(), (text.to_string(), hash.to_string()));
            }
        }
    }

    /// The SHA-256 of `text` when it is exactly the text kept for `key`.
    pub(super) fn hash_of(&self, key: &Path, text: &str) -> Option<String> {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.get(key)
            .filter(|(kept_text, _)| kept_text == text)
            .map(|(_, hash)| hash.clone())
    }

    /// Drops what is kept for `key`.
    pub(super) fn forget(&self, key: &Path) {
        self.kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_is_given_only_for_the_very_text_kept() {
        let written = Written::default();
        let key = Path::new("/written-tests/a.md");
        written.put(key, "one\n", "h1");
        assert_eq!(written.hash_of(key, "one\n").as_deref(), Some("h1"));
        assert_eq!(written.hash_of(key, "one\n\n"), None);
        assert_eq!(written.hash_of(key, "two\n"), None);
        assert_eq!(
            written.hash_of(Path::new("/written-tests/b.md"), "one\n"),
            None
        );
        written.put(key, "two\n", "h2");
        assert_eq!(written.hash_of(key, "one\n"), None);
        assert_eq!(written.hash_of(key, "two\n").as_deref(), Some("h2"));
        // Past the total, what was kept for other files goes.
        let other = Path::new("/written-tests/c.md");
        written.put(other, "three\n", "h3");
        let big = "y".repeat(MAX_TEXT);
        for i in 0..MAX_TOTAL / MAX_TEXT {
            written.put(Path::new(&format!("/written-tests/big{i}.md")), &big, "hb");
        }
        assert_eq!(written.hash_of(other, "three\n"), None);
        let long = "x".repeat(MAX_TEXT + 1);
        written.put(key, &long, "h3");
        assert_eq!(written.hash_of(key, &long), None);
        assert_eq!(written.hash_of(key, "two\n"), None);
    }
}
