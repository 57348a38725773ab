use super::super::tests::date;
use super::*;

fn sections(text: &str) -> Vec<Decision> {
    parse_sections(
        Path::new("/p/memory-bank/activeContext.md"),
        "memory-bank/activeContext.md",
        text,
    )
}

#[test]
fn a_section_named_for_where_decisions_are_kept_describes_that_place() {
    let text = "# CLAUDE.md\n\n## decisions/ - Technical decisions\n- Architectural choices\n\
- Trade-offs considered\n\n## Decisions (ADR-INDEX.md)\n- Full context of the decision\n\n\
## Key Decisions\n- Use Redis for the cache\n";
    let titles: Vec<String> = sections(text).into_iter().map(|d| d.title).collect();
    assert_eq!(titles, ["Use Redis for the cache"]);
}

#[test]
fn a_why_question_under_decisions_with_fields_is_an_entry() {
    let text = "# CLAUDE.md\n\n## Key Decisions\n\n### Why SQLite?\n\n**Reason**: one file\n\n\
### Why is CI slow?\n\nWe do not know.\n\n### Should we add Redis?\n\n**Reason**: cache\n";
    let titles: Vec<String> = sections(text).into_iter().map(|d| d.title).collect();
    assert_eq!(titles, ["Why SQLite?"]);
}

#[test]
fn headings_that_name_decision_sections() {
    for yes in [
        "Decisions",
        "Key Decisions",
        "Technical Decisions",
        "Architecture Decisions (Accepted)",
        "Recent Architectural Decisions",
        "Decision Log",
        "**Key technical decisions**",
    ] {
        assert!(is_decision_section_heading(yes), "{yes}");
    }
    for no in [
        "Decision",
        "Decision Engine",
        "Architecture Decision",
        "Decision: Record key decisions",
        "ADR-0007: Add decisions tools",
        "Next Steps",
    ] {
        assert!(!is_decision_section_heading(no), "{no}");
    }
}

#[test]
fn a_decisions_section_in_active_context_yields_its_bullets_with_file_and_line() {
    let text = "# Active Context\n\nWe decided a lot this week.\n\n## Key Decisions\n\
- **A13:** Modular goal architecture\n\
- **Push to watch**: via python-garminconnect\n\
  continued detail line\n\
- tmux interactive mode — print mode loses state\n\
- [ ] decide on Redis\n\
- [[ADR-0010]] — Integrate the graph tool (Superseded by [[ADR-0011]])\n\
- 2025-07-31 07:01:19 - Seed the bank from the PRD\n\
- Zustand replaces Redux for app state ([[ADR-004]])\n\
- Redis cache with stale-while-revalidate (see decisionLog.md)\n\
\nA closing paragraph that is prose.\n\n## Next Steps\n- Build the VSIX\n";
    let d = sections(text);
    let got: Vec<(&str, usize, usize)> = d
        .iter()
        .map(|d| (d.title.as_str(), d.line, d.end_line))
        .collect();
    assert_eq!(
        got,
        [
            ("Modular goal architecture", 6, 6),
            ("Push to watch", 7, 8),
            ("tmux interactive mode", 9, 9),
            ("Integrate the graph tool", 11, 11),
            ("Seed the bank from the PRD", 12, 12),
            ("Zustand replaces Redux for app state", 13, 13),
        ]
    );
    assert_eq!(d[5].id.as_deref(), Some("ADR-004"));
    assert!(
        d.iter()
            .all(|d| d.display == "memory-bank/activeContext.md")
    );
    assert!(
        d.iter()
            .all(|d| d.file == Path::new("/p/memory-bank/activeContext.md"))
    );
    assert!(
        d.iter()
            .all(|d| d.group.as_deref() == Some("Key Decisions"))
    );
    assert_eq!(d[3].id.as_deref(), Some("ADR-0010"));
    assert_eq!(d[3].status, DecisionStatus::Superseded);
    assert_eq!(d[3].superseded_by, ["ADR-0011"]);
    assert_eq!(d[4].date, date("2025-07-31"));
}

#[test]
fn a_decisions_section_yields_its_sub_headings_and_their_fields() {
    let text = "# System Patterns\n\n## Key Technical Decisions\n\n\
### 1. Stateless API Design\n\n**Decision**: REST\n**Status**: Accepted — pending load tests\n\n\
### 2. Pluggable LLMs ✅ IMPLEMENTED\n\n- factory pattern\n\n## Component relationships\n- a\n";
    let d = sections(text);
    let got: Vec<(&str, usize, usize, DecisionStatus)> = d
        .iter()
        .map(|d| (d.title.as_str(), d.line, d.end_line, d.status))
        .collect();
    assert_eq!(
        got,
        [
            ("Stateless API Design", 5, 8, DecisionStatus::Accepted),
            ("Pluggable LLMs", 10, 12, DecisionStatus::Accepted),
        ]
    );
}

