//! Writes the man pages, `mbank.1` and one per subcommand (`mbank-list.1`, …), from the
//! command line's own definitions, so they say what `--help` says:
//!
//!     cargo run --example man [OUT_DIR]    (default: docs/man)
//!
//! The `man_pages` integration test fails while the committed pages differ from these.
use std::path::PathBuf;

use clap::CommandFactory;

fn main() -> std::io::Result<()> {
    let out = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/man"));
    std::fs::create_dir_all(&out)?;
    clap_mangen::generate_to(mbank::cli::Cli::command(), &out)?;
    println!("man pages written to {}", out.display());
    Ok(())
}
