use super::*;
use crate::clock::Clock;

/// The time every version in these tests is recorded at, unless a test gives one.
fn test_clock() -> Clock {
    Clock::fixed_on(2026, 11, 28).unwrap()
}

/// The version numbers `history` lists for `file`, oldest first.
fn version_numbers(history: &History, file: &Path) -> Vec<u64> {
    history
        .list(file)
        .unwrap()
        .iter()
        .map(|v| v.version)
        .collect()
}

/// How many good copies of texts `history` stores for `file`: the distinct places in
/// its packs that its index names and whose bytes hash right, and the `.txt` files
/// older builds wrote.
fn stored_texts(history: &History, file: &Path) -> usize {
    let folder = history.file_folder(&key_of(file), false).unwrap().unwrap();
    let mut places = std::collections::HashSet::new();
    for v in history.list(file).unwrap() {
        if let Some(at) = v.text_at
            && pack::holds(&folder, v.pack, at, v.size, &v.hash).unwrap()
        {
            places.insert((v.pack, at));
        }
    }
    let blobs = fs::read_dir(folder.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".txt"))
        .count();
    places.len() + blobs
}

/// The pack files in `file`'s history folder, by name, with their lengths.
fn packs(history: &History, file: &Path) -> Vec<(String, u64)> {
    let folder = history.file_folder(&key_of(file), false).unwrap().unwrap();
    let mut packs: Vec<(String, u64)> = fs::read_dir(folder.path())
        .unwrap()
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e))
        .filter(|(name, _)| name.ends_with(".pack"))
        .map(|(name, e)| (name, e.metadata().unwrap().len()))
        .collect();
    packs.sort();
    packs
}

/// The bytes all of `file`'s packs hold.
fn pack_bytes(history: &History, file: &Path) -> u64 {
    packs(history, file).iter().map(|(_, len)| len).sum()
}

/// The bytes of the distinct texts `file`'s versions hold.
fn distinct_text_bytes(history: &History, file: &Path) -> u64 {
    let mut seen = std::collections::HashSet::new();
    history
        .list(file)
        .unwrap()
        .into_iter()
        .filter(|v| seen.insert(v.hash.clone()))
        .map(|v| v.size)
        .sum()
}

/// A history in `dir`'s data folder keeping a file's newest `versions` and those younger
/// than `days`, within the default byte budget.
fn keeping(dir: &Path, versions: usize, days: u32) -> History {
    History::new(
        dir.join("data"),
        Retention {
            keep_versions: versions,
            keep_days: days,
            ..Retention::default()
        },
        test_clock(),
    )
}

fn setup() -> (tempfile::TempDir, History, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bank/notes.md");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, "now\n").unwrap();
    let history = History::new(dir.path().join("data"), Retention::default(), test_clock());
    (dir, history, file)
}

#[test]
fn versions_are_numbered_listed_and_read_back_with_writer_and_size() {
    let (_dir, history, file) = setup();
    assert_eq!(history.record(&file, "one\n", "tui").unwrap(), Some(1));
    assert_eq!(
        history
            .record(&file, "two two\n", "mcp:memory_bank_update")
            .unwrap(),
        Some(2)
    );
    let versions = history.list(&file).unwrap();
    let summary: Vec<(u64, &str, u64)> = versions
        .iter()
        .map(|v| (v.version, v.writer.as_str(), v.size))
        .collect();
    assert_eq!(summary, [(1, "tui", 4), (2, "mcp:memory_bank_update", 8)]);
    assert_eq!(history.version(&file, 1).unwrap().1, "one\n");
    let diff = history.diff(&file, 2).unwrap();
    assert_eq!(diff.current.as_deref(), Some("now\n"));
    assert!(
        diff.unified.contains("-two two\n+now\n"),
        "{}",
        diff.unified
    );
    assert!(history.version(&file, 3).is_err());
}

#[test]
fn a_text_equal_to_the_newest_version_is_not_recorded_again_and_texts_are_stored_once() {
    let (_dir, history, file) = setup();
    history.record(&file, "same\n", "a").unwrap();
    assert_eq!(history.record(&file, "same\n", "b").unwrap(), None);
    history.record(&file, "other\n", "c").unwrap();
    history.record(&file, "same\n", "d").unwrap();
    assert_eq!(history.list(&file).unwrap().len(), 3);
    let blobs = stored_texts(&history, &file);
    assert_eq!(blobs, 2, "one stored text per distinct content");
    assert_eq!(
        pack_bytes(&history, &file),
        ("same\n".len() + "other\n".len()) as u64,
        "nothing stored twice"
    );
}

