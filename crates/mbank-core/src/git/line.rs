//! The commits that lead from a remembered commit to HEAD in a line, each with the paths
//! it changed, read from one `git log`. Every walk the history memo carries forward over
//! new commits (when memory files last changed, where paths went) reads them from here:
//! a check after each commit asked git once to see that the commits form a line and once
//! per walk for their changes.
use std::time::{Duration, SystemTime};

use super::command::os;
use super::repo::GitRepo;

/// Most commits a line may hold; past it the walks are redone from the start.
pub(crate) const MOST_IN_LINE: usize = 5000;

/// One commit of a [`Line`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineCommit {
    pub(crate) id: String,
    /// Committer time.
    pub(crate) time: SystemTime,
    /// Its one parent.
    pub(crate) parent: String,
    /// Each path the commit changed against its parent (renames as a removal and an
    /// addition).
    pub(crate) changes: Vec<Change>,
}

/// One path a commit changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    /// Git's letter for how: `A`, `M`, `D`, `T`.
    pub(crate) status: u8,
    pub(crate) path: Vec<u8>,
    /// The path's mode and object id after the commit (zeros when it removed the path).
    pub(crate) mode: String,
    pub(crate) object: String,
}

/// Commits from a tip back to a base, newest first, each the only parent of the one
/// before it, the last one's parent being the base.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Line {
    pub(crate) commits: Vec<LineCommit>,
}

/// The commits `tip` is on from `base` in a line; `None` when they are no line (a merge,
/// a rebase, a reset), more than [`MOST_IN_LINE`], none, or git could not tell.
pub(crate) fn line_between(repo: &GitRepo, base: &str, tip: &str) -> Option<Line> {
    let range = format!("{base}..{tip}");
    let most = format!("-n{}", MOST_IN_LINE + 1);
    let out = repo
        .run_root(&os(&[
            "log",
            "--no-renames",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-show-signature",
            "--raw",
            "--no-abbrev",
            "-z",
            "--format=%x01%H %ct %P",
            &most,
            &range,
            "--",
        ]))
        .ok()?;
    if !out.success {
        return None;
    }
    let line = read_line(&out.stdout)?;
    let mut expected = tip;
    for commit in &line.commits {
        if commit.id != expected {
            return None;
        }
        expected = &commit.parent;
    }
    let count = line.commits.len();
    (count > 0 && count <= MOST_IN_LINE && expected == base).then_some(line)
}

/// Reads `git log -z --raw --no-abbrev --format=%x01%H %ct %P`: a commit's record is
/// `\x01` and its fields, then per change its raw line (`:<old mode> <new mode> <old id>
/// <new id> <status>`) and its path, all ended by NUL (a newline before the first raw
/// line). `None` for output of another shape, or a commit with other than one parent.
fn read_line(output: &[u8]) -> Option<Line> {
    let mut commits: Vec<LineCommit> = Vec::new();
    let mut fields = output.split(|b| *b == 0);
    while let Some(field) = fields.next() {
        let field = field.strip_prefix(b"\n").unwrap_or(field);
        if field.is_empty() {
            continue;
        }
        if let Some(header) = field.strip_prefix(&[1u8]) {
            let header = std::str::from_utf8(header).ok()?;
            let parts: Vec<&str> = header.split(' ').collect();
            let [id, time, parent] = parts.as_slice() else {
                return None;
            };
            let seconds: u64 = time.parse().ok()?;
            commits.push(LineCommit {
                id: (*id).to_string(),
                time: SystemTime::UNIX_EPOCH + Duration::from_secs(seconds),
                parent: (*parent).to_string(),
                changes: Vec::new(),
            });
            continue;
        }
        let raw = std::str::from_utf8(field.strip_prefix(b":")?).ok()?;
        let parts: Vec<&str> = raw.split(' ').collect();
        let [_, mode, _, object, status] = parts.as_slice() else {
            return None;
        };
        let path = fields.next()?;
        commits.last_mut()?.changes.push(Change {
            status: *status.as_bytes().first()?,
            path: path.to_vec(),
            mode: (*mode).to_string(),
            object: (*object).to_string(),
        });
    }
    Some(Line { commits })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_repo::{commit_file, git};

    #[test]
    fn a_line_holds_each_commit_with_its_changes_and_a_merge_is_no_line() {
        let temp = tempfile::tempdir().expect("temp");
        let dir = temp.path();
        git(dir, &["init", "-q", "-b", "main"]);
        commit_file(dir, "a.md", "first");
        let base = git(dir, &["rev-parse", "HEAD"]);
        commit_file(dir, "b.md", "second");
        git(dir, &["rm", "-q", "a.md"]);
        std::fs::write(dir.join("sub dir with spaces.md"), "x").expect("write");
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", "third"]);
        git(dir, &["commit", "-q", "--allow-empty", "-m", "empty"]);
        let tip = git(dir, &["rev-parse", "HEAD"]);
        let repo = GitRepo::discover(dir).expect("a repository");

        let line = line_between(&repo, &base, &tip).expect("a line");
        let changes: Vec<Vec<(u8, &[u8])>> = line
            .commits
            .iter()
            .map(|c| {
                c.changes
                    .iter()
                    .map(|c| (c.status, c.path.as_slice()))
                    .collect()
            })
            .collect();
        assert_eq!(
            changes,
            [
                vec![],
                vec![
                    (b'D', b"a.md".as_slice()),
                    (b'A', b"sub dir with spaces.md")
                ],
                vec![(b'A', b"b.md".as_slice())],
            ]
        );
        assert_eq!(line.commits[0].id, tip);
        assert_eq!(line.commits[2].parent, base);
        let added = &line.commits[1].changes[1];
        assert_eq!(added.mode, "100644");
        assert_eq!(
            added.object,
            git(
                dir,
                &["rev-parse", &format!("{tip}:sub dir with spaces.md")]
            )
        );

        assert_eq!(line_between(&repo, &tip, &tip), None, "no commits");
        assert_eq!(line_between(&repo, &tip, &base), None, "backwards");
        git(dir, &["checkout", "-q", "-b", "side", &base]);
        commit_file(dir, "c.md", "side");
        git(dir, &["checkout", "-q", "main"]);
        git(dir, &["merge", "-q", "--no-edit", "side"]);
        let merged = git(dir, &["rev-parse", "HEAD"]);
        assert_eq!(line_between(&repo, &tip, &merged), None, "a merge");
    }
}
