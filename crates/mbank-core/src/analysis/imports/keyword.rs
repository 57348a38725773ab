//! `@import ./docs/rules.md`: the import keyword of other languages, written where an agent
//! takes `@` and a path. The agent reads `@import` as a file called `import` and loads
//! nothing, so the file meant never reaches it; said as a broken import, with the fix.
use super::{fenced_line_mask, has_file_extension};

/// Lines (1-based) outside code blocks written as `@import <path>`, with the path.
pub(super) fn keyword_imports(text: &str) -> Vec<(usize, String)> {
    if !text.contains("@import") {
        return Vec::new();
    }
    let fenced = fenced_line_mask(text);
    text.lines()
        .enumerate()
        .filter(|(index, _)| !fenced.get(*index).copied().unwrap_or(false))
        .filter_map(|(index, line)| {
            let rest = line.trim_start().strip_prefix("@import")?;
            if !rest.starts_with([' ', '\t']) {
                return None;
            }
            let target = rest.split_whitespace().next()?;
            let target = target.trim_matches(['"', '\'', '`', ';']);
            (target.contains('/') || has_file_extension(target))
                .then(|| (index + 1, target.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_import_keyword_before_a_path_is_found_outside_code() {
        let text = "# Rules\n\n@import ./docs/git_rule.md\n@import \"docs/a.md\";\n\
                    @./docs/real.md\n```\n@import ./in/code.md\n```\nWe @import nothing here.\n\
                    @important notes\n";
        assert_eq!(
            keyword_imports(text),
            [
                (3, "./docs/git_rule.md".to_string()),
                (4, "docs/a.md".to_string())
            ]
        );
    }
}
