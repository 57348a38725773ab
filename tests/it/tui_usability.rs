//! What a newcomer trips on, driven as a person would: key strings through the app's real
//! loop on the TestBackend, then the screen and the files checked. Each test is named for
//! the promise it keeps (a prompt does what its hint says, global letters never reach a
//! file, the status bar keeps the keys that leave, messages are kept whole, ...).
use crate::common;

use common::tui::{DemoBanks, Tui};
use mbank::tui::Message;
use mbank::tui::app::Focus;
use mbank::tui::overlays::Overlay;

/// The status bar: the screen's last line.
fn status(h: &mut Tui) -> String {
    h.screen().lines().last().unwrap_or_default().to_string()
}

/// Types `MINE ` into progress.md, then an agent appends to it on disk: the conflict
/// prompt opens.
fn conflict_on_progress(h: &mut Tui, demo: &DemoBanks, appended: &str) -> String {
    h.open_project("weather");
    h.open_file("progress.md");
    h.keys("M I N E space");
    let path = demo.file("weather-api/memory-bank/progress.md");
    let original = std::fs::read_to_string(&path).unwrap();
    let theirs = format!("{original}{appended}\n");
    std::fs::write(&path, &theirs).unwrap();
    h.app.update(Message::FilesChanged(vec![path]));
    h.pump_until("the conflict prompt", |app| {
        matches!(app.overlays.last(), Some(Overlay::Conflict(_)))
    });
    theirs
}

#[test]
fn esc_on_the_conflict_prompt_goes_back_to_the_edits_and_saving_asks_again() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).start();
    let theirs = conflict_on_progress(&mut h, &demo, "- [x] an agent's line");
    let path = demo.file("weather-api/memory-bank/progress.md");
    let screen = h.screen();
    assert!(
        screen.contains("esc back"),
        "the prompt offers esc:\n{screen}"
    );
    h.keys("esc");
    assert!(h.app.overlays.is_empty(), "esc closes the prompt");
    assert_eq!(h.app.focus, Focus::Editor);
    // Nothing was decided: the edits stay in the buffer, their version on disk.
    assert!(h.doc().text().starts_with("MINE # Progress"));
    assert!(h.is_dirty());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);
    assert!(h.toasts().contains("your edits stay"), "{}", h.toasts());
    // Saving while they differ asks again, and writes nothing.
    h.keys("ctrl-s");
    h.pump_until("the prompt again", |app| {
        matches!(app.overlays.last(), Some(Overlay::Conflict(_)))
    });
    assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);
}

#[test]
fn the_conflict_prompt_wraps_a_change_at_the_end_of_a_long_line() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(80, 24).start();
    let tail = "THE-END-OF-THE-LINE";
    let long = format!("- {} {tail}", "words of an agent ".repeat(8));
    conflict_on_progress(&mut h, &demo, &long);
    let screen = h.screen();
    assert!(screen.contains(tail), "{screen}");
}

#[test]
fn the_merge_view_starts_at_the_first_conflict() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).start();
    h.open_project("weather");
    h.open_file("progress.md");
    let path = demo.file("weather-api/memory-bank/progress.md");
    let original = std::fs::read_to_string(&path).unwrap();
    // Both sides change the same line, far from the top.
    let line = original.lines().count() - 2;
    h.keys("ctrl-end up up end");
    h.keys("space m i n e");
    let mut theirs: Vec<String> = original.lines().map(String::from).collect();
    theirs[line] = format!("{} theirs", theirs[line]);
    std::fs::write(&path, theirs.join("\n") + "\n").unwrap();
    h.app.update(Message::FilesChanged(vec![path]));
    h.pump_until("the conflict prompt", |app| {
        matches!(app.overlays.last(), Some(Overlay::Conflict(_)))
    });
    h.keys("v");
    let first_marker = h
        .doc()
        .text()
        .lines()
        .position(|l| l.starts_with("<<<<<<<"))
        .expect("a conflict is marked");
    assert_eq!(
        h.doc().cursor().0,
        first_marker,
        "the cursor is on the first conflict"
    );
    let screen = h.screen();
    assert!(screen.contains("<<<<<<<"), "and it is on screen:\n{screen}");
}

