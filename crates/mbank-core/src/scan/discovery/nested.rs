//! The layers of a project below its top: instruction files in its sub-folders.
use std::path::Path;

use super::markers::FolderMarkers;
use super::{ALWAYS_SKIPPED, MAX_NESTED_DEPTH};
use crate::formats;
use crate::formats::{cline, instruction_files};
use crate::model::Format;
use crate::scan::listings::{Entry, Kind, Listings};

/// The instruction-file members (CLAUDE.md, AGENTS.md, GEMINI.md …) whose files stand
/// only below the project's top, in its sub-folders (as bank listing looks for them: not
/// hidden, not dependencies or build output, not a memory bank, `MAX_NESTED_DEPTH` levels
/// down), or in the agent's own folder when the agent reads its main file there
/// (`.gemini/GEMINI.md`). Their agents read them in that project, so they make a bank of
/// it rooted at the project; each folder's listing answers, nothing is read.
pub(super) fn add_nested_instruction_banks(
    listings: &Listings,
    dir: &Path,
    markers: &mut FolderMarkers,
) {
    let mut wanted: Vec<(Format, &'static instruction_files::InstructionFiles)> = Format::ALL
        .into_iter()
        .filter_map(|format| formats::instruction_member(format).map(|files| (format, files)))
        .filter(|(format, _)| !markers.banks.iter().any(|b| b.format == *format))
        .collect();
    let found = |format: Format, wanted: &mut Vec<_>, markers: &mut FolderMarkers| {
        wanted.retain(|(f, _)| *f != format);
        markers.add(format, dir.to_path_buf(), None);
    };
    for (format, files) in wanted.clone() {
        if files.reads_dot_dir_main
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
    for _ in 0..MAX_NESTED_DEPTH {
        let mut next = Vec::new();
        for folder in &level {
            let Ok(entries) = listings.list(folder) else {
                continue;
            };
            for entry in entries.iter() {
                let Some(name) = entry.name.to_str() else {
                    continue;
                };
                if entry.kind == Kind::Dir {
                    if !name.starts_with('.')
                        && !ALWAYS_SKIPPED.contains(&name)
                        && name != cline::BANK_DIR
                    {
                        next.push(folder.join(name));
                    }
                    continue;
                }
                // The project's own top was recognised from its listing already.
                if folder == dir || !matches!(entry.kind, Kind::File | Kind::Symlink) {
                    continue;
                }
                let member = wanted
                    .iter()
                    .find(|(_, files)| name == files.main || files.override_file == Some(name));
                if let Some(&(format, _)) = member {
                    found(format, &mut wanted, markers);
                }
            }
            if wanted.is_empty() {
                return;
            }
        }
        level = next;
    }
}
