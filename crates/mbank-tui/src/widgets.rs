//! Small pieces every pane draws the same way: gauges, badges, compact figures, and
//! names made safe to draw.
use std::borrow::Cow;
use std::path::Path;

use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

use mbank_core::analysis::budgets::{BudgetCheck, BudgetStatus};
use mbank_core::analysis::report::SessionTokens;
use mbank_core::analysis::staleness::Freshness;
use mbank_core::findings::Severity;
use mbank_core::formats::agents::Agent;

use super::theme::Theme;

/// "812", "4.2k", "10.9k", "20k", "1.3M": token figures in a narrow column, one decimal
/// kept (10,900 is not 10k) unless it is 0 from 10k on (a budget of 20k).
pub fn compact(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..10_000 => format!("{:.1}k", n as f64 / 1_000.0),
        // Below this, one decimal of thousands does not round up to 1000.0k.
        10_000..999_950 => {
            let figure = format!("{:.1}", n as f64 / 1_000.0);
            format!("{}k", figure.strip_suffix(".0").unwrap_or(&figure))
        }
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

/// "just now", "5 min", "3 h", "12 d": time since a Unix time.
pub fn ago(epoch: Option<u64>, now: u64) -> String {
    mbank_core::io::text::age_in_words(epoch, now)
}

pub(crate) fn budget_color(theme: &Theme, status: Option<BudgetStatus>) -> Style {
    match status {
        Some(BudgetStatus::Ok) => theme.fg(theme.ok),
        Some(BudgetStatus::Near) => theme.fg(theme.near),
        Some(BudgetStatus::Over) => theme.fg(theme.over).add_modifier(Modifier::BOLD),
        None => theme.muted(),
    }
}

pub(crate) fn freshness_color(theme: &Theme, level: Option<Freshness>) -> Style {
    match level {
        Some(Freshness::Fresh) => theme.fg(theme.fresh),
        Some(Freshness::Aging) => theme.fg(theme.aging),
        Some(Freshness::Stale) => theme.fg(theme.stale).add_modifier(Modifier::BOLD),
        Some(Freshness::Unknown) | None => theme.muted(),
    }
}

pub(crate) fn severity_color(theme: &Theme, severity: Severity) -> Style {
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
pub(crate) fn token_check(checks: &[BudgetCheck]) -> Option<&BudgetCheck> {
    checks
        .iter()
        .filter(|c| c.unit == mbank_core::analysis::budgets::Unit::Tokens)
        .max_by_key(|c| c.percent())
        .or_else(|| checks.iter().max_by_key(|c| c.percent()))
}

/// A token gauge: `▰▰▱▱▱ 812/1k`, coloured ok / near / over.
pub(crate) fn token_gauge(
    tokens: Option<u64>,
    checks: &[BudgetCheck],
    width: usize,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let Some(tokens) = tokens else {
        return vec![Span::styled(
            format!("{:<w$}", "counting…", w = width + GAUGE_FIGURE),
            theme.muted(),
        )];
    };
    gauge(tokens, "", checks, None, width, theme)
}

/// Cells a gauge's figure takes after its bar: ` 298.9k/5.0k`, ` 12.5k  85%`.
pub(crate) const GAUGE_FIGURE: usize = 12;

/// A token figure alone, right-aligned in a fixed width (a narrow tree's gauge): the
/// colour says the budget's verdict.
pub(crate) fn figure_only(
    tokens: Option<u64>,
    suffix: &str,
    status: Option<BudgetStatus>,
    theme: &Theme,
) -> Span<'static> {
    match tokens {
        Some(tokens) => Span::styled(
            fit(&format!("{:>6}", format!("{}{suffix}", compact(tokens))), 6),
            budget_color(theme, status),
        ),
        None => Span::styled("     …", theme.muted()),
    }
}

/// What a total of several files adds up to, for `total_gauge`.
pub struct Total<'a> {
    pub tokens: u64,
    /// Every file counted; else the figure reads `35+` (as `mbank list` writes it).
    pub complete: bool,
    pub checks: &'a [BudgetCheck],
    /// The worst budget status of the total and its files: the colour of a total with no
    /// token budget of its own (a gauge with a budget is coloured by it alone, so the bar,
    /// the figure and the colour measure one thing).
    pub worst: Option<BudgetStatus>,
}

