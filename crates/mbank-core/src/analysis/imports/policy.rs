//! Where an import may read from and what a target resolves to: the allowed folders (the
//! project and the home folder's agent memory folders, resolved after links), the files no
//! import may read, and the lexical path helpers resolution needs.
use std::path::{Component, Path, PathBuf};

use super::{MAX_IMPORT_DEPTH, home_memory_dirs};
use crate::model::{Format, Project};

/// Removes `.` and resolves `..` without touching the disk (for paths that may not exist).
/// A `..` cancels the name before it, never another `..` (`../../x` stays as it is), and
/// stops at the root. Give it absolute paths: a relative one keeps only the `..` it
/// starts with, and where that leads depends on the current folder (see [`absolute`]).
pub(crate) fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `path` made absolute against the current folder (no symlink resolved, `..` kept), so
/// a base given as `.` or `sub/..` keeps its place once normalised.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Files no import may read, whatever folder they are in (the Beans-Code memory recommendations): `.env`,
/// `.env.*`, `credentials.json`, `secrets.*`, and anything under a `.ssh` or `.aws` folder.
pub(crate) fn is_sensitive(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let sensitive_name = name == ".env"
        || name.starts_with(".env.")
        || name == "credentials.json"
        || name.starts_with("secrets.");
    let sensitive_folder = path
        .components()
        .any(|c| matches!(c, Component::Normal(part) if part == ".ssh" || part == ".aws"));
    sensitive_name || sensitive_folder
}

/// Where imports may read from: the project folder and the user's own memory folders.
#[derive(Debug, Clone)]
pub struct ImportPolicy {
    /// Canonical folders an import target must lie in; the first is the project.
    pub allowed_roots: Vec<PathBuf>,
    /// The project folder as it was named (absolute, no `.` or `..`), whose real path
    /// is the first of `allowed_roots`.
    project_path: Option<PathBuf>,
    /// For `~/` targets; `None` when the home folder is unknown.
    pub home: Option<PathBuf>,
    pub max_depth: usize,
}

fn canonical_or_self(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| normalize_lexically(&absolute(path)))
}

/// The home folder with its memory folders resolved (links followed), for the
/// [`ImportPolicy`] of every project of a run: resolved once where the run starts, with
/// the home folder's stamp, so a long-lived holder (the TUI's analyzer) re-resolves only
/// when one of them appears, vanishes or becomes a link ([`HomeRoots::refresh`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HomeRoots {
    home: Option<PathBuf>,
    pub(super) memory_roots: Vec<PathBuf>,
    stamp: Option<FolderStamp>,
}

impl HomeRoots {
    /// `home`'s memory folders as they are now (none when the home folder is unknown).
    pub fn resolve(home: Option<&Path>) -> Self {
        let Some(home) = home else {
            return HomeRoots::default();
        };
        HomeRoots {
            home: Some(home.to_path_buf()),
            memory_roots: home_memory_dirs()
                .map(|dir| canonical_or_self(&home.join(dir)))
                .collect(),
            stamp: home_stamp(home),
        }
    }

    /// The home folder these were resolved from (`None`: unknown).
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// Resolves the memory folders again when the home folder changed since they were
    /// resolved, or when its stamp could not be read then or now.
    pub fn refresh(&mut self) {
        let Some(home) = self.home.as_deref() else {
            return;
        };
        let now = home_stamp(home);
        if now.is_none() || now != self.stamp {
            *self = HomeRoots::resolve(Some(home));
        }
    }
}

fn home_stamp(home: &Path) -> Option<FolderStamp> {
    std::fs::metadata(home).ok().map(|meta| folder_stamp(&meta))
}

/// A folder's inode, size and modification and change times.
type FolderStamp = (u64, u64, Option<std::time::SystemTime>, i64, i64);

fn folder_stamp(meta: &std::fs::Metadata) -> FolderStamp {
    #[cfg(unix)]
    let (ino, ctime, ctime_nsec) = {
        use std::os::unix::fs::MetadataExt;
        (meta.ino(), meta.ctime(), meta.ctime_nsec())
    };
    #[cfg(not(unix))]
    let (ino, ctime, ctime_nsec) = (0, 0, 0);
    (ino, meta.len(), meta.modified().ok(), ctime, ctime_nsec)
}

impl ImportPolicy {
    /// The project folder plus `~/.claude`, `~/.codex`, `~/.gemini` and `~/.beans`.
    pub fn new(project: &Path, home: &HomeRoots) -> Self {
        Self::within(project, canonical_or_self(project), home)
    }

    /// [`ImportPolicy::new`] for a project whose real path discovery found on its way
    /// down from the root, so it is not resolved again for each project of a run.
    pub fn of_project(project: &Project, home: &HomeRoots) -> Self {
        match &project.real {
            Some(real) => Self::within(&project.path, real.clone(), home),
            None => Self::new(&project.path, home),
        }
    }

    /// The policy allowing the project folder `project` (really at `real`) and `home`'s
    /// memory folders.
    fn within(project: &Path, real: PathBuf, home: &HomeRoots) -> Self {
        let mut allowed_roots = vec![real];
        allowed_roots.extend(home.memory_roots.iter().cloned());
        ImportPolicy {
            allowed_roots,
            project_path: Some(normalize_lexically(&absolute(project))),
            home: home.home.clone(),
            max_depth: MAX_IMPORT_DEPTH,
        }
    }

