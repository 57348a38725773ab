//! Review diff speed: a 1 MB memory file after realistic agent edits (appended entries,
//! a rewritten section, scattered one-word line edits), diffed into hunks with word-level
//! highlights of changed lines (`core::review::diff_texts`), against `similar`'s plain
//! line diff of the same texts as the peer. Target: the review diff within 100 ms
//! (median), so the pane shows a 1 MB file's diff without a visible wait.
//!
//!     cargo bench --bench review_diff
use std::hint::black_box;

use criterion::Criterion;
use mbank::core::review::diff_texts;

/// A progress log of about 1 MB: dated sections with bullets and prose.
fn memory_file() -> String {
    let mut text = String::from("# Progress\n\n");
    let mut section = 0;
    while text.len() < 1_000_000 {
        section += 1;
        text.push_str(&format!(
            "## 2025-{:02}-{:02} Session {section}\n\n\
             The agent moved the retry policy for request {section} into the network layer \
             and recorded why in the decision log.\n\n\
             - [x] Split handler {section} into parse and apply steps\n\
             - [x] Added tests for timeouts in module {section}\n\
             - [ ] Backoff with jitter for service {section}\n\
             - Notes: keep the memory bank short; archive sessions older than a month.\n\n",
            section % 12 + 1,
            section % 28 + 1
        ));
    }
    text
}

/// What an agent session does to it: one-word edits on every 150th line, one section
/// rewritten in the middle, and new entries appended at the end.
fn agent_edit(old: &str) -> String {
    let lines: Vec<&str> = old.lines().collect();
    let middle = lines.len() / 2;
    let mut out = String::with_capacity(old.len() + 8192);
    for (i, line) in lines.iter().enumerate() {
        if (middle..middle + 40).contains(&i) {
            out.push_str(&format!(
                "Rewritten by the agent: line {i} now says something else entirely.\n"
            ));
        } else if i % 150 == 7 {
            out.push_str(&line.replace("agent", "assistant").replace("keep", "hold"));
            out.push('\n');
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    for n in 0..60 {
        out.push_str(&format!(
            "\n## 2026-01-{:02} Appended session {n}\n\n- [x] New work item {n}\n",
            n % 28 + 1
        ));
    }
    out
}

fn bench(c: &mut Criterion) {
    let old = memory_file();
    let new = agent_edit(&old);
    let diff = diff_texts(&old, &new);
    eprintln!(
        "review_diff: {} → {} bytes, {} hunks, +{} -{} lines",
        old.len(),
        new.len(),
        diff.hunks.len(),
        diff.added,
        diff.removed
    );
    let mut group = c.benchmark_group("review_diff");
    group.sample_size(20);
    group.bench_function("mbank_hunks_and_word_highlights_1MB", |b| {
        b.iter(|| black_box(diff_texts(black_box(&old), black_box(&new))))
    });
    group.bench_function("peer_similar_line_diff_1MB", |b| {
        b.iter(|| {
            let diff =
                similar::TextDiff::from_lines(black_box(old.as_str()), black_box(new.as_str()));
            black_box(diff.grouped_ops(3).len())
        })
    });
    group.finish();
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
