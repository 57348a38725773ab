//! The root and its projects: the picker, the open project, the scans and analyses that
//! fill them in, the watches that keep them fresh, and the demo copies made.
use mbank_core::clock::Clock;
use std::path::{Path, PathBuf};

use crate::panes::picker;
use crate::watcher::Watcher;
use crate::widgets::path_label;
use crate::workers::{self, AnalysisWorker, Outbox};
use mbank_core::analysis::report::ProjectReport;
use mbank_core::config::Config;
use mbank_core::model::Project;
use mbank_core::scan::discovery::ScanOptions;

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

/// The root and its projects: the picker, the open project, the scans and analyses
/// that fill them in, the watches that keep them fresh, and the demo copies made.
pub struct ProjectsController {
    pub root: PathBuf,
    pub demo_path: Option<PathBuf>,
    /// The demo copies made in the app (ctrl-d), removed when the app ends (not before:
    /// an earlier one may still hold a buffer the user is editing).
    demo_copies: Vec<mbank_core::demo::DemoRoot>,
    pub home: Option<PathBuf>,
    pub picker: picker::Picker,
    /// The project on screen.
    pub open: Option<Project>,
    scan_generation: u64,
    pub analysis: AnalysisWorker,
    watcher: Option<Watcher>,
    /// What the listing cache judges a racy change by.
    clock: Clock,
}

impl ProjectsController {
    pub fn new(
        root: PathBuf,
        root_problem: Option<String>,
        demo_path: Option<PathBuf>,
        home: Option<PathBuf>,
        analysis: AnalysisWorker,
        watcher: Option<Watcher>,
        clock: Clock,
    ) -> Self {
        let root_label = path_label(&root, home.as_deref());
        let mut picker = picker::Picker::new(root.clone(), root_label);
        picker.scanning = root_problem.is_none();
        picker.root_problem = root_problem;
        Self {
            root,
            demo_path,
            demo_copies: Vec::new(),
            home,
            picker,
            open: None,
            scan_generation: 0,
            analysis,
            watcher,
            clock,
        }
    }

    /// Scans the root again; answers of earlier scans are dropped from now on.
    pub(crate) fn rescan(&mut self, config: &Config, outbox: &Outbox) {
        self.scan_generation += 1;
        let options = ScanOptions {
            depth: config.scan_depth,
            ignore: config.ignore_set.clone(),
            home: mbank_core::io::paths::home_dir(),
        };
        workers::scan(
            self.root.clone(),
            options,
            self.scan_generation,
            self.clock,
            outbox.clone(),
        );
    }

    /// True when the watcher (if any) has no watch change outstanding.
    pub fn watches_settled(&self) -> bool {
        self.watcher.as_ref().is_none_or(Watcher::is_settled)
    }

    /// The projects a scan found: their figures are asked for and the picker lists
    /// them. A project that vanished closes; one whose banks changed is refreshed.
    /// `Err` names the open project when it is gone from the root; `None`: an answer
    /// to an earlier scan, dropped.
    pub(crate) fn on_scanned(
        &mut self,
        generation: u64,
        projects: Vec<Project>,
    ) -> Option<Result<(), String>> {
        if generation != self.scan_generation {
            return None;
        }
        self.analysis.summaries(generation, projects.clone());
        let mut open_state = Ok(());
        if let Some(open) = &self.open {
            match projects.iter().find(|p| p.path == open.path) {
                Some(fresh) => {
                    if fresh.banks != open.banks {
                        self.open = Some(fresh.clone());
                        self.analysis.full(fresh.clone());
                    }
                }
                None => open_state = Err(open.name.clone()),
            }
        }
        self.picker.set_projects(projects);
        Some(open_state)
    }

    /// Figures for one project of the current scan; true when the watches are due to
    /// follow (every so often while they fill in, as each project's folders come with
    /// its figures, and once at the end).
    pub(crate) fn on_summary(
        &mut self,
        generation: u64,
        index: usize,
        report: Box<ProjectReport>,
        folders: Vec<PathBuf>,
    ) -> bool {
        if generation != self.scan_generation {
            return false;
        }
        self.picker.set_report(index, report, folders);
        let counted = self.picker.counted;
        counted == self.picker.rows.len() || counted.is_multiple_of(WATCH_BATCH)
    }

