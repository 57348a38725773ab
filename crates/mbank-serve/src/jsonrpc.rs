//! JSON-RPC answers mbank gives itself, before rmcp sees a message, on both transports:
//! a `tools/call` whose `params` or `arguments` are not objects is answered -32602
//! (rmcp would take it for an unknown method and answer -32601, which tells a client
//! nothing about its mistake), and a tool call over the rate limit gets `RATE_LIMITED`
//! with the seconds to wait in `data`.
use serde_json::{Value, json};

pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const INVALID_PARAMS: i64 = -32602;
/// A tool call over the rate limit: a server-defined code (JSON-RPC keeps -32000 to -32099
/// for those; 29 as in HTTP 429). `data` holds `retryAfter` (seconds), `limit` and `reset`.
pub(crate) const RATE_LIMITED: i64 = -32029;

/// The method whose parameters [`invalid_tool_call`] checks.
pub(crate) const TOOLS_CALL: &str = "tools/call";

/// A JSON-RPC error reply.
pub fn error(id: Value, code: i64, message: impl Into<String>, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message.into()});
    if let Some(data) = data {
        error["data"] = data;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What is wrong with the `params` of a `tools/call` (`None`: their shape is right).
pub(crate) fn tool_call_params_problem(params: Option<&Value>) -> Option<String> {
    let Some(Value::Object(params)) = params else {
        return Some(format!(
            "Invalid params: tools/call needs params {{\"name\": TOOL, \"arguments\": {{…}}}}, \
             not {}",
            params.map_or("nothing", kind_of)
        ));
    };
    match params.get("name") {
        Some(Value::String(_)) => {}
        other => {
            return Some(format!(
                "Invalid params: the tool's \"name\" must be a string, not {}",
                other.map_or("nothing", kind_of)
            ));
        }
    }
    match params.get("arguments") {
        None | Some(Value::Null) | Some(Value::Object(_)) => None,
        Some(other) => Some(format!(
            "Invalid params: \"arguments\" must be an object of the tool's parameters, not {}",
            kind_of(other)
        )),
    }
}

/// The -32602 reply to one JSON-RPC message when it is a `tools/call` request with
/// malformed parameters (`None` otherwise: notifications are never answered).
pub(crate) fn invalid_tool_call(message: &Value) -> Option<Value> {
    let id = message
        .get("id")
        .filter(|id| id.is_string() || id.is_number())?;
    if message.get("method").and_then(Value::as_str) != Some(TOOLS_CALL) {
        return None;
    }
    let problem = tool_call_params_problem(message.get("params"))?;
    Some(error(id.clone(), INVALID_PARAMS, problem, None))
}

/// The ids of the `tools/call` requests in a POST body (one message, or a batch).
pub(crate) fn tool_call_ids(body: &Value) -> Vec<Value> {
    let one = |message: &Value| -> Option<Value> {
        if message.get("method").and_then(Value::as_str) == Some(TOOLS_CALL) {
            message.get("id").cloned()
        } else {
            None
        }
    };
    match body {
        Value::Array(messages) => messages.iter().filter_map(one).collect(),
        message => one(message).into_iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_calls_with_a_string_or_array_for_arguments_get_invalid_params() {
        for arguments in [json!("{\"fileName\": \"x.md\"}"), json!(["x.md"]), json!(3)] {
            let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                "params": {"name": "memory_bank_read", "arguments": arguments}});
            let reply = invalid_tool_call(&call).expect("a reply");
            assert_eq!(reply["id"], 4);
            assert_eq!(reply["error"]["code"], INVALID_PARAMS);
            let message = reply["error"]["message"].as_str().unwrap();
            assert!(
                message.contains("\"arguments\" must be an object"),
                "{message}"
            );
        }
        let no_params = json!({"jsonrpc": "2.0", "id": "a", "method": "tools/call"});
        assert_eq!(invalid_tool_call(&no_params).unwrap()["id"], "a");
        let nameless =
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": 5}});
        assert_eq!(
            invalid_tool_call(&nameless).unwrap()["error"]["code"],
            INVALID_PARAMS
        );
        // Well-formed calls, other methods and notifications pass untouched.
        for fine in [
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": "odd"}),
            json!({"jsonrpc": "2.0", "method": "tools/call", "params": "odd"}),
        ] {
            assert!(invalid_tool_call(&fine).is_none(), "{fine}");
        }
    }

    #[test]
    fn only_tool_calls_are_counted() {
        let batch = json!([
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": "x", "method": "tools/call", "params": {"name": "t"}}
        ]);
        assert_eq!(tool_call_ids(&batch), [json!(1), json!("x")]);
        assert!(
            tool_call_ids(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize"})).is_empty()
        );
    }
}
