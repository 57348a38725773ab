//! Where the "accepted" side of a review lives: the git index (with HEAD as baseline) or
//! a snapshot mbank keeps in its data folder for banks outside git.
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::core::error::{CoreError, Result};
use crate::core::git::{self, GitRepo};
use crate::core::text;
use crate::core::write::{self, Expected};

/// One index (or tree) entry: file mode and blob id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndexEntry {
    pub mode: String,
    pub sha: String,
}

/// The repository of a project, with the environment every git call gets.
#[derive(Debug, Clone)]
pub(crate) struct Git {
    pub(crate) repo: GitRepo,
    pub(crate) env: Vec<(OsString, OsString)>,
}

fn git_error(what: &str, out: &git::Output) -> CoreError {
    CoreError::Git(format!("{what} failed: {}", out.stderr))
}

impl Git {
    pub(crate) fn run(&self, args: &[OsString]) -> Result<git::Output> {
        git::run_with(self.repo.root(), args, &self.env, None)
    }

    pub(crate) fn run_env(
        &self,
        args: &[OsString],
        extra: &[(OsString, OsString)],
        stdin: Option<&[u8]>,
    ) -> Result<git::Output> {
        let mut env = self.env.clone();
        env.extend(extra.iter().cloned());
        git::run_with(self.repo.root(), args, &env, stdin)
    }

    fn spec(&self, file: &Path) -> Result<OsString> {
        self.repo
            .root_relative(file)
            .ok_or_else(|| CoreError::Git(format!("{} is outside the repository", file.display())))
    }

    /// Every path under the project that differs between HEAD, the index and the work
    /// tree, untracked files included (renames are reported as a deletion and an addition).
    pub(crate) fn changed_paths(&self) -> Result<Vec<PathBuf>> {
        let mut args = git::os(&[
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--ignore-submodules",
            "--",
        ]);
        args.push(self.repo.root_relative_base());
        let out = self.run(&args)?;
        if !out.success {
            return Err(git_error("git status", &out));
        }
        let mut paths = Vec::new();
        for entry in out.stdout.split(|b| *b == 0) {
            if entry.len() < 4 {
                continue;
            }
            if let Some(path) = self.repo.under_base(&entry[3..]) {
                paths.push(path);
            }
        }
        Ok(paths)
    }

    fn parse_entry(line: &[u8]) -> Option<IndexEntry> {
        // `<mode> <type-or-sha> …\t<path>`: only the part before the tab is needed.
        let head = line.split(|b| *b == b'\t').next()?;
        let text = String::from_utf8_lossy(head);
        let fields: Vec<&str> = text.split_whitespace().collect();
        match fields.as_slice() {
            // ls-tree: mode type sha
            [mode, "blob", sha] => Some(IndexEntry {
                mode: mode.to_string(),
                sha: sha.to_string(),
            }),
            // ls-files -s: mode sha stage
            [mode, sha, "0"] => Some(IndexEntry {
                mode: mode.to_string(),
                sha: sha.to_string(),
            }),
            _ => None,
        }
    }

    pub(crate) fn head_entry(&self, file: &Path) -> Result<Option<IndexEntry>> {
        let mut args = git::os(&["ls-tree", "-z", "HEAD", "--"]);
        args.push(self.spec(file)?);
        let out = self.run(&args)?;
        if !out.success {
            // No HEAD yet (empty repository): nothing is committed.
            return Ok(None);
        }
        Ok(out
            .stdout
            .split(|b| *b == 0)
            .find(|l| !l.is_empty())
            .and_then(Self::parse_entry))
    }

    pub(crate) fn index_entry(&self, file: &Path) -> Result<Option<IndexEntry>> {
        let mut args = git::os(&["ls-files", "-s", "-z", "--"]);
        args.push(self.spec(file)?);
        let out = self.run(&args)?;
        if !out.success {
            return Err(git_error("git ls-files", &out));
        }
        let lines: Vec<&[u8]> = out
            .stdout
            .split(|b| *b == 0)
            .filter(|l| !l.is_empty())
            .collect();
        if lines.len() > 1 {
            return Err(CoreError::Git(format!(
                "{} has unresolved merge conflicts in the index",
                file.display()
            )));
        }
        Ok(lines.first().and_then(|l| Self::parse_entry(l)))
    }

    pub(crate) fn blob_text(&self, file: &Path, entry: &IndexEntry) -> Result<String> {
        let out = self.run(&git::os(&["cat-file", "blob", &entry.sha]))?;
        if !out.success {
            return Err(git_error("git cat-file", &out));
        }
        text::decode_text(file, out.stdout)
    }

    pub(crate) fn text_of(
        &self,
        file: &Path,
        entry: Option<&IndexEntry>,
    ) -> Result<Option<String>> {
        entry.map(|e| self.blob_text(file, e)).transpose()
    }

