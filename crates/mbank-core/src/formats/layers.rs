//! The layers an instruction-file agent loads around the project's own files: the user's
//! files in the home folder, loaded first (`user_files`), and the instruction files of
//! the folders above the project, loaded next (`ancestor_files`). Each agent's own
//! documentation sets its layers; the members' files name them.
use std::path::{Path, PathBuf};

use super::{agents_md, beans_md, claude_md, gemini_md};
use crate::model::Format;

/// User-level files of an agent, which load before the project's, those that exist, in
/// load order: `~/.claude/CLAUDE.md` and the rules of `~/.claude/rules/` (sub-folders
/// included), `~/.gemini/GEMINI.md` and the installed Gemini extensions' context files,
/// `~/.beans/BEANS.md` and its local file, and Codex's first non-empty (`non_empty`) of
/// `AGENTS.override.md` and `AGENTS.md` in `codex_home` (`$CODEX_HOME`), else in `~/.codex`.
pub(crate) fn user_files(
    format: Format,
    home: &Path,
    codex_home: Option<&Path>,
    non_empty: &dyn Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let mut before = Vec::new();
    match format {
        Format::ClaudeMd => {
            let dot_dir = home.join(claude_md::FILES.dot_dir);
            before.push(dot_dir.join(claude_md::FILES.main));
            before.extend(claude_md::user_rules::files(home));
        }
        Format::GeminiMd => {
            before.push(
                home.join(gemini_md::FILES.dot_dir)
                    .join(gemini_md::FILES.main),
            );
            before.extend(gemini_md::extension_context_files(home));
        }
        Format::AgentsMd => {
            // Codex uses the first non-empty one of the two.
            let codex = codex_home.map_or_else(
                || agents_md::global_instructions::folder(home),
                Path::to_path_buf,
            );
            let first_non_empty = [agents_md::OVERRIDE, agents_md::FILES.main]
                .into_iter()
                .map(|name| codex.join(name))
                .find(|file| non_empty(file));
            before.extend(first_non_empty);
        }
        Format::OpenCode => before.extend(super::opencode::user_file(home)),
        Format::BeansMd => {
            let dot_dir = home.join(beans_md::FILES.dot_dir);
            before.push(dot_dir.join(beans_md::FILES.main));
            before.push(dot_dir.join(beans_md::FILES.local));
        }
        _ => {}
    }
    before.retain(|p| p.is_file());
    before
}

/// The instruction files an agent inherits from the folders above the project, outermost
/// first; they load after the user layer and before the project's files.
/// - Claude Code: `CLAUDE.md` then `CLAUDE.local.md` of every folder above the project up
///   to, not including, `/`; when the project is under the home folder the walk stops
///   below it (the home folder's own files are the user layer's business).
/// - Codex: `AGENTS.override.md`, else `AGENTS.md`, of every folder from the git root (the
///   nearest folder above holding `.git`) down to the project; none outside a repository
///   or when the project is the repository's top. Empty files are skipped when loading.
/// - Gemini CLI: `GEMINI.md` of every folder above the project up to the project root
///   (the nearest folder holding `.git`, included) or, outside a repository, up to the
///   home folder (not included) or `/`; none when the project is the repository's top.
/// - Beans-Code: walking up to the project root detected by `.git`, the memory files of
///   every folder from that root down to the project, under each name of `fileNames` in
///   its order (`BEANS.md` by default); the same folders as Codex's. None when
///   `searchParents` is off or the project is not trusted.
pub(crate) fn ancestor_files(format: Format, project: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let above: Vec<&Path> = project.ancestors().skip(1).collect();
    let beans = (format == Format::BeansMd)
        .then(|| beans_md::settings::for_project(project, home).settings);
    if let Some(beans) = &beans
        && !(beans.search_parents && beans.trusted)
    {
        return Vec::new();
    }
    let folders: Vec<&Path> = match format {
        Format::ClaudeMd => above
            .into_iter()
            .take_while(|dir| dir.parent().is_some() && Some(*dir) != home)
            .collect(),
        Format::AgentsMd | Format::BeansMd => {
            if project.join(".git").exists() {
                return Vec::new();
            }
            match above.iter().position(|dir| dir.join(".git").exists()) {
                Some(root) => above[..=root].to_vec(),
                None => return Vec::new(),
            }
        }
        Format::GeminiMd => {
            if project.join(".git").exists() {
                return Vec::new();
            }
            let mut folders = Vec::new();
            for dir in above {
                if dir.parent().is_none() || Some(dir) == home {
                    break;
                }
                folders.push(dir);
                if dir.join(".git").exists() {
                    break;
                }
            }
            folders
        }
        _ => return Vec::new(),
    };
    let mut files = Vec::new();
    // Outermost first, as the agents join them.
    for dir in folders.into_iter().rev() {
        match format {
            Format::ClaudeMd => {
                files.extend(
                    [claude_md::FILES.main, claude_md::FILES.local]
                        .into_iter()
                        .map(|name| dir.join(name))
                        .filter(|file| file.is_file()),
                );
            }
            Format::GeminiMd => {
                files.extend(Some(dir.join(gemini_md::FILES.main)).filter(|file| file.is_file()));
            }
            Format::BeansMd => {
                let names = beans.as_ref().map_or(&[][..], |b| b.file_names.as_slice());
                files.extend(
                    names
                        .iter()
                        .map(|name| dir.join(name))
                        .filter(|file| file.is_file()),
                );
            }
            _ => {
                let codex_override = dir.join(agents_md::OVERRIDE);
                let main = dir.join(agents_md::FILES.main);
                files.extend([codex_override, main].into_iter().find(|f| f.is_file()));
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn beans_parents_run_from_the_git_root_down_and_follow_the_settings() {
        let dir = tempfile::tempdir().unwrap();
        let (home, repo) = (dir.path().join("home"), dir.path().join("repo"));
        let project = repo.join("a/b");
        write(&dir.path().join("BEANS.md"), "above the repository");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        write(&repo.join("BEANS.md"), "top");
        write(&repo.join("CONTEXT.md"), "top context");
        write(&repo.join("a/BEANS.md"), "a");
        write(&project.join("BEANS.md"), "project");
        let found = |home: &Path| -> Vec<String> {
            ancestor_files(Format::BeansMd, &project, Some(home))
                .iter()
                .map(|f| f.strip_prefix(&repo).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(found(&home), ["BEANS.md", "a/BEANS.md"]);
        write(
            &home.join(".beans/settings.json"),
            r#"{"memory":{"fileNames":["CONTEXT.md","BEANS.md"]}}"#,
        );
        assert_eq!(found(&home), ["CONTEXT.md", "BEANS.md", "a/BEANS.md"]);
        write(
            &project.join(".beans/settings.json"),
            r#"{"memory":{"searchParents":false}}"#,
        );
        assert!(found(&home).is_empty());
        // Outside a repository, none.
        let loose = dir.path().join("loose/p");
        write(&dir.path().join("loose/BEANS.md"), "x");
        assert!(ancestor_files(Format::BeansMd, &loose, Some(&home)).is_empty());
    }
}
