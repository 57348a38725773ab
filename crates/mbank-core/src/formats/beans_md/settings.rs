//! Beans-Code's memory configuration: the `memory` object of `settings.json` in the
//! user's `~/.beans/` and in the project's `.beans/` (the project's keys over the user's),
//! with the keys and defaults of Beans-Code's configuration schema (`fileNames`,
//! `searchParents`, `searchChildren`, `maxDepth`, `maxLines`, `maxTokens`, `folderTrust`,
//! `imports`). Which folders are trusted is the user's to say: `folderTrust` is read from
//! the user's settings only, and an untrusted project's own settings are not read.
//! A key this schema does not define, or a value of the wrong type, is a problem in words
//! naming the file; its default applies and nothing panics.
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::io::confine::{Confinement, ProjectFolder};

/// The settings file in Beans-Code's folder (the user's and the project's).
pub(crate) const SETTINGS_FILE: &str = "settings.json";
/// The object of the settings file that holds the memory configuration.
pub(crate) const SECTION: &str = "memory";
/// A settings file larger than this is not read.
const SETTINGS_MAX_BYTES: u64 = 256 * 1024;

/// How deep Beans-Code follows `@imports` and looks into sub-folders by default.
pub(crate) const DEFAULT_DEPTH: usize = 5;
/// The memory file's name when the configuration names none.
const DEFAULT_FILE_NAME: &str = super::FILES.main;

/// The memory configuration in force for one project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MemorySettings {
    /// The names memory files are read under, in the order they are read in a folder.
    pub file_names: Vec<String>,
    /// Whether the memory files of the folders above the project (up to the git root)
    /// load.
    pub search_parents: bool,
    /// Whether the sub-folders' memory files load at start-up rather than just in time.
    pub search_children: bool,
    /// How many folder levels below the project the start-up scan of sub-folders looks.
    pub max_depth: usize,
    /// `maxLines`, when set: the lines loaded at start-up.
    pub max_lines: Option<u64>,
    /// `maxTokens`, when set: the tokens loaded at start-up.
    pub max_tokens: Option<u64>,
    /// Whether `@imports` are expanded.
    pub imports_enabled: bool,
    /// How many `@import` hops deep they are followed.
    pub imports_max_depth: usize,
    /// `false` when folder trust is on and the project is in no trusted folder: only the
    /// global memory loads.
    pub trusted: bool,
    /// Where each key in force was set, for messages (`maxLines` → `.beans/settings.json`).
    pub sources: Vec<(&'static str, String)>,
}

impl Default for MemorySettings {
    fn default() -> Self {
        MemorySettings {
            file_names: vec![DEFAULT_FILE_NAME.to_string()],
            search_parents: true,
            search_children: false,
            max_depth: DEFAULT_DEPTH,
            max_lines: None,
            max_tokens: None,
            imports_enabled: true,
            imports_max_depth: DEFAULT_DEPTH,
            trusted: true,
            sources: Vec::new(),
        }
    }
}

impl MemorySettings {
    /// Where `key` was set, as a person finds the file (`~/.beans/settings.json`).
    pub(crate) fn source_of(&self, key: &str) -> Option<&str> {
        self.sources
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, file)| file.as_str())
    }

    /// The import depth in force: none when imports are off.
    pub(crate) fn import_depth(&self) -> usize {
        if self.imports_enabled {
            self.imports_max_depth
        } else {
            0
        }
    }

    /// Whether `name` is one the configuration reads memory files under.
    pub(crate) fn reads_name(&self, name: &str) -> bool {
        self.file_names.iter().any(|n| n == name)
    }
}

/// The configuration in force and what is wrong with the files it came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LoadedSettings {
    pub settings: MemorySettings,
    /// Each problem in words, naming the file.
    pub problems: Vec<String>,
}

/// The user's settings file under `home`.
pub(crate) fn user_file(home: &Path) -> PathBuf {
    home.join(super::FILES.dot_dir).join(SETTINGS_FILE)
}

