//! The servers agents write through: `mbank mcp` (MCP over stdio) and `mbank serve`
//! (the REST API of the Memory Bank MCP spec and MCP over Streamable HTTP). Async lives here only; every
//! tool calls the blocking core (`core::agent`) on tokio's blocking pool.
//!
//! - [`cline`], [`memory_bank_mcp`], [`infinity`]: one file per tool surface: the typed
//!   arguments of its tools and their handlers.
//! - [`tools`]: the table of every tool (name, description, annotations, handler), and
//!   [`args`], which reads a call's arguments into their struct and generates its schema.
//! - [`mcp`]: the MCP server (tool list, dispatch, resources) and the stdio runner.
//! - [`http`]: the REST API, auth (API keys, session cookies), rate limits, `/mcp` and
//!   `/chat` ([`chat`], whose model's memory-bank updates run through the tools' own
//!   handlers); [`browser`] keeps web pages out, `conn` accepts connections with
//!   timeouts and a cap.
//! - [`stdio`]: frames `mbank mcp`'s input lines, answering malformed and oversized ones.
//! - [`jsonrpc`]: the JSON-RPC errors both transports answer themselves (-32602 for a
//!   malformed tool call, the rate limit's error).
pub mod args;
pub mod browser;
pub mod chat;
pub mod cline;
pub(crate) mod conn;
pub mod context;
pub mod http;
pub mod infinity;
pub mod jsonrpc;
pub mod mcp;
pub mod memory_bank_mcp;
pub mod proposals;
pub mod ratelimit;
pub mod reply;
pub(crate) mod saved_memory;
pub mod search;
pub mod stdio;
pub mod tools;

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use mbank_core::agent::bank::{FileRead, MarkdownBank};
use mbank_core::agent::infinity::InfinityProject;
use mbank_core::agent::projects::Root;
use mbank_core::agent::{AgentError, AgentResult};
use mbank_core::guard::refusals::{self, RefusalRecord};
use mbank_core::guard::{Guard, GuardPolicy};
use mbank_core::write::WriteContext;

/// Which tool surfaces a server offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Surfaces {
    pub cline: bool,
    pub memory_bank_mcp: bool,
    pub infinity: bool,
}

impl Default for Surfaces {
    fn default() -> Self {
        Surfaces {
            cline: true,
            memory_bank_mcp: true,
            infinity: true,
        }
    }
}

impl Surfaces {
    /// Whether a tool offered works on projects under the root (Infinity's do not).
    pub fn needs_root(&self) -> bool {
        self.cline || self.memory_bank_mcp
    }

    /// Parses `cline,memory-bank-mcp,infinity` (any subset, any order).
    pub fn parse<S: AsRef<str>>(names: &[S]) -> Result<Surfaces, String> {
        let mut surfaces = Surfaces {
            cline: false,
            memory_bank_mcp: false,
            infinity: false,
        };
        for name in names {
            for part in name
                .as_ref()
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
            {
                match part {
                    "cline" => surfaces.cline = true,
                    "memory-bank-mcp" | "memory-bank" => surfaces.memory_bank_mcp = true,
                    "infinity" => surfaces.infinity = true,
                    "all" => surfaces = Surfaces::default(),
                    other => {
                        return Err(format!(
                            "unknown tool surface {other:?}; use cline, memory-bank-mcp, infinity"
                        ));
                    }
                }
            }
        }
        if surfaces
            == (Surfaces {
                cline: false,
                memory_bank_mcp: false,
                infinity: false,
            })
        {
            return Err("no tool surface chosen; use cline, memory-bank-mcp, infinity".into());
        }
        Ok(surfaces)
    }
}

/// How a server was started.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub root: PathBuf,
    pub surfaces: Surfaces,
    pub read_only: bool,
    /// Modes in which a session or a chat writes nothing (`read_only_modes` under `[serve]`).
    pub read_only_modes: Vec<String>,
    pub policy: GuardPolicy,
    /// The Infinity project folder (the working directory, or `--project`).
    pub infinity_project: PathBuf,
    /// Append refused writes to the refusal log (`core::refusals`).
    pub log_refusals: bool,
    /// Which projects' writes are staged as proposals (`--stage`, `writes = "stage"`).
    pub staging: mbank_core::agent::proposals::Staging,
    /// What stamps entries written for agents and counts rate-limit windows.
    pub clock: mbank_core::clock::Clock,
    /// Where agents' writes keep the text they replace (`None`: nowhere).
    pub history: Option<mbank_core::history::History>,
    /// What token budgets are counted in (config.toml's encoding).
    pub encoding: mbank_core::tokens::Encoding,
}

