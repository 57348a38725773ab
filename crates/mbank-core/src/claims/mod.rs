//! Memory checked against the code it describes. The prose of every memory file of a
//! project whose bank sits in the git work tree of its code is read for claims (paths,
//! scripts, symbols, environment variables, and dependencies in the tech context:
//! [`extract`]), and each is looked up in what git tracks and the manifests declare
//! ([`tree`]). What the code contradicts is a warning with the memory file's line, saying
//! where a renamed path went when history shows it:
//!
//! | code | raised when |
//! |------|-------------|
//! | `claim-missing-path` | a path is neither tracked nor on disk (nor ignored by `.gitignore`) |
//! | `claim-missing-script` | a script, target or recipe no manifest defines |
//! | `claim-missing-symbol` | a symbol found in no tracked file; an environment variable found in none while others of its family (`STRIPE_`) are |
//! | `claim-missing-dependency` | a dependency no manifest or lock file names |
//! | `claims-not-checked` (info) | the memory makes claims, but its repository holds no code beside it |
//!
//! Outside any git repository nothing is checked (like every git check). Decision logs,
//! ADRs and session logs are history, so they make no claims about the code as it is.
mod aliases;
mod dependencies;
mod drawings;
pub mod extract;
mod foreign;
mod moves;
mod names;
mod names_memo;
mod plans;
mod prefixes;
mod removals;
mod rule_files;
mod scripts;
pub mod tree;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::findings::{Finding, FindingCode, Fix, Severity};
use crate::git::{GitRepo, HistoryMemo};
use crate::model::Role;
use extract::{Claim, ClaimKind, FileKind};
use removals::{Removals, WalksAhead};
use scripts::script_message;
use tree::CodeIndex;

/// Largest memory file read for claims.
const MAX_MEMORY_BYTES: u64 = 4 * 1024 * 1024;

/// One memory file of the project.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MemoryDoc<'a> {
    pub path: &'a Path,
    pub role: Role,
}

/// How long a repository's index is reused: long enough for one `check` of many
/// projects in one repository to list it once, short enough that a long-lived analyzer
/// (the TUI's) sees files added, renamed or removed since.
const INDEX_REUSE: Duration = Duration::from_secs(5);

/// Checks projects' claims, building each repository's index once per [`INDEX_REUSE`];
/// shared by the threads analysing projects, so a repository is listed once for all.
#[derive(Debug, Default)]
pub(crate) struct ClaimChecker {
    indexes: parking_lot::Mutex<HashMap<PathBuf, Built>>,
    /// Repositories whose files git listed for another question (see
    /// [`ClaimChecker::listed`]), their index not built until a claim needs it.
    listings: parking_lot::Mutex<HashMap<PathBuf, Listed>>,
    /// While above zero, an index is kept however old (see [`ClaimChecker::hold`]).
    held: std::sync::atomic::AtomicUsize,
    /// Where the indexes' history walks are remembered between runs.
    memo: Arc<HistoryMemo>,
    /// Where paths went in repositories whose walk started before their index was
    /// built ([`ClaimChecker::walk_ahead`]), for the index to take.
    removals_ahead: parking_lot::Mutex<HashMap<PathBuf, (Instant, Arc<Removals>)>>,
    /// The walks started ahead, stopped when this checker is dropped.
    walks: WalksAhead,
}

/// A repository's index and when it was listed (`None`: git could not list it).
type Built = (Instant, Option<Arc<CodeIndex>>);

/// A repository's names as git listed them, when, and the view they were listed from.
type Listed = (Instant, GitRepo, Vec<Vec<u8>>);

/// Keeps every index of a [`ClaimChecker`] until dropped.
pub(crate) struct Held<'c>(&'c ClaimChecker);

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.0
            .held
            .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A claim of one memory file with every line it is made on.
struct Made<'d> {
    doc: MemoryDoc<'d>,
    claim: Claim,
    lines: Vec<usize>,
    /// The headings above a symbol's first line ("error monitoring (sentry)"), lower-cased.
    section: String,
    /// The prefixes its heading says a symbol's names leave out ([`prefixes`]).
    prefixes: Vec<String>,
    /// Said only where history shows the path gone (a rule file's, [`rule_files`]).
    gone_only: bool,
    /// A symbol its line gives to something else ([`foreign`]).
    attributed: bool,
}

