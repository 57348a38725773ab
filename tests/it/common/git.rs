//! A git repository in a temp folder for tests: hermetic (no system or user config, a
//! private HOME beside it, a fixed identity, no signing, see [`super::git_env`]) and,
//! unless asked otherwise, with commit dates pinned, so hashes and the order of commits
//! never depend on timing.
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use mbank::core::review::ReviewOptions;

/// Commits made by the tests carry a fixed date.
pub const PINNED_DATES: [(&str, &str); 2] = [
    ("GIT_AUTHOR_DATE", "@1760000000 +0000"),
    ("GIT_COMMITTER_DATE", "@1760000000 +0000"),
];

pub struct GitRepo {
    temp: tempfile::TempDir,
    pub home: PathBuf,
    /// The work tree.
    pub dir: PathBuf,
    /// Commits carry [`PINNED_DATES`] (else the time they are made).
    pinned: bool,
}

impl GitRepo {
    /// A folder at `rel` under a fresh temp folder (not a repository yet: see
    /// [`GitRepo::init`]), with a private HOME at `<temp>/home`.
    pub fn folder(rel: &str) -> GitRepo {
        let temp = tempfile::tempdir().unwrap();
        let home = temp.path().join("home");
        let dir = temp.path().join(rel);
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(&dir).unwrap();
        GitRepo {
            temp,
            home,
            dir,
            pinned: true,
        }
    }

    /// Commits carry the time they are made (a project whose memory must look fresh).
    pub fn dated_now(mut self) -> GitRepo {
        self.pinned = false;
        self
    }

    fn dates(&self) -> &'static [(&'static str, &'static str)] {
        if self.pinned { &PINNED_DATES } else { &[] }
    }

    /// The temp folder everything lives in.
    pub fn temp(&self) -> &Path {
        self.temp.path()
    }

    /// `git init` on the `main` branch.
    pub fn init(&self) -> &GitRepo {
        self.git(&["init", "-q", "-b", "main"]);
        self
    }

    /// Stages everything and commits it.
    pub fn commit_all(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    /// The environment git runs with here (for review sessions too).
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        let mut env = super::git_env(&self.home);
        env.extend(
            self.dates()
                .iter()
                .map(|(k, v)| (OsString::from(k), OsString::from(v))),
        );
        env
    }

    /// What a review session of this repository opens with (its snapshots in HOME).
    pub fn review_options(&self) -> ReviewOptions {
        ReviewOptions {
            git_env: self.env(),
            home: Some(self.home.clone()),
            data_dir: Some(self.home.join("data")),
            ..ReviewOptions::default()
        }
    }

    pub fn git_output(&self, args: &[&str]) -> Output {
        super::git_output(&self.dir, &self.home, self.dates(), args)
    }

    /// A git command that must succeed; its standard output.
    pub fn git(&self, args: &[&str]) -> String {
        super::git_stdout(args, self.git_output(args))
    }

    /// What the index holds for a path (`None` when it is not in the index).
    pub fn staged(&self, rel: &str) -> Option<String> {
        super::staged_text(self.git_output(&["show", &format!(":{rel}")]))
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }

    pub fn write(&self, rel: &str, text: &str) {
        super::write(&self.path(rel), text);
    }

    pub fn read(&self, rel: &str) -> Option<String> {
        fs::read_to_string(self.path(rel)).ok()
    }
}