/// What every session and request of one server shares.
#[derive(Debug)]
pub struct Shared {
    pub options: ServeOptions,
    pub root: Root,
    /// The guard rules, and the clean texts every request's appends share.
    guard: Guard,
    /// Banks by project folder: opened once, so a request does not rediscover them.
    banks: RwLock<HashMap<PathBuf, Arc<MarkdownBank>>>,
    default_project: Mutex<Option<PathBuf>>,
    reads: RwLock<HashMap<PathBuf, (FileStamp, Arc<CachedRead>)>>,
    /// The search index of the root, opened on the first search and refreshed on each.
    search: Mutex<Option<mbank_core::search::SearchIndex>>,
}

/// A read file with what the HTTP API answers for it, kept while the file is unchanged.
#[derive(Debug)]
pub struct CachedRead {
    pub read: FileRead,
    /// `GET /memory-bank/file` body, built once (shared, not copied, per response).
    pub http_body: std::sync::OnceLock<axum::body::Bytes>,
}

/// What says a file is unchanged: device, inode, size, modification and change times
/// (a guarded write renames, so it always changes the inode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl FileStamp {
    #[cfg(unix)]
    fn of(meta: &std::fs::Metadata, now: std::time::SystemTime) -> Option<FileStamp> {
        use std::os::unix::fs::MetadataExt;
        // A file changed within the racy window may change again without its times
        // changing (coarse timestamps): such a file is read every time.
        let modified = meta.modified().ok()?;
        let age = now.duration_since(modified).ok()?;
        if age < mbank_core::scan::listings::RACY_WINDOW || !meta.is_file() {
            return None;
        }
        Some(FileStamp {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        })
    }

    #[cfg(not(unix))]
    fn of(_meta: &std::fs::Metadata) -> Option<FileStamp> {
        None
    }
}

/// Files cached for reads: small ones, and not too many.
const CACHED_FILE_BYTES: u64 = 1024 * 1024;
const CACHED_FILES: usize = 4096;

/// One MCP session's state: the Memory Bank MCP project and mode, the Infinity project,
/// the client it serves.
#[derive(Debug, Default)]
pub struct Session {
    pub project: Mutex<Option<PathBuf>>,
    pub mode: Mutex<Option<String>>,
    pub infinity: Mutex<Option<InfinityProject>>,
    /// The agent's client as it named itself (MCP's `clientInfo`), when it did.
    pub client: Mutex<Option<String>>,
    /// One request of a protocol version without sessions (2026-07-28 and later), where
    /// every request stands alone: nothing it chooses is kept for the next.
    pub stateless: bool,
}

/// What an agent is told when a request of a protocol version without sessions names no
/// project where one is needed.
pub(crate) const STATELESS_PROJECT_HINT: &str = "this MCP protocol version (2026-07-28 or \
later) keeps no session: every request stands alone, so set_memory_bank_path is not \
remembered; pass projectPath (a project under the root) to every tool";

impl Session {
    /// The state of one request that stands alone (a protocol version without sessions).
    pub fn stateless(client: Option<String>) -> Session {
        Session {
            client: Mutex::new(client),
            stateless: true,
            ..Session::default()
        }
    }

    /// A call of the tool or route `via` in this session.
    pub fn caller(&self, via: &str) -> Caller {
        Caller {
            via: via.to_string(),
            client: self.client.lock().clone(),
        }
    }
}

/// Who asks for a write: the tool or route (`mcp:log_decision`, `http:POST
/// /memory-bank/file`), and the client when the session knows it.
#[derive(Debug, Clone)]
pub struct Caller {
    pub via: String,
    pub client: Option<String>,
}

impl Caller {
    /// A call that names no client (the REST API).
    pub(crate) fn anonymous(via: &str) -> Caller {
        Caller {
            via: via.to_string(),
            client: None,
        }
    }
}

impl Shared {
    pub fn new(options: ServeOptions) -> AgentResult<Arc<Shared>> {
        // Infinity's tools keep their store in their own project folder: a server offering
        // only them starts without a root.
        let root = if options.surfaces.needs_root() {
            Root::new(&options.root)?
        } else {
            Root::unchecked(&options.root)
        };
        Ok(Arc::new(Shared {
            guard: Guard::new(options.policy),
            options,
            root,
            banks: RwLock::new(HashMap::new()),
            default_project: Mutex::new(None),
            reads: RwLock::new(HashMap::new()),
            search: Mutex::new(None),
        }))
    }

