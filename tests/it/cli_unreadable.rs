//! Files and folders mbank cannot read, through the real binary: `tokens` on a bank it
//! cannot list exits 2 and says why; an unreadable file is one finding, not two; a long
//! error never widens the `tokens` table.
use crate::common;

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{Sandbox, age, run_command, write};

/// Runs `args` as an unprivileged user: as root, through `setpriv` as nobody (root reads
/// any folder); `None` with a printed notice when that is not possible.
#[cfg(unix)]
fn run_unprivileged(sandbox: &Sandbox, args: &[&str]) -> Option<common::Run> {
    if !is_root() {
        let mut command = sandbox.mbank();
        command.args(args);
        return Some(run_command(command));
    }
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    let Some(setpriv) = setpriv else {
        eprintln!("running as root without setpriv: an unlistable folder cannot be made, skipped");
        return None;
    };
    let mut command = Command::new(setpriv);
    command
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "env",
            "-i",
        ])
        .arg(format!("HOME={}", sandbox.home().display()))
        .arg(format!(
            "XDG_CACHE_HOME={}",
            sandbox.home().join("cache").display()
        ))
        .arg(format!(
            "XDG_CONFIG_HOME={}",
            sandbox.home().join("config").display()
        ))
        .arg(format!(
            "XDG_DATA_HOME={}",
            sandbox.home().join("data").display()
        ))
        .arg(env!("CARGO_BIN_EXE_mbank"))
        .args(args)
        .current_dir("/");
    Some(run_command(command))
}

#[cfg(unix)]
fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    let probe = tempfile::tempfile().unwrap();
    probe.metadata().unwrap().uid() == 0
}

#[cfg(unix)]
fn open_to_everyone(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for dir in path
        .ancestors()
        .take_while(|p| p.starts_with(std::env::temp_dir()))
    {
        if dir != std::env::temp_dir() {
            fs::set_permissions(dir, fs::Permissions::from_mode(0o777)).unwrap();
        }
    }
}

#[cfg(unix)]
#[test]
fn tokens_of_a_bank_it_cannot_list_exits_2_with_the_reason() {
    use std::os::unix::fs::PermissionsExt;
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path().join("shop");
    let bank = project.join("memory-bank");
    write(&bank.join("projectbrief.md"), "# Brief\n\nTea shop.\n");
    let sandbox = Sandbox::new();
    for sub in ["cache", "config", "data", "state"] {
        open_to_everyone(&sandbox.home().join(sub));
    }
    open_to_everyone(&project);
    fs::set_permissions(&bank, fs::Permissions::from_mode(0o000)).unwrap();
    let project_arg = project.to_str().unwrap();
    let text = run_unprivileged(&sandbox, &["tokens", project_arg]);
    let json = run_unprivileged(&sandbox, &["tokens", project_arg, "--json"]);
    fs::set_permissions(&bank, fs::Permissions::from_mode(0o755)).unwrap();
    let (Some(text), Some(json)) = (text, json) else {
        return;
    };
    text.expect_code(2);
    assert!(
        text.stderr.contains("incomplete") && text.stderr.contains("Permission denied"),
        "{}",
        text.stderr
    );
    json.expect_code(2);
    let problems = json.json()["banks"][0]["problems"].clone();
    assert!(
        problems[0].as_str().unwrap().contains("Permission denied"),
        "{problems}"
    );
}

#[test]
fn an_unreadable_file_is_one_finding() {
    let temp = tempfile::tempdir().unwrap();
    let bank = temp.path().join("root/shop/memory-bank");
    write(&bank.join("projectbrief.md"), "# Brief\n\nTea shop.\n");
    write(&bank.join("activeContext.md"), "# Active\n\nCheckout.\n");
    let binary = bank.join("progress.md");
    fs::write(&binary, b"# Progress\0\x01binary").unwrap();
    // Old enough to be stale too: staleness and validation each used to report it.
    age(&binary, Duration::from_secs(200 * 86_400));
    let out = Sandbox::new().run(&[
        "--root",
        temp.path().join("root").to_str().unwrap(),
        "check",
        "--json",
    ]);
    out.expect_code(1);
    let json = out.json();
    let about_binary: Vec<&str> = json["projects"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["file"].as_str() == binary.to_str())
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    let unreadable = about_binary
        .iter()
        .filter(|c| c.starts_with("unreadable"))
        .count();
    assert_eq!(unreadable, 1, "{about_binary:?}");
}

#[test]
fn a_long_error_goes_under_its_row_without_widening_the_table() {
    let temp = tempfile::tempdir().unwrap();
    // The error names the file's full path: deep folders make it over 300 characters.
    let deep = temp
        .path()
        .join("a".repeat(100))
        .join("b".repeat(100))
        .join("c".repeat(100));
    let project = deep.join("shop");
    let bank = project.join("memory-bank");
    write(&bank.join("projectbrief.md"), "# Brief\n\nTea shop.\n");
    fs::write(bank.join("data.md"), b"binary\0data").unwrap();
    let out = Sandbox::new().run(&["tokens", project.to_str().unwrap()]);
    out.expect_code(0);
    let lines: Vec<&str> = out.stdout.lines().collect();
    let error = lines
        .iter()
        .find(|l| l.contains("looks binary"))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(error.chars().count() > 300, "{error}");
    assert!(error.trim_start().starts_with("↳"), "{error}");
    // Every row of the table (header included) is as wide as its cells need, no more.
    let table = lines
        .iter()
        .skip_while(|l| !l.starts_with("file"))
        .take_while(|l| !l.contains("loaded at session start"));
    for line in table.filter(|l| !l.contains("looks binary")) {
        assert!(line.chars().count() < 120, "widened row: {line:?}");
    }
    // The file column is as wide as the longest name, memory-bank/projectbrief.md.
    let header = lines.iter().find(|l| l.starts_with("file")).unwrap();
    assert_eq!(
        header.find("load"),
        Some("memory-bank/projectbrief.md".len() + 2)
    );
}