/// The project's settings file.
pub(crate) fn project_file(project: &Path) -> PathBuf {
    project.join(super::FILES.dot_dir).join(SETTINGS_FILE)
}

/// The configuration for `project`: defaults, then the user's keys (under `home`), then
/// the project's own when the project is trusted.
pub(crate) fn for_project(project: &Path, home: Option<&Path>) -> LoadedSettings {
    let mut loaded = LoadedSettings::default();
    let user_shown = format!("~/{}/{SETTINGS_FILE}", super::FILES.dot_dir);
    let user = home.and_then(|home| {
        let read = crate::io::text::read_text_limited(&user_file(home), SETTINGS_MAX_BYTES);
        read_section(read, &user_shown, &mut loaded)
    });
    if let Some(user) = &user {
        apply(user, &user_shown, &mut loaded, Origin::User(home, project));
    }
    let project_shown = format!("{}/{SETTINGS_FILE}", super::FILES.dot_dir);
    if !loaded.settings.trusted {
        return loaded;
    }
    let file = project_file(project);
    let folder = ProjectFolder::new(project);
    let inside = if std::fs::symlink_metadata(&file).is_err() {
        crate::io::reads::absent(&file);
        false
    } else if let Confinement::Inside(_) = folder.check(&file) {
        true
    } else {
        loaded.problems.push(format!(
            "{project_shown} leads out of the project or cannot be resolved, and is \
             not read: Beans-Code's defaults and the user's settings apply"
        ));
        false
    };
    // Read through a handle below the project, so a file swapped for a link since the
    // check is refused rather than followed.
    if inside
        && let Some(section) = read_section(
            crate::io::confine::read_text(&folder, &file),
            &project_shown,
            &mut loaded,
        )
    {
        apply(&section, &project_shown, &mut loaded, Origin::Project);
    }
    loaded
}

/// The `memory` object of a settings file; `None` when the file or the object is
/// missing or unreadable (the latter a problem).
fn read_section(
    read: crate::error::Result<String>,
    shown: &str,
    loaded: &mut LoadedSettings,
) -> Option<Map<String, Value>> {
    let text = match read {
        Ok(text) => text,
        Err(e) if crate::io::text::is_not_found(&e) => return None,
        Err(e) => {
            loaded.problems.push(format!(
                "{shown} cannot be read ({e}): Beans-Code's memory defaults apply instead"
            ));
            return None;
        }
    };
    if text.len() as u64 > SETTINGS_MAX_BYTES {
        loaded.problems.push(format!(
            "{shown} is over {} KiB and is not read: Beans-Code's memory defaults apply instead",
            SETTINGS_MAX_BYTES / 1024
        ));
        return None;
    }
    let value: Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(e) => {
            loaded.problems.push(format!(
                "{shown} is not valid JSON (line {}, column {}): its memory settings are \
                 not read",
                e.line(),
                e.column()
            ));
            return None;
        }
    };
    let Value::Object(top) = value else {
        loaded.problems.push(format!(
            "{shown} is not a JSON object: its memory settings are not read"
        ));
        return None;
    };
    match top.get(SECTION) {
        None | Some(Value::Null) => None,
        Some(Value::Object(section)) => Some(section.clone()),
        Some(_) => {
            loaded.problems.push(format!(
                "\"{SECTION}\" in {shown} is not an object: its memory settings are not read"
            ));
            None
        }
    }
}

/// Whose settings a section is: the user's decide folder trust for `project`.
enum Origin<'a> {
    User(Option<&'a Path>, &'a Path),
    Project,
}

/// The keys of the memory configuration, as Beans-Code's schema names them.
const KEYS: [&str; 8] = [
    "fileNames",
    "searchParents",
    "searchChildren",
    "maxDepth",
    "maxLines",
    "maxTokens",
    "folderTrust",
    "imports",
];

