//! What the screen shows is what a key or a click does: the picker's marker follows the
//! mouse as it follows the keys, every list shows a click's selection at once, prompts
//! that can lose work answer "no" to enter, a navigation key never leaves the keyboard
//! where letters type, and the columns of a narrow screen keep what matters most, under
//! headers that sit over their data. Driven through the app's real loop on the
//! TestBackend.
use crate::common;

use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use common::tui::{DemoBanks, Tui};
use mbank::tui::Message;
use mbank::tui::app::{Focus, Screen};
use mbank::tui::overlays::Overlay;

/// The status bar: the screen's last line.
fn status(h: &mut Tui) -> String {
    h.screen().lines().last().unwrap_or_default().to_string()
}

/// The status bar once no message takes its room.
fn quiet_status(h: &mut Tui) -> String {
    h.app.toasts.clear();
    status(h)
}

/// The screen's row (from the top) that holds `text`.
fn row_of(h: &mut Tui, text: &str) -> u16 {
    let screen = h.screen();
    screen
        .lines()
        .position(|line| line.contains(text))
        .unwrap_or_else(|| panic!("no row holds {text:?}:\n{screen}")) as u16
}

/// A left click, pressed and released, at a cell.
fn click(h: &mut Tui, column: u16, row: u16) {
    for kind in [
        MouseEventKind::Down(MouseButton::Left),
        MouseEventKind::Up(MouseButton::Left),
    ] {
        h.app.update(Message::Mouse(MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        }));
    }
    h.idle();
}

/// Whether the screen draws cell (`column`, `row`) as the selected row.
fn selected_at(h: &mut Tui, column: u16, row: u16) -> bool {
    h.screen();
    h.terminal.backend().buffer()[(column, row)].bg == h.app.theme.selection_bg
}

#[test]
fn a_click_on_a_picker_row_moves_the_marker_there_and_enter_opens_that_project() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(80, 24).start();
    h.open_project("weather");
    h.keys("esc p");
    assert_eq!(h.app.screen, Screen::Picker);
    // The marker is on the open project, where enter would go.
    let weather = row_of(&mut h, "weather-api");
    assert!(
        h.screen()
            .lines()
            .nth(weather.into())
            .unwrap()
            .contains("▸ weather-api"),
        "{}",
        h.screen()
    );
    let mobile = row_of(&mut h, "mobile-app");
    click(&mut h, 10, mobile);
    let screen = h.screen();
    let line = |row: u16| screen.lines().nth(row.into()).unwrap().to_string();
    assert!(line(mobile).contains("▸ mobile-app"), "{screen}");
    assert!(
        line(weather).contains("• weather-api"),
        "the open project keeps a mark of its own: {screen}"
    );
    assert!(screen.contains("weather-api is open"), "{screen}");
    assert!(selected_at(&mut h, 10, mobile));
    assert!(!selected_at(&mut h, 10, weather));
    // Enter opens the marked (and clicked) project.
    h.keys("enter");
    h.pump_until("the clicked project", |app| {
        app.tree
            .report
            .as_ref()
            .is_some_and(|r| r.name == "mobile-app")
    });
    assert_eq!(h.app.screen, Screen::Project);

    // The keys move the same marker.
    h.keys("esc p down");
    let screen = h.screen();
    let marked: Vec<&str> = screen.lines().filter(|l| l.contains('▸')).collect();
    assert_eq!(marked.len(), 1, "{screen}");
    assert!(!marked[0].contains("mobile-app"), "{screen}");
}

#[test]
fn a_click_in_the_tree_timeline_and_findings_selects_the_row_on_screen_and_enter_opens_it() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(160, 45).start();
    h.open_project("weather");

    // The tree: the clicked row is drawn selected, and its file shown.
    let row = row_of(&mut h, "techContext.md");
    click(&mut h, 5, row);
    assert!(selected_at(&mut h, 5, row));
    h.pump_until("the clicked file", |app| {
        app.document
            .doc()
            .is_some_and(|d| d.path.ends_with("techContext.md"))
    });
    h.keys("enter");
    assert_eq!(h.app.focus, Focus::Editor);

    // The findings panel: enter goes to the clicked finding's file.
    h.keys("esc f");
    let screen = h.screen();
    let findings_top = screen
        .lines()
        .position(|l| l.contains("Findings"))
        .expect("the findings panel") as u16;
    let row = findings_top + h.app.findings.items.len().min(3) as u16;
    click(&mut h, 10, row);
    assert_eq!(h.app.focus, Focus::Findings);
    assert!(selected_at(&mut h, 10, row));
    let findings = &h.app.findings;
    assert_eq!(findings.cursor.selected, findings.items.len().min(3) - 1);
    let wanted = findings.items[findings.cursor.selected].file.clone();
    h.keys("enter");
    h.pump_until("the finding's file", move |app| {
        app.document.doc().is_some_and(|d| d.path == wanted)
    });
    assert_eq!(h.app.focus, Focus::Editor);

    // The timeline: a click selects the decision, enter opens where it is written.
    h.keys("esc f t");
    let row = row_of(&mut h, "Decisions:") + 3;
    click(&mut h, 100, row);
    assert_eq!(h.app.focus, Focus::Timeline);
    assert!(selected_at(&mut h, 100, row));
    assert_eq!(
        h.app.timeline.cursor.selected, 1,
        "the second entry's first row"
    );
    let wanted = h.app.timeline.selected().expect("a decision").file.clone();
    h.keys("enter");
    h.pump_until("the decision's file", move |app| {
        app.document.doc().is_some_and(|d| d.path == wanted)
    });
}

