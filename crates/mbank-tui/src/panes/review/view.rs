//! Drawing the review: the file list by bank, the diff (unified or side by side) with its
//! signals, the proposals agents staged and the writes they were refused.
use super::*;

impl ReviewPane {
    pub(super) fn draw(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, focused: bool) {
        self.area = area;
        let mut title = vec![Span::styled(" Review ", theme.title())];
        // What waits on a person first: a narrow title keeps it.
        if !self.proposals.is_empty() {
            title.push(Span::styled(
                format!(
                    "· {} ",
                    mbank_core::io::text::counted(self.proposals.len(), "proposal")
                ),
                theme.fg(theme.warning),
            ));
        }
        if let Some(review) = &self.review
            && !review.refused.is_empty()
        {
            title.push(Span::styled(
                format!("· {} refused ", review.refused.len()),
                theme.fg(theme.warning),
            ));
        }
        if let Some(review) = &self.review {
            title.push(Span::styled(
                format!("· {} ", baseline_label(&review.baseline, self.drawn_at)),
                theme.fg(theme.accent),
            ));
            let added: usize = review.files.iter().map(|f| f.added).sum();
            let removed: usize = review.files.iter().map(|f| f.removed).sum();
            title.push(Span::styled(
                format!(
                    "· {} ",
                    mbank_core::io::text::counted(review.files.len(), "file")
                ),
                theme.fg(theme.text),
            ));
            title.push(Span::styled(format!("+{added} "), theme.fg(theme.added)));
            title.push(Span::styled(
                format!("−{removed} "),
                theme.fg(theme.removed),
            ));
        }
        if self.side_by_side {
            title.push(Span::styled("· side by side ", theme.muted()));
        }
        if self.loading || self.busy || self.deciding.is_some() {
            title.push(Span::styled("· working… ", theme.muted()));
        }
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(focused))
            .title(Line::from(title));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        if let Some(problem) = &self.problem {
            frame.render_widget(
                Paragraph::new(Span::styled(
                    format!(" cannot review: {problem}"),
                    theme.fg(theme.error),
                ))
                .wrap(Wrap { trim: false }),
                inner,
            );
            return;
        }
        let Some(review) = &self.review else {
            frame.render_widget(
                Paragraph::new(Span::styled(" computing the review…", theme.muted())),
                inner,
            );
            return;
        };
        if review.files.is_empty() && self.proposals.is_empty() && review.refused.is_empty() {
            let mut lines = vec![Line::from(Span::styled(
                format!(
                    " ✔ Nothing to review: no memory file changed {}.",
                    baseline_label(&review.baseline, self.drawn_at)
                ),
                theme.fg(theme.ok),
            ))];
            for problem in &review.problems {
                lines.push(Line::from(Span::styled(
                    format!(" ▲ {problem}"),
                    theme.fg(theme.warning),
                )));
            }
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
            return;
        }
        let list_lines = self.list_lines(review, theme, focused, inner.width as usize);
        // A refused write has no diff: its details take what the list needs. An open
        // proposal may take half the height (its diff needs the rest), the list otherwise
        // a third.
        let room = if self.refusal().is_some() {
            inner.height.saturating_sub(3)
        } else if self.is_expanded() {
            inner.height / 2
        } else {
            inner.height / 3
        };
        let list_height = (list_lines.len() as u16).min(room).max(2);
        let [list_area, rule, diff_area] = Layout::vertical([
            Constraint::Length(list_height),
            Constraint::Length(1),
            Constraint::Min(1),
        ])
        .areas(inner);
        self.list_area = list_area;
        self.diff_area = diff_area;
        self.view_list(frame, list_area, list_lines);
        let name = if let Some(view) = self.proposal() {
            Some(format!(
                " proposal {} · {} · {} ",
                view.proposal.id,
                widgets::shown(&view.proposal.file),
                view.proposal.kind()
            ))
        } else if self.refusal().is_some() {
            Some(" refused write: nothing changed on disk ".to_string())
        } else {
            None
        };
        let name = name
            .or_else(|| {
                self.file().map(|f| match &f.renamed_from_display {
                    Some(from) => format!(
                        " {} → {} ",
                        widgets::shown(from),
                        widgets::shown(&f.display)
                    ),
                    None => format!(" {} ", widgets::shown(&f.display)),
                })
            })
            .unwrap_or_default();
        let fill = (rule.width as usize).saturating_sub(name.chars().count() + 2);
        frame.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled("──", theme.border(false)),
                Span::styled(name, theme.title()),
                Span::styled("─".repeat(fill), theme.border(false)),
            ])),
            rule,
        );
        self.view_diff(frame, diff_area, theme, focused);
    }

    /// Every line of the list, each with the row it belongs to: a row is one line, an
    /// expanded proposal or refused write adds its details, wrapped to `width`.
    fn list_lines(
        &self,
        review: &Review,
        theme: &Theme,
        focused: bool,
        width: usize,
    ) -> Vec<(Line<'static>, usize)> {
        // Under its bank's row, a file is named from the bank's folder.
        let in_bank = |file: &mbank_core::review::FileReview| -> String {
            review
                .banks
                .iter()
                .filter_map(|b| file.path.strip_prefix(&b.root).ok())
                .min_by_key(|rel| rel.as_os_str().len())
                .map(widgets::shown_path)
                .filter(|rel| !rel.is_empty())
                .unwrap_or_else(|| file.display.clone())
        };
        // Names take what the figures and the badge leave, no more than the longest needs.
        let longest = review
            .files
            .iter()
            .map(|f| {
                in_bank(f).chars().count()
                    + f.renamed_from_display
                        .as_ref()
                        .map_or(0, |from| from.chars().count() + 3)
            })
            .max()
            .unwrap_or(0);
        // Narrow (beside the tree at 80 columns), the name keeps two fifths of the width
        // and the badge at the end may be cut; `z` (zoom) gives the list the whole width.
        let name_width = longest
            .min(width.saturating_sub(48).max(width * 2 / 5))
            .max(8);
        let mut lines = Vec::new();
        for (index, row) in self.list_rows.iter().enumerate() {
            let selected = index == self.list.selected;
            let mark = |line: Line<'static>| {
                if selected && focused {
                    line.patch_style(theme.selected())
                } else {
                    line
                }
            };
            match *row {
                ListRow::Note(0) => lines.push((
                    Line::from(Span::styled(
                        format!(
                            " ✔ No memory file changed {}.",
                            baseline_label(&review.baseline, self.drawn_at)
                        ),
                        theme.fg(theme.ok),
                    )),
                    index,
                )),
                ListRow::Note(n) => {
                    let problem = review.problems.get(n - 1).map_or("", String::as_str);
                    lines.push((
                        Line::from(Span::styled(
                            format!(" ▲ {}", widgets::shown(problem)),
                            theme.fg(theme.warning),
                        )),
                        index,
                    ));
                }
                ListRow::Bank(b) => {
                    let bank = &review.banks[b];
                    let root = bank
                        .root
                        .strip_prefix(&review.project)
                        .map(widgets::shown_path)
                        .unwrap_or_else(|_| widgets::shown_path(&bank.root));
                    let root = if root.is_empty() { ".".into() } else { root };
                    let delta = bank.tokens_after as i64 - bank.tokens_before as i64;
                    lines.push((
                        Line::from(vec![
                            Span::styled(
                                format!("▾ {} ", bank.format.id()),
                                theme.fg(theme.accent).add_modifier(Modifier::BOLD),
                            ),
                            Span::styled(format!("{root}  "), theme.fg(theme.text)),
                            Span::styled(
                                format!(
                                    "{} file{}  ",
                                    bank.files,
                                    if bank.files == 1 { "" } else { "s" }
                                ),
                                theme.muted(),
                            ),
                            Span::styled(format!("+{} ", bank.added), theme.fg(theme.added)),
                            Span::styled(format!("−{}  ", bank.removed), theme.fg(theme.removed)),
                            Span::styled(format!("{} tok", signed(delta)), theme.fg(theme.changed)),
                        ]),
                        index,
                    ));
                }
                ListRow::ProposalHeader => {
                    lines.push((proposal_header(self.proposals.len(), theme), index))
                }
                ListRow::Proposal(p) => {
                    let view = &self.proposals[p];
                    let marks = self.marks.get(&view.proposal.id);
                    let conflict = self.conflicts.contains_key(&view.proposal.id);
                    lines.push((
                        mark(proposal_line(view, marks, conflict, selected, theme)),
                        index,
                    ));
                    if self.expanded.is_some() && self.row_key(*row) == self.expanded {
                        let details = proposal_details(view, self.conflicts.get(&view.proposal.id));
                        for line in detail_lines(&details, width, theme) {
                            lines.push((line, index));
                        }
                    }
                }
                ListRow::RefusedHeader => lines.push((refused_header(review, theme), index)),
                ListRow::Refused(r) => {
                    let record = &review.refused[r];
                    lines.push((mark(refused_line(record, selected, theme)), index));
                    if self.expanded.is_some() && self.row_key(*row) == self.expanded {
                        for line in detail_lines(&refusal_details(record), width, theme) {
                            lines.push((line, index));
                        }
                    }
                }
                ListRow::File(f) => {
                    let file = &review.files[f];
                    let letter_style = match file.change.letter() {
                        'A' => theme.fg(theme.added),
                        'D' => theme.fg(theme.removed),
                        _ => theme.fg(theme.changed),
                    };
                    let name = match &file.renamed_from_display {
                        Some(from) => format!("{from} → {}", in_bank(file)),
                        None => in_bank(file),
                    };
                    let mut spans = vec![
                        Span::styled(if selected { "▶ " } else { "  " }, theme.fg(theme.accent)),
                        Span::styled(format!("{} ", file.change.letter()), letter_style),
                        Span::styled(
                            format!(
                                "{:<w$} ",
                                widgets::truncate_start(&name, name_width),
                                w = name_width
                            ),
                            theme.fg(theme.text),
                        ),
                        Span::styled(
                            format!("{:>5} ", format!("+{}", file.added)),
                            theme.fg(theme.added),
                        ),
                        Span::styled(
                            format!("{:<5} ", format!("−{}", file.removed)),
                            theme.fg(theme.removed),
                        ),
                        Span::styled(
                            format!("{:>7} tok ", signed(file.token_delta())),
                            theme.fg(theme.changed),
                        ),
                    ];
                    if let Some(worst) = file.worst_signal() {
                        let count = file.signals.iter().filter(|s| s.severity == worst).count();
                        spans.push(Span::styled(
                            format!("{} {count} {}", severity_glyph(worst), severity_word(worst)),
                            widgets::severity_color(theme, worst),
                        ));
                    } else if file.error.is_some() {
                        spans.push(Span::styled("✖ unreadable", theme.fg(theme.error)));
                    } else if file.fully_accepted() {
                        spans.push(Span::styled("✔ accepted", theme.fg(theme.ok)));
                    }
                    lines.push((mark(Line::from(spans)), index));
                }
            }
        }
        lines
    }

    /// Draws the list, scrolled so the selected row (and its details, as far as they
    /// fit) is on screen.
    pub(super) fn view_list(
        &mut self,
        frame: &mut Frame,
        area: Rect,
        lines: Vec<(Line<'static>, usize)>,
    ) {
        let height = area.height as usize;
        let first = lines
            .iter()
            .position(|(_, row)| *row == self.list.selected)
            .unwrap_or(0);
        let last = lines
            .iter()
            .rposition(|(_, row)| *row == self.list.selected)
            .unwrap_or(first);
        if first < self.list_scroll {
            self.list_scroll = first;
        } else if last >= self.list_scroll + height {
            // Show the row's end, but never scroll its first line away.
            self.list_scroll = (last + 1).saturating_sub(height).min(first);
        }
        self.list_scroll = self
            .list_scroll
            .min(lines.len().saturating_sub(height.max(1)));
        self.list_lines = lines.iter().map(|(_, row)| *row).collect();
        let shown: Vec<Line> = lines
            .into_iter()
            .skip(self.list_scroll)
            .take(height)
            .map(|(line, _)| line)
            .collect();
        frame.render_widget(Paragraph::new(shown), area);
    }

    pub(super) fn view_diff(
        &mut self,
        frame: &mut Frame,
        area: Rect,
        theme: &Theme,
        focused: bool,
    ) {
        // Lay out first: the file is borrowed, never cloned (it holds three whole texts).
        let range = self.cursor.layout(area.height as usize, self.rows.len());
        let cursor = self.cursor.selected;
        if self.refusal().is_some() {
            let text = if self.is_expanded() {
                " The agent's write was refused: no file was changed."
            } else {
                " The agent's write was refused: no file was changed. Its details: enter."
            };
            frame.render_widget(
                Paragraph::new(Span::styled(text, theme.muted())).wrap(Wrap { trim: false }),
                area,
            );
            return;
        }
        let marks = self
            .proposal()
            .and_then(|view| self.marks.get(&view.proposal.id));
        let Some(file) = self.file() else {
            return;
        };
        if self.rows.is_empty() {
            let text = if file.fully_accepted() {
                " ✔ every change in this file is accepted"
            } else {
                " (no lines to show)"
            };
            frame.render_widget(Paragraph::new(Span::styled(text, theme.fg(theme.ok))), area);
            return;
        }
        let width = area.width as usize;
        let mut lines = Vec::new();
        for index in range {
            let selected = index == cursor;
            let marker = Span::styled(
                if selected { "▶" } else { " " },
                if selected && focused {
                    theme.selected()
                } else {
                    theme.fg(theme.accent)
                },
            );
            let mut spans = vec![marker];
            match self.rows[index] {
                ReviewRow::Problem => spans.push(Span::styled(
                    format!(
                        " cannot diff: {}",
                        file.error.as_deref().unwrap_or("unknown problem")
                    ),
                    theme.fg(theme.error),
                )),
                ReviewRow::FileSignal(s) => {
                    spans.extend(signal_spans(&file.signals[s], theme, width))
                }
                ReviewRow::HunkSignal(_, s) => {
                    spans.push(Span::raw("  "));
                    spans.extend(signal_spans(&file.signals[s], theme, width - 2));
                }
                ReviewRow::Header(h) => {
                    let hunk = &file.diff.hunks[h];
                    let style = theme.fg(theme.accent).add_modifier(Modifier::BOLD);
                    spans.push(Span::styled(format!(" {}", hunk.header()), style));
                    spans.push(Span::styled(
                        format!("  +{}", hunk.added),
                        theme.fg(theme.added),
                    ));
                    spans.push(Span::styled(
                        format!(" −{}", hunk.removed),
                        theme.fg(theme.removed),
                    ));
                    spans.push(Span::styled(
                        format!("  hunk {} of {}", h + 1, file.diff.hunks.len()),
                        theme.muted(),
                    ));
                    match marks.and_then(|m| m.get(h).copied().flatten()) {
                        Some(true) => spans.push(Span::styled("  ✔ take", theme.fg(theme.ok))),
                        Some(false) => {
                            spans.push(Span::styled("  ✘ leave out", theme.fg(theme.removed)))
                        }
                        None => {}
                    }
                }
                ReviewRow::Line(h, l) => {
                    let line = &file.diff.hunks[h].lines[l];
                    spans.extend(unified_line(line, theme, width.saturating_sub(1)));
                }
                ReviewRow::Pair { hunk, left, right } => {
                    let half = width.saturating_sub(2) / 2;
                    let lines = &file.diff.hunks[hunk].lines;
                    spans.extend(side_line(left.map(|i| &lines[i]), true, theme, half));
                    spans.push(Span::styled("│", theme.border(false)));
                    spans.extend(side_line(right.map(|i| &lines[i]), false, theme, half));
                }
            }
            lines.push(Line::from(spans));
        }
        frame.render_widget(Paragraph::new(lines), area);
    }
}

