//! What counts as a secret in text an agent sends, and where in a whole file one is
//! exposed.
//!
//! A line is judged by `secret_in_line`: fixed-prefix token formats (AWS, GitHub,
//! GitLab, Slack, Stripe, Anthropic, OpenAI, Google, JWTs, private key blocks) match even
//! glued to other words (`awskeyAKIA…`, `AKIA…_prod`), with bounded lengths;
//! `KEYWORD=value` assignments match when the keyword is one `_`/`-` segment of a longer
//! name (`AWS_SECRET_ACCESS_KEY`, `DB_PASSWORD`, `MY_API_TOKEN`); connection strings with a
//! password match too. The documented example keys of `DOCUMENTED_EXAMPLE_KEYS` are
//! allowed by name, nothing else for looking like an example.
//!
//! A whole text is judged by `exposed_secrets`: one case-insensitive literal pass
//! (`TRIGGERS`) picks the lines worth the regexes, so a large decision log without a
//! candidate costs one linear scan; only when a line fires are the `<private>` blocks
//! worked out (with pulldown-cmark, to know which tag lines sit in code).
//!
//! Text is normalised before it is judged, so that a secret cannot pass by looking
//! different to the patterns than to a reader: invisible characters (zero-width spaces
//! and joiners, soft hyphens) are dropped and letters that look like Latin ones
//! (Cyrillic `а`, Greek `ο`, fullwidth forms) are folded to them (`fold`; ASCII text, the
//! common case, is passed through as it is); two lines are judged joined where a key
//! runs on from one to the next (`split_secrets`); a table row is judged as
//! `name = value` for each two neighbouring cells. Lines keep their numbers.
use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use pulldown_cmark::{Event, Parser, Tag};
use regex::Regex;

use crate::markup::markdown;

/// Keys published in vendors' documentation as examples, allowed wherever they appear:
/// AWS's example access key id and secret access key, Stripe's documented test key, and
/// the sample token of jwt.io. Any other value of these shapes is refused, whatever
/// words it contains.
pub(crate) const DOCUMENTED_EXAMPLE_KEYS: [&str; 4] = [
    "AKIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
];

/// Literals (matched ignoring ASCII case) at least one of which every detector needs on
/// the line: a line holding none of them cannot fire.
const TRIGGERS: [&str; 36] = [
    "-----begin",
    "akia",
    "asia",
    "abia",
    "acca",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xox",
    "hooks.slack.com",
    "sk_",
    "rk_",
    "sk-",
    "aiza",
    "eyj",
    "://",
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "secret",
    "token",
    "apikey",
    "api_key",
    "api-key",
    "access_key",
    "access-key",
    "accesskey",
    "private_key",
    "private-key",
    "privatekey",
    "credential",
];

static TRIGGER_SCAN: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(TRIGGERS)
        .unwrap_or_else(|e| unreachable!("constant literals: {e}"))
});

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("constant regex {pattern}: {e}"))
}

/// What a token format's match must also satisfy to count.
type Accept = fn(&str) -> bool;

/// A token format: what it is, its shape, and what a match must also satisfy.
struct TokenFormat {
    what: &'static str,
    shape: Regex,
    accept: Accept,
}

fn always(_: &str) -> bool {
    true
}

/// Lowercase, uppercase and digits in one unbroken run of 20 characters: random, not
/// words joined by hyphens (`task-management-…` holds `sk-` too).
fn has_random_run(token: &str) -> bool {
    token
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|run| {
            run.len() >= 20
                && run.bytes().any(|b| b.is_ascii_lowercase())
                && run.bytes().any(|b| b.is_ascii_uppercase())
                && run.bytes().any(|b| b.is_ascii_digit())
        })
}