#[test]
fn retention_keeps_the_newest_versions_and_the_young_ones_and_drops_their_texts() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.md");
    fs::write(&file, "x").unwrap();
    let history = keeping(dir.path(), 3, 30);
    let start = test_clock().utc() - chrono::Duration::days(100);
    // Ten versions a day apart, 100 to 91 days ago: each young when recorded.
    for i in 0..10 {
        let at = start + chrono::Duration::days(i);
        history
            .record_at(&file, &format!("v{i}\n"), "t", at)
            .unwrap();
    }
    assert_eq!(history.list(&file).unwrap().len(), 10);
    // Today: of the old ones only those among the newest three stay.
    history.record(&file, "today\n", "t").unwrap();
    let numbers = version_numbers(&history, &file);
    assert_eq!(numbers, [9, 10, 11]);
    assert!(history.version(&file, 1).is_err());
    // Eight of eleven texts dropped: the pack was compacted to exactly the kept ones.
    assert_eq!(stored_texts(&history, &file), 3);
    assert_eq!(
        packs(&history, &file),
        [(
            "texts-1.pack".to_string(),
            distinct_text_bytes(&history, &file)
        )],
        "dropped versions' texts are removed"
    );
    // Young versions are all kept beyond the newest three.
    for i in 0..4 {
        history.record(&file, &format!("young{i}\n"), "t").unwrap();
    }
    let numbers = version_numbers(&history, &file);
    assert_eq!(numbers, [11, 12, 13, 14, 15]);
    let blobs = stored_texts(&history, &file);
    assert_eq!(blobs, 5);
    // Two more texts dropped since: left in the pack until they outweigh the kept ones.
    let live = distinct_text_bytes(&history, &file);
    assert_eq!(pack_bytes(&history, &file), live + 2 * "v8\n".len() as u64);
    for number in 11..=15 {
        history.version(&file, number).unwrap();
    }
}

#[test]
fn a_mostly_dead_pack_is_compacted_into_a_new_generation_and_left_overs_of_a_crash_go() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.md");
    let history = keeping(dir.path(), 2, 1);
    // Two days apart: each version is old by the time the next is recorded.
    let start = test_clock().utc() - chrono::Duration::days(100);
    let at = |i: usize| start + chrono::Duration::days(2 * i as i64);
    let text = |i: usize| format!("text {i:04}\n");
    for i in 0..4 {
        history.record_at(&file, &text(i), "t", at(i)).unwrap();
    }
    // Two of four texts dropped: as many dead bytes as live ones, not compacted yet.
    assert_eq!(version_numbers(&history, &file), [3, 4]);
    assert_eq!(packs(&history, &file), [("texts-0.pack".to_string(), 40)]);
    history.record_at(&file, &text(4), "t", at(4)).unwrap();
    assert_eq!(version_numbers(&history, &file), [4, 5]);
    assert_eq!(packs(&history, &file), [("texts-1.pack".to_string(), 20)]);
    for (number, i) in [(4, 3), (5, 4)] {
        assert_eq!(history.version(&file, number).unwrap().1, text(i));
    }
    // What crashes during a compaction leave: the old pack (index renamed in, pack not
    // yet removed) and a next pack whose index was never renamed in.
    let folder = history.file_folder(&key_of(&file), false).unwrap().unwrap();
    fs::write(folder.path().join("texts-0.pack"), "stale").unwrap();
    fs::write(folder.path().join("texts-2.pack"), "torn").unwrap();
    for (number, i) in [(4, 3), (5, 4)] {
        assert_eq!(history.version(&file, number).unwrap().1, text(i));
    }
    for i in 5..8 {
        history.record_at(&file, &text(i), "t", at(i)).unwrap();
    }
    assert_eq!(version_numbers(&history, &file), [7, 8]);
    assert_eq!(packs(&history, &file), [("texts-2.pack".to_string(), 20)]);
    for (number, i) in [(7, 6), (8, 7)] {
        assert_eq!(history.version(&file, number).unwrap().1, text(i));
    }
    assert_eq!(stored_texts(&history, &file), 2);
}

