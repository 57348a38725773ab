//! Preview rendering speed: a generated 1.4 MB markdown file rendered at 100 columns, and a
//! file that is one 500 KB line. The preview renders whole documents, so the pane should
//! render big files off the drawing thread (or only after typing pauses).
//!
//!     cargo bench --bench preview
use std::hint::black_box;

use criterion::Criterion;
use mbank::tui::markdown_view::render;
use mbank::tui::theme::Theme;

fn big_markdown() -> String {
    let mut text = String::from("---\ntitle: Progress\n---\n");
    let mut section = 0;
    while text.len() < 1_400_000 {
        section += 1;
        text.push_str(&format!(
            "\n## Session {section}\n\n\
             The agent moved the **retry policy** into `src/net/retry_{section}.rs` and wrote \
             *why* in [ADR {section}](docs/adr/{section}.md). See also ~~the old plan~~.\n\n\
             - [x] Split the handler\n- [ ] Add backoff tests\n  - nested item with `code`\n\n\
             | Area | Status | Owner |\n|------|--------|-------|\n| api | done | agent |\n\n\
             ```rust\nfn retry(attempt: u32) -> u64 {{ 100 << attempt.min(6) }}\n```\n\n\
             > Keep the memory bank short.\n\n<!-- @category: decisions -->\n\n\
             <private>\nsecret note {section}\n</private>\n"
        ));
    }
    text
}

fn bench(c: &mut Criterion) {
    let theme = Theme::default();
    let big = big_markdown();
    let long_line = "word ".repeat(100_000);
    let mut group = c.benchmark_group("preview");
    group.sample_size(10);
    group.bench_function("render_1.4MB_at_100_columns", |b| {
        b.iter(|| black_box(render(&big, &theme, 100)))
    });
    group.bench_function("render_500KB_line_at_100_columns", |b| {
        b.iter(|| black_box(render(&long_line, &theme, 100)))
    });
    group.finish();
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
