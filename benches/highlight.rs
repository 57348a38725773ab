//! Editor highlighting speed: one screen (60 lines) of a generated 1.4 MB markdown file,
//! at its end with the checkpoints warm (the common case while scrolling or typing), at its
//! start, and at its end from cold (the first jump to the end of a freshly opened file,
//! which the worker does once, off the drawing thread); and a screen holding a 500 KB line.
//!
//!     cargo bench --bench highlight
use std::hint::black_box;

use criterion::Criterion;
use mbank::tui::highlight::{DocHighlighter, assets};

const SCREEN: usize = 60;
const THEME: &str = "base16-ocean.dark";

/// About 1.4 MB of varied memory-bank markdown: frontmatter, headings, prose with inline
/// markup, lists, task lists, tables and fenced code in several languages.
fn big_markdown() -> Vec<String> {
    let mut text = String::from("---\ntitle: Progress\ntags: [bench, memory]\n---\n");
    let mut section = 0;
    while text.len() < 1_400_000 {
        section += 1;
        text.push_str(&format!(
            "\n## Session {section}: decisions and progress\n\n\
             The agent moved the **retry policy** into `src/net/retry_{section}.rs` and wrote \
             *why* in [ADR {section}](docs/adr/{section}.md). See also ~~the old plan~~.\n\n\
             - [x] Split the handler\n- [ ] Add backoff tests\n  - nested item with `code`\n\
             1. first\n2. second\n\n\
             | Area | Status | Owner |\n|------|--------|-------|\n| api | done | agent |\n\n\
             ```rust\nfn retry(attempt: u32) -> Duration {{\n    Duration::from_millis(100 << attempt.min(6))\n}}\n```\n\n\
             ```python\ndef load(path: str) -> dict:\n    return json.loads(open(path).read())  # cached\n```\n\n\
             ```json\n{{\"section\": {section}, \"ok\": true}}\n```\n\n\
             > Quote: keep the memory bank short.\n\n<!-- @category: decisions -->\n"
        ));
    }
    text.lines().map(str::to_string).collect()
}

fn bench(c: &mut Criterion) {
    assets();
    let doc = big_markdown();
    let n = doc.len();

    let mut warm = DocHighlighter::new(THEME);
    warm.highlight(&doc, n - SCREEN..n);
    c.bench_function("highlight/screen_at_end_1.4MB_warm", |b| {
        b.iter(|| black_box(warm.highlight(&doc, n - SCREEN..n)))
    });
    c.bench_function("highlight/screen_at_start_1.4MB", |b| {
        b.iter(|| black_box(warm.highlight(&doc, 0..SCREEN)))
    });

    let mut long_line_doc: Vec<String> = doc[..SCREEN].to_vec();
    long_line_doc[SCREEN / 2] = "word ".repeat(100_000);
    let mut engine = DocHighlighter::new(THEME);
    c.bench_function("highlight/screen_with_500KB_line", |b| {
        b.iter(|| black_box(engine.highlight(&long_line_doc, 0..SCREEN)))
    });

    let mut group = c.benchmark_group("highlight_cold");
    group.sample_size(10);
    group.bench_function("screen_at_end_1.4MB_cold", |b| {
        b.iter(|| {
            let mut cold = DocHighlighter::new(THEME);
            black_box(cold.highlight(&doc, n - SCREEN..n))
        })
    });
    group.finish();
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