pub(super) fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

pub(super) fn signal_spans(signal: &Signal, theme: &Theme, width: usize) -> Vec<Span<'static>> {
    let place = match (signal.new_line, signal.old_line) {
        (Some(line), _) => format!(" (line {line})"),
        (None, Some(line)) => format!(" (was line {line})"),
        _ => String::new(),
    };
    let text = format!(
        " {} {}: {}{place}",
        severity_glyph(signal.severity),
        signal.code,
        signal.message
    );
    vec![Span::styled(
        widgets::truncate(&text, width),
        widgets::severity_color(theme, signal.severity),
    )]
}

/// The rows of one file's diff.
pub(crate) fn diff_rows(file: &FileReview, side_by_side: bool) -> Vec<ReviewRow> {
    let mut rows = Vec::new();
    if file.error.is_some() {
        rows.push(ReviewRow::Problem);
    }
    for (index, signal) in file.signals.iter().enumerate() {
        if signal.hunk.is_none() {
            rows.push(ReviewRow::FileSignal(index));
        }
    }
    for (h, hunk) in file.diff.hunks.iter().enumerate() {
        rows.push(ReviewRow::Header(h));
        for (index, signal) in file.signals.iter().enumerate() {
            if signal.hunk == Some(hunk.id) {
                rows.push(ReviewRow::HunkSignal(h, index));
            }
        }
        if !side_by_side {
            rows.extend((0..hunk.lines.len()).map(|l| ReviewRow::Line(h, l)));
            continue;
        }
        // Runs of removed lines pair with the added lines that follow them, row by row.
        let mut removed: Vec<usize> = Vec::new();
        let mut added: Vec<usize> = Vec::new();
        let flush =
            |removed: &mut Vec<usize>, added: &mut Vec<usize>, rows: &mut Vec<ReviewRow>| {
                for k in 0..removed.len().max(added.len()) {
                    rows.push(ReviewRow::Pair {
                        hunk: h,
                        left: removed.get(k).copied(),
                        right: added.get(k).copied(),
                    });
                }
                removed.clear();
                added.clear();
            };
        for (l, line) in hunk.lines.iter().enumerate() {
            match line.kind {
                LineKind::Removed => {
                    if !added.is_empty() {
                        flush(&mut removed, &mut added, &mut rows);
                    }
                    removed.push(l);
                }
                LineKind::Added => added.push(l),
                LineKind::Context => {
                    flush(&mut removed, &mut added, &mut rows);
                    rows.push(ReviewRow::Pair {
                        hunk: h,
                        left: Some(l),
                        right: Some(l),
                    });
                }
            }
        }
        flush(&mut removed, &mut added, &mut rows);
    }
    rows
}

