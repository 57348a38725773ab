//! The bundled demo root: `mbank --demo` works on a fresh writable copy in a temporary
//! folder, with modification times aged per `assets/demo/ages.toml` so staleness and
//! activity look like a real history.
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use include_dir::{Dir, include_dir};
use serde::Deserialize;

use super::error::{CoreError, Result};

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

/// Copies the embedded demo banks into a new temporary folder.
pub fn create() -> Result<DemoRoot> {
    let dir = tempfile::Builder::new()
        .prefix("mbank-demo-")
        .tempdir()
        .map_err(|e| CoreError::io(std::env::temp_dir(), e))?;
    let ages = parse_ages()?;
    extract(&DEMO, dir.path(), &ages, SystemTime::now())?;
    Ok(DemoRoot { dir })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_copy_holds_every_project_with_aged_files() {
        let demo = create().unwrap();
        let projects = crate::core::discovery::scan(demo.path(), &Default::default());
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
}
