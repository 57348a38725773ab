//! The chrome around the panes: the header (project, formats, tokens), the status bar
//! (the keys of the layer that has the keyboard, from its declared commands) and toasts.
use std::path::Path;
use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::{App, Screen};
use crate::tui::keymap::{KeyContext, Keymap};
use crate::tui::pane::{self, Command};
use crate::tui::widgets;

/// A transient message in the corner.
pub struct Toast {
    pub text: String,
    pub error: bool,
    pub until: Instant,
}

/// "key word" pairs for the status bar: the commands that are hints, each with its first
/// key usable in `context` (commands without one are left out).
pub fn hints<'a>(
    keymap: &Keymap,
    context: KeyContext,
    commands: impl IntoIterator<Item = &'a Command>,
) -> Vec<(String, &'static str)> {
    commands
        .into_iter()
        .filter(|c| c.hint)
        .filter_map(|c| {
            keymap
                .key_for(context, c.action)
                .map(|key| (key.to_string(), c.action.short()))
        })
        .collect()
}

/// A path as the chrome names it: `~/…` under the home folder, drawn safely.
pub fn path_label(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|home| path.strip_prefix(home).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".into(),
        Some(rest) => format!("~/{}", widgets::shown_path(rest)),
        None => widgets::shown_path(path),
    }
}

impl App {
    /// A short message in the corner; names in it are drawn with their hidden characters
    /// shown (every toast passes [`widgets::shown`] here).
    pub fn toast(&mut self, text: impl Into<String>) {
        self.toasts.push(Toast {
            text: widgets::shown(&text.into()).into_owned(),
            error: false,
            until: Instant::now() + Duration::from_secs(4),
        });
    }

    pub fn toast_error(&mut self, text: impl Into<String>) {
        self.toasts.push(Toast {
            text: widgets::shown(&text.into()).into_owned(),
            error: true,
            until: Instant::now() + Duration::from_secs(8),
        });
    }

    /// Drops expired toasts; true when something changed on screen.
    pub fn expire_toasts(&mut self, now: Instant) -> bool {
        let before = self.toasts.len();
        self.toasts.retain(|t| t.until > now);
        before != self.toasts.len()
    }

    pub(super) fn view_header(&self, frame: &mut Frame, area: Rect) {
        let theme = &self.theme;
        let mut spans = vec![Span::styled(" mbank ", theme.key().bg(theme.status_bg))];
        match (&self.screen, &self.tree.report) {
            (Screen::Project, Some(report)) => {
                spans.push(Span::styled(
                    format!(" {} ", widgets::shown(&report.name)),
                    theme.title(),
                ));
                let formats: Vec<&str> = report.formats().iter().map(|f| f.id()).collect();
                spans.push(Span::styled(
                    format!("{}  ", formats.join(" · ")),
                    theme.fg(theme.accent),
                ));
                spans.push(Span::styled(
                    format!("{} tok loaded", widgets::compact(report.loaded_tokens())),
                    widgets::budget_color(theme, report.worst_budget()),
                ));
                if report.private_tokens() > 0 {
                    spans.push(Span::styled(
                        format!(" +{} private", widgets::compact(report.private_tokens())),
                        theme.fg(theme.private),
                    ));
                }
                spans.push(Span::styled(
                    format!(" ({})", report.encoding),
                    theme.muted(),
                ));
            }
            (Screen::Project, None) => {
                if let Some(project) = &self.project {
                    spans.push(Span::styled(
                        format!(" {} ", widgets::shown(&project.name)),
                        theme.title(),
                    ));
                    spans.push(Span::styled("reading…", theme.muted()));
                }
            }
            (Screen::Picker, _) => {
                spans.push(Span::styled(
                    " memory banks of your AI coding agents",
                    theme.muted(),
                ));
            }
        }
        frame.render_widget(
            Paragraph::new(Line::from(spans)).style(theme.status()),
            area,
        );
    }

    /// What the status bar names: the commands of the layer that has the keyboard; under
    /// a pane, the global ones that work there too (an overlay keeps every key).
    fn status_commands(&self) -> Vec<&'static Command> {
        let own = pane::commands(self.key_context()).iter();
        if self.overlays.is_empty() {
            own.chain(self.global_commands()).collect()
        } else {
            own.collect()
        }
    }

    pub(super) fn view_status(&self, frame: &mut Frame, area: Rect) {
        let theme = &self.theme;
        let mut spans = Vec::new();
        for (key, word) in hints(&self.keymap, self.key_context(), self.status_commands()) {
            spans.push(Span::styled(
                format!(" {key}"),
                theme.key().bg(theme.status_bg),
            ));
            spans.push(Span::styled(format!(" {word} "), theme.status()));
        }
        let right = match &self.demo_path {
            Some(path) => format!(" demo: {} ", path_label(path, self.home.as_deref())),
            None => format!(" {} ", path_label(&self.root, self.home.as_deref())),
        };
        let [left_area, right_area] = Layout::horizontal([
            Constraint::Min(10),
            Constraint::Length((right.chars().count() as u16).min(area.width / 2)),
        ])
        .areas(area);
        frame.render_widget(
            Paragraph::new(Line::from(spans)).style(theme.status()),
            left_area,
        );
        frame.render_widget(
            Paragraph::new(Span::styled(right, theme.muted().bg(theme.status_bg))),
            right_area,
        );
    }

    pub(super) fn view_toasts(&self, frame: &mut Frame, area: Rect) {
        let theme = &self.theme;
        for (index, toast) in self.toasts.iter().rev().take(3).enumerate() {
            let width = (toast.text.chars().count() as u16 + 4).min(area.width.saturating_sub(2));
            let rect = Rect {
                x: area.right().saturating_sub(width + 1),
                y: area.y + 1 + index as u16,
                width,
                height: 1,
            };
            let style = if toast.error {
                theme.fg(theme.background).bg(theme.error)
            } else {
                theme.fg(theme.background).bg(theme.accent)
            };
            frame.render_widget(Clear, rect);
            frame.render_widget(
                Paragraph::new(Span::styled(
                    format!(" {} ", widgets::truncate(&toast.text, width as usize - 2)),
                    style,
                )),
                rect,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::app::GLOBAL_COMMANDS;
    use crate::tui::keymap::Action;

    #[test]
    fn hints_name_the_keys_that_work_where_they_are_pressed() {
        let keymap = Keymap::load(None, None).unwrap();
        let editor = pane::commands(KeyContext::Editor);
        let named = hints(
            &keymap,
            KeyContext::Editor,
            editor.iter().chain(GLOBAL_COMMANDS),
        );
        assert!(named.contains(&("ctrl-s".to_string(), "save")), "{named:?}");
        // In the editor a typed `?` is text: help is named by its other key.
        assert!(named.contains(&("F1".to_string(), "help")), "{named:?}");
        assert!(named.contains(&("ctrl-q".to_string(), "quit")), "{named:?}");
        // Moving keys are in help only.
        let tree = hints(&keymap, KeyContext::Tree, pane::commands(KeyContext::Tree));
        assert!(
            tree.iter().all(|(_, word)| *word != Action::Up.short()),
            "{tree:?}"
        );
        assert!(tree.contains(&("space".to_string(), "fold")), "{tree:?}");
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
