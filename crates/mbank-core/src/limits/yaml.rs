//! The YAML pre-scan: block and flow nesting, anchors and aliases, and about how much the
//! aliases would expand the document, found in one linear pass before libyaml parses it.
use std::collections::HashMap;

use super::{LimitExceeded, Limits, Nesting, YAML_MAX_ALIASES};

/// What a pre-scan of a YAML text found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct YamlShape {
    /// Block levels (by indentation and `- ` / `? ` indicators) plus flow levels
    /// (`[` and `{`).
    pub nesting: Nesting,
    pub anchors: usize,
    pub aliases: usize,
    /// Line of the anchor past [`YAML_MAX_ALIASES`], if any.
    pub anchors_over_limit_at: Option<usize>,
    /// Line of the alias past [`YAML_MAX_ALIASES`], if any.
    pub aliases_over_limit_at: Option<usize>,
    /// About how many bytes the aliases add when the document is expanded: each alias
    /// adds the text of the node its anchor names, with the aliases inside that node
    /// expanded too. An over-estimate where the end of a node is unclear.
    pub expansion: u64,
    /// The line of the alias that took the expansion past the size limit.
    pub expansion_over_limit_at: Option<usize>,
}

impl YamlShape {
    pub(super) fn check_aliases(&self, limits: Limits) -> Result<(), LimitExceeded> {
        if let Some(line) = self.anchors_over_limit_at {
            return Err(LimitExceeded::Aliases {
                what: "anchors",
                found: self.anchors,
                limit: YAML_MAX_ALIASES,
                line,
            });
        }
        if let Some(line) = self.aliases_over_limit_at {
            return Err(LimitExceeded::Aliases {
                what: "aliases",
                found: self.aliases,
                limit: YAML_MAX_ALIASES,
                line,
            });
        }
        if let Some(line) = self.expansion_over_limit_at {
            return Err(LimitExceeded::Expansion {
                found: self.expansion,
                limit: limits.max_bytes as u64,
                line,
            });
        }
        Ok(())
    }
}

/// Where an anchored node ends, as far as a line scan can tell.
#[derive(Debug, Clone, Copy)]
enum AnchorEnd {
    /// A node in block context: it ends at the first later line indented less than
    /// `column` (the block collection holding it), or as much unless that line continues
    /// it (a `- ` line may be a mapping value's sequence; a new item ends an anchored item).
    Block { column: usize, item: bool },
    /// A node inside (or opening) a flow collection: it ends when the flow level falls
    /// back to `level`, at a closing bracket or a `,` on that level.
    Flow { level: usize },
}

struct OpenAnchor<'t> {
    name: &'t str,
    start: usize,
    /// What the aliases inside the node add.
    added: u64,
    end: AnchorEnd,
}

/// One pass over a YAML text; work per byte is constant and the bookkeeping of anchors
/// is bounded by [`YAML_MAX_ALIASES`].
struct YamlScan<'t> {
    limits: Limits,
    shape: YamlShape,
    /// Indentation of the block nodes on the current path.
    block: Vec<usize>,
    flow: usize,
    /// An open quoted scalar that continues on the next line.
    quote: Option<u8>,
    /// Inside a block scalar (`|`, `>`): lines indented more than this are its content.
    block_scalar: Option<usize>,
    /// Finished anchors and the bytes their node expands to.
    anchors: HashMap<&'t str, u64>,
    open: Vec<OpenAnchor<'t>>,
    /// An anchor whose node has not started yet: name and offset.
    pending: Option<(&'t str, usize)>,
    /// Column of the innermost block collection on the current line, and whether the
    /// last token was a `- ` indicator (the next node is a sequence item).
    collection_column: usize,
    after_item_indicator: bool,
}

fn is_blank(byte: Option<&u8>) -> bool {
    matches!(byte, None | Some(b' ' | b'\t'))
}

fn is_flow_indicator(byte: u8) -> bool {
    matches!(byte, b',' | b'[' | b']' | b'{' | b'}')
}

impl<'t> YamlScan<'t> {
    fn new(limits: Limits) -> Self {
        YamlScan {
            limits,
            shape: YamlShape::default(),
            block: Vec::new(),
            flow: 0,
            quote: None,
            block_scalar: None,
            anchors: HashMap::new(),
            open: Vec::new(),
            pending: None,
            collection_column: 0,
            after_item_indicator: false,
        }
    }

