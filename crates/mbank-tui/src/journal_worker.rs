//! The journal worker: one long-lived thread that records every version of every memory
//! file while the app runs (as `mbank watch` does, when no other recorder holds the
//! recorder lock) and answers the Changes view: what changed since it was last marked
//! reviewed, over every project and the agents' own stores, taking back a hunk or a
//! file, marking it all reviewed. Scans, reads, diffs and writes all happen here, never
//! on the drawing thread; every answer is a [`Message::Journal`].
//!
//! It is fed the app's own watcher reports (no second watcher): each batch is recorded,
//! after a catch-up on start. While another recorder holds the lock, each batch tries the
//! lock again, so the app takes over once that recorder stops. The lock is given up when
//! the worker stops (with the app).
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::Instant;

use mbank_core::error::CoreError;
use mbank_core::guard::GuardPolicy;
use mbank_core::history::History;
use mbank_core::journal::changes::{self, FileChange, Survey, SurveyOptions};
use mbank_core::journal::revert::{self, Revert};
use mbank_core::journal::reviewed::Reviewed;
use mbank_core::journal::watch::Spell;
use mbank_core::journal::{JournalScope, PassReport, Recorder, ScopeOptions, lock, scope};
use mbank_core::write::WriteContext;

use super::message::{ActError, JournalEvent, Message, Recording};
use super::protocol::ChangesRequest;
use super::workers::Outbox;

/// What the worker works with.
pub(crate) struct JournalSetup {
    pub history: History,
    /// Where the recorder lock and the review marks are kept.
    pub data_dir: PathBuf,
    /// The root, how it is scanned (its home folder: whose agents' stores count) and
    /// what the journal leaves out.
    pub scope: ScopeOptions,
    /// Record while the app runs (when the recorder lock can be taken).
    pub record: bool,
    /// The rules a revert or restore must pass (`[serve.guard]`).
    pub guard: GuardPolicy,
}

enum Input {
    Changes(ChangesRequest),
    FilesChanged(Vec<PathBuf>),
    Overflow,
    Stop,
}

pub(crate) struct JournalWorker {
    inputs: Sender<Input>,
    /// Only a test waits for the worker; the app lets it finish on its own.
    #[cfg(test)]
    thread: Option<thread::JoinHandle<()>>,
}

impl JournalWorker {
    pub fn spawn(setup: JournalSetup, outbox: Outbox) -> JournalWorker {
        let (inputs, inbox) = mpsc::channel();
        #[cfg_attr(not(test), allow(unused_variables))]
        let thread = thread::spawn(move || {
            let mut state = JournalState {
                setup,
                recorder: None,
                scope: None,
                survey: None,
                generation: 0,
                recording: Recording::Off,
                outside: Vec::new(),
                spell: Spell::default(),
                outbox,
            };
            state.run(&inbox);
        });
        JournalWorker {
            inputs,
            #[cfg(test)]
            thread: Some(thread),
        }
    }

    pub fn ask(&self, request: ChangesRequest) {
        let _ = self.inputs.send(Input::Changes(request));
    }

    /// The watcher saw these paths change.
    pub(crate) fn files_changed(&self, paths: Vec<PathBuf>) {
        let _ = self.inputs.send(Input::FilesChanged(paths));
    }

    /// The system dropped file events: anything may have changed.
    pub fn overflow(&self) {
        let _ = self.inputs.send(Input::Overflow);
    }

