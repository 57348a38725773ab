//! The bundled demo root: `mbank --demo` works on a fresh writable copy in a temporary
//! folder that looks the same on every day it is made. Its banks were written as of one day
//! (`written_on` in `assets/demo/ages.toml`); a copy moves every date written in them, and
//! in their file names, by the days since then, and sets each file's modification time to
//! its age in that table, so staleness, activity and the timeline tell the story they were
//! built to tell whatever the date.
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::{Duration, SystemTime};

use chrono::NaiveDate;
use include_dir::{Dir, include_dir};
use regex::Regex;
use serde::Deserialize;

use crate::clock::Clock;
use crate::error::{CoreError, Result};

static DEMO: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../../assets/demo");

const AGES_FILE: &str = "ages.toml";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Ages {
    /// The day the demo's banks were written as of.
    written_on: NaiveDate,
    #[serde(default)]
    default_days: u64,
    #[serde(default)]
    files: BTreeMap<String, u64>,
}

/// A demo root on disk; the folder is removed when this is dropped unless kept.
#[derive(Debug)]
pub struct DemoRoot {
    dir: tempfile::TempDir,
}

impl DemoRoot {
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Leaves the folder on disk (for a user who wants to keep playing with it).
    pub fn keep(self) -> PathBuf {
        self.dir.keep()
    }
}

fn parse_ages() -> Result<Ages> {
    let parse_error = |message: String| CoreError::Parse {
        path: PathBuf::from("assets/demo/ages.toml"),
        message,
    };
    let text = DEMO
        .get_file(AGES_FILE)
        .and_then(|file| file.contents_utf8())
        .ok_or_else(|| parse_error("missing from the build".to_string()))?;
    toml::from_str(text).map_err(|e| parse_error(e.to_string()))
}

/// A date written in a demo file: a day (`2026-11-20`, also the day of a timestamp) or a
/// month (`2026-11`), standing apart from other digits.
static WRITTEN_DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(^|[^0-9])(20[0-9]{2})-([01][0-9])(?:-([0-3][0-9]))?([^0-9]|$)")
        .expect("static regex")
});

/// `text` with every written day moved by `days` (and every month by the month its 15th
/// falls in once moved): what a demo copy does to its files, and what a test undoes to
/// compare a later copy's screens with the demo as written.
pub fn shift_dates(text: &str, days: i64) -> String {
    if days == 0 {
        return text.to_string();
    }
    let moved = |year: &str, month: &str, day: Option<&str>| -> Option<String> {
        let year = year.parse().ok()?;
        let month = month.parse().ok()?;
        let date = NaiveDate::from_ymd_opt(year, month, day.map_or(Some(15), |d| d.parse().ok())?)?;
        let date = date.checked_add_signed(chrono::TimeDelta::try_days(days)?)?;
        Some(match day {
            Some(_) => date.format("%Y-%m-%d").to_string(),
            None => date.format("%Y-%m").to_string(),
        })
    };
    // One match at a time, the next searched after the date just moved: two dates may share
    // the character between them ("2026-11-20/2026-11-21").
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(found) = WRITTEN_DATE.captures(rest) {
        let (Some(before), Some(year), Some(month)) = (found.get(1), found.get(2), found.get(3))
        else {
            break;
        };
        let day = found.get(4);
        let date_end = day.unwrap_or(month).end();
        out.push_str(&rest[..before.end()]);
        match moved(year.as_str(), month.as_str(), day.map(|d| d.as_str())) {
            Some(date) => out.push_str(&date),
            None => out.push_str(&rest[year.start()..date_end]),
        }
        rest = &rest[date_end..];
    }
    out.push_str(rest);
    out
}

/// How a copy made at `now` moves the demo's dates: whole days since it was written.
fn days_since_written(ages: &Ages, clock: &Clock) -> i64 {
    (clock.today() - ages.written_on).num_days()
}

/// How many days a copy made at `clock`'s now moves the demo's dates.
pub fn days_moved(clock: &Clock) -> Result<i64> {
    Ok(days_since_written(&parse_ages()?, clock))
}

