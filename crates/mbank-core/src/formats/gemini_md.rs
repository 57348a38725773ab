//! Gemini CLI's `GEMINI.md`: at the project's top and in sub-folders. Gemini CLI's
//! documentation ("Provide context with GEMINI.md files") says its discovery reads the
//! `GEMINI.md` files of the sub-folders below the folder it starts in, with the others, at
//! session start (respecting `.gitignore` and `.geminiignore`; mbank skips dependency and
//! build folders but does not read those ignore files). That scan enters hidden folders
//! too, so a project's `.gemini/GEMINI.md` loads like any sub-folder's (its folder's other
//! files are settings, not context). An installed extension
//! (`~/.gemini/extensions/<name>/`) adds its context file at start too
//! ([`extension_context_files`]).
use std::path::{Component, Path, PathBuf};

use super::instruction_files::InstructionFiles;
use super::{Budget, FormatRules, Placement};
use crate::model::{Format, LoadKind, MemoryFile};

pub const FILES: InstructionFiles = InstructionFiles {
    agent: "Gemini CLI",
    main: "GEMINI.md",
    local: "GEMINI.local.md",
    override_file: None,
    top_markers: &["GEMINI.md"],
    dot_dir: ".gemini",
    reads_dot_dir: false,
    reads_dot_dir_main: true,
    rules_load: LoadKind::Startup,
    subfolders_load: LoadKind::Startup,
    budgets_borrowed: true,
    local_ignored: Some("Gemini CLI reads GEMINI.md only, no GEMINI.local.md"),
    memory_folders: &[],
};

/// Gemini CLI's own memory: its memory tool writes cross-project facts and preferences
/// into the global `~/.gemini/GEMINI.md` (with `write_file` or `replace`), which every
/// session then loads. Gemini CLI's documentation, "Memory files" (docs/tools/memory.md in
/// google-gemini/gemini-cli): "cross-project personal preferences go in the global
/// `~/.gemini/GEMINI.md` file". The per-project private memory folder it names there has no
/// documented location, so mbank does not guess one.
pub mod memory {
    use std::path::{Path, PathBuf};

    /// What the store is called where a person reads it.
    pub(crate) const LABEL: &str = "Gemini CLI memory";

    /// The id `[journal] leave_out` knows it by.
    pub const ID: &str = "gemini-memory";

    /// The global memory file for `home`, whether or not it exists.
    pub fn global_file(home: &Path) -> PathBuf {
        home.join(super::FILES.dot_dir).join(super::FILES.main)
    }
}

/// Where Gemini CLI keeps installed extensions, below the home folder.
pub(crate) const EXTENSIONS_DIR: &str = ".gemini/extensions";

/// The context files of the extensions installed in the home folder
/// ([`extension_context_files`]), which Gemini CLI loads in every session (Gemini CLI's
/// documentation, "Gemini CLI extensions": `contextFileName`, else the extension's
/// `GEMINI.md`). They belong to the home folder, not to a project.
pub mod extensions {
    use std::path::{Path, PathBuf};

    /// What the store is called where a person reads it.
    pub(crate) const LABEL: &str = "Gemini CLI extension context";

    /// The id `[journal] leave_out` knows it by.
    pub const ID: &str = "gemini-extensions";

    /// The folder of installed extensions for `home`, whether or not it exists; each
    /// extension is a sub-folder holding its manifest.
    pub fn folder(home: &Path) -> PathBuf {
        home.join(super::EXTENSIONS_DIR)
    }
}
/// An extension's manifest, in its folder.
pub(crate) const EXTENSION_MANIFEST: &str = "gemini-extension.json";