    /// Reads `name` from `bank`: confined by `resolve` every time, the content (and its
    /// version) reused while the file's stamp is unchanged, so the hot path neither
    /// rereads, revalidates nor rehashes an unchanged file.
    pub fn read(&self, bank: &MarkdownBank, name: &str) -> AgentResult<Arc<CachedRead>> {
        let (path, _) = bank.resolve(name)?;
        let stamp = bank
            .stat(name)
            .filter(|m| m.len() <= CACHED_FILE_BYTES)
            .and_then(|m| FileStamp::of(&m, self.options.clock.now()));
        if let Some(stamp) = stamp
            && let Some((cached_stamp, cached)) = self.reads.read().get(&path)
            && *cached_stamp == stamp
        {
            return Ok(cached.clone());
        }
        let read = bank.read(name)?;
        let entry = Arc::new(CachedRead {
            read,
            http_body: std::sync::OnceLock::new(),
        });
        // The stamp taken before the read: if the file changed in between, the next
        // request sees a different stamp and reads again.
        if let Some(stamp) = stamp {
            let mut reads = self.reads.write();
            if reads.len() >= CACHED_FILES {
                reads.clear();
            }
            reads.insert(path, (stamp, entry.clone()));
        }
        Ok(entry)
    }

    /// Refuses a write when the server is read-only.
    pub fn writable(&self) -> AgentResult<()> {
        if self.options.read_only {
            Err(AgentError::ReadOnly)
        } else {
            Ok(())
        }
    }

    /// Whether `mode` is one of `read_only_modes` (names compared without case).
    pub(crate) fn is_read_only_mode(&self, mode: &str) -> bool {
        self.options
            .read_only_modes
            .iter()
            .any(|m| m.trim().eq_ignore_ascii_case(mode.trim()))
    }

    /// The memory bank of a project folder, opened once and kept while its folder exists.
    pub fn bank(&self, project_dir: &Path) -> AgentResult<Arc<MarkdownBank>> {
        if let Some(bank) = self.banks.read().get(project_dir)
            && bank.root.is_dir()
        {
            return Ok(bank.clone());
        }
        let store = self
            .options
            .staging
            .store_for(&self.root.name_of(project_dir))
            .cloned();
        let bank = Arc::new(MarkdownBank::open(project_dir)?.with_staging(store));
        self.banks
            .write()
            .insert(project_dir.to_path_buf(), bank.clone());
        Ok(bank)
    }

    /// Forgets what is known about a project (after `initialize_memory_bank`).
    pub fn forget(&self, project_dir: &Path) {
        self.banks.write().remove(project_dir);
        self.default_project.lock().take();
    }

    /// The project a request without one means: the root when it holds a memory bank,
    /// else the only project with one under it.
    pub(crate) fn default_project(&self) -> AgentResult<PathBuf> {
        self.default_project_for(false)
    }

    /// [`Shared::default_project`], telling a request that stands alone (`stateless`) how
    /// to name a project when the root holds several.
    pub(crate) fn default_project_for(&self, stateless: bool) -> AgentResult<PathBuf> {
        if let Some(dir) = self.default_project.lock().as_ref()
            && dir.join(mbank_core::formats::cline::BANK_DIR).is_dir()
        {
            return Ok(dir.clone());
        }
        let chosen = if MarkdownBank::open(&self.root.real).is_ok() {
            self.root.real.clone()
        } else {
            let projects = self.root.memory_bank_projects();
            match projects.as_slice() {
                [one] => fs_real(&one.path),
                [] => {
                    return Err(AgentError::NotInitialized {
                        project: self.root.path.clone(),
                    });
                }
                many => {
                    let names: Vec<String> = many
                        .iter()
                        .take(10)
                        .map(|p| self.root.name_of(&fs_real(&p.path)))
                        .collect();
                    let how = if stateless {
                        STATELESS_PROJECT_HINT
                    } else {
                        "name one (over MCP with set_memory_bank_path or a tool's projectPath; \
                         over the REST API with ?project=NAME)"
                    };
                    return Err(AgentError::InvalidRequest(format!(
                        "{} projects are under the root ({}{}): {how}",
                        many.len(),
                        names.join(", "),
                        if many.len() > names.len() {
                            ", …"
                        } else {
                            ""
                        }
                    )));
                }
            }
        };
        *self.default_project.lock() = Some(chosen.clone());
        Ok(chosen)
    }

