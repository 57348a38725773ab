//! Background work: scanning the root, and the long-lived workers that analyse projects
//! (token counts, budgets, staleness, validation, decisions), count an edited buffer and
//! render the preview. Each runs off the drawing thread and reports back as a
//! [`Message`] through the one channel the event loop reads; nothing here touches the
//! terminal. One-shot file jobs (read, save, back up) are in the `jobs` module.
use mbank_core::clock::Clock;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::thread;

use mbank_core::analysis::context::{self, BankContext, ContextOptions};
use mbank_core::analysis::memory_folders;
use mbank_core::analysis::report::{Analyzer, Depth, ProjectReport};
use mbank_core::config::Config;
use mbank_core::model::Project;
use mbank_core::scan::discovery::{self, ScanOptions};
use mbank_core::scan::listings::Listings;
use mbank_core::tokens::{self, Encoding, TokenCache};

use super::markdown_view;
use super::message::Message;
use super::protocol::RenderKey;
use super::theme::Theme;

/// Where workers send their results: the event loop's channel.
pub(crate) type Outbox = Sender<Message>;

/// Scans the root on a new thread and sends [`Message::Scanned`].
pub fn scan(root: PathBuf, options: ScanOptions, generation: u64, clock: Clock, outbox: Outbox) {
    thread::spawn(move || {
        // The folder listings remembered by the last run (CLI or TUI) spare re-reading
        // every unchanged folder; each remembered folder is still checked with a stat.
        let listings = Listings::open_default(&root, &clock);
        let projects = discovery::scan_with(&root, &options, &listings);
        let _ = outbox.send(Message::Scanned {
            generation,
            projects,
        });
        // A failed save only costs the next start a full walk.
        let _ = listings.save();
    });
}

/// A request to the analysis worker.
enum AnalysisRequest {
    /// Figures for every project of a scan, one message per project, in order.
    Summaries {
        generation: u64,
        projects: Vec<Project>,
    },
    /// Everything about one project (validation and decisions included): jumps the queue.
    Full { project: Project },
    /// A listed project's figures again after a write inside it: after the open project,
    /// before the scan's summaries.
    Refresh { project: Project },
}

/// One long-lived thread that owns the token cache and analyses projects: opened
/// projects first, then the picker's summaries one by one, so figures fill in
/// progressively and an open project never waits behind two thousand others.
pub struct AnalysisWorker {
    requests: Sender<AnalysisRequest>,
}

impl AnalysisWorker {
    pub fn spawn(
        config: Arc<Config>,
        encoding: Encoding,
        clock: Clock,
        outbox: Outbox,
    ) -> AnalysisWorker {
        // The cache file (megabytes on a big root) is read on the worker's thread, so
        // it never delays the first frame.
        Self::spawn_opening(
            config,
            encoding,
            clock,
            move || TokenCache::open_default(encoding),
            outbox,
        )
    }

    /// With a given cache (tests use an in-memory one).
    #[cfg(any(test, feature = "test-support"))]
    pub(crate) fn spawn_with_cache(
        config: Arc<Config>,
        encoding: Encoding,
        clock: Clock,
        cache: TokenCache,
        outbox: Outbox,
    ) -> AnalysisWorker {
        Self::spawn_opening(config, encoding, clock, move || cache, outbox)
    }

    fn spawn_opening(
        config: Arc<Config>,
        encoding: Encoding,
        clock: Clock,
        open_cache: impl FnOnce() -> TokenCache + Send + 'static,
        outbox: Outbox,
    ) -> AnalysisWorker {
        let (requests, inbox) = mpsc::channel();
        thread::spawn(move || {
            // The first request follows the scan: opening the cache only then keeps it
            // from competing with the scan, and so with the first frame, for the cores.
            let Ok(first) = inbox.recv() else {
                return;
            };
            let cache = open_cache();
            analysis_loop(&config, encoding, &clock, cache, first, &inbox, &outbox)
        });
        AnalysisWorker { requests }
    }

    pub fn summaries(&self, generation: u64, projects: Vec<Project>) {
        let _ = self.requests.send(AnalysisRequest::Summaries {
            generation,
            projects,
        });
    }

    pub fn full(&self, project: Project) {
        let _ = self.requests.send(AnalysisRequest::Full { project });
    }

    pub fn refresh(&self, project: Project) {
        let _ = self.requests.send(AnalysisRequest::Refresh { project });
    }
}

