//! Whether an instruction agent's rule is scoped to some files by its frontmatter, and so
//! loads only on demand.
use crate::io::text;
use crate::model::MemoryFile;
use crate::scan::listings::Listings;

/// Remembered per file version in the listing cache.
const RULE_FACT: &str = "rule-conditional";

/// A `.claude/rules` file whose frontmatter scopes it with `paths:`/`globs:` loads only
/// when matching files are touched.
pub(super) fn rule_is_conditional(listings: &Listings, file: &MemoryFile) -> bool {
    if let Some(known) = listings.fact(
        RULE_FACT,
        &file.path,
        file.size,
        file.modified,
        file.changed,
    ) {
        return known;
    }
    let Ok(text) = text::read_text_limited(&file.path, 1024 * 1024) else {
        return false;
    };
    let conditional = frontmatter_is_conditional(&text);
    listings.put_fact(
        RULE_FACT,
        &file.path,
        file.size,
        file.modified,
        file.changed,
        &conditional,
    );
    conditional
}

fn frontmatter_is_conditional(text: &str) -> bool {
    crate::markup::markdown::frontmatter(text).is_some_and(|fm| {
        fm.yaml.lines().any(|l| {
            let l = l.trim_start();
            (l.starts_with("paths:") || l.starts_with("globs:")) && !l.contains("alwaysApply: true")
        }) && !fm.yaml.lines().any(|l| l.trim() == "alwaysApply: true")
    })
}
