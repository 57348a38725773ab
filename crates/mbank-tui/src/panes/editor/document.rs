//! The open file: its buffer, what it was loaded from, and the text it saves.
use super::*;

impl Document {
    /// A buffer over `disk.text` (an Infinity memory's content for `memory_id`).
    pub fn new(path: PathBuf, memory_id: Option<String>, disk: EditText) -> Document {
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Document {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            path,
            memory_id,
            locked_header: None,
            buffer: Buffer::new(split_lines(&disk.text)),
            base_text: disk.text.clone(),
            disk,
            read_only: None,
            version: 0,
            saved_version: 0,
            saving: false,
            stats: None,
            budget: Vec::new(),
            finding_lines: BTreeMap::new(),
            cut: None,
            top: 0,
            top_row: 0,
            left: 0,
            mode: Mode::Normal,
            pending: None,
            goal: None,
            kept_cursor: None,
        }
    }

    /// Takes the lines `findings` point at in this file (the worst severity per line).
    pub(crate) fn set_finding_lines(&mut self, findings: &[Finding]) {
        self.finding_lines.clear();
        if self.memory_id.is_some() {
            // An Infinity memory's lines are not the store file's.
            return;
        }
        for finding in findings.iter().filter(|f| f.file == self.path) {
            if let Some(line) = finding.line {
                let worst = self.finding_lines.entry(line).or_insert(finding.severity);
                *worst = (*worst).max(finding.severity);
            }
        }
    }

    pub fn text(&self) -> String {
        join_lines(self.buffer.lines())
    }

    /// Whether the buffer differs from what was loaded or saved.
    pub fn is_dirty(&self) -> bool {
        // Asked on every frame (the title's marker): compared in place, not by joining
        // a 1.4 MB buffer into a new string each time.
        self.version != self.saved_version && !joined_equals(self.buffer.lines(), &self.base_text)
    }

    pub fn cursor(&self) -> (usize, usize) {
        self.buffer.cursor()
    }

    /// Replaces the buffer with new text from disk, keeping the cursor and scroll where
    /// they still fit (the undo history starts again). A reload that caught an agent's
    /// write half done (the file emptied before it is written again) does not move the
    /// cursor for good: the next reload puts it back.
    pub fn reload(&mut self, disk: EditText) {
        let cursor = match self.kept_cursor {
            Some((wanted, landed, version))
                if landed == self.cursor() && version == self.version =>
            {
                wanted
            }
            _ => self.cursor(),
        };
        let mut buffer = Buffer::new(split_lines(&disk.text));
        buffer.set_cursor(cursor);
        let landed = buffer.cursor();
        self.buffer = buffer;
        self.base_text = disk.text.clone();
        self.disk = disk;
        self.version += 1;
        self.kept_cursor = (landed != cursor).then_some((cursor, landed, self.version));
        self.saved_version = self.version;
        self.stats = None;
        self.pending = None;
        if self.mode == Mode::Insert {
            self.mode = Mode::Normal;
        }
    }

    /// Replaces the whole text (a merge's result) as one undo step.
    pub(crate) fn replace_text(&mut self, text: &str) {
        self.buffer.replace_all(text, Instant::now());
        self.version += 1;
        self.top = 0;
        self.top_row = 0;
    }

    /// After a successful save of `text`; `disk` is the file as written.
    pub(crate) fn mark_saved(&mut self, text: String, disk: EditText, version: u64) {
        self.base_text = text;
        self.disk = disk;
        self.saved_version = version;
        self.saving = false;
    }

    pub(crate) fn jump_to_line(&mut self, line: usize) {
        let row = line.saturating_sub(1);
        self.buffer.move_to((row, 0), false);
        let row = self.buffer.cursor().0;
        self.top = row.saturating_sub(3);
        self.top_row = 0;
    }

    /// Prose is soft-wrapped by default: markdown, plain text, rules files without an
    /// extension, Infinity memories.
    pub(crate) fn is_prose(&self) -> bool {
        if self.memory_id.is_some() {
            return true;
        }
        match self.path.extension().and_then(|e| e.to_str()) {
            None => true,
            Some(ext) => matches!(
                ext.to_ascii_lowercase().as_str(),
                "md" | "markdown" | "mdx" | "mdc" | "txt"
            ),
        }
    }
}

/// The buffer's lines; a trailing newline is kept as a last empty line, as editors do.
/// The text comes with `\n` breaks ([`EditText::text`]; the save re-applies the file's
/// own endings), so a carriage return left in a line is content and stays.
pub fn split_lines(text: &str) -> Vec<String> {
    text.split('\n').map(str::to_string).collect()
}

/// Whether `lines` joined with newlines is exactly `text`, without building the join.
pub(crate) fn joined_equals(lines: &[String], text: &str) -> bool {
    let mut rest = text.as_bytes();
    for (index, line) in lines.iter().enumerate() {
        if index > 0 {
            match rest.split_first() {
                Some((b'\n', after)) => rest = after,
                _ => return false,
            }
        }
        match rest.strip_prefix(line.as_bytes()) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    rest.is_empty()
}

pub(crate) fn join_lines(lines: &[String]) -> String {
    lines.join("\n")
}
