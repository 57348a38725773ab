//! Who writes, for whom, and under which rules: what every write of mbank is given
//! explicitly, so nothing about a write depends on which thread or process makes it.
//! Whether an agent's write is staged as a proposal instead is a property of the bank or
//! Infinity project it writes to (`with_staging`), which sits above this module.
use crate::clock::Clock;
use crate::guard::{Guard, GuardPolicy};
use crate::history::History;

/// Everything a write needs besides its file and its text.
#[derive(Debug, Clone)]
pub struct WriteContext {
    /// Who writes, as the history and the proposals name it: the tool
    /// (`mcp:memory_bank_update`, `http:POST /memory-bank/file`), `tui`, `accept`,
    /// `restore`, `review`.
    pub writer: String,
    /// The agent's client as it named itself (MCP's `clientInfo`), when one is known.
    pub client: Option<String>,
    /// Where the text a write replaces is kept (`None`: nowhere).
    pub history: Option<History>,
    /// The rules an agent's write must pass.
    pub guard: Guard,
    /// What stamps versions, entries, refusals and backups.
    pub clock: Clock,
}

impl WriteContext {
    /// A write by `writer`: no client, no history, the default guard rules with a
    /// clean-text memory of its own.
    pub fn new(writer: impl Into<String>, clock: Clock) -> WriteContext {
        WriteContext {
            writer: writer.into(),
            client: None,
            history: None,
            guard: Guard::new(GuardPolicy::default()),
            clock,
        }
    }

    /// This context with its writes' replaced texts kept in `history` (`None`: not kept).
    pub fn with_history(mut self, history: Option<History>) -> WriteContext {
        self.history = history;
        self
    }

    pub fn with_client(mut self, client: Option<String>) -> WriteContext {
        self.client = client;
        self
    }

    pub fn with_guard(mut self, guard: Guard) -> WriteContext {
        self.guard = guard;
        self
    }

    /// This context with the rules `policy` names (a clean-text memory of its own).
    pub fn with_policy(self, policy: GuardPolicy) -> WriteContext {
        self.with_guard(Guard::new(policy))
    }

    /// The same context for another writer (what `accept` or `restore` does with the
    /// rules a person's session has).
    pub(crate) fn for_writer(&self, writer: impl Into<String>) -> WriteContext {
        WriteContext {
            writer: writer.into(),
            ..self.clone()
        }
    }

    /// Whether an agent writes (a tool of mbank's servers), not a person.
    pub(crate) fn is_agent(&self) -> bool {
        is_agent_writer(&self.writer)
    }

    /// The rules on.
    pub fn policy(&self) -> &GuardPolicy {
        &self.guard.policy
    }

    /// The time now, RFC 3339 to the second in UTC: how stores and refusals stamp.
    pub fn stamp(&self) -> String {
        self.clock
            .utc()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    }
}

/// Whether `writer` (as a write context, a history version or a write note names it) is
/// an agent: a tool of mbank's servers (`mcp:…`, `http:…`), not a person's `tui`,
/// `accept`, `restore`, `revert` or `review`, nor a change found on disk.
pub(crate) fn is_agent_writer(writer: &str) -> bool {
    writer.starts_with("mcp:") || writer.starts_with("http:")
}