#[test]
fn enter_on_every_prompt_that_can_lose_work_keeps_the_work() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(80, 24).start();
    h.open_project("weather");
    h.open_file("progress.md");
    h.type_text("Unsaved note. ");
    assert!(h.is_dirty());

    // Switching project: the prompt names the file and says what enter does.
    h.keys("ctrl-p");
    let mobile = row_of(&mut h, "mobile-app");
    click(&mut h, 10, mobile);
    h.keys("enter");
    assert!(matches!(h.app.overlays.last(), Some(Overlay::Confirm(_))));
    let screen = h.screen();
    assert!(
        screen.contains("Your unsaved edits to progress.md will be lost."),
        "{screen}"
    );
    assert!(screen.contains("n/esc/enter stay"), "{screen}");
    assert!(screen.contains("y switch, losing the edits"), "{screen}");
    h.keys("enter");
    assert!(h.app.overlays.is_empty());
    assert!(h.is_dirty() && h.doc().path.ends_with("progress.md"));
    assert_eq!(
        h.app.projects.open.as_ref().map(|p| p.name.as_str()),
        Some("weather-api")
    );

    // Quitting: enter keeps the app open with the edits.
    h.keys("esc esc ctrl-q");
    assert!(h.screen().contains("n/esc/enter keep editing"));
    h.keys("enter");
    assert!(!h.app.quit && h.is_dirty());

    // Opening another file over the edits.
    h.keys("down enter");
    assert!(matches!(h.app.overlays.last(), Some(Overlay::Confirm(_))));
    h.keys("enter");
    assert!(h.doc().path.ends_with("progress.md") && h.is_dirty());

    // Yes is a deliberate key: y.
    h.keys("ctrl-q y");
    assert!(h.app.quit);
}

#[test]
fn tab_shows_the_file_read_only_until_enter_or_i_and_the_status_bar_says_which() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(80, 24).start();
    h.open_project("weather");
    let file = demo.file("weather-api/memory-bank/projectBrief.md");
    let before = std::fs::read_to_string(&file).unwrap();
    // Tab, then letters that are global keys, a hundred times over: nothing is typed.
    for _ in 0..100 {
        h.keys("tab t r esc");
    }
    assert!(!h.is_dirty(), "{:?}", h.doc().text().lines().next());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);

    h.keys("esc tab");
    assert_eq!(h.app.focus, Focus::Editor);
    let bar = status(&mut h);
    assert!(bar.starts_with(" VIEWING "), "{bar}");
    assert!(bar.contains("enter edit"), "{bar}");
    // A letter that is no command types nothing, and says how to start editing.
    h.keys("x down");
    assert!(!h.is_dirty());
    assert!(
        h.toasts()
            .contains("projectBrief.md is shown read-only: enter or i starts editing"),
        "{}",
        h.toasts()
    );
    // A paste goes nowhere either.
    h.app.toasts.clear();
    h.app.update(Message::Paste("pasted".into()));
    assert!(!h.is_dirty());
    assert!(h.toasts().contains("shown read-only"), "{}", h.toasts());
    // i starts editing: letters type from then on, and the bar says so.
    h.keys("i x");
    assert!(h.is_dirty());
    let bar = quiet_status(&mut h);
    assert!(bar.starts_with(" EDITING "), "{bar}");
    h.keys("ctrl-z");

    // Enter starts editing too; esc leaves, and tab back shows the file read-only again.
    h.keys("esc tab enter y");
    assert!(h.is_dirty());
    h.keys("ctrl-z esc tab");
    assert!(quiet_status(&mut h).starts_with(" VIEWING "));
    h.keys("y");
    assert!(!h.is_dirty());

    // Enter on a file in the tree, or a click in the text, is editing at once.
    h.keys("esc enter");
    assert!(quiet_status(&mut h).starts_with(" EDITING "));
    h.keys("esc tab");
    let editor = h.app.document.editor.text_area();
    click(&mut h, editor.x + 2, editor.y);
    assert!(quiet_status(&mut h).starts_with(" EDITING "));
}

