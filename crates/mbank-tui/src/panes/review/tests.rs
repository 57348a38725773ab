use super::view::text_spans;
use super::*;
use mbank_core::review::diff_texts;

fn line_text(spans: &[Span]) -> String {
    spans.iter().map(|s| s.content.to_string()).collect()
}

#[test]
fn side_by_side_pairs_removed_and_added_runs_row_by_row() {
    let diff = diff_texts("a\nb\nc\nd\n", "a\nB\nC\nX\nd\n");
    let file = FileReview {
        path: PathBuf::from("/p/f.md"),
        display: "f.md".into(),
        change: mbank_core::review::ChangeKind::Modified,
        renamed_from: None,
        renamed_from_display: None,
        format: mbank_core::model::Format::Cline,
        role: mbank_core::model::Role::Other,
        baseline: None,
        accepted: None,
        current: None,
        diff,
        added: 3,
        removed: 2,
        accepted_added: 0,
        accepted_removed: 0,
        tokens_before: 0,
        tokens_after: 0,
        signals: Vec::new(),
        error: None,
    };
    let rows = diff_rows(&file, true);
    let pairs: Vec<(Option<LineKind>, Option<LineKind>)> = rows
        .iter()
        .filter_map(|r| match r {
            ReviewRow::Pair { hunk, left, right } => {
                let lines = &file.diff.hunks[*hunk].lines;
                Some((left.map(|l| lines[l].kind), right.map(|l| lines[l].kind)))
            }
            _ => None,
        })
        .collect();
    use LineKind::*;
    assert_eq!(
        pairs,
        vec![
            (Some(Context), Some(Context)),
            (Some(Removed), Some(Added)),
            (Some(Removed), Some(Added)),
            (None, Some(Added)),
            (Some(Context), Some(Context)),
        ]
    );
    let unified = diff_rows(&file, false);
    assert_eq!(unified.len(), 1 + file.diff.hunks[0].lines.len());
}

#[test]
fn long_lines_are_cut_and_hidden_characters_shown() {
    let theme = Theme::default();
    let line = DiffLine {
        kind: LineKind::Added,
        old_line: None,
        new_line: Some(1),
        text: format!("safe\u{202E}txt {}", "x".repeat(500)),
        changed: std::iter::once(0..4).collect(),
        no_newline: false,
    };
    let spans = text_spans(&line, &theme, 30);
    let text = line_text(&spans);
    assert!(text.starts_with("safe⟨U+202E⟩txt"), "{text}");
    assert!(text.ends_with('…'), "{text}");
    let width: usize = spans.iter().map(|s| s.width()).sum();
    assert!(width <= 30, "{width}");
    // The changed word is highlighted, the rest is not.
    assert_eq!(spans[0].content, "safe");
    assert_ne!(spans[0].style, spans[2].style);
    // Controls show which they are (an escape sequence stays inert), not a "�".
    let line = DiffLine {
        text: "a\u{1b}[2J\u{9b}b\tc".into(),
        changed: Vec::new(),
        ..line
    };
    let text = line_text(&text_spans(&line, &theme, 40));
    assert!(text.starts_with("a␛[2J⟨U+009B⟩b    c"), "{text}");
}

#[test]
fn a_last_line_without_newline_says_so_as_git_does() {
    let theme = Theme::default();
    let line = DiffLine {
        kind: LineKind::Added,
        old_line: None,
        new_line: Some(3),
        text: "- the last entry".into(),
        changed: Vec::new(),
        no_newline: true,
    };
    let text = line_text(&text_spans(&line, &theme, 60));
    assert!(text.ends_with("\\ No newline at end of file"), "{text}");
    let text = line_text(&text_spans(
        &DiffLine {
            no_newline: false,
            ..line
        },
        &theme,
        60,
    ));
    assert!(!text.contains("newline"), "{text}");
}

#[test]
fn details_wrap_at_spaces_and_never_lose_a_character() {
    use super::view::wrap_text;
    let text = "the write would drop 3 entries: ADR-001, ADR-002 and a-very-long-word-without-any-space-in-it end";
    for width in [1, 5, 12, 30, 200] {
        let pieces = wrap_text(text, width);
        assert!(
            pieces.iter().all(|p| p.chars().count() <= width.max(1)),
            "{width}: {pieces:?}"
        );
        // Joined back (a break at a space took that space), the text is whole.
        let words: Vec<&str> = text.split(' ').collect();
        let rejoined: String = pieces.concat();
        assert_eq!(rejoined.replace(' ', ""), words.concat(), "{width}");
    }
    assert_eq!(wrap_text("one two three", 7), ["one two", "three"]);
    assert_eq!(wrap_text("", 10), [""]);
}