#[test]
fn versions_older_builds_stored_in_their_own_files_are_still_read_and_checked() {
    let (_dir, history, file) = setup();
    history.record(&file, "one\n", "t").unwrap();
    let folder = history.file_folder(&key_of(&file), false).unwrap().unwrap();
    let text = "an older build's text\n";
    let hash = files::content_hash(text.as_bytes());
    let line = format!(
        "{{\"version\":2,\"at\":\"{}\",\"writer\":\"tui\",\"size\":{},\"hash\":\"{hash}\",\"path\":{}}}\n",
        test_clock().utc().to_rfc3339(),
        text.len(),
        serde_json::to_string(&key_of(&file)).unwrap()
    );
    let index = folder.path().join(INDEX);
    let mut lines = fs::read_to_string(&index).unwrap();
    lines.push_str(&line);
    fs::write(&index, lines).unwrap();
    fs::write(folder.path().join(blob_name(&hash)), text).unwrap();
    let (version, read) = history.version(&file, 2).unwrap();
    assert_eq!((version.text_at, read.as_str()), (None, text));
    assert_eq!(history.version(&file, 1).unwrap().1, "one\n");
    fs::write(folder.path().join(blob_name(&hash)), "altered\n").unwrap();
    let err = history.version(&file, 2).unwrap_err();
    assert!(err.to_string().contains("does not match its hash"), "{err}");
    assert_eq!(history.record(&file, "three\n", "t").unwrap(), Some(3));
    assert_eq!(history.version(&file, 3).unwrap().1, "three\n");
}

#[test]
fn no_file_keeps_more_than_the_hard_cap() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.md");
    let history = keeping(dir.path(), usize::MAX, 10_000);
    for i in 0..MAX_VERSIONS + 5 {
        history.record(&file, &format!("{i}\n"), "t").unwrap();
    }
    let versions = history.list(&file).unwrap();
    assert!(versions.len() <= MAX_VERSIONS, "{}", versions.len());
    assert_eq!(versions.len(), MAX_VERSIONS - CAP_SLACK + 4);
    assert_eq!(versions[0].version, (CAP_SLACK + 2) as u64);
    let newest = versions.last().unwrap();
    assert_eq!(newest.version, (MAX_VERSIONS + 5) as u64);
    assert_eq!(
        history.version(&file, newest.version).unwrap().1,
        format!("{}\n", MAX_VERSIONS + 4)
    );
}

#[test]
fn young_versions_beyond_the_newest_stay_within_the_byte_budget() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.md");
    let history = History::new(
        dir.path().join("data"),
        Retention {
            keep_versions: 2,
            keep_days: 30,
            max_mib_per_file: 1,
            max_mib_total: 1024,
        },
        test_clock(),
    );
    // Ten young versions of 300 KB: the newest two always, then what fits in 1 MiB.
    for i in 0..10 {
        let text = format!("{i}{}\n", "x".repeat(300 * 1024));
        history.record(&file, &text, "t").unwrap();
    }
    let numbers = version_numbers(&history, &file);
    assert_eq!(numbers, [8, 9, 10]);
    assert_eq!(
        size_of_line(r#"{"version":3,"size":1234,"hash":"x"}"#),
        1234
    );
}

#[test]
fn a_version_another_process_recorded_between_two_of_ours_is_counted() {
    let (_dir, history, file) = setup();
    assert_eq!(history.record(&file, "one\n", "tui").unwrap(), Some(1));
    // Another process (its own summaries, none of ours) appends version 2.
    let other_line = {
        let (_, first) = history.version(&file, 1).unwrap();
        assert_eq!(first, "one\n");
        let folder = history.file_folder(&key_of(&file), false).unwrap().unwrap();
        let index = folder.path().join(INDEX);
        let mut line = fs::read_to_string(&index)
            .unwrap()
            .replace("\"version\":1,", "\"version\":2,");
        line = line.replace("\"writer\":\"tui\"", "\"writer\":\"other\"");
        let mut text = fs::read_to_string(&index).unwrap();
        text.push_str(&line);
        fs::write(&index, text).unwrap();
        line
    };
    assert!(other_line.contains("\"version\":2,"));
    // Same text as version 2 (the other's): not recorded again; a new one is 3.
    assert_eq!(history.record(&file, "one\n", "tui").unwrap(), None);
    assert_eq!(history.record(&file, "three\n", "tui").unwrap(), Some(3));
    assert_eq!(version_numbers(&history, &file), [1, 2, 3]);
    // The index rewritten in place of ours (a new file renamed in) is read again.
    let folder = history.file_folder(&key_of(&file), false).unwrap().unwrap();
    let index = folder.path().join(INDEX);
    let kept: String = fs::read_to_string(&index)
        .unwrap()
        .lines()
        .take(1)
        .map(|l| format!("{l}\n"))
        .collect();
    let temp = folder.path().join("index.new");
    fs::write(&temp, kept).unwrap();
    fs::rename(&temp, &index).unwrap();
    assert_eq!(history.record(&file, "four\n", "tui").unwrap(), Some(2));
}

