//! One module per subcommand: gather with the core, then print text or JSON.
pub mod adr;
pub mod check;
pub mod context;
pub mod history;
pub mod init;
pub mod journal;
pub mod list;
pub mod mcp;
pub mod proposals;
pub mod remember;
pub mod review;
pub mod search;
pub mod serve;
pub mod timeline;
pub mod tokens;
