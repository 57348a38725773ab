//! The files a row was derived from, as the rows file keeps them: each path relative to
//! its project, once, with the digest of its stamp.
use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use crate::cache_store::rows::InputsOut;
use crate::io::bytes::os_bytes;
use crate::io::hash_index::BuildPathHasher;
use crate::scan::listings::Stamp;

/// The digests of a fresh row's files by path relative to the project, held until the
/// rows are saved: a list with an allocation per path took about twice the memory, for
/// every file of every project analysed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct PackedStamps {
    /// The paths, one after another.
    paths: Box<[u8]>,
    /// Where each path ends in `paths`, and its digest.
    ends: Box<[(u32, u64)]>,
}

impl PackedStamps {
    /// The stamps as the cache file takes them.
    pub(super) fn inputs(&self) -> InputsOut<'_> {
        InputsOut::Packed {
            paths: &self.paths,
            ends: &self.ends,
        }
    }

    /// Each path (relative to the project) with its digest, in the order stamped.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&[u8], u64)> {
        let mut start = 0;
        self.ends.iter().map(move |&(end, digest)| {
            let path = self.paths.get(start..end as usize).unwrap_or_default();
            start = end as usize;
            (path, digest)
        })
    }
}

/// [`PackedStamps`] as they are made: each path once (the first stamp of a path stands),
/// borrowed from the files read until the stamps are packed, so a project that read ten
/// thousand files costs no allocation per file.
pub(super) struct Packing<'a> {
    paths: Vec<u8>,
    ends: Vec<(u32, u64)>,
    pub(super) seen: HashSet<&'a [u8], BuildPathHasher>,
}

impl<'a> Packing<'a> {
    pub(super) fn new(capacity: usize) -> Packing<'a> {
        Packing {
            paths: Vec::new(),
            ends: Vec::with_capacity(capacity),
            seen: HashSet::with_capacity_and_hasher(capacity, BuildPathHasher::default()),
        }
    }

    /// Packing that goes on from stamps packed before.
    pub(super) fn of(packed: &'a PackedStamps) -> Packing<'a> {
        let mut packing = Packing::new(packed.ends.len());
        packing.paths.extend_from_slice(&packed.paths);
        packing.ends.extend_from_slice(&packed.ends);
        packing.seen.extend(packed.iter().map(|(path, _)| path));
        packing
    }

    /// Adds the stamp of `path` (at `version`: size, modification time) unless its path
    /// is there already: `as_read` when it was taken as the file was read (a change
    /// since changes it, so the next run finds the row out of date), else one taken now,
    /// which must still be of that version. `None` when the file is outside `project`,
    /// changed, or changed within the racy window of the run that began at `started`.
    pub(super) fn stamp(
        &mut self,
        project: &Path,
        path: &'a Path,
        version: (u64, i128),
        as_read: Option<Stamp>,
        started: i128,
    ) -> Option<()> {
        let rel = relative_slice(path.as_os_str(), project)?;
        if self.seen.contains(rel) {
            return Some(());
        }
        let stamp = match as_read {
            Some(stamp) => stamp,
            None => Stamp::of(&fs::metadata(path).ok()?).filter(|s| s.version() == version)?,
        };
        if stamp.is_racy(started) {
            return None;
        }
        self.seen.insert(rel);
        self.paths.extend_from_slice(rel);
        // A project's relative paths come to far less than 4 GiB.
        self.ends.push((self.paths.len() as u32, stamp.digest()));
        Some(())
    }

    pub(super) fn finish(self) -> PackedStamps {
        PackedStamps {
            paths: self.paths.into_boxed_slice(),
            ends: self.ends.into_boxed_slice(),
        }
    }
}

/// The indices of the `sorted` paths that are `project` or lie under it: the project
/// itself, then the run of paths starting with `project/` (in byte order a sibling such
/// as `project-2` falls between the two).
pub(super) fn under<T>(sorted: &[T], path_of: impl Fn(&T) -> &OsStr, project: &Path) -> Vec<usize> {
    let mut found = Vec::new();
    let Some(base) = os_bytes(project.as_os_str()) else {
        return found;
    };
    let exact = sorted.partition_point(|item| os_bytes(path_of(item)).unwrap_or_default() < base);
    if sorted
        .get(exact)
        .is_some_and(|item| os_bytes(path_of(item)) == Some(base))
    {
        found.push(exact);
    }
    let mut prefix = base.to_vec();
    prefix.push(b'/');
    let mut index =
        sorted.partition_point(|item| os_bytes(path_of(item)).unwrap_or_default() < &prefix[..]);
    while let Some(item) = sorted.get(index)
        && os_bytes(path_of(item)).is_some_and(|p| p.starts_with(&prefix))
    {
        found.push(index);
        index += 1;
    }
    found
}