/// Token formats in the order they name a line (the first match wins). No leading word
/// boundary: a key glued to a word is still a key.
static TOKEN_FORMATS: LazyLock<Vec<TokenFormat>> = LazyLock::new(|| {
    let formats: [(&str, &str, Accept); 12] = [
        (
            "a private key block",
            r"(?i)-----\s*BEGIN\s*[A-Z0-9 ]{0,40}?PRIVATE\s*KEY(?:\s*BLOCK)?\s*-----",
            always,
        ),
        (
            "an AWS access key id",
            r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}",
            always,
        ),
        (
            "a GitHub token",
            r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}",
            always,
        ),
        ("a GitHub token", r"github_pat_[A-Za-z0-9_]{40}", always),
        ("a GitLab token", r"glpat-[A-Za-z0-9_\-]{20}", always),
        (
            "a Slack token",
            r"xox[abposre]-[0-9]{1,20}-[A-Za-z0-9\-]{8}",
            always,
        ),
        (
            "a Slack webhook",
            r"hooks\.slack\.com/services/T[A-Za-z0-9]{1,20}/B[A-Za-z0-9]{1,20}/[A-Za-z0-9]{16}",
            always,
        ),
        (
            "a Stripe key",
            r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20}",
            always,
        ),
        (
            "an Anthropic API key",
            r"sk-ant-[a-z0-9]{2,12}-[A-Za-z0-9_\-]{20}",
            always,
        ),
        (
            "an OpenAI API key",
            r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,400}",
            has_random_run,
        ),
        ("a Google API key", r"AIza[0-9A-Za-z_\-]{35}", always),
        (
            "a JSON Web Token",
            r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
            always,
        ),
    ];
    formats
        .into_iter()
        .map(|(what, shape, accept)| TokenFormat {
            what,
            shape: regex(shape),
            accept,
        })
        .collect()
});

/// `password = value`, `api_key: value`, `AWS_SECRET_ACCESS_KEY=value`,
/// `"client_secret": "value"`: a name one of whose `_`/`-` segments is a secret word,
/// then `=` or `:`, then the value (group `value`; the whole name is group `name`).
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r#"(?i)\b(?P<name>(?:[a-z0-9]+[_.\-])*?(?:password|passwd|passphrase|pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|credentials?)(?:[_\-][a-z0-9]+)*)["']?\s*(?:=|:|=>)\s*["']?(?P<value>[^\s"'`,;]+)"#,
    )
});

/// The last segment of an assignment's name when it says the value is about a secret,
/// not the secret: `SECRET_NAME`, `token_url`, `PASSWORD_FILE`, `API_KEY_ID`.
const METADATA_SUFFIXES: [&str; 26] = [
    "name", "names", "id", "ids", "arn", "path", "file", "url", "uri", "ref", "env", "var", "ttl",
    "type", "length", "len", "count", "limit", "expiry", "expires", "policy", "hint", "field",
    "header", "version", "endpoint",
];

/// `scheme://user:password@host`.
static CONNECTION: LazyLock<Regex> =
    LazyLock::new(|| regex(r"[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:([^\s@/]+)@[^\s/@]+"));

fn is_documented_example(value: &str) -> bool {
    DOCUMENTED_EXAMPLE_KEYS.contains(&value)
}

/// True when a documented example key starts at `at` in `line` (a format's bounded
/// match may stop inside a longer key).
fn documented_example_at(line: &str, at: usize) -> bool {
    line.get(at..)
        .is_some_and(|rest| DOCUMENTED_EXAMPLE_KEYS.iter().any(|k| rest.starts_with(k)))
}

/// A token of a fixed-prefix format filled with a placeholder (`sk-xxxxxxxx…`,
/// `AKIA<your key>`) rather than a real value.
fn is_filler(token: &str) -> bool {
    let lower = token.to_ascii_lowercase();
    if ["xxxx", "your", "<", "${", "{{", "***", "..."]
        .iter()
        .any(|m| lower.contains(m))
    {
        return true;
    }
    // After the prefix, one repeated character (`AKIA0000000000000000`).
    let tail: Vec<char> = token.chars().skip(4).collect();
    tail.len() >= 8 && tail.iter().all(|c| *c == tail[0])
}