/// Applies one file's memory section over what is in force.
fn apply(
    section: &Map<String, Value>,
    shown: &str,
    loaded: &mut LoadedSettings,
    origin: Origin<'_>,
) {
    let mut problem = |text: String| loaded.problems.push(text);
    let wrong = |key: &str, wanted: &str| {
        format!("{key} in {shown} is not {wanted}: the value is not used")
    };
    let settings = &mut loaded.settings;
    let set = |sources: &mut Vec<(&'static str, String)>, key: &'static str| {
        sources.retain(|(k, _)| *k != key);
        sources.push((key, shown.to_string()));
    };
    for (key, value) in section {
        match key.as_str() {
            "fileNames" => match file_names(value) {
                Some(names) => {
                    settings.file_names = names;
                    set(&mut settings.sources, "fileNames");
                }
                None => problem(wrong(
                    "fileNames",
                    "a non-empty list of file names (no folders)",
                )),
            },
            "searchParents" => match value.as_bool() {
                Some(on) => {
                    settings.search_parents = on;
                    set(&mut settings.sources, "searchParents");
                }
                None => problem(wrong("searchParents", "true or false")),
            },
            "searchChildren" => match value.as_bool() {
                Some(on) => {
                    settings.search_children = on;
                    set(&mut settings.sources, "searchChildren");
                }
                None => problem(wrong("searchChildren", "true or false")),
            },
            "maxDepth" => match count(value) {
                Some(depth) => {
                    settings.max_depth = depth;
                    set(&mut settings.sources, "maxDepth");
                }
                None => problem(wrong("maxDepth", "a whole number of 0 or more")),
            },
            "maxLines" => match positive(value) {
                Some(lines) => {
                    settings.max_lines = Some(lines);
                    set(&mut settings.sources, "maxLines");
                }
                None => problem(wrong("maxLines", "a whole number above 0")),
            },
            "maxTokens" => match positive(value) {
                Some(tokens) => {
                    settings.max_tokens = Some(tokens);
                    set(&mut settings.sources, "maxTokens");
                }
                None => problem(wrong("maxTokens", "a whole number above 0")),
            },
            "imports" => {
                let Some(imports) = value.as_object() else {
                    problem(wrong("imports", "an object (enabled, maxDepth)"));
                    continue;
                };
                for (sub, value) in imports {
                    match sub.as_str() {
                        "enabled" => match value.as_bool() {
                            Some(on) => {
                                settings.imports_enabled = on;
                                set(&mut settings.sources, "imports.enabled");
                            }
                            None => problem(wrong("imports.enabled", "true or false")),
                        },
                        "maxDepth" => match count(value) {
                            Some(depth) => {
                                settings.imports_max_depth = depth;
                                set(&mut settings.sources, "imports.maxDepth");
                            }
                            None => {
                                problem(wrong("imports.maxDepth", "a whole number of 0 or more"))
                            }
                        },
                        other => problem(format!(
                            "imports.{other} in {shown} is not a Beans-Code memory setting \
                             (imports has enabled and maxDepth): it is ignored"
                        )),
                    }
                }
            }
            "folderTrust" => match &origin {
                Origin::Project => problem(format!(
                    "folderTrust in {shown} is ignored: which folders are trusted is set in \
                     the user's ~/{}/{SETTINGS_FILE} only",
                    super::FILES.dot_dir
                )),
                Origin::User(home, project) => {
                    match folder_trust(value, *home, project, shown, &mut problem) {
                        Some(trusted) => {
                            settings.trusted = trusted;
                            set(&mut settings.sources, "folderTrust");
                        }
                        None => {
                            problem(wrong("folderTrust", "an object (enabled, trustedFolders)"))
                        }
                    }
                }
            },
            other => problem(format!(
                "{other} in {shown} is not a Beans-Code memory setting (it knows {}): it is \
                 ignored",
                KEYS.join(", ")
            )),
        }
    }
}

/// `fileNames`: a non-empty list of plain file names, without repeats.
fn file_names(value: &Value) -> Option<Vec<String>> {
    let list = value.as_array()?;
    let mut names: Vec<String> = Vec::new();
    for name in list {
        let name = name.as_str()?.trim();
        let plain = !name.is_empty()
            && name != "."
            && name != ".."
            && !name.contains(['/', '\\'])
            && !name.contains('\0');
        if !plain {
            return None;
        }
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    }
    (!names.is_empty()).then_some(names)
}

fn count(value: &Value) -> Option<usize> {
    value.as_u64().and_then(|n| usize::try_from(n).ok())
}

fn positive(value: &Value) -> Option<u64> {
    value.as_u64().filter(|&n| n > 0)
}

/// `folderTrust` of the user's settings: whether `project` is trusted (`Some(true)` when
/// trust is off); `None` when the value is not an object or `enabled` is not a boolean.
fn folder_trust(
    value: &Value,
    home: Option<&Path>,
    project: &Path,
    shown: &str,
    problem: &mut impl FnMut(String),
) -> Option<bool> {
    let trust = value.as_object()?;
    let enabled = match trust.get("enabled") {
        None => false,
        Some(value) => value.as_bool()?,
    };
    let mut folders = Vec::new();
    for (key, value) in trust {
        match key.as_str() {
            "enabled" => {}
            "trustedFolders" => match value.as_array() {
                Some(list) => {
                    for entry in list {
                        match entry.as_str().and_then(|f| trusted_folder(f, home)) {
                            Some(folder) => folders.push(folder),
                            None => problem(format!(
                                "folderTrust.trustedFolders in {shown} holds {entry}, which is \
                                 not an absolute path or one under ~/: it trusts nothing"
                            )),
                        }
                    }
                }
                None => problem(format!(
                    "folderTrust.trustedFolders in {shown} is not a list of folders: no \
                     folder is trusted"
                )),
            },
            other => problem(format!(
                "folderTrust.{other} in {shown} is not a Beans-Code memory setting \
                 (folderTrust has enabled and trustedFolders): it is ignored"
            )),
        }
    }
    if !enabled {
        return Some(true);
    }
    let real_project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    Some(folders.iter().any(|folder| {
        let real = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.clone());
        real_project.starts_with(&real) || project.starts_with(folder)
    }))
}

