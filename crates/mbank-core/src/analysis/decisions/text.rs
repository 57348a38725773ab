//! Small text helpers shared by the parsers: the date pattern and date reading, markup
//! stripping, title cleaning and normalising, placeholders, ADR ids and link values.
//! Most have an ASCII fast path: a log of 100k entries passes here several times per entry.
use std::sync::LazyLock;

use chrono::{NaiveDate, NaiveTime};
use regex::Regex;

/// A date (ISO, `YYYY/MM/DD`, `YYYY.MM.DD` or US `M/D/YYYY`) with an optional time.
pub(super) const DATE_TIME: &str = r"(?:(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})|(?P<m2>\d{1,2})/(?P<d2>\d{1,2})/(?P<y2>\d{4})|(?P<d3>\d{1,2})\.(?P<m3>\d{1,2})\.(?P<y3>\d{4}))(?:(?:[ T]+|,\s*|\s+at\s+)(?P<hh>\d{1,2}):(?P<mm>\d{2})(?::(?P<ss>\d{2}))?(?:\s*(?:UTC|GMT|Z|[+-]\d{2}:?\d{2}|[A-Z]{3,4}\b))?)?";

pub(super) fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("constant regex {pattern}: {e}"))
}

static ANY_DATE: LazyLock<Regex> = LazyLock::new(|| regex(DATE_TIME));
pub(super) static ADR_REF: LazyLock<Regex> = LazyLock::new(|| regex(r"(?i)\badr[-_ ]?\d+\b"));
static MD_LINK: LazyLock<Regex> =
    LazyLock::new(|| regex(r"\[\[([^\]]+)\]\]|\[([^\]]*)\]\([^)]*\)"));

/// `[Decision Title]`, `[YYYY-MM-DD]`, `[Date] - [Topic]`: template text, not content.
pub(super) fn is_placeholder(text: &str) -> bool {
    let t = text.trim();
    if t.is_empty() {
        return false;
    }
    if has_placeholder_id(t) || t.ends_with("(YYYY-MM-DD)") {
        return true;
    }
    if !t.as_bytes().contains(&b'[') {
        // No bracketed part: only the bare template words.
        return matches!(t, "YYYY-MM-DD" | "TBD" | "...");
    }
    let mut rest = t;
    let mut saw = false;
    while let Some(start) = rest.find('[') {
        if !rest[..start]
            .chars()
            .all(|c| c.is_whitespace() || "-–—:|/".contains(c))
        {
            return false;
        }
        let Some(end) = rest[start..].find(']') else {
            return false;
        };
        if rest.as_bytes()[start..].get(end + 1) == Some(&b'(') {
            return false; // a link, not a placeholder
        }
        saw = true;
        rest = &rest[start + end + 1..];
    }
    saw && rest
        .chars()
        .all(|c| c.is_whitespace() || "-–—:|/.".contains(c))
        || matches!(t, "YYYY-MM-DD" | "[YYYY-MM-DD]" | "TBD" | "...")
}

/// A leading id whose number is left for the writer: `D-XXX: title`, `ADR-NNN`.
fn has_placeholder_id(text: &str) -> bool {
    let Some((prefix, rest)) = text.split_once('-') else {
        return false;
    };
    let slot_len = rest
        .bytes()
        .take_while(|b| matches!(b, b'X' | b'N' | b'#'))
        .count();
    let after = rest.as_bytes().get(slot_len);
    (1..=6).contains(&prefix.len())
        && prefix.bytes().all(|b| b.is_ascii_alphabetic())
        && slot_len >= 2
        && rest.as_bytes()[..slot_len].windows(2).all(|w| w[0] == w[1])
        && after.is_none_or(|b| !b.is_ascii_alphanumeric())
}

/// Removes emphasis markers and turns links and wikilinks into their text.
pub(super) fn strip_markup(text: &str) -> String {
    // Most titles and values carry no markup: skip the regex and the rewrites (a log of
    // 100k entries passes here several times per entry).
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() && !matches!(bytes[i], b'[' | b'*' | b'_' | b'`') {
        i += 1;
    }
    if i == bytes.len() {
        return text.to_string();
    }
    let linked = if bytes.contains(&b'[') {
        MD_LINK.replace_all(text, |c: &regex::Captures<'_>| {
            c.get(1)
                .or_else(|| c.get(2))
                .map(|m| m.as_str().to_string())
                .unwrap_or_default()
        })
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    linked.replace("**", "").replace("__", "").replace('`', "")
}

