//! `config.toml`: every key optional; an unknown key or a bad value is an error that
//! names the file and the line. Precedence for the root: `--root`, `MEMORY_BANK_ROOT`,
//! the config's `root`, then `~/memory-banks`.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

use crate::error::{CoreError, Result};
use crate::findings::{Finding, Severity};
use crate::io::paths;
use crate::io::text;
use crate::limits;

/// Per-format budget override (tokens unless the format's rule counts something else).
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct FormatBudget {
    /// Whole bank, loaded files only.
    pub total: Option<u64>,
    /// Any one file.
    pub per_file: Option<u64>,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct BudgetOverrides {
    /// Keyed by format id: `cline`, `memory-bank-mcp`, `conkeeper`, `claude-md`, …
    #[serde(default)]
    pub formats: BTreeMap<String, FormatBudget>,
    /// Keyed by file name (`activeContext.md`) or project-relative path: a token limit.
    #[serde(default)]
    pub files: BTreeMap<String, u64>,
}

/// How often each role should change, in days of project activity.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct StalenessConfig {
    /// Keyed by role id (`active`, `progress`, `brief`, …).
    #[serde(default)]
    pub cadence_days: BTreeMap<String, u32>,
    /// Commits since a file last changed before it counts as stale (ConKeeper's
    /// `staleness_commits`; a bank's own `.memory-config.md` wins over this).
    pub staleness_commits: Option<u32>,
}

/// `[review]`: how review commits are made.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ReviewConfig {
    /// Make the review commit with `git commit`, running the user's git hooks and
    /// commit signing; off by default (mbank never runs what a repository configures).
    #[serde(default)]
    pub run_git_hooks: bool,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    root: Option<String>,
    tokenizer: Option<String>,
    scan_depth: Option<usize>,
    #[serde(default)]
    ignore: Vec<String>,
    #[serde(default)]
    budgets: BudgetOverrides,
    #[serde(default)]
    staleness: StalenessConfig,
    #[serde(default)]
    rules: BTreeMap<String, RuleLevel>,
    theme: Option<String>,
    keymap: Option<String>,
    #[serde(default)]
    review: ReviewConfig,
    #[serde(default)]
    serve: ServeConfig,
    #[serde(default)]
    history: crate::history::Retention,
    #[serde(default)]
    journal: JournalConfig,
}

/// The level a user gives a finding code in `[rules]`.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RuleLevel {
    /// The finding is not reported.
    Off,
    Info,
    Warning,
    Error,
}

impl Config {
    /// Applies `[rules]` to findings: each listed code gets the user's severity, or is
    /// dropped when set to `off`. A user knows their project; the defaults do not.
    pub fn apply_rule_levels(&self, findings: &mut Vec<Finding>) {
        if self.rules.is_empty() {
            return;
        }
        findings.retain_mut(|finding| match self.rules.get(finding.code.id()) {
            None => true,
            Some(RuleLevel::Off) => false,
            Some(level) => {
                finding.severity = match level {
                    RuleLevel::Info => Severity::Info,
                    RuleLevel::Warning => Severity::Warning,
                    _ => Severity::Error,
                };
                true
            }
        });
    }
}

/// The effective configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where the configuration came from, when a file was read.
    pub source: Option<PathBuf>,
    pub root: Option<PathBuf>,
    pub tokenizer: Option<String>,
    pub scan_depth: usize,
    pub ignore: Vec<String>,
    pub ignore_set: GlobSet,
    pub budgets: BudgetOverrides,
    pub staleness: StalenessConfig,
    /// `[rules]`: a finding code raised, lowered or silenced (`budget-over = "off"`).
    pub rules: BTreeMap<String, RuleLevel>,
    pub theme: Option<String>,
    pub keymap: Option<String>,
    pub review: ReviewConfig,
    /// `[serve]`: the agent servers (`mbank mcp`, `mbank serve`).
    pub serve: ServeConfig,
    /// `[history]`: how long replaced versions of memory files are kept.
    pub history: crate::history::Retention,
    /// `[journal]`: what `mbank watch` leaves out.
    pub journal: JournalConfig,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            source: None,
            root: None,
            tokenizer: None,
            scan_depth: 2,
            ignore: Vec::new(),
            ignore_set: GlobSet::empty(),
            budgets: BudgetOverrides::default(),
            staleness: StalenessConfig::default(),
            rules: BTreeMap::new(),
            theme: None,
            keymap: None,
            review: ReviewConfig::default(),
            serve: ServeConfig::default(),
            history: crate::history::Retention::default(),
            journal: JournalConfig::default(),
        }
    }
}

