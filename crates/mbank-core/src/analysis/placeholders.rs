//! Template placeholders left in a memory file (`[Task 1]`, `[Date]`, `YYYY-MM-DD`): which
//! lines still show a template rather than fill one in. Validation reports them for the
//! Memory Bank formats; review flags new ones in a change.

use crate::markup::markdown;

/// `YYYY-MM-DD`, `HH:MM`, `YYYY-MM-DD HH:MM:SS`: date-format tokens left from a template.
fn is_format_token(content: &str) -> bool {
    content.chars().all(|c| "YMDHS:-/. T".contains(c))
        && (content.contains("YYYY") || content.contains("MM") || content.contains("HH"))
}

/// Bracketed text that reads like template prose: `Task 1`, `Date`, `Name of the
/// project`, `YYYY-MM-DD`. Not checkboxes, footnotes, alerts, timestamps, numbers, code or
/// all-caps status markers (`[DONE]`, `[WIP]`).
fn is_placeholder_content(content: &str) -> bool {
    let content = content.trim();
    // `[x]` is a checkbox, however it is spaced.
    if content.chars().count() < 2 || content.chars().count() > 80 {
        return false;
    }
    if is_format_token(content) {
        return true;
    }
    if content.contains(['=', '{', '}', '<', '>', '`', '$', '\\', '|', ';', '@']) {
        return false;
    }
    let Some(first) = content.chars().next() else {
        return false;
    };
    if !first.is_alphabetic() {
        return false;
    }
    if starts_with_task_id(content) {
        // `[T19 Phase 2 Refactor]`, `[TASK-12] …`: a filled-in task reference.
        return false;
    }
    if says_none(content) {
        // `[None]`, `[Нет]`: a section filled in with "nothing", not left blank.
        return false;
    }
    let has_lower = content.chars().any(char::is_lowercase);
    if !has_lower {
        // `[DONE]`, `[WIP]`, `[x]`-like markers.
        return false;
    }
    if first.is_uppercase() {
        return true;
    }
    // Lower-case template words (`[author]`, `[date]`): short, letters only.
    content.split_whitespace().count() <= 3
        && content
            .chars()
            .all(|c| c.is_alphabetic() || c == ' ' || c == '-')
}

/// "None", "nothing" or "not applicable" alone, in the languages banks are written in:
/// what a writer fills a section with when there is nothing to say.
fn says_none(content: &str) -> bool {
    let lower = content.trim_end_matches(['.', '!']).trim().to_lowercase();
    matches!(
        lower.as_str(),
        "none"
            | "nothing"
            | "n/a"
            | "not applicable"
            | "nil"
            | "нет"
            | "ничего"
            | "немає"
            | "keine"
            | "keiner"
            | "nichts"
            | "ninguno"
            | "ninguna"
            | "nada"
            | "nenhum"
            | "nenhuma"
            | "aucun"
            | "aucune"
            | "rien"
            | "nessuno"
            | "niente"
            | "geen"
            | "brak"
            | "yok"
            | "なし"
            | "無し"
            | "特になし"
            | "无"
            | "無"
            | "没有"
            | "沒有"
            | "없음"
    )
}

/// Whether bracketed text opens with a task id: letters then digits in one word
/// (`T19`, `TASK-12`, `ABC_7`, `m3`), which a template never writes.
fn starts_with_task_id(content: &str) -> bool {
    let word = content.split_whitespace().next().unwrap_or_default();
    let letters = word.chars().take_while(|c| c.is_alphabetic()).count();
    let rest: String = word.chars().skip(letters).collect();
    let digits = rest.trim_start_matches(['-', '_', '#']);
    letters > 0
        && letters <= 8
        && !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        && digits.starts_with(|c: char| c.is_ascii_digit())
}

/// Whether a line introduces a template shown as documentation: a heading or a label
/// that names a format, template or example ("## Entry format", "**Format:**", "Example:").
fn introduces_template(line: &str) -> bool {
    let words = line
        .trim()
        .trim_start_matches('#')
        .trim_matches(|c: char| c == '*' || c == '_' || c.is_whitespace())
        .to_lowercase();
    let is_heading = line.trim_start().starts_with('#');
    let label = words.trim_end_matches(['*', '_', ' ']);
    let names_one = |w: &str| {
        ["format", "template", "templates", "example", "examples"]
            .iter()
            .any(|k| w.split(|c: char| !c.is_alphanumeric()).any(|t| t == *k))
    };
    (is_heading && names_one(&words)) || (label.ends_with(':') && names_one(label))
}

