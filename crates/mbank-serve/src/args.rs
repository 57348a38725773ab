//! A tool's arguments, read into the struct that types them, strictly but leniently:
//! known keys must have the right type, unknown keys (the dummy argument real clients
//! send to no-argument tools) are ignored, null counts as absent, and a key may have other
//! spellings (`projectPath`, `projectName`), the first one present winning. Every problem
//! with the arguments becomes its spec's own error object in [`parse`], and nowhere else.
//!
//! The input schema a tool advertises is generated from the same struct
//! ([`input_schema`]), so what a client is told and what the server reads cannot drift.
use std::fmt;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};
use serde::de::{self, DeserializeOwned, IntoDeserializer, Unexpected, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::{Map, Value};

use super::reply::{Flavor, ToolError};

/// The arguments of one tool. Fields are checked in the order the struct declares them,
/// and the first problem is the one reported: declare them in the order that matters.
pub trait ToolArgs: DeserializeOwned + JsonSchema + 'static {
    /// Keys a client may spell otherwise: each key as the struct names it, and the other
    /// spellings looked for, in order, when it is absent.
    const SPELLINGS: &'static [(&'static str, &'static [&'static str])] = &[];
}

/// A tool without arguments (whatever is sent is ignored).
#[derive(Debug, Clone, Copy, Default, serde::Deserialize, JsonSchema)]
pub struct NoArgs {}

impl ToolArgs for NoArgs {}

/// A REST query string's parameters as a tool's arguments: the keys named in `numbers` and
/// `booleans` typed as the tool's schema has them, everything else a string. A value that
/// is neither a number nor a boolean where one is wanted stays a string, so the error
/// names the argument.
pub(crate) fn query_arguments(
    query: &std::collections::HashMap<String, String>,
    numbers: &[&str],
    booleans: &[&str],
) -> Map<String, Value> {
    query
        .iter()
        .map(|(key, value)| {
            let typed = if numbers.contains(&key.as_str()) {
                value
                    .trim()
                    .parse::<u64>()
                    .map_or_else(|_| Value::from(value.as_str()), Value::from)
            } else if booleans.contains(&key.as_str()) {
                match value.trim() {
                    "true" | "1" => Value::Bool(true),
                    "false" | "0" => Value::Bool(false),
                    _ => Value::from(value.as_str()),
                }
            } else {
                Value::from(value.as_str())
            };
            (key.clone(), typed)
        })
        .collect()
}

/// Reads a call's arguments into `T`; a problem becomes the `flavor` spec's error:
/// `invalid_request` for the Memory Bank tools, `invalid_json` (a wrong type) or
/// `missing_required_field` for Infinity's.
pub fn parse<T: ToolArgs>(mut map: Map<String, Value>, flavor: Flavor) -> Result<T, ToolError> {
    let sent_as = respell(&mut map, T::SPELLINGS);
    match read::<T>(&map, None) {
        Ok(args) => Ok(args),
        Err(error) => Err(error.into_tool_error(flavor, T::SPELLINGS, &sent_as)),
    }
}

/// Reads only the arguments `T` declares before `key`, for a tool with more to check
/// before the rest (whose problems [`parse`] then reports): `None` when a required key
/// from `key` on is absent, so they make no whole `T`.
pub(crate) fn parse_before<T: ToolArgs>(
    map: &Map<String, Value>,
    key: &str,
    flavor: Flavor,
) -> Result<Option<T>, ToolError> {
    let mut map = map.clone();
    let sent_as = respell(&mut map, T::SPELLINGS);
    match read::<T>(&map, Some(key)) {
        Ok(args) => Ok(Some(args)),
        Err(ArgError::Later) => Ok(None),
        Err(error) => Err(error.into_tool_error(flavor, T::SPELLINGS, &sent_as)),
    }
}

/// Reads `T` from `map` (the keys from `cut` on left out), reporting the first problem in
/// declaration order.
fn read<T: ToolArgs>(map: &Map<String, Value>, cut: Option<&str>) -> Result<T, ArgError> {
    let error = match T::deserialize(Arguments::new(map, cut)) {
        Ok(args) => return Ok(args),
        Err(error) => error,
    };
    // A required key missing before the mistyped one was the first problem; the derived
    // code reports missing keys only at the end, so ask again without the later keys.
    match &error {
        ArgError::WrongType { key: Some(key), .. } => {
            match T::deserialize(Arguments::new(map, Some(key))) {
                Err(missing @ ArgError::Missing(_)) => Err(missing),
                _ => Err(error),
            }
        }
        _ => Err(error),
    }
}

