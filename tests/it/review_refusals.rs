//! `mbank review` shows the writes the agent servers refused since the baseline: nothing
//! changed on disk, but the reviewer sees what an agent tried and why it was stopped.
use crate::common;

use std::path::Path;

use common::{Sandbox, write};
use mbank::core::guard::refusals::{self, RefusalRecord};

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn review_lists_refused_writes_since_the_baseline_only() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::new();
    let root = dir.path().join("root");
    let project = root.join("shop");
    let data = dir.path().join("data");
    write(
        &project.join("memory-bank").join("activeContext.md"),
        "# Active\n\nShipping the cart.\n",
    );
    sandbox
        .run_env(
            &["review", "--root", s(&root), s(&project), "--mark-reviewed"],
            "MBANK_DATA_DIR",
            &data,
        )
        .expect_code(0);

    let mut before = RefusalRecord::at(
        &mbank::core::clock::Clock::system(),
        &project,
        "decisionLog.md",
        "append-only",
        "OLD-REFUSAL would drop 3 entries",
        "mcp:memory_bank_update",
    );
    before.at = "2000-01-01T00:00:00Z".into();
    refusals::append_in(&data, &before).unwrap();
    let after = RefusalRecord::at(
        &mbank::core::clock::Clock::system(),
        &project,
        "activeContext.md",
        "secret",
        "line 4 holds an AWS access key",
        "http:POST /memory-bank/file",
    );
    refusals::append_in(&data, &after).unwrap();

    let text = sandbox.run_env(
        &["review", "--root", s(&root), s(&project)],
        "MBANK_DATA_DIR",
        &data,
    );
    text.expect_code(0);
    assert!(
        text.stdout
            .contains("1 write refused by the agent servers since the baseline"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("line 4 holds an AWS access key"));
    assert!(
        text.stdout
            .contains("[secret] via http:POST /memory-bank/file")
    );
    assert!(!text.stdout.contains("OLD-REFUSAL"), "{}", text.stdout);

    let json = sandbox.run_env(
        &["review", "--root", s(&root), s(&project), "--json"],
        "MBANK_DATA_DIR",
        &data,
    );
    let refused = &json.json()["projects"][0]["refused"];
    assert_eq!(refused.as_array().map(Vec::len), Some(1), "{refused}");
    assert_eq!(refused[0]["rule"], "secret");
    assert_eq!(refused[0]["file"], "activeContext.md");
}
