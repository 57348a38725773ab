//! `mbank adr new TITLE [PATH] [--dir DIR]`: the next decision record, its path printed.
use std::path::Path;

use color_eyre::eyre::Result;

use crate::cli::Context;
use crate::cli::style::{eprintln, println};
use crate::core::adr::{self, AdrError};

pub fn new(context: &Context, path: &Path, title: &str, dir: Option<&str>) -> Result<u8> {
    let located = context.resolve(path);
    let project = located.as_path();
    if !project.is_dir() {
        eprintln(format!("mbank: {} is not a folder", project.display()));
        return Ok(2);
    }
    let folder = dir.map(|rel| adr::folder_at(project, rel));
    if let Some(folder) = &folder
        && !project.join(&folder.rel).is_dir()
    {
        eprintln(format!(
            "mbank: {} has no folder {}: create it first",
            project.display(),
            folder.rel
        ));
        return Ok(2);
    }
    let ctx = context.write_context("adr");
    match adr::new_adr(project, folder.as_ref(), title, context.clock.today(), &ctx) {
        Ok(made) => {
            println(made.path.display().to_string());
            Ok(0)
        }
        Err(AdrError::Core(e)) => Err(e.into()),
        Err(e) => {
            eprintln(format!("mbank: {e}"));
            Ok(2)
        }
    }
}