/// Work waiting for the analysis worker: opened projects, then projects written to, then
/// picker summaries.
#[derive(Default)]
struct AnalysisQueue {
    full: VecDeque<Project>,
    refresh: VecDeque<Project>,
    summaries: VecDeque<(u64, usize, Project)>,
    total: usize,
}

impl AnalysisQueue {
    fn is_empty(&self) -> bool {
        self.full.is_empty() && self.refresh.is_empty() && self.summaries.is_empty()
    }

    fn take(&mut self, request: AnalysisRequest) {
        match request {
            AnalysisRequest::Full { project } => {
                self.full.retain(|p| p.path != project.path);
                self.full.push_back(project);
            }
            AnalysisRequest::Refresh { project } => {
                if !self.refresh.iter().any(|p| p.path == project.path) {
                    self.refresh.push_back(project);
                }
            }
            AnalysisRequest::Summaries {
                generation,
                projects,
            } => {
                // A newer scan replaces whatever the older one still had queued.
                self.total = projects.len();
                self.summaries = projects
                    .into_iter()
                    .enumerate()
                    .map(|(index, p)| (generation, index, p))
                    .collect();
            }
        }
    }
}

fn analysis_loop(
    config: &Config,
    encoding: Encoding,
    clock: &Clock,
    cache: TokenCache,
    first: AnalysisRequest,
    inbox: &Receiver<AnalysisRequest>,
    outbox: &Outbox,
) {
    let mut analyzer = Analyzer::new(config, encoding, cache, clock);
    let mut queue = AnalysisQueue::default();
    queue.take(first);
    loop {
        if queue.is_empty() {
            if analyzer.cache.is_dirty() {
                analyzer.finish();
            }
            match inbox.recv() {
                Ok(request) => queue.take(request),
                Err(_) => return,
            }
        }
        loop {
            match inbox.try_recv() {
                Ok(request) => queue.take(request),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    analyzer.finish();
                    return;
                }
            }
        }
        if let Some(project) = queue.full.pop_front() {
            // Found again: a bank may have appeared or gone since the scan.
            let Some(project) = rediscover(&project) else {
                if outbox.send(Message::ProjectGone(project.path)).is_err() {
                    return;
                }
                continue;
            };
            let report = analyzer.analyze(&project, full_depth());
            let contexts = contexts_of(&project, encoding);
            let folders = memory_folders::of(&project, Some(&report));
            let message = Message::Analyzed {
                project,
                report: Box::new(report),
                contexts,
                folders,
            };
            if outbox.send(message).is_err() {
                return;
            }
        } else if let Some(project) = queue.refresh.pop_front() {
            // Something was written: evidence found before it may be out of date.
            analyzer.forget_prefetched();
            let message = match rediscover(&project) {
                Some(project) => {
                    let report = analyzer.analyze(&project, summary_depth());
                    let folders = memory_folders::of(&project, Some(&report));
                    Message::Refreshed {
                        project,
                        report: Box::new(report),
                        folders,
                    }
                }
                None => Message::ProjectGone(project.path),
            };
            if outbox.send(message).is_err() {
                return;
            }
        } else if let Some((generation, index, project)) = queue.summaries.pop_front() {
            if !analyzer.has_prefetched(&project.path) {
                prefetch_git_evidence(&mut analyzer, &project, &queue.summaries);
            }
            let report = analyzer.analyze(&project, summary_depth());
            let folders = memory_folders::of(&project, Some(&report));
            let message = Message::Summary {
                generation,
                index,
                total: queue.total,
                report: Box::new(report),
                folders,
            };
            if outbox.send(message).is_err() {
                return;
            }
            if queue.summaries.is_empty() {
                analyzer.finish();
            }
        }
    }
}

/// The project as its folder holds it now (its banks found again), or `None` when it holds
/// no memory bank any more.
fn rediscover(project: &Project) -> Option<Project> {
    let home = mbank_core::io::paths::home_dir();
    discovery::project_at_home(&project.path, project.name.clone(), home.as_deref())
}

/// Projects whose summaries git evidence is found for at once: git then runs once per
/// repository for them (a monorepo's projects), not once per project.
const GIT_BATCH: usize = 16;

