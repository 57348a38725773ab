//! Claims in memory checked against the code: a repository built here with renamed,
//! removed and existing paths, scripts, symbols, variables and dependencies gives exactly
//! the expected findings (none for what exists, nor for a variable of a family the code
//! never names), with the rename said; a central root of
//! banks gets one info instead; SARIF carries them.
use std::path::Path;

use serde_json::Value;

use crate::common::git::GitRepo;
use crate::common::{self, Sandbox};

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// `(code, file relative to the project, line, message)` of each claim finding.
fn claim_findings(json: &Value, project: &Path) -> Vec<(String, String, u64, String)> {
    common::claim_findings(json)
        .map(|f| {
            let file = Path::new(f["file"].as_str().unwrap());
            (
                f["code"].as_str().unwrap().to_string(),
                file.strip_prefix(project)
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|_| file.display().to_string()),
                f["line"].as_u64().unwrap_or(0),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

const PATTERNS: &str = "# System Patterns

Refunds are handled in `src/api/refunds_v1.rs`; the entry point is `src/main.rs`.
Helpers live in `src/legacy.rs`. Routes sit under `src/api/` and src/api/mod.rs.
The [ghost module](src/ghost.rs) holds retries.
`RefundService` calls `process_refund()`, then `calculateTax()`.
It reads `STRIPE_API_KEY` and `STRIPE_WEBHOOK_SECRET` at start; the SDK reads `OPENAI_API_KEY` itself.
Build with `npm run build`, lint with `npm run lint`.
Ship with `make deploy` or `make release`.

```sh
cat src/in_a_code_block.rs
npm run in-a-block
```
";

const TECH: &str = "# Tech Context

## Dependencies

- `zod` for validation
- `lodash` for collections
";

const ACTIVE: &str = "# Active Context

## Next steps

- Create `src/future.rs` for webhooks.

We will move `src/api/refunds.rs` into `src/refunds/` later.
";

const DECISIONS: &str = "# Decision Log

## 2025-01-10 - Drop the legacy helpers

`src/legacy.rs` is gone; `oldHelper` with it.
";

fn project_with_history() -> (GitRepo, String, String) {
    let repo = GitRepo::folder("shop");
    repo.init();
    repo.write(
        "src/main.rs",
        "struct RefundService;\nfn process_refund() {}\nfn main() { std::env::var(\"STRIPE_API_KEY\").ok(); }\n",
    );
    repo.write("src/api/mod.rs", "pub mod refunds_v1;\n");
    repo.write("src/api/refunds_v1.rs", "pub fn refund() {}\n");
    repo.write("src/legacy.rs", "pub fn old_helper() {}\n");
    repo.write(
        "package.json",
        "{\"name\": \"shop\", \"scripts\": {\"build\": \"tsc\", \"test\": \"vitest\"}, \"dependencies\": {\"zod\": \"^3\"}}\n",
    );
    repo.write("Makefile", ".PHONY: deploy\ndeploy:\n\t./deploy.sh\n");
    repo.write("memory-bank/projectbrief.md", "# Brief\n\nA shop.\n");
    repo.write("memory-bank/systemPatterns.md", PATTERNS);
    repo.write("memory-bank/techContext.md", TECH);
    repo.write("memory-bank/activeContext.md", ACTIVE);
    repo.write("memory-bank/decisionLog.md", DECISIONS);
    repo.commit_all("first");
    repo.git(&["mv", "src/api/refunds_v1.rs", "src/api/refunds.rs"]);
    repo.write("src/api/mod.rs", "pub mod refunds;\n");
    repo.commit_all("rename refunds");
    let renamed = repo.git(&["log", "-1", "--format=%h"]).trim().to_string();
    repo.git(&["rm", "-q", "src/legacy.rs"]);
    repo.commit_all("drop legacy");
    let removed = repo.git(&["log", "-1", "--format=%h"]).trim().to_string();
    (repo, renamed, removed)
}

#[test]
fn a_repository_with_renamed_removed_and_existing_code_gives_exactly_the_expected_findings() {
    let (repo, renamed, removed) = project_with_history();
    let sandbox = Sandbox::new();
    let run = sandbox.run(&["check", "--json", s(&repo.dir)]);
    let json = run.json();
    let found = claim_findings(&json, &repo.dir);
    let patterns = "memory-bank/systemPatterns.md".to_string();
    let expected: Vec<(String, String, u64, String)> = vec![
        (
            "claim-missing-path".into(),
            patterns.clone(),
            3,
            format!("`src/api/refunds_v1.rs` was renamed to `src/api/refunds.rs` in {renamed}: update the memory"),
        ),
        (
            "claim-missing-path".into(),
            patterns.clone(),
            4,
            format!("`src/legacy.rs` was removed in {removed} and is not in the work tree"),
        ),
        (
            "claim-missing-path".into(),
            patterns.clone(),
            5,
            "`src/ghost.rs` is not in the work tree (git tracks no file or folder by that path, and history does not say where it went)".into(),
        ),
        (
            "claim-missing-symbol".into(),
            patterns.clone(),
            6,
            "`calculateTax` occurs in no tracked file outside the memory (5 files searched): renamed or removed?".into(),
        ),
        (
            "claim-missing-symbol".into(),
            patterns.clone(),
            7,
            "environment variable `STRIPE_WEBHOOK_SECRET` occurs in no tracked file outside the memory (not read by the code, nor in an example env file)".into(),
        ),
        (
            "claim-missing-script".into(),
            patterns.clone(),
            8,
            "`npm run lint`: no package.json defines a script `lint` (defined: build, test)".into(),
        ),
        (
            "claim-missing-script".into(),
            patterns.clone(),
            9,
            "`make release`: no Makefile has a target `release` (defined: deploy)".into(),
        ),
        // A shell block's command runs a script; `cat` hands no file to an interpreter.
        (
            "claim-missing-script".into(),
            patterns.clone(),
            13,
            "`npm run in-a-block`: no package.json defines a script `in-a-block` (defined: build, test)".into(),
        ),
        (
            "claim-missing-dependency".into(),
            "memory-bank/techContext.md".into(),
            6,
            "dependency `lodash` is declared in no manifest or lock file (package.json)".into(),
        ),
    ];
    assert_eq!(found, expected, "{json:#}");
    // Warnings at most, so a default check does not fail on them.
    for finding in json["projects"][0]["findings"].as_array().unwrap() {
        if finding["code"].as_str().unwrap().starts_with("claim") {
            assert_eq!(finding["severity"], "warning");
        }
    }
    // The text output says the same, with file and line.
    let text = sandbox.run(&["check", s(&repo.dir)]);
    assert!(
        text.stdout.contains(&format!(
            "memory-bank/systemPatterns.md:3: `src/api/refunds_v1.rs` was renamed to `src/api/refunds.rs` in {renamed}"
        )),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("[claim-missing-path]"),
        "{}",
        text.stdout
    );
}

#[test]
fn claim_findings_go_into_sarif_with_rule_help_file_and_line() {
    let (repo, renamed, _) = project_with_history();
    let sandbox = Sandbox::new();
    let mut command = sandbox.mbank();
    command
        .args(["check", "--format", "sarif", "."])
        .current_dir(&repo.dir);
    let run = common::run_command(command);
    let log = run.json();
    crate::check_sarif::assert_valid_sarif(&log);
    let results = log["runs"][0]["results"].as_array().unwrap();
    let rename = results
        .iter()
        .find(|r| {
            r["message"]["text"]
                .as_str()
                .unwrap()
                .contains(&format!("renamed to `src/api/refunds.rs` in {renamed}"))
        })
        .expect("the rename result");
    assert_eq!(rename["ruleId"], "claim-missing-path");
    assert_eq!(rename["level"], "warning");
    let location = &rename["locations"][0]["physicalLocation"];
    assert_eq!(
        location["artifactLocation"]["uri"],
        "memory-bank/systemPatterns.md"
    );
    assert_eq!(location["region"]["startLine"], 3);
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let rule = rules
        .iter()
        .find(|r| r["id"] == "claim-missing-script")
        .expect("the script rule");
    assert!(
        rule["help"]["text"]
            .as_str()
            .unwrap()
            .contains("package.json")
    );
}

#[test]
fn a_central_root_of_banks_gets_one_info_and_no_claim_findings() {
    let repo = GitRepo::folder("banks");
    repo.init();
    repo.write("shop/memory-bank/projectbrief.md", "# Brief\n\nA shop.\n");
    repo.write(
        "shop/memory-bank/systemPatterns.md",
        "# Patterns\n\nRefunds live in `src/api/refunds.rs`; run `npm run build`.\n",
    );
    repo.write("README.md", "# Our banks\n");
    repo.commit_all("banks");
    let sandbox = Sandbox::new();
    let project = repo.dir.join("shop");
    let json = sandbox.run(&["check", "--json", s(&project)]).json();
    let findings = json["projects"][0]["findings"].as_array().unwrap();
    let claims: Vec<&Value> = findings
        .iter()
        .filter(|f| f["code"].as_str().unwrap().starts_with("claim"))
        .collect();
    assert_eq!(claims.len(), 1, "{findings:#?}");
    assert_eq!(claims[0]["code"], "claims-not-checked");
    assert_eq!(claims[0]["severity"], "info");
    assert!(
        claims[0]["message"]
            .as_str()
            .unwrap()
            .contains("no code beside this bank"),
        "{}",
        claims[0]["message"]
    );
}

#[test]
fn memory_outside_any_repository_is_not_checked_for_claims() {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("shop");
    common::write(
        &project.join("memory-bank/systemPatterns.md"),
        "# Patterns\n\nRefunds live in `src/api/refunds.rs`.\n",
    );
    let sandbox = Sandbox::new();
    let json = sandbox.run(&["check", "--json", s(&project)]).json();
    let findings = json["projects"][0]["findings"].as_array().unwrap();
    assert!(
        !findings
            .iter()
            .any(|f| f["code"].as_str().unwrap().starts_with("claim")),
        "{findings:#?}"
    );
}

#[test]
fn paths_ignored_by_gitignore_are_not_claims_about_the_code() {
    let repo = GitRepo::folder("app");
    repo.init();
    repo.write("src/main.rs", "fn main() {}\n");
    repo.write("packages/app/index.ts", "export {};\n");
    repo.write(".gitignore", "generated/\npackages/content/\n");
    // The ignored folder named itself, not a file in it: absent from the clone, git
    // takes it for a file, which the folder's pattern alone does not match.
    repo.write(
        "memory-bank/systemPatterns.md",
        "# Patterns\n\nBuild output goes to `generated/schema.rs`; code in `src/main.rs`.\n\
`packages/content` is a checkout of its own.\n",
    );
    repo.commit_all("app");
    let sandbox = Sandbox::new();
    let json = sandbox.run(&["check", "--json", s(&repo.dir)]).json();
    assert_eq!(claim_findings(&json, &repo.dir), vec![]);

    repo.write(".gitignore", "generated/\n");
    repo.commit_all("content tracked");
    let json = sandbox.run(&["check", "--json", s(&repo.dir)]).json();
    let found = claim_findings(&json, &repo.dir);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]
            .3
            .starts_with("`packages/content` is not in the work tree")
    );
}

#[test]
fn an_ignored_file_beside_tracked_ones_is_no_claim_about_the_code() {
    // The folder is in the code; the file the memory names is a local one git ignores,
    // absent from this clone: a note about the person's setup, not a stale claim.
    let repo = GitRepo::folder("app");
    repo.init();
    repo.write("config/default.toml", "port = 80\n");
    repo.write(".gitignore", "config/local.toml\n");
    repo.write(
        "memory-bank/techContext.md",
        "# Tech\n\nPorts are set in `config/default.toml`, overridden in `config/local.toml`.\n",
    );
    repo.commit_all("app");
    let sandbox = Sandbox::new();
    let json = sandbox.run(&["check", "--json", s(&repo.dir)]).json();
    assert_eq!(claim_findings(&json, &repo.dir), vec![]);

    // The same name, not ignored, is a claim the code contradicts.
    repo.write(".gitignore", "\n");
    repo.commit_all("ignore nothing");
    let json = sandbox.run(&["check", "--json", s(&repo.dir)]).json();
    assert!(!claim_findings(&json, &repo.dir).is_empty());
}

#[test]
fn review_signals_a_change_that_introduces_a_claim_the_code_contradicts() {
    let (repo, renamed, _) = project_with_history();
    // The committed memory is right; the agent's change adds one line naming the old
    // file and one naming what exists.
    // `src/ghost.rs` is missing, but the baseline already said so: not the change's.
    let base = "# System Patterns\n\nRefunds are handled in `src/api/refunds.rs`, retries in `src/ghost.rs`.\n";
    repo.write("memory-bank/systemPatterns.md", base);
    repo.commit_all("memory up to date");
    let text = format!(
        "{base}The refund webhook is in `src/api/refunds_v1.rs` too.\nAnd `src/main.rs` starts it.\n"
    );
    repo.write("memory-bank/systemPatterns.md", &text);
    let sandbox = Sandbox::new();
    let json = sandbox.run(&["review", "--json", s(&repo.dir)]).json();
    let files = json["projects"][0]["files"].as_array().unwrap();
    let patterns = files
        .iter()
        .find(|f| f["display"] == "memory-bank/systemPatterns.md")
        .expect("the changed file");
    let claims: Vec<(String, u64, String)> = patterns["signals"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["code"].as_str().unwrap().starts_with("claim"))
        .map(|s| {
            (
                s["code"].as_str().unwrap().to_string(),
                s["new_line"].as_u64().unwrap(),
                s["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // Only the added claim: what the baseline already claimed is `check`'s to report.
    let added_line = 4;
    assert_eq!(
        claims,
        vec![(
            "claim-missing-path".to_string(),
            added_line,
            format!(
                "`src/api/refunds_v1.rs` was renamed to `src/api/refunds.rs` in {renamed}: update the memory"
            ),
        )],
        "{patterns:#}"
    );
    let signal = patterns["signals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["code"] == "claim-missing-path")
        .unwrap();
    assert_eq!(signal["severity"], "warning");
}

#[cfg(unix)]
#[test]
fn a_linked_copy_is_checked_once_and_neither_a_submodule_s_files_nor_own_packages_are_judged() {
    let repo = GitRepo::folder("linked");
    repo.init();
    repo.write("src/main.rs", "fn main() {}\n");
    repo.write(
        "AGENTS.md",
        "# Agents\n\nThe server starts in `src/server.rs`; release with \
         `vendor/shared/scripts/zip.ps1`.\n",
    );
    repo.write("requirements.txt", "requests==2.32\n");
    repo.write("memory-bank/projectbrief.md", "# Brief\n\nA tool.\n");
    repo.write(
        "memory-bank/techContext.md",
        "# Tech\n\n## Dependencies\n\n- `requests` for HTTP\n- `src` holds the code\n\
         - `httpx` for async HTTP\n",
    );
    std::os::unix::fs::symlink("AGENTS.md", repo.dir.join("CLAUDE.md")).unwrap();
    std::os::unix::fs::symlink("AGENTS.md", repo.dir.join("GEMINI.md")).unwrap();
    repo.commit_all("first");
    // A submodule as git records it: a gitlink, one entry standing for a whole tree
    // this repository's index does not list.
    let head = repo.git(&["rev-parse", "HEAD"]).trim().to_string();
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{head},vendor/shared"),
    ]);
    repo.git(&["commit", "-q", "-m", "shared scripts"]);
    let json = Sandbox::new()
        .run(&["check", "--json", s(&repo.dir)])
        .json();
    let found: Vec<(String, String)> = claim_findings(&json, &repo.dir)
        .into_iter()
        .map(|(code, file, _, message)| (code, format!("{file}: {message}")))
        .collect();
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(found[0].0, "claim-missing-path");
    assert!(
        found[0].1.starts_with("AGENTS.md: `src/server.rs`"),
        "{found:#?}"
    );
    // The project's own package is no dependency; one no manifest declares is.
    assert_eq!(found[1].0, "claim-missing-dependency");
    assert!(
        found[1]
            .1
            .starts_with("memory-bank/techContext.md: dependency `httpx`"),
        "{found:#?}"
    );
}

#[test]
fn names_under_a_heading_that_names_a_dependency_are_the_dependency_s() {
    let repo = GitRepo::folder("store");
    repo.init();
    repo.write(
        "package.json",
        "{\"name\": \"store\", \"keywords\": [\"agents\"], \"dependencies\": {\"@tanstack/react-query\": \"^5\", \"@sentry/react-native\": \"^6\"}}\n",
    );
    repo.write("src/cart.ts", "export const useCartStore = () => null;\n");
    repo.write(
        "AGENTS.md",
        "# Agents\n\n## Data Fetching (React Query)\n\n- Use `useInfiniteQuery` for lists.\n\n\
         ## Error monitoring (Sentry)\n\n- Sanitize errors with `beforeSend`.\n\n\
         ## Stores\n\n- `useCartStore` holds the cart; `useWishlistStore` the wishlist.\n",
    );
    repo.commit_all("store");
    let json = Sandbox::new()
        .run(&["check", "--json", s(&repo.dir)])
        .json();
    let found: Vec<String> = claim_findings(&json, &repo.dir)
        .into_iter()
        .map(|(_, file, line, message)| format!("{file}:{line}: {message}"))
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].starts_with("AGENTS.md:13: `useWishlistStore`"),
        "{found:#?}"
    );
}

/// `(line, message)` of each claim finding a check of `repo` gives.
fn checked_lines(repo: &GitRepo) -> Vec<(u64, String)> {
    let json = Sandbox::new()
        .run(&["check", "--json", s(&repo.dir)])
        .json();
    claim_findings(&json, &repo.dir)
        .into_iter()
        .map(|(_, _, line, message)| (line, message))
        .collect()
}

#[test]
fn a_folder_named_with_and_without_its_slash_is_one_claim() {
    let repo = GitRepo::folder("app");
    repo.init();
    repo.write("src/main.rs", "fn main() {}\n");
    repo.write(
        "AGENTS.md",
        "# Agents\n\nLocale files live in `src/locales/`.\nThe Urdu strings are in `src/locales` as well.\n",
    );
    repo.commit_all("app");
    let found = checked_lines(&repo);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, 3, "{found:#?}");
    assert!(found[0].1.ends_with("(also on line 4)"), "{found:#?}");
}

#[test]
fn a_folder_tree_s_stale_entries_are_claims_unless_most_of_the_tree_is_elsewhere() {
    let repo = GitRepo::folder("app");
    repo.init();
    for file in [
        "src/main.rs",
        "src/api/mod.rs",
        "src/api/refunds.rs",
        "src/db.rs",
        "docs/setup.md",
    ] {
        repo.write(file, "text\n");
    }
    repo.write(
        "AGENTS.md",
        "# Agents\n\n## Layout\n\n```\napp/\n├── src/\n│   ├── main.rs        # entry\n\
│   ├── api/\n│   │   ├── mod.rs\n│   │   ├── refunds.rs\n│   │   └── ledger.rs\n\
│   ├── db.rs\n│   └── ...\n└── docs/\n    └── setup.md\n```\n\n\
## Where requirements go\n\n```\ndocs/requirements/\n├── auth/\n│   └── 001-login.md\n\
└── billing/\n    └── 002-invoices.md\n```\n",
    );
    repo.commit_all("app");
    let found = checked_lines(&repo);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, 12, "{found:#?}");
    assert!(
        found[0]
            .1
            .starts_with("`src/api/ledger.rs` is not in the work tree"),
        "{found:#?}"
    );
}

