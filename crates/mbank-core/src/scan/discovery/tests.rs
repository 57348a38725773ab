use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::*;
use crate::formats;
use crate::model::Format;

fn touch(path: &Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, "# x\n").unwrap();
}

#[test]
fn finds_every_format_and_reports_each_bank() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    touch(&r.join("cline/memory-bank/projectbrief.md"));
    touch(&r.join("mcp/memory-bank/active-context.md"));
    touch(&r.join("mcp/memory-bank/product-context.md"));
    touch(&r.join("multi/CLAUDE.md"));
    touch(&r.join("multi/AGENTS.md"));
    touch(&r.join("multi/.claude/memory/active-context.md"));
    touch(&r.join("inf/.infinity/memories.json"));
    touch(&r.join("roo/.clinerules-code"));
    touch(&r.join("cursor/.cursor/memory-bank/activeContext.md"));
    touch(&r.join("copilot/.copilot-tracking/memory-bank/activeContext.md"));
    touch(&r.join("kilo/.kilocode/rules/memory-bank/brief.md"));
    touch(&r.join("plain/README.md"));
    touch(&r.join("docbanks/docs/global-memory-bank/core/glossary.json"));
    touch(&r.join("docbanks/docs/branch-memory-bank/feature-x/activeContext.json"));
    let projects = scan(r, &ScanOptions::default());
    let summary: Vec<(String, Vec<Format>)> = projects
        .iter()
        .map(|p| (p.name.clone(), p.formats()))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("cline".into(), vec![Format::Cline]),
            ("copilot".into(), vec![Format::Cline]),
            ("cursor".into(), vec![Format::Cline]),
            ("docbanks".into(), vec![Format::MemoryBankMcp]),
            ("inf".into(), vec![Format::Infinity]),
            ("kilo".into(), vec![Format::KiloCode]),
            ("mcp".into(), vec![Format::MemoryBankMcp]),
            (
                "multi".into(),
                vec![Format::ClaudeMd, Format::AgentsMd, Format::ConKeeper]
            ),
            ("roo".into(), vec![Format::RooRules]),
        ]
    );
}

#[test]
fn respects_depth_and_skips_ignored_folders() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    touch(&r.join("a/b/memory-bank/progress.md"));
    touch(&r.join("a/b/c/memory-bank/progress.md"));
    touch(&r.join("node_modules/x/memory-bank/progress.md"));
    touch(&r.join("skipme/memory-bank/progress.md"));
    let mut builder = globset::GlobSetBuilder::new();
    builder.add(globset::Glob::new("skip*").unwrap());
    let options = ScanOptions {
        depth: 2,
        ignore: builder.build().unwrap(),
        home: None,
    };
    let names: Vec<String> = scan(r, &options).into_iter().map(|p| p.name).collect();
    assert_eq!(names, vec!["a/b".to_string()]);
}

#[test]
fn nested_instruction_files_belong_to_their_project() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    touch(&r.join("p/CLAUDE.md"));
    touch(&r.join("p/sub/CLAUDE.md"));
    touch(&r.join("p/nested/memory-bank/progress.md"));
    let names: Vec<String> = scan(r, &ScanOptions::default())
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, vec!["p".to_string(), "p/nested".to_string()]);
}

#[test]
fn large_roots_scanned_in_parallel_find_everything_once() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    let mut wanted = Vec::new();
    for n in 0..150 {
        let name = format!("p{n:03}");
        touch(&r.join(&name).join("memory-bank/progress.md"));
        // Nested projects and plain folders at depth 2 too.
        if n % 10 == 0 {
            touch(&r.join(&name).join("sub/memory-bank/progress.md"));
            wanted.push(format!("{name}/sub"));
        }
        touch(&r.join(&name).join("src/main.rs"));
        wanted.push(name);
    }
    #[cfg(unix)]
    std::os::unix::fs::symlink(r.join("p000"), r.join("alias")).unwrap();
    wanted.sort();
    // The alias of p000 is not a second project.
    let names: Vec<String> = scan(r, &ScanOptions::default())
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, wanted);
}

#[cfg(unix)]
#[test]
fn survives_symlink_loops_and_never_leaves_the_root() {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let r = root.path();
    touch(&r.join("p/memory-bank/progress.md"));
    touch(&outside.path().join("o/memory-bank/progress.md"));
    std::os::unix::fs::symlink(r, r.join("p/loop")).unwrap();
    std::os::unix::fs::symlink(outside.path(), r.join("escape")).unwrap();
    let names: Vec<String> = scan(
        r,
        &ScanOptions {
            depth: 6,
            ..Default::default()
        },
    )
    .into_iter()
    .map(|p| p.name)
    .collect();
    assert_eq!(names, vec!["p".to_string()]);
}

