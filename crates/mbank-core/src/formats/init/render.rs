//! The first content of a new bank's files: each format's template, with the sections
//! the brief and the project's manifests can answer filled in and the rest left as
//! placeholders for the person (or the agent) to complete.
use super::brief::Brief;
use super::stack::{Stack, shown};

/// How many runtime dependencies a file lists before it counts the rest: a bank file is
/// read in full at every session start, so it names the main ones only.
const RUNTIME_SHOWN: usize = 20;
const DEVELOPMENT_SHOWN: usize = 12;
const COMMANDS_SHOWN: usize = 15;
/// ConKeeper's product context carries the stack in one short section.
const COMPACT_SHOWN: usize = 8;

/// What a new bank is filled from.
pub(crate) struct Fill<'a> {
    pub project_name: &'a str,
    pub brief: Option<&'a Brief>,
    pub stack: &'a Stack,
    /// `YYYY-MM-DD`.
    pub date: &'a str,
}

/// `text` with the body of the section headed exactly `heading` (up to the next heading)
/// replaced by `body`; unchanged when there is no such heading or `body` is empty.
pub(crate) fn set_section(text: &str, heading: &str, body: &[String]) -> String {
    if body.is_empty() {
        return text.to_string();
    }
    let lines: Vec<&str> = text.lines().collect();
    let Some(start) = lines.iter().position(|l| l.trim_end() == heading) else {
        return text.to_string();
    };
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with('#') || *l == "---")
        .map(|i| start + 1 + i)
        .unwrap_or(lines.len());
    let mut out: Vec<String> = lines[..=start].iter().map(|l| l.to_string()).collect();
    out.extend(body.iter().cloned());
    if end < lines.len() {
        out.push(String::new());
    }
    out.extend(lines[end..].iter().map(|l| l.to_string()));
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

/// `text` with the heading line `from` renamed `to`.
fn rename_heading(text: &str, from: &str, to: &str) -> String {
    text.lines()
        .map(|l| if l.trim_end() == from { to } else { l })
        .collect::<Vec<_>>()
        .join("\n")
        + if text.ends_with('\n') { "\n" } else { "" }
}

/// `text` without the section headed `heading` (heading and body).
fn remove_section(text: &str, heading: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let Some(start) = lines.iter().position(|l| l.trim_end() == heading) else {
        return text.to_string();
    };
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with('#'))
        .map(|i| start + 1 + i)
        .unwrap_or(lines.len());
    let mut out: Vec<&str> = lines[..start].to_vec();
    out.extend(&lines[end..]);
    out.join("\n") + if text.ends_with('\n') { "\n" } else { "" }
}

fn bullets(items: &[String]) -> Vec<String> {
    items.iter().map(|i| format!("- {i}")).collect()
}

fn todo(items: &[String]) -> Vec<String> {
    items.iter().map(|i| format!("- [ ] {i}")).collect()
}

fn languages(stack: &Stack) -> Vec<String> {
    stack
        .languages
        .iter()
        .map(|(language, source)| format!("- {language} ({source})"))
        .collect()
}

fn dependencies(deps: &[super::stack::Dependency], limit: usize) -> Vec<String> {
    let (shown, left) = shown(deps, limit);
    let mut lines: Vec<String> = shown
        .iter()
        .map(|d| match &d.version {
            Some(version) => format!("- {} {version} ({})", d.name, d.source),
            None => format!("- {} ({})", d.name, d.source),
        })
        .collect();
    for (source, count) in left {
        lines.push(format!("- and {count} more in {source}"));
    }
    lines
}

fn commands(stack: &Stack) -> Vec<String> {
    let mut lines: Vec<String> = stack
        .commands
        .iter()
        .take(COMMANDS_SHOWN)
        .map(|c| match &c.does {
            Some(does) => format!("- **{}**: `{}` — {}", c.name, c.run, does.replace('`', "'")),
            None => format!("- **{}**: `{}`", c.name, c.run),
        })
        .collect();
    if stack.commands.len() > COMMANDS_SHOWN {
        lines.push(format!(
            "- and {} more in the manifests",
            stack.commands.len() - COMMANDS_SHOWN
        ));
    }
    lines
}

fn toolchain(stack: &Stack) -> Vec<String> {
    stack
        .toolchain
        .iter()
        .map(|(pin, source)| format!("- {pin} ({source})"))
        .collect()
}

fn layout(stack: &Stack) -> Vec<String> {
    stack
        .layout
        .iter()
        .map(|(part, source)| format!("- {part} ({source})"))
        .collect()
}