#[test]
fn an_escape_that_cancels_a_search_leaves_the_editor() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).start();
    h.open_project("weather");
    h.open_file("progress.md");
    assert_eq!(h.app.focus, Focus::Editor);
    // A terminal reads two escapes sent together as one: that one must leave too.
    h.keys("ctrl-f esc");
    assert_eq!(h.app.focus, Focus::Tree);
    h.keys("z");
    assert!(!h.is_dirty());
    // A found match keeps the keyboard in the editor, at the match.
    h.keys("enter ctrl-f P r o g r e s s enter");
    assert_eq!(h.app.focus, Focus::Editor);
}

#[test]
fn the_picker_at_60_columns_keeps_whole_names_the_token_figure_and_aligned_headers() {
    let demo = DemoBanks::new();
    for (width, height) in [(60, 20), (80, 24), (160, 45)] {
        let mut h = Tui::demo(&demo).size(width, height).start();
        h.pump_until("every project's figures", |app| {
            app.projects.picker.counted == 6
        });
        let screen = h.settled_screen();
        let lines: Vec<&str> = screen.lines().collect();
        let header = lines
            .iter()
            .position(|l| l.contains("project"))
            .expect("the header");
        let rows = &lines[header + 1..header + 7];
        for name in [
            "billing-roo",
            "ml-pipeline",
            "mobile-app",
            "weather-api",
            "gemini-cli-tool",
            "storefront",
        ] {
            assert!(
                rows.iter().any(|r| r.contains(&format!(" {name} "))),
                "{name} whole at {width}:\n{screen}"
            );
        }
        // Each header word starts where its column's data does.
        let column = |line: &str, needle: &str| {
            line.find(needle)
                .map(|byte| line[..byte].chars().count())
                .unwrap_or_else(|| panic!("{needle:?} in {line:?} at {width}"))
        };
        let weather = rows.iter().find(|r| r.contains("weather-api")).unwrap();
        assert_eq!(
            column(lines[header], "project"),
            column(weather, "weather-api"),
            "{width}:\n{screen}"
        );
        let stale_glyph = weather.find('○').map(|b| weather[..b].chars().count());
        let stale_header = lines[header]
            .find(" stale")
            .or_else(|| lines[header].find(" s "))
            .map(|b| lines[header][..b].chars().count() + 1);
        assert_eq!(stale_glyph, stale_header, "{width}:\n{screen}");
        let figure = column(weather, "3.8k/5.0k");
        let tokens = column(lines[header], "tokens");
        assert!(figure >= tokens, "{width}:\n{screen}");
        // Nothing runs past the border.
        for line in &lines {
            assert!(line.chars().count() <= usize::from(width), "{line:?}");
        }
        assert!(
            !lines[header].contains("findi ") && !lines[header].ends_with("findi"),
            "{width}:\n{screen}"
        );
    }
}

#[test]
fn a_narrow_tree_keeps_whole_names_then_each_files_token_figure_then_its_staleness() {
    let demo = DemoBanks::new();
    // At 80 columns the names and the figures fit; at 100 the staleness too.
    for ((width, height), staleness) in [((80, 24), false), ((100, 30), true)] {
        let mut h = Tui::demo(&demo).size(width, height).start();
        h.open_project("weather");
        h.keys("esc");
        let screen = h.settled_screen();
        let border = screen.lines().nth(1).unwrap();
        let tree_width = border[..border.find('┐').unwrap()].chars().count() + 1;
        let rows: Vec<String> = screen
            .lines()
            .map(|l| l.chars().take(tree_width).collect())
            .collect();
        for name in [
            "projectBrief.md",
            "productContext.md",
            "systemPatterns.md",
            "techContext.md",
            "activeContext.md",
            "progress.md",
            "decisionLog.md",
        ] {
            let row = rows
                .iter()
                .find(|r| r.contains(name))
                .unwrap_or_else(|| panic!("{name} whole in the tree at {width}:\n{screen}"));
            let after_name = &row[row.find(name).unwrap() + name.len()..];
            assert!(
                after_name.chars().any(|c| c.is_ascii_digit()),
                "{name}'s tokens at {width} columns: {row}"
            );
            assert_eq!(
                row.contains(['●', '◐', '○', '?']),
                staleness,
                "{name}'s staleness at {width} columns: {row}"
            );
        }
        // The figures end in one column whatever their length.
        let ends: std::collections::BTreeSet<usize> = rows
            .iter()
            .filter(|r| r.contains(".md"))
            .map(|r| r.trim_end_matches(['│', ' ']).chars().count())
            .collect();
        assert_eq!(ends.len(), 1, "{screen}");
    }
}