pub(super) fn clean_title(text: &str) -> String {
    let stripped = strip_markup(text);
    let trimmed = if is_ascii(&stripped) {
        trim_title_ascii(&stripped)
    } else {
        stripped
            .trim()
            .trim_start_matches(['-', '–', '—', ':', '|', ' '])
            .trim_end_matches([':', ' ', '-', '–', '—', '|'])
    };
    collapse_whitespace(trimmed, false)
}

/// An ASCII byte that is whitespace to `char::is_whitespace` and to the patterns' `\s`:
/// space, tab, line feed, vertical tab, form feed, carriage return.
pub(super) fn is_ascii_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

/// `clean_title`'s trimming for ASCII text, as a byte loop: whitespace off both ends,
/// then `-`, `:`, `|` and spaces off the start and `:`, spaces, `-` and `|` off the end.
fn trim_title_ascii(text: &str) -> &str {
    let bytes = text.as_bytes();
    let (mut start, mut end) = (0, bytes.len());
    while start < end && is_ascii_space(bytes[start]) {
        start += 1;
    }
    while end > start && is_ascii_space(bytes[end - 1]) {
        end -= 1;
    }
    while start < end && matches!(bytes[start], b'-' | b':' | b'|' | b' ') {
        start += 1;
    }
    while end > start && matches!(bytes[end - 1], b':' | b' ' | b'-' | b'|') {
        end -= 1;
    }
    &text[start..end]
}

/// False only when `text`, known to be ASCII (`ascii`), cannot match a pattern
/// (`possible` says whether it can): a cheap test before a regex. Text with other
/// characters always goes to the regex, whose `\d`, `\s` and case folding are
/// Unicode-aware.
pub(super) fn may_match(ascii: bool, text: &str, possible: impl FnOnce(&[u8]) -> bool) -> bool {
    !ascii || possible(text.as_bytes())
}

pub(super) fn normalize_title(title: &str) -> String {
    collapse_whitespace(title, true)
}

/// `str::is_ascii` as a plain loop: in unoptimised builds (where the tests run) the
/// library's version costs more than everything else done to a short title.
pub(super) fn is_ascii(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] >= 0x80 {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `text` may contain one of the ASCII `words` in any case: false only when it
/// cannot (a cheap test before a case-insensitive regex; text with other characters
/// is passed on, since Unicode case folding maps some of them to ASCII letters).
pub(super) fn may_contain_word(text: &str, words: &[&[u8]]) -> bool {
    if !is_ascii(text) {
        return true;
    }
    // Each word's first letter, in either case, found with `memchr` (vectorised): only
    // there is the word compared.
    let bytes = text.as_bytes();
    words.iter().any(|word| {
        let Some(&first) = word.first() else {
            return true;
        };
        let (lower, upper) = (first.to_ascii_lowercase(), first.to_ascii_uppercase());
        memchr::memchr2_iter(lower, upper, bytes).any(|at| {
            bytes
                .get(at..at + word.len())
                .is_some_and(|here| here.eq_ignore_ascii_case(word))
        })
    })
}

/// Words separated by single spaces (`split_whitespace().join(" ")`), lower-cased when
/// asked; ASCII text takes a byte loop, which matters for big logs in debug builds.
fn collapse_whitespace(text: &str, lowercase: bool) -> String {
    if !is_ascii(text) {
        let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
        return if lowercase {
            joined.to_lowercase()
        } else {
            joined
        };
    }
    let bytes = text.as_bytes();
    // Already single-spaced (the usual case): copy it whole. A plain loop: this runs
    // for every title and value of a log.
    let mut single_spaced = bytes.first().is_none_or(|&b| !is_ascii_space(b))
        && bytes.last().is_none_or(|&b| !is_ascii_space(b));
    let mut i = 1;
    while single_spaced && i < bytes.len() {
        match bytes[i] {
            b' ' => single_spaced = bytes[i - 1] != b' ',
            b'\t' | b'\n' | 0x0B | 0x0C | b'\r' => single_spaced = false,
            _ => {}
        }
        i += 1;
    }
    if single_spaced {
        let mut out = bytes.to_vec();
        if lowercase {
            let letters = out.as_mut_slice();
            let mut i = 0;
            while i < letters.len() {
                if letters[i].is_ascii_uppercase() {
                    letters[i] += b'a' - b'A';
                }
                i += 1;
            }
        }
        // ASCII in, ASCII out.
        return String::from_utf8(out).unwrap_or_default();
    }
    let mut out = Vec::with_capacity(text.len());
    let mut pending_space = false;
    for &byte in text.as_bytes() {
        if is_ascii_space(byte) {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(b' ');
            pending_space = false;
        }
        out.push(if lowercase {
            byte.to_ascii_lowercase()
        } else {
            byte
        });
    }
    // Only ASCII bytes were copied.
    String::from_utf8(out).unwrap_or_default()
}

pub(super) fn date_from_captures(
    c: &regex::Captures<'_>,
) -> Option<(NaiveDate, Option<NaiveTime>)> {
    let num = |name: &str| c.name(name).and_then(|m| m.as_str().parse::<u32>().ok());
    let date = match (num("y"), num("m"), num("d")) {
        (Some(y), Some(m), Some(d)) => NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d)?,
        // `DD.MM.YYYY`: written with dots, a date is always day first.
        _ if c.name("y3").is_some() => {
            NaiveDate::from_ymd_opt(i32::try_from(num("y3")?).ok()?, num("m3")?, num("d3")?)?
        }
        // `a/b/YYYY`: month first, else day first where only that names a day (`16/01/2025`).
        _ => {
            let (y, a, b) = (i32::try_from(num("y2")?).ok()?, num("m2")?, num("d2")?);
            NaiveDate::from_ymd_opt(y, a, b).or_else(|| NaiveDate::from_ymd_opt(y, b, a))?
        }
    };
    let time = match (num("hh"), num("mm")) {
        (Some(h), Some(min)) => NaiveTime::from_hms_opt(h, min, num("ss").unwrap_or(0)),
        _ => None,
    };
    Some((date, time))
}

