//! Editor highlighting speed: one screen (60 lines) of a generated 1.4 MB markdown file,
//! at its end with the checkpoints warm (the common case while scrolling or typing), at its
//! start, and at its end from cold (the first jump to the end of a freshly opened file,
//! which the worker does once, off the drawing thread); and a screen holding a 500 KB line.
//!
//!     cargo bench --bench highlight
mod common;

use std::hint::black_box;

use criterion::Criterion;
use mbank::tui::highlight::{DocHighlighter, assets};

const SCREEN: usize = 60;
const THEME: &str = "base16-ocean.dark";

fn bench(c: &mut Criterion) {
    assets();
    let doc: Vec<String> = common::big_markdown().lines().map(str::to_string).collect();
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
