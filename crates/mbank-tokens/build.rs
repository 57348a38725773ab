// The BPE tables of o200k_base and (with the `cl100k` feature) cl100k_base are laid out
// here, once, from the vocabularies the reference tokenizer ships (tiktoken-rs), as flat
// little-endian arrays the binary includes as they are: counting needs no deserialisation
// pass at start, and only the pages a count touches are ever read.
use std::path::Path;

include!("src/table_hash.rs");

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/table_hash.rs");
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    let out = Path::new(&out);
    let o200k = tiktoken_rs::o200k_base().expect("tiktoken-rs ships o200k_base");
    write_table(out, "o200k_base", &o200k, 199_998, Derived::AtBuild);
    // The second encoding only when the `cl100k` feature asks for it (cargo sets this
    // variable for each enabled feature).
    if std::env::var_os("CARGO_FEATURE_CL100K").is_some() {
        let cl100k = tiktoken_rs::cl100k_base().expect("tiktoken-rs ships cl100k_base");
        // The second encoding is rarely used: the binary carries its vocabulary only, and
        // the library lays out the rest the first time it counts with it (a few ms).
        write_table(out, "cl100k_base", &cl100k, 100_256, Derived::AtFirstUse);
    }
}

/// Writes `NAME.tokens` (every token's bytes, in rank order) and `NAME.lengths` (each
/// token's length, one byte: a quarter of the size of u32 offsets), and, when
/// `derived` asks for them, the tables `table_hash::lay_out_tables` derives from those
/// two: `NAME.slots`, `NAME.pairs` and `NAME.filter`.
fn write_table(
    out: &Path,
    name: &str,
    bpe: &tiktoken_rs::CoreBPE,
    expected_tokens: usize,
    derived: Derived,
) {
    let mut tokens: Vec<Vec<u8>> = Vec::new();
    // Ranks are dense from 0 up to the special tokens, which come after a gap.
    while let Ok(bytes) = bpe.decode_bytes(&[tokens.len() as u32]) {
        tokens.push(bytes);
    }
    assert_eq!(
        tokens.len(),
        expected_tokens,
        "{name}: unexpected vocabulary"
    );
    assert!(
        tokens.len() < RANK_MASK as usize,
        "{name}: ranks overflow a slot"
    );
    let mut all = Vec::new();
    let mut lengths = Vec::with_capacity(tokens.len());
    for token in &tokens {
        all.extend_from_slice(token);
        let length = u8::try_from(token.len());
        lengths.push(length.expect("every token is at most 255 bytes"));
    }
    let write = |extension: &str, bytes: &[u8]| {
        std::fs::write(out.join(format!("{name}.{extension}")), bytes)
            .expect("OUT_DIR is writable");
    };
    write("tokens", &all);
    write("lengths", &lengths);
    if let Derived::AtBuild = derived {
        let tables = lay_out_tables(&all, &lengths);
        write("slots", &tables.slots);
        write("pairs", &tables.pairs);
        write("filter", &tables.filter);
    }
}

/// Where an encoding's derived tables are laid out.
enum Derived {
    /// Here, into the binary: nothing to do at start.
    AtBuild,
    /// By the library, on the encoding's first use: 2.5 MB less of binary.
    AtFirstUse,
}
