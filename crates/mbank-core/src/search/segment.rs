//! One file of the search index, in the cache store's format: the projects it covers (each
//! with the stamp of the files it was built from), their files and passages, every
//! passage's field lengths, and the postings of every term, sorted so a query looks a term
//! up by binary search and decodes only the postings it needs.
use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::extract::{DecisionFacts, Passage, PassageKind, SearchedFile, role_words};
use super::text::TermAnalyzer;
use crate::cache_store::{self, Loaded, Raw, Section};

/// The fields a passage is scored on: its heading path, its text, and what the file is
/// (its name, its role in words, its project).
pub(crate) const FIELD_COUNT: usize = 3;
pub const HEADINGS: usize = 0;
pub const BODY: usize = 1;
pub const PLACE: usize = 2;

const TABLE_HEADER: usize = 0;
const TABLE_PROJECTS: usize = 1;
const TABLE_FILES: usize = 2;
const TABLE_PASSAGES: usize = 3;
const TABLE_META: usize = 4;
const TABLE_TERMS: usize = 5;
/// What a search segment's scope says (the root is in its file name).
const SCOPE: &[u8] = b"search";

/// What the segment is: the base of the index, or the changes since the base was built.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Header {
    /// The base's identity, which a change segment names so one built on another base is
    /// never combined with this one.
    pub generation: u64,
    /// For a change segment: projects of the base it replaces or removes.
    pub replaced: Vec<String>,
}

/// One project of a segment.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct ProjectRecord {
    pub name: String,
    pub path: String,
    /// What its files were when it was read (see `store::project_stamp`).
    pub stamp: u64,
    /// Its files and passages: index ranges into the segment's tables.
    pub files: (u32, u32),
    pub passages: (u32, u32),
}

/// One file of a segment, without its passages.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct FileRecord {
    pub project: u32,
    pub path: String,
    pub display: String,
    pub format: String,
    pub role: String,
    pub modified: Option<i64>,
    pub agents: u32,
}

/// One passage of a segment.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct PassageRecord {
    pub file: u32,
    pub kind: PassageKind,
    pub headings: Vec<String>,
    pub start_line: u32,
    pub end_line: u32,
    pub text: String,
    pub decision: Option<DecisionFacts>,
}

/// What scoring and filtering need of every passage, kept in one record.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
pub(crate) struct PassageMeta {
    pub file: u32,
    pub decision: bool,
    pub lengths: [u16; FIELD_COUNT],
}

/// A term's postings: each passage holding it, with how often in each field.
pub(crate) type Posting = (u32, [u16; FIELD_COUNT]);

#[derive(Serialize)]
struct TermOut<'a> {
    term: &'a str,
    postings: &'a [Posting],
}

#[derive(Deserialize)]
struct TermIn<'a> {
    #[serde(borrow)]
    term: &'a str,
    postings: Vec<Posting>,
}

/// A project and its files, ready to be written into a segment.
pub struct ProjectInput {
    pub name: String,
    pub path: String,
    pub stamp: u64,
    pub files: Vec<SearchedFile>,
}

/// The text of each field of a passage (indexed by [`HEADINGS`], [`BODY`], [`PLACE`]),
/// before it is cut into terms; public so another engine can be measured on the same text.
pub fn field_texts<'a>(
    project: &str,
    file: &SearchedFile,
    passage: &'a Passage,
) -> [Cow<'a, str>; FIELD_COUNT] {
    let mut headings = passage.headings.join(" ");
    if let Some(decision) = &passage.decision
        && !passage.headings.iter().any(|h| h.contains(&decision.title))
    {
        headings.push(' ');
        headings.push_str(&decision.title);
    }
    let role = crate::model::Role::from_id(&file.role).map_or("", role_words);
    let place = format!("{} {} {}", file.display, role, project);
    [
        Cow::Owned(headings),
        Cow::Borrowed(&passage.text),
        Cow::Owned(place),
    ]
}

/// The terms of each field of a passage.
fn field_terms(
    analyzer: &TermAnalyzer,
    project: &str,
    file: &SearchedFile,
    passage: &Passage,
) -> [Vec<String>; FIELD_COUNT] {
    field_texts(project, file, passage).map(|text| analyzer.term_texts(&text))
}

