//! The editor as people who live in helix or vim use it, driven with keys through the
//! app's real loop: undo by word, ctrl-End / ctrl-Home, soft wrap (cursor, clicks and
//! search marks on wrapped rows), the search's smart case and match count, copy / cut /
//! paste, and the vim preset's modes. Snapshots show the wrapped editor at 60x20, 80x24 and 160x45.
use crate::common;

use std::time::Duration;

use common::tui::{DemoBanks, Tui, TuiOptions};
use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use mbank::tui::Message;
use mbank::tui::app::Focus;
use mbank::tui::keymap::{KeyContext, Keymap};
use mbank::tui::overlays::help::Help;
use mbank::tui::theme::Theme;

const ACTIVE: &str = "weather-api/memory-bank/activeContext.md";

/// The weather project with activeContext.md holding `text`, open in the editor with
/// the keyboard in it.
fn editing(text: &str, options: impl FnOnce(TuiOptions) -> TuiOptions) -> (DemoBanks, Tui) {
    let demo = DemoBanks::new();
    std::fs::write(demo.file(ACTIVE), text).unwrap();
    let mut h = options(Tui::demo(&demo)).start();
    h.open_project("weather");
    h.open_file("activeContext.md");
    assert_eq!(h.app.focus, Focus::Editor);
    // However slow the machine, no pause between two keys splits an undo group here.
    let doc = h.app.document.editor.doc.as_mut().unwrap();
    doc.buffer.set_typing_pause(Duration::from_secs(3_600));
    h.idle();
    (demo, h)
}

fn text(h: &Tui) -> String {
    h.doc().text()
}

fn cursor(h: &Tui) -> (usize, usize) {
    h.doc().cursor()
}

/// Where the terminal cursor is after a frame, relative to the editor's text (its
/// first cell, past the line numbers).
fn on_screen(h: &mut Tui) -> (u16, u16) {
    h.screen();
    let area = h.app.document.editor.text_area();
    let at = h.terminal.get_cursor_position().unwrap();
    (at.x - area.x - GUTTER, at.y - area.y)
}

/// The line-number gutter of a file under 1,000 lines.
const GUTTER: u16 = 4;

/// The editor's rows on screen, without the border and the gutter.
fn rows(h: &mut Tui) -> Vec<String> {
    let screen = h.screen();
    let area = h.app.document.editor.text_area();
    screen
        .lines()
        .skip(area.y as usize)
        .take(area.height as usize)
        .map(|line| {
            line.chars()
                .skip((area.x + GUTTER) as usize)
                .take((area.width - GUTTER) as usize)
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect()
}

fn click(h: &mut Tui, x: u16, y: u16) {
    let area = h.app.document.editor.text_area();
    h.app.update(Message::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: area.x + GUTTER + x,
        row: area.y + y,
        modifiers: KeyModifiers::NONE,
    }));
}

#[test]
fn undo_takes_back_a_word_at_a_time_and_redo_brings_it_back() {
    let (_demo, mut h) = editing("Notes\n", |o| o);
    h.keys("ctrl-end h e l l o space b r a v e space w o r l d");
    assert_eq!(text(&h), "Notes\nhello brave world");
    h.keys("ctrl-z");
    assert_eq!(text(&h), "Notes\nhello brave ");
    assert_eq!(cursor(&h), (1, 12));
    h.keys("ctrl-z ctrl-z");
    assert_eq!(text(&h), "Notes\n");
    assert!(!h.is_dirty(), "back to the file as it was");
    h.keys("ctrl-y ctrl-y");
    assert_eq!(text(&h), "Notes\nhello brave ");
    // A burst of backspaces is one step, and a move starts a new group.
    h.keys("backspace backspace backspace");
    assert_eq!(text(&h), "Notes\nhello bra");
    h.keys("home x y ctrl-z");
    assert_eq!(text(&h), "Notes\nhello bra");
    h.keys("ctrl-z");
    assert_eq!(text(&h), "Notes\nhello brave ");
    // An edit after an undo drops what could be redone.
    h.keys("z ctrl-y");
    assert_eq!(text(&h), "Notes\nhello brave z");
    assert!(h.toasts().contains("nothing to redo"), "{}", h.toasts());
}

#[test]
fn ctrl_end_and_ctrl_home_go_to_the_ends_of_the_file() {
    let body: String = (1..=80).map(|n| format!("line {n}\n")).collect();
    let (_demo, mut h) = editing(&format!("{body}last"), |o| o);
    h.keys("ctrl-end");
    assert_eq!(cursor(&h), (80, 4));
    let screen = h.screen();
    assert!(screen.contains(" 81 last"), "{screen}");
    assert!(!screen.contains("  1 line 1 "), "{screen}");
    h.keys("ctrl-home");
    assert_eq!(cursor(&h), (0, 0));
    assert!(h.screen().contains("  1 line 1"));
    // With shift they select: everything to the end, copied whole.
    h.keys("ctrl-shift-end ctrl-c");
    assert_eq!(
        h.app.document.editor.register.as_ref().unwrap().text,
        format!("{body}last")
    );
}

