use super::*;
use crate::guard::Refusal;

/// An agent's write as the servers make one: no history, the default rules.
fn agent() -> WriteContext {
    WriteContext::new(
        "mcp:test",
        crate::clock::Clock::fixed_on(2026, 4, 1).unwrap(),
    )
}

fn now() -> NaiveDateTime {
    NaiveDateTime::parse_from_str("2026-04-01 12:00:00", "%Y-%m-%d %H:%M:%S").unwrap()
}

fn bank() -> (tempfile::TempDir, MarkdownBank) {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    initialize(&agent(), &project, Some("A todo API")).unwrap();
    let bank = MarkdownBank::open(&project).unwrap();
    (dir, bank)
}

#[test]
fn open_needs_a_memory_bank() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        MarkdownBank::open(dir.path()),
        Err(AgentError::NotInitialized { .. })
    ));
    let (_dir, bank) = bank();
    assert_eq!(bank.format, Format::Cline);
    let names: Vec<String> = bank.list().into_iter().map(|f| f.name).collect();
    assert!(names.contains(&"projectBrief.md".to_string()), "{names:?}");
}

#[test]
fn reads_write_and_versions() {
    let (_dir, bank) = bank();
    let policy = agent();
    let read = bank.read("activeContext.md").unwrap();
    assert_eq!(read.version, guard::content_version(&read.content));
    let err = bank.read("missing.md").unwrap_err();
    assert_eq!(err.code(), "file_not_found");
    let err = bank
        .write(
            &policy,
            "activeContext.md",
            "# x\n",
            WriteMode::Create,
            None,
        )
        .unwrap_err();
    assert_eq!(err.code(), "file_exists");
    let err = bank
        .write(&policy, "new.md", "# x\n", WriteMode::Update, None)
        .unwrap_err();
    assert_eq!(err.code(), "file_not_found");
    let created = bank
        .write(&policy, "new.md", "# New\n", WriteMode::Create, None)
        .unwrap();
    assert!(created.created);
    let updated = bank
        .write(
            &policy,
            "new.md",
            "# Newer\n",
            WriteMode::Update,
            Some(&created.version),
        )
        .unwrap();
    assert_eq!(bank.read("new.md").unwrap().version, updated.version);
    // The version read before the last write is stale now.
    let err = bank
        .write(
            &policy,
            "new.md",
            "# Mine\n",
            WriteMode::Update,
            Some(&created.version),
        )
        .unwrap_err();
    assert_eq!(err.code(), "version_conflict");
    assert!(err.to_string().contains(&updated.version), "{err}");
    assert_eq!(bank.read("new.md").unwrap().content, "# Newer\n");
}

#[test]
fn archive_and_existing_sub_folders_take_new_files_and_deeper_ones_do_not() {
    let (_dir, bank) = bank();
    let policy = agent();
    // A refused first write into archive/ leaves no folder behind.
    let refused = bank.write(
        &policy,
        "archive/progress-2025.md",
        "# Done\nDB_PASSWORD=hunter2hunter2\n",
        WriteMode::Create,
        None,
    );
    assert_eq!(refused.unwrap_err().code(), "secret_detected");
    assert!(!bank.root.join("archive").exists());
    let report = bank
        .write(
            &policy,
            "archive/progress-2025.md",
            "# Done in 2025\n- Cart\n",
            WriteMode::Create,
            None,
        )
        .unwrap();
    assert!(report.created);
    assert_eq!(
        fs::read_to_string(bank.root.join("archive/progress-2025.md")).unwrap(),
        "# Done in 2025\n- Cart\n"
    );
    assert_eq!(
        bank.read("archive/progress-2025.md").unwrap().content,
        "# Done in 2025\n- Cart\n"
    );
    // Another sub-folder is written when it exists, never created.
    let missing = bank.write(&policy, "notes/api.md", "# API\n", WriteMode::Upsert, None);
    let err = missing.unwrap_err();
    assert_eq!(err.code(), "forbidden_path");
    assert!(err.to_string().contains("does not exist"), "{err}");
    assert!(!bank.root.join("notes").exists());
    fs::create_dir(bank.root.join("notes")).unwrap();
    bank.write(&policy, "notes/api.md", "# API\n", WriteMode::Upsert, None)
        .unwrap();
    let deep = bank.write(
        &policy,
        "notes/v1/api.md",
        "# API\n",
        WriteMode::Upsert,
        None,
    );
    assert_eq!(deep.unwrap_err().code(), "forbidden_path");
}

