//! Exact BPE counting: our pre-tokenizer cuts the text into pieces, and each piece is
//! counted by the byte-pair encoder over the built-in tables (`bpe`), with a per-thread
//! memo because pieces ("the", " memory", "\n\n", "##") repeat endlessly in markdown.
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

use super::bpe::{self, EncodingTables, RankCache};
use super::pretokenize::{Grammar, pieces};
use super::table_hash::padded_word;

/// Pieces up to this many bytes are remembered; longer ones are rare and counted
/// directly. Long pieces (table rules, runs of `=` or spaces) recur from file to file
/// and are the costliest to encode.
const MEMO_MAX_PIECE: usize = 1024;
/// The memo is emptied when its long pieces hold this many bytes.
const MEMO_MAX_LONG_BYTES: usize = 4 * 1024 * 1024;
/// A memo over this many entries is emptied, bounding memory on adversarial input.
const MEMO_MAX_ENTRIES: usize = 256 * 1024;
/// Pieces up to this length pack into a `u128` key (the last byte holds the length).
const PACKED_MAX: usize = 15;
/// Where a short piece's token count sits in its slot: the top four bits, above the
/// length (at most 15, so four bits), and at most 15 itself (a token is at least a byte).
const COUNT_SHIFT: u32 = 124;

/// A small, fast hasher for short keys (folded 64×64→128 multiply), good enough for a
/// memo whose keys are not attacker-chosen in any way that matters: the worst case is
/// a slower count, bounded by `MEMO_MAX_ENTRIES`.
#[derive(Default, Clone, Copy)]
pub struct FoldHasher {
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

/// A hash map hashed with `FoldHasher`, for short keys.
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FoldHasher>>;

fn u32_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u64::from(u32::from_le_bytes(word))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

/// A piece of at most `PACKED_MAX` bytes as a number: its bytes in little-endian order,
/// zero-padded, with the length in the top byte. Built from a few (overlapping)
/// fixed-size reads: copying a variable length into a buffer and reading it back stalls
/// the processor, and this runs once per piece.
#[inline(always)]
fn packed_key(piece: &[u8]) -> u128 {
    let len = piece.len();
    debug_assert!(len <= PACKED_MAX);
    // Overlapping reads OR the same byte onto itself.
    let (low, high) = match len {
        0 => (0, 0),
        1..=3 => {
            let (first, middle, last) = (piece[0], piece[len / 2], piece[len - 1]);
            let low = u64::from(first)
                | u64::from(middle) << (len / 2 * 8)
                | u64::from(last) << ((len - 1) * 8);
            (low, 0)
        }
        4..=7 => (
            u32_at(piece, 0) | u32_at(piece, len - 4) << ((len - 4) * 8),
            0,
        ),
        // The last eight bytes, shifted to drop those the first read holds (all of
        // them at a length of 8).
        _ => (
            u64_at(piece, 0),
            u64_at(piece, len - 8)
                .checked_shr(((16 - len) * 8) as u32)
                .unwrap_or(0),
        ),
    };
    u128::from(low) | u128::from(high | (len as u64) << 56) << 64
}

/// A packed key with room for a token count in its top four bits: `u128` for pieces of
/// up to `PACKED_MAX` bytes, `u64` for those of up to `TINY_MAX`.
trait PackedWord: Copy + Eq {
    const EMPTY: Self;
    fn home(self, mask: usize) -> usize;
    /// The key without its count.
    fn key(self) -> Self;
    fn with_count(self, count: usize) -> Self;
    fn count(self) -> usize;
}

impl PackedWord for u128 {
    const EMPTY: Self = 0;

    #[inline(always)]
    fn home(self, mask: usize) -> usize {
        fold(
            self as u64 ^ MULTIPLIER,
            ((self >> 64) as u64) ^ MULTIPLIER.rotate_left(32),
        ) as usize
            & mask
    }

    #[inline(always)]
    fn key(self) -> Self {
        self & !(0xF << COUNT_SHIFT)
    }

