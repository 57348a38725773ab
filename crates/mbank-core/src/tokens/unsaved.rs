//! Figures counted in this process and not yet saved, held compactly. A cache of a whole
//! root holds one record for every memory file it counted, until it is saved: one
//! allocation per path and the file's fixed-width figures in a map bucket of their own
//! took about 300 bytes a file. Here each record (path, Infinity memory id, figures with
//! every integer as a varint) lies in a small block of bytes of the cache that counted it
//! (a fork's blocks are taken over whole when it is absorbed), and an index of key hashes
//! leads to it.
use serde::{Deserialize, Serialize};

use super::stored::Figures;
use crate::cache_store::{decode, decode_prefix, encode_into};
use crate::io::hash_index::ByHash;

/// One record as it is held in memory (never written to disk).
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Held<'a> {
    pub path: &'a str,
    #[serde(borrow)]
    pub memory_id: Option<&'a str>,
    pub figures: Figures,
}

/// Records are kept in blocks of about this many bytes: one growing buffer would keep
/// up to half of its size unused after its last doubling, and small blocks fit in the
/// room the run's earlier work freed (a folder's listing, a project's banks).
const BLOCK_BYTES: usize = 4 * 1024;

/// Records one cache wrote, one after another.
#[derive(Debug, Clone, Default)]
struct Block {
    bytes: Vec<u8>,
    /// Where each record ends in `bytes`.
    ends: Vec<u32>,
    /// The number of the block's first record: numbers run on across blocks.
    first_number: u32,
}

impl Block {
    fn record(&self, index: usize) -> Option<&[u8]> {
        let start = match index.checked_sub(1) {
            Some(before) => *self.ends.get(before)? as usize,
            None => 0,
        };
        let end = *self.ends.get(index)? as usize;
        self.bytes.get(start..end)
    }
}

/// Records replaced by a newer version of their file are left where they lie until there
/// are this many and more than live ones; then the live ones are copied to one block.
const DEAD_BEFORE_COMPACTING: usize = 1024;

/// The unsaved figures of one cache; see the module comment.
#[derive(Debug, Clone, Default)]
pub(super) struct Unsaved {
    blocks: Vec<Block>,
    /// Key hash to the number of the live record of the first key with that hash.
    first: ByHash<u32>,
    /// Live records whose key's hash another key has too (a 64-bit collision).
    later: Vec<(u64, u32)>,
    /// Records a newer one replaced, or that an absorbing cache did not take.
    dead: usize,
    /// Where a record is encoded before it goes to a block.
    scratch: Vec<u8>,
}

impl Unsaved {
    /// How many keys have figures.
    pub fn len(&self) -> usize {
        self.first.len() + self.later.len()
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }

    fn next_number(&self) -> u32 {
        self.blocks
            .last()
            .map_or(0, |block| block.first_number + block.ends.len() as u32)
    }

    fn bytes_of(&self, number: u32) -> Option<&[u8]> {
        let at = self
            .blocks
            .partition_point(|block| block.first_number <= number)
            .checked_sub(1)?;
        let block = &self.blocks[at];
        block.record((number - block.first_number) as usize)
    }

