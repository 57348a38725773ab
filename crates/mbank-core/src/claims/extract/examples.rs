//! Lines that show names as examples of a convention rather than name the project's
//! code: a line about naming (`snake_case`), a name marked as what not to write, and the
//! list a label such as "**Good**:" introduces.

/// Names of the ways identifiers are written: a line naming one is about naming.
const CASE_STYLES: [&str; 8] = [
    "snake_case",
    "camelcase",
    "pascalcase",
    "kebab-case",
    "screaming_snake",
    "upper_snake",
    "upper_case",
    "lowercase_with",
];

/// Marks of what not to do, in do/don't lists.
const DONT_MARKS: [char; 4] = ['❌', '✗', '✘', '🚫'];

/// Words of a line about naming, or labelling an example good or bad, in the languages
/// rules are written in: the names it shows are examples of a convention.
const EXAMPLE_WORDS: &[&str] = &[
    "naming",
    "good:",
    "bad:",
    "nommage",
    "nomme",
    "bon :",
    "mauvais :",
    "nombra",
    "nomenclatura",
    "benenn",
    "именова",
    "命名",
    "명명",
    "良い例",
    "悪い例",
    "正确示例",
    "错误示例",
    // "Variable and function names" as a rule's subject.
    "변수명",
    "함수명",
    "변수/함수",
    "変数名",
    "関数名",
    "变量名",
    "函数名",
];

/// Whether a line (lower case) shows names as examples: it speaks of a case style or of
/// naming, labels an example good or bad, or marks something not to do.
pub(super) fn is_naming_example(lower: &str) -> bool {
    CASE_STYLES.iter().any(|style| lower.contains(style))
        || lower.contains(DONT_MARKS)
        || EXAMPLE_WORDS.iter().any(|word| lower.contains(word))
}

/// What a line says of the list lines after it: a label standing alone (`**Good**:`,
/// `Naming:`) whose words are about naming or good and bad examples makes that list
/// examples, until a line that is not one of its items.
#[derive(Debug, Default)]
pub(super) struct ExampleList {
    open: bool,
}

impl ExampleList {
    /// Whether `line` is an item of an example list; takes in the line either way.
    pub(super) fn shows_examples(&mut self, line: &str) -> bool {
        let trimmed = line.trim();
        if self.open && is_list_item(trimmed) {
            return true;
        }
        self.open = is_example_label(trimmed);
        false
    }
}

/// A list item's line (`- …`, `* …`, `+ …`, `1. …`), given trimmed.
pub(crate) fn is_list_item(trimmed: &str) -> bool {
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &trimmed[digits..];
    if digits > 0 {
        return rest.starts_with(". ") || rest.starts_with(") ");
    }
    ["- ", "* ", "+ "].iter().any(|mark| rest.starts_with(mark))
}

/// A line that is only a short label ending in a colon, its emphasis marks aside, whose
/// words are about naming or label an example good or bad.
fn is_example_label(trimmed: &str) -> bool {
    let label: String = trimmed
        .chars()
        .filter(|c| !matches!(c, '*' | '_'))
        .collect::<String>()
        .to_lowercase();
    let label = label.trim();
    (label.ends_with(':') || label.ends_with('：'))
        && label.split_whitespace().count() <= 4
        && !label.contains('`')
        && is_naming_example(&label.replace(" examples", "").replace(" example", ""))
}

/// A path spelled with the words for a path's parts (`app/path/file.rb`,
/// `src/dir/filename.ts`), or a file name of slots (`TASKID-name.md`: a capitalised
/// field beside a word for what goes there): a placeholder showing a format, not a file.
pub(super) fn is_placeholder_path(token: &str) -> bool {
    let lower = token.to_lowercase();
    let mut parts: Vec<&str> = lower.trim_end_matches('/').split('/').collect();
    let Some(last) = parts.pop() else {
        return false;
    };
    let stem = last.split('.').next().unwrap_or(last);
    let spelled_with_part_words = parts
        .iter()
        .any(|part| ["path", "dir", "folder", "directory", "subdir", "subfolder"].contains(part))
        && ["file", "filename", "name", "module"].contains(&stem);
    let file = token.rsplit('/').next().unwrap_or(token);
    let stem_parts: Vec<&str> = file
        .split('.')
        .next()
        .unwrap_or(file)
        .split(['-', '_'])
        .collect();
    let field = stem_parts
        .iter()
        .any(|part| part.len() >= 2 && part.chars().all(|c| c.is_ascii_uppercase()));
    let slot = stem_parts
        .iter()
        .any(|part| ["name", "title", "slug", "description", "topic"].contains(part));
    // `scripts/script-name.js`, `components/component-name.tsx`: the folder's kind and a
    // slot for the name.
    let kind_and_slot = slot
        && stem_parts.iter().any(|part| {
            let part = part.to_lowercase();
            part.len() >= 3
                && parts
                    .iter()
                    .any(|folder| folder.trim_end_matches('s') == part.trim_end_matches('s'))
        });
    spelled_with_part_words || (field && slot) || kind_and_slot
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_of_the_words_for_a_path_s_parts_is_a_placeholder() {
        assert!(is_placeholder_path("app/path/file.rb"));
        assert!(is_placeholder_path("src/dir/filename.ts"));
        assert!(!is_placeholder_path("src/path/resolve.rs"));
        assert!(!is_placeholder_path("internal/file/file.go"));
        assert!(!is_placeholder_path("file.rb"));
        assert!(is_placeholder_path("memory-bank/tasks/TASKID-name.md"));
        assert!(is_placeholder_path("docs/FEATURE_title.md"));
        assert!(!is_placeholder_path("docs/adr/ADR-001-use-postgres.md"));
        assert!(!is_placeholder_path(
            "memory-bank/tasks/TASK042-name-resolver.md"
        ));
        assert!(!is_placeholder_path("src/name.ts"));
        assert!(is_placeholder_path("scripts/script-name.js"));
        assert!(is_placeholder_path("src/components/component-name.tsx"));
        assert!(!is_placeholder_path("scripts/rename.js"));
        assert!(!is_placeholder_path("scripts/script-runner.js"));
    }

    #[test]
    fn a_list_after_a_good_or_naming_label_shows_examples_until_it_ends() {
        let text = "**Good**:\n- Model: `app/models/user.rb`\n  - nested `x.rb`\n\n- `src/real.rb`\nNaming：\n1. `a_b`\nThe list ended.\n- `src/other.rb`\n";
        let mut list = ExampleList::default();
        let shown: Vec<bool> = text.lines().map(|line| list.shows_examples(line)).collect();
        assert_eq!(
            shown,
            [false, true, true, false, false, false, true, false, false]
        );
    }

    #[test]
    fn a_label_is_short_stands_alone_and_speaks_of_examples() {
        assert!(is_example_label("**Good**:"));
        assert!(is_example_label("*Bad example:*"));
        assert!(is_example_label("悪い例:"));
        assert!(!is_example_label("**Key files**:"));
        assert!(!is_example_label(
            "Good: use `src/app.ts` for the entry point"
        ));
        assert!(!is_example_label(
            "These are good: files that matter most to the build:"
        ));
    }
}
