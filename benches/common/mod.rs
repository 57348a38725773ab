//! Inputs shared by the benchmarks.

/// About 1.4 MB of varied memory-bank markdown: frontmatter, headings, prose with inline
/// markup, lists, task lists, tables, fenced code in several languages, ConKeeper chips
/// and private blocks.
pub fn big_markdown() -> String {
    let mut text = String::from("---\ntitle: Progress\ntags: [bench, memory]\n---\n");
    let mut section = 0;
    while text.len() < 1_400_000 {
        section += 1;
        text.push_str(&format!(
            "\n## Session {section}: decisions and progress\n\n\
             The agent moved the **retry policy** into `src/net/retry_{section}.rs` and wrote \
             *why* in [ADR {section}](docs/adr/{section}.md). See also ~~the old plan~~.\n\n\
             - [x] Split the handler\n- [ ] Add backoff tests\n  - nested item with `code`\n\
             1. first\n2. second\n\n\
             | Area | Status | Owner |\n|------|--------|-------|\n| api | done | agent |\n\n\
             ```rust\nfn retry(attempt: u32) -> Duration {{\n    Duration::from_millis(100 << attempt.min(6))\n}}\n```\n\n\
             ```python\ndef load(path: str) -> dict:\n    return json.loads(open(path).read())  # cached\n```\n\n\
             ```json\n{{\"section\": {section}, \"ok\": true}}\n```\n\n\
             > Quote: keep the memory bank short.\n\n<!-- @category: decisions -->\n\n\
             <private>\nsecret note {section}\n</private>\n"
        ));
    }
    text
}
