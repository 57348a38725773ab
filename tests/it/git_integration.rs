//! Git facts over real `git init` repositories in temp folders: last-commit times,
//! commits-since staleness (with ConKeeper's `staleness_commits`), a tracked
//! `CLAUDE.local.md`, the append-only check on decision logs, empty repositories,
//! detached HEAD, names with spaces and non-ASCII letters, and folders outside git.
//!
//! Commits are made with a fixed identity and fixed dates, with the system config off
//! and HOME pointing at the temp folder, so the user's git setup cannot leak in.
use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use mbank::core::analysis::report::{Analyzer, Depth, FileReport, ProjectReport};
use mbank::core::analysis::staleness::Freshness;
use mbank::core::config::Config;
use mbank::core::findings::Severity;
use mbank::core::git::GitRepo;
use mbank::core::model::Project;
use mbank::core::scan::discovery;
use mbank::core::tokens::{Encoding, TokenCache};

const T0: u64 = 1_760_000_000;

struct Repo {
    _temp: tempfile::TempDir,
    home: PathBuf,
    dir: PathBuf,
}

impl Repo {
    /// A fresh repository in a folder whose name has a space and a non-ASCII letter.
    fn new() -> Repo {
        let temp = tempfile::tempdir().unwrap();
        let home = temp.path().join("home");
        let dir = temp.path().join("my projekt ü");
        fs::create_dir_all(&home).unwrap();
        fs::create_dir_all(&dir).unwrap();
        let repo = Repo {
            _temp: temp,
            home,
            dir,
        };
        repo.git(&["init", "-q"], 0);
        repo
    }

