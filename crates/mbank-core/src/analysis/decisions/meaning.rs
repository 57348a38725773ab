//! What words say about an entry, in the languages banks are written in: whether a
//! heading names decisions made (and not open ones, lessons or plans), whether a line
//! only points to where a decision is recorded or asks a question, which status a clear
//! verb gives, and whether an entry records an event rather than a choice.
//!
//! Vocabulary is kept by meaning, one list per idea, each in English, Japanese, Chinese,
//! Korean, Russian, Spanish, Portuguese, German and French; words are matched as whole
//! words where words are spaced and as substrings in scripts that do not space them.
use super::text::strip_markup;
use super::{DecisionKind, DecisionStatus};

/// Plural (or collective) nouns for decisions: a heading holding one names a list of
/// them ("Key Decisions", "技術的決定事項", "Ключевые решения").
const DECISIONS_WORDS: &[&str] = &[
    "decisions",
    "adrs",
    // ru, uk
    "решения",
    "решений",
    "рішення",
    // es, pt, it, fr, de
    "decisiones",
    "decisões",
    "decisoes",
    "decisioni",
    "décisions",
    "entscheidungen",
    // nl, sv/da/no, pl, cs, tr, id/ms
    "beslissingen",
    "besluiten",
    "beslut",
    "beslutninger",
    "beslutningar",
    "decyzje",
    "rozhodnutí",
    "kararlar",
    "kararları",
    "kararlari",
    "keputusan",
    // el, he, ar, fa, hi
    "αποφάσεις",
    "החלטות",
    "قرارات",
    "تصمیمات",
    "निर्णय",
];

/// The stems of the words for decisions written in ASCII alone ([`DECISIONS_WORDS`],
/// "Decision Log", `ADR-7`): text without any of them names no decisions.
pub(super) const DECISION_STEMS_ASCII: &[&[u8]] = &[
    b"decisi",
    b"adr",
    b"entscheidung",
    b"beslis",
    b"beslui",
    b"beslut",
    b"decyzj",
    b"karar",
    b"keputusan",
];

/// Whether `word` (lower case) is a plural noun for decisions in one of the languages.
pub(super) fn is_decisions_word(word: &str) -> bool {
    DECISIONS_WORDS.contains(&word)
}

/// Nouns for decisions in scripts without spaces, matched inside the heading.
const DECISIONS_CJK: &[&str] = &[
    "quyết định",
    "การตัดสินใจ",
    "決定事項",
    "決定",
    "决定",
    "決策",
    "决策",
    "意思決定",
    "결정",
    "의사결정",
    "採用技術",
];

/// Words that make a decisions heading about decisions not made yet, or about something
/// else than decisions (lessons, issues, questions, plans).
const NOT_MADE_WORDS: &[&str] = &[
    // en
    "needed",
    "needs",
    "need",
    "pending",
    "open",
    "future",
    "upcoming",
    "todo",
    "tbd",
    "undecided",
    "unresolved",
    "questions",
    "question",
    "issue",
    "issues",
    "lessons",
    "lesson",
    "learned",
    "learnings",
    "plan",
    "plans",
    "planned",
    "proposed",
    "proposals",
    "incomplete",
    "outstanding",
    "awaiting",
    // ru
    "открытые",
    "нужны",
    "нужно",
    "будущие",
    "предстоящие",
    "вопросы",
    "уроки",
    "планы",
    "ожидающие",
    // es, pt
    "pendientes",
    "pendiente",
    "futuras",
    "abiertas",
    "preguntas",
    "lecciones",
    "pendentes",
    "futuras",
    "abertas",
    "perguntas",
    "lições",
    "licoes",
    "planos",
    // de
    "offene",
    "ausstehende",
    "zukünftige",
    "künftige",
    "fragen",
    "lektionen",
    "geplante",
    // fr
    "attente",
    "ouvertes",
    "futures",
    "questions",
    "leçons",
    "prévues",
    // it
    "aperte",
    "aperti",
    "domande",
    "lezioni",
    "pianificate",
    // tr
    "açık",
    "sorular",
    "dersler",
    "planlar",
    // id, ms
    "terbuka",
    "tertunda",
    "pertanyaan",
    "pelajaran",
    "rencana",
];

