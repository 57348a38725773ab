//! docs/FINDINGS.md, the reference of every finding code, written from the code table.
use std::fmt::Write;

use super::codes::{RULES, Rule, RuleSource};

/// Where the reference is kept, relative to the repository's top.
pub const REFERENCE_PATH: &str = "docs/FINDINGS.md";

/// "warning", or "info to error" when the code is reported at more than one severity.
fn severity_range(rule: &Rule) -> String {
    if rule.lowest == rule.highest {
        rule.lowest.id().to_string()
    } else {
        format!("{} to {}", rule.lowest.id(), rule.highest.id())
    }
}

/// The text of docs/FINDINGS.md: a table of every code, then a section per code.
pub fn reference_markdown() -> String {
    let mut out = String::new();
    out.push_str(
        "<!-- Written from crates/mbank-core/src/findings/codes.rs: do not edit by hand. After changing a \
         code there, regenerate this file with\n     \
         UPDATE_DOCS=1 cargo test --test it findings_doc -->\n\
         # Finding codes\n\n\
         Every finding `mbank check` reports (as text, with `--json` and with `--format \
         sarif`) carries one of these codes. The severity is the one mbank reports the code \
         at by default; where it is a range, the message says why this case is at this \
         level. `[rules]` in mbank's `config.toml` raises, lowers or silences any code \
         (`budget-over = \"off\"`).\n\n",
    );
    let _ = writeln!(out, "| Code | Severity | Source | Summary |");
    let _ = writeln!(out, "|---|---|---|---|");
    for rule in RULES {
        let _ = writeln!(
            out,
            "| [`{id}`](#{id}) | {} | {} | {} |",
            severity_range(rule),
            rule.source.name(),
            rule.summary,
            id = rule.id,
        );
    }
    let _ = writeln!(
        out,
        "\nA finding's message names where its rule comes from, always one of these: {}.",
        RuleSource::ALL
            .iter()
            .map(|source| source.name())
            .collect::<Vec<_>>()
            .join("; ")
    );
    for rule in RULES {
        let _ = write!(
            out,
            "\n## {id}\n\n{summary}.\n\n- Severity: {levels}\n- Source: {source}\n\n{help}\n",
            id = rule.id,
            summary = rule.summary,
            levels = severity_range(rule),
            source = rule.source.name(),
            help = rule.help,
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_has_a_row_and_a_section_per_code() {
        let text = reference_markdown();
        for rule in RULES {
            assert!(
                text.contains(&format!("| [`{0}`](#{0}) |", rule.id)),
                "{}",
                rule.id
            );
            assert!(text.contains(&format!("\n## {}\n", rule.id)), "{}", rule.id);
            assert!(text.contains(rule.help), "{}", rule.id);
        }
        assert!(text.contains("UPDATE_DOCS=1 cargo test --test it findings_doc"));
        for source in RuleSource::ALL {
            assert!(text.contains(source.name()), "{source}");
        }
        let mut names: Vec<&str> = RuleSource::ALL.iter().map(|s| s.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), RuleSource::ALL.len(), "a source listed twice");
    }
}
