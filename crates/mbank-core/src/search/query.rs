//! Ranking: BM25F over a passage's headings, text and place (file name, role, project),
//! summed over the query's words. A word also matches its relatives (`concepts`) at a
//! lower weight, counted once per query word: the best of the word itself and its
//! relatives.
use std::collections::HashMap;

use chrono::NaiveDate;
use serde::Serialize;

use super::concepts::Concepts;
use super::extract::PassageKind;
use super::segment::{BODY, FIELD_COUNT, HEADINGS, PLACE, Posting, Segment};
use super::snippet::{Snippet, snippet};
use super::text::TermAnalyzer;

/// How much each field counts, and how much its length normalises.
const WEIGHTS: [f32; FIELD_COUNT] = {
    let mut w = [0.0; FIELD_COUNT];
    w[HEADINGS] = 2.5;
    w[BODY] = 1.0;
    w[PLACE] = 0.6;
    w
};
const LENGTH_NORMS: [f32; FIELD_COUNT] = {
    let mut b = [0.0; FIELD_COUNT];
    b[HEADINGS] = 0.5;
    b[BODY] = 0.75;
    b[PLACE] = 0.3;
    b
};
const K1: f32 = 1.2;
/// A relative's match counts this much of the word's own.
const RELATED_WEIGHT: f32 = 0.45;
/// Query words beyond this many are ignored (a pasted paragraph is not a question).
const MAX_QUERY_WORDS: usize = 32;

/// What to look for, and where.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub text: String,
    /// Only this project (its name as `mbank list` prints it), or the projects in this
    /// absolute folder.
    pub project: Option<String>,
    /// Only files of this format (its id: `cline`, `claude-md` …).
    pub format: Option<String>,
    /// Only files this agent loads at session start (its position in `Agent::ALL`).
    pub agent: Option<usize>,
    /// Only decisions dated on or after this day, and other passages of files modified
    /// since.
    pub since: Option<NaiveDate>,
    pub kind: Option<KindFilter>,
    pub limit: usize,
}

/// `--kind`: decisions only, sections only, or one result per file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindFilter {
    Decision,
    Section,
    File,
}

/// One result.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Hit {
    pub project: String,
    pub project_path: String,
    pub file: String,
    pub display: String,
    pub format: String,
    pub role: String,
    pub kind: PassageKind,
    pub start_line: u32,
    pub end_line: u32,
    pub headings: Vec<String>,
    /// Rounded to four decimals, so every serializer writes the same number.
    pub score: f64,
    pub snippet: Snippet,
    pub decision: Option<super::extract::DecisionFacts>,
    /// From one of the home folder's own stores (Codex memories …), which belong to no
    /// project: `project` names the store, `project_path` is its folder.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub home_store: bool,
}

/// The query's words as terms: each with the relatives standing in for it.
pub(crate) struct QueryTerms {
    pub words: Vec<String>,
    pub related: Vec<(String, usize)>,
}

impl QueryTerms {
    pub fn of(text: &str, analyzer: &TermAnalyzer, concepts: &Concepts) -> QueryTerms {
        let mut words: Vec<String> = Vec::new();
        for term in analyzer.term_texts(text) {
            if !words.contains(&term) {
                words.push(term);
            }
        }
        words.truncate(MAX_QUERY_WORDS);
        let related = concepts.related(text, &words);
        QueryTerms { words, related }
    }

    /// Every term to look up: the words (weight 1) and their relatives.
    fn lookups(&self) -> impl Iterator<Item = (&str, usize, f32)> {
        self.words
            .iter()
            .enumerate()
            .map(|(slot, w)| (w.as_str(), slot, 1.0))
            .chain(
                self.related
                    .iter()
                    .map(|(t, slot)| (t.as_str(), *slot, RELATED_WEIGHT)),
            )
    }

    /// Terms a snippet marks, each with its weight.
    pub fn marked(&self) -> Vec<(&str, f32)> {
        self.lookups().map(|(t, _, w)| (t, w)).collect()
    }
}

/// A segment as a search sees it: which of its passages are no longer current.
pub(crate) struct Searched<'a> {
    pub segment: &'a Segment,
    pub dead: Vec<bool>,
}

