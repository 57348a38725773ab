//! Byte-pair encoding over the built-in tables (laid out by build.rs, see
//! `table_hash`): the exact merge rules of OpenAI's tiktoken, on tables the binary holds
//! ready to use. Nothing is decoded or built at start; a count touches only the pages
//! of the tables it looks at. The second encoding, cl100k_base, is the exception: its
//! derived tables are laid out on its first use.
use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[cfg(feature = "cl100k")]
use super::table_hash::lay_out_tables;
use super::table_hash::{
    INLINE_MAX, LONG_TOKEN, RANK_MASK, filter_bits, padded_word, slot_check, token_hash,
};

/// One encoding's tables, as build.rs wrote them (little-endian u32 arrays).
pub(crate) struct EncodingTables {
    /// Every token's bytes, in rank order.
    tokens: &'static [u8],
    /// Each token's length in bytes (one byte per rank). Only a long token's lookup
    /// needs it: every other slot says where its token starts and how long it is.
    lengths: &'static [u8],
    /// Open-addressing hash table (u64 per slot, see `table_hash`).
    slots: &'static [u8],
    /// The rank of each two-byte token, indexed by its bytes (`NO_RANK` for none).
    pairs: &'static [u8],
    /// Bits every token sets (u64 per word, see `table_hash::filter_bits`): a byte
    /// string missing one of its bits is no token, known without reading a slot.
    filter: &'static [u8],
}

pub(crate) static O200K: EncodingTables = EncodingTables {
    tokens: include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.tokens")),
    lengths: include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.lengths")),
    slots: include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.slots")),
    pairs: include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.pairs")),
    filter: include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.filter")),
};

/// The cl100k_base tables. The binary carries its vocabulary only (the tokens and their
/// lengths); the tables derived from it are laid out the first time they are asked for
/// (a few milliseconds), which keeps 2.5 MB of rarely used tables out of the binary.
#[cfg(feature = "cl100k")]
pub(crate) fn cl100k() -> &'static EncodingTables {
    static TABLES: std::sync::OnceLock<EncodingTables> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        let tokens = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.tokens"));
        let lengths = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.lengths"));
        let derived = lay_out_tables(tokens, lengths);
        // Laid out once and kept for the life of the process, like the built-in tables
        // beside them: leaking gives them the same `'static` lifetime.
        EncodingTables {
            tokens,
            lengths,
            slots: Box::leak(derived.slots.into_boxed_slice()),
            pairs: Box::leak(derived.pairs.into_boxed_slice()),
            filter: Box::leak(derived.filter.into_boxed_slice()),
        }
    })
}

/// Ranks of short byte strings (up to seven bytes) looked up lately, in a small
/// direct-mapped table: merging a word looks up its short parts ("in", "ing", " th"),
/// and the same parts come back in word after word, while a lookup in the full tables
/// misses the processor's cache several times. A slot holds the whole key (bytes and
/// length), so a hit is exact.
pub(crate) struct RankCache {
    keys: Box<[u64]>,
    ranks: Box<[u32]>,
}

impl Default for RankCache {
    fn default() -> Self {
        RankCache {
            keys: vec![0; RankCache::SIZE].into_boxed_slice(),
            ranks: vec![NO_RANK; RankCache::SIZE].into_boxed_slice(),
        }
    }
}

impl RankCache {
    const SIZE: usize = 1 << 12;
    /// Longest byte string cached: its bytes and length fit one word.
    const MAX_LEN: usize = 7;
}

/// "No merge": larger than every rank.
const NO_RANK: u32 = u32::MAX;
/// Pieces at least this long merge through a heap (as the reference does from the same
/// length): the simple scan is quadratic.
const LARGE_PIECE: usize = 100;

#[inline(always)]
fn u64_at(bytes: &[u8], index: usize) -> Option<u64> {
    let word = bytes.get(index * 8..index * 8 + 8)?;
    let mut array = [0u8; 8];
    array.copy_from_slice(word);
    Some(u64::from_le_bytes(array))
}

