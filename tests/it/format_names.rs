//! Only `src/core/formats/` knows a format: no other source file holds a format's file or
//! folder name in a string literal, or picks a format by its variant in a `match` arm or a
//! comparison. Engines ask the model (`formats::rules`, `Format::ALL`) instead, so a new
//! format is one file, and a rule of one format cannot leak into another's code path.
//! Test modules and comments are left out: tests build fixtures by name, docs explain.
use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use mbank::core::formats;

/// Names of formats' files and folders that no model constant spells out whole (file
/// stems of the memory-bank family, folder prefixes), or that the model spells only as
/// part of a longer path.
const HAND_LIST: [&str; 26] = [
    "memory-bank",
    "CLAUDE.md",
    "AGENTS.md",
    "GEMINI.md",
    "BEANS.md",
    ".clinerules",
    ".roomodes",
    ".roorules",
    ".roo/",
    ".kilocode",
    ".cursor",
    ".windsurf",
    ".kiro",
    "copilot-instructions",
    ".github/instructions",
    ".infinity",
    "memories.json",
    ".claude/memory",
    ".ai/memory",
    "activeContext",
    "decisionLog",
    "productContext",
    "systemPatterns",
    "techContext",
    "projectbrief",
    "progress.md",
];

/// Literals that hold a name yet are not a format's knowledge, each with its reason:
/// `(path relative to the workspace, a part of the literal, why)`.
const ALLOWED: [(&str, &str, &str); 11] = [
    (
        "crates/mbank-core/src/demo.rs",
        "",
        "the sample projects `mbank demo` writes and its simulated agents edit: fixture data",
    ),
    (
        "crates/mbank-serve/src/cline.rs",
        "memory-bank/",
        "tool descriptions of the Cline memory bank server, worded as its documentation",
    ),
    (
        "crates/mbank-serve/src/tools.rs",
        "memory-bank/",
        "tool descriptions of the Cline memory bank server, worded as its documentation",
    ),
    (
        "crates/mbank-serve/src/tools.rs",
        "progress.md's Update History",
        "the track_progress tool's description, worded as the server's documentation",
    ),
    (
        "crates/mbank-serve/src/tools.rs",
        "(.clinerules-*, .roomodes)",
        "the switch_mode tool's description, worded as the server's documentation",
    ),
    (
        "src/cli/args.rs",
        "mbank finds every project's memory bank",
        "the command's description for --help, documentation like a doc comment",
    ),
    (
        "crates/mbank-serve/src/http.rs",
        "/memory-bank/",
        "URL paths of the Cline memory bank REST API, as its documentation names them",
    ),
    (
        "crates/mbank-serve/src/http/rest.rs",
        "/memory-bank/",
        "URL paths of the Cline memory bank REST API, as its documentation names them",
    ),
    (
        "crates/mbank-serve/src/memory_bank_mcp.rs",
        "memory-bank://",
        "resource URIs of the Memory Bank MCP server, as its documentation names them",
    ),
    (
        "crates/mbank-serve/src/lib.rs",
        "memory-bank",
        "the names of the Memory Bank MCP tool surface `mbank mcp --tools` takes",
    ),
    (
        "crates/mbank-core/src/model.rs",
        "",
        "the format vocabulary itself: each variant's id and label, and which formats' \
         specs allow markdown only",
    ),
];

/// Every name a literal may not hold: the hand list and what the model itself names.
fn format_names() -> BTreeSet<String> {
    let mut names: BTreeSet<String> = HAND_LIST.iter().map(|s| s.to_string()).collect();
    for rules in formats::all() {
        let paths = rules.project_paths();
        names.extend(paths.files.iter().map(|s| s.to_string()));
        names.extend(paths.folders.iter().map(|s| s.to_string()));
        names.extend(rules.nested_folders().iter().map(|s| s.to_string()));
    }
    for member in formats::instruction_family() {
        names.extend([member.main, member.local, member.dot_dir].map(String::from));
    }
    names.extend(formats::DECLARING_RULE_FILES.map(String::from));
    names.extend(formats::DECLARING_RULE_FOLDERS.map(String::from));
    names
}

/// The source up to its inline test module, and the files it declares as test modules
/// (`#[cfg(test)] mod tests;`).
fn without_tests(file: &Path, text: &str) -> (String, Vec<PathBuf>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut kept = String::new();
    let mut test_files = Vec::new();
    let dir = file.parent().unwrap();
    // `foo.rs` declares its modules in `foo/`, `mod.rs` and `lib.rs` beside themselves.
    let own_dir = match file.file_stem().and_then(|s| s.to_str()) {
        Some("mod") | Some("lib") | Some("main") => dir.to_path_buf(),
        Some(stem) => dir.join(stem),
        None => dir.to_path_buf(),
    };
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if is_test_attribute(line.trim()) {
            let next = lines[i + 1..]
                .iter()
                .map(|l| l.trim())
                .find(|l| !l.is_empty() && !l.starts_with("#["))
                .unwrap_or("");
            let declaration = next
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ");
            if let Some(rest) = declaration.strip_prefix("mod ") {
                if let Some(name) = rest.strip_suffix(';') {
                    test_files.push(own_dir.join(format!("{name}.rs")));
                    test_files.push(own_dir.join(name).join("mod.rs"));
                    test_files.push(own_dir.join(name));
                } else {
                    break;
                }
            }
        }
        kept.push_str(line);
        kept.push('\n');
        i += 1;
    }
    (kept, test_files)
}

