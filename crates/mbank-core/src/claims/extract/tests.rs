use super::*;

fn texts(text: &str) -> Vec<(ClaimKind, String, usize)> {
    claims(
        text,
        FileKind {
            tech: true,
            names_code: true,
        },
    )
    .into_iter()
    .map(|c| (c.kind, c.text, c.line))
    .collect()
}

#[test]
fn paths_in_code_spans_links_and_prose_are_claims() {
    let found = texts(
        "# Patterns\n\nHandlers live in `src/api/refunds.rs` and [the router](src/router.ts#L4).\nSee docs/setup/install.md for setup.\n",
    );
    assert_eq!(
        found,
        vec![
            (ClaimKind::Path, "src/api/refunds.rs".into(), 3),
            (ClaimKind::Path, "src/router.ts".into(), 3),
            (ClaimKind::Path, "docs/setup/install.md".into(), 4),
        ]
    );
}

#[test]
fn code_blocks_urls_globs_placeholders_and_plans_are_not_claims() {
    let found = texts(
        "# Notes\n\n```\nsrc/in_a_block.rs\n```\n\nSee https://x.org/a/b.md and `src/**/*.rs` and `src/<name>.rs` and `path/to/file.rs`.\nWe will add `src/later.rs`.\n- [ ] `src/task.rs`\nRemoved `src/gone.rs`.\n\n## Next steps\n\n`src/next.rs`\n\n> `src/quoted.rs`\n",
    );
    assert_eq!(found, vec![]);
}

#[test]
fn naming_masks_describe_files_rather_than_name_them() {
    let found = texts(
        "# Notes\n\nMigrations are `migrate/YYYYMMDDHHMMSS_description.up.sql`.\n\
         Records are `decisions/ADR-NNN-title.md` and logs `logs/2025-MMDD.md`.\n\
         The schema is in `src/db/schema.sql`.\n",
    );
    assert_eq!(
        found,
        vec![(ClaimKind::Path, "src/db/schema.sql".into(), 5)]
    );
}

#[test]
fn words_with_a_slash_and_library_names_are_not_paths() {
    let found = texts("# Tech\n\nCI/CD and client/server, built with `Next.js` and Node.js.\n");
    assert_eq!(found, vec![]);
}

#[test]
fn scripts_symbols_env_vars_and_dependencies() {
    let found = texts(
        "# Tech\n\nRun `npm run lint` then `make deploy`; pnpm run build works too.\nThe `RefundService` calls `process_refund()` with `STRIPE_API_KEY`.\n\n## Dependencies\n\n`zod@3` and `@tanstack/react-query` and `node`.\n",
    );
    assert_eq!(
        found,
        vec![
            (
                ClaimKind::Script {
                    runner: Runner::Package,
                    command: "npm run lint".into()
                },
                "lint".into(),
                3
            ),
            (
                ClaimKind::Script {
                    runner: Runner::Make,
                    command: "make deploy".into()
                },
                "deploy".into(),
                3
            ),
            (
                ClaimKind::Script {
                    runner: Runner::Package,
                    command: "pnpm run build".into()
                },
                "build".into(),
                3
            ),
            (ClaimKind::Symbol, "RefundService".into(), 4),
            (ClaimKind::Symbol, "process_refund".into(), 4),
            (ClaimKind::EnvVar, "STRIPE_API_KEY".into(), 4),
            (ClaimKind::Dependency, "zod".into(), 8),
            (ClaimKind::Dependency, "@tanstack/react-query".into(), 8),
        ]
    );
}

#[test]
fn a_variable_prefix_an_example_name_and_what_is_struck_through_are_no_claims() {
    let found = texts(
        "# Patterns\n\nNever give keys the `NEXT_PUBLIC_` prefix; renaming `X` to `PREFIX_X` \
gives `PREFIX_PREFIX_X`, and `FOO_BAR` is an example.\n\
- ~~`OutputConfig`~~ 已清理, ~~src/old/config.rs~~; `InputConfig` in src/new/config.rs\n\
- ~~ a lone mark leaves `LoaderConfig` a claim\n",
    );
    assert_eq!(
        found,
        vec![
            (ClaimKind::Symbol, "InputConfig".into(), 4),
            (ClaimKind::Path, "src/new/config.rs".into(), 4),
            (ClaimKind::Symbol, "LoaderConfig".into(), 5),
        ]
    );
    assert_eq!(
        texts("# Patterns\n\nSet `STRIPE_API_KEY` and `DATABASE_URL`.\n"),
        vec![
            (ClaimKind::EnvVar, "STRIPE_API_KEY".into(), 3),
            (ClaimKind::EnvVar, "DATABASE_URL".into(), 3),
        ]
    );
}

