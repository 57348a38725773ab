//! The Infinity structured store (`.infinity/memories.json`, the Infinity store spec): parsing with
//! line/column errors, schema checks, and content updates that keep id, type and title.
//! A store over [`limits::JSON_STORE`] (16 MiB, 64 levels of nesting) is not parsed, and
//! no change that would make it bigger than that is written ([`MAX_STORE_BYTES`]).
//!
//! Parsing is linear in the store's size: each memory's line comes from the byte offset
//! its object starts at (one pass that borrows the memories array's elements from the
//! text) looked up in a `LineIndex` built once, never from a search of the text per memory.
use std::fmt;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::limits::{self, LimitExceeded};

/// The largest store mbank reads, and so the largest it writes: the reader's
/// [`limits::JSON_STORE`] size. A change whose store would pass it is refused before
/// anything is written, so a store mbank wrote can always be read back.
pub const MAX_STORE_BYTES: usize = limits::JSON_STORE.max_bytes;

/// A change refused because the store it makes would pass [`MAX_STORE_BYTES`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreTooLarge {
    /// The store's size after the change, in bytes (a lower bound when `at_least`).
    pub bytes: u64,
    /// True when only a lower bound was measured: the new memory alone passes the limit,
    /// so the store was never built.
    pub at_least: bool,
}

impl fmt::Display for StoreTooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let limit = MAX_STORE_BYTES as u64;
        let (found_words, limit_words) = (
            limits::size_in_words(self.bytes),
            limits::size_in_words(limit),
        );
        let at_least = if self.at_least { "at least " } else { "" };
        if found_words == limit_words {
            write!(
                f,
                "the store would be {at_least}{} bytes; the limit is {limit_words} ({limit} bytes)",
                self.bytes
            )
        } else {
            write!(
                f,
                "the store would be {at_least}{found_words}; the limit is {limit_words}"
            )
        }
    }
}

/// Why a store could not be changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StoreChangeError {
    /// The store is not one mbank can change (malformed, or the memory is not in it).
    Malformed(String),
    /// The changed store would be bigger than the store may be.
    TooLarge(StoreTooLarge),
}

impl fmt::Display for StoreChangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreChangeError::Malformed(message) => f.write_str(message),
            StoreChangeError::TooLarge(too_large) => too_large.fmt(f),
        }
    }
}

impl From<String> for StoreChangeError {
    fn from(message: String) -> Self {
        StoreChangeError::Malformed(message)
    }
}

impl From<&str> for StoreChangeError {
    fn from(message: &str) -> Self {
        StoreChangeError::Malformed(message.to_string())
    }
}

/// Ok when a store of `bytes` bytes can be written (and read back).
pub(crate) fn check_store_size(bytes: usize) -> Result<(), StoreTooLarge> {
    if bytes > MAX_STORE_BYTES {
        Err(StoreTooLarge {
            bytes: bytes as u64,
            at_least: false,
        })
    } else {
        Ok(())
    }
}

/// Refuses a new memory (or new content) whose own text already passes the limit,
/// before any work in proportion to its size (secret scan, parse, serialisation).
pub(crate) fn check_memory_size(title: &str, content: &str) -> Result<(), StoreTooLarge> {
    let bytes = title.len().saturating_add(content.len());
    if bytes > MAX_STORE_BYTES {
        Err(StoreTooLarge {
            bytes: bytes as u64,
            at_least: true,
        })
    } else {
        Ok(())
    }
}

/// The memory types the reference implementation accepts.
pub const MEMORY_TYPES: [&str; 8] = [
    "design_doc",
    "project_overview",
    "implementation_plan",
    "progress_tracker",
    "test_plan",
    "instructions",
    "rules",
    "analysis",
];

// The store's data types live with the model, which a listed bank carries them in.
pub use crate::model::{InfinityMemory, InfinityStore, ParsedStore, SchemaIssue};

/// Malformed JSON, with the position serde_json reports, or a store over the parse
/// limits ([`limits::JSON_STORE`]), which is not parsed at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonSyntaxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// The limit the store exceeds, when that is why it was not parsed.
    pub limit: Option<LimitExceeded>,
}