#[inline(always)]
fn u32_at(bytes: &[u8], index: usize) -> Option<u32> {
    let word = bytes.get(index * 4..index * 4 + 4)?;
    Some(u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
}

impl EncodingTables {
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lengths.len()
    }

    /// Every token's bytes, in rank order (the tables are walked once).
    #[cfg(test)]
    pub(crate) fn all_tokens(&self) -> Vec<&'static [u8]> {
        let mut start = 0;
        self.lengths
            .iter()
            .map(|&length| {
                let end = start + usize::from(length);
                let token = self.tokens.get(start..end).unwrap_or(&[]);
                start = end;
                token
            })
            .collect()
    }

    /// The rank of the token whose bytes are `bytes`, if there is one.
    #[inline(always)]
    pub(crate) fn rank(&self, bytes: &[u8]) -> Option<u32> {
        let slot_count = self.slots.len() / 8;
        if slot_count == 0 {
            return None;
        }
        let mask = slot_count - 1;
        let hash = token_hash(bytes);
        if !self.filter_admits(hash) {
            return None;
        }
        let check = slot_check(hash, bytes.len());
        let mut at = hash as usize & mask;
        // At most half the slots are used, so an empty one ends every probe sequence;
        // the bound only guards against a damaged table.
        for _ in 0..slot_count {
            let slot = u64_at(self.slots, at)?;
            if slot == 0 {
                return None;
            }
            let (low, high) = (slot as u32, (slot >> 32) as u32);
            if low & !RANK_MASK == check {
                let rank = (low & RANK_MASK).wrapping_sub(1);
                // The length matched (or both are long): short tokens are in the slot.
                let same = if bytes.len() <= INLINE_MAX {
                    high == padded_word(bytes) as u32
                } else if bytes.len() < LONG_TOKEN {
                    let start = high as usize;
                    self.tokens
                        .get(start..start + bytes.len())
                        .is_some_and(|token| same_bytes(token, bytes))
                } else {
                    // A long token's slot says where it starts; its length is looked up.
                    let start = high as usize;
                    let length = self.lengths.get(rank as usize).map(|&l| usize::from(l));
                    length == Some(bytes.len())
                        && self
                            .tokens
                            .get(start..start + bytes.len())
                            .is_some_and(|token| same_bytes(token, bytes))
                };
                if same {
                    return Some(rank);
                }
            }
            at = (at + 1) & mask;
        }
        None
    }

    /// Whether a byte string with this hash may be a token: every token is admitted,
    /// nearly every other string turned away. A filter cut short (a damaged table)
    /// admits everything, leaving the answer to the slots.
    #[inline(always)]
    fn filter_admits(&self, hash: u64) -> bool {
        let (word, bits) = filter_bits(hash);
        u64_at(self.filter, word).is_none_or(|filter| filter & bits == bits)
    }

    /// Number of tokens of the two bytes `first` and `second`: one when they make a
    /// token, else one each.
    #[inline(always)]
    pub(crate) fn two_byte_count(&self, first: u8, second: u8) -> usize {
        if self.pair_rank(first, second) == NO_RANK {
            2
        } else {
            1
        }
    }

    /// The rank of the token made of the bytes `first` and `second`, or `NO_RANK`.
    #[inline(always)]
    fn pair_rank(&self, first: u8, second: u8) -> u32 {
        u32_at(self.pairs, usize::from(first) << 8 | usize::from(second)).unwrap_or(NO_RANK)
    }

    #[inline(always)]
    fn rank_or_none(&self, bytes: &[u8]) -> u32 {
        self.rank(bytes).unwrap_or(NO_RANK)
    }

    /// [`EncodingTables::rank_or_none`] through `cache` for short byte strings.
    #[inline(always)]
    fn cached_rank(&self, bytes: &[u8], cache: &mut RankCache) -> u32 {
        let len = bytes.len();
        if len == 0 || len > RankCache::MAX_LEN {
            return self.rank_or_none(bytes);
        }
        let key = padded_word(bytes) | (len as u64) << 56;
        let product = u128::from(key) * 0x9E37_79B9_7F4A_7C15;
        let slot = ((product as u64) ^ ((product >> 64) as u64)) as usize & (RankCache::SIZE - 1);
        if let (Some(&cached_key), Some(&rank)) = (cache.keys.get(slot), cache.ranks.get(slot))
            && cached_key == key
        {
            return rank;
        }
        let rank = self.rank_or_none(bytes);
        if let (Some(cached_key), Some(cached_rank)) =
            (cache.keys.get_mut(slot), cache.ranks.get_mut(slot))
        {
            *cached_key = key;
            *cached_rank = rank;
        }
        rank
    }

    /// Number of tokens of one pre-tokenized piece.
    #[cfg(test)]
    pub(crate) fn count(&self, piece: &[u8]) -> usize {
        self.count_with(piece, &mut RankCache::default())
    }

    /// Number of tokens of one pre-tokenized piece, short lookups through `cache`.
    pub(crate) fn count_with(&self, piece: &[u8], cache: &mut RankCache) -> usize {
        if piece.len() <= 1 {
            return piece.len();
        }
        if self.rank(piece).is_some() {
            return 1;
        }
        if piece.len() < LARGE_PIECE {
            let mut parts = [(0, 0); LARGE_PIECE + 1];
            self.merge(piece, &mut parts, cache) - 1
        } else {
            self.merge_large(piece).len()
        }
    }

    /// The ranks of one piece's tokens.
    #[cfg(test)]
    pub(crate) fn encode(&self, piece: &[u8]) -> Vec<u32> {
        if piece.is_empty() {
            return Vec::new();
        }
        if let Some(rank) = self.rank(piece) {
            return vec![rank];
        }
        if piece.len() < LARGE_PIECE {
            let mut parts = [(0, 0); LARGE_PIECE + 1];
            let count = self.merge(piece, &mut parts, &mut RankCache::default());
            parts[..count]
                .windows(2)
                .map(|pair| self.rank_or_none(&piece[pair[0].0 as usize..pair[1].0 as usize]))
                .collect()
        } else {
            let ends = self.merge_large(piece);
            let mut start = 0;
            ends.into_iter()
                .map(|end| {
                    let rank = self.rank_or_none(&piece[start..end]);
                    start = end;
                    rank
                })
                .collect()
        }
    }

    /// tiktoken's merge loop, on the stack: fills `parts` with (start, rank of the pair
    /// starting there) per part, plus the end, and returns how many it holds. The lowest
    /// rank merges first, the leftmost among equals. `piece` is 2 to `LARGE_PIECE - 1`
    /// bytes long.
    fn merge(
        &self,
        piece: &[u8],
        parts: &mut [(u32, u32); LARGE_PIECE + 1],
        cache: &mut RankCache,
    ) -> usize {
        let len = piece.len();
        debug_assert!((2..LARGE_PIECE).contains(&len));
        let mut min_rank = (NO_RANK, usize::MAX);
        for i in 0..len - 1 {
            let rank = self.pair_rank(piece[i], piece[i + 1]);
            if rank < min_rank.0 {
                min_rank = (rank, i);
            }
            parts[i] = (i as u32, rank);
        }
        parts[len - 1] = ((len - 1) as u32, NO_RANK);
        parts[len] = (len as u32, NO_RANK);
        let mut count = len + 1;
        // The rank of the pair that part `i` would form with the next once merged.
        let mut rank_after = |live: &[(u32, u32)], i: usize| match live.get(i + 3) {
            Some(&(end, _)) => self.cached_rank(&piece[live[i].0 as usize..end as usize], cache),
            None => NO_RANK,
        };
        while min_rank.0 != NO_RANK {
            let i = min_rank.1;
            if i > 0 {
                parts[i - 1].1 = rank_after(&parts[..count], i - 1);
            }
            parts[i].1 = rank_after(&parts[..count], i);
            parts.copy_within(i + 2..count, i + 1);
            count -= 1;
            min_rank = (NO_RANK, usize::MAX);
            for (i, &(_, rank)) in parts[..count - 1].iter().enumerate() {
                if rank < min_rank.0 {
                    min_rank = (rank, i);
                }
            }
        }
        count
    }

    /// The same merges through a heap, O(n log n) for long pieces (a run of thousands of
    /// spaces must not take quadratic time). Returns where each token ends.
    fn merge_large(&self, piece: &[u8]) -> Vec<usize> {
        struct Part {
            prev: usize,
            end: usize,
            next_end: usize,
            next_rank: u32,
        }
        let mut parts = Vec::with_capacity(piece.len());
        let mut heap = BinaryHeap::with_capacity(piece.len());
        parts.push(Part {
            prev: usize::MAX,
            end: 1,
            next_end: 2,
            next_rank: NO_RANK,
        });
        for i in 0..piece.len() - 1 {
            let rank = self.pair_rank(piece[i], piece[i + 1]);
            if rank != NO_RANK {
                heap.push(CandidateMerge { start: i, rank });
                parts[i].next_rank = rank;
            }
            parts.push(Part {
                prev: i,
                end: i + 2,
                next_end: i + 3,
                next_rank: NO_RANK,
            });
        }
        let potential_merge = |parts: &mut Vec<Part>,
                               heap: &mut BinaryHeap<CandidateMerge>,
                               start: usize,
                               next_end: usize| {
            parts[start].next_end = next_end;
            parts[start].next_rank = NO_RANK;
            if next_end <= piece.len() {
                let rank = self.rank_or_none(&piece[start..next_end]);
                if rank != NO_RANK {
                    heap.push(CandidateMerge { start, rank });
                    parts[start].next_rank = rank;
                }
            }
        };
        while let Some(left) = heap.pop() {
            if left.rank != parts[left.start].next_rank {
                // Superseded by a later merge.
                continue;
            }
            let left_start = left.start;
            let right_start = parts[left_start].end;
            let right_end = parts[left_start].next_end;
            let right_next_end = parts[right_start].next_end;
            parts[left_start].end = right_end;
            potential_merge(&mut parts, &mut heap, left_start, right_next_end);
            if right_end < parts.len() {
                parts[right_end].prev = left_start;
            }
            if left_start > 0 {
                let prev_start = parts[left_start].prev;
                potential_merge(&mut parts, &mut heap, prev_start, right_end);
            }
            parts[right_start].next_rank = NO_RANK;
        }
        let mut ends = Vec::new();
        let mut at = 0;
        while at < parts.len() {
            at = parts[at].end;
            ends.push(at);
        }
        ends
    }
}

