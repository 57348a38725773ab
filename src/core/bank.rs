//! Listing a bank's files in its format's read order. Reads metadata, plus the little
//! content that decides placement: rule frontmatter (`paths:`) and the Infinity store.
use std::fs;
use std::path::{Path, PathBuf};

use super::discovery::ALWAYS_SKIPPED;
use super::formats::{self, hierarchical_file_name};
use super::infinity;
use super::model::{
    Bank, BankLocation, Format, LoadKind, MemoryFile, Project, Role, VirtualMemory,
};
use super::text;

/// A bank folder with more entries than this is listed up to the cap, with a problem noted.
const MAX_FILES_PER_BANK: usize = 5_000;
/// How deep inside a bank folder files are listed.
const MAX_BANK_DEPTH: usize = 6;
/// How deep inside a project sub-folder instruction files (`sub/CLAUDE.md`) are sought.
const MAX_NESTED_DEPTH: usize = 3;

struct Lister<'a> {
    project: &'a Path,
    format: Format,
    bank_root: PathBuf,
    files: Vec<MemoryFile>,
    problems: Vec<String>,
}

impl Lister<'_> {
    fn push(&mut self, path: PathBuf, meta: &fs::Metadata) {
        let rel = path
            .strip_prefix(&self.bank_root)
            .unwrap_or(&path)
            .to_path_buf();
        let bank_dir = self
            .bank_root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let placement = if formats::DOCUMENT_BANK_DIRS.contains(&bank_dir.as_str()) {
            formats::place_document_bank(&bank_dir, &rel)
        } else {
            formats::place(self.format, &rel)
        };
        let display = path
            .strip_prefix(self.project)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        self.files.push(MemoryFile {
            path,
            display,
            role: placement.role,
            layer: placement.layer,
            order: 0,
            group: placement.group,
            load: placement.load,
            size: meta.len(),
            modified: meta.modified().ok(),
            memory: None,
            unreadable: None,
        });
    }

    fn push_if_file(&mut self, path: PathBuf) {
        if let Ok(meta) = fs::metadata(&path)
            && meta.is_file()
        {
            self.push(path, &meta);
        }
    }

    /// Lists every file under `dir`, bounded in depth and count; symlinks are listed only
    /// when they point to a file inside the bank (never followed as folders).
    fn walk(&mut self, dir: &Path, depth: usize) {
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => {
                self.problems
                    .push(format!("cannot list {}: {e}", dir.display()));
                return;
            }
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            if self.files.len() >= MAX_FILES_PER_BANK {
                self.problems.push(format!(
                    "{} holds more than {MAX_FILES_PER_BANK} files; the rest are not listed",
                    self.bank_root.display()
                ));
                return;
            }
            let path = entry.path();
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            if file_type.is_dir() {
                let name = entry.file_name();
                if depth < MAX_BANK_DEPTH && name != ".git" {
                    self.walk(&path, depth + 1);
                }
            } else if file_type.is_symlink() {
                match fs::canonicalize(&path) {
                    Ok(target) => {
                        let inside = fs::canonicalize(&self.bank_root)
                            .is_ok_and(|root| target.starts_with(root));
                        if inside {
                            self.push_if_file(path);
                        }
                    }
                    // A dangling link or a link loop: say so rather than drop it silently.
                    Err(e) => self
                        .problems
                        .push(format!("cannot follow the symlink {}: {e}", path.display())),
                }
            } else if let Ok(meta) = entry.metadata() {
                self.push(path, &meta);
            }
        }
    }
}

/// Finds `sub/**/CLAUDE.md` (etc.) below the project, skipping hidden, vendored and
/// memory folders, to `MAX_NESTED_DEPTH` levels.
fn nested_instruction_files(project: &Path, file_name: &str, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(project) else {
        return;
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            !name.starts_with('.')
                && !ALWAYS_SKIPPED.contains(&name.as_str())
                && name != "memory-bank"
        })
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for dir in dirs {
        let candidate = dir.join(file_name);
        if candidate.is_file() {
            out.push(candidate);
        }
        if depth + 1 < MAX_NESTED_DEPTH {
            nested_instruction_files(&dir, file_name, depth + 1, out);
        }
    }
}

/// A `.claude/rules` file whose frontmatter scopes it with `paths:`/`globs:` loads only
/// when matching files are touched.
fn rule_is_conditional(path: &Path) -> bool {
    let Ok(text) = text::read_text_limited(path, 1024 * 1024) else {
        return false;
    };
    super::markdown::frontmatter(&text).is_some_and(|fm| {
        fm.yaml.lines().any(|l| {
            let l = l.trim_start();
            (l.starts_with("paths:") || l.starts_with("globs:")) && !l.contains("alwaysApply: true")
        }) && !fm.yaml.lines().any(|l| l.trim() == "alwaysApply: true")
    })
}