#[test]
fn naming_and_example_sections_in_any_language_are_no_claims() {
    let found = texts(
        "# Docs\n\n## 文档命名规范\n\n- **架构文档**：小写-连字符（`three-tier-architecture.md`）\n\n\
## 示例\n\n### ❌ 错误的放置\n\n- `guides/FIXES_SUMMARY.md` - 应该在 `troubleshooting/`\n\n\
## Layout\n\n- `docs/guide.md` holds the guide\n",
    );
    assert_eq!(found, vec![(ClaimKind::Path, "docs/guide.md".into(), 15)]);
}

#[test]
fn the_old_side_of_a_move_is_no_claim() {
    let found = texts(
        "# Layout\n\n- `js/api/client.js` → `src/api/client.ts` ✅\n\
- `lib/old.py` -> `lib/new.py`\n",
    );
    assert_eq!(
        found,
        vec![
            (ClaimKind::Path, "src/api/client.ts".into(), 3),
            (ClaimKind::Path, "lib/new.py".into(), 4),
        ]
    );
}

#[test]
fn a_naming_pattern_with_a_slot_is_no_symbol() {
    assert_eq!(
        texts(
            "# Patterns\n\nEach store exports a hook: `useXxxStore`; `useCartStore` is one.\n\
             Read memories with `mcp__serena__list_memories`.\n"
        ),
        vec![(ClaimKind::Symbol, "useCartStore".into(), 3)]
    );
}

#[test]
fn a_path_the_file_says_elsewhere_was_removed_is_not_claimed() {
    assert_eq!(
        texts(
            "# Tasks\n\n### P1-6: 未使用コードの削除\n\
             - **ファイル**: `src/dll/msgpack_converter.h`, `src/dll/ucapi.cpp`\n\
             - **状態**: [x] 完了 (2026-01-17)\n\
             - `msgpack_converter.h` を削除\n"
        ),
        vec![(ClaimKind::Path, "src/dll/ucapi.cpp".into(), 4)]
    );
}

#[test]
fn an_agent_s_own_tools_are_no_symbols_of_the_code() {
    assert_eq!(
        texts(
            "# Agent rules\n\n## Tools that need confirmation\n\n\
             - `search_replace` / `ApplyPatch` / `edit_file` / `MultiEdit` / `write_to_file`\n\
             - `RefundService` handles refunds\n"
        ),
        vec![(ClaimKind::Symbol, "RefundService".into(), 6)]
    );
}

#[test]
fn removals_plans_and_examples_in_any_language_and_dated_sections_are_no_claims() {
    let found = texts(
        "# Progress\n\n- удалены `FileInfoUtil`, `SettingsDataStore`\n- 已删除 `OldLoader`；计划把代码放到 `src/jobs/`\n- Целевая структура может быть `worker/jobs`\n- `DataLoaderFactory` collapsed into `load_xlsx()`\n- `src/app.rs` starts the server\n\n## Recently Completed (March 2026)\n\n- Added `src/old_merge.py`\n\n## Known issues\n\n- `src/cache.rs` leaks\n",
    );
    assert_eq!(
        found,
        vec![
            (ClaimKind::Path, "src/app.rs".into(), 7),
            (ClaimKind::Path, "src/cache.rs".into(), 15),
        ]
    );
}

#[test]
fn names_a_rule_forbids_or_shows_as_examples_in_any_language_are_no_claims() {
    let found = texts(
        "# Vue\n\n- **N'utilise jamais** `reactive()` pour des valeurs primitives\n\
         - ✅ Bon : `nginx_reverse_proxy`, `postgresql_ha`\n\
         - **Nomme toujours** les tests avec le pattern `MethodName_Scenario_Expected`\n\
         - Nunca uses `var_dump` en producción\n- 不要直接调用 `legacyFetch`\n\
         - `RefundService` handles refunds\n",
    );
    assert_eq!(found, vec![(ClaimKind::Symbol, "RefundService".into(), 8)]);
}

