//! What a file inside a bank folder is: memory, a backup (`*.bak`, a nested `backup-*/`
//! copy of the bank) or foreign (source code, lock files, `.env`, keys). Only memory is
//! loaded and counted; the rest is summarised in one finding per bank, and a secret kept
//! inside a bank is an error (agents and tools that read the folder read it too). A file
//! is a secret by what it holds (the write guard's detector), never by its name alone: a
//! `.env` holding only a local database path is foreign, not a secret.
use std::path::Path;

pub use crate::analysis::file_class::FileClass;
pub(crate) use crate::analysis::file_class::{classify, is_backup_folder, is_secret};
use crate::findings::{Finding, FindingCode, Severity};
use crate::io::text::counted;
use crate::model::{Bank, MemoryFile};

/// Classifies a file of `bank`: files of banks that are the project itself (CLAUDE.md,
/// AGENTS.md…) are chosen by name and always memory.
pub(crate) fn class_in(bank_root: &Path, project: &Path, file: &Path) -> FileClass {
    if same_path(bank_root, project) {
        return FileClass::Memory;
    }
    match relative_in(bank_root, file) {
        Some(rel) => classify(rel),
        None => FileClass::Memory,
    }
}

/// `file` relative to `folder` when it lies inside it, compared as bytes (paths from one
/// listing are spelled alike; `Path::strip_prefix` parses components, several times slower).
#[cfg(unix)]
fn relative_in<'a>(folder: &Path, file: &'a Path) -> Option<&'a Path> {
    use std::os::unix::ffi::OsStrExt;
    let folder = folder.as_os_str().as_bytes();
    let folder = folder.strip_suffix(b"/").unwrap_or(folder);
    let rest = file.as_os_str().as_bytes().strip_prefix(folder)?;
    let rest = rest.strip_prefix(b"/")?;
    (!rest.is_empty()).then(|| Path::new(std::ffi::OsStr::from_bytes(rest)))
}

#[cfg(not(unix))]
fn relative_in<'a>(folder: &Path, file: &'a Path) -> Option<&'a Path> {
    file.strip_prefix(folder)
        .ok()
        .filter(|rel| !rel.as_os_str().is_empty())
}

/// Whether two paths from one listing name the same folder: compared as bytes, a
/// trailing `/` aside (`Path`'s `==` parses components, several times slower).
#[cfg(unix)]
fn same_path(a: &Path, b: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    fn trim(path: &Path) -> &[u8] {
        let bytes = path.as_os_str().as_bytes();
        match bytes.strip_suffix(b"/") {
            Some(rest) if !rest.is_empty() => rest,
            _ => bytes,
        }
    }
    trim(a) == trim(b)
}

#[cfg(not(unix))]
fn same_path(a: &Path, b: &Path) -> bool {
    a == b
}

/// Largest file whose text is searched for secrets.
const SECRET_SCAN_MAX_BYTES: u64 = 1024 * 1024;

/// The finding for a file whose name is a secret's (`.env`, a key): judged by what it
/// holds, through the write guard's detector. A `.env` holding only a local database path
/// is no secret; a line matching a secret pattern is an error naming that pattern; a
/// binary key store, whose text cannot be read, is a warning that says so.
fn secret_finding(file: &MemoryFile) -> Option<Finding> {
    let text = match crate::io::text::read_text_limited(&file.path, SECRET_SCAN_MAX_BYTES) {
        Ok(text) => text,
        Err(_) => {
            return Some(Finding::new(
                Severity::Warning,
                FindingCode::SecretInBank,
                &file.path,
                None,
                format!(
                    "{} is named like a key or credential store and its content cannot be read \
                     as text to check: if it holds a key, move it out of the memory folder",
                    file.display
                ),
            ));
        }
    };
    let (line, kind) = text
        .lines()
        .enumerate()
        .find_map(|(n, line)| crate::guard::secret_in_line(line).map(|kind| (n + 1, kind)))?;
    Some(Finding::new(
        Severity::Error,
        FindingCode::SecretInBank,
        &file.path,
        Some(line),
        format!(
            "{} holds {kind} (line {line}) inside the memory folder: agents and tools that \
             read the folder can read it; move it out and rotate what it holds",
            file.display
        ),
    ))
}

