//! The core's modules import one another without circles: a module-level graph of
//! `crates/mbank-core/src` (its top-level modules, and the sub-modules of `analysis` and `formats`)
//! read from the `crate::…` and `super::…` paths of the sources, tests left out.
//! Formats are the bottom layer the analysis judges with, so a circle between them means
//! shared vocabulary sits in the wrong place. The same holds between the files of one
//! room: each file is a module, and no two of them may need each other.
use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Families whose sub-modules are nodes of their own.
const SPLIT: [&str; 2] = ["analysis", "formats"];

/// The module path of a source file below the core's `src`: `analysis/budgets.rs` →
/// `[analysis, budgets]`, `formats/mod.rs` → `[formats]`, `lib.rs` → `[]`.
fn module_of(core: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(core).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") || parts == ["lib"] {
        parts.pop();
    }
    parts
}

/// The graph node a module path belongs to.
fn node(parts: &[String]) -> Option<String> {
    let first = parts.first()?;
    match parts.get(1) {
        Some(second) if SPLIT.contains(&first.as_str()) => Some(format!("{first}::{second}")),
        _ => Some(first.clone()),
    }
}

/// The source without its test modules and comment lines (doc links are not imports).
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]")
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod tests"))
        {
            break;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        code.push_str(line);
        code.push('\n');
    }
    code
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The module paths a piece of code names: each `crate::a::b` and `super::a`
/// (resolved from `module`), with `{a, b::c}` groups opened one level.
fn referenced(module: &[String], code: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while at < code.len() {
        let rest = &code[at..];
        let starts_word = at == 0 || !is_ident(bytes[at - 1] as char);
        let (base, consumed) = if starts_word && rest.starts_with("crate::") {
            (Vec::new(), "crate::".len())
        } else if starts_word && rest.starts_with("super::") {
            let mut base = module.to_vec();
            let mut consumed = 0;
            while code[at + consumed..].starts_with("super::") {
                base.pop();
                consumed += "super::".len();
            }
            (base, consumed)
        } else {
            at += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let tail = &code[at + consumed..];
        if let Some(group) = tail.strip_prefix('{') {
            let inner = group.split('}').next().unwrap_or("");
            for item in inner.split(',') {
                let path = path_prefix(item.trim());
                if !path.is_empty() {
                    found.push(base.iter().cloned().chain(path).collect());
                }
            }
        } else {
            let path = path_prefix(tail);
            found.push(base.into_iter().chain(path).collect());
        }
        at += consumed;
    }
    found
}

/// The leading `a::b::c` of a path, in parts.
fn path_prefix(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut rest = text;
    loop {
        let end = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        parts.push(rest[..end].to_string());
        match rest[end..].strip_prefix("::") {
            Some(more) if more.starts_with(|c: char| is_ident(c)) => rest = more,
            _ => break,
        }
    }
    parts
}

/// Edges between nodes, leaving out a module's edges into its own sub-modules (a family's
/// `mod.rs` registering its members is the module tree, not a circle); a member's edge up
/// to its family's top (`super::FormatRules`) stays.
fn core_graph(core: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    common::rust_files(core, &mut files);
    let known: BTreeSet<String> = files
        .iter()
        .filter_map(|f| node(&module_of(core, f)))
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(core, file);
        let Some(from) = node(&module) else { continue };
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        for path in referenced(&module, &code) {
            // `crate::formats::Budget` names the `formats` node; a type at a
            // family's top is its `mod.rs`.
            let Some(mut to) = node(&path) else { continue };
            if !known.contains(&to) {
                to = path[0].clone();
            }
            let into_own_member = to == from || to.starts_with(&format!("{from}::"));
            if !into_own_member && known.contains(&to) {
                graph.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    graph
}

/// Edges between the core's files (each a module: `agent/bank.rs` is `agent::bank`, a
/// `mod.rs` its folder's module), a path resolved to the longest module it names. As in
/// [`core_graph`], a module's edges into its own sub-modules are the module tree, not
/// imports.
fn file_graph(core: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    common::rust_files(core, &mut files);
    let known: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(core, f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(core, file);
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        for path in referenced(&module, &code) {
            let Some(to) = (1..=path.len())
                .rev()
                .map(|len| path[..len].to_vec())
                .find(|prefix| known.contains(prefix))
            else {
                continue;
            };
            if to.starts_with(&module) {
                continue;
            }
            graph
                .entry(module.join("::"))
                .or_default()
                .insert(to.join("::"));
        }
    }
    graph
}

/// Every circle of the graph, as its strongly connected components of two or more nodes.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let reach = |start: &String| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start.clone()];
        while let Some(node) = stack.pop() {
            for next in graph.get(&node).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reachable: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|n| (n, reach(n))).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    for (node, from_here) in &reachable {
        if !from_here.contains(*node) {
            continue;
        }
        let mut component: Vec<String> = from_here
            .iter()
            .filter(|other| reachable.get(other).is_some_and(|r| r.contains(*node)))
            .cloned()
            .collect();
        component.sort();
        if !out.contains(&component) {
            out.push(component);
        }
    }
    out
}

#[test]
fn the_core_modules_import_one_another_without_circles() {
    let core = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/mbank-core/src");
    let graph = core_graph(&core);
    // The reader sees the modules it must: formats use the model, analysis uses formats.
    assert!(graph["analysis::budgets"].contains("formats"), "{graph:?}");
    assert!(graph["formats::cline"].contains("model"), "{graph:?}");
    let shown = shown_circles(&graph);
    assert!(shown.is_empty(), "import circles in mbank-core: {shown:#?}");
}

/// The circles of a graph, each shown as its edges.
fn shown_circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    circles(graph)
        .iter()
        .map(|component| {
            let edges: Vec<String> = component
                .iter()
                .flat_map(|a| {
                    graph[a]
                        .iter()
                        .filter(|b| component.contains(b))
                        .map(move |b| format!("{a} → {b}"))
                })
                .collect();
            edges.join(", ")
        })
        .collect()
}

#[test]
fn the_core_files_import_one_another_without_circles() {
    let core = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/mbank-core/src");
    let graph = file_graph(&core);
    // The reader resolves files inside a room and up to a room's top.
    assert!(graph["analysis::budgets"].contains("formats"), "{graph:?}");
    assert!(graph["formats::cline"].contains("model"), "{graph:?}");
    let shown = shown_circles(&graph);
    assert!(
        shown.is_empty(),
        "import circles between files of mbank-core: {shown:#?}"
    );
}

#[test]
fn the_file_reader_finds_circles_between_files_of_one_room() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "agent/mod.rs",
        "pub mod bank;\npub mod store;\nuse bank::X;\n",
    );
    write(
        "agent/bank.rs",
        "use super::store::{Y, Z};\npub struct X;\n",
    );
    write(
        "agent/store.rs",
        "use crate::agent::bank::X;\nuse super::W;\n",
    );
    write("agent/quiet.rs", "use super::bank::X;\n");
    let graph = file_graph(dir.path());
    assert_eq!(
        graph["agent::store"],
        BTreeSet::from(["agent".to_string(), "agent::bank".to_string()])
    );
    assert!(!graph.contains_key("agent"), "{graph:?}");
    assert_eq!(
        circles(&graph),
        vec![vec!["agent::bank".to_string(), "agent::store".to_string()]]
    );
}

