//! What a file inside a bank folder is: memory, a backup (`*.bak`, a nested `backup-*/`
//! copy of the bank) or foreign (source code, lock files, `.env`, keys). Only memory is
//! loaded and counted; the rest is summarised in one finding per bank, and a secret kept
//! inside a bank is an error (agents and tools that read the folder read it too). A file
//! is a secret by what it holds (the write guard's detector), never by its name alone: a
//! `.env` holding only a local database path is foreign, not a secret.
use std::path::Path;

use serde::Serialize;

use crate::analysis::imports;
use crate::findings::{Finding, FindingCode, Severity};
use crate::io::text::counted;
use crate::model::{Bank, MemoryFile};

/// What a file in a bank is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileClass {
    Memory,
    /// A copy kept aside: `*.bak`, `*.orig`, `x~`, anything under a `backup*/` folder.
    Backup,
    /// Not memory at all: source code, lock files, secrets, binaries.
    Foreign,
}

impl FileClass {
    pub fn id(self) -> &'static str {
        match self {
            FileClass::Memory => "memory",
            FileClass::Backup => "backup",
            FileClass::Foreign => "foreign",
        }
    }
}

/// File extensions of source code, scripts, builds and binaries.
const FOREIGN_EXTENSIONS: &[&str] = &[
    "rs", "py", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "java", "kt", "kts", "swift", "c",
    "h", "cc", "cpp", "hpp", "cs", "rb", "php", "sh", "bash", "zsh", "ps1", "bat", "css", "scss",
    "html", "vue", "svelte", "sql", "lua", "dart", "scala", "ex", "exs", "lock", "pem", "key",
    "p12", "pfx", "keystore", "jks", "crt", "der", "exe", "dll", "so", "dylib", "o", "a", "class",
    "jar", "wasm", "zip", "gz", "tgz", "tar", "7z", "rar", "png", "jpg", "jpeg", "gif", "webp",
    "ico", "pdf", "mp4", "mp3", "sqlite", "db", "pyc", "swp",
];

/// Lock files whose extension says nothing (`package-lock.json`, `pnpm-lock.yaml`).
const LOCK_FILES: &[&str] = &[
    "package-lock.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "npm-shrinkwrap.json",
    "composer.lock",
    "gemfile.lock",
    "poetry.lock",
    "cargo.lock",
    "go.sum",
    "package.json",
    "cargo.toml",
    "pyproject.toml",
    "requirements.txt",
];

/// Private keys by their usual names.
const KEY_FILES: &[&str] = &["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"];

/// Whether a folder name marks a backup: `backup`, `backups`, `backup-2025-01-02`,
/// `memory-bank-backup`, `bak`, `.bak`, `memory.bak` (any case).
fn is_backup_folder(name: &str) -> bool {
    let name = name.trim_start_matches('.').as_bytes();
    let starts = |prefix: &str| {
        name.len() >= prefix.len() && name[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
    };
    name.eq_ignore_ascii_case(b"bak")
        || starts("backup")
        || [
            "-backup", "_backup", ".backup", "-backups", "_backups", ".bak", "-bak", "_bak",
        ]
        .iter()
        .any(|suffix| ends_with_ignoring_case(name, suffix))
}

fn ends_with_ignoring_case(bytes: &[u8], suffix: &str) -> bool {
    bytes.len() >= suffix.len()
        && bytes[bytes.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
}

/// Whether a file name marks a backup copy: `x.bak`, `x.md.orig`, `x~`, `x.bak.md`,
/// `progress-backup.md`.
fn is_backup_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with('~') {
        return true;
    }
    let stem = lower
        .strip_suffix(".md")
        .or_else(|| lower.strip_suffix(".markdown"))
        .unwrap_or(&lower);
    [".bak", ".backup", ".orig", ".old", "-backup", "_backup"]
        .iter()
        .any(|suffix| stem.ends_with(suffix))
}

/// Whether a file is a secret: `.env` (not `.env.example`), `secrets.*`, credentials,
/// private keys.
pub(crate) fn is_secret(rel: &Path) -> bool {
    let name = rel
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let example = [".example", ".sample", ".template", ".dist"]
        .iter()
        .any(|s| name.ends_with(s));
    // A markdown file is memory written by people or agents (`secrets.md` may be a
    // ConKeeper file marked `private: true`), not a credential store.
    if example || crate::formats::names::is_markdown(&name) {
        return false;
    }
    let extension = name.rsplit_once('.').map(|(_, e)| e).unwrap_or_default();
    imports::is_sensitive(rel)
        || KEY_FILES.contains(&name.as_str())
        || matches!(
            extension,
            "pem" | "key" | "p12" | "pfx" | "keystore" | "jks"
        )
}

/// A markdown file in the bank folder or a sub-folder of it, neither named nor kept as a
/// backup: memory, told without allocating (the case of nearly every file `list`
/// classifies).
fn is_plain_markdown(rel: &Path) -> bool {
    let Some(path) = rel.to_str() else {
        return false;
    };
    let (folders, name) = match path.rsplit_once(['/', std::path::MAIN_SEPARATOR]) {
        Some((folders, name)) => (folders, name),
        None => ("", path),
    };
    if name.ends_with('~')
        || folders
            .split(['/', std::path::MAIN_SEPARATOR])
            .any(|folder| folder.is_empty() && !folders.is_empty() || is_backup_folder(folder))
    {
        return false;
    }
    let bytes = name.as_bytes();
    let Some(stem) = bytes
        .len()
        .checked_sub(3)
        .filter(|&at| at > 0 && bytes[at..].eq_ignore_ascii_case(b".md"))
        .map(|at| &bytes[..at])
    else {
        return false;
    };
    ![".bak", ".backup", ".orig", ".old", "-backup", "_backup"]
        .iter()
        .any(|suffix| ends_with_ignoring_case(stem, suffix))
}

/// Classifies a file by its path relative to the bank folder.
pub(crate) fn classify(rel: &Path) -> FileClass {
    if is_plain_markdown(rel) {
        return FileClass::Memory;
    }
    classify_by_rules(rel)
}

fn classify_by_rules(rel: &Path) -> FileClass {
    let name = rel
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if is_secret(rel) {
        return FileClass::Foreign;
    }
    let in_backup_folder = rel
        .parent()
        .into_iter()
        .flat_map(Path::components)
        .any(|c| is_backup_folder(&c.as_os_str().to_string_lossy()));
    if in_backup_folder || is_backup_name(&name) {
        return FileClass::Backup;
    }
    let lower = name.to_ascii_lowercase();
    let extension = lower.rsplit_once('.').map(|(_, e)| e).unwrap_or_default();
    if LOCK_FILES.contains(&lower.as_str()) || FOREIGN_EXTENSIONS.contains(&extension) {
        return FileClass::Foreign;
    }
    FileClass::Memory
}

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
