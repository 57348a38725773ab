// The hash that places tokens in the built-in BPE tables, and the layout of the tables
// derived from a vocabulary. build.rs includes this file to lay tables out at build
// time, the library to look them up (and to lay out, at first use, the tables of an
// encoding the binary carries only its vocabulary of): one definition, so they can
// never disagree. Plain std only, because build.rs includes it verbatim.

/// A slot is a little-endian u64. Its low word holds the token's rank plus one in its
/// low bits (0 is an empty slot)...
pub(crate) const RANK_BITS: u32 = 18;
pub(crate) const RANK_MASK: u32 = (1 << RANK_BITS) - 1;
/// ...then the token's length (`LONG_TOKEN` for that many bytes or more)...
const LENGTH_BITS: u32 = 4;
pub(crate) const LONG_TOKEN: usize = (1 << LENGTH_BITS) - 1;
/// ...and a few bits of the hash above it, so most probes of a wrong slot are turned
/// away by the low word alone.
const TAG_BITS: u32 = 32 - RANK_BITS - LENGTH_BITS;
/// The high word holds a token of up to `INLINE_MAX` bytes itself (zero-padded), so
/// finding it reads nothing but the slot; for a longer token, where its bytes start
/// in the token list. Each other read is a likely cache miss, and lookups are most
/// of what encoding a new piece costs.
pub(crate) const INLINE_MAX: usize = 4;

const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

#[inline(always)]
fn fold_multiply(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

/// The little-endian word of up to eight bytes, zero-padded, from a few fixed-size
/// (overlapping) reads: copying a variable length into a buffer is a library call, and
/// this runs for every lookup.
#[inline(always)]
pub(crate) fn padded_word(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    let read4 = |at: usize| {
        let mut word = [0u8; 4];
        word.copy_from_slice(&bytes[at..at + 4]);
        u64::from(u32::from_le_bytes(word))
    };
    match len {
        0 => 0,
        1..=3 => {
            u64::from(bytes[0])
                | u64::from(bytes[len / 2]) << (len / 2 * 8)
                | u64::from(bytes[len - 1]) << ((len - 1) * 8)
        }
        // Overlapping reads OR the same bytes onto themselves.
        4..=7 => read4(0) | read4(len - 4) << ((len - 4) * 8),
        _ => {
            let mut word = [0u8; 8];
            word.copy_from_slice(&bytes[..8]);
            u64::from_le_bytes(word)
        }
    }
}

/// The hash of a token's bytes: eight bytes at a time, the length mixed in first.
#[inline(always)]
pub(crate) fn token_hash(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    let mut hash = fold_multiply(len as u64 ^ 0x243F_6A88_85A3_08D3, MULTIPLIER);
    let mut at = 0;
    while at + 8 <= len {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[at..at + 8]);
        hash = fold_multiply(hash ^ u64::from_le_bytes(word), MULTIPLIER);
        at += 8;
    }
    let rest = len - at;
    if rest > 0 {
        let word = if len >= 8 {
            // The last eight bytes, shifted to drop those already hashed.
            let mut word = [0u8; 8];
            word.copy_from_slice(&bytes[len - 8..]);
            u64::from_le_bytes(word) >> ((8 - rest) * 8)
        } else {
            padded_word(bytes)
        };
        hash = fold_multiply(hash ^ word, MULTIPLIER);
    }
    hash
}

/// What a slot's low word holds besides the rank, for a token of `len` bytes with
/// hash `hash`: its length and the hash's top bits (the slot index uses the low ones).
#[inline(always)]
pub(crate) fn slot_check(hash: u64, len: usize) -> u32 {
    let length = len.min(LONG_TOKEN) as u32;
    let tag = (hash >> (64 - TAG_BITS)) as u32;
    length << RANK_BITS | tag << (RANK_BITS + LENGTH_BITS)
}

/// The high word of a token's slot: the token itself when it is short, else where it
/// starts in the token list.
#[inline(always)]
pub(crate) fn slot_high_word(token: &[u8], start: u32) -> u32 {
    if token.len() <= INLINE_MAX {
        padded_word(token) as u32
    } else {
        start
    }
}

/// Words (u64) in the filter every lookup asks first: 2^15 words, 256 KiB, small enough
/// to stay in a core's cache where the slots (MiBs) do not. Each token sets two bits of
/// one word, so a byte string that is no token is turned away by one read nearly always
/// (about 4 % of them pass with o200k_base's 200,000 tokens), and most strings a merge
/// asks about are no token.
pub(crate) const FILTER_WORDS: usize = 1 << 15;

/// The filter word of a hash, and the two bits of it a token with this hash sets. The
/// slot index takes the hash's low bits and the slot tag its top ones; the filter takes
/// bits in between.
#[inline(always)]
pub(crate) fn filter_bits(hash: u64) -> (usize, u64) {
    let word = (hash >> 20) as usize & (FILTER_WORDS - 1);
    let bits = 1 << ((hash >> 35) & 63) | 1 << ((hash >> 41) & 63);
    (word, bits)
}

/// The tables derived from a vocabulary, as little-endian arrays: `slots` (an
/// open-addressing hash table of u64 slots as this file describes; linear probing, at
/// most half full), `pairs` (the rank of every two-byte token by its two bytes,
/// u32::MAX for none) and `filter` (`FILTER_WORDS` u64 words, each token's two bits set).
#[cfg_attr(not(feature = "cl100k"), allow(dead_code))]
pub(crate) struct DerivedTables {
    pub(crate) slots: Vec<u8>,
    pub(crate) pairs: Vec<u8>,
    pub(crate) filter: Vec<u8>,
}

/// Lays out the derived tables of the vocabulary whose tokens are `tokens` (every
/// token's bytes, in rank order) cut by `lengths` (one byte per rank).
// Without the cl100k feature only build.rs lays tables out.
#[cfg_attr(not(feature = "cl100k"), allow(dead_code))]
pub(crate) fn lay_out_tables(tokens: &[u8], lengths: &[u8]) -> DerivedTables {
    let slot_count = (lengths.len() * 2).next_power_of_two();
    let mask = slot_count - 1;
    let mut slots = vec![0u64; slot_count];
    let mut filter = vec![0u64; FILTER_WORDS];
    let mut pairs = vec![u32::MAX; 1 << 16];
    let mut start = 0usize;
    for (rank, &length) in lengths.iter().enumerate() {
        let end = start + usize::from(length);
        let token = &tokens[start..end];
        let hash = token_hash(token);
        let mut at = hash as usize & mask;
        while slots[at] != 0 {
            at = (at + 1) & mask;
        }
        let low = (rank as u32 + 1) | slot_check(hash, token.len());
        slots[at] = u64::from(low) | u64::from(slot_high_word(token, start as u32)) << 32;
        let (word, bits) = filter_bits(hash);
        filter[word] |= bits;
        // Every merge starts from byte pairs: their ranks by the pair's two bytes.
        if let [first, second] = *token {
            pairs[usize::from(first) << 8 | usize::from(second)] = rank as u32;
        }
        start = end;
    }
    DerivedTables {
        slots: slots.iter().flat_map(|slot| slot.to_le_bytes()).collect(),
        pairs: pairs.iter().flat_map(|rank| rank.to_le_bytes()).collect(),
        filter: filter.iter().flat_map(|word| word.to_le_bytes()).collect(),
    }
}