/// Example and template values of an assignment that are not secrets.
fn is_placeholder_value(value: &str) -> bool {
    let lower = value.to_lowercase();
    const MARKERS: [&str; 19] = [
        "example",
        "placeholder",
        "your",
        "xxxx",
        "changeme",
        "change_me",
        "dummy",
        "redacted",
        "sample",
        "<",
        "${",
        "{{",
        "***",
        "...",
        "env(",
        "env.",
        "process.env",
        "os.environ",
        "getenv",
    ];
    // A random-looking value that merely says EXAMPLE is not the documented one.
    let random = value.len() >= 20
        && value.bytes().any(|b| b.is_ascii_lowercase())
        && value.bytes().any(|b| b.is_ascii_uppercase())
        && value.bytes().any(|b| b.is_ascii_digit());
    let says = |m: &&str| lower.contains(*m) && !(random && matches!(*m, "example" | "sample"));
    if MARKERS.iter().any(says)
        || lower.starts_with(['$', '%', '@', '/', '~'])
        || lower.starts_with("./")
        || lower.starts_with("../")
    {
        return true;
    }
    let mut chars = value.chars();
    let first = chars.next();
    // One repeated character ("aaaaaaaa", "00000000").
    first.is_some_and(|f| chars.all(|c| c == f))
}

/// A value with letters and digits or symbols (or long and unbroken) reads as a real
/// credential; a dotted reference (`config.auth.token`) or a short word does not.
fn looks_like_credential(value: &str) -> bool {
    let length = value.chars().count();
    let letters = value.chars().any(|c| c.is_alphabetic());
    if length < 10 || !letters {
        return false;
    }
    let digits = value.chars().any(|c| c.is_ascii_digit());
    let symbols = value
        .chars()
        .any(|c| !c.is_alphanumeric() && !matches!(c, '_' | '-' | '.'));
    digits || symbols || (length >= 20 && !value.contains(['.', '_', '-']))
}

/// What kind of secret `line` seems to hold, if any (the secret itself is never
/// returned). The names are the pattern's: "an AWS access key id", "a Google API key",
/// "a password or key assignment", "a connection string with a password" …
pub(crate) fn secret_in_line(line: &str) -> Option<&'static str> {
    secret_in_folded_line(&fold(line))
}

/// Characters a reader does not see: zero-width spaces, joiners and non-joiners, the
/// word joiner, invisible operators, the Mongolian vowel separator, soft hyphens and a
/// byte-order mark inside the text.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}'
    )
}

/// The Latin letter a Cyrillic or Greek letter looks like, or the ASCII character of a
/// fullwidth form.
fn latin_lookalike(c: char) -> Option<char> {
    let folded = match c {
        'а' | 'α' => 'a',
        'А' | 'Α' => 'A',
        'В' | 'Β' => 'B',
        'с' | 'ϲ' => 'c',
        'С' | 'Ϲ' => 'C',
        'ԁ' => 'd',
        'е' => 'e',
        'Е' | 'Ε' => 'E',
        'һ' => 'h',
        'Н' | 'Η' => 'H',
        'і' | 'ι' => 'i',
        'І' | 'Ι' => 'I',
        'ј' => 'j',
        'Ј' => 'J',
        'к' | 'κ' => 'k',
        'К' | 'Κ' => 'K',
        'ӏ' => 'l',
        'М' | 'Μ' => 'M',
        'Ν' => 'N',
        'о' | 'ο' => 'o',
        'О' | 'Ο' => 'O',
        'р' | 'ρ' => 'p',
        'Р' | 'Ρ' => 'P',
        'ԛ' => 'q',
        'ѕ' => 's',
        'Ѕ' => 'S',
        'Т' | 'Τ' => 'T',
        'υ' => 'u',
        'ν' => 'v',
        'ԝ' => 'w',
        'х' | 'χ' => 'x',
        'Х' | 'Χ' => 'X',
        'у' => 'y',
        'У' | 'Υ' => 'Y',
        'Ζ' => 'Z',
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0)?,
        _ => return None,
    };
    Some(folded)
}