    /// Stops the worker and waits for it: the recorder lock is free once this returns.
    #[cfg(test)]
    pub fn stop(mut self) {
        let _ = self.inputs.send(Input::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for JournalWorker {
    /// The app is closing: the worker stops after what it is doing (not waited for, so
    /// quitting never waits on a catch-up; the lock goes with the process at the latest).
    fn drop(&mut self) {
        let _ = self.inputs.send(Input::Stop);
    }
}

struct JournalState {
    setup: JournalSetup,
    /// Recording, holding the recorder lock.
    recorder: Option<Recorder>,
    /// The projects and stores followed, listed when first needed.
    scope: Option<JournalScope>,
    /// The last survey sent, and its number.
    survey: Option<(u64, Arc<Survey>)>,
    generation: u64,
    recording: Recording,
    /// The outside folders last reported.
    outside: Vec<PathBuf>,
    /// What the batches since the last settle pass touched.
    spell: Spell,
    outbox: Outbox,
}

impl JournalState {
    fn run(&mut self, inbox: &Receiver<Input>) {
        if self.setup.record {
            self.try_recording();
        }
        loop {
            // A settle pass that is due goes before what is queued, so writes that never
            // pause cannot put it off.
            if self.spell.due_at().is_some_and(|due| due <= Instant::now()) {
                self.settle();
            }
            let first = match self.spell.due_at() {
                Some(due) => {
                    match inbox.recv_timeout(due.saturating_duration_since(Instant::now())) {
                        Ok(first) => first,
                        // Settled at the top of the loop.
                        Err(RecvTimeoutError::Timeout) => continue,
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                }
                None => match inbox.recv() {
                    Ok(first) => first,
                    Err(_) => return,
                },
            };
            // Requests queued behind a slow pass are taken together: one survey at the end.
            let mut batch = vec![first];
            while let Ok(more) = inbox.try_recv() {
                batch.push(more);
            }
            let mut survey: Option<bool> = None;
            for input in batch {
                match input {
                    Input::Stop => return,
                    Input::FilesChanged(paths) => self.on_changed(&paths),
                    Input::Overflow => self.on_overflow(),
                    Input::Changes(ChangesRequest::Survey { fresh }) => {
                        survey = Some(survey.unwrap_or(false) || fresh);
                    }
                    Input::Changes(ChangesRequest::Revert { change, what }) => {
                        self.revert(&change, what);
                        survey.get_or_insert(false);
                    }
                    Input::Changes(ChangesRequest::MarkReviewed { generation }) => {
                        self.mark_reviewed(generation);
                        survey.get_or_insert(false);
                    }
                }
            }
            if let Some(fresh) = survey {
                self.survey(fresh);
            }
        }
    }

    fn send(&self, event: JournalEvent) {
        let _ = self.outbox.send(Message::Journal(event));
    }

    fn set_recording(&mut self, recording: Recording) {
        if self.recording != recording {
            self.recording = recording;
            self.send(JournalEvent::Recording(recording));
        }
    }

    /// Lists the projects and stores again (and, while recording, names the outside
    /// folders to watch when they changed).
    fn rescope(&mut self) -> &JournalScope {
        let scope = scope::build(&self.setup.scope);
        if self.recorder.is_some() {
            let outside: Vec<PathBuf> = scope
                .folders
                .iter()
                .filter(|f| !scope.projects.iter().any(|p| f.starts_with(p)))
                .cloned()
                .collect();
            if outside != self.outside {
                self.outside = outside.clone();
                self.send(JournalEvent::Folders(outside));
            }
        }
        self.scope.insert(scope)
    }

    fn scope(&mut self) -> &JournalScope {
        if self.scope.is_none() {
            self.rescope();
        }
        self.scope.get_or_insert_with(JournalScope::default)
    }

    /// Takes the recorder lock when no other recorder holds it, and catches up.
    fn try_recording(&mut self) {
        match lock::try_take(&self.setup.data_dir, lock::Holder::App) {
            Ok(Some(lock)) => {
                self.recorder = Some(Recorder::new(
                    self.setup.history.clone(),
                    &self.setup.data_dir,
                    lock,
                ));
                self.set_recording(Recording::On);
                self.rescope();
                self.catch_up();
            }
            Ok(None) => {
                self.set_recording(Recording::ByAnother(lock::holder(&self.setup.data_dir)))
            }
            Err(e) => {
                self.send(JournalEvent::Problems(vec![format!(
                    "cannot take the recorder lock: {e}"
                )]));
                self.set_recording(Recording::Off);
            }
        }
    }

    fn catch_up(&mut self) {
        let (Some(recorder), Some(scope)) = (&mut self.recorder, &self.scope) else {
            return;
        };
        let report = recorder.catch_up(scope);
        self.report(report);
    }

    fn report(&self, report: PassReport) {
        if !report.problems.is_empty() {
            self.send(JournalEvent::Problems(report.problems));
        }
    }

    fn on_changed(&mut self, paths: &[PathBuf]) {
        if self.recorder.is_none() {
            // Another recorder may have stopped meanwhile; its catch-up covers `paths`.
            if self.setup.record && matches!(self.recording, Recording::ByAnother(_)) {
                self.try_recording();
            }
            // New files show in the next survey.
            if self.recorder.is_none()
                && let Some(scope) = &self.scope
                && paths.iter().any(|p| scope.file(p).is_none())
            {
                self.rescope();
            }
            return;
        }
        let unknown = self
            .scope
            .as_ref()
            .is_none_or(|scope| paths.iter().any(|p| scope.file(p).is_none()));
        if unknown {
            // A new file or folder: the projects and stores are listed again.
            self.rescope();
        }
        let (Some(recorder), Some(scope)) = (&mut self.recorder, &self.scope) else {
            return;
        };
        let report = recorder.record_paths(scope, paths);
        self.report(report);
        self.spell.add(paths, Instant::now());
    }

    /// Reads the folders the last spell of writes touched again and records what no
    /// event reported.
    fn settle(&mut self) {
        let spell = std::mem::take(&mut self.spell);
        if self.recorder.is_none() {
            return;
        }
        let mut paths = self
            .scope
            .as_ref()
            .map(|scope| spell.paths(scope))
            .unwrap_or_default();
        if self
            .scope
            .as_ref()
            .is_none_or(|scope| spell.finds_unknown(scope, &self.setup.scope))
        {
            paths.extend(spell.paths(self.rescope()));
        }
        let (Some(recorder), Some(scope)) = (&mut self.recorder, &self.scope) else {
            return;
        };
        let report = recorder.record_paths(scope, &paths);
        self.report(report);
    }

    fn on_overflow(&mut self) {
        self.spell = Spell::default();
        self.rescope();
        self.catch_up();
    }

    fn survey(&mut self, fresh: bool) {
        if fresh {
            self.rescope();
        }
        let home = self.setup.scope.scan.home.clone();
        let result = Reviewed::load(&self.setup.data_dir).and_then(|reviewed| {
            let history = self.setup.history.clone();
            let scope = self.scope();
            changes::survey(
                &history,
                scope,
                &reviewed,
                &SurveyOptions { since: None, home },
            )
        });
        self.generation += 1;
        let generation = self.generation;
        let result = result.map(Arc::new).map_err(|e| e.to_string());
        if let Ok(survey) = &result {
            self.survey = Some((generation, survey.clone()));
        }
        self.send(JournalEvent::Surveyed { generation, result });
    }

    fn revert(&mut self, change: &FileChange, what: Revert) {
        let writer = if change.current_text.is_none() {
            "restore"
        } else {
            "revert"
        };
        let history = self.setup.history.clone();
        let ctx = WriteContext::new(writer, history.clock())
            .with_history(Some(history))
            .with_policy(self.setup.guard);
        let scope = self.scope();
        let result = revert::revert(&ctx, scope, change, what).map_err(|e| match e {
            CoreError::Conflict { .. } => ActError::Conflict,
            other => ActError::Other(other.to_string()),
        });
        if result.is_ok()
            && let (Some(recorder), Some(scope)) = (&mut self.recorder, &self.scope)
        {
            // Recorded now, not only when the watcher reports the write (it may be off).
            let report = recorder.record_paths(scope, std::slice::from_ref(&change.path));
            self.report(report);
        }
        self.send(JournalEvent::Reverted {
            path: change.path.clone(),
            display: change.display.clone(),
            result,
        });
    }

    fn mark_reviewed(&mut self, generation: u64) {
        let result = match &self.survey {
            Some((shown, survey)) if *shown == generation => {
                let now = self.setup.history.clock().utc();
                Reviewed::load(&self.setup.data_dir)
                    .and_then(|mut reviewed| {
                        changes::mark_reviewed(survey, &mut reviewed, now);
                        reviewed.save(&self.setup.data_dir)
                    })
                    .map(|()| survey.states.len())
                    .map_err(|e| e.to_string())
            }
            _ => Err("more changed since the list was shown: look at it first".to_string()),
        };
        self.send(JournalEvent::MarkedReviewed(result));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mbank_core::clock::Clock;
    use mbank_core::history::Retention;
    use std::time::Duration;

    fn setup(dir: &std::path::Path) -> JournalSetup {
        let root = dir.join("root");
        std::fs::create_dir_all(root.join("app/memory-bank")).unwrap();
        std::fs::write(root.join("app/memory-bank/progress.md"), "# Progress\n").unwrap();
        let data_dir = dir.join("data");
        JournalSetup {
            history: History::new(
                &data_dir,
                Retention::default(),
                Clock::fixed_on(2026, 5, 1).unwrap(),
            ),
            data_dir,
            scope: ScopeOptions {
                root,
                scan: Default::default(),
                config: Default::default(),
            },
            record: true,
            guard: GuardPolicy::default(),
        }
    }

    fn next_recording(inbox: &Receiver<Message>) -> Recording {
        loop {
            match inbox.recv_timeout(Duration::from_secs(20)) {
                Ok(Message::Journal(JournalEvent::Recording(recording))) => return recording,
                Ok(_) => {}
                Err(e) => panic!("no word on recording: {e}"),
            }
        }
    }

    #[test]
    fn records_only_with_the_lock_takes_it_once_free_and_gives_it_up_when_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let setup = setup(dir.path());
        let data_dir = setup.data_dir.clone();
        std::fs::create_dir_all(&data_dir).unwrap();
        // An `mbank watch` holds the lock: the app does not record.
        let watch = lock::try_take(&data_dir, lock::Holder::Watch)
            .unwrap()
            .unwrap();
        let (outbox, inbox) = mpsc::channel();
        let worker = JournalWorker::spawn(setup, outbox);
        assert_eq!(
            next_recording(&inbox),
            Recording::ByAnother(Some(lock::Holder::Watch))
        );
        // The watch stops; the next change the watcher reports finds the lock free.
        drop(watch);
        // A child another test forks at that moment shares the lock's open file until it
        // runs its program: the worker then finds the lock still held, and the next
        // change it hears of finds it free.
        let taken = (0..100).any(|_| {
            worker.files_changed(vec![dir.path().join("root/app/memory-bank/progress.md")]);
            loop {
                match inbox.recv_timeout(Duration::from_millis(200)) {
                    Ok(Message::Journal(JournalEvent::Recording(Recording::On))) => break true,
                    Ok(Message::Journal(JournalEvent::Recording(_))) => break false,
                    Ok(_) => {}
                    Err(_) => break false,
                }
            }
        });
        assert!(taken, "the app never took the lock the watch let go of");
        assert!(
            lock::try_take(&data_dir, lock::Holder::Watch)
                .unwrap()
                .is_none(),
            "the app holds it"
        );
        // The app closes: the lock is free for a watch again.
        worker.stop();
        assert!(
            lock::try_take(&data_dir, lock::Holder::Watch)
                .unwrap()
                .is_some()
        );
    }

    #[test]
    fn a_change_no_event_reported_in_a_folder_the_watcher_reported_is_recorded_after_a_pause() {
        let dir = tempfile::tempdir().unwrap();
        let setup = setup(dir.path());
        let history = setup.history.clone();
        let (outbox, inbox) = mpsc::channel();
        let worker = JournalWorker::spawn(setup, outbox);
        assert_eq!(next_recording(&inbox), Recording::On);
        let bank = dir.path().join("root/app/memory-bank");
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        let newest_text = || {
            let newest = history.newest(&bank.join("progress.md")).ok()??;
            Some(
                history
                    .version(&bank.join("progress.md"), newest.version)
                    .ok()?
                    .1,
            )
        };
        // The catch-up on starting is done.
        while newest_text().is_none() {
            assert!(std::time::Instant::now() < deadline);
            std::thread::sleep(Duration::from_millis(5));
        }
        std::fs::write(bank.join("progress.md"), "# Progress\n- settled\n").unwrap();
        // Reported: only a file of the bank that is not memory.
        worker.files_changed(vec![bank.join("scratch.txt")]);
        while newest_text().as_deref() != Some("# Progress\n- settled\n") {
            assert!(std::time::Instant::now() < deadline, "{:?}", newest_text());
            std::thread::sleep(Duration::from_millis(5));
        }
        worker.stop();
    }
}