impl<'d> Made<'d> {
    /// `claim` of `doc`, whose text is `text`; `sections` are the text's headings and
    /// labelled lists, read the first time a symbol needs its section.
    fn new(
        doc: MemoryDoc<'d>,
        claim: Claim,
        text: &str,
        sections: &mut Option<prefixes::FileSections>,
    ) -> Made<'d> {
        let (section, prefixes, attributed) = if claim.kind == ClaimKind::Symbol {
            let sections = sections.get_or_insert_with(|| prefixes::FileSections::read(text));
            (
                sections.section_at(claim.line).to_string(),
                sections.prefixes_at(text, claim.line),
                foreign::attributed_elsewhere(sections.line(text, claim.line), &claim.text),
            )
        } else {
            (String::new(), Vec::new(), false)
        };
        Made {
            doc,
            lines: vec![claim.line],
            section,
            prefixes,
            gone_only: rule_files::is_rule_file(doc),
            attributed,
            claim,
        }
    }
}

impl ClaimChecker {
    pub fn new() -> ClaimChecker {
        ClaimChecker::default()
    }

    /// A checker whose indexes remember where paths went in `memo`.
    pub(crate) fn remembering(memo: Arc<HistoryMemo>) -> ClaimChecker {
        ClaimChecker {
            memo,
            ..ClaimChecker::default()
        }
    }

    /// The index of `repo`'s repository (`None` when git cannot list it: that failure is
    /// git's own finding).
    pub fn index(&self, repo: &GitRepo) -> Option<Arc<CodeIndex>> {
        let now = Instant::now();
        let fresh = self.fresh_at(now);
        // Held while git lists the repository: another thread wanting it waits for this
        // answer rather than asking git again.
        let mut indexes = self.indexes.lock();
        indexes.retain(|_, (built, _)| fresh(built));
        indexes
            .entry(repo.root().to_path_buf())
            .or_insert_with(|| {
                let listed = self
                    .listings
                    .lock()
                    .remove(repo.root())
                    .filter(|(at, _, _)| fresh(at));
                let removals = self
                    .removals_ahead
                    .lock()
                    .remove(repo.root())
                    .filter(|(at, _)| fresh(at))
                    .map(|(_, removals)| removals)
                    .unwrap_or_default();
                match listed {
                    Some((at, view, names)) => {
                        let index = CodeIndex::listed(view, names, Arc::clone(&self.memo))
                            .sharing_removals(removals);
                        (at, Some(Arc::new(index)))
                    }
                    None => (
                        now,
                        CodeIndex::build(repo, Arc::clone(&self.memo))
                            .ok()
                            .map(|index| Arc::new(index.sharing_removals(removals))),
                    ),
                }
            })
            .1
            .clone()
    }

    /// Starts the walk of where paths went in each of `repos`' repositories of whose
    /// history nothing is remembered yet (the first check of a clone), on a thread
    /// beside the caller's: `check` does while git answers for staleness, before any
    /// claim asks. Its index takes the answer, or waits for it, once a claim asks; a
    /// walk nobody asked for is stopped when this checker is dropped. Where history is
    /// remembered, a claim's walk only reads the commits since, and none is started.
    pub(crate) fn walk_ahead(&self, repos: &[&GitRepo]) {
        let now = Instant::now();
        let fresh = self.fresh_at(now);
        let indexes = self.indexes.lock();
        let mut ahead = self.removals_ahead.lock();
        ahead.retain(|_, (at, _)| fresh(at));
        let mut walks = Vec::new();
        for repo in repos.iter().filter(|repo| self.memo.is_new_to(repo.root())) {
            let built = indexes
                .get(repo.root())
                .filter(|(at, _)| fresh(at))
                .map(|(_, index)| index.as_ref().map(|index| index.removals_cell()));
            let removals = match built {
                // Git could not list it: no claim will ask.
                Some(None) => continue,
                Some(Some(removals)) => removals,
                None => Arc::clone(
                    &ahead
                        .entry(repo.root().to_path_buf())
                        .or_insert_with(|| (now, Arc::default()))
                        .1,
                ),
            };
            if !removals.is_found() {
                walks.push((repo.unshared(), removals));
            }
        }
        drop((ahead, indexes));
        self.walks.start(walks, Arc::clone(&self.memo));
    }

    /// Whether what was listed or started at a moment may still serve at `now`: within
    /// [`INDEX_REUSE`], or at any age while [`ClaimChecker::hold`] holds.
    fn fresh_at(&self, now: Instant) -> impl Fn(&Instant) -> bool {
        let held = self.held.load(std::sync::atomic::Ordering::Relaxed) > 0;
        move |at| held || now.duration_since(*at) < INDEX_REUSE
    }

