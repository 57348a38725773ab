//! What claims say of paths history took away: git asked once for the renames of every
//! commit that removed one, and the words for each step of where a path went.
use super::tree::{CodeIndex, Move};

impl CodeIndex {
    /// Asks git at once for the renames of every commit that took one of `paths` (or a
    /// file below one, or the first path ending with one) out of the tree, so the questions
    /// claims ask one by one afterwards start no process each.
    pub(crate) fn ask_renames_for<'p>(&self, paths: impl Iterator<Item = &'p str>) {
        let mut commits: Vec<&str> = Vec::new();
        for path in paths {
            let path = path.trim_end_matches('/');
            if path.is_empty() {
                continue;
            }
            commits.extend(self.removals().get(path).map(|c| c.id.as_str()));
            let prefix = format!("{path}/");
            commits.extend(self.removed_below(&prefix).map(|(_, c)| c.id.as_str()));
            // Of the paths ending with it, only the first is followed (as the message is).
            let tail = format!("/{path}");
            commits.extend(
                self.removed_ending(&tail)
                    .first()
                    .and_then(|from| self.removals().get(*from))
                    .map(|c| c.id.as_str()),
            );
        }
        commits.sort_unstable();
        commits.dedup();
        if let Some((first, rest)) = commits.split_first() {
            self.renames_in(first, rest);
        }
    }
}

/// What became of the path `claim` names, each step with the commit that made it.
pub(super) fn moved_message(claim: &str, step: &Move) -> String {
    match (&step.to, &step.then) {
        (Some(to), None) => format!(
            "`{claim}` was renamed to `{to}` in {}: update the memory",
            step.commit
        ),
        (Some(to), Some(then)) => format!(
            "`{claim}` was renamed in {}, and again in {then}: it is now `{to}`; update the memory",
            step.commit
        ),
        (None, None) => format!(
            "`{claim}` was removed in {} and is not in the work tree",
            step.commit
        ),
        (None, Some(then)) => format!(
            "`{claim}` was renamed in {}, then removed in {then}, and is not in the work tree",
            step.commit
        ),
    }
}
