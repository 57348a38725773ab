//! The search worker: one long-lived thread that owns the search index of the root, so
//! reading projects and ranking never run on the drawing thread. Queries typed faster than
//! they are answered collapse into the newest; each answer names the query's generation,
//! so the overlay drops answers to queries it no longer shows.
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;

use mbank_core::model::Bank;
use mbank_core::scan::bank::list_banks;
use mbank_core::scan::discovery::{self, ScanOptions};
use mbank_core::search::{Hit, ProjectBanks, Query, SearchIndex};

use super::message::Message;
use super::workers::Outbox;

/// Results one search returns at most.
const LIMIT: usize = 50;

/// A query, and where to search.
#[derive(Debug, Clone)]
pub(crate) struct SearchRequest {
    pub generation: u64,
    pub query: String,
    pub root: PathBuf,
    pub scan: ScanOptions,
    /// The home folder whose own stores (Codex memories …) are searched too; `None`: none.
    pub home: Option<PathBuf>,
    /// Where the index is kept (mbank's cache folder); `None`: in memory only.
    pub cache_dir: Option<PathBuf>,
    /// Bring the index up to date with the files first (the search was just opened, or
    /// files changed since): the next keystrokes search what is indexed.
    pub refresh: bool,
}

pub(crate) struct SearchWorker {
    requests: Sender<SearchRequest>,
}

impl SearchWorker {
    pub fn spawn(outbox: Outbox) -> SearchWorker {
        let (requests, inbox) = mpsc::channel();
        thread::spawn(move || search_loop(&inbox, &outbox));
        SearchWorker { requests }
    }

    pub fn send(&self, request: SearchRequest) {
        let _ = self.requests.send(request);
    }
}

fn search_loop(inbox: &Receiver<SearchRequest>, outbox: &Outbox) {
    let mut open: Option<(PathBuf, SearchIndex)> = None;
    while let Ok(mut request) = inbox.recv() {
        let mut refresh = request.refresh;
        while let Ok(newer) = inbox.try_recv() {
            refresh |= newer.refresh;
            request = newer;
        }
        request.refresh = refresh;
        if open.as_ref().is_none_or(|(root, _)| *root != request.root) {
            request.refresh = true;
            let index = match &request.cache_dir {
                Some(dir) => SearchIndex::open_at(dir, &request.root),
                None => SearchIndex::in_memory(),
            };
            open = Some((request.root.clone(), index));
        }
        let Some((_, index)) = open.as_mut() else {
            continue;
        };
        let result = search(index, &request);
        let sent = outbox.send(Message::SearchResults {
            generation: request.generation,
            result,
        });
        if sent.is_err() {
            return;
        }
    }
}

/// The index, brought up to date with the root's files when asked, then searched.
fn search(index: &mut SearchIndex, request: &SearchRequest) -> Result<Vec<Hit>, String> {
    if !request.root.is_dir() {
        return Err(format!("{} is not a folder", request.root.display()));
    }
    if request.refresh || index.is_empty() {
        refresh(index, request);
    }
    Ok(index.search(&Query {
        text: request.query.clone(),
        limit: LIMIT,
        ..Query::default()
    }))
}

fn refresh(index: &mut SearchIndex, request: &SearchRequest) {
    let projects = discovery::scan(&request.root, &request.scan);
    let banks: Vec<Vec<Bank>> = projects.iter().map(list_banks).collect();
    let inputs: Vec<ProjectBanks<'_>> = projects
        .iter()
        .zip(&banks)
        .map(|(project, banks)| ProjectBanks { project, banks })
        .collect();
    index.refresh(&inputs, request.home.as_deref());
}
