//! Every folder of the shared corpus of real banks (`../shared/corpus`, or `$MBANK_CORPUS`):
//! discovery finds the projects we expect with the formats we expect, every bank lists its
//! files, analysis with validation and the session context run without a panic, and the
//! CLI's `list`, `check` and `context` give valid JSON with exit code 0 or 1.
//!
//! The expectation table below was written by hand after reading each corpus folder; the
//! corpus files themselves are never copied into this repository.
use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use common::{Sandbox, corpus_root, within};
use mbank::core::analysis::context::{ContextOptions, session_context_with};
use mbank::core::analysis::report::{Analyzer, Depth};
use mbank::core::config::Config;
use mbank::core::model::{Format, LoadKind, Project, Role};
use mbank::core::scan::bank::list_banks;
use mbank::core::scan::discovery::{self, ScanOptions};
use mbank::core::tokens::{self, Encoding, TokenCache};

use Format::{
    AgentsMd, ClaudeMd, Cline, ConKeeper, Copilot, CursorRules, KiloCode, Kiro, MemoryBankMcp,
    RooRules, Windsurf,
};

/// What one corpus folder must yield.
struct Expected {
    folder: &'static str,
    /// Projects found when the corpus is the root: name relative to the folder ("" for the
    /// folder itself) and its banks' formats in discovery order.
    projects: &'static [(&'static str, &'static [Format])],
    /// Files that must be listed (project-relative display path of the top project) with
    /// the role their name implies.
    files: &'static [(&'static str, Role)],
}