/// A project's session start as `mbank list` gives it
/// ([`ProjectReport::session_tokens`](mbank_core::analysis::report::ProjectReport::session_tokens)):
/// the heaviest agent's start-up tokens against the session's budget, and the agent.
pub(crate) struct SessionGauge {
    pub session: SessionTokens,
}

impl SessionGauge {
    pub fn of(report: &mbank_core::analysis::report::ProjectReport) -> SessionGauge {
        SessionGauge {
            session: report.session_tokens(),
        }
    }
}

/// The agent column's width: the longest agent id.
const AGENT_WIDTH: usize = 11;

/// Columns [`session_gauge`] takes with a bar of `bar` cells, with or without the agent.
pub(crate) fn session_gauge_width(bar: usize, agent: bool) -> usize {
    let text = 12 + 1 + 4 + if agent { 1 + AGENT_WIDTH } else { 0 };
    if bar > 0 { bar + 1 + text } else { text }
}

/// `▰▰▰▰▰▰▱▱  3.8k/5.0k ok   kilo`: the bar filled to the session's share of its budget,
/// the figure as `used/budget`, the verdict and (with `with_agent`) whose session it is;
/// the bar, figure and verdict in the verdict's colour, so they say what `mbank list`
/// says. A session nothing limits shows no bar and no verdict.
pub(crate) fn session_gauge(
    gauge: &SessionGauge,
    bar_width: usize,
    with_agent: bool,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let session = &gauge.session;
    let style = budget_color(theme, session.budget);
    let figure = session.used_of_budget(compact);
    let word = session.budget.map_or("—", BudgetStatus::id);
    let agent = session.agent.map_or("own tools", Agent::id);
    let mut spans = Vec::new();
    if bar_width > 0 {
        match session.budget_limit {
            Some(limit) => {
                let percent = session.tokens.saturating_mul(100) / limit.max(1);
                spans.extend(bar(percent, bar_width, style, theme));
            }
            None => spans.push(Span::styled("·".repeat(bar_width), theme.muted())),
        }
        spans.push(Span::raw(" "));
    }
    spans.push(Span::styled(format!("{figure:>12} {word:<4}"), style));
    if with_agent {
        spans.push(Span::styled(
            format!(" {agent:<AGENT_WIDTH$}"),
            theme.muted(),
        ));
    }
    spans
}

/// A gauge for a bank's or project's total: never "counting…" once counted, `+` when a
/// file could not be counted (unreadable, binary), coloured by the worst budget of it
/// and its files.
pub(crate) fn total_gauge(total: &Total, width: usize, theme: &Theme) -> Vec<Span<'static>> {
    let suffix = if total.complete { "" } else { "+" };
    gauge(
        total.tokens,
        suffix,
        total.checks,
        total.worst,
        width,
        theme,
    )
}

fn gauge(
    tokens: u64,
    suffix: &str,
    checks: &[BudgetCheck],
    worst: Option<BudgetStatus>,
    width: usize,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let figure = format!("{}{suffix}", compact(tokens));
    match token_check(checks) {
        Some(check) => {
            let style = budget_color(theme, Some(check.status));
            let mut spans = bar(check.percent(), width, style, theme);
            let figure = if check.unit == mbank_core::analysis::budgets::Unit::Tokens {
                format!(" {figure:>6}/{:<4}", compact(check.limit))
            } else {
                format!(" {figure:>6} {:>3}%", check.percent().min(999))
            };
            // Always the same width, so the columns after it stay put.
            spans.push(Span::styled(fit(&figure, GAUGE_FIGURE), style));
            spans
        }
        None => {
            let style = match worst {
                Some(BudgetStatus::Near | BudgetStatus::Over) => budget_color(theme, worst),
                _ => theme.muted(),
            };
            vec![
                Span::styled("·".repeat(width), theme.muted()),
                Span::styled(fit(&format!(" {figure:>6}"), GAUGE_FIGURE), style),
            ]
        }
    }
}