    #[inline(always)]
    fn with_count(self, count: usize) -> Self {
        self | (count as u128) << COUNT_SHIFT
    }

    #[inline(always)]
    fn count(self) -> usize {
        (self >> COUNT_SHIFT) as usize
    }
}

impl PackedWord for u64 {
    const EMPTY: Self = 0;

    #[inline(always)]
    fn home(self, mask: usize) -> usize {
        fold(self ^ MULTIPLIER, MULTIPLIER) as usize & mask
    }

    #[inline(always)]
    fn key(self) -> Self {
        self & !(0xF << TINY_COUNT_SHIFT)
    }

    #[inline(always)]
    fn with_count(self, count: usize) -> Self {
        self | (count as u64) << TINY_COUNT_SHIFT
    }

    #[inline(always)]
    fn count(self) -> usize {
        (self >> TINY_COUNT_SHIFT) as usize
    }
}

/// Pieces up to this length pack into a `u64` key (the length in bits 56 to 58).
const TINY_MAX: usize = 7;
/// Where a tiny piece's token count sits: above its seven bytes and length.
const TINY_COUNT_SHIFT: u32 = 60;

/// A piece of at most `TINY_MAX` bytes as a number: its bytes, zero-padded, then the
/// length.
#[inline(always)]
fn tiny_key(piece: &[u8]) -> u64 {
    debug_assert!(piece.len() <= TINY_MAX);
    padded_word(piece) | (piece.len() as u64) << 56
}

/// Token counts of short pieces: an open-addressing table (linear probing, at most half
/// full) of packed keys, each slot holding its count in the top bits. Most lookups touch
/// one cache line: this lookup runs once per piece of every text, so it is worth a table
/// of its own, and the commonest pieces (up to seven bytes) get one of 8-byte slots,
/// small enough to stay in the processor's cache.
struct PackedTable<W> {
    /// `EMPTY` is an empty slot: no key is, since a key holds its (non-zero) length.
    slots: Vec<W>,
    len: usize,
}

type ShortPieces = PackedTable<u128>;
type TinyPieces = PackedTable<u64>;

impl<W> Default for PackedTable<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<W> PackedTable<W> {
    const fn new() -> Self {
        PackedTable {
            slots: Vec::new(),
            len: 0,
        }
    }
}

impl<W: PackedWord> PackedTable<W> {
    const FIRST_SIZE: usize = 4096;

    #[inline(always)]
    fn get(&self, key: W) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut at = key.home(mask);
        loop {
            let slot = self.slots[at];
            if slot == W::EMPTY {
                return None;
            }
            if slot.key() == key {
                return Some(slot.count());
            }
            at = (at + 1) & mask;
        }
    }

    /// Remembers a key that `get` did not find.
    fn insert(&mut self, key: W, count: usize) {
        debug_assert!(key != W::EMPTY && count <= 15);
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut at = key.home(mask);
        while self.slots[at] != W::EMPTY {
            at = (at + 1) & mask;
        }
        self.slots[at] = key.with_count(count);
        self.len += 1;
    }

    fn grow(&mut self) {
        self.grow_to((self.slots.len() * 2).max(Self::FIRST_SIZE));
    }

    /// Rebuilds the table with `size` slots (a power of two, more than it has).
    fn grow_to(&mut self, size: usize) {
        let old = std::mem::replace(&mut self.slots, written_empty(size));
        let mask = size - 1;
        for slot in old.into_iter().filter(|&slot| slot != W::EMPTY) {
            let mut at = slot.key().home(mask);
            while self.slots[at] != W::EMPTY {
                at = (at + 1) & mask;
            }
            self.slots[at] = slot;
        }
    }

    fn clear(&mut self) {
        *self = PackedTable::new();
    }
}

/// `size` empty slots, each written. A zeroed allocation (`vec![0; n]`) of this size is
/// fresh memory mapped lazily: a lookup's read maps the shared zero page, and the first
/// insert into that page then copies it and flushes every core's view of it, which
/// costs more than writing the slots up front.
fn written_empty<W: PackedWord>(size: usize) -> Vec<W> {
    let mut slots = Vec::with_capacity(size);
    slots.resize(size, W::EMPTY);
    slots
}

