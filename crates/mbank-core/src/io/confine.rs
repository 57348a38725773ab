//! Confinement: mbank uses a memory path only when its real location (every symlink
//! resolved) is inside its project's real folder.
//!
//! A path that leaves the project through a symlink (a `CLAUDE.md` linked to
//! `/etc/shadow`, a `memory-bank/` linked into another project) is never read, counted,
//! copied, snapshotted or written. It stays visible: listing records it as an
//! [`OutsideLink`], which every report turns into a `symlink-outside` finding (an error,
//! because it is a security signal) naming the link and where it leads.
//!
//! The boundary is the project, not the root: a project's memory is its own, so a link
//! into a sibling project is refused too. Writes (`write::resolve_target`) and
//! `@imports` (`imports::ImportPolicy`) draw the same line, and a project served to an
//! agent cannot reach another project's files through it.
//!
//! Cost: only symlinks are resolved (one `canonicalize` each, plus the project's own real
//! path once, when a first symlink is met); plain files and folders are judged from the
//! folder listings alone, with no extra system call.
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::error::{CoreError, Result};
use crate::findings::{Finding, FindingCode, Severity};

/// A symlink inside a project whose real location is outside it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct OutsideLink {
    /// The link, as found inside the project.
    pub link: PathBuf,
    /// Where it really leads (every symlink resolved).
    pub target: PathBuf,
}

/// Where a path really is, judged against a project's real folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confinement {
    /// Inside the project: its real path.
    Inside(PathBuf),
    /// Outside the project: the first link on the way that leaves it.
    Outside(OutsideLink),
    /// A symlink to nothing.
    Dangling,
    /// A symlink loop.
    Loop,
    /// Cannot be resolved for another reason (permissions, a file where a folder should
    /// be); the reason.
    Unresolvable(String),
}

impl Confinement {
    /// The real path when inside.
    pub fn inside(self) -> Option<PathBuf> {
        match self {
            Confinement::Inside(real) => Some(real),
            _ => None,
        }
    }
}

#[cfg(target_os = "linux")]
const ELOOP: Option<i32> = Some(40);
#[cfg(any(target_os = "macos", target_os = "ios", target_os = "freebsd"))]
const ELOOP: Option<i32> = Some(62);
#[cfg(not(any(
    target_os = "linux",
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd"
)))]
const ELOOP: Option<i32> = None;

fn unresolved(error: &io::Error) -> Confinement {
    if error.kind() == io::ErrorKind::NotFound {
        Confinement::Dangling
    } else if ELOOP.is_some() && error.raw_os_error() == ELOOP {
        Confinement::Loop
    } else {
        Confinement::Unresolvable(error.to_string())
    }
}

/// A project folder, its real path resolved once, when first needed.
#[derive(Debug)]
pub struct ProjectFolder<'a> {
    path: &'a Path,
    /// The real path when the caller knows it already.
    known: Option<&'a Path>,
    resolved: OnceLock<Option<PathBuf>>,
}

impl<'a> ProjectFolder<'a> {
    /// `path`'s real location is found by `canonicalize` the first time it is needed.
    pub fn new(path: &'a Path) -> ProjectFolder<'a> {
        ProjectFolder {
            path,
            known: None,
            resolved: OnceLock::new(),
        }
    }

    /// A folder whose real path is already known (a scan carries it down from the root).
    pub(crate) fn with_real(path: &'a Path, real: &'a Path) -> ProjectFolder<'a> {
        ProjectFolder {
            path,
            known: Some(real),
            resolved: OnceLock::new(),
        }
    }

