//! What `mbank init` needs to know of each format it can create: the bank's folder and
//! files in read order ([`InitFormat`]), which formats are memory banks, the bank to offer
//! a project without one, the first content of the files (`render`) and the agent's
//! instructions ([`instructions`]).
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::model::Format;

pub mod brief;
pub mod instructions;
pub(crate) mod render;
pub mod stack;

/// The memory formats `mbank init` can create.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum InitFormat {
    Cline,
    /// Cline's bank, with the instructions where Roo Code reads its rules.
    Roo,
    KiloCode,
    #[serde(rename = "conkeeper")]
    ConKeeper,
}

/// ConKeeper footers carry a date; init writes the day the bank was made.
const DATE_PLACEHOLDER: &str = "YYYY-MM-DD";

impl InitFormat {
    pub const ALL: [InitFormat; 4] = [
        InitFormat::Cline,
        InitFormat::Roo,
        InitFormat::KiloCode,
        InitFormat::ConKeeper,
    ];

    pub fn format(self) -> Format {
        match self {
            InitFormat::Cline | InitFormat::Roo => Format::Cline,
            InitFormat::KiloCode => Format::KiloCode,
            InitFormat::ConKeeper => Format::ConKeeper,
        }
    }

    /// The name `--format` takes.
    pub fn id(self) -> &'static str {
        match self {
            InitFormat::Cline => "cline",
            InitFormat::Roo => "roo",
            InitFormat::KiloCode => "kilo-code",
            InitFormat::ConKeeper => "conkeeper",
        }
    }

    /// What a person calls the bank.
    pub fn label(self) -> &'static str {
        match self {
            InitFormat::Cline => "Cline memory bank",
            InitFormat::Roo => "Roo Code memory bank",
            InitFormat::KiloCode => "Kilo Code memory bank",
            InitFormat::ConKeeper => "ConKeeper memory",
        }
    }

    /// The bank folder, relative to the project.
    pub fn bank_dir(self) -> &'static str {
        match self {
            InitFormat::Cline | InitFormat::Roo => super::cline::BANK_DIR,
            InitFormat::KiloCode => super::kilo_code::MEMORY_BANK_DIR,
            InitFormat::ConKeeper => super::conkeeper::BANK_DIR,
        }
    }

    /// Sub-folders of the bank that exist even when empty.
    pub(crate) fn folders(self) -> &'static [&'static str] {
        match self {
            InitFormat::ConKeeper => &super::conkeeper::FOLDERS,
            _ => &[],
        }
    }

    /// The bank's files in read order, with their templates.
    pub(crate) fn templates(self) -> &'static [(&'static str, &'static str)] {
        match self {
            InitFormat::Cline | InitFormat::Roo => &super::cline::TEMPLATES,
            InitFormat::KiloCode => &super::kilo_code::TEMPLATES,
            InitFormat::ConKeeper => &super::conkeeper::TEMPLATES,
        }
    }

    /// The first content of the bank's file `name` from its `template`.
    pub(crate) fn first_content(
        self,
        name: &str,
        template: &str,
        fill: &render::Fill<'_>,
    ) -> String {
        match self {
            InitFormat::Cline | InitFormat::Roo => render::cline(name, template, fill),
            InitFormat::KiloCode => render::kilo(name, template, fill),
            InitFormat::ConKeeper => {
                render::conkeeper(name, &template.replace(DATE_PLACEHOLDER, fill.date), fill)
            }
        }
    }

    /// Whether an existing bank of `format` in `folder` (relative to the project) is the
    /// one this format would create, so init completes it.
    pub(crate) fn is_same_bank(self, format: Format, folder: &str) -> bool {
        match self {
            InitFormat::Cline | InitFormat::Roo => {
                matches!(format, Format::Cline | Format::MemoryBankMcp)
                    && folder
                        .trim_end_matches('/')
                        .ends_with(super::cline::BANK_DIR)
            }
            InitFormat::KiloCode => format == Format::KiloCode,
            InitFormat::ConKeeper => format == Format::ConKeeper,
        }
    }
}

/// Whether a format is a memory bank (files an agent keeps about the project), as
/// opposed to instructions or rules a person writes for it. Kilo Code's rules hold a
/// memory bank only in their memory-bank folder ([`bank_folder`]).
pub(crate) fn is_memory_bank(format: Format) -> bool {
    matches!(
        format,
        Format::Cline | Format::MemoryBankMcp | Format::ConKeeper | Format::Infinity
    )
}

/// The folder of the memory bank a bank of `format` at `root` in `project` keeps, when the
/// format is a memory bank.
pub(crate) fn bank_folder(format: Format, root: &Path, project: &Path) -> Option<PathBuf> {
    if is_memory_bank(format) {
        Some(root.to_path_buf())
    } else if format == Format::KiloCode {
        Some(project.join(super::kilo_code::MEMORY_BANK_DIR))
    } else {
        None
    }
}

/// The bank to offer a project without one: the kind its agent's own files point to
/// (Kilo Code's, Roo Code's or Claude Code's folder), else Cline's.
pub fn suggested_format(project: &Path) -> InitFormat {
    if project.join(".kilocode").is_dir() {
        InitFormat::KiloCode
    } else if project.join(".roo").is_dir() || project.join(".roomodes").is_file() {
        InitFormat::Roo
    } else if project.join(".claude").is_dir() || project.join("CLAUDE.md").is_file() {
        InitFormat::ConKeeper
    } else {
        InitFormat::Cline
    }
}
