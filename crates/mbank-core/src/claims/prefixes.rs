//! A heading or a list's label may say its names share a prefix the list leaves out
//! ("Tables (all prefixed with `app_`)" over `users`, `sessions`): such a name is present
//! where the code names it with the prefix.
use super::extract;
use super::extract::is_list_item;

/// A memory file's headings and the lists a label with a prefix introduces, read once
/// for all of its symbols.
#[derive(Debug, Default)]
pub(super) struct FileSections {
    /// [`extract::section_headings`], which blanks code spans out of the titles.
    headings: Vec<(usize, String)>,
    /// Lists introduced by a label standing alone ("**Tables (all prefixed with
    /// `app_`):**"): their first and last item lines and the label's prefixes.
    labelled: Vec<(usize, usize, Vec<String>)>,
    /// Where each line starts in the text.
    line_starts: Vec<usize>,
}

impl FileSections {
    pub(super) fn read(text: &str) -> FileSections {
        let line_starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|at| at + 1))
            .collect();
        FileSections {
            headings: extract::section_headings(text),
            labelled: labelled_lists(text),
            line_starts,
        }
    }

    /// Line `line` (1-based) of `text`, the text these sections were read from.
    pub(super) fn line<'t>(&self, text: &'t str, line: usize) -> &'t str {
        let start = line
            .checked_sub(1)
            .and_then(|at| self.line_starts.get(at))
            .copied()
            .unwrap_or(text.len());
        let rest = text.get(start..).unwrap_or("");
        rest.split('\n').next().unwrap_or("").trim_end_matches('\r')
    }

    /// The headings above `line`, nearest first ([`extract::section_at`]).
    pub(super) fn section_at(&self, line: usize) -> &str {
        extract::section_at(&self.headings, line)
    }

    /// The prefixes the nearest heading above `line` of `text` writes in backticks,
    /// and those of the label over the list `line` is an item of.
    pub(super) fn prefixes_at(&self, text: &str, line: usize) -> Vec<String> {
        let at = self.headings.partition_point(|(l, _)| *l < line);
        let mut out = at
            .checked_sub(1)
            .and_then(|i| self.headings.get(i))
            .and_then(|(heading_line, _)| text.lines().nth(heading_line - 1))
            .map(prefixes_of)
            .unwrap_or_default();
        for (first, last, prefixes) in &self.labelled {
            if (*first..=*last).contains(&line) {
                out.extend(prefixes.iter().cloned());
            }
        }
        out
    }
}

/// Each list a label with a prefix introduces: a line of its own ending in a colon (its
/// emphasis aside) that writes a prefix, then list items (and blank or indented lines)
/// up to the first other line.
fn labelled_lists(text: &str) -> Vec<(usize, usize, Vec<String>)> {
    if !(text.contains("_`") || text.contains("-`")) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut open: Option<(usize, usize, Vec<String>)> = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let trimmed = line.trim();
        if let Some((_, last, _)) = &mut open {
            if is_list_item(trimmed) || (!trimmed.is_empty() && line.starts_with([' ', '\t'])) {
                *last = number;
                continue;
            }
            if trimmed.is_empty() {
                continue;
            }
            out.extend(open.take().filter(|(first, last, _)| last >= first));
        }
        let label = trimmed.trim_matches(['*', '_']).trim_end();
        if label.ends_with(':') && !is_list_item(trimmed) {
            let prefixes = prefixes_of(trimmed);
            if !prefixes.is_empty() {
                open = Some((number + 1, number, prefixes));
            }
        }
    }
    out.extend(open.filter(|(first, last, _)| last >= first));
    out
}

/// The backticked prefixes of one line: names ending in `_` or `-` (`app_`, `acme-`).
fn prefixes_of(line: &str) -> Vec<String> {
    line.split('`')
        .skip(1)
        .step_by(2)
        .filter(|code| {
            code.len() >= 3
                && (code.ends_with('_') || code.ends_with('-'))
                && code
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        })
        .map(str::to_string)
        .collect()
}

/// `name` and its spellings with each of `prefixes`.
pub(super) fn spellings(prefixes: &[String], name: &str) -> Vec<String> {
    let mut all = vec![name.to_string()];
    all.extend(
        prefixes
            .iter()
            .filter(|prefix| !name.starts_with(prefix.as_str()))
            .map(|prefix| format!("{prefix}{name}")),
    );
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_heading_s_backticked_prefixes_spell_the_names_under_it() {
        let text = "# Schema (all `db_`)\n\n## Tables (all prefixed with `remote_agent_`)\n\n- `user_tokens`\n\n## Other `ui_` and `the_table`\n\n### Plain\n\n- `names`\n";
        let sections = FileSections::read(text);
        assert_eq!(sections.prefixes_at(text, 5), ["remote_agent_"]);
        // `the_table` is a name, not a prefix.
        assert_eq!(sections.prefixes_at(text, 8), ["ui_"]);
        assert!(sections.prefixes_at(text, 11).is_empty());
        assert!(
            FileSections::read("- `a_b`\n")
                .prefixes_at("- `a_b`\n", 1)
                .is_empty()
        );
        let prefixes = sections.prefixes_at(text, 5);
        assert_eq!(
            spellings(&prefixes, "user_tokens"),
            ["user_tokens", "remote_agent_user_tokens"]
        );
        assert_eq!(spellings(&prefixes, "remote_agent_x"), ["remote_agent_x"]);
    }

    #[test]
    fn a_label_s_prefixes_spell_the_items_of_the_list_it_introduces() {
        let text = "## Database\n\n**20 Tables (all prefixed with `remote_agent_`):**\n\n1. **`codebases`** - repos\n   more about it\n2. **`sessions`** - runs\n\nThe `sessions` table is busy.\n- `other_list`\n";
        let sections = FileSections::read(text);
        assert_eq!(sections.prefixes_at(text, 5), ["remote_agent_"]);
        assert_eq!(sections.prefixes_at(text, 7), ["remote_agent_"]);
        // After the list, the label no longer speaks.
        assert!(sections.prefixes_at(text, 9).is_empty());
        assert!(sections.prefixes_at(text, 10).is_empty());
    }
}
