//! Budgets from the specs: every file and bank gets ok / near (≥ 80 %) / over, with the
//! numbers and the rule's source. `config.toml` overrides the token rules.
use std::borrow::Cow;

use serde::Serialize;

use crate::core::config::BudgetOverrides;
use crate::core::model::{Bank, Format, LoadKind, MemoryFile, Role};

/// What a limit counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Tokens,
    Characters,
    Lines,
    Bytes,
}

impl Unit {
    pub fn label(self) -> &'static str {
        match self {
            Unit::Tokens => "tokens",
            Unit::Characters => "characters",
            Unit::Lines => "lines",
            Unit::Bytes => "bytes",
        }
    }
}

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
    pub source: Cow<'static, str>,
    pub unit: Unit,
    pub limit: u64,
    pub value: u64,
    pub status: BudgetStatus,
    /// The agent silently drops what is past the limit (rather than merely warning).
    pub cuts_off: bool,
}

impl BudgetCheck {
    fn new(
        rule: impl Into<Cow<'static, str>>,
        source: impl Into<Cow<'static, str>>,
        unit: Unit,
        limit: u64,
        value: u64,
        cuts_off: bool,
    ) -> Self {
        BudgetCheck {
            rule: rule.into(),
            source: source.into(),
            unit,
            limit,
            value,
            status: BudgetStatus::of(value, limit),
            cuts_off,
        }
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
pub struct Measure {
    /// Loaded tokens (private content excluded), in the report's encoding.
    pub tokens: Option<u64>,
    pub lines: u64,
    pub chars: u64,
    pub bytes: u64,
}

/// Budgets of a bank: per file (same order as `bank.files`) and for the bank as a whole.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BankBudget {
    pub files: Vec<Vec<BudgetCheck>>,
    pub bank: Vec<BudgetCheck>,
}

/// The worst status among checks; `None` when no rule applies.
pub fn worst(checks: &[BudgetCheck]) -> Option<BudgetStatus> {
    checks.iter().map(|c| c.status).max()
}

impl BankBudget {
    pub fn file_status(&self, index: usize) -> Option<BudgetStatus> {
        self.files.get(index).and_then(|c| worst(c))
    }

    pub fn bank_status(&self) -> Option<BudgetStatus> {
        worst(&self.bank)
    }

