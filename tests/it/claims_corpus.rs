//! Precision of the claim findings on real repositories (see claims_labels.toml): with
//! `$MBANK_CLAIMS_CORPUS` holding the labelled repositories at their commits, every claim
//! finding `check` reports must be labelled, every label must still be reported, and at
//! least 90 % of them must be true. Skipped, with a notice, when the corpus is absent
//! (it is public code kept out of this repository).
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::common::Sandbox;

#[derive(Deserialize)]
struct Labels {
    repo: Vec<Repo>,
    finding: Vec<Label>,
}

#[derive(Deserialize)]
struct Repo {
    name: String,
    commit: String,
}

#[derive(Deserialize)]
struct Label {
    repo: String,
    file: String,
    line: u64,
    code: String,
    claim: String,
    #[serde(rename = "true")]
    is_true: bool,
    reason: String,
}

fn labels() -> Labels {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/claims_labels.toml");
    toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_labels_cover_ten_repositories_with_a_reason_for_every_label() {
    let labels = labels();
    assert!(
        labels.repo.len() >= 10,
        "{} repositories",
        labels.repo.len()
    );
    for label in &labels.finding {
        assert!(
            labels.repo.iter().any(|r| r.name == label.repo),
            "{} is not a listed repository",
            label.repo
        );
        assert!(label.reason.len() > 10, "{}: no reason", label.claim);
        assert!(label.code.starts_with("claim-missing-"), "{}", label.code);
    }
}

#[test]
fn claim_findings_on_real_repositories_are_at_least_90_percent_true() {
    let Some(corpus) = std::env::var_os("MBANK_CLAIMS_CORPUS").map(PathBuf::from) else {
        println!(
            "skipped: set MBANK_CLAIMS_CORPUS to the labelled repositories (claims_labels.toml)"
        );
        return;
    };
    let labels = labels();
    let sandbox = Sandbox::new();
    let mut labelled: BTreeMap<(String, String, u64, String, String), &Label> = labels
        .finding
        .iter()
        .map(|l| {
            (
                (
                    l.repo.clone(),
                    l.file.clone(),
                    l.line,
                    l.code.clone(),
                    l.claim.clone(),
                ),
                l,
            )
        })
        .collect();
    let (mut true_count, mut total) = (0usize, 0usize);
    let mut unlabelled = Vec::new();
    for repo in &labels.repo {
        let dir = corpus.join(&repo.name);
        let head = std::process::Command::new("git")
            .args(["-C", dir.to_str().unwrap(), "rev-parse", "HEAD"])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&head.stdout).trim(),
            repo.commit,
            "{} is not at its labelled commit",
            repo.name
        );
        let json = sandbox
            .run(&["check", "--json", dir.to_str().unwrap()])
            .json();
        for project in json["projects"].as_array().unwrap() {
            for finding in project["findings"].as_array().unwrap() {
                let code = finding["code"].as_str().unwrap();
                if !code.starts_with("claim-missing-") {
                    continue;
                }
                let file = Path::new(finding["file"].as_str().unwrap())
                    .strip_prefix(&dir)
                    .unwrap()
                    .display()
                    .to_string();
                let message = finding["message"].as_str().unwrap();
                let claim = message.split('`').nth(1).unwrap_or_default().to_string();
                let key = (
                    repo.name.clone(),
                    file,
                    finding["line"].as_u64().unwrap_or(0),
                    code.to_string(),
                    claim,
                );
                match labelled.remove(&key) {
                    Some(label) => {
                        total += 1;
                        true_count += usize::from(label.is_true);
                    }
                    None => unlabelled.push(format!("{key:?}: {message}")),
                }
            }
        }
    }
    assert!(
        unlabelled.is_empty(),
        "claim findings without a label:\n{}",
        unlabelled.join("\n")
    );
    assert!(
        labelled.is_empty(),
        "labels no longer reported: {:?}",
        labelled.keys().collect::<Vec<_>>()
    );
    let precision = true_count as f64 / total.max(1) as f64;
    println!(
        "claim precision: {true_count} of {total} true ({:.1} %) over {} repositories",
        precision * 100.0,
        labels.repo.len()
    );
    assert!(total > 0, "no claim findings at all");
    assert!(precision >= 0.9, "precision {precision:.3}");
}
