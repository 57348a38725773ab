use super::super::tests::{date, log, time, titled};
use super::*;

/// Each entry as its title and date.
fn titles_and_dates(entries: &[Decision]) -> Vec<(&str, Option<NaiveDate>)> {
    entries.iter().map(|d| (d.title.as_str(), d.date)).collect()
}

#[test]
fn cline_blocks_with_date_and_status_bullets() {
    let text = "# Decision Log\n\n\
## Decision: Store sessions in Redis\n\
- **Date**: 2024-03-02\n\
- **Status**: Superseded by Decision: Move sessions to Postgres\n\
- **Context**: the cache was already there\n\
\n\
---\n\
\n\
## Decision: Move sessions to Postgres\n\
- **Date**: 2024-06-10\n\
- **Status**: Accepted\n\
- **Rationale**: one fewer service\n";
    let d = log(text);
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].title, "Store sessions in Redis");
    assert_eq!(d[0].date, date("2024-03-02"));
    assert_eq!(d[0].status, DecisionStatus::Superseded);
    assert_eq!(
        d[0].superseded_by,
        vec!["Decision: Move sessions to Postgres"]
    );
    assert_eq!((d[0].line, d[0].end_line), (3, 6));
    assert_eq!(d[0].style, DecisionStyle::ClineBlock);
    assert_eq!(d[1].title, "Move sessions to Postgres");
    assert_eq!(d[1].status, DecisionStatus::Accepted);
    assert_eq!((d[1].line, d[1].end_line), (10, 13));
}

#[test]
fn spec_template_placeholders_are_not_decisions() {
    let text = "# Decision Log\n\n## Decision: [Decision Title]\n- **Date**: [YYYY-MM-DD]\n\
- **Status**: [Accepted / Superseded / Deprecated]\n\n## [Date] - [Decision Topic]\n";
    assert!(log(text).is_empty());
}

#[test]
fn open_questions_and_pointers_in_a_log_are_not_entries() {
    let text = "# Decision Log\n\n## Decision\n\n* Use Redis for the cache\n\
* Full rationale in ADR-077\n* Decision needed: which queue to use\n\n\
## Decision needed: Kafka or NATS?\n**Context:** both fit\n";
    let titles: Vec<String> = log(text).into_iter().map(|d| d.title).collect();
    assert_eq!(titles, ["Use Redis for the cache"]);
}

#[test]
fn rooflow_template_sections_and_detail_bullets_are_not_entries() {
    let text = "# Decision Log\n\n## Decision\n\n*\n\n## Implementation Details\n\n*\n---\n\
### Decision\n[2025-08-30 10:49:40] - Refactored the notes hook to fix stale state.\n\n\
**Implications/Details:**\n- saveNotes now sorts\n- saveNote returns the array\n---\n\
### Decision\n[2025-08-30 15:33:30] - Adopt an SEO architecture\n";
    let d = log(text);
    let got: Vec<(&str, DecisionStatus)> = d.iter().map(|d| (d.title.as_str(), d.status)).collect();
    assert_eq!(
        got,
        [
            // Each is logged right under a "Decision" heading.
            (
                "Refactored the notes hook to fix stale state.",
                DecisionStatus::Accepted
            ),
            ("Adopt an SEO architecture", DecisionStatus::Accepted),
        ],
        "{d:#?}"
    );
}

#[test]
fn dated_headings_over_decision_blocks_only_group_them() {
    let text = "# Журнал решений\n\n## 2026-04-17: Инициализация\n\n\
### Решение: Копейки для сумм\n**Почему:** точность\n\n\
### Решение: Zustand + React Query\n**Почему:** просто\n\n\
## v1.1 — Ball Tracking (2026-02-23 to 2026-02-24)\n\n\
### Decision: Track the ball with YOLO\n- **Status**: Applied to staging. Disabled same session\n\n\
## 2026-05-01 - Merged the tracking branch into main\n**Context:** release\n";
    let d = log(text);
    let got: Vec<(&str, Option<&str>, DecisionStatus, DecisionKind)> = d
        .iter()
        .map(|d| (d.title.as_str(), d.group.as_deref(), d.status, d.kind))
        .collect();
    assert_eq!(
        got,
        [
            (
                "Копейки для сумм",
                Some("Инициализация"),
                DecisionStatus::Unknown,
                DecisionKind::Decision
            ),
            (
                "Zustand + React Query",
                Some("Инициализация"),
                DecisionStatus::Unknown,
                DecisionKind::Decision
            ),
            (
                "Track the ball with YOLO",
                Some("v1.1 — Ball Tracking"),
                DecisionStatus::Reverted,
                DecisionKind::Decision
            ),
            (
                "Merged the tracking branch into main",
                None,
                DecisionStatus::Unknown,
                DecisionKind::Event
            ),
        ],
        "{d:#?}"
    );
    // The group's date dates its entries; a span's first date is the group's.
    assert_eq!(d[0].date, date("2026-04-17"));
    assert_eq!(d[2].date, date("2026-02-23"));
}