const EXPECTED: &[Expected] = &[
    Expected {
        folder: "0xBigBoss+claude-code",
        projects: &[("", &[ClaudeMd])],
        files: &[
            ("CLAUDE.md", Role::Instructions),
            ("CLAUDE.local.md", Role::Instructions),
            ("statusline/CLAUDE.md", Role::Instructions),
        ],
    },
    Expected {
        folder: "174alex174+buhexpert",
        projects: &[("", &[Cline])],
        files: &[
            // Lower-case projectbrief.md is the brief all the same.
            ("memory-bank/projectbrief.md", Role::Brief),
            ("memory-bank/productContext.md", Role::Product),
            ("memory-bank/systemPatterns.md", Role::Patterns),
            ("memory-bank/techContext.md", Role::Tech),
            ("memory-bank/activeContext.md", Role::Active),
            ("memory-bank/progress.md", Role::Progress),
        ],
    },
    Expected {
        folder: "Alphaquest2005+AutoBot-Enterprise",
        // A second, nested bank lives in advanced-memory-bank/. The top bank has no
        // project brief and sits next to Roo mode rules (`.roomodes`, `.roo/rules-code/`):
        // a Roo memory bank. The nested one (three files, no mode rules) stays Cline's.
        projects: &[
            ("", &[MemoryBankMcp, RooRules, ClaudeMd, CursorRules]),
            ("advanced-memory-bank", &[Cline, RooRules]),
        ],
        files: &[
            (".cursor/rules/taskmaster.mdc", Role::Rules),
            ("memory-bank/decisionLog.md", Role::Decisions),
            ("memory-bank/activeContext.md", Role::Active),
            // Extra files stay listed as "other", never dropped.
            ("memory-bank/operationalConstraints.md", Role::Other),
            ("memory-bank/tasks.md", Role::Other),
            (".roomodes", Role::Config),
            (".roo/rules/rules.md", Role::Rules),
            ("CLAUDE.md", Role::Instructions),
        ],
    },
    Expected {
        folder: "Fredy518+alphaHome",
        // `.roo/` holds only mcp.json, but a `.roo/` folder is a Roo marker all the same.
        // The bank holds the five Memory Bank MCP files and no brief or tech context:
        // the RooFlow / Memory Bank MCP layout, not Cline's.
        projects: &[("", &[MemoryBankMcp, RooRules])],
        files: &[
            ("memory-bank/decisionLog.md", Role::Decisions),
            ("memory-bank/productContext.md", Role::Product),
            ("memory-bank/activeContext.md", Role::Active),
        ],
    },
    Expected {
        folder: "Heratiki+locallama-mcp",
        // docs/history/memory-bank is an archive copy three levels down: not a project.
        // Four of the five Memory Bank MCP files, no brief or tech context: Roo's layout.
        projects: &[("", &[MemoryBankMcp, ClaudeMd, AgentsMd])],
        files: &[
            ("memory-bank/decisionLog.md", Role::Decisions),
            ("memory-bank/sessionLog.md", Role::Session),
            (
                "memory-bank/systemPatterns-linux-deprecated.md",
                Role::Other,
            ),
            ("CLAUDE.md", Role::Instructions),
            ("docs/CLAUDE.md", Role::Instructions),
            ("AGENTS.md", Role::Instructions),
        ],
    },
    Expected {
        folder: "PoLP0ot+endurance-coach",
        projects: &[("", &[ClaudeMd, ConKeeper])],
        files: &[
            ("CLAUDE.md", Role::Instructions),
            (".claude/rules/base.md", Role::Rules),
            (".claude/memory/project-brief.md", Role::Brief),
            (".claude/memory/active-context.md", Role::Active),
            // Non-standard ConKeeper names.
            (".claude/memory/ux-direction.md", Role::Other),
        ],
    },
    Expected {
        folder: "RouHim+sensor-bridge",
        projects: &[("", &[MemoryBankMcp])],
        files: &[
            ("memory-bank/active-context.md", Role::Active),
            ("memory-bank/product-context.md", Role::Product),
            ("memory-bank/system-patterns.md", Role::Patterns),
            ("memory-bank/decision-log.md", Role::Decisions),
            ("memory-bank/progress.md", Role::Progress),
            (
                "memory-bank/frontend-backend-command-analysis.md",
                Role::Other,
            ),
        ],
    },
    Expected {
        folder: "Vampire-V+AgentLens",
        projects: &[("", &[ClaudeMd, AgentsMd, ConKeeper])],
        files: &[
            ("CLAUDE.md", Role::Instructions),
            ("AGENTS.md", Role::Instructions),
            (".claude/memory/active-context.md", Role::Active),
        ],
    },
    Expected {
        folder: "hjamet+cursor-memory-bank",
        projects: &[("", &[Cline, CursorRules])],
        files: &[
            (".cursor/rules/start.mdc", Role::Rules),
            // Multi-MB JSON noise is listed too (and never loaded).
            (".cursor/memory-bank/workflow/tasks.json", Role::Other),
            (".cursor/memory-bank/context/activeContext.md", Role::Other),
        ],
    },
    Expected {
        folder: "t3ta+memory-bank-mcp-server",
        // docs/global-memory-bank and docs/branch-memory-bank are two banks of one project.
        projects: &[("", &[MemoryBankMcp, MemoryBankMcp])],
        files: &[(
            "docs/branch-memory-bank/fix-workspace/activeContext.json",
            Role::Active,
        )],
    },
    Expected {
        folder: "user216+vscode-memory-bank",
        projects: &[("", &[Cline])],
        files: &[
            ("memory-bank/projectbrief.md", Role::Brief),
            ("memory-bank/ADR-0001.md", Role::Adr),
            ("memory-bank/ADR-0020.md", Role::Adr),
            ("memory-bank/TASK-001.md", Role::Other),
            ("memory-bank/_index.md", Role::Other),
        ],
    },
    // The fifteen folders below were added later; each row says what mbank finds today
    // and, where a format or a load rule is still missing, says so.
    Expected {
        folder: "220631948+cape-connect",
        // Still missing: the Gemini CLI extension's context file
        // (`.gemini/extensions/capegis-ai/GEMINI.md`) is not listed. `.claude/AGENTS.md`
        // is no file Claude Code or Codex reads, so it stays out.
        projects: &[("", &[ClaudeMd, AgentsMd, Kiro])],
        files: &[
            ("CLAUDE.md", Role::Instructions),
            ("AGENTS.md", Role::Instructions),
            (".kiro/steering/product.md", Role::Instructions),
            (".kiro/steering/security.md", Role::Instructions),
        ],
    },
    Expected {
        folder: "2anki+server",
        projects: &[("", &[ClaudeMd, Copilot])],
        files: &[
            ("CLAUDE.md", Role::Instructions),
            (".claude/rules/security.md", Role::Rules),
            ("src/services/CLAUDE.md", Role::Instructions),
            ("web/CLAUDE.md", Role::Instructions),
            (".github/copilot-instructions.md", Role::Instructions),
        ],
    },
    Expected {
        folder: "89780012+online-notepad",
        // A RooFlow five-file bank with no `.roo/` folder, beside a CLAUDE.md.
        projects: &[("", &[MemoryBankMcp, ClaudeMd])],
        files: &[
            ("memory-bank/decisionLog.md", Role::Decisions),
            ("memory-bank/activeContext.md", Role::Active),
            ("CLAUDE.md", Role::Instructions),
        ],
    },
    Expected {
        folder: "3gogo+auto-quote-system",
        // RooFlow: the five Memory Bank MCP files beside `.roo/mcp.json`.
        projects: &[("", &[MemoryBankMcp, RooRules])],
        files: &[
            ("memory-bank/decisionLog.md", Role::Decisions),
            ("memory-bank/productContext.md", Role::Product),
            (".roo/mcp.json", Role::Config),
        ],
    },
    Expected {
        folder: "ACANOTES-dev+EduPod",
        projects: &[("", &[ClaudeMd, AgentsMd])],
        files: &[
            ("CLAUDE.md", Role::Instructions),
            ("AGENTS.md", Role::Instructions),
            (".claude/rules/backend.md", Role::Rules),
            (".claude/rules/worker.md", Role::Rules),
        ],
    },
    Expected {
        folder: "AMairesse+Nova",
        projects: &[("", &[AgentsMd, KiloCode])],
        files: &[
            ("AGENTS.md", Role::Instructions),
            (".kilocode/rules/memory-bank/brief.md", Role::Brief),
            (".kilocode/rules/memory-bank/context.md", Role::Active),
            (
                ".kilocode/rules/memory-bank/architecture.md",
                Role::Patterns,
            ),
            (".kilocode/rules/memory-bank/tasks.md", Role::Other),
            (".kilocode/rules/memory-bank-instructions.md", Role::Rules),
        ],
    },
    Expected {
        folder: "BURISTUS+MoneyTracker",
        // A camelCase bank with no brief or tech context: the RooFlow layout. Its
        // systemArchitecture.md stands for the system patterns.
        projects: &[("", &[MemoryBankMcp, KiloCode])],
        files: &[
            ("memory-bank/systemArchitecture.md", Role::Patterns),
            ("memory-bank/decisionLog.md", Role::Decisions),
            (".kilocode/rules/memory-bank.md", Role::Rules),
        ],
    },
    Expected {
        folder: "BioInfo+threadcraft",
        projects: &[("", &[MemoryBankMcp])],
        files: &[
            ("memory-bank/activeContext.md", Role::Active),
            ("memory-bank/decisionLog.md", Role::Decisions),
        ],
    },
    Expected {
        folder: "Blank902+BetaNet",
        projects: &[("", &[Cline, Copilot])],
        files: &[
            ("memory-bank/activeContext.md", Role::Active),
            ("memory-bank/decisionLog.md", Role::Decisions),
            (".github/copilot-instructions.md", Role::Instructions),
        ],
    },
    Expected {
        folder: "ClayGao+sparc-demo",
        // Still missing: `.roomodes` is counted whole, though Roo sends only the active
        // mode's definition in full.
        projects: &[("", &[MemoryBankMcp, RooRules])],
        files: &[
            ("memory-bank/decisionLog.md", Role::Decisions),
            (".roomodes", Role::Config),
            (".roo/rules/rules.md", Role::Rules),
            (".roo/rules-code/rules.md", Role::Rules),
            (".roo/rules-tdd/rules.md", Role::Rules),
        ],
    },
    Expected {
        folder: "Congglee+trellone-server",
        projects: &[("", &[Cline, CursorRules, KiloCode])],
        files: &[
            ("memory-bank/projectbrief.md", Role::Brief),
            (".cursor/rules/project-structure.mdc", Role::Rules),
            (".cursor/rules/manual/self-improvement.mdc", Role::Rules),
            (".kilocode/rules/memory-bank/brief.md", Role::Brief),
            (".kilocode/rules/tech-stack.md", Role::Rules),
        ],
    },
    Expected {
        folder: "RADESH626+black-noise-nextjs",
        // A Cline bank written in Spanish, without a decision log.
        projects: &[("", &[Cline])],
        files: &[
            ("memory-bank/projectbrief.md", Role::Brief),
            ("memory-bank/activeContext.md", Role::Active),
        ],
    },
    Expected {
        folder: "PixmaNts+SatisFlow",
        // A Kilo Code memory bank and nothing else; three of its five files are its own.
        projects: &[("", &[KiloCode])],
        files: &[
            (".kilocode/rules/memory-bank/brief.md", Role::Brief),
            (
                ".kilocode/rules/memory-bank/architecture.md",
                Role::Patterns,
            ),
            (
                ".kilocode/rules/memory-bank/implementation-status.md",
                Role::Other,
            ),
        ],
    },
    Expected {
        folder: "anhhai680+knowledge-base-agent",
        projects: &[("", &[Cline, CursorRules, Copilot])],
        files: &[
            ("memory-bank/projectbrief.md", Role::Brief),
            ("memory-bank/tasks/task-list.md", Role::Other),
            (
                "memory-bank/tasks/TASK050-fix-chunking-factory-missing-methods.md",
                Role::Other,
            ),
            (".cursor/rules/memory-bank.instructions.mdc", Role::Rules),
            (
                ".github/instructions/memory-bank.instructions.md",
                Role::Instructions,
            ),
        ],
    },
    Expected {
        folder: "efargas+S7-Tools",
        // The bank kept for Copilot under `.copilot-tracking/` is a Cline bank.
        projects: &[("", &[Cline, AgentsMd, Copilot])],
        files: &[
            (".copilot-tracking/memory-bank/projectbrief.md", Role::Brief),
            (
                ".copilot-tracking/memory-bank/activeContext.md",
                Role::Active,
            ),
            (".copilot-tracking/memory-bank/tasks/_index.md", Role::Other),
            ("AGENTS.md", Role::Instructions),
            (
                ".github/instructions/memory-bank.instructions.md",
                Role::Instructions,
            ),
        ],
    },
    Expected {
        folder: "manhon95+pos-revamp",
        projects: &[("", &[Cline, Windsurf])],
        files: &[
            ("memory-bank/projectbrief.md", Role::Brief),
            ("memory-bank/techContext.md", Role::Tech),
            (".windsurf/rules/memory-bank.md", Role::Rules),
        ],
    },
    Expected {
        folder: "nublu1234+nublu1234.github.io",
        // A Cline bank written in Korean.
        projects: &[("", &[Cline])],
        files: &[
            ("memory-bank/projectbrief.md", Role::Brief),
            ("memory-bank/activeContext.md", Role::Active),
        ],
    },
    Expected {
        folder: "shouviksaha31+booking",
        projects: &[("", &[Cline, Windsurf])],
        files: &[
            ("memory-bank/decision-log.md", Role::Decisions),
            ("memory-bank/projectVision.md", Role::Other),
            (".windsurf/rules/spring-boot-rules.md", Role::Rules),
            // A rule without the `.md` ending Windsurf reads: listed, never loaded.
            (".windsurf/rules/Different-layer-rules", Role::Other),
        ],
    },
];

