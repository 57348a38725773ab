//! The tree's rows: built from the report, folded folders and the filter honoured.
use super::*;

impl Tree {
    /// Rebuilds the rows from the report, honouring folded folders and the filter.
    pub fn rebuild(&mut self) {
        let mut rows = Vec::new();
        let mut matching = 0;
        let Some(report) = &self.report else {
            self.rows = rows;
            self.longest_file_row = 0;
            return;
        };
        let needle = self.filter.to_lowercase();
        for (b, (bank, tree)) in report.banks.iter().zip(&self.banks).enumerate() {
            let shows = |f: usize| needle.is_empty() || tree.haystack[f].contains(&needle);
            // Files under each folder that the filter lets through (children come after
            // their parent, so one backward pass adds them up).
            let counts: Vec<usize> = if needle.is_empty() {
                tree.folders.iter().map(|f| f.total).collect()
            } else {
                let mut counts: Vec<usize> = tree
                    .folders
                    .iter()
                    .map(|folder| folder.files.iter().filter(|&&f| shows(f)).count())
                    .collect();
                for i in (1..counts.len()).rev() {
                    let parent = tree.folders[i].parent;
                    counts[parent] += counts[i];
                }
                counts
            };
            matching += counts[0];
            rows.push(TreeRow {
                kind: RowKind::Bank { bank: b },
                indent: 0,
            });
            if self.is_folded(&tree.folders[0].key) {
                continue;
            }
            let context = self
                .contexts
                .iter()
                .find(|c| c.root == bank.root && c.format == bank.format);
            let push_files = |rows: &mut Vec<TreeRow>, folder: usize, indent: usize| {
                for &f in &tree.folders[folder].files {
                    if shows(f) {
                        rows.push(TreeRow {
                            kind: RowKind::File { bank: b, file: f },
                            indent,
                        });
                        push_context_rows(rows, context, &bank.files[f].file.path, indent + 1);
                    }
                }
            };
            push_files(&mut rows, 0, 1);
            // Depth first without recursion (folders can nest deep).
            let mut stack: Vec<(usize, usize)> = tree.folders[0]
                .children
                .iter()
                .rev()
                .map(|&c| (c, 1))
                .collect();
            while let Some((start, indent)) = stack.pop() {
                if counts[start] == 0 {
                    continue;
                }
                let mut folder = start;
                let mut name = tree.folders[folder].name.clone();
                while tree.folders[folder].files.is_empty()
                    && tree.folders[folder].children.len() == 1
                {
                    folder = tree.folders[folder].children[0];
                    name.push('/');
                    name.push_str(&tree.folders[folder].name);
                }
                let key = &tree.folders[folder].key;
                let folded = self.is_folded(key);
                rows.push(TreeRow {
                    kind: RowKind::Folder {
                        bank: b,
                        key: key.clone(),
                        name,
                        files: counts[folder],
                        folded,
                    },
                    indent,
                });
                if !folded {
                    push_files(&mut rows, folder, indent + 1);
                    stack.extend(
                        tree.folders[folder]
                            .children
                            .iter()
                            .rev()
                            .map(|&c| (c, indent + 1)),
                    );
                }
            }
            if needle.is_empty() {
                for problem in &bank.problems {
                    rows.push(TreeRow {
                        kind: RowKind::Note(problem.to_string()),
                        indent: 1,
                    });
                }
            }
        }
        if needle.is_empty() && self.offer_bank {
            rows.push(TreeRow {
                kind: RowKind::OfferBank,
                indent: 0,
            });
        }
        self.rows = rows;
        self.matching = matching;
        self.longest_file_row = self.longest_file_row(report);
        self.cursor.clamp(self.rows.len());
    }
}

/// Import and cut-off rows under an instruction file.
pub(super) fn push_context_rows(
    rows: &mut Vec<TreeRow>,
    context: Option<&BankContext>,
    file: &Path,
    indent: usize,
) {
    let Some(context) = context else {
        return;
    };
    for piece in &context.pieces {
        if piece.via.first().map(PathBuf::as_path) == Some(file) {
            rows.push(TreeRow {
                kind: RowKind::Import {
                    path: piece.file.clone(),
                    display: piece.display.clone(),
                    tokens: piece.tokens,
                    depth: piece.via.len().saturating_sub(1),
                },
                indent,
            });
        }
    }
    for cut in context.cutoffs.iter().filter(|c| c.file == file) {
        rows.push(TreeRow {
            kind: RowKind::CutOff {
                path: cut.file.clone(),
                text: format!(
                    "cut off: {} past {}'s {}",
                    mbank_core::analysis::load_cut::lines_in_words(
                        cut.first_line_past..=cut.last_line,
                        cut.dropped_bytes,
                        cut.inside_line
                    ),
                    cut.agent,
                    cut.limit
                ),
            },
            indent,
        });
    }
}