#[test]
fn zoom_ends_when_a_file_is_opened_so_no_global_letter_reaches_the_file() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(80, 24).start();
    h.open_project("weather");
    let path = demo.file("weather-api/memory-bank/projectBrief.md");
    let before = std::fs::read_to_string(&path).unwrap();
    h.keys("z");
    assert!(h.app.zoomed);
    assert!(status(&mut h).contains("z zoom"), "{}", status(&mut h));
    h.keys("enter");
    assert_eq!(h.app.focus, Focus::Editor);
    assert!(!h.app.zoomed, "the zoom stays with the tree");
    // In the editor the status bar names the way out, and the zoom only by a key that is
    // not text; both work.
    let bar = status(&mut h);
    assert!(bar.contains("esc tree"), "{bar}");
    assert!(!bar.contains(" z zoom"), "{bar}");
    h.keys("f8");
    assert!(h.app.zoomed);
    let bar = status(&mut h);
    assert!(bar.contains("F8 zoom") && bar.contains("esc tree"), "{bar}");
    h.keys("f8 esc");
    assert!(!h.app.zoomed && h.app.focus == Focus::Tree);
    assert!(!h.is_dirty(), "nothing was typed into the file");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
}

#[test]
fn typing_the_timeline_filter_takes_global_letters_and_the_status_bar_names_only_its_keys() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(80, 24).start();
    h.open_project("weather");
    h.keys("t /");
    let bar = status(&mut h);
    assert!(bar.contains("enter done"), "{bar}");
    for gone in ["q quit", "p projects", "s status"] {
        assert!(
            !bar.contains(gone),
            "{gone} would go into the filter: {bar}"
        );
    }
    h.keys("p o s t q");
    assert!(!h.app.quit);
    assert_eq!(h.app.timeline.text, "postq");
    assert_eq!(h.app.screen, mbank::tui::app::Screen::Project);
    h.keys("backspace enter");
    assert_eq!(h.app.timeline.text, "post");
    assert_eq!(h.app.timeline.visible_len(), 1, "{}", h.screen());
}

#[test]
fn at_80_columns_the_status_bar_keeps_the_keys_that_leave_the_mode() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(80, 24).start();
    h.open_project("weather");
    h.keys("enter");
    let bar = status(&mut h);
    assert!(bar.contains("esc tree"), "{bar}");
    h.keys("esc r");
    h.pump_until("the review", |app| {
        app.review.pane.review.is_some() && !app.review.pane.busy
    });
    let bar = status(&mut h);
    for key in [
        "esc back", "a accept", "x reject", "z zoom", "? help", "q quit",
    ] {
        assert!(bar.contains(key), "{key}: {bar}");
    }
}

#[test]
fn help_keeps_long_key_lists_out_of_the_descriptions() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(160, 45).start();
    h.open_project("weather");
    h.keys("enter f1");
    let mut seen = String::new();
    for _ in 0..4 {
        seen.push_str(&h.screen());
        h.keys("pagedown");
    }
    let column = |keys: &str, does: &str| -> usize {
        let line = seen
            .lines()
            .find(|l| l.contains(keys) && l.contains(does))
            .unwrap_or_else(|| panic!("{keys} {does}:\n{seen}"));
        line.chars().count() - line[line.find(does).unwrap_or(0)..].chars().count()
    };
    // Every description starts in one column, after the longest chord list.
    let save = column("ctrl-s", "save");
    assert_eq!(
        column(
            "ctrl-w alt-backspace ctrl-backspace",
            "delete the word before the cursor"
        ),
        save
    );
    assert_eq!(
        column("ctrl-del alt-del alt-d", "delete to the end of the word"),
        save
    );
}