/// A month and year with no day: `2026-02`, `2026/02`, `Dec 2025`, `December 2025`, and
/// a date whose day is left to fill in (`2025-01-XX`, `2025-01-??`).
static MONTH_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)(?:^|[^\d/.-])(?P<y>\d{4})[-/](?P<m>0?[1-9]|1[0-2])(?:[-/](?:xx|\?\?|__))?(?:$|[^\d/.-])|\b(?P<name>jan|january|feb|february|mar|march|apr|april|may|jun|june|jul|july|aug|august|sep|sept|september|oct|october|nov|november|dec|december)\.?,?\s+(?P<y2>\d{4})\b",
    )
});

/// The month of a value that gives no full date (see [`MONTH_ONLY`]).
pub(super) fn find_month(text: &str) -> Option<super::Month> {
    if find_date(text).is_some() {
        return None;
    }
    let Some(c) = MONTH_ONLY.captures(text) else {
        // `Maggio 2026`, `März 2026`: a month named in another language.
        let (year, month) = crate::markup::dates::named::named_month(text)?;
        return super::Month::new(year, month);
    };
    if let (Some(y), Some(m)) = (c.name("y"), c.name("m")) {
        return super::Month::new(y.as_str().parse().ok()?, m.as_str().parse().ok()?);
    }
    let name = c.name("name")?.as_str().to_ascii_lowercase();
    const NAMES: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let month = NAMES.iter().position(|n| name.starts_with(n))? + 1;
    super::Month::new(
        c.name("y2")?.as_str().parse().ok()?,
        u32::try_from(month).ok()?,
    )
}

/// The first date (and time) written anywhere in a value: in digits, else with its
/// month named (`21 Haziran 2026`) or its parts marked (`2026年6月21日`).
pub(super) fn find_date(text: &str) -> Option<(NaiveDate, Option<NaiveTime>)> {
    ANY_DATE
        .captures_iter(text)
        .find_map(|c| date_from_captures(&c))
        .or_else(|| crate::markup::dates::named::named_date(text).map(|day| (day, None)))
}