/// Styles of a diff line: the line, and its changed words.
pub(super) fn line_styles(kind: LineKind, theme: &Theme) -> (Style, Style) {
    match kind {
        LineKind::Added => (
            theme.fg(theme.added),
            theme
                .fg(theme.background)
                .bg(theme.added)
                .add_modifier(Modifier::BOLD),
        ),
        LineKind::Removed => (
            theme.fg(theme.removed),
            theme
                .fg(theme.background)
                .bg(theme.removed)
                .add_modifier(Modifier::BOLD),
        ),
        LineKind::Context => (theme.fg(theme.text), theme.fg(theme.text)),
    }
}

pub(super) fn unified_line(line: &DiffLine, theme: &Theme, width: usize) -> Vec<Span<'static>> {
    let number = |n: Option<usize>| n.map_or_else(|| "    ".to_string(), |n| format!("{n:>4}"));
    let sign = match line.kind {
        LineKind::Added => "+",
        LineKind::Removed => "-",
        LineKind::Context => " ",
    };
    let (base, _) = line_styles(line.kind, theme);
    let mut spans = vec![
        Span::styled(
            format!("{} {} ", number(line.old_line), number(line.new_line)),
            theme.muted(),
        ),
        Span::styled(sign.to_string(), base),
    ];
    spans.extend(text_spans(line, theme, width.saturating_sub(11)));
    spans
}

