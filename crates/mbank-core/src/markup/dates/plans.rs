//! Where a date names a plan rather than a write: a due date, a deadline, a milestone still
//! ahead. Such a date says nothing about when the file was last written, in the past or the
//! future, so it is no evidence of activity (a due date that comes round must not make a bank
//! look freshly written, nor push its other files into staleness).
//!
//! Judged from the text's structure, in any language: the section a date stands in (a
//! heading that names plans, pending work or deadlines, and every section below it), the
//! table column it stands in (a header that names a due or target date), and its own line (a
//! deadline word, an open checkbox). A line marked done (a ticked box, a check mark, struck
//! text) is a record of work and keeps its dates wherever it stands, and so does a date with
//! a time of day (`[2026-11-20 16:42:10]`): nobody plans to the minute, a log stamps so
//! (an agent appending to the end of a file appends under whatever heading is last).

use std::borrow::Cow;

use crate::markup::PhraseSearch;
use crate::markup::markdown;

static PLAN_PHRASE_SEARCH: PhraseSearch = PhraseSearch::new(PLAN_PHRASES);
static DONE_PHRASE_SEARCH: PhraseSearch = PhraseSearch::new(DONE_PHRASES);
static DEADLINE_PHRASE_SEARCH: PhraseSearch = PhraseSearch::new(DEADLINE_PHRASES);
static DONE_MARK_SEARCH: PhraseSearch = PhraseSearch::new(DONE_MARKS);
static WRITTEN_PHRASE_SEARCH: PhraseSearch = PhraseSearch::new(WRITTEN_PHRASES);

/// Words of a heading that make its section a plan, matched as whole words of Latin,
/// Cyrillic or Greek script (lower case), or as prefixes where a language inflects them.
const PLAN_WORDS: &[&str] = &[
    // English
    "pending",
    "planned",
    "plan",
    "plans",
    "planning",
    "upcoming",
    "next",
    "todo",
    "todos",
    "to-do",
    "backlog",
    "roadmap",
    "future",
    "scheduled",
    "schedule",
    "due",
    "deadline",
    "deadlines",
    "outstanding",
    "remaining",
    "milestone",
    "milestones",
    "goals",
    "targets",
    "eta",
    // Spanish, Portuguese
    "pendiente",
    "pendientes",
    "pendente",
    "pendentes",
    "planificado",
    "planificada",
    "planificados",
    "planejado",
    "planejada",
    "planejados",
    "previsto",
    "prevista",
    "previstos",
    "próximo",
    "próxima",
    "próximos",
    "próximas",
    "plazo",
    "plazos",
    "prazo",
    "prazos",
    "hito",
    "hitos",
    "marcos",
    "futuro",
    "futuros",
    // German
    "geplant",
    "geplante",
    "anstehend",
    "anstehende",
    "ausstehend",
    "ausstehende",
    "nächste",
    "nächsten",
    "frist",
    "fristen",
    "fällig",
    "meilenstein",
    "meilensteine",
    "zukunft",
    // French
    "prévu",
    "prévus",
    "prévue",
    "prévues",
    "planifié",
    "planifiés",
    "planifiée",
    "planifiées",
    "prochain",
    "prochaine",
    "prochaines",
    "prochains",
    "échéance",
    "échéances",
    "jalon",
    "jalons",
    "futur",
];

/// Word stems of inflecting languages (Russian and Ukrainian): a heading word that starts
/// with one names a plan.
const PLAN_STEMS: &[&str] = &[
    "план",
    "заплан",
    "предстоящ",
    "следующ",
    "срок",
    "дедлайн",
    "бэклог",
    "будущ",
    "вех",
    "ожида",
    "наступн",
];

/// Plan words of scripts written without spaces between words (Chinese, Japanese, Korean),
/// found anywhere in a heading.
const PLAN_PHRASES: &[&str] = &[
    "予定",
    "計画",
    "今後",
    "未完了",
    "未完成",
    "保留",
    "締切",
    "締め切り",
    "期限",
    "マイルストーン",
    "ロードマップ",
    "次のステップ",
    "计划",
    "計劃",
    "待办",
    "待辦",
    "下一步",
    "后续",
    "後續",
    "截止",
    "里程碑",
    "路线图",
    "路線圖",
    "未来",
    "待定",
    "待处理",
    "예정",
    "계획",
    "다음",
    "마감",
    "기한",
    "마일스톤",
    "로드맵",
    "향후",
    "대기",
    "할 일",
];