    fn git(&self, args: &[&str], at: u64) -> String {
        let date = format!("@{at} +0000");
        let out = Command::new("git")
            .args([
                "-c",
                "user.name=Test",
                "-c",
                "user.email=test@example.invalid",
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(&self.dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", &self.home)
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.dir.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn commit_all(&self, message: &str, at: u64) {
        self.git(&["add", "-A"], at);
        self.git(&["commit", "-q", "-m", message], at);
    }

    /// `n` commits that touch only code, one minute apart from `from`.
    fn code_commits(&self, n: u64, from: u64) {
        for i in 0..n {
            self.write("src/main.rs", &format!("fn main() {{ /* {i} */ }}\n"));
            self.commit_all(&format!("code {i}"), from + i * 60);
        }
    }

    fn project(&self) -> Project {
        discovery::project_at(&self.dir, "p".into()).expect("a project")
    }
}

fn analyze(project: &Project, depth: Depth) -> ProjectReport {
    let config = Config::default();
    let mut analyzer = Analyzer::new(
        &config,
        Encoding::Bytes4,
        TokenCache::in_memory(Encoding::Bytes4),
        &common::test_clock(),
    );
    analyzer.analyze(project, depth)
}

fn file<'a>(report: &'a ProjectReport, name: &str) -> &'a FileReport {
    report
        .banks
        .iter()
        .flat_map(|b| &b.files)
        .find(|f| f.file.file_name() == name)
        .unwrap_or_else(|| panic!("no {name} in the report"))
}

fn cline_bank(repo: &Repo) {
    repo.write(
        "memory-bank/projectbrief.md",
        "# Brief\n\nA shop for tea.\n",
    );
    repo.write(
        "memory-bank/activeContext.md",
        "# Active Context\n\nWorking on checkout.\n",
    );
    repo.write("memory-bank/progress.md", "# Progress\n\nCart done.\n");
}

fn git_depth() -> Depth {
    Depth {
        git: true,
        ..Depth::default()
    }
}

#[test]
fn last_commit_times_and_commits_since_make_active_context_stale() {
    let repo = Repo::new();
    cline_bank(&repo);
    repo.commit_all("bank", T0);
    repo.code_commits(12, T0 + 60);
    repo.write(
        "memory-bank/progress.md",
        "# Progress\n\nCart done. Checkout done.\n",
    );
    repo.commit_all("progress", T0 + 13 * 60);

    let project = repo.project();
    let gitrepo = GitRepo::discover(&project.path).expect("a repository");
    let active = project.path.join("memory-bank/activeContext.md");
    let progress = project.path.join("memory-bank/progress.md");
    let history = gitrepo.history(&[&active, &progress]).unwrap();
    assert_eq!(history.commits_walked, 14);
    let at = |s: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(s);
    assert_eq!(history.latest_commit, Some(at(T0 + 13 * 60)));
    let a = history.of(&active).unwrap();
    assert_eq!((a.time, a.commits_since), (at(T0), 13));
    let p = history.of(&progress).unwrap();
    assert_eq!((p.time, p.commits_since), (at(T0 + 13 * 60), 0));

    let report = analyze(&project, git_depth());
    assert_eq!(report.last_commit, Some(T0 + 13 * 60));
    let active_report = file(&report, "activeContext.md");
    assert_eq!(active_report.last_commit, Some(T0));
    let staleness = active_report.staleness.as_ref().unwrap();
    assert_eq!(staleness.level, Freshness::Stale);
    assert_eq!(staleness.reason, "13 commits since last update");
    assert_eq!(
        file(&report, "progress.md")
            .staleness
            .as_ref()
            .unwrap()
            .level,
        Freshness::Fresh
    );

    // What `list` asks for judges by the same git evidence (staleness is one judgment).
    let quick = analyze(&project, Depth::default());
    assert_eq!(file(&quick, "activeContext.md").last_commit, Some(T0));
    assert_eq!(quick.last_commit, Some(T0 + 13 * 60));
    assert_eq!(
        file(&quick, "activeContext.md").staleness,
        file(&report, "activeContext.md").staleness
    );

    // An uncommitted edit counts as an update: no longer behind.
    repo.write(
        "memory-bank/activeContext.md",
        "# Active Context\n\nWorking on payments.\n",
    );
    for depth in [git_depth(), Depth::default()] {
        let report = analyze(&project, depth);
        let active_report = file(&report, "activeContext.md");
        assert_eq!(active_report.last_commit, Some(T0));
        assert_eq!(
            active_report.staleness.as_ref().unwrap().level,
            Freshness::Fresh
        );
    }
}

/// Dates typed into files both unchanged since one commit do not make either older than
/// the other: a year typed wrong, or a planned date ("expected completion"), is no update.
#[test]
fn written_dates_of_files_committed_together_do_not_date_them_apart() {
    let repo = Repo::new();
    cline_bank(&repo);
    // T0 is 2025-10-09: one file typed last year's date, the other a date still ahead.
    repo.write(
        "memory-bank/activeContext.md",
        "# Active Context\n\nReport finished 2024-10-08.\n",
    );
    repo.write(
        "memory-bank/progress.md",
        "# Progress\n\nCart done. Expected completion: 2025-12-20 (MVP release).\n",
    );
    repo.commit_all("bank", T0);
    let report = analyze(&repo.project(), git_depth());
    let active = file(&report, "activeContext.md").staleness.clone().unwrap();
    assert_eq!(active.level, Freshness::Fresh, "{}", active.reason);

    // Edited since (not committed), the file is judged by the dates it holds again, but
    // a date after the commit its sibling is unchanged since is still a plan.
    repo.write(
        "memory-bank/activeContext.md",
        "# Active Context\n\nReport finished 2025-07-01.\n",
    );
    let report = analyze(&repo.project(), git_depth());
    let active = file(&report, "activeContext.md").staleness.clone().unwrap();
    assert_eq!(active.level, Freshness::Fresh, "{}", active.reason);
}

/// An `AGENTS.md` that is a link to `CLAUDE.md` (one file for both agents) changes
/// whenever `CLAUDE.md` does: its history is `CLAUDE.md`'s, not the link's one commit.
#[cfg(unix)]
#[test]
fn a_linked_memory_file_is_dated_by_the_file_it_links_to() {
    let repo = Repo::new();
    repo.write("CLAUDE.md", "# Shop\n\nTea.\n");
    std::os::unix::fs::symlink("CLAUDE.md", repo.dir.join("AGENTS.md")).unwrap();
    // A link to a file git ignores: dated by the link's own commit.
    repo.write(".gitignore", "local/\n");
    repo.write("local/gemini.md", "# Local\n");
    std::os::unix::fs::symlink("local/gemini.md", repo.dir.join("GEMINI.md")).unwrap();
    repo.commit_all("instructions", T0);
    repo.code_commits(12, T0 + 60);
    repo.write("CLAUDE.md", "# Shop\n\nTea and coffee.\n");
    repo.commit_all("coffee", T0 + 13 * 60);

    let project = repo.project();
    for depth in [git_depth(), Depth::default()] {
        let report = analyze(&project, depth);
        for name in ["CLAUDE.md", "AGENTS.md"] {
            let linked = file(&report, name);
            assert_eq!(linked.last_commit, Some(T0 + 13 * 60), "{name}");
            assert_eq!(
                linked.staleness.as_ref().map(|s| s.level),
                Some(Freshness::Fresh),
                "{name}"
            );
        }
        assert_eq!(file(&report, "GEMINI.md").last_commit, Some(T0));
    }
}

/// `.claude/rules` as a link to a folder shared with other agents: git tracks the rules
/// only in the folder linked to, whose history dates them (not the files' times on disk,
/// which a clone sets to the day it ran).
#[cfg(unix)]
#[test]
fn rules_in_a_linked_folder_are_dated_by_the_folder_linked_to() {
    let repo = Repo::new();
    repo.write("CLAUDE.md", "# Shop\n\nTea.\n");
    repo.write(".agents/rules/style.md", "# Style\n\nShort lines.\n");
    std::fs::create_dir_all(repo.dir.join(".claude")).unwrap();
    std::os::unix::fs::symlink("../.agents/rules", repo.dir.join(".claude/rules")).unwrap();
    repo.commit_all("rules", T0);
    repo.code_commits(3, T0 + 60);
    repo.write("CLAUDE.md", "# Shop\n\nTea and coffee.\n");
    repo.commit_all("coffee", T0 + 4 * 60);

    let report = analyze(&repo.project(), git_depth());
    let rule = file(&report, "style.md");
    assert!(rule.file.path.ends_with(".claude/rules/style.md"));
    assert_eq!(rule.last_commit, Some(T0));
}

/// A rule in a sub-folder of a linked folder, and a linked `.claude` as a whole: the
/// link is on the way, not the file's own folder, and still dates the file by git.
#[cfg(unix)]
#[test]
fn rules_below_a_linked_folder_are_dated_by_the_files_linked_to() {
    let repo = Repo::new();
    repo.write("CLAUDE.md", "# Shop\n\nTea.\n");
    repo.write(".agents/rules/rust/style.md", "# Style\n\nShort lines.\n");
    std::fs::create_dir_all(repo.dir.join(".claude")).unwrap();
    std::os::unix::fs::symlink("../.agents/rules", repo.dir.join(".claude/rules")).unwrap();
    repo.commit_all("rules", T0);
    repo.code_commits(3, T0 + 60);
    repo.write("CLAUDE.md", "# Shop\n\nTea and coffee.\n");
    repo.commit_all("coffee", T0 + 4 * 60);

    let report = analyze(&repo.project(), git_depth());
    let rule = file(&report, "style.md");
    assert!(rule.file.path.ends_with(".claude/rules/rust/style.md"));
    assert_eq!(rule.last_commit, Some(T0));
    let aging: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.code == mbank::core::findings::FindingCode::Aging)
        .map(|f| f.message.clone())
        .collect();
    assert!(
        aging.iter().all(|m| !m.contains("rust/style.md")),
        "a file dated by git is not the newest by its checkout time: {aging:?}"
    );

    let other = Repo::new();
    other.write("CLAUDE.md", "# Shop\n\nTea.\n");
    other.write(".agents/rules/tone.md", "# Tone\n\nPlain words.\n");
    std::os::unix::fs::symlink(".agents", other.dir.join(".claude")).unwrap();
    other.commit_all("rules", T0);
    other.code_commits(2, T0 + 60);
    let report = analyze(&other.project(), git_depth());
    let rule = file(&report, "tone.md");
    assert!(rule.file.path.ends_with(".claude/rules/tone.md"));
    assert_eq!(rule.last_commit, Some(T0));
}

/// `CLAUDE.md` and `.rules` linked to `AGENTS.md`: one file, aging once, named as itself.
#[cfg(unix)]
#[test]
fn a_file_reached_through_links_ages_once() {
    let repo = Repo::new();
    repo.write("AGENTS.md", "# Agents\n\nShort lines.\n");
    std::os::unix::fs::symlink("AGENTS.md", repo.dir.join("CLAUDE.md")).unwrap();
    std::os::unix::fs::symlink("AGENTS.md", repo.dir.join(".rules")).unwrap();
    repo.commit_all("memory", T0);
    repo.code_commits(3, T0 + 120 * 86_400);
    let report = analyze(&repo.project(), Depth::full());
    let aging: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.code == mbank::core::findings::FindingCode::Aging)
        .map(|f| f.file.to_string_lossy().into_owned())
        .collect();
    assert_eq!(aging.len(), 1, "{aging:?}");
    assert!(aging[0].ends_with("AGENTS.md"), "{aging:?}");
}

