//! Where an agent stops reading: the one place that turns what a format declares about
//! its agent's load limits ([`FileLimit`], [`CombinedLimit`]) into a cut of a file's text,
//! and names the lines that fall past it.
//!
//! - A file limit cuts one file on its own: Claude Code's auto memory `MEMORY.md` (first
//!   200 lines or 25 KB), Windsurf's rule files (12,000 characters each).
//! - A combined limit is shared by files loaded one after another (`Chain`): Codex stops
//!   its AGENTS.md files at 32 KiB together, so the file that crosses it is cut and the
//!   ones after it load nothing.
//! - [`Fit`] is the same walk for a budget the caller measures (tokens, say): whole files
//!   first, the one that crosses the budget cut after its last whole line that fits.
//!
//! [`past`] tells when new entries were written below a cut (`mbank check`).
//!
//! Only `formats/` knows the numbers; this module knows how to cut with them. Line
//! numbers count `\n` (a `\r\n` line is one line), from 1, as an editor shows them.
use std::ops::RangeInclusive;
use std::path::Path;

pub mod past;

use serde::Serialize;

use crate::formats::{self, CombinedLimit, FileLimit, Unit};
use crate::io::text;
use crate::limits::size_in_words;
use crate::model::Format;

/// What a cut leaves out of one text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Cut {
    /// Bytes the agent reads (always at a character boundary).
    pub kept_bytes: usize,
    /// Lines holding text it reads (a line cut inside counts here and in `dropped_lines`).
    pub kept_lines: usize,
    /// The first line holding text past the cut (1-based).
    pub first_line: usize,
    /// The text's last line.
    pub last_line: usize,
    pub dropped_lines: usize,
    pub dropped_bytes: usize,
    /// The cut falls inside `first_line`: its start is read, its end is not.
    pub inside_line: bool,
}

impl Cut {
    /// The cut of `text` after its first `kept` bytes (moved back to a character
    /// boundary); `None` when nothing is left out.
    pub fn at(text: &str, kept: usize) -> Option<Cut> {
        let kept = floor_char_boundary(text, kept);
        if kept >= text.len() {
            return None;
        }
        let (head, tail) = text.split_at(kept);
        let newlines_before = head.matches('\n').count();
        let inside_line = !head.is_empty() && !head.ends_with('\n');
        let first_line = newlines_before + 1;
        let dropped_lines = count_lines(tail);
        Some(Cut {
            kept_bytes: kept,
            kept_lines: count_lines(head),
            first_line,
            last_line: first_line + dropped_lines.saturating_sub(1),
            dropped_lines,
            dropped_bytes: tail.len(),
            inside_line,
        })
    }

    /// The lines holding text past the cut.
    #[cfg(test)]
    pub(crate) fn lines_past(&self) -> RangeInclusive<usize> {
        self.first_line..=self.last_line
    }

    /// The text the agent reads.
    pub fn kept<'t>(&self, text: &'t str) -> &'t str {
        &text[..self.kept_bytes.min(text.len())]
    }

    /// The text past the cut.
    pub fn past<'t>(&self, text: &'t str) -> &'t str {
        &text[self.kept_bytes.min(text.len())..]
    }

    /// Whether 1-based `line` holds text past the cut.
    pub(crate) fn is_past(&self, line: usize) -> bool {
        line >= self.first_line
    }

    /// "lines 201–312 (9.1 KiB)", "line 7 (40 bytes)", "lines 328–400 (from inside line
    /// 328, 7.2 KiB)".
    pub fn lines_in_words(&self) -> String {
        lines_in_words(
            self.first_line..=self.last_line,
            self.dropped_bytes,
            self.inside_line,
        )
    }
}

/// The lines past a cut in words (see [`Cut::lines_in_words`]): `lines` past it,
/// `bytes` dropped, `inside`: the cut falls inside the first of them.
pub fn lines_in_words(lines: RangeInclusive<usize>, bytes: usize, inside: bool) -> String {
    let (first, last) = (*lines.start(), *lines.end());
    let size = size_in_words(bytes as u64);
    let inside = if inside {
        format!("from inside line {first}, ")
    } else {
        String::new()
    };
    if first == last {
        format!("line {first} ({inside}{size})")
    } else {
        format!("lines {first}–{last} ({inside}{size})")
    }
}

/// A cut with the limit that made it, in a person's words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct LimitCut {
    #[serde(flatten)]
    pub cut: Cut,
    /// The agent that stops reading there: "Claude Code".
    pub agent: &'static str,
    /// The bound that stopped it: "200-line limit", "25 KiB limit", "12,000-character
    /// limit", "32 KiB combined limit".
    pub limit: String,
    /// The whole rule, with its source.
    pub rule: &'static str,
}

impl LimitCut {
    /// "MEMORY.md: lines 201–312 (9.1 KiB) are past Claude Code's 200-line limit".
    pub fn sentence(&self, shown: &str) -> String {
        let verb = if self.cut.first_line == self.cut.last_line {
            "is"
        } else {
            "are"
        };
        format!(
            "{shown}: {} {verb} past {}'s {}",
            self.cut.lines_in_words(),
            self.agent,
            self.limit
        )
    }
}

