//! Codex memories: the notes Codex keeps for itself when memories are turned on
//! (`[features] memories = true`), in `memories/` of Codex's home folder (`~/.codex`):
//! `memory_summary.md` (put into every session), `MEMORY.md`, `raw_memories.md` and
//! `rollout_summaries/`. They belong to the home folder, not to a project. Location:
//! <https://developers.openai.com/codex/memories> (Codex's home folder is `~/.codex`,
//! <https://developers.openai.com/codex/config-basic>). mbank only reads them.
use std::path::{Path, PathBuf};

/// What the store is called where a person reads it.
pub(crate) const LABEL: &str = "Codex memories";

/// The folder below the home folder.
const FOLDER: &str = ".codex/memories";

/// Sub-folders that hold memory files too.
pub(crate) const SUB_FOLDERS: [&str; 1] = ["rollout_summaries"];

/// Whether `rel`, a folder inside the memories folder, is one of [`SUB_FOLDERS`].
pub(crate) fn is_sub_folder(rel: &Path) -> bool {
    SUB_FOLDERS.iter().any(|sub| rel == Path::new(sub))
}

/// Codex's memories folder for `home`, whether or not it exists.
pub fn memory_folder(home: &Path) -> PathBuf {
    home.join(FOLDER)
}

/// The summary Codex puts into every session.
pub(crate) const SUMMARY: &str = "memory_summary.md";

/// Codex's bound on the summary it puts into a session, in its own estimate of tokens
/// (4 bytes each): `MEMORY_TOOL_DEVELOPER_INSTRUCTIONS_SUMMARY_TOKEN_LIMIT` in Codex's
/// source (codex-rs/ext/memories/src/lib.rs), applied by its
/// `truncate_middle_with_token_budget` (codex-rs/utils/string/src/truncate.rs).
pub(crate) const SUMMARY_TOKEN_LIMIT: usize = 2_500;
/// [`SUMMARY_TOKEN_LIMIT`] as a person reads it, and the half Codex keeps at each end.
pub(crate) const SUMMARY_LIMIT_IN_WORDS: (&str, &str) = ("2,500", "1,250");
const BYTES_PER_TOKEN: usize = 4;

/// The bytes of the summary `text` (as on disk) Codex leaves out of a session, when it
/// leaves any: it trims the white space around the text, and past 10,000 bytes keeps its
/// first 5,000 and its last 5,000 (whole characters), so the middle is what it never reads.
pub(crate) fn summary_unread(text: &str) -> Option<std::ops::Range<usize>> {
    let start = text.len() - text.trim_start().len();
    let trimmed = text.trim();
    let budget = SUMMARY_TOKEN_LIMIT * BYTES_PER_TOKEN;
    if trimmed.len() <= budget {
        return None;
    }
    let head = budget / 2;
    let tail = budget - head;
    let head_end = trimmed
        .char_indices()
        .map(|(at, c)| at + c.len_utf8())
        .take_while(|&end| end <= head)
        .last()
        .unwrap_or(0);
    let tail_target = trimmed.len() - tail;
    let tail_start = trimmed
        .char_indices()
        .map(|(at, _)| at)
        .find(|&at| at >= tail_target)
        .unwrap_or(trimmed.len())
        .max(head_end);
    (tail_start > head_end).then(|| start + head_end..start + tail_start)
}

/// Whether a file in the folder is one of the memory files (markdown).
pub(crate) fn is_memory_file(name: &str) -> bool {
    name.ends_with(".md")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_is_in_codex_home_below_the_home_folder() {
        assert_eq!(
            memory_folder(Path::new("/home/me")),
            Path::new("/home/me/.codex/memories")
        );
        assert!(is_memory_file("memory_summary.md"));
        assert!(!is_memory_file("memories_1.sqlite"));
    }

    #[test]
    fn a_summary_past_ten_thousand_bytes_loses_its_middle_as_codex_cuts_it() {
        let grouped = |n: usize| n.to_string().replace("500", ",500").replace("250", ",250");
        assert_eq!(
            SUMMARY_LIMIT_IN_WORDS,
            (
                grouped(SUMMARY_TOKEN_LIMIT).as_str(),
                grouped(SUMMARY_TOKEN_LIMIT / 2).as_str()
            )
        );
        assert_eq!(summary_unread(&"a".repeat(10_000)), None);
        // White space around the text is trimmed before it is measured.
        assert_eq!(
            summary_unread(&format!("\n\n{}\n\n", "a".repeat(10_000))),
            None
        );
        let text = format!("  {}", "b".repeat(10_001));
        assert_eq!(summary_unread(&text), Some(2 + 5_000..2 + 5_001));
        // Never through a character: the head stops before one that would cross 5,000
        // bytes, the tail starts at the first one from the last 5,000.
        let text = format!("{}é{}", "x".repeat(4_999), "y".repeat(9_000));
        let unread = summary_unread(&text).unwrap();
        assert_eq!(unread.start, 4_999);
        assert_eq!(unread.end, text.len() - 5_000);
        assert!(text.is_char_boundary(unread.start) && text.is_char_boundary(unread.end));
    }
}
