//! Architecture decision records across a bank: ConKeeper's ADR file naming, and (in any
//! format) duplicate ADR numbers and gaps in the numbering.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;

use crate::findings::{Finding, FindingCode, Severity};
use crate::formats;
use crate::model::{Bank, Role};

fn adr_name_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^ADR-(\d{3,})-(?:(\d{8})-(\d{4})-)?[a-z0-9]+(?:-[a-z0-9]+)*\.md$")
            .expect("constant regex")
    })
}

struct AdrFile<'a> {
    number: u32,
    name: String,
    path: &'a Path,
    timestamped: bool,
}

/// ADR naming (ConKeeper), duplicate numbers and numbering gaps (any format).
pub(super) fn check_adrs(bank: &Bank, out: &mut Vec<Finding>) {
    let mut adrs: Vec<AdrFile<'_>> = Vec::new();
    for file in &bank.files {
        if file.is_virtual() || file.role != Role::Adr {
            continue;
        }
        let name = file.file_name();
        let Some(number) = formats::adr_number(&name) else {
            continue;
        };
        let captures = adr_name_regex().captures(&name);
        let timestamped = captures.as_ref().is_some_and(|c| c.get(2).is_some());
        if formats::rules(bank.format).names_adr_files() && captures.is_none() {
            out.push(Finding::new(
                Severity::Info,
                FindingCode::AdrNaming,
                &file.path,
                None,
                format!(
                    "{name} does not follow ADR-NNN-kebab-title.md (or \
                     ADR-NNN-YYYYMMDD-HHMM-title.md)"
                ),
            ));
        }
        adrs.push(AdrFile {
            number,
            name: name.into_owned(),
            path: &file.path,
            timestamped,
        });
    }
    let mut by_number: BTreeMap<u32, Vec<&AdrFile<'_>>> = BTreeMap::new();
    for adr in &adrs {
        by_number.entry(adr.number).or_default().push(adr);
    }
    for (number, group) in &by_number {
        // Timestamped names exist precisely so concurrent sessions may share a number.
        if group.len() > 1 && !group.iter().all(|a| a.timestamped) {
            for adr in &group[1..] {
                out.push(Finding::new(
                    Severity::Warning,
                    FindingCode::AdrDuplicateNumber,
                    adr.path,
                    None,
                    format!(
                        "{} reuses ADR number {number:03} already taken by {}",
                        adr.name, group[0].name
                    ),
                ));
            }
        }
    }
    let numbers: Vec<u32> = by_number.keys().copied().collect();
    for pair in numbers.windows(2) {
        let (low, high) = (pair[0], pair[1]);
        if high > low + 1 {
            let missing = if high - low == 2 {
                format!("{:03} is", low + 1)
            } else {
                format!("{:03}–{:03} are", low + 1, high - 1)
            };
            let next = by_number.get(&high).and_then(|g| g.first());
            out.push(Finding::new(
                Severity::Warning,
                FindingCode::AdrNumberingGap,
                next.map_or(bank.root.as_path(), |a| a.path),
                None,
                format!("ADR {missing} missing between ADR-{low:03} and ADR-{high:03}"),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adr_name_pattern() {
        let re = adr_name_regex();
        assert!(re.is_match("ADR-001-use-postgres.md"));
        assert!(re.is_match("ADR-012-20250101-1200-split-api.md"));
        assert!(!re.is_match("ADR-7-x.md"));
        assert!(!re.is_match("ADR-0014.md"));
        assert!(!re.is_match("ADR-003-Use Postgres.md"));
        assert!(
            re.captures("ADR-012-20250101-1200-x.md")
                .unwrap()
                .get(2)
                .is_some()
        );
    }
}
