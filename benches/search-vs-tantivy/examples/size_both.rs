//! The same program as `size_mbank` with a tantivy index of the same passages beside it
//! (indexed in a folder, queried through its query parser): the size it adds is what
//! tantivy would add to mbank's binary.
//! `cargo build --profile mbank-release --example size_both`
use std::path::PathBuf;

use mbank_core::scan::bank::list_banks;
use mbank_core::scan::discovery::{self, ScanOptions};
use mbank_core::search::extract::project_files;
use mbank_core::search::segment::field_texts;
use mbank_core::search::{ProjectBanks, Query, SearchIndex};
use tantivy::collector::TopDocs;
use tantivy::query::QueryParser;
use tantivy::schema::{STORED, Schema, TEXT, Value};
use tantivy::{Index, IndexWriter, TantivyDocument};

fn main() -> tantivy::Result<()> {
    let root = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| ".".to_string()));
    let question = std::env::args().nth(2).unwrap_or_default();
    let projects = discovery::scan(&root, &ScanOptions::default());
    let banks: Vec<_> = projects.iter().map(list_banks).collect();
    let inputs: Vec<ProjectBanks<'_>> = projects
        .iter()
        .zip(&banks)
        .map(|(project, banks)| ProjectBanks { project, banks })
        .collect();
    let mut index = SearchIndex::in_memory();
    index.refresh(&inputs, None);
    for hit in index.search(&Query {
        text: question.clone(),
        limit: 5,
        ..Query::default()
    }) {
        println!("{}:{}", hit.file, hit.start_line);
    }

    let mut schema = Schema::builder();
    let fields = ["headings", "body", "place"].map(|name| schema.add_text_field(name, TEXT));
    let file = schema.add_text_field("file", STORED);
    let dir = std::env::temp_dir().join(format!("size-both-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let tantivy_index = Index::create_in_dir(&dir, schema.build())?;
    let mut writer: IndexWriter = tantivy_index.writer_with_num_threads(1, 64_000_000)?;
    let mut problems = Vec::new();
    for (project, banks) in projects.iter().zip(&banks) {
        for searched in project_files(project, banks, &mut problems) {
            for passage in &searched.passages {
                let mut doc = TantivyDocument::default();
                for (field, text) in
                    fields
                        .iter()
                        .zip(field_texts(&project.name, &searched, passage))
                {
                    doc.add_text(*field, text.as_ref());
                }
                doc.add_text(file, &searched.path);
                writer.add_document(doc)?;
            }
        }
    }
    writer.commit()?;
    let searcher = tantivy_index.reader()?.searcher();
    let (query, _) =
        QueryParser::for_index(&tantivy_index, fields.to_vec()).parse_query_lenient(&question);
    for (_, address) in searcher.search(&query, &TopDocs::with_limit(5).order_by_score())? {
        let doc: TantivyDocument = searcher.doc(address)?;
        println!(
            "{}",
            doc.get_first(file)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