impl std::fmt::Display for JsonSyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.limit {
            Some(limit) => write!(f, "the store was not parsed: {limit}"),
            None => write!(
                f,
                "malformed JSON at line {}, column {}: {}",
                self.line, self.column, self.message
            ),
        }
    }
}

/// Ok when a store's text is within the parse limits.
fn within_limits(text: &str) -> Result<(), JsonSyntaxError> {
    limits::check(text, limits::Syntax::Json, limits::JSON_STORE).map_err(|limit| JsonSyntaxError {
        line: limit.line().unwrap_or(1),
        column: 1,
        message: limit.to_string(),
        limit: Some(limit),
    })
}

/// The byte offset each line of a text starts at, built in one pass; the line of any
/// offset is then a binary search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let breaks = text
            .bytes()
            .enumerate()
            .filter(|&(_, byte)| byte == b'\n')
            .map(|(at, _)| at + 1);
        LineIndex {
            starts: std::iter::once(0).chain(breaks).collect(),
        }
    }

    /// The 1-based line holding byte `offset` (the last line for offsets past the end).
    pub fn line_of(&self, offset: usize) -> usize {
        // `starts[0]` is 0, so at least one start is at or before any offset.
        self.starts.partition_point(|&start| start <= offset)
    }
}

/// The elements of the root object's `memories` array, borrowed from the text (the last
/// `memories` key wins, as in `serde_json::Value`); `None` when there is no such array.
struct RawMemories<'a>(Option<Vec<&'a RawValue>>);

impl<'de> Deserialize<'de> for RawMemories<'de> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RootVisitor;
        impl<'de> Visitor<'de> for RootVisitor {
            type Value = RawMemories<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut memories = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key == "memories" {
                        let raw: &'de RawValue = map.next_value()?;
                        memories = serde_json::from_str::<Vec<&'de RawValue>>(raw.get()).ok();
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(RawMemories(memories))
            }
        }
        deserializer.deserialize_map(RootVisitor)
    }
}

/// The byte offset at which each element of the root's `memories` array starts, in
/// order; empty when the text has no such array. One pass over the text.
pub(crate) fn memory_offsets(text: &str) -> Vec<usize> {
    let base = text.as_ptr() as usize;
    match serde_json::from_str::<RawMemories<'_>>(text) {
        Ok(RawMemories(Some(elements))) => elements
            .iter()
            // Every element is a slice of `text`, so its address lies within it.
            .filter_map(|raw| (raw.get().as_ptr() as usize).checked_sub(base))
            .collect(),
        _ => Vec::new(),
    }
}

fn string_field(object: &Map<String, Value>, key: &str) -> Option<String> {
    object.get(key).and_then(Value::as_str).map(str::to_string)
}

