use super::*;
use crate::model::MemoryFile;

fn leftover_temp_files(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".mbank-tmp"))
        .collect()
}

pub(crate) fn bank_with(format: Format, root: &Path, listed: &[&str]) -> Bank {
    Bank {
        format,
        root: root.to_path_buf(),
        files: listed
            .iter()
            .map(|rel| MemoryFile {
                path: root.join(rel),
                display: rel.to_string(),
                role: crate::model::Role::Other,
                layer: None,
                order: 0,
                group: None,
                load: crate::model::LoadKind::Startup,
                size: 0,
                modified: None,
                changed: None,
                inode: None,
                memory: None,
                unreadable: None,
            })
            .collect(),
        project_id: None,
        modes: Vec::new(),
        problems: Vec::new(),
        outside: Vec::new(),
        parsed_store: None,
    }
}

fn reason(err: CoreError) -> String {
    match err {
        CoreError::Confined { reason, .. } => reason,
        other => panic!("expected Confined, got {other}"),
    }
}

#[test]
fn names_are_checked_before_the_disk() {
    assert_eq!(
        validate_name("./progress.md").unwrap(),
        PathBuf::from("progress.md")
    );
    assert_eq!(
        validate_name("decisions/ADR-001-x.md").unwrap(),
        PathBuf::from("decisions/ADR-001-x.md")
    );
    assert!(reason(validate_name("").unwrap_err()).contains("empty"));
    assert!(reason(validate_name("   ").unwrap_err()).contains("empty"));
    assert!(reason(validate_name(".").unwrap_err()).contains("does not name"));
    assert!(reason(validate_name("a\0.md").unwrap_err()).contains("NUL"));
    assert!(reason(validate_name("/etc/passwd").unwrap_err()).contains("absolute"));
    assert!(reason(validate_name("../other/x.md").unwrap_err()).contains(".."));
    assert!(reason(validate_name("sub/../../x.md").unwrap_err()).contains(".."));
    assert!(reason(validate_name("..\\x.md").unwrap_err()).contains("backslash"));
}

#[test]
fn guarded_write_replaces_matching_content() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("progress.md");
    fs::write(&path, "old\n").unwrap();
    let outcome = write_guarded(&path, "new\n", Expected::text("old\n")).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
    assert!(!outcome.created);
    assert_eq!(outcome.bytes_written, 4);
    assert_eq!(outcome.now, Expected::text("new\n"));
    // The outcome chains into the next save without re-reading.
    write_guarded(&path, "newer\n", outcome.now).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "newer\n");
    assert!(leftover_temp_files(dir.path()).is_empty());
}

#[test]
fn conflicts_leave_the_target_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("activeContext.md");
    // Changed since read.
    fs::write(&path, "agent wrote this\n").unwrap();
    let err = write_guarded(&path, "mine\n", Expected::text("what I read\n")).unwrap_err();
    assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "agent wrote this\n");
    // Same size, different bytes.
    let err = write_guarded(&path, "mine\n", Expected::text("agent wrote thiS\n")).unwrap_err();
    assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
    // Created since read.
    let err = write_guarded(&path, "mine\n", Expected::Missing).unwrap_err();
    assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "agent wrote this\n");
    // Deleted since read.
    let gone = dir.path().join("gone.md");
    let err = write_guarded(&gone, "mine\n", Expected::text("x")).unwrap_err();
    assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
    assert!(!gone.exists());
    assert!(leftover_temp_files(dir.path()).is_empty());
}

#[test]
fn current_state_is_missing_or_the_bytes_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.md");
    assert_eq!(Expected::current(&path).unwrap(), Expected::Missing);
    fs::write(&path, "abc").unwrap();
    assert_eq!(Expected::current(&path).unwrap(), Expected::text("abc"));
    assert_ne!(Expected::text("abc"), Expected::text("abd"));
}