/// Expands a leading `~` to the home folder.
pub(crate) fn expand_tilde(text: &str) -> PathBuf {
    if text == "~" {
        return paths::home_dir().unwrap_or_else(|| PathBuf::from(text));
    }
    match (text.strip_prefix("~/"), paths::home_dir()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(text),
    }
}

fn line_of_offset(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

fn config_error(path: &Path, line: usize, message: impl std::fmt::Display) -> CoreError {
    CoreError::Config(format!("{}:{line}: {message}", path.display()))
}

/// Line of the first `key =` assignment, for errors serde cannot place.
fn line_of_key(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map_or(1, |i| i + 1)
}

/// Parses configuration text; `path` is only used in messages.
pub fn parse(text: &str, path: &Path) -> Result<Config> {
    let raw: RawConfig = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(1, |s| line_of_offset(text, s.start));
        // Name the key when the error points at a `key = value` line (a wrong type).
        let key = text
            .lines()
            .nth(line.saturating_sub(1))
            .and_then(|l| l.split_once('='))
            .map(|(key, _)| key.trim().trim_matches('"'))
            .filter(|key| !key.is_empty() && !key.starts_with('['));
        let message = match key {
            Some(key) if !e.message().contains(key) => format!("`{key}`: {}", e.message()),
            _ => e.message().to_string(),
        };
        config_error(path, line, &message)
    })?;
    const TOKENIZERS: [&str; 6] = [
        "o200k",
        "o200k_base",
        "cl100k",
        "cl100k_base",
        "bytes4",
        "bytes/4",
    ];
    if let Some(t) = &raw.tokenizer
        && !TOKENIZERS.contains(&t.as_str())
    {
        return Err(config_error(
            path,
            line_of_key(text, "tokenizer"),
            format!("tokenizer {t:?} is not one of o200k, cl100k, bytes4"),
        ));
    }
    if let Some(Err(e)) = raw
        .tokenizer
        .as_deref()
        .map(str::parse::<crate::tokens::Encoding>)
    {
        return Err(config_error(
            path,
            line_of_key(text, "tokenizer"),
            format!("tokenizer: {e}"),
        ));
    }
    if raw.scan_depth == Some(0) || raw.scan_depth.is_some_and(|d| d > 16) {
        return Err(config_error(
            path,
            line_of_key(text, "scan_depth"),
            "scan_depth must be between 1 and 16",
        ));
    }
    for id in raw.budgets.formats.keys() {
        if crate::model::Format::from_id(id).is_none() {
            return Err(config_error(
                path,
                line_of_key(text, &format!("[budgets.formats.{id}")).max(1),
                format!("unknown format {id:?} in [budgets.formats]"),
            ));
        }
    }
    for role in raw.staleness.cadence_days.keys() {
        if crate::model::Role::from_id(role).is_none() {
            return Err(config_error(
                path,
                line_of_key(text, role),
                format!("unknown role {role:?} in [staleness.cadence_days]"),
            ));
        }
    }
    let mut builder = GlobSetBuilder::new();
    for pattern in &raw.ignore {
        let glob = Glob::new(pattern).map_err(|e| {
            config_error(
                path,
                line_of_key(text, "ignore"),
                format!("bad ignore glob: {e}"),
            )
        })?;
        builder.add(glob);
    }
    let ignore_set = builder
        .build()
        .map_err(|e| config_error(path, line_of_key(text, "ignore"), e))?;
    let most = crate::history::MAX_VERSIONS;
    if raw.history.keep_versions == 0 || raw.history.keep_versions > most {
        return Err(config_error(
            path,
            line_of_key(text, "keep_versions"),
            format!("[history] keep_versions must be between 1 and {most}"),
        ));
    }
    Ok(Config {
        source: Some(path.to_path_buf()),
        root: raw.root.as_deref().map(expand_tilde),
        tokenizer: raw.tokenizer,
        scan_depth: raw.scan_depth.unwrap_or(2),
        ignore: raw.ignore,
        ignore_set,
        budgets: raw.budgets,
        staleness: raw.staleness,
        rules: raw.rules,
        theme: raw.theme,
        keymap: raw.keymap,
        review: raw.review,
        serve: raw.serve,
        history: raw.history,
        journal: raw.journal,
    })
}