/// Moves the first other spelling present to the struct's key when that key is absent,
/// and drops the rest; returns which keys were sent under another spelling.
fn respell(
    map: &mut Map<String, Value>,
    spellings: &[(&'static str, &'static [&'static str])],
) -> Vec<(&'static str, &'static str)> {
    let present = |map: &Map<String, Value>, key: &str| map.get(key).is_some_and(|v| !v.is_null());
    let mut sent_as = Vec::new();
    for (key, others) in spellings {
        if !present(map, key)
            && let Some(other) = others.iter().find(|other| present(map, other))
            && let Some(value) = map.remove(*other)
        {
            map.insert((*key).to_string(), value);
            sent_as.push((*key, *other));
        }
        for other in *others {
            map.remove(*other);
        }
    }
    sent_as
}

/// What went wrong while reading the arguments.
#[derive(Debug)]
enum ArgError {
    Missing(&'static str),
    /// `key`: as the client sent it, once known.
    WrongType {
        key: Option<String>,
        wanted: String,
    },
    Other(String),
    /// A problem at or after the key a second reading stops before: not an earlier one.
    Later,
}

impl ArgError {
    fn into_tool_error(
        self,
        flavor: Flavor,
        spellings: &[(&'static str, &'static [&'static str])],
        sent_as: &[(&'static str, &'static str)],
    ) -> ToolError {
        match self {
            ArgError::Missing(key) => {
                let others = spellings
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map_or(&[][..], |(_, others)| *others);
                let names = std::iter::once(key)
                    .chain(others.iter().copied())
                    .map(|k| format!("{k:?}"))
                    .collect::<Vec<_>>()
                    .join(" or ");
                match flavor {
                    Flavor::MemoryBank => ToolError::memory_bank(
                        "invalid_request",
                        format!("missing argument {names}"),
                    ),
                    Flavor::Infinity => ToolError::new(
                        Flavor::Infinity,
                        "missing_required_field",
                        format!("missing required field {names}"),
                    ),
                }
            }
            ArgError::WrongType { key, wanted } => {
                let key = key.unwrap_or_default();
                let key = sent_as
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map_or(key.as_str(), |(_, sent)| sent);
                invalid(flavor, format!("argument {key:?} must be {wanted}"))
            }
            ArgError::Other(message) => invalid(flavor, message),
            ArgError::Later => invalid(flavor, "the arguments are not valid".into()),
        }
    }
}

fn invalid(flavor: Flavor, message: String) -> ToolError {
    match flavor {
        Flavor::MemoryBank => ToolError::memory_bank("invalid_request", message),
        Flavor::Infinity => ToolError::new(Flavor::Infinity, "invalid_json", message),
    }
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgError::Missing(key) => write!(f, "missing argument {key:?}"),
            ArgError::WrongType { key, wanted } => {
                write!(
                    f,
                    "argument {:?} must be {wanted}",
                    key.as_deref().unwrap_or("")
                )
            }
            ArgError::Other(message) => f.write_str(message),
            ArgError::Later => f.write_str("a later argument"),
        }
    }
}

impl std::error::Error for ArgError {}

impl de::Error for ArgError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        ArgError::Other(message.to_string())
    }

    fn invalid_type(_: Unexpected<'_>, wanted: &dyn de::Expected) -> Self {
        ArgError::WrongType {
            key: None,
            wanted: wanted.to_string(),
        }
    }

    fn invalid_value(_: Unexpected<'_>, wanted: &dyn de::Expected) -> Self {
        ArgError::WrongType {
            key: None,
            wanted: wanted.to_string(),
        }
    }

    fn missing_field(field: &'static str) -> Self {
        ArgError::Missing(field)
    }
}

/// The arguments object, its keys given in the order the struct declares its fields, null
/// ones left out.
struct Arguments<'a> {
    map: &'a Map<String, Value>,
    /// Keys from this one on are left out.
    cut: Option<&'a str>,
}

impl<'a> Arguments<'a> {
    fn new(map: &'a Map<String, Value>, cut: Option<&'a str>) -> Arguments<'a> {
        Arguments { map, cut }
    }

    fn present(&self) -> impl Iterator<Item = (&'a String, &'a Value)> + use<'a> {
        self.map.iter().filter(|(_, value)| !value.is_null())
    }
}