    /// The project `spec` names (must exist), or the default one.
    pub fn project(&self, spec: Option<&str>) -> AgentResult<PathBuf> {
        match spec {
            Some(spec) => self.root.existing_project_dir(spec),
            None => self.default_project(),
        }
    }

    /// The project a tool call of `session` names (must exist), else the default one,
    /// with the hint that fits the session when there is none.
    pub(crate) fn project_in(&self, session: &Session, spec: Option<&str>) -> AgentResult<PathBuf> {
        match spec {
            Some(spec) => self.root.existing_project_dir(spec),
            None => self.default_project_for(session.stateless),
        }
    }

    /// The context of a write `caller` asks for: its writer and client, this server's
    /// history, guard and clock. (Whether it is staged is the bank's, [`Shared::bank`].)
    pub fn write_context(&self, caller: &Caller) -> WriteContext {
        WriteContext::new(caller.via.clone(), self.options.clock)
            .with_client(caller.client.clone())
            .with_history(self.options.history.clone())
            .with_guard(self.guard.clone())
    }

    /// Appends a refused write to the refusal log (failures to log go to stderr, never
    /// to the agent: the refusal itself is what it must see).
    pub(crate) fn log_refusal(
        &self,
        ctx: &WriteContext,
        project: &Path,
        file: &str,
        error: &AgentError,
    ) {
        let Some(rule) = error.refusal_rule() else {
            return;
        };
        // A refused name holds the secret: log what was named instead.
        let file = match error {
            AgentError::Refused(refusal) if refusal.withholds_name() => refusal.file(),
            _ => file,
        };
        self.log_refusal_rule(ctx, project, file, rule, &error.to_string());
    }

    pub(crate) fn log_refusal_rule(
        &self,
        ctx: &WriteContext,
        project: &Path,
        file: &str,
        rule: &str,
        message: &str,
    ) {
        if !self.options.log_refusals {
            return;
        }
        // The writer is the tool or route, the client the one the session serves.
        let record = RefusalRecord {
            client: ctx.client.clone(),
            ..RefusalRecord::at(&ctx.clock, project, file, rule, message, &ctx.writer)
        };
        if let Err(e) = refusals::append(&record) {
            let message = mbank_core::markup::sanitize::line(&e.to_string()).into_owned();
            let _ = writeln!(
                std::io::stderr().lock(),
                "mbank: cannot log a refused write: {message}"
            );
        }
    }
}

fn fs_real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The modes a project declares in its rule files (`.clinerules-*`, `.roomodes`,
/// `.roorules-*`, `.roo/rules-*`), else the five of the Memory Bank MCP spec.
pub(crate) fn modes_of(project_dir: &Path) -> Vec<String> {
    let mut modes: Vec<String> = Vec::new();
    if let Some(project) = mbank_core::scan::discovery::project_at(project_dir, String::new()) {
        for location in project
            .banks
            .iter()
            .filter(|b| mbank_core::formats::rules(b.format).holds_mode_rules())
        {
            let bank = mbank_core::scan::bank::list_bank(&project, location);
            let (rules, _) = mbank_core::formats::roo_rules::modes::modes_of_bank(&bank);
            for rule in rules {
                if !modes.contains(&rule.mode) {
                    modes.push(rule.mode);
                }
            }
        }
    }
    if modes.is_empty() {
        modes = DEFAULT_MODES.iter().map(|m| m.to_string()).collect();
    }
    modes
}

/// the Memory Bank MCP spec's modes, for banks without rule files.
pub(crate) const DEFAULT_MODES: [&str; 5] = ["architect", "code", "ask", "debug", "test"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surfaces_parse() {
        assert_eq!(Surfaces::parse(&["all"]).unwrap(), Surfaces::default());
        let s = Surfaces::parse(&["cline, infinity"]).unwrap();
        assert!(s.cline && s.infinity && !s.memory_bank_mcp);
        assert!(
            Surfaces::parse(&["cline", "memory-bank-mcp"])
                .unwrap()
                .memory_bank_mcp
        );
        assert!(Surfaces::parse(&["nope"]).is_err());
        assert!(Surfaces::parse::<&str>(&[]).is_err());
    }
}
