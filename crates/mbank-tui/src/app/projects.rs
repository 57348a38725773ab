//! Projects: scanning the root, the picker's figures, opening and switching projects
//! (each remembers its open file and cursor for the session), live refresh from the
//! watcher, and the picker's two ways to get banks (the demo, a new bank).
use std::path::{Path, PathBuf};

use super::{App, Focus, Main, Screen};
use crate::overlays::Overlay;
use crate::overlays::confirm::{Confirm, Confirmed};
use crate::panes::{findings, review as review_pane, timeline, tree};
use mbank_core::analysis::context::BankContext;
use mbank_core::analysis::report::ProjectReport;
use mbank_core::model::Project;

impl App {
    pub(super) fn rescan(&mut self) {
        self.projects.rescan(&self.config, &self.outbox);
    }

    pub(super) fn on_scanned(&mut self, generation: u64, projects: Vec<Project>) {
        let Some(open_state) = self.projects.on_scanned(generation, projects) else {
            return;
        };
        if let Err(name) = open_state {
            self.toast_error(format!("{name} is gone from the root"));
        }
        self.scan_agent_writes(None);
        self.update_watches();
    }

    /// Figures for one project of the scan.
    pub(super) fn on_summary(
        &mut self,
        generation: u64,
        index: usize,
        report: Box<ProjectReport>,
        folders: Vec<PathBuf>,
    ) {
        if self.projects.on_summary(generation, index, report, folders) {
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
        if self
            .projects
            .open
            .as_ref()
            .is_none_or(|p| p.path != report.path)
        {
            // Another project was opened meanwhile: its row still gets the figures.
            self.projects
                .picker
                .refresh_row(project, Box::new(report), folders);
            self.update_watches();
            return;
        }
        self.projects
            .picker
            .update_report(&project, &report, &folders);
        self.projects.open = Some(project);
        self.findings.set(&report.path, report.findings.clone());
        self.timeline
            .set(report.decisions.clone(), &report.findings);
        self.tree.set_project_report(report, contexts);
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
        if self.projects.on_refreshed(project, report, folders) {
            self.update_watches();
        }
    }

    /// Opens a project, asking first when the editor holds unsaved edits.
    pub fn open_project(&mut self, path: &Path) {
        if self.projects.open.as_ref().is_some_and(|p| p.path == path) {
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
        let Some(project) = self.projects.picker.project(path).cloned() else {
            return;
        };
        if let Some(open) = &self.projects.open {
            self.document.remember(&open.path);
        }
        self.projects.picker.current = Some(project.path.clone());
        self.tree = tree::Tree::default();
        self.document.reset();
        self.findings = findings::Findings::default();
        self.timeline = timeline::Timeline::default();
        self.review.pane = review_pane::ReviewPane::default();
        self.main = Main::Document(self.main.view_mode());
        self.document.restore(&project.path);
        self.projects.analysis.full(project.clone());
        self.projects.open = Some(project);
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
        let (rescan, touched) = self.projects.touched_by(&paths);
        if rescan {
            self.rescan();
        }
        self.projects.analyse_again(touched);
        let open_project = self.projects.open.as_ref().map(|p| p.path.clone());
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
        if let Some(project) = self.projects.open.clone() {
            self.projects.analysis.full(project);
        }
        self.document.reload_from_disk();
    }

    /// Brings the watches up to date with the projects, the open project's files and
    /// the agent servers' folders.
    pub(super) fn update_watches(&mut self) {
        let mut agent_folders = self.review.agent_folders();
        agent_folders.extend(self.journal_folders.iter().cloned());
        self.projects
            .update_watches(agent_folders, self.tree.report.as_ref());
    }

    /// Watches at most `budget` folders (tests of a small watch limit).
    pub fn limit_watches(&mut self, budget: usize) {
        self.projects.limit_watches(budget);
    }

    /// A fresh copy of the demo banks becomes the root.
    pub(super) fn on_demo_ready(&mut self, result: Result<mbank_core::demo::DemoRoot, String>) {
        match result {
            Ok(copy) => {
                let path = self.projects.adopt_demo(copy);
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
        let path = self.projects.root.join(name);
        self.overlays.push(Overlay::Confirm(Confirm::new(
            "Create a memory bank?",
            format!(
                "Create a Cline memory bank (seven template files) in {}? Existing files are never overwritten. (Type a name in the filter first to choose the folder.)",
                path.display()
            ),
            Confirmed::InitBank(path),
        )));
    }

    /// Offers the open project, which has no memory bank, the one its agent's files point
    /// to; an instruction file that exists is left as it is.
    pub(super) fn ask_init_project(&mut self, path: &Path) {
        let format = mbank_core::init::suggested_format(path);
        let plan = mbank_core::init::instructions_plan(path, format);
        let instructions = if plan.exists {
            format!("{} exists and is left as it is", plan.file)
        } else {
            format!("the agent's instructions go in {}", plan.file)
        };
        self.overlays.push(Overlay::Confirm(Confirm::new(
            "Create a memory bank?",
            format!(
                "Create a {} in {}/{}/, its tech file filled from the project's manifests; {}. \
                 Existing files are never overwritten. (Another format: mbank init --format …)",
                format.label(),
                path.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                format.bank_dir(),
                instructions
            ),
            Confirmed::InitProject {
                path: path.to_path_buf(),
                format,
            },
        )));
    }

    /// Asks for the title of the open project's next decision record, when it has an ADR
    /// folder.
    pub(super) fn ask_new_adr(&mut self) {
        let Some(project) = &self.projects.open else {
            return;
        };
        match mbank_core::adr::folders(&project.path).into_iter().next() {
            Some(folder) => self.overlays.push(Overlay::AdrTitle(Box::new(
                crate::overlays::adr_title::AdrTitle::new(folder.rel),
            ))),
            None => self.toast_error(format!(
                "{} has no ADR folder (ConKeeper's decisions/, {})",
                project.name,
                mbank_core::adr::folders_in_words()
            )),
        }
    }

    pub(super) fn create_adr(&mut self, title: String) {
        let Some(project) = &self.projects.open else {
            return;
        };
        self.jobs += 1;
        let ctx = mbank_core::write::WriteContext::new("tui", self.clock)
            .with_history(self.file_history.clone());
        crate::jobs::new_adr(
            project.path.clone(),
            title,
            self.clock.today(),
            ctx,
            self.outbox.clone(),
        );
    }

    pub(super) fn on_adr_created(&mut self, result: Result<PathBuf, String>) {
        let editor = match self.overlays.last_mut() {
            Some(Overlay::AdrTitle(editor)) => Some(editor),
            _ => None,
        };
        match (result, editor) {
            (Ok(path), editor) => {
                if editor.is_some() {
                    self.overlays.pop();
                }
                self.toast(format!("wrote {}", path.display()));
                self.on_files_changed(vec![path]);
            }
            (Err(problem), Some(editor)) => editor.form.failed(problem),
            (Err(problem), None) => self.toast_error(format!("cannot write the record: {problem}")),
        }
    }
}