#[test]
fn history_survives_a_new_instance_and_a_torn_index_line() {
    let (dir, history, file) = setup();
    history.record(&file, "one\n", "t").unwrap();
    let folder = history.file_folder(&key_of(&file), false).unwrap().unwrap();
    let index = folder.path().join(INDEX);
    let mut text = fs::read_to_string(&index).unwrap();
    text.push_str("{\"version\":2,\"at\"");
    fs::write(&index, text).unwrap();
    let again = History::new(dir.path().join("data"), Retention::default(), test_clock());
    assert_eq!(again.list(&file).unwrap().len(), 1);
    assert_eq!(again.record(&file, "two\n", "t").unwrap(), Some(2));
    // The version recorded after the torn line is listed, not glued to it.
    let listed = again.list(&file).unwrap();
    assert_eq!(listed.iter().map(|v| v.version).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(again.version(&file, 2).unwrap().1, "two\n");
    assert_eq!(again.record(&file, "three\n", "t").unwrap(), Some(3));
    assert_eq!(again.list(&file).unwrap().len(), 3);
}

#[cfg(unix)]
#[test]
fn a_history_folder_replaced_by_a_link_is_never_written_through() {
    let (dir, history, file) = setup();
    let outside = dir.path().join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::create_dir_all(dir.path().join("data")).unwrap();
    std::os::unix::fs::symlink(&outside, dir.path().join("data").join(FOLDER)).unwrap();
    assert!(history.record(&file, "one\n", "t").is_err());
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
}

/// The pack holding version `number` of `file` and where its text starts there.
fn text_place(history: &History, file: &Path, number: u64) -> (PathBuf, usize) {
    let folder = history.file_folder(&key_of(file), false).unwrap().unwrap();
    let (version, _) = history
        .list(file)
        .unwrap()
        .into_iter()
        .find(|v| v.version == number)
        .map(|v| (v.clone(), v))
        .unwrap();
    let at = usize::try_from(version.text_at.unwrap()).unwrap();
    (folder.path().join(pack::name(version.pack)), at)
}

#[test]
fn a_torn_version_text_is_never_restored_and_recording_the_text_again_repairs_it() {
    let (_dir, history, file) = setup();
    let text = "one\n".repeat(100);
    assert_eq!(history.record(&file, &text, "t").unwrap(), Some(1));
    let (stored, at) = text_place(&history, &file, 1);
    let pack = fs::read(&stored).unwrap();
    assert_eq!(&pack[at..at + text.len()], text.as_bytes());
    // What a crash while the text was being appended leaves: part of it.
    fs::write(&stored, &pack[..at + 50]).unwrap();
    let err = history.version(&file, 1).unwrap_err();
    assert!(err.to_string().contains("does not match its hash"), "{err}");
    assert!(history.diff(&file, 1).is_err());
    // Same length, other bytes: caught by the hash, not only the length.
    let mut altered = pack[..at].to_vec();
    altered.extend("x".repeat(text.len()).bytes());
    fs::write(&stored, &altered).unwrap();
    let err = history.version(&file, 1).unwrap_err();
    assert!(err.to_string().contains("does not match its hash"), "{err}");
    // The same text recorded again is not deduplicated against the torn copy.
    assert_eq!(history.record(&file, "two\n", "t").unwrap(), Some(2));
    assert_eq!(history.record(&file, &text, "t").unwrap(), Some(3));
    let (stored_again, at_again) = text_place(&history, &file, 3);
    assert_eq!(stored_again, stored);
    assert_ne!(at_again, at);
    let pack = fs::read(&stored).unwrap();
    assert_eq!(&pack[at_again..at_again + text.len()], text.as_bytes());
    assert_eq!(history.version(&file, 3).unwrap().1, text);
    assert_eq!(history.version(&file, 1).unwrap().1, text);
    assert_eq!(stored_texts(&history, &file), 2);
}

#[test]
fn a_text_stored_already_is_not_written_again() {
    let (_dir, history, file) = setup();
    history.record(&file, "same\n", "t").unwrap();
    history.record(&file, "other\n", "t").unwrap();
    let (stored, at) = text_place(&history, &file, 1);
    let before = fs::metadata(&stored).unwrap();
    history.record(&file, "same\n", "t").unwrap();
    let after = fs::metadata(&stored).unwrap();
    assert_eq!(
        (before.len(), file_id(&before)),
        (after.len(), file_id(&after)),
        "the stored text was written again"
    );
    assert_eq!(text_place(&history, &file, 3), (stored, at));
    assert_eq!(history.version(&file, 3).unwrap().1, "same\n");
}

#[cfg(unix)]
fn file_id(meta: &fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(not(unix))]
fn file_id(_meta: &fs::Metadata) -> u64 {
    0
}

#[cfg(unix)]
#[test]
fn a_link_planted_at_the_pack_is_never_written_through_nor_read() {
    let (dir, history, file) = setup();
    history.record(&file, "first\n", "t").unwrap();
    let outside = dir.path().join("outside.txt");
    fs::write(&outside, "keep\n").unwrap();
    let (stored, _) = text_place(&history, &file, 1);
    let pack = fs::read(&stored).unwrap();
    fs::remove_file(&stored).unwrap();
    std::os::unix::fs::symlink(&outside, &stored).unwrap();
    assert!(history.record(&file, "planted\n", "t").is_err());
    assert!(history.version(&file, 1).is_err());
    assert_eq!(fs::read_to_string(&outside).unwrap(), "keep\n");
    assert!(fs::symlink_metadata(&stored).unwrap().is_symlink());
    fs::remove_file(&stored).unwrap();
    fs::write(&stored, pack).unwrap();
    assert_eq!(history.record(&file, "planted\n", "t").unwrap(), Some(2));
    assert_eq!(history.version(&file, 2).unwrap().1, "planted\n");
}

#[test]
fn recording_by_the_resolved_path_lands_under_the_files_key() {
    let (_dir, history, file) = setup();
    history
        .record_key_at(key_of(&file), "one\n", "t", test_clock().utc())
        .unwrap();
    assert_eq!(history.version(&file, 1).unwrap().1, "one\n");
    assert_eq!(history.record(&file, "one\n", "t").unwrap(), None);
}

#[test]
fn writers_recording_at_once_number_every_version_once_and_keep_every_text() {
    let (_dir, history, file) = setup();
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let (history, file) = (history.clone(), file.clone());
            std::thread::spawn(move || {
                for i in 0..25 {
                    // Every fifth text is the same for all writers: stored once.
                    let text = if i % 5 == 0 {
                        format!("shared {i}\n")
                    } else {
                        format!("writer {w} text {i}\n")
                    };
                    history.record(&file, &text, "t").unwrap();
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let versions = history.list(&file).unwrap();
    let numbers: Vec<u64> = versions.iter().map(|v| v.version).collect();
    let expected: Vec<u64> = (1..=versions.len() as u64).collect();
    assert_eq!(numbers, expected);
    // Only a text equal to the newest one is skipped: at most the shared ones.
    assert!(versions.len() >= 4 * 20, "{}", versions.len());
    for v in &versions {
        let (_, text) = history.version(&file, v.version).unwrap();
        assert_eq!(files::content_hash(text.as_bytes()), v.hash);
    }
    let distinct: std::collections::HashSet<&str> =
        versions.iter().map(|v| v.hash.as_str()).collect();
    assert_eq!(stored_texts(&history, &file), distinct.len());
    assert_eq!(
        pack_bytes(&history, &file),
        distinct_text_bytes(&history, &file)
    );
}

/// The history reuses a write's SHA-256 for both hashes, which holds only while the
/// version an agent sees is the start of the history's content hash.
#[test]
fn a_writes_content_version_is_the_start_of_its_content_hash() {
    for text in ["", "one\n", "# Title\n\n- é ✓\n", &"x".repeat(70_000)] {
        assert_eq!(
            crate::guard::content_version(text),
            content_hash(text)[..32],
            "{text:.20}"
        );
    }
}