/// The config file mbank reads: `$MBANK_CONFIG_DIR/config.toml` or the platform's.
pub(crate) fn default_path() -> Option<PathBuf> {
    paths::config_dir().map(|d| d.join("config.toml"))
}

/// Loads the configuration from `path` (or the default location). A missing file at the
/// default location is the default configuration; a file named with `path` (`--config`)
/// must exist, since running on defaults would silently ignore what the user asked for.
/// An unreadable or invalid file is an error either way. Only a regular
/// file (after following links) of at most `limits::SETTINGS` is read: a FIFO, a
/// device such as `/dev/zero`, a folder or a huge file is refused before reading
/// (`/dev/null` reads as an empty configuration).
pub fn load(path: Option<&Path>) -> Result<Config> {
    let named = path.is_some();
    let Some(path) = path.map(Path::to_path_buf).or_else(default_path) else {
        return Ok(Config::default());
    };
    // `--config /dev/null` is the usual way to say "no configuration": the one device
    // that is read (as empty).
    if std::fs::canonicalize(&path).is_ok_and(|p| p == Path::new("/dev/null")) {
        return parse("", &path);
    }
    match read_settings_file(&path) {
        Ok(text) => parse(&text, &path),
        Err(e) if text::is_not_found(&e) && !named => Ok(Config::default()),
        Err(e) if text::is_not_found(&e) => Err(CoreError::Config(format!(
            "cannot use the config file {}: it does not exist (a file named with --config must; --config /dev/null runs without one)",
            path.display()
        ))),
        Err(e) => Err(CoreError::Config(format!(
            "cannot use the config file: {e}"
        ))),
    }
}

/// Reads one of mbank's TOML settings files (config, keymap, theme) within
/// `limits::SETTINGS`: a regular file, not too large, UTF-8, nested within the limit.
/// Errors name the file.
pub fn read_settings_file(path: &Path) -> Result<String> {
    let text = text::read_text_limited(path, limits::SETTINGS.max_bytes as u64)?;
    limits::check(&text, limits::Syntax::Toml, limits::SETTINGS).map_err(|limit| {
        CoreError::Parse {
            path: path.to_path_buf(),
            message: format!("not parsed: {limit}"),
        }
    })?;
    Ok(text)
}

/// Where the root came from, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootSource {
    Flag,
    Environment,
    ConfigFile(PathBuf),
    Default,
}

impl std::fmt::Display for RootSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RootSource::Flag => f.write_str("--root"),
            RootSource::Environment => f.write_str("MEMORY_BANK_ROOT"),
            RootSource::ConfigFile(p) => write!(f, "root in {}", p.display()),
            RootSource::Default => f.write_str("the default ~/memory-banks"),
        }
    }
}

/// Picks the root by precedence, without touching the disk.
pub fn choose_root(
    flag: Option<&Path>,
    env: Option<&str>,
    config: &Config,
) -> (PathBuf, RootSource) {
    if let Some(flag) = flag {
        return (flag.to_path_buf(), RootSource::Flag);
    }
    if let Some(env) = env.filter(|e| !e.is_empty()) {
        return (expand_tilde(env), RootSource::Environment);
    }
    if let (Some(root), Some(source)) = (&config.root, &config.source) {
        return (root.clone(), RootSource::ConfigFile(source.clone()));
    }
    (expand_tilde("~/memory-banks"), RootSource::Default)
}

/// Checks that the chosen root is a readable folder; the error says where mbank looked
/// and how to set the root.
pub fn check_root(root: &Path, source: &RootSource) -> Result<()> {
    let how = "set it with --root PATH, the MEMORY_BANK_ROOT environment variable, or \
               `root = \"PATH\"` in the config file, or try `mbank --demo`";
    match std::fs::read_dir(root) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(CoreError::Root(format!(
            "memory bank root {} (from {source}) does not exist; {how}",
            root.display()
        ))),
        Err(e) => Err(CoreError::Root(format!(
            "memory bank root {} (from {source}) cannot be read: {e}; {how}",
            root.display()
        ))),
    }
}