#[test]
fn memory_bank_mcp_blocks_need_decision_fields() {
    let text = "# Decision Log\n\n## Overview\nWhy this file exists.\n\n\
## Use SQLite for the index\n- **Date:** 2025-02-11 14:05\n\
**Context:** need local search\n**Decision:** SQLite with FTS5\n\
**Alternatives Considered:** Postgres\n**Consequences:** one file per workspace\n\n\
## Cache embeddings on disk\n### Context\nslow start\n### Decision\ndisk cache\n";
    let d = log(text);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].title, "Use SQLite for the index");
    assert_eq!(d[0].date, date("2025-02-11"));
    assert_eq!(d[0].time, NaiveTime::from_hms_opt(14, 5, 0));
    assert_eq!(d[0].style, DecisionStyle::Block);
    // Its Decision field says what was decided: taken, though no status is written.
    assert_eq!(d[0].status, DecisionStatus::Accepted);
    assert_eq!(d[1].title, "Cache embeddings on disk");
    assert_eq!(d[1].date, None);
    assert_eq!((d[1].line, d[1].end_line), (13, 17));
}

#[test]
fn a_log_line_of_fields_is_titled_by_its_decision() {
    let text = "# Decisions\n\n[2026-04-07] **Décision** : Astro 6 | **Raison** : SSG | \
**Alternative** : Next.js\n\n[2026-04-08] Keep the CLI | because: users\n";
    let titles: Vec<String> = log(text).into_iter().map(|d| d.title).collect();
    assert_eq!(titles, ["Astro 6", "Keep the CLI | because: users"]);
}

#[test]
fn a_day_heading_says_what_was_decided_in_the_list_under_its_field() {
    let text = "# 决策日志\n\n## 2025-07-31\n\n**决策:**\n- **确认重构方向:** 迁移到 BLoC\n\
- 规划 HomeScreen\n\n## 2025-08-01\n\n**Decision:**\n- Build the release APK\n\n---\n\
### Decision (code)\n[2025-08-01 06:42:29] - Fix the compile errors\n";
    let d = log(text);
    let got: Vec<(&str, Option<NaiveDate>, DecisionStatus)> = d
        .iter()
        .map(|d| (d.title.as_str(), d.date, d.status))
        .collect();
    assert_eq!(
        got,
        [
            ("确认重构方向", date("2025-07-31"), DecisionStatus::Accepted),
            (
                "Build the release APK",
                date("2025-08-01"),
                DecisionStatus::Accepted
            ),
            (
                "Fix the compile errors",
                date("2025-08-01"),
                DecisionStatus::Unknown
            ),
        ]
    );
    assert_eq!((d[1].line, d[1].end_line), (9, 12));
}

#[test]
fn roo_log_lines_and_footer() {
    let text = "# Decision Log\n\n\
[2025-08-02 12:51:30] - Keep the bank in English\n- why: shared team\n\n\
[2025-08-03 09:00:01] - Switch to pnpm\n\
* [2025-08-04 10:00:00] - Bullet form also counts\n\n\
2025-08-04 10:00:05 - Log of updates made.\n";
    let d = log(text);
    assert_eq!(d.len(), 3);
    assert_eq!(d[0].title, "Keep the bank in English");
    assert_eq!(d[0].time, time("12:51:30"));
    assert_eq!((d[0].line, d[0].end_line), (3, 4));
    assert_eq!(d[1].title, "Switch to pnpm");
    assert_eq!((d[1].line, d[1].end_line), (6, 6));
    assert_eq!(d[2].date, date("2025-08-04"));
    assert_eq!(d[2].end_line, 7);
    assert!(d.iter().all(|d| d.style == DecisionStyle::LogLine));
}

#[test]
fn roo_log_lines_explaining_a_decision_under_its_parts_are_not_entries() {
    let text = "# Decision Log\n\n\
## Decision\n\
2025-09-26 00:17:41 - Created the memory bank structure\n\
\n\
## Rationale\n\
2025-09-26 00:17:41 - To keep the project's context across sessions\n\
\n\
## Implementation Details\n\
2025-09-26 00:17:41 - Created five core files\n\
\n\
## Decision\n\
2025-10-02 10:00:00 - Switch the API to FastAPI\n";
    let d = log(text);
    let titles: Vec<&str> = d.iter().map(|d| d.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Created the memory bank structure",
            "Switch the API to FastAPI"
        ]
    );
    assert_eq!(d[0].date, date("2025-09-26"));
}

#[test]
fn rooflow_list_logs_give_one_entry_per_bullet_dated_or_not() {
    let text = "# Decision Log\n\n\
This file records architectural and implementation decisions using a list format.\n\
2025-03-02 12:00:00 - Log of updates made.\n\n*\n\n## Decision\n\n\
* **Use SQLite for the local cache**\n  * Small footprint, no server.\n\
* [2025-03-04 10:15:00] - Adopt React Query\n\
- Switch the build to Vite\n\n## Rationale\n\n* Faster local builds.\n\n\
## Implementation Details\n\n*\n";
    let d = log(text);
    let titles: Vec<&str> = d.iter().map(|d| d.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Use SQLite for the local cache",
            "Adopt React Query",
            "Switch the build to Vite"
        ]
    );
    assert_eq!((d[0].line, d[0].end_line, d[0].date), (10, 11, None));
    assert_eq!(d[0].style, DecisionStyle::ListItem);
    assert_eq!(d[1].date, date("2025-03-04"));
    assert_eq!((d[2].style, d[2].date), (DecisionStyle::ListItem, None));
}

