//! A `.clinerules` (a file, or a folder of rules) left in a sub-folder of a project: Cline
//! reads `.clinerules` only at the workspace root, so there it is none of its rules. The
//! project shows it as a file that never loads, `check` names it as misplaced, and the
//! sub-folder is a layer of the project, not a project of its own. Temp folders only.
use crate::common;

use std::path::Path;

use common::{Sandbox, write};
use mbank::core::model::{Format, LoadKind, Project};
use mbank::core::scan::{bank, discovery};

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// `(file, load)` of the project's Roo/Cline rules bank, as bank listing gives them.
fn rule_files(project: &Project) -> Vec<(String, LoadKind)> {
    bank::list_banks(project)
        .into_iter()
        .find(|b| b.format == Format::RooRules)
        .unwrap_or_else(|| panic!("no Roo/Cline rules bank in {}", project.name))
        .files
        .iter()
        .map(|f| (f.display.clone(), f.load))
        .collect()
}

/// `(code, message)` of every finding `check --json` reports on `file` (relative to `p`).
fn findings_on(sandbox: &Sandbox, p: &Path, file: &str) -> Vec<(String, String)> {
    let json = sandbox.run(&["check", s(p), "--json"]).json();
    let wanted = std::fs::canonicalize(p).unwrap().join(file);
    json["projects"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            let path = Path::new(f["file"].as_str().unwrap());
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()) == wanted
        })
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The files a Cline session in `p` loads at its start.
fn cline_loads(sandbox: &Sandbox, p: &Path) -> Vec<String> {
    let json = sandbox
        .run(&["context", s(p), "--json", "--no-user", "--agent", "cline"])
        .expect_code(0)
        .json();
    json["projects"][0]["sessions"][0]["banks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| b["pieces"].as_array().unwrap().iter())
        .map(|p| p["display"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_clinerules_in_a_sub_folder_is_shown_never_loading_and_named_as_misplaced() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // A project with a memory bank at its top and a rules file in a sub-folder.
    let app = root.join("app");
    write(
        &app.join("memory-bank/projectbrief.md"),
        "# Brief\n\nA shop.\n",
    );
    write(&app.join("sub/.clinerules"), "# Sub rules\n\nUse tabs.\n");
    // A repository whose only memory is a folder of rules in a package.
    let repo = root.join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    write(
        &repo.join("pkg/.clinerules/style.md"),
        "# Style\n\nBe brief.\n",
    );
    // A folder on its own holding `.clinerules` is a workspace root of its own.
    let solo = root.join("solo");
    write(&solo.join(".clinerules"), "# Solo rules\n");

    let options = discovery::ScanOptions {
        depth: 3,
        ..discovery::ScanOptions::default()
    };
    let projects = discovery::scan(root, &options);
    let summary: Vec<(String, Vec<Format>)> = projects
        .iter()
        .map(|p| (p.name.clone(), p.formats()))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("app".into(), vec![Format::Cline, Format::RooRules]),
            ("repo".into(), vec![Format::RooRules]),
            ("solo".into(), vec![Format::RooRules]),
        ]
    );
    // Named on the command line, each is found the same way.
    for (folder, project) in [&app, &repo, &solo].into_iter().zip(&projects) {
        let named = discovery::project_at(folder, project.name.clone()).unwrap();
        assert_eq!(named.formats(), project.formats(), "{}", project.name);
    }

    let listed = |name: &str| rule_files(projects.iter().find(|p| p.name == name).unwrap());
    assert_eq!(
        listed("app"),
        vec![("sub/.clinerules".to_string(), LoadKind::Never)]
    );
    assert_eq!(
        listed("repo"),
        vec![("pkg/.clinerules/style.md".to_string(), LoadKind::Never)]
    );
    assert_eq!(
        listed("solo"),
        vec![(".clinerules".to_string(), LoadKind::Startup)]
    );

    for (project, file, folder) in [
        (&app, "sub/.clinerules", "sub/.clinerules"),
        (&repo, "pkg/.clinerules/style.md", "pkg/.clinerules"),
    ] {
        let found = findings_on(&sandbox, project, file);
        assert!(
            found
                .iter()
                .any(|(code, message)| code == "instructions-misnamed"
                    && message.contains("workspace root")
                    && message.contains(folder)),
            "{file}: {found:#?}"
        );
        assert!(
            !cline_loads(&sandbox, project).iter().any(|f| f == file),
            "{file} loaded"
        );
    }
    assert!(findings_on(&sandbox, &solo, ".clinerules").is_empty());
    assert_eq!(cline_loads(&sandbox, &solo), [".clinerules"]);
}
