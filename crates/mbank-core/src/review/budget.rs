//! Budget signals of a review: each changed file's bank measured before and after the
//! change (token counts through the token cache), against the budgets and ConKeeper's
//! token preset from `.memory-config.md`.

use std::collections::BTreeMap;

use super::listing::ProjectListing;
use super::{FileReview, ReviewSession, signals};
use crate::analysis::budgets::Measure;
use crate::io::text;
use crate::model::Bank;
use crate::tokens::{self, Encoding, TokenCache};

pub(super) fn measure_of(text: Option<&str>, encoding: Encoding) -> Measure {
    match text {
        Some(text) => {
            let stats = tokens::measure(text, encoding);
            Measure {
                tokens: Some(stats.loaded_tokens as u64),
                lines: stats.lines as u64,
                chars: stats.chars as u64,
                bytes: stats.bytes,
            }
        }
        None => Measure {
            tokens: Some(0),
            ..Measure::default()
        },
    }
}

impl ReviewSession {
    pub(super) fn add_budget_signals(
        &self,
        listing: &ProjectListing,
        files: &mut [FileReview],
        problems: &mut Vec<String>,
    ) {
        let encoding = self.options.encoding;
        let mut cache = if self.options.disk_token_cache {
            TokenCache::open_default(encoding)
        } else {
            TokenCache::in_memory(encoding)
        };
        let mut by_bank: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, file) in files.iter().enumerate() {
            if file.error.is_none()
                && let Some(place) = listing.places.get(&file.path)
                && place.file.is_some()
            {
                by_bank.entry(place.bank).or_default().push(i);
            }
        }
        for (b, changed) in by_bank {
            let bank = &listing.banks[b];
            let now: Vec<Measure> = tokens::figures_for_files(
                &bank.files,
                bank.parsed_store.as_deref(),
                encoding,
                &mut cache,
            )
            .into_iter()
            .map(|r| match r {
                Ok(s) => Measure {
                    tokens: Some(s.loaded_tokens as u64),
                    lines: s.lines as u64,
                    chars: s.chars as u64,
                    bytes: s.bytes,
                },
                Err(_) => Measure::default(),
            })
            .collect();
            let mut before = now.clone();
            let mut after = now;
            for &i in &changed {
                let file = &files[i];
                if let Some(index) = listing.places.get(&file.path).and_then(|p| p.file) {
                    before[index] = measure_of(file.baseline.as_deref(), encoding);
                    after[index] = measure_of(file.current.as_deref(), encoding);
                }
            }
            let preset = conkeeper_preset(bank);
            for &i in &changed {
                let Some(index) = listing.places.get(&files[i].path).and_then(|p| p.file) else {
                    continue;
                };
                let found = signals::budget_signals(
                    bank,
                    index,
                    &before,
                    &after,
                    preset.as_deref(),
                    &self.options.budgets,
                );
                files[i].signals.extend(found);
            }
        }
        if let Err(e) = cache.save() {
            problems.push(format!("token cache not saved: {e}"));
        }
    }
}

fn conkeeper_preset(bank: &Bank) -> Option<String> {
    let settings = crate::formats::rules(bank.format).settings_file()?;
    // Only what the (confined) listing shows is read: a config linked out is never opened.
    let path = bank.root.join(settings);
    if !bank.files.iter().any(|f| f.path == path) {
        return None;
    }
    let text = text::read_text_limited(&path, 256 * 1024).ok()?;
    crate::analysis::validate::parse_memory_config(&text)
        .0
        .token_budget
}