pub(super) fn side_line(
    line: Option<&DiffLine>,
    left: bool,
    theme: &Theme,
    width: usize,
) -> Vec<Span<'static>> {
    let Some(line) = line else {
        return vec![Span::raw(" ".repeat(width))];
    };
    let number = if left { line.old_line } else { line.new_line };
    let sign = match line.kind {
        LineKind::Added => "+",
        LineKind::Removed => "-",
        LineKind::Context => " ",
    };
    let (base, _) = line_styles(line.kind, theme);
    let mut spans = vec![
        Span::styled(
            number.map_or_else(|| "     ".to_string(), |n| format!("{n:>4} ")),
            theme.muted(),
        ),
        Span::styled(sign.to_string(), base),
    ];
    let text_width = width.saturating_sub(6);
    let text = text_spans(line, theme, text_width);
    let used: usize = text.iter().map(|s| s.width()).sum();
    spans.extend(text);
    spans.push(Span::raw(" ".repeat(text_width.saturating_sub(used))));
    spans
}

/// A line's text cut to `width` cells, changed words highlighted, tabs as four spaces,
/// and control, bidi and invisible characters shown by the core's sanitiser's markers
/// ([`sanitize::push_marker`]), reversed so a review sees them.
pub(super) fn text_spans(line: &DiffLine, theme: &Theme, width: usize) -> Vec<Span<'static>> {
    let (base, highlight) = line_styles(line.kind, theme);
    let text = line.text.as_str();
    // Split into (range, highlighted) segments.
    let mut segments: Vec<(usize, usize, bool)> = Vec::new();
    let mut at = 0;
    let mut ranges = line.changed.clone();
    ranges.sort_by_key(|r| r.start);
    for range in ranges {
        let start = range.start.clamp(at, text.len());
        let end = range.end.clamp(start, text.len());
        if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            continue;
        }
        if start > at {
            segments.push((at, start, false));
        }
        if end > start {
            segments.push((start, end, true));
        }
        at = end;
    }
    if at < text.len() {
        segments.push((at, text.len(), false));
    }
    let mut spans = Vec::new();
    let mut used = 0;
    'segments: for (start, end, marked) in segments {
        let style = if marked { highlight } else { base };
        let mut out = String::new();
        for (offset, c) in text[start..end].char_indices() {
            // Keep a cell for the "…" unless this is the line's last character.
            let last = start + offset + c.len_utf8() == text.len();
            let limit = if last { width } else { width.saturating_sub(1) };
            let (piece, piece_style) = if c == '\t' {
                ("    ".to_string(), None)
            } else if sanitize::hidden(c).is_some() {
                (
                    sanitize::marker(c),
                    Some(theme.fg(theme.error).add_modifier(Modifier::REVERSED)),
                )
            } else {
                (c.to_string(), None)
            };
            let piece_width: usize = piece.chars().map(|c| c.width().unwrap_or(0)).sum();
            if used + piece_width > limit {
                if !out.is_empty() {
                    spans.push(Span::styled(std::mem::take(&mut out), style));
                }
                if used < width {
                    spans.push(Span::styled("…", theme.muted()));
                }
                break 'segments;
            }
            used += piece_width;
            match piece_style {
                Some(s) => {
                    if !out.is_empty() {
                        spans.push(Span::styled(std::mem::take(&mut out), style));
                    }
                    spans.push(Span::styled(piece, s));
                }
                None => out.push_str(&piece),
            }
        }
        if !out.is_empty() {
            spans.push(Span::styled(out, style));
        }
    }
    // git's words, so nobody wonders what "(no final newline)" meant.
    let note = "  \\ No newline at end of file";
    if line.no_newline && used + note.chars().count() <= width {
        spans.push(Span::styled(note, theme.muted()));
    }
    spans
}

