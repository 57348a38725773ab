//! Decisions a section lists under bold leads (`- **Native menu-bar agent** (not
//! Electron) — …`, `**КСИ** — …`, `1. **命名决定**：…`): each lead names a choice of its
//! own, where none of them names a part of one (`**Pros**`, `**Why**`).
use super::super::entry::{MARKER_KEYS, canonical_key};
use super::super::text::clean_title;

/// Leads that name a part of one decision rather than a decision, lower-case.
const PART_LEADS: &[&str] = &[
    "why",
    "how",
    "what",
    "when",
    "where",
    "who",
    "pros",
    "cons",
    "pro",
    "con",
    "benefit",
    "benefits",
    "drawback",
    "drawbacks",
    "risk",
    "risks",
    "impact",
    "effect",
    "effects",
    "trade-off",
    "trade-offs",
    "tradeoff",
    "tradeoffs",
    "note",
    "notes",
    "example",
    "examples",
    "implementation",
    "result",
    "results",
    "outcome",
    "problem",
    "solution",
    "issue",
    "fix",
    "owner",
    "scope",
    "goal",
    "goals",
    "reason",
    "reasons",
    "cost",
    "todo",
    "next",
    "next steps",
    "action",
    "actions",
    "file",
    "files",
    "location",
    "usage",
    "see",
    "source",
    "reference",
    "references",
    "links",
    "test",
    "tests",
    "before",
    "after",
    "old",
    "new",
    "current",
    "priority",
    "important",
    "warning",
    "caveat",
    "caveats",
    "limitation",
    "limitations",
    "summary",
    "details",
    "rule",
    "rules",
    "ventajas",
    "desventajas",
    "vantagens",
    "desvantagens",
    "vorteile",
    "nachteile",
    "avantages",
    "inconvénients",
    "плюсы",
    "минусы",
    "причина",
    "почему",
    "проблема",
    "итог",
    "优点",
    "缺点",
    "原因",
    "影响",
    "问题",
    "方案",
    "结果",
    "メリット",
    "デメリット",
    "장점",
    "단점",
];

/// Words that name a decision inside a lead (`**Naming decision**:`, `**命名决定**：`).
const DECISION_MARKS: &[&str] = &[
    "decision",
    "решени",
    "рішенн",
    "decisión",
    "decisão",
    "décision",
    "entscheidung",
    "decisione",
    "karar",
    "keputusan",
    "quyết định",
    "决定",
    "决策",
    "決定",
    "決策",
    "결정",
];

/// A line led by a bold label with something said after it: the label, and what
/// follows it. A label closed by a colon (`**Source**: …`) is a field of one record,
/// unless it names a decision itself.
fn bold_lead(line: &str) -> Option<(&str, &str)> {
    let text = line.trim_start();
    let text = match crate::limits::list_marker_len(text.as_bytes()) {
        Some(marker) => text[marker..].trim_start(),
        None => text,
    };
    let inner = text.strip_prefix("**")?;
    let end = inner.find("**")?;
    let written = inner[..end].trim();
    let after = inner[end + 2..].trim_start();
    let label = written.trim_end_matches([':', '：']).trim();
    let colon = written.len() != label.len() || after.starts_with([':', '：']);
    let lower = label.to_lowercase();
    if colon && !DECISION_MARKS.iter().any(|mark| lower.contains(mark)) {
        return None;
    }
    let rest = inner[end + 2..]
        .trim_start_matches([':', '：', ' ', '—', '–', '-'])
        .trim();
    // A lead alone on its line says something only when it names a decision itself
    // (`1. **Naming decision**` over the points of it).
    let says = !rest.is_empty() || DECISION_MARKS.iter().any(|mark| lower.contains(mark));
    (!label.is_empty() && label.chars().count() <= 80 && says).then_some((label, rest))
}

/// The items a section's body holds at its top level (lines led in bold, bullets,
/// numbered items), each with the lines a bullet wraps onto.
pub(super) fn section_items(lines: &[&str], mask: &[bool], body: &[usize]) -> Vec<(usize, String)> {
    body.iter()
        .copied()
        .filter(|i| {
            mask[*i]
                && (["**", "- ", "* "]
                    .iter()
                    .any(|lead| lines[*i].starts_with(lead))
                    || (lines[*i].starts_with(|c: char| c.is_ascii_digit())
                        && crate::limits::list_marker_len(lines[*i].as_bytes()).is_some()))
        })
        .map(|i| {
            // A bullet's label reads on over the lines its item wraps onto.
            let mut label = lines[i].to_string();
            if !label.starts_with("**") {
                for next in lines[i + 1..].iter().take_while(|l| {
                    l.starts_with("  ")
                        && !l.trim().is_empty()
                        && crate::limits::list_marker_len(l.trim_start().as_bytes()).is_none()
                }) {
                    label.push(' ');
                    label.push_str(next.trim());
                }
            }
            (i, label)
        })
        .collect()
}

/// Whether two of `items` open in bold: what a list of leads needs at least, told
/// before reading any further.
pub(super) fn two_leads(items: &[(usize, String)]) -> bool {
    items
        .iter()
        .filter(|(_, text)| {
            let text = text.trim_start();
            let text = match crate::limits::list_marker_len(text.as_bytes()) {
                Some(marker) => text[marker..].trim_start(),
                None => text,
            };
            text.starts_with("**")
        })
        .nth(1)
        .is_some()
}

