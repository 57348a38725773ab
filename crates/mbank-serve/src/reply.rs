//! What a tool or endpoint answers: a JSON value, or an error in the shape of the spec the
//! tool comes from. Memory-bank tools and the REST API use the Memory Bank MCP spec's
//! `{"status":"error","error":{"code","message"}}`; Infinity tools use the Infinity store spec's
//! `{"error": code}` (with a `message` beside it, which the spec allows: "include a
//! machine-readable `error` key").
use serde_json::{Map, Value, json};

use mbank_core::agent::AgentError;
use mbank_core::agent::infinity::InfinityError;

/// Which spec's error shape to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Flavor {
    #[default]
    MemoryBank,
    Infinity,
}

/// A failed tool call or request.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    pub flavor: Flavor,
    pub code: &'static str,
    pub message: String,
    /// Structured details (the entries a refused write would drop, the secret lines…).
    pub details: Option<Value>,
    /// The HTTP status the REST API answers with.
    pub status: u16,
}

pub(crate) type ToolResult = Result<Value, ToolError>;

/// HTTP status of a Memory Bank MCP spec error code.
pub(crate) fn status_of(code: &str) -> u16 {
    match code {
        "invalid_request"
        | "invalid_format"
        | "invalid_json"
        | "missing_required_field"
        | "invalid_memory_type" => 400,
        "unauthorized" => 401,
        "read_only" | "forbidden_path" | "forbidden_host" | "forbidden_origin" => 403,
        "file_not_found" | "project_not_found" | "mode_not_found" | "memory_not_found"
        | "not_found" => 404,
        "file_exists" | "version_conflict" | "not_initialized" | "project_not_activated" => 409,
        "method_not_allowed" => 405,
        "payload_too_large" => 413,
        "unsupported_media_type" => 415,
        "append_only_violation"
        | "secret_detected"
        | "elision_detected"
        | "shrinkage_detected"
        | "version_required"
        | "file_too_large" => 422,
        "rate_limited" => 429,
        // The proposal store is full until a person decides on what waits.
        "proposal_limit" => 507,
        _ => 500,
    }
}

impl ToolError {
    pub fn new(flavor: Flavor, code: &'static str, message: impl Into<String>) -> ToolError {
        ToolError {
            flavor,
            code,
            message: message.into(),
            details: None,
            status: status_of(code),
        }
    }

    /// A the Memory Bank MCP spec error.
    pub fn memory_bank(code: &'static str, message: impl Into<String>) -> ToolError {
        ToolError::new(Flavor::MemoryBank, code, message)
    }

    /// The error object as the client receives it.
    pub(crate) fn to_json(&self) -> Value {
        match self.flavor {
            Flavor::MemoryBank => {
                let mut error = Map::new();
                error.insert("code".into(), json!(self.code));
                error.insert("message".into(), json!(self.message));
                if let Some(details) = &self.details {
                    error.insert("details".into(), details.clone());
                }
                json!({ "status": "error", "error": error })
            }
            Flavor::Infinity => {
                let mut object = Map::new();
                object.insert("error".into(), json!(self.code));
                object.insert("message".into(), json!(self.message));
                if let Some(details) = &self.details {
                    object.insert("details".into(), details.clone());
                }
                Value::Object(object)
            }
        }
    }
}

impl From<AgentError> for ToolError {
    fn from(error: AgentError) -> Self {
        let details = match &error {
            AgentError::Refused(refusal) => serde_json::to_value(refusal).ok(),
            _ => None,
        };
        ToolError {
            flavor: Flavor::MemoryBank,
            code: error.code(),
            message: error.to_string(),
            details,
            status: status_of(error.code()),
        }
    }
}

impl From<InfinityError> for ToolError {
    fn from(error: InfinityError) -> Self {
        let details = match &error {
            InfinityError::Refused(refusal) => serde_json::to_value(refusal).ok(),
            _ => None,
        };
        ToolError {
            flavor: Flavor::Infinity,
            code: error.code(),
            message: error.to_string(),
            details,
            status: status_of(error.code()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_error_shapes() {
        let e = ToolError::memory_bank("file_not_found", "x.md does not exist");
        assert_eq!(
            e.to_json(),
            json!({"status":"error","error":{"code":"file_not_found","message":"x.md does not exist"}})
        );
        assert_eq!(e.status, 404);
        let e = ToolError::from(InfinityError::MemoryNotFound("m".into()));
        assert_eq!(e.to_json()["error"], "memory_not_found");
        assert_eq!(e.status, 404);
        assert_eq!(status_of("secret_detected"), 422);
        assert_eq!(status_of("anything else"), 500);
    }
}