    /// A listed project's figures after a write inside it (its row changes, and moves
    /// when sorted by activity, tokens or staleness); true when its watched folders
    /// changed.
    pub(crate) fn on_refreshed(
        &mut self,
        project: Project,
        report: Box<ProjectReport>,
        folders: Vec<PathBuf>,
    ) -> bool {
        let watched_before = self
            .picker
            .rows
            .iter()
            .find(|r| r.project.path == project.path)
            .map(|r| r.folders.clone());
        let changed_folders = watched_before.as_ref() != Some(&folders);
        self.picker.refresh_row(project, report, folders);
        changed_folders
    }

    /// Whether `paths` may add or remove a project (a change directly in the root),
    /// and the listed projects they belong to.
    pub(crate) fn touched_by(&self, paths: &[PathBuf]) -> (bool, Vec<PathBuf>) {
        let mut rescan = false;
        let mut touched: Vec<PathBuf> = Vec::new();
        let projects: Vec<&Project> = self.picker.projects().collect();
        for path in paths {
            if path == &self.root || path.parent() == Some(self.root.as_path()) {
                rescan = true;
            }
            if let Some(project) = project_of(&projects, path)
                && !touched.contains(&project.path)
            {
                touched.push(project.path.clone());
            }
        }
        (rescan, touched)
    }

    /// Analyses the `touched` projects again (their banks may have changed too): the
    /// open one in full, the others for their picker rows.
    pub(crate) fn analyse_again(&self, touched: Vec<PathBuf>) {
        let open = self.open.as_ref().map(|p| &p.path);
        for project_path in touched {
            if Some(&project_path) == open {
                if let Some(project) = self.open.clone() {
                    self.analysis.full(project);
                }
            } else if let Some(project) = self.picker.project(&project_path).cloned() {
                self.analysis.refresh(project);
            }
        }
    }

    /// Watches exactly these folders, the most wanted first (when the system's watch
    /// limit cannot cover them all, the first ones are watched): the root (projects
    /// appear there), then `agent_folders` (the agent servers' proposal store and
    /// refusal logs: a handful, and what a person must not miss), the open project's
    /// memory folders and those of the files in its `report`, then every listed
    /// project's folder and memory folders in the picker's order (most recently active
    /// first).
    pub(crate) fn update_watches(
        &self,
        agent_folders: Vec<PathBuf>,
        report: Option<&ProjectReport>,
    ) {
        let Some(watcher) = &self.watcher else {
            return;
        };
        let mut folders = vec![self.root.clone()];
        folders.extend(agent_folders);
        if let Some(project) = &self.open {
            if let Some(row) = self
                .picker
                .rows
                .iter()
                .find(|r| r.project.path == project.path)
            {
                folders.extend(row.folders.iter().cloned());
            }
            if let Some(report) = report {
                // The decision logs the memory points to are files of no bank.
                let files = report.banks.iter().flat_map(|b| &b.files);
                let paths = files
                    .map(|f| &f.file.path)
                    .chain(report.decisions.iter().map(|d| &d.file));
                for path in paths {
                    if let Some(parent) = path.parent() {
                        folders.push(parent.to_path_buf());
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
    pub fn limit_watches(&self, budget: usize) {
        if let Some(watcher) = &self.watcher {
            watcher.limit(budget);
        }
    }

    /// A fresh copy of the demo banks becomes the root, kept until the app ends; the
    /// picker starts over on it, to be scanned.
    pub(crate) fn adopt_demo(&mut self, copy: mbank_core::demo::DemoRoot) -> PathBuf {
        let path = copy.path().to_path_buf();
        self.demo_copies.push(copy);
        self.root = path.clone();
        self.demo_path = Some(path.clone());
        let label = path_label(&path, self.home.as_deref());
        self.picker = picker::Picker::new(path.clone(), label);
        self.open = None;
        path
    }
}
