//! Project names holding control, invisible, bidi or wide characters: drawn with their
//! hidden characters shown (never obeyed) and every column of the picker still aligned.
use crate::common;
use common::tui::Tui;

#[test]
fn odd_project_names_keep_the_picker_columns_aligned() {
    let root = tempfile::tempdir().unwrap();
    let names = [
        "plain",
        "esc\u{1b}[2Jname",
        "tab\tname",
        "zw\u{200B}sp\u{202E}bidi",
        "日本語のプロジェクト名前",
    ];
    for name in names {
        let bank = root.path().join(name).join("memory-bank");
        std::fs::create_dir_all(&bank).unwrap();
        std::fs::write(bank.join("projectbrief.md"), "# Brief\n\ntext\n").unwrap();
    }
    let mut h = Tui::options(root.path()).size(120, 20).start();
    h.pump_until("figures", |app| app.projects.picker.counted == names.len());
    let screen = h.settled_screen();
    assert!(
        !screen.contains('\u{1b}') && !screen.contains('\u{202E}'),
        "{screen}"
    );
    assert!(screen.contains("esc␛[2Jname") && screen.contains("zw⟨U+200B⟩sp⟨U+202E⟩bidi"));
    // Each wide character takes two cells: the text of the screen holds it and a blank.
    let columns: Vec<usize> = screen
        .lines()
        .filter(|l| l.contains("cline"))
        .map(|l| l[..l.find("cline").unwrap()].chars().count())
        .collect();
    assert_eq!(columns.len(), names.len(), "{screen}");
    assert!(
        columns.windows(2).all(|w| w[0] == w[1]),
        "{columns:?}\n{screen}"
    );
}
