//! Projects: scanning the root, the picker's figures, opening and switching projects
//! (each remembers its open file and cursor for the session), live refresh from the
//! watcher, and the picker's two ways to get banks (the demo, a new bank).
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::{App, Focus, Main, Screen};
use crate::core::analysis::context::BankContext;
use crate::core::analysis::report::ProjectReport;
use crate::core::model::Project;
use crate::core::scan::discovery::ScanOptions;
use crate::tui::overlays::Overlay;
use crate::tui::overlays::confirm::{Confirm, Confirmed};
use crate::tui::panes::{findings, picker, review as review_pane, timeline, tree};
use crate::tui::workers;

impl App {
    pub(super) fn rescan(&mut self) {
        self.scan_generation += 1;
        let options = ScanOptions {
            depth: self.config.scan_depth,
            ignore: self.config.ignore_set.clone(),
        };
        workers::scan(
            self.root.clone(),
            options,
            self.scan_generation,
            self.outbox.clone(),
        );
    }

    pub(super) fn on_scanned(&mut self, generation: u64, projects: Vec<Project>) {
        if generation != self.scan_generation {
            return;
        }
        self.analysis.summaries(generation, projects.clone());
        // A project that vanished closes; one whose banks changed is refreshed.
        if let Some(open) = &self.project {
            match projects.iter().find(|p| p.path == open.path) {
                Some(fresh) => {
                    if fresh.banks != open.banks {
                        self.project = Some(fresh.clone());
                        self.analysis.full(fresh.clone());
                    }
                }
                None => {
                    self.toast_error(format!("{} is gone from the root", open.name));
                }
            }
        }
        self.picker.set_projects(projects);
        self.update_watches();
    }

    pub(super) fn on_analyzed(&mut self, report: ProjectReport, contexts: Vec<BankContext>) {
        if self.project.as_ref().is_none_or(|p| p.path != report.path) {
            return;
        }
        self.picker.update_report(&report);
        self.findings.set(&report.path, report.findings.clone());
        self.timeline
            .set(report.decisions.clone(), &report.findings);
        self.tree.set_report(report, contexts);
        self.document.refresh_budget(&self.tree);
        // Show the selected file straight away, so the project opens on content.
        if self.document.is_empty()
            && let Some((path, memory_id)) = self.tree.selected_file()
        {
            self.document.open(path, memory_id, false, None);
        }
        self.update_watches();
    }

    /// Opens a project, asking first when the editor holds unsaved edits.
    pub fn open_project(&mut self, path: &Path) {
        if self.project.as_ref().is_some_and(|p| p.path == path) {
            self.screen = Screen::Project;
            return;
        }
        if self.document.is_dirty() {
            let name = self.document.file_name();
            self.overlays.push(Overlay::Confirm(Confirm::new(
                "Switch project?",
                format!("Your unsaved edits to {name} will be lost."),
                Confirmed::SwitchProject(path.to_path_buf()),
            )));
            return;
        }
        let Some(project) = self.picker.project(path).cloned() else {
            return;
        };
        if let Some(open) = &self.project {
            self.document.remember(&open.path);
        }
        self.picker.current = Some(project.path.clone());
        self.tree = tree::Tree::default();
        self.document.reset();
        self.findings = findings::Findings::default();
        self.timeline = timeline::Timeline::default();
        self.review = review_pane::ReviewPane::default();
        self.main = Main::Document(self.main.view_mode());
        self.document.restore(&project.path);
        self.analysis.full(project.clone());
        self.project = Some(project);
        self.screen = Screen::Project;
        self.focus = Focus::Tree;
        self.update_watches();
    }

    pub(super) fn on_files_changed(&mut self, paths: Vec<PathBuf>) {
        let projects: Vec<Project> = self.picker.projects().cloned().collect();
        let mut rescan = false;
        let mut touched: Vec<PathBuf> = Vec::new();
        for path in &paths {
            let parent = path.parent();
            if parent == Some(self.root.as_path())
                || projects.iter().any(|p| parent == Some(p.path.as_path()))
            {
                rescan = true;
            }
            if let Some(project) = workers::project_of(&projects, path)
                && !touched.contains(&project.path)
            {
                touched.push(project.path.clone());
            }
        }
        if rescan {
            self.rescan();
        }
        let open_project = self.project.as_ref().map(|p| p.path.clone());
        for project_path in touched {
            if Some(&project_path) == open_project.as_ref() {
                if let Some(project) = self.project.clone() {
                    self.analysis.full(project);
                }
            } else if let Some(project) = self.picker.project(&project_path).cloned() {
                self.analysis.full(project);
            }
        }
        if let Some(project) = &open_project
            && self.main.is_review()
        {
            self.refresh_review(project, &paths);
        }
        let open_path = self.document.path().map(Path::to_path_buf);
        for path in paths {
            if Some(&path) == open_path.as_ref() {
                self.document.reload_from_disk();
            } else if open_project.as_ref().is_some_and(|p| path.starts_with(p)) {
                // Marks the file's row (a folder or a deleted file has none).
                self.tree.changed.insert(path);
            }
        }
    }

    /// Folders to watch: the root, each project, and each memory folder of the open project.
    pub(super) fn update_watches(&mut self) {
        let Some(watcher) = &self.watcher else {
            return;
        };
        let mut folders = BTreeSet::new();
        folders.insert(self.root.clone());
        for project in self.picker.projects() {
            folders.insert(project.path.clone());
            for bank in &project.banks {
                folders.insert(bank.root.clone());
            }
        }
        if let Some(report) = &self.tree.report {
            for bank in &report.banks {
                for file in &bank.files {
                    if let Some(parent) = file.file.path.parent() {
                        folders.insert(parent.to_path_buf());
                    }
                }
            }
        }
        watcher.watch_exactly(folders);
    }

    /// A fresh copy of the demo banks becomes the root.
    pub(super) fn on_demo_ready(&mut self, result: Result<PathBuf, String>) {
        match result {
            Ok(path) => {
                self.root = path.clone();
                self.demo_path = Some(path.clone());
                let label = super::chrome::path_label(&path, self.home.as_deref());
                self.picker = picker::Picker::new(path, label);
                self.project = None;
                self.rescan();
                self.toast("opened a fresh copy of the demo banks");
            }
            Err(e) => self.toast_error(format!("cannot create the demo: {e}")),
        }
    }

    pub(super) fn ask_init_bank(&mut self, name: &str) {
        let path = self.root.join(name);
        self.overlays.push(Overlay::Confirm(Confirm::new(
            "Create a memory bank?",
            format!(
                "Create a Cline memory bank (seven template files) in {}? Existing files are never overwritten. (Type a name in the filter first to choose the folder.)",
                path.display()
            ),
            Confirmed::InitBank(path),
        )));
    }
}
