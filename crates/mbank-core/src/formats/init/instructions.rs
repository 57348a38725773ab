//! The instructions an agent needs to use the bank `mbank init` made: when to read it,
//! in which order, when and how to update it. Each agent finds them where it reads its
//! rules: Cline in `.clinerules/`, Roo Code in `.roo/rules/`, Kilo Code in
//! `.kilocode/rules/` (the file its memory-bank documentation names), Claude Code with
//! ConKeeper through imports in `CLAUDE.md`. The text is mbank's own.
use std::path::{Path, PathBuf};

use super::InitFormat;

/// Marks the instructions mbank added, so a second run finds them and adds nothing.
pub(crate) const MARKER: &str = "<!-- mbank: memory bank instructions -->";

/// Where `format`'s agent reads the instructions, relative to the project. A Cline
/// project with the older single `.clinerules` file gets them in that file.
pub fn target(project: &Path, format: InitFormat) -> PathBuf {
    match format {
        InitFormat::Cline if project.join(".clinerules").is_file() => PathBuf::from(".clinerules"),
        InitFormat::Cline => PathBuf::from(".clinerules/memory-bank.md"),
        InitFormat::Roo => PathBuf::from(".roo/rules/memory-bank.md"),
        InitFormat::KiloCode => PathBuf::from(".kilocode/rules/memory-bank-instructions.md"),
        InitFormat::ConKeeper => PathBuf::from("CLAUDE.md"),
    }
}

/// The instructions for `format`, the bank in `bank_dir` (relative, `/`-separated), its
/// files in read order.
pub fn text(format: InitFormat, bank_dir: &str, files: &[&str]) -> String {
    match format {
        InitFormat::Cline | InitFormat::Roo => markdown_bank(bank_dir, files, MarkdownBank::Cline),
        InitFormat::KiloCode => markdown_bank(bank_dir, files, MarkdownBank::Kilo),
        InitFormat::ConKeeper => conkeeper(bank_dir),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum MarkdownBank {
    Cline,
    Kilo,
}

fn markdown_bank(bank_dir: &str, files: &[&str], kind: MarkdownBank) -> String {
    let mut out = String::new();
    out.push_str(MARKER);
    out.push_str("\n# Memory bank\n\n");
    out.push_str(&format!(
        "Nothing from earlier sessions reaches you except the files in `{bank_dir}/`. \
         Treat them as your memory of this project: read every one of them before you \
         start any task, however small, and keep them true when you finish.\n\n"
    ));
    out.push_str("## At the start of a task\n\nRead these files, in this order:\n");
    for (n, file) in files.iter().enumerate() {
        out.push_str(&format!(
            "{}. `{bank_dir}/{file}` — {}\n",
            n + 1,
            purpose(file)
        ));
    }
    out.push_str(
        "\nIf the folder is missing or empty, say so and offer to create it before doing \
         anything else. If a file still holds placeholders in square brackets, fill what \
         the code or the person can tell you and leave the rest.\n\n",
    );
    match kind {
        MarkdownBank::Cline => out.push_str(
            "## Planning and acting\n\n\
             - When planning: read the whole bank, check it covers what the task touches, \
             look at the code, and propose an approach that follows the patterns the bank \
             records before changing anything.\n\
             - When acting: start from the current state in the active context, follow \
             the project's rules, and update the bank once a meaningful step is done.\n\n",
        ),
        MarkdownBank::Kilo => out.push_str(
            "Start your first answer with `[Memory Bank: Active]` when you read the bank, \
             or `[Memory Bank: Missing]` when there is none. The brief is the person's: \
             suggest changes to it instead of editing it.\n\n",
        ),
    }
    out.push_str(
        "## When to update\n\n\
         - after finishing a significant piece of work;\n\
         - after finding a pattern or constraint that changes how the code is written;\n\
         - after an architectural decision;\n\
         - at the end of a session, if the bank was not updated during it;\n\
         - whenever the person asks for it (\"update memory bank\" or \"UMB\"): then \
         review every file of the bank, even those that need no change.\n\n\
         Update the most changeable files first (progress and current context), then \
         decisions, then the technical and product files, and the brief only when the \
         project itself changed. Decisions are appended with their date; earlier ones \
         are never rewritten, only marked as superseded.\n\n\
         ## How to write\n\n\
         - Write for a reader who knows nothing about the last session.\n\
         - Name the files, functions, commands and error messages concerned.\n\
         - Delete what is no longer true instead of adding beside it.\n\
         - Keep each file short enough to read in two minutes; prefer lists.\n\
         - Date progress entries and decisions (YYYY-MM-DD).\n",
    );
    out
}

/// What each core file is for, by its name in any of the formats.
fn purpose(file: &str) -> &'static str {
    match crate::formats::names::name_key(file).as_str() {
        "projectbrief" | "brief" => "what the project is, its scope and requirements",
        "productcontext" | "product" => "why it exists, for whom, how it should work",
        "systempatterns" | "architecture" => "architecture, patterns and where code lives",
        "techcontext" | "tech" => "languages, dependencies, commands and versions",
        "activecontext" | "context" => "what is being worked on now and what comes next",
        "progress" => "what is done, in progress and known to be broken",
        "decisionlog" => "decisions taken, with their dates and reasons",
        _ => "project memory",
    }
}

fn conkeeper(bank_dir: &str) -> String {
    format!(
        "{MARKER}\n\
         ## Project memory\n\n\
         This project keeps its memory in `{bank_dir}/`. The two files below are loaded \
         with these instructions; open `patterns.md`, `progress.md`, `glossary.md`, \
         `decisions/` and `sessions/` when the task needs them.\n\n\
         @{bank_dir}/product-context.md\n\
         @{bank_dir}/active-context.md\n\n\
         Before ending a session, bring `active-context.md` and `progress.md` up to date, \
         record a significant decision as the next ADR in `decisions/` (`mbank adr new \
         \"TITLE\"` numbers it), and keep every file within its token budget.\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_names_its_bank_and_files() {
        let files = ["projectBrief.md", "activeContext.md"];
        let cline = text(InitFormat::Cline, "memory-bank", &files);
        assert!(cline.starts_with(MARKER));
        assert!(cline.contains("1. `memory-bank/projectBrief.md` — what the project is"));
        assert!(cline.contains("2. `memory-bank/activeContext.md` — what is being worked on"));
        let kilo = text(
            InitFormat::KiloCode,
            ".kilocode/rules/memory-bank",
            &["brief.md"],
        );
        assert!(kilo.contains("[Memory Bank: Active]"));
        let claude = text(InitFormat::ConKeeper, ".claude/memory", &[]);
        assert!(claude.contains("\n@.claude/memory/product-context.md\n"));
    }
}