/// `[serve]` of config.toml: `mbank mcp` and `mbank serve`. Every key optional.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct ServeConfig {
    /// `mbank serve` address when `--listen` is not given (default `127.0.0.1:3000`).
    pub listen: Option<String>,
    /// API keys accepted as `Authorization: Bearer KEY` (`MBANK_API_KEY` adds one).
    pub api_keys: Vec<String>,
    /// Require a key even on loopback (`true`) or never (`false`, loopback only); unset:
    /// required whenever the address is not loopback.
    pub require_key: Option<bool>,
    /// Tool calls and REST requests per key (or per client address without keys) per
    /// minute and per hour. Unset: no limit on loopback, else 60 and 1,000 (the Memory
    /// Bank MCP spec's figures); setting either turns the limit on (0: off).
    pub rate_limit_per_minute: Option<u32>,
    pub rate_limit_per_hour: Option<u32>,
    /// Largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Refuse every write (as `--read-only`).
    pub read_only: bool,
    /// Modes in which an agent only reads: an MCP session switched to one (`switch_mode`)
    /// and a `/chat` naming one write nothing. Default `["ask"]` (the Cline and Roo
    /// memory-bank instructions' Ask mode reads only); add `"debug"` to keep Debug from
    /// writing too.
    pub read_only_modes: Vec<String>,
    /// Tool surfaces when `--tools` is not given: `cline`, `memory-bank-mcp`, `infinity`.
    pub tools: Option<Vec<String>>,
    /// Which write rules apply (all on by default).
    pub guard: crate::guard::GuardPolicy,
    /// `POST /chat`: the OpenAI-compatible endpoint it forwards to.
    pub chat: Option<ChatConfig>,
    /// Names besides the listening address that `Host` may carry (`mbank.example.com`
    /// matches any port, `mbank.example.com:8443` that port only), e.g. behind a proxy.
    pub allowed_hosts: Vec<String>,
    /// Browser origins (`https://app.example.com`) granted CORS; none by default.
    pub allowed_origins: Vec<String>,
    /// How agent writes land: `"direct"` (the default) or `"stage"`, as proposals a
    /// person accepts or rejects (`mbank proposals`).
    pub writes: Writes,
    /// Per project, by its name under the root: `[serve.projects.NAME] writes = "stage"`.
    pub projects: BTreeMap<String, ProjectServeConfig>,
    /// Connections served at once; more are closed at once.
    pub max_connections: usize,
    /// Connections one client address may hold at once (unset: an eighth of
    /// `max_connections`, at least 8), so one client cannot take every slot.
    pub max_connections_per_client: Option<usize>,
    /// Seconds a request body may take to arrive, extended by one second for every
    /// 64 KiB received (so a slow trickle is cut off and a large fast upload is not).
    pub body_timeout_secs: u64,
    /// Seconds a client has to send a request's headers.
    pub header_timeout_secs: u64,
    /// Seconds a connection may stay without reading or writing a byte.
    pub idle_timeout_secs: u64,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            listen: None,
            api_keys: Vec::new(),
            require_key: None,
            rate_limit_per_minute: None,
            rate_limit_per_hour: None,
            max_body_bytes: 1024 * 1024,
            read_only: false,
            read_only_modes: vec!["ask".to_string()],
            tools: None,
            guard: crate::guard::GuardPolicy::default(),
            chat: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            writes: Writes::Direct,
            projects: BTreeMap::new(),
            max_connections: 512,
            max_connections_per_client: None,
            body_timeout_secs: 30,
            header_timeout_secs: 10,
            idle_timeout_secs: 60,
        }
    }
}

/// `[serve.projects.NAME]`: one project's server settings.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ProjectServeConfig {
    /// `"direct"` or `"stage"`, over `[serve] writes` for this project.
    pub writes: Option<Writes>,
}