#[test]
fn a_rooflow_log_and_a_log_of_fields_read_the_same_in_other_languages() {
    let text = "# Журнал решений\n\n## Решение\n\n* Использовать MongoDB\n\n\
## Обоснование\n\n* Гибкая схема\n\n## Решение\n\n* REST API для проектов\n";
    let titles: Vec<String> = log(text).into_iter().map(|d| d.title).collect();
    assert_eq!(titles, ["Использовать MongoDB", "REST API для проектов"]);
    // A Thai label (its vowel signs are marks, not letters) marks each block.
    let text = "# Decision Log\n\n## 1. ใช้ Google Sheets\n- **การตัดสินใจ**: ใช้ Sheets\n\
- **เหตุผล**: ง่าย\n\n## 2. ใช้ Vanilla CSS\n- **การตัดสินใจ**: ไม่ใช้ Tailwind\n";
    assert_eq!(log(text).len(), 2);
}

#[test]
fn a_deeper_heading_dated_by_its_own_field_is_a_record_beside_the_open_one() {
    let text = "# ログ\n\n## ドキュメント削減の決定 (2025-04-18)\n**決定:** 統合する\n\n\
#### [設計変更] logger の明示的初期化\n- **発生日:** 2025-04-19\n- **理由:** テスト\n\n\
#### 背景\n長い説明。\n\n#### Data da decisão\n2025-04-20\n";
    let d = log(text);
    let got = titles_and_dates(&d);
    assert_eq!(
        got,
        [
            ("ドキュメント削減の決定", date("2025-04-18")),
            ("[設計変更] logger の明示的初期化", date("2025-04-19")),
        ]
    );
    assert_eq!((d[0].line, d[0].end_line), (3, 4));
}

#[test]
fn a_fence_never_closed_ends_at_the_next_section_heading() {
    let text = "# Decision Log\n\n## Plan\n```mermaid\ngraph TD\n## not a heading in a closed fence\n\
```\n\n```mermaid\ngraph LR\n# a comment, not a section\n\n## 2025-04-18 - Merge the docs\n\
**Decision:** one guide\n";
    let d = log(text);
    let titles: Vec<&str> = d.iter().map(|d| d.title.as_str()).collect();
    assert_eq!(titles, ["Merge the docs"]);
    // Closed on the last line, a fence hides all it holds.
    let closed = "# Decision Log\n\n```md\n## 2025-04-18 - An example entry\n```";
    assert!(log(closed).is_empty());
}

#[test]
fn a_decision_section_inside_a_block_keeps_its_bullets() {
    let text = "# Decisions\n\n## Use Postgres\n- **Date:** 2025-01-02\n\
### Decision\n- We use Postgres everywhere\n- **Context:** scale\n";
    let d = log(text);
    let titles: Vec<&str> = d.iter().map(|d| d.title.as_str()).collect();
    assert_eq!(titles, ["Use Postgres"]);
    assert_eq!(d[0].end_line, 7);
}

#[test]
fn sections_under_an_entry_are_not_entries() {
    let text = "# Decision Log\n\n[2025-05-05 19:05:48] - Design the parser\n\n\
### Option 1: Regex\n- **Rationale**: simple\n\n### Option 2: PEG\n- **Rationale**: strict\n\n\
## Decision: Use a PEG\n- **Date**: 2025-05-06\n### Notes\n- **Context**: long story\n";
    let d = log(text);
    let titles: Vec<&str> = d.iter().map(|d| d.title.as_str()).collect();
    assert_eq!(titles, ["Design the parser", "Use a PEG"]);
    assert_eq!((d[0].line, d[0].end_line), (3, 9));
    assert_eq!((d[1].line, d[1].end_line), (11, 14));
}

#[test]
fn adr_headings_inside_a_log() {
    let text = "# Architecture Decisions\n\n\
## ADR-0001 — Graph layout with a layered engine\n\n- **Date:** 2026-01-10\n- **Status:** Accepted\n\n\
## ADR-0002 — Share state through the URL\n\n- **Date:** 2026-01-11\n- **Status:** Deprecated\n";
    let d = log(text);
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].id.as_deref(), Some("ADR-0001"));
    assert_eq!(d[0].title, "Graph layout with a layered engine");
    assert_eq!(d[1].status, DecisionStatus::Deprecated);
    assert_eq!(d[1].style, DecisionStyle::Adr);
}

#[test]
fn tables_of_decisions() {
    let text = "# Decisions\n\n| Date | Decision | Status |\n|---|---|---|\n\
| 2025-03-01 | Use Rust | Accepted |\n| 2025-03-09 | [Drop Python](#drop) | Superseded |\n| [Date] | [Decision] | [Status] |\n\nAfter.\n";
    let d = log(text);
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].title, "Use Rust");
    assert_eq!(d[0].line, 5);
    assert_eq!(d[1].title, "Drop Python");
    assert_eq!(d[1].status, DecisionStatus::Superseded);
    assert_eq!(d[1].style, DecisionStyle::TableRow);
    // Headers in another language name the same columns.
    let text = "# 决策记录\n\n| 日期 | 决策 | 状态 |\n|---|---|---|\n\
| 2026-02-03 | 采用 SQLite | 已废弃 |\n";
    let d = log(text);
    assert_eq!(
        (d[0].title.as_str(), d[0].date, d[0].status),
        (
            "采用 SQLite",
            date("2026-02-03"),
            DecisionStatus::Deprecated
        )
    );
}