/// The same, in scripts without spaces.
const NOT_MADE_CJK: &[&str] = &[
    "未決",
    "未决",
    "待定",
    "待决",
    "待決",
    "検討中",
    "要決定",
    "未定",
    "将来",
    "今後",
    "课题",
    "課題",
    "问题",
    "問題",
    "教训",
    "教訓",
    "计划",
    "計画",
    "미결정",
    "향후",
    "필요",
    "예정",
    "문제",
    "교훈",
];

/// Whole words of `text`, lower-cased, split at anything not a letter or digit.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether a title is nothing but a name for decisions ("Decisions", "Kararları",
/// "决策"): no subject of its own.
pub(super) fn only_names_decisions(title: &str) -> bool {
    let plain = strip_markup(title);
    let trimmed = plain.trim().to_lowercase();
    match words(&plain).as_slice() {
        [word] => {
            DECISIONS_WORDS.contains(&word.as_str()) || DECISIONS_CJK.contains(&trimmed.as_str())
        }
        _ => DECISIONS_CJK.contains(&trimmed.as_str()),
    }
}

/// Whether the heading `text` names a section of decisions made: a plural noun for
/// decisions ("Key Decisions", "Decisiones y Consideraciones", "重要な決定事項"), or a
/// decision log's name, and nothing that makes them open, future or about something
/// else ("Decisions needed", "Future Decisions to Document", "Lessons Learned").
pub(super) fn names_decisions_made(text: &str) -> bool {
    let plain = strip_markup(text);
    let lower = plain.to_lowercase();
    let words = words(&plain);
    let names = words.iter().enumerate().any(|(i, word)| {
        let next = words.get(i + 1).map_or("", String::as_str);
        DECISIONS_WORDS.contains(&word.as_str())
            || (word == "decision" && matches!(next, "log" | "logs" | "records" | "history"))
    }) || DECISIONS_CJK.iter().any(|w| lower.contains(w));
    names && !names_not_made(&plain)
}

/// Whether a heading speaks of decisions not made, or of lessons, issues, questions or
/// plans: such a heading is no section of decisions, nor is anything below it.
pub(super) fn names_not_made(text: &str) -> bool {
    names_not_made_from(text, usize::MAX)
}

/// [`names_not_made`] of a document's title (a level-1 heading), which says so by its
/// first word ("# Open questions", "# TODO", "# Lessons learned"): a title naming its
/// product or topic ("# Architecture design - TODO application", "# Redesign of
/// pet.todo") heads decisions like any other.
pub(super) fn title_names_not_made(text: &str) -> bool {
    names_not_made_from(text, 1)
}

/// [`names_not_made`], looking at the heading's first `leading` words only.
fn names_not_made_from(text: &str, leading: usize) -> bool {
    let plain = strip_markup(text);
    let lower = plain.to_lowercase();
    let words = words(&plain);
    // "ISSUE-038: …", "BUG 12 …": a heading that is an issue's title.
    let issue_title = words
        .first()
        .is_some_and(|w| matches!(w.as_str(), "issue" | "bug" | "ticket" | "task"))
        && words
            .get(1)
            .is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()));
    issue_title
        || (words.iter().take(leading)).any(|w| NOT_MADE_WORDS.contains(&w.as_str()))
        || (!lower.is_ascii() && NOT_MADE_CJK.iter().any(|w| lower.contains(w)))
}

/// Leading phrases of a line that only points to where a decision is recorded ("Full
/// rationale in ADR-077", "See #API_004 in decisions.md").
const POINTER_LEADS: &[&str] = &[
    "see ",
    "full rationale",
    "rationale in",
    "rationale:",
    "details in",
    "more in",
    "documented in",
    "recorded in",
    "refer to",
    "cf. ",
    "→ ",
    "-> ",
    "siehe ",
    "voir ",
    "ver ",
    "véase ",
    "vea ",
    "см. ",
    "подробнее ",
    "详见",
    "參見",
    "参见",
    "詳細は",
    "参照",
    "자세한 내용",
];

/// Whether a line only points to where a decision is recorded: it opens with a pointer,
/// or it names a decision log (`Update docs/DECISIONS.md with the date and why`,
/// `Use SQLite — see decisionLog.md`), which holds the record or is how to keep it.
pub(super) fn is_pointer(text: &str) -> bool {
    let lower = strip_markup(text).trim().to_lowercase();
    POINTER_LEADS.iter().any(|lead| lower.starts_with(lead)) || names_a_decision_log(text)
}

/// Characters around a path in prose, markdown and CJK text.
const AROUND_PATHS: &str = "()[]<>`\"',;*|（）「」『』【】、，。：；";