/// "⊘ 2 writes refused by the agent servers since the baseline (1 older not shown)".
pub(super) fn refused_header(review: &Review, theme: &Theme) -> Line<'static> {
    let count = review.refused.len();
    let hidden = count.saturating_sub(REFUSED_SHOWN);
    Line::from(Span::styled(
        format!(
            "⊘ {count} write{} refused by the agent servers since the baseline{}",
            if count == 1 { "" } else { "s" },
            if hidden > 0 {
                format!(" ({hidden} older not shown; `mbank review --json` lists every one)")
            } else {
                String::new()
            }
        ),
        theme.fg(theme.warning).add_modifier(Modifier::BOLD),
    ))
}

/// One refused write: the file the agent named, the rule, why, through what, when.
pub(super) fn refused_line(record: &RefusalRecord, selected: bool, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(if selected { "▶ " } else { "  " }, theme.fg(theme.accent)),
        Span::styled("⊘ ", theme.fg(theme.warning)),
        Span::styled(
            format!("{} ", widgets::shown(&record.file)),
            theme.fg(theme.text),
        ),
        Span::styled(
            format!("[{}] ", widgets::shown(&record.rule)),
            theme.fg(theme.warning),
        ),
        Span::styled(
            format!("{} ", widgets::shown(&record.message)),
            theme.fg(theme.text),
        ),
        Span::styled(
            format!(
                "via {} · {}",
                widgets::shown(&record.via),
                widgets::shown(&record.at)
            ),
            theme.muted(),
        ),
    ])
}

