//! What each agent loads at session start in each corpus project, against the sessions in
//! `context_labels.toml` (every one checked by hand against that agent's documentation,
//! which its `doc` line names). Fails on a session nobody labelled, a labelled session
//! that is gone, or a session that loads other files than the label lists. Skipped with a
//! notice without the corpus.
use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Deserialize;

#[derive(Debug, Deserialize)]
struct Labels {
    session: Vec<SessionLabel>,
}

#[derive(Debug, Deserialize)]
struct SessionLabel {
    project: String,
    agent: String,
    files: Vec<String>,
    doc: String,
}

fn labels() -> Labels {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/context_labels.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every session of `mbank context --json` over `root`: (project, agent) → the files it
/// loads, as shown (relative to the project).
fn sessions_of_context(root: &Path) -> BTreeMap<(String, String), Vec<String>> {
    let sandbox = common::Sandbox::new();
    let context = sandbox.run(&["context", "--json", "--root", root.to_str().unwrap()]);
    assert_eq!(context.code, 0, "{}", context.stderr);
    let json = context.json();
    let mut out = BTreeMap::new();
    for project in json["projects"].as_array().unwrap() {
        let name = project["name"].as_str().unwrap();
        for session in project["sessions"].as_array().unwrap() {
            let agent = session["agent"].as_str().unwrap();
            let files = session["banks"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|bank| bank["pieces"].as_array().unwrap())
                .map(|piece| piece["display"].as_str().unwrap().to_string())
                .collect();
            out.insert((name.to_string(), agent.to_string()), files);
        }
    }
    out
}

#[test]
fn every_agents_session_start_in_the_corpus_matches_its_documentation() {
    let Some(root) = common::corpus_root() else {
        return;
    };
    let labels = labels();
    common::notice_absent_added_banks(&root, "session labels");
    let mut labelled = BTreeMap::new();
    for label in labels
        .session
        .iter()
        .filter(|l| common::labels_apply(&root, &l.project))
    {
        assert!(
            !label.doc.trim().is_empty(),
            "a session label without its documentation: {label:?}"
        );
        let key = (label.project.clone(), label.agent.clone());
        assert!(
            labelled.insert(key, &label.files).is_none(),
            "labelled twice: {} / {}",
            label.project,
            label.agent
        );
    }
    let seen = sessions_of_context(&root);
    let mut problems = Vec::new();
    for ((project, agent), files) in &seen {
        let Some(expected) = labelled.get(&(project.clone(), agent.clone())) else {
            problems.push(format!(
                "unlabelled session: {project} / {agent} loads {files:?}"
            ));
            continue;
        };
        let expected: BTreeSet<&String> = expected.iter().collect();
        let loaded: BTreeSet<&String> = files.iter().collect();
        if expected != loaded {
            let missing: Vec<_> = expected.difference(&loaded).collect();
            let extra: Vec<_> = loaded.difference(&expected).collect();
            problems.push(format!(
                "{project} / {agent}: not loaded {missing:?}; loaded beyond the label {extra:?}"
            ));
        }
    }
    for (project, agent) in labelled.keys() {
        if !seen.contains_key(&(project.clone(), agent.clone())) {
            problems.push(format!("labelled session is gone: {project} / {agent}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    println!(
        "corpus sessions: {} agent sessions in {} projects match their labels",
        seen.len(),
        seen.keys().map(|(p, _)| p).collect::<BTreeSet<_>>().len()
    );
}
