use super::*;

fn theme() -> Theme {
    Theme::default()
}

fn text_of(markdown: &str, width: u16) -> Vec<String> {
    render(markdown, &theme(), width).plain_lines()
}

fn find(lines: &[String], needle: &str) -> usize {
    lines
        .iter()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in {lines:#?}"))
}

#[test]
fn headings_get_theme_colours_and_rules() {
    let t = theme();
    let out = render("# Title\n\n## Sub\n\n### Third\n\ntext", &t, 30);
    let lines = out.plain_lines();
    assert_eq!(lines[0], "Title");
    assert!(lines[1].starts_with("━━━"), "{lines:?}");
    let sub = find(&lines, "Sub");
    assert!(lines[sub + 1].starts_with("───"));
    let third = find(&lines, "Third");
    assert!(!lines[third + 1].starts_with('─'));
    assert_eq!(out.lines[0].spans[0].style.fg, Some(t.heading_1));
    assert!(
        out.lines[0].spans[0]
            .style
            .add_modifier
            .contains(Modifier::BOLD)
    );
    assert_eq!(out.lines[sub].spans[0].style.fg, Some(t.heading_2));
    assert_eq!(out.lines[third].spans[0].style.fg, Some(t.heading_3));
}

#[test]
fn paragraphs_wrap_to_width_by_display_width() {
    let lines = text_of("one two three four five six seven eight nine ten", 12);
    assert!(lines.len() > 3);
    assert!(lines.iter().all(|l| text_width(l) <= 12), "{lines:?}");
    assert_eq!(
        lines.join(" "),
        "one two three four five six seven eight nine ten"
    );
    let cjk = text_of("漢字漢字漢字漢字漢字", 6);
    assert!(cjk.iter().all(|l| text_width(l) <= 6), "{cjk:?}");
    assert_eq!(cjk.concat(), "漢字漢字漢字漢字漢字");
}

#[test]
fn lists_nest_number_and_show_checkboxes() {
    let lines = text_of(
        "- a\n  - b\n    - c\n1. one\n2. two\n\n- [ ] todo\n- [x] done\n",
        40,
    );
    assert_eq!(lines[find(&lines, "a")], "• a");
    assert_eq!(lines[find(&lines, "b")], "  ◦ b");
    assert_eq!(lines[find(&lines, "c")], "    ▪ c");
    assert!(lines.iter().any(|l| l == "1. one"), "{lines:?}");
    assert!(lines.iter().any(|l| l == "2. two"));
    assert!(lines.iter().any(|l| l == "☐ todo"));
    assert!(lines.iter().any(|l| l == "☑ done"));
}

#[test]
fn cjk_text_fills_the_row_after_a_bullet_or_quote_bar() {
    // No row holds the bullet alone: CJK text breaks between its characters.
    let lines = text_of("- 中文的记忆文件内容很长很长\n", 12);
    assert_eq!(lines[0], "• 中文的记忆");
    for line in &lines {
        assert!(line.chars().any(char::is_alphabetic), "{lines:?}");
        assert!(text_width(line) <= 12, "{lines:?}");
    }
    let quoted = text_of("> 引用された長い中国語の文章です。\n", 10);
    assert!(
        quoted.iter().all(|l| l.chars().any(char::is_alphabetic)),
        "{quoted:?}"
    );
    // Closing punctuation stays with what it closes.
    assert!(
        quoted
            .iter()
            .all(|l| !l.trim_start_matches(['▎', '│', ' ']).starts_with('。')),
        "{quoted:?}"
    );
}

#[test]
fn list_continuation_lines_are_indented_under_the_text() {
    let lines = text_of("- alpha beta gamma delta\n", 13);
    assert_eq!(lines[0], "• alpha beta");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[1], "  gamma delta");
}