/// Token counts of pieces, short ones packed into tables of their own.
#[derive(Default)]
struct PieceCounts {
    tiny: TinyPieces,
    short: ShortPieces,
    long: FastMap<Box<[u8]>, u32>,
    /// The bytes of the keys of `long`.
    long_bytes: usize,
}

impl PieceCounts {
    /// The remembered count of a piece of at most `MEMO_MAX_PIECE` bytes.
    #[inline(always)]
    fn get(&self, piece: &[u8]) -> Option<usize> {
        if piece.len() <= TINY_MAX {
            self.tiny.get(tiny_key(piece))
        } else if piece.len() <= PACKED_MAX {
            self.short.get(packed_key(piece))
        } else {
            self.long.get(piece).map(|&count| count as usize)
        }
    }

    /// Remembers a piece's count (of at most `MEMO_MAX_PIECE` bytes) that `get` did not
    /// find; emptied first when full, which bounds memory on adversarial input.
    fn insert(&mut self, piece: &[u8], count: usize) {
        if self.tiny.len + self.short.len + self.long.len() >= MEMO_MAX_ENTRIES
            || self.long_bytes + piece.len() > MEMO_MAX_LONG_BYTES
        {
            self.tiny.clear();
            self.short.clear();
            self.long.clear();
            self.long_bytes = 0;
        }
        if piece.len() <= TINY_MAX {
            // A piece has at most as many tokens as bytes: the four bits hold it.
            self.tiny.insert(tiny_key(piece), count);
        } else if piece.len() <= PACKED_MAX {
            // A slot holds counts up to 15; a piece of at most 15 bytes has no more tokens.
            if count <= 15 {
                self.short.insert(packed_key(piece), count);
            }
        } else {
            self.long.insert(piece.into(), count as u32);
            self.long_bytes += piece.len();
        }
    }
}

/// Slots a counting thread of a bulk count starts its tables with (`reserve_for_bulk`):
/// about what a few MB of markdown fill, so the tables are not rebuilt on the way.
const BULK_TINY_SLOTS: usize = 1 << 16;
const BULK_SHORT_SLOTS: usize = 1 << 15;

/// One thread's memo: the counts of pieces, and the ranks its merges looked up lately.
#[derive(Default)]
struct PieceMemo {
    counts: PieceCounts,
    ranks: RankCache,
}

impl PieceMemo {
    #[inline(always)]
    fn count(&mut self, bpe: &EncodingTables, piece: &[u8]) -> usize {
        // Every byte is a token of its own (punctuation, a line break, a space): no
        // lookup needed for the commonest pieces of markdown.
        if piece.len() <= 1 {
            return piece.len();
        }
        // Two bytes are one token or two: the table of pairs says which in one read,
        // cheaper than the memo.
        if let [first, second] = *piece {
            return bpe.two_byte_count(first, second);
        }
        if piece.len() > MEMO_MAX_PIECE {
            return bpe.count_with(piece, &mut self.ranks);
        }
        if let Some(count) = self.counts.get(piece) {
            return count;
        }
        let count = bpe.count_with(piece, &mut self.ranks);
        self.counts.insert(piece, count);
        count
    }
}

/// Sizes this thread's memo for a bulk count in `grammar` up front: a thread that will
/// count many files learns tens of thousands of pieces, and growing its tables there
/// rebuilds them several times, each on fresh pages.
pub(crate) fn reserve_for_bulk(grammar: Grammar) {
    MEMOS.with(|memos| {
        if let Ok(mut memos) = memos.try_borrow_mut() {
            let counts = &mut memos[memo_slot(grammar)].counts;
            if counts.tiny.slots.len() < BULK_TINY_SLOTS {
                counts.tiny.grow_to(BULK_TINY_SLOTS);
            }
            if counts.short.slots.len() < BULK_SHORT_SLOTS {
                counts.short.grow_to(BULK_SHORT_SLOTS);
            }
        }
    });
}

