//! The search prompt (`ctrl-f`, vim's `/`) and vim's command line (`:w`, `:q`).
use super::*;

/// A search being typed (`ctrl-f`, vim's `/`), drawn on the pane's last line; the
/// cursor goes to the first match as you type and back when it is cancelled.
pub struct SearchPrompt {
    pub query: String,
    pub(super) origin: Pos,
    /// Vim's command line (`:w`, `:q`), not a search.
    pub command: bool,
}

/// Where the last search stands: its query, the match at the cursor and the count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchStatus {
    pub query: String,
    /// Which match (from 1) starts at the cursor.
    pub current: Option<usize>,
    pub total: usize,
    /// The buffer version it was counted for (an edit makes the count stale).
    pub version: u64,
}

impl SearchStatus {
    /// "3/17", "17 matches" off a match, "no match".
    pub fn count(&self) -> String {
        match (self.current, self.total) {
            (_, 0) => "no match".into(),
            (Some(current), total) => format!("{current}/{total}"),
            (None, 1) => "1 match".into(),
            (None, total) => format!("{total} matches"),
        }
    }
}

/// The regex for a typed query: matched literally (people search memory for words, not
/// patterns), ignoring case unless the query has a capital letter (smart case).
pub(crate) fn search_regex(query: &str) -> Option<Regex> {
    let sensitive = query.chars().any(char::is_uppercase);
    regex::RegexBuilder::new(&regex::escape(query))
        .case_insensitive(!sensitive)
        .build()
        .ok()
}

/// What vim's command line runs: `:w` saves, `:q` quits (asking over unsaved edits),
/// `:q!` quits, `:wq` / `:x` save (quitting is then `:q`); anything else says so.
pub(super) fn ex_command(command: &str) -> Vec<Effect> {
    match command {
        "" => Vec::new(),
        "w" | "write" => vec![Effect::Save],
        "q" | "quit" => vec![Effect::Quit],
        "q!" | "quit!" => vec![Effect::Confirmed(crate::overlays::confirm::Confirmed::Quit)],
        "wq" | "x" => vec![
            Effect::Save,
            Effect::Toast("saving; :q quits once it is saved".into()),
        ],
        other => vec![Effect::ToastError(format!(
            "not an editor command: :{} (:w saves, :q quits, :q! quits without saving)",
            sanitize::line(other)
        ))],
    }
}

impl Editor {
    pub(super) fn update_search(&mut self, msg: Msg, effects: &mut Vec<Effect>) {
        let Msg::Key(key) = msg else {
            return;
        };
        let Some(prompt) = self.search.as_mut() else {
            return;
        };
        if prompt.command {
            match key.code {
                KeyCode::Esc => self.search = None,
                KeyCode::Enter => {
                    let command = std::mem::take(&mut prompt.query);
                    self.search = None;
                    effects.extend(ex_command(command.trim()));
                }
                KeyCode::Backspace if prompt.query.is_empty() => self.search = None,
                KeyCode::Backspace => {
                    prompt.query.pop();
                }
                KeyCode::Char(c) if KeyChord::from_event(&key).is_printable() => {
                    prompt.query.push(c);
                }
                _ => {}
            }
            return;
        }
        match key.code {
            KeyCode::Esc => {
                let origin = prompt.origin;
                self.search = None;
                self.found = None;
                if let Some(doc) = self.doc.as_mut() {
                    doc.buffer.set_search(None);
                    doc.buffer.move_to(origin, false);
                }
                // A terminal sends two quick escapes as one key: the escape that
                // cancels the search also leaves the modeless editor, as the second
                // would have, so no letter typed next lands in the file.
                if !self.modal {
                    effects.push(Effect::Focus(Focus::Tree));
                }
            }
            KeyCode::Enter => {
                let query = std::mem::take(&mut prompt.query);
                self.search = None;
                if query.is_empty() {
                    self.found = None;
                    if let Some(doc) = self.doc.as_mut() {
                        doc.buffer.set_search(None);
                    }
                } else if self.found.as_ref().is_some_and(|f| f.total == 0) {
                    effects.push(Effect::Toast(format!(
                        "{:?} not found",
                        sanitize::line(&query)
                    )));
                }
            }
            KeyCode::Backspace => {
                prompt.query.pop();
                self.search_as_typed();
            }
            KeyCode::Char(c) if KeyChord::from_event(&key).is_printable() => {
                prompt.query.push(c);
                self.search_as_typed();
            }
            _ => {}
        }
        self.clamp_to_character();
    }

    /// The cursor on the first match from where the search began, as the query is typed.
    pub(super) fn search_as_typed(&mut self) {
        let Some(prompt) = &self.search else {
            return;
        };
        let (query, origin) = (prompt.query.clone(), prompt.origin);
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        if query.is_empty() {
            doc.buffer.set_search(None);
            doc.buffer.move_to(origin, false);
            self.found = None;
            return;
        }
        doc.buffer.set_search(search_regex(&query));
        let target = doc.buffer.find(origin, true, true).unwrap_or(origin);
        doc.buffer.move_to(target, false);
        self.count_matches(query);
    }

    /// `n` / `F6` and `N` / `shift-F6`.
    pub(super) fn search_step(&mut self, forward: bool, effects: &mut Vec<Effect>) {
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        if doc.buffer.search_pattern().is_none() {
            effects.push(Effect::Toast("no search yet".into()));
            return;
        }
        match doc.buffer.find(doc.buffer.cursor(), forward, false) {
            Some(target) => doc.buffer.move_to(target, false),
            None => effects.push(Effect::Toast("no match".into())),
        }
        let query = self
            .found
            .as_ref()
            .map(|f| f.query.clone())
            .unwrap_or_default();
        self.count_matches(query);
    }

    pub(super) fn count_matches(&mut self, query: String) {
        if let Some(doc) = self.doc.as_ref() {
            let (current, total) = doc.buffer.match_count(doc.buffer.cursor());
            self.found = Some(SearchStatus {
                query,
                current,
                total,
                version: doc.version,
            });
        }
    }
}
