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

/// FNV-1a over `parts` in order, then a final mix so that every bit of the result
/// depends on every byte. Several times cheaper than SipHash on short paths; these maps
/// hold only this user's own paths, never attacker-chosen keys.
pub fn key_hash(parts: &[&[u8]]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01B3;
    let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
    for part in parts {
        for &byte in *part {
            hash = (hash ^ u64::from(byte)).wrapping_mul(PRIME);
        }
    }
    hash ^= hash >> 29;
    hash = hash.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    hash ^ (hash >> 32)
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
    fn parts_hash_as_their_concatenation_and_differ_from_others() {
        assert_eq!(key_hash(&[b"ab", b"c"]), key_hash(&[b"abc"]));
        assert_ne!(key_hash(&[b"abc"]), key_hash(&[b"abd"]));
        assert_ne!(key_hash(&[]), key_hash(&[b"\0"]));
    }
}