    /// The record numbered `number` (see [`Unsaved::records`]).
    pub fn record(&self, number: u32) -> Option<Held<'_>> {
        decode(self.bytes_of(number)?)
    }

    fn is_key(&self, number: u32, path: &str, memory_id: Option<&str>) -> bool {
        self.bytes_of(number)
            .and_then(decode_prefix::<(&str, Option<&str>)>)
            .is_some_and(|key| key == (path, memory_id))
    }

    /// The index slot of the live record for (path, memory id).
    fn slot(&mut self, hash: u64, path: &str, memory_id: Option<&str>) -> Option<&mut u32> {
        let first = *self.first.get(&hash)?;
        if self.is_key(first, path, memory_id) {
            return self.first.get_mut(&hash);
        }
        let at = self
            .later
            .iter()
            .position(|&(h, number)| h == hash && self.is_key(number, path, memory_id))?;
        Some(&mut self.later[at].1)
    }

    /// The number of the live record for (path, memory id).
    fn number(&self, hash: u64, path: &str, memory_id: Option<&str>) -> Option<u32> {
        let first = *self.first.get(&hash)?;
        if self.is_key(first, path, memory_id) {
            return Some(first);
        }
        self.later
            .iter()
            .find(|&&(h, number)| h == hash && self.is_key(number, path, memory_id))
            .map(|&(_, number)| number)
    }

    /// The figures held for (path, memory id), whose key hash is `hash`.
    pub fn figures(&self, hash: u64, path: &str, memory_id: Option<&str>) -> Option<Figures> {
        if self.is_empty() {
            return None;
        }
        let number = self.number(hash, path, memory_id)?;
        Some(self.record(number)?.figures)
    }

    /// Appends a record; its number, or `None` when it cannot be held (then nothing is).
    fn append(&mut self, record: &Held<'_>) -> Option<u32> {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        let number = encode_into(record, &mut scratch)
            .then(|| self.append_bytes(&scratch))
            .flatten();
        self.scratch = scratch;
        number
    }

    /// Appends an encoded record to the last block, or to a new one when the last is full.
    fn append_bytes(&mut self, record: &[u8]) -> Option<u32> {
        let number = self.next_number();
        let fits = self
            .blocks
            .last()
            .is_some_and(|block| block.bytes.len() + record.len() <= BLOCK_BYTES);
        if !fits {
            // The first block grows as it fills; later ones are made whole at once.
            let capacity = if self.blocks.is_empty() {
                0
            } else {
                BLOCK_BYTES
            };
            self.blocks.push(Block {
                bytes: Vec::with_capacity(capacity.max(record.len())),
                ends: Vec::new(),
                first_number: number,
            });
        }
        let block = self.blocks.last_mut()?;
        let end = u32::try_from(block.bytes.len() + record.len()).ok()?;
        block.bytes.extend_from_slice(record);
        block.ends.push(end);
        Some(number)
    }

    /// Holds `figures` for (path, memory id), whose key hash is `hash`, replacing what was
    /// held for that key. Figures that cannot be encoded are not held (nor are older ones).
    pub fn put(&mut self, hash: u64, path: &str, memory_id: Option<&str>, figures: Figures) {
        let record = Held {
            path,
            memory_id,
            figures,
        };
        let number = self.append(&record);
        match (self.slot(hash, path, memory_id), number) {
            (Some(slot), Some(number)) => {
                *slot = number;
                self.dead += 1;
            }
            (Some(_), None) => self.remove(hash, path, memory_id),
            (None, Some(number)) => self.index(hash, number),
            (None, None) => {}
        }
        self.compact_if_wasteful();
    }

    fn index(&mut self, hash: u64, number: u32) {
        match self.first.entry(hash) {
            std::collections::hash_map::Entry::Occupied(_) => self.later.push((hash, number)),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(number);
            }
        }
    }

    /// Makes the index lead to record `new` where it led to `old` (of the same key).
    fn repoint(&mut self, hash: u64, old: u32, new: u32) {
        if let Some(first) = self.first.get_mut(&hash)
            && *first == old
        {
            *first = new;
            return;
        }
        if let Some(slot) = self.later.iter_mut().find(|entry| **entry == (hash, old)) {
            slot.1 = new;
        }
    }

    fn remove(&mut self, hash: u64, path: &str, memory_id: Option<&str>) {
        let Some(number) = self.number(hash, path, memory_id) else {
            return;
        };
        self.dead += 1;
        if self.first.get(&hash) == Some(&number) {
            match self.later.iter().position(|&(h, _)| h == hash) {
                Some(at) => {
                    let (_, moved) = self.later.remove(at);
                    self.first.insert(hash, moved);
                }
                None => {
                    self.first.remove(&hash);
                }
            }
        } else {
            self.later.retain(|&(h, n)| (h, n) != (hash, number));
        }
    }

    /// Takes `other`'s records over without copying them. `take` says for each of its
    /// records whether it replaces what is held for its key (the figures passed, if any);
    /// a record not taken is left out.
    pub fn absorb(
        &mut self,
        other: Unsaved,
        mut take: impl FnMut(&Held<'_>, Option<Figures>) -> bool,
    ) {
        let Unsaved {
            blocks,
            first,
            later,
            dead,
            scratch: _,
        } = other;
        let shift = self.next_number();
        let live: Vec<(u64, u32)> = first.into_iter().chain(later).collect();
        let mut dead = dead;
        for mut block in blocks {
            block.first_number += shift;
            self.blocks.push(block);
        }
        for (hash, number) in live {
            let number = number + shift;
            let Some(record) = self.record(number) else {
                dead += 1;
                continue;
            };
            let held = self
                .number(hash, record.path, record.memory_id)
                .and_then(|n| Some((n, self.record(n)?.figures)));
            if !take(&record, held.map(|(_, figures)| figures)) {
                dead += 1;
                continue;
            }
            match held {
                Some((old, _)) => {
                    self.repoint(hash, old, number);
                    dead += 1;
                }
                None => self.index(hash, number),
            }
        }
        self.dead += dead;
        self.compact_if_wasteful();
    }

    /// The live records with their numbers, in no particular order.
    pub fn records(&self) -> impl Iterator<Item = (u32, Held<'_>)> + '_ {
        let numbers = self.first.values().chain(self.later.iter().map(|(_, n)| n));
        numbers.filter_map(|&number| Some((number, self.record(number)?)))
    }

    fn compact_if_wasteful(&mut self) {
        if self.dead < DEAD_BEFORE_COMPACTING || self.dead <= self.len() {
            return;
        }
        let mut live: Vec<(u32, u64)> = self
            .first
            .iter()
            .map(|(&hash, &number)| (number, hash))
            .chain(self.later.iter().map(|&(hash, number)| (number, hash)))
            .collect();
        live.sort_unstable();
        let mut compact = Unsaved::default();
        for (number, hash) in live {
            if let Some(number) = self
                .bytes_of(number)
                .and_then(|bytes| compact.append_bytes(bytes))
            {
                compact.index(hash, number);
            }
        }
        *self = compact;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markup::dates::WrittenDates;
    use crate::tokens::{Encoding, TextStats};

    fn figures(tokens: usize, modified: i128) -> Figures {
        let stats = TextStats {
            bytes: 12_345,
            lines: 300,
            chars: 12_000,
            loaded_tokens: tokens,
            private_tokens: 40,
            private_blocks: 2,
            private_file: false,
            encoding: Encoding::O200k,
            dates: WrittenDates::from_days(Some(20_400), &[20_401, 20_402]),
        };
        Figures::of((12_345, modified, i128::MIN), &stats, true)
    }

    const MODIFIED: i128 = 1_764_000_000_123_456_789;

    #[test]
    fn figures_read_back_unchanged_from_fewer_bytes_than_a_file_takes() {
        let mut unsaved = Unsaved::default();
        let pre_epoch = figures(7, -5);
        unsaved.put(
            1,
            "/p/memory-bank/progress.md",
            None,
            figures(3_210, MODIFIED),
        );
        unsaved.put(2, "/p/store.json", Some("m-1"), pre_epoch);
        assert_eq!(unsaved.len(), 2);
        assert_eq!(
            unsaved.figures(1, "/p/memory-bank/progress.md", None),
            Some(figures(3_210, MODIFIED))
        );
        assert_eq!(
            unsaved.figures(2, "/p/store.json", Some("m-1")),
            Some(pre_epoch)
        );
        let stats = unsaved.figures(2, "/p/store.json", Some("m-1")).unwrap();
        assert_eq!(
            stats.stats(Encoding::O200k).dates,
            WrittenDates::from_days(Some(20_400), &[20_401, 20_402])
        );
        // The memory id is part of the key.
        assert_eq!(unsaved.figures(2, "/p/store.json", None), None);
        assert_eq!(unsaved.figures(2, "/p/store.json", Some("m-2")), None);
        let block = &unsaved.blocks[0];
        let path_and_id = "/p/memory-bank/progress.md".len() + 2;
        assert!(block.ends[0] as usize - path_and_id < Figures::LEN / 2);
        let mut records: Vec<_> = unsaved
            .records()
            .map(|(_, r)| (r.path.to_owned(), r.memory_id.map(str::to_owned), r.figures))
            .collect();
        records.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            records,
            vec![
                (
                    "/p/memory-bank/progress.md".to_owned(),
                    None,
                    figures(3_210, MODIFIED)
                ),
                (
                    "/p/store.json".to_owned(),
                    Some("m-1".to_owned()),
                    pre_epoch
                ),
            ]
        );
    }

    #[test]
    fn a_newer_version_replaces_the_figures_of_its_key_alone_when_hashes_collide() {
        let mut unsaved = Unsaved::default();
        for (i, path) in ["/a.md", "/b.md", "/c.md"].into_iter().enumerate() {
            unsaved.put(7, path, None, figures(i, MODIFIED));
        }
        unsaved.put(7, "/b.md", None, figures(20, MODIFIED + 1));
        unsaved.put(7, "/a.md", None, figures(10, MODIFIED + 1));
        assert_eq!(unsaved.len(), 3);
        let found = |path| unsaved.figures(7, path, None).map(|f| f.loaded_tokens);
        assert_eq!(
            (found("/a.md"), found("/b.md"), found("/c.md")),
            (Some(10), Some(20), Some(2))
        );
        assert_eq!(found("/d.md"), None);
        assert_eq!(unsaved.records().count(), 3);
    }

    #[test]
    fn absorbing_takes_the_other_records_over_as_told() {
        let mut main = Unsaved::default();
        main.put(1, "/a.md", None, figures(1, MODIFIED));
        main.put(2, "/b.md", None, figures(2, MODIFIED));
        let mut other = Unsaved::default();
        other.put(2, "/b.md", None, figures(20, MODIFIED + 1));
        other.put(3, "/c.md", None, figures(3, MODIFIED));
        other.put(4, "/d.md", None, figures(4, MODIFIED));
        let mut asked = Vec::new();
        main.absorb(other, |record, held| {
            asked.push((record.path.to_owned(), held.map(|f| f.loaded_tokens)));
            record.path != "/d.md"
        });
        asked.sort();
        assert_eq!(
            asked,
            vec![
                ("/b.md".to_owned(), Some(2)),
                ("/c.md".to_owned(), None),
                ("/d.md".to_owned(), None),
            ]
        );
        assert_eq!(main.blocks.len(), 2);
        assert_eq!(main.len(), 3);
        let found = |hash, path| main.figures(hash, path, None).map(|f| f.loaded_tokens);
        assert_eq!(
            (found(1, "/a.md"), found(2, "/b.md"), found(3, "/c.md")),
            (Some(1), Some(20), Some(3))
        );
        assert_eq!(found(4, "/d.md"), None);
        // Numbers run on across blocks: a record put now follows the absorbed ones.
        main.put(5, "/e.md", None, figures(5, MODIFIED));
        let found = |hash, path| main.figures(hash, path, None).map(|f| f.loaded_tokens);
        assert_eq!(found(5, "/e.md"), Some(5));
        assert_eq!(found(3, "/c.md"), Some(3));
    }

    #[test]
    fn records_fill_blocks_of_a_bounded_size_and_are_all_found() {
        let mut unsaved = Unsaved::default();
        let path = |i: usize| format!("/root/project-{i:05}/memory-bank/progress.md");
        for i in 0..3_000 {
            unsaved.put(i as u64, &path(i), None, figures(i, MODIFIED));
        }
        assert!(unsaved.blocks.len() > 2);
        assert!(unsaved.blocks.iter().all(|b| b.bytes.len() <= BLOCK_BYTES));
        assert!(
            unsaved.blocks[1..]
                .iter()
                .all(|b| b.bytes.capacity() == BLOCK_BYTES)
        );
        for i in 0..3_000 {
            let found = unsaved.figures(i as u64, &path(i), None);
            assert_eq!(found, Some(figures(i, MODIFIED)));
        }
        assert_eq!(unsaved.records().count(), 3_000);
    }

    #[test]
    fn replaced_records_are_dropped_once_they_outnumber_the_live_ones() {
        let mut unsaved = Unsaved::default();
        unsaved.put(1, "/a.md", None, figures(0, MODIFIED));
        unsaved.put(2, "/b.md", None, figures(0, MODIFIED));
        for round in 1..=3 * DEAD_BEFORE_COMPACTING {
            unsaved.put(1, "/a.md", None, figures(round, MODIFIED + round as i128));
        }
        assert!(unsaved.dead <= DEAD_BEFORE_COMPACTING);
        let held: usize = unsaved.blocks.iter().map(|block| block.ends.len()).sum();
        assert!(held <= DEAD_BEFORE_COMPACTING + 2);
        assert_eq!(
            unsaved.figures(1, "/a.md", None),
            Some(figures(
                3 * DEAD_BEFORE_COMPACTING,
                MODIFIED + 3 * DEAD_BEFORE_COMPACTING as i128
            ))
        );
        assert_eq!(
            unsaved.figures(2, "/b.md", None),
            Some(figures(0, MODIFIED))
        );
        assert_eq!(unsaved.len(), 2);
    }
}
