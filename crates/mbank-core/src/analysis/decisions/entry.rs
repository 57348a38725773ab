//! What one entry's heading and body say about it, for logs and ADR files alike: a
//! heading read as a dated, Cline, ADR or plain title, and the fields (`**Date:**`,
//! `Status:`, `Supersedes:` …) of its body; plus which lines are content at all.
use std::sync::LazyLock;

use chrono::{NaiveDate, NaiveTime};
use regex::Regex;

use super::text::{
    ADR_REF, DATE_TIME, clean_title, date_from_captures, find_date, is_ascii, is_ascii_space,
    is_placeholder, links_in, may_contain_word, may_match, normalize_adr_id, regex, strip_markup,
};
use super::{DecisionStatus, DecisionStyle};
use crate::markup::markdown;

/// Date at the start of a heading's text, optionally in brackets, then the title.
static DATE_FIRST: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"^[\[(]?{DATE_TIME}[\])]?(?:\s*(?:[-–—:|：｜]+|\s)\s*(?P<rest>.*))?$"
    ))
});
/// Title, then a date at the end (`X - 2025-05-22`, `X (2025-05-22)`, `X（2025-05-22）`).
static DATE_LAST: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"^(?P<rest>.*?\S)\s*(?:(?:[-–—:|,：｜，]\s*|\s)[\[(（【]?|[\[(（【]){DATE_TIME}[\])）】]?$"
    ))
});
/// `Decision: X`, `Decision - X`, `Decision 3: X`, `Decision #3`.
static CLINE_TITLE: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)^(?:decision|решение|decisión|decisao|decisão|décision|entscheidung|决定|決定|决策|決策|결정)(?:\s*#?\s*(?P<n>\d+))?\s*(?:[:：\-–—.]\s*(?P<rest>.*))?$",
    )
});
/// A title ending in a date and a note in the same brackets (`Export API (2026-07-06, #18)`,
/// `X (2026-07-06; Epic #39)`, `X [2026-05-19 — superseded by Y]`): the date, the title
/// before the brackets.
static DATE_NOTE_LAST: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"^(?P<rest>.*?\S)\s*[\[(（【]{DATE_TIME}(?:\s*[,;，；、]|\s+[-–—]+|\s+)\s*(?P<note>[^\])）】]*)[\])）】]$"
    ))
});
/// A title ending in a span of dates (`Ball tracking (2026-02-23 to 2026-02-24)`): the
/// span's first date, the title before it.
static DATE_SPAN_LAST: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"(?i)^(?P<rest>.*?\S)\s*(?:[-–—:|,]\s*|\s)[\[(]?{DATE_TIME}\s*(?:to|until|till|through|bis|до|по|al|a|à|até|au|~|〜|～|–|—|-)\s*\d{{4}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}[\])]?$"
    ))
});
/// A bold label numbering one of several decisions and naming it (`- **Decision (1) — Use
/// X.** Why: …`, `**Decisão 2: Y**`): the name, up to the bold's end.
static NUMBERED_DECISION: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)^(?:[-*+]\s+)?\*\*(?:decision|decisão|decisao|decisión|décision|entscheidung|decisione|beslissing|decyzja|karar|keputusan|решение|рішення|决定|決定|决策|決策|결정)\s*(?:\(\s*\d{1,3}\s*\)|#?\s*\d{1,3})\s*[:：\-–—.]\s*(?P<name>.+?)(?:\*\*|$)",
    )
});
/// `ADR-0011: X`, `ADR 12 — X`, `ADR-3.`, `[ADR-7] X`, `ADR-1：X`.
static ADR_TITLE: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)^\[?(?P<id>adr[-_ ]?\d+)\b(?P<dated>[-/.]\d)?\]?\s*(?:[:：\-–—.|·]\s*)?(?P<rest>.*)$",
    )
});

/// `ADR-007: Title`, `[ADR-1] Title`: the record's id and the rest; `ADR 2025-11-21: X`
/// is a record dated, not numbered, by its first number.
pub(super) fn adr_title(text: &str) -> Option<regex::Captures<'_>> {
    ADR_TITLE
        .captures(text)
        .filter(|c| c.name("dated").is_none())
}
/// `**Key:** value`, `- **Key**: value`, `Key: value` for the few keys read from bodies;
/// a key is at most [`FIELD_KEY_MAX_CHARS`] long ([`field`]). The bound is checked after
/// the match rather than written as `{1,30}`: thirty copies of a Unicode class make a
/// regex that takes milliseconds to build, in every process that reads a decision.
static FIELD: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?(?P<key>\p{L}[\p{L}\p{M} ]+?)(?:\s*\((?P<qualifier>[^()]{1,20})\))?\s*(?:[:：]\s*(?:\*\*|__)|(?:\*\*|__)\s*[:：]|[:：])\s*(?P<value>.*)$",
    )
});

/// The longest key [`FIELD`] takes, in characters.
const FIELD_KEY_MAX_CHARS: usize = 31;