#[cfg(unix)]
#[test]
fn an_archive_link_out_of_the_bank_is_refused_not_followed() {
    let (dir, bank) = bank();
    let outside = dir.path().join("outside");
    fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, bank.root.join("archive")).unwrap();
    let err = bank
        .write(&agent(), "archive/x.md", "# X\n", WriteMode::Create, None)
        .unwrap_err();
    assert_eq!(err.code(), "forbidden_path", "{err}");
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
}

#[test]
fn names_are_confined_and_markdown_only() {
    let (_dir, bank) = bank();
    for (name, code) in [
        ("../../etc/passwd", "forbidden_path"),
        ("/etc/passwd.md", "forbidden_path"),
        ("../other/x.md", "forbidden_path"),
        ("script.sh", "invalid_format"),
        ("notes/deep/new.md", "forbidden_path"),
    ] {
        let err = bank.read(name).unwrap_err();
        assert_eq!(err.code(), code, "{name}: {err}");
        let err = bank
            .write(&agent(), name, "x", WriteMode::Upsert, None)
            .unwrap_err();
        assert_eq!(err.code(), code, "{name}: {err}");
    }
}

#[cfg(unix)]
#[test]
fn links_are_refused_without_naming_where_they_lead() {
    use std::os::unix::fs::symlink;
    let (dir, bank) = bank();
    let policy = agent();
    let outside = dir.path().join("elsewhere-private");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("victim.md"), "outside\n").unwrap();
    symlink(outside.join("victim.md"), bank.root.join("victim.md")).unwrap();
    // A link that stays inside the bank is not followed either.
    symlink("progress.md", bank.root.join("inner.md")).unwrap();
    let check = |err: AgentError, name: &str| {
        assert_eq!(err.code(), "forbidden_path", "{err}");
        let message = err.to_string();
        assert!(message.contains(name), "{message}");
        assert!(message.contains("symbolic link"), "{message}");
        assert!(!message.contains("elsewhere-private"), "{message}");
        assert!(!message.contains(dir.path().to_str().unwrap()), "{message}");
    };
    for name in ["victim.md", "inner.md"] {
        check(bank.read(name).unwrap_err(), name);
        let write = bank.write(&policy, name, "# mine\n", WriteMode::Upsert, None);
        check(write.unwrap_err(), name);
        check(bank.delete(&policy, name, None).unwrap_err(), name);
    }
    assert_eq!(
        fs::read_to_string(outside.join("victim.md")).unwrap(),
        "outside\n"
    );
    assert!(fs::symlink_metadata(bank.root.join("inner.md")).is_ok());

    // The bank folder itself swapped for a link after the bank was opened.
    fs::rename(&bank.root, dir.path().join("moved")).unwrap();
    symlink(&outside, &bank.root).unwrap();
    check(bank.read("victim.md").unwrap_err(), "memory-bank");
    let write = bank.write(&policy, "new.md", "# new\n", WriteMode::Create, None);
    check(write.unwrap_err(), "memory-bank");
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 1);
}

