//! The background highlighter: one thread owning a [`DocHighlighter`] per open document,
//! taking the newest request per document and dropping the stale ones.
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use super::{DocHighlighter, LONG_LINE_CAP, LineSpans, assets};

/// Which document a request or answer is about; the pane chooses the numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DocId(pub u64);

/// One highlighted line as it was when highlighted.
#[derive(Debug, Clone, PartialEq)]
pub struct HighlightedLine {
    /// The text the spans were computed for; `None` for a line left plain for its length
    /// (its text is not copied).
    pub text: Option<String>,
    pub spans: LineSpans,
}

/// The worker's answer to a [`HighlightWorker::request`].
#[derive(Debug, Clone, PartialEq)]
pub struct HighlightDone {
    pub doc: DocId,
    pub version: u64,
    /// The index of `lines[0]` in the document.
    pub first_line: usize,
    pub lines: Vec<HighlightedLine>,
}

struct HighlightRequest {
    doc: DocId,
    version: u64,
    lines: Arc<Vec<String>>,
    visible: Range<usize>,
}

#[derive(Default)]
struct Inbox {
    request: Option<HighlightRequest>,
    theme: Option<String>,
    forget: Vec<DocId>,
    shutdown: bool,
}

struct WorkerMailbox {
    inbox: Mutex<Inbox>,
    wake: Condvar,
}

/// A document the worker knows: its engine and the text the checkpoints were made from.
struct DocEntry {
    engine: DocHighlighter,
    version: u64,
    lines: Arc<Vec<String>>,
    last_used: u64,
}

/// At most this many documents keep checkpoints; the least recently used is dropped.
const MAX_DOCS: usize = 8;

/// The background highlighter. Dropping it stops the thread.
pub(crate) struct HighlightWorker {
    shared: Arc<WorkerMailbox>,
    thread: Option<JoinHandle<()>>,
}

impl HighlightWorker {
    /// Starts the worker thread; it loads syntect's sets first if nobody has. `notify` is
    /// called on the worker thread with each answer (send it to the app loop from there).
    pub fn spawn(
        syntax_theme: &str,
        notify: impl Fn(HighlightDone) + Send + 'static,
    ) -> std::io::Result<HighlightWorker> {
        let shared = Arc::new(WorkerMailbox {
            inbox: Mutex::new(Inbox::default()),
            wake: Condvar::new(),
        });
        let worker_shared = Arc::clone(&shared);
        let theme = syntax_theme.to_string();
        let thread = std::thread::Builder::new()
            .name("highlight".into())
            .spawn(move || run_worker(&worker_shared, theme, notify))?;
        Ok(HighlightWorker {
            shared,
            thread: Some(thread),
        })
    }

    /// Asks for `visible` lines of `doc` at `version`. Replaces any request not yet started;
    /// one in progress is abandoned at its next checkpoint (its checkpoints are kept).
    pub fn request(
        &self,
        doc: DocId,
        version: u64,
        lines: Arc<Vec<String>>,
        visible: Range<usize>,
    ) {
        self.with_inbox(|inbox| {
            inbox.request = Some(HighlightRequest {
                doc,
                version,
                lines,
                visible,
            })
        });
    }

    /// Switches the syntect theme (live theme switching); every document starts over.
    pub(crate) fn set_syntax_theme(&self, name: &str) {
        self.with_inbox(|inbox| inbox.theme = Some(name.to_string()));
    }

    /// Drops a closed document's checkpoints.
    pub fn forget(&self, doc: DocId) {
        self.with_inbox(|inbox| inbox.forget.push(doc));
    }

    fn with_inbox(&self, change: impl FnOnce(&mut Inbox)) {
        // A poisoned lock means the worker panicked; the editor then simply stays plain.
        if let Ok(mut inbox) = self.shared.inbox.lock() {
            change(&mut inbox);
            self.shared.wake.notify_one();
        }
    }
}

