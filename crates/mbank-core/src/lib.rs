//! The UI-free core. Nothing here imports ratatui or crossterm: every view (CLI, TUI)
//! is computed from these modules and can be tested without a terminal.
//!
//! | folder | what it holds |
//! |---|---|
//! | `formats/` | every memory format: its evidence, files, roles, loads, limits (the only place that knows one) |
//! | `scan/` | finding projects and listing their banks |
//! | `analysis/` | findings, budgets, staleness, decisions, what each agent loads (`context`) |
//! | `tokens/` | token counting and its cache |
//! | `claims/` | what memory says about the code, checked against the repository |
//! | `io/` | files on disk, read and written defensively: folder handles, confinement, locks, capped reads, mbank's own folders |
//! | `cache_store/` | the one on-disk format of mbank's caches (token counts, folder listings, remembered rows, the search index) |
//! | `markup/` | memory text read as markdown: frontmatter, code and prose, headings, the dates in its prose (and which name plans); terminal-safe strings |
//! | `limits/` | limits on every parser run over files found on disk, and the pre-scans that enforce them |
//! | `merge/` | three-way merge of the user's edits and an agent's write, and conflict markers |
//! | `write/` | guarded, atomic saves confined to one bank |
//! | `guard/` | the rules an agent's write must pass, and the log of refused writes |
//! | `agent/` | the operations the servers offer agents, and staged proposals |
//! | `history/` | every version a write replaced, and restoring one |
//! | `review/` | what agents changed since a baseline, and accepting or rejecting it |
//! | `git/` | git facts through the command line, with nothing the repository configures run |
//! | `search/` | search over every project's memory and the home folder's own stores: passages, ranking, the index kept in the cache folder |
//!
//! Beside them: the shared vocabulary (`model`), the clock every judgement of time asks,
//! findings, errors, `config.toml`, edits
//! that change only the edit (`edit`, recorded in the history), `mbank init` and the demo.
pub mod adr;
pub mod agent;
pub mod analysis;
pub mod cache_store;
pub mod claims;
pub mod clock;
pub mod config;
pub mod demo;
pub mod edit;
pub mod error;
pub mod findings;
pub mod formats;
pub mod git;
pub mod guard;
#[cfg(test)]
pub(crate) mod hang_guard;
pub mod history;
pub mod init;
pub mod io;
pub mod journal;
pub mod limits;
pub mod markup;
pub mod merge;
pub mod model;
pub mod review;
pub mod scan;
pub mod search;
pub mod tokens;
pub mod write;
