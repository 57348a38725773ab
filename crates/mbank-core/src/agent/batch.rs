//! Group commit for the entries agents append (decisions, progress lines, session notes).
//!
//! A guarded write costs two fsyncs (the file, then its folder): on an ordinary disk
//! about 10 ms, so appends made one write each stop near 100 a second. Here concurrent
//! appends to one file through the same [`AppendQueues`] (a bank's: a server keeps one
//! bank per project for all its sessions) queue up; whoever finds no write in progress
//! becomes the leader, takes the folder lock, applies every queued edit in order to one
//! read of the file and commits them with one guarded write; each caller returns once
//! the write holding its entry is on disk. An edit that fails (a refused secret) fails
//! alone; the others still land. Writers with other queues (another bank opened on the
//! same folder, another process) still serialise on the folder lock.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

use super::{AgentError, AgentResult};
use crate::io::lock;

/// Changes the file's text in place (`None`: no file yet), so an append costs the entry,
/// not a copy of the file. An edit that fails must leave the text as it was.
pub type Edit = Box<dyn FnOnce(&mut Option<String>) -> AgentResult<()> + Send>;

/// Commits the final text of a batch: `(text read, new text)` → the new version.
pub type Commit<'a> = &'a dyn Fn(Option<&str>, &str) -> AgentResult<String>;

#[derive(Default)]
struct Queue {
    waiting: Vec<(u64, Edit)>,
    results: HashMap<u64, AgentResult<String>>,
    writing: bool,
    next_id: u64,
}

#[derive(Default)]
struct FileQueue {
    state: Mutex<Queue>,
    done: Condvar,
}

/// The append queues of one set of writers, one per file; clones share them.
#[derive(Default, Clone)]
pub struct AppendQueues(Arc<Mutex<HashMap<PathBuf, Arc<FileQueue>>>>);

impl std::fmt::Debug for AppendQueues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppendQueues")
            .field("files", &self.0.lock().len())
            .finish()
    }
}

/// Reads the file's current text (`None`: no file yet).
pub type Read<'a> = &'a dyn Fn() -> AgentResult<Option<String>>;

impl AppendQueues {
    /// Applies `edit` to `path` together with the edits other threads queue meanwhile
    /// here. Under the folder lock of `path`, `read` gives the current text and `commit`
    /// writes. Returns what `commit` returned for the write holding this edit (its
    /// version).
    pub fn append(
        &self,
        path: &Path,
        edit: Edit,
        read: Read<'_>,
        commit: Commit<'_>,
    ) -> AgentResult<String> {
        let queue = self.0.lock().entry(path.to_path_buf()).or_default().clone();
        append_queued(&queue, path, edit, read, commit)
    }
}

fn append_queued(
    queue: &FileQueue,
    path: &Path,
    edit: Edit,
    read: Read<'_>,
    commit: Commit<'_>,
) -> AgentResult<String> {
    let mut state = queue.state.lock();
    let id = state.next_id;
    state.next_id += 1;
    state.waiting.push((id, edit));
    loop {
        if let Some(result) = state.results.remove(&id) {
            return result;
        }
        if !state.writing {
            break;
        }
        queue.done.wait(&mut state);
    }
    // Leader: write batches until the queue is empty (this caller's edit is in the first).
    state.writing = true;
    while !state.waiting.is_empty() {
        let batch = std::mem::take(&mut state.waiting);
        drop(state);
        let ids: Vec<u64> = batch.iter().map(|(id, _)| *id).collect();
        // A panic in an edit or the commit must not leave `writing` set: every later
        // append to this file would wait for a leader that is gone.
        let results = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            write_batch(path, batch, read, commit)
        }))
        .unwrap_or_else(|_| {
            ids.into_iter()
                .map(|id| {
                    let message = "the write holding this entry stopped unexpectedly; \
                                   read the file to see whether it landed";
                    (id, Err(AgentError::Storage(message.into())))
                })
                .collect()
        });
        state = queue.state.lock();
        state.results.extend(results);
        queue.done.notify_all();
    }
    state.writing = false;
    queue.done.notify_all();
    state.results.remove(&id).unwrap_or_else(|| {
        Err(AgentError::Storage(
            "the append was lost by its batch".into(),
        ))
    })
}

