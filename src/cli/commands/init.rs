//! `mbank init PATH [--format cline|roo|kilo-code|conkeeper] [--brief TEXT] [--yes]`: PATH
//! found like every command's (here, else under the root), created here when it is in
//! neither place.
use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use color_eyre::eyre::{Result, WrapErr};

use crate::cli::Context;
use crate::cli::args::InitFormatArg;
use crate::cli::style::{eprintln, line, println};
use crate::core::init::{
    self, InitError, InitFormat as CoreFormat, InitOptions, InstructionsConsent, InstructionsDone,
};

/// What the command line says about the agent's instructions.
#[derive(Debug, Clone, Copy)]
pub struct Instructions {
    /// Change an existing instruction file without asking.
    pub yes: bool,
    /// Install none.
    pub skip: bool,
}

pub fn core_format(format: InitFormatArg) -> CoreFormat {
    match format {
        InitFormatArg::Cline => CoreFormat::Cline,
        InitFormatArg::Roo => CoreFormat::Roo,
        InitFormatArg::KiloCode => CoreFormat::KiloCode,
        InitFormatArg::Conkeeper => CoreFormat::ConKeeper,
    }
}

/// Why an existing instruction file was left alone, for the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NotAsked {
    /// Nobody to ask: no terminal and no --yes.
    NoTerminal,
    /// The person said no.
    Declined,
}

pub fn run(
    context: &Context,
    path: &Path,
    format: InitFormatArg,
    brief: Option<&str>,
    instructions: Instructions,
) -> Result<u8> {
    let format = core_format(format);
    // NAME as every command reads a PATH: ./NAME when it exists, else ROOT/NAME when
    // that exists; a NAME found in neither place is created here, as ./NAME.
    let located = context.resolve(path);
    let path = located.as_path();
    std::fs::create_dir_all(path).wrap_err_with(|| format!("cannot create {}", path.display()))?;
    let mut not_asked = None;
    let consent = if instructions.skip {
        InstructionsConsent::Skip
    } else if instructions.yes {
        InstructionsConsent::MayChange
    } else {
        let plan = init::instructions_plan(path, format);
        if !plan.exists || plan.installed {
            InstructionsConsent::NewFileOnly
        } else if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
            if ask(&format!(
                "{} exists. Add the {} instructions at its end? [y/N] ",
                plan.file,
                format.label()
            )) {
                InstructionsConsent::MayChange
            } else {
                not_asked = Some(NotAsked::Declined);
                InstructionsConsent::NewFileOnly
            }
        } else {
            not_asked = Some(NotAsked::NoTerminal);
            InstructionsConsent::NewFileOnly
        }
    };
    let options = InitOptions {
        format,
        brief: brief.map(str::to_string),
        instructions: consent,
        today: context.clock.today(),
    };
    let ctx = context.write_context("init");
    let report = match init::init_project(path, &options, &ctx) {
        Ok(report) => report,
        Err(InitError::OtherBank(other)) => {
            let complete = match format_for(other.format) {
                Some(id) => format!("complete it with `mbank init --format {id}`"),
                None => "complete it with the agent that keeps it".to_string(),
            };
            eprintln(format!(
                "mbank: {} already has a memory bank ({}) in {}: mbank init makes no second bank beside it; \
                 {complete}, or remove it first",
                path.display(),
                other.format.label(),
                other.folder,
            ));
            return Ok(2);
        }
        Err(InitError::Core(e)) => return Err(e.into()),
    };
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
    if report.stack_from.is_empty() {
        println(line![
            "  ",
            style.dim("stack  "),
            " no manifest found: the tech file keeps its placeholders"
        ]);
    } else {
        println(line![
            "  ",
            style.green("stack  "),
            " read from ",
            report.stack_from.join(", ")
        ]);
    }
    for problem in &report.stack_problems {
        println(line!["  ", style.yellow("skipped"), " ", problem]);
    }
    match &report.instructions {
        None => {}
        Some(InstructionsDone::Created(file)) => println(line![
            "  ",
            style.green("created"),
            " ",
            file,
            " (the agent's instructions for the bank)"
        ]),
        Some(InstructionsDone::Added(file)) => println(line![
            "  ",
            style.green("added  "),
            " the agent's instructions for the bank at the end of ",
            file
        ]),
        Some(InstructionsDone::AlreadyThere(file)) => println(line![
            "  ",
            style.yellow("kept   "),
            " ",
            file,
            " (holds the instructions for the bank already)"
        ]),
        Some(InstructionsDone::LeftAlone(file)) => {
            let why = match not_asked {
                Some(NotAsked::Declined) => "as you said".to_string(),
                _ => "no terminal to ask; run again with --yes to add the instructions".to_string(),
            };
            println(line![
                "  ",
                style.yellow("left   "),
                " ",
                file,
                " as it was (",
                why,
                ")"
            ]);
        }
    }
    Ok(0)
}

/// The `--format` that completes a bank of `format`, when init makes that kind.
fn format_for(format: crate::core::model::Format) -> Option<&'static str> {
    CoreFormat::ALL
        .iter()
        .find(|f| f.format() == format)
        .map(|f| f.id())
}

/// Asks a yes/no question on the terminal; anything but y or yes is no.
fn ask(question: &str) -> bool {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(question.as_bytes());
    let _ = stderr.flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim().to_lowercase().as_str(), "y" | "yes")
}
