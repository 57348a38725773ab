//! The agents' stores in the home folder that belong to no project, as the journal lists
//! them ([`scope::home_stores`]): Codex memories, Gemini CLI's memory file, Claude Code's
//! user memory and user rules, Codex's global instructions and opencode's user rules. Each
//! is indexed as a place of its own, named after the store and where it is ("Codex
//! memories (~/.codex/memories)"), and read again when its stamp moves, as a project is.
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::extract::{SearchedFile, read_visible_below, sections};
use crate::formats::agents::Agent;
use crate::io::hash_index::stable_hash;
use crate::io::paths::change_time;
use crate::journal::scope::{self, CODEX_ID};
use crate::model::Role;

/// One store of the home folder, ready to be stamped and read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HomeStore {
    /// What results name as their project: the store and its place,
    /// "Codex memories (~/.codex/memories)".
    pub name: String,
    /// What a person calls the store: "Codex memories".
    pub label: String,
    /// Where it is, as a person reads it: `~/.codex/memories`, `~/.gemini/GEMINI.md`.
    pub place: String,
    /// Its folder.
    pub path: PathBuf,
    /// What `--format` knows its files by: their format's id (`gemini-md`), or Codex
    /// memories' own (`codex-memories`).
    pub format: String,
    files: Vec<HomeFile>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct HomeFile {
    path: PathBuf,
    /// `~/…`.
    display: String,
    role: Role,
}

impl HomeStore {
    /// Whether `spec` names this store: its name, its label or its place.
    pub fn is_named(&self, spec: &str) -> bool {
        let spec = spec.trim();
        spec == self.name || spec == self.label || spec == self.place
    }
}

/// The stores of `home` that hold a file, with their files; a file some project of the
/// root lists already (`taken`: a root at or above the home folder) is left to it.
pub fn home_stores(home: &Path, taken: &HashSet<&Path>) -> Vec<HomeStore> {
    let found = scope::home_stores(home);
    let mut out: Vec<HomeStore> = Vec::new();
    for (index, store) in found.stores.iter().enumerate() {
        let files: Vec<HomeFile> = found
            .files
            .iter()
            .filter(|file| file.store == index && !taken.contains(file.path.as_path()))
            .map(|file| HomeFile {
                path: file.path.clone(),
                display: file.display.clone(),
                role: file.role,
            })
            .collect();
        if files.is_empty() {
            continue;
        }
        let place = scope::in_home(found.place_of(index), home);
        out.push(HomeStore {
            name: format!("{} ({place})", store.label),
            label: store.label.clone(),
            place,
            path: store.root.clone(),
            format: store
                .format
                .map_or(CODEX_ID, |format| format.id())
                .to_string(),
            files,
        });
    }
    out
}