/// Whether a folder's name says it holds old copies: backups, archives, `*.bak`, `old`…
/// (matched on the name, case-insensitively).
pub(crate) fn looks_archived(name: &str) -> bool {
    let name = name.to_lowercase();
    let bare = name.trim_start_matches(['.', '_', '-', '~']);
    bare.starts_with("archive")
        || name.contains("backup")
        || [".bak", "-bak", "_bak", ".old", "-old", "_old", ".orig", "~"]
            .iter()
            .any(|end| name.ends_with(end))
        || ["bak-", "bak_", "bak.", "old-", "old_", "old."]
            .iter()
            .any(|start| bare.starts_with(start))
        || matches!(
            bare,
            "bak" | "old" | "history" | "sessions" | "trash" | "attic" | "deprecated" | "legacy"
        )
}

/// Arranges a bank's files by folder. A file the format puts in a group (a folder of
/// decisions, sessions, rules, an archive…) sits in its real folder; one it puts at the
/// top (it loads like the top files: `.claude/CLAUDE.md`) sits there under its path; an
/// Infinity memory sits in a folder named for its type.
pub(super) fn bank_tree(bank: &BankReport) -> BankTree {
    let mut tree = BankTree {
        folders: vec![Folder {
            key: format!("{:?}:{}", bank.format, bank.root.display()),
            name: String::new(),
            parent: 0,
            files: Vec::new(),
            children: Vec::new(),
            total: 0,
            archived: false,
        }],
        ..BankTree::default()
    };
    let mut by_name: HashMap<(usize, String), usize> = HashMap::new();
    for (f, report) in bank.files.iter().enumerate() {
        let file = &report.file;
        let rel = file.path.strip_prefix(&bank.root).ok();
        let rel_text = rel.map_or_else(
            || file.display.clone(),
            |r| r.to_string_lossy().into_owned(),
        );
        let parts = |path: Option<&Path>| -> Vec<String> {
            path.map(|p| {
                p.components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
        };
        let (folders, name) = match (&file.memory, &file.group) {
            (Some(memory), group) => (group.iter().cloned().collect(), memory.title.clone()),
            (None, Some(group)) => {
                let real = parts(rel.and_then(Path::parent));
                let folders = if real.is_empty() {
                    vec![group.clone()]
                } else {
                    real
                };
                (folders, file.file_name().into_owned())
            }
            (None, None) => (Vec::new(), rel_text.clone()),
        };
        let mut at = 0;
        for part in folders {
            at = match by_name.get(&(at, part.clone())) {
                Some(&child) => child,
                None => {
                    let child = tree.folders.len();
                    let parent = &tree.folders[at];
                    let folder = Folder {
                        key: format!("{}/{part}", parent.key),
                        archived: parent.archived || looks_archived(&part),
                        name: part.clone(),
                        parent: at,
                        files: Vec::new(),
                        children: Vec::new(),
                        total: 0,
                    };
                    tree.folders[at].children.push(child);
                    tree.folders.push(folder);
                    by_name.insert((at, part), child);
                    child
                }
            };
        }
        tree.folders[at].files.push(f);
        tree.folder_of.push(at);
        let title = file.memory.as_ref().map(|m| m.title.as_str()).unwrap_or("");
        tree.haystack
            .push(format!("{rel_text}\n{title}").to_lowercase());
        tree.names.push(name);
    }
    // Children come after their parent: one backward pass adds up the totals.
    for i in (0..tree.folders.len()).rev() {
        tree.folders[i].total += tree.folders[i].files.len();
        if i > 0 {
            let (parent, total) = (tree.folders[i].parent, tree.folders[i].total);
            tree.folders[parent].total += total;
        }
    }
    tree
}
