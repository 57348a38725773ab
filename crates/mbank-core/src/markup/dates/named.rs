//! Days written in words rather than digits alone: a month's name between the day and
//! the year (`16 Şubat 2026`, `21 de junio de 2026`, `3. März 2026`, `June 21, 2026`,
//! `21 июня 2026`) or the year, month and day each marked (`2026年6月21日`,
//! `2026년 6월 21일`). A day needs its year: written after it, or after the range it
//! starts (`22 Şubat → 24 Şubat 2026`).
use chrono::NaiveDate;

/// Month names, lowercase, each with its month: full names in the languages memory is
/// written in (Russian and Polish in the genitive a date uses), and English's
/// abbreviations.
const MONTHS: &[(&str, u32)] = &[
    // English
    ("january", 1),
    ("february", 2),
    ("march", 3),
    ("april", 4),
    ("may", 5),
    ("june", 6),
    ("july", 7),
    ("august", 8),
    ("september", 9),
    ("october", 10),
    ("november", 11),
    ("december", 12),
    ("jan", 1),
    ("feb", 2),
    ("mar", 3),
    ("apr", 4),
    ("jun", 6),
    ("jul", 7),
    ("aug", 8),
    ("sep", 9),
    ("sept", 9),
    ("oct", 10),
    ("nov", 11),
    ("dec", 12),
    // Spanish
    ("enero", 1),
    ("febrero", 2),
    ("marzo", 3),
    ("abril", 4),
    ("mayo", 5),
    ("junio", 6),
    ("julio", 7),
    ("agosto", 8),
    ("septiembre", 9),
    ("setiembre", 9),
    ("octubre", 10),
    ("noviembre", 11),
    ("diciembre", 12),
    // Portuguese
    ("janeiro", 1),
    ("fevereiro", 2),
    ("março", 3),
    ("maio", 5),
    ("junho", 6),
    ("julho", 7),
    ("setembro", 9),
    ("outubro", 10),
    ("novembro", 11),
    ("dezembro", 12),
    // French
    ("janvier", 1),
    ("février", 2),
    ("mars", 3),
    ("avril", 4),
    ("mai", 5),
    ("juin", 6),
    ("juillet", 7),
    ("août", 8),
    ("septembre", 9),
    ("octobre", 10),
    ("novembre", 11),
    ("décembre", 12),
    // German
    ("januar", 1),
    ("jänner", 1),
    ("februar", 2),
    ("märz", 3),
    ("juni", 6),
    ("juli", 7),
    ("oktober", 10),
    ("dezember", 12),
    // Italian
    ("gennaio", 1),
    ("febbraio", 2),
    ("aprile", 4),
    ("maggio", 5),
    ("giugno", 6),
    ("luglio", 7),
    ("settembre", 9),
    ("ottobre", 10),
    ("dicembre", 12),
    // Dutch and Indonesian
    ("januari", 1),
    ("februari", 2),
    ("maart", 3),
    ("maret", 3),
    ("mei", 5),
    ("augustus", 8),
    ("agustus", 8),
    ("desember", 12),
    // Turkish
    ("ocak", 1),
    ("şubat", 2),
    ("mart", 3),
    ("nisan", 4),
    ("mayıs", 5),
    ("haziran", 6),
    ("temmuz", 7),
    ("ağustos", 8),
    ("eylül", 9),
    ("ekim", 10),
    ("kasım", 11),
    ("aralık", 12),
    // Russian
    ("января", 1),
    ("февраля", 2),
    ("марта", 3),
    ("апреля", 4),
    ("мая", 5),
    ("июня", 6),
    ("июля", 7),
    ("августа", 8),
    ("сентября", 9),
    ("октября", 10),
    ("ноября", 11),
    ("декабря", 12),
    // Polish
    ("stycznia", 1),
    ("lutego", 2),
    ("marca", 3),
    ("kwietnia", 4),
    ("maja", 5),
    ("czerwca", 6),
    ("lipca", 7),
    ("sierpnia", 8),
    ("września", 9),
    ("października", 10),
    ("listopada", 11),
    ("grudnia", 12),
];

/// Words that may stand between a date's parts (`21 de junio de 2026`).
const JOINERS: &[&str] = &["de", "del", "of", "the"];

fn month_of(word: &str) -> Option<u32> {
    let lower = word.to_lowercase();
    let lower = lower.trim_end_matches('.');
    MONTHS
        .iter()
        .find(|(name, _)| *name == lower)
        .map(|&(_, month)| month)
}

/// A day of the month as written (`21`, `21.`, `1st`, `3rd`).
fn day_of(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches('.');
    let digits = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|suffix| digits.strip_suffix(suffix))
        .unwrap_or(digits);
    (1..=2)
        .contains(&digits.len())
        .then(|| digits.parse().ok())
        .flatten()
        .filter(|day| (1..=31).contains(day))
}

fn year_of(word: &str) -> Option<i32> {
    (word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit()))
        .then(|| word.parse().ok())
        .flatten()
}

/// The first whole day `text` writes with a month's name or with each part marked.
pub fn named_date(text: &str) -> Option<NaiveDate> {
    if let Some(day) = marked_date(text) {
        return Some(day);
    }
    // Words, each with the punctuation that may close it; joiners left out.
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | '[' | ']' | '/'))
        .filter(|w| !w.is_empty() && !JOINERS.contains(&w.to_lowercase().as_str()))
        .collect();
    (0..words.len().saturating_sub(1)).find_map(|at| {
        let (day, month) = match (day_of(words[at]), month_of(words[at + 1])) {
            (Some(day), Some(month)) => (day, month),
            // `June 21, 2026`
            _ => (day_of(words[at + 1])?, month_of(words[at])?),
        };
        // A range's first day takes the year its last one gives (`22 Şubat → 24 Şubat
        // 2026`): the year written after it, before any other number.
        let year = words[at + 2..]
            .iter()
            .take(4)
            .find_map(|word| year_of(word))?;
        NaiveDate::from_ymd_opt(year, month, day)
    })
}