/// "⧗ 2 proposals staged by the agent servers, waiting for a decision".
pub(super) fn proposal_header(count: usize, theme: &Theme) -> Line<'static> {
    Line::from(Span::styled(
        format!(
            "⧗ {} staged by the agent servers, waiting for a decision",
            mbank_core::io::text::counted(count, "proposal")
        ),
        theme.fg(theme.warning).add_modifier(Modifier::BOLD),
    ))
}

/// One pending proposal: its number, file, what it does, its size, the marks so far.
pub(super) fn proposal_line(
    view: &ProposalView,
    marks: Option<&Vec<Option<bool>>>,
    conflict: bool,
    selected: bool,
    theme: &Theme,
) -> Line<'static> {
    let proposal = &view.proposal;
    let hunks = view.review.diff.hunks.len();
    let mut spans = vec![
        Span::styled(if selected { "▶ " } else { "  " }, theme.fg(theme.accent)),
        Span::styled("⧗ ", theme.fg(theme.warning)),
        Span::styled(format!("#{} ", proposal.id), theme.fg(theme.accent)),
        Span::styled(
            format!("{} ", widgets::shown(&proposal.file)),
            theme.fg(theme.text),
        ),
        Span::styled(format!("[{}] ", proposal.kind()), theme.fg(theme.warning)),
        Span::styled(format!("+{} ", view.review.added), theme.fg(theme.added)),
        Span::styled(
            format!("−{} ", view.review.removed),
            theme.fg(theme.removed),
        ),
        Span::styled(
            format!("{} ", mbank_core::io::text::counted(hunks, "hunk")),
            theme.muted(),
        ),
    ];
    let decided = marks.map_or(0, |m| m.iter().filter(|m| m.is_some()).count());
    if decided > 0 {
        spans.push(Span::styled(
            format!("{decided}/{hunks} marked "),
            theme.fg(theme.ok),
        ));
    }
    if conflict {
        spans.push(Span::styled("⚠ conflict ", theme.fg(theme.error)));
    }
    spans.push(Span::styled(
        format!(
            "via {} · {}",
            widgets::shown(&proposal.via),
            widgets::shown(&proposal.created)
        ),
        theme.muted(),
    ));
    Line::from(spans)
}