#[test]
fn text_read_without_its_bom_still_matches() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bom.md");
    fs::write(&path, b"\xEF\xBB\xBF# Title\n").unwrap();
    let read = crate::io::text::read_text(&path).unwrap();
    assert_eq!(read, "# Title\n");
    let outcome = write_guarded(&path, "# Title 2\n", Expected::text(&read)).unwrap();
    // The file keeps its byte-order mark, and the outcome says what is on disk.
    assert_eq!(fs::read(&path).unwrap(), b"\xEF\xBB\xBF# Title 2\n");
    assert_eq!(outcome.bytes_written, 13);
    assert_eq!(outcome.now, Expected::current(&path).unwrap());
    // A text that brings its own BOM gets no second one.
    write_guarded(&path, "\u{FEFF}# Title 3\n", outcome.now).unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"\xEF\xBB\xBF# Title 3\n");
    // A new file gets none.
    let fresh = dir.path().join("fresh.md");
    write_guarded(&fresh, "x\n", Expected::Missing).unwrap();
    assert_eq!(fs::read(&fresh).unwrap(), b"x\n");
}

#[cfg(unix)]
#[test]
fn private_files_stay_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("secrets.md");
    fs::write(&path, "a").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    write_guarded(&path, "b", Expected::text("a")).unwrap();
    let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o600, "mode {mode:o}");
}

#[cfg(unix)]
#[test]
fn owner_and_group_are_kept() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.md");
    fs::write(&path, "a").unwrap();
    let me = fs::metadata(&path).unwrap();
    // Root can give the file away and must give the saved file back; anyone else
    // keeps their own ownership, which the write must not lose either.
    let other = if me.uid() == 0 {
        std::os::unix::fs::chown(&path, Some(4321), Some(4322)).unwrap();
        (4321, 4322)
    } else {
        eprintln!(
            "not running as root: giving a file to another user is not possible, only own ownership is checked"
        );
        (me.uid(), me.gid())
    };
    let outcome = write_guarded(&path, "b", Expected::text("a")).unwrap();
    let after = fs::metadata(&path).unwrap();
    assert_eq!((after.uid(), after.gid()), other);
    assert!(outcome.ownership_kept);
    assert_eq!(fs::read(&path).unwrap(), b"b");
}

#[test]
fn temp_names_follow_the_write_pattern_only() {
    assert!(is_temp_name(".progress.md.AbC123xY.mbank-tmp"));
    assert!(is_temp_name(".a.b.md.00000000.mbank-tmp"));
    for other in [
        "progress.md.AbC123xY.mbank-tmp",
        ".progress.md.short.mbank-tmp",
        "..AbC123xY.mbank-tmp",
        ".progress.md.AbC-23xY.mbank-tmp",
        ".progress.md.AbC123xY.mbank-tmp.md",
        "notes.mbank-tmp",
    ] {
        assert!(!is_temp_name(other), "{other}");
    }
}

#[test]
fn stale_temp_files_are_removed_on_the_next_write_and_fresh_ones_kept() {
    let dir = tempfile::tempdir().unwrap();
    let old = std::time::SystemTime::now() - STALE_TEMP_AGE - std::time::Duration::from_secs(60);
    let make = |name: &str, stale: bool| {
        let path = dir.path().join(name);
        fs::write(&path, "orphan").unwrap();
        if stale {
            fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        path
    };
    let orphan = make(".progress.md.Xy12Ab34.mbank-tmp", true);
    let other_orphan = make(".notes.md.Qq99Zz00.mbank-tmp", true);
    // A write in progress in another process: recent, so kept.
    let in_progress = make(".progress.md.Fresh123.mbank-tmp", false);
    // Stale but not of mbank's pattern: someone else's file.
    let foreign = make("backup.mbank-tmp", true);
    let path = dir.path().join("progress.md");
    fs::write(&path, "a").unwrap();
    write_guarded(&path, "b", Expected::text("a")).unwrap();
    assert!(!orphan.exists() && !other_orphan.exists());
    assert!(in_progress.exists() && foreign.exists());
    assert_eq!(fs::read(&path).unwrap(), b"b");
    #[cfg(unix)]
    {
        // A link named like a temp file is not followed or removed.
        let target = make("kept.md", true);
        let link = dir.path().join(".kept.md.Link1234.mbank-tmp");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(
            remove_temp_files_older_than(dir.path(), std::time::Duration::ZERO),
            1
        );
        assert!(target.exists() && fs::symlink_metadata(&link).is_ok());
        assert!(!in_progress.exists());
    }
}

#[test]
fn creating_a_file_uses_missing_and_ordinary_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.md");
    let outcome = write_guarded(&path, "# New\n", Expected::Missing).unwrap();
    assert!(outcome.created);
    assert_eq!(fs::read_to_string(&path).unwrap(), "# New\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        // Not the 0600 of a raw temp file: group/other read follows the umask.
        assert_ne!(mode, 0o600, "mode {mode:o}");
    }
}