/// Words that make a heading a record of work done even where it also names plans
/// ("Completed Milestones", "Erledigte Meilensteine").
const DONE_WORDS: &[&str] = &[
    "done",
    "completed",
    "complete",
    "finished",
    "achieved",
    "delivered",
    "history",
    "log",
    "changelog",
    "past",
    "completado",
    "completados",
    "completadas",
    "terminado",
    "terminados",
    "hecho",
    "concluído",
    "concluídos",
    "concluídas",
    "erledigt",
    "erledigte",
    "abgeschlossen",
    "abgeschlossene",
    "terminé",
    "terminés",
    "terminées",
    "achevé",
    "réalisé",
    "réalisés",
    "historique",
];

const DONE_STEMS: &[&str] = &["выполнен", "завершен", "завершён", "готов", "истори"];

/// Done words of scripts written without spaces. "未完了" (not finished) holds "完了"
/// (finished): the plan phrases are taken out of the text before these are looked for.
const DONE_PHRASES: &[&str] = &[
    "完了",
    "済み",
    "完成",
    "已完成",
    "履歴",
    "历史",
    "완료",
    "이력",
];

/// Words on a line that make its dates deadlines wherever the line stands: a due date, a
/// target date. Kept to words that never describe a write ("planned" does: "Planned the
/// migration" in a log records work).
const DEADLINE_WORDS: &[&str] = &[
    "due",
    "deadline",
    "eta",
    "vence",
    "plazo",
    "prazo",
    "fällig",
    "frist",
    "échéance",
];

const DEADLINE_PHRASES: &[&str] = &[
    "期限",
    "締切",
    "締め切り",
    "截止",
    "마감",
    "기한",
    "срок",
    "дедлайн",
    "fecha límite",
    "date limite",
    "target date",
    "due date",
];

/// Marks of a line that records work done.
const DONE_MARKS: &[&str] = &["[x]", "[X]", "✅", "✔", "☑", "~~"];

/// Words of a line that dates the file's own writing ("Last updated: …"), in lower case.
const WRITTEN_PHRASES: &[&str] = &[
    "last updated",
    "last update",
    "last modified",
    "last edited",
    "updated:",
    "updated on",
    "最終更新",
    "更新日",
    "最后更新",
    "最後更新",
    "更新于",
    "마지막 업데이트",
    "최종 수정",
    "обновлено",
    "последнее обновление",
    "última actualización",
    "actualizado",
    "última atualização",
    "atualizado",
    "zuletzt aktualisiert",
    "aktualisiert",
    "dernière mise à jour",
    "mis à jour",
];

/// The words of a heading or line, lower case: split at white space and at punctuation that
/// separates words, with punctuation trimmed from each end ("Next.js" stays one word).
fn words(text: &str) -> impl Iterator<Item = Cow<'_, str>> + '_ {
    text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                ',' | ':' | ';' | '(' | ')' | '[' | ']' | '/' | '|' | '—' | '–'
            )
    })
    .map(|word| {
        let word = word
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '-')
            .trim_matches('-');
        // Lowering changes nothing in ASCII without capitals: most words need no copy.
        if word
            .bytes()
            .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
        {
            Cow::Borrowed(word)
        } else {
            Cow::Owned(word.to_lowercase())
        }
    })
    .filter(|word| !word.is_empty())
}

fn names_any(text: &str, words_list: &[&str], stems: &[&str], phrases: &PhraseSearch) -> bool {
    phrases.in_text(&text.to_lowercase())
        || words(text).any(|word| {
            words_list.contains(&word.as_ref()) || stems.iter().any(|stem| word.starts_with(stem))
        })
}

/// Whether a heading starts with a date (`2026-04-24 - Roadmap`, `[2/27/2025] …`): an entry
/// of a log, dated when it was written, whatever its title names.
fn starts_with_date(heading: &str) -> bool {
    let first = heading
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .split(|c: char| c.is_whitespace() || c == ']' || c == ')')
        .next()
        .unwrap_or_default();
    first.starts_with(|c: char| c.is_ascii_digit())
        && first.contains(['-', '/', '.'])
        && first.chars().filter(char::is_ascii_digit).count() >= 6
}

