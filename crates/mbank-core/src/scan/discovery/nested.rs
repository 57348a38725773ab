//! The layers of a project below its top: instruction files in its sub-folders, and
//! entries an agent reads only at the workspace root left in them (`.clinerules`).
use std::path::Path;

use super::markers::FolderMarkers;
use super::{ALWAYS_SKIPPED, MAX_NESTED_DEPTH};
use crate::formats;
use crate::formats::{cline, instruction_files};
use crate::model::Format;
use crate::scan::listings::{Entry, Kind, Listings};

/// The banks a project holds only below its top, found as bank listing looks for them
/// (in sub-folders that are not hidden, not dependencies or build output, not a memory
/// bank, `MAX_NESTED_DEPTH` levels down); each folder's listing answers, nothing is read.
/// Each makes a bank rooted at the project:
///
/// - instruction-file members (CLAUDE.md, AGENTS.md, GEMINI.md …) whose files stand in
///   the sub-folders, or in the agent's own folder when the agent reads its main file
///   there (`.gemini/GEMINI.md`): their agents read them in that project;
/// - formats whose top-only entries (`.clinerules`, see
///   `FormatRules::top_only_entries`) stand in a sub-folder, where their agent never
///   reads them: listed there, they show what is left where nothing loads it.
pub(super) fn add_nested_banks(listings: &Listings, dir: &Path, markers: &mut FolderMarkers) {
    let mut wanted: Vec<(Format, &'static instruction_files::InstructionFiles)> = Format::ALL
        .into_iter()
        .filter_map(|format| formats::instruction_member(format).map(|files| (format, files)))
        .filter(|(format, _)| !markers.banks.iter().any(|b| b.format == *format))
        .collect();
    let mut wanted_top_only: Vec<Format> = formats::all()
        .filter(|rules| !rules.top_only_entries().is_empty())
        .map(|rules| rules.format())
        .filter(|format| !markers.banks.iter().any(|b| b.format == *format))
        .collect();
    let found = |format: Format, wanted: &mut Vec<_>, markers: &mut FolderMarkers| {
        wanted.retain(|(f, _)| *f != format);
        markers.add(format, dir.to_path_buf(), None);
    };
    for (format, files) in wanted.clone() {
        // The agent's folder is listed only where the project's own listing holds it.
        let no_dot_dir = matches!(listings.child(dir, files.dot_dir), Some(None));
        if files.reads_dot_dir_main
            && !no_dot_dir
            && matches!(
                listings.child(&dir.join(files.dot_dir), files.main),
                Some(Some(Entry {
                    kind: Kind::File,
                    ..
                }))
            )
        {
            found(format, &mut wanted, markers);
        }
    }
    let mut level = vec![dir.to_path_buf()];
    // The top, then each level of sub-folders down to `MAX_NESTED_DEPTH`.
    for _ in 0..=MAX_NESTED_DEPTH {
        let mut next = Vec::new();
        for folder in &level {
            let Ok(entries) = listings.list(folder) else {
                continue;
            };
            for entry in entries.iter() {
                let Some(name) = entry.name.to_str() else {
                    continue;
                };
                // The project's own top was recognised from its listing already.
                let below_top = folder != dir;
                if below_top
                    && matches!(entry.kind, Kind::File | Kind::Dir | Kind::Symlink)
                    && let Some(format) =
                        formats::top_only_format(name).filter(|f| wanted_top_only.contains(f))
                {
                    wanted_top_only.retain(|f| *f != format);
                    markers.add(format, dir.to_path_buf(), None);
                }
                if entry.kind == Kind::Dir {
                    if !name.starts_with('.')
                        && !ALWAYS_SKIPPED.contains(&name)
                        && name != cline::BANK_DIR
                    {
                        next.push(folder.join(name));
                    }
                    continue;
                }
                if !below_top || !matches!(entry.kind, Kind::File | Kind::Symlink) {
                    continue;
                }
                let member = wanted
                    .iter()
                    .find(|(_, files)| name == files.main || files.override_file == Some(name));
                if let Some(&(format, _)) = member {
                    found(format, &mut wanted, markers);
                }
            }
            if wanted.is_empty() && wanted_top_only.is_empty() {
                return;
            }
        }
        level = next;
    }
}