/// The first month and year `text` writes with the month's name (`Maggio 2026`,
/// `de junio de 2026`, `Март 2026`), where it names no whole day.
pub fn named_month(text: &str) -> Option<(i32, u32)> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | '[' | ']' | '/'))
        .filter(|w| !w.is_empty() && !JOINERS.contains(&w.to_lowercase().as_str()))
        .collect();
    words.windows(2).find_map(|pair| {
        let month = month_of(pair[0]).or_else(|| standalone_month_of(pair[0]))?;
        Some((year_of(pair[1])?, month))
    })
}

/// Month names as they stand alone, where a language writes them so differently from in
/// a date (Russian `Март 2026` but `3 марта 2026`; Polish `marzec`).
fn standalone_month_of(word: &str) -> Option<u32> {
    const STANDALONE: &[(&str, u32)] = &[
        ("январь", 1),
        ("февраль", 2),
        ("март", 3),
        ("апрель", 4),
        ("май", 5),
        ("июнь", 6),
        ("июль", 7),
        ("август", 8),
        ("сентябрь", 9),
        ("октябрь", 10),
        ("ноябрь", 11),
        ("декабрь", 12),
        ("styczeń", 1),
        ("luty", 2),
        ("marzec", 3),
        ("kwiecień", 4),
        ("maj", 5),
        ("czerwiec", 6),
        ("lipiec", 7),
        ("sierpień", 8),
        ("wrzesień", 9),
        ("październik", 10),
        ("listopad", 11),
        ("grudzień", 12),
    ];
    let lower = word.to_lowercase();
    STANDALONE
        .iter()
        .find(|(name, _)| *name == lower)
        .map(|&(_, month)| month)
}

/// `2026年6月21日` or `2026년 6월 21일`: a year, a month and a day, each followed by its
/// mark.
fn marked_date(text: &str) -> Option<NaiveDate> {
    for (year_mark, month_mark, day_mark) in [('年', '月', '日'), ('년', '월', '일')] {
        let mut rest = text;
        while let Some(at) = rest.find(year_mark) {
            let before = &rest[..at];
            let digits = before.bytes().rev().take_while(u8::is_ascii_digit).count();
            let after = rest[at + year_mark.len_utf8()..].trim_start();
            rest = &rest[at + year_mark.len_utf8()..];
            if digits != 4 {
                continue;
            }
            let Ok(year) = before[before.len() - 4..].parse::<i32>() else {
                continue;
            };
            let number_then = |text: &str, mark: char| -> Option<(u32, usize)> {
                let len = text.bytes().take_while(u8::is_ascii_digit).count();
                if !(1..=2).contains(&len) || !text[len..].starts_with(mark) {
                    return None;
                }
                Some((text[..len].parse().ok()?, len + mark.len_utf8()))
            };
            let Some((month, used)) = number_then(after, month_mark) else {
                continue;
            };
            let Some((day, _)) = number_then(after[used..].trim_start(), day_mark) else {
                continue;
            };
            if let Some(date) = NaiveDate::from_ymd_opt(year, month, day) {
                return Some(date);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(y, m, d)
    }

    #[test]
    fn a_month_named_between_day_and_year_is_read_in_many_languages() {
        assert_eq!(named_date("21 Haziran 2026"), day(2026, 6, 21));
        assert_eq!(named_date("16 Şubat 2026"), day(2026, 2, 16));
        assert_eq!(named_date("21 de junio de 2026"), day(2026, 6, 21));
        assert_eq!(named_date("3. März 2026"), day(2026, 3, 3));
        assert_eq!(named_date("1er"), None);
        assert_eq!(named_date("le 5 août 2025, après revue"), day(2025, 8, 5));
        assert_eq!(named_date("21 июня 2026 г."), day(2026, 6, 21));
        assert_eq!(named_date("12 października 2025"), day(2025, 10, 12));
        assert_eq!(named_date("June 21, 2026"), day(2026, 6, 21));
        assert_eq!(named_date("Decided on Jun. 3rd 2026"), day(2026, 6, 3));
        assert_eq!(named_date("7 maart 2026"), day(2026, 3, 7));
    }

    #[test]
    fn a_month_named_before_its_year_is_read() {
        assert_eq!(
            named_month("Maggio 2026 (data esatta non recuperabile)"),
            Some((2026, 5))
        );
        assert_eq!(named_month("Март 2026"), Some((2026, 3)));
        assert_eq!(named_month("de junio de 2026"), Some((2026, 6)));
        assert_eq!(named_month("Maggio"), None);
        assert_eq!(named_month("Mars mission 2026"), None);
    }

    #[test]
    fn marked_parts_are_read() {
        assert_eq!(named_date("决定于2026年6月21日"), day(2026, 6, 21));
        assert_eq!(named_date("2026년 6월 21일 결정"), day(2026, 6, 21));
        assert_eq!(named_date("2026年6月"), None);
    }

    #[test]
    fn what_names_no_whole_day_is_none() {
        // A range starts on its first day, in the year written after the range.
        assert_eq!(named_date("22 Şubat → 24 Şubat 2026"), day(2026, 2, 22));
        assert_eq!(named_date("June 30 – July 2, 2026"), day(2026, 6, 30));
        assert_eq!(named_date("May 2026"), None);
        assert_eq!(named_date("31 February 2026"), None);
        assert_eq!(named_date("Mars mission 2026"), None);
        assert_eq!(named_date("released 12 of 40 builds in 2026"), None);
        assert_eq!(named_date(""), None);
    }
}