/// Finds the git evidence of `next` and the summaries queued after it, in one batch.
fn prefetch_git_evidence(
    analyzer: &mut Analyzer<'_>,
    next: &Project,
    queued: &VecDeque<(u64, usize, Project)>,
) {
    let projects: Vec<&Project> = std::iter::once(next)
        .chain(queued.iter().map(|(_, _, p)| p))
        .take(GIT_BATCH)
        .collect();
    let listed: Vec<Vec<mbank_core::model::Bank>> =
        projects.iter().map(|p| analyzer.list(p)).collect();
    let pairs: Vec<(&Project, &[mbank_core::model::Bank])> = projects
        .iter()
        .zip(&listed)
        .map(|(p, b)| (*p, b.as_slice()))
        .collect();
    analyzer.prefetch_git_evidence(&pairs);
}

/// What an opened project shows: everything, git included.
fn full_depth() -> Depth {
    Depth::full()
}

/// What the picker's rows show: figures, budgets, staleness and the findings badge.
fn summary_depth() -> Depth {
    Depth {
        validate: true,
        ..Depth::default()
    }
}

/// What a session start loads from each instruction-file bank (imports, cut-offs) and
/// each bank an agent cuts (auto memory's `MEMORY.md`, Windsurf's rules).
fn contexts_of(project: &Project, encoding: Encoding) -> Vec<BankContext> {
    let options = ContextOptions {
        home: mbank_core::io::paths::home_dir(),
        include_user_files: false,
        include_ancestors: false,
        codex_home: None,
    };
    let listed = mbank_core::scan::bank::list_banks(project);
    let banks: Vec<&mbank_core::model::Bank> = listed
        .iter()
        .filter(|bank| {
            mbank_core::formats::rules(bank.format).session_text_differs()
                || mbank_core::analysis::load_cut::bank_may_be_cut(bank)
        })
        .collect();
    // Each file once, as `mbank context` shows it.
    context::project_context(
        project,
        &banks,
        &|text| tokens::count(encoding, text),
        &options,
        None,
    )
}

/// Counts an edited buffer's tokens off the drawing thread; the newest text wins.
pub(crate) struct BufferCounter {
    requests: Sender<CountRequest>,
}

/// Document id, buffer version, text.
type CountRequest = (u64, u64, Arc<String>);

impl BufferCounter {
    pub fn spawn(encoding: Encoding, outbox: Outbox) -> BufferCounter {
        let (requests, inbox) = mpsc::channel::<CountRequest>();
        thread::spawn(move || {
            while let Ok(mut request) = inbox.recv() {
                // Skip to the newest request: typing faster than counting never queues up.
                while let Ok(newer) = inbox.try_recv() {
                    request = newer;
                }
                let (document, version, text) = request;
                // The gauges need figures only; dates are found when the file is saved.
                let stats = tokens::measure(&text, encoding);
                let message = Message::BufferCounted {
                    document,
                    version,
                    stats,
                };
                if outbox.send(message).is_err() {
                    return;
                }
            }
        });
        BufferCounter { requests }
    }

    pub fn count(&self, document: u64, version: u64, text: Arc<String>) {
        let _ = self.requests.send((document, version, text));
    }
}

/// Renders the preview off the drawing thread; the newest request wins.
pub(crate) struct PreviewWorker {
    requests: Sender<PreviewRequest>,
}

struct PreviewRequest {
    key: RenderKey,
    text: Arc<String>,
    theme: Theme,
}

impl PreviewWorker {
    pub fn spawn(outbox: Outbox) -> PreviewWorker {
        let (requests, inbox) = mpsc::channel::<PreviewRequest>();
        thread::spawn(move || {
            while let Ok(mut request) = inbox.recv() {
                while let Ok(newer) = inbox.try_recv() {
                    request = newer;
                }
                let rendered =
                    markdown_view::render(&request.text, &request.theme, request.key.width);
                let message = Message::PreviewRendered {
                    key: request.key,
                    rendered: Box::new(rendered),
                };
                if outbox.send(message).is_err() {
                    return;
                }
            }
        });
        PreviewWorker { requests }
    }

    pub fn render(&self, key: RenderKey, text: Arc<String>, theme: Theme) {
        let _ = self.requests.send(PreviewRequest { key, text, theme });
    }
}

/// Convenience for tests: the report of one project, computed on this thread.
pub fn analyze_now(
    config: &Config,
    encoding: Encoding,
    project: &Project,
    clock: &Clock,
) -> ProjectReport {
    let mut analyzer = Analyzer::new(config, encoding, TokenCache::in_memory(encoding), clock);
    analyzer.analyze(project, full_depth())
}
