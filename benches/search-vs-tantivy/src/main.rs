//! mbank's search against tantivy on the same passages of the same banks: recall@5 on the
//! labelled questions of `tests/it/search_queries.toml` (counted as `tests/it/search_recall.rs`
//! counts it), index build time, index size and query latency, the engines taking turns.
//!
//!   cargo run --release --manifest-path benches/search-vs-tantivy/Cargo.toml -- CORPUS [ROOT]
//!
//! CORPUS is the labelled corpus (`shared/corpus`); ROOT, when given, is a second root
//! (`benches/gen_root.sh DIR 2000`) measured for build time, size and latency only.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mbank_core::model::{Bank, Project};
use mbank_core::scan::bank::list_banks;
use mbank_core::scan::discovery::{self, ScanOptions};
use mbank_core::search::extract::project_files;
use mbank_core::search::segment::{BODY, HEADINGS, PLACE, field_texts};
use mbank_core::search::{ProjectBanks, Query as MbankQuery, SearchIndex};
use serde::Deserialize;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, QueryParser, TermQuery};
use tantivy::schema::{
    Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
    Value,
};
use tantivy::tokenizer::{
    Language, LowerCaser, NgramTokenizer, RemoveLongFilter, SimpleTokenizer, Stemmer, TextAnalyzer,
};
use tantivy::{Index, IndexReader, IndexWriter, TantivyDocument, Term};

/// mbank's field weights (crates/mbank-core/src/search/query.rs), as tantivy field boosts.
const BOOSTS: [(usize, f32); 3] = [(HEADINGS, 2.5), (BODY, 1.0), (PLACE, 0.6)];
const FIELD_NAMES: [&str; 3] = ["headings", "body", "place"];
/// Hits asked of tantivy before passages overlapping a better one are dropped, as mbank
/// drops them, so both answer five distinct places.
const OVER_FETCH: usize = 20;
const LATENCY_ROUNDS: usize = 10;

#[derive(Deserialize)]
struct Labels {
    query: Vec<Labelled>,
}

#[derive(Deserialize)]
struct Place {
    file: String,
    lines: [u32; 2],
}

#[derive(Deserialize)]
struct Labelled {
    question: String,
    project: String,
    file: String,
    lines: [u32; 2],
    paraphrase: bool,
    language: String,
    split: String,
    #[serde(default)]
    also: Vec<Place>,
}

/// One result as recall counts it.
struct Found {
    file: String,
    start: u32,
    end: u32,
}

/// How tantivy is set up.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Setup {
    /// Its built-in `en_stem` analyzer: words lower-cased and stemmed with Snowball English.
    EnStem,
    /// What tantivy offers put to mbank's text: the English and Russian stemmers in turn,
    /// and the text of Chinese, Japanese and Korean also indexed as character pairs
    /// (tantivy's n-gram tokenizer) in three more fields. (Its English stopword filter
    /// answered three fewer questions in their project, so it is left out.)
    Tuned,
}

struct Tantivy {
    setup: Setup,
    dir: PathBuf,
    reader: IndexReader,
    parser: QueryParser,
    scope: Field,
    file: Field,
    start: Field,
    end: Field,
}

/// A root's projects with their banks.
struct Root {
    path: PathBuf,
    projects: Vec<Project>,
    banks: Vec<Vec<Bank>>,
}

impl Root {
    fn scan(path: &Path) -> Root {
        let projects = discovery::scan(path, &ScanOptions::default());
        let banks = projects.iter().map(list_banks).collect();
        Root {
            path: path.to_path_buf(),
            projects,
            banks,
        }
    }

    fn inputs(&self) -> Vec<ProjectBanks<'_>> {
        self.projects
            .iter()
            .zip(&self.banks)
            .map(|(project, banks)| ProjectBanks { project, banks })
            .collect()
    }
}

fn is_unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x31F0..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0x20000..=0x2FA1F | 0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F)
}

/// Only the text in scripts written without spaces, each run apart.
fn unspaced_runs(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if is_unspaced(c) {
            out.push(c);
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    out
}

/// The query as plain words: the query language's operators are not in a question, and
/// tantivy's tokenizer splits at the same characters. With `pairs`, each run of unspaced
/// script is also written as its character pairs, the terms the pair fields hold.
fn query_text(question: &str, pairs: bool) -> String {
    let mut out: String = question
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_lowercase().next().unwrap_or(c)
            } else {
                ' '
            }
        })
        .collect();
    if pairs {
        for run in unspaced_runs(question).split(' ') {
            let chars: Vec<char> = run.chars().collect();
            for pair in chars.windows(2) {
                out.push(' ');
                out.extend(pair);
            }
        }
    }
    out
}

