use super::elision::is_placeholder_line;
use super::secrets::DOCUMENTED_EXAMPLE_KEYS;
use super::*;

const LOG: &str = "# Decision Log\n\n\
## Decision: Use Postgres\n- **Date**: 2025-01-02\n- **Status**: Accepted\n\n\
## Decision: Cache in Redis\n- **Date**: 2025-02-03\n- **Status**: Accepted\n";

fn replace(old: Option<&str>, new: &str, role: Role) -> Result<(), Refusal> {
    check_replace(
        &GuardPolicy::default(),
        "decisionLog.md",
        Path::new("decisionLog.md"),
        role,
        old,
        new,
    )
}

#[test]
fn versions_are_stable_hex_and_differ_by_content() {
    // Pinned: the value agents keep between calls must never change across releases.
    assert_eq!(content_version(""), "e3b0c44298fc1c149afbf4c8996fb924");
    assert_eq!(content_version("a").len(), 32);
    assert_ne!(content_version("a"), content_version("b"));
}

#[test]
fn version_check_refuses_a_stale_version_and_names_the_current_one() {
    let policy = GuardPolicy::default();
    let v = content_version("old");
    check_version(&policy, "f.md", Some("old"), Some(&v)).unwrap();
    check_version(&policy, "f.md", Some("old"), None).unwrap();
    check_version(&policy, "f.md", None, Some("whatever")).unwrap();
    let err = check_version(&policy, "f.md", Some("new"), Some(&v)).unwrap_err();
    assert_eq!(err.rule(), "version");
    assert!(err.message().contains(&content_version("new")));
    let strict = GuardPolicy {
        require_expected_version: true,
        ..policy
    };
    let err = check_version(&strict, "f.md", Some("x"), None).unwrap_err();
    assert_eq!(err.rule(), "missing-version");
}

#[test]
fn dropping_or_retitling_a_decision_is_refused_by_name() {
    let dropped = "# Decision Log\n\n## Decision: Use Postgres\n- **Date**: 2025-01-02\n";
    let err = replace(Some(LOG), dropped, Role::Decisions).unwrap_err();
    assert_eq!(err.rule(), "append-only");
    let message = err.message();
    assert!(
        message.contains("\"Cache in Redis\" (2025-02-03, line 7)"),
        "{message}"
    );
    assert!(!message.contains("Use Postgres"), "{message}");

    let retitled = LOG.replace("Cache in Redis", "Cache in Valkey");
    let err = replace(Some(LOG), &retitled, Role::Decisions).unwrap_err();
    assert!(err.message().contains("Cache in Redis"));

    // Appending and re-marking are fine; so is the same text for a non-log file.
    let appended = format!("{LOG}\n## Decision: Queue jobs\n- **Date**: 2025-03-04\n");
    replace(Some(LOG), &appended, Role::Decisions).unwrap();
    let superseded = LOG.replacen("Accepted", "Superseded by Decision: Queue jobs", 1);
    replace(Some(LOG), &superseded, Role::Decisions).unwrap();
    replace(Some(LOG), dropped, Role::Active).unwrap();

    let err = check_removal(
        &GuardPolicy::default(),
        "decisionLog.md",
        Path::new("decisionLog.md"),
        Role::Decisions,
        LOG,
    )
    .unwrap_err();
    assert_eq!(err.rule(), "append-only");
    let relaxed = GuardPolicy {
        append_only: false,
        ..GuardPolicy::default()
    };
    check_replace(
        &relaxed,
        "decisionLog.md",
        Path::new("decisionLog.md"),
        Role::Decisions,
        Some(LOG),
        dropped,
    )
    .unwrap();
}

#[test]
fn secrets_are_refused_by_line_and_kind_outside_private_blocks() {
    let key = "AKIAIOSFODNN7REALKEY";
    let new = format!("# Tech\n\n- deploy with {key}\n");
    let err = replace(None, &new, Role::Tech).unwrap_err();
    assert_eq!(err.rule(), "secret");
    let message = err.message();
    assert!(message.contains("line 3"), "{message}");
    assert!(
        !message.contains(key),
        "the secret is never echoed: {message}"
    );

    let private = format!("# Tech\n\n<private>\n- deploy with {key}\n</private>\n");
    replace(None, &private, Role::Tech).unwrap();
    let private_file = format!("---\nprivate: true\n---\n- {key}\n");
    replace(None, &private_file, Role::Tech).unwrap();
    // The file as it will be is judged: a secret already there is refused too.
    let err = replace(Some(&new), &format!("{new}- more\n"), Role::Tech).unwrap_err();
    assert!(err.message().contains("line 3"), "{}", err.message());
    let err = check_added(&GuardPolicy::default(), "progress.md", &new).unwrap_err();
    assert_eq!(err.rule(), "secret");
    let relaxed = GuardPolicy {
        secrets: false,
        ..GuardPolicy::default()
    };
    check_added(&relaxed, "progress.md", &new).unwrap();
}

