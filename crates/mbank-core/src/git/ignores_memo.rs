//! Which paths a repository's ignore rules cover, remembered between runs while every
//! file those rules come from is unchanged: the `.gitignore` of each folder from the top
//! down to each path's, the repository's exclude file, git's configuration files and
//! the user's default excludes file. A check after every commit asked `git check-ignore`
//! again about the same paths under the same rules. A configuration that includes other
//! files or names an excludes file of its own, a `.git` that is no folder, or a rule file
//! changed within the racy window is not vouched for, and git is asked. Kept in the cache
//! store, the newest few questions per repository; deleting the file is always safe.
use std::collections::{BTreeSet, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::command::path_from_bytes;
use super::ignores::{config_files, followable};
use crate::cache_store::{self, Loaded, Raw, Section};
use crate::io::bytes::os_bytes;
use crate::io::hash_index::{StableHasher, stable_hash};
use crate::scan::listings::Stamp;

/// Questions kept per repository, newest first.
const KEPT: usize = 4;

/// One question's answer as the cache file keeps it.
#[derive(Serialize, Deserialize)]
struct Record<'a> {
    /// The digest of the question and of every file its answer comes from.
    key: u64,
    #[serde(borrow)]
    ignored: Vec<Raw<'a>>,
}

/// Where answers about a repository's ignore rules are remembered (or nowhere).
#[derive(Debug)]
pub(crate) struct IgnoresMemo<'a> {
    folder: &'a Path,
    /// When the run began, in nanoseconds since the epoch.
    started: i128,
}