/// Whether two byte strings are equal; short ones (nearly every token) are compared a
/// word at a time, without a library call.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let len = a.len();
    if len != b.len() {
        return false;
    }
    match len {
        0..=8 => padded_word(a) == padded_word(b),
        // The first eight bytes and the last eight (overlapping) cover them all.
        9..=16 => {
            padded_word(a) == padded_word(b)
                && padded_word(&a[len - 8..]) == padded_word(&b[len - 8..])
        }
        _ => a == b,
    }
}

/// A possible merge of the part starting at `start` with the next one. The heap pops
/// the lowest rank first, the leftmost among equals.
#[derive(PartialEq, Eq)]
struct CandidateMerge {
    start: usize,
    rank: u32,
}

impl Ord for CandidateMerge {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .rank
            .cmp(&self.rank)
            .then_with(|| other.start.cmp(&self.start))
    }
}

impl PartialOrd for CandidateMerge {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(table: &EncodingTables) -> &'static tiktoken_rs::CoreBPE {
        if std::ptr::eq(table, &O200K) {
            tiktoken_rs::o200k_base_singleton()
        } else {
            tiktoken_rs::cl100k_base_singleton()
        }
    }

    /// The obvious constructions: the bytes copied into zeroed words.
    fn hash_by_copy(bytes: &[u8]) -> u64 {
        let fold = |a: u64, b: u64| {
            let product = u128::from(a) * u128::from(b);
            (product as u64) ^ ((product >> 64) as u64)
        };
        let multiplier = 0x9E37_79B9_7F4A_7C15;
        let mut hash = fold(bytes.len() as u64 ^ 0x243F_6A88_85A3_08D3, multiplier);
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            hash = fold(hash ^ u64::from_le_bytes(word), multiplier);
        }
        hash
    }

    #[test]
    fn hashing_and_comparing_by_fixed_reads_match_the_plain_byte_loops() {
        let source: Vec<u8> = (1..=60u8).map(|b| b.wrapping_mul(37)).collect();
        for start in 0..8 {
            for len in 0..=40 {
                let bytes = &source[start..start + len];
                assert_eq!(token_hash(bytes), hash_by_copy(bytes), "{bytes:?}");
                if len <= 8 {
                    let mut word = [0u8; 8];
                    word[..len].copy_from_slice(bytes);
                    assert_eq!(padded_word(bytes), u64::from_le_bytes(word));
                }
                let mut other = bytes.to_vec();
                assert!(same_bytes(bytes, &other));
                for at in 0..len {
                    other[at] ^= 1;
                    assert!(!same_bytes(bytes, &other), "{len} bytes, differing at {at}");
                    other[at] ^= 1;
                }
                assert!(!same_bytes(bytes, &source[start..start + len + 1]));
            }
        }
    }

    #[test]
    fn every_token_is_found_at_its_own_rank() {
        for table in [&O200K, cl100k()] {
            for (rank, token) in (0..).zip(table.all_tokens()) {
                assert!(!token.is_empty());
                assert_eq!(table.rank(token), Some(rank), "{token:?}");
            }
            assert_eq!(table.rank(b""), None);
            for first in 0..=255u8 {
                for second in 0..=255u8 {
                    let pair = [first, second];
                    assert_eq!(table.pair_rank(first, second), table.rank_or_none(&pair));
                }
            }
        }
        assert_eq!(O200K.len(), 199_998);
        assert_eq!(cl100k().len(), 100_256);
    }

    #[test]
    fn the_filter_admits_every_token_and_turns_away_nearly_every_other_string() {
        use super::super::table_hash::FILTER_WORDS;
        for table in [&O200K, cl100k()] {
            assert_eq!(table.filter.len(), FILTER_WORDS * 8);
            let tokens: std::collections::HashSet<&[u8]> = table.all_tokens().into_iter().collect();
            assert!(
                tokens
                    .iter()
                    .all(|token| table.filter_admits(token_hash(token)))
            );
            // Strings a merge asks about: word fragments of every length, most no token.
            let words = [
                "memory",
                " context",
                "ation",
                "Decisions",
                "_bank",
                "42",
                "é",
            ];
            let (mut others, mut admitted) = (0, 0);
            for (n, word) in (0..40_000).zip(words.iter().cycle()) {
                let candidate = format!("{word}{}", n * 7919 % 100_003);
                if !tokens.contains(candidate.as_bytes()) {
                    others += 1;
                    admitted += usize::from(table.filter_admits(token_hash(candidate.as_bytes())));
                }
            }
            assert!(others > 35_000);
            assert!(
                admitted * 100 < others * 8,
                "{admitted} of {others} admitted"
            );
        }
    }

    #[test]
    fn near_misses_of_tokens_are_found_only_when_they_are_tokens() {
        // A token's slot holds its bytes (short tokens), where they start, or only a
        // length class (long ones): strings one byte shorter, longer or different
        // must still be told apart from it.
        for table in [&O200K, cl100k()] {
            let tokens = table.all_tokens();
            let all: std::collections::HashMap<&[u8], u32> =
                tokens.iter().copied().zip(0..).collect();
            for token in tokens.iter().copied().step_by(7) {
                let mut longer = token.to_vec();
                longer.push(b'e');
                let mut changed = token.to_vec();
                if let Some(last) = changed.last_mut() {
                    *last ^= 1;
                }
                let shorter = &token[..token.len() - 1];
                for near in [&longer[..], &changed[..], shorter] {
                    assert_eq!(table.rank(near), all.get(near).copied(), "{near:?}");
                }
            }
        }
    }

    #[test]
    fn cached_ranks_are_the_tables_ranks_through_collisions() {
        // Far more keys than slots, each asked twice: evicted, re-filled and hit slots
        // all answer what the table does, tokens and non-tokens alike.
        let source: Vec<u8> = (0..4_000u32)
            .flat_map(|n| format!(" w{}ing{}", n % 97, n % 13).into_bytes())
            .collect();
        for table in [&O200K, cl100k()] {
            let mut cache = RankCache::default();
            for _ in 0..2 {
                for start in 0..source.len() - 8 {
                    for len in 0..=8 {
                        let bytes = &source[start..start + len];
                        assert_eq!(
                            table.cached_rank(bytes, &mut cache),
                            table.rank_or_none(bytes),
                            "{bytes:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_tables_hold_the_reference_vocabulary() {
        for table in [&O200K, cl100k()] {
            let reference = reference(table);
            let tokens = table.all_tokens();
            for rank in (0..tokens.len()).step_by(97) {
                assert_eq!(
                    reference.decode_bytes(&[rank as u32]).ok().as_deref(),
                    Some(tokens[rank])
                );
            }
        }
    }

    #[test]
    fn long_pieces_merge_as_the_reference_does() {
        // Each text is one pre-tokenizer piece, so the reference's tokens are the merge's.
        // Long ones take the heap path, short ones the scan: both must agree with it.
        let cases = [
            " ".repeat(5_000),
            "ab".repeat(300),
            "=-".repeat(150),
            "\u{1F600}".repeat(40),
            "x".repeat(99),
            "x".repeat(100),
            "Supercalifragilisticexpialidocious".repeat(5),
            "ununderstandablenesses".into(),
        ];
        for table in [&O200K, cl100k()] {
            let reference = reference(table);
            for piece in &cases {
                let ranks = reference.encode_ordinary(piece);
                assert_eq!(
                    table.encode(piece.as_bytes()),
                    ranks,
                    "{} bytes",
                    piece.len()
                );
                assert_eq!(table.count(piece.as_bytes()), ranks.len());
            }
        }
    }
}