#[cfg(unix)]
#[test]
fn permissions_are_preserved_and_symlinks_kept() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.md");
    fs::write(&real, "a").unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.path().join("link.md");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    write_guarded(&link, "b", Expected::text("a")).unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&real).unwrap(), "b");
    let mode = fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
}

#[cfg(unix)]
#[test]
fn failed_write_leaves_target_and_no_temp_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("ro");
    fs::create_dir(&sub).unwrap();
    let path = sub.join("x.md");
    fs::write(&path, "keep me").unwrap();
    fs::set_permissions(&sub, fs::Permissions::from_mode(0o500)).unwrap();
    let result = write_guarded(&path, "lost?", Expected::text("keep me"));
    fs::set_permissions(&sub, fs::Permissions::from_mode(0o700)).unwrap();
    match result {
        Err(err) => {
            assert!(matches!(err, CoreError::Io { .. }), "{err}");
            assert_eq!(fs::read(&path).unwrap(), b"keep me");
            assert!(leftover_temp_files(&sub).is_empty());
        }
        // Root ignores folder permissions; the race test covers cleanup for root.
        Ok(_) => eprintln!("running as root: read-only folder not enforced, skipped"),
    }
}

#[test]
fn a_change_during_the_write_is_caught_before_the_rename() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("progress.md");
    fs::write(&path, "read\n").unwrap();
    let err = write_guarded_with_hook(&path, "mine\n", Expected::text("read\n"), &mut |p| {
        assert_eq!(leftover_temp_files(dir.path()).len(), 1);
        fs::write(p, "agent\n").unwrap();
    })
    .unwrap_err();
    assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
    assert_eq!(fs::read(&path).unwrap(), b"agent\n");
    assert!(leftover_temp_files(dir.path()).is_empty());

    // Creating: the no-clobber rename refuses a file that appeared meanwhile.
    let fresh = dir.path().join("new.md");
    let err = write_guarded_with_hook(&fresh, "mine\n", Expected::Missing, &mut |p| {
        fs::write(p, "agent\n").unwrap();
    })
    .unwrap_err();
    assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
    assert_eq!(fs::read(&fresh).unwrap(), b"agent\n");
    assert!(leftover_temp_files(dir.path()).is_empty());
}

#[cfg(unix)]
#[test]
fn a_path_through_a_folder_link_the_caller_confined_is_still_written() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("docs/bank")).unwrap();
    std::os::unix::fs::symlink("docs/bank", dir.path().join("memory-bank")).unwrap();
    let path = dir.path().join("memory-bank/new.md");
    let outcome = write_guarded(&path, "x\n", Expected::Missing).unwrap();
    assert_eq!(
        fs::read(dir.path().join("docs/bank/new.md")).unwrap(),
        b"x\n"
    );
    assert_eq!(
        outcome.path,
        fs::canonicalize(dir.path().join("docs/bank/new.md")).unwrap()
    );
    remove_guarded(&path, outcome.now).unwrap();
    assert!(!dir.path().join("docs/bank/new.md").exists());
}

