//! The crates' walls, read from cargo's own dependency tree: the core builds without a
//! terminal library, an async runtime or an HTTP client, and the tokenizer stands alone
//! (publishable, with no path into the rest of mbank).
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// Every package `cargo tree` lists as a normal (not dev, not build) dependency of
/// `package`, itself included.
fn normal_dependencies(package: &str) -> BTreeSet<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["tree", "-p", package, "-e", "normal", "--prefix", "none"])
        .args(["--locked", "--offline"])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "cargo tree -p {package} failed: {stderr}"
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_core_depends_on_no_terminal_async_runtime_or_http_client() {
    let dependencies = normal_dependencies("mbank-core");
    // The tree is the core's: it names the core, its tokenizer and what it parses with.
    for expected in ["mbank-core", "mbank-tokens", "serde"] {
        assert!(dependencies.contains(expected), "{dependencies:?}");
    }
    let forbidden: Vec<&str> = ["tokio", "ratatui", "crossterm", "reqwest"]
        .into_iter()
        .filter(|name| dependencies.contains(*name))
        .collect();
    assert!(
        forbidden.is_empty(),
        "mbank-core depends on {forbidden:?}: terminal, async and HTTP code belongs in \
         mbank-tui or mbank-serve"
    );
}

#[test]
fn the_tokenizer_depends_on_nothing_of_mbank() {
    let dependencies = normal_dependencies("mbank-tokens");
    assert!(dependencies.contains("mbank-tokens"), "{dependencies:?}");
    let of_mbank: Vec<&String> = dependencies
        .iter()
        .filter(|name| name.starts_with("mbank") && *name != "mbank-tokens")
        .collect();
    assert!(of_mbank.is_empty(), "mbank-tokens depends on {of_mbank:?}");
}