#[test]
fn elision_lines_are_recognised() {
    let is_elision_line = is_placeholder_line;
    for yes in [
        "[... rest unchanged ...]",
        "[...rest of file unchanged...]",
        "// existing content",
        "// ... existing code ...",
        "<!-- rest of the document remains unchanged -->",
        "(previous entries unchanged)",
        "... existing decisions ...",
        "# ... existing sections ...",
        "[Content omitted for brevity]",
        "/* remaining sections unchanged */",
        "…rest unchanged…",
    ] {
        assert!(is_elision_line(yes), "{yes}");
    }
    for no in [
        "## Existing entries",
        "- API unchanged since v2",
        "The rest is history.",
        "[Decision Title]",
        "// TODO: add tests",
        "",
    ] {
        assert!(!is_elision_line(no), "{no}");
    }
}

#[test]
fn a_placeholder_replacing_most_of_a_file_is_refused() {
    let old =
        "# Active Context\n\n## Current Focus\n- auth\n\n## Recent Changes\n- a\n- b\n- c\n- d\n";
    let lazy = "# Active Context\n\n## Current Focus\n- payments\n\n[... rest unchanged ...]\n";
    let err = replace(Some(old), lazy, Role::Active).unwrap_err();
    assert_eq!(err.rule(), "elision");
    let message = err.message();
    assert!(message.contains("line 6"), "{message}");
    assert!(
        message.contains("keeps only 2 of the file's 8 lines"),
        "{message}"
    );
    // Quoting the placeholder while keeping the file is fine, as is creating with it.
    let quoted = format!(
        "{old}- agents sometimes write \"[... rest unchanged ...]\"\n[... rest unchanged ...]\n"
    );
    replace(Some(old), &quoted, Role::Active).unwrap();
    replace(None, lazy, Role::Active).unwrap();
    let relaxed = GuardPolicy {
        elisions: false,
        ..GuardPolicy::default()
    };
    check_replace(
        &relaxed,
        "activeContext.md",
        Path::new("activeContext.md"),
        Role::Active,
        Some(old),
        lazy,
    )
    .unwrap();
}

#[test]
fn policy_reads_from_toml_with_defaults() {
    let policy: GuardPolicy = toml::from_str("secrets = false").unwrap();
    assert!(!policy.secrets && policy.append_only && policy.elisions);
    assert!(toml::from_str::<GuardPolicy>("secret = false").is_err());
}

const KEY: &str = "AKIAZ7QWERTYUIOPASDF";

fn tech(old: Option<&str>, new: &str) -> Result<(), Refusal> {
    check_replace(
        &GuardPolicy::default(),
        "techContext.md",
        Path::new("techContext.md"),
        Role::Tech,
        old,
        new,
    )
}

fn secret_kinds(result: Result<(), Refusal>) -> Vec<String> {
    match result {
        Err(Refusal::Secret { hits, .. }) => hits.into_iter().map(|h| h.kind).collect(),
        other => panic!("expected a secret refusal, got {other:?}"),
    }
}

#[test]
fn a_key_unwrapped_from_a_private_block_by_a_second_write_is_refused() {
    let wrapped = format!("# Tech\n\n<private>\n- deploy key {KEY}\n</private>\n");
    tech(None, &wrapped).unwrap();
    let unwrapped = format!("# Tech\n\n- deploy key {KEY}\n");
    let err = tech(Some(&wrapped), &unwrapped).unwrap_err();
    assert_eq!(err.rule(), "secret");
    assert!(
        err.message().contains("line 3 (an AWS access key id)"),
        "{err}"
    );
    assert!(!err.message().contains(KEY), "{err}");
    // Only the closing tag removed: the block no longer protects anything.
    let unclosed = format!("# Tech\n\n<private>\n- deploy key {KEY}\n");
    assert_eq!(
        err.rule(),
        tech(Some(&wrapped), &unclosed).unwrap_err().rule()
    );
}

#[test]
fn a_key_under_an_unclosed_private_tag_is_refused() {
    let new = format!("# Tech\n<private>\n- {KEY}\n");
    assert_eq!(secret_kinds(tech(None, &new)), vec!["an AWS access key id"]);
}

