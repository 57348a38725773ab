//! The Infinity format's store, checked as a whole: `memories.json` present, readable,
//! well-formed and within the schema, and the `project_id` file agreeing with it.

use crate::findings::{Finding, FindingCode, Severity};
use crate::formats::infinity;
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
    if !store.exists() {
        out.push(Finding::new(
            Severity::Error,
            FindingCode::InfinityStoreMissing,
            &bank.root,
            None,
            format!(
                "{} is missing: the agent finds no memories",
                infinity::STORE_FILE
            ),
        ));
        return;
    }
    // Read up to the limit mbank also writes to, so what it wrote it reads back.
    let text = match text::read_text_limited(&store, infinity::store::MAX_STORE_BYTES as u64) {
        Ok(t) => t,
        Err(e) => {
            out.push(Finding::new(
                Severity::Error,
                FindingCode::UnreadableFile,
                &store,
                None,
                format!("the store cannot be read: {e}"),
            ));
            return;
        }
    };
    let (parsed, issues) = match infinity::store::parse_store(&text) {
        Ok(parsed) => parsed,
        Err(infinity::store::JsonSyntaxError {
            limit: Some(limit), ..
        }) => {
            out.push(limit.finding(
                Severity::Error,
                &store,
                "its memories are not listed or checked",
            ));
            return;
        }
        Err(e) => {
            out.push(Finding::new(
                Severity::Error,
                FindingCode::InfinityJson,
                &store,
                Some(e.line),
                format!(
                    "malformed JSON at line {}, column {}: {}",
                    e.line, e.column, e.message
                ),
            ));
            return;
        }
    };
    for issue in issues {
        out.push(Finding::new(
            infinity_issue_severity(&issue.message),
            FindingCode::InfinitySchema,
            &store,
            Some(issue.line),
            issue.message,
        ));
    }
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