/// Writes the files under `dir` into `target`, dates moved by `shift` days, each aged from
/// the one instant `now` (a clock read once per copy: files of one age share one time).
fn extract(dir: &Dir<'_>, target: &Path, ages: &Ages, shift: i64, now: SystemTime) -> Result<()> {
    for file in dir.files() {
        let rel = file.path();
        if rel == Path::new(AGES_FILE) {
            continue;
        }
        let key = rel.to_string_lossy().replace('\\', "/");
        let path = target.join(shift_dates(&key, shift));
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| CoreError::io(parent, e))?;
        }
        match file.contents_utf8() {
            Some(text) => fs::write(&path, shift_dates(text, shift)),
            None => fs::write(&path, file.contents()),
        }
        .map_err(|e| CoreError::io(&path, e))?;
        let days = ages.files.get(&key).copied().unwrap_or(ages.default_days);
        let when = now
            .checked_sub(Duration::from_secs(days * 86_400))
            .unwrap_or(now);
        let handle = fs::File::options()
            .write(true)
            .open(&path)
            .map_err(|e| CoreError::io(&path, e))?;
        handle
            .set_modified(when)
            .map_err(|e| CoreError::io(&path, e))?;
    }
    for sub in dir.dirs() {
        extract(sub, target, ages, shift, now)?;
    }
    Ok(())
}

/// How every demo copy's folder name starts.
const COPY_PREFIX: &str = "mbank-demo-";
/// The file in a demo copy naming the process that made it, so a copy left behind by a
/// killed process can be told from one still in use.
const OWNER_FILE: &str = ".mbank-demo-owner";

/// Copies the embedded demo banks into a new temporary folder (removed when the
/// [`DemoRoot`] is dropped), after removing the copies of mbank processes that ended
/// without removing theirs. Dated as of `clock`.
pub fn create(clock: &Clock) -> Result<DemoRoot> {
    create_in(&std::env::temp_dir(), clock)
}

/// [`create`] in `temp` instead of the system's temporary folder.
pub(crate) fn create_in(temp: &Path, clock: &Clock) -> Result<DemoRoot> {
    remove_abandoned_copies(temp);
    let dir = tempfile::Builder::new()
        .prefix(COPY_PREFIX)
        .tempdir_in(temp)
        .map_err(|e| CoreError::io(temp, e))?;
    let owner = dir.path().join(OWNER_FILE);
    fs::write(&owner, std::process::id().to_string()).map_err(|e| CoreError::io(&owner, e))?;
    copy_to(dir.path(), clock)?;
    Ok(DemoRoot { dir })
}

/// Removes the demo copies in `temp` whose owner file names a process that no longer
/// runs (killed, or crashed before it could clean up). A copy without an owner file, or
/// whose owner may still run (alive, or another user's), is left alone: it may be in use.
/// Returns how many were removed.
pub(crate) fn remove_abandoned_copies(temp: &Path) -> usize {
    let Ok(entries) = fs::read_dir(temp) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let is_copy = entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.starts_with(COPY_PREFIX));
        // `file_type` does not follow a link: a link named like a copy is never entered.
        if !is_copy || !entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            continue;
        }
        let copy = entry.path();
        if owner_has_ended(&copy) && fs::remove_dir_all(&copy).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Whether `copy`'s owner file names a process that has ended.
fn owner_has_ended(copy: &Path) -> bool {
    let owner = copy.join(OWNER_FILE);
    let is_file = fs::symlink_metadata(&owner).is_ok_and(|meta| meta.is_file());
    let Some(pid) = is_file
        .then(|| fs::read_to_string(&owner).ok())
        .flatten()
        .and_then(|text| text.trim().parse::<i32>().ok())
    else {
        return false;
    };
    process_has_ended(pid)
}