    /// Keeps every index, however old, until the guard is dropped: one run over many
    /// projects (a cold `check` of a large repository can outlast [`INDEX_REUSE`]) lists
    /// each repository once.
    pub(crate) fn hold(&self) -> Held<'_> {
        self.held.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Held(self)
    }

    /// Every name the index of `repo`'s repository lists, in its order (`git ls-files`),
    /// listed now for another question: the repository's index for claims is built from
    /// it rather than by listing the files again.
    pub(crate) fn listed(&self, repo: &GitRepo, names: Vec<Vec<u8>>) {
        self.listings.lock().insert(
            repo.root().to_path_buf(),
            // Kept until an index is built from it, perhaps past the run: the run's
            // shared `check-ignore` is not kept with it.
            (Instant::now(), repo.unshared(), names),
        );
    }

    /// Findings for the claims of `docs` (the memory files of the project at `project`,
    /// whose banks are at `bank_roots`), checked against `repo`'s work tree.
    pub fn check_project(
        &self,
        project: &Path,
        repo: Option<&GitRepo>,
        bank_roots: &[&Path],
        docs: &[MemoryDoc<'_>],
    ) -> Vec<Finding> {
        let Some(repo) = repo else {
            return Vec::new();
        };
        if docs.is_empty() {
            return Vec::new();
        }
        let mut made: Vec<Made<'_>> = Vec::new();
        let aliases = aliases::aliases(project, docs);
        for doc in docs {
            let rules = rule_files::is_rule_file(*doc);
            if !(states_the_present(*doc, project) || rules) || aliases.contains(doc.path) {
                continue;
            }
            let Ok(text) = crate::io::text::read_text_limited(doc.path, MAX_MEMORY_BYTES) else {
                continue;
            };
            if plans::is_plan(*doc, &text) {
                continue;
            }
            let kind = file_kind(*doc);
            let mut by_claim: BTreeMap<(ClaimKind, String), usize> = BTreeMap::new();
            let mut headings = None;
            let claims = extract::claims(&text, kind).into_iter();
            let in_rules = |kind: &ClaimKind| matches!(kind, ClaimKind::Path | ClaimKind::Symbol);
            for claim in claims.filter(|c| !rules || in_rules(&c.kind)) {
                // `src/locales/` and `src/locales` name one folder: one claim.
                let named = match claim.kind {
                    ClaimKind::Path => claim.text.trim_end_matches('/').to_string(),
                    _ => claim.text.clone(),
                };
                let key = (claim.kind.clone(), named);
                match by_claim.get(&key) {
                    Some(&at) => made[at].lines.push(claim.line),
                    None => {
                        by_claim.insert(key, made.len());
                        made.push(Made::new(*doc, claim, &text, &mut headings));
                    }
                }
            }
        }
        // Memory that names nothing in the code costs no look at the repository.
        if made.is_empty() {
            return Vec::new();
        }
        // The answer rests on what git tracks and its history (vouched for by the
        // repository's state) and on every file the look-ups read, each noted as read.
        let Some(index) = self.index(repo) else {
            // Git may answer next time with nothing on disk changed.
            crate::io::reads::unstampable();
            return Vec::new();
        };
        let memory = MemorySide::of(repo, project, bank_roots, docs);
        if !memory.has_code(&index) {
            return vec![Finding::new(
                Severity::Info,
                FindingCode::ClaimsNotChecked,
                project,
                None,
                format!(
                    "no code beside this bank (git tracks nothing but memory here), so the {} its memory makes about code (paths, scripts, symbols) are not checked",
                    crate::io::text::counted(made.len(), "claim")
                ),
            )];
        }
        verify(&index, repo, &memory, &made)
    }

    /// Findings for the claims `current` makes that `baseline` did not (an agent's
    /// change), checked against the work tree of `repo`: what review shows.
    pub(crate) fn check_change(
        &self,
        repo: &GitRepo,
        doc: MemoryDoc<'_>,
        baseline: Option<&str>,
        current: &str,
    ) -> Vec<Finding> {
        if !states_the_present(doc, repo.root()) || plans::is_plan(doc, current) {
            return Vec::new();
        }
        let kind = file_kind(doc);
        let before: HashSet<(ClaimKind, String)> = baseline
            .map(|text| {
                extract::claims(text, kind)
                    .into_iter()
                    .map(|c| (c.kind, c.text))
                    .collect()
            })
            .unwrap_or_default();
        let mut made: Vec<Made<'_>> = Vec::new();
        let mut seen: HashSet<(ClaimKind, String)> = HashSet::new();
        let mut headings = None;
        for claim in extract::claims(current, kind) {
            let key = (claim.kind.clone(), claim.text.clone());
            if before.contains(&key) || !seen.insert(key) {
                continue;
            }
            made.push(Made::new(doc, claim, current, &mut headings));
        }
        // A change that claims nothing new costs no look at the repository.
        if made.is_empty() {
            return Vec::new();
        }
        let Some(index) = self.index(repo) else {
            return Vec::new();
        };
        let project = repo.base().to_path_buf();
        let memory = MemorySide::of(repo, &project, &[], &[doc]);
        if !memory.has_code(&index) {
            return Vec::new();
        }
        verify(&index, repo, &memory, &made)
    }
}