/// The words of a text that may be paths: split at spaces and the marks around paths, an
/// import's `@`, a link's `#fragment` and a sentence's last stop taken off.
pub(super) fn path_tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || AROUND_PATHS.contains(c))
        .map(|token| {
            let token = token.trim_start_matches('@');
            let token = token.split('#').next().unwrap_or(token);
            token.trim_end_matches(['.', ':', '!', '?'])
        })
        .filter(|token| !token.is_empty() && !token.contains("://"))
}

/// Whether a path's last part names a decision log (`DECISIONS.md`, `decision-log.md`).
pub(super) fn names_decision_log(token: &str) -> bool {
    let name = token.rsplit('/').next().unwrap_or(token);
    // A number that orders the documents of a folder (`04-decisions.md`) names no role.
    let unnumbered = name
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches(['-', '_', '.', ' ']);
    let name = if unnumbered.len() < name.len() && !unnumbered.is_empty() {
        unnumbered
    } else {
        name
    };
    crate::formats::names::is_markdown(name)
        && (crate::formats::role_for_name(name) == Some(crate::model::Role::Decisions)
            || DECISION_LOG_KEYS.contains(&crate::formats::names::name_key(name).as_str()))
}

/// A decision log's name in the other languages memory is written in, as
/// [`crate::formats::names::name_key`] reduces it (`decisioni.md`, `quyet-dinh.md`,
/// `決定事項.md`). The formats give a bank's own files their English names; a log the
/// project keeps beside its memory is named in its own language.
const DECISION_LOG_KEYS: &[&str] = &[
    "decisioni",
    "registrodecisioni",
    "decisiones",
    "registrodedecisiones",
    "decisoes",
    "decisões",
    "registrodedecisoes",
    "registrodedecisões",
    "décisions",
    "journaldesdecisions",
    "journaldesdécisions",
    "entscheidungen",
    "entscheidungslog",
    "entscheidungsprotokoll",
    "beslissingen",
    "besluiten",
    "decyzje",
    "решения",
    "журналрешений",
    "kararlar",
    "quyetdinh",
    "quyếtđịnh",
    "keputusan",
    "決定事項",
    "意思決定",
    "意思決定ログ",
    "決定記録",
    "决策",
    "決策",
    "决策记录",
    "决策日志",
    "決策記錄",
    "결정",
    "결정사항",
    "의사결정",
    "의사결정기록",
    "การตัดสินใจ",
];

/// Whether a log's name says only what kind of records it holds (`adr.md`, `ADRs.md`):
/// as often one record written as a document, so read as a log only where the memory
/// names it.
pub(super) fn names_only_the_record_kind(name: &str) -> bool {
    matches!(
        crate::formats::names::name_key(name).as_str(),
        "adr" | "adrs"
    )
}

/// The folder of records a path names, as written: a folder named for records
/// (`docs/adr/`, `architecture/decisions`), or the folder of a record it names
/// (`docs/06-decisions/ADR-XXX-[name].md`, `docs/records/ADR-003-cache.md`). Written as a
/// path (with a `/`), so the word "decisions" in a sentence names none.
pub(super) fn record_folder_of(token: &str) -> Option<&str> {
    let folder = token.trim_end_matches('/');
    let (parent, last) = folder.rsplit_once('/')?;
    if crate::formats::adr_records::is_record_folder_name(last) {
        return Some(folder);
    }
    let lower = last.to_ascii_lowercase();
    let names_a_record = lower.starts_with("adr-") || lower.starts_with("adr_");
    (names_a_record && !parent.is_empty()).then_some(parent)
}

/// Whether a heading names a file or folder (`decisions/`, `ADR-INDEX.md`): it describes
/// that place, not what was decided.
pub(super) fn names_a_place(heading: &str) -> bool {
    path_tokens(heading).any(|token| {
        (token.len() > 1 && token.ends_with('/') && !token.starts_with("//"))
            || crate::formats::names::is_markdown(token)
    })
}

/// Whether a text names a decision log's file, or a folder of records, anywhere in it.
pub(super) fn names_a_decision_log(text: &str) -> bool {
    (text.contains(".md") && path_tokens(text).any(names_decision_log))
        || ((text.contains('/') || text.contains('`'))
            && path_tokens(text)
                .any(|token| record_folder_of(token).is_some() || is_code_folder(text, token)))
}