#[test]
fn day_headings_group_entries_below_them() {
    let text = "# Log\n\n## 2025-04-01\n\n### Decision: Freeze the API\n- **Status**: proposed\n\n\
### Decision: Tag v1\n\n## 2025-04-02\n\n**Decision:** ship it\n";
    let d = log(text);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(
        (d[0].title.as_str(), d[0].date),
        ("Freeze the API", date("2025-04-01"))
    );
    assert_eq!(d[0].status, DecisionStatus::Proposed);
    assert_eq!(d[1].date, date("2025-04-01"));
    // A day heading with no entries below is itself the entry.
    assert_eq!(
        (d[2].title.as_str(), d[2].date),
        ("ship it", date("2025-04-02"))
    );
}

#[test]
fn memory_bank_mcp_title_then_date_with_section_headings() {
    let text = "# Decision Log\n## Use JWT for auth - 2025-02-03\n### Context\nstateless API\n\
### Decision\nJWT\n### Alternatives Considered\n- sessions\n### Consequences\n- key rotation\n";
    let d = log(text);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].title, "Use JWT for auth");
    assert_eq!((d[0].line, d[0].end_line), (2, 10));
}

#[test]
fn a_heading_that_groups_entries_is_not_an_entry() {
    let text = "# Decision Log\n\n## Phase 2 decisions\n\n\
### Use Postgres\n- **Date:** 2025-02-01\n- **Status:** Accepted — pending review of the pool size\n\n\
### Use Redis for sessions\n**Decision:** Redis\n**Status:** Reverted\n\n\
## Architecture Decisions\n\n### Drop the cron box\n**Status:** Superseded by ADR-7\n\n\
## Use a queue\n**Context:** slow jobs\n### Background\nnotes\n";
    let d = log(text);
    let got: Vec<(&str, DecisionStatus, Option<&str>)> = d
        .iter()
        .map(|d| (d.title.as_str(), d.status, d.group.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "Use Postgres",
                DecisionStatus::Accepted,
                Some("Phase 2 decisions")
            ),
            (
                "Use Redis for sessions",
                DecisionStatus::Reverted,
                Some("Phase 2 decisions")
            ),
            (
                "Drop the cron box",
                DecisionStatus::Superseded,
                Some("Architecture Decisions")
            ),
            ("Use a queue", DecisionStatus::Unknown, None),
        ]
    );
    assert_eq!((d[0].line, d[0].end_line), (5, 7));
    assert_eq!(d[2].superseded_by, ["ADR-7"]);
    // A block's own sub-sections do not make it a group.
    assert_eq!((d[3].line, d[3].end_line), (18, 21));
}

#[test]
fn rooflow_timestamps_date_entries_with_or_without_brackets() {
    let text = "# Decision Log\n\n\
This file records architectural and implementation decisions using a list format.\n\
2025-07-31 07:01:19 - Initialized the memory bank.\n\n*\n\n## Decision\n\n\
* 2025-07-31 07:01:19 - Initialize the bank from the PRD\n\
* [2025-08-01 10:15:00] - **Use Next.js**\n\
* Undated choice\n\n## Rationale\n\n* because\n\n\
[2025-08-02 19:37:55] - Layout responsibility change\n\
2025-08-03 08:00:00 - Bare stamped decision\n\
2025-08-04 was a sunny day and this line is prose.\n";
    let d = log(text);
    let got: Vec<(&str, Option<NaiveDate>, Option<NaiveTime>)> = d
        .iter()
        .map(|d| (d.title.as_str(), d.date, d.time))
        .collect();
    assert_eq!(
        got,
        [
            (
                "Initialize the bank from the PRD",
                date("2025-07-31"),
                time("07:01:19")
            ),
            ("Use Next.js", date("2025-08-01"), time("10:15:00")),
            ("Undated choice", None, None),
            (
                "Layout responsibility change",
                date("2025-08-02"),
                time("19:37:55")
            ),
            (
                "Bare stamped decision",
                date("2025-08-03"),
                time("08:00:00")
            ),
        ]
    );
    assert_eq!(d[0].style, DecisionStyle::ListItem);
    assert_eq!(d[4].style, DecisionStyle::LogLine);
    assert_eq!((d[4].line, d[4].end_line), (19, 20));
}

#[test]
fn sections_of_options_are_entries_where_the_choice_is_made() {
    let text = "# Design Decisions\n\n## Storage (Phase 1)\n\n### Page Size\n\n\
| Option | Used by |\n|---|---|\n| 4 KB | SQLite |\n| 8 KB | Postgres |\n\n\
**PureDB choice:** 8KB\n\n### Byte Order\n\nWhich way integers are stored.\n\n\
**PureDB choice:**Little-endian\n\n## Recovery (Phase 7)\n\n### Checkpoints\n\n\
How often to checkpoint.\n\n**PureDB choice:**\n\n## How to Use This Document\n\n\
Fill in a choice before its phase starts.\n";
    let got: Vec<(String, Option<String>, DecisionStatus)> = log(text)
        .into_iter()
        .map(|d| (d.title, d.group, d.status))
        .collect();
    let storage = Some("Storage (Phase 1)".to_string());
    assert_eq!(
        got,
        [
            (
                "Page Size".into(),
                storage.clone(),
                DecisionStatus::Accepted
            ),
            ("Byte Order".into(), storage, DecisionStatus::Accepted),
        ]
    );
}

