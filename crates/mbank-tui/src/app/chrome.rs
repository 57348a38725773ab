//! The chrome around the panes: the header (project, formats, tokens), the status bar
//! (the keys of the layer that has the keyboard, from its declared commands) and the
//! toasts it shows in place of the root.
use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::toast::Toast;
use super::{App, Screen};
use crate::keymap::{Action, KeyContext, Keymap};
use crate::overlays::help::Logged;
use crate::pane::{self, KeyCommand};
use crate::widgets::{self, path_label};

/// How many messages the history keeps (the oldest go first).
const HISTORY: usize = 500;

/// "key word" pairs for the status bar: the commands that are hints, each with its first
/// key usable in `context` (commands without one are left out).
pub fn hints<'a>(
    keymap: &Keymap,
    context: KeyContext,
    commands: impl IntoIterator<Item = &'a KeyCommand>,
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

/// The hints that fit in `width` columns, in their order: the essential ones (help, quit,
/// the keys that leave; the zoom too when `zoom_matters`) always stay, the others go from
/// the last (the least useful: the pane's own keys come first, the global ones after
/// them) until the rest fit; a hint is shown whole or not at all.
fn fit_hints(
    mut hints: Vec<(String, &'static str)>,
    width: usize,
    zoom_matters: bool,
) -> Vec<(String, &'static str)> {
    let mut total: usize = hints.iter().map(hint_cost).sum();
    let mut index = hints.len();
    while total > width && index > 0 {
        index -= 1;
        if !is_essential(hints[index].1) && !keeps_zoom(hints[index].1, zoom_matters) {
            total -= hint_cost(&hints[index]);
            hints.remove(index);
        }
    }
    hints
}

/// Columns a hint takes: ` key word `.
fn hint_cost((key, word): &(String, &str)) -> usize {
    key.chars().count() + word.chars().count() + 3
}

/// The hints the status bar never drops: help, quit, and the keys that leave where the
/// keyboard is (back, back to the tree).
fn is_essential(word: &str) -> bool {
    [Action::Help, Action::Quit, Action::Back, Action::Leave]
        .iter()
        .any(|action| action.short() == word)
}

/// The zoom's hint, when it is essential: zoomed (it is the way out) or in the review
/// (whose diff needs the width at 80 columns).
fn keeps_zoom(word: &str, zoom_matters: bool) -> bool {
    zoom_matters && word == Action::Zoom.short()
}

/// `text` in at most `width` columns, its end kept: `…/mbank-demo-x1`.
fn keep_end(text: &str, width: usize) -> String {
    let count = text.chars().count();
    if count <= width {
        return text.to_string();
    }
    let tail: String = text.chars().skip(count + 1 - width.max(1)).collect();
    format!("…{tail}")
}

impl App {
    /// A short message in the corner; names in it are drawn with their hidden characters
    /// shown (every toast passes [`widgets::shown`] here).
    pub fn toast(&mut self, text: impl Into<String>) {
        self.push_toast(text.into(), false, Duration::from_secs(4));
    }

    pub fn toast_error(&mut self, text: impl Into<String>) {
        self.push_toast(text.into(), true, Duration::from_secs(8));
    }

    /// Shows a message in the status line and keeps it, whole, in the history (the
    /// status line cuts it at the screen's width; the history wraps it).
    fn push_toast(&mut self, text: String, error: bool, shown_for: Duration) {
        let text = widgets::shown(&text).into_owned();
        if self.messages.len() >= HISTORY {
            self.messages.remove(0);
        }
        self.messages.push(Logged {
            text: text.clone(),
            error,
            at: self.clock.epoch_seconds(),
        });
        self.toasts.push(Toast {
            text,
            error,
            until: Instant::now() + shown_for,
        });
    }

    /// Drops expired toasts; true when something changed on screen.
    pub(crate) fn expire_toasts(&mut self, now: Instant) -> bool {
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
                // The project's one session figure, as `mbank list` and the picker give it.
                let session = report.session_tokens();
                let whose = session
                    .agent
                    .map_or("start, through the banks' own tools".into(), |agent| {
                        format!("{}'s start", agent.label())
                    });
                let verdict = session
                    .budget
                    .map_or(String::new(), |status| format!(" {}", status.id()));
                spans.push(Span::styled(
                    format!(
                        "{} tok at {whose}{verdict}",
                        session.used_of_budget(widgets::compact)
                    ),
                    widgets::budget_color(theme, session.budget),
                ));
                if session.private_tokens > 0 {
                    spans.push(Span::styled(
                        format!(" +{} private", widgets::compact(session.private_tokens)),
                        theme.fg(theme.private),
                    ));
                }
                spans.push(Span::styled(
                    format!(" ({})", report.encoding),
                    theme.muted(),
                ));
            }
            (Screen::Project, None) => {
                if let Some(project) = &self.projects.open {
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
            (Screen::Changes, _) => {
                spans.push(Span::styled(
                    " what changed in memory, every project and agent store",
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
    fn status_commands(&self) -> Vec<&'static KeyCommand> {
        let own = pane::commands(self.key_context()).iter();
        if self.overlays.is_empty() {
            own.chain(self.global_commands()).collect()
        } else {
            own.collect()
        }
    }

    /// "VIEWING" or "EDITING" while the modeless editor has the keyboard (vim's modes
    /// show in the editor's border).
    fn editor_state(&self) -> Option<(&'static str, ratatui::style::Color)> {
        let editor = &self.document.editor;
        let has_keyboard = self.screen == Screen::Project
            && self.overlays.is_empty()
            && self.focus == super::Focus::Editor
            && editor.doc.is_some();
        if !has_keyboard || editor.modal {
            return None;
        }
        Some(if editor.viewing {
            ("VIEWING", self.theme.accent)
        } else {
            ("EDITING", self.theme.ok)
        })
    }

    pub(super) fn view_status(&self, frame: &mut Frame, area: Rect) {
        let theme = &self.theme;
        // The root on the right, its end kept when it is long (a demo copy's temp path).
        // A demo copy lives in a temporary folder: its name is enough.
        let room = (area.width / 3).max(12) as usize;
        let label = match &self.projects.demo_path {
            Some(path) => {
                let name = path
                    .file_name()
                    .map(mbank_core::markup::sanitize::os_str)
                    .unwrap_or_default();
                format!("demo {}", keep_end(&name, room.saturating_sub(5)))
            }
            None => keep_end(
                &path_label(&self.projects.root, self.projects.home.as_deref()),
                room,
            ),
        };
        let prompt = match (&self.screen, self.overlays.is_empty()) {
            (Screen::Project, true) => self.pane(self.focus).prompt_hints(),
            _ => None,
        };
        let all = match prompt {
            Some(keys) => keys.iter().map(|(k, w)| (k.to_string(), *w)).collect(),
            None => hints(&self.keymap, self.key_context(), self.status_commands()),
        };
        let zoom_matters = self.zoomed || self.key_context() == KeyContext::Review;
        let essential: usize = all
            .iter()
            .filter(|h| is_essential(h.1) || keeps_zoom(h.1, zoom_matters))
            .map(hint_cost)
            .sum();
        // A toast takes the root's place (never a pane's title or text): the newest error
        // first, then the newest message; help and quit stay beside it.
        let toast = self
            .toasts
            .iter()
            .rev()
            .find(|t| t.error)
            .or(self.toasts.last());
        let (right, right_style, right_width) = match toast {
            Some(toast) => {
                // More waiting, or a message cut: say where the whole of them is.
                let more = self.toasts.len() - 1;
                let history_key = self
                    .keymap
                    .key_for(self.key_context(), Action::Messages)
                    .map(|k| k.to_string())
                    .unwrap_or_default();
                let room = (area.width as usize).saturating_sub(essential + 2);
                let cut = unicode_width::UnicodeWidthStr::width(toast.text.as_str()) + 2 > room;
                let more = match (more, cut) {
                    (0, false) => String::new(),
                    (0, true) => format!(" ({history_key} all)"),
                    (more, _) => format!(" (+{more}, {history_key})"),
                };
                let room = (area.width as usize)
                    .saturating_sub(essential + more.chars().count() + 2)
                    .max(1);
                let text = format!(" {}{more} ", widgets::truncate(&toast.text, room));
                let style = if toast.error {
                    theme.fg(theme.background).bg(theme.error)
                } else {
                    theme.fg(theme.background).bg(theme.accent)
                };
                let width = unicode_width::UnicodeWidthStr::width(text.as_str()) as u16;
                (text, style, width.min(area.width))
            }
            None => {
                // Recording is off while another recorder holds the lock: say who records.
                let text = match self.recording {
                    crate::message::Recording::ByAnother(holder) => {
                        let who = holder.map_or("another mbank", |h| h.described());
                        format!(" {who} is recording · {label} ")
                    }
                    _ => format!(" {label} "),
                };
                let width = (text.chars().count() as u16).min(area.width / 2);
                (text, theme.status(), width)
            }
        };
        // Where the modeless editor has the keyboard, whether letters type: said first,
        // unless a message needs the room (it goes in seconds; the label comes back).
        let state = self
            .editor_state()
            .map(|(label, color)| {
                Span::styled(format!(" {label} "), theme.fg(theme.background).bg(color))
            })
            .filter(|label| {
                toast.is_none()
                    || label.width() + essential + usize::from(right_width)
                        <= usize::from(area.width)
            });
        let state_width = state.as_ref().map_or(0, |s| s.width() as u16);
        let hints = fit_hints(
            all,
            area.width.saturating_sub(right_width + state_width) as usize,
            zoom_matters,
        );
        let mut spans: Vec<Span> = state.into_iter().collect();
        for (key, word) in hints {
            spans.push(Span::styled(
                format!(" {key}"),
                theme.key().bg(theme.status_bg),
            ));
            spans.push(Span::styled(format!(" {word} "), theme.status()));
        }
        let [left_area, right_area] =
            Layout::horizontal([Constraint::Min(10), Constraint::Length(right_width)]).areas(area);
        frame.render_widget(
            Paragraph::new(Line::from(spans)).style(theme.status()),
            left_area,
        );
        frame.render_widget(Paragraph::new(Span::styled(right, right_style)), right_area);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::GLOBAL as GLOBAL_COMMANDS;
    use crate::keymap::Action;

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
    fn hints_that_do_not_fit_go_whole_from_the_last_but_help_and_quit_stay() {
        let all: Vec<(String, &'static str)> = [
            ("enter", "open"),
            ("space", "fold"),
            ("?", "help"),
            ("q", "quit"),
            ("p", "projects"),
            ("T", "next theme"),
        ]
        .into_iter()
        .map(|(k, w)| (k.to_string(), w))
        .collect();
        let width =
            |h: &[(String, &str)]| -> usize { h.iter().map(|(k, w)| k.len() + w.len() + 3).sum() };
        assert_eq!(fit_hints(all.clone(), 200, false), all);
        let fitted = fit_hints(all.clone(), 40, false);
        assert!(width(&fitted) <= 40, "{fitted:?}");
        let words: Vec<&str> = fitted.iter().map(|(_, w)| *w).collect();
        assert_eq!(words, ["open", "fold", "help", "quit"]);
        let words: Vec<&str> = fit_hints(all, 5, false).iter().map(|(_, w)| *w).collect();
        assert_eq!(words, ["help", "quit"]);
    }

    #[test]
    fn long_labels_keep_their_end() {
        assert_eq!(keep_end("~/banks", 12), "~/banks");
        assert_eq!(keep_end("/tmp/mbank-demo-x1y2z3", 12), "…demo-x1y2z3");
        assert_eq!(keep_end("/tmp/mbank-demo-x1y2z3", 12).chars().count(), 12);
    }
}
