//! For tests of work that must stay linear on hostile input: the work runs on a thread of
//! its own and the test fails if it has not finished within a generous limit. A guard
//! against a hang (a quadratic scan of a huge input takes minutes), not a speed figure:
//! speed is measured by the benchmarks, on a quiet machine.
use std::sync::mpsc;
use std::time::Duration;

/// How long guarded work may take before it is called a hang.
pub(crate) const HANG_LIMIT: Duration = Duration::from_secs(30);

/// Runs `work` and returns what it returns; panics, naming `what`, if it is still running
/// after [`HANG_LIMIT`].
pub fn finishes<T: Send + 'static>(what: &str, work: impl FnOnce() -> T + Send + 'static) -> T {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(work());
    });
    match receiver.recv_timeout(HANG_LIMIT) {
        Ok(value) => value,
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what} did not finish within {HANG_LIMIT:?}: a hang")
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what} panicked"),
    }
}