/// Whether `token` of `text` is a records folder written as code on its own (`` the
/// `decisions` directory ``): with no `/`, only a code span makes the word a name.
pub(super) fn is_code_folder(text: &str, token: &str) -> bool {
    let name = token.trim_end_matches('/');
    !name.is_empty()
        && !name.contains('/')
        && crate::formats::adr_records::is_record_folder_name(name)
        && (text.contains(&format!("`{name}`")) || text.contains(&format!("`{name}/`")))
}

/// Leading phrases of an open question or a decision still to take.
const QUESTION_LEADS: &[&str] = &[
    "decision needed",
    "decision required",
    "decision pending",
    "needs decision",
    "needs a decision",
    "open question",
    "question:",
    "tbd",
    "todo",
    "to decide",
    "undecided",
    "вопрос",
    "нужно решить",
    "pendiente",
    "por decidir",
    "a decidir",
    "zu entscheiden",
    "offene frage",
    "à décider",
    "question ouverte",
    "未定",
    "待定",
    "要検討",
    "검토 필요",
];

/// Whether a line asks a question or names a decision still to take.
pub(super) fn is_open_question(text: &str) -> bool {
    let plain = strip_markup(text);
    let trimmed = plain.trim();
    let lower = trimmed.to_lowercase();
    trimmed.ends_with('?')
        || trimmed.ends_with('？')
        || QUESTION_LEADS.iter().any(|lead| lower.starts_with(lead))
}

/// Words opening a question about why something is as it is ("Why Vite?",
/// "為什麼選擇 React？"), in the languages banks are kept in.
const WHY_LEADS: &[&str] = &[
    "why",
    "pourquoi",
    "por qué",
    "por que",
    "porque",
    "warum",
    "weshalb",
    "wieso",
    "perché",
    "perchè",
    "почему",
    "зачем",
    "чому",
    "neden",
    "niçin",
    "mengapa",
    "kenapa",
    "tại sao",
    "vì sao",
    "dlaczego",
    "waarom",
    "varför",
    "hvorfor",
    "miksi",
    "为什么",
    "為什麼",
    "为什麽",
    "為什么",
    "为何",
    "為何",
    "なぜ",
    "何故",
    "どうして",
    "왜",
];

/// Whether a title asks why something is as it is: a decision explained, where the body
/// records the answer, rather than one still to take.
pub(super) fn asks_why(title: &str) -> bool {
    let plain = strip_markup(title);
    let lower = plain.trim().to_lowercase();
    // A numbered question ("3. Why Vite?") asks the same.
    let unnumbered = lower.trim_start_matches(|c: char| c.is_ascii_digit());
    let lower = if unnumbered.len() < lower.len() {
        unnumbered.trim_start_matches(['.', ')', ':']).trim_start()
    } else {
        &lower
    };
    WHY_LEADS.iter().any(|lead| leads_with(lower, lead))
}

/// Leading words of a consideration or a possibility rather than a decision taken
/// ("Possibly extend it later", "Возможно, позже …", "今後は…").
const CONSIDERATION_LEADS: &[&str] = &[
    "consider",
    "possibly",
    "maybe",
    "perhaps",
    "might",
    "in the future",
    "potentially",
    "возможно",
    "в будущем",
    "рассмотреть",
    "considerar",
    "posiblemente",
    "quizás",
    "en el futuro",
    "possivelmente",
    "talvez",
    "no futuro",
    "möglicherweise",
    "eventuell",
    "künftig",
    "zukünftig",
    "peut-être",
    "à l'avenir",
    "envisager",
    "éventuellement",
    "将来",
    "今後",
    "可能性",
    "未来",
    "考虑",
    "考慮",
    "향후",
    "추후",
];

/// Whether a line weighs a possibility or something to consider, not a decision taken.
pub(super) fn is_consideration(text: &str) -> bool {
    let lower = strip_markup(text).trim().to_lowercase();
    CONSIDERATION_LEADS
        .iter()
        .any(|lead| leads_with(&lower, lead))
}

/// Labels of an option weighed beside the one taken, or of one left for later
/// ("Alternative: PayPal", "Future consideration: GraphQL", "备选方案：Redis").
const NOT_TAKEN_LABELS: &[&str] = &[
    "alternative",
    "alternatives",
    "rejected",
    "future",
    "later",
    "alternativa",
    "alternativas",
    "rechazado",
    "rechazada",
    "rejeitado",
    "rejeitada",
    "альтернатива",
    "отклонен",
    "verworfen",
    "rejeté",
    "备选",
    "替代方案",
    "代替案",
    "대안",
];

