//! Git facts through the `git` command line (no git library): where a project's
//! repository is, when each memory file was last committed and how many commits landed
//! since, which files git tracks or has uncommitted changes in, and a file's committed
//! text (for the append-only check on decision logs).
//!
//! **Nothing the repository configures runs.** Every git command mbank starts is built
//! by `GitRepo::command` (or, before a repository is known, by the same builder without
//! its per-repository part), which switches off everything a repository's config could
//! make git execute: `core.fsmonitor`, hooks (`core.hooksPath` points at a file, so no
//! hook exists), the pager, `diff.external`, credential helpers, askpass, the ssh
//! command, every transport (`protocol.allow=never`, so a partial clone's lazy fetch
//! cannot start one), signing programs, editors, automatic gc. Filter, diff and merge
//! drivers cannot be switched off by one key: the drivers the configuration defines are
//! listed once per repository (`git config --get-regexp` executes nothing) and each of
//! their commands is overridden with an empty one. On top of that mbank avoids the
//! commands that would run them: whether a file changed since HEAD is decided by hashing
//! the work-tree bytes as they are (as `hash-object --no-filters` does, in mbank's own
//! process: see `blob_id`) and comparing blob ids
//! from `ls-files -s` and `ls-tree`, never by `git status` or `git diff`. The only
//! exception is a review commit with `[review] run_git_hooks = true`, which runs the
//! user's hooks and signing as a plain `git commit` would (`Policy::CommitHooks`).
//!
//! Every call is bounded: stdin is closed, prompts and optional locks are off, paths are
//! read from `-z` output without quoting, and a command that runs past its time limit is
//! killed.
//!
//! **Finding repositories.** `RepoFinder` looks for a `.git` entry in a folder and its
//! ancestors before asking git anything, so a folder outside any repository costs a few
//! `stat`s and no process; where there is a `.git`, git is asked once per repository.
//! A folder outside any repository is `Ok(None)`; a repository git refuses (an unsafe
mod blob_id;
mod command;
mod facts;
mod finder;
mod finder_memo;
mod ignores;
mod ignores_memo;
mod line;
mod memo;
mod repo;
mod specs;
#[cfg(test)]
pub(crate) mod test_repo;
mod types;

pub(crate) use blob_id::ObjectFormat;
pub(crate) use command::{Output, Policy, os};
pub(crate) use facts::gather_facts;
pub(crate) use finder::RepoFinder;
pub(crate) use finder::nearest_marker;
pub(crate) use ignores_memo::IgnoresMemo;
pub(crate) use line::Line;
pub use memo::HistoryMemo;
pub(crate) use memo::{HistoryWalk, Walk};
pub use repo::GitRepo;
pub use types::Facts;
pub(crate) use types::IndexEntries;
pub(crate) use types::IndexEntry;
