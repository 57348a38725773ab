//! Preview rendering speed: a generated 1.4 MB markdown file rendered at 100 columns, and a
//! file that is one 500 KB line. The preview renders whole documents, so the pane should
//! render big files off the drawing thread (or only after typing pauses).
//!
//!     cargo bench --bench preview
mod common;

use std::hint::black_box;

use criterion::Criterion;
use mbank::tui::markdown_view::render;
use mbank::tui::theme::Theme;

fn bench(c: &mut Criterion) {
    let theme = Theme::default();
    let big = common::big_markdown();
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