/// [`FIELD`]'s captures of `line`, when its key is short enough. The key is lazy: the
/// regex finds the shortest key the rest of the line fits, so when that one is too long
/// every other is too, and the line holds no field.
/// What separates the fields a line sets side by side (`**Date:** 2026-07-08 ·
/// **Status:** Accepted`), when every part of it is a field; not a table's row.
fn fields_separator(line: &str) -> Option<&'static str> {
    // One pass over the bytes rules out nearly all of them: `|`, or the last byte of
    // `·` (U+00B7) or `•` (U+2022), which no other character of a line ends with often.
    let may_separate = line.bytes().any(|b| matches!(b, b'|' | 0xB7 | 0xA2));
    if !may_separate || line.trim_start().starts_with('|') {
        return None;
    }
    [" · ", " • ", " | "].into_iter().find(|separator| {
        line.contains(separator) && line.split(separator).all(|part| field(part).is_some())
    })
}

fn field(line: &str) -> Option<regex::Captures<'_>> {
    // Before a field's colon come only the list marker, bold marks, the key's letters
    // and spaces, and a qualifier in brackets (`Date (UTC):`, `Decision (2026-02-21):`):
    // a line with anything else there (a dot, a backtick) is no field.
    let may_be_field = may_match(is_ascii(line), line, |bytes| {
        bytes.iter().take_while(|b| **b != b':').all(|&b| {
            b.is_ascii_alphanumeric()
                || is_ascii_space(b)
                || matches!(b, b'-' | b'*' | b'+' | b'_' | b'(' | b')' | b'/')
        })
    });
    if !may_be_field {
        return None;
    }
    FIELD
        .captures(line)
        .filter(|c| c["key"].chars().count() <= FIELD_KEY_MAX_CHARS)
}

/// A body key in any language as the English key it stands for.
pub(super) fn canonical_key(key: &str) -> &str {
    match key {
        "решение"
        | "рішення"
        | "decisión"
        | "decisao"
        | "decisão"
        | "décision"
        | "entscheidung"
        | "decisione"
        | "beslissing"
        | "besluit"
        | "decyzja"
        | "karar"
        | "keputusan"
        | "quyết định"
        | "การตัดสินใจ"
        | "决定"
        | "決定"
        | "决策"
        | "決策"
        | "决策内容"
        | "決策內容"
        | "決定内容"
        | "결정" => "decision",
        "статус" | "estado" | "statut" | "stato" | "durum" | "trạng thái" | "สถานะ" | "状态"
        | "狀態" | "ステータス" | "상태" => "status",
        "标题" | "標題" | "タイトル" | "件名" | "제목" | "título" | "titulo" | "titre"
        | "titel" | "titolo" | "tytuł" | "başlık" | "заголовок" | "название" | "назва"
        | "judul" | "tiêu đề" | "หัวข้อ" => "title",
        // "First accepted", the day the record took effect.
        "首次接受" | "接受日期" | "接受时间" | "采纳日期" | "採納日期" | "承認日" => {
            "decided on"
        }
        "取代" | "替代" => "supersedes",
        "被取代" | "被替代" | "取代者" => "superseded by",
        "дата" | "fecha" | "data" | "datum" | "tarih" | "tanggal" | "ngày" | "วันที่" | "日期"
        | "日付" | "発生日" | "決定日" | "날짜" | "决策时间" | "決策時間" | "决策日期"
        | "決策日期" | "决定时间" | "決定時間" | "결정일" | "일자" | "决定日期" | "日時"
        | "data decisione" | "fecha de decisión" | "data da decisão" => "date",
        "контекст" | "contexto" | "kontext" | "contexte" | "contesto" | "kontekst" | "bağlam"
        | "konteks" | "bối cảnh" | "บริบท" | "背景" | "맥락" => "context",
        "reason"
        | "reasoning"
        | "обоснование"
        | "обґрунтування"
        | "justificación"
        | "justificativa"
        | "begründung"
        | "justification"
        | "motivazione"
        | "uzasadnienie"
        | "gerekçe"
        | "alasan"
        | "lý do"
        | "เหตุผล"
        | "理由"
        | "原因"
        | "근거"
        | "이유" => "rationale",
        "opções consideradas"
        | "opciones consideradas"
        | "options envisagées"
        | "betrachtete optionen"
        | "рассмотренные варианты"
        | "考虑的方案"
        | "検討した案" => "options considered",
        "alternativas consideradas"
        | "alternatives envisagées"
        | "betrachtete alternativen"
        | "рассмотренные альтернативы" => "alternatives considered",
        "consequências"
        | "consecuencias"
        | "conséquences"
        | "konsequenzen"
        | "последствия"
        | "后果"
        | "影响"
        | "影響"
        | "결과" => "consequences",
        other => other,
    }
}