/// A whole segment's bytes.
pub fn build(analyzer: &TermAnalyzer, header: &Header, projects: &[ProjectInput]) -> Vec<u8> {
    let mut project_records = Vec::new();
    let mut file_records = Vec::new();
    let mut passage_records = Vec::new();
    let mut meta: Vec<PassageMeta> = Vec::new();
    let mut terms: BTreeMap<String, Vec<Posting>> = BTreeMap::new();
    for project in projects {
        let first_file = file_records.len() as u32;
        let first_passage = passage_records.len() as u32;
        for file in &project.files {
            let file_id = file_records.len() as u32;
            file_records.push(FileRecord {
                project: project_records.len() as u32,
                path: file.path.clone(),
                display: file.display.clone(),
                format: file.format.clone(),
                role: file.role.clone(),
                modified: file.modified,
                agents: file.agents,
            });
            for passage in &file.passages {
                let id = passage_records.len() as u32;
                let fields = field_terms(analyzer, &project.name, file, passage);
                let mut counts: BTreeMap<&str, [u16; FIELD_COUNT]> = BTreeMap::new();
                let mut lengths = [0u16; FIELD_COUNT];
                for (field, field_terms) in fields.iter().enumerate() {
                    lengths[field] = u16::try_from(field_terms.len()).unwrap_or(u16::MAX);
                    for term in field_terms {
                        let count = &mut counts.entry(term.as_str()).or_default()[field];
                        *count = count.saturating_add(1);
                    }
                }
                for (term, count) in counts {
                    match terms.get_mut(term) {
                        Some(postings) => postings.push((id, count)),
                        None => {
                            terms.insert(term.to_string(), vec![(id, count)]);
                        }
                    }
                }
                meta.push(PassageMeta {
                    file: file_id,
                    decision: passage.kind == PassageKind::Decision,
                    lengths,
                });
                passage_records.push(PassageRecord {
                    file: file_id,
                    kind: passage.kind,
                    headings: passage.headings.clone(),
                    start_line: passage.start_line,
                    end_line: passage.end_line,
                    text: passage.text.clone(),
                    decision: passage.decision.clone(),
                });
            }
        }
        project_records.push(ProjectRecord {
            name: project.name.clone(),
            path: project.path.clone(),
            stamp: project.stamp,
            files: (first_file, file_records.len() as u32),
            passages: (first_passage, passage_records.len() as u32),
        });
    }
    let header_bytes = vec![encoded(header)];
    let project_bytes: Vec<Vec<u8>> = project_records.iter().map(encoded).collect();
    let file_bytes: Vec<Vec<u8>> = file_records.iter().map(encoded).collect();
    let passage_bytes: Vec<Vec<u8>> = passage_records.iter().map(encoded).collect();
    let meta_bytes = vec![encoded(&meta)];
    let term_bytes: Vec<Vec<u8>> = terms
        .iter()
        .map(|(term, postings)| {
            cache_store::encode(&TermOut { term, postings }).unwrap_or_default()
        })
        .collect();
    let tables: Vec<Vec<Raw<'_>>> = [
        &header_bytes,
        &project_bytes,
        &file_bytes,
        &passage_bytes,
        &meta_bytes,
        &term_bytes,
    ]
    .iter()
    .map(|table| table.iter().map(|b| Raw(b)).collect())
    .collect();
    cache_store::frame(Section::Search, SCOPE, &tables)
}

/// A record's bytes. Encoding these types cannot fail; were it to, the record would be
/// empty and read back as missing, never as another record.
fn encoded<T: Serialize>(value: &T) -> Vec<u8> {
    cache_store::encode(value).unwrap_or_default()
}

/// A segment as read: its checked bytes, with its header and every passage's meta decoded.
pub(crate) struct Segment {
    loaded: Loaded,
    pub header: Header,
    pub meta: Vec<PassageMeta>,
    /// Each field's average length over the segment's passages.
    pub average_lengths: [f32; FIELD_COUNT],
}

impl std::fmt::Debug for Segment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Segment")
            .field("header", &self.header)
            .field("passages", &self.meta.len())
            .finish()
    }
}

impl Segment {
    /// The segment in `bytes`, or `None` when they are not a whole, valid one.
    pub fn parse(bytes: Vec<u8>) -> Option<Segment> {
        let loaded = Loaded::parse(bytes, Section::Search)?;
        if loaded.scope() != SCOPE || loaded.len(TABLE_HEADER) != 1 || loaded.len(TABLE_META) != 1 {
            return None;
        }
        let header: Header = cache_store::decode(loaded.record(TABLE_HEADER, 0))?;
        let meta: Vec<PassageMeta> = cache_store::decode(loaded.record(TABLE_META, 0))?;
        if meta.len() != loaded.len(TABLE_PASSAGES) {
            return None;
        }
        let mut sums = [0f64; FIELD_COUNT];
        for m in &meta {
            for (sum, &length) in sums.iter_mut().zip(&m.lengths) {
                *sum += f64::from(length);
            }
        }
        let count = meta.len().max(1) as f64;
        let average_lengths = sums.map(|s| ((s / count) as f32).max(1.0));
        Some(Segment {
            loaded,
            header,
            meta,
            average_lengths,
        })
    }

    pub fn read(path: &std::path::Path) -> Option<Segment> {
        Self::parse(cache_store::file::read(path)?)
    }

    pub fn size(&self) -> usize {
        self.loaded.size()
    }

    pub fn passage_count(&self) -> usize {
        self.meta.len()
    }

    pub(crate) fn project_count(&self) -> usize {
        self.loaded.len(TABLE_PROJECTS)
    }

