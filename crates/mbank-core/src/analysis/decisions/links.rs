//! Supersession links: an entry that says it supersedes another makes the other
//! superseded by it (and back), resolved through sorted indexes so hostile logs stay fast.
use super::text::{ADR_REF, adr_number, normalize_title};
use super::timeline::{apply_order, radix_order};
use super::{Decision, DecisionStatus};

/// Fills the other side of supersession links (an entry that says "Supersedes ADR-3"
/// makes ADR-3 superseded by it) and marks replaced entries superseded. Links are
/// resolved through sorted indexes by ADR number and by title (binary searches), so the
/// work is O((entries + links) log entries), not entries × links; at most
/// `MAX_LINKS` are filled in per entry.
pub fn link_supersessions(decisions: &mut [Decision]) {
    if decisions
        .iter()
        .all(|d| d.supersedes.is_empty() && d.superseded_by.is_empty())
    {
        return;
    }
    let index = LinkIndex::new(decisions);
    let mut additions: Vec<(usize, usize)> = Vec::new();
    for (i, newer) in decisions.iter().enumerate() {
        for link in &newer.supersedes {
            for j in index.named_by(link) {
                if i != j {
                    additions.push((j, i));
                }
            }
        }
    }
    add_links(decisions, &additions, LinkList::SupersededBy);
    let mut back: Vec<(usize, usize)> = Vec::new();
    for (j, older) in decisions.iter().enumerate() {
        for link in &older.superseded_by {
            for i in index.named_by(link) {
                if i != j {
                    back.push((i, j));
                }
            }
        }
    }
    add_links(decisions, &back, LinkList::Supersedes);
    for decision in decisions.iter_mut() {
        if !decision.superseded_by.is_empty()
            && matches!(
                decision.status,
                DecisionStatus::Unknown | DecisionStatus::Accepted
            )
        {
            decision.status = DecisionStatus::Superseded;
        }
    }
}

/// Who a supersession link names: an ADR reference names the entries with that ADR
/// number and the entries without an id whose title it is; any other link names entries
/// by title (normalised). Titles are found by a hash of their text, radix-sorted, then
/// by the text itself: a lookup is two binary searches, and titles whose hashes collide
/// (even on purpose) are still told apart by comparison, never by a linear scan.
struct LinkIndex {
    /// (ADR number, entry) for entries with an id.
    by_number: Vec<(u32, usize)>,
    /// (hash of the normalised title, the title, entry has an id, entry), in that order.
    by_title: Vec<(u64, String, bool, usize)>,
}

/// FNV-1a: quick, and only groups titles (collisions are resolved by comparison).
fn title_hash(title: &str) -> u64 {
    let bytes = title.as_bytes();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash = (hash ^ u64::from(bytes[i])).wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}

impl LinkIndex {
    fn new(decisions: &[Decision]) -> LinkIndex {
        let mut by_number = Vec::new();
        let mut by_title = Vec::with_capacity(decisions.len());
        for (index, decision) in decisions.iter().enumerate() {
            if let Some(number) = decision.id.as_deref().and_then(adr_number) {
                by_number.push((number, index));
            }
            let title = normalize_title(&decision.title);
            by_title.push((title_hash(&title), title, decision.id.is_some(), index));
        }
        by_number.sort_unstable();
        let keys: Vec<u128> = by_title.iter().map(|e| u128::from(e.0)).collect();
        apply_order(&mut by_title, &radix_order(&keys));
        // Within one hash (entries still in entry order), order by title when titles
        // differ, so a lookup can binary-search them.
        let mut run = 0;
        while run < by_title.len() {
            let mut end = run + 1;
            while end < by_title.len() && by_title[end].0 == by_title[run].0 {
                end += 1;
            }
            let slice = &mut by_title[run..end];
            if slice.iter().any(|e| e.1 != slice[0].1) {
                slice.sort_by(|a, b| (&a.1, a.3).cmp(&(&b.1, b.3)));
            }
            run = end;
        }
        LinkIndex {
            by_number,
            by_title,
        }
    }

