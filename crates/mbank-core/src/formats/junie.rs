//! JetBrains Junie's guidelines: `.junie/guidelines.md` at the project's root, which
//! Junie adds to every task ("Guidelines", jetbrains.com/help/junie/customize-guidelines.html;
//! "Project Settings", jetbrains.com/help/junie/project-settings.html). Another file (an
//! AGENTS.md) is read only when the IDE's Guidelines path setting names it, which mbank
//! cannot see. Junie documents no size limit, so no budget applies.
use std::path::Path;

use super::{FormatRules, Placement, ProjectPaths};
use crate::model::{Format, LoadKind, Role};

/// The guidelines file Junie reads by default.
pub(crate) const GUIDELINES: &str = ".junie/guidelines.md";
const PATHS: ProjectPaths = ProjectPaths {
    files: &[GUIDELINES],
    folders: &[],
    lookalikes: &[],
};

pub(crate) struct Junie;

impl FormatRules for Junie {
    fn format(&self) -> Format {
        Format::Junie
    }

    fn place(&self, rel: &Path) -> Placement {
        let (role, layer, load) = if rel == Path::new(GUIDELINES) {
            (Role::Instructions, Some(1), LoadKind::Startup)
        } else {
            (Role::Other, None, LoadKind::Never)
        };
        Placement {
            role,
            layer,
            group: None,
            load,
        }
    }

    fn keeps(&self, rel: &Path) -> bool {
        PATHS.contains(rel)
    }

    fn project_paths(&self) -> ProjectPaths {
        PATHS
    }
}