/// Lines that show a template rather than fill one in: block quotes, and everything from a
/// line introducing a format, template or example to the next heading (of the same or a
/// higher level, for a heading). Read from the prose ([`markdown::prose_only`]), so a `#`
/// comment in a code sample is no heading and ends no section.
fn documentation_mask(prose: &str) -> Vec<bool> {
    // The heading level a template section runs under (0: a label, to the next heading).
    let mut section: Option<usize> = None;
    prose
        .lines()
        .map(|line| {
            let trimmed = line.trim_start();
            let level = trimmed.chars().take_while(|c| *c == '#').count();
            if level > 0 && trimmed[level..].starts_with([' ', '\t']) {
                if section.is_some_and(|open| open == 0 || level <= open) {
                    section = None;
                }
                if section.is_none() && introduces_template(line) {
                    section = Some(level);
                }
                return section.is_some();
            }
            if section.is_none() && introduces_template(line) {
                section = Some(0);
            }
            section.is_some() || trimmed.starts_with('>')
        })
        .collect()
}

/// Whether a line is an unfilled template line: at least one placeholder and, besides
/// placeholders and markdown decoration, at most two words (`- **Date:** [Date]`,
/// `### Phase 1: [Name] — [Status]`). Links `[x](y)`, `[x][y]`, `[x]: y`, images,
/// wikilinks `[[x]]` and checkboxes never count, nor brackets in code: `prose` is the
/// line with its code blanked (same offsets), where brackets are looked for, while words
/// are counted in the line as written. Linear in the line length.
fn line_is_placeholder(line: &str, prose: &str) -> bool {
    if !prose.contains('[') || prose.len() != line.len() {
        return false;
    }
    let bytes = prose.as_bytes();
    let mut placeholders = 0;
    let mut residue_words = 0;
    let mut in_word = false;
    let count_text = |text: &str, residue_words: &mut usize, in_word: &mut bool| {
        for c in text.chars() {
            if c.is_alphanumeric() {
                if !*in_word {
                    *residue_words += 1;
                }
                *in_word = true;
            } else {
                *in_word = false;
            }
        }
    };
    let mut i = 0;
    let mut text_start = 0;
    while i < bytes.len() {
        if bytes[i] != b'[' {
            i += 1;
            continue;
        }
        if bytes.get(i + 1) == Some(&b'[') {
            // Wikilink: its text is content, not template.
            i += 2;
            continue;
        }
        // The closing `]`, unless another `[` comes first (then restart there).
        let mut j = i + 1;
        while j < bytes.len() && bytes[j] != b']' && bytes[j] != b'[' {
            j += 1;
        }
        if j >= bytes.len() || bytes[j] == b'[' {
            i = j;
            continue;
        }
        // `[` and `]` are ASCII in the prose and in the line alike, so these are char
        // boundaries of both.
        let content = line.get(i + 1..j).unwrap_or_default();
        let after = line.as_bytes().get(j + 1).copied();
        let is_link = matches!(after, Some(b'(') | Some(b'[') | Some(b':'))
            || (i > 0 && line.as_bytes()[i - 1] == b'!');
        if !is_link && is_placeholder_content(content) {
            count_text(
                line.get(text_start..i).unwrap_or_default(),
                &mut residue_words,
                &mut in_word,
            );
            in_word = false;
            placeholders += 1;
            text_start = j + 1;
        }
        i = j + 1;
    }
    count_text(
        line.get(text_start..).unwrap_or_default(),
        &mut residue_words,
        &mut in_word,
    );
    placeholders > 0 && residue_words <= 2
}

