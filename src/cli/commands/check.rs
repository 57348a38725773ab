//! `mbank check [PATH]`: validation, budgets and staleness, fit for a pre-commit hook and
//! CI: exit 1 when a finding is at or above `--fail-on`. A check that cannot run is an
//! error finding, never a pass: a repository git refuses (`git-refused`, e.g. "detected
//! dubious ownership") or fails on (`git-failed`) loses its git checks, and says so.
//! Git runs only for projects inside a repository, once per repository. `--format sarif`
//! writes SARIF 2.1.0 for code scanning ([`crate::cli::sarif`]).
use std::path::{Path, PathBuf};

use color_eyre::eyre::Result;
use serde::{Deserialize, Serialize};

use crate::cli::args::{CheckFormat, SeverityArg};
use crate::cli::style::{Line, eprintln, line, pad, writeln_to};
use crate::cli::{Context, EXIT_FINDINGS, json, sarif};
use crate::core::analysis::context::entries_past_cut;
use crate::core::analysis::git_evidence::Repository;
use crate::core::analysis::report::{Analyzed, Analyzer, Depth, ProjectReport};
use crate::core::analysis::rows::{
    Observed, Remembered, RememberedRows, RowSource, listed_inode_and_change,
};
use crate::core::cache_store::{self, Raw};
use crate::core::findings::{Finding, FindingCode, Fix, Severity};
use crate::core::git::HistoryMemo;
use crate::core::io::bytes::{os_bytes, os_str};
use crate::core::io::reads::Reads;
use crate::core::io::text::counted;
use crate::core::model::{Bank, Project};
use crate::core::scan::discovery::OutsideFolders;
use crate::core::scan::listings::Listings;
use crate::core::tokens::{Encoding, TokenCache};

#[derive(Serialize)]
struct CheckOutput<'a> {
    schema: &'static str,
    encoding: Encoding,
    fail_on: Severity,
    failed: bool,
    summary: &'a CheckSummary,
    projects: Projects<'a>,
}

#[derive(Serialize, Default)]
struct CheckSummary {
    error: usize,
    warning: usize,
    info: usize,
}

#[derive(Serialize, Clone)]
struct ProjectFindings {
    name: String,
    path: PathBuf,
    findings: Vec<Finding>,
}

pub(crate) fn severity(arg: SeverityArg) -> Severity {
    match arg {
        SeverityArg::Error => Severity::Error,
        SeverityArg::Warning => Severity::Warning,
        SeverityArg::Info => Severity::Info,
    }
}

/// A finding's file relative to its project (`.` for the project folder itself), so
/// every place reads the same way; a path outside the project stays whole.
fn short(path: &Path, project: &Path) -> String {
    match path.strip_prefix(project) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

/// A finding as the remembered findings keep it, its text borrowed from the cache file.
#[derive(Serialize, Deserialize)]
struct StoredFinding<'a> {
    severity: &'a str,
    code: &'a str,
    #[serde(borrow)]
    file: Raw<'a>,
    line: Option<u64>,
    message: &'a str,
    details: Vec<&'a str>,
    /// Line, text replaced, its replacement.
    fix: Option<(u64, &'a str, &'a str)>,
}

/// A project's findings as remembered.
#[derive(Serialize, Deserialize)]
struct StoredProject<'a> {
    name: &'a str,
    #[serde(borrow)]
    path: Raw<'a>,
    #[serde(borrow)]
    findings: Vec<StoredFinding<'a>>,
}