/// `● fresh`, `◐ aging`, `○ stale`, `? unkn.` (cannot be judged) in the staleness
/// colour, seven cells each.
pub(crate) fn freshness_badge(level: Option<Freshness>, theme: &Theme) -> Span<'static> {
    let (glyph, word) = match level {
        Some(Freshness::Fresh) => ("●", "fresh"),
        Some(Freshness::Aging) => ("◐", "aging"),
        Some(Freshness::Stale) => ("○", "stale"),
        Some(Freshness::Unknown) => ("?", "unkn."),
        None => ("·", "     "),
    };
    Span::styled(format!("{glyph} {word}"), freshness_color(theme, level))
}

/// The staleness glyph alone (`●`, `◐`, `○`, `?`), where the word does not fit.
pub(crate) fn freshness_glyph(level: Option<Freshness>, theme: &Theme) -> Span<'static> {
    let badge = freshness_badge(level, theme);
    let glyph: String = badge.content.chars().take(1).collect();
    Span::styled(glyph, badge.style)
}

/// A name, title or message as drawn: control, bidi and invisible characters shown as
/// visible markers ([`mbank_core::markup::sanitize`]), never drawn raw or silently dropped.
pub fn shown(text: &str) -> Cow<'_, str> {
    mbank_core::markup::sanitize::line(text)
}

/// A path as drawn: lossy for bytes that are not UTF-8, then [`shown`].
pub(crate) fn shown_path(path: &Path) -> String {
    mbank_core::markup::sanitize::path(path)
}

/// Truncates to `width` display cells, ending in `…` when cut; the text is [`shown`]
/// first, so markers count in the width.
/// `text` drawn safely in at most `width` columns, its end kept (`…/activeContext.md`):
/// for paths, whose file name matters most.
pub(crate) fn truncate_start(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    let text = shown(text);
    let chars: Vec<char> = text.chars().collect();
    let total: usize = chars.iter().map(|c| c.width().unwrap_or(0)).sum();
    if total <= width {
        return text.into_owned();
    }
    let mut kept = Vec::new();
    let mut used = 0;
    for &c in chars.iter().rev() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        kept.push(c);
        used += w;
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}

/// `text` drawn safely in exactly `width` columns: cut with `…`, then padded by display
/// width (`{:<w$}` pads by characters, which misaligns wide or marked names).
pub fn fit(text: &str, width: usize) -> String {
    let mut out = truncate(text, width);
    let used = unicode_width::UnicodeWidthStr::width(out.as_str());
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(used)));
    out
}

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

/// `text` drawn safely in at most `width` cells, its start and end kept around a `…`
/// (`Gra…alerts`): where names share their start, the end tells them apart.
pub(crate) fn truncate_middle(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    let shown_text = shown(text);
    let total: usize = shown_text.chars().map(|c| c.width().unwrap_or(0)).sum();
    if total <= width {
        return shown_text.into_owned();
    }
    if width < 4 {
        return truncate(text, width);
    }
    // A third for the start, the rest for the end: suffixes tell names apart more often.
    let head_width = ((width - 1) / 3).max(1);
    let head = truncate(text, head_width + 1);
    let head = head.strip_suffix('…').unwrap_or(&head).to_string();
    let used = unicode_width::UnicodeWidthStr::width(head.as_str());
    let tail = truncate_start(text, width - used);
    format!("{head}{tail}")
}

/// Names cut to their widths (`(name, width)`) so that no two read alike: a name whose
/// plain cut (`Grafana-…`) would match another name's keeps its end (`Gra…alerts`).
pub(crate) fn distinct_cuts(names: &[(&str, usize)]) -> Vec<String> {
    let plain: Vec<String> = names.iter().map(|(n, w)| truncate(n, *w)).collect();
    (0..names.len())
        .map(|i| {
            let clashes = plain
                .iter()
                .enumerate()
                .any(|(j, other)| j != i && *other == plain[i] && names[j].0 != names[i].0);
            if clashes {
                truncate_middle(names[i].0, names[i].1)
            } else {
                plain[i].clone()
            }
        })
        .collect()
}