/// A heading that opens with a day written with its month's name, then the title after
/// a dash or colon (`February 27, 2025 - Testing strategy`, `27. März 2025: Cache`).
pub(super) fn named_date_then_title(text: &str) -> Option<(NaiveDate, &str)> {
    let (lead, title) = [" - ", " – ", " — ", ": ", " | "]
        .iter()
        .filter_map(|separator| text.split_once(separator))
        .min_by_key(|(lead, _)| lead.len())?;
    // Only a date before it: a day, a month's name, a year and their joiners.
    if lead.split_whitespace().count() > 5 || !lead.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let day = crate::markup::dates::named::named_date(lead)?;
    let title = title.trim();
    (!title.is_empty()).then_some((day, title))
}

/// The lines from `from` on that continue a list item its writer wrapped: indented, and
/// opening no item, heading, quote, table or fence of their own.
pub(super) fn wrapped_lines<'t>(lines: &[&'t str], mask: &[bool], from: usize) -> Vec<&'t str> {
    let continues = |i: &usize| {
        let line = lines[*i];
        let text = line.trim_start();
        mask.get(*i).copied().unwrap_or(false)
            && line.starts_with([' ', '\t'])
            && !text.is_empty()
            && !text.starts_with(['-', '*', '+', '#', '>', '|', '`', '~'])
            && !text.starts_with(|c: char| c.is_ascii_digit())
    };
    (from..lines.len())
        .take_while(continues)
        .map(|i| lines[i].trim())
        .collect()
}

/// Most words a record's title named in a "supersedes" value has.
const MAX_TITLE_WORDS: usize = 12;

/// ADR ids, wikilinks or plain titles named in a "supersedes" value.
pub(super) fn links_in(value: &str) -> Vec<String> {
    // "None (extends ADR-0087)": the field is empty; a record the rest names is related,
    // not replaced.
    let lead = value
        .trim()
        .trim_matches(['*', '_'])
        .split(['(', ',', ';', ':'])
        .next()
        .unwrap_or("")
        .trim();
    if !lead.is_empty() && (is_none_word(lead) || is_not_yet(lead)) {
        return Vec::new();
    }
    let ids: Vec<String> = ADR_REF
        .find_iter(value)
        .map(|m| normalize_adr_id(m.as_str()))
        .collect();
    if !ids.is_empty() {
        return ids;
    }
    let clean = clean_title(value);
    let clean = clean.trim_end_matches('.').trim();
    // A title is a phrase; clauses (`portion of README.md …; strategy section in …`)
    // describe what changed rather than name a record.
    let prose = clean.contains(';') || clean.split_whitespace().count() > MAX_TITLE_WORDS;
    if clean.is_empty()
        || prose
        || is_placeholder(clean)
        || is_none_word(clean)
        || is_not_yet(clean)
    {
        Vec::new()
    } else {
        vec![clean.to_string()]
    }
}

/// A value saying the field is yet to be filled ("TBD (when the SPA tests land)",
/// "pending", "待定"): no record named.
fn is_not_yet(text: &str) -> bool {
    let first = text
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    matches!(
        first.as_str(),
        "tbd" | "tba" | "tbc" | "pending" | "pendiente" | "pendente" | "待定" | "未定"
    )
}

/// "None", "n/a", `_n/a_`, "—" and their words in other languages: a field left empty.
pub(super) fn is_none_word(text: &str) -> bool {
    matches!(
        text.trim_matches(['_', '*', '(', ')'])
            .to_lowercase()
            .as_str(),
        "none"
            | "none yet"
            | "nothing yet"
            | "n/a"
            | "na"
            | "-"
            | "—"
            | "nothing"
            | "nil"
            | "null"
            | "нет"
            | "ничего"
            | "无"
            | "無"
            | "なし"
            | "없음"
            | "ninguno"
            | "ninguna"
            | "nenhum"
            | "nenhuma"
            | "aucun"
            | "aucune"
            | "keine"
            | "kein"
    )
}

/// `adr_12`, `ADR 0012` → `ADR-12`, `ADR-0012` (digits kept as written).
pub(super) fn normalize_adr_id(text: &str) -> String {
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    format!("ADR-{digits}")
}

