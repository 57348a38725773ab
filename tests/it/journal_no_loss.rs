//! No version is lost: a writer process makes 1,000 direct edits, renames and deletes
//! across 50 files of five projects while the real `mbank watch` runs, logging every
//! version it wrote with the time it stood from and until. The run is repeated with the
//! watch killed (SIGKILL) and started again mid-way. Every version that stood on disk for
//! 200 ms while a recorder ran is in the history byte for byte; the versions overwritten
//! while none ran are listed as missed (and are indeed absent); every deleted file is
//! restored with `mbank restore`.
//!
//! The writer is this test binary run again (its `writer` test, which the plan's
//! variable drives). It pauses every [`PAUSE_EVERY`] operations for [`PAUSE`], so the
//! newest version of every file stands that long, and writes everything else back to
//! back; it deletes only a file untouched since its last pause, so the text a deletion
//! takes stood through one.
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::common::{Sandbox, poll_until};
use mbank::core::history::{self, History, Retention};

const PLAN_VARIABLE: &str = "MBANK_TEST_NO_LOSS_PLAN";
const PROJECTS: usize = 5;
const FILES_PER_PROJECT: usize = 10;
const OPERATIONS: usize = 1_000;
const PAUSE_EVERY: usize = 25;
/// The writer's last operations: deletions of files it does not write again.
const FINAL_DELETES: usize = 3;
const PAUSE: Duration = Duration::from_millis(250);
/// What a version must have stood while a recorder ran to be kept.
const STOOD: Duration = Duration::from_millis(200);
const WAIT: Duration = Duration::from_secs(60);

/// What the writer is asked to do.
#[derive(Serialize, Deserialize)]
struct Plan {
    root: PathBuf,
    log: PathBuf,
    seed: u64,
    /// `init`: create the 50 files; `run`: the operations.
    stage: String,
}

/// One line of the writer's log: an operation, and when it began and ended (ns since
/// the Unix epoch).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Op {
    kind: String,
    path: PathBuf,
    /// A rename's new name.
    to: Option<PathBuf>,
    /// A write's text.
    text: Option<String>,
    begin: u128,
    end: u128,
}

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// A small deterministic generator (SplitMix64), so each run makes the same choices.
struct Random(u64);

impl Random {
    fn next(&mut self, below: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % below as u64) as usize
    }
}

struct Slot {
    path: PathBuf,
    exists: bool,
    touched: bool,
    renames: usize,
}

fn slot_path(root: &Path, slot: usize, renames: usize) -> PathBuf {
    let bank = root.join(format!("p{}/memory-bank", slot / FILES_PER_PROJECT));
    match renames {
        0 => bank.join(format!("note-{slot:02}.md")),
        n => bank.join(format!("note-{slot:02}-r{n}.md")),
    }
}

fn text_for(slot: usize, op: usize, lines: usize) -> String {
    let mut text = format!("# Note {slot}\n\nop {op}\n");
    for line in 0..lines {
        text.push_str(&format!("- entry {line} of op {op}\n"));
    }
    text
}

