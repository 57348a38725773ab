use super::*;

#[test]
fn every_format_is_registered_under_its_own_variant() {
    for (format, rules) in Format::ALL.into_iter().zip(all()) {
        assert_eq!(rules.format(), format);
    }
}

#[test]
fn top_markers_name_their_formats_and_nothing_else() {
    for files in instruction_family() {
        assert!(files.top_markers.contains(&files.main), "{files:?}");
    }
    assert_eq!(top_marker_format("CLAUDE.local.md"), Some(Format::ClaudeMd));
    assert_eq!(
        top_marker_format("AGENTS.override.md"),
        Some(Format::AgentsMd)
    );
    assert_eq!(top_marker_format(".beans"), Some(Format::BeansMd));
    assert_eq!(
        top_marker_format(".clinerules-code"),
        Some(Format::RooRules)
    );
    assert_eq!(top_marker_format(".roorules-"), Some(Format::RooRules));
    assert_eq!(top_marker_format(".roo"), Some(Format::RooRules));
    for other in [
        "README.md",
        "GEMINI.local.md",
        ".claude",
        "memory-bank",
        "src",
    ] {
        assert_eq!(top_marker_format(other), None, "{other}");
    }
}

#[test]
fn top_only_entries_are_top_markers_of_their_own_format() {
    for rules in all() {
        for name in rules.top_only_entries() {
            assert_eq!(top_marker_format(name), Some(rules.format()), "{name}");
            assert_eq!(top_only_format(name), Some(rules.format()), "{name}");
        }
    }
    assert_eq!(top_only_format(".clinerules"), Some(Format::RooRules));
    for other in [
        ".roomodes",
        ".clinerules-code",
        ".roo",
        "CLAUDE.md",
        "memory-bank",
    ] {
        assert_eq!(top_only_format(other), None, "{other}");
    }
}

#[test]
fn no_budget_names_a_document_number() {
    let file = MemoryFile {
        path: "CLAUDE.md".into(),
        display: "CLAUDE.md".into(),
        role: Role::Active,
        layer: Some(1),
        order: 0,
        group: None,
        load: LoadKind::Startup,
        size: 0,
        modified: None,
        changed: None,
        inode: None,
        memory: None,
        unreadable: None,
    };
    for rules in all() {
        let budgets = rules
            .file_budgets(&file, None)
            .into_iter()
            .chain(rules.bank_budgets(None));
        for budget in budgets {
            let words = format!("{} {}", budget.rule, budget.source);
            assert!(
                !words.contains("seed") && !words.contains('§') && !words.contains("spec"),
                "{words}"
            );
        }
    }
}

fn startup_file(name: &str) -> MemoryFile {
    MemoryFile {
        path: name.into(),
        display: name.into(),
        role: Role::Active,
        layer: Some(1),
        order: 0,
        group: None,
        load: LoadKind::Startup,
        size: 0,
        modified: None,
        changed: None,
        inode: None,
        memory: None,
        unreadable: None,
    }
}

#[test]
fn own_names_count_once_each_at_the_banks_top_whatever_their_case() {
    let bank = Bank {
        format: Format::Cline,
        root: "/p/memory-bank".into(),
        files: [
            "/p/memory-bank/projectbrief.md",
            "/p/memory-bank/PROGRESS.md",
            "/p/memory-bank/Progress.md",
            "/p/memory-bank/old/activeContext.md",
            "/p/memory-bank-2/techContext.md",
            "/p/memory-bank/productContext.md.bak",
        ]
        .into_iter()
        .map(startup_file)
        .collect(),
        project_id: None,
        modes: Vec::new(),
        problems: Vec::new(),
        outside: Vec::new(),
        parsed_store: None,
    };
    let names = [
        "projectbrief.md",
        "progress.md",
        "activeContext.md",
        "techContext.md",
        "productContext.md",
    ];
    assert_eq!(count_own_names(&bank, &names), 2);
    assert_eq!(count_own_names(&bank, &names[2..]), 0);
    assert_eq!(count_own_names(&bank, &[]), 0);
}

#[test]
fn a_format_without_a_documented_limit_borrows_its_familys_budgets() {
    let all_budgets = |format: Format, file: &str| {
        let rules = rules(format);
        rules
            .file_budgets(&startup_file(file), None)
            .into_iter()
            .chain(rules.bank_budgets(None))
            .collect::<Vec<Budget>>()
    };
    for (format, file) in [
        (Format::MemoryBankMcp, "active-context.md"),
        (Format::ClaudeMd, "CLAUDE.local.md"),
        (Format::GeminiMd, "GEMINI.md"),
    ] {
        let budgets = all_budgets(format, file);
        let family: Vec<&Budget> = budgets
            .iter()
            .filter(|b| {
                b.unit == Unit::Lines
                    || b.source == RuleSource::MbankBankSizes
                    || b.source == RuleSource::MbankSizes
            })
            .collect();
        assert!(!family.is_empty(), "{format:?}");
        assert!(family.iter().all(|b| b.borrowed), "{format:?}: {family:?}");
    }
    // Claude Code's own 40,000-character warning and 200-line target per CLAUDE.md, and
    // Codex's 32 KiB cut, are their own.
    let claude = all_budgets(Format::ClaudeMd, "CLAUDE.md");
    for unit in [Unit::Characters, Unit::Lines] {
        assert!(claude.iter().any(|b| b.unit == unit && !b.borrowed));
    }
    let agents = all_budgets(Format::AgentsMd, "AGENTS.md");
    assert!(agents.iter().any(|b| b.cuts_off && !b.borrowed));
    assert!(agents.iter().filter(|b| !b.cuts_off).all(|b| b.borrowed));
    // The families' own formats keep their rules at full weight.
    for (format, file) in [
        (Format::Cline, "activeContext.md"),
        (Format::BeansMd, "BEANS.md"),
    ] {
        assert!(
            all_budgets(format, file).iter().all(|b| !b.borrowed),
            "{format:?}"
        );
    }
}
