//! Which project folder an agent names. Agents send a project name (`projectName`, the
//! widely used memory-bank server's key), a path relative to the root, or an absolute
//! path; whatever they send must stay under the root (the Cline memory bank spec: per-project
//! isolation), symlinks resolved.
use std::fs;
use std::path::{Component, Path, PathBuf};

use super::{AgentError, AgentResult};
use crate::model::Project;
use crate::scan::discovery::{self, ScanOptions};

/// The root every project of a server lives under.
#[derive(Debug, Clone)]
pub struct Root {
    /// As configured.
    pub path: PathBuf,
    /// Symlinks resolved: every project must be inside it.
    pub real: PathBuf,
}

impl Root {
    /// The root at `path`, which must be an existing folder.
    pub fn new(path: &Path) -> AgentResult<Root> {
        let real = fs::canonicalize(path).map_err(|e| {
            AgentError::InvalidRequest(format!(
                "the memory bank root {} cannot be used: {e}",
                path.display()
            ))
        })?;
        if !real.is_dir() {
            return Err(AgentError::InvalidRequest(format!(
                "the memory bank root {} is not a folder",
                path.display()
            )));
        }
        Ok(Root {
            path: path.to_path_buf(),
            real,
        })
    }

    /// The root at `path` as it is, for a server whose tools need none (Infinity's): it
    /// may not exist, and then holds no project.
    pub fn unchecked(path: &Path) -> Root {
        let real = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        Root {
            path: path.to_path_buf(),
            real,
        }
    }

    fn forbidden(spec: &str, reason: impl Into<String>) -> AgentError {
        AgentError::Forbidden {
            name: spec.to_string(),
            reason: reason.into(),
        }
    }

    /// The project folder `spec` names (it need not exist yet). `"."` is the root itself;
    /// a trailing `memory-bank` names its project.
    pub fn project_dir(&self, spec: &str) -> AgentResult<PathBuf> {
        let trimmed = spec.trim();
        if trimmed.is_empty() {
            return Err(AgentError::InvalidRequest(
                "the project path is empty: name a project under the root".into(),
            ));
        }
        if trimmed.contains('\0') {
            return Err(Self::forbidden(spec, "the path contains a NUL byte"));
        }
        let given = Path::new(trimmed);
        let mut candidate = if given.is_absolute() {
            given.to_path_buf()
        } else {
            let mut path = self.real.clone();
            for component in given.components() {
                match component {
                    Component::Normal(part) => path.push(part),
                    Component::CurDir => {}
                    _ => {
                        return Err(Self::forbidden(
                            spec,
                            "\"..\" is not allowed: projects are folders under the root",
                        ));
                    }
                }
            }
            path
        };
        if candidate
            .file_name()
            .is_some_and(|n| n == crate::formats::cline::BANK_DIR)
            && let Some(parent) = candidate.parent()
        {
            candidate = parent.to_path_buf();
        }
        let real = real_path(&candidate)
            .ok_or_else(|| Self::forbidden(spec, "its folder cannot be resolved"))?;
        if !real.starts_with(&self.real) {
            return Err(Self::forbidden(
                spec,
                format!(
                    "it is outside the memory bank root {}; name a project under it",
                    self.real.display()
                ),
            ));
        }
        Ok(real)
    }

    /// Like [`Root::project_dir`], and the folder must exist.
    pub fn existing_project_dir(&self, spec: &str) -> AgentResult<PathBuf> {
        let dir = self.project_dir(spec)?;
        if dir.is_dir() {
            Ok(dir)
        } else {
            Err(AgentError::ProjectNotFound {
                name: spec.to_string(),
                root: self.path.clone(),
            })
        }
    }

    /// Projects with a memory bank (`memory-bank/`), as the Cline memory bank spec lists them:
    /// folders directly under the root, plus the root itself when it holds one.
    pub fn memory_bank_projects(&self) -> Vec<Project> {
        let options = ScanOptions {
            depth: 1,
            ..ScanOptions::default()
        };
        let mut projects: Vec<Project> = discovery::scan(&self.real, &options)
            .into_iter()
            .filter(|p| {
                p.banks
                    .iter()
                    .any(|b| crate::formats::rules(b.format).serves_memory_bank_tools())
            })
            .collect();
        projects.sort_by(|a, b| a.name.cmp(&b.name));
        projects
    }

    /// A project's name as agents see it: its path relative to the root (`.` for the root).
    pub fn name_of(&self, project_dir: &Path) -> String {
        match project_dir.strip_prefix(&self.real) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.to_string_lossy().into_owned(),
            Err(_) => project_dir.to_string_lossy().into_owned(),
        }
    }
}

/// The real location of `path`: canonical when it exists, else its nearest existing
/// ancestor's canonical path with the rest appended (which holds no `..`).
fn real_path(path: &Path) -> Option<PathBuf> {
    if let Ok(real) = fs::canonicalize(path) {
        return Some(real);
    }
    let mut rest = Vec::new();
    let mut cursor = path;
    loop {
        if fs::symlink_metadata(cursor).is_ok() {
            // Exists but does not resolve (a dangling symlink, a loop): refuse.
            let real = fs::canonicalize(cursor).ok()?;
            return Some(rest.iter().rev().fold(real, |acc: PathBuf, p| acc.join(p)));
        }
        rest.push(cursor.file_name()?.to_os_string());
        cursor = cursor.parent()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_paths_and_escapes() {
        let dir = tempfile::tempdir().unwrap();
        let root_dir = dir.path().join("root");
        fs::create_dir_all(root_dir.join("alpha/memory-bank")).unwrap();
        fs::create_dir_all(dir.path().join("outside")).unwrap();
        let root = Root::new(&root_dir).unwrap();
        let alpha = root.real.join("alpha");
        assert_eq!(root.project_dir("alpha").unwrap(), alpha);
        assert_eq!(root.project_dir("./alpha/").unwrap(), alpha);
        assert_eq!(root.project_dir("alpha/memory-bank").unwrap(), alpha);
        assert_eq!(
            root.project_dir(&alpha.display().to_string()).unwrap(),
            alpha
        );
        assert_eq!(root.project_dir(".").unwrap(), root.real);
        assert_eq!(
            root.project_dir("new-one").unwrap(),
            root.real.join("new-one")
        );
        assert!(matches!(
            root.existing_project_dir("new-one"),
            Err(AgentError::ProjectNotFound { .. })
        ));
        for bad in ["../outside", "alpha/../../outside", "/etc", "/"] {
            assert!(
                matches!(root.project_dir(bad), Err(AgentError::Forbidden { .. })),
                "{bad}"
            );
        }
        assert!(matches!(
            root.project_dir("  "),
            Err(AgentError::InvalidRequest(_))
        ));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("outside"), root_dir.join("link")).unwrap();
            assert!(matches!(
                root.project_dir("link"),
                Err(AgentError::Forbidden { .. })
            ));
            assert!(matches!(
                root.project_dir("link/sub"),
                Err(AgentError::Forbidden { .. })
            ));
        }
        assert_eq!(root.name_of(&alpha), "alpha");
        let listed: Vec<String> = root
            .memory_bank_projects()
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(listed, vec!["alpha".to_string()]);
    }
}
