//! Parsing the Infinity store (`.infinity/memories.json`): `parse_store` on stores of
//! 5,000, 20,000 and 100,000 memories (compact, one memory per line, the biggest just
//! under the 16 MiB a store may be), with its peer in the same run: serde_json parsing
//! the same text into a `Value`, which `parse_store` does first. Linear parsing keeps
//! the ratio to the peer flat as the store grows. Target: 100,000 memories parsed well
//! inside `mbank check`'s 2 s.
//!
//!     cargo bench --bench infinity_store
use std::hint::black_box;

use criterion::Criterion;
use mbank::core::formats::infinity::store::{MAX_STORE_BYTES, parse_store};

const TYPES: [&str; 8] = [
    "design_doc",
    "project_overview",
    "implementation_plan",
    "progress_tracker",
    "test_plan",
    "instructions",
    "rules",
    "analysis",
];

/// A compact store of `count` memories, one per line, each naming the next one's id.
fn store(count: usize) -> String {
    let mut text = String::from("{\"project_id\":\"bench\",\"memories\":[\n");
    for i in 0..count {
        text.push_str(&format!(
            "{{\"id\":\"m-{i:06}\",\"title\":\"Memory {i}\",\"type\":\"{}\",\
             \"content\":\"# Memory {i}\\nSee m-{:06}.\",\
             \"created_at\":\"2026-01-01T00:00:00Z\"}}{}\n",
            TYPES[i % TYPES.len()],
            (i + 1) % count,
            if i + 1 < count { "," } else { "" }
        ));
    }
    text.push_str("]}\n");
    text
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("infinity_store");
    group.sample_size(10);
    for count in [5_000, 20_000, 100_000] {
        let text = store(count);
        assert!(text.len() <= MAX_STORE_BYTES, "{} bytes", text.len());
        let (parsed, issues) = parse_store(&text).expect("the generated store parses");
        assert_eq!((parsed.memories.len(), issues.len()), (count, 0));
        group.bench_function(format!("parse_store_{count}_memories"), |b| {
            b.iter(|| black_box(parse_store(black_box(&text))))
        });
        group.bench_function(format!("peer_serde_json_value_{count}_memories"), |b| {
            b.iter(|| black_box(serde_json::from_str::<serde_json::Value>(black_box(&text))))
        });
    }
    group.finish();
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