/// `#[cfg(test)]`, `#[cfg(all(test, unix))]`: an item only tests build.
fn is_test_attribute(line: &str) -> bool {
    line == "#[cfg(test)]" || line.starts_with("#[cfg(all(test,")
}

/// Whether `literal` holds `name` as a name of its own: not inside a longer word
/// (`~/memory-banks`, `not-a-memory-bank` are other words).
fn holds_name(literal: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    literal.match_indices(name).any(|(at, _)| {
        let before = literal[..at].chars().next_back();
        let after = literal[at + name.len()..].chars().next();
        !before.is_some_and(|c| word(c) || (c == '-' && !name.starts_with('.')))
            && !after.is_some_and(word)
    })
}

/// The code with comments removed and every string literal's contents blanked (line
/// breaks kept), and the string literals with their 1-based lines.
fn lex(text: &str) -> (String, Vec<(usize, String)>) {
    let chars: Vec<char> = text.chars().collect();
    let mut code = String::new();
    let mut literals = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                        code.push('\n');
                    }
                    i += 1;
                }
            }
            continue;
        }
        let prev_ident = i > 0 && is_ident(chars[i - 1]);
        // Raw strings: r"…", r#"…"#, br#"…"#.
        let raw_start = if !prev_ident && c == 'r' {
            Some(i + 1)
        } else if !prev_ident && c == 'b' && next == Some('r') {
            Some(i + 2)
        } else {
            None
        };
        if let Some(mut j) = raw_start {
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) == Some(&'"') {
                let start_line = line;
                let mut literal = String::new();
                j += 1;
                while let Some(&ch) = chars.get(j) {
                    if ch == '"' && (1..=hashes).all(|h| chars.get(j + h) == Some(&'#')) {
                        j += 1 + hashes;
                        break;
                    }
                    if ch == '\n' {
                        line += 1;
                        code.push('\n');
                    }
                    literal.push(ch);
                    j += 1;
                }
                code.push_str("\"\"");
                literals.push((start_line, literal));
                i = j;
                continue;
            }
        }
        if c == '"' {
            let start_line = line;
            let mut literal = String::new();
            let mut j = i + 1;
            while let Some(&ch) = chars.get(j) {
                if ch == '\\' {
                    if let Some(&escaped) = chars.get(j + 1) {
                        if escaped == '\n' {
                            line += 1;
                            code.push('\n');
                        }
                        literal.push(ch);
                        literal.push(escaped);
                    }
                    j += 2;
                    continue;
                }
                if ch == '"' {
                    j += 1;
                    break;
                }
                if ch == '\n' {
                    line += 1;
                    code.push('\n');
                }
                literal.push(ch);
                j += 1;
            }
            code.push_str("\"\"");
            literals.push((start_line, literal));
            i = j;
            continue;
        }
        if c == '\'' {
            // A char literal ('x', '\n', '\u{1F600}'), else a lifetime or label.
            if next == Some('\\') {
                let mut j = i + 2;
                while j < chars.len() && chars[j] != '\'' {
                    j += 1;
                }
                code.push_str("' '");
                i = j + 1;
                continue;
            }
            if chars.get(i + 2) == Some(&'\'') {
                code.push_str("' '");
                i += 3;
                continue;
            }
        }
        if c == '\n' {
            line += 1;
        }
        code.push(c);
        i += 1;
    }
    (code, literals)
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Lines (1-based) where code picks a format by its variant: a `Format::X` in a match
/// arm's pattern (followed by `=>` or `|`, or inside a `matches!`), an `==`/`!=`
/// comparison, or an `if let`/`let` pattern.
fn variant_matches(code: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut search = 0;
    // Spans of `matches!(…)`, whose second argument is a pattern.
    let mut matches_spans = Vec::new();
    while let Some(at) = code[search..].find("matches!(") {
        let open = search + at + "matches!".len();
        let mut depth = 0;
        let mut end = open;
        for (k, b) in bytes[open..].iter().enumerate() {
            match b {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k;
                        break;
                    }
                }
                _ => {}
            }
        }
        matches_spans.push((open, end));
        search = open;
    }
    let mut at = 0;
    while let Some(found_at) = code[at..].find("Format::") {
        let start = at + found_at;
        at = start + "Format::".len();
        if start > 0 && is_ident_char(bytes[start - 1] as char) {
            continue;
        }
        let tail = &code[at..];
        let len = tail.find(|c: char| !is_ident_char(c)).unwrap_or(tail.len());
        let variant = &tail[..len];
        if !variant.starts_with(|c: char| c.is_ascii_uppercase()) || variant == "ALL" {
            continue;
        }
        let after = tail[len..].trim_start_matches(|c: char| c.is_whitespace() || c == ')');
        // Before the variant, past its path (`crate::core::model::`).
        let mut before = &code[..start];
        while let Some(path) = before.strip_suffix("::") {
            before = path.trim_end_matches(is_ident_char);
        }
        let before = before.trim_end_matches(|c: char| c.is_whitespace() || c == '(');
        let in_matches = matches_spans
            .iter()
            .any(|&(open, end)| open < start && start < end);
        let picked = after.starts_with("=>")
            || (after.starts_with('|') && !after.starts_with("||"))
            || after.starts_with("==")
            || after.starts_with("!=")
            || before.ends_with("==")
            || before.ends_with("!=")
            || (before.ends_with('|') && !before.ends_with("||"))
            || before.ends_with("let Some")
            || before.ends_with("let")
            || in_matches;
        if picked {
            let line = code[..start].matches('\n').count() + 1;
            found.push((line, format!("Format::{variant}")));
        }
    }
    found
}