/// The writer process's work, driven by the plan in [`PLAN_VARIABLE`].
fn write_as_planned(plan: &Plan) {
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&plan.log)
        .unwrap();
    // One write a line: the test reads the log while it grows.
    let mut logged = |op: Op| {
        let line = format!("{}\n", serde_json::to_string(&op).unwrap());
        log.write_all(line.as_bytes()).unwrap();
    };
    let files = PROJECTS * FILES_PER_PROJECT;
    if plan.stage == "init" {
        for slot in 0..files {
            let path = slot_path(&plan.root, slot, 0);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let text = text_for(slot, 0, 3);
            let begin = now_ns();
            std::fs::write(&path, &text).unwrap();
            logged(Op {
                kind: "write".into(),
                path,
                to: None,
                text: Some(text),
                begin,
                end: now_ns(),
            });
        }
        return;
    }
    let mut slots: Vec<Slot> = (0..files)
        .map(|slot| Slot {
            path: slot_path(&plan.root, slot, 0),
            exists: true,
            touched: false,
            renames: 0,
        })
        .collect();
    let mut random = Random(plan.seed);
    let mut burst: Option<(usize, usize)> = None;
    for op in 1..=OPERATIONS {
        if op % PAUSE_EVERY == 0 {
            let begin = now_ns();
            std::thread::sleep(PAUSE);
            logged(Op {
                kind: "pause".into(),
                path: PathBuf::new(),
                to: None,
                text: None,
                begin,
                end: now_ns(),
            });
            for slot in &mut slots {
                slot.touched = false;
            }
        }
        // A burst rewrites one file a few times back to back: its versions between stand
        // for well under a millisecond.
        let in_burst = burst.is_some();
        let (index, choice) = match burst {
            Some((index, left)) => {
                burst = (left > 1).then_some((index, left - 1));
                (index, 99)
            }
            // The last operations delete files for good (untouched since the pause).
            None if op > OPERATIONS - FINAL_DELETES => {
                let untouched = (0..files)
                    .map(|i| (i + op * 17) % files)
                    .find(|&i| slots[i].exists && !slots[i].touched)
                    .unwrap();
                (untouched, 0)
            }
            None => (random.next(files), random.next(100)),
        };
        if !in_burst && choice >= 70 && op <= OPERATIONS - FINAL_DELETES - 4 {
            burst = Some((index, 1 + random.next(3)));
        }
        let slot = &mut slots[index];
        let begin = now_ns();
        let entry = if !slot.exists || choice >= 14 || (choice < 6 && slot.touched) {
            let text = text_for(index, op, random.next(12));
            std::fs::write(&slot.path, &text).unwrap();
            slot.exists = true;
            Op {
                kind: "write".into(),
                path: slot.path.clone(),
                to: None,
                text: Some(text),
                begin,
                end: now_ns(),
            }
        } else if choice < 6 {
            std::fs::remove_file(&slot.path).unwrap();
            slot.exists = false;
            Op {
                kind: "delete".into(),
                path: slot.path.clone(),
                to: None,
                text: None,
                begin,
                end: now_ns(),
            }
        } else {
            slot.renames += 1;
            let to = slot_path(&plan.root, index, slot.renames);
            std::fs::rename(&slot.path, &to).unwrap();
            let from = std::mem::replace(&mut slot.path, to.clone());
            Op {
                kind: "rename".into(),
                path: from,
                to: Some(to),
                text: None,
                begin,
                end: now_ns(),
            }
        };
        slot.touched = true;
        logged(entry);
    }
}

/// The writer process: this binary run again with the plan set (by
/// [`no_version_that_stood_while_recorded_is_lost`]); alone, it writes a short plan's
/// files and checks its own log.
#[test]
#[ignore = "the writer process of no_version_that_stood_while_recorded_is_lost, which runs it"]
fn writer() {
    if let Ok(plan) = std::env::var(PLAN_VARIABLE) {
        write_as_planned(&serde_json::from_str(&plan).unwrap());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan {
        root: dir.path().join("root"),
        log: dir.path().join("log"),
        seed: 1,
        stage: "init".into(),
    };
    write_as_planned(&plan);
    let ops = read_log(&plan.log);
    assert_eq!(ops.len(), PROJECTS * FILES_PER_PROJECT);
    for op in ops {
        assert_eq!(std::fs::read_to_string(&op.path).ok(), op.text);
    }
}

/// The complete lines of the writer's log (the last may be half written).
fn read_log(log: &Path) -> Vec<Op> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .split_inclusive('\n')
        .filter(|line| line.ends_with('\n'))
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Runs the writer process on `plan` (to its end, or in the background).
fn writer_process(plan: &Plan) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "journal_no_loss::writer",
            "--ignored",
            "--quiet",
            "--test-threads=1",
        ])
        .env(PLAN_VARIABLE, serde_json::to_string(plan).unwrap())
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

/// A running `mbank watch`, its log in a file; killed on drop.
struct Watch {
    child: Child,
    log: PathBuf,
}

