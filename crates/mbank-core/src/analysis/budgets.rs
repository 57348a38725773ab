//! Budgets from the specs: every file and bank gets ok / near (≥ 80 %) / over, with the
//! numbers and the rule's source. `config.toml` overrides the token rules.
use std::borrow::Cow;

use serde::Serialize;

use crate::config::BudgetOverrides;
use crate::findings::RuleSource;
use crate::formats::{self, Budget};
use crate::model::{Bank, LoadKind, MemoryFile};

/// What a limit counts; defined with the formats, whose rules are stated in it.
pub use crate::formats::Unit;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BudgetStatus {
    Ok,
    Near,
    Over,
}

impl BudgetStatus {
    pub fn id(self) -> &'static str {
        match self {
            BudgetStatus::Ok => "ok",
            BudgetStatus::Near => "near",
            BudgetStatus::Over => "over",
        }
    }

    /// Near from 80 % of the limit, over past it.
    pub fn of(value: u64, limit: u64) -> BudgetStatus {
        if value > limit {
            BudgetStatus::Over
        } else if value * 5 >= limit * 4 {
            BudgetStatus::Near
        } else {
            BudgetStatus::Ok
        }
    }
}

/// One rule applied to one file or bank.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BudgetCheck {
    /// Most rules and sources are fixed texts: borrowed, they cost no allocation per file.
    pub rule: Cow<'static, str>,
    pub source: RuleSource,
    pub unit: Unit,
    pub limit: u64,
    pub value: u64,
    pub status: BudgetStatus,
    /// The agent silently drops what is past the limit (rather than merely warning).
    pub cuts_off: bool,
    /// Another format's rule, applied where the format documents none (see
    /// [`Budget::borrowed`](crate::formats::Budget::borrowed)): over it is information.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub borrowed: bool,
    /// Borrowed because the bank is of its format by its folder's name only: its files do
    /// not prove the format.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub by_folder_name: bool,
}

impl BudgetCheck {
    fn new(
        rule: impl Into<Cow<'static, str>>,
        source: RuleSource,
        unit: Unit,
        limit: u64,
        value: u64,
        cuts_off: bool,
    ) -> Self {
        BudgetCheck {
            rule: rule.into(),
            source,
            unit,
            limit,
            value,
            status: BudgetStatus::of(value, limit),
            cuts_off,
            borrowed: false,
            by_folder_name: false,
        }
    }

    fn borrowed_if(self, borrowed: bool) -> Self {
        BudgetCheck { borrowed, ..self }
    }

    /// Share of the limit used, in percent (for gauges).
    pub fn percent(&self) -> u64 {
        if self.limit == 0 {
            return 100;
        }
        self.value * 100 / self.limit
    }
}

/// Sizes of one file, as far as they are known (tokens arrive later than the rest).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Measure {
    /// Loaded tokens (private content excluded), in the report's encoding.
    pub tokens: Option<u64>,
    pub lines: u64,
    pub chars: u64,
    pub bytes: u64,
}

/// Budgets of a bank: per file (same order as `bank.files`) and for the bank as a whole.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct BankBudget {
    pub files: Vec<Vec<BudgetCheck>>,
    pub bank: Vec<BudgetCheck>,
}

/// The worst status among checks; `None` when no rule applies.
pub fn worst(checks: &[BudgetCheck]) -> Option<BudgetStatus> {
    checks.iter().map(|c| c.status).max()
}

impl BankBudget {
    #[cfg(test)]
    pub(crate) fn file_status(&self, index: usize) -> Option<BudgetStatus> {
        self.files.get(index).and_then(|c| worst(c))
    }
}

const CONFIG: RuleSource = RuleSource::Config;

fn file_override(overrides: &BudgetOverrides, file: &MemoryFile) -> Option<u64> {
    overrides
        .files
        .get(&file.display)
        .or_else(|| overrides.files.get(file.file_name().as_ref()))
        .copied()
}

impl Measure {
    /// What this measure holds in `unit`; `None` while tokens are not counted yet.
    fn in_unit(&self, unit: Unit) -> Option<u64> {
        match unit {
            Unit::Tokens => self.tokens,
            Unit::Characters => Some(self.chars),
            Unit::Lines => Some(self.lines),
            Unit::Bytes => Some(self.bytes),
        }
    }
}

