//! How each format names its files, in what order agents read them, and when.
//!
//! Names are matched leniently: `projectBrief.md`, `projectbrief.md`, `project-brief.md`
//! and `project_brief.md` all reduce to the same key.
use std::path::Path;

use super::model::{Format, LoadKind, Role};

/// Where a file sits in its format's scheme.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub role: Role,
    pub layer: Option<u8>,
    pub group: Option<String>,
    pub load: LoadKind,
}

/// Lower-case file stem with `-`, `_`, `.` and spaces removed: the key names are matched on.
pub fn name_key(file_name: &str) -> String {
    let stem = [".md", ".markdown", ".json"]
        .iter()
        .find_map(|ext| file_name.strip_suffix(ext))
        .unwrap_or(file_name);
    stem.chars()
        .filter(|c| !matches!(c, '-' | '_' | ' ' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// [`name_key`] of a short ASCII name, in `buffer` (no allocation: the common case);
/// `None` for a longer or non-ASCII one.
fn short_name_key<'b>(file_name: &str, buffer: &'b mut [u8; 32]) -> Option<&'b str> {
    let stem = [".md", ".markdown", ".json"]
        .iter()
        .find_map(|ext| file_name.strip_suffix(ext))
        .unwrap_or(file_name);
    let mut len = 0;
    for c in stem.chars().filter(|c| !matches!(c, '-' | '_' | ' ' | '.')) {
        if !c.is_ascii() || len == buffer.len() {
            return None;
        }
        buffer[len] = c.to_ascii_lowercase() as u8;
        len += 1;
    }
    std::str::from_utf8(&buffer[..len]).ok()
}

/// The role a core file name stands for, whatever its spelling.
pub fn role_for_name(file_name: &str) -> Option<Role> {
    let mut buffer = [0u8; 32];
    let long_key;
    let key = match short_name_key(file_name, &mut buffer) {
        Some(key) => key,
        None => {
            long_key = name_key(file_name);
            long_key.as_str()
        }
    };
    let role = match key {
        "projectbrief" | "brief" | "projectoverview" => Role::Brief,
        "productcontext" | "product" => Role::Product,
        "systempatterns" | "patterns" | "architecture" | "systemarchitecture" => Role::Patterns,
        "techcontext" | "tech" | "techstack" | "technicalcontext" => Role::Tech,
        "activecontext" | "active" | "currentcontext" => Role::Active,
        "progress" | "progresstracker" => Role::Progress,
        "decisionlog" | "decisions" | "architecturedecisions" => Role::Decisions,
        "glossary" => Role::Glossary,
        "sessionlog" => Role::Session,
        _ if is_adr_name(file_name) => Role::Adr,
        _ => return None,
    };
    Some(role)
}

/// `ADR-001-title.md`, `ADR-0014.md`, `adr-12.md`.
pub fn is_adr_name(file_name: &str) -> bool {
    adr_number(file_name).is_some()
}

/// The number of an ADR file name, if it is one.
pub fn adr_number(file_name: &str) -> Option<u32> {
    let lower = file_name.to_ascii_lowercase();
    let rest = lower.strip_prefix("adr")?;
    let rest = rest.strip_prefix(['-', '_']).unwrap_or(rest);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return None;
    }
    digits.parse().ok()
}

fn is_markdown(file_name: &str) -> bool {
    let name = file_name.as_bytes();
    let has = |suffix: &[u8]| {
        name.len() >= suffix.len() && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
    };
    has(b".md") || has(b".markdown")
}

/// Read-order layer of a role in the Cline family (seed 000 §2.2).
fn cline_layer(role: Role) -> Option<u8> {
    Some(match role {
        Role::Brief => 1,
        Role::Product => 2,
        Role::Patterns => 3,
        Role::Tech => 4,
        Role::Active => 5,
        Role::Progress => 6,
        Role::Decisions => 7,
        _ => return None,
    })
}

/// Roo / Memory Bank MCP read order: product, active, patterns, decisions, progress.
fn mcp_layer(role: Role) -> Option<u8> {
    Some(match role {
        Role::Brief => 1,
        Role::Product => 2,
        Role::Active => 3,
        Role::Patterns => 4,
        Role::Tech => 5,
        Role::Decisions => 6,
        Role::Progress => 7,
        _ => return None,
    })
}

/// ConKeeper's session-start order: stable context first, then state, then history.
fn conkeeper_layer(role: Role) -> Option<u8> {
    Some(match role {
        Role::Brief => 1,
        Role::Product => 2,
        Role::Active => 3,
        Role::Progress => 4,
        Role::Patterns => 5,
        Role::Tech => 5,
        Role::Glossary => 6,
        Role::Adr => 7,
        Role::Session => 8,
        _ => return None,
    })
}