    pub fn path(&self) -> &'a Path {
        self.path
    }

    /// The folder's real path; `None` when it cannot be resolved (it vanished).
    pub fn real(&self) -> Option<&Path> {
        if let Some(known) = self.known {
            return Some(known);
        }
        self.resolved
            .get_or_init(|| std::fs::canonicalize(self.path).ok())
            .as_deref()
    }

    /// Where `path` (inside this folder as written) really is. Resolves the path: call it
    /// for symlinks, or for anything the caller cannot judge from a listing.
    pub fn check(&self, path: &Path) -> Confinement {
        let real = match std::fs::canonicalize(path) {
            Ok(real) => real,
            Err(e) => return unresolved(&e),
        };
        let Some(folder) = self.real() else {
            return Confinement::Unresolvable(format!(
                "the project folder {} cannot be resolved",
                self.path.display()
            ));
        };
        if real.starts_with(folder) {
            return Confinement::Inside(real);
        }
        Confinement::Outside(self.outside_link(path, folder, real))
    }

    /// The first symlink on the way from this folder to `path` that leads out of it
    /// (only looked for once `path` is known to be outside).
    fn outside_link(&self, path: &Path, folder: &Path, real: PathBuf) -> OutsideLink {
        if let Ok(rel) = path.strip_prefix(self.path) {
            let mut step = self.path.to_path_buf();
            for part in rel.components() {
                step.push(part);
                let is_link = std::fs::symlink_metadata(&step)
                    .is_ok_and(|meta| meta.file_type().is_symlink());
                if !is_link {
                    continue;
                }
                if let Ok(target) = std::fs::canonicalize(&step)
                    && !target.starts_with(folder)
                {
                    return OutsideLink { link: step, target };
                }
            }
        }
        OutsideLink {
            link: path.to_path_buf(),
            target: real,
        }
    }

    /// The real path of `path` when it is inside this folder, else an error naming why
    /// (for callers about to read or write it). The error says where a link leads: it is
    /// for the person at the terminal (`mbank init`); [`read_text`] keeps that from agents.
    pub(crate) fn require_inside(&self, path: &Path) -> Result<PathBuf> {
        match self.check(path) {
            Confinement::Inside(real) => Ok(real),
            other => Err(refusal(path, self.path, other, Audience::Person)),
        }
    }
}

/// Who reads a refusal: the person at the terminal may see where a link leads; text an
/// agent (or a model) can read never says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Audience {
    Person,
    Agent,
}

/// The error for a path that is not usable inside `project`.
fn refusal(path: &Path, project: &Path, confinement: Confinement, to: Audience) -> CoreError {
    let reason = match confinement {
        Confinement::Inside(_) => "it is inside the project".to_string(),
        Confinement::Outside(link) if to == Audience::Person => outside_message(&link, project),
        Confinement::Outside(link) => format!(
            "{} is a symbolic link leading outside the project: mbank does not read, count, \
             copy or write it",
            shown(&link.link, project)
        ),
        Confinement::Dangling => "it is a symbolic link to something that does not exist".into(),
        Confinement::Loop => "it is a symbolic link loop".into(),
        Confinement::Unresolvable(reason) => format!("it cannot be resolved: {reason}"),
    };
    CoreError::NotConfined {
        path: path.to_path_buf(),
        reason,
    }
}

/// Reads a memory file of `project` as text, refusing it when its real location is not
/// inside the project. The path is resolved right before it is opened, and the real path
/// is then opened relative to the project's folder handle with no symlink followed, so a
/// link swapped in after the check is refused rather than read.
pub fn read_text(project: &ProjectFolder<'_>, path: &Path) -> Result<String> {
    let real = match project.check(path) {
        Confinement::Inside(real) => real,
        other => {
            crate::io::reads::unstampable();
            return Err(refusal(path, project.path, other, Audience::Agent));
        }
    };
    let (Some(folder), Some(rel)) = (
        project.real(),
        project.real().and_then(|f| real.strip_prefix(f).ok()),
    ) else {
        return crate::io::text::read_text(&real);
    };
    if rel.as_os_str().is_empty() {
        return crate::io::text::read_text(&real);
    }
    let read = match crate::io::dir_handle::Dir::open_anchor(folder) {
        Ok(dir) => crate::io::text::read_text_in(&dir, rel),
        Err(e) => Err(e.into()),
    };
    match read {
        Ok(Some(read)) => {
            crate::io::reads::file_at(&real);
            Ok(read.text)
        }
        Ok(None) => {
            crate::io::reads::unstampable();
            Err(CoreError::io(
                path,
                io::Error::new(io::ErrorKind::NotFound, "no longer exists"),
            ))
        }
        Err(e) => {
            crate::io::reads::unstampable();
            Err(e)
        }
    }
}