#[test]
fn quotes_get_a_bar() {
    let lines = text_of("> quoted\n> > deeper\n", 30);
    assert!(lines.contains(&"│ quoted".to_string()), "{lines:?}");
    assert!(lines.contains(&"│ │ deeper".to_string()), "{lines:?}");
}

#[test]
fn tables_have_borders_and_truncate() {
    let md = "| Name | Status |\n|---|:---:|\n| api | done |\n| a very long cell indeed | x |\n";
    let lines = text_of(md, 60);
    assert!(
        lines[0].starts_with('┌') && lines[0].ends_with('┐'),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.starts_with('├')));
    assert!(lines.last().unwrap().starts_with('└'));
    assert!(lines.iter().any(|l| l.contains("│ api ")));
    let narrow = text_of(md, 20);
    assert!(narrow.iter().all(|l| text_width(l) <= 20), "{narrow:#?}");
    assert!(narrow.iter().any(|l| l.contains('…')), "{narrow:#?}");
    // A row with too many or too few cells does not panic.
    let broken = text_of("| a | b |\n|---|---|\n| 1 |\n| 1 | 2 | 3 |\n|\n", 30);
    assert!(broken.iter().any(|l| l.starts_with('┌')));
}

#[test]
fn code_blocks_inline_code_and_links() {
    let t = theme();
    let md = "```rust\nfn main() {}\n```\n\nUse `cargo` and [docs](https://x.y/z).\n";
    let out = render(md, &t, 40);
    let lines = out.plain_lines();
    assert_eq!(lines[0].trim(), "rust");
    let code = find(&lines, "fn main");
    assert_eq!(out.lines[code].spans[0].style.fg, Some(t.code));
    assert_eq!(out.lines[code].spans[0].style.bg, Some(t.code_bg));
    assert_eq!(text_width(&lines[code]), 40);
    let para = find(&lines, "Use");
    assert!(lines[para].contains("docs (https://x.y/z)"), "{lines:?}");
    let spans = &out.lines[para].spans;
    let link = spans.iter().find(|s| s.content == "docs").unwrap();
    assert_eq!(link.style.fg, Some(t.link));
    let cargo = spans.iter().find(|s| s.content == "cargo").unwrap();
    assert_eq!(cargo.style.bg, Some(t.code_bg));
    let url = spans.iter().find(|s| s.content.contains("https")).unwrap();
    assert_eq!(url.style.fg, Some(t.muted));
}

#[test]
fn emphasis_strong_and_strike_are_styled() {
    let out = render("*i* **b** ~~s~~", &theme(), 40);
    let style_of = |text: &str| {
        out.lines[0]
            .spans
            .iter()
            .find(|s| s.content == text)
            .unwrap()
            .style
    };
    assert!(style_of("i").add_modifier.contains(Modifier::ITALIC));
    assert!(style_of("b").add_modifier.contains(Modifier::BOLD));
    assert!(style_of("s").add_modifier.contains(Modifier::CROSSED_OUT));
}

/// Renders with a watchdog: hostile input that made the renderer hang fails the test
/// instead of stalling it. How fast it renders belongs to the preview benchmark.
fn render_bounded(markdown: &str) -> Rendered {
    let started = std::time::Instant::now();
    let out = render(markdown, &theme(), 80);
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(10), "took {took:?}");
    out
}

#[test]
fn text_over_the_markdown_limits_is_shown_plain_with_a_note() {
    let limit = limits::MARKDOWN;
    // Ten times the nesting limit, as quotes on one line and as indented list items.
    let quotes = format!("{} deep\nnext line\n", ">".repeat(10 * limit.max_depth));
    let items: String = (0..10 * limit.max_depth)
        .map(|i| format!("{}- item {i}\n", "  ".repeat(i)))
        .collect();
    for text in [quotes.as_str(), items.as_str()] {
        let out = render_bounded(text);
        let lines = out.plain_lines();
        assert!(lines[0].starts_with("Shown as plain text"), "{lines:?}");
        let note = lines
            .iter()
            .take_while(|l| !l.contains('-') && !l.contains('>'));
        let note: String = note.cloned().collect::<Vec<_>>().join(" ");
        assert!(note.contains("over the limit of 64 levels"), "{note}");
        assert_eq!(out.lines.len(), out.source_lines.len());
    }
    // Ten times the size limit: the first 4 MiB as plain lines, then what is left.
    let big = "word ".repeat(2 * limit.max_bytes);
    let out = render_bounded(&big);
    let lines = out.plain_lines();
    assert!(
        lines[..2].join(" ").contains("over the 4 MiB limit"),
        "{lines:?}"
    );
    assert!(lines.last().unwrap().ends_with("MiB more"), "{lines:?}");
}

