//! A bank's structure: the required and recommended files of its format (present, held
//! under a variant name, or missing), two spellings of one core file, ConKeeper's folders,
//! and a folder that holds no markdown at its top at all.

use std::collections::HashMap;

use super::at_bank_top;
use crate::core::findings::{Finding, Severity};
use crate::core::formats::{self, ExpectedFiles};
use crate::core::model::{Bank, Format, LoadKind, MemoryFile, Role};

/// "1 file", "37 files".
fn files_phrase(n: usize) -> String {
    if n == 1 {
        "1 file".to_string()
    } else {
        format!("{n} files")
    }
}

pub(super) fn check_required(bank: &Bank, out: &mut Vec<Finding>) {
    let ExpectedFiles {
        required,
        recommended,
    } = formats::rules(bank.format).expected_files(bank);
    let present: Vec<&MemoryFile> = bank
        .files
        .iter()
        .filter(|f| !f.is_virtual() && at_bank_top(bank, f) && f.load != LoadKind::Never)
        .collect();
    // A folder with memory files but none at its top loads nothing: whatever tool keeps it
    // (a JSON workflow store, say), it is not a bank of this format to hold core files.
    if !bank.files.is_empty()
        && !required.is_empty()
        && !bank.files.iter().any(|f| {
            !f.is_virtual() && at_bank_top(bank, f) && formats::names::is_markdown(&f.file_name())
        })
    {
        out.push(Finding::new(
            Severity::Info,
            "not-a-memory-bank",
            &bank.root,
            None,
            format!(
                "no markdown file at the top of this folder: nothing in it loads at session \
                 start, so it is not judged as a {} (its {} are another tool's data)",
                bank.format.label(),
                files_phrase(bank.files.len())
            ),
        ));
        return;
    }
    let top_files: Vec<&MemoryFile> = bank
        .files
        .iter()
        .filter(|f| !f.is_virtual() && at_bank_top(bank, f))
        .collect();
    for (list, severity, code, what) in [
        (
            required,
            Severity::Error,
            "missing-required-file",
            "required",
        ),
        (
            recommended,
            Severity::Warning,
            "missing-recommended-file",
            "recommended",
        ),
    ] {
        for &(role, name) in list {
            let holder = present.iter().find(|f| f.role == role);
            let expected_key = formats::name_key(name);
            match holder {
                // Held under another name of the name table: said, not faulted.
                Some(file) if formats::name_key(&file.file_name()) != expected_key => {
                    out.push(Finding::new(
                        Severity::Info,
                        "variant-file-name",
                        &file.path,
                        None,
                        format!(
                            "{name} not found; {} looks like it and is read as the {role} file",
                            file.file_name()
                        ),
                    ));
                }
                Some(_) => {}
                None => match top_files
                    .iter()
                    .find(|f| f.role == Role::Other && formats::names::lookalike_role(&f.file_name()) == Some(role))
                {
                    Some(lookalike) => out.push(Finding::new(
                        Severity::Info,
                        "variant-file-name",
                        &lookalike.path,
                        None,
                        format!(
                            "{name} not found; {} looks like it (rename it to {name} if it is the {role} file)",
                            lookalike.file_name()
                        ),
                    )),
                    None => out.push(Finding::new(
                        severity,
                        code,
                        &bank.root,
                        None,
                        format!(
                            "{what} file {name} ({role}) is missing from the {}",
                            bank.format.label()
                        ),
                    )),
                },
            }
        }
    }
    // Two spellings of one core file (activeContext.md and active-context.md): the agent
    // reads one and the other silently drifts.
    let mut seen: HashMap<Role, &MemoryFile> = HashMap::new();
    for file in &present {
        let core = required
            .iter()
            .chain(recommended.iter())
            .any(|(r, _)| *r == file.role);
        if !core {
            continue;
        }
        if let Some(first) = seen.get(&file.role) {
            out.push(Finding::new(
                Severity::Warning,
                "duplicate-core-file",
                &file.path,
                None,
                format!(
                    "{} and {} both hold the {} file",
                    first.file_name(),
                    file.file_name(),
                    file.role
                ),
            ));
        } else {
            seen.insert(file.role, file);
        }
    }
    if bank.format == Format::ConKeeper {
        for dir in ["decisions", "sessions"] {
            if !bank.root.join(dir).is_dir() {
                out.push(Finding::new(
                    Severity::Warning,
                    "missing-required-dir",
                    &bank.root,
                    None,
                    format!("required folder {dir}/ is missing (it may be empty, but must exist)"),
                ));
            }
        }
    }
}
