//! The review and the agent writes it lists: the review pane, the worker that owns the
//! review session, and what the agent servers staged and were refused, as the agent
//! worker last read it.
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::agent_worker::{AgentRequest, AgentWorker, ProposalView, SeenMark};
use crate::panes::review::ReviewPane;
use crate::protocol::ProposalDecision;
use crate::review_worker::{ReviewRequest, ReviewWorker};
use mbank_core::guard::refusals::RefusalRecord;
use mbank_core::review::FileReview;

/// What the agent servers did, as last read.
#[derive(Default)]
pub struct AgentLive {
    /// Pending proposals of listed projects, oldest first.
    pub proposals: Vec<Arc<ProposalView>>,
    /// Refused writes by listed project, oldest first.
    pub refusals: HashMap<PathBuf, Vec<RefusalRecord>>,
    /// Per project, how far the person looked at its refusals (in its review), this
    /// session or an earlier one.
    seen: HashMap<PathBuf, SeenMark>,
    /// Proposal ids already announced.
    announced: HashSet<u64>,
    /// The first read is in: what it found was there before, not news.
    pub loaded: bool,
}

/// What a read of the agent writes brought that was not there before (nothing on the
/// first read: what it finds was there before, not news).
#[derive(Default)]
pub(crate) struct AgentNews {
    /// Proposals not announced yet.
    pub proposals: Vec<Arc<ProposalView>>,
    /// Per project, the refusals that came after the last read.
    pub refusals: Vec<(PathBuf, Vec<RefusalRecord>)>,
    /// The projects whose count of refusals changed.
    pub changed: Vec<PathBuf>,
    /// This was the first read.
    pub first: bool,
}

impl AgentLive {
    /// Pending proposals and refusals not looked at yet, of one project.
    pub fn badge(&self, project: &Path) -> (usize, usize) {
        let pending = self
            .proposals
            .iter()
            .filter(|p| p.project == project)
            .count();
        let refused = match (self.refusals.get(project), self.seen.get(project)) {
            (Some(records), Some(mark)) => mark.unseen(records),
            (Some(records), None) => records.len(),
            (None, _) => 0,
        };
        (pending, refused)
    }

    /// Takes in a read of the worker (see [`AgentEvent::Scanned`]) and says what it
    /// brought that was not there before.
    ///
    /// [`AgentEvent::Scanned`]: crate::agent_worker::AgentEvent::Scanned
    pub(crate) fn take_scan(
        &mut self,
        proposals: Vec<Arc<ProposalView>>,
        refusals: HashMap<PathBuf, Vec<RefusalRecord>>,
        all: bool,
        seen: HashMap<PathBuf, SeenMark>,
    ) -> AgentNews {
        self.seen.extend(seen);
        let first = !self.loaded;
        let mut news = AgentNews {
            first,
            ..AgentNews::default()
        };
        for view in &proposals {
            if self.announced.insert(view.proposal.id) && !first {
                news.proposals.push(view.clone());
            }
        }
        // Refused before this session: counted on the badge (unless looked at in an
        // earlier one), not announced.
        if !first {
            for (project, records) in &refusals {
                let before = self.refusals.get(project).map_or(0, Vec::len);
                if records.len() != before {
                    news.changed.push(project.clone());
                }
                if records.len() > before {
                    news.refusals
                        .push((project.clone(), records[before..].to_vec()));
                }
            }
        }
        self.proposals = proposals;
        if all {
            self.refusals.clear();
        }
        for (project, records) in refusals {
            if records.is_empty() {
                self.refusals.remove(&project);
            } else {
                self.refusals.insert(project, records);
            }
        }
        self.loaded = true;
        news
    }
}

/// The review: its pane, the worker that owns the review session, and what the
/// agent servers staged and were refused, which the review lists.
pub struct ReviewController {
    pub pane: ReviewPane,
    worker: ReviewWorker,
    /// What the agent servers staged and were refused, as last read.
    pub agent: AgentLive,
    pub agent_worker: AgentWorker,
    /// The file a "reject file" prompt is about, as it was shown.
    pending_reject: Option<Box<FileReview>>,
}

impl ReviewController {
    pub fn new(worker: ReviewWorker, agent_worker: AgentWorker) -> Self {
        Self {
            pane: ReviewPane::default(),
            worker,
            agent: AgentLive::default(),
            agent_worker,
            pending_reject: None,
        }
    }

    /// Whether the review shown is of `project`.
    pub fn shows(&self, project: &Path) -> bool {
        self.pane.project.as_deref() == Some(project)
    }

    /// Sends the review worker a request; one that changes files holds further actions
    /// until the fresh review it is followed by arrives.
    pub fn ask(&mut self, request: ReviewRequest) {
        if request.changes_files() {
            self.pane.busy = true;
        }
        self.worker.send(request);
    }

    /// The watcher saw `paths` change while the review shows `project`: the worker
    /// re-diffs the files the view lists, or recomputes it all when files appeared or
    /// vanished.
    pub fn refresh(&mut self, project: &Path, paths: &[PathBuf]) {
        let changed: Vec<(PathBuf, bool)> = paths
            .iter()
            .filter(|p| p.starts_with(project))
            .map(|path| {
                let listed = self
                    .pane
                    .review
                    .as_ref()
                    .is_some_and(|r| r.file(path).is_some());
                (path.clone(), listed)
            })
            .collect();
        if !changed.is_empty() {
            self.ask(ReviewRequest::FilesChanged(changed));
        }
    }

