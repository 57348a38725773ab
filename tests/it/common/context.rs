//! Reading `mbank context --json` output in tests.
use serde_json::Value;

/// The first project's bank of `format`; panics naming the whole output when there is none.
pub fn bank<'a>(json: &'a Value, format: &str) -> &'a Value {
    json["projects"][0]["banks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["format"] == format)
        .unwrap_or_else(|| panic!("no {format} bank in {json:#}"))
}

/// The display names of a bank's loaded pieces, in load order.
pub fn displays(bank: &Value) -> Vec<&str> {
    bank["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["display"].as_str().unwrap())
        .collect()
}
