//! Exact BPE counting: our pre-tokenizer cuts the text into pieces, and each piece is
//! counted by `bpe-openai`'s byte-pair encoder, with a per-thread memo because pieces
//! ("the", " memory", "\n\n", "##") repeat endlessly in markdown.
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::pretokenize::{Grammar, pieces};

/// Pieces up to this many bytes are remembered; longer ones are rare and counted directly.
const MEMO_MAX_PIECE: usize = 64;
/// A memo over this many entries is emptied, bounding memory on adversarial input.
const MEMO_MAX_ENTRIES: usize = 256 * 1024;
/// Pieces up to this length pack into a `u128` key (the last byte holds the length).
const PACKED_MAX: usize = 15;

/// A small, fast hasher for short keys (folded 64×64→128 multiply), good enough for a
/// memo whose keys are not attacker-chosen in any way that matters: the worst case is
/// a slower count, bounded by `MEMO_MAX_ENTRIES`.
#[derive(Default, Clone, Copy)]
struct FoldHasher {
    state: u64,
}

const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

impl Hasher for FoldHasher {
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    #[inline(always)]
    fn write_u64(&mut self, value: u64) {
        self.state = fold(self.state ^ value, MULTIPLIER);
    }

    #[inline(always)]
    fn write_u128(&mut self, value: u128) {
        self.state = fold(
            self.state ^ value as u64,
            ((value >> 64) as u64) ^ MULTIPLIER,
        );
    }

    #[inline(always)]
    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }

    #[inline(always)]
    fn finish(&self) -> u64 {
        self.state
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FoldHasher>>;

#[derive(Default)]
struct PieceMemo {
    packed: FastMap<u128, u32>,
    long: FastMap<Box<[u8]>, u32>,
}

impl PieceMemo {
    fn count(
        &mut self,
        bpe: &bpe_openai::byte_pair_encoding::BytePairEncoding,
        piece: &[u8],
    ) -> usize {
        if piece.len() <= PACKED_MAX {
            let mut key = [0u8; 16];
            key[..piece.len()].copy_from_slice(piece);
            key[15] = piece.len() as u8;
            let key = u128::from_le_bytes(key);
            if let Some(&count) = self.packed.get(&key) {
                return count as usize;
            }
            let count = bpe.count(piece);
            self.make_room();
            self.packed.insert(key, count as u32);
            count
        } else if piece.len() <= MEMO_MAX_PIECE {
            if let Some(&count) = self.long.get(piece) {
                return count as usize;
            }
            let count = bpe.count(piece);
            self.make_room();
            self.long.insert(piece.into(), count as u32);
            count
        } else {
            bpe.count(piece)
        }
    }

    fn make_room(&mut self) {
        if self.packed.len() + self.long.len() >= MEMO_MAX_ENTRIES {
            self.packed.clear();
            self.long.clear();
        }
    }
}

thread_local! {
    /// One memo per BPE encoding (o200k, cl100k) per thread: no locking on the hot path.
    static MEMOS: RefCell<[PieceMemo; 2]> = RefCell::new([PieceMemo::default(), PieceMemo::default()]);
}

fn tokenizer(grammar: Grammar) -> &'static bpe_openai::Tokenizer {
    match grammar {
        Grammar::O200k => bpe_openai::o200k_base(),
        Grammar::Cl100k => bpe_openai::cl100k_base(),
    }
}

/// Exact token count of `text` under a BPE encoding. Builds the encoder tables on first
/// use (tens of milliseconds), so callers on a warm-cache path must not get here.
pub(crate) fn count_bpe(grammar: Grammar, text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    let bpe = &tokenizer(grammar).bpe;
    let slot = match grammar {
        Grammar::O200k => 0,
        Grammar::Cl100k => 1,
    };
    MEMOS.with(|memos| match memos.try_borrow_mut() {
        Ok(mut memos) => {
            let memo = &mut memos[slot];
            pieces(grammar, text)
                .map(|piece| memo.count(bpe, piece.as_bytes()))
                .sum()
        }
        // Unreachable (counting never re-enters itself), but a memo-less count is
        // always a correct fallback.
        Err(_) => pieces(grammar, text)
            .map(|piece| bpe.count(piece.as_bytes()))
            .sum(),
    })
}

/// Token ids of `text`, for tests that compare whole sequences with the reference.
#[cfg(test)]
pub(crate) fn encode_bpe(grammar: Grammar, text: &str) -> Vec<u32> {
    let bpe = &tokenizer(grammar).bpe;
    pieces(grammar, text)
        .flat_map(|piece| bpe.encode_via_backtracking(piece.as_bytes()))
        .collect()
}