#[test]
fn sections_written_in_the_same_parts_are_entries_under_the_title_naming_decisions() {
    let text = "# Purpose and Goals\n\n## Overview\n\nA scraper of wallpapers.\n\n\
## Success Criteria\n\nMost downloads succeed.\n\n---\n\n# Architectural Decisions\n\n\
## 1. Code Organization\n\n### Implementation\n\nOne service per site.\n\n\
### Pending Improvements\n\nPlugins found on their own.\n\n## 2. Storage\n\n\
### Implementation\n\nOne folder per run.\n\n### Features\n\nResumable downloads.\n\n\
## 3. Retries\n\n### Implementation\n\nThree tries, then the next site.\n";
    let titles: Vec<String> = log(text).into_iter().map(|d| d.title).collect();
    assert_eq!(titles, ["1. Code Organization", "2. Storage", "3. Retries"]);

    // Sections of their own below a category stay the entries.
    let text = "# Decisions\n\n## Storage\n\n### Why PostGIS\n\nSpatial queries.\n\n\
### Why one schema\n\nFewer migrations.\n\n## Serving\n\n### Why Axum\n\nTower.\n";
    let titles: Vec<String> = log(text).into_iter().map(|d| d.title).collect();
    assert_eq!(titles, ["Why PostGIS", "Why one schema", "Why Axum"]);
}

#[test]
fn a_day_heading_over_a_plain_list_dates_each_bullet_as_a_decision() {
    let text = "# Decisions\n\nShort record of what was settled.\n\n## 2026-04-15 Kararları\n\n\
- Backend first; the screens come later.\n- PostgreSQL runs in Docker Compose.\n\n\
## 2026-04-20\n\n- Login uses the OAuth2 password form.\n- Photo upload is optional.\n\n\
## 2026-04-22: Use Redis for sessions\n\n- It is already deployed.\n- Sessions expire on their own.\n\n\
## 2025/05/22 - 项目启动与优先级决策\n- **决策概述**：启动执行引擎。\n- **来源**：用户反馈。\n";
    let got: Vec<(String, Option<NaiveDate>)> =
        log(text).into_iter().map(|d| (d.title, d.date)).collect();
    let day = |m, d| NaiveDate::from_ymd_opt(2026, m, d);
    assert_eq!(
        got,
        [
            (
                "Backend first; the screens come later.".to_string(),
                day(4, 15)
            ),
            ("PostgreSQL runs in Docker Compose.".to_string(), day(4, 15)),
            (
                "Login uses the OAuth2 password form.".to_string(),
                day(4, 20)
            ),
            ("Photo upload is optional.".to_string(), day(4, 20)),
            ("Use Redis for sessions".to_string(), day(4, 22)),
            (
                "项目启动与优先级决策".to_string(),
                NaiveDate::from_ymd_opt(2025, 5, 22)
            ),
        ]
    );
}

#[test]
fn a_table_of_one_record_s_fields_is_no_list_of_entries() {
    let text = "# Repository Decisions Log\n\n## 2026-06-19 - Keyword search\n\n\
| Field | Decision |\n|---|---|\n| Decision ID | DEC-001 |\n| Context | Search matched names only |\n\
| Decision | Match the address too |\n| Status | Planned |\n\n## 2026-06-20 - Sort by rating\n\n\
| Field | Decision |\n|---|---|\n| Context | Unrated places |\n| Decision | Unrated last |\n";
    let titles: Vec<String> = log(text).into_iter().map(|d| d.title).collect();
    assert_eq!(titles, ["Keyword search", "Sort by rating"]);
}

#[test]
fn a_record_written_as_one_block_of_fields_takes_the_fields_above_its_label() {
    let text = "# Decision Log\n\n## Format of each entry\n\n```\n**Date:** YYYY-MM-DD\n\
**Decision:** [WHAT]\n```\n\n---\n\n## Entries\n\n**Date:** 2026-05-18\n**Module:** web\n\
**Decision:** Use Supabase Realtime.\n**Reason:** SSE fails on Workers.\n\n\
**Date:** 2026-05-14\n**Status:** Superseded\n**Decision:** Wallet pay-per-use.\n";
    let got = titled(text);
    assert_eq!(
        got,
        [
            (
                "Use Supabase Realtime.".to_string(),
                NaiveDate::from_ymd_opt(2026, 5, 18),
                DecisionStatus::Accepted
            ),
            (
                "Wallet pay-per-use.".to_string(),
                NaiveDate::from_ymd_opt(2026, 5, 14),
                DecisionStatus::Superseded
            ),
        ]
    );
}

#[test]
fn a_section_listing_several_decision_bullets_gives_one_entry_each() {
    let text = "# Decisiones\n\n## Publicación en Vercel\n\n- Fecha: 2026-08-15.\n- Estado: aceptada.\n\
- Decisión: mantener el sitio sin build y agregar comprobaciones\n  sin dependencias.\n\
- Consecuencia: GitHub Actions ejecuta los mismos controles.\n\
- Decisión: publicar en Vercel y usar `www` como URL primaria.\n\
- Actualización 2026-08-19: página pública y canonical.\n  úsase `og:url`.\n\n\
## Accesibilidad\n\n- Fecha: 2026-08-16.\n- Decisión: ofrecer un enlace de salto al contenido.\n";
    let got: Vec<(String, Option<NaiveDate>, Option<String>)> = log(text)
        .into_iter()
        .map(|d| (d.title, d.date, d.group))
        .collect();
    let day = |d| NaiveDate::from_ymd_opt(2026, 8, d);
    let vercel = Some("Publicación en Vercel".to_string());
    assert_eq!(
        got,
        [
            (
                "mantener el sitio sin build y agregar comprobaciones sin dependencias."
                    .to_string(),
                day(15),
                vercel.clone()
            ),
            (
                "publicar en Vercel y usar www como URL primaria.".to_string(),
                day(15),
                vercel
            ),
            ("Accesibilidad".to_string(), day(16), None),
        ]
    );
}

