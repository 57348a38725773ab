//! `mbank init PATH [--format cline|conkeeper] [--brief TEXT]`: PATH found like every
//! command's (here, else under the root), created here when it is in neither place.
use std::path::Path;

use color_eyre::eyre::{Result, WrapErr};

use crate::cli::Context;
use crate::cli::args::InitFormatArg;
use crate::cli::style::{line, println};
use crate::core::init::{self, InitFormat as CoreFormat};

pub fn run(
    context: &Context,
    path: &Path,
    format: InitFormatArg,
    brief: Option<&str>,
) -> Result<u8> {
    let format = match format {
        InitFormatArg::Cline => CoreFormat::Cline,
        InitFormatArg::Conkeeper => CoreFormat::ConKeeper,
    };
    // NAME as every command reads a PATH: ./NAME when it exists, else ROOT/NAME when
    // that exists; a NAME found in neither place is created here, as ./NAME.
    let located = context.resolve(path);
    let path = located.as_path();
    std::fs::create_dir_all(path).wrap_err_with(|| format!("cannot create {}", path.display()))?;
    let report = init::init_bank(path, format, brief)?;
    let style = &context.style;
    println(line![style.bold("Memory bank:"), " ", &report.bank]);
    for name in &report.created {
        println(line!["  ", style.green("created"), " ", name]);
    }
    for name in &report.kept {
        println(line![
            "  ",
            style.yellow("kept   "),
            " ",
            name,
            " (already there, left untouched)"
        ]);
    }
    Ok(0)
}