    pub fn project(&self, index: usize) -> Option<ProjectRecord> {
        cache_store::decode(self.loaded.record(TABLE_PROJECTS, index))
    }

    pub fn projects(&self) -> impl Iterator<Item = ProjectRecord> + '_ {
        (0..self.project_count()).filter_map(|i| self.project(i))
    }

    pub fn file(&self, index: u32) -> Option<FileRecord> {
        cache_store::decode(self.loaded.record(TABLE_FILES, index as usize))
    }

    pub fn passage(&self, index: u32) -> Option<PassageRecord> {
        cache_store::decode(self.loaded.record(TABLE_PASSAGES, index as usize))
    }

    /// The postings of `term`, or none.
    pub(crate) fn postings(&self, term: &str) -> Vec<Posting> {
        let count = self.loaded.len(TABLE_TERMS);
        let key = |index: usize| -> Option<&str> {
            cache_store::decode_prefix::<&str>(self.loaded.record(TABLE_TERMS, index))
        };
        let (mut low, mut high) = (0usize, count);
        while low < high {
            let middle = (low + high) / 2;
            match key(middle) {
                Some(found) if found < term => low = middle + 1,
                Some(_) => high = middle,
                None => return Vec::new(),
            }
        }
        if low < count && key(low) == Some(term) {
            let decoded: Option<TermIn<'_>> =
                cache_store::decode(self.loaded.record(TABLE_TERMS, low));
            return decoded
                .filter(|t| t.term == term)
                .map(|t| t.postings)
                .unwrap_or_default();
        }
        Vec::new()
    }

    /// Every project of the segment with its files and passages, as they were written.
    pub fn inputs(&self) -> Vec<ProjectInput> {
        let mut out = Vec::new();
        for project in self.projects() {
            let mut files = Vec::new();
            for file_id in project.files.0..project.files.1 {
                let Some(file) = self.file(file_id) else {
                    continue;
                };
                files.push(SearchedFile {
                    path: file.path,
                    display: file.display,
                    format: file.format,
                    role: file.role,
                    modified: file.modified,
                    agents: file.agents,
                    passages: Vec::new(),
                });
            }
            for passage_id in project.passages.0..project.passages.1 {
                let Some(passage) = self.passage(passage_id) else {
                    continue;
                };
                let at = passage.file.saturating_sub(project.files.0) as usize;
                if let Some(file) = files.get_mut(at) {
                    file.passages.push(Passage {
                        kind: passage.kind,
                        headings: passage.headings,
                        start_line: passage.start_line,
                        end_line: passage.end_line,
                        text: passage.text,
                        decision: passage.decision,
                    });
                }
            }
            out.push(ProjectInput {
                name: project.name,
                path: project.path,
                stamp: project.stamp,
                files,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::extract::sections;

    fn input(name: &str, text: &str) -> ProjectInput {
        ProjectInput {
            name: name.to_string(),
            path: format!("/root/{name}"),
            stamp: 7,
            files: vec![SearchedFile {
                path: format!("/root/{name}/memory-bank/techContext.md"),
                display: "memory-bank/techContext.md".to_string(),
                format: "cline".to_string(),
                role: "tech".to_string(),
                modified: Some(1),
                agents: 1,
                passages: sections(text),
            }],
        }
    }

    #[test]
    fn a_segment_reads_back_its_projects_passages_and_postings() {
        let analyzer = TermAnalyzer::default();
        let header = Header {
            generation: 3,
            replaced: vec!["old".to_string()],
        };
        let projects = [
            input(
                "shop",
                "# Database\nPostgres with retries\n# Cache\nRedis\n",
            ),
            input("blog", "# Stack\nSQLite\n"),
        ];
        let segment = Segment::parse(build(&analyzer, &header, &projects)).unwrap();
        assert_eq!(segment.header, header);
        assert_eq!(segment.passage_count(), 3);
        assert_eq!(segment.project(1).unwrap().passages, (2, 3));
        let postings = segment.postings("redi");
        assert_eq!(postings, [(1, [0, 1, 0])]);
        assert_eq!(segment.postings("databas"), [(0, [1, 1, 0])]);
        assert!(segment.postings("absent").is_empty());
        assert_eq!(segment.passage(2).unwrap().headings, ["Stack"]);
        let round = segment.inputs();
        assert_eq!(round.len(), 2);
        assert_eq!(round[0].files[0].passages, projects[0].files[0].passages);
    }

    #[test]
    fn damaged_bytes_are_no_segment() {
        let analyzer = TermAnalyzer::default();
        let bytes = build(
            &analyzer,
            &Header {
                generation: 1,
                replaced: Vec::new(),
            },
            &[input("shop", "# A\nb\n")],
        );
        assert!(Segment::parse(bytes[..bytes.len() - 3].to_vec()).is_none());
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert!(Segment::parse(flipped).is_none());
        assert!(Segment::parse(bytes).is_some());
    }
}
