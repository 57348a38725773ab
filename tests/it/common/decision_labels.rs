//! Timeline entries scored against labels read by hand, entry by entry: the shared part of
//! the corpus and held-out decision tests. A label names a project, a file (relative to the
//! project), a line, whether the entry there is a decision, and the status it states.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::Sandbox;

#[derive(Debug, Deserialize)]
pub struct LabelFile {
    pub entry: Vec<EntryLabel>,
}

#[derive(Debug, Deserialize, Clone)]
pub struct EntryLabel {
    pub project: String,
    pub file: String,
    pub line: usize,
    pub title: String,
    pub decision: bool,
    pub status: Option<String>,
    pub why: String,
}

/// One timeline entry as `timeline --json` gives it, its file relative to its project.
#[derive(Debug, Clone)]
pub struct SeenEntry {
    pub project: String,
    pub file: String,
    pub line: usize,
    pub end_line: usize,
    pub title: String,
    pub status: String,
    pub kind: Option<String>,
}

/// What the entries of a root scored against their labels.
#[derive(Debug, Default)]
pub struct Score {
    /// Entries shown as decisions, and as events.
    pub entries: usize,
    pub events: usize,
    pub true_entries: usize,
    pub false_entries: Vec<String>,
    pub unlabelled: Vec<String>,
    pub labelled_decisions: usize,
    pub found_decisions: usize,
    pub missed: Vec<String>,
    /// Labels of entries that are not decisions which no entry answers any more.
    pub false_labels: Vec<String>,
    pub status_right: usize,
    pub wrong_status: Vec<String>,
    /// Projects with labels but no folder under the root.
    pub absent_projects: Vec<String>,
}

impl Score {
    pub fn precision(&self) -> f64 {
        self.true_entries as f64 / self.entries.max(1) as f64
    }
    pub fn recall(&self) -> f64 {
        self.found_decisions as f64 / self.labelled_decisions.max(1) as f64
    }
    pub fn status_accuracy(&self) -> f64 {
        self.status_right as f64 / self.true_entries.max(1) as f64
    }
    pub fn summary(&self, what: &str) -> String {
        format!(
            "{what}: {} entries shown as decisions (and {} as events), {} decisions among them (precision {:.1} %), {} of {} labelled decisions found (recall {:.1} %), {} of {} statuses right ({:.1} %), {} unlabelled, {} labelled projects absent",
            self.entries,
            self.events,
            self.true_entries,
            self.precision() * 100.0,
            self.found_decisions,
            self.labelled_decisions,
            self.recall() * 100.0,
            self.status_right,
            self.true_entries,
            self.status_accuracy() * 100.0,
            self.unlabelled.len(),
            self.absent_projects.len(),
        )
    }
}

pub fn read_labels(path: &Path) -> Vec<EntryLabel> {
    let text = std::fs::read_to_string(path).unwrap();
    let labels: LabelFile =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for label in &labels.entry {
        assert!(
            !label.why.trim().is_empty(),
            "a label without a reason: {label:?}"
        );
        assert_eq!(
            label.decision,
            label.status.is_some(),
            "a decision label needs a status, and only a decision has one: {label:?}"
        );
    }
    labels.entry
}

/// Every timeline entry `mbank timeline --json --root ROOT` gives.
pub fn timeline_entries(root: &Path) -> Vec<SeenEntry> {
    let sandbox = Sandbox::new();
    let timeline = sandbox.run(&["timeline", "--json", "--root", root.to_str().unwrap()]);
    timeline.expect_code(0);
    let mut out = Vec::new();
    for project in timeline.json()["projects"].as_array().unwrap() {
        let name = project["name"].as_str().unwrap();
        let path = PathBuf::from(project["path"].as_str().unwrap());
        for d in project["decisions"].as_array().into_iter().flatten() {
            let file = PathBuf::from(d["file"].as_str().unwrap());
            let file = file
                .strip_prefix(&path)
                .map(|rel| rel.to_string_lossy().into_owned())
                .unwrap_or_else(|_| file.to_string_lossy().into_owned());
            out.push(SeenEntry {
                project: name.to_string(),
                file,
                line: d["line"].as_u64().unwrap() as usize,
                end_line: d["end_line"].as_u64().unwrap() as usize,
                title: d["title"].as_str().unwrap().to_string(),
                status: d["status"].as_str().unwrap().to_string(),
                kind: d["kind"].as_str().map(str::to_string),
            });
        }
    }
    out
}

/// Scores the entries: each is matched to the label on its first line, else to the first
/// label inside its span; a decision label no entry answers is a missed decision.
pub fn score(root: &Path, labels: &[EntryLabel], seen: &[SeenEntry]) -> Score {
    let mut score = Score::default();
    let mut by_file: BTreeMap<(&str, &str), Vec<usize>> = BTreeMap::new();
    for (index, label) in labels.iter().enumerate() {
        by_file
            .entry((label.project.as_str(), label.file.as_str()))
            .or_default()
            .push(index);
    }
    let mut answered = vec![false; labels.len()];
    for entry in seen {
        let candidates = by_file
            .get(&(entry.project.as_str(), entry.file.as_str()))
            .cloned()
            .unwrap_or_default();
        let hit = candidates
            .iter()
            .copied()
            .find(|&i| labels[i].line == entry.line)
            .or_else(|| {
                candidates.iter().copied().find(|&i| {
                    !answered[i] && labels[i].line > entry.line && labels[i].line <= entry.end_line
                })
            });
        let Some(index) = hit else {
            score.unlabelled.push(format!("{entry:?}"));
            continue;
        };
        if entry.kind.as_deref() != Some("event") {
            score.entries += 1;
        }
        answered[index] = true;
        let label = &labels[index];
        // An entry shown as an event claims no decision: right when it is none, a missed
        // decision when it is one.
        if entry.kind.as_deref() == Some("event") {
            score.events += 1;
            if label.decision {
                answered[index] = false;
            }
            continue;
        }
        if !label.decision {
            score
                .false_entries
                .push(format!("{entry:?}: {}", label.why));
            continue;
        }
        score.true_entries += 1;
        if label.status.as_deref() == Some(entry.status.as_str()) {
            score.status_right += 1;
        } else {
            score.wrong_status.push(format!(
                "{entry:?}: labelled {:?} ({})",
                label.status, label.why
            ));
        }
    }
    let mut present = BTreeMap::new();
    for label in labels {
        let there = *present
            .entry(label.project.as_str())
            .or_insert_with(|| root.join(&label.project).is_dir());
        if !there {
            continue;
        }
        if label.decision {
            score.labelled_decisions += 1;
        }
    }
    for (label, done) in labels.iter().zip(&answered) {
        if !label.decision && !*done && present.get(label.project.as_str()) == Some(&true) {
            score.false_labels.push(format!(
                "{} {}:{} {}",
                label.project, label.file, label.line, label.title
            ));
        }
        if label.decision && present.get(label.project.as_str()) == Some(&true) {
            if *done {
                score.found_decisions += 1;
            } else {
                score.missed.push(format!(
                    "{} {}:{} {}",
                    label.project, label.file, label.line, label.title
                ));
            }
        }
    }
    score.absent_projects = present
        .into_iter()
        .filter(|(_, there)| !there)
        .map(|(name, _)| name.to_string())
        .collect();
    score
}
