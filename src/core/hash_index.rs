//! An index from 64-bit key hashes to record numbers, for cache files that are read
//! whole and left as they are (the token cache, the listing cache): opening one indexes
//! where its records lie instead of decoding them, and a lookup checks the key of each
//! candidate record itself. Records whose hashes collide are all kept.
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// For maps whose keys are already well-mixed hashes: uses them as they are.
#[derive(Default, Clone, Copy)]
pub struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn write(&mut self, bytes: &[u8]) {
        // Only u64 keys are hashed; this is the trait's required fallback.
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map keyed by [`key_hash`] values.
pub type ByHash<V> = HashMap<u64, V, BuildHasherDefault<IdentityHasher>>;

/// A hasher for paths and names that takes eight bytes a step, with a final mix so
/// that every bit of the result depends on every byte. Several times cheaper than
/// SipHash (or byte-wise FNV) on paths; the maps it serves hold only this user's own
/// paths, never attacker-chosen keys. Only [`checksum`] values reach the disk: a change
/// here must bump the cache files' versions (an old file would otherwise read as
/// corrupt, which is handled, but costs a full recount).
#[derive(Default, Clone, Copy)]
pub struct PathHasher(u64);

impl PathHasher {
    const SEED: u64 = 0x243F_6A88_85A3_08D3;
    const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(23) ^ word)
            .wrapping_add(Self::SEED)
            .wrapping_mul(Self::MULTIPLIER);
    }
}

impl Hasher for PathHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        // The length keeps "a" apart from "a\0" and one write apart from two.
        self.mix(u64::from_le_bytes(word) ^ ((bytes.len() as u64) << 56));
    }

    fn finish(&self) -> u64 {
        let mut hash = self.0;
        hash ^= hash >> 29;
        hash = hash.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        hash ^ (hash >> 32)
    }
}

/// Builds [`PathHasher`]s, for `HashMap`s keyed by paths.
pub type BuildPathHasher = BuildHasherDefault<PathHasher>;

/// Checksum of a cache file's contents, to tell a whole file from a truncated, torn or
/// corrupted one (not a defence against tampering). Four independent lanes of eight
/// bytes each: a cache is checked before anything else can start, and one serial
/// multiply chain over a megabyte costs over a millisecond where four cost a tenth.
pub fn checksum(bytes: &[u8]) -> u64 {
    const MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut lanes: [u64; 4] = [
        0x243F_6A88_85A3_08D3,
        0x1319_8A2E_0370_7344,
        0xA409_3822_299F_31D0,
        0x082E_FA98_EC4E_6C89,
    ];
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        for (lane, word) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            let mut le = [0u8; 8];
            le.copy_from_slice(word);
            *lane = (*lane ^ u64::from_le_bytes(le)).wrapping_mul(MULTIPLIER);
            *lane ^= *lane >> 29;
        }
    }
    let mut hasher = PathHasher::default();
    for lane in lanes {
        hasher.mix(lane);
    }
    // The tail and the length: "a" and "a\0" differ.
    hasher.write(blocks.remainder());
    hasher.mix(bytes.len() as u64);
    hasher.finish()
}

/// The hash of a key made of `parts` (a path, and a memory id for an Infinity memory).
pub fn key_hash(parts: &[&[u8]]) -> u64 {
    let mut hasher = PathHasher::default();
    for part in parts {
        hasher.write(part);
    }
    hasher.finish()
}

#[derive(Debug, Default)]
pub struct HashIndex {
    /// The first record of each hash.
    first: ByHash<u32>,
    /// Records whose hash an earlier record already had: found by a scan, which only a
    /// 64-bit collision (or a file holding a key twice) ever needs.
    later: Vec<(u64, u32)>,
}

impl HashIndex {
    pub fn with_capacity(capacity: usize) -> HashIndex {
        HashIndex {
            first: ByHash::with_capacity_and_hasher(capacity, Default::default()),
            later: Vec::new(),
        }
    }

    pub fn insert(&mut self, hash: u64, record: u32) {
        match self.first.entry(hash) {
            std::collections::hash_map::Entry::Occupied(_) => self.later.push((hash, record)),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(record);
            }
        }
    }

    /// The records that may hold a key with this hash, in the order they were inserted.
    pub fn candidates(&self, hash: u64) -> impl Iterator<Item = u32> + '_ {
        let first = self.first.get(&hash).copied();
        let later = first
            .into_iter()
            .flat_map(move |_| self.later.iter().filter(move |(h, _)| *h == hash))
            .map(|&(_, record)| record);
        first.into_iter().chain(later)
    }

    /// How many records share their hash with an earlier one.
    pub fn collisions(&self) -> usize {
        self.later.len()
    }

    /// How many distinct hashes are indexed.
    pub fn hashes(&self) -> usize {
        self.first.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colliding_records_are_all_candidates_in_order() {
        let mut index = HashIndex::with_capacity(4);
        index.insert(7, 0);
        index.insert(9, 1);
        index.insert(7, 2);
        index.insert(7, 3);
        assert_eq!(index.candidates(7).collect::<Vec<_>>(), vec![0, 2, 3]);
        assert_eq!(index.candidates(9).collect::<Vec<_>>(), vec![1]);
        assert_eq!(index.candidates(8).count(), 0);
        assert_eq!((index.hashes(), index.collisions()), (2, 2));
    }

    #[test]
    fn keys_that_differ_hash_apart() {
        let keys: Vec<Vec<&[u8]>> = vec![
            vec![],
            vec![b""],
            vec![b"\0"],
            vec![b"abc"],
            vec![b"abd"],
            vec![b"ab", b"c"],
            vec![b"/root/project-0001/memory-bank/activeContext.md"],
            vec![b"/root/project-0002/memory-bank/activeContext.md"],
            vec![b"/root/project-0001/memory-bank/activeContext.mD"],
        ];
        let hashes: std::collections::HashSet<u64> = keys.iter().map(|k| key_hash(k)).collect();
        assert_eq!(hashes.len(), keys.len());
        assert_eq!(key_hash(&[b"abc"]), key_hash(&[b"abc"]));
    }

    #[test]
    fn checksum_changes_with_any_flipped_bit_swap_or_cut() {
        // Long enough for whole 32-byte blocks and a tail.
        let original: Vec<u8> = (0..100u32).map(|n| (n * 7 + 3) as u8).collect();
        let sum = checksum(&original);
        assert_eq!(checksum(&original.clone()), sum);
        let mut seen = std::collections::HashSet::from([sum]);
        for at in 0..original.len() {
            for bit in 0..8 {
                let mut damaged = original.clone();
                damaged[at] ^= 1 << bit;
                assert!(seen.insert(checksum(&damaged)), "byte {at} bit {bit}");
            }
        }
        for cut in 0..original.len() {
            assert!(seen.insert(checksum(&original[..cut])), "cut at {cut}");
        }
        // Words swapped between lanes, and a trailing zero byte.
        let mut swapped = original.clone();
        swapped[..16].rotate_left(8);
        assert_ne!(checksum(&swapped), sum);
        let mut longer = original.clone();
        longer.push(0);
        assert_ne!(checksum(&longer), sum);
    }
}