impl<'de> de::Deserializer<'de> for Arguments<'de> {
    type Error = ArgError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ArgError> {
        visitor.visit_map(Fields::new(self.present().collect()))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ArgError> {
        let position = |key: &str| fields.iter().position(|f| *f == key);
        let cut = self.cut.map(|key| position(key).unwrap_or(fields.len()));
        // Unknown keys are ignored anyway; the known ones go in declaration order.
        let mut entries: Vec<_> = self
            .present()
            .filter_map(|(key, value)| Some((position(key)?, key, value)))
            .filter(|(at, _, _)| cut.is_none_or(|cut| *at < cut))
            .collect();
        entries.sort_by_key(|(at, _, _)| *at);
        let entries = entries.into_iter().map(|(_, k, v)| (k, v)).collect();
        match (visitor.visit_map(Fields::new(entries)), cut) {
            (Err(ArgError::Missing(key)), Some(cut)) if position(key) >= Some(cut) => {
                Err(ArgError::Later)
            }
            (result, _) => result,
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// The entries of [`Arguments`], naming the key of a value of the wrong type.
struct Fields<'a> {
    entries: std::vec::IntoIter<(&'a String, &'a Value)>,
    value: Option<(&'a String, &'a Value)>,
}

impl<'a> Fields<'a> {
    fn new(entries: Vec<(&'a String, &'a Value)>) -> Fields<'a> {
        Fields {
            entries: entries.into_iter(),
            value: None,
        }
    }
}

impl<'de> de::MapAccess<'de> for Fields<'de> {
    type Error = ArgError;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ArgError> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some((key, value));
        seed.deserialize(de::value::BorrowedStrDeserializer::new(key))
            .map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, ArgError> {
        let (key, value) = self
            .value
            .take()
            .ok_or_else(|| ArgError::Other("an argument without a value".into()))?;
        seed.deserialize(ArgValue(value))
            .map_err(|error| match error {
                ArgError::WrongType { key: None, wanted } => ArgError::WrongType {
                    key: Some(key.clone()),
                    wanted,
                },
                other => other,
            })
    }
}

/// One argument's JSON value, read with [`ArgError`]s.
struct ArgValue<'a>(&'a Value);

impl<'de> IntoDeserializer<'de, ArgError> for ArgValue<'de> {
    type Deserializer = ArgValue<'de>;

    fn into_deserializer(self) -> ArgValue<'de> {
        self
    }
}