/// 1-based lines of unfilled template placeholders in prose: not in code (fenced with any
/// fence, indented or inline) or HTML comments, block quotes, or sections that show a
/// format, template or example.
pub fn placeholder_lines(text: &str) -> Vec<usize> {
    if !text.contains('[') {
        return Vec::new();
    }
    let prose = markdown::prose_only(text);
    let documentation = documentation_mask(&prose);
    // Frontmatter is YAML, whose `[a, b]` is a list, not a slot.
    let metadata_lines = markdown::frontmatter(text).map_or(0, |fm| {
        text[..fm.body_start.min(text.len())].lines().count()
    });
    // The prose keeps the text's line breaks, so its lines pair with the text's.
    text.lines()
        .zip(prose.lines())
        .enumerate()
        .filter(|(i, (line, prose_line))| {
            *i >= metadata_lines
                && !documentation.get(*i).copied().unwrap_or(false)
                && line_is_placeholder(line, prose_line)
        })
        .map(|(i, _)| i + 1)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_in_the_frontmatter_is_no_placeholder() {
        let text =
            "---\ntarget_audience: [all]\ntags: [firebase, angular]\n---\n# Notes\n- [Date]\n";
        assert_eq!(placeholder_lines(text), vec![6]);
    }

    #[test]
    fn placeholders_are_template_text_only() {
        let text = "# Active Context\n\
            - [Task 1]\n\
            - **Date:** [Date]\n\
            ## [Decision Title] - [YYYY-MM-DD]\n\
            [Name of the project]\n\
            ### Phase 1: [Name] — [Status]\n\
            - [ ] real task\n\
            - [x] done task\n\
            - [3:08:27 PM] [Unknown User] Fixed the dialog and many other things\n\
            - [2025-07-15 10:00:00] - update\n\
            See [the docs](https://x) and [[Wiki Link]]\n\
            - [DONE] shipped\n\
            [ref]: https://example.com\n\
            `[Not This]`\n\
            ```\n[Inside Fence]\n```\n\
            - [COMPLETED] Implement X\n\
            > [!NOTE]\n";
        assert_eq!(placeholder_lines(text), vec![2, 3, 4, 5, 6]);
    }

    #[test]
    fn a_section_filled_with_none_in_any_language_is_no_placeholder() {
        for filled in [
            "[None]",
            "[Нет]",
            "[N/A]",
            "[なし]",
            "[Keine]",
            "[Ninguno.]",
        ] {
            assert!(
                !is_placeholder_content(&filled[1..filled.len() - 1]),
                "{filled}"
            );
        }
        assert!(is_placeholder_content(
            "Будет определено в фазе проектирования"
        ));
        assert!(is_placeholder_content("None of the above yet"));
    }

    #[test]
    fn task_ids_and_documented_templates_are_not_placeholders() {
        let text = "# Progress\n\
            - [T19 Phase 2 Refactor]\n\
            - [TASK-12] Cache layer\n\
            - [Task 1]\n\
            > - [Date] quoted example\n\
            Entry format:\n\
            - [Date] - [Summary]\n\
            ## Template\n\
            ### [Decision Title]\n\
            ## Next\n\
            - [Owner]\n\
            **Format:**\n\
            [YYYY-MM-DD] - [Change]\n";
        assert_eq!(placeholder_lines(text), vec![4, 11]);
        assert!(starts_with_task_id("T19 Phase 2"));
        assert!(starts_with_task_id("BUG-7"));
        assert!(!starts_with_task_id("Task 1"));
        assert!(!starts_with_task_id("Phase 2"));
    }

    #[test]
    fn placeholders_in_a_template_section_or_a_fence_holding_a_shorter_fence_are_not_reported() {
        let text = "# Decision Log\n\
            ````markdown\n\
            ## [Decision Title]\n\
            ```bash\n\
            # [Command]\n\
            ```\n\
            - **Date:** [Date]\n\
            ````\n\
            - [Owner]\n\
            ## Template\n\
            ```md\n\
            # [Not a heading: the section goes on]\n\
            ```\n\
            - **Status:** [Status]\n\
            ### Example entry\n\
            [Summary]\n\
            ## 2025-01-01 Real decision\n\
            - **Decided by:** [Name]\n\
            <!-- [Hidden Note] -->\n\
            \n    [Indented Sample]\n";
        assert_eq!(placeholder_lines(text), vec![9, 18]);
    }

    #[test]
    fn words_in_code_spans_still_make_a_line_more_than_a_template() {
        let text = "# Context\n- [Name] `npm run build now`\n- [Name] `x`\n";
        assert_eq!(placeholder_lines(text), vec![3]);
    }

    #[test]
    fn placeholder_scan_is_linear_on_huge_lines() {
        let line = "[".repeat(300_000) + &"[Task] x ".repeat(20_000);
        let found =
            crate::hang_guard::finishes("the placeholder scan", move || placeholder_lines(&line));
        assert_eq!(found, Vec::<usize>::new());
    }
}
