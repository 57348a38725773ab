//! What git said of a repository before anything else (its top folder, and the drivers
//! its configuration defines, each overridden), remembered between runs while nothing
//! that answer depends on has changed: the repository's `.git` folder (which one it is
//! and who owns it), the folder holding it, every configuration file git reads there, and
//! the environment that tells git where to look. A check after every commit started two
//! processes for an answer that had not changed. Kept in the cache store, one file per
//! repository; deleting it is always safe.
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::ignores::{config_files, followable};
use super::types::Overrides;
use crate::cache_store::{self, Loaded, Raw, Section};
use crate::io::bytes::{os_bytes, os_str};
use crate::io::hash_index::{StableHasher, stable_hash};
use crate::scan::listings::Stamp;

/// Variables that move git to another repository, work tree or configuration: with any
/// of them set, git is asked every time.
const REDIRECTING: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
];
/// Variables whose values choose the configuration files and the git that answers: part
/// of what an answer is remembered under.
const CHOOSING: &[&str] = &[
    "HOME",
    "XDG_CONFIG_HOME",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "PATH",
];

/// One repository's answer as the cache file keeps it.
#[derive(Serialize, Deserialize)]
struct Record<'a> {
    /// The digest of everything the answer depends on.
    key: u64,
    #[serde(borrow)]
    root: Raw<'a>,
    #[serde(borrow)]
    overrides: Vec<(Raw<'a>, Raw<'a>)>,
}

/// Where git's answers about repositories are remembered (or nowhere).
#[derive(Debug, Default)]
pub(super) struct FinderMemo {
    folder: Option<PathBuf>,
    /// When the run began, in nanoseconds since the epoch: a file changed within the
    /// racy window before it vouches for nothing.
    started: i128,
    /// The variables of [`REDIRECTING`] and [`CHOOSING`] that are set, as the run began.
    env: Vec<(&'static str, OsString)>,
}

impl FinderMemo {
    pub(super) fn in_folder(folder: &Path, started: i128) -> FinderMemo {
        let env = REDIRECTING
            .iter()
            .chain(CHOOSING)
            .filter_map(|name| Some((*name, std::env::var_os(name)?)))
            .collect();
        FinderMemo::with_env(folder, started, env)
    }

    /// Remembering in `folder`, git's environment being `env`.
    fn with_env(folder: &Path, started: i128, env: Vec<(&'static str, OsString)>) -> FinderMemo {
        FinderMemo {
            folder: Some(folder.to_path_buf()),
            started,
            env,
        }
    }

    /// The digest of what git's answer for the repository whose `.git` entry is in
    /// `marker` depends on; `None` when it cannot be vouched for (a `.git` that is no
    /// folder, a configuration that includes other files or changed just now, git sent
    /// elsewhere by the environment), and git is asked.
    pub(super) fn key(&self, marker: &Path) -> Option<u64> {
        self.folder.as_ref()?;
        let env = |name: &str| {
            self.env
                .iter()
                .find(|(set, value)| *set == name && !value.is_empty())
                .map(|(_, value)| value.clone())
        };
        if REDIRECTING.iter().any(|name| env(name).is_some()) {
            return None;
        }
        let mut hasher = StableHasher::default();
        let mut part = |bytes: &[u8]| {
            hasher.write(&(bytes.len() as u64).to_le_bytes());
            hasher.write(bytes);
        };
        for name in CHOOSING {
            part(name.as_bytes());
            part(env(name).as_deref().and_then(os_bytes).unwrap_or_default());
        }
        let git_dir = marker.join(".git");
        let dot_git = std::fs::symlink_metadata(&git_dir).ok()?;
        if !dot_git.is_dir() {
            return None;
        }
        // Which folders these are and who owns them (git refuses a repository another
        // user owns); not their times, which every commit moves.
        for meta in [std::fs::symlink_metadata(marker).ok()?, dot_git] {
            part(&identity(&meta).to_le_bytes());
        }
        let (configs, _) = config_files(&git_dir, env);
        for config in configs {
            part(os_bytes(config.as_os_str())?);
            match std::fs::metadata(&config) {
                Ok(meta) => {
                    let stamp = Stamp::of(&meta)?;
                    if stamp.is_racy(self.started) || !followable(&config) {
                        return None;
                    }
                    part(&stamp.digest().to_le_bytes());
                }
                Err(_) => part(b"absent"),
            }
        }
        Some(hasher.finish())
    }

    /// The top folder and overrides remembered for `marker` under `key`.
    pub(super) fn recall(&self, marker: &Path, key: u64) -> Option<(PathBuf, Overrides)> {
        let file = self.file(marker)?;
        let loaded = Loaded::read(&file, Section::Repositories)?;
        if loaded.scope() != os_bytes(marker.as_os_str())? {
            return None;
        }
        let record: Record<'_> = cache_store::decode(loaded.records(0).next()?)?;
        if record.key != key {
            return None;
        }
        let root = PathBuf::from(os_str(record.root.0)?);
        let overrides: Option<Vec<(OsString, OsString)>> = record
            .overrides
            .iter()
            .map(|(name, value)| Some((os_str(name.0)?.to_owned(), os_str(value.0)?.to_owned())))
            .collect();
        Some((root, overrides?.into()))
    }

    /// Remembers git's answer for `marker` under `key`.
    pub(super) fn keep(&self, marker: &Path, key: u64, root: &Path, overrides: &Overrides) {
        let (Some(file), Some(scope), Some(root)) = (
            self.file(marker),
            os_bytes(marker.as_os_str()),
            os_bytes(root.as_os_str()),
        ) else {
            return;
        };
        let overrides: Option<Vec<(Raw<'_>, Raw<'_>)>> = overrides
            .iter()
            .map(|(name, value)| Some((Raw(os_bytes(name)?), Raw(os_bytes(value)?))))
            .collect();
        let Some(overrides) = overrides else {
            return;
        };
        let record = Record {
            key,
            root: Raw(root),
            overrides,
        };
        if let Some(bytes) = cache_store::encode(&record) {
            // A cache: failing to keep it costs asking git next time.
            let _ = cache_store::save(&file, Section::Repositories, scope, &[vec![Raw(&bytes)]]);
        }
    }

    fn file(&self, marker: &Path) -> Option<PathBuf> {
        let folder = self.folder.as_ref()?;
        let marker = os_bytes(marker.as_os_str())?;
        Some(folder.join(format!("repository-{:016x}.bin", stable_hash(marker))))
    }
}

/// Which folder `meta` is, and who owns it.
fn identity(meta: &std::fs::Metadata) -> u128 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (u128::from(meta.ino()) << 64) | u128::from(meta.uid()) << 32 | u128::from(meta.gid())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_repo::git;