#[test]
fn conkeeper_staleness_commits_sets_the_threshold() {
    let repo = Repo::new();
    repo.write(
        ".claude/memory/active-context.md",
        "# Active Context\n\nRefactoring auth.\n",
    );
    repo.write(
        ".claude/memory/.memory-config.md",
        "---\nstaleness_commits: 3\n---\n",
    );
    repo.write(
        ".claude/memory/sessions/2025-01-02 café.md",
        "# Session\n\nNotes.\n",
    );
    repo.commit_all("bank", T0);
    repo.code_commits(4, T0 + 60);
    let report = analyze(&repo.project(), git_depth());
    let active = file(&report, "active-context.md");
    let staleness = active.staleness.as_ref().unwrap();
    assert_eq!(
        (staleness.level, staleness.reason.as_str()),
        (Freshness::Stale, "4 commits since last update")
    );
    // A name with a space and a non-ASCII letter still gets its commit.
    assert_eq!(file(&report, "2025-01-02 café.md").last_commit, Some(T0));

    // With the default threshold of 10, four commits are not stale.
    repo.write(
        ".claude/memory/.memory-config.md",
        "---\nauto_load: true\n---\n",
    );
    repo.commit_all("config", T0 + 10 * 60);
    let report = analyze(&repo.project(), git_depth());
    let level = file(&report, "active-context.md")
        .staleness
        .as_ref()
        .unwrap()
        .level;
    assert_ne!(level, Freshness::Stale);
}