#[test]
fn a_private_tag_inside_a_code_fence_protects_nothing() {
    let fenced = format!("# Tech\n```\n<private>\n{KEY}\n</private>\n```\n");
    assert_eq!(
        secret_kinds(tech(None, &fenced)),
        vec!["an AWS access key id"]
    );
    let tilde = format!("# Tech\n~~~\n<private>\n~~~\n{KEY}\n</private>\n");
    // The opening tag is in code, so the closing one closes nothing.
    assert_eq!(
        secret_kinds(tech(None, &tilde)),
        vec!["an AWS access key id"]
    );
}

#[test]
fn keys_glued_to_words_are_refused() {
    for line in [
        format!("awskey{KEY}"),
        format!("{KEY}_prod"),
        "export GH=tokenghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789x".to_string(),
    ] {
        let err = tech(None, &format!("# Tech\n{line}\n")).unwrap_err();
        assert_eq!(err.rule(), "secret", "{line}");
    }
}

#[test]
fn prefixed_secret_assignments_and_google_keys_are_refused() {
    for (line, kind) in [
        (
            "AWS_SECRET_ACCESS_KEY=Zx8yW7vU6tS5rQ4pO3nM2lK1jI0hG9fE8dC7bA6z",
            "a password or key assignment",
        ),
        ("DB_PASSWORD=hunter2hunter2", "a password or key assignment"),
        (
            "MY_API_TOKEN=a1b2c3d4e5f6g7h8",
            "a password or key assignment",
        ),
        (
            "maps key AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
            "a Google API key",
        ),
    ] {
        let kinds = secret_kinds(tech(None, &format!("# Tech\n{line}\n")));
        assert_eq!(kinds, vec![kind], "{line}");
    }
}

#[test]
fn aws_documented_example_keys_are_allowed_and_listed() {
    assert!(DOCUMENTED_EXAMPLE_KEYS.contains(&"AKIAIOSFODNN7EXAMPLE"));
    assert!(DOCUMENTED_EXAMPLE_KEYS.contains(&"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"));
    let docs = "# Tech\nAWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n\
AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n";
    tech(None, docs).unwrap();
    // One character off the documented key is a key like any other.
    let off = docs.replace("EXAMPLEKEY", "EXAMPLEKEX");
    assert_eq!(
        secret_kinds(tech(None, &off)),
        vec!["a password or key assignment"]
    );
}

#[test]
fn ordinary_memory_prose_passes_the_secret_rule() {
    let prose = "# Tech\n\n- password reset flow sends a one-time link\n\
- token counting uses o200k_base (max_tokens: 4096)\n\
- DATABASE_URL=\"file:../app.db\"\n- the secret to fast CI: cache the registry\n\
- task-management-system-overview-2024 lives in docs/\n";
    tech(None, prose).unwrap();
}

#[test]
fn secrets_in_names_titles_and_briefs_are_refused_without_echoing_them() {
    let policy = GuardPolicy::default();
    for (part, text) in [
        (TextPart::FileName, format!("notes-{KEY}.md")),
        (TextPart::Title, format!("Deploy with {KEY}")),
    ] {
        let err = check_text(&policy, "a new file", part, &text).unwrap_err();
        assert_eq!(err.rule(), "secret");
        assert!(err.withholds_name());
        assert!(!err.message().contains(KEY), "{err}");
        assert!(err.message().contains("an AWS access key id"), "{err}");
        check_text(&policy, "a new file", part, "decision-log.md").unwrap();
    }
    let brief = format!("A todo API.\nStaging key {KEY}\n");
    let err = check_text(&policy, "projectBrief.md", TextPart::Brief, &brief).unwrap_err();
    assert!(err.message().contains("the project brief holds"), "{err}");
    assert!(err.message().contains("line 2"), "{err}");
    assert!(!err.withholds_name());
    let private = format!("A todo API.\n<private>\n{KEY}\n</private>\n");
    check_text(&policy, "projectBrief.md", TextPart::Brief, &private).unwrap();
    let relaxed = GuardPolicy {
        secrets: false,
        ..policy
    };
    check_text(&relaxed, "a new file", TextPart::FileName, KEY).unwrap();
}

/// A thirteen-line active context.
const ACTIVE: &str = "# Active Context\n\n## Current Focus\n- auth rewrite\n- token refresh\n\n\
## Recent Changes\n- moved sessions to Redis\n- added rate limits\n- fixed login redirect\n\n\
## Next Steps\n- audit logging\n- admin panel\n- docs\n";