    fn reach(&mut self, line: usize) {
        let depth = self.block.len() + self.flow;
        self.shape.nesting.reach(depth, self.limits.max_depth, line);
    }

    fn close_top(&mut self, at: usize) {
        if let Some(anchor) = self.open.pop() {
            let size = (at.saturating_sub(anchor.start) as u64).saturating_add(anchor.added);
            self.anchors.insert(anchor.name, size);
        }
    }

    /// Closes the open block anchors that a block line at `indent` ends.
    fn close_block_anchors(&mut self, indent: usize, is_item: bool, at: usize) {
        while let Some(anchor) = self.open.last() {
            let ends = match anchor.end {
                AnchorEnd::Block { column, item } => {
                    indent < column || (indent == column && (item || !is_item))
                }
                // Every flow collection is over on a block line.
                AnchorEnd::Flow { .. } => true,
            };
            if !ends {
                break;
            }
            self.close_top(at);
        }
    }

    /// Closes the flow anchors that end now that the flow level is `self.flow` (after a
    /// closing bracket, or at a `,`).
    fn close_flow_anchors(&mut self, at: usize) {
        while let Some(anchor) = self.open.last() {
            match anchor.end {
                AnchorEnd::Flow { level } if level >= self.flow => self.close_top(at),
                _ => break,
            }
        }
    }

    /// The anchor waiting for its node gets one, which ends as `end` says.
    fn start_pending(&mut self, end: AnchorEnd) {
        if let Some((name, start)) = self.pending.take() {
            self.open.push(OpenAnchor {
                name,
                start,
                added: 0,
                end,
            });
        }
    }

    /// The node here is a scalar (or, at the end of a line, the block node below).
    fn start_pending_here(&mut self) {
        if self.pending.is_none() {
            return;
        }
        let end = if self.flow > 0 {
            AnchorEnd::Flow { level: self.flow }
        } else {
            AnchorEnd::Block {
                column: self.collection_column,
                item: self.after_item_indicator,
            }
        };
        self.start_pending(end);
    }

    fn anchor(&mut self, name: &'t str, at: usize, line: usize) {
        self.start_pending_here();
        self.shape.anchors += 1;
        if self.shape.anchors > YAML_MAX_ALIASES {
            self.shape.anchors_over_limit_at.get_or_insert(line);
            return;
        }
        self.pending = Some((name, at));
    }

    fn alias(&mut self, name: &'t str, at: usize, line: usize) {
        self.start_pending_here();
        self.shape.aliases += 1;
        if self.shape.aliases > YAML_MAX_ALIASES {
            self.shape.aliases_over_limit_at.get_or_insert(line);
            return;
        }
        // An alias cannot point into its own node: an anchor still open here was
        // over-estimated, and its node ends before the alias.
        if let Some(position) = self.open.iter().rposition(|a| a.name == name) {
            while self.open.len() > position {
                self.close_top(at);
            }
        }
        let size = self.anchors.get(name).copied().unwrap_or(0);
        for anchor in &mut self.open {
            anchor.added = anchor.added.saturating_add(size);
        }
        self.shape.expansion = self.shape.expansion.saturating_add(size);
        if self.shape.expansion > self.limits.max_bytes as u64 {
            self.shape.expansion_over_limit_at.get_or_insert(line);
        }
    }

    fn open_flow(&mut self, line: usize) {
        self.after_item_indicator = false;
        let level = self.flow;
        self.start_pending(AnchorEnd::Flow { level });
        self.flow += 1;
        self.reach(line);
    }