#[test]
fn the_message_history_keeps_every_message_whole() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(80, 24).start();
    h.open_project("weather");
    let long = format!(
        "a long message naming /a/very/long/path/{}/backup.md and why",
        "deep/".repeat(20)
    );
    h.app.toast_error(long.clone());
    h.app.toast("second");
    h.app.toast("third");
    let bar = status(&mut h);
    assert!(
        bar.contains("(+2, M)"),
        "the status bar says where the rest is: {bar}"
    );
    assert!(!bar.contains("and why"), "the status line cuts it: {bar}");
    h.keys("M");
    let screen = h.screen();
    assert!(screen.contains("Messages"), "{screen}");
    // Wrapped, nothing lost: the message's pieces joined give it back.
    let body: String = screen
        .lines()
        .map(|l| l.trim_matches(|c| c == '│' || c == ' '))
        .collect();
    assert!(
        body.replace(' ', "").contains(&long.replace(' ', "")),
        "{screen}"
    );
    assert!(
        screen.contains("third") && screen.contains("second"),
        "{screen}"
    );
    h.keys("esc");
    assert!(h.app.overlays.is_empty());
    // Help names the key.
    h.keys("?");
    let mut help = h.screen();
    for _ in 0..3 {
        h.keys("pagedown");
        help.push_str(&h.screen());
    }
    assert!(
        help.contains("M F9") && help.contains("messages: every one shown this session"),
        "{help}"
    );
}

/// A root for the picker's figures: `split` has two banks each at 60 % of its own
/// budget (together past one bank's), `blocked` is 35 times over its budget with one
/// file that cannot be read, `a-project-with-a-rather-long-name-indeed` has a long name.
fn write_budget_root(root: &std::path::Path) {
    let cline = |project: &str, sizes: &[(&str, usize)]| {
        let bank = root.join(project).join("memory-bank");
        std::fs::create_dir_all(&bank).unwrap();
        for (name, words) in sizes {
            let body = "budget ".repeat(*words);
            std::fs::write(
                bank.join(format!("{name}.md")),
                format!("# {name}\n\n{body}\n"),
            )
            .unwrap();
        }
    };
    let core = |words| {
        [
            ("projectbrief", words),
            ("productContext", words),
            ("systemPatterns", words),
            ("techContext", words),
            ("activeContext", words),
            ("progress", words),
        ]
    };
    cline("split", &core(500));
    let rules = root.join("split/.clinerules");
    std::fs::create_dir_all(&rules).unwrap();
    std::fs::write(
        rules.join("rules.md"),
        format!("# rules\n{}", "rule ".repeat(3000)),
    )
    .unwrap();
    cline("blocked", &core(35_000)[..5]);
    std::fs::write(
        root.join("blocked/memory-bank/progress.md"),
        b"# Progress\n\x00\x01binary",
    )
    .unwrap();
    cline("a-project-with-a-rather-long-name-indeed", &core(20));
}

/// The picker's row of `project`, and its cells by column (split at the header's words).
fn picker_row(screen: &str, project: &str) -> String {
    screen
        .lines()
        .find(|l| l.contains(&format!(" {project} ")))
        .unwrap_or_else(|| panic!("no row for {project}:\n{screen}"))
        .to_string()
}

#[test]
fn the_picker_figure_gauge_and_verdict_say_what_mbank_list_says() {
    let root = tempfile::tempdir().unwrap();
    write_budget_root(root.path());
    let sandbox = common::Sandbox::new();
    let list = sandbox
        .run(&["--root", root.path().to_str().unwrap(), "list", "--json"])
        .json();
    let mut h = Tui::options(root.path()).size(160, 45).start();
    h.pump_until("the figures", |app| app.projects.picker.counted == 3);
    h.settled_screen();
    let buffer = h.draw().unwrap().clone();
    let screen = mbank::tui::driver::buffer_text(&buffer);
    let theme = mbank::tui::theme::Theme::default();
    for project in list["projects"].as_array().unwrap() {
        let name = project["name"].as_str().unwrap();
        let tokens = project["loaded_tokens"].as_u64().unwrap();
        let complete = project["complete"].as_bool().unwrap();
        let verdict = project["budget"].as_str().unwrap_or("—");
        let row = picker_row(&screen, name);
        let figure = format!(
            "{}{}",
            mbank::tui::widgets::compact(tokens),
            if complete { "" } else { "+" }
        );
        assert!(
            row.contains(&format!("{figure} {verdict}"))
                || row.contains(&format!("{figure}/")) && row.contains(&format!(" {verdict} ")),
            "{name}: list says {figure} {verdict}:\n{row}"
        );
        // The gauge and the figure are drawn in the verdict's colour.
        let y = screen.lines().position(|l| l == row).unwrap() as u16;
        let x = row.chars().count() - row[row.find(&figure).unwrap()..].chars().count();
        let colour = match verdict {
            "over" => theme.over,
            "near" => theme.near,
            _ => theme.ok,
        };
        assert_eq!(buffer[(x as u16, y)].fg, colour, "{name}: {row}");
    }
    // Two banks each at 60 %: `ok`, and the gauge is not the project's total over one
    // bank's budget.
    let split = picker_row(&screen, "split");
    assert!(split.contains(" ok "), "{split}");
    assert!(!split.contains("/5.0k"), "{split}");
    // 35 times over with a file that cannot be read: still over its bank's budget (the
    // files counted are past it already), full, and coloured so.
    let blocked = picker_row(&screen, "blocked");
    assert!(
        blocked.contains("+/5.0k over") && blocked.contains("▰▰▰▰▰▰▰▰"),
        "{blocked}"
    );
}

