//! The Infinity format's store, checked as a whole: `memories.json` present, readable,
//! well-formed and within the schema, and the `project_id` file agreeing with it.

use std::borrow::Cow;
use std::path::Path;

use crate::findings::{Finding, FindingCode, Severity};
use crate::formats::infinity;
use crate::formats::infinity::store::ParsedStore;
use crate::io::text;
use crate::model::Bank;

fn infinity_issue_severity(message: &str) -> Severity {
    // Problems that make a memory unreachable or the store unusable are errors; cosmetic
    // schema drift (a title, a type, a timestamp) only warnings.
    let fatal = [
        "must be a JSON object",
        "missing array field",
        "is not an object",
        "has no string \"id\"",
        "duplicate memory id",
        "no string \"content\"",
    ];
    if fatal.iter().any(|f| message.contains(f)) {
        Severity::Error
    } else {
        Severity::Warning
    }
}

pub(super) fn check_infinity(bank: &Bank, out: &mut Vec<Finding>) {
    let store = bank.root.join(infinity::STORE_FILE);
    // A store behind a link out of the project is never read (its finding says so).
    if bank.reaches_outside(&store) {
        return;
    }
    // The parse made while listing, else the store read and parsed here.
    let parsed = match bank.parsed_store.as_deref() {
        Some(parsed) => Cow::Borrowed(parsed),
        None => match read_and_parse(&bank.root, &store) {
            Ok(parsed) => Cow::Owned(parsed),
            Err(finding) => {
                out.push(*finding);
                return;
            }
        },
    };
    for issue in &parsed.issues {
        out.push(Finding::new(
            infinity_issue_severity(&issue.message),
            FindingCode::InfinitySchema,
            &store,
            Some(issue.line),
            issue.message.clone(),
        ));
    }
    let parsed = &parsed.store;
    let id_file = bank.root.join(infinity::PROJECT_ID_FILE);
    if bank.reaches_outside(&id_file) {
        return;
    }
    match text::read_text_limited(&id_file, 4096) {
        Ok(id) => {
            let id = id.trim();
            if let Some(store_id) = &parsed.project_id
                && store_id != id
            {
                out.push(Finding::new(
                    Severity::Warning,
                    FindingCode::InfinityProjectIdMismatch,
                    &id_file,
                    Some(1),
                    format!(
                        "{} file says {id:?} but {} says {store_id:?}",
                        infinity::PROJECT_ID_FILE,
                        infinity::STORE_FILE
                    ),
                ));
            }
        }
        Err(_) => out.push(Finding::new(
            Severity::Warning,
            FindingCode::InfinityProjectIdMissing,
            &bank.root,
            None,
            "project_id is missing or unreadable: activate_project will mint a new project id",
        )),
    }
}

/// The store read and parsed, or the one finding that says why it cannot be checked.
fn read_and_parse(bank_root: &Path, store: &Path) -> Result<ParsedStore, Box<Finding>> {
    if !store.exists() {
        return Err(Box::new(Finding::new(
            Severity::Error,
            FindingCode::InfinityStoreMissing,
            bank_root,
            None,
            format!(
                "{} is missing: the agent finds no memories",
                infinity::STORE_FILE
            ),
        )));
    }
    // Read up to the limit mbank also writes to, so what it wrote it reads back.
    let text =
        text::read_text_limited(store, infinity::store::MAX_STORE_BYTES as u64).map_err(|e| {
            Box::new(Finding::new(
                Severity::Error,
                FindingCode::UnreadableFile,
                store,
                None,
                format!("the store cannot be read: {e}"),
            ))
        })?;
    match infinity::store::parse_store(&text) {
        Ok((store, issues)) => Ok(ParsedStore { store, issues }),
        Err(infinity::store::JsonSyntaxError {
            limit: Some(limit), ..
        }) => Err(Box::new(limit.finding(
            Severity::Error,
            store,
            "its memories are not listed or checked",
        ))),
        Err(e) => Err(Box::new(Finding::new(
            Severity::Error,
            FindingCode::InfinityJson,
            store,
            Some(e.line),
            format!(
                "malformed JSON at line {}, column {}: {}",
                e.line, e.column, e.message
            ),
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::bank::list_banks;
    use crate::scan::discovery;

    #[test]
    fn the_parse_made_while_listing_gives_the_findings_a_fresh_read_gives() {
        let dir = tempfile::tempdir().unwrap();
        let store_dir = dir.path().join(".infinity");
        std::fs::create_dir_all(&store_dir).unwrap();
        let store = store_dir.join("memories.json");
        std::fs::write(
            &store,
            r##"{"project_id": "in-store", "memories": [
  {"id": "a", "title": "A", "type": "design_doc", "content": "x"},
  {"id": "a", "title": "Again", "type": "no_such_type", "content": "y"},
  {"title": "No id", "type": "rules", "content": "z"}
]}"##,
        )
        .unwrap();
        std::fs::write(store_dir.join("project_id"), "in-file\n").unwrap();
        let project = discovery::project_at(dir.path(), "p".into()).unwrap();
        let mut bank = list_banks(&project).remove(0);
        assert!(bank.parsed_store.is_some());
        let mut listed = Vec::new();
        check_infinity(&bank, &mut listed);
        let codes: Vec<FindingCode> = listed.iter().map(|f| f.code).collect();
        assert!(codes.contains(&FindingCode::InfinitySchema), "{codes:?}");
        assert!(
            codes.contains(&FindingCode::InfinityProjectIdMismatch),
            "{codes:?}"
        );

        let parse = bank.parsed_store.take();
        let mut read = Vec::new();
        check_infinity(&bank, &mut read);
        assert_eq!(format!("{read:?}"), format!("{listed:?}"));

        // With the listed parse, the store is not read again: a store broken since
        // listing changes nothing until it is listed again.
        std::fs::write(&store, "{ broken").unwrap();
        bank.parsed_store = parse;
        let mut again = Vec::new();
        check_infinity(&bank, &mut again);
        assert_eq!(format!("{again:?}"), format!("{listed:?}"));
        bank.parsed_store = None;
        let mut broken = Vec::new();
        check_infinity(&bank, &mut broken);
        assert_eq!(broken.len(), 1);
        assert_eq!(broken[0].code, FindingCode::InfinityJson);
    }
}