fn corpus_folders(root: &Path) -> Vec<String> {
    let mut folders: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    folders
}

fn expected_for(folder: &str) -> &'static Expected {
    EXPECTED
        .iter()
        .find(|e| e.folder == folder)
        .unwrap_or_else(|| {
            panic!("corpus folder {folder} has no row in EXPECTED: inspect it and add one")
        })
}

fn project_name(folder: &str, rel: &str) -> String {
    if rel.is_empty() {
        folder.to_string()
    } else {
        format!("{folder}/{rel}")
    }
}

#[test]
fn every_corpus_folder_has_a_source_line_and_an_expectation() {
    let Some(root) = corpus_root() else { return };
    let folders = corpus_folders(&root);
    assert!(
        !folders.is_empty(),
        "the corpus at {} is empty",
        root.display()
    );
    for folder in &folders {
        expected_for(folder);
        let source = std::fs::read_to_string(root.join(folder).join("SOURCE"))
            .unwrap_or_else(|e| panic!("{folder}/SOURCE: {e}"));
        let first = source.lines().next().unwrap_or_default();
        // "owner/repo @ <40-hex commit>": the folder name is the repo with / as +.
        let (repo, commit) = first
            .split_once(" @ ")
            .unwrap_or_else(|| panic!("{folder}/SOURCE: unexpected first line {first:?}"));
        assert_eq!(
            repo.replace('/', "+"),
            *folder,
            "{folder}/SOURCE names {repo}"
        );
        assert!(
            commit.len() == 40 && commit.chars().all(|c| c.is_ascii_hexdigit()),
            "{folder}/SOURCE commit {commit:?}"
        );
    }
    crate::common::notice_absent_added_banks(&root, "expectations");
    for expected in EXPECTED
        .iter()
        .filter(|e| crate::common::labels_apply(&root, e.folder))
    {
        assert!(
            folders.iter().any(|f| f == expected.folder),
            "EXPECTED names {}, which is not in the corpus",
            expected.folder
        );
    }
}