/// Whether a title names an option weighed and not taken, or one left for later: its
/// label (the part before a colon) says so, or what follows the label is only a
/// consideration ("Production: Consider PostgreSQL").
pub(super) fn names_an_option_not_taken(title: &str) -> bool {
    // Most titles have no label ("Decision: X" is read as X before it comes here).
    if !title.contains([':', '：']) {
        return false;
    }
    let plain = strip_markup(title);
    let Some((label, value)) = plain.split_once([':', '：']) else {
        return false;
    };
    let label = label.trim().to_lowercase();
    NOT_TAKEN_LABELS.iter().any(|word| leads_with(&label, word)) || is_consideration(value)
}

/// Leading verbs that say a decision was taken, and the status they give.
const TAKEN: &[(&str, DecisionStatus)] = &[
    ("selected", DecisionStatus::Accepted),
    ("chosen", DecisionStatus::Accepted),
    ("chose", DecisionStatus::Accepted),
    ("implemented", DecisionStatus::Accepted),
    ("adopted", DecisionStatus::Accepted),
    ("adopt", DecisionStatus::Accepted),
    ("decided", DecisionStatus::Accepted),
    ("approved", DecisionStatus::Accepted),
    ("reverted", DecisionStatus::Reverted),
    ("rolled back", DecisionStatus::Reverted),
    ("disabled", DecisionStatus::Reverted),
    ("выбран", DecisionStatus::Accepted),
    ("выбрано", DecisionStatus::Accepted),
    ("принято", DecisionStatus::Accepted),
    ("реализовано", DecisionStatus::Accepted),
    ("откат", DecisionStatus::Reverted),
    ("adoptado", DecisionStatus::Accepted),
    ("adoptada", DecisionStatus::Accepted),
    ("elegido", DecisionStatus::Accepted),
    ("implementado", DecisionStatus::Accepted),
    ("implementada", DecisionStatus::Accepted),
    ("escolhido", DecisionStatus::Accepted),
    ("adotado", DecisionStatus::Accepted),
    ("gewählt", DecisionStatus::Accepted),
    ("entschieden", DecisionStatus::Accepted),
    ("umgesetzt", DecisionStatus::Accepted),
    ("choisi", DecisionStatus::Accepted),
    ("adopté", DecisionStatus::Accepted),
    ("採用", DecisionStatus::Accepted),
    ("采用", DecisionStatus::Accepted),
    ("采纳", DecisionStatus::Accepted),
    ("採納", DecisionStatus::Accepted),
    ("选定", DecisionStatus::Accepted),
    ("選定", DecisionStatus::Accepted),
    ("选择", DecisionStatus::Accepted),
    ("選擇", DecisionStatus::Accepted),
    ("实施", DecisionStatus::Accepted),
    ("實施", DecisionStatus::Accepted),
    ("实现", DecisionStatus::Accepted),
    ("實現", DecisionStatus::Accepted),
    ("채택", DecisionStatus::Accepted),
    ("선택", DecisionStatus::Accepted),
];

/// Whether `lower` starts with the word `lead`: a spaced word ends there, a word of a
/// script without spaces may run on.
fn leads_with(lower: &str, lead: &str) -> bool {
    lower.starts_with(lead)
        && (!lead.is_ascii()
            || lower[lead.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric()))
}

/// Whether `text` opens with "instead of", in the languages memory is written in.
fn opens_with_instead_of(text: &str) -> bool {
    let text = text.trim_start_matches(|c: char| c.is_whitespace() || c == '*' || c == '_');
    [
        "instead of",
        "rather than",
        "вместо",
        "замість",
        "statt",
        "anstatt",
        "en lugar de",
        "en vez de",
        "au lieu de",
        "invece di",
        "em vez de",
        "zamiast",
        "yerine",
        "而不是",
        "而非",
        "の代わりに",
        "대신",
    ]
    .iter()
    .any(|phrase| text.starts_with(phrase))
}

/// The part of a title after a short label (`Layout refactor: Implemented X` → `Implemented X`).
fn after_label(title: &str) -> &str {
    let trimmed = title.trim();
    for separator in [": ", "："] {
        if let Some((label, rest)) = trimmed.split_once(separator)
            && label.chars().count() <= 60
            && !rest.trim().is_empty()
        {
            return rest.trim();
        }
    }
    trimmed
}