impl<'de> de::Deserializer<'de> for ArgValue<'de> {
    type Error = ArgError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ArgError> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => {
                visitor.visit_seq(de::value::SeqDeserializer::new(items.iter().map(ArgValue)))
            }
            Value::Object(map) => visitor.visit_map(de::value::MapDeserializer::new(
                map.iter().map(|(k, v)| (k.as_str(), ArgValue(v))),
            )),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ArgError> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, ArgError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ArgError> {
        match self.0 {
            Value::String(s) => visitor.visit_enum(de::value::BorrowedStrDeserializer::new(s)),
            other => ArgValue(other).deserialize_any(visitor),
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// A flag: true or false, also sent as the strings "true" and "false" by some clients.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flag(pub bool);

impl<'de> de::Deserialize<'de> for Flag {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Flag, D::Error> {
        struct FlagVisitor;
        impl Visitor<'_> for FlagVisitor {
            type Value = Flag;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("true or false")
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Flag, E> {
                Ok(Flag(b))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Flag, E> {
                match s {
                    "true" => Ok(Flag(true)),
                    "false" => Ok(Flag(false)),
                    _ => Err(E::invalid_type(Unexpected::Str(s), &self)),
                }
            }
        }
        deserializer.deserialize_any(FlagVisitor)
    }
}

impl JsonSchema for Flag {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        bool::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> Schema {
        bool::json_schema(generator)
    }
}

/// A list of strings. A single string is refused rather than taken as a list of one: a
/// section would lose every other item, and a decision's alternatives would be one run-on
/// line, when the caller most likely meant several.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Items(pub Vec<String>);

const LIST: &str = "a list of strings";
const ITEMS_NOT_ONE_STRING: &str = "a list of strings, e.g. [\"first\", \"second\"], not a string";

/// Reads a list of strings.
struct ListVisitor;

impl<'de> Visitor<'de> for ListVisitor {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(LIST)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Vec<String>, E> {
        Err(E::invalid_type(Unexpected::Str(s), &ITEMS_NOT_ONE_STRING))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = seq.next_element::<Value>()? {
            match item {
                Value::String(s) => items.push(s),
                _ => return Err(de::Error::invalid_type(Unexpected::Seq, &self)),
            }
        }
        Ok(items)
    }
}

impl<'de> de::Deserialize<'de> for Items {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Items, D::Error> {
        deserializer.deserialize_any(ListVisitor).map(Items)
    }
}

macro_rules! schema_of_string_list {
    ($($ty:ty),*) => {$(
        impl JsonSchema for $ty {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> std::borrow::Cow<'static, str> {
                <Vec<String>>::schema_name()
            }

            fn json_schema(generator: &mut schemars::SchemaGenerator) -> Schema {
                <Vec<String>>::json_schema(generator)
            }
        }
    )*};
}

schema_of_string_list!(Items);

/// The input schema of a tool whose arguments are `T`: JSON Schema 2020-12 (MCP's
/// default, so no `$schema`), every subschema inline, the root without the struct's
/// title and doc, `properties` always there. An optional argument is advertised by its
/// type alone: null is read as absent, but the schema never offers it.
pub fn input_schema<T: JsonSchema>() -> Map<String, Value> {
    let settings = SchemaSettings::draft2020_12().with(|s| {
        s.meta_schema = None;
        s.inline_subschemas = true;
    });
    let mut schema = settings.into_generator().into_root_schema_for::<T>();
    without_null(&mut schema);
    let mut object = match schema.to_value() {
        Value::Object(object) => object,
        _ => Map::new(),
    };
    object.remove("title");
    object.remove("description");
    // A tool without arguments still lists none: some clients refuse an object schema
    // without `properties`.
    object
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    object
}

/// The input schema of a tool whose arguments are `T`, with the keys of `Extra` (read
/// separately, before `T`) after its own.
pub(crate) fn input_schema_with<T: JsonSchema, Extra: JsonSchema>() -> Map<String, Value> {
    let mut schema = input_schema::<T>();
    let extra = input_schema::<Extra>();
    if let (Some(Value::Object(properties)), Some(Value::Object(more))) =
        (schema.get_mut("properties"), extra.get("properties"))
    {
        for (key, value) in more {
            properties
                .entry(key.clone())
                .or_insert_with(|| value.clone());
        }
    }
    if let Some(Value::Array(more)) = extra.get("required") {
        let required = schema
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(required) = required {
            required.extend(more.iter().cloned());
        }
    }
    schema
}

/// Drops `null` from every `type` list (`["string", "null"]` becomes `"string"`).
fn without_null(schema: &mut Schema) {
    if let Some(Value::Array(types)) = schema.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            schema.insert("type".into(), only);
        }
    }
    schemars::transform::transform_subschemas(&mut without_null, schema);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_strings_become_arguments_typed_as_the_tool_wants_them() {
        let query: std::collections::HashMap<String, String> = [
            ("maxTokens", "120"),
            ("limit", "many"),
            ("includeUserFiles", "1"),
            ("verbose", "perhaps"),
            ("project", "42"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let typed = query_arguments(
            &query,
            &["maxTokens", "limit"],
            &["includeUserFiles", "verbose"],
        );
        assert_eq!(typed["maxTokens"], Value::from(120u64));
        assert_eq!(typed["limit"], Value::from("many"));
        assert_eq!(typed["includeUserFiles"], Value::Bool(true));
        assert_eq!(typed["verbose"], Value::from("perhaps"));
        assert_eq!(typed["project"], Value::from("42"));
    }
    use serde_json::json;

    #[derive(Debug, serde::Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    struct Sample {
        file_name: String,
        project_path: Option<String>,
        flag: Option<Flag>,
        list: Option<Items>,
        items: Option<Items>,
    }

    impl ToolArgs for Sample {
        const SPELLINGS: &'static [(&'static str, &'static [&'static str])] = &[
            ("fileName", &["filename"]),
            ("projectPath", &["projectName"]),
        ];
    }

    fn sample(value: Value, flavor: Flavor) -> Result<Sample, ToolError> {
        match value {
            Value::Object(map) => parse(map, flavor),
            _ => unreachable!(),
        }
    }

    #[test]
    fn keys_types_and_spellings() {
        let a = sample(
            json!({"filename": "a.md", "projectName": "p", "flag": "true", "list": ["one"], "random_string": "x"}),
            Flavor::MemoryBank,
        )
        .unwrap();
        assert_eq!(a.file_name, "a.md");
        assert_eq!(a.project_path.as_deref(), Some("p"));
        assert_eq!(a.flag, Some(Flag(true)));
        assert_eq!(a.list, Some(Items(vec!["one".into()])));
        // The struct's own spelling wins; null is absent.
        let b = sample(
            json!({"fileName": "b.md", "filename": 3, "projectPath": null, "projectName": "q", "items": null}),
            Flavor::MemoryBank,
        )
        .unwrap();
        assert_eq!(
            (b.file_name.as_str(), b.project_path.as_deref()),
            ("b.md", Some("q"))
        );
        assert_eq!(b.items, None);
    }

    #[test]
    fn problems_become_the_specs_error_objects() {
        let missing = sample(json!({"fileName": null}), Flavor::MemoryBank).unwrap_err();
        assert_eq!(missing.code, "invalid_request");
        assert_eq!(
            missing.message,
            r#"missing argument "fileName" or "filename""#
        );
        let wrong = sample(json!({"filename": 7}), Flavor::MemoryBank).unwrap_err();
        assert_eq!(wrong.message, r#"argument "filename" must be a string"#);
        let flag = sample(json!({"fileName": "a", "flag": "yes"}), Flavor::MemoryBank);
        assert_eq!(
            flag.unwrap_err().message,
            r#"argument "flag" must be true or false"#
        );
        let list = sample(
            json!({"fileName": "a", "list": ["a", 1]}),
            Flavor::MemoryBank,
        );
        assert_eq!(
            list.unwrap_err().message,
            r#"argument "list" must be a list of strings"#
        );
        let items = sample(json!({"fileName": "a", "items": "one"}), Flavor::MemoryBank);
        assert_eq!(
            items.unwrap_err().message,
            r#"argument "items" must be a list of strings, e.g. ["first", "second"], not a string"#
        );
        // A lone string is refused, not taken for a list of one.
        let list = sample(
            json!({"fileName": "a", "list": "notalist"}),
            Flavor::MemoryBank,
        );
        assert_eq!(
            list.unwrap_err().message,
            r#"argument "list" must be a list of strings, e.g. ["first", "second"], not a string"#
        );
        let i = sample(json!({"fileName": 5}), Flavor::Infinity).unwrap_err();
        assert_eq!((i.code, i.status), ("invalid_json", 400));
        let i = sample(json!({}), Flavor::Infinity).unwrap_err();
        assert_eq!(i.code, "missing_required_field");
        assert_eq!(
            i.message,
            r#"missing required field "fileName" or "filename""#
        );
    }

    #[test]
    fn the_first_problem_in_declaration_order_is_reported() {
        // fileName is missing and projectPath mistyped: fileName comes first.
        let e = sample(json!({"projectPath": 5}), Flavor::Infinity).unwrap_err();
        assert_eq!(e.code, "missing_required_field");
        // fileName mistyped, a later key too: fileName's type is reported.
        let e = sample(json!({"flag": 3, "fileName": 5}), Flavor::MemoryBank).unwrap_err();
        assert_eq!(e.message, r#"argument "fileName" must be a string"#);
    }

    #[test]
    fn schemas_name_types_and_required_keys_without_null() {
        let schema = Value::Object(input_schema::<Sample>());
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "fileName": {"type": "string"},
                    "projectPath": {"type": "string"},
                    "flag": {"type": "boolean"},
                    "list": {"type": "array", "items": {"type": "string"}},
                    "items": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["fileName"],
            })
        );
        assert_eq!(
            Value::Object(input_schema::<NoArgs>()),
            json!({"type": "object", "properties": {}})
        );
    }
}
