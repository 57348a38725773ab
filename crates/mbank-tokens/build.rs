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
    write_table(out, "o200k_base", &o200k, 199_998);
    // The second encoding only when the `cl100k` feature asks for it (cargo sets this
    // variable for each enabled feature).
    if std::env::var_os("CARGO_FEATURE_CL100K").is_some() {
        let cl100k = tiktoken_rs::cl100k_base().expect("tiktoken-rs ships cl100k_base");
        write_table(out, "cl100k_base", &cl100k, 100_256);
    }
}

/// Writes `NAME.tokens` (every token's bytes, in rank order), `NAME.lengths` (each
/// token's length, one byte: a quarter of the size of u32 offsets), `NAME.slots` (an open-addressing hash table of u64 slots,
/// laid out as `table_hash` says: rank + 1, length and tag in the low word, the token
/// or where it starts in the high word; linear probing, at most half full) and
/// `NAME.pairs` (the rank of every two-byte token by its bytes, u32::MAX for none) and
/// `NAME.filter` (`FILTER_WORDS` u64 words, each token's two bits set, see `filter_bits`).
fn write_table(out: &Path, name: &str, bpe: &tiktoken_rs::CoreBPE, expected_tokens: usize) {
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
    let size = (tokens.len() * 2).next_power_of_two();
    let mask = size - 1;
    let mut slots = vec![0u64; size];
    let mut start = 0u32;
    for (rank, token) in tokens.iter().enumerate() {
        let hash = token_hash(token);
        let mut at = hash as usize & mask;
        while slots[at] != 0 {
            at = (at + 1) & mask;
        }
        let low = (rank as u32 + 1) | slot_check(hash, token.len());
        slots[at] = u64::from(low) | u64::from(slot_high_word(token, start)) << 32;
        start += token.len() as u32;
    }
    let slots: Vec<u8> = slots.iter().flat_map(|s| s.to_le_bytes()).collect();
    let mut filter = vec![0u64; FILTER_WORDS];
    for token in &tokens {
        let (word, bits) = filter_bits(token_hash(token));
        filter[word] |= bits;
    }
    let filter: Vec<u8> = filter.iter().flat_map(|w| w.to_le_bytes()).collect();
    // Every merge starts from byte pairs: their ranks by the pair's two bytes.
    let mut pairs = vec![u32::MAX; 1 << 16];
    for (rank, token) in tokens.iter().enumerate() {
        if let [first, second] = token[..] {
            pairs[usize::from(first) << 8 | usize::from(second)] = rank as u32;
        }
    }
    let pairs: Vec<u8> = pairs.iter().flat_map(|s| s.to_le_bytes()).collect();
    for (extension, bytes) in [
        ("tokens", &all),
        ("lengths", &lengths),
        ("slots", &slots),
        ("pairs", &pairs),
        ("filter", &filter),
    ] {
        std::fs::write(out.join(format!("{name}.{extension}")), bytes)
            .expect("OUT_DIR is writable");
    }
}