/// The key of a field line: [`canonical_key`], and a choice named for whoever made it
/// ("**PureDB choice:** 8KB", "Final decision: …") is the decision.
fn field_key(key: &str) -> &str {
    match canonical_key(key) {
        other
            if other.ends_with(" choice")
                || other.ends_with(" decision")
                || other.ends_with(" chosen") =>
        {
            "decision"
        }
        other => other,
    }
}

/// A date of some kind ("Ngày ghi nhận", "Fecha de decisión", "Date decided") as the
/// entry's date; "data", a date in some languages, leads English keys too.
fn date_of_some_kind(key: &str) -> &str {
    match key.split_once(' ') {
        Some((first, _)) if first != "data" && canonical_key(first) == "date" => "date",
        _ => key,
    }
}
/// Words [`SUPERSEDED_BY`] cannot match without.
pub(super) const SUPERSEDED_WORDS: &[&[u8]] = &[b"superseded", b"replaced"];
pub(super) static SUPERSEDED_BY: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)\b(?:superseded|replaced)\s+(?:by|with)\b[:\s]*(?P<rest>.*)$"));

/// Body keys that mark a heading as a decision block.
pub(super) const MARKER_KEYS: [&str; 11] = [
    "date",
    "status",
    "context",
    "decision",
    "rationale",
    "alternatives considered",
    "alternatives",
    "consequences",
    "options considered",
    "selected",
    "decided",
];

/// What a body says about its entry.
#[derive(Default)]
pub(super) struct EntryFields {
    pub(super) date: Option<(NaiveDate, Option<NaiveTime>)>,
    /// A date field that names only its month (`**Date:** 2026-02 (inception)`).
    pub(super) month: Option<super::Month>,
    pub(super) status: Option<DecisionStatus>,
    pub(super) supersedes: Vec<String>,
    pub(super) superseded_by: Vec<String>,
    pub(super) decision: Option<String>,
    pub(super) has_marker: bool,
    /// A Decision field (or section) says what was decided.
    pub(super) decided: bool,
    /// A Decision field is there but left empty: the choice is still to make.
    pub(super) undecided: bool,
}

/// What a line of fields (`Decision: X | Reason: Y | Alternative: Z`, or with dashes
/// between them, in any language) says was decided: its decision field's value.
pub(super) fn decision_of_fields(text: &str) -> Option<String> {
    if let Some(numbered) = NUMBERED_DECISION.captures(text) {
        let name = clean_title(numbered["name"].trim().trim_end_matches(['.', ':', '：']));
        if !name.is_empty() {
            return Some(name);
        }
    }
    text.split(" | ")
        .flat_map(|part| part.split(" — "))
        .flat_map(|part| part.split(" – "))
        .find_map(|part| {
            let c = field(part)?;
            (canonical_key(&c["key"].trim().to_lowercase()) == "decision")
                .then(|| clean_title(c["value"].trim()))
                .filter(|value| !value.is_empty())
        })
}

/// A heading whose first word names one of a block's fields (`#### Data da Decisão`,
/// `### Status update`): a part of an entry, whatever follows the word.
pub(super) fn names_a_field(heading: &str) -> bool {
    MARKER_KEYS.contains(&first_word_key(heading).as_str())
}

/// The English key a heading's first word stands for in any language (`Estado` →
/// `status`, `Дата создания` → `date`); the word itself when it stands for none.
pub(super) fn first_word_key(heading: &str) -> String {
    let lower = clean_title(heading).to_lowercase();
    let first = lower.split_whitespace().next().unwrap_or_default();
    canonical_key(first).to_string()
}

/// A heading that is a section of a decision block (`### Context`, `### Decision`), in
/// any language.
pub(super) fn is_block_section(heading: &str) -> bool {
    MARKER_KEYS.contains(&canonical_key(&clean_title(heading).to_lowercase()))
}

/// A list item that is only the name of a field (`- **Date**`, `- **原因/背景**`, `- Title:`):
/// a form showing what an entry holds, never an entry itself.
pub(super) fn is_field_label(text: &str) -> bool {
    let lower = clean_title(text).to_lowercase();
    let label = lower.trim_end_matches([':', '：']).trim();
    !label.is_empty()
        && label.split(['/', '／']).all(|part| {
            let key = canonical_key(part.trim());
            key == "title" || MARKER_KEYS.contains(&key)
        })
}

/// A heading that is the Decision part of a block, in any language.
pub(super) fn names_a_decision(heading: &str) -> bool {
    canonical_key(&clean_title(heading).to_lowercase()) == "decision"
}

/// A bold label closed by a full stop (`**Data.** 2026-07-09`, `**Decisione.** …`), as
/// the field it writes (`**Data:** 2026-07-09`).
fn period_label(line: &str) -> Option<String> {
    let rest = line.trim_start().strip_prefix("**")?;
    let (key, value) = rest.split_once(".**")?;
    let is_key = !key.is_empty()
        && key.chars().count() <= FIELD_KEY_MAX_CHARS
        && key.chars().all(|c| c.is_alphabetic() || c == ' ');
    is_key.then(|| format!("**{key}:** {}", value.trim_start()))
}

