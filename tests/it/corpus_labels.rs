//! Precision of `mbank check` on the shared corpus of real banks, against the labels in
//! `corpus_labels.toml` (every finding read and labelled by hand), and every timeline entry
//! against `corpus_decision_labels.toml` (each entry and each missed decision read by
//! hand). Fails on a finding or entry nobody labelled, a label no finding or entry answers
//! any more, an error labelled anything but true, a wrong status, a labelled bank missing
//! from the corpus, or a figure under 95 % (entries labelled not a decision are printed
//! and count against precision). Skipped with a notice without the corpus.
use crate::common;
use crate::common::decision_labels;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

/// The least share of labelled findings that must be true.
const MIN_PRECISION: f64 = 0.95;

#[derive(Debug, Deserialize)]
struct Labels {
    finding: Vec<FindingLabel>,
}

#[derive(Debug, Deserialize)]
struct FindingLabel {
    project: String,
    severity: String,
    code: String,
    file: String,
    line: Option<u64>,
    message: String,
    label: Verdict,
    why: String,
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum Verdict {
    True,
    False,
    WrongRule,
    Artifact,
}

/// One finding of the check's JSON, with its file relative to its project.
#[derive(Debug)]
struct Seen {
    project: String,
    severity: String,
    code: String,
    file: String,
    line: Option<u64>,
    message: String,
}

fn labels() -> Labels {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/corpus_labels.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn matches(label: &FindingLabel, seen: &Seen) -> bool {
    label.project == seen.project
        && label.code == seen.code
        && label.file == seen.file
        && label.line == seen.line
        && seen.message.contains(&label.message)
}

fn findings_of_check(root: &Path) -> Vec<Seen> {
    let sandbox = common::Sandbox::new();
    let check = sandbox.run(&["check", "--json", "--root", root.to_str().unwrap()]);
    assert!(check.code == 0 || check.code == 1, "{}", check.stderr);
    let json = check.json();
    let mut out = Vec::new();
    for project in json["projects"].as_array().unwrap() {
        let name = project["name"].as_str().unwrap();
        let path = project["path"].as_str().unwrap();
        for f in project["findings"].as_array().unwrap() {
            let file = f["file"].as_str().unwrap_or_default();
            let file = if file == path {
                ".".to_string()
            } else {
                file.strip_prefix(path)
                    .map(|rel| rel.trim_start_matches('/').to_string())
                    .unwrap_or_else(|| file.to_string())
            };
            out.push(Seen {
                project: name.to_string(),
                severity: f["severity"].as_str().unwrap().to_string(),
                code: f["code"].as_str().unwrap().to_string(),
                file,
                line: f["line"].as_u64(),
                message: f["message"].as_str().unwrap().to_string(),
            });
        }
    }
    out
}

#[test]
fn every_corpus_finding_is_labelled_and_precision_holds() {
    let Some(root) = common::corpus_root() else {
        return;
    };
    let mut labels = labels();
    common::notice_absent_added_banks(&root, "finding labels");
    labels
        .finding
        .retain(|l| common::labels_apply(&root, &l.project));
    for label in &labels.finding {
        assert!(
            !label.why.trim().is_empty(),
            "a label without a reason: {label:?}"
        );
    }
    let seen = findings_of_check(&root);
    let mut unlabelled = Vec::new();
    let mut answered = vec![0usize; labels.finding.len()];
    let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
    let mut false_errors = Vec::new();
    for finding in &seen {
        let hits: Vec<usize> = (0..labels.finding.len())
            .filter(|&i| matches(&labels.finding[i], finding))
            .collect();
        let [index] = hits[..] else {
            unlabelled.push(format!("{finding:?} (labels matching: {})", hits.len()));
            continue;
        };
        answered[index] += 1;
        let label = &labels.finding[index];
        assert_eq!(
            label.severity, finding.severity,
            "the severity changed for {finding:?}"
        );
        let verdict = match label.label {
            Verdict::True => "true",
            Verdict::False => "false",
            Verdict::WrongRule => "wrong-rule",
            Verdict::Artifact => "artifact",
        };
        *tally.entry(verdict).or_default() += 1;
        if finding.severity == "error" && label.label != Verdict::True {
            false_errors.push(format!("{finding:?}: {}", label.why));
        }
    }
    assert!(
        unlabelled.is_empty(),
        "findings nobody labelled (read them, then label them in corpus_labels.toml):\n{}",
        unlabelled.join("\n")
    );
    let unanswered: Vec<&FindingLabel> = labels
        .finding
        .iter()
        .zip(&answered)
        .filter(|(_, n)| **n == 0)
        .map(|(l, _)| l)
        .collect();
    assert!(
        unanswered.is_empty(),
        "labels no finding answers any more (remove them if the finding is rightly gone):\n{unanswered:#?}"
    );
    assert!(
        false_errors.is_empty(),
        "errors not labelled true: {false_errors:#?}"
    );
    let count = |v: &str| tally.get(v).copied().unwrap_or(0);
    let judged = count("true") + count("false") + count("wrong-rule");
    let precision = count("true") as f64 / judged.max(1) as f64;
    eprintln!(
        "corpus precision: {} true of {judged} judged findings = {:.1} % ({} false, {} wrong-rule; {} artifacts of the corpus copy counted apart)",
        count("true"),
        precision * 100.0,
        count("false"),
        count("wrong-rule"),
        count("artifact"),
    );
    assert!(
        precision >= MIN_PRECISION,
        "precision {:.1} % under {:.0} %: {tally:?}",
        precision * 100.0,
        MIN_PRECISION * 100.0
    );
}

/// The least share of timeline entries that must be decisions, of labelled decisions that
/// must be found, and of found decisions whose status must be the labelled one.
const MIN_DECISION_SHARE: f64 = 0.95;

#[test]
fn every_corpus_timeline_entry_is_labelled_and_decisions_hold() {
    let Some(root) = common::corpus_root() else {
        return;
    };
    let mut labels = decision_labels::read_labels(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/corpus_decision_labels.toml"),
    );
    common::notice_absent_added_banks(&root, "decision labels");
    labels.retain(|l| common::labels_apply(&root, &l.project));
    let seen = decision_labels::timeline_entries(&root);
    let score = decision_labels::score(&root, &labels, &seen);
    let folders = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .count();
    let labelled: std::collections::BTreeSet<&str> =
        labels.iter().map(|l| l.project.as_str()).collect();
    eprintln!(
        "{} ({} of {folders} corpus banks have no decision content and are skipped)",
        score.summary("corpus timeline"),
        folders.saturating_sub(labelled.len()),
    );
    assert!(
        score.absent_projects.is_empty(),
        "labelled banks missing from the corpus at {}: {:?}",
        root.display(),
        score.absent_projects
    );
    assert!(
        score.unlabelled.is_empty(),
        "timeline entries nobody labelled (read them, then label them in corpus_decision_labels.toml):\n{}",
        score.unlabelled.join("\n")
    );
    for entry in &score.false_entries {
        eprintln!("  labelled not a decision: {entry}");
    }
    assert!(
        score.false_labels.is_empty(),
        "entries labelled not a decision that the timeline no longer shows (remove the labels if rightly gone):\n{}",
        score.false_labels.join("\n")
    );
    assert!(
        score.wrong_status.is_empty(),
        "decisions with a wrong status:\n{}",
        score.wrong_status.join("\n")
    );
    for (figure, value) in [
        ("precision", score.precision()),
        ("recall", score.recall()),
        ("status accuracy", score.status_accuracy()),
    ] {
        assert!(
            value >= MIN_DECISION_SHARE,
            "decision {figure} {:.1} % under {:.0} %; missed:\n{}",
            value * 100.0,
            MIN_DECISION_SHARE * 100.0,
            score.missed.join("\n")
        );
    }
}