fn tools(stack: &Stack) -> Vec<String> {
    let mut by_source: Vec<(String, Vec<String>)> = Vec::new();
    for (tool, source) in &stack.tools {
        match by_source.iter_mut().find(|(s, _)| s == source) {
            Some((_, list)) => list.push(tool.clone()),
            None => by_source.push((source.clone(), vec![tool.clone()])),
        }
    }
    by_source
        .into_iter()
        .map(|(source, list)| format!("- configured in {source}: {}", list.join(", ")))
        .collect()
}

/// The line saying where the stack came from, under a tech file's title.
fn provenance(fill: &Fill<'_>) -> String {
    format!(
        "<!-- Read from {} by mbank init on {}: check it and say what the main libraries are for. -->",
        fill.stack.sources.join(", "),
        fill.date
    )
}

/// `text` with `line` after its first line (the title).
fn after_title(text: &str, line: &str) -> String {
    match text.split_once('\n') {
        Some((title, rest)) => format!("{title}\n\n{line}\n{rest}"),
        None => format!("{text}\n\n{line}\n"),
    }
}

fn mission(brief: &Brief) -> Vec<String> {
    if brief.mission.is_empty() {
        Vec::new()
    } else {
        vec![brief.mission.clone()]
    }
}

/// A Cline (or Roo) file's first content.
pub(crate) fn cline(name: &str, template: &str, fill: &Fill<'_>) -> String {
    let mut text = template.to_string();
    if let Some(brief) = fill.brief {
        text = match name {
            "projectBrief.md" => {
                let mut t = set_section(&text, "## Mission Statement", &mission(brief));
                t = set_section(&t, "## Problem Statement", &brief.problem);
                t = set_section(&t, "## Core Requirements", &bullets(&brief.requirements));
                t = set_section(&t, "## Key Constraints", &bullets(&brief.constraints));
                t = set_section(&t, "## Success Criteria", &bullets(&brief.success));
                t = set_section(&t, "### In Scope", &bullets(&brief.in_scope));
                set_section(&t, "### Out of Scope", &bullets(&brief.out_of_scope))
            }
            "productContext.md" => {
                let t = set_section(&text, "## Why This Project Exists", &brief.problem);
                let t = set_section(&t, "## Target Users", &bullets(&brief.users));
                let t = set_section(&t, "## User Problems", &bullets(&brief.problem));
                set_section(&t, "## User Experience Goals", &bullets(&brief.goals))
            }
            "progress.md" => set_section(&text, "## Upcoming", &todo(&brief.requirements)),
            _ => text,
        };
    }
    if name == "projectBrief.md" && !fill.project_name.is_empty() {
        text = set_section(&text, "## Project Name", &[fill.project_name.to_string()]);
    }
    let stack = fill.stack;
    if stack.is_empty() {
        return text;
    }
    match name {
        "techContext.md" => {
            let mut t = set_section(&text, "### Languages", &languages(stack));
            if !stack.runtime.is_empty() {
                t = remove_section(&t, "### Frameworks");
                t = rename_heading(&t, "### Key Libraries", "### Frameworks and Key Libraries");
                t = set_section(
                    &t,
                    "### Frameworks and Key Libraries",
                    &dependencies(&stack.runtime, RUNTIME_SHOWN),
                );
            }
            if !stack.development.is_empty() || !stack.tools.is_empty() {
                let mut dev = dependencies(&stack.development, DEVELOPMENT_SHOWN);
                dev.extend(tools(stack));
                t = t.replacen(
                    "\n## Development Environment Setup",
                    &format!(
                        "\n### Development Tools\n{}\n\n## Development Environment Setup",
                        dev.join("\n")
                    ),
                    1,
                );
            }
            t = set_section(&t, "## Build Commands", &commands(stack));
            t = set_section(&t, "## Version Requirements", &toolchain(stack));
            after_title(&t, &provenance(fill))
        }
        "systemPatterns.md" => set_section(&text, "## File Organization", &layout(stack)),
        _ => text,
    }
}