impl Watch {
    /// Starts one and waits until it watches; the instant it said so.
    fn start(sandbox: &Sandbox, data: &Path, root: &Path, log: PathBuf) -> (Watch, u128) {
        let child = sandbox
            .mbank()
            .args(["watch", "--root", root.to_str().unwrap()])
            .env("MBANK_DATA_DIR", data)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let watch = Watch { child, log };
        poll_until(WAIT, "mbank watch watching", || {
            watch.log().contains("watching for changes").then_some(())
        });
        (watch, now_ns())
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGKILL; the instant it was sent.
    fn kill_hard(mut self) -> u128 {
        let at = now_ns();
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        at
    }

    fn terminate(mut self) -> String {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(sent.success());
        let status = poll_until(WAIT, "mbank watch exiting", || {
            self.child.try_wait().unwrap()
        });
        assert!(status.success(), "{}", self.log());
        self.log()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One version as the writer's log tells it: its text at `path`, standing from `from`
/// until `until` (ns).
#[derive(Debug)]
struct Stood {
    path: PathBuf,
    text: String,
    from: u128,
    until: u128,
}

/// Every version the log names, and what was on each path at the end (`None`: deleted).
fn versions(ops: &[Op], end: u128) -> (Vec<Stood>, BTreeMap<PathBuf, Option<String>>) {
    let mut standing: HashMap<PathBuf, (String, u128)> = HashMap::new();
    let mut stood = Vec::new();
    let mut last: BTreeMap<PathBuf, Option<String>> = BTreeMap::new();
    let mut close = |standing: &mut HashMap<PathBuf, (String, u128)>, path: &Path, at: u128| {
        standing.remove(path).map(|(text, from)| {
            stood.push(Stood {
                path: path.to_path_buf(),
                text: text.clone(),
                from,
                until: at,
            });
            text
        })
    };
    for op in ops {
        match op.kind.as_str() {
            "write" => {
                close(&mut standing, &op.path, op.begin);
                let text = op.text.clone().unwrap();
                standing.insert(op.path.clone(), (text.clone(), op.end));
                last.insert(op.path.clone(), Some(text));
            }
            "delete" => {
                close(&mut standing, &op.path, op.begin);
                last.insert(op.path.clone(), None);
            }
            "rename" => {
                let text = close(&mut standing, &op.path, op.begin).unwrap();
                let to = op.to.clone().unwrap();
                standing.insert(to.clone(), (text.clone(), op.end));
                last.insert(op.path.clone(), None);
                last.insert(to, Some(text));
            }
            _ => {}
        }
    }
    let open: Vec<PathBuf> = standing.keys().cloned().collect();
    for path in open {
        close(&mut standing, &path, end);
    }
    (stood, last)
}

/// How long `[from, until]` overlaps the intervals `up`.
fn overlap(from: u128, until: u128, up: &[(u128, u128)]) -> Duration {
    let ns: u128 = up
        .iter()
        .map(|&(a, b)| until.min(b).saturating_sub(from.max(a)))
        .sum();
    Duration::from_nanos(ns as u64)
}

/// The texts the history holds of `path` (deletions left out), and whether its newest
/// entry is a deletion.
fn recorded(history: &History, path: &Path) -> (BTreeSet<String>, bool) {
    let list = history.list(path).unwrap();
    let texts = list
        .iter()
        .filter(|v| !v.is_deletion())
        .map(|v| history.version(path, v.version).unwrap().1)
        .collect();
    (texts, list.last().is_some_and(|v| v.is_deletion()))
}

/// One run: the files made, the watch started, the writer's operations, the watch killed
/// and started again between two operations' counts when `kill_between` says so.
fn run(seed: u64, kill_between: Option<(usize, usize)>) {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let root = base.join("root");
    let data = base.join("data");
    let log = base.join("writer.log");
    let plan = |stage: &str| Plan {
        root: root.clone(),
        log: log.clone(),
        seed,
        stage: stage.into(),
    };
    assert!(writer_process(&plan("init")).wait().unwrap().success());
    let started = now_ns();
    let (mut watch, watching) = Watch::start(&sandbox, &data, &root, base.join("watch-1.log"));
    // The files stood since before the watch: its catch-up recorded them.
    let mut up = vec![(started.min(watching), u128::MAX)];
    let mut writer = writer_process(&plan("run"));
    let done = |count: usize| read_log(&log).len() >= PROJECTS * FILES_PER_PROJECT + count;
    let mut missed_window = None;
    if let Some((kill_at, restart_at)) = kill_between {
        poll_until(WAIT, "the writer reaching the kill", || {
            done(kill_at).then_some(())
        });
        let killed = watch.kill_hard();
        up[0].1 = killed;
        poll_until(WAIT, "the writer reaching the restart", || {
            done(restart_at).then_some(())
        });
        let restarting = now_ns();
        let (again, watching) = Watch::start(&sandbox, &data, &root, base.join("watch-2.log"));
        watch = again;
        up.push((watching, u128::MAX));
        missed_window = Some((killed, restarting));
    }
    let status = poll_until(WAIT, "the writer finishing", || writer.try_wait().unwrap());
    assert!(status.success());
    let ops = read_log(&log);
    let history = History::new(&data, Retention::default(), sandbox.clock());
    // The last version of every file is recorded once the watch has seen it (what it
    // does after that is the test's own polling, not a bound).
    let (_, last) = versions(&ops, now_ns());
    let unrecorded = || -> Vec<String> {
        last.iter()
            .filter(|(path, text)| {
                let newest = history.list(path).unwrap_or_default().pop();
                !match (text, newest) {
                    (Some(text), Some(v)) => v.hash == history::content_hash(text),
                    (None, Some(v)) => v.is_deletion(),
                    // Made and taken away while no recorder ran.
                    (None, None) => true,
                    (Some(_), None) => false,
                }
            })
            .map(|(path, text)| format!("{} ({})", path.display(), text.is_some()))
            .collect()
    };
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let left = unrecorded();
        if left.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the last versions of these files are not recorded:\n{}\nwatch log:\n{}\n\
             (again, after the log) not recorded:\n{}",
            left.join("\n"),
            watch.log(),
            left.join("\n")
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let watch_log = watch.terminate();
    let end = now_ns();
    if let Some(last_up) = up.last_mut() {
        last_up.1 = end;
    }
    let (stood, last) = versions(&ops, end);

    let mut texts: HashMap<PathBuf, (BTreeSet<String>, bool)> = HashMap::new();
    let mut recorded_of = |path: &Path| {
        texts
            .entry(path.to_path_buf())
            .or_insert_with(|| recorded(&history, path))
            .clone()
    };
    let mut lost = Vec::new();
    let mut kept = BTreeSet::new();
    let mut missed = Vec::new();
    let in_missed_window = |version: &Stood| {
        missed_window
            .is_some_and(|(killed, restarting)| version.from > killed && version.until < restarting)
    };
    for version in &stood {
        let (texts, _) = recorded_of(&version.path);
        let held = overlap(version.from, version.until, &up);
        if held >= STOOD {
            kept.insert((version.path.clone(), version.text.clone()));
            if !texts.contains(&version.text) {
                lost.push(format!(
                    "{} ({} ms while recorded)",
                    version.path.display(),
                    held.as_millis()
                ));
            }
        }
        if in_missed_window(version) {
            assert!(
                !texts.contains(&version.text),
                "a version overwritten while no recorder ran is in the history: the writer's \
                 log and the journal disagree ({})",
                version.path.display()
            );
            missed.push(format!(
                "{} ({})",
                version.path.display(),
                version.text.lines().nth(2).unwrap_or_default()
            ));
        }
    }
    let kept_texts = kept;
    let kept = kept_texts.len();
    let mut restored = 0;
    assert!(
        lost.is_empty(),
        "{} of {kept} versions that stood {STOOD:?} while a recorder ran are not in the \
         history:\n{}\nwatch log:\n{watch_log}",
        lost.len(),
        lost.join("\n")
    );
    assert!(
        kept >= OPERATIONS / PAUSE_EVERY,
        "only {kept} versions stood"
    );
    if missed_window.is_some() {
        assert!(!missed.is_empty(), "the watch was down for no version");
        eprintln!(
            "{} versions overwritten while no recorder ran (missed), the first:\n{}",
            missed.len(),
            missed[..missed.len().min(10)].join("\n")
        );
    }

    // Every file deleted (and not written again) comes back with `mbank restore`: its
    // last text, which stood through a pause.
    let deleted: Vec<&PathBuf> = last
        .iter()
        .filter(|(path, text)| {
            text.is_none()
                && ops
                    .iter()
                    .rev()
                    .find(|op| &op.path == *path)
                    .is_some_and(|op| op.kind == "delete")
        })
        .map(|(path, _)| path)
        .collect();
    assert!(!deleted.is_empty(), "the writer deleted nothing for good");
    for path in deleted {
        let list = history.list(path).unwrap();
        if list.is_empty() {
            // Made and deleted while no recorder ran: missed, as listed above.
            assert!(
                stood
                    .iter()
                    .filter(|v| &v.path == path)
                    .all(in_missed_window),
                "{} was never recorded",
                path.display()
            );
            continue;
        }
        assert!(
            list.last().is_some_and(|v| v.is_deletion()),
            "{} is not recorded deleted",
            path.display()
        );
        let newest = list.iter().rev().find(|v| !v.is_deletion()).unwrap();
        let newest_text = history.version(path, newest.version).unwrap().1;
        let last_text = stood
            .iter()
            .filter(|v| &v.path == path)
            .max_by_key(|v| v.from)
            .map(|v| v.text.clone())
            .unwrap();
        let wrote = stood
            .iter()
            .any(|v| &v.path == path && v.text == newest_text);
        assert!(
            wrote,
            "{}: the history holds a text never written",
            path.display()
        );
        if kept_texts.contains(&(path.clone(), last_text.clone())) {
            assert_eq!(newest_text, last_text, "{}", path.display());
        }
        let run = sandbox.run_env(
            &[
                "restore",
                path.to_str().unwrap(),
                &newest.version.to_string(),
                "--root",
                root.to_str().unwrap(),
            ],
            "MBANK_DATA_DIR",
            &data,
        );
        run.expect_code(0);
        assert_eq!(
            std::fs::read_to_string(path).unwrap(),
            newest_text,
            "{}",
            path.display()
        );
        restored += 1;
    }
    // Changes no file event reported, recorded by a settle pass: not a loss, but worth
    // seeing when it happens.
    let settled: Vec<&str> = watch_log
        .lines()
        .filter(|line| line.contains("settled:"))
        .collect();
    eprintln!(
        "{} versions written, {kept} stood {STOOD:?} while recorded and are kept, {} missed, \
         {restored} deleted files restored; settle passes: {settled:?}",
        stood.len(),
        missed.len()
    );
}

#[test]
fn no_version_that_stood_while_recorded_is_lost() {
    run(33, None);
    run(34, Some((350, 650)));
}
