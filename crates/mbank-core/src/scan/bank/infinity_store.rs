//! An Infinity store listed as a bank: its memories become virtual files, read from
//! `memories.json` without their content, and the parse is remembered per version of
//! the file in the listing cache.
use std::ffi::OsStr;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Lister, kind_of};
use crate::formats::infinity;
use crate::formats::infinity::store::{InfinityStore, ParsedStore};
use crate::io::{paths, text};
use crate::model::{BankProblem, LoadKind, MemoryFile, Role, VirtualMemory};
use crate::scan::listings::{FileStat, Listings};

/// What `list` needs of an Infinity store: its memories without their content.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct StoreListing {
    project_id: Option<String>,
    memories: Vec<ListedMemory>,
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct ListedMemory {
    id: String,
    title: String,
    kind: String,
    content_len: u64,
    created_at: Option<String>,
    updated_at: Option<String>,
}

/// Remembered per file version in the listing cache.
pub(super) const STORE_FACT: &str = "infinity-store";

pub(super) const PROJECT_ID_FACT: &str = "infinity-project-id";

/// The store's memories, or why it cannot be read, and the whole parse when this call
/// made it. A parse result is remembered for this version of the file; a read error is
/// not (it may go away without the file changing).
pub(super) fn store_listing(
    listings: &Listings,
    path: &Path,
    meta: &fs::Metadata,
) -> (Result<StoreListing, String>, Option<Arc<ParsedStore>>) {
    let (modified, changed) = (meta.modified().ok(), paths::change_time(meta));
    if let Some(known) = listings.fact::<Result<StoreListing, String>>(
        STORE_FACT,
        path,
        meta.len(),
        modified,
        changed,
    ) {
        return (known, None);
    }
    let text = match text::read_text(path) {
        Ok(text) => text,
        Err(e) => return (Err(e.to_string()), None),
    };
    let parsed = infinity::store::parse_store(&text)
        .map(|(store, issues)| Arc::new(ParsedStore { store, issues }))
        .map_err(|e| e.to_string());
    let listing = parsed
        .as_ref()
        .map(|parsed| StoreListing::of(&parsed.store));
    let listing = listing.map_err(String::clone);
    listings.put_fact(STORE_FACT, path, meta.len(), modified, changed, &listing);
    (listing, parsed.ok())
}

impl StoreListing {
    fn of(store: &InfinityStore) -> StoreListing {
        StoreListing {
            project_id: store.project_id.clone(),
            memories: store
                .memories
                .iter()
                .map(|m| ListedMemory {
                    content_len: m.content.len() as u64,
                    id: m.id.clone(),
                    title: m.title.clone(),
                    kind: m.kind.clone(),
                    created_at: m.created_at.clone(),
                    updated_at: m.updated_at.clone(),
                })
                .collect(),
        }
    }
}

/// The store's `project_id` file, trimmed, when it exists and is not empty.
pub(super) fn project_id_of(lister: &mut Lister<'_>, store_dir: &Path) -> Option<String> {
    let path = lister.confined_child(store_dir, "project_id")?;
    let listings = lister.listings;
    let meta = fs::metadata(&path).ok()?;
    let (modified, changed) = (meta.modified().ok(), paths::change_time(&meta));
    if let Some(known) = listings.fact(PROJECT_ID_FACT, &path, meta.len(), modified, changed) {
        return known;
    }
    let id = text::read_text_limited(&path, 4096)
        .ok()?
        .trim()
        .to_string();
    let id = (!id.is_empty()).then_some(id);
    listings.put_fact(PROJECT_ID_FACT, &path, meta.len(), modified, changed, &id);
    id
}