#[test]
fn placeholders_worded_any_way_that_replace_most_of_a_file_are_refused() {
    for placeholder in [
        "<!-- unchanged -->",
        "[rest of file]",
        "[... 200 lines omitted ...]",
        "[Keep existing content]",
        "// rest of code",
        "[...]",
        "[truncated]",
        "<snip>",
    ] {
        let lazy = format!("# Active Context\n\n## Current Focus\n- payments\n\n{placeholder}\n");
        let err = check_replace(
            &GuardPolicy::default(),
            "activeContext.md",
            Path::new("activeContext.md"),
            Role::Active,
            Some(ACTIVE),
            &lazy,
        )
        .unwrap_err();
        assert_eq!(err.rule(), "elision", "{placeholder}");
        assert!(
            err.message()
                .contains("keeps only 2 of the file's 12 lines"),
            "{err}"
        );
    }
}

#[test]
fn a_genuine_rewrite_and_unchanged_bracketed_prose_pass_the_elision_rule() {
    let active = |old: &str, new: &str| {
        check_replace(
            &GuardPolicy::default(),
            "activeContext.md",
            Path::new("activeContext.md"),
            Role::Active,
            Some(old),
            new,
        )
    };
    active(ACTIVE, "# Active Context\n\n## Current Focus\n- payments\n").unwrap();
    let quoting = format!("{ACTIVE}\n## Style\n[...]\n- marks a cut in a quotation\n");
    active(
        &quoting,
        "# Active Context\n\n## Style\n[...]\n- marks a cut in a quotation\n",
    )
    .unwrap();
}

fn decisions(old: &str, new: &str) -> Result<(), Refusal> {
    check_replace(
        &GuardPolicy::default(),
        "decisionLog.md",
        Path::new("decisionLog.md"),
        Role::Decisions,
        Some(old),
        new,
    )
}

fn lost_titles(result: Result<(), Refusal>) -> Vec<String> {
    match result {
        Err(Refusal::AppendOnly { lost, .. }) => lost.into_iter().map(|e| e.title).collect(),
        other => panic!("expected an append-only refusal, got {other:?}"),
    }
}

#[test]
fn hiding_decision_entries_is_refused_like_dropping_them() {
    let body = LOG.trim_start_matches("# Decision Log\n");
    let both = vec!["Use Postgres".to_string(), "Cache in Redis".to_string()];
    let private = format!("# Decision Log\n<private>\n{body}</private>\n");
    assert_eq!(lost_titles(decisions(LOG, &private)), both);
    let flagged = format!("---\nprivate: true\n---\n{LOG}");
    assert_eq!(lost_titles(decisions(LOG, &flagged)), both);
    let commented = format!("# Decision Log\n<!--\n{body}-->\n");
    assert_eq!(lost_titles(decisions(LOG, &commented)), both);
    let folded =
        format!("# Decision Log\n\n<details>\n<summary>old</summary>\n{body}\n</details>\n");
    assert_eq!(lost_titles(decisions(LOG, &folded)), both);
    // Appending after a comment or a closed `<details>` hides nothing.
    let appended = format!(
        "{LOG}\n<!-- reviewed in March -->\n<details>\n<summary>notes</summary>\n\nx\n\n</details>\n\n\
## Decision: Queue jobs\n- **Date**: 2025-03-04\n"
    );
    decisions(LOG, &appended).unwrap();
}

/// A clean log over the size from which its clean text is kept.
fn big_log() -> String {
    let mut log = String::from("# Decision Log\n");
    let mut i = 0;
    while log.len() < CLEAN_TEXT_MIN_BYTES + 1024 {
        log.push_str(&format!(
            "\n## Decision: entry {i}\n- **Date**: 2025-01-01 10:00:00\n- **Selected**: append\n"
        ));
        i += 1;
    }
    log
}

#[test]
fn an_appended_batch_gets_the_verdict_of_the_whole_result() {
    let policy = GuardPolicy::default();
    let texts = CleanTexts::default();
    let path = Path::new("/guard-test/appended/decisionLog.md");
    let log = big_log();
    check_appended_result(&policy, &texts, "decisionLog.md", path, None, &log).unwrap();
    let clean = format!("{log}\n## Decision: next\n- **Selected**: ship\n");
    check_appended_result(&policy, &texts, "decisionLog.md", path, Some(&log), &clean).unwrap();
    // A key in the extension is refused on the file's own line number.
    let leaked = format!("{clean}\n## Decision: deploy\n- **Context**: key{KEY}\n");
    let whole = check_result(&policy, "decisionLog.md", &leaked).unwrap_err();
    let appended = check_appended_result(
        &policy,
        &texts,
        "decisionLog.md",
        path,
        Some(&clean),
        &leaked,
    )
    .unwrap_err();
    assert_eq!(appended, whole);
    assert!(
        whole
            .message()
            .contains(&format!("line {}", leaked.lines().count()))
    );
}

