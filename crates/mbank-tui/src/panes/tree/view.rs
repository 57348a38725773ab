//! Drawing the tree: bank, folder and file rows with their gauges and badges.
use super::*;

/// Names longer than this are cut before a gauge gives way to them.
const LONG_NAME: usize = 24;

impl Tree {
    pub(super) fn draw(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, focused: bool) {
        self.area = area;
        let title = self
            .report
            .as_ref()
            .map(|r| format!(" {} ", widgets::shown(&r.name)))
            .unwrap_or_else(|| " Files ".into());
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(focused))
            .title(Span::styled(title, theme.title()));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let Some(report) = &self.report else {
            frame.render_widget(
                Paragraph::new(Span::styled(" reading the bank…", theme.muted())),
                inner,
            );
            return;
        };
        // The filter's line at the bottom, while it is typed or applied.
        let prompt = self.typing || self.filtering();
        let [list_area, prompt_area] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(u16::from(prompt))])
                .areas(inner);
        if prompt {
            let room = inner.width as usize;
            let filter = widgets::truncate(&self.filter, room.saturating_sub(5));
            let mut used = 4 + filter.chars().count();
            let mut spans = vec![
                Span::styled(" / ", theme.key()),
                Span::styled(filter, theme.fg(theme.text)),
            ];
            if self.typing {
                spans.push(Span::styled("▏", theme.fg(theme.accent)));
            }
            // The count, then how to leave, as far as they fit.
            let count = format!(
                "  {} file{}",
                self.matching,
                if self.matching == 1 { "" } else { "s" }
            );
            let leave = if self.typing {
                " · enter keep · esc clear"
            } else {
                " · esc clear"
            };
            for piece in [count.as_str(), leave] {
                used += piece.chars().count();
                if used > room {
                    break;
                }
                spans.push(Span::styled(piece.to_string(), theme.muted()));
            }
            frame.render_widget(Paragraph::new(Line::from(spans)), prompt_area);
        }
        let shown = self
            .cursor
            .layout(list_area.height as usize, self.rows.len());
        let width = list_area.width as usize;
        self.gauges = Gauges::for_width(width, self.longest_file_row);
        // File names as drawn, cut so that two rows never read alike.
        let files: Vec<(usize, &str, usize)> = self.rows[shown.clone()]
            .iter()
            .enumerate()
            .filter_map(|(at, row)| {
                let name = self.file_name(row)?;
                let room = width.saturating_sub(self.gauges.cells() + row.indent * 2 + 5);
                Some((shown.start + at, name, room))
            })
            .collect();
        let cuts = widgets::distinct_cuts(
            &files
                .iter()
                .map(|&(_, name, room)| (name, room))
                .collect::<Vec<_>>(),
        );
        let names: HashMap<usize, String> =
            files.iter().map(|&(index, ..)| index).zip(cuts).collect();
        let lines: Vec<Line> = self
            .rows
            .iter()
            .enumerate()
            .skip(shown.start)
            .take(shown.len())
            .map(|(index, row)| {
                let name = names.get(&index).map(String::as_str);
                let mut line = self.row_line(report, row, name, width, theme);
                if index == self.cursor.selected {
                    line = line.patch_style(if focused {
                        theme.selected()
                    } else {
                        theme.selected().remove_modifier(Modifier::BOLD)
                    });
                }
                line
            })
            .collect();
        frame.render_widget(Paragraph::new(lines), list_area);
    }

    /// Cells the widest file row takes up to its gauges: indent, layer, name, marks. A
    /// name counts up to [`LONG_NAME`] cells: a longer one is cut rather than cost
    /// every row its gauges.
    pub(super) fn longest_file_row(&self, report: &ProjectReport) -> usize {
        self.rows
            .iter()
            .filter_map(|row| match &row.kind {
                RowKind::File { bank, file } => {
                    let name = self.banks.get(*bank)?.names.get(*file)?;
                    report.banks.get(*bank)?.files.get(*file)?;
                    Some(row.indent * 2 + 5 + name_cells(name).min(LONG_NAME))
                }
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// A file row's name (an Infinity memory's title), as the tree knows it.
    fn file_name(&self, row: &TreeRow) -> Option<&str> {
        match &row.kind {
            RowKind::File { bank, file } => self
                .banks
                .get(*bank)
                .and_then(|t| t.names.get(*file))
                .map(String::as_str),
            _ => None,
        }
    }

    /// One row; `shown_name` is a file's name as cut for this draw.
    pub(super) fn row_line(
        &self,
        report: &ProjectReport,
        row: &TreeRow,
        shown_name: Option<&str>,
        width: usize,
        theme: &Theme,
    ) -> Line<'static> {
        let indent = "  ".repeat(row.indent);
        // Gauges take the right-hand cells when there is room for a name too.
        let gauges = self.gauges;
        let name_width = width.saturating_sub(gauges.cells() + indent.len());
        match &row.kind {
            RowKind::Bank { bank: b } => {
                let bank = &report.banks[*b];
                let glyph = if self.fold_key(row).is_some_and(|k| self.is_folded(k)) {
                    "▸"
                } else {
                    "▾"
                };
                let folder = bank
                    .root
                    .strip_prefix(&report.path)
                    .ok()
                    .filter(|p| !p.as_os_str().is_empty())
                    .map(|p| format!(" {}/", p.display()))
                    .unwrap_or_default();
                let mut spans = vec![Span::styled(
                    format!(
                        "{:<w$} ",
                        widgets::truncate(
                            &format!("{glyph} {}{folder}", bank.label),
                            name_width.saturating_sub(1)
                        ),
                        w = name_width.saturating_sub(1)
                    ),
                    theme.fg(theme.accent).add_modifier(Modifier::BOLD),
                )];
                let total = widgets::Total {
                    tokens: bank.loaded_tokens,
                    complete: bank.complete,
                    checks: &bank.budget,
                    worst: bank.worst_budget(),
                };
                match gauges {
                    Gauges::None => {}
                    Gauges::Figure | Gauges::Compact => {
                        let status = widgets::token_check(&bank.budget)
                            .map(|c| c.status)
                            .or(total.worst);
                        let suffix = if bank.complete { "" } else { "+" };
                        spans.push(widgets::figure_only(
                            Some(bank.loaded_tokens),
                            suffix,
                            status,
                            theme,
                        ));
                        if gauges == Gauges::Compact {
                            spans.push(Span::raw(" "));
                            spans.push(widgets::freshness_glyph(bank.worst_staleness(), theme));
                        }
                    }
                    Gauges::Full => {
                        spans.extend(widgets::total_gauge(&total, 6, theme));
                        spans.push(Span::raw(" "));
                        spans.push(widgets::freshness_badge(bank.worst_staleness(), theme));
                    }
                }
                Line::from(spans)
            }
            RowKind::Folder {
                name,
                files,
                folded,
                ..
            } => Line::from(vec![
                Span::raw(indent),
                Span::styled(
                    widgets::truncate(
                        &format!("{} {name}/ ({files})", if *folded { "▸" } else { "▾" }),
                        width.saturating_sub(row.indent * 2),
                    ),
                    theme.fg(theme.accent),
                ),
            ]),
            RowKind::File { bank, file } => {
                let name = shown_name.or(self.file_name(row)).unwrap_or("");
                let file = &report.banks[*bank].files[*file];
                self.file_line(file, name, indent, name_width, gauges, theme)
            }
            RowKind::Import {
                display,
                tokens,
                depth,
                ..
            } => Line::from(vec![
                Span::raw(format!("{indent}{}", "  ".repeat(*depth))),
                Span::styled(
                    widgets::truncate(&format!("↳ @{display}"), name_width),
                    theme.fg(theme.link),
                ),
                Span::styled(format!("  {} tok", compact(*tokens as u64)), theme.muted()),
            ]),
            RowKind::CutOff { text, .. } => Line::from(vec![
                Span::raw(indent),
                Span::styled(
                    widgets::truncate(&format!("✂ {text}"), width.saturating_sub(row.indent * 2)),
                    theme.fg(theme.over),
                ),
            ]),
            RowKind::Note(text) => Line::from(vec![
                Span::raw(indent),
                Span::styled(
                    widgets::truncate(&format!("! {text}"), width.saturating_sub(row.indent * 2)),
                    theme.fg(theme.warning),
                ),
            ]),
            RowKind::OfferBank => Line::from(Span::styled(
                widgets::truncate("+ create a memory bank", width),
                theme.fg(theme.link),
            )),
        }
    }

    pub(super) fn file_line(
        &self,
        file: &FileReport,
        name: &str,
        indent: String,
        name_width: usize,
        gauges: Gauges,
        theme: &Theme,
    ) -> Line<'static> {
        let layer = file
            .file
            .layer
            .map(|l| format!("{l} "))
            .unwrap_or_else(|| "  ".into());
        let changed = self.changed.contains(&file.file.path);
        let open = self.open.as_deref() == Some(file.file.path.as_path());
        let finding = self.worst.get(&file.file.path).copied();
        let marker = match finding {
            Some(Severity::Error) => {
                Span::styled("✖", widgets::severity_color(theme, Severity::Error))
            }
            Some(Severity::Warning) => {
                Span::styled("▲", widgets::severity_color(theme, Severity::Warning))
            }
            Some(Severity::Info) => {
                Span::styled("i", widgets::severity_color(theme, Severity::Info))
            }
            None => Span::raw(" "),
        };
        let name_style = if file.error.is_some() {
            theme.fg(theme.error)
        } else if file.file.load == LoadKind::Never {
            theme.muted()
        } else {
            theme.fg(theme.text)
        };
        let name_style = if open {
            name_style.add_modifier(Modifier::BOLD)
        } else {
            name_style
        };
        let mut spans = vec![
            Span::raw(indent),
            Span::styled(layer, theme.muted()),
            Span::styled(
                format!(
                    "{:<w$}",
                    widgets::truncate(name, name_width.saturating_sub(5)),
                    w = name_width.saturating_sub(5)
                ),
                name_style,
            ),
            Span::styled(
                if changed { "•" } else { " " },
                theme.fg(theme.changed).add_modifier(Modifier::BOLD),
            ),
            marker,
            Span::raw(" "),
        ];
        let tokens = file.stats.as_ref().map(|s| s.loaded_tokens as u64);
        let level = file.staleness.as_ref().map(|s| s.level);
        match gauges {
            Gauges::None => {}
            Gauges::Figure | Gauges::Compact => {
                if file.error.is_some() {
                    spans.push(Span::styled("unread", theme.fg(theme.error)));
                } else {
                    let status = widgets::token_check(&file.budget).map(|c| c.status);
                    spans.push(widgets::figure_only(tokens, "", status, theme));
                }
                if gauges == Gauges::Compact {
                    spans.push(Span::raw(" "));
                    spans.push(widgets::freshness_glyph(level, theme));
                }
            }
            Gauges::Full => {
                if file.error.is_some() {
                    spans.push(Span::styled(
                        widgets::fit("unreadable", 6 + widgets::GAUGE_FIGURE),
                        theme.fg(theme.error),
                    ));
                } else {
                    spans.extend(widgets::token_gauge(tokens, &file.budget, 6, theme));
                }
                spans.push(Span::raw(" "));
                spans.push(widgets::freshness_badge(level, theme));
            }
        }
        Line::from(spans)
    }
}

/// Cells `name` takes once [`widgets::shown`]: printable ASCII (most names) takes one cell
/// a byte and needs no marking, so its length answers; every file row asks this on a
/// rebuild of the rows.
pub(super) fn name_cells(name: &str) -> usize {
    if name.bytes().all(|b| b.is_ascii_graphic() || b == b' ') {
        name.len()
    } else {
        unicode_width::UnicodeWidthStr::width(widgets::shown(name).as_ref())
    }
}
