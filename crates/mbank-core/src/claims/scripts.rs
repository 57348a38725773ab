//! Scripts, targets and recipes a memory says to run, against what the manifests define
//! and what the runners provide themselves.
use std::collections::HashSet;

use super::extract::Runner;
use super::tree::CodeIndex;

/// Cargo's own commands and widely installed subcommands.
const CARGO_COMMANDS: &[&str] = &[
    "add",
    "bench",
    "build",
    "check",
    "clean",
    "clippy",
    "config",
    "doc",
    "fetch",
    "fix",
    "fmt",
    "generate-lockfile",
    "help",
    "info",
    "init",
    "install",
    "locate-project",
    "login",
    "logout",
    "metadata",
    "miri",
    "new",
    "owner",
    "package",
    "pkgid",
    "publish",
    "remove",
    "report",
    "run",
    "rustc",
    "rustdoc",
    "search",
    "test",
    "tree",
    "uninstall",
    "update",
    "vendor",
    "verify-project",
    "version",
    "yank",
    "b",
    "c",
    "d",
    "r",
    "t",
    "nextest",
    "watch",
    "tauri",
    "expand",
    "audit",
    "deny",
    "llvm-cov",
    "tarpaulin",
    "make",
    "insta",
    "udeps",
    "outdated",
    "edit",
    "machete",
    "release",
    "dist",
    "binstall",
    "leptos",
    "shuttle",
    "lambda",
    "sweep",
    "flamegraph",
    "criterion",
    "hack",
    "msrv",
    "semver-checks",
    "mutants",
    "fuzz",
    "ndk",
    "apk",
    "bundle",
    "xtask",
    "component",
    "upgrade",
    "set-version",
    "workspaces",
    "sort",
    "about",
    "zigbuild",
    "xwin",
    "cross",
    "wasi",
    "component",
    "near",
    "contract",
    "stylus",
    "risczero",
    "sqlx",
    "dioxus",
    "dx",
    "bloat",
    "asm",
    "geiger",
    "vet",
    "careful",
    "public-api",
    "readme",
    "modules",
    "cache",
    "chef",
    "pgrx",
    "ws",
    "lipo",
    "mobile",
];

/// Programs `poetry|uv|pdm run` commonly runs that a project need not declare.
const PYTHON_TOOLS: &[&str] = &[
    "python",
    "python3",
    "pytest",
    "ruff",
    "mypy",
    "black",
    "isort",
    "flake8",
    "pylint",
    "uvicorn",
    "gunicorn",
    "alembic",
    "flask",
    "django-admin",
    "streamlit",
    "celery",
    "pre-commit",
    "jupyter",
    "ipython",
    "pip",
    "coverage",
    "tox",
    "nox",
    "hypercorn",
    "fastapi",
    "pyright",
    "bandit",
    "sphinx-build",
    "mkdocs",
    "gradio",
    "hatch",
    "twine",
    "manage.py",
];

pub(super) fn script_message(
    index: &CodeIndex,
    runner: Runner,
    command: &str,
    name: &str,
) -> Option<String> {
    let m = index.manifests();
    let defined = |set: &HashSet<String>| {
        let mut names: Vec<String> = set.iter().cloned().collect();
        names.sort();
        if names.is_empty() {
            String::from(" (it defines none)")
        } else {
            format!(" (defined: {})", listed(&names, 8))
        }
    };
    match runner {
        Runner::Package => (m.package_json > 0 && !m.package_scripts.contains(name)).then(|| {
            format!(
                "`{command}`: no package.json defines a script `{name}`{}",
                defined(&m.package_scripts)
            )
        }),
        Runner::Make => (m.makefiles > 0 && !m.make_patterns && !m.make_targets.contains(name))
            .then(|| {
                format!(
                    "`{command}`: no Makefile has a target `{name}`{}",
                    defined(&m.make_targets)
                )
            }),
        Runner::Just => (m.justfiles > 0 && !m.just_recipes.contains(name)).then(|| {
            format!(
                "`{command}`: no justfile has a recipe `{name}`{}",
                defined(&m.just_recipes)
            )
        }),
        Runner::Cargo => (m.cargo_manifests > 0
            && !CARGO_COMMANDS.contains(&name)
            && !m.cargo_aliases.contains(name))
        .then(|| {
            format!(
                "`{command}`: `{name}` is neither a Cargo command nor an alias in .cargo/config.toml"
            )
        }),
        Runner::Python => (m.pyprojects > 0
            && !m.python_scripts.contains(name)
            && !PYTHON_TOOLS.contains(&name)
            && !name.ends_with(".py")
            && !m.declares(name))
        .then(|| {
            format!(
                "`{command}`: pyproject.toml declares no script or dependency `{name}`{}",
                defined(&m.python_scripts)
            )
        }),
    }
}

/// "a, b, c and 2 more".
pub(super) fn listed(items: &[String], most: usize) -> String {
    let mut shown: Vec<&str> = items.iter().take(most).map(String::as_str).collect();
    shown.sort_unstable();
    let mut text = shown.join(", ");
    if items.len() > most {
        text.push_str(&format!(" and {} more", items.len() - most));
    }
    text
}