    /// One line (without its line break); `start` is its byte offset in the text.
    fn line(&mut self, text: &'t str, start: usize, number: usize) {
        let bytes = text.as_bytes();
        let indent = bytes.iter().take_while(|&&b| b == b' ').count();
        if let Some(threshold) = self.block_scalar {
            if indent == bytes.len() || indent > threshold {
                return;
            }
            self.block_scalar = None;
        }
        let mut i = 0;
        let mut token_start = true;
        if self.quote.is_none() {
            if indent == bytes.len() || bytes[indent] == b'#' {
                return;
            }
            i = indent;
            if self.flow == 0 {
                let marker = indent == 0
                    && (text.starts_with("---") || text.starts_with("..."))
                    && is_blank(bytes.get(3));
                if marker {
                    // A new document: nothing of the last one is open any more.
                    while !self.open.is_empty() {
                        self.close_top(start);
                    }
                    self.anchors.clear();
                    self.pending = None;
                    self.block.clear();
                    i = 3;
                } else if indent == 0 && bytes[0] == b'%' {
                    return;
                } else {
                    let is_item = bytes[indent] == b'-' && is_blank(bytes.get(indent + 1));
                    self.start_pending_here();
                    self.close_block_anchors(indent, is_item, start);
                    while self.block.last().is_some_and(|&column| column >= indent) {
                        self.block.pop();
                    }
                    self.block.push(indent);
                    self.reach(number);
                }
                self.collection_column = indent;
                self.after_item_indicator = false;
            }
        }
        let mut key_column = i;
        while i < bytes.len() {
            let byte = bytes[i];
            if let Some(quote) = self.quote {
                if quote == b'"' && byte == b'\\' {
                    i += 2;
                    continue;
                }
                if byte == quote {
                    if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    self.quote = None;
                    token_start = false;
                }
                i += 1;
                continue;
            }
            if byte == b' ' || byte == b'\t' {
                i += 1;
                continue;
            }
            if byte == b'#' && (i == 0 || matches!(bytes[i - 1], b' ' | b'\t')) {
                break;
            }
            let next = bytes.get(i + 1);
            if token_start {
                match byte {
                    b'&' | b'*' | b'!' => {
                        let end = bytes[i + 1..]
                            .iter()
                            .position(|&b| b == b' ' || b == b'\t' || is_flow_indicator(b))
                            .map_or(bytes.len(), |p| i + 1 + p);
                        let name = &text[i + 1..end];
                        if !name.is_empty() {
                            match byte {
                                b'&' => self.anchor(name, start + i, number),
                                b'*' => {
                                    self.alias(name, start + i, number);
                                    token_start = false;
                                }
                                _ => {}
                            }
                        }
                        i = end;
                        continue;
                    }
                    b'"' | b'\'' => {
                        self.start_pending_here();
                        key_column = i;
                        self.quote = Some(byte);
                        i += 1;
                        continue;
                    }
                    _ => {}
                }
            }
            if self.flow > 0 {
                match byte {
                    b'[' | b'{' => {
                        self.open_flow(number);
                        token_start = true;
                    }
                    b']' | b'}' => {
                        self.start_pending_here();
                        self.flow -= 1;
                        self.close_flow_anchors(start + i + 1);
                        token_start = false;
                    }
                    b',' => {
                        self.start_pending_here();
                        self.close_flow_anchors(start + i);
                        token_start = true;
                    }
                    b':' | b'?' => token_start = true,
                    _ if token_start => {
                        self.start_pending_here();
                        token_start = false;
                    }
                    _ => {}
                }
                i += 1;
                continue;
            }
            if token_start {
                match byte {
                    b'-' | b'?' | b':' if is_blank(next) => {
                        let mut j = i + 1;
                        while j < bytes.len() && (bytes[j] == b' ' || bytes[j] == b'\t') {
                            j += 1;
                        }
                        // `- - x`: the second indicator opens a sequence in the first.
                        if self.after_item_indicator {
                            self.block.push(i);
                            self.reach(number);
                        }
                        self.collection_column = i;
                        self.after_item_indicator = byte == b'-';
                        key_column = j;
                        i = j;
                        continue;
                    }
                    b'[' | b'{' => {
                        self.open_flow(number);
                        i += 1;
                        continue;
                    }
                    b'|' | b'>' => {
                        self.start_pending_here();
                        self.block_scalar = Some(self.collection_column);
                        break;
                    }
                    _ => {
                        self.start_pending_here();
                        key_column = i;
                        token_start = false;
                    }
                }
            } else if byte == b':' && is_blank(next) {
                // The scalar before was a key: its mapping is the innermost collection,
                // nested in the item when it follows a `- ` (`- key: value`).
                if self.after_item_indicator {
                    self.block.push(key_column);
                    self.reach(number);
                }
                self.collection_column = key_column;
                self.after_item_indicator = false;
                token_start = true;
            }
            i += 1;
        }
        if self.quote.is_none() {
            // `key: &a` at the end of a line: the node is the block below.
            self.start_pending_here();
        }
    }
}

