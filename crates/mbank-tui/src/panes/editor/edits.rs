//! What changes the text outside vim's operators: a typed character, a bracketed paste,
//! and copy, cut and paste through the editor's register (whole lines when nothing is
//! selected).
use super::*;

impl Editor {
    /// False (with a message) when the open document cannot be edited.
    pub(super) fn writable(&self, effects: &mut Vec<Effect>) -> bool {
        match self.doc.as_ref().map(|d| d.read_only.as_ref()) {
            Some(None) => true,
            Some(Some(reason)) => {
                effects.push(Effect::Toast(format!("{reason}: not editable")));
                false
            }
            None => false,
        }
    }

    /// A typed character: text in the modeless editor and vim's insert mode.
    pub(super) fn on_typed(&mut self, key: KeyEvent) {
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        if self.modal && doc.mode != Mode::Insert {
            // An unbound key ends a two-key command.
            doc.pending = None;
            return;
        }
        let KeyCode::Char(c) = key.code else {
            return;
        };
        if !KeyChord::from_event(&key).is_printable() || doc.read_only.is_some() {
            return;
        }
        doc.buffer
            .insert(c.encode_utf8(&mut [0; 4]), Undo::Typed, Instant::now());
    }

    /// Text pasted into the terminal (bracketed paste): at the cursor, over the
    /// selection; one undo step.
    pub(super) fn on_paste(&mut self, text: &str, effects: &mut Vec<Effect>) {
        if !self.writable(effects) {
            return;
        }
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        if matches!(doc.mode, Mode::Visual | Mode::VisualLine) {
            doc.buffer.cancel_selection();
            doc.mode = Mode::Normal;
        }
        let text = clipboard::pasted_text(text);
        doc.buffer.insert(&text, Undo::Own, Instant::now());
    }

    /// Keeps `register` and sends it to the system clipboard.
    pub(super) fn store(&mut self, register: Register) {
        self.clipboard_out = Some(register.clipboard_text());
        self.register = Some(register);
    }

    /// `ctrl-c`: the selection, or the whole line when nothing is selected.
    pub(super) fn copy(&mut self) {
        let Some(doc) = self.doc.as_ref() else {
            return;
        };
        let buffer = &doc.buffer;
        let register = match buffer.selection() {
            Some((start, end)) => Register {
                text: buffer.text_between(start, end),
                linewise: false,
            },
            None => Register {
                text: buffer.lines()[buffer.cursor().0].clone(),
                linewise: true,
            },
        };
        self.store(register);
    }

    /// `ctrl-x`: the selection, or the whole line when nothing is selected.
    pub(super) fn cut(&mut self, effects: &mut Vec<Effect>) {
        if !self.writable(effects) {
            return;
        }
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        let now = Instant::now();
        let buffer = &mut doc.buffer;
        let register = match buffer.delete_selection(now) {
            Some(text) => Register {
                text,
                linewise: false,
            },
            None => {
                let row = buffer.cursor().0;
                let text = buffer.lines()[row].clone();
                delete_lines(buffer, row, row, now);
                Register {
                    text,
                    linewise: true,
                }
            }
        };
        self.store(register);
    }

    /// `ctrl-v`: the register at the cursor (over the selection); whole lines above the
    /// cursor's line.
    pub(super) fn paste(&mut self, effects: &mut Vec<Effect>) {
        if !self.writable(effects) {
            return;
        }
        let Some(register) = self.register.clone() else {
            effects.push(Effect::Toast("nothing copied yet".into()));
            return;
        };
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        let now = Instant::now();
        let buffer = &mut doc.buffer;
        if register.linewise && buffer.selection().is_none() {
            let (row, col) = buffer.cursor();
            let text = register.clipboard_text();
            buffer.replace((row, 0), (row, 0), &text, Undo::Own, now);
            buffer.set_cursor((row + text.matches('\n').count(), col));
        } else if register.linewise {
            buffer.insert(&register.clipboard_text(), Undo::Own, now);
        } else {
            buffer.insert(&register.text, Undo::Own, now);
        }
    }
}

/// Deletes lines `first..=last` whole (their line break too); the cursor goes to the
/// first non-blank of the line that takes their place.
pub(super) fn delete_lines(buffer: &mut Buffer, first: usize, last: usize, now: Instant) {
    let end_row = buffer.last_row();
    if last < end_row {
        buffer.replace((first, 0), (last + 1, 0), "", Undo::Own, now);
    } else if first > 0 {
        let end = (last, buffer.line_len(last));
        buffer.replace(
            (first - 1, buffer.line_len(first - 1)),
            end,
            "",
            Undo::Own,
            now,
        );
    } else {
        let end = (last, buffer.line_len(last));
        buffer.replace((0, 0), end, "", Undo::Own, now);
    }
    let row = first.min(buffer.last_row());
    buffer.set_cursor(buffer.first_non_blank(row));
}