fn shown(path: &Path, project: &Path) -> String {
    path.strip_prefix(project)
        .ok()
        .filter(|rel| !rel.as_os_str().is_empty())
        .unwrap_or(path)
        .display()
        .to_string()
}

fn outside_message(link: &OutsideLink, project: &Path) -> String {
    format!(
        "{} is a symbolic link to {}, outside the project: mbank does not read, count, copy \
         or write it",
        shown(&link.link, project),
        link.target.display()
    )
}

/// The `symlink-outside` finding of one link found in `project`.
pub fn finding(link: &OutsideLink, project: &Path) -> Finding {
    Finding::new(
        Severity::Error,
        FindingCode::SymlinkOutside,
        &link.link,
        None,
        outside_message(link, project),
    )
}

/// One finding per distinct link (two banks may meet the same link).
pub fn findings<'a>(
    links: impl IntoIterator<Item = &'a OutsideLink>,
    project: &Path,
) -> Vec<Finding> {
    let mut seen = std::collections::HashSet::new();
    links
        .into_iter()
        .filter(|link| seen.insert(&link.link))
        .map(|link| finding(link, project))
        .collect()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    #[test]
    fn inside_outside_dangling_and_loop() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        let outside = dir.path().join("out");
        fs::create_dir_all(project.join("docs")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(project.join("docs/a.md"), "a").unwrap();
        fs::write(outside.join("s.md"), "s").unwrap();
        symlink("docs/a.md", project.join("inside.md")).unwrap();
        symlink(outside.join("s.md"), project.join("outside.md")).unwrap();
        symlink(&outside, project.join("folder")).unwrap();
        symlink("nowhere.md", project.join("dangling.md")).unwrap();
        symlink("loop-b", project.join("loop-a")).unwrap();
        symlink("loop-a", project.join("loop-b")).unwrap();
        let folder = ProjectFolder::new(&project);
        let real_outside = fs::canonicalize(&outside).unwrap();
        assert_eq!(
            folder.check(&project.join("inside.md")),
            Confinement::Inside(fs::canonicalize(project.join("docs/a.md")).unwrap())
        );
        assert_eq!(
            folder.check(&project.join("outside.md")),
            Confinement::Outside(OutsideLink {
                link: project.join("outside.md"),
                target: real_outside.join("s.md"),
            })
        );
        // The link named is the folder on the way, not the file below it.
        assert_eq!(
            folder.check(&project.join("folder/s.md")),
            Confinement::Outside(OutsideLink {
                link: project.join("folder"),
                target: real_outside.clone(),
            })
        );
        assert_eq!(
            folder.check(&project.join("dangling.md")),
            Confinement::Dangling
        );
        assert_eq!(folder.check(&project.join("loop-a")), Confinement::Loop);
        let err = read_text(&folder, &project.join("outside.md")).unwrap_err();
        assert!(err.to_string().contains("outside the project"), "{err}");
        // Where the link leads is for the person's report, never in a refusal.
        assert!(
            !err.to_string().contains(real_outside.to_str().unwrap()),
            "{err}"
        );
        assert_eq!(read_text(&folder, &project.join("inside.md")).unwrap(), "a");
    }

    #[test]
    fn a_sibling_project_is_outside_and_the_finding_names_both_ends() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a")).unwrap();
        fs::create_dir_all(root.join("b/memory-bank")).unwrap();
        symlink(root.join("b/memory-bank"), root.join("a/memory-bank")).unwrap();
        let project = root.join("a");
        let real = fs::canonicalize(&project).unwrap();
        let folder = ProjectFolder::with_real(&project, &real);
        let Confinement::Outside(link) = folder.check(&root.join("a/memory-bank")) else {
            panic!("a link into a sibling project is outside");
        };
        let found = finding(&link, &root.join("a"));
        assert_eq!(
            (found.code, found.severity),
            (FindingCode::SymlinkOutside, Severity::Error)
        );
        assert!(
            found
                .message
                .starts_with("memory-bank is a symbolic link to ")
        );
        assert!(found.message.contains("b/memory-bank"), "{}", found.message);
        assert_eq!(findings([&link, &link], &root.join("a")).len(), 1);
    }
}