#[test]
fn decision_log_stays_append_only_and_logged_decisions_parse() {
    let (_dir, bank) = bank();
    let policy = agent();
    let decision = |title: &str| NewDecision {
        title: title.into(),
        context: "c".into(),
        decision: "d".into(),
        ..NewDecision::default()
    };
    bank.log_decision(&policy, now(), &decision("Use JWT"))
        .unwrap();
    bank.log_decision(&policy, now(), &decision("Use Postgres"))
        .unwrap();
    let log = bank.read("decisionLog.md").unwrap();
    let titles: Vec<String> = decisions::parse_log(Path::new("decisionLog.md"), &log.content)
        .into_iter()
        .map(|d| d.title)
        .collect();
    assert_eq!(titles, ["Use JWT", "Use Postgres"]);
    let shrunk = "# Decision Log\n\n## Decision: Use JWT\n- **Date**: 2026-04-01 12:00:00\n";
    let err = bank
        .write(&policy, "decisionLog.md", shrunk, WriteMode::Update, None)
        .unwrap_err();
    assert_eq!(err.code(), "append_only_violation");
    assert!(err.to_string().contains("Use Postgres"), "{err}");
    let err = bank.delete(&policy, "decisionLog.md", None).unwrap_err();
    assert!(matches!(
        err,
        AgentError::Refused(Refusal::AppendOnly { .. })
    ));
    let err = bank
        .log_decision(&policy, now(), &decision("[Decision title]"))
        .unwrap_err();
    assert_eq!(err.code(), "invalid_request");
    let err = bank
        .log_decision(&policy, now(), &decision(" "))
        .unwrap_err();
    assert_eq!(err.code(), "invalid_request");
}

#[test]
fn progress_and_active_context_entries() {
    let (_dir, bank) = bank();
    let policy = agent();
    let reports = bank
        .track_progress(&policy, now(), "Implementation", "Feature X", true)
        .unwrap();
    assert_eq!(reports.len(), 2);
    let progress = bank.read("progress.md").unwrap().content;
    assert!(
        progress
            .contains("## Update History\n- [2026-04-01 12:00:00] - Implementation: Feature X\n"),
        "{progress}"
    );
    bank.update_active_context(
        &policy,
        now(),
        Some(&["Auth".to_string()]),
        None,
        Some(&["Ship".to_string()]),
    )
    .unwrap();
    let active = bank.read("activeContext.md").unwrap().content;
    assert!(active.contains("## Ongoing Tasks\n- Auth\n"), "{active}");
    assert!(active.contains("## Next Steps\n- Ship\n"), "{active}");
    assert!(active.contains("- [2026-04-01 12:00:00] - Implementation: Feature X"));
    assert!(active.contains("Active context updated: tasks, next steps"));
    let err = bank
        .update_active_context(&policy, now(), None, None, None)
        .unwrap_err();
    assert_eq!(err.code(), "invalid_request");
    let err = bank
        .track_progress(
            &policy,
            now(),
            "Deploy",
            "token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB",
            false,
        )
        .unwrap_err();
    assert_eq!(err.code(), "secret_detected");
}

/// A file of `bytes` bytes of list items, as a long-lived log grows.
fn long_file(heading: &str, bytes: usize) -> String {
    let mut text = format!("{heading}\n\n");
    while text.len() + 32 < bytes {
        text.push_str("- an entry of a long-lived log\n");
    }
    text.push_str(&"x".repeat(bytes - text.len() - 1));
    text.push('\n');
    text
}

fn assert_too_large(err: &AgentError, file: &str) {
    assert_eq!(err.code(), "file_too_large", "{err}");
    let message = err.to_string();
    assert!(message.contains(file), "{message}");
    assert!(message.contains("16777216-byte"), "{message}");
}