#[cfg(unix)]
fn process_has_ended(pid: i32) -> bool {
    if pid == std::process::id() as i32 {
        return false;
    }
    let Some(pid) = rustix::process::Pid::from_raw(pid) else {
        return false;
    };
    // Signal 0 only asks whether the process exists; "not permitted" means it does.
    matches!(
        rustix::process::test_kill_process(pid),
        Err(rustix::io::Errno::SRCH)
    )
}

#[cfg(not(unix))]
fn process_has_ended(_pid: i32) -> bool {
    false
}

/// Copies the embedded demo banks into `target` (created if needed), dated and aged as
/// of `clock`.
pub fn copy_to(target: &Path, clock: &Clock) -> Result<()> {
    fs::create_dir_all(target).map_err(|e| CoreError::io(target, e))?;
    let ages = parse_ages()?;
    let shift = days_since_written(&ages, clock);
    extract(&DEMO, target, &ages, shift, clock.now())
}

/// The day the demo's banks were written as of: a copy made on that day holds them as
/// they are in `assets/demo`.
pub(crate) fn written_on() -> Result<NaiveDate> {
    Ok(parse_ages()?.written_on)
}

/// A clock fixed at noon UTC of the day the demo was written as of: what tests judge the
/// demo by when they compare it with the files in `assets/demo`.
pub fn clock_of_writing() -> Result<Clock> {
    let day = written_on()?;
    day.and_hms_opt(12, 0, 0)
        .map(|noon| Clock::fixed(noon.and_utc().into()))
        .ok_or_else(|| CoreError::Parse {
            path: PathBuf::from("assets/demo/ages.toml"),
            message: format!("{day} has no noon"),
        })
}