#[test]
fn a_rule_file_is_told_only_of_the_paths_history_shows_gone() {
    let repo = GitRepo::folder("rules");
    repo.init();
    repo.write("src/main.rs", "fn main() {}\n");
    repo.write("docs/GUIDE.md", "# Guide\n");
    repo.write("docs/OLD_PLAN.md", "# Plan\n");
    repo.write("src/lib.rs", "pub mod api;\n");
    repo.commit_all("first");
    repo.git(&["mv", "src/lib.rs", "src/core.rs"]);
    repo.commit_all("the library becomes the core");
    repo.git(&["mv", "docs/GUIDE.md", "docs/handbook.md"]);
    repo.commit_all("rename the guide");
    let renamed = repo.git(&["log", "-1", "--format=%h"]).trim().to_string();
    repo.git(&["rm", "-q", "docs/OLD_PLAN.md"]);
    repo.commit_all("drop the plan");
    let removed = repo.git(&["log", "-1", "--format=%h"]).trim().to_string();
    // A rule names this repository's paths that history shows gone, one that exists,
    // the layout of a template (`src/components/Button.tsx`, never here), and a file by
    // its bare name as advice for every such file (`lib.rs`, which history renamed).
    repo.write(
        ".cursor/rules/project.mdc",
        "---\nalwaysApply: true\n---\n# Project rules\n\nRead `docs/GUIDE.md` and `docs/OLD_PLAN.md` first.\n\
Entry point: `src/main.rs`. Components live in `src/components/Button.tsx`.\n\
Keep `mod.rs` and `lib.rs` files short.\n",
    );
    repo.commit_all("rules");
    let sandbox = Sandbox::new();
    let json = sandbox.run(&["check", "--json", s(&repo.dir)]).json();
    let rule = ".cursor/rules/project.mdc".to_string();
    assert_eq!(
        claim_findings(&json, &repo.dir),
        [
            (
                "claim-missing-path".to_string(),
                rule.clone(),
                6,
                format!(
                    "`docs/GUIDE.md` was renamed to `docs/handbook.md` in {renamed}: update the memory"
                ),
            ),
            (
                "claim-missing-path".to_string(),
                rule,
                6,
                format!("`docs/OLD_PLAN.md` was removed in {removed} and is not in the work tree"),
            ),
        ]
    );
}