impl Drop for HighlightWorker {
    fn drop(&mut self) {
        self.with_inbox(|inbox| inbox.shutdown = true);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn run_worker(shared: &WorkerMailbox, mut theme: String, notify: impl Fn(HighlightDone)) {
    assets();
    let mut docs: HashMap<DocId, DocEntry> = HashMap::new();
    let mut clock = 0u64;
    loop {
        let request = {
            let Ok(mut inbox) = shared.inbox.lock() else {
                return;
            };
            loop {
                if inbox.shutdown {
                    return;
                }
                if let Some(new_theme) = inbox.theme.take() {
                    theme = new_theme;
                    docs.clear();
                }
                for doc in inbox.forget.drain(..) {
                    docs.remove(&doc);
                }
                if let Some(request) = inbox.request.take() {
                    break request;
                }
                inbox = match shared.wake.wait(inbox) {
                    Ok(inbox) => inbox,
                    Err(_) => return,
                };
            }
        };
        clock += 1;
        if !docs.contains_key(&request.doc)
            && docs.len() >= MAX_DOCS
            && let Some(oldest) = docs
                .iter()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(d, _)| *d)
        {
            docs.remove(&oldest);
        }
        let entry = docs.entry(request.doc).or_insert_with(|| DocEntry {
            engine: DocHighlighter::new(&theme),
            version: request.version,
            lines: Arc::clone(&request.lines),
            last_used: clock,
        });
        entry.last_used = clock;
        if !Arc::ptr_eq(&entry.lines, &request.lines) {
            if let Some(changed) = first_difference(&entry.lines, &request.lines) {
                entry.engine.invalidate_from(changed);
            }
            entry.lines = Arc::clone(&request.lines);
        }
        entry.version = request.version;
        let newer_waiting = || {
            shared
                .inbox
                .lock()
                .map(|inbox| inbox.request.is_some() || inbox.shutdown)
                .unwrap_or(true)
        };
        let Some(spans) =
            entry
                .engine
                .highlight_until(&request.lines, request.visible.clone(), &newer_waiting)
        else {
            continue;
        };
        let first_line = request.visible.start.min(request.lines.len());
        let lines = spans
            .into_iter()
            .zip(&request.lines[first_line..])
            .map(|(spans, text)| HighlightedLine {
                text: (text.len() <= LONG_LINE_CAP).then(|| text.clone()),
                spans,
            })
            .collect();
        notify(HighlightDone {
            doc: request.doc,
            version: request.version,
            first_line,
            lines,
        });
    }
}

/// The first line index where two versions of a document differ, `None` if equal.
pub(super) fn first_difference(old: &[String], new: &[String]) -> Option<usize> {
    let common = old.iter().zip(new).position(|(a, b)| a != b);
    match common {
        Some(index) => Some(index),
        None if old.len() != new.len() => Some(old.len().min(new.len())),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn worker_drops_stale_requests() {
        let (tx, rx) = mpsc::channel();
        let worker = HighlightWorker::spawn("base16-ocean.dark", move |done| {
            let _ = tx.send(done);
        })
        .unwrap();
        let doc = Arc::new(lines(&"# heading\n*text*\n".repeat(5_000)));
        for version in 1..=50 {
            worker.request(DocId(1), version, Arc::clone(&doc), 9_000..9_060);
        }
        let mut seen = Vec::new();
        while seen.last() != Some(&50) {
            seen.push(rx.recv_timeout(Duration::from_secs(30)).unwrap().version);
        }
        assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
        assert!(seen.len() < 50, "every request was answered: {seen:?}");
    }

    #[test]
    fn worker_answers_the_newest_request() {
        let (tx, rx) = mpsc::channel();
        let worker = HighlightWorker::spawn("base16-ocean.dark", move |done| {
            let _ = tx.send(done);
        })
        .unwrap();
        let doc = Arc::new(lines("# one\ntext\n"));
        worker.request(DocId(7), 1, Arc::clone(&doc), 0..2);
        let mut done = rx.recv_timeout(Duration::from_secs(30)).unwrap();
        // Keep reading until the answer to this version arrives (an earlier one may be dropped).
        while done.version != 1 {
            done = rx.recv_timeout(Duration::from_secs(30)).unwrap();
        }
        assert_eq!(done.doc, DocId(7));
        assert_eq!(done.lines.len(), 2);
        let mut edited = (*doc).clone();
        edited[1] = "*changed*".into();
        worker.request(DocId(7), 2, Arc::new(edited), 1..2);
        let done = rx.recv_timeout(Duration::from_secs(30)).unwrap();
        assert_eq!(done.version, 2);
        assert_eq!(done.first_line, 1);
        assert_eq!(done.lines[0].text.as_deref(), Some("*changed*"));
    }
}
