//! Code names a memory gives to something other than this code. A name the line
//! attributes to another thing ("SwiftUI's `WindowGroup`", "use GraphQL
//! `resolveReviewThread`") is that thing's; a section none of whose several names occurs
//! in the code describes another system (a broker's API, a module still to be written),
//! not this code gone stale. Either way the code's silence about them says nothing.
use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::extract::ClaimKind;
use super::{Made, prefixes};

/// Fewest names a section must hold, none found, before it is taken for another system's.
const FOREIGN_SECTION_NAMES: usize = 3;

/// Whether `line` attributes the code name `name`, where it writes it, to something named
/// right before it: a possessive (`SwiftUI's`, `SwiftUI’s`, `macOSの`), or a proper name
/// that does not open the sentence (`use GraphQL`, `with React`).
pub(super) fn attributed_elsewhere(line: &str, name: &str) -> bool {
    let mut from = 0;
    while let Some(at) = line[from..].find(name).map(|at| at + from) {
        if attributed_at(&line[..at]) {
            return true;
        }
        from = at + name.len();
    }
    false
}

/// Whether the text before a name ends with a word the name belongs to.
fn attributed_at(before: &str) -> bool {
    let before = before.trim_end_matches(['`', '*', '_']).trim_end();
    let (before, possessive) = match before
        .strip_suffix("'s")
        .or_else(|| before.strip_suffix("’s"))
        .or_else(|| before.strip_suffix('の'))
    {
        Some(owner) => (owner, true),
        None => (before, false),
    };
    let before = before.trim_end_matches(['`', '*', '_']);
    let start = before
        .rfind(|c: char| !(c.is_alphanumeric() || matches!(c, '.' | '-' | '+' | '#')))
        .map_or(0, |at| {
            at + before[at..].chars().next().map_or(1, char::len_utf8)
        });
    let word = before[start..].trim_end_matches('.');
    let has_upper = word.chars().any(|c| c.is_uppercase());
    let has_lower = word.chars().any(|c| c.is_lowercase());
    if !has_upper || !word.is_ascii() {
        return false;
    }
    if possessive {
        return true;
    }
    // An acronym alone (`API`, `UI`) names a kind of thing, not another system.
    if !has_lower {
        return false;
    }
    // A capital opening the sentence or the list item is the sentence's, not a name's.
    let earlier = before[..start]
        .trim_end()
        .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '-' | '*' | '+' | '>'));
    !earlier.is_empty() && !earlier.ends_with(['.', ':', '!', '?', '。', '：', '！', '？'])
}

/// The claims of `made` (by position) that name code in a section of a memory file
/// holding at least [`FOREIGN_SECTION_NAMES`] names searched for (`searched`, sorted), of
/// which none was found (`found`).
pub(super) fn in_sections_of_others(
    made: &[Made<'_>],
    searched: &[String],
    found: &HashSet<String>,
) -> HashSet<usize> {
    let mut sections: HashMap<(&Path, &str), (Vec<usize>, bool)> = HashMap::new();
    for (at, m) in made.iter().enumerate() {
        if m.claim.kind != ClaimKind::Symbol {
            continue;
        }
        let spellings = prefixes::spellings(&m.prefixes, &m.claim.text);
        if !spellings
            .iter()
            .all(|name| searched.binary_search(name).is_ok())
        {
            continue;
        }
        let found = spellings.iter().any(|name| found.contains(name));
        let (members, any_found) = sections
            .entry((m.doc.path, m.section.as_str()))
            .or_default();
        members.push(at);
        *any_found |= found;
    }
    sections
        .into_values()
        .filter(|(members, any_found)| !any_found && members.len() >= FOREIGN_SECTION_NAMES)
        .flat_map(|(members, _)| members)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::attributed_elsewhere;

    #[test]
    fn a_name_given_to_another_thing_on_its_line_is_that_things() {
        assert!(attributed_elsewhere(
            "* Use of SwiftUI’s `WindowGroup` for multi-window support.",
            "WindowGroup"
        ));
        assert!(attributed_elsewhere(
            "- To resolve a thread: use GraphQL `resolveReviewThread` with its id.",
            "resolveReviewThread"
        ));
        assert!(attributed_elsewhere(
            "* 個別ウィンドウを開いて表示可能（macOSの `WindowGroup` 機能を利用）",
            "WindowGroup"
        ));
        assert!(attributed_elsewhere(
            "Hooks: wraps React's `useEffect` once.",
            "useEffect"
        ));
    }

    #[test]
    fn a_name_the_line_gives_to_this_code_is_not_attributed_elsewhere() {
        // The sentence's own capital, an acronym, a lower-case owner, a verb.
        for (line, name) in [
            ("- Created `UserService` for logins.", "UserService"),
            ("Renamed: `fetchUser` is now `loadUser`.", "loadUser"),
            ("The API `getOrders` pages by cursor.", "getOrders"),
            ("the app's `SessionStore` keeps tokens", "SessionStore"),
            ("- **Auth**: `AuthGuard` checks roles", "AuthGuard"),
            ("Calls `handleSubmit` on save", "handleSubmit"),
        ] {
            assert!(!attributed_elsewhere(line, name), "{line}");
        }
    }
}