impl<'a> IgnoresMemo<'a> {
    pub(crate) fn in_folder(folder: &'a Path, started: i128) -> IgnoresMemo<'a> {
        IgnoresMemo { folder, started }
    }

    /// The digest of `names` (relative to the repository's top, `root`) and of every file
    /// the rules covering them come from; `None` when those cannot be vouched for.
    pub(super) fn key(&self, root: &Path, names: &[Vec<u8>]) -> Option<u64> {
        let env = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
        self.key_with(root, names, env)
    }

    fn key_with(
        &self,
        root: &Path,
        names: &[Vec<u8>],
        env: impl Fn(&str) -> Option<OsString>,
    ) -> Option<u64> {
        let git_dir = root.join(".git");
        if !std::fs::symlink_metadata(&git_dir).ok()?.is_dir() {
            return None;
        }
        let mut sources: BTreeSet<PathBuf> = BTreeSet::new();
        for name in names {
            let mut folder = root.to_path_buf();
            let mut parts = name.split(|b| *b == b'/').peekable();
            while let Some(part) = parts.next() {
                sources.insert(folder.join(".gitignore"));
                if parts.peek().is_none() {
                    break;
                }
                folder.push(path_from_bytes(part));
            }
        }
        sources.insert(git_dir.join("info").join("exclude"));
        let (configs, xdg) = config_files(&git_dir, &env);
        if let Some(xdg) = xdg {
            sources.insert(xdg.join("git").join("ignore"));
        }
        for config in &configs {
            if !followable(config) {
                return None;
            }
        }
        sources.extend(configs);
        let mut hasher = StableHasher::default();
        let mut part = |bytes: &[u8]| {
            hasher.write(&(bytes.len() as u64).to_le_bytes());
            hasher.write(bytes);
        };
        for name in names {
            part(name);
        }
        for source in &sources {
            part(os_bytes(source.as_os_str())?);
            match std::fs::metadata(source) {
                Ok(meta) => {
                    let stamp = Stamp::of(&meta)?;
                    if stamp.is_racy(self.started) {
                        return None;
                    }
                    part(&stamp.digest().to_le_bytes());
                }
                Err(_) => part(b"absent"),
            }
        }
        Some(hasher.finish())
    }

    /// The ignored names remembered for the repository at `root` under `key`.
    pub(super) fn recall(&self, root: &Path, key: u64) -> Option<HashSet<Vec<u8>>> {
        let loaded = Loaded::read(&self.file(root)?, Section::Ignores)?;
        if loaded.scope() != os_bytes(root.as_os_str())? {
            return None;
        }
        loaded
            .records(0)
            .filter_map(cache_store::decode::<Record<'_>>)
            .find(|record| record.key == key)
            .map(|record| record.ignored.iter().map(|name| name.0.to_vec()).collect())
    }

    /// Remembers `ignored` for the repository at `root` under `key`, first, with the
    /// newest others.
    pub(super) fn keep(&self, root: &Path, key: u64, ignored: &HashSet<Vec<u8>>) {
        let (Some(file), Some(scope)) = (self.file(root), os_bytes(root.as_os_str())) else {
            return;
        };
        let mut names: Vec<Raw<'_>> = ignored.iter().map(|name| Raw(name)).collect();
        names.sort_unstable();
        let Some(fresh) = cache_store::encode(&Record {
            key,
            ignored: names,
        }) else {
            return;
        };
        let old = Loaded::read(&file, Section::Ignores).filter(|l| l.scope() == scope);
        let mut records = vec![Raw(&fresh)];
        if let Some(old) = &old {
            records.extend(
                old.records(0)
                    .filter(|bytes| {
                        cache_store::decode::<Record<'_>>(bytes).is_some_and(|r| r.key != key)
                    })
                    .take(KEPT - 1)
                    .map(Raw),
            );
        }
        // A cache: failing to keep it costs asking git next time.
        let _ = cache_store::save(&file, Section::Ignores, scope, &[records]);
    }

    fn file(&self, root: &Path) -> Option<PathBuf> {
        let root = os_bytes(root.as_os_str())?;
        Some(
            self.folder
                .join(format!("ignored-{:016x}.bin", stable_hash(root))),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_repo::git;

    #[test]
    fn an_answer_is_recalled_until_a_rule_file_on_the_way_changes() {
        let temp = tempfile::tempdir().expect("temp");
        let (root, cache) = (temp.path().join("repo"), temp.path().join("cache"));
        std::fs::create_dir_all(root.join("docs/notes")).expect("mkdir");
        git(&root, &["init", "-q"]);
        std::fs::write(root.join(".gitignore"), "*.log\n").expect("write");
        let later = crate::scan::listings::time_nanos(std::time::SystemTime::now())
            + 10 * crate::scan::listings::RACY_WINDOW.as_nanos() as i128;
        let memo = IgnoresMemo::in_folder(&cache, later);
        let home = temp.path().as_os_str().to_owned();
        let env = |name: &str| match name {
            "HOME" => Some(home.clone()),
            "GIT_CONFIG_NOSYSTEM" => Some(OsString::from("1")),
            _ => None,
        };
        let names = vec![b"docs/notes/a.log".to_vec(), b"src/b.md".to_vec()];
        let key = memo.key_with(&root, &names, env).expect("a key");
        assert_eq!(memo.recall(&root, key), None);
        let ignored = HashSet::from([b"docs/notes/a.log".to_vec()]);
        memo.keep(&root, key, &ignored);
        assert_eq!(memo.recall(&root, key), Some(ignored));
        assert_eq!(
            memo.key_with(&root, &names, env),
            Some(key),
            "nothing changed"
        );
        let fewer = memo.key_with(&root, &names[..1], env).expect("a key");
        assert_ne!(fewer, key, "another question");
        assert_eq!(memo.recall(&root, fewer), None);

        // A rule file on the way of a name appears: another key.
        std::fs::write(root.join("docs/.gitignore"), "!*.log\n").expect("write");
        let changed = memo.key_with(&root, &names, env).expect("a key");
        assert_ne!(changed, key);
        // One off every name's way changes nothing.
        std::fs::create_dir_all(root.join("other")).expect("mkdir");
        std::fs::write(root.join("other/.gitignore"), "*\n").expect("write");
        assert_eq!(memo.key_with(&root, &names, env), Some(changed));
        // Changed within the racy window of the run: not vouched for.
        let now = crate::scan::listings::time_nanos(std::time::SystemTime::now());
        assert_eq!(
            IgnoresMemo::in_folder(&cache, now).key_with(&root, &names, env),
            None
        );
        // A configuration naming an excludes file of its own is not followed.
        git(&root, &["config", "core.excludesFile", "/elsewhere"]);
        assert_eq!(memo.key_with(&root, &names, env), None);
    }
}