#[test]
fn picker_columns_size_to_the_terminal_and_stay_in_line() {
    let root = tempfile::tempdir().unwrap();
    write_budget_root(root.path());
    let long = "a-project-with-a-rather-long-name-indeed";
    for (width, height) in [(160, 45), (80, 24)] {
        let mut h = Tui::options(root.path()).size(width, height).start();
        h.pump_until("the figures", |app| app.projects.picker.counted == 3);
        let screen = h.settled_screen();
        let rows: Vec<String> = ["split", "blocked", &long[..12]]
            .iter()
            .map(|p| {
                let line = screen.lines().find(|l| l.contains(&format!(" {p}")));
                line.unwrap_or_else(|| panic!("{p}:\n{screen}")).to_string()
            })
            .collect();
        if width == 160 {
            assert!(rows[2].contains(long), "not cut at 160 columns:\n{screen}");
            assert!(rows[0].contains("cline,roo-rules"), "{screen}");
        }
        // Staleness and findings are there at every width.
        for row in &rows {
            assert!(
                row.contains("fresh") || row.contains("stale") || row.contains("aging"),
                "{width}: {row}"
            );
            assert!(
                row.contains('✔') || row.contains('✖') || row.contains('▲'),
                "{width}: {row}"
            );
        }
        // The verdicts, the staleness and the last write start in one column each.
        let column = |row: &str, words: &[&str]| -> usize {
            let at = words.iter().filter_map(|w| row.find(w)).min().unwrap();
            row[..at].chars().count()
        };
        for words in [
            &["fresh", "stale", "aging"][..],
            &[" ok ", " over ", " near "][..],
        ] {
            let columns: Vec<usize> = rows.iter().map(|r| column(r, words)).collect();
            assert!(
                columns.windows(2).all(|w| w[0] == w[1]),
                "{width}: {words:?} {columns:?}\n{screen}"
            );
        }
    }
}