pub(super) fn read_fields<'a>(lines: impl Iterator<Item = &'a str>) -> EntryFields {
    // A line holds no line break: split at one, it stays whole.
    let lines = lines.flat_map(|line| line.split(fields_separator(line).unwrap_or("\n")));
    let mut fields = EntryFields::default();
    // A line that is only a date (under a heading naming it, in whatever language): the
    // entry's date when no field gives one.
    let mut date_line = None;
    // A decision field with nothing after its colon: the list below it says what.
    let mut decision_below = false;
    let mut date_below = false;
    for line in lines {
        // Nothing below matches a blank line.
        if line.trim().is_empty() {
            continue;
        }
        let labelled;
        let line = match period_label(line) {
            Some(field) => {
                labelled = field;
                labelled.as_str()
            }
            None => line,
        };
        // A table of the record's date and status (`| **日期** | 2026-06-03 |`) under its
        // heading; other two-column tables list things, not this record's fields.
        let row;
        let line = if line.trim_start().starts_with('|') {
            row = field_of_row(line);
            match field(&row) {
                Some(c)
                    if matches!(
                        canonical_key(c["key"].trim().to_lowercase().as_str()),
                        "date" | "status"
                    ) =>
                {
                    row.as_ref()
                }
                _ => line,
            }
        } else {
            line
        };
        if std::mem::take(&mut decision_below)
            && let Some(item) = list_item_text(line)
        {
            fields.decided = true;
            fields.decision = Some(item);
            continue;
        }
        if date_line.is_none()
            && !line.chars().any(char::is_alphabetic)
            && may_hold_date(line.is_ascii(), line)
        {
            date_line = find_date(line);
        }
        if let Some((_, text)) = markdown::heading(line) {
            let key = text
                .trim()
                .trim_end_matches([':', '：'])
                .trim()
                .to_lowercase();
            let key = canonical_key(&key);
            if MARKER_KEYS.contains(&key) {
                fields.has_marker = true;
            }
            if key == "decision" {
                fields.decided = true;
            }
            date_below = key == "date";
            continue;
        }
        // The first line under a heading naming the date (`### 决策时间` over
        // `2026-01-27（项目启动）`) dates the entry.
        if std::mem::take(&mut date_below) && fields.date.is_none() {
            fields.date = find_date(line);
        }
        if (line.as_bytes().contains(&b':') || line.contains('：'))
            && let Some(c) = field(line)
        {
            let key = c["key"].trim().to_lowercase();
            // A bullet's bold lead ("- **User choice**: …") describes; a line of its own
            // names the choice made ("**PureDB choice:** 8KB").
            let bullet = line.trim_start().starts_with(['-', '*', '+'])
                && !line.trim_start().starts_with("**");
            let key = if bullet {
                canonical_key(&key).to_string()
            } else {
                field_key(&key).to_string()
            };
            let value = c["value"].trim();
            // "**결정 (2026-02-21)**:": the day the label gives dates its entry.
            if fields.date.is_none()
                && let Some(qualifier) = c.name("qualifier")
                && canonical_key(&key) == "decision"
            {
                fields.date = find_date(qualifier.as_str());
            }
            // "Ngày ghi nhận: 2026-07-23" dates the entry; "Date nodes: show teams" does not.
            let key = match date_of_some_kind(&key) {
                "date" if find_date(value).is_some() => "date".to_string(),
                _ => key,
            };
            if MARKER_KEYS.contains(&key.as_str()) {
                fields.has_marker = true;
            }
            match key.as_str() {
                "date" | "created" | "decided" | "decided on" | "decision date"
                    if fields.date.is_none() =>
                {
                    fields.date = find_date(value);
                    if fields.date.is_none() && fields.month.is_none() {
                        fields.month = super::text::find_month(value);
                    }
                }
                "status" if fields.status.is_none() => {
                    fields.status = super::meaning::status_of_field(value);
                    // "Decided 2026-03-02": the day the status was reached dates the
                    // entry when no field of its own does.
                    if date_line.is_none() {
                        date_line = find_date(value);
                    }
                    if may_contain_word(value, SUPERSEDED_WORDS)
                        && let Some(m) = SUPERSEDED_BY.captures(value)
                    {
                        fields.superseded_by.extend(links_in(&m["rest"]));
                    }
                    if let Some(by) = super::superseded_by_passive(value.trim()) {
                        fields.superseded_by.extend(links_in(by));
                    }
                }
                "supersedes" | "replaces" => fields.supersedes.extend(links_in(value)),
                "superseded by" | "replaced by" => {
                    let links = links_in(value);
                    if !links.is_empty() {
                        fields.status.get_or_insert(DecisionStatus::Superseded);
                    }
                    fields.superseded_by.extend(links);
                }
                "decision" if fields.decision.is_none() && !value.is_empty() => {
                    let decision = clean_title(value);
                    fields.decided |= !decision.is_empty() && !is_placeholder(&decision);
                    fields.decision = Some(decision);
                }
                "decision" if fields.decision.is_none() => {
                    decision_below = true;
                    fields.undecided = true;
                }
                _ => {}
            }
            continue;
        }
        // "SUPERSEDED by [[ADR-0011]]" written as a sentence, unless it says so of
        // another record named before it (`- ADR-0016: OAuth (superseded by ADR-0019)`).
        if may_contain_word(line, SUPERSEDED_WORDS)
            && let Some(m) = SUPERSEDED_BY.captures(line)
            && m.get(0)
                .is_some_and(|whole| !ADR_REF.is_match(&line[..whole.start()]))
        {
            let ids: Vec<String> = ADR_REF
                .find_iter(&m["rest"])
                .map(|m| normalize_adr_id(m.as_str()))
                .collect();
            if !ids.is_empty() {
                fields.status = Some(DecisionStatus::Superseded);
                fields.superseded_by.extend(ids);
            }
        }
    }
    if fields.date.is_none() {
        fields.date = date_line;
    }
    fields.supersedes.dedup();
    fields.superseded_by.dedup();
    // A list under the empty field says what was decided after all.
    fields.undecided &= !fields.decided;
    fields
}

