//! Themes: TOML files of semantic roles (`text`, `muted`, `accent`, `over`, `stale`…).
//! The bundled ones are compiled in; a user's `<config>/themes/NAME.toml` overrides or
//! adds to them. Views ask for roles, never for raw colours.
use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

/// The bundled themes, in the order the live switcher cycles through them.
pub(crate) const BUNDLED: [(&str, &str); 3] = [
    ("dark", include_str!("../../../themes/dark.toml")),
    ("light", include_str!("../../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../../themes/high-contrast.toml"),
    ),
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: String,
    #[serde(default)]
    syntax: Option<String>,
    colors: BTreeMap<String, String>,
}

/// Every role a view may ask for. A theme file must give each one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    pub name: String,
    /// The syntect theme used by the editor's highlighter.
    pub syntax: String,
    pub background: Color,
    pub text: Color,
    pub muted: Color,
    pub accent: Color,
    pub border: Color,
    pub border_active: Color,
    pub selection_bg: Color,
    pub selection_fg: Color,
    pub title: Color,
    pub status_bg: Color,
    pub status_fg: Color,
    pub key: Color,
    pub ok: Color,
    pub near: Color,
    pub over: Color,
    pub fresh: Color,
    pub aging: Color,
    pub stale: Color,
    pub error: Color,
    pub warning: Color,
    pub info: Color,
    pub heading_1: Color,
    pub heading_2: Color,
    pub heading_3: Color,
    pub code: Color,
    pub code_bg: Color,
    pub link: Color,
    pub private: Color,
    pub chip: Color,
    pub added: Color,
    pub removed: Color,
    pub changed: Color,
}

#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    #[error("theme {source_name}: {message}")]
    Invalid {
        source_name: String,
        message: String,
    },
    #[error("no theme named {0:?} (bundled: dark, light, high-contrast)")]
    Unknown(String),
}

impl Theme {
    /// Parses a theme file; `source_name` names it in errors (a path or "bundled dark").
    pub fn parse(text: &str, source_name: &str) -> Result<Theme, ThemeError> {
        let invalid = |message: String| ThemeError::Invalid {
            source_name: source_name.to_string(),
            message,
        };
        let file: ThemeFile = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        let mut colors = file.colors;
        let mut take = |role: &str| -> Result<Color, ThemeError> {
            let value = colors
                .remove(role)
                .ok_or_else(|| invalid(format!("missing colour for role `{role}`")))?;
            Color::from_str(&value)
                .map_err(|_| invalid(format!("`{role}` = {value:?} is not a colour")))
        };
        let theme = Theme {
            name: file.name,
            syntax: file
                .syntax
                .unwrap_or_else(|| "base16-ocean.dark".to_string()),
            background: take("background")?,
            text: take("text")?,
            muted: take("muted")?,
            accent: take("accent")?,
            border: take("border")?,
            border_active: take("border_active")?,
            selection_bg: take("selection_bg")?,
            selection_fg: take("selection_fg")?,
            title: take("title")?,
            status_bg: take("status_bg")?,
            status_fg: take("status_fg")?,
            key: take("key")?,
            ok: take("ok")?,
            near: take("near")?,
            over: take("over")?,
            fresh: take("fresh")?,
            aging: take("aging")?,
            stale: take("stale")?,
            error: take("error")?,
            warning: take("warning")?,
            info: take("info")?,
            heading_1: take("heading_1")?,
            heading_2: take("heading_2")?,
            heading_3: take("heading_3")?,
            code: take("code")?,
            code_bg: take("code_bg")?,
            link: take("link")?,
            private: take("private")?,
            chip: take("chip")?,
            added: take("added")?,
            removed: take("removed")?,
            changed: take("changed")?,
        };
        if let Some(extra) = colors.keys().next() {
            return Err(invalid(format!("unknown role `{extra}`")));
        }
        Ok(theme)
    }