#[cfg(unix)]
#[test]
fn writes_beneath_an_anchor_refuse_a_folder_swapped_for_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let project = dir.path();
    fs::create_dir_all(project.join(".infinity")).unwrap();
    let rel = Path::new(".infinity/memories.json");
    write_beneath(project, rel, "{}\n", Expected::Missing).unwrap();
    let read = read_text_beneath(project, rel).unwrap().unwrap();
    assert_eq!(read.text, "{}\n");
    fs::rename(project.join(".infinity"), project.join("moved")).unwrap();
    std::os::unix::fs::symlink(outside.path(), project.join(".infinity")).unwrap();
    let err = write_beneath(project, rel, "x", Expected::Missing).unwrap_err();
    assert!(matches!(err, CoreError::Confined { .. }), "{err}");
    assert!(read_text_beneath(project, rel).is_err());
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[cfg(unix)]
#[test]
fn a_write_insists_on_the_very_file_it_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("progress.md");
    fs::write(&path, "same\n").unwrap();
    let folder = Dir::open_anchor(dir.path()).unwrap();
    let read = read_text_in(&folder, Path::new("progress.md"))
        .unwrap()
        .unwrap();
    let swap_in_a_twin = |p: &Path| {
        let twin = p.with_file_name("twin");
        fs::write(&twin, "same\n").unwrap();
        fs::rename(&twin, p).unwrap();
    };
    // Replaced by another file with the same content before the write…
    swap_in_a_twin(&path);
    let err = write_in(
        &folder,
        "progress.md",
        "mine\n",
        read.expected(),
        Some(read.id),
    )
    .unwrap_err();
    assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
    // …or between the write's first check and its rename.
    let read = read_text_in(&folder, Path::new("progress.md"))
        .unwrap()
        .unwrap();
    let err = write_in_with_hook(
        &folder,
        "progress.md",
        "mine\n",
        read.expected(),
        Some(read.id),
        &mut |p| swap_in_a_twin(p),
    )
    .unwrap_err();
    assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
    assert_eq!(fs::read(&path).unwrap(), b"same\n");
    assert!(leftover_temp_files(dir.path()).is_empty());
    // A symlink swapped in at the name is refused, and its target untouched.
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.sh");
    fs::write(&victim, "theirs").unwrap();
    let read = read_text_in(&folder, Path::new("progress.md"))
        .unwrap()
        .unwrap();
    fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(&victim, &path).unwrap();
    let err = write_in(
        &folder,
        "progress.md",
        "mine\n",
        read.expected(),
        Some(read.id),
    )
    .unwrap_err();
    assert!(matches!(err, CoreError::Confined { .. }), "{err}");
    assert!(!err.to_string().contains(outside.path().to_str().unwrap()));
    assert_eq!(fs::read(&victim).unwrap(), b"theirs");
    assert!(leftover_temp_files(dir.path()).is_empty());
}

#[test]
fn guarded_removal_checks_content_first() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.md");
    fs::write(&path, "agent\n").unwrap();
    let err = remove_guarded(&path, Expected::text("other\n")).unwrap_err();
    assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
    assert!(path.exists());
    let err = remove_guarded(&path, Expected::Missing).unwrap_err();
    assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
    remove_guarded(&path, Expected::text("agent\n")).unwrap();
    assert!(!path.exists());
    remove_guarded(&path, Expected::Missing).unwrap();
}

#[test]
fn writing_over_a_folder_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("decisions");
    fs::create_dir(&folder).unwrap();
    let err = write_guarded(&folder, "x", Expected::text("x")).unwrap_err();
    assert!(matches!(err, CoreError::Io { .. }), "{err}");
    assert!(folder.is_dir());
}

#[test]
fn project_folder_is_found_from_every_bank_layout() {
    let cases = [
        (Format::Cline, "/r/p/memory-bank", "/r/p"),
        (Format::Cline, "/r/p/.cursor/memory-bank", "/r/p"),
        (
            Format::MemoryBankMcp,
            "/r/p/docs/global-memory-bank",
            "/r/p",
        ),
        (Format::ConKeeper, "/r/p/.claude/memory", "/r/p"),
        (Format::ConKeeper, "/r/p/.ai/memory", "/r/p"),
        (Format::Infinity, "/r/p/.infinity", "/r/p"),
        (Format::ClaudeMd, "/r/p", "/r/p"),
        (Format::RooRules, "/r/p", "/r/p"),
        // A project that happens to be called docs keeps its own memory-bank.
        (Format::Cline, "/r/docs/memory-bank", "/r/docs"),
    ];
    for (format, root, project) in cases {
        let bank = bank_with(format, Path::new(root), &[]);
        assert_eq!(project_dir_of(&bank), PathBuf::from(project), "{root}");
    }
}

