//! Reading a tool's arguments strictly but leniently: known keys must have the right
//! type, unknown keys (the dummy argument real clients send to no-argument tools) are
//! ignored, and a tool may accept several spellings of a key (`projectPath`,
//! `projectName`).
use serde_json::{Map, Value};

use super::reply::{Flavor, ToolError};

/// The arguments of one call.
#[derive(Debug, Clone, Default)]
pub struct Args {
    map: Map<String, Value>,
    flavor: Flavor,
}

impl Args {
    pub fn new(map: Map<String, Value>, flavor: Flavor) -> Args {
        Args { map, flavor }
    }

    fn wrong_type(&self, key: &str, wanted: &str) -> ToolError {
        match self.flavor {
            Flavor::MemoryBank => ToolError::memory_bank(
                "invalid_request",
                format!("argument {key:?} must be {wanted}"),
            ),
            Flavor::Infinity => ToolError::new(
                Flavor::Infinity,
                "invalid_json",
                format!("argument {key:?} must be {wanted}"),
            ),
        }
    }

    fn missing(&self, keys: &[&str]) -> ToolError {
        let names = keys
            .iter()
            .map(|k| format!("{k:?}"))
            .collect::<Vec<_>>()
            .join(" or ");
        match self.flavor {
            Flavor::MemoryBank => {
                ToolError::memory_bank("invalid_request", format!("missing argument {names}"))
            }
            Flavor::Infinity => ToolError::new(
                Flavor::Infinity,
                "missing_required_field",
                format!("missing required field {names}"),
            ),
        }
    }

    /// The first of `keys` present (and not null), as a string.
    pub fn opt_str(&self, keys: &[&str]) -> Result<Option<String>, ToolError> {
        for key in keys {
            match self.map.get(*key) {
                None | Some(Value::Null) => continue,
                Some(Value::String(s)) => return Ok(Some(s.clone())),
                Some(_) => return Err(self.wrong_type(key, "a string")),
            }
        }
        Ok(None)
    }

    /// Like [`Args::opt_str`], and one of the keys must be there.
    pub fn str(&self, keys: &[&str]) -> Result<String, ToolError> {
        self.opt_str(keys)?.ok_or_else(|| self.missing(keys))
    }

    pub fn opt_bool(&self, key: &str) -> Result<Option<bool>, ToolError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            // Some clients send flags as strings.
            Some(Value::String(s)) if s == "true" || s == "false" => Ok(Some(s == "true")),
            Some(_) => Err(self.wrong_type(key, "true or false")),
        }
    }

    /// A list of strings; a single string counts as a list of one.
    pub fn opt_list(&self, key: &str) -> Result<Option<Vec<String>>, ToolError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(vec![s.clone()])),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| match i {
                    Value::String(s) => Ok(s.clone()),
                    _ => Err(self.wrong_type(key, "a list of strings")),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(_) => Err(self.wrong_type(key, "a list of strings")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(value: Value, flavor: Flavor) -> Args {
        match value {
            Value::Object(map) => Args::new(map, flavor),
            _ => unreachable!(),
        }
    }

    #[test]
    fn keys_types_and_spellings() {
        let a = args(
            json!({"projectName": "p", "n": 3, "flag": "true", "list": "one", "random_string": "x"}),
            Flavor::MemoryBank,
        );
        assert_eq!(a.str(&["projectPath", "projectName"]).unwrap(), "p");
        assert_eq!(a.str(&["fileName"]).unwrap_err().code, "invalid_request");
        assert_eq!(a.str(&["n"]).unwrap_err().code, "invalid_request");
        assert_eq!(a.opt_bool("flag").unwrap(), Some(true));
        assert_eq!(a.opt_list("list").unwrap(), Some(vec!["one".to_string()]));
        let i = args(json!({"title": 5, "content": null}), Flavor::Infinity);
        assert_eq!(i.str(&["title"]).unwrap_err().code, "invalid_json");
        assert_eq!(
            i.str(&["content"]).unwrap_err().code,
            "missing_required_field"
        );
    }
}
