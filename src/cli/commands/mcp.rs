//! `mbank mcp`: the memory banks as an MCP server on stdin/stdout, for agents to read and
//! write through mbank's guarded write path.
use color_eyre::eyre::{Result, WrapErr, eyre};

use crate::cli::Context;
use crate::cli::args::ServeArgs;
use crate::core::agent::proposals::{ProposalStore, Staging, Writes};
use crate::serve::{self, ServeOptions, Shared, Surfaces};

/// Which projects' writes are staged: `--stage` stages every one; else `[serve] writes`
/// and `[serve.projects.NAME] writes`. Proposals go to mbank's data folder.
fn staging(context: &Context, stage: bool) -> Result<Staging> {
    let config = &context.config.serve;
    let mut staging = Staging {
        writes: if stage { Writes::Stage } else { config.writes },
        projects: Default::default(),
        store: ProposalStore::in_data_dir(context.clock),
    };
    if !stage {
        staging.projects = config
            .projects
            .iter()
            .filter_map(|(name, project)| Some((name.clone(), project.writes?)))
            .collect();
    }
    if staging.any() && staging.store.is_none() {
        return Err(eyre!(
            "staged writes need a data folder to keep proposals in: set MBANK_DATA_DIR"
        ));
    }
    Ok(staging)
}

/// The server options from the command line and `[serve]` of config.toml.
pub fn options(context: &Context, args: &ServeArgs) -> Result<ServeOptions> {
    let (tools, read_only, project) = (&args.tools, args.read_only, args.project.as_deref());
    let serve_config = &context.config.serve;
    let surfaces = if !tools.is_empty() {
        Surfaces::parse(tools).map_err(|e| eyre!(e))?
    } else if let Some(configured) = &serve_config.tools {
        Surfaces::parse(configured).map_err(|e| eyre!("[serve] tools in config: {e}"))?
    } else {
        Surfaces::default()
    };
    let infinity_project = match project {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().wrap_err("cannot read the working folder")?,
    };
    if !infinity_project.is_dir() {
        return Err(eyre!(
            "--project {} is not a folder",
            infinity_project.display()
        ));
    }
    let infinity_project = std::fs::canonicalize(&infinity_project)
        .wrap_err_with(|| format!("cannot resolve {}", infinity_project.display()))?;
    if surfaces.needs_root() {
        crate::core::config::check_root(&context.root, &context.root_source)?;
    }
    Ok(ServeOptions {
        root: context.root.clone(),
        surfaces,
        read_only: read_only || serve_config.read_only,
        read_only_modes: serve_config.read_only_modes.clone(),
        policy: serve_config.guard,
        infinity_project,
        log_refusals: true,
        staging: staging(context, args.stage)?,
        clock: context.clock,
        history: context.history.clone(),
        encoding: context.encoding,
    })
}

pub fn run(context: &Context, args: &ServeArgs) -> Result<u8> {
    let options = options(context, args)?;
    let shared = Shared::new(options).map_err(|e| eyre!("{e}"))?;
    // stdout carries the protocol: anything for people goes to stderr.
    serve::mcp::run_stdio(shared).wrap_err("mbank mcp")?;
    Ok(0)
}