/// Measures `budgets` with `measure`, leaving token budgets out when `config.toml`
/// replaced them and when tokens are not counted yet.
fn measure_budgets(
    checks: &mut Vec<BudgetCheck>,
    budgets: Vec<Budget>,
    measure: &Measure,
    tokens_overridden: bool,
) {
    for budget in budgets {
        if tokens_overridden && budget.unit == Unit::Tokens {
            continue;
        }
        if let Some(value) = measure.in_unit(budget.unit) {
            checks.push(
                BudgetCheck::new(
                    budget.rule,
                    budget.source,
                    budget.unit,
                    budget.limit,
                    value,
                    budget.cuts_off,
                )
                .borrowed_if(budget.borrowed),
            );
        }
    }
}

fn file_checks(
    bank: &Bank,
    file: &MemoryFile,
    measure: &Measure,
    preset: Option<&str>,
    overrides: &BudgetOverrides,
) -> Vec<BudgetCheck> {
    let mut checks = Vec::new();
    let format_override = overrides.formats.get(bank.format.id());
    let config_rule = |checks: &mut Vec<BudgetCheck>, rule: &'static str, limit: u64| {
        if let Some(tokens) = measure.tokens {
            checks.push(BudgetCheck::new(
                rule,
                CONFIG,
                Unit::Tokens,
                limit,
                tokens,
                false,
            ));
        }
    };
    if let Some(limit) = file_override(overrides, file) {
        config_rule(&mut checks, "per-file limit for this file", limit);
        return checks;
    }
    if let Some(limit) = format_override.and_then(|o| o.per_file)
        && file.load != LoadKind::Never
    {
        config_rule(&mut checks, "per-file limit", limit);
    }
    let overridden = !checks.is_empty();
    let budgets = formats::rules(bank.format).file_budgets(file, preset);
    measure_budgets(&mut checks, budgets, measure, overridden);
    checks
}

fn bank_checks(
    bank: &Bank,
    measures: &[Measure],
    preset: Option<&str>,
    overrides: &BudgetOverrides,
) -> Vec<BudgetCheck> {
    let startup: Vec<&Measure> = bank
        .files
        .iter()
        .zip(measures)
        .filter(|(f, _)| f.load == LoadKind::Startup)
        .map(|(_, m)| m)
        .collect();
    // A token total is known once every loaded file is counted; before that, the files
    // counted may already be past a limit, and then the total is over whatever the rest
    // holds (see `over_while_uncounted`).
    let counted: u64 = startup.iter().filter_map(|m| m.tokens).sum();
    let total = Measure {
        tokens: startup.iter().map(|m| m.tokens).sum(),
        lines: startup.iter().map(|m| m.lines).sum(),
        chars: startup.iter().map(|m| m.chars).sum(),
        bytes: startup.iter().map(|m| m.bytes).sum(),
    };
    let mut checks = Vec::new();
    let config_total = overrides
        .formats
        .get(bank.format.id())
        .and_then(|o| o.total);
    if let Some(limit) = config_total
        && let Some(tokens) = total.tokens.or(over_while_uncounted(counted, limit))
    {
        checks.push(BudgetCheck::new(
            "bank total (loaded files)",
            CONFIG,
            Unit::Tokens,
            limit,
            tokens,
            false,
        ));
    }
    let budgets = formats::rules(bank.format).bank_budgets_at(&bank.root, preset);
    if total.tokens.is_none() && config_total.is_none() {
        let over: Vec<Budget> = budgets
            .iter()
            .filter(|b| b.unit == Unit::Tokens && counted > b.limit)
            .cloned()
            .collect();
        measure_budgets(
            &mut checks,
            over,
            &Measure {
                tokens: Some(counted),
                ..total
            },
            false,
        );
    }
    measure_budgets(&mut checks, budgets, &total, config_total.is_some());
    checks
}

/// The tokens counted so far as a total's figure when they are already past `limit`
/// (the files not counted can only add to it); `None` while the total may still be
/// within it.
fn over_while_uncounted(counted: u64, limit: u64) -> Option<u64> {
    (counted > limit).then_some(counted)
}

