//! Repositories made for tests: git run as a test's user, with no system or user
//! configuration and no signing.
use std::path::Path;
use std::process::Command;

/// Runs git in `dir` and answers what it printed; the test fails when git does.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    git_with(dir, args, &[])
}

/// [`git`] with `env` set too (commit dates, say).
pub(crate) fn git_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .envs(env.iter().copied())
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Writes `text` to `file` in `dir` and commits everything, `text` as the message.
pub(crate) fn commit_file(dir: &Path, file: &str, text: &str) {
    std::fs::write(dir.join(file), text).expect("write");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", text]);
}