    /// The worst of the bank and every file.
    pub fn overall(&self) -> Option<BudgetStatus> {
        self.files
            .iter()
            .filter_map(|c| worst(c))
            .chain(self.bank_status())
            .max()
    }
}

const SEED_CLINE: &str = "seed 000 §13.1 (Cline/Roo memory bank)";
const SEED_HIERARCHY: &str = "seed 002 §4.1 (hierarchical memory)";
const SEED_CONKEEPER: &str = "seed 004 token budget presets";
const CONFIG: &str = "config.toml";

/// ConKeeper's token presets: total target and per-role upper bounds (seed 004 table).
pub fn conkeeper_preset(name: &str) -> Option<(u64, [(Role, u64); 7])> {
    let preset = match name {
        "economy" | "compact" => (2000, [400, 600, 400, 400, 300, 500, 400]),
        "light" => (3000, [500, 700, 450, 450, 350, 600, 700]),
        "standard" => (4000, [600, 900, 550, 550, 450, 800, 1000]),
        "detailed" => (6000, [800, 1200, 700, 700, 500, 1000, 1500]),
        _ => return None,
    };
    let (total, per) = preset;
    let roles = [
        Role::Active,
        Role::Product,
        Role::Progress,
        Role::Patterns,
        Role::Glossary,
        Role::Adr,
        Role::Session,
    ];
    let mut table = [(Role::Other, 0); 7];
    for (slot, (role, limit)) in table.iter_mut().zip(roles.into_iter().zip(per)) {
        *slot = (role, limit);
    }
    Some((total, table))
}

/// Infinity sets no size limit; these per-type defaults keep a memory readable in one go.
pub fn infinity_type_budget(kind: &str) -> u64 {
    match kind {
        "project_overview" => 1000,
        "design_doc" => 2000,
        "implementation_plan" => 1500,
        "progress_tracker" => 1000,
        "test_plan" => 1500,
        "instructions" => 800,
        "rules" => 500,
        _ => 1500,
    }
}

fn file_override(overrides: &BudgetOverrides, file: &MemoryFile) -> Option<u64> {
    overrides
        .files
        .get(&file.display)
        .or_else(|| overrides.files.get(file.file_name().as_ref()))
        .copied()
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
    let token_rule = |checks: &mut Vec<BudgetCheck>,
                      rule: Cow<'static, str>,
                      source: &'static str,
                      limit: u64| {
        if let Some(tokens) = measure.tokens {
            checks.push(BudgetCheck::new(
                rule,
                source,
                Unit::Tokens,
                limit,
                tokens,
                false,
            ));
        }
    };
    if let Some(limit) = file_override(overrides, file) {
        token_rule(
            &mut checks,
            "per-file limit for this file".into(),
            CONFIG,
            limit,
        );
        return checks;
    }
    if let Some(limit) = format_override.and_then(|o| o.per_file)
        && file.load != LoadKind::Never
    {
        token_rule(&mut checks, "per-file limit".into(), CONFIG, limit);
    }
    let overridden = !checks.is_empty();
    match bank.format {
        Format::Cline | Format::MemoryBankMcp if !overridden && file.load == LoadKind::Startup => {
            token_rule(
                &mut checks,
                "500–1,000 tokens per file".into(),
                SEED_CLINE,
                1000,
            );
        }
        Format::ConKeeper if !overridden && file.load != LoadKind::Never => {
            let name = preset.unwrap_or("standard");
            if let Some((_, table)) = conkeeper_preset(name)
                && let Some((_, limit)) = table.iter().find(|(role, _)| *role == file.role)
            {
                let rule = format!("{name} preset: {} file", file.role);
                token_rule(&mut checks, rule.into(), SEED_CONKEEPER, *limit);
            }
        }
        Format::Infinity if !overridden => {
            if let Some(memory) = &file.memory {
                let rule = format!("{} memory", memory.kind);
                let source = "mbank default (seed 003 sets no size limit)";
                token_rule(
                    &mut checks,
                    rule.into(),
                    source,
                    infinity_type_budget(&memory.kind),
                );
            }
        }
        _ => {}
    }
    if bank.format.is_hierarchical() && file.load != LoadKind::Never {
        let name = file.file_name();
        if bank.format == Format::ClaudeMd && name == "CLAUDE.md" {
            checks.push(BudgetCheck::new(
                "Claude Code warns above 40,000 characters per CLAUDE.md",
                "Claude Code",
                Unit::Characters,
                40_000,
                measure.chars,
                false,
            ));
        }
        checks.push(BudgetCheck::new(
            "≤ 500 lines per file",
            SEED_HIERARCHY,
            Unit::Lines,
            500,
            measure.lines,
            false,
        ));
    }
    if file.file_name() == "MEMORY.md" {
        checks.push(BudgetCheck::new(
            "auto memory loads only the first 200 lines",
            "Claude Code MEMORY.md",
            Unit::Lines,
            200,
            measure.lines,
            true,
        ));
        checks.push(BudgetCheck::new(
            "auto memory loads only the first 25 KB",
            "Claude Code MEMORY.md",
            Unit::Bytes,
            25 * 1024,
            measure.bytes,
            true,
        ));
    }
    checks
}

fn bank_checks(
    bank: &Bank,
    measures: &[Measure],
    preset: Option<&str>,
    overrides: &BudgetOverrides,
) -> Vec<BudgetCheck> {
    let startup: Vec<(&MemoryFile, &Measure)> = bank
        .files
        .iter()
        .zip(measures)
        .filter(|(f, _)| f.load == LoadKind::Startup)
        .collect();
    // A token total is only meaningful once every loaded file is counted.
    let tokens: Option<u64> = startup.iter().map(|(_, m)| m.tokens).sum();
    let lines: u64 = startup.iter().map(|(_, m)| m.lines).sum();
    let mut checks = Vec::new();
    let mut token_total = |rule: Cow<'static, str>, source: &'static str, limit: u64| {
        if let Some(tokens) = tokens {
            checks.push(BudgetCheck::new(
                rule,
                source,
                Unit::Tokens,
                limit,
                tokens,
                false,
            ));
        }
    };
    if let Some(limit) = overrides
        .formats
        .get(bank.format.id())
        .and_then(|o| o.total)
    {
        token_total("bank total (loaded files)".into(), CONFIG, limit);
    } else {
        match bank.format {
            Format::Cline | Format::MemoryBankMcp | Format::RooRules => {
                token_total("whole bank under 5,000 tokens".into(), SEED_CLINE, 5000)
            }
            Format::ConKeeper => {
                let name = preset.unwrap_or("standard");
                if let Some((total, _)) = conkeeper_preset(name) {
                    token_total(format!("{name} preset total").into(), SEED_CONKEEPER, total);
                }
            }
            f if f.is_hierarchical() => token_total(
                "≤ 10% of a 200K-token context".into(),
                SEED_HIERARCHY,
                20_000,
            ),
            _ => {}
        }
    }
    if bank.format.is_hierarchical() {
        checks.push(BudgetCheck::new(
            "≤ 200 lines loaded at start-up",
            SEED_HIERARCHY,
            Unit::Lines,
            200,
            lines,
            false,
        ));
    }
    if bank.format == Format::AgentsMd {
        let bytes: u64 = startup.iter().map(|(_, m)| m.bytes).sum();
        checks.push(BudgetCheck::new(
            "Codex stops reading AGENTS.md at 32 KiB combined",
            "Codex project_doc_max_bytes",
            Unit::Bytes,
            32 * 1024,
            bytes,
            true,
        ));
    }
    checks
}

/// Applies every rule to a bank. `measures` has one entry per file of `bank.files`;
/// `preset` is the ConKeeper `token_budget` from the bank's `.memory-config.md`.
pub fn evaluate(
    bank: &Bank,
    measures: &[Measure],
    preset: Option<&str>,
    overrides: &BudgetOverrides,
) -> BankBudget {
    let files = bank
        .files
        .iter()
        .zip(measures)
        .map(|(file, measure)| file_checks(bank, file, measure, preset, overrides))
        .collect();
    BankBudget {
        files,
        bank: bank_checks(bank, measures, preset, overrides),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::config::FormatBudget;
    use std::path::PathBuf;

    fn file(name: &str, role: Role, load: LoadKind) -> MemoryFile {
        MemoryFile {
            path: PathBuf::from(name),
            display: name.to_string(),
            role,
            layer: None,
            order: 0,
            group: None,
            load,
            size: 0,
            modified: None,
            memory: None,
            unreadable: None,
        }
    }

    fn bank(format: Format, files: Vec<MemoryFile>) -> Bank {
        Bank {
            format,
            root: PathBuf::from("."),
            files,
            project_id: None,
            modes: vec![],
            problems: vec![],
            outside: vec![],
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
            ],
        );
        let result = evaluate(
            &b,
            &[tokens(700), tokens(4500), tokens(9000)],
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
        assert!(total.source.contains("seed 000"));
        let near = evaluate(
            &b,
            &[tokens(800), tokens(10), tokens(0)],
            None,
            &Default::default(),
        );
        assert_eq!(near.file_status(0), Some(BudgetStatus::Near));
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
            (over.files[0][0].limit, over.files[0][0].source.as_ref()),
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
        assert!(
            result
                .bank
                .iter()
                .any(|c| c.unit == Unit::Lines && c.value == 600)
        );
        let agents = bank(
            Format::AgentsMd,
            vec![file("AGENTS.md", Role::Instructions, LoadKind::Startup)],
        );
        let result = evaluate(&agents, &[m], None, &Default::default());
        let codex = result.bank.iter().find(|c| c.unit == Unit::Bytes).unwrap();
        assert!(codex.cuts_off && codex.status == BudgetStatus::Over);
    }
}