/// The status a title's leading verb gives ("Implemented X", "Approach 2 selected and
/// implemented", "採用Next.js"), when one does.
pub(super) fn status_from_title(title: &str) -> Option<DecisionStatus> {
    let plain = strip_markup(title);
    for text in [plain.trim(), after_label(&plain)] {
        let lower = text.to_lowercase();
        // "disabled instead of show/hide": the word names what was chosen over another
        // thing, not what became of the entry.
        if let Some((_, status)) = TAKEN.iter().find(|(verb, _)| {
            leads_with(&lower, verb) && !opens_with_instead_of(&lower[verb.len()..])
        }) {
            return Some(*status);
        }
    }
    // "Approach 2 selected and implemented": a subject, then the verb.
    let words = words(&plain);
    words.iter().take(5).enumerate().find_map(|(i, w)| {
        (i > 0 && matches!(w.as_str(), "selected" | "chosen" | "adopted" | "approved"))
            .then_some(DecisionStatus::Accepted)
    })
}

/// Verbs that take back what a status field first says was applied ("Applied …
/// Disabled same session").
const TAKE_BACK: &[&str] = &[
    "disabled",
    "reverted",
    "rolled back",
    "backed out",
    "undone",
    "отключено",
    "откатили",
    "desactivado",
    "revertido",
    "deaktiviert",
    "désactivé",
    "無効化",
    "禁用",
    "回滚",
    "되돌림",
];

/// The status a status field gives: its leading words, unless a later verb takes back
/// what they say was applied.
pub(super) fn status_of_field(value: &str) -> Option<DecisionStatus> {
    let status = DecisionStatus::parse(value)?;
    if status == DecisionStatus::Accepted {
        let lower = strip_markup(value).to_lowercase();
        if TAKE_BACK.iter().any(|w| lower.contains(w)) {
            return Some(DecisionStatus::Reverted);
        }
    }
    Some(status)
}

/// Leading verbs of something that happened rather than a choice: a merge, a release.
const EVENT_LEADS: &[&str] = &[
    "merged",
    "pushed",
    "released",
    "deployed",
    "published",
    "shipped",
    "tagged",
    "слито",
    "выпущен",
    "fusionado",
    "publicado",
    "veröffentlicht",
    "publié",
    "合并",
    "合併",
    "发布",
    "發布",
    "リリース",
    "マージ",
    "배포",
    "병합",
];