#[test]
fn a_module_named_as_imports_name_it_and_a_name_the_code_derives_from_are_present() {
    let repo = GitRepo::folder("modules");
    repo.init();
    repo.write(
        "src/lib/env-sync.ts",
        "export type PriceUpdatedEventData = { price: number };\nexport function onOrderPlaced() {}\n",
    );
    repo.write("src/main.ts", "import { sync } from './lib/env-sync';\n");
    repo.write(
        "memory-bank/systemPatterns.md",
        "# System Patterns\n\n- **Environment sync** (`src/lib/env-sync`): syncs settings before a deploy.\n\
- **Watcher** (`src/lib/env-watch`): reloads settings.\n\
Events: `PriceUpdated`, `OrderPlaced`, `OrderCancelled`.\n",
    );
    repo.commit_all("first");
    let sandbox = Sandbox::new();
    let json = sandbox.run(&["check", "--json", s(&repo.dir)]).json();
    let found: Vec<(String, u64)> = claim_findings(&json, &repo.dir)
        .into_iter()
        .map(|(code, _, line, message)| (code, line, message))
        .map(|(code, line, message)| {
            let named = message.split('`').nth(1).unwrap_or_default().to_string();
            (format!("{code} {named}"), line)
        })
        .collect();
    assert_eq!(
        found,
        [
            ("claim-missing-path src/lib/env-watch".to_string(), 4),
            ("claim-missing-symbol OrderCancelled".to_string(), 5),
        ]
    );
}