#[test]
fn resolve_accepts_listed_and_new_files_where_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memory-bank");
    fs::create_dir(&root).unwrap();
    fs::write(root.join("progress.md"), "x").unwrap();
    let bank = bank_with(Format::Cline, &root, &["progress.md"]);
    let real_root = fs::canonicalize(&root).unwrap();
    assert_eq!(
        resolve_target(&bank, "progress.md").unwrap(),
        real_root.join("progress.md")
    );
    assert_eq!(
        resolve_target(&bank, "sessionLog.md").unwrap(),
        real_root.join("sessionLog.md")
    );
    // One folder deep where the folder exists (the spec's `archive/`), never deeper.
    let err = resolve_target(&bank, "archive/old.md").unwrap_err();
    assert!(reason(err).contains("does not exist"));
    fs::create_dir_all(root.join("archive/2025")).unwrap();
    assert_eq!(
        resolve_target(&bank, "archive/old.md").unwrap(),
        real_root.join("archive/old.md")
    );
    let err = resolve_target(&bank, "archive/2025/old.md").unwrap_err();
    let reason_text = reason(err);
    assert!(reason_text.contains("not a known file of the Cline memory bank format"));
    assert!(!reason_text.contains("bank bank"), "{reason_text}");
    let err = resolve_target(&bank, "notes.txt").unwrap_err();
    assert!(reason(err).contains("only .md"));
}

#[test]
fn conkeeper_allows_new_adrs_and_sessions_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(".claude/memory");
    fs::create_dir_all(root.join("decisions")).unwrap();
    let bank = bank_with(Format::ConKeeper, &root, &[]);
    assert!(resolve_target(&bank, "decisions/ADR-002-x.md").is_ok());
    // The sessions folder does not exist yet: a clear refusal, no folder created.
    let err = resolve_target(&bank, "sessions/2026-11-01-x.md").unwrap_err();
    assert!(reason(err).contains("does not exist"));
    let err = resolve_target(&bank, "other/x.md").unwrap_err();
    assert!(reason(err).contains("not a known file of the"));
}

#[test]
fn hierarchical_formats_allow_known_files_and_rules() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    fs::create_dir_all(project.join(".claude/rules/api")).unwrap();
    fs::create_dir_all(project.join("src")).unwrap();
    let bank = bank_with(Format::ClaudeMd, project, &["CLAUDE.md"]);
    for ok in [
        "CLAUDE.md",
        "CLAUDE.local.md",
        ".claude/CLAUDE.md",
        ".claude/rules/api/errors.md",
    ] {
        assert!(resolve_target(&bank, ok).is_ok(), "{ok}");
    }
    for refused in [
        "README.md",
        "src/notes.md",
        "AGENTS.md",
        ".claude/settings.md",
    ] {
        let err = resolve_target(&bank, refused).unwrap_err();
        assert!(reason(err).contains("not a known file of the"), "{refused}");
    }
}

#[cfg(unix)]
#[test]
fn symlink_escapes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p/memory-bank");
    fs::create_dir_all(&root).unwrap();
    fs::write(dir.path().join("p/secret.md"), "s").unwrap();
    std::os::unix::fs::symlink("../secret.md", root.join("escape.md")).unwrap();
    std::os::unix::fs::symlink("nowhere.md", root.join("dangling.md")).unwrap();
    std::os::unix::fs::symlink("..", root.join("up")).unwrap();
    let bank = bank_with(Format::Cline, &root, &["escape.md"]);
    let err = resolve_target(&bank, "escape.md").unwrap_err();
    assert!(reason(err).contains("outside the bank's folder"));
    let err = resolve_target(&bank, "dangling.md").unwrap_err();
    assert!(reason(err).contains("does not exist"));
    let bank = bank_with(Format::Cline, &root, &["up/secret.md"]);
    let err = resolve_target(&bank, "up/secret.md").unwrap_err();
    assert!(reason(err).contains("outside the bank's folder"));
}