/// The best passages for `query` over `segments`.
pub(crate) fn run(
    segments: &[Searched<'_>],
    query: &Query,
    terms: &QueryTerms,
    analyzer: &TermAnalyzer,
) -> Vec<Hit> {
    if terms.words.is_empty() {
        return Vec::new();
    }
    let live: usize = segments
        .iter()
        .map(|s| s.dead.iter().filter(|d| !**d).count())
        .sum();
    let total = live.max(1) as f32;
    // Postings of every term in every segment, and each term's document frequency.
    let lookups: Vec<(&str, usize, f32)> = terms.lookups().collect();
    let postings: Vec<Vec<Vec<Posting>>> = segments
        .iter()
        .map(|s| {
            lookups
                .iter()
                .map(|(t, _, _)| s.segment.postings(t))
                .collect()
        })
        .collect();
    let mut frequency = vec![0usize; lookups.len()];
    for (s, per_term) in segments.iter().zip(&postings) {
        for (count, list) in frequency.iter_mut().zip(per_term) {
            *count += list.iter().filter(|(p, _)| !s.dead[*p as usize]).count();
        }
    }
    let slots = terms.words.len();
    let mut scored: Vec<(f32, usize, u32)> = Vec::new();
    for (index, (s, per_term)) in segments.iter().zip(&postings).enumerate() {
        let mut by_passage: HashMap<u32, Vec<f32>> = HashMap::new();
        for (term_at, list) in per_term.iter().enumerate() {
            let (_, slot, weight) = lookups[term_at];
            let df = frequency[term_at] as f32;
            let idf = ((total - df + 0.5) / (df + 0.5) + 1.0).ln();
            for &(passage, counts) in list {
                if s.dead[passage as usize] {
                    continue;
                }
                let meta = &s.segment.meta[passage as usize];
                let mut tf = 0.0;
                for field in 0..FIELD_COUNT {
                    let length = f32::from(meta.lengths[field]);
                    let norm = 1.0 - LENGTH_NORMS[field]
                        + LENGTH_NORMS[field] * length / s.segment.average_lengths[field];
                    tf += WEIGHTS[field] * f32::from(counts[field]) / norm;
                }
                let score = weight * idf * tf / (K1 + tf);
                let entry = by_passage
                    .entry(passage)
                    .or_insert_with(|| vec![0.0; slots]);
                if score > entry[slot] {
                    entry[slot] = score;
                }
            }
        }
        for (passage, slot_scores) in by_passage {
            let meta = &s.segment.meta[passage as usize];
            match query.kind {
                Some(KindFilter::Decision) if !meta.decision => continue,
                Some(KindFilter::Section) if meta.decision => continue,
                _ => {}
            }
            let matched = slot_scores.iter().filter(|s| **s > 0.0).count() as f32;
            let sum: f32 = slot_scores.iter().sum();
            // Passages that answer more of the question's words come first among near ties.
            let coverage = 1.0 + 0.25 * matched / slots as f32;
            scored.push((sum * coverage, index, passage));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let limit = query.limit.max(1);
    let mut hits: Vec<Hit> = Vec::new();
    let mut file_cache: HashMap<(usize, u32), Option<super::segment::FileRecord>> = HashMap::new();
    let mut project_cache: HashMap<(usize, u32), Option<super::segment::ProjectRecord>> =
        HashMap::new();
    let marked = terms.marked();
    for (score, index, passage_id) in scored {
        if hits.len() >= limit {
            break;
        }
        let segment = segments[index].segment;
        let meta = segment.meta[passage_id as usize];
        let Some(file) = file_cache
            .entry((index, meta.file))
            .or_insert_with(|| segment.file(meta.file))
            .clone()
        else {
            continue;
        };
        let Some(project) = project_cache
            .entry((index, file.project))
            .or_insert_with(|| segment.project(file.project as usize))
            .clone()
        else {
            continue;
        };
        if !passes_file_filters(query, &project, &file) {
            continue;
        }
        let Some(passage) = segment.passage(passage_id) else {
            continue;
        };
        if let Some(since) = query.since {
            let dated = passage
                .decision
                .as_ref()
                .and_then(|d| d.date.as_deref())
                .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok());
            let recent = match dated {
                Some(date) => date >= since,
                None => file
                    .modified
                    .and_then(|s| chrono::DateTime::from_timestamp(s, 0))
                    .is_some_and(|t| t.date_naive() >= since),
            };
            if !recent {
                continue;
            }
        }
        // One result per place: a decision inside a section already shown (or the
        // reverse) adds nothing; with `--kind file`, one per file.
        let overlaps = hits.iter().any(|h| {
            h.file == file.path
                && (query.kind == Some(KindFilter::File)
                    || (h.start_line <= passage.end_line && passage.start_line <= h.end_line))
        });
        if overlaps {
            continue;
        }
        let snippet = snippet(&passage.text, passage.start_line, &marked, analyzer);
        hits.push(Hit {
            project: project.name.clone(),
            project_path: project.path.clone(),
            file: file.path.clone(),
            display: file.display.clone(),
            format: file.format.clone(),
            role: file.role.clone(),
            kind: passage.kind,
            start_line: passage.start_line,
            end_line: passage.end_line,
            headings: passage.headings,
            score: (f64::from(score) * 10_000.0).round() / 10_000.0,
            snippet,
            decision: passage.decision,
            home_store: false,
        });
    }
    hits
}

fn passes_file_filters(
    query: &Query,
    project: &super::segment::ProjectRecord,
    file: &super::segment::FileRecord,
) -> bool {
    if let Some(name) = &query.project
        && project.name != *name
        && !std::path::Path::new(&project.path).starts_with(name)
    {
        return false;
    }
    if let Some(format) = &query.format
        && file.format != *format
    {
        return false;
    }
    if let Some(agent) = query.agent
        && file.agents & (1 << agent) == 0
    {
        return false;
    }
    true
}