/// Parses a store leniently: every memory that can be understood is returned, and every
/// deviation from the schema is reported.
pub fn parse_store(text: &str) -> Result<(InfinityStore, Vec<SchemaIssue>), JsonSyntaxError> {
    within_limits(text)?;
    let value: Value = serde_json::from_str(text).map_err(|e| JsonSyntaxError {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
        limit: None,
    })?;
    let mut issues = Vec::new();
    let mut store = InfinityStore::default();
    let Some(root) = value.as_object() else {
        issues.push(SchemaIssue {
            line: 1,
            message: "the store must be a JSON object with project_id and memories".into(),
        });
        return Ok((store, issues));
    };
    store.project_id = string_field(root, "project_id");
    if store.project_id.is_none() {
        issues.push(SchemaIssue {
            line: 1,
            message: "missing string field \"project_id\"".into(),
        });
    }
    let Some(memories) = root.get("memories").and_then(Value::as_array) else {
        issues.push(SchemaIssue {
            line: 1,
            message: "missing array field \"memories\"".into(),
        });
        return Ok((store, issues));
    };
    // Lines of the memories, from one pass for the offsets and one for the line starts.
    let offsets = memory_offsets(text);
    let offsets = (offsets.len() == memories.len()).then_some(offsets);
    let line_index = LineIndex::new(text);
    let line_of_memory = |index: usize| {
        offsets
            .as_ref()
            .and_then(|offsets| offsets.get(index))
            .map_or(1, |&offset| line_index.line_of(offset))
    };
    let mut seen_ids = std::collections::HashSet::new();
    for (index, entry) in memories.iter().enumerate() {
        let line = line_of_memory(index);
        let Some(object) = entry.as_object() else {
            issues.push(SchemaIssue {
                line,
                message: format!("memories[{index}] is not an object"),
            });
            continue;
        };
        let id = string_field(object, "id").unwrap_or_default();
        let mut problem = |message: String| issues.push(SchemaIssue { line, message });
        if id.is_empty() {
            problem(format!("memories[{index}] has no string \"id\""));
        } else if !seen_ids.insert(id.clone()) {
            problem(format!("duplicate memory id {id}"));
        }
        let title = string_field(object, "title").unwrap_or_default();
        if title.trim().is_empty() {
            problem(format!("memory {id:?} has an empty or missing \"title\""));
        }
        let kind = string_field(object, "type").unwrap_or_default();
        if !MEMORY_TYPES.contains(&kind.as_str()) {
            problem(format!(
                "memory {id:?} has type {kind:?}, not one of {}",
                MEMORY_TYPES.join(", ")
            ));
        }
        let content = match object.get("content") {
            Some(Value::String(s)) => s.clone(),
            _ => {
                problem(format!("memory {id:?} has no string \"content\""));
                String::new()
            }
        };
        let created_at = string_field(object, "created_at");
        if created_at.is_none() {
            problem(format!("memory {id:?} has no \"created_at\""));
        }
        for (key, stamp) in [
            ("created_at", &created_at),
            ("updated_at", &string_field(object, "updated_at")),
        ] {
            if let Some(stamp) = stamp
                && chrono::DateTime::parse_from_rfc3339(stamp).is_err()
            {
                problem(format!("memory {id:?}: {key} {stamp:?} is not ISO 8601"));
            }
        }
        store.memories.push(InfinityMemory {
            id,
            title,
            kind,
            content,
            created_at,
            updated_at: string_field(object, "updated_at"),
            line,
        });
    }
    Ok((store, issues))
}

/// Returns the store text with one memory's content replaced and `updated_at` set; id,
/// type and title are never touched (the Infinity store spec). Key order and other fields stay.
/// A store that would pass [`MAX_STORE_BYTES`] is refused.
pub(crate) fn replace_content(
    text: &str,
    id: &str,
    content: &str,
    now_rfc3339: &str,
) -> Result<String, String> {
    change_content(text, id, content, now_rfc3339).map_err(|e| e.to_string())
}