/// Folders whose files are history or plans, not a description of the code as it is.
const HISTORY_FOLDERS: &[&str] = &[
    "journal",
    "journals",
    "session",
    "sessions",
    "log",
    "logs",
    "archive",
    "archives",
    "archived",
    "history",
    "plans",
    "plan",
    "tasks",
    "task",
    "reports",
    "retro",
    "retros",
    "changelog",
    "decisions",
    "adr",
    "adrs",
    "meetings",
    "notes-archive",
    "old",
    // Looking back on finished work, and design options weighed before one was built
    // (the `reflection/` and `creative/` folders of Cursor memory banks).
    "reflection",
    "reflections",
    "retrospectives",
    "postmortems",
    "creative",
];

/// File names (without extension) of history and plans.
const HISTORY_FILES: &[&str] = &[
    "tasks",
    "todo",
    "changelog",
    "history",
    "plan",
    "plans",
    "roadmap",
    "backlog",
    "journal",
    "log",
    "sessions",
    "decisionlog",
    "decision-log",
    "decisions",
];

/// Whether a memory file describes the code as it is: markdown, not a decision log,
/// session log, journal, dated entry, task list or plan (those record what was or will
/// be, which the code need not show). Only its folders below `root` (the project's)
/// count: where the user keeps projects (`~/old/`, `plans/`) says nothing of the file.
fn states_the_present(doc: MemoryDoc<'_>, root: &Path) -> bool {
    if matches!(
        doc.role,
        Role::Decisions | Role::Adr | Role::Session | Role::Config | Role::Rules
    ) {
        return false;
    }
    let Some(name) = doc
        .path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
    else {
        return false;
    };
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    if !matches!(ext, "md" | "markdown") || HISTORY_FILES.contains(&stem) {
        return false;
    }
    if has_date(stem) {
        return false;
    }
    let folder = doc.path.parent().unwrap_or(Path::new(""));
    !folder
        .strip_prefix(root)
        .unwrap_or(folder)
        .components()
        .any(|c| {
            let part = c.as_os_str().to_string_lossy().to_lowercase();
            HISTORY_FOLDERS.contains(&part.as_str()) || has_date(&part)
        })
}

fn file_kind(doc: MemoryDoc<'_>) -> FileKind {
    FileKind {
        tech: doc.role == Role::Tech,
        names_code: matches!(
            doc.role,
            Role::Patterns | Role::Tech | Role::Active | Role::Progress | Role::Instructions
        ),
    }
}

/// A `2025-02-28` or `2025_02_28` date in a name.
fn has_date(name: &str) -> bool {
    let bytes = name.as_bytes();
    bytes.windows(10).any(|w| {
        w[..4].iter().all(u8::is_ascii_digit)
            && matches!(w[4], b'-' | b'_')
            && w[5..7].iter().all(u8::is_ascii_digit)
            && matches!(w[7], b'-' | b'_')
            && w[8..].iter().all(u8::is_ascii_digit)
    })
}

/// Where the memory sits in the repository.
struct MemorySide {
    /// The project folder, root-relative with a trailing `/` (empty at the root).
    prefix: String,
    /// Root-relative folders of the banks (the project itself excluded).
    bank_dirs: Vec<String>,
    /// Root-relative memory files: never searched for symbols.
    memory_files: HashSet<String>,
    /// Each memory file's folder, root-relative with a trailing `/`.
    doc_dirs: HashMap<PathBuf, String>,
}

