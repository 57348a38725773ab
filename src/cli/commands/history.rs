//! `mbank history FILE [--json] [--diff VERSION]` and `mbank restore FILE VERSION`: the
//! versions of a memory file mbank replaced or the journal found on disk, and bringing
//! one back (a deleted file too, in a bank or an agent's own store).
use std::path::{Path, PathBuf};

use color_eyre::eyre::{Result, eyre};
use serde::Serialize;

use crate::cli::Context;
use crate::cli::style::{Span, Table, line, print_text, println};
use crate::core::history::{self, History, Version};

fn history(context: &Context) -> Result<History> {
    context
        .history
        .clone()
        .ok_or_else(|| eyre!("no data folder for the history (set MBANK_DATA_DIR or HOME)"))
}

/// FILE as the user means it: here, else under the root; absolute.
fn file_path(context: &Context, file: &Path) -> PathBuf {
    crate::core::analysis::imports::absolute(&context.resolve(file))
}

#[derive(Serialize)]
struct JsonHistory<'a> {
    schema: &'static str,
    file: PathBuf,
    versions: &'a [Version],
}

pub fn list(context: &Context, file: &Path, as_json: bool, diff: Option<u64>) -> Result<u8> {
    let history = history(context)?;
    let path = file_path(context, file);
    if let Some(number) = diff {
        let diff = history.diff(&path, number).map_err(|e| eyre!("{e}"))?;
        if diff.unified.is_empty() {
            println(format!(
                "{} is the same as version {number}",
                path.display()
            ));
        } else {
            print_text(&diff.unified);
        }
        return Ok(0);
    }
    let versions = history.list(&path).map_err(|e| eyre!("{e}"))?;
    if as_json {
        crate::cli::json::print(&JsonHistory {
            schema: "mbank.history/1",
            file: history::key_of(&path),
            versions: &versions,
        })?;
        return Ok(0);
    }
    if versions.is_empty() {
        println(line![
            "No earlier versions of ",
            &path,
            " in mbank's history."
        ]);
        return Ok(0);
    }
    let mut table = Table::new(&["VERSION", "REPLACED", "BY", "SIZE"]).right(&[0, 3]);
    for v in &versions {
        table.row(vec![
            Span::line(&v.version.to_string()),
            Span::line(v.at.get(..19).unwrap_or(&v.at)),
            Span::line(&v.writer),
            Span::line(&format!("{} B", crate::cli::style::thousands(v.size))),
        ]);
    }
    table.print(&context.style);
    println(context.style.dim(
        "Compare with `mbank history FILE --diff VERSION`; bring one back with `mbank restore FILE VERSION`.",
    ));
    Ok(0)
}

pub fn restore(context: &Context, file: &Path, version: u64) -> Result<u8> {
    let history = history(context)?;
    let path = file_path(context, file);
    let Some(project) = crate::cli::enclosing_project(&path) else {
        // A file of an agent's own store (Claude Code auto memory, Kilo Memory, Codex
        // memories), which the journal keeps: restored at the person's word.
        let (store, scope) = super::journal::store_holding(context, &path)?
            .ok_or_else(|| eyre!("{} belongs to no memory bank", path.display()))?;
        let restored = crate::core::journal::restore_in_store(
            &context.write_context("restore"),
            &history,
            &scope,
            &store,
            &path,
            version,
        )
        .map_err(|e| eyre!("{e}"))?;
        println(line![
            context.style.green("restored"),
            format!(" version {version} of "),
            &restored,
            format!(
                " ({}; the text it replaced is kept in the history)",
                store.label
            ),
        ]);
        return Ok(0);
    };
    // The bank whose folder holds the file (the innermost, when banks nest).
    let banks = crate::core::scan::bank::list_banks(&project);
    let bank = banks
        .iter()
        .filter(|b| path.starts_with(&b.root))
        .max_by_key(|b| b.root.components().count())
        .ok_or_else(|| eyre!("{} belongs to no memory bank", path.display()))?;
    let relative = path
        .strip_prefix(&bank.root)
        .ok()
        .and_then(Path::to_str)
        .ok_or_else(|| eyre!("{} is not a UTF-8 name inside its bank", path.display()))?;
    let outcome = crate::core::write::restore(
        &context.write_context("restore"),
        &history,
        bank,
        relative,
        version,
    )
    .map_err(|e| eyre!("{e}"))?;
    println(line![
        context.style.green("restored"),
        format!(" version {version} of "),
        &outcome.path,
        " (the text it replaced is kept in the history)",
    ]);
    Ok(0)
}