/// A proposal's details: label and value pairs.
pub(super) fn proposal_details(
    view: &ProposalView,
    conflict: Option<&String>,
) -> Vec<(&'static str, String)> {
    let proposal = &view.proposal;
    let mut details = vec![
        ("tool", proposal.via.clone()),
        ("client", client_words(proposal.client.as_deref())),
        ("staged", proposal.created.clone()),
        (
            "file",
            proposal
                .path
                .strip_prefix(&view.project)
                .map(widgets::shown_path)
                .unwrap_or_else(|_| proposal.file.clone()),
        ),
        (
            "change",
            format!(
                "{}: {} (+{} −{})",
                proposal.kind(),
                mbank_core::io::text::counted(view.review.diff.hunks.len(), "hunk"),
                view.review.added,
                view.review.removed
            ),
        ),
    ];
    if let Some(conflict) = conflict {
        details.push(("conflict", conflict.clone()));
    }
    details
}

fn client_words(client: Option<&str>) -> String {
    client.map_or_else(
        || "not named (a REST call, or an older server)".to_string(),
        str::to_string,
    )
}

/// A refused write's details: label and value pairs, the reason whole.
pub(super) fn refusal_details(record: &RefusalRecord) -> Vec<(&'static str, String)> {
    vec![
        ("tool", record.via.clone()),
        ("client", client_words(record.client.as_deref())),
        ("time", record.at.clone()),
        ("file", record.file.clone()),
        ("rule", record.rule.clone()),
        ("reason", record.message.clone()),
    ]
}

/// Details as lines: the label, then the value wrapped to `width` (never cut), the
/// continuation lines indented under the value.
pub(super) fn detail_lines(
    details: &[(&'static str, String)],
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    const INDENT: usize = 14;
    let room = width.saturating_sub(INDENT).max(10);
    let mut lines = Vec::new();
    for (label, value) in details {
        let value = widgets::shown(value).into_owned();
        for (i, piece) in wrap_text(&value, room).into_iter().enumerate() {
            let lead = if i == 0 {
                format!("{:>w$}: ", label, w = INDENT - 2)
            } else {
                " ".repeat(INDENT)
            };
            lines.push(Line::from(vec![
                Span::styled(lead, theme.muted()),
                Span::styled(piece, theme.fg(theme.text)),
            ]));
        }
    }
    lines
}

/// `text` in pieces of at most `width` cells, broken at spaces where it can be and
/// inside a word only when the word alone is wider.
pub(super) fn wrap_text(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    for word in text.split(' ') {
        let word_width: usize = word.chars().map(|c| c.width().unwrap_or(0)).sum();
        let gap = usize::from(!line.is_empty());
        if used + gap + word_width <= width {
            if gap == 1 {
                line.push(' ');
            }
            line.push_str(word);
            used += gap + word_width;
            continue;
        }
        if !line.is_empty() {
            out.push(std::mem::take(&mut line));
            used = 0;
        }
        for c in word.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > width && !line.is_empty() {
                out.push(std::mem::take(&mut line));
                used = 0;
            }
            line.push(c);
            used += w;
        }
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out
}
