//! The hashes mbank uses (foldhash in memory, CRC-32 for cache checksums, FNV-1a for
//! names on disk) and an index from 64-bit key hashes to record numbers, for cache
//! files that are read whole and left as they are (the token cache, the listing cache): opening one indexes
//! where its records lie instead of decoding them, and a lookup checks the key of each
//! candidate record itself. Records whose hashes collide are all kept.
use std::collections::HashMap;
use std::hash::BuildHasher;

/// foldhash with its fixed seed, for in-memory maps keyed by paths, names and key
/// hashes: the maps hold only this user's own paths, never attacker-chosen keys. Only
/// [`checksum`] values and [`stable_hash`] names reach the disk.
pub(crate) type BuildPathHasher = foldhash::fast::FixedState;

/// A map keyed by [`key_hash`] values.
pub(crate) type ByHash<V> = HashMap<u64, V, BuildPathHasher>;

/// Checksum of a cache file's contents (CRC-32), to tell a whole file from a truncated,
/// torn or corrupted one (not a defence against tampering).
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    u64::from(crc32fast::hash(bytes))
}

/// [`checksum`] of bytes that come in pieces (a file written as it is encoded).
#[derive(Default)]
pub(crate) struct Checksum(crc32fast::Hasher);

impl Checksum {
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    pub fn finish(self) -> u64 {
        u64::from(self.0.finalize())
    }
}

/// The hash of a key made of `parts` (a path, and a memory id for an Infinity memory).
pub(crate) fn key_hash(parts: &[&[u8]]) -> u64 {
    BuildPathHasher::default().hash_one(parts)
}

/// FNV-1a (the `fnv` crate): a hash whose definition never changes (unlike `DefaultHasher`
/// or foldhash, which may change between versions), for names that reach the disk or
/// outlive the process: review store folders and copies, listing cache files, hunk ids.
/// Changing it would orphan a user's review store.
#[derive(Default)]
pub(crate) struct StableHasher(fnv::FnvHasher);

impl StableHasher {
    pub fn write(&mut self, bytes: &[u8]) {
        std::hash::Hasher::write(&mut self.0, bytes);
    }

    pub fn finish(&self) -> u64 {
        std::hash::Hasher::finish(&self.0)
    }
}

/// So values that implement `Hash` (paths, sizes, times) can be stamped stably.
impl std::hash::Hasher for StableHasher {
    fn write(&mut self, bytes: &[u8]) {
        StableHasher::write(self, bytes);
    }

    fn finish(&self) -> u64 {
        StableHasher::finish(self)
    }
}

/// [`StableHasher`] of one byte string.
pub(crate) fn stable_hash(bytes: &[u8]) -> u64 {
    let mut hasher = StableHasher::default();
    hasher.write(bytes);
    hasher.finish()
}

#[derive(Debug, Default)]
pub(crate) struct HashIndex {
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
    pub(crate) fn candidates(&self, hash: u64) -> impl Iterator<Item = u32> + '_ {
        let first = self.first.get(&hash).copied();
        let later = first
            .into_iter()
            .flat_map(move |_| self.later.iter().filter(move |(h, _)| *h == hash))
            .map(|&(_, record)| record);
        first.into_iter().chain(later)
    }

    /// How many records share their hash with an earlier one.
    #[cfg(test)]
    pub(crate) fn collisions(&self) -> usize {
        self.later.len()
    }

    /// How many distinct hashes are indexed.
    #[cfg(test)]
    pub fn hashes(&self) -> usize {
        self.first.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_hash_is_fnv_1a_as_it_always_was() {
        // Names on disk (review store copies, listing cache files) depend on these values.
        assert_eq!(stable_hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(stable_hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(stable_hash(b"foobar"), 0x8594_4171_f739_67e8);
    }

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
        // Words swapped, and a trailing zero byte.
        let mut swapped = original.clone();
        swapped[..16].rotate_left(8);
        assert_ne!(checksum(&swapped), sum);
        let mut pieces = Checksum::default();
        for piece in original.chunks(7) {
            pieces.update(piece);
        }
        assert_eq!(pieces.finish(), sum, "the same bytes in pieces");
        let mut longer = original.clone();
        longer.push(0);
        assert_ne!(checksum(&longer), sum);
    }
}
