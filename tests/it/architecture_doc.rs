//! docs/ARCHITECTURE.md quotes the module maps (the `//!` documentation at the top of a
//! crate or module) under each `*From `path`.*` line: a quoted map must be what its file
//! says today, and a quoted file must exist. `UPDATE_DOCS=1 cargo test --test it
//! architecture_doc` rewrites the quotes from the files.
use std::fs;
use std::path::Path;

const DOC: &str = "docs/ARCHITECTURE.md";
const MARK_START: &str = "*From `";
const MARK_END: &str = "`.*";

/// The `//!` lines at the top of `source`, as markdown: rustdoc's links become their
/// text and headings move under the section (`level` `#`s) that quotes them.
fn module_map(source: &str, level: usize) -> String {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in source.lines() {
        let Some(rest) = line.strip_prefix("//!") else {
            if line.trim().is_empty() && out.is_empty() {
                continue;
            }
            break;
        };
        let text = rest.strip_prefix(' ').unwrap_or(rest);
        if text.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        if !in_fence && text.starts_with('#') {
            out.push(format!("{}{text}", "#".repeat(level)));
        } else if in_fence {
            out.push(text.to_string());
        } else {
            out.push(plain_links(text));
        }
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out.join("\n")
}

/// `[text](path::to)` and `[`Item`]` as rustdoc writes them become `text` and `` `Item` ``;
/// web and file links (`https://…`, `*.md`) stay links.
fn plain_links(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let text = &after[..close];
        let tail = &after[close + 1..];
        if let Some(target) = tail.strip_prefix('(')
            && let Some(end) = target.find(')')
        {
            let url = &target[..end];
            if url.contains("://") || url.contains(".md") || url.starts_with('#') {
                out.push_str(&rest[open..open + 1 + close + 1 + 1 + end + 1]);
            } else {
                out.push_str(text);
            }
            rest = &target[end + 1..];
        } else if text.starts_with('`') && text.ends_with('`') && !tail.starts_with('[') {
            out.push_str(text);
            rest = tail;
        } else {
            out.push('[');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The document with every quote rewritten from its file, or the files it names that
/// do not exist.
fn rendered(root: &Path, doc: &str) -> Result<String, Vec<String>> {
    let lines: Vec<&str> = doc.lines().collect();
    let is_heading = |l: &str| l.starts_with('#');
    let mut out: Vec<String> = Vec::new();
    let mut missing = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        out.push(line.to_string());
        i += 1;
        let Some(path) = line
            .strip_prefix(MARK_START)
            .and_then(|l| l.strip_suffix(MARK_END))
        else {
            continue;
        };
        let level = out
            .iter()
            .rev()
            .find(|l| is_heading(l))
            .map_or(1, |h| h.chars().take_while(|c| *c == '#').count());
        // The quote runs to the next section that quotes a file of its own, or to the next
        // heading of the quoting section's level or above.
        let mut end = i;
        while end < lines.len() {
            let l = lines[end];
            let depth = l.chars().take_while(|c| *c == '#').count();
            let quotes_its_own = lines
                .get(end + 2)
                .is_some_and(|next| next.starts_with(MARK_START));
            if depth > 0 && l[depth..].starts_with(' ') && (depth <= level || quotes_its_own) {
                break;
            }
            end += 1;
        }
        match fs::read_to_string(root.join(path)) {
            Ok(source) => {
                out.push(String::new());
                out.push(module_map(&source, level));
                out.push(String::new());
            }
            Err(_) => {
                missing.push(path.to_string());
                out.extend(lines[i..end].iter().map(|l| l.to_string()));
            }
        }
        i = end;
    }
    if missing.is_empty() {
        Ok(out.join("\n") + "\n")
    } else {
        Err(missing)
    }
}

#[test]
fn architecture_doc_quotes_the_module_maps_as_they_are() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join(DOC);
    let committed = fs::read_to_string(&path).unwrap();
    let expected = match rendered(root, &committed) {
        Ok(text) => text,
        Err(missing) => panic!("{DOC} quotes files that do not exist: {missing:?}"),
    };
    if std::env::var_os("UPDATE_DOCS").is_some_and(|v| v == "1") {
        fs::write(&path, &expected).unwrap();
    }
    let committed = fs::read_to_string(&path).unwrap();
    assert!(
        committed == expected,
        "{DOC} quotes module maps that have changed; regenerate it with \
         `UPDATE_DOCS=1 cargo test --test it architecture_doc` and commit it"
    );
}

#[test]
fn rustdoc_links_become_their_text_and_headings_move_under_the_section() {
    let source = "//! The [`Format`] and [`place`](FormatRules::place).\n\
                  //! See [the guide](GUIDE.md) and [docs](https://x.org).\n\
                  //!\n//! # How to\n//! ```\n//! # not a heading\n//! ```\nuse x;\n";
    assert_eq!(
        module_map(source, 3),
        "The `Format` and `place`.\nSee [the guide](GUIDE.md) and [docs](https://x.org).\n\n\
         #### How to\n```\n# not a heading\n```"
    );
}