#[test]
fn a_path_moved_more_than_once_is_told_each_step_with_its_commit() {
    let repo = GitRepo::folder("steps");
    repo.init();
    repo.write("src/main.rs", "fn main() {}\n");
    repo.write("src/draft.rs", "pub fn draft() {}\n");
    repo.commit_all("first");
    let short = |repo: &GitRepo| repo.git(&["log", "-1", "--format=%h"]).trim().to_string();
    repo.git(&["mv", "src/main.rs", "src/cli.rs"]);
    repo.commit_all("rename the entry point");
    let first_rename = short(&repo);
    std::fs::create_dir_all(repo.dir.join("src/bin")).unwrap();
    repo.git(&["mv", "src/cli.rs", "src/bin/cli.rs"]);
    repo.commit_all("binaries under src/bin");
    let second_rename = short(&repo);
    repo.git(&["mv", "src/draft.rs", "src/sketch.rs"]);
    repo.commit_all("rename the draft");
    let draft_renamed = short(&repo);
    repo.git(&["rm", "-q", "src/sketch.rs"]);
    repo.commit_all("drop the sketch");
    let sketch_removed = short(&repo);
    repo.write(
        "memory-bank/systemPatterns.md",
        "# System Patterns\n\n- The entry point is `src/main.rs`.\n- Drafts live in `src/draft.rs`.\n",
    );
    repo.commit_all("memory");
    let sandbox = Sandbox::new();
    let json = sandbox.run(&["check", "--json", s(&repo.dir)]).json();
    let messages: Vec<String> = claim_findings(&json, &repo.dir)
        .into_iter()
        .map(|(_, _, _, message)| message)
        .collect();
    assert_eq!(
        messages,
        [
            format!(
                "`src/main.rs` was renamed in {first_rename}, and again in {second_rename}: it is now `src/bin/cli.rs`; update the memory"
            ),
            format!(
                "`src/draft.rs` was renamed in {draft_renamed}, then removed in {sketch_removed}, and is not in the work tree"
            ),
        ]
    );
}

