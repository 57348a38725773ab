//! Small pieces every pane draws the same way: gauges, badges, compact figures, and
//! names made safe to draw.
use std::borrow::Cow;
use std::path::Path;

use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

use crate::core::analysis::budgets::{BudgetCheck, BudgetStatus};
use crate::core::analysis::staleness::Freshness;
use crate::core::findings::Severity;

use super::theme::Theme;

/// "812", "4.2k", "1.3M": token figures in a narrow column.
pub fn compact(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..10_000 => format!("{:.1}k", n as f64 / 1_000.0),
        10_000..1_000_000 => format!("{}k", n / 1_000),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

/// "just now", "5 min", "3 h", "12 d": time since a Unix time.
pub fn ago(epoch: Option<u64>, now: u64) -> String {
    crate::core::text::age_in_words(epoch, now)
}

pub fn now_epoch() -> u64 {
    crate::core::analysis::report::epoch_seconds(std::time::SystemTime::now()).unwrap_or(0)
}

pub fn budget_color(theme: &Theme, status: Option<BudgetStatus>) -> Style {
    match status {
        Some(BudgetStatus::Ok) => theme.fg(theme.ok),
        Some(BudgetStatus::Near) => theme.fg(theme.near),
        Some(BudgetStatus::Over) => theme.fg(theme.over).add_modifier(Modifier::BOLD),
        None => theme.muted(),
    }
}

pub fn freshness_color(theme: &Theme, level: Option<Freshness>) -> Style {
    match level {
        Some(Freshness::Fresh) => theme.fg(theme.fresh),
        Some(Freshness::Aging) => theme.fg(theme.aging),
        Some(Freshness::Stale) => theme.fg(theme.stale).add_modifier(Modifier::BOLD),
        None => theme.muted(),
    }
}

pub fn severity_color(theme: &Theme, severity: Severity) -> Style {
    match severity {
        Severity::Error => theme.fg(theme.error).add_modifier(Modifier::BOLD),
        Severity::Warning => theme.fg(theme.warning),
        Severity::Info => theme.fg(theme.info),
    }
}

/// A bar of `width` cells filled to `percent` (capped), coloured by status: `▰▰▰▱▱`.
pub fn bar(percent: u64, width: usize, style: Style, theme: &Theme) -> Vec<Span<'static>> {
    let filled = ((percent.min(100) as usize * width) + 50) / 100;
    let filled = if percent > 0 { filled.max(1) } else { 0 };
    vec![
        Span::styled("▰".repeat(filled), style),
        Span::styled("▱".repeat(width - filled), theme.muted()),
    ]
}

/// The token check of a list of budget checks (the one gauges show), if any.
pub fn token_check(checks: &[BudgetCheck]) -> Option<&BudgetCheck> {
    checks
        .iter()
        .filter(|c| c.unit == crate::core::analysis::budgets::Unit::Tokens)
        .max_by_key(|c| c.percent())
        .or_else(|| checks.iter().max_by_key(|c| c.percent()))
}

/// A token gauge: `▰▰▱▱▱ 812/1k`, coloured ok / near / over.
pub fn token_gauge(
    tokens: Option<u64>,
    checks: &[BudgetCheck],
    width: usize,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let Some(tokens) = tokens else {
        return vec![Span::styled(
            format!("{:<w$}", "counting…", w = width + 10),
            theme.muted(),
        )];
    };
    match token_check(checks) {
        Some(check) => {
            let style = budget_color(theme, Some(check.status));
            let mut spans = bar(check.percent(), width, style, theme);
            let figure = if check.unit == crate::core::analysis::budgets::Unit::Tokens {
                format!(" {:>5}/{:<4}", compact(tokens), compact(check.limit))
            } else {
                format!(" {:>5} {:>3}%", compact(tokens), check.percent().min(999))
            };
            spans.push(Span::styled(figure, style));
            spans
        }
        None => vec![
            Span::styled("·".repeat(width), theme.muted()),
            Span::styled(format!(" {:>5}     ", compact(tokens)), theme.muted()),
        ],
    }
}

/// `● fresh`, `◐ aging`, `○ stale` in the staleness colour.
pub fn freshness_badge(level: Option<Freshness>, theme: &Theme) -> Span<'static> {
    let (glyph, word) = match level {
        Some(Freshness::Fresh) => ("●", "fresh"),
        Some(Freshness::Aging) => ("◐", "aging"),
        Some(Freshness::Stale) => ("○", "stale"),
        None => ("·", "     "),
    };
    Span::styled(format!("{glyph} {word}"), freshness_color(theme, level))
}

/// A name, title or message as drawn: control, bidi and invisible characters shown as
/// visible markers ([`crate::core::sanitize`]), never drawn raw or silently dropped.
pub fn shown(text: &str) -> Cow<'_, str> {
    crate::core::sanitize::line(text)
}

/// A path as drawn: lossy for bytes that are not UTF-8, then [`shown`].
pub fn shown_path(path: &Path) -> String {
    crate::core::sanitize::path(path)
}

/// Truncates to `width` display cells, ending in `…` when cut; the text is [`shown`]
/// first, so markers count in the width.
pub fn truncate(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    let text = shown(text);
    let text = text.as_ref();
    let mut out = String::new();
    let mut used = 0;
    let total: usize = text.chars().map(|c| c.width().unwrap_or(0)).sum();
    if total <= width {
        return text.to_string();
    }
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    if width > 0 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_figures() {
        assert_eq!(compact(812), "812");
        assert_eq!(compact(4_200), "4.2k");
        assert_eq!(compact(45_000), "45k");
        assert_eq!(compact(1_300_000), "1.3M");
    }

    #[test]
    fn ages_in_words() {
        assert_eq!(ago(None, 100), "—");
        assert_eq!(ago(Some(100), 130), "just now");
        assert_eq!(ago(Some(0), 600), "10 min");
        assert_eq!(ago(Some(0), 7_200), "2 h");
        assert_eq!(ago(Some(0), 3 * 86_400), "3 d");
    }

    #[test]
    fn bars_fill_by_percent_and_cap() {
        let theme = Theme::default();
        let text = |p| -> String {
            bar(p, 5, Style::new(), &theme)
                .iter()
                .map(|s| s.content.to_string())
                .collect()
        };
        assert_eq!(text(0), "▱▱▱▱▱");
        assert_eq!(text(1), "▰▱▱▱▱");
        assert_eq!(text(60), "▰▰▰▱▱");
        assert_eq!(text(250), "▰▰▰▰▰");
    }

    #[test]
    fn truncation_respects_display_width() {
        assert_eq!(truncate("short", 10), "short");
        assert_eq!(truncate("progress.md", 6), "progr…");
        assert_eq!(truncate("日本語テキスト", 7), "日本語…");
        assert_eq!(truncate("a\u{1b}[2Jb", 10), "a␛[2Jb");
        assert_eq!(truncate("x\u{202E}yz", 6), "x⟨U+2…");
    }
}