#[cfg(unix)]
#[test]
fn links_out_of_the_project_are_refused_for_listed_and_new_files() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for sub in [
        "bank",
        "memory/sessions",
        "rules",
        "claude",
        "other/memory-bank",
    ] {
        fs::create_dir_all(out.join(sub)).unwrap();
    }
    fs::write(out.join("bank/progress.md"), "outside").unwrap();
    fs::write(out.join("secret.md"), "outside").unwrap();
    let p = dir.path().join("p");
    fs::create_dir_all(p.join(".claude/memory")).unwrap();
    // A bank folder that is a link out of the project, with a listed and a new file.
    symlink(out.join("bank"), p.join("memory-bank")).unwrap();
    let cline = bank_with(Format::Cline, &p.join("memory-bank"), &["progress.md"]);
    for name in ["progress.md", "new.md"] {
        let err = resolve_target(&cline, name).unwrap_err();
        assert!(reason(err).contains("outside its project"), "{name}");
    }
    // The parent folder of a new file is a link out: ConKeeper sessions, Claude rules.
    symlink(
        out.join("memory/sessions"),
        p.join(".claude/memory/sessions"),
    )
    .unwrap();
    let conkeeper = bank_with(Format::ConKeeper, &p.join(".claude/memory"), &[]);
    let err = resolve_target(&conkeeper, "sessions/2026-01-01-x.md").unwrap_err();
    assert!(reason(err).contains("outside the bank's folder"));
    symlink(out.join("rules"), p.join(".claude/rules")).unwrap();
    symlink(out.join("secret.md"), p.join("CLAUDE.md")).unwrap();
    let claude = bank_with(Format::ClaudeMd, &p, &["CLAUDE.md"]);
    for name in [".claude/rules/new.md", "CLAUDE.md"] {
        let err = resolve_target(&claude, name).unwrap_err();
        assert!(reason(err).contains("outside the bank's folder"), "{name}");
    }
    // Claude's whole folder linked out, and a bank linked into a sibling project.
    let q = dir.path().join("q");
    fs::create_dir_all(&q).unwrap();
    symlink(out.join("claude"), q.join(".claude")).unwrap();
    let claude = bank_with(Format::ClaudeMd, &q, &[]);
    let err = resolve_target(&claude, ".claude/CLAUDE.md").unwrap_err();
    assert!(reason(err).contains("outside the bank's folder"));
    let sibling = dir.path().join("s");
    fs::create_dir_all(&sibling).unwrap();
    symlink(out.join("other/memory-bank"), sibling.join("memory-bank")).unwrap();
    let cline = bank_with(Format::Cline, &sibling.join("memory-bank"), &[]);
    let err = resolve_target(&cline, "progress.md").unwrap_err();
    assert!(reason(err).contains("outside its project"));
    // Nothing was created anywhere outside.
    for sub in [
        "bank",
        "memory/sessions",
        "rules",
        "claude",
        "other/memory-bank",
    ] {
        let names: Vec<_> = fs::read_dir(out.join(sub)).unwrap().flatten().collect();
        assert!(names.len() <= 1, "{sub}");
    }
}

#[test]
fn infinity_edit_keeps_identity_and_detects_conflicts() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("memories.json");
    let text = r#"{"project_id":"p","memories":[{"id":"m1","title":"Plan","type":"implementation_plan","content":"old","created_at":"2026-01-01T00:00:00Z"}]}"#;
    fs::write(&store, text).unwrap();
    write_infinity_content_at(&store, "m1", "new plan", text, "2026-11-22T10:00:00Z").unwrap();
    let written = fs::read_to_string(&store).unwrap();
    let (parsed, _) = infinity::store::parse_store(&written).unwrap();
    let m = &parsed.memories[0];
    assert_eq!(
        (
            m.id.as_str(),
            m.title.as_str(),
            m.kind.as_str(),
            m.content.as_str()
        ),
        ("m1", "Plan", "implementation_plan", "new plan")
    );
    assert_eq!(m.updated_at.as_deref(), Some("2026-11-22T10:00:00Z"));
    // The stale text the caller read no longer matches: nothing written.
    let err = write_infinity_content(&store, "m1", "again", text, crate::clock::Clock::system())
        .unwrap_err();
    assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
    assert_eq!(fs::read_to_string(&store).unwrap(), written);
    let err = write_infinity_content(&store, "nope", "x", &written, crate::clock::Clock::system())
        .unwrap_err();
    assert!(matches!(err, CoreError::Parse { .. }), "{err}");
    let err = write_infinity_content(
        &dir.path().join("other.json"),
        "m1",
        "x",
        text,
        crate::clock::Clock::system(),
    )
    .unwrap_err();
    assert!(matches!(err, CoreError::Confined { .. }), "{err}");
}