/// A background "agent" writing plausible updates into a demo root every few seconds,
/// the way real agents do: plain appends, whole-file overwrites, and temp-file-plus-rename
/// writes. It stops when dropped.
pub struct AgentSimulation {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Drop for AgentSimulation {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Starts the simulated agent on `root` (a demo copy), one write every four seconds, each
/// stamped by `clock`.
pub fn simulate_agent(root: PathBuf, clock: Clock) -> AgentSimulation {
    simulate_agent_every(root, Duration::from_secs(4), clock)
}

pub(crate) fn simulate_agent_every(
    root: PathBuf,
    period: Duration,
    clock: Clock,
) -> AgentSimulation {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = stop.clone();
    std::thread::spawn(move || {
        let mut step = 0u64;
        while !flag.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(period);
            if flag.load(std::sync::atomic::Ordering::Relaxed) {
                break;
            }
            // A failed write (the user deleted the folder) just skips a beat.
            let _ = agent_step(&root, step, &clock);
            step += 1;
        }
    });
    AgentSimulation { stop }
}

const AGENT_TASKS: [&str; 6] = [
    "wired the Pyrenees calibration into the nightly job",
    "fixed the Sunday DWD batch delay with a 2-hour grace window",
    "added a regression test for sunrise above 3,000 m",
    "refreshed the adapter fixtures from live recordings",
    "profiled the blend step: 38% of request time is JSON encoding",
    "documented the confidence scale in the public API guide",
];

/// One simulated agent write; returns the file it touched. Public for tests.
pub fn agent_step(root: &Path, step: u64, clock: &Clock) -> Result<PathBuf> {
    let now = clock.local();
    let stamp = now.format("%Y-%m-%d %H:%M:%S");
    let task = AGENT_TASKS[(step as usize / 4) % AGENT_TASKS.len()];
    match step % 4 {
        // Memory Bank MCP style: read, append, overwrite in place (no rename).
        0 => {
            let path = root.join("weather-api/memory-bank/progress.md");
            let mut text = fs::read_to_string(&path).map_err(|e| CoreError::io(&path, e))?;
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!("- [x] {task} — {}\n", now.format("%Y-%m-%d")));
            fs::write(&path, text).map_err(|e| CoreError::io(&path, e))?;
            Ok(path)
        }
        // Cline style: rewrite the active context whole, through a temp file and rename.
        1 => {
            let path = root.join("weather-api/memory-bank/activeContext.md");
            let text = format!(
                "# Active Context\n\nLast updated: {}\n\n## Current focus\n- {task}\n\n## Next steps\n- Review the calibration report with the pilot customers\n- Decide whether to keep the DWD grace window\n",
                now.format("%Y-%m-%d")
            );
            let temp = path.with_extension("md.agent-tmp");
            fs::write(&temp, text).map_err(|e| CoreError::io(&temp, e))?;
            fs::rename(&temp, &path).map_err(|e| CoreError::io(&path, e))?;
            Ok(path)
        }
        // Roo style: a timestamped line appended to the decision log.
        2 => {
            let path = root.join("billing-roo/memory-bank/decision-log.md");
            let mut text = fs::read_to_string(&path).map_err(|e| CoreError::io(&path, e))?;
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!(
                "[{stamp}] - Keep invoice rounding at the line level ({task})\n"
            ));
            fs::write(&path, text).map_err(|e| CoreError::io(&path, e))?;
            Ok(path)
        }
        // ConKeeper: a session note.
        _ => {
            let dir = root.join("mobile-app/.claude/memory/sessions");
            fs::create_dir_all(&dir).map_err(|e| CoreError::io(&dir, e))?;
            let path = dir.join(format!("{}-agent-session.md", now.format("%Y-%m-%d")));
            let mut text = fs::read_to_string(&path)
                .unwrap_or_else(|_| format!("# Session {}\n\n", now.format("%Y-%m-%d")));
            text.push_str(&format!("- {stamp}: {task}\n"));
            fs::write(&path, text).map_err(|e| CoreError::io(&path, e))?;
            Ok(path)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Noon UTC of a day, as a fixed clock.
    fn noon_on(year: i32, month: u32, day: u32) -> Clock {
        let at = NaiveDate::from_ymd_opt(year, month, day)
            .and_then(|date| date.and_hms_opt(12, 0, 0))
            .unwrap()
            .and_utc();
        Clock::fixed(at.into())
    }

    #[test]
    fn demo_copy_holds_every_project_with_files_aged_by_the_clock() {
        for clock in [noon_on(2026, 11, 28), noon_on(2030, 1, 1)] {
            let demo = create(&clock).unwrap();
            let projects = crate::scan::discovery::scan(demo.path(), &Default::default());
            assert!(projects.len() >= 6, "{projects:?}");
            assert!(!demo.path().join(AGES_FILE).exists());
            let ages = parse_ages().unwrap();
            let shift = days_since_written(&ages, &clock);
            for (rel, days) in &ages.files {
                let path = demo.path().join(shift_dates(rel, shift));
                let modified = fs::metadata(&path).unwrap().modified().unwrap();
                let age = clock.now().duration_since(modified).unwrap().as_secs();
                assert_eq!(age, days * 86_400, "{rel}");
            }
        }
    }

    #[test]
    fn a_copy_made_later_moves_every_written_date_by_the_days_since() {
        let written = written_on().unwrap();
        let same_day = create(&clock_of_writing().unwrap()).unwrap();
        let progress = "billing-roo/memory-bank/progress.md";
        let as_written = DEMO.get_file(progress).unwrap().contents_utf8().unwrap();
        assert_eq!(
            fs::read_to_string(same_day.path().join(progress)).unwrap(),
            as_written
        );

        let later = noon_on(2030, 1, 1);
        let shift = (NaiveDate::from_ymd_opt(2030, 1, 1).unwrap() - written).num_days();
        let moved = create(&later).unwrap();
        let text = fs::read_to_string(moved.path().join(progress)).unwrap();
        assert_eq!(text, shift_dates(as_written, shift));
        assert!(!text.contains("2026-"), "{text}");
        let sessions = moved.path().join("mobile-app/.claude/memory/sessions");
        let names: Vec<String> = fs::read_dir(&sessions)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names.iter().all(|name| !name.starts_with("2026-")),
            "{names:?}"
        );
        assert_eq!(names.len(), 2);
    }