/// `text` as the patterns judge it: invisible characters dropped, lookalike letters
/// folded to Latin ones, everything else (line breaks included) as it is. ASCII text is
/// returned as it is, without a copy.
fn fold(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let changes = |c: char| is_invisible(c) || latin_lookalike(c).is_some();
    let Some(first) = text.find(changes) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if is_invisible(c) {
            continue;
        }
        out.push(latin_lookalike(c).unwrap_or(c));
    }
    Cow::Owned(out)
}

/// [`secret_in_line`] for a line already folded.
fn secret_in_folded_line(line: &str) -> Option<&'static str> {
    if !TRIGGER_SCAN.is_match(line) {
        return None;
    }
    for format in TOKEN_FORMATS.iter() {
        if format.shape.find_iter(line).any(|m| {
            let token = m.as_str();
            (format.accept)(token) && !documented_example_at(line, m.start()) && !is_filler(token)
        }) {
            return Some(format.what);
        }
    }
    for capture in CONNECTION.captures_iter(line) {
        let password = capture.get(1).map_or("", |m| m.as_str());
        let trivial =
            ["password", "pass", "pwd", "secret"].contains(&password.to_lowercase().as_str());
        if !trivial && !is_placeholder_value(password) && password.len() >= 4 {
            return Some("a connection string with a password");
        }
    }
    if has_assignment(line) {
        return Some("a password or key assignment");
    }
    // A table row: each cell and the next, as `name = value`.
    if line.trim_start().starts_with('|') {
        let cells: Vec<&str> = line
            .split('|')
            .map(|cell| cell.trim().trim_matches(['`', '"', '\'', '*']))
            .collect();
        if cells
            .windows(2)
            .any(|pair| !pair[0].is_empty() && has_assignment(&format!("{}={}", pair[0], pair[1])))
        {
            return Some("a password or key assignment");
        }
    }
    None
}

/// Whether `line` assigns a value that reads as a real credential to a secret's name.
fn has_assignment(line: &str) -> bool {
    for capture in ASSIGNMENT.captures_iter(line) {
        let name = capture.name("name").map_or("", |m| m.as_str());
        let value = capture
            .name("value")
            .map_or("", |m| m.as_str())
            .trim_end_matches(['.', ')', ']', '}']);
        let last_segment = name
            .rsplit(['_', '-', '.'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if METADATA_SUFFIXES.contains(&last_segment.as_str())
            || is_documented_example(value)
            || is_placeholder_value(value)
        {
            continue;
        }
        if looks_like_credential(value) {
            return true;
        }
    }
    false
}

/// A line of a text that holds a secret: 1-based number and kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ExposedLine {
    pub line: usize,
    pub kind: &'static str,
}

/// Byte ranges of a text's lines (without their `\n`), in order.
fn line_ranges(text: &str) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        ranges.push(start..start + line.trim_end_matches('\n').len());
        start += line.len();
    }
    ranges
}

/// Lines (0-based) that hold any `TRIGGERS` literal, each once, in order.
fn candidate_lines(text: &str) -> Vec<(usize, Range<usize>)> {
    let mut out: Vec<(usize, Range<usize>)> = Vec::new();
    let bytes = text.as_bytes();
    let (mut line, mut line_start, mut scanned) = (0usize, 0usize, 0usize);
    let mut search_from = 0;
    while let Some(hit) = TRIGGER_SCAN.find(&text[search_from..]) {
        let at = search_from + hit.start();
        for (offset, byte) in bytes[scanned..at].iter().enumerate() {
            if *byte == b'\n' {
                line += 1;
                line_start = scanned + offset + 1;
            }
        }
        scanned = at;
        let end = memchr_newline(bytes, at).unwrap_or(text.len());
        let range = line_start..end;
        out.push((line, range));
        // The rest of this line is judged with it: go on from the next line.
        search_from = (end + 1).min(text.len());
        if search_from >= text.len() {
            break;
        }
    }
    out
}