/// Applies every rule to a bank. `measures` has one entry per file of `bank.files`;
/// `preset` is the ConKeeper `token_budget` from the bank's `.memory-config.md`.
pub(crate) fn evaluate(
    bank: &Bank,
    measures: &[Measure],
    preset: Option<&str>,
    overrides: &BudgetOverrides,
) -> BankBudget {
    let mut files: Vec<Vec<BudgetCheck>> = bank
        .files
        .iter()
        .zip(measures)
        .map(|(file, measure)| file_checks(bank, file, measure, preset, overrides))
        .collect();
    let mut whole = bank_checks(bank, measures, preset, overrides);
    // A bank that is of the format by its folder's name only gets the format's rules as
    // borrowed ones: at most information. The user's own limits stay theirs.
    if !formats::rules(bank.format).contents_prove_format(bank) {
        for check in files.iter_mut().flatten().chain(whole.iter_mut()) {
            if check.source != CONFIG && !check.borrowed {
                check.borrowed = true;
                check.by_folder_name = true;
            }
        }
    }
    BankBudget { files, bank: whole }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FormatBudget;
    use crate::model::{Format, Role};
    use std::path::PathBuf;

    fn file(name: &str, role: Role, load: LoadKind) -> MemoryFile {
        MemoryFile {
            load,
            ..MemoryFile::for_test(PathBuf::from(name), name, role)
        }
    }

    fn bank(format: Format, files: Vec<MemoryFile>) -> Bank {
        Bank {
            format,
            // The files' paths are bare names: their folder is the empty path.
            root: PathBuf::from(""),
            files,
            project_id: None,
            modes: vec![],
            problems: vec![],
            outside: vec![],
            parsed_store: None,
        }
    }

    fn tokens(n: u64) -> Measure {
        Measure {
            tokens: Some(n),
            lines: 10,
            chars: n * 4,
            bytes: n * 4,
        }
    }

    #[test]
    fn cline_per_file_and_total() {
        let b = bank(
            Format::Cline,
            vec![
                file("activeContext.md", Role::Active, LoadKind::Startup),
                file("progress.md", Role::Progress, LoadKind::Startup),
                file("archive/old.md", Role::Other, LoadKind::Never),
                // With the two above, four of Cline's own names: a proven Cline bank.
                file("projectBrief.md", Role::Brief, LoadKind::Startup),
                file("techContext.md", Role::Tech, LoadKind::Startup),
            ],
        );
        let result = evaluate(
            &b,
            &[
                tokens(700),
                tokens(4500),
                tokens(9000),
                tokens(0),
                tokens(0),
            ],
            None,
            &Default::default(),
        );
        assert_eq!(result.file_status(0), Some(BudgetStatus::Ok));
        assert_eq!(result.file_status(1), Some(BudgetStatus::Over));
        assert_eq!(result.file_status(2), None, "archives are not budgeted");
        let total = &result.bank[0];
        assert_eq!(
            (total.value, total.limit, total.status),
            (5200, 5000, BudgetStatus::Over)
        );
        assert_eq!(total.source, crate::findings::RuleSource::MbankBankSizes);
        assert!(!total.borrowed);
        let near = evaluate(
            &b,
            &[tokens(800), tokens(10), tokens(0)],
            None,
            &Default::default(),
        );
        assert_eq!(near.file_status(0), Some(BudgetStatus::Near));
    }

    #[test]
    fn a_total_past_its_limit_is_over_while_a_file_is_not_counted_and_unknown_below_it() {
        let b = bank(
            Format::Cline,
            vec![
                file("activeContext.md", Role::Active, LoadKind::Startup),
                file("progress.md", Role::Progress, LoadKind::Startup),
                file("projectBrief.md", Role::Brief, LoadKind::Startup),
                file("techContext.md", Role::Tech, LoadKind::Startup),
            ],
        );
        let uncounted = Measure {
            tokens: None,
            ..tokens(0)
        };
        let past = evaluate(
            &b,
            &[tokens(6_000), uncounted, tokens(0), tokens(0)],
            None,
            &Default::default(),
        );
        let total = past.bank.iter().find(|c| c.unit == Unit::Tokens).unwrap();
        assert_eq!(
            (total.value, total.limit, total.status),
            (6_000, 5_000, BudgetStatus::Over)
        );
        let below = evaluate(
            &b,
            &[tokens(4_000), uncounted, tokens(0), tokens(0)],
            None,
            &Default::default(),
        );
        assert!(
            below.bank.iter().all(|c| c.unit != Unit::Tokens),
            "{below:?}"
        );
        let mut overrides = BudgetOverrides::default();
        overrides.formats.insert(
            "cline".into(),
            FormatBudget {
                total: Some(1_000),
                per_file: None,
            },
        );
        let configured = evaluate(
            &b,
            &[tokens(4_000), uncounted, tokens(0), tokens(0)],
            None,
            &overrides,
        );
        let total = configured
            .bank
            .iter()
            .find(|c| c.unit == Unit::Tokens)
            .unwrap();
        assert_eq!((total.value, total.source), (4_000, CONFIG));
    }

    #[test]
    fn a_bank_of_a_format_by_folder_name_only_gets_its_budgets_as_borrowed() {
        let b = bank(
            Format::Cline,
            vec![
                file("activeContext.md", Role::Active, LoadKind::Startup),
                file("tasks.md", Role::Other, LoadKind::Startup),
            ],
        );
        let result = evaluate(&b, &[tokens(4500), tokens(4500)], None, &Default::default());
        let checks: Vec<&BudgetCheck> = result.files.iter().flatten().chain(&result.bank).collect();
        assert!(!checks.is_empty());
        for check in checks {
            assert_eq!(check.status, BudgetStatus::Over);
            assert!(check.borrowed, "{check:?}");
            assert!(check.by_folder_name, "{check:?}");
        }
        // The user's own limit stays theirs.
        let mut overrides = BudgetOverrides::default();
        overrides.files.insert("tasks.md".into(), 100);
        let result = evaluate(&b, &[tokens(4500), tokens(4500)], None, &overrides);
        assert!(
            result.files[1]
                .iter()
                .any(|c| c.source == CONFIG && !c.borrowed)
        );
    }

    #[test]
    fn unknown_token_counts_leave_token_rules_out() {
        let b = bank(
            Format::Cline,
            vec![file("progress.md", Role::Progress, LoadKind::Startup)],
        );
        let m = Measure {
            tokens: None,
            lines: 3,
            chars: 10,
            bytes: 10,
        };
        let result = evaluate(&b, &[m], None, &Default::default());
        assert!(result.files[0].is_empty());
        assert!(result.bank.is_empty());
    }

    #[test]
    fn conkeeper_presets_and_config_overrides() {
        let b = bank(
            Format::ConKeeper,
            vec![file("active-context.md", Role::Active, LoadKind::Startup)],
        );
        let light = evaluate(&b, &[tokens(480)], Some("light"), &Default::default());
        assert_eq!(light.files[0][0].limit, 500);
        assert_eq!(light.files[0][0].status, BudgetStatus::Near);
        assert_eq!(light.bank[0].limit, 3000);
        let mut overrides = BudgetOverrides::default();
        overrides.formats.insert(
            "conkeeper".into(),
            FormatBudget {
                total: Some(100),
                per_file: Some(2000),
            },
        );
        let over = evaluate(&b, &[tokens(480)], Some("light"), &overrides);
        assert_eq!(
            (over.files[0][0].limit, over.files[0][0].source),
            (2000, CONFIG)
        );
        assert_eq!(over.bank[0].status, BudgetStatus::Over);
        overrides.files.insert("active-context.md".into(), 300);
        let by_name = evaluate(&b, &[tokens(480)], Some("light"), &overrides);
        assert_eq!(by_name.files[0][0].limit, 300);
    }

    #[test]
    fn hierarchical_limits() {
        let b = bank(
            Format::ClaudeMd,
            vec![file("CLAUDE.md", Role::Instructions, LoadKind::Startup)],
        );
        let m = Measure {
            tokens: Some(12_000),
            lines: 600,
            chars: 48_000,
            bytes: 48_000,
        };
        let result = evaluate(&b, &[m], None, &Default::default());
        let units: Vec<_> = result.files[0].iter().map(|c| (c.unit, c.status)).collect();
        assert_eq!(
            units,
            vec![
                (Unit::Characters, BudgetStatus::Over),
                (Unit::Lines, BudgetStatus::Over)
            ]
        );
        // Claude Code's own line target is per CLAUDE.md; no borrowed line figure is
        // lent to the bank.
        assert!(
            result.files[0]
                .iter()
                .any(|c| c.unit == Unit::Lines && c.limit == 200 && !c.borrowed)
        );
        assert!(!result.bank.iter().any(|c| c.unit == Unit::Lines));
        let agents = bank(
            Format::AgentsMd,
            vec![file("AGENTS.md", Role::Instructions, LoadKind::Startup)],
        );
        let result = evaluate(&agents, &[m], None, &Default::default());
        let codex = result.bank.iter().find(|c| c.unit == Unit::Bytes).unwrap();
        assert!(codex.cuts_off && codex.status == BudgetStatus::Over);
    }
}