impl ProjectFindings {
    /// The bytes [`ProjectFindings::decode`] reads back; `None` when a path cannot be
    /// kept as bytes (the project is then checked again next time).
    fn encode(&self) -> Option<Vec<u8>> {
        let findings = self
            .findings
            .iter()
            .map(|f| {
                Some(StoredFinding {
                    severity: f.severity.id(),
                    code: f.code.id(),
                    file: Raw(os_bytes(f.file.as_os_str())?),
                    line: f.line.map(|line| line as u64),
                    message: &f.message,
                    details: f.details.iter().map(String::as_str).collect(),
                    fix: f
                        .fix
                        .as_ref()
                        .map(|fix| (fix.line as u64, fix.replace.as_str(), fix.with.as_str())),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        cache_store::encode(&StoredProject {
            name: &self.name,
            path: Raw(os_bytes(self.path.as_os_str())?),
            findings,
        })
    }

    fn decode(bytes: &[u8]) -> Option<ProjectFindings> {
        let stored: StoredProject<'_> = cache_store::decode(bytes)?;
        let path = |raw: Raw<'_>| os_str(raw.0).map(PathBuf::from);
        let findings = stored
            .findings
            .into_iter()
            .map(|f| {
                Some(Finding {
                    severity: Severity::parse(f.severity)?,
                    code: FindingCode::from_id(f.code)?,
                    file: path(f.file)?,
                    line: f.line.map(usize::try_from).transpose().ok()?,
                    message: f.message.to_string(),
                    details: f.details.into_iter().map(str::to_string).collect(),
                    fix: match f.fix {
                        Some((line, replace, with)) => Some(Fix {
                            line: usize::try_from(line).ok()?,
                            replace: replace.to_string(),
                            with: with.to_string(),
                        }),
                        None => None,
                    },
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(ProjectFindings {
            name: stored.name.to_string(),
            path: path(stored.path)?,
            findings,
        })
    }
}

/// What the findings of every project of this run share, as `list`'s rows do, and what
/// only `check` reads: the PATH it was given, Codex's home (the chain of files a
/// combined limit cuts) and mbank's data folder (the history cuts are judged from).
fn check_key(context: &Context, path: Option<&Path>) -> Option<u64> {
    let mut key = super::list::rows_key(context)?;
    key.part(b"check")
        .part(format!("{path:?}").as_bytes())
        .part(format!("{:?}", crate::core::io::paths::codex_home()).as_bytes())
        // Where mbank's history is, which cuts are judged from.
        .part(format!("{:?}", context.history.as_ref().map(|h| h.data_dir())).as_bytes());
    // Where git finds its configuration and the user's ignore rules, which claims and
    // private files are checked against.
    let mut git_env: Vec<(std::ffi::OsString, std::ffi::OsString)> = std::env::vars_os()
        .filter(|(name, _)| {
            let name = name.as_encoded_bytes();
            name.starts_with(b"GIT_") || name == b"XDG_CONFIG_HOME"
        })
        .collect();
    git_env.sort();
    key.part(format!("{git_env:?}").as_bytes());
    Some(key.finish())
}

/// What a project's findings were derived from: its banks' files as `list`'s rows, and
/// everything else its check read (imported files, folders probed above it); not
/// remembered when git failed, a memory path leads out of the project or anything read
/// cannot be vouched for by its stamp.
fn observed(
    findings: &ProjectFindings,
    report: &ProjectReport,
    reads: Reads,
    repository: Repository,
    (started, outside): (i128, &OutsideFolders),
    payload: Vec<u8>,
) -> Observed {
    let project = &findings.path;
    let inside = |path: &Path| lies_in(path, project);
    let mut checkable = !reads.unstampable
        && !findings.findings.iter().any(|f| {
            matches!(
                f.code,
                FindingCode::SymlinkOutside | FindingCode::GitRefused | FindingCode::GitFailed
            )
        })
        && report
            .banks
            .iter()
            .all(|b| b.problems.is_empty() && inside(&b.root));
    let bank_files = report.banks.iter().map(|b| b.files.len()).sum::<usize>();
    let mut files = Vec::with_capacity(bank_files + reads.files.len());
    for file in report.banks.iter().flat_map(|b| &b.files) {
        checkable &= file.error.is_none() && inside(&file.file.path);
        // A store of virtual memories is vouched for by the fact read from it.
        let version = (!file.file.is_virtual()).then_some((file.file.size, file.file.modified));
        // Stamped as listed, before it was read: a change since makes the row out of date.
        let listed = listed_inode_and_change(&file.file);
        files.push((file.file.path.as_path(), version, listed));
    }
    let mut elsewhere = outside.folders_of(project);
    for read in &reads.files {
        if inside(&read.path) {
            let version = Some((read.len, read.modified));
            files.push((read.path.as_path(), version, read.inode_and_change));
        } else {
            elsewhere.push(read.path.clone());
        }
    }
    elsewhere.extend(reads.folders.iter().cloned());
    elsewhere.sort();
    elsewhere.dedup();
    Observed::new(
        project, files, started, repository, elsewhere, checkable, payload,
    )
}

/// `path.starts_with(folder)`, by their bytes where that settles it: the paths a check
/// read are its project's joined with relative ones, and comparing ten thousand of them
/// component by component showed in profiles of a check over a large repository.
fn lies_in(path: &Path, folder: &Path) -> bool {
    let base = folder.as_os_str().as_encoded_bytes();
    let by_bytes = path
        .as_os_str()
        .as_encoded_bytes()
        .strip_prefix(base)
        .is_some_and(|rest| rest.is_empty() || rest[0] == b'/' || base.ends_with(b"/"));
    by_bytes || path.starts_with(folder)
}

/// How many findings of each severity.
impl CheckSummary {
    fn add(&mut self, findings: &[Finding]) {
        for finding in findings {
            match finding.severity {
                Severity::Error => self.error += 1,
                Severity::Warning => self.warning += 1,
                Severity::Info => self.info += 1,
            }
        }
    }

    /// Whether some finding is at or above `fail_on`.
    fn fails(&self, fail_on: Severity) -> bool {
        match fail_on {
            Severity::Error => self.error > 0,
            Severity::Warning => self.error + self.warning > 0,
            Severity::Info => self.error + self.warning + self.info > 0,
        }
    }
}

/// A project's findings until they are printed: as they are remembered (the bytes the
/// cache file holds, or the bytes this run will save), so a run over many projects holds
/// a few bytes of each, not every project's findings and report at once.
enum Held {
    /// Record `index` of the remembered findings.
    Remembered(usize),
    /// The project's position in `Found::sources`, whose observation holds its bytes.
    Fresh,
    /// Findings whose paths cannot be kept as bytes.
    Whole(Box<ProjectFindings>),
}

/// Every project's findings, in discovery's order, and their totals.
struct Found {
    remembered: RememberedRows,
    held: Vec<Held>,
    /// What each project's findings were derived from, for remembering them; empty when
    /// every project's findings were remembered.
    sources: Vec<RowSource>,
    summary: CheckSummary,
}

impl Found {
    /// The projects' findings, in order, each read back from its bytes as it comes.
    fn iter(&self) -> impl Iterator<Item = ProjectFindings> + '_ {
        self.held.iter().enumerate().filter_map(|(position, held)| {
            let bytes = match held {
                Held::Remembered(index) => self.remembered.payload(*index)?,
                Held::Fresh => match self.sources.get(position)? {
                    RowSource::Fresh(seen) => &seen.payload,
                    RowSource::Kept(index) => self.remembered.payload(*index)?,
                },
                Held::Whole(findings) => return Some((**findings).clone()),
            };
            ProjectFindings::decode(bytes)
        })
    }

    fn len(&self) -> usize {
        self.held.len()
    }
}

/// A freshly checked project as `project_findings` keeps it.
struct Checked {
    held: Held,
    source: RowSource,
    summary: CheckSummary,
}

/// Every project's findings, in discovery's order: those remembered whose inputs are
/// unchanged, the rest checked (and remembered for the next run).
fn project_findings(context: &Context, path: Option<&Path>) -> Result<Found> {
    // A demo copy's root is new on every run: caches of it would only pile up.
    // A PATH's findings are remembered apart from the root's, by where it really is.
    let target = match path {
        Some(path) => {
            let given = context.resolve(path);
            std::fs::canonicalize(&given).unwrap_or(given)
        }
        None => context.root.clone(),
    };
    let key = (!context.is_demo())
        .then(|| check_key(context, path.map(|_| target.as_path())))
        .flatten();
    let remembered = RememberedRows::open_default_of(Remembered::Checks, &target, key);
    let checked = remembered.check();
    if path.is_none() && checked.all_hold() {
        let mut summary = CheckSummary::default();
        let whole = (0..remembered.len()).all(|i| {
            remembered
                .payload(i)
                .and_then(ProjectFindings::decode)
                .map(|kept| summary.add(&kept.findings))
                .is_some()
        });
        if whole {
            return Ok(Found {
                held: (0..remembered.len()).map(Held::Remembered).collect(),
                remembered,
                sources: Vec::new(),
                summary,
            });
        }
    }
    // A PATH's folders are remembered apart from the root's, as its findings are: a hook
    // running `check .` on every commit then stats each folder instead of reading it.
    let listings = if context.is_demo() {
        Listings::in_memory_as_of(&context.clock)
    } else {
        let mut listings = Listings::open_default(&target, &context.clock);
        if !remembered.is_empty() {
            listings.keep_unvisited();
        }
        listings
    };
    // Discovery's answer is reused only for the whole root: a PATH is looked at anew.
    let reused = (path.is_none() && checked.discovery_holds)
        .then(|| remembered.projects())
        .flatten();
    let discovered = reused.is_none();
    let projects = match (reused, path) {
        (Some(projects), _) => projects,
        (None, None) => context.projects_under_root_with(&listings)?,
        (None, Some(path)) => context.projects_at_and_below(path, &listings)?,
    };
    let indices = remembered.indices();
    let mut summary = CheckSummary::default();
    let mut held: Vec<Option<Held>> = Vec::with_capacity(projects.len());
    let mut sources: Vec<Option<RowSource>> = Vec::with_capacity(projects.len());
    let mut wanted = Vec::new();
    for (position, project) in projects.iter().enumerate() {
        let kept = os_bytes(project.path.as_os_str())
            .and_then(|path| indices.get(path).copied())
            .filter(|&index| checked.row_holds(index))
            .and_then(|index| Some((index, ProjectFindings::decode(remembered.payload(index)?)?)))
            .filter(|(_, kept)| kept.name == project.name);
        match kept {
            Some((index, kept)) => {
                summary.add(&kept.findings);
                held.push(Some(Held::Remembered(index)));
                sources.push(Some(RowSource::Kept(index)));
            }
            None => {
                held.push(None);
                sources.push(None);
                wanted.push(position);
            }
        }
    }
    drop(indices);
    // Cloned only when some projects are remembered: a cold run checks them all.
    let some_projects: Vec<Project>;
    let wanted_projects = if wanted.len() == projects.len() {
        &projects[..]
    } else {
        some_projects = wanted.iter().map(|&i| projects[i].clone()).collect();
        &some_projects[..]
    };
    let cache = if wanted.is_empty() {
        TokenCache::in_memory(context.encoding)
    } else {
        TokenCache::open_default(context.encoding)
    };
    let history_memo = match crate::core::io::paths::cache_dir() {
        Some(folder) if !wanted.is_empty() => HistoryMemo::in_folder(&folder, listings.started()),
        _ => HistoryMemo::off(),
    };
    let mut analyzer = Analyzer::new(&context.config, context.encoding, cache, &context.clock)
        .for_one_run()
        .with_listings(&listings)
        .remembering_history(std::sync::Arc::new(history_memo));
    let today = context.clock.today();
    let started = listings.started();
    let home = crate::core::io::paths::home_dir();
    let outside = OutsideFolders::of_home(home.as_deref());
    let history = context.history.as_ref();
    // Findings on lines written past an agent's cut, from the banks as listed for the
    // analysis, on the thread analysing the project.
    let past_cut = |project: &Project, banks: &[Bank]| {
        let banks: Vec<&Bank> = banks.iter().collect();
        let mut past_cut = entries_past_cut(project, &banks, history, today);
        context.config.apply_rule_levels(&mut past_cut);
        past_cut
    };
    // A project's report becomes its findings, their bytes and what they were derived
    // from on the thread that analysed it, and is dropped there.
    let finish = |_: &Project, analyzed: Analyzed<Vec<Finding>>| {
        let Analyzed {
            report,
            beside: past_cut,
            reads,
            repository,
        } = analyzed;
        let mut findings = ProjectFindings {
            name: report.name.clone(),
            path: report.path.clone(),
            findings: report.findings.clone(),
        };
        findings.findings.extend(past_cut);
        let mut counted = CheckSummary::default();
        counted.add(&findings.findings);
        let payload = findings
            .encode()
            .filter(|bytes| ProjectFindings::decode(bytes).is_some());
        let checkable = payload.is_some();
        let mut seen = observed(
            &findings,
            &report,
            reads,
            repository,
            (started, &outside),
            payload.unwrap_or_default(),
        );
        seen.checkable &= checkable;
        Checked {
            held: if checkable {
                Held::Fresh
            } else {
                Held::Whole(Box::new(findings))
            },
            source: RowSource::Fresh(seen),
            summary: counted,
        }
    };
    let analyzed = analyzer.analyze_many(wanted_projects, Depth::findings(), &past_cut, &finish);
    for (checked, &index) in analyzed.into_iter().zip(&wanted) {
        summary.error += checked.summary.error;
        summary.warning += checked.summary.warning;
        summary.info += checked.summary.info;
        held[index] = Some(checked.held);
        sources[index] = Some(checked.source);
    }
    if let Some(problem) = analyzer.finish() {
        eprintln(format!(
            "mbank: token cache not saved ({problem}); figures are right, the next run recounts"
        ));
    }
    // Its token figures, one for every file of the root, are saved: what is saved next
    // reuses their memory.
    drop(analyzer);
    let sources: Vec<RowSource> = sources.into_iter().flatten().collect();
    let held: Vec<Held> = held.into_iter().flatten().collect();
    if sources.len() == projects.len()
        && let Err(problem) = remembered.save(&projects, &sources, &listings, discovered)
    {
        eprintln(format!(
            "mbank: findings not remembered ({problem}); they are right, the next run checks again"
        ));
    }
    if !context.is_demo()
        && let Err(problem) = listings.save()
    {
        eprintln(format!(
            "mbank: listing cache not saved ({problem}); the next run reads every folder"
        ));
    }
    std::mem::forget(listings);
    std::mem::forget(projects);
    Ok(Found {
        remembered,
        held,
        sources,
        summary,
    })
}

/// The projects of a [`Found`] as JSON serializes a list, each read back as it is
/// written.
struct Projects<'a>(&'a Found);

impl Serialize for Projects<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter())
    }
}

pub fn run(
    context: &Context,
    path: Option<&Path>,
    format: CheckFormat,
    fail_on: SeverityArg,
    verbose: bool,
) -> Result<u8> {
    let fail_on = severity(fail_on);
    let found = project_findings(context, path)?;
    let summary = &found.summary;
    let failed = summary.fails(fail_on);
    if format == CheckFormat::Sarif {
        // Relative to where the check runs: in CI, the repository's top.
        let base = std::env::current_dir().unwrap_or_else(|_| context.root.clone());
        json::write(&sarif::log(found.iter().flat_map(|p| p.findings), &base))?;
    } else if format == CheckFormat::Json {
        json::write(&CheckOutput {
            schema: "mbank.check/1",
            encoding: context.encoding,
            fail_on,
            failed,
            summary,
            projects: Projects(&found),
        })?;
    } else {
        let style = &context.style;
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        let mut print = |line: Line| writeln_to(&mut out, line);
        for project in found.iter() {
            if project.findings.is_empty() {
                print(line![style.bold(&project.name), " ", style.green("clean")]);
                continue;
            }
            print(line![
                style.bold(&project.name),
                " ",
                style.dim(&project.path)
            ]);
            for f in &project.findings {
                let place = match f.line {
                    Some(line) => format!("{}:{line}", short(&f.file, &project.path)),
                    None => short(&f.file, &project.path),
                };
                print(line![
                    "  ",
                    pad(style.status(f.severity.id()), 7),
                    " ",
                    format!("{place}: {}", f.message),
                    " ",
                    style.dim(format!("[{}]", f.code))
                ]);
                if verbose {
                    for detail in &f.details {
                        print(style.dim(format!("            {detail}")).into());
                    }
                } else if !f.details.is_empty() {
                    print(
                        style
                            .dim(format!(
                                "            ({} in --verbose and --json)",
                                counted(f.details.len(), "detail")
                            ))
                            .into(),
                    );
                }
            }
        }
        print(line![
            format!(
                "{}, {}, {} info · {} · failing on {} and above: ",
                counted(summary.error, "error"),
                counted(summary.warning, "warning"),
                summary.info,
                counted(found.len(), "project"),
                fail_on,
            ),
            if failed {
                style.red("FAIL")
            } else {
                style.green("ok")
            }
        ]);
        // A closed pipe ends the output, as every line's write does.
        let _ = std::io::Write::flush(&mut out);
    }
    Ok(if failed { EXIT_FINDINGS } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lies_in_agrees_with_path_starts_with() {
        let folders = ["/a/b", "/a/b/", "/a/./b", "a/b", "/", ""];
        let paths = [
            "/a/b", "/a/b/", "/a/b/c", "/a/b//c", "/a/bc", "/a/b-2/c", "/a/./b/c", "/a", "a/b/c",
            "/x/a/b", "",
        ];
        for folder in folders {
            for path in paths {
                let (path, folder) = (Path::new(path), Path::new(folder));
                assert_eq!(
                    lies_in(path, folder),
                    path.starts_with(folder),
                    "{path:?} in {folder:?}"
                );
            }
        }
    }
}