/// A Kilo Code memory-bank file's first content.
pub(crate) fn kilo(name: &str, template: &str, fill: &Fill<'_>) -> String {
    let mut text = template.to_string();
    if name == "brief.md" && !fill.project_name.is_empty() {
        text = set_section(&text, "## Project", &[fill.project_name.to_string()]);
    }
    if let Some(brief) = fill.brief {
        text = match name {
            "brief.md" => {
                let t = set_section(&text, "## Mission", &mission(brief));
                let t = set_section(&t, "## Core Requirements", &bullets(&brief.requirements));
                let mut goals = brief.goals.clone();
                goals.extend(brief.success.iter().cloned());
                let t = set_section(&t, "## Goals", &bullets(&goals));
                let mut scope = bullets(&brief.in_scope);
                scope.extend(brief.out_of_scope.iter().map(|s| format!("- Not: {s}")));
                set_section(&t, "## Scope", &scope)
            }
            "product.md" => {
                let t = set_section(&text, "## Why This Project Exists", &brief.problem);
                let t = set_section(&t, "## Users", &bullets(&brief.users));
                let t = set_section(&t, "## Problems It Solves", &bullets(&brief.problem));
                set_section(&t, "## User Experience Goals", &bullets(&brief.goals))
            }
            "tech.md" => set_section(
                &text,
                "## Technical Constraints",
                &bullets(&brief.constraints),
            ),
            _ => text,
        };
    }
    let stack = fill.stack;
    if stack.is_empty() {
        return text;
    }
    match name {
        "tech.md" => {
            let mut t = set_section(&text, "## Technologies Used", &languages(stack));
            let mut deps = dependencies(&stack.runtime, RUNTIME_SHOWN);
            let dev = dependencies(&stack.development, DEVELOPMENT_SHOWN);
            if !dev.is_empty() {
                deps.push(String::new());
                deps.push("Development only:".to_string());
                deps.extend(dev);
            }
            deps.extend(tools(stack));
            t = set_section(&t, "## Dependencies", &deps);
            t = set_section(&t, "## Commands", &commands(stack));
            t = set_section(&t, "## Toolchain Versions", &toolchain(stack));
            after_title(&t, &provenance(fill))
        }
        "architecture.md" => set_section(&text, "## Source Code Paths", &layout(stack)),
        _ => text,
    }
}

/// A ConKeeper file's first content (the date placeholders already replaced).
pub(crate) fn conkeeper(name: &str, template: &str, fill: &Fill<'_>) -> String {
    let mut text = template.to_string();
    if let Some(brief) = fill.brief {
        text = match name {
            "product-context.md" => {
                let t = set_section(&text, "## Project Overview", &mission(brief));
                let t = set_section(&t, "## Key Stakeholders", &bullets(&brief.users));
                let t = set_section(&t, "## Constraints", &bullets(&brief.constraints));
                set_section(&t, "## Non-Goals", &bullets(&brief.out_of_scope))
            }
            "progress.md" => set_section(&text, "## Backlog", &bullets(&brief.requirements)),
            _ => text,
        };
    }
    let stack = fill.stack;
    if name == "product-context.md" && !stack.is_empty() {
        let mut lines = Vec::new();
        let names = |list: &[(String, String)]| {
            list.iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        lines.push(format!(
            "- Languages: {} (from {})",
            names(&stack.languages),
            stack.sources.join(", ")
        ));
        let (main, left) = shown(&stack.runtime, COMPACT_SHOWN);
        if !main.is_empty() {
            let mut listed: Vec<String> = main
                .iter()
                .map(|d| match &d.version {
                    Some(v) => format!("{} {v}", d.name),
                    None => d.name.clone(),
                })
                .collect();
            let more: usize = left.values().sum();
            if more > 0 {
                listed.push(format!("{more} more"));
            }
            lines.push(format!("- Main dependencies: {}", listed.join(", ")));
        }
        let runs: Vec<String> = stack
            .commands
            .iter()
            .take(COMPACT_SHOWN)
            .map(|c| format!("`{}`", c.run))
            .collect();
        if !runs.is_empty() {
            lines.push(format!("- Commands: {}", runs.join(", ")));
        }
        if !stack.toolchain.is_empty() {
            lines.push(format!("- Toolchain: {}", names(&stack.toolchain)));
        }
        if !stack.layout.is_empty() {
            lines.push(format!("- Parts: {}", names(&stack.layout)));
        }
        text = set_section(&text, "## Architecture", &lines);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_body_is_replaced_up_to_the_next_heading() {
        let text = "# T\n\n## A\n[x]\n\n## B\n[y]\n";
        assert_eq!(
            set_section(text, "## A", &["one".into(), "two".into()]),
            "# T\n\n## A\none\ntwo\n\n## B\n[y]\n"
        );
        assert_eq!(
            set_section(text, "## B", &["z".into()]),
            "# T\n\n## A\n[x]\n\n## B\nz\n"
        );
        assert_eq!(set_section(text, "## C", &["z".into()]), text);
        assert_eq!(set_section(text, "## A", &[]), text);
        assert_eq!(remove_section(text, "## A"), "# T\n\n## B\n[y]\n");
    }
}
