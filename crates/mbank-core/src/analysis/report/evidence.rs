//! The evidence staleness is judged by: what git says (gathered for this analysis,
//! remembered under the repository's stamp, or asked now, and prefetched for many
//! projects at once), and the newest date written in a file.
use std::path::Path;

use super::Analyzer;
use crate::analysis::git_evidence::{
    Evidence, GIT_EVIDENCE_FACT, GitEvidence, GitState, RepoPlace, gather_git,
};
use crate::analysis::staleness;
use crate::model::{Bank, LoadKind, MemoryFile, Project};
use crate::tokens::TextStats;

impl Analyzer<'_> {
    /// What git says for staleness, whatever the depth: from the facts gathered for
    /// this analysis when there are some, else remembered under the repository's stamp,
    /// else asked of git now (and remembered). `None` outside any repository and where
    /// git failed (the failure is `check`'s finding).
    pub(super) fn git_evidence(
        &mut self,
        project: &Project,
        banks: &[Bank],
        state: &GitState,
        git_asked: bool,
    ) -> Evidence {
        if !git_asked
            && matches!(state, GitState::Absent)
            && let Some(prefetched) = self.prefetched.remove(&project.path)
        {
            return prefetched;
        }
        let store = match self.listings {
            Some(listings) => listings,
            None => &self.own_facts,
        };
        let place = self.repo_stamps.place(&project.path, banks, store);
        let stamp = match place {
            RepoPlace::Stamped(stamp) => Some(stamp),
            // Outside any repository, or a layout the stamp cannot read (then git is
            // asked and nothing is remembered).
            RepoPlace::Outside | RepoPlace::Unstamped => None,
        };
        let remembered = stamp.and_then(|stamp| {
            store.stamped_fact::<GitEvidence>(GIT_EVIDENCE_FACT, &project.path, stamp)
        });
        let evidence = match state {
            GitState::Ready(git) => GitEvidence::from_facts(&git.facts, banks),
            GitState::Failed { .. } => return state.failure().unwrap_or_default(),
            // Git was asked and found no repository.
            GitState::Absent if git_asked => return Evidence::Outside,
            GitState::Absent => {
                if let Some(remembered) = remembered {
                    return Evidence::Known(remembered);
                }
                if place == RepoPlace::Outside {
                    return Evidence::Outside;
                }
                match gather_git(&[(project, banks)], &self.history).pop() {
                    Some(GitState::Ready(git)) => GitEvidence::from_facts(&git.facts, banks),
                    Some(failed @ GitState::Failed { .. }) => {
                        return failed.failure().unwrap_or_default();
                    }
                    _ => return Evidence::Outside,
                }
            }
        };
        if let Some(stamp) = stamp
            && remembered.as_ref() != Some(&evidence)
        {
            store.put_stamped_fact(GIT_EVIDENCE_FACT, &project.path, stamp, &evidence);
        }
        Evidence::Known(evidence)
    }

    /// Finds the git evidence of projects about to be analysed without git facts (what
    /// `list` analyses): remembered evidence where the repository and the files are as
    /// they were, and for the rest git asked once per repository for all of them, not
    /// once per project. Their analysis then takes it from here.
    pub fn prefetch_git_evidence(&mut self, listed: &[(&Project, &[Bank])]) {
        // Only for the projects about to be analysed: nothing found earlier outlives them.
        self.prefetched.clear();
        let found = self.git_evidence_of(listed);
        for ((project, _), evidence) in listed.iter().zip(found) {
            self.prefetched.insert(project.path.clone(), evidence);
        }
    }

    /// The git evidence of each project of `listed` (outside any repository, known, or
    /// git failed there): remembered where the repository and the files are as they
    /// were, the rest asked of git once per repository (and remembered when git
    /// answered). For [`Analyzer::analyze_listed_with`].
    pub fn git_evidence_of(&mut self, listed: &[(&Project, &[Bank])]) -> Vec<Evidence> {
        let store = match self.listings {
            Some(listings) => listings,
            None => &self.own_facts,
        };
        let mut found: Vec<Evidence> = Vec::with_capacity(listed.len());
        let mut missing: Vec<(usize, Option<u64>)> = Vec::new();
        for (index, (project, banks)) in listed.iter().enumerate() {
            let place = self.repo_stamps.place(&project.path, banks, store);
            let remembered = match place {
                RepoPlace::Stamped(stamp) => {
                    store.stamped_fact::<GitEvidence>(GIT_EVIDENCE_FACT, &project.path, stamp)
                }
                RepoPlace::Outside | RepoPlace::Unstamped => None,
            };
            match (place, remembered.is_some()) {
                (RepoPlace::Outside, _) | (_, true) => {}
                (RepoPlace::Stamped(stamp), false) => missing.push((index, Some(stamp))),
                (RepoPlace::Unstamped, false) => missing.push((index, None)),
            }
            found.push(remembered.map_or(Evidence::Outside, Evidence::Known));
        }
        if missing.is_empty() {
            return found;
        }
        let pairs: Vec<(&Project, &[Bank])> = missing.iter().map(|(i, _)| listed[*i]).collect();
        for ((index, stamp), state) in missing.iter().zip(gather_git(&pairs, &self.history)) {
            let (project, banks) = listed[*index];
            match state {
                GitState::Ready(git) => {
                    let evidence = GitEvidence::from_facts(&git.facts, banks);
                    if let Some(stamp) = stamp {
                        store.put_stamped_fact(GIT_EVIDENCE_FACT, &project.path, *stamp, &evidence);
                    }
                    found[*index] = Evidence::Known(evidence);
                }
                // Never remembered: git may accept the repository next time.
                GitState::Failed { .. } => found[*index] = state.failure().unwrap_or_default(),
                GitState::Absent => {}
            }
        }
        found
    }

    /// The repository `project` is in, as its git evidence is stamped.
    pub fn repository(&mut self, project: &Path) -> crate::analysis::git_evidence::Repository {
        let store = match self.listings {
            Some(listings) => listings,
            None => &self.own_facts,
        };
        self.repo_stamps.repository(project, store)
    }

    /// Drops what [`Analyzer::prefetch_git_evidence`] found: a write since may have
    /// changed it.
    pub fn forget_prefetched(&mut self) {
        self.prefetched.clear();
    }

    /// Whether [`Analyzer::prefetch_git_evidence`] holds the evidence of `project`.
    pub fn has_prefetched(&self, project: &Path) -> bool {
        self.prefetched.contains_key(project)
    }

    /// The newest date written in a loaded file: from its text when it was read for
    /// this analysis, else from its figures (found when its tokens were counted and
    /// cached with them, so a warm `list` reads no content for it).
    pub(super) fn content_date(
        &self,
        file: &MemoryFile,
        text: Option<&str>,
        stats: Option<&TextStats>,
    ) -> Option<chrono::NaiveDate> {
        if file.load == LoadKind::Never || file.is_virtual() {
            return None;
        }
        match text {
            Some(text) => staleness::WrittenDates::of(text, self.today).newest_by(self.today),
            None => stats?.dates.newest_by(self.today),
        }
    }
}