/// Which of a thread's memos counts `grammar`'s encoding.
fn memo_slot(grammar: Grammar) -> usize {
    match grammar {
        Grammar::O200k => 0,
        Grammar::Cl100k => 1,
    }
}

thread_local! {
    /// One memo per BPE encoding (o200k, cl100k) per thread: no locking on the hot path.
    static MEMOS: RefCell<[PieceMemo; 2]> = RefCell::new([PieceMemo::default(), PieceMemo::default()]);
}

fn table(grammar: Grammar) -> &'static EncodingTables {
    match grammar {
        Grammar::O200k => &bpe::O200K,
        #[cfg(feature = "cl100k")]
        Grammar::Cl100k => bpe::cl100k(),
        // Without the cl100k tables `tokens::count` never counts with this grammar.
        #[cfg(not(feature = "cl100k"))]
        Grammar::Cl100k => &bpe::O200K,
    }
}

/// Texts at least this long are cut in parts counted on several threads at once.
pub const SPLIT_MIN_BYTES: usize = 512 * 1024;

/// How many threads counting may use: the machine's cores, at most eight.
pub fn worker_count() -> usize {
    static COUNT: OnceLock<usize> = OnceLock::new();
    *COUNT.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(8)
    })
}

/// Exact token count of `text` under a BPE encoding; a long text is cut where a piece
/// must begin and its parts are counted on the machine's cores.
pub(crate) fn count_bpe(grammar: Grammar, text: &str) -> usize {
    let workers = worker_count();
    if workers < 2 || text.len() < SPLIT_MIN_BYTES {
        return count_on_this_thread(grammar, text);
    }
    let parts = split_at_piece_starts(text, workers);
    let Some((first, rest)) = parts.split_first() else {
        return 0;
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = rest
            .iter()
            .map(|&part| {
                (
                    part,
                    scope.spawn(move || count_on_this_thread(grammar, part)),
                )
            })
            .collect();
        let mut total = count_on_this_thread(grammar, first);
        for (part, handle) in handles {
            // A worker that panicked is counted again here, where the same panic
            // reaches the caller as it would have without threads.
            total += handle
                .join()
                .unwrap_or_else(|_| count_on_this_thread(grammar, part));
        }
        total
    })
}

/// Cuts `text` into at most `parts` parts, each cut just after a line break that an
/// ASCII letter follows. Both grammars start a piece there: no alternative runs over a
/// line break into a letter (the whitespace and punctuation rules end at or after the
/// line breaks, the letter rules' optional prefix is never a line break), so the parts'
/// counts add up to the whole's.
pub(crate) fn split_at_piece_starts(text: &str, parts: usize) -> Vec<&str> {
    let bytes = text.as_bytes();
    let step = text.len() / parts.max(1);
    let mut out = Vec::with_capacity(parts);
    let mut start = 0;
    for part in 1..parts {
        let mut at = (part * step).max(start + 1);
        let cut = loop {
            let Some(offset) = bytes
                .get(at..)
                .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
            else {
                break None;
            };
            let after = at + offset + 1;
            if bytes.get(after).is_some_and(u8::is_ascii_alphabetic) {
                break Some(after);
            }
            at = after;
        };
        // `cut` follows an ASCII line break, so it is a character boundary.
        let Some(cut) = cut else { break };
        out.push(&text[start..cut]);
        start = cut;
    }
    out.push(&text[start..]);
    out
}

fn count_on_this_thread(grammar: Grammar, text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    let bpe = table(grammar);
    let slot = memo_slot(grammar);
    MEMOS.with(|memos| match memos.try_borrow_mut() {
        Ok(mut memos) => {
            let memo = &mut memos[slot];
            let mut pieces = pieces(grammar, text);
            let mut total = 0;
            while let Some(piece) = pieces.next_bytes() {
                total += memo.count(bpe, piece);
            }
            total
        }
        // Unreachable (counting never re-enters itself), but a memo-less count is
        // always a correct fallback.
        Err(_) => {
            let mut ranks = RankCache::default();
            pieces(grammar, text)
                .map(|piece| bpe.count_with(piece.as_bytes(), &mut ranks))
                .sum()
        }
    })
}