#[test]
fn no_tool_leaves_a_file_past_the_read_limit() {
    let limit = guard::MAX_FILE_BYTES as usize;
    let (_dir, bank) = bank();
    let policy = agent();
    let huge = long_file("# Huge", limit + 1024 * 1024);
    let err = bank
        .write(&policy, "huge.md", &huge, WriteMode::Create, None)
        .unwrap_err();
    assert_too_large(&err, "huge.md");
    assert!(!bank.root.join("huge.md").exists());
    let err = bank
        .write(&policy, "activeContext.md", &huge, WriteMode::Upsert, None)
        .unwrap_err();
    assert_too_large(&err, "activeContext.md");

    // Appends that push a file just under the limit past it.
    let cases: [(&str, &str); 3] = [
        ("progress.md", "# Progress\n\n## Update History"),
        ("decisionLog.md", "# Decision Log"),
        (
            "activeContext.md",
            "# Active Context\n\n## Current Session Notes",
        ),
    ];
    for (name, heading) in cases {
        let text = long_file(heading, limit - 10);
        fs::write(bank.root.join(name), &text).unwrap();
        let err = match name {
            "progress.md" => bank
                .track_progress(&policy, now(), "Implementation", "Feature X", false)
                .map(|_| ())
                .unwrap_err(),
            "decisionLog.md" => bank
                .log_decision(
                    &policy,
                    now(),
                    &NewDecision {
                        title: "Use SQLite".into(),
                        context: "One file".into(),
                        decision: "SQLite".into(),
                        alternatives: Vec::new(),
                        consequences: Vec::new(),
                    },
                )
                .map(|_| ())
                .unwrap_err(),
            _ => bank
                .update_active_context(&policy, now(), Some(&["Auth".to_string()]), None, None)
                .map(|_| ())
                .unwrap_err(),
        };
        assert_too_large(&err, name);
        assert_eq!(fs::read_to_string(bank.root.join(name)).unwrap(), text);
        // Still a file every agent reads.
        assert_eq!(bank.read(name).unwrap().content, text);
    }
}

#[test]
fn staged_and_accepted_writes_past_the_read_limit_are_refused() {
    let limit = guard::MAX_FILE_BYTES as usize;
    let (dir, bank) = bank();
    let store = ProposalStore::new(dir.path().join("data"));
    let staged = bank.clone().with_staging(Some(store.clone()));
    let huge = long_file("# Huge", limit + 1);
    let err = staged
        .write(&agent(), "activeContext.md", &huge, WriteMode::Update, None)
        .unwrap_err();
    assert_too_large(&err, "activeContext.md");
    assert!(store.list().unwrap().is_empty());
    // How an accepted proposal lands: the result is judged, whatever was staged.
    let before = fs::read_to_string(bank.root.join("activeContext.md")).unwrap();
    let err = bank
        .apply_change(&agent().for_writer("accept"), "activeContext.md", |_| {
            Ok::<_, AgentError>(Some(huge.clone()))
        })
        .unwrap_err();
    assert_too_large(&err, "activeContext.md");
    assert_eq!(
        fs::read_to_string(bank.root.join("activeContext.md")).unwrap(),
        before
    );
}

/// An agent's write as the servers make one, with the history kept in `data`.
fn agent_with_history(data: &Path) -> WriteContext {
    let clock = crate::clock::Clock::fixed_on(2026, 4, 1).unwrap();
    WriteContext::new("mcp:memory_bank_update", clock).with_history(Some(
        crate::history::History::new(data, crate::history::Retention::default(), clock),
    ))
}

/// A file of `lines` distinct items under a heading, as a person wrote it.
fn person_file(lines: usize) -> String {
    let mut text = String::from("# Active Context\n\n## Current Focus\n");
    for i in 0..lines {
        text.push_str(&format!("- item {i}: the login form validates input\n"));
    }
    text
}

/// Each write drops about 30 % of the items left and says the rest is unchanged, as the
/// elision by steps does: `None` when every write of `writes` went through, else the
/// refusal and how many went through before it.
fn shrink_by_steps(
    bank: &MarkdownBank,
    ctx: &WriteContext,
    writes: usize,
) -> Option<(usize, AgentError)> {
    for step in 0..writes {
        let current = bank.read("activeContext.md").unwrap();
        let items: Vec<&str> = current
            .content
            .lines()
            .filter(|l| l.starts_with("- item"))
            .collect();
        let keep = items.len() * 7 / 10;
        let mut text = String::from("# Active Context\n\n## Current Focus\n");
        for item in &items[..keep] {
            text.push_str(item);
            text.push('\n');
        }
        text.push_str("\n// ... rest unchanged\n");
        if let Err(err) = bank.write(
            ctx,
            "activeContext.md",
            &text,
            WriteMode::Update,
            Some(&current.version),
        ) {
            return Some((step, err));
        }
    }
    None
}

