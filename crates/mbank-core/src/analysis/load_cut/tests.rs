use std::path::Path;

use super::*;
use crate::formats;
use crate::model::Format;

fn auto_memory() -> FileLimit {
    formats::rules(Format::ClaudeAutoMemory)
        .file_limit(Path::new("MEMORY.md"))
        .unwrap()
}

fn windsurf_rule() -> FileLimit {
    formats::rules(Format::Windsurf)
        .file_limit(Path::new(".windsurf/rules/style.md"))
        .unwrap()
}

fn codex_chain() -> Chain {
    Chain::new(formats::rules(Format::AgentsMd).combined_limit().unwrap())
}

fn numbered(lines: usize, ending: &str) -> String {
    (1..=lines)
        .map(|n| format!("- entry {n}{ending}"))
        .collect()
}

#[test]
fn every_agent_that_cuts_declares_its_limit_in_its_format() {
    let mut file_limits = Vec::new();
    let mut combined = Vec::new();
    for format in Format::ALL {
        let rules = formats::rules(format);
        for rel in [
            "MEMORY.md",
            ".windsurfrules",
            ".windsurf/rules/a.md",
            "AGENTS.md",
        ] {
            if let Some(limit) = rules.file_limit(Path::new(rel)) {
                file_limits.push((format, rel, limit.agent));
            }
        }
        if let Some(limit) = rules.combined_limit() {
            combined.push((format, limit.agent, limit.max_bytes));
        }
    }
    file_limits.sort_by_key(|(_, rel, _)| *rel);
    assert_eq!(
        file_limits,
        vec![
            (Format::Windsurf, ".windsurf/rules/a.md", "Windsurf"),
            (Format::Windsurf, ".windsurfrules", "Windsurf"),
            (Format::ClaudeAutoMemory, "MEMORY.md", "Claude Code"),
        ]
    );
    assert_eq!(combined, vec![(Format::AgentsMd, "Codex", 32 * 1024)]);
    // Topic files of auto memory are read on demand, whole.
    let rules = formats::rules(Format::ClaudeAutoMemory);
    assert!(rules.file_limit(Path::new("debugging.md")).is_none());
}

#[test]
fn claude_code_reads_the_first_200_lines_of_memory_md() {
    let text = numbered(312, "\n");
    let cut = file_cut(&auto_memory(), &text).unwrap();
    assert_eq!((cut.cut.first_line, cut.cut.last_line), (201, 312));
    assert_eq!((cut.cut.kept_lines, cut.cut.dropped_lines), (200, 112));
    assert_eq!(cut.cut.kept(&text), numbered(200, "\n"));
    assert!(!cut.cut.inside_line);
    assert!(cut.cut.is_past(201) && !cut.cut.is_past(200));
    assert_eq!(cut.limit, "200-line limit");
    assert_eq!(
        cut.sentence("MEMORY.md"),
        "MEMORY.md: lines 201–312 (1.3 KiB) are past Claude Code's 200-line limit"
    );
}

#[test]
fn the_200_line_boundary() {
    assert_eq!(file_cut(&auto_memory(), &numbered(200, "\n")), None);
    // No final newline: still 200 lines.
    let unterminated = numbered(200, "\n").trim_end().to_string();
    assert_eq!(file_cut(&auto_memory(), &unterminated), None);
    let one_more = numbered(201, "\n");
    let cut = file_cut(&auto_memory(), &one_more).unwrap();
    assert_eq!(cut.cut.lines_past(), 201..=201);
    assert!(
        cut.sentence("MEMORY.md")
            .contains("line 201 (12 bytes) is past")
    );
}

#[test]
fn claude_code_stops_at_25_kib_keeping_whole_lines() {
    // 150 lines of 200 bytes: the 25 KiB bound stops at 128 whole lines.
    let text = format!("{}\n", "z".repeat(199)).repeat(150);
    let cut = file_cut(&auto_memory(), &text).unwrap();
    assert_eq!(cut.cut.kept_bytes, 128 * 200);
    assert_eq!(cut.cut.lines_past(), 129..=150);
    assert_eq!(cut.limit, "25 KiB limit");
    // Exactly 25 KiB in fewer than 200 lines loads whole.
    let exact = format!("{}\n", "z".repeat(1023)).repeat(25);
    assert_eq!(exact.len(), 25 * 1024);
    assert_eq!(file_cut(&auto_memory(), &exact), None);
}

