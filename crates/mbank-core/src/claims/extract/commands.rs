//! Commands a memory says to run, in a code span (`npm run lint`) or in a block of shell
//! commands: the scripts and targets they name, and the files they hand to an interpreter.
use std::sync::LazyLock;

use regex::Regex;

use super::{Claim, ClaimKind, Runner, path_candidate};

pub(super) static PACKAGE_RUN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(npm|pnpm|yarn|bun) run ([A-Za-z0-9][A-Za-z0-9:_.-]*)").expect("static regex")
});
static PYTHON_RUN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(poetry|uv|pdm) run ([A-Za-z0-9][A-Za-z0-9_.-]*)").expect("static regex")
});
static TOOL_COMMAND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(make|just|cargo) ([A-Za-z0-9][A-Za-z0-9_.:-]*)(\s|$)").expect("static regex")
});
/// A file handed to an interpreter (`python scripts/seed.py`, `node -r dotenv/config x.js`,
/// `./scripts/deploy.sh`), its options before it.
static INTERPRETED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:sudo\s+)?(?:(?:python3?|node|bash|sh|zsh|ruby|perl|php|bun|tsx|ts-node|deno\s+run)(?P<options>(?:\s+-\S+)*)\s+(?P<file>[^\s-]\S*)|(?P<direct>\./\S+))",
    )
    .expect("static regex")
});

/// The info strings that mark a block of shell commands.
const SHELL_LANGUAGES: &[&str] = &[
    "bash",
    "sh",
    "shell",
    "zsh",
    "fish",
    "ksh",
    "console",
    "terminal",
    "shell-session",
    "shellsession",
];

/// Extensions of the files an interpreter is handed.
const SCRIPT_EXTENSIONS: &[&str] = &[
    "py", "sh", "bash", "zsh", "js", "mjs", "cjs", "ts", "mts", "rb", "pl", "php",
];

/// A script run by a command in a code span.
pub(super) fn script_claim(code: &str) -> Option<(ClaimKind, String)> {
    let code = code.trim();
    // `TOOL run NAME`: the script NAME of the runner's manifest.
    let run = |runner: Runner, captures: regex::Captures<'_>| {
        let tool = captures.get(1)?.as_str();
        let name = captures.get(2)?.as_str();
        Some((
            ClaimKind::Script {
                runner,
                command: format!("{tool} run {name}"),
            },
            name.to_string(),
        ))
    };
    if let Some(captures) = PACKAGE_RUN.captures(code)
        && captures.get(0).is_some_and(|m| m.start() == 0)
    {
        return run(Runner::Package, captures);
    }
    if let Some(captures) = PYTHON_RUN.captures(code) {
        return run(Runner::Python, captures);
    }
    if let Some(captures) = TOOL_COMMAND.captures(code) {
        let tool = captures.get(1)?.as_str();
        let name = captures.get(2)?.as_str();
        // `make VAR=x` and paths are not targets.
        if name.contains('=') || name.contains('/') {
            return None;
        }
        let runner = match tool {
            "make" => Runner::Make,
            "just" => Runner::Just,
            _ => Runner::Cargo,
        };
        return Some((
            ClaimKind::Script {
                runner,
                command: format!("{tool} {name}"),
            },
            name.to_string(),
        ));
    }
    None
}

/// The claims of the commands in `text`'s shell blocks (```` ```bash ````): scripts and
/// targets as in a code span, and files handed to an interpreter. A block stops counting
/// where it changes folder (`cd web && …`: its paths are then another folder's) or starts
/// a here-document (what follows is text, not commands).
/// `lines` are the text's and `blocks` its code blocks' line ranges (1-based, inclusive).
pub(super) fn shell_claims(lines: &[&str], blocks: &[(usize, usize)]) -> Vec<Claim> {
    let mut out = Vec::new();
    for &(start, end) in blocks {
        let Some(fence) = lines.get(start - 1) else {
            continue;
        };
        let info = fence.trim_start().trim_start_matches(['`', '~']).trim();
        let language = info
            .split(|c: char| c.is_whitespace() || matches!(c, '{' | ',' | '}'))
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if !SHELL_LANGUAGES.contains(&language.as_str()) {
            continue;
        }
        'block: for number in start + 1..end {
            let Some(line) = lines.get(number - 1) else {
                break;
            };
            let command = without_prompt_and_comment(line);
            if command.is_empty() {
                continue;
            }
            if command.contains("<<") {
                break;
            }
            for segment in command.split(['&', '|', ';']) {
                let segment = segment.trim();
                if ["cd", "pushd"]
                    .iter()
                    .any(|verb| segment == *verb || segment.starts_with(&format!("{verb} ")))
                {
                    break 'block;
                }
                if let Some((kind, text)) = script_claim(segment) {
                    out.push(Claim {
                        kind,
                        text,
                        line: number,
                        drawing: None,
                    });
                } else if let Some(file) = interpreted_file(segment) {
                    out.push(Claim {
                        kind: ClaimKind::Path,
                        text: file,
                        line: number,
                        drawing: None,
                    });
                }
            }
        }
    }
    out
}

/// A command line without its prompt (`$ `) and its trailing comment; empty for a
/// comment line.
fn without_prompt_and_comment(line: &str) -> &str {
    let line = line.trim();
    let line = line
        .strip_prefix("$ ")
        .or_else(|| line.strip_prefix("% "))
        .unwrap_or(line)
        .trim_start();
    if line.starts_with('#') {
        return "";
    }
    match line.find(" #") {
        Some(at) => line[..at].trim_end(),
        None => line,
    }
}

/// The file a command hands to an interpreter, when it is a script of this project by
/// its extension (`python -m pkg` and `node -e '…'` run no file).
fn interpreted_file(command: &str) -> Option<String> {
    let captures = INTERPRETED.captures(command)?;
    if captures.name("options").is_some_and(|options| {
        options
            .as_str()
            .split_whitespace()
            .any(|o| matches!(o, "-m" | "-c" | "-e" | "--eval" | "-p" | "--print"))
    }) {
        return None;
    }
    let file = captures
        .name("file")
        .or_else(|| captures.name("direct"))?
        .as_str()
        .trim_matches(['"', '\'']);
    let extension = file.rsplit_once('.')?.1;
    if !SCRIPT_EXTENSIONS.contains(&extension) {
        return None;
    }
    path_candidate(file, true)
}