#[test]
fn agents_cannot_shrink_a_persons_file_by_steps() {
    let (dir, bank) = bank();
    let ctx = agent_with_history(&dir.path().join("data"));
    let path = bank.root.join("activeContext.md");
    let original = person_file(40);
    fs::write(&path, &original).unwrap();

    let (done, err) = shrink_by_steps(&bank, &ctx, 12).expect("a write is refused");
    assert_eq!(err.code(), "shrinkage_detected", "{err}");
    assert!(done >= 1, "the first steps pass one by one: {err}");
    let message = err.to_string();
    assert!(message.contains("activeContext.md"), "{message}");
    assert!(message.contains("50%"), "{message}");
    // What is on disk keeps at least half of the person's lines.
    let left = fs::read_to_string(&path).unwrap();
    let kept = original
        .lines()
        .filter(|l| !l.is_empty() && left.lines().any(|k| k == *l))
        .count();
    let lines = original.lines().filter(|l| !l.is_empty()).count();
    assert!(kept * 2 >= lines, "{kept} of {lines}: {left}");

    // Once the person marks the file reviewed, the refused step goes through.
    let data = dir.path().join("data");
    crate::review::mark_reviewed_texts(
        &bank.project.path,
        &data,
        &[("memory-bank/activeContext.md", left.as_str())],
    );
    assert!(shrink_by_steps(&bank, &ctx, 1).is_none());

    // The person's own write is never refused by the rule, and becomes the new baseline.
    let small = person_file(10);
    bank.apply_change(&ctx.for_writer("accept"), "activeContext.md", |_| {
        Ok::<_, AgentError>(Some(small.clone()))
    })
    .unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), small);
    let current = bank.read("activeContext.md").unwrap();
    bank.write(
        &ctx,
        "activeContext.md",
        &person_file(8),
        WriteMode::Update,
        Some(&current.version),
    )
    .unwrap();
}

#[test]
fn the_shrinkage_share_is_configurable() {
    let data_of = |dir: &tempfile::TempDir| dir.path().join("data");
    let share = |percent: u8| guard::GuardPolicy {
        max_shrink_percent: percent,
        ..guard::GuardPolicy::default()
    };
    // Off (100 %): every step goes through, as before.
    let (off_dir, off_bank) = bank();
    let off = agent_with_history(&data_of(&off_dir)).with_policy(share(100));
    fs::write(off_bank.root.join("activeContext.md"), person_file(40)).unwrap();
    assert!(shrink_by_steps(&off_bank, &off, 12).is_none());
    // A stricter share refuses sooner than the default.
    let (strict_dir, strict_bank) = bank();
    let strict = agent_with_history(&data_of(&strict_dir)).with_policy(share(35));
    fs::write(strict_bank.root.join("activeContext.md"), person_file(40)).unwrap();
    let (strict_done, _) = shrink_by_steps(&strict_bank, &strict, 12).unwrap();
    let (default_dir, default_bank) = bank();
    let default = agent_with_history(&data_of(&default_dir));
    fs::write(default_bank.root.join("activeContext.md"), person_file(40)).unwrap();
    let (default_done, _) = shrink_by_steps(&default_bank, &default, 12).unwrap();
    assert!(strict_done < default_done, "{strict_done} {default_done}");
    // Without a history nothing tells who made the file: the rule cannot judge.
    let (_plain_dir, plain_bank) = bank();
    fs::write(plain_bank.root.join("activeContext.md"), person_file(40)).unwrap();
    assert!(shrink_by_steps(&plain_bank, &agent(), 12).is_none());
}
