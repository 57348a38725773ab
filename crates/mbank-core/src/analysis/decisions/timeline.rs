//! Timeline order: dated entries oldest first, undated ones last, sorted as packed
//! numeric keys with a radix sort (also used to index titles for supersession links).
use std::path::PathBuf;

use super::Decision;

/// Timeline order: dated entries oldest first (time breaks ties, then place in the
/// file); undated entries last, in file order. Stable; each entry's key is computed once
/// (files ranked once, not compared path by path for every pair) and, as one number,
/// radix-sorted.
pub fn sort_timeline(decisions: &mut [Decision]) {
    let mut files: Vec<PathBuf> = Vec::new();
    for decision in decisions.iter() {
        if files.last() != Some(&decision.file) {
            files.push(decision.file.clone());
        }
    }
    files.sort();
    files.dedup();
    let rank = |d: &Decision| files.binary_search(&d.file).unwrap_or(0);
    let fits = files.len() < 1 << 20 && decisions.iter().all(|d| d.line < 1 << 24);
    if fits {
        let keys: Vec<u128> = decisions
            .iter()
            .map(|d| packed_timeline_key(d, rank(d)))
            .collect();
        let order = radix_order(&keys);
        apply_order(decisions, &order);
    } else {
        decisions.sort_by_cached_key(|d| {
            let date = d.sort_date();
            (date.is_none(), date, d.time, rank(d), d.line)
        });
    }
}

/// Positions of `keys` in ascending order, equal keys in their original order: an LSD
/// radix sort over the bytes in which the keys differ (a few passes of counting, far
/// cheaper than comparison sorting 100k entries).
pub(super) fn radix_order(keys: &[u128]) -> Vec<usize> {
    // Nothing to order (most projects have no decisions at all): no passes.
    if keys.len() < 2 {
        return (0..keys.len()).collect();
    }
    let (mut all, mut any) = (u128::MAX, 0u128);
    for &key in keys {
        all &= key;
        any |= key;
    }
    let differing = all ^ any;
    let mut order: Vec<usize> = (0..keys.len()).collect();
    let mut next = vec![0usize; keys.len()];
    for shift in (0..128).step_by(8) {
        if (differing >> shift) & 0xFF == 0 {
            continue;
        }
        let digit = |index: usize| ((keys[index] >> shift) & 0xFF) as usize;
        let mut starts = [0usize; 257];
        for &index in &order {
            starts[digit(index) + 1] += 1;
        }
        for byte in 0..256 {
            starts[byte + 1] += starts[byte];
        }
        for &index in &order {
            let slot = &mut starts[digit(index)];
            next[*slot] = index;
            *slot += 1;
        }
        std::mem::swap(&mut order, &mut next);
    }
    order
}

/// Rearranges `items` so that position `p` holds what was at `order[p]`, by following
/// the permutation's cycles with swaps.
pub(super) fn apply_order<T>(items: &mut [T], order: &[usize]) {
    let mut placed = vec![false; items.len()];
    for start in 0..items.len() {
        if placed[start] {
            continue;
        }
        let mut current = start;
        loop {
            placed[current] = true;
            let source = order[current];
            if source == start {
                break;
            }
            items.swap(current, source);
            current = source;
        }
    }
}

/// The timeline key as one number, ordered as `(undated, date, time, file, line)`:
/// comparing numbers instead of tuples keeps sorting 100k entries quick. Needs fewer
/// than 2^20 files and lines below 2^24 (a decision log is at most 8 MiB).
fn packed_timeline_key(decision: &Decision, file: usize) -> u128 {
    use chrono::{Datelike, Timelike};
    // None sorts first in each field, as `Option`'s order has it. An entry dated to its
    // month sorts at the month's first day.
    let sort_date = decision.sort_date();
    let date = sort_date.map_or(0, |d| {
        (i64::from(d.num_days_from_ce()) + (1 << 31) + 1) as u128
    });
    let time = decision.time.map_or(0, |t| {
        ((u128::from(t.num_seconds_from_midnight()) << 31) | u128::from(t.nanosecond())) + 1
    });
    (u128::from(sort_date.is_none()) << 127)
        | (date << 93)
        | (time << 44)
        | ((file as u128) << 24)
        | decision.line as u128
}
