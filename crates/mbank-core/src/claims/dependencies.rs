//! Dependencies the tech context names (`zod`, `serde`, `embed`), looked up in the
//! project's manifests and lock files.
use std::collections::HashSet;

use super::scripts::listed;
use super::tree::{CodeIndex, Manifests};

/// Whether the names of dependency claims must also be searched for in the code: in a
/// Go module, where they tell a standard package from a missing module.
pub(super) fn searched_in_code(index: &CodeIndex) -> bool {
    is_go_module(index.manifests())
}

/// Whether every manifest is Go's. A Go build resolves every imported package that is
/// not the standard library's through `go.mod`, so a package the code names that
/// `go.mod` does not is the standard library's (`embed`, `net/http`).
fn is_go_module(manifests: &Manifests) -> bool {
    !manifests.dependency_files.is_empty()
        && manifests.dependency_files.iter().all(|file| {
            let name = file.rsplit('/').next().unwrap_or(file);
            name.eq_ignore_ascii_case("go.mod") || name.eq_ignore_ascii_case("go.sum")
        })
}

/// The finding's message for the dependency `text`, or `None` where a manifest declares
/// it. `own_folder`: the project has a folder of that name (a package of its own, not a
/// dependency); `found_names`: the names the code search found.
pub(super) fn message(
    index: &CodeIndex,
    text: &str,
    own_folder: bool,
    found_names: &HashSet<String>,
) -> Option<String> {
    let manifests = index.manifests();
    if manifests.dependency_files.is_empty() || own_folder || manifests.declares(text) {
        return None;
    }
    // A Go standard package has no dot in its first path element and needs no module.
    let first = text.split('/').next().unwrap_or(text);
    if is_go_module(manifests) && !first.contains('.') && found_names.contains(text) {
        return None;
    }
    Some(format!(
        "dependency `{text}` is declared in no manifest or lock file ({})",
        listed(&manifests.dependency_files, 4)
    ))
}

/// Whether the heading a name sits under names a dependency the project declares: a
/// word of four letters or more (`sentry`, `zustand`), or two words joined (`react query`
/// as `react-query`). Only the innermost heading counts (the file's title names the
/// project, not a library), and a word that is a folder or file of the project's own
/// (`agent`) names no dependency.
pub(super) fn names_a_dependency(section: &str, index: &CodeIndex) -> bool {
    let manifests = index.manifests();
    if section.is_empty() || manifests.dependency_files.is_empty() {
        return false;
    }
    let heading = section.split(" / ").next().unwrap_or(section);
    let words: Vec<&str> = heading
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '.'))
        .filter(|w| !w.is_empty())
        .collect();
    let single = words.iter().filter(|w| w.len() >= 4).map(|w| w.to_string());
    let joined = words
        .windows(2)
        .map(|pair| format!("{}-{}", pair[0], pair[1]));
    single
        .chain(joined)
        .any(|name| !index.exists(&name) && manifests.declares(&name))
}
