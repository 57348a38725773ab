//! mbank's own files get the checks memory files get: `config.toml`, the keymap, theme
//! files, the token cache and the listing cache are read only when they are regular files
//! (after following links) within a size limit, and never more than that limit. Before,
//! `--config /dev/zero` grew to 5 GB, a cache symlinked to `/dev/zero` to 14 GB, and a
//! FIFO in their place hung mbank. Now a bad config is an error (exit 2) naming the file;
//! a bad cache is ignored and replaced when mbank saves. Every run here is bounded in
//! time and, through `ulimit -v`, in memory, so a regression fails instead of eating the
//! machine.
#![cfg(unix)]
use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{Run, Sandbox, run_command, within, write};
use mbank::core::scan::listings::Listings;
use mbank::tui::keymap::Keymap;
use mbank::tui::theme::Theme;

/// Address space one `mbank` run may use: far more than it needs, far less than the
/// gigabytes an unbounded read of `/dev/zero` takes.
const MEMORY_LIMIT_KIB: u64 = 3 * 1024 * 1024;
/// `config.toml`, keymaps and themes (`core::limits`: 256 KiB), ten times over.
const TEN_TIMES_SETTINGS: u64 = 10 * 256 * 1024;
/// Caches (`core::limits`: 128 MiB), ten times over (a sparse file: nothing is written).
const TEN_TIMES_CACHE: u64 = 10 * 128 * 1024 * 1024;

/// Runs `mbank ARGS` in the sandbox under the memory limit.
fn run_bounded(sandbox: &Sandbox, args: &[&str]) -> Run {
    let mbank = sandbox.mbank();
    let mut shell = Command::new("sh");
    shell
        .arg("-c")
        .arg(format!(
            "ulimit -v {MEMORY_LIMIT_KIB} && exec \"$0\" \"$@\""
        ))
        .arg(mbank.get_program())
        .args(args)
        .current_dir(sandbox.home());
    for (key, value) in mbank.get_envs() {
        match value {
            Some(value) => shell.env(key, value),
            None => shell.env_remove(key),
        };
    }
    let started = Instant::now();
    let run = run_command(shell);
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(20),
        "mbank {args:?} took {took:?}"
    );
    run
}

/// A root with one healthy Cline project.
fn root(sandbox: &Sandbox) -> PathBuf {
    let root = sandbox.home().join("root");
    let bank = root.join("proj/memory-bank");
    for name in ["projectbrief.md", "activeContext.md", "progress.md"] {
        write(&bank.join(name), &format!("# {name}\n\nFilled in.\n"));
    }
    root
}

fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

/// Puts a hostile thing at a path; the number is the size for an oversized file.
type Make = fn(&Path, u64);

/// The hostile things that can stand where mbank expects one of its files, by label.
fn hostile_kinds() -> Vec<(&'static str, Make)> {
    vec![
        ("symlink to /dev/zero", |path, _| {
            std::os::unix::fs::symlink("/dev/zero", path).unwrap()
        }),
        ("FIFO", |path, _| assert!(mkfifo(path), "mkfifo")),
        ("folder", |path, _| fs::create_dir(path).unwrap()),
        ("file ten times over the limit", |path, size| {
            fs::File::create(path).unwrap().set_len(size).unwrap()
        }),
    ]
}

fn plant(path: &Path, make: Make, size: u64) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let _ = fs::remove_file(path);
    let _ = fs::remove_dir_all(path);
    make(path, size);
}