#[test]
fn discovery_finds_every_corpus_project_with_its_formats() {
    let Some(root) = corpus_root() else { return };
    let found: BTreeMap<String, Vec<Format>> = discovery::scan(&root, &ScanOptions::default())
        .into_iter()
        .map(|p| (p.name.clone(), p.banks.iter().map(|b| b.format).collect()))
        .collect();
    let mut wanted = BTreeMap::new();
    for folder in corpus_folders(&root) {
        for (rel, formats) in expected_for(&folder).projects {
            wanted.insert(project_name(&folder, rel), formats.to_vec());
        }
    }
    assert_eq!(found, wanted);
}

#[test]
fn a_corpus_folder_named_directly_is_a_project_with_the_same_formats() {
    let Some(root) = corpus_root() else { return };
    for folder in corpus_folders(&root) {
        let project = discovery::project_at(&root.join(&folder), folder.clone())
            .unwrap_or_else(|| panic!("{folder} is not recognised as a project"));
        let formats: Vec<Format> = project.banks.iter().map(|b| b.format).collect();
        assert_eq!(formats, expected_for(&folder).projects[0].1, "{folder}");
    }
}

fn corpus_projects(root: &Path) -> Vec<Project> {
    discovery::scan(root, &ScanOptions::default())
}

#[test]
fn every_bank_lists_its_files_with_the_expected_roles() {
    let Some(root) = corpus_root() else { return };
    for project in corpus_projects(&root) {
        let banks = list_banks(&project);
        assert_eq!(banks.len(), project.banks.len(), "{}", project.name);
        for bank in &banks {
            assert!(
                !bank.files.is_empty(),
                "{}: the {} bank at {} lists no files",
                project.name,
                bank.format,
                bank.root.display()
            );
            let orders: Vec<usize> = bank.files.iter().map(|f| f.order).collect();
            assert_eq!(
                orders,
                (0..bank.files.len()).collect::<Vec<_>>(),
                "{}: read order is numbered",
                project.name
            );
            for file in &bank.files {
                assert!(
                    file.path.starts_with(&project.path),
                    "{} lists {} outside the project",
                    project.name,
                    file.path.display()
                );
            }
        }
        let Some(expected) = EXPECTED.iter().find(|e| e.folder == project.name) else {
            continue;
        };
        let listed: BTreeMap<&str, Role> = banks
            .iter()
            .flat_map(|b| b.files.iter())
            .map(|f| (f.display.as_str(), f.role))
            .collect();
        for (display, role) in expected.files {
            assert_eq!(
                listed.get(display),
                Some(role),
                "{}: {display} should be listed as {role}",
                project.name
            );
        }
    }
}