    /// A bundled theme, or one from `<config>/themes/NAME.toml`, which wins.
    pub fn load(name: &str, config_dir: Option<&Path>) -> Result<Theme, ThemeError> {
        if let Some(dir) = config_dir {
            let path = dir.join("themes").join(format!("{name}.toml"));
            // A regular file within the settings limits; a missing one means bundled.
            match mbank_core::config::read_settings_file(&path) {
                Ok(text) => return Theme::parse(&text, &path.display().to_string()),
                Err(e) if mbank_core::io::text::is_not_found(&e) => {}
                Err(e) => {
                    return Err(ThemeError::Invalid {
                        source_name: "file".into(),
                        message: e.to_string(),
                    });
                }
            }
        }
        let (_, text) = BUNDLED
            .iter()
            .find(|(bundled, _)| *bundled == name)
            .ok_or_else(|| ThemeError::Unknown(name.to_string()))?;
        Theme::parse(text, &format!("bundled {name}"))
    }

    /// The name of the bundled theme after `name`, for the live switcher.
    pub(crate) fn next_bundled(name: &str) -> &'static str {
        let index = BUNDLED.iter().position(|(n, _)| *n == name);
        let next = index.map_or(0, |i| (i + 1) % BUNDLED.len());
        BUNDLED[next].0
    }

    pub fn base(&self) -> Style {
        Style::new().fg(self.text).bg(self.background)
    }

    pub(crate) fn muted(&self) -> Style {
        Style::new().fg(self.muted)
    }

    pub fn fg(&self, color: Color) -> Style {
        Style::new().fg(color)
    }

    pub fn selected(&self) -> Style {
        Style::new()
            .fg(self.selection_fg)
            .bg(self.selection_bg)
            .add_modifier(Modifier::BOLD)
    }

    pub fn border(&self, focused: bool) -> Style {
        Style::new().fg(if focused {
            self.border_active
        } else {
            self.border
        })
    }

    pub fn title(&self) -> Style {
        Style::new().fg(self.title).add_modifier(Modifier::BOLD)
    }

    pub fn status(&self) -> Style {
        Style::new().fg(self.status_fg).bg(self.status_bg)
    }

    pub fn key(&self) -> Style {
        Style::new().fg(self.key).add_modifier(Modifier::BOLD)
    }
}

/// WCAG AA's least contrast for body text.
pub(crate) const MIN_CONTRAST: f64 = 4.5;

/// A colour's red, green and blue as a terminal draws it: the sixteen named colours as
/// xterm's default palette does, the 256-colour palette by its formula; `None` for the
/// terminal's own default colour.
pub(crate) fn rgb(color: Color) -> Option<(u8, u8, u8)> {
    const NAMED: [(u8, u8, u8); 16] = [
        (0, 0, 0),
        (205, 0, 0),
        (0, 205, 0),
        (205, 205, 0),
        (0, 0, 238),
        (205, 0, 205),
        (0, 205, 205),
        (229, 229, 229),
        (127, 127, 127),
        (255, 0, 0),
        (0, 255, 0),
        (255, 255, 0),
        (92, 92, 255),
        (255, 0, 255),
        (0, 255, 255),
        (255, 255, 255),
    ];
    let indexed = |n: u8| match n {
        0..16 => NAMED[usize::from(n)],
        16..232 => {
            let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            let n = n - 16;
            (level(n / 36), level(n / 6 % 6), level(n % 6))
        }
        _ => {
            let gray = 8 + (n - 232) * 10;
            (gray, gray, gray)
        }
    };
    Some(match color {
        Color::Reset => return None,
        Color::Rgb(r, g, b) => (r, g, b),
        Color::Indexed(n) => indexed(n),
        Color::Black => indexed(0),
        Color::Red => indexed(1),
        Color::Green => indexed(2),
        Color::Yellow => indexed(3),
        Color::Blue => indexed(4),
        Color::Magenta => indexed(5),
        Color::Cyan => indexed(6),
        Color::Gray => indexed(7),
        Color::DarkGray => indexed(8),
        Color::LightRed => indexed(9),
        Color::LightGreen => indexed(10),
        Color::LightYellow => indexed(11),
        Color::LightBlue => indexed(12),
        Color::LightMagenta => indexed(13),
        Color::LightCyan => indexed(14),
        Color::White => indexed(15),
    })
}