/// A trusted folder as written: absolute, or `~` / `~/…` under the home folder.
fn trusted_folder(written: &str, home: Option<&Path>) -> Option<PathBuf> {
    let written = written.trim();
    if written == "~" {
        return home.map(Path::to_path_buf);
    }
    if let Some(rest) = written.strip_prefix("~/") {
        return home.map(|home| home.join(rest));
    }
    let path = Path::new(written);
    path.is_absolute().then(|| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn no_settings_give_the_schemas_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let loaded = for_project(&dir.path().join("p"), Some(&dir.path().join("home")));
        assert_eq!(loaded, LoadedSettings::default());
        assert_eq!(loaded.settings.file_names, ["BEANS.md"]);
        assert!(loaded.settings.search_parents && !loaded.settings.search_children);
        assert_eq!(loaded.settings.import_depth(), 5);
    }

    #[test]
    fn the_projects_keys_win_over_the_users() {
        let dir = tempfile::tempdir().unwrap();
        let (home, project) = (dir.path().join("home"), dir.path().join("p"));
        write(
            &user_file(&home),
            r#"{"memory":{"fileNames":["BEANS.md","CONTEXT.md"],"maxLines":120,
                "imports":{"maxDepth":2}}}"#,
        );
        write(
            &project_file(&project),
            r#"{"theme":"dark","memory":{"maxLines":80,"searchParents":false,
                "imports":{"enabled":false}}}"#,
        );
        let loaded = for_project(&project, Some(&home));
        assert_eq!(loaded.problems, Vec::<String>::new());
        let s = &loaded.settings;
        assert_eq!(s.file_names, ["BEANS.md", "CONTEXT.md"]);
        assert_eq!(s.max_lines, Some(80));
        assert_eq!(s.source_of("maxLines"), Some(".beans/settings.json"));
        assert_eq!(s.source_of("fileNames"), Some("~/.beans/settings.json"));
        assert!(!s.search_parents);
        assert_eq!((s.imports_max_depth, s.import_depth()), (2, 0));
    }

    #[test]
    fn unknown_keys_and_wrong_types_are_problems_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        write(
            &project_file(&project),
            r#"{"memory":{"maxLine":10,"maxLines":"many","searchParents":"yes",
                "fileNames":["../x.md"],"imports":{"depth":3,"maxDepth":-1},
                "maxTokens":0,"maxDepth":2}}"#,
        );
        let loaded = for_project(&project, None);
        let problems = loaded.problems.join("\n");
        for part in [
            "maxLine in .beans/settings.json is not a Beans-Code memory setting",
            "maxLines in .beans/settings.json is not a whole number above 0",
            "searchParents in .beans/settings.json is not true or false",
            "fileNames in .beans/settings.json is not a non-empty list",
            "imports.depth in .beans/settings.json",
            "imports.maxDepth in .beans/settings.json is not a whole number",
            "maxTokens in .beans/settings.json is not a whole number above 0",
        ] {
            assert!(problems.contains(part), "{part}\n{problems}");
        }
        assert_eq!(loaded.problems.len(), 7, "{problems}");
        // The well-typed key still applies; the rest keep their defaults.
        assert_eq!(loaded.settings.max_depth, 2);
        assert_eq!(loaded.settings.max_lines, None);
        assert!(loaded.settings.search_parents);

        for (text, part) in [
            ("{", "is not valid JSON (line 1"),
            ("[1]", "is not a JSON object"),
            (
                r#"{"memory":3}"#,
                "\"memory\" in .beans/settings.json is not an object",
            ),
        ] {
            write(&project_file(&project), text);
            let loaded = for_project(&project, None);
            assert_eq!(loaded.settings, MemorySettings::default(), "{text}");
            assert!(loaded.problems[0].contains(part), "{:?}", loaded.problems);
        }
    }

    #[test]
    fn an_untrusted_project_reads_only_the_users_settings() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let trusted = home.join("work");
        let project = dir.path().join("elsewhere/p");
        std::fs::create_dir_all(&trusted).unwrap();
        write(
            &user_file(&home),
            r#"{"memory":{"folderTrust":{"enabled":true,"trustedFolders":["~/work","rel"]}}}"#,
        );
        write(&project_file(&project), r#"{"memory":{"maxLines":1}}"#);
        let loaded = for_project(&project, Some(&home));
        assert!(!loaded.settings.trusted);
        assert_eq!(loaded.settings.max_lines, None);
        assert_eq!(loaded.problems.len(), 1, "{:?}", loaded.problems);
        assert!(loaded.problems[0].contains("holds \"rel\""));

        let inside = trusted.join("p");
        write(
            &project_file(&inside),
            r#"{"memory":{"maxLines":1,"folderTrust":{"enabled":false}}}"#,
        );
        let loaded = for_project(&inside, Some(&home));
        assert!(loaded.settings.trusted);
        assert_eq!(loaded.settings.max_lines, Some(1));
        assert!(
            loaded
                .problems
                .iter()
                .any(|p| p.starts_with("folderTrust in .beans/settings.json is ignored")),
            "{:?}",
            loaded.problems
        );
    }

    #[test]
    fn folder_trust_of_the_wrong_type_is_a_problem_and_trusts_as_before() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        write(&user_file(&home), r#"{"memory":{"folderTrust":true}}"#);
        let loaded = for_project(&dir.path().join("p"), Some(&home));
        assert!(loaded.settings.trusted);
        assert!(loaded.problems[0].starts_with("folderTrust in ~/.beans/settings.json is not"));
    }
}
