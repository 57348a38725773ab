//! Paths in a drawing of the project's folders (a block of `├──` / `└──` lines): each
//! entry, joined to the folders it sits in, says that path exists. The tree's own root
//! line (`my-app/`, `.`) is left out, since it names the folder the drawing stands in.
use super::vocabulary::{NEW_FILE_MARKS, NOT_CURRENT_WORDS, OPTIONAL_WORDS};
use super::{Claim, ClaimKind, path_candidate};

/// The connectors that lead a tree's entries, as the `tree` program and people draw them.
const CONNECTORS: &[&str] = &["├──", "└──", "├─", "└─", "|--", "`--", "+--", "\\--"];

/// Fewer entries than this are a sketch, not a drawing of the folders.
const MIN_ENTRIES: usize = 3;

/// Where an entry's connector starts on its line (in chars: the drawing is aligned by
/// characters) and the entry's name after it.
fn entry(line: &str) -> Option<(usize, &str)> {
    let (at, connector) = CONNECTORS
        .iter()
        .filter_map(|c| line.find(c).map(|at| (at, *c)))
        .min_by_key(|(at, _)| *at)?;
    // Only the drawing's own characters may stand before the connector.
    if !line[..at]
        .chars()
        .all(|c| matches!(c, '│' | '|' | ' ' | '\t' | '┃' | '┆' | '`'))
    {
        return None;
    }
    let name = line[at + connector.len()..].trim_start_matches(['─', '-', ' ']);
    Some((line[..at].chars().count(), name))
}

/// The entry's name without what is written beside it (`src/  # the code`, `a.ts ← new`,
/// `api.ts (REST client)`).
fn entry_name(text: &str) -> &str {
    let mut end = text.len();
    for mark in [
        "  ", "\t", " #", " //", " <-", " ←", " —", " –", " - ", " (", " → ", " -> ",
    ] {
        if let Some(at) = text.find(mark) {
            end = end.min(at);
        }
    }
    let name = text[..end].trim().trim_matches('`');
    name.strip_prefix("**")
        .and_then(|bold| bold.strip_suffix("**"))
        .unwrap_or(name)
}

/// Whether what is written beside an entry marks it as not there yet or not for sure.
fn marked_not_current(line: &str) -> bool {
    let lower = line.to_lowercase();
    NEW_FILE_MARKS
        .iter()
        .chain(OPTIONAL_WORDS)
        .chain(NOT_CURRENT_WORDS)
        .any(|w| lower.contains(w))
}

/// Whether `text` may draw a folder tree at all.
pub(super) fn may_hold_tree(text: &str) -> bool {
    CONNECTORS.iter().any(|c| text.contains(c))
}

/// The path claims of the folder trees in a text's code blocks: `lines` are the text's
/// and `blocks` its code blocks' line ranges (1-based, inclusive).
pub(super) fn tree_claims(lines: &[&str], blocks: &[(usize, usize)]) -> Vec<Claim> {
    let mut out = Vec::new();
    for &(start, end) in blocks {
        let block = start + 1..end.min(lines.len() + 1);
        let entries: Vec<(usize, usize, &str)> = block
            .filter_map(|number| {
                let (column, name) = entry(lines.get(number - 1)?)?;
                Some((number, column, name))
            })
            .collect();
        if entries.len() < MIN_ENTRIES {
            continue;
        }
        // The folders the entry sits in: (column, name, whether it is marked new).
        let mut folders: Vec<(usize, String, bool)> = Vec::new();
        for (number, column, written) in entries {
            while folders.last().is_some_and(|(c, _, _)| *c >= column) {
                folders.pop();
            }
            let name = entry_name(written);
            let marked =
                marked_not_current(lines[number - 1]) || folders.iter().any(|(_, _, m)| *m);
            if name.is_empty() || name.trim_matches(['.', '…']).is_empty() {
                folders.push((column, String::new(), true));
                continue;
            }
            let mut path: String = folders
                .iter()
                .map(|(_, folder, _)| format!("{folder}/"))
                .collect();
            path.push_str(name);
            folders.push((column, name.trim_end_matches('/').to_string(), marked));
            // Below a placeholder (`...`) the folders are unknown.
            if marked || folders.iter().any(|(_, folder, _)| folder.is_empty()) {
                continue;
            }
            if let Some(path) = path_candidate(&path, true) {
                out.push(Claim {
                    kind: ClaimKind::Path,
                    text: path,
                    line: number,
                    drawing: Some(start),
                });
            }
        }
    }
    out
}