#[test]
fn the_editor_names_bidi_zero_width_and_c1_characters_as_the_preview_does() {
    let demo = DemoBanks::new();
    let path = demo.file("weather-api/memory-bank/projectBrief.md");
    std::fs::write(&path, "# Brief\nabc\u{202E}def\u{200B}ghi\u{9B}jkl\n").unwrap();
    let mut h = Tui::demo(&demo).start();
    h.open_project("weather");
    h.keys("enter");
    let screen = h.screen();
    let row = screen
        .lines()
        .find(|l| l.contains("abc"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(
        row.contains("abc⟨U+202E⟩def⟨U+200B⟩ghi⟨U+009B⟩jkl"),
        "{row}"
    );
    assert!(!screen.contains('\u{FFFD}'), "{screen}");
    // Each is one character of the buffer: the cursor steps over it once, and text typed
    // after it lands after it; the file keeps the characters.
    h.keys("down right right right right x ctrl-s");
    h.idle();
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(saved.contains("abc\u{202E}xdef\u{200B}ghi"), "{saved:?}");
}

#[test]
fn a_deleted_bank_folder_leaves_the_screen_and_the_open_file_says_it_was_deleted() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(120, 30).start();
    h.open_project("billing");
    assert!(h.doc().path.ends_with("memory-bank/project-brief.md"));
    let screen = h.settled_screen();
    assert!(screen.contains("Memory Bank MCP"), "{screen}");
    let folder = demo.file("billing-roo/memory-bank");
    std::fs::remove_dir_all(&folder).unwrap();
    // A folder deleted whole is reported as the folder.
    h.app.update(Message::FilesChanged(vec![folder]));
    h.pump_until("the report without the bank", |app| {
        app.tree.report.as_ref().is_some_and(|r| r.banks.len() == 1)
    });
    let screen = h.settled_screen();
    assert!(
        !screen.contains("Memory Bank MCP"),
        "the bank's rows are gone:\n{screen}"
    );
    assert!(
        !screen.contains("memory-bank-mcp"),
        "and its format in the header:\n{screen}"
    );
    assert!(
        h.app
            .messages
            .iter()
            .any(|m| m.text.contains("project-brief.md was deleted on disk")),
        "the open file says so: {}",
        h.toasts()
    );
}

#[test]
fn a_file_that_becomes_readable_again_is_shown_without_reselecting_it() {
    let demo = DemoBanks::new();
    let path = demo.file("weather-api/memory-bank/progress.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, b"# Progress\n\x00\x01 not text").unwrap();
    let mut h = Tui::demo(&demo).start();
    h.open_project("weather");
    h.keys("end up");
    assert!(
        h.app
            .tree
            .selected_file()
            .is_some_and(|(p, _)| p.ends_with("progress.md")),
        "{}",
        h.screen()
    );
    assert!(
        h.app.document.doc().is_none(),
        "it cannot be opened as text"
    );
    assert!(h.app.document.editor.problem.is_some());
    std::fs::write(&path, &text).unwrap();
    h.app.update(Message::FilesChanged(vec![path.clone()]));
    h.idle();
    assert!(h.app.document.editor.problem.is_none());
    assert_eq!(h.doc().text(), text);
    assert!(h.screen().contains("# Progress"));
}

#[test]
fn vim_colon_w_saves_colon_q_quits_and_anything_else_says_what_works() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).vim().size(80, 24).start();
    h.pump_until("the scan", |app| app.projects.picker.visible_len() == 6);
    h.keys("w e a t h e r enter enter");
    assert_eq!(h.app.focus, Focus::Editor);
    h.keys("i N o t e : space esc");
    assert!(h.is_dirty());
    // `:` opens the command line: the status bar names its keys, typed letters are text.
    h.keys(":");
    let bar = status(&mut h);
    assert!(
        bar.contains("enter run") && bar.contains("esc cancel"),
        "{bar}"
    );
    assert!(h.screen().contains(" :"), "{}", h.screen());
    h.keys("w enter");
    h.idle();
    assert!(!h.app.quit);
    assert!(!h.is_dirty(), ":w saved");
    let saved =
        std::fs::read_to_string(demo.file("weather-api/memory-bank/projectBrief.md")).unwrap();
    assert!(saved.starts_with("Note: # Project Brief"), "{saved}");
    h.keys(": z z enter");
    assert!(!h.app.quit);
    assert!(
        h.toasts().contains("not an editor command: :zz"),
        "{}",
        h.toasts()
    );
    h.keys(": q enter");
    assert!(h.app.quit, ":q quits a saved buffer");
}

#[test]
fn the_picker_says_the_filter_text_names_a_new_bank_and_creating_it_uses_that_name() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(120, 30).start();
    h.pump_until("the scan", |app| app.projects.picker.visible_len() == 6);
    assert!(!h.screen().contains("new bank in"), "{}", h.screen());
    h.keys("n o t e s");
    let screen = h.screen();
    assert!(screen.contains("ctrl-n: new bank in notes/"), "{screen}");
    h.keys("ctrl-n");
    assert!(
        h.screen().contains("notes"),
        "the prompt names the folder too"
    );
    h.keys("y");
    h.idle();
    assert!(demo.file("notes/memory-bank").is_dir());
}