#[cfg(unix)]
#[test]
fn markers_leading_out_of_the_project_are_kept_but_not_looked_through() {
    use std::os::unix::fs::symlink;
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let r = root.path();
    let o = outside.path();
    touch(&o.join("bank/active-context.md"));
    touch(&o.join("bank/product-context.md"));
    touch(&o.join("secret.md"));
    touch(&o.join("claude/memory/progress.md"));
    touch(&o.join("store/memories.json"));
    // Far in the future: a time read through a link would win `last_write`.
    let future = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(4_000_000_000);
    for path in [
        o.join("bank"),
        o.join("secret.md"),
        o.join("claude"),
        o.join("claude/memory"),
        o.join("store"),
        o.join("store/memories.json"),
    ] {
        fs::File::open(&path).unwrap().set_modified(future).unwrap();
    }
    for name in [
        "cline",
        "claude",
        "conkeeper",
        "dotclaude",
        "infinity",
        "store",
    ] {
        fs::create_dir_all(r.join(name)).unwrap();
    }
    symlink(o.join("bank"), r.join("cline/memory-bank")).unwrap();
    symlink(o.join("secret.md"), r.join("claude/CLAUDE.md")).unwrap();
    fs::create_dir_all(r.join("conkeeper/.claude")).unwrap();
    symlink(o.join("claude/memory"), r.join("conkeeper/.claude/memory")).unwrap();
    symlink(o.join("claude"), r.join("dotclaude/.claude")).unwrap();
    symlink(o.join("store"), r.join("infinity/.infinity")).unwrap();
    fs::create_dir_all(r.join("store/.infinity")).unwrap();
    symlink(
        o.join("store/memories.json"),
        r.join("store/.infinity/memories.json"),
    )
    .unwrap();
    let projects = scan(r, &ScanOptions::default());
    let summary: Vec<(String, Vec<Format>)> = projects
        .iter()
        .map(|p| (p.name.clone(), p.formats()))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("claude".into(), vec![Format::ClaudeMd]),
            // Not told apart by its names: nothing behind the link is listed.
            ("cline".into(), vec![Format::Cline]),
            ("conkeeper".into(), vec![Format::ConKeeper]),
            ("dotclaude".into(), vec![Format::ClaudeMd]),
            ("infinity".into(), vec![Format::Infinity]),
            ("store".into(), vec![Format::Infinity]),
        ]
    );
    let year_2090 = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(3_800_000_000);
    for project in &projects {
        assert!(
            project.last_write.is_none_or(|t| t < year_2090),
            "{} took a time from outside",
            project.name
        );
    }
}

#[test]
fn auto_memory_is_looked_for_only_in_the_home_folder_passed_in() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let project = root.join("app");
    fs::create_dir_all(&project).unwrap();
    fs::write(project.join("CLAUDE.md"), "# App\n").unwrap();
    let home = dir.path().join("home");
    let memory = formats::claude_auto_memory::memory_folder(&home, &project);
    fs::create_dir_all(&memory).unwrap();
    fs::write(memory.join("MEMORY.md"), "- note\n").unwrap();
    let formats_of = |project: Option<Project>| project.map(|p| p.formats());
    // No home passed: no home folder is looked at.
    assert_eq!(
        formats_of(project_at(&project, "app".into())),
        Some(vec![Format::ClaudeMd])
    );
    assert_eq!(
        formats_of(project_at_home(&project, "app".into(), Some(&home))),
        Some(vec![Format::ClaudeMd, Format::ClaudeAutoMemory])
    );
    let scanned = |home: Option<PathBuf>| {
        let options = ScanOptions {
            home,
            ..ScanOptions::default()
        };
        scan(&root, &options)
            .into_iter()
            .flat_map(|p| p.banks)
            .map(|b| b.format)
            .collect::<Vec<_>>()
    };
    assert_eq!(scanned(None), vec![Format::ClaudeMd]);
    assert_eq!(
        scanned(Some(home.clone())),
        vec![Format::ClaudeMd, Format::ClaudeAutoMemory]
    );
}

#[test]
fn a_clinerules_in_a_sub_folder_is_a_layer_of_its_project() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    touch(&r.join("p/CLAUDE.md"));
    // Cline reads it only at the workspace root: a layer of `p`, not a project.
    touch(&r.join("p/sub/.clinerules"));
    // Roo's own modes beside it make the sub-folder a project of its own.
    touch(&r.join("p/modes/.clinerules"));
    touch(&r.join("p/modes/.roomodes"));
    // Too deep, hidden, or in a memory bank (the bank's own file): not looked at.
    touch(&r.join("q/CLAUDE.md"));
    touch(&r.join("q/a/b/c/d/e/f/g/h/i/.clinerules"));
    touch(&r.join("q/.hidden/.clinerules"));
    touch(&r.join("q/memory-bank/.clinerules"));
    touch(&r.join("q/memory-bank/projectbrief.md"));
    let options = ScanOptions {
        depth: 4,
        ..ScanOptions::default()
    };
    let summary: Vec<(String, Vec<Format>)> = scan(r, &options)
        .into_iter()
        .map(|p| (p.name, p.banks.into_iter().map(|b| b.format).collect()))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("p".into(), vec![Format::RooRules, Format::ClaudeMd]),
            ("p/modes".into(), vec![Format::RooRules]),
            ("q".into(), vec![Format::Cline, Format::ClaudeMd]),
        ]
    );
    let named = project_at(&r.join("p"), "p".into()).unwrap();
    assert_eq!(named.formats(), [Format::RooRules, Format::ClaudeMd]);
}