#[test]
fn a_list_of_decisions_ends_at_its_thematic_break_and_open_tasks_are_no_entries() {
    let text = "# Kararlar\n\n### 1. Backend\n**Karar:** NestJS\n**Tarih:** 16 Şubat 2026\n\n---\n\n\
## Bekleyen Kararlar\n\n- [ ] Monitoring: Prometheus vs Sentry\n\
- [x] ~~Push: FCM vs OneSignal~~ → FCM seçildi\n- [ ] Analytics: Plausible vs Mixpanel\n\n---\n\n\
### 14. Oturum süresi\n**Karar:** ChangeNotifier\n**Tarih:** 21 Haziran 2026\n";
    let d = log(text);
    let got: Vec<(&str, Option<NaiveDate>, usize, usize)> = d
        .iter()
        .map(|d| (d.title.as_str(), d.date, d.line, d.end_line))
        .collect();
    assert_eq!(
        got,
        [
            ("1. Backend", date("2026-02-16"), 3, 5),
            ("Push: FCM vs OneSignal → FCM seçildi", None, 12, 12),
            ("14. Oturum süresi", date("2026-06-21"), 17, 19),
        ]
    );
}

#[test]
fn a_table_writing_days_first_and_months_by_name_reads_each_row_so() {
    let text = "# Decisioni\n\n| Data | Decisione | Motivazione |\n|---|---|---|\n\
| 23/06/2026 | Dominio registrato | costo |\n| 12/06/2026 | Modal centrato | uso |\n\
| Maggio 2026 (data esatta non recuperabile) | Tester zero | accesso |\n\n\
| 論点 | 決定 | 理由 |\n|---|---|---|\n| Vercel 同期 | やらない | 公開 |\n";
    let d = log(text);
    let got: Vec<(&str, Option<NaiveDate>, Option<String>)> = d
        .iter()
        .map(|d| (d.title.as_str(), d.date, d.month.map(|m| m.to_string())))
        .collect();
    assert_eq!(
        got,
        [
            ("Dominio registrato", date("2026-06-23"), None),
            ("Modal centrato", date("2026-06-12"), None),
            ("Tester zero", None, Some("2026-05".into())),
            ("Vercel 同期: やらない", None, None),
        ]
    );
}

#[test]
fn a_month_heading_over_bullets_dates_each_to_its_month() {
    let text = "# Decision Log\n\n## 2026-03\n\n- **PostHog вместо GA4** — выбран PostHog.\n\
- **SEO-статьи как страницы** — отдельные URL.\n\n## Maggio 2026\n\n\
- **Hero gradient** — `var(--gradient-hero)`.\n- **Default language = PL** — Польша.\n";
    let d = log(text);
    let got: Vec<(&str, Option<String>, Option<NaiveDate>)> = d
        .iter()
        .map(|d| (d.title.as_str(), d.month.map(|m| m.to_string()), d.date))
        .collect();
    assert_eq!(
        got,
        [
            ("PostHog вместо GA4", Some("2026-03".into()), None),
            ("SEO-статьи как страницы", Some("2026-03".into()), None),
            ("Hero gradient", Some("2026-05".into()), None),
            ("Default language = PL", Some("2026-05".into()), None),
        ]
    );
}

#[test]
fn a_month_before_a_title_dates_the_entry_and_a_note_after_a_date_may_follow_a_space() {
    let text = "# Decisioni\n\n## 2026-07 — Siti statici con Astro\n\n**Decisione:** Astro.\n\n\
## 2026.1 Release notes\n\n**Decision:** ship it.\n\n\
## 디자인 결정 (2026-05-02 추가)\n\n**결정:** 카드 UI.\n";
    let d = log(text);
    let got: Vec<(&str, Option<NaiveDate>, Option<String>)> = d
        .iter()
        .map(|d| (d.title.as_str(), d.date, d.month.map(|m| m.to_string())))
        .collect();
    assert_eq!(
        got,
        [
            ("Siti statici con Astro", None, Some("2026-07".into())),
            ("2026.1 Release notes", None, None),
            ("디자인 결정", date("2026-05-02"), None),
        ]
    );
}

#[test]
fn a_dated_heading_naming_decisions_over_a_table_dates_its_rows() {
    let text = "# 의사결정\n\n### 디자인 결정 (2026-05-02 추가)\n\n| # | 항목 | 결정 |\n|---|---|---|\n\
| O-19 | 명칭 | AI 스터디 코치 |\n| O-20 | 톤 | 차분한 구어체 |\n";
    let d = log(text);
    let got = titles_and_dates(&d);
    assert_eq!(
        got,
        [
            ("명칭: AI 스터디 코치", date("2026-05-02")),
            ("톤: 차분한 구어체", date("2026-05-02")),
        ]
    );
}

