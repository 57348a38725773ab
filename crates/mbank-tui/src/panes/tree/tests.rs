use super::rows::looks_archived;
use super::*;
use mbank_core::model::{Format, MemoryFile, Role, VirtualMemory};

#[test]
fn archive_and_backup_names_are_recognised() {
    for name in [
        "archive",
        "Archive-2023",
        "archived",
        "_archive",
        "backup-2025-01-01",
        "pre-migration-backups",
        "memory.bak",
        "bak",
        "old",
        "old-notes",
        ".old",
        "notes_old",
        "History",
        "sessions",
        "notes.orig",
    ] {
        assert!(looks_archived(name), "{name}");
    }
    for name in [
        "notes",
        "design",
        "decisions",
        "bakery",
        "golden",
        "rules",
        "holdings",
    ] {
        assert!(!looks_archived(name), "{name}");
    }
}

fn file(root: &Path, rel: &str, group: Option<&str>, memory: Option<&str>) -> FileReport {
    FileReport {
        class: mbank_core::analysis::membership::FileClass::Memory,
        file: MemoryFile {
            path: root.join(rel),
            display: rel.to_string(),
            role: Role::Other,
            layer: None,
            order: 0,
            group: group.map(str::to_string),
            load: LoadKind::Never,
            size: 0,
            modified: None,
            changed: None,
            inode: None,
            memory: memory.map(|title| VirtualMemory {
                id: title.to_lowercase(),
                title: title.to_string(),
                kind: group.unwrap_or("").to_string(),
                created_at: None,
                updated_at: None,
            }),
            unreadable: None,
        },
        stats: None,
        error: None,
        budget: Vec::new(),
        budget_status: None,
        staleness: None,
        modified: None,
        last_commit: None,
        imports: Vec::new(),
    }
}

fn bank(root: &Path, files: Vec<FileReport>) -> BankReport {
    BankReport {
        format: Format::ClaudeMd,
        label: "Claude Code",
        root: root.to_path_buf(),
        project_id: None,
        modes: Vec::new(),
        files,
        budget: Vec::new(),
        budget_status: None,
        loaded_tokens: 0,
        private_tokens: 0,
        complete: true,
        problems: Vec::new(),
    }
}

fn report(banks: Vec<BankReport>) -> ProjectReport {
    ProjectReport::new("p".into(), PathBuf::from("/p"), Default::default(), banks)
}

/// The rows as indented text.
fn shape(tree: &Tree) -> Vec<String> {
    tree.rows
        .iter()
        .map(|row| {
            let what = match &row.kind {
                RowKind::Bank { .. } => "bank".to_string(),
                RowKind::Folder {
                    name,
                    files,
                    folded,
                    ..
                } => format!("{}{name}/ ({files})", if *folded { "+" } else { "-" }),
                RowKind::File { bank, file } => tree.banks[*bank].names[*file].clone(),
                other => format!("{other:?}"),
            };
            format!("{}{what}", " ".repeat(row.indent))
        })
        .collect()
}

#[test]
fn files_sit_in_their_folders_in_read_order_and_single_folder_chains_are_one_row() {
    let root = Path::new("/p");
    let files = vec![
        file(root, "CLAUDE.md", None, None),
        // A file the format loads like a top file stays at the top, under its path.
        file(root, ".claude/CLAUDE.md", None, None),
        file(root, ".claude/rules/api.md", Some("rules"), None),
        file(root, "packages/web/CLAUDE.md", Some("subfolders"), None),
        file(root, "packages/api/CLAUDE.md", Some("subfolders"), None),
        file(root, "docs/old/CLAUDE.md", Some("subfolders"), None),
    ];
    let mut tree = Tree::default();
    tree.set_report(report(vec![bank(root, files)]), Vec::new());
    assert_eq!(
        shape(&tree),
        [
            "bank",
            " CLAUDE.md",
            " .claude/CLAUDE.md",
            " -.claude/rules/ (1)",
            "  api.md",
            " -packages/ (2)",
            "  -web/ (1)",
            "   CLAUDE.md",
            "  -api/ (1)",
            "   CLAUDE.md",
            " +docs/old/ (1)",
        ]
    );
    assert_eq!(tree.cursor.selected, 1, "the first file is selected");
}

#[test]
fn infinity_memories_sit_in_a_folder_per_type_under_their_titles() {
    let root = Path::new("/p/.infinity");
    let files = vec![
        file(
            root,
            "memories.json",
            Some("decision"),
            Some("Use Postgres"),
        ),
        file(
            root,
            "memories.json",
            Some("pattern"),
            Some("Retry with backoff"),
        ),
        file(root, "memories.json", Some("decision"), Some("Drop Redis")),
    ];
    let mut tree = Tree::default();
    tree.set_report(report(vec![bank(root, files)]), Vec::new());
    assert_eq!(
        shape(&tree),
        [
            "bank",
            " -decision/ (2)",
            "  Use Postgres",
            "  Drop Redis",
            " -pattern/ (1)",
            "  Retry with backoff",
        ]
    );
    // The filter looks in titles too.
    tree.filter = "redis".into();
    tree.refilter();
    assert_eq!(shape(&tree), ["bank", " -decision/ (1)", "  Drop Redis"]);
    assert_eq!(tree.matching, 1);
}

#[test]
fn a_big_bank_opens_with_its_sub_folders_folded_and_a_refresh_keeps_what_was_opened() {
    let root = Path::new("/p");
    let mut files = vec![file(root, "CLAUDE.md", None, None)];
    for i in 0..=BIG_BANK_FILES {
        files.push(file(
            root,
            &format!("area-{}/f{i}/CLAUDE.md", i % 3),
            Some("subfolders"),
            None,
        ));
    }
    let mut tree = Tree::default();
    tree.set_report(report(vec![bank(root, files.clone())]), Vec::new());
    assert_eq!(tree.rows.len(), 5, "{:?}", shape(&tree));
    // Open one folder and select it; a refresh with a new folder keeps both.
    tree.cursor.selected = 3;
    tree.on_action(Action::Expand);
    let opened = shape(&tree)[3].clone();
    assert!(opened.starts_with(" -area-1/"), "{opened}");
    files.insert(
        1,
        file(root, "area-0/new/CLAUDE.md", Some("subfolders"), None),
    );
    tree.set_report(report(vec![bank(root, files)]), Vec::new());
    assert_eq!(shape(&tree)[tree.cursor.selected], opened);
}

#[test]
fn a_names_cells_are_its_shown_width() {
    for name in [
        "note-01.md",
        "a b.md",
        "",
        "日本語.md",
        "tab\there.md",
        "esc\u{1b}[2J.md",
        "del\u{7f}.md",
        "zero\u{200b}width.md",
    ] {
        assert_eq!(
            view::name_cells(name),
            unicode_width::UnicodeWidthStr::width(widgets::shown(name).as_ref()),
            "{name:?}"
        );
    }
}
