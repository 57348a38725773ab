//! What a file inside a bank folder is by its path alone: memory, a backup (`*.bak`, a
//! nested `backup-*/` copy of the bank) or foreign (source code, lock files, `.env`,
//! keys). Kept apart from the findings about them so that readers of memory (the
//! decision timeline) can leave out what is not memory without depending on the checks.
use std::path::Path;

use serde::Serialize;

use crate::analysis::imports;

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
pub(crate) fn is_backup_folder(name: &str) -> bool {
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
pub(crate) fn is_plain_markdown(rel: &Path) -> bool {
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

/// Whether a file of a bank is memory: a copy in a backup folder, a backup-named copy or
/// a file that is not memory (what `check` reports as never loaded or counted) is not.
pub(crate) fn is_memory_file(bank: &crate::model::Bank, file: &crate::model::MemoryFile) -> bool {
    file.path
        .strip_prefix(&bank.root)
        .map_or(true, |rel| classify(rel) == FileClass::Memory)
}

/// Classifies a file by its path relative to the bank folder.
pub(crate) fn classify(rel: &Path) -> FileClass {
    if is_plain_markdown(rel) {
        return FileClass::Memory;
    }
    classify_by_rules(rel)
}

pub(crate) fn classify_by_rules(rel: &Path) -> FileClass {
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
