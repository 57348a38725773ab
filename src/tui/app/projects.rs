//! Projects: scanning the root, the picker's figures, opening and switching projects
//! (each remembers its open file and cursor for the session), live refresh from the
//! watcher, and the picker's two ways to get banks (the demo, a new bank).
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

/// While figures fill in, the watches are brought up to date every this many projects.
const WATCH_BATCH: usize = 250;

/// The listed project a path belongs to, by longest matching project folder.
fn project_of<'a>(projects: &[&'a Project], path: &Path) -> Option<&'a Project> {
    projects
        .iter()
        .copied()
        .filter(|p| path.starts_with(&p.path))
        .max_by_key(|p| p.path.as_os_str().len())
}

impl App {
    pub(super) fn rescan(&mut self) {
        self.scan_generation += 1;
        let options = ScanOptions {
            depth: self.config.scan_depth,
            ignore: self.config.ignore_set.clone(),
            home: crate::core::paths::home_dir(),
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
        self.scan_agent_writes(None);
        self.update_watches();
    }

    /// Figures for one project of the scan. The watches follow every so often while
    /// they fill in (each project's folders come with its figures), and once at the end.
    pub(super) fn on_summary(
        &mut self,
        generation: u64,
        index: usize,
        report: Box<ProjectReport>,
        folders: Vec<PathBuf>,
    ) {
        if generation != self.scan_generation {
            return;
        }
        self.picker.set_report(index, report, folders);
        let counted = self.picker.counted;
        if counted == self.picker.rows.len() || counted.is_multiple_of(WATCH_BATCH) {
            self.update_watches();
        }
    }

    pub(super) fn on_analyzed(
        &mut self,
        project: Project,
        report: ProjectReport,
        contexts: Vec<BankContext>,
        folders: Vec<PathBuf>,
    ) {
        if self.project.as_ref().is_none_or(|p| p.path != report.path) {
            // Another project was opened meanwhile: its row still gets the figures.
            self.picker.refresh_row(project, Box::new(report), folders);
            self.update_watches();
            return;
        }
        self.picker.update_report(&project, &report, &folders);
        self.project = Some(project);
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

    /// A listed project's figures after a write inside it: its row changes (and moves,
    /// when sorted by activity, tokens or staleness; the selection stays on its project).
    pub(super) fn on_refreshed(
        &mut self,
        project: Project,
        report: Box<ProjectReport>,
        folders: Vec<PathBuf>,
    ) {
        let watched_before = self
            .picker
            .rows
            .iter()
            .find(|r| r.project.path == project.path)
            .map(|r| r.folders.clone());
        let changed_folders = watched_before.as_ref() != Some(&folders);
        self.picker.refresh_row(project, report, folders);
        if changed_folders {
            self.update_watches();
        }
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
        self.review.pane = review_pane::ReviewPane::default();
        self.main = Main::Document(self.main.view_mode());
        self.document.restore(&project.path);
        self.analysis.full(project.clone());
        self.project = Some(project);
        self.screen = Screen::Project;
        self.focus = Focus::Tree;
        self.update_watches();
    }

    /// The watcher saw these paths change. A change directly in the root may add or
    /// remove a project: the root is scanned again. Any other change belongs to a listed
    /// project, found again and analysed again (its banks may have changed too): the open
    /// project in full, the others for their picker rows.
    pub(super) fn on_files_changed(&mut self, mut paths: Vec<PathBuf>) {
        self.take_agent_paths(&mut paths);
        if paths.is_empty() {
            return;
        }
        let mut rescan = false;
        let mut touched: Vec<PathBuf> = Vec::new();
        {
            let projects: Vec<&Project> = self.picker.projects().collect();
            for path in &paths {
                if path == &self.root || path.parent() == Some(self.root.as_path()) {
                    rescan = true;
                }
                if let Some(project) = project_of(&projects, path)
                    && !touched.contains(&project.path)
                {
                    touched.push(project.path.clone());
                }
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
                self.analysis.refresh(project);
            }
        }
        if let Some(project) = &open_project
            && self.main.is_review()
        {
            self.review.refresh(project, &paths);
        }
        let open_path = self.document.path().map(Path::to_path_buf);
        self.document.on_disk_changed(&paths);
        for path in paths {
            if Some(&path) == open_path.as_ref() {
                continue;
            } else if open_project.as_ref().is_some_and(|p| path.starts_with(p)) {
                // Marks the file's row (a folder or a deleted file has none).
                self.tree.changed.insert(path);
            }
        }
    }

    /// The system dropped events: scan again, and read the open file and project again.
    pub(super) fn on_watch_overflow(&mut self) {
        self.rescan();
        if let Some(project) = self.project.clone() {
            self.analysis.full(project);
        }
        self.document.reload_from_disk();
    }

    /// Folders to watch, the most wanted first (when the system's watch limit cannot
    /// cover them all, the first ones are watched): the root (projects appear there), the
    /// open project's memory folders and those of its files, then every listed project's
    /// folder and memory folders in the picker's order (most recently active first).
    pub(super) fn update_watches(&mut self) {
        let Some(watcher) = &self.watcher else {
            return;
        };
        // The root (projects appear there), then the agent servers' proposal store and
        // refusal logs (a handful of folders, and what a person must not miss).
        let mut folders = vec![self.root.clone()];
        folders.extend(self.review.agent_folders());
        if let Some(project) = &self.project {
            if let Some(row) = self
                .picker
                .rows
                .iter()
                .find(|r| r.project.path == project.path)
            {
                folders.extend(row.folders.iter().cloned());
            }
            if let Some(report) = &self.tree.report {
                for bank in &report.banks {
                    for file in &bank.files {
                        if let Some(parent) = file.file.path.parent() {
                            folders.push(parent.to_path_buf());
                        }
                    }
                }
            }
        }
        for row in self.picker.rows_by_priority() {
            folders.push(row.project.path.clone());
            folders.extend(row.project.banks.iter().map(|b| b.root.clone()));
            folders.extend(row.folders.iter().cloned());
        }
        watcher.watch_exactly(folders);
    }

    /// Watches at most `budget` folders (tests of a small watch limit).
    pub fn limit_watches(&mut self, budget: usize) {
        if let Some(watcher) = &self.watcher {
            watcher.limit(budget);
        }
    }

    /// A fresh copy of the demo banks becomes the root.
    pub(super) fn on_demo_ready(&mut self, result: Result<crate::core::demo::DemoRoot, String>) {
        match result {
            Ok(copy) => {
                let path = copy.path().to_path_buf();
                self.demo_copies.push(copy);
                self.root = path.clone();
                self.demo_path = Some(path.clone());
                let label = super::chrome::path_label(&path, self.home.as_deref());
                self.picker = picker::Picker::new(path.clone(), label);
                self.project = None;
                self.rescan();
                self.toast(format!(
                    "opened a fresh copy of the demo banks in {} (removed when mbank exits)",
                    path.display()
                ));
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
