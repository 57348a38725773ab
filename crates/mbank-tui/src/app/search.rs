//! The search overlay's requests: a query goes to the search worker with the root and
//! how it is scanned; a result opens its file at its line, in its project.
use std::path::{Path, PathBuf};

use mbank_core::scan::discovery::ScanOptions;

use super::App;
use crate::overlays::Overlay;
use crate::search_worker::SearchRequest;

impl App {
    pub(super) fn open_search(&mut self) {
        if self
            .overlays
            .iter()
            .any(|overlay| matches!(overlay, Overlay::Search(_)))
        {
            return;
        }
        // What changed while it was closed is read before its first answer.
        self.search_stale = true;
        self.overlays.push(Overlay::Search(Box::default()));
    }

    pub(super) fn search(&mut self, generation: u64, query: String) {
        self.search_worker.send(SearchRequest {
            generation,
            query,
            root: self.projects.root.clone(),
            scan: ScanOptions {
                depth: self.config.scan_depth,
                ignore: self.config.ignore_set.clone(),
                home: mbank_core::io::paths::home_dir(),
            },
            // The demo searches its own banks only, never the home folder's stores.
            home: match self.projects.demo_path {
                Some(_) => None,
                None => self.projects.home.clone(),
            },
            cache_dir: self.search_cache_dir.clone(),
            refresh: std::mem::take(&mut self.search_stale),
        });
    }

    /// Opens `path` at `line` in `project`: in place when it is the open project, else
    /// the project first (which asks over unsaved edits; the file then waits for another
    /// Enter, as nothing was opened).
    pub(super) fn open_at(&mut self, project: &Path, path: PathBuf, line: usize) {
        let open = |app: &App| {
            app.projects
                .open
                .as_ref()
                .is_some_and(|p| p.path == project)
        };
        if !open(self) {
            if self.projects.picker.project(project).is_none() {
                self.toast(format!(
                    "{} is not among the projects listed: press p to see them",
                    project.display()
                ));
                return;
            }
            self.open_project(project);
            if !open(self) {
                return;
            }
        }
        self.go_to(path, Some(line));
    }
}