/// WCAG's contrast ratio of two colours (1 to 21); `None` when either is the
/// terminal's default.
pub(crate) fn contrast_ratio(a: Color, b: Color) -> Option<f64> {
    let luminance = |(r, g, b): (u8, u8, u8)| {
        let channel = |v: u8| {
            let v = f64::from(v) / 255.0;
            if v <= 0.039_28 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
    };
    let (a, b) = (luminance(rgb(a)?), luminance(rgb(b)?));
    Some((a.max(b) + 0.05) / (a.min(b) + 0.05))
}

impl Theme {
    /// A highlighter's style as this theme draws it: a foreground that would read below
    /// `MIN_CONTRAST` on the background gives way to the theme's text colour.
    pub fn readable(&self, style: Style) -> Style {
        match style.fg {
            Some(fg) if contrast_ratio(fg, self.background).is_some_and(|r| r < MIN_CONTRAST) => {
                style.fg(self.text)
            }
            _ => style,
        }
    }
}

impl Default for Theme {
    fn default() -> Self {
        // The bundled dark theme is tested to parse; this fallback only guards a broken build.
        Theme::load("dark", None).unwrap_or_else(|_| Theme {
            name: "fallback".into(),
            syntax: "base16-ocean.dark".into(),
            background: Color::Reset,
            text: Color::Reset,
            muted: Color::DarkGray,
            accent: Color::Cyan,
            border: Color::DarkGray,
            border_active: Color::Cyan,
            selection_bg: Color::DarkGray,
            selection_fg: Color::White,
            title: Color::White,
            status_bg: Color::DarkGray,
            status_fg: Color::White,
            key: Color::Yellow,
            ok: Color::Green,
            near: Color::Yellow,
            over: Color::Red,
            fresh: Color::Green,
            aging: Color::Yellow,
            stale: Color::Red,
            error: Color::Red,
            warning: Color::Yellow,
            info: Color::Blue,
            heading_1: Color::Cyan,
            heading_2: Color::Blue,
            heading_3: Color::Magenta,
            code: Color::Green,
            code_bg: Color::Reset,
            link: Color::Blue,
            private: Color::Magenta,
            chip: Color::Magenta,
            added: Color::Green,
            removed: Color::Red,
            changed: Color::Yellow,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_theme_parses_with_every_role() {
        for (name, text) in BUNDLED {
            let theme = Theme::parse(text, name).unwrap();
            assert_eq!(theme.name, name);
        }
    }

    #[test]
    fn bundled_syntax_themes_exist_in_syntect() {
        let set = syntect::highlighting::ThemeSet::load_defaults();
        for (name, text) in BUNDLED {
            let theme = Theme::parse(text, name).unwrap();
            assert!(
                set.themes.contains_key(&theme.syntax),
                "{name}: {}",
                theme.syntax
            );
        }
    }

    /// Every pair of colours a bundled theme draws text in, named for the failure.
    fn text_pairs(theme: &Theme) -> Vec<(&'static str, Color, Color)> {
        let on_background = [
            ("text", theme.text),
            ("muted", theme.muted),
            ("accent", theme.accent),
            ("title", theme.title),
            ("key", theme.key),
            ("ok", theme.ok),
            ("near", theme.near),
            ("over", theme.over),
            ("fresh", theme.fresh),
            ("aging", theme.aging),
            ("stale", theme.stale),
            ("error", theme.error),
            ("warning", theme.warning),
            ("info", theme.info),
            ("heading_1", theme.heading_1),
            ("heading_2", theme.heading_2),
            ("heading_3", theme.heading_3),
            ("code", theme.code),
            ("link", theme.link),
            ("private", theme.private),
            ("chip", theme.chip),
            ("added", theme.added),
            ("removed", theme.removed),
            ("changed", theme.changed),
        ];
        let mut pairs: Vec<_> = on_background
            .into_iter()
            .map(|(name, color)| (name, color, theme.background))
            .collect();
        pairs.extend([
            ("code on code_bg", theme.code, theme.code_bg),
            ("selected row", theme.selection_fg, theme.selection_bg),
            ("status bar", theme.status_fg, theme.status_bg),
            ("status bar key", theme.key, theme.status_bg),
            ("toast", theme.background, theme.accent),
            ("error toast", theme.background, theme.error),
            ("search match", theme.background, theme.near),
        ]);
        pairs
    }

    #[test]
    fn every_bundled_theme_draws_text_at_wcag_aa_contrast() {
        for (name, text) in BUNDLED {
            let theme = Theme::parse(text, name).unwrap();
            for (what, fg, bg) in text_pairs(&theme) {
                let ratio = contrast_ratio(fg, bg).unwrap();
                assert!(
                    ratio >= MIN_CONTRAST,
                    "{name}: {what} ({fg:?} on {bg:?}) has a contrast of {ratio:.2}:1, under 4.5:1"
                );
            }
        }
    }

    #[test]
    fn contrast_ratios_are_wcags() {
        let ratio = |a, b| (contrast_ratio(a, b).unwrap() * 100.0).round() / 100.0;
        assert_eq!(ratio(Color::Black, Color::White), 21.0);
        assert_eq!(ratio(Color::Rgb(0x77, 0x77, 0x77), Color::White), 4.48);
        assert_eq!(ratio(Color::Indexed(231), Color::Indexed(16)), 21.0);
        assert_eq!(contrast_ratio(Color::Reset, Color::White), None);
        // A highlighter colour too faint for the background gives way to the text's.
        let light = Theme::load("light", None).unwrap();
        let orange = Style::new().fg(Color::Rgb(0xed, 0x6a, 0x43));
        assert_eq!(light.readable(orange).fg, Some(light.text));
        let dark_blue = Style::new().fg(Color::Rgb(0x05, 0x50, 0xae));
        assert_eq!(light.readable(dark_blue), dark_blue);
    }

    #[test]
    fn missing_unknown_and_bad_roles_are_named() {
        let dark = BUNDLED[0].1;
        let missing = dark.replace("accent = \"#88c0d0\"\n", "");
        let err = Theme::parse(&missing, "t").unwrap_err().to_string();
        assert!(err.contains("`accent`"), "{err}");
        let bad = dark.replace("accent = \"#88c0d0\"", "accent = \"not-a-colour\"");
        let err = Theme::parse(&bad, "t").unwrap_err().to_string();
        assert!(err.contains("not a colour"), "{err}");
        let extra = dark.replace("[colors]\n", "[colors]\nsparkle = \"red\"\n");
        let err = Theme::parse(&extra, "t").unwrap_err().to_string();
        assert!(err.contains("sparkle"), "{err}");
    }

    #[test]
    fn user_theme_file_wins_and_unknown_names_fail() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("themes")).unwrap();
        let custom = BUNDLED[0].1.replace("name = \"dark\"", "name = \"mine\"");
        std::fs::write(dir.path().join("themes/dark.toml"), custom).unwrap();
        assert_eq!(Theme::load("dark", Some(dir.path())).unwrap().name, "mine");
        assert!(matches!(
            Theme::load("nope", Some(dir.path())),
            Err(ThemeError::Unknown(_))
        ));
        assert_eq!(Theme::next_bundled("dark"), "light");
        assert_eq!(Theme::next_bundled("high-contrast"), "dark");
        assert_eq!(Theme::next_bundled("mine"), "dark");
    }
}