/// `path` relative to `project` as bytes (empty for the project itself); `None` outside.
pub(super) fn relative(path: &OsStr, project: &Path) -> Option<Vec<u8>> {
    relative_slice(path, project).map(<[u8]>::to_vec)
}

/// [`relative`], borrowed from `path`.
pub(super) fn relative_slice<'p>(path: &'p OsStr, project: &Path) -> Option<&'p [u8]> {
    let path = os_bytes(path)?;
    let base = os_bytes(project.as_os_str())?;
    let rest = path.strip_prefix(base)?;
    match rest.split_first() {
        None => Some(&[]),
        Some((b'/', rel)) if !rel.is_empty() => Some(rel),
        _ => None,
    }
}

/// Where `links` lead, as inputs by absolute path: each link followed to its end, or,
/// for a link that leads nowhere, the nearest folder that exists above where it points
/// (the target appearing changes that folder). A link replaced changes its own folder,
/// stamped already. `None` when one cannot be stamped, or changed within the racy window
/// of the run that began at `started`.
pub(super) fn link_inputs<'l>(
    links: impl IntoIterator<Item = &'l PathBuf>,
    started: i128,
) -> Option<Vec<(Vec<u8>, u64)>> {
    links
        .into_iter()
        .map(|link| {
            let (there, meta) = match fs::metadata(link) {
                Ok(meta) => (link.clone(), meta),
                Err(_) => {
                    // Joined to an absolute target, the link's folder is dropped.
                    let target = link.parent()?.join(fs::read_link(link).ok()?);
                    target.ancestors().skip(1).find_map(|folder| {
                        Some((folder.to_path_buf(), fs::metadata(folder).ok()?))
                    })?
                }
            };
            let stamp = Stamp::of(&meta).filter(|stamp| !stamp.is_racy(started))?;
            Some((os_bytes(there.as_os_str())?.to_vec(), stamp.digest()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::{Duration, SystemTime};

    use super::*;
    use crate::scan::listings::{Consulted, time_nanos};

    fn consulted(path: &str) -> Consulted {
        Consulted {
            path: std::ffi::OsString::from(path),
            digest: Some(1),
            links: Vec::new(),
            unknown: false,
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_stamped_by_where_it_leads_or_where_its_target_would_appear() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(base.join("real")).unwrap();
        std::fs::write(base.join("real/notes.md"), "notes").unwrap();
        let to_file = base.join("to-file");
        let dangling = base.join("dangling");
        std::os::unix::fs::symlink("real/notes.md", &to_file).unwrap();
        std::os::unix::fs::symlink("missing/deeper/bank", &dangling).unwrap();
        let later = time_nanos(SystemTime::now() + Duration::from_secs(60));
        let digest = |path: &Path| {
            Stamp::of(&std::fs::metadata(path).unwrap())
                .unwrap()
                .digest()
        };
        let inputs = link_inputs(&[to_file.clone(), dangling], later).expect("stamped");
        let bytes = |path: &Path| path.as_os_str().as_encoded_bytes().to_vec();
        assert_eq!(
            inputs,
            vec![
                (bytes(&to_file), digest(&base.join("real/notes.md"))),
                (bytes(&base), digest(&base)),
            ],
            "the file it leads to; the nearest folder that exists above a missing target"
        );
        // Stamps taken within the racy window of the run vouch for nothing.
        let now = time_nanos(SystemTime::now() - Duration::from_secs(60));
        assert_eq!(link_inputs(&[to_file], now), None);
    }

    #[test]
    fn packing_keeps_each_path_once_and_trusts_a_stamp_taken_as_the_file_was_read() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path();
        let (a, b, gone) = (
            project.join("a.md"),
            project.join("b.md"),
            project.join("d.md"),
        );
        for (path, text) in [(&a, "a"), (&b, "bb"), (&gone, "d")] {
            fs::write(path, text).unwrap();
        }
        let stamp = |path: &Path| Stamp::of(&fs::metadata(path).unwrap()).unwrap();
        let (stamp_a, stamp_b, stamp_gone) = (stamp(&a), stamp(&b), stamp(&gone));
        fs::remove_file(&gone).unwrap();
        let started = time_nanos(SystemTime::now() + Duration::from_secs(3600));
        let mut packing = Packing::new(0);
        assert_eq!(
            packing.stamp(project, &a, stamp_a.version(), None, started),
            Some(())
        );
        assert_eq!(
            packing.stamp(project, &b, stamp_b.version(), Some(stamp_b), started),
            Some(())
        );
        // Again, even with another stamp: the first stands.
        let other = Stamp::from_parts(1, 2, 3, 4);
        assert_eq!(
            packing.stamp(project, &a, other.version(), Some(other), started),
            Some(())
        );
        // Taken as it was read, a stamp holds for a file gone since (the next run finds
        // it changed); taken now, there is nothing to take.
        let mut probe = Packing::new(0);
        assert_eq!(
            probe.stamp(project, &gone, stamp_gone.version(), None, started),
            None
        );
        assert_eq!(
            packing.stamp(
                project,
                &gone,
                stamp_gone.version(),
                Some(stamp_gone),
                started
            ),
            Some(())
        );
        // Changed since the version read, outside the project, or within the racy window.
        let changed = (stamp_b.version().0 + 1, stamp_b.version().1);
        assert_eq!(
            Packing::new(0).stamp(project, &b, changed, None, started),
            None
        );
        let outside = tempfile::tempdir().unwrap();
        let far = outside.path().join("x.md");
        fs::write(&far, "x").unwrap();
        assert_eq!(
            Packing::new(0).stamp(project, &far, stamp(&far).version(), None, started),
            None
        );
        let now = time_nanos(SystemTime::now());
        assert_eq!(
            Packing::new(0).stamp(project, &a, stamp_a.version(), Some(stamp_a), now),
            None
        );
        assert_eq!(
            packing.finish().iter().collect::<Vec<_>>(),
            [
                (&b"a.md"[..], stamp_a.digest()),
                (b"b.md", stamp_b.digest()),
                (b"d.md", stamp_gone.digest()),
            ]
        );
    }

    #[test]
    fn packed_stamps_read_back_as_they_were_stamped_and_packing_goes_on_from_them() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path();
        let names = ["CLAUDE.md", ".claude/memory/progress.md", "a"];
        fs::create_dir_all(project.join(".claude/memory")).unwrap();
        let paths: Vec<PathBuf> = names.iter().map(|name| project.join(name)).collect();
        let started = time_nanos(SystemTime::now() + Duration::from_secs(3600));
        let mut packing = Packing::new(0);
        let mut stamps = Vec::new();
        for path in &paths[..2] {
            fs::write(path, "text").unwrap();
            let stamp = Stamp::of(&fs::metadata(path).unwrap()).unwrap();
            stamps.push(stamp.digest());
            assert_eq!(
                packing.stamp(project, path, stamp.version(), None, started),
                Some(())
            );
        }
        let packed = packing.finish();
        let read: Vec<(&[u8], u64)> = packed.iter().collect();
        assert_eq!(
            read,
            [
                (names[0].as_bytes(), stamps[0]),
                (names[1].as_bytes(), stamps[1])
            ]
        );
        let mut more = Packing::of(&packed);
        assert!(more.seen.contains(names[1].as_bytes()));
        fs::write(&paths[2], "more").unwrap();
        let stamp = Stamp::of(&fs::metadata(&paths[2]).unwrap()).unwrap();
        let version = stamp.version();
        assert_eq!(
            more.stamp(project, &paths[2], version, None, started),
            Some(())
        );
        assert_eq!(
            more.stamp(project, &paths[0], (0, 0), None, started),
            Some(())
        );
        let all = more.finish();
        assert_eq!(all.iter().count(), 3);
        assert_eq!(all.iter().last(), Some((&b"a"[..], stamp.digest())));
        assert_eq!(PackedStamps::default().iter().count(), 0);
    }

    #[test]
    fn a_project_owns_its_folder_and_what_lies_below_never_a_sibling_sharing_its_name() {
        let mut sorted: Vec<Consulted> = [
            "/r", "/r/p", "/r/p-2", "/r/p-2/x", "/r/p/a", "/r/p/a/b", "/r/pq",
        ]
        .into_iter()
        .map(consulted)
        .collect();
        sorted.sort_by(|a, b| a.path.cmp(&b.path));
        let names = |project: &str| -> Vec<String> {
            under(&sorted, |f| f.path.as_os_str(), Path::new(project))
                .into_iter()
                .map(|i| sorted[i].path.to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(names("/r/p"), ["/r/p", "/r/p/a", "/r/p/a/b"]);
        assert_eq!(names("/r/p-2"), ["/r/p-2", "/r/p-2/x"]);
        assert_eq!(names("/r/none"), Vec::<String>::new());
        assert_eq!(
            relative(OsStr::new("/r/p/a"), Path::new("/r/p")),
            Some(b"a".to_vec())
        );
        assert_eq!(
            relative(OsStr::new("/r/p"), Path::new("/r/p")),
            Some(Vec::new())
        );
        assert_eq!(relative(OsStr::new("/r/pq"), Path::new("/r/p")), None);
    }
}
