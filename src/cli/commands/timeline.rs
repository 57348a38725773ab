//! `mbank timeline [PATH]`: decisions in date order (filled in when the decision parser lands).
use std::path::Path;

use color_eyre::eyre::Result;

use crate::cli::Context;

pub fn run(context: &Context, path: Option<&Path>, as_json: bool) -> Result<u8> {
    let _ = (context, path, as_json);
    Err(color_eyre::eyre::eyre!(
        "timeline is not available in this build"
    ))
}