#[test]
fn a_plan_nobody_has_begun_names_what_is_to_be_built_until_a_task_is_done() {
    // Kept in a folder named as plans are: the folders above a project say nothing of
    // its files.
    let repo = GitRepo::folder("plans");
    repo.init();
    repo.write("src/main.ts", "export const main = 1;\n");
    for (file, text) in [
        ("projectbrief.md", "# Brief\n\nA shop.\n"),
        ("productContext.md", "# Product\n\nSells things.\n"),
        ("systemPatterns.md", "# Patterns\n\nEntry: `src/main.ts`.\n"),
        ("techContext.md", "# Tech\n\nTypeScript.\n"),
        ("activeContext.md", "# Active\n\nPlanning users.\n"),
        ("progress.md", "# Progress\n\nStarted.\n"),
    ] {
        repo.write(&format!("memory-bank/{file}"), text);
    }
    let plan = "# User area expansion\n\n## Files\n\n- src/user/user.routes.ts\n- src/user/profile/profile.page.ts\n\n## Steps\n\n- [ ] routes\n- [ ] profile page\n- [ ] settings\n";
    repo.write("memory-bank/build/user-area.md", plan);
    repo.commit_all("plans");
    assert_eq!(checked_lines(&repo), [], "a plan not begun");

    repo.write(
        "memory-bank/build/user-area.md",
        &plan.replace("- [ ] routes", "- [x] routes"),
    );
    repo.commit_all("routes done");
    let found = checked_lines(&repo);
    let lines: Vec<u64> = found.iter().map(|(line, _)| *line).collect();
    assert_eq!(lines, [5, 6], "{found:#?}");
}