fn words_analyzer(setup: Setup) -> TextAnalyzer {
    match setup {
        Setup::EnStem => TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(RemoveLongFilter::limit(40))
            .filter(LowerCaser)
            .filter(Stemmer::new(Language::English))
            .build(),
        Setup::Tuned => TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(RemoveLongFilter::limit(40))
            .filter(LowerCaser)
            .filter(Stemmer::new(Language::English))
            .filter(Stemmer::new(Language::Russian))
            .build(),
    }
}

fn text_options(tokenizer: &str, stored: bool) -> TextOptions {
    let options = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(tokenizer)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    if stored {
        options.set_stored()
    } else {
        options
    }
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// Builds tantivy's index of every passage mbank indexes (read from the banks again, as a
/// refresh of mbank reads them) in a new folder, with one indexing thread as mbank has.
fn build_tantivy(root: &Root, setup: Setup, dir: &Path) -> Tantivy {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("index folder");
    let mut schema = Schema::builder();
    let words: Vec<Field> = FIELD_NAMES
        .iter()
        .enumerate()
        // What a hit shows (its headings and text) is kept, as mbank's segment keeps it.
        .map(|(at, name)| schema.add_text_field(name, text_options("words", at != PLACE)))
        .collect();
    let pairs: Vec<Field> = if setup == Setup::Tuned {
        FIELD_NAMES
            .iter()
            .map(|name| {
                schema.add_text_field(&format!("{name}_pairs"), text_options("pairs", false))
            })
            .collect()
    } else {
        Vec::new()
    };
    let scope = schema.add_text_field("scope", STRING);
    let file = schema.add_text_field("file", STORED);
    let start = schema.add_u64_field("start", STORED | INDEXED);
    let end = schema.add_u64_field("end", STORED);
    let schema = schema.build();
    let index = Index::create_in_dir(dir, schema).expect("tantivy index");
    index.tokenizers().register("words", words_analyzer(setup));
    index.tokenizers().register(
        "pairs",
        TextAnalyzer::builder(NgramTokenizer::new(2, 2, false).expect("pairs")).build(),
    );
    let mut writer: IndexWriter = index
        .writer_with_num_threads(1, 64_000_000)
        .expect("index writer");
    let mut problems = Vec::new();
    for (project, banks) in root.projects.iter().zip(&root.banks) {
        let scopes: Vec<String> = project
            .path
            .ancestors()
            .take_while(|a| a.starts_with(&root.path))
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        for searched in project_files(project, banks, &mut problems) {
            for passage in &searched.passages {
                let texts = field_texts(&project.name, &searched, passage);
                let mut doc = TantivyDocument::default();
                for (field, text) in words.iter().zip(&texts) {
                    doc.add_text(*field, text.as_ref());
                }
                for (field, text) in pairs.iter().zip(&texts) {
                    doc.add_text(*field, unspaced_runs(text));
                }
                for s in &scopes {
                    doc.add_text(scope, s);
                }
                doc.add_text(file, &searched.path);
                doc.add_u64(start, u64::from(passage.start_line));
                doc.add_u64(end, u64::from(passage.end_line));
                writer.add_document(doc).expect("add document");
            }
        }
    }
    writer.commit().expect("commit");
    writer.wait_merging_threads().expect("merges");
    let reader = index.reader().expect("reader");
    let mut fields = words.clone();
    fields.extend(&pairs);
    let mut parser = QueryParser::for_index(&index, fields);
    for (at, boost) in BOOSTS {
        parser.set_field_boost(words[at], boost);
        if let Some(field) = pairs.get(at) {
            parser.set_field_boost(*field, boost);
        }
    }
    Tantivy {
        setup,
        dir: dir.to_path_buf(),
        reader,
        parser,
        scope,
        file,
        start,
        end,
    }
}

impl Tantivy {
    fn search(&self, question: &str, project: Option<&str>) -> Vec<Found> {
        let (parsed, _errors) = self
            .parser
            .parse_query_lenient(&query_text(question, self.setup == Setup::Tuned));
        let query: Box<dyn Query> = match project {
            Some(folder) => Box::new(BooleanQuery::new(vec![
                (Occur::Must, parsed),
                (
                    Occur::Must,
                    Box::new(ConstScoreQuery::new(
                        Box::new(TermQuery::new(
                            Term::from_field_text(self.scope, folder),
                            IndexRecordOption::Basic,
                        )),
                        0.0,
                    )),
                ),
            ])),
            None => parsed,
        };
        let searcher = self.reader.searcher();
        let top = searcher
            .search(&query, &TopDocs::with_limit(OVER_FETCH).order_by_score())
            .unwrap_or_default();
        let mut out: Vec<Found> = Vec::new();
        for (_, address) in top {
            if out.len() >= 5 {
                break;
            }
            let Ok(doc) = searcher.doc::<TantivyDocument>(address) else {
                continue;
            };
            let file = doc
                .get_first(self.file)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string();
            let line = |field| {
                doc.get_first(field)
                    .and_then(|v| v.as_u64())
                    .unwrap_or_default() as u32
            };
            let (start, end) = (line(self.start), line(self.end));
            if out
                .iter()
                .any(|f| f.file == file && f.start <= end && start <= f.end)
            {
                continue;
            }
            out.push(Found { file, start, end });
        }
        out
    }

    fn size(&self) -> u64 {
        dir_bytes(&self.dir)
    }
}

fn mbank_search(index: &SearchIndex, question: &str, project: Option<&str>) -> Vec<Found> {
    index
        .search(&MbankQuery {
            text: question.to_string(),
            limit: 5,
            project: project.map(str::to_string),
            ..MbankQuery::default()
        })
        .into_iter()
        .map(|hit| Found {
            file: hit.file,
            start: hit.start_line,
            end: hit.end_line,
        })
        .collect()
}

fn mbank_build(root: &Root) -> SearchIndex {
    let mut index = SearchIndex::in_memory();
    index.refresh(&root.inputs(), None);
    index
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn us(d: Duration) -> String {
    format!("{:.0} µs", d.as_secs_f64() * 1e6)
}

fn mib(bytes: u64) -> String {
    format!("{:.2} MiB", bytes as f64 / (1024.0 * 1024.0))
}

const ENGINES: [&str; 3] = ["mbank", "tantivy en_stem", "tantivy tuned"];

/// Reading the banks into passages alone, which every build does first.
fn extract_only(root: &Root) -> usize {
    let mut problems = Vec::new();
    root.projects
        .iter()
        .zip(&root.banks)
        .flat_map(|(project, banks)| project_files(project, banks, &mut problems))
        .map(|file| file.passages.len())
        .sum()
}

/// Every engine built `rounds` times in turn; the median build time of each (and of the
/// reading of the banks alone, last), and the engines of the last round.
fn build_all(
    root: &Root,
    work: &Path,
    rounds: usize,
) -> (SearchIndex, Vec<Tantivy>, [Duration; 4]) {
    let mut times: [Vec<Duration>; 4] = Default::default();
    let mut built = None;
    for _ in 0..rounds {
        let clock = Instant::now();
        std::hint::black_box(extract_only(root));
        times[3].push(clock.elapsed());
        let clock = Instant::now();
        let mbank = mbank_build(root);
        times[0].push(clock.elapsed());
        let mut tantivies = Vec::new();
        for (at, setup) in [Setup::EnStem, Setup::Tuned].into_iter().enumerate() {
            let clock = Instant::now();
            let engine = build_tantivy(root, setup, &work.join(format!("tantivy-{at}")));
            times[at + 1].push(clock.elapsed());
            tantivies.push(engine);
        }
        built = Some((mbank, tantivies));
    }
    let (mbank, tantivies) = built.expect("one round at least");
    let medians = times.map(|mut t| {
        t.sort();
        percentile(&t, 0.5)
    });
    (mbank, tantivies, medians)
}

/// Each question asked of every engine in turn, `LATENCY_ROUNDS` times, in both scopes.
fn latencies(
    mbank: &SearchIndex,
    tantivies: &[Tantivy],
    questions: &[(String, Option<String>)],
) -> [Vec<Duration>; 3] {
    let mut out: [Vec<Duration>; 3] = Default::default();
    for _ in 0..LATENCY_ROUNDS {
        for (question, project) in questions {
            let clock = Instant::now();
            std::hint::black_box(mbank_search(mbank, question, project.as_deref()));
            out[0].push(clock.elapsed());
            for (at, engine) in tantivies.iter().enumerate() {
                let clock = Instant::now();
                std::hint::black_box(engine.search(question, project.as_deref()));
                out[at + 1].push(clock.elapsed());
            }
        }
    }
    for list in &mut out {
        list.sort();
    }
    out
}

fn print_costs(
    root: &Root,
    mbank: &SearchIndex,
    tantivies: &[Tantivy],
    builds: [Duration; 4],
    times: &[Vec<Duration>; 3],
) {
    println!(
        "\n{}: {} projects, {} passages",
        root.path.display(),
        root.projects.len(),
        mbank.passage_count()
    );
    println!("| engine | build (median) | index size | query p50 | query p95 |");
    println!("|---|---|---|---|---|");
    let sizes = [
        mbank.size() as u64,
        tantivies[0].size(),
        tantivies[1].size(),
    ];
    for at in 0..3 {
        println!(
            "| {} | {} | {} | {} | {} |",
            ENGINES[at],
            ms(builds[at]),
            mib(sizes[at]),
            us(percentile(&times[at], 0.5)),
            us(percentile(&times[at], 0.95)),
        );
    }
    println!(
        "(each build reads the banks into passages first: {} of it)",
        ms(builds[3])
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(corpus) = args.next().map(PathBuf::from) else {
        eprintln!("usage: search-vs-tantivy CORPUS [GENERATED_ROOT]");
        std::process::exit(2);
    };
    let generated = args.next().map(PathBuf::from);
    let corpus = corpus.canonicalize().unwrap_or(corpus);
    let labels: Labels = toml::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/it/search_queries.toml"),
        )
        .expect("tests/it/search_queries.toml"),
    )
    .expect("labelled questions");
    let work = std::env::temp_dir().join(format!("search-vs-tantivy-{}", std::process::id()));

    let root = Root::scan(&corpus);
    let (mbank, tantivies, builds) = build_all(&root, &work, 5);

    // Recall@5, counted as tests/it/search_recall.rs counts it.
    let mut found: BTreeMap<(String, usize), (usize, usize)> = BTreeMap::new();
    let mut questions: Vec<(String, Option<String>)> = Vec::new();
    for (query, scope) in labels
        .query
        .iter()
        .flat_map(|q| [(q, "in its project"), (q, "over every project")])
    {
        let project_dir = corpus.join(&query.project);
        let project =
            (scope == "in its project").then(|| project_dir.to_string_lossy().into_owned());
        questions.push((query.question.clone(), project.clone()));
        let places: Vec<(PathBuf, [u32; 2])> = std::iter::once((query.file.as_str(), query.lines))
            .chain(query.also.iter().map(|p| (p.file.as_str(), p.lines)))
            .map(|(file, lines)| (project_dir.join(file), lines))
            .collect();
        let answers = [
            mbank_search(&mbank, &query.question, project.as_deref()),
            tantivies[0].search(&query.question, project.as_deref()),
            tantivies[1].search(&query.question, project.as_deref()),
        ];
        let groups = [
            "all".to_string(),
            query.split.clone(),
            if query.paraphrase {
                "paraphrase"
            } else {
                "shares words"
            }
            .to_string(),
            if query.language == "en" {
                "english"
            } else {
                "other languages"
            }
            .to_string(),
        ];
        for (engine, hits) in answers.iter().enumerate() {
            let answered = hits.iter().any(|hit| {
                places.iter().any(|(file, [start, end])| {
                    Path::new(&hit.file) == file && hit.start <= *end && *start <= hit.end
                })
            });
            for group in &groups {
                let entry = found
                    .entry((format!("{scope}, {group}"), engine))
                    .or_default();
                entry.1 += 1;
                entry.0 += usize::from(answered);
            }
        }
    }
    println!("recall@5 on {} labelled questions", labels.query.len());
    println!("| group | {} |", ENGINES.join(" | "));
    println!("|---|---|---|---|");
    let groups: Vec<String> = found
        .keys()
        .map(|(g, _)| g.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    for group in groups {
        let cells: Vec<String> = (0..3)
            .map(|engine| {
                let (hit, total) = found[&(group.clone(), engine)];
                format!("{hit}/{total} = {:.3}", hit as f64 / total as f64)
            })
            .collect();
        println!("| {group} | {} |", cells.join(" | "));
    }

    let times = latencies(&mbank, &tantivies, &questions);
    print_costs(&root, &mbank, &tantivies, builds, &times);
    drop(tantivies);

    if let Some(generated) = generated {
        let root = Root::scan(&generated);
        let (mbank, tantivies, builds) = build_all(&root, &work, 3);
        // The corpus's questions, over every project of the generated root.
        let questions: Vec<(String, Option<String>)> = labels
            .query
            .iter()
            .map(|q| (q.question.clone(), None))
            .collect();
        let times = latencies(&mbank, &tantivies, &questions);
        print_costs(&root, &mbank, &tantivies, builds, &times);
    }
    let _ = std::fs::remove_dir_all(&work);
}
