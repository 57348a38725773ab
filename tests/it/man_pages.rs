//! The man pages in docs/man/ are generated from the command line's definitions; this
//! fails while the committed ones differ from what the definitions give now.
use std::collections::BTreeMap;
use std::path::Path;

use clap::CommandFactory;

const REGENERATE: &str = "cargo run --example man";

fn pages_in(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "1"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect()
}

#[test]
fn the_committed_man_pages_are_the_generated_ones() {
    let fresh = tempfile::tempdir().unwrap();
    clap_mangen::generate_to(mbank::cli::Cli::command(), fresh.path()).unwrap();
    let generated = pages_in(fresh.path());
    let committed = pages_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/man"));
    assert!(
        generated.contains_key("mbank.1") && generated.contains_key("mbank-check.1"),
        "{:?}",
        generated.keys()
    );
    let names = |pages: &BTreeMap<String, String>| pages.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&committed),
        names(&generated),
        "docs/man/ holds other pages than the command line gives: run `{REGENERATE}`"
    );
    for (name, text) in &generated {
        assert!(
            committed.get(name) == Some(text),
            "docs/man/{name} is out of date: run `{REGENERATE}`"
        );
    }
}
