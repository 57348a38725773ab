use super::document::joined_equals;
use super::*;
use crossterm::event::KeyModifiers;

#[test]
fn joined_equals_matches_join_exactly() {
    for (lines, text) in [
        (vec!["a", "b"], "a\nb"),
        (vec!["a", "b", ""], "a\nb\n"),
        (vec![""], ""),
        (vec!["a", "b"], "a\nb\n"),
        (vec!["a", "b"], "a\r\nb"),
        (vec!["ab"], "a\nb"),
        (vec!["a", ""], "a"),
    ] {
        let lines: Vec<String> = lines.into_iter().map(String::from).collect();
        assert_eq!(
            joined_equals(&lines, text),
            join_lines(&lines) == text,
            "{lines:?} vs {text:?}"
        );
    }
}

#[test]
fn lines_round_trip_with_trailing_newline() {
    for text in ["", "a", "a\n", "a\nb", "a\rb\r\n", "\n\n"] {
        let lines = split_lines(text);
        assert_eq!(join_lines(&lines), text, "{text:?}");
    }
}

fn disk(text: &str) -> EditText {
    EditText::from_bytes(std::path::Path::new("/tmp/x.md"), text.as_bytes().to_vec()).unwrap()
}

fn editor(path: &str, text: &str) -> Editor {
    Editor {
        doc: Some(Document::new(path.into(), None, disk(text))),
        ..Editor::default()
    }
}

