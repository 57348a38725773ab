//! Analysing many projects (what `check` runs over a root), shared across the machine's
//! cores: the projects are listed on every core, git is asked once per repository for all
//! of them, then each project is analysed on whichever core is free. Every project's
//! listing and analysis run on one thread, so what it read is recorded whole.
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::Mutex;

use super::{Analyzer, Depth, ProjectReport};
use crate::analysis::git_evidence::{
    GitState, RepoStamps, Repository, find_repositories, gather_found, gather_git_listing,
};
use crate::io::reads::{self, Reads};
use crate::model::{Bank, Project};
use crate::scan::listings::Listings;

/// Below this many projects the analysis stays on the calling thread.
const PARALLEL_MIN_PROJECTS: usize = 8;

/// Projects a thread takes at a time: a thread slowed down by a busy core leaves the
/// rest to the others.
const CHUNK: usize = 8;

/// What a project's analysis starts from: its banks, what listing them read, its git side.
type ProjectPart = (Vec<Bank>, Reads, GitState);

/// One project analysed by [`Analyzer::analyze_many`].
pub struct Analyzed<T> {
    pub report: ProjectReport,
    /// What the caller's `beside` made of the project's banks.
    pub beside: T,
    /// Everything the listing, the analysis and `beside` read (see [`crate::io::reads`]).
    pub reads: Reads,
    /// The repository the project is in, as its git evidence is stamped.
    pub repository: Repository,
}

impl<'a> Analyzer<'a> {
    /// [`Analyzer::analyze`] of many projects (what `check` runs over a root): with
    /// `Depth::git`, git runs only for projects inside a repository, once per repository
    /// for all its projects, not once per project.
    pub fn analyze_all(&mut self, projects: &[Project], depth: Depth) -> Vec<ProjectReport> {
        self.analyze_many(projects, depth, &|_, _| (), &|_, analyzed| analyzed.report)
    }