    /// Whether anything is accepted that a commit would record.
    pub(crate) fn anything_accepted(&self) -> bool {
        self.pane.review.as_ref().is_some_and(|review| {
            review
                .files
                .iter()
                .any(|f| f.accepted_added + f.accepted_removed > 0 || f.accepted != f.baseline)
        })
    }

    /// Keeps the file a "reject file" prompt is about, as it is shown.
    pub(crate) fn hold_reject(&mut self, file: Box<FileReview>) {
        self.pending_reject = Some(file);
    }

    /// "Yes" to rejecting the file at `path`: sent as the prompt showed it; false when
    /// the review changed since and nothing was sent.
    pub fn reject_file(&mut self, path: &Path) -> bool {
        match self.pending_reject.take() {
            Some(file) if file.path == path => {
                self.ask(ReviewRequest::Act {
                    action: mbank_core::review::ReviewAction::RejectFile,
                    file,
                });
                true
            }
            _ => false,
        }
    }
}

impl ReviewController {
    /// Asks the agent worker to read the store again for `projects`, and the refusal
    /// logs among `changed` (`None`: every log).
    pub(crate) fn scan_agent_writes(
        &mut self,
        projects: Vec<PathBuf>,
        changed: Option<Vec<PathBuf>>,
    ) {
        self.agent_worker
            .send(AgentRequest::Scan { projects, changed });
    }

    /// Paths the watcher reported that belong to the store or a log, taken out of
    /// `paths`.
    pub(crate) fn take_agent_paths(&self, paths: &mut Vec<PathBuf>) -> Vec<PathBuf> {
        let (agent, other): (Vec<PathBuf>, Vec<PathBuf>) = std::mem::take(paths)
            .into_iter()
            .partition(|p| self.agent_worker.owns(p));
        *paths = other;
        agent
    }

    /// The folders the agent worker reads: the store's and the logs'.
    pub(crate) fn agent_folders(&self) -> Vec<PathBuf> {
        self.agent_worker.folders()
    }

    /// The person looked at the review of `project`: its refusals are no longer news.
    pub(crate) fn mark_refusals_seen(&mut self, project: &Path) {
        let Some(records) = self.agent.refusals.get(project) else {
            return;
        };
        let mark = SeenMark::of(records);
        if self.agent.seen.get(project) != Some(&mark) {
            self.agent.seen.insert(project.to_path_buf(), mark.clone());
            self.agent_worker.send(AgentRequest::Seen {
                project: project.to_path_buf(),
                mark,
            });
        }
    }

    /// The picker's badges for `projects`: those with pending proposals or refusals
    /// not looked at.
    pub fn agent_badges(&self, projects: Vec<PathBuf>) -> HashMap<PathBuf, (usize, usize)> {
        projects
            .into_iter()
            .map(|project| {
                let badge = self.agent.badge(&project);
                (project, badge)
            })
            .filter(|(_, badge)| *badge != (0, 0))
            .collect()
    }

    /// The review pane lists `project`'s pending proposals.
    pub(crate) fn show_agent_writes(&mut self, project: &Path) {
        let mine: Vec<Arc<ProposalView>> = self
            .agent
            .proposals
            .iter()
            .filter(|p| p.project == project)
            .cloned()
            .collect();
        self.pane.set_proposals(mine);
    }

    /// A decision the review pane asked for.
    pub fn decide(&mut self, decision: ProposalDecision) {
        self.pane.deciding = Some(decision.id());
        self.pane.conflicts.remove(&decision.id());
        self.agent_worker.send(AgentRequest::Decide(decision));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(project: &Path, file: &str) -> RefusalRecord {
        RefusalRecord::at(
            &mbank_core::clock::Clock::system(),
            project,
            file,
            "secret",
            "looks like a key",
            "mcp:test",
        )
    }

    #[test]
    fn a_first_read_is_not_news_and_later_ones_name_only_the_refusals_that_came_after() {
        let project = PathBuf::from("/banks/weather");
        let mut live = AgentLive::default();
        let read = |records: Vec<RefusalRecord>| HashMap::from([(project.clone(), records)]);

        let news = live.take_scan(
            Vec::new(),
            read(vec![refused(&project, "a.md")]),
            true,
            HashMap::new(),
        );
        assert!(news.first);
        assert!(news.refusals.is_empty() && news.changed.is_empty());
        assert_eq!(live.badge(&project), (0, 1));

        let both = vec![refused(&project, "a.md"), refused(&project, "b.md")];
        let news = live.take_scan(Vec::new(), read(both), false, HashMap::new());
        assert!(!news.first);
        assert_eq!(news.changed, std::slice::from_ref(&project));
        let files: Vec<&str> = news.refusals[0].1.iter().map(|r| r.file.as_str()).collect();
        assert_eq!(files, ["b.md"]);
        assert_eq!(live.badge(&project), (0, 2));

        // A log read empty: the project has none now, which is a change but not news.
        let news = live.take_scan(Vec::new(), read(Vec::new()), false, HashMap::new());
        assert_eq!(news.changed, std::slice::from_ref(&project));
        assert!(news.refusals.is_empty());
        assert_eq!(live.badge(&project), (0, 0));
    }
}