#[test]
fn a_fenced_example_inside_a_decisions_section_yields_nothing() {
    let text = "## Decisions\n\n```markdown\n- **Use X**: because\n### Use Y\n\
| Decision | Status |\n|---|---|\n| Use Z | Accepted |\n```\n\n    - indented code item\n\n\
Plain prose about decisions.\n";
    assert!(sections(text).is_empty(), "{:#?}", sections(text));
    // A section heading inside a fence is no section either.
    assert!(sections("```\n## Decisions\n- **Use X**\n```\n").is_empty());
}

#[test]
fn a_sub_heading_over_nothing_but_code_is_no_entry() {
    let text = "## Technical Decisions\n\n### Security\n\n#### Input Sanitization\n\n\
```php\nfunction e($s) { return htmlspecialchars($s); }\n```\n\n\
#### Escape on output\n\nEvery template escapes with `e()`.\n\n```php\n<?= e($name) ?>\n```\n\n\
#### Use SQLite\n";
    let titles: Vec<String> = sections(text).into_iter().map(|d| d.title).collect();
    assert_eq!(titles, ["Escape on output", "Use SQLite"]);
    // Nor is one over nothing but a template's text.
    let text = "## 技术决策\n\n### 采用 SQLite\n单文件。\n\n<!-- USER_BLOCK_START -->\n\
### 用户笔记\n{用户自由编辑区}\n<!-- USER_BLOCK_END -->\n\n### Notes\n- [Decision]\n";
    let titles: Vec<String> = sections(text).into_iter().map(|d| d.title).collect();
    assert_eq!(titles, ["采用 SQLite"]);
}

#[test]
fn group_headings_in_a_section_are_not_entries() {
    let text = "## Architecture Decisions\n\n### Phase 2 decisions\n\n\
#### Use Postgres\n**Status:** Reverted\n\n#### Use Redis\n- cache\n\n### Drop the cron box\nDone.\n";
    let d = sections(text);
    let got: Vec<(&str, Option<&str>)> = d
        .iter()
        .map(|d| (d.title.as_str(), d.group.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("Use Postgres", Some("Phase 2 decisions")),
            ("Use Redis", Some("Phase 2 decisions")),
            ("Drop the cron box", Some("Architecture Decisions")),
        ]
    );
    assert_eq!(d[0].status, DecisionStatus::Reverted);
}

#[test]
fn a_table_of_decisions_in_a_section() {
    let text = "## Decisions\n\n| ADR | Decision | Status |\n|---|---|---|\n\
| ADR-7 | Use gRPC | Superseded by ADR-9 |\n| ADR-9 | Use HTTP | Accepted |\n";
    let d = sections(text);
    assert_eq!(d.len(), 2);
    assert_eq!((d[0].id.as_deref(), d[0].line), (Some("ADR-7"), 5));
    assert_eq!(d[0].status, DecisionStatus::Superseded);
    assert_eq!(d[1].style, DecisionStyle::TableRow);
    // A table of what was chosen for each concern.
    let chosen = "## Locked stack decisions\n\n| Concern | Choice |\n|---|---|\n\
| Database | PostgreSQL 16 |\n| Queue | none |\n";
    let titles: Vec<String> = sections(chosen).into_iter().map(|d| d.title).collect();
    assert_eq!(titles, ["Database: PostgreSQL 16", "Queue: none"]);
}

#[test]
fn decision_sections_in_other_languages_and_what_is_no_decision() {
    let text = "# アクティブコンテキスト\n\n## アクティブな決定事項\n\
- JSONを主体とし、Markdownはそこから生成する\n\
- 採用: Vanilla JavaScript\n\n\
## Lessons Learned\n\n### Architecture Decisions\n- Caching was a mistake\n\n\
## What Is Incomplete or Needs Decisions\n- Queue choice\n\n\
## Ключевые решения\n- PostgreSQL для хранения\n- Full rationale in ADR-077\n\
- Decision needed: Kafka or NATS\n- Возможно, позже перейти на gRPC\n\n\
## Decisiones técnicas\n- Implementado: Flyway para migraciones\n";
    let d = sections(text);
    let got: Vec<(&str, DecisionStatus)> = d.iter().map(|d| (d.title.as_str(), d.status)).collect();
    assert_eq!(
        got,
        [
            (
                "JSONを主体とし、Markdownはそこから生成する",
                DecisionStatus::Unknown
            ),
            ("採用: Vanilla JavaScript", DecisionStatus::Accepted),
            ("PostgreSQL для хранения", DecisionStatus::Unknown),
            (
                "Implementado: Flyway para migraciones",
                DecisionStatus::Accepted
            ),
        ],
        "{d:#?}"
    );
}