    /// [`Analyzer::analyze_all`], each report with what `beside` made of the project's
    /// banks (run on the same thread, before the banks move into the report), what its
    /// listing, analysis and `beside` read, and its repository, handed to `finish` on the
    /// thread that analysed it; what `finish` makes of each, in `projects`' order. A
    /// report lives only until `finish` is done with it, so a caller that keeps a little
    /// of each holds a little of each, not every project's report at once.
    pub fn analyze_many<T, U: Send>(
        &mut self,
        projects: &[Project],
        depth: Depth,
        beside: &(dyn Fn(&Project, &[Bank]) -> T + Sync),
        finish: &(dyn Fn(&Project, Analyzed<T>) -> U + Sync),
    ) -> Vec<U> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
        let mut workers: Vec<Analyzer<'a>> = if projects.len() < PARALLEL_MIN_PROJECTS {
            Vec::new()
        } else {
            (1..threads).map(|_| self.worker()).collect()
        };
        let claims = Arc::clone(&self.claims);
        let _held = claims.hold();
        // A few projects (`check PATH` in a hook): their repositories are found, and a
        // first check's walk of history started, while they are listed, since that walk
        // takes longer than everything else. Many projects are left to the listings,
        // which tell without a `stat` each which of them no repository holds.
        let find_early = depth.git && projects.len() < PARALLEL_MIN_PROJECTS;
        let history = Arc::clone(&self.history);
        let (listed, found_early) = std::thread::scope(|scope| {
            let finding = find_early.then(|| {
                let claims = depth.validate.then_some(&*claims);
                let history = &*history;
                scope.spawn(move || {
                    let folders: Vec<&Path> = projects.iter().map(|p| p.path.as_path()).collect();
                    find_repositories(&folders, claims, history)
                })
            });
            let listed = on_workers(self, &mut workers, projects, |analyzer, project| {
                reads::recording(|| analyzer.list(project))
            });
            let found = finding.map(|finding| {
                finding
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            });
            (listed, found)
        });
        let mut states: Vec<GitState> = projects.iter().map(|_| GitState::Absent).collect();
        if let Some(found) = found_early {
            let pairs: Vec<(&Project, &[Bank])> = projects
                .iter()
                .zip(&listed)
                .map(|(project, (banks, _))| (project, banks.as_slice()))
                .collect();
            let claims = depth.validate.then_some(&*self.claims);
            states = gather_found(found, &pairs, claims, &self.history);
        } else if depth.git {
            // A project the listings show outside every repository is not looked up again
            // (a path resolved and a `stat` per project, on this one thread).
            let store = self.listings.unwrap_or(&self.own_facts);
            let in_some_repository: Vec<usize> = (0..projects.len())
                .filter(|&i| !self.repo_stamps.surely_outside(&projects[i].path, store))
                .collect();
            let pairs: Vec<(&Project, &[Bank])> = in_some_repository
                .iter()
                .map(|&i| (&projects[i], listed[i].0.as_slice()))
                .collect();
            // Validation checks claims against each repository's files: the `ls-files`
            // git runs for the staleness facts lists them all for it.
            let found = gather_git_listing(
                &pairs,
                depth.validate.then_some(&*self.claims),
                &self.history,
            );
            for (i, state) in in_some_repository.into_iter().zip(found) {
                states[i] = state;
            }
        }
        // Each project's part moves to whichever thread takes the project.
        let parts: Vec<Mutex<Option<ProjectPart>>> = listed
            .into_iter()
            .zip(states)
            .map(|((banks, read), state)| Mutex::new(Some((banks, read, state))))
            .collect();
        let indices: Vec<usize> = (0..projects.len()).collect();
        let finished = on_workers(self, &mut workers, &indices, |analyzer, &index| {
            let project = &projects[index];
            let (banks, mut read, state) = parts[index]
                .lock()
                .take()
                .unwrap_or_else(|| (Vec::new(), Reads::default(), GitState::Absent));
            let ((report, beside), analysis) = reads::recording(|| {
                crate::io::text::reading_once(|| {
                    crate::markup::dates::remembering_prose(|| {
                        let beside = beside(project, &banks);
                        (analyzer.analyze_with(project, banks, depth, state), beside)
                    })
                })
            });
            read.absorb(analysis);
            let analyzed = Analyzed {
                report,
                beside,
                reads: read,
                repository: analyzer.repository(&project.path),
            };
            finish(project, analyzed)
        });
        for worker in workers {
            self.cache.absorb(worker.cache);
        }
        finished
    }

    /// An analyzer for another thread of the same run: the same settings, listings and
    /// claim indexes, a fork of the token cache ([`TokenCache::absorb`] brings back what
    /// it counts).
    ///
    /// [`TokenCache::absorb`]: crate::tokens::TokenCache::absorb
    fn worker(&self) -> Analyzer<'a> {
        Analyzer {
            config: self.config,
            encoding: self.encoding,
            cache: self.cache.fork(),
            clock: self.clock,
            today: self.today,
            listings: self.listings,
            own_facts: Listings::in_memory(),
            repo_stamps: RepoStamps::new(),
            prefetched: HashMap::new(),
            claims: Arc::clone(&self.claims),
            history: Arc::clone(&self.history),
            home: self.home.clone(),
            refresh_home: self.refresh_home,
            written_dates: self.written_dates,
            count_while_listing: false,
            count_ahead: None,
        }
    }
}

/// `work` on every item, by `lead` on this thread and each of `workers` on one of its
/// own, each taking the next few items when done with its last; the answers in `items`'
/// order.
fn on_workers<'a, I: Sync, R: Send>(
    lead: &mut Analyzer<'a>,
    workers: &mut [Analyzer<'a>],
    items: &[I],
    work: impl Fn(&mut Analyzer<'a>, &I) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let run = |analyzer: &mut Analyzer<'a>| {
        let mut done = Vec::new();
        loop {
            let start = next.fetch_add(CHUNK, Ordering::Relaxed);
            if start >= items.len() {
                break;
            }
            for (index, item) in items.iter().enumerate().skip(start).take(CHUNK) {
                done.push((index, work(analyzer, item)));
            }
        }
        done
    };
    let mut answers: Vec<Option<R>> = items.iter().map(|_| None).collect();
    let mut place = |done: Vec<(usize, R)>| {
        for (index, answer) in done {
            answers[index] = Some(answer);
        }
    };
    let run = &run;
    if workers.is_empty() {
        place(run(lead));
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = workers
                .iter_mut()
                .map(|worker| scope.spawn(move || run(worker)))
                .collect();
            place(run(lead));
            for handle in handles {
                place(
                    handle
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                );
            }
        });
    }
    answers.into_iter().flatten().collect()
}
