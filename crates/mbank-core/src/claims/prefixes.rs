//! A heading may say its names share a prefix the list leaves out ("Tables (all
//! prefixed with `app_`)" over `users`, `sessions`): such a name is present where the
//! code names it with the prefix.

/// The prefixes the nearest heading above `line` of `text` writes in backticks: names
/// ending in `_` or `-` (`app_`, `acme-`). `headings` are the text's
/// ([`super::extract::section_headings`]), which blank code spans out of their titles.
pub(super) fn heading_prefixes(
    text: &str,
    headings: &[(usize, String)],
    line: usize,
) -> Vec<String> {
    let at = headings.partition_point(|(l, _)| *l < line);
    let Some(heading_line) = at.checked_sub(1).and_then(|i| headings.get(i)).map(|h| h.0) else {
        return Vec::new();
    };
    let heading = text.lines().nth(heading_line - 1).unwrap_or("");
    prefixes_of(heading)
}

/// The backticked prefixes of one heading's text.
fn prefixes_of(heading: &str) -> Vec<String> {
    heading
        .split('`')
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
    use crate::claims::extract::section_headings;

    #[test]
    fn the_nearest_heading_s_backticked_prefixes_spell_the_names_under_it() {
        let text = "# Schema (all `db_`)\n\n## Tables (all prefixed with `remote_agent_`)\n\n- `user_tokens`\n\n## Other `ui_` and `the_table`\n\n### Plain\n\n- `names`\n";
        let headings = section_headings(text);
        assert_eq!(heading_prefixes(text, &headings, 5), ["remote_agent_"]);
        // `the_table` is a name, not a prefix.
        assert_eq!(heading_prefixes(text, &headings, 8), ["ui_"]);
        assert!(heading_prefixes(text, &headings, 11).is_empty());
        assert!(heading_prefixes("- `a_b`\n", &[], 1).is_empty());
        let prefixes = heading_prefixes(text, &headings, 5);
        assert_eq!(
            spellings(&prefixes, "user_tokens"),
            ["user_tokens", "remote_agent_user_tokens"]
        );
        assert_eq!(spellings(&prefixes, "remote_agent_x"), ["remote_agent_x"]);
    }
}