/// The text of a bullet (see [`bullet_title`]), or `None` for a line that is no bullet.
fn list_item_text(line: &str) -> Option<String> {
    let rest = line.trim_start().strip_prefix(['-', '*', '+'])?;
    bullet_title(rest.strip_prefix(char::is_whitespace)?)
}

/// A bullet's title from the text after its marker: its bold label when it opens with
/// one (`**Use X:** why`), else the whole text; `None` when that is empty or a
/// placeholder.
pub(super) fn bullet_title(text: &str) -> Option<String> {
    let text = text.trim();
    let title = match text
        .strip_prefix("**")
        .and_then(|bold| bold.split_once("**"))
    {
        Some((label, _)) if !label.trim().is_empty() => label,
        _ => text,
    };
    let title = clean_title(title.trim().trim_end_matches([':', '：']));
    (!title.is_empty() && !is_placeholder(&title)).then_some(title)
}

/// Lines (0-based) that are neither in code fences nor in frontmatter.
pub(super) fn content_mask(text: &str, line_count: usize) -> Vec<bool> {
    let mut mask = vec![true; line_count];
    let fences = markdown::fenced_lines(text);
    let lines: Vec<&str> = if fences.is_empty() {
        Vec::new()
    } else {
        text.lines().collect()
    };
    for (start, end) in fences {
        // A fence never closed runs to the end of the file: a slip of the writer, who
        // went on writing the log below it. Its code ends at the next section heading.
        let closed = lines.get(end.saturating_sub(1)).is_some_and(|last| {
            let last = last.trim();
            end > start && (last.starts_with("```") || last.starts_with("~~~"))
        });
        let end = if end >= line_count && !closed {
            (start..end)
                .find(|i| {
                    lines
                        .get(*i)
                        .and_then(|line| markdown::heading(line))
                        .is_some_and(|(level, _)| level >= 2)
                })
                .unwrap_or(end)
        } else {
            end
        };
        for slot in mask
            .iter_mut()
            .take(end.min(line_count))
            .skip(start.saturating_sub(1))
        {
            *slot = false;
        }
    }
    if let Some(fm) = markdown::frontmatter(text) {
        let lines = text[..fm.body_start.min(text.len())].lines().count();
        for slot in mask.iter_mut().take(lines) {
            *slot = false;
        }
    }
    // What an HTML comment holds (`<!-- Example: ## 2026-06-12 — … -->`) is not shown
    // and records nothing: lines from one opening a line to the line that closes it.
    let mut in_comment = false;
    for (slot, line) in mask.iter_mut().zip(text.lines()) {
        let trimmed = line.trim();
        let opens = !in_comment && trimmed.starts_with("<!--");
        if opens || in_comment {
            *slot = false;
            in_comment = !trimmed.contains("-->");
        }
    }
    mask
}

/// How a heading's text reads as a decision.
pub(super) struct HeadingTitle {
    pub(super) title: String,
    pub(super) id: Option<String>,
    pub(super) date: Option<(NaiveDate, Option<NaiveTime>)>,
    /// A month in brackets at the end (`Event-driven state (Dec 2025)`), when no date is.
    pub(super) month: Option<super::Month>,
    pub(super) style: DecisionStyle,
    /// False for a plain heading, which is a decision only when its body says so.
    pub(super) certain: bool,
    /// A status the note beside its date gives (`[2026-05-19 — superseded by X]`).
    pub(super) status: Option<DecisionStatus>,
}