fn typed(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn act(editor: &mut Editor, action: Action) -> Vec<Effect> {
    editor.update(Msg::Action(action))
}

fn cursor(editor: &Editor) -> Pos {
    editor.doc.as_ref().unwrap().cursor()
}

fn text(editor: &Editor) -> String {
    editor.doc.as_ref().unwrap().text()
}

#[test]
fn columns_and_characters_convert_both_ways() {
    assert_eq!(display_column("日本x", 2), 4);
    assert_eq!(char_at_column("日本x", 4), 2);
    assert_eq!(char_at_column("日本x", 3), 1);
    assert_eq!(char_at_column("ab", 10), 2);
    assert_eq!(display_column("\tx", 1), 4);
}

#[test]
fn visible_spans_cut_the_window_and_apply_marks() {
    let text = "hello world";
    let marks = vec![(Style::new().add_modifier(Modifier::REVERSED), 6..11)];
    let spans = visible_spans(text, 0..text.len(), 2, 7, &[], &marks, Style::new());
    let shown: String = spans.iter().map(|s| s.content.to_string()).collect();
    assert_eq!(shown, "llo wor");
    assert_eq!(spans.last().unwrap().content, "wor");
    assert!(
        spans
            .last()
            .unwrap()
            .style
            .add_modifier
            .contains(Modifier::REVERSED)
    );
    // A wrapped row: its own bytes, marks still by the line's bytes.
    let spans = visible_spans(text, 6..11, 0, 20, &[], &marks, Style::new());
    assert_eq!(spans.len(), 1);
    assert_eq!(spans[0].content, "world");
    assert!(spans[0].style.add_modifier.contains(Modifier::REVERSED));
}

#[test]
fn hidden_characters_show_reversed_and_named_as_in_the_preview_and_the_cursor_agrees() {
    let text = "a\u{1b}[2J\u{202E}b";
    let spans = visible_spans(text, 0..text.len(), 0, 20, &[], &[], Style::new());
    let shown: String = spans.iter().map(|s| s.content.to_string()).collect();
    assert_eq!(shown, "a␛[2J⟨U+202E⟩b");
    assert!(
        spans
            .iter()
            .any(|s| s.content == "␛" && s.style.add_modifier.contains(Modifier::REVERSED))
    );
    assert!(
        spans
            .iter()
            .any(|s| s.content == "⟨U+202E⟩" && s.style.add_modifier.contains(Modifier::REVERSED))
    );
    // The marker is eight cells of one character: `b` starts after it.
    assert_eq!(display_column(text, 5), 5);
    assert_eq!(display_column(text, 6), 13);
    assert_eq!(char_at_column(text, 5), 5);
    assert_eq!(char_at_column(text, 13), 6);
}

#[test]
fn a_huge_single_line_is_cut_to_the_window() {
    let text = "x".repeat(500_000);
    let spans = visible_spans(&text, 0..text.len(), 499_990, 80, &[], &[], Style::new());
    let shown: String = spans.iter().map(|s| s.content.to_string()).collect();
    assert_eq!(shown.len(), 10);
}

#[test]
fn a_long_line_drawn_from_its_window_shows_what_the_whole_walk_shows() {
    // Wide characters and a tab before the window: the window starts on a character
    // boundary at or before the left column, and drawing from there with the rest of the
    // offset gives the cells drawing from the line's start gives.
    let text = format!("{}\t{}tail-end", "漢字x".repeat(1_000), "é".repeat(3_000));
    for left in [0, 1, 2, 3, 2_999, 3_000, 3_001, 3_004, 6_000] {
        let (from, column) = super::wrap::byte_at_column(&text, left);
        assert!(text.is_char_boundary(from) && column <= left, "left {left}");
        let whole = visible_spans(&text, 0..text.len(), left, 40, &[], &[], Style::new());
        let windowed = visible_spans(
            &text,
            from..text.len(),
            left - column,
            40,
            &[],
            &[],
            Style::new(),
        );
        let cells = |spans: &[Span]| {
            spans
                .iter()
                .map(|s| s.content.to_string())
                .collect::<String>()
        };
        assert_eq!(cells(&windowed), cells(&whole), "left {left}");
    }
}

#[test]
fn matches_are_found_in_the_visible_part_of_a_long_line() {
    let theme = Theme::load("dark", None).unwrap();
    let text = format!("{}needle{}", "x".repeat(300_000), "y".repeat(300_000));
    let pattern = search_regex("NEEDLE".to_lowercase().as_str());
    let on_screen = 299_990..300_100;
    let marks = marks_for_line(0, &text, on_screen, None, pattern.as_ref(), &theme);
    assert_eq!(marks.len(), 1);
    assert_eq!(marks[0].1, 300_000..300_006);
    let elsewhere = marks_for_line(0, &text, 0..100, None, pattern.as_ref(), &theme);
    assert!(elsewhere.is_empty());
}

#[test]
fn dirty_follows_edits_and_undo() {
    let mut editor = editor("/tmp/x.md", "abc\n");
    assert!(!editor.is_dirty());
    assert!(matches!(
        editor.update(typed('z')).as_slice(),
        [Effect::BufferChanged]
    ));
    assert!(editor.is_dirty());
    assert!(matches!(
        act(&mut editor, Action::Undo).as_slice(),
        [Effect::BufferChanged]
    ));
    assert!(!editor.is_dirty(), "undo back to the saved text is clean");
}

#[test]
fn read_only_documents_do_not_change() {
    let mut editor = editor("/tmp/x.md", "abc");
    editor.doc.as_mut().unwrap().read_only = Some("read-only".into());
    assert!(editor.update(typed('z')).is_empty());
    assert!(matches!(
        act(&mut editor, Action::Cut).as_slice(),
        [Effect::Toast(_)]
    ));
    assert!(matches!(
        act(&mut editor, Action::Save).as_slice(),
        [Effect::Toast(_)]
    ));
    // Copying is not editing.
    act(&mut editor, Action::Copy);
    assert_eq!(editor.register.as_ref().unwrap().text, "abc");
    assert_eq!(text(&editor), "abc");
}

#[test]
fn smart_case_ignores_case_until_a_capital_is_typed() {
    let lower = search_regex("memory").unwrap();
    assert!(lower.is_match("Memory Bank") && lower.is_match("MEMORY"));
    let upper = search_regex("Memory").unwrap();
    assert!(upper.is_match("Memory Bank") && !upper.is_match("memory"));
    // Typed text is literal.
    assert!(search_regex("a.c").unwrap().is_match("a.c"));
    assert!(!search_regex("a.c").unwrap().is_match("abc"));
}

/// An editor drawn once at `width` x `height`, so soft wrap knows its width.
fn drawn(path: &str, content: &str, width: u16, height: u16) -> Editor {
    let mut editor = editor(path, content);
    draw(&mut editor, width, height);
    editor
}

fn draw(editor: &mut Editor, width: u16, height: u16) -> (String, Option<(u16, u16)>) {
    let theme = Theme::load("dark", None).unwrap();
    let backend = ratatui::backend::TestBackend::new(width, height);
    let mut terminal = ratatui::Terminal::new(backend).unwrap();
    let frame = terminal
        .draw(|frame| editor.draw(frame, frame.area(), &theme, true))
        .unwrap();
    let buffer = frame.buffer.clone();
    let screen = (0..height)
        .map(|y| {
            (0..width)
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n");
    let cursor = terminal.get_cursor_position().ok().map(|p| (p.x, p.y));
    (screen, cursor)
}

#[test]
fn up_and_down_move_by_screen_rows_on_wrapped_lines() {
    // 30 wide: a 4-cell gutter and a 1-cell border each side leave 24, rows wrap at 23.
    let line = "alpha beta gamma delta epsilon zeta eta theta iota kappa";
    let mut editor = drawn("/tmp/x.md", &format!("{line}\nshort"), 30, 8);
    assert!(editor.wraps());
    act(&mut editor, Action::Right);
    act(&mut editor, Action::Right);
    // Rows: "alpha beta gamma delta " (0..23), "epsilon zeta eta theta " (23..46), the rest.
    act(&mut editor, Action::Down);
    assert_eq!(cursor(&editor), (0, 25), "the second row, same column");
    act(&mut editor, Action::Down);
    act(&mut editor, Action::Down);
    assert_eq!(cursor(&editor), (1, 2), "then the next line");
    act(&mut editor, Action::Up);
    assert_eq!(cursor(&editor).0, 0);
    // Without wrap, down leaves the line.
    act(&mut editor, Action::ToggleWrap);
    act(&mut editor, Action::FileStart);
    act(&mut editor, Action::Down);
    assert_eq!(cursor(&editor), (1, 0));
    // Code files do not wrap by default.
    let code = drawn("/tmp/x.json", &format!("{line}\nshort"), 30, 8);
    assert!(!code.wraps());
}

#[test]
fn the_cursor_is_drawn_on_its_wrapped_row() {
    let line = "alpha beta gamma delta epsilon zeta eta theta iota kappa";
    let mut editor = drawn("/tmp/x.md", line, 30, 8);
    let doc = editor.doc.as_mut().unwrap();
    doc.buffer.move_to((0, 26), false);
    let (screen, cursor) = draw(&mut editor, 30, 8);
    // The second row starts with "epsilon" (column 23); the cursor is 3 into it.
    assert!(
        screen.lines().nth(2).unwrap().contains("epsilon"),
        "{screen}"
    );
    let gutter = 4;
    assert_eq!(cursor, Some((1 + gutter + 3, 2)), "{screen}");
    // A click on the third row's start puts the cursor there.
    editor.update(Msg::Click {
        row: 2,
        col: gutter,
    });
    assert_eq!(cursor_of(&editor), (0, 46));
}

fn cursor_of(editor: &Editor) -> Pos {
    cursor(editor)
}

#[test]
fn the_view_follows_the_cursor_down_a_long_wrapped_line() {
    let line = "word ".repeat(2_000);
    let mut editor = drawn("/tmp/x.md", &line, 30, 8);
    act(&mut editor, Action::FileEnd);
    let (screen, cursor) = draw(&mut editor, 30, 8);
    let doc = editor.doc.as_ref().unwrap();
    assert!(doc.top_row > 300, "{}", doc.top_row);
    let (_, y) = cursor.unwrap();
    assert!((1..7).contains(&y), "{screen}");
    act(&mut editor, Action::FileStart);
    draw(&mut editor, 30, 8);
    assert_eq!(editor.doc.as_ref().unwrap().top_row, 0);
}

#[test]
fn ctrl_end_and_ctrl_home_reach_the_ends_of_the_file() {
    let mut editor = editor("/tmp/x.md", "one\ntwo\nthree end");
    act(&mut editor, Action::FileEnd);
    assert_eq!(cursor(&editor), (2, 9));
    act(&mut editor, Action::FileStart);
    assert_eq!(cursor(&editor), (0, 0));
    act(&mut editor, Action::SelectFileEnd);
    act(&mut editor, Action::Copy);
    assert_eq!(
        editor.register.as_ref().unwrap().text,
        "one\ntwo\nthree end"
    );
}

#[test]
fn copy_cut_and_paste_round_trip_and_reach_the_clipboard() {
    let mut editor = editor("/tmp/x.md", "hello world\nsecond");
    act(&mut editor, Action::SelectWordRight);
    act(&mut editor, Action::Copy);
    assert_eq!(editor.take_clipboard().as_deref(), Some("hello "));
    assert!(editor.take_clipboard().is_none(), "sent once");
    act(&mut editor, Action::LineEnd);
    act(&mut editor, Action::Paste);
    assert_eq!(text(&editor), "hello worldhello \nsecond");
    // Nothing selected: the whole line, pasted as a line above.
    act(&mut editor, Action::Down);
    act(&mut editor, Action::Cut);
    assert_eq!(text(&editor), "hello worldhello ");
    assert_eq!(editor.take_clipboard().as_deref(), Some("second\n"));
    act(&mut editor, Action::FileStart);
    act(&mut editor, Action::Paste);
    assert_eq!(text(&editor), "second\nhello worldhello ");
    // A bracketed paste with the terminal's carriage returns.
    editor.update(Msg::Paste("a\rb".into()));
    assert_eq!(
        text(&editor),
        "second\na\rbhello worldhello ".replace('\r', "\n")
    );
    act(&mut editor, Action::Undo);
    assert_eq!(text(&editor), "second\nhello worldhello ", "one undo step");
}

fn vim(path: &str, text: &str) -> Editor {
    Editor {
        modal: true,
        ..editor(path, text)
    }
}

fn keys(editor: &mut Editor, sequence: &[Action]) {
    for action in sequence {
        act(editor, *action);
    }
}

#[test]
fn vim_operators_take_motions_and_lines() {
    use Action::*;
    let mut editor = vim("/tmp/x.md", "one two three\nsecond line\nthird");
    assert_eq!(editor.context(), KeyContext::EditorNormal);
    keys(&mut editor, &[DeleteOp, WordRight]);
    assert_eq!(text(&editor), "two three\nsecond line\nthird");
    keys(&mut editor, &[ChangeOp, WordRight]);
    assert_eq!(editor.context(), KeyContext::EditorInsert);
    for c in "2".chars() {
        editor.update(typed(c));
    }
    act(&mut editor, NormalMode);
    assert_eq!(text(&editor), "2 three\nsecond line\nthird");
    keys(&mut editor, &[Down, DeleteOp, DeleteOp]);
    assert_eq!(text(&editor), "2 three\nthird");
    assert_eq!(editor.register.as_ref().unwrap().text, "second line");
    keys(&mut editor, &[PasteAfter]);
    assert_eq!(text(&editor), "2 three\nthird\nsecond line");
    keys(&mut editor, &[Undo, Undo]);
    assert_eq!(text(&editor), "2 three\nsecond line\nthird");
    keys(&mut editor, &[Undo]);
    assert_eq!(
        text(&editor),
        "two three\nsecond line\nthird",
        "the change and what was typed are one step"
    );
    keys(&mut editor, &[Redo]);
    assert_eq!(text(&editor), "2 three\nsecond line\nthird");
    // g g and G, d $, x.
    keys(&mut editor, &[FileEnd]);
    assert_eq!(cursor(&editor), (2, 0));
    keys(&mut editor, &[GotoPrefix, GotoPrefix, LineEnd]);
    assert_eq!(cursor(&editor), (0, 6), "on the last character");
    keys(&mut editor, &[LineStart, DeleteForward]);
    assert_eq!(text(&editor), " three\nsecond line\nthird");
    keys(&mut editor, &[DeleteOp, LineEnd]);
    assert_eq!(text(&editor), "\nsecond line\nthird");
    keys(&mut editor, &[DeleteOp, GotoPrefix, GotoPrefix]);
    assert_eq!(
        text(&editor),
        "second line\nthird",
        "d g g: to the first line"
    );
}

#[test]
fn vim_visual_modes_select_characters_and_lines() {
    use Action::*;
    let mut editor = vim("/tmp/x.md", "alpha beta\ngamma\ndelta");
    keys(&mut editor, &[VisualMode, WordEnd]);
    assert_eq!(editor.context(), KeyContext::EditorVisual);
    assert_eq!(editor.visual_range(), Some(((0, 0), (0, 5))));
    keys(&mut editor, &[YankOp]);
    assert_eq!(editor.context(), KeyContext::EditorNormal);
    assert_eq!(editor.register.as_ref().unwrap().text, "alpha");
    keys(&mut editor, &[Down, VisualLineMode, Down, DeleteOp]);
    assert_eq!(text(&editor), "alpha beta");
    assert!(editor.register.as_ref().unwrap().linewise);
    keys(&mut editor, &[PasteAfter]);
    assert_eq!(text(&editor), "alpha beta\ngamma\ndelta");
    // v j y p: lines 1 and 2 from the cursor's column, put after the cursor.
    keys(&mut editor, &[FileStart, VisualMode, Down, YankOp]);
    assert_eq!(editor.register.as_ref().unwrap().text, "alpha beta\ng");
}

#[test]
fn vim_inserts_open_lines_and_leave_the_cursor_on_the_last_character() {
    use Action::*;
    let mut editor = vim("/tmp/x.md", "first\nlast");
    keys(&mut editor, &[OpenBelow]);
    editor.update(typed('x'));
    act(&mut editor, NormalMode);
    assert_eq!(text(&editor), "first\nx\nlast");
    assert_eq!(cursor(&editor), (1, 0));
    keys(&mut editor, &[AppendLineEnd]);
    editor.update(typed('y'));
    act(&mut editor, NormalMode);
    keys(&mut editor, &[OpenAbove]);
    editor.update(typed('z'));
    act(&mut editor, NormalMode);
    assert_eq!(text(&editor), "first\nz\nxy\nlast");
    keys(&mut editor, &[Undo]);
    assert_eq!(text(&editor), "first\nxy\nlast", "o and its text: one step");
    // Typed keys in normal mode are not text.
    editor.update(typed('q'));
    assert_eq!(text(&editor), "first\nxy\nlast");
}

#[test]
fn a_reload_that_caught_a_write_half_done_does_not_move_the_cursor_for_good() {
    let text = "one\ntwo\nthree\nfour\n";
    let mut doc = Document::new("/tmp/x.md".into(), None, disk(text));
    doc.buffer.set_cursor((2, 3));
    // The agent emptied the file before writing it again, and the reload saw it empty.
    doc.reload(disk(""));
    assert_eq!(doc.cursor(), (0, 0));
    doc.reload(disk(&format!("{text}five\n")));
    assert_eq!(doc.cursor(), (2, 3));
    // Once back, an ordinary reload keeps it as ever.
    doc.reload(disk(&format!("{text}six\n")));
    assert_eq!(doc.cursor(), (2, 3));
}

/// Four lines with the cursor on the last, then a reload of the first two: the cursor
/// could not stay. Returns the document, its whole text and where the cursor landed.
fn after_a_short_reload() -> (Document, &'static str, (usize, usize)) {
    let text = "one\ntwo\nthree\nfour\n";
    let mut doc = Document::new("/tmp/x.md".into(), None, disk(text));
    doc.buffer.set_cursor((3, 2));
    doc.reload(disk("one\ntwo\n"));
    let landed = doc.cursor();
    assert_ne!(landed, (3, 2));
    (doc, text, landed)
}

#[test]
fn a_cursor_moved_after_a_short_reload_stays_where_the_person_put_it() {
    let (mut doc, text, _) = after_a_short_reload();
    doc.buffer.set_cursor((0, 1));
    doc.reload(disk(text));
    assert_eq!(doc.cursor(), (0, 1));
}

#[test]
fn a_buffer_changed_after_a_short_reload_keeps_its_cursor_on_the_next() {
    let (mut doc, text, landed) = after_a_short_reload();
    // A merge's result replaces the text; the cursor is put where the reload left it.
    doc.replace_text("one\ntwo\n");
    doc.buffer.set_cursor(landed);
    doc.reload(disk(text));
    assert_eq!(doc.cursor(), landed);
}