/// The context files of the extensions installed under `home`, extension by extension in
/// name order: the files the manifest's `contextFileName` names (a name or a list), else
/// the extension's `GEMINI.md` when there is one. A folder without a manifest is no
/// extension; a name leading out of the extension's folder (absolute, `..`) is not read.
pub(crate) fn extension_context_files(home: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(extensions::folder(home)) else {
        return Vec::new();
    };
    let mut folders: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    let mut files = Vec::new();
    for folder in folders {
        let Ok(manifest) = std::fs::read_to_string(folder.join(EXTENSION_MANIFEST)) else {
            continue;
        };
        let named = serde_json::from_str::<serde_json::Value>(&manifest)
            .map(|v| context_file_names(&v))
            .unwrap_or_default();
        let names = if named.is_empty() {
            vec![FILES.main.to_string()]
        } else {
            named
        };
        files.extend(
            names
                .iter()
                .filter(|name| stays_inside(Path::new(name.as_str())))
                .map(|name| folder.join(name))
                .filter(|file| file.is_file()),
        );
    }
    files
}

/// `contextFileName` of a manifest: one name or a list of names.
fn context_file_names(manifest: &serde_json::Value) -> Vec<String> {
    match manifest.get("contextFileName") {
        Some(serde_json::Value::String(name)) => vec![name.clone()],
        Some(serde_json::Value::Array(names)) => names
            .iter()
            .filter_map(|n| n.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// A relative path that never climbs out of its folder.
fn stays_inside(path: &Path) -> bool {
    !path.as_os_str().is_empty() && path.components().all(|c| matches!(c, Component::Normal(_)))
}

pub struct GeminiMd;

impl FormatRules for GeminiMd {
    fn format(&self) -> Format {
        Format::GeminiMd
    }

    fn expands_imports(&self) -> bool {
        true
    }

    fn place(&self, rel: &Path) -> Placement {
        FILES.place(rel)
    }

    fn keeps(&self, rel: &Path) -> bool {
        FILES.keeps(rel)
    }

    fn file_budgets(&self, file: &MemoryFile, _preset: Option<&str>) -> Vec<Budget> {
        FILES.file_budgets(file)
    }

    fn bank_budgets(&self, _preset: Option<&str>) -> Vec<Budget> {
        FILES.bank_budgets()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_sub_folders_gemini_md_loads_at_start() {
        assert_eq!(
            GeminiMd.place(Path::new("packages/api/GEMINI.md")).load,
            LoadKind::Startup
        );
        // Claude Code reads a sub-folder's CLAUDE.md only when it works there.
        assert_eq!(
            super::super::claude_md::ClaudeMd
                .place(Path::new("packages/api/CLAUDE.md"))
                .load,
            LoadKind::OnDemand
        );
    }

    #[test]
    fn extensions_add_the_context_files_their_manifests_name() {
        let home = tempfile::tempdir().unwrap();
        let ext = home.path().join(EXTENSIONS_DIR);
        write(
            &ext.join("a-named/gemini-extension.json"),
            r#"{"name":"a","contextFileName":"CONTEXT.md"}"#,
        );
        write(&ext.join("a-named/CONTEXT.md"), "# a\n");
        write(&ext.join("a-named/GEMINI.md"), "# not named\n");
        write(
            &ext.join("b-default/gemini-extension.json"),
            r#"{"name":"b"}"#,
        );
        write(&ext.join("b-default/GEMINI.md"), "# b\n");
        write(
            &ext.join("c-list/gemini-extension.json"),
            r#"{"contextFileName":["one.md","../../escape.md","/etc/passwd","missing.md","two.md"]}"#,
        );
        write(&ext.join("c-list/one.md"), "1\n");
        write(&ext.join("c-list/two.md"), "2\n");
        write(&home.path().join(".gemini/escape.md"), "out\n");
        write(&ext.join("d-no-manifest/GEMINI.md"), "# d\n");
        write(&ext.join("e-bad-json/gemini-extension.json"), "{");
        write(&ext.join("e-bad-json/GEMINI.md"), "# e\n");
        let found: Vec<String> = extension_context_files(home.path())
            .iter()
            .map(|f| f.strip_prefix(&ext).unwrap().display().to_string())
            .collect();
        assert_eq!(
            found,
            [
                "a-named/CONTEXT.md",
                "b-default/GEMINI.md",
                "c-list/one.md",
                "c-list/two.md",
                "e-bad-json/GEMINI.md"
            ]
        );
        assert!(extension_context_files(&home.path().join("nowhere")).is_empty());
    }
}