/// Whether `text` may hold a date [`DATE_FIRST`], [`DATE_LAST`] or [`DATE_SPAN_LAST`]
/// read: each has a digit, a `-`, `/` or `.`, and a digit (`ascii`: `text` is ASCII).
fn may_hold_date(ascii: bool, text: &str) -> bool {
    may_match(ascii, text, |bytes| {
        bytes.windows(3).any(|w| {
            w[0].is_ascii_digit() && matches!(w[1], b'-' | b'/' | b'.') && w[2].is_ascii_digit()
        })
    })
}

/// The month a heading is made of and nothing else: `2026-03`, `2026/03`, `March 2026`,
/// `Maggio 2026`.
fn only_a_month(text: &str) -> Option<super::Month> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let numeric = words.len() == 1
        && text.len() <= 7
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'/' | b'.'));
    if !(numeric || words.len() == 2) {
        return None;
    }
    super::text::find_month(text)
}

/// A heading opening with a month in digits, then a separator and a title:
/// `2026-07 — Siti statici con Astro`, `2026/07: Pagefind`.
fn month_then_title(text: &str) -> Option<(super::Month, &str)> {
    let inner = text.strip_prefix(['[', '(']).unwrap_or(text);
    let bytes = inner.as_bytes();
    let year_end = 4;
    if bytes.len() < 8
        || !bytes[..year_end].iter().all(u8::is_ascii_digit)
        || !matches!(bytes[year_end], b'-' | b'/')
    {
        return None;
    }
    let month_len = bytes[year_end + 1..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let month_end = year_end + 1 + month_len;
    // A day left to fill in (`2025-01-XX`) gives only the month.
    let unfilled = inner.get(month_end..month_end + 3).is_some_and(|day| {
        matches!(
            day.to_ascii_lowercase().as_str(),
            "-xx" | "/xx" | "-??" | "/??" | "-__" | "/__"
        )
    });
    let after = month_end + if unfilled { 3 } else { 0 };
    // A day after the month (`2026-07-03`) makes it a date, read elsewhere.
    if !(1..=2).contains(&month_len) || matches!(bytes.get(after), Some(b'-' | b'/' | b'.')) {
        return None;
    }
    let month = super::Month::new(inner[..4].parse().ok()?, inner[5..month_end].parse().ok()?)?;
    let rest = &inner[after..];
    let title = rest.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '-' | '–' | '—' | ':' | '|' | '：' | '｜' | ']' | ')')
    });
    // A dash, colon, bar or the stamp's closing bracket must stand between them (`2026-07
    // Release` may be a version); a title must follow.
    let separated = rest[..rest.len() - title.len()].contains(|c: char| !c.is_whitespace());
    (separated && !title.trim().is_empty()).then_some((month, title))
}