fn root_relative(repo: &GitRepo, path: &Path) -> Option<String> {
    repo.root_relative(path)
        .map(|p| p.to_string_lossy().into_owned())
}

impl MemorySide {
    fn of(repo: &GitRepo, project: &Path, bank_roots: &[&Path], docs: &[MemoryDoc<'_>]) -> Self {
        let base = repo.root_relative_base().to_string_lossy().into_owned();
        let prefix = if base == "." {
            String::new()
        } else {
            format!("{}/", base.trim_end_matches('/'))
        };
        let bank_dirs = bank_roots
            .iter()
            .filter(|root| *root != &project)
            .filter_map(|root| root_relative(repo, root))
            .collect();
        let mut memory_files = HashSet::new();
        let mut doc_dirs = HashMap::new();
        for doc in docs {
            if let Some(rel) = root_relative(repo, doc.path) {
                let dir = match rel.rsplit_once('/') {
                    Some((dir, _)) => format!("{dir}/"),
                    None => String::new(),
                };
                doc_dirs.insert(doc.path.to_path_buf(), dir);
                memory_files.insert(rel);
            }
        }
        MemorySide {
            prefix,
            bank_dirs,
            memory_files,
            doc_dirs,
        }
    }

    fn in_bank(&self, rel: &str) -> bool {
        self.memory_files.contains(rel)
            || self.bank_dirs.iter().any(|dir| {
                rel.strip_prefix(dir.as_str())
                    .is_some_and(|r| r.starts_with('/'))
            })
    }

    /// Git tracks something under the project that is neither memory nor prose.
    fn has_code(&self, index: &CodeIndex) -> bool {
        index.files().iter().any(|rel| {
            let Some(inside) = rel.strip_prefix(self.prefix.as_str()) else {
                return false;
            };
            let name = inside.rsplit('/').next().unwrap_or(inside);
            let prose = name.rsplit_once('.').is_some_and(|(_, ext)| {
                matches!(
                    ext.to_ascii_lowercase().as_str(),
                    "md" | "mdx" | "mdc" | "markdown" | "txt" | "rst"
                )
            });
            !prose && !name.starts_with('.') && !self.in_bank(rel)
        })
    }

    /// Root-relative spellings a path claim may mean: from the project, the repository's
    /// top, and the memory file's folder.
    fn candidates(&self, doc: &Path, claim: &str) -> Vec<String> {
        let mut out = vec![format!("{}{claim}", self.prefix), claim.to_string()];
        if let Some(dir) = self.doc_dirs.get(doc) {
            out.push(format!("{dir}{claim}"));
        }
        out.dedup();
        out
    }
}

/// The findings for `made`, checked against `index`.
fn verify(
    index: &CodeIndex,
    repo: &GitRepo,
    memory: &MemorySide,
    made: &[Made<'_>],
) -> Vec<Finding> {
    let mut out = Vec::new();
    let skip: HashSet<String> = index
        .files()
        .iter()
        .filter(|rel| memory.in_bank(rel))
        .cloned()
        .collect();
    // Paths neither tracked nor on disk (those `.gitignore` ignores are dropped later),
    // each with the spellings it may mean.
    let missing: Vec<Option<Vec<String>>> = made
        .iter()
        .map(|m| {
            let text = m.claim.text.as_str();
            if !matches!(m.claim.kind, ClaimKind::Path) {
                return None;
            }
            let candidates = memory.candidates(m.doc.path, text);
            let present = candidates.iter().any(|c| {
                index.exists(c) || on_disk(&index.root().join(c)) || index.exists_as_module(c)
            }) || index.exists_as_suffix(text);
            (!present).then_some(candidates)
        })
        .collect();
    let tied = rule_files::lines_naming_present_paths(made, &missing);
    // Symbols and variables: one search of the code for all of them.
    let names: Vec<String> = {
        let mut names: Vec<String> = made
            .iter()
            .filter(|m| match m.claim.kind {
                // A rule file's names count only where tied to this code (see below).
                ClaimKind::Symbol => {
                    !m.attributed && (!m.gone_only || rule_files::is_tied(&tied, m))
                }
                ClaimKind::EnvVar => true,
                ClaimKind::Dependency => dependencies::searched_in_code(index),
                _ => false,
            })
            .flat_map(|m| prefixes::spellings(&m.prefixes, &m.claim.text))
            .collect();
        let families: Vec<String> = made
            .iter()
            .filter(|m| matches!(m.claim.kind, ClaimKind::EnvVar))
            .filter_map(|m| variable_family(&m.claim.text))
            .map(str::to_string)
            .collect();
        names.extend(families);
        names.sort();
        names.dedup();
        names
    };
    let missing = drawings::judged_as_drawn(made, missing);
    // Each asked as a folder too: git takes a path not on disk for a file, which a
    // folder's pattern (`packages/content/`) does not match.
    let as_folder = |c: &String| format!("{}/", c.trim_end_matches('/'));
    let asked: Vec<String> = missing
        .iter()
        .flatten()
        .flat_map(|candidates| candidates.iter())
        .flat_map(|c| [c.clone(), as_folder(c)])
        .collect();
    let is_ignored = |ignored: &HashSet<String>, candidates: &[String]| {
        candidates
            .iter()
            .any(|c| ignored.contains(c) || ignored.contains(&as_folder(c)))
    };
    // While the code is searched: which missing paths `.gitignore` covers, then where
    // the others went, from history. A path ignored needs no history, so a first check
    // whose missing paths are all ignored does not wait for the walk of it.
    let (found_names, ignored) = std::thread::scope(|scope| {
        let paths = scope.spawn(|| {
            let ignored = index.ignored(repo, &asked);
            if missing.iter().flatten().any(|c| !is_ignored(&ignored, c)) {
                index.removals();
            }
            ignored
        });
        let found_names = index.find_names(&names, &skip);
        let ignored = paths
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (found_names, ignored)
    });
    let others = foreign::in_sections_of_others(made, &names, &found_names);
    let mut missing_paths: Vec<(&Made<'_>, Vec<String>)> = Vec::new();
    for (at, (m, missing)) in made.iter().zip(missing).enumerate() {
        let text = m.claim.text.as_str();
        let message = match &m.claim.kind {
            ClaimKind::Path => {
                if let Some(candidates) = missing {
                    missing_paths.push((m, candidates));
                }
                None
            }
            ClaimKind::Script { runner, command } => script_message(index, *runner, command, text),
            // Under a heading that names a dependency ("Data Fetching (React Query)"),
            // a name is that dependency's (`useInfiniteQuery`), not the project's.
            ClaimKind::Symbol if dependencies::names_a_dependency(&m.section, index) => None,
            // A rule file's names are a framework's or a template's unless the line ties
            // them to this code by naming one of its paths.
            ClaimKind::Symbol if m.gone_only && !rule_files::is_tied(&tied, m) => None,
            ClaimKind::Symbol if m.attributed || others.contains(&at) => None,
            ClaimKind::Symbol => (!prefixes::spellings(&m.prefixes, text)
                .iter()
                .any(|name| found_names.contains(name)))
            .then(|| {
                format!(
                    "`{text}` occurs in no tracked file outside the memory ({} searched): renamed or removed?",
                    crate::io::text::counted(index.files().len() - skip.len(), "file")
                )
            }),
            // A variable whose family no code names is read by something else: a
            // dependency, a tool or the platform (`ABQPY_DEBUG` by the `abqpy` package).
            ClaimKind::EnvVar => (!found_names.contains(text)
                && variable_family(text).is_none_or(|family| found_names.contains(family)))
            .then(|| {
                format!(
                    "environment variable `{text}` occurs in no tracked file outside the memory (not read by the code, nor in an example env file)"
                )
            }),
            // A package of the project's own (`src`, `packages/api`) is no dependency.
            ClaimKind::Dependency => {
                let own_folder = index.exists(&format!("{}{text}", memory.prefix));
                dependencies::message(index, text, own_folder, &found_names)
            }
        };
        if let Some(message) = message {
            out.push(finding(m, message));
        }
    }
    // Where the missing paths went, for all of them in one question to git.
    index.ask_renames_for(
        missing_paths
            .iter()
            .filter(|(_, candidates)| !is_ignored(&ignored, candidates))
            .flat_map(|(m, c)| c.iter().map(String::as_str).chain([m.claim.text.as_str()])),
    );
    for (m, candidates) in missing_paths {
        if is_ignored(&ignored, &candidates) {
            continue;
        }
        let message = path_message(index, &m.claim.text, &candidates, m.gone_only);
        if let Some((message, renamed_to)) = message {
            let found = finding(m, message);
            out.push(match (renamed_to, m.lines.first()) {
                (Some(with), Some(&line)) => found.with_fix(Fix {
                    line,
                    replace: m.claim.text.clone(),
                    with,
                }),
                _ => found,
            });
        }
    }
    out.sort_by(|a, b| a.file.cmp(&b.file).then(a.line.cmp(&b.line)));
    out
}

/// The family an environment variable belongs to, its first word with the underscore
/// after it (`STRIPE_` of `STRIPE_API_KEY`); `None` for a name of one word.
fn variable_family(name: &str) -> Option<&str> {
    let at = name.get(1..)?.find('_')? + 1;
    (at + 1 < name.len()).then(|| &name[..=at])
}

/// Whether something is at `path` (a link counts, whatever it leads to); noted either way.
fn on_disk(path: &Path) -> bool {
    let there = path.symlink_metadata().is_ok();
    if there {
        // Gone only by a change to its folder (a link's target may be anything).
        if let Some(folder) = path.parent() {
            crate::io::reads::folder(folder);
        }
    } else {
        crate::io::reads::absent(path);
    }
    there
}

fn finding(m: &Made<'_>, message: String) -> Finding {
    let code = match m.claim.kind {
        ClaimKind::Path => FindingCode::ClaimMissingPath,
        ClaimKind::Script { .. } => FindingCode::ClaimMissingScript,
        ClaimKind::Symbol | ClaimKind::EnvVar => FindingCode::ClaimMissingSymbol,
        ClaimKind::Dependency => FindingCode::ClaimMissingDependency,
    };
    let mut message = message;
    if m.lines.len() > 1 {
        let more: Vec<String> = m.lines[1..].iter().map(usize::to_string).collect();
        message.push_str(&format!(" (also on line {})", more.join(", ")));
    }
    Finding::new(
        Severity::Warning,
        code,
        m.doc.path,
        m.lines.first().copied(),
        message,
    )
}

/// What to say of a path claim the work tree does not hold: where history says it went;
/// else, only when its first folder is in the tree (so it names this repository, not
/// another project, a package or a runtime file), that it is not there. With the message
/// comes, for a rename, the new path spelled as the claim spells the old one (relative to
/// the same folder), which the memory can be fixed to.
fn path_message(
    index: &CodeIndex,
    claim: &str,
    candidates: &[String],
    gone_only: bool,
) -> Option<(String, Option<String>)> {
    if candidates.iter().any(|c| index.in_submodule(c)) {
        return None;
    }
    for candidate in candidates {
        if let Some(step) = index.moved(candidate) {
            let fix = step
                .to
                .as_deref()
                .and_then(|to| respelled(candidate, claim, to));
            return Some((moves::moved_message(claim, &step), fix));
        }
        if let Some(step) = index.moved_dir(candidate)
            && let Some(to) = step.to
        {
            let slash = if claim.ends_with('/') { "/" } else { "" };
            let new = respelled(
                candidate.trim_end_matches('/'),
                claim.trim_end_matches('/'),
                &to,
            )
            .map(|new| format!("{new}{slash}"));
            return Some((
                format!(
                    "`{claim}` was moved to `{to}/` in {}: update the memory",
                    step.commit
                ),
                new,
            ));
        }
        if let Some(step) = index.removed_dir(candidate) {
            return Some((moves::moved_message(claim, &step), None));
        }
    }
    // A rule prescribes for every file of a kind: a bare name there (`main.rs`) is any
    // file of that name, not the one history removed somewhere.
    if gone_only && !claim.trim_end_matches('/').contains('/') {
        return None;
    }
    // Written relative to a folder the history names in full.
    let tail = format!("/{}", claim.trim_end_matches('/'));
    let from_history = index.removed_ending(&tail);
    if let Some(from) = from_history.first()
        && let Some(step) = index.moved(from)
    {
        let fix = step.to.as_deref().and_then(|to| respelled(from, claim, to));
        return Some((moves::moved_message(claim, &step), fix));
    }
    if gone_only {
        return None;
    }
    let (first, _) = claim.split_once('/')?;
    let anchored = candidates.iter().any(|c| {
        let parent = c.strip_suffix(claim).unwrap_or("");
        index.exists(&format!("{parent}{first}"))
    });
    if !anchored {
        return None;
    }
    // The most specific spelling (relative to the memory's own folder) is nearest.
    let deepest = candidates.iter().max_by_key(|c| c.matches('/').count());
    let message = match deepest.and_then(|c| index.similar(c)) {
        Some(similar) => format!(
            "`{claim}` is not in the work tree (git tracks no file or folder by that path); did it become `{similar}`?"
        ),
        None => format!(
            "`{claim}` is not in the work tree (git tracks no file or folder by that path, and history does not say where it went)"
        ),
    };
    Some((message, None))
}

/// `to` (root-relative) spelled relative to the folder `claim` is relative to, `from`
/// being the root-relative path `claim` stands for; `None` when `to` left that folder
/// (a root-relative rewrite would point elsewhere from where the claim is read).
fn respelled(from: &str, claim: &str, to: &str) -> Option<String> {
    let folder = from.strip_suffix(claim)?;
    let new = to.strip_prefix(folder)?;
    (!new.is_empty() && new != claim).then(|| new.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_repo::git;

    fn write(dir: &Path, rel: &str, text: &str) {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    #[test]
    fn looking_back_and_weighing_options_state_nothing_of_the_present_code() {
        let states = |rel: &str| {
            states_the_present(
                MemoryDoc {
                    path: &Path::new("/home/me/old/plans").join(rel),
                    role: Role::Other,
                },
                Path::new("/home/me/old/plans"),
            )
        };
        for rel in [
            "memory-bank/reflection/reflection-auth.md",
            "memory-bank/creative/creative-cache-design.md",
            "docs/postmortems/outage.md",
            "memory-bank/archive/2025-01.md",
        ] {
            assert!(!states(rel), "{rel}");
        }
        for rel in ["memory-bank/systemPatterns.md", "memory-bank/notes/api.md"] {
            assert!(states(rel), "{rel}");
        }
    }

    #[test]
    fn a_path_renamed_in_history_offers_the_new_path_as_a_fix_on_its_line() {
        let temp = tempfile::tempdir().expect("temp");
        let dir = temp.path();
        git(dir, &["init", "-q"]);
        write(dir, "src/api/mod.rs", "pub mod refunds_v1;\n");
        write(dir, "src/api/refunds_v1.rs", "pub fn refund() {}\n");
        let patterns = "# Patterns\n\nRefunds live in `src/api/refunds_v1.rs`.\nThe API is in `api/refunds_v1.rs` under src.\nStill there: `src/api/mod.rs`.\n";
        write(dir, "memory-bank/systemPatterns.md", patterns);
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", "first"]);
        git(dir, &["mv", "src/api/refunds_v1.rs", "src/api/refunds.rs"]);
        git(dir, &["commit", "-q", "-m", "rename"]);
        let Some(repo) = GitRepo::discover(dir) else {
            panic!("no repository at {}", dir.display());
        };
        let doc_path = dir.join("memory-bank/systemPatterns.md");
        let docs = [MemoryDoc {
            path: &doc_path,
            role: Role::Patterns,
        }];
        let bank = dir.join("memory-bank");
        let found = ClaimChecker::new().check_project(dir, Some(&repo), &[&bank], &docs);
        let fixes: Vec<(Option<usize>, Option<Fix>)> = found
            .iter()
            .filter(|f| f.code.id() == "claim-missing-path")
            .map(|f| (f.line, f.fix.clone()))
            .collect();
        let fix = |line: usize, replace: &str, with: &str| Fix {
            line,
            replace: replace.into(),
            with: with.into(),
        };
        assert_eq!(
            fixes,
            vec![
                (
                    Some(3),
                    Some(fix(3, "src/api/refunds_v1.rs", "src/api/refunds.rs"))
                ),
                (Some(4), Some(fix(4, "api/refunds_v1.rs", "api/refunds.rs"))),
            ],
            "{found:#?}"
        );
        let fixed = found[0].fix.as_ref().and_then(|f| f.apply(patterns));
        assert_eq!(
            fixed.as_deref(),
            Some(
                "# Patterns\n\nRefunds live in `src/api/refunds.rs`.\nThe API is in `api/refunds_v1.rs` under src.\nStill there: `src/api/mod.rs`.\n"
            )
        );
    }

    #[test]
    fn a_rename_is_respelled_relative_to_the_folder_the_claim_is_written_from() {
        assert_eq!(
            respelled("src/api/a.rs", "api/a.rs", "src/api/b.rs").as_deref(),
            Some("api/b.rs")
        );
        assert_eq!(respelled("src/api/a.rs", "api/a.rs", "lib/b.rs"), None);
        assert_eq!(
            respelled("a.rs", "a.rs", "lib/b.rs").as_deref(),
            Some("lib/b.rs")
        );
    }
}