#[test]
fn names_the_file_s_examples_import_from_a_package_are_its_api() {
    let found = texts(
        "# Vue\n\n- Use `watchEffect()` for simple effects\n- `useCart` holds the cart\n\
         - `formatPrice` formats prices\n\n```ts\nimport { watch, watchEffect as effect } from 'vue'\n\
         import { useCart } from '@/stores/cart'\nimport formatPrice from './price'\n```\n",
    );
    assert_eq!(
        found,
        vec![
            (ClaimKind::Symbol, "useCart".into(), 4),
            (ClaimKind::Symbol, "formatPrice".into(), 5)
        ]
    );
}

#[test]
fn a_path_its_line_calls_optional_is_no_claim() {
    let found = texts(
        "# Layout\n\n- gRPC (opcional): `resources/api/grpc_client.resource`\n\
         - `config.local.json` (optional) overrides the defaults\n\
         - 本地配置 `conf/local.yaml`（可选）\n- `K3S_CA_CERT`: CA 证书（可选）\n\
         - `src/app.rs` starts the server\n",
    );
    assert_eq!(
        found,
        vec![
            (ClaimKind::EnvVar, "K3S_CA_CERT".into(), 6),
            (ClaimKind::Path, "src/app.rs".into(), 7)
        ]
    );
}

#[test]
fn what_a_list_item_says_is_gone_is_gone_on_every_line_of_it() {
    let found = texts(
        "# Layout\n\n- **舊的後端已於 2026-08-06 刪除**（`packages/backend`、\n  \
         `infra/bin/app.ts`、`cdk.legacy.json`）。\n- `infra/package-lock.json` 不存在。\n\
         - The old stack (`deploy/old.yml`,\n  `deploy/older.yml`) was deleted.\n\
         - `src/app.rs` starts the server\n",
    );
    assert_eq!(found, vec![(ClaimKind::Path, "src/app.rs".into(), 8)]);
}

#[test]
fn names_shown_as_naming_examples_are_no_claims() {
    let found = texts(
        "# Patterns\n\n- Functions: snake_case (`calculate_risk_score`)\n\
- Constants: UPPER_SNAKE_CASE (`DEFAULT_RISK_MATRIX`)\n\
- ✅ `userAuthentication` ❌ `usrAuth`\n- ❌ `legacyAuthToken` in `src/auth/token.ts`\n\
- `RefundService` handles refunds\n",
    );
    assert_eq!(
        found,
        vec![
            (ClaimKind::Path, "src/auth/token.ts".into(), 6),
            (ClaimKind::Symbol, "RefundService".into(), 7),
        ]
    );
}

#[test]
fn plain_words_and_product_names_are_not_symbols() {
    let found = texts("# Patterns\n\nUses `config`, `TypeScript`, `Refund` and `useEffect`.\n");
    assert_eq!(found, vec![]);
}

#[test]
fn hostile_markdown_never_panics_and_claims_stay_on_their_lines() {
    let hostile = [
        "`",
        "``` unclosed\n`src/a.rs`",
        "é`src/é.rs`é [x](é/ü.rs) `@/x` `..` `/` `./` `:1` `#L3`",
        "`npm run` `make` `cargo ` `uv run` `just -x`",
        "# \u{202e}`src/rtl.rs`\n\u{200b}`A_B_C_D`",
        "[a](<src/b c.rs>) [b]( ) [c](#x) [d](mailto:x@y.z)",
    ];
    for text in hostile {
        for claim in claims(
            text,
            FileKind {
                tech: true,
                names_code: true,
            },
        ) {
            assert!(claim.line >= 1 && claim.line <= text.lines().count().max(1));
        }
    }
    let long = format!("`src/{}.rs` {}", "a".repeat(10_000), "x/".repeat(50_000));
    assert!(claims(&long, FileKind::default()).is_empty());
}

#[test]
fn options_the_file_defines_with_their_default_and_error_codes_are_no_claims() {
    let found = texts(
        "# Settings\n\n* `contextFileName` (string)\n  * Description: the file to read.\n  \
         * 기본값: `true`\n\n* `hideTips` (object)\n  * Default: `false`\n  * `showFooter` (boolean): `runShellCommand` too.\n\
         * `ERR_MODULE_NOT_FOUND` error:\n  * use `bunx`.\n\n\
         * `retryPolicy` (object)\n  * Description: how `fetchOrders` retries.\n\n\
         Set `STRIPE_API_KEY` first.\n",
    );
    assert_eq!(
        found,
        vec![
            (ClaimKind::Symbol, "retryPolicy".into(), 13),
            (ClaimKind::Symbol, "fetchOrders".into(), 14),
            (ClaimKind::EnvVar, "STRIPE_API_KEY".into(), 16),
        ]
    );
}