pub(super) fn read_heading(text: &str) -> HeadingTitle {
    let text = strip_markup(text);
    let text = text.trim();
    let mut out = HeadingTitle {
        // Every branch below sets the title.
        title: String::new(),
        id: None,
        date: None,
        month: None,
        style: DecisionStyle::Block,
        certain: false,
        status: None,
    };
    let mut rest = text.to_string();
    let ascii = is_ascii(text);
    let may_hold_date = may_hold_date(ascii, text);
    let date_first = may_hold_date
        && may_match(ascii, text, |bytes| {
            matches!(bytes.first(), Some(b'[' | b'(' | b'0'..=b'9'))
        });
    if date_first
        && let Some(c) = DATE_FIRST.captures(text)
        && let Some(date) = date_from_captures(&c)
    {
        out.date = Some(date);
        rest = c.name("rest").map_or("", |m| m.as_str()).to_string();
        out.style = DecisionStyle::DatedHeading;
        out.certain = true;
    } else if may_hold_date
        && let Some(c) = DATE_SPAN_LAST.captures(text)
        && let Some(date) = date_from_captures(&c)
    {
        // A span of dates: the title is what comes before it, never cut inside it.
        out.date = Some(date);
        rest = c["rest"]
            .trim_end()
            .trim_end_matches(['(', '['])
            .to_string();
        out.style = DecisionStyle::DatedHeading;
        out.certain = true;
    } else if may_hold_date
        && let Some(c) = text
            .ends_with([')', '）', ']', '】'])
            // Only a title ending in brackets can hold a date and a note in them; the
            // note may name a later date (`[2026-05-19 — superseded 2026-05-29]`).
            .then(|| DATE_NOTE_LAST.captures(text))
            .flatten()
            .or_else(|| DATE_LAST.captures(text))
        && let Some(date) = date_from_captures(&c)
    {
        out.date = Some(date);
        out.status = c
            .name("note")
            .and_then(|note| super::meaning::status_of_field(note.as_str()));
        rest = c["rest"].to_string();
        out.style = DecisionStyle::DatedHeading;
        out.certain = true;
    } else if rest.ends_with([')', '）'])
        && let Some(open) = rest.rfind(['(', '（'])
        && let Some(inner) = rest[open..]
            .get(rest[open..].chars().next().map_or(1, char::len_utf8)..)
            .map(|inner| inner.trim_end_matches([')', '）']).trim())
        && inner.len() <= 15
        && inner.split_whitespace().count() <= 2
        && let Some(month) = super::text::find_month(inner)
        && !rest[..open].trim().is_empty()
    {
        // Only the month is given (`Event-driven state (Dec 2025)`): the title is what
        // comes before the brackets.
        out.month = Some(month);
        rest = rest[..open].trim_end().to_string();
    } else if let Some((day, title)) = super::text::named_date_then_title(text) {
        out.date = Some((day, None));
        rest = title.to_string();
        out.style = DecisionStyle::DatedHeading;
        out.certain = true;
    } else if let Some((month, title)) = month_then_title(text) {
        // A month, then the title (`## 2026-07 — Siti statici con Astro`).
        out.month = Some(month);
        rest = title.to_string();
        out.style = DecisionStyle::DatedHeading;
        out.certain = true;
    } else if let Some(month) = only_a_month(text) {
        // A month over the entries made in it (`## 2026-03`, `## Maggio 2026`).
        out.month = Some(month);
        rest = String::new();
        out.style = DecisionStyle::DatedHeading;
        out.certain = true;
    }
    let rest_clean = clean_title(&rest);
    let starts_with = |word: &[u8]| {
        // `rest_clean` is a cleaned part of `text`: ASCII when it is.
        may_match(ascii, &rest_clean, |bytes| {
            bytes.len() >= word.len() && bytes[..word.len()].eq_ignore_ascii_case(word)
        })
    };
    // Decision labels in other languages are not ASCII, but for the German one.
    let decision_prefix =
        starts_with(b"decision") || starts_with(b"entscheidung") || !is_ascii(&rest_clean);
    let adr_prefix = starts_with(b"adr") || starts_with(b"[adr");
    if adr_prefix && let Some(c) = adr_title(&rest_clean) {
        out.id = Some(normalize_adr_id(&c["id"]));
        out.title = clean_title(&c["rest"]);
        out.style = DecisionStyle::Adr;
        out.certain = true;
    } else if decision_prefix && let Some(c) = CLINE_TITLE.captures(&rest_clean) {
        let named = c.name("rest").map(|m| clean_title(m.as_str()));
        out.title = match named {
            Some(t) if !t.is_empty() => t,
            _ => rest_clean.clone(),
        };
        // A bare "Decision" heading is a section of a block, not a block.
        if c.name("n").is_some() || c.name("rest").is_some_and(|m| !m.as_str().is_empty()) {
            if out.style != DecisionStyle::DatedHeading {
                out.style = DecisionStyle::ClineBlock;
            }
            out.certain = true;
        }
    } else {
        out.title = rest_clean;
    }
    out
}

/// Whether a heading names a section of decisions made, in any language: its words hold
/// "decisions" (or "decision log", "decision records", "ADRs", "決定事項", "решения" …)
/// and nothing that makes them open, future, lessons or issues. The singular "Decision"
/// names one decision's part ("### Decision" in a block, "Decision Engine"), not a list
/// of them; a heading that is itself an entry (`## Decision: X`, `## ADR-3 …`) is not a
/// section.
pub(crate) fn is_decision_section_heading(text: &str) -> bool {
    if !may_contain_word(text, super::meaning::DECISION_STEMS_ASCII) {
        return false;
    }
    super::meaning::names_decisions_made(text)
        && !read_heading(text).certain
        && !opens_with_a_record_part(text)
}

/// Whether a heading opens with a part of a record other than its decision ("Обоснование
/// решения", "Rationale for the decisions", "Consequences of decisions"): it holds that
/// part, the reasons or effects of a decision, not decisions.
fn opens_with_a_record_part(text: &str) -> bool {
    let lower = text.to_lowercase();
    let first = lower
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .split(|c: char| c.is_whitespace() || matches!(c, ':' | '：'))
        .next()
        .unwrap_or("");
    matches!(
        canonical_key(first),
        "rationale" | "context" | "consequences"
    )
}