/// Whether a heading's section holds plans: it names plans or pending work, and does not
/// name work done. A heading that starts with a date is a dated entry, not a plan.
pub(crate) fn is_plan_heading(heading: &str) -> bool {
    if starts_with_date(heading) || !names_any(heading, PLAN_WORDS, PLAN_STEMS, &PLAN_PHRASE_SEARCH)
    {
        return false;
    }
    let mut without_plans = heading.to_lowercase();
    for phrase in PLAN_PHRASES {
        without_plans = without_plans.replace(phrase, " ");
    }
    !names_any(&without_plans, DONE_WORDS, DONE_STEMS, &DONE_PHRASE_SEARCH)
}

/// Whether a line names a deadline for what it says ("Due: 2026-12-01", "期限：12月").
/// "due to" gives a cause, not a date. `lower` is the line in lower case.
fn names_deadline(line: &str, lower: &str) -> bool {
    if DEADLINE_PHRASE_SEARCH.in_text(lower) {
        return true;
    }
    let line_words: Vec<Cow<'_, str>> = words(line).collect();
    line_words.iter().enumerate().any(|(at, word)| {
        DEADLINE_WORDS.contains(&word.as_ref())
            && !(word == "due" && line_words.get(at + 1).is_some_and(|next| next == "to"))
    })
}

/// Whether a line records work done (a ticked box, a check mark, struck-through text) or
/// dates the file's own writing ("Last updated: 2026-11-19"). `lower` is the line in lower
/// case.
fn marks_done(line: &str, lower: &str) -> bool {
    DONE_MARK_SEARCH.in_text(line) || WRITTEN_PHRASE_SEARCH.in_text(lower)
}

/// Whether a line is a thematic break (`---`, `***`, `___`): what follows it is no longer
/// the list above (a footer such as "Last updated" after a backlog).
fn is_thematic_break(line: &str) -> bool {
    let mut marks = line.chars().filter(|c| !c.is_whitespace());
    let Some(mark) = marks.next().filter(|c| matches!(c, '-' | '*' | '_')) else {
        return false;
    };
    let mut count = 1;
    for c in marks {
        if c != mark {
            return false;
        }
        count += 1;
    }
    count >= 3 && line.len() - line.trim_start().len() <= 3
}

/// Whether a line is a task not yet done (`- [ ] …`).
fn is_open_task(line: &str) -> bool {
    let trimmed = line.trim_start();
    let item = trimmed
        .strip_prefix(['-', '*', '+'])
        .map(str::trim_start)
        .or_else(|| {
            let digits = trimmed.find(|c: char| !c.is_ascii_digit())?;
            (digits > 0)
                .then(|| trimmed[digits..].strip_prefix(['.', ')']))
                .flatten()
                .map(str::trim_start)
        });
    item.is_some_and(|item| item.starts_with("[ ]"))
}

/// The cells of a table row, with where each starts in the line.
fn table_cells(line: &str) -> Vec<(usize, &str)> {
    let mut cells = Vec::new();
    let inner_start = line.find('|').map_or(0, |at| at + 1);
    let mut start = inner_start;
    for (at, c) in line[inner_start..].char_indices() {
        if c == '|' {
            cells.push((start, &line[start..inner_start + at]));
            start = inner_start + at + 1;
        }
    }
    if !line[start..].trim().is_empty() {
        cells.push((start, &line[start..]));
    }
    cells
}

fn is_table_row(line: &str) -> bool {
    line.trim_start().starts_with('|')
}

/// Whether a line is a table's delimiter row (`|---|:--:|`).
fn is_delimiter_row(line: &str) -> bool {
    let line = line.trim_end_matches(['\n', '\r']);
    is_table_row(line)
        && line.contains('-')
        && line
            .chars()
            .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'))
}

/// Which columns of a table hold plans, from its header row.
fn plan_columns(header: &str) -> Vec<bool> {
    table_cells(header)
        .into_iter()
        .map(|(_, cell)| names_deadline(cell, &cell.to_lowercase()) || is_plan_heading(cell))
        .collect()
}