    pub(crate) fn hash_object(&self, text: &str) -> Result<String> {
        let out = self.run_env(
            &git::os(&["hash-object", "-w", "--stdin", "--no-filters"]),
            &[],
            Some(text.as_bytes()),
        )?;
        if !out.success {
            return Err(git_error("git hash-object", &out));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// Points the index entry of `file` at `entry`, or removes it.
    pub(crate) fn set_index(&self, file: &Path, entry: Option<&IndexEntry>) -> Result<()> {
        self.set_index_with(file, entry, &[])
    }

    /// [`set_index`](Self::set_index) with extra environment (another `GIT_INDEX_FILE`).
    pub(crate) fn set_index_with(
        &self,
        file: &Path,
        entry: Option<&IndexEntry>,
        extra: &[(OsString, OsString)],
    ) -> Result<()> {
        let spec = self.spec(file)?;
        let mut args = git::os(&["update-index"]);
        match entry {
            Some(e) => {
                args.extend(git::os(&["--add", "--cacheinfo"]));
                let mut info = OsString::from(format!("{},{},", e.mode, e.sha));
                info.push(&spec);
                args.push(info);
            }
            None => {
                args.extend(git::os(&["--force-remove", "--"]));
                args.push(spec);
            }
        }
        let out = self.run_env(&args, extra, None)?;
        if !out.success {
            return Err(git_error("git update-index", &out));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Snapshots
// ---------------------------------------------------------------------------------------

const SNAPSHOT_SCHEMA: &str = "mbank.snapshot/1";

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Manifest {
    schema: String,
    project: PathBuf,
    /// Copies live in `gen-<generation>/`; "mark reviewed" writes a new generation and
    /// switches the manifest to it in one atomic write.
    generation: u64,
    /// Seconds since the epoch of the last "mark reviewed".
    reviewed_at: Option<u64>,
    /// Project-relative path (`/`-separated) → copy file name.
    files: BTreeMap<String, String>,
}

/// The "last reviewed" state of a project outside git.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    dir: PathBuf,
    project: PathBuf,
    manifest: Option<Manifest>,
    /// The manifest's text as read (the expected content of the next write).
    manifest_text: Option<String>,
}

/// FNV-1a, stable across Rust versions (unlike `DefaultHasher`), for folder names.
pub(crate) fn stable_hash(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

fn copy_name(rel: &str) -> String {
    format!("{:016x}.md", stable_hash(rel.as_bytes()))
}

fn read_optional(path: &Path) -> Result<Option<String>> {
    match fs::symlink_metadata(path) {
        Ok(_) => text::read_text(path).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CoreError::io(path, e)),
    }
}

fn expected_of(text: Option<&str>) -> Expected {
    text.map_or(Expected::Missing, Expected::text)
}

impl Snapshot {
    /// The snapshot folder of a project: `<data dir>/snapshots/<hash of its path>/`.
    pub(crate) fn folder_for(project: &Path, data_dir: Option<&Path>) -> Result<PathBuf> {
        let data = data_dir
            .map(Path::to_path_buf)
            .or_else(crate::core::paths::data_dir)
            .ok_or_else(|| {
                CoreError::Config(
                    "no data folder for review snapshots (set MBANK_DATA_DIR or HOME)".into(),
                )
            })?;
        let canonical = fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
        let hash = stable_hash(canonical.to_string_lossy().as_bytes());
        Ok(data.join("snapshots").join(format!("{hash:016x}")))
    }

    pub(crate) fn open(project: &Path, data_dir: Option<&Path>) -> Result<Snapshot> {
        let dir = Self::folder_for(project, data_dir)?;
        let manifest_path = dir.join("manifest.json");
        let manifest_text = read_optional(&manifest_path)?;
        let manifest = match &manifest_text {
            Some(text) => {
                let manifest: Manifest =
                    serde_json::from_str(text).map_err(|e| CoreError::Parse {
                        path: manifest_path.clone(),
                        message: format!("broken review snapshot manifest: {e}"),
                    })?;
                if manifest.schema != SNAPSHOT_SCHEMA {
                    return Err(CoreError::Parse {
                        path: manifest_path,
                        message: format!("unknown snapshot schema {:?}", manifest.schema),
                    });
                }
                Some(manifest)
            }
            None => None,
        };
        Ok(Snapshot {
            dir,
            project: project.to_path_buf(),
            manifest,
            manifest_text,
        })
    }

    pub(crate) fn exists(&self) -> bool {
        self.manifest.is_some()
    }

    pub(crate) fn folder(&self) -> &Path {
        &self.dir
    }

    pub(crate) fn reviewed_at(&self) -> Option<u64> {
        self.manifest.as_ref().and_then(|m| m.reviewed_at)
    }

    pub(crate) fn paths(&self) -> Vec<String> {
        self.manifest
            .as_ref()
            .map(|m| m.files.keys().cloned().collect())
            .unwrap_or_default()
    }

    fn generation_dir(&self, generation: u64) -> PathBuf {
        self.dir.join(format!("gen-{generation}"))
    }

    fn copy_path(&self, rel: &str) -> Option<PathBuf> {
        let manifest = self.manifest.as_ref()?;
        let name = manifest.files.get(rel)?;
        Some(self.generation_dir(manifest.generation).join(name))
    }

    pub(crate) fn text(&self, rel: &str) -> Result<Option<String>> {
        match self.copy_path(rel) {
            Some(path) => read_optional(&path)?
                .ok_or_else(|| CoreError::Parse {
                    path: path.clone(),
                    message: "the review snapshot lost this copy; mark the bank reviewed again"
                        .into(),
                })
                .map(Some),
            None => Ok(None),
        }
    }

    fn write_manifest(&mut self, manifest: Manifest) -> Result<()> {
        fs::create_dir_all(&self.dir).map_err(|e| CoreError::io(&self.dir, e))?;
        let text = serde_json::to_string_pretty(&manifest)
            .map_err(|e| CoreError::Config(format!("cannot encode the snapshot: {e}")))?;
        let path = self.dir.join("manifest.json");
        write::write_guarded(&path, &text, expected_of(self.manifest_text.as_deref()))?;
        self.manifest = Some(manifest);
        self.manifest_text = Some(text);
        Ok(())
    }

    fn empty_manifest(&self, generation: u64) -> Manifest {
        Manifest {
            schema: SNAPSHOT_SCHEMA.to_string(),
            project: self.project.clone(),
            generation,
            reviewed_at: None,
            files: BTreeMap::new(),
        }
    }

    /// Sets one file's reviewed text (`None`: not in the snapshot), if it still is
    /// `expected`; otherwise a conflict.
    pub(crate) fn set(
        &mut self,
        rel: &str,
        expected: Option<&str>,
        new: Option<&str>,
    ) -> Result<()> {
        let now = self.text(rel)?;
        if now.as_deref() != expected {
            return Err(CoreError::Conflict {
                path: self.dir.join("manifest.json"),
            });
        }
        let mut manifest = self
            .manifest
            .clone()
            .unwrap_or_else(|| self.empty_manifest(1));
        let gen_dir = self.generation_dir(manifest.generation);
        match new {
            Some(text) => {
                fs::create_dir_all(&gen_dir).map_err(|e| CoreError::io(&gen_dir, e))?;
                let copy = gen_dir.join(copy_name(rel));
                write::write_guarded(&copy, text, expected_of(expected))?;
                if !manifest.files.contains_key(rel) {
                    manifest.files.insert(rel.to_string(), copy_name(rel));
                    self.write_manifest(manifest)?;
                } else if self.manifest.is_none() {
                    self.write_manifest(manifest)?;
                }
            }
            None => {
                if manifest.files.remove(rel).is_some() {
                    self.write_manifest(manifest)?;
                    write::remove_guarded(&gen_dir.join(copy_name(rel)), expected_of(expected))?;
                }
            }
        }
        Ok(())
    }

    /// Replaces the whole snapshot with `files` (project-relative path → text): a new
    /// generation folder is written, then the manifest switches to it, then the old
    /// generation is removed; an interruption leaves the old snapshot intact.
    pub(crate) fn replace_all(&mut self, files: &BTreeMap<String, String>) -> Result<()> {
        let old_generation = self.manifest.as_ref().map(|m| m.generation);
        let generation = old_generation.map_or(1, |g| g + 1);
        let gen_dir = self.generation_dir(generation);
        if gen_dir.exists() {
            // Left by an interrupted run: never referenced by the manifest.
            fs::remove_dir_all(&gen_dir).map_err(|e| CoreError::io(&gen_dir, e))?;
        }
        fs::create_dir_all(&gen_dir).map_err(|e| CoreError::io(&gen_dir, e))?;
        let mut manifest = self.empty_manifest(generation);
        for (rel, text) in files {
            let name = copy_name(rel);
            write::write_guarded(&gen_dir.join(&name), text, Expected::Missing)?;
            manifest.files.insert(rel.clone(), name);
        }
        manifest.reviewed_at = crate::core::report::epoch_seconds(std::time::SystemTime::now());
        self.write_manifest(manifest)?;
        if let Some(old) = old_generation {
            let old_dir = self.generation_dir(old);
            // Failing to tidy up loses nothing: the manifest no longer points there.
            let _ = fs::remove_dir_all(old_dir);
        }
        Ok(())
    }
}
