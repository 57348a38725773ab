//! Memory kept for a project outside it, in the home folder: Claude Code's auto memory
//! and Kilo's project memory.
use std::path::{Path, PathBuf};

use super::markers::FolderMarkers;
use crate::formats;
use crate::formats::claude_auto_memory::AutoMemoryPlace;
use crate::formats::kilo_code::{self, KiloMemoryPlace};
use crate::io::paths;
use crate::model::Format;

/// Where the home folder keeps Claude Code's auto memory, read once per scan.
pub(super) fn auto_memory_place(home: Option<&Path>) -> Option<AutoMemoryPlace> {
    home.map(AutoMemoryPlace::of_home)
}

/// Where Kilo keeps project memory for this home folder, listed once per scan. The
/// user's `XDG_DATA_HOME` moves it only for the user's own home folder (a scan given
/// another home, as tests are, looks below that home alone).
pub(super) fn kilo_memory_place(home: Option<&Path>) -> Option<KiloMemoryPlace> {
    let home = home?;
    let xdg_data_home = (paths::home_dir().as_deref() == Some(home))
        .then(|| std::env::var_os("XDG_DATA_HOME").map(PathBuf::from))
        .flatten();
    let root = kilo_code::memory_root(home, xdg_data_home.as_deref());
    Some(KiloMemoryPlace::of_root(&root))
}

/// What a scan with `home` reads outside every project for all projects alike (where
/// Claude Code and Kilo keep per-project memory): a change there may give any project a
/// bank. Files and folders, existing or not.
pub fn outside_places(home: Option<&Path>) -> Vec<PathBuf> {
    let Some(home) = home else {
        return Vec::new();
    };
    let mut places = formats::claude_auto_memory::places_read(home);
    let xdg_data_home = (paths::home_dir().as_deref() == Some(home))
        .then(|| std::env::var_os("XDG_DATA_HOME").map(PathBuf::from))
        .flatten();
    places.push(kilo_code::memory_root(home, xdg_data_home.as_deref()));
    places
}

/// The folders outside a project whose contents decide whether it has memory kept
/// elsewhere (a folder Claude Code keeps for it, before any memory is made there), of
/// those that exist: one appearing changes a place of [`outside_places`]. Reads the
/// home folder once.
pub struct OutsideFolders(Option<AutoMemoryPlace>);

impl OutsideFolders {
    pub fn of_home(home: Option<&Path>) -> OutsideFolders {
        OutsideFolders(auto_memory_place(home))
    }

    pub fn folders_of(&self, project: &Path) -> Vec<PathBuf> {
        self.0
            .as_ref()
            .map(|place| place.own_folders(project))
            .unwrap_or_default()
    }
}

/// Adds the project's Kilo Memory (kept in Kilo's data folder) to a project.
pub(super) fn add_kilo_memory(
    markers: &mut FolderMarkers,
    project: &Path,
    place: Option<&KiloMemoryPlace>,
) {
    if let Some(folder) = place.and_then(|place| place.find(project)) {
        markers.add(Format::KiloMemory, folder, None);
    }
}

/// Adds the project's Claude Code auto memory (kept in the home folder, or where the
/// user's `autoMemoryDirectory` says) to a project.
pub(super) fn add_auto_memory(
    markers: &mut FolderMarkers,
    project: &Path,
    place: Option<&AutoMemoryPlace>,
) {
    if let Some(folder) = place.and_then(|place| place.find(project)) {
        markers.add(Format::ClaudeAutoMemory, folder, None);
    }
}