/// Token ids of `text`, for tests that compare whole sequences with the reference.
#[cfg(test)]
pub(crate) fn encode_bpe(grammar: Grammar, text: &str) -> Vec<u32> {
    let bpe = table(grammar);
    pieces(grammar, text)
        .flat_map(|piece| bpe.encode(piece.as_bytes()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The obvious construction: copy into a zeroed buffer, length in the last byte.
    fn packed_key_by_copy(piece: &[u8]) -> u128 {
        let mut key = [0u8; 16];
        key[..piece.len()].copy_from_slice(piece);
        key[15] = piece.len() as u8;
        u128::from_le_bytes(key)
    }

    #[test]
    fn a_long_text_counted_in_parallel_parts_counts_as_a_whole() {
        let paragraph = "## Decisions\n\n- We keep `SQLite` because it's simple.\n  indented\n\n\
                         Résumé: naïve café 日本語 — 😀\n!!! ...\n/path/to\n\r\nTail words  \n";
        let text = paragraph.repeat(SPLIT_MIN_BYTES / paragraph.len() + 50);
        for parts in [2, 3, 7] {
            let cut = split_at_piece_starts(&text, parts);
            assert!(cut.len() > 1 && cut.len() <= parts);
            assert_eq!(cut.concat(), text);
            for grammar in [Grammar::O200k, Grammar::Cl100k] {
                let whole: Vec<&str> = pieces(grammar, &text).collect();
                let by_parts: Vec<&str> = cut.iter().flat_map(|p| pieces(grammar, p)).collect();
                assert_eq!(whole, by_parts, "{grammar:?} in {parts} parts");
            }
        }
        for grammar in [Grammar::O200k, Grammar::Cl100k] {
            assert_eq!(
                count_bpe(grammar, &text),
                count_on_this_thread(grammar, &text)
            );
        }
        // No line break followed by a letter: one part, never a cut inside a piece.
        assert_eq!(split_at_piece_starts(&" \n1".repeat(1000), 4).len(), 1);
    }

    #[test]
    fn a_thread_readied_for_a_bulk_count_counts_as_any_other() {
        let text =
            "## Decisions\n\n- We keep `SQLite` because it's simple. Résumé 😀\n".repeat(200);
        for grammar in [Grammar::O200k, Grammar::Cl100k] {
            let plain = std::thread::scope(|s| {
                s.spawn(|| count_on_this_thread(grammar, &text))
                    .join()
                    .unwrap()
            });
            let (readied, sizes) = std::thread::scope(|s| {
                s.spawn(|| {
                    reserve_for_bulk(grammar);
                    let count = count_on_this_thread(grammar, &text);
                    let sizes = MEMOS.with(|memos| {
                        let memos = memos.borrow();
                        let counts = &memos[memo_slot(grammar)].counts;
                        (counts.tiny.slots.len(), counts.short.slots.len())
                    });
                    (count, sizes)
                })
                .join()
                .unwrap()
            });
            assert_eq!(readied, plain, "{grammar:?}");
            assert_eq!(sizes, (BULK_TINY_SLOTS, BULK_SHORT_SLOTS));
        }
    }

    #[test]
    fn short_pieces_remember_counts_through_growth_and_clearing() {
        let mut table = ShortPieces::default();
        let keys: Vec<(u128, usize)> = (0..20_000u32)
            .map(|n| {
                let piece = format!("w{n}");
                (packed_key(piece.as_bytes()), (n % 16) as usize)
            })
            .collect();
        for &(key, count) in &keys {
            assert_eq!(table.get(key), None);
            table.insert(key, count);
        }
        assert_eq!(table.len, keys.len());
        assert!(table.slots.len() >= 2 * keys.len());
        for &(key, count) in &keys {
            assert_eq!(table.get(key), Some(count));
        }
        // Keys differing only in length or in the last byte stay apart.
        assert_eq!(table.get(packed_key(b"w1\0")), None);
        table.clear();
        assert_eq!(table.get(keys[0].0), None);
    }

    #[test]
    fn tiny_pieces_remember_counts_through_growth_and_clearing() {
        let mut table = TinyPieces::default();
        let keys: Vec<(u64, usize)> = (0..20_000u32)
            .map(|n| (tiny_key(format!("w{n}").as_bytes()), (n % 16) as usize))
            .collect();
        for &(key, count) in &keys {
            assert_eq!(table.get(key), None);
            table.insert(key, count);
        }
        assert!(table.slots.len() >= 2 * keys.len());
        for &(key, count) in &keys {
            assert_eq!(table.get(key), Some(count));
        }
        assert_eq!(table.get(tiny_key(b"w1\0")), None);
        table.clear();
        assert_eq!(table.get(keys[0].0), None);
    }

    #[test]
    fn piece_counts_keep_pieces_of_every_length_apart() {
        let source: Vec<u8> = (0..MEMO_MAX_PIECE).map(|b| b'a' + (b % 26) as u8).collect();
        let mut counts = PieceCounts::default();
        for len in 1..=MEMO_MAX_PIECE {
            assert_eq!(counts.get(&source[..len]), None, "{len} bytes");
            counts.insert(&source[..len], len % 8);
        }
        for len in 1..=MEMO_MAX_PIECE {
            assert_eq!(counts.get(&source[..len]), Some(len % 8), "{len} bytes");
        }
        // A trailing zero byte is part of a piece, in each table.
        for len in [1, TINY_MAX, PACKED_MAX] {
            let mut longer = source[..len - 1].to_vec();
            longer.push(0);
            assert_eq!(counts.get(&longer), None, "{len} bytes");
        }
    }

    #[test]
    fn long_pieces_fill_the_memo_up_to_a_byte_budget() {
        let mut counts = PieceCounts::default();
        let pieces: Vec<Vec<u8>> = (0..MEMO_MAX_LONG_BYTES / MEMO_MAX_PIECE + 1)
            .map(|n| {
                let mut piece = vec![b'='; MEMO_MAX_PIECE];
                piece[..8].copy_from_slice(&(n as u64).to_le_bytes());
                piece
            })
            .collect();
        let (last, first) = pieces.split_last().unwrap();
        for piece in first {
            counts.insert(piece, 3);
        }
        assert_eq!(counts.long_bytes, MEMO_MAX_LONG_BYTES);
        assert!(first.iter().all(|piece| counts.get(piece) == Some(3)));
        // One more would pass the budget: the memo starts again.
        counts.insert(last, 4);
        assert_eq!(counts.long_bytes, MEMO_MAX_PIECE);
        assert_eq!(counts.get(&first[0]), None);
        assert_eq!(counts.get(last), Some(4));
    }

    #[test]
    fn tiny_keys_hold_every_byte_and_the_length() {
        let source: Vec<u8> = (1..=20u8).map(|b| b.wrapping_mul(37)).collect();
        for start in 0..8 {
            for len in 0..=TINY_MAX {
                let piece = &source[start..start + len];
                let mut key = [0u8; 8];
                key[..len].copy_from_slice(piece);
                key[7] = len as u8;
                assert_eq!(tiny_key(piece), u64::from_le_bytes(key), "{piece:?}");
            }
        }
        assert_ne!(tiny_key(b"a\0"), tiny_key(b"a"));
    }

    #[test]
    fn packed_keys_hold_every_byte_and_the_length() {
        let source: Vec<u8> = (1..=40u8).map(|b| b.wrapping_mul(37)).collect();
        for start in 0..8 {
            for len in 0..=PACKED_MAX {
                let piece = &source[start..start + len];
                assert_eq!(packed_key(piece), packed_key_by_copy(piece), "{piece:?}");
            }
        }
        // Trailing zero bytes and equal bytes still tell lengths apart.
        assert_ne!(packed_key(b"a\0"), packed_key(b"a"));
        assert_ne!(packed_key(b"aaaaaaaaa"), packed_key(b"aaaaaaaaaa"));
    }
}