#[test]
fn the_big_corpus_banks_are_listed_whole() {
    let Some(root) = corpus_root() else { return };
    // Hundreds of JSON documents across branches: none may be dropped.
    let folder = root.join("t3ta+memory-bank-mcp-server");
    let on_disk = walk_count(&folder.join("docs/branch-memory-bank"))
        + walk_count(&folder.join("docs/global-memory-bank"));
    let project = discovery::project_at(&folder, "t3ta".into()).unwrap();
    let listed: usize = list_banks(&project).iter().map(|b| b.files.len()).sum();
    assert_eq!(listed, on_disk);
    assert!(listed > 300, "{listed}");
}

fn walk_count(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| {
                    if e.file_type().is_ok_and(|t| t.is_dir()) {
                        walk_count(&e.path())
                    } else {
                        1
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}

#[test]
fn analysis_with_validation_runs_over_every_corpus_project() {
    let Some(root) = corpus_root() else { return };
    within(Duration::from_secs(120), "corpus analysis", move || {
        let config = Config::default();
        let mut analyzer = Analyzer::new(
            &config,
            Encoding::O200k,
            TokenCache::in_memory(Encoding::O200k),
            &common::test_clock(),
        );
        let depth = Depth::full();
        let mut with_decisions = 0;
        for project in corpus_projects(&root) {
            let report = analyzer.analyze(&project, depth);
            // What `check` asks for: the same findings, in the same order, without the
            // decision timeline it never shows.
            let for_check = analyzer.analyze(&project, Depth::findings());
            assert_eq!(for_check.findings, report.findings, "{}", project.name);
            assert!(for_check.decisions.is_empty(), "{}", project.name);
            with_decisions += usize::from(!report.decisions.is_empty());
            assert_eq!(report.banks.len(), project.banks.len(), "{}", project.name);
            for bank in &report.banks {
                let loaded: u64 = bank
                    .files
                    .iter()
                    .filter(|f| f.file.load == LoadKind::Startup)
                    .filter_map(|f| f.stats.as_ref())
                    .map(|s| s.loaded_tokens as u64)
                    .sum();
                assert_eq!(bank.loaded_tokens, loaded, "{}", project.name);
                for file in &bank.files {
                    assert!(
                        file.stats.is_some() != file.error.is_some(),
                        "{}: {} has both or neither figures and error",
                        project.name,
                        file.file.display
                    );
                }
            }
            for finding in &report.findings {
                assert!(!finding.message.is_empty(), "{}", project.name);
                assert!(
                    finding.file.starts_with(&project.path),
                    "{}: finding about {} outside the project",
                    project.name,
                    finding.file.display()
                );
            }
        }
        assert!(
            with_decisions >= 5,
            "{with_decisions} projects with decisions"
        );
    });
}

#[test]
fn session_context_builds_for_every_corpus_bank() {
    let Some(root) = corpus_root() else { return };
    let home = tempfile::tempdir().unwrap();
    let options = ContextOptions {
        home: Some(home.path().to_path_buf()),
        include_user_files: false,
        include_ancestors: false,
        codex_home: None,
    };
    let count = |text: &str| tokens::count(Encoding::O200k, text);
    for project in corpus_projects(&root) {
        for bank in list_banks(&project) {
            let context = session_context_with(&project, &bank, &count, &options);
            let sum: usize = context.pieces.iter().map(|p| p.tokens).sum();
            assert_eq!(context.total_tokens, sum, "{}", project.name);
            // Every start-up file is either loaded (possibly through an import) or skipped
            // with a reason: nothing silently vanishes.
            let accounted: BTreeSet<&Path> = context
                .pieces
                .iter()
                .map(|p| p.file.as_path())
                .chain(context.skipped.iter().map(|s| s.file.as_path()))
                .collect();
            for file in bank.files.iter().filter(|f| f.load == LoadKind::Startup) {
                assert!(
                    accounted.contains(file.path.as_path()),
                    "{}: start-up file {} neither loaded nor skipped",
                    project.name,
                    file.display
                );
            }
        }
    }
}

#[test]
fn cli_list_check_and_context_over_the_corpus_give_json() {
    let Some(root) = corpus_root() else { return };
    let sandbox = Sandbox::new();
    let root_arg = root.to_str().unwrap();
    let list = sandbox.run(&["list", "--json", "--root", root_arg]);
    list.expect_code(0);
    let list = list.json();
    assert_eq!(list["schema"], "mbank.list/1");
    let names: BTreeSet<String> = list["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    let mut wanted = BTreeSet::new();
    for folder in corpus_folders(&root) {
        for (rel, _) in expected_for(&folder).projects {
            wanted.insert(project_name(&folder, rel));
        }
    }
    assert_eq!(names, wanted);

    let check = sandbox.run(&["check", "--json", "--root", root_arg]);
    assert!(
        check.code == 0 || check.code == 1,
        "check exit {}: {}",
        check.code,
        check.stderr
    );
    let check_json = check.json();
    assert_eq!(check_json["schema"], "mbank.check/1");
    assert_eq!(check_json["failed"].as_bool(), Some(check.code == 1));

    for folder in corpus_folders(&root) {
        let path = root.join(&folder);
        let context = sandbox.run(&["context", "--json", path.to_str().unwrap()]);
        context.expect_code(0);
        let context = context.json();
        assert_eq!(context["schema"], "mbank.context/1", "{folder}");
        let banks = context["projects"][0]["banks"].as_array().unwrap();
        assert_eq!(
            banks.len(),
            expected_for(&folder).projects[0].1.len(),
            "{folder}"
        );
    }
}

fn text_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            text_files(&path, out);
        } else if entry.file_type().is_ok_and(|t| t.is_file()) {
            out.push(path);
        }
    }
}