/// Lists the store's memories as virtual files; returns the parse when it was made here.
pub(super) fn list_infinity(
    lister: &mut Lister<'_>,
    project_id: &mut Option<String>,
) -> Option<Arc<ParsedStore>> {
    let store_dir = lister.bank_root.clone();
    if !lister.confined_way(&store_dir) {
        return None;
    }
    let store_path = store_dir.join(infinity::STORE_FILE);
    if let Some(kind) = kind_of(
        lister.listings,
        &store_dir,
        OsStr::new(infinity::STORE_FILE),
    ) && !lister.confined(&store_path, kind)
    {
        return None;
    }
    let meta = match fs::metadata(&store_path) {
        Ok(meta) => meta,
        Err(e) => {
            lister.problems.push(BankProblem::StoreUnreadable {
                store: store_path,
                error: e.to_string(),
            });
            return None;
        }
    };
    *project_id = project_id_of(lister, &store_dir);
    let (listing, parsed) = store_listing(lister.listings, &store_path, &meta);
    let store = match listing {
        Ok(parsed) => parsed,
        Err(message) => {
            // The store is still listed, as one unreadable file, so nothing disappears.
            lister.push(store_path.clone(), &FileStat::of(&meta));
            if let Some(file) = lister.files.last_mut() {
                file.role = Role::Other;
                file.unreadable = Some(message.clone());
            }
            lister.problems.push(BankProblem::StoreBroken(message));
            return None;
        }
    };
    if project_id.is_none() {
        *project_id = store.project_id.clone();
    }
    let store_display = store_path
        .strip_prefix(lister.project)
        .unwrap_or(&store_path)
        .to_string_lossy()
        .into_owned();
    for memory in store.memories {
        lister.files.push(MemoryFile {
            path: store_path.clone(),
            display: format!("{store_display}#{}", memory.id),
            role: infinity::role_of_kind(&memory.kind),
            layer: None,
            order: 0,
            group: Some(memory.kind.clone()),
            load: LoadKind::OnDemand,
            size: memory.content_len,
            modified: meta.modified().ok(),
            changed: paths::change_time(&meta),
            inode: None,
            memory: Some(VirtualMemory {
                id: memory.id,
                title: memory.title,
                kind: memory.kind,
                created_at: memory.created_at,
                updated_at: memory.updated_at,
            }),
            unreadable: None,
        });
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Project;
    use crate::scan::bank::list_banks;
    use crate::scan::discovery;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn project(dir: &Path) -> Project {
        discovery::project_at(dir, "p".into()).unwrap()
    }

    #[test]
    fn infinity_memories_become_virtual_files_and_broken_store_stays_listed() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(
            &d.join(".infinity/memories.json"),
            r##"{"project_id":"pid","memories":[{"id":"m1","title":"Plan","type":"implementation_plan","content":"# Plan","created_at":"2025-01-01T00:00:00Z"}]}"##,
        );
        let banks = list_banks(&project(d));
        assert_eq!(banks[0].project_id.as_deref(), Some("pid"));
        let file = &banks[0].files[0];
        assert_eq!(file.display, ".infinity/memories.json#m1");
        assert_eq!(file.memory.as_ref().unwrap().title, "Plan");
        write(&d.join(".infinity/memories.json"), "{ broken");
        let banks = list_banks(&project(d));
        assert_eq!(banks[0].files.len(), 1);
        assert!(
            banks[0].files[0]
                .unreadable
                .as_deref()
                .unwrap()
                .contains("line 1")
        );
    }

    #[test]
    fn a_listing_that_parses_the_store_hands_the_parse_on_and_a_remembered_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(
            &d.join(".infinity/memories.json"),
            r##"{"project_id":"pid","memories":[{"id":"m1","title":"Plan","type":"implementation_plan","content":"# Plan","created_at":"2025-01-01T00:00:00Z"},{"id":"m2","type":"rules","content":"no title"}]}"##,
        );
        // Judged an hour on, so the store is not too fresh to be vouched for by its times.
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
        let listings = Listings::in_memory_as_of(&crate::clock::Clock::fixed(later));
        let first = crate::scan::bank::list_banks_with(&listings, &project(d));
        let parsed = first[0]
            .parsed_store
            .as_deref()
            .expect("parsed while listing");
        let ids: Vec<&str> = parsed
            .store
            .memories
            .iter()
            .map(|m| m.id.as_str())
            .collect();
        assert_eq!(ids, ["m1", "m2"]);
        assert_eq!(parsed.store.memories[0].content, "# Plan");
        assert!(parsed.issues.iter().any(|i| i.message.contains("title")));
        let again = crate::scan::bank::list_banks_with(&listings, &project(d));
        assert!(again[0].parsed_store.is_none());
        assert_eq!(again[0].files.len(), first[0].files.len());
        // A store that cannot be parsed hands nothing on.
        write(&d.join(".infinity/memories.json"), "{ broken");
        assert!(list_banks(&project(d))[0].parsed_store.is_none());
    }
}
