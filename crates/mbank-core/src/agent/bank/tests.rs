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