#[test]
fn files_marked_new_slots_and_future_sections_in_other_languages_are_no_claims() {
    let found = texts(
        "# タスク\n\n### P2-8: シリアライザ実装（将来検討）\n- `src/serializer.h`\n\n\
         ## Files\n\n- `src/api/orders.ts` (new)\n- `src/api/users.ts` (新規)\n\
         - Updated: docs/developer/features/[name].md\n- `src/api/kept.ts`\n",
    );
    assert_eq!(found, vec![(ClaimKind::Path, "src/api/kept.ts".into(), 11)]);
}

#[test]
fn names_about_an_mcp_server_are_its_tools() {
    let found = texts(
        "# Tools\n\n### 3. Serena MCP\n\n- `search_for_pattern`: search code\n\n\
         ## Code\n\n- `fetchOrders` loads orders; the `query_docs` MCP tool reads docs.\n\
         - `loadUsers` loads users.\n",
    );
    assert_eq!(found, vec![(ClaimKind::Symbol, "loadUsers".into(), 10)]);
}

#[test]
fn commands_in_shell_blocks_are_claims_until_the_block_changes_folder() {
    let package = |name: &str| ClaimKind::Script {
        runner: Runner::Package,
        command: format!("npm run {name}"),
    };
    let found = texts(
        "# Tech\n\n```bash\n# Development\n$ npm run dev:vite   # legacy\npython3 -u scripts/seed.py && \
python -m http.server\n./scripts/deploy.sh\nnode -e 'x.js'\ncd web && npm run web-only\nnpm run after-cd\n```\n\n\
```sh\ncat > notes.py <<EOF\npython scripts/in_heredoc.py\nEOF\n```\n\n\
```python\nnpm run in_python\n```\n\n## Old setup (2023)\n\n```bash\nnpm run retired\n```\n",
    );
    assert_eq!(
        found,
        vec![
            (package("dev:vite"), "dev:vite".into(), 5),
            (ClaimKind::Path, "scripts/seed.py".into(), 6),
            (ClaimKind::Path, "scripts/deploy.sh".into(), 7),
        ]
    );
}

#[test]
fn a_folder_tree_in_a_code_block_claims_each_entry_joined_to_its_folders() {
    let paths = |text: &str| -> Vec<(String, usize)> {
        claims(text, FileKind::default())
            .into_iter()
            .filter(|c| c.kind == ClaimKind::Path)
            .map(|c| (c.text, c.line))
            .collect()
    };
    let found = paths(
        "# Tech\n\n```text\nmy-app/\n├── src/            # the code\n│   ├── api.ts (REST client)\n\
│   ├── jobs/ (new)\n│   │   └── nightly.ts\n│   └── *.test.ts\n├── scripts/\n│   └── seed.py ← run once\n\
└── [locale]/\n    └── page.tsx\n```\n\n```\n├── a.rs\n└── b.rs\n```\n",
    );
    assert_eq!(
        found,
        [
            ("src/api.ts".to_string(), 6),
            ("scripts/seed.py".to_string(), 11),
        ]
    );
    // Every claim of a drawing knows the drawing's first line; others know none.
    let text = "# Tech\n\n```\n├── src/\n│   └── a.rs\n└── b.rs\n```\n`src/c.rs`\n";
    let drawings: Vec<Option<usize>> = claims(text, FileKind::default())
        .into_iter()
        .map(|c| c.drawing)
        .collect();
    assert_eq!(drawings, [Some(3), Some(3), None]);
}

#[test]
fn names_in_a_section_on_an_mcp_server_s_tool_are_the_server_s() {
    let found = texts(
        "# Reference\n\n### Parse PRD (`parse_prd`)\n\n* `numTasks`: how many tasks.\n\
* **MCP Tool:** `parse_prd`\n\n### Our code\n\n`RefundService` handles refunds.\n",
    );
    assert_eq!(found, vec![(ClaimKind::Symbol, "RefundService".into(), 10)]);
}

#[test]
fn a_file_a_recipe_says_to_create_is_no_claim_in_any_language() {
    for line in [
        "1. Criar arquivo em `views/MeuModulo.tsx`",
        "2. Crear el archivo `api/nuevo.ts`",
        "3. `src/pages/new.ts` を作成する",
        "4. Создайте файл `src/new.ts`",
    ] {
        let found = texts(&format!("# Recipe\n\n{line}\n"));
        assert!(found.is_empty(), "{line}: {found:?}");
    }
    assert_eq!(
        texts("# Map\n\n1. Views live in `views/Main.tsx`\n"),
        vec![(ClaimKind::Path, "views/Main.tsx".into(), 3)]
    );
}