#[test]
fn a_bold_label_closed_by_a_full_stop_is_a_field() {
    let text = "# Decisioni\n\n## ADR-001 — `discipline` è una tabella\n\n**Decisione.** Tabella.\n\n\
**Data.** 2026-07-09\n";
    let d = log(text);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].date, date("2026-07-09"));
}

#[test]
fn a_decision_label_dated_in_brackets_dates_its_entry() {
    let text = "# 의사결정\n\n### P-1. 등급 설정 방식 ✅\n\n**핵심 질문**: 어떻게?\n\n\
**결정 (2026-02-21)**:\n- 넛지 배너\n\n### P-2. Rewards\n\n**Decision (2026-02-22)**: credits\n";
    let d = log(text);
    let got: Vec<Option<NaiveDate>> = d.iter().map(|d| d.date).collect();
    assert_eq!(got, [date("2026-02-21"), date("2026-02-22")]);
}

#[test]
fn a_date_over_prose_is_titled_by_its_first_line() {
    let text = "# Decision Log\n\n## 2026-03\n\nWe moved the build to Vite: faster local builds.\n\n\
## 2026-04-02\n\n**Decision:** keep Postgres.\n";
    let titles: Vec<String> = log(text).into_iter().map(|d| d.title).collect();
    assert_eq!(
        titles,
        [
            "We moved the build to Vite: faster local builds.",
            "keep Postgres."
        ]
    );
}

#[test]
fn a_problem_column_leads_to_its_decision() {
    let text = "# 의사결정\n\n| # | 문제 | 위험도 | 결정 |\n|---|---|---|---|\n\
| S-1 | CORS * 허용 | 높음 | 허용 도메인 제한 |\n";
    let titles: Vec<String> = log(text).into_iter().map(|d| d.title).collect();
    assert_eq!(titles, ["CORS * 허용 → 허용 도메인 제한"]);
}

#[test]
fn a_table_row_takes_the_date_its_section_gives_once() {
    let text = "# 의사결정\n\n## Part G: 스터디 모듈\n\n> **결정일**: 2026-05-01\n\n\
### 결정 요약\n\n| # | 항목 | 결정 |\n|---|---|---|\n| O-1 | 모듈 | 별도 라우트 |\n\n\
## Part H\n\n| # | 항목 | 결정 |\n|---|---|---|\n| H-1 | 캐시 | Redis |\n";
    let d = log(text);
    let got = titles_and_dates(&d);
    assert_eq!(
        got,
        [
            ("모듈: 별도 라우트", date("2026-05-01")),
            ("캐시: Redis", None)
        ]
    );
}

#[test]
fn a_why_question_over_a_records_fields_explains_a_decision_taken() {
    let text = "# 重要決策記錄\n\n## 技術選型決策\n\n### 1. 為什麼選擇 Vite？\n\n\
**決策日期**: 專案初始化時\n\n**選擇原因**:\n- 速度\n\n---\n\n\
### 2. Why not Redux?\n\n**Date**: 2026-03-04\n\n**Reason**: one component holds the state\n\n\
## 未來決策待定\n\n### 3. 是否添加背景音樂？\n\n**Date**: 2026-03-05\n\n\
### 4. Why is the build slow?\n\nNobody knows yet.\n";
    let d = log(text);
    assert_eq!(
        titles_and_dates(&d),
        [
            ("1. 為什麼選擇 Vite？", None),
            ("2. Why not Redux?", date("2026-03-04"))
        ]
    );
}

#[test]
fn numbered_decision_labels_under_a_dated_heading_are_entries_of_their_own() {
    let text = "# Decisions Log\n\n## 2026-08-09 — Card layout and art\n\
- **Decision (1) — `items-center` on the card's button.** Asked by the coach.\n  \
**Why:** the block looked left-aligned.\n\
- **Decision (2) — the art is inlined as SVG\n  (`?raw`).** **Why:** WebKit blurs it.\n\
- **Honest note:** the page may have been cached.\n\n\
## 2026-08-07 — One choice only\n- **Decisão 1: seed outside the migrations.** Why: replays.\n";
    let d = log(text);
    assert_eq!(
        titles_and_dates(&d),
        [
            ("items-center on the card's button", date("2026-08-09")),
            ("the art is inlined as SVG (?raw)", date("2026-08-09")),
            ("One choice only", date("2026-08-07"))
        ]
    );
}

#[test]
fn why_sections_under_a_dated_heading_are_the_decisions_it_groups() {
    let text = "# Decisions Log\n\n## 2026-05-03 — Static assets\n\n\
### Why SVG placeholders instead of real images\nThe assets are copyrighted.\n\n\
### Why ruff line-length is 120\nChinese strings double the width.\n\n\
## 2026-05-04 — Keep Postgres\n\n### Why is CI slow?\nNobody knows yet.\n";
    let d = log(text);
    assert_eq!(
        titles_and_dates(&d),
        [
            (
                "Why SVG placeholders instead of real images",
                date("2026-05-03")
            ),
            ("Why ruff line-length is 120", date("2026-05-03")),
            ("Keep Postgres", date("2026-05-04"))
        ]
    );
}

