//! The Infinity structured store (`.infinity/memories.json`, the Infinity store spec): parsing with
//! line/column errors, schema checks, and content updates that keep id, type and title.
//! A store over [`limits::JSON_STORE`] (16 MiB, 64 levels of nesting) is not parsed.
use serde_json::{Map, Value};

use crate::core::limits::{self, LimitExceeded};

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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InfinityMemory {
    pub id: String,
    pub title: String,
    pub kind: String,
    pub content: String,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    /// 1-based line where the memory's object starts in the store, when found.
    pub line: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InfinityStore {
    pub project_id: Option<String>,
    pub memories: Vec<InfinityMemory>,
}

/// A schema problem: where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaIssue {
    pub line: usize,
    pub message: String,
}

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

fn line_of_id(text: &str, id: &str) -> usize {
    let needle = format!("\"{id}\"");
    text.find(&needle)
        .map(|at| text[..at].matches('\n').count() + 1)
        .unwrap_or(1)
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
    let mut seen_ids = std::collections::HashSet::new();
    for (index, entry) in memories.iter().enumerate() {
        let Some(object) = entry.as_object() else {
            issues.push(SchemaIssue {
                line: 1,
                message: format!("memories[{index}] is not an object"),
            });
            continue;
        };
        let id = string_field(object, "id").unwrap_or_default();
        let line = if id.is_empty() {
            1
        } else {
            line_of_id(text, &id)
        };
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
pub fn replace_content(
    text: &str,
    id: &str,
    content: &str,
    now_rfc3339: &str,
) -> Result<String, String> {
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
    let mut out = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
    out.push('\n');
    Ok(out)
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
            let started = std::time::Instant::now();
            let err = parse_store(&text).unwrap_err();
            assert!(started.elapsed() < std::time::Duration::from_secs(1));
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
pub struct NewMemory<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub kind: &'a str,
    pub content: &'a str,
    pub created_at: &'a str,
}

fn to_store_text(value: &Value) -> Result<String, String> {
    let mut out = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    out.push('\n');
    Ok(out)
}

/// The store with `memory` appended (`text` `None`: a new store for `project_id`).
/// Other memories, fields and key order stay as they were.
pub fn add_memory(
    text: Option<&str>,
    project_id: &str,
    memory: &NewMemory,
) -> Result<String, String> {
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
pub fn remove_memory(text: &str, id: &str) -> Result<Option<String>, String> {
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
