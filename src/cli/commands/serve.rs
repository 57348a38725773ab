//! `mbank serve [--listen ADDR]`: the Memory Bank MCP spec's REST API and the MCP tools over Streamable
//! HTTP at `/mcp`, every write through the same guarded path as `mbank mcp`.
use std::net::{SocketAddr, ToSocketAddrs};

use color_eyre::eyre::{Result, WrapErr, eyre};

use crate::cli::Context;
use crate::cli::args::ServeArgs;
use crate::serve::Shared;
use crate::serve::http::{self, HttpOptions};

/// The default address: loopback only.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:3000";

fn address(text: &str) -> Result<SocketAddr> {
    text.to_socket_addrs()
        .wrap_err_with(|| format!("cannot use {text:?} as an address to listen on"))?
        .next()
        .ok_or_else(|| eyre!("{text:?} names no address to listen on"))
}

pub fn run(context: &Context, listen: Option<&str>, args: &ServeArgs) -> Result<u8> {
    let config = &context.config.serve;
    let listen = address(
        listen
            .or(config.listen.as_deref())
            .unwrap_or(DEFAULT_LISTEN),
    )?;
    let env_key = std::env::var("MBANK_API_KEY").ok();
    let http_options = HttpOptions::new(listen, config, env_key).map_err(|e| eyre!(e))?;
    if config.chat.is_some() && !cfg!(feature = "chat") {
        crate::cli::style::eprintln(format!(
            "mbank serve: [serve.chat] is set, but {}",
            crate::serve::chat::NOT_BUILT_IN
        ));
    }
    let options = super::mcp::options(context, args)?;
    let shared = Shared::new(options).map_err(|e| eyre!("{e}"))?;
    http::run(shared, http_options).wrap_err_with(|| format!("mbank serve on {listen}"))?;
    Ok(0)
}