fn write_batch(
    path: &Path,
    batch: Vec<(u64, Edit)>,
    read: Read<'_>,
    commit: Commit<'_>,
) -> Vec<(u64, AgentResult<String>)> {
    let mut batch: Vec<(u64, Option<Edit>)> =
        batch.into_iter().map(|(id, e)| (id, Some(e))).collect();
    let mut results: Vec<(u64, AgentResult<String>)> = Vec::new();
    let outcome: AgentResult<()> = (|| {
        let _lock = lock::for_file(path).map_err(AgentError::Core)?;
        let current = read()?;
        let mut text = current.clone();
        let mut applied = Vec::new();
        for (id, edit) in batch.iter_mut() {
            let Some(edit) = edit.take() else { continue };
            match edit(&mut text) {
                Ok(()) => applied.push(*id),
                Err(e) => results.push((*id, Err(e))),
            }
        }
        if let Some(new) = text.filter(|_| !applied.is_empty()) {
            match commit(current.as_deref(), &new) {
                Ok(version) => {
                    results.extend(applied.iter().map(|id| (*id, Ok(version.clone()))));
                }
                // A refused result (a secret already in the file) is every edit's refusal.
                Err(AgentError::Refused(refusal)) => {
                    results.extend(
                        applied
                            .iter()
                            .map(|id| (*id, Err(AgentError::Refused(refusal.clone())))),
                    );
                }
                Err(e) => {
                    let message = e.to_string();
                    results.extend(
                        applied
                            .iter()
                            .map(|id| (*id, Err(AgentError::Storage(message.clone())))),
                    );
                }
            }
        }
        Ok(())
    })();
    if let Err(e) = outcome {
        // The lock or the read failed: every edit not yet answered fails with it.
        let message = e.to_string();
        let answered: Vec<u64> = results.iter().map(|(id, _)| *id).collect();
        for (id, _) in batch {
            if !answered.contains(&id) {
                results.push((id, Err(AgentError::Storage(message.clone()))));
            }
        }
    }
    results
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::{self, Expected};
    use std::fs;

    fn append_line(queues: &AppendQueues, path: &Path, line: String) -> AgentResult<String> {
        queues.append(
            path,
            Box::new(move |text| {
                if line.contains("refuse") {
                    return Err(AgentError::InvalidRequest("refused".into()));
                }
                let text = text.get_or_insert_with(String::new);
                text.push_str(&line);
                text.push('\n');
                Ok(())
            }),
            &|| match fs::read_to_string(path) {
                Ok(t) => Ok(Some(t)),
                Err(_) => Ok(None),
            },
            &|old, new| {
                let expected = old.map_or(Expected::Missing, Expected::text);
                write::write_guarded(path, new, expected).map_err(AgentError::Core)?;
                Ok(new.len().to_string())
            },
        )
    }

    #[test]
    fn concurrent_appends_all_land_once_and_failures_stay_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.md");
        let queues = AppendQueues::default();
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let path = path.clone();
                let queues = queues.clone();
                std::thread::spawn(move || {
                    for i in 0..40 {
                        let line = if i == 7 {
                            format!("refuse {t}")
                        } else {
                            format!("entry {t}-{i}")
                        };
                        let result = append_line(&queues, &path, line);
                        assert_eq!(result.is_err(), i == 7);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let text = fs::read_to_string(&path).unwrap();
        for t in 0..8 {
            for i in (0..40).filter(|i| *i != 7) {
                let line = format!("entry {t}-{i}\n");
                assert_eq!(text.matches(&line).count(), 1, "{line}");
            }
        }
        assert_eq!(text.lines().count(), 8 * 39);
    }

    #[test]
    fn an_edit_that_panics_fails_its_batch_and_later_appends_still_land() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.md");
        let queues = AppendQueues::default();
        let panicked = queues.append(
            &path,
            Box::new(|_| panic!("an edit that panics")),
            &|| Ok(None),
            &|_, new| Ok(new.len().to_string()),
        );
        assert!(
            matches!(panicked, Err(AgentError::Storage(_))),
            "{panicked:?}"
        );
        // Run on another thread with a deadline: a queue left "writing" would hang here.
        let later = path.clone();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = sender.send(append_line(&queues, &later, "after the panic".into()));
        });
        let result = receiver
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("an append after a panicking edit must not wait forever");
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "after the panic\n");
    }
}