#[test]
fn a_first_line_longer_than_25_kib_is_cut_inside() {
    let text = "y".repeat(30_000);
    let cut = file_cut(&auto_memory(), &text).unwrap();
    assert_eq!(cut.cut.kept_bytes, 25 * 1024);
    assert!(cut.cut.inside_line);
    assert_eq!(cut.cut.lines_past(), 1..=1);
    assert!(
        cut.sentence("MEMORY.md")
            .starts_with("MEMORY.md: line 1 (from inside line 1, ")
    );
}

#[test]
fn multibyte_text_is_cut_at_a_character_boundary_below_the_byte_limit() {
    // "€" is three bytes: 25,600 falls inside a character, so 25,599 are kept.
    let text = "€".repeat(9_000);
    let cut = file_cut(&auto_memory(), &text).unwrap();
    assert_eq!(cut.cut.kept_bytes, 25_599);
    assert!(text.is_char_boundary(cut.cut.kept_bytes));
    assert_eq!(Cut::at("aé", 2).unwrap().kept_bytes, 1);
    // Codex's chain too.
    let mut chain = codex_chain();
    let cut = chain.take(&"€".repeat(11_000)).unwrap();
    assert_eq!(cut.cut.kept_bytes, 32_766);
}

#[test]
fn crlf_lines_count_once_and_stay_whole() {
    let text = numbered(230, "\r\n");
    let cut = file_cut(&auto_memory(), &text).unwrap();
    assert_eq!(cut.cut.lines_past(), 201..=230);
    assert_eq!(cut.cut.kept(&text), numbered(200, "\r\n"));
    assert!(cut.cut.past(&text).starts_with("- entry 201\r\n"));
    // A byte cut between '\r' and '\n' is inside that line.
    let cut = Cut::at("ab\r\ncd\r\n", 3).unwrap();
    assert_eq!(
        (cut.first_line, cut.last_line, cut.inside_line),
        (1, 2, true)
    );
    let cut = Cut::at("ab\r\ncd\r\n", 4).unwrap();
    assert_eq!(
        (cut.first_line, cut.last_line, cut.inside_line),
        (2, 2, false)
    );
}

#[test]
fn windsurf_reads_12000_characters_of_a_rule() {
    // Characters, not bytes: "é" is two bytes.
    let rule = "é".repeat(20_000);
    let cut = file_cut(&windsurf_rule(), &rule).unwrap();
    assert_eq!(cut.cut.kept_bytes, 24_000);
    assert_eq!(cut.limit, "12,000-character limit");
    assert_eq!(cut.agent, "Windsurf");
    assert_eq!(file_cut(&windsurf_rule(), "short"), None);
    assert_eq!(file_cut(&windsurf_rule(), &"a".repeat(12_000)), None);
    let over = format!("{}\nb\n", "a".repeat(11_999));
    let cut = file_cut(&windsurf_rule(), &over).unwrap();
    assert_eq!((cut.cut.kept_bytes, cut.cut.first_line), (12_000, 2));
    assert!(!cut.cut.inside_line);
}

#[test]
fn codex_cuts_the_file_that_crosses_32_kib_and_drops_the_rest() {
    let mut chain = codex_chain();
    let first = format!("{}\n", "a".repeat(99)).repeat(200); // 20,000 bytes
    let second = format!("{}\n", "b".repeat(99)).repeat(200);
    assert_eq!(chain.take(&first), None);
    let cut = chain.take(&second).unwrap();
    assert_eq!(cut.cut.kept_bytes, 32_768 - 20_000);
    assert_eq!(cut.cut.first_line, 128);
    assert!(cut.cut.inside_line);
    assert_eq!(cut.limit, "32 KiB combined limit");
    assert_eq!(chain.remaining(), 0);
    let third = chain.take("# more\n").unwrap();
    assert_eq!((third.cut.kept_bytes, third.cut.first_line), (0, 1));
    assert!(
        third
            .sentence("docs/AGENTS.md")
            .contains("line 1 (7 bytes) is past Codex's 32 KiB combined limit")
    );
}

#[test]
fn a_measured_budget_keeps_whole_files_then_whole_lines() {
    let words = |t: &str| t.split_whitespace().count();
    let mut fit = Fit::new(10, words);
    assert_eq!(fit.take("one two three\n"), None);
    // Five lines of two words: three fit in the seven words left.
    let text = "a b\nc d\ne f\ng h\ni j\n";
    let cut = fit.take(text).unwrap();
    assert_eq!(cut.kept(text), "a b\nc d\ne f\n");
    assert_eq!(cut.lines_past(), 4..=5);
    assert_eq!(fit.left(), 1);
    let cut = fit.take("k l\n").unwrap();
    assert_eq!(cut.kept_bytes, 0);
    assert_eq!(fit.take(""), None);
}