fn memchr_newline(bytes: &[u8], from: usize) -> Option<usize> {
    bytes[from..]
        .iter()
        .position(|b| *b == b'\n')
        .map(|p| from + p)
}

/// Whether `c` may end the first part of a key split across two lines.
fn may_end_split(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '/' | '=' | ':')
}

/// Whether the line `rest` may hold the second part of a key split across two lines:
/// it starts with a key's character (a `- ` list item does not).
fn may_continue_split(rest: &str) -> bool {
    let mut chars = rest.chars();
    match chars.next() {
        Some('-') => chars.next().is_some_and(|c| c != ' '),
        Some(c) => c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '/' | '='),
        None => false,
    }
}

/// Bytes on each side of a line break searched for a `TRIGGERS` literal cut by it (the
/// longest is 15 bytes).
const SPLIT_WINDOW: usize = 16;

/// Adds to `hits` (0-based lines, sorted) the secrets split across two lines of `text`,
/// named at the first: a line that ends in a key's character and a next line that
/// starts with one (leading spaces aside) are judged joined when either holds a
/// `TRIGGERS` literal (`candidates`) or one is cut by the break, and neither fired alone.
fn split_secrets(
    text: &str,
    candidates: &[(usize, Range<usize>)],
    hits: &mut Vec<(usize, &'static str)>,
) {
    let is_candidate = |n: usize| candidates.binary_search_by_key(&n, |(c, _)| *c).is_ok();
    let fired = |hits: &[(usize, &'static str)], n: usize| hits.iter().any(|(h, _)| *h == n);
    let mut found = Vec::new();
    let mut lines = text.split('\n').enumerate().peekable();
    while let Some((n, line)) = lines.next() {
        let Some((_, next)) = lines.peek() else {
            break;
        };
        let first = line.trim_end();
        let second = next.trim_start_matches([' ', '\t']);
        if !(first.ends_with(may_end_split) && may_continue_split(second)) {
            continue;
        }
        let cut = {
            let mut window = [0u8; 2 * SPLIT_WINDOW];
            let tail = &first.as_bytes()[first.len().saturating_sub(SPLIT_WINDOW)..];
            let head = &second.as_bytes()[..second.len().min(SPLIT_WINDOW)];
            window[..tail.len()].copy_from_slice(tail);
            window[tail.len()..tail.len() + head.len()].copy_from_slice(head);
            TRIGGER_SCAN.is_match(&window[..tail.len() + head.len()])
        };
        if !(cut || is_candidate(n) || is_candidate(n + 1)) || fired(hits, n) || fired(hits, n + 1)
        {
            continue;
        }
        if let Some(kind) = secret_in_folded_line(&format!("{first}{second}")) {
            found.push((n, kind));
        }
    }
    if !found.is_empty() {
        hits.extend(found);
        hits.sort_by_key(|(n, _)| *n);
        hits.dedup_by_key(|(n, _)| *n);
    }
}

/// 0-based lines hidden by a well-formed `<private>` block: opened and closed by tag
/// lines in prose (a tag inside a code block or an indented code line is text), the tag
/// lines included. An unclosed `<private>` protects nothing.
fn protected_lines(text: &str, lines: &[Range<usize>]) -> Vec<Range<usize>> {
    let code = code_lines(text, lines);
    let in_code = |n: usize| within(&code, n);
    let mut protected = Vec::new();
    let mut open: Option<usize> = None;
    for (n, range) in lines.iter().enumerate() {
        let trimmed = text[range.clone()].trim();
        if trimmed != "<private>" && trimmed != "</private>" {
            continue;
        }
        if in_code(n) {
            continue;
        }
        match open {
            None if trimmed == "<private>" => open = Some(n),
            Some(start) if trimmed == "</private>" => {
                protected.push(start..n + 1);
                open = None;
            }
            _ => {}
        }
    }
    protected
}

/// True when `n` falls in one of `ranges` (sorted, not overlapping): a binary search,
/// so a text of many blocks and tags stays linear-logarithmic.
fn within(ranges: &[Range<usize>], n: usize) -> bool {
    let after = ranges.partition_point(|r| r.start <= n);
    after > 0 && ranges[after - 1].contains(&n)
}

/// 0-based line ranges of the text's code blocks (fenced or indented), as CommonMark
/// reads them.
fn code_lines(text: &str, lines: &[Range<usize>]) -> Vec<Range<usize>> {
    let line_of = |byte: usize| lines.partition_point(|r| r.end < byte);
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    for (event, range) in Parser::new(text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(_)) => {
                if depth == 0 {
                    start = range.start;
                }
                depth += 1;
            }
            Event::End(pulldown_cmark::TagEnd::CodeBlock) => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    let end = range.end.max(start);
                    out.push(line_of(start)..line_of(end.saturating_sub(1)) + 1);
                }
            }
            _ => {}
        }
    }
    out
}