/// [`replace_content`], telling a store that would be too big from other failures.
pub(crate) fn change_content(
    text: &str,
    id: &str,
    content: &str,
    now_rfc3339: &str,
) -> Result<String, StoreChangeError> {
    within_limits(text).map_err(|e| e.to_string())?;
    let mut value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let memories = value
        .get_mut("memories")
        .and_then(Value::as_array_mut)
        .ok_or("the store has no memories array")?;
    let memory = memories
        .iter_mut()
        .filter_map(Value::as_object_mut)
        .find(|m| m.get("id").and_then(Value::as_str) == Some(id))
        .ok_or_else(|| format!("memory {id} not found"))?;
    memory.insert("content".into(), Value::String(content.to_string()));
    memory.insert("updated_at".into(), Value::String(now_rfc3339.to_string()));
    to_store_text(&value)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STORE: &str = r#"{
  "project_id": "p-1",
  "memories": [
    {"id": "a", "title": "Overview", "type": "project_overview", "content": "hi",
     "created_at": "2025-01-01T10:00:00Z"},
    {"id": "b", "title": "", "type": "wishlist", "content": "x",
     "created_at": "yesterday"}
  ]
}"#;

    #[test]
    fn parses_and_reports_schema_issues_with_lines() {
        let (store, issues) = parse_store(STORE).unwrap();
        assert_eq!(store.project_id.as_deref(), Some("p-1"));
        assert_eq!(store.memories.len(), 2);
        assert_eq!(store.memories[0].line, 4);
        let messages: Vec<_> = issues
            .iter()
            .map(|i| (i.line, i.message.as_str()))
            .collect();
        assert!(
            messages
                .iter()
                .any(|(l, m)| *l == 6 && m.contains("empty or missing \"title\""))
        );
        assert!(messages.iter().any(|(_, m)| m.contains("\"wishlist\"")));
        assert!(messages.iter().any(|(_, m)| m.contains("not ISO 8601")));
    }

    #[test]
    fn malformed_json_has_line_and_column() {
        let err = parse_store("{\n  \"project_id\": \"x\",\n  \"memories\": [,]\n}").unwrap_err();
        assert_eq!((err.line, err.column), (3, 16));
    }

    #[test]
    fn stores_over_the_limits_are_not_parsed() {
        let limit = limits::JSON_STORE;
        // Ten times the nesting limit, and ten times the size limit.
        let deep = format!(
            "{{\"project_id\": \"p\", \"memories\": {}",
            "[".repeat(10 * limit.max_depth)
        );
        let big = format!(
            "{{\"project_id\": \"{}\"}}",
            "x".repeat(10 * limit.max_bytes)
        );
        for text in [deep, big] {
            let parsed = text.clone();
            let err = crate::hang_guard::finishes("parsing the store", move || {
                parse_store(&parsed).map(|_| ())
            })
            .unwrap_err();
            assert!(err.limit.is_some(), "{err}");
            assert!(
                err.to_string()
                    .starts_with("the store was not parsed: its JSON"),
                "{err}"
            );
            assert!(replace_content(&text, "a", "x", "t").is_err());
        }
    }

    #[test]
    fn line_index_gives_every_offset_its_line() {
        let text = "ab\ncd\n\nlast";
        let index = LineIndex::new(text);
        let lines: Vec<usize> = (0..text.len()).map(|at| index.line_of(at)).collect();
        // a b \n c d \n \n l a s t
        assert_eq!(lines, [1, 1, 1, 2, 2, 2, 3, 4, 4, 4, 4]);
        assert_eq!(index.line_of(text.len() + 10), 4);
        assert_eq!(LineIndex::new("").line_of(0), 1);
    }

    #[test]
    fn memory_offsets_point_at_each_element_of_the_root_memories_array() {
        let text = "{\"memories\": [1, \"memories\"], \"x\": {\"memories\": [2]},\n \
                    \"memor\\u0069es\": [ {\"memories\": []},\n  7 ,\"s\"]}";
        let offsets = memory_offsets(text);
        let at: Vec<&str> = offsets.iter().map(|&o| &text[o..o + 3]).collect();
        // The last `memories` key (spelt with an escape) wins, as in serde_json's Value;
        // arrays of that name elsewhere do not count.
        assert_eq!(at, ["{\"m", "7 ,", "\"s\""]);
        assert!(memory_offsets("[1, 2]").is_empty());
        assert!(memory_offsets("{\"memories\": 5}").is_empty());
        assert!(memory_offsets("{\"memories\": [").is_empty());
    }

    /// `n` memories, each on its own lines, each naming the next one's id in a field of
    /// its own (so a search of the text for an id finds the memory before it first), and
    /// each memory's expected line.
    fn big_store(n: usize) -> (String, Vec<usize>) {
        let mut text = String::from("{\n  \"project_id\": \"p\",\n  \"memories\": [\n");
        let mut lines = Vec::with_capacity(n);
        let mut line = 4;
        for i in 0..n {
            lines.push(line);
            let next = (i + 1) % n;
            text.push_str(&format!(
                "    {{\n      \"id\": \"m-{i}\",\n      \"title\": \"Memory {i}\",\n      \
                 \"type\": \"design_doc\",\n      \"content\": \"see below\\n\", \"next\": \"m-{next}\",\n      \
                 \"created_at\": \"2026-01-01T00:00:00Z\"\n    }}{}\n",
                if i + 1 == n { "" } else { "," }
            ));
            line += 7;
        }
        text.push_str("  ]\n}\n");
        (text, lines)
    }

    #[test]
    fn a_large_store_parses_with_every_memory_on_the_line_its_object_starts() {
        let (text, lines) = big_store(20_000);
        let (store, issues) = parse_store(&text).unwrap();
        assert!(issues.is_empty(), "{:?}", &issues[..issues.len().min(3)]);
        assert_eq!(store.memories.len(), 20_000);
        for (i, (memory, line)) in store.memories.iter().zip(&lines).enumerate() {
            assert_eq!(memory.id, format!("m-{i}"));
            assert_eq!(memory.line, *line, "memory m-{i}");
        }
        // The line index holds one start per line, no more: each lookup is a binary search.
        assert_eq!(
            LineIndex::new(&text).starts.len(),
            text.matches('\n').count() + 1
        );
    }

    #[test]
    fn schema_issues_of_a_repeated_id_point_at_the_repeat() {
        let text = "{\"project_id\": \"p\", \"memories\": [\n\
                    {\"id\": \"a\", \"title\": \"A\", \"type\": \"rules\", \"content\": \"\", \
                    \"created_at\": \"2025-01-01T00:00:00Z\"},\n\
                    {\"id\": \"a\", \"title\": \"\", \"type\": \"rules\", \"content\": \"\", \
                    \"created_at\": \"2025-01-01T00:00:00Z\"},\n\
                    42]}";
        let (store, issues) = parse_store(text).unwrap();
        assert_eq!(
            store.memories.iter().map(|m| m.line).collect::<Vec<_>>(),
            [2, 3]
        );
        let issues: Vec<(usize, &str)> = issues
            .iter()
            .map(|i| (i.line, i.message.as_str()))
            .collect();
        assert_eq!(
            issues,
            [
                (3, "duplicate memory id a"),
                (3, "memory \"a\" has an empty or missing \"title\""),
                (4, "memories[2] is not an object"),
            ]
        );
    }

    #[test]
    fn the_size_cap_is_the_limit_the_reader_accepts() {
        assert_eq!(MAX_STORE_BYTES, limits::JSON_STORE.max_bytes);
        assert!(check_store_size(MAX_STORE_BYTES).is_ok());
        let over = check_store_size(MAX_STORE_BYTES + 1).unwrap_err();
        assert_eq!(
            over.to_string(),
            format!(
                "the store would be {} bytes; the limit is 16 MiB ({MAX_STORE_BYTES} bytes)",
                MAX_STORE_BYTES + 1
            )
        );
        let big = check_store_size(MAX_STORE_BYTES + 1024 * 1024 + 1024 * 1024 / 2).unwrap_err();
        assert_eq!(
            big.to_string(),
            "the store would be 17.5 MiB; the limit is 16 MiB"
        );
        let alone = check_memory_size("t", &"x".repeat(50 * 1_000_000)).unwrap_err();
        assert_eq!(
            alone.to_string(),
            "the store would be at least 47.6 MiB; the limit is 16 MiB"
        );
        assert!(check_memory_size("t", "x").is_ok());
        // Every change is capped, the TUI's and the agents' alike.
        let half = "x".repeat(MAX_STORE_BYTES / 2 + 1);
        let grown = replace_content(STORE, "a", &format!("{half}{half}"), "t").unwrap_err();
        assert!(grown.contains("; the limit is 16 MiB"), "{grown}");
        let memory = NewMemory {
            id: "c",
            title: "C",
            kind: "rules",
            content: &half,
            created_at: "2026-01-01T00:00:00Z",
        };
        let one = add_memory(Some(STORE), "p", &memory).unwrap();
        assert!(matches!(
            add_memory(Some(&one), "p", &NewMemory { id: "d", ..memory }),
            Err(StoreChangeError::TooLarge(StoreTooLarge {
                at_least: false,
                ..
            }))
        ));
        // What the reader refuses, the writer never writes.
        let text = format!("{{\"project_id\": \"{}\"}}", "x".repeat(MAX_STORE_BYTES));
        assert!(check_store_size(text.len()).is_err());
        assert!(parse_store(&text).unwrap_err().limit.is_some());
    }

    #[test]
    fn replace_content_keeps_identity() {
        let out = replace_content(STORE, "a", "new", "2025-02-02T00:00:00Z").unwrap();
        let (store, _) = parse_store(&out).unwrap();
        let a = &store.memories[0];
        assert_eq!(
            (a.title.as_str(), a.kind.as_str(), a.content.as_str()),
            ("Overview", "project_overview", "new")
        );
        assert_eq!(a.updated_at.as_deref(), Some("2025-02-02T00:00:00Z"));
        assert!(replace_content(STORE, "zzz", "x", "t").is_err());
    }
}