#[test]
fn a_list_that_opens_by_naming_the_log_says_how_to_keep_it() {
    let text = "# Agents\n\n## Decisions log\n- When making a design decision, record it in `docs/decisions.md`.\n- Add an entry even if the change is small.\n\n## Key decisions\n\nThe full record is in `docs/decisions.md`. Recent ones:\n\n- **Logical WAL**: operations, not pages.\n";
    let titles: Vec<String> = sections(text).into_iter().map(|d| d.title).collect();
    assert_eq!(titles, ["Logical WAL"]);
}

#[test]
fn a_section_that_says_it_is_empty_has_no_entries() {
    for empty in ["_None yet_", "None", "*Nothing yet*", "N/A"] {
        let text = format!("# Active\n\n## Decisions\n\n- {empty}\n");
        assert!(sections(&text).is_empty(), "{empty}");
    }
}

#[test]
fn a_list_of_field_names_is_a_form_not_entries() {
    let text = "# Context\n\n## Next decisions\n\nAppend in the same form:\n- **Title**\n- **Reason/Context**\n- **Date:**\n\n## 后续决策\n\n- **标题**\n- **原因/背景**\n- **日期**\n- 采用 SQLite\n";
    let titles: Vec<String> = sections(text).into_iter().map(|d| d.title).collect();
    assert_eq!(titles, ["采用 SQLite"]);
}

#[test]
fn files_without_decision_sections_yield_nothing() {
    assert!(sections("# Progress\n\n## Done\n- shipped\n").is_empty());
    assert!(sections("## Decision Engine\n- routes by cost\n").is_empty());
}

#[test]
fn status_headings_over_lists_of_adrs_are_groups_not_entries() {
    let text = "# Decisions Index\n\n## Proposed\n\n_None_\n\n## Accepted\n\n\
- **ADR-0001**: Eager view registration\n- [[ADR-0002]] — Restore the tree view\n\n\
## Superseded\n\n- ADR-0003: Old layout (Superseded by ADR-0004)\n";
    let d = sections(text);
    let got: Vec<(Option<&str>, &str, DecisionStatus, Option<&str>)> = d
        .iter()
        .map(|d| {
            (
                d.id.as_deref(),
                d.title.as_str(),
                d.status,
                d.group.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                Some("ADR-0001"),
                "Eager view registration",
                DecisionStatus::Accepted,
                Some("Accepted")
            ),
            (
                Some("ADR-0002"),
                "Restore the tree view",
                DecisionStatus::Accepted,
                Some("Accepted")
            ),
            (
                Some("ADR-0003"),
                "Old layout",
                DecisionStatus::Superseded,
                Some("Superseded")
            ),
        ]
    );
    assert_eq!(d[2].superseded_by, ["ADR-0004"]);
}

#[test]
fn bold_lines_stand_for_sub_headings_and_their_bullets_are_details() {
    let text = "### Key Design Decisions\n\n**1. Extensibility for many devices**\n\n\
Using polymorphism:\n\n**Future device types could include:**\n- Serial Modbus RTU\n- SNMP\n\n\
**2. Following established patterns**\n- **Profile-based configuration** - named profiles\n\n\
### Technical Considerations\n- not a decision\n";
    let d = sections(text);
    let got: Vec<(&str, usize, usize)> = d
        .iter()
        .map(|d| (d.title.as_str(), d.line, d.end_line))
        .collect();
    assert_eq!(
        got,
        [
            ("Extensibility for many devices", 3, 9),
            ("Following established patterns", 11, 12),
        ]
    );
}

#[test]
fn a_title_naming_its_product_heads_decisions_one_naming_open_work_does_not() {
    let body = "\n\n## Key decisions\n\n- **Zustand over Redux** — a smaller store\n";
    let titles = |title: &str| -> Vec<String> {
        sections(&format!("# {title}{body}"))
            .into_iter()
            .map(|d| d.title)
            .collect()
    };
    for product in [
        "Creative phase: architecture - TODO application",
        "Redesign of pet.todo",
    ] {
        assert_eq!(titles(product), ["Zustand over Redux"], "{product}");
    }
    for open in [
        "TODO",
        "Open questions",
        "Lessons learned",
        "Открытые вопросы",
    ] {
        assert!(titles(open).is_empty(), "{open}");
    }
}