#[test]
fn long_runs_of_inline_markers_render_quickly() {
    for text in [
        "*".repeat(100_000),
        "[".repeat(100_000),
        "*a **b ".repeat(25_000),
        "[a](".repeat(25_000),
    ] {
        let out = render_bounded(&text);
        assert!(!out.lines.is_empty());
        assert!(!out.plain_lines()[0].starts_with("Shown as plain text"));
    }
}

#[test]
fn bidi_and_zero_width_characters_show_as_reversed_markers() {
    let out = render(
        "# T\n\nevil\u{202E}txt.exe and zero\u{200B}width `co\u{2066}de`\n\n```\nfn\u{200D}x()\n```\n",
        &theme(),
        80,
    );
    let lines = out.plain_lines();
    let text = lines.join("\n");
    for marker in ["⟨U+202E⟩", "⟨U+200B⟩", "⟨U+2066⟩", "⟨U+200D⟩"] {
        assert!(text.contains(marker), "{marker} in {lines:#?}");
    }
    assert!(!text.contains('\u{202E}') && !text.contains('\u{200B}'));
    let reversed = out
        .lines
        .iter()
        .flat_map(|l| &l.spans)
        .find(|s| s.content == "⟨U+202E⟩")
        .expect("a marker span");
    assert!(reversed.style.add_modifier.contains(Modifier::REVERSED));
}

#[test]
fn rules_and_frontmatter() {
    let lines = text_of("---\ntitle: x\ntags: [a]\n---\n# H\n\n---\n\nafter\n", 30);
    assert!(lines[0].starts_with("╭─ frontmatter"), "{lines:?}");
    assert!(lines[1].contains("title: x"));
    assert!(lines[3].starts_with('╰'));
    let rule = find(&lines, "after") - 2;
    assert_eq!(lines[rule], "─".repeat(30));
    // No closing line: not frontmatter.
    let lines = text_of("---\nnot closed\n", 30);
    assert!(!lines.iter().any(|l| l.contains("frontmatter")));
}

#[test]
fn private_blocks_are_marked_to_the_end_when_unclosed() {
    let t = theme();
    let md = "public\n\n<private>\nsecret one\n\n- secret item\n</private>\n\nopen again\n\n<private>\nunclosed\n";
    let out = render(md, &t, 40);
    let lines = out.plain_lines();
    assert!(!lines.iter().any(|l| l.contains("<private>")), "{lines:?}");
    let label = find(&lines, "▌ private");
    assert_eq!(out.lines[label].spans[0].style.fg, Some(t.private));
    assert_eq!(lines[find(&lines, "secret one")], "▌ secret one");
    assert_eq!(lines[find(&lines, "secret item")], "▌ • secret item");
    assert_eq!(
        out.lines[find(&lines, "secret one")].spans[0].style.fg,
        Some(t.private)
    );
    assert_eq!(lines[find(&lines, "open again")], "open again");
    assert_eq!(lines[find(&lines, "unclosed")], "▌ unclosed");
    assert_eq!(
        lines.iter().filter(|l| l.as_str() == "▌ private").count(),
        2
    );
    // A tag inside a code fence is just code.
    let fenced = text_of("```\n<private>\n```\nafter\n", 30);
    assert!(fenced.iter().any(|l| l.contains("<private>")));
    assert!(!fenced.iter().any(|l| l.contains("▌")));
}