/// Whether an entry records an event (a merge, a release) rather than a decision.
pub(super) fn kind_of_title(title: &str) -> DecisionKind {
    let plain = strip_markup(title);
    let lower = plain.trim().to_lowercase();
    let event = EVENT_LEADS.iter().any(|lead| leads_with(&lower, lead));
    if event {
        DecisionKind::Event
    } else {
        DecisionKind::Decision
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_naming_decisions_made_in_many_languages() {
        for yes in [
            "Key Decisions",
            "Recent Changes & Decisions",
            "アクティブな決定事項",
            "決定事項・考慮点",
            "技术决策",
            "关键决策",
            "주요 기술적 결정",
            "Ключевые решения",
            "Decisiones y Consideraciones",
            "Decisões técnicas",
            "Wichtige Entscheidungen",
            "Décisions techniques",
            "Decision Log",
            "Aktif Kararlar",
            "Decisioni chiave",
            "Belangrijke beslissingen",
            "Kluczowe decyzje",
            "Keputusan teknis",
            "Các quyết định chính",
            "Ключові рішення",
        ] {
            assert!(names_decisions_made(yes), "{yes}");
        }
        for only in ["Decisions", "Kararları", "决策", "**Beslut**"] {
            assert!(only_names_decisions(only), "{only}");
        }
        for more in ["Key Decisions", "项目启动与优先级决策", "Decision"] {
            assert!(!only_names_decisions(more), "{more}");
        }
        for no in [
            "Decision",
            "Decision Engine",
            "What Is Incomplete or Needs Decisions",
            "Future Decisions to Document",
            "ISSUE-038: Decisions only fire late (CLOSED)",
            "Pending Decisions",
            "Открытые решения",
            "Decisiones pendientes",
            "Offene Entscheidungen",
            "향후 결정 필요 사항",
            "未決の決定事項",
        ] {
            assert!(!names_decisions_made(no), "{no}");
        }
    }

    #[test]
    fn pointers_and_questions_are_no_decisions() {
        assert!(is_pointer("Full rationale in ADR-077"));
        assert!(is_pointer("See #API_004 in decisions.md"));
        assert!(!is_pointer("Use Postgres for sessions"));
        assert!(is_pointer(
            "Update `docs/ai/DECISIONS.md` with the date, the decision and why"
        ));
        assert!(is_pointer(
            "Using SQLite for local storage — see decisionLog.md"
        ));
        assert!(!is_pointer("Keep the decisions of a session in memory.md"));
        assert!(!is_pointer("Use ADR-007-cache.md's approach"));
        assert!(is_open_question("Decision needed: which queue?"));
        assert!(is_open_question("Do we keep the monolith?"));
        assert!(!is_open_question("Keep the monolith"));
        for why in [
            "Why Vite instead of Create React App?",
            "為什麼選擇 React + TypeScript？",
            "Pourquoi PostgreSQL ?",
            "Почему SQLite?",
            "왜 Rust인가?",
            "2. Why Vite?",
        ] {
            assert!(is_open_question(why) && asks_why(why), "{why}");
        }
        for not_why in ["Do we keep the monolith?", "Whyte's library", "Porquería"] {
            assert!(!asks_why(not_why), "{not_why}");
        }
        assert!(is_consideration(
            "В будущем возможно расширение функциональности"
        ));
        assert!(is_consideration("Possibly move to Postgres later"));
        for title in [
            "Alternative: PayPal",
            "**Alternatives**: AWS SES",
            "Future Consideration: GraphQL",
            "Production: Consider PostgreSQL",
            "备选方案：Redis",
            "Альтернатива: Kafka",
        ] {
            assert!(names_an_option_not_taken(title), "{title}");
        }
        for title in [
            "Decision: Stripe (Recommended)",
            "Frontend: Vercel (Current)",
            "Alternative payment providers are out of scope",
            "Futures market data: Polygon",
        ] {
            assert!(!names_an_option_not_taken(title), "{title}");
        }
        assert!(!is_consideration("Postgres for sessions"));
    }

    #[test]
    fn statuses_from_clear_verbs() {
        assert_eq!(
            status_from_title("Approach 2 selected and implemented"),
            Some(DecisionStatus::Accepted)
        );
        assert_eq!(
            status_from_title("Layout refactor: Implemented a grid"),
            Some(DecisionStatus::Accepted)
        );
        assert_eq!(
            status_from_title("採用Next.js 15"),
            Some(DecisionStatus::Accepted)
        );
        assert_eq!(
            status_from_title("Reverted the cache"),
            Some(DecisionStatus::Reverted)
        );
        assert_eq!(status_from_title("Use Postgres"), None);
        // The word names the choice made over another thing.
        assert_eq!(status_from_title("disabled вместо show/hide"), None);
        assert_eq!(
            status_from_title("**Disabled** instead of hidden buttons"),
            None
        );
        assert_eq!(status_from_title("Implementation details"), None);
        assert_eq!(
            status_of_field("Applied to staging. Disabled same session"),
            Some(DecisionStatus::Reverted)
        );
        assert_eq!(
            status_of_field("Accepted — pending review"),
            Some(DecisionStatus::Accepted)
        );
    }

    #[test]
    fn merges_and_releases_are_events() {
        assert_eq!(
            kind_of_title("Merged feature/research-page into main"),
            DecisionKind::Event
        );
        assert_eq!(kind_of_title("Use Redis"), DecisionKind::Decision);
        assert_eq!(
            kind_of_title("Releases page layout"),
            DecisionKind::Decision
        );
    }

    #[test]
    fn names_of_decision_logs_in_text() {
        assert!(names_a_decision_log(
            "Update `docs/DECISIONS.md` with the date"
        ));
        assert!(names_a_decision_log("@docs/ai/memory/decisions.md"));
        assert!(names_a_decision_log("記録先：docs/decision-log.md。"));
        assert!(!names_a_decision_log(
            "Decisions are made in review (see docs/guide.md)"
        ));
        assert!(!names_a_decision_log("https://example.com/decisions.md"));
        assert!(names_a_decision_log(
            "Create a decision record in the `decisions` directory."
        ));
        assert!(names_a_decision_log("Records live in docs/adr/."));
        assert!(!names_a_decision_log("Record decisions as they are made."));
    }
}