#[test]
fn an_item_one_space_in_is_a_sibling_two_spaces_in_is_part_of_the_item_above() {
    let text = "# Active Context\n\n## Key decisions\n\n- **Flyway for migrations**: versioned\n\
 - **Auth bypass only in tests**: never in production\n  - **Detail**: of the item above\n";
    let got: Vec<(String, usize, usize)> = sections(text)
        .into_iter()
        .map(|d| (d.title, d.line, d.end_line))
        .collect();
    assert_eq!(
        got,
        [
            ("Flyway for migrations".to_string(), 5, 5),
            ("Auth bypass only in tests".to_string(), 6, 7),
        ]
    );
}

#[test]
fn the_reasons_for_a_decision_under_their_own_heading_are_no_decisions() {
    for heading in [
        "Обоснование решения",
        "Rationale for the decisions",
        "✅ Justificación de la decisión",
    ] {
        let text = format!(
            "# Architecture\n\n### {heading}\n\n1. **Fits the project's size**\n   - small\n"
        );
        assert!(sections(&text).is_empty(), "{heading}");
    }
}

#[test]
fn a_section_in_parts_takes_its_decisions_from_the_part_named_for_them() {
    let text = "# Archive\n\n## Design decisions & creative outputs\n\n### Creative phase\n\n\
Options weighed in the creative document.\n\n### Key decisions\n\n1. **Dark palette** — one theme\n\
2. **Sticky footer** — only the list scrolls\n\n### Style guide\n\nMinimal, accessible.\n";
    let got: Vec<(String, String)> = sections(text)
        .into_iter()
        .map(|d| (d.title, d.group.unwrap_or_default()))
        .collect();
    assert_eq!(
        got,
        [
            ("Dark palette".to_string(), "Key decisions".to_string()),
            ("Sticky footer".to_string(), "Key decisions".to_string()),
        ]
    );
}

#[test]
fn a_bullet_whose_title_gives_its_date_is_dated_by_it() {
    let text = "# Progress\n\n## Evolution of project decisions\n\n\
* **Architecture pivot (2025-07-19)**: the standard viewer replaces the custom one\n\
* Cache pages on disk (March 2025)\n* **Keep one bundle**: simpler deploys\n";
    let got: Vec<(String, Option<NaiveDate>, Option<String>)> = sections(text)
        .into_iter()
        .map(|d| (d.title, d.date, d.month.map(|m| m.to_string())))
        .collect();
    assert_eq!(
        got,
        [
            ("Architecture pivot".to_string(), date("2025-07-19"), None),
            (
                "Cache pages on disk".to_string(),
                None,
                Some("2025-03".to_string())
            ),
            ("Keep one bundle".to_string(), None, None),
        ]
    );
}

#[test]
fn a_decisions_section_opening_with_the_log_for_the_record_sums_it_up_in_any_language() {
    let text = "# Kontext\n\n## Wichtige Entscheidungen\n\n\
Alle Details stehen in `memory-bank/entscheidungen.md`.\n\n- **pnpm statt npm**: schneller\n\n\
## Offene Punkte\n\n- Caching\n";
    assert_eq!(log_summaries(text), [(4, 8)]);
}

#[test]
fn a_decision_its_writer_wrapped_onto_more_lines_is_titled_by_all_of_them() {
    let text = "# Active Context\n\n## Active Decisions\n\n- Develop in the phases set out in `docs/plan.md`\n  \
and ship each one alone.\n- Keep state as JSON files in the bucket.\n";
    let titles: Vec<String> = sections(text).into_iter().map(|d| d.title).collect();
    assert_eq!(
        titles,
        [
            "Develop in the phases set out in docs/plan.md and ship each one alone.",
            "Keep state as JSON files in the bucket.",
        ]
    );
}

#[test]
fn a_one_word_lead_names_what_the_choice_is_about_and_the_title_keeps_the_choice() {
    let text = "# Architecture\n\n## Key Technical Decisions\n\n- **Language**: Go 1.25 for speed and simplicity\n\
- **Use SQLite**: one file to back up\n";
    let titles: Vec<String> = sections(text).into_iter().map(|d| d.title).collect();
    assert_eq!(
        titles,
        ["Language: Go 1.25 for speed and simplicity", "Use SQLite"]
    );
}