#[test]
fn a_folder_history_emptied_is_told_removed_in_the_commit_that_emptied_it() {
    let repo = GitRepo::folder("folders");
    repo.init();
    repo.write("src/main.go", "package main\n");
    repo.write("internal/amp/proxy.go", "package amp\n");
    repo.write("internal/amp/routes.go", "package amp\n");
    repo.write("internal/usage/stats.go", "package usage\n");
    repo.commit_all("first");
    let short = |repo: &GitRepo| repo.git(&["log", "-1", "--format=%h"]).trim().to_string();
    repo.git(&["rm", "-q", "internal/amp/routes.go"]);
    repo.commit_all("fewer routes");
    repo.git(&["rm", "-q", "-r", "internal/amp"]);
    repo.commit_all("drop the proxy");
    let emptied = short(&repo);
    // A folder whose file went elsewhere under another name went somewhere, not away.
    repo.git(&["mv", "internal/usage/stats.go", "internal/metrics.go"]);
    repo.commit_all("metrics");
    // As a clone holds it: git leaves no empty folder behind.
    std::fs::remove_dir(repo.dir.join("internal/usage")).unwrap();
    repo.write(
        "AGENTS.md",
        "# Agents\n\n- The proxy is in `internal/amp/`.\n- Counters are in `internal/usage/`.\n- The entry point is `src/main.go`.\n",
    );
    repo.commit_all("memory");
    let found = checked_lines(&repo);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(
        found[0],
        (
            3,
            format!("`internal/amp/` was removed in {emptied} and is not in the work tree")
        )
    );
    assert_eq!(found[1].0, 4);
    assert!(!found[1].1.contains("removed"), "{found:#?}");
}