// ---------------------------------------------------------------------------------------
// Store mutations for the Infinity tools (`mbank mcp`): pure text in, text out; the
// caller writes the result through the guarded write under the folder lock.
// ---------------------------------------------------------------------------------------

/// A memory as `store_memory` creates it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NewMemory<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub kind: &'a str,
    pub content: &'a str,
    pub created_at: &'a str,
}

/// The store's text as mbank writes it, refused when it is bigger than the store may be.
fn to_store_text(value: &Value) -> Result<String, StoreChangeError> {
    let mut out = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    out.push('\n');
    check_store_size(out.len()).map_err(StoreChangeError::TooLarge)?;
    Ok(out)
}

/// The store with `memory` appended (`text` `None`: a new store for `project_id`).
/// Other memories, fields and key order stay as they were.
pub(crate) fn add_memory(
    text: Option<&str>,
    project_id: &str,
    memory: &NewMemory,
) -> Result<String, StoreChangeError> {
    let mut value: Value = match text {
        Some(text) => serde_json::from_str(text).map_err(|e| e.to_string())?,
        None => serde_json::json!({ "project_id": project_id, "memories": [] }),
    };
    let root = value
        .as_object_mut()
        .ok_or("the store is not a JSON object")?;
    let memories = root
        .entry("memories")
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or("the store's memories field is not an array")?;
    let mut entry = Map::new();
    entry.insert("id".into(), Value::String(memory.id.to_string()));
    entry.insert("title".into(), Value::String(memory.title.to_string()));
    entry.insert("type".into(), Value::String(memory.kind.to_string()));
    entry.insert("content".into(), Value::String(memory.content.to_string()));
    entry.insert(
        "created_at".into(),
        Value::String(memory.created_at.to_string()),
    );
    memories.push(Value::Object(entry));
    to_store_text(&value)
}