#[test]
fn category_and_tag_comments_become_chips() {
    let t = theme();
    let md = "# Notes\n<!-- @category: decisions -->\n<!-- @tag: auth -->\n<!-- hidden -->\n\ntext <!-- @tag: inline --> end\n";
    let out = render(md, &t, 40);
    let lines = out.plain_lines();
    let chip = find(&lines, "[category: decisions]");
    assert_eq!(out.lines[chip].spans[0].style.fg, Some(t.chip));
    assert_eq!(out.source_lines[chip], 2);
    assert!(lines.iter().any(|l| l.contains("[tag: auth]")));
    assert!(!lines.iter().any(|l| l.contains("hidden")), "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("text [tag: inline] end")),
        "{lines:?}"
    );
}

#[test]
fn source_lines_map_back_and_never_decrease() {
    let md = "# Title\n\npara one\ncontinues here\n\n- item a\n- item b\n\n```\ncode 1\ncode 2\n```\n\n| a |\n|---|\n| 1 |\n";
    let out = render(md, &theme(), 80);
    let lines = out.plain_lines();
    let source_of = |needle: &str| out.source_lines[find(&lines, needle)];
    assert_eq!(source_of("Title"), 1);
    assert_eq!(source_of("para one"), 3);
    assert_eq!(source_of("item b"), 7);
    assert_eq!(source_of("code 1"), 10);
    assert_eq!(source_of("code 2"), 11);
    assert_eq!(source_of("│ 1"), 16);
    assert!(out.source_lines.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(out.lines.len(), out.source_lines.len());
    assert_eq!(out.line_for_source(7), find(&lines, "item b"));
    assert_eq!(out.line_for_source(10_000), lines.len() - 1);
    // Wrapped paragraph lines map to the source line their words came from.
    let out = render("aaa bbb\nccc ddd\n", &theme(), 7);
    assert_eq!(out.plain_lines(), ["aaa bbb", "ccc ddd"]);
    assert_eq!(out.source_lines, [1, 2]);
}

#[test]
fn hostile_input_does_not_panic_or_blow_up() {
    let t = theme();
    let long = "word ".repeat(100_000);
    let out = render(&long, &t, 80);
    assert!(out.lines.len() > 1_000);
    assert!(out.plain_lines().iter().all(|l| text_width(l) <= 80));
    let unbroken = "x".repeat(500_000);
    let out = render(
        &format!("| {unbroken} |\n|---|\n\n```\n{unbroken}\n```\n"),
        &t,
        40,
    );
    assert!(out.plain_lines().iter().all(|l| text_width(l) <= 40));
    let nested: String = (0..1_000)
        .map(|d| format!("{}- level {d}\n", "  ".repeat(d)))
        .collect();
    let out = render(&nested, &t, 60);
    assert!(out.plain_lines().iter().all(|l| text_width(l) <= 60));
    let quotes = format!("{} deep\n", ">".repeat(50_000));
    render(&quotes, &t, 60);
    let big = "## Section\n\nSome **bold** text and a [link](x).\n\n- [x] task\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```rust\nfn f() {}\n```\n\n".repeat(14_000);
    let out = render(&big, &t, 100);
    assert!(out.lines.len() > 100_000);
    for width in [0, 1, 2, 3] {
        render(
            "# H\n\n- [ ] x\n\n| a | b |\n|---|---|\n\n```\ncode\n```\n> q\n",
            &t,
            width,
        );
    }
}

#[test]
fn fit_columns_shares_room_fairly() {
    assert_eq!(fit_columns(&[3, 4], 20), [3, 4]);
    assert_eq!(fit_columns(&[3, 50, 50], 23), [3, 10, 10]);
    assert_eq!(fit_columns(&[5, 5], 0), [1, 1]);
}