/// The column a byte of a table row stands in.
fn column_at(line: &str, offset: usize) -> usize {
    line[..offset.min(line.len())]
        .chars()
        .filter(|&c| c == '|')
        .count()
        .saturating_sub(usize::from(line.trim_start().starts_with('|')))
}

/// Whether the date ending at `end` goes on with a time of day (` 16:42`, `T09:30`).
fn is_stamp(text: &str, end: usize) -> bool {
    let rest = text.as_bytes().get(end..).unwrap_or_default();
    let digits = |from: usize| {
        rest.get(from..)
            .unwrap_or_default()
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    if !rest.first().is_some_and(|&b| b == b' ' || b == b'T') {
        return false;
    }
    let hours = digits(1);
    (1..=2).contains(&hours) && rest.get(1 + hours) == Some(&b':') && digits(2 + hours) == 2
}

/// For each date (its start and end, ascending), whether it names a plan.
pub fn planned_at(text: &str, dates: &[(usize, usize)]) -> Vec<bool> {
    let mut planned = vec![false; dates.len()];
    let offsets: Vec<usize> = dates.iter().map(|&(start, _)| start).collect();
    if offsets.is_empty() {
        return planned;
    }
    // Open headings, outermost first: their level and whether they name plans.
    let mut sections: Vec<(usize, bool)> = Vec::new();
    let mut columns: Option<Vec<bool>> = None;
    let mut next = 0;
    let mut line_start = 0;
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(raw) = lines.next() {
        let line_end = line_start + raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if let Some((level, title)) = markdown::heading(line) {
            while sections.last().is_some_and(|&(open, _)| open >= level) {
                sections.pop();
            }
            sections.push((level, is_plan_heading(&title)));
            columns = None;
        } else if is_thematic_break(line) {
            sections.clear();
            columns = None;
        } else if is_table_row(line) {
            if lines.peek().is_some_and(|row| is_delimiter_row(row)) {
                columns = Some(plan_columns(line));
            }
        } else {
            columns = None;
        }
        if offsets.get(next).is_some_and(|&at| at < line_end) {
            let section_plans = sections.iter().any(|&(_, plans)| plans);
            let lower = line.to_lowercase();
            let line_plans = names_deadline(line, &lower) || is_open_task(line);
            let done = marks_done(line, &lower);
            while let Some(&at) = offsets.get(next).filter(|&&at| at < line_end) {
                let in_plan_column = columns.as_ref().is_some_and(|columns| {
                    columns
                        .get(column_at(line, at - line_start))
                        .copied()
                        .unwrap_or(false)
                });
                // A stamp is a write even where plans stand; a deadline word is not.
                let stamped = is_stamp(text, dates[next].1);
                planned[next] =
                    !done && (line_plans || (!stamped && (section_plans || in_plan_column)));
                next += 1;
            }
        }
        if next == offsets.len() {
            break;
        }
        line_start = line_end;
    }
    planned
}

#[cfg(test)]
mod tests {
    use super::*;

    fn planned_dates(text: &str) -> Vec<String> {
        let dates: Vec<(usize, usize)> = text
            .match_indices("2026-")
            .map(|(at, _)| (at, at + 10))
            .collect();
        planned_at(text, &dates)
            .into_iter()
            .zip(dates)
            .filter(|(planned, _)| *planned)
            .map(|(_, (at, end))| text[at..end].to_string())
            .collect()
    }

    #[test]
    fn a_stamped_log_line_under_a_plan_heading_is_a_write() {
        let text = "## Next Steps
- Wire the export 2026-12-01
            [2026-11-20 16:42:10] - Completed: the ledger
2026-11-21T09:30Z appended
            - Due 2026-12-02 10:00 review
";
        // A deadline word still names a plan, to the minute or not.
        assert_eq!(planned_dates(text), ["2026-12-01", "2026-12-02"]);
    }

    #[test]
    fn headings_that_name_plans_in_several_languages() {
        for heading in [
            "Pending Milestones",
            "Next Steps",
            "Upcoming",
            "Roadmap",
            "TODO",
            "Planned work",
            "今後の予定",
            "未完了のタスク",
            "下一步计划",
            "다음 단계",
            "Планы",
            "Следующие шаги",
            "Próximos pasos",
            "Tarefas pendentes",
            "Nächste Schritte",
            "Prochaines étapes",
        ] {
            assert!(is_plan_heading(heading), "{heading}");
        }
        for heading in [
            "Completed Milestones",
            "Update History",
            "Current Focus",
            "Next.js setup",
            "完了したタスク",
            "已完成",
            "Выполненные задачи",
            "Erledigte Meilensteine",
            "Decisions",
            "Progress",
            "2026-04-24 - Roadmap and Multi-Author Memory",
            "[2/27/2025] Next steps agreed",
        ] {
            assert!(!is_plan_heading(heading), "{heading}");
        }
    }

    #[test]
    fn dates_under_a_plan_heading_and_its_subsections_are_plans() {
        let text = "# Progress\n## Completed Milestones\n- Trials - 2026-07-14\n\
            ## Pending Milestones\n- Credit notes - 2026-11-28\n### Later\n- Export 2026-12-10\n\
            ## Update History\n- [2026-11-20] shipped\n";
        assert_eq!(planned_dates(text), ["2026-11-28", "2026-12-10"]);
    }

    #[test]
    fn thematic_breaks_are_three_or_more_of_one_mark_indented_at_most_three() {
        for line in ["---", "***", "___", " - - -", "   *  *  *  ", "-----"] {
            assert!(is_thematic_break(line), "{line:?}");
        }
        for line in ["--", "-*-", "    ---", "--- x", "", "   ", "===", "—— —"] {
            assert!(!is_thematic_break(line), "{line:?}");
        }
    }

    #[test]
    fn phrases_are_found_in_any_case_and_words_lowered_only_when_needed() {
        let marks_done = |line: &str| marks_done(line, &line.to_lowercase());
        let names_deadline = |line: &str| names_deadline(line, &line.to_lowercase());
        assert!(marks_done("- [x] shipped 2026-01-02"));
        assert!(marks_done("Last Updated: 2026-01-02"));
        assert!(!marks_done("- [ ] ship 2026-01-02"));
        assert!(names_deadline("締め切り 2026-01-02"));
        assert!(names_deadline("Target Date: 2026-01-02"));
        assert!(!names_deadline("Slow due to the cache, 2026-01-02"));
        assert!(names_deadline("DUE 2026-01-02"));
        assert!(is_plan_heading("Next Steps"));
        assert!(is_plan_heading("ПЛАНЫ"));
        assert!(!is_plan_heading("未完了 → 完了"));
        let lowered: Vec<String> = words("Next.js, ÉTAPES (plan)").map(String::from).collect();
        assert_eq!(lowered, ["next.js", "étapes", "plan"]);
    }

    #[test]
    fn a_footer_after_a_break_or_a_last_updated_line_is_a_write() {
        let text = "## Backlog\n- Widget 2026-12-01\n*Last updated: 2026-11-19*\n\n---\n\
            Reviewed 2026-11-20\n## Roadmap\n- v2 2026-12-20\n最終更新: 2026-11-21\n";
        assert_eq!(planned_dates(text), ["2026-12-01", "2026-12-20"]);
    }

    #[test]
    fn a_done_line_under_a_plan_heading_keeps_its_date() {
        let text = "## Next Steps\n- [x] Set up CI 2026-11-20\n- [ ] Deploy 2026-12-01\n\
            - ✅ Wrote docs 2026-11-21\n";
        assert_eq!(planned_dates(text), ["2026-12-01"]);
    }

    #[test]
    fn deadline_words_and_open_tasks_anywhere() {
        let text = "## Notes\n- Invoice export, due 2026-12-01\n- Failed due to a race on 2026-11-20\n\
            - 期限：2026-12-05\n- [ ] Review 2026-12-07\n1. [ ] Ship 2026-12-08\n\
            - Written 2026-11-22\n";
        assert_eq!(
            planned_dates(text),
            ["2026-12-01", "2026-12-05", "2026-12-07", "2026-12-08"]
        );
    }

    #[test]
    fn a_table_column_of_due_dates_holds_plans() {
        let text = "| Task | Target date | Updated |\n|---|---|---|\n\
            | Export | 2026-12-10 | 2026-11-20 |\n\nAfter 2026-11-21\n";
        assert_eq!(planned_dates(text), ["2026-12-10"]);
    }
}