#[test]
fn a_click_on_a_file_in_the_review_marks_it_and_shows_its_diff() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).size(80, 24).start();
    h.open_project("weather");
    h.keys("r c y");
    let progress = demo.file("weather-api/memory-bank/progress.md");
    let text = std::fs::read_to_string(&progress).unwrap();
    demo.write(&progress, &format!("{text}- [x] Reviewed by a click\n"));
    let active = demo.file("weather-api/memory-bank/activeContext.md");
    let text = std::fs::read_to_string(&active).unwrap();
    demo.write(&active, &text.replace("feature flag", "flag"));
    h.app.update(Message::FilesChanged(vec![active, progress]));
    h.pump_until("both files in the review", |app| {
        app.review
            .pane
            .review
            .as_ref()
            .is_some_and(|r| r.files.len() == 2)
            && !app.review.pane.loading
            && !app.review.pane.busy
    });
    let screen = h.screen();
    assert!(screen.contains("▶ M activeContext.md"), "{screen}");
    let row = row_of(&mut h, "M progress.md");
    let column = h.screen().lines().nth(row.into()).unwrap().chars().count() as u16 - 20;
    click(&mut h, column, row);
    let screen = h.screen();
    assert!(screen.contains("▶ M progress.md"), "{screen}");
    assert!(!screen.contains("▶ M activeContext.md"), "{screen}");
    assert!(screen.contains("── memory-bank/progress.md"), "{screen}");
    assert_eq!(h.app.focus, Focus::Review);
}

#[test]
fn names_cut_to_fit_a_narrow_screen_never_read_alike() {
    let temp = tempfile::tempdir().unwrap();
    for project in [
        "observability-dashboards-alpha",
        "observability-dashboards-gamma",
    ] {
        let bank = temp.path().join(project).join("memory-bank");
        std::fs::create_dir_all(&bank).unwrap();
        for file in [
            "decisions-2026-01-platform.md",
            "decisions-2026-01-frontend.md",
        ] {
            std::fs::write(bank.join(file), "# Decisions\n\n- one\n").unwrap();
        }
        std::fs::write(bank.join("projectBrief.md"), "# Brief\n\nDashboards.\n").unwrap();
    }
    let mut h = Tui::options(temp.path()).size(60, 20).start();
    h.pump_until("both projects counted", |app| {
        app.projects.picker.visible_len() == 2 && app.projects.picker.counted == 2
    });
    let screen = h.settled_screen();
    // Both names are wider than their column: cut plainly they would read alike.
    let names: Vec<String> = screen
        .lines()
        .filter(|l| l.contains("obs"))
        .map(|l| {
            let name: String = l.chars().skip(3).collect();
            name.split("  ")
                .next()
                .unwrap_or_default()
                .trim()
                .to_string()
        })
        .collect();
    assert_eq!(names.len(), 2, "{screen}");
    assert!(names.iter().all(|n| n.contains('…')), "{screen}");
    assert_ne!(names[0], names[1], "{screen}");
    assert!(
        names.iter().any(|n| n.ends_with("alpha")) && names.iter().any(|n| n.ends_with("gamma")),
        "the distinguishing ends stay: {screen}"
    );

    // The tree: two files whose names start alike keep their ends too.
    h.keys("enter");
    h.pump_until("the project's report", |app| app.tree.report.is_some());
    let screen = h.settled_screen();
    let rows: Vec<&str> = screen.lines().filter(|l| l.contains("deci")).collect();
    assert_eq!(rows.len(), 2, "{screen}");
    let name = |row: &str| {
        row.split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_string()
    };
    assert_ne!(name(rows[0]), name(rows[1]), "{screen}");
    assert!(
        rows.iter().any(|r| r.contains("latform.md"))
            && rows.iter().any(|r| r.contains("rontend.md")),
        "{screen}"
    );
}

#[test]
fn with_the_vim_keys_tab_into_the_editor_lands_in_normal_mode() {
    let demo = DemoBanks::new();
    let mut h = Tui::demo(&demo).vim().start();
    h.open_project("weather");
    h.open_file("progress.md");
    h.keys("i");
    assert_eq!(h.doc().mode, mbank::tui::panes::editor::Mode::Insert);
    h.keys("tab");
    assert_ne!(h.app.focus, Focus::Editor);
    while h.app.focus != Focus::Editor {
        h.keys("tab");
    }
    assert_eq!(h.doc().mode, mbank::tui::panes::editor::Mode::Normal);
    // Letters are vim's commands there, not text.
    h.keys("j j");
    assert!(!h.is_dirty());
}