/// A path as the chrome names it: `~/…` under the home folder, drawn safely.
pub(crate) fn path_label(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|home| path.strip_prefix(home).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".into(),
        Some(rest) => format!("~/{}", shown_path(rest)),
        None => shown_path(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_would_cut_alike_keep_their_ends() {
        let names = [
            ("Grafana-dashboards", 8),
            ("Grafana-alerts", 8),
            ("weather-api", 8),
            ("short", 8),
        ];
        let cut = distinct_cuts(&names);
        assert_eq!(cut, ["Gr…oards", "Gr…lerts", "weather…", "short"]);
        for (name, width) in names {
            let shown = distinct_cuts(&[(name, width)]);
            assert!(unicode_width::UnicodeWidthStr::width(shown[0].as_str()) <= width);
        }
        assert_eq!(truncate_middle("abcdefghij", 10), "abcdefghij");
        assert_eq!(truncate_middle("abcdefghijk", 7), "ab…hijk");
        assert_eq!(truncate_middle("日本語のプロジェクト", 9), "日…ェクト");
    }

    #[test]
    fn a_gauge_is_as_wide_whatever_its_figure() {
        use mbank_core::analysis::budgets::{BudgetCheck, BudgetStatus, Unit};
        use ratatui::text::Line;
        let theme = Theme::default();
        let budget = |limit| BudgetCheck {
            rule: "tokens".into(),
            source: mbank_core::findings::RuleSource::Mbank,
            unit: Unit::Tokens,
            limit,
            value: 0,
            status: BudgetStatus::Ok,
            cuts_off: false,
            borrowed: false,
            by_folder_name: false,
        };
        let width = |tokens, checks: &[BudgetCheck]| {
            Line::from(token_gauge(Some(tokens), checks, 6, &theme)).width()
        };
        let expected = 6 + GAUGE_FIGURE;
        for tokens in [7, 1_200, 29_500, 298_900, 1_250_000] {
            assert_eq!(width(tokens, &[budget(5_000)]), expected, "{tokens}");
            assert_eq!(width(tokens, &[budget(125_000)]), expected, "{tokens}");
            assert_eq!(width(tokens, &[]), expected, "{tokens}");
            assert_eq!(figure_only(Some(tokens), "+", None, &theme).width(), 6);
        }
        assert_eq!(
            Line::from(token_gauge(None, &[], 6, &theme)).width(),
            expected
        );
    }

    #[test]
    fn compact_figures() {
        assert_eq!(compact(812), "812");
        assert_eq!(compact(4_200), "4.2k");
        assert_eq!(compact(45_000), "45k");
        assert_eq!(compact(45_049), "45k");
        assert_eq!(compact(10_900), "10.9k");
        assert_eq!(compact(999_949), "999.9k");
        assert_eq!(compact(999_950), "1.0M");
    }

    #[test]
    fn names_fit_their_column_whatever_they_hold() {
        use unicode_width::UnicodeWidthStr;
        for name in [
            "plain",
            "esc\u{1b}[2J",
            "tab\tname",
            "zw\u{200B}\u{202E}x",
            "日本語のプロジェクト名前です",
        ] {
            let fitted = fit(name, 12);
            assert_eq!(fitted.width(), 12, "{name:?} -> {fitted:?}");
        }
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

    #[test]
    fn paths_under_home_are_named_from_it() {
        let home = Path::new("/home/ada");
        assert_eq!(
            path_label(Path::new("/home/ada/banks"), Some(home)),
            "~/banks"
        );
        assert_eq!(path_label(home, Some(home)), "~");
        assert_eq!(
            path_label(Path::new("/srv/banks"), Some(home)),
            "/srv/banks"
        );
        assert_eq!(
            path_label(Path::new("/home/adam"), Some(home)),
            "/home/adam"
        );
        assert_eq!(path_label(Path::new("/srv/banks"), None), "/srv/banks");
    }
}