#[test]
fn the_import_reader_finds_circles_and_resolves_super_and_groups() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("model.rs", "use super::{paths, text::counted};\n");
    write("paths.rs", "pub fn p() {}\n");
    write("text.rs", "use crate::model::X;\n");
    write("formats/mod.rs", "pub mod cline;\n");
    write(
        "formats/cline.rs",
        "use super::Placement;\nuse crate::analysis::budgets::Unit;\n",
    );
    write(
        "analysis/budgets.rs",
        "// crate::scan is only named in a comment\nuse crate::formats::cline::X;\n\
         #[cfg(test)]\nmod tests {\n    use crate::scan::x;\n}\n",
    );
    write("scan/mod.rs", "pub fn s() {}\n");
    let graph = core_graph(dir.path());
    assert_eq!(
        graph["model"],
        BTreeSet::from(["paths".to_string(), "text".to_string()])
    );
    assert_eq!(
        graph["formats::cline"],
        BTreeSet::from(["analysis::budgets".to_string(), "formats".to_string()])
    );
    assert_eq!(
        graph["analysis::budgets"],
        BTreeSet::from(["formats::cline".to_string()])
    );
    assert!(!graph.contains_key("formats"), "{graph:?}");
    let found = circles(&graph);
    assert_eq!(
        found,
        vec![
            vec![
                "analysis::budgets".to_string(),
                "formats::cline".to_string()
            ],
            vec!["model".to_string(), "text".to_string()],
        ]
    );
}