    /// The same policy following imports as deep as the agent of `format` does.
    pub(crate) fn for_format(self, format: Format) -> Self {
        let project = self.allowed_roots.first().map(PathBuf::as_path);
        let depth = match project {
            Some(project) => {
                crate::formats::rules(format).import_depth_at(project, self.home.as_deref())
            }
            None => crate::formats::rules(format).import_depth(),
        };
        ImportPolicy {
            max_depth: depth.unwrap_or(MAX_IMPORT_DEPTH),
            ..self
        }
    }

    /// [`ImportPolicy::real_path`] of a folder below the project none of whose names
    /// is a link (one `lstat` per name); `None` for any other folder.
    pub(super) fn link_free_real_path(&self, folder: &Path) -> Option<PathBuf> {
        self.real_path_below_project(folder).ok().flatten()
    }

    /// Where `path` (absolute, no `.` or `..`) really is, links resolved. Below the
    /// project folder: the project's real path joined with the names under it, each
    /// checked to be no link (one `lstat` per name, where resolving from the root reads
    /// every component of the path again for every file). Elsewhere, or through a link,
    /// resolved in full. An error when nothing is there.
    pub(super) fn real_path(&self, path: &Path) -> std::io::Result<PathBuf> {
        match self.real_path_below_project(path)? {
            Some(real) => Ok(real),
            None => std::fs::canonicalize(path),
        }
    }

    /// `path`'s real path when it lies below the project with no link among its names
    /// there; `None` when it does not, an error when one of them is not there.
    fn real_path_below_project(&self, path: &Path) -> std::io::Result<Option<PathBuf>> {
        let (Some(project), Some(real)) = (&self.project_path, self.allowed_roots.first()) else {
            return Ok(None);
        };
        let Ok(rel) = path.strip_prefix(project) else {
            return Ok(None);
        };
        if !rel.components().all(|c| matches!(c, Component::Normal(_)))
            || !below_without_links(project, rel)?
        {
            return Ok(None);
        }
        Ok(Some(if rel.as_os_str().is_empty() {
            real.clone()
        } else {
            real.join(rel)
        }))
    }

    pub(super) fn is_allowed(&self, canonical: &Path) -> bool {
        self.allowed_roots
            .iter()
            .any(|root| canonical.starts_with(root))
    }

    /// A path as shown in messages: relative to the project when inside it.
    pub(super) fn show(&self, path: &Path) -> String {
        let relative = self
            .allowed_roots
            .first()
            .and_then(|root| path.strip_prefix(root).ok())
            .filter(|p| !p.as_os_str().is_empty());
        match (relative, &self.home) {
            (Some(rel), _) => rel.display().to_string(),
            (None, Some(home)) if path.starts_with(home) => {
                format!("~/{}", path.strip_prefix(home).unwrap_or(path).display())
            }
            _ => path.display().to_string(),
        }
    }
}

/// Whether every name of `rel` under `folder` is there and no link; an error when one is
/// not there (resolving the path would fail the same way).
fn below_without_links(folder: &Path, rel: &Path) -> std::io::Result<bool> {
    let mut walked = folder.to_path_buf();
    for name in rel {
        walked.push(name);
        match std::fs::symlink_metadata(&walked) {
            Ok(meta) if !meta.file_type().is_symlink() => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(e),
            // A link, or a question the full resolution answers better.
            _ => return Ok(false),
        }
    }
    Ok(true)
}

/// What an import target resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// A readable location inside the allowed folders (canonical path).
    Found(PathBuf),
    /// Nothing exists there (the lexical path).
    Missing(PathBuf),
    /// A sensitive file; never read (the path as resolved so far).
    Sensitive(PathBuf),
    /// Outside the allowed folders once symlinks are resolved (canonical path).
    Outside(PathBuf),
    /// A `~/` target while the home folder is unknown.
    NoHome,
}

/// Resolves a target as Claude Code does: `~/` from home, `/` absolute, anything else
/// relative to the folder of the importing file. Symlinks are resolved before the
/// containment check, so a link inside the project cannot smuggle an outside file in.
pub fn resolve(importer: &Path, target: &str, policy: &ImportPolicy) -> Resolution {
    let joined = if let Some(rest) = target.strip_prefix("~/") {
        match &policy.home {
            Some(home) => home.join(rest),
            None => return Resolution::NoHome,
        }
    } else if target.starts_with('/') {
        PathBuf::from(target)
    } else {
        importer
            .parent()
            .unwrap_or_else(|| Path::new("."))
            .join(target)
    };
    // Never normalised from a relative base: `./../x` would lose the `..` that leaves
    // the project.
    let lexical = normalize_lexically(&absolute(&joined));
    if is_sensitive(&lexical) {
        return Resolution::Sensitive(lexical);
    }
    let Ok(canonical) = policy.real_path(&lexical) else {
        crate::io::reads::absent(&lexical);
        return Resolution::Missing(lexical);
    };
    if canonical != lexical {
        // Through a link: where it leads may change while every stamp stays.
        crate::io::reads::unstampable();
    }
    if is_sensitive(&canonical) {
        return Resolution::Sensitive(canonical);
    }
    if !policy.is_allowed(&canonical) {
        return Resolution::Outside(canonical);
    }
    Resolution::Found(canonical)
}