#[test]
fn bold_leads_listing_a_section_s_decisions_are_entries_of_their_own() {
    let text = "# Ключевые решения\n\n## БД и данные\n\n**КСИ** — дерево с parentId в PostgreSQL.\n\n\
**Файлы** — только метаданные в БД.\n\n## 8. Отвергнутое\n\n- **Contentlayer** — проект заброшен.\n\
- **ISR** — контент известен на сборке.\n\n## K9 — One frame for every chart\n\nWe do not split screens.\n\n\
Two principles:\n\n- **The chart type is a tab**, not the indicator's.\n- **Breakdowns are controls.**\n\n\
## Open items\n\n- **Neighbourhood data** — later.\n- **Default scale** — later.\n";
    let got: Vec<(String, DecisionStatus)> =
        log(text).into_iter().map(|d| (d.title, d.status)).collect();
    // Open items are not split into decisions.
    assert!(
        got.iter()
            .all(|(title, _)| !title.contains("Neighbourhood"))
    );
    assert_eq!(
        got[..5],
        [
            (
                "КСИ: дерево с parentId в PostgreSQL".to_string(),
                DecisionStatus::Accepted
            ),
            (
                "Файлы: только метаданные в БД".to_string(),
                DecisionStatus::Accepted
            ),
            (
                "Contentlayer: проект заброшен".to_string(),
                DecisionStatus::Rejected
            ),
            (
                "ISR: контент известен на сборке".to_string(),
                DecisionStatus::Rejected
            ),
            (
                "K9 — One frame for every chart".to_string(),
                DecisionStatus::Unknown
            ),
        ]
    );
}

#[test]
fn a_table_of_a_record_s_date_and_status_under_its_heading_gives_them() {
    let text = "# 决策\n\n## ADR-001：项目选择\n\n| 字段 | 值 |\n|---|---|\n| **日期** | 2026-06-03 |\n\
| **状态** | 已采纳 |\n\n## 2026-06-19 - Keyword search (plan)\n\n| Field | Decision |\n|---|---|\n\
| Decision | Add a keyword param |\n| Status | Planned |\n";
    let got = titled(text);
    assert_eq!(
        got,
        [
            (
                "项目选择".to_string(),
                date("2026-06-03"),
                DecisionStatus::Accepted
            ),
            (
                "Keyword search (plan)".to_string(),
                date("2026-06-19"),
                DecisionStatus::Proposed
            ),
        ]
    );
}

#[test]
fn a_date_whose_day_is_left_to_fill_in_dates_the_entry_to_its_month() {
    let text = "# Decision Log\n\n## [2025-01-XX] 分層驗證系統 (Tiered Validation)\n\n\
**Decision:** validate in three tiers\n\n## [2025-02-??] Cache the index\n\n**Decision:** yes\n";
    let got: Vec<(String, Option<String>)> = log(text)
        .into_iter()
        .map(|d| (d.title, d.month.map(|m| m.to_string())))
        .collect();
    assert_eq!(
        got,
        [
            (
                "分層驗證系統 (Tiered Validation)".to_string(),
                Some("2025-01".to_string())
            ),
            ("Cache the index".to_string(), Some("2025-02".to_string())),
        ]
    );
}

#[test]
fn a_decided_field_dates_the_entry_to_the_day_or_the_month_it_gives() {
    let text = "# Decisions\n\n## 2. GPS tracks live in Storage\n\n**Decided:** April 2026 · migration `001_runs.sql`\n\nTracks are files.\n\n## 3. Codegen of our own\n\n**Decided:** 2026-04-12\n\nNo generator fits.\n";
    let got: Vec<(String, Option<String>, Option<String>)> = log(text)
        .into_iter()
        .map(|d| {
            (
                d.title,
                d.date.map(|d| d.to_string()),
                d.month.map(|m| m.to_string()),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "2. GPS tracks live in Storage".to_string(),
                None,
                Some("2026-04".to_string())
            ),
            (
                "3. Codegen of our own".to_string(),
                Some("2026-04-12".to_string()),
                None
            ),
        ]
    );
}

#[test]
fn a_template_of_empty_items_records_nothing() {
    let text = "# Decision Log\n\nThis file records decisions using a list format.\n\n*\n\n\
## Decision\n\n*\n\n## Rationale \n\n*\n\n## Implementation Details\n\n*\n";
    assert!(log(text).is_empty(), "{:?}", log(text));
}

#[test]
fn a_heading_opening_with_a_day_its_month_names_is_dated_by_it() {
    let text = "# Decision Log\n\n## February 27, 2025 - Testing Strategy\n\n\
- Decision: unit tests first, then integration.\n\n## March 3, 2025 - Schema change\n\n\
- Decision: add `job_id` to the job data.\n";
    let entries = log(text);
    assert_eq!(
        titles_and_dates(&entries),
        [
            ("Testing Strategy", date("2025-02-27")),
            ("Schema change", date("2025-03-03")),
        ]
    );
}

#[test]
fn a_list_item_wrapped_onto_more_lines_is_titled_by_all_of_them() {
    let text = "# Active Context\n\n## Active decisions\n\n- Develop in the phases set out in `docs/plan.md`\n  \
and release each one alone.\n- Keep state as JSON files in the bucket.\n  - a detail, not a wrap\n";
    let titles: Vec<String> = log(text).into_iter().map(|d| d.title).collect();
    assert_eq!(
        titles,
        [
            "Develop in the phases set out in docs/plan.md and release each one alone.",
            "Keep state as JSON files in the bucket.",
        ]
    );
}