fn list_hierarchical(lister: &mut Lister<'_>) {
    let project = lister.project.to_path_buf();
    let Some(main) = hierarchical_file_name(lister.format) else {
        return;
    };
    let local = main.replace(".md", ".local.md");
    lister.push_if_file(project.join(main));
    let dot_dir = match lister.format {
        Format::ClaudeMd => Some(".claude"),
        Format::BeansMd => Some(".beans"),
        _ => None,
    };
    if let Some(dot) = dot_dir {
        lister.push_if_file(project.join(dot).join(main));
        let rules = project.join(dot).join("rules");
        if rules.is_dir() {
            let before = lister.files.len();
            lister.walk(&rules, 1);
            // Only markdown rules load; conditional ones only on demand.
            for file in &mut lister.files[before..] {
                let is_md = file.path.extension().is_some_and(|e| e == "md");
                if !is_md {
                    file.role = Role::Other;
                    file.load = LoadKind::Never;
                } else if file.load == LoadKind::Startup && rule_is_conditional(&file.path) {
                    file.load = LoadKind::OnDemand;
                }
            }
        }
        lister.push_if_file(project.join(dot).join(&local));
    }
    lister.push_if_file(project.join(&local));
    let mut nested = Vec::new();
    nested_instruction_files(&project, main, 0, &mut nested);
    for path in nested {
        lister.push_if_file(path);
    }
}

fn list_roo(lister: &mut Lister<'_>) {
    let project = lister.project.to_path_buf();
    let Ok(entries) = fs::read_dir(&project) else {
        return;
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let path = project.join(&name);
        let is_rule_name = name == ".clinerules"
            || name == ".roomodes"
            || formats::mode_of_rule_file(&name).is_some();
        if is_rule_name && path.is_file() {
            lister.push_if_file(path);
        } else if (name == ".clinerules" || name == ".roo") && path.is_dir() {
            lister.walk(&path, 1);
        }
    }
}

fn infinity_role(kind: &str) -> Role {
    match kind {
        "project_overview" => Role::Brief,
        "design_doc" => Role::Patterns,
        "implementation_plan" | "progress_tracker" => Role::Progress,
        "instructions" => Role::Instructions,
        "rules" => Role::Rules,
        _ => Role::Other,
    }
}

fn list_infinity(lister: &mut Lister<'_>, project_id: &mut Option<String>) {
    let store_path = lister.bank_root.join("memories.json");
    let meta = match fs::metadata(&store_path) {
        Ok(meta) => meta,
        Err(e) => {
            lister
                .problems
                .push(format!("cannot read {}: {e}", store_path.display()));
            return;
        }
    };
    let id_file = lister.bank_root.join("project_id");
    *project_id = text::read_text_limited(&id_file, 4096)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    let parsed = text::read_text(&store_path)
        .map_err(|e| e.to_string())
        .and_then(|t| infinity::parse_store(&t).map_err(|e| e.to_string()));
    let (store, _) = match parsed {
        Ok(parsed) => parsed,
        Err(message) => {
            // The store is still listed, as one unreadable file, so nothing disappears.
            lister.push(store_path.clone(), &meta);
            if let Some(file) = lister.files.last_mut() {
                file.role = Role::Other;
                file.unreadable = Some(message.clone());
            }
            lister.problems.push(message);
            return;
        }
    };
    if project_id.is_none() {
        *project_id = store.project_id.clone();
    }
    let store_display = store_path
        .strip_prefix(lister.project)
        .unwrap_or(&store_path)
        .to_string_lossy()
        .into_owned();
    for memory in store.memories {
        lister.files.push(MemoryFile {
            path: store_path.clone(),
            display: format!("{store_display}#{}", memory.id),
            role: infinity_role(&memory.kind),
            layer: None,
            order: 0,
            group: Some(memory.kind.clone()),
            load: LoadKind::OnDemand,
            size: memory.content.len() as u64,
            modified: meta.modified().ok(),
            memory: Some(VirtualMemory {
                id: memory.id,
                title: memory.title,
                kind: memory.kind,
                created_at: memory.created_at,
                updated_at: memory.updated_at,
            }),
            unreadable: None,
        });
    }
}

fn load_rank(load: LoadKind) -> u8 {
    match load {
        LoadKind::Startup => 0,
        LoadKind::OnDemand => 1,
        LoadKind::Never => 2,
    }
}

