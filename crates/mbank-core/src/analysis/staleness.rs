//! Staleness judged against the project's own activity, not the wall clock alone: a file
//! is stale when the project moved on without it (newer commits, newer sibling files,
//! newer dates written in sibling files), each role at its own cadence.
use std::collections::{BTreeMap, HashMap};
use std::time::SystemTime;

use chrono::{DateTime, NaiveDate};
use serde::Serialize;

use crate::formats;
use crate::model::{Bank, LoadKind, Role};

/// Ordered from best to worst: a project's worst file names it. Unknown sits above
/// fresh (it cannot be vouched for) and below a known aging or stale file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Freshness {
    Fresh,
    /// Cannot be judged: the evidence it would be judged by is missing (git refused the
    /// repository, or nothing dates the file at all).
    Unknown,
    Aging,
    Stale,
}

impl Freshness {
    pub fn id(self) -> &'static str {
        match self {
            Freshness::Fresh => "fresh",
            Freshness::Unknown => "unknown",
            Freshness::Aging => "aging",
            Freshness::Stale => "stale",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Staleness {
    pub level: Freshness,
    /// In words: "14 commits since last update", "older than progress.md by 9 days".
    pub reason: String,
}

/// What is known about when one file last changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FileActivity {
    /// Last commit touching the file when it is clean in git, else its modification time.
    pub updated: Option<SystemTime>,
    /// The newest date written in the file ("Last updated: 2026-11-02", a dated entry).
    pub content_date: Option<NaiveDate>,
    /// Commits in the repository since the file last changed.
    pub commits_since: Option<u32>,
    /// `updated` is the time of the commit the file is unchanged since.
    pub committed: bool,
}

/// What the project as a whole did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ProjectActivity {
    pub latest_commit: Option<SystemTime>,
}

/// Cadences and thresholds, after configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StalenessSettings {
    pub cadence_days: BTreeMap<Role, u32>,
    /// Commits since the last change that make a volatile file stale.
    pub staleness_commits: u32,
}

impl Default for StalenessSettings {
    fn default() -> Self {
        let cadence_days = [
            // "Every working session" (the Cline memory bank spec): one day of activity is allowed.
            (Role::Active, 1),
            (Role::Progress, 1),
            (Role::Decisions, 30),
            (Role::Patterns, 30),
            (Role::Tech, 30),
            (Role::Product, 90),
            (Role::Glossary, 90),
            (Role::Instructions, 90),
            (Role::Rules, 90),
            // "Rarely (project inception)".
            (Role::Brief, 180),
        ]
        .into_iter()
        .collect();
        StalenessSettings {
            cadence_days,
            staleness_commits: 10,
        }
    }
}

impl StalenessSettings {
    /// Applies `[staleness]` from config.toml, then a bank's own `staleness_commits`.
    pub(crate) fn with_overrides(
        mut self,
        config: &crate::config::StalenessConfig,
        bank_commits: Option<u32>,
    ) -> Self {
        for (role, days) in &config.cadence_days {
            if let Some(role) = Role::from_id(role) {
                self.cadence_days.insert(role, *days);
            }
        }
        if let Some(n) = bank_commits.or(config.staleness_commits) {
            self.staleness_commits = n.max(1);
        }
        self
    }
}

const DAY: u64 = 86_400;

fn days_between(older: SystemTime, newer: SystemTime) -> u64 {
    newer
        .duration_since(older)
        .map(|d| d.as_secs() / DAY)
        .unwrap_or(0)
}

