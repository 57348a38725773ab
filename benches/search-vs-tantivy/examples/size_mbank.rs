//! The binary-size baseline: mbank's search alone, built and queried over a root.
//! `cargo build --profile mbank-release --example size_mbank`
use std::path::PathBuf;

use mbank_core::scan::bank::list_banks;
use mbank_core::scan::discovery::{self, ScanOptions};
use mbank_core::search::{ProjectBanks, Query, SearchIndex};

fn main() {
    let root = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| ".".to_string()));
    let projects = discovery::scan(&root, &ScanOptions::default());
    let banks: Vec<_> = projects.iter().map(list_banks).collect();
    let inputs: Vec<ProjectBanks<'_>> = projects
        .iter()
        .zip(&banks)
        .map(|(project, banks)| ProjectBanks { project, banks })
        .collect();
    let mut index = SearchIndex::in_memory();
    index.refresh(&inputs, None);
    let question = std::env::args().nth(2).unwrap_or_default();
    for hit in index.search(&Query {
        text: question,
        limit: 5,
        ..Query::default()
    }) {
        println!("{}:{}", hit.file, hit.start_line);
    }
}