/// Places a file of a bank, given its path relative to the bank root.
pub fn place(format: Format, rel: &Path) -> Placement {
    let file_name = super::paths::file_name(rel)
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let file_name = file_name.as_ref();
    let parents: Vec<String> = rel
        .parent()
        .map(|p| {
            p.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    match format {
        Format::Cline | Format::MemoryBankMcp => place_memory_bank(format, file_name, &parents),
        Format::ConKeeper => place_conkeeper(file_name, &parents),
        Format::RooRules => place_roo(file_name, &parents),
        Format::ClaudeMd | Format::AgentsMd | Format::GeminiMd | Format::BeansMd => {
            place_hierarchical(format, file_name, &parents)
        }
        Format::Infinity => Placement {
            role: Role::Other,
            layer: None,
            group: None,
            load: LoadKind::OnDemand,
        },
    }
}

fn place_memory_bank(format: Format, file_name: &str, parents: &[String]) -> Placement {
    let role = role_for_name(file_name).unwrap_or(Role::Other);
    // Agents read every markdown file at the top of the bank; sub-folders (archive/,
    // backup-*/) and non-markdown files are kept but never loaded.
    let top_level = parents.is_empty();
    let load = if top_level && is_markdown(file_name) {
        LoadKind::Startup
    } else {
        LoadKind::Never
    };
    let layer = if top_level {
        match format {
            Format::MemoryBankMcp => mcp_layer(role),
            _ => cline_layer(role),
        }
    } else {
        None
    };
    let role = if top_level { role } else { Role::Other };
    Placement {
        role,
        layer,
        group: parents.first().cloned(),
        load,
    }
}

fn place_conkeeper(file_name: &str, parents: &[String]) -> Placement {
    let first = parents.first().map(String::as_str);
    let (role, group, load) = match first {
        Some("decisions") if name_key(file_name) == "index" => {
            (Role::Other, Some("decisions"), LoadKind::Startup)
        }
        Some("decisions") if is_adr_name(file_name) => {
            (Role::Adr, Some("decisions"), LoadKind::OnDemand)
        }
        Some("decisions") => (Role::Other, Some("decisions"), LoadKind::OnDemand),
        Some("sessions") => (Role::Session, Some("sessions"), LoadKind::OnDemand),
        Some(_) => (Role::Other, None, LoadKind::Never),
        None if file_name == ".memory-config.md" || file_name == ".last-sync" => {
            (Role::Config, None, LoadKind::Never)
        }
        None if is_markdown(file_name) => (
            role_for_name(file_name).unwrap_or(Role::Other),
            None,
            LoadKind::Startup,
        ),
        None => (Role::Other, None, LoadKind::Never),
    };
    let group = group
        .map(str::to_string)
        .or_else(|| parents.first().cloned());
    // decisions/INDEX.md loads at session start as the decisions' entry: their layer.
    let index = first == Some("decisions") && load == LoadKind::Startup;
    Placement {
        layer: if index {
            conkeeper_layer(Role::Adr)
        } else {
            conkeeper_layer(role)
        },
        role,
        group,
        load,
    }
}

/// Folder names of the JSON document banks of the `memory-bank-mcp-server` family:
/// one global bank and one bank folder per git branch.
pub const DOCUMENT_BANK_DIRS: [&str; 2] = ["global-memory-bank", "branch-memory-bank"];

/// Places a file of a document bank (`global-memory-bank/`, `branch-memory-bank/<branch>/`).
/// The MCP server hands documents to the agent on request, so nothing loads at start.
pub fn place_document_bank(bank_dir_name: &str, rel: &Path) -> Placement {
    let components: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let file_name = components.last().cloned().unwrap_or_default();
    let group = components.len().gt(&1).then(|| components[0].clone());
    // In a branch bank the first folder is the branch; its own files are its core documents.
    let depth_in_group = if bank_dir_name == "branch-memory-bank" {
        components.len().saturating_sub(2)
    } else {
        components.len().saturating_sub(1)
    };
    let is_document = file_name.ends_with(".json") || is_markdown(&file_name);
    let role = if depth_in_group == 0 {
        role_for_name(&file_name).unwrap_or(Role::Other)
    } else {
        Role::Other
    };
    Placement {
        role,
        layer: if depth_in_group == 0 {
            mcp_layer(role)
        } else {
            None
        },
        group,
        load: if is_document {
            LoadKind::OnDemand
        } else {
            LoadKind::Never
        },
    }
}

/// `.clinerules-code` → `code`, `.roorules-debug` → `debug`.
pub fn mode_of_rule_file(file_name: &str) -> Option<&str> {
    file_name
        .strip_prefix(".clinerules-")
        .or_else(|| file_name.strip_prefix(".roorules-"))
        .filter(|m| !m.is_empty())
}

fn place_roo(file_name: &str, parents: &[String]) -> Placement {
    let first = parents.first().map(String::as_str);
    let (role, layer, group, load) = match first {
        None if file_name == ".clinerules" => (Role::Rules, Some(1), None, LoadKind::Startup),
        None if file_name == ".roomodes" => (Role::Config, Some(2), None, LoadKind::OnDemand),
        None if mode_of_rule_file(file_name).is_some() => {
            (Role::Rules, Some(3), None, LoadKind::OnDemand)
        }
        // .clinerules/ as a folder of rule files (newer Cline).
        Some(".clinerules") => (
            Role::Rules,
            Some(1),
            Some(".clinerules".to_string()),
            LoadKind::Startup,
        ),
        Some(".roo") => {
            let sub = parents.get(1).map(String::as_str);
            match sub {
                Some("rules") => (
                    Role::Rules,
                    Some(1),
                    Some("rules".into()),
                    LoadKind::Startup,
                ),
                Some(s) if s.starts_with("rules-") => (
                    Role::Rules,
                    Some(3),
                    Some(s.to_string()),
                    LoadKind::OnDemand,
                ),
                Some(s) => (Role::Other, None, Some(s.to_string()), LoadKind::Never),
                None if file_name.starts_with("system-prompt-") => {
                    (Role::Instructions, Some(3), None, LoadKind::OnDemand)
                }
                None => (Role::Config, None, None, LoadKind::Never),
            }
        }
        _ => (Role::Other, None, parents.first().cloned(), LoadKind::Never),
    };
    Placement {
        role,
        layer,
        group,
        load,
    }
}

/// The instruction file name of a hierarchical format.
pub fn hierarchical_file_name(format: Format) -> Option<&'static str> {
    match format {
        Format::ClaudeMd => Some("CLAUDE.md"),
        Format::AgentsMd => Some("AGENTS.md"),
        Format::GeminiMd => Some("GEMINI.md"),
        Format::BeansMd => Some("BEANS.md"),
        _ => None,
    }
}

fn place_hierarchical(format: Format, file_name: &str, parents: &[String]) -> Placement {
    let main = hierarchical_file_name(format).unwrap_or("");
    let local = main.replace(".md", ".local.md");
    let dot_dir = match format {
        Format::ClaudeMd => ".claude",
        Format::BeansMd => ".beans",
        Format::GeminiMd => ".gemini",
        _ => ".codex",
    };
    let first = parents.first().map(String::as_str);
    let (role, layer, group, load) = match first {
        None if file_name == main => (Role::Instructions, Some(1), None, LoadKind::Startup),
        None if file_name == local => (Role::Instructions, Some(3), None, LoadKind::Startup),
        Some(d) if d == dot_dir && parents.len() == 1 && file_name == main => {
            (Role::Instructions, Some(1), None, LoadKind::Startup)
        }
        Some(d) if d == dot_dir && parents.len() == 1 && file_name == local => {
            (Role::Instructions, Some(3), None, LoadKind::Startup)
        }
        Some(d) if d == dot_dir && parents.get(1).map(String::as_str) == Some("rules") => {
            // Rules without `paths:` load at start; bank listing refines this from frontmatter.
            let load = if format == Format::BeansMd {
                LoadKind::OnDemand
            } else {
                LoadKind::Startup
            };
            (Role::Rules, Some(2), Some("rules".into()), load)
        }
        // A sub-folder's instruction file loads just in time, when the agent works there.
        Some(_) => (
            Role::Instructions,
            Some(4),
            Some("subfolders".into()),
            LoadKind::OnDemand,
        ),
        None => (Role::Other, None, None, LoadKind::Never),
    };
    Placement {
        role,
        layer,
        group,
        load,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn every_spelling_of_a_core_name_has_one_role() {
        for name in [
            "projectBrief.md",
            "projectbrief.md",
            "project-brief.md",
            "project_brief.md",
        ] {
            assert_eq!(role_for_name(name), Some(Role::Brief), "{name}");
        }
        assert_eq!(role_for_name("active-context.md"), Some(Role::Active));
        assert_eq!(role_for_name("decisionLog.md"), Some(Role::Decisions));
        assert_eq!(role_for_name("decision-log.md"), Some(Role::Decisions));
        assert_eq!(role_for_name("tech-context.md"), Some(Role::Tech));
        assert_eq!(role_for_name("ADR-0014.md"), Some(Role::Adr));
        assert_eq!(role_for_name("tasks.md"), None);
        assert_eq!(role_for_name("activeContext.json"), Some(Role::Active));
    }

    #[test]
    fn adr_numbers_parse_from_both_naming_schemes() {
        assert_eq!(adr_number("ADR-001-use-postgres.md"), Some(1));
        assert_eq!(adr_number("ADR-012-20250101-1200-x.md"), Some(12));
        assert_eq!(adr_number("adr_7.md"), Some(7));
        assert_eq!(adr_number("ADRIAN.md"), None);
    }

    #[test]
    fn cline_layers_follow_the_spec_and_archives_never_load() {
        let p = place(Format::Cline, &PathBuf::from("projectbrief.md"));
        assert_eq!(
            (p.role, p.layer, p.load),
            (Role::Brief, Some(1), LoadKind::Startup)
        );
        let p = place(Format::Cline, &PathBuf::from("decisionLog.md"));
        assert_eq!(p.layer, Some(7));
        let p = place(Format::Cline, &PathBuf::from("archive/progress-2024.md"));
        assert_eq!((p.role, p.load), (Role::Other, LoadKind::Never));
        assert_eq!(p.group.as_deref(), Some("archive"));
        let p = place(Format::Cline, &PathBuf::from("notes.json"));
        assert_eq!(p.load, LoadKind::Never);
    }

    #[test]
    fn conkeeper_places_adrs_sessions_and_config() {
        let p = place(Format::ConKeeper, &PathBuf::from("decisions/ADR-003-x.md"));
        assert_eq!((p.role, p.group.as_deref()), (Role::Adr, Some("decisions")));
        let p = place(
            Format::ConKeeper,
            &PathBuf::from("sessions/2025-01-02-api.md"),
        );
        assert_eq!(p.role, Role::Session);
        let p = place(Format::ConKeeper, &PathBuf::from(".memory-config.md"));
        assert_eq!((p.role, p.load), (Role::Config, LoadKind::Never));
        let p = place(Format::ConKeeper, &PathBuf::from("active-context.md"));
        assert_eq!((p.role, p.load), (Role::Active, LoadKind::Startup));
        // The decisions index loads at start and has its place in the order.
        let p = place(Format::ConKeeper, &PathBuf::from("decisions/INDEX.md"));
        assert_eq!((p.load, p.layer), (LoadKind::Startup, Some(7)));
        let glossary = place(Format::ConKeeper, &PathBuf::from("glossary.md"));
        assert!(glossary.layer < p.layer);
    }

    #[test]
    fn document_banks_group_by_branch() {
        let p = place_document_bank(
            "branch-memory-bank",
            &PathBuf::from("feature-x/activeContext.json"),
        );
        assert_eq!(
            (p.role, p.group.as_deref(), p.load),
            (Role::Active, Some("feature-x"), LoadKind::OnDemand)
        );
        let p = place_document_bank(
            "branch-memory-bank",
            &PathBuf::from("feature-x/design/plan.json"),
        );
        assert_eq!(p.role, Role::Other);
        let p = place_document_bank("global-memory-bank", &PathBuf::from("core/glossary.json"));
        assert_eq!((p.role, p.group.as_deref()), (Role::Other, Some("core")));
        let p = place_document_bank("global-memory-bank", &PathBuf::from(".gitkeep"));
        assert_eq!(p.load, LoadKind::Never);
    }

    #[test]
    fn roo_mode_files_load_on_demand() {
        assert_eq!(
            mode_of_rule_file(".clinerules-architect"),
            Some("architect")
        );
        assert_eq!(mode_of_rule_file(".roorules-debug"), Some("debug"));
        assert_eq!(mode_of_rule_file(".clinerules"), None);
        let p = place(Format::RooRules, &PathBuf::from(".roo/rules-code/rules.md"));
        assert_eq!(
            (p.load, p.group.as_deref()),
            (LoadKind::OnDemand, Some("rules-code"))
        );
        let p = place(Format::RooRules, &PathBuf::from(".clinerules"));
        assert_eq!(p.load, LoadKind::Startup);
    }

    #[test]
    fn hierarchical_files_get_layers() {
        let p = place(Format::ClaudeMd, &PathBuf::from("CLAUDE.md"));
        assert_eq!((p.layer, p.load), (Some(1), LoadKind::Startup));
        let p = place(Format::ClaudeMd, &PathBuf::from("CLAUDE.local.md"));
        assert_eq!(p.layer, Some(3));
        let p = place(
            Format::ClaudeMd,
            &PathBuf::from(".claude/rules/py/python.md"),
        );
        assert_eq!((p.role, p.layer), (Role::Rules, Some(2)));
        let p = place(Format::ClaudeMd, &PathBuf::from("statusline/CLAUDE.md"));
        assert_eq!((p.layer, p.load), (Some(4), LoadKind::OnDemand));
    }
}