fn level_for_gap(gap_days: u64, cadence: u32) -> Freshness {
    let cadence = u64::from(cadence.max(1));
    if gap_days <= cadence {
        Freshness::Fresh
    } else if gap_days <= cadence * 3 {
        Freshness::Aging
    } else {
        Freshness::Stale
    }
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The newest file and the runner-up, as (time, index in the bank).
type NewestTwo = [Option<(SystemTime, usize)>; 2];

/// The newest and the runner-up (time, index) of the files that count as a file's
/// siblings (loaded, on disk, in the same bank as `same_bank` says), found once for the
/// whole bank: a file's newest sibling is the newest, or the runner-up when it is the
/// newest itself. Ties go to the later file. (Searching all files per file made a bank
/// of 100,000 Infinity memories take 40 s.)
fn newest_two_siblings(
    bank: &Bank,
    activity: &[FileActivity],
    same_bank: impl Fn(usize) -> bool,
) -> NewestTwo {
    let mut top: NewestTwo = [None, None];
    for (index, (file, activity)) in bank.files.iter().zip(activity).enumerate() {
        if file.load == LoadKind::Never || file.is_virtual() || !same_bank(index) {
            continue;
        }
        let Some(time) = activity.updated else {
            continue;
        };
        if top[0].is_none_or(|(newest, _)| time >= newest) {
            top[1] = top[0];
            top[0] = Some((time, index));
        } else if top[1].is_none_or(|(runner_up, _)| time >= runner_up) {
            top[1] = Some((time, index));
        }
    }
    top
}

/// Judges every file of a bank; `None` for roles with no cadence (sessions, ADRs,
/// configuration, unknown extras) and for files never loaded.
pub(crate) fn assess_bank(
    bank: &Bank,
    activity: &[FileActivity],
    project: &ProjectActivity,
    settings: &StalenessSettings,
) -> Vec<Option<Staleness>> {
    // Where the format keeps one bank per group (a git branch), siblings are the files
    // of the same group; the newest two are found once per group.
    let separate = formats::rules(bank.format).groups_are_separate_banks(bank);
    let group_of = |index: usize| -> Option<&str> {
        if separate {
            bank.files[index].group.as_deref()
        } else {
            None
        }
    };
    let mut newest_by_group: HashMap<Option<&str>, NewestTwo> = HashMap::new();
    for index in 0..bank.files.len() {
        let group = group_of(index);
        newest_by_group
            .entry(group)
            .or_insert_with(|| newest_two_siblings(bank, activity, |i| group_of(i) == group));
    }
    bank.files
        .iter()
        .enumerate()
        .map(|(index, file)| {
            let cadence = *settings.cadence_days.get(&file.role)?;
            // An empty file says nothing that can go stale (its emptiness is a finding of
            // its own).
            if file.load == LoadKind::Never || file.size == 0 {
                return None;
            }
            let mine = activity.get(index).copied().unwrap_or_default();
            if mine == FileActivity::default() {
                // Nothing says when this file changed: "fresh" would be a guess.
                return Some(Staleness {
                    level: Freshness::Unknown,
                    reason: "no time known for it (no modification time, no date written in it, no git history)".into(),
                });
            }
            let mut verdicts: Vec<(Freshness, u64, String)> = Vec::new();

            // A decision log grows only when a decision is made: siblings written later
            // (the active context of every session) say nothing about it.
            let judged_by_siblings = !file.role.is_decision_log();
            // Sibling files of the bank that changed later.
            if let Some(updated) = mine.updated {
                let newest_two = newest_by_group
                    .get(&group_of(index))
                    .copied()
                    .unwrap_or_default();
                let newest_sibling = match newest_two {
                    [Some((_, newest)), runner_up] if newest == index => runner_up,
                    [newest, _] => newest,
                };
                if judged_by_siblings
                    && let Some((time, sibling)) =
                        newest_sibling.map(|(t, i)| (t, &bank.files[i]))
                {
                    let gap = days_between(updated, time);
                    if gap > 0 {
                        verdicts.push((
                            level_for_gap(gap, cadence),
                            gap,
                            format!("older than {} by {}", sibling.display, plural(gap, "day")),
                        ));
                    }
                }
                // For a file meant to change every session, the commits since it changed
                // measure the work done without it (below); the days those commits span
                // would count idle days too.
                let counted_by_commits = cadence <= 7 && mine.commits_since.is_some();
                if let Some(commit) = project.latest_commit.filter(|_| !counted_by_commits) {
                    let gap = days_between(updated, commit);
                    if gap > 0 {
                        verdicts.push((
                            level_for_gap(gap, cadence),
                            gap,
                            format!("older than the latest commit by {}", plural(gap, "day")),
                        ));
                    }
                }
            }
            // Dates written in the files, which survive copies and clones.
            if judged_by_siblings && let Some(date) = mine.content_date {
                let newest = bank
                    .files
                    .iter()
                    .zip(activity)
                    .enumerate()
                    .filter(|(i, (f, a))| {
                        *i != index
                            && f.load != LoadKind::Never
                            && group_of(*i) == group_of(index)
                            // Both unchanged since their commits: git's times (above) say
                            // which is older better than a date typed into either.
                            && !(mine.committed && a.committed)
                    })
                    .filter_map(|(_, (f, a))| a.content_date.map(|d| (d, f)))
                    .max_by_key(|(d, _)| *d);
                if let Some((other, sibling)) = newest {
                    let gap = (other - date).num_days().max(0) as u64;
                    if gap > 0 {
                        verdicts.push((
                            level_for_gap(gap, cadence),
                            gap,
                            format!(
                                "last dated {date}, {} before {}'s {other}",
                                plural(gap, "day"),
                                sibling.display
                            ),
                        ));
                    }
                }
            }
            // Commits since the last change, for files meant to change every session.
            if cadence <= 7
                && let Some(commits) = mine.commits_since
            {
                let threshold = settings.staleness_commits;
                let level = if commits >= threshold {
                    Freshness::Stale
                } else if commits * 2 >= threshold && commits > 0 {
                    Freshness::Aging
                } else {
                    Freshness::Fresh
                };
                if commits > 0 {
                    verdicts.push((
                        level,
                        u64::from(commits),
                        format!("{} since last update", plural(u64::from(commits), "commit")),
                    ));
                }
            }
            // Standing instructions hold for as long as what they say does: their age
            // makes them worth a look, never stale (the claims check says what the code
            // contradicts).
            if matches!(file.role, Role::Rules | Role::Instructions) {
                for verdict in &mut verdicts {
                    verdict.0 = verdict.0.min(Freshness::Aging);
                }
            }
            let worst = verdicts
                .into_iter()
                .max_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
            Some(match worst {
                Some((level, _, reason)) if level > Freshness::Fresh => Staleness { level, reason },
                Some((_, _, reason)) => Staleness {
                    level: Freshness::Fresh,
                    reason: format!("within its {}-day cadence ({reason})", cadence),
                },
                None => Staleness {
                    level: Freshness::Fresh,
                    reason: "no newer project activity".to_string(),
                },
            })
        })
        .collect()
}

/// Turns every verdict of a bank into "unknown", for `why` (git refused or failed on
/// the repository whose times the verdicts need); files with no cadence stay without.
pub(crate) fn unknown_because(verdicts: &mut [Option<Staleness>], why: &str) {
    for verdict in verdicts.iter_mut().flatten() {
        *verdict = Staleness {
            level: Freshness::Unknown,
            reason: format!("cannot be judged without git: {why}"),
        };
    }
}

pub use crate::markup::dates::{WrittenDates, impossible_dates};

/// Parses an RFC 3339 timestamp (Infinity's `updated_at`) into a system time.
pub(crate) fn parse_timestamp(text: &str) -> Option<SystemTime> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(SystemTime::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markup::dates::newest_date_in;
    use crate::model::{Format, MemoryFile};
    use std::path::PathBuf;
    use std::time::Duration;

    fn file(name: &str, role: Role) -> MemoryFile {
        MemoryFile {
            size: 100,
            ..MemoryFile::for_test(PathBuf::from(name), name, role)
        }
    }

    fn bank(files: Vec<MemoryFile>) -> Bank {
        Bank {
            format: Format::Cline,
            root: PathBuf::from("memory-bank"),
            files,
            project_id: None,
            modes: vec![],
            problems: vec![],
            outside: vec![],
            parsed_store: None,
        }
    }

    fn day(n: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + n * DAY)
    }

    #[test]
    fn the_newest_sibling_found_once_per_bank_is_the_one_a_search_per_file_finds() {
        // Every bank of up to 5 files with times from {none, day 1, day 2}, some never
        // loaded and some virtual: the precomputed pair must answer every file as a
        // search of all its siblings does (ties to the later file).
        for shape in 0..3u32.pow(5) * 4 {
            let (mut times, rest) = (shape % 243, shape / 243);
            let mut files = Vec::new();
            let mut activity = Vec::new();
            for i in 0..5 {
                let mut f = file(&format!("f{i}.md"), Role::Active);
                if i == rest % 5 {
                    f.load = LoadKind::Never;
                }
                if i == (rest + 2) % 5 && rest > 1 {
                    f.memory = Some(crate::model::VirtualMemory {
                        id: format!("m{i}"),
                        title: String::new(),
                        kind: "rules".into(),
                        created_at: None,
                        updated_at: None,
                    });
                }
                files.push(f);
                activity.push(FileActivity {
                    updated: (times % 3 > 0).then(|| day(u64::from(times % 3))),
                    ..Default::default()
                });
                times /= 3;
            }
            let b = bank(files);
            let top = newest_two_siblings(&b, &activity, |_| true);
            for index in 0..5 {
                let searched = b
                    .files
                    .iter()
                    .zip(&activity)
                    .enumerate()
                    .filter(|(i, (f, _))| {
                        *i != index && f.load != LoadKind::Never && !f.is_virtual()
                    })
                    .filter_map(|(i, (_, a))| a.updated.map(|t| (t, i)))
                    .max_by_key(|(t, _)| *t);
                let found = match top {
                    [Some((_, newest)), runner_up] if newest == index => runner_up,
                    [newest, _] => newest,
                };
                assert_eq!(found, searched, "bank shape {shape}, file {index}");
            }
        }
    }

    #[test]
    fn a_branch_bank_is_judged_against_its_own_branch_not_a_newer_branch() {
        let in_branch = |name: &str, role: Role, branch: &str| MemoryFile {
            group: Some(branch.to_string()),
            ..file(&format!("{branch}/{name}"), role)
        };
        let mut b = bank(vec![
            in_branch("activeContext.json", Role::Active, "feature-old"),
            in_branch("progress.json", Role::Progress, "feature-old"),
            in_branch("progress.json", Role::Progress, "feature-new"),
        ]);
        b.format = Format::MemoryBankMcp;
        b.root = PathBuf::from("docs/branch-memory-bank");
        let dated = |day: &str, when: u64| FileActivity {
            updated: Some(super::tests::day(when)),
            content_date: NaiveDate::parse_from_str(day, "%Y-%m-%d").ok(),
            commits_since: None,
            committed: false,
        };
        let activity = [
            dated("2025-03-17", 0),
            dated("2025-03-17", 0),
            dated("2025-04-16", 30),
        ];
        let verdicts = assess_bank(
            &b,
            &activity,
            &ProjectActivity::default(),
            &StalenessSettings::default(),
        );
        let old_active = verdicts[0].as_ref().unwrap();
        assert_eq!(old_active.level, Freshness::Fresh, "{}", old_active.reason);

        // The same files in one bank (not a branch folder) are judged together.
        b.root = PathBuf::from("memory-bank");
        let verdicts = assess_bank(
            &b,
            &activity,
            &ProjectActivity::default(),
            &StalenessSettings::default(),
        );
        let together = verdicts[0].as_ref().unwrap();
        assert!(together.level > Freshness::Fresh, "{}", together.reason);
        assert!(
            together.reason.contains("feature-new"),
            "{}",
            together.reason
        );
    }

    #[test]
    fn an_append_only_decision_log_is_not_stale_against_the_active_context() {
        let b = bank(vec![
            file("decisionLog.md", Role::Decisions),
            file("activeContext.md", Role::Active),
        ]);
        let activity = [
            FileActivity {
                updated: Some(day(0)),
                ..Default::default()
            },
            FileActivity {
                updated: Some(day(90)),
                ..Default::default()
            },
        ];
        let result = assess_bank(
            &b,
            &activity,
            &ProjectActivity::default(),
            &StalenessSettings::default(),
        );
        let log = result[0].clone().unwrap();
        assert_eq!(log.level, Freshness::Fresh, "{}", log.reason);
    }

    #[test]
    fn active_older_than_progress_is_stale_with_reason() {
        let b = bank(vec![
            file("activeContext.md", Role::Active),
            file("progress.md", Role::Progress),
        ]);
        let activity = [
            FileActivity {
                updated: Some(day(0)),
                ..Default::default()
            },
            FileActivity {
                updated: Some(day(9)),
                ..Default::default()
            },
        ];
        let result = assess_bank(
            &b,
            &activity,
            &ProjectActivity::default(),
            &StalenessSettings::default(),
        );
        let active = result[0].clone().unwrap();
        assert_eq!(active.level, Freshness::Stale);
        assert_eq!(active.reason, "older than progress.md by 9 days");
        assert_eq!(result[1].as_ref().unwrap().level, Freshness::Fresh);
    }

    #[test]
    fn commits_since_last_update_and_stable_roles_tolerate_more() {
        let b = bank(vec![
            file("activeContext.md", Role::Active),
            file("projectbrief.md", Role::Brief),
        ]);
        let activity = [
            FileActivity {
                updated: Some(day(10)),
                commits_since: Some(14),
                ..Default::default()
            },
            FileActivity {
                updated: Some(day(0)),
                commits_since: Some(40),
                ..Default::default()
            },
        ];
        let project = ProjectActivity {
            latest_commit: Some(day(10)),
        };
        let result = assess_bank(&b, &activity, &project, &StalenessSettings::default());
        let active = result[0].clone().unwrap();
        assert_eq!(
            (active.level, active.reason.as_str()),
            (Freshness::Stale, "14 commits since last update")
        );
        // Ten days behind is nothing for a brief updated "rarely".
        assert_eq!(result[1].as_ref().unwrap().level, Freshness::Fresh);
        let strict = StalenessSettings::default().with_overrides(&Default::default(), Some(20));
        let result = assess_bank(&b, &activity, &project, &strict);
        assert_eq!(result[0].as_ref().unwrap().level, Freshness::Aging);
    }

    #[test]
    fn a_session_file_is_judged_by_the_commits_since_it_changed_not_by_their_days() {
        let b = bank(vec![file("activeContext.md", Role::Active)]);
        let project = ProjectActivity {
            latest_commit: Some(day(4)),
        };
        let judged = |commits_since| {
            let activity = [FileActivity {
                updated: Some(day(0)),
                commits_since,
                ..Default::default()
            }];
            assess_bank(&b, &activity, &project, &StalenessSettings::default())[0]
                .clone()
                .map(|s| (s.level, s.reason))
        };
        // Two commits in four days: little work done without it.
        assert_eq!(
            judged(Some(2)).map(|j| j.0),
            Some(Freshness::Fresh),
            "{:?}",
            judged(Some(2))
        );
        assert_eq!(
            judged(Some(12)),
            Some((Freshness::Stale, "12 commits since last update".into()))
        );
        // Where git cannot count them, the days are what there is.
        assert_eq!(
            judged(None),
            Some((
                Freshness::Stale,
                "older than the latest commit by 4 days".into()
            ))
        );
    }

    #[test]
    fn an_empty_file_is_not_judged_for_staleness() {
        let empty = MemoryFile {
            size: 0,
            ..file("CLAUDE.local.md", Role::Instructions)
        };
        let b = bank(vec![empty, file("CLAUDE.md", Role::Instructions)]);
        let old = FileActivity {
            updated: Some(day(0)),
            ..Default::default()
        };
        let project = ProjectActivity {
            latest_commit: Some(day(300)),
        };
        let result = assess_bank(&b, &[old; 2], &project, &StalenessSettings::default());
        assert!(result[0].is_none());
        assert_eq!(result[1].as_ref().map(|s| s.level), Some(Freshness::Aging));
    }

    #[test]
    fn age_makes_standing_instructions_aging_never_stale() {
        let b = bank(vec![
            file("CLAUDE.md", Role::Instructions),
            file(".roo/rules/style.md", Role::Rules),
            file("systemPatterns.md", Role::Patterns),
        ]);
        let old = FileActivity {
            updated: Some(day(0)),
            commits_since: Some(300),
            ..Default::default()
        };
        let project = ProjectActivity {
            latest_commit: Some(day(447)),
        };
        let result = assess_bank(&b, &[old; 3], &project, &StalenessSettings::default());
        let levels: Vec<Freshness> = result.iter().map(|s| s.as_ref().unwrap().level).collect();
        assert_eq!(
            levels,
            [Freshness::Aging, Freshness::Aging, Freshness::Stale]
        );
        assert_eq!(
            result[0].as_ref().unwrap().reason,
            "older than the latest commit by 447 days"
        );
    }

    #[test]
    fn content_dates_judge_copies_whose_mtimes_are_equal() {
        let b = bank(vec![
            file("activeContext.md", Role::Active),
            file("progress.md", Role::Progress),
        ]);
        let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok();
        let activity = [
            FileActivity {
                updated: Some(day(1)),
                content_date: d("2026-09-02"),
                ..Default::default()
            },
            FileActivity {
                updated: Some(day(1)),
                content_date: d("2026-11-18"),
                ..Default::default()
            },
        ];
        let result = assess_bank(
            &b,
            &activity,
            &ProjectActivity::default(),
            &StalenessSettings::default(),
        );
        let active = result[0].clone().unwrap();
        assert_eq!(active.level, Freshness::Stale);
        assert_eq!(
            active.reason,
            "last dated 2026-09-02, 77 days before progress.md's 2026-11-18"
        );
        // Both unchanged since the same commit: git says they are as old as each other,
        // whatever year was typed into one.
        let committed = activity.map(|a| FileActivity {
            committed: true,
            ..a
        });
        let result = assess_bank(
            &b,
            &committed,
            &ProjectActivity::default(),
            &StalenessSettings::default(),
        );
        let active = result[0].clone().unwrap();
        assert_eq!(active.level, Freshness::Fresh, "{}", active.reason);
    }

    #[test]
    fn dates_in_a_siblings_gantt_chart_or_json_sample_do_not_make_a_file_stale() {
        let b = bank(vec![
            file("activeContext.md", Role::Active),
            file("progress.md", Role::Progress),
        ]);
        let today = NaiveDate::from_ymd_opt(2026, 11, 25).unwrap();
        let active = "# Active\nUpdated 2026-11-18\n";
        let judge = |progress: &str| {
            let activity = [active, progress].map(|text| FileActivity {
                updated: Some(day(1)),
                content_date: WrittenDates::of(text, today).newest_by(today),
                ..Default::default()
            });
            let result = assess_bank(
                &b,
                &activity,
                &ProjectActivity::default(),
                &StalenessSettings::default(),
            );
            result[0].clone().unwrap().level
        };
        let samples = "# Progress\nUpdated 2026-11-18\n\n\
            ```mermaid\ngantt\n    dateFormat YYYY-MM-DD\n    Ship :a1, 2026-11-24, 3d\n```\n\n\
            ````json\n{\"example\": \"2026-11-24\"}\n```\n````\n";
        assert_eq!(judge(samples), Freshness::Fresh);
        // The same day written as prose is the project moving on.
        assert_eq!(judge("# Progress\nShipped 2026-11-24\n"), Freshness::Stale);
    }

    #[test]
    fn written_dates_stay_right_on_later_days() {
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
        let text = "2026-01-02 then 2026-03-01 and plan 2026-12-24, 2027-01-01";
        let dates = WrittenDates::of(text, day(2026, 6, 1));
        assert_eq!(dates.newest_by(day(2026, 6, 1)), Some(day(2026, 3, 1)));
        assert_eq!(dates.newest_by(day(2026, 12, 25)), Some(day(2026, 12, 24)));
        let json = serde_json::to_string(&dates).unwrap();
        let back: WrittenDates = serde_json::from_str(&json).unwrap();
        assert_eq!(back, dates);
        assert_eq!(
            WrittenDates::of("none", day(2026, 1, 1)).newest_by(day(2026, 1, 1)),
            None
        );
    }

    #[test]
    fn impossible_dates_are_found_with_their_line() {
        let text = "# Log\n## 2026-30-05 release\nok 2026-05-30\n2025-02-30 and 1999-13-01\n";
        assert_eq!(
            impossible_dates(text),
            vec![(2, "2026-30-05".to_string()), (4, "2025-02-30".to_string())]
        );
        assert!(impossible_dates("2024-02-29 [YYYY-MM-DD]").is_empty());
    }

    #[test]
    fn a_file_nothing_dates_is_unknown_not_fresh() {
        let b = bank(vec![
            file("activeContext.md", Role::Active),
            file("progress.md", Role::Progress),
        ]);
        let activity = [
            FileActivity::default(),
            FileActivity {
                updated: Some(day(3)),
                ..Default::default()
            },
        ];
        let result = assess_bank(
            &b,
            &activity,
            &ProjectActivity::default(),
            &StalenessSettings::default(),
        );
        assert_eq!(result[0].as_ref().unwrap().level, Freshness::Unknown);
        // A file with a time and nothing newer around it is fresh.
        assert_eq!(result[1].as_ref().unwrap().level, Freshness::Fresh);
    }

    #[test]
    fn roles_without_cadence_are_not_judged() {
        let b = bank(vec![file("sessions/2026-01-01.md", Role::Session)]);
        let result = assess_bank(
            &b,
            &[FileActivity::default()],
            &ProjectActivity::default(),
            &StalenessSettings::default(),
        );
        assert_eq!(result, vec![None]);
    }

    #[test]
    fn newest_date_understands_three_spellings_and_ignores_future() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
        let text = "x 2025-01-05 y 2026/03/04 z 2/27/2026 future 2031-01-01 [YYYY-MM-DD]";
        assert_eq!(
            newest_date_in(text, today),
            NaiveDate::from_ymd_opt(2026, 3, 4)
        );
        assert_eq!(newest_date_in("no dates", today), None);
        assert_eq!(newest_date_in("2026-13-45", today), None);
    }
}