/// The store without memory `id`; `Ok(None)` when no memory has that id.
pub(crate) fn remove_memory(text: &str, id: &str) -> Result<Option<String>, StoreChangeError> {
    let mut value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let memories = value
        .get_mut("memories")
        .and_then(Value::as_array_mut)
        .ok_or("the store has no memories array")?;
    let before = memories.len();
    memories.retain(|m| m.get("id").and_then(Value::as_str) != Some(id));
    if memories.len() == before {
        return Ok(None);
    }
    to_store_text(&value).map(Some)
}

#[cfg(test)]
mod mutation_tests {
    use super::*;

    #[test]
    fn add_and_remove_keep_the_rest_of_the_store() {
        let memory = NewMemory {
            id: "m-1",
            title: "API",
            kind: "design_doc",
            content: "",
            created_at: "2026-01-01T00:00:00Z",
        };
        let text = add_memory(None, "p-1", &memory).unwrap();
        let (store, issues) = parse_store(&text).unwrap();
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(store.project_id.as_deref(), Some("p-1"));
        assert_eq!(store.memories[0].kind, "design_doc");
        let text = add_memory(
            Some(&text),
            "ignored",
            &NewMemory {
                id: "m-2",
                ..memory.clone()
            },
        )
        .unwrap();
        let (store, _) = parse_store(&text).unwrap();
        assert_eq!(store.project_id.as_deref(), Some("p-1"));
        assert_eq!(store.memories.len(), 2);
        let text = remove_memory(&text, "m-1").unwrap().unwrap();
        let (store, _) = parse_store(&text).unwrap();
        assert_eq!(store.memories.len(), 1);
        assert_eq!(store.memories[0].id, "m-2");
        assert_eq!(remove_memory(&text, "m-1").unwrap(), None);
        assert!(add_memory(Some("[1]"), "p", &memory).is_err());
        assert!(remove_memory("{", "x").is_err());
    }
}