/// `[serve.chat]`: an OpenAI-compatible chat completions endpoint.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ChatConfig {
    /// The full URL of the chat completions endpoint
    /// (`https://api.openai.com/v1/chat/completions`, `http://127.0.0.1:11434/v1/chat/completions`).
    pub url: String,
    pub model: String,
    /// Environment variable holding the endpoint's API key (sent as a Bearer token).
    pub api_key_env: Option<String>,
    /// Seconds to wait for the endpoint (default 120).
    pub timeout_secs: Option<u64>,
    /// Most memory sent with a chat, in tokens (estimated at 4 bytes a token; default
    /// 8,000): whole files in read order, the rest named as left out.
    pub context_tokens: Option<usize>,
}

/// How agent writes land: `writes = "direct" | "stage"` in config.toml.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Writes {
    /// Straight into the file (through the guard).
    #[default]
    Direct,
    /// As a proposal a person accepts or rejects.
    Stage,
}

/// `[journal]` in config.toml.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct JournalConfig {
    /// What the journal leaves out: store ids (`claude-auto-memory`, `kilo-memory`, the
    /// home folder's stores' ids as `journal::scope::home_store_ids` gives them, or any
    /// format's id) and globs of project folders (matched against the path, the path
    /// below the root, and the folder's name).
    pub leave_out: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_config_parses() {
        let text = r#"
root = "/banks"
tokenizer = "cl100k"
scan_depth = 3
ignore = ["archive-*"]
theme = "light"

[budgets.formats.cline]
total = 6000
per_file = 1200

[budgets.files]
"activeContext.md" = 800

[staleness]
staleness_commits = 8
[staleness.cadence_days]
active = 2
"#;
        let config = parse(text, Path::new("c.toml")).unwrap();
        assert_eq!(config.root, Some(PathBuf::from("/banks")));
        assert_eq!(config.scan_depth, 3);
        assert_eq!(config.budgets.formats["cline"].per_file, Some(1200));
        assert_eq!(config.budgets.files["activeContext.md"], 800);
        assert_eq!(config.staleness.cadence_days["active"], 2);
        assert!(config.ignore_set.is_match("archive-2024"));
    }

    #[test]
    fn review_hooks_are_off_unless_asked_for() {
        assert!(!Config::default().review.run_git_hooks);
        let config = parse("[review]\nrun_git_hooks = true\n", Path::new("c.toml")).unwrap();
        assert!(config.review.run_git_hooks);
        let err = parse("[review]\nrun_hooks = true\n", Path::new("c.toml")).unwrap_err();
        assert!(err.to_string().starts_with("c.toml:2:"), "{err}");
    }

    #[test]
    fn a_value_of_the_wrong_type_names_its_key_and_line() {
        let err = parse("theme = \"dark\"\nroot = 5\n", Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("c.toml:2: `root`: "), "{err}");
        assert!(err.contains("integer"), "{err}");
    }

    #[test]
    fn unknown_key_and_bad_values_name_file_and_line() {
        let err = parse(
            "root = \"/x\"\n\ncolour = \"red\"\n",
            Path::new("/c/config.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("/c/config.toml:3:"), "{err}");
        assert!(err.contains("colour"), "{err}");
        let err = parse("tokenizer = \"gpt2\"\n", Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("c.toml:1:") && err.contains("gpt2"),
            "{err}"
        );
        let err = parse("scan_depth = 0\n", Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("scan_depth"), "{err}");
        let err = parse("[budgets.formats.nope]\ntotal = 1\n", Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("nope"), "{err}");
        let err = parse("scan_depth = \"two\"\n", Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("c.toml:1:"), "{err}");
    }

    #[test]
    fn root_precedence() {
        let config = Config {
            root: Some(PathBuf::from("/from-config")),
            source: Some(PathBuf::from("/cfg/config.toml")),
            ..Config::default()
        };
        let (root, source) = choose_root(Some(Path::new("/flag")), Some("/env"), &config);
        assert_eq!((root, source), (PathBuf::from("/flag"), RootSource::Flag));
        let (root, source) = choose_root(None, Some("/env"), &config);
        assert_eq!(
            (root, source),
            (PathBuf::from("/env"), RootSource::Environment)
        );
        let (root, _) = choose_root(None, None, &config);
        assert_eq!(root, PathBuf::from("/from-config"));
        let (root, source) = choose_root(None, Some(""), &Config::default());
        assert!(root.ends_with("memory-banks"));
        assert_eq!(source, RootSource::Default);
    }

    #[test]
    fn missing_root_message_says_where_and_how() {
        let err = check_root(Path::new("/no/such/root"), &RootSource::Environment)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("/no/such/root") && err.contains("MEMORY_BANK_ROOT"),
            "{err}"
        );
        assert!(err.contains("--root"), "{err}");
    }
}