/// One finding per kind of non-memory file in the bank ("301 files in 7 nested backups"),
/// and an error per file holding a secret (naming the pattern that matched).
pub fn findings(bank: &Bank, project: &Path) -> Vec<Finding> {
    let mut out = Vec::new();
    if same_path(&bank.root, project) {
        return out;
    }
    let mut folder_copies = 0;
    let mut loose_copies = 0;
    let mut backup_folders: Vec<&str> = Vec::new();
    let mut foreign: Vec<String> = Vec::new();
    for file in bank.files.iter().filter(|f| !f.is_virtual()) {
        let Some(rel) = relative_in(&bank.root, &file.path) else {
            continue;
        };
        match classify(rel) {
            FileClass::Memory => {}
            FileClass::Backup => {
                let folder = rel
                    .components()
                    .rev()
                    .skip(1)
                    .map(|c| c.as_os_str().to_str().unwrap_or_default())
                    .find(|c| is_backup_folder(c));
                match folder {
                    Some(folder) => {
                        folder_copies += 1;
                        if !backup_folders.contains(&folder) {
                            backup_folders.push(folder);
                        }
                    }
                    None => loose_copies += 1,
                }
            }
            FileClass::Foreign => {
                if is_secret(rel)
                    && let Some(finding) = secret_finding(file)
                {
                    out.push(finding);
                } else {
                    foreign.push(file.display.clone());
                }
            }
        }
    }
    let mut kept = Vec::new();
    if folder_copies > 0 {
        kept.push(format!(
            "{} in {}",
            counted(folder_copies, "file"),
            counted(backup_folders.len(), "nested backup")
        ));
    }
    if loose_copies > 0 {
        kept.push(crate::io::text::counted_as(
            loose_copies,
            "backup copy",
            "backup copies",
        ));
    }
    if !kept.is_empty() {
        out.push(Finding::new(
            Severity::Info,
            FindingCode::BackupInBank,
            &bank.root,
            None,
            format!(
                "{} inside the bank: not memory, never loaded or counted; keep backups \
                 outside the memory folder",
                kept.join(" and ")
            ),
        ));
    }
    if let Some(first) = foreign.first() {
        out.push(Finding::new(
            Severity::Warning,
            FindingCode::ForeignInBank,
            &bank.root,
            None,
            format!(
                "{} that {} not memory (source code, lock files…) inside the bank, like {first}: \
                 never loaded or counted",
                counted(foreign.len(), "file"),
                if foreign.len() == 1 { "is" } else { "are" }
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::file_class::{classify_by_rules, is_plain_markdown};

    #[test]
    fn relative_in_matches_strip_prefix() {
        for (folder, file) in [
            ("/p/memory-bank", "/p/memory-bank/a.md"),
            ("/p/memory-bank/", "/p/memory-bank/x/b.md"),
            ("/p/memory-bank", "/p/memory-bank-old/a.md"),
            ("/p/memory-bank", "/p/memory-bank"),
            ("/p/memory-bank", "/q/a.md"),
        ] {
            let expected = Path::new(file)
                .strip_prefix(folder)
                .ok()
                .filter(|r| !r.as_os_str().is_empty());
            assert_eq!(
                relative_in(Path::new(folder), Path::new(file)),
                expected,
                "{file}"
            );
        }
    }

    #[test]
    fn the_quick_path_agrees_with_the_full_rules() {
        for name in [
            "decisions/ADR-001-use-sqlite.md",
            "backup-2025/progress.md",
            "old/Backups/x.md",
            "sessions/2026-01-02.md",
            "a//b.md",
            ".env.md",
            "activeContext.md",
            "progress.MD",
            "notes.bak.md",
            "old-progress.old.md",
            "a_backup.md",
            "x.md~",
            ".md",
            "secrets.md",
            "README.Md",
        ] {
            let rel = Path::new(name);
            if is_plain_markdown(rel) {
                assert_eq!(classify_by_rules(rel), FileClass::Memory, "{name}");
            }
            assert_eq!(classify(rel), classify_by_rules(rel), "{name}");
        }
    }
    use std::path::PathBuf;

    fn class(rel: &str) -> FileClass {
        classify(&PathBuf::from(rel))
    }

    #[test]
    fn files_are_memory_backup_or_foreign() {
        assert_eq!(class("activeContext.md"), FileClass::Memory);
        assert_eq!(class("archive/2024.md"), FileClass::Memory);
        assert_eq!(class("notes.json"), FileClass::Memory);
        assert_eq!(class("backup-2025-01-02/progress.md"), FileClass::Backup);
        assert_eq!(class("old/memory-bank-backup/x.md"), FileClass::Backup);
        assert_eq!(class("progress.md.bak"), FileClass::Backup);
        assert_eq!(class("progress.bak.md"), FileClass::Backup);
        assert_eq!(class("progress.md~"), FileClass::Backup);
        assert_eq!(class("memory.bak/progress.md"), FileClass::Backup);
        assert_eq!(class("bank_bak/progress.md"), FileClass::Backup);
        assert_eq!(class("kebab/progress.md"), FileClass::Memory);
        assert_eq!(class("main.rs"), FileClass::Foreign);
        assert_eq!(class("package-lock.json"), FileClass::Foreign);
        assert_eq!(class("yarn.lock"), FileClass::Foreign);
        assert_eq!(class(".env"), FileClass::Foreign);
        assert_eq!(class("backup-1/.env"), FileClass::Foreign);
        assert!(is_secret(&PathBuf::from(".env.local")));
        assert!(is_secret(&PathBuf::from("deploy.pem")));
        assert!(is_secret(&PathBuf::from("id_ed25519")));
        assert!(!is_secret(&PathBuf::from(".env.example")));
        assert!(!is_secret(&PathBuf::from("keyboard.md")));
        assert!(!is_secret(&PathBuf::from("secrets.md")));
        assert!(is_secret(&PathBuf::from("secrets.yaml")));
    }

    fn bank_with_env(text: &str) -> (tempfile::TempDir, Bank) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("memory-bank");
        std::fs::create_dir_all(&root).unwrap();
        let path = root.join(".env");
        std::fs::write(&path, text).unwrap();
        let file = MemoryFile {
            path,
            display: "memory-bank/.env".into(),
            role: crate::model::Role::Other,
            layer: None,
            order: 0,
            group: None,
            load: crate::model::LoadKind::Never,
            size: text.len() as u64,
            modified: None,
            changed: None,
            inode: None,
            memory: None,
            unreadable: None,
        };
        let bank = Bank {
            format: crate::model::Format::Cline,
            root,
            files: vec![file],
            project_id: None,
            modes: Vec::new(),
            problems: Vec::new(),
            outside: Vec::new(),
            parsed_store: None,
        };
        (dir, bank)
    }

    #[test]
    fn an_env_file_without_secret_content_is_not_a_secret_finding() {
        let (dir, bank) = bank_with_env("DATABASE_URL=\"file:../app.db\"\n");
        let findings = findings(&bank, dir.path());
        assert!(
            findings.iter().all(|f| f.code.id() != "secret-in-bank"),
            "{findings:?}"
        );
        // Still not memory: listed among the other files.
        assert!(
            findings
                .iter()
                .any(|f| f.code.id() == "foreign-in-bank" && f.message.contains(".env")),
            "{findings:?}"
        );
    }

    #[test]
    fn a_secret_finding_names_the_pattern_that_matched() {
        let (dir, bank) = bank_with_env("DEBUG=1\nAPI_KEY=Zx81kQ2mVtP0aLw9RbN3\n");
        let findings = findings(&bank, dir.path());
        let secret = findings
            .iter()
            .find(|f| f.code.id() == "secret-in-bank")
            .expect("a secret finding");
        assert_eq!(secret.severity, Severity::Error);
        assert_eq!(secret.line, Some(2));
        assert!(
            secret.message.contains("a password or key assignment"),
            "{}",
            secret.message
        );
    }
}
