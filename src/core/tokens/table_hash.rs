// The hash that places tokens in the built-in BPE tables. build.rs includes this file
// to lay the tables out, and the counter uses it to look them up: one definition, so
// the two can never disagree. Plain std only, because build.rs includes it verbatim.

/// Slots hold the token's rank plus one in their low bits (0 is an empty slot)...
pub const RANK_BITS: u32 = 18;
/// ...and a few more bits of the hash above it, so most probes of a wrong slot are
/// turned away without reading the token's bytes.
pub const TAG_BITS: u32 = 32 - RANK_BITS;
pub const RANK_MASK: u32 = (1 << RANK_BITS) - 1;

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
pub fn padded_word(bytes: &[u8]) -> u64 {
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
pub fn token_hash(bytes: &[u8]) -> u64 {
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

/// The tag bits a slot keeps for a hash (the hash's top bits; the slot index uses the
/// low ones).
#[inline(always)]
pub fn slot_tag(hash: u64) -> u32 {
    (hash >> (64 - TAG_BITS)) as u32
}
