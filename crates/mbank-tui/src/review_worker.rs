//! The review worker: one long-lived thread that owns the [`ReviewSession`] of the open
//! project, so diffs, git calls and writes never run on the drawing thread. It answers
//! each [`ReviewRequest`] with a [`Message::Review`]; after anything that can change the
//! files it sends a fresh review, so the view always redraws from what is on disk.
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;

use mbank_core::error::CoreError;
use mbank_core::review::{ReviewOptions, ReviewSession};

use super::message::{ActError, Message, ReviewEvent};
use super::workers::Outbox;

pub(crate) use super::protocol::ReviewRequest;

pub struct ReviewWorker {
    requests: Sender<ReviewRequest>,
}

impl ReviewWorker {
    /// `options` is the template every session opens with (encoding, budgets; tests add
    /// a hermetic git environment and data folder).
    pub fn spawn(options: ReviewOptions, outbox: Outbox) -> ReviewWorker {
        let (requests, inbox) = mpsc::channel();
        thread::spawn(move || review_loop(&options, &inbox, &outbox));
        ReviewWorker { requests }
    }

    pub fn send(&self, request: ReviewRequest) {
        let _ = self.requests.send(request);
    }
}

struct ReviewWorkerState {
    session: Option<ReviewSession>,
}

fn review_loop(options: &ReviewOptions, inbox: &Receiver<ReviewRequest>, outbox: &Outbox) {
    let mut state = ReviewWorkerState { session: None };
    while let Ok(request) = inbox.recv() {
        // Several refreshes queued behind a slow one collapse into one full review.
        let mut batch = expand(request);
        while let Ok(more) = inbox.try_recv() {
            batch.extend(expand(more));
        }
        let refreshes = batch
            .iter()
            .filter(|r| matches!(r, ReviewRequest::Refresh(_) | ReviewRequest::Compute))
            .count();
        let mut computed = false;
        for request in batch {
            let events = match request {
                ReviewRequest::Refresh(_) | ReviewRequest::Compute if refreshes > 1 => {
                    if computed {
                        continue;
                    }
                    computed = true;
                    vec![compute(&state)]
                }
                other => handle(&mut state, options, other),
            };
            for event in events {
                if outbox.send(Message::Review(event)).is_err() {
                    return;
                }
            }
        }
    }
}

/// A watcher's report as the refreshes it needs (the files are looked at here, off the
/// drawing thread).
fn expand(request: ReviewRequest) -> Vec<ReviewRequest> {
    let ReviewRequest::FilesChanged(paths) = request else {
        return vec![request];
    };
    if paths
        .iter()
        .any(|(path, listed)| !listed || !path.is_file())
    {
        return vec![ReviewRequest::Compute];
    }
    paths
        .into_iter()
        .map(|(path, _)| ReviewRequest::Refresh(path))
        .collect()
}

fn project_path(state: &ReviewWorkerState) -> PathBuf {
    state
        .session
        .as_ref()
        .map(|s| s.project().path.clone())
        .unwrap_or_default()
}

fn compute(state: &ReviewWorkerState) -> ReviewEvent {
    let project = project_path(state);
    let result = match &state.session {
        Some(session) => session.review().map(Box::new).map_err(|e| e.to_string()),
        None => Err("no project is open".to_string()),
    };
    ReviewEvent::Computed {
        project,
        is_git: state.session.as_ref().is_some_and(ReviewSession::is_git),
        result,
    }
}

fn handle(
    state: &mut ReviewWorkerState,
    options: &ReviewOptions,
    request: ReviewRequest,
) -> Vec<ReviewEvent> {
    match request {
        ReviewRequest::Open { project } => {
            match ReviewSession::open(&project, options.clone()) {
                Ok(session) => state.session = Some(session),
                Err(e) => {
                    state.session = None;
                    return vec![ReviewEvent::Computed {
                        project: project.path,
                        is_git: false,
                        result: Err(e.to_string()),
                    }];
                }
            }
            vec![compute(state)]
        }
        ReviewRequest::Compute => vec![compute(state)],
        // Expanded before it gets here.
        ReviewRequest::FilesChanged(_) => Vec::new(),
        ReviewRequest::Refresh(path) => {
            let project = project_path(state);
            let Some(session) = &state.session else {
                return Vec::new();
            };
            let result = session
                .refresh_file(&path)
                .map(|f| f.map(Box::new))
                .map_err(|e| e.to_string());
            vec![ReviewEvent::FileRefreshed {
                project,
                path,
                result,
            }]
        }
        ReviewRequest::Act { action, file } => {
            let project = project_path(state);
            let Some(session) = &mut state.session else {
                return Vec::new();
            };
            let result = session.apply(action, &file).map_err(|e| match e {
                CoreError::Conflict { .. } => ActError::Conflict,
                other => ActError::Other(other.to_string()),
            });
            vec![
                ReviewEvent::Acted {
                    project,
                    action,
                    display: file.display.clone(),
                    result,
                },
                compute(state),
            ]
        }
        ReviewRequest::RejectLoss(file) => {
            let Some(session) = &state.session else {
                return Vec::new();
            };
            let loss = session.reject_file_loss(&file);
            vec![ReviewEvent::RejectLoss { file, loss }]
        }
        ReviewRequest::Undo => {
            let Some(session) = &mut state.session else {
                return Vec::new();
            };
            let result = session.undo().map_err(|e| match e {
                CoreError::Conflict { path } => format!(
                    "cannot undo: {} changed on disk since; nothing was reverted",
                    path.display()
                ),
                other => other.to_string(),
            });
            vec![ReviewEvent::Undone(result), compute(state)]
        }
        ReviewRequest::CommitMessage => {
            let Some(session) = &state.session else {
                return Vec::new();
            };
            vec![ReviewEvent::CommitMessage(
                session.commit_message().map_err(|e| e.to_string()),
            )]
        }
        ReviewRequest::Commit(message) => {
            let Some(session) = &mut state.session else {
                return Vec::new();
            };
            let result = session.commit(&message).map_err(|e| e.to_string());
            vec![ReviewEvent::Committed(result), compute(state)]
        }
        ReviewRequest::MarkReviewed => {
            let Some(session) = &mut state.session else {
                return Vec::new();
            };
            let result = session.mark_reviewed().map_err(|e| e.to_string());
            vec![ReviewEvent::MarkedReviewed(result), compute(state)]
        }
    }
}
