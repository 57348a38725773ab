//! `mbank remember TEXT [--global] [PATH]`: Beans-Code's `/memory add`, a fact appended
//! under `## Auto-saved Memories` of the project's `BEANS.md` (or, with `--global`, of
//! `~/.beans/BEANS.md`), through the guard like an agent's `save_memory`; the file's
//! path is printed.
use std::path::Path;

use color_eyre::eyre::Result;

use crate::cli::Context;
use crate::cli::style::{eprintln, println};
use crate::core::agent::AgentError;
use crate::core::agent::saved_memory::{self, SavedScope};

pub fn run(context: &Context, fact: &str, global: bool, path: &Path) -> Result<u8> {
    let (scope, folder) = if global {
        let Some(home) = crate::core::io::paths::home_dir() else {
            eprintln("mbank: no home folder is known (HOME is not set)");
            return Ok(2);
        };
        (SavedScope::Global, home)
    } else {
        let project = context.resolve(path);
        if !project.is_dir() {
            eprintln(format!("mbank: {} is not a folder", project.display()));
            return Ok(2);
        }
        (SavedScope::Project, project)
    };
    let file = match scope {
        SavedScope::Global => saved_memory::global_file(&folder),
        SavedScope::Project => saved_memory::project_file(&folder),
    };
    let ctx = context.write_context("remember");
    match saved_memory::save(&ctx, scope, &file, &folder, fact, None) {
        Ok(report) => {
            println(report.path.display().to_string());
            Ok(0)
        }
        Err(AgentError::Core(e)) => Err(e.into()),
        Err(e) => {
            eprintln(format!("mbank: {e}"));
            Ok(2)
        }
    }
}