    fn overrides(pairs: &[(&str, &str)]) -> Overrides {
        pairs
            .iter()
            .map(|(name, value)| (OsString::from(name), OsString::from(value)))
            .collect::<Vec<_>>()
            .into()
    }

    /// Git's environment in a test: no user or system configuration.
    fn quiet(home: &Path) -> Vec<(&'static str, OsString)> {
        vec![
            ("HOME", home.as_os_str().to_owned()),
            ("GIT_CONFIG_NOSYSTEM", OsString::from("1")),
        ]
    }

    #[test]
    fn an_answer_is_recalled_until_the_configuration_changes() {
        let temp = tempfile::tempdir().expect("temp");
        let (repo, cache) = (temp.path().join("repo"), temp.path().join("cache"));
        std::fs::create_dir_all(&repo).expect("mkdir");
        std::fs::create_dir_all(&cache).expect("mkdir");
        git(&repo, &["init", "-q"]);
        // A run long after the files were written: nothing is racy.
        let later = crate::scan::listings::time_nanos(std::time::SystemTime::now())
            + 10 * crate::scan::listings::RACY_WINDOW.as_nanos() as i128;
        let memo = FinderMemo::with_env(&cache, later, quiet(temp.path()));
        let key = memo.key(&repo).expect("a key");
        assert_eq!(memo.recall(&repo, key), None, "nothing kept yet");
        let drivers = overrides(&[("filter.lfs.clean", ""), ("filter.lfs.required", "false")]);
        memo.keep(&repo, key, &repo, &drivers);
        assert_eq!(memo.recall(&repo, key), Some((repo.clone(), drivers)));
        assert_eq!(memo.key(&repo), Some(key), "nothing changed");

        git(&repo, &["config", "filter.other.smudge", "cat"]);
        let changed = memo.key(&repo).expect("a key");
        assert_ne!(changed, key, "the repository's configuration changed");
        assert_eq!(memo.recall(&repo, changed), None);

        std::fs::write(repo.join(".git/config"), "[include]\n\tpath = elsewhere\n").expect("write");
        assert_eq!(memo.key(&repo), None, "an include is not followed");
        let now = crate::scan::listings::time_nanos(std::time::SystemTime::now());
        git(&repo, &["config", "--unset-all", "include.path"]);
        assert_eq!(
            FinderMemo::with_env(&cache, now, quiet(temp.path())).key(&repo),
            None,
            "changed within the racy window"
        );
        let mut redirected = quiet(temp.path());
        redirected.push(("GIT_DIR", repo.join(".git").into_os_string()));
        assert_eq!(
            FinderMemo::with_env(&cache, later, redirected).key(&repo),
            None,
            "git sent elsewhere"
        );
        let mut global = quiet(temp.path());
        global.push((
            "GIT_CONFIG_GLOBAL",
            temp.path().join("global").into_os_string(),
        ));
        assert_ne!(
            FinderMemo::with_env(&cache, later, global).key(&repo),
            memo.key(&repo),
            "another user configuration"
        );
        assert_eq!(
            FinderMemo::default().key(&repo),
            None,
            "remembering nowhere"
        );
    }

    #[test]
    fn a_finder_remembering_answers_from_the_memo_once_git_has_answered() {
        let temp = tempfile::tempdir().expect("temp");
        let (repo, cache) = (temp.path().join("repo"), temp.path().join("cache"));
        std::fs::create_dir_all(repo.join("sub")).expect("mkdir");
        std::fs::create_dir_all(&cache).expect("mkdir");
        git(&repo, &["init", "-q"]);
        let repo = std::fs::canonicalize(&repo).expect("canonical");
        let later = crate::scan::listings::time_nanos(std::time::SystemTime::now())
            + 10 * crate::scan::listings::RACY_WINDOW.as_nanos() as i128;
        let memo = || FinderMemo::with_env(&cache, later, quiet(temp.path()));
        let found = |folder: &Path| {
            crate::git::RepoFinder::with_memo(memo())
                .find(folder)
                .expect("git answers")
                .expect("a repository")
        };
        let asked = found(&repo.join("sub"));
        assert_eq!(asked.root(), repo);
        // What the memo holds is what the next finder answers, without asking git.
        let memo = memo();
        let key = memo.key(&repo).expect("a key");
        let kept = memo.recall(&repo, key).expect("kept by the first finder");
        assert_eq!(kept.0, repo);
        let marked = overrides(&[("diff.marked.textconv", "")]);
        memo.keep(&repo, key, &repo, &marked);
        let recalled = found(&repo.join("sub"));
        assert_eq!(recalled.root(), repo);
        assert_eq!(recalled.overrides, marked);
        assert_eq!(recalled.prefix, "sub/");
    }
}