/// Every place in the sources of the workspace at `root` (`src/` and `crates/`) outside
/// the core's `formats/` that names a format, as `file:line: what`.
fn offences(root: &Path, names: &BTreeSet<String>) -> Vec<String> {
    let mut files = Vec::new();
    for dir in ["src", "crates"] {
        if root.join(dir).is_dir() {
            common::rust_files(&root.join(dir), &mut files);
        }
    }
    let formats_dir = root.join("crates/mbank-core/src/formats");
    let mut test_files: Vec<PathBuf> = Vec::new();
    let mut sources = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let (kept, tests) = without_tests(file, &text);
        test_files.extend(tests);
        sources.push((file.clone(), kept));
    }
    let mut out = Vec::new();
    for (file, kept) in sources {
        if file.starts_with(&formats_dir)
            || test_files
                .iter()
                .any(|t| &file == t || (t.extension().is_none() && file.starts_with(t)))
        {
            continue;
        }
        let rel = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let (code, literals) = lex(&kept);
        let mut found: Vec<(usize, String)> = Vec::new();
        for (line, literal) in literals {
            let allowed = ALLOWED
                .iter()
                .any(|(path, text, _)| *path == rel && literal.contains(text));
            let held = names
                .iter()
                .filter(|name| holds_name(&literal, name))
                .max_by_key(|name| name.len());
            if let (Some(name), false) = (held, allowed) {
                found.push((line, format!("\"{literal}\" holds {name}")));
            }
        }
        let vocabulary = ALLOWED
            .iter()
            .any(|(path, text, _)| *path == rel && text.is_empty());
        for (line, variant) in variant_matches(&code).into_iter().filter(|_| !vocabulary) {
            found.push((line, format!("picks {variant}")));
        }
        found.sort_by_key(|(line, _)| *line);
        out.extend(
            found
                .into_iter()
                .map(|(line, what)| format!("{rel}:{line}: {what}")),
        );
    }
    out
}

#[test]
fn no_source_outside_the_format_model_names_a_format() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let names = format_names();
    let found = offences(root, &names);
    assert!(
        found.is_empty(),
        "{} places outside crates/mbank-core/src/formats/ name a format (move the knowledge into the \
         format's module and ask formats::rules):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_name_guard_sees_literals_and_variant_matches_but_not_comments_or_tests() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "crates/mbank-core/src/scan.rs",
        "// \"CLAUDE.md\" in a comment\n\
         /// a doc naming .roomodes\n\
         fn a() -> &'static str { let c = '\"'; \"x/.roomodes\" }\n\
         fn b(f: Format) -> bool { f == crate::core::model::Format::Cline }\n\
         fn c(f: Format) -> u8 { match f { Format::Kiro | Format::Copilot => 1, _ => 2 } }\n\
         fn d(f: Format) -> bool { matches!(f, Format::Windsurf) }\n\
         fn e() -> Format { rules(Format::Kiro).format() }\n\
         fn g() -> &'static str { r#\"a \"quoted\" memory-bank\"# }\n\
         #[cfg(test)]\nmod tests {\n    const X: &str = \"AGENTS.md\";\n}\n",
    );
    write(
        "crates/mbank-core/src/pane.rs",
        "#[cfg(test)]\nmod tests;\nfn a() {}\n",
    );
    write(
        "crates/mbank-core/src/pane/tests.rs",
        "const X: &str = \"GEMINI.md\";\n",
    );
    write(
        "crates/mbank-core/src/formats/kiro.rs",
        "const X: &str = \".kiro/steering\";\n",
    );
    let names = format_names();
    let found = offences(root, &names);
    let expected = [
        "crates/mbank-core/src/scan.rs:3: \"x/.roomodes\" holds .roomodes",
        "crates/mbank-core/src/scan.rs:4: picks Format::Cline",
        "crates/mbank-core/src/scan.rs:5: picks Format::Kiro",
        "crates/mbank-core/src/scan.rs:5: picks Format::Copilot",
        "crates/mbank-core/src/scan.rs:6: picks Format::Windsurf",
        "crates/mbank-core/src/scan.rs:8: \"a \"quoted\" memory-bank\" holds memory-bank",
    ];
    assert_eq!(found, expected);
}
