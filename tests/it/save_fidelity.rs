//! A save from the TUI changes only the edit: a CRLF file edited in one line differs in
//! that line's bytes only, a byte-order mark stays, a mixed file keeps each line's
//! ending, a 0600 file stays 0600 and its owner and group stay (checked as root, where a
//! file can belong to someone else). The backups a conflict makes keep the file's
//! permissions, in a folder only its owner can open.
use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use common::tui::Tui;
use common::write;
use crossterm::event::KeyCode;
use mbank::tui::Message;
use mbank::tui::overlays::Overlay;

const BOM: &[u8] = b"\xEF\xBB\xBF";

struct Bank {
    _temp: tempfile::TempDir,
    root: PathBuf,
    dir: PathBuf,
}

/// A root with one Cline project, `shop`, whose `progress.md` holds `progress`.
fn bank_with_progress(progress: &[u8]) -> Bank {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    let dir = root.join("shop/memory-bank");
    write(&dir.join("projectbrief.md"), "# Brief\n\nTea shop.\n");
    write(&dir.join("activeContext.md"), "# Active\n\nCheckout.\n");
    fs::write(dir.join("progress.md"), progress).unwrap();
    Bank {
        _temp: temp,
        root,
        dir,
    }
}

fn open_progress(bank: &Bank) -> Tui {
    let mut driver = Tui::start(&bank.root);
    driver.open_project("shop");
    driver.open_file("progress.md");
    driver
}

/// Types `text` at the start of line `line` (1-based) of the open buffer.
fn type_at_line(driver: &mut Tui, line: usize, text: &str) {
    driver.key(KeyCode::Home);
    for _ in 0..8 {
        driver.key(KeyCode::Up);
    }
    for _ in 1..line {
        driver.key(KeyCode::Down);
    }
    driver.key(KeyCode::Home);
    driver.type_text(text);
}

fn save(driver: &mut Tui) {
    driver.ctrl('s');
    driver.pump_until("the save", |app| {
        app.document.doc().is_some_and(|d| !d.saving) && !app.document.is_dirty()
    });
}

#[test]
fn a_crlf_file_with_a_bom_changes_only_in_the_edited_lines() {
    let original = [BOM, b"# Progress\r\n\r\n- [x] cart\r\n- [ ] checkout\r\n"].concat();
    let bank = bank_with_progress(&original);
    let path = bank.dir.join("progress.md");
    let mut driver = open_progress(&bank);
    type_at_line(&mut driver, 3, "NOW ");
    save(&mut driver);
    let saved = fs::read(&path).unwrap();
    assert_eq!(
        saved,
        [
            BOM,
            b"# Progress\r\n\r\nNOW - [x] cart\r\n- [ ] checkout\r\n"
        ]
        .concat(),
        "{:?}",
        String::from_utf8_lossy(&saved)
    );
    // A second save from the saved state keeps the same form.
    type_at_line(&mut driver, 4, "ALSO ");
    save(&mut driver);
    assert_eq!(
        fs::read(&path).unwrap(),
        [
            BOM,
            b"# Progress\r\n\r\nNOW - [x] cart\r\nALSO - [ ] checkout\r\n"
        ]
        .concat()
    );
}

#[test]
fn a_mixed_file_keeps_each_untouched_line_ending() {
    let bank = bank_with_progress(b"# Progress\r\none\ntwo\r\nthree\n");
    let path = bank.dir.join("progress.md");
    let mut driver = open_progress(&bank);
    type_at_line(&mut driver, 3, "2 ");
    save(&mut driver);
    assert_eq!(
        fs::read(&path).unwrap(),
        b"# Progress\r\none\n2 two\r\nthree\n"
    );
}

#[cfg(unix)]
#[test]
fn permissions_owner_and_group_survive_a_save() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let bank = bank_with_progress(b"# Progress\n\n- cart\n");
    let path = bank.dir.join("progress.md");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    let me = fs::metadata(&path).unwrap();
    let owner = if me.uid() == 0 {
        std::os::unix::fs::chown(&path, Some(4321), Some(4322)).unwrap();
        (4321, 4322)
    } else {
        eprintln!(
            "not running as root: a file cannot belong to someone else here, so only the \
             permissions and the user's own ownership are checked"
        );
        (me.uid(), me.gid())
    };
    let mut driver = open_progress(&bank);
    type_at_line(&mut driver, 3, "x");
    save(&mut driver);
    let after = fs::metadata(&path).unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"# Progress\n\nx- cart\n");
    assert_eq!(after.permissions().mode() & 0o7777, 0o600);
    assert_eq!((after.uid(), after.gid()), owner);
}

fn backups(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

#[cfg(unix)]
#[test]
fn conflict_backups_keep_the_file_permissions_in_a_private_folder() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let bank = bank_with_progress(b"# Progress\r\n\r\n- cart\r\n");
    let path = bank.dir.join("progress.md");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    let mut driver = open_progress(&bank);
    type_at_line(&mut driver, 1, "MINE ");
    // An agent rewrites the file (keeping it private) while the buffer is dirty.
    let theirs = b"# Progress\r\n\r\n- cart\r\n- agent line\r\n";
    fs::write(&path, theirs).unwrap();
    driver.app.update(Message::FilesChanged(vec![path.clone()]));
    driver.pump_until("the conflict prompt", |app| {
        matches!(app.overlays.last(), Some(Overlay::Conflict(_)))
    });
    // Keep mine: their version goes to a backup, byte for byte.
    driver.key(KeyCode::Char('m'));
    driver.idle();
    let backup_dir = driver.backup_dir.clone();
    let kept = backups(&backup_dir);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(fs::read(&kept[0]).unwrap(), theirs);
    assert_eq!(mode(&kept[0]), 0o600);
    assert_eq!(mode(&backup_dir), 0o700);
    save(&mut driver);
    assert_eq!(
        fs::read(&path).unwrap(),
        b"MINE # Progress\r\n\r\n- cart\r\n"
    );
    assert_eq!(mode(&path), 0o600);

    // Take theirs: my buffer goes to a backup, in the file's line endings.
    type_at_line(&mut driver, 3, "MINE AGAIN ");
    fs::write(&path, theirs).unwrap();
    driver.app.update(Message::FilesChanged(vec![path.clone()]));
    driver.pump_until("the conflict prompt", |app| {
        matches!(app.overlays.last(), Some(Overlay::Conflict(_)))
    });
    driver.key(KeyCode::Char('t'));
    driver.idle();
    let all = backups(&backup_dir);
    assert_eq!(all.len(), 2, "{all:?}");
    let mine = all.iter().find(|p| !kept.contains(p)).unwrap();
    assert_eq!(
        fs::read(mine).unwrap(),
        b"MINE # Progress\r\n\r\nMINE AGAIN - cart\r\n"
    );
    assert_eq!(mode(mine), 0o600);
}