/// A table row of two cells (`| Datum | 2025-03-21 |`) as the field it holds
/// (`Datum: 2025-03-21`); any other line as it is.
pub(super) fn field_of_row(line: &str) -> std::borrow::Cow<'_, str> {
    let cells = line
        .trim()
        .strip_prefix('|')
        .and_then(|rest| rest.strip_suffix('|'))
        .map(|inner| inner.split('|').map(str::trim).collect::<Vec<_>>());
    match cells.as_deref() {
        Some([key, value])
            if key.chars().any(char::is_alphabetic)
                && !value.is_empty()
                && !value.chars().all(|c| matches!(c, '-' | ':' | ' ')) =>
        {
            std::borrow::Cow::Owned(format!("{key}: {value}"))
        }
        _ => std::borrow::Cow::Borrowed(line),
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_key_naming_a_kind_of_date_dates_the_entry() {
        let text = "# Quyết định\n\n## D-001 — Dùng PostgreSQL\n\n- Ngày ghi nhận: 2026-07-23\n\
- Quyết định: PostgreSQL 16.\n\n## D-002 — Modelo de datos\n\n- Data model: one schema\n- Date nodes: show full teams\n";
        let found = super::super::tests::log(text);
        assert_eq!(
            found.iter().map(|d| d.date).collect::<Vec<_>>(),
            [chrono::NaiveDate::from_ymd_opt(2026, 7, 23), None],
            "{found:?}"
        );
    }

    #[test]
    fn a_line_that_is_only_a_date_dates_an_entry_no_field_dates() {
        let text = "## Registro\n\n### Refatorar o tipo de mensagem\n\n#### Decisão\n\
- Usar uma união de objetos\n\n#### Data da Decisão\n2025-03-28\n";
        let found = super::super::tests::log(text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].date, super::super::tests::date("2025-03-28"));
        // A field's date comes first; a line with words and a date is no date line.
        let fields = read_fields(
            [
                "Shipped 2025-01-02 after review",
                "2025-03-28",
                "Date: 2025-04-01",
            ]
            .into_iter(),
        );
        assert_eq!(
            fields.date.map(|d| d.0),
            super::super::tests::date("2025-04-01")
        );
        let fields = read_fields(["Shipped 2025-01-02 after review"].into_iter());
        assert_eq!(fields.date, None);
    }
    use super::*;

    /// The key's bound checked after the match finds what the bound written into the
    /// regex found, on keys either side of it, in several scripts and shapes.
    #[test]
    fn a_field_is_what_the_bounded_regex_finds() {
        let bounded = regex(
            r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?(?P<key>\p{L}[\p{L}\p{M} ]{1,30}?)(?:\s*\([^()]{1,20}\))?\s*(?:[:：]\s*(?:\*\*|__)|(?:\*\*|__)\s*[:：]|[:：])\s*(?P<value>.*)$",
        );
        let mut lines: Vec<String> = [
            "Status: accepted",
            "- **Status:** accepted",
            "**Decision**: use SQLite",
            "__Date__ : 2025-01-02",
            "* Статус: принято",
            "决定：采用",
            "Decision date: 2025-01-02: later",
            "a: b",
            "x:",
            ": nothing",
            "**Key** :**",
            "no colon here",
            "Key with  spaces   : v",
            "1abc: digits first",
            "- Item 4.1: the service keeps handlers",
            "`code`: y",
            "Key 2: v",
            "Key.sub: v",
            "  - __Key__ : v",
            "Key\t: v",
            "+ **Key**: v: w",
            "- Key_name: v",
            "Ключ 2: v",
            "ключ ключ ключ ключ ключ ключ ключ ключ: длинный",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for length in 1..=40 {
            for letter in ["a", "é", "决"] {
                let key = letter.repeat(length);
                lines.push(format!("{key}: value"));
                lines.push(format!("- **{key}:** value"));
                lines.push(format!("{key} {key}: value"));
                lines.push(format!("{key}:{key}: value"));
                lines.push(format!("{}: value", format!("{key} ").repeat(3)));
            }
        }
        for line in &lines {
            let expected = bounded
                .captures(line)
                .map(|c| (c["key"].to_string(), c["value"].to_string()));
            let found = field(line).map(|c| (c["key"].to_string(), c["value"].to_string()));
            assert_eq!(found, expected, "{line:?}");
        }
    }

    /// A heading the date check passes over holds no date any of the patterns reads.
    #[test]
    fn a_heading_without_a_date_shape_matches_no_date_pattern() {
        let mut headings: Vec<String> = Vec::new();
        for title in [
            "Adopt queue 499",
            "Use v2.0 API",
            "Step 3 - 4",
            "ADR-12: X",
            "Q3",
        ] {
            for date in [
                "",
                "2025-05-22",
                "2025/5/2",
                "2025.05.22",
                "5/22/2025",
                "22.05.2025",
                "2025-05-22 14:03",
                "(2025-05-22)",
                "[2025-05-22]",
                "2025-05-22 to 2025-05-24",
                "2025-05-22 14:03 UTC",
                "20250522",
                "2025 - 05",
                "1-",
                "-2",
            ] {
                headings.push(format!("{title} - {date}"));
                headings.push(format!("{date} {title}"));
                headings.push(format!("{title} ({date})"));
                headings.push(date.to_string());
            }
        }
        for heading in &headings {
            let text = heading.trim();
            if !may_hold_date(is_ascii(text), text) {
                for pattern in [
                    &*DATE_FIRST,
                    &*DATE_LAST,
                    &*DATE_SPAN_LAST,
                    &*DATE_NOTE_LAST,
                ] {
                    assert!(!pattern.is_match(text), "{text:?} matches {pattern}");
                }
            }
        }
        assert!(!may_hold_date(true, "Adopt queue 499"));
        assert!(may_hold_date(true, "Adopt queue (2025-05-22)"));
    }
}