/// "w000 w001 … w019": 20 words of 4 letters, 99 characters.
fn paragraph() -> String {
    (0..20)
        .map(|i| format!("w{i:03}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn soft_wrap_keeps_the_cursor_clicks_and_search_marks_on_their_rows() {
    let (_demo, mut h) = editing(&format!("# Notes\n{}\nshort\n", paragraph()), |o| {
        o.size(80, 24)
    });
    assert!(h.app.document.editor.wraps(), "markdown wraps by default");
    // At 80x24 the text is 42 cells wide and rows wrap at 41: eight words a row.
    let shown = rows(&mut h);
    assert_eq!(shown[0], "# Notes");
    assert_eq!(shown[1], "w000 w001 w002 w003 w004 w005 w006 w007");
    assert_eq!(shown[2], "w008 w009 w010 w011 w012 w013 w014 w015");
    assert_eq!(shown[3], "w016 w017 w018 w019");
    assert_eq!(shown[4], "short");
    let screen = h.screen();
    assert!(
        screen.contains("  2 w000") && screen.contains("    w008"),
        "only a line's first row is numbered: {screen}"
    );

    // Down moves a screen row, keeping the column; end and down reach the next line.
    h.keys("down right right");
    assert_eq!((cursor(&h), on_screen(&mut h)), ((1, 2), (2, 1)));
    h.keys("down");
    assert_eq!((cursor(&h), on_screen(&mut h)), ((1, 42), (2, 2)));
    h.keys("end");
    assert_eq!((cursor(&h), on_screen(&mut h)), ((1, 99), (19, 3)));
    h.keys("down");
    assert_eq!((cursor(&h), on_screen(&mut h)), ((2, 5), (5, 4)));
    h.keys("up up");
    assert_eq!(
        cursor(&h),
        (1, 59),
        "back up by rows, aiming for the column"
    );

    // A click on a wrapped row lands on the character under it.
    click(&mut h, 7, 3);
    assert_eq!((cursor(&h), on_screen(&mut h)), ((1, 87), (7, 3)));

    // Search marks sit on the wrapped row that holds the match.
    h.keys("ctrl-f w 0 1 2 enter");
    assert_eq!(cursor(&h), (1, 60));
    h.screen();
    let area = h.app.document.editor.text_area();
    let buffer = h.terminal.backend().buffer().clone();
    let marked: Vec<u16> = (0..area.width)
        .filter(|&x| buffer[(area.x + x, area.y + 2)].bg == h.app.theme.near)
        .map(|x| x - GUTTER)
        .collect();
    assert_eq!(marked, [20, 21, 22, 23], "w012 on the second row");

    // alt-z turns wrap off for prose: one row per line, cut at the edge.
    h.keys("alt-z ctrl-home");
    assert!(!h.app.document.editor.wraps());
    let shown = rows(&mut h);
    assert_eq!(shown[1], "w000 w001 w002 w003 w004 w005 w006 w007 w0");
    assert_eq!(shown[2], "short");
    h.keys("down down");
    assert_eq!((cursor(&h), on_screen(&mut h)), ((2, 0), (0, 2)));
    h.keys("alt-z");
    assert!(h.app.document.editor.wraps());
}

#[test]
fn search_ignores_case_until_a_capital_and_counts_matches() {
    let (_demo, mut h) = editing(
        "Memory bank\nmemory MEMORY memory\nnothing here\nthe memory\n",
        |o| o,
    );
    h.keys("ctrl-f m e m o r y");
    // While typing, the cursor is on the first match and the count is shown.
    assert_eq!(cursor(&h), (0, 0));
    assert!(h.screen().contains("search: memory▏ 1/5"), "{}", h.screen());
    h.keys("enter F6");
    assert_eq!(cursor(&h), (1, 0));
    assert!(h.screen().contains("/memory 2/5"), "{}", h.screen());
    h.keys("F6 F6 F6");
    assert_eq!(cursor(&h), (3, 4));
    h.keys("F6");
    assert_eq!(cursor(&h), (0, 0), "n goes round the end");
    h.keys("shift-F6");
    assert_eq!(cursor(&h), (3, 4));
    assert!(h.screen().contains("/memory 5/5"));
    // A capital makes the search match case.
    h.keys("ctrl-f M E M O R Y enter");
    assert_eq!(cursor(&h), (1, 7));
    assert!(h.screen().contains("/MEMORY 1/1"), "{}", h.screen());
    // Not found: said so; esc in the prompt puts the cursor back and clears it.
    h.keys("ctrl-f z z z enter");
    assert!(h.toasts().contains("\"zzz\" not found"), "{}", h.toasts());
    h.keys("ctrl-f m e m esc");
    assert_eq!(cursor(&h), (1, 7));
    assert!(h.app.document.editor.found.is_none());
    assert!(h.doc().buffer.search_pattern().is_none());
}

#[test]
fn copy_cut_and_paste_round_trip_with_the_selection() {
    let (_demo, mut h) = editing("alpha beta\ngamma\n", |o| o);
    h.keys("ctrl-shift-right shift-right shift-right ctrl-c");
    assert!(!h.app.quit, "ctrl-c copies, it does not quit");
    assert_eq!(
        h.app.document.editor.take_clipboard().as_deref(),
        Some("alpha be")
    );
    h.keys("down end ctrl-v");
    assert_eq!(text(&h), "alpha beta\ngammaalpha be\n");
    h.keys("shift-home ctrl-x");
    assert_eq!(text(&h), "alpha beta\n\n");
    h.keys("ctrl-home ctrl-v");
    assert_eq!(text(&h), "gammaalpha bealpha beta\n\n");
    // Nothing selected: ctrl-x cuts the line, ctrl-v puts it back above the cursor's.
    h.keys("ctrl-x");
    assert_eq!(text(&h), "\n");
    assert_eq!(
        h.app.document.editor.take_clipboard().as_deref(),
        Some("gammaalpha bealpha beta\n"),
        "whole lines reach the clipboard with their newline"
    );
    h.keys("down ctrl-v");
    assert_eq!(text(&h), "\ngammaalpha bealpha beta\n");
    h.keys("ctrl-z ctrl-z");
    assert_eq!(text(&h), "gammaalpha bealpha beta\n\n");
    // A bracketed paste from the terminal (its newlines come as carriage returns) goes
    // in at the cursor as one undo step.
    h.keys("ctrl-end");
    h.app.update(Message::Paste("one\rtwo".into()));
    assert_eq!(text(&h), "gammaalpha bealpha beta\n\none\ntwo");
    h.keys("ctrl-z");
    assert_eq!(text(&h), "gammaalpha bealpha beta\n\n");
}

#[test]
fn the_vim_preset_has_normal_insert_and_visual_modes() {
    let (_demo, mut h) = editing("one two\nthree\nfour\n", TuiOptions::vim);
    assert_eq!(h.app.key_context(), KeyContext::EditorNormal);
    let screen = h.screen();
    assert!(screen.contains(" NORMAL "), "the mode is shown: {screen}");
    let status = screen.lines().last().unwrap().to_string();
    assert!(
        status.contains("i insert") && status.contains("v visual"),
        "{status}"
    );
    // Typed letters are commands, never text or global keys.
    h.keys("t r f");
    assert_eq!(text(&h), "one two\nthree\nfour\n");
    assert_eq!(h.app.focus, Focus::Editor);

    // d d deletes the line, u brings it back.
    h.keys("esc d d");
    assert_eq!(text(&h), "three\nfour\n");
    assert_eq!(h.doc().mode.label(), "NORMAL");
    h.keys("u");
    assert_eq!(text(&h), "one two\nthree\nfour\n");
    h.keys("ctrl-r u");
    assert_eq!(text(&h), "one two\nthree\nfour\n");

    // v j y p: from "one two" to the "t" of "three", put after the cursor.
    h.keys("v j");
    assert_eq!(h.app.key_context(), KeyContext::EditorVisual);
    assert!(h.screen().contains(" VISUAL "));
    h.keys("y p");
    assert_eq!(text(&h), "oone two\ntne two\nthree\nfour\n");
    h.keys("u");

    // Motions: w e b, 0 $, G g g, j k h l.
    h.keys("w");
    assert_eq!(cursor(&h), (0, 4));
    h.keys("e");
    assert_eq!(cursor(&h), (0, 6));
    h.keys("b 0");
    assert_eq!(cursor(&h), (0, 0));
    h.keys("$");
    assert_eq!(cursor(&h), (0, 6), "on the last character, as in vim");
    h.keys("G");
    assert_eq!(cursor(&h), (3, 0));
    h.keys("g g j l");
    assert_eq!(cursor(&h), (1, 1));

    // Insert: i a A I o O, esc back to normal; the whole insert is one undo step.
    h.keys("i X Y");
    assert_eq!(h.app.key_context(), KeyContext::EditorInsert);
    let screen = h.screen();
    assert!(screen.contains(" INSERT "), "{screen}");
    assert!(screen.lines().last().unwrap().contains("esc normal"));
    h.keys("esc");
    assert_eq!(text(&h), "one two\ntXYhree\nfour\n");
    assert_eq!(cursor(&h), (1, 2));
    h.keys("o n e w space l i n e esc");
    assert_eq!(text(&h), "one two\ntXYhree\nnew line\nfour\n");
    h.keys("u");
    assert_eq!(text(&h), "one two\ntXYhree\nfour\n");
    h.keys("u");
    assert_eq!(text(&h), "one two\nthree\nfour\n");
    h.keys("A ! esc I > esc O t o p esc");
    assert_eq!(text(&h), "one two\ntop\n>three!\nfour\n");
    h.keys("u u u");

    // x, c w, y y P, V j d, and the search.
    h.keys("g g x");
    assert_eq!(text(&h), "ne two\nthree\nfour\n");
    h.keys("c w O N E esc");
    assert_eq!(text(&h), "ONE two\nthree\nfour\n");
    h.keys("y y j P");
    assert_eq!(text(&h), "ONE two\nONE two\nthree\nfour\n");
    h.keys("V j d");
    assert_eq!(text(&h), "ONE two\nfour\n");
    h.keys("/ f o u enter");
    assert_eq!(cursor(&h), (1, 0));
    h.keys("g g n");
    assert_eq!(cursor(&h), (1, 0));
    h.keys("N");
    assert_eq!(cursor(&h), (1, 0), "the only match, from either side");

    // ctrl-s saves from normal mode; q goes back to the tree.
    h.keys("ctrl-s");
    h.pump_until("the save", |app| !app.document.is_dirty());
    h.keys("q");
    assert_eq!(h.app.focus, Focus::Tree);
}

#[test]
fn help_lists_every_movement_and_editing_key_of_the_editor() {
    let theme = Theme::default();
    let lines = |keymap: &Keymap, context| -> String {
        Help::new(context)
            .lines(keymap, &theme)
            .iter()
            .map(|line| {
                line.spans
                    .iter()
                    .map(|s| s.content.as_ref())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let default = Keymap::load(None, None).unwrap();
    let help = lines(&default, KeyContext::Editor);
    for (keys, does) in [
        ("ctrl-home", "start of the file"),
        ("ctrl-end", "end of the file"),
        ("ctrl-c", "copy the selection"),
        ("ctrl-x", "cut the selection"),
        ("ctrl-v", "paste"),
        ("alt-z", "soft wrap on / off"),
        ("ctrl-← alt-b", "start of the word"),
        ("shift-↓", "select down"),
        ("ctrl-w alt-backspace", "delete the word before the cursor"),
        ("home", "start of the line"),
    ] {
        assert!(
            help.lines().any(|l| l.contains(keys) && l.contains(does)),
            "{keys} {does}:\n{help}"
        );
    }
    assert!(
        !help.contains("normal mode"),
        "no vim modes in the default keys"
    );
    let vim = Keymap::load(Some("vim"), None).unwrap();
    let help = lines(&vim, KeyContext::EditorNormal);
    assert!(help.starts_with("Editor: normal mode (vim)"), "{help}");
    for (keys, does) in [
        ("h ← backspace", "left"),
        ("d ", "delete: twice the line"),
        ("g ", "then g: start of the file"),
        ("G ctrl-end", "end of the file"),
        ("p ", "paste after the cursor"),
        ("esc", "normal mode"),
    ] {
        assert!(
            help.lines().any(|l| l.contains(keys) && l.contains(does)),
            "{keys} {does}:\n{help}"
        );
    }
    assert!(help.contains("Editor: insert mode") && help.contains("Editor: visual mode"));
}

fn trimmed(screen: &str) -> String {
    screen
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn snapshots_of_the_wrapped_editor() {
    for (width, height) in [(60, 20), (80, 24), (160, 45)] {
        let demo = DemoBanks::new();
        let mut h = Tui::demo(&demo).size(width, height).start();
        h.open_project("weather");
        h.open_file("activeContext.md");
        h.keys("down down down down down down end");
        insta::assert_snapshot!(
            format!("editor_wrapped_{width}x{height}"),
            trimmed(&h.settled_screen())
        );
    }
}

#[test]
fn snapshots_of_the_vim_editor_searching() {
    for (width, height) in [(60, 20), (80, 24), (160, 45)] {
        let demo = DemoBanks::new();
        let mut h = Tui::demo(&demo).size(width, height).vim().start();
        h.open_project("weather");
        h.open_file("activeContext.md");
        h.keys("/ g e o s p h e r e enter n v e");
        insta::assert_snapshot!(
            format!("editor_vim_visual_{width}x{height}"),
            trimmed(&h.settled_screen())
        );
    }
}