#[test]
fn tracked_claude_local_md_is_reported_and_ignored_one_is_not() {
    let repo = Repo::new();
    repo.write("CLAUDE.md", "# Project\n\nUse cargo.\n");
    repo.write("CLAUDE.local.md", "# Mine\n\nMy sandbox URL.\n");
    repo.commit_all("memory", T0);
    let report = analyze(&repo.project(), Depth::full());
    let tracked: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.code.id() == "local-file-tracked")
        .collect();
    assert_eq!(tracked.len(), 1, "{:#?}", report.findings);
    assert!(tracked[0].file.ends_with("CLAUDE.local.md"));

    repo.git(&["rm", "-q", "--cached", "CLAUDE.local.md"], T0);
    repo.write(".gitignore", "CLAUDE.local.md\n");
    repo.commit_all("ignore the local file", T0 + 60);
    let report = analyze(&repo.project(), Depth::full());
    assert!(
        report
            .findings
            .iter()
            .all(|f| f.code.id() != "local-file-tracked"),
        "{:#?}",
        report.findings
    );
}

const LOG: &str = "# Decision Log\n\n\
## Decision: Use Postgres\n- **Date**: 2025-01-10\n- **Status**: Accepted\n\n\
## Decision: Cache with Redis\n- **Date**: 2025-02-11\n- **Status**: Accepted\n\n\
## Decision: Ship weekly\n- **Date**: 2025-03-12\n- **Status**: Proposed\n";