/// `items` that may lead a decision: a bold word inside a paragraph leads nothing; a
/// paragraph it opens may.
pub(super) fn paragraph_leads(lines: &[&str], items: &[(usize, String)]) -> Vec<(usize, String)> {
    items
        .iter()
        .filter(|(i, line)| !line.starts_with("**") || *i == 0 || lines[*i - 1].trim().is_empty())
        .cloned()
        .collect()
}

/// Whether a section's body (`body`, indices into `lines`, `mask` true for prose) is its
/// list of leads: at most one paragraph of its own besides them, and none leading into
/// what follows (`It binds:`), where leads after prose are that decision's points.
pub(super) fn body_is_its_leads(lines: &[&str], mask: &[bool], body: &[usize]) -> bool {
    let mut paragraphs = 0;
    for (n, &i) in body.iter().enumerate() {
        let line = lines[i];
        let starts_paragraph = n == 0 || lines[i - 1].trim().is_empty();
        let own_prose = mask[i]
            && !line.trim().is_empty()
            && !line.starts_with([' ', '\t', '|', '>', '*'])
            && crate::limits::list_marker_len(line.as_bytes()).is_none();
        if !own_prose {
            continue;
        }
        if starts_paragraph {
            paragraphs += 1;
        }
        if paragraphs > 1 || line.trim_end().ends_with([':', '：']) {
            return false;
        }
    }
    true
}

/// Whether a lead names a part of one decision.
fn names_a_part(label: &str) -> bool {
    let lower = label.to_lowercase();
    // A file or folder named in a list of where things are kept.
    let names_a_place = lower.contains('/')
        || lower.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=4).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
        });
    if names_a_place {
        return true;
    }
    MARKER_KEYS.contains(&canonical_key(&lower)) || PART_LEADS.contains(&lower.as_str())
}

/// The title a lead gives its decision: the label when it says enough by itself,
/// else the label and the first clause after it (`КСИ: стандарт 1С`).
fn title_of(label: &str, rest: &str) -> String {
    let words = label.split_whitespace().count();
    // Scripts written without spaces say in one "word" what others say in several.
    let unspaced = label.chars().filter(|c| *c >= '\u{2E80}').count();
    if words >= 3 || (words == 1 && unspaced >= 4) || rest.is_empty() {
        return clean_title(label);
    }
    let clause = rest
        .split(['.', '。', ';', '；'])
        .next()
        .unwrap_or(rest)
        .trim();
    clean_title(&format!("{label}: {clause}"))
}

/// The decisions `items` (line index, the item's text with what it wraps onto) list
/// under bold leads: two or more, and none naming a part of one; empty otherwise.
pub(super) fn led_decisions(items: &[(usize, String)]) -> Vec<(usize, String)> {
    let led: Vec<(usize, &str, &str)> = items
        .iter()
        .filter_map(|(i, text)| bold_lead(text).map(|(label, rest)| (*i, label, rest)))
        .collect();
    if led.len() < 2 || led.iter().any(|(_, label, _)| names_a_part(label)) {
        return Vec::new();
    }
    led.into_iter()
        .map(|(i, label, rest)| (i, title_of(label, rest)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(lines: &[&str]) -> Vec<(usize, String)> {
        lines
            .iter()
            .enumerate()
            .map(|(i, l)| (i, l.to_string()))
            .collect()
    }

    #[test]
    fn leads_after_the_prose_of_one_decision_are_its_points() {
        let lines = [
            "We store facts in one table.",
            "",
            "It binds:",
            "",
            "- **Units are ids** now.",
            "- **Dims are guarded** here.",
        ];
        let mask = [true; 6];
        let body: Vec<usize> = (0..6).collect();
        assert!(!body_is_its_leads(&lines, &mask, &body));
        assert!(body_is_its_leads(&lines, &mask, &body[3..]));
        assert!(body_is_its_leads(&lines, &mask, &[0, 1, 4, 5]));
    }

    #[test]
    fn bold_leads_naming_choices_are_decisions_and_parts_of_one_are_not() {
        let got = led_decisions(&items(&[
            "- **Нативный Swift menu bar агент** (не Electron/Python) — лёгкий.",
            "**КСИ** — стандарт 1С. Остальное потом.",
            "1. **命名决定**：玄灵",
        ]));
        let titles: Vec<&str> = got.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            titles,
            [
                "Нативный Swift menu bar агент",
                "КСИ: стандарт 1С",
                "命名决定",
            ]
        );
        assert!(
            led_decisions(&items(&[
                "- **Pros** — fast",
                "- **Use Redis** for the cache"
            ]))
            .is_empty()
        );
        assert!(
            led_decisions(&items(&[
                "- **决策概述**：启动。",
                "- **来源**：用户反馈。"
            ]))
            .is_empty()
        );
        assert!(led_decisions(&items(&["- **Use Redis**: fast"])).is_empty());
        assert!(
            led_decisions(&items(&["- **Decision**: Redis", "- **Cache** — Redis"])).is_empty()
        );
        assert!(
            led_decisions(&items(&["- **TODO.md** — tasks", "- **docs/** — the docs"])).is_empty()
        );
        let titles: Vec<String> = led_decisions(&items(&["**Файлы** — S3.", "**Фото** — сжатие."]))
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        assert_eq!(titles, ["Файлы: S3", "Фото: сжатие"]);
        // A lead alone on its line, over its points, when it names a decision.
        let titles: Vec<String> =
            led_decisions(&items(&["1. **命名决定**", "2. **Tech decision**"]))
                .into_iter()
                .map(|(_, t)| t)
                .collect();
        assert_eq!(titles, ["命名决定", "Tech decision"]);
        assert!(led_decisions(&items(&["1. **Setup**", "2. **Deploy**"])).is_empty());
    }
}