#[test]
fn claude_auto_memory_is_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("home/.claude/projects/-p/memory");
    fs::create_dir_all(&root).unwrap();
    fs::write(root.join("MEMORY.md"), "# notes\n").unwrap();
    let bank = bank_with(Format::ClaudeAutoMemory, &root, &["MEMORY.md"]);
    for name in ["MEMORY.md", "topic.md"] {
        let err = resolve_target(&bank, name).unwrap_err();
        assert!(err.to_string().contains("never writes it"), "{err}");
    }
}

#[test]
fn a_write_is_credited_to_the_writer_its_context_names_and_only_with_a_history() {
    let dir = tempfile::tempdir().unwrap();
    let history = crate::history::History::new(
        dir.path().join("data"),
        crate::history::Retention::default(),
        crate::clock::Clock::fixed_on(2026, 11, 28).unwrap(),
    );
    let file = dir.path().join("notes.md");
    fs::write(&file, "one\n").unwrap();
    let write = |ctx: &WriteContext, old: &str, new: &str| {
        apply(
            ctx,
            WriteRequest {
                key: &crate::history::key_of(&file),
                target: Target::Path(&file),
                replaced: Some(old),
                expected: Expected::text(old),
                change: Change::Write(new),
            },
        )
        .unwrap()
    };
    let unrecorded = WriteContext::new(
        "mcp:log_decision",
        crate::clock::Clock::fixed_on(2026, 11, 28).unwrap(),
    );
    write(&unrecorded, "one\n", "two\n");
    assert!(history.list(&file).unwrap().is_empty());
    let recorded = unrecorded.with_history(Some(history.clone()));
    write(&recorded, "two\n", "three\n");
    write(&recorded.for_writer("tui"), "three\n", "four\n");
    let writers: Vec<String> = history
        .list(&file)
        .unwrap()
        .into_iter()
        .map(|v| v.writer)
        .collect();
    assert_eq!(writers, ["mcp:log_decision", "tui"]);
    assert_eq!(history.version(&file, 2).unwrap().1, "three\n");
}

/// The history keys a file by its real path ([`key_of`]); the agents' writes hand it
/// the path [`resolve_target`] resolved instead of resolving it again, so the
/// two must agree wherever links lead.
#[cfg(unix)]
#[test]
fn the_resolved_target_is_the_files_history_key_through_links() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real");
    fs::create_dir_all(real.join("p/docs/bank")).unwrap();
    symlink("docs/bank", real.join("p/memory-bank")).unwrap();
    fs::write(real.join("p/docs/bank/notes.md"), "n\n").unwrap();
    symlink("notes.md", real.join("p/docs/bank/alias.md")).unwrap();
    // The project reached through a linked folder, as a root given by a link is.
    symlink(&real, dir.path().join("via")).unwrap();
    let root = dir.path().join("via/p/memory-bank");
    let bank = bank_with(
        crate::model::Format::Cline,
        &root,
        &["notes.md", "alias.md"],
    );
    for name in ["notes.md", "alias.md", "new.md"] {
        let resolved = resolve_target(&bank, name).unwrap();
        assert_eq!(resolved, crate::history::key_of(&root.join(name)), "{name}");
    }
    assert_eq!(
        resolve_target(&bank, "alias.md").unwrap(),
        fs::canonicalize(real.join("p/docs/bank/notes.md")).unwrap()
    );
}