#[cfg(test)]
mod serve_tests {
    use super::*;
    use crate::findings::FindingCode;

    #[test]
    fn serve_table_parses_with_defaults_and_rejects_unknown_keys() {
        let config = parse("", Path::new("c.toml")).unwrap();
        assert_eq!(config.serve, ServeConfig::default());
        assert_eq!(config.serve.rate_limit_per_minute, None);
        let text = r#"
[serve]
listen = "0.0.0.0:8080"
api_keys = ["k1"]
rate_limit_per_minute = 5
read_only = true
tools = ["cline"]

[serve.guard]
secrets = false

[serve.chat]
url = "http://127.0.0.1:11434/v1/chat/completions"
model = "llama3"
api_key_env = "OPENAI_API_KEY"
"#;
        let serve = parse(text, Path::new("c.toml")).unwrap().serve;
        assert_eq!(serve.listen.as_deref(), Some("0.0.0.0:8080"));
        assert_eq!(serve.api_keys, ["k1"]);
        assert_eq!(serve.rate_limit_per_minute, Some(5));
        assert_eq!(serve.rate_limit_per_hour, None);
        assert!(serve.read_only && !serve.guard.secrets && serve.guard.append_only);
        assert_eq!(serve.chat.unwrap().model, "llama3");
        let err = parse("[serve]\nlisten_on = \"x\"\n", Path::new("c.toml")).unwrap_err();
        assert!(err.to_string().contains("listen_on"), "{err}");
    }

    #[test]
    fn staging_and_history_retention_parse_per_root_and_per_project() {
        let config = parse("", Path::new("c.toml")).unwrap();
        assert_eq!(config.serve.writes, Writes::Direct);
        assert_eq!(config.history.keep_versions, 50);
        assert_eq!(config.history.keep_days, 30);
        let text = r#"
[serve]
writes = "stage"
[serve.projects.scratch]
writes = "direct"

[history]
keep_versions = 80
keep_days = 7
"#;
        let config = parse(text, Path::new("c.toml")).unwrap();
        assert_eq!(config.serve.writes, Writes::Stage);
        assert_eq!(
            config.serve.projects["scratch"].writes,
            Some(Writes::Direct)
        );
        assert_eq!(config.history.keep_versions, 80);
        assert_eq!(config.history.keep_days, 7);
        let err = parse("[serve]\nwrites = \"later\"\n", Path::new("c.toml")).unwrap_err();
        assert!(err.to_string().starts_with("c.toml:2:"), "{err}");
        let err = parse("[history]\nkeep_versions = 0\n", Path::new("c.toml")).unwrap_err();
        assert!(err.to_string().contains("keep_versions"), "{err}");
    }

    #[test]
    fn rules_table_raises_lowers_or_silences_a_finding_code() {
        let config = parse(
            "[rules]\nbudget-over = \"off\"\nno-heading = \"error\"\nstale = \"info\"\n",
            Path::new("config.toml"),
        )
        .unwrap();
        let finding = |code: FindingCode| {
            Finding::new(
                Severity::Warning,
                code,
                Path::new("a.md"),
                None,
                "m".to_string(),
            )
        };
        let mut findings = vec![
            finding(FindingCode::BudgetOver),
            finding(FindingCode::NoHeading),
            finding(FindingCode::Stale),
            finding(FindingCode::EmptyFile),
        ];
        config.apply_rule_levels(&mut findings);
        let levels: Vec<(&str, Severity)> =
            findings.iter().map(|f| (f.code.id(), f.severity)).collect();
        assert_eq!(
            levels,
            vec![
                ("no-heading", Severity::Error),
                ("stale", Severity::Info),
                ("empty-file", Severity::Warning),
            ]
        );
        assert!(parse("[rules]\nstale = \"loud\"\n", Path::new("c.toml")).is_err());
    }
}
