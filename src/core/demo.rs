//! The bundled demo root: `mbank --demo` works on a fresh writable copy in a temporary
//! folder, with modification times aged per `assets/demo/ages.toml` so staleness and
//! activity look like a real history.
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use include_dir::{Dir, include_dir};
use serde::Deserialize;

use crate::core::error::{CoreError, Result};

static DEMO: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/assets/demo");

const AGES_FILE: &str = "ages.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Ages {
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
    let Some(file) = DEMO.get_file(AGES_FILE) else {
        return Ok(Ages::default());
    };
    let text = file.contents_utf8().unwrap_or_default();
    toml::from_str(text).map_err(|e| CoreError::Parse {
        path: PathBuf::from("assets/demo/ages.toml"),
        message: e.to_string(),
    })
}

fn extract(dir: &Dir<'_>, target: &Path, ages: &Ages, now: SystemTime) -> Result<()> {
    for file in dir.files() {
        let rel = file.path();
        if rel == Path::new(AGES_FILE) {
            continue;
        }
        let path = target.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| CoreError::io(parent, e))?;
        }
        fs::write(&path, file.contents()).map_err(|e| CoreError::io(&path, e))?;
        let key = rel.to_string_lossy().replace('\\', "/");
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
        extract(sub, target, ages, now)?;
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
/// without removing theirs.
pub fn create() -> Result<DemoRoot> {
    create_in(&std::env::temp_dir())
}

/// [`create`] in `temp` instead of the system's temporary folder.
pub fn create_in(temp: &Path) -> Result<DemoRoot> {
    remove_abandoned_copies(temp);
    let dir = tempfile::Builder::new()
        .prefix(COPY_PREFIX)
        .tempdir_in(temp)
        .map_err(|e| CoreError::io(temp, e))?;
    let owner = dir.path().join(OWNER_FILE);
    fs::write(&owner, std::process::id().to_string()).map_err(|e| CoreError::io(&owner, e))?;
    copy_to(dir.path())?;
    Ok(DemoRoot { dir })
}

/// Removes the demo copies in `temp` whose owner file names a process that no longer
/// runs (killed, or crashed before it could clean up). A copy without an owner file, or
/// whose owner may still run (alive, or another user's), is left alone: it may be in use.
/// Returns how many were removed.
pub fn remove_abandoned_copies(temp: &Path) -> usize {
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

/// Copies the embedded demo banks into `target` (created if needed), with aged times.
pub fn copy_to(target: &Path) -> Result<()> {
    fs::create_dir_all(target).map_err(|e| CoreError::io(target, e))?;
    let ages = parse_ages()?;
    extract(&DEMO, target, &ages, SystemTime::now())
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

/// Starts the simulated agent on `root` (a demo copy), one write every four seconds.
pub fn simulate_agent(root: PathBuf) -> AgentSimulation {
    simulate_agent_every(root, Duration::from_secs(4))
}

pub fn simulate_agent_every(root: PathBuf, period: Duration) -> AgentSimulation {
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
            let _ = agent_step(&root, step);
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
pub fn agent_step(root: &Path, step: u64) -> Result<PathBuf> {
    let now = chrono::Local::now();
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

    #[test]
    fn demo_copy_holds_every_project_with_aged_files() {
        let demo = create().unwrap();
        let projects = crate::core::scan::discovery::scan(demo.path(), &Default::default());
        assert!(projects.len() >= 6, "{projects:?}");
        assert!(!demo.path().join(AGES_FILE).exists());
        let ages = parse_ages().unwrap();
        for (rel, days) in ages.files.iter().take(5) {
            let path = demo.path().join(rel);
            let modified = fs::metadata(&path).unwrap().modified().unwrap();
            let age = SystemTime::now()
                .duration_since(modified)
                .unwrap()
                .as_secs()
                / 86_400;
            assert!(age == *days || age + 1 == *days, "{rel}: {age} vs {days}");
        }
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

        let demo = create_in(temp.path()).unwrap();

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
        let demo = create().unwrap();
        let mut touched = Vec::new();
        for step in 0..4 {
            let before = agent_step(demo.path(), step).unwrap();
            touched.push(before);
        }
        let progress = fs::read_to_string(&touched[0]).unwrap();
        assert!(progress.contains(AGENT_TASKS[0]), "{progress}");
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
        assert!(agent_step(empty.path(), 0).is_err());
    }
}