/// Sorts files into read order: layer, then startup before on-demand before never, then
/// group and name; and numbers them.
fn sort_read_order(format: Format, files: &mut [MemoryFile]) {
    // Keys are built once per file, not twice per comparison.
    files.sort_by_cached_key(|f| {
        (
            f.layer.unwrap_or(u8::MAX),
            load_rank(f.load),
            f.group.clone().unwrap_or_default(),
            if format == Format::Infinity {
                f.memory
                    .as_ref()
                    .map(|m| m.title.to_lowercase())
                    .unwrap_or_default()
            } else {
                f.display.to_lowercase()
            },
        )
    });
    for (order, file) in files.iter_mut().enumerate() {
        file.order = order;
    }
}

/// Lists one bank of a project.
pub fn list_bank(project: &Project, location: &BankLocation) -> Bank {
    let mut lister = Lister {
        project: &project.path,
        format: location.format,
        bank_root: location.root.clone(),
        files: Vec::new(),
        problems: Vec::new(),
    };
    let mut project_id = None;
    match location.format {
        Format::Cline | Format::MemoryBankMcp | Format::ConKeeper => {
            let root = location.root.clone();
            lister.walk(&root, 0);
        }
        Format::RooRules => list_roo(&mut lister),
        Format::Infinity => list_infinity(&mut lister, &mut project_id),
        Format::ClaudeMd | Format::AgentsMd | Format::GeminiMd | Format::BeansMd => {
            list_hierarchical(&mut lister)
        }
    }
    let Lister {
        mut files,
        problems,
        ..
    } = lister;
    sort_read_order(location.format, &mut files);
    Bank {
        format: location.format,
        root: location.root.clone(),
        files,
        project_id,
        modes: Vec::new(),
        problems,
    }
}

/// Lists every bank of a project.
pub fn list_banks(project: &Project) -> Vec<Bank> {
    project
        .banks
        .iter()
        .map(|location| list_bank(project, location))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::discovery;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn project(dir: &Path) -> Project {
        discovery::project_at(dir, "p".into()).unwrap()
    }

    #[test]
    fn cline_bank_is_in_read_order_with_extras_last() {
        let dir = tempfile::tempdir().unwrap();
        let bank = dir.path().join("memory-bank");
        for name in [
            "progress.md",
            "activeContext.md",
            "projectbrief.md",
            "tasks.md",
            "decisionLog.md",
        ] {
            write(&bank.join(name), "# x\n");
        }
        write(&bank.join("archive/old.md"), "# old\n");
        let banks = list_banks(&project(dir.path()));
        let names: Vec<_> = banks[0].files.iter().map(|f| f.display.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "memory-bank/projectbrief.md",
                "memory-bank/activeContext.md",
                "memory-bank/progress.md",
                "memory-bank/decisionLog.md",
                "memory-bank/tasks.md",
                "memory-bank/archive/old.md",
            ]
        );
        assert_eq!(banks[0].files[5].load, LoadKind::Never);
    }

    #[test]
    fn claude_rules_with_paths_load_on_demand() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(&d.join("CLAUDE.md"), "# Main\n");
        write(&d.join("CLAUDE.local.md"), "# Mine\n");
        write(&d.join(".claude/rules/always.md"), "# Always\n");
        write(
            &d.join(".claude/rules/api.md"),
            "---\npaths:\n  - src/api/**\n---\n# Api\n",
        );
        write(&d.join("sub/CLAUDE.md"), "# Sub\n");
        let banks = list_banks(&project(d));
        let rows: Vec<_> = banks[0]
            .files
            .iter()
            .map(|f| (f.display.as_str(), f.layer, f.load))
            .collect();
        assert_eq!(
            rows,
            vec![
                ("CLAUDE.md", Some(1), LoadKind::Startup),
                (".claude/rules/always.md", Some(2), LoadKind::Startup),
                (".claude/rules/api.md", Some(2), LoadKind::OnDemand),
                ("CLAUDE.local.md", Some(3), LoadKind::Startup),
                ("sub/CLAUDE.md", Some(4), LoadKind::OnDemand),
            ]
        );
    }

    #[test]
    fn infinity_memories_become_virtual_files_and_broken_store_stays_listed() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(
            &d.join(".infinity/memories.json"),
            r##"{"project_id":"pid","memories":[{"id":"m1","title":"Plan","type":"implementation_plan","content":"# Plan","created_at":"2025-01-01T00:00:00Z"}]}"##,
        );
        let banks = list_banks(&project(d));
        assert_eq!(banks[0].project_id.as_deref(), Some("pid"));
        let file = &banks[0].files[0];
        assert_eq!(file.display, ".infinity/memories.json#m1");
        assert_eq!(file.memory.as_ref().unwrap().title, "Plan");
        write(&d.join(".infinity/memories.json"), "{ broken");
        let banks = list_banks(&project(d));
        assert_eq!(banks[0].files.len(), 1);
        assert!(
            banks[0].files[0]
                .unreadable
                .as_deref()
                .unwrap()
                .contains("line 1")
        );
    }
}
