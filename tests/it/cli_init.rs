//! `mbank init`: a relative NAME is looked up under the
//! root as every command's PATH is, and init never writes through a bank folder that is a
//! symlink leading out of the project.
use crate::common;

use std::fs;
use std::path::Path;

use common::{Sandbox, run_command};

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// `mbank ARGS` run from `cwd`.
fn run_in(sandbox: &Sandbox, cwd: &Path, args: &[&str]) -> common::Run {
    let mut command = sandbox.mbank();
    command.args(args).current_dir(cwd);
    run_command(command)
}

#[cfg(unix)]
#[test]
fn init_refuses_bank_folders_linked_out_of_the_project() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    fs::create_dir_all(out.join("memory")).unwrap();
    for (name, format, link, target) in [
        ("cline", "cline", "memory-bank", out.clone()),
        ("claude", "conkeeper", ".claude", out.clone()),
        ("memory", "conkeeper", ".claude/memory", out.join("memory")),
    ] {
        let project = dir.path().join(name);
        fs::create_dir_all(project.join(link).parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&target, project.join(link)).unwrap();
        let run = sandbox.run(&["init", s(&project), "--format", format]);
        run.expect_code(2);
        let real_target = fs::canonicalize(&target).unwrap();
        assert!(
            run.stderr.contains("is a symbolic link to") && run.stderr.contains(s(&real_target)),
            "{name}: {}",
            run.stderr
        );
        let written: Vec<_> = fs::read_dir(&out)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(written, vec!["memory"], "{name} wrote outside");
        assert_eq!(fs::read_dir(out.join("memory")).unwrap().count(), 0);
    }
}

#[test]
fn init_name_is_looked_up_under_the_root_when_it_is_not_here() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let here = tempfile::tempdir().unwrap();
    fs::create_dir_all(root.path().join("tide-api")).unwrap();
    let run = run_in(
        &sandbox,
        here.path(),
        &["init", "tide-api", "--root", s(root.path())],
    );
    run.expect_code(0);
    assert!(
        root.path()
            .join("tide-api/memory-bank/projectBrief.md")
            .is_file()
    );
    assert!(!here.path().join("tide-api").exists(), "created ./tide-api");
    assert!(
        run.stdout.contains(s(&root.path().join("tide-api"))),
        "{}",
        run.stdout
    );

    // Here first when it exists here; created here when it exists in neither place.
    fs::create_dir_all(here.path().join("both")).unwrap();
    fs::create_dir_all(root.path().join("both")).unwrap();
    run_in(
        &sandbox,
        here.path(),
        &["init", "both", "--root", s(root.path())],
    )
    .expect_code(0);
    assert!(here.path().join("both/memory-bank").is_dir());
    assert!(!root.path().join("both/memory-bank").exists());
    run_in(
        &sandbox,
        here.path(),
        &["init", "fresh", "--root", s(root.path())],
    )
    .expect_code(0);
    assert!(here.path().join("fresh/memory-bank").is_dir());
    assert!(!root.path().join("fresh").exists());
}