    #[test]
    fn shifting_moves_days_months_and_timestamps_and_leaves_other_numbers() {
        let text = "[2026-11-20 16:42:10] 2026-11-20/2026-11-21 (2026-11) ts>2026-11-01T00:00Z \
            v12026-11-20 2026-13-45 1,2026 build 20261120";
        assert_eq!(
            shift_dates(text, 12),
            "[2026-12-02 16:42:10] 2026-12-02/2026-12-03 (2026-11) ts>2026-11-13T00:00Z \
            v12026-11-20 2026-13-45 1,2026 build 20261120"
        );
        assert_eq!(shift_dates("due 2026-12-31", 1), "due 2027-01-01");
        assert_eq!(shift_dates("in 2026-11", 20), "in 2026-12");
        assert_eq!(shift_dates(text, 0), text);
    }

    /// The pid of a process that has run and ended.
    fn ended_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    fn copy_owned_by(temp: &Path, name: &str, pid: Option<u32>) -> PathBuf {
        let copy = temp.join(name);
        fs::create_dir_all(copy.join("project/memory-bank")).unwrap();
        fs::write(copy.join("project/memory-bank/progress.md"), "# Progress\n").unwrap();
        if let Some(pid) = pid {
            fs::write(copy.join(OWNER_FILE), pid.to_string()).unwrap();
        }
        copy
    }

    #[cfg(unix)]
    #[test]
    fn a_new_demo_removes_the_copies_of_ended_processes_and_keeps_every_other() {
        let temp = tempfile::tempdir().unwrap();
        let abandoned = copy_owned_by(temp.path(), "mbank-demo-killed", Some(ended_pid()));
        let in_use = copy_owned_by(temp.path(), "mbank-demo-live", Some(std::process::id()));
        let unmarked = copy_owned_by(temp.path(), "mbank-demo-old", None);
        let not_a_copy = copy_owned_by(temp.path(), "my-notes", Some(ended_pid()));
        // A link named like a copy, to a folder whose owner ended: never entered.
        let target = copy_owned_by(temp.path(), "elsewhere", Some(ended_pid()));
        std::os::unix::fs::symlink(&target, temp.path().join("mbank-demo-link")).unwrap();

        let demo = create_in(temp.path(), &Clock::system()).unwrap();

        assert!(!abandoned.exists());
        for kept in [&in_use, &unmarked, &not_a_copy, &target] {
            assert!(
                kept.join("project/memory-bank/progress.md").exists(),
                "{kept:?}"
            );
        }
        assert!(temp.path().join("mbank-demo-link").exists());
        let owner = fs::read_to_string(demo.path().join(OWNER_FILE)).unwrap();
        assert_eq!(owner, std::process::id().to_string());
        let path = demo.path().to_path_buf();
        drop(demo);
        assert!(!path.exists(), "a dropped demo root removes its copy");
    }

    #[test]
    fn agent_steps_write_every_kind_of_update() {
        let clock = noon_on(2027, 6, 1);
        let demo = create(&clock).unwrap();
        let mut touched = Vec::new();
        for step in 0..4 {
            let before = agent_step(demo.path(), step, &clock).unwrap();
            touched.push(before);
        }
        let progress = fs::read_to_string(&touched[0]).unwrap();
        assert!(progress.contains(AGENT_TASKS[0]), "{progress}");
        assert!(
            progress.contains("2027-06-01"),
            "stamped by the clock: {progress}"
        );
        let active = fs::read_to_string(&touched[1]).unwrap();
        assert!(active.starts_with("# Active Context"));
        assert!(!touched[1].with_extension("md.agent-tmp").exists());
        let log = fs::read_to_string(&touched[2]).unwrap();
        assert!(
            log.lines()
                .last()
                .unwrap()
                .contains("Keep invoice rounding")
        );
        assert!(touched[3].starts_with(demo.path().join("mobile-app/.claude/memory/sessions")));
        // A missing folder is an error, never a panic.
        let empty = tempfile::tempdir().unwrap();
        assert!(agent_step(empty.path(), 0, &clock).is_err());
    }
}
