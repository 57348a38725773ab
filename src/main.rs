//! The `mbank` binary: everything lives in the library; this only parses and dispatches.
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    if let Err(report) = color_eyre::install() {
        eprintln!("mbank: cannot install the error reporter: {report}");
    }
    let cli = mbank::cli::Cli::parse();
    mbank::cli::run(cli)
}