#[test]
fn an_append_to_a_log_changed_behind_the_guards_back_is_scanned_whole() {
    let policy = GuardPolicy::default();
    let texts = CleanTexts::default();
    let path = Path::new("/guard-test/changed/decisionLog.md");
    let log = big_log();
    check_appended_result(&policy, &texts, "decisionLog.md", path, None, &log).unwrap();
    // Someone else put a key in the log; the next append is refused for it.
    let edited = log.replacen("- **Selected**: append", &format!("- {KEY}"), 1);
    let appended = format!("{edited}\n## Decision: next\n");
    let err = check_appended_result(
        &policy,
        &texts,
        "decisionLog.md",
        path,
        Some(&edited),
        &appended,
    )
    .unwrap_err();
    assert!(
        err.message().contains("line 5 (an AWS access key id)"),
        "{err}"
    );
}

#[test]
fn private_tags_in_an_appended_part_are_judged_in_the_whole_file() {
    let policy = GuardPolicy::default();
    let texts = CleanTexts::default();
    let path = Path::new("/guard-test/fenced/notes.md");
    // Clean, but ends inside an open code fence.
    let log = format!("{}\n```\n", big_log());
    check_appended_result(&policy, &texts, "notes.md", path, None, &log).unwrap();
    // Alone, these tags would hide the key; in the file they sit in code.
    let appended = format!("{log}<private>\n{KEY}\n</private>\n");
    let err = check_appended_result(&policy, &texts, "notes.md", path, Some(&log), &appended)
        .unwrap_err();
    assert_eq!(
        err,
        check_result(&policy, "notes.md", &appended).unwrap_err()
    );
}

#[test]
fn one_check_chooses_its_rules_by_what_the_write_does() {
    let guard = Guard::new(GuardPolicy {
        require_expected_version: true,
        ..GuardPolicy::default()
    });
    let path = Path::new("decisionLog.md");
    let shrunk = "# Decision Log\n";
    let check_kind = |kind| {
        check(
            &guard,
            &GuardRequest {
                file: "decisionLog.md",
                kind,
            },
        )
    };
    // An agent's replace is judged by its version first, then by the content rules.
    let replace = |version| GuardKind::Replace {
        path,
        role: Role::Decisions,
        old: Some(LOG),
        new: shrunk,
        version,
        person_made: None,
    };
    let missing = check_kind(replace(ExpectedVersion::Sent(None))).unwrap_err();
    assert_eq!(missing.rule(), "missing-version");
    let stale = check_kind(replace(ExpectedVersion::Sent(Some("0123")))).unwrap_err();
    assert_eq!(stale.rule(), "version");
    let current = content_version(LOG);
    let dropped = check_kind(replace(ExpectedVersion::Sent(Some(&current)))).unwrap_err();
    assert_eq!(dropped.rule(), "append-only");
    // A person's accepted change is not asked for a version, only the content rules.
    let accepted = check_kind(replace(ExpectedVersion::Unchecked)).unwrap_err();
    assert_eq!(accepted.rule(), "append-only");
    let removed = check_kind(GuardKind::Remove {
        path,
        role: Role::Decisions,
        old: LOG,
        version: ExpectedVersion::Unchecked,
    })
    .unwrap_err();
    assert_eq!(removed.rule(), "append-only");
    // An entry and a name are judged alone, for secrets only.
    let (added, named) = (format!("- key {KEY}\n"), format!("{KEY}.md"));
    let entry = check_kind(GuardKind::Entry { added: &added }).unwrap_err();
    assert!(entry.message().contains("the entry holds"), "{entry}");
    let name = check_kind(GuardKind::Text {
        part: TextPart::FileName,
        text: &named,
    })
    .unwrap_err();
    assert!(name.withholds_name());
    check_kind(GuardKind::Whole { text: shrunk }).unwrap();
    let appended = format!("{LOG}\n## Decision: Queue jobs\n");
    check_kind(GuardKind::Append {
        path,
        old: Some(LOG),
        new: &appended,
    })
    .unwrap();
}