/// Every UTF-8 file of the corpus, counted one by one (the way banks are counted) with
/// each BPE encoding: the same count as OpenAI's reference tokenizer.
#[test]
fn token_counts_over_the_corpus_equal_the_reference_tokenizer() {
    let Some(root) = corpus_root() else {
        return;
    };
    let mut files = Vec::new();
    text_files(&root, &mut files);
    files.sort();
    let texts: Vec<String> = files
        .iter()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .collect();
    assert!(texts.len() > 100, "only {} corpus texts", texts.len());
    within(Duration::from_secs(120), "counting the corpus", move || {
        for text in &texts {
            for (encoding, reference) in [
                (Encoding::O200k, tiktoken_rs::o200k_base_singleton()),
                (Encoding::Cl100k, tiktoken_rs::cl100k_base_singleton()),
            ] {
                let theirs = reference.encode_ordinary(text).len();
                assert_eq!(
                    tokens::count(encoding, text),
                    theirs,
                    "{encoding} differs on a text starting {:?}",
                    text.chars().take(80).collect::<String>()
                );
            }
        }
    });
}

/// Cursor rules as real projects write them: `alwaysApply: true` loads at session start,
/// a rule with `alwaysApply: false` and an empty description and globs can never be
/// picked (the finding says so), and one without frontmatter loads only when @-mentioned.
#[test]
fn cursor_rules_in_the_corpus_load_by_their_frontmatter() {
    let Some(root) = corpus_root() else { return };
    let path = root.join("hjamet+cursor-memory-bank");
    let project = discovery::project_at(&path, "p".into()).unwrap();
    let banks = list_banks(&project);
    let cursor = banks.iter().find(|b| b.format == CursorRules).unwrap();
    let load_of = |name: &str| {
        cursor
            .files
            .iter()
            .find(|f| f.display == format!(".cursor/rules/{name}"))
            .map(|f| f.load)
    };
    assert_eq!(load_of("README.mdc"), Some(LoadKind::Startup));
    assert_eq!(load_of("start.mdc"), Some(LoadKind::Manual));
    assert_eq!(load_of("documentation.mdc"), Some(LoadKind::Manual));
    let sandbox = Sandbox::new();
    let check = sandbox
        .run(&["check", "--json", path.to_str().unwrap()])
        .json();
    let never_picked: Vec<String> = check["projects"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "rule-never-picked")
        .map(|f| {
            f["file"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(
        never_picked.contains(&"start.mdc".to_string()),
        "{never_picked:?}"
    );
}

/// The dates written in every corpus text, found by the byte scan, are the ones the
/// regular expression it replaced found (Unicode `\b` and `\d`) in the same text with its
/// code and comments blanked ([`dated_text`]): the same newest date, the same future dates
/// and the same impossible ones.
#[test]
fn dates_found_over_the_corpus_equal_the_date_pattern_they_replaced() {
    use chrono::{Datelike, NaiveDate};
    use mbank::core::markup::dates::{WrittenDates, dated_text, impossible_dates};
    let Some(root) = corpus_root() else { return };
    let pattern =
        regex::Regex::new(r"\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b|\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
            .unwrap();
    let ymd = |c: &regex::Captures| {
        let num = |i: usize| c.get(i).and_then(|m| m.as_str().parse::<u32>().ok());
        match (num(1), num(2), num(3)) {
            (Some(y), Some(m), Some(d)) => Some((y, m, d)),
            _ => Some((num(6)?, num(4)?, num(5)?)),
        }
    };
    let today = NaiveDate::from_ymd_opt(2026, 11, 25).unwrap();
    let mut files = Vec::new();
    text_files(&root, &mut files);
    let (mut texts, mut dated, mut with_code, mut planned_dates) = (0, 0, 0, 0);
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        texts += 1;
        let prose = dated_text(&text);
        with_code += usize::from(prose != text);
        let found: Vec<regex::Captures> = pattern.captures_iter(&prose).collect();
        let spans: Vec<(usize, usize)> = found
            .iter()
            .filter_map(|c| c.get(0).map(|m| (m.start(), m.end())))
            .collect();
        // Dates that name a plan (a due date, a milestone ahead) are no evidence of a write.
        let planned = mbank::core::markup::dates::plans::planned_at(&prose, &spans);
        planned_dates += planned.iter().filter(|p| **p).count();
        let dates: Vec<NaiveDate> = found
            .iter()
            .zip(&planned)
            .filter(|(_, planned)| !**planned)
            .filter_map(|(c, _)| {
                let (y, m, d) = ymd(c)?;
                NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d)
            })
            .filter(|d| d.year_ce().1 >= 2000)
            .collect();
        let mut future: Vec<i32> = dates
            .iter()
            .filter(|d| **d > today)
            .map(|d| d.num_days_from_ce())
            .collect();
        future.sort_unstable();
        future.dedup();
        future.truncate(mbank::core::markup::dates::FUTURE_DATES_KEPT);
        let newest = dates
            .iter()
            .filter(|d| **d <= today)
            .max()
            .map(|d| d.num_days_from_ce());
        dated += usize::from(newest.is_some());
        let expected = WrittenDates::from_days(newest, &future);
        assert_eq!(
            WrittenDates::of(&text, today),
            expected,
            "{}",
            path.display()
        );
        let mut impossible = Vec::new();
        for (index, line) in prose.lines().enumerate() {
            for c in pattern.captures_iter(line) {
                let Some((y, m, d)) = ymd(&c) else { continue };
                let valid = i32::try_from(y)
                    .ok()
                    .and_then(|y| NaiveDate::from_ymd_opt(y, m, d))
                    .is_some();
                if (2000..=2100).contains(&y) && !valid {
                    impossible.push((index + 1, c[0].to_string()));
                }
            }
        }
        assert_eq!(impossible_dates(&text), impossible, "{}", path.display());
    }
    println!("{planned_dates} dates over the corpus name plans");
    assert!(
        texts > 100 && dated > 50 && with_code > 100 && planned_dates > 0,
        "{texts} texts, {dated} dated, {with_code} with code, {planned_dates} planned"
    );
}