#[test]
fn a_heading_names_a_plan_only_by_a_word_of_its_own() {
    // A product name or a longer word that begins or holds a plan word is no plan.
    let text = "# NextLevel Career Site\n\nRead `docs/a.md`.\n\n## Project information\n\n\
See `docs/b.md`.\n\n## TodoMVC port\n\nSee `docs/c.md`.\n\n## Next steps\n\n`docs/d.md`\n\n\
## Planning\n\n`docs/e.md`\n\n## Open questions\n\n`docs/f.md`\n\n## 今後の計画\n\n`docs/g.md`\n";
    let paths: Vec<String> = texts(text).into_iter().map(|(_, text, _)| text).collect();
    assert_eq!(paths, ["docs/a.md", "docs/b.md", "docs/c.md"]);
}

#[test]
fn code_spans_closed_by_and_so_on_are_examples_in_any_language() {
    let text = "# Patterns\n\n- Entries (`TextEntry`, `IconEntry`, etc.): from the framework.\n\
- UI 状态用 `IsBusy`、`IsUpdating` 等 命名。\n- 状態は `isOpen` など。\n\
- Handlers: `OrderHandler` and `RefundHandler`.\n";
    let names: Vec<String> = texts(text).into_iter().map(|(_, text, _)| text).collect();
    assert_eq!(names, ["OrderHandler", "RefundHandler"]);
}

#[test]
fn a_heading_claims_the_paths_it_names_unless_it_names_a_plan() {
    let text = "# Patterns\n\n### Core tables (in `supabase/database.sql`)\n\nUsers and lists.\n\n\
## Next steps: `src/later.rs`\n\n- add tests\n";
    let found = texts(text);
    assert_eq!(
        found,
        vec![(ClaimKind::Path, "supabase/database.sql".into(), 3)]
    );
}

#[test]
fn a_name_the_line_calls_the_platform_s_own_is_no_dependency() {
    let text = "# Tech\n\n### Utilities & libraries\n\n- **Data fetching**: Native `fetch` API\n\
- **Dates**: `dayjs` library\n- **Hashing**: встроенный `crypto` Node.js\n\
- **Navigation**: `expo-router` for React Native screens\n- **Charts**: `victory` library for imaginative dashboards\n";
    let deps: Vec<String> = texts(text)
        .into_iter()
        .filter(|(kind, _, _)| *kind == ClaimKind::Dependency)
        .map(|(_, text, _)| text)
        .collect();
    assert_eq!(deps, ["dayjs", "expo-router", "victory"]);
}

#[test]
fn a_sentence_saying_there_is_no_such_file_claims_none() {
    let found = texts(
        "# Storage\n\nThere is no\n`src-tauri/src/db.rs` or `src-tauri/src/schema.rs` any more.\n\
         The `app/Http/Middleware/` folder does not exist in Laravel 11.\n\
         Settings live in `src/settings.rs`.\n",
    );
    assert_eq!(found, vec![(ClaimKind::Path, "src/settings.rs".into(), 6)]);
}

#[test]
fn a_sentence_opening_by_saying_there_is_none_of_a_name_claims_it_not() {
    let found = texts(
        "# Order notes\n\n- No `findById` — reads go through `findMany` with a filter.\n\
         - Keine `loadAll`-Funktion.\n- Saves with `saveNote`.\n- Piano `playNote` plays one.\n",
    );
    let names: Vec<&str> = found.iter().map(|(_, name, _)| name.as_str()).collect();
    assert_eq!(names, ["saveNote", "playNote"]);
}

#[test]
fn a_line_opening_with_the_day_it_was_written_records_that_day_only() {
    let found = texts(
        "# Active Context\n\n[2025-04-01 10:12:00] - Fixed `SyncState` in `src/sync.py`.\n\
         - 2025-04-02: moved `src/old.py` away.\n- Now `src/sync.py` holds `SyncState`.\n",
    );
    let names: Vec<(&str, usize)> = found
        .iter()
        .map(|(_, name, line)| (name.as_str(), *line))
        .collect();
    assert_eq!(names, [("src/sync.py", 5), ("SyncState", 5)]);
}