    /// Entries whose normalised title is `title`, in entry order.
    fn titled<'a>(&'a self, title: &str) -> &'a [(u64, String, bool, usize)] {
        let hash = title_hash(title);
        // The run of entries with this hash: two binary searches (a plain loop, cheap
        // in unoptimised builds), never a walk, however many titles share the hash.
        let entries = self.by_title.as_slice();
        let bound = |past_equal: bool| {
            let (mut low, mut high) = (0, entries.len());
            while low < high {
                let middle = low + (high - low) / 2;
                let key = entries[middle].0;
                if key < hash || (past_equal && key == hash) {
                    low = middle + 1;
                } else {
                    high = middle;
                }
            }
            low
        };
        let run = &entries[bound(false)..bound(true)];
        if run.len() == 1 {
            return if run[0].1 == title { run } else { &run[..0] };
        }
        let first = run.partition_point(|e| e.1.as_str() < title);
        let last = first + run[first..].partition_point(|e| e.1 == title);
        &run[first..last]
    }

    /// Entries `link` names, in entry order.
    fn named_by(&self, link: &str) -> Vec<usize> {
        let title = normalize_title(link);
        // ADR_REF needs "adr" (any case) in the text; most links are titles.
        let bytes = link.as_bytes();
        let mut has_adr = false;
        let mut i = 0;
        while !has_adr && i + 3 <= bytes.len() {
            has_adr = bytes[i..i + 3].eq_ignore_ascii_case(b"adr");
            i += 1;
        }
        let number = (has_adr && ADR_REF.is_match(link))
            .then(|| adr_number(link))
            .flatten();
        match number {
            Some(number) => {
                let from = self.by_number.partition_point(|e| e.0 < number);
                let mut found: Vec<usize> = self.by_number[from..]
                    .iter()
                    .take_while(|e| e.0 == number)
                    .take(MAX_LINKS)
                    .map(|e| e.1)
                    .chain(
                        self.titled(&title)
                            .iter()
                            .filter(|e| !e.2)
                            .take(MAX_LINKS)
                            .map(|e| e.3),
                    )
                    .collect();
                found.sort_unstable();
                found.truncate(MAX_LINKS);
                found
            }
            None => self
                .titled(&title)
                .iter()
                .take(MAX_LINKS)
                .map(|e| e.3)
                .collect(),
        }
    }
}

/// Links filled in per entry at most, and entries one link names at most: a hostile log
/// of 100k entries with one title, each superseding it, would otherwise ask for 100k²
/// links. No real log comes near either.
const MAX_LINKS: usize = 16;

/// Which list of an entry links are filled into.
#[derive(Clone, Copy)]
enum LinkList {
    SupersededBy,
    Supersedes,
}

impl LinkList {
    fn of(self, decision: &Decision) -> &Vec<String> {
        match self {
            LinkList::SupersededBy => &decision.superseded_by,
            LinkList::Supersedes => &decision.supersedes,
        }
    }

    fn of_mut(self, decision: &mut Decision) -> &mut Vec<String> {
        match self {
            LinkList::SupersededBy => &mut decision.superseded_by,
            LinkList::Supersedes => &mut decision.supersedes,
        }
    }
}

/// The name a link to `decision` is written with: its ADR id, else its title.
fn link_name(decision: &Decision) -> &str {
    decision.id.as_deref().unwrap_or(&decision.title)
}

/// For each `(target, source)`, appends the source's name to the target's `list`, once
/// per name, in order, while the list is shorter than `MAX_LINKS`.
fn add_links(decisions: &mut [Decision], pairs: &[(usize, usize)], list: LinkList) {
    for &(target, source) in pairs {
        let name = link_name(&decisions[source]);
        let names = list.of(&decisions[target]);
        if names.len() < MAX_LINKS && !names.iter().any(|n| n == name) {
            let name = name.to_string();
            list.of_mut(&mut decisions[target]).push(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::{parse_adr, sort_timeline};
    use super::*;

    #[test]
    fn supersession_links_are_filled_both_ways_and_sorted() {
        let mut all = vec![
            parse_adr(
                Path::new("ADR-0002.md"),
                "# ADR-0002: New\n**Status:** Accepted\n**Supersedes:** ADR-0001\n**Date:** 2025-02-01\n",
            )
            .unwrap(),
            parse_adr(
                Path::new("ADR-0001.md"),
                "# ADR-0001: Old\n**Status:** Accepted\n**Date:** 2025-01-01\n",
            )
            .unwrap(),
            parse_adr(Path::new("ADR-0003.md"), "# ADR-0003: Undated\n").unwrap(),
        ];
        link_supersessions(&mut all);
        sort_timeline(&mut all);
        let ids: Vec<_> = all.iter().map(|d| d.id.clone().unwrap()).collect();
        assert_eq!(ids, ["ADR-0001", "ADR-0002", "ADR-0003"]);
        assert_eq!(all[0].status, DecisionStatus::Superseded);
        assert_eq!(all[0].superseded_by, vec!["ADR-0002"]);
    }
}