#[test]
fn an_empty_file_is_no_evidence_of_where_its_folder_went() {
    let repo = GitRepo::folder("empty-files");
    repo.init();
    repo.write("pkg/__init__.py", "");
    repo.write("pkg/graphs/__init__.py", "");
    repo.write("pkg/graphs/store.py", "class GraphStore:\n    pass\n");
    repo.write(
        "pkg/other/helpers.py",
        "def help_with_things():\n    return 1\n",
    );
    repo.commit_all("first");
    let short = |repo: &GitRepo| repo.git(&["log", "-1", "--format=%h"]).trim().to_string();
    // The graph code goes away; a new test package gets an empty `__init__.py` of its
    // own, which git would pair with the removed one.
    repo.git(&["rm", "-q", "-r", "pkg/graphs"]);
    repo.write("tests/utils/__init__.py", "");
    repo.commit_all("drop graph stores, add test utilities");
    let dropped = short(&repo);
    // A file with content moved with its folder is still told as moved.
    repo.git(&["mv", "pkg/other", "pkg/misc"]);
    repo.commit_all("rename other");
    let renamed = short(&repo);
    std::fs::remove_dir_all(repo.dir.join("pkg/graphs")).ok();
    repo.write(
        "AGENTS.md",
        "# Agents\n\n- Graph stores are in `pkg/graphs/`.\n- Helpers are in `pkg/other/`.\n",
    );
    repo.commit_all("memory");
    let found = checked_lines(&repo);
    assert_eq!(
        found,
        [
            (
                3,
                format!("`pkg/graphs/` was removed in {dropped} and is not in the work tree")
            ),
            (
                4,
                format!("`pkg/other/` was moved to `pkg/misc/` in {renamed}: update the memory")
            ),
        ],
        "{found:#?}"
    );
}

#[test]
fn a_go_module_s_standard_packages_are_no_missing_dependencies() {
    let repo = GitRepo::folder("gomod");
    repo.init();
    repo.write(
        "go.mod",
        "module example.com/portal\n\ngo 1.22\n\nrequire github.com/spf13/cobra v1.8.0\n",
    );
    repo.write("go.sum", "github.com/spf13/cobra v1.8.0 h1:abc=\n");
    repo.write(
        "cmd/portal/main.go",
        "package main\n\nimport (\n\t\"embed\"\n\t\"net/http\"\n\n\t\"github.com/spf13/cobra\"\n)\n\n//go:embed web\nvar assets embed.FS\n\nfunc main() { _ = http.ListenAndServe; _ = cobra.Command{} }\n",
    );
    repo.write("memory-bank/projectbrief.md", "# Brief\n\nA portal.\n");
    repo.write(
        "memory-bank/techContext.md",
        "# Tech\n\n## Dependencies\n\n- `cobra` for the command line\n- `embed` for the web assets\n- `net/http` serves them\n- `viper` for configuration\n",
    );
    repo.commit_all("first");
    let json = Sandbox::new()
        .run(&["check", "--json", s(&repo.dir)])
        .json();
    let found: Vec<(String, String)> = claim_findings(&json, &repo.dir)
        .into_iter()
        .map(|(code, _, _, message)| (code, message))
        .collect();
    // `viper` is in no manifest and the code never names it; `embed` and `net/http`
    // are Go's own, which `go.mod` never lists.
    assert_eq!(
        found,
        [(
            "claim-missing-dependency".to_string(),
            "dependency `viper` is declared in no manifest or lock file (go.mod, go.sum)"
                .to_string()
        )],
        "{found:#?}"
    );
}

#[test]
fn names_under_a_heading_that_gives_their_prefix_are_found_with_it() {
    let repo = GitRepo::folder("prefixed");
    repo.init();
    repo.write(
        "migrations/001_init.sql",
        "CREATE TABLE remote_agent_user_github_tokens (id TEXT);\n",
    );
    repo.write("src/main.ts", "export const main = () => 1;\n");
    repo.write(
        "AGENTS.md",
        "# Agents\n\n## Tables (all prefixed with `remote_agent_`)\n\n1. **`user_github_tokens`** - tokens\n2. **`workflow_node_runs`** - runs\n\n## Code\n\n- Settings are read by `loadSettings`.\n",
    );
    repo.commit_all("first");
    let found = checked_lines(&repo);
    let named: Vec<(u64, &str)> = found
        .iter()
        .map(|(line, message)| (*line, message.split(' ').next().unwrap_or("")))
        .collect();
    // With its prefix `user_github_tokens` is in the code; `workflow_node_runs` is not
    // even so.
    assert_eq!(
        named,
        [(6, "`workflow_node_runs`"), (10, "`loadSettings`")],
        "{found:#?}"
    );
}