/// The lines of `text` (1-based) that expose a secret to anyone reading the file: outside
/// well-formed `<private>` blocks, in a file whose frontmatter does not say
/// `private: true`.
pub(crate) fn exposed_secrets(text: &str) -> Vec<ExposedLine> {
    let folded = fold(text);
    let text = folded.as_ref();
    let candidates = candidate_lines(text);
    let mut hits: Vec<(usize, &'static str)> = candidates
        .iter()
        .filter_map(|(n, range)| secret_in_folded_line(&text[range.clone()]).map(|kind| (*n, kind)))
        .collect();
    split_secrets(text, &candidates, &mut hits);
    if hits.is_empty() || markdown::is_private_file(text) {
        return Vec::new();
    }
    let lines = line_ranges(text);
    let protected = protected_lines(text, &lines);
    hits.retain(|(n, _)| !within(&protected, *n));
    hits.into_iter()
        .map(|(n, kind)| ExposedLine { line: n + 1, kind })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(text: &str) -> Vec<usize> {
        exposed_secrets(text).iter().map(|h| h.line).collect()
    }

    /// The first secret of `text`: its line and pattern.
    fn first_hit(text: &str) -> Option<(usize, &'static str)> {
        exposed_secrets(text).first().map(|h| (h.line, h.kind))
    }

    #[test]
    fn invisible_characters_and_lookalike_letters_do_not_hide_a_secret() {
        for (text, what) in [
            // A zero-width space, joiner and a soft hyphen inside a key.
            (
                "token: ghp_aBcDeFgHiJ\u{200B}kLmNoPqRsTuVwXyZ0123456789".to_string(),
                "a GitHub token",
            ),
            (
                "AKIAZ7QW\u{200D}ERTYUIOPASDF".to_string(),
                "an AWS access key id",
            ),
            (
                "pass\u{00AD}word=hunter2Secret99".to_string(),
                "a password or key assignment",
            ),
            // Cyrillic а, е, о, р, с, х standing for Latin letters.
            (
                "p\u{0430}ssword=hunter2Secret99".to_string(),
                "a password or key assignment",
            ),
            (
                "\u{0441}lient_\u{0455}\u{0435}\u{0441}ret: Zx81kQ2pLm0vNw7".to_string(),
                "a password or key assignment",
            ),
            (
                "\u{0410}KIAZ7QWERTYUIOPASDF".to_string(),
                "an AWS access key id",
            ),
            // Fullwidth letters.
            (
                "\u{FF50}assword=hunter2Secret99".to_string(),
                "a password or key assignment",
            ),
        ] {
            assert_eq!(
                first_hit(&format!("# Notes\n\n{text}\n")),
                Some((3, what)),
                "{text:?}"
            );
            assert_eq!(secret_in_line(&text), Some(what), "{text:?}");
        }
        // Words in other scripts are not secrets.
        for text in [
            "# Заметки\n\nТокен обновляется каждый час; пароль хранится в хранилище.\n",
            "Ο κωδικός αλλάζει κάθε μήνα.\n",
            "café — naïve résumé → done…\n",
        ] {
            assert_eq!(first_hit(text), None, "{text}");
        }
    }

    #[test]
    fn a_key_split_across_two_lines_is_judged_joined() {
        for (text, line, what) in [
            (
                "# Notes\n\nghp_aBcDeFgHiJkLmNoPqR\nsTuVwXyZ0123456789\n",
                3,
                "a GitHub token",
            ),
            // The trigger itself cut by the break.
            ("intro\nAK\nIAZ7QWERTYUIOPASDF\n", 2, "an AWS access key id"),
            (
                "config:\n  password=\n  hunter2Secret99\n",
                2,
                "a password or key assignment",
            ),
            (
                "-----BEGIN RSA\nPRIVATE KEY-----\nMIIEow\n",
                1,
                "a private key block",
            ),
            (
                "-----BEGIN RSA PRIVATE\nKEY-----\nMIIEow\n",
                1,
                "a private key block",
            ),
        ] {
            assert_eq!(first_hit(text), Some((line, what)), "{text:?}");
        }
        // Wrapped prose and lists stay clean.
        for text in [
            "The token budget of the\nsession is 4000 words, and the\npassword reset flow uses\nargon2id.\n",
            "- token refresh\n- secret rotation\n- password policy\n",
            "Rotate the api\nkey yearly.\n",
        ] {
            assert_eq!(first_hit(text), None, "{text:?}");
        }
    }

    #[test]
    fn table_cells_and_lowercase_key_headers_are_secrets() {
        for (text, what) in [
            (
                "| name | value |\n|---|---|\n| password | hunter2Secret99 |\n",
                "a password or key assignment",
            ),
            (
                "| DB_PASSWORD | `Zx81kQ2pLm0vNw7` | production |\n",
                "a password or key assignment",
            ),
            ("-----begin rsa private key-----\n", "a private key block"),
            (
                "-----BEGIN OPENSSH PRIVATE KEY-----\n",
                "a private key block",
            ),
        ] {
            let line = text
                .lines()
                .position(|l| l.contains("ass") || l.contains("key"))
                .unwrap_or(0)
                + 1;
            assert_eq!(first_hit(text), Some((line, what)), "{text:?}");
        }
        for text in [
            "| setting | meaning |\n|---|---|\n| password | the user's password, hashed |\n",
            "| token | expires |\n| access token | 1h |\n",
        ] {
            assert_eq!(first_hit(text), None, "{text:?}");
        }
    }

    #[test]
    fn keys_glued_to_words_are_still_keys() {
        for (line, what) in [
            ("awskeyAKIAZ7QWERTYUIOPASDF", "an AWS access key id"),
            ("AKIAZ7QWERTYUIOPASDF_prod", "an AWS access key id"),
            ("id=AKIAZ7QWERTYUIOPASDFXYZ", "an AWS access key id"),
            (
                "tokenghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
                "a GitHub token",
            ),
            (
                "mykeyAIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
                "a Google API key",
            ),
            ("slackxoxb-1234567890-abcdefghij", "a Slack token"),
            ("keysk-proj-Ab3dEf6hIj9kLmN0pQrStUv", "an OpenAI API key"),
        ] {
            assert_eq!(secret_in_line(line), Some(what), "{line}");
        }
    }

    #[test]
    fn google_api_keys_are_secrets() {
        assert_eq!(
            secret_in_line("maps: AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"),
            Some("a Google API key")
        );
    }

    #[test]
    fn assignments_to_prefixed_secret_names_are_secrets() {
        for line in [
            "AWS_SECRET_ACCESS_KEY=Zx8yW7vU6tS5rQ4pO3nM2lK1jI0hG9fE8dC7bA6z",
            "DB_PASSWORD=hunter2hunter2",
            "MY_API_TOKEN=a1b2c3d4e5f6g7h8",
            "export STRIPE-SECRET-KEY=\"Zx8yW7vU6tS5rQ4pO3\"",
            "spring.datasource.password: s3cr3t-Passw0rd",
            "\"client_secret\": \"9f8e7d6c5b4a39281706\"",
            "password = hunter2hunter2",
        ] {
            assert_eq!(
                secret_in_line(line),
                Some("a password or key assignment"),
                "{line}"
            );
        }
    }

    #[test]
    fn ordinary_memory_prose_is_not_a_secret() {
        for line in [
            "- Fixed the password reset flow (emails expire after 1h)",
            "Token counting uses o200k_base; budget is 8000 tokens",
            "DATABASE_URL=\"file:../app.db\"",
            "tokens: 128000",
            "max_tokens: 4096",
            "The secret to fast builds: sccache",
            "password: short",
            "SECRET_NAME=prod-db-credentials-2024",
            "token_url: https://auth.example.org/oauth2/token",
            "PASSWORD_FILE=/run/secrets/db_password",
            "PWD=/home/dev/projects/app2",
            "api_key: config.auth.apiKey",
            "password=${DB_PASSWORD}",
            "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxx",
            "Use the task-management-system-overview-2024 doc",
            "risk-assessment-and-mitigation-Plan2025ABC",
            "postgres://user:password@localhost/db",
            "xoxo-hugs-and-kisses-from-the-team",
            "Asia-Pacific rollout happens in Q3",
            "EURASIAN_REGION_CODES are listed in regions.md",
            "The `key: value` pairs in config.toml are documented",
        ] {
            assert_eq!(secret_in_line(line), None, "{line}");
        }
    }

    #[test]
    fn documented_example_keys_are_allowed_by_name_and_nothing_else_for_looking_like_one() {
        for key in DOCUMENTED_EXAMPLE_KEYS {
            assert_eq!(secret_in_line(&format!("example: {key}")), None, "{key}");
            assert_eq!(secret_in_line(&format!("token={key}")), None, "{key}");
        }
        assert_eq!(
            secret_in_line("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            None
        );
        // A real-looking key that merely says EXAMPLE is not on the list.
        assert_eq!(
            secret_in_line("AKIAQ3EXAMPLE7WXYZ23"),
            Some("an AWS access key id")
        );
        assert_eq!(
            secret_in_line("sk_test_EXAMPLE9aB8cD7eF6gH5iJ4k"),
            Some("a Stripe key")
        );
    }

    #[test]
    fn only_well_formed_private_blocks_in_prose_hide_a_secret() {
        let key = "AKIAZ7QWERTYUIOPASDF";
        assert!(lines_of(&format!("a\n<private>\n{key}\n</private>\n")).is_empty());
        assert!(lines_of(&format!("---\nprivate: true\n---\n{key}\n")).is_empty());
        // Unclosed: protects nothing.
        assert_eq!(lines_of(&format!("a\n<private>\n{key}\n")), vec![3]);
        // Tags inside a code fence are text.
        assert_eq!(
            lines_of(&format!("```\n<private>\n{key}\n</private>\n```\n")),
            vec![3]
        );
        // A fence opened inside the block does not swallow the closing tag's meaning.
        assert!(lines_of(&format!("<private>\n```\n{key}\n```\n</private>\n")).is_empty());
        // Inline tags are not tag lines.
        assert_eq!(
            lines_of(&format!("`<private>` {key} `</private>`\n")),
            vec![1]
        );
        // Indented code is code.
        assert_eq!(
            lines_of(&format!(
                "para\n\n    <private>\n    {key}\n    </private>\n"
            )),
            vec![4]
        );
    }

    #[test]
    fn candidate_lines_find_each_line_once_with_its_number() {
        let text = "zero\nsecret token password\nnone\r\nlast api_key";
        let found: Vec<(usize, &str)> = candidate_lines(text)
            .into_iter()
            .map(|(n, r)| (n, &text[r]))
            .collect();
        assert_eq!(
            found,
            vec![(1, "secret token password"), (3, "last api_key")]
        );
        assert!(candidate_lines("").is_empty());
    }
}