/// The stamp of a store: its name and each file's path, size and modification and
/// change times (a file missing since stamps as such).
pub(super) fn stamp(store: &HomeStore, version: u64) -> u64 {
    let mut bytes: Vec<u8> = Vec::with_capacity(256);
    bytes.extend_from_slice(&version.to_le_bytes());
    bytes.extend_from_slice(b"home\0");
    bytes.extend_from_slice(store.name.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(store.path.as_os_str().as_encoded_bytes());
    bytes.push(0);
    for file in &store.files {
        bytes.extend_from_slice(file.path.as_os_str().as_encoded_bytes());
        bytes.push(0);
        match std::fs::symlink_metadata(&file.path) {
            Ok(meta) => {
                bytes.push(1);
                bytes.extend_from_slice(&meta.len().to_le_bytes());
                bytes.extend_from_slice(&nanos(meta.modified().ok()).to_le_bytes());
                bytes.extend_from_slice(&nanos(change_time(&meta)).to_le_bytes());
            }
            Err(_) => bytes.push(0),
        }
    }
    stable_hash(&bytes)
}

/// The store's files, read and cut into passages (private text left out, as in a
/// project's files); `problems` names the files left out.
pub(super) fn store_files(
    store: &HomeStore,
    home: &Path,
    problems: &mut Vec<String>,
) -> Vec<SearchedFile> {
    let mut out = Vec::new();
    for file in &store.files {
        // Never through a link: the journal lists regular files only, and one may have
        // been swapped for a link since; the read below opens it with no link followed.
        let Ok(meta) = std::fs::symlink_metadata(&file.path) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let Some(text) = read_visible_below(home, &file.path, meta.len(), &file.display, problems)
        else {
            continue;
        };
        let agents = Agent::ALL
            .iter()
            .enumerate()
            .filter(|(_, agent)| agent.loads_from_home(home, &file.path))
            .fold(0u32, |bits, (at, _)| bits | (1 << at));
        out.push(SearchedFile {
            path: file.path.to_string_lossy().into_owned(),
            display: file.display.clone(),
            format: store.format.clone(),
            role: file.role.id().to_string(),
            modified: meta.modified().ok().and_then(super::extract::seconds),
            agents,
            passages: sections(&text),
        });
    }
    out
}

fn nanos(time: Option<std::time::SystemTime>) -> u128 {
    time.and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{ProjectBanks, Query, SearchIndex};
    use std::fs;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// A temp home with Codex memories, Gemini CLI's memory file and Claude Code's user
    /// memory, and an empty root.
    fn home_with_stores() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let temp = tempfile::tempdir().unwrap();
        let home = temp.path().join("home");
        let root = temp.path().join("root");
        fs::create_dir_all(&root).unwrap();
        let codex = home.join(".codex/memories");
        write(
            &codex.join("memory_summary.md"),
            "# Summary\nThe user deploys with Nomad.\n",
        );
        write(
            &codex.join("MEMORY.md"),
            "# Tooling\n\n## Builds\nAlways build with cargo-zigbuild.\n\n<private>\nThe zigbuild licence key.\n</private>\n",
        );
        write(
            &codex.join("rollout_summaries/2026-01.md"),
            "# Rollout\nMoved the queue to NATS.\n",
        );
        // Not memory: Codex's database beside them.
        write(&codex.join("memories_1.sqlite"), "zigbuild");
        write(
            &home.join(".gemini/GEMINI.md"),
            "## Gemini Added Memories\n- Prefers tabs over spaces.\n",
        );
        write(&home.join(".gemini/settings.json"), "{\"tabs\": true}");
        write(
            &home.join(".claude/CLAUDE.md"),
            "# Preferences\nAnswer in British English.\n",
        );
        (temp, home, root)
    }

    /// A store file listed as a regular file and swapped for a link before it is read
    /// is refused, never followed out of the home folder.
    #[cfg(unix)]
    #[test]
    fn a_store_file_swapped_for_a_link_after_listing_is_not_followed() {
        let (temp, home, _root) = home_with_stores();
        let stores = home_stores(&home, &HashSet::new());
        let gemini = stores
            .iter()
            .find(|store| {
                store
                    .files
                    .iter()
                    .any(|f| f.path.ends_with(".gemini/GEMINI.md"))
            })
            .expect("Gemini's memory file is a store");
        let secret = temp.path().join("secret.md");
        write(&secret, "# Secret\nThe signing key is here.\n");
        let file = home.join(".gemini/GEMINI.md");
        fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink(&secret, &file).unwrap();
        let mut problems = Vec::new();
        let searched = store_files(gemini, &home, &mut problems);
        assert!(
            searched.iter().all(|f| !f.path.ends_with("GEMINI.md")),
            "a link was read"
        );
        // The listing's own check stops it first; the read itself refuses a link too.
        let meta_len = fs::metadata(&secret).unwrap().len();
        let read = super::super::extract::read_visible_below(
            &home,
            &file,
            meta_len,
            "~/.gemini/GEMINI.md",
            &mut problems,
        );
        assert_eq!(read, None);
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with("~/.gemini/GEMINI.md: ")),
            "{problems:?}"
        );
    }

    #[test]
    fn the_home_stores_are_the_journals_named_by_store_and_place() {
        let (_temp, home, _) = home_with_stores();
        let stores = home_stores(&home, &HashSet::new());
        let names: Vec<(&str, &str, &str)> = stores
            .iter()
            .map(|s| (s.name.as_str(), s.place.as_str(), s.format.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                (
                    "Codex memories (~/.codex/memories)",
                    "~/.codex/memories",
                    "codex-memories"
                ),
                (
                    "Gemini CLI memory (~/.gemini/GEMINI.md)",
                    "~/.gemini/GEMINI.md",
                    "gemini-md"
                ),
                (
                    "Claude Code user memory (~/.claude/CLAUDE.md)",
                    "~/.claude/CLAUDE.md",
                    "claude-md"
                ),
            ]
        );
        let codex: Vec<&str> = stores[0].files.iter().map(|f| f.display.as_str()).collect();
        assert_eq!(
            codex,
            [
                "~/.codex/memories/MEMORY.md",
                "~/.codex/memories/memory_summary.md",
                "~/.codex/memories/rollout_summaries/2026-01.md"
            ]
        );
        assert!(stores[0].is_named("Codex memories"));
        assert!(stores[0].is_named("~/.codex/memories"));
        assert!(!stores[0].is_named("Gemini CLI memory"));
        // A file a project lists already is left to the project; a store left with no
        // file is no store.
        let claude = home.join(".claude/CLAUDE.md");
        let taken: HashSet<&Path> = [claude.as_path()].into();
        let names: Vec<String> = home_stores(&home, &taken)
            .into_iter()
            .map(|s| s.label)
            .collect();
        assert_eq!(names, ["Codex memories", "Gemini CLI memory"]);
        // A home without the agents' folders has none.
        let empty = tempfile::tempdir().unwrap();
        assert!(home_stores(empty.path(), &HashSet::new()).is_empty());
    }

    fn refresh(
        index: &mut SearchIndex,
        root: &Path,
        home: Option<&Path>,
    ) -> super::super::Refreshed {
        let projects = crate::scan::discovery::scan(root, &Default::default());
        let banks: Vec<_> = projects.iter().map(crate::scan::bank::list_banks).collect();
        let inputs: Vec<ProjectBanks<'_>> = projects
            .iter()
            .zip(&banks)
            .map(|(project, banks)| ProjectBanks { project, banks })
            .collect();
        index.refresh(&inputs, home)
    }

    fn ask(index: &SearchIndex, text: &str) -> Vec<crate::search::Hit> {
        index.search(&Query {
            text: text.to_string(),
            limit: 10,
            ..Query::default()
        })
    }

    #[test]
    fn home_stores_are_searched_with_their_place_file_and_lines_private_text_left_out() {
        let (_temp, home, root) = home_with_stores();
        write(&root.join("shop/CLAUDE.md"), "# Shop\nBuilt with cargo.\n");
        let mut index = SearchIndex::in_memory();
        let first = refresh(&mut index, &root, Some(&home));
        assert_eq!(first.projects_read, 4, "{first:?}");
        let hits = ask(&index, "zigbuild");
        assert_eq!(hits.len(), 1, "{hits:?}");
        let hit = &hits[0];
        assert_eq!(hit.project, "Codex memories (~/.codex/memories)");
        assert_eq!(
            hit.project_path,
            home.join(".codex/memories").to_string_lossy()
        );
        assert_eq!(hit.display, "~/.codex/memories/MEMORY.md");
        assert_eq!(hit.format, "codex-memories");
        assert_eq!(hit.headings, ["Tooling", "Builds"]);
        assert_eq!((hit.start_line, hit.end_line), (3, 7));
        assert!(hit.home_store);
        assert!(!hit.snippet.text.contains("licence"), "{hit:?}");
        assert!(ask(&index, "licence key").is_empty());
        let british = ask(&index, "british english");
        assert_eq!(
            british[0].project,
            "Claude Code user memory (~/.claude/CLAUDE.md)"
        );
        assert_eq!(british[0].display, "~/.claude/CLAUDE.md");
        // A project's results are no home store's.
        let cargo = ask(&index, "cargo");
        assert!(cargo.iter().any(|h| h.project == "shop" && !h.home_store));
        // Nothing changed: nothing read again.
        assert_eq!(refresh(&mut index, &root, Some(&home)).projects_read, 0);
        // Without a home folder, its stores are dropped.
        let without = refresh(&mut index, &root, None);
        assert_eq!(without.projects_removed, 3, "{without:?}");
        assert!(ask(&index, "zigbuild").is_empty());
    }

    #[test]
    fn project_format_and_agent_filters_apply_to_home_stores() {
        let (_temp, home, root) = home_with_stores();
        write(
            &root.join("app/GEMINI.md"),
            "# App\nThe app prefers tabs too.\n",
        );
        let mut index = SearchIndex::in_memory();
        refresh(&mut index, &root, Some(&home));
        let search = |query: Query| -> Vec<String> {
            index
                .search(&Query { limit: 10, ..query })
                .into_iter()
                .map(|h| format!("{} {}", h.project, h.display))
                .collect()
        };
        let tabs = |query: Query| {
            search(Query {
                text: "tabs".to_string(),
                ..query
            })
        };
        assert_eq!(tabs(Query::default()).len(), 2);
        assert_eq!(
            tabs(Query {
                project: Some("Gemini CLI memory (~/.gemini/GEMINI.md)".to_string()),
                ..Query::default()
            }),
            ["Gemini CLI memory (~/.gemini/GEMINI.md) ~/.gemini/GEMINI.md"]
        );
        assert_eq!(
            tabs(Query {
                project: Some("app".to_string()),
                ..Query::default()
            }),
            ["app GEMINI.md"]
        );
        let codex_format = search(Query {
            text: "nomad nats zigbuild".to_string(),
            format: Some("codex-memories".to_string()),
            ..Query::default()
        });
        assert_eq!(codex_format.len(), 3, "{codex_format:?}");
        assert!(
            tabs(Query {
                format: Some("codex-memories".to_string()),
                ..Query::default()
            })
            .is_empty()
        );
        // Codex loads its memory summary at every session start, not its other notes.
        let codex = Agent::ALL.iter().position(|a| *a == Agent::Codex);
        assert_eq!(
            search(Query {
                text: "nomad nats zigbuild".to_string(),
                agent: codex,
                ..Query::default()
            }),
            ["Codex memories (~/.codex/memories) ~/.codex/memories/memory_summary.md"]
        );
        let gemini = Agent::ALL.iter().position(|a| *a == Agent::Gemini);
        assert_eq!(
            tabs(Query {
                agent: gemini,
                ..Query::default()
            })
            .len(),
            2
        );
        let claude = Agent::ALL.iter().position(|a| *a == Agent::ClaudeCode);
        assert_eq!(
            search(Query {
                text: "british".to_string(),
                agent: claude,
                ..Query::default()
            }),
            ["Claude Code user memory (~/.claude/CLAUDE.md) ~/.claude/CLAUDE.md"]
        );
        assert!(
            tabs(Query {
                agent: claude,
                ..Query::default()
            })
            .is_empty()
        );
    }

    #[test]
    fn a_changed_home_store_is_read_again_alone() {
        let (_temp, home, root) = home_with_stores();
        write(&root.join("shop/CLAUDE.md"), "# Shop\nBuilt with cargo.\n");
        let dir = tempfile::tempdir().unwrap();
        let mut index = SearchIndex::open_at(dir.path(), &root);
        refresh(&mut index, &root, Some(&home));
        // Same size, same modification time: the change time still tells.
        let summary = home.join(".codex/memories/memory_summary.md");
        let before = fs::metadata(&summary).unwrap();
        fs::write(&summary, "# Summary\nThe user deploys with Helm!.\n").unwrap();
        assert_eq!(fs::metadata(&summary).unwrap().len(), before.len());
        fs::File::options()
            .write(true)
            .open(&summary)
            .unwrap()
            .set_modified(before.modified().unwrap())
            .unwrap();
        let mut reopened = SearchIndex::open_at(dir.path(), &root);
        let again = refresh(&mut reopened, &root, Some(&home));
        assert_eq!(
            (again.projects_read, again.new_base),
            (1, false),
            "{again:?}"
        );
        assert_eq!(
            ask(&reopened, "helm")[0].display,
            "~/.codex/memories/memory_summary.md"
        );
        assert!(ask(&reopened, "nomad").is_empty());
        // A new file in the store, and a store gone.
        write(
            &home.join(".codex/memories/rollout_summaries/2026-02.md"),
            "# Rollout\nHeliograph.\n",
        );
        fs::remove_file(home.join(".gemini/GEMINI.md")).unwrap();
        let third = refresh(&mut reopened, &root, Some(&home));
        assert_eq!(
            (third.projects_read, third.projects_removed),
            (1, 1),
            "{third:?}"
        );
        assert_eq!(ask(&reopened, "heliograph").len(), 1);
        assert!(ask(&reopened, "tabs").is_empty());
    }
}