#[test]
fn a_decision_log_that_lost_an_entry_since_head_is_an_error() {
    let repo = Repo::new();
    cline_bank(&repo);
    repo.write("memory-bank/decisionLog.md", LOG);
    repo.commit_all("bank", T0);
    let project = repo.project();
    let shrunk = |report: &ProjectReport| {
        report
            .findings
            .iter()
            .filter(|f| f.code.id() == "decision-log-shrunk")
            .cloned()
            .collect::<Vec<_>>()
    };
    assert!(shrunk(&analyze(&project, Depth::full())).is_empty());

    // Appending and re-marking a status are allowed.
    let appended = LOG.replace("- **Status**: Proposed", "- **Status**: Superseded")
        + "\n## Decision: Ship daily\n- **Date**: 2025-04-01\n";
    repo.write("memory-bank/decisionLog.md", &appended);
    let report = analyze(&project, Depth::full());
    assert!(shrunk(&report).is_empty(), "{:#?}", report.findings);
    assert_eq!(report.decisions.len(), 4);
    let for_check = analyze(&project, Depth::findings());
    assert_eq!(for_check.findings, report.findings);
    assert!(for_check.decisions.is_empty());

    // Deleting an entry is not.
    let without = LOG.replace(
        "## Decision: Cache with Redis\n- **Date**: 2025-02-11\n- **Status**: Accepted\n\n",
        "",
    );
    repo.write("memory-bank/decisionLog.md", &without);
    let report = analyze(&project, Depth::full());
    let findings = shrunk(&report);
    assert_eq!(findings.len(), 1, "{:#?}", report.findings);
    // `check` asks for findings alone: the log is still parsed and compared with HEAD.
    assert_eq!(
        analyze(&project, Depth::findings()).findings,
        report.findings
    );
    assert_eq!(findings[0].severity, Severity::Error);
    assert!(findings[0].message.contains("Cache with Redis"));
    assert!(!findings[0].message.contains("Use Postgres"));

    // The committed version is what HEAD holds.
    let gitrepo = GitRepo::discover(&project.path).unwrap();
    let committed = gitrepo
        .head_content(&project.path.join("memory-bank/decisionLog.md"))
        .unwrap();
    assert_eq!(committed.as_deref(), Some(LOG));
    assert_eq!(
        gitrepo
            .head_content(&project.path.join("memory-bank/none.md"))
            .unwrap(),
        None
    );
}

#[test]
fn empty_repository_and_detached_head() {
    let repo = Repo::new();
    cline_bank(&repo);
    let project = repo.project();
    let gitrepo = GitRepo::discover(&project.path).expect("an empty repository is one");
    assert!(!gitrepo.has_commits());
    let active = project.path.join("memory-bank/activeContext.md");
    let history = gitrepo.history(&[&active]).unwrap();
    assert_eq!((history.commits_walked, history.latest_commit), (0, None));
    assert_eq!(gitrepo.head_content(&active).unwrap(), None);
    assert!(gitrepo.tracked().unwrap().is_empty());
    let report = analyze(&project, Depth::full());
    assert_eq!(file(&report, "activeContext.md").last_commit, None);
    assert!(
        report
            .findings
            .iter()
            .all(|f| f.code.id() != "git-unavailable")
    );

    repo.commit_all("bank", T0);
    repo.code_commits(2, T0 + 60);
    let head = repo.git(&["rev-parse", "HEAD~1"], T0);
    repo.git(&["checkout", "-q", "--detach", head.trim()], T0);
    let history = gitrepo.history(&[&active]).unwrap();
    assert_eq!(history.commits_walked, 2);
    assert_eq!(history.of(&active).unwrap().commits_since, 1);
    let tracked = gitrepo.tracked().unwrap();
    assert!(tracked.contains(&active), "{tracked:?}");
}