/// Where `limit` cuts `text`, and which of its bounds did; `None` when it reads it all.
pub(crate) fn file_cut(limit: &FileLimit, text: &str) -> Option<LimitCut> {
    let mut best: Option<(usize, Unit, u64)> = None;
    let mut consider = |kept: usize, unit: Unit, bound: usize| {
        if kept < text.len() && best.is_none_or(|(at, _, _)| kept < at) {
            best = Some((kept, unit, bound as u64));
        }
    };
    if limit.max_lines.is_some() || limit.max_bytes.is_some() {
        let max_lines = limit.max_lines.unwrap_or(usize::MAX);
        let max_bytes = limit.max_bytes.unwrap_or(usize::MAX);
        let (kept, unit) = whole_lines(text, max_lines, max_bytes);
        let bound = match unit {
            Unit::Lines => max_lines,
            _ => max_bytes,
        };
        consider(kept, unit, bound);
    }
    if let Some(max_chars) = limit.max_chars {
        let kept = text
            .char_indices()
            .nth(max_chars)
            .map_or(text.len(), |(at, _)| at);
        consider(kept, Unit::Characters, max_chars);
    }
    let (kept, unit, bound) = best?;
    Some(LimitCut {
        cut: Cut::at(text, kept)?,
        agent: limit.agent,
        limit: bound_in_words(unit, bound),
        rule: limit.rule,
    })
}

/// The cut the agent of `format` makes in one file of it (`rel` relative to the bank)
/// on its own: its file limit, else its combined limit as if the file came first.
pub(crate) fn format_cut(format: Format, rel: &Path, text: &str) -> Option<LimitCut> {
    let rules = formats::rules(format);
    if let Some(limit) = rules.file_limit(rel) {
        return file_cut(&limit, text);
    }
    Chain::new(rules.combined_limit()?).take(text)
}

/// Whether an agent may cut what it loads of `bank` at session start: its format has a
/// combined limit, or a file limit on one of its start-up files.
pub fn bank_may_be_cut(bank: &crate::model::Bank) -> bool {
    let rules = formats::rules(bank.format);
    rules.combined_limit().is_some()
        || bank.files.iter().any(|file| {
            let rel = file.path.strip_prefix(&bank.root).unwrap_or(&file.path);
            file.load == crate::model::LoadKind::Startup && rules.file_limit(rel).is_some()
        })
}

/// "200-line limit", "25 KiB limit", "12,000-character limit".
fn bound_in_words(unit: Unit, bound: u64) -> String {
    match unit {
        Unit::Lines => format!("{}-line limit", thousands(bound)),
        Unit::Characters => format!("{}-character limit", thousands(bound)),
        Unit::Bytes | Unit::Tokens => format!("{} limit", size_in_words(bound)),
    }
}

/// Whole lines while both bounds hold (a first line longer than `max_bytes` is cut at the
/// last character boundary that fits): the bytes kept and the bound that stopped it.
fn whole_lines(text: &str, max_lines: usize, max_bytes: usize) -> (usize, Unit) {
    let mut kept = 0;
    for (count, line) in text.split_inclusive('\n').enumerate() {
        let unit = if count >= max_lines {
            Unit::Lines
        } else if kept + line.len() > max_bytes {
            Unit::Bytes
        } else {
            kept += line.len();
            continue;
        };
        if kept == 0 && unit == Unit::Bytes {
            return (floor_char_boundary(text, max_bytes), unit);
        }
        return (kept, unit);
    }
    (kept, Unit::Bytes)
}

/// A combined limit over files loaded one after another, in load order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Chain {
    limit: CombinedLimit,
    used: usize,
}

impl Chain {
    pub fn new(limit: CombinedLimit) -> Chain {
        Chain { limit, used: 0 }
    }

    /// Loads the next file's text: its cut, if the limit falls inside it or before it
    /// (`kept_bytes` 0: it loads nothing). What it keeps counts against the limit.
    pub fn take(&mut self, text: &str) -> Option<LimitCut> {
        let remaining = self.limit.max_bytes.saturating_sub(self.used);
        let cut = Cut::at(text, remaining);
        self.used += cut.map_or(text.len(), |c| c.kept_bytes);
        Some(LimitCut {
            cut: cut?,
            agent: self.limit.agent,
            limit: self.limit.note.to_string(),
            rule: self.limit.rule,
        })
    }

    /// Bytes still free under the limit.
    #[cfg(test)]
    pub fn remaining(&self) -> usize {
        self.limit.max_bytes.saturating_sub(self.used)
    }

    pub fn limit(&self) -> &CombinedLimit {
        &self.limit
    }
}

/// A budget the caller measures (tokens in an encoding, say), filled by texts in load
/// order: each text loads whole while it fits, the one that crosses the budget is cut
/// after its last whole line that fits, and the ones after it load nothing. `measure`
/// must not shrink as a text grows.
pub struct Fit<M: Fn(&str) -> usize> {
    left: usize,
    measure: M,
}

impl<M: Fn(&str) -> usize> Fit<M> {
    pub fn new(budget: usize, measure: M) -> Self {
        Fit {
            left: budget,
            measure,
        }
    }

    /// Takes the next text: `None` when it fits whole, else its cut (`kept_bytes` 0:
    /// nothing of it fits).
    pub fn take(&mut self, text: &str) -> Option<Cut> {
        let whole = (self.measure)(text);
        if whole <= self.left {
            self.left -= whole;
            return None;
        }
        // The line ends, then the longest prefix of whole lines that fits, by bisection.
        let ends: Vec<usize> = text
            .split_inclusive('\n')
            .scan(0, |at, line| {
                *at += line.len();
                Some(*at)
            })
            .collect();
        let (mut low, mut high) = (0, ends.len());
        while low < high {
            let mid = (low + high).div_ceil(2);
            if (self.measure)(&text[..ends[mid - 1]]) <= self.left {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        let kept = if low == 0 { 0 } else { ends[low - 1] };
        self.left -= (self.measure)(&text[..kept]).min(self.left);
        Cut::at(text, kept)
    }

    /// What is left of the budget.
    pub fn left(&self) -> usize {
        self.left
    }
}

/// `12000` → `12,000`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn count_lines(text: &str) -> usize {
    text::line_and_char_counts(text).0
}

#[cfg(test)]
mod tests;
