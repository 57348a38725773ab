//! Agent writes, live: the proposals agent servers staged and the writes they were
//! refused, as the agent worker reads them when the watcher sees the store or a log
//! change. New ones are announced (status line and message history), counted on their
//! project's picker row, and listed in the review; a person's decisions go back to the
//! worker, which writes through the core.
use std::path::{Path, PathBuf};

use super::App;
use super::controllers::AgentNews;
use crate::agent_worker::{AgentEvent, DecideError};
use crate::keymap::{Action, KeyContext};
use crate::overlays::Overlay;
use crate::overlays::proposal::ProposalEditor;

/// Notices said one by one for the writes of one read; the rest are counted.
const MAX_NOTICES: usize = 3;

impl App {
    fn listed_projects(&self) -> Vec<PathBuf> {
        self.projects
            .picker
            .projects()
            .map(|p| p.path.clone())
            .collect()
    }

    /// Asks the agent worker to read the store again, and the refusal logs among
    /// `changed` (`None`: every log).
    pub(super) fn scan_agent_writes(&mut self, changed: Option<Vec<PathBuf>>) {
        let projects = self.listed_projects();
        self.review.scan_agent_writes(projects, changed);
    }

    /// Paths the watcher reported that belong to the store or a log: taken out of
    /// `paths`, and a new read asked for when there were any.
    pub(super) fn take_agent_paths(&mut self, paths: &mut Vec<PathBuf>) {
        let agent = self.review.take_agent_paths(paths);
        if !agent.is_empty() {
            self.scan_agent_writes(Some(agent));
        }
    }

    /// The person looked at the review of `project`: its refusals are no longer news.
    pub(super) fn mark_refusals_seen(&mut self, project: &Path) {
        self.review.mark_refusals_seen(project);
        self.update_agent_badges();
    }

    fn update_agent_badges(&mut self) {
        let projects = self.listed_projects();
        self.projects.picker.agent_badges = self.review.agent_badges(projects);
    }

    fn review_key(&self) -> String {
        self.keymap
            .key_for(KeyContext::Global, Action::ShowReview)
            .map(|k| k.to_string())
            .unwrap_or_else(|| "review".into())
    }

    /// Where the write was and how to see it: " — r to review" for the open project;
    /// for another, its name and how to get there (in the picker `r` is typed text).
    fn review_hint(&self, project: &Path, key: &str) -> (String, String) {
        let open = self.screen == super::Screen::Project
            && self
                .projects
                .open
                .as_ref()
                .is_some_and(|p| p.path == project);
        if open {
            (String::new(), format!(" — {key} to review"))
        } else {
            let name = self.project_name(project);
            (
                format!(" in {name}"),
                format!(" — open {name}, then {key} to review"),
            )
        }
    }

    fn project_name(&self, project: &Path) -> String {
        self.projects
            .picker
            .project(project)
            .map(|p| p.name.clone())
            .unwrap_or_else(|| project.display().to_string())
    }

    pub(super) fn on_agent_event(&mut self, event: AgentEvent) {
        match event {
            AgentEvent::Scanned {
                proposals,
                refusals,
                all,
                seen,
            } => {
                let news = self.review.agent.take_scan(proposals, refusals, all, seen);
                self.on_agent_news(news);
            }
            AgentEvent::Decided { id, result } => {
                if self.review.pane.deciding == Some(id) {
                    self.review.pane.deciding = None;
                }
                let editing = matches!(
                    self.overlays.last(),
                    Some(Overlay::Proposal(editor)) if editor.id == id
                );
                match result {
                    Ok(done) => {
                        if editing {
                            self.overlays.pop();
                        }
                        self.review.pane.forget_proposal(id);
                        self.toast(done);
                    }
                    Err(error) => {
                        let problem = match error {
                            DecideError::Conflict(problem) => {
                                self.review.pane.conflicts.insert(id, problem.clone());
                                problem
                            }
                            DecideError::Other(problem) => {
                                format!("proposal {id} not decided: {problem}")
                            }
                        };
                        // The edited text stays in the editor with the reason.
                        if let Some(Overlay::Proposal(editor)) = self.overlays.last_mut()
                            && editing
                        {
                            editor.form.failed(problem.clone());
                        }
                        self.toast_error(problem);
                    }
                }
            }
        }
    }

    /// Announces what a read of the agent writes brought, and brings the review, the
    /// badges and (after the first read) the watches up to date.
    fn on_agent_news(&mut self, news: AgentNews) {
        let key = self.review_key();
        let mut notices = Vec::new();
        for view in &news.proposals {
            let (place, hint) = self.review_hint(&view.project, &key);
            notices.push(format!(
                "agent proposed a change to {}{place} (proposal {}){hint}",
                view.proposal.file, view.proposal.id
            ));
        }
        for (project, records) in &news.refusals {
            for record in records {
                let (place, hint) = self.review_hint(project, &key);
                notices.push(format!(
                    "agent write refused: {}{place} [{}]{hint}",
                    record.file, record.rule
                ));
            }
        }
        let refusals_changed = self
            .projects
            .open
            .as_ref()
            .is_some_and(|open| news.changed.contains(&open.path));
        // A burst (an agent's batch) is said in a few lines, not one per write.
        let more = notices.len().saturating_sub(MAX_NOTICES);
        for notice in notices.into_iter().take(MAX_NOTICES) {
            self.toast(notice);
        }
        if more > 0 {
            self.toast(format!(
                "… and {more} more agent write{} — {key} to review",
                if more == 1 { "" } else { "s" }
            ));
        }
        self.show_agent_writes_in_review();
        if let Some(project) = self.projects.open.clone()
            && self.screen == super::Screen::Project
            && self.main.is_review()
        {
            // The review is on screen: what it lists is looked at.
            self.mark_refusals_seen(&project.path);
            if refusals_changed {
                self.review
                    .ask(crate::review_worker::ReviewRequest::Compute);
            }
        }
        self.update_agent_badges();
        if news.first {
            // The store's and the logs' folders exist now: watch them.
            self.update_watches();
        }
    }

    /// The review pane lists the open project's pending proposals.
    pub(super) fn show_agent_writes_in_review(&mut self) {
        if let Some(project) = &self.projects.open {
            self.review.show_agent_writes(&project.path);
        }
    }

    pub(super) fn edit_proposal(&mut self, id: u64, file: String, text: String) {
        self.overlays
            .push(Overlay::Proposal(Box::new(ProposalEditor::new(
                id, &file, &text,
            ))));
    }
}