#[test]
fn a_project_in_a_subfolder_of_the_repository() {
    let repo = Repo::new();
    repo.write("apps/web/memory-bank/activeContext.md", "# Active\n\nx\n");
    repo.write("apps/web/memory-bank/progress.md", "# Progress\n\ny\n");
    repo.write("apps/web/memory-bank/projectbrief.md", "# Brief\n\nz\n");
    repo.commit_all("bank", T0);
    repo.write("apps/web/src/app.ts", "export {};\n");
    repo.commit_all("the app's code", T0 + 30);
    // Commits to the rest of the repository are no work on this project.
    repo.code_commits(3, T0 + 60);
    let dir = repo.dir.join("apps/web");
    let project = discovery::project_at(&dir, "web".into()).unwrap();
    let report = analyze(&project, git_depth());
    assert_eq!(file(&report, "progress.md").last_commit, Some(T0));
    assert_eq!(report.last_commit, Some(T0 + 30));
    // Asked from the repository's top, every commit counts.
    let progress = dir.join("memory-bank/progress.md");
    let from_top = GitRepo::discover(&repo.dir)
        .unwrap()
        .history(&[&progress])
        .unwrap();
    let at = |seconds: u64| std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds);
    assert_eq!(from_top.latest_commit, Some(at(T0 + 3 * 60)));
    assert_eq!(from_top.of(&progress).map(|c| c.commits_since), Some(4));
    let from_project = GitRepo::discover(&dir)
        .unwrap()
        .history(&[&progress])
        .unwrap();
    assert_eq!(from_project.of(&progress).map(|c| c.commits_since), Some(1));
    let gitrepo = GitRepo::discover(&dir).unwrap();
    assert!(
        gitrepo
            .tracked()
            .unwrap()
            .contains(&dir.join("memory-bank/progress.md"))
    );
}

#[test]
fn a_folder_outside_git_has_no_git_facts() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("plain");
    fs::create_dir_all(dir.join("memory-bank")).unwrap();
    fs::write(dir.join("memory-bank/activeContext.md"), "# Active\n").unwrap();
    let inside_some_repo = Command::new("git")
        .args(["rev-parse", "--show-toplevel"])
        .current_dir(&dir)
        .output()
        .is_ok_and(|o| o.status.success());
    if inside_some_repo {
        eprintln!("the temp folder is inside a git repository; skipping");
        return;
    }
    assert!(GitRepo::discover(&dir).is_none());
    assert!(GitRepo::discover(&dir.join("does-not-exist")).is_none());
    let project = discovery::project_at(&dir, "plain".into()).unwrap();
    let report = analyze(&project, Depth::full());
    assert_eq!(report.last_commit, None);
    assert_eq!(file(&report, "activeContext.md").last_commit, None);
    assert!(
        report
            .findings
            .iter()
            .all(|f| f.code.id() != "git-unavailable" && f.code.id() != "local-file-tracked")
    );
}

#[test]
fn many_files_fall_back_to_folder_pathspecs() {
    let repo = Repo::new();
    let mut paths: Vec<PathBuf> = Vec::new();
    for i in 0..230 {
        let rel = format!("memory-bank/notes/n{i:03} [x].md");
        repo.write(&rel, "# Note\n");
        paths.push(repo.dir.join(rel));
    }
    repo.commit_all("notes", T0);
    repo.write("memory-bank/notes/n000 [x].md", "# Note\n\nchanged\n");
    repo.commit_all("one note", T0 + 60);
    let gitrepo = GitRepo::discover(&repo.dir).unwrap();
    let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let history = gitrepo.history(&refs).unwrap();
    assert_eq!(history.files.len(), 230);
    assert_eq!(history.of(&paths[0]).unwrap().commits_since, 0);
    assert_eq!(history.of(&paths[1]).unwrap().commits_since, 1);
}
