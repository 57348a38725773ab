//! The order an agent reads a bank in: the files a mode's rules name first, then by
//! layer, load, group and name.
use std::path::Path;

use super::Lister;
use crate::formats;
use crate::io::confine::Confinement;
use crate::io::text;
use crate::model::{LoadKind, MemoryFile};
use crate::scan::listings::Kind;

/// The files a Memory Bank MCP / Roo bank's mode rules say to read, in their order: the
/// `files_to_read` of the default mode's `.clinerules-{mode}` / `.roorules-{mode}`, else
/// of the first other mode that lists any. Only confined mode files are read; one that
/// does not parse gives nothing here (validation reports it).
pub(super) fn mode_read_order(lister: &Lister<'_>) -> Vec<String> {
    let Ok(entries) = lister.listings.list(lister.project) else {
        return Vec::new();
    };
    let default_mode = formats::roo_rules::DEFAULT_MODE;
    let mut mode_files: Vec<(bool, String)> = entries
        .iter()
        .filter(|e| e.kind != Kind::Dir)
        .filter_map(|e| {
            let name = e.name.to_str()?;
            let mode = formats::mode_of_rule_file(name)?;
            Some((mode != default_mode, name.to_string()))
        })
        .collect();
    mode_files.sort();
    for (_, name) in mode_files {
        let path = lister.project.join(&name);
        if !matches!(lister.folder.check(&path), Confinement::Inside(_)) {
            continue;
        }
        let Ok(text) = text::read_text(&path) else {
            continue;
        };
        if let Ok(rules) = formats::roo_rules::modes::parse_mode_file(&path, &text)
            && let Some(rule) = rules.into_iter().find(|r| !r.reads.is_empty())
        {
            return rule.reads;
        }
    }
    Vec::new()
}

/// Puts the bank's top files named in `reads` first, in that order (layers 1…), the
/// format's own order after them.
pub(super) fn apply_read_order(bank_root: &Path, files: &mut [MemoryFile], reads: &[String]) {
    let keys: Vec<String> = reads
        .iter()
        .map(|r| {
            let name = r.rsplit(['/', '\\']).next().unwrap_or(r);
            formats::name_key(name)
        })
        .collect();
    let shift = u8::try_from(keys.len()).unwrap_or(u8::MAX);
    for file in files
        .iter_mut()
        .filter(|f| f.path.parent() == Some(bank_root))
    {
        let key = formats::name_key(&file.file_name());
        file.layer = match keys.iter().position(|k| *k == key) {
            Some(i) => Some(u8::try_from(i + 1).unwrap_or(u8::MAX)),
            None => file.layer.map(|l| l.saturating_add(shift)),
        };
    }
}

pub(super) fn load_rank(load: LoadKind) -> u8 {
    match load {
        LoadKind::Startup => 0,
        LoadKind::OnDemand => 1,
        LoadKind::AgentRequested => 2,
        LoadKind::Manual => 3,
        LoadKind::Never => 4,
    }
}

/// Sorts files into read order: layer, then startup before on-demand before never, then
/// group, the order the format settled (`FormatRules::settle_loads`; 0 unless it did) and
/// name (or, for a format read in file-name order, the file name wherever it sits); and
/// numbers them.
pub(super) fn sort_read_order(files: &mut [MemoryFile], by_file_name: bool) {
    // Keys are built once per file, not twice per comparison.
    files.sort_by_cached_key(|f| {
        let (group, name) = match &f.memory {
            // A store's memories by title.
            Some(memory) => (f.group.clone(), memory.title.to_lowercase()),
            None if by_file_name => (None, f.file_name().to_lowercase()),
            None => (f.group.clone(), f.display.to_lowercase()),
        };
        (
            f.layer.unwrap_or(u8::MAX),
            load_rank(f.load),
            group.unwrap_or_default(),
            // The format's own order within the group, where it settles one.
            f.order,
            name,
            // Two files of one name: by place.
            f.display.to_lowercase(),
        )
    });
    for (order, file) in files.iter_mut().enumerate() {
        file.order = order;
    }
}
