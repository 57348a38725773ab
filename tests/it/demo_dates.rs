//! The demo tells the same story on every day it is opened: `mbank --demo` run with its
//! clock moved to fixed days (`MBANK_NOW`), and with the real one, lists every project in
//! the same state, and checks find the same things. A due date in a bank (billing-roo's
//! pending milestone) is no evidence of a write, before or after its day.
use crate::common;

use common::{Sandbox, run_command};
use serde_json::Value;

/// The days the demo is opened on, besides today.
const DAYS: [&str; 4] = [
    "2026-11-25T12:00:00Z",
    "2026-11-28T12:00:00Z",
    "2027-06-01T12:00:00Z",
    "2030-01-01T12:00:00Z",
];

/// `mbank --demo ARGS --json`, its clock at `now` (the real one for `None`).
fn demo_json(sandbox: &Sandbox, args: &[&str], now: Option<&str>) -> Value {
    let mut command = sandbox.mbank();
    command.arg("--demo").args(args).arg("--json");
    if let Some(now) = now {
        command.env(mbank::core::clock::NOW_VARIABLE, now);
    }
    let run = run_command(command);
    run.expect_code(0);
    run.json()
}

/// Seconds since the Unix epoch of an RFC 3339 instant (the real now for `None`).
fn epoch(now: Option<&str>) -> i64 {
    now.map_or_else(
        || chrono::Utc::now().timestamp(),
        |now| {
            chrono::DateTime::parse_from_rfc3339(now)
                .unwrap()
                .timestamp()
        },
    )
}

/// Each project's state as `list` shows it: name, files, tokens, session, budget,
/// staleness, whole days since its last write, and how many findings of each severity.
fn states(sandbox: &Sandbox, now: Option<&str>) -> Vec<String> {
    let list = demo_json(sandbox, &["list"], now);
    list["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|project| {
            let days = (epoch(now) - project["last_write"].as_i64().unwrap()) / 86_400;
            format!(
                "{} {} files {} tokens {} {} {} {days} d {}",
                project["name"].as_str().unwrap(),
                project["files"],
                project["loaded_tokens"],
                project["agent"],
                project["budget"],
                project["staleness"],
                project["findings"]
            )
        })
        .collect()
}

/// Every finding `check` reports, as code and file, with the days since the demo was
/// written in its message moved back.
fn findings(sandbox: &Sandbox, now: Option<&str>) -> Vec<String> {
    let check = demo_json(sandbox, &["check"], now);
    let moved = match now {
        Some(now) => {
            let clock = mbank::core::clock::Clock::fixed(
                chrono::DateTime::parse_from_rfc3339(now)
                    .unwrap()
                    .to_utc()
                    .into(),
            );
            mbank::core::demo::days_moved(&clock).unwrap()
        }
        None => mbank::core::demo::days_moved(&mbank::core::clock::Clock::system()).unwrap(),
    };
    let mut found: Vec<String> = check["projects"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|project| {
            let path = project["path"].as_str().unwrap().to_string();
            let name = project["name"].as_str().unwrap().to_string();
            project["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |finding| {
                    // The copy's folder is new on every run: files are named within it.
                    let text = format!(
                        "{name} {} {} {} {}",
                        finding["severity"], finding["code"], finding["file"], finding["message"]
                    )
                    .replace(&path, "");
                    mbank::core::demo::shift_dates(&text, -moved)
                })
        })
        .collect();
    found.sort();
    found
}

/// What `seen` sees of the demo on its own day, after checking it sees the same on every
/// later day and today.
fn same_on_every_day(seen: impl Fn(&Sandbox, Option<&str>) -> Vec<String>) -> Vec<String> {
    let sandbox = Sandbox::new();
    let written = seen(&sandbox, Some(DAYS[0]));
    for day in &DAYS[1..] {
        assert_eq!(seen(&sandbox, Some(day)), written, "opened on {day}");
    }
    assert_eq!(seen(&sandbox, None), written, "opened today");
    written
}

#[test]
fn the_demo_lists_the_same_states_on_every_day() {
    let written = same_on_every_day(states);
    let story: Vec<&str> = written.iter().map(String::as_str).collect();
    // The story it was built to tell. The budget is the session's against its bank's own
    // total (weather-api's over-budget file is check's finding on that file); a bank whose
    // rule is borrowed, or with no total, has none.
    for (project, state) in [
        ("billing-roo", "null \"aging\""),
        ("weather-api", "\"ok\" \"stale\""),
        ("mobile-app", "\"ok\" \"fresh\""),
        ("storefront", "null \"fresh\""),
    ] {
        assert!(
            story
                .iter()
                .any(|row| row.starts_with(project) && row.contains(state)),
            "{project} is not {state}: {story:#?}"
        );
    }
}

#[test]
fn the_demo_checks_find_the_same_things_on_every_day() {
    assert!(!same_on_every_day(findings).is_empty());
}

#[test]
fn a_clock_that_is_no_time_is_refused_plainly() {
    let sandbox = Sandbox::new();
    let mut command = sandbox.mbank();
    command
        .args(["--demo", "list"])
        .env(mbank::core::clock::NOW_VARIABLE, "next tuesday");
    let run = run_command(command);
    run.expect_code(2);
    assert!(run.stderr.contains("MBANK_NOW"), "{}", run.stderr);
}