#[test]
fn a_config_that_is_not_a_small_regular_file_is_an_error_naming_it() {
    let sandbox = Sandbox::new();
    let root = root(&sandbox);
    let root_arg = root.display().to_string();
    let config = sandbox.home().join("config.toml");
    for (label, make) in hostile_kinds() {
        plant(&config, make, TEN_TIMES_SETTINGS);
        let config_arg = config.display().to_string();
        let run = run_bounded(
            &sandbox,
            &["--root", &root_arg, "--config", &config_arg, "list"],
        );
        assert_eq!(run.code, 2, "{label}: {run:?}");
        let expected = match label {
            "folder" => "is a directory",
            "file ten times over the limit" => "over the 262144-byte limit",
            _ => "not a regular file",
        };
        assert!(
            run.stderr.contains(&config_arg) && run.stderr.contains(expected),
            "{label}: {}",
            run.stderr
        );
    }
    // `--config /dev/zero` itself, not through a link.
    let run = run_bounded(
        &sandbox,
        &["--root", &root_arg, "--config", "/dev/zero", "list"],
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("/dev/zero"), "{}", run.stderr);
    // `--config /dev/null` is no config; a named file that is missing is an error (the
    // default location being empty is not: see tests/cli.rs).
    let run = run_bounded(
        &sandbox,
        &["--root", &root_arg, "--config", "/dev/null", "list"],
    );
    run.expect_code(0);
    let run = run_bounded(
        &sandbox,
        &["--root", &root_arg, "--config", "/no/such.toml", "list"],
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("/no/such.toml"), "{}", run.stderr);
}

/// Runs `mbank list` with `cache` planted as each hostile kind: the run succeeds, and
/// afterwards the cache is a regular file again (a folder cannot be replaced; it stays).
fn hostile_cache_is_ignored_and_replaced(sandbox: &Sandbox, root: &Path, cache: &Path) {
    let root_arg = root.display().to_string();
    for (label, make) in hostile_kinds() {
        plant(cache, make, TEN_TIMES_CACHE);
        // A fresh token count each time, so there is something to save.
        write(
            &root.join("proj/memory-bank/progress.md"),
            &format!("# Progress\n\n{label}\n"),
        );
        let run = run_bounded(sandbox, &["--root", &root_arg, "list"]);
        run.expect_code(0);
        assert!(run.stdout.contains("proj"), "{label}: {}", run.stdout);
        let meta = fs::symlink_metadata(cache).unwrap();
        if label == "folder" {
            assert!(meta.is_dir(), "{label}");
        } else {
            assert!(
                meta.file_type().is_file() && meta.len() < 1024 * 1024,
                "{label}: {meta:?}"
            );
        }
    }
}

#[test]
fn a_hostile_token_cache_is_ignored_and_rewritten() {
    let sandbox = Sandbox::new();
    let root = root(&sandbox);
    let cache = sandbox.cache_dir().join("tokens-o200k_base.bin");
    hostile_cache_is_ignored_and_replaced(&sandbox, &root, &cache);
    // The rewritten cache works: a second run reads it.
    let run = run_bounded(&sandbox, &["--root", &root.display().to_string(), "list"]);
    run.expect_code(0);
}

#[test]
fn a_hostile_listing_cache_is_ignored_and_rewritten() {
    let sandbox = Sandbox::new();
    let root = root(&sandbox);
    let cache = sandbox.cache_dir().join(Listings::file_name(&root));
    hostile_cache_is_ignored_and_replaced(&sandbox, &root, &cache);
}

#[test]
fn hostile_keymap_and_theme_files_are_errors_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let keymap = dir.path().join("keymap.toml");
    let theme = dir.path().join("themes/mine.toml");
    for (label, make) in hostile_kinds() {
        plant(&keymap, make, TEN_TIMES_SETTINGS);
        plant(&theme, make, TEN_TIMES_SETTINGS);
        let (keymap_path, config_dir) = (keymap.clone(), dir.path().to_path_buf());
        let (keymap_error, theme_error) = within(
            Duration::from_secs(10),
            &format!("loading a {label} keymap and theme"),
            move || {
                let keymap = Keymap::load(None, Some(&keymap_path)).map(|_| ());
                let theme = Theme::load("mine", Some(&config_dir)).map(|_| ());
                (
                    keymap.unwrap_err().to_string(),
                    theme.unwrap_err().to_string(),
                )
            },
        );
        for error in [&keymap_error, &theme_error] {
            assert!(
                error.contains(dir.path().to_str().unwrap()),
                "{label}: {error}"
            );
        }
    }
    // No keymap file and no theme file: the bundled ones.
    fs::remove_file(&keymap).unwrap();
    fs::remove_file(&theme).unwrap();
    assert!(Keymap::load(None, Some(&keymap)).is_ok());
    assert!(Theme::load("dark", Some(dir.path())).is_ok());
}