/// Pre-scans a YAML text: its nesting, its anchors and aliases, and about how much the
/// aliases would expand it ("billion laughs": a few nested aliases multiply the nodes a
/// parser builds). Linear in the text; `limits` says where to note the first excess.
pub(crate) fn yaml_shape(text: &str, limits: Limits) -> YamlShape {
    let mut scan = YamlScan::new(limits);
    let mut start = 0;
    for (index, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        scan.line(line, start, index + 1);
        start += raw.len() + 1;
    }
    scan.shape
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::{MODE_FILE, Syntax, check};

    const WIDE: Limits = Limits {
        max_bytes: 1 << 20,
        max_depth: 1000,
    };

    fn yaml_depth(text: &str) -> usize {
        yaml_shape(text, WIDE).nesting.deepest
    }

    #[test]
    fn yaml_block_and_flow_nesting() {
        assert_eq!(yaml_depth("a: 1\nb: 2\n"), 1);
        assert_eq!(yaml_depth("a:\n  b:\n    c: 1\nd: 2\n"), 3);
        assert_eq!(yaml_depth("- - - x\n"), 3);
        assert_eq!(yaml_depth("a: [1, {b: [2]}]\n"), 4);
        assert_eq!(yaml_depth("a: [\n  1,\n  [2],\n]\n"), 3);
        // Brackets in quotes, comments, plain scalars and block scalars are not nesting.
        let text =
            "a: \"[[[\"\nb: 'it''s [['\nc: it's a[b{c\nd: x # [[[\ne: |\n  [[[[\n  {{{\nf: 1\n";
        assert_eq!(yaml_depth(text), 1);
        let text = "- key: |\n    [[[\n  other: [x]\n";
        assert_eq!(yaml_depth(text), 3);
        let deep = yaml_shape(&format!("a: {}", "[".repeat(200_000)), MODE_FILE);
        assert_eq!(deep.nesting.deepest, 200_001);
        assert_eq!(deep.nesting.over_limit_at, Some(1));
        let multi = "a: \"x\n  [[[[ still quoted\n  \"\nb: 1\n";
        assert_eq!(yaml_depth(multi), 1);
    }

    #[test]
    fn yaml_anchors_and_aliases_are_counted_and_expansion_estimated() {
        let compose = "base: &base\n  image: x\n  env: [a, b]\nweb:\n  <<: *base\n  port: 1\n\
                       db:\n  <<: *base\n";
        let shape = yaml_shape(compose, MODE_FILE);
        assert_eq!((shape.anchors, shape.aliases), (1, 2));
        let base_len = "&base\n  image: x\n  env: [a, b]\n".len() as u64;
        assert_eq!(shape.expansion, 2 * base_len);
        assert!(check(compose, Syntax::Yaml, MODE_FILE).is_ok());

        // Nine levels of nine aliases: 9^9 copies of the first list.
        let mut lol = String::from("a: &a [\"lol\",\"lol\",\"lol\"]\n");
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        for pair in names.windows(2) {
            let refs = vec![format!("*{}", pair[0]); 9].join(",");
            lol.push_str(&format!("{}: &{} [{refs}]\n", pair[1], pair[1]));
        }
        let err = check(&lol, Syntax::Yaml, MODE_FILE).unwrap_err();
        assert!(matches!(err, LimitExceeded::Expansion { .. }), "{err}");

        // The same in block style, and with the anchored lists at the mapping's indent.
        let mut block = String::from("a: &a\n- lol\n- lol\n");
        for pair in names.windows(2) {
            block.push_str(&format!("{}: &{}\n", pair[1], pair[1]));
            for _ in 0..9 {
                block.push_str(&format!("- *{}\n", pair[0]));
            }
        }
        let err = check(&block, Syntax::Yaml, MODE_FILE).unwrap_err();
        assert!(matches!(err, LimitExceeded::Expansion { .. }), "{err}");

        let many = "a: &a 1\n".to_string() + &"- *a\n".repeat(YAML_MAX_ALIASES + 1);
        let err = check(&many, Syntax::Yaml, MODE_FILE).unwrap_err();
        assert!(
            matches!(err, LimitExceeded::Aliases { what: "aliases", found, .. } if found == YAML_MAX_ALIASES + 1),
            "{err}"
        );
        // `* item` and `a*b` are not aliases.
        let shape = yaml_shape("text: |\n  * item\n* x\nb: a*b &c\n", MODE_FILE);
        assert_eq!((shape.anchors, shape.aliases), (0, 0));
    }
}