/// Numeric identity of an ADR id, so `ADR-12` and `ADR-0012` match.
pub(super) fn adr_number(id: &str) -> Option<u32> {
    id.chars()
        .filter(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every place a word could start, compared: what the one-pass search must agree with.
    fn contains_any_word(text: &str, words: &[&[u8]]) -> bool {
        let bytes = text.as_bytes();
        words.iter().any(|word| {
            (0..=bytes.len().saturating_sub(word.len())).any(|at| {
                bytes.len() >= word.len() && bytes[at..at + word.len()].eq_ignore_ascii_case(word)
            })
        })
    }

    #[test]
    fn a_month_without_a_day_is_read_as_a_month() {
        let month = |text: &str| find_month(text).map(|m| m.to_string());
        assert_eq!(
            month("2026-02 (project inception)").as_deref(),
            Some("2026-02")
        );
        assert_eq!(month("Dec 2025").as_deref(), Some("2025-12"));
        assert_eq!(month("September, 2024").as_deref(), Some("2024-09"));
        for text in [
            "2026-02-14",
            "decided 2025",
            "2025-2026",
            "v2026-13",
            "1.2026-03",
        ] {
            assert_eq!(month(text), None, "{text}");
        }
    }

    #[test]
    fn an_id_or_date_left_for_the_writer_is_a_placeholder() {
        for title in [
            "D-XXX: 결정 제목 (YYYY-MM-DD)",
            "ADR-NNN: Title",
            "DEC-### Title",
            "Decision title (YYYY-MM-DD)",
        ] {
            assert!(is_placeholder(title), "{title}");
        }
        for title in [
            "D-024: Context as Currency",
            "ADR-XN: mixed",
            "Use YYYY-MM-DD dates in file names",
            "Re-XXL sizes for the shop",
        ] {
            assert!(!is_placeholder(title), "{title}");
        }
    }

    #[test]
    fn a_slashed_date_is_read_month_first_else_day_first_where_only_that_names_a_day() {
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d);
        assert_eq!(find_date("on 06/01/2025").map(|d| d.0), day(2025, 6, 1));
        assert_eq!(find_date("Data: 28/03/2025").map(|d| d.0), day(2025, 3, 28));
        assert_eq!(find_date("31/02/2025"), None);
        assert_eq!(
            find_date("Создано 12.01.2020").map(|d| d.0),
            day(2020, 1, 12)
        );
        assert_eq!(
            find_date("am 3.4.2024 beschlossen").map(|d| d.0),
            day(2024, 4, 3)
        );
        assert_eq!(find_date("32.01.2020"), None);
    }

    #[test]
    fn a_word_is_found_in_any_case_and_anywhere_as_every_comparison_finds_it() {
        let words: &[&[u8]] = &[b"decision", b"adr", b"entscheidung"];
        for text in [
            "",
            "a",
            "ad",
            "adr",
            "ADR-7",
            "x Decision",
            "decisio",
            "DECISIONS were made",
            "Entscheidung",
            "entscheidun",
            "nothing here at all",
            "ends in decisio\nadd\nadd",
            "radr",
        ] {
            assert_eq!(
                may_contain_word(text, words),
                contains_any_word(text, words),
                "{text:?}"
            );
        }
        assert!(may_contain_word("ünicode without the words", words));
        assert!(may_contain_word("anything", &[b""]));
        assert!(!may_contain_word("anything", &[]));
    }

    #[test]
    fn a_supersedes_value_left_empty_or_written_as_prose_names_no_record() {
        assert!(links_in("None (extends ADR-0087)").is_empty());
        assert!(links_in("_(none)_").is_empty());
        assert!(links_in("n/a, see ADR-3").is_empty());
        assert!(
            links_in(
                "portion of `docs/inspiration/README.md` (strategic shift); strategy section in `plan.md`"
            )
            .is_empty()
        );
        assert_eq!(links_in("ADR-0087 (in part)"), ["ADR-0087"]);
        assert_eq!(
            links_in("Use Postgres for storage"),
            ["Use Postgres for storage"]
        );
    }

    #[test]
    fn a_heading_may_open_with_a_day_its_month_names() {
        let read = |text| named_date_then_title(text).map(|(day, title)| (day.to_string(), title));
        assert_eq!(
            read("February 27, 2025 - Testing Strategy Decision"),
            Some(("2025-02-27".to_string(), "Testing Strategy Decision"))
        );
        assert_eq!(
            read("27 марта 2025: Кэш в Redis"),
            Some(("2025-03-27".to_string(), "Кэш в Redis"))
        );
        // A title that only mentions a day is no dated heading.
        assert_eq!(
            read("Release plan for the launch on March 3, 2025 - draft"),
            None
        );
        assert_eq!(read("Testing - unit first"), None);
    }
}