#[test]
fn a_rule_file_s_code_names_are_reported_only_where_the_line_names_a_path_of_the_code() {
    let repo = GitRepo::folder("rulenames");
    repo.init();
    repo.write("app/ui/Theme.kt", "object AppTheme\n");
    repo.write("app/ui/Styles.xml", "<style name=\"Backlight\"/>\n");
    repo.write(
        ".github/instructions/ui.instructions.md",
        "---\napplyTo: \"**/*.kt\"\n---\n# UI\n\n- Animate with `AnimatedContent` and `SharedTransitionLayout`.\n- `SectionHeaderStyle` is defined in `app/ui/Styles.xml`.\n",
    );
    repo.write(
        ".cursor/rules/tests.mdc",
        "---\nalwaysApply: true\n---\n# Tests\n\n- Use `MockMvcRequestBuilders` for controllers.\n",
    );
    repo.write("AGENTS.md", "# Agents\n\n- The theme is `MusicAppTheme`.\n");
    repo.commit_all("first");
    let json = Sandbox::new()
        .run(&["check", "--json", s(&repo.dir)])
        .json();
    let found: Vec<(String, u64)> = claim_findings(&json, &repo.dir)
        .into_iter()
        .map(|(_, file, line, _)| (file, line))
        .collect();
    // Framework names a rule gives as advice are not the code's; a rule's name on a line
    // that points into this code is, and so is any name in AGENTS.md.
    assert_eq!(
        found,
        [
            (".github/instructions/ui.instructions.md".to_string(), 7),
            ("AGENTS.md".to_string(), 3),
        ],
        "{found:#?}"
    );
}

#[test]
fn recipes_a_justfile_imports_are_its_own() {
    let repo = GitRepo::folder("justimports");
    repo.init();
    repo.write("src/main.rs", "fn main() {}\n");
    repo.write(
        "justfile",
        "set shell := [\"bash\", \"-c\"]\n\n_default:\n    @just --list\n\nimport 'justfiles/basic.just'\n",
    );
    repo.write(
        "justfiles/basic.just",
        "# Formats the code.\nformat:\n    cargo fmt\n",
    );
    repo.write(
        "AGENTS.md",
        "# Agents\n\n- Format with `just format`.\n- Lint with `just lint`.\n",
    );
    repo.commit_all("first");
    let found = checked_lines(&repo);
    let lines: Vec<u64> = found.iter().map(|(line, _)| *line).collect();
    assert_eq!(lines, [4], "{found:#?}");
}

#[test]
fn names_of_another_system_or_given_to_another_thing_are_not_said_missing_from_the_code() {
    let repo = GitRepo::folder("desk");
    repo.init();
    repo.write(
        "src/book.rs",
        "pub struct OrderBook;\npub struct PriceFeed;\n",
    );
    repo.write(
        "memory-bank/projectbrief.md",
        "# Brief\n\nA trading desk.\n",
    );
    repo.write(
        "memory-bank/systemPatterns.md",
        "# System Patterns\n\n## Broker interface\n\nThe broker's service offers:\n\n\
- `QuoteStream`: live prices\n- `TickHistory`: ticks\n- `MarginReport`: margins\n\n\
## Our code\n\n- `OrderBook` keeps bids; `PriceFeed` reads them.\n- `StaleFetcher` retries.\n\
- Windows come from SwiftUI's `WindowGroup`; threads close with GraphQL `resolveThread`.\n",
    );
    repo.commit_all("first");
    let sandbox = Sandbox::new();
    let json = sandbox.run(&["check", "--json", s(&repo.dir)]).json();
    let found: Vec<(String, u64)> = claim_findings(&json, &repo.dir)
        .into_iter()
        .map(|(code, _, line, _)| (code, line))
        .collect();
    // The broker's three names, none in the code, are the broker's; the names owned on
    // their line are SwiftUI's and GraphQL's. Among names the code has, one is gone.
    assert_eq!(
        found,
        [("claim-missing-symbol".to_string(), 14)],
        "{json:#}"
    );
}

#[test]
fn a_missing_file_is_offered_the_file_of_its_name_nearest_to_where_it_was_said_to_be() {
    let repo = GitRepo::folder("shop");
    repo.init();
    repo.write("AGENTS.md", "# Shop\n\nModules live in `modules/`.\n");
    for module in ["abandoned-carts", "newsletter"] {
        repo.write(
            &format!("modules/{module}/src/__tests__/service-impl.test.ts"),
            "test('x', () => {});\n",
        );
    }
    repo.write("modules/newsletter/tests/setup.ts", "export {};\n");
    repo.write(
        "modules/newsletter/AGENTS.md",
        "# Newsletter\n\nThirty tests in `tests/service-impl.test.ts` cover the controller.\n",
    );
    repo.commit_all("first");
    let sandbox = Sandbox::new();
    let json = sandbox.run(&["check", "--json", s(&repo.dir)]).json();
    let offered: Vec<String> = claim_findings(&json, &repo.dir)
        .into_iter()
        .filter(|(_, file, _, _)| file == "modules/newsletter/AGENTS.md")
        .map(|(_, _, _, message)| message)
        .collect();
    assert_eq!(offered.len(), 1, "{json:#}");
    assert!(
        offered[0]
            .contains("did it become `modules/newsletter/src/__tests__/service-impl.test.ts`?"),
        "{offered:?}"
    );
}
