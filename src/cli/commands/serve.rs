//! `mbank serve`: the REST API of Memory Bank MCP and MCP over Streamable HTTP.
use std::path::Path;

use color_eyre::eyre::{Result, eyre};

use crate::cli::Context;

pub fn run(
    context: &Context,
    listen: Option<&str>,
    tools: &[String],
    read_only: bool,
    project: Option<&Path>,
) -> Result<u8> {
    let _ = (context, listen, tools, read_only, project);
    Err(eyre!("mbank serve is not built yet"))
}
